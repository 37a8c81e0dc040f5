"""A fresh machine's first GPU call (issue 34): nothing measured at run time that the table of the
device's model holds. Run here on the CPU backend, standing in for a device of a known model."""

from __future__ import annotations

import pytest

from graphferry.backends import get_backend
from graphferry.runtime import calibration as cm


def test_a_known_model_takes_every_figure_from_its_table_and_measures_nothing(monkeypatch):
    b = get_backend("cpu")
    model = b.device_description()
    ref = cm.KNOWN_DEVICES[cm.REFERENCE_DEVICE]
    monkeypatch.setattr(cm, "_bus_figures", lambda backend: pytest.fail("measured what the table holds"))
    monkeypatch.setattr(cm, "_zerocopy_rate", lambda *a, **k: pytest.fail("measured zero-copy reads"))
    cal = cm.quick_calibration(b, table={model: ref})
    assert cal.copy_bandwidth == ref["copy_bandwidth"]
    assert cal.zerocopy_bandwidth == ref["zerocopy_bandwidth"]
    assert cal.notes["device_copy_bandwidth"] == ref["device_copy_bandwidth"] and cal.notes["bus"] == "table"
    assert cal.device_edge_rate == ref["device_edge_rate"]


def test_the_h200s_table_holds_its_bus_figures_as_measured():
    """bench/results/calibration-h200.json's pinned copy and zero-copy reads, engines-kron25-h200.json's
    device copy (the calibration's own convention: bytes read and written)."""
    import json
    from pathlib import Path

    results = Path(__file__).resolve().parents[2] / "bench" / "results"
    full = json.loads((results / "calibration-h200.json").read_text())
    machine = json.loads((results / "engines-kron25-h200.json").read_text())["machine"]
    h200 = cm.KNOWN_DEVICES["NVIDIA H200"]
    assert h200["copy_bandwidth"] == pytest.approx(full["copy_bandwidth"], rel=1e-3)
    assert {str(k): v for k, v in h200["zerocopy_bandwidth"].items()} == pytest.approx(
        full["zerocopy_bandwidth"], rel=1e-3)
    assert h200["device_copy_bandwidth"] == pytest.approx(machine["device_copy_gbps"] * 1e9, rel=1e-3)


def test_a_model_missing_from_the_table_has_its_bus_measured():
    b = get_backend("cpu")
    cal = cm.quick_calibration(b, table={"some other GPU": {}, cm.REFERENCE_DEVICE: cm.KNOWN_DEVICES[cm.REFERENCE_DEVICE]})
    assert cal.notes["bus"] == "measured" and cal.notes["source"].endswith("scaled")
    assert cal.copy_bandwidth != cm.KNOWN_DEVICES[cm.REFERENCE_DEVICE]["copy_bandwidth"]


def test_a_one_shot_run_compiles_its_programs_while_the_main_thread_reads(tmp_path, monkeypatch):
    """cli.device_start: the backend is made in a thread of its own and, once the graph is read,
    the algorithm's programs are compiled there for its vertex-id type (the CPU backend standing
    in for the GPU); the main thread's own request then finds the same compiled program."""
    import numpy as np

    from graphferry.algorithms.wcc import PROGRAM
    from graphferry.cli.device_start import DeviceStart, algorithm_programs
    from graphferry.graph import Graph

    monkeypatch.setenv("GRAPHFERRY_CACHE_DIR", str(tmp_path))
    assert [p.name for p in algorithm_programs("wcc")] == [PROGRAM.name]
    g = Graph.from_edges(np.array([0, 1]), np.array([1, 2]), n=4, directed=False)
    key = (PROGRAM.fingerprint(), g.indices.dtype.str)
    get_backend("cpu")._programs.pop(key, None)  # (another test in this process may have compiled it)
    started = DeviceStart("wcc", "cpu", start_for=("cpu",))
    started.graph_read(g)
    started.thread.join(timeout=600)
    cpu = get_backend("cpu")
    assert key in cpu._programs
    assert cpu.compile(PROGRAM, g.indices.dtype) is cpu._programs[key]


def test_a_failed_read_starts_no_compilation():
    from graphferry.cli.device_start import DeviceStart

    started = DeviceStart("bfs", "cpu", start_for=("cpu",))
    started.graph_read(None)
    started.thread.join(timeout=60)
    assert not started.thread.is_alive()


def test_backend_cuda_without_a_gpu_is_one_error_line(tmp_path):
    import os
    import subprocess
    import sys
    from pathlib import Path

    import numpy as np

    from graphferry.graph import Graph
    from graphferry.runtime.startup import gpu_likely
    from graphferry.store import write_store

    if gpu_likely():
        pytest.skip("a GPU is here")
    store = tmp_path / "g.store"
    write_store(Graph.from_edges(np.array([0]), np.array([1]), n=2), store)
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2] / "src"))
    proc = subprocess.run([sys.executable, "-m", "graphferry", "run", "bfs", str(store), "--source", "0",
                           "--backend", "cuda"], capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode != 0
    assert [ln for ln in proc.stderr.splitlines() if ln.strip()] == [
        "error: --backend cuda: no usable GPU here (it needs CuPy and a CUDA device); use --backend cpu or auto"]


@pytest.mark.parametrize("nbytes", [1, 4095, 4096, 3 * 4096 + 5, 40_000])
def test_download_through_slots_gives_the_bytes_in_order(nbytes, monkeypatch):
    """StagedUpload.download with fewer slots than chunks (each slot fetched into again only after
    it was copied out) and several threads per slot."""
    import numpy as np

    from graphferry.backends import staging
    from graphferry.backends.staging import StagedUpload

    monkeypatch.setattr(staging, "PIECE_BYTES", 1024)  # pieces of a slot for several threads

    src = np.random.default_rng(nbytes).integers(0, 256, nbytes, dtype=np.uint8)
    fetched = []

    def fetch(buf, off):
        fetched.append(off)
        buf[:] = src[off:off + len(buf)]
        return off

    waited = []
    down = StagedUpload(lambda n: np.empty(n, np.uint8), slot_bytes=4096, slots=2, threads=3)
    out = np.zeros(nbytes, np.uint8)
    assert down.download(out, fetch, waited.append) == nbytes
    np.testing.assert_array_equal(out, src)
    assert fetched == list(range(0, nbytes, 4096)) and waited == fetched


@pytest.mark.gpu
def test_cuda_results_through_the_slots_equal_the_device_arrays():
    from graphferry.backends import cuda_available

    if not cuda_available():
        pytest.skip("needs a CUDA GPU and CuPy")
    import cupy
    import numpy as np

    b = get_backend("cuda")
    arr = cupy.arange(3_000_001, dtype=cupy.int64) * 7
    before = b.results_pinned
    b.results_pinned = False
    try:
        host = b.to_host(arr)
    finally:
        b.results_pinned = before
    assert isinstance(host, np.ndarray) and not b.is_pinned(host)
    np.testing.assert_array_equal(host, np.arange(3_000_001, dtype=np.int64) * 7)


def test_a_handle_for_one_call_registers_plain_copies_instead_of_allocating_pinned_memory(monkeypatch):
    """load(kept=False) (the command line's run): on a device, the edges' host copy for engines that
    read host memory is plain memory registered in place, and given back at close; no cudaHostAlloc
    (the CPU backend stands in for the device, its registration recorded)."""
    from types import SimpleNamespace

    import numpy as np

    import graphferry as gf

    rng = np.random.default_rng(4)
    g = gf.Graph.from_edges(rng.integers(0, 300, 3000), rng.integers(0, 300, 3000), n=300)
    lg = gf.load(g, backend="cpu", kept=False)
    b = lg.backend
    registered, forgotten = [], []
    monkeypatch.setattr(b, "is_device", True, raising=False)
    monkeypatch.setattr(b, "register_host", lambda a: registered.append(a) or True, raising=False)
    monkeypatch.setattr(b, "pinned_empty", lambda *a: pytest.fail("pinned memory for one call"), raising=False)
    monkeypatch.setattr(b, "registry", SimpleNamespace(forget=forgotten.append), raising=False)
    lg._place_pending = True  # as on a device: the placement waits for an engine that reads host memory
    lg._ensure_placed()
    assert lg.indices is registered[0] and lg.indices is not g.indices
    np.testing.assert_array_equal(lg.indices, g.indices)
    assert "registered in place" in lg.placement["indices"]
    buf = lg._new_host_buffer(10, np.int32)  # packed ids, narrowed weights: plain memory too
    assert buf.dtype == np.int32 and len(buf) == 10
    lg.close()
    assert forgotten == registered


def test_the_background_start_pins_the_transfer_slots_and_compiles_every_program(monkeypatch):
    import numpy as np

    import graphferry.backends as backends
    from graphferry.cli.device_start import DeviceStart, algorithm_programs

    calls = []

    class Device:
        def compile(self, program, dtype):
            calls.append(("compile", program.name, np.dtype(dtype).str))

        def prepare_transfers(self):
            calls.append(("prepare",))

    monkeypatch.setattr(backends, "get_backend", lambda name: Device())
    started = DeviceStart("bfs", "fake", start_for=("fake",))
    started.graph_read(type("G", (), {"indices": np.zeros(2, np.int32)})())
    started.thread.join(timeout=60)
    assert sorted(calls) == sorted([("prepare",)] + [("compile", p.name, "<i4") for p in algorithm_programs("bfs")])


_ENDS_AT_ONCE = """
import sys, threading, time, types
sys.modules["graphferry.backends.cuda.backend"] = types.ModuleType("stand-in")  # the GPU was used
threading.Thread(target=time.sleep, args=(60,)).start()  # a background compile still running
sys.argv = ["graphferry", "--version"]
from graphferry.cli import main
sys.exit(main())
"""


def test_a_process_that_used_the_gpu_ends_without_waiting_for_background_compilations():
    import os
    import subprocess
    import sys
    import time
    from pathlib import Path

    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2] / "src"))
    t = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", _ENDS_AT_ONCE], capture_output=True, text=True, timeout=120,
                          env=env)
    assert time.perf_counter() - t < 50  # not the background thread's 60 s
    assert proc.returncode == 0 and proc.stdout.startswith("graphferry ")  # its output flushed


def test_a_one_call_handle_packs_ids_only_for_runs_that_read_the_edges_often():
    import numpy as np

    import graphferry as gf
    from graphferry.runtime.loaded import ONE_CALL_PACK_PASSES

    g = gf.Graph.from_edges(np.arange(100), (np.arange(100) * 7) % 100, n=100)
    for kept, passes, packs in ((True, 0.25, True), (False, 0.25, False), (False, ONE_CALL_PACK_PASSES, False),
                                (False, 20, True), (False, None, True)):
        with gf.load(g, backend="cpu", kept=kept, work_passes=passes) as lg:
            assert lg.packs("hybrid") is packs, (kept, passes)
            assert lg.packs("resident") is False


@pytest.mark.parametrize("budget, engine", [(None, "resident"), (1000, "hybrid")])
def test_the_background_start_submits_only_the_kernel_groups_the_engine_launches(monkeypatch, budget, engine):
    """On the CUDA backend the background start compiles the kernel groups the run's engine will
    launch: ``auto`` resolved as the runtime resolves it (the budget holds both directions:
    resident, whose kernels read device memory with plain ids), no packed ids for a one-call BFS."""
    import numpy as np

    import graphferry.backends as backends
    from graphferry.algorithms.bfs import PROGRAM
    from graphferry.backends.cuda.kernel_groups import groups_for
    from graphferry.cli.device_start import DeviceStart

    asked = []

    class Device:
        name = "cuda"

        def compile(self, program, dtype, groups=None):
            asked.append((program.name, groups))

        def free_device_bytes(self):
            return 1 << 40

    monkeypatch.setattr(backends, "get_backend", lambda name: Device())
    started = DeviceStart("bfs", "fake", start_for=("fake",), budget=budget)
    started.graph_read(type("G", (), {"indices": np.zeros(2, np.int32), "edge_bytes": 4000})())
    started.thread.join(timeout=60)
    assert asked == [("bfs", groups_for(PROGRAM, engine, packed=False))]
    assert not any("_packed" in g for g in asked[0][1])
    assert engine == "hybrid" or not any("_zc" in g for g in asked[0][1])


def _device_standin():
    from graphferry.backends.cpu.backend import CpuBackend

    class Device(CpuBackend):  # the CPU backend taken for a device: edges placed, engines on its arena
        is_device = True

    return Device()


@pytest.mark.parametrize("fits", [True, False])
def test_a_one_shot_hybrid_places_the_edges_only_when_its_own_plan_runs(fits):
    """A one-call handle's hybrid whose budget holds the side whole runs the resident engine's maps
    over the edges where they lie (no pinned placement); with a small budget its own plan runs and
    places them first. The levels are the CPU backend's either way."""
    import numpy as np

    import graphferry as gf
    from graphferry.algorithms import bfs
    from graphferry.generators import kronecker_graph

    g = kronecker_graph(9, seed=2)
    s = int(np.argmax(g.out_degree))
    budget = None if fits else g.edge_bytes // 4
    with gf.load(g, backend=_device_standin(), kept=False, work_passes=0.25, budget=budget,
                 partition_bytes=None if fits else g.edge_bytes // 16) as lg:
        r = bfs(lg, s, engine="hybrid")
        assert lg._place_pending is fits, lg.placement
    assert np.array_equal(r.levels, bfs(g, s, backend="cpu").levels)
    steps = [p.engine for st in r.record.edge_steps for p in st.partitions]
    assert (set(steps) == {"resident"}) is fits, steps


def test_a_store_starts_its_programs_compiling_before_the_graph_is_read(tmp_path, monkeypatch):
    """The store's manifest names the vertex-id type: the background start compiles with it while
    the main thread still reads (graph_read is never called here)."""
    import numpy as np

    import graphferry.backends as backends
    from graphferry.cli.device_start import DeviceStart, algorithm_programs
    from graphferry.graph import Graph
    from graphferry.store import write_store

    asked = []

    class Device:
        def compile(self, program, dtype):
            asked.append((program.name, np.dtype(dtype).str))

    store = tmp_path / "g.store"
    write_store(Graph.from_edges(np.array([0, 1]), np.array([1, 2]), n=3), store)
    monkeypatch.setattr(backends, "get_backend", lambda name: Device())
    started = DeviceStart("wcc", "fake", start_for=("fake",))
    started.store_hint(tmp_path / "not-a-store")   # nothing known: it keeps waiting
    started.store_hint(store)
    started.thread.join(timeout=60)
    assert asked == [(p.name, "<i4") for p in algorithm_programs("wcc")]
