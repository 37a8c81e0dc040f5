"""HyPar: divide and conquer across executors (CPU and GPU together), and a BSP baseline.

Banerjee, Kothapalli and Sarkar's HyPar (JPDC 2019), Section 3's API:

* :func:`part_graph`: split the vertices into one contiguous block per
  executor (1-D block partitioning, by edges, or by the application's work
  estimate along its own order: triangle counting's blocks are runs of the
  degree-ordered DAG's ranks, :meth:`Application.block_order`), in the ratio of the executors'
  speeds measured by running the application on three sampled induced
  subgraphs of 5-10% of the vertices on each (Section 4.1, :func:`calibrate`),
  bounded by each executor's device-memory budget;
* :func:`independent_compute`: every executor computes on its own part at
  once (threads; the kernels release the GIL), with no communication, under
  the application's border exception (Sections 6.1-6.4);
* :func:`merge_parts`: the application merges the parts' results and reduces
  the graph (self-edge removal and contraction, or removal of finished
  vertices: :mod:`graphferry.transforms`);
* recursion while the reduced graph has more than ``threshold_edges`` edges
  (Section 4.4) and the last level removed at least a tenth of the vertices,
  then ``post_process`` on the executor that was faster.

Where this departs from the paper: **a planner** (:func:`plan_for`). The
paper splits whenever it has two devices. Here the sampled runs also run the
split itself (independent computation, merges, post-processing) and each
executor alone on the same samples; lines fitted through those times
(``fixed + per_item * work``, :class:`Rate`; the work is ``n + m``, or what
the application's cost grows with: :meth:`Application.work`) predict every
plan on the whole graph, and when the predicted split is not below the best
executor alone (by a margin, :data:`SPLIT_MARGIN`: the fits extrapolate
samples of about 1% of the arcs), that executor runs the application alone,
through the same code (``timings["plan"]`` records what ran, why, and the predictions;
``plan="split"`` always splits, as the paper does). Lines through samples of about 1% of the
arcs misjudge the whole graph by up to 8x, so the planner also learns from whole calls, as
FFTW's planner measures candidate plans: every call's time is kept per plan and size
(:meth:`Calibration.measure`) and stands in for the prediction from then on; a plan not yet run
at a size, predicted within :data:`EXPLORE_WITHIN` times the best run one, runs once
(:func:`_plan_to_explore`), and a rival measured fewer times than the best runs again while it
is close (:data:`RETRY_WITHIN`), or once more where its one run was its first and within
:data:`EXPLORE_WITHIN` or under :data:`RETRY_CHEAP_S`; a graph small enough that its samples run in under
:data:`MIN_SAMPLE_SECONDS` is measured whole while calibrating; and a split of a divisible
application (triangles: each part's time follows its share) is predicted from the executors'
rates combined, its shares set by the speeds its last run showed (:meth:`Calibration.observe`).
And the calibration is
made once per application and executor list and kept for graphs up to
:data:`REUSE_UP_TO` times the sampled one (the paper samples on every run;
at Kronecker 18 on one thread a calibration took 50-420 ms, against 10-35 ms
for components or colouring run alone). An executor alone runs the
application's algorithm to its end (:meth:`Application.alone`): no stop rule,
merge or post-processing, which cost more than they save with no other part
to wait for (the spanning forest's contraction after its rounds stopped getting
faster had paid at Kronecker 17-18 on one thread; with today's executors Boruvka's
three rounds to its end are 1.4-1.5x faster at Kronecker 22).

An **executor** is a place to run: a backend and its options (engine, device
budget, partition size). ``[Executor("cpu"), Executor("cuda")]`` is HyPar's
CPU + GPU; one executor is CPU-only or GPU-only through the same code (the
whole graph is then one part). CI uses two CPU executors, one of them with
a small simulated device arena and the ``compaction`` engine. This is the
small interface the executors layer of the runtime can take over later: a
list of executors, a split, and per-part runs.

Applications (each runs the registered algorithms on parts through
:mod:`graphferry.algorithms.registry`, so no algorithm file is imported):

* ``components``: connected components of the undirected view; local
  components, contraction, recursion, components of the reduced graph. Exact.
* ``triangles``: each part is the whole graph's degree-ordered DAG induced by
  its block and the block's out-neighbours (ghost edges), counting only the
  triangles whose lowest corner is in the block: each triangle counted once,
  the parts' per-vertex counts added. Exact.
* ``coloring``: parts coloured independently; a cut edge joining equal colours
  uncolours its higher end; post-processing colours those around the rest (Algorithm 2).
* ``communities``: label propagation per part, HyPar's merge rule (Algorithm 5:
  communities below the average intra-arc ratio, or with tiny interiors, are
  dismantled; the rest are finalised and removed with their edges) with border
  exceptions (a border vertex whose label is not among its neighbours' most
  frequent on the merged labels is not finalised, nor is a community with more
  than a quarter as many cut arcs as internal arcs: the cut likely went through
  it), recursion; post-processing propagates the rest on the reduced graph, then
  every vertex on the whole graph from the merged labels to label propagation's
  fixed point.
* ``mst``: Boruvka per part under the cut-edge exception (a component whose
  lightest edge leaves the part stops growing: ``minimum_spanning_forest(within=)``),
  contraction keeping each quotient edge's lightest representative, recursion,
  Boruvka on the reduced graph; the forest's edges in the input's ids.

:func:`bsp` is the BSP baseline HyPar compares with (Section 7.3.1: "the
computations are organized into super-steps corresponding to the outer loop of
the original algorithms. At the end of each super-step, necessary
communications and synchronizations are performed"), over the same executors
and :func:`part_graph`'s blocks, one driver for every application
(:data:`BSP_APPLICATIONS`): each superstep every executor runs one round of the
registered algorithm on its block with ghost vertices holding the state of the
last exchange, then the blocks' new state is exchanged:

* ``components``: the part's components take their least label; until no label changes;
* ``triangles``: one superstep on the same parts as HyPar's (no bulk synchronism needed);
* ``coloring``: one speculative round on the block's uncoloured vertices; the
  exchange uncolours the higher end of every edge joining equal colours;
* ``communities``: one label-propagation round on the block, ghosts voting;
  PLP's stop rule;
* ``mst``: one Boruvka round on the block's arcs between components; the exchange
  takes each component's lightest edge over all executors and merges.

Iterative parts (coloring, communities, mst) stop their independent
computation when an iteration takes no less time than the one before
(:class:`IterationTrend`, HyPar Section 4.2); the merge and post-processing
finish what they left.

Example:
    >>> import numpy as np
    >>> from graphferry import Graph
    >>> from graphferry.algorithms.hypar import Executor, hypar
    >>> g = Graph.from_edges([0, 1, 2, 4, 5, 7], [1, 2, 3, 5, 6, 8], n=9, directed=False)
    >>> two = [Executor("cpu"), Executor("cpu", engine="compaction", budget=1 << 16, partition_bytes=256)]
    >>> r = hypar(g, "components", two, threshold_edges=0, plan="split")
    >>> r.values["labels"].tolist()
    [0, 0, 0, 0, 4, 4, 4, 7, 7]
    >>> r.cut > 0, r.levels >= 1
    (True, True)
    >>> auto = hypar(g, "components", two)               # the planner's choice, and why
    >>> auto.values["labels"].tolist() == r.values["labels"].tolist(), sorted(auto.timings["plan"])
    (True, ['calibration', 'chosen', 'predicted_seconds', 'trial', 'why'])
"""

from __future__ import annotations

import logging
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from ..backends import get_backend
from ..backends.cpu import host_ops
from ..graph import Graph
from ..transforms import (
    contract,
    device_degree_ordered_dag,
    induced_subgraph,
    is_simple,
    simple_graph,
)
from . import registry

log = logging.getLogger(__name__)

SAMPLE_FRACTIONS = (0.05, 0.075, 0.10)   # HyPar 4.1: three sampled induced subgraphs of 5-10% of the vertices
MIN_SAMPLE_SECONDS = 0.01    # the samples grow (doubling) until the largest runs this long on the fastest executor ...
MAX_SAMPLE_FRACTION = 0.4    # ... or would hold more than this fraction of the vertices
SAMPLE_REPEATS = 2           # each sampled run's time is the least of this many
MIN_SHRINK = 0.9            # recurse only while a level leaves at most this fraction of the vertices
TINY_COMMUNITY = 1e-7        # HyPar 6.3: fewer internal edges than this fraction of m: dismantled
CUT_THROUGH = 0.25           # border exception: a community with more cut arcs than this fraction of its internal arcs
PLANS = ("auto", "split")
REUSE_UP_TO = 2.0            # a kept calibration serves graphs up to this many times the size it was sampled from
SPLIT_MARGIN = 0.8           # the split runs only when predicted at most this fraction of the best executor alone
EXPLORE_WITHIN = 5.0         # a plan not yet run at a graph's size, predicted within this factor of the best run, runs once
RETRY_WITHIN = 1.5           # a plan run at this size, measured within this factor of the best run, runs again ...
RETRY_RUNS = 3               # ... until it has this many measurements (the least of them stands)
RETRY_CHEAP_S = 0.05         # a plan measured once, at most this many seconds, runs once more however far behind


@dataclass(frozen=True)
class Executor:
    """A place to run parts: a backend and the run options it takes (engine, budget, partition size)."""

    backend: str = "cpu"
    engine: str = "auto"
    budget: int | None = None
    partition_bytes: int | None = None
    name: str = ""

    def options(self) -> dict[str, Any]:
        return {"backend": self.backend, "engine": self.engine, "budget": self.budget,
                "partition_bytes": self.partition_bytes}

    def run(self, algorithm: str, graph: Graph, **params):
        """Run registered ``algorithm`` on ``graph`` here."""
        spec = registry.get(algorithm)
        return spec.function(graph, **params, **self.options())

    @property
    def label(self) -> str:
        return self.name or (self.backend if self.budget is None else f"{self.backend}[{self.engine}]")


def labels(executors: list[Executor]) -> list[str]:
    """The executors' labels, a repeated one numbered from its second use (``cpu``, ``cpu#2``): the
    planner's predictions and a run's timings name each executor apart.

    Example:
        >>> labels([Executor("cpu"), Executor("cuda"), Executor("cpu")])
        ['cpu', 'cuda', 'cpu#2']
    """
    out: list[str] = []
    for ex in executors:
        label, k = ex.label, 2
        while label in out:
            label, k = f"{ex.label}#{k}", k + 1
        out.append(label)
    return out


@dataclass
class Split:
    """Vertex blocks, one per executor, and how they were chosen: positions ``[bounds[i], bounds[i + 1])``
    of ``order`` (the vertex ids in an application's order, :meth:`Application.block_order`), or of
    the ids themselves where ``order`` is None."""

    bounds: np.ndarray
    shares: list[float]                       # the edge share aimed at for each executor
    sample_seconds: list[float] = field(default_factory=list)
    order: np.ndarray | None = None

    def blocks(self) -> list[np.ndarray]:
        spans = [(int(self.bounds[i]), int(self.bounds[i + 1])) for i in range(len(self.bounds) - 1)]
        n = int(self.bounds[-1])
        # a block of every vertex is the ids in order, as without an order (one executor's part is the graph)
        return [np.arange(lo, hi, dtype=np.int64) if self.order is None or hi - lo == n
                else np.asarray(self.order[lo:hi], dtype=np.int64) for lo, hi in spans]


@dataclass
class HyparResult:
    """Values per vertex of the input, scalars, and where the time went (``timings``; its ``plan``
    says which plan ran and why)."""

    graph: Graph
    values: dict[str, np.ndarray]
    scalars: dict[str, Any]
    timings: dict[str, Any]
    cut: int
    levels: int


# ------------------------------------------------------------------ calibration and the planner
@dataclass(frozen=True)
class Rate:
    """Seconds of one plan as ``fixed + per_item * work``, the work of the graph it runs on
    (:meth:`Application.work`: ``n + m``, or what the application's cost grows with).

    Example:
        >>> r = fit_rate([1000, 2000, 3000], [0.011, 0.021, 0.031])
        >>> round(r.fixed, 6), round(r.per_item * 1e6, 3)
        (0.001, 10.0)
        >>> round(r.predict(10000), 4)
        0.101
    """

    fixed: float
    per_item: float

    def predict(self, work: float) -> float:
        return self.fixed + self.per_item * work


def fit_rate(works: list[float], seconds: list[float]) -> Rate:
    """The least-squares line through (work, seconds) of the sampled runs, with both terms at
    least 0: a negative slope (noise on a busy host) falls back to the median seconds per item and
    no fixed part, a negative fixed part to the slope through the origin."""
    x = np.array(works, np.float64)
    t = np.array(seconds, np.float64)
    if len(x) >= 2 and np.ptp(x) > 0:
        slope, fixed = np.polyfit(x, t, 1)
        if slope > 0 and fixed >= 0:
            return Rate(float(fixed), float(slope))
        if slope > 0:
            return Rate(0.0, float((x * t).sum() / (x * x).sum()))
    return Rate(0.0, float(np.median(t / np.maximum(x, 1.0))))


def _near(seen: float, work: float) -> bool:
    """Whether a graph of ``work`` is of about the size of one of ``seen`` (within :data:`REUSE_UP_TO`
    times either way), so that what was measured on the one serves the other."""
    return seen / REUSE_UP_TO <= work <= seen * REUSE_UP_TO


@dataclass
class Calibration:
    """What the sampled runs measured for one application on one list of executors (HyPar 4.1).

    ``shares``: each executor's share of the edges, in the ratio of its speed alone (the paper's
    CPU/GPU ratio); ``alone``: each executor's :class:`Rate` running the whole application alone;
    ``split``: the rate of HyPar over all of them (independent computation, merges, recursion and
    post-processing: the whole call); ``sample_seconds``: each executor's seconds alone, summed over
    the samples; ``sizes``: the samples' ``(n, m)`` and ``works`` their work; ``seconds``: what
    calibrating cost. ``divisible``: the application's parts take time in proportion to their
    share (:attr:`Application.divisible`): the split is then predicted from the rates alone
    and not sampled. ``measured``: seconds of whole-graph calls by plan (:meth:`measure`), which
    stand in for the predictions on graphs of about their size.
    Kept per application class and executors for graphs up to :data:`REUSE_UP_TO` times as large."""

    shares: list[float]
    alone: list[Rate]
    split: Rate | None
    sample_seconds: list[float]
    sizes: list[tuple[int, int]]
    works: list[float] = field(default_factory=list)
    seconds: float = 0.0
    graph_size: int = 0          # n + m of the graph sampled
    observed: tuple[float, list[float]] | None = None   # (work, shares) balanced on a whole graph's split run
    divisible: bool = False
    measured: dict[str, tuple[float, float]] = field(default_factory=dict)   # plan -> (work, seconds)
    runs: dict[str, int] = field(default_factory=dict)   # plan -> measurements behind measured[plan]

    def shares_for(self, work: float) -> list[float]:
        """Each executor's share of a graph of this work: in the ratio of the speeds the sampled
        rates predict at this size (HyPar's CPU/GPU ratio, taken where the graph is rather than
        where the samples were: a GPU's fixed costs weigh on a sample and not on the whole graph);
        or the shares a split run of a graph of about this work balanced (:meth:`observe`).

        Example (equal on samples of 1000 items, but the second is 3x faster per item):
            >>> c = Calibration([0.5, 0.5], [Rate(0.0, 3e-6), Rate(0.002, 1e-6)], None, [], [])
            >>> [round(x, 3) for x in c.shares_for(1000)], [round(x, 3) for x in c.shares_for(1e7)]
            ([0.5, 0.5], [0.25, 0.75])
        """
        if self.observed is not None and _near(self.observed[0], work):
            return list(self.observed[1])
        if not self.alone:
            return list(self.shares)
        speed = 1.0 / np.maximum([rate.predict(work) for rate in self.alone], 1e-12)
        return (speed / speed.sum()).tolist()

    def observe(self, work: float, shares: list[float], seconds: list[float]) -> list[float]:
        """Feed back a split run on a whole graph: executor ``i`` took ``seconds[i]`` for ``shares[i]``
        of it, so its speed is their ratio; the shares that would have made them finish together
        serve the next call on a graph of about this work (:meth:`shares_for`). Returns them.

        Example (the second executor finished its half 3x sooner):
            >>> c = Calibration([0.5, 0.5], [], None, [], [])
            >>> [round(x, 3) for x in c.observe(1e6, [0.5, 0.5], [3.0, 1.0])], c.shares_for(1.5e6) == c.observed[1]
            ([0.25, 0.75], True)
        """
        speed = np.asarray(shares, np.float64) / np.maximum(np.asarray(seconds, np.float64), 1e-9)
        if speed.sum() <= 0:
            return self.shares_for(work)
        balanced = (speed / speed.sum()).tolist()
        self.observed = (float(work), balanced)
        return balanced

    def fits(self, graph: Graph) -> bool:
        """Whether the rates may be kept for ``graph``: at most :data:`REUSE_UP_TO` times the size of
        the graph they were sampled from (further out, a line fitted on small samples is not trusted)."""
        return graph.n + graph.m <= REUSE_UP_TO * max(self.graph_size, 1)

    def predict(self, work: float, executors: list[Executor]) -> dict[str, float]:
        """Predicted seconds of every plan on a graph of this work: ``split`` and each executor
        alone by its label. A plan measured on a whole graph within :data:`REUSE_UP_TO` times this
        work (:meth:`measure`) is predicted from that, scaled as its sampled rate grows from the
        measured graph's work to this one (a rate with a fixed part grows more slowly than the
        work, and the datasets' sub-millisecond calls are mostly fixed cost); else from the
        sampled rates. A divisible application's split, unmeasured, is the executors' rates
        combined: together they do ``1 / sum(1 / T_i)`` (no merge, nothing left to post-process).

        Example (a divisible application: 3 s and 1.5 s alone make 1 s split; then a measured
        split of 1.2 s on a graph of half this work says 2.4 s here):
            >>> c = Calibration([0.5, 0.5], [Rate(0.0, 3.0), Rate(0.0, 1.5)], None, [], [], divisible=True)
            >>> exs = [Executor("cpu", name="a"), Executor("cpu", name="b")]
            >>> c.predict(1.0, exs)
            {'a': 3.0, 'b': 1.5, 'split': 1.0}
            >>> c.measure("split", 0.5, 1.2); c.predict(1.0, exs)["split"]
            2.4

        Example (mostly fixed cost: 0.3 ms measured at work 1000 says about 0.33 ms at 2000, not 0.6):
            >>> c = Calibration([1.0], [Rate(2e-4, 1e-8)], None, [], [])
            >>> c.measure("cpu", 1000.0, 3e-4); round(c.predict(2000.0, [Executor("cpu")])["cpu"] * 1e3, 3)
            0.314
        """
        def sampled(at: float) -> dict[str, float]:
            out = {label: rate.predict(at) for label, rate in zip(labels(executors), self.alone)}
            if self.split is not None:
                out["split"] = self.split.predict(at)
            elif self.divisible and out:
                out["split"] = 1.0 / sum(1.0 / max(t, 1e-12) for t in out.values())
            return out

        out = sampled(work)
        for plan, (seen, seconds) in self.measured.items():
            if plan in out and _near(seen, work):
                then = sampled(seen)[plan]
                out[plan] = seconds * (out[plan] / then if then > 0 else work / max(seen, 1e-12))
        return out

    def measured_near(self, work: float) -> set[str]:
        """The plans measured on a whole graph within :data:`REUSE_UP_TO` times this work."""
        return {plan for plan, (seen, _) in self.measured.items() if _near(seen, work)}

    def measure(self, plan: str, work: float, seconds: float) -> None:
        """Keep what a call of ``plan`` (``split`` or an executor's label) took on a whole graph of
        this work (the calibration excluded): the planner's predictions for graphs of about this
        size come from it from now on, so a plan the sampled rates misjudged is judged by its run.
        Of two runs at about one size the faster one per unit of work is kept, as a benchmark keeps
        its least time: one call slowed by the host (on the datasets' sub-millisecond calls, a
        millisecond's preemption) would otherwise turn the planner to a plan 4x slower, and keep it
        there, since the plan it left is not run again.

        Example (a slow call of the same plan at the same size does not replace the fast one):
            >>> c = Calibration([1.0], [], None, [], [])
            >>> c.measure("cpu", 1000.0, 0.5); c.measure("cpu", 1000.0, 2.0); c.measured["cpu"]
            (1000.0, 0.5)
            >>> c.measure("cpu", 1e6, 9.0); c.measured["cpu"]           # another size: replaced
            (1000000.0, 9.0)
        """
        kept = self.measured.get(plan)
        same_size = kept is not None and _near(kept[0], work)
        self.runs[plan] = self.runs.get(plan, 0) + 1 if same_size else 1
        if same_size and kept[1] / max(kept[0], 1e-12) <= seconds / max(work, 1e-12):
            return
        self.measured[plan] = (float(work), float(seconds))


@dataclass
class Plan:
    """The planner's choice: ``alone`` (an executor's index) or ``None`` for HyPar's split, and why."""

    alone: int | None
    why: str
    predicted: dict[str, float] = field(default_factory=dict)
    trial: bool = False     # a plan run to measure it (:func:`_plan_to_explore`), not the predicted best


#: calibrations kept for the process, per (application, executors): HyPar measures the ratio once
_CALIBRATIONS: dict[tuple, Calibration] = {}
_CALIBRATIONS_LOCK = threading.Lock()


def clear_calibrations() -> None:
    """Forget every kept calibration (the next call samples again)."""
    with _CALIBRATIONS_LOCK:
        _CALIBRATIONS.clear()


def _calibration_key(app: "Application", executors: list[Executor]) -> tuple:
    return (_hypar_class(app), app.stop_on_trend, tuple(executors))


def calibrate(graph: Graph, app: "str | Application", executors: list[Executor], *, seed: int = 0,
              split_runs: bool = True, **settings) -> Calibration:
    """HyPar's sampled runs (Section 4.1): on three induced subgraphs of 5%, 7.5% and 10% of the
    vertices of ``graph`` (as the application prepares it; larger where such samples run too
    briefly to show a rate: :func:`sample_fractions`), the application alone on each
    executor, in turn (the ratio of their speeds gives the shares), then, with ``split_runs``, by
    HyPar over all of them split in that ratio (what the merge, recursion and post-processing
    add). Each run is the same code as a real call's, timed whole; :class:`Rate` fits turn them
    into predictions for any size.
    Each time is the least of :data:`SAMPLE_REPEATS` runs. ``settings``: the call's
    ``threshold_edges`` and ``max_levels`` for the split runs.

    Example (two CPU executors, one with a small simulated device arena):
        >>> from graphferry.generators import kronecker_graph
        >>> g = kronecker_graph(9, seed=1)
        >>> two = [Executor("cpu"), Executor("cpu", engine="compaction", budget=1 << 16, partition_bytes=256)]
        >>> c = calibrate(g, "components", two)
        >>> len(c.shares), round(sum(c.shares), 6), len(c.alone), c.split is not None, len(c.sizes)
        (2, 1.0, 2, True, 3)
    """
    app = _application(app)
    t0 = time.perf_counter()
    graph = app.prepare(graph)            # the prepared graph itself when given one (the views are cached)
    k = len(executors)
    split_runs = split_runs and not app.divisible    # a divisible split is predicted from the rates alone
    sizes: list[tuple[int, int]] = []
    works: list[float] = []
    fractions = sample_fractions(graph, app, executors, seed=seed, **settings)
    rng = np.random.default_rng(seed)
    alone = np.full((len(fractions), k), np.inf)
    split = np.full(len(fractions), np.inf)
    for s, fraction in enumerate(fractions):
        sample = _sample(graph, fraction, rng)
        sizes.append((sample.n, sample.m))
        works.append(_fresh(app).work(sample))
        # the least of SAMPLE_REPEATS runs of each, interleaved: a sampled run lasts milliseconds, as
        # long as a busy host's preemption of one thread, and a line through such times extrapolates it
        for _ in range(SAMPLE_REPEATS):
            for i, ex in enumerate(executors):
                alone[s, i] = min(alone[s, i], _seconds_alone(sample, app, ex, settings))
            if split_runs and k > 1:
                speed = 1.0 / np.maximum(alone[s], 1e-9)
                split[s] = min(split[s], _seconds_split(sample, app, executors, (speed / speed.sum()).tolist(),
                                                        settings))
    seconds = alone.sum(axis=0)
    speed = 1.0 / np.maximum(seconds, 1e-9)
    cal = Calibration(shares=(speed / speed.sum()).tolist(),
                      alone=[fit_rate(works, alone[:, i].tolist()) for i in range(k)],
                      split=fit_rate(works, split.tolist()) if split_runs and k > 1 else None,
                      sample_seconds=seconds.tolist(), sizes=sizes, works=works,
                      graph_size=graph.n + graph.m, divisible=app.divisible)
    if k > 1 and alone[-1].min() < MIN_SAMPLE_SECONDS:
        # even the largest sample ran in less than MIN_SAMPLE_SECONDS: lines through such runs fit
        # fixed costs and noise (on graphs of a few thousand arcs they predicted a GPU 10x too slow or
        # a split 5x too fast). The whole graph then costs about as little to run: measure every
        # plan on it, and let the planner read those (Calibration.measure)
        whole = _fresh(app).work(graph)
        for label, ex in zip(labels(executors), executors):
            cal.measure(label, whole, min(_seconds_alone(graph, app, ex, settings) for _ in range(SAMPLE_REPEATS)))
        if split_runs or app.divisible:
            shares = cal.shares_for(whole)
            cal.measure("split", whole, min(_seconds_split(graph, app, executors, shares, settings)
                                            for _ in range(SAMPLE_REPEATS)))
    cal.seconds = time.perf_counter() - t0
    log.info("hypar %s: calibrated in %.3f s on %s of the vertices: sample seconds %s, shares %s", app.name,
             cal.seconds, [round(f, 3) for f in fractions], np.round(seconds, 4).tolist(), np.round(cal.shares, 3).tolist())
    return cal


def _seconds_alone(sample: Graph, app: "Application", ex: Executor, settings: dict) -> float:
    """Seconds of one sampled run of ``app`` on executor ``ex`` alone, the same code as a call's."""
    t = time.perf_counter()
    _run(sample, _fresh(app), [ex], Plan(0, "calibration"), None, None, **settings)
    return time.perf_counter() - t


def _seconds_split(sample: Graph, app: "Application", executors: list[Executor], shares: list[float],
                   settings: dict) -> float:
    """Seconds of one sampled run of ``app`` split over ``executors`` in ``shares``, the same code as a call's."""
    t = time.perf_counter()
    _run(sample, _fresh(app), executors, Plan(None, "calibration"), _cut(sample, shares, executors, app),
         None, **settings)
    return time.perf_counter() - t


def _sample(graph: Graph, fraction: float, rng: np.random.Generator) -> Graph:
    size = min(graph.n, max(1, int(round(graph.n * fraction))))
    return induced_subgraph(graph, np.sort(rng.choice(graph.n, size=size, replace=False)))


def sample_fractions(graph: Graph, app: "str | Application", executors: list[Executor], *, seed: int = 0,
                     **settings) -> list[float]:
    """The vertex fractions of the three calibration samples: HyPar's 5%, 7.5% and 10%, doubled
    while the largest sample runs in under :data:`MIN_SAMPLE_SECONDS` on the fastest executor
    alone and the doubled one keeps to :data:`MAX_SAMPLE_FRACTION` of the vertices.

    HyPar 4.1: "Each subgraph is generated randomly such that the number of vertices in the
    subgraph is 5%-10% of the total number of vertices in the original graph"; the paper takes
    only the ratio of the devices' times from them. The planner here also extrapolates each
    plan's seconds from them, which needs runs long enough to show a per-item rate.

    Why: an induced subgraph of a tenth of a power-law graph's vertices holds about a hundredth
    of its arcs. At Kronecker 17 on one thread such a triangle count took 1.6 ms, mostly fixed
    costs, and lines through three such runs predicted the whole graph at 0.87 s alone and 1.1 s
    split, where it took 0.41 s alone and 0.26 s split: the planner kept the split out. On samples
    of 20-40% of the vertices (4-16% of the arcs) it predicted 0.48 and 0.32 s.

    Example:
        >>> from graphferry.generators import kronecker_graph
        >>> fr = sample_fractions(kronecker_graph(8, seed=1), "components", [Executor("cpu")])
        >>> fr[0] / 0.05 == fr[2] / 0.10 and fr[2] <= MAX_SAMPLE_FRACTION
        True
    """
    app = _application(app)
    graph = app.prepare(graph)
    rng = np.random.default_rng(seed + 1)  # apart from the samples' own draws
    scale = 1.0
    while 2 * scale * SAMPLE_FRACTIONS[-1] <= MAX_SAMPLE_FRACTION:
        sample = _sample(graph, scale * SAMPLE_FRACTIONS[-1], rng)
        fastest = np.inf
        for ex in executors:
            for _ in range(SAMPLE_REPEATS):  # the least of two: the first run on an executor may compile
                fastest = min(fastest, _seconds_alone(sample, app, ex, settings))
        if fastest >= MIN_SAMPLE_SECONDS:
            break
        scale *= 2
    return [scale * f for f in SAMPLE_FRACTIONS]


def plan_for(graph: Graph, calibration: Calibration, executors: list[Executor], work: float | None = None) -> Plan:
    """The planner: HyPar's split when its predicted seconds on ``graph`` (independent computation,
    merges and post-processing, from the sampled rates) are below the best single executor's by
    the margin :data:`SPLIT_MARGIN`; else that executor alone. ``work``: the graph's
    (:meth:`Application.work`; default ``n + m``).

    The margin: the predictions extrapolate lines fitted on samples of about 1% of the arcs, so
    a split predicted a few percent faster is no predicted gain (at Kronecker 18 here a colouring
    split predicted 10% faster than one executor alone took 8 times as long). The margin holds for
    measured plans too: compared without it (the twentieth session, H200, triangles at Kronecker 23),
    a split measured at 1.7 s was chosen over the GPU's one slow first call (1.95 s), then took
    1.80 s a call against 1.46 s for the GPU alone.

    Example (the sampled rates say the split costs more than the first executor alone):
        >>> g = Graph.from_edges([0, 1], [1, 2], n=3, directed=False)
        >>> exs = [Executor("cpu", name="a"), Executor("cpu", name="b")]
        >>> cal = Calibration([0.5, 0.5], [Rate(0.0, 1.0), Rate(0.0, 2.0)], Rate(0.0, 1.5), [1.0, 2.0], [])
        >>> p = plan_for(g, cal, exs)
        >>> p.alone, p.predicted
        (0, {'a': 7.0, 'b': 14.0, 'split': 10.5})
        >>> p.why
        'predicted split 10.5 s is not below 0.8 x a alone 7 s'
    """
    work = graph.n + graph.m if work is None else work
    predicted = calibration.predict(work, executors)
    names = labels(executors)
    explore = _plan_to_explore(calibration, predicted, names, work)
    if explore is not None:
        return explore
    best = int(np.argmin([predicted[name] for name in names]))
    label = names[best]
    split = predicted.get("split")
    if split is None:
        return Plan(best, "no split rate measured", predicted)
    if split <= SPLIT_MARGIN * predicted[label]:
        return Plan(None, f"predicted split {split:.3g} s is below {SPLIT_MARGIN:g} x {label} alone "
                          f"{predicted[label]:.3g} s", predicted)
    return Plan(best, f"predicted split {split:.3g} s is not below {SPLIT_MARGIN:g} x {label} alone "
                      f"{predicted[label]:.3g} s", predicted)


def _plan_to_explore(calibration: Calibration, predicted: dict[str, float], names: list[str],
                     work: float) -> Plan | None:
    """FFTW's "measure" planning, spread over calls: once some plan has run on a graph of about
    this size, a plan that has not, predicted within :data:`EXPLORE_WITHIN` times the best run one,
    runs once (the likeliest first), so that the sampled rates' errors (at Kronecker 22 they put a
    GPU's label propagation at 4.7x its time) cost one call and not every call; its time is
    then measured like the rest. None: nothing to try.

    Example (the CPU ran; the GPU, predicted 3x slower, has not):
        >>> c = Calibration([0.5, 0.5], [Rate(0.0, 1.0), Rate(0.0, 3.0)], None, [], [])
        >>> c.measure("cpu", 1.0, 1.0)
        >>> p = _plan_to_explore(c, c.predict(1.0, [Executor("cpu"), Executor("cuda")]), ["cpu", "cuda"], 1.0)
        >>> p.alone, p.why
        (1, 'trying cuda once at this size: predicted 3 s, within 5 x the best run, cpu 1 s')
    """
    ran = calibration.measured_near(work)
    if not ran:
        return None
    best = min(ran, key=lambda plan: predicted.get(plan, np.inf))
    def trial(plan: str, what: str, within: float) -> Plan:
        return Plan(None if plan == "split" else names.index(plan),
                    f"trying {plan} {what} {predicted[plan]:.3g} s, within {within:g} x the best run, "
                    f"{best} {predicted[best]:.3g} s", predicted, trial=True)

    untried = sorted((predicted[plan], plan) for plan in [*names, "split"]
                     if plan in predicted and plan not in ran and predicted[plan] <= EXPLORE_WITHIN * predicted[best])
    if untried:
        return trial(untried[0][1], "once at this size: predicted", EXPLORE_WITHIN)
    # A plan measured fewer times than the best one, and not far behind it, runs again. The chosen
    # plan's time is the least of every call, the others' of their one or two runs (the first of
    # which may pay what a first run pays): on the datasets' sub-millisecond components the CPU's one
    # measurement (0.35 ms) kept it behind the simulated device's least of many (0.23 ms), though
    # alone it ran in 0.22 ms. (Every measured plan has its count: Calibration.measure.)
    # A plan with one run, its first at this size, runs once more if it is within EXPLORE_WITHIN,
    # or cost at most RETRY_CHEAP_S: on the device, karate's components ran on the GPU (1.2-1.5 ms a
    # call) where the CPU takes 0.3-0.4 ms, the CPU's one measurement having come out beyond first
    # RETRY_WITHIN and then EXPLORE_WITHIN of the GPU's (a process's first calls on a graph took
    # 6-10 ms there); running a call that short again costs nothing.
    runs = calibration.runs

    def within(plan: str) -> float:
        if runs[plan] != 1:
            return RETRY_WITHIN
        return max(EXPLORE_WITHIN, RETRY_CHEAP_S / max(predicted[best], 1e-12))

    again = sorted((runs[plan], predicted[plan], plan) for plan in ran
                   if plan != best and plan in predicted and runs[plan] < min(RETRY_RUNS, runs[best])
                   and predicted[plan] <= within(plan) * predicted[best])
    if again:
        count, _, plan = again[0]
        return trial(plan, f"again at this size (it has {count} of {RETRY_RUNS} runs):", round(within(plan), 3))
    return None


# ------------------------------------------------------------------ the API
def cut_by_edges(graph: Graph, shares: list[float], budgets: list[int | None] | None = None,
                 weights: np.ndarray | None = None, order: np.ndarray | None = None) -> np.ndarray:
    """Block bounds giving executor ``i`` about ``shares[i]`` of the edges (each block non-empty when
    possible), shrunk where a block's edge bytes would exceed that executor's budget.

    ``weights`` (one per vertex): cut by their sums instead of the edges, an application's
    estimate of each vertex's work (:meth:`Application.cut_weights`); the budgets still bound edges.
    ``order`` (a permutation of the vertices): the bounds are positions along it (block ``i`` is
    ``order[bounds[i]:bounds[i + 1]]``, :class:`Split`) instead of vertex ids.

    Example (the first vertex holds most of the weight, so it makes the first block alone):
        >>> g = Graph.from_edges([0, 1, 2], [1, 2, 3], n=4, directed=True)
        >>> cut_by_edges(g, [0.5, 0.5]).tolist(), cut_by_edges(g, [0.5, 0.5], weights=np.array([8, 1, 1, 0])).tolist()
        ([0, 2, 4], [0, 1, 4])
    """
    n, k = graph.n, len(shares)
    cum = graph.offsets                                       # edges before each vertex
    if order is not None:                                     # ... before each position of the order
        cum = host_ops.prefix_sum(graph.out_degree[order])
        weights = None if weights is None else weights[order]
    along = cum if weights is None else host_ops.prefix_sum(weights)   # in parallel: n is millions
    total = max(float(along[-1]), 1.0)
    bounds = [0]
    acc = 0.0
    for i in range(k - 1):
        acc += shares[i]
        cut = int(np.searchsorted(along, acc * total))
        if budgets is not None and budgets[i] is not None:
            per_edge = graph.indices.itemsize + (4 if graph.weighted else 0)
            limit = int(np.searchsorted(cum, cum[bounds[-1]] + budgets[i] / per_edge, side="right")) - 1
            cut = min(cut, limit)
        bounds.append(min(max(cut, bounds[-1] + (1 if n - bounds[-1] > k - 1 - i else 0)), n))
    bounds.append(n)
    if k > 1 and budgets is not None and budgets[-1] is not None:   # the last block takes the rest: fit it too
        per_edge = graph.indices.itemsize + (4 if graph.weighted else 0)
        least = int(np.searchsorted(cum, cum[-1] - budgets[-1] / per_edge, side="left"))
        bounds[-2] = max(bounds[-2], min(least, n))
    return np.array(bounds, dtype=np.int64)


def _calibration(graph: Graph, app: "Application", executors: list[Executor], calibration, seed: int,
                 split_runs: bool = True, **settings) -> tuple[Calibration, str]:
    """The calibration to use and where it came from: given, kept from an earlier call, or sampled now
    (``split_runs``: with the split's rate, which the planner needs and the shares alone do not)."""
    if isinstance(calibration, Calibration):
        return calibration, "given"
    if calibration not in ("cached", "fresh"):
        raise ValueError(f"hypar: argument 'calibration' must be 'cached', 'fresh' or a Calibration, "
                         f"got {calibration!r}")
    key = _calibration_key(app, executors)
    if calibration == "cached":
        with _CALIBRATIONS_LOCK:
            kept = _CALIBRATIONS.get(key)
        if kept is not None and kept.fits(graph) and (kept.split is not None or kept.divisible or not split_runs):
            return kept, "cached"
    cal = calibrate(graph, app, executors, seed=seed, split_runs=split_runs, **settings)
    with _CALIBRATIONS_LOCK:
        _CALIBRATIONS[key] = cal
    return cal, "sampled"


def part_graph(graph: Graph, app: "Application", executors: list[Executor], *, seed: int = 0,
               shares: list[float] | None = None, calibration: "str | Calibration" = "cached") -> Split:
    """HyPar's partGraph: speeds from three sampled induced subgraphs (:func:`calibrate`, kept per
    application and executors unless ``calibration="fresh"``), then edge-balanced blocks.

    ``shares`` (one per executor, summing to 1) gives the ratio instead of measuring it: a
    user who knows the machine, or a run that must split the same way every time."""
    k = len(executors)
    if k == 1:
        return Split(np.array([0, graph.n], dtype=np.int64), [1.0])
    if shares is not None:
        shares = [float(x) for x in shares]
        if len(shares) != k or min(shares) < 0 or not np.isclose(sum(shares), 1.0):
            raise ValueError(f"hypar: argument 'shares' must give {k} non-negative shares summing to 1, got {shares!r}")
        return _cut(graph, shares, executors, app)
    cal, _ = _calibration(graph, app, executors, calibration, seed, split_runs=False)
    return _split_by(graph, cal, executors, app, app.work(graph))


def _cut(graph: Graph, shares: list[float], executors: list[Executor], app: "Application",
         sample_seconds: list[float] | None = None) -> Split:
    """``app``'s blocks for ``shares``: :func:`cut_by_edges` by its per-vertex work estimate, along its
    block order, within the executors' budgets."""
    order = app.block_order(graph)
    bounds = cut_by_edges(graph, shares, [ex.budget for ex in executors], app.cut_weights(graph), order)
    return Split(bounds, list(shares), list(sample_seconds or []), order)


def _split_by(graph: Graph, cal: Calibration, executors: list[Executor], app: "Application", work: float) -> Split:
    shares = cal.shares_for(work)
    split = _cut(graph, shares, executors, app, cal.sample_seconds)
    log.info("hypar: shares %s, bounds %s", np.round(shares, 3).tolist(), split.bounds.tolist())
    return split


def independent_compute(graph: Graph, split: Split, app: "Application", executors: list[Executor],
                        pool: ThreadPoolExecutor | None = None):
    """HyPar's indComp: each executor computes on its part at once; returns (results, seconds each).

    ``pool``: threads to run the executors on (one each), kept across levels by :func:`hypar`."""
    blocks = split.blocks()

    def work(i: int):
        t = time.perf_counter()
        part = app.part(graph, blocks[i], executors[i])
        out = app.local(part, blocks[i], executors[i], whole=graph)
        return out, time.perf_counter() - t

    if len(executors) == 1:
        outs = [work(0)]
    elif pool is not None:
        outs = list(pool.map(work, range(len(executors))))
    else:
        with ThreadPoolExecutor(max_workers=len(executors)) as own:
            outs = list(own.map(work, range(len(executors))))
    return [o for o, _ in outs], [s for _, s in outs]


def merge_parts(graph: Graph, split: Split, results: list, app: "Application", state: dict):
    """HyPar's mergeParts: the application merges and reduces; returns the reduced graph or None."""
    return app.merge(graph, split.blocks(), results, state)


def _application(app: "str | Application") -> "Application":
    if isinstance(app, str):
        if app not in APPLICATIONS:
            raise ValueError(f"hypar: unknown application {app!r}; choose one of {', '.join(APPLICATIONS)}")
        return APPLICATIONS[app]()
    return app


def _hypar_class(app: "Application") -> type:
    """``app``'s HyPar application class (a BSP application's is the one it extends)."""
    return next(c for c in type(app).__mro__ if issubclass(c, Application) and not issubclass(c, BspApplication))


def _fresh(app: "Application") -> "Application":
    """A new HyPar instance of ``app``'s application with its settings (an instance may keep
    per-run state; a BSP application is sampled as the HyPar application it extends)."""
    other = _hypar_class(app)()
    other.stop_on_trend = app.stop_on_trend
    return other


def hypar(graph: Graph, app: "str | Application", executors: list[Executor], *, threshold_edges: int = 100_000_000,
          max_levels: int = 8, seed: int = 0, stop_on_trend: bool = True,
          shares: list[float] | None = None, plan: str = "auto",
          calibration: "str | Calibration" = "cached") -> HyparResult:
    """Run application ``app`` (a name from :data:`APPLICATIONS` or an :class:`Application`) by HyPar.

    ``plan="auto"`` (the planner, :func:`plan_for`): HyPar's split over the executors when the
    sampled rates predict it faster than the best executor alone (by :data:`SPLIT_MARGIN`), else
    that executor alone, through the same code; ``plan="split"``: always split (the paper's
    HyPar). The paper splits whenever it has two devices; here a split that the samples say
    cannot pay for its merge and post-processing is not run, and the run's ``timings["plan"]``
    records the choice, the predicted seconds of every plan and why. One executor, or given
    ``shares``: no planning.

    ``calibration``: ``"cached"`` (default) samples once per application class and executor list
    and keeps the result for the process (HyPar measures its ratio once; the rates scale with
    the graph's size), ``"fresh"`` samples this graph again, or a :class:`Calibration` to use.
    ``stop_on_trend``: iterative parts (coloring, communities, mst) end their
    independent computation when iteration times stop falling (HyPar 4.2);
    otherwise each part runs to its own convergence. ``shares``: the CPU/GPU ratio
    to split by instead of measuring it (:func:`part_graph`).
    """
    app = _application(app)
    app.stop_on_trend = stop_on_trend
    if not executors:
        raise ValueError("hypar needs at least one executor")
    app.use(executors)
    if plan not in PLANS:
        raise ValueError(f"hypar: argument 'plan' must be one of {', '.join(PLANS)}, got {plan!r}")
    t0 = time.perf_counter()
    timings: dict[str, Any] = {"prepare": 0.0, "partition": 0.0, "independent": [], "independent_wall": [],
                               "merge": 0.0, "merge_levels": [], "post_process": 0.0, "finish": 0.0}
    t = time.perf_counter()
    g = app.prepare(graph)
    timings["prepare"] = time.perf_counter() - t
    settings = {"threshold_edges": threshold_edges, "max_levels": max_levels}
    t = time.perf_counter()
    split = None
    how = None
    if len(executors) == 1:
        chosen = Plan(0, "one executor")
    elif shares is not None:
        split = part_graph(g, app, executors, shares=shares)
        chosen = Plan(None, "shares given")
    else:
        cal, how = _calibration(g, app, executors, calibration, seed, split_runs=plan == "auto", **settings)
        work = app.work(g)
        chosen = plan_for(g, cal, executors, work) if plan == "auto" else Plan(None, "plan='split'",
                                                                               cal.predict(work, executors))
        split = _split_by(g, cal, executors, app, work) if chosen.alone is None else None
        timings["calibration_seconds"] = cal.seconds if how == "sampled" else 0.0
    timings["partition"] = time.perf_counter() - t
    result = _run(g, app, executors, chosen, split, timings, graph=graph, **settings)
    if how in ("cached", "sampled"):      # a calibration of this process's (a given one is left as it is)
        _learn(cal, app, executors, chosen, split, timings, work,
               time.perf_counter() - t0 - timings.get("calibration_seconds", 0.0))
    timings["total"] = time.perf_counter() - t0
    timings["executors"] = labels(executors)
    timings["sample_seconds"] = split.sample_seconds if split is not None else []
    timings["shares"] = list(split.shares) if split is not None else []
    timings["plan"] = {"chosen": "split" if chosen.alone is None else labels(executors)[chosen.alone],
                       "why": chosen.why, "predicted_seconds": chosen.predicted, "calibration": how,
                       "trial": chosen.trial}
    if chosen.predicted:
        log.info("hypar %s: plan %s (%s)", app.name, timings["plan"]["chosen"], chosen.why)
    return result


def _learn(cal: Calibration, app: "Application", executors: list[Executor], chosen: Plan, split: Split | None,
           timings: dict, work: float, seconds: float) -> None:
    """What a call on a whole graph of ``work`` teaches ``cal``: the ``seconds`` its plan took
    (:meth:`Calibration.measure`) and, for a divisible application's split, each executor's speed
    (:meth:`Calibration.observe`)."""
    if split is not None and app.divisible:
        # the whole graph's split says how fast each executor really is on it: the next call
        # balances by that, and would take the balanced time in place of this level's
        first = timings["independent"][0]
        fed = cal.observe(work, split.shares, first)
        timings["shares_fed_back"] = fed
        rest = seconds - timings["independent_wall"][0]    # what the parts' counting did not take
        seconds = rest + 1.0 / sum(s / max(t, 1e-9) for s, t in zip(split.shares, first))
        # and each executor alone: the whole of the divisible work at its measured speed, no merge
        for label, share, took in zip(labels(executors), split.shares, first):
            if share > 0:
                cal.measure(label, work, rest - timings["merge"] + took / share)
        log.info("hypar %s: executors took %s s for shares %s; next shares %s", app.name,
                 np.round(first, 4).tolist(), np.round(split.shares, 3).tolist(), np.round(fed, 3).tolist())
    if chosen.predicted:
        cal.measure("split" if split is not None else labels(executors)[chosen.alone], work, seconds)


_POOLS = threading.local()


def _pool(k: int) -> ThreadPoolExecutor:
    """Threads to run ``k`` executors at once, kept per calling thread for the process: starting
    threads took milliseconds a call on a busy host, as long as a small part's whole run."""
    pool, size = getattr(_POOLS, "pool", None), getattr(_POOLS, "size", 0)
    if pool is None or size < k:
        if pool is not None:
            pool.shutdown(wait=False)
        pool = _POOLS.pool = ThreadPoolExecutor(max_workers=k, thread_name_prefix="hypar")
        _POOLS.size = k
    return pool


def _run(g: Graph, app: "Application", executors: list[Executor], chosen: Plan, split: Split | None,
         timings: dict | None, *, graph: Graph | None = None, threshold_edges: int = 100_000_000,
         max_levels: int = 8) -> HyparResult:
    """Run a chosen plan on prepared graph ``g`` (of input ``graph``, by default ``g`` itself, which
    must then be prepared already): alone, the executor runs the application on the whole graph
    (:meth:`Application.alone`); split, HyPar's levels of independent computation and merges,
    then post-processing on the faster executor."""
    graph = g if graph is None else graph
    timings = {"independent": [], "independent_wall": [], "merge_levels": []} if timings is None else timings
    state = app.start(g)
    levels, first_cut = 0, g.n
    if chosen.alone is not None:
        t = time.perf_counter()
        app.alone(g, state, executors[chosen.alone])
        seconds = time.perf_counter() - t
        timings["independent"].append([seconds])
        timings["independent_wall"].append(seconds)
        levels = 1
    else:
        first_cut = int(split.bounds[1])
        reduced: Graph | None = g
        per_executor = np.zeros(len(executors))
        pool = _pool(len(executors))
        while reduced is not None and levels < max_levels:
            before = reduced.n
            t = time.perf_counter()
            results, seconds = independent_compute(reduced, split, app, executors, pool)
            timings["independent_wall"].append(time.perf_counter() - t)
            per_executor += seconds
            timings["independent"].append(seconds)
            t = time.perf_counter()
            reduced = merge_parts(reduced, split, results, app, state)
            timings["merge_levels"].append(time.perf_counter() - t)
            levels += 1
            if (reduced is None or reduced.m <= threshold_edges or not app.recursive
                    or reduced.n > MIN_SHRINK * before):   # little progress across the cut: post-process the rest
                break
            # recursion: the same speed ratio on the reduced graph (HyPar 4.4)
            split = _cut(reduced, split.shares, executors, app, split.sample_seconds)
        timings["merge"] = float(sum(timings["merge_levels"]))
        if reduced is not None or app.post_process_always:
            fastest = executors[int(np.argmin(per_executor))]
            t = time.perf_counter()
            app.post_process(reduced, state, fastest)
            timings["post_process"] = time.perf_counter() - t
    t = time.perf_counter()
    values, scalars = app.finish(graph, g, state)
    timings["finish"] = time.perf_counter() - t
    return HyparResult(graph, values, scalars, timings, first_cut, levels)


# ------------------------------------------------------------------ applications
class IterationTrend:
    """HyPar 4.2: independent computation stops once an iteration takes no less time than the one
    before it ("when the execution time does not show further decrease"), after ``least`` iterations."""

    def __init__(self, least: int = 2):
        self.least = least
        self.seconds: list[float] = []

    def __call__(self, seconds: float) -> bool:
        self.seconds.append(seconds)
        return len(self.seconds) >= self.least and seconds >= self.seconds[-2]


class Application:
    """What HyPar asks of an application (defaults: induced parts, no reduction)."""

    name = "?"
    recursive = True     # may the reduced graph be divided again (False: post-process it at once)
    post_process_always = False  # post-process even when the merge left no reduced graph (it gets None)
    stop_on_trend = True  # iterative parts stop when iteration times stop falling (set by hypar())
    # a part's time grows with its share of the work (no stop rule, no part-dependent rounds), so a
    # split run's times per executor say how to share the next graph of its size (Calibration.observe)
    divisible = False

    def stop_when(self, whole: Graph | None):
        """The stop rule for one part's run (none for the sampled runs, which time whole runs)."""
        return IterationTrend() if self.stop_on_trend and whole is not None else None

    def prepare(self, graph: Graph) -> Graph:
        """The graph HyPar divides (here: the undirected simple view)."""
        return simple_graph(graph, undirected=True)

    def start(self, g: Graph) -> dict:
        return {}

    def part(self, g: Graph, block: np.ndarray, executor: Executor | None = None) -> Graph:
        """The part ``executor`` computes on: by default the block's induced subgraph (``g`` itself
        when the block is every vertex: one executor)."""
        return g if len(block) == g.n else induced_subgraph(g, block)

    def cut_weights(self, g: Graph) -> np.ndarray | None:
        """Each vertex's share of the work, by which blocks are cut (None: by its edges)."""
        return None

    def block_order(self, g: Graph) -> np.ndarray | None:
        """The order of ``g``'s vertices along which blocks are cut, each block a run of it (None:
        by id, each block a range of ids)."""
        return None

    def local(self, part: Graph, block: np.ndarray, executor: Executor, whole: Graph | None = None) -> Any:
        raise NotImplementedError

    def merge(self, g: Graph, blocks: list[np.ndarray], results: list, state: dict) -> Graph | None:
        raise NotImplementedError

    def post_process(self, reduced: Graph, state: dict, executor: Executor) -> None:
        raise NotImplementedError

    def use(self, executors: list[Executor]) -> None:
        """Told the call's executors before it starts (default: nothing to arrange)."""

    def work(self, g: Graph) -> float:
        """What the application's cost grows with on ``g``, the planner's measure of size (its
        rates are seconds per unit): ``n + m`` unless the application knows better."""
        return float(g.n + g.m)

    def alone(self, g: Graph, state: dict, executor: Executor) -> None:
        """The whole graph on one executor, the application's algorithm run to its end (CPU-only,
        GPU-only, and the planner's fallback): by default the post-processing of the whole graph."""
        self.post_process(g, state, executor)

    def finish(self, graph: Graph, g: Graph, state: dict) -> tuple[dict, dict]:
        raise NotImplementedError


def _smallest_member(labels: np.ndarray) -> tuple[np.ndarray, int]:
    """Each vertex's label replaced by the smallest vertex id carrying the same label, and how many
    distinct labels there are (the vertices labelled by themselves).

    Example:
        >>> labels, groups = _smallest_member(np.array([7, 7, 3, 3, 7]))
        >>> labels.tolist(), groups
        ([0, 0, 2, 2, 0], 2)
        >>> _smallest_member(np.array([0, 0, 2, 2, 0]))[0].tolist()   # already so (wcc's labels): kept
        [0, 0, 2, 2, 0]
    """
    n = len(labels)
    if n and labels.dtype == np.int64:
        groups = host_ops.smallest_members(labels)
        if groups is not None:
            return labels, groups                               # the smallest member already (one pass)
    if n and labels.min() >= 0 and labels.max() < n:          # labels are ids already: no sort needed
        group = labels
    else:
        _, group = np.unique(labels, return_inverse=True)
    smallest = np.full(group.max() + 1 if n else 0, n, np.int64)
    np.minimum.at(smallest, group, np.arange(n))
    smallest = smallest[group]
    return smallest, host_ops.smallest_members(smallest)


class Components(Application):
    """Connected components (weak, on a directed input): contraction after each level."""

    name = "components"

    def start(self, g: Graph) -> dict:
        return {"owner": host_ops.vertex_ids(g.n, np.int64)}   # input vertex -> vertex of the current graph

    def local(self, part, block, executor, whole=None):
        return executor.run("wcc", part).labels

    def merge(self, g, blocks, results, state):
        labels = np.empty(g.n, np.int64)
        for block, local in zip(blocks, results):
            labels[block] = block[local]                        # part ids -> ids of g
        if len(blocks) == 1 and len(blocks[0]) == g.n:          # one part, the whole graph: its components are final
            state["owner"] = labels[state["owner"]]
            return None
        # an arc inside a block joins one of its part's components: only the arcs between blocks are read
        bounds = np.cumsum([0] + [len(block) for block in blocks])
        reduced, groups = contract(g, labels, bounds=bounds)
        # each label is its component's smallest vertex (wcc's), so a group's rank among the groups
        # is a running count of those vertices: no search
        rank = np.cumsum(labels == np.arange(g.n), dtype=np.int64) - 1
        state["owner"] = rank[labels[state["owner"]]]
        return reduced if reduced.m else None

    def post_process(self, reduced, state, executor):
        state["owner"] = executor.run("wcc", reduced).labels[state["owner"]]

    def alone(self, g, state, executor):
        state["owner"] = np.asarray(executor.run("wcc", g).labels, np.int64)   # owner was the identity: no gather

    def finish(self, graph, g, state):
        labels, groups = _smallest_member(state["owner"])
        return {"labels": labels}, {"components": groups}


class Triangles(Application):
    """Triangle counting on the whole graph's degree-ordered DAG (HyPar 6.4: the oriented graph of
    Arifuzzaman et al.'s PATRIC), each executor counting only the triangles whose lowest corner is
    in its block; so every triangle is counted once, by one executor, and the merge adds the parts'
    per-vertex counts ("adds the sums from both the devices").

    An executor that may hold the whole DAG (no device budget, or one at least the DAG's bytes)
    reads it whole, its block marked: no part is built (building one, the DAG rows of the block and
    of their out-neighbours, cost as much as counting it at Kronecker 22). One with a smaller budget
    gets the paper's part with ghost edges: the DAG induced by the block's vertices and their
    out-neighbours. Blocks are cut by each vertex's counting work (:meth:`cut_weights`) along the
    DAG's order (:meth:`block_order`), and a split run's times per executor set the next call's
    shares (``divisible``)."""

    name = "triangles"
    divisible = True

    host_first = False                          # the first executor is the host's (use())

    def __init__(self):
        self._dag: tuple | None = None          # (graph, its DAG, the DAG as a Graph): built once a run
        self._dag_lock = threading.Lock()
        self.builder = None                     # the call's device backend that may build the DAG (use())

    def use(self, executors):
        # the DAG is built once for every executor: on the first device among them that has no
        # budget (a few sorts over the arcs there, 2-3x faster than the host's passes), then read
        # by each executor from the host; chosen anew each call (an instance may serve several)
        self.builder = next((backend for backend in (get_backend(ex.backend) for ex in executors if ex.budget is None)
                             if backend.is_device), None)
        # the blocks run from the highest ranks down where the first executor is the host's
        # (:meth:`block_order`), from the lowest up where it is a device
        self.host_first = bool(executors) and not get_backend(executors[0].backend).is_device

    def start(self, g):
        return {"triangles": np.zeros(g.n, np.int64)}

    def dag(self, g: Graph) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``(offsets, indices, order, rank)`` of ``g``'s degree-ordered DAG, built once for all the
        parts of a run (not kept on the graph: each run pays for it, as one executor alone does)."""
        return self._built(g)[1]

    def dag_graph(self, g: Graph) -> Graph:
        """``g``'s degree-ordered DAG as a :class:`Graph` (vertex ``r``: the ``r``-th in the order)."""
        return self._built(g)[2]

    def _built(self, g: Graph) -> tuple:
        with self._dag_lock:
            if self._dag is None or self._dag[0] is not g:
                # g is prepare()'s simple view: the rows are read in place (no dedup), as triangle_count does
                built = device_degree_ordered_dag(g, self.builder)
                if built is not None:
                    offsets, indices, order = built
                else:
                    offsets, indices, order, _ = host_ops.degree_ordered_dag(g.offsets, g.indices,
                                                                             simple=is_simple(g, undirected=True))
                rank = host_ops.unpermute(np.arange(g.n, dtype=np.int64), order)   # rank[order[r]] = r
                dag = Graph(offsets, indices, None, directed=True, name=f"{g.name}-dag")
                self._dag = (g, (offsets, indices, order, rank), dag)
            return self._dag

    def cut_weights(self, g):
        # a DAG row of d vertices is merged (GPU) or marked and scanned (CPU) against its members'
        # rows: about d^2 + d steps where the rows are alike (the sum of squares :meth:`work` uses);
        # from rank order to g's ids by a parallel scatter (numpy's gather by rank took ~0.1 s at
        # Kronecker 22, a tenth of the whole count)
        offsets, _, order, _ = self.dag(g)
        out = np.diff(offsets)
        return host_ops.unpermute(out * out + out + 1, order)

    def block_order(self, g):
        # each block a run of ranks, not of g's ids. A GPU counts a rank per thread, and a warp
        # takes 32 consecutive ranks and lasts as long as its longest row: a block of ids is a
        # random set of ranks, so the warps keep almost all their lanes' longest rows whatever the
        # GPU's share. Modelled on Kronecker 20's DAG (the sum over warps of the longest lane's
        # merge steps): a random 87% of the ranks kept 99.6% of that time, 50% kept 98%; a run of
        # ranks holding 50% of the steps takes 36-37% of it (the thirteenth session measured the
        # first: the GPU's 87% took 0.59 s of its whole count's 0.63 s).
        # The host takes the highest ranks, a device the lowest. Measured on an H200 beside 16
        # cores, Kronecker 22 (bench/triangle_shares_bench.py), the highest ranks holding 13% of
        # the work (cut_weights): the GPU 434 ms of its whole count's 565 (the longest rows, a
        # thread each), the CPU 370 ms of its 3352; the lowest 13%: the GPU 99 ms, the CPU 1288
        order = self.dag(g)[2]
        return order[::-1] if self.host_first else order

    def part(self, g, block, executor=None):
        if len(block) == g.n:                                  # one executor: the part is the graph
            return g
        offsets, indices, order, rank = self.dag(g)
        if executor is None or executor.budget is None or executor.budget >= offsets.nbytes + indices.nbytes:
            in_block = np.zeros(g.n, np.int64)
            in_block[block] = 1
            here = host_ops.unpermute(in_block, rank).astype(np.int8)     # by rank, a parallel scatter
            return _MarkedDag(self.dag_graph(g), here)
        # the DAG induced by the block's vertices (bit 0) and their out-neighbours (bit 1): a
        # triangle u < v < w with u in the block has v, w in u's row and w in v's
        ranks = np.sort(rank[block])
        flags = np.zeros(g.n, np.uint8)
        flags[host_ops.gather_rows(offsets, indices, None, ranks)[1]] = 2
        flags[ranks] |= 1
        vertices = np.flatnonzero(flags)
        new_id = np.full(g.n, -1, np.int64)
        new_id[vertices] = np.arange(len(vertices))
        p_offsets, p_indices, _ = host_ops.subgraph(offsets, indices, None, vertices, new_id)
        part = Graph(p_offsets, p_indices, None, directed=True, name=f"{g.name}-dag-part")
        part.meta["ids"] = order[vertices]                       # part vertex -> vertex of g
        part.meta["here"] = (flags[vertices] & 1).astype(np.int8)
        return part

    def local(self, part, block, executor, whole=None):
        if isinstance(part, _MarkedDag):                        # the whole DAG: counts by rank
            return None, executor.run("triangle_count", part.dag, counting_dag=part.here).triangles
        if whole is None or "here" not in part.meta:          # a sample, or the whole graph: count all
            return executor.run("triangle_count", part).triangles
        counts = executor.run("triangle_count", part, counting_dag=part.meta["here"]).triangles
        return part.meta["ids"], counts

    def work(self, g):
        # counting merges each DAG row with the rows of its members: about the sum of the squared
        # out-degrees, which grows faster than m (a 10% vertex sample of Kronecker 18 has 1% of the
        # arcs and a far smaller share of this), so the planner measures sizes by it. The DAG is
        # built here once and serves the run that follows (split parts or the whole graph)
        out = np.diff(self.dag(g)[0]).astype(np.float64)
        return float(g.n + g.m + (out * out).sum())

    def alone(self, g, state, executor):
        # the whole graph's DAG (built by :meth:`work` for the planner, else now), every vertex counting
        order = self.dag(g)[2]
        by_rank = executor.run("triangle_count", self.dag_graph(g), counting_dag=np.ones(g.n, np.int8)).triangles
        state["triangles"] = host_ops.unpermute(by_rank, order)

    def merge(self, g, blocks, results, state):
        by_rank = None
        for block, result in zip(blocks, results):
            if isinstance(result, tuple):                       # a part's counts, to add
                ids, counts = result
                if ids is None:                                 # the whole DAG's, by rank: added up first
                    by_rank = counts if by_rank is None else by_rank + counts
                else:
                    state["triangles"][ids] += counts
            else:                                               # the whole graph's
                state["triangles"][block] = result
        if by_rank is not None:
            state["triangles"] += host_ops.unpermute(by_rank, self.dag(g)[2])
        return None

    def finish(self, graph, g, state):
        tri = state["triangles"]
        return {"triangles": tri}, {"total": int(host_ops.reduce(tri, "sum")) // 3}


@dataclass(frozen=True)
class _MarkedDag:
    """A triangle-counting part that is the whole DAG, counting only at the marked vertices (``here``)."""

    dag: Graph
    here: np.ndarray


class Coloring(Application):
    """Graph colouring (HyPar Algorithm 2): independent parts, conflicts on cut edges uncoloured."""

    name = "coloring"
    recursive = False    # the uncoloured vertices must see their coloured neighbours' colours

    def start(self, g):
        return {"colors": np.full(g.n, -1, np.int64), "whole": g}

    def local(self, part, block, executor, whole=None):
        return executor.run("coloring", part, stop_when=self.stop_when(whole)).colors

    def merge(self, g, blocks, results, state):
        colors = state["colors"]
        for block, local in zip(blocks, results):
            colors[block] = local
        # an edge joining equal colours (a cut edge, or one inside a part whose run stopped early with
        # its clashes unresolved): its higher end is coloured again
        clash, _, _ = host_ops.arcs_where(g.offsets, g.indices, colors, clash=True, groups_too=False)
        colors[g.indices[clash]] = -1
        state["conflicts"] = int(np.count_nonzero(colors < 0))
        todo = np.flatnonzero(colors < 0)
        return induced_subgraph(g, todo) if len(todo) else None

    def post_process(self, reduced, state, executor):
        # colour the uncoloured vertices around the fixed ones (the whole graph's edges: a
        # removed vertex still forbids its colour to its uncoloured neighbours)
        state["colors"] = registry.get("coloring").function(
            state["whole"], precolored=state["colors"], **executor.options()).colors

    def alone(self, g, state, executor):
        state["colors"] = executor.run("coloring", g).colors

    def finish(self, graph, g, state):
        colors = state["colors"]
        return {"colors": colors}, {"num_colors": int(colors.max()) + 1 if len(colors) else 0,
                                    "conflicts": state.get("conflicts", 0)}


class Communities(Application):
    """Label propagation with HyPar's merge rule (Algorithm 5) and border-vertex exception; the
    post-process propagates the rest on the reduced graph, then every vertex on the whole graph."""

    name = "communities"
    post_process_always = True   # the whole-graph propagation is needed even when nothing was left

    def start(self, g):
        return {"labels": np.arange(g.n, dtype=np.int64), "active": np.arange(g.n, dtype=np.int64), "whole": g}

    def local(self, part, block, executor, whole=None):
        return block[executor.run("communities", part, refine=False, stop_when=self.stop_when(whole)).community]

    def merge(self, g, blocks, results, state):
        labels = np.empty(g.n, np.int64)
        part_of = np.empty(g.n, np.int64)
        for i, (block, local) in enumerate(zip(blocks, results)):
            labels[block] = local
            part_of[block] = i
        # per vertex, in one parallel pass over its row: arcs to its own label, arcs to another part
        same, crossing = host_ops.label_arcs(g.offsets, g.indices, labels, part_of)
        degree = g.out_degree
        inside = np.bincount(labels, weights=same, minlength=g.n)   # arcs inside each community
        total = np.bincount(labels, weights=degree, minlength=g.n)  # arcs leaving the community's vertices
        # HyPar Algorithm 5: "commRatio <- ratio of intra-community and total edges for each
        # community; avgRatio <- Find the average ratio; ... if (commRatio[c] < avgRatio) ||
        # (compEdges[c] < minReqEdges) then mergeResult[v] <- v else markVer for removal"
        present = total > 0
        ratio = np.zeros(g.n)
        ratio[present] = inside[present] / total[present]
        average = ratio[present].mean() if present.any() else 0.0
        m_edges = state["whole"].m / 2
        # HyPar 6.3: the devices "form local communities ..., with the exception of the border
        # vertices, as indicated by the boolean flag EXCPT_BORDER_VERTEX". Per community: one
        # with many cut arcs (arcs to another part) was probably cut through by the partition
        # and grew without the other side's view (on a small graph a part's propagation can
        # flood most of it into one label): not finalised
        cut = np.bincount(labels, weights=crossing, minlength=g.n)
        cut_through = cut > CUT_THROUGH * inside
        dismantle = ((ratio[labels] < average) | (inside[labels] / 2 < m_edges * TINY_COMMUNITY)
                     | ~present[labels] | cut_through[labels])
        # and per vertex: a border vertex (one with a neighbour in another part) chose its label
        # without seeing that neighbour's; it is finalised only if label propagation's own rule
        # holds for it on the merged labels (its label is among the most frequent of all its
        # neighbours'), else it goes to the rest: a vertex the cut left among another
        # community's members does not stay there
        border = crossing > 0
        dismantle |= ~_label_holds(g, labels, border & ~dismantle, same)
        ids = state["active"]                                    # vertices of g as vertices of the prepared graph
        kept = ~dismantle
        state["labels"][ids[kept]] = ids[labels[kept]]
        rest = np.flatnonzero(dismantle)
        state["active"] = ids[rest]
        state["finalised"] = state.get("finalised", 0) + int(np.count_nonzero(kept))
        return induced_subgraph(g, rest) if len(rest) else None

    def post_process(self, reduced, state, executor):
        # HyPar 6.3: "The graph is then reduced by removing the finalized communities and their
        # incident edges from the graph": the rest propagates on the reduced graph alone (with
        # the finalised communities voting instead, a dismantled community's singletons take the
        # label of whichever finalised neighbour they meet first, and two planted groups become one)
        if reduced is not None:
            ids = state["active"]
            state["labels"][ids] = ids[executor.run("communities", reduced, refine=False).community]
        # Then every vertex propagates on the whole graph from the merged labels (Algorithm 5's
        # postProcess("COMMDEC", G, mergeResult, finalOutput)) to label propagation's fixed point:
        # pieces of one community that parts, levels or the reduced graph formed apart, none
        # seeing the others, join where their members see more of each other than of themselves.
        # Every community is formed, so a label moves only where a vertex's neighbours outvote it
        state["labels"] = executor.run("communities", state["whole"], refine=False,
                                       labels=state["labels"]).community.astype(np.int64)

    def alone(self, g, state, executor):
        state["labels"] = executor.run("communities", g, refine=False).community.astype(np.int64)

    def finish(self, graph, g, state):
        labels, groups = _smallest_member(state["labels"])
        return {"community": labels}, {"modularity": modularity(g, labels),
                                       "num_communities": groups,
                                       "finalised": state.get("finalised", 0)}


def _label_holds(g: Graph, labels: np.ndarray, check: np.ndarray, own: np.ndarray | None = None) -> np.ndarray:
    """Per vertex: False where ``check`` is set and the vertex's label is not among the most
    frequent labels of its neighbours in ``g``; True elsewhere. ``own``: per vertex, how many
    neighbours share its label (:func:`host_ops.label_arcs`), when already counted.

    Example (vertex 2 is labelled with vertex 3's community but sees two 0s):
        >>> g = Graph.from_edges([0, 0, 1, 1, 2, 2, 2, 3], [1, 2, 0, 2, 0, 1, 3, 2], n=4)
        >>> _label_holds(g, np.array([0, 0, 3, 3]), np.ones(4, bool)).tolist()
        [True, True, False, True]
    """
    holds = np.ones(g.n, bool)
    if own is None:
        own, _ = host_ops.label_arcs(g.offsets, g.indices, labels)
    # a label held by at least half the neighbours is among the most frequent: only the others
    # need their neighbours' labels counted
    check = check & (2 * own < g.out_degree)
    rows = np.flatnonzero(check)
    if len(rows) == 0:
        return holds
    holds[rows] = own[rows] >= host_ops.top_label_count(g.offsets, g.indices, labels, rows)
    return holds


def _arc_positions(g: Graph, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """CSR positions of arcs ``(a[i], b[i])`` of ``g``, whose rows are sorted (simple graphs from
    :mod:`graphferry.transforms` are): one search over the sorted arc keys ``row * n + column``."""
    return host_ops.find_arcs(g.offsets, g.indices, a, b)


class SpanningForest(Application):
    """Boruvka's minimum spanning forest (HyPar Algorithm 3): parts grow components under the
    cut-edge exception, merge contracts them (self-edges removed, lightest parallel edge kept),
    recursion, post-processing on the reduced graph."""

    name = "mst"

    def prepare(self, graph):
        from ..transforms import cached, symmetrize

        sym = symmetrize(graph)
        if sym.weights is None:                                  # unweighted: every edge weighs 1
            # kept on the graph: filling the weights took 0.12 s of each call at Kronecker 22
            sym = cached(graph, ("hypar-mst-unit-weights",), lambda: Graph(
                sym.offsets, sym.indices, host_ops.full(sym.m, 1.0, np.float32), directed=False,
                original_ids=sym.original_ids, name=sym.name))
        return sym

    def start(self, g):
        # each arc of the current graph stands for an arc of the prepared graph: "rep" holds its
        # position there (None while the current graph is the prepared one)
        return {"prepared": g, "rep": None, "weights": g.weights, "edges": []}

    def local(self, part, block, executor, whole=None):
        spec = registry.get("mst")
        if whole is None:                                        # a sample: no cut edges to respect
            r = spec.function(part, **executor.options())
        else:
            r = spec.function(part, within=(whole, block), stop_when=self.stop_when(whole), **executor.options())
        return r.edges["source"], r.edges["target"], r.values["component"]

    def _record(self, g, state, a, b):
        """Forest edges (a, b) of ``g`` as arcs of the prepared graph."""
        if len(a) == 0:
            return
        if state["rep"] is None:                                 # g is the prepared graph: its own ids
            state["edges"].append(np.stack([np.asarray(a, np.int64), np.asarray(b, np.int64)], 1))
            return
        pos = state["rep"][_arc_positions(g, a, b)]
        prepared = state["prepared"]
        src = host_ops.rows_of(prepared.offsets, pos)            # the row holding each position
        state["edges"].append(np.stack([src, prepared.indices[pos].astype(np.int64)], 1))

    def merge(self, g, blocks, results, state):
        labels = np.empty(g.n, np.int64)
        for block, (a, b, comp) in zip(blocks, results):
            self._record(g, state, block[a], block[b])
            labels[block] = block[comp]
        reduced, groups, rep = contract(g, labels, representatives=True)
        state["rep"] = rep if state["rep"] is None else state["rep"][rep]
        return reduced if reduced.m else None

    def post_process(self, reduced, state, executor):
        r = registry.get("mst").function(reduced, **executor.options())
        self._record(reduced, state, r.edges["source"], r.edges["target"])

    def alone(self, g, state, executor):
        # Boruvka to its end. HyPar's steps on one part (Boruvka while its rounds get faster, a
        # contraction dropping the arcs inside the trees, the rest on the contracted graph) had
        # paid at Kronecker 17 on one thread (83 ms against 123). Since the executors' rounds got
        # fast they cost more than they save: Kronecker 22 (three rounds) on an H200 0.99 s against
        # 0.66 s, on its 16 cores 1.04 against 0.74 s; Kronecker 18, one thread here, 141 against 127 ms
        r = registry.get("mst").function(g, **executor.options())
        self._record(g, state, r.edges["source"], r.edges["target"])
        state["weights_of_edges"] = r.edges["weight"]            # finish need not look them up

    def finish(self, graph, g, state):
        edges = np.concatenate(state["edges"]) if state["edges"] else np.zeros((0, 2), np.int64)
        lo, hi = np.minimum(edges[:, 0], edges[:, 1]), np.maximum(edges[:, 0], edges[:, 1])
        w = state.get("weights_of_edges")
        if w is None:                                            # a split's: each edge's weight in g
            w = g.weights[_arc_positions(g, lo, hi)]
        return ({"source": lo, "target": hi, "weight": np.asarray(w, np.float32)},
                {"total_weight": float(w.astype(np.float64).sum()), "num_edges": int(len(lo))})


def modularity(g: Graph, labels: np.ndarray) -> float:
    """Newman's Q of ``labels`` on undirected simple graph ``g`` (HyPar Eq. 1)."""
    if g.m == 0:
        return 0.0
    two_m = float(g.m)
    same, _ = host_ops.label_arcs(g.offsets, g.indices, labels)   # per vertex: arcs inside its community
    inside = float(same.sum())
    tot = np.bincount(labels, weights=g.out_degree.astype(np.float64), minlength=g.n)
    return inside / two_m - float((tot ** 2).sum()) / two_m ** 2


APPLICATIONS: dict[str, Callable[[], Application]] = {
    "components": Components, "triangles": Triangles, "coloring": Coloring, "communities": Communities,
    "mst": SpanningForest}


# ------------------------------------------------------------------ BSP baseline
def ONE_ROUND(seconds: float) -> bool:
    """A stop rule ending an algorithm after its first round: one BSP superstep."""
    return True


def ghost_part(g: Graph, block: np.ndarray) -> Graph:
    """The block's edges and their other ends (ghost vertices, whose state the executor reads but does
    not own): the subgraph of the arcs with an end in ``block``, ids as in ``meta["parent_ids"]``."""
    src, dst = g.edges()
    inside = np.zeros(g.n, bool)
    inside[block] = True
    keep = inside[src] | inside[dst]
    near = inside.copy()
    near[dst[inside[src]]] = True
    return induced_subgraph(Graph.from_edges(src[keep], dst[keep], n=g.n, directed=False), np.flatnonzero(near))


class BspApplication:
    """What the BSP driver asks of an application, beside a HyPar :class:`Application` (which gives
    ``prepare``, ``start``, ``finish`` and the ``local`` run that :func:`part_graph` samples with).

    A superstep is one round of the algorithm's outer loop (HyPar 7.3.1): every executor computes
    its block's new state from the whole graph's state as it was at the last exchange (ghost
    vertices included), then :meth:`exchange` writes the blocks' results into that state."""

    max_supersteps = 10_000

    def bsp_part(self, g: Graph, block: np.ndarray, executor: Executor | None = None) -> Any:
        """What ``executor`` computes on in every superstep (built once): by default the ghost part."""
        return ghost_part(g, block)

    def superstep(self, g: Graph, part: Any, block: np.ndarray, executor: Executor, state: dict) -> Any:
        raise NotImplementedError

    def exchange(self, g: Graph, blocks: list[np.ndarray], results: list, state: dict) -> bool:
        """Write the blocks' results into ``state``; True while another superstep is needed."""
        raise NotImplementedError


def _block_positions(part: Graph, block: np.ndarray) -> np.ndarray:
    return np.searchsorted(part.meta["parent_ids"], block)


class BspComponents(BspApplication, Components):
    """Each executor finds its part's components (ghosts carry the current labels) and gives each the
    least label among its members; done when no label changes."""

    def superstep(self, g, part, block, executor, state):
        labels, ids = state["owner"], part.meta["parent_ids"]
        local = executor.run("wcc", part).labels
        least = np.full(part.n, np.iinfo(np.int64).max)
        np.minimum.at(least, local, labels[ids])
        return least[local][_block_positions(part, block)]

    def exchange(self, g, blocks, results, state):
        labels = state["owner"]
        changed = any(bool(np.any(new != labels[block])) for block, new in zip(blocks, results))
        for block, new in zip(blocks, results):
            labels[block] = new
        return changed


class BspTriangles(BspApplication, Triangles):
    """One superstep: every triangle whose lowest corner is a block vertex lies in the block's part
    of the DAG (HyPar 7.3.1: triangle counting needs no bulk synchronism); the exchange adds the counts."""

    def bsp_part(self, g, block, executor=None):
        return self.part(g, block, executor)

    def superstep(self, g, part, block, executor, state):
        return self.local(part, block, executor, whole=g)

    def exchange(self, g, blocks, results, state):
        self.merge(g, blocks, results, state)
        return False


class BspColoring(BspApplication, Coloring):
    """One speculative round per superstep on the block's uncoloured vertices, seeing the colours its
    neighbours had at the last exchange; the exchange uncolours the higher end of every edge whose
    ends took one colour (Gebremedhin-Manne across the cut). The least such vertex of a round
    always keeps its colour, so every superstep colours at least one vertex."""

    def start(self, g):
        return {**super().start(g), "conflicts": 0}

    def superstep(self, g, part, block, executor, state):
        colors, ids = state["colors"], part.meta["parent_ids"]
        mine = _block_positions(part, block)
        if not np.any(colors[block] < 0):
            return colors[block]
        keep = colors[ids] >= 0                                 # uncoloured ghosts are the other side's work
        keep[mine] = True
        kept = np.flatnonzero(keep)
        r = executor.run("coloring", induced_subgraph(part, kept), precolored=colors[ids[kept]], stop_when=ONE_ROUND)
        return r.colors[np.searchsorted(kept, mine)]

    def exchange(self, g, blocks, results, state):
        colors = state["colors"]
        for block, new in zip(blocks, results):
            colors[block] = new
        src, dst = g.edges()
        clash = (colors[src] == colors[dst]) & (src < dst) & (colors[src] >= 0)
        again = np.unique(dst[clash])
        colors[again] = -1
        state["conflicts"] += len(again)
        return bool(np.any(colors < 0))


class BspCommunities(BspApplication, Communities):
    """One label-propagation round per superstep on the block's vertices (asynchronous within the
    block), the ghosts voting with the labels of the last exchange; stopped by PLP's rule (fewer than
    ``n / 10**5`` labels changed) or after 100 supersteps (PLP's round limit)."""

    max_supersteps = 100

    def start(self, g):
        return {**super().start(g), "superstep": 0}

    def superstep(self, g, part, block, executor, state):
        ids = part.meta["parent_ids"]
        present, local = np.unique(state["labels"][ids], return_inverse=True)   # labels as ids of the part
        active = np.zeros(part.n, np.int8)
        mine = _block_positions(part, block)
        active[mine] = 1
        r = executor.run("communities", part, refine=False, max_iterations=1, seed=state["superstep"],
                         labels=local, active=active)
        return present[r.community[mine]]

    def exchange(self, g, blocks, results, state):
        labels = state["labels"]
        changed = sum(int(np.count_nonzero(new != labels[block])) for block, new in zip(blocks, results))
        for block, new in zip(blocks, results):
            labels[block] = new
        state["superstep"] += 1
        return changed >= max(1.0, g.n * 1e-5)


class BspSpanningForest(BspApplication, SpanningForest):
    """Boruvka by supersteps: each executor finds, for every component, the lightest edge leaving it
    from the block's vertices (one Boruvka round on the block's arcs between components); the
    exchange takes each component's lightest over all executors in the order ``(weight, lower
    component, higher component)``, adds those edges to the forest and merges the components."""

    def start(self, g):
        return {"component": np.arange(g.n, dtype=np.int64), "edges": []}

    def bsp_part(self, g, block, executor=None):
        lo, hi = (int(g.offsets[block[0]]), int(g.offsets[block[-1] + 1])) if len(block) else (0, 0)
        src = np.repeat(block, np.diff(g.offsets[block[0]:block[-1] + 2]) if len(block) else 0)
        return src, g.indices[lo:hi].astype(np.int64), g.weights[lo:hi]

    def superstep(self, g, part, block, executor, state):
        src, dst, w = part
        comp = state["component"]
        a, b = comp[src], comp[dst]
        cross = a != b
        a, b, w, src, dst = a[cross], b[cross], w[cross], src[cross], dst[cross]
        if len(a) == 0:
            return tuple(np.zeros(0, np.int64) for _ in range(4)) + (np.zeros(0, np.float32),)
        # one arc per pair of components (ascending pairs), the lightest then the one of least ends:
        # the quotient's edge, and the input's edge a pick of it stands for
        n = np.int64(g.n)
        pair = np.minimum(a, b) * n + np.maximum(a, b)
        olo, ohi = np.minimum(src, dst), np.maximum(src, dst)
        order = np.lexsort((ohi, olo, w, pair))
        rep = order[np.r_[True, pair[order][1:] != pair[order][:-1]]]
        lo, hi = pair[rep] // n, pair[rep] % n
        groups = np.unique(np.concatenate([lo, hi]))            # ascending: ties break as in whole ids
        quotient = Graph.from_edges(np.searchsorted(groups, lo), np.searchsorted(groups, hi), w[rep],
                                    n=len(groups), directed=False)
        r = executor.run("mst", quotient, stop_when=ONE_ROUND)
        clo, chi = groups[r.edges["source"]], groups[r.edges["target"]]
        idx = rep[np.searchsorted(pair[rep], clo * n + chi)]
        return clo, chi, olo[idx], ohi[idx], w[idx]

    def exchange(self, g, blocks, results, state):
        from scipy.sparse import coo_array
        from scipy.sparse.csgraph import connected_components

        clo, chi, olo, ohi, w = (np.concatenate(x) for x in zip(*results))
        if len(clo) == 0:
            return False
        rank = np.empty(len(clo), np.int64)
        rank[np.lexsort((ohi, olo, chi, clo, w))] = np.arange(len(clo))
        best = np.full(g.n, len(clo), np.int64)                 # per component: its least candidate
        np.minimum.at(best, np.concatenate([clo, chi]), np.concatenate([rank, rank]))
        by_rank = np.argsort(rank)
        picked = by_rank[np.unique(best[best < len(clo)])]
        state["edges"].append(np.stack([olo[picked], ohi[picked]], 1))
        joined = coo_array((np.ones(len(picked)), (clo[picked], chi[picked])), shape=(g.n, g.n))
        _, tree = connected_components(joined, directed=False)
        smallest = np.full(tree.max() + 1, g.n, np.int64)
        np.minimum.at(smallest, tree, np.arange(g.n))
        state["component"] = smallest[tree[state["component"]]]
        return True


BSP_APPLICATIONS: dict[str, Callable[[], BspApplication]] = {
    "components": BspComponents, "triangles": BspTriangles, "coloring": BspColoring,
    "communities": BspCommunities, "mst": BspSpanningForest}


def bsp(graph: Graph, app: "str | BspApplication", executors: list[Executor], *, max_supersteps: int | None = None,
        seed: int = 0, shares: list[float] | None = None) -> HyparResult:
    """Run application ``app`` (a name from :data:`BSP_APPLICATIONS`) by BSP supersteps over the blocks
    :func:`part_graph` gives HyPar: every executor computes one superstep on its block from the state
    of the last exchange, at the same time as the others; then the state is exchanged, until the
    application says it is done (or after ``max_supersteps``, by default the application's). The
    result's ``levels`` is the number of supersteps.

    Example:
        >>> from graphferry import Graph
        >>> g = Graph.from_edges([0, 1, 2, 4, 5, 7], [1, 2, 3, 5, 6, 8], n=9, directed=False)
        >>> two = [Executor("cpu"), Executor("cpu", engine="compaction", budget=1 << 16, partition_bytes=256)]
        >>> r = bsp(g, "coloring", two, shares=[0.3, 0.7])     # blocks 0-2 and 3-8
        >>> r.values["colors"].tolist(), r.cut, r.levels
        ([0, 1, 0, 1, 0, 1, 0, 0, 1], 3, 2)
    """
    if isinstance(app, str):
        app = BSP_APPLICATIONS[app]()
    if not executors:
        raise ValueError("bsp needs at least one executor")
    limit = app.max_supersteps if max_supersteps is None else max_supersteps
    t0 = time.perf_counter()
    app.use(executors)
    g = app.prepare(graph)
    state = app.start(g)
    split = part_graph(g, app, executors, seed=seed, shares=shares)
    blocks = split.blocks()
    parts = [app.bsp_part(g, block, ex) for block, ex in zip(blocks, executors)]
    seconds = np.zeros(len(executors))
    supersteps = 0

    def step(i: int):
        t = time.perf_counter()
        out = app.superstep(g, parts[i], blocks[i], executors[i], state)
        return out, time.perf_counter() - t

    pool = _pool(len(executors))
    while supersteps < limit:
        supersteps += 1
        outs = list(pool.map(step, range(len(executors))))
        seconds += [s for _, s in outs]
        if not app.exchange(g, blocks, [o for o, _ in outs], state):   # the exchange
            break
    values, scalars = app.finish(graph, g, state)
    timings = {"total": time.perf_counter() - t0, "supersteps": supersteps, "executor_seconds": seconds.tolist(),
               "executors": labels(executors), "sample_seconds": split.sample_seconds}
    return HyparResult(graph, values, scalars, timings,
                       int(split.bounds[1]) if len(split.bounds) > 2 else g.n, supersteps)


def bsp_components(graph: Graph, executors: list[Executor], *, max_supersteps: int = 10_000) -> HyparResult:
    """Connected components by BSP supersteps (:func:`bsp` with :class:`BspComponents`)."""
    return bsp(graph, "components", executors, max_supersteps=max_supersteps)
