"""Measure the figures the hybrid's cost model needs, once per machine and device, cached on disk.

``calibration_for(backend)`` returns the cached :class:`~graphferry.scheduler.cost.Calibration`
of this machine's device, measuring it first when there is none
(``graphferry calibrate`` shows it and measures again). What is measured:

* pinned host-to-device copy bandwidth (the explicit engines' bus);
* zero-copy read throughput by request size (32 B to 4 KiB segments at random
  places of mapped host memory, read by a kernel);
* the CPU's compaction (row gather) throughput, all threads;
* edge-processing rates per class of program (traversal, relax, accumulate)
  and direction, on the device (edges resident) and on the CPU executor
  (edges in host memory), with the runtime's own kernels on a random graph;
* one iteration's fixed cost (a single-vertex edge_map), and the bandwidth of
  vertex state between executors;
* neighbourhood-function rates (work per second, in
  :func:`~graphferry.scheduler.stats.neighbor_work` edges) of two reference
  functions, one reading only its vertex's row and one intersecting its row with
  every neighbour's (triangle counting's merge), on the CPU reading host memory,
  on the device reading the host's lists in place (zero-copy) and from a copy of
  the graph on the device.

On the CPU backend the "device" is the simulated arena: its figures are those
of copies into separate host memory and of host reads, so the model runs (and
is tested) without a GPU.

Example:
    >>> from graphferry.backends import get_backend
    >>> from graphferry.runtime.calibration import measure
    >>> cal = measure(get_backend("cpu"), quick=True)
    >>> cal.copy_bandwidth > 0 and sorted(cal.zerocopy_bandwidth) == [32, 128, 512, 4096]
    True
    >>> sorted(cal.host_edge_rate)[:2]
    ['accumulate/pull', 'accumulate/push']
"""

from __future__ import annotations

import logging
import os
import time

import numpy as np

from ..phase_clock import phase
from ..scheduler import cost as cost_module
from ..scheduler.cost import Calibration

log = logging.getLogger(__name__)

REQUEST_SIZES = (32, 128, 512, 4096)

_REFERENCE = {
    "traversal": ({"seen": "int32"}, False, r"""
GF_FN bool cond(const State& S, vid_t d) { return S.seen[d] == 0; }
GF_FN bool update(const State& S, vid_t s, vid_t d, float w) { S.seen[d] = 1; return true; }
GF_FN bool update_atomic(const State& S, vid_t s, vid_t d, float w) { return gf_cas(&S.seen[d], 0, 1); }
"""),
    "relax": ({"dist": "float64"}, True, r"""
GF_FN bool cond(const State& S, vid_t d) { return true; }
GF_FN bool update(const State& S, vid_t s, vid_t d, float w) {
    const double nd = S.dist[s] + (double)w;
    if (nd < S.dist[d]) { S.dist[d] = nd; return true; }
    return false;
}
GF_FN bool update_atomic(const State& S, vid_t s, vid_t d, float w) {
    return gf_atomic_min(&S.dist[d], gf_load(&S.dist[s]) + (double)w);
}
"""),
    "accumulate": ({"acc": "float64", "x": "float64"}, False, r"""
GF_FN bool cond(const State& S, vid_t d) { return true; }
GF_FN bool update(const State& S, vid_t s, vid_t d, float w) { S.acc[d] += S.x[s]; return false; }
GF_FN bool update_atomic(const State& S, vid_t s, vid_t d, float w) { gf_atomic_add(&S.acc[d], S.x[s]); return false; }
"""),
}


#: Full calibrations (``graphferry calibrate --refresh``) per GPU model: where a fresh machine's
#: calibration starts (:func:`quick_calibration`), which measures nothing a model's entry holds.
#: The H200's: bench/results/calibration-h200.json (16 cores: the edge rates, the pinned copy and
#: the zero-copy reads by request size); its device-to-device copy (read and write counted, as
#: :func:`_device_copy_rate` counts) from bench/results/engines-kron25-h200.json's machine figures
#: (``device_copy_gbps`` 4164.9).
KNOWN_DEVICES: dict[str, dict] = {
    "NVIDIA H200": {
        "threads": 16,
        "device_copy_bandwidth": 4164.9e9,
        "copy_bandwidth": 54.80e9,
        "zerocopy_bandwidth": {32: 17.54e9, 128: 46.53e9, 512: 50.50e9, 4096: 50.37e9},
        "gather_bandwidth": 2.857e9,
        "launch_seconds": 2.98e-4,
        "state_bandwidth": 1.715e9,
        "device_edge_rate": {"accumulate/pull": 85.2e9, "accumulate/push": 48.7e9, "relax/pull": 63.3e9,
                             "relax/push": 68.2e9, "traversal/pull": 249.2e9, "traversal/push": 75.1e9},
        "host_edge_rate": {"accumulate/pull": 2.452e9, "accumulate/push": 0.794e9, "relax/pull": 1.776e9,
                           "relax/push": 1.953e9, "traversal/pull": 1.787e9, "traversal/push": 2.025e9},
    },
}
#: The model a GPU missing from KNOWN_DEVICES starts from (its rates scaled by its own memory bandwidth).
REFERENCE_DEVICE = "NVIDIA H200"


def calibration_for(backend, refresh: bool = False) -> Calibration:
    """This machine's calibration for ``backend``'s device: cached, or made now and cached.

    On a GPU with no cached calibration it is :func:`quick_calibration` (well under a second:
    the bus measured, the edge rates from its model's table); ``refresh`` (``graphferry
    calibrate --refresh``) measures every figure (tens of seconds: it compiles and runs the
    reference programs on the device and the CPU). The CPU backend measures every figure.
    """
    with phase("calibration"):
        device = device_key(backend)
        if not refresh:
            cal = cost_module.load_cached(device)
            if cal is not None:
                return cal
        if backend.is_device and not refresh:
            cal = quick_calibration(backend)
        else:
            log.info("calibrating the cost model on %s (once; cached)", device)
            cal = measure(backend)
        path = cost_module.save(cal)
        log.info("calibration saved to %s", path)
        return cal


def quick_calibration(backend, *, table: dict | None = None) -> Calibration:
    """A fresh machine's calibration in well under a second: every figure the table of the
    device's model (:data:`KNOWN_DEVICES`) holds taken from it, nothing measured that it has
    (on a fresh machine the bus's measurement compiled a kernel with NVRTC and pinned 64 MB:
    most of the hybrid's first-call cost), the host's rates scaled by this machine's cores
    against the table's. A model missing from the table has its bus measured (pinned copy,
    zero-copy reads by request size, device memory) and starts from :data:`REFERENCE_DEVICE`'s
    rates, its device rates scaled by the two devices' memory bandwidth.

    Example (the CPU backend's simulated device, a model of no table):
        >>> from graphferry.backends import get_backend
        >>> cal = quick_calibration(get_backend("cpu"), table={})
        >>> cal.notes["source"], cal.copy_bandwidth > 0
        ('nominal', True)
    """
    t0 = time.perf_counter()
    table = KNOWN_DEVICES if table is None else table
    describe = getattr(backend, "device_description", None)
    model = describe() if describe else "?"
    ref = table.get(model)
    source = f"table: {model}" if ref is not None else None
    if ref is None and REFERENCE_DEVICE in table:
        ref = table[REFERENCE_DEVICE]
        source = f"table: {REFERENCE_DEVICE}, scaled"
    known = ref if model in table else {}  # the figures of this very model: never measured again
    if known.get("copy_bandwidth") and known.get("zerocopy_bandwidth") and known.get("device_copy_bandwidth"):
        copy_bw = float(known["copy_bandwidth"])
        zc = {int(k): float(v) for k, v in known["zerocopy_bandwidth"].items()}
        dev_copy = float(known["device_copy_bandwidth"])
        bus = "table"
    else:
        copy_bw, zc, dev_copy = _bus_figures(backend)
        bus = "measured"
    nominal = Calibration.nominal()
    if ref is None:
        cal = Calibration(device_key(backend), copy_bw, zc, nominal.gather_bandwidth, dict(nominal.device_edge_rate),
                          dict(nominal.host_edge_rate), nominal.launch_seconds, nominal.state_bandwidth)
        source = "nominal"
    else:
        cores = (os.cpu_count() or 1) / ref["threads"]
        ref_copy = ref.get("device_copy_bandwidth")
        dev_scale = 1.0 if model in table or not ref_copy else dev_copy / ref_copy
        cal = Calibration(device_key(backend), copy_bw, zc, ref["gather_bandwidth"] * cores,
                          {k: v * dev_scale for k, v in ref["device_edge_rate"].items()},
                          {k: v * cores for k, v in ref["host_edge_rate"].items()},
                          ref["launch_seconds"], ref["state_bandwidth"])
    cal.notes = {"threads": os.cpu_count(), "quick": True, "source": source, "bus": bus,
                 "device_copy_bandwidth": dev_copy, "seconds": round(time.perf_counter() - t0, 3),
                 "full": "graphferry calibrate --refresh measures every figure"}
    log.info("calibration from %s, the bus's figures %s, in %.3f s: copy %.1f GB/s", source, bus,
             time.perf_counter() - t0, copy_bw / 1e9)
    return cal


def _bus_figures(backend) -> tuple[float, dict[int, float], float]:
    """(pinned copy bytes/s, zero-copy reads bytes/s by request size, device copy bytes/s), measured."""
    nbytes = 64 << 20 if backend.is_device else 4 << 20
    src = backend.pinned_empty(nbytes // 4, np.int32)
    src[:] = 1
    dst = backend.empty(len(src), np.int32)

    def copy():
        backend.copy_h2d(dst, src)
        backend.synchronize()

    copy()
    copy_bw = nbytes / _best(copy)
    zc = {size: _zerocopy_rate(backend, src, size, quick=not backend.is_device) for size in REQUEST_SIZES}
    return copy_bw, zc, _device_copy_rate(backend, dst)


def _device_copy_rate(backend, arr) -> float:
    """Bytes/s of a device-to-device copy (read and write), the device memory's bandwidth."""
    other = backend.empty(len(arr), arr.dtype)

    device_copy = getattr(getattr(other, "data", None), "copy_from_device", None)  # CuPy: a plain
    # cudaMemcpy, no element-wise kernel to compile on a fresh machine

    def copy():
        if device_copy is not None:
            device_copy(arr.data, arr.nbytes)
        else:
            other[...] = arr
        backend.synchronize()

    copy()
    return 2 * arr.nbytes / _best(copy)


def device_key(backend) -> str:
    describe = getattr(backend, "device_description", None)
    return f"{backend.name}: {describe() if describe else '?'}"


def _best(fn, repeats: int = 3) -> float:
    best = float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return max(best, 1e-9)


def measure(backend, *, quick: bool = False) -> Calibration:
    """Measure every figure on ``backend`` (``quick``: small sizes, for tests)."""
    big = backend.is_device and not quick
    nbytes = (256 << 20) if big else (4 << 20 if quick else 32 << 20)
    src = backend.pinned_empty(nbytes // 4, np.int32)
    src[:] = np.arange(len(src), dtype=np.int32)
    dst = backend.empty(len(src), np.int32)

    def copy():
        backend.copy_h2d(dst, src)
        backend.synchronize()

    copy()
    copy_bw = nbytes / _best(copy)
    zc = {size: _zerocopy_rate(backend, src, size, quick) for size in REQUEST_SIZES}
    gather_bw = _gather_rate(quick)
    state = backend.asarray(src)  # to the other executor's memory: a copy on every backend
    state_bw = nbytes / _best(lambda: np.array(backend.to_host(state), copy=True))
    del dst, state
    dev_rates, host_rates, launch = _edge_rates(backend, quick)
    cal = Calibration(device_key(backend), copy_bw, zc, gather_bw, dev_rates, host_rates, launch, state_bw,
                      notes={"threads": os.cpu_count(), "quick": quick, "bytes": nbytes},
                      neighbor_rate=_neighbor_rates(backend, quick))
    log.info("calibration: copy %.1f GB/s, zero-copy %s, gather %.1f GB/s", copy_bw / 1e9,
             {k: round(v / 1e9, 2) for k, v in zc.items()}, gather_bw / 1e9)
    return cal


def _zerocopy_rate(backend, src: np.ndarray, size: int, quick: bool) -> float:
    """Bytes/s of reading ``size``-byte segments at random places of host memory from the device."""
    words = size // 4
    nseg = max(1, min(len(src) // words, (1 << 14 if quick else 1 << 18)))
    rng = np.random.default_rng(size)
    # fresh places for every timed read: repeating one set would time the GPU's L2 cache
    # (it holds mapped host lines), not the bus
    sets = [rng.integers(0, len(src) // words, nseg).astype(np.int64) for _ in range(4)]
    turn = iter(range(1 << 30))
    if backend.name == "cuda":  # a kernel reading mapped host memory
        import cupy

        kernel = cupy.RawKernel(r"""
extern "C" __global__ void gf_zc_read(const int* src, const long long* seg, int words, long long nseg,
                                      unsigned long long* out) {
    unsigned long long acc = 0;
    const long long total = nseg * words;
    for (long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x; k < total;
         k += (long long)gridDim.x * blockDim.x)
        acc += src[seg[k / words] * words + k % words];
    atomicAdd(out, acc);
}""", "gf_zc_read")
        view = backend.host_view(src)
        segs = [cupy.asarray(s) for s in sets]
        out = cupy.zeros(1, dtype=cupy.uint64)

        def run():
            seg = segs[next(turn) % len(segs)]
            kernel((1024,), (256,), (view, seg, np.int32(words), np.int64(nseg), out))
            cupy.cuda.get_current_stream().synchronize()
    else:  # the simulated device reads host memory in place
        table = src[: (len(src) // words) * words].reshape(-1, words)

        def run():
            table[sets[next(turn) % len(sets)]].sum()
    run()
    return nseg * size / _best(run)


def _gather_rate(quick: bool) -> float:
    from ..host_ops import gather_rows

    n = 1 << (14 if quick else 20)
    rng = np.random.default_rng(1)
    deg = rng.integers(0, 32, n)
    offsets = np.concatenate([[0], np.cumsum(deg)]).astype(np.int64)
    indices = rng.integers(0, n, int(offsets[-1])).astype(np.int32)
    ids = np.sort(rng.choice(n, n // 8, replace=False)).astype(np.int64)
    gathered = int((deg[ids]).sum()) * 4 + len(ids) * 8
    gather_rows(offsets, indices, None, ids)
    return gathered / _best(lambda: gather_rows(offsets, indices, None, ids))


def _edge_rates(backend, quick: bool):
    """Edges/s per class and direction on the device (resident edges) and on the CPU (host edges)."""
    from ..backends.cpu.backend import CpuBackend
    from ..graph import Graph
    from .program import Program
    from .runtime import Runtime

    scale = 12 if quick else (20 if backend.is_device else 16)
    n, m = 1 << scale, 16 << scale
    rng = np.random.default_rng(2)
    g = Graph.from_edges(rng.integers(0, n, m), rng.integers(0, n, m), n=n,
                         weights=rng.random(m).astype(np.float32) + 0.5)
    device, host, launch = {}, {}, []
    places = [(host, CpuBackend(), "host")]
    if backend.is_device:
        places.insert(0, (device, backend, "resident"))
    # the CPU backend's simulated device computes on the same cores as its CPU executor:
    # one measurement serves both (and its single-vertex iterations give the fixed cost)
    for table, b, engine in places:
        with Runtime(g, backend=b, engine=engine, budget=4 * g.edge_bytes + (1 << 20)) as rt:
            for klass, (arrays, weighted, source) in _REFERENCE.items():
                prog = Program(f"calibrate_{klass}", source=source, arrays=arrays, uses_weights=weighted)
                st = rt.start(prog, arrays={a: (1.0 if a == "x" else 0) for a in arrays})
                for direction in ("push", "pull"):
                    secs = []
                    for _ in range(3):
                        for a in arrays:
                            st.arrays[a][:] = 1.0 if a == "x" else 0
                        st.edge_map(rt.all_vertices(), direction=direction)
                        step = rt.record.steps[-1]
                        secs.append(step.kernel_seconds or step.seconds)
                    table[f"{klass}/{direction}"] = m / max(min(secs), 1e-9)
                if b is backend or not backend.is_device:
                    for _ in range(3):
                        st.edge_map(rt.frontier([0]), direction="push")
                        launch.append(rt.record.steps[-1].seconds)
    if not backend.is_device:
        device = dict(host)
    return device, host, float(np.median(launch))


_NEIGHBOR_REFERENCE = r"""
// "row": the vertex's own row (an edge map's reads)
GF_FN bool ref_row(const State& S, const GfGraph& G, const GfGraph& GT, vid_t u) {
    int64_t acc = 0;
    for (eid_t i = G.begin(u); i < G.end(u); ++i) acc += G.indices[i];
    S.out[u] = acc;
    return false;
}
// "neighbors": triangle counting's merge of the rest of u's row with each neighbour's row
GF_FN bool ref_neighbors(const State& S, const GfGraph& G, const GfGraph& GT, vid_t u) {
    const eid_t ue = G.end(u);
    int64_t common = 0;
    for (eid_t i = G.begin(u); i < ue; ++i) {
        const vid_t v = G.indices[i];
        eid_t a = i + 1, b = G.begin(v);
        const eid_t be = G.end(v);
        while (a < ue && b < be) {
            const vid_t x = G.indices[a], y = G.indices[b];
            if (x < y) ++a; else if (y < x) ++b; else { ++common; ++a; ++b; }
        }
    }
    S.out[u] = common;
    return false;
}
"""


def _neighbor_rates(backend, quick: bool) -> dict[str, float]:
    """Work per second (``neighbor_work`` edges) of the reference neighbourhood functions.

    The graph is a degree-ordered DAG of a random graph (sorted rows, each holding the
    neighbours above it, as triangle counting and LCC read), so both references do what those do.
    """
    from ..backends.cpu.backend import CpuBackend
    from ..engines.base import EdgeSide
    from ..graph import Graph
    from ..scheduler.stats import neighbor_work
    from ..transforms import degree_ordered_dag
    from .program import Program
    from .runtime import Runtime

    scale = 12 if quick else (20 if backend.is_device else 16)
    n, m = 1 << scale, 8 << scale
    rng = np.random.default_rng(3)
    g = Graph.from_edges(rng.integers(0, n, m), rng.integers(0, n, m), n=n, directed=False)
    dag = degree_ordered_dag(g)[0]
    prog = Program("calibrate_neighbors", source=_NEIGHBOR_REFERENCE, arrays={"out": "int64"},
                   neighbor_functions=("ref_row", "ref_neighbors"))
    side = EdgeSide.of(dag, 1 << 62, False)
    places = [("host", CpuBackend(), "host")]
    if backend.is_device:  # resident lends its device copy to neighbourhood functions; zerocopy reads in place
        places += [("resident", backend, "resident"), ("zerocopy", backend, "zerocopy")]
    rates = {}
    for place, b, engine in places:
        with Runtime(dag, backend=b, engine=engine, budget=4 * dag.edge_bytes + (1 << 20)) as rt:
            st = rt.start(prog)
            for reads in ("row", "neighbors"):
                secs = []
                for _ in range(3):
                    st.neighbor_map(f"ref_{reads}", in_edges=False)
                    secs.append(rt.record.steps[-1].seconds)
                rates[f"{place}/{reads}"] = int(neighbor_work(side, reads).sum()) / max(min(secs), 1e-9)
    if not backend.is_device:  # the simulated device reads host memory on the same cores
        for place in ("zerocopy", "resident"):
            for reads in ("row", "neighbors"):
                rates[f"{place}/{reads}"] = rates[f"host/{reads}"]
    return rates
