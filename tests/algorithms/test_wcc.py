"""WCC: every engine and direction gives scipy's weak components on graphs split into many partitions."""

import numpy as np
import pytest
import scipy.sparse.csgraph as csgraph
from hypothesis import given, settings, strategies as st

from graphferry import Graph
from graphferry.algorithms.wcc import same_partition, union_find_components, verify_wcc, wcc

from conftest import ENGINES, small_budget_options, tiny_budget_options
from shapes import shaped_graphs


@st.composite
def graphs(draw, max_n=120, max_m=400):
    n = draw(st.integers(1, max_n))
    m = draw(st.integers(0, max_m))
    seed = draw(st.integers(0, 2**32 - 1))
    directed = draw(st.booleans())
    rng = np.random.default_rng(seed)
    g = Graph.from_edges(rng.integers(0, n, m), rng.integers(0, n, m), n=n, directed=directed)
    if draw(st.booleans()):
        g.transpose()   # built beforehand: a directed graph's last pass reads the in-edges (else out-edges only)
    return g


def scipy_labels(g: Graph) -> np.ndarray:
    _, lab = csgraph.connected_components(g.to_scipy(), directed=True, connection="weak")
    return lab


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("direction", ["auto", "push", "pull"])
@settings(max_examples=12, deadline=None)
@given(g=graphs())
def test_wcc_matches_scipy(engine, direction, g):
    r = wcc(g, direction=direction, **tiny_budget_options(engine))
    assert same_partition(r.labels, scipy_labels(g))
    verify_wcc(g, r.labels)
    assert r.components == len(np.unique(scipy_labels(g)))


def test_long_paths_in_both_directions_span_partitions():
    # a path whose edges alternate direction: only the undirected view connects it
    n = 300
    a = np.arange(n - 1)
    src = np.where(a % 2 == 0, a, a + 1)
    dst = np.where(a % 2 == 0, a + 1, a)
    perm = np.random.default_rng(1).permutation(n)  # scatter the path over the partitions
    g = Graph.from_edges(perm[src], perm[dst], n=n + 5)
    g.transpose()   # the in-edges at hand: the last pass skips the giant tree
    for engine in ENGINES:
        r = wcc(g, **tiny_budget_options(engine))
        verify_wcc(g, r.labels)
        assert r.components == 6
        assert r.rounds < 20  # sampling + one final pass: far fewer rounds than the path's length
        # sampling (two out-edges per vertex) links the whole path here; only the five
        # isolated vertices are left outside the giant tree for the final edge_map
        assert [s.active_vertices for s in r.record.edge_steps][:1] == [5]
        # both sampled edges come from one pass over the rows (one read of each row's start)
        assert sum(s.op == "neighbor_map" for s in r.record.steps) == 1


def test_directed_graph_without_its_transpose_links_every_out_edge_and_builds_none():
    # the path of alternating arcs again: without a transpose, the last pass pushes every
    # vertex's out-edges (each arc seen from its tail) instead of sorting the arcs to build one
    n = 300
    a = np.arange(n - 1)
    src = np.where(a % 2 == 0, a, a + 1)
    dst = np.where(a % 2 == 0, a + 1, a)
    perm = np.random.default_rng(1).permutation(n)
    for engine in ENGINES:
        g = Graph.from_edges(perm[src], perm[dst], n=n + 5)
        r = wcc(g, **tiny_budget_options(engine))
        verify_wcc(g, r.labels)
        assert r.components == 6
        assert [(s.direction, s.active_vertices) for s in r.record.edge_steps] == [("push", n + 5)]
        assert g._transpose is None
        # forced pull reads the in-edges: the giant tree is skipped as before
        r = wcc(g, direction="pull", **tiny_budget_options(engine))
        verify_wcc(g, r.labels)
        assert [s.active_vertices for s in r.record.edge_steps][:1] == [5]


def test_empty_and_edgeless():
    assert wcc(Graph.from_edges([], [], n=0), backend="cpu").labels.tolist() == []
    assert wcc(Graph.from_edges([], [], n=4), backend="cpu").labels.tolist() == [0, 1, 2, 3]


def test_reverse_edge_map_reads_in_edges_on_every_engine():
    # 0 -> 1 only: the forward map reaches 1 from 0; the reverse map reaches 0 from 1
    g = Graph.from_edges(np.array([0]), np.array([1]), n=2)
    g.transpose()   # at hand: the last pass maps forward and reversed
    r = wcc(g, direction="push", backend="cpu")
    assert r.labels.tolist() == [0, 0]
    g2 = Graph.from_edges(np.array([1]), np.array([0]), n=2)
    g2.transpose()
    for direction in ("push", "pull"):
        assert wcc(g2, direction=direction, backend="cpu").labels.tolist() == [0, 0]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(-3, 40), st.integers(-(1 << 40), 1 << 40)), max_size=40))
def test_same_partition_is_the_classes_as_sets(pairs):
    """Against the definition: the same set of classes (each a set of positions), whatever the labels
    (negative, sparse, dense)."""
    a = np.array([x for x, _ in pairs], dtype=np.int64)
    b = np.array([y for _, y in pairs], dtype=np.int64)

    def classes(labels):
        out = {}
        for i, x in enumerate(labels.tolist()):
            out.setdefault(x, set()).add(i)
        return {frozenset(c) for c in out.values()}

    assert same_partition(a, b) == (classes(a) == classes(b))
    assert same_partition(a, a.max(initial=0) - a)  # relabelled: the same classes


def test_union_find_and_partition_helpers():
    assert union_find_components(5, np.array([4, 1]), np.array([1, 3])).tolist() == [0, 1, 2, 1, 1]
    assert same_partition(np.array([7, 7, 3]), np.array([0, 0, 1]))
    assert not same_partition(np.array([7, 7, 3]), np.array([0, 1, 1]))
    assert not same_partition(np.array([7, 7, 7]), np.array([0, 0, 1]))
    with pytest.raises(AssertionError):
        verify_wcc(Graph.from_edges(np.array([0]), np.array([1]), n=3), np.array([0, 1, 2]))


def test_edges_beyond_the_samples_into_the_giant_component_are_linked():
    # a directed cycle 0..99 (the giant tree after sampling); 5 -> 6, 7, 200 and 50 -> 51, 52, 201:
    # the third out-edges are not sampled, and 200, 201 have no out-edges, so only the
    # reverse edge_map from 200 and 201 joins them (Afforest's final phase on a directed graph)
    n = 205
    src = list(range(100)) + [5, 5, 50, 50]
    dst = [(v + 1) % 100 for v in range(100)] + [7, 200, 52, 201]
    for transposed in (True, False):   # reverse map from 200 and 201; or every out-edge pushed
        g = Graph.from_edges(np.array(src), np.array(dst), n=n)
        if transposed:
            g.transpose()
        for engine in ENGINES:
            r = wcc(g, **tiny_budget_options(engine))
            verify_wcc(g, r.labels)
            assert r.labels[200] == r.labels[201] == 0 and r.components == 1 + (n - 102)


@settings(max_examples=10, deadline=None)
@given(case=shaped_graphs(), engine=st.sampled_from(ENGINES), direction=st.sampled_from(["auto", "push", "pull"]))
def test_wcc_on_long_deep_hub_and_large_graphs(case, engine, direction):
    _, g = case
    r = wcc(g, direction=direction, **small_budget_options(engine))
    assert same_partition(r.labels, scipy_labels(g))
    verify_wcc(g, r.labels)
