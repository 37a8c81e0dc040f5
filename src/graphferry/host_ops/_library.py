"""The compiled host library (``gf_host_ops.h``, C++ + OpenMP) and its ctypes signatures."""

from __future__ import annotations

import ctypes
import os
from functools import lru_cache

import numpy as np

from .compiler import compile_library

_P = ctypes.c_void_p


#: ``gf_host_ops.h``'s regions (``GF_REGION`` 0..9): the host library builds as one unit per core, up
#: to one per region, at once (:func:`.compiler.compile_library`'s ``shards``)
HOST_REGIONS = 10


def host_shards() -> int:
    """Units the host library builds as here: one per core, at most :data:`HOST_REGIONS`."""
    return max(1, min(HOST_REGIONS, os.cpu_count() or 1))


@lru_cache(maxsize=1)
def _lib():
    lib = compile_library('#include "gf_host_ops.h"\n', label="host_ops", shards=host_shards())
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
    lib.gf_pack_edges.argtypes, lib.gf_pack_edges.restype = [_P, _P, _I, _I, _I, _I, _P], None
    for name in ("gf_transpose_fill_i32", "gf_transpose_fill_i64"):
        f = getattr(lib, name)
        f.argtypes, f.restype = [_I, _P, _P, _P, _P], None
    for name in ("gf_reciprocal_counts_i32", "gf_reciprocal_counts_i64"):
        f = getattr(lib, name)
        f.argtypes, f.restype = [_I, _P, _P, _P, _P, _P], None
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



def _state(arr) -> str | None:
    """The C++ suffix for a contiguous array of a supported dtype, else None (numpy's path)."""
    arr = np.asarray(arr)
    return _STATE_TYPES.get(arr.dtype) if arr.ndim == 1 and arr.flags.c_contiguous else None


_OPS = {"sum": 0, "min": 1, "max": 2}
