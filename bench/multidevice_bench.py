"""Several ranks and devices (Lux): 1, 2, 4 ... ranks, with and without dynamic repartitioning,
pull against push per iteration, the performance model's prediction error and choice, GAPBS beside.

Each configuration is one ``mpiexec -n P`` run of this file in worker mode
(``--worker``) on a graph store that every rank opens for its own range; rank 0
checks the result with the algorithm's verifier and writes what it saw (run
record, per-rank compute and exchange seconds per iteration, split points).
The driver then fits the performance model (Lux Table 1,
:mod:`graphferry.distributed.model`) on a smaller graph (``--fit-scale``) and
reports its prediction error per configuration and direction on the measured
graph, and whether the configuration it picks is the fastest measured.

On one host with CPU ranks (``--backend cpu``) every rank is one process with
its share of the cores; with ``--backend cuda`` each rank takes one GPU
(``local_rank``), its state exchanged by NCCL. ``devices`` in the results is the
number of devices that computed (GPUs, or CPU ranks).

Usage (here, CPU ranks at small scale)::

    python bench/multidevice_bench.py --scale 14 --fit-scale 12 --ranks 1 2 4 \\
        --out bench/results/multidevice-cpu-ranks-kron14.json

On a multi-GPU machine (the lead's run)::

    python bench/multidevice_bench.py --backend cuda --scale 25 --fit-scale 22 --ranks 1 2 4 \\
        --gapbs-bin /path/to/gapbs --out bench/results/multidevice-kron25-h100x4.json
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

#: (case name, algorithm, parameters, forced direction, repartition)
CASES = [
    ("pagerank-pull", "pagerank_ldbc", {"damping": 0.85, "iterations": 10}, "pull", False),
    ("pagerank-push", "pagerank_ldbc", {"damping": 0.85, "iterations": 10}, "push", False),
    ("pagerank-pull-repartition", "pagerank_ldbc", {"damping": 0.85, "iterations": 10}, "pull", True),
    ("bfs", "bfs", {}, "auto", False),
    ("sssp", "sssp", {}, "auto", False),
    ("wcc", "wcc", {}, "auto", False),
    ("betweenness", "betweenness", {"k": 2, "seed": 1}, "auto", False),
]


# ====================================================================== worker (one rank)
def worker(args) -> None:
    from graphferry.algorithms import registry
    from graphferry.distributed import DistributedGraph, enter, fail_all, leave, mpi_world, open_rank_store

    world = mpi_world()
    try:
        name, algorithm, params, direction, repartition = next(c for c in CASES if c[0] == args.worker)
        spec = registry.get(algorithm)
        t0 = time.perf_counter()
        dg = DistributedGraph(open_rank_store(args.store), world, backend=args.backend, repartition=repartition)
        enter(world, repartition=repartition)
        kwargs = dict(params)
        if spec.takes_source:
            kwargs["source"] = highest_degree(dg.graph)
        load = time.perf_counter() - t0
        trials = []
        for _ in range(args.trials):
            dg.log.clear()
            if repartition:  # every trial starts from the in-edge split
                from graphferry.distributed.placement import balanced_splits, work_prefix

                dg.move_to(balanced_splits(work_prefix(dg.in_offsets), world.size))
                dg.repartitioner.history.clear()
            world.barrier()
            result = spec.run(dg, direction=direction, backend=args.backend, **kwargs)
            trials.append((result.record.total_seconds, result, list(dg.log)))
        leave()
        sets = world.allgather(dg.neighbour_sets())  # Lux eqs. 7-9 per rank, for the model
        if world.rank == 0:
            # the fastest trial: the first moves each rank's edges to its GPU and sets NCCL up (seconds
            # in its first iterations), which a median of two trials would pick
            seconds, result, log = min(trials, key=lambda t: t[0])
            # checked by the driver against the CPU backend on the whole graph (one pass per case,
            # not the algorithm's serial verifier, which takes minutes at scale 25)
            np.savez(args.out + ".npz", **{k: np.asarray(v) for k, v in result.values.items()})
            steps = [s for s in result.record.steps if s.op == "edge_map"]
            out = {"case": name, "algorithm": algorithm, "ranks": world.size, "devices": dg.devices,
                   "nodes": world.nodes, "backend": args.backend, "direction": direction,
                   "repartition": repartition, "seconds": round(seconds, 6),
                   "all_seconds": [round(t[0], 6) for t in trials], "load_seconds": round(load, 4),
                   "iterations": len(steps),
                   "iteration_seconds": [round(s.seconds, 6) for s in steps],
                   "directions": [s.direction for s in steps],
                   "active_edges": [int(s.active_edges) for s in steps],
                   "log": log, "final_splits": [int(x) for x in dg.splits],
                   "repartitions": dg.repartitioner.history,
                   "neighbour_sets": sets}
            with open(args.out, "w") as f:
                json.dump(out, f)
        world.barrier()
    except BaseException as e:  # noqa: BLE001 - one rank's failure ends every rank
        fail_all(world, e)


# ====================================================================== driver
def run_config(store: Path, ranks: int, case: str, args, work: Path) -> dict:
    out = work / f"{case}-{ranks}.json"
    beside = Path(sys.executable).parent / "mpiexec"  # the mpich wheel's, when not on PATH
    launcher = os.environ.get("MPIEXEC") or (str(beside) if beside.exists() else "mpiexec")  # MPIEXEC: the one to use
    cmd = [launcher, "-n", str(ranks), sys.executable, __file__, "--worker", case, "--store", str(store),
           "--out", str(out), "--backend", args.backend, "--trials", str(args.trials)]
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    if args.backend == "cpu":  # a CPU rank is one device of one core: 1, 2, 4 ranks = 1, 2, 4 devices
        env["OMP_NUM_THREADS"] = "1"
    t = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout, env=env)
    if p.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{p.stderr[-2000:]}")
    res = json.loads(out.read_text())
    res["process_wall_seconds"] = round(time.perf_counter() - t, 2)
    with np.load(str(out) + ".npz") as z:
        res["values"] = {k: z[k] for k in z.files}
    return res


class CpuReference:
    """Each case's answer from the CPU backend on the whole graph, loaded once: what every rank
    count's answer is checked against (the CPU backend is checked against the LDBC suite and
    networkx/scipy oracles in the tests)."""

    def __init__(self, store: Path):
        self.store, self.loaded, self.answers = store, None, {}

    def check(self, case: str, values: dict) -> tuple[bool, str]:
        name, algorithm, params, direction, _ = next(c for c in CASES if c[0] == case)
        if case not in self.answers:
            import graphferry as gf
            from graphferry.algorithms import registry
            from graphferry.store import open_store

            if self.loaded is None:
                self.loaded = gf.load(open_store(self.store), backend="cpu")
            spec = registry.get(algorithm)
            kwargs = dict(params, **({"source": highest_degree(self.loaded.graph)} if spec.takes_source else {}))
            self.answers[case] = {k: np.asarray(v) for k, v in spec.run(self.loaded, **kwargs).values.items()}
        want = self.answers[case]
        for k, ref in want.items():
            got = values.get(k)
            if got is None or got.shape != ref.shape:
                return False, f"{k}: missing or of another shape"
            if k == "parents":  # any parent one level up is right (BFS races pick one)
                levels = values["levels"]
                reached = levels > 0
                if not np.array_equal(levels[got[reached]], levels[reached] - 1):
                    return False, "a parent is not one level up"
            elif ref.dtype.kind in "iub":
                if not np.array_equal(got, ref):
                    return False, f"{k}: {int(np.count_nonzero(got != ref))} entries differ"
            elif not np.allclose(got, ref, rtol=1e-6, atol=1e-12, equal_nan=True):
                return False, f"{k}: max difference {float(np.nanmax(np.abs(got - ref)))}"
        return True, "equal to the CPU backend on the whole graph (integers exactly, floats to 1e-6)"


def observations(res: dict, n: int, vertex_bytes: int) -> list[dict]:
    from graphferry.distributed.model import observations_from_log

    obs = observations_from_log(res["log"], n=n, vertex_bytes=vertex_bytes,
                                active_edges=[e["active_edges"] for e in res["log"]])
    return obs


def highest_degree(graph) -> int:
    """The source of BFS, SSSP and betweenness: the highest-degree vertex, as peers_bench takes."""
    return int(np.argmax(np.diff(np.asarray(graph.offsets))))


def gpu_name() -> str:
    try:
        import cupy

        return cupy.cuda.runtime.getDeviceProperties(0)["name"].decode()
    except Exception:  # noqa: BLE001 - no CuPy or no GPU
        return "no GPU"


def make_store(scale: int, work: Path, seed: int, on_gpu: bool = False) -> tuple[Path, object]:
    from graphferry.generators import kronecker_graph

    path = work / f"kron{scale}"
    t = time.perf_counter()
    if on_gpu:  # the GPU sampler (engines_bench): the host's generator took 235 s at scale 25 on 32 cores
        from engines_bench import kronecker
        from graphferry.store import write_store

        g, _ = kronecker(scale, seed=seed, weighted=True)
        write_store(g, path, overwrite=True)
    else:
        g = kronecker_graph(scale, 16, seed=seed, weighted=True, store=path, overwrite=True)  # streamed to disk
    print(f"kron{scale} store made in {time.perf_counter() - t:.1f} s", file=sys.stderr, flush=True)
    return path, g


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--store", default=None, help="a graph store to measure (default: a Kronecker graph)")
    ap.add_argument("--scale", type=int, default=14)
    ap.add_argument("--fit-scale", type=int, default=12, help="Kronecker scale the model is fitted on")
    ap.add_argument("--ranks", type=int, nargs="+", default=[1, 2, 4])
    ap.add_argument("--backend", default="cpu")
    ap.add_argument("--trials", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=900)
    ap.add_argument("--gapbs-bin", default=None, help="directory with GAPBS's bfs, sssp, pr, cc (skipped if absent)")
    ap.add_argument("--work", default=None)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    if args.worker:
        return worker(args)

    from graphferry.distributed.model import PerformanceModel

    work = Path(args.work or tempfile.mkdtemp(prefix="gf-multi-"))
    work.mkdir(parents=True, exist_ok=True)
    log = lambda s: print(s, file=sys.stderr, flush=True)  # noqa: E731
    if args.store:
        from graphferry.store import open_store

        store, g = Path(args.store), open_store(args.store)
    else:
        store, g = make_store(args.scale, work, seed=1, on_gpu=args.backend == "cuda")
    fit_stores = [make_store(s, work, seed=2) for s in (args.fit_scale - 1, args.fit_scale)]
    vertex_bytes = 8 * 3  # pagerank_ldbc: three float64 arrays per vertex exchanged
    units = int(os.cpu_count() or 1) if args.backend == "cpu" else max(args.ranks)  # cores, or GPUs

    # ---- fit the model on the small graph: pull and push PageRank at every rank count
    fit_obs = []
    for fit_store, fit_g in fit_stores:  # two sizes: exchange bytes and steps are then told apart
        for ranks in args.ranks:
            for case in ("pagerank-pull", "pagerank-push"):
                fit_obs += observations(run_config(fit_store, ranks, case, args, work), fit_g.n, vertex_bytes)
    # every rank keeps the whole state where it computes (CPU or GPU): no per-iteration load
    # (model.py); the exchange term moves the values
    model = PerformanceModel.fit(fit_obs, units=units, shared_host=args.backend == "cpu", gamma_load=0.0)
    log(f"model: {model.to_dict()}")

    # ---- measure every case at every rank count
    runs = []
    reference = CpuReference(store)
    for case, algorithm, *_ in CASES:
        for ranks in args.ranks:
            res = run_config(store, ranks, case, args, work)
            res["verified"], how = reference.check(case, res.pop("values"))
            log(f"{case:<28} ranks {ranks}: {res['seconds'] * 1e3:9.1f} ms  iterations {res['iterations']}  "
                f"verified {res['verified']}  splits {res['final_splits']}")
            run = {"algorithm": algorithm, "case": case, "engine": f"ranks-{args.backend}", "ranks": ranks,
                   "devices": res["devices"], "seconds": res["seconds"], "iterations": res["iterations"],
                   "bytes_h2d": 0, "floor_seconds": 0.0, "verified": res["verified"] is True,
                   "verified_how": how,
                   **{k: res[k] for k in ("all_seconds", "direction", "repartition", "iteration_seconds",
                                          "directions", "active_edges", "final_splits", "repartitions",
                                          "load_seconds", "process_wall_seconds", "neighbour_sets")}}
            run["rank_compute_seconds"] = [e["compute_seconds"] for e in res["log"]]
            run["rank_exchange_seconds"] = [e["exchange_seconds"] for e in res["log"]]
            # ---- the model's prediction for PageRank iterations
            if algorithm == "pagerank_ldbc":
                measured = statistics.median(res["iteration_seconds"])
                direction = res["direction"]
                predicted = model.predict(direction, edges=g.m, n=g.n, vertex_bytes=vertex_bytes, ranks=ranks,
                                          ins_total=sum(x["ins"] for x in res["neighbour_sets"]))
                run["model"] = {"predicted_iteration_seconds": predicted, "measured_iteration_seconds": measured,
                                "relative_error": (predicted - measured) / measured}
                log(f"    model: predicted {predicted * 1e3:.2f} ms, measured {measured * 1e3:.2f} ms per iteration")
            runs.append(run)
            # what is measured so far, so that a run cut short by a time limit still leaves its figures
            Path(args.out + ".partial").write_text(json.dumps({"model": model.to_dict(), "runs": runs}, indent=1))

    # ---- the model's choice among PageRank configurations (no repartitioning) against the measured best
    candidates = {(r["direction"], r["ranks"]): statistics.median(r["iteration_seconds"]) for r in runs
                  if r["case"] in ("pagerank-pull", "pagerank-push")}
    chosen = model.choose(edges=g.m, n=g.n, vertex_bytes=vertex_bytes, candidates=args.ranks)
    best = min(candidates, key=candidates.get)
    errors = [abs(r["model"]["relative_error"]) for r in runs if "model" in r]
    choice = {"chosen": {"direction": chosen[0], "ranks": chosen[1], "predicted_seconds": chosen[2]},
              "measured_best": {"direction": best[0], "ranks": best[1], "seconds": candidates[best]},
              "chosen_measured_seconds": candidates.get((chosen[0], chosen[1])),
              "picked_fastest": (chosen[0], chosen[1]) == best,
              "median_abs_relative_error": statistics.median(errors) if errors else None,
              "max_abs_relative_error": max(errors) if errors else None}
    log(f"model choice: {choice}")

    # ---- GAPBS on all host cores, same graph
    if args.gapbs_bin and Path(args.gapbs_bin).is_dir():
        from peers_bench import gapbs_runs, write_gapbs

        files = write_gapbs(g, work / "graph")
        runs += gapbs_runs(Path(args.gapbs_bin), files, 0, args.trials, False, None, args.timeout, log)

    commit = os.environ.get("GRAPHFERRY_COMMIT") or subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, cwd=ROOT).stdout.strip()  # the device copy has no current .git
    result = {
        "schema": "graphferry-bench/1",
        "command": " ".join([Path(sys.executable).name] + sys.argv),
        "commit": commit,
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "machine": {"device": "CPU ranks (no GPU): each rank one process of one OpenMP thread"
                    if args.backend == "cpu" else f"{gpu_name()} x{max(args.ranks)}, one GPU per rank",
                    "host_cores": os.cpu_count(), "note": "shared 2-core machine, timings noisy; medians of "
                    f"{args.trials} trials" if args.backend == "cpu" else ""},
        "graph": {"name": g.name, "n": g.n, "m": g.m, "directed": g.directed,
                  "edge_bytes": int(g.m * (g.indices.itemsize + 4))},
        "fit_graphs": [{"name": fg.name, "n": fg.n, "m": fg.m} for _, fg in fit_stores],
        "devices_note": "devices = ranks; each rank computes on one device (a GPU, or a CPU rank)",
        "model": model.to_dict(),
        "model_fit_observations": fit_obs,
        "model_choice": choice,
        "runs": runs,
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1)
    log(f"wrote {args.out}")


if __name__ == "__main__":
    main()
