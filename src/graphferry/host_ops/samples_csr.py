"""Generated edge samples held in memory -> a CSR with sorted rows, in parallel C++ (OpenMP).

What GAPBS's builder does, and what makes ``graphferry generate`` as fast as
its generator and builder: count the degrees (atomic adds), scatter every arc
at a per-row cursor (atomic), sort and deduplicate each row, compact the rows
into the output (a memory map in the store being written). Every step is one
parallel pass over the samples or the rows; nothing is spilled to disk.

The result is the one :class:`~graphferry.io.builder.CSRBuilder` gives for the
same samples with ``sort_neighbors`` (rows sorted by neighbour id): the arcs
of an unweighted graph are a set (with duplicates kept, a multiset) and a
sorted row lists it one way only, so the two agree array for array. Weighted
samples and unsorted rows take the builder (which keeps the first sample's
weight and the input's order). ``available()`` is False where no C++ compiler
is found; the caller then takes the builder.

Example:
    >>> import numpy as np
    >>> b = SamplesCSR(n=4, directed=False, drop_self_loops=True, drop_duplicates=True)
    >>> b.add(np.array([0, 1, 2, 3]), np.array([1, 0, 2, 1]))   # (1, 0) repeats (0, 1); (2, 2) a loop
    >>> offsets, indices = b.finish_arrays()
    >>> offsets.tolist(), indices.tolist()
    ([0, 1, 3, 3, 4], [1, 0, 3, 1])
"""

from __future__ import annotations

import ctypes
import logging
from functools import lru_cache

import numpy as np

log = logging.getLogger(__name__)

_SOURCE = r"""
#include <algorithm>
#include <cstring>
#include <cstdint>
#include <omp.h>
#define GF_EXPORT extern "C" __attribute__((visibility("default")))

static inline void add1(int64_t* p) { __atomic_fetch_add(p, 1, __ATOMIC_RELAXED); }
static inline int64_t take1(int64_t* p) { return __atomic_fetch_add(p, 1, __ATOMIC_RELAXED); }

// Arcs of sample (s, d): undirected (min, max) both ways, a self-loop once; directed s -> d.
// Graph500 Kronecker samples of blocks [0, nblocks), block b's BLOCK draws from the SFC64 state
// states[4b..4b+3] (numpy's SFC64: the same raw stream kronecker_edges reads); per level a
// uint32 u picks the quadrant (source bit u >= tab; destination bit (u >= ta) ^ (u >= tab) ^
// (u >= tabc)), first level most significant; perm relabels (null: none). Sample i of block b
// goes to out[b * BLOCK + i] while that is below count.
static inline uint64_t rotl64(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

GF_EXPORT void gf_kronecker_blocks(const uint64_t* states, int64_t nblocks, int64_t block, int scale,
                                   uint32_t ta, uint32_t tab, uint32_t tabc, const int32_t* perm,
                                   int64_t count, int32_t* src_out, int32_t* dst_out, int threads) {
    #pragma omp parallel num_threads(threads > 0 ? threads : omp_get_max_threads())
    {
        uint32_t* src = new uint32_t[block];  // scale <= 31: ids fit (half the cache of uint64)
        uint32_t* dst = new uint32_t[block];
        #pragma omp for schedule(dynamic, 1)
        for (int64_t b = 0; b < nblocks; ++b) {
            uint64_t s0 = states[4 * b], s1 = states[4 * b + 1], s2 = states[4 * b + 2], s3 = states[4 * b + 3];
            std::fill(src, src + block, 0);
            std::fill(dst, dst + block, 0);
            for (int level = 0; level < scale; ++level) {
                for (int64_t i = 0; i < block; i += 2) {
                    const uint64_t r = s0 + s1 + s3++;
                    s0 = s1 ^ (s1 >> 11);
                    s1 = s2 + (s2 << 3);
                    s2 = rotl64(s2, 24) + r;
                    const uint32_t u[2] = {(uint32_t)r, (uint32_t)(r >> 32)};  // little-endian view
                    for (int h = 0; h < 2; ++h) {
                        const uint32_t ii = u[h] >= tab;
                        const uint32_t jj = (uint32_t)(u[h] >= ta) ^ ii ^ (uint32_t)(u[h] >= tabc);
                        src[i + h] = (src[i + h] << 1) | ii;
                        dst[i + h] = (dst[i + h] << 1) | jj;
                    }
                }
            }
            const int64_t lo = b * block;
            const int64_t k = std::min<int64_t>(block, count - lo);
            for (int64_t i = 0; i < k; ++i) {
                src_out[lo + i] = perm ? perm[src[i]] : (int32_t)src[i];
                dst_out[lo + i] = perm ? perm[dst[i]] : (int32_t)dst[i];
            }
        }
        delete[] src;
        delete[] dst;
    }
}

// Degrees of one chunk of samples.
GF_EXPORT void gf_samples_count(const int32_t* src, const int32_t* dst, int64_t k, int64_t* deg,
                                int undirected, int drop_loops) {
    #pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < k; ++i) {
        const int32_t s = src[i], d = dst[i];
        if (s == d) { if (!drop_loops) add1(&deg[s]); continue; }
        add1(&deg[s]);
        if (undirected) add1(&deg[d]);
    }
}

// Each arc of one chunk into its row at the row's cursor (order within a row is sorted later).
GF_EXPORT void gf_samples_scatter(const int32_t* src, const int32_t* dst, int64_t k, int64_t* cursor,
                                  int32_t* idx, int undirected, int drop_loops) {
    #pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < k; ++i) {
        const int32_t s = src[i], d = dst[i];
        if (s == d) { if (!drop_loops) idx[take1(&cursor[s])] = d; continue; }
        idx[take1(&cursor[s])] = d;
        if (undirected) idx[take1(&cursor[d])] = s;
    }
}

// Sort every row; with dedup keep one of each neighbour. kept[v]: the row's length after.
GF_EXPORT void gf_rows_sort(const int64_t* off, int32_t* idx, int64_t n, int64_t* kept, int dedup) {
    #pragma omp parallel for schedule(dynamic, 4096)
    for (int64_t v = 0; v < n; ++v) {
        int32_t* lo = idx + off[v];
        int32_t* hi = idx + off[v + 1];
        std::sort(lo, hi);
        kept[v] = dedup ? (std::unique(lo, hi) - lo) : (hi - lo);
    }
}

// Rows' first kept[v] entries, packed at the new offsets.
GF_EXPORT void gf_rows_compact(const int64_t* off, const int32_t* idx, const int64_t* new_off, int64_t n,
                               int32_t* out) {
    #pragma omp parallel for schedule(dynamic, 4096)
    for (int64_t v = 0; v < n; ++v) {
        std::copy(idx + off[v], idx + off[v] + (new_off[v + 1] - new_off[v]), out + new_off[v]);
    }
}
"""


@lru_cache(maxsize=1)
def _library():
    from .compiler import compile_library

    lib = compile_library(_SOURCE, label="samples_csr")
    p32, p64 = ctypes.POINTER(ctypes.c_int32), ctypes.POINTER(ctypes.c_int64)
    i64, i32 = ctypes.c_int64, ctypes.c_int
    lib.gf_samples_count.argtypes = [p32, p32, i64, p64, i32, i32]
    lib.gf_samples_scatter.argtypes = [p32, p32, i64, p64, p32, i32, i32]
    lib.gf_rows_sort.argtypes = [p64, p32, i64, p64, i32]
    lib.gf_rows_compact.argtypes = [p64, p32, p64, i64, p32]
    u32 = ctypes.c_uint32
    lib.gf_kronecker_blocks.argtypes = [ctypes.POINTER(ctypes.c_uint64), i64, i64, i32, u32, u32, u32, p32, i64,
                                        p32, p32, i32]
    return lib


def offsets_from_degrees(degrees: np.ndarray) -> np.ndarray:
    """Exclusive prefix sum as int64 offsets (``n + 1`` entries), as ``graph.offsets_from_degrees``
    (host_ops imports nothing above the store)."""
    offsets = np.empty(len(degrees) + 1, dtype=np.int64)
    offsets[0] = 0
    np.cumsum(degrees, dtype=np.int64, out=offsets[1:])
    return offsets


def memory_available() -> int | None:
    """Bytes of memory available to a new allocation (Linux ``MemAvailable``; None elsewhere):
    what decides whether a build fits in memory."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def available() -> bool:
    """Whether the compiled builder can run here (a C++ compiler with OpenMP)."""
    try:
        _library()
    except Exception as exc:  # noqa: BLE001 - no compiler, a failed build: the caller takes the builder
        log.info("in-memory CSR build unavailable (%s); using the chunked builder", exc)
        return False
    return True


def _p32(a: np.ndarray):
    return a.ctypes.data_as(ctypes.POINTER(ctypes.c_int32))


def _p64(a: np.ndarray):
    return a.ctypes.data_as(ctypes.POINTER(ctypes.c_int64))


def kronecker_chunks(scale: int, edge_factor: int, thresholds: tuple[int, int, int], perm: np.ndarray | None,
                     states, *, block: int, chunk_edges: int, threads: int | None = None):
    """:func:`graphferry.generators.kronecker_edges`'s samples as int32 chunks, drawn by compiled code.

    ``states(k)``: the four-word SFC64 state block ``k`` starts from (the generator's own
    seeding, so the samples are the same, bit for bit); chunks of ``chunk_edges`` samples
    (the last one shorter), drawn a group of whole blocks at a time on ``threads`` threads
    (None: OpenMP's default, every core).
    """
    chunk_blocks = max(1, chunk_edges // block)
    if scale > 31:
        raise ValueError("int32 samples: scale must be at most 31")
    lib = _library()
    total = edge_factor << scale
    n_blocks = -(-total // block)
    ta, tab, tabc = (int(t) for t in thresholds)
    perm32 = None if perm is None else np.ascontiguousarray(perm, dtype=np.int32)  # held while C reads it
    perm_p = None if perm32 is None else _p32(perm32)
    def groups():
        for first in range(0, n_blocks, chunk_blocks):
            nb = min(chunk_blocks, n_blocks - first)
            st = np.ascontiguousarray(np.stack([states(first + j) for j in range(nb)]), dtype=np.uint64)
            count = min(nb * block, total - first * block)
            src = np.empty(count, dtype=np.int32)
            dst = np.empty(count, dtype=np.int32)
            lib.gf_kronecker_blocks(st.ctypes.data_as(ctypes.POINTER(ctypes.c_uint64)), nb, block, scale,
                                    ta, tab, tabc, perm_p, count, _p32(src), _p32(dst), int(threads or 0))
            yield src, dst

    yield from _regroup(groups(), chunk_edges)


def _regroup(pieces, size: int):
    """``(src, dst)`` pieces as chunks of exactly ``size`` samples (the last one shorter)."""
    buf_s: list[np.ndarray] = []
    buf_d: list[np.ndarray] = []
    have = 0
    for s, d in pieces:
        while len(s):
            take = min(size - have, len(s))
            buf_s.append(s[:take])
            buf_d.append(d[:take])
            have += take
            s, d = s[take:], d[take:]
            if have == size:
                yield (buf_s[0], buf_d[0]) if len(buf_s) == 1 else (np.concatenate(buf_s), np.concatenate(buf_d))
                buf_s, buf_d, have = [], [], 0
    if have:
        yield (buf_s[0], buf_d[0]) if len(buf_s) == 1 else (np.concatenate(buf_s), np.concatenate(buf_d))


class SamplesCSR:
    """Edge samples added chunk by chunk (held as int32), then one CSR with sorted rows.

    ``n`` must be below 2**31 (int32 ids). Degrees are counted as chunks arrive.
    """

    def __init__(self, n: int, *, directed: bool, drop_self_loops: bool, drop_duplicates: bool):
        if n >= 2**31:
            raise ValueError("SamplesCSR holds int32 ids: n must be below 2**31")
        self.n = int(n)
        self.directed = bool(directed)
        self.drop_self_loops = bool(drop_self_loops)
        self.drop_duplicates = bool(drop_duplicates)
        self._chunks: list[tuple[np.ndarray, np.ndarray]] = []
        self._deg = np.zeros(self.n, dtype=np.int64)
        self.samples = 0

    def _flags(self) -> tuple[int, int]:
        return int(not self.directed), int(self.drop_self_loops)

    def add(self, src: np.ndarray, dst: np.ndarray) -> None:
        """A chunk of samples (ids in ``[0, n)``; checked here, as the builder checks them)."""
        src = np.asarray(src)
        dst = np.asarray(dst)
        if len(src) != len(dst):
            raise ValueError("src and dst differ in length")
        if len(src) == 0:
            return
        lo = min(int(src.min()), int(dst.min()))
        hi = max(int(src.max()), int(dst.max()))
        if lo < 0 or hi >= self.n:
            raise ValueError(f"vertex id {lo if lo < 0 else hi} is outside [0, {self.n})")
        s = np.ascontiguousarray(src, dtype=np.int32)
        d = np.ascontiguousarray(dst, dtype=np.int32)
        _library().gf_samples_count(_p32(s), _p32(d), len(s), _p64(self._deg), *self._flags())
        self._chunks.append((s, d))
        self.samples += len(s)

    def arcs(self) -> int:
        """Arcs before deduplication (the scatter's size)."""
        return int(self._deg.sum())

    def build(self, out_indices) -> tuple[np.ndarray, np.ndarray]:
        """``(offsets, rows)``: the CSR's offsets and its indices in a scratch array.

        ``out_indices(m)`` gives the array of ``m`` int32 entries the rows are packed into
        (a store's memory map, or memory); returns ``(offsets, that array)``.
        """
        lib = _library()
        undirected, drop_loops = self._flags()
        offsets = offsets_from_degrees(self._deg)
        raw = np.empty(int(offsets[-1]), dtype=np.int32)
        cursor = offsets[:-1].copy()
        while self._chunks:  # each chunk freed once scattered
            s, d = self._chunks.pop(0)
            lib.gf_samples_scatter(_p32(s), _p32(d), len(s), _p64(cursor), _p32(raw), undirected, drop_loops)
            del s, d
        if not np.array_equal(cursor, offsets[1:]):  # pragma: no cover - internal invariant
            raise AssertionError("scatter did not fill every row exactly")
        del cursor
        kept = np.empty(self.n, dtype=np.int64)
        lib.gf_rows_sort(_p64(offsets), _p32(raw), self.n, _p64(kept), int(self.drop_duplicates))
        new_offsets = offsets_from_degrees(kept)
        out = out_indices(int(new_offsets[-1]))
        if len(out):
            lib.gf_rows_compact(_p64(offsets), _p32(raw), _p64(new_offsets), self.n, _p32(out))
        return new_offsets, out

    def finish_arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """``(offsets, indices)`` in memory."""
        return self.build(lambda m: np.empty(m, dtype=np.int32))
