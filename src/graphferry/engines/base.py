"""Transfer engines: how one partition's edges become readable by the device.

An engine turns ``(partition, active rows)`` into a :class:`PartitionView` the
kernels read, and says how many bytes crossed host-to-device to make it. It
knows nothing about algorithms; the runtime asks it once per active partition
per iteration, so engines can be chosen per partition per iteration later.

Engines (HyTGraph sec. II-III, EMOGI, Subway, the UVM study):

* ``host``: kernels read host memory directly (the CPU backend's natural mode).
* ``resident``: the whole edge side copied once into device memory.
* ``filter`` (ExpTM-filter): each active partition copied whole.
* ``compaction`` (ExpTM-compaction, Subway's SubCSR): active rows gathered on the
  CPU into a staging buffer, then one copy.
* ``zerocopy`` (ImpTM-zero-copy, EMOGI): kernels read mapped host memory; cost is
  the 128-byte lines the active rows touch.
* ``unified`` (ImpTM-unified-memory): managed memory, pages migrate on demand.

Each engine that moves a partition's edges also says, before it runs, what it would move
(:meth:`Engine.traffic`: bulk copies, bytes gathered on the host, zero-copy requests) for
partitions of given counts (:class:`PartitionCounts`). The scheduler's cost model prices that
traffic on the machine, so a new engine is priced by its own file.

A transfer engine's body is one method, :meth:`Engine.load_group`: a group of partitions made
readable in device buffers it is given (:class:`Buffers`). Its own loop (:meth:`Engine.load`,
one partition at a time) hands it buffers it allocated itself; the hybrid engine hands it
slots and blocks its pool lends, and groups of several partitions (one copy, one launch).
"""

from __future__ import annotations

import time
from abc import ABC
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..backends.base import Backend, DeviceArena, PartitionView
from ..partition import Partition, partition_by_bytes


@dataclass
class EdgeSide:
    """One direction's CSR (out-edges for push, in-edges for pull) and its partitions.

    ``packed`` (with ``index_bits``): the ids packed in ``index_bits``-bit fields
    (:func:`~graphferry.host_ops.pack_indices`), what engines that move or map
    ranges of edges copy and read (the *range layout*); ``indices`` stay for everything
    that reads rows by position on the host (compaction's gather, a CPU executor,
    neighbourhood functions). A packed range starts at a multiple of 32 edges
    (:meth:`range_of`), its weights with it.

    Example:
        >>> import numpy as np
        >>> from graphferry import Graph
        >>> from graphferry.host_ops import pack_indices
        >>> g = Graph.from_edges(list(range(40)), [1] * 40, n=64)
        >>> side = EdgeSide.of(g, 1 << 20, False, packed=(pack_indices(g.indices, 6), 6))
        >>> base, idx, _ = side.range_of(side.range_indices, None, 33, 40)
        >>> base, len(idx), side.range_bytes(33, 40)   # edges 32..63: one group of 32 six-bit fields
        (32, 6, 24)
    """

    offsets: np.ndarray
    indices: np.ndarray
    weights: np.ndarray | None
    partitions: list[Partition]
    packed: np.ndarray | None = None
    index_bits: int = 0
    #: the edges fused for reads in place (:func:`~graphferry.host_ops.pack_edges`: each field an id of
    #: ``index_bits`` and its weight of ``fused_weight_bits`` above it), or None: what zero-copy reads
    #: of a weighted packed side read, where a short row's ids and weights share their lines
    fused: np.ndarray | None = None
    fused_weight_bits: int = 0
    bounds: np.ndarray = field(init=False)

    def __post_init__(self):
        self.bounds = np.array([p.lo for p in self.partitions] + [len(self.offsets) - 1], dtype=np.int64)
        #: each partition's edges, as one array (per-iteration costs read it whole, not partition by partition)
        self.partition_edges = np.array([p.num_edges for p in self.partitions], dtype=np.int64)
        self._device_offsets: dict[int, Any] = {}

    def device_offsets(self, backend: Backend) -> Any:
        """The offsets on ``backend``'s device, uploaded once and shared by every engine of this side."""
        dev = self._device_offsets.get(id(backend))
        if dev is None:
            dev = self._device_offsets[id(backend)] = backend.asarray(self.offsets)
        return dev

    @classmethod
    def of(cls, graph, partition_bytes: int, use_weights: bool, weights: np.ndarray | None = None,
           packed: tuple[np.ndarray, int] | None = None) -> "EdgeSide":
        """``graph``'s side cut into partitions of about ``partition_bytes`` (of plain ids: the
        same partitions packed or not); ``weights``: the weights as kernels will read them (the
        loaded graph's narrowed copy), else ``graph.weights``; ``packed``: ``(words, bits)`` of
        the ids packed (the loaded graph's copy), or None."""
        w = (graph.weights if weights is None else weights) if use_weights else None
        per_edge = graph.indices.itemsize + (0 if w is None else w.itemsize)
        words, bits = packed if packed is not None else (None, 0)
        return cls(graph.offsets, graph.indices, w, partition_by_bytes(graph.offsets, per_edge, partition_bytes),
                   words, bits)

    @property
    def n(self) -> int:
        return len(self.offsets) - 1

    @property
    def weight_dtype(self) -> np.dtype | None:
        """The weights' type (float32, or narrowed uint8 / uint16), None when unweighted: what every
        device buffer or staging copy of them is made of."""
        return None if self.weights is None else self.weights.dtype

    @property
    def weight_bytes(self) -> int:
        """Bytes of one edge's weight (4: float32, 1 or 2: narrowed integers, 0: unweighted)."""
        return 0 if self.weights is None else self.weights.itemsize

    @property
    def bytes_per_edge(self) -> int:
        """Bytes of one edge with plain ids (what compaction's gather and the host read)."""
        return self.indices.itemsize + self.weight_bytes

    # ---- the range layout: what copies of consecutive edges and mapped reads use
    @property
    def range_indices(self) -> np.ndarray:
        """The ids as ranges of edges are copied and mapped: packed words, else the plain ids."""
        return self.indices if self.packed is None else self.packed

    @property
    def range_index_bits(self) -> int:
        """Bits of one id in the range layout (32 for plain int32 ids)."""
        return self.index_bits if self.packed is not None else 8 * self.indices.itemsize

    @property
    def view_bits(self) -> int:
        """``PartitionView.index_bits`` of a range view: 0 for plain ids."""
        return self.index_bits if self.packed is not None else 0

    @property
    def read_bits(self) -> tuple[int, ...]:
        """Bits of one edge's entry in each array a read in place covers (its lines are what it
        costs): the fused field; else the ids in the range layout, and the weights where there are."""
        if self.fused is not None:
            return (self.index_bits + self.fused_weight_bits,)
        return (self.range_index_bits,) + ((8 * self.weight_bytes,) if self.weights is not None else ())

    def in_place_view(self, offsets, lo: int, rows: int, idx, w, e0: int, e1: int) -> PartitionView:
        """The view of rows ``[lo, lo + rows)`` (edges ``[e0, e1)``) over the arrays reads in place use
        (``idx``, ``w``: the side's range layout and weights, or its fused edges and None, as the
        host's memory is mapped for the device)."""
        if self.fused is None:
            return self.range_view(offsets, lo, rows, idx, w, e0, e1)
        stride, base = self.index_bits + self.fused_weight_bits, e0 & ~31
        i0, i1 = (base >> 5) * stride, min(((e1 + 31) >> 5) * stride, len(idx))
        return PartitionView(offsets, idx[i0:i1], None, None, lo, rows, base, self.index_bits,
                             self.fused_weight_bits)

    @property
    def range_bytes_per_edge(self) -> float:
        """Bytes one edge of a range moves (fractional when packed: 25-bit ids are 3.125 bytes)."""
        return self.range_index_bits / 8 + self.weight_bytes

    def range_base(self, e0: int) -> int:
        """The first edge a copy of edges from ``e0`` on holds: ``e0``, or the multiple of 32 at or
        below it (where a packed word starts)."""
        return e0 & ~31 if self.packed is not None else e0

    def range_entries(self, edges: int) -> tuple[int, int]:
        """``(index entries, weight entries)`` a buffer needs to hold any run of ``edges`` consecutive
        edges in the range layout (packed: the run's groups of 32, one more where it straddles)."""
        if self.packed is None:
            return edges, edges
        return (-(-edges // 32) + 1) * self.index_bits, edges + 31

    def range_of(self, idx, w, e0: int, e1: int, first: int = 0):
        """``(base, idx[...], w[...])``: edges ``[e0, e1)`` of arrays ``idx`` / ``w`` (host or device)
        that hold the range layout from edge ``first`` on (0, or the base of the copy they hold),
        with ``base`` the kernel's ``edge_base``. ``w`` may be None."""
        base = self.range_base(e0)
        if self.packed is None:
            i0, i1 = base - first, e1 - first
        else:
            bits = self.index_bits
            start = (first >> 5) * bits
            i0, i1 = (base >> 5) * bits - start, min(((e1 + 31) >> 5) * bits - start, len(idx))
        return base, idx[i0:i1], None if w is None else w[base - first : e1 - first]

    def host_range(self, e0: int, e1: int):
        """``(base, ids, weights)`` of edges ``[e0, e1)`` in the range layout, in host memory."""
        return self.range_of(self.range_indices, self.weights, e0, e1)

    def range_bytes(self, e0: int, e1: int) -> int:
        """Bytes a copy of edges ``[e0, e1)`` in the range layout moves."""
        _, idx, w = self.host_range(e0, e1)
        return int(idx.nbytes) + (0 if w is None else int(w.nbytes))

    def range_buffer_bytes(self, edges: int) -> int:
        """Bytes of a device buffer pair that holds any run of ``edges`` edges in the range layout
        (:meth:`range_entries` of ids and of weights)."""
        n_idx, n_w = self.range_entries(edges)
        return n_idx * self.indices.itemsize + (0 if self.weights is None else n_w * self.weight_bytes)

    def copy_range(self, backend, e0: int, e1: int, idx, w, after=None) -> int:
        """Copy edges ``[e0, e1)`` in the range layout into the device arrays ``idx`` / ``w`` (from
        their start; ``w`` None for an unweighted side), each copy after ``after``; the bytes moved."""
        _, hi, hw = self.host_range(e0, e1)
        backend.copy_h2d(idx[: len(hi)], hi, after=after)
        if w is not None:
            backend.copy_h2d(w[: len(hw)], hw, after=after)
        return int(hi.nbytes) + (0 if hw is None else int(hw.nbytes))

    def copy_shares(self, parts) -> list[int]:
        """The bytes of one copy of consecutive partitions ``parts`` in the range layout, split
        among them: each its own words and weights, the copy's leading partial group on the first
        (packed groups straddle partitions). They add up to the copy's bytes."""
        e0, prev, out = parts[0].edge_lo, 0, []
        for p in parts:
            upto = self.range_bytes(e0, p.edge_hi)
            out.append(upto - prev)
            prev = upto
        return out

    def packing_pays(self) -> bool:
        """Whether a buffer for the largest partition takes no more bytes packed than plain (a
        packed run pays for a partial group of 32 at each end: more than it saves on partitions of
        a few dozen edges); always True for a plain side."""
        cap = self.max_partition_edges()
        return self.range_buffer_bytes(cap) <= cap * self.bytes_per_edge

    def range_view(self, offsets, lo: int, rows: int, idx, w, e0: int, e1: int, first: int = 0) -> PartitionView:
        """A range view of rows ``[lo, lo + rows)`` (edges ``[e0, e1)``) over arrays holding the range
        layout from edge ``first`` on (see :meth:`range_of`)."""
        base, i, ws = self.range_of(idx, w, e0, e1, first)
        return PartitionView(offsets, i, ws, None, lo, rows, base, self.view_bits)

    @property
    def edge_bytes(self) -> int:
        return int(self.offsets[-1]) * self.bytes_per_edge

    def max_partition_edges(self) -> int:
        return int(self.partition_edges.max(initial=0))


@dataclass(frozen=True)
class PartitionCounts:
    """What an iteration's statistics say of partitions, one entry per partition (arrays, or
    numbers for one): its edges, its active rows and their edges, the 128-byte lines those rows
    span; how an edge is gathered (``bytes_per_edge``, plain ids) and how it is copied or read in
    place (``range_bytes_per_edge``: packed ids, fewer bytes), and the bytes of a row's index."""

    part_edges: Any
    active_vertices: Any
    active_edges: Any
    lines: Any
    bytes_per_edge: float
    index_bytes: float = 8
    range_bytes_per_edge: float | None = None

    @property
    def range_bytes(self) -> float:
        return self.bytes_per_edge if self.range_bytes_per_edge is None else self.range_bytes_per_edge


@dataclass(frozen=True)
class Traffic:
    """What loading partitions would move, one entry per partition: bulk host-to-device copies,
    bytes gathered on the host before their copy, and zero-copy reads (requests, the useful bytes
    they carry, and the active share of the partition's edges, HyTGraph's ``RTT_zc`` term)."""

    copy_bytes: Any = 0.0
    gather_bytes: Any = 0.0
    lines: Any = 0.0
    line_bytes: Any = 0.0
    share: Any = 1.0


@dataclass
class Loaded:
    """What an engine hands the kernel for one partition (or one group of them)."""

    view: PartitionView
    row_list: Any | None        # device array of active rows, or None
    use_bits: bool              # True: the kernel filters rows by the frontier bitmap
    bytes_h2d: int              # bytes that crossed (or would cross) host-to-device
    compact_seconds: float = 0.0
    copy_seconds: float = 0.0
    engine: str = ""            # the engine that loaded it (the run record names it per partition)
    #: a group's bytes, partition by partition (the run record's entries); None: one partition
    shares: list[int] | None = None
    #: True where the view's rows have every edge in device memory (a copy of their whole range):
    #: a second pass over them may read it (the hybrid's asynchronous mode)
    whole_rows: bool = False

    def per_partition(self) -> list[int]:
        """The bytes of each partition of the group (one: all of :attr:`bytes_h2d`)."""
        return [int(self.bytes_h2d)] if self.shares is None else self.shares


@dataclass
class Buffers:
    """Device buffers an engine runs a group of partitions in (:meth:`Engine.load_group`): its
    own (:meth:`Engine.own_buffers`), or a slot or block the hybrid's pool lends. ``capacity``:
    edges a run in them may hold (entries of ``weights``; ``indices`` may hold fewer entries,
    packed); ``first``: the edge their range layout starts at where they already hold edges
    (a resident copy); ``free_at`` / ``staged_at``: tokens of the last kernel that read them and
    of the last copy out of their host staging (``host_indices`` / ``host_weights``, pinned,
    made on first gather)."""

    indices: Any
    weights: Any | None
    capacity: int = 0
    first: int = 0
    free_at: Any = None
    staged_at: Any = None
    host_indices: np.ndarray | None = None
    host_weights: np.ndarray | None = None


class Engine(ABC):
    """An engine, with the traits the runtime, the loaded graph, the cost model, the policy and the
    hybrid read from its class (never from its name): adding an engine is its file and one entry in
    :mod:`graphferry.engines.registry` (or one :func:`~graphferry.engines.registry.register` call),
    and every list of engines (:func:`~graphferry.engines.registry.names_where`) follows.

    Example (the traits of the registered engines):
        >>> from graphferry.engines import registry
        >>> registry.names_where(hybrid_picks=True), registry.names_where(whole_side=True)
        (('filter', 'compaction', 'zerocopy'), ('resident', 'zerocopy'))
        >>> [(n, registry.engine_class(n).moves) for n in registry.PARTITION_ENGINES][:3]
        [('host', 'nothing'), ('resident', 'side'), ('filter', 'partitions')]
    """

    name = "?"
    # ---- traits
    #: what crosses host-to-device for a partition: "nothing" (kernels read host memory),
    #: "side" (the whole side, once), "partitions" (each active partition whole), "rows" (the
    #: active rows, gathered on the host first), "lines" (the 128-byte lines active rows touch,
    #: read in place) or "pages" (managed pages migrating on demand)
    moves = "nothing"
    #: True where the kernels read the edges from a copy in device memory (False: where they lie)
    rows_on_device = False
    #: True where it runs on the device executor (False: the host's, reading host memory)
    on_device = True
    #: True where, on a device, it reads an edge side as one partition: one launch per map
    whole_side = False
    #: True where the hybrid may place a partition on it (the policy's engines, per executor)
    hybrid_places = False
    #: True where the hybrid may price a partition on it (by :meth:`traffic`) and pick it; the
    #: hybrid runs an engine it has no runner of its own for through :meth:`load`
    hybrid_picks = False
    #: True where the engine reads the side's range layout (``EdgeSide.range_of``): a loaded graph
    #: then hands it a side with packed ids where it packs them; others always get plain ids
    reads_packed = False
    #: False when the engine moves nothing: unless the caller sets partition_bytes,
    #: its edge side is one partition, since partitions would only add kernel launches.
    splits_partitions = True
    #: True where active rows may come as the backend's ids (``runtime.maps.work``: no host round trip)
    device_rows = False
    #: True where a dense frontier may come as its bitmap alone (``runtime.maps.work``): nothing to copy
    bitmap_rows = False
    #: True where the runtime hands it whole edge maps (the hybrid schedules every partition itself)
    schedules = False
    #: True where it holds the whole side on the device and lends it (:meth:`whole`, resident)
    lends_whole = False

    @classmethod
    def bytes_modelled(cls) -> bool:
        """Whether the bytes it reports are a model (read over the bus without a copy: lines or
        pages), not a measurement of explicit copies (the run record keeps them apart)."""
        return cls.moves in ("lines", "pages")

    def __init__(self, side: EdgeSide, backend: Backend, arena: DeviceArena, lent: bool = False):
        """``lent``: the engine runs only in buffers others lend (:meth:`load_group` called by the
        hybrid with its pool's slots): it allocates no buffers of its own."""
        self.side = side
        self.backend = backend
        self.arena = arena
        self.lent = lent
        self.buffers: list[Buffers] = []   # its own (own_buffers), used in turn by load
        self._next = self._last = 0

    @classmethod
    def traffic(cls, counts: PartitionCounts) -> Traffic | None:
        """What loading partitions of ``counts`` would move (see :class:`Traffic`); None for an
        engine that is not chosen per partition by what it moves (host, resident, unified)."""
        return None

    #: True where :meth:`load_group` takes the group's active vertices as sorted global ids in host
    #: memory (it gathers their edges on the host: compaction), not as the kernel's rows
    host_rows = False

    def load(self, part: Partition, active: np.ndarray | None) -> Loaded:
        """Make ``part`` readable. ``active``: sorted global ids of its active
        vertices (host), or None when every row must be considered (dense).

        By default a group of one partition (:meth:`load_group`) in the next of the engine's own
        buffers (:meth:`own_buffers`, in turn; :meth:`done` records when the kernel read them)."""
        bufs = None
        if self.buffers:
            bufs = self.buffers[self._next]
            self._last, self._next = self._next, (self._next + 1) % len(self.buffers)
        return self.load_group([part], active if self.host_rows else self.rows_of(part, active), bufs)

    def load_group(self, parts: list[Partition], rows, bufs: Buffers | None,
                   counts: PartitionCounts | None = None) -> Loaded:
        """Make partitions ``parts`` readable in device buffers ``bufs``, as one unit where the
        engine can (one copy and one view of consecutive partitions): the engine's body, run by
        its own :meth:`load` in its own buffers and by the hybrid in the slots its pool lends.

        ``rows``: the group's active rows as the kernel reads them (the backend's array, relative
        to ``parts[0].lo``; for an engine with ``host_rows``, sorted global ids in host memory), or
        None when every row counts. ``counts``: what the caller's statistics say of these
        partitions (:class:`PartitionCounts`, one entry each), which an engine may use rather than
        count again (zero-copy's lines), or None. The caller launches the kernel on the view, then
        sets ``bufs.free_at = backend.record()`` (:meth:`done` for the engine's own). An engine
        the hybrid cannot lend buffers to keeps this default."""
        raise NotImplementedError(f"engine {self.name!r} loads one partition at a time in its own buffers")

    def done(self, loaded: Loaded) -> None:
        """The kernel that used ``loaded`` has been issued: the buffers it read are free after it."""
        if self.buffers:
            self.buffers[self._last].free_at = self.backend.record()

    def close(self) -> None:
        """Give back every device buffer (its own, :meth:`own_buffers`)."""
        for bufs in self.buffers:
            self.arena.release(bufs.indices)
            if bufs.weights is not None:
                self.arena.release(bufs.weights)
        self.buffers = []

    # ---- helpers shared by engines -------------------------------------
    def partition_buffers(self, label: str, most: int = 2) -> list[tuple[Any, Any]]:
        """Device buffers (indices, weights or None) for the side's largest partition, ``most``
        of them where the budget holds that many, else fewer (at least one; the first that does
        not fit raises DeviceMemoryError naming the budget). Two alternate so that the copy of
        partition ``i + 1`` overlaps the kernel on ``i``; with one, each copy waits for the
        kernel that read the buffer. A budget just above one hub row's edges holds only one.
        Sized for the range layout (packed ids where the side has them).
        """
        s = self.side
        cap = s.max_partition_edges()
        n_idx, n_w = s.range_entries(cap)
        per_buffer = s.range_buffer_bytes(cap)
        bufs: list[tuple[Any, Any]] = []
        for k in range(most):
            if k and per_buffer > self.arena.free_bytes:
                break
            idx = self.arena.alloc(n_idx, s.indices.dtype, f"{label} buffer {k} (indices)")
            w = None if s.weights is None else self.arena.alloc(n_w, s.weight_dtype, f"{label} buffer {k} (weights)")
            bufs.append((idx, w))
        return bufs

    def own_buffers(self, label: str, most: int = 2) -> list[Buffers]:
        """The engine's own :class:`Buffers` for its :meth:`load` (:meth:`partition_buffers`),
        kept in :attr:`buffers` and given back by :meth:`close`; none where it is ``lent``."""
        if not self.lent:
            cap = self.side.range_entries(self.side.max_partition_edges())[1]
            self.buffers = [Buffers(idx, w, cap) for idx, w in self.partition_buffers(label, most)]
        return self.buffers

    def group_view(self, parts: list[Partition], offsets, indices, weights, first: int = 0) -> PartitionView:
        """The range view of consecutive partitions ``parts`` (rows ``parts[0].lo`` to
        ``parts[-1].hi``) over arrays holding the range layout from edge ``first`` on; ``offsets``:
        the side's device offsets (all of them)."""
        a, z = parts[0], parts[-1]
        return self.side.range_view(offsets[a.lo : z.hi + 1], a.lo, z.hi - a.lo, indices, weights,
                                    a.edge_lo, z.edge_hi, first)

    def copy_group(self, parts: list[Partition], bufs: Buffers) -> tuple[int, list[int] | None, float]:
        """Copy consecutive partitions ``parts``' edges in the range layout into ``bufs`` (after the
        kernel that last read them): ``(bytes, bytes per partition or None for one, seconds)``."""
        t = time.perf_counter()
        moved = self.side.copy_range(self.backend, parts[0].edge_lo, parts[-1].edge_hi, bufs.indices, bufs.weights,
                                     after=bufs.free_at)
        secs = time.perf_counter() - t
        return moved, (self.side.copy_shares(parts) if len(parts) > 1 else None), secs

    def partition_view(self, part: Partition, offsets, indices, weights, first: int = 0) -> PartitionView:
        """Partition ``part``'s range view over arrays holding the range layout from edge ``first``
        on (a whole side's: 0; a copy of the partition: its :meth:`EdgeSide.range_base`)."""
        return self.side.range_view(offsets, part.lo, part.num_vertices, indices, weights,
                                    part.edge_lo, part.edge_hi, first)

    def copy_range(self, part: Partition, idx, w, after=None) -> int:
        """Copy ``part``'s edges in the range layout into device buffers ``idx`` / ``w`` (from their
        start); returns the bytes moved."""
        return self.side.copy_range(self.backend, part.edge_lo, part.edge_hi, idx, w, after=after)

    def rows_of(self, part: Partition, active: np.ndarray | None):
        """Active rows of ``part`` relative to ``part.lo`` on the device, or None."""
        if active is None:
            return None
        if part.lo == 0 and active.dtype == np.int64:   # already the rows (host or device ids)
            return self.backend.asarray(active)
        return self.backend.asarray((active - part.lo).astype(np.int64))
