"""Vertex ids packed in ``ceil(log2 n)``-bit fields for the engines that copy or map ranges of edges.

A loaded graph's sides for filter, compaction, zerocopy, resident and hybrid read a packed copy
of the ids (25 bits instead of 32 at 2^25 vertices: on the bus and in device memory). Oracles:
Python's own integers for the bit stream; scipy and the host engine's answers on plain ids,
which every engine must equal bit for bit (PageRank within its tolerance), on the CPU
backend's simulated device and on the GPU.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import dijkstra_distances
from hypothesis import given, settings
from hypothesis import strategies as st

import graphferry as gf
from graphferry import Graph
from graphferry.algorithms import bfs, cdlp, lcc, pagerank_ldbc, sssp, wcc
from graphferry.host_ops import id_bits, pack_indices, packed_words
from graphferry.engines import registry
from graphferry.engines.base import EdgeSide
from graphferry.scheduler import Policy

PACKING_ENGINES = list(registry.names_where(reads_packed=True))   # filter, zerocopy, hybrid
MIXES = {
    "all": [("device", "resident"), ("device", "filter"), ("device", "compaction"), ("device", "zerocopy"),
            ("host", "host")],
    "filter": [("device", "filter")],
    "compaction": [("device", "compaction")],
}


def stream_oracle(values, bits: int) -> np.ndarray:
    """The little-endian 32-bit words of the bit stream in which value j takes bits [j*bits, (j+1)*bits)."""
    acc = 0
    for j, v in enumerate(values):
        acc |= int(v) << (j * bits)
    words = packed_words(len(values), bits)
    return np.array([(acc >> (32 * k)) & 0xFFFFFFFF for k in range(words)], dtype=np.uint32)


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 31).flatmap(lambda b: st.tuples(st.just(b), st.lists(st.integers(0, (1 << b) - 1),
                                                                                max_size=100))))
def test_packing_writes_the_bit_stream(case):
    bits, values = case
    got = pack_indices(np.array(values, dtype=np.int32), bits)
    np.testing.assert_array_equal(got.view(np.uint32), stream_oracle(values, bits))


def test_packing_refuses_what_it_cannot_hold():
    with pytest.raises(ValueError, match="int32 ids and 1 to 31 bits"):
        pack_indices(np.zeros(3, np.int64), 5)
    with pytest.raises(ValueError, match="int32 ids and 1 to 31 bits"):
        pack_indices(np.zeros(3, np.int32), 32)


@settings(max_examples=100, deadline=None)
@given(st.integers(2, 5000), st.integers(0, 700), st.integers(0, 700), st.integers(0, 2**32 - 1))
def test_a_range_starts_on_a_word_and_holds_its_ids(n, a, b, seed):
    """``EdgeSide.range_of``: edges [e0, e1) of the packed copy start at a multiple of 32 (the
    kernel's edge_base) and the words hold exactly the ids from there on."""
    rng = np.random.default_rng(seed)
    m = 700
    g = Graph.from_edges(rng.integers(0, n, m), rng.integers(0, n, m), n=n,
                         weights=rng.integers(1, 9, m).astype(np.float32))
    bits = id_bits(n)
    side = EdgeSide.of(g, 1 << 20, True, packed=(pack_indices(g.indices, bits), bits))
    e0, e1 = sorted((min(a, g.m), min(b, g.m)))
    base, idx, w = side.host_range(e0, e1)
    assert base % 32 == 0 and base <= e0 < base + 32 or e0 == e1 == base
    assert len(idx) <= side.range_entries(e1 - e0)[0] and len(w) <= side.range_entries(e1 - e0)[1]
    k = e1 - base
    want = stream_oracle(g.indices[base:e1].tolist(), bits)
    np.testing.assert_array_equal(idx.view(np.uint32)[: len(want)] & _mask(k, bits, len(want)), want)
    np.testing.assert_array_equal(w, g.weights[base:e1])


def _mask(k: int, bits: int, words: int) -> np.ndarray:
    """Words' bits that belong to the first k fields (a copy's last word may hold the next ids too)."""
    full = k * bits
    out = np.zeros(words, dtype=np.uint64)
    for i in range(words):
        used = min(32, max(0, full - 32 * i))
        out[i] = (1 << used) - 1
    return out.astype(np.uint32)


def test_which_loads_pack_and_which_read_plain_ids():
    """A kept graph packs for the engines that copy or map ranges again and again, not for resident
    (on a GPU its copy is also what neighbourhood functions read, as plain ids), compaction (its
    buffers hold gathers of plain ids), nor engines that read host rows (host, unified); never for
    several ranks or when asked not to."""
    from graphferry.distributed.graph import DistributedGraph
    from graphferry.distributed.world import local_world

    g = Graph.from_edges([0, 1, 2], [1, 2, 0], n=3)
    kept = gf.load(g, backend="cpu")
    one_call = gf.LoadedGraph(g, backend="cpu", temporary=True)
    others = [e for e in registry.names() if e not in PACKING_ENGINES]
    assert [e for e in others + PACKING_ENGINES if kept.packs(e)] == PACKING_ENGINES
    assert [e for e in PACKING_ENGINES if one_call.packs(e)] == PACKING_ENGINES
    assert not gf.load(g, backend="cpu", pack_ids=False).packs("filter")
    assert not any(DistributedGraph(g, local_world(), backend="cpu").packs(e) for e in PACKING_ENGINES)
    kept.close()


def odd_graph(seed: int = 2, n: int = 1500, m: int = 20000, directed: bool = True) -> Graph:
    """11-bit ids, and partitions whose edges start anywhere (not at multiples of 32)."""
    rng = np.random.default_rng(seed)
    return Graph.from_edges(rng.integers(0, n, m), rng.integers(0, n, m), n=n, directed=directed,
                            weights=rng.integers(1, 300, m).astype(np.float32))


@pytest.mark.parametrize("engine", PACKING_ENGINES)
def test_every_engine_on_packed_ids_equals_plain_ids_and_the_oracles(engine):
    g = odd_graph()
    src = int(np.argmax(np.diff(g.offsets)))
    want = dijkstra_distances(g, [src])
    budget = None if engine == "resident" else g.m * 8 // 4
    results = {}
    for pack in (True, False):
        with gf.load(g, backend="cpu", budget=budget, partition_bytes=997, pack_ids=pack) as lg:
            # first: the in-edges' first use (a resident copy moves then)
            pr = pagerank_ldbc(lg, damping=0.85, iterations=2, engine=engine, direction="pull")
            runs = {"moved": pr.record.bytes_h2d,
                    "levels": bfs(lg, src, engine=engine).levels,
                    "dist": sssp(lg, src, engine=engine, direction="push").distances,
                    "dist_pull": sssp(lg, src, engine=engine, direction="pull").distances,
                    "labels": wcc(lg, engine=engine).labels,
                    "ranks": pagerank_ldbc(lg, damping=0.85, iterations=5, engine=engine).ranks}
            assert lg.packs(engine) == pack
            results[pack] = runs
    packed, plain = results[True], results[False]
    np.testing.assert_array_equal(packed["dist"], want.astype(packed["dist"].dtype))
    for key in ("levels", "dist", "dist_pull", "labels"):
        np.testing.assert_array_equal(packed[key], plain[key], err_msg=key)
    np.testing.assert_allclose(packed["ranks"], plain["ranks"], rtol=1e-12, atol=1e-15)
    if engine == "filter":  # whole ranges move: 11 of 32 bits an id (weights unused)
        assert packed["moved"] < 0.45 * plain["moved"]


@pytest.mark.parametrize("mix", list(MIXES))
def test_the_hybrid_on_packed_ids_with_forced_mixes(mix):
    """Every placement with packed ids under a budget of a few partitions: slots hold groups of
    packed partitions and plain compaction gathers; blocks and the span packed copies."""
    g = odd_graph(seed=5, directed=False)
    src = int(np.argmax(np.diff(g.offsets)))
    opts = {"backend": "cpu", "engine": "hybrid", "policy": Policy(mix=MIXES[mix]),
            "partition_bytes": g.m * 8 // 16, "budget": g.m * 8 // 4}
    with gf.load(g, backend="cpu", budget=opts["budget"], partition_bytes=opts["partition_bytes"]) as lg:
        kw = {"engine": "hybrid", "policy": Policy(mix=MIXES[mix])}
        for _ in range(2):
            np.testing.assert_array_equal(bfs(lg, src, **kw).levels, bfs(g, src, backend="cpu").levels)
            np.testing.assert_array_equal(sssp(lg, src, **kw).distances, sssp(g, src, backend="cpu").distances)
        np.testing.assert_array_equal(wcc(lg, **kw).labels, wcc(g, backend="cpu").labels)
        assert lg.arena.used_bytes <= opts["budget"]


def test_neighbourhood_functions_read_plain_ids_beside_a_packed_span():
    """Edge maps keep packed partitions on the device (the span); neighbourhood functions read
    plain ids, so they read those rows in place: the answers are the host engine's."""
    from graphferry.scheduler.residency import SPAN

    g = odd_graph(seed=7, directed=False)
    # short of the plain side (4 bytes an edge), which the resident engine would hold whole
    with gf.load(g, backend="cpu", budget=g.m * 7 // 2, partition_bytes=g.m * 8 // 32) as lg:
        policy = Policy(use_cpu=False)
        pagerank_ldbc(lg, damping=0.85, iterations=3, engine="hybrid", policy=policy)
        assert any(k[1] == SPAN for k in lg.pool.blocks)
        np.testing.assert_array_equal(wcc(lg, engine="hybrid", policy=policy).labels, wcc(g, backend="cpu").labels)
        np.testing.assert_array_equal(cdlp(lg, 5, engine="hybrid", policy=policy).labels,
                                      cdlp(g, 5, backend="cpu").labels)
        np.testing.assert_allclose(lcc(lg, engine="hybrid", policy=policy).lcc, lcc(g, backend="cpu").lcc)


@pytest.mark.gpu
@pytest.mark.parametrize("engine", PACKING_ENGINES)
def test_cuda_engines_on_packed_ids_equal_the_cpu(engine):
    g = odd_graph(n=100_003, m=600_000)   # 17-bit ids
    src = int(np.argmax(np.diff(g.offsets)))
    budget = None if engine == "resident" else g.m * 8 // 4
    with gf.load(g, backend="cuda", budget=budget, partition_bytes=65_537) as lg:
        assert lg.packs(engine)
        for direction in ("push", "pull"):
            np.testing.assert_array_equal(bfs(lg, src, engine=engine, direction=direction).levels,
                                          bfs(g, src, backend="cpu").levels)
            np.testing.assert_array_equal(sssp(lg, src, engine=engine, direction=direction).distances,
                                          sssp(g, src, backend="cpu").distances)
        np.testing.assert_array_equal(wcc(lg, engine=engine).labels, wcc(g, backend="cpu").labels)
        np.testing.assert_allclose(pagerank_ldbc(lg, damping=0.85, iterations=5, engine=engine).ranks,
                                   pagerank_ldbc(g, damping=0.85, iterations=5, backend="cpu").ranks, rtol=1e-10)


def test_partitions_too_small_for_packing_keep_plain_ids():
    """A packed run pays for a partial group of 32 at each end: partitions of a few edges would
    need larger buffers than plain ids, so their side stays plain and a budget that fits plain
    buffers still runs."""
    g = Graph.from_edges(np.zeros(31, int), np.arange(31) % 7, n=7, directed=False,
                         weights=(np.arange(31) + 1.25).astype(np.float32))
    want = sssp(g, 0, backend="cpu").distances
    with gf.load(g, backend="cpu", budget=420, partition_bytes=1) as lg:
        np.testing.assert_array_equal(sssp(lg, 0, engine="filter").distances, want)
        side = next(side for side, _ in lg._engines.values())
        assert lg.packs("filter") and side.packed is None and side.packing_pays()
    big = odd_graph()
    with gf.load(big, backend="cpu", partition_bytes=4096) as lg:
        bfs(lg, 0, engine="filter")
        assert next(side for side, _ in lg._engines.values()).packed is not None


@pytest.mark.parametrize("partition_bytes", [97, 997, 4001])
def test_the_hybrid_records_the_bytes_it_copies(partition_bytes, monkeypatch):
    """Filter groups and the span copy runs of partitions whose packed groups straddle their
    bounds: each partition is charged its own share, so the record adds up to the copies."""
    from graphferry.backends.cpu.backend import CpuBackend
    from graphferry.scheduler import Calibration

    copied = [0]
    real = CpuBackend.copy_h2d

    def counting(self, dst, src, after=None):
        copied[0] += int(np.asarray(src).nbytes)
        return real(self, dst, src, after)

    monkeypatch.setattr(CpuBackend, "copy_h2d", counting)
    g = odd_graph(seed=1, n=1500, m=20000)
    for policy in (Policy(mix=[("device", "filter")], residency=False),
                   Policy(calibration=Calibration.nominal(), use_cpu=False)):
        with gf.load(g, backend="cpu", budget=g.m * 8 // 4, partition_bytes=partition_bytes) as lg:
            copied[0] = 0
            r = pagerank_ldbc(lg, damping=0.85, iterations=3, direction="pull", engine="hybrid", policy=policy)
            assert r.record.bytes_h2d == copied[0]


def test_the_hybrids_slots_are_sized_as_allocated():
    """Packed slots hold whole groups and 31 more weights than their edges: the hybrid sizes its
    two slots by those bytes, so their promise never exceeds the budget (room is left for blocks)."""
    rng = np.random.default_rng(2)
    n, m = 1500, 4000
    g = Graph.from_edges(rng.integers(0, n, m), rng.integers(0, n, m), n=n,
                         weights=rng.integers(1, 9, m).astype(np.float32))
    for budget in (260, 400, 1000):
        with gf.load(g, backend="cpu", budget=budget, partition_bytes=64) as lg:
            r = bfs(lg, 0, engine="hybrid", policy=Policy(mix=[("device", "filter")], residency=False),
                    direction="push")
            np.testing.assert_array_equal(r.levels, bfs(g, 0, backend="cpu").levels)
            assert sum(lg.pool._reserved.values()) <= lg.arena.budget_bytes
