#!/usr/bin/env python
"""Where the hybrid's host time goes on sparse rounds, beside one engine alone (issue 37).

On the H200 the hybrid's BFS at 1% of Kronecker 25 spent about 1.5 ms more host time than the
zerocopy engine alone on each sparse round (steps 0, 3, 4 and 5: 12.7 ms against 7.2), with the same
plan and bytes. In the simulated arena the gap is about 0.6 ms a round (pricing, statistics, the
whole-side plan's pieces), so most of it is device work the arena does not have: CuPy operations
and the host's waits for the device. This runs each engine's calls after a warm-up under cProfile
counts CuPy's calls a call (on a GPU; cProfile sees its C methods too) and those that wait for the
device (``synchronize``, ``get``); it reports each step's host time (seconds less kernel seconds)
and the functions with the most time of their own.

    PYTHONPATH=src python dev/sparse_round_profile.py --small
    PYTHONPATH=src python dev/sparse_round_profile.py --scale 25 --fraction 0.01 --out $OUT/sparse-rounds.json
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
import engines_bench as eb  # noqa: E402
import peers_bench as pb  # noqa: E402
import profiles  # noqa: E402
import provenance  # noqa: E402


def cupy_calls(stats: pstats.Stats, calls: int) -> dict:
    """CuPy's functions and methods a call made (cProfile sees C methods called from Python too):
    those that wait for the device (``synchronize``, ``get``) and all of them, per call."""
    waits = total = 0
    for (path, _, name), (_, ncalls, *_rest) in stats.stats.items():
        if "cupy" not in path and "cupy" not in name:
            continue
        total += ncalls
        if "synchronize" in name or name.startswith("<method 'get'") or "'get' of" in name:
            waits += ncalls
    return {"cupy_calls": total / calls, "cupy_waits": waits / calls}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scale", type=int, default=25)
    ap.add_argument("--small", action="store_true", help="the CPU backend (simulated arena), scale 14")
    ap.add_argument("--fraction", type=float, default=0.01, help="the hybrid's budget, of m x 8 bytes")
    ap.add_argument("--algorithm", default="bfs", choices=["bfs", "sssp", "wcc"])
    ap.add_argument("--engines", nargs="+", default=["hybrid", "zerocopy"])
    ap.add_argument("--calls", type=int, default=5)
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    import graphferry as gf

    gpu = not args.small
    scale = min(args.scale, 14) if args.small else args.scale
    g, _ = eb.kronecker(scale, cpu_generator=not gpu, weighted=True)
    source = eb.source_vertex(g)
    wbytes = int(g.m * 8)
    # the arena's partitions as many as Kronecker 25's 32 MiB ones (125 at 1%)
    base = gf.load(g, backend="cuda" if gpu else "cpu", budget=wbytes,
                   partition_bytes=None if gpu else max(1024, wbytes // 125))
    base.side_packed("out")
    if g.weights is not None:
        base.side_fused("out")
    rows = []
    for engine in args.engines:
        lg = base.with_budget(max(1, int(args.fraction * wbytes)) if engine == "hybrid" else wbytes)
        pb.call(args.algorithm, lg, source, engine)                        # warm-up
        prof = cProfile.Profile()
        walls, hosts = [], []
        for _ in range(args.calls):
            t = time.perf_counter()
            prof.enable()
            r = pb.call(args.algorithm, lg, source, engine)
            prof.disable()
            walls.append(time.perf_counter() - t)
            hosts.append([s.seconds - s.kernel_seconds for s in r.record.steps])
        steps = [statistics.median(h[i] for h in hosts) * 1e3 for i in range(min(map(len, hosts)))]
        stats = pstats.Stats(prof)
        rows.append({"engine": engine, "budget_fraction": args.fraction if engine == "hybrid" else 1.0,
                     "ms": statistics.median(walls) * 1e3, "host_ms_a_step": steps,
                     "python_calls_a_call": stats.total_calls // args.calls,
                     "a_call": cupy_calls(stats, args.calls),
                     "top_functions": profiles.top_functions(prof, args.top)})
        print(json.dumps({k: v for k, v in rows[-1].items() if k != "top_functions"}), flush=True)
        lg.close()
    doc = {**provenance.stamp({}, None if argv is None else ["dev/sparse_round_profile.py", *argv]),
           "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
           "machine": {"device": "cuda" if gpu else "none (CPU backend, simulated arena)",
                       "host_cores": os.cpu_count()},
           "graph": {"name": f"kron{scale}", "n": g.n, "m": g.m}, "algorithm": args.algorithm,
           "calls": args.calls, "rows": rows}
    if args.out:
        Path(args.out).write_text(json.dumps(doc, indent=1, default=float))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
