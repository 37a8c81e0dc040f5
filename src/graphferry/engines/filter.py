"""The ``filter`` engine (HyTGraph's ExpTM-filter): copy each active partition whole.

One explicit copy of the partition's contiguous edge bytes per iteration in
which it holds an active vertex; transfers are sequential and so run near the
bus's peak, at the price of moving inactive vertices' edges too. HyTGraph
formula (1): ``Tef = |E_p| * d / B_pcie`` for a partition's edges ``E_p`` of
``d`` bytes each. Two device buffers alternate so the next copy can overlap the
current kernel on a device with copy engines: the copy into a buffer waits
only for the kernel that last read it (a backend token), never for the host.
The edge arrays are pinned in place once (``backend.register_host``) so the
copies run at the bus's pinned speed.
"""

from __future__ import annotations

import time

import numpy as np

from .base import Engine, Loaded, PartitionCounts, Traffic


class FilterEngine(Engine):
    name = "filter"
    moves = "partitions"
    rows_on_device = True
    hybrid_places = True
    hybrid_picks = True
    reads_packed = True

    @classmethod
    def traffic(cls, counts: PartitionCounts) -> Traffic:
        # HyTGraph (1): Tef_i = ceil(sum_{v in P_i} D_o(v) * d_1 / m / MR) * RTT: every edge of the
        # partition, in one copy, as the range lies (packed ids where the side packs them)
        return Traffic(copy_bytes=np.asarray(counts.part_edges, dtype=np.float64) * counts.range_bytes)

    def __init__(self, side, backend, arena):
        super().__init__(side, backend, arena)
        self._bufs = self.partition_buffers("filter")
        self._next = 0
        self._free_at = [None] * len(self._bufs)  # per buffer: token of the last kernel that read it
        self._offsets = side.device_offsets(backend)
        backend.register_host(side.range_indices)
        if side.weights is not None:
            backend.register_host(side.weights)

    def load(self, part, active):
        s = self.side
        buf = self._last = self._next
        idx, w = self._bufs[buf]
        self._next = (self._next + 1) % len(self._bufs)
        t = time.perf_counter()
        moved = self.copy_range(part, idx, w, after=self._free_at[buf])
        secs = time.perf_counter() - t
        view = self.partition_view(part, self._offsets[part.lo : part.hi + 1], idx, w,
                                   first=s.range_base(part.edge_lo))
        return Loaded(view, self.rows_of(part, active), active is None, moved, copy_seconds=secs, engine=self.name)

    def done(self, loaded):
        self._free_at[self._last] = self.backend.record()

    def close(self):
        for idx, w in self._bufs:
            self.arena.release(idx)
            if w is not None:
                self.arena.release(w)
        self._bufs = []
