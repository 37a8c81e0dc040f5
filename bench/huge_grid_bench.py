#!/usr/bin/env python
"""The grid-wide (heavy-row) kernel's grid, on zero-copy and the hybrid, beside the default.

Why: rows of 2048 edges or more are cut into 1024-edge work items that every block of a second,
grid-wide launch walks one at a time (``gf_cuda_kernels.cuh``). With 4 blocks per SM, SSSP's
first round from the top hub of Kronecker 26 (816 K items, 1.23 G edges) read host memory at
12 GB/s; at Kronecker 25 the same launch ran at the bus's 55 GB/s. ``CudaBackend.huge_grid`` fixes
the grid (blocks) for both directions; None is the default rule (push: ``PUSH_HUGE_BLOCKS_PER_SM``,
pull: ``PULL_HUGE_BLOCKS_PER_SM`` per SM).

For a Kronecker graph (``engines_bench.kronecker``, weights 1..255), a budget of 25% of the
weighted edge bytes, each ``--grids`` entry (``default``, or blocks per SM) is timed on SSSP from
the top hub (``--sssp-only``) or on SSSP, BFS, WCC and five PageRank iterations: median of
``--reps`` calls after a warm-up, results left on the device. SSSP distances of every grid are
compared with the first grid's (they must be equal: float32 sums of integers).

    PYTHONPATH=src python bench/huge_grid_bench.py --scale 26 --grids 4 default 64 --out /tmp/grid.json
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import provenance  # noqa: E402  (commit, dirty, diff hash, command: issue 35)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scale", type=int, default=22)
    ap.add_argument("--grids", nargs="+", default=["4", "default"],
                    help="'default' (the backend's rule) or blocks per SM for both directions")
    ap.add_argument("--engines", nargs="+", default=["zerocopy", "hybrid"])
    ap.add_argument("--sssp-only", action="store_true", help="time SSSP alone (the other algorithms run pull)")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)

    import engines_bench as eb

    import graphferry as gf
    from graphferry.algorithms import bfs, pagerank, sssp, wcc

    g, info = eb.kronecker(args.scale, seed=0, weighted=True)
    source = int(np.argmax(g.out_degree))
    name = f"kron{args.scale}"
    budget = max(1 << 20, int(0.25 * g.m * 8))
    full = gf.load(g, backend="cuda")
    lg = gf.load(full.graph, backend="cuda", budget=budget, pinned=False)
    b = lg.backend
    doc = {**provenance.stamp({}),
           "date": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
           "machine": eb.probe(b),
           "graph": {"name": name, "n": g.n, "m": g.m, "directed": False, "edge_bytes": int(g.m * 4),
                     "weighted_edge_bytes": int(g.m * 8), "source": source, **info},
           "budget_bytes": budget, "runs": [],
           "notes": "seconds: median of reps after a warm-up, results on the device; grid: the grid-wide kernel's "
                    "blocks per SM for both directions, or 'default' (push: waves of resident blocks, pull: 4 per SM); "
                    "pagerank: 5 iterations; verified: SSSP distances equal the first grid's"}
    algorithms = {"sssp": lambda e: sssp(lg, source, engine=e)}
    if not args.sssp_only:
        algorithms.update({"bfs": lambda e: bfs(lg, source, engine=e), "wcc": lambda e: wcc(lg, engine=e),
                           "pagerank": lambda e: pagerank(lg, engine=e, max_iterations=5, tol=1e-30)})
    reference = None
    for algorithm, run in algorithms.items():
        for grid in args.grids:
            b.huge_grid = None if grid == "default" else int(grid) * b.num_sms
            for engine in args.engines:
                t = time.perf_counter()
                run(engine)
                b.synchronize()
                first = time.perf_counter() - t
                walls, result = [], None
                for _ in range(args.reps):
                    t = time.perf_counter()
                    result = run(engine)
                    b.synchronize()
                    walls.append(time.perf_counter() - t)
                entry = {"algorithm": algorithm, "engine": engine, "grid": grid,
                         "seconds": round(float(np.median(walls)), 5), "first_seconds": round(first, 5),
                         "all_seconds": [round(w, 5) for w in walls],
                         "bytes_h2d": int(result.record.bytes_h2d),
                         "floor_seconds": round(result.record.bytes_h2d / (doc["machine"]["pinned_h2d_gbps"] * 1e9), 5)}
                if algorithm == "sssp":
                    result.to_host()
                    dist = np.asarray(result.values["distances"])
                    if reference is None:
                        reference = dist.copy()
                    entry["verified"] = bool(np.array_equal(dist, reference))
                    entry["first_steps_seconds"] = [round(s.seconds, 5) for s in result.record.edge_steps[:4]]
                else:
                    entry["verified"] = False
                doc["runs"].append(entry)
                print(f"{name} {algorithm:8s} grid {grid:>7s} {engine:8s} {entry['seconds'] * 1e3:8.1f} ms", flush=True)
                Path(args.out).write_text(json.dumps(doc, indent=1))
    b.huge_grid = None
    lg.close()
    full.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
