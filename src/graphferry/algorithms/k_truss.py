"""The k-truss: the largest subgraph in which every edge lies in at least ``k - 2`` triangles.

Cohen, "Trusses: cohesive subgraphs for social network analysis" (2008): the
k-truss of an undirected graph is its largest subgraph whose every edge
``{u, v}`` has support ``|N(u) & N(v)| >= k - 2`` within the subgraph (the
triangles through the edge), without the vertices left with no edge; it is
unique, so any order of removing edges below the bound reaches it.

Method: support counting by triangles, in synchronous rounds as
``networkx.k_truss`` runs them. Each arc of the sorted simple view carries
an ``alive`` flag (a per-arc array laid out as a vector property: ``ceil(m / n)``
entries a vertex, indexed by arc position). A round is two neighbourhood
functions: ``mark_drops``, where vertex ``u`` counts, for each live edge
``{u, v}`` with ``u < v``, the live common neighbours by a merge of the two
sorted rows (dead arcs skipped; on the GPU the same merge), and marks the edge
when they are fewer than ``k - 2``; then ``apply_drops``, where ``u`` clears its
marked arcs and their mirrors ``v -> u`` (each arc written by one vertex: no
atomics). Rounds end when one marks nothing. An edge's support changes only when
an edge at one of its ends went, so a round counts again only the edges with an
end that lost an edge in the round before (a flag per vertex): the rounds that
peel a few edges at a time cost little more than a pass over the vertices.

The graph is read as its undirected simple view (directions ignored,
self-loops dropped, repeated edges once). ``k <= 2`` keeps every edge (every
vertex with one).

Example:
    >>> import numpy as np
    >>> from graphferry import Graph
    >>> from graphferry.algorithms.k_truss import k_truss, verify_k_truss
    >>> # a 4-clique 0-3 with a triangle 3-4-5 and a pendant edge 5-6
    >>> src = [0, 0, 0, 1, 1, 2, 3, 3, 4, 5]
    >>> dst = [1, 2, 3, 2, 3, 3, 4, 5, 5, 6]
    >>> g = Graph.from_edges(src, dst, n=7, directed=False)
    >>> r = k_truss(g, k=4, backend="cpu")
    >>> list(zip(r.edges["source"].tolist(), r.edges["target"].tolist()))
    [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]
    >>> k_truss(g, k=3, backend="cpu").num_edges, r.rounds
    (9, 1)
    >>> verify_k_truss(g, 4, r.edges["source"], r.edges["target"])
"""

from __future__ import annotations

import numpy as np

from .. import host_ops
from ..errors import CompilerError
from ..graph import Graph
from ..runtime import Program, RunOptions
from ..transforms import cached, on_handle, simple_graph
from ._common import EdgeResult, runtime_for

PROGRAM = Program(
    "k_truss",
    arrays={"alive": "int8", "drop": "int8", "mirror": "int64", "dirty": "int8", "touched": "int8"},
    scalars={"need": "int64"},
    vertex_functions=("advance",),
    neighbor_functions=("mark_drops", "apply_drops"),
    neighbor_reads="neighbors",   # an edge's support merges its two ends' rows
    source=r"""
// u marks each live edge {u, v}, u < v, with fewer than k - 2 live common neighbours. An edge's
// support changes only when an edge at u or at v went: edges whose ends both kept theirs in the
// last round (dirty clear) keep their support and are not counted again.
GF_FN bool mark_drops(const State& S, const GfGraph& G, const GfGraph& GT, vid_t u) {
    bool any = false;
    const bool u_dirty = S.dirty[u] != 0;
    const eid_t ub = G.begin(u), ue = G.end(u);
    for (eid_t e = ub; e < ue; ++e) {
        const vid_t v = G.indices[e];
        if (v <= u || !S.alive[e] || (!u_dirty && !S.dirty[v])) continue;
        int64_t support = 0;
        eid_t i = ub, j = G.begin(v);
        const eid_t je = G.end(v);
        while (i < ue && j < je && support < S.need) {
            const vid_t x = G.indices[i], y = G.indices[j];
            if (x < y) { ++i; }
            else if (y < x) { ++j; }
            else {
                if (S.alive[i] && S.alive[j]) ++support;
                ++i; ++j;
            }
        }
        if (support < S.need) { S.drop[e] = 1; any = true; }
    }
    return any;
}
// u removes its marked edges: its own arc and the mirror arc v -> u (each written by u alone),
// and flags both ends for the next round (every writer stores the same 1)
GF_FN bool apply_drops(const State& S, const GfGraph& G, const GfGraph& GT, vid_t u) {
    for (eid_t e = G.begin(u), ee = G.end(u); e < ee; ++e) {
        if (!S.drop[e]) continue;
        S.drop[e] = 0;
        S.alive[e] = 0;
        S.alive[S.mirror[e]] = 0;
        S.touched[u] = 1;
        S.touched[G.indices[e]] = 1;
    }
    return false;
}
// the next round counts again only the edges at vertices that lost one
GF_FN bool advance(const State& S, vid_t v) { S.dirty[v] = S.touched[v]; S.touched[v] = 0; return false; }
""",
)


def _mirrors(simple: Graph, src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """The position of each arc's mirror: arc (u, v)'s is (v, u)'s, in a symmetric CSR with sorted rows.

    One binary search per arc within row v, in parallel (host library): 2x faster than numpy's one sort
    of the arcs by (head, tail) on 2 cores, and it scales with them (the sort does not). Without a
    C++ compiler, that sort: the order sorting the arcs by (head, tail) lists, at position i, the
    mirror of arc i.
    """
    try:
        return host_ops.find_arcs(simple.offsets, simple.indices, dst, src)
    except CompilerError:
        by_head = np.argsort(dst.astype(np.int64) * simple.n + src)
        mirror = np.empty(simple.m, np.int64)
        mirror[by_head] = np.arange(simple.m)
        return mirror


def k_truss(graph: Graph, k: int = 3, *, options: RunOptions | None = None, **kwargs) -> EdgeResult:
    """The k-truss's edges (edge columns ``source``, ``target``, each edge once with ``source < target``).

    Scalars: ``num_edges``, ``num_vertices`` (those with an edge in the truss)
    and ``rounds`` (rounds that removed edges).
    """
    if int(k) != k:
        raise ValueError(f"k_truss: argument 'k' must be an integer, got {k!r}")
    simple = simple_graph(graph, undirected=True)
    n, m = graph.n, simple.m
    rounds = 0
    per_vertex = max(1, -(-m // n)) if n else 1

    def laid_out(values: np.ndarray) -> np.ndarray:
        out = np.zeros(n * per_vertex, dtype=values.dtype)
        out[:m] = values
        return out.reshape(n, per_vertex)

    def mirrors() -> np.ndarray:
        src, dst = simple.edges()
        return laid_out(_mirrors(simple, src, dst))

    with runtime_for(on_handle(graph, simple), "k_truss", options, kwargs) as rt:
        alive = np.ones(m, np.int8)
        if m and k > 2:
            # the graph's, not the call's: kept on the simple view for the next call on it
            mirror = cached(simple, ("arc_mirrors", per_vertex), mirrors)
            st = rt.start(PROGRAM, arrays={"alive": laid_out(alive), "drop": np.zeros((n, per_vertex), np.int8),
                                           "mirror": mirror, "dirty": 1, "touched": 0},
                          scalars={"need": int(k) - 2})
            while st.neighbor_map("mark_drops", in_edges=False):
                rounds += 1
                st.neighbor_map("apply_drops", in_edges=False)
                st.vertex_map("advance")
            alive = st.host("alive").reshape(-1)[:m]
    # the live arcs' ends, found from their positions (no pass writing every arc's tail)
    arcs = np.flatnonzero(alive)
    tails = np.searchsorted(np.asarray(simple.offsets), arcs, side="right") - 1
    heads = np.asarray(simple.indices)[arcs]
    keep = tails < heads
    u, v = tails[keep].astype(np.int64), heads[keep].astype(np.int64)
    vertices = int(np.count_nonzero(np.bincount(np.concatenate([u, v]), minlength=n))) if len(u) else 0
    return EdgeResult(graph, {}, rt.record, {"num_edges": len(u), "num_vertices": vertices, "rounds": rounds},
                      edges={"source": u, "target": v})


# ---------------------------------------------------------------- verifier
def verify_k_truss(graph: Graph, k: int, sources: np.ndarray, targets: np.ndarray) -> None:
    """Raise AssertionError unless the edges are exactly NetworkX's ``k_truss`` (not the framework) of the
    undirected simple view. For test-sized graphs."""
    import networkx as nx

    simple = simple_graph(graph, undirected=True)
    ref = nx.Graph()
    ref.add_nodes_from(range(graph.n))
    src, dst = simple.edges()
    ref.add_edges_from(zip(src.tolist(), dst.tolist()))
    want = {(min(a, b), max(a, b)) for a, b in nx.k_truss(ref, k).edges()}
    got = set(zip(np.asarray(sources).tolist(), np.asarray(targets).tolist()))
    assert len(got) == len(np.asarray(sources)), "an edge is listed twice"
    assert got == want, (f"{len(got - want)} edges not in the {k}-truss, {len(want - got)} of it missing "
                         f"(e.g. {sorted(got ^ want)[:3]})")
