"""The ``unified`` engine (HyTGraph's ImpTM-unified-memory; Grus, HALO).

Edges live in managed memory; the kernel touches pages and the driver migrates
them on demand, keeping them while memory allows. On the CPU backend the
migration is simulated: 64 KiB pages (the driver's basic migration unit),
least-recently-used eviction once the pages held exceed the budget, and each
page brought in counts its bytes. A device backend provides real managed memory
(``backend.managed_view``) and must refuse more managed memory than the GPU has
free unless the caller opts in.
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np

from .base import Engine, Loaded

PAGE_BYTES = 64 * 1024


def pages_touched(offsets, ids, lo, hi, itemsize, base_page: int = 0) -> np.ndarray:
    """Sorted unique page numbers covering the edge ranges of ``ids`` (all of [lo, hi) if None)."""
    if ids is None:
        b, e = int(offsets[lo]) * itemsize, int(offsets[hi]) * itemsize
        if e <= b:
            return np.empty(0, np.int64)
        return np.arange(b // PAGE_BYTES, (e - 1) // PAGE_BYTES + 1, dtype=np.int64) + base_page
    b = offsets[ids] * itemsize
    e = offsets[ids + 1] * itemsize
    keep = e > b
    first, last = b[keep] // PAGE_BYTES, (e[keep] - 1) // PAGE_BYTES
    span = last - first + 1
    pages = np.repeat(first - np.cumsum(span) + span, span) + np.arange(int(span.sum()))
    return np.unique(pages) + base_page


class UnifiedEngine(Engine):
    name = "unified"
    moves = "pages"
    rows_on_device = True

    def __init__(self, side, backend, arena):
        super().__init__(side, backend, arena)
        if hasattr(backend, "managed_view"):
            self._real = backend.managed_view(side, arena)
        else:
            self._real = None
        self._resident: OrderedDict[int, None] = OrderedDict()
        self._capacity = max(1, arena.budget_bytes // PAGE_BYTES)
        self._offsets = side.device_offsets(backend)
        # weights pages are numbered after the index pages
        self._weight_base = (int(side.offsets[-1]) * side.indices.itemsize) // PAGE_BYTES + 1

    def _touch(self, pages: np.ndarray) -> int:
        missing = 0
        res = self._resident
        for p in pages.tolist():
            if p in res:
                res.move_to_end(p)
            else:
                missing += 1
                res[p] = None
                if len(res) > self._capacity:
                    res.popitem(last=False)
        return missing

    def load(self, part, active):
        s = self.side
        pages = pages_touched(s.offsets, active, part.lo, part.hi, s.indices.itemsize)
        if s.weights is not None:
            pages = np.concatenate([pages, pages_touched(s.offsets, active, part.lo, part.hi, s.weight_bytes,
                                                         self._weight_base)])
        moved = self._touch(pages) * PAGE_BYTES
        if self._real is not None:
            indices, weights = self._real.prepare(part, pages)
            if self._real.last_bytes is not None:  # prefetched (or already resident): exact
                moved = self._real.last_bytes
        else:
            indices, weights = s.indices, s.weights
        # managed memory holds the plain ids (the side is never packed for this engine)
        view = self.partition_view(part, self._offsets[part.lo : part.hi + 1], indices, weights)
        return Loaded(view, self.rows_of(part, active), active is None, moved, engine=self.name)

    def close(self):
        if self._real is not None:
            self._real.close()
