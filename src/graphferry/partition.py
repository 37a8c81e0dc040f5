"""Partitions: ranges of consecutive vertices sized by the bytes of their edges.

HyTGraph (sec. III) cuts the CSR into partitions of consecutive vertices of
about 32 MB of edge data each; contiguity keeps every partition's edges one byte
range of the edge arrays (and of the memory-mapped store). A partition is the
unit an engine transfers and the scheduler chooses an engine for.

Example:
    >>> import numpy as np
    >>> from graphferry.partition import partition_by_bytes
    >>> offsets = np.array([0, 4, 8, 9, 10, 20], dtype=np.int64)
    >>> [(p.lo, p.hi) for p in partition_by_bytes(offsets, bytes_per_edge=4, target_bytes=32)]
    [(0, 2), (2, 5)]
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

DEFAULT_PARTITION_BYTES = 32 * 2**20


@dataclass(frozen=True)
class Partition:
    """Vertices ``[lo, hi)`` and their out-edges ``[edge_lo, edge_hi)``."""

    index: int
    lo: int
    hi: int
    edge_lo: int
    edge_hi: int

    @property
    def num_vertices(self) -> int:
        return self.hi - self.lo

    @property
    def num_edges(self) -> int:
        return self.edge_hi - self.edge_lo


def partition_bounds(offsets: np.ndarray, bytes_per_edge: int, target_bytes: int) -> np.ndarray:
    """Vertex boundaries ``[0, b1, ..., n]`` cutting edges into ~``target_bytes`` pieces.

    A boundary is placed at the first vertex whose edge offset reaches the next
    multiple of the target (a single huge vertex makes one oversized partition,
    never an empty one). Vectorised: O(n_partitions log n).
    """
    if target_bytes <= 0:
        raise ValueError(f"partition size must be positive, got {target_bytes} bytes")
    n = len(offsets) - 1
    m = int(offsets[-1])
    edges_per_part = max(1, target_bytes // max(1, bytes_per_edge))
    if n == 0:
        return np.array([0], dtype=np.int64)
    targets = np.arange(edges_per_part, m, edges_per_part, dtype=np.int64)
    cuts = np.searchsorted(offsets, targets, side="left")
    cuts = cuts[(cuts > 0) & (cuts < n)]
    bounds = np.concatenate([[0], cuts, [n]]).astype(np.int64)
    # sorted already: drop repeats by hand (numpy 2's np.unique imports numpy.ma, 0.1 s of a one-shot run)
    return bounds[np.concatenate([[True], bounds[1:] != bounds[:-1]])]


def partition_by_bytes(
    offsets: np.ndarray, bytes_per_edge: int, target_bytes: int = DEFAULT_PARTITION_BYTES
) -> list[Partition]:
    """Partitions of consecutive vertices holding about ``target_bytes`` of edges each."""
    bounds = partition_bounds(offsets, bytes_per_edge, target_bytes)
    edge_at = offsets[bounds]
    return [
        Partition(i, int(bounds[i]), int(bounds[i + 1]), int(edge_at[i]), int(edge_at[i + 1]))
        for i in range(len(bounds) - 1)
    ]
