"""One-shot processes, as a user runs them: graphferry's CLI against GAPBS's binaries (issue 34).

Every figure is the wall time of a whole process (interpreter start, imports,
reading the graph, compiling, the work, writing the answer, exit), measured
around ``subprocess.run`` on the same machine, the same cores and the same
graph, with its files in the page cache:

* ``cli-cpu``: ``graphferry run ALG STORE --backend cpu --out x.npy``;
* ``cli-gpu`` (when a GPU is usable): the same with ``--backend cuda`` (and
  each ``--gpu-engines`` engine), program and calibration caches warm;
* ``cli-gpu-fresh``: the same, every process given empty caches
  (``GRAPHFERRY_CACHE_DIR``, ``XDG_CACHE_HOME``, ``CUPY_CACHE_DIR`` pointing at a
  new empty folder), as on a fresh machine;
* ``peer:gapbs-process``: GAPBS ``bfs|cc -f g.sg -n 1 -r SOURCE``, the same
  graph written in GAPBS's serialized format (``bench/peers_bench.write_gapbs``);
* ``generate`` / ``peer:gapbs-generate``: ``graphferry generate kronecker -s S``
  (store and checksums written) against GAPBS ``converter -g S -s -b out.sg``
  (its generator and builder, symmetrised as our default, file written);
* ``convert`` / ``peer:gapbs-convert``: a text edge list (``u v`` a line, each
  undirected edge once, written from the store) into a store with
  ``graphferry convert --undirected --drop-self-loops --drop-duplicates
  --no-renumber`` against ``converter -f in.el -s -b out.sg`` (same meaning:
  symmetrised, self-loops and repeats dropped, ids kept).

Each run is made ``1 + --repeat`` times: ``first_seconds`` is the first process,
``seconds`` the median of the others (``all_seconds`` lists every one).
Checks, in processes of their own (a verifier may cost more than the run):
ours with ``--check`` (the algorithm's own verifier) and ``graphferry verify``
(a generated or converted store's checksums and structure; a converted store
must also equal the store its text came from, array for array); GAPBS with
``-v`` (its verifier; for the converter, its BFS verifier on the graph it
wrote). Our runs also carry the start-up phases from ``--record``.

    python bench/oneshot_bench.py --scale 21 --gapbs-bin /path/to/gapbs \\
        --work /tmp/oneshot --out bench/results/oneshot-kron21-cpu2.json

On the GPU machine (Kronecker 25, with the GPU runs; ``--convert-scale 23`` converts
Kronecker 23's text, the issue's size, whatever ``--scale`` the runs use):

    PYTHONPATH=src python bench/oneshot_bench.py --scale 25 --gapbs-bin /path/to/gapbs \\
        --work /tmp/oneshot --out $OUT/oneshot-kron25-h200.json
"""

from __future__ import annotations

import argparse
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
sys.path.insert(0, str(Path(__file__).resolve().parent))
import provenance  # noqa: E402  (commit, dirty, diff hash, command: issue 35)

#: GAPBS's binary for each of our algorithms
GAPBS_BINARY = {"bfs": "bfs", "wcc": "cc", "pagerank": "pr"}
#: PageRank at GAPBS's stopping rule on both sides: stop once a round moves the ranks less than PR_TOLERANCE in
#: L1 (GAPBS pr's -t, its default 1e-4), at most PR_ITERATIONS rounds: our pagerank_ldbc (power iteration) with
#: stop_below, GAPBS's pr (Gauss-Seidel, so it may stop after fewer rounds); each side's own verifier checks it
PR_ITERATIONS = 20
PR_TOLERANCE = "1e-4"
#: the command line's algorithm for each of ours (default: the same name)
OUR_ALGORITHM = {"pagerank": "pagerank_ldbc"}
#: each algorithm's own options, ours and GAPBS's (SOURCE: the highest-degree vertex)
OUR_OPTIONS = {"bfs": ["--source", "SOURCE"], "wcc": [],
               "pagerank": ["--damping", "0.85", "--iterations", str(PR_ITERATIONS), "--stop-below", PR_TOLERANCE]}
GAPBS_OPTIONS = {"bfs": ["-r", "SOURCE"], "wcc": [], "pagerank": ["-i", str(PR_ITERATIONS), "-t", PR_TOLERANCE]}


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def env(**extra: str) -> dict[str, str]:
    out = dict(os.environ)
    # Python's bytecode cached, as pip leaves an installed package: without it every process compiled
    # graphferry's modules from source again (a sandbox here sets PYTHONDONTWRITEBYTECODE), about 1 s
    # of the 1.5 s "imports" phase session 22 recorded on the 2-core machine
    out.pop("PYTHONDONTWRITEBYTECODE", None)
    out["PYTHONPATH"] = str(ROOT / "src") + (os.pathsep + out["PYTHONPATH"] if out.get("PYTHONPATH") else "")
    out.update(extra)
    return out


#: CPU seconds (user + system) of each process timed, in order: a figure a busy machine inflates less
CPU_SECONDS: list[float] = []
CPU_SECONDS_BEFORE: list[float] = []


def _children_cpu() -> float:
    import resource

    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def timed(cmd: list[str], *, environ: dict[str, str] | None = None, timeout: float = 3600,
          before=None) -> tuple[float, subprocess.CompletedProcess]:
    """Wall seconds of one process running ``cmd`` (``before()`` runs first, untimed)."""
    if before is not None:
        before()
    CPU_SECONDS_BEFORE.append(_children_cpu())
    t = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=environ or env(), timeout=timeout)
    wall = time.perf_counter() - t
    CPU_SECONDS.append(_children_cpu() - CPU_SECONDS_BEFORE.pop())
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {proc.returncode}: {(proc.stdout + proc.stderr)[-2000:]}")
    return wall, proc


def load_average() -> float | None:
    """The machine's 1-minute load average (others' work too: the machine may be shared)."""
    try:
        return round(os.getloadavg()[0], 2)
    except OSError:
        return None


def repeated(cmd, repeat: int, **kw) -> dict:
    """``first_seconds``, ``seconds`` (median of the ``repeat`` after the first), ``all_seconds``,
    ``cpu_seconds`` and ``load_average`` (before the first process)."""
    load = load_average()
    walls, cpu = [], []
    for _ in range(1 + repeat):
        wall, _ = timed(cmd, **kw)
        walls.append(wall)
        cpu.append(CPU_SECONDS[-1])
    rest = walls[1:] or walls
    return {"seconds": round(statistics.median(rest), 4), "first_seconds": round(walls[0], 4),
            "all_seconds": [round(w, 4) for w in walls], "cpu_seconds": [round(c, 3) for c in cpu],
            "load_average": load}


def graphferry(*args: str) -> list[str]:
    return [sys.executable, "-m", "graphferry", "-q", *args]


def machine() -> dict:
    out = provenance.host()
    if gpu_usable():
        import cupy

        out["device"] = cupy.cuda.runtime.getDeviceProperties(0)["name"].decode()
    return out


def gpu_usable() -> bool:
    sys.path.insert(0, str(ROOT / "src"))
    try:
        from graphferry.backends import cuda_available

        return bool(cuda_available())
    except Exception:  # noqa: BLE001 - no CuPy, no driver: no GPU runs
        return False


def write_text_edges(store: Path, path: Path) -> int:
    """``u v`` a line, each undirected edge of ``store`` once (u < v), plain decimal (pyarrow's writer)."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    from graphferry.store import open_store

    g = open_store(store)
    lines = 0
    opts = pacsv.WriteOptions(include_header=False, delimiter=" ")
    with pacsv.CSVWriter(str(path), pa.schema([("u", pa.int64()), ("v", pa.int64())]), write_options=opts) as w:
        step = 1 << 20  # vertices a chunk
        for lo in range(0, g.n, step):
            hi = min(g.n, lo + step)
            a, b = int(g.offsets[lo]), int(g.offsets[hi])
            rows = np.repeat(np.arange(lo, hi, dtype=np.int64), np.diff(np.asarray(g.offsets[lo:hi + 1])))
            cols = np.asarray(g.indices[a:b]).astype(np.int64)
            keep = rows < cols
            w.write_table(pa.table({"u": rows[keep], "v": cols[keep]}))
            lines += int(keep.sum())
    return lines


def same_store(a: Path, b: Path) -> bool:
    """The same CSR, but for isolated vertices after ``b``'s last one (no line of a text names them)."""
    from graphferry.store import open_store

    ga, gb = open_store(a), open_store(b)
    oa, ob = np.asarray(ga.offsets), np.asarray(gb.offsets)
    return ga.m == gb.m and gb.n <= ga.n and np.array_equal(oa[:gb.n + 1], ob) and bool((oa[gb.n:] == ga.m).all()) \
        and np.array_equal(ga.indices, gb.indices)


def convert_runs(work: Path, scale: int, repeat: int, gapbs: Path | None, doc: dict) -> list[dict]:
    """``convert`` and ``peer:gapbs-convert`` of Kronecker ``scale`` written as text (its store generated if absent)."""
    store = work / f"kron{scale}.store"
    if not store.exists():
        timed(graphferry("generate", "kronecker", "--scale", str(scale), str(store), "--force"))
    from graphferry.store import open_store

    m = open_store(store).m
    el = work / f"kron{scale}.el"
    if not el.exists():
        lines = write_text_edges(store, el)
        log(f"wrote {el} ({lines} lines, {el.stat().st_size} bytes)")
    doc["convert_input"] = {"file": el.name, "scale": scale, "bytes": el.stat().st_size, "arcs": m,
                            "format": "u v per line, each undirected edge once"}
    runs = []
    converted = work / f"kron{scale}-converted.store"
    cmd = graphferry("convert", str(el), str(converted), "--format", "edgelist", "--undirected",
                     "--drop-self-loops", "--drop-duplicates", "--no-renumber", "--force")
    log(f"convert: {' '.join(cmd)}")
    r = repeated(cmd, repeat, before=lambda: shutil.rmtree(converted, ignore_errors=True))
    timed(graphferry("verify", str(converted)))
    ok = same_store(store, converted)
    runs.append({"algorithm": "convert", "engine": "convert", **r, "verified": ok,
                 "verified_how": "graphferry verify, and the same CSR as the store the text was written from "
                                 "(but for isolated last vertices, which the text does not name)",
                 "command": " ".join(cmd)})
    log(f"  convert: {r} verified {ok}")
    shutil.rmtree(converted, ignore_errors=True)
    if gapbs is not None:
        sg = work / f"gapbs-conv{scale}.sg"
        cmd = [str(gapbs / "converter"), "-f", str(el), "-s", "-b", str(sg)]
        log(f"peer convert: {' '.join(cmd)}")
        r = repeated(cmd, repeat, before=lambda: sg.unlink(missing_ok=True))
        _, v = timed([str(gapbs / "bfs"), "-f", str(sg), "-n", "1", "-v"])
        line = gapbs_graph_line(v.stdout)
        ok = "Verification:" in v.stdout and "FAIL" not in v.stdout and f"{m // 2} undirected" in line
        runs.append({"algorithm": "convert", "engine": "peer:gapbs-convert", **r, "verified": ok,
                     "verified_how": f"GAPBS's BFS verifier (-v) on the graph it wrote, and its edge count "
                                     f"equal to ours ({line})",
                     "command": f"{' '.join(cmd)}; checked by: {gapbs / 'bfs'} -f {sg} -n 1 -v"})
        log(f"  peer:gapbs-convert: {r} verified {ok}")
        sg.unlink(missing_ok=True)
    return runs


def _answer(path: Path) -> np.ndarray:
    """The value column of a ``--out`` table (.npy, structured): levels, labels, ranks or distances."""
    table = np.load(path, allow_pickle=False)
    names = [c for c in (table.dtype.names or ()) if c in ("levels", "labels", "ranks", "component", "rank",
                                                            "distances")]
    return np.asarray(table[names[0]] if names else table)


def _same_answer(alg: str, a: np.ndarray, b: np.ndarray) -> bool:
    """BFS levels equal; components the same partition (labels may differ); ranks within 1e-6 (L1; the
    rounds sum in parallel, in an order that may differ between backends)."""
    if a.shape != b.shape:
        return False
    if alg == "wcc":
        from graphferry.algorithms.wcc import same_partition

        return same_partition(a, b)
    if alg == "pagerank":
        return float(np.abs(a.astype(np.float64) - b.astype(np.float64)).sum()) <= 1e-6
    return bool(np.array_equal(a, b))


def gapbs_process_run(exe: Path, sg: Path, alg: str, source: int, repeat: int) -> dict:
    """``peer:gapbs-process``: GAPBS's ``exe -f sg -n 1`` timed, then checked by its ``-v`` in a process of its own."""
    extra = [str(source) if a == "SOURCE" else a for a in GAPBS_OPTIONS[alg]]
    cmd = [str(exe), "-f", str(sg), "-n", "1", *extra]
    log(f"peer: {' '.join(cmd)}")
    r = repeated(cmd, repeat)
    _, v = timed(cmd + ["-v"])
    ok = "Verification:" in v.stdout and "FAIL" not in v.stdout
    said = " ".join(ln.strip() for ln in v.stdout.splitlines() if "Verification" in ln)
    log(f"  peer:gapbs-process {alg}: {r}")
    return {"algorithm": alg, "engine": "peer:gapbs-process", **r, "verified": ok,
            "verified_how": "GAPBS's own verifier (-v) in a process of its own" if ok else
            f"unchecked: GAPBS's verifier (-v) said {said or 'nothing'!r}",
            "command": f"{' '.join(cmd)}; checked by: {' '.join(cmd)} -v"}


def gapbs_graph_line(out: str) -> str:
    for line in out.splitlines():
        if line.startswith("Graph has"):
            return line.strip()
    return ""


def parse_args(argv=None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", type=int, default=21)
    ap.add_argument("--algorithms", nargs="+", default=["bfs", "wcc"], choices=sorted(GAPBS_BINARY))
    ap.add_argument("--repeat", type=int, default=3, help="timed processes after the first (median kept)")
    ap.add_argument("--gapbs-bin", type=Path, default=None, help="folder with GAPBS's bfs, cc, pr, sssp, converter")
    ap.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "graphferry-oneshot")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--parts", nargs="+", default=["generate", "convert", "run"],
                    choices=["generate", "convert", "run"])
    ap.add_argument("--gpu-engines", nargs="+", default=["auto", "hybrid"],
                    help="engines of the cli-gpu and cli-gpu-fresh runs")
    ap.add_argument("--no-gpu", action="store_true", help="no GPU runs even where a GPU is usable")
    ap.add_argument("--no-check", action="store_true",
                    help="no --check process for our runs (their verifiers' serial references take minutes at "
                         "Kronecker 25); they are then marked unchecked")
    ap.add_argument("--no-fresh", action="store_true", help="no cli-gpu-fresh runs")
    ap.add_argument("--convert-scale", type=int, default=None,
                    help="the Kronecker scale of the convert part's text (default --scale; its store is "
                         "generated in --work if absent)")
    return ap.parse_args(argv)


class OneShot:
    """One run's state: arguments, the work folder and the store, GAPBS and the GPU when usable, the
    runs so far and the results document (written by :meth:`save` after each part)."""

    def __init__(self, args, argv):
        self.args, self.argv = args, argv
        self.work = args.work
        self.work.mkdir(parents=True, exist_ok=True)
        self.scale = args.scale
        self.store = self.work / f"kron{self.scale}.store"
        self.gapbs = args.gapbs_bin
        self.have_gapbs = self.gapbs is not None and (self.gapbs / "converter").exists()
        self.gpu = not args.no_gpu and gpu_usable()
        self.runs: list[dict] = []
        self.doc = {"date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"), "machine": machine(),
                    "note": "seconds: wall of a whole process (median of the processes after the first; "
                            "first_seconds the first), files in the page cache; checks in processes of their own; "
                            "cpu_seconds: each process's user + system CPU seconds (getrusage of the children), "
                            "less inflated than wall on a machine other work shares; load_average: the machine's "
                            "1-minute load before a run's processes; Python's bytecode cached (as installed)",
                    "runs": self.runs}
        self.reference: dict[str, tuple] = {}  # per algorithm: the first configuration's answer, its label, checked

    def save(self) -> None:
        provenance.stamp(self.doc, [sys.argv[0], *(sys.argv[1:] if self.argv is None else self.argv)])
        self.args.out.parent.mkdir(parents=True, exist_ok=True)
        self.args.out.write_text(json.dumps(self.doc, indent=1) + "\n")


def generate_part(s: OneShot):
    """``graphferry generate`` timed (when asked for, or when the store is missing), checked by
    ``graphferry verify``; returns the store, opened."""
    args, store = s.args, s.store
    gen_cmd = graphferry("generate", "kronecker", "--scale", str(s.scale), str(store), "--force")
    if "generate" in args.parts or not store.exists():
        log(f"generate: {' '.join(gen_cmd)}")
        r = repeated(gen_cmd, args.repeat if "generate" in args.parts else 0,
                     before=lambda: shutil.rmtree(store, ignore_errors=True))
        _, check = timed(graphferry("verify", str(store), "--json"))
        facts = json.loads(check.stdout)
        if "generate" in args.parts:
            s.runs.append({"algorithm": "generate", "engine": "generate", **r, "verified": True,
                           "verified_how": f"graphferry verify (checksums, structure): n {facts['n']}, m {facts['m']}",
                           "command": " ".join(gen_cmd)})
            log(f"  generate: {r}")
    from graphferry.store import open_store

    g = open_store(store)
    s.doc["graph"] = {"name": f"kron{s.scale}", "n": g.n, "m": g.m, "directed": g.directed,
                      "edge_bytes": int(g.m * g.indices.itemsize)}
    s.save()
    return g


def gapbs_generate_part(s: OneShot) -> None:
    """GAPBS's converter generating the same scale, checked by its BFS verifier on the graph it wrote."""
    gapbs, scale = s.gapbs, s.scale
    sg = s.work / f"gapbs-gen{scale}.sg"
    cmd = [str(gapbs / "converter"), f"-g{scale}", "-s", "-b", str(sg)]
    log(f"peer generate: {' '.join(cmd)}")
    r = repeated(cmd, s.args.repeat, before=lambda: sg.unlink(missing_ok=True))
    _, v = timed([str(gapbs / "bfs"), "-f", str(sg), "-n", "1", "-v"])
    ok = "Verification:" in v.stdout and "FAIL" not in v.stdout
    s.runs.append({"algorithm": "generate", "engine": "peer:gapbs-generate", **r, "verified": ok,
                   "verified_how": f"GAPBS's BFS verifier (-v) on the graph it wrote; {gapbs_graph_line(v.stdout)}",
                   "command": f"{' '.join(cmd)}; checked by: {gapbs / 'bfs'} -f {sg} -n 1 -v"})
    log(f"  peer:gapbs-generate: {r}")
    sg.unlink(missing_ok=True)
    s.save()


def verify_answer(s: OneShot, alg: str, label: str, answer, cmd, environ, out: Path) -> tuple[bool, str]:
    """Whether a run's answer is verified, and how: the algorithm's first configuration by its own
    verifier (``--check``) in a process of its own, the others by equality with it."""
    if alg not in s.reference and s.args.no_check:
        s.reference[alg] = (answer, label, False)
        return False, "unchecked: --no-check (the verifiers' serial references take minutes at this scale)"
    if alg not in s.reference:  # the algorithm's first configuration: its own verifier, once
        timed(cmd + ["--check"], environ=environ(), before=lambda: out.unlink(missing_ok=True))
        s.reference[alg] = (answer, label, True)
        return True, "--check (the algorithm's own verifier) in a process of its own"
    ref, ref_label, ref_checked = s.reference[alg]
    same = _same_answer(alg, answer, ref)
    verified = same and ref_checked
    return verified, (f"the same answer as {ref_label}'s, which --check verified" if verified else
                      f"unchecked: {'the same answer as' if same else 'an answer differing from'} {ref_label}'s")


def our_run(s: OneShot, source: int, alg: str, backend: str, engine: str, label: str, fresh: bool) -> None:
    """``graphferry run`` as one process, ``1 + --repeat`` times (after an untimed one that compiles,
    unless ``fresh``: empty caches each process), its record's phases and its answer checked."""
    work, out = s.work, s.work / "x.npy"
    extra = [str(source) if a == "SOURCE" else a for a in OUR_OPTIONS[alg]]
    cmd = graphferry("run", OUR_ALGORITHM.get(alg, alg), str(s.store), "--backend", backend, *extra, "--out", str(out))
    if engine != "auto":
        cmd += ["--engine", engine]
    caches: list[Path] = []

    def environ() -> dict[str, str]:
        if not fresh:
            return env()
        d = Path(tempfile.mkdtemp(prefix="gf-fresh-", dir=work))
        caches.append(d)
        return env(GRAPHFERRY_CACHE_DIR=str(d / "graphferry"), XDG_CACHE_HOME=str(d / "xdg"),
                   CUPY_CACHE_DIR=str(d / "cupy"))

    if not fresh:
        timed(cmd, before=lambda: out.unlink(missing_ok=True))  # programs compiled once, untimed
    walls, cpu = [], []
    load = load_average()
    for _ in range(1 + s.args.repeat):
        out.unlink(missing_ok=True)
        wall, _ = timed(cmd, environ=environ())
        walls.append(wall)
        cpu.append(round(CPU_SECONDS[-1], 3))
    # The record (phases) from the last timed process: --record writes a file and nothing more.
    rec = work / "record.json"
    timed(cmd + ["--record", str(rec)], environ=environ(), before=lambda: out.unlink(missing_ok=True))
    record = json.loads(rec.read_text())
    verified, how = verify_answer(s, alg, label, _answer(out), cmd, environ, out)
    rest = walls[1:] or walls
    run = {"algorithm": alg, "engine": label, "backend": backend,
           "seconds": round(statistics.median(rest), 4), "first_seconds": round(walls[0], 4),
           "all_seconds": [round(w, 4) for w in walls], "cpu_seconds": cpu, "load_average": load,
           "verified": verified,
           "verified_how": how, "phases": record["extra"].get("phases"), "run_engine": record.get("engine"),
           "command": " ".join(cmd) + (" (empty program and calibration caches each process)" if fresh else "")}
    if engine != "auto":
        run["engine_option"] = engine
    s.runs.append(run)
    for d in caches:
        shutil.rmtree(d, ignore_errors=True)
    log(f"  {label} {alg} {engine}: {run['seconds']} s (first {run['first_seconds']}), phases {run['phases']}")


def run_part(s: OneShot, g) -> None:
    """Each algorithm as one-shot processes (CPU, GPU, GPU with empty caches), its GAPBS process right after."""
    args, gapbs = s.args, s.gapbs
    source = int(np.argmax(np.diff(np.asarray(g.offsets))))  # the highest-degree vertex, for both
    s.doc["source"] = source
    files = {}
    if s.have_gapbs:  # the same graph in GAPBS's format, written once
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from peers_bench import write_gapbs

        files = write_gapbs(g, s.work / f"kron{s.scale}")
    for alg in args.algorithms:  # each algorithm's peer right after ours: a cut-short call keeps pairs
        our_run(s, source, alg, "cpu", "auto", "cli-cpu", False)
        if s.gpu:
            for engine in args.gpu_engines:
                our_run(s, source, alg, "cuda", engine, "cli-gpu", False)
                if not args.no_fresh:
                    our_run(s, source, alg, "cuda", engine, "cli-gpu-fresh", True)
        if files and (gapbs / GAPBS_BINARY[alg]).exists():
            s.runs.append(gapbs_process_run(gapbs / GAPBS_BINARY[alg], files[".sg"], alg, source, args.repeat))
        s.save()
    for f in files.values():
        f.unlink(missing_ok=True)
    s.save()


def main(argv=None) -> int:
    args = parse_args(argv)
    sys.path.insert(0, str(ROOT / "src"))
    s = OneShot(args, argv)
    g = generate_part(s)
    if "generate" in args.parts and s.have_gapbs:
        gapbs_generate_part(s)
    if "convert" in args.parts:
        s.runs.extend(convert_runs(s.work, args.convert_scale or s.scale, args.repeat,
                                   s.gapbs if s.have_gapbs else None, s.doc))
        s.save()
    if "run" in args.parts:
        run_part(s, g)
    print(report(s.doc))
    return 0


def report(doc: dict) -> str:
    lines = [f"{'algorithm':<10} {'engine':<22} {'seconds':>9} {'first':>9}  ratio to GAPBS"]
    peer = {}
    for r in doc["runs"]:
        if r["engine"].startswith("peer:"):
            peer[r["algorithm"]] = r["seconds"]
    for r in doc["runs"]:
        ratio = peer.get(r["algorithm"])
        tail = f"{r['seconds'] / ratio:.2f}x" if ratio and not r["engine"].startswith("peer:") else ""
        lines.append(f"{r['algorithm']:<10} {r['engine'] + (' ' + r.get('engine_option', '') if r.get('engine_option') else ''):<22} "
                     f"{r['seconds']:>9.3f} {r['first_seconds']:>9.3f}  {tail}")
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
