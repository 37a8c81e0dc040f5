#!/usr/bin/env python
"""SSSP bucket widths on the CPU backend, on a Kronecker graph and a road-like grid, beside GAPBS.

Why: ``sssp.default_delta`` must suit power-law graphs (high degree, short
paths) and road networks (degree about 3, long paths) alike. Two graphs:

* ``kron<S>``: ``engines_bench.kronecker`` (Graph500, undirected, weights 1..255);
* ``grid<K>``: a K x K grid with 20% of its streets removed at random, ids
  permuted, integer weights 1..1000 (uniform), undirected: degree about 3.2,
  a diameter of about 2K hops, as road networks have.

For each graph, a loaded graph (``graphferry.load``, CPU backend) is timed at the
default width and at ``--factors`` times it (median of ``--reps`` calls after a
warm-up; the edges relaxed per arc are reported: work beyond 1.0 is repeated
relaxation). GAPBS ``sssp`` runs on the same graph and source at ``--gapbs-deltas``
(its own timer, median of its trials). Distances are checked against scipy's
Dijkstra once per graph. Threads: ``OMP_NUM_THREADS`` for both, from ``--threads``
(set before any kernel library loads).

    PYTHONPATH=src python bench/sssp_delta_bench.py --threads 1 --kron-scale 20 --grid-side 1000 \\
        --gapbs-bin /path/to/gapbs --out /tmp/sssp-delta.json
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import provenance  # noqa: E402  (commit, dirty, diff hash, command: issue 35)

HERE = Path(__file__).resolve().parent


def grid_graph(side: int, seed: int = 1):
    """The road-like grid (see module docstring) and its centre vertex."""
    from graphferry import Graph

    rng = np.random.default_rng(seed)
    ids = np.arange(side * side).reshape(side, side)
    src = np.concatenate([ids[:, :-1].ravel(), ids[:-1, :].ravel()])
    dst = np.concatenate([ids[:, 1:].ravel(), ids[1:, :].ravel()])
    keep = rng.random(len(src)) < 0.8
    src, dst = src[keep], dst[keep]
    perm = rng.permutation(side * side)
    w = rng.integers(1, 1001, len(src)).astype(np.float64)
    g = Graph.from_edges(perm[src], perm[dst], w, n=side * side, directed=False, name=f"grid{side}")
    return g, int(perm[ids[side // 2, side // 2]])


def gapbs_sssp(exe: Path, wsg: Path, source: int, delta: float, trials: int, threads: int) -> dict | None:
    sys.path.insert(0, str(HERE))
    from peers_bench import parse_gapbs

    from peers_bench import verify_gapbs

    cmd = [str(exe), "-f", str(wsg), "-r", str(source), "-d", str(max(1, round(delta))), "-n", str(trials)]
    env = {**os.environ, "OMP_NUM_THREADS": str(threads)}
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=env)
    trial, _, _ = parse_gapbs(p.stdout + p.stderr, "sssp")
    if not trial:
        return None
    ok, how, vcmd = verify_gapbs(cmd, env, 600)
    return {"engine": "peer:gapbs", "delta": max(1, round(delta)), "seconds": round(float(np.median(trial)), 6),
            "first_seconds": trial[0], "all_seconds": trial, "verified": ok, "verified_how": how,
            "command": " ".join(cmd) + f" ; {vcmd}"}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--kron-scale", type=int, default=20)
    ap.add_argument("--grid-side", type=int, default=1000)
    ap.add_argument("--factors", type=float, nargs="+", default=[0.25, 0.5, 1, 2, 4, 8])
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--gapbs-bin", default=None, help="directory with GAPBS's sssp (skipped when absent)")
    ap.add_argument("--gapbs-deltas", type=float, nargs="*", default=[1, 2, 4, 8, 32, 128, 512, 2048])
    ap.add_argument("--gapbs-trials", type=int, default=5)
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    os.environ["OMP_NUM_THREADS"] = str(args.threads)   # before any kernel library loads

    sys.path.insert(0, str(HERE.parent / "src"))
    sys.path.insert(0, str(HERE))
    import graphferry as gf
    from scipy.sparse.csgraph import dijkstra

    import engines_bench as eb
    from peers_bench import write_gapbs
    from graphferry.algorithms.sssp import default_delta, sssp

    exe = Path(args.gapbs_bin) / "sssp" if args.gapbs_bin else None
    doc = {**provenance.stamp({}),
           "date": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
           "machine": {"host_cores": os.cpu_count()}, "threads": args.threads,
           "notes": "cpu: median wall time of one sssp call on a loaded graph after a warm-up; "
                    "peer:gapbs: its own timer, median of its trials; same graph, source and threads.",
           "graphs": [], "runs": []}
    graphs = [("kron", lambda: eb.kronecker(args.kron_scale, cpu_generator=True, weighted=True)),
              ("grid", lambda: grid_graph(args.grid_side))]
    with tempfile.TemporaryDirectory() as tmp:
        for kind, make in graphs:
            g, extra = make()
            source = int(np.argmax(np.diff(g.offsets))) if kind == "kron" else extra
            name = g.name or kind
            want = dijkstra(g.to_scipy(), indices=source)
            lg = gf.load(g, backend="cpu")
            rule = default_delta(lg.graph)
            doc["graphs"].append({"name": name, "n": g.n, "m": g.m, "source": source, "default_delta": rule})
            print(f"{name}: n {g.n:,} m {g.m:,} source {source} default delta {rule:.4g}", flush=True)
            for f in args.factors:
                delta = rule * f
                t = time.perf_counter()
                r = sssp(lg, source, delta=delta)
                first = time.perf_counter() - t
                ok = bool(np.array_equal(r.distances, want))
                times = []
                for _ in range(args.reps):
                    t = time.perf_counter()
                    r = sssp(lg, source, delta=delta)
                    times.append(time.perf_counter() - t)
                edges = sum(s.active_edges for s in r.record.edge_steps) / max(1, g.m)
                doc["runs"].append({"graph": name, "engine": "cpu", "delta": delta, "factor": f,
                                    "seconds": round(float(np.median(times)), 6), "first_seconds": round(first, 6),
                                    "all_seconds": times,
                                    "edges_per_arc": round(edges, 4), "rounds": r.rounds, "verified": ok})
                print(f"  cpu   delta {delta:9.4g} (x{f:<5g}) {np.median(times) * 1e3:8.1f} ms  "
                      f"{edges:5.2f} edges/arc  {r.rounds:6d} rounds  {'ok' if ok else 'WRONG'}", flush=True)
            lg.close()
            if exe is not None and exe.exists():
                wsg = write_gapbs(g, Path(tmp) / name)[".wsg"]
                for d in args.gapbs_deltas:
                    run = gapbs_sssp(exe, wsg, source, d, args.gapbs_trials, args.threads)
                    if run:
                        doc["runs"].append({"graph": name, **run})
                        print(f"  gapbs delta {run['delta']:9d}         {run['seconds'] * 1e3:8.1f} ms", flush=True)
                wsg.unlink()
            if args.out:
                Path(args.out).write_text(json.dumps(doc, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
