"""Per-partition statistics of one iteration, computed in one pass where the frontier lies.

The policy needs, for every partition ``P_i`` of an edge side, the active
vertices ``|A_i|``, their edges ``sum_{v in A_i} D_o(v)`` and the 128-byte
requests a zero-copy kernel would make, ``sum_{v in A_i} (ceil(D_o(v) d_1 / m)
+ am(v))`` (HyTGraph formula 3's inner sum: the lines an active row's edge
range covers, misalignment included). For a device backend the frontier's ids
stay on the device: one kernel there (``Backend.partition_counts``), and only
the three per-partition vectors (a few numbers per partition) come back to the
host (HyTGraph sec. V-A computes the costs on the GPU "transferring only the
selection result back").

Example:
    >>> import numpy as np
    >>> from graphferry import Graph
    >>> from graphferry.backends.cpu.backend import CpuBackend
    >>> from graphferry.engines.base import EdgeSide
    >>> from graphferry.runtime.frontier import Frontier
    >>> from graphferry.scheduler.stats import partition_stats
    >>> g = Graph.from_edges([0, 0, 1, 2, 3], [1, 2, 2, 3, 0], n=4)
    >>> side = EdgeSide.of(g, partition_bytes=8, use_weights=False)
    >>> b = CpuBackend()
    >>> s = partition_stats(side, b, Frontier.from_ids(b, 4, [0, 3]), dense=False)
    >>> s.active_vertices.tolist(), s.active_edges.tolist(), s.lines.tolist()
    ([1, 0, 1], [2, 0, 1], [1, 0, 1])
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..backends.base import row_lines


@dataclass
class PartitionStats:
    """One iteration's per-partition counts (host vectors, one entry per partition)."""

    active_vertices: np.ndarray
    active_edges: np.ndarray
    lines: np.ndarray            # 128-byte zero-copy requests of the active rows (indices + weights)
    cuts: np.ndarray | None      # frontier.ids[cuts[i]:cuts[i+1]] are partition i's active ids
    ids: Any = None              # the frontier's ids where they lie (device for a device backend)
    dense: bool = False          # every row of every partition counts (pull, or all vertices)

    def active(self) -> np.ndarray:
        """Indices of the partitions with work this iteration."""
        return np.flatnonzero((self.active_edges > 0) if not self.dense else (self.active_vertices > 0))


def dense_stats(side, backend=None) -> PartitionStats:
    """Every row of every partition active (pull, or the frontier of all vertices); cached per side.

    With a device ``backend``, counted there by :meth:`Backend.partition_counts` over every
    vertex: the host's numpy passes over n rows took 0.8-1.2 s at 33 M vertices (Kronecker or
    uniform scale 25), paid inside the first dense round of a side (a uniform graph's SSSP ran
    its first pull in a timed call: 1.37 s where the round takes 0.13 s)."""
    cached = getattr(side, "_gf_dense_stats", None)
    if cached is not None:
        return cached
    bounds = side.bounds
    if backend is not None and backend.is_device:
        ids = backend.xp.arange(side.n, dtype=backend.xp.int64)
        active, edges, lines = backend.partition_counts(ids, side.device_offsets(backend),
                                                        _device_bounds(side, backend), _line_sizes(side))
        stats = PartitionStats(active, edges, lines, None, None, dense=True)
    else:
        off = side.offsets
        b, e = off[:-1], off[1:]
        per_row = sum(row_lines(np, b, e, size) for size in _line_sizes(side))
        cum = np.concatenate([[0], np.cumsum(per_row)])
        stats = PartitionStats(np.diff(bounds), np.diff(off[bounds]), cum[bounds[1:]] - cum[bounds[:-1]],
                               None, None, dense=True)
    side._gf_dense_stats = stats
    return stats


def _line_sizes(side) -> tuple[int, ...]:
    """Bits an entry of the arrays a row's reads cover: the ids as edge maps read them (packed or
    plain), and weights where the side has them; or one fused edge (``EdgeSide.read_bits``)."""
    return side.read_bits


def _device_bounds(side, backend):
    """The side's partition bounds where ``backend`` keeps arrays (made once per backend)."""
    bounds = getattr(side, "_gf_device_bounds", {}).get(id(backend))
    if bounds is None:
        bounds = backend.asarray(side.bounds)
        side.__dict__.setdefault("_gf_device_bounds", {})[id(backend)] = bounds
    return bounds


def partition_stats(side, backend, frontier, *, dense: bool, device_offsets: Any = None) -> PartitionStats:
    """Statistics of ``frontier`` over ``side``'s partitions, computed where the frontier lies."""
    if dense or frontier.is_all:
        return dense_stats(side, backend)
    ids = frontier.ids
    off = side.device_offsets(backend) if device_offsets is None else device_offsets
    active, edges, lines = backend.partition_counts(ids, off, _device_bounds(side, backend), _line_sizes(side))
    cuts = np.concatenate([[0], np.cumsum(active)])  # the ids are sorted: each partition's run of them
    return PartitionStats(active, edges, lines, cuts, ids, dense=False)


def neighbor_work(side, reads: str) -> np.ndarray:
    """Per partition, the edges a neighbourhood function over its vertices reads (cached per side).

    ``reads="row"`` (and "rows"): each vertex's own row, ``sum_{u in P_i} D(u)``. ``reads="neighbors"``:
    also the row of every neighbour, ``sum_{u in P_i} (D(u) + sum_{v in N(u)} D(v))``: a
    sorted-merge intersection of ``u``'s row with each neighbour's (triangle counting, LCC)
    walks at most that many entries and reads every one of those rows. The calibration
    measures each kind's rate in these units (:mod:`graphferry.runtime.calibration`).

    Example:
        >>> from graphferry import Graph
        >>> from graphferry.engines.base import EdgeSide
        >>> g = Graph.from_edges([0, 0, 1, 2], [1, 2, 2, 0], n=3)
        >>> side = EdgeSide.of(g, partition_bytes=8, use_weights=False)
        >>> [(p.lo, p.hi) for p in side.partitions]
        [(0, 1), (1, 3)]
        >>> neighbor_work(side, "row").tolist(), neighbor_work(side, "neighbors").tolist()
        ([2, 2], [4, 5])
    """
    cache = side.__dict__.setdefault("_gf_neighbor_work", {})
    reads = "row" if reads == "rows" else reads  # one row each, whose ever it is: as many edges in all
    if reads in cache:
        return cache[reads]
    off, idx = side.offsets, side.indices
    row = np.diff(off[side.bounds]).astype(np.int64)
    if reads == "row":
        cache[reads] = row
        return row
    deg = np.diff(off)
    hop = np.zeros(len(side.partitions), np.int64)
    step = 1 << 24  # edges at a time: a degree per edge is 8 bytes, never m of them at once
    for p in side.partitions:
        for a in range(p.edge_lo, p.edge_hi, step):
            hop[p.index] += int(deg[idx[a : min(a + step, p.edge_hi)]].sum())
    cache[reads] = row + hop
    return cache[reads]
