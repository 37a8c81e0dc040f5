"""What every backend provides: memory, transfers, bitmaps and compiled programs.

A backend is *where kernels run* (``cpu`` or ``cuda``). Engines and the
runtime talk to it only through :class:`Backend`, so the same engine code runs
against the GPU or against the CPU's simulated device arena (real copies into
separate buffers, with byte counters), which is how CI checks every engine path
without a GPU.
"""

from __future__ import annotations

import contextlib
from abc import ABC, abstractmethod
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import DeviceMemoryError

#: Headers every backend compiles programs with (gf_prelude.h).
INCLUDE_DIR = Path(__file__).resolve().parent / "include"
#: m: the largest outstanding PCIe memory request, the unit zero-copy reads move (HyTGraph sec. V-A)
LINE_BYTES = 128


def row_lines(xp, b, e, bits: int):
    """The ``LINE_BYTES`` lines covering edge ranges ``[b, e)`` of ``bits``-bit entries (32 for
    int32 ids, the field width for packed ids), 0 for empty rows (HyTGraph formula 3's
    ``ceil(D_o(v) d_1 / m) + am(v)``: misalignment included).

    Example:
        >>> import numpy as np
        >>> row_lines(np, np.array([0, 3, 40]), np.array([2, 40, 40]), 32).tolist()
        [1, 2, 0]
    """
    first = (b * bits) // (8 * LINE_BYTES)
    last = (e * bits - 1) // (8 * LINE_BYTES)
    return xp.where(e > b, last - first + 1, 0)


#: Edge weight types kernels read (GfWeights in gf_prelude.h): float32, or exact integers narrowed
WEIGHT_DTYPES = (np.dtype(np.float32), np.dtype(np.uint8), np.dtype(np.uint16))


def weight_bytes(weights) -> int:
    """The width kernels are told to read ``weights`` at (0 for none); refuses other types, whose
    bytes a kernel would misread (an int32 array has a float32's width).

    Example:
        >>> import numpy as np
        >>> weight_bytes(None), weight_bytes(np.ones(2, np.float32)), weight_bytes(np.ones(2, np.uint8))
        (0, 4, 1)
    """
    if weights is None:
        return 0
    dt = np.dtype(weights.dtype)
    if dt not in WEIGHT_DTYPES:
        raise TypeError(f"edge weights must be float32, uint8 or uint16 for the kernels, got {dt}")
    return dt.itemsize


@dataclass
class PartitionView:
    """One partition's edges as the kernels read them (the same for every engine).

    Row ``r`` has edges ``offsets[r] - edge_base .. offsets[r + 1] - edge_base``
    of ``indices``/``weights`` and is vertex ``vertex_ids[r]`` (compacted view)
    or ``lo + r`` (range view). ``indices`` are plain vertex ids, or packed (``index_bits``).
    """

    offsets: Any
    indices: Any
    weights: Any | None
    vertex_ids: Any | None
    lo: int
    rows: int
    edge_base: int
    #: 0: ``indices`` holds plain vertex ids; else ids packed in fields of this many bits
    #: (:func:`~graphferry.host_ops.pack_indices`), ``edge_base`` a multiple of 32
    index_bits: int = 0
    #: 0, or fused edges (:func:`~graphferry.host_ops.pack_edges`): each of ``indices``' fields holds
    #: an id (``index_bits``) and above it its weight, an unsigned integer of this many bits;
    #: ``weights`` is then None (the kernels read the weights from the fields)
    weight_bits: int = 0

    @property
    def edge_capacity(self) -> int:
        """Edges ``indices`` can hold (its entries, or its packed fields)."""
        size = int(self.indices.size)
        field = self.index_bits + self.weight_bits
        return size * 32 // field if field else size

    def kernel_codes(self) -> tuple[int, Any, int]:
        """``(index code, weights, weight code)``, the edge kernels' arguments after ``indices``: the
        ids' bits (0: plain ids), with fused edges' weight bits above bit 8 (``gf_packed_ids`` in gf_prelude.h);
        the weights' array (the fused fields themselves) and their width in bytes (negative, the
        same code, for fused edges: ``GfWeights``)."""
        if self.weight_bits:
            code = self.index_bits | (self.weight_bits << 8)
            return code, self.indices, -code
        return self.index_bits, self.weights, weight_bytes(self.weights)


class CompiledProgram(ABC):
    """A program compiled for one backend and vertex-id type."""

    @abstractmethod
    def push(self, tables, view: PartitionView, row_list, in_bits, out_bits) -> None: ...

    @abstractmethod
    def pull(self, tables, view: PartitionView, row_list, in_bits, out_bits) -> None: ...

    @abstractmethod
    def vertex_map(self, fn: str, tables, lo: int, hi: int, ids, in_bits, out_bits) -> None: ...

    @abstractmethod
    def neighbor_map(self, fn: str, tables, graph, transpose, lo: int, hi: int, out_bits) -> None: ...


class Backend(ABC):
    """Where kernels run. ``xp`` is the array module (numpy or cupy)."""

    name: str = "?"
    xp: Any = np
    is_device: bool = False  # True when edge data must cross a bus to be read
    #: a device's large results come back into pinned memory kept for the next call's (a process
    #: that reads each result once, the command line's, turns it off: see CudaBackend.to_host)
    results_pinned: bool = True
    #: smallest frontier a delta-stepping round should have (PriorityBuckets merges the
    #: lowest buckets up to it): 1 where rounds are cheap (the CPU)
    bucket_fill: int = 1
    #: dense layout only: while deferring the far buckets pays, a round takes the lowest
    #: buckets up to this share of the vertices instead (0: never defer; see PriorityBuckets)
    bucket_share: float = 0.0
    #: a delta-stepping round's fixed price in relaxed edges, with the edges in device memory
    #: and with them read across the bus; deferring stops once the relaxations it saves in a
    #: round fall below it
    round_price_resident: float = 0.0
    round_price_bus: float = 0.0
    #: PriorityBuckets keeps pending vertices as one frontier and cuts it by value on each
    #: pop (cheap where passes over the pending set are: a GPU) instead of filing them by bucket
    dense_buckets: bool = False
    #: a program whose pull reads every edge (never stops early) pulls once its frontier's
    #: edges exceed this share of m: a push's edge rate over a pull's here (runtime.direction)
    full_pull_fraction: float = 1.0
    #: the same share for a program whose pushes add (combine "sum": PageRank), whose atomic
    #: adds cost a push the most; None: ``full_pull_fraction``
    full_pull_fraction_sum: float | None = None

    def full_pull_fraction_for(self, program) -> float:
        """The share of m past which ``program``'s edge map pulls, if its pull reads every edge."""
        if getattr(program, "combine", None) == "sum" and self.full_pull_fraction_sum is not None:
            return self.full_pull_fraction_sum
        return self.full_pull_fraction

    @abstractmethod
    def compile(self, program, vid_dtype: np.dtype) -> CompiledProgram: ...

    # --- memory -----------------------------------------------------------
    def asarray(self, host: np.ndarray) -> Any:
        return self.xp.asarray(host)

    def to_host(self, arr: Any) -> np.ndarray:
        return np.asarray(arr)

    def on_host(self, arr: Any) -> bool:
        """True when ``arr`` is host memory numpy reads in place: reading it needs no transfer."""
        return isinstance(arr, np.ndarray)

    def empty(self, shape, dtype) -> Any:
        return self.xp.empty(shape, dtype=dtype)

    def zeros(self, shape, dtype) -> Any:
        return self.xp.zeros(shape, dtype=dtype)

    def full(self, shape, value, dtype) -> Any:
        """An array filled with ``value`` where the state lives (on a GPU: a fill kernel, no upload)."""
        return self.xp.full(shape, value, dtype=dtype)

    def vertex_ids(self, n: int, dtype) -> Any:
        """``arange(n)`` on the backend (labels that start as the vertex's own id)."""
        return self.xp.arange(n, dtype=dtype)

    # --- priority buckets (delta-stepping) ----------------------------------
    def split_by_bucket(self, ids: Any, values: Any, delta: float) -> tuple[Any, list[int], list[int]]:
        """Group ``ids`` (non-empty) by bucket ``floor(values[id] / delta)``, ids kept in
        order within a bucket. Returns (grouped ids, the non-empty buckets ascending,
        their bounds in the grouped ids: one more entry)."""
        xp = self.xp
        keys = self._bucket_keys(values[ids], delta)
        low = keys.min()
        span = int(keys.max() - low)
        if span == 0:
            return ids, [int(low)], [0, len(ids)]
        # few buckets (the usual case): 16-bit keys, which numpy sorts by radix
        small = (keys - low).astype(np.uint16) if span < 1 << 16 else keys
        # stable either way (CuPy's argsort is always stable and accepts no other kind)
        order = xp.argsort(small, kind="stable") if xp is np else xp.argsort(small)
        ids, keys = ids[order], keys[order]
        cuts = self.to_host(xp.flatnonzero(keys[1:] != keys[:-1]) + 1).tolist()
        starts = [0] + cuts
        head = self.to_host(keys[xp.asarray(starts)]).tolist()
        return ids, head, starts + [len(ids)]

    def keep_bucket(self, ids: Any, values: Any, delta: float, key: int) -> Any:
        """The ``ids`` whose bucket ``floor(values[id] / delta)`` is still ``key``."""
        return ids[self._bucket_keys(values[ids], delta) == key]

    # the dense layout's passes (PriorityBuckets on a GPU): over the set bits of a bitmap of n bits,
    # vertex v in bucket floor(values[v] / delta); a GPU runs each as one kernel of its own module
    def bucket_range(self, bits: Any, values: Any, delta: float, n: int) -> tuple[int, int]:
        """The lowest and the highest bucket of the vertices set in ``bits`` (at least one)."""
        keys = self._bucket_keys(self.gather(values, self.ids_from_bits(bits, n)), delta)
        return int(keys.min()), int(keys.max())

    def bucket_histogram(self, bits: Any, values: Any, delta: float, low: int, span: int, n: int) -> np.ndarray:
        """On the host: how many vertices set in ``bits`` lie in each bucket ``low + i`` for ``i`` below
        ``span``, and in ``low + span`` or higher (the last of ``span + 1`` counts)."""
        xp = self.xp
        keys = self._bucket_keys(self.gather(values, self.ids_from_bits(bits, n)), delta)
        return np.asarray(self.to_host(xp.bincount(xp.minimum(keys - low, span), minlength=span + 1)))

    def bucket_cut(self, bits: Any, values: Any, delta: float, cut: int, n: int) -> tuple[Any, Any]:
        """``bits`` split in two bitmaps: the vertices in buckets below ``cut``, and the others."""
        ids = self.ids_from_bits(bits, n)
        below = self._bucket_keys(self.gather(values, ids), delta) < cut
        return self.bits_from_ids(ids[below], n), self.bits_from_ids(ids[~below], n)

    def count_below(self, ids: Any, values: Any, then: Any) -> int:
        """How many ``i`` have ``values[ids[i]] < then[i]`` (held-back vertices whose value dropped)."""
        return int((self.gather(values, ids) < then).sum()) if len(ids) else 0

    # --- vertex-state passes (the runtime's reduce / select / result conversion) ----
    def reduce(self, arr: Any, op: str, ids: Any = None):
        """``op`` (sum, min, max) of ``arr`` or ``arr[ids]``: a Python number; 0 / None when empty."""
        vals = arr if ids is None else self.gather(arr, ids)
        if len(vals) == 0:
            return 0 if op == "sum" else None
        value = getattr(vals, op)()
        return value.item() if hasattr(value, "item") else value

    def set_entry(self, arr: Any, index: int, value) -> None:
        """``arr[index] = value`` for one entry (a BFS source's own state), where ``arr`` lives (on a
        GPU: a copy of the entry's bytes, where CuPy's scalar assignment compiles a kernel on a
        fresh machine)."""
        arr[index] = value

    def scatter(self, arr: Any, ids: Any, values) -> None:
        """``arr[ids] = values`` (``ids`` distinct backend int64 ids; ``values`` a scalar or one
        backend value per id)."""
        arr[ids] = values

    def gather(self, arr: Any, ids: Any) -> Any:
        """``arr[ids]`` (``ids``: backend int64 ids within ``arr``), a new array where ``arr`` lives."""
        return arr[ids]

    def ids_degree_sum(self, ids: Any, degrees: Any) -> int:
        """The sum of ``degrees[v]`` over the backend ids ``ids`` (a listed frontier's edges)."""
        return int(degrees[ids].sum()) if len(ids) else 0

    def bits_combine(self, op: str, a: Any, b: Any, n: int) -> Any:
        """A new bitmap of ``n`` bits: ``a | b`` (op "or"), ``a & b`` ("and"), ``a & ~b``
        ("andnot") or ``~a`` ("not", ``b`` unread), the bits past ``n`` cleared.

        Example:
            >>> from graphferry.backends.cpu.backend import CpuBackend
            >>> b = CpuBackend()
            >>> x, y = b.bits_from_ids([1, 3], 5), b.bits_from_ids([3, 4], 5)
            >>> [b.ids_from_bits(b.bits_combine(op, x, y, 5), 5).tolist() for op in ("or", "and", "andnot", "not")]
            [[1, 3, 4], [3], [1], [0, 2, 4]]
        """
        if op == "or":
            out = a | b
        elif op == "and":
            out = a & b
        elif op == "andnot":
            out = a & ~b
        elif op == "not":
            out = ~a
        else:
            raise ValueError(f"bits_combine: op must be or, and, andnot or not, got {op!r}")
        if n % 32 and len(out):
            out[-1] &= (1 << (n % 32)) - 1
        return out

    def select(self, arr: Any, lo: float, hi: float, ids: Any = None) -> Any:
        """The indices of ``arr`` (or the entries of ``ids``) with ``lo <= value < hi``, as int64, in order."""
        xp = self.xp
        if ids is None:
            return xp.flatnonzero((arr >= lo) & (arr < hi)).astype(np.int64)
        vals = arr[ids]
        return ids[(vals >= lo) & (vals < hi)]

    def select_bits(self, arr: Any, lo: float, hi: float) -> Any:
        """``select`` over every vertex as a bitmap, where the backend makes one directly; else None."""
        return None

    def convert(self, arr: Any, dtype) -> Any:
        """``arr`` as ``dtype`` (a new array), where it lives."""
        return arr.astype(dtype)

    # --- graph transforms where the backend computes ------------------------
    #: device bytes per arc that :meth:`degree_ordered_dag` takes at most (the CSR, each arc's
    #: source and both ranks, the kept keys and the sort's scratch)
    DAG_BYTES_PER_ARC = 48
    #: fewest arcs for which a device build of the DAG pays: its uploads, sorts and launches cost
    #: about 2 ms on an H200, which the host's passes spend on about 0.7 M arcs (on the datasets'
    #: graphs of a few thousand arcs the device build made HyPar's triangle calls 3x slower)
    DAG_MIN_ARCS = 1 << 22

    def dag_pays(self, arcs: int) -> bool:
        """Whether :meth:`degree_ordered_dag` of ``arcs`` arcs is worth running here (enough arcs to
        pay for its fixed costs) and fits the backend's free memory (half of it)."""
        return arcs >= self.DAG_MIN_ARCS and arcs * self.DAG_BYTES_PER_ARC <= self.free_device_bytes() // 2

    def degree_ordered_dag(self, offsets: np.ndarray, indices: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The degree-ordered DAG of a simple undirected CSR (rows strictly increasing, no self-loops,
        symmetric) built with the backend's array library, returned on the host:
        ``(dag_offsets, dag_indices, order)`` as :func:`graphferry.host_ops.degree_ordered_dag`
        gives them (vertex ``r`` of the DAG is ``order[r]``, the ``r``-th by ``(degree, id)``; row ``r``
        holds the sorted labels above ``r`` of its neighbours). On a GPU the whole build is a few sorts
        and gathers over the arcs, where the host's is two passes of random rank lookups and a sort
        per row (0.37 s of a Kronecker 22 triangle count on 16 cores).

        Example (the array-library build on numpy: a triangle 0-1-2 and a lone vertex 3):
            >>> from graphferry.backends.cpu.backend import CpuBackend
            >>> off, idx = np.array([0, 2, 4, 6, 6]), np.array([1, 2, 0, 2, 0, 1], np.int32)
            >>> [a.tolist() for a in Backend.degree_ordered_dag(CpuBackend(), off, idx)]
            [[0, 0, 2, 3, 3], [2, 3, 3], [3, 0, 1, 2]]
        """
        xp = self.xp
        n, m = len(offsets) - 1, len(indices)
        off = self.asarray(np.ascontiguousarray(offsets, dtype=np.int64))
        idx = self.asarray(np.ascontiguousarray(indices))
        ids = xp.arange(n, dtype=np.int64)
        order = xp.argsort((off[1:] - off[:-1]) * n + ids)     # by degree, then id (distinct keys)
        rank = xp.empty(n, dtype=np.int64)
        rank[order] = ids
        rs = rank[xp.searchsorted(off, xp.arange(m, dtype=np.int64), side="right") - 1]   # each arc's source
        rd = rank[idx]
        keep = rs < rd                                          # oriented upwards: each edge once
        key = xp.sort(rs[keep] * n + rd[keep])                  # by row, then label
        del rs, rd, keep
        rows = key // n
        dag_indices = (key - rows * n).astype(idx.dtype)
        dag_offsets = xp.zeros(n + 1, dtype=np.int64)
        xp.cumsum(xp.bincount(rows, minlength=n), out=dag_offsets[1:])
        return self.to_host(dag_offsets), self.to_host(dag_indices), self.to_host(order)

    def sorted_unique(self, ids: Any, n: int) -> Any:
        """The distinct ``ids`` (in ``[0, n)``), sorted."""
        return self.xp.unique(ids)

    def _bucket_keys(self, values: Any, delta: float) -> Any:
        # in float64 whatever the state's dtype, so every backend and path agrees on a bucket
        return self.xp.floor(values.astype(np.float64) / delta).astype(np.int64)

    def pointer(self, arr: Any | None) -> int:
        if arr is None:
            return 0
        return int(arr.ctypes.data)

    def synchronize(self) -> None:
        pass

    def free_device_bytes(self) -> int:
        """Bytes the device could still allocate (the host's free memory on the CPU)."""
        import os

        try:
            return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        except (ValueError, OSError):  # pragma: no cover
            return 1 << 40

    # --- host to device ----------------------------------------------------
    @abstractmethod
    def copy_h2d(self, dst: Any, src: np.ndarray, after: Any = None) -> Any:
        """Copy host ``src`` into the device buffer ``dst`` (same length, dtype).

        On a device the copy is asynchronous (its own stream) but ordered before
        any later kernel. ``after`` is a :meth:`record` token the copy must wait
        for (the last kernel that read ``dst``). Returns a token reached when the
        copy is done, for :meth:`host_wait` before ``src`` is overwritten; the
        CPU backend copies at once and returns None.
        """

    def host_view(self, host: np.ndarray) -> Any:
        """A device-readable alias of host memory (zero-copy) or a plain view on the CPU."""
        return host

    def pinned_empty(self, count: int, dtype) -> np.ndarray:
        """A host buffer the device copies from at full speed (pinned on a GPU)."""
        return np.empty(int(count), dtype=dtype)

    def is_pinned(self, host: np.ndarray) -> bool:
        """True when ``host`` already lies in pinned (page-locked) memory the device reads."""
        return False

    def register_host(self, host: np.ndarray) -> bool:
        """Make a large host array fast to copy from (pinned in place on a GPU); True if done."""
        return False

    # --- ordering and timing (no-ops where everything is synchronous) -------
    def record(self) -> Any:
        """A token for "all kernels issued so far" (see ``copy_h2d(after=)``), or None."""
        return None

    def host_wait(self, token: Any) -> None:
        """Block the host until ``token`` (from :meth:`record` or ``copy_h2d``) is reached."""

    def lanes(self, count: int) -> list:
        """Up to ``count`` context managers, each making its own stream current: kernels launched
        in different lanes may run at once (each lane keeps its own order), so one kernel's tail
        overlaps the next one's start. Work in a lane first waits for what the compute stream
        issued before (:meth:`record` then :meth:`wait_for` inside it); :meth:`join_lanes` makes the
        compute stream wait for every lane. Where kernels are synchronous: one lane, no new stream.

        Example:
            >>> from graphferry.backends.cpu.backend import CpuBackend
            >>> b = CpuBackend()
            >>> [lane] = b.lanes(2)
            >>> with lane:
            ...     b.wait_for(b.record())
            >>> b.join_lanes([lane])
        """
        return [contextlib.nullcontext()]

    def wait_for(self, token: Any) -> None:
        """The current stream waits for ``token`` (from :meth:`record`) before its later work."""

    def join_lanes(self, lanes: list) -> None:
        """The compute stream waits for everything issued in ``lanes``."""

    def take_device_times(self) -> tuple[float, float] | None:
        """(copy seconds, kernel seconds) measured on the device since the last call, after
        :meth:`synchronize`; None when the backend has no device clock (the runtime's
        host timers are then exact)."""
        return None

    # --- bitmaps ----------------------------------------------------------
    @staticmethod
    def bitmap_words(n: int) -> int:
        return (n + 31) // 32

    def new_bitmap(self, n: int) -> Any:
        return self.zeros(self.bitmap_words(n), np.uint32)

    def ids_from_bits(self, bits: Any, n: int) -> Any:
        xp = self.xp
        flags = xp.unpackbits(bits.view(xp.uint8), bitorder="little")[:n]
        return xp.flatnonzero(flags).astype(xp.int64)

    def bits_from_ids(self, ids: Any, n: int) -> Any:
        xp = self.xp
        flags = xp.zeros(self.bitmap_words(n) * 32, dtype=xp.uint8)
        flags[ids] = 1
        return xp.packbits(flags, bitorder="little").view(xp.uint32)

    def popcount(self, bits: Any) -> int:
        return int(np.bitwise_count(bits).sum())

    def bits_degree_sum(self, bits: Any, degrees: Any, n: int) -> tuple[int, int]:
        """(number of set bits, sum of ``degrees[v]`` over the set bits ``v``) of an ``n``-bit bitmap,
        both arrays where the backend keeps them."""
        ids = self.ids_from_bits(bits, n)
        return int(len(ids)), int(degrees[ids].sum()) if len(ids) else 0

    def row_prefixes(self, offsets: Any, indices: Any, k: int, out_offsets: Any, out_indices: Any) -> int:
        """The CSR of every row's first ``k`` edges: ``out_offsets[v]`` = ``sum_{u < v} min(D(u), k)``
        (``n + 1`` entries) and ``out_indices`` those edges, row by row; returns their number.
        ``offsets`` as the device reads them, ``indices`` too (on a GPU: mapped host memory, each
        row's first line read once). The generic form builds edge-sized temporaries.

        Example:
            >>> import numpy as np
            >>> from graphferry.backends.cpu.backend import CpuBackend
            >>> off, idx = np.array([0, 3, 3, 4]), np.array([5, 6, 7, 8], np.int32)
            >>> po, pi = np.empty(4, np.int64), np.empty(3, np.int32)
            >>> CpuBackend().row_prefixes(off, idx, 2, po, pi), po.tolist(), pi.tolist()
            (3, [0, 2, 2, 3], [5, 6, 8])
        """
        xp = self.xp
        n = int(offsets.size) - 1
        total = self._prefix_offsets(offsets, k, out_offsets)
        rows = xp.repeat(xp.arange(n, dtype=np.int64), out_offsets[1:] - out_offsets[:-1])
        out_indices[:total] = indices[xp.arange(total, dtype=np.int64) - out_offsets[rows] + offsets[rows]]
        return total

    def _prefix_offsets(self, offsets: Any, k: int, out_offsets: Any) -> int:
        """``out_offsets``: the prefix sums of ``min(D(v), k)`` (:meth:`row_prefixes`); their total."""
        out_offsets[0] = 0
        self.xp.cumsum(self.xp.minimum(offsets[1:] - offsets[:-1], k), out=out_offsets[1:])
        return int(out_offsets[-1])

    def partition_counts(self, ids: Any, offsets: Any, bounds: Any, itemsizes: tuple[int, ...]) -> np.ndarray:
        """Per partition ``[bounds[i], bounds[i+1])`` of the vertices, the active vertices among the
        sorted ``ids``, their edges and the 128-byte lines their rows cover in arrays of entries of
        each of ``itemsizes`` bits (misalignment included): a host ``(3, partitions)`` int64 array. ``ids``,
        ``offsets`` and ``bounds`` lie where the backend keeps them.

        Example:
            >>> import numpy as np
            >>> from graphferry.backends.cpu.backend import CpuBackend
            >>> off = np.array([0, 2, 3, 40, 40])   # rows of 2, 1, 37 and 0 edges
            >>> CpuBackend().partition_counts(np.array([0, 2, 3]), off, np.array([0, 2, 4]), (32,)).tolist()
            [[1, 2], [2, 37], [1, 2]]
        """
        xp = self.xp
        cuts = xp.searchsorted(ids, bounds)
        b, e = offsets[ids], offsets[ids + 1]
        lines = xp.zeros(len(ids), dtype=xp.int64)
        for size in itemsizes:  # each array a row's reads cover
            lines = lines + row_lines(xp, b, e, size)
        zero = xp.zeros(1, dtype=xp.int64)
        cum_e = xp.concatenate([zero, xp.cumsum(e - b)])
        cum_l = xp.concatenate([zero, xp.cumsum(lines)])
        packed = xp.stack([cuts, cum_e[cuts], cum_l[cuts]])  # one transfer back
        return np.diff(self.to_host(packed).astype(np.int64), axis=1)

    def degree_sum(self, offsets: np.ndarray, *, ids: Any = None, bits: Any = None) -> int:
        """Sum of ``offsets[v + 1] - offsets[v]`` (host offsets) over ``ids`` or a bitmap's set bits."""
        if ids is None:
            ids = self.ids_from_bits(bits, len(offsets) - 1)
        ids = self.to_host(ids)
        return int((offsets[ids + 1] - offsets[ids]).sum())


class DeviceArena:
    """Device memory for edge data, bounded by a budget in bytes.

    Engines allocate their partition buffers here. On the CPU backend the arena
    is separate host memory, so transfers are real copies with real counts.
    """

    def __init__(self, backend: Backend, budget_bytes: int):
        if budget_bytes <= 0:
            raise ValueError(f"device-memory budget must be positive, got {budget_bytes} bytes")
        self.backend = backend
        self.budget_bytes = int(budget_bytes)
        self.used_bytes = 0
        self.peak_bytes = 0

    def alloc(self, count: int, dtype, what: str = "buffer") -> Any:
        nbytes = int(count) * np.dtype(dtype).itemsize
        if self.used_bytes + nbytes > self.budget_bytes:
            raise DeviceMemoryError(
                f"{what} needs {nbytes} bytes but only {self.budget_bytes - self.used_bytes} of the "
                f"{self.budget_bytes}-byte device budget are free"
            )
        self.used_bytes += nbytes
        self.peak_bytes = max(self.peak_bytes, self.used_bytes)
        return self.backend.empty(int(count), dtype)

    def release(self, arr: Any) -> None:
        self.used_bytes -= int(arr.nbytes)

    @property
    def free_bytes(self) -> int:
        return self.budget_bytes - self.used_bytes
