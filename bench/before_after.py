#!/usr/bin/env python
"""graphferry before and after a change, in one call: the peers benchmark's own runs on one graph.

Issue 36's target: "the peers benchmark at Kronecker 25 is within 5% of its figures before the
change, measured before and after in one device call". This file generates the Kronecker graph
once (this tree's generator, as ``bench/peers_bench.py`` does), writes its CSR arrays as ``.npy``
files, then runs the same timed calls (``peers_bench.time_ours``: the first call after loading,
then the median of ``--reps`` calls, each checked by ``peers_bench.Checker``) in child processes,
one per tree and engine, each with ``PYTHONPATH=<tree>/src``: the library is the only
difference. The benchmark's code is the same for both, the before tree's ``bench/`` by default
(``--bench-dir``): the peers benchmark of today records run-record fields the old library lacks,
and its calls (``peers_bench.call``) are the same text as then. The trees alternate: per engine, in
the order before/after, then after/before for the next engine, and so on; so drift on the machine
(clocks, the page cache) falls on both.

Each tree gets its own caches (``CUPY_CACHE_DIR``, ``GRAPHFERRY_CACHE_DIR``) under ``--work``,
empty at the start: the first call of a tree's first process compiles, as the other tree's does.
Both trees' caches start with one calibration (``--calibration shared``, the default): this tree's
for the device (:func:`graphferry.runtime.calibration.quick_calibration`: on a GPU model the library
knows, its table), so the hybrid's plans are priced alike. With ``--calibration own`` each tree
makes its own in its first hybrid call, and the two may differ: 20e9547 measures every figure on
the spot (tens of seconds, its own error included), the later library takes the H200's table (the
first call at 0471f92, before this option, compared a BFS priced by each). ``--settle-seconds``:
after the timed calls, wait that long (compilations a tree started in the background end) and
time ``--reps`` calls again (``settled_seconds``); ``--profile-calls``: then that many calls under
cProfile (where the host's time goes, by function). Each run names its plan: the bytes its median
call moved, where its partitions ran (``placements``), its directions and the device-timed copy
and kernel seconds.

Output: one results file (``--out``, schema ``graphferry-bench/2``, stamped with this tree through
``bench/provenance.py``) naming both trees (``trees.before``: the commit given, its ``src/`` at
``--before``; ``trees.after``: this tree's stamp), every run with its ``tree``, and ``ratios``: per
algorithm and engine, after / before of ``seconds`` (the warm median) and of ``first_seconds``.

Usage (from the repository root; ``bench/before_after.sh`` is the device call's wrapper)::

    PYTHONPATH=src python bench/before_after.py --before _scratch/before --before-commit 20e9547 \\
        --scale 25 --engines resident hybrid zerocopy --out $OUT/before-after-kron25.json
    PYTHONPATH=src python bench/before_after.py --before _scratch/before --scale 12 \\
        --backend cpu --engines host --out /tmp/ba.json          # a check without a GPU
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(BENCH))
import provenance  # noqa: E402  (which tree wrote the file: issue 35)

ALGORITHMS = ["bfs", "sssp", "pagerank", "wcc"]
#: the share of the weighted edge bytes a budgeted engine gets (the peers benchmark's)
BUDGET_FRACTION = 0.25
#: the issue's tolerance: after / before within 1 +- this
TOLERANCE = 0.05


# ====================================================================== the parent
def generate(scale: int, seed: int, work: Path, gpu: bool, log) -> dict:
    """The peers benchmark's Kronecker graph, generated once, its arrays written under ``work``."""
    import engines_bench as eb

    t = time.perf_counter()
    g, info = eb.GRAPH_KINDS["kron"](scale, seed=seed, cpu_generator=not gpu, weighted=True)
    log(f"kron{scale}: n {g.n:,}  m {g.m:,}  built in {time.perf_counter() - t:.1f} s ({info['generator']})")
    t = time.perf_counter()
    work.mkdir(parents=True, exist_ok=True)
    for key in ("offsets", "indices", "weights"):
        np.save(work / f"{key}.npy", getattr(g, key))
    source = int(np.argmax(g.out_degree))
    graph = {"name": f"kron{scale}", "n": g.n, "m": g.m, "directed": False,
             "edge_bytes": int(g.m * g.indices.itemsize), "weighted_edge_bytes": int(g.m * 8),
             "source": source, **info}
    (work / "graph.json").write_text(json.dumps(graph, default=float))
    log(f" arrays written in {time.perf_counter() - t:.1f} s under {work}")
    del g
    if gpu:  # the generator's device memory back, before the children measure what is free
        import cupy

        cupy.get_default_memory_pool().free_all_blocks()
        cupy.get_default_pinned_memory_pool().free_all_blocks()
    return graph


def child_order(engines: list[str], rounds: int) -> list[tuple[str, str, int]]:
    """``(tree, engine, round)`` in the order run: the trees alternate from one pair to the next.

    Example:
        >>> child_order(["resident", "hybrid"], 1)
        [('before', 'resident', 0), ('after', 'resident', 0), ('after', 'hybrid', 0), ('before', 'hybrid', 0)]
    """
    order, k = [], 0
    for r in range(rounds):
        for engine in engines:
            pair = ("before", "after") if k % 2 == 0 else ("after", "before")
            order += [(tree, engine, r) for tree in pair]
            k += 1
    return order


def run_child(tree: str, src: Path, engine: str, rnd: int, args, work: Path, log) -> list[dict]:
    """One process on ``src``'s library: the graph loaded for ``engine``, every algorithm timed."""
    out = work / f"runs-{tree}-{engine}-{rnd}.json"
    caches = work / f"cache-{tree}"
    env = dict(os.environ, PYTHONPATH=str(src.resolve()), CUPY_CACHE_DIR=str(caches / "cupy"),
               GRAPHFERRY_CACHE_DIR=str(caches / "graphferry"))
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", "--work", str(work), "--engine", engine,
           "--bench-dir", str(Path(args.bench_dir).resolve()),
           "--backend", args.backend, "--reps", str(args.reps), "--algorithms", *args.algorithms,
           "--settle-seconds", str(args.settle_seconds), "--profile-calls", str(args.profile_calls),
           "--child-out", str(out)]
    t = time.perf_counter()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=args.child_timeout)
    for line in proc.stdout.splitlines():
        log(f"   [{tree}] {line}")
    if proc.returncode != 0 or not out.exists():
        tail = "\n".join(proc.stderr.splitlines()[-15:])
        log(f"  {tree} {engine}: FAILED (exit {proc.returncode})\n{tail}")
        return [{"tree": tree, "engine": engine, "round": rnd, "error": f"exit {proc.returncode}: {tail[-800:]}",
                 "verified": False}]
    runs = json.loads(out.read_text())
    for run in runs:
        run.update(tree=tree, round=rnd, process_seconds=round(time.perf_counter() - t, 2))
    return runs


def ratios(runs: list[dict]) -> list[dict]:
    """After / before per algorithm, engine and round, for the warm median and the first call.

    Example:
        >>> r = ratios([{"tree": "before", "algorithm": "bfs", "engine": "resident", "round": 0,
        ...              "seconds": 0.10, "first_seconds": 0.5},
        ...             {"tree": "after", "algorithm": "bfs", "engine": "resident", "round": 0,
        ...              "seconds": 0.104, "first_seconds": 0.45}])
        >>> r[0]["ratio"], r[0]["first_ratio"], r[0]["within_tolerance"]
        (1.04, 0.9, True)
    """
    by = {(r["tree"], r["algorithm"], r["engine"], r["round"]): r
          for r in runs if "seconds" in r and "algorithm" in r}
    out = []
    for (tree, name, engine, rnd), before in sorted(by.items()):
        after = by.get(("after", name, engine, rnd))
        if tree != "before" or after is None:
            continue
        ratio = after["seconds"] / before["seconds"] if before["seconds"] > 0 else None
        first = after["first_seconds"] / before["first_seconds"] if before["first_seconds"] > 0 else None
        out.append({"algorithm": name, "engine": engine, "round": rnd,
                    "seconds_before": before["seconds"], "seconds_after": after["seconds"],
                    "ratio": None if ratio is None else round(ratio, 4),
                    "first_seconds_before": before["first_seconds"], "first_seconds_after": after["first_seconds"],
                    "first_ratio": None if first is None else round(first, 4),
                    "within_tolerance": ratio is not None and abs(ratio - 1) <= TOLERANCE,
                    "both_verified": bool(before.get("verified") and after.get("verified")),
                    # the same plan: the same bytes moved and partitions placed alike (runs that name them)
                    "same_plan": (before.get("bytes_h2d"), before.get("placements"))
                    == (after.get("bytes_h2d"), after.get("placements")) if "placements" in before else None})
        if before.get("settled_seconds") and after.get("settled_seconds"):
            out[-1]["settled_ratio"] = round(after["settled_seconds"] / before["settled_seconds"], 4)
    return out


def shared_calibration(backend_name: str):
    """This tree's calibration for the device a child will run on, made as a fresh machine makes it
    (:func:`~graphferry.runtime.calibration.quick_calibration`). On a GPU of a model the table
    holds nothing is measured, and no backend is made here (its background compilations would
    overlap the first child's calls)."""
    from types import SimpleNamespace

    from graphferry.backends import get_backend
    from graphferry.runtime.calibration import KNOWN_DEVICES, quick_calibration

    backend = None
    if backend_name == "cuda":
        import cupy

        name = cupy.cuda.runtime.getDeviceProperties(0)["name"]
        name = name.decode() if isinstance(name, bytes) else str(name)
        if name in KNOWN_DEVICES:
            backend = SimpleNamespace(name="cuda", is_device=True, device_description=lambda: name)
    return quick_calibration(backend if backend is not None else get_backend(backend_name))


def seed_calibration(cal, work: Path) -> list[str]:
    """Write ``cal`` where each tree's child reads its calibration first (its ``GRAPHFERRY_CACHE_DIR``,
    the same file name in both: the device, the cores and the format's version); the paths."""
    from graphferry.scheduler.cost import save

    paths, old = [], os.environ.get("GRAPHFERRY_CACHE_DIR")
    try:
        for tree in ("before", "after"):
            os.environ["GRAPHFERRY_CACHE_DIR"] = str(work / f"cache-{tree}" / "graphferry")
            paths.append(str(save(cal)))
    finally:
        if old is None:
            os.environ.pop("GRAPHFERRY_CACHE_DIR", None)
        else:
            os.environ["GRAPHFERRY_CACHE_DIR"] = old
    return paths


def parent(args) -> int:
    started = time.perf_counter()

    def log(msg):
        print(f"[{time.perf_counter() - started:6.1f} s] {msg}", flush=True)

    before = Path(args.before)
    if not (before / "src" / "graphferry" / "__init__.py").is_file():
        print(f"error: {before}/src/graphferry is not a graphferry source tree (--before)", file=sys.stderr)
        return 2
    gpu = args.backend == "cuda"
    if args.bench_dir is None:
        args.bench_dir = str(before / "bench")
    work = Path(args.work)
    shutil.rmtree(work, ignore_errors=True)  # fresh caches and arrays: both trees start alike
    graph = generate(args.scale, args.seed, work, gpu, log)
    calibration = {"shared": args.calibration == "shared"}
    if calibration["shared"]:
        cal = shared_calibration(args.backend)
        seed_calibration(cal, work)
        calibration.update(json.loads(cal.to_json()), how="this tree's quick_calibration, in both trees' caches")
        log(f"calibration shared by both trees: {cal.device} ({cal.notes.get('source')})")
    runs: list[dict] = []
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    doc = {
        **provenance.stamp({}, None if args.argv is None else ["bench/before_after.py", *args.argv]),
        "date": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "trees": {"before": {"commit": args.before_commit, "src": str(before / "src"),
                             "how": "that commit's src/ (git archive): the library only"},
                  "after": {**provenance.tree(), "src": "src"}},
        "machine": {"backend": args.backend, "host_cores": os.cpu_count()},
        "benchmark_code": f"{args.bench_dir}/peers_bench.py (time_ours, call, Checker), the same for both trees",
        "graph": graph,
        "calibration": calibration,
        "budget_bytes": int(BUDGET_FRACTION * graph["m"] * 8),
        "budget_fraction_of": "the weighted edge bytes (m * 8), for every engine but resident and host",
        "notes": ("each (tree, engine) one process (PYTHONPATH=<tree>/src), its graph loaded from the same .npy "
                  "arrays; seconds: the median of reps calls after the first (peers_bench.time_ours), "
                  "first_seconds: the first call after loading; trees alternate per engine; ratio = after / "
                  f"before; within_tolerance: |ratio - 1| <= {TOLERANCE}"),
        "runs": runs,
    }
    for tree, engine, rnd in child_order(args.engines, args.rounds):
        if time.perf_counter() - started > args.deadline_s:
            log(f"  deadline: {tree} {engine} round {rnd} not run")
            runs.append({"tree": tree, "engine": engine, "round": rnd, "skipped": "deadline", "verified": False})
            continue
        src = before / "src" if tree == "before" else ROOT / "src"
        log(f" {tree} {engine} (round {rnd})")
        runs += run_child(tree, src, engine, rnd, args, work, log)
        doc["ratios"] = ratios(runs)
        out.write_text(json.dumps(doc, indent=1, default=float))  # after each: a cut call keeps its runs
    doc["ratios"] = ratios(runs)
    done = [r for r in doc["ratios"] if r["ratio"] is not None]
    doc["summary"] = {"pairs": len(done), "within_tolerance": sum(r["within_tolerance"] for r in done),
                      "geomean_ratio": round(float(np.exp(np.mean(np.log([r["ratio"] for r in done])))), 4)
                      if done else None}
    out.write_text(json.dumps(doc, indent=1, default=float))
    for r in doc["ratios"]:
        log(f"  {r['engine']:>9} {r['algorithm']:<9} before {r['seconds_before'] * 1e3:9.2f} ms  after "
            f"{r['seconds_after'] * 1e3:9.2f} ms  ratio {r['ratio']}  first {r['first_ratio']}")
    log(f"wrote {out}: {doc['summary']}")
    if not args.keep_work:
        shutil.rmtree(work, ignore_errors=True)
    return 0


# ====================================================================== a child
def plan_of(rec) -> dict:
    """What a call's run record says of its plan, in either tree's record: the bytes it moved
    (``bytes_h2d_how`` from the engines that moved them where the old record does not say),
    where its partitions ran (``engine@device``: count), its directions (one letter per edge map),
    and the device-timed copy and kernel seconds of its edge maps."""
    steps = rec.edge_steps
    placed: dict[str, int] = {}
    for s in steps:
        for p in s.partitions:
            placed[f"{p.engine}@{p.device}"] = placed.get(f"{p.engine}@{p.device}", 0) + 1
    how = getattr(rec, "bytes_h2d_how", None)
    if how is None:  # 20e9547's record: zero-copy and unified bytes are the model's (as the record says now)
        modelled = any(p.bytes_h2d and p.engine in ("zerocopy", "unified") for s in steps for p in s.partitions)
        how = "none" if not rec.bytes_h2d else "modelled" if modelled else "measured"
    return {"bytes_h2d": int(rec.bytes_h2d), "bytes_h2d_how": how, "placements": placed,
            "directions": "".join(s.direction[:2] + " " for s in steps).strip(),
            "copy_seconds": round(sum(s.copy_seconds for s in steps), 5),
            "kernel_seconds": round(sum(s.kernel_seconds for s in steps), 5)}


def timed_calls(pb, name: str, lg, source: int, engine: str, reps: int) -> tuple[list[float], list, object]:
    """``reps`` calls, each result copied to the host after its timer (on a GPU it stays there: the
    peers' time): their seconds, records, and the last result."""
    walls, records, r = [], [], None
    for _ in range(reps):
        r = None  # a user's loop drops the last result before the next call: so do we
        t = time.perf_counter()
        r = pb.call(name, lg, source, engine)
        walls.append(time.perf_counter() - t)
        r.to_host()
        records.append(r.record)
    return walls, records, r


def profile_calls(pb, name: str, lg, source: int, engine: str, calls: int, top: int = 40) -> dict:
    """``calls`` calls under cProfile: where the host's time goes (the library's functions by their
    path below ``graphferry/``, the same names in both trees where the code did not move), the
    ``top`` by own time and by cumulative time, and the Python calls a call makes."""
    import cProfile
    import pstats

    prof = cProfile.Profile()
    t = time.perf_counter()
    prof.enable()
    for _ in range(calls):
        pb.call(name, lg, source, engine)
    prof.disable()
    seconds = time.perf_counter() - t
    rows = []
    for (path, line, fn), (_, ncalls, tottime, cumtime, _) in pstats.Stats(prof).stats.items():
        where = path.split("/graphferry/", 1)[-1] if "/graphferry/" in path else Path(path).name
        rows.append([f"{where}:{line}({fn})", ncalls / calls, tottime / calls, cumtime / calls])

    def best(k):
        return [[r[0], round(r[1], 1), round(r[2], 6), round(r[3], 6)] for r in sorted(rows, key=lambda r: -r[k])[:top]]
    return {"calls": calls, "seconds_per_call": round(seconds / calls, 5),
            "python_calls_per_call": round(sum(r[1] for r in rows), 1),
            "columns": ["function", "calls per call", "own seconds per call", "cumulative seconds per call"],
            "by_own_time": best(2), "by_cumulative_time": best(3)}


def time_calls(pb, name: str, lg, source: int, engine: str, reps: int, checker, settle: float = 0.0) -> dict:
    """The peers benchmark's timing (``peers_bench.time_ours``'s, which records more of the run
    record than the old library has): the first call after loading, then ``reps`` calls; the
    median call's figures and plan (:func:`plan_of`), the last call's values checked. With
    ``settle`` seconds: a wait, then ``reps`` calls more (``settled_seconds``, their median)."""
    t = time.perf_counter()
    pb.call(name, lg, source, engine)
    first = time.perf_counter() - t
    walls, records, r = timed_calls(pb, name, lg, source, engine, reps)
    k = int(np.argsort(walls)[len(walls) // 2])
    rec = records[k]
    key, column = pb.CHECKED_COLUMN[name]
    ok, how = checker.check(name, {key: r.values[column]})
    run = {"algorithm": name, "engine": engine, "seconds": round(walls[k], 5), "first_seconds": round(first, 5),
           "calls": reps, "all_seconds": [round(w, 5) for w in walls], "iterations": rec.iterations,
           "verified": bool(ok), "verified_how": how, **plan_of(rec),
           "all_bytes_h2d": [int(x.bytes_h2d) for x in records]}
    if settle > 0:
        time.sleep(settle)
        walls, records, _ = timed_calls(pb, name, lg, source, engine, reps)
        run.update(settled_seconds=round(float(np.median(walls)), 5), settled_all_seconds=[round(w, 5) for w in walls],
                   settled_after_seconds=settle, settled_plan=plan_of(records[int(np.argsort(walls)[len(walls) // 2])]))
    return run


def child(args) -> int:
    """Runs in the tree under test (its ``src`` first on ``PYTHONPATH``): load, time, check."""
    sys.path.insert(0, args.bench_dir)  # the benchmark's code, the same for both trees
    for name in ("peers_bench", "engines_bench", "provenance"):
        sys.modules.pop(name, None)
    import graphferry as gf
    from graphferry.graph import Graph
    import peers_bench as pb

    work = Path(args.work)
    info = json.loads((work / "graph.json").read_text())
    arrays = {key: np.load(work / f"{key}.npy", mmap_mode="r") for key in ("offsets", "indices", "weights")}
    g = Graph(arrays["offsets"], arrays["indices"], arrays["weights"], directed=False, name=info["name"])
    source = info["source"]
    print(f"graphferry from {Path(gf.__file__).parent}", flush=True)
    t = time.perf_counter()
    budget = None if args.engine in ("resident", "host") else max(1 << 20, int(BUDGET_FRACTION * g.m * 8))
    lg = gf.load(g, backend=args.backend, budget=budget)
    load_seconds = time.perf_counter() - t
    checker = pb.Checker(lg.graph, source)
    runs = []
    for name in args.algorithms:
        try:
            run = time_calls(pb, name, lg, source, args.engine, args.reps, checker, args.settle_seconds)
            if args.profile_calls:
                run["profile"] = profile_calls(pb, name, lg, source, args.engine, args.profile_calls)
        except Exception as e:  # noqa: BLE001 - one failing run must not lose the others
            run = {"algorithm": name, "engine": args.engine, "error": f"{type(e).__name__}: {e}", "verified": False}
        run["graphferry_load_seconds"] = round(load_seconds, 3)
        print(f"  {args.engine:>9} {name:<9} first {run.get('first_seconds', 0) * 1e3:9.1f} ms  median "
              f"{run.get('seconds', 0) * 1e3:9.1f} ms  {'ok' if run.get('verified') else 'NOT VERIFIED'} "
              f"({run.get('verified_how', run.get('error'))})", flush=True)
        runs.append(run)
    lg.close()
    Path(args.child_out).write_text(json.dumps(runs, default=float))
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--before", default="_scratch/before", help="a tree holding the before commit's src/")
    ap.add_argument("--before-commit", default="20e9547", help="the commit --before holds (named in the file)")
    ap.add_argument("--bench-dir", default=None,
                    help="where peers_bench.py is taken from, for both trees (default: the before tree's bench/)")
    ap.add_argument("--scale", type=int, default=25)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--engines", nargs="+", default=["resident", "hybrid", "zerocopy"])
    ap.add_argument("--algorithms", nargs="+", default=ALGORITHMS, choices=ALGORITHMS)
    ap.add_argument("--backend", choices=["cuda", "cpu"], default="cuda")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=1, help="pairs of processes per engine")
    ap.add_argument("--calibration", choices=["shared", "own"], default="shared",
                    help="shared: both trees start from this tree's calibration for the device; own: each makes its own")
    ap.add_argument("--settle-seconds", type=float, default=0.0,
                    help="after the timed calls, wait this long and time them again (settled_seconds)")
    ap.add_argument("--profile-calls", type=int, default=0,
                    help="then this many calls under cProfile (the run's profile: the host's time by function)")
    ap.add_argument("--work", default="/dev/shm/gf-before-after" if Path("/dev/shm").is_dir() else "/tmp/gf-before-after")
    ap.add_argument("--out", default="bench/results/before-after.json")
    ap.add_argument("--deadline-s", type=float, default=1e9, help="start no process after this many seconds")
    ap.add_argument("--child-timeout", type=float, default=300)
    ap.add_argument("--keep-work", action="store_true")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--engine", help=argparse.SUPPRESS)
    ap.add_argument("--child-out", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    args.argv = argv
    return child(args) if args.child else parent(args)


if __name__ == "__main__":
    sys.exit(main())
