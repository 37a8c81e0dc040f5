"""Result dicts keyed by every node, built in one compiled pass: ``{node: value}`` in the graph's order.

Most NetworkX functions answer with a dict of one value per node. Built from
Python, ``dict(zip(nodes, values.tolist()))`` hashes every node again (reading
each label object: a cache miss apiece) and grows the dict a dozen times while
it fills. The conversion has already read each node's hash from NetworkX's own
dict (:mod:`.adjacency`), so the pass here makes a dict of the final size at
once and inserts each node with its known hash, making each value's Python
object on the way (with the label objects ahead prefetched: the reference the
dict takes still writes to each). About 2-3 times faster than ``dict(zip(...))``
on 262,111 nodes (CPython's ``_PyDict_NewPresized`` and
``_PyDict_SetItem_KnownHash``; where they are missing, or without a compiler,
:func:`node_dict` builds it from Python).

Example:
    >>> import numpy as np
    >>> nodes = ["a", "b", "c"]
    >>> node_dict(nodes, np.array([hash(v) for v in nodes]), np.array([0.5, 0.0, 2.0]), zero_as_int=True)
    {'a': 0.5, 'b': 0, 'c': 2.0}
    >>> node_dict(nodes, None, np.array([1, 2, 3]))
    {'a': 1, 'b': 2, 'c': 3}
"""

from __future__ import annotations

import ctypes
import logging
import sysconfig
from functools import lru_cache

import numpy as np

log = logging.getLogger(__name__)

__all__ = ["node_dict", "node_hashes"]

SOURCE = r"""
#include <cstdint>
#include <sys/types.h>

typedef void *(*new_presized_fn)(ssize_t);                        // _PyDict_NewPresized
typedef int (*set_known_fn)(void *, void *, void *, ssize_t);     // _PyDict_SetItem_KnownHash
typedef void *(*list_item_fn)(void *, ssize_t);                   // PyList_GetItem (borrowed)
typedef void *(*from_double_fn)(double);                          // PyFloat_FromDouble
typedef void *(*from_ll_fn)(long long);                           // PyLong_FromLongLong
typedef void (*decref_fn)(void *);                                // Py_DecRef
typedef void (*incref_fn)(void *);                                // Py_IncRef
typedef int (*dict_next_fn)(void *, ssize_t *, void **, void **, ssize_t *);   // _PyDict_Next

// {nodes[j]: value i} for i < n, j = order[i] (order null: j = i), inserted with hashes[j], into a dict
// made at its final size.
// kind 0: float values; 1: int values (int64); 2: float, 0.0 as the int 0 (NetworkX's clustering);
// 3: float, NaN as None. Returns the new dict (a new reference), or null with an error set.
extern "C" __attribute__((visibility("default")))
void *gf_nx_node_dict(void *const *api, void *nodes, const int64_t *hashes, const void *values, int kind,
                      int64_t n, void *none, const int64_t *order) {
    new_presized_fn new_presized = (new_presized_fn)api[0];
    set_known_fn set = (set_known_fn)api[1];
    list_item_fn item = (list_item_fn)api[2];
    from_double_fn from_double = (from_double_fn)api[3];
    from_ll_fn from_ll = (from_ll_fn)api[4];
    decref_fn decref = (decref_fn)api[5];
    incref_fn incref = (incref_fn)api[6];
    void *d = new_presized(n);
    if (!d) return nullptr;
    const double *f = (const double *)values;
    const int64_t *k = (const int64_t *)values;
    for (int64_t i = 0; i < n; ++i) {
        // the node 16 ahead prefetched: the reference the dict takes writes to it
        if (i + 16 < n) __builtin_prefetch(item(nodes, order ? order[i + 16] : i + 16), 1);
        const int64_t j = order ? order[i] : i;
        void *v;
        if (kind == 1) {
            v = from_ll(k[i]);
        } else if (kind == 2 && f[i] == 0.0) {
            v = from_ll(0);
        } else if (kind == 3 && f[i] != f[i]) {
            v = none;
            incref(none);   // given back below, as a new value's is: set() takes its own reference
        } else {
            v = from_double(f[i]);
        }
        if (!v) { decref(d); return nullptr; }
        const int bad = set(d, item(nodes, j), v, (ssize_t)hashes[j]);
        decref(v);
        if (bad) { decref(d); return nullptr; }
    }
    return d;
}

// The hash NetworkX's node dict `adj` keeps beside each of its n keys, in dict order (no key is read).
// Returns n, or -1 when it holds another count.
extern "C" __attribute__((visibility("default")))
int64_t gf_nx_node_hashes(void *next_fn, void *adj, int64_t n, int64_t *out) {
    dict_next_fn next = (dict_next_fn)next_fn;
    ssize_t pos = 0, hash = 0;
    void *key = nullptr, *value = nullptr;
    int64_t i = 0;
    while (next(adj, &pos, &key, &value, &hash)) {
        if (i >= n) return -1;
        out[i++] = hash;
    }
    return i == n ? n : -1;
}
"""

_KINDS = {"float": 0, "int": 1, "zero_as_int": 2, "nan_as_none": 3}


@lru_cache(maxsize=1)
def _library():
    """(the compiled library, the CPython functions' addresses), or None where it cannot run."""
    if sysconfig.get_config_var("Py_GIL_DISABLED"):
        return None   # another object layout
    try:
        from ..host_ops.compiler import compile_library
        from .adjacency import cpython_addresses

        names = ("_PyDict_NewPresized", "_PyDict_SetItem_KnownHash", "PyList_GetItem", "PyFloat_FromDouble",
                 "PyLong_FromLongLong", "Py_DecRef", "Py_IncRef")
        table = (ctypes.c_void_p * len(names))(*cpython_addresses(*names))
        (next_fn,) = cpython_addresses("_PyDict_Next")
        lib = ctypes.PyDLL(compile_library(SOURCE, label="nx_results")._name)   # PyDLL: the lock stays held
    except Exception as exc:  # no compiler, a missing symbol: Python builds the dicts
        log.info("building NetworkX result dicts from Python (compiled builder unavailable: %s)", exc)
        return None
    lib.gf_nx_node_dict.restype = ctypes.py_object
    lib.gf_nx_node_dict.argtypes = [ctypes.c_void_p, ctypes.py_object, ctypes.c_void_p, ctypes.c_void_p,
                                    ctypes.c_int, ctypes.c_int64, ctypes.py_object, ctypes.c_void_p]
    lib.gf_nx_node_hashes.restype = ctypes.c_int64
    lib.gf_nx_node_hashes.argtypes = [ctypes.c_void_p, ctypes.py_object, ctypes.c_int64, ctypes.c_void_p]
    return lib, table, next_fn


def node_hashes(adj: dict) -> np.ndarray | None:
    """The hashes NetworkX's node dict ``adj`` keeps for its nodes, in its order (None: not compiled here)."""
    got = _library()
    if got is None or type(adj) is not dict:
        return None
    lib, _, next_fn = got
    out = np.empty(len(adj), np.int64)
    return out if lib.gf_nx_node_hashes(next_fn, adj, len(adj), out.ctypes.data) == len(adj) else None


def _python(nodes: list, values: np.ndarray, kind: str, order: np.ndarray | None) -> dict:
    as_list = values.tolist()
    if order is not None:
        nodes = list(map(nodes.__getitem__, order.tolist()))
    if kind == "zero_as_int":
        as_list = [0 if x == 0 else x for x in as_list]
    elif kind == "nan_as_none":
        as_list = [None if x != x else x for x in as_list]
    return dict(zip(nodes, as_list))


def node_dict(nodes: list, hashes: np.ndarray | None, values: np.ndarray, *, order: np.ndarray | None = None,
              zero_as_int: bool = False, nan_as_none: bool = False) -> dict:
    """``{nodes[i]: values[i]}`` in order (``hashes[i]``: ``hash(nodes[i])``, None when not known); with
    ``order`` (vertex ids, each at most once), ``{nodes[order[i]]: values[i]}`` in that order.

    ``values`` floats (Python floats; ``zero_as_int``: 0.0 as the int 0; ``nan_as_none``: NaN as None)
    or integers (Python ints); any other array is converted by ``tolist``.
    """
    values = np.asarray(values)
    if order is not None:
        order = np.ascontiguousarray(order, dtype=np.int64)
    if values.dtype.kind not in "iuf":   # bools, objects: Python's own conversion
        return _python(nodes, values, "float", order)
    integral = values.dtype.kind in "iu"
    kind = "int" if integral else "zero_as_int" if zero_as_int else "nan_as_none" if nan_as_none else "float"
    fits = len(values) == (len(nodes) if order is None else len(order)) and (
        order is None or len(order) == 0 or (int(order.min()) >= 0 and int(order.max()) < len(nodes)))
    got = _library() if hashes is not None and type(nodes) is list and len(hashes) == len(nodes) and fits \
        else None
    if got is None:
        return _python(nodes, values, kind, order)
    lib, table, _ = got
    values = np.ascontiguousarray(values, dtype=np.int64 if integral else np.float64)
    hashes = np.ascontiguousarray(hashes, dtype=np.int64)
    return lib.gf_nx_node_dict(ctypes.addressof(table), nodes, hashes.ctypes.data, values.ctypes.data,
                               _KINDS[kind], len(values), None, None if order is None else order.ctypes.data)

