"""Edge betweenness against networkx.edge_betweenness_centrality (exact, sampled, weighted, directed), every
engine with a tiny budget, the datasets, broken answers."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from graphferry import Graph
from graphferry.algorithms.edge_betweenness import edge_betweenness, verify_edge_betweenness

from conftest import DATASETS, ENGINES, read_dataset, tiny_budget_options
from edge_lists import edge_lists


def networkx_values(n, src, dst, weights, directed, **kwargs) -> dict:
    """NetworkX's edge betweenness of the same graph (repeats at their lightest weight, self-loops dropped),
    keyed (u, v) with u < v when undirected."""
    g = nx.DiGraph() if directed else nx.Graph()
    g.add_nodes_from(range(n))
    for k, (a, b) in enumerate(zip(src.tolist(), dst.tolist())):
        if a == b:
            continue
        w = 1.0 if weights is None else float(weights[k])
        if not g.has_edge(a, b) or g[a][b]["weight"] > w:
            g.add_edge(a, b, weight=w)
    want = nx.edge_betweenness_centrality(g, weight=None if weights is None else "weight", **kwargs)
    return want if directed else {(min(u, v), max(u, v)): x for (u, v), x in want.items()}


def as_dict(r) -> dict:
    e = r.edges
    return dict(zip(zip(e["source"].tolist(), e["target"].tolist()), e["betweenness"].tolist()))


def assert_same(got: dict, want: dict) -> None:
    assert set(got) == set(want)
    assert all(np.isclose(got[e], want[e], rtol=1e-9, atol=1e-12, equal_nan=True) for e in want)


@settings(max_examples=50, deadline=None)
@given(e=edge_lists(max_n=30, max_m=120, weighted=True), normalized=st.booleans())
def test_exact_matches_networkx(e, normalized):
    n, src, dst, weights, directed = e
    r = edge_betweenness(Graph.from_edges(src, dst, weights, n=n, directed=directed), normalized=normalized,
                         backend="cpu")
    assert_same(as_dict(r), networkx_values(*e, normalized=normalized))
    assert r.sources == n


@settings(max_examples=30, deadline=None)
@given(e=edge_lists(max_n=30, max_m=120, weighted=True), data=st.data())
def test_sampled_sources_match_networkx_with_the_same_seed(e, data):
    n, src, dst, weights, directed = e
    k, seed = data.draw(st.integers(1, n)), data.draw(st.integers(0, 1000))
    normalized = data.draw(st.booleans())
    r = edge_betweenness(Graph.from_edges(src, dst, weights, n=n, directed=directed), k=k, seed=seed,
                         normalized=normalized, backend="cpu")
    assert_same(as_dict(r), networkx_values(*e, k=k, seed=seed, normalized=normalized))


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("weighted", [False, True])
def test_every_engine_with_a_tiny_budget(engine, weighted):
    rng = np.random.default_rng(4)
    n, m = 60, 240
    g = Graph.from_edges(rng.integers(0, n, m), rng.integers(0, n, m),
                         rng.integers(1, 4, m).astype(np.float32) if weighted else None, n=n, directed=False)
    r = edge_betweenness(g, k=20 if weighted else None, seed=1, **tiny_budget_options(engine))
    e = r.edges
    verify_edge_betweenness(g, e["source"], e["target"], e["betweenness"], k=20 if weighted else None, seed=1)


@pytest.mark.parametrize("name", ["karate", "les_miserables", "roget"])
def test_datasets(name):
    path = DATASETS / f"{name}.el"
    if not path.exists():
        pytest.skip(f"{path} not found")
    n, src, dst, directed = read_dataset(path)
    g = Graph.from_edges(src, dst, n=n, directed=directed)
    r = edge_betweenness(g, k=min(n, 64), seed=7, backend="cpu")
    e = r.edges
    verify_edge_betweenness(g, e["source"], e["target"], e["betweenness"], k=min(n, 64), seed=7)


def test_table_errors_and_verifier():
    g = Graph.from_edges([0, 1, 2, 0], [1, 2, 3, 2], n=4, directed=False)
    r = edge_betweenness(g, backend="cpu")
    assert list(r.to_table()) == ["source", "target", "betweenness"]
    with pytest.raises(ValueError, match="positive"):
        edge_betweenness(Graph.from_edges([0], [1], [0.0], n=2), backend="cpu")
    with pytest.raises(ValueError, match="k must lie"):
        edge_betweenness(g, k=9, backend="cpu")
    e = r.edges
    wrong = e["betweenness"].copy()
    wrong[0] += 0.01
    with pytest.raises(AssertionError, match="edge"):
        verify_edge_betweenness(g, e["source"], e["target"], wrong)
    with pytest.raises(AssertionError, match="missing or extra"):
        verify_edge_betweenness(g, e["source"][1:], e["target"][1:], e["betweenness"][1:])
