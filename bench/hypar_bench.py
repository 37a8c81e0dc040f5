"""HyPar (divide and conquer across executors) against one executor alone, the BSP baseline and GAPBS/networkit.

For each graph (Kronecker ``--scales``, and every ``.el`` file of ``--datasets``,
taken as its undirected simple view) and each application (components,
triangles, coloring, communities, mst): HyPar over the ``--executors`` as the
library runs it (``hypar``: the planner splits when the sampled rates predict the
split faster than the best executor alone, else runs that executor alone; each
run records ``plan``: what ran, why, the predicted seconds), the paper's HyPar
that always splits (``split``; ``--no-split`` leaves it out), each executor alone
(``only:X``: CPU-only, GPU-only, the same code with one executor), and the BSP
baseline over the same executors and blocks (every executor computes one
superstep, a round of the algorithm's outer loop, on its block, then the state
is exchanged; ``levels`` is then the number of supersteps). ``--budgeted SPEC``
repeats the plans with the main set's last executor replaced by SPEC, e.g.
``cuda:budget=0.25``: a GPU whose device budget is a quarter of each graph's edge
bytes, so every graph is larger than the GPU budget (runs ``hypar@SPEC``,
``split@SPEC``, ``bsp@SPEC``, ``only:SPEC``).

HyPar's calibration (three sampled subgraphs run alone on every executor and split
over them, :func:`graphferry.hypar.calibrate`) is made by the first call
of an application on a graph size and kept for the process (the paper measures its
ratio once): the warm-up call pays it (``first_seconds``, ``calibration_seconds``
of every HyPar and BSP run); on a graph run without warm-up, the timed call does.

Beside them, on all host cores (``--threads``), when given: GAPBS ``cc`` and
``tc`` (``--gapbs-bin``; ``-a``, so they print their component count and
triangle total) and networkit's ``PLP`` (communities). Every answer is checked in
the same run: components against scipy; triangle totals against scipy up to
``--scipy-max-arcs``, else GAPBS's total, else the library's ``triangle_count`` on
the CPU backend (not through HyPar); spanning-forest weight against scipy up to
``--scipy-mst-max-arcs``, else the library's ``mst`` on the CPU backend; colourings
for properness; communities' reported modularity against a numpy formula here.
Medians of ``--repeat`` runs after one warm-up (none on graphs above
``--no-warmup-above`` arcs: their runs say ``warm_up: false``). A HyPar run warms up
again until a call is not one of the planner's trial runs (a plan not yet run at the
graph's size, tried once; at most three more calls): the timed calls then see the plan it
settled on. The further warm-up calls' seconds are kept (``trial_seconds``; the last is the
settled plan's). A graphferry run (hypar, split, only:X, bsp) whose first timed call takes less
than ``SHORT_CALL_SECONDS`` is timed as ``timeit.Timer.autorange`` does: each of the ``--repeat``
samples loops the call until it lasts about ``SAMPLE_SECONDS``, and ``seconds`` is the median of the
samples' seconds a call (``calls_per_sample`` calls each; ``all_seconds``: every sample's seconds a
call); a sample in which the planner tried a plan is run again (``samples_redone``; so is a
longer run's one-call sample, since the planner may run a rival again after the warm-up). Longer runs
keep one call a sample (``calls_per_sample: 1``), as before. Peers keep their own timing. Results
in the BENCH_RESULTS.md
format, every run tagged with its ``graph``. Per graph and application a summary
line gives HyPar (and the always-split HyPar) against the best single executor and
against BSP; at the end, per application, the geometric means over the graphs (in
the file too, ``geomeans``).

``--deadline-s`` skips what is left (noted in the file, ``skipped``) once fewer than
``--margin-s`` seconds remain, and skips a plan whose time on an earlier graph of at
least a million arcs, scaled by arcs, would run past the deadline: list the graphs
smallest first. The results file is rewritten after every run.

Executor specs: ``cpu``, ``cuda``, ``cpu:sim`` (a CPU executor with a small
simulated device arena, the ``compaction`` engine and a 64 MiB budget: how CI
plays "two devices" without a GPU), and ``BACKEND:budget=F[:engine=E][:partition=P]``:
a budget of F times the graph's edge bytes (engine ``hybrid`` unless named;
partitions of P times the budget, default the engine's).

Here (2 shared cores, no GPU), about 5.5 minutes with a load of 6 from other jobs (BSP's
runs took 186 s of the 240 s timed):

    python bench/hypar_bench.py --scales 16 17 18 --executors cpu cpu:sim --threads 1 --repeat 1 \
        --gapbs-bin GAPBS_BIN --out /tmp/h.json

On the device (16 cores, one GPU), with a warm-up on every graph, so that the programs are
compiled and HyPar's calibration made before the timed call (``--no-warmup-above`` would put
both into it), and the deadline cutting what does not fit:

    python bench/hypar_bench.py --datasets DATASETS --scales 20 22 --executors cpu cuda \
        --budgeted cuda:budget=0.25 --budgeted-on wormnet_v3 metis_4elt kron20 --threads 16 --repeat 1 \
        --gapbs-bin GAPBS_BIN --deadline-s 540 --out bench/results/hypar-h200.json

The earlier estimate for kron18 (the GPU executor taken no faster than 16 cores): the timed
calls split components 4%, triangles 23%, coloring 3%, communities 19% (BSP's 100 PLP
supersteps 15%), mst 51%; BSP's supersteps dominate the time of every application but
triangles. Kronecker 22-25 with every plan needs several device calls, one or more per scale
(``--apps``, ``--no-split`` and ``--no-bsp`` narrow a call).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import math
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
import provenance  # noqa: E402  (commit, dirty, diff hash, command: issue 35)
sys.path.insert(0, str(Path(__file__).resolve().parent))
from algorithms_bench import Deadline, gapbs, gapbs_count, modularity, to_networkit  # noqa: E402
from peers_bench import write_gapbs  # noqa: E402  (GAPBS's .sg writer)

APPS = ("components", "triangles", "coloring", "communities", "mst")
#: the results' labels (kept, so that files compare across sessions) -> the application's name in graphferry.hypar
APPLICATION = {"components": "wcc", "triangles": "triangle_count"}
PHASES = ("prepare", "partition", "independent_wall", "merge", "post_process", "finish")   # HyPar's, in each run
#: --deadline-s: a plan is skipped when its time on an earlier graph of at least this many arcs,
#: scaled by arcs, would run past the deadline
ESTIMATE_FROM_ARCS = 1_000_000
MAX_TRIALS = 3       # warm-up calls after the first while the planner is trying plans (hypar runs)
#: a graphferry run whose first timed call takes less than this is timed in loops (as timeit's
#: autorange): the datasets' calls take 0.05-5 ms, where one call's seconds are mostly the timer's
#: and the host's noise (a preemption, a first call's faults), and the median of three single calls
#: swung the geometric means of best single / HyPar between 0.5 and 1.2 from one run to the next on
#: the same code. Longer calls (Kronecker 22 and up: 30 ms to 9 s) keep one call a sample, so that
#: their results stay comparable with the files recorded before.
SHORT_CALL_SECONDS = 0.02
SAMPLE_SECONDS = 0.2          # a looped sample lasts at least about this long (timeit's autorange: 0.2 s)
MAX_CALLS_PER_SAMPLE = 1_000_000   # a bound on the loop, should a call take no measurable time


class ExecutorSpec:
    """``BACKEND[:sim | :budget=F[:engine=E][:partition=P]]``; :meth:`build` makes the executor for one graph."""

    def __init__(self, text: str):
        self.text = text
        backend, *rest = text.split(":")
        if backend not in ("cpu", "cuda"):
            raise SystemExit(f"hypar_bench: executor {text!r}: backend must be cpu or cuda")
        self.backend, self.sim = backend, rest == ["sim"]
        self.budget = self.partition = None
        self.engine = "auto"
        for item in ([] if self.sim else rest):
            key, _, value = item.partition("=")
            try:
                if key == "budget":
                    self.budget, self.engine = float(value), "hybrid" if self.engine == "auto" else self.engine
                elif key == "engine":
                    self.engine = value
                elif key == "partition":
                    self.partition = float(value)
                else:
                    raise ValueError(key)
            except ValueError:
                raise SystemExit(f"hypar_bench: executor {text!r}: expected sim, budget=F, engine=E or "
                                 f"partition=P after the backend, got {item!r}") from None
            if self.budget is not None and not 0 < self.budget:
                raise SystemExit(f"hypar_bench: executor {text!r}: budget must be a positive fraction")

    def build(self, graph):
        from graphferry.hypar import HyparExecutor as Executor

        if self.sim:
            return Executor(self.backend, engine="compaction", budget=64 << 20, partition_bytes=1 << 20, name=self.text)
        if self.budget is None:
            return Executor(self.backend, engine=self.engine, name=self.text)
        # the executor's budget bounds its block in HyPar's split (weighted graphs: 8 bytes an edge)
        budget = max(4096, int(self.budget * graph.edge_bytes))
        part = None if self.partition is None else max(1024, int(self.partition * budget))
        return Executor(self.backend, engine=self.engine, budget=budget, partition_bytes=part, name=self.text)


def plans_for(sets: list[tuple[str, list[ExecutorSpec]]],
              split: bool = True, bsp: bool = True) -> list[tuple[str, str, list[ExecutorSpec], bool]]:
    """(label, kind, executors, budgeted) for every set: hypar (the planner's choice), split (always split,
    with ``split``), each executor alone (once over all sets), bsp (with ``bsp``); ``budgeted``: the plan
    belongs to a --budgeted set only."""
    out, alone = [], set()
    for tag, specs in sets:
        out.append((f"hypar{tag}", "hypar", specs, bool(tag)))
        if split and len(specs) > 1:
            out.append((f"split{tag}", "split", specs, bool(tag)))
        for s in specs:
            if s.text not in alone:
                alone.add(s.text)
                out.append((f"only:{s.text}", "hypar", [s], bool(tag)))
        if bsp and len(specs) > 1:
            out.append((f"bsp{tag}", "bsp", specs, bool(tag)))
    return out


def kronecker(scale: int):
    from graphferry.generators import kronecker_graph
    from graphferry.transforms import simple_graph

    return simple_graph(kronecker_graph(scale, seed=1), undirected=True)


def dataset(path: Path):
    """A shared ``.el`` file (``# name | directed/undirected | n=N | source``, then ``u v [w]``), as its
    undirected simple view."""
    from graphferry import Graph
    from graphferry.transforms import simple_graph

    header = path.open().readline()
    e = np.loadtxt(path, comments="#", ndmin=2)
    n = int(header.split("n=")[1].split()[0].strip("|")) if "n=" in header else int(e[:, :2].max()) + 1
    g = Graph.from_edges(e[:, 0].astype(np.int64), e[:, 1].astype(np.int64), n=n,
                         directed="| directed" in header)
    return simple_graph(g, undirected=True)


def geomean(xs):
    xs = [x for x in xs if x and x > 0 and math.isfinite(x)]
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else None


class Timing(NamedTuple):
    """What :func:`time_runs` measured of one run."""

    seconds: float            # the median over the samples of their seconds a call
    result: object            # the last timed call's result
    first: float              # the first call's seconds (the warm-up's, else the first timed call's)
    first_result: object      # and its result
    trials: list              # the seconds of each further warm-up call (the planner's trials; the last settled)
    calls_per_sample: int     # 1: each sample is one call (as before); more: a looped sample (autorange)
    all_seconds: list         # each sample's seconds a call
    samples_redone: int       # samples (a call, or a loop of calls) run again because a call was a planner trial


def calls_for(seconds_a_call: float) -> int:
    """Calls a looped sample makes so that it lasts at least about :data:`SAMPLE_SECONDS`."""
    return max(1, min(MAX_CALLS_PER_SAMPLE, math.ceil(SAMPLE_SECONDS / max(seconds_a_call, 1e-9))))


def warm_up(call, trial, clock) -> tuple[float, object, list[float]]:
    """The warm-up: ``(seconds of the first call, its result, seconds of the planner's trials after it)``.

    The first call plans from predictions; the planner may try a plan on any later one, so the
    warm-up goes on until a call after the first is not a trial (at most MAX_TRIALS more calls)."""
    trials: list[float] = []
    t = clock()
    first_result = call()
    first = clock() - t
    while trial is not None and len(trials) < MAX_TRIALS:
        t = clock()
        last = call()
        trials.append(clock() - t)
        if not trial(last):
            break
    return first, first_result, trials


def time_runs(call, repeat: int, big: bool = False, trial=None, loop: bool = True,
              clock=time.perf_counter) -> Timing:
    """Time ``call``: the median of ``repeat`` samples, after a warm-up call unless ``big``.

    ``trial(result)``: whether that call was one of the planner's trial runs; given it, the warm-up
    goes on after the first call until a call is not a trial (at most MAX_TRIALS more calls), so that
    the timed calls see the plan the planner settled on, as FFTW's plans are made before they are timed.

    The first timed call decides how the samples are taken. At least :data:`SHORT_CALL_SECONDS`
    (or ``loop`` false): it is the first sample, and each of the others is one call too, as this
    bench has always timed. Shorter (with ``loop``): as ``timeit.Timer.autorange``, it and a sizing
    loop (a quarter of a sample, not kept) find how many calls make a sample last about
    :data:`SAMPLE_SECONDS`; each sample then loops that many calls and counts its seconds over
    them. Every call of a loop is passed to ``trial`` (every engine's loop does the same
    bookkeeping), and a loop in which the planner tried a plan is run again (at most MAX_TRIALS
    loops in all), so that no sample includes a trial.
    """
    first, first_result, trials = (None, None, []) if big else warm_up(call, trial, clock)
    redone = 0

    def one_call():
        """One timed call: again if it was a planner trial (the planner may still run a rival again
        after the warm-up's untried call; at most MAX_TRIALS calls again in all)."""
        nonlocal redone
        while True:
            t = clock()
            r = call()
            took = clock() - t
            if trial is None or not trial(r) or redone >= MAX_TRIALS:
                return took, r
            redone += 1

    once, result = one_call()
    if first is None:
        first, first_result = once, result
    if not loop or once >= SHORT_CALL_SECONDS:            # one call a sample, exactly as before
        times, results = [once], [result]
        for _ in range(repeat - 1):
            took, r = one_call()
            results.append(r)
            times.append(took)
        return Timing(statistics.median(times), results[-1], first, first_result, trials, 1, times, redone)

    is_trial = trial if trial is not None else (lambda _: False)

    def sample(calls):
        """Seconds a call over a loop of ``calls`` calls, the last result, whether a call was a trial."""
        tried = False
        t = clock()
        for _ in range(calls):
            r = call()
            tried = is_trial(r) or tried
        return (clock() - t) / calls, r, tried

    # sizing: a loop of about a quarter of a sample (the probe call may have been slowed by the host)
    per, _, tried = sample(max(1, calls_for(once) // 4))
    while tried and redone < MAX_TRIALS:
        redone += 1
        per, _, tried = sample(max(1, calls_for(per) // 4))
    calls = calls_for(per)
    times, results = [], []
    while len(times) < max(repeat, 1):
        per, r, tried = sample(calls)
        if tried and redone < MAX_TRIALS:
            redone += 1
            continue
        times.append(per)
        results.append(r)
    return Timing(statistics.median(times), results[-1], first, first_result, trials, calls, times, redone)


def parse_args() -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", type=int, default=None, help="one Kronecker scale (as --scales S)")
    ap.add_argument("--scales", type=int, nargs="*", default=None, help="Kronecker scales, in this order (default 14)")
    ap.add_argument("--datasets", default=None, help="a directory of .el graphs (../shared/datasets), run first")
    ap.add_argument("--executors", nargs="+", default=["cpu", "cpu:sim"])
    ap.add_argument("--budgeted", nargs="*", default=[],
                    help="specs that replace the last executor in a second set each, e.g. cuda:budget=0.25")
    ap.add_argument("--budgeted-on", nargs="*", default=None, metavar="GRAPH",
                    help="run the --budgeted sets only on these graphs (kron20, metis_4elt, ...); default every graph")
    ap.add_argument("--apps", nargs="+", default=list(APPS), choices=APPS)
    ap.add_argument("--no-split", action="store_true", help="leave out the always-split HyPar (split)")
    ap.add_argument("--no-bsp", action="store_true", help="leave out the BSP baseline (bsp)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--no-warmup-above", type=int, default=None, metavar="ARCS",
                    help="no warm-up call on graphs of more arcs (the programs were compiled on the smaller "
                         "graphs run before: list those first); default: always warm up")
    ap.add_argument("--threshold-edges", type=int, default=0)
    ap.add_argument("--threads", type=int, default=None,
                    help="OpenMP threads for graphferry, GAPBS and networkit (default: OMP_NUM_THREADS or all cores)")
    ap.add_argument("--gapbs-bin", default=None, help="directory with GAPBS's cc and tc (skipped when absent)")
    ap.add_argument("--scipy-max-arcs", type=int, default=20_000_000,
                    help="scipy's triangle and spanning-forest references up to this many arcs")
    ap.add_argument("--scipy-mst-max-arcs", type=int, default=150_000_000,
                    help="scipy's spanning-forest reference up to this many arcs (kron22: about 10 s, one thread)")
    ap.add_argument("--deadline-s", type=float, default=None,
                    help="skip what is left (noted in the file) once fewer than --margin-s seconds remain")
    ap.add_argument("--margin-s", type=float, default=15.0)
    ap.add_argument("--dry-run", action="store_true", help="list graphs, plans and peers, run nothing")
    ap.add_argument("--out", default=None)
    return ap.parse_args()


class HyparBench:
    """One run's state: arguments, threads, deadline, executor sets and plans, peers, and the graphs and
    runs recorded so far (the results file is rewritten after each run)."""

    def __init__(self, args):
        self.args = args
        self.threads = args.threads or int(os.environ.get("OMP_NUM_THREADS", 0)) or os.cpu_count()
        os.environ["OMP_NUM_THREADS"] = str(self.threads)
        self.clock = Deadline(args.deadline_s, args.margin_s)
        main_set = [ExecutorSpec(e) for e in args.executors]
        self.sets = [("", main_set)] + [(f"@{b}", main_set[:-1] + [ExecutorSpec(b)]) for b in args.budgeted]
        self.plans = plans_for(self.sets, split=not args.no_split, bsp=not args.no_bsp)
        self.notes: list[str] = []
        if any(s.backend == "cuda" for _, specs in self.sets for s in specs):
            from graphferry.backends import cuda_available

            if not cuda_available():
                self.notes.append("backend cuda: no GPU or no CuPy here: plans with a cuda executor are skipped")
                if not args.dry_run:
                    self.plans = [p for p in self.plans if all(s.backend != "cuda" for s in p[2])]
        try:
            import networkit as nk
            nk.setNumberOfThreads(self.threads)
        except ImportError:
            nk = None
            self.notes.append("networkit: skipped (not installed)")
        self.nk = nk
        self.bindir = Path(args.gapbs_bin) if args.gapbs_bin else None
        self.missing = [b for b in ("cc", "tc") if self.bindir is None or not (self.bindir / b).exists()]
        if self.missing:
            self.notes.append(f"GAPBS {', '.join(self.missing)}: skipped "
                              f"({'no --gapbs-bin' if self.bindir is None else 'absent'})")
        self.runs: list[dict] = []
        self.graphs: list[dict] = []
        self.doc: dict = {}

    @property
    def on_gpu(self) -> bool:
        return any(s.backend == "cuda" for _, _, specs, _ in self.plans for s in specs)

    def sources(self) -> list[tuple[str, object]]:
        """The graphs, ``(name, build)``: the datasets' first, then the Kronecker scales."""
        args = self.args
        scales = args.scales if args.scales is not None else ([args.scale] if args.scale is not None else [14])
        if args.scales is None and args.scale is None and args.datasets:
            scales = []
        sources = []
        if args.datasets:
            files = sorted(Path(args.datasets).glob("*.el"))
            if not files:
                raise SystemExit(f"hypar_bench: --datasets {args.datasets}: no .el files there")
            sources += [(f.stem, lambda f=f: dataset(f)) for f in files]
        return sources + [(f"kron{s}", lambda s=s: kronecker(s)) for s in scales]

    def start_doc(self) -> None:
        machine = {"device": "cpu only", "host_cores": os.cpu_count(), "omp_num_threads": self.threads,
                   "executors": list(dict.fromkeys(s.text for _, specs in self.sets for s in specs))}
        if self.on_gpu:
            import cupy as cp

            from graphferry.backends import get_backend

            machine.update(device=get_backend("cuda").device_description(), cupy=cp.__version__,
                           cuda_runtime=cp.cuda.runtime.runtimeGetVersion(),
                           driver=cp.cuda.runtime.driverGetVersion())
        self.doc = {**provenance.stamp({}),
                    "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"), "machine": machine,
                    "notes": RESULTS_NOTE + ("" if self.on_gpu else RESULTS_NOTE_NO_GPU)}

    def save(self):
        if self.args.out:
            largest = max(self.graphs, key=lambda g: g["m"]) if self.graphs else None
            self.doc.update(graph=largest, graphs=self.graphs, budget_bytes=None, runs=self.runs,
                            skipped=self.clock.skipped, notes_skipped=self.notes)
            Path(self.args.out).parent.mkdir(parents=True, exist_ok=True)
            Path(self.args.out).write_text(json.dumps(self.doc, indent=1, default=float))

    def timed(self, call, big=False, trial=None, loop=True):
        """:func:`time_runs` with ``--repeat`` samples."""
        return time_runs(call, self.args.repeat, big, trial, loop)

    def expect(self, app, label, m, cold):
        """Seconds this plan should take, from the largest graph of at least ESTIMATE_FROM_ARCS arcs run
        before, scaled by arcs (0: no such graph; small graphs' times are overheads, not work)."""
        before = [r for r in self.runs if r["algorithm"] == app and r["engine"] == label
                  and r["m"] >= ESTIMATE_FROM_ARCS]
        if not before:
            return 0.0
        r = max(before, key=lambda r: r["m"])
        per = r["seconds"] * m / r["m"]
        if per < SHORT_CALL_SECONDS:       # looped samples: a sizing loop and --repeat samples of about SAMPLE_SECONDS
            return (self.args.repeat + 1) * SAMPLE_SECONDS + per * (0 if cold else 2)
        return per * (self.args.repeat + (0 if cold else 1))


#: the results file's note on what its seconds are
RESULTS_NOTE = ("seconds are whole calls, HyPar's merges and BSP's exchanges included; HyPar's calibration "
                "(sampled runs on every executor) is made by the first call on a graph size and kept, so "
                "warmed-up runs exclude it (first_seconds and calibration_seconds say what it cost); hypar is "
                "the planner's choice (plan: what ran and why), split the paper's always-split HyPar; a budgeted "
                "executor's budget is its fraction of each graph's edge bytes (budget_bytes per run); a graphferry "
                f"run whose first timed call took under {SHORT_CALL_SECONDS:g} s is timed in samples of "
                f"calls_per_sample calls lasting about {SAMPLE_SECONDS:g} s each (seconds: the median of the "
                "samples' seconds a call, all_seconds: each sample's), longer runs one call a sample")
RESULTS_NOTE_NO_GPU = ("; no GPU: the CPU backend plays both sides (cpu:sim reads its edges through a simulated "
                       "device arena), so the figures compare schedules, not devices")


class GraphCase:
    """One benchmark graph: it, its weighted symmetric view (mst's input), GAPBS's copy, and the
    reference answers found so far."""

    def __init__(self, b: HyparBench, name: str, build, tmp: Path):
        from graphferry import Graph
        from graphferry.transforms import symmetrize

        t = time.perf_counter()
        self.b, self.name = b, name
        g = self.g = build()
        self.src, self.dst = g.edges()
        keep = self.src < self.dst
        w = np.random.default_rng(0).integers(1, 1000, int(keep.sum())).astype(np.float32)
        # the symmetric weighted view every plan's mst reads, built here (cached on the graph): else the
        # first plan timed (HyPar's, when cold) would pay for it alone (2.6 s at kron18)
        self.weighted = symmetrize(Graph.from_edges(self.src[keep], self.dst[keep], w, n=g.n, directed=False))
        self.cold = b.args.no_warmup_above is not None and g.m > b.args.no_warmup_above
        self.info = {"name": name, "n": g.n, "m": g.m, "directed": False, "edge_bytes": g.edge_bytes,
                     "build_seconds": round(time.perf_counter() - t, 2), "warm_up": not self.cold}
        print(f"graph {name}: n={g.n} arcs={g.m} ({self.info['build_seconds']} s)", flush=True)
        self.sg = write_gapbs(g, tmp / name)[".sg"] if len(b.missing) < 2 else None
        self.refs: dict[str, tuple] = {}   # app -> (wanted value, how)

    def reference(self, app):
        """The wanted answer (components, triangle total, forest weight) and how it was found."""
        import scipy.sparse as sp
        from scipy.sparse.csgraph import connected_components, minimum_spanning_tree

        from graphferry.algorithms import registry

        if app in self.refs:
            return self.refs[app]
        g, args = self.g, self.b.args
        want = how = None
        if app == "components":
            want, how = connected_components(g.to_scipy(), directed=False)[0], "scipy connected_components"
        elif app == "triangles" and g.m <= args.scipy_max_arcs:
            u = sp.triu(g.to_scipy(), 1).tocsr().astype(np.int64)
            want, how = int((u @ u).multiply(u).sum()), "scipy (U @ U) .* U"
        elif app == "mst" and g.m <= args.scipy_mst_max_arcs:
            want = float(minimum_spanning_tree(sp.triu(self.weighted.to_scipy(), 1)).sum())
            how = "scipy minimum_spanning_tree"
        elif app in ("triangles", "mst"):
            algo = "triangle_count" if app == "triangles" else "mst"
            r = registry.get(algo).run(self.weighted if app == "mst" else g, backend="cpu")
            want = r.total if app == "triangles" else float(r.total_weight)
            how = f"the library's {algo} on the CPU backend (not through HyPar)"
        self.refs[app] = (want, how)
        return self.refs[app]

    def check(self, app, r):
        if app == "coloring":
            c = r.values["colors"]
            return bool(c.min() >= 0 and not np.any(c[self.src] == c[self.dst])), "proper"
        if app == "communities":
            q = modularity(self.g, r.values["community"])
            return bool(np.isclose(q, r.scalars["modularity"])), "its modularity equals the numpy formula's"
        want, how = self.reference(app)
        got = {"components": r.scalars.get("components"), "triangles": r.scalars.get("total"),
               "mst": r.scalars.get("total_weight")}[app]
        ok = got == want if app != "mst" else bool(np.isclose(got, want, rtol=1e-6))
        return ok, f"equals {how}"

    def close(self):
        if self.sg is not None:
            self.sg.unlink(missing_ok=True)            # kron22: half a gigabyte


def run_gapbs(b: HyparBench, case: GraphCase, app: str) -> None:
    """GAPBS's cc or tc on the graph (its total may become the reference)."""
    g, name = case.g, case.name
    binary = {"components": "cc", "triangles": "tc"}.get(app)
    if not (binary and case.sg is not None and binary not in b.missing
            and b.clock.allows(f"{name} {app} peer:gapbs")):
        return
    peer = gapbs(b.bindir, binary, case.sg, ["-a"], b.args.repeat, b.threads, b.clock.left())
    if not (peer and peer["seconds"]):
        return
    count = gapbs_count(peer["output"], r"(\d+) triangles" if binary == "tc" else r"There are (\d+) components")
    if app == "triangles" and g.m > b.args.scipy_max_arcs and count is not None:
        case.refs[app] = (count, "GAPBS tc's total (-a)")   # beyond scipy: the reference
        ok, how = None, "the reference here"
    else:
        want, rhow = case.reference(app)
        ok, how = count == want, f"its count (-a) equals {rhow}"
    # and its own verifier's verdict (algorithms_bench.gapbs: one -n 1 -v run more, issue 35)
    ok = bool(ok and peer["verified"]) if ok is not None else bool(peer["verified"])
    how = f"{how}; {peer['verified_how']}" + ("" if ok or "unchecked" in peer["verified_how"] else " (unchecked)")
    b.runs.append({"graph": name, "m": g.m, "algorithm": app, "engine": "peer:gapbs",
                   "seconds": round(peer["seconds"], 6),
                   "first_seconds": round(peer["all_seconds"][0], 6) if peer["all_seconds"] else None,
                   "bytes_h2d": 0, "floor_seconds": 0.0,
                   "verified": ok, "verified_how": how, "count": count, "command": peer["command"],
                   "all_seconds": peer["all_seconds"]})
    print(f"{name:<14} {app:<12} {'peer:gapbs':<34} {peer['seconds'] * 1e3:10.1f} ms  verified={ok}", flush=True)
    b.save()


def run_networkit_plp(b: HyparBench, case: GraphCase) -> None:
    """networkit's PLP on the graph, its labelling's modularity computed here (a score, not a check)."""
    nk, g, name = b.nk, case.g, case.name
    NG = to_networkit(g, nk)

    def plp():
        p = nk.community.PLP(NG)
        p.run()
        return np.asarray(p.getPartition().getVector())
    secs, labels, first = b.timed(plp, case.cold, loop=False)[:3]  # a peer: one call a sample, as before
    q = modularity(g, labels)
    b.runs.append({"graph": name, "m": g.m, "algorithm": "communities", "engine": "peer:networkit-plp",
                   "seconds": round(secs, 6), "first_seconds": round(first, 6),
                   "bytes_h2d": 0, "floor_seconds": 0.0, "verified": None,
                   "verified_how": "unchecked: modularity computed here (a score, not a check of its "
                                   "communities)", "modularity": round(q, 6),
                   "warm_up": not case.cold})
    print(f"{name:<14} {'communities':<12} {'peer:networkit-plp':<34} {secs * 1e3:10.1f} ms  modularity={q:.4f}",
          flush=True)
    b.save()


def run_record(case: GraphCase, app, label, kind, specs, exs, timing) -> dict:
    """The results file's run for one timed plan (HyPar's plan, phases and shares; BSP's supersteps)."""
    secs, r, first, first_r, trials = timing[:5]
    ok, how = case.check(app, r)
    # a looped sample's seconds a call keep nanoseconds: at 0.1 ms, microseconds are 1% steps
    run = {"graph": case.name, "m": case.g.m, "algorithm": app, "engine": label,
           "seconds": round(secs, 6 if timing.calls_per_sample == 1 else 9),
           "bytes_h2d": 0, "floor_seconds": 0.0, "verified": ok, "verified_how": how,
           "scalars": dict(r.scalars), "levels": r.levels, "cut": r.cut,
           "sample_seconds": r.timings["sample_seconds"],
           "budget_bytes": [e.budget for e in exs], "warm_up": not case.cold,
           "first_seconds": round(first, 6), "trial_seconds": [round(x, 6) for x in trials],
           "calibration_seconds": first_r.timings.get("calibration_seconds"),
           "calls_per_sample": timing.calls_per_sample,
           "all_seconds": [round(x, 9) for x in timing.all_seconds],
           "samples_redone": timing.samples_redone}
    if kind == "bsp":
        run.update(supersteps=r.timings["supersteps"], executor_seconds=r.timings["executor_seconds"])
    else:
        run["independent_seconds"] = r.timings["independent"]
        run["phases"] = {p: round(float(np.sum(r.timings[p])), 6) for p in PHASES}
        if len(specs) > 1:
            run["plan"] = r.timings["plan"]
            run["shares"] = r.timings.get("shares", [])
            if "shares_fed_back" in r.timings:
                run["shares_fed_back"] = r.timings["shares_fed_back"]
    return run


def run_plan(b: HyparBench, case: GraphCase, app: str, plan) -> None:
    """One plan (HyPar, split, one executor alone, BSP) on one application, timed, checked and recorded."""
    from graphferry.hypar import bsp, hypar

    label, kind, specs, budgeted = plan
    args, name, g = b.args, case.name, case.g
    if budgeted and args.budgeted_on is not None and name not in args.budgeted_on:
        return
    if not b.clock.allows(f"{name} {app} {label}", b.expect(app, label, g.m, case.cold)):
        return
    graph = case.weighted if app == "mst" else g
    exs = [s.build(graph) for s in specs]
    name_in_hypar = APPLICATION.get(app, app)
    call = ((lambda: hypar(graph, name_in_hypar, exs, threshold_edges=args.threshold_edges,
                           plan="split" if kind == "split" else "auto")) if kind != "bsp"
            else (lambda: bsp(graph, name_in_hypar, exs)))
    timing = b.timed(call, case.cold, trial=(lambda r: bool(r.timings.get("plan", {}).get("trial")))
                     if kind == "hypar" and len(specs) > 1 else None)
    run = run_record(case, app, label, kind, specs, exs, timing)
    b.runs.append(run)
    r = timing[1]
    chose = f" plan={run['plan']['chosen']}" if "plan" in run else ""
    if run.get("shares"):
        chose += f" shares={[round(x, 3) for x in run['shares']]}"
    loops = f" calls/sample={timing.calls_per_sample}" if timing.calls_per_sample > 1 else ""
    print(f"{name:<14} {app:<12} {label:<34} {timing[0] * 1e3:10.3f} ms  verified={run['verified']} "
          f"levels={r.levels} cut={r.cut}{chose} {run['scalars']}{loops}", flush=True)
    b.save()


def run_graph(b: HyparBench, name: str, build, tmp: Path) -> None:
    """Every application on one graph: peers first (GAPBS's total may become the reference), then every plan."""
    case = GraphCase(b, name, build, tmp)
    b.graphs.append(case.info)
    for app in b.args.apps:
        if not b.clock.allows(f"{name} {app}"):
            continue
        run_gapbs(b, case, app)
        if app == "communities" and b.nk is not None and b.clock.allows(f"{name} communities peer:networkit-plp"):
            run_networkit_plp(b, case)
        for plan in b.plans:
            run_plan(b, case, app, plan)
        for line in summary(b.runs, name, app, b.sets):
            print(line, flush=True)
    case.close()


def geomeans(b: HyparBench) -> list[dict]:
    """Per application and set, the geometric means over the graphs of best single / HyPar and BSP / HyPar."""
    print("== per application, geometric mean over the graphs (above 1: HyPar faster)", flush=True)
    out = []
    for app in b.args.apps:
        for tag, specs in b.sets:
            for way in ("hypar", "split"):
                vs_best, vs_bsp = [], []
                for info in b.graphs:
                    s = pick(b.runs, info["name"], app, tag, specs)
                    if s[way]:
                        vs_best.append(s["best"] / s[way] if s["best"] else None)
                        vs_bsp.append(s["bsp"] / s[way] if s["bsp"] else None)
                if not vs_best:
                    continue
                gb, gs = geomean(vs_best), geomean(vs_bsp)
                over = len([x for x in vs_best if x])
                out.append({"algorithm": app, "engine": f"{way}{tag}", "best_single_over": gb,
                            "bsp_over": gs, "graphs": over})
                print(f"{app:<12} {way + tag:<29} best single / {way} {gb and round(gb, 3)}  "
                      f"bsp / {way} {gs and round(gs, 3)}  over {over} graphs", flush=True)
    return out


def main() -> None:
    args = parse_args()
    b = HyparBench(args)
    sources = b.sources()
    for note in b.notes:
        print(note, flush=True)
    if args.dry_run:
        print("graphs:", " ".join(name for name, _ in sources))
        for label, kind, specs, budgeted in b.plans:
            print(f"plan {label:<34} {kind:<5} executors={[s.text for s in specs]}"
                  + (f" on {' '.join(args.budgeted_on)}" if budgeted and args.budgeted_on is not None else ""))
        print("apps:", " ".join(args.apps))
        return
    b.start_doc()
    # removed at the end, and by its finalizer when the benchmark fails (nothing left in $TMPDIR)
    work = tempfile.TemporaryDirectory(prefix="gf-hypar-")
    for name, build in sources:
        if b.clock.allows(f"graph {name}"):
            run_graph(b, name, build, Path(work.name))
    work.cleanup()
    b.doc["geomeans"] = geomeans(b)
    if b.clock.skipped:
        print(f"skipped for the deadline: {len(b.clock.skipped)}: {', '.join(b.clock.skipped)}", flush=True)
    b.save()
    if args.out:
        print(f"wrote {args.out}")


def pick(runs, graph, app, tag, specs) -> dict:
    """Seconds of HyPar, of the best executor alone (and which), and of BSP for one set on one graph."""
    secs = {r["engine"]: r["seconds"] for r in runs if r["graph"] == graph and r["algorithm"] == app
            and r["verified"] is not False}
    alone = {s.text: secs.get(f"only:{s.text}") for s in specs}
    alone = {k: v for k, v in alone.items() if v}
    best = min(alone, key=alone.get) if alone else None
    return {"hypar": secs.get(f"hypar{tag}"), "split": secs.get(f"split{tag}"), "best": alone.get(best),
            "best_label": best, "bsp": secs.get(f"bsp{tag}")}


def summary(runs, graph, app, sets) -> list[str]:
    lines = []
    for tag, specs in sets:
        s = pick(runs, graph, app, tag, specs)
        if not s["hypar"]:
            continue
        parts = [f"hypar{tag} {s['hypar'] * 1e3:.1f} ms"]
        if s["split"]:
            parts.append(f"split{tag} {s['split'] * 1e3:.1f} ms")
        if s["best"]:
            parts.append(f"best alone only:{s['best_label']} {s['best'] * 1e3:.1f} ms "
                         f"(best/hypar {s['best'] / s['hypar']:.2f}"
                         + (f", best/split {s['best'] / s['split']:.2f})" if s["split"] else ")"))
        if s["bsp"]:
            parts.append(f"bsp {s['bsp'] * 1e3:.1f} ms (bsp/hypar {s['bsp'] / s['hypar']:.2f})")
        lines.append(f"  summary {graph} {app}: " + ", ".join(parts))
    return lines


if __name__ == "__main__":
    main()
