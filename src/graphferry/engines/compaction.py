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
buffer). Its body (:meth:`CompactionEngine.load_group`) gathers a group's rows in one: one
partition in its own buffers, or a chunk of several in a slot the hybrid lends.
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

    host_rows = True   # it gathers the active rows' edges on the host: their ids come as host ids

    def __init__(self, side, backend, arena, lent=False):
        super().__init__(side, backend, arena, lent)
        for bufs in self.own_buffers("compaction"):   # a pinned staging buffer pair for each
            self._staging(bufs)

    def _staging(self, bufs):
        """``bufs``' pinned host staging (made on first use): ids for as many edges as its id buffer
        holds (plain ids are gathered), weights for its capacity."""
        if bufs.host_indices is None:
            s, b = self.side, self.backend
            bufs.host_indices = b.pinned_empty(min(len(bufs.indices), bufs.capacity), s.indices.dtype)
            bufs.host_weights = None if s.weights is None else b.pinned_empty(bufs.capacity, s.weight_dtype)
        return bufs.host_indices, bufs.host_weights

    def load_group(self, parts, rows, bufs, counts=None):
        """``rows``: the group's active vertices, sorted global ids in host memory (``host_rows``),
        gathered into ``bufs``' staging and copied in one; None (every row counts): the
        partitions' contiguous edge range is the compacted subgraph, copied as it lies."""
        s, b = self.side, self.backend
        if rows is None:
            return self._load_whole(parts, bufs)
        ids = rows
        stage_idx, stage_w = self._staging(bufs)
        b.host_wait(bufs.staged_at)   # the copy that last read the staging buffers is done
        t0 = time.perf_counter()
        coff, idx_h, w_h = gather_rows(s.offsets, s.indices, s.weights, ids, stage_idx, stage_w)
        t1 = time.perf_counter()
        k = len(idx_h)
        token = b.copy_h2d(bufs.indices[:k], idx_h, after=bufs.free_at)
        if w_h is not None:
            token = b.copy_h2d(bufs.weights[:k], w_h, after=bufs.free_at)
        bufs.staged_at = token
        vids = b.asarray(ids.astype(s.indices.dtype))
        offs = b.asarray(coff)
        t2 = time.perf_counter()
        view = PartitionView(offs, bufs.indices[:k], None if w_h is None else bufs.weights[:k], vids,
                             parts[0].lo, len(ids), 0)
        # each partition: its rows' edges and, per row, its compacted offset and its id (the
        # offsets' closing entry is the group's)
        if len(parts) == 1:
            shares = [k * s.bytes_per_edge + len(ids) * (8 + s.indices.itemsize)]
        else:
            cut = np.searchsorted(ids, [p.lo for p in parts] + [parts[-1].hi])
            edges, nrows = np.diff(coff[cut]), np.diff(cut)
            shares = [int(e) * s.bytes_per_edge + int(r) * (8 + s.indices.itemsize) for e, r in zip(edges, nrows)]
        return Loaded(view, None, False, sum(shares) + 8, compact_seconds=t1 - t0, copy_seconds=t2 - t1,
                      engine=self.name, shares=shares)

    def _load_whole(self, parts, bufs):
        """Every row counts (dense pull): the compacted subgraph is the partitions' own
        contiguous edge range, so it is copied as it lies, with no gather."""
        s = self.side
        t0 = time.perf_counter()
        a, z = parts[0], parts[-1]
        moved = s.copy_range(self.backend, a.edge_lo, z.edge_hi, bufs.indices, bufs.weights, after=bufs.free_at) \
            + (z.hi - a.lo + 1) * 8
        offs = self.backend.asarray(s.offsets[a.lo : z.hi + 1])
        view = s.range_view(offs, a.lo, z.hi - a.lo, bufs.indices, bufs.weights, a.edge_lo, z.edge_hi,
                            s.range_base(a.edge_lo))
        return Loaded(view, None, True, moved, copy_seconds=time.perf_counter() - t0, engine=self.name)
