// CPU kernels (OpenMP) around a program's functions. Included after the program text.
//
// Every engine hands these kernels the same kind of partition view:
//   offsets[r] - edge_base .. offsets[r+1] - edge_base  are row r's edges in indices/weights,
//   row r is vertex vertex_ids[r] (compacted view) or lo + r (range view).
// One kernel per direction (push / pull), never per engine.
//
// Two things decide how these scale past a few cores (measured on 16):
// * the grain of the loop. A fixed dynamic chunk of 64 rows over a whole side of
//   33.5 M rows is 524 K grabs of one shared counter per map, which serialise;
//   GAPBS uses 64 rows for a sparse queue and 1024-16384 for whole-graph loops.
//   gf_chunk keeps about 64 chunks per thread (load balance on power-law rows)
//   within [64, 4096] rows.
// * the output bitmap. Rows of a range view are consecutive vertices, so a
//   chunk's output bits are gathered in a register word and written with one
//   atomic OR per 32 vertices (GfBitWriter), instead of one per vertex on lines
//   that the neighbouring chunks' threads write too.
#pragma once
#include <omp.h>

#define GF_EXPORT extern "C" __attribute__((visibility("default")))

static inline void gf_set_bit(uint32_t* bits, int64_t v) {
    const uint32_t bit = 1u << (v & 31);
    // read first: a vertex updated again (SSSP, PageRank) does not take the line exclusive again
    if (!(__atomic_load_n(&bits[v >> 5], __ATOMIC_RELAXED) & bit))
        __atomic_fetch_or(&bits[v >> 5], bit, __ATOMIC_RELAXED);
}

// Output bits of one thread's run of vertices: consecutive ids share one register word.
struct GfBitWriter {
    uint32_t* bits;
    int64_t word = -1;
    uint32_t mask = 0;
    explicit GfBitWriter(uint32_t* b) : bits(b) {}
    inline void set(int64_t v) {
        if ((v >> 5) != word) { flush(); word = v >> 5; }
        mask |= 1u << (v & 31);
    }
    inline void flush() {
        if (mask) __atomic_fetch_or(&bits[word], mask, __ATOMIC_RELAXED);
        mask = 0;
    }
};

// Rows per dynamic chunk for a loop of `count` rows (a multiple of 32 above the minimum).
static inline int64_t gf_chunk(int64_t count) {
    int64_t c = count / ((int64_t)omp_get_max_threads() * 64);
    return c < 64 ? 64 : (c > 4096 ? 4096 : (c & ~(int64_t)31));
}

#if GF_HAS_PUSH
// Push: every active row scatters along its out-edges with update_atomic.
// row_list (optional) names the active rows; otherwise all rows, filtered by
// in_bits when given. Heavy rows are fine with dynamic scheduling on a CPU.
GF_EXPORT void gf_push(void* const* A, const double* F, const int64_t* I,
                       const eid_t* offsets, const vid_t* indices, const float* weights,
                       const vid_t* vertex_ids, int64_t lo, int64_t rows, int64_t edge_base,
                       const int64_t* row_list, int64_t nlist,
                       const uint32_t* in_bits, uint32_t* out_bits) {
    const State S = gf_state(A, F, I);
    const int64_t count = row_list ? nlist : rows;
    const int64_t chunk = gf_chunk(count);
    const auto relax = [&](vid_t v, eid_t j) {
        const vid_t d = indices[j];
        const float w = weights ? weights[j] : 1.0f;
        if (cond(S, d) && update_atomic(S, v, d, w)) {
            if (out_bits) gf_set_bit(out_bits, d);   // heads are scattered: one bit each
        }
    };
    if (count <= chunk) {
        // one chunk would go to one thread: a team pays off only inside a long row (a
        // traversal's first step from a hub: hundreds of thousands of edges)
        for (int64_t k = 0; k < count; ++k) {
            const int64_t r = row_list ? row_list[k] : k;
            const vid_t v = vertex_ids ? vertex_ids[r] : (vid_t)(lo + r);
            if (!row_list && in_bits && !gf_bit(in_bits, v)) continue;
            const eid_t b = offsets[r] - edge_base, e = offsets[r + 1] - edge_base;
#pragma omp parallel for schedule(dynamic, 1024) if (e - b > 8192)
            for (eid_t j = b; j < e; ++j) relax(v, j);
        }
        return;
    }
#pragma omp parallel for schedule(dynamic, chunk)
    for (int64_t k = 0; k < count; ++k) {
        const int64_t r = row_list ? row_list[k] : k;
        const vid_t v = vertex_ids ? vertex_ids[r] : (vid_t)(lo + r);
        if (!row_list && in_bits && !gf_bit(in_bits, v)) continue;
        const eid_t b = offsets[r] - edge_base, e = offsets[r + 1] - edge_base;
        for (eid_t j = b; j < e; ++j) relax(v, j);
    }
}
#endif

#if GF_HAS_PULL
// Pull: rows are destinations (in-edge view); one thread owns each row, so
// update needs no atomics; stop early once cond(d) turns false (Ligra).
GF_EXPORT void gf_pull(void* const* A, const double* F, const int64_t* I,
                       const eid_t* offsets, const vid_t* indices, const float* weights,
                       const vid_t* vertex_ids, int64_t lo, int64_t rows, int64_t edge_base,
                       const int64_t* row_list, int64_t nlist,
                       const uint32_t* in_bits, uint32_t* out_bits) {
    const State S = gf_state(A, F, I);
    const int64_t count = row_list ? nlist : rows;
    const int64_t chunk = gf_chunk(count), chunks = (count + chunk - 1) / chunk;
#pragma omp parallel for schedule(dynamic, 1) if (chunks > 1)
    for (int64_t c = 0; c < chunks; ++c) {
        GfBitWriter out(out_bits);
        const int64_t k_end = c * chunk + chunk < count ? c * chunk + chunk : count;
        for (int64_t k = c * chunk; k < k_end; ++k) {
            const int64_t r = row_list ? row_list[k] : k;
            const vid_t d = vertex_ids ? vertex_ids[r] : (vid_t)(lo + r);
            if (!cond(S, d)) continue;
            bool changed = false;
            const eid_t b = offsets[r] - edge_base, e = offsets[r + 1] - edge_base;
    #if GF_HAS_PULL_FOLD
            // the program's fold: the row's value stays in a register, one store per row
            // (pull_end only for rows that folded at least one edge, as update is called only for edges)
            auto acc = pull_begin(S, d);
            bool folded = false;
            if (in_bits) {
                for (eid_t j = b; j < e; ++j) {
                    const vid_t s = indices[j];
                    if (!gf_bit(in_bits, s)) continue;
                    pull_fold(S, acc, s, d, weights ? weights[j] : 1.0f);
                    folded = true;
                }
            } else {
                folded = e > b;
                if (weights) {
                    for (eid_t j = b; j < e; ++j) pull_fold(S, acc, indices[j], d, weights[j]);
                } else {
                    for (eid_t j = b; j < e; ++j) pull_fold(S, acc, indices[j], d, 1.0f);
                }
            }
            changed = folded && pull_end(S, d, acc);
    #else
            for (eid_t j = b; j < e; ++j) {
                const vid_t s = indices[j];
                if (in_bits && !gf_bit(in_bits, s)) continue;
                const float w = weights ? weights[j] : 1.0f;
                if (update(S, s, d, w)) changed = true;
                if (!cond(S, d)) break;
            }
    #endif
            if (changed && out_bits) out.set(d);   // rows are consecutive ids in a range view
        }
        if (out_bits) out.flush();
    }
}
#endif

// vertex_map over ids (if given) or [lo, hi) filtered by in_bits; true sets out bit.
// Static blocks of consecutive vertices: their output bits are gathered per word.
#define GF_VERTEX_KERNEL(fn)                                                            \
    GF_EXPORT void gf_vmap_##fn(void* const* A, const double* F, const int64_t* I,      \
                                int64_t lo, int64_t hi, const int64_t* ids, int64_t nids, \
                                const uint32_t* in_bits, uint32_t* out_bits) {          \
        const State S = gf_state(A, F, I);                                              \
        const int64_t count = ids ? nids : hi - lo;                                     \
        const int64_t chunk = gf_chunk(count), chunks = (count + chunk - 1) / chunk;    \
        _Pragma("omp parallel for schedule(static) if (count > 4096)")                  \
        for (int64_t c = 0; c < chunks; ++c) {                                          \
            GfBitWriter out(out_bits);                                                  \
            const int64_t k_end = c * chunk + chunk < count ? c * chunk + chunk : count; \
            for (int64_t k = c * chunk; k < k_end; ++k) {                               \
                const int64_t v = ids ? ids[k] : lo + k;                                \
                if (!ids && in_bits && !gf_bit(in_bits, v)) continue;                  \
                if (fn(S, (vid_t)v) && out_bits) out.set(v);                            \
            }                                                                           \
            if (out_bits) out.flush();                                                  \
        }                                                                               \
    }

// Chunks of a neighbour map split by edges and rows together, not by rows alone: a
// neighbourhood function's cost grows with the row's degree, and the graphs it runs on
// are often ordered by degree (triangle counting's DAG puts every hub in the last
// rows), so equal row counts left the last chunk's thread with most of the work
// (triangles at Kronecker 22 on 16 threads: 15x slower than with 64-row chunks).
// Row v weighs deg(v) + 1; chunk c is [split(c), split(c + 1)).
static inline int64_t gf_weighted_chunks(int64_t count) {
    const int64_t most = (int64_t)omp_get_max_threads() * 256;
    const int64_t c = count / 16;
    return c < 1 ? 1 : (c > most ? most : c);
}
static inline int64_t gf_weighted_split(const eid_t* offsets, int64_t lo, int64_t hi, int64_t c, int64_t chunks) {
    if (c <= 0) return lo;
    if (c >= chunks) return hi;
    const double total = (double)(offsets[hi] - offsets[lo]) + (double)(hi - lo);
    const double want = total * (double)c / (double)chunks;
    int64_t a = lo, b = hi;   // first v in [lo, hi] whose prefix weight reaches want
    while (a < b) {
        const int64_t m = a + (b - a) / 2;
        if ((double)(offsets[m] - offsets[lo]) + (double)(m - lo) < want) a = m + 1; else b = m;
    }
    return a;
}

// neighbor_map over [lo, hi): the function may read the whole graph and its transpose.
#define GF_NEIGHBOR_KERNEL(fn)                                                           \
    GF_EXPORT void gf_nmap_##fn(void* const* A, const double* F, const int64_t* I,       \
                                const eid_t* go, const vid_t* gi, const float* gw,       \
                                const eid_t* to, const vid_t* ti, const float* tw,       \
                                int64_t n, int64_t lo, int64_t hi, uint32_t* out_bits) { \
        const State S = gf_state(A, F, I);                                               \
        GfGraph G{go, gi, gw, n};                                                        \
        GfGraph GT{to, ti, tw, n};                                                       \
        const int64_t chunks = gf_weighted_chunks(hi - lo);                              \
        _Pragma("omp parallel for schedule(dynamic, 1) if (chunks > 1)")                 \
        for (int64_t c = 0; c < chunks; ++c) {                                           \
            GfBitWriter out(out_bits);                                                   \
            const int64_t v_end = gf_weighted_split(go, lo, hi, c + 1, chunks);          \
            for (int64_t v = gf_weighted_split(go, lo, hi, c, chunks); v < v_end; ++v)   \
                if (fn(S, G, GT, (vid_t)v) && out_bits) out.set(v);                      \
            if (out_bits) out.flush();                                                   \
        }                                                                                \
    }
