"""The CUDA backend's kernels that every program shares (frontier bitmaps, per-partition counts, row
prefixes), compiled once per process apart from the programs (no CuPy needed to read this).

Example:
    >>> "gf_popc_words" in BITMAP_SRC and "gf_partition_counts" in BITMAP_SRC
    True
"""

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
"""
