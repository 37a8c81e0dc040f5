"""The hybrid engine's neighbourhood functions (``neighbor_map``: triangles, LCC, CDLP, ...): each
partition of vertices placed by the policy on the device, reading the host's lists in place or a
copy of the graph, or on a CPU executor reading them where they lie (the module doc of
:mod:`graphferry.scheduler.hybrid`). A part of :class:`~graphferry.scheduler.hybrid.HybridEngine`."""

from __future__ import annotations

import dataclasses
import logging
import time

import numpy as np

from .executors import ExecutorState, owned_ranges
from .policy import NeighborDecision, Policy
from .residency import SPAN
from .stats import neighbor_work

log = logging.getLogger("graphferry.scheduler.hybrid")


class NeighborMaps:
    """``HybridEngine.neighbor_map`` and what it alone uses."""

    # ------------------------------------------------------------ one neighbor_map
    def neighbor_map(self, st, fn: str, mapped, host, it, policy: Policy):
        """Run neighbourhood function ``fn`` over every vertex, its partitions placed by the policy.

        ``mapped`` is the graph and transpose as the device reads them in place (zero-copy),
        ``host`` the same arrays for a CPU executor. A function may read any row, so no
        transfer engine serves it: each partition of vertices runs on the device reading
        the host's lists in place, on the device from a copy of the whole graph kept in the
        pool (where the budget holds one and the function reads only the graph, or the
        graph is its own transpose), or on a CPU executor where the lists lie. Several
        executors run at once only where ``Program.neighbor_writes`` says how their copies
        merge (own rows copied back by ranges, or the combine operator); otherwise one runs
        it all. Returns the output bitmap.
        """
        self._host_ready()
        b, s = self.backend, self.side
        n, parts, prog = s.n, s.partitions, st.program
        assert int(s.bounds[0]) == 0 and int(s.bounds[-1]) == n, "partitions must cover every vertex"
        self.pool.busy = set()  # a new iteration: what the last one read (any side's) may go now
        (g_dev, gt_dev), (g_host, gt_host) = mapped, host
        in_edges = gt_host.offsets is not None
        whole_key = (("neighbors",) + tuple(self.key), "whole")
        block = self.pool.blocks.get(whole_key)
        # a copy of G serves GT only where they are one graph
        can_copy = not in_edges or gt_host.indices is g_host.indices
        # rows that would cross the bus, a function that reads only their first edges, and a
        # policy that lets the engine keep things on the device (a forced mix keeps its placements)
        if prog.neighbor_prefix and not in_edges and block is None and g_dev.weights is None \
                and policy.mix is None and policy.residency and len(self._resident_set()) < len(parts):
            done = self._neighbors_from_prefixes(st, fn, prog.neighbor_prefix, it, g_dev, gt_dev)
            if done is not None:
                return done
        ctx, model, placed, state_bytes = self._place_neighbors(st, policy, can_copy, block)
        out = b.new_bitmap(n)
        by_exec: dict[int, list[int]] = {}
        for i, (ex, _) in placed.items():
            if ex:
                by_exec.setdefault(ex, []).append(i)

        # ---- other executors: refresh their copies, then compute beside the device
        refreshed = self._executor_states(by_exec, st, n)
        futures = [self._exec_threads().submit(self._run_neighbors_other, refreshed.states[ex], fn, g_host, gt_host,
                                               owned_ranges(parts, idx)) for ex, idx in by_exec.items()]

        # ---- the device
        self._device_neighbors(st, fn, placed, ctx, it, out, mapped, host, whole_key, block, can_copy)

        # ---- merge the other executors' copies into the device's state (the wait is not exchange)
        for f in futures:
            f.result()
        writes = prog.neighbor_writes

        def merge(es, ranges):
            if writes in (None, "own"):  # its own rows (or, alone, every row): copied back by ranges
                es.merge_into(dict(st.arrays), "pull", ranges, signalled=False)
            else:
                es.merge_into(dict(st.arrays), "push", ranges, combine=writes, signalled=False)

        self._merge_others(refreshed, by_exec, out, it, merge, lambda i: parts[i].num_vertices, parts=parts,
                           state_bytes=state_bytes, model=model)
        self.pool.busy = set()
        return out

    def _place_neighbors(self, st, policy: Policy, can_copy: bool, block):
        """The policy's placement of every partition for a neighbourhood function:
        ``(decision context, cost model, placements, state bytes)``."""
        s, parts, prog = self.side, self.side.partitions, st.program
        whole_bytes = s.edge_bytes
        fits = can_copy and whole_bytes <= self.pool.room_for_blocks()  # it displaces no partition
        state_bytes = sum(int(a.nbytes) for a in st.arrays.values())
        # partitions whose edges edge maps keep on the device (the span, blocks of their own): a
        # function that reads only its own rows reads theirs there, at device speed
        # (a block of packed ids serves edge maps only: neighbourhood functions read plain ids)
        held = self._resident_set() if prog.neighbor_reads == "row" and s.packed is None else set()
        ctx = NeighborDecision(neighbor_work(s, prog.neighbor_reads), parts, self.executors, prog.neighbor_reads,
                               prog.neighbor_writes, state_bytes, whole_bytes, can_copy and block is not None, fits,
                               self.iterations, self._exchange_forecast(st, state_bytes), held=frozenset(held))
        model = None if policy.mix is not None else policy.model(self.calibration_for)
        placed = policy.decide_neighbors(ctx, model)
        self.iterations += 1
        if prog.neighbor_writes is None and len({ex for ex, _ in placed.values()}) > 1:
            raise AssertionError(f"program {prog.name} declares no neighbor_writes: one executor only")
        return ctx, model, placed, state_bytes

    def _device_neighbors(self, st, fn: str, placed, ctx, it, out, mapped, host, whole_key, block,
                          can_copy: bool) -> None:
        """The device's partitions: a copy of the whole graph where placed so and admitted, the
        rows of partitions held on the device from their block (the span's, or their own), the
        rest read in place; each partition's bytes recorded in ``it``."""
        b, s = self.backend, self.side
        parts = s.partitions
        (g_dev, gt_dev), (g_host, gt_host) = mapped, host
        in_edges = gt_host.offsets is not None
        dev = sorted(i for i, (ex, _) in placed.items() if ex == 0)
        span = self._span_block()
        # where each partition's rows are read: "resident" (the whole copy), "zerocopy", the
        # span (one launch for all of its partitions), or ("block", i), partition i's own block
        source = {i: ("span" if span is not None and span[0] <= i < span[1] else ("block", i))
                  if placed[i][1] == "held" else placed[i][1] for i in dev}
        uploaded = 0
        if "resident" in source.values():
            block, uploaded, secs = self._whole_block(whole_key, block) if can_copy else (None, 0, 0.0)
            it.copy_seconds += secs
            if block is None:  # no room after all: read in place
                source = {i: "zerocopy" if place == "resident" else place for i, place in source.items()}
        self.pool.busy = {whole_key} if "resident" in source.values() else set()
        self.pool.busy |= {(self.key, SPAN if src == "span" else src[1]) for src in source.values()
                           if src == "span" or isinstance(src, tuple)}
        offs = s.device_offsets(b) if len(source) and set(source.values()) - {"zerocopy"} else None
        undirected = gt_host.indices is g_host.indices

        def view(src):
            """The graph and transpose as the device reads them for rows of ``src``."""
            if src == "zerocopy":
                return g_dev, gt_dev
            if src == "resident":  # the runtime's bundle of arrays, now pointing at the device's copy
                g_res = dataclasses.replace(g_dev, offsets=offs, indices=block.indices,
                                            weights=block.weights if g_dev.weights is not None else None)
                return g_res, g_res if in_edges else gt_dev
            # a block of consecutive rows holds edges from its first partition's on (edge_base)
            blk, first = (span[2], span[0]) if src == "span" else (self.pool.blocks[(self.key, src[1])], src[1])
            g_blk = dataclasses.replace(g_dev, offsets=offs, indices=blk.indices, edge_base=parts[first].edge_lo,
                                        weights=blk.weights if g_dev.weights is not None else None)
            # an undirected graph is its own transpose: GT's rows are the block's too
            return g_blk, g_blk if in_edges and undirected else gt_dev

        handle = st.kernel_handle()
        t = time.perf_counter()
        for lo, hi, src in self._neighbor_runs(dev, source):
            handle.kernels.neighbor_map(fn, handle.tables, *view(src), lo, hi, out)
        self._device_time(it, t)
        name0 = self.executors[0].name
        for i in dev:
            p = parts[i]
            if source[i] != "zerocopy":
                moved, uploaded = uploaded, 0  # the upload, once, on the first resident partition
                it.add_partition(i, "resident", moved, p.num_vertices, device=name0)
            else:  # the edges it reads across the bus (an upper bound: a line holds several)
                it.add_partition(i, "zerocopy", int(ctx.work[i]) * s.bytes_per_edge, p.num_vertices, device=name0)

    def _neighbors_from_prefixes(self, st, fn: str, k: int, it, g_dev, gt_dev):
        """Run a function that reads at most its row's first ``k`` edges (``Program.neighbor_prefix``)
        over every vertex from a copy of those prefixes kept in the pool, in one device launch,
        or in two where the budget holds the copy of only the first partitions' rows (the rest
        read in place); None where it holds not even one partition's (the caller then places
        rows as usual).

        Read in place, each row costs a request across the bus however few of its edges the
        function reads (Afforest's sampling reads 2 of a row: on a uniform graph of degree 32
        that is the whole 128-byte line, so the sampling pass moved every edge byte). The copy
        is ``min(D(u), k)`` edges a row and its offsets, gathered once from the mapped rows;
        it is worth more than the partitions it displaces while this function runs (it serves
        every row, they serve some), and as another side's idle block it is the first a later
        edge map's span or slot displaces. Where the whole copy does not fit, the rows it can
        hold are still read from the device: at 1% of Kronecker 25's edges (84 MB; the copy
        takes 402 MB) the sampling read every row in place, 59 ms a call where the zerocopy
        engine alone took 55.8 (H200).
        """
        b, s = self.backend, self.side
        n, parts = s.n, s.partitions
        key = (("neighbors",) + tuple(self.key), "prefix", int(k))
        block = self.pool.blocks.get(key)
        per_part = self._prefix_counts(k)   # each partition's sum of min(D(u), k)
        moved, t = 0, time.perf_counter()
        if block is None:
            # any block not being read gives way (it serves some rows, the copy serves all), and
            # every slot gives its room back (made again when used): none is being read during a
            # neighbourhood map, this side's included. This side's slots kept their room before,
            # and after PageRank (the same unweighted side) WCC's sampling at 5% of Kronecker 25
            # found no room and read every row in place: 52 ms, where the copy takes 10 (H200)
            idle = lambda shape: True  # noqa: E731
            covered = self._prefix_partitions(per_part, self.pool.largest_block(idle), s.indices.itemsize)
            if covered == 0:
                log.debug("hybrid: no room for one partition's row prefixes: rows read in place")
                return None
            rows, count = int(parts[covered - 1].hi), int(per_part[:covered].sum())
            block = self.pool.admit(key, max(1, count), s.indices.dtype, None, float("inf"), offsets=rows + 1,
                                    idle=idle)
            if block is None:
                log.debug("hybrid: no room for the row prefixes (%d edges): rows read in place", count)
                return None
            block.extra["rows"] = rows
            if covered < len(parts):
                log.debug("hybrid: the row prefixes of %d of %d partitions fit: the rest read in place",
                          covered, len(parts))
            # kept at a value above every block's now; it fades while other maps run
            block.value = 1.0 + max((blk.value for k2, blk in self.pool.blocks.items() if k2 != key), default=0.0)
            indices = self._mapped()[0]
            b.row_prefixes(s.device_offsets(b)[: rows + 1], indices, k, block.offsets, block.indices)
            moved = count * s.indices.itemsize
        rows = block.extra["rows"]
        self.pool.keep_for_call(key)   # this call's later maps (WCC's edge map) read around it
        self.pool.busy = {key}
        self.iterations += 1
        out = b.new_bitmap(n)
        # the runtime's bundle of arrays, pointing at the prefixes' CSR (its own offsets and edges)
        g = dataclasses.replace(g_dev, offsets=block.offsets, indices=block.indices, weights=None, edge_base=0)
        handle = st.kernel_handle()
        handle.kernels.neighbor_map(fn, handle.tables, g, gt_dev, 0, rows, out)
        if rows < n:  # the rows the copy does not hold, in place
            handle.kernels.neighbor_map(fn, handle.tables, g_dev, gt_dev, rows, n, out)
        self._device_time(it, t)
        name0 = self.executors[0].name
        for p in parts:  # the gather's bytes, once, on the first partition
            if p.hi <= rows:
                it.add_partition(p.index, "resident", moved, p.num_vertices, device=name0)
                moved = 0
            else:  # the edges it reads across the bus (a line holds several)
                it.add_partition(p.index, "zerocopy", int(per_part[p.index]) * s.indices.itemsize,
                                 p.num_vertices, device=name0)
        self.pool.busy = set()
        return out

    def _prefix_counts(self, k: int) -> np.ndarray:
        """Each partition's edges in its rows' first ``k``: the sum of ``min(D(u), k)`` (kept)."""
        counts = self._prefix_edges.get(k)
        if counts is None:
            s = self.side
            per_row = np.minimum(np.diff(s.offsets), k)
            counts = np.array([int(per_row[p.lo:p.hi].sum()) for p in s.partitions], dtype=np.int64)
            self._prefix_edges[k] = counts
        return counts

    def _prefix_partitions(self, per_part: np.ndarray, room: int, itemsize: int) -> int:
        """How many partitions, from the first, a prefix copy of ``room`` bytes holds: their
        prefixes' edges and the int64 offsets of their rows (one more than the rows).

        Example:
            >>> from types import SimpleNamespace as NS
            >>> import numpy as np
            >>> parts = [NS(hi=10), NS(hi=20), NS(hi=30)]
            >>> eng = NS(side=NS(partitions=parts))
            >>> f = lambda room: NeighborMaps._prefix_partitions(eng, np.array([20, 20, 20]), room, 4)
            >>> f(80 + 88), f(160 + 168 - 1), f(10**6), f(10)
            (1, 1, 3, 0)
        """
        his = np.array([p.hi for p in self.side.partitions], dtype=np.int64)
        need = np.cumsum(per_part) * itemsize + 8 * (his + 1)
        return int(np.searchsorted(need, room, side="right"))

    def _device_time(self, it, t0: float) -> None:
        """Wait for the device; the iteration's kernel time is the wall time since ``t0``, or the
        device's own copy and kernel times where it measured them."""
        b = self.backend
        b.synchronize()
        it.kernel_seconds += time.perf_counter() - t0
        device_times = b.take_device_times()
        if device_times is not None:
            it.copy_seconds, it.kernel_seconds = device_times

    def _whole_block(self, key, block):
        """The pool's copy of this side's whole graph: kept, or admitted and uploaded now
        (``(block or None, bytes uploaded, seconds)``). It takes only the room that edge maps'
        resident partitions leave (valued 0: it displaces none of them, and is the first
        dropped when a slot or a valued partition needs room after this function)."""
        if block is not None:
            return block, 0, 0.0
        s, b = self.side, self.backend
        block = self.pool.admit(key, int(s.offsets[-1]), s.indices.dtype,
                                s.weight_dtype, 0.0)
        if block is None:
            return None, 0, 0.0
        t = time.perf_counter()
        b.copy_h2d(block.indices, s.indices)
        if block.weights is not None:
            b.copy_h2d(block.weights, s.weights)
        return block, s.edge_bytes, time.perf_counter() - t

    def _neighbor_runs(self, idx, source):
        """Consecutive device partitions with the same source of edges (``source[i]``: "resident",
        "span", "zerocopy" or a block of its own), as ``(lo, hi, source)``: one launch each."""
        parts = self.side.partitions
        run = None
        for i in idx:
            p, res = parts[i], source[i]
            if run is not None and run[1] == p.lo and run[2] == res:
                run = (run[0], p.hi, res)
                continue
            if run is not None:
                yield run
            run = (p.lo, p.hi, res)
        if run is not None:
            yield run

    def _run_neighbors_other(self, es: ExecutorState, fn: str, g, gt, ranges) -> None:
        """A CPU executor runs ``fn`` over its vertex ranges on its copy of the state."""
        t = time.perf_counter()
        for lo, hi in ranges:
            es.kernels.neighbor_map(fn, es.tables, g, gt, lo, hi, es.out)
        es.seconds = time.perf_counter() - t
