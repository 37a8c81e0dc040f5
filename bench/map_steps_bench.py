#!/usr/bin/env python
"""Time in each kind of step (vertex_map, neighbor_map, edge_map) of a few algorithms on one store.

For an A/B of the CPU kernels: run it once per source tree, each in a fresh process
with the same ``OMP_NUM_THREADS``, alternating the trees a few times (a shared machine
is noisy). Prints one JSON line: per algorithm, the median call's wall time and the
median over calls of each step kind's total (ms). The store comes from
``graphferry.store.write_store`` (``cpu_scaling_bench.py --work DIR`` leaves one).

    OMP_NUM_THREADS=2 python bench/map_steps_bench.py --src src --store /tmp/work/kron21.gf \\
        --algorithms wcc pagerank pagerank-delta cdlp
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--src", default=str(Path(__file__).resolve().parent.parent / "src"))
    ap.add_argument("--store", required=True)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--algorithms", nargs="+", default=["wcc", "pagerank"],
                    choices=["wcc", "cdlp", "lcc", "pagerank", "pagerank-delta"])
    args = ap.parse_args()
    sys.path.insert(0, str(Path(args.src).resolve()))
    import graphferry as gf
    from graphferry.algorithms.cdlp import cdlp
    from graphferry.algorithms.lcc import lcc
    from graphferry.algorithms.pagerank import pagerank, pagerank_ldbc
    from graphferry.algorithms.wcc import wcc

    lg = gf.load(args.store, backend="cpu")
    calls = {"wcc": lambda: wcc(lg), "cdlp": lambda: cdlp(lg, 5), "lcc": lambda: lcc(lg),
             "pagerank": lambda: pagerank_ldbc(lg, damping=0.85, iterations=10),
             "pagerank-delta": lambda: pagerank(lg, damping=0.85, tol=1e-4, max_iterations=30)}
    out = {"src": args.src, "store": args.store}
    for name in args.algorithms:
        calls[name]()  # warm-up: compiles the program
        walls, per_kind = [], {}
        for _ in range(args.reps):
            t = time.perf_counter()
            r = calls[name]()
            walls.append(time.perf_counter() - t)
            totals = {}
            for s in r.record.steps:
                totals[s.op] = totals.get(s.op, 0.0) + s.seconds
            for k, v in totals.items():
                per_kind.setdefault(k, []).append(v)
        out[name] = {"wall_ms": round(float(np.median(walls)) * 1e3, 2),
                     **{f"{k}_ms": round(float(np.median(v)) * 1e3, 2) for k, v in per_kind.items()}}
    print(json.dumps(out), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
