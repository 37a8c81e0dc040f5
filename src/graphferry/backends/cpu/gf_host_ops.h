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
