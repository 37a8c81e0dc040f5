"""The per-partition policy: which engine and which executor serve each active partition.

Consulted once per edge_map with the iteration's :class:`PartitionStats`, the
partitions already resident on the device and the executors. The default
(cost-driven) policy prices every active partition with the
:class:`~graphferry.scheduler.cost.CostModel`:

* on the device: 0 transfer if resident, else HyTGraph's rule picks filter,
  compaction or zero-copy; plus the kernel at the device's edge rate;
* on a CPU executor: the edges at the CPU's edge rate (nothing moves), plus,
  once per iteration, the vertex state it exchanges with the device: the bytes
  the hybrid predicts the exchange will move (``Decision.exchange_bytes``: the
  whole state for a first copy, then a smoothed estimate of the bytes the
  previous exchanges moved, since the CPU executor keeps its copy and moves
  only what changed);

then gives partitions to the CPU, cheapest relative to the device first, while
that shortens the iteration (both compute at the same time, so the iteration
takes the longer of the two). Programs that declare no ``combine`` operator
stay on one executor.

Neighbourhood functions (:meth:`Policy.decide_neighbors`) read any row, so no
transfer engine applies: each partition of vertices is priced as its work
(``scheduler.stats.neighbor_work``) at the calibrated rate of the device reading
the lists in place, of the device reading a copy of the whole graph (plus its
upload, where none is resident and the budget holds one), or of the CPU; the
same split then gives partitions to the CPU where the program's
``neighbor_writes`` says how copies merge, else the cheaper executor takes all.

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

from ..engines.registry import names_where
from .cost import CLASS_OF_COMBINE, LINE_BYTES, TRANSFER_ENGINES, Calibration, CostModel


def held_mask(count: int, held) -> np.ndarray:
    """One flag a partition, of ``count``: True for those in ``held`` (a set of partition indices).
    Rounds ask which of their active partitions are held; ``np.isin`` sorts both arrays for that
    (44 us for 138 partitions on the 2-core CI host, where indexing this takes 4).

    Example:
        >>> held_mask(5, {1, 3}).tolist()
        [False, True, False, True, False]
    """
    mask = np.zeros(count, dtype=bool)
    if held:
        mask[np.fromiter(held, dtype=np.int64, count=len(held))] = True
    return mask


def device_engines() -> tuple[str, ...]:
    """The engines the hybrid may place a partition on, on the device (from the registry's traits)."""
    return names_where(hybrid_places=True, on_device=True)


def host_engines() -> tuple[str, ...]:
    """The engines a CPU executor's partitions run on (from the registry's traits)."""
    return names_where(hybrid_places=True, on_device=False)


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
    state_bytes: int              # the program's vertex state (what a first copy to a CPU executor moves)
    iteration: int
    #: executor index -> bytes its state exchange is predicted to move this iteration (the
    #: hybrid's estimate, see :class:`ExchangeEstimate`); an executor missing here: ``2 * state_bytes``
    exchange_bytes: dict = field(default_factory=dict)
    #: each partition's edges as one array (the edge side's ``partition_edges``)
    partition_edges: Any = field(kw_only=True)
    #: bytes an edge of a copied range or a zero-copy read moves (packed ids: fewer than
    #: ``bytes_per_edge``, which a compaction gather moves); None: ``bytes_per_edge``
    range_bytes_per_edge: float | None = field(default=None, kw_only=True)
    #: executor index -> edges/s its CPU runs of this program reached in earlier rounds (the
    #: hybrid's ``_host_rate``); an executor missing here is priced at the calibrated rate
    host_rates: dict = field(default_factory=dict, kw_only=True)
    #: executor indices this program has not run on yet in this direction: such an executor takes
    #: one partition, whatever the split would give it (:meth:`Policy._first_cpu_round`)
    host_untried: frozenset = field(default=frozenset(), kw_only=True)
    #: False where the budget holds no copy slots this round (the hybrid reads every partition it
    #: does not hold in place, whatever the placement says)
    copy_slots: bool = field(default=True, kw_only=True)


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
    asynchronous: bool = False        # process each loaded partition once more, as the program says (Program.again)
    whole_side: bool = True           # one zero-copy launch over the side when that beats the per-partition plan
    #: weigh the per-partition placement, as a whole, against every non-resident partition read in
    #: place (the zerocopy engine's plan, one launch): the per-partition rule cannot see a plan's
    #: launches, and at small budgets those are what the zerocopy engine alone saves
    single_engine_plans: bool = True
    _model: CostModel | None = field(default=None, init=False, repr=False)

    def __post_init__(self):
        if self.mix is not None:
            for where, engine in self.mix:
                if engine not in device_engines() + host_engines():
                    raise ValueError(f"policy mix: unknown engine {engine!r}")
                if where in ("device", "host") and (where == "host") != (engine in host_engines()):
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

    def decide_sparse(self, ctx: Decision, model: CostModel | None) -> dict[int, tuple[int, str]]:
        """:meth:`decide` for the hybrid's sparse round, unpriced where :meth:`only_in_place` says
        pricing would read every partition the device does not hold in place or gather it: the
        hybrid's whole-side plan runs for either (``HybridEngine._whole_side_pays``), and these
        are its placements (resident where held, else zerocopy)."""
        if self.whole_side and self.only_in_place(ctx, model):
            return {i: (0, "resident" if i in ctx.resident else "zerocopy") for i in ctx.stats.active().tolist()}
        return self.decide(ctx, model)

    def only_in_place(self, ctx: Decision, model: CostModel | None) -> bool:
        """True when :meth:`decide` surely places every active partition the device does not hold
        to be read in place or gathered (zerocopy or compaction): none copied whole (filter, alone
        or as the filter plan), none on a CPU executor, none on an engine registered beside
        HyTGraph's three. Bounds, not prices, so a sparse round's answer costs a few sums where
        pricing every partition costs hundreds of host operations (on the H200 the hybrid's BFS at
        1% of Kronecker 25 spent 1.3-1.4 ms more host time than the zerocopy engine alone on each of
        its two last rounds, 6,253 and 19 active edges, the same plan; a sparse round's kernels
        take a tenth of that). False where a bound cannot say (dense rounds, forced mixes, the
        paper's mode, every active partition held).

        The bounds: a partition's in-place read costs at most its lines at the dearest price a
        line has (:func:`line_seconds`), and the rule's price of it is at most that. Where each
        is below that partition's whole copy, the rule copies none, and the filter plan (every
        one copied, at least one launch) costs more than the zerocopy plan (every one read in
        place, one launch), which :meth:`_single_engine_plan` weighs before it. The device's
        share is at most the reads and its kernels; where a CPU executor's state exchange alone
        takes longer, :func:`split_to_host` moves nothing.

        Example (a partition held and two read in place, 16 and 8 lines of 10**6-edge partitions):
            >>> from graphferry.scheduler.stats import PartitionStats
            >>> st = PartitionStats(np.array([2, 1, 3]), np.array([50, 20, 90]), np.array([16, 8, 30]), None)
            >>> ctx = Decision(st, [None] * 3, {2}, [], "push", "min", 8, 8, 0, 0,
            ...                partition_edges=np.array([10**6] * 3))
            >>> Policy().only_in_place(ctx, CostModel(Calibration.nominal()))
            True
            >>> st.lines[:] = [10**6, 8, 30]                         # reading it costs more than its copy
            >>> Policy().only_in_place(ctx, CostModel(Calibration.nominal()))
            False
        """
        s = ctx.stats
        if model is None or self.mix is not None or self.mode == "paper" or s.dense or model.mode != "calibrated":
            return False
        if set(names_where(hybrid_picks=True)) - set(TRANSFER_ENGINES):
            return False   # an engine beside HyTGraph's three is priced, not bounded
        active = s.active()
        away = active[~held_mask(len(s.lines), ctx.resident)[active]] if ctx.resident else active
        if not len(away):
            return False
        c = model.calibration
        reads = s.lines[away].astype(np.float64) * line_seconds(c)    # each at least its price in place
        range_bytes = ctx.bytes_per_edge if ctx.range_bytes_per_edge is None else ctx.range_bytes_per_edge
        copies = ctx.partition_edges[away].astype(np.float64) * range_bytes / c.copy_bandwidth   # filter's
        in_place = float(reads.sum())
        # the rule copies a partition whole only where that costs no more than reading it in place;
        # the filter plan (every one copied, a launch or more) then costs more than the zerocopy
        # plan (every one read in place, one launch), which the policy weighs first
        if not (reads < copies).all():
            return False
        host_k = next((k for k, e in enumerate(ctx.executors) if not e.device_side), None)
        if ctx.combine is not None and len(ctx.executors) > 1 and self.use_cpu and host_k is not None:
            klass = CLASS_OF_COMBINE.get(ctx.combine, "traversal")
            kernels = (float(s.active_edges[active].sum()) / c.edge_rate("device", klass, ctx.direction)
                       + len(active) * c.launch_seconds)
            sync = ctx.exchange_bytes.get(host_k, 2 * ctx.state_bytes) / c.state_bandwidth
            if sync < in_place + kernels:
                return False
        return True

    def _place_forced(self, ctx: Decision, i: int, split: bool) -> tuple[int, str]:
        where, engine = self.forced(i, ctx.iteration)
        for k, ex in enumerate(ctx.executors):
            if where == ex.name or (where == "device" and ex.device_side) or (where == "host" and not ex.device_side):
                if ex.device_side == (engine in host_engines()):
                    raise ValueError(f"policy mix: engine {engine!r} does not run on executor {ex.name!r}")
                if k and not split:  # this program cannot be split over executors
                    break
                return k, engine
        return 0, "filter" if engine == "host" else engine

    def _cost_driven(self, ctx: Decision, active, model: CostModel, split: bool) -> dict[int, tuple[int, str]]:
        s = ctx.stats
        klass = CLASS_OF_COMBINE.get(ctx.combine, "traversal")
        host_k = next((k for k, e in enumerate(ctx.executors) if not e.device_side), None)
        # every active partition priced at once (a Python loop over 250 partitions cost about
        # 1 ms a round on the H200's host, more than a sparse round's kernels)
        edges = s.active_edges[active].astype(np.float64)
        kernel = edges / model.calibration.edge_rate("device", klass, ctx.direction) + model.calibration.launch_seconds
        # each engine's price of every active partition, once a round: the rule and the whole
        # plans below read the same table (priced again per plan, a round's host work doubled)
        costs = self._transfer_costs(ctx, model, active)
        engines, cost = model.rule(costs)
        on_device = held_mask(len(s.lines), ctx.resident)[active]
        engines = np.where(on_device, "resident", engines)
        dev_cost = np.where(on_device, 0.0, model.seconds("", cost)) + kernel
        if self.single_engine_plans and self.mode != "paper" and len(active) > 1:
            engines = self._single_engine_plan(ctx, model, engines, self._seconds_of(model, costs, len(active)),
                                               float(edges.sum()))
        out: dict[int, tuple[int, str]] = dict(zip(active.tolist(), zip([0] * len(active), engines.tolist())))
        if not (split and self.use_cpu and host_k is not None) or not len(active):
            return out
        # at the rate this program's CPU runs went in earlier rounds where one ran, else the
        # calibrated one: the calibration times the CPU alone, but beside the device's zero-copy
        # reads and copies the host's memory is shared (Kronecker 26 SSSP on the H200: a call
        # that gave the CPU 360 partitions took 0.80 s, one that gave it none 0.35 s)
        host_rate = ctx.host_rates.get(host_k) or model.calibration.edge_rate("host", klass, ctx.direction)
        host_cost = edges / host_rate
        # the state exchange costs what it will move, not two whole copies: the CPU executor
        # keeps its copy and moves only what changed (ExecutorState), so the hybrid predicts
        # this iteration's bytes from what the previous exchanges moved (ExchangeEstimate)
        sync = ctx.exchange_bytes.get(host_k, 2 * ctx.state_bytes) / model.calibration.state_bandwidth
        moved = split_to_host(dev_cost, host_cost, sync)
        if host_k in ctx.host_untried:
            moved = self._first_cpu_round(moved, host_cost)
        for j in moved:
            out[int(active[j])] = (host_k, "host")
        return out

    #: the CPU run a first round aims at: long enough to time (the hybrid learns no rate from a run
    #: under a millisecond: ``HybridEngine.HOST_RATE_MIN_SECONDS``)
    FIRST_CPU_SECONDS = 2e-3

    @classmethod
    def _first_cpu_round(cls, moved: list[int], host_cost) -> list[int]:
        """Of the items ``split_to_host`` moved to a CPU executor that has not run this program
        yet, the one it runs first: the cheapest whose calibrated time reaches
        :attr:`FIRST_CPU_SECONDS`, else the dearest. The calibration times the CPU alone, and
        beside the device's reads of host memory it ran far slower: Kronecker 25 SSSP on the
        H200, the first call after the warm-up gave the CPU 71-75 partition-rounds and took
        309-401 ms against 152-226 ms for every later call, which had learned the rate and gave
        it none. One partition shows the rate at the cost of one.

        Example:
            >>> Policy._first_cpu_round([0, 1, 2], [1e-3, 5e-3, 3e-3]), Policy._first_cpu_round([4], [0, 0, 0, 0, 1.0])
            ([2], [4])
        """
        if len(moved) <= 1:
            return moved
        costs = sorted((float(host_cost[j]), j) for j in moved)
        long_enough = [j for c, j in costs if c >= cls.FIRST_CPU_SECONDS]
        return [long_enough[0] if long_enough else costs[-1][1]]

    # ------------------------------------------------------------ whole plans
    #: the single engines whose plan over every non-resident partition :meth:`_single_engine_plan`
    #: weighs: not compaction, whose host gather HyTGraph's rule already discounts (alpha, beta:
    #: priced alone it looks cheapest where it is slowest; Kronecker 24 SSSP on an H200: compaction
    #: 441 ms, zero-copy 166 ms)
    SINGLE_ENGINES = ("zerocopy", "filter")

    def _single_engine_plan(self, ctx: Decision, model: CostModel, engines: np.ndarray,
                            transfer: dict[str, np.ndarray], edges: float) -> np.ndarray:
        """``engines`` (the active partitions' engines, all on the device), or every partition it
        does not hold resident on one engine (zerocopy: read in place, one launch; filter: copied
        whole, ``combine_k`` consecutive ones a copy and a launch), whichever :meth:`plan_seconds`
        prices lowest (``transfer``: each engine's seconds per partition; ``edges``: theirs in
        all): what that single engine would do at this budget, so the hybrid's plan is never
        priced above it. The per-partition rule picks each partition's cheapest transfer but
        cannot see launches: mixed, a plan's filter groups break where a partition reads in
        place, and at small budgets launches are what one engine saves."""
        kernels = self._kernel_seconds(ctx, model, edges)
        best, best_seconds = engines, self._plan_seconds(model, engines, transfer, kernels)
        resident = engines == "resident"
        for engine in self.SINGLE_ENGINES:
            if engine == "filter" and not ctx.copy_slots:
                continue  # nothing to copy into this round
            plan = np.where(resident, engines, engine)
            if not np.array_equal(plan, engines) and \
                    (t := self._plan_seconds(model, plan, transfer, kernels)) < best_seconds:
                best, best_seconds = plan, t
        return best

    def plan_seconds(self, ctx: Decision, model: CostModel, placed: dict[int, tuple[int, str]],
                     k: int | None = None) -> float:
        """What the device's share of ``placed`` costs as the hybrid runs it, partition by partition:
        each partition's transfer as the rule priced it (nothing for a resident one), the kernels
        at the device's edge rate, and a launch per task: one per resident partition, one per
        group of ``k`` (``combine_k``) filter partitions, one for every zero-copy partition
        together, one for the compaction gathers, one per partition of any other engine."""
        idx = np.array(sorted(i for i, (ex, _) in placed.items() if ex == 0), dtype=np.int64)
        if not len(idx):
            return 0.0
        engines = np.array([placed[int(i)][1] for i in idx])
        transfer = self._transfer_seconds(ctx, model, idx)
        kernels = self._kernels(ctx, model, idx)
        return self._plan_seconds(model, engines, transfer, kernels, k)

    def _plan_seconds(self, model: CostModel, engines: np.ndarray, transfer: dict[str, np.ndarray],
                      kernels: float, k: int | None = None) -> float:
        """:meth:`plan_seconds` of partitions on ``engines`` (one entry each), their transfers'
        seconds per engine ``transfer`` and their kernels' ``kernels``."""
        moved = np.zeros(len(engines))
        names, counts = np.unique(engines, return_counts=True)
        for name in names.tolist():
            if name != "resident":
                on = engines == name
                moved[on] = transfer[name][on]
        k = self.combine_k if k is None else k
        counts = dict(zip(names.tolist(), counts.tolist()))
        launches = (counts.pop("resident", 0) + -(-counts.pop("filter", 0) // k)
                    + (1 if counts.pop("zerocopy", 0) else 0) + (1 if counts.pop("compaction", 0) else 0)
                    + sum(counts.values()))
        return float(moved.sum()) + kernels + launches * model.calibration.launch_seconds

    def whole_side_seconds(self, ctx: Decision, model: CostModel, placed: dict[int, tuple[int, str]],
                           span: tuple[int, int] | None = None) -> float:
        """What the one-launch plan over the whole side costs for ``placed``'s device partitions:
        every one read in place (its zero-copy lines) except those in ``span`` (the one resident
        block read from the device, a launch of its own): a partition resident in a block of its
        own is read across the bus like the rest, which is why this is priced, not assumed."""
        idx = np.array(sorted(i for i, (ex, _) in placed.items() if ex == 0), dtype=np.int64)
        if not len(idx):
            return 0.0
        lines = self._transfer_seconds(ctx, model, idx)["zerocopy"]
        in_span = (idx >= span[0]) & (idx < span[1]) if span is not None else np.zeros(len(idx), bool)
        launches = 1 if span is None else 3
        return float(lines[~in_span].sum()) + self._kernels(ctx, model, idx) + launches * model.calibration.launch_seconds

    def whole_side_wins(self, ctx: Decision, model: CostModel, placed: dict[int, tuple[int, str]],
                        span: tuple[int, int] | None = None, k: int | None = None) -> bool:
        """Whether the whole-side plan is priced below the per-partition one (:meth:`plan_seconds`
        against :meth:`whole_side_seconds`): the hybrid's structural test says when the plan may
        run, this says whether it pays. More budget then never makes a round dearer: a partition
        resident in a block of its own is not read across the bus by a whole-side plan unless
        reading it there costs less than its own launch.

        Example (four partitions, the last three resident, all their rows active; one vertex of the first):
            >>> import numpy as np
            >>> from graphferry.scheduler.cost import Calibration, CostModel
            >>> from graphferry.scheduler.stats import PartitionStats
            >>> st = PartitionStats(np.array([1, 5000, 5000, 5000]), np.array([4] + [10**6] * 3),
            ...                     np.array([1] + [40000] * 3), None)
            >>> ctx = Decision(st, [None] * 4, {1, 2, 3}, [], "push", "min", 8, 8, 0, 0,
            ...                partition_edges=np.array([10**6] * 4))
            >>> model, placed = CostModel(Calibration.nominal()), {0: (0, "zerocopy")}
            >>> placed.update({i: (0, "resident") for i in (1, 2, 3)})
            >>> Policy().whole_side_wins(ctx, model, placed)               # in blocks of their own: read in place
            False
            >>> Policy().whole_side_wins(ctx, model, placed, span=(1, 4))  # one span: 3 launches, not 4
            True
        """
        return self.whole_side_seconds(ctx, model, placed, span) < self.plan_seconds(ctx, model, placed, k)

    @staticmethod
    def _transfer_costs(ctx: Decision, model: CostModel, idx: np.ndarray) -> dict[str, np.ndarray]:
        """Each engine's cost (:meth:`CostModel.transfer_costs`) of partitions ``idx``."""
        s = ctx.stats
        return model.transfer_costs(
            part_edges=ctx.partition_edges[idx], active_vertices=s.active_vertices[idx],
            active_edges=s.active_edges[idx].astype(np.float64), lines=s.lines[idx],
            bytes_per_edge=ctx.bytes_per_edge, index_bytes=ctx.index_bytes,
            range_bytes_per_edge=ctx.range_bytes_per_edge)

    @staticmethod
    def _seconds_of(model: CostModel, costs: dict[str, np.ndarray], n: int) -> dict[str, np.ndarray]:
        return {name: np.broadcast_to(model.seconds(name, c), (n,)) for name, c in costs.items()}

    def _transfer_seconds(self, ctx: Decision, model: CostModel, idx: np.ndarray) -> dict[str, np.ndarray]:
        return self._seconds_of(model, self._transfer_costs(ctx, model, idx), len(idx))

    @staticmethod
    def _kernel_seconds(ctx: Decision, model: CostModel, edges: float) -> float:
        klass = CLASS_OF_COMBINE.get(ctx.combine, "traversal")
        return edges / model.calibration.edge_rate("device", klass, ctx.direction)

    def _kernels(self, ctx: Decision, model: CostModel, idx: np.ndarray) -> float:
        return self._kernel_seconds(ctx, model, float(ctx.stats.active_edges[idx].sum()))

    # ------------------------------------------------------------ neighbourhood functions
    def decide_neighbors(self, ctx: "NeighborDecision", model: CostModel | None) -> dict[int, tuple[int, str]]:
        """``{partition index: (executor index, place)}`` for every partition with vertices, place
        "resident" (the device, from its copy of the whole graph), "held" (the device, from the
        copy of its rows that edge maps keep there), "zerocopy" (the device, reading the host's
        lists in place) or "host" (a CPU executor, reading them where they lie)."""
        todo = [p.index for p in ctx.partitions if p.num_vertices]
        host_k = next((k for k, e in enumerate(ctx.executors) if not e.device_side), None)
        split = ctx.writes is not None and host_k is not None
        if self.mix is not None:
            return self._neighbors_forced(ctx, todo, split)
        model = model if model is not None else CostModel(Calibration.nominal())
        work = np.asarray([ctx.work[i] for i in todo], dtype=np.float64)
        total = float(work.sum())
        # the device: rows held there read from their copy at device speed (a function that
        # reads only its own rows reads nothing outside them), the rest across the bus ...
        held = np.isin(np.asarray(todo, dtype=np.int64), np.fromiter(ctx.held, dtype=np.int64, count=len(ctx.held))) \
            if ctx.reads == "row" and ctx.held else np.zeros(len(todo), dtype=bool)
        rate = np.where(held, model.neighbor_seconds("resident", ctx.reads, 1.0),
                        model.neighbor_seconds("zerocopy", ctx.reads, 1.0))
        dev_cost = work * rate
        places = np.where(held, "held", "zerocopy")
        # ... or all from its copy of the whole graph (once uploaded, read at device speed)
        # when that beats it for this function's work
        if ctx.whole_resident or ctx.whole_fits:
            upload = 0.0 if ctx.whole_resident else ctx.whole_bytes / model.calibration.copy_bandwidth
            t_res = upload + model.neighbor_seconds("resident", ctx.reads, total)
            if t_res < float(dev_cost.sum()):
                dev_cost = work * (t_res / total) if total else np.zeros(len(todo))
                places = np.full(len(todo), "resident")
        out = {i: (0, str(place)) for i, place in zip(todo, places)}
        if not (self.use_cpu and host_k is not None) or not todo:
            return out
        host_cost = np.array([model.neighbor_seconds("host", ctx.reads, w) for w in work])
        # the exchange: the state in (predicted as for edge maps) and back (a copy merged
        # by ranges or by the combine operator: at most the whole state)
        sync = (ctx.exchange_bytes.get(host_k, ctx.state_bytes) + ctx.state_bytes) / model.calibration.state_bandwidth
        if split:  # both at once, as edge_map does
            for j in split_to_host(dev_cost, host_cost, sync):
                out[todo[j]] = (host_k, "host")
        elif float(host_cost.sum()) + sync < float(dev_cost.sum()):  # one executor: the cheaper one
            out = {i: (host_k, "host") for i in todo}
        return out

    def _neighbors_forced(self, ctx: "NeighborDecision", todo: list[int], split: bool) -> dict[int, tuple[int, str]]:
        places = {"resident": "resident", "host": "host"}  # every other device engine reads in place
        out = {}
        for i in todo:
            k, engine = self._place_forced(ctx, i if split else todo[0], True)
            out[i] = (k, places.get(engine, "zerocopy"))
        return out


class DensePlacements:
    """The placement of a hybrid side's last dense round (every row counts: a pull, or all vertices),
    reused while a round sees the same.

    A dense round's statistics are one cached table per side (``scheduler.stats.dense_stats``), so
    a round that sees the same table, resident partitions, slots, state, exchange forecasts,
    CPU rates and untried CPU executors as the last dense one, priced by the same figures and rules, is placed as that one
    was, without pricing its partitions again. PageRank at 1% of Kronecker 24 priced 124
    partitions every round, the host's work a round the filter engine alone does not have.

    Example:
        >>> dense = DensePlacements()
        >>> class Seen:  # a stand-in for Decision (what place() reads)
        ...     stats, direction, combine, resident, copy_slots, state_bytes = "table", "pull", "sum", {1}, True, 8
        ...     exchange_bytes, host_rates, host_untried = {}, {}, frozenset()
        >>> class Pricing:
        ...     calibration, calls = Calibration.nominal(), 0
        >>> class Counting(Policy):
        ...     def decide(self, ctx, model):
        ...         model.calls += 1
        ...         return {0: (0, "filter")}
        >>> policy, model = Counting(), Pricing()
        >>> dense.place(Seen(), policy, model), dense.place(Seen(), policy, model), model.calls
        ({0: (0, 'filter')}, {0: (0, 'filter')}, 1)
    """

    def __init__(self):
        self._last: tuple | None = None

    def place(self, ctx: "Decision", policy: "Policy", model) -> dict[int, tuple[int, str]]:
        if model is None:  # a forced mix: placed by iteration
            return policy.decide(ctx, model)
        key = (ctx.direction, ctx.combine, frozenset(ctx.resident), ctx.copy_slots, ctx.state_bytes,
               tuple(sorted(ctx.exchange_bytes.items())), tuple(sorted(ctx.host_rates.items())), ctx.host_untried,
               id(model.calibration), policy.mode, policy.alpha, policy.beta, policy.gamma, policy.combine_k,
               policy.use_cpu, policy.single_engine_plans)
        last = self._last
        if last is not None and last[0] is ctx.stats and last[1] is model.calibration and last[2] == key:
            return dict(last[3])
        placed = policy.decide(ctx, model)
        # (the calibration is kept with the key: its id is in the key, and is not reused while held)
        self._last = (ctx.stats, model.calibration, key, dict(placed))
        return placed


@dataclass
class NeighborDecision:
    """What the policy sees for one neighbourhood function (``neighbor_map``)."""

    work: Any                     # per partition: scheduler.stats.neighbor_work
    partitions: list
    executors: list               # Executor list; 0 is the device (holds the state)
    reads: str                    # Program.neighbor_reads
    writes: str | None            # Program.neighbor_writes (None: one executor runs it all)
    state_bytes: int
    whole_bytes: int              # a device copy of the whole graph (what "resident" uploads)
    whole_resident: bool          # that copy is on the device already
    whole_fits: bool              # that copy fits the device budget
    iteration: int = 0
    exchange_bytes: dict = field(default_factory=dict)
    held: frozenset = frozenset()  # partitions whose edges edge maps keep on the device (span, own blocks)


def line_seconds(calibration: Calibration) -> float:
    """The most a zero-copy line costs at ``calibration``'s rates (:meth:`CostModel.price`: a line
    whose rows use ``r`` of its bytes costs ``r / rate(r)``, ``r`` between the smallest request
    measured and a whole line). Between two measured sizes the rate is linear in ``log r``, so
    ``r / rate(r)`` has no maximum inside: the largest is at a measured size or an end.

    Example:
        >>> cal = Calibration.nominal()
        >>> line_seconds(cal) == max(32 / cal.zerocopy_rate(32), 128 / cal.zerocopy_rate(128))
        True
    """
    sizes = sorted(calibration.zerocopy_bandwidth)
    ends = [float(r) for r in sizes if sizes[0] <= r <= LINE_BYTES] + [float(min(sizes[0], LINE_BYTES)), float(LINE_BYTES)]
    return max(r / calibration.zerocopy_rate(r) for r in ends)


def split_to_host(dev_cost, host_cost, sync: float) -> list[int]:
    """Which items (indices into the cost vectors) go to the CPU executor: both executors compute
    at once, so items move to the CPU, cheapest relative to the device first, while the longer of
    the two sides (the CPU's plus ``sync``, its state exchange) shrinks.

    Example:
        >>> split_to_host([4.0, 4.0, 4.0], [1.0, 5.0, 9.0], sync=1.0)  # 12 s alone, 7 s split
        [0, 1]
        >>> split_to_host([4.0, 4.0, 4.0], [1.0, 5.0, 9.0], sync=11.0)  # the exchange eats the gain
        []
    """
    dev_cost, host_cost = np.asarray(dev_cost, np.float64), np.asarray(host_cost, np.float64)
    t_dev, t_host = float(dev_cost.sum()), 0.0
    if sync >= t_dev:  # the exchange alone outlasts the device's whole share: no move can pay
        return []      # (a sparse round's usual case; the loop below cost 0.2 ms of it)
    moved = []
    for j in np.argsort(host_cost / np.maximum(dev_cost, 1e-12), kind="stable"):
        nd, nh = t_dev - dev_cost[j], t_host + host_cost[j]
        if max(nd, nh + sync) < max(t_dev, t_host + (sync if t_host else 0.0)):
            t_dev, t_host = nd, nh
            moved.append(int(j))
    return moved


def smoothed(old: float | None, seen: float, weight: float = 0.5) -> float:
    """An exponentially smoothed figure learned from rounds: ``weight * seen + (1 - weight) * old``,
    or ``seen`` where nothing was learned yet.

    Example:
        >>> smoothed(None, 4.0), smoothed(4.0, 2.0), smoothed(4.0, 2.0, weight=0.25)
        (4.0, 3.0, 3.5)
    """
    return seen if old is None else weight * seen + (1 - weight) * old


@dataclass
class ExchangeEstimate:
    """The bytes a CPU executor's state exchange will move, predicted from the bytes moved before.

    The CPU executor keeps its copy of the state between edge_maps and moves only the
    vertices whose state changed (:class:`~graphferry.scheduler.executors.ExecutorState`).
    How many will have changed is not known before the iteration runs; the previous
    iterations' exchanges are the forecast, as HyTGraph forecasts an iteration's work from
    the last one's output ("the algorithm takes only the vertices updated by the previous
    iteration as input", sec. I) and VDS exchanges only what an iteration updated (sec.
    III-C: "updated vertices are transferred from the GPU to the CPU. Notably, only edges
    that have been updated are transmitted") and values subgraphs by their activity.
    So, per executor, an exponentially smoothed mean of the moved bytes,
    ``estimate <- smoothing * moved + (1 - smoothing) * estimate``, seeded by the first
    measurement. A copy that does not exist yet, or follows another program state, is a
    whole copy first: the prediction is then the state's bytes, and that one-off copy is
    left out of what the estimate learns (``observe(moved, first_copy=...)``), else one
    first copy would price the CPU out of every later iteration of the run, and a CPU that
    takes no partitions never measures the smaller exchanges that follow.

    Example:
        >>> e = ExchangeEstimate()
        >>> e.predict(mirrored=False, state_bytes=1000)   # a first copy moves the whole state
        1000.0
        >>> e.observe(1100, first_copy=1000); e.observe(300)
        >>> e.predict(mirrored=True, state_bytes=1000)
        200.0
    """

    smoothing: float = 0.5
    estimate: float | None = None

    def predict(self, mirrored: bool, state_bytes: int) -> float:
        if not mirrored or self.estimate is None:
            return float(state_bytes)
        return float(self.estimate)

    def observe(self, moved: int, first_copy: int = 0) -> None:
        """Learn from an exchange that moved ``moved`` bytes, ``first_copy`` of them a whole first copy."""
        m = float(max(0, moved - first_copy))
        self.estimate = smoothed(self.estimate, m, self.smoothing)


@dataclass
class ExchangeSpeed:
    """How fast a CPU executor's state exchanges actually ran, against the calibrated state bandwidth.

    The calibration times one plain copy of a 256 MB array each way; an exchange also finds
    the changed vertices, scatters them on the host and copies owned ranges back, and at
    Kronecker 25 on an H200 host it moved 356 MB in 100 ms (3.6 GB/s) where the calibration
    said more: the CPU was given BFS partitions it then made 4.7x slower than zero-copy alone.
    So the hybrid keeps, per executor and across calls and programs (the speed is the
    machine's, not the program's), the smoothed ratio of measured to calibrated seconds, and
    prices the predicted bytes with it (``scale``).

    Example:
        >>> s = ExchangeSpeed()
        >>> s.scale()
        1.0
        >>> s.observe(moved=1_000_000, seconds=0.004, bandwidth=1e9)  # 4 ms where 1 ms was expected
        >>> s.scale()
        4.0
    """

    smoothing: float = 0.5
    ratio: float | None = None

    def observe(self, moved: int, seconds: float, bandwidth: float) -> None:
        if moved <= 0 or seconds <= 0 or bandwidth <= 0:
            return
        r = seconds / (moved / bandwidth)
        self.ratio = smoothed(self.ratio, r, self.smoothing)

    def scale(self) -> float:
        return 1.0 if self.ratio is None else float(self.ratio)
