"""The ``zerocopy`` engine (HyTGraph's ImpTM-zero-copy, EMOGI).

Kernels read the edges straight from mapped, pinned host memory; only the
128-byte lines that active rows touch cross the bus (EMOGI's merged and aligned
requests, warp per vertex). HyTGraph formula (3):
``Tiz = gamma * sum_v ceil(d * deg(v) / 128) * 128 / B_pcie`` with damping
gamma for request overlap; here we count the lines exactly, and the cost model
(later) calibrates the bandwidth of scattered lines on the machine. A weighted side with packed
ids and integer weights is read as fused edges (``EdgeSide.fused``: an edge's id and weight in one
field, ``d`` = their bits together), so a short row costs one request where an array of ids and
one of weights cost two. Its body
(:meth:`ZeroCopyEngine.load_group`) is one view over a group's rows: one partition in its own
loop, every partition the hybrid places on it in one launch.
"""

from __future__ import annotations

import numpy as np

from ..backends.base import LINE_BYTES
from .base import Engine, Loaded, PartitionCounts, Traffic


def lines_touched(offsets, ids, lo: int, hi: int, bits: int, xp=np) -> int:
    """Number of 128-byte lines covering the edge ranges of ``ids`` (all of [lo, hi) if None) in
    an array of ``bits``-bit entries; ``offsets`` and ``ids`` arrays of the array module ``xp``
    (numpy, or CuPy on the device)."""
    if ids is None:
        ids = xp.arange(lo, hi, dtype=np.int64)
    b = offsets[ids] * bits
    e = offsets[ids + 1] * bits
    nonempty = e > b
    first = b[nonempty] // (8 * LINE_BYTES)
    last = (e[nonempty] - 1) // (8 * LINE_BYTES)
    return int((last - first + 1).sum())


class ZeroCopyEngine(Engine):
    name = "zerocopy"
    moves = "lines"
    whole_side = True
    hybrid_places = True
    hybrid_picks = True
    reads_packed = True
    device_rows = True  # active rows may come as the backend's ids (runtime.maps.work)

    @classmethod
    def traffic(cls, counts: PartitionCounts) -> Traffic:
        # HyTGraph (3): Tiz_i = ceil(sum_{v in A_i} (ceil(D_o(v) * d_1 / m) + am(v)) / MR) * RTT_zc,
        # RTT_zc = gamma * RTT + (1 - gamma) * (sum_{A_i} D_o / sum_{P_i} D_o) * RTT: the lines the
        # active rows span (counted exactly), the useful bytes they carry, and the active share
        part = np.asarray(counts.part_edges, dtype=np.float64)
        active = np.asarray(counts.active_edges, dtype=np.float64)
        return Traffic(lines=np.asarray(counts.lines, dtype=np.float64), line_bytes=active * counts.range_bytes,
                       share=np.divide(active, part, out=np.ones_like(part), where=part > 0))

    def __init__(self, side, backend, arena, lent=False):
        super().__init__(side, backend, arena, lent)
        #: the side's range layout and weights as the device reads them in place (made once): its
        #: fused edges where it has them (a short row's ids and weights in one request, not two)
        if side.fused is not None:
            self.mapped = (backend.host_view(side.fused), None)
        else:
            self.mapped = (backend.host_view(side.range_indices),
                           None if side.weights is None else backend.host_view(side.weights))
        self._offsets = side.device_offsets(backend)
        self._dense_bytes: dict[int, int] = {}

    def _lines_bytes(self, part, active) -> int:
        s = self.side
        # device ids (runtime.maps.work, one partition) are counted on the device
        on_device = active is not None and not isinstance(active, np.ndarray)
        offsets, xp = (self._offsets, self.backend.xp) if on_device else (s.offsets, np)
        return sum(lines_touched(offsets, active, part.lo, part.hi, bits, xp) for bits in s.read_bits) * LINE_BYTES

    def load(self, part, active):
        # the lines its rows touch, counted from the active ids before they become rows
        if active is None:  # a whole partition's count never changes: count it once
            moved = self._dense_bytes.get(part.index)
            if moved is None:
                moved = self._dense_bytes[part.index] = self._lines_bytes(part, None)
        else:
            moved = self._lines_bytes(part, active)
        return self.load_group([part], self.rows_of(part, active), None, PartitionCounts(
            part.num_edges, 0, 0, moved // LINE_BYTES, self.side.bytes_per_edge))

    def load_group(self, parts, rows, bufs, counts=None):
        # nothing to copy: one view over the group's rows (and the rows between them, which
        # ``rows`` leaves out) reading the mapped host arrays; the lines the caller counted
        lines = np.atleast_1d(np.asarray(counts.lines)) if counts is not None else \
            np.array([self._lines_bytes(p, None) // LINE_BYTES for p in parts])
        shares = [int(x) * LINE_BYTES for x in lines]
        idx, w = self.mapped
        a, z = parts[0], parts[-1]
        view = self.side.in_place_view(self._offsets[a.lo : z.hi + 1], a.lo, z.hi - a.lo, idx, w, a.edge_lo, z.edge_hi)
        return Loaded(view, rows, rows is None, sum(shares), engine=self.name,
                      shares=shares if len(parts) > 1 else None)
