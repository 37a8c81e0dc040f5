"""The HyPar call: :func:`hypar` (plan, then run) and :func:`part_graph` (HyPar's partGraph)."""

from __future__ import annotations

import logging
import time
from typing import Any

import numpy as np

from ..graph import Graph
from .applications import Application, application
from .blocks import _cut, _split_by
from .calibration import PlannerCalibration
from .levels import _run
from .planner import Plan, plan_for
from .sampling import _calibration
from .workers import HyparExecutor, HyparResult, Split, labels

log = logging.getLogger("graphferry.hypar")

PLANS = ("auto", "split")


def part_graph(graph: Graph, app: "Application", executors: list[HyparExecutor], *, seed: int = 0,
               shares: list[float] | None = None, calibration: "str | PlannerCalibration" = "cached") -> Split:
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



def hypar(graph: Graph, app: "str | Application", executors: list[HyparExecutor], *, threshold_edges: int = 100_000_000,
          max_levels: int = 8, seed: int = 0, stop_on_trend: bool = True,
          shares: list[float] | None = None, plan: str = "auto",
          calibration: "str | PlannerCalibration" = "cached") -> HyparResult:
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
    the graph's size), ``"fresh"`` samples this graph again, or a :class:`PlannerCalibration` to use.
    ``stop_on_trend``: iterative parts (coloring, communities, mst) end their
    independent computation when iteration times stop falling (HyPar 4.2);
    otherwise each part runs to its own convergence. ``shares``: the CPU/GPU ratio
    to split by instead of measuring it (:func:`part_graph`).
    """
    app = application(app)
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


def _learn(cal: PlannerCalibration, app: "Application", executors: list[HyparExecutor], chosen: Plan, split: Split | None,
           timings: dict, work: float, seconds: float) -> None:
    """What a call on a whole graph of ``work`` teaches ``cal``: the ``seconds`` its plan took
    (:meth:`PlannerCalibration.measure`) and, for a divisible application's split, each executor's speed
    (:meth:`PlannerCalibration.observe`)."""
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
