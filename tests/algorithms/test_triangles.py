"""Triangle counting against networkx on random graphs (self-loops and repeated edges
included), hub-heavy graphs and the shared datasets.

Semantics under test: the undirected simple view (directions ignored, self-loops
dropped, a repeated edge counted once), which is what ``nx.triangles`` computes on
an ``nx.Graph`` built from the same edge list.
"""

from __future__ import annotations

import numpy as np
import networkx as nx
import pytest
from hypothesis import given, settings, strategies as st

from graphferry import Graph
from graphferry.algorithms.triangles import (degree_ordered_dag, simple_graph, triangle_count,
                                             verify_triangles)

from conftest import DATASETS, need_shared, read_dataset, tiny_budget_options


def nx_triangles(n: int, src, dst) -> np.ndarray:
    g = nx.Graph()
    g.add_nodes_from(range(n))
    g.add_edges_from(zip(np.asarray(src).tolist(), np.asarray(dst).tolist()))  # collapses repeats
    t = nx.triangles(g)                                                        # ignores self-loops
    return np.array([t[v] for v in range(n)], dtype=np.int64)


@st.composite
def edge_lists(draw, max_n=60, max_m=500):
    """(n, src, dst, directed): random edges plus explicit self-loops and repeats."""
    n = draw(st.integers(1, max_n))
    m = draw(st.integers(0, max_m))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    loops = rng.integers(0, n, draw(st.integers(0, 5)))
    rep = rng.integers(0, max(m, 1), draw(st.integers(0, 20))) if m else np.zeros(0, np.int64)
    src = np.concatenate([src, loops, src[rep] if m else rep, dst[rep] if m else rep])
    dst = np.concatenate([dst, loops, dst[rep] if m else rep, src[rep] if m else rep])
    return n, src, dst, draw(st.booleans())


@settings(max_examples=60, deadline=None)
@given(e=edge_lists())
def test_triangles_match_networkx(e):
    n, src, dst, directed = e
    g = Graph.from_edges(src, dst, n=n, directed=directed)
    r = triangle_count(g, backend="cpu")
    want = nx_triangles(n, src, dst)
    assert r.triangles.dtype == np.int64
    assert np.array_equal(r.triangles, want)
    assert r.total == int(want.sum()) // 3
    verify_triangles(g, r.triangles, r.total)


def test_tiny_budget_gives_the_same_counts():
    # neighbor_map reads the whole graph whatever the engine, so the counts are not
    # parametrised over engines (that would claim coverage that does not exist); this
    # checks that a tiny budget and small partitions do not change them
    rng = np.random.default_rng(7)
    src, dst = rng.integers(0, 150, 1500), rng.integers(0, 150, 1500)
    g = Graph.from_edges(src, dst, n=150, directed=False)
    r = triangle_count(g, **tiny_budget_options("filter"))
    assert np.array_equal(r.triangles, nx_triangles(150, src, dst))


def test_hub_and_clique():
    # a 40-clique plus a hub joined to everyone: hub rows are long, the DAG keeps them short
    n = 1200
    rng = np.random.default_rng(1)
    cl = np.array([(a, b) for a in range(40) for b in range(a + 1, 40)])
    src = np.concatenate([cl[:, 0], np.full(n - 1, n - 1), rng.integers(0, n, 3000)])
    dst = np.concatenate([cl[:, 1], np.arange(n - 1), rng.integers(0, n, 3000)])
    for directed in (True, False):
        g = Graph.from_edges(src, dst, n=n, directed=directed)
        r = triangle_count(g, backend="cpu")
        assert np.array_equal(r.triangles, nx_triangles(n, src, dst))


def test_counts_are_per_input_vertex_and_total_once():
    # two triangles sharing edge 0-1, plus both directions and a repeat of one edge
    g = Graph.from_edges(np.array([0, 1, 2, 0, 1, 3, 1, 0]), np.array([1, 2, 0, 3, 3, 3, 0, 1]), n=5)
    r = triangle_count(g, backend="cpu")
    assert r.triangles.tolist() == [2, 2, 1, 1, 0]
    assert r.total == 2


def test_simple_graph_and_dag():
    g = Graph.from_edges(np.array([0, 0, 0, 2, 2, 1]), np.array([1, 1, 0, 1, 0, 2]), n=3)
    s = simple_graph(g, undirected=False)
    assert s.directed and s.edges()[1].tolist() == [1, 2, 0, 1]
    u = simple_graph(g, undirected=True)
    assert not u.directed and [u.neighbors(v).tolist() for v in range(3)] == [[1, 2], [0, 2], [0, 1]]
    dag, order, degree = degree_ordered_dag(g, arc_counts=True)
    assert degree.tolist() == [2, 2, 2] and order.tolist() == [0, 1, 2]
    assert dag.edges()[1].tolist() == [1, 2, 2] and dag.weights.tolist() == [1.0, 1.0, 2.0]


def test_verifier_rejects_wrong_counts():
    g = Graph.from_edges(np.array([0, 1, 2]), np.array([1, 2, 0]), n=3)
    with pytest.raises(AssertionError):
        verify_triangles(g, np.array([1, 1, 0]))


@pytest.mark.parametrize("name", ["karate", "les_miserables", "roget", "wormnet_v3", "minnesota_road",
                                  "metis_4elt"])
def test_datasets_match_networkx(name):
    path = DATASETS / f"{name}.el"
    need_shared(path, "shared dataset")
    n, src, dst, directed = read_dataset(path)
    g = Graph.from_edges(src, dst, n=n, directed=directed)
    r = triangle_count(g, backend="cpu")
    assert np.array_equal(r.triangles, nx_triangles(n, src, dst))
    verify_triangles(g, r.triangles, r.total)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 60), st.integers(0, 300), st.booleans(), st.integers(0, 2**31))
def test_cpp_dag_equals_the_edge_list_dag(n, m, directed, seed):
    # the C++ row-by-row builder (triangle_count's) against the numpy edge-list one
    # (LCC's), with self-loops and repeated edges in the input
    from graphferry import host_ops

    rng = np.random.default_rng(seed)
    g = Graph.from_edges(rng.integers(0, n, m), rng.integers(0, n, m), n=n, directed=directed)
    want, want_order, want_degree = degree_ordered_dag(g)
    t = host_ops.unordered_transpose(g.offsets, g.indices) if directed else (None, None)
    off, idx, order, degree = host_ops.degree_ordered_dag(g.offsets, g.indices, *t)
    assert np.array_equal(degree, want_degree) and np.array_equal(order, want_order)
    assert np.array_equal(off, want.offsets) and np.array_equal(idx, want.indices)
    if directed:  # the unordered transpose holds each arc once, reversed
        to, ti = t
        assert np.array_equal(np.diff(to), g.in_degree)
        got = sorted(zip(np.repeat(np.arange(n), np.diff(to)).tolist(), ti.tolist()))
        assert got == sorted(zip(g.indices.tolist(), np.repeat(np.arange(n), g.out_degree).tolist()))


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 80), st.integers(0, 400), st.integers(0, 2**31))
def test_cpp_dag_reads_simple_rows_in_place(n, m, seed):
    # simple=True (rows read in place, degrees from the offsets) gives the DAG of the
    # general path, and the numpy edge-list one's
    from graphferry import host_ops
    from graphferry.transforms import is_simple

    rng = np.random.default_rng(seed)
    g = simple_graph(Graph.from_edges(rng.integers(0, n, m), rng.integers(0, n, m), n=n), undirected=True)
    assert is_simple(g, undirected=True)
    want, want_order, want_degree = degree_ordered_dag(g)
    got = host_ops.degree_ordered_dag(g.offsets, g.indices, simple=True)
    for a, b in zip(got, (want.offsets, want.indices, want_order, want_degree)):
        assert np.array_equal(a, b)


@settings(max_examples=25, deadline=None)
@given(st.sampled_from([1, 7, 1000, 40_000, 100_000]), st.integers(0, 2**31), st.sampled_from([3, 300, 10**6]))
def test_degree_order_is_a_stable_argsort(n, seed, top):
    # the parallel counting sort (threads above 32 K vertices; degrees from 4096 up
    # sorted apart) against numpy's stable argsort, on skewed degrees
    from graphferry import host_ops

    rng = np.random.default_rng(seed)
    degree = np.minimum(rng.zipf(1.5, n), top).astype(np.int64) - 1
    order, rank = host_ops.degree_order(degree)
    assert np.array_equal(order, np.argsort(degree, kind="stable"))
    assert np.array_equal(rank[order], np.arange(n))


@pytest.mark.parametrize("n", [0, 1, 5, 40_000, 300_001])
def test_prefix_sum_equals_numpy(n):
    from graphferry import host_ops

    counts = np.random.default_rng(n).integers(0, 1000, n)
    assert np.array_equal(host_ops.prefix_sum(counts), np.concatenate([[0], np.cumsum(counts)]))


def test_a_dag_row_past_16_bit_marks():
    # a DAG row of 70 000 vertices (past the CPU kernel's 16-bit marks: its 32-bit path),
    # counted through the counting_dag hook: 0 -> 1..70000 and 1 -> 2..70000 close
    # 69 999 triangles {0, 1, w}
    k = 70_000
    src = np.concatenate([np.zeros(k, np.int64), np.ones(k - 1, np.int64)])
    dst = np.concatenate([np.arange(1, k + 1), np.arange(2, k + 1)])
    dag = Graph.from_edges(src, dst, n=k + 1, directed=True)
    r = triangle_count(dag, backend="cpu", counting_dag=np.ones(k + 1, np.int8))
    want = np.ones(k + 1, np.int64)
    want[:2] = k - 1
    assert r.total == k - 1 and np.array_equal(r.triangles, want)


@pytest.mark.parametrize("n", [0, 3, 50_000])
def test_unpermute_inverts_a_permutation(n):
    from graphferry import host_ops

    rng = np.random.default_rng(n)
    order, values = rng.permutation(n), rng.integers(-5, 5, n)
    want = np.empty(n, np.int64)
    want[order] = values
    assert np.array_equal(host_ops.unpermute(values, order), want)


@settings(max_examples=40, deadline=None)
@given(e=edge_lists(), by_degree=st.booleans())
def test_both_orientations_match_networkx(e, by_degree):
    # the counting DAG oriented by (degree, id) or by id (where relabelling would not
    # pay, as GAPBS tc decides), each forced here whatever the test would choose
    from unittest import mock

    from graphferry.algorithms import triangles

    n, src, dst, directed = e
    g = Graph.from_edges(src, dst, n=n, directed=directed)
    with mock.patch.object(triangles, "_relabelling_pays", return_value=by_degree):
        r = triangle_count(g, backend="cpu")
    want = nx_triangles(n, src, dst)
    assert np.array_equal(r.triangles, want) and r.total == int(want.sum()) // 3


@settings(max_examples=30, deadline=None)
@given(e=edge_lists(), simple=st.booleans())
def test_id_ordered_dag_is_each_row_above_its_vertex(e, simple):
    # by_degree=False: row u holds u's distinct neighbours (either direction) above u, sorted
    from graphferry import host_ops

    n, src, dst, directed = e
    g = Graph.from_edges(src, dst, n=n, directed=directed)
    if simple:
        g = simple_graph(g, undirected=True)
    t = host_ops.unordered_transpose(g.offsets, g.indices) if g.directed else (None, None)
    off, idx, order, _ = host_ops.degree_ordered_dag(g.offsets, g.indices, *t, simple=simple, by_degree=False)
    lo, hi = np.minimum(src, dst), np.maximum(src, dst)
    pairs = sorted(set(zip(lo[lo != hi].tolist(), hi[lo != hi].tolist())))
    got = list(zip(np.repeat(np.arange(n), np.diff(off)).tolist(), idx.tolist()))
    assert got == pairs and np.array_equal(order, np.arange(n))


def test_relabelling_is_chosen_as_gapbs_tc_does():
    from graphferry.algorithms.triangles import _relabelling_pays
    from graphferry.generators import kronecker_graph

    skewed = simple_graph(kronecker_graph(12, seed=1), undirected=True)      # mean degree ~ 30, hubs
    assert _relabelling_pays(skewed.offsets, None)
    r = triangle_count(skewed, backend="cpu")                                 # by degree, against scipy
    verify_triangles(skewed, r.triangles, r.total)
    n = 2000                                                                 # every degree 12
    ring = np.arange(n)
    src = np.concatenate([ring] * 6)
    dst = np.concatenate([(ring + k) % n for k in range(1, 7)])
    even = Graph.from_edges(src, dst, n=n)
    assert not _relabelling_pays(even.offsets, None)
    sparse = Graph.from_edges(np.array([0, 1]), np.array([1, 2]), n=3)      # mean degree under 10
    assert not _relabelling_pays(sparse.offsets, None)
    # a directed graph's degrees count its transpose's rows too
    o, _ = even.offsets, even.indices
    assert not _relabelling_pays(o // 2, o // 2)
    r = triangle_count(even, backend="cpu")                                   # by id, against networkx
    assert np.array_equal(r.triangles, nx_triangles(n, src, dst))


@pytest.mark.gpu
def test_a_gpu_builds_the_counting_dag_as_the_host_does(monkeypatch):
    from graphferry.backends import get_backend
    from graphferry.backends.base import Backend

    monkeypatch.setattr(Backend, "DAG_MIN_ARCS", 0)          # this small graph too is built on the GPU
    from graphferry import host_ops
    from graphferry.generators import kronecker_graph

    skewed = simple_graph(kronecker_graph(12, seed=1), undirected=True)      # relabelled by degree
    want = host_ops.degree_ordered_dag(skewed.offsets, skewed.indices, simple=True)[:3]
    got = get_backend("cuda").degree_ordered_dag(skewed.offsets, skewed.indices)
    assert all(np.array_equal(a, b) and a.dtype == b.dtype for a, b in zip(got, want))
    r = triangle_count(skewed, backend="cuda")
    verify_triangles(skewed, r.triangles, r.total)
