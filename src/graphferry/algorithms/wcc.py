"""Weakly connected components: Afforest (neighbour sampling, then skip the largest component).

Sutton, Ben-Nun and Barak, "Optimizing parallel graph connectivity
computation via subgraph sampling" (IPDPS 2018), as GAPBS's ``cc`` runs it.
Every vertex starts as its own tree (``label[v] = v``); ``link(u, v)`` joins
the trees of ``u`` and ``v`` by hooking the higher root under the lower one
with a compare-and-swap, so ``label[v] <= v`` always holds and every root is
the smallest vertex of its tree:

1. **sampling**: every vertex links with its first two out-neighbours (one
   neighbourhood function reads both: GAPBS reads them in two passes, ``r = 0, 1``,
   but both sit in the row's first bytes, and with edges across the bus a
   second pass reads those bytes again), then a vertex pass compresses every
   path to its root;
2. **the largest component**: the most frequent label among 1024 sampled
   vertices (a gather) is, with high probability, the giant component's root ``c``;
3. **finish**: only the vertices whose label is not ``c`` link along all their
   edges (an ``edge_map`` over that frontier, forward and, for a directed graph,
   reversed: an edge from the giant component to another vertex is seen from
   the other end; a directed graph whose transpose is not built yet links every
   vertex along its out-edges instead, one pass over the arcs rather than a sort
   of them to build the transpose), and a last compression writes every vertex's root into the
   result (int64, allocated unfilled: this pass is its first touch) and keeps
   the roots as its output frontier, whose size is the number of components.

An edge is skipped in step 3 only when its tail already sits in ``c``'s tree,
and then its head either does too or links from its own side, so at the end
every edge joins equal labels and each component carries its smallest vertex
id (internal ids). LDBC accepts any labelling that induces the same partition.

Example:
    >>> import numpy as np
    >>> from graphferry import Graph
    >>> from graphferry.algorithms.wcc import wcc, verify_wcc
    >>> g = Graph.from_edges(np.array([1, 3, 4, 6]), np.array([0, 2, 2, 5]), n=7)
    >>> r = wcc(g, backend="cpu")
    >>> r.labels.tolist()
    [0, 0, 2, 2, 2, 5, 5]
    >>> r.components
    3
    >>> verify_wcc(g, r.labels)
"""

from __future__ import annotations

import numpy as np

from ..graph import Graph
from ..runtime import UNSET, VERTEX_IDS, Program, RunOptions
from . import registry
from ._common import Result, runtime_for

SAMPLE_EDGES = 2       # GAPBS's neighbor_rounds: out-edges each vertex links along in the sample
SAMPLE_VERTICES = 1024  # GAPBS's SampleFrequentElement

PROGRAM = Program(
    "wcc_afforest",
    arrays={"label": "vid", "component": "int64"},
    scalars={"sample_edges": "int64"},
    vertex_functions=("compress", "finish"),
    edge_writes=("label",),   # links write labels only; the result is written by `finish`
    neighbor_functions=("sample",),
    neighbor_prefix=SAMPLE_EDGES,  # sample reads a row's first two edges: a device may keep just those
    source=r"""
GF_FN bool cond(const State& S, vid_t d) { return true; }
GF_FN bool update(const State& S, vid_t s, vid_t d, float w) { gf_link(S.label, s, d); return false; }
GF_FN bool update_atomic(const State& S, vid_t s, vid_t d, float w) { gf_link(S.label, s, d); return false; }
// sampling: link u with its first sample_edges out-neighbours (one read of the row's start)
GF_FN bool sample(const State& S, const GfGraph& G, const GfGraph& GT, vid_t u) {
    const int64_t b = G.begin(u), k = G.degree(u) < S.sample_edges ? G.degree(u) : S.sample_edges;
    for (int64_t r = 0; r < k; ++r) gf_link(S.label, u, G.indices[b + r]);
    return false;
}
// path compression: point v at its root (stored only when it moved: a vertex already at its
// root leaves its cache line clean, and most are after the first pass)
GF_FN bool compress(const State& S, vid_t v) {
    const vid_t first = gf_load(&S.label[v]);
    vid_t l = first;
    for (vid_t up = gf_load(&S.label[l]); up != l; up = gf_load(&S.label[l])) l = up;
    if (l != first) S.label[v] = l;
    return false;
}
// the last pass: v's root into the result; true (v stays in the output) when v is a root
GF_FN bool finish(const State& S, vid_t v) {
    vid_t l = gf_load(&S.label[v]);
    for (vid_t up = gf_load(&S.label[l]); up != l; up = gf_load(&S.label[l])) l = up;
    S.component[v] = (int64_t)l;
    return l == v;
}
""",
)


def wcc(graph: Graph, *, options: RunOptions | None = None, **kwargs) -> Result:
    """Component labels (``labels``: the smallest internal vertex id of each component).

    Directed graphs are read as undirected (weak connectivity). ``scalars``
    holds ``components`` (their number) and ``rounds`` (passes over edges: the
    sampling pass and the final one).
    """
    n = graph.n
    with runtime_for(graph, "wcc", options, kwargs) as rt:
        st = rt.start(PROGRAM, arrays={"label": VERTEX_IDS, "component": UNSET})
        rounds = components = 0
        if n:
            st.scalars["sample_edges"] = SAMPLE_EDGES
            st.neighbor_map("sample", in_edges=False)
            st.vertex_map("compress")
            rounds += 1
            rng = np.random.default_rng(0)
            labels = st.gather("label", rng.integers(0, n, SAMPLE_VERTICES))
            values, counts = np.unique(labels, return_counts=True)
            giant = values[np.argmax(counts)]
            # every vertex outside the sampled giant tree links along all its edges
            if graph.directed and not rt.loaded.has_transpose() and rt.direction != "pull":
                # no in-edge CSR yet: building one sorts every arc, more work than linking along
                # every arc once, so every vertex links along its out-edges (push: a pull would
                # read the in-edges) and each edge is seen from its tail
                st.edge_map(rt.all_vertices(), direction="push", output=False)
            else:
                rest = rt.all_vertices() - st.select("label", giant, giant + 1)
                if rest:
                    st.edge_map(rest)
                    if graph.directed:
                        st.edge_map(rest, reverse=True)
            components = len(st.vertex_map("finish"))   # one root per component
            rounds += 1
        labels = st.result("component")
    return Result(graph, {"labels": labels}, rt.record, {"components": components, "rounds": rounds},
                  vertex_ids=registry.get("wcc").vertex_ids)


# ---------------------------------------------------------------- verifier
def union_find_components(n: int, src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """Smallest vertex id of each vertex's weak component, by a serial union-find.

    Iterative (path halving, union by smaller id), independent of the framework.
    """
    parent = list(range(n))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b in zip(np.asarray(src).tolist(), np.asarray(dst).tolist()):
        ra, rb = find(a), find(b)
        if ra != rb:
            if ra < rb:
                parent[rb] = ra
            else:
                parent[ra] = rb
    return np.array([find(v) for v in range(n)], dtype=np.int64)


def _dense_labels(x: np.ndarray) -> np.ndarray:
    """``x`` as non-negative labels below about ``2 len(x)`` (the same classes), to index a table by label."""
    x = np.asarray(x).astype(np.int64, copy=False)
    if len(x) and (int(x.min()) < 0 or int(x.max()) >= 2 * len(x) + 1024):
        return np.unique(x, return_inverse=True)[1].ravel()  # sparse labels: one sort, only then
    return x


def same_partition(a: np.ndarray, b: np.ndarray) -> bool:
    """True when labellings ``a`` and ``b`` induce the same partition (a bijection maps one onto the other).

    Each class of ``a`` must carry one label in ``b`` and each class of ``b`` one in ``a``: two scatters
    and two gathers, O(n). (A sort of the label pairs, ``np.unique(axis=0)``, took about a minute for
    Kronecker 25's 33.5 M vertices.)

    Example:
        >>> same_partition(np.array([0, 0, 5, 5]), np.array([7, 7, 1, 1]))
        True
        >>> same_partition(np.array([0, 0, 5, 5]), np.array([7, 7, 7, 1]))
        False
    """
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        return False
    if len(a) == 0:
        return True
    a, b = _dense_labels(a), _dense_labels(b)
    one_b = np.empty(int(a.max()) + 1, dtype=np.int64)
    one_b[a] = b  # some b of each a-class: every member of the class must carry it
    if not np.array_equal(one_b[a], b):
        return False
    one_a = np.empty(int(b.max()) + 1, dtype=np.int64)
    one_a[b] = a
    return bool(np.array_equal(one_a[b], a))


def verify_wcc(graph: Graph, labels: np.ndarray) -> None:
    """GAPBS-style check without the framework; raises AssertionError on the first violation.

    Every edge joins two vertices of equal label, and the labelling is the
    partition a serial union-find gives (each label the component's smallest id).
    """
    labels = np.asarray(labels)
    assert labels.shape == (graph.n,), "one label per vertex"
    src, dst = graph.edges()
    assert np.all(labels[src] == labels[dst]), "an edge joins two different labels"
    want = union_find_components(graph.n, src, dst)
    assert same_partition(labels, want), "the labels do not induce the union-find partition"
    assert np.array_equal(labels, want), "a label is not the smallest vertex id of its component"
