#!/usr/bin/env python
"""Each edge kernel launch's time, by step, for copied groups beside the resident copy (issue 37).

Why: at Kronecker 25 the filter and compaction engines' push kernels over copied groups took
151-158 ms on SSSP's first round, where the resident engine's took 13 ms for the same edges and
format. Each of their 138 groups is its own launch over the group's active rows (a row list): the
first round's 640 K rows have about 1,000 edges each, so a group's launch has about 18 blocks, and
each block takes its rows of 256-2047 edges one after another with the whole block
(``gf_edge_twc``), while the rest of the device idles. This times every launch of the row kernel
and of the grid-wide kernel (CUDA events around each), attributes each to its step, and can move
the grid-wide kernel's thresholds (``--huge-min``, ``--narrow-min``: rows at least this heavy are cut
into chunks that every block of a full grid takes), so one process per threshold compares them.

    PYTHONPATH=src python dev/launch_width_probe.py --small
    PYTHONPATH=src python dev/launch_width_probe.py --scale 25 --narrow-min 2048 --out $OUT/width-old.json
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
import engines_bench as eb  # noqa: E402
import provenance  # noqa: E402


def set_huge_min(rows: int, narrow_rows: int | None) -> None:
    """Rows of at least ``rows`` edges go to the grid-wide kernel, ``narrow_rows`` in a narrow launch
    over a copy (None: the built-in rule). The threshold travels in the queue (``huge_queue``)."""
    from graphferry.backends.cuda import backend as cb

    cb.HUGE_MIN = rows
    if narrow_rows is not None:
        cb.BLOCK_MIN = narrow_rows  # only _edge's rule reads it; the kernels' GF_BLOCK_MIN stays


class LaunchLog:
    """Wraps every kernel a CudaProgram hands out; while ``on``, each launch is timed with events."""

    def __init__(self):
        self.on = False
        self.launches: list[tuple] = []

    def install(self) -> None:
        from graphferry.backends.cuda.backend import CudaProgram

        log, plain = self, CudaProgram._fn

        def timed_fn(prog, name):
            fn = plain(prog, name)

            def launch(grid, block, args):
                if not log.on:
                    return fn(grid, block, args)
                import cupy

                s = cupy.cuda.get_current_stream()
                a, b = cupy.cuda.Event(), cupy.cuda.Event()
                a.record(s)
                fn(grid, block, args)
                b.record(s)
                log.launches.append((name, int(grid[0]), time.perf_counter(), a, b))
            if hasattr(fn, "ptr"):  # the occupancy query reads it
                launch.ptr = fn.ptr
            return launch

        CudaProgram._fn = timed_fn

    def by_step(self, record) -> list[dict]:
        """The launches of ``record``'s run, summed per step (the step whose host span holds the launch)."""
        import cupy

        cupy.cuda.runtime.deviceSynchronize()
        starts = [(s.started, s.started + s.seconds, s.index) for s in record.steps]
        out: dict[int, dict] = {}
        for name, grid, t, a, b in self.launches:
            at = t - record._origin
            step = next((i for lo, hi, i in starts if lo <= at <= hi), -1)
            kind = "huge" if "_huge" in name else ("vmap" if "vmap" in name or "nmap" in name else "rows")
            d = out.setdefault(step, {"step": step, "rows_launches": 0, "rows_ms": 0.0, "huge_launches": 0,
                                      "huge_ms": 0.0, "other_ms": 0.0, "rows_blocks": [], "rows_max_ms": 0.0,
                                      "by_kernel": {}})
            ms = cupy.cuda.get_elapsed_time(a, b)
            k = d["by_kernel"].setdefault(name, [0, 0.0, 0])  # launches, ms, blocks
            k[0], k[1], k[2] = k[0] + 1, round(k[1] + ms, 3), k[2] + grid
            if kind == "rows":
                d["rows_launches"] += 1
                d["rows_ms"] += ms
                d["rows_blocks"].append(grid)
                d["rows_max_ms"] = max(d["rows_max_ms"], ms)
            elif kind == "huge":
                d["huge_launches"] += 1
                d["huge_ms"] += ms
            else:
                d["other_ms"] += ms
        self.launches.clear()
        rows = []
        for step in sorted(out):
            d = out[step]
            blocks = d.pop("rows_blocks")
            d["rows_blocks_median"] = int(statistics.median(blocks)) if blocks else 0
            rows.append({k: (round(v, 3) if isinstance(v, float) else v) for k, v in d.items()})
        return rows


def timed_run(log: LaunchLog, run, handle, engine: str, reps: int):
    """A warm-up, ``reps`` timed calls, then one call with every launch timed: (walls, result, steps)."""
    run(handle, engine)
    handle.backend.synchronize()
    walls = []
    for _ in range(reps):
        t = time.perf_counter()
        run(handle, engine)
        handle.backend.synchronize()
        walls.append(time.perf_counter() - t)
    log.on = True
    result = run(handle, engine)
    handle.backend.synchronize()
    log.on = False
    steps = log.by_step(result.record)
    for row in steps:
        i = row["step"]
        if 0 <= i < len(result.record.steps):
            st = result.record.steps[i]
            row.update(direction=st.direction, active_edges=int(st.active_edges),
                       step_ms=round(st.seconds * 1e3, 3), copy_ms=round((st.copy_seconds or 0) * 1e3, 3))
    return walls, result, steps


def parse(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scale", type=int, default=25)
    ap.add_argument("--small", action="store_true", help="scale 16, two engines: a smoke run")
    ap.add_argument("--fraction", type=float, default=0.25, help="the hybrid's budget, of m x 8 bytes")
    ap.add_argument("--huge-min", type=int, default=None, help="the grid-wide threshold (default: the built-in)")
    ap.add_argument("--narrow-min", type=int, default=None,
                    help="the threshold of narrow launches over copies (default: the built-in; 2048: the old rule)")
    ap.add_argument("--no-pack-ids", dest="pack_ids", action="store_false",
                    help="ranges read or copied hold plain 32-bit ids (gf.load's pack_ids)")
    ap.add_argument("--no-fuse-edges", dest="fuse_edges", action="store_false",
                    help="reads in place read ids and weights as two arrays (gf.load's fuse_edges)")
    ap.add_argument("--algorithms", nargs="+", default=["sssp", "bfs"], choices=["sssp", "bfs", "wcc", "pagerank"])
    ap.add_argument("--engines", nargs="+", default=["resident", "filter", "compaction", "zerocopy", "hybrid"])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    if args.small:
        args.scale, args.engines = 16, ["resident", "filter"]
    return args


def main(argv=None) -> int:
    args = parse(argv)
    if args.huge_min is not None or args.narrow_min is not None:
        set_huge_min(args.huge_min or 2048, args.narrow_min)
    from graphferry.backends.cuda import backend as cb

    import graphferry as gf
    from graphferry.algorithms import bfs, pagerank, sssp, wcc

    log = LaunchLog()
    log.install()
    g, _ = eb.kronecker(args.scale, seed=0, weighted=True)
    source = int(np.argmax(g.out_degree))
    full = gf.load(g, backend="cuda")
    lg = gf.load(full.graph, backend="cuda", budget=max(1 << 20, int(args.fraction * g.m * 8)), pinned=False,
                 pack_ids=args.pack_ids, fuse_edges=args.fuse_edges)
    calls = {"sssp": lambda h, e: sssp(h, source, engine=e), "bfs": lambda h, e: bfs(h, source, engine=e),
             "wcc": lambda h, e: wcc(h, engine=e),
             "pagerank": lambda h, e: pagerank(h, engine=e, max_iterations=5, tol=1e-30)}
    keys = {"sssp": "distances", "bfs": "levels", "wcc": "labels", "pagerank": None}
    rule = f"huge_min {cb.HUGE_MIN}/{cb.BLOCK_MIN}"
    # "rows", not "runs": each row is a profile of one engine's call, not a timed benchmark run
    doc = {**provenance.stamp({}), "date": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
           "graph": {"name": f"kron{args.scale}", "n": g.n, "m": g.m, "source": source},
           "huge_min": cb.HUGE_MIN, "narrow_min": cb.BLOCK_MIN,
           "fraction": args.fraction, "pack_ids": args.pack_ids, "fuse_edges": args.fuse_edges, "machine": eb.probe(lg.backend), "rows": []}
    for algorithm in args.algorithms:
        reference = None
        for engine in args.engines:
            walls, result, steps = timed_run(log, calls[algorithm], full if engine == "resident" else lg, engine,
                                             args.reps)
            verified = None
            if keys[algorithm]:
                result.to_host()
                values = np.asarray(result.values[keys[algorithm]])
                if reference is None:
                    reference = values.copy()
                verified = bool(np.array_equal(values, reference))
            entry = {"algorithm": algorithm, "engine": engine, "median_ms": round(statistics.median(walls) * 1e3, 2),
                     "all_ms": [round(w * 1e3, 2) for w in walls], "equals_first_engine": verified, "steps": steps}
            doc["rows"].append(entry)
            heavy = max(steps, key=lambda r: r["rows_ms"] + r["huge_ms"]) if steps else {}
            print(f"{rule} {algorithm:8s} {engine:10s} {entry['median_ms']:8.1f} ms  "
                  f"dearest step {heavy.get('step')}: rows {heavy.get('rows_ms')} ms in {heavy.get('rows_launches')} "
                  f"launches (median {heavy.get('rows_blocks_median')} blocks), huge {heavy.get('huge_ms')} ms  "
                  f"same as first: {verified}", flush=True)
            if args.out:
                Path(args.out).write_text(json.dumps(doc, indent=1))
    lg.close()
    full.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
