"""Vertex-state arrays on the host: weights narrowed, ids packed, fills and copies, distinct
counts, delta-stepping buckets, reductions, selections and conversions."""

from __future__ import annotations

import numpy as np

from ._library import _OPS, _STATE_TYPES, _lib, _p, _state


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


def pack_edges(indices: np.ndarray, weights: np.ndarray, bits: int, alloc=None) -> tuple[np.ndarray, int]:
    """int32 ids (each below ``2**bits``, 1 to 31 bits) and their uint8 or uint16 weights fused: edge
    ``j``'s field is ``bits + w`` bits at ``j * (bits + w)`` of the little-endian stream of 32-bit words,
    its id in the low ``bits`` and its weight in the ``w`` (8 or 16) above (kernels read the id with
    ``GfPackedIds`` and the weight with ``GfWeights``, from the same field). A row's ids and weights lie
    together, so a short row read in place costs one request, not one per array. Returns
    ``(words, w)``; ``alloc(count, dtype)`` makes the output (pinned memory, say).

    Example:
        >>> words, wbits = pack_edges(np.array([5, 0, 7], np.int32), np.array([9, 255, 1], np.uint8), 3)
        >>> wbits, len(words), unpack_edges(words, 3, wbits, 3)
        (8, 11, ([5, 0, 7], [9, 255, 1]))
    """
    idx, w = np.ascontiguousarray(indices), np.ascontiguousarray(weights)
    if idx.dtype != np.int32 or not 1 <= bits <= 31:
        raise ValueError(f"packing takes int32 ids and 1 to 31 bits, got {idx.dtype} and {bits}")
    if w.dtype not in (np.uint8, np.uint16) or len(w) != len(idx):
        raise ValueError(f"fused edges take one uint8 or uint16 weight per id, got {len(w)} {w.dtype}")
    wbits = 8 * w.itemsize
    count = packed_words(len(idx), bits + wbits)
    out = alloc(count, np.int32) if alloc is not None else np.empty(count, np.int32)
    _lib().gf_pack_edges(_p(idx), _p(w), w.itemsize, len(idx), int(bits), wbits, _p(out))
    return out, wbits


def unpack_edges(words: np.ndarray, bits: int, wbits: int, m: int) -> tuple[list, list]:
    """The ``m`` ids and weights of :func:`pack_edges`'s words, as lists (for checks, not for speed)."""
    fields = unpack_fields(words, bits + wbits, m)
    return [int(f) & ((1 << bits) - 1) for f in fields], [int(f) >> bits for f in fields]


def unpack_fields(words: np.ndarray, bits: int, m: int) -> np.ndarray:
    """The ``m`` fields of ``bits`` bits (up to 63) of a little-endian stream of 32-bit words, as uint64."""
    u = np.ascontiguousarray(words).view(np.uint32).astype(object)
    out = np.zeros(m, dtype=np.uint64)
    for j in range(m):
        pos = j * bits
        word, shift = pos >> 5, pos & 31
        v = 0
        for k in range((shift + bits + 31) // 32):
            v |= int(u[word + k]) << (32 * k) if word + k < len(u) else 0
        out[j] = (v >> shift) & ((1 << bits) - 1)
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
