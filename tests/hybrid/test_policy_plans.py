"""The policy's whole plans (issue 37): the per-partition placement weighed, as a plan, against reading
every copied partition in place (the zerocopy engine's plan), so that SSSP's rounds do not swing
with the calibration's error, and no plan the policy picks is priced above the per-partition one."""

from __future__ import annotations

import collections

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.sparse.csgraph import dijkstra

import graphferry as gf
from graphferry.algorithms.sssp import sssp
from graphferry.generators import kronecker_graph
from graphferry.scheduler import Policy
from graphferry.scheduler.cost import Calibration, CostModel
from graphferry.scheduler.policy import Decision
from graphferry.scheduler.stats import PartitionStats

PARTITIONS_AT_K25 = 32 * 2**20  # the library's partition size, at which the H200's calibration was measured


def h200_calibration(zerocopy_scale: float = 1.0, partition_bytes: int = PARTITIONS_AT_K25) -> Calibration:
    """bench/results/calibration-h200.json's figures (the lent H200), the zero-copy rates scaled by
    ``zerocopy_scale`` (a calibration's error on a fresh machine) and the launch cost by the
    partitions' size against the 32 MiB ones of Kronecker 25 (what a launch costs beside a copy)."""
    zc = {32: 17.54e9, 128: 46.53e9, 512: 50.50e9, 4096: 50.37e9}
    rates = {"accumulate/pull": 85.2e9, "accumulate/push": 48.7e9, "relax/pull": 63.3e9, "relax/push": 68.2e9,
             "traversal/pull": 249.2e9, "traversal/push": 75.1e9}
    host = {k: 2e9 for k in rates}
    return Calibration("test: H200", 54.8e9, {k: v * zerocopy_scale for k, v in zc.items()}, 2.86e9, rates, host,
                       2.98e-4 * partition_bytes / PARTITIONS_AT_K25, 1.72e9)


def test_sssp_places_the_same_whatever_the_zero_copy_calibrations_error():
    """Kronecker 15 at 25% of the weighted edge bytes, 160 partitions, launches priced as beside
    Kronecker 25's partitions: with the zero-copy rates halved, the per-partition rule copied
    partitions in the first call whose blocks of their own then took the span's room, and every
    later call moved 1.9x the bytes (7.17 MB against 3.72). Weighed as whole plans, those copies
    are not made. (Not a proof for every graph: at Kronecker 14 a halved rate still fragments the
    residency; which copies are kept is the hybrid's residency, not priced here.)"""
    g = kronecker_graph(15, seed=0, weighted=True)
    wbytes = g.m * 8
    seen = {}
    for scale in (0.5, 1.0, 2.0):
        cal = h200_calibration(scale, wbytes // 160)
        with gf.load(g, backend="cpu", budget=wbytes // 4, partition_bytes=wbytes // 160) as lg:
            for _ in range(3):
                r = sssp(lg, 0, engine="hybrid", policy=Policy(use_cpu=False, calibration=cal))
        placed = collections.Counter(p.engine for s in r.record.edge_steps for p in s.partitions)
        seen[scale] = (r.record.bytes_h2d, dict(placed))
    # the bytes a warm call moves within 5% (the fault was 1.9x; the CPU backend's threads relax in any
    # order, so a round's frontier may differ by a few vertices between runs: 18 lines of 3.7 MB seen
    # under xdist, and the 1% bound this had failed once on a loaded machine); the placements within
    # one partition in twenty (which resident kernels fill the copies' gaps follows the kernels'
    # measured times, on this machine's clock)
    assert max(b for b, _ in seen.values()) <= 1.05 * min(b for b, _ in seen.values()), seen
    for scale in (0.5, 2.0):
        for engine, count in seen[1.0][1].items():
            assert abs(seen[scale][1].get(engine, 0) - count) <= max(2, count // 20), seen
    np.testing.assert_array_equal(r.distances, sssp(g, 0, backend="cpu").distances)


def warm_call_bytes(scale: int, budget_fraction: float, zerocopy_scale: float, single_engine_plans: bool):
    """Bytes the third SSSP call on a loaded Kronecker graph moves (the first calls' copies kept, and
    its distances checked against scipy's), 160 partitions, the H200's figures with its zero-copy
    rates scaled by ``zerocopy_scale``."""
    g = kronecker_graph(scale, seed=0, weighted=True)
    wbytes = g.m * 8
    policy = Policy(use_cpu=False, calibration=h200_calibration(zerocopy_scale, wbytes // 160),
                    single_engine_plans=single_engine_plans)
    with gf.load(g, backend="cpu", budget=int(wbytes * budget_fraction), partition_bytes=wbytes // 160) as lg:
        for _ in range(3):
            r = sssp(lg, 0, engine="hybrid", policy=policy)
    want = dijkstra(g.to_scipy(), indices=0)
    np.testing.assert_allclose(np.where(np.isinf(want), np.inf, r.distances.astype(np.float64)), want, rtol=1e-5)
    return r.record.bytes_h2d


@pytest.mark.parametrize("scale, budget_fraction, single_engine_plans",
                         [(12, 0.25, False), (13, 0.25, False), (14, 0.25, False), (12, 0.1, False), (14, 0.25, True)])
def test_sssp_moves_the_same_bytes_a_call_whatever_the_zero_copy_calibrations_error(
        scale, budget_fraction, single_engine_plans):
    """The residency (issue 37: SSSP's 179 against 396-415 ms at Kronecker 25 on two machines): with
    the zero-copy rates halved, sparse rounds copy partitions the measured rates read in place, and
    their blocks of their own took the room the span would have had (a span of one partition beside
    60 blocks at Kronecker 14); the whole-side plan read those blocks across the bus, and every later
    call moved 2.2-2.7x the bytes at 25% (1.2x at 10%). The span now takes its room from them: a warm
    call moves about the same bytes whatever the error (0.5x to 2x), with or without the
    policy's whole-plan pricing. (Within 15%: the CPU backend's threads relax in any order, so
    which vertices a round activates varies a little from run to run: 1.106x was seen once.)"""
    moved = {z: warm_call_bytes(scale, budget_fraction, z, single_engine_plans) for z in (0.5, 1.0, 2.0)}
    assert max(moved.values()) <= 1.15 * min(moved.values()), moved


@st.composite
def rounds(draw):
    n = draw(st.integers(2, 12))
    part_edges = np.array(draw(st.lists(st.integers(100, 10**7), min_size=n, max_size=n)), dtype=np.float64)
    share = np.array(draw(st.lists(st.floats(0, 1), min_size=n, max_size=n)))
    active_edges = np.floor(part_edges * share)
    active_vertices = np.maximum(np.floor(active_edges / draw(st.floats(1, 64))), (active_edges > 0) * 1.0)
    lines = np.maximum(active_vertices, np.ceil(active_edges * 5 / 128))
    resident = set(draw(st.sets(st.integers(0, n - 1))))
    direction = draw(st.sampled_from(["push", "pull"]))
    return PartitionStats(active_vertices, active_edges, lines, None), part_edges, resident, direction


@given(rounds(), st.floats(0.25, 4.0), st.floats(0.01, 10.0))
@settings(max_examples=150, deadline=None)
def test_no_plan_the_policy_picks_is_priced_above_the_per_partition_one(r, zc_scale, launch_scale):
    stats, part_edges, resident, direction = r
    cal = h200_calibration(zc_scale, int(PARTITIONS_AT_K25 * launch_scale))
    ctx = Decision(stats, [None] * len(part_edges), resident, [], direction, "min", 5, 8, 0, 0,
                   partition_edges=part_edges, range_bytes_per_edge=4.125)
    model = CostModel(cal)
    per_partition = Policy(single_engine_plans=False).decide(ctx, model)
    chosen = Policy().decide(ctx, model)
    policy = Policy()
    assert policy.plan_seconds(ctx, model, chosen) <= policy.plan_seconds(ctx, model, per_partition) * (1 + 1e-12)
    # nor above what zerocopy or filter alone would do with every partition not resident
    for single in Policy.SINGLE_ENGINES:
        alone = {i: (0, "resident" if i in resident else single) for i in chosen}
        assert policy.plan_seconds(ctx, model, chosen) <= policy.plan_seconds(ctx, model, alone) * (1 + 1e-12)
    # a resident partition stays resident, and a partition placed differently is on one engine
    for i, (ex, engine) in chosen.items():
        assert (engine == "resident") == (i in resident)
        assert engine == per_partition[i][1] or engine in Policy.SINGLE_ENGINES


@given(rounds(), st.floats(0.25, 4.0))
@settings(max_examples=100, deadline=None)
def test_a_resident_partition_alone_is_never_priced_above_moving_it(r, zc_scale):
    """More budget is never dearer for one partition: resident, it costs its kernels and a launch;
    moved, its transfer on top of the same."""
    stats, part_edges, _, direction = r
    model = CostModel(h200_calibration(zc_scale))
    policy = Policy()
    for i in np.flatnonzero(stats.active_edges > 0)[:4]:
        ctx = Decision(stats, [None] * len(part_edges), set(), [], direction, "min", 5, 8, 0, 0,
                       partition_edges=part_edges, range_bytes_per_edge=4.125)
        moved = policy.decide(ctx, model)[int(i)]
        assert policy.plan_seconds(ctx, model, {int(i): (0, "resident")}) <= \
            policy.plan_seconds(ctx, model, {int(i): moved})


@given(st.lists(st.tuples(st.integers(1, 50), st.floats(0.001, 10.0)), min_size=1, max_size=30), st.integers(0, 400))
@settings(max_examples=200, deadline=None)
def test_the_span_window_is_the_most_valuable_run_that_fits(parts, room):
    """The span's window (residency._best_window) against every run of consecutive partitions."""
    from graphferry.scheduler.residency import _best_window

    edges = np.array([e for e, _ in parts], dtype=np.int64)
    worth = np.array([w for _, w in parts])
    a, z = _best_window(worth, edges, room)
    runs = [(worth[i:j].sum(), i, j) for i in range(len(parts)) for j in range(i + 1, len(parts) + 1)
            if edges[i:j].sum() <= room]
    if not runs:
        assert z <= a
        return
    assert edges[a:z].sum() <= room and z > a
    assert worth[a:z].sum() >= max(r[0] for r in runs) * (1 - 1e-9)


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_where_the_bounds_say_only_in_place_pricing_copies_nothing_whole_and_moves_nothing_to_the_cpu(data):
    """``Policy.only_in_place`` answers from bounds (each partition's lines at the dearest price a line
    has, its whole copy, the exchange a CPU executor would need) whether pricing every partition would
    place any to be copied whole (filter, or the filter plan) or on a CPU executor. Wherever it says
    True, ``decide`` reads every partition the device does not hold in place or gathers it (the
    hybrid then runs its whole-side plan unpriced); over random rounds, H200-like and nominal rates."""
    from graphferry.scheduler.executors import Executor

    n = data.draw(st.integers(1, 24))
    part_edges = np.array(data.draw(st.lists(st.integers(1, 10**7), min_size=n, max_size=n)), dtype=np.int64)
    active_edges = np.array([data.draw(st.integers(0, int(e))) for e in part_edges], dtype=np.int64)
    active_vertices = np.where(active_edges > 0, np.maximum(1, active_edges // 8), 0)
    lines = np.array([data.draw(st.integers(int(e > 0), max(1, int(e) // 4))) if e else 0 for e in active_edges],
                     dtype=np.int64)
    held = set(data.draw(st.lists(st.integers(0, n - 1), max_size=n, unique=True)))
    cpu = data.draw(st.booleans())
    executors = [Executor("gpu0", None, True)] + ([Executor("cpu", None, False)] if cpu else [])
    state_bytes = data.draw(st.integers(0, 10**9))
    exchange = {1: float(data.draw(st.integers(0, 10**9)))} if cpu and data.draw(st.booleans()) else {}
    cal = data.draw(st.sampled_from([Calibration.nominal(), h200_calibration(1.0, data.draw(st.integers(2**16, 2**26)))]))
    stats = PartitionStats(active_vertices, active_edges, lines, None)
    ctx = Decision(stats, [None] * n, held, executors, data.draw(st.sampled_from(["push", "pull"])), "min", 8, 4,
                   state_bytes, 3, exchange, partition_edges=part_edges, range_bytes_per_edge=data.draw(st.sampled_from([None, 4.125])),
                   copy_slots=data.draw(st.booleans()))
    policy, model = Policy(), CostModel(cal)
    if not policy.only_in_place(ctx, model):
        return
    placed = policy.decide(ctx, model)
    assert set(placed) == set(stats.active().tolist())
    for i, (ex, engine) in placed.items():
        assert ex == 0, (i, ex, engine)
        assert engine in ({"resident"} if i in held else {"zerocopy", "compaction"}), (i, engine)


def test_the_hybrids_sparse_rounds_the_bounds_answer_are_the_ones_pricing_reads_in_place(monkeypatch):
    """The hybrid takes the bounds' answer instead of pricing a sparse round where they say every
    partition it does not hold is read in place or gathered (its whole-side plan runs for either).
    In the calls (SSSP and BFS, a CPU executor beside the simulated device), every round they
    answered was priced too: none placed a partition on the CPU or copied one whole; the answers
    are scipy's."""
    from scipy.sparse.csgraph import shortest_path

    from graphferry.algorithms.bfs import bfs

    only = Policy.only_in_place
    seen = {"bounded": 0, "wrong": []}

    def checked(self, ctx, model):
        answer = only(self, ctx, model)
        if answer:
            seen["bounded"] += 1
            held = set(ctx.resident)
            seen["wrong"] += [(i, ex, engine) for i, (ex, engine) in self.decide(ctx, model).items()
                              if ex != 0 or engine not in ({"resident"} if i in held else {"zerocopy", "compaction"})]
        return answer

    monkeypatch.setattr(Policy, "only_in_place", checked)
    for weighted in (True, False):
        g = kronecker_graph(14, seed=3, weighted=weighted)
        source = int(np.argmax(np.diff(g.offsets)))
        with gf.load(g, backend="cpu", budget=g.m * 8 // 4, partition_bytes=g.m * 8 // 16) as lg:
            for _ in range(3):
                if weighted:
                    np.testing.assert_allclose(sssp(lg, source, engine="hybrid").distances,
                                               dijkstra(g.to_scipy(), indices=source), rtol=1e-5)
                else:
                    levels = bfs(lg, source, engine="hybrid").levels
                    hops = shortest_path(g.to_scipy(), unweighted=True, indices=source)
                    np.testing.assert_array_equal(levels, np.where(np.isinf(hops), -1, hops).astype(levels.dtype))
    assert seen["bounded"] > 0 and not seen["wrong"], seen
