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
from functools import lru_cache

import numpy as np

from .compiler import compile_library

_P = ctypes.c_void_p


@lru_cache(maxsize=1)
def _lib():
    lib = compile_library('#include "gf_host_ops.h"\n', label="host_ops")
    for name in ("gf_gather_i32", "gf_gather_i64"):
        f = getattr(lib, name)
        f.argtypes = [_P, _P, _P, _P, ctypes.c_int64, _P, _P, _P]
        f.restype = None
    _I = ctypes.c_int64
    for name, args, res in (("gf_bits_to_ids", [_P, _I, _P], _I), ("gf_ids_to_bits", [_P, _I, _P], None),
                            ("gf_popcount", [_P, _I], _I), ("gf_degree_sum", [_P, _P, _I, _P, _I], _I)):
        f = getattr(lib, name)
        f.argtypes, f.restype = args, res
    return lib


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
        out_weights = np.empty(total, dtype=np.float32)
    if len(out_indices) < total:
        raise ValueError(f"staging buffer holds {len(out_indices)} edges, {total} needed")
    fn = _lib().gf_gather_i32 if indices.dtype == np.int32 else _lib().gf_gather_i64
    fn(_p(offsets), _p(indices), _p(weights), _p(ids), len(ids), _p(coff),
       _p(out_indices), _p(out_weights if weights is not None else None))
    return coff, out_indices[:total], (out_weights[:total] if weights is not None else None)


# ------------------------------------------------------------------ frontiers
def bits_to_ids(bits: np.ndarray) -> np.ndarray:
    """Sorted int64 ids of the set bits of a uint32 bitmap (one parallel pass).

    Example:
        >>> bits_to_ids(np.array([0b1010, 1], np.uint32)).tolist()
        [1, 3, 32]
    """
    bits = np.ascontiguousarray(bits, dtype=np.uint32)
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
