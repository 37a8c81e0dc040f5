"""PageRank (delta push and LDBC form) against a float64 scipy power iteration and networkx."""

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from graphferry import Graph
from graphferry.algorithms.pagerank import pagerank, pagerank_ldbc, pagerank_reference, verify_pagerank

from conftest import ENGINES, small_budget_options, tiny_budget_options
from shapes import shaped_graphs


@st.composite
def graphs(draw, max_n=100, max_m=400):
    n = draw(st.integers(1, max_n))
    m = draw(st.integers(0, max_m))
    seed = draw(st.integers(0, 2**32 - 1))
    directed = draw(st.booleans())
    rng = np.random.default_rng(seed)
    return Graph.from_edges(rng.integers(0, n, m), rng.integers(0, n, m), n=n, directed=directed)


def networkx_pagerank(g: Graph, damping: float) -> np.ndarray:
    G = nx.MultiDiGraph()
    G.add_nodes_from(range(g.n))
    src, dst = g.edges()
    G.add_edges_from(zip(src.tolist(), dst.tolist()))
    pr = nx.pagerank(G, alpha=damping, tol=1e-13, max_iter=10_000)
    return np.array([pr[v] for v in range(g.n)])


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("direction", ["auto", "push", "pull"])
@settings(max_examples=6, deadline=None)
@given(g=graphs(), damping=st.sampled_from([0.85, 0.5]))
def test_delta_pagerank_matches_power_iteration(engine, direction, g, damping):
    r = pagerank(g, damping=damping, tol=1e-8, max_iterations=300, direction=direction,
                 **tiny_budget_options(engine))
    assert r.converged
    # documented bound: L1 error <= about 4 d / (1 - d) * tol
    bound = 4 * damping / (1 - damping) * 1e-8
    assert np.abs(r.ranks - pagerank_reference(g, damping)).sum() <= bound
    verify_pagerank(g, r.ranks, damping=damping, atol=bound, rtol=0)


@pytest.mark.parametrize("engine", ENGINES)
@settings(max_examples=6, deadline=None)
@given(g=graphs(), iterations=st.integers(0, 12), damping=st.sampled_from([0.85, 0.6, 1.0]))
def test_ldbc_pagerank_matches_power_iteration(engine, g, iterations, damping):
    r = pagerank_ldbc(g, damping=damping, iterations=iterations, **tiny_budget_options(engine))
    verify_pagerank(g, r.ranks, damping=damping, iterations=iterations, atol=1e-15, rtol=1e-12)
    assert r.record.iterations == iterations
    assert all(s.direction == "pull" for s in r.record.edge_steps)


@pytest.mark.parametrize("engine", ["host", "filter"])
def test_ldbc_pagerank_pushed_matches(engine):
    rng = np.random.default_rng(9)
    g = Graph.from_edges(rng.integers(0, 80, 500), rng.integers(0, 80, 500), n=90)
    pulled = pagerank_ldbc(g, damping=0.85, iterations=7, **tiny_budget_options(engine))
    pushed = pagerank_ldbc(g, damping=0.85, iterations=7, direction="push", **tiny_budget_options(engine))
    assert all(s.direction == "push" for s in pushed.record.edge_steps)
    np.testing.assert_allclose(pushed.ranks, pulled.ranks, rtol=1e-13)
    verify_pagerank(g, pushed.ranks, damping=0.85, iterations=7)


@settings(max_examples=15, deadline=None)
@given(g=graphs(max_n=40, max_m=150))
def test_both_forms_match_networkx(g):
    want = networkx_pagerank(g, 0.85)
    np.testing.assert_allclose(pagerank(g, tol=1e-10, max_iterations=500, backend="cpu").ranks, want,
                               atol=1e-9, rtol=0)
    np.testing.assert_allclose(pagerank_ldbc(g, damping=0.85, iterations=300, backend="cpu").ranks, want,
                               atol=1e-11, rtol=0)


@pytest.mark.parametrize("engine", ["host", "compaction"])
@settings(max_examples=8, deadline=None)
@given(g=graphs())
def test_float32_state(engine, g):
    r = pagerank(g, tol=1e-5, dtype="float32", **tiny_budget_options(engine))
    assert r.ranks.dtype == np.float64
    # the documented L1 bound at tol, plus float32 rounding of every stored value
    bound = 4 * 0.85 / 0.15 * 1e-5 + g.n * 4e-7 * r.ranks.max()
    assert np.abs(r.ranks - pagerank_reference(g, 0.85)).sum() <= bound


def test_sinks_and_self_loops():
    # 3 is a sink, 4 is isolated, 2 has a self-loop; parallel arcs count twice
    g = Graph.from_edges(np.array([0, 0, 0, 1, 2, 2]), np.array([1, 1, 2, 3, 2, 0]), n=5)
    for engine in ENGINES:
        verify_pagerank(g, pagerank_ldbc(g, damping=0.85, iterations=20, **tiny_budget_options(engine)).ranks,
                        damping=0.85, iterations=20)
        verify_pagerank(g, pagerank(g, tol=1e-10, max_iterations=300, **tiny_budget_options(engine)).ranks,
                        damping=0.85, atol=1e-9)


def test_self_loop_converges_within_bound():
    # a self-loop keeps feeding its own residual: the slowest case for the relative threshold
    g = Graph.from_edges(np.array([1]), np.array([1]), n=3, directed=False)
    for direction in ("push", "pull"):
        r = pagerank(g, tol=1e-8, max_iterations=300, direction=direction, backend="cpu")
        assert np.abs(r.ranks - pagerank_reference(g, 0.85)).sum() <= 4 * 0.85 / 0.15 * 1e-8


def test_delta_work_shrinks():
    # a star with a long tail: once the tail settles, rounds touch few vertices
    rng = np.random.default_rng(5)
    g = Graph.from_edges(rng.integers(0, 300, 3000), rng.integers(0, 300, 3000), n=300)
    r = pagerank(g, tol=1e-7, max_iterations=300, backend="cpu", direction="push")
    active = [s.active_vertices for s in r.record.edge_steps]
    assert active[0] == 300 and min(active) < 300


def test_not_converged_is_logged_and_reported(caplog):
    g = Graph.from_edges(np.array([0, 1]), np.array([1, 0]), n=2)
    g2 = Graph.from_edges(np.array([0, 1, 2]), np.array([1, 2, 0]), n=4)
    with caplog.at_level("WARNING", logger="graphferry.algorithms.pagerank"):
        r = pagerank(g2, tol=1e-12, max_iterations=3, backend="cpu")
    assert "did not reach" in caplog.text
    assert not r.converged and r.iterations == 3
    r0 = pagerank(g, max_iterations=0, backend="cpu")
    assert r0.ranks.tolist() == [0.5, 0.5] and not r0.converged


def test_empty_and_edgeless():
    assert pagerank(Graph.from_edges([], [], n=0), backend="cpu").ranks.tolist() == []
    assert pagerank_ldbc(Graph.from_edges([], [], n=0), damping=0.85, iterations=3, backend="cpu").ranks.tolist() == []
    np.testing.assert_allclose(pagerank(Graph.from_edges([], [], n=4), backend="cpu").ranks, 0.25)
    np.testing.assert_allclose(pagerank_ldbc(Graph.from_edges([], [], n=4), damping=0.85, iterations=3,
                                             backend="cpu").ranks, 0.25)


def test_rejects_bad_arguments():
    g = Graph.from_edges(np.array([0]), np.array([1]), n=2)
    with pytest.raises(ValueError, match="'damping'"):
        pagerank(g, damping=1.5, backend="cpu")
    with pytest.raises(ValueError, match="'damping'"):
        pagerank(g, damping=1.0, backend="cpu")
    with pytest.raises(ValueError, match="'tol'"):
        pagerank(g, tol=0, backend="cpu")
    with pytest.raises(ValueError, match="'dtype'"):
        pagerank(g, dtype="float16", backend="cpu")
    with pytest.raises(ValueError, match="'iterations'"):
        pagerank_ldbc(g, damping=0.85, iterations=-1, backend="cpu")



def test_verifier_catches_errors():
    g = Graph.from_edges(np.array([0, 1]), np.array([1, 2]), n=3)
    good = pagerank_reference(g, 0.85, 5)
    verify_pagerank(g, good, damping=0.85, iterations=5)
    with pytest.raises(AssertionError):
        verify_pagerank(g, good * 1.001, damping=0.85, iterations=5)
    with pytest.raises(AssertionError):
        verify_pagerank(g, good, damping=0.85, iterations=6)


def rounds_by_the_documented_rule(n: int, tol: float, damping: float) -> int:
    """Rounds the delta form runs on a directed n-cycle, from the module docstring's rule alone:
    every vertex starts with residual 1/n; a round moves each active vertex's residual into its
    rank and sends ``damping`` times it to its successor; a vertex stays active while its
    residual exceeds ``tol * (rank + 1/n)``. On a cycle every vertex is in the same state."""
    rank, resid, rounds = 0.0, 1.0 / n, 0
    while resid > tol * (rank + 1.0 / n):
        rounds += 1
        rank += resid
        resid = resid * (damping * 1.0)
    return rounds


@pytest.mark.parametrize("tol", [1e-3, 1e-6, 3e-9])
@pytest.mark.parametrize("damping", [0.85, 0.5])
def test_stopping_rule_on_a_cycle(tol, damping):
    # a threshold looser or tighter than documented, or a loop cut short, changes the count
    n = 7
    g = Graph.from_edges(np.arange(n), (np.arange(n) + 1) % n, n=n)
    r = pagerank(g, damping=damping, tol=tol, max_iterations=10_000, backend="cpu", start="uniform")
    assert r.converged and r.iterations == rounds_by_the_documented_rule(n, tol, damping)
    np.testing.assert_allclose(r.ranks, 1 / n, rtol=1e-15)
    # started from its in-degrees, a cycle's guess is its answer: the priming round finds no
    # residual above the threshold, and nothing more runs
    warm = pagerank(g, damping=damping, tol=tol, max_iterations=10_000, backend="cpu")
    assert warm.converged and warm.iterations == 1
    np.testing.assert_allclose(warm.ranks, 1 / n, rtol=1e-15)


@settings(max_examples=12, deadline=None)
@given(case=shaped_graphs(max_n=1500), engine=st.sampled_from(ENGINES), tol=st.sampled_from([1e-4, 1e-7]),
       start=st.sampled_from(["degrees", "uniform"]))
def test_delta_pagerank_on_long_deep_hub_and_large_graphs(case, engine, tol, start):
    _, g = case
    r = pagerank(g, tol=tol, max_iterations=5000, start=start, **small_budget_options(engine))
    assert r.converged
    # the module docstring's guarantee: L1 error at most about 4 d / (1 - d) * tol
    assert np.abs(r.ranks - pagerank_reference(g, 0.85)).sum() <= 4 * 0.85 / 0.15 * tol
