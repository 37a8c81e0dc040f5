"""Jaccard coefficients against networkx.jaccard_coefficient: given pairs, the default pairs, every engine,
the datasets, broken answers, argument errors."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from graphferry import Graph
from graphferry.algorithms.jaccard import jaccard_coefficient, verify_jaccard

from conftest import DATASETS, ENGINES, read_dataset, tiny_budget_options
from edge_lists import edge_lists


def networkx_graph(n, src, dst) -> nx.Graph:
    g = nx.Graph()                 # directions ignored, repeats once, self-loops kept
    g.add_nodes_from(range(n))
    g.add_edges_from(zip(src.tolist(), dst.tolist()))
    return g


@settings(max_examples=80, deadline=None)
@given(e=edge_lists(max_n=30, max_m=120), data=st.data())
def test_given_pairs_match_networkx(e, data):
    n, src, dst, directed = e
    k = data.draw(st.integers(0, 60))
    rng = np.random.default_rng(data.draw(st.integers(0, 1000)))
    a, b = rng.integers(0, n, k), rng.integers(0, n, k)      # any pairs: u == v and repeats included
    r = jaccard_coefficient(Graph.from_edges(src, dst, n=n, directed=directed), pairs=(a, b), backend="cpu")
    want = [p for _, _, p in nx.jaccard_coefficient(networkx_graph(n, src, dst), list(zip(a.tolist(), b.tolist())))]
    assert r.edges["source"].tolist() == a.tolist() and r.edges["target"].tolist() == b.tolist()
    assert np.allclose(r.edges["coefficient"], np.array(want, dtype=np.float64), rtol=1e-12, atol=0)


@settings(max_examples=60, deadline=None)
@given(e=edge_lists(max_n=30, max_m=120))
def test_default_pairs_are_the_non_zero_non_edges(e):
    n, src, dst, directed = e
    r = jaccard_coefficient(Graph.from_edges(src, dst, n=n, directed=directed), backend="cpu")
    want = {(min(u, v), max(u, v)): p for u, v, p in nx.jaccard_coefficient(networkx_graph(n, src, dst)) if p > 0}
    got = dict(zip(zip(r.edges["source"].tolist(), r.edges["target"].tolist()), r.edges["coefficient"].tolist()))
    assert set(got) == set(want)
    assert all(abs(got[k] - want[k]) < 1e-12 for k in want)
    assert all(u < v for u, v in got)


@pytest.mark.parametrize("engine", ENGINES)
def test_every_engine_with_a_tiny_budget(engine):
    rng = np.random.default_rng(2)
    n = 100
    g = Graph.from_edges(rng.integers(0, n, 500), rng.integers(0, n, 500), n=n, directed=False)
    r = jaccard_coefficient(g, **tiny_budget_options(engine))
    verify_jaccard(g, r.edges["source"], r.edges["target"], r.edges["coefficient"], all_pairs=True)
    a, b = rng.integers(0, n, 700), rng.integers(0, n, 700)   # more pairs than vertices: several slots each
    r = jaccard_coefficient(g, pairs=(a, b), **tiny_budget_options(engine))
    verify_jaccard(g, a, b, r.edges["coefficient"])


@pytest.mark.parametrize("name", ["karate", "les_miserables", "roget", "minnesota_road"])
def test_datasets(name):
    path = DATASETS / f"{name}.el"
    if not path.exists():
        pytest.skip(f"{path} not found")
    n, src, dst, directed = read_dataset(path)
    g = Graph.from_edges(src, dst, n=n, directed=directed)
    r = jaccard_coefficient(g, backend="cpu")
    verify_jaccard(g, r.edges["source"], r.edges["target"], r.edges["coefficient"], all_pairs=name != "minnesota_road")
    # a hub against leaves: the binary-search path (one row 8x shorter than the other)
    hub = int(np.argmax(g.out_degree + g.in_degree))
    others = np.arange(n)
    r = jaccard_coefficient(g, pairs=(np.full(n, hub), others), backend="cpu")
    verify_jaccard(g, np.full(n, hub), others, r.edges["coefficient"])


def test_table_errors_and_verifier():
    g = Graph.from_edges([0, 0, 1, 2], [1, 2, 3, 3], n=5, directed=False)
    table = jaccard_coefficient(g, pairs=([0, 4], [3, 4]), backend="cpu").to_table()
    assert list(table) == ["source", "target", "coefficient"]
    assert table["coefficient"].tolist() == [1.0, 0.0]       # an isolated vertex with itself: 0
    with pytest.raises(ValueError, match="'pairs'"):
        jaccard_coefficient(g, pairs=([0], [5]), backend="cpu")
    with pytest.raises(ValueError, match="'pairs'"):
        jaccard_coefficient(g, pairs=([0, 1], [2]), backend="cpu")
    r = jaccard_coefficient(g, backend="cpu")
    coefficient = r.edges["coefficient"].copy()
    coefficient[0] = 0.5
    with pytest.raises(AssertionError, match="coefficient"):
        verify_jaccard(g, r.edges["source"], r.edges["target"], coefficient)
    with pytest.raises(AssertionError, match="missing or extra"):
        verify_jaccard(g, r.edges["source"][:1], r.edges["target"][:1], r.edges["coefficient"][:1], all_pairs=True)
