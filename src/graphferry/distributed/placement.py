"""Where each rank's vertices lie: split points balanced by in-edges, and dynamic repartitioning.

Lux sec. 4.2: every partition holds consecutive vertices and the edges that
point to them; the split points balance the in-edges (``|E| / x`` each), found
from the in-degree prefix sum in one ``searchsorted``.

Lux sec. 5: after each iteration the observed time ``t_i`` of every partition
adds known points to the partial-sum function ``f(x) = sum_{i<=x} w_i`` (the
work share of vertices ``0..x``); between known points ``f`` is interpolated
"using the assumption that the cost of a vertex is proportional to its number
of in-edges". New split points are ``f^{-1}(i / M)``. A repartitioning is done
only when it pays: ``alpha * delta_cost < delta_gain``, with ``delta_gain =
max t - avg t`` (per iteration) and ``delta_cost`` the time to move the edges
that change owner (one-time; ``alpha`` amortises it over future iterations).
Global (across nodes, node averages) before local (within a node). One
departure: the times are averaged over a few iterations under the same split
points (``window``, 1 = Lux), so that one noisy iteration moves nothing.

Example:
    >>> import numpy as np
    >>> prefix = np.array([0, 10, 20, 30, 40, 50, 60, 70, 80])   # 8 vertices, 10 in-edges each
    >>> balanced_splits(prefix, 4).tolist()
    [0, 2, 4, 6, 8]
    >>> # the first partition took 3x as long as the others: move its split points left
    >>> interpolate_splits(prefix, np.array([0, 2, 4, 6, 8]), np.array([3.0, 1.0, 1.0, 1.0]), 4).tolist()
    [0, 1, 2, 5, 8]
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

#: Default amortisation factor: the migration must pay for itself within about ten iterations.
DEFAULT_ALPHA = 0.1


def work_prefix(in_offsets: np.ndarray) -> np.ndarray:
    """Estimated work before each vertex: its in-edges, plus one per vertex (an edgeless vertex still costs)."""
    n = len(in_offsets) - 1
    return np.asarray(in_offsets, dtype=np.float64) + np.arange(n + 1, dtype=np.float64)


def balanced_splits(prefix: np.ndarray, parts: int) -> np.ndarray:
    """``parts + 1`` split points ``0 = s_0 <= ... <= s_parts = n`` with equal ``prefix`` between them."""
    n = len(prefix) - 1
    targets = prefix[-1] * np.arange(1, parts) / parts
    inner = np.searchsorted(prefix, targets, side="left")
    return np.concatenate([[0], np.clip(inner, 0, n), [n]]).astype(np.int64)


def interpolate_splits(prefix: np.ndarray, splits: np.ndarray, times: np.ndarray, parts: int) -> np.ndarray:
    """New split points from observed partition times (Lux sec. 5, partial-sum interpolation).

    Known points of ``f``: ``f(splits[k]) = sum(times[:k]) / sum(times)``. Inside a
    partition ``f`` grows with ``prefix`` (the in-edge assumption). Returns
    ``f^{-1}(i / parts)`` for ``i = 1 .. parts - 1``, with both ends fixed.
    """
    first, last = int(splits[0]), int(splits[-1])  # the whole graph, or one node's ranks' range
    times = np.maximum(np.asarray(times, dtype=np.float64), 1e-12)
    known = np.concatenate([[0.0], np.cumsum(times)]) / times.sum()
    out = [first]
    for i in range(1, parts):
        target = i / parts
        k = int(np.searchsorted(known, target, side="right")) - 1  # segment [splits[k], splits[k+1])
        k = min(max(k, 0), len(times) - 1)
        lo, hi = int(splits[k]), int(splits[k + 1])
        frac = (target - known[k]) / (known[k + 1] - known[k])
        want = prefix[lo] + frac * (prefix[hi] - prefix[lo])
        v = int(np.searchsorted(prefix[lo : hi + 1], want, side="left")) + lo
        out.append(min(max(v, out[-1]), last))
    out.append(last)
    return np.asarray(out, dtype=np.int64)


def moved_edges(in_offsets: np.ndarray, old: np.ndarray, new: np.ndarray) -> int:
    """In-edges whose owner changes between two split vectors (the migration's volume)."""
    total = 0
    for r in range(len(old) - 1):
        keep_lo, keep_hi = max(old[r], new[r]), min(old[r + 1], new[r + 1])
        kept = max(0, int(in_offsets[keep_hi] - in_offsets[keep_lo])) if keep_hi > keep_lo else 0
        total += int(in_offsets[new[r + 1]] - in_offsets[new[r]]) - kept
    return total


@dataclass
class Repartitioner:
    """Lux's dynamic repartitioning over the ranks' observed compute times.

    ``bytes_per_second``: how fast edges move to a new owner (measured when the
    slices were first built); ``node_of[r]``: the node of rank ``r``.
    """

    alpha: float = DEFAULT_ALPHA
    node_of: list[int] = field(default_factory=list)
    bytes_per_edge: int = 4
    local_bytes_per_second: float = 1e9
    global_bytes_per_second: float = 1e9
    window: int = 3  # iterations averaged before deciding (1: Lux's every iteration; more: robust to noise)
    history: list[dict] = field(default_factory=list)
    _seen: list = field(default_factory=list)
    _prefix: tuple = ()  # (in_offsets, its work prefix): n-sized, built once, not every iteration

    def _work_prefix(self, in_offsets: np.ndarray) -> np.ndarray:
        # every observed iteration proposes; three n-sized passes each took 290 ms an iteration
        # at Kronecker 25 (2 H200s, PageRank: 15 ms of compute)
        if not self._prefix or self._prefix[0] is not in_offsets:
            self._prefix = (in_offsets, work_prefix(in_offsets))
        return self._prefix[1]

    def observe(self, in_offsets: np.ndarray, splits: np.ndarray, times) -> np.ndarray | None:
        """Add one iteration's per-rank times; propose from the mean of the last ``window`` iterations
        observed under the current split points (a timing burst on a shared machine moves nothing)."""
        self._seen.append(np.asarray(times, dtype=np.float64))
        if len(self._seen) < self.window:
            return None
        mean = np.mean(self._seen[-self.window :], axis=0)
        proposal = self.propose(in_offsets, splits, mean)
        if proposal is not None:
            self._seen.clear()  # times under the old split points say nothing about the new ones
        return proposal

    def propose(self, in_offsets: np.ndarray, splits: np.ndarray, times) -> np.ndarray | None:
        """New split points if repartitioning pays for itself (steps 1-5), else None."""
        times = np.asarray(times, dtype=np.float64)
        parts = len(times)
        if parts < 2 or times.sum() <= 0:
            return None
        prefix = self._work_prefix(in_offsets)
        nodes = sorted(set(self.node_of)) if self.node_of else [0]
        node_of = np.asarray(self.node_of if self.node_of else [0] * parts)
        # step 1: the new partitioning everywhere
        proposal = interpolate_splits(prefix, splits, times, parts)
        # step 2: global gain (node averages) against the cost of moving edges across nodes
        if len(nodes) > 1:
            node_t = np.array([times[node_of == j].mean() for j in nodes])
            gain = float(node_t.max() - node_t.mean())
            cost = self._cost(in_offsets, splits, proposal, self.global_bytes_per_second)
            if self.alpha * cost < gain:
                self._note("global", gain, cost, splits, proposal)
                return proposal
        # step 4: local, node by node, split points inside the node only
        new = splits.copy()
        changed = False
        for j in nodes:
            ranks = np.flatnonzero(node_of == j)
            if len(ranks) < 2:
                continue
            a, z = int(ranks[0]), int(ranks[-1]) + 1
            t = times[a:z]
            gain = float(t.max() - t.mean())
            sub = interpolate_splits(prefix, splits[a : z + 1], t, z - a)  # inside the node's range
            cost = self._cost(in_offsets, splits[a : z + 1], sub, self.local_bytes_per_second)
            if self.alpha * cost < gain and not np.array_equal(sub, splits[a : z + 1]):
                new[a : z + 1] = sub
                changed = True
                self._note(f"local node {j}", gain, cost, splits[a : z + 1], sub)
        return new if changed else None

    def _cost(self, in_offsets, old, new, rate: float) -> float:
        return moved_edges(in_offsets, np.asarray(old), np.asarray(new)) * self.bytes_per_edge / max(rate, 1.0)

    def _note(self, kind, gain, cost, old, new) -> None:
        self.history.append({"kind": kind, "gain_seconds": gain, "cost_seconds": cost,
                             "old": [int(x) for x in old], "new": [int(x) for x in new]})
