"""The CUDA backend gives the CPU backend's results for every algorithm x every engine, and every
GPU result passes the algorithm's own verifier (the CPU backend compiles the same program text, so
agreeing with it alone would not catch a wrong program).

Marked ``gpu``: skipped where CuPy or a GPU is missing (conftest). Budgets and
partition sizes are tiny, so even small graphs are split into many partitions
and every engine path (double-buffered copies, compaction, zero-copy, managed
memory) runs; a hub graph sends rows through the warp, block and grid-wide
kernels. LDBC graphs are read from ``$GRAPHFERRY_SHARED/conformance/ldbc/graphs``
when present. The one unmarked test checks that ``import graphferry`` needs no CuPy.
"""

from __future__ import annotations

import importlib
import inspect
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import LDBC_GRAPHS

from graphferry import Graph
from graphferry.engines import registry

CUDA_ENGINES = list(registry.names_where(on_device=True, schedules=False))   # every device engine
ALGORITHMS = ["bfs", "sssp", "pagerank", "wcc", "cdlp", "lcc", "triangle_count"]
gpu = pytest.mark.gpu


def test_import_without_cupy():
    code = ("import sys; sys.modules['cupy'] = None; sys.modules['cuda'] = None\n"
            "import graphferry, graphferry.algorithms, graphferry.runtime, graphferry.engines.registry\n"
            "from graphferry.backends import cuda_available, get_backend\n"
            "assert not cuda_available() and get_backend('auto').name == 'cpu'\n")
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2] / "src"))
    subprocess.run([sys.executable, "-c", code], check=True, env=env)


# ------------------------------------------------------------------ helpers
def algorithm(name: str):
    """The algorithm function, or skip when its file has not landed."""
    import graphferry.algorithms as alg

    try:
        return alg.get(name)
    except (ModuleNotFoundError, AttributeError, ValueError, ImportError) as e:
        pytest.skip(f"algorithm {name} not available: {e}")


def call(name: str, g: Graph, source: int, **opts):
    fn = algorithm(name)
    params = inspect.signature(fn).parameters
    args = (source,) if "source" in params else ()
    if name == "cdlp":
        opts.setdefault("max_iterations", 5)
    if name == "pagerank":
        opts.setdefault("max_iterations", 1000)   # converge, so the documented error bound applies
    return fn(g, *args, **opts)


def cuda_options(engine: str, budget: int = 256 * 1024, partition_bytes: int = 512) -> dict:
    return {"backend": "cuda", "engine": engine, "partition_bytes": partition_bytes,
            "budget": None if engine == "resident" else budget}


def assert_same(name: str, ref, got) -> None:
    for key, want in ref.values.items():
        have = got.values[key]
        assert have.shape == want.shape, (name, key)
        if "parent" in key:        # BFS parent trees are not unique; checked by the verifier
            continue
        if np.issubdtype(want.dtype, np.floating):
            fin = np.isfinite(want)
            assert np.array_equal(fin, np.isfinite(have)), (name, key, "finite entries differ")
            np.testing.assert_allclose(have[fin], want[fin], rtol=1e-6, atol=1e-12, err_msg=f"{name}.{key}")
        else:
            if name == "wcc":       # any labelling inducing the same partition is right
                from graphferry.algorithms.wcc import same_partition

                assert same_partition(have, want), (name, key)
            else:
                assert np.array_equal(have, want), (name, key, np.flatnonzero(have != want)[:10])


PR_TOL = 1e-6   # pagerank's default tol, which call() uses


def verify(name: str, g: Graph, source: int, r) -> None:
    """Check a GPU result with the algorithm's own verifier (independent of the framework and of
    the CPU backend, which compiles the same program text). ``source`` is an internal id."""
    if name == "bfs":
        from graphferry.algorithms.bfs import verify_bfs

        verify_bfs(g, source, r.levels, r.parents)
    elif name == "sssp":
        from graphferry.algorithms.sssp import verify_sssp

        verify_sssp(g, source, r.distances)
    elif name == "wcc":
        from graphferry.algorithms.wcc import verify_wcc

        verify_wcc(g, r.labels)
    elif name == "pagerank":
        from graphferry.algorithms.pagerank import pagerank_reference

        assert r.converged
        # the documented L1 bound at tol: 4 d / (1 - d) * tol
        err = np.abs(r.ranks - pagerank_reference(g, 0.85)).sum()
        assert err <= 4 * 0.85 / 0.15 * PR_TOL, f"pagerank L1 error {err:.2e}"
    elif name == "cdlp":
        from graphferry.algorithms.cdlp import verify_cdlp

        verify_cdlp(g, r.labels, 5)     # call() runs 5 iterations
    elif name == "lcc":
        from graphferry.algorithms.lcc import verify_lcc

        verify_lcc(g, r.lcc)
    elif name == "triangle_count":
        from graphferry.algorithms.triangles import verify_triangles

        verify_triangles(g, r.triangles, r.total)
    else:
        raise ValueError(f"no verifier for {name}")


def random_graph(n: int, m: int, seed: int, directed: bool) -> Graph:
    rng = np.random.default_rng(seed)
    w = rng.integers(1, 20, m).astype(np.float32)
    return Graph.from_edges(rng.integers(0, n, m), rng.integers(0, n, m), w, n=n, directed=directed)


def hub_graph(seed: int = 7, directed: bool = True) -> Graph:
    """A hub of degree 36000 and rows of 3000-9000 (grid-wide work items), rows of 300-1500
    (block rows), of 40-200 (warp rows) and a random rest (thread rows)."""
    rng = np.random.default_rng(seed)
    n = 40_000
    parts_s, parts_d = [np.zeros(36_000, np.int64)], [rng.choice(n, 36_000, replace=False)]
    sizes = {1: (3000, 9000), 2: (3000, 9000), 3: (3000, 9000), 4: (300, 1500), 5: (300, 1500),
             6: (300, 1500), 7: (40, 200), 8: (40, 200), 9: (40, 200), 10: (40, 200)}
    for h, (lo, hi) in sizes.items():
        k = int(rng.integers(lo, hi))
        parts_s.append(np.full(k, h))
        parts_d.append(rng.choice(n, k, replace=False))
    parts_s.append(rng.integers(0, n, 60_000))
    parts_d.append(rng.integers(0, n, 60_000))
    src, dst = np.concatenate(parts_s), np.concatenate(parts_d)
    w = rng.integers(1, 9, len(src)).astype(np.float32)
    return Graph.from_edges(src, dst, w, n=n, directed=directed, drop_duplicates=True)


_CPU_CACHE: dict = {}


def cpu_reference(name: str, key: str, g: Graph, source: int):
    k = (name, key)
    if k not in _CPU_CACHE:
        _CPU_CACHE[k] = call(name, g, source, backend="cpu", engine="host")
    return _CPU_CACHE[k]


RANDOM = [(60, 300, 1, True), (120, 900, 2, False), (200, 1500, 3, True), (90, 40, 4, True),
          (1, 0, 5, True), (300, 3000, 6, False)]


# ------------------------------------------------------------------ algorithms x engines
@gpu
@pytest.mark.parametrize("engine", CUDA_ENGINES)
@pytest.mark.parametrize("name", ALGORITHMS)
def test_random_graphs_match_cpu(name, engine):
    for n, m, seed, directed in RANDOM:
        g = random_graph(n, m, seed, directed)
        ref = cpu_reference(name, f"random-{seed}", g, 0)
        got = call(name, g, 0, **cuda_options(engine, budget=64 * 1024, partition_bytes=256))
        assert_same(name, ref, got)
        verify(name, g, 0, got)


@gpu
@pytest.mark.parametrize("engine", CUDA_ENGINES)
@pytest.mark.parametrize("name", ["bfs", "sssp", "pagerank", "wcc"])
@pytest.mark.parametrize("directed", [True, False])
def test_hub_graph_matches_cpu(name, engine, directed):
    g = hub_graph(directed=directed)
    ref = cpu_reference(name, f"hub-{directed}", g, 0)
    got = call(name, g, 0, **cuda_options(engine, budget=8 << 20, partition_bytes=16 << 10))
    assert_same(name, ref, got)
    verify(name, g, 0, got)


@gpu
@pytest.mark.parametrize("name", ["bfs", "sssp", "pagerank", "wcc"])
def test_block_rows_of_narrow_launches(name):
    """The copy engines' and the hybrid's launches over a few active rows are narrow: their rows of
    300-1500 edges go to the grid-wide kernel (CudaProgram._edge), beside the heavier ones."""
    g = hub_graph(seed=11, directed=False)
    ref = cpu_reference(name, "hub11", g, 0)
    for engine in ("filter", "compaction", "hybrid"):
        got = call(name, g, 0, **cuda_options(engine, budget=1 << 20, partition_bytes=16 << 10))
        assert_same(name, ref, got)
        verify(name, g, 0, got)


@gpu
@pytest.mark.parametrize("direction", ["push", "pull"])
def test_bfs_directions_on_hub_graph(direction):
    g = hub_graph(seed=3)
    ref = cpu_reference("bfs", "hub3", g, 0)
    for engine in CUDA_ENGINES:
        got = call("bfs", g, 0, direction=direction, **cuda_options(engine, budget=8 << 20, partition_bytes=16 << 10))
        assert np.array_equal(got.levels, ref.levels), engine
        verify("bfs", g, 0, got)


def _ldbc_graph(stem: Path) -> tuple[Graph, dict]:
    props = {}
    for line in stem.with_suffix(".properties").read_text().splitlines():
        if "=" in line and not line.lstrip().startswith("#"):
            k, v = line.split("=", 1)
            props[k.strip().split(".", 2)[-1]] = v.strip()
    vids = np.loadtxt(stem.with_suffix(".v"), dtype=np.int64, ndmin=1)
    e = np.loadtxt(stem.with_suffix(".e"), ndmin=2)
    order = np.sort(vids)
    src = np.searchsorted(order, e[:, 0].astype(np.int64))
    dst = np.searchsorted(order, e[:, 1].astype(np.int64))
    w = e[:, 2].astype(np.float32) if e.shape[1] > 2 else None
    g = Graph.from_edges(src, dst, w, n=len(order), directed=props.get("directed", "true") == "true",
                         name=stem.name)
    g.original_ids = order
    return g, props


def _ldbc_cases():
    if not LDBC_GRAPHS.is_dir():
        return []
    cases = []
    which = {"bfs": "bfs", "sssp": "sssp", "pr": "pagerank", "wcc": "wcc", "cdlp": "cdlp", "lcc": "lcc"}
    for e in sorted(LDBC_GRAPHS.glob("*.e")):
        stem = e.with_suffix("")
        parts = stem.name.split("-")
        names = list(which.values()) if parts[0] == "example" else [which.get(parts[1], parts[1])]
        cases += [(stem, name) for name in names]
    return cases


@gpu
@pytest.mark.parametrize("stem,name", _ldbc_cases(), ids=lambda x: getattr(x, "name", x))
def test_ldbc_graphs_match_cpu(stem, name):
    g, props = _ldbc_graph(stem)
    key = "bfs.source-vertex" if name == "bfs" else "sssp.source-vertex"
    source = int(props.get(key, g.original_ids[0]))     # an id of the input
    if name == "sssp" and g.weights is None:
        pytest.skip("unweighted")
    ref = call(name, g, source, backend="cpu", engine="host")
    for engine in CUDA_ENGINES:
        got = call(name, g, source, **cuda_options(engine, budget=64 * 1024, partition_bytes=128))
        assert_same(name, ref, got)
        verify(name, g, g.to_internal_id(source), got)


# ------------------------------------------------------------------ kernels directly
@gpu
@pytest.mark.parametrize("form", ["atomic", "serial", "fold"])
def test_pull_kernels_own_each_row(form):
    """A sum over in-edges: exact in int64, through thread, warp (serial, atomic or summed partial
    folds), block and grid rows; over every vertex and over a frontier (sources filtered)."""
    from graphferry.runtime import Program, Runtime

    src = "GF_FN bool cond(const State& S, vid_t d) { return true; }\n" \
          "GF_FN bool update(const State& S, vid_t s, vid_t d, float w) { S.acc[d] += S.val[s] * (int64_t)w; return true; }\n"
    if form != "serial":
        src += "GF_FN bool update_atomic(const State& S, vid_t s, vid_t d, float w) " \
               "{ gf_atomic_add(&S.acc[d], S.val[s] * (int64_t)w); return true; }\n"
    if form == "fold":
        src += "GF_FN int64_t pull_begin(const State& S, vid_t d) { return S.acc[d]; }\n" \
               "GF_FN void pull_fold(const State& S, int64_t& a, vid_t s, vid_t d, float w) { a += S.val[s] * (int64_t)w; }\n" \
               "GF_FN bool pull_end(const State& S, vid_t d, int64_t a) { S.acc[d] = a; return true; }\n" \
               "GF_FN bool pull_merge(const State& S, vid_t d, int64_t a) { gf_atomic_add(&S.acc[d], a); return true; }\n"
    prog = Program(f"insum_{form}", arrays={"acc": "int64", "val": "int64"}, uses_weights=True, source=src,
                   combine="sum" if form == "fold" else None)
    assert prog.pull_reduces == (form == "fold")
    g = hub_graph(seed=11).transpose()     # the hub now has a huge in-degree
    rng = np.random.default_rng(1)
    val = rng.integers(-1000, 1000, g.n)
    start = rng.integers(-50, 50, g.n)        # pull_begin's value: a fold adds to it
    s, d = g.edges()
    active = np.flatnonzero(rng.random(g.n) < 0.5)
    for sources in (None, active):
        keep = np.ones(len(s), bool) if sources is None else np.isin(s, sources)
        want = start.copy()
        np.add.at(want, d[keep], val[s[keep]] * g.weights[keep].astype(np.int64))
        changed = np.unique(d[keep])
        for engine in CUDA_ENGINES:
            with Runtime(g, backend="cuda", engine=engine, budget=None if engine == "resident" else 8 << 20,
                         partition_bytes=16 << 10) as rt:
                st = rt.start(prog, arrays={"acc": start, "val": val})
                frontier = rt.all_vertices() if sources is None else rt.frontier(sources)
                out = st.edge_map(frontier, direction="pull")
                assert np.array_equal(st.host("acc"), want), (engine, sources is None)
                assert np.array_equal(np.sort(out.host_ids()), changed), (engine, sources is None)


@gpu
def test_vertex_and_neighbor_kernels():
    from graphferry.runtime import Program, Runtime

    prog = Program("vn", arrays={"x": "int64", "deg": "int64"}, vertex_functions=("bump",),
                   neighbor_functions=("count",), source="""
GF_FN bool bump(const State& S, vid_t v) { S.x[v] += v; return (v & 1) == 0; }
GF_FN bool count(const State& S, const GfGraph& G, const GfGraph& GT, vid_t v) {
    S.deg[v] = G.degree(v) + 1000 * GT.degree(v); return G.degree(v) > 2; }
""")
    g = random_graph(500, 3000, 9, True)
    with Runtime(g, backend="cuda", engine="zerocopy") as rt:
        st = rt.start(prog, arrays={"x": 1})
        f = st.vertex_map("bump")
        assert np.array_equal(st.host("x"), 1 + np.arange(g.n))
        assert np.array_equal(f.host_ids(), np.arange(0, g.n, 2))
        f2 = st.vertex_map("bump", rt.frontier([3, 5, 8]))
        assert np.array_equal(f2.host_ids(), [8])
        nb = st.neighbor_map("count")
        assert np.array_equal(st.host("deg"), g.out_degree + 1000 * g.in_degree)
        assert np.array_equal(nb.host_ids(), np.flatnonzero(g.out_degree > 2))


# ------------------------------------------------------------------ memory and bitmaps
@gpu
def test_bitmaps_match_cpu():
    from graphferry.backends import get_backend

    cpu, cuda = get_backend("cpu"), get_backend("cuda")
    rng = np.random.default_rng(0)
    for n in (1, 31, 32, 33, 1000, 100_003):
        ids = np.unique(rng.integers(0, n, max(1, n // 3)))
        bits = cuda.bits_from_ids(cuda.asarray(ids), n)
        assert np.array_equal(cuda.to_host(bits), cpu.bits_from_ids(ids, n))
        assert np.array_equal(cuda.to_host(cuda.ids_from_bits(bits, n)), ids)
        assert cuda.popcount(bits) == len(ids)
        for dtype in (np.int64, np.int32):  # a frontier's size and edges straight from its bitmap
            deg = rng.integers(0, 1 << 20, n).astype(dtype)
            assert cuda.bits_degree_sum(bits, cuda.asarray(deg), n) == (len(ids), int(deg[ids].sum()))


@gpu
def test_partition_counts_kernel_equals_a_plain_loop():
    # the fused kernel: shared counters (few partitions), global ones (2000), warps in one partition
    # and warps across several, two arrays per row or one
    from partition_counts import partition_counts_cases, partition_counts_oracle

    from graphferry.backends import get_backend

    cuda = get_backend("cuda")
    for ids, offsets, bounds, sizes in partition_counts_cases():
        got = cuda.partition_counts(cuda.asarray(ids), cuda.asarray(offsets), cuda.asarray(bounds), sizes)
        assert np.array_equal(got, partition_counts_oracle(ids, offsets, bounds, sizes)), (len(ids), len(bounds))


@gpu
def test_dense_partition_stats_on_the_device_equal_the_hosts():
    # a side's every-row statistics, counted by the kernel over all vertices, are numpy's
    from graphferry.backends import get_backend
    from graphferry.engines.base import EdgeSide
    from graphferry.generators import kronecker_graph
    from graphferry.scheduler.stats import dense_stats

    g = kronecker_graph(12, seed=3, weighted=True)
    for weights in (False, True):
        host = dense_stats(EdgeSide.of(g, partition_bytes=4096, use_weights=weights))
        dev = dense_stats(EdgeSide.of(g, partition_bytes=4096, use_weights=weights), get_backend("cuda"))
        for a in ("active_vertices", "active_edges", "lines"):
            assert np.array_equal(getattr(dev, a), getattr(host, a)), a


@gpu
def test_copies_from_pageable_pinned_registered_and_mapped():
    import cupy

    from graphferry.backends import get_backend

    b = get_backend("cuda")
    rng = np.random.default_rng(2)
    big = rng.integers(0, 2**31 - 1, (150 << 20) // 4, dtype=np.int32)   # > one staging buffer
    for src in (big[: 1 << 10], big, big[5:-7]):
        dst = cupy.empty(src.shape, src.dtype)
        b.copy_h2d(dst, src)
        b.synchronize()
        assert np.array_equal(cupy.asnumpy(dst), src)
    pinned = b.pinned_empty(1 << 20, np.int32)
    pinned[:] = np.arange(1 << 20)
    dst = cupy.empty(1 << 20, np.int32)
    tok = b.copy_h2d(dst, pinned)
    b.host_wait(tok)
    assert np.array_equal(cupy.asnumpy(dst), pinned)
    assert b.register_host(big)
    dst = cupy.empty(big.shape, big.dtype)
    b.copy_h2d(dst, big, after=b.record())
    b.synchronize()
    assert np.array_equal(cupy.asnumpy(dst), big)
    view = b.host_view(big)
    assert b.is_mapped(view) and int(view[12345]) == int(big[12345]) and int(view.sum()) == int(big.astype(np.int64).sum())
    small = np.arange(10, dtype=np.int64)
    sv = b.host_view(small)
    assert b.is_mapped(sv) and np.array_equal(cupy.asnumpy(sv * 2), small * 2)
    copy_s, kernel_s = b.take_device_times()
    assert copy_s > 0
    b.registry.forget(big)


@gpu
def test_a_copy_into_memory_the_pool_hands_out_again_waits_for_the_kernel_still_reading_it():
    """A buffer freed on the compute stream while a kernel still reads it comes back from CuPy's
    pool at once; a copy into the new buffer (on the copy stream, no token) must not overwrite
    what the running kernel reads. The GPU suite's illegal addresses under load (session 22) were
    this: a hybrid round's copy landing in a dropped block's memory under a running edge kernel."""
    import cupy

    from graphferry.backends import get_backend

    b = get_backend("cuda")
    n = 1 << 20
    slow_copy = cupy.RawKernel(r"""
    extern "C" __global__ void slow_copy(const int* src, int* dst, long long n, long long spin) {
        long long t0 = clock64();
        while (clock64() - t0 < spin) {}
        for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
            dst[i] = src[i];
    }""", "slow_copy")
    # the source pinned and the copy path used once before: a first pinned allocation
    # (cudaHostAlloc) waits for the device, which would hide the race
    src = b.pinned_empty(n, np.int32)
    src[:] = -1
    b.copy_h2d(cupy.empty(n, dtype=cupy.int32), src)
    old = cupy.arange(n, dtype=cupy.int32)
    out = cupy.empty(n, dtype=cupy.int32)
    b.synchronize()
    slow_copy((64,), (256,), (old, out, np.int64(n), np.int64(1_000_000_000)))   # ~0.5 s of spinning first
    ptr = old.data.ptr
    del old   # back to the pool while the kernel has not read it yet
    new = cupy.empty(n, dtype=cupy.int32)
    if new.data.ptr != ptr:
        pytest.skip("CuPy's pool did not hand the freed memory out again")
    b.copy_h2d(new, src)
    b.synchronize()
    assert np.array_equal(cupy.asnumpy(out), np.arange(n, dtype=np.int32))


@gpu
def test_run_record_has_device_times():
    g = random_graph(300, 3000, 6, False)
    r = call("bfs", g, 0, **cuda_options("filter", budget=64 * 1024, partition_bytes=256))
    steps = r.record.edge_steps
    assert steps and all(s.kernel_seconds > 0 for s in steps)
    assert sum(s.copy_seconds for s in steps) > 0
    assert r.record.bytes_h2d > 0


@gpu
def test_unified_refuses_more_managed_memory_than_free(monkeypatch):
    from graphferry.backends import get_backend
    from graphferry.errors import DeviceMemoryError

    b = get_backend("cuda")
    g = random_graph(200, 2000, 8, True)
    monkeypatch.setattr(b, "free_device_bytes", lambda: 1000)
    with pytest.raises(DeviceMemoryError, match="managed memory"):
        call("bfs", g, 0, **cuda_options("unified"))
    monkeypatch.setattr(b, "allow_managed_oversubscription", True)   # explicit opt-in (tiny: safe)
    r = call("bfs", g, 0, **cuda_options("unified"))
    assert np.array_equal(r.levels, cpu_reference("bfs", "random-8", g, 0).levels)
    verify("bfs", g, 0, r)


@gpu
def test_unified_evicts_past_its_budget():
    from graphferry.runtime import Runtime

    g = random_graph(3000, 60_000, 12, True)
    with Runtime(g, backend="cuda", engine="unified", budget=64 << 10, partition_bytes=16 << 10) as rt:
        side, eng = rt.side("push", False)
        st = rt.start(importlib.import_module("graphferry.algorithms.bfs").PROGRAM,
                      arrays={"parent": np.full(g.n, -1, g.indices.dtype), "level": -1})
        st.edge_map(rt.all_vertices(), direction="push")
        real = eng._real
        assert real.prefetched_bytes > 0 and real.evicted_bytes > 0
        assert real._used <= 64 << 10
