"""Host-side helpers shared by engines on every backend (compiled once, C++ + OpenMP).

Example:
    >>> import numpy as np
    >>> from graphferry.backends.cpu.host_ops import gather_rows
    >>> offsets = np.array([0, 2, 3, 5], dtype=np.int64)
    >>> indices = np.array([1, 2, 0, 0, 1], dtype=np.int32)
    >>> off, idx, w = gather_rows(offsets, indices, None, np.array([0, 2]))
    >>> off.tolist(), idx.tolist()
    ([0, 2, 4], [1, 2, 0, 1])
"""

from __future__ import annotations

import ctypes
import logging
import time
from functools import lru_cache

import numpy as np

from .compiler import compile_library

_P = ctypes.c_void_p
log = logging.getLogger(__name__)


@lru_cache(maxsize=1)
def _lib():
    lib = compile_library('#include "gf_host_ops.h"\n', label="host_ops")
    for name in ("gf_gather_i32", "gf_gather_i64"):
        f = getattr(lib, name)
        f.argtypes = [_P, _P, _P, ctypes.c_int64, _P, ctypes.c_int64, _P, _P, _P]
        f.restype = None
    _I = ctypes.c_int64
    for name, args, res in (("gf_bits_to_ids", [_P, _I, _P], _I), ("gf_ids_to_bits", [_P, _I, _P], None),
                            ("gf_popcount", [_P, _I], _I), ("gf_degree_sum", [_P, _P, _I, _P, _I], _I)):
        f = getattr(lib, name)
        f.argtypes, f.restype = args, res
    for name in ("gf_fill8", "gf_fill16", "gf_fill32", "gf_fill64"):
        f = getattr(lib, name)
        f.argtypes, f.restype = [_P, _I, ctypes.c_uint64], None
    for name in ("gf_iota32", "gf_iota64"):
        f = getattr(lib, name)
        f.argtypes, f.restype = [_P, _I], None
    lib.gf_copy_bytes.argtypes, lib.gf_copy_bytes.restype = [_P, _P, _I], None
    lib.gf_contract_arc_bytes.argtypes, lib.gf_contract_arc_bytes.restype = [], _I
    _D = ctypes.c_double
    for t in ("f32", "f64"):
        f = getattr(lib, f"gf_bucket_split_{t}")
        f.argtypes, f.restype = [_P, _I, _P, _D, _I, _I, _P, _P], None
        f = getattr(lib, f"gf_bucket_keep_{t}")
        f.argtypes, f.restype = [_P, _I, _P, _D, _I, _P], _I
        f = getattr(lib, f"gf_bucket_range_{t}")
        f.argtypes, f.restype = [_P, _I, _P, _D, _P], None
    lib.gf_check_weights.argtypes, lib.gf_check_weights.restype = [_P, _I, _P], None
    lib.gf_weight_width.argtypes, lib.gf_weight_width.restype = [_P, _I], _I
    lib.gf_narrow_weights.argtypes, lib.gf_narrow_weights.restype = [_P, _I, _I, _P], None
    lib.gf_pack_indices.argtypes, lib.gf_pack_indices.restype = [_P, _I, _I, _P], None
    for name in ("gf_transpose_fill_i32", "gf_transpose_fill_i64"):
        f = getattr(lib, name)
        f.argtypes, f.restype = [_I, _P, _P, _P, _P], None
    for name in ("gf_rows_simple_i32", "gf_rows_simple_i64"):
        f = getattr(lib, name)
        f.argtypes, f.restype = [_I, _P, _P], _I
    for name in ("gf_dag_pass_i32", "gf_dag_pass_i64"):
        f = getattr(lib, name)
        f.argtypes, f.restype = [ctypes.c_int, ctypes.c_int, _I, _P, _P, _P, _P, _P, _P, _P, _P], None
    lib.gf_prefix_sum.argtypes, lib.gf_prefix_sum.restype = [_P, _I, _P], None
    lib.gf_degree_order.argtypes, lib.gf_degree_order.restype = [_I, _P, _P, _P], None
    lib.gf_unpermute_i64.argtypes, lib.gf_unpermute_i64.restype = [_P, _P, _I, _P], None
    lib.gf_smallest_members.argtypes, lib.gf_smallest_members.restype = [_P, _I], _I
    lib.gf_rows_of.argtypes, lib.gf_rows_of.restype = [_P, _I, _P, _I, _P], None
    for t in ("i32", "i64"):
        for name, args, res in (("gf_subgraph", [ctypes.c_int, _I, _P, _P, _P, _P, _P, _P, _P, _P, _P], None),
                                ("gf_arcs_where", [ctypes.c_int, _I, _P, _P, _P, _P, _P, _P], _I),
                                ("gf_simple_weighted", [ctypes.c_int, _I] + [_P] * 10, None),
                                ("gf_find_arcs", [_P, _P, _P, _P, _I, _P], None),
                                ("gf_label_arcs", [_I, _P, _P, _P, _P, _P, _P], None),
                                ("gf_top_label", [_I, _P, _P, _P, _P, _P], None),
                                ("gf_contract_pass", [ctypes.c_int, _I, _I, _P, _P, _P, _P, _P, _I, _P, _P, _P], None),
                                ("gf_contract_out", [_I, _P, _P, _P, _P, _P], None),
                                ("gf_cut_min_keys", [_I, _I, _P, _P, _P, _P, _P], None)):
            f = getattr(lib, f"{name}_{t}")
            f.argtypes, f.restype = args, res
    for t in _STATE_TYPES.values():
        f = getattr(lib, f"gf_reduce_f_{t}")
        f.argtypes, f.restype = [_P, _P, _I, ctypes.c_int], _D
        f = getattr(lib, f"gf_reduce_i_{t}")
        f.argtypes, f.restype = [_P, _P, _I, ctypes.c_int], _I
        f = getattr(lib, f"gf_select_{t}")
        f.argtypes, f.restype = [_P, _P, _I, _D, _D, _P], _I
        f = getattr(lib, f"gf_select_bits_{t}")
        f.argtypes, f.restype = [_P, _I, _D, _D, _P], None
        for d in _STATE_TYPES.values():
            f = getattr(lib, f"gf_convert_{t}_{d}")
            f.argtypes, f.restype = [_P, _P, _I], None
    return lib


#: dtypes the vertex-state helpers take, and their C++ suffixes
_STATE_TYPES = {np.dtype(np.int32): "i32", np.dtype(np.int64): "i64",
                np.dtype(np.float32): "f32", np.dtype(np.float64): "f64"}


def _p(a) -> int:
    return 0 if a is None else int(a.ctypes.data)


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


def degree_ordered_dag(offsets, indices, t_offsets=None, t_indices=None, *, simple: bool = False,
                       by_degree: bool = True):
    """The undirected simple view relabelled by ``(degree, id)`` and oriented upwards, in C++.

    ``offsets``/``indices``: a CSR; ``t_offsets``/``t_indices``: its transpose
    for a directed graph (None when the CSR is symmetric). Self-loops and
    repeated edges are dropped. ``simple=True`` promises a symmetric CSR whose
    rows are strictly increasing without self-loops (``transforms.is_simple``):
    the passes then read the rows in place. Returns ``(dag_offsets, dag_indices,
    order, degree)``: row ``r`` of the DAG holds the sorted labels above ``r`` of
    the neighbours of vertex ``order[r]``; ``degree[v] = |N(v)|``. With
    ``by_degree=False`` the labels are the ids (``order`` is the identity): each
    row is its simple row's part above the vertex, no relabelling and no sort
    (where degrees are even, as GAPBS ``tc`` decides). Memory: the DAG and a few
    n-sized arrays; no edge list. Every step is a parallel pass; each one's
    seconds are logged at DEBUG (``dag <step> <seconds> s``).

    Example:
        >>> off = np.array([0, 2, 4, 6, 6], np.int64)        # triangle 0-1-2, vertex 3 alone
        >>> idx = np.array([1, 2, 0, 2, 0, 1], np.int32)
        >>> o, i, order, deg = degree_ordered_dag(off, idx)
        >>> o.tolist(), i.tolist(), order.tolist(), deg.tolist()
        ([0, 0, 2, 3, 3], [2, 3, 3], [3, 0, 1, 2], [2, 2, 2, 0])
        >>> [a.tolist() for a in degree_ordered_dag(off, idx, simple=True)] == [o.tolist(), i.tolist(),
        ...                                                                   order.tolist(), deg.tolist()]
        True
        >>> o, i, order, _ = degree_ordered_dag(off, idx, by_degree=False)
        >>> o.tolist(), i.tolist(), order.tolist()
        ([0, 2, 3, 3, 3], [1, 2, 2], [0, 1, 2, 3])
    """
    lib = _lib()
    indices = np.ascontiguousarray(indices)
    fn = lib.gf_dag_pass_i32 if indices.dtype == np.int32 else lib.gf_dag_pass_i64
    offsets = np.ascontiguousarray(offsets, dtype=np.int64)
    if t_indices is not None:
        if simple:
            raise ValueError("degree_ordered_dag: simple=True promises a symmetric CSR, but a transpose was given")
        t_offsets = np.ascontiguousarray(t_offsets, dtype=np.int64)
        t_indices = np.ascontiguousarray(t_indices, dtype=indices.dtype)
    n = len(offsets) - 1
    graph = (int(simple), n, _p(offsets), _p(indices), _p(t_offsets), _p(t_indices))
    clock = _StepClock("dag")
    degree = np.empty(n, np.int64)
    fn(0, *graph, None, _p(degree), None, None)
    clock.step("degree")
    if by_degree:
        order, rank = degree_order(degree)              # by degree, then id
    else:
        order, rank = vertex_ids(n, np.int64), None     # by id
    clock.step("order")
    counts = np.empty(n, np.int64)
    fn(1, *graph, _p(rank), _p(counts), None, None)
    clock.step("count")
    dag_offsets = prefix_sum(counts)
    del counts
    clock.step("offsets")
    dag_indices = np.empty(int(dag_offsets[-1]), indices.dtype)
    fn(2, *graph, _p(rank), None, _p(dag_offsets), _p(dag_indices))
    clock.step("fill")
    return dag_offsets, dag_indices, order, degree


class _StepClock:
    """Logs each step's seconds at DEBUG (``<what> <step> <seconds> s``); nothing when DEBUG is off."""

    def __init__(self, what: str):
        self.what = what
        self.on = log.isEnabledFor(logging.DEBUG)
        self.t = time.perf_counter() if self.on else 0.0

    def step(self, name: str) -> None:
        if self.on:
            now = time.perf_counter()
            log.debug("%s %s %.6f s", self.what, name, now - self.t)
            self.t = now


# ------------------------------------------------------------------ subgraphs and contraction
def _index_suffix(indices: np.ndarray) -> str:
    return "i32" if indices.dtype == np.int32 else "i64"


def _csr_parts(offsets, indices):
    offsets = np.ascontiguousarray(offsets, dtype=np.int64)
    indices = np.ascontiguousarray(indices)
    if indices.dtype not in (np.int32, np.int64):
        indices = indices.astype(np.int64)
    return offsets, indices


def subgraph(offsets, indices, weights, rows, new_id, flags=None):
    """The rows ``rows`` (sorted) of a CSR, each keeping the arcs to vertices ``v`` with
    ``new_id[v] >= 0``, renumbered by ``new_id``; with ``flags`` (uint8 per vertex: bit 0 a block
    vertex, bit 1 a neighbour of the block) only the arcs that touch the block or join two of its
    neighbours (HyPar's ghost edges). Returns ``(offsets, indices, weights)`` (indices of the
    input's dtype); two parallel passes over the rows, no edge list.

    Example (the subgraph induced by vertices 0 and 2 of a triangle plus a pendant 3):
        >>> off = np.array([0, 2, 4, 7, 8], np.int64); idx = np.array([1, 2, 0, 2, 0, 1, 3, 2], np.int32)
        >>> o, i, w = subgraph(off, idx, None, np.array([0, 2]), np.array([0, -1, 1, -1]))
        >>> o.tolist(), i.tolist(), w
        ([0, 1, 2], [1, 0], None)
    """
    offsets, indices = _csr_parts(offsets, indices)
    rows = np.ascontiguousarray(rows, dtype=np.int64)
    new_id = np.ascontiguousarray(new_id, dtype=np.int64)
    if weights is not None:
        weights = np.ascontiguousarray(weights, dtype=np.float32)
    if flags is not None:
        flags = np.ascontiguousarray(flags, dtype=np.uint8)
    fn = getattr(_lib(), f"gf_subgraph_{_index_suffix(indices)}")
    k = len(rows)
    counts = np.empty(k, np.int64)
    fn(0, k, _p(rows), _p(offsets), _p(indices), None, _p(new_id), _p(flags), _p(counts), None, None)
    out_offsets = np.empty(k + 1, np.int64)
    out_offsets[0] = 0
    np.cumsum(counts, out=out_offsets[1:])
    total = int(out_offsets[-1])
    out_indices = np.empty(total, indices.dtype)
    out_weights = None if weights is None else np.empty(total, np.float32)
    fn(1, k, _p(rows), _p(offsets), _p(indices), _p(weights), _p(new_id), _p(flags), _p(out_offsets),
       _p(out_indices), _p(out_weights))
    return out_offsets, out_indices, out_weights


def simple_weighted(offsets, indices, weights, t_offsets=None, t_indices=None, t_weights=None):
    """The simple view of a weighted CSR, rows merged with the transpose's when it is given (a
    directed graph's undirected view): each row's neighbours sorted and distinct, each with the
    least weight of the arcs it stands for, self-loops dropped. Returns ``(offsets, indices,
    weights)`` (indices of the input's dtype, float32 weights); two parallel passes over the rows
    (count, fill), no edge list.

    Example (a repeated edge, a self-loop, unsorted rows):
        >>> off = np.array([0, 3, 5, 6], np.int64); idx = np.array([2, 1, 1, 1, 0, 0], np.int32)
        >>> w = np.array([5, 4, 2, 7, 2, 5], np.float32)
        >>> o, i, ww = simple_weighted(off, idx, w)
        >>> o.tolist(), i.tolist(), ww.tolist()
        ([0, 2, 3, 4], [1, 2, 0, 0], [2.0, 5.0, 2.0, 5.0])
    """
    offsets, indices = _csr_parts(offsets, indices)
    weights = np.ascontiguousarray(weights, dtype=np.float32)
    if t_offsets is not None:
        t_offsets = np.ascontiguousarray(t_offsets, dtype=np.int64)
        t_indices = np.ascontiguousarray(t_indices, dtype=indices.dtype)
        t_weights = np.ascontiguousarray(t_weights, dtype=np.float32)
    fn = getattr(_lib(), f"gf_simple_weighted_{_index_suffix(indices)}")
    n = len(offsets) - 1
    counts = np.empty(n, np.int64)
    args = (n, _p(offsets), _p(indices), _p(weights), _p(t_offsets), _p(t_indices), _p(t_weights))
    fn(0, *args, _p(counts), None, None, None)
    out_offsets = prefix_sum(counts)
    total = int(out_offsets[-1])
    out_indices = np.empty(total, indices.dtype)
    out_weights = np.empty(total, np.float32)
    fn(1, *args, None, _p(out_offsets), _p(out_indices), _p(out_weights))
    return out_offsets, out_indices, out_weights


def arcs_where(offsets, indices, group, *, clash: bool = False, groups_too: bool = True):
    """The arcs ``(u, v)`` of a CSR with ``group[u] != group[v]`` (or, with ``clash``, with
    ``group[u] == group[v]`` and ``u < v``), in CSR order: ``(positions, group[u], group[v])``
    (the last two None unless ``groups_too``); one parallel pass over the arcs, ordered.

    Example:
        >>> off = np.array([0, 2, 4, 7, 8], np.int64); idx = np.array([1, 2, 0, 2, 0, 1, 3, 2], np.int32)
        >>> pos, a, b = arcs_where(off, idx, np.array([0, 0, 1, 1]))
        >>> pos.tolist(), a.tolist(), b.tolist()
        ([1, 3, 4, 5], [0, 0, 1, 1], [1, 1, 0, 0])
        >>> arcs_where(off, idx, np.array([5, 6, 5, 5]), clash=True, groups_too=False)[0].tolist()
        [1, 6]
    """
    offsets, indices = _csr_parts(offsets, indices)
    group = np.ascontiguousarray(group, dtype=np.int64)
    n = len(offsets) - 1
    m = int(offsets[-1])
    fn = getattr(_lib(), f"gf_arcs_where_{_index_suffix(indices)}")
    # the output is at most m arcs; most calls keep few of them (a first pass counting would cost
    # as much as the filling one), so the buffers are m long and trimmed
    pos = np.empty(m, np.int64)
    a = np.empty(m, np.int64) if groups_too else None
    b = np.empty(m, np.int64) if groups_too else None
    kept = fn(1 if clash else 0, n, _p(offsets), _p(indices), _p(group), _p(pos), _p(a), _p(b))
    trim = (lambda x: None if x is None else x[:kept].copy())
    return trim(pos), trim(a), trim(b)


def contract(offsets, indices, weights, group, k: int, bounds=None):
    """The quotient CSR of the grouping ``group`` (each vertex's group, in ``0..k-1``): arcs inside
    a group dropped, the arcs between two groups merged into one standing for the lightest of them
    (then the first in CSR order; the first when ``weights`` is None). Returns ``(offsets,
    indices, rep)``: rows sorted, ``rep`` each quotient arc's position in the input CSR. In
    parallel, no edge list: the arcs between groups bucketed by group, each bucket sorted.
    ``bounds`` (ascending vertex ids from 0 to n): ranges ``[bounds[i], bounds[i + 1])`` inside
    which every arc joins one group (rows must be sorted); only the arcs leaving a range are read.

    Example (groups {0, 1} and {2, 3} of a path 0-1-2-3 with a chord 0-2):
        >>> off = np.array([0, 2, 4, 7, 8], np.int64); idx = np.array([1, 2, 0, 2, 0, 1, 3, 2], np.int32)
        >>> w = np.array([1, 5, 1, 3, 5, 3, 1, 1], np.float32)
        >>> o, i, rep = contract(off, idx, w, np.array([0, 0, 1, 1]), 2)
        >>> o.tolist(), i.tolist(), rep.tolist(), w[rep].tolist()
        ([0, 1, 2], [1, 0], [3, 5], [3.0, 3.0])
    """
    offsets, indices = _csr_parts(offsets, indices)
    group = np.ascontiguousarray(group, dtype=np.int64)
    if weights is not None:
        weights = np.ascontiguousarray(weights, dtype=np.float32)
    lib = _lib()
    fn = getattr(lib, f"gf_contract_pass_{_index_suffix(indices)}")
    n = len(offsets) - 1
    nb = 0
    if bounds is not None:
        bounds = np.ascontiguousarray(bounds, dtype=np.int64)
        nb = len(bounds) - 1
    common = (n, k, _p(offsets), _p(indices), _p(weights), _p(group), _p(bounds), nb)
    bucket_off = np.zeros(k + 1, np.int64)
    fn(0, *common, _p(bucket_off), None, None)
    np.cumsum(bucket_off, out=bucket_off)
    arcs = np.empty(int(bucket_off[-1]) * int(lib.gf_contract_arc_bytes()), np.uint8)
    kept = bucket_off[:-1].copy()
    fn(1, *common, _p(bucket_off), _p(arcs), _p(kept))
    fn(2, *common, _p(bucket_off), _p(arcs), _p(kept))
    q_offsets = np.empty(k + 1, np.int64)
    q_offsets[0] = 0
    np.cumsum(kept, out=q_offsets[1:])
    q_indices = np.empty(int(q_offsets[-1]), indices.dtype)
    rep = np.empty(int(q_offsets[-1]), np.int64)
    getattr(lib, f"gf_contract_out_{_index_suffix(indices)}")(k, _p(bucket_off), _p(arcs), _p(q_offsets),
                                                              _p(q_indices), _p(rep))
    return q_offsets, q_indices, rep


def cut_min_keys(offsets, indices, weights, lo: int, hi: int):
    """For each vertex of the range ``[lo, hi)`` of a symmetric CSR, its lightest arc leaving the
    range as Boruvka's key (order-preserving weight bits above the edge's lower end) and the edge's
    higher end (least key, then least higher end; ``2**64 - 1`` and ``2**63 - 1`` where none).
    Weights None: all 1. One parallel pass over the range's rows.

    Example (range {0, 1} of the path 0-1-2-3 with a chord 0-2 of weight 5, the others 1):
        >>> off = np.array([0, 2, 4, 7, 8], np.int64); idx = np.array([1, 2, 0, 2, 0, 1, 3, 2], np.int32)
        >>> w = np.array([1, 5, 1, 1, 5, 1, 1, 1], np.float32)
        >>> key, hi = cut_min_keys(off, idx, w, 0, 2)
        >>> (key >> np.uint64(32)).tolist() == [0x80000000 | 0x40A00000, 0x80000000 | 0x3F800000], hi.tolist()
        (True, [2, 2])
    """
    offsets, indices = _csr_parts(offsets, indices)
    if weights is not None:
        weights = np.ascontiguousarray(weights, dtype=np.float32)
    key = np.empty(hi - lo, np.uint64)
    higher = np.empty(hi - lo, np.int64)
    getattr(_lib(), f"gf_cut_min_keys_{_index_suffix(indices)}")(int(lo), int(hi), _p(offsets), _p(indices),
                                                                 _p(weights), _p(key), _p(higher))
    return key, higher


def find_arcs(offsets, indices, a, b) -> np.ndarray:
    """CSR positions of the arcs ``(a[i], b[i])`` (rows sorted), -1 where absent; in parallel.

    Example:
        >>> off = np.array([0, 2, 4, 7, 8], np.int64); idx = np.array([1, 2, 0, 2, 0, 1, 3, 2], np.int32)
        >>> find_arcs(off, idx, np.array([2, 0, 3]), np.array([3, 2, 0])).tolist()
        [6, 1, -1]
    """
    offsets, indices = _csr_parts(offsets, indices)
    a = np.ascontiguousarray(a, dtype=np.int64)
    b = np.ascontiguousarray(b, dtype=np.int64)
    pos = np.empty(len(a), np.int64)
    getattr(_lib(), f"gf_find_arcs_{_index_suffix(indices)}")(_p(offsets), _p(indices), _p(a), _p(b), len(a), _p(pos))
    return pos


def rows_of(offsets: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """The row of each CSR position (``np.searchsorted(offsets, positions, side="right") - 1``),
    searched in parallel.

    Example:
        >>> rows_of(np.array([0, 2, 2, 5], np.int64), np.array([4, 0, 2, 1])).tolist()
        [2, 0, 2, 0]
    """
    offsets = np.ascontiguousarray(offsets, dtype=np.int64)
    positions = np.ascontiguousarray(positions, dtype=np.int64)
    rows = np.empty(len(positions), np.int64)
    _lib().gf_rows_of(_p(offsets), len(offsets) - 1, _p(positions), len(positions), _p(rows))
    return rows


def label_arcs(offsets, indices, labels, part=None):
    """Per vertex ``u``: the arcs to a neighbour with ``u``'s label, and (when ``part`` is given,
    else None) the arcs to a neighbour of another part; one parallel pass over the rows.

    Example:
        >>> off = np.array([0, 2, 4, 7, 8], np.int64); idx = np.array([1, 2, 0, 2, 0, 1, 3, 2], np.int32)
        >>> same, cross = label_arcs(off, idx, np.array([0, 0, 0, 3]), np.array([0, 0, 1, 1]))
        >>> same.tolist(), cross.tolist()
        ([2, 2, 2, 0], [1, 1, 2, 0])
    """
    offsets, indices = _csr_parts(offsets, indices)
    labels = np.ascontiguousarray(labels, dtype=np.int64)
    n = len(offsets) - 1
    same = np.empty(n, np.int64)
    cross = None
    if part is not None:
        part = np.ascontiguousarray(part, dtype=np.int64)
        cross = np.empty(n, np.int64)
    getattr(_lib(), f"gf_label_arcs_{_index_suffix(indices)}")(n, _p(offsets), _p(indices), _p(labels), _p(part),
                                                              _p(same), _p(cross))
    return same, cross


def top_label_count(offsets, indices, labels, rows) -> np.ndarray:
    """For each of ``rows``: how many of its neighbours carry their most frequent label (0 for none).

    Example:
        >>> off = np.array([0, 2, 4, 7, 8], np.int64); idx = np.array([1, 2, 0, 2, 0, 1, 3, 2], np.int32)
        >>> top_label_count(off, idx, np.array([0, 0, 3, 3]), np.array([2, 3])).tolist()
        [2, 1]
    """
    offsets, indices = _csr_parts(offsets, indices)
    labels = np.ascontiguousarray(labels, dtype=np.int64)
    rows = np.ascontiguousarray(rows, dtype=np.int64)
    most = np.empty(len(rows), np.int64)
    getattr(_lib(), f"gf_top_label_{_index_suffix(indices)}")(len(rows), _p(rows), _p(offsets), _p(indices),
                                                            _p(labels), _p(most))
    return most


def check_weights(weights: np.ndarray) -> tuple[int, bool]:
    """(index of the first negative, NaN or infinite weight or -1, whether every weight is an
    integer of at most 2**24), in one parallel pass without temporaries.

    Example:
        >>> check_weights(np.array([1, 0, np.nan, -1], np.float32)), check_weights(np.array([2, 0.5], np.float32))
        ((2, False), (-1, False))
        >>> check_weights(np.array([3, 255], np.float32)), check_weights(np.array([1, np.inf], np.float32))
        ((-1, True), (1, False))
    """
    w = np.ascontiguousarray(weights, dtype=np.float32)
    out = np.empty(2, np.int64)
    _lib().gf_check_weights(_p(w), len(w), _p(out))
    return int(out[0]), bool(out[1])


def weight_width(weights: np.ndarray) -> int:
    """Bytes a weight needs: 1 or 2 when every weight is an integer that fits uint8 / uint16
    (:func:`narrow_weights` makes that copy), else 4 (float32). One parallel pass.

    Example:
        >>> weight_width(np.array([1, 255], np.float32)), weight_width(np.array([1, 300], np.float32)), weight_width(np.array([0.5], np.float32))
        (1, 2, 4)
    """
    w = np.ascontiguousarray(weights, dtype=np.float32)
    return int(_lib().gf_weight_width(_p(w), len(w)))


def narrow_weights(weights: np.ndarray, alloc=None) -> np.ndarray | None:
    """``weights`` (float32) as uint8 or uint16 when every one is an integer that fits (else None):
    a weighted edge then takes 5 or 6 bytes instead of 8 (int32 ids), on the bus and in device
    memory. Two parallel passes; ``alloc(count, dtype)`` makes the output (pinned memory, say).

    Example:
        >>> narrow_weights(np.array([1, 255, 0], np.float32)).tolist(), narrow_weights(np.array([1, 300], np.float32)).dtype
        ([1, 255, 0], dtype('uint16'))
        >>> narrow_weights(np.array([1, 0.5], np.float32)), narrow_weights(np.array([-0.0, 1], np.float32))
        (None, None)
    """
    w = np.ascontiguousarray(weights, dtype=np.float32)
    width = weight_width(w)
    if width == 4:
        return None
    dtype = np.uint8 if width == 1 else np.uint16
    out = alloc(len(w), dtype) if alloc is not None else np.empty(len(w), dtype)
    _lib().gf_narrow_weights(_p(w), len(w), width, _p(out))
    return out


def id_bits(n: int) -> int:
    """Bits a vertex id of a graph of ``n`` vertices needs (at least 1).

    Example:
        >>> id_bits(1), id_bits(2), id_bits(1 << 25), id_bits((1 << 25) + 1)
        (1, 1, 25, 26)
    """
    return max(1, (int(n) - 1).bit_length())


def packed_words(m: int, bits: int) -> int:
    """Words (4 bytes each) of ``m`` ids packed in ``bits``-bit fields (:func:`pack_indices`)."""
    return ((int(m) + 31) // 32) * int(bits)


def pack_indices(indices: np.ndarray, bits: int, alloc=None) -> np.ndarray:
    """int32 vertex ids, each below ``2**bits``, packed in ``bits``-bit fields (1 to 31): id ``j``
    is bits ``[j * bits, (j + 1) * bits)`` of the little-endian stream of 32-bit words returned
    (typed int32 so that buffers of a graph's vertex-id type hold them). 32 ids take ``bits``
    words exactly, so any range of edges starting at a multiple of 32 starts on a word. Edges
    of a graph of 2^25 vertices move 25 bits instead of 32 (kernels read them with ``GfPackedIds``).
    One parallel pass; ``alloc(count, dtype)`` makes the output (pinned memory, say).

    Example:
        >>> w = pack_indices(np.array([5, 0, 7, 3], np.int32), 3)
        >>> len(w), unpack_indices(w, 3, 4).tolist()
        (3, [5, 0, 7, 3])
    """
    idx = np.ascontiguousarray(indices)
    if idx.dtype != np.int32 or not 1 <= bits <= 31:
        raise ValueError(f"packing takes int32 ids and 1 to 31 bits, got {idx.dtype} and {bits}")
    count = packed_words(len(idx), bits)
    out = alloc(count, np.int32) if alloc is not None else np.empty(count, np.int32)
    _lib().gf_pack_indices(_p(idx), len(idx), int(bits), _p(out))
    return out


def unpack_indices(words: np.ndarray, bits: int, m: int) -> np.ndarray:
    """The ``m`` ids of :func:`pack_indices`'s words, as int64 (numpy; for checks, not for speed)."""
    u = np.ascontiguousarray(words).view(np.uint32).astype(np.uint64)
    u = np.concatenate([u, np.zeros(1, np.uint64)])
    pos = np.arange(m, dtype=np.uint64) * np.uint64(bits)
    word, shift = pos >> np.uint64(5), pos & np.uint64(31)
    two = u[word] | (u[word + np.uint64(1)] << np.uint64(32))
    return ((two >> shift) & np.uint64((1 << bits) - 1)).astype(np.int64)


# ------------------------------------------------------------------ vertex state
def full(count: int, value, dtype) -> np.ndarray:
    """``np.full`` filled in parallel (first touch on every core).

    Example:
        >>> full(3, -1, np.int64).tolist(), full(2, 0.5, np.float32).tolist()
        ([-1, -1, -1], [0.5, 0.5])
    """
    dtype = np.dtype(dtype)
    out = np.empty(int(count), dtype)
    size = dtype.itemsize
    if size not in (1, 2, 4, 8):
        out.fill(value)
        return out
    bits = int(np.array(value, dtype=dtype).view(f"u{size}"))
    getattr(_lib(), f"gf_fill{8 * size}")(_p(out), len(out), bits)
    return out


def vertex_ids(count: int, dtype) -> np.ndarray:
    """``np.arange(count)`` of int32 or int64, written in parallel.

    Example:
        >>> vertex_ids(4, np.int32).tolist()
        [0, 1, 2, 3]
    """
    dtype = np.dtype(dtype)
    out = np.empty(int(count), dtype)
    (_lib().gf_iota32 if dtype == np.int32 else _lib().gf_iota64)(_p(out), len(out))
    return out


def copy_into(dst: np.ndarray, src: np.ndarray) -> None:
    """Copy contiguous ``src`` into ``dst`` (as many bytes) in parallel 1 MiB blocks: a pinned
    staging buffer is filled at the host's memory bandwidth, not one core's.

    Example:
        >>> d = np.zeros(3, np.int32); copy_into(d, np.array([4, 5, 6], np.int32)); d.tolist()
        [4, 5, 6]
    """
    if dst.nbytes != src.nbytes or not (dst.flags.c_contiguous and src.flags.c_contiguous):
        raise ValueError("copy_into: contiguous arrays of equal size needed")
    _lib().gf_copy_bytes(_p(dst), _p(src), src.nbytes)


def copy(host: np.ndarray) -> np.ndarray:
    """A contiguous copy of ``host``, copied in parallel 1 MiB blocks.

    Example:
        >>> a = np.arange(5.0); b = copy(a); b[0] = 9; a[0], b.tolist()
        (np.float64(0.0), [9.0, 1.0, 2.0, 3.0, 4.0])
    """
    host = np.asarray(host)
    if not host.flags.c_contiguous:
        return np.array(host, copy=True)
    out = np.empty_like(host)
    copy_into(out, host)
    return out


def count_distinct(values: np.ndarray) -> int:
    """``len(np.unique(values))`` in one pass: integers spanning a range at most a few times
    their count (vertex ids, labels) mark a table; others are sorted. numpy 2.4's ``np.unique``
    hashes, and took 0.68 s on the 4 M labels of a Kronecker 22 graph (a tenth of the whole
    label propagation on the GPU that had made them).

    Example:
        >>> count_distinct(np.array([5, 3, 5, 9])), count_distinct(np.array([2.5, 2.5])), count_distinct(np.array([], int))
        (3, 1, 0)
    """
    values = np.asarray(values).ravel()
    if len(values) == 0:
        return 0
    if values.dtype.kind in "iu":
        lo, hi = int(values.min()), int(values.max())
        if hi - lo < max(4 * len(values), 1 << 16):
            seen = np.zeros(hi - lo + 1, bool)
            seen[values - values.dtype.type(lo)] = True
            return int(np.count_nonzero(seen))
    ordered = np.sort(values)
    return 1 + int(np.count_nonzero(ordered[1:] != ordered[:-1]))


# ------------------------------------------------------------------ priority buckets
def _bucket_fn(op: str, values: np.ndarray):
    """The C++ bucket helper for float32 or float64 (contiguous) values."""
    if values.dtype not in (np.float32, np.float64) or not values.flags.c_contiguous:
        raise TypeError(f"bucket values must be contiguous float32 or float64, got {values.dtype}")
    return getattr(_lib(), f"gf_bucket_{op}_{'f32' if values.dtype == np.float32 else 'f64'}")


def bucket_range(ids: np.ndarray, values: np.ndarray, delta: float) -> tuple[int, int]:
    """Smallest and largest bucket ``floor(values[id] / delta)`` over ``ids`` (non-empty).

    Example:
        >>> bucket_range(np.array([0, 1, 2]), np.array([0.5, 7.0, 2.5]), 2.0)
        (0, 3)
    """
    ids = np.ascontiguousarray(ids, dtype=np.int64)
    out = np.empty(2, np.int64)
    _bucket_fn("range", values)(_p(ids), len(ids), _p(values), float(delta), _p(out))
    return int(out[0]), int(out[1])


def bucket_split(ids: np.ndarray, values: np.ndarray, delta: float, low: int, span: int):
    """Group ``ids`` by bucket ``floor(values[id] / delta) - low`` (in ``0..span``), stably.

    Returns ``(grouped ids, starts)``: bucket ``low + j`` holds
    ``grouped[starts[j]:starts[j + 1]]``. A parallel counting sort.

    Example:
        >>> vals = np.array([0.5, 7.0, 2.5, 2.0])
        >>> g, s = bucket_split(np.array([0, 1, 2, 3]), vals, 2.0, 0, 3)
        >>> g.tolist(), s.tolist()
        ([0, 2, 3, 1], [0, 1, 3, 3, 4])
    """
    ids = np.ascontiguousarray(ids, dtype=np.int64)
    out = np.empty_like(ids)
    starts = np.empty(span + 2, np.int64)
    _bucket_fn("split", values)(_p(ids), len(ids), _p(values), float(delta), int(low), int(span),
                                _p(out), _p(starts))
    return out, starts


def bucket_keep(ids: np.ndarray, values: np.ndarray, delta: float, key: int) -> np.ndarray:
    """The ``ids`` (a fresh int64 array) whose bucket ``floor(values[id] / delta)`` is ``key``.

    Example:
        >>> bucket_keep(np.array([0, 1, 2]), np.array([0.5, 7.0, 1.0]), 2.0, 0).tolist()
        [0, 2]
    """
    ids = np.ascontiguousarray(ids, dtype=np.int64)
    out = np.empty_like(ids)
    kept = _bucket_fn("keep", values)(_p(ids), len(ids), _p(values), float(delta), int(key), _p(out))
    return out[:kept]


# ------------------------------------------------------------------ state primitives
def _state(arr) -> str | None:
    """The C++ suffix for a contiguous array of a supported dtype, else None (numpy's path)."""
    arr = np.asarray(arr)
    return _STATE_TYPES.get(arr.dtype) if arr.ndim == 1 and arr.flags.c_contiguous else None


_OPS = {"sum": 0, "min": 1, "max": 2}


def reduce(arr: np.ndarray, op: str, ids: np.ndarray | None = None):
    """``op`` (sum, min, max) of ``arr`` (over ``arr[ids]`` when given) in one parallel pass;
    floats summed in float64, integers in int64. ``None`` for min/max of nothing.

    Example:
        >>> a = np.array([3.0, -1.0, 4.0, 1.5])
        >>> reduce(a, "sum"), reduce(a, "min", np.array([0, 3])), reduce(np.array([2, 9], np.int32), "max")
        (7.5, 1.5, 9)
    """
    t = _state(arr)
    k = len(arr) if ids is None else len(ids)
    if k == 0:
        return 0 if op == "sum" else None
    if t is None:
        v = getattr(arr if ids is None else arr[ids], op)()
        return v.item() if hasattr(v, "item") else v
    if ids is not None:
        ids = np.ascontiguousarray(ids, dtype=np.int64)
    kind = "f" if t[0] == "f" else "i"
    return getattr(_lib(), f"gf_reduce_{kind}_{t}")(_p(arr), _p(ids), k, _OPS[op])


def select(arr: np.ndarray, lo: float, hi: float, ids: np.ndarray | None = None) -> np.ndarray:
    """The indices (of ``arr``, or the entries of ``ids``) whose value lies in ``[lo, hi)``, in
    order, as int64; one parallel pass, no n-sized temporaries.

    Example:
        >>> select(np.array([5, 1, 7, 2], np.int32), 2, 6).tolist(), select(np.arange(5.0), 1, 9, np.array([4, 0])).tolist()
        ([0, 3], [4])
    """
    t = _state(arr)
    if t is None:
        vals = arr if ids is None else arr[ids]
        hit = np.flatnonzero((vals >= lo) & (vals < hi))
        return hit.astype(np.int64) if ids is None else np.asarray(ids)[hit].astype(np.int64)
    if ids is not None:
        ids = np.ascontiguousarray(ids, dtype=np.int64)
    k = len(arr) if ids is None else len(ids)
    out = np.empty(k, np.int64)
    kept = getattr(_lib(), f"gf_select_{t}")(_p(arr), _p(ids), k, float(lo), float(hi), _p(out))
    return out[:kept]


def select_bits(arr: np.ndarray, lo: float, hi: float) -> np.ndarray | None:
    """A uint32 bitmap of the indices whose value lies in ``[lo, hi)`` (one parallel pass over
    words, no atomics); None for a dtype the helpers do not take.

    Example:
        >>> select_bits(np.array([5, 1, 7, 2], np.int32), 2, 6).tolist()
        [9]
    """
    t = _state(arr)
    if t is None:
        return None
    bits = np.empty((len(arr) + 31) // 32, np.uint32)
    getattr(_lib(), f"gf_select_bits_{t}")(_p(arr), len(arr), float(lo), float(hi), _p(bits))
    return bits


def convert(arr: np.ndarray, dtype) -> np.ndarray:
    """``arr.astype(dtype)`` into a fresh array written in parallel.

    Example:
        >>> convert(np.array([1.5, 2.0], np.float32), np.float64).tolist(), convert(np.array([7], np.int32), np.int64).dtype
        ([1.5, 2.0], dtype('int64'))
    """
    dtype = np.dtype(dtype)
    s, d = _state(arr), _STATE_TYPES.get(dtype)
    if s is None or d is None:
        return np.asarray(arr).astype(dtype)
    out = np.empty(len(arr), dtype)
    getattr(_lib(), f"gf_convert_{s}_{d}")(_p(arr), _p(out), len(arr))
    return out
