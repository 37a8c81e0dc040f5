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

    python bench/multidevice_bench.py --backend cuda --scale 25 --fit-scale 21 --ranks 1 2 4 \\
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
import provenance  # noqa: E402  (commit, dirty, diff hash, command: issue 35)
sys.path.insert(0, str(Path(__file__).resolve().parent))

#: (case name, algorithm, parameters, forced direction, repartition)
CASES = [
    ("pagerank-pull", "pagerank_ldbc", {"damping": 0.85, "iterations": 20}, "pull", False),
    ("pagerank-push", "pagerank_ldbc", {"damping": 0.85, "iterations": 20}, "push", False),
    ("pagerank-pull-repartition", "pagerank_ldbc", {"damping": 0.85, "iterations": 20}, "pull", True),
    ("bfs", "bfs", {}, "auto", False),
    ("sssp", "sssp", {}, "auto", False),
    ("wcc", "wcc", {}, "auto", False),
    ("betweenness", "betweenness", {"k": 2, "seed": 1}, "auto", False),
]

#: one device with the hybrid engine under a budget of ``--hybrid-budget`` of the edge bytes (the
#: single-GPU run that several GPUs are measured against when the graph exceeds one GPU's budget):
#: not a split graph, so run on one rank only
HYBRID_CASE = ("pagerank-hybrid", "pagerank_ldbc", {"damping": 0.85, "iterations": 20}, "pull", False)


def case_named(name: str):
    return HYBRID_CASE if name == HYBRID_CASE[0] else next(c for c in CASES if c[0] == name)


# ====================================================================== worker (one rank)
def worker(args) -> None:
    """Every case named in ``--worker`` (comma-separated) on one load of the graph: each rank reads
    its range once and the cases run one after another, each writing ``<out>/<case>.json``."""
    from graphferry.algorithms import registry
    from graphferry.distributed import DistributedGraph, enter, fail_all, leave, mpi_world, open_rank_store

    world = mpi_world()
    try:
        names = args.worker.split(",")
        t0 = time.perf_counter()
        dg = DistributedGraph(open_rank_store(args.store), world, backend=args.backend)
        load = time.perf_counter() - t0
        source = highest_degree(dg.graph)
        # Lux eqs. 7-9 per rank, for the model: of the in-edge split, which every case starts from
        sets = world.allgather(dg.neighbour_sets())
        for name in names:
            if name == HYBRID_CASE[0]:
                run_hybrid_case(args, world, source)
                continue
            _, algorithm, params, direction, repartition = case_named(name)
            spec = registry.get(algorithm)
            dg.repartition = repartition
            enter(world, repartition=repartition)
            kwargs = dict(params, **({"source": source} if spec.takes_source else {}))
            trials = []
            for _ in range(args.trials):
                dg.log.clear()
                if repartition:  # every trial starts from the in-edge split
                    dg.move_to(in_edge_splits(dg, world.size))
                    dg.repartitioner.history.clear()
                world.barrier()
                result = spec.run(dg, direction=direction, backend=args.backend, **kwargs)
                trials.append((result.record.total_seconds, result, list(dg.log)))
            leave()
            history = list(dg.repartitioner.history)
            final_splits = [int(x) for x in dg.splits]
            if repartition:  # the next case starts from the in-edge split again
                dg.move_to(in_edge_splits(dg, world.size))
            if world.rank == 0:
                # the fastest trial: the first moves each rank's edges to its GPU and sets NCCL up
                # (seconds in its first iterations), which a median of two trials would pick
                seconds, result, log = min(trials, key=lambda t: t[0])
                write_case(args.out, name, result, seconds, trials, load, log, sets, history, final_splits,
                           {"algorithm": algorithm, "ranks": world.size, "devices": dg.devices,
                            "nodes": world.nodes, "backend": args.backend, "direction": direction,
                            "repartition": repartition,
                            "gathers": list(getattr(dg.collectives, "gathers", [])),
                            "pipeline_choices": list(dg.pipeline_choices)})
            world.barrier()
            load = 0.0  # the graph was loaded once, by the first case
    except BaseException as e:  # noqa: BLE001 - one rank's failure ends every rank
        fail_all(world, e)


def pagerank_speedups(runs: list[dict]) -> dict[str, dict[str, float]]:
    """PageRank pull's speed-up from one device to each count: per whole round (the edge_map, the
    vertex maps, the sinks' sum: what an iteration costs a user) and per edge_map step alone.

    >>> runs = [{"case": "pagerank-pull", "devices": d, "median_round_seconds": 0.3 / d,
    ...          "median_iteration_seconds": 0.2 / d} for d in (1, 2)]
    >>> pagerank_speedups(runs)
    {'rounds': {'2': 2.0}, 'edge_map steps': {'2': 2.0}}
    """
    pulls = {int(r["devices"]): r for r in runs if r.get("case") == "pagerank-pull"}
    out = {}
    for what, key in (("rounds", "median_round_seconds"), ("edge_map steps", "median_iteration_seconds")):
        one = pulls.get(1, {}).get(key)
        if one:
            out[what] = {str(d): round(one / r[key], 3) for d, r in sorted(pulls.items()) if d > 1 and r.get(key)}
    return out


def in_edge_splits(dg, parts: int):
    from graphferry.distributed.placement import balanced_splits, work_prefix

    return balanced_splits(work_prefix(dg.in_offsets), parts)


def write_case(out_dir, name, result, seconds, trials, load, log, sets, history, final_splits, about) -> None:
    """One case's figures (and its answer, checked by the driver against the CPU backend)."""
    out = Path(out_dir) / f"{name}.json"
    np.savez(str(out) + ".npz", **{k: np.asarray(v) for k, v in result.values.items()})
    steps = [s for s in result.record.steps if s.op == "edge_map"]
    # issue 35: the first trial (NCCL set up, edges moved to the GPUs) and the median of the trials
    # after it; the fastest, whose record the figures below are, as best_seconds
    warm = [t[0] for t in trials[1:]] or [trials[0][0]]
    res = {"case": name, **about, "seconds": round(statistics.median(warm), 6),
           "first_seconds": round(trials[0][0], 6), "best_seconds": round(seconds, 6),
           "all_seconds": [round(t[0], 6) for t in trials], "load_seconds": round(load, 4),
           "iterations": len(steps),
           "iteration_seconds": [round(s.seconds, 6) for s in steps],
           # whole rounds: an edge_map and the vertex maps, reductions and driver work up to the next
           "round_seconds": [round(x, 6) for x in result.record.round_seconds()],
           "directions": [s.direction for s in steps],
           "active_edges": [int(s.active_edges) for s in steps],
           "engines": sorted({p.engine for s in steps for p in getattr(s, "partitions", [])}),
           "log": log, "final_splits": final_splits, "repartitions": history, "neighbour_sets": sets}
    out.write_text(json.dumps(res))


def run_hybrid_case(args, world, source) -> None:
    """PageRank on one GPU through the single-device runtime, edges in host memory, the hybrid engine
    choosing per partition under a budget of ``--hybrid-budget`` of the edge bytes."""
    import graphferry as gf
    from graphferry.algorithms import registry
    from graphferry.store import open_store

    if world.size != 1:
        raise ValueError(f"{HYBRID_CASE[0]} runs on one rank, not {world.size}")
    name, algorithm, params, direction, _ = HYBRID_CASE
    t0 = time.perf_counter()
    g = open_store(args.store)
    budget = max(1 << 20, int(args.hybrid_budget * g.m * (g.indices.itemsize + (4 if g.weighted else 0))))
    lg = gf.load(g, backend=args.backend, budget=budget)
    load = time.perf_counter() - t0
    spec = registry.get(algorithm)
    trials = []
    for _ in range(args.trials):
        result = spec.run(lg, direction=direction, **params)
        trials.append((result.record.total_seconds, result, []))
    seconds, result, _ = min(trials, key=lambda t: t[0])
    write_case(args.out, name, result, seconds, trials, load, [], [], [], [0, g.n],
               {"algorithm": algorithm, "ranks": 1, "devices": 1, "nodes": 1, "backend": args.backend,
                "direction": direction, "repartition": False, "budget_bytes": budget,
                "budget_fraction": args.hybrid_budget})
    lg.close()


# ====================================================================== driver
def run_config(store: Path, ranks: int, cases: list[str], args, work: Path) -> dict[str, dict]:
    """One ``mpiexec -n ranks`` launch running ``cases`` on one load of ``store``: {case: its figures}."""
    out = work / f"{store.name}-{ranks}"
    out.mkdir(parents=True, exist_ok=True)
    beside = Path(sys.executable).parent / "mpiexec"  # the mpich wheel's, when not on PATH
    launcher = os.environ.get("MPIEXEC") or (str(beside) if beside.exists() else "mpiexec")  # MPIEXEC: the one to use
    cmd = [launcher, "-n", str(ranks), sys.executable, __file__, "--worker", ",".join(cases), "--store", str(store),
           "--out", str(out), "--backend", args.backend, "--trials", str(args.trials),
           "--hybrid-budget", str(args.hybrid_budget)]
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    if args.backend == "cpu":  # a CPU rank is one device of one core: 1, 2, 4 ranks = 1, 2, 4 devices
        env["OMP_NUM_THREADS"] = "1"
    t = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout * len(cases), env=env)
    wall = round(time.perf_counter() - t, 2)
    results = {}
    for case in cases:
        f = out / f"{case}.json"
        if not f.exists():
            continue
        res = json.loads(f.read_text())
        res["process_wall_seconds"] = wall  # the launch's, shared by its cases
        with np.load(str(f) + ".npz") as z:
            res["values"] = {k: z[k] for k in z.files}
        results[case] = res
    if p.returncode != 0:
        print(f"{' '.join(cmd)} failed after {len(results)} of {len(cases)} cases:\n{p.stderr[-2000:]}",
              file=sys.stderr, flush=True)
    return results


class CpuReference:
    """Each case's answer from the CPU backend on the whole graph, loaded once: what every rank
    count's answer is checked against (the CPU backend is checked against the LDBC suite and
    networkx/scipy oracles in the tests)."""

    def __init__(self, store: Path):
        self.store, self.loaded, self.answers = store, None, {}

    def check(self, case: str, values: dict) -> tuple[bool, str]:
        name, algorithm, params, direction, _ = case_named(case)
        key = (algorithm, tuple(sorted(params.items())))  # pull, push, hybrid: one answer
        if key not in self.answers:
            import graphferry as gf
            from graphferry.algorithms import registry
            from graphferry.store import open_store

            if self.loaded is None:
                self.loaded = gf.load(open_store(self.store), backend="cpu")
            spec = registry.get(algorithm)
            kwargs = dict(params, **({"source": highest_degree(self.loaded.graph)} if spec.takes_source else {}))
            self.answers[key] = {k: np.asarray(v) for k, v in spec.run(self.loaded, **kwargs).values.items()}
        want = self.answers[key]
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


def model_choice(model, candidates: dict, g, vertex_bytes: int, ranks: list[int], log) -> dict:
    """The model's pick among the measured PageRank configurations (direction, ranks) against the
    measured fastest, and its prediction errors."""
    chosen = model.choose(edges=g.m, n=g.n, vertex_bytes=vertex_bytes, candidates=ranks)
    best = min(candidates, key=candidates.get)
    predicted = {f"{d}-{r}": model.predict(d, edges=g.m, n=g.n, vertex_bytes=vertex_bytes, ranks=r)
                 for d, r in candidates}
    errors = [abs(predicted[f"{d}-{r}"] - t) / t for (d, r), t in candidates.items()]
    choice = {"chosen": {"direction": chosen[0], "ranks": chosen[1], "predicted_seconds": chosen[2]},
              "measured_best": {"direction": best[0], "ranks": best[1], "seconds": candidates[best]},
              "chosen_measured_seconds": candidates.get((chosen[0], chosen[1])),
              "picked_fastest": (chosen[0], chosen[1]) == best,
              "predicted_iteration_seconds": predicted,
              "measured_iteration_seconds": {f"{d}-{r}": t for (d, r), t in candidates.items()},
              "median_abs_relative_error": statistics.median(errors) if errors else None,
              "max_abs_relative_error": max(errors) if errors else None}
    log(f"model choice: {choice}")
    return choice


def fit_model(args, work: Path, vertex_bytes: int, units: int, log):
    """``(observations, fit stores, model)``: the model of an earlier run (``--model-from``), or one
    fitted now on two small graphs from pull and push PageRank at every rank count (``--fit-scale 0``:
    no model)."""
    from graphferry.distributed.model import PerformanceModel

    fit_obs, fit_stores, model = [], [], None
    if args.model_from:
        earlier = json.loads(Path(args.model_from).read_text())
        model = PerformanceModel(**earlier["model"])
        fit_obs = earlier.get("model_fit_observations", [])
        log(f"model from {args.model_from}: {model.to_dict()}")
    elif args.fit_scale > 0:
        fit_stores = [make_store(s, work, seed=2, on_gpu=args.backend == "cuda")
                      for s in (args.fit_scale - 1, args.fit_scale)]
        for fit_store, fit_g in fit_stores:  # two sizes: exchange bytes and steps are then told apart
            for ranks in args.ranks:
                for res in run_config(fit_store, ranks, ["pagerank-pull", "pagerank-push"], args, work).values():
                    fit_obs += observations(res, fit_g.n, vertex_bytes)
        # every rank keeps the whole state where it computes (CPU or GPU): no per-iteration load
        # (model.py); the exchange term moves the values
        model = PerformanceModel.fit(fit_obs, units=units, shared_host=args.backend == "cpu", gamma_load=0.0)
        log(f"model: {model.to_dict()}")
    return fit_obs, fit_stores, model


def case_run(case: str, res: dict, ranks: int, args, reference, model, g, vertex_bytes: int, log) -> dict:
    """One case's results file run from the ranks' results, checked against the CPU reference,
    with the model's prediction beside a PageRank on split graphs."""
    algorithm = case_named(case)[1]
    res["verified"], how = reference.check(case, res.pop("values"))
    log(f"{case:<28} ranks {ranks}: {res['seconds'] * 1e3:9.1f} ms  iterations {res['iterations']}  "
        f"verified {res['verified']}  splits {res['final_splits']}")
    hybrid = case == HYBRID_CASE[0]
    run = {"algorithm": algorithm, "case": case,
           "engine": "hybrid" if hybrid else f"ranks-{args.backend}", "ranks": ranks,
           "devices": res["devices"], "seconds": res["seconds"], "first_seconds": res["first_seconds"],
           "best_seconds": res["best_seconds"], "iterations": res["iterations"],
           "bytes_h2d": 0, "floor_seconds": 0.0, "verified": res["verified"] is True,
           "verified_how": how,
           **{k: res[k] for k in ("all_seconds", "direction", "repartition", "iteration_seconds", "round_seconds",
                                  "directions", "active_edges", "final_splits", "repartitions",
                                  "load_seconds", "process_wall_seconds", "neighbour_sets", "engines")},
           **{k: res[k] for k in ("budget_bytes", "budget_fraction", "gathers", "pipeline_choices")
              if k in res}}
    run["median_iteration_seconds"] = statistics.median(res["iteration_seconds"]) if res["iteration_seconds"] else None
    run["median_round_seconds"] = statistics.median(res["round_seconds"]) if res["round_seconds"] else None
    run["rank_compute_seconds"] = [e["compute_seconds"] for e in res["log"]]
    run["rank_exchange_seconds"] = [e["exchange_seconds"] for e in res["log"]]
    run["rank_frontier_exchange_seconds"] = [e.get("frontier_exchange_seconds") for e in res["log"]]
    # ---- the model's prediction for PageRank iterations on split graphs
    if model is not None and algorithm == "pagerank_ldbc" and not hybrid:
        measured = statistics.median(res["iteration_seconds"])
        direction = res["direction"]
        predicted = model.predict(direction, edges=g.m, n=g.n, vertex_bytes=vertex_bytes, ranks=ranks,
                                  ins_total=sum(x["ins"] for x in res["neighbour_sets"]))
        run["model"] = {"predicted_iteration_seconds": predicted, "measured_iteration_seconds": measured,
                        "relative_error": (predicted - measured) / measured}
        log(f"    model: predicted {predicted * 1e3:.2f} ms, measured {measured * 1e3:.2f} ms per iteration")
    return run


def write_results(args, g, fit_stores, fit_obs, model, choice, speedups, runs: list, log) -> None:
    """The results file: the machine, the graphs, the model, its choice, the speed-ups, every run."""
    result = {
        **provenance.stamp({}),
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "machine": {"device": "CPU ranks (no GPU): each rank one process of one OpenMP thread"
                    if args.backend == "cpu" else f"{gpu_name()} x{max(args.ranks)}, one GPU per rank",
                    "host_cores": os.cpu_count(), "note": "shared 2-core machine, timings noisy; medians of "
                    f"{args.trials} trials" if args.backend == "cpu" else ""},
        "graph": {"name": g.name, "n": g.n, "m": g.m, "directed": g.directed,
                  "edge_bytes": int(g.m * (g.indices.itemsize + 4))},
        "fit_graphs": [{"name": fg.name, "n": fg.n, "m": fg.m} for _, fg in fit_stores],
        "devices_note": "devices = ranks; each rank computes on one device (a GPU, or a CPU rank)",
        "model": model and model.to_dict(),
        "model_fit_observations": fit_obs,
        "model_choice": choice,
        "pagerank_speedups": speedups,
        "runs": runs,
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1)
    log(f"wrote {args.out}")


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
    ap.add_argument("--cases", nargs="+", default=None,
                    help=f"cases to measure (default all): {', '.join(c[0] for c in CASES)}, {HYBRID_CASE[0]}")
    ap.add_argument("--model-from", default=None,
                    help="take the performance model fitted by an earlier run (its results file) instead of fitting")
    ap.add_argument("--hybrid-budget", type=float, default=0.25,
                    help=f"{HYBRID_CASE[0]}: device budget as a share of the edge bytes")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    if args.worker:
        return worker(args)

    known = [c[0] for c in CASES] + [HYBRID_CASE[0]]
    cases = args.cases or [c[0] for c in CASES]
    unknown = [c for c in cases if c not in known]
    if unknown:
        raise SystemExit(f"--cases: unknown {', '.join(unknown)} (known: {', '.join(known)})")
    work = Path(args.work or tempfile.mkdtemp(prefix="gf-multi-"))
    work.mkdir(parents=True, exist_ok=True)
    log = lambda s: print(s, file=sys.stderr, flush=True)  # noqa: E731
    if args.store:
        from graphferry.store import open_store

        store, g = Path(args.store), open_store(args.store)
    else:
        store, g = make_store(args.scale, work, seed=1, on_gpu=args.backend == "cuda")
    # the model's bytes per vertex and exchange: a constant of PageRank's, the same in the fit and
    # in the prediction, so its value only scales gamma_xfer
    vertex_bytes = 8 * 3
    units = int(os.cpu_count() or 1) if args.backend == "cpu" else max(args.ranks)  # cores, or GPUs

    # ---- fit the model on two small graphs: pull and push PageRank at every rank count
    #      (--fit-scale 0: no model)
    fit_obs, fit_stores, model = fit_model(args, work, vertex_bytes, units, log)

    # ---- measure every case at every rank count, one launch (one load of the graph) per rank count
    runs = []
    reference = CpuReference(store)
    for ranks in args.ranks:
        mine = [c for c in cases if c != HYBRID_CASE[0] or ranks == 1]
        if not mine:
            continue
        for case, res in run_config(store, ranks, mine, args, work).items():
            runs.append(case_run(case, res, ranks, args, reference, model, g, vertex_bytes, log))
            # what is measured so far, so that a run cut short by a time limit still leaves its figures
            Path(args.out + ".partial").write_text(json.dumps(
                {"model": model and model.to_dict(), "runs": runs}, indent=1))

    # ---- the model's choice among PageRank configurations (no repartitioning) against the measured best
    candidates = {(r["direction"], r["ranks"]): statistics.median(r["iteration_seconds"]) for r in runs
                  if r["case"] in ("pagerank-pull", "pagerank-push")}
    choice = model_choice(model, candidates, g, vertex_bytes, args.ranks, log) if model and candidates else None
    speedups = pagerank_speedups(runs)
    for what, ratios in speedups.items():
        log(f"PageRank pull speed-up over one device ({what}): "
            + ", ".join(f"{k} devices {v:.2f}x" for k, v in ratios.items()))

    # ---- GAPBS on all host cores, same graph
    if args.gapbs_bin and Path(args.gapbs_bin).is_dir():
        from peers_bench import gapbs_runs, write_gapbs

        files = write_gapbs(g, work / "graph")
        # from graphferry's source (the highest-degree vertex): GAPBS ran from vertex 0 here before
        # issue 35, a different search from the one it was set beside
        runs += gapbs_runs(Path(args.gapbs_bin), files, highest_degree(g), args.trials, None, args.timeout, log)

    write_results(args, g, fit_stores, fit_obs, model, choice, speedups, runs, log)


if __name__ == "__main__":
    main()
