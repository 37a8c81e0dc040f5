// Host-side helpers that are not per program: compaction gather (Subway's SubCSR).
// Called through ctypes, which releases the GIL, so a gather overlaps GPU work.
#pragma once
#include <cstdint>
#include <cstring>
#include <omp.h>
#define GF_EXPORT extern "C" __attribute__((visibility("default")))

// Gather the edges of rows ids[0..k) into out_indices/out_weights; out_offsets
// (k+1 entries) must already hold the exclusive prefix sum of their degrees.
template <typename V>
static void gf_gather_impl(const int64_t* offsets, const V* indices, const float* weights,
                           const int64_t* ids, int64_t k, const int64_t* out_offsets,
                           V* out_indices, float* out_weights) {
#pragma omp parallel for schedule(dynamic, 256)
    for (int64_t r = 0; r < k; ++r) {
        const int64_t v = ids[r];
        const int64_t b = offsets[v], len = offsets[v + 1] - b, o = out_offsets[r];
        std::memcpy(out_indices + o, indices + b, len * sizeof(V));
        if (weights) std::memcpy(out_weights + o, weights + b, len * sizeof(float));
    }
}
GF_EXPORT void gf_gather_i32(const int64_t* offsets, const int32_t* indices, const float* weights,
                             const int64_t* ids, int64_t k, const int64_t* out_offsets,
                             int32_t* out_indices, float* out_weights) {
    gf_gather_impl(offsets, indices, weights, ids, k, out_offsets, out_indices, out_weights);
}
GF_EXPORT void gf_gather_i64(const int64_t* offsets, const int64_t* indices, const float* weights,
                             const int64_t* ids, int64_t k, const int64_t* out_offsets,
                             int64_t* out_indices, float* out_weights) {
    gf_gather_impl(offsets, indices, weights, ids, k, out_offsets, out_indices, out_weights);
}

// ------------------------------------------------------------------ frontiers
// Bitmaps: bit v of word v / 32. Every helper is one parallel pass; below
// GF_SERIAL_WORDS words (or ids) it runs on one thread: waking a team costs
// more than the pass (milliseconds when the cores are shared).
#ifndef GF_SERIAL_WORDS
#define GF_SERIAL_WORDS (1 << 15)
#endif

// Sorted ids of the set bits of bits[0..words); returns how many were written.
// Two passes over the words (count per block, then write), no serial scan over n.
GF_EXPORT int64_t gf_bits_to_ids(const uint32_t* bits, int64_t words, int64_t* out) {
    const int T = words < GF_SERIAL_WORDS ? 1 : omp_get_max_threads();
    int64_t* counts = new int64_t[T + 1]();
    int used = 1;
#pragma omp parallel num_threads(T)
    {
        const int t = omp_get_thread_num(), nt = omp_get_num_threads();
        if (t == 0) used = nt;
        const int64_t lo = words * t / nt, hi = words * (t + 1) / nt;
        int64_t c = 0;
        for (int64_t w = lo; w < hi; ++w) c += __builtin_popcount(bits[w]);
        counts[t + 1] = c;
#pragma omp barrier
#pragma omp single
        for (int k = 0; k < nt; ++k) counts[k + 1] += counts[k];
        int64_t o = counts[t];
        for (int64_t w = lo; w < hi; ++w) {
            uint32_t x = bits[w];
            while (x) {
                out[o++] = (w << 5) + __builtin_ctz(x);
                x &= x - 1;
            }
        }
    }
    const int64_t total = counts[used];
    delete[] counts;
    return total;
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
