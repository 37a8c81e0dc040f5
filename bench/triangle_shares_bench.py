"""How a triangle count's time falls with the share of the DAG an executor counts (HyPar's split).

HyPar splits a triangle count by marking, in the whole graph's degree-ordered DAG, the vertices
whose triangles an executor counts (``triangle_count(dag, counting_dag=here)``). This times that
count on each ``--backends`` entry for a marked share of the counting work, marked two ways:

* ``ids``: a block of the graph's vertex ids (what HyPar cut before: on a Kronecker graph, whose
  ids are permuted, a random set of the DAG's ranks);
* ``ranks``: a run of the DAG's ranks, the lowest (``low``) or the highest (``high``).

A GPU counts one rank per thread, so a warp lasts as long as the longest of its 32 consecutive
ranks: a random set keeps nearly every warp's longest row whatever the share, a run of ranks
drops whole warps. The work of a share is the sum of ``d^2 + d + 1`` over its ranks (``d``: DAG
out-degree, HyPar's ``Triangles.cut_weights``); every count is checked against the whole count's
per-vertex sums (the shares' complements add up to the whole).

Each figure is the median of ``--repeat`` calls after a warm-up; the DAG is built once on the host
and is not timed. On the device (16 cores, one GPU):

    python bench/triangle_shares_bench.py --scales 22 --backends cpu cuda --shares 1 0.87 0.5 0.13 \\
        --out bench/results/triangle-shares-kron22-h200.json

Here (2 shared cores): ``--scales 16 --backends cpu``.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
import provenance  # noqa: E402  (commit, dirty, diff hash, command: issue 35)
sys.path.insert(0, str(ROOT / "bench"))


def median(xs):
    return float(np.median(np.asarray(xs, np.float64)))


def marks(kind: str, share: float, weights_by_rank: np.ndarray, order: np.ndarray) -> np.ndarray:
    """int8 per rank: 1 where counted. ``weights_by_rank``: each rank's work estimate; ``order``:
    the vertex of each rank."""
    n = len(weights_by_rank)
    cum = np.cumsum(weights_by_rank, dtype=np.float64) / max(float(weights_by_rank.sum()), 1.0)
    if share >= 1.0:
        return np.ones(n, np.int8)
    if kind == "low":                                   # the lowest ranks holding the share
        return (cum <= share).astype(np.int8)
    if kind == "high":
        return (cum > 1.0 - share).astype(np.int8)
    # ids: the first vertices by id holding the share, as a block of ids; then by rank
    by_id = np.empty(n, np.float64)
    by_id[order] = weights_by_rank                      # weight of each vertex id
    along = np.cumsum(by_id) / max(float(by_id.sum()), 1.0)
    in_block = (along <= share).astype(np.int8)
    return in_block[order]                              # rank r is vertex order[r]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scales", type=int, nargs="+", default=[16])
    ap.add_argument("--backends", nargs="+", default=["cpu"])
    ap.add_argument("--shares", type=float, nargs="+", default=[1.0, 0.87, 0.5, 0.13])
    ap.add_argument("--kinds", nargs="+", default=["ids", "low", "high"], choices=["ids", "low", "high"])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()

    from hypar_bench import kronecker

    from graphferry.algorithms.triangles import triangle_count
    from graphferry import host_ops
    from graphferry.graph import Graph
    from graphferry.transforms import is_simple

    runs, graphs = [], []
    for scale in args.scales:
        g = kronecker(scale)
        offsets, indices, order, _ = host_ops.degree_ordered_dag(g.offsets, g.indices,
                                                                 simple=is_simple(g, undirected=True))
        dag = Graph(offsets, indices, None, directed=True, name=f"kron{scale}-dag")
        d = np.diff(offsets).astype(np.float64)
        weights = d * d + d + 1
        graphs.append({"name": f"kron{scale}", "n": g.n, "m": g.m, "dag_arcs": len(indices)})
        for backend in args.backends:
            whole = None
            for kind in args.kinds:
                for share in args.shares:
                    if share >= 1.0 and kind != args.kinds[0]:
                        continue
                    here = marks(kind, share, weights, order)
                    call = functools.partial(triangle_count, dag, backend=backend, counting_dag=here)
                    t = time.perf_counter()
                    r = call()                                  # warm-up (compiles, uploads)
                    first = time.perf_counter() - t
                    secs = []
                    for _ in range(args.repeat):
                        t = time.perf_counter()
                        r = call()
                        secs.append(time.perf_counter() - t)
                    tri = np.asarray(r.triangles, np.int64)
                    if share >= 1.0:
                        whole = tri
                        verified = None
                    else:                                       # with its complement: the whole
                        rest = triangle_count(dag, backend="cpu", counting_dag=(1 - here).astype(np.int8))
                        verified = bool(whole is not None and np.array_equal(tri + rest.triangles, whole))
                    work = float(weights[here.astype(bool)].sum() / weights.sum())
                    run = {"graph": f"kron{scale}", "algorithm": "triangles", "engine": backend,
                           "marked": "all" if share >= 1.0 else kind, "share": share, "work_share": round(work, 4),
                           "vertices_marked": int(here.sum()), "seconds": median(secs), "first_seconds": first,
                           "all_seconds": secs,
                           "verified": verified if verified is not None else True,
                           "verified_how": "the whole count" if share >= 1.0 else
                           "this count plus the CPU's count of the unmarked ranks equals the whole count"}
                    runs.append(run)
                    print(f"kron{scale} {backend:5s} {run['marked']:4s} share {share:.2f} (work {work:.3f}): "
                          f"{run['seconds'] * 1e3:9.1f} ms  verified {run['verified']}", flush=True)
        out = {**provenance.stamp({}),
               "date": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
               "machine": {"host_cores": os.cpu_count()}, "graph": graphs[0], "graphs": graphs, "runs": runs,
               "notes": "seconds: triangle_count on the prebuilt DAG (upload and per-vertex result included, "
                        "the DAG build not), median of the repeats after a warm-up"}
        if args.out:
            Path(args.out).write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
