"""One-shot loading: uploads through pinned staging slots, the resident copy made as it is first read.

CPU backend and plain arrays (the staging pipeline takes its device calls as functions); the
GPU tests at the end check the same on CuPy. Oracles: numpy equality of the bytes that arrive,
scipy.sparse.csgraph's BFS levels.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse.csgraph as csgraph
from hypothesis import given, settings
from hypothesis import strategies as st

import graphferry as gf
from graphferry.algorithms.bfs import bfs
from graphferry.algorithms.sssp import sssp
from graphferry.backends.staging import StagedUpload, file_range
from graphferry.engines import resident
from graphferry.store import open_store, write_store


def _sink(nbytes):
    """A destination byte array, ``send`` writing a slot into it, and the log of sends and waits."""
    dst = np.full(nbytes, 0xAB, np.uint8)
    log = []

    def send(buf, off):
        assert len(buf) > 0
        dst[off:off + len(buf)] = buf
        log.append(("send", off, len(buf)))
        return len(log)

    def wait(token):
        log.append(("wait", token))
    return dst, send, wait, log


@settings(max_examples=30, deadline=None)
@given(size=st.integers(0, 5000), slot=st.integers(1, 700), slots=st.integers(1, 4), threads=st.integers(1, 8),
       from_file=st.booleans(), start=st.integers(0, 100))
def test_staged_upload_delivers_every_byte_in_order_of_slots(tmp_path_factory, size, slot, slots, threads,
                                                             from_file, start):
    data = np.random.default_rng(size).integers(0, 1 << 31, size + start, dtype=np.int64).astype(np.int32)
    if from_file:
        path = tmp_path_factory.mktemp("staged") / "a.npy"
        np.save(path, data)
        data = np.load(path, mmap_mode="r")
        assert file_range(data[start:]) is not None
    src = data[start:]
    dst, send, wait, log = _sink(src.nbytes)
    up = StagedUpload(lambda n: np.empty(n, np.uint8), slot_bytes=slot, slots=slots, threads=threads)
    assert up.upload(src, send, wait) == src.nbytes
    np.testing.assert_array_equal(dst.view(np.int32), np.asarray(src))
    sends = [e for e in log if e[0] == "send"]
    assert [e[1] for e in sends] == list(range(0, src.nbytes, slot))
    # a slot is refilled only after the copy that last read it was waited for
    for i, e in enumerate(log):
        if e[0] == "send":
            k = sends.index(e)
            if k >= slots:
                assert ("wait", log.index(sends[k - slots]) + 1) in log[:i]
    assert len(up._bufs) == min(slots, len(sends))  # slots allocated once, as needed
    up.close()


def test_staged_upload_reads_a_slice_of_a_mapped_file_at_its_own_offset(tmp_path):
    path = tmp_path / "a.npy"
    np.save(path, np.arange(10_000, dtype=np.int64))
    a = np.load(path, mmap_mode="r")
    part = a[1234:5678]
    name, off = file_range(part)
    assert np.fromfile(name, np.int64, 3, offset=off).tolist() == [1234, 1235, 1236]
    dst, send, wait, _ = _sink(part.nbytes)
    StagedUpload(lambda n: np.empty(n, np.uint8), slot_bytes=4096, slots=2, threads=4).upload(part, send, wait)
    assert dst.view(np.int64).tolist() == list(range(1234, 5678))


def components_graph():
    """A small component (the path 0-1-2, the CSR's first rows), a large one (3..402) and
    isolated vertices (403..409)."""
    rng = np.random.default_rng(7)
    src = [0, 1] + list(rng.integers(3, 403, 4000))
    dst = [1, 2] + list(rng.integers(3, 403, 4000))
    return gf.Graph.from_edges(src, dst, n=410, directed=False, drop_self_loops=True, drop_duplicates=True)


def oracle_levels(g, s):
    d = csgraph.shortest_path(g.to_scipy(), method="D", unweighted=True, indices=s)
    return np.where(np.isinf(d), -1, d).astype(np.int64)


def test_resident_copies_only_the_runs_a_traversal_reads(monkeypatch):
    monkeypatch.setattr(resident, "CHUNK_EDGES", 64)
    g = components_graph()
    isolated, small, big = g.n - 1, 1, 13
    assert g.out_degree[isolated] == 0 and g.out_degree[small] > 0
    with gf.load(g, backend="cpu") as lg:
        alone = bfs(lg, isolated, engine="resident", direction="push")
        assert alone.record.bytes_h2d == 0
        np.testing.assert_array_equal(alone.levels, oracle_levels(g, isolated))
        few = bfs(lg, small, engine="resident", direction="push")
        np.testing.assert_array_equal(few.levels, oracle_levels(g, small))
        assert 0 < few.record.bytes_h2d <= 2 * 64 * 4  # the small component's rows: the first run or two
        many = bfs(lg, big, engine="resident")
        np.testing.assert_array_equal(many.levels, oracle_levels(g, big))
        assert few.record.bytes_h2d + many.record.bytes_h2d == g.m * 4  # every arc once in all
        again = bfs(lg, small, engine="resident")
        assert again.record.bytes_h2d == 0
        np.testing.assert_array_equal(again.levels, oracle_levels(g, small))


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), chunk=st.integers(1, 200), sources=st.lists(st.integers(0, 409), min_size=1,
                                                                                 max_size=4))
def test_resident_partial_copies_give_the_oracles_results(seed, chunk, sources):
    """Runs copied by earlier calls, a frontier that needs some of them and not others: every
    call equals the oracle, whatever the run size."""
    rng = np.random.default_rng(seed)
    n, m = 410, 600
    g = gf.Graph.from_edges(rng.integers(0, n, m), rng.integers(0, n // 2, m), rng.integers(1, 9, m).astype(np.float32),
                            n=n, drop_self_loops=True, drop_duplicates=True)
    old = resident.CHUNK_EDGES
    resident.CHUNK_EDGES = chunk
    try:
        with gf.load(g, backend="cpu", narrow_weights=False) as lg:
            for s in sources:
                np.testing.assert_array_equal(bfs(lg, s, engine="resident").levels, oracle_levels(g, s))
                d = csgraph.shortest_path(g.to_scipy(), method="D", indices=s)
                np.testing.assert_allclose(sssp(lg, s, engine="resident").distances, d)
    finally:
        resident.CHUNK_EDGES = old


def test_store_graph_runs_resident_from_its_files(tmp_path, monkeypatch):
    monkeypatch.setattr(resident, "CHUNK_EDGES", 100)
    g = components_graph()
    write_store(g, tmp_path / "s")
    st_g = open_store(tmp_path / "s")
    with gf.load(st_g, backend="cpu") as lg:
        np.testing.assert_array_equal(bfs(lg, 13, engine="resident").levels, oracle_levels(g, 13))


# ------------------------------------------------------------------ the GPU
gpu = pytest.mark.gpu


@gpu
def test_cuda_staged_copies_from_a_store_file_pageable_and_slices(tmp_path):
    import cupy

    from graphferry.backends import get_backend
    from graphferry.backends.cuda.memory import pinned_empty

    b = get_backend("cuda")
    path = tmp_path / "a.npy"
    data = np.random.default_rng(1).integers(0, 1 << 30, 3_000_001, dtype=np.int64).astype(np.int32)
    np.save(path, data)
    mapped = np.load(path, mmap_mode="r")
    b._staging = StagedUpload(lambda nb: pinned_empty(nb, np.uint8), slot_bytes=1 << 20, slots=3)
    for src in (mapped, mapped[777:2_500_000], data[5:], np.asarray(mapped)[3:]):
        dst = cupy.empty(len(src), np.int32)
        b.copy_h2d(dst, src)
        b.synchronize()
        np.testing.assert_array_equal(cupy.asnumpy(dst), np.asarray(src))
        np.testing.assert_array_equal(cupy.asnumpy(b.asarray(src)), np.asarray(src))
    assert b._staging.bytes_uploaded >= 2 * mapped.nbytes


@gpu
def test_cuda_loaded_store_resident_pins_nothing_and_moves_nothing_for_an_isolated_source(tmp_path):
    g = components_graph()
    write_store(g, tmp_path / "s")
    with gf.load(tmp_path / "s", backend="cuda") as lg:
        r = bfs(lg, g.n - 1, engine="resident")
        assert r.record.bytes_h2d == 0
        assert not lg.backend.is_pinned(lg.indices)
        np.testing.assert_array_equal(bfs(lg, 13, engine="resident").levels, oracle_levels(g, 13))
        np.testing.assert_array_equal(bfs(lg, 13, engine="zerocopy").levels, oracle_levels(g, 13))
        assert lg.backend.is_pinned(lg.indices)  # placed once an engine that reads host memory came


# ------------------------------------------------------------------ a fresh machine's calibration
def test_quick_calibration_takes_the_models_table_and_measures_the_bus(tmp_path, monkeypatch):
    import os

    from graphferry.backends import get_backend
    from graphferry.runtime import calibration as cm
    from graphferry.scheduler.cost import CLASSES, load_cached

    b = get_backend("cpu")
    model = b.device_description() if hasattr(b, "device_description") else "?"
    ref = dict(cm.KNOWN_DEVICES[cm.REFERENCE_DEVICE])
    cores = (os.cpu_count() or 1) / ref["threads"]
    exact = cm.quick_calibration(b, table={model: ref})
    assert exact.device_edge_rate == ref["device_edge_rate"]
    assert exact.host_edge_rate == pytest.approx({k: v * cores for k, v in ref["host_edge_rate"].items()})
    assert exact.copy_bandwidth > 0 and sorted(exact.zerocopy_bandwidth) == list(cm.REQUEST_SIZES)
    assert set(exact.device_edge_rate) == {f"{c}/{d}" for c in CLASSES for d in ("push", "pull")}
    # another model: the reference's device rates scaled by the two memories' bandwidth
    ref["device_copy_bandwidth"] = exact.notes["device_copy_bandwidth"] / 2
    scaled = cm.quick_calibration(b, table={"some other GPU": {}, cm.REFERENCE_DEVICE: ref})
    ratio = scaled.notes["device_copy_bandwidth"] / ref["device_copy_bandwidth"]
    assert scaled.device_edge_rate == pytest.approx({k: v * ratio for k, v in ref["device_edge_rate"].items()})
    assert scaled.notes["source"].endswith("scaled")
    # on a device, a fresh cache gets the quick calibration and keeps it; --refresh measures all
    monkeypatch.setenv("GRAPHFERRY_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(b, "is_device", True, raising=False)
    monkeypatch.setattr(cm, "quick_calibration", lambda backend: exact)
    monkeypatch.setattr(cm, "measure", lambda *a, **k: pytest.fail("a fresh device measured every figure"))
    assert cm.calibration_for(b) is exact and load_cached(exact.device) == exact
    full = cm.Calibration.nominal()
    full.device = exact.device
    monkeypatch.setattr(cm, "measure", lambda backend, quick=False: full)
    assert cm.calibration_for(b, refresh=True) is full and load_cached(exact.device) == full


def test_the_hybrids_cpu_executor_gets_its_program_compiled_ahead(monkeypatch, tmp_path):
    """On a device, the programs a loaded graph compiles are compiled for the hybrid's CPU
    executor in the background as soon as the executors exist (the CPU backend stands in for
    the device here)."""
    from graphferry.algorithms.bfs import PROGRAM
    from graphferry.runtime import loaded as loaded_module

    monkeypatch.setenv("GRAPHFERRY_CACHE_DIR", str(tmp_path))
    g = components_graph()
    with gf.load(g, backend="cpu") as lg:
        monkeypatch.setattr(lg.backend, "is_device", True, raising=False)
        lg.compile(PROGRAM)
        cpu = lg.executors[1].backend
        loaded_module._host_compile_pool().submit(lambda: None).result()  # one thread: the compile ran first
        assert (PROGRAM.fingerprint(), g.indices.dtype.str) in cpu._programs


@gpu
def test_cuda_narrowed_weights_wait_for_the_placement_and_are_pinned_with_it():
    g = gf.Graph.from_edges(np.arange(300), (np.arange(300) * 7) % 300, np.arange(300) % 9 + 1.0, n=300)
    with gf.load(g, backend="cuda") as lg:
        w = lg.side_weights("out")
        assert w.dtype == np.uint8 and not lg.backend.is_pinned(w)  # plain memory while only resident may come
        d = sssp(lg, 0, engine="resident").distances
        np.testing.assert_array_equal(sssp(lg, 0, engine="zerocopy").distances, d)
        assert lg.backend.is_pinned(lg.side_weights("out"))  # pinned with the edges
        np.testing.assert_allclose(d, csgraph.shortest_path(g.to_scipy(), method="D", indices=0))
