// CPU kernels (OpenMP) around a program's functions. Included after the program text.
//
// Every engine hands these kernels the same kind of partition view:
//   offsets[r] - edge_base .. offsets[r+1] - edge_base  are row r's edges in indices/weights,
//   row r is vertex vertex_ids[r] (compacted view) or lo + r (range view),
//   indices plain vid_t or packed in index_bits-bit fields; each loop is compiled for both
//   forms (Ids: const vid_t* or GfPackedIds), chosen once per launch.
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
#include <type_traits>
#include <vector>

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
    // bit v := on, without a branch on `on` (a vertex function's answer is often a coin toss:
    // WCC's is-a-root, 40% of Kronecker's vertices, mispredicted as a branch)
    inline void put(int64_t v, bool on) {
        if ((v >> 5) != word) { flush(); word = v >> 5; }
        mask |= (uint32_t)on << (v & 31);
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

// An exported edge kernel (the Python side's argument list): the ids plain or packed, the
// loop RUN compiled for both forms and chosen once per launch.
#define GF_EDGE_EXPORT(NAME, RUN)                                                                  \
    GF_EXPORT void NAME(void* const* A, const double* F, const int64_t* I, const eid_t* offsets,    \
                        const void* indices, int64_t index_bits, const void* weight_data,          \
                        int64_t weight_bytes, const vid_t* vertex_ids, int64_t lo, int64_t rows,   \
                        int64_t edge_base, const int64_t* row_list, int64_t nlist,                 \
                        const uint32_t* in_bits, uint32_t* out_bits) {                             \
        const State S = gf_state(A, F, I);                                                         \
        const GfWeights weights{weight_data, weight_bytes};                                        \
        if (index_bits)                                                                            \
            RUN(S, offsets, gf_packed_ids(indices, index_bits), weights, vertex_ids,              \
                lo, rows, edge_base, row_list, nlist, in_bits, out_bits);                          \
        else                                                                                       \
            RUN(S, offsets, (const vid_t*)indices, weights, vertex_ids, lo, rows, edge_base,       \
                row_list, nlist, in_bits, out_bits);                                               \
    }

#if GF_HAS_PUSH
// Edges [b, e) of row v, pushed with update_atomic. By value, as gf_pull_rows: the state's
// pointers and the view stay in registers across the compare-and-swaps, which the
// compiler treats as barriers (shared variables are loaded again after each).
template <class Ids>
static inline void gf_push_edges(const State S, const Ids indices, const GfWeights weights, uint32_t* out_bits,
                                 vid_t v, eid_t b, eid_t e) {
    for (eid_t j = b; j < e; ++j) {
        const vid_t d = indices[j];
        const float w = weights ? weights[j] : 1.0f;
        if (cond(S, d) && update_atomic(S, v, d, w)) {
            if (out_bits) gf_set_bit(out_bits, d);   // heads are scattered: one bit each
        }
    }
}

// Push: every active row scatters along its out-edges with update_atomic.
// row_list (optional) names the active rows; otherwise all rows, filtered by
// in_bits when given. Heavy rows are fine with dynamic scheduling on a CPU.
template <class Ids>
static void gf_push_run(const State S, const eid_t* offsets, const Ids indices, const GfWeights weights,
                        const vid_t* vertex_ids, int64_t lo, int64_t rows, int64_t edge_base,
                        const int64_t* row_list, int64_t nlist,
                        const uint32_t* in_bits, uint32_t* out_bits) {
    const int64_t count = row_list ? nlist : rows;
    const int64_t chunk = gf_chunk(count);
    if (count <= chunk) {
        // one chunk would go to one thread: a team pays off only inside a long row (a
        // traversal's first step from a hub: hundreds of thousands of edges)
        const eid_t block = 1024;
        for (int64_t k = 0; k < count; ++k) {
            const int64_t r = row_list ? row_list[k] : k;
            const vid_t v = vertex_ids ? vertex_ids[r] : (vid_t)(lo + r);
            if (!row_list && in_bits && !gf_bit(in_bits, v)) continue;
            const eid_t b = offsets[r] - edge_base, e = offsets[r + 1] - edge_base;
#pragma omp parallel for schedule(dynamic, 1) if (e - b > 8192)
            for (eid_t jb = b; jb < e; jb += block)
                gf_push_edges(S, indices, weights, out_bits, v, jb, jb + block < e ? jb + block : e);
        }
        return;
    }
    if (!row_list && in_bits && !vertex_ids) {
        // rows filtered by the bitmap: visit its set bits a word at a time (a test per row
        // mispredicts on a frontier that is neither sparse nor full)
        const int64_t w_lo = lo >> 5, w_hi = (lo + rows + 31) >> 5;
        const int64_t chunk_words = chunk / 32 > 0 ? chunk / 32 : 1;
#pragma omp parallel for schedule(dynamic, chunk_words)
        for (int64_t w = w_lo; w < w_hi; ++w) {
            for (uint32_t m = in_bits[w]; m; m &= m - 1) {
                const int64_t v = (w << 5) + __builtin_ctz(m);
                if (v < lo || v >= lo + rows) continue;
                gf_push_edges(S, indices, weights, out_bits, (vid_t)v, offsets[v - lo] - edge_base,
                              offsets[v - lo + 1] - edge_base);
            }
        }
        return;
    }
#pragma omp parallel for schedule(dynamic, chunk)
    for (int64_t k = 0; k < count; ++k) {
        const int64_t r = row_list ? row_list[k] : k;
        const vid_t v = vertex_ids ? vertex_ids[r] : (vid_t)(lo + r);
        if (!row_list && in_bits && !gf_bit(in_bits, v)) continue;
        gf_push_edges(S, indices, weights, out_bits, v, offsets[r] - edge_base, offsets[r + 1] - edge_base);
    }
}

GF_EDGE_EXPORT(gf_push, gf_push_run)
#endif

#if GF_HAS_PUSH
// Delta-stepping in one call (Meyer and Sanders 2003): vertex v lies in bucket
// B[i] = {v : floor(prio[v] / delta) = i}; rounds relax the out-edges of the lowest
// non-empty bucket with update_atomic, and every vertex whose value dropped is filed in
// the bucket of its new value (the same bucket again through an edge lighter than delta).
// Values only fall, so an entry filed earlier in a higher bucket is stale when its
// bucket comes and is skipped (its vertex was relaxed where it fell to), and so is an
// entry whose vertex was already relaxed at its present value (filed twice in one
// bucket): relaxed[v] holds the bits of the value v was last relaxed at, inverted, so
// that calloc's zero pages (touched only where a vertex is relaxed, no fill pass) never
// match a distance. Plain loads and stores: a thread that finds its own value there
// skips, since whoever wrote it relaxes v at that value or lower; no locked
// instruction, which would wait for every load in flight (a road graph relaxes
// about one edge per vertex popped).
//
// The buckets are per-thread vectors (no shared counter per relaxation). A round takes
// two barriers: every thread votes for its lowest non-empty bucket; then every thread
// moves its part of the winner aside, and all threads share the parts out in chunks
// (read in place, no copy into one array). Bucket fusion (Zhang et al., "Optimizing
// ordered graph algorithms with GraphIt", CGO 2020): after the shared pass a thread
// keeps relaxing its own entries of the *current* bucket while they are few, without
// the barriers of a round (vertices of one bucket may be relaxed in any order, so the
// priority order holds). Per-thread buckets cover a window of keys [lo, lo +
// GF_BUCKET_WINDOW); an entry beyond it waits in `far` and is filed when the window
// moves up to it.
#define GF_BUCKET_WINDOW 4096
#define GF_FUSE_BELOW 1024   // a thread's own current-bucket entries it relaxes without a round
#define GF_BUCKET_CHUNK 64   // entries per grab of the shared pass

template <typename P>
static inline int64_t gf_bucket_key(P value, double delta) {
    const double k = std::floor((double)value / delta);   // delta = inf: every finite value in bucket 0
    return k < 9.0e18 ? (int64_t)k : INT64_MAX;
}

struct alignas(64) GfThreadBuckets {   // one thread's own lines: no false sharing of the vectors' ends
    std::vector<std::vector<vid_t>> bins;   // bins[k - lo]
    std::vector<vid_t> far;                 // keys >= lo + GF_BUCKET_WINDOW
    std::vector<vid_t> current;             // this thread's part of the round's bucket (read by all)
    std::vector<vid_t> work;                // the bin being fused
    int64_t pops = 0, edges = 0;
    inline void file(vid_t v, int64_t key, int64_t lo) {
        const int64_t slot = key - lo;
        if (slot >= GF_BUCKET_WINDOW) { far.push_back(v); return; }
        if (slot >= (int64_t)bins.size()) bins.resize(slot + 1);
        bins[slot].push_back(v);
    }
    // smallest key >= from with an entry in the window, or INT64_MAX
    inline int64_t lowest(int64_t from, int64_t lo) const {
        for (int64_t s = from - lo; s < (int64_t)bins.size(); ++s)
            if (!bins[s].empty()) return lo + s;
        return INT64_MAX;
    }
};

// stats: [0] rounds, [1] vertices relaxed, [2] edges relaxed.
template <typename P>
static void gf_push_buckets_run(const State& S, const eid_t* offsets, const vid_t* indices, const GfWeights weights,
                                int64_t n, const P* prio, double delta, const int64_t* seeds,
                                int64_t nseeds, int64_t* stats) {
    const int nt = omp_get_max_threads();
    std::vector<GfThreadBuckets> local(nt);
    std::vector<int64_t> vote(nt), far_vote(nt), sizes(nt);
    typedef typename std::conditional<sizeof(P) == 4, uint32_t, uint64_t>::type Bits;
    Bits* relaxed = (Bits*)std::calloc((size_t)(n > 0 ? n : 1), sizeof(Bits));
    const auto inverted = [](P value) { Bits b; std::memcpy(&b, &value, sizeof(P)); return (Bits)~b; };
    int64_t first = INT64_MAX, rounds = 0;
    for (int64_t i = 0; i < nseeds; ++i) {
        const int64_t k = gf_bucket_key(prio[seeds[i]], delta);
        first = k < first ? k : first;
    }
    if (first == INT64_MAX) {   // nothing to relax
        std::free(relaxed);
        stats[0] = stats[1] = stats[2] = 0;
        return;
    }
    for (int64_t i = 0; i < nseeds; ++i) {
        const int64_t k = gf_bucket_key(prio[seeds[i]], delta);
        if (k != INT64_MAX) local[0].file((vid_t)seeds[i], k, first);
    }
#pragma omp parallel num_threads(nt)
    {
        const int t = omp_get_thread_num(), team = omp_get_num_threads();
        GfThreadBuckets& my = local[t];
        int64_t lo = first, cur = first;   // the same in every thread
        std::vector<int64_t> start(team + 1);
        int64_t pops = 0, edges = 0;   // this thread's counts (registers, not shared lines)
        const auto relax = [&](vid_t u) {
            const P now = gf_load(&prio[u]);
            if (gf_bucket_key(now, delta) < cur) return;   // stale: relaxed in a lower bucket
            const Bits mark = inverted(now);
            if (__atomic_load_n(&relaxed[u], __ATOMIC_RELAXED) == mark) return;   // a repeat
            __atomic_store_n(&relaxed[u], mark, __ATOMIC_RELAXED);
            const eid_t b = offsets[u], e = offsets[u + 1];
            pops += 1;
            edges += e - b;
            for (eid_t j = b; j < e; ++j) {
                const vid_t d = indices[j];
                if (j + 12 < e) __builtin_prefetch(&prio[indices[j + 12]]);
                if (cond(S, d) && update_atomic(S, u, d, weights ? weights[j] : 1.0f)) {
                    const int64_t k = gf_bucket_key(gf_load(&prio[d]), delta);
                    my.file(d, k < cur ? cur : k, lo);   // never below the bucket being relaxed
                }
            }
        };
        for (;;) {
            // barrier 1: the next bucket is the lowest non-empty one of any thread
            vote[t] = my.lowest(cur, lo);
#pragma omp barrier
            int64_t next = INT64_MAX;
            for (int s = 0; s < team; ++s) next = vote[s] < next ? vote[s] : next;
            if (next == INT64_MAX) {
                // the window is spent: drop far entries that fell into it (stale), move it up to the rest
                const int64_t hi = lo + GF_BUCKET_WINDOW;
                int64_t low_far = INT64_MAX;
                size_t kept = 0;
                for (vid_t v : my.far) {
                    const int64_t k = gf_bucket_key(gf_load(&prio[v]), delta);
                    if (k < hi) continue;
                    my.far[kept++] = v;
                    low_far = k < low_far ? k : low_far;
                }
                my.far.resize(kept);
                far_vote[t] = low_far;
#pragma omp barrier
                int64_t new_lo = INT64_MAX;
                for (int s = 0; s < team; ++s) new_lo = far_vote[s] < new_lo ? far_vote[s] : new_lo;
                if (new_lo == INT64_MAX) break;   // every bucket is empty: done (all threads agree)
                lo = cur = new_lo;
                my.bins.clear();
                std::vector<vid_t> far;
                far.swap(my.far);
                for (vid_t v : far) my.file(v, gf_bucket_key(gf_load(&prio[v]), delta), lo);
                continue;   // vote again in the new window
            }
            // barrier 2: each thread sets its part of bucket `next` aside (everyone finished the
            // last round's parts before barrier 1, so `current` is free)
            cur = next;
            if ((int64_t)my.bins.size() <= next - lo) my.bins.resize(next - lo + 1);
            my.current.clear();
            my.current.swap(my.bins[next - lo]);
            sizes[t] = (int64_t)my.current.size();
#pragma omp barrier
            if (t == 0) ++rounds;
            start[0] = 0;
            for (int s = 0; s < team; ++s) start[s + 1] = start[s] + sizes[s];
            const int64_t chunks = (start[team] + GF_BUCKET_CHUNK - 1) / GF_BUCKET_CHUNK;
#pragma omp for schedule(dynamic, 1) nowait
            for (int64_t c = 0; c < chunks; ++c) {
                const int64_t i0 = c * GF_BUCKET_CHUNK;
                const int64_t i1 = i0 + GF_BUCKET_CHUNK < start[team] ? i0 + GF_BUCKET_CHUNK : start[team];
                int s = 0;
                while (start[s + 1] <= i0) ++s;
                for (int64_t i = i0; i < i1; ++i) {
                    while (start[s + 1] <= i) ++s;
                    const vid_t* part = local[s].current.data() - start[s];   // part[i] for i in its range
                    // the bucket's rows lie anywhere: fetch a row's offsets, then its edges, ahead of use
                    if (i + 16 < start[s + 1]) __builtin_prefetch(&offsets[part[i + 16]]);
                    if (i + 8 < start[s + 1]) {
                        const vid_t a = part[i + 8];
                        const eid_t r = offsets[a];
                        __builtin_prefetch(&indices[r]);
                        if (weights) __builtin_prefetch(weights.at(r));
                        __builtin_prefetch(&prio[a]);
                        __builtin_prefetch(&relaxed[a]);
                    }
                    relax(part[i]);
                }
            }
            // bucket fusion: this thread's own entries of the current bucket, while few
            while ((int64_t)my.bins.size() > cur - lo && !my.bins[cur - lo].empty() &&
                   my.bins[cur - lo].size() < GF_FUSE_BELOW) {
                my.work.clear();
                my.work.swap(my.bins[cur - lo]);
                for (vid_t u : my.work) relax(u);
            }
        }
        my.pops = pops;
        my.edges = edges;
    }
    std::free(relaxed);
    stats[0] = rounds;
    stats[1] = stats[2] = 0;
    for (const auto& l : local) { stats[1] += l.pops; stats[2] += l.edges; }
}

#define GF_PUSH_BUCKETS(SUFFIX, P)                                                                     \
    GF_EXPORT void gf_push_buckets_##SUFFIX(void* const* A, const double* F, const int64_t* I,        \
                                            const eid_t* offsets, const vid_t* indices,               \
                                            const void* weights, int64_t weight_bytes, int64_t n,     \
                                            const P* prio, double delta,                              \
                                            const int64_t* seeds, int64_t nseeds, int64_t* stats) {   \
        gf_push_buckets_run<P>(gf_state(A, F, I), offsets, indices, GfWeights{weights, weight_bytes}, \
                               n, prio, delta, seeds, nseeds, stats);                                 \
    }
GF_PUSH_BUCKETS(f32, float)
GF_PUSH_BUCKETS(f64, double)
#endif

#if GF_HAS_PULL
// One chunk of pull rows [k_begin, k_end). Everything arrives by value, so the state's
// pointers, the view and the output word live in registers: read through the caller's
// shared variables they were loaded again after every store a row made (BFS's bottom-up
// step at Kronecker 22 on one thread: 65 ms this way, against 56 ms in registers, on the
// same arrays). RANGE: a range view (row k is vertex lo + k, no row list): a loop with no
// per-row test of the view's form.
template <bool RANGE, class Ids>
static inline void gf_pull_rows(const State S, const eid_t* offsets, const Ids indices, const GfWeights weights,
                                const vid_t* vertex_ids, int64_t lo, int64_t edge_base, const int64_t* row_list,
                                const uint32_t* in_bits, uint32_t* out_bits, int64_t k_begin, int64_t k_end) {
    GfBitWriter out(out_bits);
    // row r is vertex d; a range view counts in vertex ids (vid_t, whose overflow is undefined:
    // the compiler keeps one 64-bit index instead of sign-extending lo + k every row)
    const auto row = [&](const int64_t r, const vid_t d) __attribute__((always_inline)) {
        if (!cond(S, d)) return;
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
        if (out_bits && changed) out.put(d, true);   // rows are consecutive ids in a range view
    };
    if (RANGE) {
        const vid_t d_begin = (vid_t)(lo + k_begin), d_end = (vid_t)(lo + k_end);
        for (vid_t d = d_begin; d < d_end; ++d) row((int64_t)d - lo, d);
    } else {
        for (int64_t k = k_begin; k < k_end; ++k) {
            const int64_t r = row_list ? row_list[k] : k;
            row(r, vertex_ids ? vertex_ids[r] : (vid_t)(lo + r));
        }
    }
    if (out_bits) out.flush();
}

// Pull: rows are destinations (in-edge view); one thread owns each row, so
// update needs no atomics; stop early once cond(d) turns false (Ligra).
template <class Ids>
static void gf_pull_run(const State S, const eid_t* offsets, const Ids indices, const GfWeights weights,
                        const vid_t* vertex_ids, int64_t lo, int64_t rows, int64_t edge_base,
                        const int64_t* row_list, int64_t nlist,
                        const uint32_t* in_bits, uint32_t* out_bits) {
    const int64_t count = row_list ? nlist : rows;
    const int64_t chunk = gf_chunk(count), chunks = (count + chunk - 1) / chunk;
    const bool range = !row_list && !vertex_ids;
#pragma omp parallel for schedule(dynamic, 1) if (chunks > 1)
    for (int64_t c = 0; c < chunks; ++c) {
        const int64_t k_begin = c * chunk, k_end = c * chunk + chunk < count ? c * chunk + chunk : count;
        if (range)
            gf_pull_rows<true>(S, offsets, indices, weights, vertex_ids, lo, edge_base, row_list, in_bits, out_bits,
                               k_begin, k_end);
        else
            gf_pull_rows<false>(S, offsets, indices, weights, vertex_ids, lo, edge_base, row_list, in_bits, out_bits,
                                k_begin, k_end);
    }
}

GF_EDGE_EXPORT(gf_pull, gf_pull_run)
#endif

// vertex_map over ids (if given) or [lo, hi) filtered by in_bits; true sets out bit.
// Static blocks of consecutive vertices: their output bits are gathered per word.
// A block runs in its own function that takes the state and the view by value, as
// gf_pull_rows: read through the outlined loop's shared variables, the state's pointers
// were loaded again after every store the vertex function made (-fno-strict-aliasing:
// any store may alias them), and the view's form (ids, in_bits, out_bits) was tested per
// vertex. A bitmap-filtered block visits its set bits a word at a time.
#define GF_VERTEX_KERNEL(fn)                                                                   \
    static inline void gf_vmap_block_##fn(const State S, int64_t lo, const int64_t* ids,      \
                                          const uint32_t* in_bits, uint32_t* out_bits,        \
                                          int64_t k_begin, int64_t k_end) {                   \
        GfBitWriter out(out_bits);                                                             \
        if (ids) {                                                                             \
            for (int64_t k = k_begin; k < k_end; ++k) {                                        \
                const bool keep = fn(S, (vid_t)ids[k]);                                        \
                if (out_bits) out.put(ids[k], keep);                                           \
            }                                                                                  \
        } else if (in_bits) {                                                                  \
            const int64_t a = lo + k_begin, b = lo + k_end;                                    \
            for (int64_t w = a >> 5; w <= (b - 1) >> 5; ++w) {                                 \
                uint32_t m = in_bits[w];                                                       \
                if (w == a >> 5) m &= ~0u << (a & 31);                                         \
                if (w == (b - 1) >> 5 && (b & 31)) m &= (1u << (b & 31)) - 1;                  \
                for (; m; m &= m - 1) {                                                        \
                    const int64_t v = (w << 5) + __builtin_ctz(m);                             \
                    const bool keep = fn(S, (vid_t)v);                                         \
                    if (out_bits) out.put(v, keep);                                            \
                }                                                                              \
            }                                                                                  \
        } else if (out_bits) {                                                                 \
            for (int64_t v = lo + k_begin; v < lo + k_end; ++v) out.put(v, fn(S, (vid_t)v));  \
        } else {                                                                               \
            for (int64_t v = lo + k_begin; v < lo + k_end; ++v) fn(S, (vid_t)v);              \
        }                                                                                      \
        if (out_bits) out.flush();                                                             \
    }                                                                                          \
    GF_EXPORT void gf_vmap_##fn(void* const* A, const double* F, const int64_t* I,             \
                                int64_t lo, int64_t hi, const int64_t* ids, int64_t nids,      \
                                const uint32_t* in_bits, uint32_t* out_bits) {                 \
        const State S = gf_state(A, F, I);                                                     \
        const int64_t count = ids ? nids : hi - lo;                                            \
        const int64_t chunk = gf_chunk(count), chunks = (count + chunk - 1) / chunk;           \
        _Pragma("omp parallel for schedule(static) if (count > 4096)")                         \
        for (int64_t c = 0; c < chunks; ++c)                                                   \
            gf_vmap_block_##fn(S, lo, ids, in_bits, out_bits, c * chunk,                       \
                               c * chunk + chunk < count ? c * chunk + chunk : count);         \
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
// A chunk's rows run in a function that takes the state and both graphs by value (as the
// vertex map's blocks: registers, not shared variables reloaded after every store).
#define GF_NEIGHBOR_KERNEL(fn)                                                                 \
    static inline void gf_nmap_rows_##fn(const State S, const GfGraph G, const GfGraph GT,    \
                                         int64_t v_begin, int64_t v_end, uint32_t* out_bits) { \
        GfBitWriter out(out_bits);                                                             \
        if (out_bits) {                                                                        \
            for (int64_t v = v_begin; v < v_end; ++v) out.put(v, fn(S, G, GT, (vid_t)v));      \
            out.flush();                                                                       \
        } else {                                                                               \
            for (int64_t v = v_begin; v < v_end; ++v) fn(S, G, GT, (vid_t)v);                 \
        }                                                                                      \
    }                                                                                          \
    GF_EXPORT void gf_nmap_##fn(void* const* A, const double* F, const int64_t* I,             \
                                const eid_t* go, const vid_t* gi, const void* gw,              \
                                const eid_t* to, const vid_t* ti, const void* tw,              \
                                int64_t n, int64_t lo, int64_t hi, uint32_t* out_bits,         \
                                int64_t gb, int64_t tb, int64_t gwb, int64_t twb) {            \
        const State S = gf_state(A, F, I);                                                     \
        /* gb / tb: the first edge gi, gw / ti, tw hold (0: the whole graph); gwb / twb: */    \
        /* the weights' width in bytes (GfWeights) */                                          \
        const GfGraph G{go, gi ? gi - gb : nullptr, GfWeights{gw, gwb}.shifted(gb), n};         \
        const GfGraph GT{to, ti ? ti - tb : nullptr, GfWeights{tw, twb}.shifted(tb), n};        \
        const int64_t chunks = gf_weighted_chunks(hi - lo);                                    \
        _Pragma("omp parallel for schedule(dynamic, 1) if (chunks > 1)")                       \
        for (int64_t c = 0; c < chunks; ++c)                                                   \
            gf_nmap_rows_##fn(S, G, GT, gf_weighted_split(go, lo, hi, c, chunks),              \
                              gf_weighted_split(go, lo, hi, c + 1, chunks), out_bits);         \
    }
