"""The k-truss against networkx.k_truss: hypothesis graphs, every engine with a tiny budget, the datasets,
broken answers."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from graphferry import Graph
from graphferry.algorithms.k_truss import k_truss, verify_k_truss

from conftest import DATASETS, ENGINES, read_dataset, tiny_budget_options
from edge_lists import edge_lists


def networkx_truss(n, src, dst, k) -> set:
    g = nx.Graph()                       # directions ignored, repeats once, self-loops dropped
    g.add_nodes_from(range(n))
    g.add_edges_from((a, b) for a, b in zip(src.tolist(), dst.tolist()) if a != b)
    return {(min(a, b), max(a, b)) for a, b in nx.k_truss(g, k).edges()}


@settings(max_examples=80, deadline=None)
@given(e=edge_lists(max_n=30, max_m=200), k=st.integers(1, 7))
def test_matches_networkx(e, k):
    n, src, dst, directed = e
    r = k_truss(Graph.from_edges(src, dst, n=n, directed=directed), k=k, backend="cpu")
    got = set(zip(r.edges["source"].tolist(), r.edges["target"].tolist()))
    want = networkx_truss(n, src, dst, k)
    assert got == want and r.num_edges == len(want)
    assert r.num_vertices == len({v for edge in want for v in edge})


@pytest.mark.parametrize("engine", ENGINES)
def test_every_engine_with_a_tiny_budget(engine):
    rng = np.random.default_rng(8)
    n = 80
    g = Graph.from_edges(rng.integers(0, n, 700), rng.integers(0, n, 700), n=n, directed=False)
    for k in (3, 4, 5):
        r = k_truss(g, k=k, **tiny_budget_options(engine))
        verify_k_truss(g, k, r.edges["source"], r.edges["target"])


@pytest.mark.parametrize("name", ["karate", "les_miserables", "roget", "minnesota_road", "metis_4elt"])
def test_datasets(name):
    path = DATASETS / f"{name}.el"
    if not path.exists():
        pytest.skip(f"{path} not found")
    n, src, dst, directed = read_dataset(path)
    g = Graph.from_edges(src, dst, n=n, directed=directed)
    for k in (3, 4):
        r = k_truss(g, k=k, backend="cpu")
        assert set(zip(r.edges["source"].tolist(), r.edges["target"].tolist())) == networkx_truss(n, src, dst, k)


def test_errors_and_verifier():
    g = Graph.from_edges([0, 0, 1, 2], [1, 2, 2, 3], n=4, directed=False)
    r = k_truss(g, k=3, backend="cpu")
    assert list(r.to_table()) == ["source", "target"]
    assert r.num_edges == 3 and r.num_vertices == 3
    with pytest.raises(ValueError, match="'k'"):
        k_truss(g, k=2.5, backend="cpu")
    verify_k_truss(g, 3, r.edges["source"], r.edges["target"])
    with pytest.raises(AssertionError, match="truss"):
        verify_k_truss(g, 3, np.append(r.edges["source"], 2), np.append(r.edges["target"], 3))
    with pytest.raises(AssertionError, match="missing"):
        verify_k_truss(g, 3, r.edges["source"][1:], r.edges["target"][1:])


@settings(max_examples=15, deadline=None)
@given(edges=edge_lists(max_n=25, max_m=80))
def test_arc_mirrors_by_search_and_by_sort_agree(edges):
    from graphferry import host_ops
    from graphferry.algorithms.k_truss import _mirrors
    from graphferry.errors import CompilerError
    from graphferry.transforms import simple_graph

    n, src, dst, directed = edges
    simple = simple_graph(Graph.from_edges(src, dst, n=n, directed=directed), undirected=True)
    a, b = simple.edges()
    searched = _mirrors(simple, a, b)

    def no_compiler(*_):
        raise CompilerError("no compiler")

    real = host_ops.find_arcs
    host_ops.find_arcs = no_compiler
    try:
        sorted_ = _mirrors(simple, a, b)
    finally:
        host_ops.find_arcs = real
    assert searched.tolist() == sorted_.tolist()
    assert np.array_equal(a[searched], b) and np.array_equal(b[searched], a)   # each arc's mirror is its reverse
