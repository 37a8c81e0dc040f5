"""HyPar's sampled runs (Section 4.1): :func:`calibrate` on induced subgraphs of a few percent of
the vertices, and the calibrations kept per application and executors for the process."""

from __future__ import annotations

import logging
import threading
import time

import numpy as np

from ..graph import Graph
from ..transforms import induced_subgraph
from .applications import Application, application, fresh, hypar_class
from .blocks import _cut
from .calibration import PlannerCalibration, fit_rate
from .levels import _run
from .planner import Plan
from .workers import HyparExecutor, labels

log = logging.getLogger("graphferry.hypar")

SAMPLE_FRACTIONS = (0.05, 0.075, 0.10)   # HyPar 4.1: three sampled induced subgraphs of 5-10% of the vertices
MIN_SAMPLE_SECONDS = 0.01    # the samples grow (doubling) until the largest runs this long on the fastest executor ...
MAX_SAMPLE_FRACTION = 0.4    # ... or would hold more than this fraction of the vertices
SAMPLE_REPEATS = 2           # each sampled run's time is the least of this many


#: calibrations kept for the process, per (application, executors): HyPar measures the ratio once
_CALIBRATIONS: dict[tuple, PlannerCalibration] = {}
_CALIBRATIONS_LOCK = threading.Lock()


def clear_calibrations() -> None:
    """Forget every kept calibration (the next call samples again)."""
    with _CALIBRATIONS_LOCK:
        _CALIBRATIONS.clear()


def _calibration_key(app: "Application", executors: list[HyparExecutor]) -> tuple:
    return (hypar_class(app), app.stop_on_trend, tuple(executors))


def calibrate(graph: Graph, app: "str | Application", executors: list[HyparExecutor], *, seed: int = 0,
              split_runs: bool = True, **settings) -> PlannerCalibration:
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
        >>> two = [HyparExecutor("cpu"), HyparExecutor("cpu", engine="compaction", budget=1 << 16, partition_bytes=256)]
        >>> c = calibrate(g, "components", two)
        >>> len(c.shares), round(sum(c.shares), 6), len(c.alone), c.split is not None, len(c.sizes)
        (2, 1.0, 2, True, 3)
    """
    app = application(app)
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
        works.append(fresh(app).work(sample))
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
    cal = PlannerCalibration(shares=(speed / speed.sum()).tolist(),
                      alone=[fit_rate(works, alone[:, i].tolist()) for i in range(k)],
                      split=fit_rate(works, split.tolist()) if split_runs and k > 1 else None,
                      sample_seconds=seconds.tolist(), sizes=sizes, works=works,
                      graph_size=graph.n + graph.m, divisible=app.divisible)
    if k > 1 and alone[-1].min() < MIN_SAMPLE_SECONDS:
        # even the largest sample ran in less than MIN_SAMPLE_SECONDS: lines through such runs fit
        # fixed costs and noise (on graphs of a few thousand arcs they predicted a GPU 10x too slow or
        # a split 5x too fast). The whole graph then costs about as little to run: measure every
        # plan on it, and let the planner read those (PlannerCalibration.measure)
        whole = fresh(app).work(graph)
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


def _seconds_alone(sample: Graph, app: "Application", ex: HyparExecutor, settings: dict) -> float:
    """Seconds of one sampled run of ``app`` on executor ``ex`` alone, the same code as a call's."""
    t = time.perf_counter()
    _run(sample, fresh(app), [ex], Plan(0, "calibration"), None, None, **settings)
    return time.perf_counter() - t


def _seconds_split(sample: Graph, app: "Application", executors: list[HyparExecutor], shares: list[float],
                   settings: dict) -> float:
    """Seconds of one sampled run of ``app`` split over ``executors`` in ``shares``, the same code as a call's."""
    t = time.perf_counter()
    _run(sample, fresh(app), executors, Plan(None, "calibration"), _cut(sample, shares, executors, app),
         None, **settings)
    return time.perf_counter() - t


def _sample(graph: Graph, fraction: float, rng: np.random.Generator) -> Graph:
    size = min(graph.n, max(1, int(round(graph.n * fraction))))
    return induced_subgraph(graph, np.sort(rng.choice(graph.n, size=size, replace=False)))


def sample_fractions(graph: Graph, app: "str | Application", executors: list[HyparExecutor], *, seed: int = 0,
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
        >>> fr = sample_fractions(kronecker_graph(8, seed=1), "components", [HyparExecutor("cpu")])
        >>> fr[0] / 0.05 == fr[2] / 0.10 and fr[2] <= MAX_SAMPLE_FRACTION
        True
    """
    app = application(app)
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


def _calibration(graph: Graph, app: "Application", executors: list[HyparExecutor], calibration, seed: int,
                 split_runs: bool = True, **settings) -> tuple[PlannerCalibration, str]:
    """The calibration to use and where it came from: given, kept from an earlier call, or sampled now
    (``split_runs``: with the split's rate, which the planner needs and the shares alone do not)."""
    if isinstance(calibration, PlannerCalibration):
        return calibration, "given"
    if calibration not in ("cached", "fresh"):
        raise ValueError(f"hypar: argument 'calibration' must be 'cached', 'fresh' or a PlannerCalibration, "
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
