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
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..backends.base import Backend, DeviceArena, PartitionView
from ..partition import Partition, partition_by_bytes


@dataclass
class EdgeSide:
    """One direction's CSR (out-edges for push, in-edges for pull) and its partitions."""

    offsets: np.ndarray
    indices: np.ndarray
    weights: np.ndarray | None
    partitions: list[Partition]
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
    def of(cls, graph, partition_bytes: int, use_weights: bool, weights: np.ndarray | None = None) -> "EdgeSide":
        """``graph``'s side cut into partitions of about ``partition_bytes``; ``weights``: the
        weights as kernels will read them (the loaded graph's narrowed copy), else ``graph.weights``."""
        w = (graph.weights if weights is None else weights) if use_weights else None
        per_edge = graph.indices.itemsize + (0 if w is None else w.itemsize)
        return cls(graph.offsets, graph.indices, w, partition_by_bytes(graph.offsets, per_edge, partition_bytes))

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
        return self.indices.itemsize + self.weight_bytes

    @property
    def edge_bytes(self) -> int:
        return int(self.offsets[-1]) * self.bytes_per_edge

    def max_partition_edges(self) -> int:
        return int(self.partition_edges.max(initial=0))


@dataclass
class Loaded:
    """What an engine hands the kernel for one partition."""

    view: PartitionView
    row_list: Any | None        # device array of active rows, or None
    use_bits: bool              # True: the kernel filters rows by the frontier bitmap
    bytes_h2d: int              # bytes that crossed (or would cross) host-to-device
    compact_seconds: float = 0.0
    copy_seconds: float = 0.0


class Engine(ABC):
    name = "?"
    #: False when the engine moves nothing: unless the caller sets partition_bytes,
    #: its edge side is one partition, since partitions would only add kernel launches.
    splits_partitions = True

    def __init__(self, side: EdgeSide, backend: Backend, arena: DeviceArena):
        self.side = side
        self.backend = backend
        self.arena = arena

    @abstractmethod
    def load(self, part: Partition, active: np.ndarray | None) -> Loaded:
        """Make ``part`` readable. ``active``: sorted global ids of its active
        vertices (host), or None when every row must be considered (dense)."""

    def done(self, loaded: Loaded) -> None:
        """The kernel that used ``loaded`` has been issued."""

    def close(self) -> None:
        """Give back every device buffer."""

    # ---- helpers shared by engines -------------------------------------
    def partition_buffers(self, label: str, most: int = 2) -> list[tuple[Any, Any]]:
        """Device buffers (indices, weights or None) for the side's largest partition, ``most``
        of them where the budget holds that many, else fewer (at least one; the first that does
        not fit raises DeviceMemoryError naming the budget). Two alternate so that the copy of
        partition ``i + 1`` overlaps the kernel on ``i``; with one, each copy waits for the
        kernel that read the buffer. A budget just above one hub row's edges holds only one.
        """
        s = self.side
        cap = s.max_partition_edges()
        per_buffer = cap * s.bytes_per_edge
        bufs: list[tuple[Any, Any]] = []
        for k in range(most):
            if k and per_buffer > self.arena.free_bytes:
                break
            idx = self.arena.alloc(cap, s.indices.dtype, f"{label} buffer {k} (indices)")
            w = None if s.weights is None else self.arena.alloc(cap, s.weight_dtype, f"{label} buffer {k} (weights)")
            bufs.append((idx, w))
        return bufs

    def range_view(self, part: Partition, offsets, indices, weights, edge_base: int) -> PartitionView:
        return PartitionView(offsets, indices, weights, None, part.lo, part.num_vertices, edge_base)

    def rows_of(self, part: Partition, active: np.ndarray | None):
        """Active rows of ``part`` relative to ``part.lo`` on the device, or None."""
        if active is None:
            return None
        if part.lo == 0 and active.dtype == np.int64:   # already the rows (host or device ids)
            return self.backend.asarray(active)
        return self.backend.asarray((active - part.lo).astype(np.int64))
