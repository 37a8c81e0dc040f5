"""The planner: HyPar's split or one executor alone, from the calibration's predictions and
measured calls (:func:`plan_for`)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..graph import Graph
from .calibration import PlannerCalibration
from .workers import HyparExecutor, labels

SPLIT_MARGIN = 0.8           # the split runs only when predicted at most this fraction of the best executor alone
EXPLORE_WITHIN = 5.0         # a plan not yet run at a graph's size, predicted within this factor of the best run, runs once
RETRY_WITHIN = 1.5           # a plan run at this size, measured within this factor of the best run, runs again ...
RETRY_RUNS = 3               # ... until it has this many measurements (the least of them stands)
RETRY_CHEAP_S = 0.05         # a plan measured once, at most this many seconds, runs once more however far behind


@dataclass
class Plan:
    """The planner's choice: ``alone`` (an executor's index) or ``None`` for HyPar's split, and why."""

    alone: int | None
    why: str
    predicted: dict[str, float] = field(default_factory=dict)
    trial: bool = False     # a plan run to measure it (:func:`_plan_to_explore`), not the predicted best


def plan_for(graph: Graph, calibration: PlannerCalibration, executors: list[HyparExecutor], work: float | None = None) -> Plan:
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
        >>> from graphferry.hypar.calibration import Rate
        >>> g = Graph.from_edges([0, 1], [1, 2], n=3, directed=False)
        >>> exs = [HyparExecutor("cpu", name="a"), HyparExecutor("cpu", name="b")]
        >>> cal = PlannerCalibration([0.5, 0.5], [Rate(0.0, 1.0), Rate(0.0, 2.0)], Rate(0.0, 1.5), [1.0, 2.0], [])
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


def _plan_to_explore(calibration: PlannerCalibration, predicted: dict[str, float], names: list[str],
                     work: float) -> Plan | None:
    """FFTW's "measure" planning, spread over calls: once some plan has run on a graph of about
    this size, a plan that has not, predicted within :data:`EXPLORE_WITHIN` times the best run one,
    runs once (the likeliest first), so that the sampled rates' errors (at Kronecker 22 they put a
    GPU's label propagation at 4.7x its time) cost one call and not every call; its time is
    then measured like the rest. None: nothing to try.

    Example (the CPU ran; the GPU, predicted 3x slower, has not):
        >>> from graphferry.hypar.calibration import Rate
        >>> c = PlannerCalibration([0.5, 0.5], [Rate(0.0, 1.0), Rate(0.0, 3.0)], None, [], [])
        >>> c.measure("cpu", 1.0, 1.0)
        >>> p = _plan_to_explore(c, c.predict(1.0, [HyparExecutor("cpu"), HyparExecutor("cuda")]), ["cpu", "cuda"], 1.0)
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
    # alone it ran in 0.22 ms. (Every measured plan has its count: PlannerCalibration.measure.)
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
