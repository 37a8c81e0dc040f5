"""The CUDA backend's passes over vertex state around the programs, launched from its own kernel
module (:mod:`.bitmap_kernels`): popcount, fills, ids, one entry's assignment, gathers, scatters,
a listed frontier's edges, bitmap set operations, range selection, device copies, float32 widening,
delta-stepping's dense buckets (range, histogram, cut, held-back vertices that dropped).

Each replaces a CuPy operation that compiles a kernel with NVRTC on a fresh machine, on the thread
that asks, one after the other (``cupy.full`` with a value other than 0, fancy indexing, scalar
assignment, ``astype`` copies, ``arange``, a ``ReductionKernel``, operators on bitmaps): the module
is compiled once, in the background, when the backend starts. :class:`VertexStateOps` is mixed into
:class:`~graphferry.backends.cuda.backend.CudaBackend`, whose ``_bitmap_fn`` looks the kernels up.
"""

from __future__ import annotations

import cupy
import numpy as np

from .memory import H2D

#: Threads a block of the module's kernels (any multiple of 32: they stride by the grid).
BLOCK = 256
_U64 = np.uint64
_I64 = np.int64
#: gf_bits_combine's op codes
_COMBINE = {"or": 0, "and": 1, "andnot": 2, "not": 3}


def _null() -> np.uint64:
    """A null pointer argument."""
    return _U64(0)


class VertexStateOps:
    """The vertex-state passes of :class:`~graphferry.backends.cuda.backend.CudaBackend` (see the
    module's docstring); the backend provides ``_bitmap_fn``, ``num_sms`` and ``compute_stream``."""

    def popcount(self, bits) -> int:
        nwords = int(bits.size)
        if nwords == 0:
            return 0
        out = cupy.zeros(1, dtype=cupy.uint64)
        self._bitmap_fn("gf_popcount_words")(self._grid(nwords), (BLOCK,), (bits, _I64(nwords), out))
        return int(out.get()[0])

    def _grid(self, count: int) -> tuple[int]:
        return (max(1, min((count + BLOCK - 1) // BLOCK, self.num_sms * 16)),)

    def _device_copy(self, arr):
        """A copy of device array ``arr`` (a memory copy where it is contiguous: ``ndarray.copy``
        launches CuPy's elementwise copy kernel)."""
        if not arr.flags.c_contiguous:
            return arr.copy()
        out = cupy.empty(arr.shape, dtype=arr.dtype)
        if arr.nbytes:
            out.data.copy_from_device_async(arr.data, arr.nbytes)
        return out

    @staticmethod
    def _bit_pattern(value, dtype) -> bytes | None:
        """``value`` as one entry of ``dtype``'s bytes (numpy's conversion), or None where numpy
        refuses it (CuPy's own fill then decides)."""
        try:
            return np.asarray(value, dtype=dtype).tobytes()
        except (TypeError, ValueError, OverflowError):
            return None

    def _fill(self, out, value) -> None:
        """Every entry of contiguous ``out`` set to ``value``: a memset where its bytes repeat one
        byte (0, -1), else the module's fill kernel for entries of 1, 2, 4 or 8 bytes."""
        count = int(out.size)
        if count == 0:
            return
        raw = self._bit_pattern(value, out.dtype)
        if raw is None or not out.flags.c_contiguous or len(raw) not in (1, 2, 4, 8):
            out.fill(value)
        elif raw.count(raw[:1]) == len(raw):
            out.data.memset_async(raw[0], out.nbytes)
        else:
            self._bitmap_fn(f"gf_fill_b{len(raw)}")(self._grid(count), (BLOCK,),
                                                    (out, _I64(count), _U64(int.from_bytes(raw, "little"))))

    def full(self, shape, value, dtype):
        out = cupy.empty(shape, dtype=dtype)
        self._fill(out, value)
        return out

    def vertex_ids(self, n: int, dtype):
        kind = {np.dtype(np.int32): "i32", np.dtype(np.int64): "i64"}.get(np.dtype(dtype))
        if kind is None:
            return cupy.arange(n, dtype=dtype)
        out = cupy.empty(n, dtype=dtype)
        if n:
            self._bitmap_fn(f"gf_iota_{kind}")(self._grid(n), (BLOCK,), (out, _I64(n)))
        return out

    def set_entry(self, arr, index: int, value) -> None:
        raw = self._bit_pattern(value, arr.dtype)
        n = int(arr.shape[0]) if arr.ndim else 0
        i = int(index) + (n if int(index) < 0 else 0)
        if raw is None or arr.ndim != 1 or not arr.flags.c_contiguous or not 0 <= i < n:
            arr[index] = value
            return
        host = np.frombuffer(raw, dtype=np.uint8)
        # from pageable memory: the driver stages the bytes before the call returns (host may go)
        cupy.cuda.runtime.memcpyAsync(arr.data.ptr + i * arr.itemsize, host.ctypes.data, len(raw), H2D,
                                      self.compute_stream().ptr)

    def _plain(self, arr) -> bool:
        """A one-dimensional contiguous array of entries of 1, 2, 4 or 8 bytes (the module's kernels
        move entries by their width)."""
        return arr.ndim == 1 and arr.flags.c_contiguous and arr.itemsize in (1, 2, 4, 8)

    def _ids(self, ids):
        if isinstance(ids, cupy.ndarray) and ids.dtype == cupy.int64 and ids.flags.c_contiguous:
            return ids
        return None

    def gather(self, arr, ids):
        idx = self._ids(ids)
        if idx is None or not self._plain(arr):
            return arr[ids]
        k = int(idx.size)
        out = cupy.empty(k, dtype=arr.dtype)
        if k:
            self._bitmap_fn(f"gf_gather_b{arr.itemsize}")(self._grid(k), (BLOCK,), (arr, idx, _I64(k), out))
        return out

    def scatter(self, arr, ids, values) -> None:
        idx = self._ids(ids)
        scalar = np.isscalar(values)
        raw = self._bit_pattern(values, arr.dtype) if scalar else None
        same = scalar or (isinstance(values, cupy.ndarray) and values.dtype == arr.dtype
                          and values.flags.c_contiguous and values.size == (0 if idx is None else idx.size))
        if idx is None or not self._plain(arr) or not same or (scalar and raw is None):
            arr[ids] = values
            return
        k = int(idx.size)
        if k:
            self._bitmap_fn(f"gf_scatter_b{arr.itemsize}")(
                self._grid(k), (BLOCK,), (arr, idx, _I64(k), _null() if scalar else values,
                                          _U64(int.from_bytes(raw, "little") if scalar else 0)))

    def ids_degree_sum(self, ids, degrees) -> int:
        idx = self._ids(ids)
        kind = {np.dtype(np.int64): "i64", np.dtype(np.int32): "i32"}.get(np.dtype(degrees.dtype))
        if idx is None or kind is None or not degrees.flags.c_contiguous:
            return super().ids_degree_sum(ids, degrees)
        k = int(idx.size)
        if k == 0:
            return 0
        out = cupy.zeros(1, dtype=cupy.uint64)
        self._bitmap_fn(f"gf_ids_degrees_{kind}")(self._grid(k), (BLOCK,), (idx, _I64(k), degrees, out))
        return int(out.get()[0])

    def bits_combine(self, op: str, a, b, n: int):
        code = _COMBINE.get(op)
        if code is None:
            return super().bits_combine(op, a, b, n)
        nwords = int(a.size)
        out = cupy.empty(nwords, dtype=cupy.uint32)
        if nwords:
            self._bitmap_fn("gf_bits_combine")(self._grid(nwords), (BLOCK,),
                                               (a, a if b is None else b, _I64(nwords), _I64(n), np.int32(code), out))
        return out

    def select_bits(self, arr, lo: float, hi: float):
        kind = {np.dtype(np.int32): "i32", np.dtype(np.int64): "i64", np.dtype(np.float32): "f32",
                np.dtype(np.float64): "f64"}.get(np.dtype(arr.dtype))
        if kind is None or arr.ndim != 1 or not arr.flags.c_contiguous:
            return None
        n = int(arr.size)
        nwords = self.bitmap_words(n)
        bits = cupy.empty(nwords, dtype=cupy.uint32)
        if nwords:
            self._bitmap_fn(f"gf_select_{kind}")(self._grid(nwords), (BLOCK,),
                                                 (arr, _I64(n), np.float64(lo), np.float64(hi), bits))
        return bits

    def convert(self, arr, dtype):
        # float32 distances widened for a result (SSSP): the module's kernel, not CuPy's astype
        if (np.dtype(arr.dtype) == np.float32 and np.dtype(dtype) == np.float64 and arr.ndim == 1
                and arr.flags.c_contiguous):
            n = int(arr.size)
            out = cupy.empty(n, dtype=cupy.float64)
            if n:
                self._bitmap_fn("gf_widen_f32")(self._grid(n), (BLOCK,), (arr, _I64(n), out))
            return out
        return super().convert(arr, dtype)

    # ---- delta-stepping's dense buckets (runtime/buckets.py: Backend.bucket_range and the rest)
    @staticmethod
    def _bucket_kind(bits, values) -> str | None:
        """The kernels' suffix for ``values`` (float32 or float64, plain), or None (the base's passes)."""
        kind = {np.dtype(np.float32): "f32", np.dtype(np.float64): "f64"}.get(np.dtype(values.dtype))
        plain = (values.ndim == 1 and values.flags.c_contiguous and isinstance(bits, cupy.ndarray)
                 and bits.dtype == cupy.uint32 and bits.flags.c_contiguous)
        return kind if plain else None

    def bucket_range(self, bits, values, delta: float, n: int) -> tuple[int, int]:
        kind = self._bucket_kind(bits, values)
        if kind is None:
            return super().bucket_range(bits, values, delta, n)
        nwords = int(bits.size)
        out = cupy.asarray(np.array([np.iinfo(np.int64).max, np.iinfo(np.int64).min], dtype=np.int64))  # a copy
        if nwords:
            self._bitmap_fn(f"gf_bucket_range_{kind}")(self._grid(nwords), (BLOCK,),
                                                       (bits, _I64(nwords), _I64(n), values, np.float64(delta), out))
        low, high = out.get().tolist()
        return int(low), int(high)

    def bucket_histogram(self, bits, values, delta: float, low: int, span: int, n: int) -> np.ndarray:
        kind = self._bucket_kind(bits, values)
        if kind is None:
            return super().bucket_histogram(bits, values, delta, low, span, n)
        nwords = int(bits.size)
        hist = cupy.zeros(span + 1, dtype=cupy.uint64)
        if nwords:
            self._bitmap_fn(f"gf_bucket_histogram_{kind}")(
                self._grid(nwords), (BLOCK,),
                (bits, _I64(nwords), _I64(n), values, np.float64(delta), _I64(low), _I64(span), hist))
        return hist.get().astype(np.int64)

    def bucket_cut(self, bits, values, delta: float, cut: int, n: int):
        kind = self._bucket_kind(bits, values)
        if kind is None:
            return super().bucket_cut(bits, values, delta, cut, n)
        nwords = int(bits.size)
        take = cupy.empty(nwords, dtype=cupy.uint32)
        rest = cupy.empty(nwords, dtype=cupy.uint32)
        if nwords:
            self._bitmap_fn(f"gf_bucket_cut_{kind}")(
                self._grid(nwords), (BLOCK,),
                (bits, _I64(nwords), _I64(n), values, np.float64(delta), _I64(cut), take, rest))
        return take, rest

    def count_below(self, ids, values, then) -> int:
        idx = self._ids(ids)
        kind = {np.dtype(np.float32): "f32", np.dtype(np.float64): "f64"}.get(np.dtype(values.dtype))
        if (idx is None or kind is None or not values.flags.c_contiguous or then.dtype != values.dtype
                or not then.flags.c_contiguous or then.size != idx.size):
            return super().count_below(ids, values, then)
        k = int(idx.size)
        if k == 0:
            return 0
        out = cupy.zeros(1, dtype=cupy.uint64)
        self._bitmap_fn(f"gf_count_below_{kind}")(self._grid(k), (BLOCK,), (idx, _I64(k), values, then, out))
        return int(out.get()[0])
