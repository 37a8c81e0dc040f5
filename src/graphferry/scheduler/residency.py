"""The hybrid engine's residency: the resident engine holding the whole side where the budget does,
else the span (the most valuable run of partitions held on the device as one block), partitions'
own blocks and their values, their kernels between the filter groups' copies, and the one-launch
whole-side plan that reads the rest in place (the module doc of :mod:`graphferry.scheduler.hybrid`). A part of
:class:`~graphferry.scheduler.hybrid.HybridEngine`."""

from __future__ import annotations

import logging
import weakref

import numpy as np

from ..backends.base import LINE_BYTES, PartitionView
from ..engines.base import Buffers
from ..engines.registry import engine_class
from ..errors import DeviceMemoryError
from .cost import CLASS_OF_COMBINE

log = logging.getLogger("graphferry.scheduler.hybrid")
SPAN = "span"  # the pool key's second part for a side's span (partition indices are the others)


class Residency:
    """What ``HybridEngine`` keeps on the device between rounds, and its whole-side plan."""

    def _run_whole_side(self, st, frontier, direction, it, stats, dense, placed, resident):
        """One zero-copy launch over the side, or three where a span is on the device: the rows
        before it and after it read in place, its own rows from its copy (``resident``: the
        partitions on the device when the round began, for the floor)."""
        b, s = self.backend, self.side
        hidx, hw = self._mapped_range()
        out = b.new_bitmap(s.n)
        offs = s.device_offsets(b)
        in_bits = None if frontier.is_all else frontier.bits
        handle = st.kernel_handle()
        kernel, tables = handle.edge(direction), handle.tables
        span = self._span_block()
        parts = s.partitions
        if span is None:
            pieces = [(0, s.n, 0, len(parts))]
        else:
            a, z, _ = span
            pieces = [(0, parts[a].lo, 0, a), (parts[a].lo, parts[z - 1].hi, a, z), (parts[z - 1].hi, s.n, z, len(parts))]
        for lo, hi, first, stop in pieces:
            if hi <= lo:
                continue
            if dense:
                rows = None
            else:  # the frontier's ids in these rows, where they are: no trip through the host
                c0, c1 = int(stats.cuts[first]), int(stats.cuts[stop])
                if c1 == c0:
                    continue
                rows = stats.ids[c0:c1] - lo if lo else stats.ids[c0:c1]
            if span is not None and first == span[0]:
                blk = span[2]
                e0 = parts[first].edge_lo
                view = s.range_view(offs[lo : hi + 1], lo, hi - lo, blk.indices, blk.weights, e0,
                                    parts[stop - 1].edge_hi, s.range_base(e0))
            elif s.fused is not None:  # fused edges: the pieces' own words
                view = s.in_place_view(offs[lo : hi + 1], lo, hi - lo, hidx, hw, parts[first].edge_lo,
                                       parts[stop - 1].edge_hi)
            else:
                view = PartitionView(offs[lo : hi + 1], hidx, hw, None, lo, hi - lo, 0, s.view_bits)
            self._launch(kernel, tables, view, rows, self._bits_for(direction, rows, in_bits), out, it)
        b.synchronize()
        device_times = b.take_device_times()
        if device_times is not None:
            it.copy_seconds, it.kernel_seconds = device_times
        a, z = (span[0], span[1]) if span is not None else (0, 0)
        # (a host loop over every partition each round: plain lists, not numpy scalars)
        rows, lines, name0, add = stats.active_vertices.tolist(), stats.lines.tolist(), self.executors[0].name, \
            it.add_partition
        for i in sorted(placed):
            if a <= i < z:
                add(i, "resident", self._span_moved.pop(i, 0), rows[i], name0)
            else:
                add(i, "zerocopy", lines[i] * LINE_BYTES, rows[i], name0)
        # the floor as for any plan: the active bytes of partitions not resident when it began
        it.floor_bytes = self._floor_bytes(stats, [i for i in placed if i not in resident], dense)
        self.pool.busy = set()  # as every other plan's end: nothing is being read now
        return out


    # ------------------------------------------------------------ the whole side
    def whole_side_engine(self, policy, reader=None):
        """``(side, engine)``: the resident engine holding this whole side on the device, where the
        budget holds it, or None. With every partition resident the hybrid has nothing to place:
        its statistics, pricing, residency and a launch per partition would be its own overhead
        (issue 37: 2-3.5x the resident engine at 100% of the edges on an H200). So its maps are
        then the resident engine's own loop on the side as that engine reads it (the runtime runs
        it: :class:`~graphferry.runtime.maps.ScheduledMaps`), moving and launching what it would.
        Built on first ask where the side fits the budget; kept until the hybrid closes or another
        side needs the room (:meth:`release_whole`); never under a forced ``mix``, HyTGraph's
        ``paper`` mode or with residency off.

        ``reader`` (the runtime of the call asking): the room is what the resident engine alone
        would find, everything but what this call reads. This side's own blocks and slots, other
        sides' blocks and slots, the loaded graph's other engines and other sides held whole are
        given back first where the side needs them. Before, only this side's own room counted: at
        100% of m x 8 a side kept whole by BFS (m x 4) left SSSP's weighted side (m x 5, narrowed
        weights) half the budget, and SSSP at 100% ran as the hybrid at 50% while the resident
        engine alone, which evicts the idle engine, read every edge from device memory."""
        if reader is not None:
            self.reader = weakref.ref(reader)
            self.pool.read_by(self.key, self.reader)
        if self._whole is not None or self.side_for is None:
            return self._whole
        if not policy.residency or policy.mix is not None or policy.mode == "paper":
            return None
        if self._whole_bytes is not None and self._whole_bytes > self.arena.budget_bytes:
            return None  # (asked every map: the side and budget stay, so nothing more to look at)
        side = self.side_for("resident")
        need = int(side.range_indices.nbytes) + (0 if side.weights is None else int(side.weights.nbytes))
        self._whole_bytes = need
        if need > self.arena.budget_bytes or not self._room_for_whole(need):
            return None
        try:
            engine = engine_class("resident")(side, self.backend, self.arena)
        except DeviceMemoryError:
            return None
        log.debug("hybrid: the %d-byte side fits the budget whole: the resident engine runs its maps", need)
        self._whole = (side, engine)
        self.pool.wholes[self.key] = self
        return self._whole

    @property
    def holds_whole(self) -> bool:
        """Whether the resident engine holds this whole side now (its maps are that engine's, moving
        no edges a round), as :meth:`whole_side_engine` left it; asks nothing and builds nothing."""
        return self._whole is not None

    @property
    def whole_bytes(self) -> int:
        """Arena bytes this side's whole copy takes (0: none held)."""
        return int(self._whole_bytes or 0) if self._whole is not None else 0

    def release_whole(self) -> None:
        """Give the whole side's copy back (another side being read needs the room); the next map of
        this side that finds the room builds it again and copies the edges anew."""
        if self._whole is not None:
            self._whole[1].close()
            self._whole = None
            log.debug("hybrid: side %s held whole gave its room to another side", self.key)
        self.pool.wholes.pop(self.key, None)

    def _admission_room(self, value: float) -> float:
        """The most bytes :meth:`BufferPool.admit` could give a block worth ``value`` now: the room
        no slot is promised, blocks worth less and not being read, the loaded graph's other
        engines and the sides held whole that this call does not read (an upper bound)."""
        pool, arena = self.pool, self.arena
        pool_bytes = pool.pool_bytes()
        wholes = sum(h.whole_bytes for h in pool.wholes.values())
        cheaper = sum(b.nbytes for k, b in pool.blocks.items() if b.value < value and k not in pool.busy)
        return (pool.room_for_blocks(self._idle_shape) + cheaper + max(0, arena.used_bytes - pool_bytes - wholes)
                + pool.idle_whole_bytes(self.key) + self._idle_slot_bytes())

    def _room_for_whole(self, need: int) -> bool:
        """Free ``need`` bytes of the arena for this side's whole copy if everything that may give
        room (see :meth:`whole_side_engine`) holds that much; False, and nothing given back, else."""
        pool, arena = self.pool, self.arena
        pool_bytes = pool.pool_bytes()
        wholes = sum(h.whole_bytes for h in pool.wholes.values())
        busy = sum(h.whole_bytes for h in pool.wholes.values()) - pool.idle_whole_bytes(self.key)
        others = arena.used_bytes - pool_bytes - wholes   # the loaded graph's other engines
        if need > arena.free_bytes + pool_bytes + max(0, others) + wholes - busy:
            return False
        for k in [k for k in pool.blocks if k[0] == self.key]:
            pool.drop(k)
        self._span = None
        pool.forget_side(self.key)
        if arena.free_bytes < need:  # other sides' blocks, least valuable first, then their slots
            pool.drop_blocks(need - arena.free_bytes)
        if arena.free_bytes < need:
            pool.release_slots(lambda shape: True)
        if arena.free_bytes < need and pool.reclaim is not None:
            pool.reclaim(need)
        return pool.release_wholes(need, keep=self.key)

    # ------------------------------------------------------------ partitions on the device
    def _run_resident(self, i, admit, stats, launch, in_bits, direction, dense, it, shape) -> None:
        """Partition ``i`` read from its copy on the device: ``admit`` True to admit a block for it
        now, or a block the caller admitted (still empty), filled by the filter engine's copy
        (both in the pool's memory); False where it is held already (:meth:`_run_held`)."""
        s = self.side
        p = s.partitions[i]
        block = self.pool.blocks.get((self.key, i))
        fresh = admit is not True and admit is not False  # a block admitted by the caller, still empty
        if block is None and admit is True:
            block = self._admit(i)
            if block is None:  # no room after all: serve it like filter does
                if shape is not None:
                    return self._run_filter([i], stats, launch, in_bits, direction, dense, it, shape, 1)
                return self._run_zerocopy([i], stats, launch, in_bits, direction, dense, it)
            fresh = True
        if not fresh and (block is not None or self._device_copy(i) is not None):
            return self._run_held([i], stats, launch, in_bits, direction, dense, it)
        loaded = self._engine("filter").load_group([p], self._device_rows(stats, i, i, p.lo),
                                                   Buffers(block.indices, block.weights))
        self._run_loaded(loaded, launch, in_bits, direction, [i], stats, dense, it, record_as="resident")

    def _held_runs(self, idx) -> list[list[int]]:
        """Partitions ``idx``, held on the device, as runs read by one launch each: consecutive
        partitions read from the span together (one copy, one view, as the resident engine reads
        its side), a partition with a block of its own alone."""
        span = self._span_block()
        runs, last_in_span = [], False
        for i in sorted(idx):
            in_span = span is not None and span[0] <= i < span[1] and (self.key, i) not in self.pool.blocks
            if runs and in_span and last_in_span and runs[-1][-1] == i - 1:
                runs[-1].append(i)
            else:
                runs.append([i])
            last_in_span = in_span
        return runs

    def _run_held(self, run, stats, launch, in_bits, direction, dense, it) -> None:
        """Consecutive partitions ``run`` read from their one copy on the device (the resident
        engine's view over it, one launch); the span's first read of each records what its copy
        moved."""
        s = self.side
        parts = [s.partitions[i] for i in run]
        indices, weights, first = self._device_copy(run[0])
        loaded = self._engine("resident").load_group(parts, self._device_rows(stats, run[0], run[-1], parts[0].lo),
                                                     Buffers(indices, weights, first=first))
        own = (self.key, run[0]) in self.pool.blocks   # its own block: its copy was recorded when made
        loaded.shares = [0] if own else [self._span_moved.pop(i, 0) for i in run]
        loaded.bytes_h2d = sum(loaded.shares)
        self._run_loaded(loaded, launch, in_bits, direction, run, stats, dense, it, record_as="resident")

    def _resident_filler(self, st, stats, model, direction: str, waiting, run_one):
        """``fill(next_group, group_done)``: resident kernels (``run_one`` of each ``waiting`` run)
        for the time the next filter group's copy takes beyond the last group's kernel."""
        if model is None:  # a forced mix: no prices, no filling (the caller passes no filler)
            return None
        klass = CLASS_OF_COMBINE.get(st.program.combine, "traversal")
        # at the rate this program's kernels ran in earlier rounds where the device timed them
        # (the calibration's reference kernels ran 3x faster than PageRank's at Kronecker 25)
        rate = self._kernel_rate.get((st.program.name, direction)) \
            or model.calibration.edge_rate("device", klass, direction)
        # Python numbers, read once a round: fill runs before every filter group (124 a round for
        # PageRank at 1% of Kronecker 24), and numpy's per-call costs there were the host's
        # share of a round the filter engine alone does not pay
        active = stats.active_edges.tolist()
        per_edge = self.side.range_bytes_per_edge / model.calibration.copy_bandwidth
        copy_seconds = [e * per_edge for e in self.side.partition_edges.tolist()]

        def kernel_estimate(idx) -> float:
            return sum(active[i] for i in idx) / rate

        def fill(next_group, group_done) -> bool:
            """Resident kernels for the time the next group's copy takes beyond the last group's
            kernel; whether any still wait (none: the caller stops asking)."""
            if not waiting:
                return False
            seconds = (sum(copy_seconds[i] for i in next_group)
                       - (0.0 if group_done is None else kernel_estimate(group_done)))
            while waiting:  # the partitions that fit, one by one as priced, each run's in one launch
                run, k = waiting[0], 0
                while k < len(run) and (t := kernel_estimate(run[k : k + 1])) <= seconds:
                    seconds -= t
                    k += 1
                if k:
                    run_one(run[:k])
                if k < len(run):
                    waiting[0] = run[k:]
                    break
                waiting.popleft()
            return bool(waiting)
        return fill

    # ------------------------------------------------------------ the span
    def _span_block(self):
        """``(a, z, block)``: partitions ``a..z-1`` on the device as one block, or None (none
        admitted, or the pool dropped it for room)."""
        if self._span is None:
            return None
        block = self.pool.blocks.get((self.key, SPAN))
        if block is None:
            self._span = None
            return None
        return (*self._span, block)

    def _own_blocks(self) -> set[int]:
        """Partitions of this side on the device in blocks of their own."""
        return {key[1] for key in self.pool.blocks if key[0] == self.key and key[1] != SPAN}

    def _resident_set(self) -> set[int]:
        """Partitions whose edges are on the device: their own blocks, and the span's."""
        own = self._own_blocks()
        span = self._span_block()
        return own | set(range(span[0], span[1])) if span is not None else own

    #: a sparse round admits a span whose partitions' edges were read this many times over
    SPAN_AFTER_READS = 1.0

    def _admit_span(self, min_reads: float = 0.0) -> None:
        """In a round that reads every partition, copy the consecutive partitions that fit the
        room into one block (the span), the most valuable run first.

        Copying a partition whole costs what reading all of it in place does, so in such a round
        the copy is nearly free; kept, it is read at device speed by every later round and call.
        One block, not one per partition, so that a plan over the whole side reads it in one
        launch (a launch per resident partition costs more than a sparse round's kernels).

        The room includes what other sides keep and do not read now (another algorithm's span,
        say): the side being read is worth more than one that is not. Left to the free room
        alone, the first side to keep a span kept it for good: at Kronecker 25 on an H200,
        SSSP's weighted span left BFS's unweighted side none, and BFS ran 10% slower than
        zero-copy alone.

        The room includes this side's own blocks too (partitions a round copied and kept,
        :meth:`_device_plan`): they are what a copy left behind, and the span takes their room
        (those inside its window are its own edges again). Left to the room they did not hold,
        the span was decided by which partitions a sparse round happened to copy, which follows
        the calibration's error: at Kronecker 14 with an H200's figures and its zero-copy rates
        halved, the first call's sparse rounds copied 60 of 100 partitions into blocks of their
        own, the span got one partition's room, and the whole-side plan read those blocks across
        the bus in every later call (2.6x the bytes of a call with the measured rates). For the
        same reason a span that holds less than half the room it could (a fragment admitted
        beside such blocks) is replaced by a better window, in a round that may admit one.

        Sparse rounds (``min_reads`` > 0) admit a span too, once its partitions' edges have
        been read ``min_reads`` times over in earlier rounds and calls (VDS's value with
        history): frontier-driven programs read much of the graph a piece at a time (SSSP
        relaxes each arc 1.3-1.9 times on Kronecker and uniform graphs of scale 25), and each
        piece read in place costs its lines across the bus again, a copy of the span once."""
        span = self._span_block()
        if min_reads > 0 and self.read_edges.sum() < min_reads * self.side.partition_edges.min():
            return  # nothing read enough yet (cheap test before the window search)
        s = self.side
        edges = s.partition_edges
        if not len(edges):
            return
        per_edge = s.range_bytes_per_edge
        # a row-prefix copy (neighbourhood functions) gives way only once edge maps value this side's
        # partitions more: WCC's finishing round (a few rows) must not drop the copy every call
        mean_value = float(self.value.mean()) if len(self.value) else 0.0
        idle = [k for k in self.pool.blocks if k[0] != self.key and k not in self.pool.busy
                and (k[1] != "prefix" or self.pool.blocks[k].value < mean_value)]
        own = [k for k in self.pool.blocks if k[0] == self.key and k[1] != SPAN and k not in self.pool.busy]
        held = sum(self.pool.blocks[k].nbytes for k in idle + own) + (span[2].nbytes if span is not None else 0)
        held += self.pool.idle_whole_bytes(self.key)  # sides held whole that this call does not read
        held += self._idle_slot_bytes()  # and idle sides' slots
        room_edges = int((self.pool.room_for_blocks(self._idle_shape) + held) / per_edge)
        room_edges -= 64 if s.packed is not None else 0  # a packed copy's groups at both ends
        if room_edges < max(1, int(edges.min())):
            return
        if span is not None and 2 * int(edges[span[0]:span[1]].sum()) > room_edges:
            return  # a span that is no fragment is kept (before the window search: every round asks)
        worth = (self.value + 1e-9) * edges
        a, z = _best_window(worth, edges, room_edges)
        if z <= a:
            return
        if span is not None and ((a, z) == span[:2] or worth[a:z].sum() <= worth[span[0]:span[1]].sum()):
            return  # the fragment is worth as much as any window
        if min_reads > 0 and self.read_edges[a:z].sum() < min_reads * edges[a:z].sum():
            return
        parts = s.partitions
        e0, e1 = parts[a].edge_lo, parts[z - 1].edge_hi
        if span is not None:
            self.pool.drop((self.key, SPAN))
            self._span = None
        for k in own:  # the window's own blocks hold its edges twice
            if a <= k[1] < z:
                self.pool.drop(k)
        need = s.range_bytes(e0, e1) - self.pool.room_for_blocks(self._idle_shape)
        if need > 0:  # idle sides' and this side's own blocks make the room, least valuable first
            self.pool.drop_blocks(need, among=idle + [k for k in own if k in self.pool.blocks])
        block = self._admit_range((self.key, SPAN), e0, e1, float(self.value[a:z].mean()))
        if block is None:
            return
        s.copy_range(self.backend, e0, e1, block.indices, block.weights)
        self._span = (a, z)
        self._span_moved = dict(zip(range(a, z), s.copy_shares(parts[a:z])))
        log.debug("hybrid: partitions %d..%d (%d bytes) kept on the device as one span", a, z - 1, block.nbytes)

    def _device_copy(self, i: int):
        """Partition ``i``'s edges on the device, ``(indices, weights, first)``: its own block's, or
        the span's, whose range layout starts at edge ``first`` (``EdgeSide.range_of``); None when
        it has none."""
        s = self.side
        block = self.pool.blocks.get((self.key, i))
        if block is not None:
            return block.indices, block.weights, s.range_base(s.partitions[i].edge_lo)
        span = self._span_block()
        if span is None or not span[0] <= i < span[1]:
            return None
        return span[2].indices, span[2].weights, s.range_base(s.partitions[span[0]].edge_lo)

    # ------------------------------------------------------------ helpers
    def _update_values(self, stats, decay: float) -> None:
        """VDS value with history: the partition's share of active edges, decayed each iteration."""
        edges = np.maximum(self.side.partition_edges, 1)
        self.value = decay * self.value + stats.active_edges / edges
        for key, block in self.pool.blocks.items():
            if key[0] == self.key:  # the span is worth its partitions' mean
                block.value = float(self.value[key[1]] if key[1] != SPAN else self.value[slice(*self._span)].mean())
            else:  # another side's partitions are not being read: their value fades the same way
                block.value *= decay

    def _admit(self, i: int):
        p = self.side.partitions[i]
        return self._admit_range((self.key, i), p.edge_lo, p.edge_hi, float(self.value[i]))

    def _admit_range(self, key: tuple, e0: int, e1: int, value: float):
        """A pool block sized for edges ``[e0, e1)`` in the range layout (a partition's, or the span's)."""
        s = self.side
        _, h_idx, _ = s.host_range(e0, e1)
        return self.pool.admit(key, e1 - s.range_base(e0), s.indices.dtype, s.weight_dtype, value,
                               index_count=len(h_idx), idle=self._idle_shape)

    def _idle_shape(self, shape: tuple) -> bool:
        """A slot shape of another side that the call now reading does not read: its room (held or
        promised) is this side's to take, as the resident engine alone would evict an idle engine
        (SSSP's weighted slots kept PageRank's blocks out at 1% of Kronecker 25)."""
        return shape[0] != self.key and self.pool.idle_side(shape[0])

    def _idle_slot_bytes(self) -> int:
        return self.pool.slot_bytes(self._idle_shape)


def _best_window(worth: np.ndarray, edges: np.ndarray, room_edges: int) -> tuple[int, int]:
    """``(a, z)``: the consecutive partitions ``a..z-1`` of the most ``worth`` whose ``edges`` fit
    ``room_edges`` (``z <= a``: none fits). For each last partition, the first one that fits with
    it (one search over the edges' running sum), then the window of the most worth: no Python
    loop over the partitions, which every round of every side asks for.

    Example:
        >>> _best_window(np.array([1.0, 5.0, 1.0, 4.0]), np.array([2, 2, 2, 2]), 4)
        (0, 2)
        >>> _best_window(np.array([1.0, 5.0, 1.0, 4.0]), np.array([2, 2, 2, 2]), 6)
        (1, 4)
        >>> _best_window(np.array([1.0, 5.0]), np.array([3, 3]), 2)
        (0, 0)
    """
    held = np.concatenate([[0], np.cumsum(edges, dtype=np.int64)])
    total = np.concatenate([[0.0], np.cumsum(worth, dtype=np.float64)])
    z = np.arange(1, len(edges) + 1)
    a = np.searchsorted(held, held[1:] - room_edges, side="left")  # the first a with held[z] - held[a] <= room
    fits = a < z
    if not fits.any():
        return 0, 0
    gain = np.where(fits, total[z] - total[np.minimum(a, len(edges))], -np.inf)
    best = int(np.argmax(gain))  # the first of the best, as the two pointers kept
    return int(a[best]), int(z[best])
