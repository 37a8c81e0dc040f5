#!/usr/bin/env python
"""How the CPU backend scales with cores, step by step, beside GAPBS at the same thread counts.

One Kronecker graph (``engines_bench.kronecker``: on the GPU when there is one)
is written once as a graphferry store and as GAPBS's ``.sg``/``.wsg`` under
``--work``. Then, for every thread count (``OMP_NUM_THREADS``, set before any
kernel library loads) and every source tree given with ``--src`` (the code
under test, and for an A/B another checkout's ``src``), a fresh worker process
loads the store (``graphferry.load``, CPU backend), warms each algorithm up,
and times ``--reps`` calls; it reports the median call and, for that call, every
step of the run record (operation, direction, active vertices, seconds): where
the time goes and which steps stop scaling. GAPBS runs on the same files with
the same thread counts (its own timer, median of its trials), so the ratio
is taken within one run on one machine.

Results (format: shared/BENCH_RESULTS.md, engine ``cpu`` and ``peer:gapbs``,
with ``threads`` and ``label`` per run) go to ``--out``.

    PYTHONPATH=src python bench/cpu_scaling_bench.py --scale 22 --threads 1 16 \\
        --gapbs-bin /path/to/gapbs --out /tmp/scaling.json
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import provenance  # noqa: E402  (commit, dirty, diff hash, command: issue 35)

HERE = Path(__file__).resolve().parent
ALGORITHMS = ["bfs", "sssp", "pagerank", "wcc"]
GAPBS_JOBS = {"bfs": ("bfs", ".sg", ["-r", "{source}"]),
              "sssp": ("sssp", ".wsg", ["-r", "{source}", "-d", "{delta}"]),
              "pagerank": ("pr", ".sg", ["-i", "20", "-t", "1e-4", "-l"]),
              "wcc": ("cc", ".sg", [])}


def worker(args) -> int:
    """One process: load the store, time every algorithm, print one JSON line."""
    sys.path.insert(0, str(Path(args.src).resolve()))
    sys.path.insert(0, str(HERE))
    import graphferry as gf
    from peers_bench import call

    t = time.perf_counter()
    lg = gf.load(args.store, backend="cpu")
    load = time.perf_counter() - t
    source = int(args.source)
    out = {"load_seconds": load, "runs": []}
    for name in args.algorithms:
        t = time.perf_counter()
        call(name, lg, source, "host")  # warm-up: compiles, builds the side
        first = time.perf_counter() - t
        walls, recs = [], []
        for _ in range(args.reps):
            t = time.perf_counter()
            r = call(name, lg, source, "host")  # the CPU backend's results are host arrays: nothing to move
            walls.append(time.perf_counter() - t)
            recs.append(r.record)
        k = int(np.argsort(walls)[len(walls) // 2])
        rec = recs[k]
        steps = [{"op": s.op, "direction": s.direction, "active": int(s.active_vertices),
                  "seconds": round(s.seconds, 6)} for s in rec.steps]
        out["runs"].append({"algorithm": name, "seconds": round(walls[k], 6), "first_seconds": round(first, 6),
                            "all_seconds": walls,
                            "iterations": rec.iterations,
                            "steps_seconds": round(sum(s["seconds"] for s in steps), 6), "steps": steps})
    print("RESULT " + json.dumps(out), flush=True)
    return 0


def gapbs(bindir: Path, files: dict, source: int, deltas, threads: int, trials: int, timeout: float,
          algorithms) -> list[dict]:
    """GAPBS's runs; SSSP once per bucket width in ``deltas`` (each system at its own best is fair)."""
    sys.path.insert(0, str(HERE))
    from peers_bench import parse_gapbs, verify_gapbs

    runs = []
    jobs = [(name, d) for name in algorithms for d in (deltas if name == "sssp" else [None])]
    for name, delta in jobs:
        binary, ext, extra = GAPBS_JOBS[name]
        exe = bindir / binary
        if not exe.exists():
            continue
        cmd = [str(exe), "-f", str(files[ext]), "-n", str(trials),
               *[a.format(source=source, delta=round(delta or 1)) for a in extra]]
        env = {**os.environ, "OMP_NUM_THREADS": str(threads)}
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
            text = p.stdout + p.stderr
        except subprocess.TimeoutExpired:
            print(f"  gapbs {name} T={threads}: timed out", flush=True)
            continue
        trial, iters, _ = parse_gapbs(text, binary)
        if not trial:
            print(f"  gapbs {name} T={threads}: no trial time in its output: {text[-300:]}", flush=True)
            continue
        ok, how, vcmd = verify_gapbs(cmd, env, timeout)
        runs.append({"algorithm": name, "engine": "peer:gapbs", "threads": threads,
                     "seconds": round(float(np.median(trial)), 6), "first_seconds": trial[0], "all_seconds": trial,
                     "iterations": iters, "verified": ok, "verified_how": how,
                     "command": " ".join(cmd) + f" ; {vcmd}"})
        if delta is not None:
            runs[-1]["delta"] = delta
        print(f"  gapbs     {name:<9} T={threads:<3} {runs[-1]['seconds'] * 1e3:9.1f} ms"
              + (f"  (delta {delta:g})" if delta is not None else ""), flush=True)
    return runs


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scale", type=int, default=22)
    ap.add_argument("--threads", type=int, nargs="+", default=[os.cpu_count()])
    ap.add_argument("--algorithms", nargs="+", default=ALGORITHMS, choices=ALGORITHMS)
    ap.add_argument("--src", nargs="+", default=[str(HERE.parent / "src")],
                    help="source trees to time (label = the tree's path)")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--gapbs-bin", default=None)
    ap.add_argument("--gapbs-trials", type=int, default=3)
    ap.add_argument("--gapbs-deltas", type=float, nargs="*", default=[],
                    help="GAPBS SSSP bucket widths besides ours (default: ours only)")
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--work", default="/tmp/graphferry-scaling")
    ap.add_argument("--out", default=None)
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--store", help=argparse.SUPPRESS)
    ap.add_argument("--source", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        args.src = args.src[0]
        return worker(args)

    sys.path.insert(0, str(HERE.parent / "src"))
    sys.path.insert(0, str(HERE))
    import engines_bench as eb
    from peers_bench import write_gapbs
    from graphferry.backends import cuda_available
    from graphferry.store import write_store

    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    t = time.perf_counter()
    g, info = eb.kronecker(args.scale, cpu_generator=not cuda_available(), weighted=True)
    source = int(np.argmax(np.diff(g.offsets)))
    store = work / f"kron{args.scale}.gf"
    write_store(g, store, overwrite=True)
    files = write_gapbs(g, work / f"kron{args.scale}") if args.gapbs_bin else {}
    from graphferry.algorithms.sssp import default_delta

    delta = default_delta(g)
    print(f"kron{args.scale}: n {g.n:,} m {g.m:,}, store and GAPBS files in {time.perf_counter() - t:.1f} s; "
          f"source {source}, SSSP delta {delta:g}", flush=True)
    doc = {**provenance.stamp({}),
           "date": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
           "machine": {"host_cores": os.cpu_count()},
           "graph": {"name": f"kron{args.scale}", "n": g.n, "m": g.m, "directed": False, "source": source,
                     "sssp_delta": delta, **info},
           "notes": ("cpu: median wall time of one call on a loaded graph after a warm-up, with that call's "
                     "steps; peer:gapbs: its own timer, median of its trials, same graph and delta."),
           "runs": []}
    del g
    for threads in args.threads:
        for src in args.src:
            env = {**os.environ, "OMP_NUM_THREADS": str(threads)}
            cmd = [sys.executable, __file__, "--worker", "--store", str(store), "--source", str(source),
                   "--src", src, "--reps", str(args.reps), "--algorithms", *args.algorithms]
            p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=args.timeout * 4)
            line = [x for x in p.stdout.splitlines() if x.startswith("RESULT ")]
            if p.returncode != 0 or not line:
                print(f"  worker {src} T={threads} failed: {p.stderr[-2000:]}", flush=True)
                continue
            res = json.loads(line[-1][7:])
            for r in res["runs"]:
                r.update({"engine": "cpu", "threads": threads, "label": src,
                          "load_seconds": round(res["load_seconds"], 3)})
                doc["runs"].append(r)
                print(f"  cpu {Path(src).parent.name + '/' + Path(src).name:<18} {r['algorithm']:<9} T={threads:<3} "
                      f"{r['seconds'] * 1e3:9.1f} ms  steps {r['steps_seconds'] * 1e3:8.1f} ms  "
                      f"{r['iterations']} it", flush=True)
        if args.gapbs_bin:
            doc["runs"] += gapbs(Path(args.gapbs_bin), files, source, [delta, *args.gapbs_deltas], threads,
                                 args.gapbs_trials,
                                 args.timeout, args.algorithms)
        if args.out:
            Path(args.out).write_text(json.dumps(doc, indent=1))
    for f in files.values():
        f.unlink()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
