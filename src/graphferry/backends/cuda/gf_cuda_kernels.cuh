// CUDA kernels around a program's functions. Included (NVRTC) after the program text.
//
// Same contract as gf_cpu_kernels.h, argument for argument: every engine hands
// these kernels the same kind of partition view,
//   offsets[r] - edge_base .. offsets[r+1] - edge_base  are row r's edges in indices/weights,
//   row r is vertex vertex_ids[r] (compacted view) or lo + r (range view),
//   indices plain vid_t or packed in index_bits-bit fields (GfPackedIds, gf_prelude.h; each
//   kernel is compiled for both: gf_push, gf_push_packed, ...),
// one kernel per direction (push / pull), never per engine. Two trailing
// arguments (huge_list, huge_count) carry the rows too heavy for one block to a
// second, grid-wide launch.
//
// Load balancing (Merrill et al.'s thread/warp/CTA gathering; Lux, HyPar): each
// thread first owns one row. Rows of at least the launch's threshold (huge_count[2]: 2048
// edges, or GF_BLOCK_MIN for a launch too narrow to hide a block's rows, which it takes one
// after another: HUGE_MIN and CudaProgram._edge in backend.py) are cut into
// chunks of GF_CHUNK edges queued for a grid-wide kernel (every block takes
// chunks), rows of at least GF_BLOCK_MIN are processed by the whole block, rows
// of at least WARP_MIN by a warp, the rest by their own thread. Every thread
// keeps GF_UNROLL edge loads in flight before it uses them.
// Cooperative groups read a row from the 128-byte line that holds its first
// edge, consecutive lanes reading consecutive edges, lanes outside the row
// masked (EMOGI's merged and aligned access). Zero-copy views use WARP_MIN = 1:
// every row is read by a warp in whole 128-byte requests.
//
// Pull with several threads on one row needs atomics: the cooperative paths
// use the program's update_atomic (Ligra's contract: the atomic form of
// update). A program with no push form keeps strict per-row ownership: a warp
// loads the row's edges together and one lane applies update in edge order,
// exactly as the CPU kernel does. A program whose pull is a sum fold
// (GF_PULL_REDUCES: pull_begin / pull_fold / pull_end, combine "sum" and
// pull_merge) needs no per-edge atomic at all: each thread folds its edges into a
// register from zero, the warp or block adds the partial sums with shuffles, and
// one thread ends the row (pull_merge where blocks of the grid-wide launch share
// it). The atomics cost most on the rows every pull reads: PageRank's.
#pragma once

#define GF_KERNEL extern "C" __global__
#define GF_FULL_MASK 0xffffffffu
// Launch geometry (the Python side launches GF_BLOCK threads per block).
#define GF_BLOCK 256
#define GF_UNROLL 4                         // edges in flight per thread
#define GF_CHUNK (GF_UNROLL * GF_BLOCK)     // edges per work item of the grid-wide kernel
#ifndef GF_BLOCK_MIN
#define GF_BLOCK_MIN 256
#endif

__device__ __forceinline__ void gf_set_bit(uint32_t* bits, int64_t v) {
    const uint32_t m = 1u << (v & 31);
    uint32_t* w = &bits[v >> 5];
    if (!(*(volatile uint32_t*)w & m)) atomicOr(w, m);
}

#if GF_PULL_REDUCES
// Sum of x over the warp, in every lane (all 32 lanes call).
template <class T> __device__ __forceinline__ T gf_warp_sum(T x) {
#pragma unroll
    for (int o = 16; o; o >>= 1) x += __shfl_xor_sync(GF_FULL_MASK, x, o);
    return x;
}
// Sum of x over the block, in thread 0, and whether any thread's `any` is set (every thread of
// the block calls; the last barrier frees the shared slots for the next call).
template <class T> __device__ __forceinline__ T gf_block_sum(T x, bool& any) {
    __shared__ T part[GF_BLOCK / 32];
    x = gf_warp_sum(x);
    if ((threadIdx.x & 31) == 0) part[threadIdx.x >> 5] = x;
    any = __syncthreads_or(any);
    T total = 0;
    if (threadIdx.x == 0) {
        for (int i = 0; i < (int)(blockDim.x >> 5); ++i) total += part[i];
    }
    __syncthreads();
    return total;
}
#endif

// First edge index to read so that a group's first request starts on the
// 128-byte line holding indices[b] (lanes below b are masked).
__device__ __forceinline__ eid_t gf_aligned_start(const vid_t* indices, eid_t b) {
    const unsigned long long addr = (unsigned long long)(indices + b);
    return b - (eid_t)((addr & 127ull) / sizeof(vid_t));
}
// Packed ids: the multiple of 32 at or below b, whose field starts a word (32
// fields fill index_bits words, under one line).
__device__ __forceinline__ eid_t gf_aligned_start(const GfPackedIds&, eid_t b) { return b & ~(eid_t)31; }

// The ids as a kernel of either form reads them. Each edge kernel is compiled
// once per form (gf_push, gf_push_packed, ...): one kernel reading both paid
// the packed decode's registers on plain views too (fewer warps in flight; on
// zero-copy reads, which need many requests outstanding, SSSP at uniform 25
// ran 40% slower on plain ids).
template <class Ids> __device__ __forceinline__ Ids gf_ids(const void* p, int64_t bits);
template <> __device__ __forceinline__ const vid_t* gf_ids<const vid_t*>(const void* p, int64_t) {
    return (const vid_t*)p;
}
template <> __device__ __forceinline__ GfPackedIds gf_ids<GfPackedIds>(const void* p, int64_t bits) {
    return gf_packed_ids(p, bits);   // the ids' and any fused weights' widths
}

template <class Ids>
struct GfEdgeArgs {
    const eid_t* offsets;
    Ids indices;
    GfWeights weights;
    const vid_t* vertex_ids;
    int64_t lo, rows, edge_base;
    const int64_t* row_list;
    int64_t nlist;
    const uint32_t* in_bits;
    uint32_t* out_bits;
};

// Row k of the launch: its vertex and edge range (no filtering: deterministic).
template <class A>
__device__ __forceinline__ bool gf_range(const A& a, int64_t k, vid_t& v, eid_t& b, eid_t& e) {
    const int64_t count = a.row_list ? a.nlist : a.rows;
    if (k >= count) return false;
    const int64_t r = a.row_list ? a.row_list[k] : k;
    v = a.vertex_ids ? a.vertex_ids[r] : (vid_t)(a.lo + r);
    b = a.offsets[r] - a.edge_base;
    e = a.offsets[r + 1] - a.edge_base;
    return true;
}

// Visit the edges of [b, e) at from + t, from + t + width, ... below `to`, with
// GF_UNROLL loads in flight per thread before any is used; f(x, w) returns
// false to stop. Consecutive threads read consecutive edges.
template <class A, class Fn>
__device__ __forceinline__ void gf_visit(const A& a, eid_t b, eid_t e, eid_t from, eid_t to,
                                         eid_t t, eid_t width, Fn f) {
    if (to > e) to = e;
    for (eid_t j0 = from + t; j0 < to; j0 += GF_UNROLL * width) {
        vid_t x[GF_UNROLL];
        float w[GF_UNROLL];
        bool ok[GF_UNROLL];
#pragma unroll
        for (int u = 0; u < GF_UNROLL; ++u) {
            const eid_t j = j0 + u * width;
            ok[u] = j >= b && j < to;
            x[u] = ok[u] ? a.indices[j] : (vid_t)0;
            w[u] = (ok[u] && a.weights) ? a.weights[j] : 1.0f;
        }
#pragma unroll
        for (int u = 0; u < GF_UNROLL; ++u) {
            if (ok[u] && !f(x[u], w[u])) return;
        }
    }
}

#define GF_EDGE_PARAMS                                                                        \
    void* const* A, const double* F, const int64_t* I, const eid_t* offsets,                  \
        const void* indices, int64_t index_bits, const void* weight_data, int64_t weight_bytes, \
        const vid_t* vertex_ids, int64_t lo,                                                  \
        int64_t rows, int64_t edge_base, const int64_t* row_list, int64_t nlist,              \
        const uint32_t* in_bits, uint32_t* out_bits, int64_t* huge_list,                      \
        unsigned long long* huge_count
#define GF_EDGE_ARGS_INIT(IDS)                                                                \
    GfEdgeArgs<IDS> a;                                                                        \
    a.offsets = offsets; a.indices = gf_ids<IDS>(indices, index_bits);                        \
    a.vertex_ids = vertex_ids;                                                                \
    a.weights.p = weight_data; a.weights.bytes = weight_bytes;                                \
    a.lo = lo; a.rows = rows; a.edge_base = edge_base; a.row_list = row_list;                 \
    a.nlist = nlist; a.in_bits = in_bits; a.out_bits = out_bits

// A warp, a whole block, or a block of the grid-wide launch (edges [from, to) of a row that
// other blocks share) on one row, through the direction's coop(): edges at t, t + width, ...
// A direction that shares rows otherwise defines its own (its definitions hide these).
template <class Op>
struct GfCoopGroups {
    template <class A>
    __device__ static void warp(const State& S, const A& a, vid_t v, eid_t b, eid_t e, int lane) {
        Op::coop(S, a, v, b, e, gf_aligned_start(a.indices, b), e, lane, 32);
    }
    template <class A>
    __device__ static void block(const State& S, const A& a, vid_t v, eid_t b, eid_t e) {
        Op::coop(S, a, v, b, e, gf_aligned_start(a.indices, b), e, threadIdx.x, blockDim.x);
    }
    template <class A>
    __device__ static void chunk(const State& S, const A& a, vid_t v, eid_t b, eid_t e, eid_t from, eid_t to) {
        Op::coop(S, a, v, b, e, from, to, threadIdx.x, blockDim.x);
    }
};

#if GF_HAS_PUSH
// Push: every active row scatters along its out-edges with update_atomic.
struct GfPush : GfCoopGroups<GfPush> {
    static constexpr bool kCoop = true;  // rows may be shared by many threads
    template <class A>
    __device__ static bool row(const State& S, const A& a, int64_t k, vid_t& v, eid_t& b, eid_t& e) {
        if (!gf_range(a, k, v, b, e)) return false;
        if (!a.row_list && a.in_bits && !gf_bit(a.in_bits, v)) return false;
        return e > b;
    }
    // edges of row v in [from, to), read by thread t of a group of `width`
    template <class A>
    __device__ static void coop(const State& S, const A& a, vid_t v, eid_t b, eid_t e,
                                eid_t from, eid_t to, eid_t t, eid_t width) {
        gf_visit(a, b, e, from, to, t, width, [&](vid_t d, float w) {
            if (cond(S, d) && update_atomic(S, v, d, w)) {
                if (a.out_bits) gf_set_bit(a.out_bits, d);
            }
            return true;
        });
    }
    template <class A>
    __device__ static void single(const State& S, const A& a, vid_t v, eid_t b, eid_t e) {
        coop(S, a, v, b, e, b, e, 0, 1);
    }
};
#endif

#if GF_HAS_PULL
// Pull: rows are destinations (in-edge view); stop once cond(d) turns false.
struct GfPull : GfCoopGroups<GfPull> {  // the summing and the serial pulls define their own groups
    static constexpr bool kCoop = GF_HAS_PUSH || GF_PULL_REDUCES;  // rows shared by many threads
    template <class A>
    __device__ static bool row(const State& S, const A& a, int64_t k, vid_t& d, eid_t& b, eid_t& e) {
        if (!gf_range(a, k, d, b, e)) return false;
        if (!cond(S, d)) return false;
        return e > b;
    }
#if GF_HAS_PULL_FOLD
    // Fold into acc the edges of [b, e) at from + t, from + t + width, ... below `to` whose source
    // is active (in_bits); `folded`: at least one edge was folded.
    template <class A, class T>
    __device__ static void fold_into(const State& S, const A& a, vid_t d, T& acc, eid_t b, eid_t e, eid_t from,
                                     eid_t to, eid_t t, eid_t width, bool& folded) {
        gf_visit(a, b, e, from, to, t, width, [&](vid_t s, float w) {
            if (a.in_bits && !gf_bit(a.in_bits, s)) return true;
            pull_fold(S, acc, s, d, w);
            folded = true;
            return true;
        });
    }
#endif
#if GF_PULL_REDUCES
    // This thread's share of row d's fold, from zero (the identity of "sum")
    template <class A>
    __device__ static auto fold(const State& S, const A& a, vid_t d, eid_t b, eid_t e, eid_t from,
                                eid_t to, eid_t t, eid_t width, bool& folded) {
        decltype(pull_begin(S, d)) part = 0;
        fold_into(S, a, d, part, b, e, from, to, t, width, folded);
        return part;
    }
    // the group owns the row: its sum ends it (pull_end only for rows that folded an edge)
    template <class T>
    __device__ static void end(const State& S, uint32_t* out_bits, vid_t d, T sum) {
        if (pull_end(S, d, pull_begin(S, d) + sum) && out_bits) gf_set_bit(out_bits, d);
    }
    template <class A>
    __device__ static void warp(const State& S, const A& a, vid_t d, eid_t b, eid_t e, int lane) {
        bool folded = false;
        const auto sum = gf_warp_sum(fold(S, a, d, b, e, gf_aligned_start(a.indices, b), e, lane, 32, folded));
        if (__any_sync(GF_FULL_MASK, folded) && lane == 0) end(S, a.out_bits, d, sum);
    }
    template <class A>
    __device__ static void block(const State& S, const A& a, vid_t d, eid_t b, eid_t e) {
        bool folded = false;
        const auto part = fold(S, a, d, b, e, gf_aligned_start(a.indices, b), e, threadIdx.x, blockDim.x, folded);
        const auto sum = gf_block_sum(part, folded);
        if (folded && threadIdx.x == 0) end(S, a.out_bits, d, sum);
    }
    // other blocks share the row: the program's pull_merge adds this block's sum atomically
    template <class A>
    __device__ static void chunk(const State& S, const A& a, vid_t d, eid_t b, eid_t e, eid_t from, eid_t to) {
        bool folded = false;
        const auto sum = gf_block_sum(fold(S, a, d, b, e, from, to, threadIdx.x, blockDim.x, folded), folded);
        if (folded && threadIdx.x == 0 && pull_merge(S, d, sum) && a.out_bits) gf_set_bit(a.out_bits, d);
    }
#elif GF_HAS_PUSH
    template <class A>
    __device__ static void coop(const State& S, const A& a, vid_t d, eid_t b, eid_t e,
                                eid_t from, eid_t to, eid_t t, eid_t width) {
        bool changed = false;
        gf_visit(a, b, e, from, to, t, width, [&](vid_t s, float w) {
            if (!cond(S, d)) return false;
            if (a.in_bits && !gf_bit(a.in_bits, s)) return true;
            if (update_atomic(S, s, d, w)) changed = true;
            return true;
        });
        if (changed && a.out_bits) gf_set_bit(a.out_bits, d);
    }
#else
    // No atomic form: the warp loads 32 edges at a time (aligned, coalesced) and
    // filters them by in_bits; lane 0 applies update to the survivors in edge order.
    template <class A>
    __device__ static void warp(const State& S, const A& a, vid_t d, eid_t b, eid_t e, int lane) {
        bool changed = false;
        int stop = 0;
        for (eid_t base = gf_aligned_start(a.indices, b); base < e; base += 32) {  // warp-uniform
            const eid_t j = base + lane;
            bool ok = j >= b && j < e;
            vid_t s = 0;
            float w = 1.0f;
            if (ok) {
                s = a.indices[j];
                w = a.weights ? a.weights[j] : 1.0f;
                if (a.in_bits && !gf_bit(a.in_bits, s)) ok = false;
            }
            unsigned mask = __ballot_sync(GF_FULL_MASK, ok);
            while (mask) {
                const int i = __ffs(mask) - 1;
                mask &= mask - 1;
                const vid_t si = __shfl_sync(GF_FULL_MASK, s, i);
                const float wi = __shfl_sync(GF_FULL_MASK, w, i);
                if (lane == 0) {
                    if (update(S, si, d, wi)) changed = true;
                    stop = !cond(S, d);
                }
                stop = __shfl_sync(GF_FULL_MASK, stop, 0);
                if (stop) break;
            }
            if (stop) break;
        }
        if (lane == 0 && changed && a.out_bits) gf_set_bit(a.out_bits, d);
    }
#endif
    // one thread owns the row: update in edge order, as the CPU kernel does (a fold program's
    // row value stays in a register: one store per row, as on the CPU)
    template <class A>
    __device__ static void single(const State& S, const A& a, vid_t d, eid_t b, eid_t e) {
        bool changed = false;
#if GF_HAS_PULL_FOLD
        auto acc = pull_begin(S, d);
        bool folded = false;
        fold_into(S, a, d, acc, b, e, b, e, 0, 1, folded);
        changed = folded && pull_end(S, d, acc);
#else
        gf_visit(a, b, e, b, e, 0, 1, [&](vid_t s, float w) {
            if (a.in_bits && !gf_bit(a.in_bits, s)) return true;
            if (update(S, s, d, w)) changed = true;
            return cond(S, d);
        });
#endif
        if (changed && a.out_bits) gf_set_bit(a.out_bits, d);
    }
};
#endif

// One launch over the active rows: thread k owns row k first (every thread
// reaches every barrier). Rows of at least huge_count[2] edges are cut into
// GF_CHUNK-edge work items for the grid-wide kernel (when huge_count is given).
template <class Op, int WARP_MIN, class Args>
__device__ __forceinline__ void gf_edge_twc(void* const* A, const double* F, const int64_t* I,
                                            const Args& a, int64_t* huge_list,
                                            unsigned long long* huge_count) {
    const State S = gf_state(A, F, I);
    const int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    vid_t v = 0;
    eid_t b = 0, e = 0;
    bool have = Op::row(S, a, k, v, b, e);
    const eid_t deg = have ? e - b : 0;
    if constexpr (Op::kCoop) {
        if (have && huge_count && deg >= GF_BLOCK_MIN && deg >= (eid_t)huge_count[2]) {  // to the grid-wide launch
            const eid_t nch = (e - gf_aligned_start(a.indices, b) + GF_CHUNK - 1) / GF_CHUNK;
            const unsigned long long slot = atomicAdd(huge_count, (unsigned long long)nch);
            for (eid_t c = 0; c < nch; ++c) {
                huge_list[2 * (slot + c)] = k;
                huge_list[2 * (slot + c) + 1] = c;
            }
            have = false;
        }
        __shared__ int sh_owner;
        __shared__ vid_t sh_v;
        __shared__ eid_t sh_b, sh_e;
        for (;;) {  // block per row
            if (threadIdx.x == 0) sh_owner = -1;
            __syncthreads();
            if (have && deg >= GF_BLOCK_MIN) sh_owner = threadIdx.x;
            __syncthreads();
            const int owner = sh_owner;
            if (owner < 0) break;
            if ((int)threadIdx.x == owner) {
                sh_v = v; sh_b = b; sh_e = e;
                have = false;
            }
            __syncthreads();
            Op::block(S, a, sh_v, sh_b, sh_e);
            __syncthreads();
        }
    }
    const int lane = threadIdx.x & 31;
    for (;;) {  // warp per row
        const unsigned mask = __ballot_sync(GF_FULL_MASK, have && deg >= WARP_MIN);
        if (!mask) break;
        const int leader = __ffs(mask) - 1;
        const vid_t wv = __shfl_sync(GF_FULL_MASK, v, leader);
        const eid_t wb = __shfl_sync(GF_FULL_MASK, b, leader);
        const eid_t we = __shfl_sync(GF_FULL_MASK, e, leader);
        if (lane == leader) have = false;
        Op::warp(S, a, wv, wb, we, lane);
    }
    if (have) Op::single(S, a, v, b, e);  // thread per row
}

// The queued work items (row, chunk) of the heavy rows, spread over every block
// of the grid: GF_CHUNK edges each, from the 128-byte line holding the row's
// first edge. The last block to finish resets the queue for the next launch.
// Blocks past the items leave at once, without the count: a launch whose rows had few
// heavy ones or none (the copy engines' groups on sparse rounds) cost 50 us a launch
// when each of its 8,448 blocks (8 waves on an H200) added itself to one counter.
// Only the blocks below min(grid, items) count; the last of them resets the queue, so
// a block that starts after the reset reads no items and leaves as well.
template <class Op, class Args>
__device__ __forceinline__ void gf_edge_huge(void* const* A, const double* F, const int64_t* I,
                                             const Args& a, const int64_t* huge_list,
                                             unsigned long long* huge_count) {
    const State S = gf_state(A, F, I);
    const unsigned long long total = *(volatile unsigned long long*)huge_count;
    const unsigned long long workers = total < gridDim.x ? total : gridDim.x;
    if (blockIdx.x >= workers) return;  // the whole block: no barrier below is half-reached
    for (unsigned long long c = blockIdx.x; c < total; c += gridDim.x) {
        const int64_t k = huge_list[2 * c], ci = huge_list[2 * c + 1];
        vid_t v;
        eid_t b, e;
        gf_range(a, k, v, b, e);
        const eid_t from = gf_aligned_start(a.indices, b) + ci * (eid_t)GF_CHUNK;
        Op::chunk(S, a, v, b, e, from, from + GF_CHUNK);
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence();
        const unsigned long long done = atomicAdd(&huge_count[1], 1ull);
        if (done == workers - 1) {
            huge_count[0] = 0;
            huge_count[1] = 0;
        }
    }
}

// Each kernel in both forms of ids: plain (gf_push, ...) and packed (gf_push_packed, ...).
#define GF_EDGE_KERNELS(SUFFIX, IDS)                                                                   \
    GF_PUSH_KERNELS(SUFFIX, IDS)                                                                       \
    GF_PULL_KERNELS(SUFFIX, IDS)
// One direction's kernels (DIR: push or pull; OP: GfPush or GfPull) for one form of ids: the
// launch over the rows (a warp per row from 32 edges; zero-copy views from one) and the
// grid-wide launch over the heavy rows' chunks.
// Each of the three is built apart where a group asks (GF_BUILD_ROWS, _ZC, _HUGE below): NVRTC
// 12.9 took 1.62 s for BFS's push kernels on a 2-core host, 0.61 s for the row kernel alone and
// 0.32 s for the grid-wide one, so the three units compiled at once finish in under half the
// time, and a run whose engine copies its edges never waits for the zero-copy one.
#ifndef GF_BUILD_ROWS
#define GF_BUILD_ROWS 1
#endif
#ifndef GF_BUILD_ZC
#define GF_BUILD_ZC 1
#endif
#ifndef GF_BUILD_HUGE
#define GF_BUILD_HUGE 1
#endif
#if GF_BUILD_ROWS
#define GF_COPIED_ROW_KERNEL(DIR, OP, SUFFIX, IDS, BOUNDS)                                            \
    GF_KERNEL BOUNDS void gf_##DIR##SUFFIX(GF_EDGE_PARAMS) {                                           \
        GF_EDGE_ARGS_INIT(IDS); gf_edge_twc<OP, 32>(A, F, I, a, huge_list, huge_count); }
#else
#define GF_COPIED_ROW_KERNEL(DIR, OP, SUFFIX, IDS, BOUNDS)
#endif
#if GF_BUILD_ZC
#define GF_ZC_ROW_KERNEL(DIR, OP, SUFFIX, IDS, BOUNDS)                                                \
    GF_KERNEL BOUNDS void gf_##DIR##_zc##SUFFIX(GF_EDGE_PARAMS) {                                      \
        GF_EDGE_ARGS_INIT(IDS); gf_edge_twc<OP, 1>(A, F, I, a, huge_list, huge_count); }
#else
#define GF_ZC_ROW_KERNEL(DIR, OP, SUFFIX, IDS, BOUNDS)
#endif
#define GF_ROW_KERNELS(DIR, OP, SUFFIX, IDS, BOUNDS)                                                  \
    GF_COPIED_ROW_KERNEL(DIR, OP, SUFFIX, IDS, BOUNDS) GF_ZC_ROW_KERNEL(DIR, OP, SUFFIX, IDS, BOUNDS)
#if GF_BUILD_HUGE
#define GF_HUGE_KERNEL(DIR, OP, SUFFIX, IDS)                                                          \
    GF_KERNEL void gf_##DIR##_huge##SUFFIX(GF_EDGE_PARAMS) {                                           \
        GF_EDGE_ARGS_INIT(IDS); gf_edge_huge<OP>(A, F, I, a, huge_list, huge_count); }
#else
#define GF_HUGE_KERNEL(DIR, OP, SUFFIX, IDS)
#endif
#if GF_PULL_REDUCES
// ptxas gives the summing pull 48 registers on packed ids (sm_90: 5 blocks of 256 threads a
// multiprocessor); bounded to 6 blocks it keeps 40 and spills nothing (8 blocks, 32 registers,
// spill 44-84 bytes)
#define GF_PULL_BOUNDS __launch_bounds__(GF_BLOCK, 6)
#else
#define GF_PULL_BOUNDS
#endif
#if GF_HAS_PUSH
#define GF_PUSH_KERNELS(SUFFIX, IDS) GF_ROW_KERNELS(push, GfPush, SUFFIX, IDS, ) GF_HUGE_KERNEL(push, GfPush, SUFFIX, IDS)
#else
#define GF_PUSH_KERNELS(SUFFIX, IDS)
#endif
#if GF_HAS_PULL && (GF_HAS_PUSH || GF_PULL_REDUCES)   // heavy rows shared: with an atomic form or a sum
#define GF_PULL_KERNELS(SUFFIX, IDS) GF_ROW_KERNELS(pull, GfPull, SUFFIX, IDS, GF_PULL_BOUNDS) GF_HUGE_KERNEL(pull, GfPull, SUFFIX, IDS)
#elif GF_HAS_PULL
#define GF_PULL_KERNELS(SUFFIX, IDS) GF_ROW_KERNELS(pull, GfPull, SUFFIX, IDS, )
#else
#define GF_PULL_KERNELS(SUFFIX, IDS)
#endif
// A program's kernels come in groups compiled apart, at once, in several threads
// (backend.py: KERNEL_GROUPS): each group sets GF_BUILD_* to build only its own kernels;
// with none set, every kernel is built.
#ifndef GF_BUILD_PLAIN
#define GF_BUILD_PLAIN 1
#endif
#ifndef GF_BUILD_PACKED
#define GF_BUILD_PACKED 1
#endif
#ifndef GF_BUILD_PUSH
#define GF_BUILD_PUSH 1
#endif
#ifndef GF_BUILD_PULL
#define GF_BUILD_PULL 1
#endif
#ifndef GF_BUILD_MAPS
#define GF_BUILD_MAPS 1
#endif
#if !GF_BUILD_PUSH
#undef GF_PUSH_KERNELS
#define GF_PUSH_KERNELS(SUFFIX, IDS)
#endif
#if !GF_BUILD_PULL
#undef GF_PULL_KERNELS
#define GF_PULL_KERNELS(SUFFIX, IDS)
#endif
#if GF_BUILD_PLAIN
GF_EDGE_KERNELS(, const vid_t*)
#endif
#if GF_BUILD_PACKED
GF_EDGE_KERNELS(_packed, GfPackedIds)
#endif

#if GF_BUILD_MAPS
// vertex_map over ids (if given) or [lo, hi) filtered by in_bits; true sets out bit.
#define GF_VERTEX_KERNEL(fn)                                                                   \
    GF_KERNEL void gf_vmap_##fn(void* const* A, const double* F, const int64_t* I, int64_t lo, \
                                int64_t hi, const int64_t* ids, int64_t nids,                  \
                                const uint32_t* in_bits, uint32_t* out_bits) {                 \
        const State S = gf_state(A, F, I);                                                     \
        const int64_t count = ids ? nids : hi - lo;                                            \
        const int64_t stride = (int64_t)gridDim.x * blockDim.x;                               \
        for (int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; k < count; k += stride) { \
            const int64_t v = ids ? ids[k] : lo + k;                                           \
            if (!ids && in_bits && !gf_bit(in_bits, v)) continue;                              \
            if (fn(S, (vid_t)v) && out_bits) gf_set_bit(out_bits, v);                          \
        }                                                                                      \
    }

// neighbor_map over [lo, hi): thread per vertex; the function may read the whole
// graph and its transpose (resident or mapped host memory). gb / tb: the first edge the
// arrays gi, gw / ti, tw hold (a device block of consecutive rows holds edges from gb on;
// the rows [lo, hi) read only edges inside it), 0 for a whole graph; gwb / twb: the
// weights' width in bytes (GfWeights).
#define GF_NEIGHBOR_KERNEL(fn)                                                                 \
    GF_KERNEL void gf_nmap_##fn(void* const* A, const double* F, const int64_t* I,             \
                                const eid_t* go, const vid_t* gi, const void* gw,              \
                                const eid_t* to, const vid_t* ti, const void* tw, int64_t n,   \
                                int64_t lo, int64_t hi, uint32_t* out_bits,                    \
                                int64_t gb, int64_t tb, int64_t gwb, int64_t twb) {            \
        const State S = gf_state(A, F, I);                                                     \
        GfGraph G{go, gi - gb, GfWeights{gw, gwb}.shifted(gb), n};                             \
        GfGraph GT{to, ti ? ti - tb : nullptr, GfWeights{tw, twb}.shifted(tb), n};             \
        const int64_t stride = (int64_t)gridDim.x * blockDim.x;                               \
        for (int64_t v = lo + blockIdx.x * (int64_t)blockDim.x + threadIdx.x; v < hi; v += stride) { \
            if (fn(S, G, GT, (vid_t)v) && out_bits) gf_set_bit(out_bits, v);                   \
        }                                                                                      \
    }
#else
#define GF_VERTEX_KERNEL(fn)
#define GF_NEIGHBOR_KERNEL(fn)
#endif
