// graphferry program prelude: the vocabulary a program's C++ text may use.
//
// The same program text is compiled by the system C++ compiler with OpenMP (CPU
// backend) and by NVRTC (CUDA backend). This header hides the difference:
//   GF_FN              qualifier for program functions (inline / __device__)
//   vid_t, eid_t       vertex id (int32 or int64, chosen per graph) and edge offset (int64)
//   gf_sort_ids(a,n)   in-place ascending sort of vertex ids (insertion / heapsort, no allocation)
//   gf_link(p,u,v)     join the trees of u and v in parent array p (Afforest's link)
//   gf_atomic_min(p,v) atomic p = min(*p, v); true if *p decreased
//   gf_atomic_max(p,v) likewise for max
//   gf_atomic_add(p,v) atomic *p += v (int32/int64/float/double)
//   gf_cas(p,e,d)      compare-and-swap; true if *p was e and is now d
//   gf_load(p)         a read of a value other threads may be writing
//   GfWeights          edge weights as a kernel reads them (w[j], 1 where absent)
//   GfPackedIds        an edge range's vertex ids packed in fields of a few bits (ids[j])
//   GfGraph            whole-graph CSR access for neighbourhood functions
#pragma once

#if defined(__CUDACC_RTC__) || defined(__CUDACC__)
#define GF_CUDA 1
#define GF_FN __device__ __forceinline__
#define GF_MEMBER __device__ __forceinline__
#if defined(__CUDACC_RTC__)
typedef signed char int8_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef int int32_t;
typedef unsigned int uint32_t;
typedef long long int64_t;
typedef unsigned long long uint64_t;
#endif
#define GF_INF_F (__int_as_float(0x7f800000))
#define GF_INF_D (__longlong_as_double(0x7ff0000000000000LL))
#else
#define GF_CPU 1
#include <cstdint>
#include <cmath>
#include <cstring>
#include <limits>
#include <algorithm>
#define GF_FN static inline
#define GF_MEMBER inline
#define GF_INF_F (std::numeric_limits<float>::infinity())
#define GF_INF_D (std::numeric_limits<double>::infinity())
#endif

#ifndef GF_VID_T
#define GF_VID_T int32_t
#endif
typedef GF_VID_T vid_t;
typedef int64_t eid_t;

// In-place ascending sort of vertex ids a[0..n) in one thread's scratch (label propagation's
// neighbour labels): insertion sort when short, heapsort otherwise (no allocation, any device).
GF_FN void gf_sift_ids(vid_t* a, int64_t root, int64_t n) {
    for (;;) {
        int64_t c = 2 * root + 1;
        if (c >= n) return;
        if (c + 1 < n && a[c] < a[c + 1]) ++c;
        if (!(a[root] < a[c])) return;
        const vid_t t = a[root]; a[root] = a[c]; a[c] = t;
        root = c;
    }
}
GF_FN void gf_sort_ids(vid_t* a, int64_t n) {
    if (n <= 24) {
        for (int64_t i = 1; i < n; ++i) {
            const vid_t x = a[i];
            int64_t j = i - 1;
            while (j >= 0 && a[j] > x) { a[j + 1] = a[j]; --j; }
            a[j + 1] = x;
        }
        return;
    }
    for (int64_t r = n / 2 - 1; r >= 0; --r) gf_sift_ids(a, r, n);
    for (int64_t end = n - 1; end > 0; --end) {
        const vid_t t = a[0]; a[0] = a[end]; a[end] = t;
        gf_sift_ids(a, 0, end);
    }
}

// ------------------------------------------------------------------ atomics
#if defined(GF_CUDA)
// Integer min/max read first and skip the atomic when it cannot change the value:
// label propagation and hooking send most offers to a few minimal labels, whose
// atomics would otherwise serialise at one address.
GF_FN bool gf_atomic_min(int32_t* p, int32_t v) {
    return *(volatile int32_t*)p > v && atomicMin(p, v) > v;
}
GF_FN bool gf_atomic_min(int64_t* p, int64_t v) {
    return *(volatile int64_t*)p > v && atomicMin((long long*)p, (long long)v) > (long long)v;
}
GF_FN bool gf_atomic_max(int32_t* p, int32_t v) {
    return *(volatile int32_t*)p < v && atomicMax(p, v) < v;
}
GF_FN bool gf_atomic_min(float* p, float v) {
    // Non-negative floats order like their int bit patterns; negative ones reversed.
    // So a non-negative v needs one native atomicMin on the signed pattern (a negative
    // *p has a negative pattern and stays), no compare-and-swap retries under contention.
    if (v >= 0.0f) {
        return *(volatile float*)p > v && __int_as_float(atomicMin((int*)p, __float_as_int(v))) > v;
    }
    int* ip = (int*)p;
    int old = *ip;
    while (__int_as_float(old) > v) {
        int prev = atomicCAS(ip, old, __float_as_int(v));
        if (prev == old) return true;
        old = prev;
    }
    return false;
}
GF_FN bool gf_atomic_min(double* p, double v) {
    if (v >= 0.0) {  // as for float: one native atomicMin on the signed bit pattern
        return *(volatile double*)p > v &&
               __longlong_as_double(atomicMin((long long*)p, __double_as_longlong(v))) > v;
    }
    unsigned long long* ip = (unsigned long long*)p;
    unsigned long long old = *ip;
    while (__longlong_as_double((long long)old) > v) {
        unsigned long long prev = atomicCAS(ip, old, (unsigned long long)__double_as_longlong(v));
        if (prev == old) return true;
        old = prev;
    }
    return false;
}
// Adds are warp-aggregated: lanes adding to the same address (a pull row shared
// by a warp, a hub's in-edges) sum among themselves and one lane issues the
// atomic (the opportunistic pattern of the CUDA programming guide).
template <typename T, typename R, typename C>
GF_FN void gf_atomic_add_agg(T* p, T v) {
    const unsigned active = __activemask();
    const unsigned peers = __match_any_sync(active, (unsigned long long)p);
    unsigned lane;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
    const int leader = __ffs(peers) - 1;
    if (peers == (1u << lane)) { atomicAdd((R*)p, (R)(C)v); return; }
    T sum = 0;
    for (unsigned m = peers; m; m &= m - 1) sum += __shfl_sync(peers, v, __ffs(m) - 1);
    if ((int)lane == leader) atomicAdd((R*)p, (R)(C)sum);
}
GF_FN void gf_atomic_add(int32_t* p, int32_t v) { gf_atomic_add_agg<int32_t, int, int>(p, v); }
GF_FN void gf_atomic_add(int64_t* p, int64_t v) {
    gf_atomic_add_agg<int64_t, unsigned long long, long long>(p, v);
}
GF_FN void gf_atomic_add(float* p, float v) { gf_atomic_add_agg<float, float, float>(p, v); }
GF_FN void gf_atomic_add(double* p, double v) { gf_atomic_add_agg<double, double, double>(p, v); }
GF_FN bool gf_cas(int32_t* p, int32_t e, int32_t d) { return atomicCAS(p, e, d) == e; }
GF_FN bool gf_cas(int64_t* p, int64_t e, int64_t d) {
    return atomicCAS((unsigned long long*)p, (unsigned long long)e, (unsigned long long)d) == (unsigned long long)e;
}
GF_FN bool gf_atomic_max(int64_t* p, int64_t v) {
    return *(volatile int64_t*)p < v && atomicMax((long long*)p, (long long)v) < (long long)v;
}
GF_FN bool gf_atomic_min(uint32_t* p, uint32_t v) { return *(volatile uint32_t*)p > v && atomicMin(p, v) > v; }
GF_FN bool gf_atomic_max(uint32_t* p, uint32_t v) { return *(volatile uint32_t*)p < v && atomicMax(p, v) < v; }
GF_FN bool gf_atomic_min(uint64_t* p, uint64_t v) {
    return *(volatile uint64_t*)p > v &&
           atomicMin((unsigned long long*)p, (unsigned long long)v) > (unsigned long long)v;
}
GF_FN bool gf_atomic_max(uint64_t* p, uint64_t v) {
    return *(volatile uint64_t*)p < v &&
           atomicMax((unsigned long long*)p, (unsigned long long)v) < (unsigned long long)v;
}
GF_FN bool gf_atomic_max(float* p, float v) {
    int* ip = (int*)p;
    int old = *ip;
    while (__int_as_float(old) < v) {
        int prev = atomicCAS(ip, old, __float_as_int(v));
        if (prev == old) return true;
        old = prev;
    }
    return false;
}
GF_FN bool gf_atomic_max(double* p, double v) {
    unsigned long long* ip = (unsigned long long*)p;
    unsigned long long old = *ip;
    while (__longlong_as_double((long long)old) < v) {
        unsigned long long prev = atomicCAS(ip, old, (unsigned long long)__double_as_longlong(v));
        if (prev == old) return true;
        old = prev;
    }
    return false;
}
GF_FN void gf_atomic_add(uint32_t* p, uint32_t v) { atomicAdd(p, v); }
GF_FN void gf_atomic_add(uint64_t* p, uint64_t v) { atomicAdd((unsigned long long*)p, (unsigned long long)v); }
GF_FN bool gf_cas(uint32_t* p, uint32_t e, uint32_t d) { return atomicCAS(p, e, d) == e; }
GF_FN bool gf_cas(uint64_t* p, uint64_t e, uint64_t d) {
    return atomicCAS((unsigned long long*)p, (unsigned long long)e, (unsigned long long)d) == (unsigned long long)e;
}
template <typename T> GF_FN T gf_load(const T* p) { return *(const volatile T*)p; }
#else
template <typename T> GF_FN bool gf_atomic_min(T* p, T v) {
    T old = __atomic_load_n(p, __ATOMIC_RELAXED);
    while (v < old) {
        if (__atomic_compare_exchange_n(p, &old, v, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) return true;
    }
    return false;
}
template <typename T> GF_FN bool gf_atomic_max(T* p, T v) {
    T old = __atomic_load_n(p, __ATOMIC_RELAXED);
    while (v > old) {
        if (__atomic_compare_exchange_n(p, &old, v, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) return true;
    }
    return false;
}
// Floating-point min/add through compare-and-swap on the bit pattern.
template <typename F, typename I> GF_FN bool gf_atomic_min_fp(F* p, F v) {
    I* ip = reinterpret_cast<I*>(p);
    I old_bits = __atomic_load_n(ip, __ATOMIC_RELAXED);
    for (;;) {
        F old; std::memcpy(&old, &old_bits, sizeof(F));
        if (!(v < old)) return false;
        I new_bits; std::memcpy(&new_bits, &v, sizeof(F));
        if (__atomic_compare_exchange_n(ip, &old_bits, new_bits, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) return true;
    }
}
template <typename F, typename I> GF_FN void gf_atomic_add_fp(F* p, F v) {
    I* ip = reinterpret_cast<I*>(p);
    I old_bits = __atomic_load_n(ip, __ATOMIC_RELAXED);
    for (;;) {
        F old; std::memcpy(&old, &old_bits, sizeof(F));
        F sum = old + v;
        I new_bits; std::memcpy(&new_bits, &sum, sizeof(F));
        if (__atomic_compare_exchange_n(ip, &old_bits, new_bits, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) return;
    }
}
GF_FN bool gf_atomic_min(float* p, float v) { return gf_atomic_min_fp<float, uint32_t>(p, v); }
GF_FN bool gf_atomic_min(double* p, double v) { return gf_atomic_min_fp<double, uint64_t>(p, v); }
template <typename T> GF_FN void gf_atomic_add(T* p, T v) { __atomic_fetch_add(p, v, __ATOMIC_RELAXED); }
GF_FN void gf_atomic_add(float* p, float v) { gf_atomic_add_fp<float, uint32_t>(p, v); }
GF_FN void gf_atomic_add(double* p, double v) { gf_atomic_add_fp<double, uint64_t>(p, v); }
template <typename T> GF_FN bool gf_cas(T* p, T e, T d) {
    return __atomic_compare_exchange_n(p, &e, d, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}
// generic __atomic_load: __atomic_load_n rejects float and double
template <typename T> GF_FN T gf_load(const T* p) { T v; __atomic_load(p, &v, __ATOMIC_RELAXED); return v; }
#endif

// Join the trees of u and v in a parent array whose roots are their own parents: hook the
// higher root under the lower one with a compare-and-swap, climbing and retrying when another
// thread moved a root first (Afforest's link, Sutton et al. 2018). parent[x] <= x always holds,
// so every root is the smallest vertex of its tree. Used by WCC and by Boruvka's forest.
GF_FN void gf_link(vid_t* parent, vid_t u, vid_t v) {
    vid_t p1 = gf_load(&parent[u]), p2 = gf_load(&parent[v]);
    while (p1 != p2) {
        const vid_t high = p1 > p2 ? p1 : p2, low = p1 > p2 ? p2 : p1;
        const vid_t ph = gf_load(&parent[high]);
        if (ph == low) break;                                       // already hooked there
        if (ph == high && gf_cas(&parent[high], high, low)) break;  // high was a root: hooked
        p1 = gf_load(&parent[gf_load(&parent[high])]);              // climb and retry
        p2 = gf_load(&parent[low]);
    }
}

// ------------------------------------------------------- packed vertex ids
// Vertex ids packed in `bits`-bit fields (1 to 31; host_ops.pack_indices): id j is bits
// [j * bits, (j + 1) * bits) of the little-endian stream of 32-bit words at p. A field
// spans at most two words; consecutive ids lie in consecutive words, so lanes reading
// consecutive ids read consecutive words (coalesced), `bits` / 32 of a plain id's bytes.
// Edge kernels are compiled for these and for plain `const vid_t*` ids, both read as
// ids[j]; a packed range handed to a kernel starts at an edge that is a multiple of 32
// (which starts a word), so the kernel's edge_base is one too.
//
// Fused edges (host_ops.pack_edges): each field holds an edge's id in its low `bits` bits and
// its weight (an unsigned integer of `stride - bits` bits) above them, so fields are `stride`
// bits apart and a short row's ids and weights share its 128-byte lines (one zero-copy request
// where separate arrays take two: EMOGI's cost is the requests, HyTGraph (3) counts them as
// sum_v ceil(D_o(v) * d / 128) + am(v), with d = bits + weight bits for a fused edge). The
// kernels' argument carries both widths, `bits | (weight bits << 8)` (gf_packed_ids); GfWeights reads the
// weight from the same field.
struct GfPackedIds {
    const uint32_t* p;
    int32_t bits;     // an id's bits
    int32_t stride;   // a field's bits: `bits`, or `bits` + the weight's in fused edges
    GF_MEMBER vid_t operator[](int64_t j) const {
        const uint64_t pos = (uint64_t)j * (uint64_t)stride;
        const uint32_t* w = p + (pos >> 5);
        const unsigned s = (unsigned)(pos & 31);
        uint64_t v = (uint64_t)(w[0] >> s);
        if (s + (unsigned)bits > 32u) v |= (uint64_t)w[1] << (32u - s);   // the field's high part
        return (vid_t)(v & ((1ull << bits) - 1ull));
    }
};

// The ids of a kernel argument `code` (bits | fused weight bits << 8) over the words at p.
GF_FN GfPackedIds gf_packed_ids(const void* p, int64_t code) {
    const int32_t bits = (int32_t)(code & 255);
    return GfPackedIds{(const uint32_t*)p, bits, bits + (int32_t)(code >> 8)};
}

// ------------------------------------------------------- edge weights
// A side's weights are float32, or, where every weight is an integer that fits, uint8 or
// uint16 (the loaded graph narrows them once: a weighted edge then crosses the bus in 5
// bytes instead of 8 with int32 ids). Kernels read them through this view, which reads
// like the pointer it replaces: `w ? w[j] : 1.0f`. The width is one value per launch, so
// the branch in operator[] goes the same way for every thread. A negative width,
// -(id bits | weight bits << 8), reads fused edges (GfPackedIds): p is their stream.
struct GfWeights {
    const void* p;
    int64_t bytes;   // 4: float32, 2: uint16, 1: uint8; < 0: fused edges
    GF_MEMBER explicit operator bool() const { return p != nullptr; }
    GF_MEMBER float operator[](int64_t j) const {
        if (bytes == 1) return (float)((const uint8_t*)p)[j];
        if (bytes == 2) return (float)((const uint16_t*)p)[j];
        if (bytes > 0) return ((const float*)p)[j];
        const uint64_t code = (uint64_t)(-bytes);
        const unsigned ib = (unsigned)(code & 255), wb = (unsigned)(code >> 8);
        const uint64_t pos = (uint64_t)j * (uint64_t)(ib + wb) + ib;   // the weight's first bit
        const uint32_t* w = (const uint32_t*)p + (pos >> 5);
        const unsigned s = (unsigned)(pos & 31);
        uint64_t v = (uint64_t)(w[0] >> s);
        if (s + wb > 32u) v |= (uint64_t)w[1] << (32u - s);
        return (float)(v & ((1ull << wb) - 1ull));
    }
    // the address of weight j (prefetching; plain weights only)
    GF_MEMBER const void* at(int64_t j) const { return (const char*)p + j * bytes; }
    // the same weights indexed from `base` on: shifted[j] is this[j - base] (plain weights only)
    GF_MEMBER GfWeights shifted(int64_t base) const {
        GfWeights w{p ? (const char*)p - base * bytes : nullptr, bytes};
        return w;
    }
};

// ------------------------------------------------------- whole-graph access
// Neighbourhood functions (triangles, LCC, CDLP) read any vertex's adjacency;
// they run where the whole CSR is addressable (host memory, or resident/mapped
// on the GPU).
struct GfGraph {
    const eid_t* offsets;
    const vid_t* indices;
    GfWeights weights;      // may be null (reads as false)
    int64_t n;
    GF_MEMBER eid_t begin(vid_t v) const { return offsets[v]; }
    GF_MEMBER eid_t end(vid_t v) const { return offsets[v + 1]; }
    GF_MEMBER int64_t degree(vid_t v) const { return offsets[v + 1] - offsets[v]; }
};

// Bitmap frontier helpers (bit v of word v/32, little-endian bit order).
GF_FN bool gf_bit(const uint32_t* bits, int64_t v) { return (bits[v >> 5] >> (v & 31)) & 1u; }
