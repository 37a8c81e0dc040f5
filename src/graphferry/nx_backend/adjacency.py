"""Read a NetworkX adjacency (dict of dicts) into arrays in one compiled pass.

Converting a NetworkX graph means visiting every neighbour entry of every
node: 2 M entries for a 1 M-edge undirected graph. From Python each visit
touches the neighbour's label object (to turn it into a number) and, when a
function asks for edge weights, the edge's attribute dict (to see whether it
is empty); those objects lie scattered in memory, so the pass is bound by
memory latency (about 90 ns an entry through ``np.fromiter``).

This module does the pass in C++, compiled once by the CPU backend's compiler
(cached on disk like every program) and called with the interpreter lock held
(``ctypes.PyDLL``). It walks the dicts with CPython's ``_PyDict_Next``, which
also returns the hash that the dict stores beside each key, so:

* a neighbour is identified by its **hash**, read from the dict's own entry
  table without touching the label object. NetworkX keeps every neighbour
  equal to a node, and equal objects hash equally, so when the nodes' hashes
  are pairwise distinct a neighbour's hash names its node exactly (for ints
  from 0 to 2**61 - 2 the hash is the int itself). Callers check the
  distinctness and fall back to label lookups when it fails;
* edge attribute dicts are only checked for emptiness (``PyDict_Size``), with
  the next ones prefetched so the cache misses overlap.

Nothing is kept: the arrays hold numbers and addresses, read while the lock
is held, and the addresses are dropped before it is released.

No compiler, a Python without ``_PyDict_Next`` (or a free-threaded one, whose
object layout differs): :func:`reader` returns None and the caller reads the
dicts from Python.

Example (where the CPU backend has its C++ compiler):
    >>> import numpy as np
    >>> adj = {10: {11: {}}, 11: {10: {}, 12: {"weight": 2}}, 12: {11: {"weight": 2}}}
    >>> rows = reader()(adj, np.array([1, 2, 1]), want_edge_data=True)
    >>> rows.node_hashes.tolist(), rows.neighbor_hashes.tolist(), rows.first_edge_with_data
    ([10, 11, 12], [11, 10, 12, 11], 2)
    >>> reader()(adj, np.array([1, 1, 1])) is None   # the dicts do not match the degrees: Python reads them
    True
"""

from __future__ import annotations

import ctypes
import logging
import sysconfig
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable

import numpy as np

log = logging.getLogger(__name__)

#: The C++ pass. Prototypes are spelled out instead of including Python.h, so
#: building it needs no Python headers; the functions come in as addresses.
SOURCE = r"""
#include <cstdint>
#include <sys/types.h>

// CPython: int _PyDict_Next(PyObject *mp, Py_ssize_t *pos, PyObject **key, PyObject **value, Py_hash_t *hash)
typedef int (*dict_next_fn)(void *, ssize_t *, void **, void **, ssize_t *);
// CPython: Py_ssize_t PyDict_Size(PyObject *mp)
typedef ssize_t (*dict_size_fn)(void *);

// Every row of `adj` (node -> neighbour dict): the node's hash, each neighbour's hash and, when
// `edge_data` is not null, each edge's attribute object, rows in dict order. `degree[i]` is what
// Python counted for row i; a row that disagrees (not a dict, changed meanwhile) makes it return -1.
// `other_nodes[0]` counts the nodes that are not the exact int of their position (node i is the int i:
// `int_type` is the address of PyLong_Type, `as_ll_fn` PyLong_AsLongLongAndOverflow's).
typedef long long (*int_value_fn)(void *, int *);
// First every row's address and the nodes' hashes (the outer dict's entries, in order) and whether node
// i is the int i; then the rows, in parallel (OpenMP): each thread walks whole rows into their own
// ranges of the output (offsets from `degree`). The walk only reads: `_PyDict_Next` hands out borrowed
// references and touches no reference count, and the caller holds the interpreter lock throughout, so
// no Python code runs and nothing changes the dicts meanwhile.
extern "C" __attribute__((visibility("default")))
int64_t gf_nx_read_adjacency(void *next_fn, void *adj, int64_t n, const int64_t *degree, int64_t m,
                             int64_t *node_hash, int64_t *neighbor_hash, void **edge_data,
                             const void *int_type, void *as_ll_fn, int64_t *other_nodes) {
    dict_next_fn next = (dict_next_fn)next_fn;
    int_value_fn int_value = (int_value_fn)as_ll_fn;
    ssize_t pos = 0, hash = 0;
    void *key = nullptr, *row = nullptr;
    int64_t i = 0;
    other_nodes[0] = 0;
    void **rows = new void *[n > 0 ? n : 1];
    int64_t *start = new int64_t[n + 1];
    start[0] = 0;
    while (next(adj, &pos, &key, &row, &hash)) {
        if (i >= n) { delete[] rows; delete[] start; return -1; }
        node_hash[i] = hash;
        rows[i] = row;
        start[i + 1] = start[i] + degree[i];
        // PyObject's header is {ob_refcnt, ob_type} (a non-free-threaded build; checked in Python)
        if (((const void *const *)key)[1] != int_type) {
            ++other_nodes[0];
        } else {
            int overflow = 0;
            if (int_value(key, &overflow) != i || overflow) ++other_nodes[0];
        }
        ++i;
    }
    if (i != n || start[n] != m) { delete[] rows; delete[] start; return -1; }
    int64_t bad = 0;
#pragma omp parallel for schedule(dynamic, 512) reduction(+ : bad) if (m > (1 << 16))
    for (int64_t r = 0; r < n; ++r) {
        ssize_t row_pos = 0, h = 0;
        void *neighbor = nullptr, *data = nullptr;
        int64_t k = start[r];
        const int64_t end = start[r + 1];
        while (next(rows[r], &row_pos, &neighbor, &data, &h)) {
            if (k >= end) { ++bad; break; }
            neighbor_hash[k] = h;
            if (edge_data) edge_data[k] = data;
            ++k;
        }
        if (k != end) ++bad;
    }
    delete[] rows;
    delete[] start;
    return bad == 0 ? m : -1;
}

// The first edge whose attribute dict is not empty (-1: none; -2: one is not an exact dict,
// so emptiness is for Python to judge). `dict_type` is the address of PyDict_Type.
extern "C" __attribute__((visibility("default")))
int64_t gf_nx_first_edge_with_data(void *size_fn, const void *dict_type, void *const *edge_data, int64_t m) {
    dict_size_fn size = (dict_size_fn)size_fn;
    const int64_t ahead = 16;  // dicts in flight: the misses overlap instead of queueing
    for (int64_t k = 0; k < m; ++k) {
        if (k + ahead < m) __builtin_prefetch(edge_data[k + ahead]);
        const void *obj = edge_data[k];
        // PyObject's header is {ob_refcnt, ob_type} (a non-free-threaded build; checked in Python)
        if (((const void *const *)obj)[1] != dict_type) return -2;
        if (size(edge_data[k]) != 0) return k;
    }
    return -1;
}

// CPython: PyObject *PyDict_GetItem(PyObject *p, PyObject *key) (a borrowed reference; never sets an error)
typedef void *(*dict_get_fn)(void *, void *);
// CPython: long long PyLong_AsLongLongAndOverflow(PyObject *obj, int *overflow) (no error on overflow)
typedef long long (*long_as_ll_fn)(void *, int *);

// Edge attribute `key` of every edge, rows in dict order, as doubles: kind[k] = 1 for an exact int
// (|x| <= 2^53, so the double is exact), 2 for an exact float, 0 where the edge lacks it (the
// caller puts the default there). Returns m, or -1 when the dicts do not match `degree`, or -2
// when some value (or attribute dict) is of another type: Python reads those. `types` holds the
// addresses of PyDict_Type, PyLong_Type and PyFloat_Type.
extern "C" __attribute__((visibility("default")))
int64_t gf_nx_read_attribute(void *next_fn, void *get_fn, void *as_ll_fn, const void *const *types, void *adj,
                             int64_t n, const int64_t *degree, int64_t m, void *key, double *out, int8_t *kind) {
    dict_next_fn next = (dict_next_fn)next_fn;
    dict_get_fn get = (dict_get_fn)get_fn;
    long_as_ll_fn as_ll = (long_as_ll_fn)as_ll_fn;
    // first the attribute dicts' addresses (the rows are read in order), then the lookups, with
    // the dicts ahead prefetched (their header, then the key table it points to) so that the
    // cache misses of several lookups overlap instead of queueing
    void **data = new void *[m > 0 ? m : 1];
    ssize_t pos = 0, hash = 0;
    void *node = nullptr, *row = nullptr;
    int64_t i = 0, k = 0;
    while (next(adj, &pos, &node, &row, &hash)) {
        if (i >= n) { delete[] data; return -1; }
        ssize_t row_pos = 0, h = 0;
        void *neighbor = nullptr, *d = nullptr;
        const int64_t end = k + degree[i];
        if (end > m) { delete[] data; return -1; }
        while (next(row, &row_pos, &neighbor, &d, &h)) {
            if (k >= end) { delete[] data; return -1; }
            data[k++] = d;
        }
        if (k != end) { delete[] data; return -1; }
        ++i;
    }
    if (i != n || k != m) { delete[] data; return -1; }
    for (k = 0; k < m; ++k) {   // every object an exact dict before any is read past its header
        if (k + 16 < m) __builtin_prefetch(data[k + 16]);
        if (((const void *const *)data[k])[1] != types[0]) { delete[] data; return -2; }
    }
    int64_t status = m;
    for (k = 0; k < m; ++k) {
        // PyDictObject: {ob_refcnt, ob_type, ma_used, ma_version_tag, ma_keys, ...} (checked in Python)
        if (k + 8 < m) __builtin_prefetch(((void *const *)data[k + 8])[4]);
        if (k + 16 < m) __builtin_prefetch(data[k + 16]);
        void *v = get(data[k], key);
        if (!v) {
            kind[k] = 0;
            out[k] = 0.0;
        } else if (((const void *const *)v)[1] == types[2]) {
            out[k] = ((const double *)v)[2];   // PyFloatObject: {ob_refcnt, ob_type, double ob_fval}
            kind[k] = 2;
        } else if (((const void *const *)v)[1] == types[1]) {
            int overflow = 0;
            const long long x = as_ll(v, &overflow);
            if (overflow || x > (1LL << 53) || x < -(1LL << 53)) { status = -2; break; }
            out[k] = (double)x;
            kind[k] = 1;
        } else {
            status = -2;
            break;
        }
    }
    delete[] data;
    return status;
}

// CPython: PyObject *_PyDict_GetItem_KnownHash(PyObject *mp, PyObject *key, Py_hash_t hash) (borrowed;
// NULL when absent, or with an error set when a comparison raised), and PyDict_Contains where it is missing
typedef void *(*dict_get_known_fn)(void *, void *, ssize_t);
typedef int (*dict_contains_fn)(void *, void *);

// NetworkX's degree from the dicts alone: length[i] = the size of row i of `adj` (node -> neighbour
// dict, rows in dict order), plus 1 when `self_loops` is set and node i is its own neighbour (an
// undirected graph's degree counts a self-loop twice). No neighbour is read. First the rows' and
// nodes' addresses and the nodes' hashes (the outer dict's entries, in order), then the rows, with
// those 16 ahead prefetched (and, where `keys_at` >= 0, the key table of the row 8 ahead, which a
// lookup reads), so that the cache misses of many rows overlap instead of queueing as they do in
// Python's pass; a lookup by the known hash (`get_known_fn`, when not null) leaves the node's own
// object unread unless the row holds its hash.
// Returns n; -1 when `adj` does not hold n rows or a row is not an exact dict (Python reads them
// then); -2 when a lookup raised (the error is left set for the caller).
extern "C" __attribute__((visibility("default")))
int64_t gf_nx_row_lengths(void *next_fn, void *size_fn, void *get_known_fn, void *contains_fn,
                          const void *dict_type, void *adj, int64_t n, int self_loops, int64_t keys_at,
                          int64_t *length) {
    dict_next_fn next = (dict_next_fn)next_fn;
    dict_size_fn size = (dict_size_fn)size_fn;
    dict_get_known_fn get_known = (dict_get_known_fn)get_known_fn;
    dict_contains_fn contains = (dict_contains_fn)contains_fn;
    void **rows = new void *[3 * (n > 0 ? n : 1)];
    ssize_t pos = 0, hash = 0;
    void *key = nullptr, *row = nullptr;
    int64_t i = 0;
    while (next(adj, &pos, &key, &row, &hash)) {
        if (i >= n) { delete[] rows; return -1; }
        rows[3 * i] = row;
        rows[3 * i + 1] = key;
        rows[3 * i + 2] = (void *)hash;
        ++i;
    }
    if (i != n) { delete[] rows; return -1; }
    int64_t status = n;
    for (int64_t k = 0; k < n; ++k) {
        if (k + 16 < n) {
            __builtin_prefetch(rows[3 * (k + 16)]);
            if (self_loops && !get_known) __builtin_prefetch(rows[3 * (k + 16) + 1]);
        }
        if (self_loops && keys_at >= 0 && k + 8 < n)
            __builtin_prefetch(((void *const *)rows[3 * (k + 8)])[keys_at]);
        void *r = rows[3 * k];
        // PyObject's header is {ob_refcnt, ob_type} (a non-free-threaded build; checked in Python)
        if (((const void *const *)r)[1] != dict_type) { status = -1; break; }
        int64_t d = (int64_t)size(r);
        if (self_loops && d > 0) {
            if (get_known) {
                d += get_known(r, rows[3 * k + 1], (ssize_t)rows[3 * k + 2]) != nullptr;
            } else {
                const int found = contains(r, rows[3 * k + 1]);
                if (found < 0) { status = -2; break; }
                d += found;
            }
        }
        length[k] = d;
    }
    delete[] rows;
    return status;
}
"""


@lru_cache(maxsize=1)
def _library() -> ctypes.PyDLL:
    """The compiled readers of :data:`SOURCE` (``PyDLL``: the interpreter lock stays held while they read
    the dicts). Raises where no compiler or build is available."""
    from ..host_ops.compiler import compile_library

    return ctypes.PyDLL(compile_library(SOURCE, label="nx_adjacency")._name)


def cpython_addresses(*names: str) -> tuple:
    """The addresses of CPython's C functions ``names``, for compiled code that calls them (the readers
    here, :mod:`.results`' dict builder)."""
    return tuple(ctypes.cast(getattr(ctypes.pythonapi, f), ctypes.c_void_p).value for f in names)


@lru_cache(maxsize=1)
def row_length_reader() -> Callable[[dict, bool], np.ndarray | None] | None:
    """The compiled ``read(adj, self_loops) -> lengths | None``: each row's size (plus 1 where
    ``self_loops`` and the node is its own neighbour), rows in dict order; None where Python must
    read them (a row that is not a dict). None where no compiled reader can run.

    A cold ``degree_centrality`` on 262,111 nodes spent 0.17 s (2 cores, loaded) in Python's passes
    over the rows (``len``, then ``node in row``), as long as NetworkX's own pass: each row is a
    cache miss. Here the misses overlap.
    """
    if reader() is None:
        return None
    import sys

    fn = _library().gf_nx_row_lengths
    fn.restype = ctypes.c_int64
    fn.argtypes = [ctypes.c_void_p] * 5 + [ctypes.py_object, ctypes.c_int64, ctypes.c_int, ctypes.c_int64,
                                           ctypes.c_void_p]
    next_fn, size_fn, contains_fn = cpython_addresses("_PyDict_Next", "PyDict_Size", "PyDict_Contains")
    # a lookup by the hash the outer dict stores (CPython's private API, present in 3.8-3.13)
    get_known_fn = (cpython_addresses("_PyDict_GetItem_KnownHash")[0]
                    if hasattr(ctypes.pythonapi, "_PyDict_GetItem_KnownHash") else None)
    # PyDictObject's ma_keys, the key table a lookup reads, is its 5th word on 64-bit CPython 3.8-3.14
    keys_at = 4 if (3, 8) <= sys.version_info[:2] <= (3, 14) and ctypes.sizeof(ctypes.c_void_p) == 8 else -1

    def read(adj: dict, self_loops: bool) -> np.ndarray | None:
        n = len(adj)
        out = np.empty(n, np.int64)
        got = fn(next_fn, size_fn, get_known_fn, contains_fn, id(dict), adj, n, int(bool(self_loops)), keys_at,
                 out.ctypes.data)
        return out if got == n else None

    return read


@lru_cache(maxsize=1)
def attribute_reader() -> Callable[..., tuple[np.ndarray, np.ndarray] | None] | None:
    """The compiled ``read(adj, degree, key) -> (values, kind) | None``: edge attribute ``key`` of every
    arc in CSR order (``kind`` 1: an int, 2: a float, 0: absent), or None where Python must read it
    (another value type, a row that is not a dict); None where no compiled reader can run.

    Reading each edge's value from Python (``d.get(key, default)``, 2 M calls on a 1 M-edge graph)
    cost 3.4 s of a 6.5 s weighted Dijkstra call; here it is one pass over the dicts.
    """
    if reader() is None:
        return None
    fn = _library().gf_nx_read_attribute
    fn.restype = ctypes.c_int64
    fn.argtypes = [ctypes.c_void_p] * 4 + [ctypes.py_object, ctypes.c_int64, ctypes.c_void_p, ctypes.c_int64,
                                           ctypes.py_object, ctypes.c_void_p, ctypes.c_void_p]
    import sys

    if sys.version_info < (3, 8) or ctypes.sizeof(ctypes.c_void_p) != 8:
        return None   # the prefetch reads PyDictObject's ma_keys at its 3.8-3.14 offset (64-bit)
    next_fn, get_fn, as_ll_fn = cpython_addresses("_PyDict_Next", "PyDict_GetItem", "PyLong_AsLongLongAndOverflow")
    types = (ctypes.c_void_p * 3)(id(dict), id(int), id(float))   # CPython: an object's id is its address

    def read(adj: dict, degree: np.ndarray, key) -> tuple[np.ndarray, np.ndarray] | None:
        degree = np.ascontiguousarray(degree, dtype=np.int64)
        n, m = len(degree), int(degree.sum())
        out = np.empty(m, np.float64)
        kind = np.empty(m, np.int8)
        got = fn(next_fn, get_fn, as_ll_fn, ctypes.addressof(types), adj, n, degree.ctypes.data, m, key,
                 out.ctypes.data, kind.ctypes.data)
        return (out, kind) if got == m else None

    return read


@dataclass
class Rows:
    """What one pass read: node hashes (dict order), neighbour hashes (rows in node order), and where data starts.

    ``first_edge_with_data``: the first arc whose attribute dict is not empty,
    -1 when every one is empty, None when not asked or not decidable here.
    ``int_nodes``: node ``i`` is the exact ``int`` ``i`` for every ``i`` (not a bool, a float or a subclass).
    """

    node_hashes: np.ndarray
    neighbor_hashes: np.ndarray
    first_edge_with_data: int | None
    int_nodes: bool = False


@lru_cache(maxsize=1)
def reader() -> Callable[..., Rows | None] | None:
    """The compiled reader ``read(adj, degree, want_edge_data=False) -> Rows | None``, or None where it cannot run.

    ``read`` returns None when the dicts do not match ``degree`` (a row that
    is not a dict); the caller then reads them from Python.
    """
    if sysconfig.get_config_var("Py_GIL_DISABLED"):
        return None  # another object header layout
    try:
        next_fn, size_fn = cpython_addresses("_PyDict_Next", "PyDict_Size")
        lib = _library()
    except Exception as exc:  # no compiler, no symbol, a failed build: Python reads the dicts instead
        log.info("reading NetworkX graphs from Python (compiled reader unavailable: %s)", exc)
        return None
    read_rows = lib.gf_nx_read_adjacency
    read_rows.restype = ctypes.c_int64
    read_rows.argtypes = [ctypes.c_void_p, ctypes.py_object, ctypes.c_int64, ctypes.c_void_p, ctypes.c_int64,
                          ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
                          ctypes.c_void_p]
    first_with_data = lib.gf_nx_first_edge_with_data
    first_with_data.restype = ctypes.c_int64
    first_with_data.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64]
    dict_type = id(dict)  # CPython: an object's id is its address
    (int_value_fn,) = cpython_addresses("PyLong_AsLongLongAndOverflow")

    def read(adj: dict, degree: np.ndarray, want_edge_data: bool = False) -> Rows | None:
        degree = np.ascontiguousarray(degree, dtype=np.int64)
        n, m = len(degree), int(degree.sum())
        node_hashes = np.empty(n, np.int64)
        neighbor_hashes = np.empty(m, np.int64)
        edge_data = np.empty(m if want_edge_data else 0, np.uintp)
        other_nodes = np.zeros(1, np.int64)
        got = read_rows(next_fn, adj, n, degree.ctypes.data, m, node_hashes.ctypes.data,
                        neighbor_hashes.ctypes.data, edge_data.ctypes.data if want_edge_data else None,
                        id(int), int_value_fn, other_nodes.ctypes.data)
        if got != m:
            return None
        first = None
        if want_edge_data:
            # `adj` (held by the caller, lock held throughout) keeps every dict alive
            k = first_with_data(size_fn, dict_type, edge_data.ctypes.data, m)
            first = None if k == -2 else int(k)
        del edge_data
        return Rows(node_hashes, neighbor_hashes, first, bool(other_nodes[0] == 0))

    return read


def ids_from_hashes(node_hashes: np.ndarray, neighbor_hashes: np.ndarray, dtype: np.dtype) -> np.ndarray | None:
    """Vertex ids of the neighbours (node ``i`` has id ``i``), or None when hashes cannot name nodes.

    Exact when the node hashes are pairwise distinct and every neighbour's
    hash is among them (each neighbour equals a node, so it has that node's
    hash). None otherwise: two nodes share a hash (e.g. -1 and -2 in CPython)
    or a neighbour's hash matches no node (a dict changed behind NetworkX's back).

    Example:
        >>> ids_from_hashes(np.array([7, 3, 5]), np.array([3, 5, 7, 7]), np.int32).tolist()
        [1, 2, 0, 0]
        >>> ids_from_hashes(np.array([7, 7]), np.array([7]), np.int32) is None
        True
    """
    n = len(node_hashes)
    if n == 0:
        return np.zeros(0, dtype) if len(neighbor_hashes) == 0 else None
    if len(neighbor_hashes) == 0:
        return np.zeros(0, dtype)
    lo, hi = int(neighbor_hashes.min()), int(neighbor_hashes.max())
    if node_hashes[0] == 0 and node_hashes[-1] == n - 1 and np.array_equal(node_hashes, np.arange(n)):
        # nodes 0..n-1 in order (the common case): a neighbour's hash is its id
        return neighbor_hashes.astype(dtype) if lo >= 0 and hi < n else None
    node_lo, node_hi = int(node_hashes.min()), int(node_hashes.max())
    if node_hi - node_lo <= 4 * n + 1024:
        # a compact range of hashes (integer labels): one table lookup per neighbour
        if lo < node_lo or hi > node_hi:
            return None
        table = np.full(node_hi - node_lo + 1, -1, np.int64)
        table[node_hashes - node_lo] = np.arange(n)
        if int(np.count_nonzero(table >= 0)) != n:
            return None  # two nodes share a hash
        ids = table[neighbor_hashes - node_lo]
    else:
        order = np.argsort(node_hashes, kind="stable")
        ordered = node_hashes[order]
        if bool(np.any(ordered[1:] == ordered[:-1])):
            return None
        pos = np.minimum(np.searchsorted(ordered, neighbor_hashes), n - 1)
        ids = np.where(ordered[pos] == neighbor_hashes, order[pos], -1)
    if len(ids) and int(ids.min()) < 0:
        return None
    return ids.astype(dtype)
