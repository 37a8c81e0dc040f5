"""Betweenness centrality (Brandes), exact or from sampled sources, unweighted or weighted.

Brandes, "A faster algorithm for betweenness centrality" (J. Math. Sociol.
2001). For every source ``s`` two sweeps over the shortest-path DAG:

Unweighted searches run ``BATCH`` (32) sources at a time: every per-source
quantity is a vector property (one row of 32 per vertex, Lux's layout) and one
``edge_map`` advances all 32 searches by a level, so the per-map cost is paid
once per 32 sources.

* **forward**: ``sigma[v]``, the number of shortest ``s``-``v`` paths:
  ``sigma[v] = sum over predecessors u of sigma[u]`` (Brandes' Theorem 3).
  Unweighted: one BFS level per ``edge_map`` (a vertex is claimed by a
  compare-and-swap on its level; every edge from the level below into it adds
  its tail's ``sigma``). Weighted: distances first (frontier Bellman-Ford with
  atomic minima), then one ``edge_map`` per distinct distance, in increasing
  order, along the tight edges ``dist[u] + w(u, v) == dist[v]``.
* **backward**: the dependency ``delta[v] = sum over successors w of
  sigma[v] / sigma[w] * (1 + delta[w])`` (Brandes' Theorem 6), one
  ``edge_map`` over the reversed graph per level (or distance) from the
  deepest up; then ``bc[v] += delta[v]`` for every ``v != s``.

The graph is read as its simple view (self-loops dropped; repeated arcs kept
once, with the least weight), which is what a NetworkX ``Graph``/``DiGraph``
holds. Weights must be non-negative. A zero weight puts a vertex at its
predecessor's distance, where Brandes' order by distance cannot tell which comes
first: each distance's vertices are then ordered by the longest chain of tight
zero-weight arcs that leads to them within it (path counts flow down that order,
dependencies back up), so every shortest *path* counts once. Zero-weight arcs
that form a cycle (an undirected zero-weight edge is one: ``u - v - u``) are
refused: the shortest walks through it are not finite in number, and
NetworkX's answer there depends on the order it visits vertices in (as it does
wherever a zero-weight arc leads to a vertex it finalised first: there its
counts and dependencies miss paths, so the tests compare with every shortest
path NetworkX's ``all_shortest_paths`` lists).

Scaling follows ``networkx.betweenness_centrality`` (networkx 3.6,
``endpoints=False``): with ``normalized=True`` each value is divided by the
number of ordered pairs it could lie between, ``(n - 1)(n - 2)``
(``K (n - 2)`` for ``k = K`` sampled sources, and ``(K - 1)(n - 2)`` for a
sampled source itself); with ``normalized=False`` an undirected graph's sums
are halved (each unordered pair was counted from both ends) and sampled sums
are scaled by ``(n - 1) / K``. Sampling takes
``random.Random(seed).sample(range(n), k)``, NetworkX's own draw for a graph
whose nodes are ``0..n-1`` in order, so the same seed samples the same sources.

Example:
    >>> import numpy as np
    >>> from graphferry import Graph
    >>> from graphferry.algorithms.betweenness import betweenness, verify_betweenness
    >>> g = Graph.from_edges([0, 1, 2], [1, 2, 3], n=4, directed=False)   # a path 0-1-2-3
    >>> r = betweenness(g, backend="cpu")
    >>> r.betweenness.round(4).tolist()
    [0.0, 0.6667, 0.6667, 0.0]
    >>> betweenness(g, normalized=False, backend="cpu").betweenness.tolist()
    [0.0, 2.0, 2.0, 0.0]
    >>> verify_betweenness(g, r.betweenness)
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from ..graph import Graph
from ..runtime import Program, RunOptions
from ..transforms import on_handle, simple_graph, simple_weighted_graph
from . import registry
from ._common import Result, runtime_for

# phases of one program (scalar ``phase``): which rule the edge functions apply
BFS, RELAX, COUNT, DEPEND = 0, 1, 2, 3

#: unweighted sources searched together: one edge_map advances this many BFS levels at once
#: (at most 64: a vertex's searches at the current level are one 64-bit mask)
BATCH = 32
#: bytes of vertex state a batch may take (levels, distances, path counts, dependencies: 32 bytes per entry)
BATCH_STATE_BYTES = 512 << 20

PROGRAM = Program(
    "betweenness",
    arrays={"level": "int64", "dist": "float64", "sigma": "float64", "delta": "float64", "bc": "float64",
            "at_round": "uint64"},
    scalars={"phase": "int64", "round": "int64", "weighted": "int64", "width": "int64", "source": "int64"},
    vertex_functions=("reset", "accumulate", "mark_round"),
    uses_weights=True,
    source=r"""
// Every per-search array holds W = S.width searches per vertex, row v at v * W (Lux's
// array-of-structs layout): one map advances W sources' searches together.
#define BC(a, v, b) (S.a[(int64_t)(v) * S.width + (b)])

// Is u -> v an edge of search b's shortest-path DAG? (levels when unweighted, distances otherwise)
GF_FN bool bc_tight(const State& S, vid_t u, vid_t v, float w, int64_t b) {
    return S.weighted ? BC(dist, u, b) + (double)w == BC(dist, v, b) : BC(level, u, b) + 1 == BC(level, v, b);
}
GF_FN bool cond(const State& S, vid_t d) { return true; }
// Unweighted maps visit only the searches in which s sits at this round's level: bit b of
// at_round[s] (set by mark_round over the frontier), so an edge costs one load when none does.
GF_FN int bc_lowest_bit(uint64_t m) {
#if defined(GF_CUDA)
    return __ffsll((long long)m) - 1;
#else
    return __builtin_ctzll(m);
#endif
}
GF_FN uint64_t bc_searches(const State& S, vid_t s) {
    return S.weighted ? 1ull : S.at_round[s];
}
GF_FN bool mark_round(const State& S, vid_t v) {
    uint64_t m = 0;
    for (int64_t b = 0; b < S.width; ++b)
        if (BC(level, v, b) == S.round) m |= 1ull << b;
    S.at_round[v] = m;
    return false;
}
// push: many sources reach d at once
GF_FN bool update_atomic(const State& S, vid_t s, vid_t d, float w) {
    bool any = false;
    for (uint64_t m = bc_searches(S, s); m; m &= m - 1) {
        const int64_t b = bc_lowest_bit(m);
        if (S.phase == 0) {              // BFS level round+1 with path counts
            int64_t* l = &BC(level, d, b);
            if (gf_load(l) < 0 && gf_cas(l, (int64_t)-1, (int64_t)(S.round + 1))) any = true;
            if (gf_load(l) == S.round + 1) gf_atomic_add(&BC(sigma, d, b), BC(sigma, s, b));
        } else if (S.phase == 1) {       // distances
            if (gf_atomic_min(&BC(dist, d, b), BC(dist, s, b) + (double)w)) any = true;
        } else if (S.phase == 2) {       // path counts along tight edges, by increasing distance
            if (bc_tight(S, s, d, w, b)) gf_atomic_add(&BC(sigma, d, b), BC(sigma, s, b));
        } else {                         // reversed graph: s is the head of d -> s (Brandes' Theorem 6)
            if (bc_tight(S, d, s, w, b))
                gf_atomic_add(&BC(delta, d, b), BC(sigma, d, b) / BC(sigma, s, b) * (1.0 + BC(delta, s, b)));
        }
    }
    return any;
}
// pull: one thread owns d
GF_FN bool update(const State& S, vid_t s, vid_t d, float w) {
    bool any = false;
    for (uint64_t m = bc_searches(S, s); m; m &= m - 1) {
        const int64_t b = bc_lowest_bit(m);
        if (S.phase == 0) {
            if (BC(level, d, b) < 0) { BC(level, d, b) = S.round + 1; any = true; }
            if (BC(level, d, b) == S.round + 1) BC(sigma, d, b) += BC(sigma, s, b);
        } else if (S.phase == 1) {
            const double nd = BC(dist, s, b) + (double)w;
            if (nd < BC(dist, d, b)) { BC(dist, d, b) = nd; any = true; }
        } else if (S.phase == 2) {
            if (bc_tight(S, s, d, w, b)) BC(sigma, d, b) += BC(sigma, s, b);
        } else if (bc_tight(S, d, s, w, b)) {
            BC(delta, d, b) += BC(sigma, d, b) / BC(sigma, s, b) * (1.0 + BC(delta, s, b));
        }
    }
    return any;
}
GF_FN bool reset(const State& S, vid_t v) {
    for (int64_t b = 0; b < S.width; ++b) {
        BC(level, v, b) = -1; BC(dist, v, b) = GF_INF_D; BC(sigma, v, b) = 0.0; BC(delta, v, b) = 0.0;
    }
    return false;
}
// bc[v] += delta of every search but the one v is the source of (unweighted: its level is 0;
// weighted, one search: the source scalar, as zero weights put other vertices at distance 0)
GF_FN bool accumulate(const State& S, vid_t v) {
    double sum = 0.0;
    for (int64_t b = 0; b < S.width; ++b)
        if (S.weighted ? (int64_t)v != S.source : BC(level, v, b) != 0) sum += BC(delta, v, b);
    S.bc[v] += sum;
    return false;
}
""",
)


def sample_sources(n: int, k: int | None, seed: Any = None) -> np.ndarray | None:
    """The sources NetworkX samples for ``k`` (None: every vertex, as NetworkX does for ``k == n``).

    ``seed`` is an int, None, or a ``random.Random`` (what NetworkX passes on).
    """
    if k is None or k == n:
        return None
    if not 1 <= k <= n:
        raise ValueError(f"k must lie in 1..{n} (the number of sampled sources), got {k}")
    rng = seed if isinstance(seed, random.Random) else random.Random(seed)
    return np.array(rng.sample(range(n), k), dtype=np.int64)


def rescale(raw: np.ndarray, *, directed: bool, normalized: bool, sources: np.ndarray | None) -> np.ndarray:
    """NetworkX 3.6's ``_rescale`` with ``endpoints=False`` (see the module docstring)."""
    n = len(raw)
    big_n = n - 1                      # pairs (s, t) with v != t: N = n - 1
    if big_n < 2:
        return raw.copy()
    k = None if sources is None else len(sources)
    if k is None:
        # normalized: 1 / (N (N - 1)); otherwise halve undirected sums
        scale = 1 / (big_n * (big_n - 1)) if normalized else (1.0 if directed else 0.5)
        return raw * scale
    correction = 1 if directed else 2
    if normalized:
        scale_source = 1 / ((k - 1) * (big_n - 1)) if k > 1 else np.nan
        scale_other = 1 / (k * (big_n - 1))
    else:
        scale_source = big_n / ((k - 1) * correction) if k > 1 else np.nan
        scale_other = big_n / (k * correction)
    scale = np.full(n, scale_other)
    scale[sources] = scale_source
    return raw * scale


def betweenness(graph: Graph, k: int | None = None, normalized: bool = True, weighted: bool = True,
                seed: Any = None, *, options: RunOptions | None = None, **kwargs) -> Result:
    """Betweenness of every vertex (values ``betweenness``, float64), NetworkX's scaling.

    ``k``: number of sampled sources (None: all, exact); ``seed``: the sample's
    seed (see :func:`sample_sources`). ``weighted``: use the graph's weights
    (when it has them) as path lengths. Scalars: ``sources`` (how many were run).
    """
    registry.get("betweenness").check_values(seed=seed)
    use_weights = bool(weighted and graph.weighted)
    if use_weights and graph.m and not float(np.min(graph.weights)) >= 0:
        raise ValueError("betweenness: edge weights must be non-negative numbers")
    simple = simple_weighted_graph(graph, undirected=False) if use_weights else simple_graph(graph, undirected=False)
    zero_arcs = _zero_weight_arcs(graph, simple) if use_weights else None
    n = graph.n
    sources = sample_sources(n, k, seed)
    order = np.arange(n, dtype=np.int64) if sources is None else sources
    width = 1 if use_weights else max(1, min(BATCH, len(order), BATCH_STATE_BYTES // max(32 * n, 1)))
    shape = (n, width)
    with runtime_for(on_handle(graph, simple), "betweenness", options, kwargs) as rt:
        st = rt.start(PROGRAM, arrays={"level": np.full(shape, -1, np.int64), "dist": np.zeros(shape),
                                       "sigma": np.zeros(shape), "delta": np.zeros(shape), "bc": 0,
                                       "at_round": 0},
                      scalars={"weighted": int(use_weights), "width": width})
        for lo in range(0, len(order), width):
            batch = order[lo:lo + width]
            if use_weights:
                _weighted_source(rt, st, int(batch[0]), zero_arcs)
            else:
                _unweighted_batch(rt, st, batch)
        raw = st.host("bc").astype(np.float64)
    values = rescale(raw, directed=graph.directed, normalized=normalized, sources=sources)
    ran = n if sources is None else len(sources)
    return Result(graph, {"betweenness": values}, rt.record, {"sources": ran})


def _unweighted_batch(rt, st, batch: np.ndarray) -> None:
    """Add the dependencies on up to ``width`` sources to ``bc``: their BFS searches advance together,
    one level per map forward (path counts), then one level per map backward (dependencies)."""
    st.vertex_map("reset")
    cols = np.arange(len(batch))
    st.assign_entries("level", batch, cols, 0)
    st.assign_entries("sigma", batch, cols, 1.0)
    st.scalars["phase"] = BFS
    levels = [rt.frontier(batch)]                # vertices at each level of some search
    while True:
        st.scalars["round"] = len(levels) - 1
        st.vertex_map("mark_round", levels[-1])
        nxt = st.edge_map(levels[-1])
        if not nxt:
            break
        levels.append(nxt)
    st.scalars["phase"] = DEPEND
    for depth in range(len(levels) - 1, 0, -1):   # deepest first; the sources' level feeds nothing
        st.scalars["round"] = depth
        st.vertex_map("mark_round", levels[depth])
        st.edge_map(levels[depth], reverse=True)
    st.vertex_map("accumulate")


def _zero_weight_arcs(graph: Graph, simple: Graph) -> tuple[np.ndarray, np.ndarray] | None:
    """The simple view's zero-weight arcs ``(tails, heads)``, None when there are none;
    ValueError naming two vertices of a cycle they form (where path counts are not finite)."""
    zero = simple.weights == 0
    if not zero.any():
        return None
    from scipy.sparse import csr_array
    from scipy.sparse.csgraph import connected_components

    src, dst = simple.edges()
    tails, heads = src[zero], dst[zero]
    _, part = connected_components(csr_array((np.ones(len(tails)), (tails, heads)), shape=(simple.n, simple.n)),
                                   directed=True, connection="strong")
    cyclic = np.flatnonzero(part[tails] == part[heads])
    if len(cyclic):
        u, v = graph.to_original_ids(np.array([tails[cyclic[0]], heads[cyclic[0]]])).tolist()
        raise ValueError(f"betweenness: zero-weight edges form a cycle through {u} and {v} (an undirected "
                         "zero-weight edge is one), so the shortest paths through it are not finite in number")
    return tails, heads


def _zero_weight_order(rt, st, zero_arcs: tuple[np.ndarray, np.ndarray]) -> list:
    """The reached vertices in Brandes' order when zero weights tie distances: by distance, then
    by the longest chain of tight zero-weight arcs reaching them at that distance, one frontier
    per (distance, chain) step. Every tight arc leads to a later step, so path counts are
    complete before a step passes them on (and dependencies, walking back, likewise)."""
    dist = st.host("dist")[:, 0]
    tails, heads = zero_arcs
    tight = np.isfinite(dist[tails]) & (dist[tails] == dist[heads])
    tails, heads = tails[tight], heads[tight]
    chain = np.zeros(len(dist), np.int64)
    for _ in range(len(tails) + 1):     # the zero-weight arcs are acyclic: at most that many passes
        longer = chain.copy()
        np.maximum.at(longer, heads, chain[tails] + 1)
        if np.array_equal(longer, chain):
            break
        chain = longer
    reached = np.flatnonzero(np.isfinite(dist))
    reached = reached[np.lexsort((reached, chain[reached], dist[reached]))]
    d, c = dist[reached], chain[reached]
    cuts = np.flatnonzero((d[1:] != d[:-1]) | (c[1:] != c[:-1])) + 1
    return [rt.frontier(ids) for ids in np.split(reached, cuts)]


def _weighted_source(rt, st, s: int, zero_arcs: tuple[np.ndarray, np.ndarray] | None = None) -> None:
    """Add the dependencies on source ``s`` to ``bc`` (width 1): distances, then path counts and
    dependencies one distinct distance at a time (with zero weights, one step of
    :func:`_zero_weight_order` at a time)."""
    st.vertex_map("reset")
    st.scalars["source"] = s
    st.assign_entries("sigma", [s], [0], 1.0)
    st.assign_entries("dist", [s], [0], 0.0)
    st.scalars["phase"] = RELAX
    f = rt.frontier([s])
    while f:
        f = st.edge_map(f)
    # by distance, where the state lives; zero weights: on the host, by distance and zero-weight chain
    groups = st.groups("dist", column=0) if zero_arcs is None else _zero_weight_order(rt, st, zero_arcs)
    st.scalars["phase"] = COUNT
    for group in groups[:-1]:          # the farthest group has no tight successors to count
        st.edge_map(group)
    st.scalars["phase"] = DEPEND
    for group in reversed(groups[1:]):  # farthest first; the source's own group feeds nothing
        st.edge_map(group, reverse=True)
    st.vertex_map("accumulate")


# ---------------------------------------------------------------- verifier
def networkx_reference(graph: Graph, weighted: bool):
    """``graph``'s simple graph as a NetworkX graph for the verifiers (vertex and edge betweenness):
    ``(ref, simple, use_weights)``, weights kept when ``weighted`` and the graph has them."""
    import networkx as nx

    use_weights = bool(weighted and graph.weighted)
    simple = simple_weighted_graph(graph, undirected=False) if use_weights else simple_graph(graph, undirected=False)
    ref = nx.DiGraph() if graph.directed else nx.Graph()
    ref.add_nodes_from(range(graph.n))
    src, dst = simple.edges()
    if use_weights:
        ref.add_weighted_edges_from(zip(src.tolist(), dst.tolist(), simple.weights.astype(float).tolist()))
    else:
        ref.add_edges_from(zip(src.tolist(), dst.tolist()))
    return ref, simple, use_weights


def verify_betweenness(graph: Graph, values: np.ndarray, *, k: int | None = None, seed: Any = None,
                       normalized: bool = True, weighted: bool = True,
                       rtol: float = 1e-9, atol: float = 1e-12) -> None:
    """Betweenness by NetworkX (not the framework) on the same simple graph, with the same
    ``k`` sampled sources and ``seed``; raises AssertionError.

    For test-sized graphs (NetworkX's Brandes in Python).
    """
    import networkx as nx

    ref, simple, use_weights = networkx_reference(graph, weighted)
    if use_weights and np.any(simple.weights == 0):
        want = _zero_weight_reference(ref, graph, k=k, seed=seed, normalized=normalized)
    else:
        want = nx.betweenness_centrality(ref, k=k, seed=seed, normalized=normalized,
                                         weight="weight" if use_weights else None)
        want = np.array([want[v] for v in range(graph.n)])
    values = np.asarray(values, dtype=np.float64)
    assert values.shape == want.shape, "one value per vertex"
    bad = np.flatnonzero(~np.isclose(values, want, rtol=rtol, atol=atol, equal_nan=True))
    assert len(bad) == 0, f"vertex {bad[0]}: betweenness {values[bad[0]]}, expected {want[bad[0]]}"


def _zero_weight_reference(ref, graph: Graph, *, k, seed, normalized: bool) -> np.ndarray:
    """Brandes over NetworkX's shortest-path predecessors, in a topological order of them.

    ``networkx.betweenness_centrality`` visits vertices in its heap's order, so with zero
    weights it may pass a path count on before the count is complete (see the module
    docstring); ``dijkstra_predecessor_and_distance`` lists every tight in-arc of each
    vertex, and ``topological_sort`` of those arcs is an order in which counts and
    dependencies are complete. Scaled as NetworkX scales (:func:`rescale`).
    """
    import networkx as nx

    sources = sample_sources(graph.n, k, seed)
    raw = np.zeros(graph.n)
    for s in (range(graph.n) if sources is None else sources.tolist()):
        pred, _ = nx.dijkstra_predecessor_and_distance(ref, s, weight="weight")
        dag = nx.DiGraph()
        dag.add_nodes_from(pred)
        dag.add_edges_from((p, v) for v, ps in pred.items() for p in ps)
        order = list(nx.topological_sort(dag))
        sigma = dict.fromkeys(order, 0.0)
        sigma[s] = 1.0
        for v in order:
            for w in dag.successors(v):
                sigma[w] += sigma[v]
        delta = dict.fromkeys(order, 0.0)
        for w in reversed(order):
            for v in pred[w]:
                delta[v] += sigma[v] / sigma[w] * (1.0 + delta[w])
            if w != s:
                raw[w] += delta[w]
    return rescale(raw, directed=graph.directed, normalized=normalized, sources=sources)
