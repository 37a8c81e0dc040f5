"""What HyPar's sampled runs and whole calls measured: :class:`Rate` lines and the
:class:`PlannerCalibration` the planner reads (HyPar Section 4.1, and FFTW-like measured plans)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..graph import Graph
from .workers import HyparExecutor, labels

REUSE_UP_TO = 2.0            # a kept calibration serves graphs up to this many times the size it was sampled from


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
class PlannerCalibration:
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
            >>> c = PlannerCalibration([0.5, 0.5], [Rate(0.0, 3e-6), Rate(0.002, 1e-6)], None, [], [])
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
            >>> c = PlannerCalibration([0.5, 0.5], [], None, [], [])
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

    def predict(self, work: float, executors: list[HyparExecutor]) -> dict[str, float]:
        """Predicted seconds of every plan on a graph of this work: ``split`` and each executor
        alone by its label. A plan measured on a whole graph within :data:`REUSE_UP_TO` times this
        work (:meth:`measure`) is predicted from that, scaled as its sampled rate grows from the
        measured graph's work to this one (a rate with a fixed part grows more slowly than the
        work, and the datasets' sub-millisecond calls are mostly fixed cost); else from the
        sampled rates. A divisible application's split, unmeasured, is the executors' rates
        combined: together they do ``1 / sum(1 / T_i)`` (no merge, nothing left to post-process).

        Example (a divisible application: 3 s and 1.5 s alone make 1 s split; then a measured
        split of 1.2 s on a graph of half this work says 2.4 s here):
            >>> c = PlannerCalibration([0.5, 0.5], [Rate(0.0, 3.0), Rate(0.0, 1.5)], None, [], [], divisible=True)
            >>> exs = [HyparExecutor("cpu", name="a"), HyparExecutor("cpu", name="b")]
            >>> c.predict(1.0, exs)
            {'a': 3.0, 'b': 1.5, 'split': 1.0}
            >>> c.measure("split", 0.5, 1.2); c.predict(1.0, exs)["split"]
            2.4

        Example (mostly fixed cost: 0.3 ms measured at work 1000 says about 0.33 ms at 2000, not 0.6):
            >>> c = PlannerCalibration([1.0], [Rate(2e-4, 1e-8)], None, [], [])
            >>> c.measure("cpu", 1000.0, 3e-4); round(c.predict(2000.0, [HyparExecutor("cpu")])["cpu"] * 1e3, 3)
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
            >>> c = PlannerCalibration([1.0], [], None, [], [])
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
