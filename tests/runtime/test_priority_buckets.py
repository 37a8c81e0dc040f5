"""ProgramState.edge_map_buckets (delta-stepping's rounds over PriorityBuckets) against scipy's Dijkstra.

On the CPU backend's ``host`` engine every round runs in one backend call
(per-thread buckets, bucket fusion, a window of keys with far entries beyond
it); elsewhere the runtime loops pop / edge_map / add. Both must give the
distances of a heap-based Dijkstra (scipy.sparse.csgraph) exactly, from one
source or several, at any bucket width and thread count.
"""

import ctypes
import ctypes.util

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from graphferry import Graph
from graphferry.algorithms.sssp import PROGRAMS
from graphferry.runtime import PriorityBuckets, Runtime

from conftest import dijkstra_distances, tiny_budget_options


oracle = dijkstra_distances  # scipy's, from the nearest source


def run_buckets(g: Graph, sources, delta: float, precision: str = "float64", **options):
    """Distances from ``sources`` by edge_map_buckets, and the run's record."""
    with Runtime(g, **({"backend": "cpu"} | options)) as rt:
        st_ = rt.start(PROGRAMS[precision], arrays={"dist": np.inf})
        st_.assign("dist", list(sources), 0.0)
        buckets = PriorityBuckets(st_, "dist", delta)
        buckets.add(rt.frontier(list(sources)))
        rounds = st_.edge_map_buckets(buckets)
        assert not buckets          # every bucket was emptied
        dist = st_.host("dist", np.float64)
    return dist, rounds, rt.record


@st.composite
def weighted_graphs(draw, max_n=120, max_m=600):
    n = draw(st.integers(1, max_n))
    m = draw(st.integers(0, max_m))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    kind = draw(st.sampled_from(["unweighted", "int", "real", "zeros", "wide"]))
    w = {
        "unweighted": None,
        "int": rng.integers(0, 6, m).astype(float),                   # ties and zero weights
        "real": rng.uniform(0, 10, m),
        "zeros": np.where(rng.random(m) < 0.5, 0.0, rng.uniform(0, 1, m)),
        "wide": rng.integers(1, 100_000, m).astype(float),            # keys far beyond one window
    }[kind]
    g = Graph.from_edges(rng.integers(0, n, m), rng.integers(0, n, m), w, n=n,
                         directed=draw(st.booleans()))
    sources = sorted(set(draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=3))))
    return g, sources


def close(got, want):
    assert np.array_equal(np.isinf(got), np.isinf(want))
    fin = np.isfinite(want)
    np.testing.assert_allclose(got[fin], want[fin], rtol=1e-12, atol=1e-9)


@settings(max_examples=80, deadline=None)
@given(case=weighted_graphs(), delta=st.sampled_from([1e-3, 0.3, 2.0, 50.0, float("inf")]))
def test_one_call_buckets_match_dijkstra(case, delta):
    g, sources = case
    dist, rounds, record = run_buckets(g, sources, delta)
    close(dist, oracle(g, sources))
    assert record.extra["bucket_rounds"] == rounds   # the backend ran every round itself
    assert len(record.edge_steps) == 1


@settings(max_examples=30, deadline=None)
@given(case=weighted_graphs(max_n=60, max_m=300), delta=st.sampled_from([0.3, 2.0, float("inf")]))
def test_round_by_round_buckets_match_dijkstra(case, delta):
    # a budget that splits the graph into many partitions: the runtime loops pop / edge_map / add
    g, sources = case
    dist, rounds, record = run_buckets(g, sources, delta, **tiny_budget_options("filter"))
    close(dist, oracle(g, sources))
    assert "bucket_rounds" not in record.extra and len(record.edge_steps) == rounds


def test_integer_weights_in_float32_are_exact():
    rng = np.random.default_rng(3)
    n, m = 2000, 16000
    g = Graph.from_edges(rng.integers(0, n, m), rng.integers(0, n, m), rng.integers(1, 256, m).astype(float), n=n)
    for delta in (1.0, 4.0, 32.0):
        dist, _, _ = run_buckets(g, [0, 7], delta, precision="float32")
        assert np.array_equal(dist, oracle(g, [0, 7]))


def test_window_moves_past_far_and_stale_entries():
    # a chain of heavy arcs takes keys far past one window of buckets (4096 at delta 1), and a
    # direct arc files vertex 40 far ahead before the chain reaches it cheaper (a stale far entry)
    k = 60
    src = np.r_[np.arange(k - 1), 0, 40]
    dst = np.r_[np.arange(1, k), 40, k]
    w = np.r_[np.full(k - 1, 1000.0), 10_000_000.0, 3.0]
    g = Graph.from_edges(src, dst, w, n=k + 1)
    dist, rounds, record = run_buckets(g, [0], 1.0)
    assert np.array_equal(dist, oracle(g, [0]))
    assert dist[40] == 40_000.0 and dist[k] == 40_003.0
    assert record.extra["bucket_rounds"] == rounds >= k


def _omp_threads(count: int | None = None) -> int:
    """The OpenMP team size of later parallel regions started by this thread (set it when given)."""
    gomp = ctypes.CDLL(ctypes.util.find_library("gomp") or "libgomp.so.1")
    before = gomp.omp_get_max_threads()
    if count is not None:
        gomp.omp_set_num_threads(count)
    return before


@pytest.mark.parametrize("threads", [1, 3, 8])
def test_any_thread_count_gives_dijkstra(threads):
    # more threads than cores interleave the per-thread buckets and barriers in many ways
    rng = np.random.default_rng(threads)
    n, m = 3000, 30000
    g = Graph.from_edges(rng.integers(0, n, m), rng.integers(0, n, m), rng.uniform(0, 50, m), n=n,
                         directed=False)
    before = _omp_threads(threads)
    try:
        for delta in (0.5, 5.0, 500.0):
            dist, _, _ = run_buckets(g, [1, 2], delta)
            close(dist, oracle(g, [1, 2]))
    finally:
        _omp_threads(before)
