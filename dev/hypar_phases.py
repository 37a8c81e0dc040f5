#!/usr/bin/env python
"""Where HyPar's time goes: each application by HyPar over two executors (``split``: always split,
the paper's HyPar; ``two``: the planner's choice) and over one, beside the plain algorithm, with
HyPar's phases in ms and as shares of the call (prepare: the simple view; partition: calibration
and planning, the sampled runs when not kept from an earlier call; independent: the parts' runs,
wall time; merge; post-process; finish) and, with ``--profile``, cProfile's top functions.
``--fresh`` samples on every call (no kept calibration: the cost of HyPar's partGraph each time).

Executors as in CI and ``bench/hypar_bench.py``: ``cpu`` and ``cpu:sim`` (the CPU backend with a
64 MiB simulated device arena and the ``compaction`` engine). Medians of ``--repeat`` runs after one
warm-up, the three ways interleaved (a shared host's load falls on all of them alike). The graph is
the undirected simple view of a Kronecker graph (weighted for ``mst``); ``--threshold-edges`` as
in the bench (0: recurse while the graph shrinks).

    OMP_NUM_THREADS=1 python dev/hypar_phases.py --scale 17 --apps wcc triangle_count
    python dev/hypar_phases.py --scale 16 --apps mst --profile split
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from graphferry.algorithms import registry  # noqa: E402
from graphferry.hypar import APPLICATIONS, HyparExecutor as Executor, hypar  # noqa: E402
from graphferry.generators import kronecker_graph  # noqa: E402
from graphferry.transforms import simple_graph  # noqa: E402

PHASES = ("prepare", "partition", "independent", "merge", "post_process", "finish")


def phase_ms(timings: dict, phase: str) -> float:
    value = timings["independent_wall"] if phase == "independent" else timings[phase]
    return 1e3 * (sum(value) if isinstance(value, list) else value)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", type=int, default=16)
    ap.add_argument("--apps", nargs="+", default=list(APPLICATIONS), choices=list(APPLICATIONS))
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--threshold-edges", type=int, default=0)
    ap.add_argument("--fresh", action="store_true", help="sample on every call (calibration='fresh')")
    ap.add_argument("--profile", choices=("direct", "one", "split", "two"), default=None,
                    help="print cProfile's top functions of one more run of this way")
    args = ap.parse_args()

    cpu = Executor("cpu")
    sim = Executor("cpu", engine="compaction", budget=64 << 20, partition_bytes=1 << 20, name="cpu:sim")
    calibration = "fresh" if args.fresh else "cached"
    plain = simple_graph(kronecker_graph(args.scale, seed=1), undirected=True)
    weighted = kronecker_graph(args.scale, seed=1, weighted=True)
    for app in args.apps:
        g = weighted if app == "mst" else plain
        ways = {"direct": lambda: registry.get(app).function(g, backend="cpu"),
                "one": lambda: hypar(g, app, [cpu], threshold_edges=args.threshold_edges),
                "split": lambda: hypar(g, app, [cpu, sim], threshold_edges=args.threshold_edges, plan="split",
                                       calibration=calibration),
                "two": lambda: hypar(g, app, [cpu, sim], threshold_edges=args.threshold_edges,
                                     calibration=calibration)}
        seconds = {way: [] for way in ways}
        timings = {"one": [], "split": [], "two": []}
        for run in ways.values():
            run()
        for _ in range(args.repeat):
            for way, run in ways.items():
                t = time.perf_counter()
                result = run()
                seconds[way].append(time.perf_counter() - t)
                if way in timings:
                    timings[way].append(result.timings)
        med = {way: 1e3 * statistics.median(s) for way, s in seconds.items()}
        print(f"kron{args.scale} (m={g.m}) {app}: direct {med['direct']:.1f} ms, "
              + ", ".join(f"{way} {med[way]:.1f} ms ({med[way] / med['direct']:.2f}x)" for way in timings))
        for way in timings:
            ms = {p: statistics.median(phase_ms(t, p) for t in timings[way]) for p in PHASES}
            total = statistics.median(1e3 * t["total"] for t in timings[way])
            parts = ", ".join(f"{p} {ms[p]:.1f} ({100 * ms[p] / total:.0f}%)" for p in PHASES)
            plan = timings[way][-1]["plan"]
            print(f"    {way}: {parts} ms; plan {plan['chosen']} ({plan['why']}; calibration {plan['calibration']})")
        if args.profile:
            prof = cProfile.Profile()
            prof.enable()
            ways[args.profile]()
            prof.disable()
            out = io.StringIO()
            pstats.Stats(prof, stream=out).sort_stats("tottime").print_stats(15)
            print(out.getvalue())


if __name__ == "__main__":
    main()
