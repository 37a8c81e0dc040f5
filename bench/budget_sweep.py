#!/usr/bin/env python
"""Time against the device budget (issue 37): every single engine and the hybrid, 1% to 100% of the edges.

The figure the UVM-versus-Subway-versus-EMOGI study draws (time against the share of the graph the
GPU can hold), for graphferry's engines on one graph in one call: each engine the registry lists
as running a partitioned side on the device (``engines.registry``: ``on_device`` and not
``schedules``; today resident, filter, compaction, zerocopy, unified) and the hybrid, at budgets
of ``--budgets`` x the weighted edge bytes (m x 8: a 4-byte id and a 4-byte weight an edge), on
BFS, SSSP, PageRank (LDBC form, ``--pr-iterations`` rounds: its time per iteration is the point),
delta PageRank and WCC. Peers, given by their binaries' directories, are horizontal lines in the
same file: EMOGI zero-copy (``-m 2``) and with the edges in GPU memory (``-m 0``), HyTGraph when
given, GAPBS with its verifier (``-v``).

Everything measured is bench/peers_bench.py's (imported, not copied): its graph generator,
``time_ours`` (first call after loading = ``first_seconds``, the median of the calls after it =
``seconds``, each answer checked by ``Checker``: CUDA oracle kernels on the GPU, scipy without
one), its peer runners and their checks. Each run adds ``budget_fraction`` and ``budget_bytes``.

What the sweep skips, and why (the file says it, per run, in ``same_as``):

* An engine that keeps nothing on the device from one iteration to the next (``moves`` is
  ``nothing``, ``lines``, ``partitions`` or ``rows``: zerocopy, filter, compaction) does the same
  work under any budget that gives it the same device buffers (``Engine.partition_buffers``: two
  where they fit). At each budget the sweep builds its engines for the weighted and unweighted
  out-sides and compares the arena bytes they hold with the budgets already measured: the same
  bytes, the same runs by construction, measured once (``holds_for_budget_fractions``).
* ``resident`` runs once, with the whole budget (``budget_fraction`` 1.0): it holds the side and
  nothing else, the same at every budget that holds it; ``fits_from_budget_fraction`` says the
  smallest such budget, per algorithm (each on a handle of its own: its side's arena bytes over
  the weighted edge bytes, rounded up; packed ids and narrowed weights fit below 100%, SSSP's
  weighted side from a larger budget than the unweighted side).
* ``unified`` (managed pages, least recently used evicted past the budget) and the hybrid
  (residency) depend on the budget: measured at each. unified is slow (Kronecker 25: seconds a
  call): its budgets run last. The hybrid at every budget, resident and the engines that keep
  nothing between iterations (a handle per footprint) run first, every handle open at once and
  their timed calls interleaved, one round of calls over the handles after another
  (``--no-interleave``: the hybrid one budget after another, resident before it and those engines
  after it). On the H200 a call's host time outside the kernels held one of two levels for seconds
  at a time, whatever the engine or budget (BFS at Kronecker 25: 6.5 or 8.3 ms a call,
  ``dev/handle_probe.py``), so runs timed apart compared states of the host, not budgets or
  engines (the hybrid's BFS at 1% against zerocopy alone: 1.24x apart, 1.09x interleaved). Then
  unified; every engine's budgets run in an order that spreads what a deadline leaves
  (``--order``: 100%, 1%, then the middles of the largest gaps). A run whose first timed call (or,
  apart, whose engine and algorithm at an earlier budget) took more than ``--slow-s`` gets
  ``--slow-reps`` calls after the first (``calls`` and ``fewer_calls_because``); an interleaved one
  whose first call or first timed call took under ``--fast-s`` gets ``--fast-reps``, and one whose
  calls' interquartile range exceeds ``--spread-iqr`` of their median ``--spread-reps``
  (``more_calls_because``).

Loads: the graph is loaded once (``graphferry.load``: pinned edges, narrowed weights, packed ids, edges
fused for reads in place unless ``--no-fuse-edges``);
each budget is :meth:`LoadedGraph.with_budget` over those host copies (new arena, engines and hybrid
pool; nothing pinned, narrowed or packed again). ``phase_seconds`` in the file says where the
call's time went (generation, copies, each section).

Usage (the H200; peer binaries under .carry/bin):
    PYTHONPATH=src python bench/budget_sweep.py --graph kron --scale 25 --out $OUT \\
        --deadline-s 300 --peers-deadline-s 400 --emogi-bin .carry/bin/emogi --gapbs-bin .carry/bin/gapbs
Here (no GPU: the CPU backend, the simulated arena, scale 10):
    PYTHONPATH=src python bench/budget_sweep.py --small --out /tmp/sweep
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import math
import os
import shutil
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import engines_bench as eb  # noqa: E402  (the generators and the machine probe)
import peers_bench as pb  # noqa: E402  (time_ours, Checker, the peers' runners)
import provenance  # noqa: E402  (commit, dirty flag, diff hash, command: issue 35)

BUDGETS = [0.01, 0.02, 0.05, 0.10, 0.25, 0.50, 0.75, 1.00]
PEER_PR_ITERATIONS = pb.PR_ITERATIONS  # peers_bench's (20): GAPBS's pr -i
ALGORITHMS = ["bfs", "sssp", "pagerank", "wcc"]
#: what an engine moves when it keeps nothing on the device between iterations (engines/base.py
#: Engine.moves): its runs depend on the budget only through the buffers it holds
STATELESS_MOVES = ("nothing", "lines", "partitions", "rows")


def sweep_engines() -> list[str]:
    """The single engines of the sweep, from the registry: every engine that runs a side on the
    device and is not itself a scheduler of engines (the hybrid is the sweep's other line).

    Example:
        >>> sweep_engines()
        ['resident', 'filter', 'compaction', 'zerocopy', 'unified']
    """
    from graphferry.engines import registry

    return [n for n in registry.names_where(on_device=True) if not registry.engine_class(n).schedules]


def spread_order(values: list[float]) -> list[float]:
    """``values`` in an order whose every prefix spreads over the range: the ends, then the
    middles of the largest gaps (a run cut by a deadline keeps a sweep, not its first half).

    Example:
        >>> spread_order([0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 0.75, 1.0])
        [1.0, 0.01, 0.1, 0.5, 0.02, 0.25, 0.75, 0.05]
    """
    vals = sorted(values)
    if len(vals) <= 2:
        return vals[::-1]
    out, spans = [vals[-1], vals[0]], [(0, len(vals) - 1)]
    while spans:
        spans.sort(key=lambda s: s[1] - s[0], reverse=True)
        a, b = spans.pop(0)
        if b - a < 2:
            continue
        mid = (a + b) // 2
        out.append(vals[mid])
        spans += [(a, mid), (mid, b)]
    return out


def budgets_note(budgets: list[float]) -> str:
    """The notes' sentence for a sweep over other budgets than issue 37's eight ('' for those).

    Example:
        >>> budgets_note([0.01, 0.05, 0.25, 1.0])
        " Budgets 1%, 5%, 25%, 100% only (--budgets), not the issue's 1%, 2%, 5%, 10%, 25%, 50%, 75%, 100%."
        >>> budgets_note(BUDGETS)
        ''
    """
    if sorted(budgets) == sorted(BUDGETS):
        return ""
    def pct(fs):
        return ", ".join(f"{f:.0%}" for f in sorted(fs))
    return f" Budgets {pct(budgets)} only (--budgets), not the issue's {pct(BUDGETS)}."


def footprint(lg, engine: str, weighted: bool) -> int:
    """Arena bytes ``engine`` holds once built for the out-side, unweighted and (on a weighted
    graph) weighted: the buffers its runs will use under ``lg``'s budget."""
    used = lg.arena.used_bytes
    for use_weights in (False, True) if weighted else (False,):
        lg.side("out", use_weights, engine)
    return int(lg.arena.used_bytes - used)


class Sweep:
    """One graph's sweep: the loaded graph, the checker, the runs, the deadline."""

    def __init__(self, args, log):
        self.args, self.log = args, log
        self.runs: list[dict] = []
        self.phases: dict[str, float] = {}
        self.slow: dict[tuple[str, str], float] = {}  # (engine, algorithm) -> seconds at an earlier budget

    def phase(self, name: str, t0: float) -> None:
        self.phases[name] = round(self.phases.get(name, 0.0) + time.perf_counter() - t0, 3)

    def left(self) -> float:
        return self.args.deadline - time.perf_counter()

    def names(self) -> list[str]:
        a = self.args.algorithms
        return list(a) + (["pagerank-delta"] if "pagerank" in a else [])

    def time_runs(self, lg, engine: str, fraction: float, budget: int | None, extra: dict | None = None,
                  names: list[str] | None = None) -> list[dict]:
        """Every algorithm (or those of ``names``) on ``engine`` under ``lg``'s budget
        (peers_bench.time_ours); runs that fail are recorded with their error, not raised."""
        out = []
        for name in self.names() if names is None else names:
            if self.left() < 0:
                self.log(f"  deadline: {engine} {name} at {fraction:g} skipped")
                out.append({"algorithm": name, "engine": engine, "budget_fraction": fraction,
                            "skipped": "the call's deadline", "verified": False})
                self.runs.append(out[-1])
                continue
            est = self.slow.get((engine, name))
            reps = self.reps_for(engine, name)
            try:
                # the label names the budget in a run record's file name (--records): hybrid-b0.25-sssp.json
                run = pb.time_ours(name, lg, self.source, engine, reps, self.checker, self.pinned_gbps, self.log,
                                   label=f"{engine}-b{fraction:g}")
            except Exception as e:  # noqa: BLE001 - one failing run must not lose the others
                self.log(f"  {engine} {name} at {fraction:g}: FAILED {type(e).__name__}: {e}")
                out.append({"algorithm": name, "engine": engine, "budget_fraction": fraction,
                            "error": f"{type(e).__name__}: {e}", "verified": False})
                self.runs.append(out[-1])
                self.save()
                continue
            run["engine"] = engine  # (time_ours names a run by its label, and every run of the CPU backend "cpu")
            run["budget_fraction"] = fraction
            run["budget_bytes"] = budget
            if reps != self.args.reps:
                run["fewer_calls_because"] = (f"{engine} {name} took {est:.2f} s a call at an earlier budget "
                                              f"(> --slow-s {self.args.slow_s:g}): {reps} call(s) after the first")
            run.update(extra or {})
            self.slow[(engine, name)] = max(run["seconds"], self.slow.get((engine, name), 0.0))
            out.append(run)
            self.runs.append(run)
            self.save()  # after each run: a call cut short keeps what it measured
        return out

    def save(self) -> None:
        self.doc["phase_seconds"] = self.phases
        self.path.write_text(json.dumps(self.doc, indent=1, default=float))

    # ------------------------------------------------------------------ the sweep
    def run(self) -> dict:
        from graphferry.backends import cuda_available
        from graphferry.engines import registry

        args, log = self.args, self.log
        gpu = cuda_available() and not args.cpu_only
        g = self.start(gpu)
        engines = self.doc["engines"]
        self.base = self.load(g, gpu)
        budgets = self.doc["budget_fractions"]
        order = spread_order(budgets) if self.args.order == "spread" else budgets
        # the hybrid first, at every budget (the sweep's subject), with resident and the engines that
        # keep nothing between iterations (once per footprint) interleaved with it, or after it with
        # --no-interleave; unified last; a deadline cuts the later sections first
        stateless = [e for e in engines if e != "resident" and registry.engine_class(e).moves in STATELESS_MOVES]
        separately = stateless   # the stateless engines measured in a section of their own
        if args.interleave and args.hybrid:
            self.interleaved(order, "resident" in engines, stateless, g.weights is not None)
            separately = []      # measured with the hybrid
        else:
            if "resident" in engines:
                self.resident()
            for fraction in order if args.hybrid else []:
                if self.left() < 0:
                    break
                t = time.perf_counter()
                lg, budget = self.handle(fraction)
                self.time_runs(lg, "hybrid", fraction, budget)
                lg.close()
                self.phase("hybrid", t)
        measured: dict[str, list[tuple[int, dict[str, dict]]]] = {e: [] for e in separately}
        for fraction in order if separately else []:
            for engine in separately:
                self.stateless(engine, fraction, measured[engine], g.weights is not None)
            self.save()
        # engines whose runs depend on the budget beyond their buffers (unified): last, spread
        for engine in [e for e in engines if e != "resident" and e not in stateless]:
            self.budget_dependent(engine, order)
        self.base.close()
        self.peers(g, gpu)
        self.save()
        log(f"wrote {self.path}")
        return self.doc

    def start(self, gpu: bool):
        """The graph, the checker, the machine's figures and the results document."""
        from graphferry.backends import get_backend

        args, log = self.args, self.log
        t = time.perf_counter()
        g, info = eb.GRAPH_KINDS[args.graph](args.scale, seed=args.seed, cpu_generator=not gpu, weighted=True)
        self.phase("generate", t)
        name = f"{args.graph}{args.scale}"
        log(f"{name}: n {g.n:,}  m {g.m:,}  built in {time.perf_counter() - t:.1f} s ({info['generator']})")
        self.source = eb.source_vertex(g)
        t = time.perf_counter()
        self.checker = pb.Checker(g, self.source)
        machine = eb.probe(get_backend("cuda")) if gpu else {"device": "none (CPU backend, simulated arena)",
                                                             "host_cores": os.cpu_count()}
        self.phase("probe", t)
        self.pinned_gbps = machine.get("pinned_h2d_gbps", 50.0)
        self.wbytes = int(g.m * 8)
        self.path = Path(args.out) / f"budget-sweep-{name}{('-' + args.tag) if args.tag else ''}.json"
        self.doc = {
            **provenance.stamp({}, args.command_argv),
            "date": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "machine": machine,
            "graph": {"name": name, "n": g.n, "m": g.m, "directed": bool(g.directed),
                      "edge_bytes": int(g.m * g.indices.itemsize), "weighted_edge_bytes": self.wbytes,
                      "source": self.source, **info},
            "budget_fractions": sorted(args.budgets),
            "budget_of": "budget_fraction x weighted_edge_bytes (m x 8: a 4-byte id and a 4-byte weight an edge)",
            "engines": [e for e in sweep_engines() if e in args.engines], "hybrid_runs": ["hybrid"],
            "pagerank_iterations": pb.PR_ITERATIONS, "pagerank_delta_tol": pb.PR_DELTA_TOL,
            "pagerank_delta_state": pb.PR_DELTA_DTYPE,
            "notes": ("seconds: median of the calls after the first on a loaded graph (calls says how many; "
                      "fewer_calls_because where fewer than --reps); first_seconds: the first call under that "
                      "budget. A run with holds_for_budget_fractions stands for those budgets (same by "
                      "construction: the engine keeps nothing between iterations and held the same device "
                      "buffers there); resident runs once at 1.0 and fits from fits_from_budget_fraction. "
                      "Peers: their own timers, one call per process (GAPBS: its trials), horizontal lines."
                      + budgets_note(args.budgets) + (f" {args.note}" if args.note else "")),
            "runs": self.runs,
        }
        Path(args.out).mkdir(parents=True, exist_ok=True)
        return g

    def load(self, g, gpu: bool):
        """The graph loaded once, its host copies made (pinned edges, narrowed weights, packed ids):
        every budget's handle (:meth:`handle`) reads them."""
        import graphferry as gf

        args = self.args
        t = time.perf_counter()
        pbytes = args.partition_bytes or (max(1024, self.wbytes // 64) if args.small else None)
        self.doc["partition_bytes"] = pbytes or "the library's default (32 MiB)"
        self.doc["fuse_edges"] = args.fuse_edges
        base = gf.load(g, backend="cuda" if gpu else "cpu", budget=self.wbytes, partition_bytes=pbytes,
                       fuse_edges=args.fuse_edges)
        for csr in ("out", "in") if g.directed else ("out",):
            base.side_packed(csr)
            w = base.side_weights(csr)
            if args.fuse_edges and w is not None and w.dtype != np.float32:
                base.side_fused(csr)   # what zerocopy's and the hybrid's reads in place read
        self.phase("load_and_host_copies", t)
        self.log(f" loaded, host copies made in {time.perf_counter() - t:.1f} s: {base.placement}")
        return base

    def handle(self, fraction: float):
        """A handle on the loaded graph with ``fraction`` of the weighted edge bytes as its budget."""
        budget = max(1, int(fraction * self.wbytes))
        t = time.perf_counter()
        lg = self.base.with_budget(budget)
        self.phase("with_budget", t)
        return lg, budget

    def resident(self) -> None:
        """resident once, with the whole budget; the budget it fits from, from what it held. Each
        algorithm on a handle of its own: the bytes its side takes (SSSP's weighted side, ids and
        narrowed weights, 0.625 of m x 8; the unweighted side 0.5). One handle for all of them
        said what the last algorithm's side took (0.5 at Kronecker 25), so SSSP's resident run
        counted as fitting at 50%, where it does not."""
        t = time.perf_counter()
        for name in self.names():
            lg, budget = self.handle(1.0)
            runs = self.time_runs(lg, "resident", 1.0, budget, names=[name])
            fits = lg.arena.used_bytes / self.wbytes
            for r in runs:
                # rounded up: a budget of this fraction holds the side (rounding down could say one that does not)
                r["fits_from_budget_fraction"] = math.ceil(fits * 1e4) / 1e4
                r["fits_how"] = ("arena bytes the resident engine held after this algorithm's runs, alone on its "
                                 "handle / weighted edge bytes")
            lg.close()
        self.phase("resident", t)
        self.save()

    def interleaved(self, order: list[float], resident: bool, stateless: list[str], weighted: bool) -> None:
        """The hybrid at every budget, resident (at 1.0, each algorithm on a handle of its own, as
        :meth:`resident`) and the engines that keep nothing between iterations (one handle per
        device footprint, as :meth:`stateless` measures them), every handle open at once and their
        timed calls interleaved (``peers_bench.time_ours_interleaved``): the targets that compare
        these runs (the hybrid at 100% against resident, a larger budget against a smaller, the
        hybrid against the fastest single engine at a budget) then compare calls made in the same
        stretch of time. Each handle runs the algorithms in the sweep's order, as :meth:`time_runs`
        does. A run whose first timed call took over ``--slow-s`` gets ``--slow-reps`` calls; one
        whose warm-up or first timed call took under ``--fast-s``, ``--fast-reps``; one whose calls
        spread wider than ``--spread-iqr``, ``--spread-reps``. Where the deadline passes, the
        algorithms left are skipped."""
        t = time.perf_counter()
        # (engine, fraction, handle, budget, extra): extra holds a stateless engine's footprint and
        # the budgets that share it (the same buffers: the same runs by construction)
        handles = [("hybrid", fraction, *self.handle(fraction), {}) for fraction in order]
        for engine in stateless:
            by_footprint: dict[int, dict] = {}
            for fraction in order:
                lg, budget, held = self.built(engine, fraction, weighted)
                if held in by_footprint or held is None:
                    if held is not None:
                        by_footprint[held]["holds_for_budget_fractions"].append(fraction)
                    lg.close()
                    continue
                by_footprint[held] = {"device_buffer_bytes": held, "holds_for_budget_fractions": [fraction]}
                handles.append((engine, fraction, lg, budget, by_footprint[held]))
        for name in self.names():
            if self.left() < 0:
                self.log(f"  deadline: {name} skipped")
                for engine, fraction, _, _, _ in handles:
                    self.runs.append({"algorithm": name, "engine": engine, "budget_fraction": fraction,
                                      "skipped": "the call's deadline", "verified": False})
                continue
            own = [("resident", 1.0, *self.handle(1.0), {})] if resident else []
            group = handles + own
            entries = [(lg, self.source, engine, self.args.reps, f"{engine}-b{fraction:g}")
                       for engine, fraction, lg, _, _ in group]
            try:
                runs = pb.time_ours_interleaved(name, entries, self.checker, self.pinned_gbps, self.log,
                                                fast=(self.args.fast_s, self.args.fast_reps),
                                                slow=(self.args.slow_s, self.args.slow_reps),
                                                spread=(self.args.spread_iqr, self.args.spread_reps))
            except Exception as e:  # noqa: BLE001 - one failing algorithm must not lose the others
                self.log(f"  {name}: FAILED {type(e).__name__}: {e}")
                self.runs.append({"algorithm": name, "engine": "hybrid", "error": f"{type(e).__name__}: {e}",
                                  "verified": False})
                runs = []
            for run, (engine, fraction, lg, budget, extra) in zip(runs, group):
                run.update({"engine": engine, "budget_fraction": fraction, "budget_bytes": budget,
                            "interleaved_with": len(entries)})
                if extra:
                    run["device_buffer_bytes"] = extra["device_buffer_bytes"]
                    if len(extra["holds_for_budget_fractions"]) > 1:  # (alone: as stateless() writes it)
                        run["holds_for_budget_fractions"] = sorted(extra["holds_for_budget_fractions"])
                if run["calls"] > self.args.reps and "more_calls_because" not in run:
                    run["more_calls_because"] = (f"its first call or first timed call took under --fast-s {self.args.fast_s:g} s: "
                                                 f"{run['calls']} calls after it (--fast-reps)")
                elif run["calls"] < self.args.reps:
                    run["fewer_calls_because"] = (f"its first timed call took over --slow-s {self.args.slow_s:g} s: "
                                                  f"{run['calls']} call(s) after the first")
                if engine == "resident":
                    fits = lg.arena.used_bytes / self.wbytes
                    run["fits_from_budget_fraction"] = math.ceil(fits * 1e4) / 1e4
                    run["fits_how"] = ("arena bytes the resident engine held after this algorithm's runs, alone "
                                       "on its handle / weighted edge bytes")
                self.slow[(engine, name)] = max(run["seconds"], self.slow.get((engine, name), 0.0))
                self.runs.append(run)
            for _, _, lg, _, _ in own:
                lg.close()
            self.save()
        for _, _, lg, _, _ in handles:
            lg.close()
        self.phase("interleaved", t)

    def reps_for(self, engine: str, name: str) -> int:
        """``--reps``, or ``--slow-reps`` where this engine and algorithm took longer than ``--slow-s``."""
        est = self.slow.get((engine, name))
        return self.args.slow_reps if est is not None and est > self.args.slow_s else self.args.reps

    def stateless(self, engine: str, fraction: float, measured: list, weighted: bool) -> None:
        """``engine`` at ``fraction``, unless it holds there the device buffers it held at a budget
        measured already (then that measurement stands for this budget too)."""
        if self.left() < 0:
            self.runs.append({"algorithm": "*", "engine": engine, "budget_fraction": fraction,
                              "skipped": "the call's deadline", "verified": False})
            return
        t = time.perf_counter()
        lg, budget, held = self.built(engine, fraction, weighted)
        same = next((m for h, m in measured if h == held), None) if held is not None else None
        if same:
            for r in same.values():
                held_for = r.setdefault("holds_for_budget_fractions", [r["budget_fraction"]])
                held_for.append(fraction)
                held_for.sort()
            self.log(f"  {engine} at {fraction:g}: same buffers ({held} B) as at "
                     f"{next(iter(same.values()))['budget_fraction']:g}: same runs by construction, not measured")
        elif held is not None:
            runs = self.time_runs(lg, engine, fraction, budget, {"device_buffer_bytes": held})
            done = {r["algorithm"]: r for r in runs if "seconds" in r}
            if done:
                measured.append((held, done))
        lg.close()
        self.phase(engine, t)

    def built(self, engine: str, fraction: float, weighted: bool):
        """``(handle, budget, footprint)``: a handle at ``fraction`` with ``engine`` built on it, and the
        arena bytes it holds; footprint None (the skip recorded) where no buffer fits the budget."""
        lg, budget = self.handle(fraction)
        try:
            return lg, budget, footprint(lg, engine, weighted)
        except Exception as e:  # noqa: BLE001 - e.g. no buffer fits this budget
            self.log(f"  {engine} at {fraction:g}: cannot build ({type(e).__name__}: {e})")
            self.runs.append({"algorithm": "*", "engine": engine, "budget_fraction": fraction,
                              "skipped": f"no buffer fits the budget: {type(e).__name__}: {e}", "verified": False})
            return lg, budget, None

    def budget_dependent(self, engine: str, order: list[float]) -> None:
        """``engine`` at every budget, in ``order``, until the deadline."""
        for fraction in order:
            if self.left() < 0:
                self.log(f"  deadline: {engine} at {fraction:g} and after skipped")
                break
            t = time.perf_counter()
            lg, budget = self.handle(fraction)
            self.time_runs(lg, engine, fraction, budget)
            lg.close()
            self.phase(engine, t)

    # ------------------------------------------------------------------ peers
    def peers(self, g, gpu: bool) -> None:
        args, log = self.args, self.log
        work = Path(args.work) / self.doc["graph"]["name"]

        def keep(run):
            run.setdefault("budget_fraction", None)
            run["line"] = "horizontal: a peer's time, whatever graphferry's budget"
            self.runs.append(run)
            self.save()

        def in_time():
            return time.perf_counter() < args.peers_deadline - 10

        t = time.perf_counter()
        pb.PEER_ALGORITHMS = set(args.peer_algorithms) if args.peer_algorithms else None
        # GAPBS's pr runs to its tolerance (-t 1e-4) under peers_bench's cap of rounds, not --pr-iterations:
        # capped at 5 it stopped short of the tolerance at Kronecker 9 and its verifier failed
        pb.PR_ITERATIONS = PEER_PR_ITERATIONS
        if gpu and args.emogi_bin and Path(args.emogi_bin).is_dir() and in_time():
            work.mkdir(parents=True, exist_ok=True)
            bel = pb.write_emogi(g, work / "graph")
            pb.emogi_runs(Path(args.emogi_bin), bel, self.source, g.weights is not None, self.checker,
                          args.peer_timeout, log, on_run=keep, deadline=args.peers_deadline)
            for f in work.glob("graph.bel*"):
                f.unlink()
        if args.gapbs_bin and Path(args.gapbs_bin).is_dir() and in_time():
            work.mkdir(parents=True, exist_ok=True)
            files = pb.write_gapbs(g, work / "graph")
            pb.gapbs_runs(Path(args.gapbs_bin), files, self.source, args.peer_trials, {}, args.peer_timeout, log,
                          verify_once=True, on_run=keep, deadline=args.peers_deadline)
            for f in files.values():
                f.unlink()
        if gpu and args.hytgraph_bin and Path(args.hytgraph_bin).is_dir() and in_time():
            work.mkdir(parents=True, exist_ok=True)
            gr = pb.write_galois_gr(g, work / "graph")
            pb.hytgraph_runs(Path(args.hytgraph_bin), gr, self.source, g.n, self.checker, args.peer_timeout, log,
                             on_run=keep, fmt="gr", deadline=args.peers_deadline)
        shutil.rmtree(work, ignore_errors=True)
        self.phase("peers", t)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--graph", choices=sorted(eb.GRAPH_KINDS), default="kron")
    ap.add_argument("--scale", type=int, default=25)
    ap.add_argument("--small", action="store_true",
                    help="a check of the whole script here: the CPU backend (simulated arena), scale 10, 2 calls")
    ap.add_argument("--partition-bytes", type=int, default=None,
                    help="partition size (default: the library's 32 MiB; --small: 1/64 of the weighted edge bytes, "
                         "so that every budget holds some partitions and each engine path runs)")
    ap.add_argument("--budgets", type=float, nargs="+", default=BUDGETS)
    ap.add_argument("--algorithms", nargs="+", default=ALGORITHMS, choices=ALGORITHMS)
    ap.add_argument("--engines", nargs="+", default=None, help="single engines (default: sweep_engines())")
    ap.add_argument("--no-hybrid", dest="hybrid", action="store_false")
    ap.add_argument("--reps", type=int, default=3, help="calls after the first, their median is seconds")
    ap.add_argument("--slow-s", type=float, default=2.0,
                    help="a run whose engine and algorithm took longer than this at an earlier budget ...")
    ap.add_argument("--slow-reps", type=int, default=1, help="... gets this many calls after the first")
    ap.add_argument("--no-interleave", dest="interleave", action="store_false",
                    help="time the hybrid one budget after another and resident before it, each handle's calls "
                         "together (default: every budget's handle and resident's open at once, their calls "
                         "interleaved, so that runs compared with each other share the host's state)")
    ap.add_argument("--fast-s", type=float, default=0.05,
                    help="interleaved runs whose first call took less than this get --fast-reps calls after it")
    ap.add_argument("--fast-reps", type=int, default=9,
                    help="... at least this many: a run of a few milliseconds varies by 10%% from call to call")
    ap.add_argument("--spread-iqr", type=float, default=0.1,
                    help="a run whose calls' interquartile range exceeds this share of their median ...")
    ap.add_argument("--spread-reps", type=int, default=25, help="... gets this many calls (interleaved runs)")
    ap.add_argument("--order", choices=["spread", "ascending"], default="spread",
                    help="the budgets' order: spread (100%%, 1%%, then the middles of the largest gaps: a call cut "
                         "by its deadline keeps a sweep) or ascending")
    ap.add_argument("--pr-iterations", type=int, default=10, help="PageRank (LDBC form) rounds: its time per round")
    ap.add_argument("--delta-tol", type=float, default=pb.PR_DELTA_TOL)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default="bench/results")
    ap.add_argument("--tag", default="")
    ap.add_argument("--note", default="", help="a sentence added to the file's notes (why this call ran as it did)")
    ap.add_argument("--no-fuse-edges", dest="fuse_edges", action="store_false",
                    help="reads in place read ids and weights as two arrays (gf.load(fuse_edges=False)), not fused")
    ap.add_argument("--cpu-only", action="store_true")
    ap.add_argument("--deadline-s", type=float, default=1e9, help="start no graphferry run after this")
    ap.add_argument("--peers-deadline-s", type=float, default=1e9, help="start no peer after this, end none later")
    ap.add_argument("--work", default="/dev/shm/gf-sweep" if os.path.isdir("/dev/shm") else "/tmp/gf-sweep")
    ap.add_argument("--gapbs-bin", default=None, help="GAPBS's bfs, sssp, pr, cc (run with -v)")
    ap.add_argument("--emogi-bin", default=None, help="EMOGI's emogi_{bfs,sssp,pagerank,cc}_32")
    ap.add_argument("--hytgraph-bin", default=None, help="HyTGraph's hybrid_{bfs,sssp,pr,cc} (its .gr input)")
    ap.add_argument("--records", default=None,
                    help="write each run's run record here (ENGINE-bBUDGET-ALGORITHM.json, e.g. "
                         "hybrid-b0.25-sssp.json: graphferry plot draws one)")
    ap.add_argument("--peer-algorithms", nargs="+", default=None, choices=ALGORITHMS)
    ap.add_argument("--peer-trials", type=int, default=3)
    ap.add_argument("--peer-timeout", type=float, default=120)
    args = ap.parse_args(argv)
    args.command_argv = None if argv is None else ["bench/budget_sweep.py", *argv]
    if args.small:
        args.cpu_only = True
        args.scale = min(args.scale, 10)
        args.reps = min(args.reps, 2)
        args.fast_reps = min(args.fast_reps, args.reps)
        args.spread_reps = min(args.spread_reps, args.reps)
    if args.engines is None:
        args.engines = sweep_engines()
    pb.PR_ITERATIONS = args.pr_iterations
    if args.records:
        pb.RECORDS = Path(args.records)
        pb.RECORDS.mkdir(parents=True, exist_ok=True)
    pb.PR_DELTA_TOL = args.delta_tol
    started = time.perf_counter()
    args.deadline = started + args.deadline_s
    args.peers_deadline = started + args.peers_deadline_s

    def log(msg):
        print(f"[{time.perf_counter() - started:6.1f} s] {msg}", flush=True)

    doc = Sweep(args, log).run()
    print(report(doc), flush=True)
    return 0


def report(doc) -> str:
    """A markdown table: algorithm x engine rows, one column a budget; ms (per iteration for PageRank)."""
    fractions = doc["budget_fractions"]
    cells: dict[tuple[str, str], dict[float, str]] = {}
    from graphferry.sweep_plot import sweep_points

    for r in sweep_points(doc["runs"]):
        if r.get("budget_fraction") is None:
            continue
        per_it = r["algorithm"].startswith("pagerank")
        ms = (r.get("seconds_per_iteration") if per_it else r["seconds"]) * 1e3
        key = (r["algorithm"], r["engine"])
        cells.setdefault(key, {})[r["budget_fraction"]] = f"{ms:.1f}" + ("" if r.get("verified") else "?")
    lines = ["| algorithm | engine | " + " | ".join(f"{f:.0%}" for f in fractions) + " |",
             "|---|---|" + "---|" * len(fractions)]
    for (alg, eng), row in sorted(cells.items()):
        lines.append(f"| {alg} | {eng} | " + " | ".join(row.get(f, "") for f in fractions) + " |")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
