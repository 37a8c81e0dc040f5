"""The CPU backend against python-graphblas, networkit and scipy.sparse.csgraph.

Same generated Kronecker graph (undirected, Graph500 parameters), same source
vertex, same PageRank tolerance / iteration count, in one process, one
algorithm at a time. Graph loading and each peer's own graph construction are
excluded from the timed region; every timed call is run ``--repeat`` times and
the median kept. Results go to a JSON file in the format of BENCH_RESULTS.md
(engine ``cpu`` for graphferry, ``peer:<name>`` for the others) and a table on
stdout.

    python bench/cpu_peers_bench.py --scale 20 --scale 22 --out bench/results/cpu-peers.json
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

import graphferry  # noqa: E402
from graphferry.generators import kronecker_graph  # noqa: E402

PR_DAMPING = 0.85
PR_ITERATIONS = 20  # fixed iteration count for every PageRank, ours and peers'


def timed(fn, repeat):
    times, out = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), out


# ---------------------------------------------------------------- graphferry
def ours(g, src, repeat):
    from graphferry.algorithms import bfs, pagerank_ldbc, sssp, triangle_count, wcc

    res = {}
    res["bfs"] = timed(lambda: bfs(g, src, backend="cpu").levels, repeat)
    res["sssp"] = timed(lambda: sssp(g, src, backend="cpu").distances, repeat)
    res["pagerank"] = timed(lambda: pagerank_ldbc(g, damping=PR_DAMPING, iterations=PR_ITERATIONS, backend="cpu").ranks, repeat)
    res["wcc"] = timed(lambda: wcc(g, backend="cpu").labels, repeat)
    res["triangles"] = timed(lambda: triangle_count(g, backend="cpu").total, repeat)
    return res


# ---------------------------------------------------------------- scipy
def scipy_peer(g, src, repeat):
    import scipy.sparse as sp
    import scipy.sparse.csgraph as cg

    A = g.to_scipy().tocsr()
    A.sort_indices()
    res = {}
    res["bfs"] = timed(lambda: cg.breadth_first_order(A, src, directed=True, return_predecessors=False), repeat)
    res["sssp"] = timed(lambda: cg.dijkstra(A, directed=True, indices=src), repeat)

    outdeg = np.asarray(A.sum(axis=1)).ravel() if g.weights is None else g.out_degree.astype(np.float64)
    outdeg = g.out_degree.astype(np.float64)
    AT = sp.csr_array((np.ones(g.m), g.indices, g.offsets), shape=(g.n, g.n)).T.tocsr()

    def pr():
        n = g.n
        r = np.full(n, 1.0 / n)
        inv = np.divide(1.0, outdeg, out=np.zeros(n), where=outdeg > 0)
        sinks = outdeg == 0
        for _ in range(PR_ITERATIONS):
            r = (1 - PR_DAMPING) / n + PR_DAMPING * (AT @ (r * inv) + r[sinks].sum() / n)
        return r

    res["pagerank"] = timed(pr, repeat)
    res["wcc"] = timed(lambda: cg.connected_components(A, directed=True, connection="weak")[1], repeat)
    B = sp.csr_array((np.ones(g.m), g.indices, g.offsets), shape=(g.n, g.n))
    L = sp.tril(B, k=-1, format="csr")
    # scipy has no triangle counter; L @ L materialises every wedge (37 GiB at scale 20),
    # so it is only run where the wedges fit in memory
    wedges = int((np.diff(L.indptr).astype(np.int64) ** 2).sum())
    if wedges < 2 * 10**8:
        res["triangles"] = timed(lambda: int((L @ L).multiply(L).sum()), 1)
    else:
        res["triangles"] = (float("nan"), f"skipped: {wedges:,} wedges")
    return res


# ---------------------------------------------------------------- python-graphblas
def graphblas_peer(g, src, repeat):
    import graphblas as gb
    from graphblas import binary, semiring

    n = g.n
    rows = np.repeat(np.arange(n, dtype=np.uint64), g.out_degree)
    A = gb.Matrix.from_coo(rows, g.indices.astype(np.uint64), 1.0, nrows=n, ncols=n, dtype="FP64")
    W = A if g.weights is None else gb.Matrix.from_coo(rows, g.indices.astype(np.uint64), g.weights.astype(np.float64), nrows=n, ncols=n)
    res = {}

    def bfs():
        level = gb.Vector(int, n)
        q = gb.Vector(bool, n)
        q[src] << True
        d = 0
        while q.nvals:
            level(q.S) << d
            q(~level.S, replace=True) << q.vxm(A, semiring.any_pair)
            d += 1
        return level

    res["bfs"] = timed(bfs, repeat)

    def sssp():  # Bellman-Ford with min-plus on the changed set
        dist = gb.Vector(float, n)
        dist[src] << 0.0
        front = dist.dup()
        while front.nvals:
            cand = front.vxm(W, semiring.min_plus).new()
            improved = gb.Vector(bool, n)
            improved << binary.lt(cand & dist)
            newv = cand.dup()
            newv(mask=~dist.S) << cand
            better = gb.Vector(float, n)
            better(mask=improved.V) << cand
            better(mask=~dist.S) << cand
            dist(binary.min) << better
            front = better
        return dist

    res["sssp"] = timed(sssp, repeat)
    outdeg = gb.Vector.from_dense(g.out_degree.astype(np.float64))

    def pr():
        r = gb.Vector.from_dense(np.full(n, 1.0 / n))
        sinks = gb.Vector.from_dense((g.out_degree == 0))
        sinkmask = sinks.select("==", True).new()
        for _ in range(PR_ITERATIONS):
            w = (r / outdeg).new()  # inf where deg 0 is never used: those rows have no edges
            t = w.vxm(A, semiring.plus_first).new()
            s = r.dup(mask=sinkmask.S).reduce().value or 0.0
            r = gb.Vector.from_dense(np.full(n, (1 - PR_DAMPING) / n + PR_DAMPING * s / n))
            r(binary.plus) << (t * PR_DAMPING).new()
        return r

    res["pagerank"] = timed(pr, repeat)

    def cc():  # FastSV-like min-label propagation
        lab = gb.Vector.from_dense(np.arange(n, dtype=np.int64))
        Ai = A.dup(dtype="INT64")
        while True:
            nxt = lab.vxm(Ai, semiring.min_second).new()
            nxt(binary.min) << lab
            if nxt.isequal(lab):
                return lab
            lab = nxt

    res["wcc"] = timed(cc, repeat)

    def tc():
        L = gb.select.tril(A, -1).new()
        C = L.mxm(L, semiring.plus_pair).new(mask=L.S)
        return C.reduce_scalar().value

    res["triangles"] = timed(tc, 1)
    return res


# ---------------------------------------------------------------- networkit
def networkit_peer(g, src, repeat):
    import networkit as nk

    nk.setNumberOfThreads(os.cpu_count() or 1)
    src_arr, dst_arr = g.edges()
    keep = src_arr < dst_arr if not g.directed else np.ones(len(src_arr), bool)
    G = nk.GraphFromCoo((np.ones(int(keep.sum())), (src_arr[keep].astype(np.uint64), dst_arr[keep].astype(np.uint64))),
                        n=g.n, directed=g.directed, weighted=g.weights is not None)
    if g.weights is not None:
        G = nk.GraphFromCoo((g.weights[keep].astype(np.float64), (src_arr[keep].astype(np.uint64), dst_arr[keep].astype(np.uint64))),
                            n=g.n, directed=g.directed, weighted=True)
    G.indexEdges()
    res = {}
    res["bfs"] = timed(lambda: nk.distance.BFS(G, src, storePaths=False).run().getDistances(), repeat)
    res["sssp"] = timed(lambda: nk.distance.Dijkstra(G, src, storePaths=False).run().getDistances(), repeat)

    def pr():
        p = nk.centrality.PageRank(G, damp=PR_DAMPING, tol=0.0)
        p.maxIterations = PR_ITERATIONS
        return p.run().scores()

    res["pagerank"] = timed(pr, repeat)
    res["wcc"] = timed(lambda: nk.components.ConnectedComponents(G).run().numberOfComponents(), repeat)
    res["triangles"] = timed(lambda: sum(nk.sparsification.TriangleEdgeScore(G).run().scores()) / 3, 1)
    return res


PEERS = {"graphblas": graphblas_peer, "networkit": networkit_peer, "scipy": scipy_peer}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", type=int, action="append", help="Kronecker scale (repeatable)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--weighted", action="store_true", default=True)
    ap.add_argument("--peers", default="graphblas,networkit,scipy")
    ap.add_argument("--out", help="JSON file (one per scale gets -s<scale> appended)")
    args = ap.parse_args()
    scales = args.scale or [20]
    for scale in scales:
        t = time.perf_counter()
        g = kronecker_graph(scale, weighted=args.weighted, seed=1)
        gen_s = time.perf_counter() - t
        src = int(np.argmax(g.out_degree))
        print(f"# kron{scale}: n={g.n} m={g.m} generated in {gen_s:.1f}s, source {src}", flush=True)
        table = {"graphferry": ours(g, src, args.repeat)}
        print("# graphferry " + " ".join(f"{a}={v[0]:.4f}" for a, v in table["graphferry"].items()), flush=True)
        for peer in args.peers.split(","):
            if peer:
                table[peer] = PEERS[peer](g, src, args.repeat)
                print(f"# {peer} " + " ".join(f"{a}={v[0]:.4f}" for a, v in table[peer].items()), flush=True)
        algos = ["bfs", "sssp", "pagerank", "wcc", "triangles"]
        print(f"{'algorithm':<10} " + " ".join(f"{k:>12}" for k in table) + "   ours/fastest-peer")
        runs = []
        for a in algos:
            peer_best = min((table[p][a][0] for p in table if p != "graphferry" and not np.isnan(table[p][a][0])),
                            default=float("nan"))
            row = " ".join(f"{table[k][a][0]:12.4f}" for k in table)
            print(f"{a:<10} {row}   {table['graphferry'][a][0] / peer_best:6.2f}x", flush=True)
            for k in table:
                runs.append({"algorithm": a, "engine": "cpu" if k == "graphferry" else f"peer:{k}",
                             "seconds": table[k][a][0], "bytes_h2d": 0, "floor_seconds": 0.0,
                             "verified": False, "ratio_to_fastest_peer": table[k][a][0] / peer_best})
        if args.out:
            out = Path(args.out)
            if len(scales) > 1:
                out = out.with_name(f"{out.stem}-s{scale}{out.suffix}")
            commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
            doc = {
                "schema": "graphferry-bench/1",
                "command": " ".join([sys.executable.split("/")[-1]] + sys.argv),
                "commit": commit,
                "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
                "machine": {"device": "cpu", "host_cores": os.cpu_count(), "platform": platform.platform()},
                "graph": {"name": f"kron{scale}", "n": g.n, "m": g.m, "directed": g.directed,
                          "edge_bytes": g.edge_bytes},
                "budget_bytes": 0,
                "runs": runs,
                "notes": f"median of {args.repeat} runs (triangles: 1 run); PageRank {PR_ITERATIONS} fixed iterations; "
                         "peer graph construction excluded; graphferry's first call includes program compilation "
                         "only if not cached (warm cache in these runs)",
            }
            out.parent.mkdir(parents=True, exist_ok=True)
            tmp = out.with_suffix(".tmp")
            tmp.write_text(json.dumps(doc, indent=2))
            os.replace(tmp, out)


if __name__ == "__main__":
    main()
