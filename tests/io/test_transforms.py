"""Shared graph transforms against networkx built from the same edge lists."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from graphferry import Graph
from graphferry.transforms import contract, degree_ordered_dag, induced_subgraph, simple_graph, symmetrize


@st.composite
def weighted_edges(draw, max_n=30, max_m=120):
    n = draw(st.integers(1, max_n))
    m = draw(st.integers(0, max_m))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    w = rng.integers(1, 10, m).astype(np.float32)
    return n, src, dst, w, draw(st.booleans())


def _edge_set(g: Graph) -> set:
    s, d = g.edges()
    return set(zip(s.tolist(), d.tolist()))


@settings(max_examples=50, deadline=None)
@given(e=weighted_edges())
def test_simple_and_symmetrized_match_networkx(e):
    n, src, dst, w, directed = e
    g = Graph.from_edges(src, dst, w, n=n, directed=directed)
    ref = nx.Graph()
    ref.add_nodes_from(range(n))
    for a, b, x in zip(src.tolist(), dst.tolist(), w.tolist()):
        if a != b and (not ref.has_edge(a, b) or ref[a][b]["weight"] > x):
            ref.add_edge(a, b, weight=x)
    und = simple_graph(g, undirected=True)
    assert not und.directed
    assert _edge_set(und) == {(a, b) for a, b in ref.to_directed().edges()}
    sym = symmetrize(g)
    s, d = sym.edges()
    assert all(ref[a][b]["weight"] == x for a, b, x in zip(s.tolist(), d.tolist(), sym.weights.tolist()))
    assert sym.m == 2 * ref.number_of_edges()
    assert symmetrize(g) is sym and simple_graph(g, undirected=True) is und  # cached
    if directed:
        dg = simple_graph(g, undirected=False)
        want = {(a, b) for a, b in zip(src.tolist(), dst.tolist()) if a != b}
        assert _edge_set(dg) == want


@settings(max_examples=50, deadline=None)
@given(e=weighted_edges())
def test_simple_weighted_view_keeps_each_arcs_least_weight(e):
    # both directions of the C++ row pass: a directed graph kept directed, and any graph made
    # undirected; rows sorted and distinct, as a CSR's consumers (merges, binary searches) expect
    from graphferry.transforms import simple_weighted_graph

    n, src, dst, w, directed = e
    g = Graph.from_edges(src, dst, w, n=n, directed=directed)
    for undirected in (False, True):
        ref = nx.DiGraph() if directed and not undirected else nx.Graph()
        ref.add_nodes_from(range(n))
        for a, b, x in zip(src.tolist(), dst.tolist(), w.tolist()):
            if a != b and (not ref.has_edge(a, b) or ref[a][b]["weight"] > x):
                ref.add_edge(a, b, weight=x)
        sv = simple_weighted_graph(g, undirected=undirected)
        s, d = sv.edges()
        got = {(a, b): x for a, b, x in zip(s.tolist(), d.tolist(), sv.weights.tolist())}
        want = {(a, b): x["weight"] for a, b, x in (ref.edges(data=True) if ref.is_directed()
                                                    else ref.to_directed().edges(data=True))}
        assert got == want and len(got) == sv.m
        assert all(np.all(np.diff(sv.indices[sv.offsets[u]:sv.offsets[u + 1]]) > 0) for u in range(n))


@settings(max_examples=40, deadline=None)
@given(e=weighted_edges())
def test_degree_ordered_dag_orients_every_edge_once(e):
    n, src, dst, w, directed = e
    g = Graph.from_edges(src, dst, n=n, directed=directed)
    dag, order, degree = degree_ordered_dag(g)
    ref = nx.Graph()
    ref.add_nodes_from(range(n))
    ref.add_edges_from((a, b) for a, b in zip(src.tolist(), dst.tolist()) if a != b)
    assert degree.tolist() == [ref.degree(v) for v in range(n)]
    s, d = dag.edges()
    assert np.all(s < d)
    assert {frozenset((int(order[a]), int(order[b]))) for a, b in zip(s, d)} == \
        {frozenset(x) for x in ref.edges()}


@settings(max_examples=40, deadline=None)
@given(e=weighted_edges(), data=st.data())
def test_induced_subgraph_matches_networkx(e, data):
    n, src, dst, w, directed = e
    g = Graph.from_edges(src, dst, n=n, directed=directed)
    keep = np.array(sorted(data.draw(st.sets(st.integers(0, n - 1)))), dtype=np.int64)
    sub = induced_subgraph(g, keep)
    ref = (nx.MultiDiGraph if directed else nx.MultiGraph)()
    ref.add_nodes_from(range(n))
    ref.add_edges_from(zip(src.tolist(), dst.tolist()))
    want = ref.subgraph(keep.tolist())
    assert sub.n == len(keep)
    s, d = sub.edges()
    got = sorted(zip(keep[s].tolist(), keep[d].tolist()))
    exp = sorted((want.to_directed() if not directed else want).edges())
    assert got == sorted((a, b) for a, b, *_ in exp)


@pytest.mark.parametrize("groups", [3, 5000, 1 << 15])
@pytest.mark.parametrize("weights", ["positive", "negative", "zeros of both signs"])
def test_contract_of_a_large_graph_matches_a_sort(groups, weights):
    """Large groups (deduplicated through a table, in parallel: with 3 groups each holds a third of
    the arcs, more than a thread's share) and small ones (sorted): the quotient and each arc's
    representative (lightest, then first in CSR order) equal a plain lexsort's, ties included;
    with negative weights too, and with least weights 0 and -0, which tie (as < has it)."""
    from graphferry.generators import kronecker_graph

    g = kronecker_graph(15, seed=2, weighted=True)
    w = (g.weights // 8).astype(np.float32)                                           # many equal weights
    if weights == "negative":
        w = w - 16
    elif weights == "zeros of both signs":                       # the least weight of most pairs: 0 or -0
        w = np.maximum(w - 16, 0).astype(np.float32)
        w[(w == 0) & (np.arange(len(w)) % 3 == 1)] = np.float32(-0.0)
    g = Graph(g.offsets, g.indices, w, directed=False)
    labels = np.random.default_rng(0).integers(0, groups, g.n) * 7
    q, groups, rep = contract(g, labels, representatives=True)
    gi = np.searchsorted(groups, labels)
    s, d = g.edges()
    a, b = gi[s], gi[d]
    keep = np.flatnonzero(a != b)
    order = np.lexsort((keep, g.weights[keep], b[keep], a[keep]))
    ka, kb, kpos = a[keep][order], b[keep][order], keep[order]
    first = np.flatnonzero(np.r_[True, (ka[1:] != ka[:-1]) | (kb[1:] != kb[:-1])])
    qs, qd = q.edges()
    assert qs.tolist() == ka[first].tolist() and qd.tolist() == kb[first].tolist()
    assert rep.tolist() == kpos[first].tolist()


@settings(max_examples=40, deadline=None)
@given(e=weighted_edges(), data=st.data())
def test_contract_reading_only_arcs_between_ranges_equals_reading_all(e, data):
    """With ``bounds`` (ranges whose inner arcs join one group: each range's own components, as
    HyPar's parts leave them) the quotient and representatives equal a contraction reading every arc."""
    from scipy.sparse import coo_array
    from scipy.sparse.csgraph import connected_components

    n, src, dst, w, directed = e
    g = symmetrize(Graph.from_edges(src, dst, w, n=n, directed=directed))
    cuts = sorted(data.draw(st.sets(st.integers(1, max(n - 1, 1)), max_size=3)) - {n})
    bounds = np.array([0] + cuts + [n], np.int64)
    s, d = g.edges()
    labels = np.empty(n, np.int64)
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        inner = (s >= lo) & (s < hi) & (d >= lo) & (d < hi)
        k = int(hi - lo)
        _, comp = connected_components(coo_array((np.ones(int(inner.sum())), (s[inner] - lo, d[inner] - lo)),
                                                 shape=(k, k)), directed=False)
        labels[lo:hi] = lo + comp
    q1, g1, r1 = contract(g, labels, representatives=True)
    q2, g2, r2 = contract(g, labels, representatives=True, bounds=bounds)
    assert g1.tolist() == g2.tolist() and r1.tolist() == r2.tolist()
    assert q1.offsets.tolist() == q2.offsets.tolist() and q1.indices.tolist() == q2.indices.tolist()


@settings(max_examples=40, deadline=None)
@given(e=weighted_edges(), data=st.data())
def test_contract_matches_scipy_quotient(e, data):
    n, src, dst, w, directed = e
    g = Graph.from_edges(src, dst, w, n=n, directed=directed)
    labels = np.array(data.draw(st.lists(st.integers(0, 5), min_size=n, max_size=n)), dtype=np.int64)
    if data.draw(st.booleans()):   # each label the smallest vertex of its group (contract's sort-free path)
        first = {}
        for v, x in enumerate(labels.tolist()):
            first.setdefault(x, v)
        labels = np.array([first[x] for x in labels.tolist()], dtype=np.int64)
    q, groups = contract(g, labels)
    assert groups.tolist() == sorted(set(labels.tolist()))
    gi = np.searchsorted(groups, labels)
    s, d = g.edges()
    want = {}
    for x, y, wt in zip(gi[s].tolist(), gi[d].tolist(), g.weights.tolist()):
        if x != y:
            want[(x, y)] = min(wt, want.get((x, y), np.inf))
    qs, qd = q.edges()
    got = {(x, y): wt for x, y, wt in zip(qs.tolist(), qd.tolist(), q.weights.tolist())}
    assert got == want
    assert q.directed == g.directed


@settings(max_examples=40, deadline=None)
@given(e=weighted_edges())
def test_is_simple_agrees_with_networkx_and_a_simple_graph_is_its_own_view(e):
    from graphferry.transforms import is_simple

    n, src, dst, w, directed = e
    g = Graph.from_edges(src, dst, w, n=n, directed=directed)
    G = (nx.DiGraph if directed else nx.Graph)()
    G.add_nodes_from(range(n))
    G.add_edges_from(zip(src.tolist(), dst.tolist()))
    arcs = len(src) if directed else 2 * len(src) - int(np.count_nonzero(src == dst))
    rows_sorted = all(np.all(np.diff(g.neighbors(v)) > 0) for v in range(n))
    want = nx.number_of_selfloops(G) == 0 and g.m == arcs and (
        G.number_of_edges() == len(src)) and rows_sorted         # no repeated edge, no loop, rows in order
    assert is_simple(g, undirected=False) == want
    s = simple_graph(g, undirected=not directed)
    assert is_simple(s, undirected=not directed)                # the view is simple ...
    assert simple_graph(s, undirected=not directed) is s        # ... and its own view
    assert (s is g) == is_simple(g, undirected=not directed)


def test_a_loaded_simple_graph_serves_the_derived_runs_itself():
    import graphferry as gf
    from graphferry.algorithms import betweenness, coloring
    from graphferry.generators import kronecker_graph

    g = kronecker_graph(9, seed=1)                               # the generator's graph is simple
    with gf.load(g, backend="cpu") as lg:
        a = betweenness(lg, k=4, seed=1)
        built = dict(lg.stats)
        b = betweenness(lg, k=4, seed=1)
        coloring(lg)
        assert built["sides_built"] >= 1 and lg.stats["sides_built"] == built["sides_built"]
        assert np.allclose(a.betweenness, b.betweenness)
    assert np.allclose(a.betweenness, betweenness(simple_graph(g, undirected=False), k=4, seed=1,
                                                  backend="cpu").betweenness)


def test_without_a_compiler_the_simple_view_is_built_the_general_way(monkeypatch):
    from graphferry import transforms
    from graphferry.errors import CompilerError
    from graphferry.generators import kronecker_graph

    def no_compiler(*_):
        raise CompilerError("no C++ compiler")

    monkeypatch.setattr(transforms.host_ops, "rows_simple", no_compiler)
    g = kronecker_graph(6, seed=1)                      # simple, but the check cannot run
    assert not transforms.is_simple(g, undirected=True)
    s = simple_graph(g, undirected=True)
    assert s is not g and np.array_equal(s.offsets, g.offsets) and np.array_equal(s.indices, g.indices)


@given(e=weighted_edges())
def test_the_array_library_dag_build_equals_the_host_passes(e):
    # the build a GPU runs (Backend.degree_ordered_dag, here on numpy) against the C++ passes
    from graphferry.backends.base import Backend
    from graphferry import host_ops
    from graphferry.backends.cpu.backend import CpuBackend

    n, src, dst, _, _ = e
    g = simple_graph(Graph.from_edges(src, dst, n=n, directed=False), undirected=True)
    want = host_ops.degree_ordered_dag(g.offsets, g.indices, simple=True)[:3]
    got = Backend.degree_ordered_dag(CpuBackend(), g.offsets, g.indices)
    assert [a.tolist() for a in got] == [a.tolist() for a in want]
    assert got[1].dtype == g.indices.dtype
    assert [a.tolist() for a in CpuBackend().degree_ordered_dag(g.offsets, g.indices)] == [a.tolist() for a in want]
