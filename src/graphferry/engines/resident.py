"""The ``resident`` engine: the whole edge side is copied to the device once.

For graphs that fit the device-memory budget; every later iteration moves
nothing. The copy is counted in the first iteration that needs it.
"""

from __future__ import annotations

import time

from .base import Engine, Loaded


class ResidentEngine(Engine):
    name = "resident"

    def __init__(self, side, backend, arena):
        super().__init__(side, backend, arena)
        self._dev = None

    def _upload(self) -> float:
        s = self.side
        t = time.perf_counter()
        m = int(s.offsets[-1])
        idx = self.arena.alloc(m, s.indices.dtype, "resident edge indices")
        self.backend.copy_h2d(idx, s.indices)
        w = None
        if s.weights is not None:
            w = self.arena.alloc(m, s.weights.dtype, "resident edge weights")
            self.backend.copy_h2d(w, s.weights)
        offs = self.backend.asarray(s.offsets)
        self._dev = (offs, idx, w)
        self.backend.synchronize()
        return time.perf_counter() - t

    def load(self, part, active):
        moved, secs = 0, 0.0
        if self._dev is None:
            secs = self._upload()
            moved = self.side.edge_bytes
        offs, idx, w = self._dev
        view = self.range_view(part, offs[part.lo : part.hi + 1], idx[part.edge_lo : part.edge_hi],
                               None if w is None else w[part.edge_lo : part.edge_hi], part.edge_lo)
        return Loaded(view, self.rows_of(part, active), active is None, moved, copy_seconds=secs)

    def close(self):
        if self._dev is not None:
            _, idx, w = self._dev
            self.arena.release(idx)
            if w is not None:
                self.arena.release(w)
            self._dev = None
