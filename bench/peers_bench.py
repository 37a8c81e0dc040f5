#!/usr/bin/env python
"""graphferry beside its peers on one identical graph, in one run (issue 7's side-by-side benchmark).

One Kronecker graph per scale (Graph500 a=0.57, b=0.19, c=0.19, edge factor 16,
undirected, self-loops and duplicates dropped, ids permuted, weights 1..255 from
the endpoint pair), generated once by graphferry (on the GPU when there is one:
``engines_bench.kronecker``), then written by this file's own writers in each
peer's input format:

* GAPBS: serialized ``.sg`` (unweighted) and ``.wsg`` (int32 weights);
* EMOGI: ``.bel.col`` (uint64 offsets), ``.bel.dst`` (uint64 ids), ``.bel.val``
  (uint32 weights), each after a 16-byte header (count, placeholder);
* HyTGraph: ``market_big`` text, ``src<TAB>dst<TAB>weight`` per line (upstream's only reader that
  works), both directions of every edge; or (``--hytgraph-format gr``) Galois's ``.gr``, which
  its build copy reads (``write_galois_gr``).

Runs: every run records its first call after loading (``first_seconds``; a peer that loads per
process runs once: that call) and the median of ``--reps`` calls after it (``seconds``); the
results file names the tree that ran (``bench/provenance.py``, schema ``graphferry-bench/2``).

* graphferry on a loaded graph (``graphferry.load``: edges in pinned host memory,
  engines and programs kept), load time reported apart: the CPU backend as run
  ``cpu``, and on a GPU each engine (``resident`` with the whole graph on the
  device; ``filter``, ``compaction``, ``zerocopy`` with 25% of the edge bytes)
  and the hybrid engine under the same budget (``hybrid``: calibrated cost model,
  residency, CPU executor; ``hybrid-paper``: HyTGraph's fixed constants;
  ``hybrid-gpu``: no CPU executor), with where it placed the work and the floor;
* peers given by binary directories, skipped when absent: ``peer:gapbs`` (bfs,
  sssp -d 2, pr, cc; GAPBS's own timer, always its ``-v`` verifier; ``--gapbs-verify-once``:
  on a first call in a process of its own, the timed trials in a second), ``peer:emogi-gpu``
  (``-m 0``, edges in GPU memory; its PageRank only runs ``-m 1``, managed, as
  ``peer:emogi-managed``) and ``peer:emogi-zerocopy`` (``-m 2``, edges in host memory read by
  the GPU), all ``-t 2`` (merged and aligned), EMOGI's own timer; ``peer:hytgraph``
  (``hybrid_bfs``, ``hybrid_sssp``, ``hybrid_pr``, ``hybrid_cc`` with its hybrid engine
  ``-hybrid 2`` and its default segments and streams; its own timer ``HOST: Total time``,
  loading excluded; each application 1 + ``--peer-trials`` runs in one process, ``-cmdfile``).

PageRank: graphferry's ``pagerank_ldbc`` (every vertex every iteration, 20
iterations, as GAPBS's ``pr`` iterates) as ``pagerank``, and the delta form
(``pagerank``, active vertices only, as EMOGI's) as ``pagerank-delta``;
``seconds_per_iteration`` compares them.

Verification, in the same run: graphferry's results by independent checks (on
the GPU: plain CUDA kernels over the graph, ``engines_bench.Oracle``, and a
float64 power iteration for PageRank; without a GPU: scipy.sparse.csgraph and a
scipy power iteration); GAPBS by its own verifier (``-v``); EMOGI and HyTGraph by their
per-vertex answers, read back (EMOGI's ``$EMOGI_OUTPUT``, a build-folder patch of its output
only; HyTGraph's ``-output``) and put through the same checks (``Checker.check_peer``); a peer
whose answer cannot be read is ``verified: false`` with "unchecked" in ``verified_how``. A
PageRank stopped at a tolerance is verified within the L1 bound that tolerance implies (stated
in the run: ``l1_bound``), and only where that bound excludes the uniform vector.

Output: one JSON per scale under ``--out`` (format: shared/BENCH_RESULTS.md).

Usage:
    PYTHONPATH=src python bench/peers_bench.py --scales 22 25 --out bench/results \\
        --gapbs-bin /path/to/gapbs --emogi-bin /path/to/emogi --work /tmp/peers
"""

from __future__ import annotations

import argparse
import datetime as _dt
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import engines_bench as eb  # noqa: E402  (our generator, ceilings probe and GPU oracle kernels)
import provenance  # noqa: E402  (commit, dirty flag, diff hash, command: issue 35)

ALGORITHMS = ["bfs", "sssp", "pagerank", "wcc"]
GPU_ENGINES = ["resident", "filter", "compaction", "zerocopy"]
#: The hybrid engine's runs (issue 9): run name -> scheduler.Policy options. "hybrid" is the
#: calibrated cost model with residency and the CPU executor; "hybrid-paper" applies HyTGraph's
#: fixed constants instead of the calibration; "hybrid-gpu" keeps every partition on the GPU;
#: "hybrid-async" is HyTGraph's asynchronous mode (a loaded partition's push runs once more).
HYBRID_RUNS = {"hybrid": {}, "hybrid-paper": {"mode": "paper"}, "hybrid-gpu": {"use_cpu": False},
               "hybrid-async": {"asynchronous": True}}
#: runs whose PageRank may stop up to twice the documented bound from the fixed point (the
#: asynchronous mode passes a residual on within the round that grew it: engines_bench's rule)
LOOSER_PAGERANK_BOUND = {"hybrid-async": 2.0}
PR_ITERATIONS, PR_DAMPING = 20, 0.85
PR_DELTA_TOL = 1e-2
#: where the delta form starts (--delta-start): "degrees" (the library's default warm start) or "uniform"
PR_DELTA_START = "degrees"
#: the delta form's vertex state (--delta-dtype): float64, or float32 as EMOGI's pagerank_32 keeps it
PR_DELTA_DTYPE = "float64"
SSSP_DELTA = 2  # GAPBS's setting for Kronecker graphs (its benchmark makefile)


# ====================================================================== writers
def _write_header(f, count: int) -> None:
    f.write(np.array([count, 0], dtype=np.uint64).tobytes())


def _write_chunks(f, arr, dtype, chunk=1 << 26) -> None:
    for a in range(0, len(arr), chunk):
        f.write(np.ascontiguousarray(arr[a:a + chunk], dtype=dtype).tobytes())


def write_gapbs(g, base: Path) -> dict[str, Path]:
    """GAPBS serialized graphs: ``bool directed, int64 arcs, int64 n, int64 offsets[n+1], ids[m]``;
    ``.wsg`` stores (int32 id, int32 weight) pairs."""
    out = {}
    for suffix, weighted in ((".sg", False), (".wsg", True)):
        if weighted and g.weights is None:
            continue
        path = base.with_suffix(suffix)
        with open(path, "wb") as f:
            f.write(np.array([g.directed], dtype=np.bool_).tobytes())
            f.write(np.array([g.m, g.n], dtype=np.int64).tobytes())
            f.write(np.ascontiguousarray(g.offsets, dtype=np.int64).tobytes())
            if not weighted:
                _write_chunks(f, g.indices, np.int32)
            else:
                step = 1 << 26
                for a in range(0, g.m, step):
                    pair = np.empty((min(step, g.m - a), 2), dtype=np.int32)
                    pair[:, 0] = g.indices[a:a + step]
                    pair[:, 1] = g.weights[a:a + step]
                    f.write(pair.tobytes())
        out[suffix] = path
    return out


def write_emogi(g, base: Path) -> Path:
    """EMOGI's ``.bel`` files: a 16-byte header (element count, placeholder), then the data."""
    bel = base.with_suffix(".bel")
    with open(f"{bel}.col", "wb") as f:
        _write_header(f, g.n + 1)
        _write_chunks(f, g.offsets, np.uint64)
    with open(f"{bel}.dst", "wb") as f:
        _write_header(f, g.m)
        _write_chunks(f, g.indices, np.uint64)
    if g.weights is not None:
        with open(f"{bel}.val", "wb") as f:
            _write_header(f, g.m)
            _write_chunks(f, g.weights, np.uint32)
    return bel


def write_galois_gr(g, base: Path) -> Path:
    """Galois's binary graph (``.gr``, version 1), the format HyTGraph names by default (``-format
    gr``): a header of four uint64 (version 1, bytes of edge data, nodes, edges), each node's
    end offset (uint64), the edges' targets (uint32), four bytes of padding when the edge count
    is odd, then one uint32 weight per edge (integers: ours are 1..255). Upstream HyTGraph's
    ``ReadGraphGR`` is an empty stub: the build copy reads it (``bench/NOTES-peers.md``)."""
    path = base.with_suffix(".gr")
    weighted = g.weights is not None
    with open(path, "wb") as f:
        f.write(np.array([1, 4 if weighted else 0, g.n, g.m], dtype=np.uint64).tobytes())
        _write_chunks(f, np.asarray(g.offsets)[1:], np.uint64)
        _write_chunks(f, g.indices, np.uint32)
        if g.m % 2:
            f.write(bytes(4))
        if weighted:
            f.writelines(np.rint(np.asarray(g.weights[a:a + (1 << 26)])).astype(np.uint32).tobytes()
                         for a in range(0, g.m, 1 << 26))
    return path


_PAIRS = np.array([[ord("0") + k // 10, ord("0") + k % 10] for k in range(100)], dtype=np.uint8)


def _digits(values: np.ndarray, width: int) -> np.ndarray:
    """Non-negative integers as zero-padded decimal text, one row of ``width`` ASCII bytes each
    (two digits per division: a 100-entry table of digit pairs)."""
    out = np.empty((len(values), width), dtype=np.uint8)
    v = values.astype(np.uint64, copy=True)
    k = width
    while k >= 2:
        out[:, k - 2:k] = _PAIRS[(v % np.uint64(100)).astype(np.intp)]
        v //= np.uint64(100)
        k -= 2
    if k:
        out[:, 0] = (v % np.uint64(10)).astype(np.uint8) + ord("0")
    return out


def write_hytgraph(g, base: Path, chunk: int = 1 << 22) -> Path:
    """HyTGraph's ``market_big`` text: ``src<TAB>dst<TAB>weight`` per line, decimal, 0-based, both
    directions of every undirected edge (its CC needs them), weights as integers (ours are 1..255).
    Written from numpy digit arrays (zero-padded: its stream reader takes leading zeros), chunks of
    edges formatted on every core (numpy's arithmetic leaves the GIL) and written in order; the
    graph's own ids and order, so its vertex count is ours where the last vertex has an edge.
    (Kronecker 25's 23 GB took 238 s on the device's 16 cores formatted one chunk at a time.)"""
    from concurrent.futures import ThreadPoolExecutor

    path = base.with_suffix(".el")
    width = len(str(max(g.n - 1, 1)))
    deg = np.diff(g.offsets)

    def text(a: int) -> bytes:
        b = min(g.m, a + chunk)
        first = int(np.searchsorted(g.offsets, a, side="right")) - 1
        last = int(np.searchsorted(g.offsets, b, side="left"))
        rows = np.repeat(np.arange(first, last, dtype=np.int64), deg[first:last])
        rows = rows[a - int(g.offsets[first]) : a - int(g.offsets[first]) + (b - a)]
        cols = [_digits(rows, width), _digits(np.asarray(g.indices[a:b]), width)]
        if g.weights is not None:
            cols.append(_digits(np.rint(np.asarray(g.weights[a:b])).astype(np.int64), 3))
        sep = np.full((b - a, 1), ord("\t"), dtype=np.uint8)
        parts = []
        for k, c in enumerate(cols):
            parts += [c, sep if k < len(cols) - 1 else np.full((b - a, 1), ord("\n"), dtype=np.uint8)]
        return np.hstack(parts).tobytes()

    workers = max(1, os.cpu_count() or 1)
    starts = list(range(0, g.m, chunk))
    with open(path, "wb") as f, ThreadPoolExecutor(workers) as pool:
        for w in range(0, len(starts), workers):  # a window at a time: at most `workers` chunks in memory
            f.writelines(pool.map(text, starts[w:w + workers]))
    return path


#: HyTGraph's PageRank threshold (``-error``)
HYTGRAPH_PR_TOL = 0.01


def read_hytgraph_output(path: Path, name: str, n: int):
    """HyTGraph's ``-output`` file as a per-vertex array of length ``n`` (its vertex count stops
    at the largest id with an edge: the trailing vertices are unreached, their own component, rank
    0): ``<vertex> <value>`` lines, ``INF`` unreached; PageRank's under ``-print_ranks -norm``
    (:func:`read_hytgraph_ranks`). None when the file is absent or unreadable."""
    try:
        if name == "pagerank-delta":
            return read_hytgraph_ranks(path, n)
        # numpy's C text parser (33 M lines at scale 25: seconds, not the minutes of a list of words);
        # INF (unreached) as -1, which no level, distance or label is
        pairs = np.fromstring(path.read_bytes().replace(b"INF", b"-1"), sep=" ")
    except (OSError, ValueError):
        return None
    if len(pairs) % 2:
        return None
    ids = pairs[0::2].astype(np.int64)
    vals = pairs[1::2]
    inf = vals < 0
    if name == "bfs":
        out = np.full(n, -1, dtype=np.int64)
        out[ids] = np.where(inf, -1, vals).astype(np.int64)
    elif name == "sssp":
        out = np.full(n, np.inf)
        out[ids] = np.where(inf, np.inf, vals)
    else:  # wcc: the trailing isolated vertices are their own components
        out = np.arange(n, dtype=np.int64) + n  # labels no listed vertex uses
        out[ids] = vals.astype(np.int64)
    return out


def hytgraph_command_file(path: Path, reps: int, first_out: Path, last_out: Path) -> Path:
    """HyTGraph's ``-cmdfile``: one line per run in one process (its graph read once and kept:
    ``GetCachedGraph``), the flags of the command line plus the line's. ``1 + reps`` runs: the
    first writes its answer to ``first_out``, the last to ``last_out`` (both read back and checked),
    the ones between write nothing (a 33 M-line file costs seconds, outside its timer anyway)."""
    lines = [f"-output {first_out}", *[""] * max(reps - 1, 0), f"-output {last_out}"]
    path.write_text("\n".join(lines) + "\n")
    return path


def parse_hytgraph(out: str) -> tuple[list[float], list[int], dict]:
    """Each run's ``HOST: Total time`` (ms, as seconds) and ``Total rounds`` in one process's output,
    in order, and its last run's engine counts (``filter_num`` ...)."""
    times = [float(t) / 1e3 for t in re.findall(r"HOST: Total time:\s*([\d.]+)", out)]
    rounds = [int(r) for r in re.findall(r"Total rounds:\s*(\d+)", out)]
    counts = {k: int(v) for k, v in re.findall(r"(filter|zerocopy|compaction)_num:\s*(\d+)", out)}
    return times, rounds, counts


def _hytgraph_skipped(name: str, left: float) -> dict:
    """The run recorded for an application not started: ``left`` seconds before the call's deadline."""
    skip = {"algorithm": "pagerank" if name == "pagerank-delta" else name, "engine": "peer:hytgraph",
            "skipped": f"not started: {max(left, 0):.0f} s left before the call's deadline",
            "verified": False, "verified_how": "unchecked: not run"}
    if name == "pagerank-delta":
        skip["variant"] = f"delta form (HyTGraph's push PageRank), threshold {HYTGRAPH_PR_TOL:g}"
    return skip


def _hytgraph_pagerank_bound(run: dict, l1s: list[float], secs: float) -> None:
    """What a delta PageRank run of HyTGraph's adds: the L1 bound its threshold implies, the L1
    distances measured, its seconds per round."""
    run["l1_bound"] = 2 * HYTGRAPH_PR_TOL / (1 - PR_DAMPING) ** 2
    run["l1_bound_how"] = ("2 tol / (1 - d)^2 as for EMOGI's threshold (Checker.check_peer), against its "
                           "definition's fixed point (sinks' rank not spread)")
    run["variant"] = f"delta form (HyTGraph's push PageRank), threshold {HYTGRAPH_PR_TOL:g}"
    run["l1_to_fixed_point"] = max(l1s) if l1s else None
    if run["iterations"]:
        run["seconds_per_iteration"] = round(secs / run["iterations"], 6)


def _check_hytgraph_outputs(checker, name: str, n: int, outs: list[Path], all_runs: bool):
    """HyTGraph's ``-output`` files of its first and last run, read back and checked as ours are:
    ``(verified, how, L1 distances to PageRank's fixed point)``. A file it should have written
    (the first run's, the last run's when every run printed a time: ``all_runs``) that cannot be
    read makes the run unchecked."""
    ok, hows, l1s = True, [], []
    for label, f in zip(("first run", "last run"), outs):
        values = read_hytgraph_output(f, name, n) if checker is not None and f.exists() else None
        if values is None:
            if label == "first run" or all_runs:  # a file it should have written
                ok = False
                hows.append(f"{label}: unchecked: its output file could not be read")
            continue
        good, how = checker.check_peer(name, values, tol=HYTGRAPH_PR_TOL)
        ok &= bool(good)
        hows.append(f"{label}: {how}")
        if name == "pagerank-delta" and "L1 " in how:
            l1s.append(float(how.split("L1 ")[1].split()[0]))
    how = "its printed per-vertex answers: " + "; ".join(hows)
    if not ok and "unchecked" not in how:
        how += " (not verified)"
    return bool(ok) and bool(hows), how, l1s


def hytgraph_runs(bindir: Path, el: Path, source, n: int, checker, timeout, log, on_run=None,
                  fmt: str = "market_big", deadline: float = float("inf"), reps: int = 3,
                  input_seconds: float | None = None, check_reserve: float = 20.0) -> list[dict]:
    """HyTGraph's four applications on its default hybrid engine (``-hybrid 2``: its cost model
    picks filter, compaction or zero-copy per segment and round), its own timer (``HOST: Total
    time``: every round, transfers, policy and CPU compaction; loading and set-up excluded).
    Each application is one process running ``1 + reps`` times on the graph it read once
    (``-cmdfile``, :func:`hytgraph_command_file`): ``first_seconds`` its first run, ``seconds`` the
    median of the runs after it; a process that dies in a repeat keeps the runs it printed.
    ``on_run(run)`` after each application: a call's deadline may come before the last one.
    Its ``-output`` files of the first and the last run (levels, distances, labels, ranks) are read
    back and checked as ours are (``Checker.check_peer``; its PageRank against its own definition's
    fixed point, sinks' rank not spread); verified only when every file written checks, a run
    whose file cannot be read is marked unchecked. ``input_seconds``: the time to write its input
    file (one file for the four), recorded apart: not part of any run's time. A process gets the
    time left before ``deadline`` less ``check_reserve`` (its answers' read-back); an application
    with under 10 s of that left is recorded ``skipped``, with why."""
    runs = []
    work = el.parent
    jobs = {"bfs": ("hybrid_bfs", ["-weight_num", "1", "-source_node", str(source)]),
            "sssp": ("hybrid_sssp", ["-weight_num", "0", "-source_node", str(source)]),
            "pagerank-delta": ("hybrid_pr", ["-weight_num", "1", "-error", str(HYTGRAPH_PR_TOL), "-print_ranks", "-norm"]),
            "wcc": ("hybrid_cc", ["-weight_num", "1"])}
    for name, (binary, extra) in jobs.items():
        if not peer_wanted(name):
            continue
        exe = bindir / binary
        if not exe.exists():
            log(f"  peer:hytgraph {name}: skipped ({exe} absent)")
            continue
        # its answers are read back and checked after the process: keep time for that (at scale 25
        # two 33 M-line files, seconds each), so that a process cut by the deadline still lands
        left = deadline - time.perf_counter() - check_reserve
        if left < 10:
            log(f"  peer:hytgraph {name}: skipped (the call's deadline)")
            skip = _hytgraph_skipped(name, left + check_reserve)
            runs.append(skip)
            if on_run is not None:
                on_run(skip)
            continue
        outs = [work / f"hyt-{name}-first.out", work / f"hyt-{name}-last.out"]
        for f in outs:
            f.unlink(missing_ok=True)
        cmds = hytgraph_command_file(work / f"hyt-{name}.cmd", reps, *outs)
        cmd = [str(exe), "-graphfile", str(el), "-format", fmt, "-hybrid", "2", *extra, "-cmdfile", str(cmds)]
        out, wall = run_peer(cmd, min(timeout, left), log)
        cut = wall >= min(timeout, left) - 1
        times, rounds, counts = parse_hytgraph(out)
        if not times:
            log(f"  peer:hytgraph {name}: no time in its output: {out[-400:]}")
            continue
        first, repeats = times[0], times[1:]
        secs = float(np.median(repeats)) if repeats else first
        ok, how, l1s = _check_hytgraph_outputs(checker, name, n, outs, len(times) == 1 + reps)
        run = {"algorithm": "pagerank" if name == "pagerank-delta" else name, "engine": "peer:hytgraph",
               "seconds": round(secs, 5), "first_seconds": round(first, 5), "calls": len(repeats),
               "timing": (f"one process, its graph read once: the first run, then the median of {len(repeats)} "
                          "runs after it (its own timer)" if repeats else
                          "one run (the process ended before its repeats): first_seconds = seconds"),
               "iterations": rounds[-1] if rounds else None,
               "bytes_h2d": 0, "floor_seconds": 0.0, "verified": ok, "verified_how": how,
               "process_wall_seconds": round(wall, 2), "command": " ".join(cmd) + f"  ({cmds.name}: "
               + " | ".join(cmds.read_text().splitlines()) + ")",
               "input_format": fmt, "engine_counts": counts}
        if input_seconds is not None:
            run["input_write_seconds"] = round(input_seconds, 2)
        if len(times) < 1 + reps:
            why = "cut by the call's deadline" if cut else "the process ended early"
            run["note"] = f"{len(times)} of {1 + reps} runs printed a time ({why})"
        if name == "pagerank-delta":
            _hytgraph_pagerank_bound(run, l1s, secs)
        runs.append(run)
        log(f"  peer:hytgraph {name:<15} first {first * 1e3:9.1f} ms, median {secs * 1e3:9.1f} ms of "
            f"{len(repeats)}  rounds {run['iterations']}  {how}")
        if on_run is not None:
            on_run(run)
        for f in (*outs, cmds):
            f.unlink(missing_ok=True)
    return runs


# ====================================================================== oracles
class Checker:
    """Independent checks of graphferry's results (GPU kernels when there is a GPU, scipy otherwise)."""

    def __init__(self, g, source: int):
        self.g, self.source = g, source
        self.gpu = eb.Oracle(g)
        self._pr_ref = None
        self._bfs_ref = None
        self._cc_ref = None

    def pagerank_reference(self) -> np.ndarray:
        """Float64 power iteration, PR_ITERATIONS rounds from 1/n, sinks' rank spread evenly (LDBC)."""
        if self._pr_ref is None:
            g, n = self.g, self.g.n
            if self.gpu.cp is not None:
                cp = self.gpu.cp
                x = cp.full(n, 1.0 / n)
                y = cp.empty_like(x)
                sinks = cp.asarray(np.flatnonzero(g.out_degree == 0))
                for _ in range(PR_ITERATIONS):
                    self.gpu.power_step(x, y, PR_DAMPING, sinks)
                    x, y = y, x
                self._pr_ref = cp.asnumpy(x)
            else:
                from graphferry.algorithms.pagerank import pagerank_reference

                self._pr_ref = pagerank_reference(g, PR_DAMPING, PR_ITERATIONS)
        return self._pr_ref

    def check(self, name: str, vals: dict, bound_factor: float = 1.0) -> tuple[bool, str]:
        g, s = self.g, self.source
        if name == "pagerank":
            ref = self.pagerank_reference()
            err = float(np.abs(vals["rank"] - ref).sum() / np.abs(ref).sum())
            return err < 1e-6, f"rel L1 {err:.1e} to a float64 power iteration ({PR_ITERATIONS} rounds)"
        if name == "pagerank-delta":
            # the fixed point, not 20 rounds (within 0.85^20 of it): the delta form stops at a
            # tolerance, and peers stopping at theirs are compared by the same error
            ref = self.gpu.pagerank_reference()
            err = pagerank_l1(vals["rank"], ref)
            bound = bound_factor * eb.pagerank_error_bound(PR_DELTA_TOL)
            return self.within_bound(err, bound, ref, (
                f"L1 {err:.3e} to the converged power iteration (delta form, tol {PR_DELTA_TOL}: the bound "
                f"4 d / (1 - d) tol = {bound:.2e} it documents"
                + (f", {bound_factor:g}x for the asynchronous mode)" if bound_factor != 1 else ")")))
        if self.gpu.cp is not None:
            return self.gpu.check(name, vals, s)
        import scipy.sparse.csgraph as csgraph

        if name == "bfs":
            if self._bfs_ref is None:
                d = csgraph.shortest_path(g.to_scipy(), unweighted=True, indices=s)
                self._bfs_ref = np.where(np.isinf(d), -1, d).astype(np.int64)
            ok = np.array_equal(vals["levels"], self._bfs_ref)
            return ok, "levels equal scipy's BFS" if ok else "levels differ from scipy's BFS"
        if name == "sssp":
            ref = csgraph.dijkstra(g.to_scipy(), indices=s)
            ok = np.allclose(vals["dist"], ref, rtol=1e-9, equal_nan=False)
            return ok, "distances equal scipy's Dijkstra" if ok else "distances differ from scipy's Dijkstra"
        if name == "wcc":
            if self._cc_ref is None:
                _, lab = csgraph.connected_components(g.to_scipy(), directed=False)
                self._cc_ref = lab
            a, b = self._cc_ref, vals["labels"]
            # the same partition: each of our labels maps to one scipy label and back
            ok = eb.count_distinct(a) == eb.count_distinct(b) == eb.count_distinct(a.astype(np.int64) * g.n + b)
            return ok, "components equal scipy's" if ok else "components differ from scipy's"
        raise ValueError(name)


    def within_bound(self, err: float, bound: float, reference, how: str) -> tuple[bool, str]:
        """A PageRank run stopped at a tolerance is verified when its L1 distance ``err`` to the
        fixed point is within the ``bound`` its tolerance implies, and only where that bound means
        something: it must exclude the uniform vector (a bound that a vector of 1/n meets cannot
        tell an answer from no answer; the issue 35 audit found 0.227 at tol 0.01 doing that)."""
        uniform = pagerank_l1(np.ones(len(reference)), reference)
        if bound >= uniform:
            return False, (f"{how}; unchecked: the bound does not exclude the uniform vector "
                           f"(L1 {uniform:.3e}), so it checks nothing")
        return err <= bound, f"{how}; the uniform vector lies at L1 {uniform:.3e}"

    def pagerank_nosink_reference(self) -> np.ndarray:
        """The fixed point of the PageRank that EMOGI and HyTGraph compute, no sink's rank spread
        (``y = (1 - d) / n + d * A D^-1 y``), up to scale: the converged reference itself. At the
        fixed point of the spreading definition the sinks' share is a constant ``c``, so it solves
        ``x = ((1 - d) / n + c) 1 + d A D^-1 x``: the same linear system with a larger uniform
        term, whose solution is ``y`` scaled. Compared scaled to sum 1, the two are one vector."""
        return self.gpu.pagerank_reference()

    def check_peer(self, name: str, values, tol: float | None = None) -> tuple[bool, str]:
        """A peer's printed per-vertex answer against the same checks as ours: BFS levels (-1
        unreached), SSSP distances (inf unreached), WCC labels (any label per class: mapped to
        the smallest id of each class first), PageRank ranks of the no-sink definition (L1 to its
        fixed point, within ``2 tol / (1 - d)^2``: a per-vertex residual below ``tol`` on ranks
        of scale 1 leaves at most ``n tol / (1 - d)`` of L1 error against a total of at least
        ``n (1 - d)``, counted twice once both are scaled to sum 1)."""
        if name == "bfs":
            return self.check("bfs", {"levels": np.asarray(values, dtype=np.int64)})
        if name == "sssp":
            return self.check("sssp", {"dist": np.asarray(values, dtype=np.float64)})
        if name == "wcc":
            return self.check("wcc", {"labels": smallest_id_labels(values)})
        if name == "pagerank-delta":
            ref = self.pagerank_nosink_reference()
            err = pagerank_l1(values, ref)
            bound = 2 * tol / (1 - PR_DAMPING) ** 2
            return self.within_bound(err, bound, ref, (
                f"L1 {err:.3e} to the fixed point of its definition (sinks' rank not spread), bound "
                f"2 tol / (1 - d)^2 = {bound:.2e} at its per-vertex threshold {tol:g}"))
        raise ValueError(name)


def smallest_id_labels(labels) -> np.ndarray:
    """Component labels renamed to the smallest vertex id of each class (the oracle's form).

    Example:
        >>> smallest_id_labels(np.array([7, 7, 3, 7, 3])).tolist()
        [0, 0, 2, 0, 2]
    """
    labels = np.asarray(labels)
    order = np.argsort(labels, kind="stable")  # each class's vertices in increasing id order
    sorted_labels = labels[order]
    starts = np.r_[True, sorted_labels[1:] != sorted_labels[:-1]] if len(labels) else np.zeros(0, bool)
    out = np.empty(len(labels), dtype=np.int64)
    out[order] = order[starts][np.cumsum(starts) - 1]
    return out


def pagerank_l1(ranks, reference) -> float:
    """L1 distance between two rank vectors, each scaled to sum 1 (a shorter one, from a peer
    that drops trailing vertices with no edge, counts them as 0)."""
    a = np.zeros(len(reference))
    a[: len(ranks)] = np.asarray(ranks, dtype=np.float64)[: len(reference)]
    ref = np.asarray(reference, dtype=np.float64)
    return float(np.abs(a / a.sum() - ref / ref.sum()).sum())


def read_hytgraph_ranks(path: Path, n: int) -> np.ndarray:
    """HyTGraph's ``-output`` of PageRank under ``-print_ranks -norm``: two header lines, then
    ``<vertex> <rank / sum>`` lines sorted by rank."""
    data = path.read_bytes()
    start = data.index(b"\n", data.index(b"\n") + 1) + 1  # after the ALPHA and RANKS lines
    pairs = np.fromstring(data[start:], sep=" ")  # numpy's C text parser: 68 M numbers at scale 25
    ranks = np.zeros(n)
    ranks[pairs[0::2].astype(np.int64)] = pairs[1::2]
    return ranks


# ====================================================================== graphferry runs
def call(name: str, lg, source: int, engine: str):
    from graphferry.algorithms.bfs import bfs as _bfs
    from graphferry.algorithms.pagerank import pagerank as _pagerank, pagerank_ldbc as _pagerank_ldbc
    from graphferry.algorithms.sssp import sssp as _sssp
    from graphferry.algorithms.wcc import wcc as _wcc
    from graphferry.scheduler import Policy

    extra = {}
    if engine in HYBRID_RUNS:  # the hybrid engine with one of its policies
        extra = {"policy": Policy(**HYBRID_RUNS[engine])}
        engine = "hybrid"

    def with_policy(fn):
        return lambda *a, **k: fn(*a, **k, **extra)

    bfs, sssp, wcc = with_policy(_bfs), with_policy(_sssp), with_policy(_wcc)
    pagerank, pagerank_ldbc = with_policy(_pagerank), with_policy(_pagerank_ldbc)

    if name == "bfs":
        return bfs(lg, source, engine=engine)
    if name == "sssp":
        return sssp(lg, source, engine=engine)
    if name == "wcc":
        return wcc(lg, engine=engine)
    if name == "pagerank":
        return pagerank_ldbc(lg, damping=PR_DAMPING, iterations=PR_ITERATIONS, engine=engine)
    if name == "pagerank-delta":
        return pagerank(lg, damping=PR_DAMPING, tol=PR_DELTA_TOL, max_iterations=100, engine=engine,
                        dtype=PR_DELTA_DTYPE, start=PR_DELTA_START)
    raise ValueError(name)


#: run name -> (the Checker's key, the result's column)
CHECKED_COLUMN = {"bfs": ("levels", "levels"), "sssp": ("dist", "distances"), "wcc": ("labels", "labels"),
                  "pagerank": ("rank", "ranks"), "pagerank-delta": ("rank", "ranks")}


def _placements(rec) -> dict:
    """{"engine@device": partitions} over a run record's edge steps."""
    placed: dict = {}
    for s in rec.edge_steps:
        for p in s.partitions:
            key = f"{p.engine}@{p.device}"
            placed[key] = placed.get(key, 0) + 1
    return placed


def _copy_kernel_seconds(rec) -> list[float]:
    """[copy seconds, kernel seconds] over a run record's edge steps."""
    return [round(sum(s.copy_seconds for s in rec.edge_steps), 5),
            round(sum(s.kernel_seconds for s in rec.edge_steps), 5)]


def _timed_calls(name, lg, source, engine, reps):
    """A warm-up call, then ``reps`` timed ones: ``(warm-up seconds, walls, [(record, seconds in the
    iterations, to-host seconds)] a call, the last call's result)``."""
    warmup = _warm_up(name, lg, source, engine)
    walls, results = [], []
    r = None
    for _ in range(reps):
        r = None  # a user's loop drops the last result before the next call: so do we
        wall, result, r = _timed_call(name, lg, source, engine)
        walls.append(wall)
        results.append(result)
    return warmup, walls, results, r


def _warm_up(name, lg, source, engine) -> float:
    """The call before the timed ones (it compiles, builds sides and engines, uploads what stays
    resident): its seconds."""
    t = time.perf_counter()
    call(name, lg, source, engine)
    return time.perf_counter() - t


def _timed_call(name, lg, source, engine):
    """One timed call: ``(wall, (record, seconds in the iterations, to-host seconds), result)``."""
    t = time.perf_counter()
    r = call(name, lg, source, engine)  # on a GPU the results stay there: the call is the peers' time
    t1 = time.perf_counter()
    r.to_host()                         # then the device-to-host transfer of every value, apart
    t2 = time.perf_counter()
    steps = r.record.steps
    # from the first step's start to the last step's end: the iterations (with their
    # frontier bookkeeping); before it set-up and initialisation, after it result conversion
    span = (steps[-1]._t0 + steps[-1].seconds - steps[0]._t0) if steps else 0.0
    return t1 - t, (r.record, span, t2 - t1), r


def _run_details(run: dict, rec, name: str, engine: str, how: str, vals: dict, results: list) -> None:
    """What a run adds by algorithm (PageRank's variant and bound, BFS's depth, WCC's components)
    and, for the hybrid, where it put the work (``rec``: the median call's record)."""
    if name.startswith("pagerank"):
        run["variant"] = ("pagerank_ldbc: every vertex, fixed iterations" if name == "pagerank"
                          else f"delta form, tol {PR_DELTA_TOL}, start {PR_DELTA_START}")
    if name == "pagerank-delta" and how.startswith("L1 "):
        run["l1_to_fixed_point"] = float(how.split()[1])
        run["l1_bound"] = LOOSER_PAGERANK_BOUND.get(engine, 1.0) * eb.pagerank_error_bound(PR_DELTA_TOL)
        run["l1_bound_how"] = (f"4 d / (1 - d) * tol at d {PR_DAMPING}, tol {PR_DELTA_TOL} (graphferry.algorithms."
                               "pagerank's documented bound)" + (" x2 (asynchronous)" if engine in LOOSER_PAGERANK_BOUND else ""))
    if name == "bfs":
        run["depth"] = int(vals["levels"].max())
    if name == "wcc":
        run["components"] = eb.count_distinct(vals["labels"])
    run["all_bytes_h2d"] = [int(x[0].bytes_h2d) for x in results]
    if engine in HYBRID_RUNS:  # where the hybrid put the work, and the bytes that had to cross
        run["placements"] = _placements(rec)
        # every timed call's, and its copy and kernel seconds: a call unlike the others (the
        # first timed SSSP call on Kronecker graphs) shows where its time went
        run["all_placements"] = [_placements(x[0]) for x in results]
        run["all_copy_kernel_seconds"] = [_copy_kernel_seconds(x[0]) for x in results]
        run["floor_bytes"] = int(sum(s.floor_bytes or 0 for s in rec.edge_steps))
        run["copy_seconds"], run["kernel_seconds"] = _copy_kernel_seconds(rec)


def time_ours(name, lg, source, engine, reps, checker, pinned_gbps, log, label=None) -> dict:
    """``reps`` calls of ``name`` after a warm-up call, one after another, summarised as a run."""
    warmup, walls, results, r = _timed_calls(name, lg, source, engine, reps)
    return _summarise(name, lg, engine, reps, checker, pinned_gbps, log, label, warmup, walls, results, r)


def time_ours_interleaved(name, entries, checker, pinned_gbps, log, fast=None, slow=None,
                          spread=None) -> list[dict]:
    """``time_ours`` for several handles at once, their calls interleaved: each ``(lg, source, engine,
    reps, label)`` of ``entries`` gets its warm-up call, then the timed calls go round the entries
    (the round's order turned by one each time) until each has had its ``reps``. ``fast``
    (``(seconds, reps)``): an entry whose warm-up call or first timed call took less than ``seconds``
    gets at least ``reps`` calls (a few milliseconds' run varies by 10% from call to call: WCC's
    atomics; the hybrid's warm-up builds its copies, so WCC's took 250 ms and a 15 ms run got 3
    calls, whose median put 10% of the edges 1.08x behind 5% on the H200); ``slow``
    (``(seconds, reps)``): an entry whose first timed call took longer gets at most ``reps`` (the
    warm-up call compiles and builds, so it cannot say). ``spread`` (``(fraction, reps)``): after
    those turns, entries whose calls' interquartile range exceeds ``fraction`` of their median get
    at least ``reps`` calls, in turns among themselves (WCC's calls at Kronecker 25 on an H200 ran
    12-19 ms for the same work, and nine calls' medians put the hybrid at 100%, which runs the
    resident engine's own maps, 1.08x behind resident). Runs to be compared
    with each other (the hybrid at two budgets, the hybrid against resident) then see the same
    states of the host: on the H200 a BFS call's host time outside the kernels sat at 0.35 or 0.6
    ms a step for seconds at a time, whatever the engine or budget (dev/handle_probe.py), so runs
    timed one after another differed by 1.3x where the work was the same."""
    state = []
    for lg, source, engine, reps, _ in entries:
        warmup = _warm_up(name, lg, source, engine)
        if fast is not None and warmup < fast[0]:
            reps = max(reps, fast[1])
        state.append({"warmup": warmup, "reps": reps, "walls": [], "results": [], "r": None})

    def turns():
        k = len(entries)
        for turn in range(max((s["reps"] for s in state), default=0)):
            for j in [(turn + i) % k for i in range(k)]:
                lg, source, engine, _, _ = entries[j]
                s = state[j]
                if len(s["walls"]) >= s["reps"]:
                    continue
                s["r"] = None  # a user's loop drops the last result before the next call
                wall, result, s["r"] = _timed_call(name, lg, source, engine)
                s["walls"].append(wall)
                s["results"].append(result)
                if fast is not None and len(s["walls"]) == 1 and wall < fast[0]:
                    s["reps"] = max(s["reps"], fast[1])
                if slow is not None and len(s["walls"]) == 1 and wall > slow[0]:
                    s["reps"] = min(s["reps"], max(1, slow[1]))

    turns()
    if spread is not None:
        for s in state:
            walls = np.asarray(s["walls"])
            if len(walls) >= 4 and np.subtract(*np.percentile(walls, [75, 25])) > spread[0] * np.median(walls):
                s["reps"] = max(s["reps"], spread[1])
                s["spread_after"] = len(walls)
        turns()
    runs = [_summarise(name, lg, engine, s["reps"], checker, pinned_gbps, log, label, s["warmup"], s["walls"],
                       s["results"], s["r"])
            for (lg, _, engine, _, label), s in zip(entries, state)]
    for run, s in zip(runs, state):
        if "spread_after" in s:
            run["more_calls_because"] = (f"the interquartile range of its first {s['spread_after']} calls exceeded "
                                         f"{spread[0]:g} of their median: {len(s['walls'])} calls")
    return runs


def _summarise(name, lg, engine, reps, checker, pinned_gbps, log, label, warmup, walls, results, r) -> dict:
    """The run of ``time_ours``: the median call's figures and record, the last call's values checked."""
    k = int(np.argsort(walls)[len(walls) // 2])
    rec, inside, to_host = results[k]  # the median call's record; the last call's values are checked
    wall = walls[k]
    key, column = CHECKED_COLUMN[name]
    vals = {key: r.values[column]}
    t = time.perf_counter()
    ok, how = checker.check(name, vals, bound_factor=LOOSER_PAGERANK_BOUND.get(engine, 1.0))
    check_seconds = time.perf_counter() - t
    outside = wall - inside
    iters = rec.iterations
    bytes_h2d = rec.bytes_h2d
    run = {"algorithm": name, "engine": "cpu" if lg.backend.name == "cpu" else engine,
           "seconds": round(wall, 5),
           # the first call after loading (kernels possibly compiled, sides and engines built): the
           # figure beside a peer that runs once per process; seconds is the median of the calls after it
           "first_seconds": round(warmup, 5), "calls": reps, "iterations": iters,
           "seconds_per_iteration": round(wall / max(1, iters), 6),
           "bytes_h2d": int(bytes_h2d),
           # explicit copies are measured (their sizes); zero-copy and unified partitions' bytes are
           # modelled (the edge bytes their active rows read), not counted on the bus
           "bytes_h2d_how": rec.bytes_h2d_how, "bytes_h2d_modelled": int(rec.bytes_h2d_modelled),
           "floor_seconds": round(bytes_h2d / (pinned_gbps * 1e9), 5) if lg.backend.is_device else 0.0,
           "verified": bool(ok), "verified_how": how,
           "in_iterations_seconds": round(inside, 5), "outside_iterations_seconds": round(outside, 5),
           "outside_fraction": round(outside / wall, 3) if wall > 0 else 0.0,
           "to_host_seconds": round(to_host, 5),
           "outside_fraction_with_to_host": round((outside + to_host) / (wall + to_host), 3)
           if wall + to_host > 0 else 0.0,
           "all_to_host_seconds": [round(x[2], 5) for x in results],
           "setup_seconds": round(rec.setup_seconds, 5),
           "load_seconds": round(lg.load_seconds, 4),
           "end_to_end_seconds_first_call": round(lg.load_seconds + warmup, 4),
           "all_seconds": [round(w, 5) for w in walls],
           # where a call's wall time goes beyond the timed calls: the first call on a fresh
           # machine compiles kernels; the oracle's check runs on the same GPU
           "warmup_seconds": round(warmup, 4), "check_seconds": round(check_seconds, 4),
           "dense_iteration_seconds": _dense_iteration_seconds(rec, lg.n)}
    _run_details(run, rec, name, engine, how, vals, results)
    if RECORDS is not None:  # every engine's: the hybrid's steps read beside the single engines'
        # a labelled run (E:plain-ids, ...) under its label: the engine's own record stays
        stem = (label or run["engine"]).replace(":", "-")  # (no colon in a file name)
        (RECORDS / f"{stem}-{name}.json").write_text(json.dumps(rec.to_dict(), default=float))
    log(f"  {run['engine']:>11} {name:<15} {wall * 1e3:9.1f} ms  {iters:3d} it  "
        f"outside {run['outside_fraction']:.0%}  to host {to_host * 1e3:.1f} ms "
        f"(outside with it {run['outside_fraction_with_to_host']:.0%})  warm-up {warmup:.1f} s, check {check_seconds:.1f} s  "
        f"{'ok' if ok else 'FAILED'} ({how})")
    return run


RECORDS: Path | None = None  # --records: where every run's run record is written (for graphferry plot)


def _dense_iteration_seconds(rec, n):
    """Median time of the edge_map steps with every vertex active (PageRank's, WCC's first)."""
    t = [s.seconds for s in rec.edge_steps if s.active_vertices >= n]
    return round(float(np.median(t)), 6) if t else None


def partitioned_runs(gf, graph, budget, engine, names, source, args, checker, pinned_gbps, runs, log):
    """``engine`` with 32 MB partitions even where the loaded graph would use one whole side."""
    from graphferry.engines import registry

    kept = [registry.engine_class(name) for name in registry.names_where(whole_side=True)]
    for cls in kept:
        cls.whole_side = False               # (the trait the loaded graph reads)
    try:
        lg = gf.load(graph, backend="cuda", budget=budget, pinned=False)
        for name in names:
            if name == "pagerank-delta":
                continue
            run = time_ours(name, lg, source, engine, args.reps, checker, pinned_gbps, log)
            run["engine"] = f"{engine}-partitioned"
            runs.append(run)
    finally:
        for cls in kept:
            cls.whole_side = True
    return lg


# ====================================================================== peers
def run_peer(cmd, timeout, log) -> tuple[str, float]:
    """A peer's process: its output and wall seconds. Its stdout line-buffered (``stdbuf -oL``,
    where there is one) so that a process cut by the timeout leaves what it printed (GAPBS's
    trial time comes before its verifier's verdict)."""
    t = time.perf_counter()
    run = (["stdbuf", "-oL"] if shutil.which("stdbuf") else []) + [str(c) for c in cmd]
    try:
        p = subprocess.run(run, capture_output=True, text=True, timeout=timeout)
        out = p.stdout + p.stderr
        if p.returncode != 0:
            log(f"    {' '.join(map(str, cmd))} exited {p.returncode}: {out[-300:]}")
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        log(f"    {' '.join(map(str, cmd))} timed out after {timeout} s")
    return out, time.perf_counter() - t


def parse_gapbs(out: str, binary: str) -> tuple[list[float], int | None, bool]:
    """From a GAPBS binary's output: its trial seconds, the iterations per trial (``pr`` prints one
    "  i   error" line per iteration with ``-l``; None for the others), and whether every
    ``-v`` verification passed (False when none ran)."""
    trial = [float(x) for x in re.findall(r"Trial Time:\s+([\d.]+)", out)]
    iters = None
    if binary == "pr":
        iters = len(re.findall(r"^\s*\d+\s+[\d.eE+-]+\s*$", out, re.M)) // max(1, len(trial))
    passes = re.findall(r"Verification:\s+(\w+)", out)
    return trial, iters, bool(passes) and all(p == "PASS" for p in passes)


_VERIFIED: dict = {}


def verify_gapbs(cmd: list[str], env: dict | None = None, timeout: float = 600) -> tuple[bool, str, str]:
    """GAPBS's own verifier for a timed command (``-n K`` ...): one ``-n 1 -v`` process on the
    same binary, file and options; ``(verified, how, its command)``. Remembered per command
    without its thread count (the verdict does not depend on the threads: a timing study at
    several counts runs the verifier once)."""
    args = [str(c) for c in cmd]
    k = args.index("-n") if "-n" in args else None
    vcmd = (args[:k] + args[k + 2:] if k is not None else args) + ["-n", "1", "-v"]
    key = " ".join(vcmd)
    if key not in _VERIFIED:
        try:
            p = subprocess.run(vcmd, capture_output=True, text=True, timeout=timeout, env=env)
            ok = parse_gapbs(p.stdout + p.stderr, Path(vcmd[0]).name)[2]
            _VERIFIED[key] = (ok, "GAPBS's own verifier (-v), one call in a process of its own" if ok
                              else "unchecked: no PASS from its verifier (-v)")
        except subprocess.TimeoutExpired:
            _VERIFIED[key] = (False, f"unchecked: its verifier (-v) ran past {timeout:g} s")
    ok, how = _VERIFIED[key]
    return ok, how, key


#: --peer-algorithms: the peers' runs to make (None: every one)
PEER_ALGORITHMS: set[str] | None = None


def peer_wanted(name: str) -> bool:
    """Whether the peers run ``name`` (delta PageRank counts as PageRank)."""
    return PEER_ALGORITHMS is None or name.removesuffix("-delta") in PEER_ALGORITHMS


def gapbs_runs(bindir: Path, files, source, trials, ours, timeout, log, verify_once: bool = False,
               on_run=None, deadline: float = float("inf")) -> list[dict]:
    """GAPBS's four kernels, ``trials`` trials each in one process, always with its verifier
    (``-v``, run after every trial, outside its trial timer): ``first_seconds`` is the first
    trial (the first call after its load), ``seconds`` the median of every trial.

    ``verify_once``: its verifier is serial, and after every one of three trials it costs more
    than a device call has at Kronecker 25 (SSSP's Dijkstra took 4.9 s a trial at scale 20 on
    2 cores; 32x the edges at 25). So one process runs one trial with ``-v`` (that trial is
    ``first_seconds``, the call checked), and a second process the ``trials`` timed trials
    (``seconds``, their median) on the same file and source, without it; both commands are kept.
    ``on_run(run)`` after each kernel; a kernel is not started after ``deadline``
    (``time.perf_counter()``), and none runs past it."""
    runs = []
    # SSSP last: its serial verifier (Dijkstra) is the slowest, and a deadline cuts the last job
    jobs = {"bfs": ("bfs", files[".sg"], ["-r", str(source)]),
            "wcc": ("cc", files[".sg"], []),
            "pagerank": ("pr", files[".sg"], ["-i", str(PR_ITERATIONS), "-t", "1e-4", "-l"]),
            "sssp": ("sssp", files.get(".wsg"), ["-r", str(source), "-d", str(SSSP_DELTA)])}
    for name, (binary, graph, extra) in jobs.items():
        if not peer_wanted(name):
            continue
        exe = bindir / binary
        if not exe.exists() or graph is None:
            log(f"  peer:gapbs {name}: skipped ({exe} absent)")
            continue
        left = deadline - time.perf_counter()
        if left < 5:
            log(f"  peer:gapbs {name}: skipped (the call's deadline)")
            continue
        cmd = [str(exe), "-f", str(graph), "-n", str(1 if verify_once else trials), *extra, "-v"]
        out, wall = run_peer(cmd, min(timeout, left), log)
        trial, iters, ok = parse_gapbs(out, binary)
        if not trial:
            continue
        first = trial[0]
        passes = re.findall(r"Verification:\s+(\w+)", out)
        verify_s = [float(x) for x in re.findall(r"Verification Time:\s+([\d.]+)", out)]
        checked_trials = len(trial)
        if verify_once and trials > 1:
            timed = [str(exe), "-f", str(graph), "-n", str(trials), *extra]
            out2, wall2 = run_peer(timed, max(1.0, min(timeout, deadline - time.perf_counter())), log)
            more, iters2, _ = parse_gapbs(out2, binary)
            if more:
                trial, iters, wall = more, iters2 or iters, wall + wall2
                cmd = cmd + [";"] + timed
        secs = float(np.median(trial))
        run = {"algorithm": name, "engine": "peer:gapbs", "seconds": round(secs, 5),
               "first_seconds": round(first, 5), "calls": len(trial),
               "iterations": iters, "bytes_h2d": 0, "floor_seconds": 0.0,
               "verified": ok, "verified_how": (f"GAPBS's own verifier (-v): {passes.count('PASS')} of "
                                                f"{checked_trials} trials PASS" if passes else
                                                "unchecked: its verifier (-v) printed no verdict (cut by the "
                                                "timeout or the call's deadline)")
               + (" (the first call, in a process of its own; the median from a second process of "
                  f"{len(trial)} trials on the same file and source, without its serial verifier)"
                  if checked_trials != len(trial) else ""),
               "verify_seconds": verify_s,
               "all_seconds": trial, "process_wall_seconds": round(wall, 2), "command": " ".join(cmd)}
        if iters:
            run["seconds_per_iteration"] = round(secs / iters, 6)
        runs.append(run)
        if on_run is not None:
            on_run(run)
        log(f"  peer:gapbs  {name:<15} {secs * 1e3:9.1f} ms (first {first * 1e3:.1f})  iters {iters}  "
            f"verified {ok} (verifier {sum(verify_s):.1f} s)")
    return runs


def emogi_times(out: str) -> list[float]:
    """EMOGI's timings in ms from its output: each trial's ``time N ms``, else its ``total time: N ms``.

    Example:
        >>> emogi_times("run 0 time 12.5 ms\\nrun 1 time 11.0 ms"), emogi_times("total time: 7 ms")
        ([12.5, 11.0], [7.0])
    """
    times = [float(x) for x in re.findall(r"time\s+([\d.]+)\s*ms", out)]
    if not times:
        m = re.search(r"total time:\s*([\d.]+)\s*ms", out)
        times = [float(m.group(1))] if m else []
    return times


#: EMOGI's PageRank threshold (``-l``): a vertex's pending residual, on ranks of scale 1
EMOGI_PR_TOL = 1e-3


def read_emogi_output(path: Path, name: str, n: int):
    """The raw per-vertex array an EMOGI binary writes to ``$EMOGI_OUTPUT`` (a build-folder patch
    of its output only: bench/NOTES-peers.md): BFS levels (uint32, all ones unreached) -> int64
    with -1; SSSP costs (uint32, all ones unreached) -> float64 with inf; CC labels (uint64);
    PageRank values (float32). None when the file is absent or of the wrong size."""
    dtype = {"bfs": np.uint32, "sssp": np.uint32, "wcc": np.uint64, "pagerank-delta": np.float32}[name]
    try:
        raw = np.fromfile(path, dtype=dtype)
    except (OSError, ValueError):
        return None
    if len(raw) != n:
        return None
    if name == "bfs":
        return np.where(raw == np.uint32(0xFFFFFFFF), -1, raw.astype(np.int64))
    if name == "sssp":
        return np.where(raw == np.uint32(0xFFFFFFFF), np.inf, raw.astype(np.float64))
    return raw


def _run_emogi(cmd: list[str], out_file: Path, limit: float, timeout: float, log) -> tuple[str, float]:
    """One EMOGI process (its answer to ``out_file``, ``$EMOGI_OUTPUT``), cut after ``limit`` seconds:
    its output ("" when cut) and wall seconds."""
    t = time.perf_counter()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=limit,
                           env={**os.environ, "EMOGI_OUTPUT": str(out_file)})
        out = p.stdout + p.stderr
        if p.returncode != 0:
            log(f"    {' '.join(cmd)} exited {p.returncode}: {out[-300:]}")
    except subprocess.TimeoutExpired:
        out = ""
        log(f"    {' '.join(cmd)} timed out after {timeout} s")
    return out, time.perf_counter() - t


def emogi_runs(bindir: Path, bel: Path, source, weighted, checker, timeout, log, on_run=None,
               deadline: float = float("inf")) -> list[dict]:
    """EMOGI's four applications, edges in GPU memory (``-m 0``) and in host memory read by the
    GPU (``-m 2``), ``-t 2`` (merged and aligned), its own timer. One call per process (its
    ``-i`` moves the BFS and SSSP source on each run): ``first_seconds`` = ``seconds`` = that
    call. Its answer is read back from ``$EMOGI_OUTPUT`` where its build writes it and checked
    as ours is (``Checker.check_peer``); else the run is marked unchecked.

    PageRank has no GPU-memory run: EMOGI's 32-bit PageRank writes its device edge list from
    the host under ``-m 0`` (a crash), so it runs ``-m 1`` (managed memory, read-mostly: the
    edges migrate to the GPU on first touch) as ``peer:emogi-managed``."""
    runs = []
    jobs = {"bfs": ("emogi_bfs_32", ["-r", str(source), "-t", "2"]),
            "sssp": ("emogi_sssp_32", ["-r", str(source), "-t", "2"]),
            "pagerank-delta": ("emogi_pagerank_32", ["-t", "2", "-a", str(PR_DAMPING), "-l", str(EMOGI_PR_TOL)]),
            "wcc": ("emogi_cc_32", ["-t", "2"])}
    out_file = bel.parent / "emogi-output.bin"
    for mode, label in ((0, "peer:emogi-gpu"), (2, "peer:emogi-zerocopy")):
        for name, (binary, extra) in jobs.items():
            if not peer_wanted(name):
                continue
            exe = bindir / binary
            if not exe.exists() or (name == "sssp" and not weighted):
                log(f"  {label} {name}: skipped ({exe} absent)")
                continue
            m, engine = mode, label
            if mode == 0 and name == "pagerank-delta":
                m, engine = 1, "peer:emogi-managed"
            left = deadline - time.perf_counter()
            if left < 5:
                log(f"  {engine} {name}: skipped (the call's deadline)")
                continue
            cmd = [str(exe), "-f", str(bel), "-m", str(m), *extra]
            out_file.unlink(missing_ok=True)
            out, wall = _run_emogi(cmd, out_file, min(timeout, left), timeout, log)
            times = emogi_times(out)
            if not times:
                continue
            it = re.findall(r"iteration\s+(\d+)", out) or re.findall(r"total iterations:\s*(\d+)", out)
            iters = int(it[-1]) if it else None
            secs = times[0] / 1e3
            values = read_emogi_output(out_file, name, checker.g.n)
            out_file.unlink(missing_ok=True)
            l1 = None
            if values is None:
                ok, how = False, "unchecked: no per-vertex output read back (EMOGI's build without the output patch)"
            else:
                ok, how = checker.check_peer(name, values, tol=EMOGI_PR_TOL)
                how = "its printed per-vertex answer: " + how
                if name == "pagerank-delta":
                    l1 = float(how.split("L1 ")[1].split()[0])
            run = {"algorithm": "pagerank" if name == "pagerank-delta" else name, "engine": engine,
                   "seconds": round(secs, 5), "first_seconds": round(secs, 5), "calls": 1,
                   "timing": "one call per process (its own timer); first_seconds = seconds",
                   "iterations": iters, "bytes_h2d": 0, "floor_seconds": 0.0,
                   "verified": bool(ok), "verified_how": how, "process_wall_seconds": round(wall, 2),
                   "command": " ".join(cmd) + f"  (EMOGI_OUTPUT={out_file.name})"}
            if name == "pagerank-delta":
                run["variant"] = f"delta form (EMOGI's), per-vertex threshold {EMOGI_PR_TOL:g}" + (
                    "; -m 1 (managed, read-mostly: edges migrate to GPU memory on first touch)" if m == 1 else "")
                if l1 is not None:
                    run["l1_to_fixed_point"] = l1
                    run["l1_bound"] = 2 * EMOGI_PR_TOL / (1 - PR_DAMPING) ** 2
                    run["l1_bound_how"] = ("2 tol / (1 - d)^2, tol its per-vertex threshold (Checker.check_peer), "
                                           "against its own definition's fixed point (sinks' rank not spread)")
            if iters:
                run["seconds_per_iteration"] = round(secs / iters, 6)
            runs.append(run)
            if on_run is not None:
                on_run(run)
            log(f"  {engine:>11} {name:<15} {secs * 1e3:9.1f} ms  iters {iters}  {'ok' if ok else 'NOT VERIFIED'} ({how})")
    return runs


# ====================================================================== main
#: the results file's note on what its seconds are
RESULTS_NOTE = ("graphferry: seconds = wall time of one algorithm call on a loaded graph (graphferry.load), "
                "median of reps after a warm-up; load_seconds apart (peers' timers exclude loading too); "
                "in_iterations_seconds = first iteration's start to last iteration's end, "
                "outside_iterations_seconds = the rest of the call (set-up, initialisation, result "
                "conversion); on a GPU the call leaves its results in device memory (as EMOGI and cuGraph "
                "do): to_host_seconds = the device-to-host transfer of every value right after the call "
                "(Result.to_host), not in seconds; outside_fraction_with_to_host = (outside + to_host) / "
                "(seconds + to_host). resident: whole graph on the GPU; filter/compaction/zerocopy/hybrid*: budget 25% of "
                "the weighted edge bytes. Peers: their own timers.")


class ScaleBench:
    """One scale's benchmark: the graph, its checker and source, the machine, and the results
    document its runs go into (``save(doc)`` after each section: a run cut short keeps what it measured)."""

    def __init__(self, scale, args, log, save):
        from graphferry.backends import cuda_available

        self.args, self.log, self._save = args, log, save
        self.gpu = cuda_available() and not args.cpu_only
        self.name = f"{args.graph}{scale}"
        g, info = self._graph(scale)
        self.g = g
        self.source = int(np.argmax(g.out_degree))
        self.checker = Checker(g, self.source)
        self.machine = self._probe()
        self.pinned_gbps = self.machine.get("pinned_h2d_gbps", 50.0)
        self.runs: list[dict] = []
        self.ours: dict = {}
        self.loads: dict = {}
        self.doc = {
            **provenance.stamp({}, args.command_argv),
            "date": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "machine": self.machine,
            "graph": {"name": self.name, "n": g.n, "m": g.m, "directed": False,
                      "edge_bytes": int(g.m * g.indices.itemsize), "weighted_edge_bytes": int(g.m * 8),
                      "source": self.source, **info},
            "budget_bytes": int(0.25 * g.m * 8),
            "pagerank_delta_state": PR_DELTA_DTYPE, "pagerank_delta_start": PR_DELTA_START,
            "pagerank_delta_tol": PR_DELTA_TOL,
            "load_seconds": self.loads,
            "notes": RESULTS_NOTE,
            "runs": self.runs,
        }
        self.names = [a for a in args.algorithms] + (["pagerank-delta"] if "pagerank" in args.algorithms else [])
        self.source_of_load = self._store() if args.store_dir else g

    def _graph(self, scale):
        t0 = time.perf_counter()
        args = self.args
        g, info = eb.GRAPH_KINDS[args.graph](scale, seed=args.seed, cpu_generator=not self.gpu, weighted=True)
        self.log(f"{self.name}: n {g.n:,}  m {g.m:,}  built in {time.perf_counter() - t0:.1f} s ({info['generator']})")
        if args.hub_sort:  # HyTGraph's hub sorting, as `graphferry convert --hub-sort` keeps it in a store
            from graphferry.transforms import hub_sorted

            t = time.perf_counter()
            g = hub_sorted(g)
            g.original_ids = None  # every run and peer reads the sorted ids; the checks need no others
            info = {**info, "vertex_order": "hub sorted (HyTGraph, top 8% first)"}
            self.log(f" hub sorted in {time.perf_counter() - t:.1f} s")
        return g, info

    def _probe(self) -> dict:
        import graphferry as gf

        backend_gpu = gf.backends.get_backend("cuda") if self.gpu else None
        t = time.perf_counter()
        machine = eb.probe(backend_gpu) if self.gpu else {"device": "none (CPU only)", "host_cores": os.cpu_count()}
        self.log(f" machine probed in {time.perf_counter() - t:.1f} s")
        return machine

    def _store(self) -> Path:
        """The graph as a store on disk (page cache warm: just written): the loads read it, as a user's would."""
        from graphferry.store import write_store

        store = Path(self.args.store_dir) / f"{self.name}.gf"
        t = time.perf_counter()
        write_store(self.g, store, overwrite=True)
        store_bytes = sum(f.stat().st_size for f in store.iterdir())
        self.log(f" store written in {time.perf_counter() - t:.1f} s ({store_bytes / 1e9:.2f} GB): loads below read it")
        self.doc["store_bytes"] = store_bytes
        return store

    def save(self) -> None:
        self._save(self.doc)

    def load(self, key: str, **options):
        """graphferry.load of the graph (or its store), its seconds recorded under ``key``."""
        import graphferry as gf

        t = time.perf_counter()
        lg = gf.load(self.source_of_load, **options)
        self.loads[key] = time.perf_counter() - t
        if self.args.store_dir:
            self.loads[f"{key}_gbps_from_store"] = round(self.doc["store_bytes"] / self.loads[key] / 1e9, 2)
        return lg

    def ours_on(self, lg, engine, only=None, label=None):
        """Every algorithm (or ``only`` these) on a loaded graph with one engine; a failing run is recorded, not raised."""
        args = self.args
        for name in self.names:
            if only is not None and name not in only:
                continue
            if name == "pagerank-delta" and engine not in args.delta_engines:
                continue
            if time.perf_counter() > args.deadline:
                self.log("  deadline reached: skipping the rest of graphferry's runs")
                return
            try:
                run = time_ours(name, lg, self.source, engine, args.reps, self.checker, self.pinned_gbps, self.log,
                                label=label)
            except Exception as e:  # noqa: BLE001 - one failing run must not lose the others
                import traceback

                where = traceback.format_exc(limit=-8)
                self.log(f"  {engine} {name}: FAILED {type(e).__name__}: {e}\n{where}")
                self.runs.append({"algorithm": name, "engine": engine, "error": f"{type(e).__name__}: {e}",
                                  "traceback": where, "verified": False})
                continue
            if label is not None:
                run["engine"] = label
            self.runs.append(run)
            for key in ("depth", "components"):  # the graph's facts, from any checked run
                if key in run and run.get("verified") and (name, key) not in self.ours:
                    self.ours[(name, key)] = run[key]


def cpu_runs(s: ScaleBench) -> None:
    """graphferry's CPU backend (its host engine) on every algorithm."""
    lg = s.load("cpu", backend="cpu")
    s.log(f" graphferry cpu backend (loaded in {s.loads['cpu']:.2f} s: {lg.placement})")
    s.ours_on(lg, "host")
    lg.close()
    s.save()


def gpu_variant_runs(s: ScaleBench, graph, quarter_budget: int) -> None:
    """The runs again with one choice changed under the same budget, each asked for by its flag:
    plain int32 ids, another share at which delta PageRank pulls, float32 weights."""
    import graphferry as gf

    args = s.args
    if args.plain_ids_too:
        # the same budget with the ids kept int32 (4 bytes an id, not ceil(log2 n) bits):
        # what packing them is worth, in this call
        part = gf.load(graph, backend="cuda", budget=quarter_budget, pinned=False, pack_ids=False)
        for engine in args.plain_ids_too:
            s.ours_on(part, engine, label=f"{engine}:plain-ids")
        part.close()
    if args.sum_pull_share_too and "pagerank-delta" in s.names:
        # delta PageRank again with another frontier share at which a summing program pulls
        # (the backend's full_pull_fraction_sum; the CUDA default is its full_pull_fraction)
        part = gf.load(graph, backend="cuda", budget=quarter_budget, pinned=False)
        kept_share = part.backend.full_pull_fraction_sum
        try:
            for share in args.sum_pull_share_too:
                part.backend.full_pull_fraction_sum = share
                for engine in [e for e in HYBRID_RUNS if e in args.delta_engines]:
                    s.ours_on(part, engine, only=["pagerank-delta"], label=f"{engine}:sum-pull-{share:g}")
        finally:
            part.backend.full_pull_fraction_sum = kept_share
            part.close()
    if args.float32_weights_too and "sssp" in s.names:
        # the same budget with the weights kept float32 (8 bytes a weighted edge, not 5):
        # what narrowing them is worth, in this call
        part = gf.load(graph, backend="cuda", budget=quarter_budget, pinned=False, narrow_weights=False)
        for engine in [e for e in [*GPU_ENGINES, *HYBRID_RUNS] if e != "resident" and e in args.engines]:
            s.ours_on(part, engine, only=["sssp"], label=f"{engine}:float32-weights")
        part.close()


def gpu_runs(s: ScaleBench) -> None:
    """On the GPU: resident (the whole graph on the device), then every engine under a budget of 25%
    of the weighted edge bytes, then the variants asked for."""
    import graphferry as gf

    args = s.args
    full = s.load("cuda", backend="cuda")
    s.log(f" graphferry cuda (loaded in {s.loads['cuda']:.2f} s: {full.placement})")
    if "resident" in args.engines:
        s.ours_on(full, "resident")
    if "resident-partitioned" in args.engines:  # the same engine, one launch per 32 MB partition
        full.close()
        full = partitioned_runs(gf, full.graph, None, "resident", s.names, s.source, args, s.checker,
                                s.pinned_gbps, s.runs, s.log)
    full.close()
    quarter_budget = max(1 << 20, int(0.25 * s.g.m * 8))  # 25% of the weighted edge bytes
    part = gf.load(full.graph, backend="cuda", budget=quarter_budget, pinned=False)
    # in the order given: a call cut by its deadline keeps the runs named first
    for engine in [e for e in args.engines if e != "resident" and e in (*GPU_ENGINES, *HYBRID_RUNS)]:
        s.ours_on(part, engine)
    if part._pool is not None:
        s.doc.setdefault("hybrid_pool", part._pool.stats)
    s.doc["graph"]["side_weights"] = part.placement.get("out weights", "float32")
    s.doc["graph"]["side_ids"] = part.placement.get("out ids", "plain int32")
    part.close()
    gpu_variant_runs(s, full.graph, quarter_budget)
    if "zerocopy-partitioned" in args.engines:
        partitioned_runs(gf, full.graph, quarter_budget, "zerocopy", s.names, s.source, args, s.checker,
                         s.pinned_gbps, s.runs, s.log).close()
    del full, part
    import cupy as cp

    cp.get_default_memory_pool().free_all_blocks()
    s.save()


def peer_runs(s: ScaleBench) -> None:
    """EMOGI, GAPBS and HyTGraph on the same graph, each given its input files in turn (scale 25
    needs 13 GB for GAPBS's, 13 GB for EMOGI's), within the peers' deadline."""
    args, g, log = s.args, s.g, s.log

    def keep(run):  # saved as each peer's application ends: a call cut short keeps what it measured
        s.runs.append(run)
        s.save()

    work = Path(args.work) / s.name

    def in_time():
        return time.perf_counter() < args.peers_deadline - 10

    need_gapbs = args.gapbs_bin and Path(args.gapbs_bin).is_dir()
    need_emogi = s.gpu and args.emogi_bin and Path(args.emogi_bin).is_dir()
    if need_gapbs or need_emogi:
        work.mkdir(parents=True, exist_ok=True)
    if need_emogi and in_time():
        t = time.perf_counter()
        bel = write_emogi(g, work / "graph")
        log(f" EMOGI inputs written in {time.perf_counter() - t:.1f} s under {work}")
        emogi_runs(Path(args.emogi_bin), bel, s.source, g.weights is not None, s.checker, args.peer_timeout, log,
                   on_run=keep, deadline=args.peers_deadline)
        for f in work.glob("graph.bel*"):
            f.unlink()  # room for the next peer's files
        s.save()
    if need_gapbs and in_time():  # one peer's files at a time: scale 25 needs 13 GB for GAPBS, 13 GB for EMOGI
        t = time.perf_counter()
        files = write_gapbs(g, work / "graph")
        log(f" GAPBS inputs written in {time.perf_counter() - t:.1f} s under {work}")
        gapbs_runs(Path(args.gapbs_bin), files, s.source, args.peer_trials, s.ours, args.peer_timeout, log,
                   verify_once=args.gapbs_verify_once, on_run=keep, deadline=args.peers_deadline)
        for f in files.values():
            f.unlink()
        s.save()
    if args.hytgraph_bin and Path(args.hytgraph_bin).is_dir() and s.gpu and in_time():
        hytgraph_peer(s, work, keep)
    shutil.rmtree(work, ignore_errors=True)
    if not args.subway_bin:
        log("  peer:subway: skipped (no binary directory given)")
    if importlib.util.find_spec("cugraph") is None:
        log("  peer:cugraph: skipped (not installed)")


def hytgraph_peer(s: ScaleBench, work: Path, keep) -> None:
    """HyTGraph's input written (its text, or Galois's .gr), then its four applications."""
    args, g = s.args, s.g
    work.mkdir(parents=True, exist_ok=True)
    for f in work.glob("graph.bel*"):
        f.unlink()  # EMOGI's files: room on the disk for the text
    t = time.perf_counter()
    writer = write_galois_gr if args.hytgraph_format == "gr" else write_hytgraph
    el = writer(g, work / "graph")
    s.log(f" HyTGraph input ({args.hytgraph_format}) written in {time.perf_counter() - t:.1f} s "
          f"({el.stat().st_size / 1e9:.1f} GB)")
    hytgraph_runs(Path(args.hytgraph_bin), el, s.source, g.n, s.checker, args.peer_timeout, s.log, on_run=keep,
                  fmt=args.hytgraph_format, deadline=args.peers_deadline, reps=args.peer_trials,
                  input_seconds=time.perf_counter() - t)


def bench_scale(scale, args, log, save=lambda doc: None) -> dict:
    """Every run at one scale: graphferry on the CPU, then on the GPU, then the peers."""
    s = ScaleBench(scale, args, log, save)
    if "cpu" in args.engines:
        cpu_runs(s)
    if s.gpu:
        gpu_runs(s)
    peer_runs(s)
    s.save()
    return s.doc


def parse_args(argv=None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scales", type=int, nargs="+", default=[22])
    ap.add_argument("--graph", choices=sorted(eb.GRAPH_KINDS), default="kron",
                    help="kron: Kronecker (Graph500); urand: uniform random of the same size (GAPBS -u)")
    ap.add_argument("--algorithms", nargs="+", default=ALGORITHMS, choices=ALGORITHMS)
    ap.add_argument("--engines", nargs="+", default=["cpu", *GPU_ENGINES])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--delta-engines", nargs="*", default=["host", *GPU_ENGINES],
                    help="engines that also run PageRank's delta form (host = the CPU backend)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default="bench/results")
    ap.add_argument("--tag", default="")
    ap.add_argument("--work", default="/tmp/graphferry-peers", help="where peer input files are written")
    ap.add_argument("--gapbs-bin", default=None, help="directory with GAPBS's bfs, sssp, pr, cc")
    ap.add_argument("--emogi-bin", default=None, help="directory with emogi_{bfs,sssp,pagerank,cc}_32")
    ap.add_argument("--hytgraph-bin", default=None, help="directory with HyTGraph's hybrid_{bfs,sssp,pr,cc}")
    ap.add_argument("--hytgraph-format", choices=["market_big", "gr"], default="market_big",
                    help="its input: market_big text (upstream's reader) or Galois's binary .gr (its "
                         "reader is a stub upstream; Kronecker 25's text is 23 GB)")
    ap.add_argument("--subway-bin", default=None)
    ap.add_argument("--peer-trials", type=int, default=3)
    ap.add_argument("--peer-verify", action="store_true",
                    help="accepted for old command lines: GAPBS always runs with its verifier (-v) since issue 35")
    ap.add_argument("--peer-timeout", type=float, default=120)
    ap.add_argument("--gapbs-verify-once", action="store_true",
                    help="GAPBS: its verifier (-v) on a first call in a process of its own, the timed trials in a "
                         "second process (its serial verifier after every trial costs minutes at scale 25)")
    ap.add_argument("--peers-deadline-s", type=float, default=1e9,
                    help="start no peer process after this many seconds from the start, and end none later")
    ap.add_argument("--cpu-only", action="store_true", help="graphferry's CPU backend only, even with a GPU")
    ap.add_argument("--records", default=None, help="write every run's run record (JSON) here")
    ap.add_argument("--deadline-s", type=float, default=1e9, help="stop starting graphferry runs after this")
    ap.add_argument("--peer-algorithms", nargs="+", default=None, choices=ALGORITHMS,
                    help="the peers run only these (default: every algorithm)")
    ap.add_argument("--delta-dtype", choices=["float64", "float32"], default="float64",
                    help="vertex state of PageRank's delta form (float32: EMOGI's precision)")
    ap.add_argument("--delta-start", choices=["degrees", "uniform"], default=PR_DELTA_START,
                    help="where PageRank's delta form starts: degrees (the library's warm start) or uniform "
                         "(the classic form, as EMOGI and HyTGraph start)")
    ap.add_argument("--delta-tol", type=float, default=PR_DELTA_TOL,
                    help="tolerance of PageRank's delta form (its runs record their L1 distance to the "
                         "converged ranks, as HyTGraph's do: compare times at equal distance)")
    ap.add_argument("--plain-ids-too", nargs="*", default=[], metavar="ENGINE",
                    help="run these engines again under the same budget with int32 ids, not packed ones "
                         "(engine 'E:plain-ids')")
    ap.add_argument("--float32-weights-too", action="store_true",
                    help="run SSSP again under the same budget with float32 weights (engine 'E:float32-weights')")
    ap.add_argument("--sum-pull-share-too", nargs="*", type=float, default=[], metavar="SHARE",
                    help="run delta PageRank on the hybrid runs again, pulling once a frontier's edges pass "
                         "this share of m (engine 'E:sum-pull-SHARE'; the CUDA backend's default is 2/3)")
    ap.add_argument("--hub-sort", action="store_true",
                    help="renumber the graph by HyTGraph's hub sorting (graphferry.transforms.hub_sorted) first")
    ap.add_argument("--store-dir", default=None,
                    help="write the graph as a graphferry store here and load graphferry's runs from it "
                         "(load_seconds and GB/s from the page cache in the results)")
    args = ap.parse_args(argv)
    # the producing command: this file and its arguments (sys.argv is another program's when called)
    args.command_argv = None if argv is None else ["bench/peers_bench.py", *argv]
    args.deadline = time.perf_counter() + args.deadline_s
    args.peers_deadline = time.perf_counter() + args.peers_deadline_s
    return args


def main(argv=None) -> int:
    global RECORDS, PEER_ALGORITHMS, PR_DELTA_DTYPE, PR_DELTA_TOL, PR_DELTA_START
    args = parse_args(argv)
    PR_DELTA_DTYPE = args.delta_dtype
    PR_DELTA_TOL = args.delta_tol
    PR_DELTA_START = args.delta_start
    RECORDS = None if args.records is None else Path(args.records)
    PEER_ALGORITHMS = None if args.peer_algorithms is None else set(args.peer_algorithms)
    if RECORDS is not None:
        RECORDS.mkdir(parents=True, exist_ok=True)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    started = time.perf_counter()

    def log(msg):  # each line stamped with the seconds since the start: where a device call's time went
        print(f"[{time.perf_counter() - started:6.1f} s] {msg}", flush=True)

    for scale in args.scales:
        path = out / f"peers-{args.graph}{scale}{('-' + args.tag) if args.tag else ''}.json"

        def save(doc, path=path):  # after each section, so a run cut short keeps what it measured
            path.write_text(json.dumps(doc, indent=1, default=float))

        doc = bench_scale(scale, args, log, save)
        log(f"wrote {path}")
        print(report(doc), flush=True)
    return 0


def report(doc) -> str:
    """A table: algorithm x system, ms (per iteration for PageRank), verified."""
    rows = {}
    for r in doc["runs"]:
        if "seconds" not in r:
            continue
        key = r["algorithm"]
        ms = r["seconds"] * 1e3
        cell = f"{ms:.1f}" if not key.startswith("pagerank") else f"{r.get('seconds_per_iteration', 0) * 1e3:.1f}/it"
        rows.setdefault(key, {})[r["engine"]] = cell + ("" if r.get("verified") else "?")
    systems = sorted({e for v in rows.values() for e in v})
    lines = ["| | " + " | ".join(systems) + " |", "|---" * (len(systems) + 1) + "|"]
    for k, v in rows.items():
        lines.append(f"| {k} | " + " | ".join(v.get(s, "") for s in systems) + " |")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
