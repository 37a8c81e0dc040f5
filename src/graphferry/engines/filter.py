"""The ``filter`` engine (HyTGraph's ExpTM-filter): copy each active partition whole.

One explicit copy of the partition's contiguous edge bytes per iteration in
which it holds an active vertex; transfers are sequential and so run near the
bus's peak, at the price of moving inactive vertices' edges too. HyTGraph
formula (1): ``Tef = |E_p| * d / B_pcie`` for a partition's edges ``E_p`` of
``d`` bytes each. Two device buffers alternate so the next copy can overlap the
current kernel on a device with copy engines: the copy into a buffer waits
only for the kernel that last read it (a backend token), never for the host.
The edge arrays are pinned in place once (``backend.register_host``) so the
copies run at the bus's pinned speed. Its body (:meth:`FilterEngine.load_group`) copies
consecutive partitions as one range: one partition in its own buffers, or up to ``k`` in a slot
the hybrid lends (HyTGraph sec. V-B's task combining).
"""

from __future__ import annotations

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

    def __init__(self, side, backend, arena, lent=False):
        super().__init__(side, backend, arena, lent)
        self.own_buffers("filter")   # two alternate: a copy waits only for the kernel that read its buffer
        self._offsets = side.device_offsets(backend)
        backend.register_host(side.range_indices)
        if side.weights is not None:
            backend.register_host(side.weights)

    def load_group(self, parts, rows, bufs, counts=None):
        # consecutive partitions: one copy of their edges as they lie, one view of their rows
        moved, shares, secs = self.copy_group(parts, bufs)
        view = self.group_view(parts, self._offsets, bufs.indices, bufs.weights,
                               first=self.side.range_base(parts[0].edge_lo))
        return Loaded(view, rows, rows is None, moved, copy_seconds=secs, engine=self.name, shares=shares,
                      whole_rows=True)
