"""Eigenvector, Katz and HITS centralities against NetworkX (and numpy's SVD for HITS): hypothesis graphs,
every engine with a tiny budget, the datasets, broken answers, argument errors."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from hypothesis import assume, given, settings, strategies as st

from graphferry import Graph
from graphferry.algorithms.eigenvector import eigenvector_centrality, verify_eigenvector_centrality
from graphferry.algorithms.hits import hits, verify_hits
from graphferry.algorithms.katz import katz_centrality, verify_katz_centrality

from conftest import DATASETS, ENGINES, read_dataset, tiny_budget_options

DATASET_NAMES = ["karate", "les_miserables", "roget", "minnesota_road", "metis_4elt"]


@st.composite
def nx_graphs(draw, max_n=30, max_m=120):
    """A NetworkX Graph or DiGraph (self-loops allowed), with integer weights or none."""
    n = draw(st.integers(1, max_n))
    m = draw(st.integers(0, max_m))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    g = nx.DiGraph() if draw(st.booleans()) else nx.Graph()
    g.add_nodes_from(range(n))
    weighted = draw(st.booleans())
    for a, b in zip(rng.integers(0, n, m).tolist(), rng.integers(0, n, m).tolist()):
        g.add_edge(a, b, **({"weight": int(rng.integers(1, 6))} if weighted else {}))
    return g


def as_graph(g: nx.Graph) -> Graph:
    """The same graph in graphferry (an undirected edge stored both ways, a self-loop once)."""
    edges = list(g.edges(data="weight"))
    src = np.array([e[0] for e in edges], dtype=np.int64)
    dst = np.array([e[1] for e in edges], dtype=np.int64)
    weights = None
    if edges and edges[0][2] is not None:
        weights = np.array([e[2] for e in edges], dtype=np.float32)
    return Graph.from_edges(src, dst, weights, n=len(g), directed=g.is_directed())


def as_array(d: dict, n: int) -> np.ndarray:
    return np.array([d[v] for v in range(n)], dtype=np.float64)


def weight_of(g: nx.Graph):
    return "weight" if any("weight" in d for _, _, d in g.edges(data=True)) else None


def dataset_graph(name: str) -> Graph:
    path = DATASETS / f"{name}.el"
    if not path.exists():
        pytest.skip(f"{path} not found")
    n, src, dst, directed = read_dataset(path)
    return Graph.from_edges(src, dst, n=n, directed=directed)


def random_graph(directed: bool, seed: int = 11) -> Graph:
    rng = np.random.default_rng(seed)
    n = 100
    return Graph.from_edges(rng.integers(0, n, 600), rng.integers(0, n, 600),
                            rng.integers(1, 5, 600).astype(np.float32), n=n, directed=directed)


# ------------------------------------------------------------------ eigenvector
@settings(max_examples=40, deadline=None)
@given(g=nx_graphs(), direction=st.sampled_from(["auto", "push", "pull"]))
def test_eigenvector_matches_networkx(g, direction):
    weight = weight_of(g)
    r = eigenvector_centrality(as_graph(g), weighted=weight is not None, backend="cpu", direction=direction)
    try:
        want = nx.eigenvector_centrality(g, weight=weight)
    except nx.PowerIterationFailedConvergence:
        assert not r.converged
        return
    assert r.converged
    assert np.allclose(r.centrality, as_array(want, len(g)), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("directed", [False, True])
def test_eigenvector_every_engine(engine, directed):
    g = random_graph(directed)
    for direction in ("push", "pull"):
        r = eigenvector_centrality(g, max_iterations=500, direction=direction, **tiny_budget_options(engine))
        verify_eigenvector_centrality(g, r.centrality, max_iterations=500)


@pytest.mark.parametrize("name", DATASET_NAMES)
def test_eigenvector_datasets(name):
    g = dataset_graph(name)
    r = eigenvector_centrality(g, max_iterations=1000, backend="cpu")
    verify_eigenvector_centrality(g, r.centrality, max_iterations=1000)
    if name in ("karate", "les_miserables"):   # NetworkX's own answer too (it converges on these)
        G = nx.DiGraph() if g.directed else nx.Graph()
        G.add_nodes_from(range(g.n))
        G.add_edges_from(zip(*(a.tolist() for a in g.edges())))
        assert np.allclose(r.centrality, as_array(nx.eigenvector_centrality(G, max_iter=1000), g.n), atol=1e-12)


def test_eigenvector_nstart_and_errors():
    g = Graph.from_edges([0, 1, 2], [1, 2, 0], n=3, directed=False)
    r = eigenvector_centrality(g, nstart=np.array([1.0, 2.0, 3.0]), backend="cpu")
    want = nx.eigenvector_centrality(nx.cycle_graph(3), nstart={0: 1.0, 1: 2.0, 2: 3.0})
    assert np.allclose(r.centrality, as_array(want, 3))
    with pytest.raises(ValueError, match="nstart"):
        eigenvector_centrality(g, nstart=np.zeros(3), backend="cpu")
    with pytest.raises(ValueError, match="'tol'"):
        eigenvector_centrality(g, tol=-1, backend="cpu")
    with pytest.raises(ValueError, match="'max_iterations'"):
        eigenvector_centrality(g, max_iterations=-1, backend="cpu")
    assert not eigenvector_centrality(random_graph(True), max_iterations=2, backend="cpu").converged


def test_eigenvector_verifier_rejects_a_wrong_answer():
    g = random_graph(False)
    values = eigenvector_centrality(g, backend="cpu").centrality.copy()
    verify_eigenvector_centrality(g, values)
    values[3] *= 1.001
    with pytest.raises(AssertionError, match="centrality"):
        verify_eigenvector_centrality(g, values)


# ------------------------------------------------------------------ katz
@settings(max_examples=40, deadline=None)
@given(g=nx_graphs(), alpha=st.sampled_from([0.01, 0.05, 0.1]), normalized=st.booleans(),
       beta=st.sampled_from([1.0, 0.5, "per-vertex"]), direction=st.sampled_from(["auto", "push", "pull"]))
def test_katz_matches_networkx(g, alpha, normalized, beta, direction):
    weight = weight_of(g)
    n = len(g)
    betas = np.arange(1, n + 1, dtype=np.float64) / n if beta == "per-vertex" else None
    r = katz_centrality(as_graph(g), alpha=alpha, beta=1.0 if betas is not None else beta, betas=betas,
                        normalized=normalized, weighted=weight is not None, backend="cpu", direction=direction)
    nx_beta = dict(enumerate(betas.tolist())) if betas is not None else beta
    try:
        want = nx.katz_centrality(g, alpha=alpha, beta=nx_beta, normalized=normalized, weight=weight)
    except nx.PowerIterationFailedConvergence:
        assert not r.converged
        return
    assert r.converged
    assert np.allclose(r.centrality, as_array(want, n), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("directed", [False, True])
def test_katz_every_engine(engine, directed):
    g = random_graph(directed)
    for direction in ("push", "pull"):
        r = katz_centrality(g, alpha=0.02, direction=direction, **tiny_budget_options(engine))
        assert r.converged
        verify_katz_centrality(g, r.centrality, alpha=0.02)


@pytest.mark.parametrize("name", DATASET_NAMES)
def test_katz_datasets(name):
    g = dataset_graph(name)
    alpha = 0.9 / float(np.max(g.out_degree))       # below 1 / lambda_max (lambda_max <= max degree)
    r = katz_centrality(g, alpha=alpha, backend="cpu")
    assert r.converged
    verify_katz_centrality(g, r.centrality, alpha=alpha)


def test_katz_nstart_divergence_and_errors():
    g = Graph.from_edges([0, 1, 2], [1, 2, 0], n=3, directed=False)
    r = katz_centrality(g, alpha=0.1, nstart=np.array([1.0, 0.0, 2.0]), backend="cpu")
    want = nx.katz_centrality(nx.cycle_graph(3), alpha=0.1, nstart={0: 1.0, 1: 0.0, 2: 2.0})
    assert np.allclose(r.centrality, as_array(want, 3))
    assert not katz_centrality(g, alpha=1.0, max_iterations=50, backend="cpu").converged   # alpha > 1 / 2
    with pytest.raises(ValueError, match="'beta'"):
        katz_centrality(g, betas=np.ones(2), backend="cpu")
    with pytest.raises(ValueError, match="'alpha'"):
        katz_centrality(g, alpha=float("nan"), backend="cpu")


def test_katz_verifier_rejects_a_wrong_answer():
    g = random_graph(True)
    values = katz_centrality(g, alpha=0.02, backend="cpu").centrality.copy()
    verify_katz_centrality(g, values, alpha=0.02)
    with pytest.raises(AssertionError, match="centrality"):
        verify_katz_centrality(g, values, alpha=0.03)


# ------------------------------------------------------------------ hits
def leading_gap(g: nx.Graph) -> float:
    a = nx.to_numpy_array(g, nodelist=range(len(g)), weight=weight_of(g) or "weight")
    s = np.linalg.svd(a, compute_uv=False)
    return 0.0 if s[0] == 0 else 1.0 - (s[1] / s[0] if len(s) > 1 else 0.0)


@settings(max_examples=40, deadline=None)
@given(g=nx_graphs(), normalized=st.booleans(), direction=st.sampled_from(["auto", "push", "pull"]))
def test_hits_matches_networkx(g, normalized, direction):
    # NetworkX's SVD answer is defined (up to sign) where the leading singular value is simple
    assume(len(g) >= 3 and g.number_of_edges() and leading_gap(g) > 0.1)
    r = hits(as_graph(g), normalized=normalized, weighted=weight_of(g) is not None, max_iterations=2000,
             backend="cpu", direction=direction)
    assert r.converged
    h, a = nx.hits(g, normalized=normalized)
    h, a = as_array(h, len(g)), as_array(a, len(g))
    if not normalized and a.sum() < 0:   # the SVD's sign is arbitrary
        h, a = -h, -a
    assert np.allclose(r.hubs, h, atol=1e-6) and np.allclose(r.authorities, a, atol=1e-6)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("directed", [False, True])
def test_hits_every_engine(engine, directed):
    g = random_graph(directed)
    for direction in ("push", "pull"):
        r = hits(g, max_iterations=1000, direction=direction, **tiny_budget_options(engine))
        verify_hits(g, r.hubs, r.authorities)


@pytest.mark.parametrize("name", ["karate", "les_miserables"])   # roget converges too slowly for a test
def test_hits_datasets(name):
    g = dataset_graph(name)
    r = hits(g, max_iterations=5000, backend="cpu")
    assert r.converged
    verify_hits(g, r.hubs, r.authorities)


def test_hits_edge_cases_and_verifier():
    g = Graph.from_edges([], [], n=3)
    r = hits(g, backend="cpu")
    assert r.hubs.tolist() == r.authorities.tolist() == [1 / 3] * 3
    assert not hits(Graph.from_edges([0, 1, 2], [1, 2, 3], n=4, directed=False), max_iterations=1,
                    backend="cpu").converged
    with pytest.raises(ValueError, match="'tol'"):
        hits(g, tol=0, backend="cpu")
    g = random_graph(True)
    r = hits(g, max_iterations=1000, backend="cpu")
    verify_hits(g, r.hubs, r.authorities)
    with pytest.raises(AssertionError, match="authority"):
        verify_hits(g, r.hubs, np.roll(r.authorities, 1))
