"""Betweenness centrality against networkx.betweenness_centrality (exact, sampled, weighted, directed)."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from graphferry import Graph, load
from graphferry.algorithms.betweenness import betweenness, verify_betweenness

from conftest import DATASETS, ENGINES, need_shared, read_dataset, tiny_budget_options


@st.composite
def graphs(draw, max_n=35, max_m=140):
    """(n, src, dst, weights or None, directed), self-loops and repeated edges included."""
    n = draw(st.integers(1, max_n))
    m = draw(st.integers(0, max_m))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    weights = rng.integers(1, 6, m).astype(np.float32) if draw(st.booleans()) else None
    return n, src, dst, weights, draw(st.booleans())


def nx_graph(n, src, dst, weights, directed):
    """The networkx graph of the edge list: repeats collapse to their lightest weight, self-loops dropped."""
    g = nx.DiGraph() if directed else nx.Graph()
    g.add_nodes_from(range(n))
    for k, (a, b) in enumerate(zip(src.tolist(), dst.tolist())):
        if a == b:
            continue
        w = 1.0 if weights is None else float(weights[k])
        if not g.has_edge(a, b) or g[a][b]["weight"] > w:
            g.add_edge(a, b, weight=w)
    return g


def as_array(d: dict, n: int) -> np.ndarray:
    return np.array([d[v] for v in range(n)], dtype=np.float64)


@settings(max_examples=60, deadline=None)
@given(e=graphs(), normalized=st.booleans())
def test_exact_matches_networkx(e, normalized):
    n, src, dst, weights, directed = e
    g = Graph.from_edges(src, dst, weights, n=n, directed=directed)
    r = betweenness(g, normalized=normalized, backend="cpu")
    want = nx.betweenness_centrality(nx_graph(*e), normalized=normalized,
                                     weight=None if weights is None else "weight")
    assert np.allclose(r.betweenness, as_array(want, n), rtol=1e-9, atol=1e-12)
    assert r.sources == n


@settings(max_examples=40, deadline=None)
@given(e=graphs(), data=st.data())
def test_sampled_sources_match_networkx_with_the_same_seed(e, data):
    n, src, dst, weights, directed = e
    k = data.draw(st.integers(1, n))
    seed = data.draw(st.integers(0, 1000))
    normalized = data.draw(st.booleans())
    g = Graph.from_edges(src, dst, weights, n=n, directed=directed)
    r = betweenness(g, k=k, seed=seed, normalized=normalized, backend="cpu")
    want = as_array(nx.betweenness_centrality(nx_graph(*e), k=k, seed=seed, normalized=normalized,
                                              weight=None if weights is None else "weight"), n)
    assert np.allclose(r.betweenness, want, rtol=1e-9, atol=1e-12, equal_nan=True)


def test_unweighted_option_ignores_weights():
    g = Graph.from_edges([0, 0, 2, 1], [1, 2, 3, 3], [1, 5, 1, 1], n=4, directed=False)
    r = betweenness(g, weighted=False, backend="cpu")
    verify_betweenness(g, r.betweenness, weighted=False)
    want = nx.betweenness_centrality(nx.Graph([(0, 1), (0, 2), (2, 3), (1, 3)]))
    assert np.allclose(r.betweenness, as_array(want, 4))


def test_non_positive_weights_are_refused():
    g = Graph.from_edges([0, 1], [1, 2], [1, 0], n=3)
    with pytest.raises(ValueError, match="positive"):
        betweenness(g, backend="cpu")


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("direction", ["push", "pull", "auto"])
@pytest.mark.parametrize("weighted", [False, True])
def test_every_engine_and_direction_with_tiny_budgets(engine, direction, weighted):
    rng = np.random.default_rng(3)
    n, m = 60, 300
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    w = rng.integers(1, 4, m).astype(np.float32) if weighted else None
    g = Graph.from_edges(src, dst, w, n=n, directed=True)
    r = betweenness(g, direction=direction, **tiny_budget_options(engine))
    verify_betweenness(g, r.betweenness)


def test_loaded_graph_runs_twice_the_same():
    rng = np.random.default_rng(4)
    g = Graph.from_edges(rng.integers(0, 50, 200), rng.integers(0, 50, 200), n=50, directed=False)
    with load(g, backend="cpu") as lg:
        a = betweenness(lg).betweenness
        b = betweenness(lg, k=10, seed=1).betweenness
    verify_betweenness(g, a)
    assert np.allclose(b, as_array(nx.betweenness_centrality(nx_graph(50, *g.edges(), None, False), k=10, seed=1), 50))


def test_shared_dataset_sampled():
    path = DATASETS / "karate.el"
    if not path.exists():
        candidates = sorted(DATASETS.glob("*.el")) if DATASETS.exists() else []
        need_shared(path if not candidates else candidates[0], "shared datasets")
        path = min(candidates, key=lambda p: p.stat().st_size)
    n, src, dst, directed = read_dataset(path)
    g = Graph.from_edges(src, dst, n=n, directed=directed)
    k = min(n, 20)
    r = betweenness(g, k=k, seed=7, backend="cpu")
    want = as_array(nx.betweenness_centrality(nx_graph(n, src, dst, None, directed), k=k, seed=7), n)
    assert np.allclose(r.betweenness, want, rtol=1e-9, atol=1e-12)
