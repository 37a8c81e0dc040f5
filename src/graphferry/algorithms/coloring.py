"""Graph colouring: speculative (Gebremedhin-Manne) or Jones-Plassmann; always proper.

The graph is read as its undirected simple view (directions ignored,
self-loops dropped: a vertex with a self-loop has no proper colour, and NetworkX's
``greedy_color`` ignores them too). Colours are ``0, 1, ...``; every method is
greedy at heart (a vertex takes the smallest colour none of its neighbours
has), so no vertex gets a colour above its degree: at most ``max degree + 1``
colours.

* ``method="speculative"`` (Gebremedhin and Manne, "Scalable parallel graph
  coloring algorithms", Concurrency: Pract. Exper. 2000; the GPU form of
  Grosset et al.): the vertices of the worklist ``W`` colour themselves
  speculatively, each taking the smallest colour its neighbours leave free;
  of two neighbours that took the same colour the lower-numbered keeps it and
  the other goes back into ``W``, so ``W`` shrinks every round. Gebremedhin
  and Manne let the reads race (a vertex sees whichever neighbours' new colours
  happen to be written already), so the colouring followed thread timing. Here
  a round is ``SUB_ROUNDS`` (8) steps over random blocks of ``W`` (``hash(seed,
  round, v)``): the vertices of a step choose from the colours the steps
  before committed, commit together, and those that clash with a neighbour of
  their block give their colour back at once. The colouring depends on the
  seed alone, not on threads, ranks or devices (Kronecker scale 14: 81
  colours, against 74 for NetworkX's random-order greedy and 58 for its
  largest-first).
* ``method="jones_plassmann"`` (Jones and Plassmann, SIAM J. Sci. Comput.
  1993): in each round every uncoloured vertex whose priority beats every
  uncoloured neighbour's (an independent set) takes the smallest colour its
  coloured neighbours leave free. Priorities are ``(degree, hash(seed, v), v)``
  (``order="largest_first"``, the order NetworkX's ``largest_first`` uses, with
  random tie-breaks) or ``(hash(seed, v), v)`` (``order="random"``).
  Deterministic for a given seed, as the speculative method is. Given a
  ``priority`` (a rank per vertex, lower first: a driver hook), it is that
  order, and the colouring is exactly the sequential greedy colouring that
  visits the vertices in it: a vertex is coloured once every earlier neighbour
  is, and no later one is yet, so it sees the colours the sequential pass
  would (NetworkX's ``greedy_color`` with an order strategy;
  :func:`verify_greedy_coloring` checks it).
  The rounds are run with counters (the "JP with a DAG" form of Hasenplaugh
  et al., "Ordering heuristics for parallel graph coloring", SPAA 2014): a
  vertex counts its uncoloured earlier neighbours once; each round colours the
  vertices whose count is zero, and an edge map from them lowers their later
  neighbours' counts, so a round reads the rows of the vertices it colours only
  (testing every uncoloured vertex against its neighbours each round read the
  whole graph again per round: 63 rounds on a 1 M-edge random graph).

Example:
    >>> import numpy as np
    >>> from graphferry import Graph
    >>> from graphferry.algorithms.coloring import coloring, verify_coloring
    >>> g = Graph.from_edges([0, 1, 2, 3], [1, 2, 0, 0], n=4, directed=False)   # a triangle and a tail
    >>> r = coloring(g, method="jones_plassmann", backend="cpu")
    >>> r.colors.tolist(), r.num_colors
    ([0, 2, 1, 1], 3)
    >>> verify_coloring(g, coloring(g, backend="cpu").colors)
"""

from __future__ import annotations

import time

import numpy as np

from ..graph import Graph
from ..runtime import Program, RunOptions
from ..transforms import on_handle, simple_graph
from . import registry
from ._common import Result, arc_keys, driver_hooks, runtime_for

METHODS = ("speculative", "jones_plassmann")
SUB_ROUNDS = 8   # steps of a speculative round, each over one random block of the vertices
ORDERS = ("largest_first", "random")

#: what both programs share: the hash and the smallest free colour
COMMON_SOURCE = r"""
#define GF_COLOR_WINDOW 256

GF_FN uint64_t color_hash(uint64_t x) {   // splitmix64's finaliser
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

// Smallest colour c >= 0 that no neighbour of v shows (uncoloured neighbours show -1),
// found window by window: a bitmask of GF_COLOR_WINDOW colours per pass over the row.
GF_FN int64_t first_free_color(const State& S, const GfGraph& G, vid_t v) {
    const eid_t b = G.begin(v), e = G.end(v);
    for (int64_t base = 0;; base += GF_COLOR_WINDOW) {
        uint32_t used[GF_COLOR_WINDOW / 32];
        for (int k = 0; k < GF_COLOR_WINDOW / 32; ++k) used[k] = 0u;
        for (eid_t i = b; i < e; ++i) {
            const int64_t c = gf_load(&S.color[G.indices[i]]) - base;
            if (c >= 0 && c < GF_COLOR_WINDOW) used[c >> 5] |= 1u << (c & 31);
        }
        for (int k = 0; k < GF_COLOR_WINDOW / 32; ++k) {
            if (used[k] == 0xFFFFFFFFu) continue;
            for (int j = 0; j < 32; ++j)
                if (!((used[k] >> j) & 1u)) return base + 32 * k + j;
        }
    }
}

"""

PROGRAM = Program(
    "coloring",
    arrays={"color": "int64", "tentative": "int64", "work": "int8", "next": "int8"},
    scalars={"seed": "int64", "round": "int64", "step": "int64"},
    vertex_functions=("gm_commit", "gm_settle"),
    neighbor_functions=("gm_tentative", "gm_detect"),
    neighbor_reads="row",  # its own row (and its neighbours' colours)
    neighbor_writes="own",  # each function writes its own vertex's color, tentative, work or next
    source=COMMON_SOURCE + r"""#define GF_COLOR_STEPS %d

// Which step of the round a vertex takes: a random block each round (the seed's)
GF_FN int64_t gm_step(const State& S, vid_t v) {
    return (int64_t)(color_hash(((uint64_t)S.seed * 1000003ull + (uint64_t)S.round) ^ color_hash((uint64_t)v))
                     %% GF_COLOR_STEPS);
}

// Gebremedhin-Manne, step 1, for the worklist vertices of this step's block: the smallest colour
// that the colours committed so far leave free, set aside until gm_commit (nothing a vertex
// reads is written while it reads, so the colouring follows the seed only)
GF_FN bool gm_tentative(const State& S, const GfGraph& G, const GfGraph& GT, vid_t v) {
    if (!S.work[v] || gm_step(S, v) != S.step) return false;
    S.tentative[v] = first_free_color(S, G, v);
    return true;
}
GF_FN bool gm_commit(const State& S, vid_t v) { S.color[v] = S.tentative[v]; return false; }

// Gebremedhin-Manne, step 2, right after the step: every vertex of the block shows a colour
// that no committed neighbour had, so a clash is with a neighbour of the same block that chose
// the same colour; of the two the lower-numbered keeps it (next[v] = 1: v clashed)
GF_FN bool gm_detect(const State& S, const GfGraph& G, const GfGraph& GT, vid_t v) {
    if (!S.work[v] || gm_step(S, v) != S.step) return false;
    S.next[v] = 0;
    const int64_t c = S.color[v];
    for (eid_t i = G.begin(v); i < G.end(v); ++i) {
        const vid_t u = G.indices[i];
        if (S.color[u] == c && u < v) { S.next[v] = 1; return true; }
    }
    return false;
}
// A clashing vertex gives its colour back (so no later vertex avoids it) and tries again next
// round; the others are done
GF_FN bool gm_settle(const State& S, vid_t v) {
    if (S.next[v]) S.color[v] = -1; else S.work[v] = 0;
    return false;
}

""" % SUB_ROUNDS,
)

JP_PROGRAM = Program(
    "coloring_jones_plassmann",
    arrays={"color": "int64", "wait": "int64", "work": "int8", "rank": "int64"},
    scalars={"seed": "int64", "by_degree": "int64", "by_rank": "int64"},
    vertex_functions=("jp_ready",),
    neighbor_functions=("jp_count", "jp_color"),
    neighbor_reads="row",
    neighbor_writes="own",
    combine="sum",             # executors' decrements of wait add up
    edge_writes=("wait",),
    signals_changes=True,      # every decrement returns true
    source=COMMON_SOURCE + r"""
// Does u come before v in Jones-Plassmann's priority order?
GF_FN bool jp_before(const State& S, const GfGraph& G, vid_t u, vid_t v) {
    if (S.by_rank) return S.rank[u] < S.rank[v];   // a given order (ranks are distinct)
    if (S.by_degree) {
        const int64_t du = G.degree(u), dv = G.degree(v);
        if (du != dv) return du > dv;
    }
    const uint64_t hu = color_hash((uint64_t)u ^ (uint64_t)S.seed), hv = color_hash((uint64_t)v ^ (uint64_t)S.seed);
    if (hu != hv) return hu > hv;
    return u < v;
}

// Jones-Plassmann with counters, step 0: wait[v] = v's uncoloured neighbours that come before it;
// work[v] = 1 (v is ready) when there are none
GF_FN bool jp_count(const State& S, const GfGraph& G, const GfGraph& GT, vid_t v) {
    int64_t earlier = 0;
    if (S.color[v] < 0)
        for (eid_t i = G.begin(v); i < G.end(v); ++i) {
            const vid_t u = G.indices[i];
            if (S.color[u] < 0 && jp_before(S, G, u, v)) ++earlier;
        }
    S.wait[v] = earlier;
    S.work[v] = S.color[v] < 0 && earlier == 0;
    return false;
}

// step 1: the ready vertices (an independent set: of two neighbours the later one waits for the
// earlier) take the smallest colour their neighbours leave free; uncoloured neighbours all come
// later and show none, so each sees exactly the colours the sequential greedy pass would
GF_FN bool jp_color(const State& S, const GfGraph& G, const GfGraph& GT, vid_t v) {
    if (!S.work[v]) return false;
    S.color[v] = first_free_color(S, G, v);
    S.work[v] = 0;
    return true;
}

// step 2, an edge map from the vertices just coloured: each uncoloured neighbour comes later
// (a vertex is coloured only after all its earlier neighbours) and waits for one fewer
GF_FN bool cond(const State& S, vid_t d) { return S.color[d] < 0; }
GF_FN bool update(const State& S, vid_t s, vid_t d, float w) { S.wait[d] -= 1; return true; }
GF_FN bool update_atomic(const State& S, vid_t s, vid_t d, float w) {
    if (gf_load(&S.color[d]) >= 0) return false;
    gf_atomic_add(&S.wait[d], (int64_t)-1);
    return true;
}
// step 3, over the vertices the map touched: those that wait for none are ready
GF_FN bool jp_ready(const State& S, vid_t v) {
    if (S.color[v] < 0 && S.wait[v] == 0) { S.work[v] = 1; return true; }
    return false;
}
""",
)


def coloring(graph: Graph, method: str = "speculative", order: str = "largest_first", seed: int = 0, *,
             options: RunOptions | None = None, **kwargs) -> Result:
    """A proper vertex colouring (values ``colors``, int64 from 0).

    Scalars: ``num_colors`` and ``rounds`` (speculative: colouring rounds;
    Jones-Plassmann: independent sets). ``order`` applies to Jones-Plassmann; ``seed`` to
    both (the speculative method's blocks, Jones-Plassmann's priorities).

    Driver hooks (keywords beside the run options, see ``_common.driver_hooks``):
    ``precolored`` (one colour per vertex, -1 for "to colour") fixes the colours of
    some vertices, which must be proper among themselves; the rest are coloured
    around them (HyPar's post-processing of border vertices). ``stop_when``
    (HyPar's independent computation) is called with each round's seconds and
    ends the run early when it returns True: the colouring may then be partial (-1).
    ``priority`` (distinct int64 ranks, one per vertex) is Jones-Plassmann's order,
    lower first, in place of ``order``: the sequential greedy colouring in that order.
    """
    precolored, stop_when, priority = driver_hooks(kwargs, "precolored", "stop_when", "priority")
    registry.get("coloring").check_values(seed=seed)
    if method not in METHODS:
        raise ValueError(f"coloring: method must be one of {', '.join(METHODS)}, got {method!r}")
    if order not in ORDERS:
        raise ValueError(f"coloring: order must be one of {', '.join(ORDERS)}, got {order!r}")
    if method == "jones_plassmann" and priority is not None and not graph.directed:
        # a symmetric CSR as it is: in a given order a self-loop never counts (a vertex does not
        # come before itself) and a repeated edge counts twice and is counted down twice
        simple = graph
    else:
        simple = simple_graph(graph, undirected=True)
    rounds = 0
    if precolored is not None:
        precolored = np.asarray(precolored, dtype=np.int64)
        if precolored.shape != (graph.n,):
            raise ValueError(f"precolored must have one entry per vertex ({graph.n}), got {precolored.shape}")
        initial: object = precolored
        todo: object = (precolored < 0).astype(np.int8)
    else:
        initial, todo = -1, 1
    with runtime_for(on_handle(graph, simple), "coloring", options, kwargs) as rt:
        if method == "speculative":
            st = rt.start(PROGRAM, arrays={"color": initial, "tentative": -1, "work": todo, "next": 0},
                          scalars={"seed": int(seed)})
            while simple.n:
                st.scalars["round"] = rounds
                rounds += 1
                t = time.perf_counter()
                clashes = 0
                for step in range(SUB_ROUNDS):
                    st.scalars["step"] = step
                    chosen = st.neighbor_map("gm_tentative", in_edges=False)
                    if chosen:
                        st.vertex_map("gm_commit", chosen)
                        clashes += len(st.neighbor_map("gm_detect", in_edges=False))
                        st.vertex_map("gm_settle", chosen)
                if not clashes or (stop_when is not None and stop_when(time.perf_counter() - t)):
                    break
        else:
            rank: object = 0
            if priority is not None:
                rank = np.asarray(priority, dtype=np.int64)
                if rank.shape != (graph.n,):
                    raise ValueError(f"priority must have one entry per vertex ({graph.n}), got {rank.shape}")
            st = rt.start(JP_PROGRAM, arrays={"color": initial, "wait": 0, "work": 0, "rank": rank},
                          scalars={"seed": int(seed), "by_degree": int(order == "largest_first"),
                                   "by_rank": int(priority is not None)})
            rounds = _jones_plassmann_rounds(st, simple.n, stop_when)
        top = st.reduce("color", "max")  # where the colours live: they stay there until read
        num = int(top) + 1 if top is not None else 0
        colors = st.result("color", np.int64)
    return Result(graph, {"colors": colors}, rt.record, {"num_colors": num, "rounds": rounds})


def _jones_plassmann_rounds(st, n: int, stop_when) -> int:
    """Jones-Plassmann's rounds with counters on a started JP_PROGRAM state; returns the rounds."""
    rounds = 0
    t = time.perf_counter()
    st.neighbor_map("jp_count", in_edges=False)
    while n:
        colored = st.neighbor_map("jp_color", in_edges=False)
        if not colored:
            break
        rounds += 1
        touched = st.edge_map(colored)
        if touched:
            st.vertex_map("jp_ready", touched)
        if stop_when is not None and stop_when(time.perf_counter() - t):
            break
        t = time.perf_counter()
    return rounds


def verify_greedy_coloring(graph: Graph, colors: np.ndarray, priority: np.ndarray) -> None:
    """The sequential greedy colouring in ``priority``'s order (lower first): every vertex has the
    smallest colour that none of its earlier neighbours has (and the colouring is proper).

    Reads the edge list with numpy only: a vertex of colour ``c`` must see each colour below
    ``c`` among its earlier neighbours, and none of its neighbours may have ``c``. Raises AssertionError.
    """
    verify_coloring(graph, colors)
    colors, rank = np.asarray(colors, np.int64), np.asarray(priority, np.int64)
    src, dst = graph.edges()
    keep = src != dst
    a, b = np.r_[src[keep], dst[keep]], np.r_[dst[keep], src[keep]]   # both directions: the undirected view
    seen = (rank[b] < rank[a]) & (colors[b] < colors[a])              # earlier neighbours' lower colours
    width = int(colors.max()) + 1 if len(colors) else 1
    distinct = np.unique(a[seen].astype(np.int64) * width + colors[b[seen]])
    below = np.bincount(distinct // width, minlength=graph.n)
    wrong = np.flatnonzero(below != colors)
    assert len(wrong) == 0, (f"vertex {wrong[0]} has colour {colors[wrong[0]]} but its earlier neighbours leave "
                             f"a smaller one free")


def verify_coloring(graph: Graph, colors: np.ndarray) -> None:
    """Every vertex coloured (``>= 0``), no edge between distinct vertices joins equal colours,
    and no colour exceeds the vertex's degree in the undirected simple view (the greedy bound).

    Reads the edge list with numpy only; raises AssertionError.
    """
    colors = np.asarray(colors)
    assert colors.shape == (graph.n,), "one colour per vertex"
    assert graph.n == 0 or colors.min() >= 0, "a vertex is uncoloured"
    src, dst = graph.edges()
    keep = src != dst
    clash = np.flatnonzero(colors[src[keep]] == colors[dst[keep]])
    assert len(clash) == 0, f"edge {src[keep][clash[0]]} - {dst[keep][clash[0]]} joins two vertices of colour " \
                            f"{colors[src[keep][clash[0]]]}"
    a, b = np.minimum(src[keep], dst[keep]), np.maximum(src[keep], dst[keep])
    pairs = np.unique(arc_keys(a, b, max(graph.n, 1)))
    degree = np.bincount(pairs // max(graph.n, 1), minlength=graph.n) + \
        np.bincount(pairs % max(graph.n, 1), minlength=graph.n)
    over = np.flatnonzero(colors > degree)
    assert len(over) == 0, f"vertex {over[0]} has colour {colors[over[0]]} above its degree {degree[over[0]]}"
