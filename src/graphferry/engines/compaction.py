"""The ``compaction`` engine (HyTGraph's ExpTM-compaction, Subway's SubCSR).

CPU threads gather only the active vertices' edges into a staging buffer (plus
the vertex list and compacted offsets), then one copy moves the compacted
subgraph. HyTGraph formula (2): ``Tec = |E_p^a| * d / B_pcie + T_compact``: it
moves the fewest bytes but pays the CPU gather. The gather runs in C++ with the
GIL released. With no active list (dense pull) every row counts and the
partition's contiguous edge range is copied as it lies (no gather).

Two pinned staging buffers and two device buffers alternate: the gather for
partition ``i + 1`` runs on the host while the device still copies or computes
partition ``i`` (the host waits only until the copy that last read the staging
buffer is done; the copy waits only for the kernel that last read its device
buffer).
"""

from __future__ import annotations

import time

import numpy as np

from ..backends.base import PartitionView
from ..host_ops import gather_rows
from .base import Engine, Loaded, PartitionCounts, Traffic


class CompactionEngine(Engine):
    name = "compaction"
    moves = "rows"
    rows_on_device = True
    hybrid_places = True
    hybrid_picks = True
    # plain ids: its buffers hold gathers of plain ids; packed whole-partition copies would only
    # add a partial group and 31 weights to every buffer
    reads_packed = False

    @classmethod
    def traffic(cls, counts: PartitionCounts) -> Traffic:
        # HyTGraph (2): Tec_i = ceil((sum_{v in A_i} D_o(v) * d_1 + |A_i| * d_2) / m / MR) * RTT
        # + (sum_{v in A_i} D_o(v) * d_1 + |A_i| * d_2) / Thpt_cpt: the active rows' edges (plain
        # ids) and their row index, gathered on the host, then copied
        moved = (np.asarray(counts.active_edges, dtype=np.float64) * counts.bytes_per_edge
                 + np.asarray(counts.active_vertices, dtype=np.float64) * counts.index_bytes)
        return Traffic(copy_bytes=moved, gather_bytes=moved)

    def __init__(self, side, backend, arena):
        super().__init__(side, backend, arena)
        cap = side.max_partition_edges()
        self._bufs = []
        for idx, w in self.partition_buffers("compaction"):   # a staging buffer for each
            stage_idx = backend.pinned_empty(cap, side.indices.dtype)
            stage_w = None if side.weights is None else backend.pinned_empty(cap, side.weight_dtype)
            self._bufs.append((idx, w, stage_idx, stage_w))
        self._next = 0
        self._last = 0
        self._free_at = [None] * len(self._bufs)     # token: the last kernel that read device buffer k
        self._staged_at = [None] * len(self._bufs)   # token: the last copy out of staging buffer k

    def load(self, part, active):
        s = self.side
        buf = self._last = self._next
        self._next = (self._next + 1) % len(self._bufs)
        d_idx, d_w, stage_idx, stage_w = self._bufs[buf]
        if active is None:
            return self._load_whole(part, d_idx, d_w, self._free_at[buf])
        ids = active
        self.backend.host_wait(self._staged_at[buf])
        t0 = time.perf_counter()
        coff, idx_h, w_h = gather_rows(s.offsets, s.indices, s.weights, ids, stage_idx, stage_w)
        t1 = time.perf_counter()
        k = len(idx_h)
        after = self._free_at[buf]
        token = self.backend.copy_h2d(d_idx[:k], idx_h, after=after)
        if w_h is not None:
            token = self.backend.copy_h2d(d_w[:k], w_h, after=after)
        self._staged_at[buf] = token
        vids = self.backend.asarray(ids.astype(s.indices.dtype))
        offs = self.backend.asarray(coff)
        t2 = time.perf_counter()
        view = PartitionView(offs, d_idx[:k], None if w_h is None else d_w[:k], vids, part.lo, len(ids), 0)
        moved = k * s.bytes_per_edge + coff.nbytes + len(ids) * s.indices.itemsize
        return Loaded(view, None, False, moved, compact_seconds=t1 - t0, copy_seconds=t2 - t1, engine=self.name)

    def _load_whole(self, part, d_idx, d_w, after):
        """Every row counts (dense pull): the compacted subgraph is the partition's own
        contiguous edge range, so it is copied as it lies, with no gather."""
        s = self.side
        t0 = time.perf_counter()
        moved = self.copy_range(part, d_idx, d_w, after=after) + (part.num_vertices + 1) * 8
        offs = self.backend.asarray(s.offsets[part.lo : part.hi + 1])
        view = self.partition_view(part, offs, d_idx, d_w, first=s.range_base(part.edge_lo))
        return Loaded(view, None, True, moved, copy_seconds=time.perf_counter() - t0, engine=self.name)

    def done(self, loaded):
        self._free_at[self._last] = self.backend.record()

    def close(self):
        for d_idx, d_w, _, _ in self._bufs:
            self.arena.release(d_idx)
            if d_w is not None:
                self.arena.release(d_w)
        self._bufs = []
