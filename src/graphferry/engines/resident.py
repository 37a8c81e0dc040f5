"""The ``resident`` engine: the edge side is copied to the device once, as the traversal first reads it.

For graphs that fit the device-memory budget; once copied, later iterations move
nothing. The device buffers are taken when the engine is built (so a loaded graph
can make room for them first). The copy is made in runs of :data:`CHUNK_EDGES`
edges, in the first iteration that reads them: a dense or pulling iteration
copies every run still missing, a sparse frontier (at most :data:`SPARSE_ROWS`
vertices) only the runs its rows' edges lie in. So a traversal that reaches few
vertices moves few edges, and BFS from a vertex with no edges moves none; one that
reaches the graph copies it in its first dense round. On a loaded graph the engine
outlives the call, so later calls move nothing at all. The source is the loaded
graph's host memory (on a device: a store's files read through the backend's pinned
staging slots), so the copy runs near the bus's pinned speed.

Example:
    >>> import graphferry as gf
    >>> from graphferry.algorithms import bfs
    >>> g = gf.Graph.from_edges(range(40), range(1, 41), n=64)   # a path, and vertices with no edges
    >>> with gf.load(g, backend="cpu") as lg:
    ...     alone = bfs(lg, 63, engine="resident").record.bytes_h2d
    ...     reach = bfs(lg, 0, engine="resident").record.bytes_h2d
    >>> alone, reach   # 80 arcs' ids of 4 bytes, in the first call that reads them
    (0, 320)
"""

from __future__ import annotations

import time

import numpy as np

from ..phase_clock import phase
from .base import Buffers, Engine, Loaded

#: The resident copy is made in runs of this many edges (32 MB of int32 ids), each the first time
#: an iteration reads it.
CHUNK_EDGES = 1 << 23
#: A frontier of at most this many vertices copies only the runs its rows lie in (its ids come to
#: the host to find them); a larger one, or a dense or pulling iteration, copies every run left.
SPARSE_ROWS = 1 << 16


class ResidentEngine(Engine):
    name = "resident"
    # plain ids: on a GPU its device copy is also the whole graph neighbourhood functions read
    # (Runtime.whole_graph), and they read plain ids (GfGraph)
    moves = "side"
    rows_on_device = True
    whole_side = True
    hybrid_places = True      # placed by residency (what is held), not priced per partition
    lends_whole = True
    reads_packed = False
    device_rows = True  # active rows may come as the backend's ids (runtime.maps.work)

    def __init__(self, side, backend, arena, lent=False):
        super().__init__(side, backend, arena, lent)
        m = int(side.offsets[-1])
        self._idx = self._w = self._dev = None
        self._edges = m
        self._have = np.zeros(-(-m // CHUNK_EDGES), dtype=bool)  # the runs copied so far
        if lent:  # it reads copies others hold (the hybrid's blocks): none of its own
            return
        self._idx = arena.alloc(len(side.range_indices), side.indices.dtype, "resident edge indices")
        if side.weights is not None:
            try:
                self._w = arena.alloc(m, side.weights.dtype, "resident edge weights")
            except Exception:
                arena.release(self._idx)
                raise

    def _copy_runs(self, need: np.ndarray) -> tuple[int, float]:
        """Copy the runs ``need`` marks and not yet copied; (bytes moved, seconds)."""
        s, todo = self.side, need & ~self._have
        if not todo.any():
            return 0, 0.0
        t = time.perf_counter()
        moved = 0
        # consecutive runs in one copy each (the staging pipeline streams each copy)
        edges = np.flatnonzero(np.diff(np.concatenate([[False], todo, [False]]).astype(np.int8)))
        with phase("upload"):
            for c0, c1 in zip(edges[::2], edges[1::2]):
                e0, e1 = int(c0) * CHUNK_EDGES, min(int(c1) * CHUNK_EDGES, self._edges)
                self.backend.copy_h2d(self._idx[e0:e1], s.range_indices[e0:e1])
                if self._w is not None:
                    self.backend.copy_h2d(self._w[e0:e1], s.weights[e0:e1])
                moved += s.range_bytes(e0, e1)
            self._have |= todo
            self.backend.synchronize()
        return moved, time.perf_counter() - t

    def _runs_of(self, active) -> np.ndarray:
        """The runs holding the edges of rows ``active`` (global ids; None: every row)."""
        if active is None or len(active) > SPARSE_ROWS:
            return np.ones_like(self._have)
        rows = np.asarray(active if isinstance(active, np.ndarray) else self.backend.to_host(active), dtype=np.int64)
        offs = self.side.offsets
        b, e = np.asarray(offs[rows], dtype=np.int64), np.asarray(offs[rows + 1], dtype=np.int64)
        keep = e > b
        mark = np.zeros(len(self._have) + 1, dtype=np.int64)
        np.add.at(mark, b[keep] // CHUNK_EDGES, 1)
        np.add.at(mark, (e[keep] - 1) // CHUNK_EDGES + 1, -1)
        return np.cumsum(mark[:-1]) > 0

    def _device_arrays(self) -> tuple:
        if self._dev is None:
            with phase("upload"):
                self._dev = (self.side.device_offsets(self.backend), self._idx, self._w)
        return self._dev

    def whole(self) -> tuple[tuple, int, float]:
        """The side's device arrays (offsets, indices, weights or None), copying every run still
        missing; with the bytes and seconds that copy took (0 once resident)."""
        dev = self._device_arrays()
        moved, secs = self._copy_runs(np.ones_like(self._have))
        return dev, moved, secs

    def load(self, part, active):
        offs, idx, w = self._device_arrays()
        moved, secs = (0, 0.0) if self._have.all() else self._copy_runs(self._runs_of(active))
        loaded = self.load_group([part], self.rows_of(part, active), Buffers(idx, w, self._edges))
        loaded.bytes_h2d, loaded.copy_seconds = moved, secs
        return loaded

    def load_group(self, parts, rows, bufs, counts=None):
        """Consecutive partitions whose edges ``bufs`` already hold, in the range layout from edge
        ``bufs.first`` on (its own copy of the side, or a block the hybrid keeps): one view, no copy."""
        view = self.group_view(parts, self.side.device_offsets(self.backend), bufs.indices, bufs.weights,
                               bufs.first)
        return Loaded(view, rows, rows is None, 0, engine=self.name, whole_rows=True)

    def close(self):
        if self._idx is not None:
            self.arena.release(self._idx)
            if self._w is not None:
                self.arena.release(self._w)
        self._idx = self._w = self._dev = None
