"""One-shot processes on the GPU path, their start-up phases, against GAPBS (issue 34, GPU side).

Every figure is the wall time of a whole process (``graphferry run ALG STORE --out x.npy``, or GAPBS's
``ALG -f g.sg -n 1``), files in the page cache, on one graph (Kronecker ``--scale``, generated here
with ``graphferry generate kronecker`` unless ``--store`` names one; ``--weighted`` where sssp runs).
Algorithms: bfs, wcc (GAPBS cc), pagerank at a fixed :data:`PR_ROUNDS` rounds on both sides (ours
``pagerank_ldbc --iterations``, GAPBS ``pr -i ROUNDS -t 0``) and sssp (GAPBS ``sssp`` on the ``.wsg``,
the same bucket width on both sides). Per algorithm, in this order:

* ``cli-cpu``: ``--backend cpu``; its first process runs ``--check`` (the algorithm's own verifier,
  untimed): its answer is the reference the GPU runs are compared with;
* ``cli-gpu-fresh``: ``--backend cuda``, one process with empty program and calibration caches
  (``GRAPHFERRY_CACHE_DIR``, ``XDG_CACHE_HOME``, ``CUPY_CACHE_DIR`` in a new folder), as on a fresh
  machine; what it compiled and measured then joins the warm caches;
* ``cli-gpu``: the same with the warm caches (``--repeat`` processes, the median kept);
* the same two with ``--engine hybrid`` (``cli-gpu-fresh`` / ``cli-gpu`` with ``engine_option``);
* ``cli-auto``: ``--backend auto`` (warm caches), with the backend it took;
* ``peer:gapbs-process``: GAPBS (``--repeat`` processes; its verifier ``-v`` once, untimed);
* ``profile``: one warm ``cli-gpu`` process (and one hybrid; with ``--profile-fresh`` one with
  empty caches too) under ``cProfile``: the functions that took the most time (cumulative and
  own), to place what the phases do not.

A fresh row lists what CuPy compiled in its empty cache (``cupy_compilations``,
``cupy_modules_compiled``: each NVRTC unit's kernels, or a program group's switches;
``cupy_kernels_compiled``: the kernel names): on a fresh machine, the algorithm's program groups
and the backend's own module, compiled in background threads (the row's ``background_phases``),
and nothing of CuPy's own.

Each of our processes writes its run record (``--record``): the row keeps its start-up phases
(``phases``: imports, read, cuda_start, load, compile, calibration, pin, pack, engine_setup, upload,
algorithm, to_host, write; ``graphferry.phase_clock``) from every process, and the work other
threads did meanwhile (``background_phases``). Rows are written as they come (a call cut short
keeps what it measured); ``--budget-seconds`` skips the optional parts (profiles, verifiers, the
later repeats) once spent.

GPU machine, from a checkout stamped by ``python dev/stamp_tree.py`` (bench/provenance.py names
the tree)::

    PYTHONPATH=src python bench/oneshot_gpu_bench.py --scale 25 --gapbs-bin .carry/bin/gapbs \\
        --work /dev/shm/gf34 --out $OUT/oneshot-gpu-kron25-h200.json --budget-seconds 140

SSSP on a fresh machine (what CuPy compiles for it: ``cupy_kernels_compiled`` of the fresh row)::

    PYTHONPATH=src python bench/oneshot_gpu_bench.py --scale 22 --algorithms sssp --gpu-engines auto \\
        --repeat 2 --gapbs-bin .carry/bin/gapbs --work /dev/shm/gf34s \\
        --out $OUT/oneshot-gpu-sssp-kron22-h200.json --budget-seconds 60

Here (no GPU: the CPU rows and GAPBS only, a smoke test)::

    python bench/oneshot_gpu_bench.py --scale 14 --work /tmp/gf34 --out /tmp/gf34/r.json
"""

from __future__ import annotations

import argparse
import cProfile  # noqa: F401  (the profiled process runs it: checked importable here)
import datetime as dt
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "src"))

import provenance  # noqa: E402
from profiles import top_functions  # noqa: E402
from oneshot_bench import (GAPBS_BINARY, GAPBS_OPTIONS, OUR_ALGORITHM, OUR_OPTIONS, _answer, _same_answer,  # noqa: E402
                           gpu_usable, machine)

#: PageRank here at a fixed number of rounds on both sides (issue 34: "both a fixed iteration
#: count"): ours, pagerank_ldbc's power iteration; GAPBS's pr with ``-t 0`` never meets its
#: tolerance, so it runs all its (Gauss-Seidel) rounds. Its verifier (``-v``) compares one more
#: round's L1 change with ``-t``, which 0 fails: the row reads the error it prints instead
#: (:data:`PR_VERIFY_ERROR`, GAPBS's default tolerance).
PR_ROUNDS = 20
PR_VERIFY_ERROR = 1e-4
#: SSSP (a weighted store: ``generate kronecker --weighted``, GAPBS's integer weights in [1, 255]) from
#: the same source with the same bucket width on both sides (DELTA: our default width, rounded, as
#: GAPBS's ``-d`` takes an integer)
OPTIONS = {**OUR_OPTIONS, "pagerank": ["--damping", "0.85", "--iterations", str(PR_ROUNDS)],
           "sssp": ["--source", "SOURCE", "--delta", "DELTA"]}
PEER_OPTIONS = {**GAPBS_OPTIONS, "pagerank": ["-i", str(PR_ROUNDS), "-t", "0"], "sssp": ["-r", "SOURCE", "-d", "DELTA"]}
BINARY = {**GAPBS_BINARY, "sssp": "sssp"}


#: A process that runs graphferry's command line under cProfile and writes the profile (argv[1]).
PROFILED = ("import cProfile, sys\n"
            "p = cProfile.Profile()\n"
            "p.enable()\n"
            "from graphferry.cli import main\n"
            "code = main(sys.argv[2:])\n"
            "p.disable()\n"
            "p.dump_stats(sys.argv[1])\n"
            "sys.exit(code)\n")


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def write_sg(g, path: Path) -> Path:
    """GAPBS's serialized unweighted graph: ``bool directed, int64 arcs, int64 n, int64 offsets[n+1], int32 ids[m]``."""
    with open(path, "wb") as f:
        f.write(np.array([g.directed], dtype=np.bool_).tobytes())
        f.write(np.array([g.m, g.n], dtype=np.int64).tobytes())
        f.write(np.ascontiguousarray(g.offsets, dtype=np.int64).tobytes())
        step = 1 << 27
        for a in range(0, g.m, step):
            f.write(np.ascontiguousarray(g.indices[a:a + step], dtype=np.int32).tobytes())
    return path


def compiled_modules(cache: Path) -> list[dict]:
    """What CuPy compiled into a process's empty cache (its sources are kept there:
    ``CUPY_CACHE_SAVE_CUDA_SOURCE=1``), one entry per NVRTC compilation: the kernels its text
    defines (CuPy's own elementwise and reduction kernels, the backend's module), or, for a
    program's kernel group (whose kernels come from an included header), the group's switches."""
    import re

    out = []
    for f in sorted((cache / "cupy").glob("*.cu")):
        text = f.read_text(errors="replace")
        names = re.findall(r"__global__\s+void\s+(\w+)", text)
        switches = re.findall(r"#define (GF_BUILD_\w+) 0", text)
        out.append({"kernels": names} if names else {"program_group_without": switches})
    return out


def compiled_kernels(cache: Path) -> list[str]:
    """The kernels CuPy compiled into a process's empty cache, by name (see :func:`compiled_modules`)."""
    return [k for m in compiled_modules(cache) for k in m.get("kernels", [])]


def gapbs_pr_error(stdout: str) -> float | None:
    """The "Total Error" GAPBS pr's verifier prints (None where it printed none).

    Example:
        >>> gapbs_pr_error("Average Time:        0.51   Total Error:         0.00002")
        2e-05
    """
    import re

    found = re.search(r"Total Error:\s*([0-9.eE+-]+)", stdout)
    return float(found.group(1)) if found else None


class Bench:
    def __init__(self, args):
        self.args = args
        self.t0 = time.perf_counter()
        self.work: Path = args.work
        self.warm = self.work / "cache-warm"  # the caches every warm process shares
        shutil.rmtree(self.warm, ignore_errors=True)
        self.warm.mkdir(parents=True)
        self.doc = {"date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"), "machine": machine(),
                    "note": "seconds: wall of a whole process (median of the timed processes; first_seconds the "
                            "first), files in the page cache; cli-gpu-fresh: one process with empty program and "
                            "calibration caches; phases: each process's --record start-up phases "
                            "(graphferry.phase_clock), phases_all: every process's",
                    "runs": []}
        self.reference: dict[str, tuple[np.ndarray, bool]] = {}  # per algorithm: answer, --check passed

    def spent(self) -> float:
        return time.perf_counter() - self.t0

    def over(self) -> bool:
        return self.spent() > self.args.budget_seconds

    def save(self) -> None:
        provenance.stamp(self.doc)
        self.doc["bench_seconds"] = round(self.spent(), 1)
        self.args.out.parent.mkdir(parents=True, exist_ok=True)
        self.args.out.write_text(json.dumps(self.doc, indent=1) + "\n")

    def env(self, cache: Path) -> dict[str, str]:
        out = dict(os.environ)
        out["PYTHONPATH"] = str(ROOT / "src") + (os.pathsep + out["PYTHONPATH"] if out.get("PYTHONPATH") else "")
        out.update(GRAPHFERRY_CACHE_DIR=str(cache / "graphferry"), XDG_CACHE_HOME=str(cache / "xdg"),
                   CUPY_CACHE_DIR=str(cache / "cupy"), CUPY_CACHE_SAVE_CUDA_SOURCE="1")
        return out

    def ours(self, alg: str, backend: str, engine: str = "auto", extra: list[str] | None = None) -> list[str]:
        opts = [self._value(a) for a in OPTIONS[alg]]
        cmd = ["run", OUR_ALGORITHM.get(alg, alg), str(self.store), "--backend", backend, *opts,
               "--out", str(self.work / "x.npy")]
        if engine != "auto":
            cmd += ["--engine", engine]
        return cmd + (extra or [])

    def _value(self, arg: str) -> str:
        return str(self.source) if arg == "SOURCE" else str(self.delta) if arg == "DELTA" else arg

    def process(self, argv: list[str], cache: Path, profile: Path | None = None) -> tuple[float, dict]:
        """Wall seconds of one ``graphferry`` process and its run record."""
        rec = self.work / "record.json"
        rec.unlink(missing_ok=True)
        (self.work / "x.npy").unlink(missing_ok=True)
        # profiled: main called with its arguments (so the process exits through Python, which writes
        # the profile; the script's own call of main ends a GPU process at once)
        pre = ([sys.executable, "-c", PROFILED, str(profile), "-q"] if profile
               else [sys.executable, "-m", "graphferry", "-q"])
        t = time.perf_counter()
        p = subprocess.run(pre + argv + ["--record", str(rec)], capture_output=True, text=True, env=self.env(cache),
                           timeout=600)
        wall = time.perf_counter() - t
        if p.returncode != 0:
            raise RuntimeError(f"{' '.join(argv)} exited {p.returncode}: {(p.stdout + p.stderr)[-3000:]}")
        return wall, json.loads(rec.read_text())

    def row(self, alg: str, label: str, backend: str, argv: list[str], walls: list[float], records: list[dict],
            fresh: bool, **extra) -> dict:
        answer = _answer(self.work / "x.npy")
        ref, checked = self.reference.get(alg, (None, False))
        if ref is None:
            verified, how = False, "unchecked (no reference answer)"
        else:
            same = _same_answer(alg, answer, ref)
            mine = records[-1].get("backend") == "cpu"  # ran where the reference did: only its verifier checks it
            verified = bool(same and (checked or not mine))
            how = ("the same answer as the CPU backend's" + (", which --check verified" if checked else
                                                             " (its output file in this call)")
                   if same and verified else
                   "unchecked: the reference the GPU rows are compared with (--check-reference runs its verifier)"
                   if same else "unchecked: the answer DIFFERS from the CPU backend's")
        last = records[-1]
        run = {"algorithm": alg, "engine": label, "backend": backend,
               "seconds": round(statistics.median(walls), 4), "first_seconds": round(walls[0], 4),
               "all_seconds": [round(w, 4) for w in walls], "verified": verified, "verified_how": how,
               "phases": last["extra"].get("phases"), "phases_all": [r["extra"].get("phases") for r in records],
               "background_phases": last["extra"].get("background_phases"), "run_engine": last.get("engine"),
               "run_backend": last.get("backend"), "call_seconds": round(last.get("total_seconds", 0.0), 4),
               "setup_seconds": round(last.get("setup_seconds", 0.0), 4),
               "kernel_seconds": round(sum(s.get("kernel_seconds") or 0.0 for s in last.get("steps", [])), 4),
               "iterations": sum(1 for s in last.get("steps", []) if s.get("op") == "edge_map"),
               "bytes_h2d": last.get("bytes_h2d", sum(p["bytes_h2d"] for s in last.get("steps", [])
                                                      for p in s.get("partitions", []))),
               "bytes_h2d_how": last.get("bytes_h2d_how") or "measured",
               "placement": last["extra"].get("placement"),
               "command": "graphferry -q " + " ".join(argv) + (" (empty program and calibration caches)" if fresh else ""),
               **extra}
        self.doc["runs"].append(run)
        log(f"  {label} {alg} {extra.get('engine_option', '')}: {run['seconds']} s {walls} engine {run['run_engine']} "
            f"on {run['run_backend']}; phases {run['phases']}")
        self.save()
        return run

    def warm_runs(self, alg: str, label: str, backend: str, argv: list[str], repeat: int, **extra) -> None:
        walls, recs = [], []
        for k in range(repeat):
            if k and self.over():
                break
            w, r = self.process(argv, self.warm)
            walls.append(w)
            recs.append(r)
        self.row(alg, label, backend, argv, walls, recs, False, **extra)

    def fresh_run(self, alg: str, backend: str, argv: list[str], **extra) -> None:
        cache = Path(tempfile.mkdtemp(prefix="fresh-", dir=self.work))
        w, r = self.process(argv, cache)
        modules = compiled_modules(cache)
        self.row(alg, "cli-gpu-fresh", backend, argv, [w], [r], True, cupy_kernels_compiled=compiled_kernels(cache),
                 cupy_compilations=len(modules), cupy_modules_compiled=modules, **extra)
        shutil.copytree(cache, self.warm, dirs_exist_ok=True)  # what it compiled serves the warm runs
        shutil.rmtree(cache, ignore_errors=True)

    def profile(self, alg: str, argv: list[str], label: str, fresh: bool = False) -> None:
        prof = self.work / f"{label}.prof"
        cache = Path(tempfile.mkdtemp(prefix="fresh-", dir=self.work)) if fresh else self.warm
        w, r = self.process(argv, cache, profile=prof)
        self.doc.setdefault("profiles", []).append({
            "algorithm": alg, "label": label, "command": "cProfile of graphferry.cli.main(['-q', " + repr(argv)[1:],
            "seconds_profiled": round(w, 3), "phases": r["extra"].get("phases"), **top_functions(prof)})
        log(f"  profile {label}: {w:.2f} s")
        self.save()

    def gapbs(self, alg: str) -> None:
        exe = self.args.gapbs_bin / BINARY[alg]
        if not exe.exists():
            return
        opts = [self._value(a) for a in PEER_OPTIONS[alg]]
        cmd = [str(exe), "-f", str(self.wsg if alg == "sssp" else self.sg), "-n", "1", *opts]
        walls = []
        for k in range(self.args.repeat):
            if k and self.over():
                break
            t = time.perf_counter()
            subprocess.run(cmd, capture_output=True, text=True, check=True, timeout=600)
            walls.append(time.perf_counter() - t)
        v = subprocess.run(cmd + ["-v"], capture_output=True, text=True, timeout=600)
        verified = "Verification:" in v.stdout and "FAIL" not in v.stdout
        how = "GAPBS's own verifier (-v) in a process of its own" if verified else \
            f"unchecked: its verifier said {v.stdout[-300:]!r}"
        if alg == "pagerank":  # -t 0 fails its verifier's comparison: the error it printed, against 1e-4
            error = gapbs_pr_error(v.stdout)
            verified = error is not None and error < PR_VERIFY_ERROR
            how = (f"GAPBS's verifier (-v): one more round's L1 change {error} < {PR_VERIFY_ERROR}" if verified
                   else f"unchecked: its verifier printed {v.stdout[-300:]!r}")
        self.doc["runs"].append({"algorithm": alg, "engine": "peer:gapbs-process",
                                 "seconds": round(statistics.median(walls), 4), "first_seconds": round(walls[0], 4),
                                 "all_seconds": [round(w, 4) for w in walls], "verified": verified,
                                 "verified_how": how,
                                 "command": f"{' '.join(cmd)}; checked by: {' '.join(cmd)} -v"})
        log(f"  peer:gapbs-process {alg}: {walls}")
        self.save()

    def guarded(self, what: str, fn, *a, **k) -> None:
        """Run one part; a failure is recorded in the file (``errors``) and the next part runs."""
        try:
            fn(*a, **k)
        except Exception as e:  # noqa: BLE001 - one failed row must not cost the call's other rows
            self.doc.setdefault("errors", []).append({"part": what, "error": str(e)[-3000:]})
            log(f"  FAILED {what}: {str(e)[-600:]}")
            self.save()

    def run(self) -> None:
        args = self.args
        self.work.mkdir(parents=True, exist_ok=True)
        from graphferry.store import open_store

        weighted = "sssp" in args.algorithms  # (GAPBS's integer weights, which BFS and the rest ignore)
        self.store = args.store or self.work / f"kron{args.scale}{'w' if weighted else ''}.store"
        if not self.store.exists():
            cmd = [sys.executable, "-m", "graphferry", "-q", "generate", "kronecker", "--scale", str(args.scale),
                   str(self.store), "--force", *(["--weighted"] if weighted else [])]
            t = time.perf_counter()
            subprocess.run(cmd, check=True, env=self.env(self.warm), timeout=900)
            self.doc["generate_seconds"] = round(time.perf_counter() - t, 2)
            log(f"generated {self.store} in {self.doc['generate_seconds']} s")
        g = open_store(self.store)
        self.doc["graph"] = {"name": f"kron{args.scale}" if args.store is None else self.store.name, "n": g.n,
                             "m": g.m, "directed": g.directed, "edge_bytes": int(g.m * g.indices.itemsize)}
        self.source = int(np.argmax(np.diff(np.asarray(g.offsets))))  # the highest-degree vertex, for both
        self.doc["source"] = self.source
        if g.weights is not None:
            from graphferry.algorithms.sssp import default_delta

            self.delta = max(1, round(default_delta(g)))
            self.doc["sssp_delta"] = self.delta
        elif "sssp" in args.algorithms:
            raise SystemExit(f"{self.store}: sssp needs a weighted store")
        have_gapbs = args.gapbs_bin is not None and (args.gapbs_bin / "bfs").exists()
        if have_gapbs:
            t = time.perf_counter()
            if "sssp" in args.algorithms:  # the .sg and the weighted .wsg
                from peers_bench import write_gapbs

                files = write_gapbs(g, self.work / self.store.stem)
                self.sg, self.wsg = files[".sg"], files[".wsg"]
            else:
                self.sg = write_sg(g, self.work / f"{self.store.stem}.sg")
            log(f"wrote {self.sg} in {time.perf_counter() - t:.1f} s")
        del g
        gpu = gpu_usable() or args.gpu_backend != "cuda"
        self.save()
        for alg in args.algorithms:
            # the reference: the CPU backend's answer (untimed; its first process compiles the host
            # library), with --check-reference checked by the algorithm's verifier (75 s for BFS at K25)
            argv = self.ours(alg, "cpu")
            checked = alg != "pagerank" and args.check_reference
            self.process(argv + (["--check"] if checked else []), self.warm)
            self.reference[alg] = (_answer(self.work / "x.npy"), checked)
            self.guarded(f"cli-cpu {alg}", self.warm_runs, alg, "cli-cpu", "cpu", argv, args.repeat)
            if gpu:
                for engine in args.gpu_engines:
                    if engine == "hybrid" and alg not in args.hybrid_algorithms:
                        continue
                    argv = self.ours(alg, args.gpu_backend, engine)
                    opt = {} if engine == "auto" else {"engine_option": engine}
                    if not (self.over() and engine != "auto"):
                        self.guarded(f"cli-gpu-fresh {alg} {engine}", self.fresh_run, alg, args.gpu_backend, argv,
                                     **opt)
                        self.guarded(f"cli-gpu {alg} {engine}", self.warm_runs, alg, "cli-gpu", args.gpu_backend,
                                     argv, args.repeat, **opt)
                if not self.over():
                    self.guarded(f"cli-auto {alg}", self.warm_runs, alg, "cli-auto", "auto", self.ours(alg, "auto"), 1)
            if have_gapbs:
                self.guarded(f"gapbs {alg}", self.gapbs, alg)
            if gpu and alg == args.algorithms[0]:  # the first algorithm's profiles, before the next one
                for engine in args.gpu_engines:
                    if not self.over():
                        self.guarded(f"profile {alg} {engine}", self.profile, alg,
                                     self.ours(alg, args.gpu_backend, engine), f"cli-gpu-{engine}-{alg}")
                if args.profile_fresh and not self.over():  # where a fresh machine's seconds go
                    self.guarded(f"profile fresh {alg}", self.profile, alg, self.ours(alg, args.gpu_backend),
                                 f"cli-gpu-fresh-auto-{alg}", fresh=True)
        self.save()
        print(report(self.doc))


def report(doc: dict) -> str:
    peer = {r["algorithm"]: r["seconds"] for r in doc["runs"] if r["engine"].startswith("peer:")}
    lines = [f"{'algorithm':<9} {'engine':<26} {'seconds':>8}  ratio  phases"]
    for r in doc["runs"]:
        ratio = peer.get(r["algorithm"])
        tail = f"{r['seconds'] / ratio:5.2f}x" if ratio and not r["engine"].startswith("peer:") else "      "
        name = r["engine"] + (f" {r['engine_option']}" if r.get("engine_option") else "")
        ph = " ".join(f"{k} {v:.2f}" for k, v in (r.get("phases") or {}).items() if v >= 0.01)
        lines.append(f"{r['algorithm']:<9} {name:<26} {r['seconds']:>8.3f} {tail}  {ph}")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", type=int, default=25)
    ap.add_argument("--store", type=Path, default=None, help="an existing graph store instead of generating one")
    ap.add_argument("--algorithms", nargs="+", default=["bfs", "wcc", "pagerank"], choices=sorted(BINARY))
    ap.add_argument("--gpu-engines", nargs="+", default=["auto", "hybrid"])
    ap.add_argument("--repeat", type=int, default=2, help="timed warm processes per row (the median kept)")
    ap.add_argument("--gapbs-bin", type=Path, default=None, help="folder with GAPBS's bfs, cc, pr")
    ap.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "gf-oneshot-gpu")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--budget-seconds", type=float, default=180.0, help="skip the optional parts past this")
    ap.add_argument("--hybrid-algorithms", nargs="*", default=["bfs"],
                    help="the algorithms with --engine hybrid rows (when hybrid is one of --gpu-engines)")
    ap.add_argument("--check-reference", action="store_true",
                    help="check the CPU backend's answer with the algorithm's verifier (--check; slow at scale 25)")
    ap.add_argument("--profile-fresh", action="store_true",
                    help="also profile one process with empty caches (the first algorithm, engine auto)")
    ap.add_argument("--gpu-backend", default="cuda", choices=["cuda", "cpu"],
                    help="the backend of the GPU rows (cpu: this script's smoke test on a machine without a GPU)")
    args = ap.parse_args(argv)
    Bench(args).run()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
