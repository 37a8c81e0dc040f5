"""Executors: the places a partition's edges are computed, and how their vertex states meet.

A runtime holds a list of executors: the device it was loaded for (the GPU,
or on the CPU backend the simulated device arena) and the CPU it runs on
(the host backend reading the edges where they lie). Several GPUs or ranks
(Lux) are more entries in the same list. Executor 0 holds the program's state;
each other executor that is given partitions in an iteration gets a copy of
the state before anyone computes, computes on it at the same time as the
others (a thread each; kernels release the GIL), and its results are merged
back into executor 0's state:

* pull: an executor owns the destinations of its partitions, so the owners'
  ranges are copied back (no two executors write one vertex);
* push: sources race across executors for a destination, so the program's
  declared ``combine`` operator merges the copies (``min``/``max``/``or``
  elementwise, ``sum`` adds each copy's increments over its snapshot);
* the output frontiers are OR-ed.

Example:
    >>> import numpy as np
    >>> from graphferry.backends.cpu.backend import CpuBackend
    >>> from graphferry.scheduler.executors import merge_arrays
    >>> b = CpuBackend()
    >>> mine = {"dist": np.array([0.0, 5.0, 9.0])}
    >>> merge_arrays(b, mine, {"dist": np.array([0.0, 7.0, 4.0])}, None, "min", "push", [])
    >>> mine["dist"].tolist()
    [0.0, 5.0, 4.0]
    >>> acc = {"acc": np.array([1.0, 1.0, 1.0])}
    >>> merge_arrays(b, acc, {"acc": np.array([1.0, 3.0, 1.5])}, {"acc": np.array([1.0, 1.0, 1.0])}, "sum", "push", [])
    >>> acc["acc"].tolist()
    [1.0, 3.0, 1.5]
    >>> own = {"x": np.zeros(4)}
    >>> merge_arrays(b, own, {"x": np.arange(4.0)}, None, "min", "pull", [(2, 4)])
    >>> own["x"].tolist()
    [0.0, 0.0, 2.0, 3.0]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass
class Executor:
    """One place kernels run: its backend, and whether edges reach it through a device arena."""

    name: str
    backend: Any
    device_side: bool      # True: edges cross into its arena (transfer engines); False: read in place
    arena: Any = None


class ExecutorState:
    """A non-primary executor's copy of a program's state, kept from one edge_map to the next.

    The first edge_map copies the whole state over. The primary then keeps, where
    its state lives, ``sent``: what this copy holds. Before each later edge_map
    (:meth:`refresh`) only the vertices whose state differs from ``sent`` cross,
    found by one comparison on the primary's device, whatever changed them (the
    primary's own partitions, vertex maps, the merge); after it (:meth:`merge_into`)
    only what this executor changed comes back when the program signals its
    changes (``Program.signals_changes``); else the whole arrays come back and the
    next edge_map copies the state again. A delta-stepping
    round then moves the vertices it relaxed, not two n-sized copies each way.
    """

    #: beyond this share of the vertices changed, refresh copies an array whole
    WHOLE_SHARE = 0.125

    def __init__(self, executor: Executor, program, arrays: dict[str, Any], primary_backend,
                 scalars: dict[str, Any], vid_dtype, n: int):
        b = self.backend = executor.backend
        self.executor, self.program, self.primary, self.n = executor, program, primary_backend, n
        self.kernels = b.compile(program, vid_dtype)
        host = {k: primary_backend.to_host(v) for k, v in arrays.items()}
        self.arrays = {k: b.asarray(v) for k, v in host.items()}  # a copy (asarray copies on the CPU)
        self.source = dict(arrays)  # the primary's arrays this copy mirrors (by identity)
        self.sent = {k: primary_backend.xp.array(v, copy=True) for k, v in arrays.items()}
        self.moved_bytes = sum(int(v.nbytes) for v in host.values())  # the whole state, this once
        self._start(scalars)

    def mirrors(self, program, arrays: dict[str, Any]) -> bool:
        """Whether this copy follows ``arrays`` (the same program state, the same array objects)."""
        return (self.program is program and self.source.keys() == arrays.keys()
                and all(self.source[k] is v for k, v in arrays.items()))

    def refresh(self, arrays: dict[str, Any], scalars: dict[str, Any], *,
                ranges: list[tuple[int, int]] | None = None, everywhere: tuple[str, ...] | None = None) -> None:
        """Bring the copy up to date: the vertices whose state differs from what was sent cross.

        ``ranges`` (sorted, disjoint, not touching: :func:`owned_ranges`) with ``everywhere``: the
        executor next pulls into these destination ranges and reads other vertices' values of the
        arrays in ``everywhere`` only (``Program.pull_source_arrays``), so the other arrays are
        brought up to date within the ranges alone. A BFS pull reads no other vertex's state:
        the device's discoveries elsewhere (14.6 M vertices in one Kronecker-25 round) stay put.
        """
        p, xp = self.primary, self.primary.xp
        self.moved_bytes = 0
        limited = ranges is not None and everywhere is not None
        if limited:
            edges = np.array(ranges, dtype=np.int64).ravel()
            assert np.all(np.diff(edges) > 0), "ranges must be sorted, disjoint and not touching"
            span = int((edges[1::2] - edges[0::2]).sum())
            edges_dev = xp.asarray(edges)
        for k, arr in arrays.items():  # each array its own changes: an array nobody wrote moves nothing
            ids = xp.flatnonzero(arr != self.sent[k])
            within = limited and k not in everywhere
            if within and len(ids):  # an id lies in a range where an odd number of edges is at or below it
                ids = ids[xp.searchsorted(edges_dev, ids, side="right") % 2 == 1]
            if len(ids) > self.WHOLE_SHARE * (span if within else self.n):
                # most of it changed (a dense BFS round): one contiguous copy per range beats ids +
                # values and a scatter of one thread over them (Kronecker 25, BFS's 14.6 M changed
                # vertices on an H200 host: 238 ms of exchange in a 260 ms round)
                for lo, hi in (ranges if within else [(0, self.n)]):
                    self.arrays[k][lo:hi] = p.to_host(arr[lo:hi])
                    self.sent[k][lo:hi] = arr[lo:hi]
                    self.moved_bytes += int(arr[lo:hi].nbytes)
            elif len(ids):
                at = self.backend.asarray(p.to_host(ids))
                values = arr[ids]
                self.arrays[k][at] = self.backend.asarray(p.to_host(values))
                self.sent[k][ids] = values
                self.moved_bytes += int(values.nbytes) + int(ids.nbytes)
        self._start(scalars)

    def _start(self, scalars: dict[str, Any]) -> None:
        b = self.backend
        # sum merges add the increments over what the executor started from
        self.snapshot = ({k: np.array(b.to_host(v), copy=True) for k, v in self.arrays.items()}
                         if "sum" in (self.program.combine, self.program.neighbor_writes) else None)
        ptrs = tuple(b.pointer(self.arrays[a]) for a in self.program.arrays)
        f, i = self.program.pack_scalars(scalars)
        self.tables = (b.asarray(np.array(ptrs + (0,), dtype=np.uint64)), b.asarray(f), b.asarray(i))
        self.out = b.new_bitmap(self.n)
        self.seconds = 0.0

    def merge_into(self, mine: dict[str, Any], direction: str, ranges: list[tuple[int, int]], *,
                   combine: str | None = None, signalled: bool | None = None) -> None:
        """Merge this copy into the primary's arrays ``mine`` (see :func:`merge_arrays`), moving only
        this executor's changes where the program signals them, and note what the copy now holds.

        ``combine`` and ``signalled`` default to the program's edge functions' ``combine`` and
        ``signals_changes`` (a neighbourhood function passes its ``neighbor_writes``, and its
        output frontier names no changes)."""
        p, b = self.primary, self.backend
        combine = self.program.combine if combine is None else combine
        signalled = self.program.signals_changes if signalled is None else signalled
        if signalled and (direction == "pull" or combine in ("min", "max", "or")):
            # its output frontier names every vertex it changed (a pull's: all within its ranges):
            # those come back by id, a push's merged by the combine operator, a pull's as they are
            # (unless most of its ranges changed: then they come back whole, below)
            ids = b.to_host(b.ids_from_bits(self.out, self.n))
            if direction == "push" or len(ids) <= self.WHOLE_SHARE * sum(hi - lo for lo, hi in ranges):
                if len(ids):
                    at, here = p.asarray(ids), b.asarray(ids)  # in the primary, in this copy
                    merge = elementwise_merge(p.xp, combine) if direction == "push" else None
                    for k, arr in mine.items():
                        values = p.asarray(np.ascontiguousarray(b.to_host(self.arrays[k][here])))
                        arr[at] = values if merge is None else merge(arr[at], values)
                        self.sent[k][at] = values
                        self.moved_bytes += int(values.nbytes) + int(ids.nbytes)
                return
        theirs = {k: b.to_host(self.arrays[k]) for k in mine}
        merge_arrays(p, mine, theirs, self.snapshot, combine, direction, ranges)
        if direction == "push":  # whole arrays merged: the next edge_map copies the state again
            self.source = {}
            self.moved_bytes += sum(int(v.nbytes) for v in theirs.values())
            return
        for k in mine:  # pull: the owned ranges came back as they are; the copy holds them
            for lo, hi in ranges:
                self.sent[k][lo:hi] = mine[k][lo:hi]
                self.moved_bytes += int(mine[k][lo:hi].nbytes)


def merge_arrays(backend, mine: dict[str, Any], theirs: dict[str, Any], snapshot: dict[str, Any] | None,
                 combine: str, direction: str, ranges: list[tuple[int, int]]) -> None:
    """Merge an executor's copy ``theirs`` into ``mine`` (executor 0's arrays, on ``backend``)."""
    xp = backend.xp
    for name, arr in mine.items():
        other = theirs[name]
        if direction == "pull":  # disjoint owners: copy the owned destinations back
            for lo, hi in ranges:
                arr[lo:hi] = backend.asarray(np.ascontiguousarray(other[lo:hi]))
            continue
        dev = backend.asarray(np.asarray(other))
        if combine == "sum":
            arr += dev - backend.asarray(snapshot[name])
        else:
            elementwise_merge(xp, combine)(arr, dev, out=arr)


def elementwise_merge(xp, combine: str):
    """The ufunc of ``xp`` (numpy or CuPy) that merges two copies of a state by ``combine``
    (min, max or or); what executors and ranks apply to each other's values."""
    merges = {"min": xp.minimum, "max": xp.maximum, "or": xp.bitwise_or}
    if combine not in merges:
        raise ValueError(f"cannot merge executor states with combine={combine!r}")
    return merges[combine]


def owned_ranges(partitions, indices) -> list[tuple[int, int]]:
    """Vertex ranges of the given partitions, adjacent ones joined (fewer copies back)."""
    out: list[tuple[int, int]] = []
    for i in sorted(indices):
        p = partitions[i]
        if out and out[-1][1] == p.lo:
            out[-1] = (out[-1][0], p.hi)
        else:
            out.append((p.lo, p.hi))
    return out
