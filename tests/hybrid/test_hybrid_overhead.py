"""Issue 37: a hybrid whose overhead vanishes as the budget grows.

With a budget that holds the whole edge side, every partition would be resident: the hybrid
then runs the resident engine's own maps, so it issues the same backend calls (copies into the
device, edge kernels over the same views) as the ``resident`` engine, counted here on the CPU
backend's simulated device. At every budget from 1% to 100% the answers are the same, checked
against networkx (BFS levels, components) and scipy (shortest paths), PageRank against
networkx's pagerank through the registry's verifier.
"""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from scipy.sparse.csgraph import dijkstra

import graphferry as gf
from graphferry.algorithms import bfs, pagerank_ldbc, sssp, verify_pagerank, wcc
from graphferry.backends.cpu.backend import CpuBackend, CpuProgram
from graphferry.generators import kronecker_graph

RUNS = {
    "bfs": lambda lg, **kw: bfs(lg, 0, **kw).levels,
    "sssp": lambda lg, **kw: sssp(lg, 0, **kw).distances,
    "pagerank": lambda lg, **kw: pagerank_ldbc(lg, damping=0.85, iterations=8, **kw).ranks,
    "wcc": lambda lg, **kw: wcc(lg, **kw).labels,
}


def _graph(algorithm):
    return kronecker_graph(10, seed=7, weighted=algorithm == "sssp")


def _budget(g, fraction: float) -> int:
    """``fraction`` of the edges' bytes as issue 37 counts them: m x 8."""
    return max(1, int(fraction * g.m * 8))


@pytest.fixture
def calls(monkeypatch):
    """Every copy into the device and every edge kernel, in order, with what it read."""
    seen: list[tuple] = []
    copy_h2d = CpuBackend.copy_h2d

    def counted_copy(self, dst, src, after=None):
        seen.append(("copy", int(np.asarray(src).nbytes)))
        return copy_h2d(self, dst, src, after=after)

    def edge(kind):
        original = getattr(CpuProgram, kind)

        def counted(self, tables, view, row_list, in_bits, out_bits):
            seen.append((kind, view.lo, view.rows, view.edge_base, int(view.indices.size),
                         None if row_list is None else len(row_list), in_bits is None))
            return original(self, tables, view, row_list, in_bits, out_bits)
        return counted

    neighbor_map = CpuProgram.neighbor_map

    def counted_neighbor_map(self, fn, tables, g, gt, lo, hi, out):
        seen.append(("neighbor_map", fn, lo, hi, int(np.asarray(g.indices).size)))
        return neighbor_map(self, fn, tables, g, gt, lo, hi, out)

    monkeypatch.setattr(CpuBackend, "copy_h2d", counted_copy)
    monkeypatch.setattr(CpuProgram, "neighbor_map", counted_neighbor_map)
    monkeypatch.setattr(CpuProgram, "push", edge("push"))
    monkeypatch.setattr(CpuProgram, "pull", edge("pull"))
    return seen


@pytest.mark.parametrize("algorithm", sorted(RUNS))
def test_at_a_budget_that_holds_the_edges_the_hybrid_calls_what_resident_does(algorithm, calls):
    g = _graph(algorithm)
    run = RUNS[algorithm]
    per_engine = {}
    for engine in ("resident", "hybrid"):
        with gf.load(g, backend="cpu", budget=_budget(g, 1.0), partition_bytes=g.m // 4) as lg:
            run(lg, engine=engine)          # the first call copies the edges, the second reads them
            first = list(calls)
            calls.clear()
            answer = run(lg, engine=engine)
            per_engine[engine] = (first, list(calls), np.asarray(answer))
            calls.clear()
    (res_first, res_again, res_answer), (hyb_first, hyb_again, hyb_answer) = per_engine["resident"], per_engine["hybrid"]
    assert sum(c[0] in ("push", "pull") for c in res_first) > 1   # kernels over several partitions
    assert hyb_first == res_first          # the same copies and kernels, in the same order
    assert hyb_again == res_again
    assert not any(c[0] == "copy" for c in hyb_again)   # resident: later calls move nothing
    assert np.array_equal(hyb_answer, res_answer)


def test_one_side_at_a_time_in_the_budget_the_hybrid_calls_what_resident_does(calls):
    """At 100% of m x 8 the unweighted side (m x 4) and the weighted one (m x 4 ids and narrowed
    weights) do not fit together. The resident engine alone evicts the idle one; the hybrid must
    too: BFS, then SSSP, PageRank and WCC on one loaded graph, as the budget sweep runs them, each
    call making the copies and kernels the resident engine makes in the same sequence. Before,
    the side BFS held whole kept its room, and SSSP at 100% ran the hybrid's plan in the half
    left (copies every call, a launch per partition). Answers: networkx, scipy."""
    g = kronecker_graph(10, seed=7, weighted=True)
    source = int(np.argmax(g.out_degree))
    sequence = {"bfs": lambda lg, **kw: bfs(lg, source, **kw).levels,
                "sssp": lambda lg, **kw: sssp(lg, source, **kw).distances,
                "pagerank": RUNS["pagerank"], "wcc": RUNS["wcc"]}
    seen = {}
    for engine in ("resident", "hybrid"):
        with gf.load(g, backend="cpu", budget=_budget(g, 1.0), partition_bytes=g.m // 4) as lg:
            for name, run in sequence.items():
                for call in ("first", "again"):
                    calls.clear()
                    answer = np.asarray(run(lg, engine=engine))
                    seen[engine, name, call] = (list(calls), answer)
            assert lg.arena.used_bytes <= lg.arena.budget_bytes
    for name in sequence:
        res_first, hyb_first = seen["resident", name, "first"], seen["hybrid", name, "first"]
        res_again, hyb_again = seen["resident", name, "again"], seen["hybrid", name, "again"]
        assert hyb_first[0] == res_first[0], name   # the same copies and kernels, in the same order
        assert hyb_again[0] == res_again[0], name
        assert not any(c[0] == "copy" for c in hyb_again[0]), name
        assert np.array_equal(hyb_again[1], res_again[1]), name
    assert any(c[0] == "copy" for c in seen["hybrid", "sssp", "first"][0])   # the weighted side copied in
    G = nx.DiGraph()
    G.add_nodes_from(range(g.n))
    G.add_edges_from(zip(*(a.tolist() for a in g.edges())))
    depth = nx.single_source_shortest_path_length(G, source)
    got = seen["hybrid", "bfs", "again"][1]
    assert np.array_equal(np.where(got < 0, -1, got), [depth.get(v, -1) for v in range(g.n)])
    want = dijkstra(g.to_scipy(), indices=source)
    np.testing.assert_allclose(seen["hybrid", "sssp", "again"][1].astype(np.float64), want, rtol=1e-6)
    verify_pagerank(g, seen["hybrid", "pagerank", "again"][1], damping=0.85, iterations=8)


def _check(algorithm, g, got):
    if algorithm == "bfs":
        G = nx.DiGraph()
        G.add_nodes_from(range(g.n))
        G.add_edges_from(zip(*(a.tolist() for a in g.edges())))
        depth = nx.single_source_shortest_path_length(G, 0)
        want = np.array([depth.get(v, -1) for v in range(g.n)])
        assert np.array_equal(np.where(got < 0, -1, got), want)
    elif algorithm == "sssp":
        want = dijkstra(g.to_scipy(), indices=0)
        assert np.allclose(np.asarray(got, dtype=np.float64), want, rtol=1e-6)
    elif algorithm == "wcc":
        G = nx.Graph()
        G.add_nodes_from(range(g.n))
        G.add_edges_from(zip(*(a.tolist() for a in g.edges())))
        label_of = {}
        for comp in nx.connected_components(G):
            labels = {int(got[v]) for v in comp}
            assert len(labels) == 1
            label_of.setdefault(labels.pop(), comp)
        assert len(label_of) == nx.number_connected_components(G)
    else:
        verify_pagerank(g, got, damping=0.85, iterations=8)


@pytest.mark.parametrize("algorithm", sorted(RUNS))
def test_the_hybrids_answers_are_the_same_at_every_budget(algorithm):
    g = _graph(algorithm)
    answers = []
    for fraction in (0.01, 0.05, 0.25, 0.5, 0.75, 1.0):
        with gf.load(g, backend="cpu", budget=_budget(g, fraction), partition_bytes=g.m // 4) as lg:
            answers.append(np.asarray(RUNS[algorithm](lg, engine="hybrid")))
    _check(algorithm, g, answers[-1])
    for got in answers[:-1]:
        if algorithm == "pagerank":   # sums in another order where the CPU executor takes a part
            assert np.allclose(got, answers[-1], rtol=1e-6, atol=1e-12)
        else:
            assert np.array_equal(got, answers[-1])


def test_partitions_the_span_holds_are_read_in_one_launch(calls):
    """Below a whole side, the partitions held on the device as one block (the span) are read as
    the resident engine reads its side: one launch over their rows, not one a partition (here
    packed ids let the span hold every partition of PageRank's side in half its plain bytes)."""
    from graphferry.scheduler import Policy

    g = _graph("pagerank")
    with gf.load(g, backend="cpu", budget=g.m * 2, partition_bytes=g.m // 4) as lg:
        policy = Policy(use_cpu=False, whole_side=False)   # the per-partition plan
        pagerank_ldbc(lg, damping=0.85, iterations=3, engine="hybrid", policy=policy)   # keeps the span
        calls.clear()
        r = pagerank_ldbc(lg, damping=0.85, iterations=3, engine="hybrid", policy=policy)
    steps = r.record.edge_steps
    assert all({p.engine for p in s.partitions} == {"resident"} and len(s.partitions) > 4 for s in steps)
    assert sum(c[0] == "pull" for c in calls) == len(steps)
    assert not any(c[0] == "copy" for c in calls)
    verify_pagerank(g, r.ranks, damping=0.85, iterations=3)


def _favouring(engine: str, partition_bytes: int):
    """The H200's figures (test_policy_plans.h200_calibration) with ``engine``'s transfers 100x faster:
    that engine is the best single engine for every partition the budget does not hold."""
    import dataclasses

    from test_policy_plans import h200_calibration

    cal = dataclasses.replace(h200_calibration(1.0, partition_bytes))
    if engine == "zerocopy":
        cal.zerocopy_bandwidth = {k: 100 * v for k, v in cal.zerocopy_bandwidth.items()}
    else:
        cal.copy_bandwidth *= 100
    return cal


@pytest.mark.parametrize("algorithm", ["pagerank", "sssp"])
@pytest.mark.parametrize("best", ["zerocopy", "filter"])
def test_where_one_engine_is_best_the_hybrid_moves_no_more_and_launches_no_more(algorithm, best, calls):
    """At 2% of the edges (two copy slots fit, nothing kept: residency off), with the calibration
    making ``best`` the cheapest engine for every partition, the hybrid moves no more bytes and
    makes no more copies or kernel launches than that engine alone: its plan over the rounds is
    the engine's (PageRank: the same bytes and copies), its statistics and pricing launch nothing,
    and reading in place it launches once a round, not once a partition. (BFS is left out: its
    pulls read in place whatever the rule says, as measured on the H200: the filter-placed pulls
    took 52 ms, read in place 15-20 ms.) Answers: networkx's PageRank, scipy's distances."""
    from graphferry.scheduler import Policy

    g = kronecker_graph(12, seed=0, weighted=algorithm == "sssp")
    wbytes = g.m * 8
    partition_bytes = max(1024, wbytes // 400)
    run = {"pagerank": lambda lg, **kw: pagerank_ldbc(lg, damping=0.85, iterations=3, **kw).ranks,
           "sssp": lambda lg, **kw: sssp(lg, 0, delta=float("inf"), **kw).distances}[algorithm]
    seen = {}
    for engine in (best, "hybrid"):
        kw = {"engine": engine}
        if engine == "hybrid":
            kw["policy"] = Policy(use_cpu=False, residency=False, calibration=_favouring(best, partition_bytes))
        with gf.load(g, backend="cpu", budget=int(0.02 * wbytes), partition_bytes=partition_bytes) as lg:
            calls.clear()
            got = run(lg, **kw)
            copies = [c[1] for c in calls if c[0] == "copy"]
            seen[engine] = (sum(copies), len(copies), sum(c[0] in ("push", "pull") for c in calls), got)
    (e_bytes, e_copies, e_launches, want), (h_bytes, h_copies, h_launches, got) = seen[best], seen["hybrid"]
    assert e_launches > 100   # one a partition and round: the fixed costs the hybrid must not add to
    assert h_bytes <= e_bytes and h_copies <= e_copies and h_launches <= e_launches, seen
    if algorithm == "pagerank":
        assert (h_bytes, h_copies) == (e_bytes, e_copies)
        verify_pagerank(g, got, damping=0.85, iterations=3)
    else:
        assert np.allclose(np.asarray(got, dtype=np.float64), dijkstra(g.to_scipy(), indices=0), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64), rtol=1e-6)


@pytest.mark.parametrize("algorithm", ["pagerank", "sssp"])
def test_a_budget_that_holds_one_partition_buffer_still_copies(algorithm, calls):
    """At 1% of m x 8 with partitions whose copy takes 60% of the budget, one buffer fits and two do
    not (Kronecker 24's 32 MiB partitions at 1% on the H200). The filter engine alone runs with
    one buffer; the hybrid ran with no slot at all and read every partition in place (PageRank
    44.9 ms an iteration there, filter 39.6). With the calibration making copies the cheapest
    transfer, the hybrid now copies as the filter engine does: the same copies, bytes and
    launches (PageRank), no more (SSSP). Answers: networkx's PageRank, scipy's distances."""
    from graphferry.scheduler import Policy

    g = kronecker_graph(12, seed=0, weighted=algorithm == "sssp")
    wbytes, budget = g.m * 8, int(0.01 * g.m * 8)
    with gf.load(g, backend="cpu", budget=wbytes) as lg:   # an edge's bytes as partitioned and as copied
        probe, _ = lg.side("out", algorithm == "sssp", "filter")
    # partitions cut at bytes_per_edge an edge; a copy moves range_bytes_per_edge (packed ids) an edge
    partition_bytes = int(0.6 * budget * probe.bytes_per_edge / probe.range_bytes_per_edge)
    run = {"pagerank": lambda lg, **kw: pagerank_ldbc(lg, damping=0.85, iterations=3, **kw).ranks,
           "sssp": lambda lg, **kw: sssp(lg, 0, delta=float("inf"), **kw).distances}[algorithm]
    seen = {}
    for engine in ("filter", "hybrid"):
        kw = {"engine": engine}
        if engine == "hybrid":
            kw["policy"] = Policy(use_cpu=False, residency=False, calibration=_favouring("filter", partition_bytes))
        with gf.load(g, backend="cpu", budget=budget, partition_bytes=partition_bytes) as lg:
            side, eng = lg.side("out", algorithm == "sssp", engine)
            if engine == "filter":
                assert len(eng.buffers) == 1 and len(side.partitions) > 20   # one buffer: two do not fit
            calls.clear()
            got = run(lg, **kw)
            copies = [c[1] for c in calls if c[0] == "copy"]
            seen[engine] = (sum(copies), len(copies), sum(c[0] in ("push", "pull") for c in calls), got)
    (e_bytes, e_copies, e_launches, want), (h_bytes, h_copies, h_launches, got) = seen["filter"], seen["hybrid"]
    assert h_copies > 0 and h_bytes <= e_bytes and h_copies <= e_copies and h_launches <= e_launches, seen
    if algorithm == "pagerank":
        assert (h_bytes, h_copies, h_launches) == (e_bytes, e_copies, e_launches)
        verify_pagerank(g, got, damping=0.85, iterations=3)
    else:
        assert np.allclose(np.asarray(got, dtype=np.float64), dijkstra(g.to_scipy(), indices=0), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64), rtol=1e-6)


class _DeviceBuckets(CpuBackend):
    """The CPU backend as a device with a GPU's bucket layout: the pending vertices one bitmap, the
    lowest buckets up to n/32 of them a round while deferring the rest saves more relaxations than
    a round costs, a round priced apart where edges cross the bus (the CUDA backend's rule)."""

    is_device = True
    dense_buckets = True
    bucket_fill = 1 << 62
    bucket_share = 1 / 32
    round_price_resident = 2000.0
    round_price_bus = 200.0


def test_at_a_budget_that_holds_the_weighted_side_the_hybrids_sssp_rounds_are_priced_as_residents(monkeypatch):
    # a uniform random graph defers rounds on a GPU (no hubs); the hybrid holding the weighted side
    # whole runs the resident engine's maps, so its rounds cost what the resident engine's cost and
    # its deferral weighs them alike (before: priced as rounds across the bus, it deferred rounds
    # the resident engine did not: uniform 25 on an H200, 247 against 219 ms); where it reads the
    # edges across the bus (5%), the bus's price; the distances are scipy's either way
    from graphferry.generators import uniform_graph
    from graphferry.runtime import buckets as buckets_module

    prices: list[float] = []
    pop = buckets_module.PriorityBuckets._pop_dense

    def priced_pop(self):
        if self.deferring:
            prices.append(self.round_price)
        return pop(self)

    monkeypatch.setattr(buckets_module.PriorityBuckets, "_pop_dense", priced_pop)
    g = uniform_graph(11, seed=3, weighted=True)
    want = dijkstra(g.to_scipy(), indices=0)
    seen = {}
    for engine, fraction in (("resident", 1.0), ("hybrid", 1.0), ("hybrid", 0.05)):
        with gf.load(g, backend=_DeviceBuckets(), budget=_budget(g, fraction), partition_bytes=g.m // 4) as lg:
            for _ in range(2):  # the first call copies the edges, the second reads them
                prices.clear()
                r = sssp(lg, 0, engine=engine)
                assert np.allclose(r.distances, want)
            placed = {p.engine for s in r.record.edge_steps for p in s.partitions}
        seen[engine, fraction] = set(prices), placed
    assert seen["resident", 1.0][0] == {_DeviceBuckets.round_price_resident}
    assert seen["hybrid", 1.0][0] == {_DeviceBuckets.round_price_resident}
    assert seen["hybrid", 0.05][0] == {_DeviceBuckets.round_price_bus}
    assert seen["hybrid", 1.0][1] == {"resident"} != seen["hybrid", 0.05][1]   # held whole / read across
