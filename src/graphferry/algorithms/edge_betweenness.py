"""Edge betweenness centrality (Brandes with edge accumulation), exact or from sampled sources.

Brandes, "On variants of shortest-path betweenness centrality and their
generic computation" (Social Networks 2008), section 3.1: an edge's
betweenness is the share of shortest paths through it, accumulated in
Brandes' backward sweep, where every edge ``v -> w`` of source ``s``'s
shortest-path DAG carries

    c_s(v, w) = sigma_s(v) / sigma_s(w) * (1 + delta_s(w)),   delta_s(v) = sum over w of c_s(v, w)

The forward sweep is :mod:`.betweenness`'s, the same program and phases
(``BATCH`` unweighted searches advanced together, one BFS level per edge map;
weighted: frontier Bellman-Ford, then path counts one distinct distance at a
time). The backward sweep is a neighbourhood function, one pass over the
vertices per level (or distance), deepest first: a vertex at that level walks
its own out-row, so it knows each arc's position and adds ``c`` into the arc's
entry of a per-arc array (laid out as a vector property, ``ceil(m / n)`` entries
a vertex, indexed by arc position) and into its own ``delta``, with no atomics.

The graph is read as its simple view (self-loops dropped, repeated arcs once,
with the least weight), as a NetworkX ``Graph``/``DiGraph`` holds it; weights
must be positive. An undirected edge's value is the sum over its two arcs.
Scaling follows ``networkx.edge_betweenness_centrality`` (NetworkX 3.6's
``_rescale`` with endpoints): ``normalized=True`` divides by ``K (n - 1)``
(``K`` = ``n``, or the ``k`` sampled sources); ``normalized=False`` multiplies
by ``n / K``, halved on an undirected graph. Sources are sampled as
:func:`.betweenness.sample_sources` samples them (NetworkX's draw).

Example:
    >>> import numpy as np
    >>> from graphferry import Graph
    >>> from graphferry.algorithms.edge_betweenness import edge_betweenness, verify_edge_betweenness
    >>> g = Graph.from_edges([0, 1, 2], [1, 2, 3], n=4, directed=False)   # a path 0-1-2-3
    >>> r = edge_betweenness(g, normalized=False, backend="cpu")
    >>> r.edges["source"].tolist(), r.edges["target"].tolist(), r.edges["betweenness"].tolist()
    ([0, 1, 2], [1, 2, 3], [3.0, 4.0, 3.0])
    >>> verify_edge_betweenness(g, r.edges["source"], r.edges["target"], r.edges["betweenness"], normalized=False)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..graph import Graph
from ..runtime import Program, RunOptions
from ..transforms import on_handle, simple_graph, simple_weighted_graph
from .betweenness import BATCH, BATCH_STATE_BYTES, BFS, COUNT, RELAX, networkx_reference, sample_sources
from .betweenness import PROGRAM as VERTEX_PROGRAM
from . import registry
from ._common import EdgeResult, runtime_for

PROGRAM = Program(
    "edge_betweenness",
    arrays={**VERTEX_PROGRAM.arrays, "edge_bc": "float64"},
    scalars={**VERTEX_PROGRAM.scalars, "at": "float64"},
    vertex_functions=VERTEX_PROGRAM.vertex_functions,
    neighbor_functions=("edge_depend",),
    # each call reads its own row only, but writes the arcs' entries by their position in the whole
    # graph's CSR: a device copy of a partition's rows would give other positions
    neighbor_reads="rows",
    uses_weights=True,
    source=VERTEX_PROGRAM.source + r"""
// Brandes' backward sweep with edge accumulation, for the vertices at this round's level (at
// distance S.at when weighted) of each search: v walks its out-row; every tight arc v -> w gives
// c = sigma[v] / sigma[w] * (1 + delta[w]) to the arc and to delta[v] (w, deeper, is done)
GF_FN bool edge_depend(const State& S, const GfGraph& G, const GfGraph& GT, vid_t v) {
    for (int64_t b = 0; b < S.width; ++b) {
        if (S.weighted ? BC(dist, v, b) != S.at : BC(level, v, b) != S.round) continue;
        const double sv = BC(sigma, v, b);
        double dv = 0.0;
        for (eid_t j = G.begin(v), je = G.end(v); j < je; ++j) {
            const vid_t w = G.indices[j];
            const float wt = G.weights ? G.weights[j] : 1.0f;
            if (!bc_tight(S, v, w, wt, b)) continue;
            const double c = sv / BC(sigma, w, b) * (1.0 + BC(delta, w, b));
            dv += c;
            S.edge_bc[j] += c;
        }
        BC(delta, v, b) += dv;
    }
    return false;
}
""",
)


def edge_rescale(values: np.ndarray, n: int, *, directed: bool, normalized: bool, k: int | None) -> np.ndarray:
    """NetworkX 3.6's ``_rescale`` with ``endpoints=True`` (edge betweenness)."""
    if n < 2:
        return values
    sources = n if k is None else k
    if normalized:
        return values / (sources * (n - 1))
    return values * (n / (sources * (1 if directed else 2)))


def edge_betweenness(graph: Graph, k: int | None = None, normalized: bool = True, weighted: bool = True,
                     seed: Any = None, *, options: RunOptions | None = None, **kwargs) -> EdgeResult:
    """Betweenness of every edge of the simple view (edge columns ``source``, ``target``,
    ``betweenness``; an undirected edge once, ``source < target``), NetworkX's scaling.

    ``k``: number of sampled sources (None: all, exact); ``seed``: the sample's
    seed. ``weighted``: the graph's weights (when it has them) as path lengths.
    Scalars: ``sources`` (how many were run).
    """
    registry.get("edge_betweenness").check_values(seed=seed)
    use_weights = bool(weighted and graph.weighted)
    if use_weights and graph.m and not float(np.min(graph.weights)) > 0:
        raise ValueError("edge_betweenness: edge weights must be positive")
    simple = simple_weighted_graph(graph, undirected=False) if use_weights else simple_graph(graph, undirected=False)
    n, m = graph.n, simple.m
    sources = sample_sources(n, k, seed)
    order = np.arange(n, dtype=np.int64) if sources is None else sources
    width = 1 if use_weights else max(1, min(BATCH, len(order), BATCH_STATE_BYTES // max(32 * n, 1)))
    shape = (n, width)
    per_vertex = max(1, -(-m // max(n, 1)))   # arc entries a vertex holds: n * per_vertex >= m
    with runtime_for(on_handle(graph, simple), "edge_betweenness", options, kwargs) as rt:
        arcs = np.zeros(m)
        if n and m:
            st = rt.start(PROGRAM, arrays={"level": np.full(shape, -1, np.int64), "dist": np.zeros(shape),
                                           "sigma": np.zeros(shape), "delta": np.zeros(shape), "bc": 0,
                                           "at_round": 0, "edge_bc": np.zeros((n, per_vertex))},
                          scalars={"weighted": int(use_weights), "width": width, "at": 0.0})
            for lo in range(0, len(order), width):
                batch = order[lo:lo + width]
                if use_weights:
                    _weighted_source(rt, st, int(batch[0]))
                else:
                    _unweighted_batch(rt, st, batch)
            arcs = st.host("edge_bc").reshape(-1)[:m].copy()
    src, dst = simple.edges()
    if not graph.directed:   # an edge {u, v}: the sum over its two arcs, listed once (u < v)
        keys = src.astype(np.int64) * n + dst
        mirror = np.searchsorted(keys, dst.astype(np.int64) * n + src)
        arcs = arcs + arcs[mirror]
        once = src < dst
        src, dst, arcs = src[once], dst[once], arcs[once]
    values = edge_rescale(arcs, n, directed=graph.directed, normalized=normalized,
                          k=None if sources is None else len(sources))
    ran = n if sources is None else len(sources)
    return EdgeResult(graph, {}, rt.record, {"sources": ran},
                      edges={"source": src.astype(np.int64), "target": dst.astype(np.int64), "betweenness": values})


def _unweighted_batch(rt, st, batch: np.ndarray) -> None:
    """Path counts of up to ``width`` BFS searches, one level per map; then the arcs' shares, deepest level first."""
    st.vertex_map("reset")
    cols = np.arange(len(batch))
    st.assign_entries("level", batch, cols, 0)
    st.assign_entries("sigma", batch, cols, 1.0)
    st.scalars["phase"] = BFS
    levels = [rt.frontier(batch)]
    while True:
        st.scalars["round"] = len(levels) - 1
        st.vertex_map("mark_round", levels[-1])
        nxt = st.edge_map(levels[-1])
        if not nxt:
            break
        levels.append(nxt)
    for depth in range(len(levels) - 2, -1, -1):   # the deepest level has no arcs onwards
        st.scalars["round"] = depth
        st.neighbor_map("edge_depend", in_edges=False)


def _weighted_source(rt, st, s: int) -> None:
    """Distances and path counts from ``s`` (width 1); then the arcs' shares, farthest distance first."""
    st.vertex_map("reset")
    st.assign_entries("sigma", [s], [0], 1.0)
    st.assign_entries("dist", [s], [0], 0.0)
    st.scalars["phase"] = RELAX
    f = rt.frontier([s])
    while f:
        f = st.edge_map(f)
    groups = st.groups("dist", column=0)
    st.scalars["phase"] = COUNT
    for group in groups[:-1]:
        st.edge_map(group)
    for group in reversed(groups[:-1]):     # the farthest group has no tight arcs onwards
        st.scalars["at"] = float(np.asarray(st.gather("dist", group.host_ids()[:1])).ravel()[0])
        st.neighbor_map("edge_depend", in_edges=False)


# ---------------------------------------------------------------- verifier
def verify_edge_betweenness(graph: Graph, sources: np.ndarray, targets: np.ndarray, values: np.ndarray, *,
                            k: int | None = None, seed: Any = None, normalized: bool = True, weighted: bool = True,
                            rtol: float = 1e-9, atol: float = 1e-12) -> None:
    """Edge betweenness by NetworkX (not the framework) on the same simple graph, with the same ``k``
    sampled sources and ``seed``; raises AssertionError. For test-sized graphs."""
    import networkx as nx

    ref, _, use_weights = networkx_reference(graph, weighted)
    want = nx.edge_betweenness_centrality(ref, k=k, seed=seed, normalized=normalized,
                                          weight="weight" if use_weights else None)
    if not graph.directed:
        want = {(min(u, v), max(u, v)): x for (u, v), x in want.items()}
    got = {(u, v): x for u, v, x in zip(np.asarray(sources).tolist(), np.asarray(targets).tolist(),
                                        np.asarray(values, dtype=np.float64).tolist())}
    assert set(got) == set(want), f"{len(set(got) ^ set(want))} edges missing or extra"
    for e, x in want.items():
        assert np.isclose(got[e], x, rtol=rtol, atol=atol, equal_nan=True), f"edge {e}: betweenness {got[e]}, expected {x}"
