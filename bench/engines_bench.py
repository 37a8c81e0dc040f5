#!/usr/bin/env python
"""Transfer engines side by side on Kronecker graphs whose edges get 25% of their bytes in device memory.

For BFS, SSSP, PageRank (delta) and WCC on each scale: total time, time per
iteration and bytes moved host-to-device per engine (``resident`` with a full
budget as the reference; the others with the budget set to a fraction of the
program's edge bytes), and per iteration the floor ``bytes that must cross PCIe
/ measured pinned bandwidth`` (the active vertices' edge bytes, ids packed in
``ceil(log2 n)`` bits and weights narrowed, as the engines move them). The same run
measures the ceilings (pinned and pageable host-to-device, device copy,
coalesced zero-copy read) and the engine targets:

* ``filter`` moves edge bytes at >= 85% of the pinned bandwidth (all partitions active);
* ``zerocopy`` on high-degree active vertices reaches >= 70% of it;
* a ``resident`` PageRank iteration reaches >= 40% of the device copy bandwidth,
  counting edge bytes plus vertex reads and writes.

Graphs: Graph500 Kronecker (a=0.57, b=0.19, c=0.19, edge factor 16), undirected,
self-loops and duplicates dropped, vertex ids permuted with
``graphferry.generators.kronecker_permutation``. By default the samples are
drawn on the GPU (CuPy's generator, same quadrant scheme as
``graphferry.generators.kronecker_edges``) and the CSR is built there (sort,
unique, symmetrise): generating scale 26 with the CPU generator costs minutes
of device time. ``--cpu-generator`` feeds ``kronecker_edges`` instead (bit-exact
samples of ``kronecker_graph``). Weights (SSSP): an integer hash of the
endpoint pair in 1..255, equal in both directions.

Results: one JSON per scale (format: shared/BENCH_RESULTS.md) under ``--out``.
Every result, on every backend, is checked before it is reported by an
independent oracle (:class:`Oracle`: plain CUDA kernels on the GPU, scipy with
``--backend cpu``; never graphferry's runtime) that rejects a wrong answer:
BFS level rules, SSSP relaxed-and-tight, WCC the same partition as scipy's
``connected_components``, PageRank within the L1 error bound the algorithm
documents for its ``tol`` of a converged power iteration. A run says
``verified: true`` only when that check ran and passed; ``checks`` says what
was compared. Results are also compared with the resident engine and, with
``--cpu-check``, with the CPU backend.

Usage (on the GPU machine, from the checkout):
    PYTHONPATH=src python bench/engines_bench.py --scales 24 25 --out $OUT
    python bench/engines_bench.py --report bench/results/*.json    # markdown tables
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import math
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import provenance  # noqa: E402  (commit, dirty, diff hash, command: issue 35)

ENGINES = ["resident", "filter", "compaction", "zerocopy", "unified"]
#: also accepted by --engines (not run by default): the hybrid, placed by the machine's
#: calibration or by --calibration's (bytes moved depend on its figures, not on this machine's speed)
OPTIONAL_ENGINES = ["hybrid"]
ALGORITHMS = ["bfs", "sssp", "pagerank", "wcc"]
TARGETS = {"filter_of_pinned": 0.85, "zerocopy_of_pinned": 0.70, "resident_pr_of_device": 0.40}


# ====================================================================== programs
def touch_program():
    from graphferry.runtime import Program

    # Reads every edge of the active rows and writes nothing (transfer-bound edge_map).
    return Program("bench_touch", arrays={"sink": "int32"}, source=r"""
GF_FN bool cond(const State& S, vid_t d) { return true; }
GF_FN bool update_atomic(const State& S, vid_t s, vid_t d, float w) {
    if (d == (vid_t)-7) S.sink[0] = (int32_t)s;
    return false;
}
""")


PR_TOL, PR_MAX_ITERATIONS = 1e-2, 50  # PageRank-delta: a vertex is active while resid > 1% of its rank
PR_DAMPING = 0.85


def run_algorithm(name, g, source, opts):
    """(values to check, run record, implementation, seconds of the results' transfer to the host):
    the call leaves its results where they were computed; ``Result.to_host`` right after it is
    timed apart (0 on the CPU backend, whose results are host arrays)."""
    if name == "bfs":
        from graphferry.algorithms.bfs import bfs

        r = bfs(g, source, **opts)
        impl, cols = "graphferry.algorithms.bfs", {"levels": "levels"}
    elif name == "wcc":
        from graphferry.algorithms.wcc import wcc

        r = wcc(g, **opts)
        impl, cols = "graphferry.algorithms.wcc", {"labels": "labels"}
    elif name == "sssp":
        from graphferry.algorithms.sssp import sssp

        r = sssp(g, source, **opts)
        impl, cols = "graphferry.algorithms.sssp", {"dist": "distances"}
    elif name == "pagerank":
        from graphferry.algorithms.pagerank import pagerank

        r = pagerank(g, damping=PR_DAMPING, tol=PR_TOL, max_iterations=PR_MAX_ITERATIONS, **opts)
        impl, cols = (f"graphferry.algorithms.pagerank (delta, tol {PR_TOL} of each rank, "
                      f"{PR_MAX_ITERATIONS} rounds at most)", {"rank": "ranks"})
    else:
        raise ValueError(name)
    t = time.perf_counter()
    r.to_host()
    to_host = time.perf_counter() - t
    vals = {key: r.values[col] for key, col in cols.items()}
    if name == "pagerank":
        vals["converged"] = bool(r.converged)
    return vals, r.record, impl, to_host


# ====================================================================== graphs
def splitmix_weights(xp, lo, hi, scale):
    """Weight 1..255 from the unordered endpoint pair (equal in both directions)."""
    k = (xp.minimum(lo, hi).astype(xp.uint64) << xp.uint64(scale)) | xp.maximum(lo, hi).astype(xp.uint64)
    z = k + xp.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> xp.uint64(30))) * xp.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> xp.uint64(27))) * xp.uint64(0x94D049BB133111EB)
    z = z ^ (z >> xp.uint64(31))
    return (z % xp.uint64(255) + xp.uint64(1)).astype(xp.float32)


def gpu_samples(scale, edge_factor, seed, perm_dev, chunk=1 << 26):
    """Kronecker samples drawn on the GPU: per level one uniform picks the quadrant (Graph500)."""
    import cupy as cp

    a, b, c = 0.57, 0.19, 0.19
    total = edge_factor << scale
    rs = cp.random.RandomState(seed)
    for off in range(0, total, chunk):
        k = min(chunk, total - off)
        src = cp.zeros(k, dtype=cp.int64)
        dst = cp.zeros(k, dtype=cp.int64)
        for _ in range(scale):
            u = rs.random_sample(k, dtype=cp.float32)
            ii = u >= (a + b)
            jj = (u >= a) ^ ii ^ (u >= (a + b + c))
            src <<= 1
            src |= ii
            dst <<= 1
            dst |= jj
            del u, ii, jj
        yield perm_dev[src], perm_dev[dst]


def build_csr(xp, chunks, scale, weighted=True):
    """Undirected CSR from sample chunks: orient (min, max), drop loops, unique, symmetrise, sort.

    Returns host (offsets int64, indices int32/int64, weights float32 | None).
    """
    n = 1 << scale
    keys = []
    for s, d in chunks:
        s = xp.asarray(s)
        d = xp.asarray(d)
        lo, hi = xp.minimum(s, d), xp.maximum(s, d)
        keep = lo != hi
        keys.append(((lo[keep].astype(xp.uint64) << xp.uint64(scale)) | hi[keep].astype(xp.uint64)))
        del s, d, lo, hi, keep
    key = xp.concatenate(keys) if keys else xp.zeros(0, xp.uint64)
    del keys
    key = xp.unique(key)
    mask = xp.uint64(n - 1)
    u = (key >> xp.uint64(scale)).astype(xp.int64)
    v = (key & mask).astype(xp.int64)
    del key
    sym = xp.concatenate([(u.astype(xp.uint64) << xp.uint64(scale)) | v.astype(xp.uint64),
                          (v.astype(xp.uint64) << xp.uint64(scale)) | u.astype(xp.uint64)])
    del u, v
    sym.sort()
    m = int(sym.size)
    offsets = xp.searchsorted(sym, xp.arange(n + 1, dtype=xp.uint64) << xp.uint64(scale)).astype(xp.int64)
    idx_dtype = np.int32 if n < 2**31 else np.int64
    dst = xp.empty(m, dtype=idx_dtype)
    w = xp.empty(m, dtype=xp.float32) if weighted else None
    step = 1 << 28
    for a in range(0, m, step):  # chunks bound the temporaries (scale 26: 2 G arcs)
        blk = sym[a : a + step]
        s = (blk >> xp.uint64(scale)).astype(xp.int64)
        d = (blk & mask).astype(xp.int64)
        dst[a : a + step] = d
        if weighted:
            w[a : a + step] = splitmix_weights(xp, s, d, scale)
        del blk, s, d
    del sym
    to_host = (lambda a: a.get()) if xp is not np else (lambda a: a)
    return to_host(offsets), to_host(dst), (None if w is None else to_host(w))


def _built(xp, chunks, scale, weighted, name, gen, seed, edge_factor, t0):
    """The undirected CSR of sample ``chunks`` as a Graph named ``name``, and how it was made."""
    from graphferry.graph import Graph

    offsets, indices, weights = build_csr(xp, chunks, scale, weighted)
    if xp is not np:
        xp.get_default_memory_pool().free_all_blocks()
    g = Graph(offsets, indices, weights, directed=False, name=name)
    return g, {"generator": gen, "seed": seed, "edge_factor": edge_factor,
               "build_seconds": round(time.perf_counter() - t0, 2)}


def kronecker(scale, *, edge_factor=16, seed=0, cpu_generator=False, weighted=True):
    from graphferry.generators import kronecker_edges, kronecker_permutation

    t0 = time.perf_counter()
    if cpu_generator:
        chunks = kronecker_edges(scale, edge_factor, seed=seed, threads=os.cpu_count())
        gen = "graphferry.generators.kronecker_edges (CPU), CSR built on the GPU"
        if _cuda_ok():
            import cupy as xp
        else:  # --backend cpu smoke runs
            xp = np
            gen = "graphferry.generators.kronecker_edges, CSR built with numpy"
    else:
        import cupy as xp

        perm = xp.asarray(kronecker_permutation(scale, seed=seed).astype(np.int64))
        chunks = gpu_samples(scale, edge_factor, seed, perm)
        gen = "GPU Kronecker sampler (cupy RandomState, Graph500 quadrants) + kronecker_permutation, CSR built on the GPU"
    return _built(xp, chunks, scale, weighted, f"kron{scale}", gen, seed, edge_factor, t0)


def uniform(scale, *, edge_factor=16, seed=0, cpu_generator=False, weighted=True):
    """A uniform random graph of Kronecker ``scale``'s size (GAPBS ``-u``, "urand"): ``edge_factor
    << scale`` samples with both ends uniform over the ``2**scale`` vertices, then the same CSR
    build (undirected, loops and duplicates dropped, the same weights)."""
    from graphferry.generators import uniform_random_edges

    t0 = time.perf_counter()
    n, total = 1 << scale, edge_factor << scale
    if cpu_generator or not _cuda_ok():
        chunks = uniform_random_edges(n, total, seed=seed, threads=os.cpu_count())
        xp = __import__("cupy") if _cuda_ok() else np
        gen = "graphferry.generators.uniform_random_edges (CPU), CSR built " + ("on the GPU" if xp is not np else "with numpy")
    else:
        import cupy as xp

        def gpu_uniform(chunk=1 << 26):
            rs = xp.random.RandomState(seed)
            for off in range(0, total, chunk):
                k = min(chunk, total - off)
                yield rs.randint(0, n, k, dtype=xp.int64), rs.randint(0, n, k, dtype=xp.int64)

        chunks = gpu_uniform()
        gen = "GPU uniform sampler (cupy RandomState), CSR built on the GPU"
    return _built(xp, chunks, scale, weighted, f"urand{scale}", gen, seed, edge_factor, t0)


#: graph kinds the benchmarks generate, by their name's prefix (GAPBS: -g kron, -u urand)
GRAPH_KINDS = {"kron": kronecker, "urand": uniform}


# ====================================================================== probes
def place_host_arrays(g, backend, mode: str):
    """Edge arrays in cudaHostAlloc'd memory (``pinned``, as EMOGI allocates them) or
    registered in place (``registered``, what the engines do for a user's arrays)."""
    if backend.name != "cuda":
        return g
    from graphferry.graph import Graph

    if mode == "registered":
        backend.register_host(g.indices)
        backend.register_host(g.weights)
        return g

    def pin(a):
        if a is None:
            return None
        p = backend.pinned_empty(len(a), a.dtype)
        p[:] = a
        return p

    return Graph(g.offsets, pin(g.indices), pin(g.weights), directed=g.directed, name=g.name)


def median_time(fn, reps=5):
    import cupy as cp

    fn()
    cp.cuda.Device().synchronize()
    ts = []
    for _ in range(reps):
        s, e = cp.cuda.Event(), cp.cuda.Event()
        s.record()
        fn()
        e.record()
        e.synchronize()
        ts.append(cp.cuda.get_elapsed_time(s, e) / 1e3)
    return float(np.median(ts))


def probe(backend) -> dict:
    if backend.name != "cuda":  # smoke runs of the script's logic on a machine without a GPU
        return {"device": backend.device_description(), "host_cores": os.cpu_count(),
                "pinned_h2d_gbps": 50.0, "device_copy_gbps": 3000.0, "note": "no GPU: placeholder ceilings"}
    import cupy as cp

    GB = 1 << 30
    out = {"device": backend.device_description(), "host_cores": os.cpu_count(),
           "cupy": cp.__version__, "cuda_runtime": cp.cuda.runtime.runtimeGetVersion(),
           "driver": cp.cuda.runtime.driverGetVersion()}
    n = 2 * GB
    a = cp.empty(n, dtype=cp.uint8)
    b = cp.empty(n, dtype=cp.uint8)
    a.fill(1)
    out["device_copy_gbps"] = round(2 * n / median_time(lambda: b.__setitem__(slice(None), a)) / 1e9, 1)
    del a, b
    n = 1 * GB
    pinned = backend.pinned_empty(n, np.uint8)
    pinned[:] = 3
    d = cp.empty(n, dtype=cp.uint8)
    s = cp.cuda.Stream(non_blocking=True)

    def h2d():
        cp.cuda.runtime.memcpyAsync(d.data.ptr, pinned.ctypes.data, n, 1, cp.cuda.get_current_stream().ptr)

    out["pinned_h2d_gbps"] = round(n / median_time(h2d) / 1e9, 1)
    pageable = np.ones(256 << 20, dtype=np.uint8)
    t = time.perf_counter()
    for _ in range(3):
        d[: pageable.nbytes].set(pageable)
    cp.cuda.Device().synchronize()
    out["pageable_h2d_gbps"] = round(3 * pageable.nbytes / (time.perf_counter() - t) / 1e9, 1)
    acc = cp.zeros(1, dtype=cp.uint64)
    mod = cp.RawModule(code=r"""
extern "C" __global__ void zc_sum(const unsigned int* __restrict__ x, unsigned long long n, unsigned long long* out) {
    unsigned long long acc = 0;
    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
         i += (unsigned long long)gridDim.x * blockDim.x) acc += x[i];
    atomicAdd(out, acc);
}
// each block reads whole segments of `seg` words at scattered positions (a heavy row each)
extern "C" __global__ void zc_segments(const unsigned int* __restrict__ x, unsigned long long n, int seg,
                                       unsigned long long nseg, unsigned long long* out) {
    unsigned long long acc = 0;
    for (unsigned long long s = blockIdx.x; s < nseg; s += gridDim.x) {
        const unsigned long long base = ((s * 2654435761ull) % (n / seg)) * seg;
        for (int i = threadIdx.x; i < seg; i += blockDim.x) acc += x[base + i];
    }
    atomicAdd(out, acc);
}""")
    zsum, zseg = mod.get_function("zc_sum"), mod.get_function("zc_segments")
    grid = (backend.num_sms * 8,)

    def zc(view, label):
        out[f"zerocopy_{label}_coalesced_gbps"] = round(n / median_time(
            lambda: zsum(grid, (256,), (view, np.uint64(n // 4), acc)), reps=3) / 1e9, 1)
        seg, nseg = 4096, (n // 4) // 4096 // 2
        out[f"zerocopy_{label}_16KiB_segments_gbps"] = round(nseg * seg * 4 / median_time(
            lambda: zseg(grid, (256,), (view, np.uint64(n // 4), np.int32(seg), np.uint64(nseg), acc)),
            reps=3) / 1e9, 1)

    zc(backend.host_view(pinned.view(np.uint32)), "hostalloc")
    plain = np.ones(n // 4, dtype=np.uint32)          # pageable numpy memory, registered in place
    t = time.perf_counter()
    backend.registry.register(plain)
    out["host_register_gbps"] = round(n / (time.perf_counter() - t) / 1e9, 1)
    zc(backend.host_view(plain), "registered")
    dd = cp.empty(n, dtype=cp.uint8)
    out["registered_h2d_gbps"] = round(n / median_time(lambda: cp.cuda.runtime.memcpyAsync(
        dd.data.ptr, plain.ctypes.data, n, 1, cp.cuda.get_current_stream().ptr)) / 1e9, 1)
    backend.registry.forget(plain)
    out["zerocopy_coalesced_gbps"] = out["zerocopy_hostalloc_coalesced_gbps"]
    del pinned, d, s, dd, plain
    cp.get_default_memory_pool().free_all_blocks()
    return out


# ====================================================================== oracles (not the framework)
_ORACLE_SRC = r"""
typedef long long ll;
template <typename V>
__device__ void bfs_check(const ll* off, const V* idx, const ll* lev, ll n, ll src, unsigned long long* bad) {
    ll v = blockIdx.x * (ll)blockDim.x + threadIdx.x;
    if (v >= n) return;
    const ll lv = lev[v];
    bool parent = (v == src) || lv < 0;
    for (ll j = off[v]; j < off[v + 1]; ++j) {
        const ll lu = lev[idx[j]];
        if ((lv < 0) != (lu < 0)) { atomicAdd(bad, 1ull); return; }
        if (lv >= 0 && (lu > lv + 1 || lv > lu + 1)) { atomicAdd(bad, 1ull); return; }
        if (lu == lv - 1) parent = true;
    }
    if (!parent || (v == src && lv != 0)) atomicAdd(bad, 1ull);
}
template <typename V>
__device__ void sssp_check(const ll* off, const V* idx, const float* w, const double* d, ll n, ll src, unsigned long long* bad) {
    ll v = blockIdx.x * (ll)blockDim.x + threadIdx.x;
    if (v >= n) return;
    const double dv = d[v];
    bool tight = (v == src) || !isfinite(dv);
    for (ll j = off[v]; j < off[v + 1]; ++j) {
        const double du = d[idx[j]];
        const double via = du + (double)w[j];      // undirected: edge (u, v) has the same weight
        if (isfinite(du) && dv > via * (1 + 1e-12)) { atomicAdd(bad, 1ull); return; }
        if (isfinite(du) && fabs(via - dv) <= 1e-12 * fmax(1.0, via)) tight = true;
    }
    if (!tight || (v == src && dv != 0.0)) atomicAdd(bad, 1ull);
}
template <typename V>
__device__ void wcc_check(const ll* off, const V* idx, const ll* lab, ll n, unsigned long long* bad) {
    ll v = blockIdx.x * (ll)blockDim.x + threadIdx.x;
    if (v >= n) return;
    const ll l = lab[v];
    if (l < 0 || l > v || lab[l] != l) { atomicAdd(bad, 1ull); return; }
    for (ll j = off[v]; j < off[v + 1]; ++j) if (lab[idx[j]] != l) { atomicAdd(bad, 1ull); return; }
}
// the component count: labels start as ids and only fall, to the least label among a vertex's
// neighbours (cc_min) and to its label's label (cc_jump), until neither changes; then every
// edge joins equal labels, each the least id of its class (races only delay the fall)
template <typename V>
__device__ void cc_min(const ll* off, const V* idx, ll* lab, ll n, int* changed) {
    ll v = blockIdx.x * (ll)blockDim.x + threadIdx.x;
    if (v >= n) return;
    ll best = lab[v];
    for (ll j = off[v]; j < off[v + 1]; ++j) { const ll l = lab[idx[j]]; if (l < best) best = l; }
    if (best < lab[v]) { lab[v] = best; *changed = 1; }
}
__device__ void cc_jump(ll* lab, ll n, int* changed) {
    ll v = blockIdx.x * (ll)blockDim.x + threadIdx.x;
    if (v >= n) return;
    const ll up = lab[lab[v]];
    if (up < lab[v]) { lab[v] = up; *changed = 1; }
}
// one power step of PageRank from x: y[v] += a * sum_u x[u] / deg(u), y holding (1 - a) / n on
// entry. Each thread takes `per` consecutive edges (not a row: a Kronecker hub's millions of
// edges on one thread took 0.65 s a step at scale 26), finds the row of its first edge by
// bisecting the offsets, and adds each row's partial sum with one atomic
template <typename V>
__device__ void pr_step(const ll* off, const V* idx, const double* x, double a, ll n, ll per, double* y) {
    const ll m = off[n];
    ll j = (blockIdx.x * (ll)blockDim.x + threadIdx.x) * per;
    if (j >= m) return;
    const ll end = j + per < m ? j + per : m;
    ll lo = 0, hi = n;                       // off[lo] <= j < off[hi]
    while (hi - lo > 1) { const ll mid = (lo + hi) / 2; if (off[mid] <= j) lo = mid; else hi = mid; }
    ll v = lo, row_end = off[v + 1];
    double s = 0.0;
    for (; j < end; ++j) {
        while (j >= row_end) { if (s != 0.0) atomicAdd(&y[v], a * s); s = 0.0; row_end = off[++v + 1]; }
        const ll u = idx[j];
        s += x[u] / (double)(off[u + 1] - off[u]);
    }
    if (s != 0.0) atomicAdd(&y[v], a * s);
}
extern "C" __global__ void bfs_check32(const ll* o, const int* i, const ll* l, ll n, ll s, unsigned long long* b) { bfs_check<int>(o, i, l, n, s, b); }
extern "C" __global__ void sssp_check32(const ll* o, const int* i, const float* w, const double* d, ll n, ll s, unsigned long long* b) { sssp_check<int>(o, i, w, d, n, s, b); }
extern "C" __global__ void wcc_check32(const ll* o, const int* i, const ll* l, ll n, unsigned long long* b) { wcc_check<int>(o, i, l, n, b); }
extern "C" __global__ void cc_min32(const ll* o, const int* i, ll* l, ll n, int* c) { cc_min<int>(o, i, l, n, c); }
extern "C" __global__ void cc_jump64(ll* l, ll n, int* c) { cc_jump(l, n, c); }
extern "C" __global__ void pr_step32(const ll* o, const int* i, const double* x, double a, ll n, ll per, double* y) { pr_step<int>(o, i, x, a, n, per, y); }
"""


def count_distinct(values) -> int:
    """``len(np.unique(values))`` by a sort: numpy 2.4's ``np.unique`` hashes, and took about 17 s
    on Kronecker 26's 67 M labels (34 M distinct) where sorting them takes about 1.5. The
    library's ``host_ops.count_distinct`` does the same; the checks keep their own, so that they
    stay independent of the code they check.

    Example:
        >>> count_distinct(np.array([5, 3, 5, 9])), count_distinct(np.array([], dtype=np.int64))
        (3, 0)
    """
    ordered = np.sort(np.asarray(values).ravel())
    return int(len(ordered) > 0) + int(np.count_nonzero(ordered[1:] != ordered[:-1]))


def _cuda_ok() -> bool:
    from graphferry.backends import cuda_available

    return cuda_available()


def pagerank_error_bound(tol: float = PR_TOL, damping: float = PR_DAMPING) -> float:
    """The L1 error ``graphferry.algorithms.pagerank`` guarantees at ``tol`` (its docstring:
    "the L1 error is then at most about 4 d / (1 - d) * tol")."""
    return 4 * damping / (1 - damping) * tol


class Oracle:
    """Independent checks, never graphferry's runtime: plain CUDA kernels over a resident copy
    of the graph when there is a GPU, scipy otherwise.

    Each check rejects a wrong answer of its kind:

    * BFS: the source alone at level 0, no edge spans more than one level or joins a reached
      and an unreached vertex, every other reached vertex has a neighbour one level up (the
      graph is undirected); on the CPU, levels equal scipy's ``shortest_path(unweighted)``.
    * SSSP: every edge relaxed and every reached vertex tight (weights are positive, so this
      pins every distance); on the CPU, distances equal scipy's ``dijkstra``.
    * WCC: every edge joins equal labels, each label is the smallest id of its class, and the
      number of classes equals the component count (min-label propagation with pointer jumping
      on the GPU, scipy's ``connected_components`` on the CPU). The first two rule out
      split components; with them, equal counts rule out merged ones (and "every vertex 0").
    * PageRank: L1 distance to a float64 power iteration run to convergence (sinks spread)
      within the bound the algorithm documents for its ``tol`` (:func:`pagerank_error_bound`),
      and the run reported convergence.
    """

    def __init__(self, g):
        self.g = g
        self.cp = None
        self._components = None
        self._pr_reference = None
        try:
            import cupy as cp
        except ImportError:
            cp = None
        if cp is None or not _cuda_ok():
            return
        assert g.indices.dtype == np.int32
        self.cp = cp
        self.mod = cp.RawModule(code=_ORACLE_SRC)
        self.off = cp.asarray(g.offsets)
        self.idx = cp.asarray(g.indices)
        self.w = None if g.weights is None else cp.asarray(g.weights)

    @property
    def where(self) -> str:
        return "CUDA oracle kernels" if self.cp is not None else "scipy"

    def components(self) -> int:
        """The number of components: the oracle's own kernels where there is a GPU, else scipy.

        scipy's undirected count builds the transpose first; at Kronecker 26 (2.1 G arcs) that
        took about 5 minutes of a 10-minute device call. The graphs here are symmetric, so on
        the CPU its strongly connected count (Pearce's, no transpose) is the same number.
        """
        if self._components is None:
            if self.cp is not None:
                self._components = self._components_on_device()
            else:
                import scipy.sparse.csgraph as cg

                directed = self.g.directed  # a symmetric graph's strong components are its weak ones
                self._components = int(cg.connected_components(
                    self._scipy(weighted=False), directed=True, connection="weak" if directed else "strong")[0])
        return self._components

    def _components_on_device(self) -> int:
        cp, n = self.cp, self.g.n
        grid, blk = ((n + 255) // 256,), (256,)
        hook, jump = self.mod.get_function("cc_min32"), self.mod.get_function("cc_jump64")
        ids = cp.arange(n, dtype=cp.int64)
        lab = ids.copy()
        changed = cp.ones(1, dtype=cp.int32)
        while int(changed[0]):
            changed[0] = 0
            hook(grid, blk, (self.off, self.idx, lab, np.int64(n), changed))
            jump(grid, blk, (lab, np.int64(n), changed))
        return int(cp.count_nonzero(lab == ids))

    def _scipy(self, weighted: bool):
        import scipy.sparse as sp

        g = self.g
        data = g.weights.astype(np.float64) if weighted and g.weights is not None else np.ones(g.m)
        return sp.csr_array((data, g.indices, g.offsets), shape=(g.n, g.n))

    #: edges a thread of the PageRank step takes
    EDGES_PER_THREAD = 64

    def power_step(self, x, y, damping: float, sinks) -> None:
        """``y = (1 - d) / n + d * (sum_u x[u] / deg(u) + sum over sinks x[s] / n)`` on the GPU
        (``sinks``: the device array of vertices with no out-edge)."""
        n = self.g.n
        y.fill((1.0 - damping) / n + damping * float(x[sinks].sum()) / n)
        per = self.EDGES_PER_THREAD
        threads = max(1, -(-int(self.g.m) // per))
        self.mod.get_function("pr_step32")(((threads + 255) // 256,), (256,),
                                           (self.off, self.idx, x, np.float64(damping), np.int64(n),
                                            np.int64(per), y))

    def pagerank_reference(self) -> np.ndarray:
        """Float64 power iteration (sinks spread) until the L1 change is below 1e-13 on the GPU,
        1e-15 on the CPU (:func:`graphferry.algorithms.pagerank.pagerank_reference`)."""
        if self._pr_reference is not None:
            return self._pr_reference
        g, n, a = self.g, self.g.n, PR_DAMPING
        sink = g.out_degree == 0
        if self.cp is not None:
            cp = self.cp
            x = cp.full(n, 1.0 / n)
            y = cp.empty_like(x)
            sinks = cp.asarray(np.flatnonzero(sink))
            for _ in range(2000):
                self.power_step(x, y, a, sinks)
                done = float(cp.abs(y - x).sum()) < 1e-13
                x, y = y, x
                if done:
                    break
            ref = cp.asnumpy(x)
        else:  # the library's scipy power iteration (sinks spread; until the L1 change is below 1e-15)
            from graphferry.algorithms.pagerank import pagerank_reference

            ref = pagerank_reference(g, a)
        self._pr_reference = ref
        return ref

    def check(self, name, vals, source) -> tuple[bool, str]:
        if name == "pagerank":
            if not vals.get("converged", False):
                return False, "not converged: the error bound does not apply"
            err = float(np.abs(np.asarray(vals["rank"]) - self.pagerank_reference()).sum())
            bound = pagerank_error_bound()
            return err <= bound, (f"L1 error {err:.2e} to a converged float64 power iteration ({self.where}); "
                                  f"documented bound at tol {PR_TOL}: {bound:.2e}")
        if name == "wcc":
            labels = np.asarray(vals["labels"], dtype=np.int64)
            classes = count_distinct(labels)
            want = self.components()
            ok, why = self._wcc_local(labels)
            ok = ok and classes == want
            return ok, f"{why}; {classes} label classes, {want} components ({self.where})"
        if self.cp is None:
            return self._scipy_check(name, vals, source)
        return self._kernel_check(name, vals, source)

    def _wcc_local(self, labels) -> tuple[bool, str]:
        n = self.g.n
        if self.cp is None:
            src, dst = self.g.edges()
            ids = np.arange(n)
            bad = np.count_nonzero((labels < 0) | (labels > ids)) + np.count_nonzero(labels[src] != labels[dst])
            bad += 0 if bad else np.count_nonzero(labels[labels] != labels)
            return bad == 0, f"{bad} label violations (scipy-side numpy check)"
        cp = self.cp
        bad = cp.zeros(1, dtype=cp.uint64)
        lab = cp.asarray(labels)
        self.mod.get_function("wcc_check32")(((n + 255) // 256,), (256,),
                                             (self.off, self.idx, lab, np.int64(n), bad))
        k = int(bad[0])
        return k == 0, f"{k} vertices with inconsistent labels (CUDA oracle kernel)"

    def _scipy_check(self, name, vals, source) -> tuple[bool, str]:
        import scipy.sparse.csgraph as cg

        if name == "bfs":
            d = cg.shortest_path(self._scipy(weighted=False), unweighted=True, indices=source, directed=True)
            want = np.where(np.isinf(d), -1, d).astype(np.int64)
            bad = int(np.count_nonzero(np.asarray(vals["levels"]) != want))
            return bad == 0, ("levels equal scipy shortest_path(unweighted)" if bad == 0
                              else f"{bad} levels differ from scipy shortest_path(unweighted)")
        if name == "sssp":
            want = cg.dijkstra(self._scipy(weighted=True), directed=True, indices=source)
            got = np.asarray(vals["dist"], dtype=np.float64)
            fin = np.isfinite(want)
            ok = np.array_equal(fin, np.isfinite(got)) and np.allclose(got[fin], want[fin], rtol=1e-9, atol=0)
            return ok, "distances equal scipy dijkstra" if ok else "distances differ from scipy dijkstra"
        raise ValueError(name)

    def _kernel_check(self, name, vals, source) -> tuple[bool, str]:
        cp, g = self.cp, self.g
        n = g.n
        grid, blk = ((n + 255) // 256,), (256,)
        bad = cp.zeros(1, dtype=cp.uint64)
        f = self.mod.get_function
        if name == "bfs":
            lev = cp.asarray(vals["levels"].astype(np.int64))
            f("bfs_check32")(grid, blk, (self.off, self.idx, lev, np.int64(n), np.int64(source), bad))
            k = int(bad[0])
            return k == 0, f"{k} vertices violate BFS level rules (CUDA oracle kernel)"
        if name == "sssp":
            d = cp.asarray(vals["dist"].astype(np.float64))
            f("sssp_check32")(grid, blk, (self.off, self.idx, self.w, d, np.int64(n), np.int64(source), bad))
            k = int(bad[0])
            return k == 0, f"{k} vertices not relaxed or not tight (CUDA oracle kernel)"
        raise ValueError(name)


def agree(name, ref, vals) -> tuple[bool, str]:
    if name == "bfs":
        ok = np.array_equal(ref["levels"], vals["levels"])
        return ok, "levels equal" if ok else f"{int((ref['levels'] != vals['levels']).sum())} levels differ"
    if name == "wcc":
        ok = np.array_equal(ref["labels"], vals["labels"])
        return ok, "labels equal" if ok else f"{int((ref['labels'] != vals['labels']).sum())} labels differ"
    if name == "sssp":
        a, b = ref["dist"], vals["dist"]
        ok = np.array_equal(np.isfinite(a), np.isfinite(b)) and np.allclose(a[np.isfinite(a)], b[np.isfinite(b)], rtol=1e-9)
        return ok, "distances equal" if ok else "distances differ"
    if name == "pagerank":
        a, b = ref["rank"], vals["rank"]
        err = float(np.abs(a - b).sum())
        # engine agreement, not correctness (the oracle checks that): the same rounds in
        # another order agree to rounding; 1e-4 leaves room for a round more or less
        return err < 1e-4, f"L1 to the reference run {err:.1e}"
    raise ValueError(name)


# ====================================================================== runs
class RunCap(Exception):
    def __init__(self, msg, record=None):
        super().__init__(msg)
        self.record = record


def floor_bytes_per_edge(g, weighted: bool) -> float:
    """Bytes one edge must move at least, as graphferry's engines can hold it: ids packed in
    ``ceil(log2 n)`` bits on a graph of int32 ids (what filter, zerocopy and the hybrid copy and
    map), weights at their narrowed width (1 or 2 bytes where every weight is a small integer).
    The engines' own records price their floors the same way (``EdgeSide.range_bytes_per_edge``);
    plain 4-byte ids and float32 weights overstated it, by 1.9x for SSSP at Kronecker 25 (8 bytes
    an edge against 3.125 + 1)."""
    from graphferry import host_ops

    bits = host_ops.id_bits(g.n) if g.indices.dtype == np.int32 else 8 * g.indices.itemsize
    weight = host_ops.weight_width(g.weights) if weighted and g.weights is not None else 0
    return bits / 8 + weight


def record_summary(rec, bytes_per_edge: float, pinned_bps: float) -> dict:
    steps = []
    floor = 0.0
    for s in rec.steps:
        row = {"op": s.op, "dir": s.direction, "seconds": round(s.seconds, 6)}
        if s.op == "edge_map":
            need = max(s.active_edges, 0) * bytes_per_edge  # -1: not counted (a CPU pull)
            fl = need / pinned_bps
            floor += fl
            row.update(active_vertices=s.active_vertices, active_edges=s.active_edges,
                       bytes_h2d=s.bytes_h2d, floor_seconds=round(fl, 6),
                       copy_seconds=round(s.copy_seconds, 6), kernel_seconds=round(s.kernel_seconds, 6),
                       compact_seconds=round(s.compact_seconds, 6),
                       partitions=len(s.partitions))
        steps.append(row)
    seconds = sum(s.seconds for s in rec.steps)
    edge = [s for s in rec.steps if s.op == "edge_map"]
    state = [s.state_bytes for s in rec.steps if s.state_bytes]  # the hybrid's CPU executor, both ways
    return {"seconds": round(seconds, 5), "iterations": len(edge), "bytes_h2d": int(rec.bytes_h2d),
            "state_bytes": int(sum(state)),
            "floor_seconds": round(floor, 5),
            "seconds_per_iteration": round(seconds / max(1, len(edge)), 6),
            "edge_map_seconds": round(sum(s.seconds for s in edge), 5),
            "steps": steps}


def source_vertex(g) -> int:
    return int(np.argmax(g.out_degree))


def run_plan(name, label, g, src, backend, budget, bpe, pinned_bps, args, deadline, oracle, ref_vals, cpu_vals, log):
    """One algorithm on one engine (``label``: an engine, or ``hybrid-async``): timed, checked by the
    oracle and against the reference engine's and the CPU's answers; the run's entry (or why not)."""
    engine = "hybrid" if label == "hybrid-async" else label
    if time.perf_counter() > deadline:
        log(f"  {name} {label}: skipped (deadline)")
        return {"algorithm": name, "engine": label, "skipped": "deadline"}
    opts = {"backend": backend, "engine": engine, "partition_bytes": args.partition_bytes,
            "budget": None if engine in ("resident", "host") else budget}
    if engine == "hybrid" and (args.calibration is not None or label == "hybrid-async"):
        from graphferry.scheduler import Calibration, Policy

        cal = None if args.calibration is None else Calibration.from_json(args.calibration.read_text())
        opts["policy"] = Policy(calibration=cal, asynchronous=label == "hybrid-async")
    cap = min(deadline, time.perf_counter() + args.run_cap_s)

    def progress(op, i, rec, cap=cap):
        if time.perf_counter() > cap:
            raise RunCap(f"stopped after {i + 1} steps (run cap)", rec)

    opts["progress"] = progress
    t = time.perf_counter()
    try:
        vals, rec, impl, to_host = run_algorithm(name, g, src, opts)
    except RunCap as e:
        log(f"  {name:9s} {label:10s} capped: {e}")
        entry = {"algorithm": name, "engine": label, "skipped": f"run cap {args.run_cap_s} s: {e}"}
        if e.record is not None:   # what ran before the cap, for the per-iteration analysis
            part = record_summary(e.record, bpe, pinned_bps)
            entry["partial"] = {k: v for k, v in part.items() if k != "steps"}
            entry["steps"] = [x for x in part["steps"] if x["op"] == "edge_map"]
        return entry
    except Exception as e:  # noqa: BLE001 - one engine's failure must not lose the others
        log(f"  {name:9s} {label:10s} FAILED: {type(e).__name__}: {e}")
        return {"algorithm": name, "engine": label, "error": f"{type(e).__name__}: {e}"}
    wall = time.perf_counter() - t
    summary = record_summary(rec, bpe, pinned_bps)
    ok, why = oracle.check(name, vals, src)
    notes = [why]
    if engine in ("resident", "host"):
        ref_vals[name] = vals
    elif name in ref_vals:
        same, w2 = agree(name, ref_vals[name], vals)
        if not same and label == "hybrid-async" and name == "pagerank":
            # other rounds, not another order of the same ones: each run is within the
            # documented bound of the converged ranks (the oracle's check), so within
            # twice that of each other
            err = float(np.abs(ref_vals[name]["rank"] - vals["rank"]).sum())
            same = err <= 2 * pagerank_error_bound()
            w2 += f" (asynchronous: at most twice the documented bound, {2 * pagerank_error_bound():.1e})"
        ok = ok and same
        notes.append(w2)
    if name in cpu_vals:
        same, w3 = agree(name, cpu_vals[name], vals)
        ok = ok and same
        notes.append("cpu: " + w3)
    run = {"algorithm": name, "engine": label, "impl": impl,
           "budget_bytes": rec.extra.get("budget_bytes", budget),
           "peak_device_edge_bytes": rec.extra.get("peak_device_edge_bytes"),
           "wall_seconds": round(wall, 3), "to_host_seconds": round(to_host, 5),
           "verified": bool(ok), "checks": notes, **summary,
           # one call per engine (programs compiled by the warm-up before): its first is its only
           "first_seconds": summary["seconds"], "calls": 1,
           "bytes_h2d_how": rec.bytes_h2d_how, "bytes_h2d_modelled": int(rec.bytes_h2d_modelled)}
    if not args.keep_steps:
        run["steps"] = [s for s in run["steps"] if s["op"] == "edge_map"]
    log(f"  {name:9s} {label:10s} {run['seconds']:8.3f} s  {run['iterations']:3d} it  "
        f"{run['bytes_h2d'] / 1e9:8.2f} GB  floor {run['floor_seconds']:7.3f} s  "
        f"{'ok' if ok else 'WRONG'} ({'; '.join(notes)})")
    return run


def bench_scale(g, info, backend, machine, args, deadline, log):
    from graphferry.backends.base import DeviceArena  # noqa: F401 (documentation)

    pinned_bps = machine["pinned_h2d_gbps"] * 1e9
    src = source_vertex(g)
    oracle = Oracle(g)
    runs = []
    ref_vals = {}
    cpu_vals = {}
    for name in args.algorithms:
        uses_w = name == "sssp"
        # the budget: a fraction of the plain edge bytes (4-byte ids, float32 weights), as before;
        # the floor: what must cross at least (packed ids, narrowed weights)
        edge_bytes = g.m * (g.indices.itemsize + (4 if uses_w else 0))
        budget = int(args.budget_fraction * edge_bytes)
        bpe = floor_bytes_per_edge(g, uses_w)
        if args.cpu_check:
            t = time.perf_counter()
            vals, rec, impl, _ = run_algorithm(name, g, src, {"backend": "cpu", "engine": "host"})
            cpu_vals[name] = vals
            wall = time.perf_counter() - t
            ok, why = oracle.check(name, vals, src)
            summary = record_summary(rec, bpe, pinned_bps)
            runs.append({"algorithm": name, "engine": "cpu", "impl": impl, "verified": bool(ok), "checks": [why],
                         "wall_seconds": round(wall, 3), "first_seconds": summary["seconds"], "calls": 1,
                         **{k: v for k, v in summary.items() if k != "steps"}})
            log(f"  {name:9s} cpu       {runs[-1]['seconds']:8.3f} s  {'ok' if ok else 'WRONG'} ({why})")
        plans = list(args.engines) + (["hybrid-async"] if args.asynchronous and "hybrid" in args.engines else [])
        for label in plans:
            if args.pairs and f"{name}:{label}" not in args.pairs:
                continue
            runs.append(run_plan(name, label, g, src, backend, budget, bpe, pinned_bps, args, deadline, oracle,
                                 ref_vals, cpu_vals, log))
    del oracle
    return runs


def micro_targets(g, backend, machine, args, log) -> dict:
    """The three engine targets, each on a transfer- or memory-bound edge_map."""
    from graphferry.runtime import Runtime

    out = {}
    pinned = machine["pinned_h2d_gbps"]
    budget = int(args.budget_fraction * g.m * g.indices.itemsize)
    prog = touch_program()
    # 1. filter, every partition active
    with Runtime(g, backend=backend, engine="filter", budget=budget, partition_bytes=args.partition_bytes) as rt:
        st = rt.start(prog)
        rates = []
        for _ in range(4):
            st.edge_map(rt.all_vertices(), direction="push")
            s = rt.record.steps[-1]
            rates.append(s.bytes_h2d / s.seconds / 1e9)
        out["filter_gbps"] = round(float(np.median(rates[1:])), 2)
        out["filter_copy_seconds_vs_total"] = [round(s.copy_seconds, 4) for s in rt.record.steps] + \
            [round(s.seconds, 4) for s in rt.record.steps]
    out["filter_of_pinned"] = round(out["filter_gbps"] / pinned, 3)
    # 2. zero-copy, active = vertices of high degree
    deg = g.out_degree
    zc = {}
    for t in (32, 256, 2048):
        ids = np.flatnonzero(deg >= t)
        if len(ids) == 0:
            continue
        with Runtime(g, backend=backend, engine="zerocopy", budget=budget, partition_bytes=args.partition_bytes) as rt:
            st = rt.start(prog)
            f = rt.frontier(ids)
            rates = []
            for _ in range(3):
                st.edge_map(f, direction="push")
                s = rt.record.steps[-1]
                rates.append((s.bytes_h2d / s.seconds / 1e9, s.active_edges * 4 / s.seconds / 1e9, s.seconds,
                              s.kernel_seconds, s.bytes_h2d))
        best = sorted(rates[1:])[len(rates[1:]) // 2]
        zc[f"deg>={t}"] = {"active_vertices": int(len(ids)), "active_edges": int(deg[ids].sum()),
                           "lines_bytes": int(best[4]),
                           "lines_gbps": round(best[0], 2), "edge_gbps": round(best[1], 2),
                           "seconds": round(best[2], 5), "kernel_seconds": round(best[3], 5),
                           "lines_gbps_kernel": round(best[4] / max(best[3], 1e-9) / 1e9, 2)}
    out["zerocopy_high_degree"] = zc
    if zc:
        top = zc[max(zc, key=lambda k: int(k.split(">=")[1]))]
        out["zerocopy_of_pinned"] = round(top["lines_gbps"] / pinned, 3)
    # 3. resident PageRank iteration (dense): counted bytes = edges + vertex reads/writes,
    # on the graph as generated (random ids) and relabelled by degree (HyTGraph's hub sorting)
    pr = resident_pagerank_micro(g, backend, args)
    out["resident_pagerank_iteration"] = pr
    bestdir = min(("pull", "push"), key=lambda d: pr[d]["seconds"])
    out["resident_pr_of_device"] = round(pr[bestdir]["counted_gbps"] / machine["device_copy_gbps"], 3)
    if backend.name == "cuda":
        hub = resident_pagerank_micro(degree_sorted(g), backend, args)
        out["resident_pagerank_iteration_degree_sorted"] = hub
        hubdir = min(("pull", "push"), key=lambda d: hub[d]["seconds"])
        out["resident_pr_of_device_degree_sorted"] = round(
            hub[hubdir]["counted_gbps"] / machine["device_copy_gbps"], 3)
    out["targets"] = {k: {"want": v, "got": out.get(k), "met": out.get(k) is not None and out[k] >= v}
                      for k, v in TARGETS.items()}
    log(f"  micro: filter {out['filter_gbps']} GB/s ({out['filter_of_pinned']:.0%} of pinned), "
        f"zerocopy {out.get('zerocopy_of_pinned')} of pinned, resident PR {pr[bestdir]['counted_gbps']} GB/s "
        f"({out['resident_pr_of_device']:.0%} of device copy; degree-sorted ids: "
        f"{out.get('resident_pr_of_device_degree_sorted')})")
    return out


def resident_pagerank_micro(g, backend, args) -> dict:
    """Seconds of one dense PageRank-delta edge_map on the resident engine, push and pull."""
    from graphferry.algorithms.pagerank import DELTA_PROGRAMS
    from graphferry.runtime import Runtime

    n, m = g.n, g.m
    deg = g.out_degree
    counted = m * (4 + 8) + n * (8 + 8 + 8)
    scale = np.divide(0.85, deg, out=np.zeros(n), where=deg > 0)
    pr = {"counted_bytes": counted,
          "formula": "m*(4 index + 8 vertex value) + n*(8 offset + 8 read + 8 write)"}
    for direction in ("pull", "push"):
        with Runtime(g, backend=backend, engine="resident" if backend.name == "cuda" else "host",
                     partition_bytes=args.partition_bytes) as rt:
            st = rt.start(DELTA_PROGRAMS["float64"], arrays={"resid": 1.0 / n, "scale": scale},
                          scalars={"tol": 0.0, "floor": 1.0 / n})
            st.vertex_map("emit", rt.all_vertices())
            secs = []
            for _ in range(4):
                st.edge_map(rt.all_vertices(), direction=direction)
                s = rt.record.steps[-1]
                secs.append((s.seconds, s.kernel_seconds))
        best = sorted(secs[1:])[1]
        pr[direction] = {"seconds": round(best[0], 5), "kernel_seconds": round(best[1], 5),
                         "counted_gbps": round(counted / best[0] / 1e9, 1),
                         "kernel_gbps": round(counted / best[1] / 1e9, 1)}
    return pr


def degree_sorted(g):
    """``g`` relabelled by decreasing degree (HyTGraph's hub sorting), built on the GPU.

    High-degree vertices get the smallest ids, so the values most edges gather
    sit together in a few cache lines that stay in L2.
    """
    import cupy as cp

    from graphferry.graph import Graph

    n, m = g.n, g.m
    deg = cp.asarray(g.out_degree)
    order = cp.argsort(-deg)
    rank = cp.empty(n, dtype=cp.int64)
    rank[order] = cp.arange(n, dtype=cp.int64)
    new_deg = deg[order]
    offsets = cp.zeros(n + 1, dtype=cp.int64)
    cp.cumsum(new_deg, out=offsets[1:])
    old_off = cp.asarray(g.offsets)[order]
    indices = cp.asarray(g.indices)
    out = cp.empty(m, dtype=indices.dtype)
    # the new row of each edge slot: searchsorted on the new offsets, in chunks
    step = 1 << 27
    for a in range(0, m, step):
        e = cp.arange(a, min(a + step, m), dtype=cp.int64)
        r = cp.searchsorted(offsets, e, side="right") - 1
        out[a : a + len(e)] = rank[indices[old_off[r] + (e - offsets[r])]].astype(indices.dtype)
        del e, r
    res = Graph(offsets.get(), out.get(), None, directed=False, name=f"{g.name}-degree-sorted")
    cp.get_default_memory_pool().free_all_blocks()
    return res


def warm_up(backend, args, log):
    """Compile every program once (NVRTC) on a small graph, outside the timings."""
    g, _ = kronecker(12, seed=1, cpu_generator=args.cpu_generator)
    for name in args.algorithms:
        for engine in (("resident", "zerocopy") if backend.name == "cuda" else ("host",)):
            run_algorithm(name, g, source_vertex(g), {"backend": backend, "engine": engine,
                                                       "partition_bytes": 1 << 14})
    from graphferry.runtime import Runtime

    with Runtime(g, backend=backend, engine="resident" if backend.name == "cuda" else "host") as rt:
        rt.start(touch_program()).edge_map(rt.all_vertices(), direction="push")
    log("  warm-up done (programs compiled)")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scales", type=int, nargs="+", default=[24, 25])
    ap.add_argument("--algorithms", nargs="+", default=ALGORITHMS, choices=ALGORITHMS)
    ap.add_argument("--engines", nargs="+", default=ENGINES, choices=ENGINES + OPTIONAL_ENGINES)
    ap.add_argument("--calibration", type=Path, default=None,
                    help="the hybrid places by this calibration file's figures (graphferry calibrate --out)")
    ap.add_argument("--asynchronous", action="store_true",
                    help="also run the hybrid in HyTGraph's asynchronous mode (engine label hybrid-async)")
    ap.add_argument("--budget-fraction", type=float, default=0.25)
    ap.add_argument("--partition-bytes", type=int, default=32 << 20)
    ap.add_argument("--out", default="bench/results")
    ap.add_argument("--deadline-s", type=float, default=540.0, help="stop starting runs after this many seconds")
    ap.add_argument("--run-cap-s", type=float, default=60.0, help="stop one run after this many seconds")
    ap.add_argument("--cpu-check", action="store_true", help="also run the CPU backend and compare")
    ap.add_argument("--cpu-generator", action="store_true")
    ap.add_argument("--no-micro", action="store_true")
    ap.add_argument("--pairs", nargs="+", help="only these algorithm:engine runs (e.g. wcc:filter)")
    ap.add_argument("--tag", default="", help="suffix of the result file name")
    ap.add_argument("--host-memory", default="pinned", choices=["pinned", "registered"],
                    help="where the edge arrays live on the host (see place_host_arrays)")
    ap.add_argument("--keep-steps", action="store_true", help="keep vertex_map steps in the JSON")
    ap.add_argument("--backend", default="cuda", choices=["cuda", "cpu"],
                    help="cpu: check the script's logic on a machine without a GPU")
    ap.add_argument("--report", nargs="+", help="print markdown tables for these result files and exit")
    args = ap.parse_args(argv)
    if args.report:
        print(report(args.report))
        return 0

    t_start = time.perf_counter()
    deadline = t_start + args.deadline_s

    def log(msg):
        print(f"[{time.perf_counter() - t_start:7.1f}s] {msg}", flush=True)

    from graphferry.backends import get_backend

    backend = get_backend(args.backend)
    if args.backend == "cpu":
        args.engines = [("host" if e == "resident" else e) for e in args.engines]
        args.cpu_generator = True
    machine = probe(backend)
    log(f"machine: {machine}")
    warm_up(backend, args, log)
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for scale in args.scales:
        if time.perf_counter() > deadline:
            log(f"scale {scale}: skipped (deadline)")
            break
        written.append(run_scale(scale, backend, machine, args, argv, deadline, log))
    print(report([str(p) for p in written]))
    return 0


def run_scale(scale: int, backend, machine: dict, args, argv, deadline: float, log) -> Path:
    """One Kronecker scale: the graph built and placed, every algorithm on every engine, the
    micro-targets; its results file (written after each section) returned."""
    g, info = kronecker(scale, cpu_generator=args.cpu_generator)
    log(f"scale {scale}: n={g.n} m={g.m} built in {info['build_seconds']} s")
    t = time.perf_counter()
    g = place_host_arrays(g, backend, args.host_memory)
    info["host_memory"] = args.host_memory
    info["host_memory_seconds"] = round(time.perf_counter() - t, 2)
    log(f"  edge arrays {args.host_memory} in {info['host_memory_seconds']} s")
    doc = {
        **provenance.stamp({}, ["bench/engines_bench.py", *(sys.argv[1:] if argv is None else argv)]),
        "date": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "machine": machine,
        "graph": {"name": g.name, "n": g.n, "m": g.m, "directed": g.directed,
                  "edge_bytes": g.m * g.indices.itemsize,
                  "edge_bytes_weighted": g.m * (g.indices.itemsize + 4), **info},
        "budget_bytes": int(args.budget_fraction * g.m * g.indices.itemsize),
        "budget_note": f"{args.budget_fraction:.0%} of the program's edge bytes (SSSP: indices + weights); "
                       "resident runs with the full device memory as the reference",
        "partition_bytes": args.partition_bytes,
        "seconds_note": "sum of the run record's steps (edge_map and vertex_map): excludes graph "
                        "generation, pinning the edge arrays and engine set-up; wall_seconds includes them",
        "floor_note": "per edge_map: active vertices' edge bytes / pinned_h2d_gbps; an edge priced at "
                      "packed ids and narrowed weights (floor_bytes_per_edge), as the engines' records "
                      "price it",
        "runs": [],
    }
    card = next((c for c in ("h200", "h100", "a100") if c in machine["device"].lower()), backend.name)
    path = Path(args.out) / f"engines-kron{scale}-{card}{('-' + args.tag) if args.tag else ''}.json"

    def save():
        path.write_text(json.dumps(doc, indent=1))

    doc["runs"] = bench_scale(g, info, backend, machine, args, deadline, log)
    save()
    if not args.no_micro and time.perf_counter() < deadline:
        doc["micro"] = micro_targets(g, backend, machine, args, log)
        save()
    if backend.name == "cuda" and args.host_memory == "registered":
        backend.registry.forget(g.indices)
        if g.weights is not None:
            backend.registry.forget(g.weights)
    del g
    if backend.name == "cuda":
        import cupy

        cupy.get_default_memory_pool().free_all_blocks()
        cupy.get_default_pinned_memory_pool().free_all_blocks()
    return path


# ====================================================================== report
def report(paths) -> str:
    lines = []
    for p in paths:
        doc = json.loads(Path(p).read_text())
        g, mach = doc["graph"], doc["machine"]
        lines.append(f"### {g['name']}: n={g['n']:,} m={g['m']:,} ({mach['device']}; pinned "
                     f"{mach['pinned_h2d_gbps']} GB/s, device copy {mach['device_copy_gbps']} GB/s)")
        lines.append("")
        lines.append("| algorithm | engine | seconds | iterations | s/iter | GB moved | floor s | verified |")
        lines.append("|---|---|---:|---:|---:|---:|---:|---|")
        for r in doc["runs"]:
            if "seconds" not in r:
                lines.append(f"| {r['algorithm']} | {r['engine']} | {r.get('skipped') or r.get('error')} | | | | | |")
                continue
            lines.append(f"| {r['algorithm']} | {r['engine']} | {r['seconds']:.3f} | {r['iterations']} | "
                         f"{r['seconds_per_iteration']:.4f} | {r['bytes_h2d'] / 1e9:.2f} | {r['floor_seconds']:.3f} | "
                         f"{r['verified']} |")
        micro = doc.get("micro")
        if micro:
            lines.append("")
            for k, t in micro["targets"].items():
                lines.append(f"- target {k}: want >= {t['want']:.0%}, got "
                             f"{'n/a' if t['got'] is None else format(t['got'], '.0%')} "
                             f"({'met' if t['met'] else 'missed'})")
        lines.append("")
        lines.append(transfer_table(doc))
        lines.append("")
        lines.append(prefer_table(doc))
    return "\n".join(lines)


def transfer_table(doc) -> str:
    """HyTGraph's Table VI for our engines: edge bytes moved host-to-device over the program's edge
    volume (m times the bytes per edge: SSSP's include the weights), per algorithm and engine; the
    hybrid's state exchange with its CPU executor (both ways) apart, in the same unit.

    Example:
        >>> doc = {"graph": {"m": 10, "edge_bytes": 40, "edge_bytes_weighted": 80}, "runs": [
        ...     {"algorithm": "sssp", "engine": "filter", "bytes_h2d": 200, "state_bytes": 0},
        ...     {"algorithm": "sssp", "engine": "hybrid", "bytes_h2d": 40, "state_bytes": 8}]}
        >>> print(transfer_table(doc))
        Transfer volume / edge volume (HyTGraph Table VI):
        <BLANKLINE>
        | algorithm | filter | hybrid |
        |---|---:|---:|
        | sssp | 2.50x | 0.50x (+0.10x state) |
    """
    g = doc["graph"]
    engines, rows = [], {}
    for r in doc["runs"]:
        if "bytes_h2d" not in r or r["engine"] in ("resident", "host", "cpu"):
            continue
        volume = g["edge_bytes_weighted"] if r["algorithm"] == "sssp" else g["edge_bytes"]
        cell = f"{r['bytes_h2d'] / volume:.2f}x"
        if r.get("state_bytes"):
            cell += f" (+{r['state_bytes'] / volume:.2f}x state)"
        rows.setdefault(r["algorithm"], {})[r["engine"]] = cell
        if r["engine"] not in engines:
            engines.append(r["engine"])
    if not rows:
        return ""
    out = ["Transfer volume / edge volume (HyTGraph Table VI):", "",
           "| algorithm | " + " | ".join(engines) + " |", "|---|" + "---:|" * len(engines)]
    for alg, cells in rows.items():
        out.append(f"| {alg} | " + " | ".join(cells.get(e, "") for e in engines) + " |")
    return "\n".join(out)


def prefer_table(doc) -> str:
    """Per algorithm and edge_map iteration, the fastest out-of-memory engine (HyTGraph Fig. 3)."""
    out = []
    by = {}
    for r in doc["runs"]:
        if "steps" in r and "seconds" in r:
            by.setdefault(r["algorithm"], {})[r["engine"]] = [s for s in r["steps"] if s["op"] == "edge_map"]
    for alg, engines in by.items():
        cands = [e for e in ("filter", "compaction", "zerocopy", "unified") if e in engines]
        if not cands:
            continue
        n_it = min(len(engines[e]) for e in cands)
        out.append(f"{alg} per iteration (active-edge share, fastest engine, its seconds vs floor):")
        m = doc["graph"]["m"]
        cells = []
        for i in range(n_it):
            best = min(cands, key=lambda e: engines[e][i]["seconds"])
            s = engines[best][i]
            cells.append(f"{i}:{s['active_edges'] / m:.0%}:{best[0].upper()}:{s['seconds']:.3f}/{s['floor_seconds']:.3f}")
        out.append("  " + "  ".join(cells))
    return "\n".join(out)


if __name__ == "__main__":
    sys.exit(main())
