"""The runtime's primitives over frontiers and vertex state, against numpy / Python sets."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from partition_counts import partition_counts_cases, partition_counts_oracle

from graphferry import Graph, host_ops
from graphferry.backends.cpu.backend import CpuBackend
from graphferry.runtime import Frontier, Program, Runtime
from graphferry.runtime.direction import ALPHA, BETA, DirectionHistory, choose_direction

STATE = Program("prim_test", arrays={"x": "float64", "k": "int32"}, source="""
GF_FN bool cond(const State& S, vid_t d) { return true; }
GF_FN bool update_atomic(const State& S, vid_t s, vid_t d, float w) { return false; }
""")

id_sets = st.integers(1, 300).flatmap(lambda n: st.tuples(
    st.just(n), st.sets(st.integers(0, n - 1)), st.sets(st.integers(0, n - 1))))


@settings(max_examples=60, deadline=None)
@given(id_sets)
def test_frontier_set_operations_match_python_sets(case):
    n, a, b = case
    be = CpuBackend()
    fa, fb = Frontier.from_ids(be, n, sorted(a)), Frontier.from_ids(be, n, sorted(b))
    assert (fa | fb).ids.tolist() == sorted(a | b)
    assert (fa & fb).ids.tolist() == sorted(a & b)
    assert (fa - fb).ids.tolist() == sorted(a - b)
    everyone = Frontier.all(be, n)
    assert len(fa | everyone) == n and (fa - everyone).ids.tolist() == []
    assert (everyone - fb).ids.tolist() == sorted(set(range(n)) - b)
    assert (everyone & fb).ids.tolist() == sorted(b)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 5000), st.floats(0, 1), st.integers(0, 2**31))
def test_bitmap_helpers_match_numpy(n, p, seed):
    rng = np.random.default_rng(seed)
    ids = np.flatnonzero(rng.random(n) < p)
    words = (n + 31) // 32
    bits = host_ops.ids_to_bits(ids, words)
    flags = np.zeros(words * 32, np.uint8)
    flags[ids] = 1
    assert np.array_equal(bits, np.packbits(flags, bitorder="little").view(np.uint32))
    assert np.array_equal(host_ops.bits_to_ids(bits), ids)
    assert host_ops.popcount(bits) == len(ids)
    offsets = np.r_[0, np.cumsum(rng.integers(0, 50, n))].astype(np.int64)
    want = int((offsets[ids + 1] - offsets[ids]).sum())
    assert host_ops.degree_sum(offsets, bits=bits) == host_ops.degree_sum(offsets, ids=ids) == want


def test_large_bitmaps_take_the_parallel_path():
    rng = np.random.default_rng(1)
    n = 1 << 22  # above the serial threshold of the helpers
    ids = np.flatnonzero(rng.random(n) < 0.3)
    bits = host_ops.ids_to_bits(ids, n // 32)
    assert np.array_equal(host_ops.bits_to_ids(bits), ids)
    assert host_ops.popcount(bits) == len(ids)


def test_state_reductions_gathers_scatters_and_selection():
    rng = np.random.default_rng(3)
    n = 200
    x = rng.random(n)
    g = Graph.from_edges(np.array([0]), np.array([1]), n=n)
    with Runtime(g, backend="cpu") as rt:
        st_ = rt.start(STATE, arrays={"x": x, "k": 7})
        f = rt.frontier([3, 50, 199])
        assert st_.reduce("x", "sum") == pytest.approx(x.sum())
        assert st_.reduce("x", "min", f) == x[[3, 50, 199]].min()
        assert st_.reduce("x", "max", f) == x[[3, 50, 199]].max()
        assert st_.reduce("k", "sum") == 7 * n
        empty = Frontier.empty(rt.backend, n)
        assert st_.reduce("x", "sum", empty) == 0 and st_.reduce("x", "min", empty) is None
        with pytest.raises(ValueError, match="op must be"):
            st_.reduce("x", "mean")
        st_.assign("k", [1, 2], [10, 20])
        st_.assign("x", [5], 0.25)
        assert st_.gather("k", [0, 1, 2]).tolist() == [7, 10, 20]
        assert st_.gather("x", rt.frontier([5])).tolist() == [0.25]
        x[5] = 0.25
        sel = st_.select("x", 0.2, 0.6)
        assert sel.ids.tolist() == np.flatnonzero((x >= 0.2) & (x < 0.6)).tolist()
        sub = st_.select("x", 0.2, 0.6, f)
        assert sub.ids.tolist() == [v for v in (3, 50, 199) if 0.2 <= x[v] < 0.6]


VISIT = Program("vmap_visit_test", arrays={"k": "int32"}, vertex_functions=("visit",), source="""
GF_FN bool cond(const State& S, vid_t d) { return true; }
GF_FN bool update_atomic(const State& S, vid_t s, vid_t d, float w) { return false; }
GF_FN bool visit(const State& S, vid_t v) { S.k[v] += 1; return v % 3 == 0; }
""")


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 20000), st.floats(0, 1), st.integers(0, 2**31), st.sampled_from(["bits", "ids"]))
def test_vertex_map_visits_exactly_its_frontier(n, p, seed, form):
    """A frontier given as a bitmap only (read in place by the kernel when dense, listed when
    sparse) or as ids: every vertex in it is visited once, none outside, and the output is
    the visited vertices the function kept."""
    rng = np.random.default_rng(seed)
    ids = np.flatnonzero(rng.random(n) < p)
    g = Graph.from_edges(np.array([0]), np.array([0]), n=n)
    with Runtime(g, backend="cpu") as rt:
        st_ = rt.start(VISIT, arrays={"k": 0})
        if form == "bits":
            f = Frontier(rt.backend, n, bits=host_ops.ids_to_bits(ids, (n + 31) // 32))
        else:
            f = rt.frontier(ids)
        kept = st_.vertex_map("visit", f)
        want = np.zeros(n, np.int32)
        want[ids] = 1
        assert np.array_equal(st_.gather("k", np.arange(n)), want)
        assert kept.ids.tolist() == ids[ids % 3 == 0].tolist()
        everyone = st_.vertex_map("visit")
        assert np.array_equal(st_.gather("k", np.arange(n)), want + 1)
        assert everyone.ids.tolist() == list(range(0, n, 3))


def test_vector_properties_one_row_per_vertex():
    n = 10
    g = Graph.from_edges(np.array([0]), np.array([1]), n=n)
    rows = np.arange(3 * n, dtype=np.float64).reshape(n, 3)
    with Runtime(g, backend="cpu") as rt:
        st_ = rt.start(STATE, arrays={"x": rows})
        st_.assign_entries("x", [2, 7], [0, 2], [-1.0, -2.0])
        got = st_.host("x")
        with pytest.raises(ValueError, match="entries"):
            rt.start(STATE, arrays={"x": np.zeros((n + 1, 3))})
    want = rows.copy()
    want[2, 0], want[7, 2] = -1.0, -2.0
    assert got.shape == (n, 3) and np.array_equal(got, want)


class Both:
    has_push = has_pull = True
    name = "both"


def test_direction_rule_follows_gapbs_with_history():
    m, n = 1_000_000, 10_000
    h = DirectionHistory(m=m, n=n)
    assert choose_direction(Both(), 1, 1_000, m, history=h) == "push"
    assert h.unscanned == m - 1_000
    # the frontier's edges pass the unscanned edges / alpha: pull
    assert choose_direction(Both(), 500, (m - 1_000) // ALPHA + 1, m, history=h) == "pull"
    # growing: keep pulling even when small
    assert choose_direction(Both(), 501, 10, m, history=h) == "pull"
    # shrinking but above n / beta: keep pulling
    assert choose_direction(Both(), n // BETA + 1, 10, m, history=h) == "pull"
    # shrinking and at most n / beta: push again
    assert choose_direction(Both(), n // BETA - 1, 10, m, history=h) == "push"


def test_direction_history_restarts_when_pushes_scan_more_than_m():
    h = DirectionHistory(m=100, n=10)
    h.note("push", 5, 90)
    h.note("push", 5, 20)   # re-activated vertices: more than m edges scanned in all
    assert h.unscanned == 100


def test_bfs_switches_like_gapbs_on_a_kronecker_graph():
    from graphferry.algorithms import bfs
    from graphferry.generators import kronecker_graph

    g = kronecker_graph(12)
    src = int(np.argmax(g.out_degree))
    r = bfs(g, src, backend="cpu")
    dirs = [s.direction for s in r.record.edge_steps]
    assert dirs[0] == "push" and "pull" in dirs and dirs[-1] == "push"
    # once it pulls, it pushes again only after the frontier shrinks below n / beta
    for prev, cur in zip(r.record.edge_steps, r.record.edge_steps[1:]):
        if prev.direction == "pull" and cur.direction == "push":
            assert cur.active_vertices < prev.active_vertices and cur.active_vertices * BETA <= g.n


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 400), st.floats(0.01, 50), st.integers(0, 2**31), st.booleans(),
       st.sampled_from([np.float32, np.float64]))
def test_bucket_grouping_matches_a_numpy_sort(k, delta, seed, wide, dtype):
    from graphferry.backends.base import Backend

    rng = np.random.default_rng(seed)
    n = 500
    values = (rng.random(n) * (1e6 if wide else 100.0)).astype(dtype)  # wide: sparse keys, the sorting path
    ids = np.sort(rng.choice(n, size=min(k, n), replace=False)).astype(np.int64)
    cpu = CpuBackend()
    grouped, keys, bounds = cpu.split_by_bucket(ids, values, delta)
    want_keys = np.floor(values[ids].astype(np.float64) / delta).astype(np.int64)
    order = np.argsort(want_keys, kind="stable")
    assert np.array_equal(grouped, ids[order])
    assert keys == sorted(set(want_keys.tolist())) and bounds[0] == 0 and bounds[-1] == len(ids)
    for key, a, z in zip(keys, bounds[:-1], bounds[1:]):
        assert (np.floor(values[grouped[a:z]].astype(np.float64) / delta) == key).all() and z > a
    # the backend-neutral (array module) path gives the same grouping
    g2, k2, b2 = Backend.split_by_bucket(cpu, ids, values, delta)
    assert np.array_equal(g2, grouped) and k2 == keys and b2 == bounds
    key = keys[0]
    assert cpu.keep_bucket(ids, values, delta, key).tolist() == ids[want_keys == key].tolist()


def test_state_initialisers():
    g = Graph.from_edges(np.array([0]), np.array([1]), n=5)
    prog = Program("init_test", arrays={"a": "vid", "b": "float32", "c": "int64"}, source="")
    with Runtime(g, backend="cpu") as rt:
        given = np.array([1, 2, 3, 4, 5], np.int64)
        s = rt.start(prog, arrays={"a": "vertex_ids", "b": 0.5, "c": given})
        assert s.host("a").tolist() == [0, 1, 2, 3, 4] and s.host("a").dtype == g.indices.dtype
        assert s.host("b").tolist() == [0.5] * 5 and s.host("b").dtype == np.float32
        assert s.host("c").tolist() == given.tolist()
        s.assign("c", [0], 9)
        assert given[0] == 1   # the caller's array was copied, not aliased


def test_bucket_helpers_take_the_parallel_path():
    rng = np.random.default_rng(2)
    n = 1 << 20
    values = rng.random(n) * 40
    ids = np.sort(rng.choice(n, 400_000, replace=False)).astype(np.int64)  # above the serial threshold
    keys = np.floor(values[ids] / 3.0).astype(np.int64)
    grouped, got_keys, bounds = CpuBackend().split_by_bucket(ids, values, 3.0)
    assert np.array_equal(grouped, ids[np.argsort(keys, kind="stable")])
    assert got_keys == sorted(set(keys.tolist()))
    assert np.array_equal(host_ops.bucket_keep(ids, values, 3.0, 5), ids[keys == 5])


@pytest.mark.parametrize("dense", [False, True])
def test_bucket_pop_merges_up_to_fill(dense, monkeypatch):
    from graphferry.runtime.buckets import PriorityBuckets

    monkeypatch.setattr(CpuBackend, "dense_buckets", dense)
    g = Graph.from_edges(np.array([0]), np.array([1]), n=8)
    p = Program("bucket_fill_test", arrays={"x": "float64"}, source="")
    values = np.array([0.5, 7.0, 2.5, 2.0, np.inf, 9.0, 4.1, 4.2])
    with Runtime(g, backend="cpu") as rt:
        st = rt.start(p, arrays={"x": values})
        popped = {}
        for fill in (1, 3, 100):
            b = PriorityBuckets(st, "x", delta=2.0, fill=fill)
            b.add(rt.frontier([0, 1, 2, 3, 5, 6, 7]))
            popped[fill] = []
            while (f := b.pop()) is not None:
                popped[fill].append(f.ids.tolist())
    assert popped[1] == [[0], [2, 3], [6, 7], [1], [5]]
    assert popped[3] == [[0, 2, 3], [1, 6, 7], [5]]   # whole buckets, 3 vertices or more while any remain
    assert popped[100] == [[0, 1, 2, 3, 5, 6, 7]]


@settings(max_examples=40, deadline=None)
@given(dtype=st.sampled_from([np.int32, np.int64, np.float32, np.float64]), big=st.booleans(),
       use_ids=st.booleans(), seed=st.integers(0, 2**16), op=st.sampled_from(["sum", "min", "max"]))
def test_state_passes_match_numpy(dtype, big, use_ids, seed, op):
    # the CPU backend's reduce / select / convert (C++, parallel above 2**18 entries) against numpy
    rng = np.random.default_rng(seed)
    n = (1 << 18) + 3 if big else int(rng.integers(1, 300))  # just above 2**18: the parallel path
    arr = (rng.integers(-50, 50, n) if np.dtype(dtype).kind == "i" else rng.normal(size=n) * 20).astype(dtype)
    ids = np.sort(rng.choice(n, size=int(rng.integers(0, n + 1)), replace=False)) if use_ids else None
    vals = arr if ids is None else arr[ids]
    got = host_ops.reduce(arr, op, ids)
    if len(vals) == 0:
        assert got == (0 if op == "sum" else None)
    elif op == "sum":
        want = vals.astype(np.float64 if np.dtype(dtype).kind == "f" else np.int64).sum()
        assert np.isclose(got, want, rtol=1e-9, atol=1e-6)
    else:
        assert got == getattr(vals, op)()
    lo, hi = -10.5, 7.0
    want_sel = np.flatnonzero((vals >= lo) & (vals < hi))
    if ids is not None:
        want_sel = ids[want_sel]
    assert np.array_equal(host_ops.select(arr, lo, hi, ids), want_sel)
    for to in (np.int64, np.float64, np.float32, np.int32):
        if np.dtype(dtype).kind == "f" and np.dtype(to).kind == "i":
            continue  # float to int casts differ outside range; the runtime converts ints and floats up
        c = host_ops.convert(arr, to)
        assert c.dtype == to and np.array_equal(c, arr.astype(to))
    u = rng.integers(0, n, int(rng.integers(0, 2 * n)))
    assert np.array_equal(CpuBackend().sorted_unique(u, n), np.flatnonzero(np.bincount(u, minlength=n)))  # = np.unique, O(n)


@pytest.mark.parametrize("n", [1, 31, 33, 1000, (1 << 18) + 5])
def test_select_bits_matches_numpy(n):
    rng = np.random.default_rng(n)
    for dtype in (np.int32, np.int64, np.float32, np.float64):
        arr = rng.integers(-9, 9, n).astype(dtype)
        bits = host_ops.select_bits(arr, -2, 3.5)
        assert len(bits) == (n + 31) // 32
        assert np.array_equal(host_ops.bits_to_ids(bits), np.flatnonzero((arr >= -2) & (arr < 3.5)))


def test_bits_degree_sum_counts_a_bitmaps_vertices_and_their_degrees():
    # the generic form (ids listed, degrees gathered) that a device backend replaces with one kernel
    from graphferry.backends import get_backend

    b = get_backend("cpu")
    rng = np.random.default_rng(5)
    for n in (1, 32, 33, 1000):
        ids = np.unique(rng.integers(0, n, max(1, n // 4)))
        deg = rng.integers(0, 50, n)
        assert b.bits_degree_sum(b.bits_from_ids(ids, n), deg, n) == (len(ids), int(deg[ids].sum()))


def test_partition_counts_equal_a_plain_loop():
    from graphferry.backends import get_backend

    b = get_backend("cpu")
    for ids, offsets, bounds, sizes in partition_counts_cases():
        got = b.partition_counts(ids, offsets, bounds, sizes)
        assert np.array_equal(got, partition_counts_oracle(ids, offsets, bounds, sizes))
