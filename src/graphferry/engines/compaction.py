"""The ``compaction`` engine (HyTGraph's ExpTM-compaction, Subway's SubCSR).

CPU threads gather only the active vertices' edges into a staging buffer (plus
the vertex list and compacted offsets), then one copy moves the compacted
subgraph. HyTGraph formula (2): ``Tec = |E_p^a| * d / B_pcie + T_compact``: it
moves the fewest bytes but pays the CPU gather. The gather runs in C++ with the
GIL released. With no active list (dense pull), the whole partition is taken.
"""

from __future__ import annotations

import time

import numpy as np

from ..backends.base import PartitionView
from ..backends.cpu.host_ops import gather_rows
from .base import Engine, Loaded


class CompactionEngine(Engine):
    name = "compaction"

    def __init__(self, side, backend, arena):
        super().__init__(side, backend, arena)
        cap = side.max_partition_edges()
        self._idx = arena.alloc(cap, side.indices.dtype, "compaction buffer (indices)")
        self._w = None if side.weights is None else arena.alloc(cap, np.float32, "compaction buffer (weights)")
        self._stage_idx = backend.pinned_empty(cap, side.indices.dtype) if hasattr(backend, "pinned_empty") else np.empty(cap, side.indices.dtype)
        self._stage_w = None
        if side.weights is not None:
            self._stage_w = backend.pinned_empty(cap, np.float32) if hasattr(backend, "pinned_empty") else np.empty(cap, np.float32)

    def load(self, part, active):
        s = self.side
        ids = np.arange(part.lo, part.hi, dtype=np.int64) if active is None else active
        t0 = time.perf_counter()
        coff, idx_h, w_h = gather_rows(s.offsets, s.indices, s.weights, ids, self._stage_idx, self._stage_w)
        t1 = time.perf_counter()
        k = len(idx_h)
        self.backend.copy_h2d(self._idx[:k], idx_h)
        if w_h is not None:
            self.backend.copy_h2d(self._w[:k], w_h)
        vids = self.backend.asarray(ids.astype(s.indices.dtype))
        offs = self.backend.asarray(coff)
        t2 = time.perf_counter()
        view = PartitionView(offs, self._idx[:k], None if w_h is None else self._w[:k], vids, part.lo, len(ids), 0)
        moved = k * s.bytes_per_edge + coff.nbytes + len(ids) * s.indices.itemsize
        return Loaded(view, None, False, moved, compact_seconds=t1 - t0, copy_seconds=t2 - t1)

    def close(self):
        self.arena.release(self._idx)
        if self._w is not None:
            self.arena.release(self._w)
