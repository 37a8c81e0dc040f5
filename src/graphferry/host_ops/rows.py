"""Rows of a CSR graph and sets of vertices: gathers, bitsets, degree sums, prefix sums,
degree orders and permutations, each one parallel pass on the host."""

from __future__ import annotations

import numpy as np

from ._library import _lib, _p


def compacted_offsets(offsets: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """Exclusive prefix sum of the degrees of ``ids`` (``len(ids) + 1`` entries)."""
    out = np.empty(len(ids) + 1, dtype=np.int64)
    out[0] = 0
    np.cumsum(offsets[ids + 1] - offsets[ids], out=out[1:])
    return out


def gather_rows(offsets, indices, weights, ids, out_indices=None, out_weights=None):
    """Compact the rows ``ids`` into (offsets, indices, weights), in parallel, GIL released.

    ``out_indices``/``out_weights`` may be preallocated (pinned) staging buffers of
    at least the gathered length; views of them are returned.
    """
    ids = np.ascontiguousarray(ids, dtype=np.int64)
    coff = compacted_offsets(offsets, ids)
    total = int(coff[-1])
    if out_indices is None:
        out_indices = np.empty(total, dtype=indices.dtype)
    if weights is not None and out_weights is None:
        out_weights = np.empty(total, dtype=weights.dtype)
    if len(out_indices) < total:
        raise ValueError(f"staging buffer holds {len(out_indices)} edges, {total} needed")
    if weights is not None and out_weights.dtype != weights.dtype:
        raise TypeError(f"staging buffer holds {out_weights.dtype} weights, the side's are {weights.dtype}")
    fn = _lib().gf_gather_i32 if indices.dtype == np.int32 else _lib().gf_gather_i64
    fn(_p(offsets), _p(indices), _p(weights), 0 if weights is None else weights.itemsize, _p(ids), len(ids),
       _p(coff), _p(out_indices), _p(out_weights if weights is not None else None))
    return coff, out_indices[:total], (out_weights[:total] if weights is not None else None)


# ------------------------------------------------------------------ frontiers
def bits_to_ids(bits: np.ndarray, count: int | None = None) -> np.ndarray:
    """Sorted int64 ids of the set bits of a uint32 bitmap (one parallel pass; ``count``:
    the number of set bits when already known).

    Example:
        >>> bits_to_ids(np.array([0b1010, 1], np.uint32)).tolist()
        [1, 3, 32]
    """
    bits = np.ascontiguousarray(bits, dtype=np.uint32)
    if count is None:
        count = popcount(bits)
    out = np.empty(count, np.int64)
    _lib().gf_bits_to_ids(_p(bits), len(bits), _p(out))
    return out


def ids_to_bits(ids: np.ndarray, words: int) -> np.ndarray:
    """A uint32 bitmap of ``words`` words with the bits of ``ids`` set.

    Example:
        >>> ids_to_bits(np.array([1, 3, 32]), 2).tolist()
        [10, 1]
    """
    ids = np.ascontiguousarray(ids, dtype=np.int64)
    bits = np.zeros(int(words), np.uint32)
    _lib().gf_ids_to_bits(_p(ids), len(ids), _p(bits))
    return bits


def popcount(bits: np.ndarray) -> int:
    """Number of set bits of a uint32 bitmap."""
    bits = np.ascontiguousarray(bits, dtype=np.uint32)
    return int(_lib().gf_popcount(_p(bits), len(bits)))


def degree_sum(offsets: np.ndarray, *, bits: np.ndarray | None = None, ids: np.ndarray | None = None) -> int:
    """Sum of the CSR degrees ``offsets[v + 1] - offsets[v]`` over a bitmap's set bits or over ``ids``.

    Example:
        >>> off = np.array([0, 2, 3, 7], np.int64)
        >>> degree_sum(off, ids=np.array([0, 2])), degree_sum(off, bits=np.array([0b110], np.uint32))
        (6, 5)
    """
    offsets = np.ascontiguousarray(offsets, dtype=np.int64)
    if bits is not None:
        bits = np.ascontiguousarray(bits, dtype=np.uint32)
        return int(_lib().gf_degree_sum(_p(offsets), _p(bits), len(bits), None, 0))
    ids = np.ascontiguousarray(ids, dtype=np.int64)
    return int(_lib().gf_degree_sum(_p(offsets), None, 0, _p(ids), len(ids)))


def rows_simple(offsets, indices) -> bool:
    """True when every CSR row is strictly increasing with no self-loop (a simple graph's rows).

    Example:
        >>> rows_simple(np.array([0, 2, 3], np.int64), np.array([1, 0, 0], np.int32))   # row 0 not sorted
        False
        >>> rows_simple(np.array([0, 1, 2], np.int64), np.array([1, 0], np.int32))
        True
    """
    offsets = np.ascontiguousarray(offsets, dtype=np.int64)
    indices = np.ascontiguousarray(indices)
    fn = _lib().gf_rows_simple_i32 if indices.dtype == np.int32 else _lib().gf_rows_simple_i64
    return bool(fn(len(offsets) - 1, _p(offsets), _p(indices)))


# ------------------------------------------------------------------ triangle DAG
def unordered_transpose(offsets, indices):
    """The transpose's (offsets, indices), rows in no particular order, in one parallel fill.

    Example:
        >>> o, i = unordered_transpose(np.array([0, 2, 3, 3], np.int64), np.array([1, 2, 2], np.int32))
        >>> o.tolist(), sorted(i[o[2]:o[3]].tolist())
        ([0, 0, 1, 3], [0, 1])
    """
    offsets = np.ascontiguousarray(offsets, dtype=np.int64)
    indices = np.ascontiguousarray(indices)
    n = len(offsets) - 1
    t_offsets = np.zeros(n + 1, np.int64)
    np.cumsum(np.bincount(indices, minlength=n), out=t_offsets[1:])
    pos = t_offsets[:-1].copy()
    t_indices = np.empty(len(indices), indices.dtype)
    fn = _lib().gf_transpose_fill_i32 if indices.dtype == np.int32 else _lib().gf_transpose_fill_i64
    fn(n, _p(offsets), _p(indices), _p(pos), _p(t_indices))
    return t_offsets, t_indices


def prefix_sum(counts: np.ndarray) -> np.ndarray:
    """CSR offsets of ``counts``: ``[0, c0, c0 + c1, ...]`` (int64, ``len(counts) + 1``), in parallel.

    Example:
        >>> prefix_sum(np.array([2, 0, 3], np.int64)).tolist()
        [0, 2, 2, 5]
    """
    counts = np.ascontiguousarray(counts, dtype=np.int64)
    out = np.empty(len(counts) + 1, np.int64)
    _lib().gf_prefix_sum(_p(counts), len(counts), _p(out))
    return out


def degree_order(degree: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(order, rank)``: vertices sorted by ``(degree, id)`` and each one's place in that order.

    A parallel stable counting sort (``np.argsort(degree, kind="stable")`` on one
    thread gives the same ``order``); ``rank[order[r]] = r``.

    Example:
        >>> order, rank = degree_order(np.array([3, 1, 3, 0, 1], np.int64))
        >>> order.tolist(), rank.tolist()
        ([3, 1, 4, 0, 2], [3, 1, 4, 0, 2])
    """
    degree = np.ascontiguousarray(degree, dtype=np.int64)
    if len(degree) and degree.min() < 0:
        raise ValueError("degree_order: degrees must be non-negative")
    order = np.empty(len(degree), np.int64)
    rank = np.empty(len(degree), np.int64)
    _lib().gf_degree_order(len(degree), _p(degree), _p(order), _p(rank))
    return order, rank


def unpermute(values: np.ndarray, order: np.ndarray) -> np.ndarray:
    """``out[order[i]] = values[i]`` (int64; ``order`` a permutation of ``range(len(values))``), in parallel.

    Example:
        >>> unpermute(np.array([10, 20, 30]), np.array([2, 0, 1])).tolist()
        [20, 30, 10]
    """
    values = np.ascontiguousarray(values, dtype=np.int64)
    order = np.ascontiguousarray(order, dtype=np.int64)
    if len(order) != len(values):
        raise ValueError(f"unpermute: {len(values)} values for an order of {len(order)}")
    out = np.empty(len(values), np.int64)
    _lib().gf_unpermute_i64(_p(values), _p(order), len(values), _p(out))
    return out


def smallest_members(labels: np.ndarray) -> int | None:
    """How many groups ``labels`` names when each vertex's label is its group's smallest vertex
    (every label a vertex labelled by itself, none above the vertex it labels); None otherwise.
    One parallel pass.

    Example:
        >>> smallest_members(np.array([0, 0, 2, 2, 0])), smallest_members(np.array([1, 1, 2]))
        (2, None)
    """
    labels = np.ascontiguousarray(labels, dtype=np.int64)
    count = int(_lib().gf_smallest_members(_p(labels), len(labels)))
    return None if count < 0 else count
