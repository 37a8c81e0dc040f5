"""The CSR graph every layer of graphferry works on.

A :class:`Graph` holds out-edges in compressed sparse row form:

* ``offsets``: int64, ``n + 1`` entries; the out-edges of vertex ``v`` are
  ``indices[offsets[v]:offsets[v + 1]]``. 64-bit offsets are used throughout so
  graphs of more than 2**32 edges are representable (Subway overflowed at 6.4 B).
* ``indices``: int32 when ``n < 2**31``, else int64.
* ``weights``: float32, optional, parallel to ``indices``.

Undirected graphs are stored symmetrised (each edge once in each direction), so
``m`` counts directed arcs. The transpose (in-edges, used by pull-direction
kernels) is built lazily and cached; an undirected graph is its own transpose.

The arrays may be in-memory numpy arrays or read-only memory maps from a graph
store (:mod:`graphferry.store`): a partition's edges are then one contiguous
byte range of the file.

Example:
    >>> import numpy as np
    >>> from graphferry.graph import Graph
    >>> g = Graph.from_edges(np.array([0, 0, 1]), np.array([1, 2, 2]), n=3)
    >>> g.n, g.m, g.out_degree.tolist(), g.in_degree.tolist()
    (3, 3, [2, 1, 0], [0, 1, 2])
    >>> g.transpose().neighbors(2).tolist()
    [0, 1]
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

INDEX32_LIMIT = 2**31
#: Entries per block of the structural check: bounds the temporaries it makes
#: (a bool per entry) while keeping numpy's per-call overhead negligible.
CHECK_BLOCK = 1 << 24


class CSRError(ValueError):
    """CSR arrays that kernels must not read: names the array and the first bad position.

    ``array`` is ``"offsets"``, ``"indices"`` or ``"weights"``, ``position`` the
    index of the first bad entry in it, so a store can name its file.
    """

    def __init__(self, array: str, position: int, problem: str):
        self.array, self.position, self.problem = array, int(position), problem
        super().__init__(f"{array}[{position}]: {problem}")


def check_csr(offsets: np.ndarray, indices: np.ndarray) -> None:
    """Raise :class:`CSRError` unless kernels can read these arrays without leaving them.

    Holds when ``offsets`` starts at 0, never decreases and ends at
    ``len(indices)``, and every index lies in ``[0, n)``. Vectorised: one
    compare pass over ``offsets`` (in blocks), one ``max`` over ``indices`` seen
    as unsigned, so a negative id shows up as a huge one; on a memory-mapped
    store this reads every page of both files once (and so pages them in for
    the run that follows).

    Example:
        >>> check_csr(np.array([0, 1, 2]), np.array([1, 0], dtype=np.int32))
        >>> check_csr(np.array([0, 2, 1]), np.array([1], dtype=np.int32))
        Traceback (most recent call last):
        ...
        graphferry.graph.CSRError: offsets[2]: 1 is less than offsets[1] = 2 (offsets must never decrease)
        >>> check_csr(np.array([0, 1, 2]), np.array([1, -3], dtype=np.int32))
        Traceback (most recent call last):
        ...
        graphferry.graph.CSRError: indices[1]: vertex id -3 is outside [0, 2)
    """
    n = len(offsets) - 1
    m = len(indices)
    if n < 0:
        raise CSRError("offsets", 0, "offsets must have n + 1 >= 1 entries")
    if int(offsets[0]) != 0:
        raise CSRError("offsets", 0, f"{int(offsets[0])}, expected 0")
    if int(offsets[-1]) != m:
        raise CSRError("offsets", n, f"{int(offsets[-1])}, expected m = {m} (the number of indices)")
    for lo in range(0, n, CHECK_BLOCK):
        block = np.asarray(offsets[lo:lo + CHECK_BLOCK + 1])
        drops = block[1:] < block[:-1]
        if drops.any():
            k = lo + 1 + int(np.argmax(drops))
            raise CSRError("offsets", k, f"{int(offsets[k])} is less than offsets[{k - 1}] = "
                           f"{int(offsets[k - 1])} (offsets must never decrease)")
    if m == 0:
        return
    unsigned = np.dtype(f"u{indices.dtype.itemsize}")
    # One reduction per thread over its share of the array: max makes no temporaries (one call
    # measured 1.6x faster than the same work in 16 M-entry blocks on one thread), and numpy's
    # reduction releases the GIL, so the shares run at once: 4.2 GB of ids at Kronecker 25 took
    # about 0.5 s of one thread, most of a one-shot run's 'read' phase (0.6 s on the H200's host).
    if _parallel_max(np.asarray(indices).view(unsigned)) >= n:
        for lo in range(0, m, CHECK_BLOCK):  # find the first bad one (bounded temporaries)
            block = np.asarray(indices[lo:lo + CHECK_BLOCK])
            bad = (block < 0) | (block >= n)
            if bad.any():
                k = lo + int(np.argmax(bad))
                raise CSRError("indices", k, f"vertex id {int(indices[k])} is outside [0, {n})")


#: Arrays of at least this many entries are reduced by several threads (:func:`_parallel_max`).
PARALLEL_MAX_ENTRIES = 1 << 24


def _parallel_max(values: np.ndarray, min_entries: int | None = None) -> int:
    """``int(values.max())`` of a non-empty 1-D array, in one share per core (at most 16) where it
    holds at least ``min_entries`` entries (default :data:`PARALLEL_MAX_ENTRIES`).

    Example:
        >>> _parallel_max(np.array([3, 9, 2, 7], np.uint32), min_entries=1)
        9
    """
    import os

    threads = min(16, os.cpu_count() or 1)
    limit = PARALLEL_MAX_ENTRIES if min_entries is None else min_entries
    if threads < 2 or len(values) < max(limit, threads):
        return int(values.max())
    from concurrent.futures import ThreadPoolExecutor

    step = -(-len(values) // threads)
    with ThreadPoolExecutor(threads) as pool:
        return max(pool.map(lambda lo: int(values[lo:lo + step].max()), range(0, len(values), step)))


def index_dtype_for(n: int) -> np.dtype:
    """int32 vertex ids while they fit (half the edge bytes), int64 beyond."""
    return np.dtype(np.int32) if n < INDEX32_LIMIT else np.dtype(np.int64)


def offsets_from_degrees(degrees: np.ndarray) -> np.ndarray:
    """Exclusive prefix sum of degrees as int64 offsets (``n + 1`` entries).

    The sum is carried out in int64 whatever the input dtype, so degree arrays
    of int32 whose total exceeds 2**31 (or 2**32) do not wrap.
    """
    offsets = np.empty(len(degrees) + 1, dtype=np.int64)
    offsets[0] = 0
    np.cumsum(degrees, dtype=np.int64, out=offsets[1:])
    return offsets


def stable_order(keys: np.ndarray, n: int) -> np.ndarray:
    """``np.argsort(keys, kind="stable")`` for vertex ids ``0 <= keys < n``, about 5x faster.

    NumPy's stable sort of 32- and 64-bit ints is a merge sort (timsort); its
    default sort is a vectorised quicksort. Each key is made unique by its
    position in the low bits (``key << bits | i``), so the quicksort's order is
    the stable one, and the low bits of the sorted words are the permutation.
    Falls back to the stable argsort when ``n * len(keys)`` passes 2**63.

    Example:
        >>> stable_order(np.array([2, 0, 2, 1, 0]), 3).tolist()
        [1, 4, 3, 0, 2]
    """
    m = len(keys)
    bits = max((m - 1).bit_length(), 1)
    if m == 0 or max(n - 1, 1).bit_length() + bits > 63:
        return np.argsort(keys, kind="stable")
    words = keys.astype(np.int64) << bits
    words |= np.arange(m, dtype=np.int64)
    words.sort()
    words &= (1 << bits) - 1
    return words


def csr_from_edges(
    src: np.ndarray,
    dst: np.ndarray,
    n: int,
    weights: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Build CSR arrays from an in-memory edge list (stable: keeps input order per row)."""
    src = np.asarray(src)
    dst = np.asarray(dst)
    offsets = offsets_from_degrees(np.bincount(src, minlength=n) if len(src) else np.zeros(n, np.int64))
    order = stable_order(src, n)
    indices = dst[order].astype(index_dtype_for(n), copy=False)
    w = None if weights is None else np.asarray(weights, dtype=np.float32)[order]
    return offsets, indices, w


@dataclass(eq=False)
class Graph:
    """A directed or undirected graph in CSR form (see module docstring)."""

    offsets: np.ndarray
    indices: np.ndarray
    weights: np.ndarray | None = None
    directed: bool = True
    original_ids: np.ndarray | None = None
    name: str = "graph"
    meta: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.offsets.dtype != np.int64:
            raise TypeError(f"offsets must be int64, got {self.offsets.dtype}")
        if self.offsets.ndim != 1 or len(self.offsets) < 1:
            raise ValueError("offsets must be a 1-d array of n + 1 entries")
        if self.indices.dtype not in (np.int32, np.int64):
            raise TypeError(f"indices must be int32 or int64, got {self.indices.dtype}")
        # Every kernel trusts these invariants; checking them here means no
        # graph that reaches native code can make it read out of bounds.
        check_csr(self.offsets, self.indices)
        if self.weights is not None:
            if self.weights.dtype != np.float32:
                raise TypeError(f"weights must be float32, got {self.weights.dtype}")
            if len(self.weights) != len(self.indices):
                raise ValueError("weights and indices differ in length")
        if self.original_ids is not None and len(self.original_ids) != self.n:
            raise ValueError("original_ids must have one entry per vertex")
        self._transpose: Graph | None = None

    # ------------------------------------------------------------------ build
    @classmethod
    def from_edges(
        cls,
        src: np.ndarray,
        dst: np.ndarray,
        weights: np.ndarray | None = None,
        *,
        n: int | None = None,
        directed: bool = True,
        drop_self_loops: bool = False,
        drop_duplicates: bool = False,
        name: str = "graph",
    ) -> "Graph":
        """Build a graph from 0-based edge arrays.

        For ``directed=False`` each given edge is stored in both directions
        (a self-loop once). ``drop_duplicates`` keeps the first of repeated
        ``(src, dst)`` pairs; for undirected graphs ``(u, v)`` and ``(v, u)`` are
        the same edge, so both directions keep the first one's weight.
        """
        src, dst = np.asarray(src), np.asarray(dst)
        for which, arr in (("src", src), ("dst", dst)):
            # astype(int64) would truncate 0.5 to 0 and turn True into 1 silently
            if arr.size and arr.dtype.kind not in "iu":
                raise TypeError(f"{which} must hold integer vertex ids, got dtype {arr.dtype}")
        src = src.astype(np.int64, copy=False).ravel()
        dst = dst.astype(np.int64, copy=False).ravel()
        if src.shape != dst.shape:
            raise ValueError("src and dst differ in length")
        if weights is not None:
            weights = np.asarray(weights, dtype=np.float32).ravel()
            if weights.shape != src.shape:
                raise ValueError("weights and src differ in length")
        if len(src) and (src.min() < 0 or dst.min() < 0):
            raise ValueError("vertex ids must be non-negative")
        if n is None:
            n = int(max(src.max(initial=-1), dst.max(initial=-1))) + 1
        elif len(src) and max(int(src.max()), int(dst.max())) >= n:
            raise ValueError(f"an edge names vertex >= n = {n}")
        if drop_self_loops:
            keep = src != dst
            src, dst = src[keep], dst[keep]
            weights = None if weights is None else weights[keep]
        if not directed:
            # orient each edge (min, max) first so that duplicates given in either
            # direction collapse to one edge with one weight for both directions
            src, dst = np.minimum(src, dst), np.maximum(src, dst)
        if drop_duplicates and len(src):
            if n < 2**31:
                _, first = np.unique(src * np.int64(n) + dst, return_index=True)
            else:
                _, first = np.unique(np.stack([src, dst], 1), axis=0, return_index=True)
            first.sort()
            src, dst = src[first], dst[first]
            weights = None if weights is None else weights[first]
        if not directed:
            loops = src == dst
            rs, rd = dst[~loops], src[~loops]
            src, dst = np.concatenate([src, rs]), np.concatenate([dst, rd])
            if weights is not None:
                weights = np.concatenate([weights, weights[~loops]])
        offsets, indices, w = csr_from_edges(src, dst, n, weights)
        return cls(offsets, indices, w, directed=directed, name=name)

    # ------------------------------------------------------------ properties
    @property
    def n(self) -> int:
        return len(self.offsets) - 1

    @property
    def m(self) -> int:
        """Number of stored (directed) arcs."""
        return int(self.offsets[-1])

    @property
    def weighted(self) -> bool:
        return self.weights is not None

    @cached_property
    def out_degree(self) -> np.ndarray:
        return np.diff(self.offsets)

    @cached_property
    def in_degree(self) -> np.ndarray:
        if not self.directed:
            return self.out_degree
        return np.bincount(self.indices, minlength=self.n).astype(np.int64)

    @property
    def edge_bytes(self) -> int:
        """Bytes of per-edge data (indices plus weights) that an engine must move."""
        per_edge = self.indices.itemsize + (4 if self.weights is not None else 0)
        return self.m * per_edge

    @property
    def nbytes(self) -> int:
        return self.offsets.nbytes + self.edge_bytes

    def neighbors(self, v: int) -> np.ndarray:
        return self.indices[self.offsets[v] : self.offsets[v + 1]]

    def edge_weights(self, v: int) -> np.ndarray | None:
        if self.weights is None:
            return None
        return self.weights[self.offsets[v] : self.offsets[v + 1]]

    def edges(self) -> tuple[np.ndarray, np.ndarray]:
        """All arcs as (src, dst) int64 arrays (materialises m entries)."""
        src = np.repeat(np.arange(self.n, dtype=np.int64), self.out_degree)
        return src, self.indices.astype(np.int64)

    def transpose(self) -> "Graph":
        """The in-edge CSR (cached). An undirected graph returns itself."""
        if not self.directed:
            return self
        if self._transpose is None:
            src, dst = self.edges()
            offsets, indices, w = csr_from_edges(dst, src, self.n, self.weights)
            # the graph's own id type: kernels are compiled for it (int64 ids of a small graph stay int64)
            indices = indices.astype(self.indices.dtype, copy=False)
            self._transpose = Graph(offsets, indices, w, directed=True, name=f"{self.name}^T")
            self._transpose._transpose = self
        return self._transpose

    def to_scipy(self):
        """The adjacency as ``scipy.sparse.csr_array`` (weights, or 1.0 per edge)."""
        import scipy.sparse as sp

        data = self.weights if self.weights is not None else np.ones(self.m, dtype=np.float32)
        return sp.csr_array((data, self.indices, self.offsets), shape=(self.n, self.n))

    def to_original_ids(self, vertex_ids: np.ndarray) -> np.ndarray:
        """Map internal 0..n-1 ids to the ids of the input file (identity if not renumbered)."""
        if self.original_ids is None:
            return np.asarray(vertex_ids)
        return self.original_ids[np.asarray(vertex_ids)]

    def to_internal_id(self, original_id: Any) -> int:
        """Map an id of the input file to the internal id.

        Raises KeyError if no vertex has that id, TypeError for a value that
        cannot be a vertex id (a float or a bool: ``2.0`` or ``True`` would
        otherwise pass silently as vertex 2 or 1). String ids need a graph
        whose input had string ids. A graph from NetworkX nodes of other
        types (tuples, mixed labels: ``original_ids`` of dtype object) maps
        any of its labels, compared as NetworkX compares them (``==``).

        Example:
            >>> g = Graph.from_edges(np.array([0]), np.array([1]), n=2)
            >>> g.to_internal_id(1), g.to_internal_id(np.int64(0))
            (1, 0)
            >>> g.to_internal_id(1.0)
            Traceback (most recent call last):
            ...
            TypeError: vertex id must be an integer, got 1.0 (float)
        """
        ids = self.original_ids
        if ids is not None and ids.dtype == object:
            for i, label in enumerate(ids):
                if type(label) is type(original_id) and label == original_id:
                    return i
            for i, label in enumerate(ids):  # then NetworkX's own equality (1 == 1.0)
                if label == original_id:
                    return i
            raise KeyError(f"vertex {original_id!r} is not in the graph")
        is_text = isinstance(original_id, (str, np.str_))
        if isinstance(original_id, (bool, np.bool_)) or not (
                isinstance(original_id, (int, np.integer)) or is_text):
            kind = "an integer or a string" if ids is not None and ids.dtype.kind == "U" else "an integer"
            raise TypeError(f"vertex id must be {kind}, got {original_id!r} ({type(original_id).__name__})")
        if ids is None or ids.dtype.kind != "U":
            if is_text:
                raise TypeError(f"vertex id must be an integer, got {original_id!r} "
                                "(this graph's vertex ids are integers)")
            if ids is None:
                v = int(original_id)
                if not 0 <= v < self.n:
                    raise KeyError(f"vertex {original_id} is not in the graph (n = {self.n})")
                return v
        # a string is compared as it is: cast to the ids' width, "ab" would match a label "a"
        hits = np.flatnonzero(ids == (str(original_id) if is_text else np.asarray(original_id, dtype=ids.dtype)))
        if len(hits) == 0:
            raise KeyError(f"vertex {original_id} is not in the graph")
        return int(hits[0])

    def __repr__(self) -> str:
        kind = "directed" if self.directed else "undirected"
        w = ", weighted" if self.weighted else ""
        return f"Graph({self.name!r}, n={self.n}, m={self.m}, {kind}{w})"
