"""Peak memory of ``graphferry convert`` and ``graphferry run`` of every algorithm.

Writes a Graph500 Kronecker edge list as text (raw samples, as
``convert_bench.py`` does), converts it to an undirected store with the CLI,
then runs every algorithm on the store with the CLI on the CPU backend. Each
command runs in its own process; its peak resident set comes from ``wait4``
(``ru_maxrss``, what ``/usr/bin/time -v`` reports as "Maximum resident set
size"). Resident memory counts the pages of the memory-mapped store a command
touched, so a run that reads every edge shows at least the store's size.

Also times the structural check every store open does (``check_csr``: offsets
monotone, indices in range) against reading the same files, from disk (their
pages evicted with ``posix_fadvise(DONTNEED)``) and from the page cache (the
check's worst case).

Results: a table on stdout and a JSON file in the BENCH_RESULTS.md format,
with ``peak_rss_bytes`` and ``rss_over_store`` per command, and the
estimate that ``graphferry info`` prints for each algorithm next to it.

    PYTHONPATH=src python bench/memory_bench.py --scale 20 --out bench/results/memory-kron20.json
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
import provenance  # noqa: E402  (commit, dirty, diff hash, command: issue 35)
sys.path.insert(0, str(ROOT / "bench"))

from convert_bench import machine, write_text  # noqa: E402

ALGORITHMS = ("bfs", "sssp", "pagerank", "pagerank_ldbc", "wcc", "cdlp", "lcc", "triangle_count")


TIME = shutil.which("time", path="/usr/bin:/bin") or ""


def measure(cmd: list[str], env: dict[str, str]) -> dict:
    """Run ``cmd``; its exit status, wall seconds and peak RSS (bytes).

    Through ``/usr/bin/time -v``: the command is forked from ``time``, a small
    process. Measuring a direct child with ``wait4`` would be wrong here: on
    Linux a child's ``ru_maxrss`` starts at its parent's resident size at
    fork, and this parent holds the generator's buffers.
    """
    t = time.perf_counter()
    proc = subprocess.run([TIME, "-v", *cmd] if TIME else cmd, capture_output=True, env=env)
    seconds = time.perf_counter() - t
    err = proc.stderr.decode(errors="replace")
    peak = None
    for line in err.splitlines():
        if "Maximum resident set size" in line:
            peak = int(line.rsplit(":", 1)[1]) * 1024
    if peak is None:
        raise SystemExit("needs /usr/bin/time (GNU time, -v) to measure peak RSS")
    tail = "\n".join(ln for ln in err.splitlines() if not ln.startswith("\t"))
    code = proc.returncode
    return {"rc": code, "seconds": round(seconds, 3), "peak_rss_bytes": peak, "stderr": tail[-500:]}


_CHECK_CHILD = r"""
import json, os, sys, time
import numpy as np
from graphferry.graph import check_csr
from graphferry.store import open_store
path = sys.argv[1]
files = [os.path.join(path, f) for f in ("offsets.npy", "indices.npy")]

def evict():
    # Drop just these files' pages from the page cache (clean pages: no root, no effect on others).
    for f in files:
        fd = os.open(f, os.O_RDONLY)
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        os.close(fd)

def read_all():
    a = np.fromfile(files[0], dtype=np.uint8); b = np.fromfile(files[1], dtype=np.uint8)
    return a.nbytes + b.nbytes

rows = []
for _ in range(3):
    evict(); t = time.perf_counter(); read_all(); cold_read = time.perf_counter() - t
    evict(); t = time.perf_counter(); g = open_store(path); cold_open = time.perf_counter() - t
    t = time.perf_counter(); read_all(); warm_read = time.perf_counter() - t
    t = time.perf_counter(); check_csr(g.offsets, g.indices); warm_check = time.perf_counter() - t
    del g
    rows.append({"cold_read_seconds": cold_read, "cold_open_seconds": cold_open,
                 "warm_read_seconds": warm_read, "warm_check_seconds": warm_check})
med = {k: sorted(r[k] for r in rows)[1] for k in rows[0]}
med["check_over_cold_read"] = med["warm_check_seconds"] / med["cold_read_seconds"]
med["check_over_warm_read"] = med["warm_check_seconds"] / med["warm_read_seconds"]
med["note"] = ("medians of 3; read = np.fromfile of offsets.npy + indices.npy; cold = after "
               "posix_fadvise(DONTNEED) on those files; cold_open = open_store incl. the check from disk")
print(json.dumps(med))
"""


def run_algorithms(gf: list[str], store: Path, source: str, names: list[str], estimates: dict, env: dict) -> list[dict]:
    """Each algorithm as one command (``gf``: the command line's start) on ``store``, measured."""
    runs = []
    for name in names:
        extra = ["--source", source] if name in ("bfs", "sssp") else []
        if name == "pagerank_ldbc":
            extra = ["--damping", "0.85", "--iterations", "10"]
        r = measure([*gf, "run", name, str(store), "--backend", "cpu", *extra], env)
        est = estimates.get(name)
        runs.append({"algorithm": name, "engine": "cpu", **r,
                     "estimate_bytes": None if est is None else est["bytes"],
                     "estimate_formula": None if est is None else est["formula"]})
        print(f"  {name}: rc {r['rc']}, {r['seconds']:.1f} s, peak {r['peak_rss_bytes'] / 2**20:.0f} MiB",
              file=sys.stderr)
    return runs


def report(runs: list[dict], check: dict) -> None:
    """The table of commands (peak memory against the store's size and the estimate) and the check's cost."""
    print(f"{'command':<16}{'rc':>4}{'seconds':>10}{'peak MiB':>10}{'x store':>9}{'estimate MiB':>14}")
    for r in runs:
        est = r.get("estimate_bytes")
        print(f"{r['algorithm']:<16}{r['rc']:>4}{r['seconds']:>10.1f}{r['peak_rss_bytes'] / 2**20:>10.0f}"
              f"{r['rss_over_store']:>9.2f}{'' if est is None else f'{est / 2**20:.0f}':>14}")
    print(f"structural check (warm): {check['warm_check_seconds']:.3f} s = "
          f"{100 * check['check_over_cold_read']:.1f}% of reading offsets+indices from disk "
          f"({check['cold_read_seconds']:.3f} s), {100 * check['check_over_warm_read']:.1f}% of reading "
          f"them from the page cache ({check['warm_read_seconds']:.3f} s); cold open incl. check "
          f"{check['cold_open_seconds']:.3f} s")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scale", type=int, default=20)
    ap.add_argument("--edge-factor", type=int, default=16)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workdir", type=Path, default=None, help="keep the text and store here (reused)")
    ap.add_argument("--algorithms", default=",".join(ALGORITHMS))
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args(argv)

    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    work = args.workdir or Path(tempfile.mkdtemp(prefix="gf-membench-"))
    work.mkdir(parents=True, exist_ok=True)
    text = work / f"kron{args.scale}.el"
    store = work / f"kron{args.scale}.store"
    if not text.exists():
        t = time.perf_counter()
        lines = write_text(text, args.scale, args.edge_factor, args.seed)
        print(f"wrote {text}: {lines:,} lines in {time.perf_counter() - t:.1f} s", file=sys.stderr)
    gf = [sys.executable, "-m", "graphferry", "-q"]
    runs = []
    baseline = measure([sys.executable, "-c", "import graphferry.cli, graphferry.algorithms"], env)
    runs.append({"algorithm": "python-import", "engine": "cpu", **baseline})

    if store.exists():
        shutil.rmtree(store)
    conv = measure([*gf, "convert", str(text), str(store), "--undirected"], env)
    if conv["rc"] != 0:
        raise SystemExit(f"convert failed: {conv['stderr']}")
    from graphferry.store import open_store

    try:
        from graphferry.cli import memory_estimates
    except ImportError:  # a checkout without the estimates: measure only
        memory_estimates = lambda graph: {}  # noqa: E731

    g = open_store(store)
    store_bytes = sum(p.stat().st_size for p in store.iterdir())
    info = {"name": f"kron{args.scale}", "n": g.n, "m": g.m, "directed": g.directed,
            "edge_bytes": g.edge_bytes, "store_bytes": store_bytes, "text_bytes": text.stat().st_size}
    estimates = memory_estimates(g)
    runs.append({"algorithm": "convert", "engine": "cpu", **conv})

    source = str(int(g.out_degree.argmax()))
    del g
    runs += run_algorithms(gf, store, source, args.algorithms.split(","), estimates, env)

    check = json.loads(subprocess.run([sys.executable, "-c", _CHECK_CHILD, str(store)], env=env,
                                      capture_output=True, text=True, check=True).stdout)
    for r in runs:
        r["rss_over_store"] = round(r["peak_rss_bytes"] / store_bytes, 3)
        r["first_seconds"] = r["seconds"]  # one command per process: its only call is its first
        r["verified"] = r["rc"] == 0
        if r["rc"] == 0:
            r.pop("stderr")
    report(runs, check)
    result = {
        **provenance.stamp({}, ["bench/memory_bench.py", *(argv if argv is not None else sys.argv[1:])]),
        "date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "machine": machine(),
        "graph": info,
        "note": ("each command in its own process (python -m graphferry -q ..., CPU backend); "
                 "peak_rss_bytes = /usr/bin/time -v 'Maximum resident set size' (the command forked from time, "
                 "not from this process: a child's ru_maxrss starts at its parent's RSS), "
                 "which counts touched pages of the memory-mapped store; seconds include interpreter "
                 "start, store open and compilation if the program cache is cold; 'verified' = exit 0 "
                 "(results are checked by the test suite, not here)"),
        "structural_check": check,
        "runs": runs,
    }
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(result, indent=1) + "\n")
    if args.workdir is None:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
