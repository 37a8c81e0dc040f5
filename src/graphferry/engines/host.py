"""The ``host`` engine: kernels read the edge arrays where they lie, nothing moves.

This is how the CPU backend computes on a graph in host memory (or memory-mapped
from a store); on a device backend it is refused, since the device cannot read
ordinary host memory (use ``zerocopy`` for mapped reads).
"""

from __future__ import annotations

from .base import Engine, Loaded


class HostEngine(Engine):
    name = "host"
    moves = "nothing"
    on_device = False
    hybrid_places = True      # a CPU executor's partitions
    splits_partitions = False
    bitmap_rows = True   # a dense frontier may come as its bitmap alone (runtime.maps.work): nothing to copy

    def __init__(self, side, backend, arena):
        if backend.is_device:
            raise ValueError("engine 'host' reads host memory directly; on a GPU use 'zerocopy'")
        super().__init__(side, backend, arena)

    def load(self, part, active):
        s = self.side
        view = self.partition_view(part, s.offsets[part.lo : part.hi + 1], s.range_indices, s.weights)
        return Loaded(view, self.rows_of(part, active), active is None, 0, engine=self.name)

    def rows_of(self, part, active):
        # the kernels read host memory: the active ids serve as they are (no copy)
        if active is None:
            return None
        return active if part.lo == 0 else active - part.lo
