"""Host memory for the CUDA backend: pinned staging, arrays pinned in place, zero-copy, managed edges.

* :class:`HostRegistry`: ``cudaHostRegister`` (portable, mapped, read-only for
  read-only maps) of whole numpy arrays in chunks of at most 64 GiB, so copies
  from them run at the bus's pinned speed and kernels can read them directly
  (on CUDA 13 with ``canUseHostPointerForRegisteredMem`` the host pointer is
  the device pointer).
* :class:`SlotRing`: pinned slots for small uploads (row lists, scalar tables)
  so they are stream-ordered and never stall the host.
* copies from pageable or memory-mapped arrays that are not registered go through
  :class:`~graphferry.backends.staging.StagedUpload` (the backend's pinned slots).
* :class:`ManagedEdges`: the ``unified`` engine's managed-memory copy of an
  edge side, read-mostly, a partition prefetched before its kernel and evicted
  (prefetched to the host) past the budget. It refuses to allocate more
  managed memory than the GPU has free unless the caller opts in.

Only imported by :mod:`graphferry.backends.cuda.backend` (CuPy required);
``cuda.bindings`` is imported lazily for the calls CuPy gets wrong on CUDA 13.
"""

from __future__ import annotations

import logging
import mmap
import os
import weakref
from collections import OrderedDict

import cupy
import numpy as np

from ...errors import DeviceMemoryError

log = logging.getLogger(__name__)

REGISTER_CHUNK = 64 << 30
HOST_REGISTER_PORTABLE = 1
HOST_REGISTER_MAPPED = 2
HOST_REGISTER_READ_ONLY = 8
H2D = 1  # cudaMemcpyHostToDevice
D2H = 2  # cudaMemcpyDeviceToHost
PAGE = mmap.PAGESIZE
#: the managed copy may use at most this fraction of the GPU's free memory
MANAGED_FREE_FRACTION = 0.9


def _floor(x: int) -> int:
    return x - x % PAGE


def _ceil(x: int) -> int:
    return -(-x // PAGE) * PAGE


class HostRegistry:
    """Host ranges pinned in place with ``cudaHostRegister`` (mapped), and pinned copies."""

    def __init__(self) -> None:
        self._ranges: list[tuple[int, int, object, list[int]]] = []

    def covers(self, ptr: int, nbytes: int) -> bool:
        end = ptr + nbytes
        for lo, hi, ref, _ in self._ranges:
            if lo <= ptr and end <= hi:
                if isinstance(ref, weakref.ref) and ref() is None:
                    continue
                return True
        return False

    def register(self, arr: np.ndarray) -> bool:
        """Pin ``arr`` in place (page-rounded, chunks of <= 64 GiB); False if the driver refuses."""
        if arr.nbytes == 0:
            return True
        if not arr.flags.c_contiguous:
            return False
        ptr = int(arr.ctypes.data)
        if self.covers(ptr, arr.nbytes):
            return True
        lo, hi = _floor(ptr), _ceil(ptr + arr.nbytes)
        flags = HOST_REGISTER_PORTABLE | HOST_REGISTER_MAPPED
        if not arr.flags.writeable:
            flags |= HOST_REGISTER_READ_ONLY
        done: list[int] = []
        try:
            for c in range(lo, hi, REGISTER_CHUNK):
                cupy.cuda.runtime.hostRegister(c, min(REGISTER_CHUNK, hi - c), flags)
                done.append(c)
        except cupy.cuda.runtime.CUDARuntimeError as e:
            for c in done:
                cupy.cuda.runtime.hostUnregister(c)
            log.info("cudaHostRegister of %d bytes refused (%s); staging through pinned buffers", hi - lo, e)
            return False
        self._ranges.append((lo, hi, arr, done))
        return True

    def adopt(self, arr: np.ndarray) -> None:
        """Record ``arr`` (already pinned: cudaHostAlloc'd) as device-readable, while it lives."""
        ptr = int(arr.ctypes.data)
        self._ranges = [r for r in self._ranges if not (isinstance(r[2], weakref.ref) and r[2]() is None)]
        self._ranges.append((ptr, ptr + arr.nbytes, weakref.ref(arr), []))

    def forget(self, arr: np.ndarray) -> None:
        keep = []
        for r in self._ranges:
            if r[2] is arr:
                for c in r[3]:
                    cupy.cuda.runtime.hostUnregister(c)
            else:
                keep.append(r)
        self._ranges = keep

    def release_all(self) -> None:
        for _lo, _hi, _arr, chunks in self._ranges:
            for c in chunks:
                try:
                    cupy.cuda.runtime.hostUnregister(c)
                except cupy.cuda.runtime.CUDARuntimeError:  # pragma: no cover - shutdown order
                    pass
        self._ranges = []


def pinned_empty(count: int, dtype) -> np.ndarray:
    """A numpy array backed by pinned (page-locked, device-mapped) host memory."""
    import cupyx

    return cupyx.empty_pinned((int(count),), dtype=np.dtype(dtype))


class SlotRing:
    """Pinned slots for small host-to-device uploads on the compute stream.

    A slot is reused only after the copy that last read it has completed (its
    event), so uploads are asynchronous and the host never waits on the GPU
    unless it runs a whole ring ahead.
    """

    def __init__(self, slots: int = 32, slot_bytes: int = 4 << 20):
        self.slot_bytes = slot_bytes
        self._bufs = [pinned_empty(slot_bytes, np.uint8) for _ in range(slots)]
        self._events: list[cupy.cuda.Event | None] = [None] * slots
        self._next = 0

    def upload(self, host: np.ndarray, dst: cupy.ndarray, stream) -> bool:
        n = host.nbytes
        if n > self.slot_bytes:
            return False
        k = self._next
        self._next = (k + 1) % len(self._bufs)
        ev = self._events[k]
        if ev is not None:
            ev.synchronize()
        buf = self._bufs[k]
        buf[:n] = host.reshape(-1).view(np.uint8)
        if n:
            cupy.cuda.runtime.memcpyAsync(dst.data.ptr, buf.ctypes.data, n, H2D, stream.ptr)
        ev = cupy.cuda.Event(disable_timing=True)
        ev.record(stream)
        self._events[k] = ev
        return True


# ------------------------------------------------------------------ managed memory
def _cudart():
    try:
        from cuda.bindings import runtime as cudart  # cuda-bindings >= 12.x
    except ImportError:  # pragma: no cover - older layout
        try:
            from cuda import cudart  # type: ignore[no-redef]
        except ImportError:
            return None
    return cudart


def _check(res, what: str):
    err = res[0] if isinstance(res, tuple) else res
    if int(err) != 0:
        raise RuntimeError(f"{what} failed: {err}")
    return res


class ManagedEdges:
    """An edge side copied into managed memory for the ``unified`` engine.

    ``prepare(part, pages)`` prefetches the partition's edge range to the GPU
    (read-mostly: a read-only copy) when the pages it touches are a large part
    of it, else leaves them to on-demand faults; partitions that push the
    estimated resident bytes past the budget are evicted least recently used
    first (read-mostly off, prefetch to the host, read-mostly on).
    """

    PREFETCH_FRACTION = 0.25

    def __init__(self, backend, side, arena, allow_oversubscription: bool = False):
        self.backend = backend
        self.side = side
        self.budget = int(arena.budget_bytes)
        need = side.edge_bytes
        cupy.get_default_memory_pool().free_all_blocks()  # cached blocks would crowd out migrated pages
        free = backend.free_device_bytes()
        if need > MANAGED_FREE_FRACTION * free and not allow_oversubscription:
            raise DeviceMemoryError(
                f"the unified engine would allocate {need} bytes of managed memory but the GPU has only "
                f"{free} bytes free (at most {MANAGED_FREE_FRACTION:.0%} may be used); oversubscribed "
                f"managed memory can hang the GPU. Use another engine (filter, compaction, zerocopy), or "
                f"opt in with backend.allow_managed_oversubscription = True"
            )
        self._cudart = _cudart()
        self._mems = []
        self.indices = self._managed_copy(side.indices)
        self.weights = None if side.weights is None else self._managed_copy(side.weights)
        self._dev = self._loc(device=True)
        self._host = self._loc(device=False)
        self._advise_read_mostly(True, None)
        self._resident: OrderedDict[int, int] = OrderedDict()
        self._used = 0
        self.last_bytes: int | None = None
        self.prefetched_bytes = 0
        self.evicted_bytes = 0

    # -------------------------------------------------------------- set-up
    def _managed_copy(self, host: np.ndarray) -> cupy.ndarray:
        nbytes = max(1, host.nbytes)
        mem = cupy.cuda.malloc_managed(nbytes)
        self._mems.append(mem)
        view = np.ctypeslib.as_array((np.ctypeslib.ctypes.c_uint8 * nbytes).from_address(mem.ptr))
        view[: host.nbytes] = np.ascontiguousarray(host).reshape(-1).view(np.uint8)  # first touch: host
        return cupy.ndarray(host.shape, dtype=host.dtype, memptr=mem)

    def _loc(self, device: bool):
        rt = self._cudart
        if rt is None:
            return None
        loc = rt.cudaMemLocation()
        if device:
            loc.type = rt.cudaMemLocationType.cudaMemLocationTypeDevice
            loc.id = self.backend.device_id
        else:
            loc.type = rt.cudaMemLocationType.cudaMemLocationTypeHost
            loc.id = 0
        return loc

    def _ranges(self, part):
        s = self.side
        yield self.indices.data.ptr + part.edge_lo * s.indices.itemsize, part.num_edges * s.indices.itemsize
        if self.weights is not None:
            w = self.weights.itemsize  # float32, or narrowed integers (uint8 / uint16)
            yield self.weights.data.ptr + part.edge_lo * w, part.num_edges * w

    def _advise_read_mostly(self, on: bool, part) -> None:
        rt = self._cudart
        if rt is None:
            return
        advice = (rt.cudaMemoryAdvise.cudaMemAdviseSetReadMostly if on
                  else rt.cudaMemoryAdvise.cudaMemAdviseUnsetReadMostly)
        if part is None:
            spans = [(self.indices.data.ptr, max(1, self.indices.nbytes))]
            if self.weights is not None:
                spans.append((self.weights.data.ptr, max(1, self.weights.nbytes)))
        else:
            spans = list(self._ranges(part))
        for ptr, n in spans:
            if n:
                _check(rt.cudaMemAdvise(ptr, n, advice, self._dev), "cudaMemAdvise")

    def _prefetch(self, part, to_device: bool, stream) -> None:
        rt = self._cudart
        for ptr, n in self._ranges(part):
            if not n:
                continue
            if rt is not None:
                loc = self._dev if to_device else self._host
                _check(rt.cudaMemPrefetchAsync(ptr, n, loc, 0, stream.ptr), "cudaMemPrefetchAsync")
            elif to_device:  # CuPy's call works for device targets
                cupy.cuda.runtime.memPrefetchAsync(ptr, n, self.backend.device_id, stream.ptr)

    def _part_bytes(self, part) -> int:
        return part.num_edges * self.side.bytes_per_edge

    # -------------------------------------------------------------- per partition
    def prepare(self, part, pages: np.ndarray):
        stream = self.backend.compute_stream()
        pbytes = self._part_bytes(part)
        total_pages = max(1, -(-pbytes // (64 * 1024)))
        self.last_bytes = None
        if part.index in self._resident:
            self._resident.move_to_end(part.index)
            self.last_bytes = 0
        elif len(pages) >= self.PREFETCH_FRACTION * total_pages:
            self._make_room(pbytes, stream, keep=part.index)
            self._prefetch(part, True, stream)
            self._resident[part.index] = pbytes
            self._used += pbytes
            self.prefetched_bytes += pbytes
            self.last_bytes = pbytes
        return self.indices, self.weights

    def _make_room(self, need: int, stream, keep: int) -> None:
        s = self.side
        while self._resident and self._used + need > self.budget:
            idx, nbytes = self._resident.popitem(last=False)
            part = s.partitions[idx]
            if self._cudart is not None:
                self._advise_read_mostly(False, part)
                self._prefetch(part, False, stream)
                self._advise_read_mostly(True, part)
            self._used -= nbytes
            self.evicted_bytes += nbytes

    def close(self) -> None:
        self.backend.synchronize()
        self.indices = self.weights = None
        self._mems.clear()
        self._resident.clear()


def env_flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in ("1", "true", "yes", "on")
