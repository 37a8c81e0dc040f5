"""Every verifier accepts a right answer from an oracle that is not our code and rejects
each kind of wrong answer it exists to catch.

A verifier that accepts anything would leave every algorithm test that calls it
toothless, so each one is fed broken results here: wrong levels (at depth, too
small, a second level-0 vertex), wrong parents, non-tight or too-small distances
(also around a zero-weight cycle), merged and split components, perturbed and
shifted ranks, a missing triangle, wrong clustering coefficients and CDLP labels.
The right answers come from scipy, networkx and the brute forces in the
algorithm tests, never from graphferry.
"""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.csgraph as csgraph
from hypothesis import assume, given, settings, strategies as st

from graphferry import Graph
from graphferry.algorithms.bfs import verify_bfs
from graphferry.algorithms.cdlp import verify_cdlp
from graphferry.algorithms.lcc import verify_lcc
from graphferry.algorithms.pagerank import verify_pagerank
from graphferry.algorithms.sssp import verify_sssp
from graphferry.algorithms.triangles import verify_triangles
from graphferry.algorithms.wcc import verify_wcc

from test_cdlp import ldbc_cdlp_bruteforce
from test_lcc import ldbc_lcc_bruteforce


def raises(check, *args, **kwargs):
    with pytest.raises(AssertionError):
        check(*args, **kwargs)


# ------------------------------------------------------------------ BFS
def scipy_bfs(g: Graph, s: int) -> tuple[np.ndarray, np.ndarray]:
    """(levels, parents) from scipy: levels -1 and parents -1 where unreached, parent[s] = s."""
    d = csgraph.shortest_path(g.to_scipy(), unweighted=True, indices=s, directed=True)
    levels = np.where(np.isinf(d), -1, d).astype(np.int64)
    _, pred = csgraph.breadth_first_order(g.to_scipy(), s, directed=True, return_predecessors=True)
    parents = np.where(pred < 0, -1, pred).astype(np.int64)
    parents[s] = s
    return levels, parents


def chain_graph():
    """0 -> 1 -> ... -> 9 plus shortcuts 0 -> 5 and 2 -> 7, a branch 3 -> 12, an unreachable
    component 10 -> 11, and 13 isolated."""
    src = np.r_[np.arange(9), 0, 2, 10, 3]
    dst = np.r_[np.arange(1, 10), 5, 7, 11, 12]
    return Graph.from_edges(src, dst, n=14)


def test_bfs_verifier_accepts_scipy_and_rejects_each_wrong_kind():
    g = chain_graph()
    levels, parents = scipy_bfs(g, 0)
    assert levels.tolist() == [0, 1, 2, 3, 4, 1, 2, 3, 4, 5, -1, -1, 4, -1]
    verify_bfs(g, 0, levels, parents)
    assert parents[12] == 3 and levels[7] == 3

    def broken(**changes):
        lv, pa = levels.copy(), parents.copy()
        for key, (v, value) in changes.items():
            (lv if key.startswith("level") else pa)[v] = value
        return lv, pa

    for lv, pa in [
        broken(level=(9, 6)),                      # one wrong level at depth: too deep
        broken(level=(8, 3), level2=(9, 4)),        # too shallow, its subtree shifted with it
        broken(level=(0, 1)),                      # the source not at level 0
        broken(parent=(0, 5)),                     # the source not its own parent
        broken(level=(11, 0)),                     # an unreachable vertex at level 0, no parent
        broken(level=(10, 0), parent=(10, 10), level2=(11, 1), parent2=(11, 10)),  # a second BFS tree
        broken(level=(13, 0), parent=(13, 13)),    # an isolated vertex claiming level 0
        broken(level=(9, -1), parent=(9, -1)),     # a reachable vertex left unreached
        broken(level=(11, 6), parent=(11, 9)),     # reached through a non-edge
        broken(parent=(12, 7)),                    # parent one level up but not an in-neighbour
        broken(parent=(12, 2)),                    # parent an ancestor two levels up
        broken(parent=(7, -1)),                    # a reached vertex without parent
        broken(parent=(11, 10)),                   # an unreached vertex with a parent
        broken(level=(12, -2), parent=(12, -1)),   # a level below -1
    ]:
        raises(verify_bfs, g, 0, lv, pa)


@st.composite
def graphs_with_source(draw, max_n=80, max_m=300):
    n = draw(st.integers(2, max_n))
    m = draw(st.integers(1, max_m))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    g = Graph.from_edges(rng.integers(0, n, m), rng.integers(0, n, m), rng.integers(0, 4, m).astype(float),
                         n=n, directed=draw(st.booleans()))
    return g, draw(st.integers(0, n - 1)), rng


@settings(max_examples=40, deadline=None)
@given(case=graphs_with_source(), delta=st.sampled_from([-2, -1, 1, 2, 7]))
def test_bfs_verifier_rejects_any_single_wrong_level(case, delta):
    g, s, rng = case
    levels, parents = scipy_bfs(g, s)
    verify_bfs(g, s, levels, parents)
    v = int(rng.integers(0, g.n))
    wrong = max(-1, int(levels[v]) + delta)
    assume(wrong != levels[v])                     # -1 - 1 clipped back to -1 is no change
    levels[v] = wrong
    raises(verify_bfs, g, s, levels, parents)


# ------------------------------------------------------------------ SSSP
def scipy_sssp(g: Graph, s: int) -> np.ndarray:
    src, dst = g.edges()
    w = np.ones(g.m) if g.weights is None else g.weights.astype(np.float64)
    order = np.lexsort((w, dst, src))          # keep the lightest of parallel arcs
    src, dst, w = src[order], dst[order], w[order]
    first = np.r_[True, (src[1:] != src[:-1]) | (dst[1:] != dst[:-1])]
    # scipy drops explicit zeros from a sparse matrix: store zero weights as a tiny epsilon
    # and round them away again (weights in these tests are multiples of 0.5)
    a = sp.csr_array((np.where(w[first] == 0, 1e-300, w[first]), (src[first], dst[first])), shape=(g.n, g.n))
    d = csgraph.dijkstra(a, directed=True, indices=s)
    return np.where(np.isfinite(d), np.round(d * 2) / 2, d)


def test_sssp_verifier_accepts_scipy_and_rejects_each_wrong_kind():
    # 0 -> 1 -> 2 -> 3 (weights 2, 1, 3), 0 -> 3 (weight 10), 3 -> 4 (0) and the zero-weight
    # cycle 4 <-> 5; 1 -> 6 (0.5); 7 -> 8 unreachable
    src = np.array([0, 1, 2, 0, 3, 4, 5, 1, 7])
    dst = np.array([1, 2, 3, 3, 4, 5, 4, 6, 8])
    w = np.array([2, 1, 3, 10, 0, 0, 0, 0.5, 1.0])
    g = Graph.from_edges(src, dst, w, n=9)
    good = scipy_sssp(g, 0)
    assert good.tolist() == [0, 2, 3, 6, 6, 6, 2.5, np.inf, np.inf]
    verify_sssp(g, 0, good)
    for v, value in [(3, 6.5),      # not tight (no in-edge gives 6.5)
                     (3, 7.0),      # not tight and an edge not relaxed downstream
                     (2, 2.5),      # too small: its in-edge is not tight
                     (4, 5.0), (5, 5.0),  # too small together: the zero cycle justifies both
                     (6, np.inf),   # reachable but left unreached
                     (7, 1.0),      # unreachable given a distance
                     (0, 1.0),      # source not at 0
                     (1, np.nan), (1, -2.0)]:
        bad = good.copy()
        bad[v] = value
        if v == 4:
            bad[5] = value          # both ends of the zero-weight cycle at once
        raises(verify_sssp, g, 0, bad)
    # the zero cycle alone, both vertices too small by the same amount, is the case a
    # "some tight in-edge" rule accepts
    bad = good.copy()
    bad[[4, 5]] = 1.0
    raises(verify_sssp, g, 0, bad)
    # a zero-weight self-loop justifies any smaller distance of its own vertex
    g2 = Graph.from_edges(np.array([0, 1]), np.array([1, 1]), np.array([3.0, 0.0]), n=2)
    verify_sssp(g2, 0, np.array([0.0, 3.0]))
    raises(verify_sssp, g2, 0, np.array([0.0, 1.0]))


@settings(max_examples=40, deadline=None)
@given(case=graphs_with_source(), delta=st.sampled_from([-1.5, -0.5, 0.5, 2.0]))
def test_sssp_verifier_rejects_any_single_wrong_distance(case, delta):
    g, s, rng = case
    good = scipy_sssp(g, s)
    verify_sssp(g, s, good)
    finite = np.flatnonzero(np.isfinite(good))
    v = int(rng.choice(finite))
    bad = good.copy()
    bad[v] += delta
    raises(verify_sssp, g, s, bad)
    unreached = np.flatnonzero(~np.isfinite(good))
    if len(unreached):
        bad = good.copy()
        bad[int(rng.choice(unreached))] = 1.0
        raises(verify_sssp, g, s, bad)


# ------------------------------------------------------------------ WCC
def scipy_min_labels(g: Graph) -> np.ndarray:
    _, lab = csgraph.connected_components(g.to_scipy(), directed=True, connection="weak")
    first = np.full(lab.max() + 1, g.n)
    np.minimum.at(first, lab, np.arange(g.n))
    return first[lab]


def test_wcc_verifier_accepts_scipy_and_rejects_merged_split_and_relabelled():
    g = Graph.from_edges(np.array([1, 2, 4, 6, 6]), np.array([0, 1, 5, 5, 7]), n=9)
    good = scipy_min_labels(g)
    assert good.tolist() == [0, 0, 0, 3, 4, 4, 4, 4, 8]
    verify_wcc(g, good)
    merged = good.copy()
    merged[merged == 4] = 0                       # two components merged
    split = good.copy()
    split[7] = 7                                  # a component split
    for bad in (merged, split, np.zeros(9, np.int64), np.arange(9),
                np.where(good == 4, 5, good),     # same partition, label not the smallest id
                good[:-1]):                       # a vertex missing
        raises(verify_wcc, g, bad)


@settings(max_examples=30, deadline=None)
@given(case=graphs_with_source())
def test_wcc_verifier_rejects_any_merge_or_split(case):
    g, _, rng = case
    good = scipy_min_labels(g)
    verify_wcc(g, good)
    comps = np.unique(good)
    if len(comps) >= 2:
        a, b = rng.choice(comps, 2, replace=False)
        merged = good.copy()
        merged[merged == max(a, b)] = min(a, b)
        raises(verify_wcc, g, merged)
    big = comps[np.argmax([np.count_nonzero(good == c) for c in comps])]
    members = np.flatnonzero(good == big)
    if len(members) >= 2:
        split = good.copy()
        split[members[-1]] = members[-1]
        raises(verify_wcc, g, split)


# ------------------------------------------------------------------ PageRank
def nx_pagerank(g: Graph, damping: float = 0.85) -> np.ndarray:
    G = nx.MultiDiGraph()
    G.add_nodes_from(range(g.n))
    src, dst = g.edges()
    G.add_edges_from(zip(src.tolist(), dst.tolist()))
    pr = nx.pagerank(G, alpha=damping, tol=1e-15, max_iter=100_000)
    return np.array([pr[v] for v in range(g.n)])


def test_pagerank_verifier_accepts_networkx_and_rejects_shifted_ranks():
    rng = np.random.default_rng(3)
    g = Graph.from_edges(rng.integers(0, 60, 300), rng.integers(0, 50, 300), n=60)   # 50..59: sinks
    good = nx_pagerank(g)
    verify_pagerank(g, good, damping=0.85, atol=1e-10, rtol=0)
    nudged = good.copy()
    nudged[7] += 1e-8                             # one rank off by 1e-8
    shifted = good * (1 + 1e-7)                   # every rank off by a relative 1e-7
    swapped = good.copy()
    swapped[[1, 2]] = swapped[[2, 1]]
    # sinks keeping their rank (as if each had a self-loop) instead of spreading it over every
    # vertex (dropping it and normalising afterwards is the same as spreading it: not wrong)
    sinks = np.flatnonzero(g.out_degree == 0)
    no_sinks = nx_pagerank(Graph.from_edges(np.r_[g.edges()[0], sinks], np.r_[g.edges()[1], sinks], n=g.n))
    uniform = np.full(g.n, 1 / g.n)
    for bad in (nudged, shifted, swapped, no_sinks, uniform, -good, np.where(np.arange(g.n) == 3, np.nan, good),
                good[:-1]):
        raises(verify_pagerank, g, bad, damping=0.85, atol=1e-10, rtol=0)
    raises(verify_pagerank, g, good, damping=0.8, atol=1e-10, rtol=0)       # another damping


def test_pagerank_verifier_counts_ldbc_iterations():
    g = Graph.from_edges(np.array([0, 1, 1, 2]), np.array([1, 0, 2, 0]), n=4)
    # two LDBC rounds by hand: x1 = base + d * in-sum, sinks (3) spread uniformly
    d, n = 0.85, 4
    x = np.full(n, 1 / n)
    for _ in range(2):
        sink = x[3]
        x = np.array([x[1] / 2 + x[2], x[0], x[1] / 2, 0.0]) * d + (1 - d) / n + d * sink / n
    verify_pagerank(g, x, damping=d, iterations=2, atol=1e-15, rtol=1e-12)
    raises(verify_pagerank, g, x, damping=d, iterations=3, atol=1e-15, rtol=1e-12)
    raises(verify_pagerank, g, x, damping=d, iterations=1, atol=1e-15, rtol=1e-12)


# ------------------------------------------------------------------ triangles
def test_triangle_verifier_rejects_a_missing_triangle_and_a_wrong_total():
    rng = np.random.default_rng(4)
    src, dst = rng.integers(0, 40, 300), rng.integers(0, 40, 300)
    g = Graph.from_edges(src, dst, n=40)
    G = nx.Graph()
    G.add_nodes_from(range(40))
    G.add_edges_from(zip(src.tolist(), dst.tolist()))
    G.remove_edges_from(nx.selfloop_edges(G))
    t = nx.triangles(G)
    good = np.array([t[v] for v in range(40)], dtype=np.int64)
    total = int(good.sum()) // 3
    verify_triangles(g, good, total)
    u, v, w = next(c for c in nx.enumerate_all_cliques(G) if len(c) == 3)
    missing = good.copy()
    missing[[u, v, w]] -= 1                       # one triangle missing at all three corners
    raises(verify_triangles, g, missing, total - 1)
    raises(verify_triangles, g, missing)
    one = good.copy()
    one[u] += 1
    raises(verify_triangles, g, one)
    raises(verify_triangles, g, good, total + 1)
    raises(verify_triangles, g, good * 2, total * 2)   # counted once per direction


# ------------------------------------------------------------------ LCC
def test_lcc_verifier_rejects_wrong_values():
    rng = np.random.default_rng(5)
    src, dst = rng.integers(0, 30, 150), rng.integers(0, 30, 150)
    for directed in (False, True):
        g = Graph.from_edges(src, dst, n=32, directed=directed)    # 30, 31: isolated
        good = ldbc_lcc_bruteforce(32, src, dst, directed)
        verify_lcc(g, good)
        v = int(np.flatnonzero(good > 0)[0])
        for bad in (np.where(np.arange(32) == v, good * (1 + 1e-6), good),   # one value slightly off
                    np.where(np.arange(32) == 31, 0.5, good),                 # a value for degree < 2
                    ldbc_lcc_bruteforce(32, src, dst, not directed),          # the other definition
                    np.zeros(32)):
            raises(verify_lcc, g, bad)


# ------------------------------------------------------------------ CDLP
def test_cdlp_verifier_rejects_wrong_labels():
    rng = np.random.default_rng(6)
    src, dst = rng.integers(0, 40, 160), rng.integers(0, 40, 160)
    for directed in (False, True):
        g = Graph.from_edges(src, dst, n=40, directed=directed)
        good = np.array(ldbc_cdlp_bruteforce(40, src, dst, directed, 4))
        verify_cdlp(g, good, 4)
        changed = np.flatnonzero(good != np.array(ldbc_cdlp_bruteforce(40, src, dst, directed, 3)))
        assert len(changed)                       # the fourth iteration still moves labels
        other = good.copy()
        other[5] = good[5] + 1 if good[5] + 1 < 40 else good[5] - 1
        for bad in (other,
                    np.array(ldbc_cdlp_bruteforce(40, src, dst, directed, 3)),      # one iteration short
                    np.array(ldbc_cdlp_bruteforce(40, src, dst, not directed, 4))):  # the other counting
            if np.array_equal(bad, good):
                continue
            raises(verify_cdlp, g, bad, 4)
    # ties go to the smallest label: 0 hears 1 and 2 once each
    g = Graph.from_edges(np.array([0, 0]), np.array([1, 2]), n=3, directed=False)
    verify_cdlp(g, np.array([1, 0, 0]), 1)
    raises(verify_cdlp, g, np.array([2, 0, 0]), 1)


def test_verify_coloring_rejects_clashes_uncoloured_and_non_greedy_colours():
    from graphferry.algorithms.coloring import verify_coloring

    g = Graph.from_edges([0, 1], [1, 2], n=3, directed=False)
    verify_coloring(g, np.array([0, 1, 0]))
    for bad, why in (([0, 0, 1], "joins"), ([0, -1, 0], "uncoloured"), ([0, 1, 5], "above its degree")):
        with pytest.raises(AssertionError, match=why):
            verify_coloring(g, np.array(bad))
