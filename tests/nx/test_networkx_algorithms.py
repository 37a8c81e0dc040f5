"""The NetworkX functions of core_number, eigenvector/katz centrality, hits and jaccard_coefficient:
graphferry's answers against NetworkX's own (the oracle) on many graphs, and what the backend declines."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

nx = pytest.importorskip("networkx")

from graphferry.nx_backend import interface, register  # noqa: E402

GF = {"backend": "graphferry"}
SETTINGS = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])

register()
nx.config.warnings_to_ignore.add("cache")
nx.config.backends.graphferry.backend = "cpu"


@st.composite
def nx_graphs(draw, kinds=("Graph", "DiGraph"), weighted=True, self_loops=True, max_n=24):
    """A NetworkX graph with labels of several kinds, optional integer weights and self-loops."""
    G = getattr(nx, draw(st.sampled_from(kinds)))()
    n = draw(st.integers(1, max_n))
    labels = draw(st.sampled_from(["range", "shuffled", "str"]))
    ids = list(range(n))
    if labels == "shuffled":
        ids = draw(st.permutations(ids))
    elif labels == "str":
        ids = [f"v{i}" for i in draw(st.permutations(ids))]
    G.add_nodes_from(ids)
    use_weights = weighted and draw(st.booleans())
    for a, b in draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=4 * n)):
        if a == b and not self_loops:
            continue
        G.add_edge(ids[a], ids[b], **({"weight": draw(st.integers(1, 5))} if use_weights else {}))
    return G


def same_call(function, G, *args, close=None, **kwargs):
    """NetworkX's answer and graphferry's, or the same exception type from both."""
    try:
        want = function(G, *args, **kwargs)
    except nx.NetworkXException as exc:
        with pytest.raises(type(exc)):
            function(G, *args, **kwargs, **GF)
        return None, None
    return want, function(G, *args, **kwargs, **GF)


def assert_close_dicts(got: dict, want: dict, atol: float) -> None:
    assert list(got) == list(want)
    assert all(type(x) is float for x in got.values())
    assert all(abs(got[v] - want[v]) <= atol for v in want), max(abs(got[v] - want[v]) for v in want)


@SETTINGS
@given(G=nx_graphs(self_loops=False))
def test_core_number(G):
    want, got = same_call(nx.core_number, G)
    assert got == want and list(got) == list(want)
    assert all(type(x) is int for x in got.values())


def test_core_number_declines_what_networkx_refuses():
    G = nx.path_graph(4)
    G.add_edge(1, 1)
    assert "self-loops" in interface.can_run("core_number", (G,), {})
    with pytest.raises(nx.NetworkXNotImplemented):
        nx.core_number(G)
    assert interface.can_run("core_number", (nx.MultiGraph([(0, 1)]),), {}) is not True


@SETTINGS
@given(G=nx_graphs(), max_iter=st.sampled_from([100, 5]))
def test_eigenvector_centrality(G, max_iter):
    weight = "weight" if any("weight" in d for *_, d in G.edges(data=True)) else None
    want, got = same_call(nx.eigenvector_centrality, G, max_iter=max_iter, weight=weight)
    if want is not None:
        assert_close_dicts(got, want, 1e-12)


def test_eigenvector_centrality_nstart():
    G = nx.karate_club_graph()
    nstart = {v: 1 + (v % 3) for v in G}
    want = nx.eigenvector_centrality(G, nstart=nstart, weight="weight")
    assert_close_dicts(nx.eigenvector_centrality(G, nstart=nstart, weight="weight", **GF), want, 1e-12)
    assert interface.can_run("eigenvector_centrality", (G,), {"nstart": {0: 1}}) is not True


@SETTINGS
@given(G=nx_graphs(), alpha=st.sampled_from([0.1, 0.05, 0.3]), normalized=st.booleans(),
       beta=st.sampled_from([1.0, 2, "dict"]))
def test_katz_centrality(G, alpha, normalized, beta):
    weight = "weight" if any("weight" in d for *_, d in G.edges(data=True)) else None
    if beta == "dict":
        beta = {v: 1 + k / len(G) for k, v in enumerate(G)}
    want, got = same_call(nx.katz_centrality, G, alpha=alpha, beta=beta, normalized=normalized, weight=weight)
    if want is not None:
        assert_close_dicts(got, want, 1e-12)


def leading_gap(G) -> float:
    s = np.linalg.svd(nx.to_numpy_array(G), compute_uv=False)
    return 0.0 if s[0] == 0 else 1.0 - (s[1] / s[0] if len(s) > 1 else 0.0)


@SETTINGS
@given(G=nx_graphs(max_n=20))
def test_hits(G):
    # NetworkX's answer (an ARPACK SVD) is one vector where the leading singular value is simple
    if G.number_of_edges() == 0 or len(G) < 3 or leading_gap(G) < 0.1:
        return
    h_want, a_want = nx.hits(G)
    h_got, a_got = nx.hits(G, **GF)
    assert_close_dicts(h_got, h_want, 1e-6)
    assert_close_dicts(a_got, a_want, 1e-6)


def test_hits_on_karate_and_failure():
    G = nx.karate_club_graph()
    for got, want in zip(nx.hits(G, **GF), nx.hits(G)):
        assert_close_dicts(got, want, 1e-6)
    with pytest.raises(nx.PowerIterationFailedConvergence):
        nx.hits(nx.path_graph(50), max_iter=1, **GF)
    assert interface.can_run("hits", (nx.MultiDiGraph([(0, 1)]),), {}) is not True


@SETTINGS
@given(G=nx_graphs(kinds=("Graph",), weighted=False, max_n=16), data=st.data())
def test_jaccard_coefficient(G, data):
    # the default ebunch: every non-edge, in NetworkX's order, with its int 0 for two isolated nodes
    want = list(nx.jaccard_coefficient(G))
    got = list(nx.jaccard_coefficient(G, **GF))
    assert [(u, v) for u, v, _ in got] == [(u, v) for u, v, _ in want]
    assert [type(p) for *_, p in got] == [type(p) for *_, p in want]
    assert all(abs(p - q) < 1e-12 for (*_, p), (*_, q) in zip(got, want))
    nodes = list(G)
    pairs = data.draw(st.lists(st.tuples(st.sampled_from(nodes), st.sampled_from(nodes)), max_size=30))
    got = list(nx.jaccard_coefficient(G, pairs, **GF))
    want = list(nx.jaccard_coefficient(G, pairs))
    # pytest.approx compares no tuples: the pairs exactly, then the coefficients within rounding
    assert [(u, v) for u, v, _ in got] == [(u, v) for u, v, _ in want]
    assert [p for *_, p in got] == pytest.approx([q for *_, q in want], abs=1e-12)


def test_jaccard_coefficient_errors_and_declines():
    G = nx.path_graph(3)
    with pytest.raises(nx.NodeNotFound):
        nx.jaccard_coefficient(G, [(0, 9)], **GF)
    assert interface.can_run("jaccard_coefficient", (nx.DiGraph([(0, 1)]),), {}) is not True


@SETTINGS
@given(G=nx_graphs(max_n=16), normalized=st.booleans(), data=st.data())
def test_edge_betweenness_centrality(G, normalized, data):
    weight = "weight" if any("weight" in d for *_, d in G.edges(data=True)) else None
    k = data.draw(st.one_of(st.none(), st.integers(1, len(G))))
    seed = data.draw(st.integers(0, 100))
    want = nx.edge_betweenness_centrality(G, k=k, seed=seed, normalized=normalized, weight=weight)
    got = nx.edge_betweenness_centrality(G, k=k, seed=seed, normalized=normalized, weight=weight, **GF)
    assert list(got) == list(want)           # G.edges()'s keys, order and orientation
    assert all(abs(got[e] - want[e]) <= 1e-9 * max(1.0, abs(want[e])) for e in want)


def test_edge_betweenness_centrality_declines_multigraphs():
    assert interface.can_run("edge_betweenness_centrality", (nx.MultiGraph([(0, 1)]),), {}) is not True


@SETTINGS
@given(G=nx_graphs(kinds=("Graph",), self_loops=False, max_n=20), k=st.integers(-1, 6))
def test_k_truss(G, k):
    for u, v in list(G.edges())[:3]:
        G.edges[u, v]["colour"] = "red"       # every attribute kept, as in NetworkX's copy
    G.graph["name"] = "g"
    want = nx.k_truss(G, k)
    got = nx.k_truss(G, k, **GF)
    assert nx.utils.graphs_equal(got, want)
    assert list(got.nodes) == list(want.nodes) and list(got.edges(data=True)) == list(want.edges(data=True))


def test_k_truss_declines_what_networkx_refuses():
    G = nx.cycle_graph(3)
    G.add_edge(0, 0)
    assert interface.can_run("k_truss", (G,), {"k": 3}) is not True
    assert interface.can_run("k_truss", (nx.DiGraph([(0, 1)]),), {"k": 3}) is not True
    assert interface.can_run("k_truss", (nx.path_graph(3),), {"k": 2.5}) is not True
