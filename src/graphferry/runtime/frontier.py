"""Frontiers: the active vertices, as a sorted id list or a bitmap, converted lazily.

Example:
    >>> from graphferry.backends.cpu.backend import CpuBackend
    >>> from graphferry.runtime.frontier import Frontier
    >>> b = CpuBackend()
    >>> f = Frontier.from_ids(b, 10, [3, 7])
    >>> len(f), f.bits.tolist(), f.ids.tolist()
    (2, [136], [3, 7])
    >>> g = Frontier.from_ids(b, 10, [7, 8])
    >>> (f | g).ids.tolist(), (f & g).ids.tolist(), (f - g).ids.tolist()
    ([3, 7, 8], [7], [3])
"""

from __future__ import annotations

from typing import Any

import numpy as np


class Frontier:
    """Active vertices of an ``n``-vertex graph on one backend.

    ``ids`` (sorted int64, device array) and ``bits`` (uint32 words, bit ``v`` of
    word ``v // 32``) are produced from each other on first use and cached.
    ``is_all`` marks the frontier of every vertex without materialising it; a frontier
    found to hold all ``n`` vertices when counted becomes one, so kernels then test no
    bitmap (delta PageRank's first rounds at uniform 25: every vertex active, 1.07 G edges
    tested against the bitmap per round for nothing).
    """

    def __init__(self, backend, n: int, *, ids: Any = None, bits: Any = None, is_all: bool = False):
        self.backend = backend
        self.n = n
        self._ids = ids
        self._bits = bits
        self.is_all = is_all
        self._count: int | None = None
        self._host_ids: np.ndarray | None = None
        self._counted(n if is_all else (len(ids) if ids is not None else None))

    def _counted(self, count: int | None) -> None:
        self._count = count
        if count == self.n:  # every vertex (n == 0 included): the same set as Frontier.all
            self.is_all = True

    @classmethod
    def from_ids(cls, backend, n: int, ids) -> "Frontier":
        host = np.asarray(ids, dtype=np.int64).ravel()
        if len(host) > 1 and not bool((host[1:] > host[:-1]).all()):  # sorted and distinct: kept
            host = np.sort(host)
            host = host[np.r_[True, host[1:] != host[:-1]]]
        if len(host) and (host[0] < 0 or host[-1] >= n):
            raise ValueError(f"frontier names a vertex outside 0..{n - 1}")
        frontier = cls(backend, n, ids=backend.asarray(host))
        # given on the host: kept (host_ids, a device's small degree sums), never the caller's own array
        frontier._host_ids = host.copy() if isinstance(ids, np.ndarray) and np.may_share_memory(host, ids) else host
        return frontier

    @classmethod
    def all(cls, backend, n: int) -> "Frontier":
        return cls(backend, n, is_all=True)

    @classmethod
    def empty(cls, backend, n: int) -> "Frontier":
        return cls(backend, n, ids=backend.asarray(np.empty(0, np.int64)))

    @property
    def ids(self) -> Any:
        if self._ids is None:
            if self.is_all:
                self._ids = self.backend.vertex_ids(self.n, np.int64)  # in parallel on the CPU
            else:
                if self._count is not None and hasattr(self.backend, "ids_from_bits_counted"):
                    self._ids = self.backend.ids_from_bits_counted(self._bits, self._count)
                else:
                    self._ids = self.backend.ids_from_bits(self._bits, self.n)
            self._counted(len(self._ids))
        return self._ids

    def know_count(self, count: int) -> None:
        """Take the number of active vertices from a pass that counted them (no popcount later)."""
        self._counted(int(count))

    @property
    def bits(self) -> Any:
        if self._bits is None:
            if self.is_all:
                bits = np.full(self.backend.bitmap_words(self.n), 0xFFFFFFFF, dtype=np.uint32)
                if self.n % 32:
                    bits[-1] = (1 << (self.n % 32)) - 1
                self._bits = self.backend.asarray(bits)
            else:
                self._bits = self.backend.bits_from_ids(self._ids, self.n)
        return self._bits

    def listed_on_host(self, at_most: int) -> bool:
        """True when the frontier's ids are at hand on the host (it was given there) and number at
        most ``at_most``."""
        return self._host_ids is not None and len(self._host_ids) <= at_most

    def host_ids(self) -> np.ndarray:
        """Sorted ids on the host (engines that compact on the CPU need them)."""
        if self._host_ids is None:
            self._host_ids = self.backend.to_host(self.ids)
        return self._host_ids

    def prefers_bitmap(self) -> bool:
        """True when the frontier is a bitmap only (its ids not built) and dense enough (at least
        one vertex per 32, one per bitmap word) that a kernel filtering every row by the
        bitmap costs no more than building and reading an id list."""
        return (not self.is_all and self._ids is None and self._bits is not None
                and 32 * len(self) >= self.n)

    def __len__(self) -> int:
        if self._count is None:
            self._counted(self.backend.popcount(self._bits))
        return self._count

    def __bool__(self) -> bool:
        return len(self) > 0

    # ------------------------------------------------------------ set operations
    def _check(self, other: "Frontier") -> None:
        if not isinstance(other, Frontier) or other.n != self.n:
            raise ValueError("frontier set operations need two frontiers of the same graph")

    # set operations through the backend (Backend.bits_combine): on a GPU one kernel of the
    # backend's own module, where CuPy's operators compile a kernel each on a fresh machine
    def __or__(self, other: "Frontier") -> "Frontier":
        """Union (one pass over the bitmap words)."""
        self._check(other)
        if self.is_all or other.is_all:
            return Frontier.all(self.backend, self.n)
        return Frontier(self.backend, self.n, bits=self.backend.bits_combine("or", self.bits, other.bits, self.n))

    def __and__(self, other: "Frontier") -> "Frontier":
        """Intersection."""
        self._check(other)
        if self.is_all:
            return other
        if other.is_all:
            return self
        return Frontier(self.backend, self.n, bits=self.backend.bits_combine("and", self.bits, other.bits, self.n))

    def __sub__(self, other: "Frontier") -> "Frontier":
        """Difference: the vertices of this frontier that are not in ``other``."""
        self._check(other)
        if other.is_all:
            return Frontier.empty(self.backend, self.n)
        if self.is_all:  # the complement: one pass, the words past n cleared
            return Frontier(self.backend, self.n, bits=self.backend.bits_combine("not", other.bits, None, self.n))
        return Frontier(self.backend, self.n, bits=self.backend.bits_combine("andnot", self.bits, other.bits, self.n))

    def degree_sum(self, offsets: np.ndarray) -> int:
        """Sum of the active vertices' degrees in the CSR with these (host) ``offsets``.

        Read from whichever form the frontier has, without converting it.
        """
        if self.is_all:
            return int(offsets[-1] - offsets[0])
        if self._ids is not None:
            return self.backend.degree_sum(offsets, ids=self.host_ids())
        return self.backend.degree_sum(offsets, bits=self._bits)
