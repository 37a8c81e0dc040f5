"""Priority buckets over a vertex-state array (delta-stepping's buckets, Meyer and Sanders 2003).

A vertex ``v`` belongs to bucket ``floor(value[v] / delta)``. Vertices whose
value dropped are :meth:`~PriorityBuckets.add`\\ ed after each edge_map;
:meth:`~PriorityBuckets.pop` returns the lowest non-empty bucket as a
frontier. Values only decrease, so an entry whose vertex has since moved to a
lower bucket is stale and dropped when its bucket comes up (GAPBS keeps
per-thread bins and filters the same way). The backend groups the added
vertices by bucket (``Backend.split_by_bucket``: a parallel counting sort on
the CPU, array operations on a GPU); each ``pop`` touches only that bucket's entries.
``delta = inf`` keeps one bucket: every changed vertex is in the next frontier
(frontier Bellman-Ford).

A round costs a backend a fixed price besides its edges (on a GPU: launches,
the bucket split and the host's reads of frontier sizes, 1-4 ms at scale 25),
and a bucket too small to fill the machine pays that price for little work.
``pop`` therefore merges the lowest buckets until the frontier holds at least
``fill`` vertices (``Backend.bucket_fill``: 1 on the CPU, where delta-stepping's
work efficiency wins; the GPU's resident thread count there). Merging keeps the
result exact, as a vertex whose value later drops is relaxed again (the
label-correcting argument of Meyer and Sanders); it trades the extra edge work of
Bellman-Ford for fewer rounds only where rounds are what costs.

An algorithm runs the rounds with
:meth:`ProgramState.edge_map_buckets <graphferry.runtime.runtime.ProgramState.edge_map_buckets>`
(pop, edge_map, add until empty). Where one backend call can run them all (the CPU
backend on the ``host`` engine: ``gf_push_buckets`` keeps per-thread buckets and
needs no frontier between rounds), that call takes over this object's entries
(:meth:`~PriorityBuckets.take_all`); otherwise the rounds use the layouts below.

Merging has a price where pending vertices are far from settled: on a uniform random
graph, Bellman-Ford's order relaxes every arc six times, most of them from vertices whose
distance drops again later. So the dense layout (a GPU) *defers* at first: a round takes the
lowest buckets up to ``Backend.bucket_share`` of the vertices, and the next pop counts how many
of the vertices held back have dropped since (each one a relaxation of its edges that deferring
saved, as delta-stepping's work-efficiency argument has it). While those saved relaxations
outweigh a round's fixed price (``Backend.round_price_resident`` / ``round_price_bus``, in
relaxed edges), deferring goes on; once they do not (on a Kronecker graph after two or three
rounds: its held-back vertices are mostly final already), every later round takes all pending
vertices. Graphs with hubs (:func:`hub_share`: the top 1% of the vertices hold a tenth of the
edges or more) never defer: their hubs settle most distances in a few rounds, and on Kronecker
graphs deferral lost time on every engine. An explicit ``fill`` keeps a fixed fill and never defers.

Two layouts, chosen by the backend (``Backend.dense_buckets``):

* sparse (the CPU): every added vertex is filed under its bucket (a counting
  sort) and a pop touches only the entries of the buckets it takes;
* dense (a GPU): the pending vertices are one bitmap frontier; a pop reads
  their values, takes those below the cut where ``fill`` is first reached (a
  histogram of their keys) and leaves the rest pending. No sort, no dedup, no
  stale entries (keys are read when popped); every pass is over the pending
  set, which a GPU sweeps in microseconds, where a CPU would pay for it.

Example:
    >>> import numpy as np
    >>> from graphferry import Graph
    >>> from graphferry.runtime import Program, Runtime
    >>> from graphferry.runtime.buckets import PriorityBuckets
    >>> p = Program("bucket_doc", arrays={"x": "float64"}, source="")
    >>> g = Graph.from_edges(np.array([0]), np.array([1]), n=6)
    >>> with Runtime(g, backend="cpu") as rt:
    ...     st = rt.start(p, arrays={"x": np.array([0.5, 7.0, 2.5, 2.0, np.inf, 9.0])})
    ...     b = PriorityBuckets(st, "x", delta=2.0)
    ...     b.add(rt.frontier([0, 1, 2, 3]))
    ...     first = b.pop().ids.tolist()
    ...     st.assign("x", [1], 1.0)      # 1 drops into bucket 0: its entry in bucket 3 is stale
    ...     b.add(rt.frontier([1]))
    ...     [first, b.pop().ids.tolist(), b.pop().ids.tolist(), b.pop()]
    [[0], [1], [2, 3], None]
"""

from __future__ import annotations

import heapq
import math

import numpy as np

from .frontier import Frontier


def hub_share(graph, top: float = 0.01, samples: int = 1 << 16) -> float:
    """The share of the edges that the ``top`` fraction of the vertices (by out-degree) hold,
    estimated from a strided sample of at most ``samples`` vertices that have edges.

    Kronecker 21: 0.42; a uniform random graph: 0.015; a road-like grid: 0.012.

    Example:
        >>> import numpy as np
        >>> from graphferry import Graph
        >>> star = Graph.from_edges(np.zeros(99, dtype=np.int64), np.arange(1, 100), n=100)
        >>> round(hub_share(star), 2)   # the hub holds every edge of this directed star
        1.0
    """
    offsets = np.asarray(graph.offsets)
    n = len(offsets) - 1
    if n <= 0:
        return 0.0
    at = np.arange(0, n, max(1, n // samples))
    degrees = offsets[at + 1] - offsets[at]
    degrees = degrees[degrees > 0]
    if not len(degrees):
        return 0.0
    k = max(1, int(len(degrees) * top))
    return float(np.partition(degrees, len(degrees) - k)[-k:].sum() / degrees.sum())


class PriorityBuckets:
    """Delta-stepping buckets of the vertices of one state array (see module docstring)."""

    #: no deferral where the top 1% of the vertices hold this share of the edges or more: hubs
    #: reached in the first rounds give most vertices their final distance within a few hops, so
    #: held-back vertices rarely drop and deferring only splits rounds (H200, SSSP, every pending
    #: vertex against deferral: Kronecker 25 hybrid 292 against 305-329 ms, Kronecker 26
    #: zero-copy 1352 against 1966 ms; uniform 25 hybrid 1128 against 478 ms)
    HUB_SHARE = 0.1

    def __init__(self, state, name: str, delta: float, fill: int | None = None):
        if not (delta > 0):
            raise ValueError(f"bucket width delta must be positive, got {delta!r}")
        self.state, self.name, self.delta = state, name, float(delta)
        self.backend = state.rt.backend
        self.fill = max(1, int(self.backend.bucket_fill if fill is None else fill))
        rt = state.rt
        self.n = rt.graph.n
        self.dense = bool(self.backend.dense_buckets)
        # deferring (module docstring): the dense layout's default, while it pays
        share = float(self.backend.bucket_share) if fill is None and self.dense else 0.0
        self.deferring = share > 0 and not math.isinf(self.delta) and rt.loaded.memo(
            "buckets.hub_share", lambda: hub_share(rt.graph)) < self.HUB_SHARE  # once per loaded graph
        self.defer_fill = max(1, int(share * self.n))
        self._uses_weights = bool(state.program.uses_weights)
        self.mean_degree = rt.graph.m / max(1, self.n)
        self._held_back = None  # (ids, their values) left pending by the last deferring pop
        self.deferred_rounds = 0
        self._pending: Frontier | None = None   # dense layout
        self._entries: dict[int, list] = {}     # sparse layout: bucket -> id arrays
        self._heap: list[int] = []

    @property
    def round_price(self) -> float:
        """A round's fixed price in relaxations: the resident one where this call's maps move no
        edges a round (``Runtime.maps_move_edges``: the resident engine, the host, or the hybrid
        holding the side whole, asked at each pop: it holds it from its first map on), else the
        bus's. The hybrid at 100% of the edges thus defers exactly as the resident engine does."""
        b = self.backend
        moves = self.state.rt.maps_move_edges(self._uses_weights)
        return float(b.round_price_bus if moves else b.round_price_resident)

    def add(self, frontier: Frontier) -> None:
        """Put the vertices of ``frontier`` into the buckets of their current values."""
        if not frontier:
            return
        if self.dense:
            self._pending = frontier if self._pending is None else self._pending | frontier
            return
        ids = frontier.ids
        if math.isinf(self.delta):
            grouped, keys, bounds = ids, [0], [0, len(ids)]
        else:  # the backend groups them (a parallel counting sort on the CPU)
            grouped, keys, bounds = self.backend.split_by_bucket(ids, self.state.arrays[self.name], self.delta)
        for k, a, z in zip(keys, bounds[:-1], bounds[1:]):
            if k not in self._entries:
                self._entries[k] = []
                heapq.heappush(self._heap, k)
            self._entries[k].append(grouped[a:z])

    def pop(self) -> Frontier | None:
        """The lowest non-empty buckets' vertices (sorted, distinct), at least ``fill`` of them
        while buckets remain, or None when all are empty."""
        if self.dense:
            return self._pop_dense()
        xp = self.backend.xp
        taken, count = [], 0
        while self._heap and count < self.fill:
            k = heapq.heappop(self._heap)
            parts = self._entries.pop(k)
            ids = parts[0] if len(parts) == 1 else xp.concatenate(parts)
            if not math.isinf(self.delta):  # drop the stale entries
                ids = self.backend.keep_bucket(ids, self.state.arrays[self.name], self.delta, k)
            if len(parts) > 1 and len(ids) > 1:
                ids = self.backend.sorted_unique(ids, self.n)
            if len(ids):
                taken.append(ids)
                count += len(ids)
        if not taken:
            return None
        # buckets hold distinct vertices (a vertex lies in one bucket): sorting keeps them distinct
        ids = taken[0] if len(taken) == 1 else self.backend.sorted_unique(xp.concatenate(taken), self.n)
        return Frontier(self.backend, self.n, ids=ids)

    def take_all(self):
        """Every pending entry's vertex id (backend array, unsorted, stale entries and repeats
        included), leaving the buckets empty: for a backend that runs the rounds itself
        (:meth:`ProgramState.edge_map_buckets <graphferry.runtime.runtime.ProgramState.edge_map_buckets>`)."""
        xp = self.backend.xp
        if self.dense:
            pending, self._pending = self._pending, None
            return pending.ids if pending is not None else xp.zeros(0, xp.int64)
        parts = [a for k in self._heap for a in self._entries[k]]
        self._entries, self._heap = {}, []
        return xp.concatenate(parts) if parts else xp.zeros(0, xp.int64)

    #: widest run of buckets one histogram covers; farther keys count as the last
    HISTOGRAM_SPAN = 1 << 16

    def _pop_dense(self) -> Frontier | None:
        # every pass over the pending vertices is one of the backend's (Backend.bucket_range,
        # bucket_histogram, bucket_cut, count_below: on a GPU kernels of its own module, where CuPy's
        # array operations each compiled a kernel on a fresh machine, on the thread that asked)
        pending = self._pending
        if pending is None or not pending:
            return None
        b, n = self.backend, self.n
        values = self.state.arrays[self.name]
        pending_count = len(pending)
        price = self.round_price if self.deferring else 0.0
        if self.deferring and self._held_back is not None:
            held, then = self._held_back
            dropped_share = b.count_below(held, values, then) / len(held)
            # each held-back vertex that dropped since would have relaxed its edges twice; this
            # pop would hold back the pending vertices beyond the fill, which drop at that rate:
            # deferring goes on while the relaxations it would save outweigh a round's price
            saving = dropped_share * max(0, pending_count - self.defer_fill) * self.mean_degree
            if saving < price:
                self.deferring = False
        self._held_back = None
        # defer where it could pay: even if every vertex held back dropped, a smaller pending
        # set saves less than a round costs (this pop takes them all; later pops may defer)
        defer = self.deferring and (pending_count - self.defer_fill) * self.mean_degree >= price
        fill = self.defer_fill if defer else self.fill
        if math.isinf(self.delta) or pending_count <= fill:   # one round takes them all
            self._pending = None
            return pending
        low, high = b.bucket_range(pending.bits, values, self.delta, n)
        if fill <= 1:
            cut = low + 1
        else:  # the smallest cut below which at least `fill` pending vertices lie
            hist = b.bucket_histogram(pending.bits, values, self.delta, low, min(high - low, self.HISTOGRAM_SPAN), n)
            cut = low + int(np.searchsorted(np.cumsum(hist), fill)) + 1
        take, rest = b.bucket_cut(pending.bits, values, self.delta, cut, n)
        rest = Frontier(b, n, bits=rest)
        if rest:
            self._pending = rest
            if defer:
                held = rest.ids
                self._held_back = (held, b.gather(values, held))  # a copy: what they were when held back
                self.deferred_rounds += 1
        else:
            self._pending = None
        return Frontier(b, n, bits=take)

    def __bool__(self) -> bool:
        return bool(self._heap) if not self.dense else bool(self._pending)
