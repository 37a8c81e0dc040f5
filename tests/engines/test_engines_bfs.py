"""Every engine x direction gives scipy's BFS levels on graphs split into many partitions."""

import numpy as np
import pytest
import scipy.sparse.csgraph as csgraph
from hypothesis import given, settings, strategies as st

from graphferry import Graph
from graphferry.algorithms.bfs import bfs, verify_bfs

from conftest import ENGINES, small_budget_options, tiny_budget_options
from shapes import shape_edges, shaped_graphs


def scipy_levels(g: Graph, s: int) -> np.ndarray:
    d = csgraph.shortest_path(g.to_scipy(), unweighted=True, indices=s, directed=True)
    return np.where(np.isinf(d), -1, d).astype(np.int64)


@st.composite
def graphs(draw):
    n = draw(st.integers(1, 120))
    m = draw(st.integers(0, 600))
    seed = draw(st.integers(0, 2**32 - 1))
    directed = draw(st.booleans())
    rng = np.random.default_rng(seed)
    return Graph.from_edges(rng.integers(0, n, m), rng.integers(0, n, m), n=n, directed=directed)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("direction", ["auto", "push", "pull"])
@settings(max_examples=15, deadline=None)
@given(g=graphs(), data=st.data())
def test_bfs_matches_scipy(engine, direction, g, data):
    s = data.draw(st.integers(0, g.n - 1))
    r = bfs(g, s, direction=direction, **tiny_budget_options(engine))
    assert np.array_equal(r.levels, scipy_levels(g, s))
    verify_bfs(g, s, r.levels, r.parents)


def test_engines_record_bytes_and_partitions():
    rng = np.random.default_rng(3)
    g = Graph.from_edges(rng.integers(0, 200, 2000), rng.integers(0, 200, 2000), n=200)
    moved = {}
    for engine in ENGINES:
        r = bfs(g, 0, direction="push", **tiny_budget_options(engine))
        first = r.record.edge_steps[0]
        assert first.partitions and all(p.engine == engine for p in first.partitions)
        moved[engine] = r.record.bytes_h2d
    assert moved["host"] == 0
    assert moved["resident"] == g.m * 4  # the push side once
    # compaction never moves more edge bytes than filtering whole partitions, plus its vertex lists
    assert moved["compaction"] <= moved["filter"] + 12 * g.n * r.record.iterations


@settings(max_examples=10, deadline=None)
@given(case=shaped_graphs(), engine=st.sampled_from(ENGINES), direction=st.sampled_from(["auto", "push", "pull"]),
       data=st.data())
def test_bfs_on_long_deep_hub_and_large_graphs(case, engine, direction, data):
    _, g = case
    s = data.draw(st.integers(0, g.n - 1))
    r = bfs(g, s, direction=direction, **small_budget_options(engine))
    assert np.array_equal(r.levels, scipy_levels(g, s))
    verify_bfs(g, s, r.levels, r.parents)


@pytest.mark.parametrize("engine", ["resident", "compaction"])
def test_bfs_reaches_the_end_of_a_long_path(engine):
    # 1500 levels: a loop capped at a few hundred rounds leaves the far end unreached
    n = 1500
    src, dst = shape_edges("path", n, np.random.default_rng(0))
    perm = np.random.default_rng(1).permutation(n)
    g = Graph.from_edges(perm[src], perm[dst], n=n)
    r = bfs(g, int(perm[0]), **small_budget_options(engine))
    assert r.levels[perm].tolist() == list(range(n))
    verify_bfs(g, int(perm[0]), r.levels, r.parents)
