"""The CUDA backend's own small kernels (frontier bitmaps, per-partition counts, row prefixes, and
the vertex-state passes a run makes around its programs: fills, ids, gathers, scatters, set
operations on bitmaps, counts, delta-stepping's dense buckets), compiled as ONE module per process apart from the programs (no
CuPy needed to read this).

Why one module of our own: on a fresh machine every CuPy elementwise or reduction kernel a run
touches (``cupy.full`` with a value other than 0, fancy indexing, ``astype``, ``arange``, a
``ReductionKernel``, ``|`` on two arrays) is compiled by NVRTC on first use, on the thread that
asked, one after the other: a one-shot BFS at Kronecker 25 on the H200 spent about 5 s of its
6 s 'algorithm' phase so (bench/results/oneshot-gpu-kron25-h200.json, ``cupy_kernels_compiled``).
This module is submitted to the compile pool when the backend starts, so its single compilation
overlaps the graph's reading; the backend launches these kernels instead of CuPy's
(:data:`KERNELS` names them all; tests/engines/test_backend_kernels.py checks the backend asks
for nothing else).

Example:
    >>> "gf_popc_words" in BITMAP_SRC and "gf_partition_counts" in BITMAP_SRC
    True
    >>> {"gf_popcount_words", "gf_fill_b4", "gf_gather_b8", "gf_bits_combine"} <= set(KERNELS)
    True
"""

import re

BITMAP_SRC = r"""
extern "C" __global__ void gf_popc_words(const unsigned int* bits, long long nwords, long long n, long long* counts) {
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i >= nwords) return;
    unsigned int w = bits[i];
    if (i == nwords - 1 && (n & 31)) w &= (1u << (n & 31)) - 1u;
    counts[i] = __popc(w);
}
extern "C" __global__ void gf_scatter_ids(const unsigned int* bits, long long nwords, long long n,
                                          const long long* ends, long long* out) {
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i >= nwords) return;
    unsigned int w = bits[i];
    if (i == nwords - 1 && (n & 31)) w &= (1u << (n & 31)) - 1u;
    long long pos = ends[i] - __popc(w);
    while (w) {
        const int b = __ffs(w) - 1;
        w &= w - 1u;
        out[pos++] = i * 32 + b;
    }
}
// per word: its set bits (masked to n) and the sum of their vertices' degrees, reduced per warp
// and added to out[0] (count) and out[1] (degree sum): a frontier's size and edges in one pass
// over its bitmap, without listing its ids
template <typename D>
__device__ void gf_bits_degrees(const unsigned int* bits, long long nwords, long long n, const D* deg,
                                unsigned long long* out) {
    unsigned long long count = 0, edges = 0;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < nwords;
         i += (long long)gridDim.x * blockDim.x) {
        unsigned int w = bits[i];
        if (i == nwords - 1 && (n & 31)) w &= (1u << (n & 31)) - 1u;
        count += __popc(w);
        while (w) {
            const int b = __ffs(w) - 1;
            w &= w - 1u;
            edges += (unsigned long long)deg[i * 32 + b];
        }
    }
    for (int off = 16; off; off >>= 1) {
        count += __shfl_down_sync(0xffffffffu, count, off);
        edges += __shfl_down_sync(0xffffffffu, edges, off);
    }
    if ((threadIdx.x & 31) == 0 && (count || edges)) {
        atomicAdd(&out[0], count);
        atomicAdd(&out[1], edges);
    }
}
extern "C" __global__ void gf_bits_degrees_i64(const unsigned int* bits, long long nwords, long long n,
                                               const long long* deg, unsigned long long* out) {
    gf_bits_degrees<long long>(bits, nwords, n, deg, out);
}
extern "C" __global__ void gf_bits_degrees_i32(const unsigned int* bits, long long nwords, long long n,
                                               const int* deg, unsigned long long* out) {
    gf_bits_degrees<int>(bits, nwords, n, deg, out);
}
// Per partition [bounds[p], bounds[p+1]) of the vertices: the active ids among the sorted ids,
// their edges, and the 128-byte lines their rows cover in arrays of s0 bits an entry (and s1
// when nonzero; packed ids: their field's width), into out[0..3*parts) (active, edges, lines). Sorted ids put a warp's lanes mostly in
// one partition: such a warp adds its sums once; counters in shared memory where they fit.
__device__ __forceinline__ long long gf_row_lines(long long b, long long e, long long s) {
    return e > b ? (e * s - 1) / 1024 - (b * s) / 1024 + 1 : 0;
}
extern "C" __global__ void gf_partition_counts(const long long* ids, long long k, const long long* off,
                                               const long long* bounds, int parts, int s0, int s1,
                                               int in_shared, unsigned long long* out) {
    extern __shared__ unsigned long long acc[];
    unsigned long long* sum = in_shared ? acc : out;
    if (in_shared) {
        for (int i = threadIdx.x; i < 3 * parts; i += blockDim.x) acc[i] = 0;
        __syncthreads();
    }
    const long long stride = (long long)gridDim.x * blockDim.x;
    const long long start = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    // every lane of a warp runs the same number of passes (the shuffles need all of them)
    const long long warp_start = start - (threadIdx.x & 31);
    for (long long t0 = warp_start; t0 < k; t0 += stride) {
        const long long t = t0 + (threadIdx.x & 31);
        int p = -1;
        unsigned long long edges = 0, lines = 0;
        if (t < k) {
            const long long v = ids[t];
            int lo = 0, hi = parts;  // the last bound <= v
            while (hi - lo > 1) { const int mid = (lo + hi) >> 1; if (bounds[mid] <= v) lo = mid; else hi = mid; }
            p = lo;
            const long long b = off[v], e = off[v + 1];
            edges = (unsigned long long)(e - b);
            lines = gf_row_lines(b, e, s0) + (s1 ? gf_row_lines(b, e, s1) : 0);
        }
        const int p0 = __shfl_sync(0xffffffffu, p, 0);
        if (__all_sync(0xffffffffu, p == p0)) {
            unsigned long long c = p >= 0;
            for (int o = 16; o; o >>= 1) {
                c += __shfl_down_sync(0xffffffffu, c, o);
                edges += __shfl_down_sync(0xffffffffu, edges, o);
                lines += __shfl_down_sync(0xffffffffu, lines, o);
            }
            if ((threadIdx.x & 31) == 0 && p0 >= 0) {
                atomicAdd(&sum[3 * p0], c);
                atomicAdd(&sum[3 * p0 + 1], edges);
                atomicAdd(&sum[3 * p0 + 2], lines);
            }
        } else if (p >= 0) {
            atomicAdd(&sum[3 * p], 1ull);
            atomicAdd(&sum[3 * p + 1], edges);
            atomicAdd(&sum[3 * p + 2], lines);
        }
    }
    if (in_shared) {
        __syncthreads();
        for (int i = threadIdx.x; i < 3 * parts; i += blockDim.x)
            if (acc[i]) atomicAdd(&out[i], acc[i]);
    }
}
// row_prefixes: thread per row copies its first min(D(v), k) edges (read across the bus from
// mapped memory, one request per row) to out[poffs[v]...]; T: the vertex-id type's width
template <typename T>
__device__ void gf_row_prefix(const long long* offs, const long long* poffs, long long n, const T* idx, T* out) {
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long v = blockIdx.x * (long long)blockDim.x + threadIdx.x; v < n; v += stride) {
        const long long b = offs[v], o = poffs[v], c = poffs[v + 1] - o;
        for (long long r = 0; r < c; ++r) out[o + r] = idx[b + r];
    }
}
extern "C" __global__ void gf_row_prefixes_i32(const long long* offs, const long long* poffs, long long n,
                                               const int* idx, int* out) { gf_row_prefix(offs, poffs, n, idx, out); }
extern "C" __global__ void gf_row_prefixes_i64(const long long* offs, const long long* poffs, long long n,
                                               const long long* idx, long long* out) {
    gf_row_prefix(offs, poffs, n, idx, out);
}
extern "C" __global__ void gf_set_ids(const long long* ids, long long k, unsigned int* bits) {
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i >= k) return;
    const long long v = ids[i];
    atomicOr(&bits[v >> 5], 1u << (v & 31));
}
// ---- the vertex-state passes around the programs (instead of CuPy's JIT-compiled kernels)
// every bit of nwords words, reduced per warp, added to out[0]
extern "C" __global__ void gf_popcount_words(const unsigned int* bits, long long nwords, unsigned long long* out) {
    unsigned long long c = 0;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < nwords;
         i += (long long)gridDim.x * blockDim.x)
        c += __popc(bits[i]);
    for (int off = 16; off; off >>= 1) c += __shfl_down_sync(0xffffffffu, c, off);
    if ((threadIdx.x & 31) == 0 && c) atomicAdd(out, c);
}
// out[0..count) = value: an entry of 1, 2, 4 or 8 bytes (the value's bit pattern)
template <typename T>
__device__ void gf_fill(T* out, long long count, T value) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < count;
         i += (long long)gridDim.x * blockDim.x)
        out[i] = value;
}
extern "C" __global__ void gf_fill_b1(unsigned char* out, long long count, unsigned long long v) {
    gf_fill<unsigned char>(out, count, (unsigned char)v);
}
extern "C" __global__ void gf_fill_b2(unsigned short* out, long long count, unsigned long long v) {
    gf_fill<unsigned short>(out, count, (unsigned short)v);
}
extern "C" __global__ void gf_fill_b4(unsigned int* out, long long count, unsigned long long v) {
    gf_fill<unsigned int>(out, count, (unsigned int)v);
}
extern "C" __global__ void gf_fill_b8(unsigned long long* out, long long count, unsigned long long v) {
    gf_fill<unsigned long long>(out, count, v);
}
// out[v] = v (labels that start as the vertex's own id)
template <typename T>
__device__ void gf_iota(T* out, long long n) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x)
        out[i] = (T)i;
}
extern "C" __global__ void gf_iota_i32(int* out, long long n) { gf_iota<int>(out, n); }
extern "C" __global__ void gf_iota_i64(long long* out, long long n) { gf_iota<long long>(out, n); }
// out[i] = src[ids[i]] (ids checked by the caller)
template <typename T>
__device__ void gf_gather(const T* src, const long long* ids, long long k, T* out) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < k;
         i += (long long)gridDim.x * blockDim.x)
        out[i] = src[ids[i]];
}
extern "C" __global__ void gf_gather_b1(const unsigned char* src, const long long* ids, long long k,
                                        unsigned char* out) { gf_gather(src, ids, k, out); }
extern "C" __global__ void gf_gather_b2(const unsigned short* src, const long long* ids, long long k,
                                        unsigned short* out) { gf_gather(src, ids, k, out); }
extern "C" __global__ void gf_gather_b4(const unsigned int* src, const long long* ids, long long k,
                                        unsigned int* out) { gf_gather(src, ids, k, out); }
extern "C" __global__ void gf_gather_b8(const unsigned long long* src, const long long* ids, long long k,
                                        unsigned long long* out) { gf_gather(src, ids, k, out); }
// dst[ids[i]] = values[i], or the one value where values is null (distinct ids: checked by the caller)
template <typename T>
__device__ void gf_scatter(T* dst, const long long* ids, long long k, const T* values, T value) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < k;
         i += (long long)gridDim.x * blockDim.x)
        dst[ids[i]] = values ? values[i] : value;
}
extern "C" __global__ void gf_scatter_b1(unsigned char* dst, const long long* ids, long long k,
                                         const unsigned char* values, unsigned long long v) {
    gf_scatter(dst, ids, k, values, (unsigned char)v);
}
extern "C" __global__ void gf_scatter_b2(unsigned short* dst, const long long* ids, long long k,
                                         const unsigned short* values, unsigned long long v) {
    gf_scatter(dst, ids, k, values, (unsigned short)v);
}
extern "C" __global__ void gf_scatter_b4(unsigned int* dst, const long long* ids, long long k,
                                         const unsigned int* values, unsigned long long v) {
    gf_scatter(dst, ids, k, values, (unsigned int)v);
}
extern "C" __global__ void gf_scatter_b8(unsigned long long* dst, const long long* ids, long long k,
                                         const unsigned long long* values, unsigned long long v) {
    gf_scatter(dst, ids, k, values, v);
}
// the sum of deg[ids[i]] (a listed frontier's edges), reduced per warp, added to out[0]
template <typename D>
__device__ void gf_ids_degrees(const long long* ids, long long k, const D* deg, unsigned long long* out) {
    unsigned long long s = 0;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < k;
         i += (long long)gridDim.x * blockDim.x)
        s += (unsigned long long)deg[ids[i]];
    for (int off = 16; off; off >>= 1) s += __shfl_down_sync(0xffffffffu, s, off);
    if ((threadIdx.x & 31) == 0 && s) atomicAdd(out, s);
}
extern "C" __global__ void gf_ids_degrees_i64(const long long* ids, long long k, const long long* deg,
                                              unsigned long long* out) { gf_ids_degrees(ids, k, deg, out); }
extern "C" __global__ void gf_ids_degrees_i32(const long long* ids, long long k, const int* deg,
                                              unsigned long long* out) { gf_ids_degrees(ids, k, deg, out); }
// frontier set operations, one pass over the words, the bits past n cleared:
// op 0: a | b, 1: a & b, 2: a & ~b, 3: ~a (b unread)
extern "C" __global__ void gf_bits_combine(const unsigned int* a, const unsigned int* b, long long nwords,
                                           long long n, int op, unsigned int* out) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < nwords;
         i += (long long)gridDim.x * blockDim.x) {
        const unsigned int x = a[i];
        const unsigned int y = op == 3 ? 0u : b[i];
        unsigned int r = op == 0 ? (x | y) : op == 1 ? (x & y) : op == 2 ? (x & ~y) : ~x;
        if (i == nwords - 1 && (n & 31)) r &= (1u << (n & 31)) - 1u;
        out[i] = r;
    }
}
// bit v set where lo <= vals[v] < hi (compared as doubles, as numpy compares an array with a
// float): a thread writes one whole word
template <typename T>
__device__ void gf_select(const T* vals, long long n, double lo, double hi, unsigned int* bits) {
    const long long nwords = (n + 31) / 32;
    for (long long w = blockIdx.x * (long long)blockDim.x + threadIdx.x; w < nwords;
         w += (long long)gridDim.x * blockDim.x) {
        unsigned int r = 0;
        const long long base = w * 32;
        const int top = n - base < 32 ? (int)(n - base) : 32;
        for (int b = 0; b < top; ++b) {
            const double x = (double)vals[base + b];
            if (x >= lo && x < hi) r |= 1u << b;
        }
        bits[w] = r;
    }
}
extern "C" __global__ void gf_select_i32(const int* v, long long n, double lo, double hi, unsigned int* bits) {
    gf_select(v, n, lo, hi, bits);
}
extern "C" __global__ void gf_select_i64(const long long* v, long long n, double lo, double hi, unsigned int* bits) {
    gf_select(v, n, lo, hi, bits);
}
extern "C" __global__ void gf_select_f32(const float* v, long long n, double lo, double hi, unsigned int* bits) {
    gf_select(v, n, lo, hi, bits);
}
extern "C" __global__ void gf_select_f64(const double* v, long long n, double lo, double hi, unsigned int* bits) {
    gf_select(v, n, lo, hi, bits);
}
// out[i] = (double)in[i] (float32 distances widened for the result)
extern "C" __global__ void gf_widen_f32(const float* in, long long n, double* out) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x)
        out[i] = (double)in[i];
}
// ---- delta-stepping's dense buckets (runtime/buckets.py): the pending vertices are the set bits of
// a bitmap of n bits, vertex v in bucket floor(vals[v] / delta), computed in double as
// Backend._bucket_keys computes it. A thread reads one whole word of the bitmap at a time.
template <typename T>
__device__ __forceinline__ long long gf_bucket_key(T value, double delta) {
    return (long long)floor((double)value / delta);
}
__device__ __forceinline__ unsigned int gf_word(const unsigned int* bits, long long w, long long nwords, long long n) {
    unsigned int x = bits[w];
    if (w == nwords - 1 && (n & 31)) x &= (1u << (n & 31)) - 1u;
    return x;
}
// the lowest and the highest bucket of the set bits: out[0] = min, out[1] = max (out starts at
// [LLONG_MAX, LLONG_MIN])
template <typename T>
__device__ void gf_bucket_range(const unsigned int* bits, long long nwords, long long n, const T* vals,
                                double delta, long long* out) {
    long long lo = 0x7fffffffffffffffLL, hi = -0x7fffffffffffffffLL - 1;
    for (long long w = blockIdx.x * (long long)blockDim.x + threadIdx.x; w < nwords;
         w += (long long)gridDim.x * blockDim.x) {
        for (unsigned int x = gf_word(bits, w, nwords, n); x; x &= x - 1u) {
            const long long k = gf_bucket_key(vals[w * 32 + __ffs(x) - 1], delta);
            lo = k < lo ? k : lo;
            hi = k > hi ? k : hi;
        }
    }
    if (lo <= hi) {
        atomicMin(&out[0], lo);
        atomicMax(&out[1], hi);
    }
}
extern "C" __global__ void gf_bucket_range_f32(const unsigned int* bits, long long nwords, long long n,
                                               const float* vals, double delta, long long* out) {
    gf_bucket_range(bits, nwords, n, vals, delta, out);
}
extern "C" __global__ void gf_bucket_range_f64(const unsigned int* bits, long long nwords, long long n,
                                               const double* vals, double delta, long long* out) {
    gf_bucket_range(bits, nwords, n, vals, delta, out);
}
// hist[min(bucket - low, span)] += 1 for each set bit (hist: span + 1 zeroed counters)
template <typename T>
__device__ void gf_bucket_histogram(const unsigned int* bits, long long nwords, long long n, const T* vals,
                                    double delta, long long low, long long span, unsigned long long* hist) {
    for (long long w = blockIdx.x * (long long)blockDim.x + threadIdx.x; w < nwords;
         w += (long long)gridDim.x * blockDim.x) {
        for (unsigned int x = gf_word(bits, w, nwords, n); x; x &= x - 1u) {
            const long long k = gf_bucket_key(vals[w * 32 + __ffs(x) - 1], delta) - low;
            atomicAdd(&hist[k < span ? k : span], 1ull);
        }
    }
}
extern "C" __global__ void gf_bucket_histogram_f32(const unsigned int* bits, long long nwords, long long n,
                                                   const float* vals, double delta, long long low, long long span,
                                                   unsigned long long* hist) {
    gf_bucket_histogram(bits, nwords, n, vals, delta, low, span, hist);
}
extern "C" __global__ void gf_bucket_histogram_f64(const unsigned int* bits, long long nwords, long long n,
                                                   const double* vals, double delta, long long low, long long span,
                                                   unsigned long long* hist) {
    gf_bucket_histogram(bits, nwords, n, vals, delta, low, span, hist);
}
// the set bits split at a bucket: take (buckets below cut) and rest (the others), whole words
template <typename T>
__device__ void gf_bucket_cut(const unsigned int* bits, long long nwords, long long n, const T* vals,
                              double delta, long long cut, unsigned int* take, unsigned int* rest) {
    for (long long w = blockIdx.x * (long long)blockDim.x + threadIdx.x; w < nwords;
         w += (long long)gridDim.x * blockDim.x) {
        const unsigned int all = gf_word(bits, w, nwords, n);
        unsigned int t = 0;
        for (unsigned int x = all; x; x &= x - 1u) {
            const int b = __ffs(x) - 1;
            if (gf_bucket_key(vals[w * 32 + b], delta) < cut) t |= 1u << b;
        }
        take[w] = t;
        rest[w] = all & ~t;
    }
}
extern "C" __global__ void gf_bucket_cut_f32(const unsigned int* bits, long long nwords, long long n,
                                             const float* vals, double delta, long long cut,
                                             unsigned int* take, unsigned int* rest) {
    gf_bucket_cut(bits, nwords, n, vals, delta, cut, take, rest);
}
extern "C" __global__ void gf_bucket_cut_f64(const unsigned int* bits, long long nwords, long long n,
                                             const double* vals, double delta, long long cut,
                                             unsigned int* take, unsigned int* rest) {
    gf_bucket_cut(bits, nwords, n, vals, delta, cut, take, rest);
}
// how many i have vals[ids[i]] < then[i] (held-back vertices whose value dropped), added to out[0]
template <typename T>
__device__ void gf_count_below(const long long* ids, long long k, const T* vals, const T* then,
                               unsigned long long* out) {
    unsigned long long c = 0;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < k;
         i += (long long)gridDim.x * blockDim.x)
        c += vals[ids[i]] < then[i] ? 1ull : 0ull;
    for (int off = 16; off; off >>= 1) c += __shfl_down_sync(0xffffffffu, c, off);
    if ((threadIdx.x & 31) == 0 && c) atomicAdd(out, c);
}
extern "C" __global__ void gf_count_below_f32(const long long* ids, long long k, const float* vals,
                                              const float* then, unsigned long long* out) {
    gf_count_below(ids, k, vals, then, out);
}
extern "C" __global__ void gf_count_below_f64(const long long* ids, long long k, const double* vals,
                                              const double* then, unsigned long long* out) {
    gf_count_below(ids, k, vals, then, out);
}
"""

#: every kernel of the module (``extern "C"``, so NVRTC keeps these names)
KERNELS: tuple[str, ...] = tuple(re.findall(r'extern "C" __global__ void (\w+)', BITMAP_SRC))
