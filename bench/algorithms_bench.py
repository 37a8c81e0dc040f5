"""The issue-11 algorithms on the CPU backend and the GPU engines, against GAPBS and networkit, every answer checked.

One generated Kronecker graph (undirected, Graph500 parameters, self-loops and
repeated edges dropped). Each **plan** (a backend, an engine, a device budget)
loads it once (``graphferry.load``) and keeps the handle for every algorithm:
``cpu`` (the CPU backend), and with ``--backends cuda`` one plan per
``--gpu-engines`` name on the GPU (``resident``: the default budget;
``hybrid``, ``filter``, ...: a budget of ``--budget-fraction`` of the graph's
edge bytes, so the edges do not fit). Each system gets one untimed warm-up call,
then ``--repeat`` timed calls, median kept; ``seconds`` is the call's wall time
(an algorithm that first derives a graph, the simple view or the degree-ordered
DAG, loads that derived graph inside the call: its placement counts).

Threads pinned: graphferry through ``OMP_NUM_THREADS`` (set before any kernel
library loads), networkit through ``setNumberOfThreads``, GAPBS through
``OMP_NUM_THREADS`` in its environment; ``OMP_WAIT_POLICY`` the same for
graphferry and GAPBS (``--wait-policy``, passive by default: on a shared
machine spinning OpenMP threads slow both down by an order of magnitude).
``--threads`` is every host core of the machine that runs it.

* betweenness, ``--bc-sources`` K sampled sources (networkx's sample for the
  seed): every plan against GAPBS ``bc -i K`` (K random sources per trial; GAPBS's
  own time per trial) and networkit's ``EstimateBetweenness`` (K samples, its
  own sources: timed, values not comparable). Checked: every plan's values on
  ``--bc-check-sources`` sources equal a numpy/scipy Brandes written here (not the
  library's), and every GPU plan's K-source values equal the CPU plan's. The
  exact betweenness of every plan equals networkit's halved (networkit counts
  ordered pairs) on the ``--exact-scale`` graph.
* triangles: ``triangle_count`` against GAPBS ``tc`` (``-a``: it prints its total;
  its ``-v`` is a serial count, minutes at scale 22). Reference total: scipy
  (``(U @ U) .* U``) up to ``--scipy-max-arcs``, else GAPBS's total: a run is
  verified when it equals the reference.
* wcc: against GAPBS ``cc`` (``-a``: its component count); scipy's partition is the reference.
* coloring: both methods on every plan, all checked proper; colour counts beside
  networkx's ``greedy_color`` (largest_first, up to ``--networkx-max-arcs``);
  networkit's ``SpectralColoring`` (seconds at scale 8, far longer beyond) on the
  small graph, beside ours there.
* communities: against networkit's ``PLP``; modularity of both labellings by a
  numpy formula here (and networkx's up to ``--networkx-max-arcs``); ours must equal it.

GAPBS runs without ``-v`` (its verifiers are serial: bc's costs K serial
searches per trial); ``--peer-verify`` adds one ``-n 1 -v`` run of bc and cc.
``--deadline-s`` skips what is left (noted in the file) once the deadline is
near; the results file is rewritten after every run, so a killed run leaves
what it measured.

Here (2 shared cores, no GPU; ``--device-backend cpu`` runs the GPU plans on the
CPU backend through a simulated device arena, to exercise them):

    OMP_NUM_THREADS=2 python bench/algorithms_bench.py --scale 12 --threads 2 --backends cpu cuda \\
        --device-backend cpu --gapbs-bin /path/to/gapbs/bin --out /tmp/alg.json

On the device (16 cores, one H200), about 3.5 minutes:

    python bench/algorithms_bench.py --scale 22 --exact-scale 9 --threads 16 --backends cpu cuda \\
        --gpu-engines resident hybrid --budget-fraction 0.25 --bc-sources 16 --repeat 1 \\
        --gapbs-bin GAPBS_BIN --deadline-s 200 --out bench/results/algorithms-kron22-h200.json

Estimate for that line: kron18 timed here (2 shared cores, load average 4-7), scaled by
arcs (kron22/kron18 = 16.8x) and by 4x for 16 cores against 2 (half the ideal 8x), the
GPU plans taken at half the CPU plan's time (no GPU here to time them); GAPBS tc and our
CPU triangle count from bench/results/triangles-kron22-h200.json (6 s, 1.3 s). Graph 13 s;
exact betweenness on kron9 and the GPU compilations 15 s (a guess); GAPBS file 2 s; betweenness 75 s
(numpy check 7 s, GAPBS 5 s, networkit's estimate 21 s, cpu 19 s, GPU plans 20 s); triangles
15 s; wcc 6 s; communities 16 s; colouring 68 s (Jones-Plassmann 15 s a call on the CPU):
about 215 s. ``--deadline-s 200`` (15 s margin) skips the last Jones-Plassmann plans if
it comes to that; the longest single step (networkit's estimate, a Jones-Plassmann pair)
is about 30 s, the most it can run past the deadline.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
import provenance  # noqa: E402  (commit, dirty, diff hash, command: issue 35)
sys.path.insert(0, str(Path(__file__).resolve().parent))
from cpu_peers_bench import timed  # noqa: E402  (median after an untimed warm-up)
from peers_bench import parse_gapbs, write_gapbs  # noqa: E402  (GAPBS's .sg writer, its output's parser)

ALGORITHMS = ("betweenness_exact", "betweenness", "triangle_count", "wcc", "communities", "coloring")


# ---------------------------------------------------------------------- plans, deadline
@dataclass
class Plan:
    """Where graphferry runs: a backend, an engine and the loaded graph's placement."""

    label: str
    backend: str
    engine: str
    budget_fraction: float | None = None     # of the graph's edge bytes; None: the backend's default
    partition_fraction: float | None = None  # of the budget (the stand-in's partitions); None: the default

    def placement(self, edge_bytes: int) -> dict:
        if self.budget_fraction is None:
            return {"budget": None, "partition_bytes": None}
        budget = max(4096, int(self.budget_fraction * edge_bytes))
        part = None if self.partition_fraction is None else max(1024, int(self.partition_fraction * budget))
        return {"budget": budget, "partition_bytes": part}

    @property
    def is_device(self) -> bool:
        return self.label != "cpu"


def make_plans(args) -> tuple[list[Plan], list[str]]:
    """The plans asked for, and a note for each left out (no GPU)."""
    plans, notes = [], []
    if "cpu" in args.backends:
        plans.append(Plan("cpu", "cpu", "auto"))
    if "cuda" in args.backends:
        stand_in = args.device_backend == "cpu"
        if not stand_in:
            from graphferry.backends import cuda_available

            if not cuda_available():
                if not args.dry_run:
                    notes.append("backend cuda: skipped (no GPU or no CuPy here)")
                    return plans, notes
                notes.append("backend cuda: no GPU or no CuPy here: a run would skip the GPU plans listed")
        for engine in args.gpu_engines:
            frac = None if engine == "resident" else args.budget_fraction
            plans.append(Plan(f"cpu-sim:{engine}" if stand_in else engine, args.device_backend, engine, frac,
                              # the stand-in's default partition is the whole side: cut it so the budget binds
                              0.125 if stand_in and frac is not None else None))
    return plans, notes


class Deadline:
    """Seconds left before ``--deadline-s``; work that would start too near it is skipped with a note."""

    def __init__(self, seconds: float | None, margin: float):
        self.t0 = time.perf_counter()
        self.seconds, self.margin = seconds, margin
        self.skipped: list[str] = []

    def left(self) -> float:
        return float("inf") if self.seconds is None else self.seconds - (time.perf_counter() - self.t0)

    def allows(self, what: str, expect: float = 0.0) -> bool:
        """True when ``expect`` more seconds (an estimate of the work) still leave the margin."""
        if self.left() - expect > self.margin:
            return True
        self.skipped.append(what + (f" (expected {expect:.0f} s)" if expect else ""))
        print(f"skipped (deadline): {self.skipped[-1]}", flush=True)
        return False


# ---------------------------------------------------------------------- peers
def gapbs(bindir: Path | None, binary: str, sg: Path, extra: list[str], trials: int, threads: int,
          timeout: float, verify: bool = True):
    """GAPBS's trial times (``-n trials``) and its output; ``verify`` (always, since issue 35):
    one ``-n 1 -v`` run more, its verifier's verdict the run's."""
    if bindir is None or not (bindir / binary).exists():
        return None
    env = {**os.environ, "OMP_NUM_THREADS": str(threads)}   # OMP_WAIT_POLICY inherited from main()
    limit = None if timeout == float("inf") else max(1.0, timeout)
    cmd = [str(bindir / binary), "-f", str(sg), "-n", str(trials), *extra]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=limit).stdout
    except subprocess.TimeoutExpired:
        print(f"GAPBS {binary}: stopped at the deadline", flush=True)
        return None
    trial, _, _ = parse_gapbs(out, binary)
    result = {"seconds": statistics.median(trial) if trial else None, "all_seconds": trial,
              "command": " ".join(cmd), "output": out, "verified": None, "verified_how": "not checked"}
    if verify:
        vcmd = [str(bindir / binary), "-f", str(sg), "-n", "1", *extra, "-v"]
        try:
            vout = subprocess.run(vcmd, capture_output=True, text=True, env=env, timeout=limit).stdout
            result["verified"] = parse_gapbs(vout, binary)[2]
            result["verified_how"] = (f"GAPBS's own verifier (-v): {' '.join(vcmd)}" if result["verified"]
                                      else f"unchecked: no PASS from its verifier (-v): {' '.join(vcmd)}")
        except subprocess.TimeoutExpired:
            result["verified_how"] = "unchecked: its -v run stopped at the deadline"
        result["command"] = f"{result['command']} ; {' '.join(vcmd)}"
    else:
        result["verified_how"] = "unchecked: not checked"
    return result


def gapbs_count(out: str, pattern: str) -> int | None:
    """The number GAPBS's ``-a`` analysis printed (the last trial's)."""
    import re

    found = re.findall(pattern, out)
    return int(found[-1]) if found else None


def to_networkit(g, nk):
    src, dst = g.edges()
    keep = src < dst
    return nk.GraphFromCoo((src[keep].astype(np.uint64), dst[keep].astype(np.uint64)), n=g.n,
                           weighted=False, directed=False)


def to_networkx(g):
    import networkx as nx

    src, dst = g.edges()
    G = nx.Graph()
    G.add_nodes_from(range(g.n))
    G.add_edges_from(zip(src.tolist(), dst.tolist()))
    return G


# ---------------------------------------------------------------------- oracles (not the library's code)
def proper(g, colors) -> bool:
    src, dst = g.edges()
    return bool(colors.min() >= 0 and not np.any(colors[src] == colors[dst]))


def modularity(g, labels) -> float:
    """Newman's modularity of an undirected simple graph's partition:
    Q = sum_c [ L_c / m - (d_c / 2m)^2 ] (L_c: edges inside c, d_c: degree sum of c, m edges)."""
    src, dst = g.edges()
    m2 = float(len(src))                                   # 2m: every edge stored both ways
    _, lab = np.unique(labels, return_inverse=True)
    inside = np.bincount(lab[src][lab[src] == lab[dst]], minlength=lab.max() + 1).astype(np.float64)
    degree = np.bincount(lab, weights=np.diff(g.offsets).astype(np.float64), minlength=lab.max() + 1)
    return float(inside.sum() / m2 - np.sum((degree / m2) ** 2))


def brandes_sources(g, sources) -> np.ndarray:
    """Brandes's dependency sums over ``sources`` on an unweighted undirected simple CSR, in numpy:
    sigma_sw = sum of sigma_sv over tight edges v->w (dist w = dist v + 1); delta_s(v) =
    sum over tight v->w of sigma_sv / sigma_sw * (1 + delta_s(w)), deepest level first."""
    n = g.n
    offsets, indices = np.asarray(g.offsets, dtype=np.int64), np.asarray(g.indices, dtype=np.int64)
    raw = np.zeros(n)
    for s in sources:
        dist = np.full(n, -1, dtype=np.int64)
        sigma = np.zeros(n)
        dist[s], sigma[s] = 0, 1.0
        frontier, d, tight = np.array([s], dtype=np.int64), 0, []
        while len(frontier):
            starts, counts = offsets[frontier], offsets[frontier + 1] - offsets[frontier]
            total = int(counts.sum())
            first = np.repeat(np.cumsum(counts) - counts, counts)
            pos = np.repeat(starts, counts) + (np.arange(total, dtype=np.int64) - first)
            u, w = np.repeat(frontier, counts), indices[pos]
            fresh = np.unique(w[dist[w] < 0])
            dist[fresh] = d + 1
            keep = dist[w] == d + 1
            u, w = u[keep], w[keep]
            sigma += np.bincount(w, weights=sigma[u], minlength=n)
            tight.append((u, w))
            frontier, d = fresh, d + 1
        delta = np.zeros(n)
        for u, w in reversed(tight):
            delta += np.bincount(u, weights=sigma[u] / sigma[w] * (1.0 + delta[w]), minlength=n)
        delta[s] = 0.0
        raw += delta
    return raw


def networkx_scaled(raw, sources, n) -> np.ndarray:
    """NetworkX's unnormalised sampled scaling (endpoints excluded) of dependency sums on an undirected graph:
    (n - 1) / (2k) for other vertices, (n - 1) / (2(k - 1)) for the sources themselves."""
    k = len(sources)
    scale = np.full(n, (n - 1) / (2 * k))
    scale[np.asarray(sources)] = (n - 1) / (2 * (k - 1)) if k > 1 else np.nan
    return raw * scale


def same(a, b) -> bool:
    return bool(np.allclose(a, b, rtol=1e-7, atol=1e-9 * max(1.0, float(np.nanmax(np.abs(b)))), equal_nan=True))


# ---------------------------------------------------------------------- main
def parse_args() -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", type=int, default=14)
    ap.add_argument("--exact-scale", type=int, default=10, help="scale of the exact-betweenness comparison")
    ap.add_argument("--threads", type=int, default=2, help="OpenMP threads for graphferry, GAPBS and networkit "
                                                           "(every host core of the machine)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--bc-sources", type=int, default=8)
    ap.add_argument("--bc-check-sources", type=int, default=2,
                    help="sources of the numpy Brandes check on the benchmark graph (0: none)")
    ap.add_argument("--backends", nargs="+", default=["cpu"], choices=("cpu", "cuda"))
    ap.add_argument("--gpu-engines", nargs="+", default=["resident", "hybrid"],
                    help="one GPU plan per engine with --backends cuda")
    ap.add_argument("--budget-fraction", type=float, default=0.25,
                    help="device budget of the GPU plans other than resident, as a fraction of the edge bytes")
    ap.add_argument("--device-backend", default="cuda", choices=("cuda", "cpu"),
                    help="backend of the GPU plans; cpu runs them on the CPU backend through a simulated "
                         "device arena (runs named cpu-sim:ENGINE), to exercise them without a GPU")
    ap.add_argument("--algorithms", nargs="+", default=list(ALGORITHMS), choices=ALGORITHMS)
    ap.add_argument("--coloring-methods", nargs="+", default=["speculative", "jones_plassmann"],
                    choices=("speculative", "jones_plassmann"))
    ap.add_argument("--peer-repeat", type=int, default=None,
                    help="networkit's timed calls on the benchmark graph, median, no warm-up (as GAPBS's trials); "
                         "default --repeat")
    ap.add_argument("--gapbs-bin", default=None, help="directory with GAPBS's bc, tc, cc (skipped when absent)")
    ap.add_argument("--peer-verify", action="store_true",
                    help="accepted for old command lines: GAPBS runs one more -n 1 -v run each since issue 35")
    ap.add_argument("--scipy-max-arcs", type=int, default=20_000_000,
                    help="the scipy triangle reference up to this many arcs (beyond: GAPBS's total)")
    ap.add_argument("--networkx-max-arcs", type=int, default=2_000_000,
                    help="networkx's greedy colouring and modularity up to this many arcs")
    ap.add_argument("--wait-policy", default="passive", choices=("passive", "active"),
                    help="OMP_WAIT_POLICY for graphferry and GAPBS alike (passive: spinning threads on a "
                         "shared machine slow every system down by 10x and more)")
    ap.add_argument("--deadline-s", type=float, default=None,
                    help="skip what is left (noted in the file) once fewer than --margin-s seconds remain")
    ap.add_argument("--margin-s", type=float, default=15.0)
    ap.add_argument("--dry-run", action="store_true", help="list the plans, peers and algorithms, run nothing")
    ap.add_argument("--out", default=None)
    return ap.parse_args()


def ratio(secs, peer):
    """Our seconds over a peer's (below 1: we are faster); None without the peer's."""
    return round(secs / peer, 3) if peer else None


class Bench:
    """One run's state: its arguments, deadline, plans and peers, the graphs, the loaded handles
    (one per plan and graph, kept for every algorithm) and the runs recorded so far (the results
    file is rewritten after each)."""

    def __init__(self, args, nk):
        self.args, self.nk = args, nk
        self.clock = Deadline(args.deadline_s, args.margin_s)
        self.bindir = Path(args.gapbs_bin) if args.gapbs_bin else None
        self.plans, self.notes = make_plans(args)
        self.missing = [b for b in ("bc", "tc", "cc") if self.bindir is None or not (self.bindir / b).exists()]
        if nk is None:
            self.notes.append("networkit: skipped (not installed)")
        if self.missing:
            self.notes.append(f"GAPBS {', '.join(self.missing)}: skipped "
                              f"({'no --gapbs-bin' if self.bindir is None else 'absent'})")
        self.runs: list[dict] = []
        self.doc: dict = {}
        self.peers: dict[str, float | None] = {}
        self.handles: dict = {}
        self.g = self.small = self.sg = None
        self._nk_graph = None

    def save(self):
        if not self.args.out:
            return
        self.doc.update(runs=self.runs, skipped=self.clock.skipped, notes_skipped=self.notes)
        Path(self.args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(self.args.out).write_text(json.dumps(self.doc, indent=1, default=float))

    def add(self, algorithm, engine, seconds, verified, **extra):
        """Record (and print) one run, then rewrite the results file."""
        # the first call beside the median (issue 35): timed()'s warm-up, or a peer's first trial
        first = getattr(seconds, "first", None)
        if first is None and extra.get("all_seconds"):
            first = extra["all_seconds"][0]
        if engine.startswith("peer:") and not verified and "unchecked" not in str(extra.get("verified_how", "")):
            extra["verified_how"] = "unchecked: " + str(extra.get("verified_how") or "not checked in this run")
        self.runs.append({"algorithm": algorithm, "engine": engine,
                          "seconds": None if seconds is None else round(seconds, 6),
                          "first_seconds": None if first is None else round(first, 6),
                          "bytes_h2d": 0, "floor_seconds": 0.0, "verified": verified, **extra})
        shown = "-" if seconds is None else f"{seconds * 1e3:10.2f} ms"
        print(f"{algorithm:<22} {engine:<26} {shown}  verified={verified}  "
              + " ".join(f"{k}={v}" for k, v in extra.items() if k not in ("command", "all_seconds", "verified_how")),
              flush=True)
        self.save()

    def run(self, lg, plan, place, name, **params):
        from graphferry.algorithms import registry

        return registry.get(name).run(lg, backend=plan.backend, engine=plan.engine, **place, **params)

    def timed_plan(self, plan, graph, key, name, **params):
        """``timed`` calls of algorithm ``name`` on ``plan``'s handle of ``graph``."""
        lg, place = self.loaded(plan, graph, key)
        return timed(lambda: self.run(lg, plan, place, name, **params), self.args.repeat)

    def peer_timed(self, fn):
        """networkit on the benchmark graph: the median of --peer-repeat calls, no warm-up (as GAPBS's trials)."""
        return timed(fn, self.args.peer_repeat or self.args.repeat, warm=lambda: None)

    def gapbs(self, what, binary, extra):
        """GAPBS's ``binary`` on the benchmark graph, when it is here and the deadline allows."""
        if self.sg is None or not self.clock.allows(what):
            return None
        return gapbs(self.bindir, binary, self.sg, extra, self.args.repeat, self.args.threads, self.clock.left())

    def loaded(self, plan, graph, key):
        """``plan``'s loaded handle of ``graph`` (``key``: "big" or "small"), made on first use and kept."""
        import graphferry as gf

        if (plan.label, key) not in self.handles:
            place = plan.placement(graph.edge_bytes)
            self.handles[plan.label, key] = (gf.load(graph, backend=plan.backend, **place), place)
        return self.handles[plan.label, key]

    def nk_graph(self):
        """The benchmark graph for networkit, built once (kron22: seconds)."""
        if self._nk_graph is None:
            self._nk_graph = to_networkit(self.g, self.nk)
        return self._nk_graph

    def close(self):
        for lg, _ in self.handles.values():
            lg.close()
        if self.sg is not None:
            self.sg.unlink(missing_ok=True)


def machine_info(args, plans) -> dict:
    machine = {"device": "cpu only", "host_cores": os.cpu_count(), "threads": args.threads,
               "omp_wait_policy": args.wait_policy, "platform": platform.platform()}
    if any(p.is_device for p in plans):
        from graphferry.backends import get_backend

        dev = get_backend(args.device_backend)
        machine["device"] = dev.device_description()
        if args.device_backend == "cuda":
            import cupy as cp

            machine.update(cupy=cp.__version__, cuda_runtime=cp.cuda.runtime.runtimeGetVersion(),
                           driver=cp.cuda.runtime.driverGetVersion())
        else:
            machine["note"] = "no GPU: the GPU plans ran on the CPU backend through a simulated device arena"
    return machine


def make_graphs(b: Bench) -> None:
    """The benchmark graph and the small one (exact betweenness, networkit's colouring), and the file's header."""
    from graphferry.generators import kronecker_graph
    from graphferry.transforms import simple_graph

    args = b.args
    machine = machine_info(args, b.plans)
    t = time.perf_counter()
    g = b.g = simple_graph(kronecker_graph(args.scale, seed=1), undirected=True)
    gen_seconds = time.perf_counter() - t
    b.small = simple_graph(kronecker_graph(args.exact_scale, seed=1), undirected=True)
    graph_info = {"name": f"kron{args.scale}", "n": g.n, "m": g.m, "directed": False, "edge_bytes": g.edge_bytes,
                  "generator": "graphferry.generators.kronecker_graph(seed=1) + simple_graph(undirected)",
                  "build_seconds": round(gen_seconds, 2)}
    print(f"graph kron{args.scale}: n={g.n} arcs={g.m} ({gen_seconds:.1f} s)", flush=True)
    budgets = {p.label: p.placement(g.edge_bytes)["budget"] for p in b.plans}
    b.doc.update({**provenance.stamp({}),
                  "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
                  "machine": machine, "graph": graph_info,
                  "budget_bytes": next((x for x in budgets.values() if x is not None), None),
                  "plan_budget_bytes": budgets,
                  "notes": "seconds are whole calls on a loaded graph (graph loading excluded; a graph an algorithm "
                           "derives, the simple view or the degree-ordered DAG, is placed inside the call); "
                           f"betweenness_exact and coloring_small run on kron{args.exact_scale}; ratio_vs_X is "
                           "our seconds over X's (below 1: we are faster)"})


def write_gapbs_graph(b: Bench, tmp: Path) -> None:
    """GAPBS's serialized copy of the benchmark graph, when any GAPBS binary is here."""
    if b.bindir is not None and len(b.missing) < 3:
        t = time.perf_counter()
        b.sg = write_gapbs(b.g, tmp / "g")[".sg"]
        print(f"GAPBS graph written ({time.perf_counter() - t:.1f} s)", flush=True)


# ---------------------------------------------------------------------- one step per algorithm
def bench_betweenness_exact(b: Bench) -> None:
    """Exact betweenness on the small graph: every plan against networkit's (halved)."""
    nk, small = b.nk, b.small
    theirs, nk_secs = None, None
    if nk is not None:
        G = to_networkit(small, nk)

        def nk_bc():
            c = nk.centrality.Betweenness(G, normalized=False)
            c.run()
            return np.array(c.scores()) / 2
        nk_secs, theirs = timed(nk_bc, b.args.repeat)
        b.add("betweenness_exact", "peer:networkit", nk_secs, None, n=small.n, m=small.m // 2,
              verified_how="the reference here")
    for plan in b.plans:
        if not b.clock.allows(f"betweenness_exact {plan.label}"):
            continue
        secs, ours = b.timed_plan(plan, small, "small", "betweenness", normalized=False)
        b.add("betweenness_exact", plan.label, secs, None if theirs is None else same(ours.betweenness, theirs),
              n=small.n, m=small.m // 2, ratio_vs_networkit=ratio(secs, nk_secs),
              verified_how="equals networkit's exact Betweenness halved" if theirs is not None else "not checked")


def betweenness_peers(b: Bench, k: int) -> None:
    """GAPBS ``bc -i K`` and networkit's estimate with K samples (timed; values not comparable)."""
    nk = b.nk
    peer = b.gapbs("betweenness peer:gapbs", "bc", ["-i", str(k)])
    if peer and peer["seconds"]:
        b.peers["bc"] = peer["seconds"]
        b.add("betweenness", "peer:gapbs", peer["seconds"], peer["verified"], sources=k,
              verified_how=peer["verified_how"], command=peer["command"], all_seconds=peer["all_seconds"])
    if nk is not None and b.clock.allows("betweenness peer:networkit-estimate"):
        NG = b.nk_graph()

        def nk_est():
            c = nk.centrality.EstimateBetweenness(NG, k, False, True)
            c.run()
            return c
        nk_secs, _ = b.peer_timed(nk_est)
        b.peers["bc_networkit"] = nk_secs
        b.add("betweenness", "peer:networkit-estimate", nk_secs, None, sources=k,
              verified_how="its own random sources: values not comparable")


def bench_betweenness(b: Bench) -> None:
    """Betweenness from K sampled sources: checked against a numpy Brandes, the GPU plans against the first plan."""
    g, args = b.g, b.args
    k = args.bc_sources
    check_sources = random.Random(5).sample(range(g.n), args.bc_check_sources) if args.bc_check_sources else []
    want = None
    if check_sources:
        t = time.perf_counter()
        want = networkx_scaled(brandes_sources(g, check_sources), check_sources, g.n)
        print(f"numpy Brandes on {len(check_sources)} sources: {time.perf_counter() - t:.1f} s", flush=True)
    betweenness_peers(b, k)
    reference = None
    for plan in b.plans:
        if not b.clock.allows(f"betweenness {plan.label}"):
            continue
        lg, place = b.loaded(plan, g, "big")
        secs, ours = b.timed_plan(plan, g, "big", "betweenness", k=k, seed=3, normalized=False)
        checks, how = [], []
        if want is not None:
            small_run = b.run(lg, plan, place, "betweenness", k=len(check_sources), seed=5, normalized=False)
            checks.append(same(small_run.betweenness, want))
            how.append(f"{len(check_sources)}-source run equals a numpy Brandes")
        if reference is not None:
            checks.append(same(ours.betweenness, reference[1]))
            how.append(f"{k}-source values equal {reference[0]}'s")
        else:                               # the first plan (cpu when asked for) is the others' reference
            reference = (plan.label, ours.betweenness)
        b.add("betweenness", plan.label, secs, all(checks) if checks else None, sources=k,
              verified_how="; ".join(how) or "not checked",
              ratio_vs_gapbs=ratio(secs, b.peers.get("bc")),
              ratio_vs_networkit=ratio(secs, b.peers.get("bc_networkit")))


def bench_triangles(b: Bench) -> None:
    """Triangle count against GAPBS ``tc``; the reference is scipy's count, or GAPBS's total on large graphs."""
    g = b.g
    want, how = None, None
    if g.m <= b.args.scipy_max_arcs:
        import scipy.sparse as sp

        u = sp.triu(g.to_scipy().astype(np.int64), 1).tocsr()
        want, how = int((u @ u).multiply(u).sum()), "scipy (U @ U) .* U"
    peer = b.gapbs("triangle_count peer:gapbs", "tc", ["-a"])
    if peer and peer["seconds"]:
        total = gapbs_count(peer["output"], r"(\d+) triangles")
        b.peers["tc"] = peer["seconds"]
        if want is None and total is not None:
            want, how = total, "GAPBS tc's total (-a)"
            ok, peer_how = None, "the reference here"
        else:
            ok, peer_how = total == want, f"its total (-a) equals {how}"
        ok = bool(ok and peer["verified"])
        peer_how = f"{peer_how}; {peer['verified_how']}"
        b.add("triangle_count", "peer:gapbs", peer["seconds"], ok, total=total, verified_how=peer_how,
              command=peer["command"], all_seconds=peer["all_seconds"])
    for plan in b.plans:
        if not b.clock.allows(f"triangle_count {plan.label}"):
            continue
        secs, ours = b.timed_plan(plan, g, "big", "triangle_count")
        b.add("triangle_count", plan.label, secs, None if want is None else ours.total == want,
              total=ours.total, verified_how=f"equals {how}" if how else "not checked",
              ratio_vs_gapbs=ratio(secs, b.peers.get("tc")))


def bench_wcc(b: Bench) -> None:
    """Connected components against GAPBS ``cc``; scipy's partition is the reference."""
    from scipy.sparse.csgraph import connected_components

    g = b.g
    count, lab = connected_components(g.to_scipy(), directed=False)
    peer = b.gapbs("wcc peer:gapbs", "cc", ["-a"])
    if peer and peer["seconds"]:
        b.peers["cc"] = peer["seconds"]
        theirs = gapbs_count(peer["output"], r"There are (\d+) components")
        b.add("wcc", "peer:gapbs", peer["seconds"], bool(theirs == count and peer["verified"]),
              components=theirs, verified_how="its component count (-a) equals scipy's; "
              + peer["verified_how"], command=peer["command"], all_seconds=peer["all_seconds"])
    for plan in b.plans:
        if not b.clock.allows(f"wcc {plan.label}"):
            continue
        secs, ours = b.timed_plan(plan, g, "big", "wcc")
        pairs = len(np.unique(np.stack([lab, ours.labels], 1), axis=0))
        b.add("wcc", plan.label, secs, pairs == count == ours.components, components=ours.components,
              verified_how="the same partition as scipy's connected_components",
              ratio_vs_gapbs=ratio(secs, b.peers.get("cc")))


def bench_communities(b: Bench) -> None:
    """Label-propagation communities against networkit's PLP, each labelling's modularity computed here."""
    import networkx as nx

    g, nk = b.g, b.nk

    def nx_modularity(labels):
        if g.m > b.args.networkx_max_arcs:
            return None
        groups: dict = {}
        for v, c in enumerate(labels.tolist()):
            groups.setdefault(c, set()).add(v)
        return round(nx.community.modularity(to_networkx(g), groups.values()), 6)

    if nk is not None and b.clock.allows("communities peer:networkit-plp"):
        NG = b.nk_graph()

        def nk_plp():
            p = nk.community.PLP(NG)
            p.run()
            return np.asarray(p.getPartition().getVector())
        nk_secs, theirs = b.peer_timed(nk_plp)
        b.peers["plp"] = nk_secs
        b.add("communities", "peer:networkit-plp", nk_secs, None, modularity=round(modularity(g, theirs), 6),
              networkx_modularity=nx_modularity(theirs), verified_how="modularity computed here")
    for plan in b.plans:
        if not b.clock.allows(f"communities {plan.label}"):
            continue
        secs, ours = b.timed_plan(plan, g, "big", "communities")
        q = modularity(g, ours.community)
        b.add("communities", plan.label, secs, bool(np.isclose(q, ours.modularity)), modularity=round(q, 6),
              networkx_modularity=nx_modularity(ours.community), communities=int(len(np.unique(ours.community))),
              verified_how="its reported modularity equals the numpy formula's on its labels",
              ratio_vs_networkit=ratio(secs, b.peers.get("plp")))


def bench_coloring_small(b: Bench) -> None:
    """Colouring on the small graph beside networkit's SpectralColoring (too slow beyond it)."""
    import networkx as nx

    nk, small = b.nk, b.small
    NS = to_networkit(small, nk)

    def nk_color():
        c = nk.coloring.SpectralColoring(NS)
        c.run()
        part = c.getColoring()
        return np.array([part[v] for v in range(small.n)])
    nk_secs, theirs = timed(nk_color, 1)
    small_greedy = max(nx.greedy_color(to_networkx(small), "largest_first").values()) + 1
    b.add("coloring_small", "peer:networkit-spectral", nk_secs, proper(small, theirs),
          colors=int(len(np.unique(theirs))), n=small.n, verified_how="proper")
    for plan in b.plans:
        for method in b.args.coloring_methods:
            secs, ours = b.timed_plan(plan, small, "small", "coloring", method=method)
            b.add("coloring_small", f"{plan.label}:{method}", secs, proper(small, ours.colors),
                  colors=ours.num_colors, networkx_largest_first_colors=small_greedy, n=small.n,
                  ratio_vs_networkit=ratio(secs, nk_secs), verified_how="proper")


def bench_coloring(b: Bench) -> None:
    """Both colouring methods on every plan, checked proper, beside networkx's greedy colour count."""
    import networkx as nx

    g = b.g
    greedy = None
    if g.m <= b.args.networkx_max_arcs:
        greedy = max(nx.greedy_color(to_networkx(g), "largest_first").values()) + 1
    for method in b.args.coloring_methods:          # the cheap method on every plan first
        for plan in b.plans:
            if not b.clock.allows(f"coloring {method} {plan.label}"):
                continue
            secs, ours = b.timed_plan(plan, g, "big", "coloring", method=method)
            b.add("coloring", f"{plan.label}:{method}", secs, proper(g, ours.colors), colors=ours.num_colors,
                  networkx_largest_first_colors=greedy, verified_how="proper (no edge joins equal colours)")
    if b.nk is not None and b.clock.allows("coloring_small"):
        bench_coloring_small(b)


#: each algorithm's step, in the order they run
STEPS = {"betweenness_exact": bench_betweenness_exact, "betweenness": bench_betweenness,
         "triangle_count": bench_triangles, "wcc": bench_wcc, "communities": bench_communities,
         "coloring": bench_coloring}


def summarize(b: Bench) -> None:
    """Target (a), betweenness against GAPBS's, and what the deadline skipped; the file written a last time."""
    bc = {r["engine"]: r["seconds"] for r in b.runs if r["algorithm"] == "betweenness" and r["seconds"]}
    if "peer:gapbs" in bc:
        for label, secs in bc.items():
            if not label.startswith("peer:"):
                print(f"target betweenness {label}: {bc['peer:gapbs'] / secs:.2f}x GAPBS bc "
                      f"({'meets' if bc['peer:gapbs'] >= 2 * secs else 'misses'} 2x)", flush=True)
    if b.clock.skipped:
        print(f"skipped for the deadline: {len(b.clock.skipped)}: {', '.join(b.clock.skipped)}", flush=True)
    b.save()
    if b.args.out:
        print(f"wrote {b.args.out}")


def main() -> None:
    args = parse_args()
    # before any kernel library loads (graphferry's imports are below, in the steps)
    os.environ["OMP_NUM_THREADS"] = str(args.threads)
    os.environ["OMP_WAIT_POLICY"] = args.wait_policy
    try:
        import networkit as nk
        nk.setNumberOfThreads(args.threads)
    except ImportError:
        nk = None
    b = Bench(args, nk)
    for note in b.notes:
        print(note, flush=True)
    if args.dry_run:
        for p in b.plans:
            print(f"plan {p.label:<18} backend={p.backend} engine={p.engine} budget_fraction={p.budget_fraction} "
                  f"partition_fraction={p.partition_fraction}")
        print("algorithms:", " ".join(args.algorithms))
        return
    make_graphs(b)
    # removed at the end, and by its finalizer when the benchmark fails (nothing left in $TMPDIR)
    work = tempfile.TemporaryDirectory(prefix="gf-algbench-")
    try:
        write_gapbs_graph(b, Path(work.name))
        for name, step in STEPS.items():
            if name in args.algorithms and b.clock.allows(name):
                step(b)
    finally:
        b.close()
        work.cleanup()
    summarize(b)


if __name__ == "__main__":
    main()
