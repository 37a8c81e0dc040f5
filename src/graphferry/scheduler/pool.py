"""One pool of device memory for everything the hybrid engine keeps on the device.

All of the hybrid's engines draw from it: staging slots for explicit copies
(``filter`` groups and ``compaction`` chunks, two or more per shape so a copy
overlaps the kernel reading the other) and whole partitions kept resident
(VDS's value-driven residency). Nothing is allocated before it is needed, and
every allocation goes through the loaded graph's :class:`DeviceArena`, whose
budget is asserted after each one. Resident partitions hold what the slots do
not need; when a slot or a more valuable partition needs room, the least
valuable resident partitions are dropped (their edges are still in host memory).

Example:
    >>> import numpy as np
    >>> from graphferry.backends.cpu.backend import CpuBackend
    >>> from graphferry.backends.base import DeviceArena
    >>> from graphferry.scheduler.pool import BufferPool
    >>> b = CpuBackend(); arena = DeviceArena(b, 1000)
    >>> pool = BufferPool(arena)
    >>> pool.reserve(("k",), 400)
    >>> pool.admit(("side", 0), 100, np.int32, None, value=1.0) is not None
    True
    >>> pool.admit(("side", 1), 100, np.int32, None, value=0.5) is None  # 400 + 400 + 400 > 1000
    True
    >>> arena.used_bytes
    400
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..engines.base import Buffers

log = logging.getLogger(__name__)


#: A staging slot: a device buffer pair (and its pinned host staging, made on first gather) the pool
#: lends the engines the hybrid composes (:class:`~graphferry.engines.base.Buffers`: ``capacity``
#: entries of weights; its index buffer may hold fewer entries, packed ids: a run of ``capacity``
#: edges in fewer words).
Slot = Buffers


@dataclass
class Block:
    """A partition kept on the device across iterations (and across calls on a loaded graph)."""

    indices: Any
    weights: Any | None
    nbytes: int
    value: float = 0.0
    extra: dict = field(default_factory=dict)
    #: a block with rows of its own layout (the row prefixes' CSR) holds its offsets here
    offsets: Any | None = None


class BufferPool:
    """Device buffers of one loaded graph, shared by every engine of the hybrid (see module doc)."""

    def __init__(self, arena, reclaim=None):
        self.arena = arena
        #: ``reclaim(nbytes) -> bool``: free ``nbytes`` of the arena held outside the pool (a loaded
        #: graph evicts its other, idle engines); None: nothing outside the pool can be freed
        self.reclaim = reclaim
        self.backend = arena.backend
        self.slots: dict[tuple, list[Slot]] = {}
        self.blocks: dict[tuple, Block] = {}
        self._reserved: dict[tuple, int] = {}   # slot shape -> bytes promised to its slots
        self._turn: dict[tuple, int] = {}
        self._spare_host: dict[tuple, list] = {}  # slot shape -> pinned host staging of released slots
        self.busy: set[tuple] = set()  # blocks read in the current iteration: never dropped during it
        #: side key -> the hybrid engine holding that side whole on the device (its resident engine,
        #: allocated in the arena beside the pool: ``whole_bytes``, ``release_whole()``, ``reader``)
        self.wholes: dict[tuple, Any] = {}
        #: the call now reading (a weak reference to its runtime, set by each map): a whole side it
        #: reads is never given back to make room for another side it reads (a directed BFS's push
        #: and pull sides would copy each other out every map)
        self.reader = None
        #: side key -> a weak reference to the call that last read that side (set with ``reader``):
        #: a side another call read is idle, and its slots give their room to the side being read
        self.side_readers: dict[tuple, Any] = {}
        self.stats = {"blocks_admitted": 0, "blocks_dropped": 0, "slots": 0, "wholes_released": 0}

    # ------------------------------------------------------------ accounting
    def _alloc(self, count: int, dtype, what: str):
        arr = self.arena.alloc(count, dtype, what)
        assert self.arena.used_bytes <= self.arena.budget_bytes, "device budget exceeded"
        return arr

    def _release(self, arr) -> None:
        if arr is not None:
            self.arena.release(arr)

    @property
    def unallocated_reserve(self) -> int:
        return self._unallocated(None)

    def _unallocated(self, exempt) -> int:
        """Bytes promised to slots and not yet held by them, but for shapes ``exempt(shape)`` waives."""
        held = {k: sum(_slot_bytes(s) for s in v) for k, v in self.slots.items()}
        return sum(max(0, r - held.get(k, 0)) for k, r in self._reserved.items() if exempt is None or not exempt(k))

    def reserve(self, shape: tuple, nbytes: int) -> None:
        """Promise ``nbytes`` to slots of ``shape`` (resident blocks never take it). A side's
        (``shape[0]``) earlier promises to other shapes that hold no slot lapse: a side sizes its
        slots anew each iteration (fewer partitions a group once another side holds slots), and
        every stale promise kept blocks out of room no slot would ever take. So do the promises of
        idle sides (:meth:`idle_side`) that hold no slot: the side promises again when next read."""
        for other in [k for k in self._reserved if k != shape and not self.slots.get(k)
                      and (k[0] == shape[0] or self.idle_side(k[0]))]:
            del self._reserved[other]
            self._spare_host.pop(other, None)  # staging of a shape this side no longer makes
        self._reserved[shape] = max(self._reserved.get(shape, 0), int(nbytes))

    def room_for_blocks(self, exempt=None) -> int:
        """Free bytes a block may take: the slots' promised room excluded (but for ``exempt`` shapes)."""
        return self.arena.free_bytes - self._unallocated(exempt)

    def slot_bytes(self, which=None) -> int:
        """Device bytes the slots hold, of the shapes ``which(shape)`` names (None: every shape)."""
        return sum(_slot_bytes(s) for shape, have in self.slots.items() if which is None or which(shape)
                   for s in have)

    def pool_bytes(self) -> int:
        """Device bytes the pool holds: its blocks and its slots."""
        return sum(b.nbytes for b in self.blocks.values()) + self.slot_bytes()

    def largest_block(self, idle) -> int:
        """The most bytes :meth:`admit` can give a block valued above every other, ``idle`` as
        there: the free room, the slots of the shapes ``idle`` names and every block not being
        read. (Not counted: the loaded graph's other engines and sides held whole, which it may
        free too.)"""
        blocks = sum(b.nbytes for k, b in self.blocks.items() if k not in self.busy)
        return self.room_for_blocks(idle) + self.slot_bytes(idle) + blocks

    def release_slots(self, which) -> int:
        """Give back the device buffers of the slots of every shape ``which(shape)`` names (idle
        sides'); their pinned host staging is kept for the shape's next slots. Returns the bytes."""
        shapes = [shape for shape in self.slots if which(shape)]
        if shapes:
            self.backend.synchronize()  # no copy or kernel may still be using them
        freed = 0
        for shape in shapes:
            for s in self.slots.pop(shape):
                freed += _slot_bytes(s)
                self._release(s.indices)
                self._release(s.weights)
                if s.host_indices is not None:
                    self._spare_host.setdefault(shape, []).append((s.host_indices, s.host_weights))
            self._turn.pop(shape, None)
        return freed

    def forget_side(self, side) -> None:
        """A closed side's slots, promises and kept staging go: every promise, also of shapes
        holding no slot now (released for another side's block, or never made), which would keep
        blocks out of that room for good."""
        def mine(shape):
            return shape[0] == side

        self.release_slots(mine)
        for table in (self._reserved, self._spare_host):
            for shape in [sh for sh in table if mine(sh)]:
                del table[shape]

    def read_by(self, side: tuple, reader) -> None:
        """``reader`` (a weak reference to a call's runtime) reads ``side`` now."""
        self.reader = self.side_readers[side] = reader

    def reading_now(self):
        """The call reading now (its runtime), or None where none is known or it has ended."""
        return self.reader() if self.reader is not None else None

    def idle_side(self, side: tuple) -> bool:
        """True when a call is reading now and ``side`` is not what it reads (False when no call is known)."""
        now = self.reading_now()
        last = self.side_readers.get(side)
        return now is not None and (last is None or last() is not now)

    def keep_for_call(self, key: tuple) -> None:
        """Block ``key`` stays through the call now reading (:meth:`call_blocks`)."""
        self.blocks[key].extra["call"] = self.reader

    def call_blocks(self) -> set:
        """Blocks kept for the call now reading (:meth:`keep_for_call`): none of its maps drops them.
        WCC's row-prefix copy, made by its first map, was taken by its edge map's span in the same
        call and copied again by the next call, which then shrank the span: every call after the
        warm-up copied (Kronecker 25 at 25% on an H200: 58, 54, then 13 ms)."""
        now = self.reading_now()
        if now is None:
            return set()
        return {k for k, b in self.blocks.items()
                if b.extra.get("call") is not None and b.extra["call"]() is now}

    # ------------------------------------------------------------ sides held whole
    def idle_wholes(self, keep: tuple) -> list:
        """The hybrids holding a side whole that the call now reading does not read (but ``keep``)."""
        now = self.reading_now()
        out = []
        for key, holder in self.wholes.items():
            if key == keep:
                continue
            last = holder.reader() if holder.reader is not None else None
            if now is None or last is not now:
                out.append(holder)
        return out

    def idle_whole_bytes(self, keep: tuple) -> int:
        return sum(int(h.whole_bytes) for h in self.idle_wholes(keep))

    def release_wholes(self, nbytes: int, keep: tuple) -> bool:
        """Give back idle sides' whole copies (:meth:`idle_wholes`) until ``nbytes`` are free: the
        side being read takes the room from sides that are not, as blocks do (their next call
        copies them again, as the resident engine's own eviction would). True when that many are."""
        for holder in self.idle_wholes(keep):
            if self.arena.free_bytes >= nbytes:
                break
            holder.release_whole()
            self.stats["wholes_released"] += 1
        return self.arena.free_bytes >= nbytes

    # ------------------------------------------------------------ staging slots
    def slot(self, shape: tuple, capacity: int, idx_dtype, w_dtype, count: int = 2,
             index_count: int | None = None) -> Slot | None:
        """The next of up to ``count`` slots of ``shape`` (round robin), allocated on first use:
        ``index_count`` (default ``capacity``) entries of ``idx_dtype``, ``capacity`` of ``w_dtype``.

        Resident blocks are dropped (least valuable first) to make room, then idle sides' slots
        (:meth:`idle_side`: SSSP's weighted slots held one slot of PageRank's unweighted side out
        at 1% of Kronecker 25, which then read every edge in place, 1.39x the filter engine
        alone); None when even that cannot fit one slot.
        """
        have = self.slots.setdefault(shape, [])
        turn = self._turn.get(shape, 0)
        self._turn[shape] = turn + 1
        if len(have) < count:
            n_idx = capacity if index_count is None else int(index_count)
            need = _buffer_bytes(n_idx, idx_dtype, capacity, w_dtype)
            if self.arena.free_bytes < need:
                self.drop_blocks(need - self.arena.free_bytes)
            if self.arena.free_bytes < need:  # idle sides' slots (allocated again when next read)
                self.release_slots(lambda sh: sh[0] != shape[0] and self.idle_side(sh[0]))
            if self.arena.free_bytes < need and self.reclaim is not None:
                self.reclaim(need)
            if self.arena.free_bytes < need:
                self.release_wholes(need, keep=shape[0])
            if self.arena.free_bytes >= need:
                idx = self._alloc(n_idx, idx_dtype, f"hybrid slot {shape} (indices)")
                w = self._alloc(capacity, w_dtype, f"hybrid slot {shape} (weights)") if w_dtype is not None else None
                have.append(Slot(idx, w, capacity))
                spare = self._spare_host.get(shape)
                if spare:  # a released slot's pinned staging (pinned allocations are slow)
                    have[-1].host_indices, have[-1].host_weights = spare.pop()
                self.stats["slots"] += 1
                return have[-1]
        if not have:
            return None
        return have[turn % len(have)]

    # ------------------------------------------------------------ resident partitions
    def admit(self, key: tuple, edges: int, idx_dtype, w_dtype, value: float, offsets: int = 0,
              idle=None, index_count: int | None = None) -> Block | None:
        """A new block for partition ``key`` if it fits, dropping less valuable blocks; else None.
        ``edges`` entries of weights, ``index_count`` (default ``edges``) of ids (packed: fewer).
        ``offsets``: int64 entries of an offsets array the block holds too (0: none). ``idle(shape)``:
        slot shapes of sides not being read, whose promised room the block may take and whose
        buffers are given back if it needs them (they are allocated again when next used)."""
        n_idx = edges if index_count is None else int(index_count)
        nbytes = _buffer_bytes(n_idx, idx_dtype, edges, w_dtype) + 8 * offsets
        if key in self.blocks:  # admitted again (a forced mix copies a held partition anew): the old one goes
            self.drop(key)
        if nbytes > self.room_for_blocks(idle):
            cheaper = _by_value((k, b) for k, b in self.blocks.items() if b.value < value and k not in self.busy)
            freeable = sum(self.blocks[k].nbytes for _, k in cheaper)
            if nbytes > self.room_for_blocks(idle) + freeable and idle is not None:
                self.release_slots(idle)
            if nbytes > self.room_for_blocks(idle) + freeable and self.reclaim is not None:
                self.reclaim(nbytes + self._unallocated(idle))  # idle buffers outside the pool first
            if nbytes > self.room_for_blocks(idle) + freeable:
                self.release_wholes(nbytes + self._unallocated(idle), keep=key[0])  # idle sides held whole
            if nbytes > self.room_for_blocks(idle) + freeable:
                return None
            for _, k in cheaper:
                if nbytes <= self.room_for_blocks(idle):
                    break
                self.drop(k)
        idx = self._alloc(n_idx, idx_dtype, f"resident partition {key}")
        w = self._alloc(edges, w_dtype, f"resident partition {key} (weights)") if w_dtype is not None else None
        offs = self._alloc(offsets, np.int64, f"resident partition {key} (offsets)") if offsets else None
        block = self.blocks[key] = Block(idx, w, nbytes, value, offsets=offs)
        self.busy.add(key)
        self.stats["blocks_admitted"] += 1
        return block

    def drop(self, key: tuple) -> None:
        b = self.blocks.pop(key)
        log.debug("pool: dropped block %s (%d bytes, value %.3g)", key, b.nbytes, b.value)
        self._release(b.indices)
        self._release(b.weights)
        self._release(b.offsets)
        self.stats["blocks_dropped"] += 1

    def drop_blocks(self, nbytes: int, among=None) -> None:
        """Drop the least valuable blocks (of the keys ``among``, or any) until ``nbytes`` more are
        free (or none is left)."""
        target = self.arena.free_bytes + nbytes
        keys = self.blocks if among is None else [k for k in among if k in self.blocks]
        for _, k in _by_value((k, self.blocks[k]) for k in keys if k not in self.busy):
            if self.arena.free_bytes >= target:
                break
            self.drop(k)

    def close(self) -> None:
        for k in list(self.blocks):
            self.drop(k)
        for have in self.slots.values():
            for s in have:
                self._release(s.indices)
                self._release(s.weights)
        self.slots.clear()
        self._reserved.clear()
        self._spare_host.clear()


def _by_value(items) -> list[tuple[float, tuple]]:
    """``(value, key)`` of blocks ``(key, block)``, least valuable first; ties in the order the
    blocks were admitted (keys are not compared: a partition's index and a span's name differ)."""
    return sorted(((b.value, k) for k, b in items), key=lambda vk: vk[0])


def _buffer_bytes(n_idx: int, idx_dtype, n_w: int, w_dtype) -> int:
    """Bytes of ``n_idx`` ids and ``n_w`` weights of these types (no weights: ``w_dtype`` None)."""
    return n_idx * np.dtype(idx_dtype).itemsize + (0 if w_dtype is None else n_w * np.dtype(w_dtype).itemsize)


def _slot_bytes(s: Slot) -> int:
    return int(s.indices.nbytes) + (int(s.weights.nbytes) if s.weights is not None else 0)
