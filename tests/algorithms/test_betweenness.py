"""Betweenness centrality against networkx.betweenness_centrality (exact, sampled, weighted, directed)."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from graphferry import Graph, load
from graphferry.algorithms.betweenness import betweenness, verify_betweenness

from conftest import DATASETS, ENGINES, need_shared, read_dataset, tiny_budget_options
from edge_lists import edge_lists


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
@given(e=edge_lists(max_n=35, max_m=140, weighted=True), normalized=st.booleans())
def test_exact_matches_networkx(e, normalized):
    n, src, dst, weights, directed = e
    g = Graph.from_edges(src, dst, weights, n=n, directed=directed)
    r = betweenness(g, normalized=normalized, backend="cpu")
    want = nx.betweenness_centrality(nx_graph(*e), normalized=normalized,
                                     weight=None if weights is None else "weight")
    assert np.allclose(r.betweenness, as_array(want, n), rtol=1e-9, atol=1e-12)
    assert r.sources == n


@settings(max_examples=40, deadline=None)
@given(e=edge_lists(max_n=35, max_m=140, weighted=True), data=st.data())
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


def test_negative_weights_are_refused():
    g = Graph.from_edges([0, 1], [1, 2], [1, -1], n=3)
    with pytest.raises(ValueError, match="^betweenness: edge weights must be non-negative numbers$"):
        betweenness(g, backend="cpu")


def all_shortest_paths_betweenness(g: nx.DiGraph, normalized: bool) -> np.ndarray:
    """The definition, by NetworkX's ``all_shortest_paths`` (every shortest simple path, from its
    complete predecessor lists): sum over pairs s != t of the share of s-t shortest paths through v."""
    n = g.number_of_nodes()
    bc = np.zeros(n)
    for s in range(n):
        for t in range(n):
            if s == t or not nx.has_path(g, s, t):
                continue
            paths = list(nx.all_shortest_paths(g, s, t, weight="weight"))
            for path in paths:
                for v in path[1:-1]:
                    bc[v] += 1 / len(paths)
    return bc / ((n - 1) * (n - 2)) if normalized and n > 2 else bc


@st.composite
def zero_weight_dags(draw, max_n=14, max_m=40):
    """(n, src, dst, weights): a directed graph whose zero-weight arcs go up in id (no zero-weight
    cycle), about a third of the weights zero."""
    n = draw(st.integers(2, max_n))
    m = draw(st.integers(1, max_m))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    w = rng.integers(0, 3, m).astype(np.float32)
    w[(w == 0) & (src > dst)] = 1.0
    return n, src, dst, w


@settings(max_examples=40, deadline=None)
@given(case=zero_weight_dags(), normalized=st.booleans())
def test_zero_weights_count_every_shortest_path(case, normalized):
    """Zero-weight arcs tie a vertex with its predecessor's distance: every shortest path still
    counts once (NetworkX's all_shortest_paths as the oracle; its betweenness_centrality visits
    vertices in heap order and may pass a count on before it is complete)."""
    n, src, dst, w = case
    g = Graph.from_edges(src, dst, w, n=n)
    want = all_shortest_paths_betweenness(nx_graph(n, src, dst, w, True), normalized)
    r = betweenness(g, normalized=normalized, backend="cpu")
    assert np.allclose(r.betweenness, want, rtol=1e-9, atol=1e-12)
    verify_betweenness(g, r.betweenness, normalized=normalized)
    if want.max() > 0:
        wrong = r.betweenness.copy()
        wrong[np.argmax(want)] *= 1.5
        with pytest.raises(AssertionError):
            verify_betweenness(g, wrong, normalized=normalized)


def test_zero_weights_where_networkx_misses_a_path():
    """s -> w and s -> v weigh 1, v -> w 0, w -> x 1: two shortest paths reach w and x, one through v.
    NetworkX's betweenness_centrality finalises w before v and gives v nothing."""
    s, w, v, x = 0, 1, 2, 3
    g = Graph.from_edges([s, s, v, w], [w, v, w, x], [1, 1, 0, 1], n=4)
    r = betweenness(g, normalized=False, backend="cpu")
    # v: half of s -> w and half of s -> x; w: all of s -> x and of v -> x
    assert r.betweenness.tolist() == [0.0, 2.0, 1.0, 0.0]
    verify_betweenness(g, r.betweenness, normalized=False)


@pytest.mark.parametrize("directed", [False, True])
def test_a_zero_weight_cycle_is_refused(directed):
    """Shortest walks around a zero-weight cycle are not finite in number; an undirected zero-weight
    edge is such a cycle. Positive weights around it change nothing."""
    src, dst, w = ([0, 1, 2], [1, 2, 0], [0, 0, 0]) if directed else ([0, 1], [1, 2], [0, 1])
    g = Graph.from_edges(src, dst, w, n=3, directed=directed)
    g.original_ids = np.array([10, 11, 12])     # the message names the input's ids
    with pytest.raises(ValueError, match=r"^betweenness: zero-weight edges form a cycle through 1[01] and 1[12] "):
        betweenness(g, backend="cpu")
    betweenness(g, weighted=False, backend="cpu")   # without weights there is no cycle of length 0


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
