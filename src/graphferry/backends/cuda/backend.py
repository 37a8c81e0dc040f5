"""The CUDA backend: programs compiled with NVRTC (CuPy ``RawModule``), streams, pinned and mapped memory.

The program's C++ text is the same the CPU backend compiles; the kernels around
it are in ``gf_cuda_kernels.cuh`` (degree-aware thread/warp/block/grid per row,
128-byte aligned warp reads for zero-copy). Memory and transfers:

* Kernels and small uploads run on the current CuPy stream (the compute
  stream); host-to-device edge copies run on a separate non-blocking copy
  stream, ordered by events, so an engine can copy partition ``i + 1`` while
  the kernel on partition ``i`` runs (``copy_h2d(..., after=token)`` waits for
  a kernel the engine marked with :meth:`record`).
* Edge arrays are pinned in place (``cudaHostRegister``, mapped) when an
  engine asks (:meth:`register_host`); copies from anything not pinned go
  through the pinned staging slots (:class:`~graphferry.backends.staging.StagedUpload`:
  several threads read each slot, from a store's file where the array maps one,
  while the previous slot's copy runs).
* A program's kernels compile in groups (:mod:`.kernel_groups`), all at once in
  background threads; a launch waits for its own group only.
* :meth:`host_view` gives kernels a device-readable alias of host memory
  (zero-copy); :meth:`managed_view` a managed-memory copy of an edge side for
  the ``unified`` engine, never larger than the GPU's free memory unless
  ``allow_managed_oversubscription`` is set.
* CUDA events time each copy and kernel; :meth:`take_device_times` hands the
  sums to the run record after each iteration.

Environment: ``GRAPHFERRY_CUDA_SYNC=1`` synchronises after every launch (errors
surface at the launch that caused them); ``GRAPHFERRY_ALLOW_MANAGED_OVERSUBSCRIPTION=1``
opts in to managed memory beyond the free device memory; ``GRAPHFERRY_CUDA_ONE_MODULE=1`` compiles
each program as one unit when it is first asked for (the form before kernel groups, for comparison).
"""

from __future__ import annotations

import hashlib
import logging
import os
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import cupy
import numpy as np

from ...errors import CompilerError
from ...phase_clock import phase
from ..base import Backend, CompiledProgram, PartitionView, weight_bytes
from ..staging import StagedUpload
from .bitmap_kernels import BITMAP_SRC as _BITMAP_SRC
from .kernel_groups import KERNEL_GROUPS, group_source, groups_needed, kernel_group
from .memory import D2H, H2D, HostRegistry, ManagedEdges, SlotRing, env_flag, pinned_empty
from .state_ops import VertexStateOps

log = logging.getLogger(__name__)

CUDA_DIR = Path(__file__).resolve().parent
INCLUDE_DIR = CUDA_DIR.parent / "include"   # gf_prelude.h (same as runtime.program.INCLUDE_DIR)
BLOCK = 256                 # must match GF_BLOCK in gf_cuda_kernels.cuh
HUGE_MIN = 2048             # rows this heavy go to the grid-wide kernel (the queue carries it: huge_queue)
BLOCK_MIN = 256             # must match GF_BLOCK_MIN: rows this heavy are read by a whole block
CHUNK = 4 * BLOCK           # GF_CHUNK: edges per grid-wide work item
SM_THREADS = 2048           # threads a multiprocessor holds at once (sm_80, sm_90): a wave's blocks
# The grid-wide kernel's grid. Its blocks walk the work queue with a stride of the grid. Push
# reads every edge of its items: on an H200, SSSP's top-hub round at Kronecker 26 (816 K items,
# 1.23 G edges, zero-copy) took 818 ms with 4 blocks per SM, 518 with the 8 the device holds at
# once, 324 with 16 and about 200 with 32 (as the row kernel alone does, one block per heavy row);
# at Kronecker 25, 67 ms with any of them. Whole SSSP calls at Kronecker 26, zero-copy / hybrid
# (bench/huge_grid_bench.py, huge-grid-kron26-h200.json): 4 per SM 1330 / 861 ms, 4 waves of
# resident blocks for push 779 / 565, 64 blocks per SM (8 waves) in both directions 734 / 549;
# BFS, WCC and PageRank moved by under 3% either way. So push launches 64 blocks per SM; pull,
# never measured better for it, keeps its 4 blocks per SM. (Push's grid was meant as 8 waves of
# the blocks an occupancy query found resident at once, but the query read a ``ptr`` CuPy's
# RawKernel lacks and always fell back to 8 per SM: every figure above is of 64 per SM.)
PUSH_HUGE_BLOCKS_PER_SM = 64
PULL_HUGE_BLOCKS_PER_SM = 4
# smaller arrays are copied into pinned memory instead of registered. cudaHostRegister pins whole
# pages, and a heap array's first and last pages hold other allocations: a later copy from such a
# neighbour that starts inside the pinned pages and ends past them fails with cudaErrorInvalidValue
# (the hybrid engine's SSSP at Kronecker 25 on an H200, copying a changed-id list). Arrays this
# large are mmap'd by the C allocator (its threshold tops out at 32 MiB), so their pages are their own.
REGISTER_MIN_BYTES = 64 << 20
PINNED_RESULT_MIN_BYTES = 1 << 20  # results at least this large come back into pinned memory
_NVRTC_OPTIONS = ("-std=c++17", f"-I{INCLUDE_DIR}", f"-I{CUDA_DIR}")


def _headers_digest() -> str:
    h = hashlib.sha256()
    for p in sorted(list(INCLUDE_DIR.glob("*.h")) + list(CUDA_DIR.glob("*.cuh"))):
        h.update(p.name.encode())
        h.update(p.read_bytes())
    return h.hexdigest()[:16]


_U64 = np.uint64
_I64 = np.int64


def _p(a) -> np.uint64:
    """Kernel pointer argument (0 for None)."""
    if a is None:
        return _U64(0)
    if isinstance(a, cupy.ndarray):
        return _U64(a.data.ptr)
    raise TypeError(f"a kernel argument is a {type(a).__name__}, not a device array (engine bug)")




_compile_pool = None
_compile_pool_lock = threading.Lock()


#: The most threads compiling at once: a program's kernel groups (up to 13: BFS's and WCC's for the
#: hybrid) and the backend's module all start together. NVRTC compiles them in parallel threads
#: (dev/nvrtc_probe.py on the H200's host: WCC's 13 groups in 0.88 s in threads through CuPy, 3.98 s
#: one after another); a fresh machine's longer wait was the host library's C++ build, now split
#: (host_ops.compiler's shards). An NVRTC instance holds a few hundred MB.
COMPILE_THREADS = 16


def compile_pool():
    """Threads that compile kernels (NVRTC) and the host library (the C++ compiler) at once."""
    global _compile_pool
    with _compile_pool_lock:
        if _compile_pool is None:
            threads = max(2, min(COMPILE_THREADS, os.cpu_count() or 1))
            _compile_pool = ThreadPoolExecutor(threads, thread_name_prefix="gf-compile")
        return _compile_pool


def _compile_module(src: str, name: str, device: int = 0, options=_NVRTC_OPTIONS) -> "cupy.RawModule":
    try:
        with cupy.cuda.Device(device):  # a worker thread's current device is device 0
            module = cupy.RawModule(code=src, options=options)
            module.compile()
    except cupy.cuda.compiler.CompileException as e:
        raise CompilerError(f"NVRTC rejected program {name}:\n{e}") from e
    return module


class CudaProgram(CompiledProgram):
    """A program's kernels for one device and vertex-id type (NVRTC), compiled in groups at once."""

    def __init__(self, backend: "CudaBackend", program, vid_dtype: np.dtype, groups: list[str] | None = None):
        self.backend = backend
        self.program = program
        vid_ctype = "int32_t" if np.dtype(vid_dtype) == np.int32 else "int64_t"
        # CuPy's kernel cache keys on the source text only: name the headers' digest in it
        src = f"// graphferry headers {_headers_digest()}\n" + program.translation_unit(vid_ctype, "gf_cuda_kernels.cuh")
        label = f"{program.name!r} ({vid_ctype})"
        self._label = label
        self._modules: dict[str, Any] = {}
        #: the groups not submitted yet: their translation units (submitted when first asked for)
        self._pending: dict[str, str] = {}
        if env_flag("GRAPHFERRY_CUDA_ONE_MODULE"):  # the whole program as one unit, compiled now
            with phase("compile"):
                whole = _compile_module(src, label, backend.device_id)
            self._modules = {g: whole for g in KERNEL_GROUPS}
        else:
            self._pending = {g: group_source(src, g) for g in groups_needed(program)}
            self.submit(groups)
        self._fns: dict[str, object] = {}

    def submit(self, groups: list[str] | None = None) -> None:
        """Submit the compilation of ``groups`` (None: every group not submitted yet) to the compile
        pool, in order; groups submitted already, or not the program's, are skipped. A one-shot
        run submits only those its engine launches (:func:`.kernel_groups.groups_for`): on a
        fresh machine the pool then compiles nothing its first launches do not wait for."""
        pool = compile_pool()
        with self.backend._compiling:
            for group in list(self._pending) if groups is None else groups:
                src = self._pending.pop(group, None)
                if src is not None:
                    self._modules[group] = pool.submit(_compile_module, src, self._label, self.backend.device_id)

    def module(self, group: str):
        """Kernel group ``group``'s module, waiting for its compilation (submitted now if it was not)."""
        if group in self._pending:
            self.submit([group])
        m = self._modules.get(group)
        if m is None:
            raise CompilerError(f"program {self.program.name!r} has no {group} kernels")
        if isinstance(m, Future):
            with phase("compile"):  # NVRTC, or the module's load from CuPy's disk cache, in a pool thread
                m = self._modules[group] = m.result()
        return m

    def wait(self) -> None:
        """Wait until every group is compiled (raises the first compilation's error)."""
        self.submit()
        for group in list(self._modules):
            self.module(group)

    def _fn(self, name: str):
        f = self._fns.get(name)
        if f is None:
            f = self._fns[name] = self.module(kernel_group(name)).get_function(name)
        return f

    def _edge(self, op: str, tables, view: PartitionView, row_list, in_bits, out_bits) -> None:
        b = self.backend
        count = int(row_list.size) if row_list is not None else int(view.rows)
        if count == 0:
            return
        A, F, I = tables
        nedges = view.edge_capacity
        coop = op == "push" or self.program.has_push
        mapped = b.is_mapped(view.indices)
        blocks = (count + BLOCK - 1) // BLOCK
        # Which rows the grid-wide kernel takes. A block takes its rows of BLOCK_MIN edges or more
        # one after another; in a launch of several waves other blocks hide that, but a narrow one
        # (a copied group's active rows) waits for its slowest block while most of the device
        # idles. SSSP's first round at Kronecker 25 (H200, dev/launch_width_probe.py): the filter
        # engine's 157 launches of 16 blocks each spent 141.8 ms in row kernels, 20.3 ms when
        # rows from BLOCK_MIN went to the grid-wide kernel (resident's one launch: 13 ms for all).
        # Views read in place keep HUGE_MIN: there the grid-wide kernel read those rows slower
        # (the zerocopy engine's first round 66.6 ms, 94.2 with BLOCK_MIN), and wide launches
        # moved by no more than the calls' spread either way.
        narrow = blocks < b.num_sms * (SM_THREADS // BLOCK)  # under one wave of the device's blocks
        huge_min = BLOCK_MIN if narrow and not mapped else HUGE_MIN
        huge = coop and nedges >= huge_min
        # work items: nedges / CHUNK full chunks at most, and two partial ones per heavy row (its
        # first, from the line that holds its first edge, and its last); heavy rows are at most
        # the launch's rows and nedges / huge_min
        capacity = nedges // CHUNK + 2 * min(count, nedges // huge_min) + 2
        hl, hc = b.huge_queue(capacity, huge_min) if huge else (None, None)
        index_code, weights, weight_code = view.kernel_codes()  # fused edges: weights in the id fields
        args = (_p(A), _p(F), _p(I), _p(view.offsets), _p(view.indices), _I64(index_code), _p(weights),
                _I64(weight_code), _p(view.vertex_ids), _I64(view.lo), _I64(view.rows), _I64(view.edge_base),
                _p(row_list), _I64(0 if row_list is None else count), _p(in_bits), _p(out_bits),
                _p(hl), _p(hc))
        stream = b.compute_stream()
        form = "_packed" if view.index_bits else ""  # each kernel is compiled for both forms of ids
        name = (f"gf_{op}_zc" if mapped else f"gf_{op}") + form
        mark = b.kernel_begin(stream)
        self._fn(name)((blocks,), (BLOCK,), args)  # current stream
        if huge:
            fn = f"gf_{op}_huge{form}"
            grid = b.huge_grid or (PUSH_HUGE_BLOCKS_PER_SM if op == "push" else PULL_HUGE_BLOCKS_PER_SM) * b.num_sms
            self._fn(fn)((grid,), (BLOCK,), args)
        b.kernel_end(mark, stream)

    def push(self, tables, view, row_list, in_bits, out_bits):
        self._edge("push", tables, view, row_list, in_bits, out_bits)

    def pull(self, tables, view, row_list, in_bits, out_bits):
        self._edge("pull", tables, view, row_list, in_bits, out_bits)

    def vertex_map(self, fn, tables, lo, hi, ids, in_bits, out_bits):
        count = int(ids.size) if ids is not None else hi - lo
        if count <= 0:
            return
        A, F, I = tables
        b = self.backend
        grid = max(1, min((count + BLOCK - 1) // BLOCK, b.num_sms * 16))
        self._fn(f"gf_vmap_{fn}")((grid,), (BLOCK,), (
            _p(A), _p(F), _p(I), _I64(lo), _I64(hi), _p(ids), _I64(0 if ids is None else count),
            _p(in_bits), _p(out_bits)))
        b.after_launch()

    def neighbor_map(self, fn, tables, graph, transpose, lo, hi, out_bits):
        if hi <= lo:
            return
        A, F, I = tables
        b = self.backend
        grid = max(1, min((hi - lo + BLOCK - 1) // BLOCK, b.num_sms * 16))
        self._fn(f"gf_nmap_{fn}")((grid,), (BLOCK,), (
            _p(A), _p(F), _p(I),
            _p(graph.offsets), _p(graph.indices), _p(graph.weights),
            _p(transpose.offsets), _p(transpose.indices), _p(transpose.weights),
            _I64(graph.n), _I64(lo), _I64(hi), _p(out_bits), _I64(graph.edge_base), _I64(transpose.edge_base),
            _I64(weight_bytes(graph.weights)), _I64(weight_bytes(transpose.weights))))
        b.after_launch()


class CudaBackend(VertexStateOps, Backend):
    """Kernels on one GPU (``device``) through CuPy."""

    name = "cuda"
    is_device = True

    def __init__(self, device: int = 0):
        self.xp = cupy
        self.device_id = int(device)
        self.device = cupy.cuda.Device(self.device_id)
        # one backend per device; several devices come with the device lists (Lux)
        self.device.use()
        self.num_sms = int(cupy.cuda.runtime.getDeviceProperties(self.device_id)["multiProcessorCount"])
        self._description: str | None = None
        self.huge_grid: int | None = None  # the grid-wide kernel's grid; None: by direction (above)
        # A delta-stepping round costs a GPU launches and host reads whatever its size, so
        # PriorityBuckets merges buckets up to bucket_fill vertices. Measured on an H200,
        # Kronecker 25, resident SSSP: fill 1 (plain delta-stepping) 44 rounds, 179 ms; the
        # card's resident threads (270 K) 16 rounds, 145 ms; 4 M 10 rounds, 130 ms; unbounded
        # (every pending vertex, frontier Bellman-Ford's order) 10 rounds, 113 ms. Unbounded it is,
        # once deferring stops paying. On a uniform random graph of the same size Bellman-Ford's
        # order relaxes every arc 6 times (resident 226 ms, zero-copy 1427 ms): taking the lowest
        # buckets up to n/32 vertices a round relaxes each 1.3 times in as many rounds (134 and
        # 449 ms), where on Kronecker 25 it costs 8 rounds more (hybrid 294 -> 366 ms).
        # PriorityBuckets defers while the vertices it held back keep dropping (uniform: 20-85%
        # of them a round; Kronecker: 10% by the third deferral) by more relaxations than a round
        # costs. A round's price in relaxations, from the same sweep fitted to rounds x arcs
        # relaxed (time = price x rounds + per-arc x arcs): resident 1.6 ms a round against
        # 16 ms an arc-pass of 1.07 G arcs (about 100 M relaxations); across the bus 5 ms against
        # 160 ms (about 35 M). Measured in bench/results/sssp-fill-h200.json.
        self.bucket_fill = 1 << 62
        self.bucket_share = 1 / 32
        self.round_price_resident = 100e6
        self.round_price_bus = 35e6
        self.dense_buckets = True
        # Atomics on scattered heads make a push's edges dearer than a pull's here: delta PageRank
        # at Kronecker 25 (hybrid, H200, peers-kron25-h200-s15.json's records) pushed 1.0 G edges
        # in 54-60 ms of kernels where a pull of all 1.05 G took 42.5 ms (15-19 against 24.6 G
        # edges/s). A program whose pull reads every edge pulls past 2/3 of them (direction.py).
        self.full_pull_fraction = 2 / 3
        self._copy_stream = cupy.cuda.Stream(non_blocking=True)
        self.registry = HostRegistry()
        self._ring: SlotRing | None = None
        self._staging: StagedUpload | None = None
        self._programs: dict[tuple, CudaProgram] = {}
        self._compiling = threading.RLock()  # CudaProgram.submit takes it inside compile()
        self._transfers_lock = threading.Lock()
        self._huge: dict[int, tuple] = {}  # stream -> the huge-row queue of kernels on it
        self._lanes: list = []
        self._bitmap_module = None
        self.timing = True
        self._copy_events: list[tuple] = []
        self._kernel_events: list[tuple] = []
        self.sync_launches = env_flag("GRAPHFERRY_CUDA_SYNC")
        #: large results into CuPy's pinned pool (reused by the next call's); off: through the
        #: staging slots into plain memory (a one-shot process: see :meth:`to_host`)
        self.results_pinned = True
        self.allow_managed_oversubscription = env_flag("GRAPHFERRY_ALLOW_MANAGED_OVERSUBSCRIPTION")
        self._prewarm()

    # ------------------------------------------------------------ programs
    def compile(self, program, vid_dtype, groups: list[str] | None = None):
        """``program``'s kernels for ``vid_dtype``: its kernel groups submitted to the compile pool
        (``groups``: only those, the first time; None: every group, the first time). A program
        asked for again is returned as it is: a group not submitted yet compiles when a launch
        first asks for it (:meth:`CudaProgram.module`)."""
        key = (self.device_id, program.fingerprint(), np.dtype(vid_dtype).str)
        with self._compiling:  # a one-shot run asks from a background thread too (cli.device_start)
            made = self._programs.get(key)
            if made is None:
                made = self._programs[key] = CudaProgram(self, program, vid_dtype, groups)
            return made

    def device_description(self) -> str:
        if self._description is None:  # asked per call by the calibration's cache key: the driver once
            name = cupy.cuda.runtime.getDeviceProperties(self.device_id)["name"]
            self._description = name.decode() if isinstance(name, bytes) else str(name)
        return self._description

    # ------------------------------------------------------------ streams, events
    @staticmethod
    def compute_stream():
        return cupy.cuda.get_current_stream()

    def record(self):
        """A token for "everything issued on the compute stream so far"."""
        ev = cupy.cuda.Event(disable_timing=True)
        ev.record(self.compute_stream())
        return ev

    @staticmethod
    def host_wait(token) -> None:
        if token is not None:
            token.synchronize()

    def lanes(self, count: int) -> list:
        """``count`` non-blocking streams (kept for the next call), used as ``with lane:``."""
        while len(self._lanes) < count:
            self._lanes.append(cupy.cuda.Stream(non_blocking=True))
        return self._lanes[:count]

    @staticmethod
    def wait_for(token) -> None:
        if token is not None:
            cupy.cuda.get_current_stream().wait_event(token)

    def join_lanes(self, lanes: list) -> None:
        main = self.compute_stream()
        for lane in lanes:
            if lane is not main:
                ev = cupy.cuda.Event(disable_timing=True)
                ev.record(lane)
                main.wait_event(ev)

    def kernel_begin(self, stream):
        if not self.timing:
            return None
        ev = cupy.cuda.Event()
        ev.record(stream)
        return ev

    def kernel_end(self, start, stream) -> None:
        if start is not None:
            ev = cupy.cuda.Event()
            ev.record(stream)
            self._kernel_events.append((start, ev))
        self.after_launch()

    def after_launch(self) -> None:
        if self.sync_launches:
            self.compute_stream().synchronize()

    def take_device_times(self):
        """(copy seconds, kernel seconds) measured with events since the last call (after a sync)."""
        def total(pairs):
            return sum(cupy.cuda.get_elapsed_time(a, b) for a, b in pairs) / 1e3

        out = (total(self._copy_events), total(self._kernel_events))
        self._copy_events.clear()
        self._kernel_events.clear()
        return out

    def synchronize(self) -> None:
        self._copy_stream.synchronize()
        self.compute_stream().synchronize()

    def huge_queue(self, capacity: int, huge_min: int = HUGE_MIN):
        """The grid-wide kernel's work queue: (row, chunk) pairs and [count, blocks done, the
        launch's threshold ``huge_min``: rows of at least that many edges go to the queue]; one
        per stream, so that kernels of two lanes running at once never share one."""
        key = self.compute_stream().ptr
        queue, counts = self._huge.get(key, (None, {}))
        count = counts.get(huge_min)
        if count is None:
            count = counts[huge_min] = cupy.asarray(np.array([0, 0, huge_min], dtype=np.uint64))
        if queue is None or queue.size < 2 * capacity:
            queue = cupy.empty(2 * max(capacity, 1024), dtype=cupy.int64)
        self._huge[key] = (queue, counts)
        return queue, count

    # ------------------------------------------------------------ memory
    def free_device_bytes(self) -> int:
        free, _total = cupy.cuda.runtime.memGetInfo()
        return int(free) + int(cupy.get_default_memory_pool().free_bytes())

    def asarray(self, host):
        if isinstance(host, cupy.ndarray):
            return self._device_copy(host)
        host = np.ascontiguousarray(host)
        out = cupy.empty(host.shape, dtype=host.dtype)
        if host.nbytes:
            if self._ring is None:
                self._small_upload_ring()
            stream = self.compute_stream()
            if not self._ring.upload(host, out, stream):
                if not self._pinned(int(host.ctypes.data), int(host.nbytes)):
                    # e.g. a store's offsets: read into the staging slots by several threads
                    self._upload_unpinned(out.data.ptr, host, stream)
                    return out
                try:
                    out.set(host)
                except cupy.cuda.runtime.CUDARuntimeError:
                    # host memory the driver half-knows as pinned (see REGISTER_MIN_BYTES): through a
                    # pinned copy of our own
                    staged = pinned_empty(host.size, host.dtype).reshape(host.shape)
                    staged[...] = host
                    out.set(staged)
                    self.compute_stream().synchronize()  # before the staged buffer can be freed
        return out

    def to_host(self, arr) -> np.ndarray:
        """One device-to-host transfer; large arrays land in pinned memory (CuPy's pinned pool,
        reused across calls), which the copy fills at the bus's speed instead of pageable
        memory's (measured at Kronecker 25: two 268 MB BFS results took 150 ms pageable).
        With :attr:`results_pinned` off (a one-shot process, which reads each result once:
        pinning fresh memory costs 0.4 s a GB on the H200's host), they come through the staging
        slots into plain memory instead (:meth:`StagedUpload.download`)."""
        if isinstance(arr, cupy.ndarray):
            if arr.nbytes >= PINNED_RESULT_MIN_BYTES and arr.flags.c_contiguous:
                if not self.results_pinned:
                    return self._download(arr)
                import cupyx

                out = cupyx.empty_pinned(arr.shape, dtype=arr.dtype)
                arr.get(out=out)
                return out
            return cupy.asnumpy(arr)
        return np.asarray(arr)

    def _download(self, arr) -> np.ndarray:
        """``arr`` into a new plain host array through the pinned staging slots, in stream order."""
        out = np.empty(arr.shape, dtype=arr.dtype)
        stream = self.compute_stream()  # after the kernels that wrote it
        base = int(arr.data.ptr)

        def fetch(buf, off):
            cupy.cuda.runtime.memcpyAsync(buf.ctypes.data, base + off, buf.nbytes, D2H, stream.ptr)
            ev = cupy.cuda.Event(disable_timing=True)
            ev.record(stream)
            return ev

        self._staging_slots().download(out, fetch, lambda ev: ev.synchronize())
        return out

    def _staging_slots(self) -> StagedUpload:
        with self._transfers_lock:
            if self._staging is None:
                self._staging = StagedUpload(lambda nbytes: pinned_empty(nbytes, np.uint8))
            return self._staging

    def _small_upload_ring(self) -> SlotRing:
        with self._transfers_lock:
            if self._ring is None:
                self._ring = SlotRing()
            return self._ring

    def prepare_transfers(self) -> None:
        """Pin the staging slots and the small uploads' ring now (384 MB: about 0.15 s of
        ``cudaHostAlloc`` on the H200's host), which the first copies would otherwise wait for; a
        one-shot run does it in the background while it reads the graph (cli.device_start)."""
        self._small_upload_ring()
        self._staging_slots().reserve()

    def pointer(self, arr) -> int:
        if arr is None:
            return 0
        if isinstance(arr, cupy.ndarray):
            return int(arr.data.ptr)
        return int(arr.ctypes.data)

    def pinned_empty(self, count: int, dtype) -> np.ndarray:
        arr = pinned_empty(count, dtype)
        self.registry.adopt(arr)
        return arr

    def register_host(self, host: np.ndarray) -> bool:
        """Pin a large host array in place so copies from it run at full speed (idempotent)."""
        if host is None or host.nbytes < REGISTER_MIN_BYTES:
            return False
        if host.flags.c_contiguous and self._pinned(int(host.ctypes.data), int(host.nbytes)):
            return True  # already page-locked (cudaHostAlloc'd)
        return self.registry.register(host)

    def is_pinned(self, host: np.ndarray) -> bool:
        return (host is not None and host.nbytes > 0 and host.flags.c_contiguous
                and self._pinned(int(host.ctypes.data), int(host.nbytes)))

    def _pinned(self, ptr: int, nbytes: int) -> bool:
        if self.registry.covers(ptr, nbytes):
            return True
        try:
            for p in (ptr, ptr + nbytes - 1):
                if cupy.cuda.runtime.pointerGetAttributes(p).type != 1:  # cudaMemoryTypeHost
                    return False
        except cupy.cuda.runtime.CUDARuntimeError:
            return False
        return True

    def copy_h2d(self, dst, src, after=None):
        """Copy host ``src`` into device ``dst`` on the copy stream; later compute-stream work sees it.

        ``after``: a :meth:`record` token the copy must wait for (the last kernel
        that read ``dst``). Without one the copy waits for everything issued on the
        compute stream so far. Returns a token that is reached when the copy is done
        (an engine waits on it before reusing a pinned source buffer).
        """
        src = np.ascontiguousarray(src)
        if dst.nbytes != src.nbytes:
            raise ValueError(f"copy of {src.nbytes} bytes into a {dst.nbytes}-byte device buffer")
        if src.nbytes == 0:
            return None
        cs = self._copy_stream
        # Without a token, ``dst`` may be memory CuPy's pool has just handed out again: freed on the
        # compute stream, whose kernels may still read its last owner's bytes (a dropped block, a
        # slot given back). The pool orders reuse on the stream that frees, not on this one, so the
        # copy must wait for the compute stream as it stands; otherwise it overwrites edges a
        # running kernel reads (the GPU suite's illegal addresses under load, session 22-23: gone
        # with this wait, or with a sync after every edge kernel). A token (an engine's own buffer,
        # last read by the kernel it names) keeps the copy free to overlap later kernels.
        cs.wait_event(after if after is not None else self.record())
        start = None
        if self.timing:
            start = cupy.cuda.Event()
            start.record(cs)
        ptr = int(src.ctypes.data)
        if self._pinned(ptr, src.nbytes):
            cupy.cuda.runtime.memcpyAsync(dst.data.ptr, ptr, src.nbytes, H2D, cs.ptr)
        else:
            self._upload_unpinned(dst.data.ptr, src, cs)
        done = cupy.cuda.Event(disable_timing=not self.timing)
        done.record(cs)
        if start is not None:
            self._copy_events.append((start, done))
        self.compute_stream().wait_event(done)
        return done

    def _upload_unpinned(self, dst_ptr: int, src: np.ndarray, stream) -> None:
        """Copy unpinned host ``src`` to ``dst_ptr`` on ``stream`` through the pinned staging slots
        (:class:`~graphferry.backends.staging.StagedUpload`): several threads read each slot, from
        the store's file where ``src`` maps one, while the previous slot's copy runs."""
        staging = self._staging_slots()

        def send(buf, off):
            cupy.cuda.runtime.memcpyAsync(dst_ptr + off, buf.ctypes.data, buf.nbytes, H2D, stream.ptr)
            ev = cupy.cuda.Event(disable_timing=True)
            ev.record(stream)
            return ev

        staging.upload(src, send, lambda ev: ev.synchronize())

    def host_view(self, host):
        """A device-readable alias of host memory (zero-copy): registered in place, or a pinned copy."""
        host = np.asarray(host)
        if host.nbytes == 0:
            return cupy.empty(host.shape, dtype=host.dtype)
        owner = host
        contiguous = host.flags.c_contiguous
        ptr, nbytes = int(host.ctypes.data), int(host.nbytes)
        if contiguous and (self.registry.covers(ptr, nbytes) or self._pinned(ptr, nbytes)):
            if not self.registry.covers(ptr, nbytes):
                self.registry.adopt(host)   # cudaHostAlloc'd: mapped under unified addressing
        elif not (contiguous and nbytes >= REGISTER_MIN_BYTES and self.registry.register(host)):
            owner = pinned_empty(host.size, host.dtype).reshape(host.shape)
            owner[...] = host
            self.registry.adopt(owner)
        mem = cupy.cuda.UnownedMemory(int(owner.ctypes.data), owner.nbytes, owner, self.device_id)
        return cupy.ndarray(owner.shape, dtype=owner.dtype, memptr=cupy.cuda.MemoryPointer(mem, 0))

    def is_mapped(self, arr) -> bool:
        """True when ``arr`` lies in host memory the kernels read over the bus."""
        return arr is not None and arr.size > 0 and self.registry.covers(int(arr.data.ptr), int(arr.nbytes))

    def managed_view(self, side, arena):
        return ManagedEdges(self, side, arena, allow_oversubscription=self.allow_managed_oversubscription)

    # ------------------------------------------------------------ bitmaps
    def _bitmap_fn(self, name: str):
        m = self._bitmap_module
        if isinstance(m, Future):
            with phase("compile"):
                m = self._bitmap_module = m.result()
        elif m is None:
            with phase("compile"):
                m = self._bitmap_module = _compile_module(_BITMAP_SRC, "bitmaps", self.device_id, options=())
        return m.get_function(name)

    def _prewarm(self) -> None:
        """Start compiling, in the background, what nearly every run needs: the bitmap kernels
        (NVRTC) and the host library (the C++ compiler: several seconds on a fresh machine,
        otherwise a load from its disk cache)."""
        pool = compile_pool()
        self._bitmap_module = pool.submit(_compile_module, _BITMAP_SRC, "bitmaps", self.device_id, ())

        def host_library():
            try:
                from ... import host_ops

                host_ops._lib()
            except Exception as e:  # noqa: BLE001 - its first real use reports the error
                log.debug("host library not built ahead (%s)", e)
        pool.submit(host_library)

    def ids_from_bits(self, bits, n: int):
        nwords = int(bits.size)
        if nwords == 0 or n == 0:
            return cupy.empty(0, dtype=cupy.int64)
        grid = ((nwords + BLOCK - 1) // BLOCK,)
        counts = cupy.empty(nwords, dtype=cupy.int64)
        self._bitmap_fn("gf_popc_words")(grid, (BLOCK,), (bits, _I64(nwords), _I64(n), counts))
        ends = cupy.cumsum(counts)
        total = int(ends[-1])
        out = cupy.empty(total, dtype=cupy.int64)
        if total:
            self._bitmap_fn("gf_scatter_ids")(grid, (BLOCK,), (bits, _I64(nwords), _I64(n), ends, out))
        return out

    def bits_from_ids(self, ids, n: int):
        bits = cupy.zeros(self.bitmap_words(n), dtype=cupy.uint32)
        ids = cupy.asarray(ids, dtype=cupy.int64) if isinstance(ids, cupy.ndarray) else self.asarray(np.asarray(ids, dtype=np.int64))
        k = int(ids.size)
        if k:
            self._bitmap_fn("gf_set_ids")(((k + BLOCK - 1) // BLOCK,), (BLOCK,), (ids, _I64(k), bits))
        return bits

    def bits_degree_sum(self, bits, degrees, n: int) -> tuple[int, int]:
        """(set bits, sum of ``degrees`` over them) of a bitmap: one kernel, one 16-byte read back.

        BFS's direction choice needs the frontier's edges each round; listing the ids to gather
        their degrees wrote and read 8 bytes per active vertex (about 0.27 ms a round at
        Kronecker 25 on an H200), where a pull round never needs the ids."""
        nwords = int(bits.size)
        if nwords == 0 or n == 0:
            return 0, 0
        kind = {np.dtype(np.int64): "i64", np.dtype(np.int32): "i32"}.get(np.dtype(degrees.dtype))
        if kind is None:
            return super().bits_degree_sum(bits, degrees, n)
        out = cupy.zeros(2, dtype=cupy.uint64)
        grid = (max(1, min((nwords + BLOCK - 1) // BLOCK, self.num_sms * 8)),)
        self._bitmap_fn(f"gf_bits_degrees_{kind}")(grid, (BLOCK,), (bits, _I64(nwords), _I64(n), degrees, out))
        count, edges = (int(x) for x in out.get())
        return count, edges

    def row_prefixes(self, offsets, indices, k, out_offsets, out_indices) -> int:
        # the counts' prefix sum by CuPy, the copy by one kernel (no edge-sized temporaries)
        n = int(offsets.size) - 1
        total = self._prefix_offsets(offsets, k, out_offsets)
        kind = "i32" if np.dtype(indices.dtype) == np.int32 else "i64"
        grid = max(1, min((n + BLOCK - 1) // BLOCK, self.num_sms * 16))
        self._bitmap_fn(f"gf_row_prefixes_{kind}")((grid,), (BLOCK,), (offsets, out_offsets, _I64(n), indices,
                                                                       out_indices))
        return total

    def partition_counts(self, ids, offsets, bounds, itemsizes) -> np.ndarray:
        """One kernel and one read back of ``3 * partitions`` numbers (the generic form took a
        dozen CuPy calls, about 1 ms of a sparse hybrid round at Kronecker 25 on an H200)."""
        parts = int(bounds.size) - 1
        if (ids.dtype != cupy.int64 or offsets.dtype != cupy.int64 or bounds.dtype != cupy.int64
                or not 1 <= len(itemsizes) <= 2 or parts < 1):
            return super().partition_counts(ids, offsets, bounds, itemsizes)
        k = int(ids.size)
        out = cupy.zeros(3 * parts, dtype=cupy.uint64)
        if k:
            in_shared = 3 * parts * 8 <= 24 << 10
            grid = (max(1, min((k + BLOCK - 1) // BLOCK, self.num_sms * 4)),)
            s1 = int(itemsizes[1]) if len(itemsizes) > 1 else 0
            self._bitmap_fn("gf_partition_counts")(
                grid, (BLOCK,), (ids, _I64(k), offsets, bounds, np.int32(parts), np.int32(itemsizes[0]),
                                 np.int32(s1), np.int32(in_shared), out),
                shared_mem=3 * parts * 8 if in_shared else 0)
        return out.get().astype(np.int64).reshape(parts, 3).T.copy()

    def close(self) -> None:
        self.synchronize()
        if self._staging is not None:
            self._staging.close()
            self._staging = None
        self.registry.release_all()
