"""Triangle counting on the CPU backend, phase by phase, beside GAPBS ``tc`` on the same graph.

One Kronecker graph (undirected, simple; ``graphferry.generators.kronecker_graph(seed=1)``)
per ``--scales`` entry, written once in GAPBS's ``.sg`` format. For each ``--threads``
count, a child process (``OMP_NUM_THREADS`` set before any kernel library loads) times

* ``triangle_count`` end to end on a loaded graph (``graphferry.load``; one warm-up call,
  median of ``--repeat``): the call builds its degree-ordered DAG, as GAPBS's timer
  covers its relabelling;
* its phases, each called as ``triangle_count`` calls it and timed alone (median of
  ``--repeat``): the DAG (``host_ops.degree_ordered_dag``; with ``--dag-steps`` its
  steps too, from the ``graphferry.host_ops`` logger at DEBUG) and the count on a
  prebuilt DAG (the neighbour map and the per-vertex result);
* GAPBS ``tc`` (``-n --repeat``; its own "Trial Time", which covers its relabelling,
  median) and its "Relabel" time.

Here (2 shared cores): ``python bench/triangles_profile.py --scales 18 20 --threads 1 2
--gapbs-bin /work/main/.carry/peers/bin``. On a 16-core device, the same with
``--scales 22 --threads 16``. Prints one line per phase; ``--out`` writes the figures as JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "bench"))


def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2] if len(xs) % 2 else 0.5 * (xs[len(xs) // 2 - 1] + xs[len(xs) // 2])


def graph_for(scale: int, generator: str = "kron"):
    from graphferry.generators import kronecker_graph, uniform_graph
    from graphferry.transforms import simple_graph

    make = kronecker_graph if generator == "kron" else uniform_graph
    return simple_graph(make(scale, seed=1), undirected=True)


def child(scale: int, repeat: int, dag_steps: bool, generator: str) -> dict:
    """Runs in the child process (threads fixed by its environment): our phases."""
    import logging

    import numpy as np

    import graphferry as gf
    from graphferry.algorithms.triangles import PROGRAM, triangle_count
    from graphferry import host_ops
    from graphferry.transforms import is_simple
    from graphferry.algorithms._common import runtime_for

    g = graph_for(scale, generator)
    lg = gf.load(g, backend="cpu")
    simple = is_simple(g, undirected=True)
    out: dict = {"n": g.n, "arcs": g.m}

    def timed(fn):
        fn()
        secs = []
        for _ in range(repeat):
            t = time.perf_counter()
            fn()
            secs.append(time.perf_counter() - t)
        return median(secs), secs

    out["call"], out["call_all"] = timed(lambda: triangle_count(lg, backend="cpu"))
    out["call_min"] = min(out["call_all"])
    out["total"] = int(triangle_count(lg, backend="cpu").total)
    steps: dict[str, list[float]] = {}
    if dag_steps:
        class Steps(logging.Handler):
            def emit(self, record):
                m = re.match(r"dag (\S+) ([\d.]+) s", record.getMessage())
                if m:
                    steps.setdefault(m.group(1), []).append(float(m.group(2)))

        log = logging.getLogger("graphferry.host_ops")
        log.setLevel(logging.DEBUG)
        log.addHandler(Steps())
    import inspect

    known = inspect.signature(host_ops.degree_ordered_dag).parameters   # as triangle_count calls it
    dag_kwargs = {"simple": simple} if "simple" in known else {}
    if "by_degree" in known:
        from graphferry.algorithms.triangles import _relabelling_pays

        dag_kwargs["by_degree"] = out["by_degree"] = _relabelling_pays(g.offsets, None)
    out["dag"], _ = timed(lambda: host_ops.degree_ordered_dag(g.offsets, g.indices, **dag_kwargs))
    out["dag_steps"] = {k: median(v[1:]) for k, v in steps.items()}
    if dag_steps:
        logging.getLogger("graphferry.host_ops").setLevel(logging.WARNING)
    offsets, indices, order, _ = host_ops.degree_ordered_dag(g.offsets, g.indices, **dag_kwargs)
    dag = gf.Graph(offsets, indices, None, directed=True, name="dag")

    def count():
        with runtime_for(dag, "triangles", None, {"backend": "cpu"}) as rt:
            st = rt.start(PROGRAM, arrays={"here": 1})
            st.neighbor_map("count_triangles", in_edges=False)
            return st.host("tri")

    out["count"], _ = timed(count)
    tri = count().astype(np.int64)
    out["scatter"], _ = timed(lambda: np.empty(g.n, np.int64).__setitem__(order, tri))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scales", type=int, nargs="+", default=[18])
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--gapbs-bin", default=None, help="directory holding GAPBS's tc (skipped when absent)")
    ap.add_argument("--generator", choices=("kron", "uniform"), default="kron",
                    help="Kronecker (skewed: relabelled by degree) or uniform (GAPBS -u: oriented by id)")
    ap.add_argument("--dag-steps", action="store_true", help="time the DAG's steps too (DEBUG log)")
    ap.add_argument("--out", default=None)
    ap.add_argument("--child", type=int, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child is not None:
        print(json.dumps(child(args.child, args.repeat, args.dag_steps, args.generator)))
        return
    from peers_bench import write_gapbs

    tc = Path(args.gapbs_bin) / "tc" if args.gapbs_bin else None
    results = []
    for scale in args.scales:
        tmp = Path(tempfile.mkdtemp(prefix="gf-tcprof-"))
        sg = None
        if tc is not None and tc.exists():
            sg = write_gapbs(graph_for(scale, args.generator), tmp / "g")[".sg"]
        for threads in args.threads:
            env = dict(os.environ, OMP_NUM_THREADS=str(threads), OMP_WAIT_POLICY="passive",
                       PYTHONPATH=str(ROOT / "src"))
            cmd = [sys.executable, __file__, "--child", str(scale), "--repeat", str(args.repeat), "--generator", args.generator]
            ours = json.loads(subprocess.run(cmd + (["--dag-steps"] if args.dag_steps else []), env=env,
                                             check=True, capture_output=True, text=True).stdout.splitlines()[-1])
            row = {"generator": args.generator, "scale": scale, "threads": threads, **ours}
            if sg is not None:
                text = subprocess.run([str(tc), "-f", str(sg), "-n", str(args.repeat), "-a"], env=env,
                                      check=True, capture_output=True, text=True).stdout
                trials = [float(x) for x in re.findall(r"Trial Time:\s+([\d.]+)", text)]
                row["gapbs"], row["gapbs_min"], row["gapbs_all"] = median(trials), min(trials), trials
                row["gapbs_relabel"] = median([float(x) for x in re.findall(r"Relabel:\s+([\d.]+)", text)] or [0])
                row["gapbs_total"] = int(re.findall(r"(\d+) triangles", text)[-1])
                row["ratio"] = round(row["call"] / row["gapbs"], 3)
                row["ratio_min"] = round(row["call_min"] / row["gapbs_min"], 3)
            results.append(row)
            steps = " ".join(f"{k} {v * 1e3:.0f}" for k, v in row["dag_steps"].items())
            print(f"{args.generator}{scale} {threads} thr: call {row['call'] * 1e3:.0f} ms = dag {row['dag'] * 1e3:.0f}"
                  f"{f' [{steps}]' if steps else ''} + count {row['count'] * 1e3:.0f} + scatter "
                  f"{row['scatter'] * 1e3:.0f}; GAPBS tc {row.get('gapbs', 0) * 1e3:.0f} ms (relabel "
                  f"{row.get('gapbs_relabel', 0) * 1e3:.0f}); ratio {row.get('ratio')} (of minima {row.get('ratio_min')}); totals {row['total']} "
                  f"{row.get('gapbs_total')}", flush=True)
        if sg is not None:
            sg.unlink()
        tmp.rmdir()
    if args.out:
        Path(args.out).write_text(json.dumps({"command": " ".join(sys.argv), "runs": results}, indent=1) + "\n")


if __name__ == "__main__":
    main()
