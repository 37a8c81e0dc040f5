"""The hybrid's placement costs: neighbourhood functions across device and CPU, and the CPU executor's exchange.

Two questions, on Kronecker graphs (``--scales``, undirected simple views):

1. **Neighbourhood functions** (triangle counting, LCC) under the hybrid when the
   graph does not fit the budget. Plans: the CPU backend alone (``cpu``); the
   hybrid with the cost rule (``hybrid``); the hybrid forced onto the device, which
   then reads the host's lists in place (``device-zerocopy``: what every hybrid
   neighbour map did before the rule); forced onto the CPU executor
   (``cpu-executor``); and the cost rule where a copy of the counting DAG fits the
   budget (``hybrid@copy-fits``, budget 3x the unweighted DAG's bytes: LCC's DAG
   carries weights, twice the bytes). Otherwise the budget is
   ``--budget-fraction`` of the input's edge bytes, partitions a sixteenth of the DAG.
   Each run: the neighbour map's seconds (median of ``--repeat``), where its
   partitions ran, the bytes its state exchange moved, the answer checked
   against the CPU backend's.
2. **The CPU executor's exchange cost** in the edge-map policy: BFS, SSSP and
   PageRank (8 iterations) under the hybrid's cost rule with the exchange priced
   as two whole states per iteration (``old-rule``, the rule before the CPU
   executor kept its copy) and as the bytes it is predicted to move (``new-rule``).
   Each run: seconds, the share of partition placements on the CPU, the state
   bytes moved in all, and the result checked against the CPU backend's.

The calibration is this machine's (``graphferry calibrate``; cached). On the CPU
backend the "device" is the simulated arena on the same cores, so the figures
measure the scheduler's overheads and bytes, not a GPU's speed; ``--backend cuda``
runs the same plans on a GPU.

Here (2 shared cores, no GPU), about 4 minutes:

    PYTHONPATH=src python bench/hybrid_placement_bench.py --scales 16 17 18 --repeat 3 \\
        --out bench/results/hybrid-placement-cpu-kron16-18.json
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

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
import provenance  # noqa: E402  (commit, dirty, diff hash, command: issue 35)

from graphferry.algorithms.bfs import bfs  # noqa: E402
from graphferry.algorithms.lcc import lcc  # noqa: E402
from graphferry.algorithms.pagerank import pagerank_ldbc  # noqa: E402
from graphferry.algorithms.sssp import sssp  # noqa: E402
from graphferry.algorithms.triangles import triangle_count  # noqa: E402
from graphferry.generators import kronecker_graph  # noqa: E402
from graphferry.scheduler import Policy  # noqa: E402
from graphferry.transforms import degree_ordered_dag, simple_graph  # noqa: E402


class OldExchangeRule(Policy):
    """The edge-map rule before the CPU executor kept its copy: two whole states per iteration."""

    def decide(self, ctx, model):
        ctx.exchange_bytes = {}
        return super().decide(ctx, model)


def neighbor_steps(record):
    return [s for s in record.steps if s.op == "neighbor_map"]


def places(steps) -> dict[str, int]:
    out: dict[str, int] = {}
    for s in steps:
        for p in s.partitions:
            key = f"{p.device}:{p.engine}"
            out[key] = out.get(key, 0) + 1
    return out


def neighbour_runs(g, dag, scale: int, base: dict, budget: int, policy, repeat: int, doc: dict, save) -> None:
    """Triangle counting and LCC under each plan (CPU alone, the hybrid, device only, ...): the
    neighbor_map step's time and where it ran, each answer compared with the first plan's."""
    plans = {"cpu": dict(backend="cpu", engine="host"),
             "hybrid": dict(base, engine="hybrid", budget=budget, policy=policy()),
             "device-zerocopy": dict(base, engine="hybrid", budget=budget, policy=policy(use_cpu=False)),
             "cpu-executor": dict(base, engine="hybrid", budget=budget, policy=policy(mix=[("host", "host")])),
             "hybrid@copy-fits": dict(base, engine="hybrid", budget=3 * dag.edge_bytes, policy=policy())}
    for name, fn, answer in (("triangle_count", triangle_count, lambda r: r.total),
                             ("lcc", lcc, lambda r: r.lcc)):
        want = None
        for plan, kw in plans.items():
            secs, r = [], None
            for _ in range(repeat):
                r = fn(g, **kw)
                secs.append(neighbor_steps(r.record)[0].seconds)
            got = answer(r)
            if want is None:
                want = got
            steps = neighbor_steps(r.record)
            row = {"graph": f"kron{scale}", "algorithm": name, "plan": plan, "seconds": statistics.median(secs),
                   "first_seconds": secs[0],  # no warm-up here: the first of the repeats
                   "all_seconds": secs, "places": places(steps), "state_bytes": steps[0].state_bytes or 0,
                   "bytes_h2d": steps[0].bytes_h2d, "bytes_h2d_how": r.record.bytes_h2d_how,
                   "budget_bytes": kw.get("budget"),
                   "verified": bool(np.allclose(got, want, rtol=1e-12, atol=0))}
            doc["runs"].append(row)
            print(f"  {name:15s} {plan:16s} {row['seconds']:.3f} s  {row['places']}  "
                  f"state {row['state_bytes']} B  ok={row['verified']}", flush=True)
            save()


def edge_map_runs(g, scale: int, base: dict, budget: int, policy, repeat: int, doc: dict, save) -> None:
    """BFS, SSSP and PageRank on the hybrid under the old and the new exchange rule: the CPU's
    share, the state exchanged, each answer compared with the CPU backend's."""
    rng = np.random.default_rng(scale)
    wg = type(g)(g.offsets, g.indices, rng.integers(1, 64, g.m).astype(np.float32), directed=False)
    src = int(np.argmax(np.diff(g.offsets)))  # the hub: Kronecker's vertex 0 may be isolated
    for name, call, answer in (
            ("bfs", lambda **kw: bfs(g, src, **kw), lambda r: r.levels),
            ("sssp", lambda **kw: sssp(wg, src, **kw), lambda r: r.distances),
            ("pagerank", lambda **kw: pagerank_ldbc(g, damping=0.85, iterations=8, **kw),
             lambda r: r.ranks)):
        want = answer(call(backend="cpu", engine="host"))
        for plan, rule in (("old-rule", OldExchangeRule), ("new-rule", Policy)):
            secs, r = [], None
            for _ in range(repeat):
                t = time.perf_counter()
                r = call(**base, engine="hybrid", budget=budget, policy=policy(rule))
                secs.append(time.perf_counter() - t)
            steps = r.record.edge_steps
            placed = places(steps)
            on_cpu = sum(v for k, v in placed.items() if k.startswith("cpu:")) / max(1, sum(placed.values()))
            row = {"graph": f"kron{scale}", "algorithm": name, "plan": plan, "seconds": statistics.median(secs),
                   "first_seconds": secs[0], "bytes_h2d_how": r.record.bytes_h2d_how,
                   "all_seconds": secs, "iterations": len(steps), "cpu_share": round(on_cpu, 3),
                   "iterations_with_cpu": sum(any(p.device == "cpu" for p in s.partitions) for s in steps),
                   "state_bytes": sum(s.state_bytes or 0 for s in steps),
                   "bytes_h2d": sum(s.bytes_h2d for s in steps), "budget_bytes": budget,
                   "verified": bool(np.allclose(answer(r), want, rtol=1e-9, atol=0))}
            doc["runs"].append(row)
            print(f"  {name:15s} {plan:16s} {row['seconds']:.3f} s  cpu share {row['cpu_share']}  "
                  f"iterations {row['iterations_with_cpu']}/{row['iterations']} with the CPU  "
                  f"state {row['state_bytes']} B  ok={row['verified']}", flush=True)
            save()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scales", type=int, nargs="+", default=[16])
    ap.add_argument("--backend", default="cpu")
    ap.add_argument("--budget-fraction", type=float, default=0.25)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--calibration", type=Path, default=None,
                    help="a stored calibration (JSON) for the policies instead of this machine's, e.g. "
                         "bench/results/calibration-h200.json: the placements the H200's figures give "
                         "(figures it lacks, such as neighbour rates, are the nominal ones)")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    doc = {**provenance.stamp({}),
           "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
           "machine": {"device": args.backend, "host_cores": os.cpu_count(), "platform": platform.platform()},
           "notes": "seconds: medians of --repeat calls (neighbour maps: the neighbor_map step alone); "
                    "state_bytes: bytes the CPU executor's state exchange moved (neighbour map: that step; "
                    "edge maps: all iterations of one call)",
           "runs": []}
    if args.backend == "cpu":
        doc["machine"]["note"] = "no GPU: the device is the CPU backend's simulated arena on the same cores"

    def save():
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(doc, indent=1))

    cal = None
    if args.calibration is not None:
        from graphferry.scheduler import Calibration

        cal = Calibration.from_json(args.calibration.read_text())
        doc["calibration"] = {"file": str(args.calibration), "device": cal.device}

    def policy(cls=Policy, **kw):
        return cls(calibration=cal, **kw)

    for scale in args.scales:
        g = simple_graph(kronecker_graph(scale, seed=1), undirected=True)
        dag = degree_ordered_dag(g)[0]
        budget = int(g.edge_bytes * args.budget_fraction)
        base = {"backend": args.backend, "partition_bytes": max(64, dag.edge_bytes // 16)}
        print(f"kron{scale}: n={g.n} arcs={g.m} DAG {dag.edge_bytes} B, budget {budget} B", flush=True)
        neighbour_runs(g, dag, scale, base, budget, policy, args.repeat, doc, save)
        edge_map_runs(g, scale, base, budget, policy, args.repeat, doc, save)
    save()


if __name__ == "__main__":
    main()
