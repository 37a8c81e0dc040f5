#!/usr/bin/env python
"""Is the hybrid's time at a high budget a property of the budget or of the handle? (issue 37)

The Kronecker 25 sweep at ``ab992e6`` had BFS 9.1 ms under the hybrid at 100% and 7.0 ms at 50%,
with the same kernels (the resident engine holds the side whole at both) and 0.25-0.35 ms more host
time in every step; at ``9cb293d`` it was the other way round (6.7 ms at 100%, 7.8 ms at 50%). This
runs BFS and WCC on fresh handles in the order ``--fractions`` gives (repeats welcome), the resident
engine first and last, ``--reps`` timed calls each, and reports per handle: the median, the host time
outside the kernels a step, and the same handle again with Python's collector off.

    PYTHONPATH=src python dev/handle_probe.py --small
    PYTHONPATH=src python dev/handle_probe.py --scale 25 --out $OUT/handle-probe.json   # on the GPU
    PYTHONPATH=src python dev/handle_probe.py --small --interleave hybrid:0.01 zerocopy:1 --algorithms bfs sssp
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
import engines_bench as eb  # noqa: E402
import peers_bench as pb  # noqa: E402
import provenance  # noqa: E402


def timed(name, lg, source, engine, reps):
    """Median wall of ``reps`` calls after a warm-up (``peers_bench``'s timing), and the median
    call's host seconds a step outside the kernels (the step's seconds less its kernel seconds)."""
    _, walls, results, _ = pb._timed_calls(name, lg, source, engine, reps)
    hosts = [sum(s.seconds - s.kernel_seconds for s in rec.steps) / max(1, len(rec.steps))
             for rec, _, _ in results]
    return statistics.median(walls), statistics.median(hosts)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scale", type=int, default=25)
    ap.add_argument("--small", action="store_true", help="the CPU backend, scale 12")
    ap.add_argument("--fractions", type=float, nargs="+", default=[1.0, 0.5, 0.75, 1.0, 0.5, 0.75])
    ap.add_argument("--algorithms", nargs="+", default=["bfs", "wcc"])
    ap.add_argument("--reps", type=int, default=9)
    ap.add_argument("--out", default=None)
    ap.add_argument("--interleave", nargs="+", default=None, metavar="ENGINE:FRACTION",
                    help="instead: these handles (e.g. hybrid:0.01 zerocopy:1) all open at once, their timed calls "
                         "interleaved (peers_bench.time_ours_interleaved), each algorithm in turn")
    args = ap.parse_args(argv)
    import graphferry as gf

    gpu = not args.small
    scale = 12 if args.small else args.scale
    g, _ = eb.kronecker(scale, cpu_generator=not gpu, weighted=True)
    source = eb.source_vertex(g)
    wbytes = int(g.m * 8)
    base = gf.load(g, backend="cuda" if gpu else "cpu", budget=wbytes)
    base.side_packed("out")
    base.side_fused("out")
    rows = []

    def handle_rows(engine, fraction):
        lg = base.with_budget(max(1, int(fraction * wbytes)))
        for name in args.algorithms:
            wall, host = timed(name, lg, source, engine, args.reps)
            gc.disable()
            try:
                wall_nogc, host_nogc = timed(name, lg, source, engine, args.reps)
            finally:
                gc.enable()
            rows.append({"engine": engine, "fraction": fraction, "algorithm": name, "ms": wall * 1e3,
                         "host_ms_a_step": host * 1e3, "ms_gc_off": wall_nogc * 1e3,
                         "host_ms_a_step_gc_off": host_nogc * 1e3, "at_s": time.perf_counter() - t0})
            print(json.dumps(rows[-1]), flush=True)
        lg.close()

    t0 = time.perf_counter()
    if args.interleave:
        handles = []
        for item in args.interleave:
            engine, fraction = item.split(":")
            handles.append((engine, float(fraction), base.with_budget(max(1, int(float(fraction) * wbytes)))))
        checker = pb.Checker(g, source)
        for name in args.algorithms:
            entries = [(lg, source, engine, args.reps, f"{engine}-b{fraction:g}") for engine, fraction, lg in handles]
            runs = pb.time_ours_interleaved(name, entries, checker, 50.0, lambda msg: None)
            for (engine, fraction, _), run in zip(handles, runs):
                rows.append({"engine": engine, "fraction": fraction, "algorithm": name, "ms": run["seconds"] * 1e3,
                             "all_ms": [x * 1e3 for x in run["all_seconds"]], "verified": run["verified"],
                             "bytes_h2d": run["bytes_h2d"], "at_s": time.perf_counter() - t0})
                print(json.dumps(rows[-1]), flush=True)
        for _, _, lg in handles:
            lg.close()
        fractions = []
    else:
        handle_rows("resident", 1.0)
        fractions = args.fractions
    for f in fractions:
        handle_rows("hybrid", f)
    if not args.interleave:
        handle_rows("resident", 1.0)
    doc = {**provenance.stamp({}, None if argv is None else ["dev/handle_probe.py", *argv]),
           "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
           "machine": {"device": "none (CPU backend)" if not gpu else "cuda", "host_cores": os.cpu_count()},
           "scale": scale, "backend": "cuda" if gpu else "cpu", "reps": args.reps,
           "omp_wait_policy": os.environ.get("OMP_WAIT_POLICY"), "rows": rows}
    if args.out:
        Path(args.out).write_text(json.dumps(doc, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
