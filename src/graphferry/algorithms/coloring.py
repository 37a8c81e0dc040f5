"""Graph colouring: speculative (Gebremedhin-Manne) or Jones-Plassmann; always proper.

The graph is read as its undirected simple view (directions ignored,
self-loops dropped: a vertex with a self-loop has no proper colour, and NetworkX's
``greedy_color`` ignores them too). Colours are ``0, 1, ...``; every method is
greedy at heart (a vertex takes the smallest colour none of its neighbours
has), so no vertex gets a colour above its degree: at most ``max degree + 1``
colours.

* ``method="speculative"`` (Gebremedhin and Manne, "Scalable parallel graph
  coloring algorithms", Concurrency: Pract. Exper. 2000; the GPU form of
  Grosset et al.): every vertex of the worklist ``W`` takes, at once, the
  smallest colour its neighbours show right now (reads race on purpose);
  then conflict detection puts back into ``W`` every vertex of ``W`` that
  shares its colour with a neighbour outside ``W`` or with a lower-numbered
  neighbour in ``W``. Of two clashing vertices one always keeps its colour, so
  ``W`` shrinks every round; the colouring depends on thread timing.
* ``method="jones_plassmann"`` (Jones and Plassmann, SIAM J. Sci. Comput.
  1993): in each round every uncoloured vertex whose priority beats every
  uncoloured neighbour's (an independent set) takes the smallest colour its
  coloured neighbours leave free. Priorities are ``(degree, hash(seed, v), v)``
  (``order="largest_first"``, the order NetworkX's ``largest_first`` uses, with
  random tie-breaks) or ``(hash(seed, v), v)`` (``order="random"``).
  Deterministic for a given seed.

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
ORDERS = ("largest_first", "random")

PROGRAM = Program(
    "coloring",
    arrays={"color": "int64", "work": "int8", "next": "int8"},
    scalars={"seed": "int64", "by_degree": "int64"},
    neighbor_functions=("gm_tentative", "gm_detect", "jp_select", "jp_color"),
    neighbor_reads="row",  # its own row (and its neighbours' colours)
    neighbor_writes="own",  # each function writes its own vertex's color, work or next
    source=r"""
#define GF_COLOR_WINDOW 256

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

// Gebremedhin-Manne, step 1: every worklist vertex colours itself speculatively.
GF_FN bool gm_tentative(const State& S, const GfGraph& G, const GfGraph& GT, vid_t v) {
    if (!S.work[v]) return false;
    S.color[v] = first_free_color(S, G, v);   // neighbours may read it this round: that is the speculation
    return false;
}

// Gebremedhin-Manne, step 2: a worklist vertex that clashes with a neighbour outside
// the worklist, or with a lower-numbered one inside it, goes back into the worklist.
GF_FN bool gm_detect(const State& S, const GfGraph& G, const GfGraph& GT, vid_t v) {
    S.next[v] = 0;
    if (!S.work[v]) return false;
    const int64_t c = S.color[v];
    for (eid_t i = G.begin(v); i < G.end(v); ++i) {
        const vid_t u = G.indices[i];
        if (S.color[u] == c && (!S.work[u] || u < v)) { S.next[v] = 1; return true; }
    }
    return false;
}

GF_FN uint64_t color_hash(uint64_t x) {   // splitmix64's finaliser
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

// Does u come before v in Jones-Plassmann's priority order?
GF_FN bool jp_before(const State& S, const GfGraph& G, vid_t u, vid_t v) {
    if (S.by_degree) {
        const int64_t du = G.degree(u), dv = G.degree(v);
        if (du != dv) return du > dv;
    }
    const uint64_t hu = color_hash((uint64_t)u ^ (uint64_t)S.seed), hv = color_hash((uint64_t)v ^ (uint64_t)S.seed);
    if (hu != hv) return hu > hv;
    return u < v;
}

// Jones-Plassmann, step 1: uncoloured vertices that beat every uncoloured neighbour.
GF_FN bool jp_select(const State& S, const GfGraph& G, const GfGraph& GT, vid_t v) {
    S.work[v] = 0;
    if (S.color[v] >= 0) return false;
    for (eid_t i = G.begin(v); i < G.end(v); ++i) {
        const vid_t u = G.indices[i];
        if (S.color[u] < 0 && jp_before(S, G, u, v)) return false;
    }
    S.work[v] = 1;
    return true;
}

// Jones-Plassmann, step 2: the selected (independent) vertices take their colours.
GF_FN bool jp_color(const State& S, const GfGraph& G, const GfGraph& GT, vid_t v) {
    if (S.work[v]) S.color[v] = first_free_color(S, G, v);
    return false;
}
""",
)


def coloring(graph: Graph, method: str = "speculative", order: str = "largest_first", seed: int = 0, *,
             options: RunOptions | None = None, **kwargs) -> Result:
    """A proper vertex colouring (values ``colors``, int64 from 0).

    Scalars: ``num_colors`` and ``rounds`` (speculative: colouring rounds;
    Jones-Plassmann: independent sets). ``order`` and ``seed`` apply to Jones-Plassmann.

    Driver hooks (keywords beside the run options, see ``_common.driver_hooks``):
    ``precolored`` (one colour per vertex, -1 for "to colour") fixes the colours of
    some vertices, which must be proper among themselves; the rest are coloured
    around them (HyPar's post-processing of border vertices). ``stop_when``
    (HyPar's independent computation) is called with each round's seconds and
    ends the run early when it returns True: the colouring may then be partial
    (-1) or, for the speculative method, still hold clashes.
    """
    precolored, stop_when = driver_hooks(kwargs, "precolored", "stop_when")
    registry.get("coloring").check_values(seed=seed)
    if method not in METHODS:
        raise ValueError(f"coloring: method must be one of {', '.join(METHODS)}, got {method!r}")
    if order not in ORDERS:
        raise ValueError(f"coloring: order must be one of {', '.join(ORDERS)}, got {order!r}")
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
            st = rt.start(PROGRAM, arrays={"color": initial, "work": todo, "next": 0})
            while simple.n:
                rounds += 1
                t = time.perf_counter()
                st.neighbor_map("gm_tentative", in_edges=False)
                clashes = st.neighbor_map("gm_detect", in_edges=False)
                st.swap("work", "next")
                if not clashes or (stop_when is not None and stop_when(time.perf_counter() - t)):
                    break
        else:
            st = rt.start(PROGRAM, arrays={"color": initial, "work": 0, "next": 0},
                          scalars={"seed": int(seed), "by_degree": int(order == "largest_first")})
            t = time.perf_counter()
            while st.neighbor_map("jp_select", in_edges=False):
                rounds += 1
                st.neighbor_map("jp_color", in_edges=False)
                if stop_when is not None and stop_when(time.perf_counter() - t):
                    break
                t = time.perf_counter()
        top = st.reduce("color", "max")  # where the colours live: they stay there until read
        num = int(top) + 1 if top is not None else 0
        colors = st.result("color", np.int64)
    return Result(graph, {"colors": colors}, rt.record, {"num_colors": num, "rounds": rounds})


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
