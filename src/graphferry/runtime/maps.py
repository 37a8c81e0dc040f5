"""How a program's maps run, chosen once when the runtime is built (:func:`maps_for`).

Three ways, one small interface (``edge_map`` and ``neighbor_map``, called by
:class:`~graphferry.runtime.runtime.ProgramState` once it has chosen a map's direction and
counted its frontier):

* :class:`LocalMaps`: the runtime's own loop, one engine, each active partition loaded
  (:meth:`Engine.load <graphferry.engines.base.Engine.load>`) and its kernel launched;
* :class:`ScheduledMaps`: an engine that schedules whole maps itself (``Engine.schedules``: the
  hybrid places every partition on an engine and an executor);
* :class:`RanksMaps`: a graph split over ranks (:mod:`graphferry.distributed`, which hands its
  loaded graph down: ``LoadedGraph.distribution``), each rank computing its own vertices.

Drivers reach the program's state only through
:meth:`ProgramState.kernel_handle <graphferry.runtime.runtime.ProgramState.kernel_handle>`.

Example:
    >>> from graphferry import Graph
    >>> from graphferry.runtime import Runtime
    >>> g = Graph.from_edges([0, 1], [1, 2], n=3)
    >>> with Runtime(g, backend="cpu", engine="host") as rt:
    ...     type(rt.maps).__name__
    'LocalMaps'
    >>> with Runtime(g, backend="cpu", engine="hybrid") as rt:
    ...     type(rt.maps).__name__
    'ScheduledMaps'
"""

from __future__ import annotations

import time
from typing import Any, Callable

import numpy as np

from ..engines.base import EdgeSide
from .frontier import Frontier


class LocalMaps:
    """The runtime's own loop over the active partitions of one engine."""

    def edge_map(self, st, frontier: Frontier, d: str, reverse: bool, begin: Callable[[], Any], output: bool):
        side, engine = st.rt.side(d, st.program.uses_weights, reverse)
        return self.run(st, frontier, d, side, engine, begin)

    @staticmethod
    def run(st, frontier: Frontier, d: str, side: EdgeSide, engine, begin: Callable[[], Any], device: str = ""):
        """One map of ``engine`` over ``side``: each partition with work loaded and its kernel launched
        (``device``: the executor the record names, where the run has several)."""
        rt = st.rt
        b = rt.backend
        out = b.new_bitmap(rt.graph.n)
        it = begin()
        handle = st.kernel_handle()
        kernel = handle.edge(d)
        fsize = len(frontier)
        for part, active in work(side, frontier, d, engine):
            loaded = engine.load(part, active)
            # pull: the bitmap filters sources; push: it filters rows only where the
            # engine gave no row list (a compacted view holds active rows alone)
            # (the bitmap is built only when a kernel reads it)
            in_bits = None
            if not frontier.is_all and (d == "pull" or loaded.use_bits):
                in_bits = frontier.bits
            t = time.perf_counter()
            kernel(handle.tables, loaded.view, loaded.row_list, in_bits, out)
            it.kernel_seconds += time.perf_counter() - t
            it.compact_seconds += loaded.compact_seconds
            it.copy_seconds += loaded.copy_seconds
            rows = (loaded.view.rows if frontier.is_all or d == "pull" else fsize) if active is None else len(active)
            it.add_partition(part.index, loaded.engine or engine.name, loaded.bytes_h2d, rows, device=device)
            engine.done(loaded)
        b.synchronize()
        device_times = b.take_device_times()
        if device_times is not None:  # asynchronous backend: host timers saw only the launches
            it.copy_seconds, it.kernel_seconds = device_times
        return out, it

    def neighbor_map(self, st, fn: str, g, gt, out, it, in_edges: bool):
        handle = st.kernel_handle()
        handle.kernels.neighbor_map(fn, handle.tables, g, gt, 0, st.rt.graph.n, out)
        return out


class ScheduledMaps:
    """An engine that runs whole maps (the hybrid: every partition placed by the scheduler)."""

    def edge_map(self, st, frontier: Frontier, d: str, reverse: bool, begin: Callable[[], Any], output: bool):
        rt = st.rt
        _, engine = rt.side(d, st.program.uses_weights, reverse)
        whole = engine.whole_side_engine(rt.policy, reader=rt)
        if whole is not None:  # the budget holds the side whole: the resident engine's own loop
            return LocalMaps.run(st, frontier, d, *whole, begin, device=engine.executors[0].name)
        it = begin()
        return engine.edge_map(st, frontier, d, it, rt.policy), it

    def neighbor_map(self, st, fn: str, g, gt, out, it, in_edges: bool):
        # the scheduler places the function's partitions of vertices on the device (lists read in
        # place, or a copy of the graph) and the CPU, as it does for edge_map
        rt = st.rt
        _, engine = rt.side("push", st.program.uses_weights)
        whole = self._resident_graph(st, engine, g, gt, in_edges)
        if whole is not None:  # the budget holds the graph whole: read as the resident engine reads it
            return LocalMaps().neighbor_map(st, fn, *whole, out, it, in_edges)
        return engine.neighbor_map(st, fn, (g, gt), rt.host_whole_graph(st.program.uses_weights, in_edges),
                                   it, rt.policy)


    @staticmethod
    def _resident_graph(st, engine, g, gt, in_edges: bool):
        """``(g, gt)`` as a neighbourhood function reads them with the resident engine, where the
        hybrid's sides it reads are held whole by it (:meth:`HybridEngine.whole_side_engine`): its
        device copies on a device (as ``Runtime.whole_graph`` lends the resident engine's), the
        host's arrays on the CPU; None where the budget does not hold them."""
        from .runtime import GraphArrays

        rt = st.rt
        uses = st.program.uses_weights
        sides = [engine] + ([rt.side("pull", uses)[1]] if in_edges and rt.graph.directed else [])
        wholes = [e.whole_side_engine(rt.policy, reader=rt) for e in sides]
        if any(w is None for w in wholes):
            return None
        if not rt.backend.is_device:
            return g, gt
        arrays = []
        for _, resident in wholes:
            (offs, idx, w), moved, secs = resident.whole()
            if moved:  # the first read of this side uploads it: set-up, as the resident engine's
                rt.record.setup_seconds += secs
            arrays.append(GraphArrays(offs, idx, w, rt.graph.n))
        if not in_edges:
            return arrays[0], gt
        return arrays[0], arrays[-1]


class RanksMaps:
    """A graph split over ranks: each computes its own vertices, then they exchange."""

    def __init__(self, distribution):
        self.distribution = distribution

    def edge_map(self, st, frontier: Frontier, d: str, reverse: bool, begin: Callable[[], Any], output: bool):
        it = begin()
        return self.distribution.edge_map(st, frontier, d, reverse, it, output=output), it

    def neighbor_map(self, st, fn: str, g, gt, out, it, in_edges: bool):
        return self.distribution.neighbor_map(st, fn, g, gt, it)


def maps_for(loaded, engine_cls) -> "LocalMaps | ScheduledMaps | RanksMaps":
    """How maps run on ``loaded`` with engines of class ``engine_cls``: chosen once, at build."""
    if loaded.distribution is not None:
        return RanksMaps(loaded.distribution)
    if engine_cls.schedules:
        return ScheduledMaps()
    return LocalMaps()


def work(side: EdgeSide, frontier: Frontier, direction: str, engine=None):
    """(partition, active ids or None) for each partition that has work.

    The ids are host ids, cut at the partitions' bounds; a side of one partition
    read by an engine that takes the backend's ids (``device_rows``: resident,
    zerocopy) gets the frontier's ids where they live, with no round trip
    through the host (10.9 M ids at scale 25: 45 ms of a 52 ms SSSP step).
    A side of one partition read in place (``bitmap_rows``: host) takes a
    frontier that is only a bitmap and holds at least one vertex in 32 as
    None: the kernel filters the rows by the bitmap, and no id list is built
    (WCC's last step at scale 25: 16.5 M ids, 132 MB written and read again).
    """
    if direction == "pull" or frontier.is_all:
        for p in side.partitions:
            if p.num_edges:
                yield p, None
        return
    if len(side.partitions) == 1 and engine is not None and engine.device_rows:
        p = side.partitions[0]
        if p.num_edges:
            yield p, frontier.ids
        return
    if len(side.partitions) == 1 and engine is not None and engine.bitmap_rows and frontier.prefers_bitmap():
        p = side.partitions[0]   # the kernel visits every row and skips those not in the bitmap
        if p.num_edges:
            yield p, None
        return
    ids = frontier.host_ids()
    cuts = np.searchsorted(ids, side.bounds)
    for p in side.partitions:
        a, z = cuts[p.index], cuts[p.index + 1]
        if z > a and p.num_edges:
            yield p, ids[a:z]
