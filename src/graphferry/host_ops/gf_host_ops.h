// Host-side helpers that are not per program: compaction gather (Subway's SubCSR).
// Called through ctypes, which releases the GIL, so a gather overlaps GPU work.
#pragma once
#include <cfloat>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>
#include <omp.h>
#define GF_EXPORT extern "C" __attribute__((visibility("default")))
// The library builds as GF_HOST_SHARDS translation units at once (host_ops/compiler.py), one per core
// up to ten: unit k defines the exports of the regions GF_REGION r with r % GF_HOST_SHARDS == k
// (gf_host_shard.h); the others' exports are static inline and never emitted, so each unit optimises
// a part of the code. As one unit it took 4.3 s with -O3 (2 cores), 89% of it optimising, and a fresh
// machine's first run waited for it. Without GF_HOST_SHARD every export is defined (one unit).

// Gather the edges of rows ids[0..k) into out_indices/out_weights; out_offsets
// (k+1 entries) must already hold the exclusive prefix sum of their degrees.
// Weights are wb bytes each (float32, or integers narrowed to uint8 / uint16).
#define GF_REGION 0
#include "gf_host_shard.h"
template <typename V>
static void gf_gather_impl(const int64_t* offsets, const V* indices, const void* weights, int64_t wb,
                           const int64_t* ids, int64_t k, const int64_t* out_offsets,
                           V* out_indices, void* out_weights) {
#pragma omp parallel for schedule(dynamic, 256)
    for (int64_t r = 0; r < k; ++r) {
        const int64_t v = ids[r];
        const int64_t b = offsets[v], len = offsets[v + 1] - b, o = out_offsets[r];
        std::memcpy(out_indices + o, indices + b, len * sizeof(V));
        if (weights) std::memcpy((char*)out_weights + o * wb, (const char*)weights + b * wb, len * wb);
    }
}
GF_EXPORT void gf_gather_i32(const int64_t* offsets, const int32_t* indices, const void* weights, int64_t wb,
                             const int64_t* ids, int64_t k, const int64_t* out_offsets,
                             int32_t* out_indices, void* out_weights) {
    gf_gather_impl(offsets, indices, weights, wb, ids, k, out_offsets, out_indices, out_weights);
}
GF_EXPORT void gf_gather_i64(const int64_t* offsets, const int64_t* indices, const void* weights, int64_t wb,
                             const int64_t* ids, int64_t k, const int64_t* out_offsets,
                             int64_t* out_indices, void* out_weights) {
    gf_gather_impl(offsets, indices, weights, wb, ids, k, out_offsets, out_indices, out_weights);
}

#define GF_REGION 0
#include "gf_host_shard.h"
// ------------------------------------------------------------------ frontiers
// Bitmaps: bit v of word v / 32. Every helper is one parallel pass; below
// GF_SERIAL_WORDS words (or ids) it runs on one thread: waking a team costs
// more than the pass (milliseconds when the cores are shared).
#ifndef GF_SERIAL_WORDS
#define GF_SERIAL_WORDS (1 << 15)
#endif

// Ordered parallel compaction over items [0, n): each of `threads` threads takes a
// contiguous chunk [lo, hi), counts what it keeps (count(lo, hi)), an exclusive scan of
// the counts gives its first output position, then it writes (emit(lo, hi, position)).
// The output keeps the input's order, with no serial scan over n; returns how many were kept.
template <typename Count, typename Emit>
static int64_t gf_ordered_compact(int64_t n, int threads, Count count, Emit emit) {
    std::vector<int64_t> counts((size_t)threads + 1, 0);
    int used = 1;
#pragma omp parallel num_threads(threads)
    {
        const int t = omp_get_thread_num(), nt = omp_get_num_threads();
        if (t == 0) used = nt;
        const int64_t lo = n * t / nt, hi = n * (t + 1) / nt;
        counts[t + 1] = count(lo, hi);
#pragma omp barrier
#pragma omp single
        for (int s = 0; s < nt; ++s) counts[s + 1] += counts[s];
        emit(lo, hi, counts[t]);
    }
    return counts[used];
}

// Sorted ids of the set bits of bits[0..words); returns how many were written.
GF_EXPORT int64_t gf_bits_to_ids(const uint32_t* bits, int64_t words, int64_t* out) {
    const int T = words < GF_SERIAL_WORDS ? 1 : omp_get_max_threads();
    return gf_ordered_compact(
        words, T,
        [&](int64_t lo, int64_t hi) {
            int64_t c = 0;
            for (int64_t w = lo; w < hi; ++w) c += __builtin_popcount(bits[w]);
            return c;
        },
        [&](int64_t lo, int64_t hi, int64_t o) {
            for (int64_t w = lo; w < hi; ++w)
                for (uint32_t x = bits[w]; x; x &= x - 1) out[o++] = (w << 5) + __builtin_ctz(x);
        });
}

// Set the bits of ids[0..k) in a zeroed bitmap (atomic: ids may share a word).
GF_EXPORT void gf_ids_to_bits(const int64_t* ids, int64_t k, uint32_t* bits) {
#pragma omp parallel for schedule(static) if (k > GF_SERIAL_WORDS)
    for (int64_t i = 0; i < k; ++i)
        __atomic_fetch_or(&bits[ids[i] >> 5], 1u << (ids[i] & 31), __ATOMIC_RELAXED);
}

GF_EXPORT int64_t gf_popcount(const uint32_t* bits, int64_t words) {
    int64_t c = 0;
#pragma omp parallel for schedule(static) reduction(+ : c) if (words > GF_SERIAL_WORDS)
    for (int64_t w = 0; w < words; ++w) c += __builtin_popcount(bits[w]);
    return c;
}

// Sum of offsets[v + 1] - offsets[v] over the set bits (or over ids when bits is null).
GF_EXPORT int64_t gf_degree_sum(const int64_t* offsets, const uint32_t* bits, int64_t words,
                                const int64_t* ids, int64_t k) {
    int64_t s = 0;
    if (bits) {
#pragma omp parallel for schedule(static) reduction(+ : s) if (words > GF_SERIAL_WORDS)
        for (int64_t w = 0; w < words; ++w) {
            uint32_t x = bits[w];
            while (x) {
                const int64_t v = (w << 5) + __builtin_ctz(x);
                s += offsets[v + 1] - offsets[v];
                x &= x - 1;
            }
        }
    } else {
#pragma omp parallel for schedule(static) reduction(+ : s) if (k > GF_SERIAL_WORDS)
        for (int64_t i = 0; i < k; ++i) s += offsets[ids[i] + 1] - offsets[ids[i]];
    }
    return s;
}

#define GF_REGION 1
#include "gf_host_shard.h"
// ------------------------------------------------------- degree-ordered DAG
// The undirected simple view of a graph (rows of G, and of its transpose GT for a
// directed graph, merged; self-loops and repeats dropped), relabelled by
// (degree, id) and oriented from lower to higher label (Schank; GAPBS tc).
// Three parallel passes over the rows, each with a thread-local buffer; memory:
// the DAG itself (half the simple view) plus n-sized arrays.

// The sorted, distinct neighbours of u other than u, in buf.
template <typename V>
static void gf_simple_row(int64_t u, const int64_t* o1, const V* i1, const int64_t* o2, const V* i2,
                          std::vector<V>& buf) {
    buf.clear();
    buf.insert(buf.end(), i1 + o1[u], i1 + o1[u + 1]);
    if (o2) buf.insert(buf.end(), i2 + o2[u], i2 + o2[u + 1]);
    if (!std::is_sorted(buf.begin(), buf.end())) std::sort(buf.begin(), buf.end());
    buf.erase(std::unique(buf.begin(), buf.end()), buf.end());
    auto self = std::lower_bound(buf.begin(), buf.end(), (V)u);
    if (self != buf.end() && *self == (V)u) buf.erase(self);
}

// phase 0: degree[u] = |N(u)|; phase 1: count[rank[u]] = |{v in N(u): rank[v] > rank[u]}|;
// phase 2: dag row rank[u] (at dag_off[rank[u]]) = those ranks, sorted. simple: the rows
// of G are known strictly increasing without self-loops and there is no GT (an undirected
// simple graph: transforms.is_simple), so each pass reads them in place, and phase 0 is
// the offsets' differences. rank null: the identity (vertices oriented by id): each
// row's part above u, already sorted, so phase 2 copies it and sorts nothing.
template <typename V, typename R>
static void gf_dag_pass(int phase, int simple, int64_t n, const int64_t* o1, const V* i1,
                        const int64_t* o2, const V* i2, const int64_t* rank, int64_t* out,
                        const int64_t* dag_off, R* dag_idx) {
#pragma omp parallel
    {
        std::vector<V> buf;
#pragma omp for schedule(dynamic, 256)
        for (int64_t u = 0; u < n; ++u) {
            const V* nb;
            int64_t len;
            if (simple) {
                nb = i1 + o1[u];
                len = o1[u + 1] - o1[u];
            } else {
                gf_simple_row(u, o1, i1, o2, i2, buf);
                nb = buf.data();
                len = (int64_t)buf.size();
            }
            if (phase == 0) { out[u] = len; continue; }
            if (!rank) {   // by id: the sorted row's entries above u
                const int64_t above = (int64_t)(nb + len - std::upper_bound(nb, nb + len, (V)u));
                if (phase == 1) out[u] = above;
                else std::copy(nb + len - above, nb + len, dag_idx + dag_off[u]);
                continue;
            }
            const int64_t ru = rank[u];
            if (phase == 1) {
                int64_t c = 0;
                for (int64_t k = 0; k < len; ++k) c += rank[nb[k]] > ru;
                out[ru] = c;
                continue;
            }
            R* row = dag_idx + dag_off[ru];
            int64_t k = 0;
            for (int64_t j = 0; j < len; ++j) {
                const int64_t rv = rank[nb[j]];
                if (rv > ru) row[k++] = (R)rv;
            }
            std::sort(row, row + k);
        }
    }
}

#define GF_DAG_EXPORT(SUFFIX, V)                                                                  \
    GF_EXPORT void gf_dag_pass_##SUFFIX(int phase, int simple, int64_t n, const int64_t* o1,     \
                                        const V* i1, const int64_t* o2, const V* i2,              \
                                        const int64_t* rank, int64_t* out, const int64_t* dag_off,\
                                        V* dag_idx) {                                             \
        gf_dag_pass<V, V>(phase, simple, n, o1, i1, o2, i2, rank, out, dag_off, dag_idx);         \
    }
GF_DAG_EXPORT(i32, int32_t)
GF_DAG_EXPORT(i64, int64_t)

// The simple view keeping weights: row u of G (and of GT when given: a directed graph's
// undirected view) as (neighbour, weight) pairs sorted by neighbour then weight, each
// neighbour once with its least weight, u itself dropped. phase 0: count[u] = the row's
// length; phase 1: the row written at out_off[u]. Parallel over rows, a thread-local buffer.
#define GF_REGION 2
#include "gf_host_shard.h"
template <typename V>
static void gf_simple_weighted_pass(int phase, int64_t n, const int64_t* o1, const V* i1, const float* w1,
                                    const int64_t* o2, const V* i2, const float* w2, int64_t* count,
                                    const int64_t* out_off, V* out_idx, float* out_w) {
#pragma omp parallel
    {
        std::vector<std::pair<V, float>> buf;
#pragma omp for schedule(dynamic, 256)
        for (int64_t u = 0; u < n; ++u) {
            buf.clear();
            for (int64_t e = o1[u]; e < o1[u + 1]; ++e) buf.emplace_back(i1[e], w1[e]);
            if (o2)
                for (int64_t e = o2[u]; e < o2[u + 1]; ++e) buf.emplace_back(i2[e], w2[e]);
            std::sort(buf.begin(), buf.end());
            int64_t k = 0;
            for (size_t j = 0; j < buf.size(); ++j) {
                if (buf[j].first == (V)u || (j && buf[j].first == buf[j - 1].first)) continue;
                if (phase == 1) {
                    out_idx[out_off[u] + k] = buf[j].first;
                    out_w[out_off[u] + k] = buf[j].second;
                }
                ++k;
            }
            if (phase == 0) count[u] = k;
        }
    }
}

#define GF_SIMPLE_WEIGHTED_EXPORT(SUFFIX, V)                                                      \
    GF_EXPORT void gf_simple_weighted_##SUFFIX(int phase, int64_t n, const int64_t* o1, const V* i1, \
                                               const float* w1, const int64_t* o2, const V* i2,    \
                                               const float* w2, int64_t* count,                    \
                                               const int64_t* out_off, V* out_idx, float* out_w) { \
        gf_simple_weighted_pass<V>(phase, n, o1, i1, w1, o2, i2, w2, count, out_off, out_idx, out_w); \
    }
GF_SIMPLE_WEIGHTED_EXPORT(i32, int32_t)
GF_SIMPLE_WEIGHTED_EXPORT(i64, int64_t)
#define GF_REGION 2
#include "gf_host_shard.h"

// out[0] = 0, out[i + 1] = in[0] + ... + in[i] (n + 1 entries; out may not alias in):
// each thread sums a contiguous block, a serial scan over the block sums, then each
// thread writes its block's prefix. Two parallel reads of in instead of numpy's serial cumsum.
GF_EXPORT void gf_prefix_sum(const int64_t* in, int64_t n, int64_t* out) {
    const int T = n < GF_SERIAL_WORDS ? 1 : omp_get_max_threads();
    std::vector<int64_t> sums((size_t)T + 1, 0);
#pragma omp parallel num_threads(T)
    {
        const int t = omp_get_thread_num(), nt = omp_get_num_threads();
        const int64_t lo = n * t / nt, hi = n * (t + 1) / nt;
        int64_t s = 0;
        for (int64_t i = lo; i < hi; ++i) s += in[i];
        sums[t + 1] = s;
#pragma omp barrier
#pragma omp single
        for (int k = 0; k < nt; ++k) sums[k + 1] += sums[k];
        s = sums[t];
        if (t == 0) out[0] = 0;
        for (int64_t i = lo; i < hi; ++i) out[i + 1] = (s += in[i]);
    }
}

// out[order[i]] = values[i] for i < n (order a permutation of [0, n)): a relabelled
// graph's per-vertex values back in the input's ids, in one parallel pass.
GF_EXPORT void gf_unpermute_i64(const int64_t* values, const int64_t* order, int64_t n, int64_t* out) {
#pragma omp parallel for schedule(static) if (n >= GF_SERIAL_WORDS)
    for (int64_t i = 0; i < n; ++i) out[order[i]] = values[i];
}

// rows[i] = the row whose range [offsets[r], offsets[r + 1]) holds CSR position pos[i] (the last
// such r: empty rows before it are skipped); a parallel binary search per position, where numpy's
// searchsorted ran on one core (0.14 s for a Kronecker 22 forest's 2.4 M edges).
GF_EXPORT void gf_rows_of(const int64_t* offsets, int64_t n, const int64_t* pos, int64_t k, int64_t* rows) {
#pragma omp parallel for schedule(static) if (k >= GF_SERIAL_WORDS / 16)
    for (int64_t i = 0; i < k; ++i)
        rows[i] = (int64_t)(std::upper_bound(offsets, offsets + n + 1, pos[i]) - offsets) - 1;
}

// Whether labels[v] names the smallest vertex of v's group for every v (0 <= labels[v] <= v and
// labels[labels[v]] == labels[v]: each label a vertex labelled by itself, no member below it),
// and then how many groups there are (the vertices labelling themselves); -1 when not. One
// parallel pass where numpy took six (bounds, an arange, two compares, a gather by label).
GF_EXPORT int64_t gf_smallest_members(const int64_t* labels, int64_t n) {
    int64_t roots = 0, bad = 0;
#pragma omp parallel for schedule(static) reduction(+ : roots, bad) if (n >= GF_SERIAL_WORDS)
    for (int64_t v = 0; v < n; ++v) {
        const int64_t r = labels[v];
        if (r < 0 || r > v || labels[r] != r) ++bad;
        else roots += r == v;
    }
    return bad ? -1 : roots;
}

// Vertices in order of (degree, id): order[r] = the r-th, rank[order[r]] = r. A stable
// counting sort in parallel (GAPBS sorts (degree, id) pairs on one thread): each thread
// counts the degrees of a contiguous block of ids, buckets are laid out degree by degree
// and thread by thread, and each thread scatters its block in id order, so ties stay in
// id order. Degrees from GF_ORDER_BUCKETS up share the last bucket, sorted afterwards
// by (degree, id) (the few hubs of a skewed graph).
#ifndef GF_ORDER_BUCKETS
#define GF_ORDER_BUCKETS 4096
#endif
GF_EXPORT void gf_degree_order(int64_t n, const int64_t* degree, int64_t* order, int64_t* rank) {
    const int64_t K = GF_ORDER_BUCKETS;
    const int T = n < GF_SERIAL_WORDS ? 1 : omp_get_max_threads();
    std::vector<int64_t> start((size_t)T * K, 0);   // [thread][bucket]: counts, then next slots
    int64_t first_big = 0;                          // where the last bucket begins
#pragma omp parallel num_threads(T)
    {
        const int t = omp_get_thread_num(), nt = omp_get_num_threads();
        const int64_t lo = n * t / nt, hi = n * (t + 1) / nt;
        int64_t* mine = start.data() + (size_t)t * K;
        for (int64_t v = lo; v < hi; ++v) ++mine[degree[v] < K ? degree[v] : K - 1];
#pragma omp barrier
#pragma omp single
        {
            int64_t s = 0;
            for (int64_t b = 0; b < K; ++b) {
                if (b == K - 1) first_big = s;
                for (int k = 0; k < nt; ++k) {
                    const int64_t c = start[(size_t)k * K + b];
                    start[(size_t)k * K + b] = s;
                    s += c;
                }
            }
        }
        for (int64_t v = lo; v < hi; ++v) order[mine[degree[v] < K ? degree[v] : K - 1]++] = v;
    }
    std::sort(order + first_big, order + n, [&](int64_t a, int64_t b) {
        return degree[a] != degree[b] ? degree[a] < degree[b] : a < b;
    });
#pragma omp parallel for schedule(static) if (n >= GF_SERIAL_WORDS)
    for (int64_t r = 0; r < n; ++r) rank[order[r]] = r;
}

// The transpose's indices: pos (n entries) starts as the transpose's row offsets
// and is consumed; rows come out in no particular order (the DAG passes sort them).
#define GF_REGION 0
#include "gf_host_shard.h"
template <typename V>
static void gf_transpose_fill(int64_t n, const int64_t* offsets, const V* indices, int64_t* pos, V* t_indices) {
#pragma omp parallel for schedule(dynamic, 256)
    for (int64_t u = 0; u < n; ++u)
        for (int64_t j = offsets[u]; j < offsets[u + 1]; ++j)
            t_indices[__atomic_fetch_add(&pos[indices[j]], 1, __ATOMIC_RELAXED)] = (V)u;
}
GF_EXPORT void gf_transpose_fill_i32(int64_t n, const int64_t* o, const int32_t* i, int64_t* pos, int32_t* t) {
    gf_transpose_fill(n, o, i, pos, t);
}
GF_EXPORT void gf_transpose_fill_i64(int64_t n, const int64_t* o, const int64_t* i, int64_t* pos, int64_t* t) {
    gf_transpose_fill(n, o, i, pos, t);
}

// 1 when every row is strictly increasing and holds no self-loop (the rows of a simple
// graph: no repeated edge, no loop), else 0. One parallel pass; rows stop at the first fault.
template <typename V>
static int64_t gf_rows_simple(int64_t n, const int64_t* offsets, const V* indices) {
    int64_t bad = 0;
#pragma omp parallel for schedule(dynamic, 4096) reduction(+ : bad)
    for (int64_t u = 0; u < n; ++u) {
        for (int64_t j = offsets[u]; j < offsets[u + 1]; ++j)
            if ((int64_t)indices[j] == u || (j > offsets[u] && indices[j - 1] >= indices[j])) {
                ++bad;
                break;
            }
    }
    return bad == 0;
}
GF_EXPORT int64_t gf_rows_simple_i32(int64_t n, const int64_t* o, const int32_t* i) { return gf_rows_simple(n, o, i); }
GF_EXPORT int64_t gf_rows_simple_i64(int64_t n, const int64_t* o, const int64_t* i) { return gf_rows_simple(n, o, i); }

#define GF_REGION 0
#include "gf_host_shard.h"
// ------------------------------------------------------------- vertex state
// Fills and copies of n-sized arrays in parallel (first touch on every core),
// below 1M elements on one thread.
#define GF_PAR_ELEMS (1 << 20)

// out[...] = value(i) for each i in [0, k) with keep(i), in order (gf_ordered_compact, in
// parallel above GF_PAR_ELEMS / 4 items); returns how many were written.
template <typename Keep, typename Value>
static int64_t gf_filter_ordered(int64_t k, Keep keep, Value value, int64_t* out) {
    return gf_ordered_compact(
        k, k > GF_PAR_ELEMS / 4 ? omp_get_max_threads() : 1,
        [&](int64_t a, int64_t b) {
            int64_t c = 0;
            for (int64_t i = a; i < b; ++i) c += keep(i);
            return c;
        },
        [&](int64_t a, int64_t b, int64_t o) {
            for (int64_t i = a; i < b; ++i)
                if (keep(i)) out[o++] = value(i);
        });
}
template <typename T> static void gf_fill_impl(T* p, int64_t count, T value) {
#pragma omp parallel for schedule(static) if (count > GF_PAR_ELEMS)
    for (int64_t i = 0; i < count; ++i) p[i] = value;
}
GF_EXPORT void gf_fill8(uint8_t* p, int64_t count, uint64_t v) { gf_fill_impl<uint8_t>(p, count, (uint8_t)v); }
GF_EXPORT void gf_fill16(uint16_t* p, int64_t count, uint64_t v) { gf_fill_impl<uint16_t>(p, count, (uint16_t)v); }
GF_EXPORT void gf_fill32(uint32_t* p, int64_t count, uint64_t v) { gf_fill_impl<uint32_t>(p, count, (uint32_t)v); }
GF_EXPORT void gf_fill64(uint64_t* p, int64_t count, uint64_t v) { gf_fill_impl<uint64_t>(p, count, v); }
GF_EXPORT void gf_iota32(int32_t* p, int64_t count) {
#pragma omp parallel for schedule(static) if (count > GF_PAR_ELEMS)
    for (int64_t i = 0; i < count; ++i) p[i] = (int32_t)i;
}
GF_EXPORT void gf_iota64(int64_t* p, int64_t count) {
#pragma omp parallel for schedule(static) if (count > GF_PAR_ELEMS)
    for (int64_t i = 0; i < count; ++i) p[i] = i;
}
GF_EXPORT void gf_copy_bytes(uint8_t* dst, const uint8_t* src, int64_t bytes) {
    const int64_t block = 1 << 20;
    const int64_t blocks = (bytes + block - 1) / block;
#pragma omp parallel for schedule(static) if (blocks > 8)
    for (int64_t b = 0; b < blocks; ++b) {
        const int64_t lo = b * block, len = std::min(block, bytes - lo);
        std::memcpy(dst + lo, src + lo, len);
    }
}

#define GF_REGION 3
#include "gf_host_shard.h"
// --------------------------------------------------------- priority buckets
// Stable counting sort of ids[0..k) by key = floor(values[ids[i]] / delta) - low,
// keys in [0, span]: out_ids grouped by key (ids in their order within a key),
// starts[key] = first position of that key (span + 2 entries). Per-thread
// histograms over contiguous chunks keep it stable and parallel.
template <typename T>
static void gf_bucket_split(const int64_t* ids, int64_t k, const T* values, double delta,
                            int64_t low, int64_t span, int64_t* out_ids, int64_t* starts) {
    const int T_ = k > GF_PAR_ELEMS / 4 ? omp_get_max_threads() : 1;
    const int64_t K = span + 1;
    std::vector<int64_t> hist((size_t)T_ * K, 0);
#pragma omp parallel num_threads(T_)
    {
        const int t = omp_get_thread_num(), nt = omp_get_num_threads();
        const int64_t lo = k * t / nt, hi = k * (t + 1) / nt;
        int64_t* h = &hist[(size_t)t * K];
        for (int64_t i = lo; i < hi; ++i) ++h[(int64_t)std::floor((double)values[ids[i]] / delta) - low];
#pragma omp barrier
#pragma omp single
        {
            int64_t run = 0;
            for (int64_t key = 0; key < K; ++key) {
                starts[key] = run;
                for (int s = 0; s < nt; ++s) {
                    const int64_t c = hist[(size_t)s * K + key];
                    hist[(size_t)s * K + key] = run;
                    run += c;
                }
            }
            starts[K] = run;
        }
        for (int64_t i = lo; i < hi; ++i) {
            const int64_t key = (int64_t)std::floor((double)values[ids[i]] / delta) - low;
            out_ids[h[key]++] = ids[i];
        }
    }
}

// Keep the ids whose key floor(values[id] / delta) is still `key` (the others moved to
// a lower bucket: stale): written to out in order; returns how many were kept. In
// parallel above GF_PAR_ELEMS / 4 ids (gf_ordered_compact: each thread counts its chunk,
// then writes at its offset).
template <typename T>
static int64_t gf_bucket_keep(const int64_t* ids, int64_t k, const T* values, double delta, int64_t key,
                              int64_t* out) {
    return gf_filter_ordered(
        k, [&](int64_t i) { return (int64_t)std::floor((double)values[ids[i]] / delta) == key; },
        [&](int64_t i) { return ids[i]; }, out);
}

// Smallest and largest bucket floor(values[id] / delta) over ids[0..k) into out[0], out[1].
template <typename T>
static void gf_bucket_range(const int64_t* ids, int64_t k, const T* values, double delta, int64_t* out) {
    int64_t lo = INT64_MAX, hi = INT64_MIN;
#pragma omp parallel for schedule(static) reduction(min : lo) reduction(max : hi) if (k > GF_PAR_ELEMS / 4)
    for (int64_t i = 0; i < k; ++i) {
        const int64_t key = (int64_t)std::floor((double)values[ids[i]] / delta);
        lo = key < lo ? key : lo;
        hi = key > hi ? key : hi;
    }
    out[0] = lo;
    out[1] = hi;
}

#define GF_BUCKET_EXPORTS(SUFFIX, T)                                                               \
    GF_EXPORT void gf_bucket_split_##SUFFIX(const int64_t* ids, int64_t k, const T* values,       \
                                            double delta, int64_t low, int64_t span,              \
                                            int64_t* out_ids, int64_t* starts) {                  \
        gf_bucket_split<T>(ids, k, values, delta, low, span, out_ids, starts);                    \
    }                                                                                             \
    GF_EXPORT int64_t gf_bucket_keep_##SUFFIX(const int64_t* ids, int64_t k, const T* values,     \
                                              double delta, int64_t key, int64_t* out) {          \
        return gf_bucket_keep<T>(ids, k, values, delta, key, out);                                \
    }                                                                                             \
    GF_EXPORT void gf_bucket_range_##SUFFIX(const int64_t* ids, int64_t k, const T* values,       \
                                            double delta, int64_t* out) {                         \
        gf_bucket_range<T>(ids, k, values, delta, out);                                           \
    }
GF_BUCKET_EXPORTS(f32, float)
GF_BUCKET_EXPORTS(f64, double)

// out[0]: index of the first weight that is negative or NaN, or -1; out[1]: 1 when every
// weight is an integer of at most 2^24 (sums of such weights below 2^24 are exact in
// float32). Blocks of 4096 are tested branch-free (vectorised); only a block holding a
// bad weight is searched for its first one.
#define GF_REGION 0
#include "gf_host_shard.h"
GF_EXPORT void gf_check_weights(const float* w, int64_t m, int64_t* out) {
    const int64_t block = 4096, blocks = (m + block - 1) / block;
    int64_t first = m;
    int integral = 1;
#pragma omp parallel for schedule(static) reduction(min : first) reduction(& : integral) if (blocks > 256)
    for (int64_t b = 0; b < blocks; ++b) {
        const int64_t lo = b * block, hi = std::min(m, lo + block);
        int bad = 0, notwhole = 0;
        for (int64_t i = lo; i < hi; ++i) {
            // only float arithmetic, so it vectorises: below 2^23, x is an integer iff
            // (x + 2^23) - 2^23 == x (rounding to nearest); from 2^23 to 2^24 every float is one
            const float x = w[i];
            const float r = (x + 8388608.0f) - 8388608.0f;
            bad |= !(x >= 0.0f && x <= FLT_MAX);  // negative, NaN or infinite
            notwhole |= !(x <= 16777216.0f) | ((x < 8388608.0f) & (r != x));
        }
        const int whole = !notwhole;
        integral &= whole;
        if (!bad) continue;
        for (int64_t i = lo; i < hi; ++i)
            if (!(w[i] >= 0.0f && w[i] <= FLT_MAX)) { first = std::min(first, i); break; }
    }
    out[0] = first == m ? -1 : first;
    out[1] = integral;
}

// The narrowest exact type of float32 weights w[0..m): 1 when every weight is an integer
// in [0, 255] (uint8), 2 in [0, 65535] (uint16), else 4 (keep float32). -0.0 and NaN keep
// float32 (a narrowed weight reads back as +0.0). Branch-free blocks, as gf_check_weights.
GF_EXPORT int64_t gf_weight_width(const float* w, int64_t m) {
    const int64_t block = 4096, blocks = (m + block - 1) / block;
    float most = 0.0f;
    int whole = 1;
#pragma omp parallel for schedule(static) reduction(max : most) reduction(& : whole) if (blocks > 256)
    for (int64_t b = 0; b < blocks; ++b) {
        const int64_t lo = b * block, hi = std::min(m, lo + block);
        float top = 0.0f;
        int bad = 0;
        for (int64_t i = lo; i < hi; ++i) {
            const float x = w[i];
            uint32_t bits;
            std::memcpy(&bits, &x, 4);
            const float r = (x + 8388608.0f) - 8388608.0f;   // x itself iff x is an integer below 2^23
            bad |= (int)(bits >> 31) | !(x <= 65535.0f) | (r != x);
            top = x > top ? x : top;
        }
        whole &= !bad;
        most = top > most ? top : most;
    }
    if (!whole) return 4;
    return most <= 255.0f ? 1 : 2;
}

// out[i] = w[i] as an integer of `bytes` bytes (1 or 2); gf_weight_width said it is exact.
GF_EXPORT void gf_narrow_weights(const float* w, int64_t m, int64_t bytes, void* out) {
#pragma omp parallel for schedule(static) if (m > (1 << 20))
    for (int64_t i = 0; i < m; ++i) {
        if (bytes == 1) ((uint8_t*)out)[i] = (uint8_t)w[i];
        else ((uint16_t*)out)[i] = (uint16_t)w[i];
    }
}

// Fused edges (GfPackedIds in gf_prelude.h): edge j's field holds its id in the low `bits` bits
// and its weight (uint8 or uint16, W) in the `wbits` above, fields `bits + wbits` bits apart;
// 32 fields fill `bits + wbits` words, so a range from a multiple of 32 starts on a word. Each
// part is appended on its own (at most 31 and 16 bits onto fewer than 32 pending): no overflow.
#define GF_REGION 3
#include "gf_host_shard.h"
template <typename W>
static void gf_pack_edges_t(const int32_t* idx, const W* wt, int64_t m, int64_t bits, int64_t wbits,
                            uint32_t* out) {
    const int64_t groups = (m + 31) / 32, stride = bits + wbits;
    const uint64_t mask = (1ull << bits) - 1, wmask = (1ull << wbits) - 1;
#pragma omp parallel for schedule(static) if (groups > (1 << 14))
    for (int64_t g = 0; g < groups; ++g) {
        uint32_t* w = out + g * stride;
        uint64_t acc = 0;   // bits not yet written, lowest first
        int have = 0;
        const int64_t lo = g * 32, hi = std::min(m, lo + 32);
        for (int64_t j = lo; j < lo + 32; ++j) {
            acc |= (uint64_t)(j < hi ? (uint32_t)idx[j] & mask : 0) << have;
            have += (int)bits;
            if (have >= 32) { *w++ = (uint32_t)acc; acc >>= 32; have -= 32; }
            if (!wbits) continue;   // plain packed ids (gf_pack_indices)
            acc |= (uint64_t)(j < hi ? (uint64_t)wt[j] & wmask : 0) << have;
            have += (int)wbits;
            if (have >= 32) { *w++ = (uint32_t)acc; acc >>= 32; have -= 32; }
        }
    }
}

// Vertex ids idx[0..m) (each below 2^bits, 1 <= bits <= 31) packed in `bits`-bit fields: id j
// takes bits [j * bits, (j + 1) * bits) of the little-endian word stream out, which holds
// ceil(m / 32) * bits words. 32 ids fill `bits` words exactly, so a thread packing ids
// 32g .. 32g + 31 writes only its own words: no two threads share one.
GF_EXPORT void gf_pack_indices(const int32_t* idx, int64_t m, int64_t bits, uint32_t* out) {
    gf_pack_edges_t<uint8_t>(idx, nullptr, m, bits, 0, out);   // fields of the id alone
}

GF_EXPORT void gf_pack_edges(const int32_t* idx, const void* wt, int64_t weight_bytes, int64_t m, int64_t bits,
                             int64_t wbits, uint32_t* out) {
    if (weight_bytes == 1) gf_pack_edges_t(idx, (const uint8_t*)wt, m, bits, wbits, out);
    else gf_pack_edges_t(idx, (const uint16_t*)wt, m, bits, wbits, out);
}

#define GF_REGION 4
#include "gf_host_shard.h"
// ------------------------------------------------- vertex-state primitives
// The runtime's reduce, select and result conversion over n-sized state: one
// parallel pass each (numpy's are serial and, for select, build two n-sized
// temporaries; at n = 33.5 M on 16 cores they cost more than the iterations).
// `ids` (k of them) restricts a pass to a frontier; null means every index < k.

// dst[i] = (D)src[i], written in parallel (first touch on every core)
template <typename S, typename D> static void gf_convert(const S* src, D* dst, int64_t count) {
#pragma omp parallel for schedule(static) if (count > GF_PAR_ELEMS)
    for (int64_t i = 0; i < count; ++i) dst[i] = (D)src[i];
}

// op 0 sum, 1 min, 2 max over arr[ids[i]] (or arr[i]); floats in double, integers in int64
template <typename T, typename A> static A gf_reduce(const T* arr, const int64_t* ids, int64_t k, int op) {
    A acc = op == 0 ? (A)0 : (A)arr[ids ? ids[0] : 0];
    if (op == 0) {
#pragma omp parallel for schedule(static) reduction(+ : acc) if (k > GF_PAR_ELEMS / 4)
        for (int64_t i = 0; i < k; ++i) acc += (A)arr[ids ? ids[i] : i];
    } else if (op == 1) {
#pragma omp parallel for schedule(static) reduction(min : acc) if (k > GF_PAR_ELEMS / 4)
        for (int64_t i = 0; i < k; ++i) { const A x = (A)arr[ids ? ids[i] : i]; acc = x < acc ? x : acc; }
    } else {
#pragma omp parallel for schedule(static) reduction(max : acc) if (k > GF_PAR_ELEMS / 4)
        for (int64_t i = 0; i < k; ++i) { const A x = (A)arr[ids ? ids[i] : i]; acc = x > acc ? x : acc; }
    }
    return acc;
}

// The ids (ids[i], or i) with lo <= arr[id] < hi, in order, into out; returns how many.
template <typename T>
static int64_t gf_select(const T* arr, const int64_t* ids, int64_t k, double lo, double hi, int64_t* out) {
    return gf_filter_ordered(
        k,
        [&](int64_t i) {
            const double x = (double)arr[ids ? ids[i] : i];
            return x >= lo && x < hi;
        },
        [&](int64_t i) { return ids ? ids[i] : i; }, out);
}

#define GF_STATE_EXPORTS(SUFFIX, T)                                                                  \
    GF_EXPORT double gf_reduce_f_##SUFFIX(const T* arr, const int64_t* ids, int64_t k, int op) {    \
        return gf_reduce<T, double>(arr, ids, k, op);                                               \
    }                                                                                               \
    GF_EXPORT int64_t gf_reduce_i_##SUFFIX(const T* arr, const int64_t* ids, int64_t k, int op) {   \
        return gf_reduce<T, int64_t>(arr, ids, k, op);                                              \
    }                                                                                               \
    GF_EXPORT int64_t gf_select_##SUFFIX(const T* arr, const int64_t* ids, int64_t k, double lo,    \
                                         double hi, int64_t* out) {                                 \
        return gf_select<T>(arr, ids, k, lo, hi, out);                                              \
    }                                                                                               \
    GF_EXPORT void gf_convert_##SUFFIX##_i32(const T* s, int32_t* d, int64_t c) { gf_convert(s, d, c); } \
    GF_EXPORT void gf_convert_##SUFFIX##_i64(const T* s, int64_t* d, int64_t c) { gf_convert(s, d, c); } \
    GF_EXPORT void gf_convert_##SUFFIX##_f32(const T* s, float* d, int64_t c) { gf_convert(s, d, c); }   \
    GF_EXPORT void gf_convert_##SUFFIX##_f64(const T* s, double* d, int64_t c) { gf_convert(s, d, c); }
GF_STATE_EXPORTS(i32, int32_t)
GF_STATE_EXPORTS(i64, int64_t)
#define GF_REGION 5
#include "gf_host_shard.h"
GF_STATE_EXPORTS(f32, float)
GF_STATE_EXPORTS(f64, double)
#define GF_REGION 4
#include "gf_host_shard.h"

// Bit v of bits (words of them) set when lo <= arr[v] < hi, for v < n: each thread owns whole
// words, so no atomics and no list of ids (a select over every vertex gives a dense frontier).
template <typename T>
static void gf_select_bits(const T* arr, int64_t n, double lo, double hi, uint32_t* bits) {
    const int64_t words = (n + 31) >> 5;
#pragma omp parallel for schedule(static) if (words > GF_SERIAL_WORDS / 4)
    for (int64_t w = 0; w < words; ++w) {
        uint32_t word = 0;
        const int64_t base = w << 5, end = base + 32 < n ? base + 32 : n;
        for (int64_t v = base; v < end; ++v) {
            const double x = (double)arr[v];
            word |= (uint32_t)(x >= lo && x < hi) << (v - base);
        }
        bits[w] = word;
    }
}
GF_EXPORT void gf_select_bits_i32(const int32_t* a, int64_t n, double lo, double hi, uint32_t* b) { gf_select_bits(a, n, lo, hi, b); }
GF_EXPORT void gf_select_bits_i64(const int64_t* a, int64_t n, double lo, double hi, uint32_t* b) { gf_select_bits(a, n, lo, hi, b); }
GF_EXPORT void gf_select_bits_f32(const float* a, int64_t n, double lo, double hi, uint32_t* b) { gf_select_bits(a, n, lo, hi, b); }
GF_EXPORT void gf_select_bits_f64(const double* a, int64_t n, double lo, double hi, uint32_t* b) { gf_select_bits(a, n, lo, hi, b); }

#define GF_REGION 6
#include "gf_host_shard.h"
// ------------------------------------------------- subgraphs and contraction
// HyPar's partGraph/mergeParts (graphferry/hypar/, graphferry.transforms) over a CSR
// without an edge list: each is one or two parallel passes over the rows (or arcs)
// concerned, no int64 copies of the m arcs. Below GF_PAR_ELEMS / 4 arcs on one thread.

// Keep arc (u, v) of an induced subgraph: v is kept (new_id[v] >= 0) and, with flags (HyPar's
// ghost-edge part for triangle counting: bit 0 the block, bit 1 a neighbour of it), the arc
// touches the block or joins two of its neighbours.
template <typename V>
static inline bool gf_sub_keep(int64_t u, V v, const int64_t* new_id, const uint8_t* flag) {
    if (new_id[v] < 0) return false;
    if (!flag) return true;
    const uint8_t a = flag[u], b = flag[(int64_t)v];
    return ((a | b) & 1) || ((a & b) & 2);
}

// phase 0: out_count[r] = kept arcs of row rows[r]; phase 1: those arcs' new ids (and weights)
// written at out_off[r], in row order (rows sorted and new_id increasing keep them sorted).
template <typename V>
static void gf_subgraph(int phase, int64_t k, const int64_t* rows, const int64_t* offsets, const V* indices,
                        const float* weights, const int64_t* new_id, const uint8_t* flag, int64_t* out,
                        V* out_idx, float* out_w) {
    const int64_t arcs = k ? offsets[rows[k - 1] + 1] - offsets[rows[0]] : 0;
#pragma omp parallel for schedule(dynamic, 1024) if (arcs > GF_PAR_ELEMS / 4)
    for (int64_t r = 0; r < k; ++r) {
        const int64_t u = rows[r];
        if (phase == 0) {
            int64_t c = 0;
            for (int64_t j = offsets[u]; j < offsets[u + 1]; ++j) c += gf_sub_keep(u, indices[j], new_id, flag);
            out[r] = c;
        } else {
            int64_t o = out[r];
            for (int64_t j = offsets[u]; j < offsets[u + 1]; ++j)
                if (gf_sub_keep(u, indices[j], new_id, flag)) {
                    out_idx[o] = (V)new_id[indices[j]];
                    if (weights) out_w[o] = weights[j];
                    ++o;
                }
        }
    }
}

// The arcs (u, v) with group[u] != group[v] (mode 0: a contraction's surviving arcs), or with
// group[u] == group[v] and u < v (mode 1: a colouring's clashes), in CSR order: their
// positions into pos and, when a is given, group[u] and group[v] into a and b. The m arcs are
// cut into one contiguous range per thread (balanced by arcs, not rows); returns how many.
template <typename V>
static int64_t gf_arcs_where(int mode, int64_t n, const int64_t* offsets, const V* indices, const int64_t* group,
                             int64_t* pos, int64_t* a, int64_t* b) {
    const int64_t m = offsets[n];
    auto row_of = [&](int64_t e) { return (int64_t)(std::upper_bound(offsets, offsets + n + 1, e) - offsets) - 1; };
    auto take = [&](int64_t u, int64_t e) {
        const int64_t v = (int64_t)indices[e];
        return mode == 0 ? group[u] != group[v] : (group[u] == group[v] && u < v);
    };
    return gf_ordered_compact(
        m, m > GF_PAR_ELEMS / 4 ? omp_get_max_threads() : 1,
        [&](int64_t lo, int64_t hi) {
            int64_t c = 0;
            if (lo >= hi) return c;
            for (int64_t u = row_of(lo), e = lo; e < hi; ++e) {
                while (offsets[u + 1] <= e) ++u;
                c += take(u, e);
            }
            return c;
        },
        [&](int64_t lo, int64_t hi, int64_t o) {
            if (lo >= hi) return;
            for (int64_t u = row_of(lo), e = lo; e < hi; ++e) {
                while (offsets[u + 1] <= e) ++u;
                if (!take(u, e)) continue;
                pos[o] = e;
                if (a) { a[o] = group[u]; b[o] = group[(int64_t)indices[e]]; }
                ++o;
            }
        });
}

// pos[i] = the CSR position of arc (a[i], b[i]) (rows sorted: a binary search in row a[i]), or -1.
template <typename V>
static void gf_find_arcs(const int64_t* offsets, const V* indices, const int64_t* a, const int64_t* b, int64_t k,
                         int64_t* pos) {
#pragma omp parallel for schedule(static) if (k > GF_PAR_ELEMS / 16)
    for (int64_t i = 0; i < k; ++i) {
        const V* lo = indices + offsets[a[i]];
        const V* hi = indices + offsets[a[i] + 1];
        const V* at = std::lower_bound(lo, hi, (V)b[i]);
        pos[i] = (at != hi && *at == (V)b[i]) ? (int64_t)(at - indices) : -1;
    }
}

// Per vertex u (label propagation's merge, HyPar Algorithm 5): same[u] = arcs to a neighbour of
// u's label; cross[u] = arcs to a vertex of another part (part may be null: cross untouched).
template <typename V>
static void gf_label_arcs(int64_t n, const int64_t* offsets, const V* indices, const int64_t* label,
                          const int64_t* part, int64_t* same, int64_t* cross) {
#pragma omp parallel for schedule(dynamic, 1024) if (offsets[n] > GF_PAR_ELEMS / 4)
    for (int64_t u = 0; u < n; ++u) {
        int64_t s = 0, c = 0;
        for (int64_t j = offsets[u]; j < offsets[u + 1]; ++j) {
            const int64_t v = (int64_t)indices[j];
            s += label[v] == label[u];
            if (part) c += part[v] != part[u];
        }
        same[u] = s;
        if (part) cross[u] = c;
    }
}

// most[r] = how many neighbours of rows[r] carry the most frequent label among them (0: none).
template <typename V>
static void gf_top_label(int64_t k, const int64_t* rows, const int64_t* offsets, const V* indices,
                         const int64_t* label, int64_t* most) {
#pragma omp parallel if (k > 1024)
    {
        std::vector<int64_t> buf;
#pragma omp for schedule(dynamic, 256)
        for (int64_t r = 0; r < k; ++r) {
            const int64_t u = rows[r];
            buf.clear();
            for (int64_t j = offsets[u]; j < offsets[u + 1]; ++j) buf.push_back(label[(int64_t)indices[j]]);
            std::sort(buf.begin(), buf.end());
            int64_t best = 0;
            for (size_t i = 0; i < buf.size();) {
                size_t e = i + 1;
                while (e < buf.size() && buf[e] == buf[i]) ++e;
                best = std::max<int64_t>(best, (int64_t)(e - i));
                i = e;
            }
            most[r] = best;
        }
    }
}

#define GF_GRAPH_OPS(SUFFIX, V)                                                                        \
    GF_EXPORT void gf_subgraph_##SUFFIX(int phase, int64_t k, const int64_t* rows, const int64_t* o,    \
                                        const V* i, const float* w, const int64_t* new_id,              \
                                        const uint8_t* flag, int64_t* out, V* out_idx, float* out_w) {  \
        gf_subgraph<V>(phase, k, rows, o, i, w, new_id, flag, out, out_idx, out_w);                     \
    }                                                                                                   \
    GF_EXPORT int64_t gf_arcs_where_##SUFFIX(int mode, int64_t n, const int64_t* o, const V* i,         \
                                             const int64_t* group, int64_t* pos, int64_t* a, int64_t* b) { \
        return gf_arcs_where<V>(mode, n, o, i, group, pos, a, b);                                       \
    }                                                                                                   \
    GF_EXPORT void gf_find_arcs_##SUFFIX(const int64_t* o, const V* i, const int64_t* a, const int64_t* b, \
                                         int64_t k, int64_t* pos) {                                     \
        gf_find_arcs<V>(o, i, a, b, k, pos);                                                            \
    }                                                                                                   \
    GF_EXPORT void gf_label_arcs_##SUFFIX(int64_t n, const int64_t* o, const V* i, const int64_t* label, \
                                          const int64_t* part, int64_t* same, int64_t* cross) {          \
        gf_label_arcs<V>(n, o, i, label, part, same, cross);                                            \
    }                                                                                                   \
    GF_EXPORT void gf_top_label_##SUFFIX(int64_t k, const int64_t* rows, const int64_t* o, const V* i,  \
                                         const int64_t* label, int64_t* most) {                         \
        gf_top_label<V>(k, rows, o, i, label, most);                                                    \
    }
GF_GRAPH_OPS(i32, int32_t)
#define GF_REGION 7
#include "gf_host_shard.h"
GF_GRAPH_OPS(i64, int64_t)

// Reciprocated arcs per vertex (NetworkX's reciprocity "overlap"): out[u] = |succ(u) ∩ pred(u)|
// for a CSR without repeated arcs and its transpose (rows in any order): u's successors are
// stamped with u, then u's predecessors that carry the stamp are counted. A self-loop is its own
// reverse (counted once). One pass over each CSR; every thread keeps its own n stamps.
#define GF_REGION 3
#include "gf_host_shard.h"
template <typename V>
static void gf_reciprocal_counts(int64_t n, const int64_t* o, const V* i, const int64_t* to, const V* ti,
                                 int64_t* out) {
#pragma omp parallel if (o[n] > GF_PAR_ELEMS / 4)
    {
        std::vector<V> stamp(n, (V)-1);
#pragma omp for schedule(dynamic, 1024)
        for (int64_t u = 0; u < n; ++u) {
            for (int64_t j = o[u]; j < o[u + 1]; ++j) stamp[i[j]] = (V)u;
            int64_t c = 0;
            for (int64_t j = to[u]; j < to[u + 1]; ++j) c += stamp[ti[j]] == (V)u;
            out[u] = c;
        }
    }
}
GF_EXPORT void gf_reciprocal_counts_i32(int64_t n, const int64_t* o, const int32_t* i, const int64_t* to,
                                        const int32_t* ti, int64_t* out) {
    gf_reciprocal_counts(n, o, i, to, ti, out);
}
GF_EXPORT void gf_reciprocal_counts_i64(int64_t n, const int64_t* o, const int64_t* i, const int64_t* to,
                                        const int64_t* ti, int64_t* out) {
    gf_reciprocal_counts(n, o, i, to, ti, out);
}

// The quotient graph of a grouping (HyPar's mergeParts: self-edge removal and contraction):
// group[u] in [0, k) for each of the n vertices. Arcs inside a group are dropped; the arcs
// between two groups become one quotient arc, standing for the lightest of them, then the
// first in CSR order (weights may be null: the first). In parallel: the arcs between groups
// are bucketed by their source's group (atomic slots per group, then each bucket sorted by
// (target group, weight, position), so the result does not depend on the threads), each bucket
// deduplicated in place; then the kept arcs are copied out in group order.
#ifndef GF_CONTRACT_SORT_BELOW
#define GF_CONTRACT_SORT_BELOW 64
#endif
struct GfQuotientArc {
    int64_t b;    // the target's group
    float w;
    int64_t pos;  // the arc's CSR position
};

// The arcs of row u that may join two groups, as two position ranges [a0, a1) and [b0, b1): the
// whole row, or, with bounds (nb + 1 vertex-range edges inside which every arc joins one group:
// HyPar's blocks after a part's components), the arcs leaving u's range, found by binary search
// in the sorted row.
#define GF_REGION 8
#include "gf_host_shard.h"
template <typename V>
static inline void gf_cross_ranges(int64_t u, const int64_t* offsets, const V* indices, const int64_t* bounds,
                                   int64_t nb, int64_t r[4]) {
    r[0] = offsets[u];
    r[3] = offsets[u + 1];
    if (!bounds) {
        r[1] = r[2] = r[3];
        return;
    }
    const int64_t b = (int64_t)(std::upper_bound(bounds, bounds + nb + 1, u) - bounds) - 1;
    const V* row = indices + offsets[u];
    const V* end = indices + offsets[u + 1];
    r[1] = (int64_t)(std::lower_bound(row, end, (V)bounds[b]) - indices);
    r[2] = (int64_t)(std::lower_bound(row, end, (V)bounds[b + 1]) - indices);
}

// One bucket deduplicated by every thread: each arc's (weight, position) packed so that their
// order is the order of contraction's less() (weight, then position; -0 taken as +0, as < does),
// the least per target kept by an atomic minimum in key (k entries, all UINT64_MAX on entry and
// on return), then the targets that have one written back over the bucket in target order, in
// parallel chunks. Returns how many were kept. Positions must be below 2^32.
// A float's bits made to order as the floats do (negatives flipped, the sign set on the rest):
// Boruvka's keys (gf_cut_min_keys) and contraction's (gf_weight_order_bits) compare weights so.
static inline uint32_t gf_float_order_bits(float w) {
    uint32_t bits;
    std::memcpy(&bits, &w, sizeof bits);
    return (bits & 0x80000000u) ? ~bits : (bits | 0x80000000u);
}
static inline uint64_t gf_weight_order_bits(float w) {
    return gf_float_order_bits(w == 0.0f ? 0.0f : w);   // -0 and +0 compare equal: one key for both
}
static inline float gf_weight_from_order_bits(uint32_t bits) {
    bits = (bits & 0x80000000u) ? (bits & 0x7fffffffu) : ~bits;
    float w;
    std::memcpy(&w, &bits, sizeof w);
    return w;
}
static int64_t gf_contract_giant(GfQuotientArc* lo, int64_t size, int64_t k, uint64_t* key, int threads) {
#pragma omp parallel for schedule(static) num_threads(threads)
    for (int64_t i = 0; i < size; ++i) {
        const uint64_t mine = (gf_weight_order_bits(lo[i].w) << 32) | (uint64_t)lo[i].pos;
        uint64_t* at = &key[lo[i].b];
        uint64_t cur = __atomic_load_n(at, __ATOMIC_RELAXED);
        while (mine < cur && !__atomic_compare_exchange_n(at, &cur, mine, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
        }
    }
    // the targets kept, in order: a count per chunk of targets, their running sum, then each chunk written
    std::vector<int64_t> start(threads + 1, 0);
    int64_t total = 0;
#pragma omp parallel num_threads(threads)
    {
        const int t = omp_get_thread_num(), nt = omp_get_num_threads();   // nt may be below threads
        const int64_t b0 = k * t / nt, b1 = k * (t + 1) / nt;
        int64_t c = 0;
        for (int64_t b = b0; b < b1; ++b) c += key[b] != UINT64_MAX;
        start[t + 1] = c;
#pragma omp barrier
#pragma omp single
        {
            for (int i = 0; i < nt; ++i) start[i + 1] += start[i];
            total = start[nt];
        }
        int64_t o = start[t];
        for (int64_t b = b0; b < b1; ++b)
            if (key[b] != UINT64_MAX) {
                lo[o++] = GfQuotientArc{b, gf_weight_from_order_bits((uint32_t)(key[b] >> 32)),
                                        (int64_t)(key[b] & 0xffffffffu)};
                key[b] = UINT64_MAX;
            }
    }
    return total;
}

template <typename V>
static int64_t gf_contract_pass(int phase, int64_t n, int64_t k, const int64_t* offsets, const V* indices,
                                const float* weights, const int64_t* group, const int64_t* bounds, int64_t nb,
                                int64_t* bucket_off, GfQuotientArc* arcs, int64_t* kept) {
    const bool par = offsets[n] > GF_PAR_ELEMS / 4;
    auto count = [&](int64_t u, const int64_t r[4]) {
        int64_t c = 0;
        const int64_t gu = group[u];
        for (int64_t j = r[0]; j < r[1]; ++j) c += group[(int64_t)indices[j]] != gu;
        for (int64_t j = r[2]; j < r[3]; ++j) c += group[(int64_t)indices[j]] != gu;
        return c;
    };
    if (phase == 0) {  // bucket_off[g + 1] = arcs leaving group g (bucket_off zeroed, k + 1 entries)
#pragma omp parallel for schedule(dynamic, 1024) if (par)
        for (int64_t u = 0; u < n; ++u) {
            int64_t r[4];
            gf_cross_ranges(u, offsets, indices, bounds, nb, r);
            const int64_t c = count(u, r);
            if (c) __atomic_fetch_add(&bucket_off[group[u] + 1], c, __ATOMIC_RELAXED);
        }
        return 0;
    }
    if (phase == 1) {  // fill: kept (k entries) starts as each bucket's first slot and is consumed
#pragma omp parallel for schedule(dynamic, 1024) if (par)
        for (int64_t u = 0; u < n; ++u) {
            int64_t r[4];
            gf_cross_ranges(u, offsets, indices, bounds, nb, r);
            const int64_t gu = group[u];
            const int64_t c = count(u, r);       // one atomic per row, not per arc: a giant group's
            if (!c) continue;                    // counter would serialise every thread on it
            int64_t s = __atomic_fetch_add(&kept[gu], c, __ATOMIC_RELAXED);
            for (int half = 0; half < 2; ++half)
                for (int64_t j = r[2 * half]; j < r[2 * half + 1]; ++j) {
                    const int64_t gv = group[(int64_t)indices[j]];
                    if (gv != gu) arcs[s++] = GfQuotientArc{gv, weights ? weights[j] : 0.0f, j};
                }
        }
        return 0;
    }
    // phase 2: deduplicate each bucket in place; kept[g] = its distinct targets. A bucket of more
    // than GF_CONTRACT_SORT_BELOW arcs (a big component's holds most of the arcs, to few targets)
    // in one pass keeping each target's least arc in a k-sized table (one per thread, when k is
    // small enough for that), its targets then sorted; a smaller one sorted. (64: a kron17
    // Boruvka quotient on one thread took 100 ms, 130 ms with 4096.)
    auto less = [](const GfQuotientArc& x, const GfQuotientArc& y) {
        if (x.b != y.b) return x.b < y.b;
        if (x.w < y.w) return true;
        if (y.w < x.w) return false;
        return x.pos < y.pos;
    };
    const int64_t large = GF_CONTRACT_SORT_BELOW;
    const bool tables = k * (int64_t)sizeof(int64_t) * omp_get_max_threads() <= ((int64_t)1 << 28);
    // A bucket holding more than half a thread's share of all the arcs is deduplicated by every
    // thread at once (gf_contract_giant), after the others: one component holding most vertices
    // holds most arcs (31 M of 104 M at a Kronecker 22 Boruvka level), and one thread's pass over
    // it took most of the contraction. Its keys pack (weight, position) in 64 bits: positions
    // below 2^32, a k-sized table of at most 1 GiB.
    const int threads = par ? omp_get_max_threads() : 1;
    const int64_t giant = std::max<int64_t>(large, bucket_off[k] / (2 * (int64_t)threads));
    const bool shared_table = threads > 1 && offsets[n] <= (int64_t)UINT32_MAX &&
                              k * (int64_t)sizeof(uint64_t) <= ((int64_t)1 << 30);
    auto is_giant = [&](int64_t size) { return shared_table && size > giant; };
#pragma omp parallel if (par)
    {
        std::vector<int64_t> best, touched;
        std::vector<GfQuotientArc> out;
#pragma omp for schedule(dynamic, 16)
        for (int64_t g = 0; g < k; ++g) {
            GfQuotientArc* lo = arcs + bucket_off[g];
            const int64_t size = bucket_off[g + 1] - bucket_off[g];
            if (is_giant(size)) continue;
            if (size <= large || !tables) {   // small (or no room for tables): sorted
                std::sort(lo, lo + size, less);
                int64_t c = 0;
                for (int64_t i = 0; i < size; ++i)
                    if (c == 0 || lo[c - 1].b != lo[i].b) lo[c++] = lo[i];
                kept[g] = c;
                continue;
            }
            if (best.empty()) best.assign(k, -1);
            touched.clear();
            for (int64_t i = 0; i < size; ++i) {
                const int64_t b = lo[i].b, j = best[b];
                if (j < 0) {
                    best[b] = i;
                    touched.push_back(b);
                } else if (less(lo[i], lo[j])) {
                    best[b] = i;
                }
            }
            std::sort(touched.begin(), touched.end());
            out.clear();
            for (int64_t b : touched) {
                out.push_back(lo[best[b]]);
                best[b] = -1;
            }
            std::copy(out.begin(), out.end(), lo);
            kept[g] = (int64_t)out.size();
        }
    }
    std::vector<uint64_t> key;
    for (int64_t g = 0; g < k; ++g)
        if (is_giant(bucket_off[g + 1] - bucket_off[g])) {
            if (key.empty()) key.assign(k, UINT64_MAX);
            kept[g] = gf_contract_giant(arcs + bucket_off[g], bucket_off[g + 1] - bucket_off[g], k, key.data(), threads);
        }
    return 0;
}

// phase 3: the kept arcs of each bucket to the quotient's indices (target groups) and rep (positions)
template <typename R>
static void gf_contract_out(int64_t k, const int64_t* bucket_off, const GfQuotientArc* arcs, const int64_t* q_off,
                            R* q_idx, int64_t* rep) {
#pragma omp parallel for schedule(dynamic, 256) if (q_off[k] > GF_PAR_ELEMS / 4)
    for (int64_t g = 0; g < k; ++g) {
        const GfQuotientArc* src = arcs + bucket_off[g];
        for (int64_t i = 0, o = q_off[g]; o < q_off[g + 1]; ++i, ++o) {
            q_idx[o] = (R)src[i].b;
            rep[o] = src[i].pos;
        }
    }
}

GF_EXPORT int64_t gf_contract_arc_bytes() { return (int64_t)sizeof(GfQuotientArc); }
#define GF_CONTRACT_EXPORT(SUFFIX, V)                                                                  \
    GF_EXPORT void gf_contract_pass_##SUFFIX(int phase, int64_t n, int64_t k, const int64_t* o,         \
                                             const V* i, const float* w, const int64_t* group,          \
                                             const int64_t* bounds, int64_t nb, int64_t* bucket_off,    \
                                             void* arcs, int64_t* kept) {                               \
        gf_contract_pass<V>(phase, n, k, o, i, w, group, bounds, nb, bucket_off, (GfQuotientArc*)arcs, kept); \
    }                                                                                                   \
    GF_EXPORT void gf_contract_out_##SUFFIX(int64_t k, const int64_t* bucket_off, const void* arcs,     \
                                            const int64_t* q_off, V* q_idx, int64_t* rep) {             \
        gf_contract_out<V>(k, bucket_off, (const GfQuotientArc*)arcs, q_off, q_idx, rep);               \
    }
GF_CONTRACT_EXPORT(i32, int32_t)
#define GF_REGION 9
#include "gf_host_shard.h"
GF_CONTRACT_EXPORT(i64, int64_t)

// For each vertex u of the block [b0, b1) (a range of a symmetric CSR): its lightest arc leaving
// the block, as Boruvka's 64-bit key (the weight's order-preserving bits above the edge's lower
// end: msf_weight_bits of algorithms/mst.py's program) and the edge's higher end; the least key, then the least
// higher end. No such arc: key 2^64 - 1, higher end 2^63 - 1. Weights null: every arc weighs 1.
#define GF_REGION 0
#include "gf_host_shard.h"
template <typename V>
static void gf_cut_min_keys(int64_t b0, int64_t b1, const int64_t* offsets, const V* indices, const float* weights,
                            uint64_t* out_key, int64_t* out_hi) {
#pragma omp parallel for schedule(dynamic, 1024) if (offsets[b1] - offsets[b0] > GF_PAR_ELEMS / 4)
    for (int64_t u = b0; u < b1; ++u) {
        uint64_t best = UINT64_MAX;
        int64_t best_hi = INT64_MAX;
        for (int64_t j = offsets[u]; j < offsets[u + 1]; ++j) {
            const int64_t v = (int64_t)indices[j];
            if (v >= b0 && v < b1) continue;
            const uint32_t bits = gf_float_order_bits(weights ? weights[j] : 1.0f);
            const int64_t lo = u < v ? u : v, hi = u < v ? v : u;
            const uint64_t key = ((uint64_t)bits << 32) | (uint64_t)lo;
            if (key < best || (key == best && hi < best_hi)) {
                best = key;
                best_hi = hi;
            }
        }
        out_key[u - b0] = best;
        out_hi[u - b0] = best_hi;
    }
}
GF_EXPORT void gf_cut_min_keys_i32(int64_t b0, int64_t b1, const int64_t* o, const int32_t* i, const float* w,
                                   uint64_t* k, int64_t* h) { gf_cut_min_keys(b0, b1, o, i, w, k, h); }
GF_EXPORT void gf_cut_min_keys_i64(int64_t b0, int64_t b1, const int64_t* o, const int64_t* i, const float* w,
                                   uint64_t* k, int64_t* h) { gf_cut_min_keys(b0, b1, o, i, w, k, h); }
