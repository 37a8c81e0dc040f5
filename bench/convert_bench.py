"""Text edge list -> graph store: graphferry's reader against pandas + numpy.

Generates a Graph500 Kronecker edge list as text (``src dst`` a line, raw
samples: self-loops and repeated edges included; scale 22 is 67 M lines,
~1 GB), then converts it to an undirected CSR graph store twice, each in its
own subprocess so that peak memory is that conversion's alone
(``os.wait4`` gives each child's ``ru_maxrss``):

* ``graphferry``: ``read_edgelist(path, directed=False, store=...)`` (pyarrow
  parser, chunked CSRBuilder, atomic store with checksums);
* ``pandas+numpy``: ``pandas.read_csv(path, sep=" ", header=None)``, then the
  usual numpy CSR build (symmetrise, stable argsort by source, bincount +
  cumsum for offsets) and ``np.save`` of offsets/indices.

Both must produce the same CSR (the same offsets and, per row, the same
neighbour multiset): the two are independent implementations, so each
repeat's two stores are compared exactly before its times are reported, and a
run is ``verified`` only when they agree. The file is read once before the runs so
both start from a warm page cache. Results: a table on stdout and a JSON file
in the BENCH_RESULTS.md format (engine ``cpu``).

    PYTHONPATH=src python bench/convert_bench.py --scale 22 --out bench/results/convert-kron22.json
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

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
import provenance  # noqa: E402  (commit, dirty, diff hash, command: issue 35)


# ---------------------------------------------------------------- generation
def kronecker_chunks(scale: int, edge_factor: int, seed: int):
    try:
        from graphferry.generators import kronecker_edges
    except ImportError:  # the generator module is not there: a numpy R-MAT stand-in
        yield from _rmat_numpy(scale, edge_factor, seed)
        return
    yield from kronecker_edges(scale, edge_factor, seed=seed, chunk_edges=1 << 22)


def _rmat_numpy(scale, edge_factor, seed, a=0.57, b=0.19, c=0.19):
    rng = np.random.default_rng(seed)
    total = edge_factor << scale
    perm = rng.permutation(1 << scale)
    for lo in range(0, total, 1 << 22):
        k = min(1 << 22, total - lo)
        src = np.zeros(k, np.int64)
        dst = np.zeros(k, np.int64)
        for _ in range(scale):
            u = rng.random(k)
            down = u >= a + b
            right = ((u >= a) & (u < a + b)) | (u >= a + b + c)
            src = (src << 1) | down
            dst = (dst << 1) | right
        yield perm[src], perm[dst]


def write_text(path: Path, scale: int, edge_factor: int, seed: int) -> int:
    import pyarrow as pa
    import pyarrow.csv as pacsv

    tmp = path.with_name(path.name + ".tmp")
    lines = 0
    with open(tmp, "wb") as f:
        for src, dst in kronecker_chunks(scale, edge_factor, seed):
            pacsv.write_csv(pa.table({"s": src, "d": dst}), f,
                            write_options=pacsv.WriteOptions(include_header=False, delimiter=" ",
                                                             quoting_style="none"))
            lines += len(src)
    os.replace(tmp, path)
    return lines


# -------------------------------------------------------------------- children
def child_graphferry(inp: str, out: str) -> dict:
    from graphferry.io import read_edgelist

    t = time.perf_counter()
    g = read_edgelist(inp, directed=False, store=out, overwrite=True)
    return {"seconds": time.perf_counter() - t, "n": g.n, "m": g.m}


def child_pandas(inp: str, out: str) -> dict:
    import pandas as pd

    t = time.perf_counter()
    df = pd.read_csv(inp, sep=" ", header=None)
    s = df[0].to_numpy()
    d = df[1].to_numpy()
    del df
    keep = s != d  # undirected: each edge both ways, a self-loop once
    src = np.concatenate([s, d[keep]])
    dst = np.concatenate([d, s[keep]])
    del s, d, keep
    n = int(max(src.max(), dst.max())) + 1
    order = np.argsort(src, kind="stable")
    indices = dst[order].astype(np.int32)
    del dst, order
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(src, minlength=n), out=offsets[1:])
    del src
    os.makedirs(out, exist_ok=True)
    np.save(os.path.join(out, "offsets.npy"), offsets)
    np.save(os.path.join(out, "indices.npy"), indices)
    return {"seconds": time.perf_counter() - t, "n": n, "m": int(offsets[-1])}


CHILDREN = {"graphferry": child_graphferry, "pandas+numpy": child_pandas}


def run_child(method: str, inp: Path, out: Path) -> dict:
    """Run one conversion in a fresh interpreter; its own peak RSS via wait4."""
    if out.exists():
        shutil.rmtree(out)
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    proc = subprocess.Popen([sys.executable, __file__, "--child", method, str(inp), str(out)],
                            stdout=subprocess.PIPE, env=env)
    data = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise RuntimeError(f"{method} failed with exit code {proc.returncode}")
    result = json.loads(data.decode().strip().splitlines()[-1])
    result["peak_rss_bytes"] = usage.ru_maxrss * 1024  # Linux reports KiB
    result["store_bytes"] = sum(p.stat().st_size for p in out.iterdir() if p.suffix == ".npy")
    return result


# ----------------------------------------------------------------------- check
def same_csr(a: Path, b: Path) -> bool:
    """Same offsets and, per row, the same neighbour multiset (order within a row may differ).

    Exact: both index arrays are sorted within each row (as ``row * n + column`` keys)
    and compared element by element.
    """
    oa = np.load(a / "offsets.npy", mmap_mode="r")
    ob = np.load(b / "offsets.npy", mmap_mode="r")
    if not np.array_equal(oa, ob):
        return False
    n = len(oa) - 1
    rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(np.asarray(oa)))

    def keys(path):
        k = rows * np.int64(n) + np.load(path / "indices.npy", mmap_mode="r").astype(np.int64)
        k.sort()
        return k

    return bool(np.array_equal(keys(a), keys(b)))


def machine() -> dict:
    mem = None
    try:
        mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError):
        pass
    return {**provenance.host(), "ram_bytes": mem}


def convert_both(text: Path, work: Path, rep: int) -> list[dict]:
    """One repeat: each conversion in its own process, then their stores compared."""
    pair = []
    for method in CHILDREN:
        r = run_child(method, text, work / f"store-{method}")
        r.update(method=method, repeat=rep)
        pair.append(r)
    # each repeat's stores are compared before their times are reported: the two
    # conversions are independent implementations, so agreeing verifies both
    same = same_csr(work / "store-graphferry", work / "store-pandas+numpy")
    for r in pair:
        r["verified"] = same
        r["checks"] = ("same CSR as the other conversion (offsets equal, each row's "
                       "neighbours equal as sorted lists)" if same else "CSR differs from the other conversion")
        print(f"  {r['method']:14s} {r['seconds']:7.2f} s  peak RSS {r['peak_rss_bytes'] / 2**20:7.0f} MiB"
              f"  {'verified' if same else 'WRONG: ' + r['checks']}", flush=True)
    return pair


def report(args, best: dict, lines: int, text_bytes: int, verified: bool) -> None:
    """The best run of each method: seconds, edges and text bytes per second, peak memory."""
    g = best["graphferry"]
    print()
    print(f"Kronecker scale {args.scale}, edge factor {args.edge_factor}: {lines:,} edge lines, "
          f"{text_bytes / 2**30:.2f} GiB text -> undirected CSR n={g['n']:,} m={g['m']:,} arcs "
          f"(store {g['store_bytes'] / 2**20:.0f} MiB); same CSR: {verified}")
    print(f"{'method':14s} | {'seconds':>8s} | {'edges/s':>12s} | {'MB/s text':>9s} | "
          f"{'peak RSS':>9s} | {'RSS/store':>9s}")
    print("-" * 76)
    for m, r in best.items():
        print(f"{m:14s} | {r['seconds']:8.2f} | {lines / r['seconds']:12,.0f} | "
              f"{text_bytes / r['seconds'] / 1e6:9.1f} | {r['peak_rss_bytes'] / 2**20:6.0f} MiB | "
              f"{r['peak_rss_bytes'] / g['store_bytes']:8.2f}x")
    speedup = best["pandas+numpy"]["seconds"] / g["seconds"]
    print(f"graphferry is {speedup:.2f}x the pandas+numpy speed; peak memory "
          f"{g['peak_rss_bytes'] / g['store_bytes']:.2f}x its store size")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scale", type=int, default=22)
    ap.add_argument("--edge-factor", type=int, default=16)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=1, help="runs per method (best is tabled)")
    ap.add_argument("--workdir", type=Path, default=None,
                    help="where the text file and stores go (default: a temporary directory)")
    ap.add_argument("--keep", action="store_true", help="keep the text file and stores")
    ap.add_argument("--out", type=Path, default=None, help="JSON results file")
    ap.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        method, inp, out = args.child
        print(json.dumps(CHILDREN[method](inp, out)))
        return 0

    work = args.workdir or Path(tempfile.mkdtemp(prefix="graphferry-convert-"))
    work.mkdir(parents=True, exist_ok=True)
    text = work / f"kron{args.scale}-ef{args.edge_factor}-s{args.seed}.el"
    t = time.perf_counter()
    if not text.exists():
        lines = write_text(text, args.scale, args.edge_factor, args.seed)
        print(f"generated {text} ({lines} lines, {text.stat().st_size / 2**30:.2f} GiB) "
              f"in {time.perf_counter() - t:.1f} s", flush=True)
    lines = args.edge_factor << args.scale
    with open(text, "rb") as f:  # warm the page cache for both contenders
        while f.read(1 << 26):
            pass
    runs = []
    try:
        for rep in range(args.repeat):
            runs.extend(convert_both(text, work, rep))
        verified = all(r["verified"] for r in runs)
        best = {m: min((r for r in runs if r["method"] == m), key=lambda r: r["seconds"]) for m in CHILDREN}
        g = best["graphferry"]
        text_bytes = text.stat().st_size
        report(args, best, lines, text_bytes, verified)
        if args.out:
            record = {
                **provenance.stamp({}),
                "date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
                "machine": machine(),
                "graph": {"name": f"kron{args.scale}", "n": g["n"], "m": g["m"], "directed": False,
                          "edge_bytes": g["m"] * 4, "edge_lines": lines, "text_bytes": text_bytes,
                          "generator": f"kronecker_edges(scale={args.scale}, edge_factor="
                                       f"{args.edge_factor}, seed={args.seed}), raw samples"},
                "note": "seconds = whole conversion (parse + CSR build + store write), each in its "
                        "own process from a warm page cache; peak_rss_bytes from wait4 ru_maxrss",
                "runs": [{"algorithm": "convert-edgelist-to-store", "engine": "cpu",
                          "method": r["method"], "seconds": round(r["seconds"], 3),
                          # one conversion per process: its only call is its first
                          "first_seconds": round(r["seconds"], 3), "calls": 1,
                          "edges_per_second": round(lines / r["seconds"]),
                          "peak_rss_bytes": r["peak_rss_bytes"], "store_bytes": r["store_bytes"],
                          "rss_over_store": round(r["peak_rss_bytes"] / g["store_bytes"], 3),
                          "repeat": r["repeat"], "verified": r["verified"], "checks": r["checks"]}
                         for r in runs],
            }
            args.out.parent.mkdir(parents=True, exist_ok=True)
            args.out.write_text(json.dumps(record, indent=1) + "\n")
            print(f"wrote {args.out}")
    finally:
        if not args.keep:
            for p in work.glob("store-*"):
                shutil.rmtree(p, ignore_errors=True)
            if args.workdir is None:
                shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
