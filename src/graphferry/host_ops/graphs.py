"""Whole-graph passes on the host: degree-ordered DAGs, subgraphs, simple views, contraction,
arc searches and label counts (HyPar's partGraph/mergeParts, :mod:`graphferry.transforms`)."""

from __future__ import annotations

import logging
import time

import numpy as np

from ._library import _lib, _p
from .arrays import vertex_ids
from .rows import degree_order, prefix_sum, unordered_transpose

log = logging.getLogger(__name__)


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


def reciprocal_counts(offsets, indices) -> tuple[np.ndarray, np.ndarray]:
    """``(overlap, in_degree)`` of a directed CSR without repeated arcs: ``overlap[u]`` counts u's
    out-arcs ``u -> v`` whose reverse ``v -> u`` is an arc too (a self-loop is its own reverse),
    NetworkX's ``len(pred[u] & succ[u])``. One parallel pass over the CSR and its unordered transpose
    (each vertex's successors stamped, its predecessors checked): no sort.

    Example:
        >>> off = np.array([0, 2, 3, 4], np.int64)          # 0 -> 1, 0 -> 2, 1 -> 0, 2 -> 2
        >>> idx = np.array([1, 2, 0, 2], np.int32)
        >>> [a.tolist() for a in reciprocal_counts(off, idx)]
        [[1, 1, 1], [1, 1, 2]]
    """
    offsets = np.ascontiguousarray(offsets, dtype=np.int64)
    indices = np.ascontiguousarray(indices)
    if indices.dtype not in (np.int32, np.int64):
        indices = indices.astype(np.int64)
    n = len(offsets) - 1
    t_offsets, t_indices = unordered_transpose(offsets, indices)
    overlap = np.empty(n, np.int64)
    fn = getattr(_lib(), f"gf_reciprocal_counts_{_index_suffix(indices)}")
    fn(n, _p(offsets), _p(indices), _p(t_offsets), _p(t_indices), _p(overlap))
    return overlap, np.diff(t_offsets)
