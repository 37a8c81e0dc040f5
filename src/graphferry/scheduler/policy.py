"""The per-partition policy: which engine and which executor serve each active partition.

Consulted once per edge_map with the iteration's :class:`PartitionStats`, the
partitions already resident on the device and the executors. The default
(cost-driven) policy prices every active partition with the
:class:`~graphferry.scheduler.cost.CostModel`:

* on the device: 0 transfer if resident, else HyTGraph's rule picks filter,
  compaction or zero-copy; plus the kernel at the device's edge rate;
* on a CPU executor: the edges at the CPU's edge rate (nothing moves), plus,
  once per iteration, the vertex state it must exchange with the device;

then gives partitions to the CPU, cheapest relative to the device first, while
that shortens the iteration (both compute at the same time, so the iteration
takes the longer of the two). Programs that declare no ``combine`` operator
stay on one executor.

``mix`` forces placements instead (tests: every mix of engines and devices):
a list of ``(where, engine)`` pairs, ``where`` being ``"device"``, ``"host"``
or an executor's name; partition ``i`` in iteration ``t`` gets entry
``(i + t) % len(mix)``, so over a few iterations every partition meets every entry.

Example:
    >>> from graphferry.scheduler.policy import Policy
    >>> Policy(mix=[("device", "filter"), ("host", "host")]).forced(partition=3, iteration=0)
    ('host', 'host')
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from .cost import CLASS_OF_COMBINE, Calibration, CostModel

DEVICE_ENGINES = ("resident", "filter", "compaction", "zerocopy")
HOST_ENGINES = ("host",)


@dataclass
class Decision:
    """What the policy sees for one iteration."""

    stats: Any                    # PartitionStats
    partitions: list
    resident: set                 # partition indices whose edges are on the device now
    executors: list               # Executor list; 0 is the device (holds the state)
    direction: str
    combine: str | None
    bytes_per_edge: int
    index_bytes: int
    state_bytes: int              # the program's vertex state (what a CPU executor exchanges)
    iteration: int


@dataclass
class Policy:
    """Per-partition placement (see module doc). ``mode``: the cost model's "calibrated" or "paper"."""

    mode: str = "calibrated"
    alpha: float = 0.8
    beta: float = 0.4
    gamma: float = 0.625
    combine_k: int = 4                # HyTGraph's k: consecutive filter partitions per copy
    residency: bool = True            # VDS: keep valuable partitions on the device
    use_cpu: bool = True              # let CPU executors take partitions
    mix: Sequence[tuple[str, str]] | None = None
    calibration: Calibration | None = None   # None: this machine's (cached, measured once)
    decay: float = 0.5                # weight of history in a partition's value
    asynchronous: bool = False        # process each loaded partition once more (min-combining push only)
    whole_side: bool = True           # one zero-copy launch over the side when that beats the per-partition plan
    _model: CostModel | None = field(default=None, init=False, repr=False)

    def __post_init__(self):
        if self.mix is not None:
            for where, engine in self.mix:
                if engine not in DEVICE_ENGINES + HOST_ENGINES:
                    raise ValueError(f"policy mix: unknown engine {engine!r}")
                if where in ("device", "host") and (where == "host") != (engine in HOST_ENGINES):
                    raise ValueError(f"policy mix: engine {engine!r} does not run on {where!r}")
        if self.combine_k < 1:
            raise ValueError(f"combine_k must be at least 1, got {self.combine_k}")

    def model(self, calibration_for) -> CostModel:
        """The cost model; ``calibration_for()`` supplies the machine's figures when none were given."""
        if self._model is None:
            cal = self.calibration if self.calibration is not None else calibration_for()
            self._model = CostModel(cal, self.mode, self.alpha, self.beta, self.gamma)
        return self._model

    def forced(self, partition: int, iteration: int) -> tuple[str, str]:
        return tuple(self.mix[(partition + iteration) % len(self.mix)])

    # ------------------------------------------------------------ the decision
    def decide(self, ctx: Decision, model: CostModel | None) -> dict[int, tuple[int, str]]:
        """``{partition index: (executor index, engine)}`` for every active partition."""
        active = ctx.stats.active()
        split = ctx.combine is not None and len(ctx.executors) > 1
        if self.mix is not None:
            return {int(i): self._place_forced(ctx, int(i), split) for i in active}
        return self._cost_driven(ctx, active, model, split)

    def _place_forced(self, ctx: Decision, i: int, split: bool) -> tuple[int, str]:
        where, engine = self.forced(i, ctx.iteration)
        for k, ex in enumerate(ctx.executors):
            if where == ex.name or (where == "device" and ex.device_side) or (where == "host" and not ex.device_side):
                if ex.device_side == (engine in HOST_ENGINES):
                    raise ValueError(f"policy mix: engine {engine!r} does not run on executor {ex.name!r}")
                if k and not split:  # this program cannot be split over executors
                    break
                return k, engine
        return 0, "filter" if engine == "host" else engine

    def _cost_driven(self, ctx: Decision, active, model: CostModel, split: bool) -> dict[int, tuple[int, str]]:
        s, parts = ctx.stats, ctx.partitions
        klass = CLASS_OF_COMBINE.get(ctx.combine, "traversal")
        out: dict[int, tuple[int, str]] = {}
        dev_cost = np.zeros(len(active))
        host_cost = np.full(len(active), np.inf)
        host_k = next((k for k, e in enumerate(ctx.executors) if not e.device_side), None)
        for j, i in enumerate(active.tolist()):
            p = parts[i]
            edges = int(s.active_edges[i])
            kernel = model.kernel_seconds("device", klass, ctx.direction, edges) + model.calibration.launch_seconds
            if i in ctx.resident:
                engine, transfer = "resident", 0.0
            else:
                engine, cost = model.transfer_engine(
                    part_edges=p.num_edges, active_vertices=int(s.active_vertices[i]), active_edges=edges,
                    lines=int(s.lines[i]), bytes_per_edge=ctx.bytes_per_edge, index_bytes=ctx.index_bytes)
                transfer = model.seconds(engine, cost)
            out[i] = (0, engine)
            dev_cost[j] = transfer + kernel
            if split and self.use_cpu and host_k is not None:
                host_cost[j] = model.kernel_seconds("host", klass, ctx.direction, edges)
        if not (split and self.use_cpu and host_k is not None) or not len(active):
            return out
        # both executors compute at once: move partitions to the CPU, cheapest relative to
        # the device first, while the longer of the two (plus the state exchange) shrinks
        sync = 2 * ctx.state_bytes / model.calibration.state_bandwidth
        t_dev, t_host = float(dev_cost.sum()), 0.0
        for j in np.argsort(host_cost / np.maximum(dev_cost, 1e-12)):
            nd, nh = t_dev - dev_cost[j], t_host + host_cost[j]
            if max(nd, nh + sync) < max(t_dev, t_host + (sync if t_host else 0.0)):
                t_dev, t_host = nd, nh
                out[int(active[j])] = (host_k, "host")
        return out
