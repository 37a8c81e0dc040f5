"""HyPar (divide and conquer across executors) against one executor alone and the BSP baseline.

For each application (components, triangles, coloring, communities, mst) on one
generated Kronecker graph: HyPar over the given executors, each executor alone
(CPU-only, GPU-only: the same code with one executor), and the BSP baseline
over the same executors and blocks (every executor computes one superstep, a
round of the algorithm's outer loop, on its block, then the state is exchanged;
``levels`` is then the number of supersteps). Every answer is checked in the same run
against scipy (components, spanning-forest weight, triangle total) or for
properness (colouring); communities report modularity. Medians of ``--repeat``
runs after one warm-up; results in the BENCH_RESULTS.md format.

    python bench/hypar_bench.py --scale 20 --executors cpu cuda --out bench/results/hypar-kron20.json

``--executors`` names backends; ``cpu:sim`` is a CPU executor with a small simulated
device arena (the ``compaction`` engine and a 64 MiB budget), which is how CI plays
"two devices" without a GPU.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))


def executor(spec: str):
    from graphferry.algorithms.hypar import Executor

    if spec == "cpu:sim":
        return Executor("cpu", engine="compaction", budget=64 << 20, partition_bytes=1 << 20, name="cpu:sim")
    return Executor(spec)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", type=int, default=14)
    ap.add_argument("--executors", nargs="+", default=["cpu", "cpu:sim"])
    ap.add_argument("--apps", nargs="+", default=["components", "triangles", "coloring", "communities", "mst"])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--threshold-edges", type=int, default=0)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()

    import scipy.sparse as sp
    from scipy.sparse.csgraph import connected_components, minimum_spanning_tree

    from graphferry import Graph
    from graphferry.algorithms.hypar import bsp, hypar
    from graphferry.generators import kronecker_graph
    from graphferry.transforms import simple_graph

    g = simple_graph(kronecker_graph(args.scale, seed=1), undirected=True)
    src, dst = g.edges()
    keep = src < dst
    w = np.random.default_rng(0).integers(1, 1000, int(keep.sum())).astype(np.float32)
    weighted = Graph.from_edges(src[keep], dst[keep], w, n=g.n, directed=False)
    a = g.to_scipy()
    want_cc = connected_components(a, directed=False)[0]
    u = sp.triu(a, 1).tocsr().astype(np.int64)
    want_tc = int((u @ u).multiply(u).sum())
    want_mst = float(minimum_spanning_tree(sp.triu(weighted.to_scipy(), 1)).sum())
    executors = [executor(e) for e in args.executors]
    plans = [("hypar", executors)] + [(f"only:{e.label}", [e]) for e in executors]
    runs = []

    def check(app, r):
        if app == "components":
            return r.scalars["components"] == want_cc
        if app == "triangles":
            return r.scalars["total"] == want_tc
        if app == "coloring":
            c = r.values["colors"]
            return bool(c.min() >= 0 and not np.any(c[src] == c[dst]))
        if app == "mst":
            return bool(np.isclose(r.scalars["total_weight"], want_mst))
        return True

    for app in args.apps:
        graph = weighted if app == "mst" else g
        runners = [(label, lambda exs=exs: hypar(graph, app, exs, threshold_edges=args.threshold_edges))
                   for label, exs in plans]
        if len(executors) > 1:
            runners.append(("bsp", lambda: bsp(graph, app, executors)))
        for label, call in runners:
            call()                                                                # warm-up
            times, r = [], None
            for _ in range(args.repeat):
                t = time.perf_counter()
                r = call()
                times.append(time.perf_counter() - t)
            run = {"algorithm": app, "engine": label, "seconds": round(statistics.median(times), 5),
                   "bytes_h2d": 0, "floor_seconds": 0.0, "verified": check(app, r),
                   "scalars": {k: v for k, v in r.scalars.items()}, "levels": r.levels, "cut": r.cut,
                   "sample_seconds": r.timings["sample_seconds"]}
            if label == "bsp":
                run.update(supersteps=r.timings["supersteps"], executor_seconds=r.timings["executor_seconds"])
            else:
                run["independent_seconds"] = r.timings["independent"]
            runs.append(run)
            print(f"{app:<12} {label:<22} {run['seconds'] * 1e3:10.1f} ms  verified={run['verified']} "
                  f"levels={r.levels} cut={r.cut} {run['scalars']}", flush=True)
    if args.out:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, cwd=ROOT).stdout.strip()
        doc = {"schema": "graphferry-bench/1", "command": " ".join(sys.argv), "commit": commit,
               "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
               "machine": {"device": ", ".join(args.executors), "host_cores": os.cpu_count(),
                           "omp_num_threads": os.environ.get("OMP_NUM_THREADS")},
               "graph": {"name": f"kron{args.scale}", "n": g.n, "m": g.m, "directed": False, "edge_bytes": g.edge_bytes},
               "budget_bytes": None, "runs": runs,
               "notes": "seconds are whole calls: HyPar's and BSP's partitioning (sampled runs on every executor) "
                        "included, and HyPar's merges, BSP's exchanges"
                        + ("" if "cuda" in args.executors else
                           "; no GPU: the CPU backend plays both sides (cpu:sim is a CPU executor reading its edges "
                           "through a simulated device arena), so the figures compare schedules, not devices")}
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(doc, indent=1, default=float))
        print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
