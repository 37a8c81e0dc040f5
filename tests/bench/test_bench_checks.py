"""The benchmarks' answer checks reject wrong answers, and every peer's answer passes them.

A benchmark whose check accepts anything reports times of wrong answers: the python-graphblas
WCC peer once labelled every non-isolated vertex 1 (its semiring took the edge value), and the
engines benchmark's WCC check accepted "every vertex labelled 0". These tests feed the checks
such answers, and run the CPU peers benchmark on a tiny graph with whatever peers are installed.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from graphferry import Graph

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import cpu_peers_bench  # noqa: E402
import engines_bench  # noqa: E402


@pytest.fixture(scope="module")
def kron10():
    from graphferry.generators import kronecker_graph

    return kronecker_graph(10, weighted=True, seed=1)


@pytest.mark.slow  # every engine on Kronecker 10, then its mutants: 12 s on 2 cores
def test_engines_oracle_rejects_merged_components_and_loose_ranks(kron10):
    from graphferry.algorithms import bfs, pagerank, sssp, wcc

    g = kron10
    o = engines_bench.Oracle(g)
    src = engines_bench.source_vertex(g)
    labels = wcc(g, backend="cpu").labels
    assert o.check("wcc", {"labels": labels}, src)[0]
    comps = np.unique(labels)
    merged = np.where(labels == comps[1], comps[0], labels)
    split = labels.copy()
    split[np.flatnonzero(labels == labels[src])[-1]] = g.n - 1 if labels[src] != g.n - 1 else 0
    for bad in (np.zeros(g.n, np.int64), merged, split):
        assert not o.check("wcc", {"labels": bad}, src)[0]
    r = pagerank(g, tol=engines_bench.PR_TOL, max_iterations=engines_bench.PR_MAX_ITERATIONS, backend="cpu")
    assert o.check("pagerank", {"rank": r.ranks, "converged": True}, src)[0]
    assert not o.check("pagerank", {"rank": r.ranks, "converged": False}, src)[0]
    assert not o.check("pagerank", {"rank": np.full(g.n, 1 / g.n), "converged": True}, src)[0]
    levels = bfs(g, src, backend="cpu").levels
    assert o.check("bfs", {"levels": levels}, src)[0]
    deeper = levels.copy()
    deeper[np.flatnonzero(levels == levels.max())[0]] += 1
    assert not o.check("bfs", {"levels": deeper}, src)[0]
    dist = sssp(g, src, backend="cpu").distances
    assert o.check("sssp", {"dist": dist}, src)[0]
    far = dist.copy()
    far[np.flatnonzero(np.isfinite(dist) & (dist > 0))[0]] += 1
    assert not o.check("sssp", {"dist": far}, src)[0]


def test_cpu_peers_oracle_rejects_wrong_answers(kron10):
    from graphferry import Graph

    # two copies side by side: at least two components with edges, as large Kronecker graphs have
    s, d = kron10.edges()
    n = kron10.n
    g = Graph.from_edges(np.r_[s, s + n], np.r_[d, d + n], n=2 * n)
    src = int(np.argmax(g.out_degree))
    o = cpu_peers_bench.Oracle(g, src)
    wcc = o.get("wcc")
    one = np.where(g.out_degree > 0, 1, np.arange(g.n))   # the old graphblas peer's answer
    assert o.check("wcc", wcc)[0] and not o.check("wcc", one)[0]
    bfs = o.get("bfs")
    assert o.check("bfs", bfs)[0] and not o.check("bfs", np.where(bfs > 2, bfs + 1, bfs))[0]
    ranks = o.get("pagerank")
    ok, why = o.check("pagerank", ranks["dropped"])
    assert ok and "dropped" in why
    assert not o.check("pagerank", ranks["spread"] * (1 + 1e-9))[0]
    assert not o.check("triangles", o.get("triangles") - 1)[0]


def test_cpu_peers_bench_verifies_every_installed_peer(tmp_path, monkeypatch):
    peers = [p for p, mod in (("graphblas", "graphblas"), ("networkit", "networkit"), ("scipy", "scipy"))
             if __import__("importlib").util.find_spec(mod) is not None]
    out = tmp_path / "peers.json"
    monkeypatch.setattr(sys, "argv", ["cpu_peers_bench.py", "--scale", "9", "--repeat", "1", "--threads", "1",
                                      "--peers", ",".join(peers), "--out", str(out)])
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    assert cpu_peers_bench.main() == 0
    import json

    runs = json.loads(out.read_text())["runs"]
    assert {r["engine"] for r in runs} == {"cpu"} | {f"peer:{p}" for p in peers}
    assert all(r["verified"] for r in runs), [(r["algorithm"], r["engine"], r["checks"]) for r in runs
                                               if not r["verified"]]


def test_hytgraph_text_writer_writes_every_edge_as_the_csr_holds_it(tmp_path, kron10):
    """The peers benchmark writes HyTGraph's market_big text from numpy digit arrays (zero-padded,
    chunked): read back, the lines are the CSR's edges in order, with their weights."""
    import peers_bench

    path = peers_bench.write_hytgraph(kron10, tmp_path / "g", chunk=1000)  # several chunks, rows across them
    back = np.loadtxt(path, dtype=np.int64, ndmin=2)
    src, dst = kron10.edges()
    assert back.shape == (kron10.m, 3)
    assert np.array_equal(back[:, 0], src) and np.array_equal(back[:, 1], dst)
    assert np.array_equal(back[:, 2], np.rint(kron10.weights).astype(np.int64))


@pytest.mark.parametrize("width", range(1, 11))
def test_decimal_digits_by_pairs_equal_python_formatting(width):
    """The text writer's digits come two at a time from a table: every width, odd and even."""
    import peers_bench

    rng = np.random.default_rng(width)
    values = np.concatenate([[0, 10 ** width - 1], rng.integers(0, 10 ** width, 500)]).astype(np.int64)
    got = [bytes(row).decode() for row in peers_bench._digits(values, width)]
    assert got == [str(v).zfill(width) for v in values]


@pytest.mark.parametrize("odd", [False, True])
def test_galois_gr_writer_holds_the_csr(tmp_path, odd):
    """HyTGraph's binary input (Galois .gr, version 1), read back field by field: the header, each
    node's end offset, the targets, the padding an odd edge count needs, the integer weights."""
    import peers_bench

    rng = np.random.default_rng(5)
    n, m = 50, 301 if odd else 300
    g = Graph.from_edges(rng.integers(0, n, m), rng.integers(0, n, m), rng.integers(1, 256, m).astype(np.float32),
                         n=n, drop_duplicates=False)
    raw = peers_bench.write_galois_gr(g, tmp_path / "g").read_bytes()
    head = np.frombuffer(raw[:32], np.uint64)
    assert head.tolist() == [1, 4, n, g.m] and g.m % 2 == int(odd)
    at = 32
    ends = np.frombuffer(raw[at:at + 8 * n], np.uint64)
    at += 8 * n
    targets = np.frombuffer(raw[at:at + 4 * g.m], np.uint32)
    at += 4 * g.m + 4 * (g.m % 2)
    weights = np.frombuffer(raw[at:], np.uint32)
    assert np.array_equal(ends, g.offsets[1:]) and np.array_equal(targets, g.indices)
    assert np.array_equal(weights, np.rint(g.weights).astype(np.uint32))


def test_the_floor_prices_an_edge_as_the_engines_move_it():
    """engines_bench's floor: ids at ceil(log2 n) bits (int32 ids), weights at their narrowed width."""
    rng = np.random.default_rng(2)
    g = Graph.from_edges(rng.integers(0, 1024, 500), rng.integers(0, 1024, 500),
                         rng.integers(1, 256, 500).astype(np.float32), n=1024)
    assert engines_bench.floor_bytes_per_edge(g, weighted=False) == 10 / 8
    assert engines_bench.floor_bytes_per_edge(g, weighted=True) == 10 / 8 + 1
    wide = Graph.from_edges([0, 1], [1, 2], np.array([0.5, 300], np.float32), n=3)
    assert engines_bench.floor_bytes_per_edge(wide, weighted=True) == 2 / 8 + 4


def test_hytgraph_ranks_are_read_back_and_measured_against_the_fixed_point(tmp_path, kron10):
    """HyTGraph's PageRank output (``-print_ranks -norm``: two header lines, then ``vertex rank``
    sorted by rank, printed with %e, trailing edgeless vertices absent) is read into a rank vector;
    its L1 distance to the converged ranks is what the peers benchmark records beside ours."""
    import peers_bench

    from graphferry.algorithms.pagerank import pagerank, pagerank_reference

    ref = pagerank_reference(kron10, 0.85)
    kept = int(np.flatnonzero(np.diff(kron10.offsets))[-1]) + 1  # HyTGraph's vertex count
    order = np.argsort(-ref[:kept], kind="stable")
    lines = ["ALPHA 8.500000e-01 EPSILON 1.000000e-02", f"RANKS 1--{kept} of {kept}"]
    lines += [f"{v} {ref[v] / ref[:kept].sum():.6e}" for v in order]
    path = tmp_path / "hyt-pagerank-delta.out"
    path.write_text("\n".join(lines) + "\n")
    back = peers_bench.read_hytgraph_ranks(path, kron10.n)
    assert len(back) == kron10.n and np.all(back[kept:] == 0)
    np.testing.assert_allclose(back[:kept], ref[:kept] / ref[:kept].sum(), rtol=1e-6)
    assert peers_bench.pagerank_l1(back, ref) < 1e-5 + 2 * ref[kept:].sum()
    # the delta form's check measures the same distance, against the same fixed point
    checker = peers_bench.Checker(kron10, 0)
    ours = pagerank(kron10, damping=0.85, tol=0.01, backend="cpu").ranks
    ok, how = checker.check("pagerank-delta", {"rank": ours})
    assert ok and how.startswith("L1 ") and float(how.split()[1]) == pytest.approx(peers_bench.pagerank_l1(ours, ref), rel=1e-3)
    uniform = np.full(kron10.n, 1.0 / kron10.n)  # far from the ranks: beyond the documented bound
    assert not checker.check("pagerank-delta", {"rank": uniform})[0]


@pytest.mark.gpu
def test_engines_oracle_counts_components_on_the_device_as_scipy_does():
    # the GPU oracle counts components with its own kernels (scipy's undirected count built
    # the transpose of Kronecker 26 for minutes); the count must equal scipy's, on a graph of
    # many components (Kronecker: isolated vertices) and on two copies side by side
    import scipy.sparse.csgraph as cg

    from graphferry.generators import kronecker_graph

    g = kronecker_graph(12, seed=3)
    n = g.n
    two = Graph(np.concatenate([g.offsets, g.offsets[1:] + g.m]), np.concatenate([g.indices, g.indices + n]),
                directed=False)
    for graph in (g, two):
        o = engines_bench.Oracle(graph)
        assert o.where == "CUDA oracle kernels"
        want = cg.connected_components(graph.to_scipy(), directed=False)[0]
        assert o.components() == want


@pytest.mark.gpu
def test_engines_oracle_power_steps_on_the_device_equal_a_scipy_power_iteration():
    # the GPU oracle's PageRank step gives each thread a run of edges, not a row (a hub's row
    # on one thread took 0.65 s a step at Kronecker 26): its references must still be the
    # power iteration's, here scipy's matrix-vector products with the sinks' rank spread
    import scipy.sparse as sp

    from graphferry.generators import kronecker_graph

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
    import peers_bench

    g = kronecker_graph(12, seed=5)  # isolated vertices: sinks, and runs of empty rows
    n, d = g.n, 0.85
    deg = np.diff(g.offsets).astype(np.float64)
    a = sp.csr_array((np.ones(g.m), g.indices, g.offsets), shape=(n, n))
    x = np.full(n, 1.0 / n)
    rounds = []
    for _ in range(2000):
        y = (1 - d) / n + d * (a @ np.divide(x, deg, out=np.zeros(n), where=deg > 0) + x[deg == 0].sum() / n)
        done = np.abs(y - x).sum() < 1e-13
        x = y
        rounds.append(x)
        if done:
            break
    o = engines_bench.Oracle(g)
    assert np.abs(o.pagerank_reference() - x).sum() < 1e-10
    checker = peers_bench.Checker(g, 0)
    assert np.abs(checker.pagerank_reference() - rounds[peers_bench.PR_ITERATIONS - 1]).sum() < 1e-12
