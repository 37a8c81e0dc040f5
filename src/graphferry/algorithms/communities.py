"""Community detection by label propagation (PLP) with HyPar's merge rule, and modularity.

The graph is read as its undirected simple view. Label propagation (Raghavan,
Albert and Kumara 2007) in the parallel, worklist form of Staudt and
Meyerhenke's PLP (ICPP 2013) that HyPar builds on (HyPar, JPDC 2019,
Algorithm 4): every vertex starts in its own community; in each round every
*active* vertex takes the label most frequent among its neighbours. A vertex
keeps its label when that label is among the most frequent (NetworkX's
``asyn_lpa_communities`` rule, which stops oscillation); other ties go to the
label of least ``hash(seed, round, vertex, label)``. A vertex whose label changed
activates itself and its neighbours for the next round. Rounds stop when
fewer than ``n / 10**5`` vertices are active or after ``max_iterations``
(HyPar's PLP criteria).

**Deterministic rounds.** PLP updates in place, so later vertices of a round
see earlier ones' new labels (asynchrony damps the oscillation of synchronous
label propagation); but which vertices are "earlier" is then thread timing, and
the same seed gave different communities under different thread or rank
counts. Here a round is ``SUB_ROUNDS`` (8) steps: the vertices are split into
that many random blocks (a seeded permutation of the ids, a new one each
round), and in step ``j`` the vertices of block ``j`` choose their labels from
the labels as they stood after step ``j - 1`` (written aside, then committed
together). A vertex therefore sees the new labels of the blocks before its own
(asynchronous across blocks), and nothing it reads is written while it reads:
the labels depend on the seed alone, not on threads, ranks or devices.

Counting labels: a vertex with at most 256 neighbours sorts their labels in
a local array (exact mode); a larger one keeps 32 Misra-Gries counters over
its neighbours' labels and recounts those candidates exactly (the mode is
found whenever its share exceeds 1/33; otherwise the best candidate wins).

**HyPar's merge rule** (Section 6.3, Algorithm 5), ``refine=True``: after
propagation, each community's ratio of intra-community arcs to all its arcs
is compared with the average ratio over communities; communities below the
average, or with fewer than ``m / 10**7`` internal edges, are dismantled into
single vertices, the others are finalised and, with their incident edges,
removed; propagation then runs again on what remains (HyPar's post-processing
step on the reduced graph).

**Modularity** (HyPar's Eq. 1, Newman's ``Q``):
``Q = sum_c [ in_c / 2m - (tot_c / 2m)^2 ]`` with ``in_c`` the arcs inside
community ``c`` (each internal edge twice), ``tot_c`` the sum of its
vertices' degrees and ``m`` the number of edges; computed by a
neighbourhood pass and two reductions.

Example:
    >>> import numpy as np
    >>> from graphferry import Graph
    >>> from graphferry.algorithms.communities import communities
    >>> a = [0, 0, 1, 3, 3, 4, 2]; b = [1, 2, 2, 4, 5, 5, 3]      # two triangles and a bridge
    >>> r = communities(Graph.from_edges(a, b, n=6, directed=False), backend="cpu")
    >>> r.community.tolist(), r.num_communities, round(r.modularity, 4)
    ([0, 0, 0, 3, 3, 3], 2, 0.3571)
"""

from __future__ import annotations

import math
import time
from typing import Callable

import numpy as np

from .. import host_ops
from ..graph import Graph
from ..runtime import Program, RunOptions
from ..transforms import on_handle, simple_graph
from . import registry
from ._common import Result, checked_community_names, driver_hooks, runtime_for

LOCAL = 256         # most labels a vertex sorts exactly
CANDIDATES = 32     # Misra-Gries counters for larger neighbourhoods
SUB_ROUNDS = 8      # steps of a round, each over one random block of the vertices (see above)
ACTIVE_FRACTION = 1e-5   # PLP/HyPar stop: fewer active vertices than this fraction of n
TINY_COMMUNITY = 1e-7    # HyPar: communities with fewer internal edges than this fraction of m are dismantled

PROGRAM = Program(
    "communities",
    arrays={"label": "vid", "pending": "vid", "smallest": "vid", "active": "int8", "next": "int8", "fixed": "int8",
            "inside": "float64", "total": "float64", "ratio": "float64"},
    scalars={"seed": "int64", "round": "int64", "average": "float64", "min_inside": "float64",
             "n_vertices": "int64", "perm_mul": "int64", "perm_add": "int64", "slot_lo": "int64",
             "slot_hi": "int64"},
    vertex_functions=("clear_next", "commit", "clear_smallest", "find_smallest", "rename", "clear_sums", "square_total",
                      "community_ratio", "dismantle"),
    neighbor_functions=("propagate", "count_arcs"),
    neighbor_reads="rows",  # one row per call, but propagate's slot u visits a scrambled vertex
    source=r"""
#define GF_LP_LOCAL %(local)d
#define GF_LP_CANDIDATES %(candidates)d
#if defined(GF_CUDA)
#define GF_LP_BATCH 16   // reads in flight per thread on a GPU (a CPU core overlaps them itself:
#else               // batching there measured a fifth to two thirds slower at Kronecker 20)
#define GF_LP_BATCH 1
#endif

GF_FN uint64_t lp_hash(uint64_t x) {    // splitmix64's finaliser
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}
// tie-break rank of ``label`` for vertex v: independent per vertex and round (a global rank
// would let one label sweep the graph, as a minimum-label propagation does)
GF_FN uint64_t lp_tie(const State& S, vid_t v, vid_t label) {
    return lp_hash((uint64_t)label ^ lp_hash(((uint64_t)S.seed * 1000003ull + (uint64_t)S.round) * 0x100000001B3ull
                                             ^ (uint64_t)v));
}

// (a * x + b) mod n without overflow: direct when the product fits 64 bits, else double-and-add
GF_FN uint64_t lp_scramble(uint64_t x, uint64_t a, uint64_t b, uint64_t n) {
    if (x < (1ull << 31) && a < (1ull << 32)) return (x * a + b) %% n;
    uint64_t r = b %% n;
    x %%= n;
    for (; a; a >>= 1) {
        if (a & 1) { r += x; if (r >= n) r -= n; }
        x <<= 1; if (x >= n) x -= n;
    }
    return r;
}

// Better choice of (count, label): more neighbours; on a tie the current label, then least hash.
GF_FN bool lp_better(const State& S, vid_t v, int64_t c, vid_t l, int64_t best_c, vid_t best_l, vid_t own) {
    if (c != best_c) return c > best_c;
    if (l == own || best_l == own) return l == own;
    return lp_tie(S, v, l) < lp_tie(S, v, best_l);
}

// The labels of row positions [i0, i0 + z) into got (-1 for a finalised neighbour): the
// neighbours, their marks and their labels each read in one sweep of independent loads.
GF_FN void lp_read_batch(const State& S, const GfGraph& G, eid_t i0, int z, vid_t* got) {
    vid_t u[GF_LP_BATCH];
    int8_t out[GF_LP_BATCH];
    for (int t = 0; t < z; ++t) u[t] = G.indices[i0 + t];
    for (int t = 0; t < z; ++t) { out[t] = S.fixed[u[t]]; got[t] = S.label[u[t]]; }
    for (int t = 0; t < z; ++t) if (out[t]) got[t] = (vid_t)-1;
}

// One PLP step for an active vertex of this step's block: the most frequent label among the
// neighbours that are still in play (finalised communities are removed with their edges),
// written to pending[v]; label is only read here (commit copies pending over it after the step)
GF_FN bool propagate(const State& S, const GfGraph& G, const GfGraph& GT, vid_t slot) {
    // the block of a step: slots [slot_lo, slot_hi) of a permutation scrambled anew each
    // round ((a * slot + b) mod n, a coprime to n): random blocks, not runs of consecutive
    // ids (planted communities often are such runs)
    if ((int64_t)slot < S.slot_lo || (int64_t)slot >= S.slot_hi) return false;
    const vid_t v = (vid_t)lp_scramble((uint64_t)slot, (uint64_t)S.perm_mul, (uint64_t)S.perm_add,
                                       (uint64_t)S.n_vertices);
    if (!S.active[v] || S.fixed[v]) return false;
    const eid_t b = G.begin(v), e = G.end(v);
    const vid_t own = S.label[v];
    int64_t best_c = 0;
    vid_t best = own;
    if (e - b <= GF_LP_LOCAL) {
        vid_t buf[GF_LP_LOCAL];
        int64_t d = 0;
        vid_t got[GF_LP_BATCH];
        for (eid_t i0 = b; i0 < e; i0 += GF_LP_BATCH) {
            const int z = (int)(e - i0 < GF_LP_BATCH ? e - i0 : GF_LP_BATCH);
            lp_read_batch(S, G, i0, z, got);
            for (int t = 0; t < z; ++t) if (got[t] >= 0) buf[d++] = got[t];
        }
        gf_sort_ids(buf, d);
        for (int64_t k = 0; k < d;) {
            int64_t z = k + 1;
            while (z < d && buf[z] == buf[k]) ++z;
            if (lp_better(S, v, z - k, buf[k], best_c, best, own)) { best_c = z - k; best = buf[k]; }
            k = z;
        }
    } else {
        // Misra-Gries: any label held by more than 1/(K+1) of the neighbours survives.
        // A hub's row is one thread's (on a GPU the round waits for it): its labels are read
        // GF_LP_BATCH at a time, every read issued before any is used, so that the reads
        // overlap instead of each waiting out the memory's latency in turn
        vid_t cand[GF_LP_CANDIDATES];
        int64_t cnt[GF_LP_CANDIDATES];
        for (int k = 0; k < GF_LP_CANDIDATES; ++k) cnt[k] = 0;
        vid_t got[GF_LP_BATCH];
        for (eid_t i0 = b; i0 < e; i0 += GF_LP_BATCH) {
            const int z = (int)(e - i0 < GF_LP_BATCH ? e - i0 : GF_LP_BATCH);
            lp_read_batch(S, G, i0, z, got);
            for (int t = 0; t < z; ++t) {
                const vid_t l = got[t];
                if (l < 0) continue;                       // a finalised neighbour
                int free_slot = -1, k = 0;
                for (; k < GF_LP_CANDIDATES; ++k) {
                    if (cnt[k] > 0 && cand[k] == l) { ++cnt[k]; break; }
                    if (cnt[k] == 0 && free_slot < 0) free_slot = k;
                }
                if (k < GF_LP_CANDIDATES) continue;
                if (free_slot >= 0) { cand[free_slot] = l; cnt[free_slot] = 1; continue; }
                for (int j = 0; j < GF_LP_CANDIDATES; ++j) --cnt[j];
            }
        }
        int64_t exact[GF_LP_CANDIDATES];
        for (int k = 0; k < GF_LP_CANDIDATES; ++k) exact[k] = 0;
        for (eid_t i0 = b; i0 < e; i0 += GF_LP_BATCH) {
            const int z = (int)(e - i0 < GF_LP_BATCH ? e - i0 : GF_LP_BATCH);
            lp_read_batch(S, G, i0, z, got);
            for (int t = 0; t < z; ++t) {
                const vid_t l = got[t];
                if (l < 0) continue;
                for (int k = 0; k < GF_LP_CANDIDATES; ++k)
                    if (cnt[k] > 0 && cand[k] == l) { ++exact[k]; break; }
            }
        }
        for (int k = 0; k < GF_LP_CANDIDATES; ++k)
            if (cnt[k] > 0 && lp_better(S, v, exact[k], cand[k], best_c, best, own)) { best_c = exact[k]; best = cand[k]; }
    }
    if (best_c == 0 || best == own) return false;
    S.pending[v] = best;
    S.next[v] = 1;                       // it and its neighbours look again next round (writes of 1: any order)
    for (eid_t i = b; i < e; ++i) S.next[G.indices[i]] = 1;
    return true;
}
GF_FN bool clear_next(const State& S, vid_t v) { S.next[v] = 0; return false; }
// the end of a step, for each slot whose propagate returned true: its vertex takes its new label
GF_FN bool commit(const State& S, vid_t slot) {
    const vid_t v = (vid_t)lp_scramble((uint64_t)slot, (uint64_t)S.perm_mul, (uint64_t)S.perm_add,
                                       (uint64_t)S.n_vertices);
    S.label[v] = S.pending[v];
    return false;
}

// name every community by its smallest member (so label v, if used, is v's own community's)
GF_FN bool clear_smallest(const State& S, vid_t v) { S.smallest[v] = (vid_t)S.n_vertices; return false; }
GF_FN bool find_smallest(const State& S, vid_t v) { gf_atomic_min(&S.smallest[S.label[v]], v); return false; }
GF_FN bool rename(const State& S, vid_t v) { S.label[v] = S.smallest[S.label[v]]; return false; }

// ---- modularity and HyPar's merge rule: per-community sums indexed by the label
GF_FN bool clear_sums(const State& S, vid_t v) { S.inside[v] = 0.0; S.total[v] = 0.0; S.ratio[v] = 0.0; return false; }
GF_FN bool count_arcs(const State& S, const GfGraph& G, const GfGraph& GT, vid_t v) {
    const vid_t c = S.label[v];
    int64_t in = 0;
    for (eid_t i = G.begin(v); i < G.end(v); ++i) in += S.label[G.indices[i]] == c;
    if (in) gf_atomic_add(&S.inside[c], (double)in);
    if (G.degree(v)) gf_atomic_add(&S.total[c], (double)G.degree(v));
    return false;
}
GF_FN bool square_total(const State& S, vid_t c) { S.ratio[c] = S.total[c] * S.total[c]; return false; }
// HyPar: ratio of a community's intra-community arcs to all of its arcs (intra twice, cut once)
GF_FN bool community_ratio(const State& S, vid_t c) {
    const double cut = S.total[c] - S.inside[c];
    S.ratio[c] = S.total[c] > 0 ? S.inside[c] / (S.inside[c] + cut) : 0.0;
    return S.total[c] > 0;
}
// HyPar Algorithm 5, lines 5-12: dismantle weak communities, finalise the rest
GF_FN bool dismantle(const State& S, vid_t v) {
    const vid_t c = S.label[v];
    if (S.ratio[c] < S.average || S.inside[c] / 2 < S.min_inside) {
        S.label[v] = v; S.fixed[v] = 0; S.active[v] = 1;
        return false;
    }
    S.fixed[v] = 1; S.active[v] = 0;
    return true;
}
""" % {"local": LOCAL, "candidates": CANDIDATES},
)


def _scramble(n: int, rng: np.random.Generator) -> tuple[int, int]:
    """``(a, b)`` with ``gcd(a, n) == 1``: ``slot -> (a * slot + b) mod n`` permutes ``0..n-1``."""
    while True:
        a = int(rng.integers(1, max(n, 2)))
        if math.gcd(a, n) == 1:
            return a, int(rng.integers(0, max(n, 1)))


def propagate(st, n: int, max_iterations: int, first_round: int = 0,
              stop_when: Callable[[float], bool] | None = None) -> int:
    """PLP rounds on the active, unfixed vertices until few are active (or ``stop_when``, given
    each round's seconds, says so); returns the rounds run."""
    rounds = 0
    rng = np.random.default_rng([int(st.scalars["seed"]), first_round])
    while rounds < max_iterations:
        t = time.perf_counter()
        st.scalars["round"] = first_round + rounds
        st.scalars["perm_mul"], st.scalars["perm_add"] = _scramble(n, rng)
        st.vertex_map("clear_next")
        for j in range(SUB_ROUNDS):           # one block of the scrambled order a step
            st.scalars["slot_lo"], st.scalars["slot_hi"] = n * j // SUB_ROUNDS, n * (j + 1) // SUB_ROUNDS
            changed = st.neighbor_map("propagate", in_edges=False)   # the slots whose vertex moved
            if changed:
                st.vertex_map("commit", changed)
        rounds += 1
        st.swap("active", "next")
        if st.reduce("active", "sum") < max(1.0, n * ACTIVE_FRACTION):
            break
        if stop_when is not None and stop_when(time.perf_counter() - t):
            break
    return rounds


def modularity_terms(st, m: int) -> float:
    """Newman's Q of the current labels (HyPar's Eq. 1); leaves per-community sums in the state."""
    st.vertex_map("clear_sums")
    st.neighbor_map("count_arcs", in_edges=False)
    inside = float(st.reduce("inside", "sum"))
    st.vertex_map("square_total")
    squares = float(st.reduce("ratio", "sum"))
    if m == 0:
        return 0.0
    return inside / (2 * m) - squares / (2 * m) ** 2


def name_by_smallest(st) -> None:
    """Relabel every community with its smallest member (three vertex passes)."""
    st.vertex_map("clear_smallest")
    st.vertex_map("find_smallest")
    st.vertex_map("rename")


def hypar_merge(st, m: int) -> int:
    """HyPar's merge rule on the current labels; returns how many vertices were finalised.

    Communities are first named by their smallest member, so a dismantled
    vertex's own id never names a finalised community.
    """
    name_by_smallest(st)
    modularity_terms(st, m)
    present = st.vertex_map("community_ratio")          # communities with at least one arc
    if not present:
        return 0
    # the ratios' exact sum (math.fsum, one transfer of a value per community): a parallel sum's
    # rounding follows the thread count, and on a regular graph many communities share the
    # average's ratio exactly, so its last bit would decide which of them are dismantled
    st.scalars["average"] = math.fsum(st.gather("ratio", present).tolist()) / len(present)
    st.scalars["min_inside"] = m * TINY_COMMUNITY
    return len(st.vertex_map("dismantle"))


def communities(graph: Graph, max_iterations: int = 100, refine: bool = True, seed: int = 0, *,
                options: RunOptions | None = None, **kwargs) -> Result:
    """Community of every vertex (values ``community``: the smallest internal id of its
    community) by label propagation, refined by HyPar's merge rule when ``refine``.

    Scalars: ``modularity``, ``num_communities``, ``iterations`` (propagation rounds)
    and ``finalised`` (vertices the merge rule kept; 0 without ``refine``).
    Driver hooks (keywords beside the run options): ``stop_when`` (HyPar's
    independent computation) gets each propagation round's seconds and ends the
    first propagation when it returns True. ``labels`` (one per vertex, each below
    ``n``) starts propagation from those labels instead of each vertex's own id,
    and ``active`` (one 0/1 per vertex) says which vertices may change theirs (the
    others, such as a BSP part's ghost vertices, only vote); with ``labels`` the
    result's ``community`` is the propagated labels themselves, not renamed.
    """
    stop_when, labels, active = driver_hooks(kwargs, "stop_when", "labels", "active")
    registry.get("communities").check_values(seed=seed)
    if max_iterations < 0:
        raise ValueError(f"max_iterations must be >= 0, got {max_iterations}")
    simple = simple_graph(graph, undirected=True)
    n, m = simple.n, simple.m // 2
    finalised = 0
    with runtime_for(on_handle(graph, simple), "communities", options, kwargs) as rt:
        initial = np.arange(n) if labels is None else np.asarray(labels)
        if initial.shape != (n,) or (n and not 0 <= initial.min() <= initial.max() < n):
            raise ValueError(f"communities: labels must be {n} values in [0, {n})")
        st = rt.start(PROGRAM, arrays={"label": initial.astype(simple.indices.dtype),
                                       "pending": initial.astype(simple.indices.dtype),
                                       "active": 1 if active is None else np.asarray(active, np.int8),
                                       "next": 0, "fixed": 0, "inside": 0, "total": 0, "ratio": 0},
                      scalars={"seed": int(seed), "n_vertices": n})
        rounds = propagate(st, n, max_iterations, stop_when=stop_when) if n else 0
        if refine and n and rounds < max_iterations:
            finalised = hypar_merge(st, m)
            if finalised < n:                         # post-process the reduced graph
                rounds += propagate(st, n, max_iterations - rounds, first_round=rounds)
        if n and labels is None:
            name_by_smallest(st)
        modularity = modularity_terms(st, m) if n else 0.0
        community = st.host("label").astype(np.int64)
    return Result(graph, {"community": community}, rt.record,
                  {"modularity": modularity, "num_communities": host_ops.count_distinct(community),
                   "iterations": rounds, "finalised": finalised},
                  vertex_ids=registry.get("communities").vertex_ids)  # a community is named by its smallest vertex


def verify_communities(graph: Graph, community: np.ndarray, modularity: float | None = None) -> None:
    """A community for every vertex, named by its smallest member, and (when given) a
    modularity equal to ``networkx.community.modularity``'s on the undirected simple view.
    (Label propagation may leave a community in pieces, so connectivity is not required.)
    Raises AssertionError.
    """
    import networkx as nx

    community = checked_community_names(community, graph.n)
    n = graph.n
    src, dst = graph.edges()
    if modularity is not None:
        g = nx.Graph()
        g.add_nodes_from(range(n))
        g.add_edges_from((x, y) for x, y in zip(src.tolist(), dst.tolist()) if x != y)
        groups = {}
        for v, c in enumerate(community.tolist()):
            groups.setdefault(c, set()).add(v)
        want = nx.community.modularity(g, groups.values()) if g.number_of_edges() else 0.0
        assert np.isclose(modularity, want, atol=1e-9), f"modularity {modularity}, networkx says {want}"
