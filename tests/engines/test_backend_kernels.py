"""The CUDA backend's own small kernels (backends/cuda/bitmap_kernels.py), checked without a GPU.

On a fresh machine every CuPy kernel a run touches is compiled by NVRTC when first used, one
after the other on the thread that asked; the backend launches its own module's kernels instead
(fills, ids, gathers, scatters, bitmap set operations, counts). Checked here:

* the module's kernels compute what numpy computes (the oracle): the same source compiled by the
  host's C++ compiler with a one-thread-a-block emulation of the CUDA names it uses (grids of
  several blocks, so the grid-stride loops stride);
* the CUDA backend asks its module only for kernels the module has, and builds no CuPy kernel of
  its own (``ReductionKernel``, ``ElementwiseKernel``): the kernels a fresh machine compiles are
  the programs' groups and this one module (the device call's ``cupy_kernels_compiled`` shows
  which CuPy compiled, bench/oneshot_gpu_bench.py);
* the runtime's one-shot paths (BFS, WCC, PageRank, SSSP's dense buckets) reach vertex state only through the
  backend's operations: run on a backend whose arrays record every array operation made on them
  behind the backend's back (each would be a CuPy kernel compiled on a fresh machine), none is.
"""

from __future__ import annotations

import ast
import ctypes
import re
from pathlib import Path

import numpy as np
import pytest

from graphferry.backends.cuda.bitmap_kernels import BITMAP_SRC, KERNELS

CUDA_DIR = Path(__file__).resolve().parents[2] / "src" / "graphferry" / "backends" / "cuda"

#: The CUDA names the module uses, for the host compiler: blocks of one thread (a warp of one lane,
#: whose shuffles bring nothing from other lanes), launched block by block by :func:`launch`.
EMULATION = r"""
#include <cmath>
#include <cstdint>
struct GfDim { unsigned int x, y, z; };
static GfDim blockIdx, blockDim, gridDim, threadIdx;
extern "C" __attribute__((visibility("default"))) void gf_emulate_block(unsigned int block, unsigned int grid) {
    blockIdx.x = block; gridDim.x = grid; blockDim.x = 1; threadIdx.x = 0;
}
#define __global__ __attribute__((visibility("default")))
#define __device__
#define __forceinline__ inline
#define __shared__
#define __syncthreads()
unsigned long long acc[4096];
static inline int __popc(unsigned int x) { return __builtin_popcount(x); }
static inline int __ffs(unsigned int x) { return __builtin_ffs(x); }
template <typename T> static inline T __shfl_down_sync(unsigned, T, int) { return 0; }
template <typename T> static inline T __shfl_sync(unsigned, T v, int) { return v; }
static inline bool __all_sync(unsigned, bool p) { return p; }
static inline unsigned long long atomicAdd(unsigned long long* a, unsigned long long v) {
    unsigned long long o = *a; *a += v; return o;
}
static inline unsigned int atomicOr(unsigned int* a, unsigned int v) { unsigned int o = *a; *a |= v; return o; }
static inline long long atomicMin(long long* a, long long v) { long long o = *a; if (v < o) *a = v; return o; }
static inline long long atomicMax(long long* a, long long v) { long long o = *a; if (v > o) *a = v; return o; }
"""


@pytest.fixture(scope="module")
def lib():
    from graphferry.host_ops.compiler import compile_library

    return compile_library(EMULATION + BITMAP_SRC, label="cuda-kernels-emulated")


def _arg(a):
    if a is None:
        return ctypes.c_void_p(0)
    if isinstance(a, np.ndarray):
        return ctypes.c_void_p(a.ctypes.data)
    if isinstance(a, float):
        return ctypes.c_double(a)
    if isinstance(a, np.uint64):
        return ctypes.c_ulonglong(int(a))
    if isinstance(a, np.int32):
        return ctypes.c_int(int(a))
    return ctypes.c_longlong(int(a))


def launch(lib, name: str, *args, grid: int = 3) -> None:
    """Kernel ``name`` over a grid of ``grid`` one-thread blocks, one block after the other."""
    fn = getattr(lib, name)
    fn.restype = None
    for block in range(grid):
        lib.gf_emulate_block(block, grid)
        fn(*[_arg(a) for a in args])


def bits_of(mask: np.ndarray) -> np.ndarray:
    words = np.zeros(-(-len(mask) // 32) * 32, dtype=np.uint8)
    words[: len(mask)] = mask
    return np.packbits(words, bitorder="little").view(np.uint32)


RNG = np.random.default_rng(34)


def test_popcount_counts_every_bit(lib):
    words = RNG.integers(0, 1 << 32, 101, dtype=np.uint64).astype(np.uint32)
    out = np.zeros(1, np.uint64)
    launch(lib, "gf_popcount_words", words, len(words), out)
    assert int(out[0]) == int(np.bitwise_count(words).sum())


@pytest.mark.parametrize("dtype, value", [(np.float64, 1 / 3), (np.float32, np.inf), (np.int16, -2),
                                          (np.uint8, 7), (np.int64, -(1 << 40) + 5)])
def test_fill_writes_the_value_bit_pattern(lib, dtype, value):
    out = np.zeros(77, dtype)
    raw = np.asarray(value, dtype=dtype).tobytes()
    launch(lib, f"gf_fill_b{len(raw)}", out, len(out), np.uint64(int.from_bytes(raw, "little")))
    assert np.array_equal(out, np.full(77, value, dtype))


@pytest.mark.parametrize("kind, dtype", [("i32", np.int32), ("i64", np.int64)])
def test_iota(lib, kind, dtype):
    out = np.full(70, -9, dtype)
    launch(lib, f"gf_iota_{kind}", out, len(out))
    assert np.array_equal(out, np.arange(70, dtype=dtype))


@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.float32, np.float64])
def test_gather_and_scatter(lib, dtype):
    src = RNG.integers(0, 100, 50).astype(dtype)
    ids = RNG.integers(0, 50, 23).astype(np.int64)
    out = np.zeros(len(ids), dtype)
    size = np.dtype(dtype).itemsize
    launch(lib, f"gf_gather_b{size}", src, ids, len(ids), out)
    assert np.array_equal(out, src[ids])
    distinct = RNG.permutation(50)[:17].astype(np.int64)
    values = RNG.integers(0, 100, 17).astype(dtype)
    want = src.copy()
    want[distinct] = values
    launch(lib, f"gf_scatter_b{size}", src, distinct, len(distinct), values, np.uint64(0))
    assert np.array_equal(src, want)
    one = np.asarray(42, dtype=dtype).tobytes()
    want[distinct[:5]] = 42
    launch(lib, f"gf_scatter_b{size}", src, distinct[:5], 5, None, np.uint64(int.from_bytes(one, "little")))
    assert np.array_equal(src, want)


@pytest.mark.parametrize("kind, dtype", [("i64", np.int64), ("i32", np.int32)])
def test_ids_degree_sum(lib, kind, dtype):
    deg = RNG.integers(0, 1000, 300).astype(dtype)
    ids = np.unique(RNG.integers(0, 300, 90)).astype(np.int64)
    out = np.zeros(1, np.uint64)
    launch(lib, f"gf_ids_degrees_{kind}", ids, len(ids), deg, out)
    assert int(out[0]) == int(deg[ids].astype(np.int64).sum())


@pytest.mark.parametrize("n", [1, 31, 32, 100, 129])
def test_bits_combine_matches_the_backend_base(lib, n):
    from graphferry.backends.cpu.backend import CpuBackend

    a, b = bits_of(RNG.random(n) < 0.5), bits_of(RNG.random(n) < 0.3)
    for code, op in enumerate(("or", "and", "andnot", "not")):
        out = np.full(len(a), 0xDEADBEEF, np.uint32)
        launch(lib, "gf_bits_combine", a, b, len(a), n, np.int32(code), out)
        assert np.array_equal(out, CpuBackend().bits_combine(op, a, b, n)), op


@pytest.mark.parametrize("kind, dtype", [("i32", np.int32), ("i64", np.int64), ("f32", np.float32),
                                         ("f64", np.float64)])
@pytest.mark.parametrize("n", [5, 64, 99])
def test_select_bits(lib, kind, dtype, n):
    vals = RNG.integers(-5, 20, n).astype(dtype)
    if kind.startswith("f"):
        vals[::7] = np.inf
    lo, hi = 3.0, 11.0
    bits = np.full(-(-n // 32), 0xFFFFFFFF, np.uint32)
    launch(lib, f"gf_select_{kind}", vals, n, lo, hi, bits)
    assert np.array_equal(bits, bits_of((vals >= lo) & (vals < hi)))


def test_widen_f32(lib):
    src = RNG.random(77).astype(np.float32)
    src[::9] = np.inf
    out = np.zeros(77, np.float64)
    launch(lib, "gf_widen_f32", src, len(src), out)
    assert np.array_equal(out, src.astype(np.float64))


@pytest.mark.parametrize("kind, dtype", [("f32", np.float32), ("f64", np.float64)])
@pytest.mark.parametrize("n", [1, 32, 77, 200])
def test_dense_bucket_passes_match_numpy(lib, kind, dtype, n):
    """Delta-stepping's dense buckets (the pending vertices a bitmap): range, histogram and cut of
    their buckets floor(value / delta) in double, as numpy computes them; the base backend's passes
    (what the CPU runs) agree with both. Bits past n in the last word are garbage: never read."""
    from graphferry.backends.cpu.backend import CpuBackend

    vals = (RNG.random(n) * 40).astype(dtype)
    mask = RNG.random(n) < 0.6
    mask[RNG.integers(0, n)] = True
    bits = bits_of(mask)
    if n % 32:
        bits[-1] |= np.uint32(~((1 << (n % 32)) - 1) & 0xFFFFFFFF)  # garbage past n
    delta = 0.7
    keys = np.floor(vals.astype(np.float64) / delta).astype(np.int64)
    low, high = int(keys[mask].min()), int(keys[mask].max())
    out = np.array([np.iinfo(np.int64).max, np.iinfo(np.int64).min], np.int64)
    launch(lib, f"gf_bucket_range_{kind}", bits, len(bits), n, vals, delta, out)
    assert out.tolist() == [low, high]
    span = min(high - low, 5)
    hist = np.zeros(span + 1, np.uint64)
    launch(lib, f"gf_bucket_histogram_{kind}", bits, len(bits), n, vals, delta, low, span, hist)
    want = np.bincount(np.minimum(keys[mask] - low, span), minlength=span + 1)
    assert np.array_equal(hist.astype(np.int64), want)
    cut = low + 2
    take = np.full(len(bits), 0xDEADBEEF, np.uint32)
    rest = np.full(len(bits), 0xDEADBEEF, np.uint32)
    launch(lib, f"gf_bucket_cut_{kind}", bits, len(bits), n, vals, delta, cut, take, rest)
    assert np.array_equal(take, bits_of(mask & (keys < cut))) and np.array_equal(rest, bits_of(mask & (keys >= cut)))
    base = CpuBackend()
    clean = bits_of(mask)
    assert base.bucket_range(clean, vals, delta, n) == (low, high)
    assert np.array_equal(base.bucket_histogram(clean, vals, delta, low, span, n), want)
    assert all(np.array_equal(a, b) for a, b in zip(base.bucket_cut(clean, vals, delta, cut, n), (take, rest)))


@pytest.mark.parametrize("kind, dtype", [("f32", np.float32), ("f64", np.float64)])
def test_count_below(lib, kind, dtype):
    from graphferry.backends.cpu.backend import CpuBackend

    vals = RNG.random(90).astype(dtype)
    ids = np.unique(RNG.integers(0, 90, 40)).astype(np.int64)
    then = (vals[ids] + RNG.normal(0, 0.1, len(ids))).astype(dtype)
    out = np.zeros(1, np.uint64)
    launch(lib, f"gf_count_below_{kind}", ids, len(ids), vals, then, out)
    want = int((vals[ids] < then).sum())
    assert int(out[0]) == want == CpuBackend().count_below(ids, vals, then)


# ---------------------------------------------------------------- the backend asks its module only
def test_the_cuda_backend_launches_only_kernels_of_its_module_and_builds_no_cupy_kernel():
    names = []
    for node in (n for f in ("backend.py", "state_ops.py") for n in ast.walk(ast.parse((CUDA_DIR / f).read_text()))):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "_bitmap_fn":
            arg = node.args[0]
            if isinstance(arg, ast.Constant):
                names.append(arg.value)
            else:  # an f-string: its literal start must begin a kernel's name
                assert isinstance(arg, ast.JoinedStr), ast.dump(arg)
                names.append(re.escape(arg.values[0].value) + r"\w*")
        if isinstance(node, ast.Attribute) and node.attr in ("ReductionKernel", "ElementwiseKernel", "RawKernel"):
            pytest.fail(f"the CUDA backend builds a CuPy {node.attr} (line {node.lineno}): compiled on the thread that "
                        "first uses it, apart from the module compiled in the background")
    assert len(names) >= 12
    for name in names:
        assert any(re.fullmatch(name, k) for k in KERNELS), name


# ---------------------------------------------------------------- no array operation behind the backend
class Watched(np.ndarray):
    """A backend array that records each operation made on it directly (CuPy would compile a kernel
    for it on a fresh machine): fancy or scalar indexing writes, fancy reads, copies, ufuncs."""

    log: list[str] = []

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        Watched.log.append(f"ufunc {ufunc.__name__}.{method}")
        inputs = tuple(np.asarray(x) if isinstance(x, Watched) else x for x in inputs)
        if "out" in kwargs:
            kwargs["out"] = tuple(np.asarray(x) if isinstance(x, Watched) else x for x in kwargs["out"])
        return getattr(ufunc, method)(*inputs, **kwargs)

    def __getitem__(self, key):
        if isinstance(key, (np.ndarray, list)) or (isinstance(key, tuple) and any(isinstance(k, np.ndarray) for k in key)):
            Watched.log.append("take")
        return super().__getitem__(key)

    def __setitem__(self, key, value):
        Watched.log.append("setitem")
        np.asarray(self)[key] = value

    def astype(self, *a, **k):
        Watched.log.append("astype")
        return np.asarray(self).astype(*a, **k)

    def copy(self, *a, **k):
        Watched.log.append("copy")
        return np.asarray(self).copy(*a, **k)

    def fill(self, value):
        Watched.log.append("fill")
        np.asarray(self).fill(value)

    def sum(self, *a, **k):  # (CuPy's full sums run CUB's precompiled kernels: allowed, not recorded)
        return np.asarray(self).sum(*a, **k)


def _recording_backend():
    """The CPU backend as a device whose arrays are :class:`Watched`; its own operations (what the
    CUDA backend runs as its module's kernels) work on the plain arrays and record nothing."""
    from graphferry.backends.base import Backend
    from graphferry.backends.cpu.backend import CpuBackend

    def w(a):
        return a.view(Watched) if isinstance(a, np.ndarray) and not isinstance(a, Watched) else a

    def p(a):
        return a.view(np.ndarray) if isinstance(a, Watched) else a

    class Recording(CpuBackend):
        is_device = True
        name = "recording"

        def empty(self, shape, dtype):
            return w(np.empty(shape, dtype))

        def zeros(self, shape, dtype):
            return w(np.zeros(shape, dtype))

        def full(self, shape, value, dtype):
            return w(np.full(shape, value, dtype))

        def vertex_ids(self, n, dtype):
            return w(np.arange(n, dtype=dtype))

        def asarray(self, host):
            return w(np.array(p(host)))

        def to_host(self, arr):
            return np.array(p(arr))

        def on_host(self, arr):
            return False

        def synchronize(self):
            pass

        def set_entry(self, arr, index, value):
            p(arr)[index] = value

        def scatter(self, arr, ids, values):
            p(arr)[p(ids)] = p(values)

        def gather(self, arr, ids):
            return w(p(arr)[p(ids)])

        def ids_degree_sum(self, ids, degrees):
            return int(p(degrees)[p(ids)].sum())

        def bits_combine(self, op, a, b, n):
            return w(Backend.bits_combine(self, op, p(a), p(b), n))

        def select_bits(self, arr, lo, hi):
            return w(super().select_bits(p(arr), lo, hi))

        def ids_from_bits(self, bits, n):
            return w(super().ids_from_bits(p(bits), n))

        def bits_from_ids(self, ids, n):
            return w(super().bits_from_ids(p(ids), n))

        def bits_degree_sum(self, bits, degrees, n):
            return Backend.bits_degree_sum(self, p(bits), p(degrees), n)

        def popcount(self, bits):
            return super().popcount(p(bits))

        def reduce(self, arr, op, ids=None):
            return super().reduce(p(arr), op, None if ids is None else p(ids))

        def convert(self, arr, dtype):
            return w(np.asarray(p(arr)).astype(dtype))

        # a GPU's bucket layout (the CUDA backend's figures): the pending vertices one bitmap
        dense_buckets = True
        bucket_fill = 1 << 62
        bucket_share = 1 / 32
        round_price_resident = 100e6
        round_price_bus = 35e6

        def bucket_range(self, bits, values, delta, n):
            return plain.bucket_range(p(bits), p(values), delta, n)

        def bucket_histogram(self, bits, values, delta, low, span, n):
            return plain.bucket_histogram(p(bits), p(values), delta, low, span, n)

        def bucket_cut(self, bits, values, delta, cut, n):
            return tuple(w(a) for a in plain.bucket_cut(p(bits), p(values), delta, cut, n))

        def count_below(self, ids, values, then):
            return plain.count_below(p(ids), p(values), p(then))

    plain = CpuBackend()
    return Recording()


@pytest.mark.parametrize("algorithm", ["bfs", "wcc", "pagerank_ldbc", "sssp", "sssp-uniform"])
def test_one_shot_paths_touch_vertex_state_only_through_the_backend(algorithm):
    """SSSP on a GPU's bucket layout: on Kronecker the lowest bucket a round (fill 1), on a uniform
    random graph the lowest buckets up to n/32 vertices a round while deferring pays (always, at a
    round price of 0)."""
    import graphferry as gf
    from graphferry.algorithms import bfs, pagerank_ldbc, sssp, wcc
    from graphferry.generators import kronecker_graph, uniform_graph

    g = (uniform_graph(10, seed=2, weighted=True) if algorithm == "sssp-uniform" else
         kronecker_graph(9, seed=4, weighted=algorithm == "sssp"))
    source = int(np.argmax(g.out_degree))
    calls = {"bfs": lambda lg: bfs(lg, source, engine="resident").levels,
             "wcc": lambda lg: wcc(lg, engine="resident").labels,
             "pagerank_ldbc": lambda lg: pagerank_ldbc(lg, damping=0.85, iterations=4, engine="resident").ranks,
             "sssp": lambda lg: sssp(lg, source, engine="resident").distances}
    calls["sssp-uniform"] = calls["sssp"]
    want = calls[algorithm](g)  # the CPU backend's sparse buckets
    backend = _recording_backend()
    if algorithm == "sssp":  # plain delta-stepping on the dense layout: the lowest bucket a round
        backend.bucket_fill = 1
    if algorithm == "sssp-uniform":  # rounds free: deferral goes on (histograms, held-back counts)
        backend.round_price_resident = backend.round_price_bus = 0.0
    Watched.log = []
    with gf.load(g, backend=backend, kept=False) as lg:
        got = calls[algorithm](lg)
    assert np.allclose(np.asarray(got), np.asarray(want))
    assert Watched.log == [], f"{algorithm}: array operations behind the backend: {sorted(set(Watched.log))}"


def test_the_recording_arrays_see_what_cupy_would_compile():
    a = np.arange(8).view(Watched)
    Watched.log = []
    a[np.array([1, 2])]
    a[3] = 1
    a | a
    a.astype(np.int32)
    assert Watched.log == ["take", "setitem", "ufunc bitwise_or.__call__", "astype"]


# ---------------------------------------------------------------- on a GPU: the backend's methods
@pytest.mark.gpu
def test_cuda_backend_vertex_state_passes_match_numpy():
    import cupy

    from graphferry.backends import get_backend

    b = get_backend("cuda")
    n = 1000
    for dtype, value in ((np.int32, -1), (np.float64, 1 / 7), (np.float32, np.inf), (np.int64, 5), (np.uint8, 0)):
        assert np.array_equal(b.to_host(b.full(n, value, dtype)), np.full(n, value, dtype))
    for dtype in (np.int32, np.int64):
        assert np.array_equal(b.to_host(b.vertex_ids(n, dtype)), np.arange(n, dtype=dtype))
    arr = b.full(n, -1, np.int32)
    b.set_entry(arr, 7, 3)
    b.set_entry(arr, -1, 9)
    want = np.full(n, -1, np.int32)
    want[7], want[-1] = 3, 9
    assert np.array_equal(b.to_host(arr), want)
    src = RNG.random(n)
    ids = RNG.integers(0, n, 300).astype(np.int64)
    assert np.array_equal(b.to_host(b.gather(b.asarray(src), b.asarray(ids))), src[ids])
    distinct = RNG.permutation(n)[:200].astype(np.int64)
    dev = b.asarray(src)
    b.scatter(dev, b.asarray(distinct), 2.5)
    want = src.copy()
    want[distinct] = 2.5
    assert np.array_equal(b.to_host(dev), want)
    deg = RNG.integers(0, 50, n).astype(np.int64)
    assert b.ids_degree_sum(b.asarray(distinct), b.asarray(deg)) == int(deg[distinct].sum())
    x, y = bits_of(RNG.random(n) < 0.4), bits_of(RNG.random(n) < 0.4)
    for op in ("or", "and", "andnot", "not"):
        got = b.to_host(b.bits_combine(op, b.asarray(x), b.asarray(y), n))
        assert np.array_equal(got, _cpu_bits_combine(op, x, y, n)), op
    vals = RNG.integers(0, 9, n).astype(np.int32)
    assert np.array_equal(b.to_host(b.select_bits(b.asarray(vals), 2, 5)), bits_of((vals >= 2) & (vals < 5)))
    assert b.popcount(b.asarray(x)) == int(np.bitwise_count(x).sum())
    copy = b.asarray(dev)
    assert isinstance(copy, cupy.ndarray) and copy.data.ptr != dev.data.ptr
    assert np.array_equal(b.to_host(copy), want)


def _cpu_bits_combine(op, a, b, n):
    from graphferry.backends.cpu.backend import CpuBackend

    return CpuBackend().bits_combine(op, a, b, n)
