"""The ``resident`` engine: the whole edge side is copied to the device once.

For graphs that fit the device-memory budget; every later iteration moves
nothing. The device buffers are taken when the engine is built (so a loaded
graph can make room for them first); the copy is made, and counted, in the
first iteration that needs it. On a loaded graph the engine outlives the call,
so later calls move nothing at all; the source is the loaded graph's pinned
host memory, so the copy runs at the bus's pinned speed.
"""

from __future__ import annotations

import time

from .base import Engine, Loaded


class ResidentEngine(Engine):
    name = "resident"
    # plain ids: on a GPU its device copy is also the whole graph neighbourhood functions read
    # (Runtime.whole_graph), and they read plain ids (GfGraph)
    reads_packed = False
    device_rows = True  # active rows may come as the backend's ids (runtime._work)

    def __init__(self, side, backend, arena):
        super().__init__(side, backend, arena)
        m = int(side.offsets[-1])
        self._idx = arena.alloc(len(side.range_indices), side.indices.dtype, "resident edge indices")
        self._w = None
        if side.weights is not None:
            try:
                self._w = arena.alloc(m, side.weights.dtype, "resident edge weights")
            except Exception:
                arena.release(self._idx)
                raise
        self._dev = None

    def _upload(self) -> float:
        s = self.side
        t = time.perf_counter()
        self.backend.copy_h2d(self._idx, s.range_indices)
        if self._w is not None:
            self.backend.copy_h2d(self._w, s.weights)
        self._dev = (s.device_offsets(self.backend), self._idx, self._w)
        self.backend.synchronize()
        return time.perf_counter() - t

    def whole(self) -> tuple[tuple, int, float]:
        """The side's device arrays (offsets, indices, weights or None), uploading them on first
        use; with the bytes and seconds that upload took (0 once resident)."""
        if self._dev is not None:
            return self._dev, 0, 0.0
        secs = self._upload()
        s = self.side
        return self._dev, s.range_bytes(0, int(s.offsets[-1])), secs

    def load(self, part, active):
        (offs, idx, w), moved, secs = self.whole()
        view = self.partition_view(part, offs[part.lo : part.hi + 1], idx, w)
        return Loaded(view, self.rows_of(part, active), active is None, moved, copy_seconds=secs, engine=self.name)

    def close(self):
        if self._idx is not None:
            self.arena.release(self._idx)
            if self._w is not None:
                self.arena.release(self._w)
        self._idx = self._w = self._dev = None
