"""The hybrid engine: per partition and per iteration, residency, filter, compaction,
zero-copy on the device, or the CPU computing the edges where they lie.

Each edge_map (HyTGraph Algorithm 1 and sec. VI, VDS sec. III-C):

1. **statistics** of the frontier per partition, in one pass where the frontier
   lies (:mod:`~graphferry.scheduler.stats`); only per-partition counts come back;
2. the **policy** places every active partition (engine and executor);
3. **residency** (VDS): a partition placed on ``filter`` is copied into a block of
   its own that stays on the device when the budget left over by the transfer
   slots holds it, or when it is worth more than resident partitions it displaces;
   a partition's value is its share of active edges, with history
   (``value <- decay * value + active_edges / edges``: partitions whose vertices
   have converged lose value and are displaced first); a resident partition moves
   nothing. Beside those blocks, a round that reads every partition (a pull, or all
   vertices) keeps the most valuable run of consecutive partitions that fits the room
   no block or slot holds as one block, the **span**: copying a partition whole costs
   what reading all of it costs, and one block is read by one launch (below);
4. **task combining** (HyTGraph sec. V-B): up to ``k`` consecutive ``filter``
   partitions are one copy into one slot and one kernel launch; every
   ``compaction`` partition's active rows are gathered into one staging buffer
   (chunks of a slot), one copy and one launch per chunk; all ``zerocopy``
   partitions are one launch over their rows;
5. **scheduling** (sec. VI-B): filter tasks first, in order of their active edges
   (contribution first), then zero-copy and compaction; on a GPU the copies run
   on the copy stream and the kernels on the compute stream, each copy waiting
   only for the kernel that last read its slot, so the CPU's gather for the next
   chunk, the copy of one task and the kernel of another overlap. Kernels of
   partitions already resident go between the filter groups, as many as the next
   group's copy leaves time for (priced at the rate this program's kernels ran in
   earlier rounds on the device clock), so they never hold the kernel that frees a
   slot. CPU executors compute their partitions at the same time in their own threads;
6. the executors' states are **merged** into the device's (pull: owned ranges;
   push: the program's combine operator) and their frontiers OR-ed.

One plan beside the per-partition one (``Policy.whole_side``, off in HyTGraph's
``paper`` mode): when no partition needs a copy of its own, one zero-copy launch
over the whole side reads exactly the lines the per-partition plan would read,
without its per-partition launches, its compaction on the host (the frontier's
ids travel to the host and back) or its tail of small tasks. That is so when

* the iteration pushes and the policy placed every partition on zero-copy,
  compaction or residency (a sparse frontier: the bytes are few, the fixed
  costs are what remains; measured at Kronecker 25 on an H200, BFS's push steps
  took 49 ms as 125 tasks against 5 ms as one launch), or
* it pulls with a program that stops a row at its first useful edge (BFS): a
  copy moves whole partitions, while zero-copy reads only the lines before each
  row stops (the filter-placed pull steps took 52 ms; read in place, 15-20 ms).

The span's rows are read from its device copy in a launch of their own and the
rows before and after it in place (three launches); partitions in blocks of their
own are then read across the bus like the rest. A CPU executor's placements keep
the per-partition plan.

Neighbourhood functions (``neighbor_map``: triangles, LCC, CDLP, ...) may read
any row of the graph, so no transfer engine serves them: each partition of
vertices runs on the device reading the host's lists in place (zero-copy), on
the device from a copy of the whole graph kept in the pool (where the budget
holds one), or on a CPU executor reading the lists where they lie; the policy
prices each by its work (:func:`~graphferry.scheduler.stats.neighbor_work`) at
calibrated rates, and splits a function over executors only where the program
says how their copies merge (``Program.neighbor_writes``). On a Kronecker-22
graph on an H200 the device alone read triangle counting's rows in place in
31 s against 19 s for the whole call on the 16 cores.

Synchronous: every iteration sees the previous one's values, so results equal
the CPU backend's (integers bit for bit). The frontier's ids stay on the device
for device-side tasks; the host sees them only for compaction and CPU work.
"""

from __future__ import annotations

import collections
import dataclasses
import logging
import time
from concurrent.futures import ThreadPoolExecutor
import numpy as np

from ..backends.base import PartitionView
from ..engines.base import Engine, PartitionCounts
from ..engines.registry import engine_class
from .executors import ExecutorState, owned_ranges
from .hybrid_neighbors import NeighborMaps
from .policy import Decision, DensePlacements, ExchangeEstimate, ExchangeSpeed, Policy, device_engines, smoothed
from .residency import Residency
from .stats import partition_stats

log = logging.getLogger(__name__)



@dataclasses.dataclass
class _Refresh:
    """The other executors' copies of the state as brought up to date for one map: ``states`` per
    executor, ``fresh`` those that copied the whole state (no copy of it before), ``seconds``
    each one's refresh, ``total_seconds`` all of them."""

    states: dict = dataclasses.field(default_factory=dict)
    fresh: set = dataclasses.field(default_factory=set)
    seconds: dict = dataclasses.field(default_factory=dict)
    total_seconds: float = 0.0


@dataclasses.dataclass
class _Round:
    """What one edge_map decided before it runs (:meth:`HybridEngine._decide`)."""

    stats: object
    dense: bool
    shape: object
    k: int
    resident_before: set
    resident: set
    state_bytes: int
    model: object
    placed: dict


class HybridEngine(NeighborMaps, Residency, Engine):
    """The hybrid engine of one edge side (kept by a loaded graph with its pool and executors).

    It places each active partition on an engine and an executor every round (the policy) and
    runs them through the engines' own bodies (:meth:`~graphferry.engines.base.Engine.load_group`,
    built ``lent``: :meth:`_engine`) in the slots and blocks its pool lends them. What is the
    hybrid's is the plan: which partitions go together (filter's groups of up to ``k``
    consecutive partitions, compaction's chunks, one zero-copy launch over all of its
    partitions), in which order, and what stays resident (``_run_filter``, ``_run_compaction``,
    ``_run_zerocopy``, ``_run_resident``); any other engine the registry says it may pick
    (``hybrid_picks``) runs one partition a slot (:meth:`_run_composed`)."""

    name = "hybrid"
    moves = "mixed"       # what the engines it places move, partition by partition
    splits_partitions = True
    schedules = True  # the runtime hands it whole edge_maps
    reads_packed = True  # copies and zero-copy reads use the side's range layout (packed ids)

    def __init__(self, side, backend, arena, *, pool, executors, key: tuple, calibration_for, side_for=None,
                 place=None):
        super().__init__(side, backend, arena)
        #: ``place() -> EdgeSide``: the loaded graph's deferred placement of the edges, made when
        #: this engine's own plan first runs, and this side over the placed edges (None: placed already)
        self._place = place
        #: ``side_for(engine name) -> EdgeSide``: this side as another engine reads it (the loaded
        #: graph's), for the resident engine that holds it whole where the budget does (None: never)
        self.side_for = side_for
        self._whole: tuple | None = None  # (side, resident engine) once the budget held the side whole
        self.reader = None  # weak reference to the runtime of the call that last read this side
        self._whole_bytes: int | None = None  # what the resident engine's copy of this side takes
        self.pool = pool
        self.executors = executors
        self.key = key
        self.calibration_for = calibration_for
        self.value = np.zeros(len(side.partitions))
        self.read_edges = np.zeros(len(side.partitions))  # active edges read per partition, every call so far
        self.iterations = 0
        self._threads: ThreadPoolExecutor | None = None
        self._states: dict[int, ExecutorState] = {}  # per other executor: its copy of the running state
        self._exchange: dict[int, ExchangeEstimate] = {}  # per other executor: bytes its exchanges move
        self._exchange_speed: dict[int, ExchangeSpeed] = {}  # per other executor: measured / calibrated time
        self._host_view = None
        self._prefix_edges: dict[int, np.ndarray] = {}  # k -> each partition's sum of min(D(u), k)
        self._span: tuple[int, int] | None = None  # partitions a..b-1 held as one block (the span)
        self._span_moved: dict[int, int] = {}      # span partitions copied this round: bytes, for the record
        self._kernel_rate: dict[tuple[str, str], float] = {}  # (program, direction) -> device edges/s seen
        #: (program, direction) -> {executor: edges/s its CPU runs reached}, across calls
        self._host_rate: dict[tuple[str, str], dict[int, float]] = {}
        # (program, direction, executor) that have run a round on that CPU executor (its first gets one partition)
        self._host_tried: set[tuple[str, str, int]] = set()
        self._composed: dict[str, Engine] = {}   # the engines it runs (lent the pool's memory), by name
        self._dense = DensePlacements()           # the last dense round's inputs and placement
        self._host_registered = False
        if place is None:
            self._host_ready()

    def _host_ready(self) -> None:
        """The side's host arrays ready for the plan's copies and zero-copy reads: placed (where
        the loaded graph deferred it: a one-call handle whose budget held the side whole, read
        by the resident engine until now) and registered, once."""
        if self._place is not None:
            place, self._place = self._place, None
            side = place()
            if side is not self.side and [p.edge_hi for p in side.partitions] == [p.edge_hi for p in self.side.partitions]:
                self.side = side  # the same partitions over the placed arrays
        if self._host_registered:
            return
        self._host_registered = True
        side, backend = self.side, self.backend
        for arr in (side.indices, side.packed, side.weights, side.fused):  # copies at the bus's pinned speed
            if arr is not None:
                backend.register_host(arr)

    # ------------------------------------------------------------ device buffers
    def _slot_shape(self, k: int):
        """Slot capacity for groups of up to ``k`` partitions, shrunk until two slots take at most
        half the budget (the rest keeps partitions resident, which saves more than combining), or,
        when even single-partition slots take more than that, until two fit at all; where two
        single-partition slots do not fit but one does, one slot (the shape's last entry: how
        many). One slot is what the filter engine alone runs with at such a budget (each copy
        waits for the kernel that read the last one): without it the hybrid could copy nothing
        and read every partition in place, as at 1% of Kronecker 24 on an H200 (62 partitions
        of 25 MB, a 42 MB budget): PageRank 44.9 ms an iteration, the filter engine's one
        buffer 39.6."""
        s = self.side
        cap = max(1, s.max_partition_edges())
        # other sides' slots take their room, but for idle sides' (another call read them: the
        # pool gives theirs back, :meth:`BufferPool.slot`)
        budget = self.arena.budget_bytes - self.pool.slot_bytes(
            lambda shape: shape[0] != self.key and not self._idle_shape(shape))
        # a slot's buffers as allocated (packed: whole groups, one more at the ends)
        while k > 1 and 2 * s.range_buffer_bytes(k * cap) > budget // 2:
            k -= 1
        count = 2
        if 2 * s.range_buffer_bytes(k * cap) > budget:
            if s.range_buffer_bytes(k * cap) > budget:
                return None, 0  # not even one single-partition slot: explicit copies are impossible
            count = 1
        return (self.key, s.indices.dtype.str, None if s.weights is None else s.weight_dtype.str, k * cap, count), k

    def _slot_entries(self, shape) -> tuple[int, int]:
        """``(id entries, weight entries)`` of a slot of ``shape``: any run of its ``shape[3]`` edges
        in the range layout (compaction chunks gather plain ids: at most the first many edges)."""
        return self.side.range_entries(shape[3])

    def _slot_bytes(self, shape) -> int:
        return self.side.range_buffer_bytes(shape[3])

    def _slot(self, shape):
        args, kwargs = self._slot_args(shape)
        return self.pool.slot(*args, **kwargs)

    def _slot_args(self, shape) -> tuple[tuple, dict]:
        """``pool.slot``'s arguments for a slot of ``shape`` (worked out once a round's groups)."""
        _, dt, w_dt, _, count = shape
        n_idx, n_w = self._slot_entries(shape)
        return (shape, n_w, np.dtype(dt), None if w_dt is None else np.dtype(w_dt)), {"index_count": n_idx,
                                                                                      "count": count}

    # ------------------------------------------------------------ one edge_map
    def _decide(self, st, frontier, direction: str, policy: Policy) -> "_Round":
        """The round's statistics, slots and residency, and the policy's placement of every active partition."""
        b, s = self.backend, self.side
        # a new iteration: what the last one read (any side's) may go now, but what this call keeps
        self.pool.busy = self.pool.call_blocks()
        dense = direction == "pull" or frontier.is_all
        stats = partition_stats(s, b, frontier, dense=dense)
        parts = s.partitions
        self._update_values(stats, policy.decay)
        shape, k = self._slot_shape(policy.combine_k)
        if shape is not None:
            self.pool.reserve(shape, shape[4] * self._slot_bytes(shape))
        resident_before = self._resident_set()
        self.read_edges += stats.active_edges
        if policy.residency and policy.mix is None and policy.mode != "paper":
            # a dense round copies the span at the price of reading it; a sparse one only once
            # the span's partitions have been read whole already (history says they will be again)
            self._admit_span(min_reads=0.0 if dense else self.SPAN_AFTER_READS)
        resident = self._resident_set()
        # nothing read this iteration is dropped during it
        self.pool.busy = {key for key in self.pool.blocks if key[0] == self.key} | self.pool.call_blocks()
        state_bytes = sum(int(a.nbytes) for a in st.arrays.values())
        ctx = Decision(stats, parts, resident, self.executors, direction, st.program.combine,
                       s.bytes_per_edge, s.indices.itemsize, state_bytes, self.iterations,
                       self._exchange_forecast(st, state_bytes), partition_edges=s.partition_edges,
                       range_bytes_per_edge=s.range_bytes_per_edge,
                       host_rates=self._host_rate.get((st.program.name, direction), {}),
                       host_untried=frozenset(k for k, ex in enumerate(self.executors) if not ex.device_side
                                              and (st.program.name, direction, k) not in self._host_tried),
                       copy_slots=shape is not None)
        model = None if policy.mix is not None else policy.model(self.calibration_for)
        placed = self._dense.place(ctx, policy, model) if dense else policy.decide_sparse(ctx, model)
        self.iterations += 1
        return _Round(stats, dense, shape, k, resident_before, resident, state_bytes, model, placed)

    def edge_map(self, st, frontier, direction: str, it, policy: Policy):
        self._host_ready()
        b, s = self.backend, self.side
        n = s.n
        r = self._decide(st, frontier, direction, policy)
        stats, dense, shape, k, resident, model, placed = r.stats, r.dense, r.shape, r.k, r.resident, r.model, r.placed
        resident_before, state_bytes = r.resident_before, r.state_bytes
        if policy.whole_side and policy.mode != "paper" and policy.mix is None \
                and self._whole_side_pays(placed, st.program, direction, self._span_block()):
            return self._run_whole_side(st, frontier, direction, it, stats, dense, placed, resident_before)

        out = b.new_bitmap(n)
        handle = st.kernel_handle()
        tables, kernel = handle.tables, handle.edge(direction)
        in_bits = None if frontier.is_all else frontier.bits
        host_ids = None
        if not dense and any(ex or engine_class(e).host_rows for ex, e in placed.values()):
            host_ids = frontier.host_ids()   # compaction's gathers, CPU executors

        # ---- other executors: copy the state first, then compute beside the device
        by_exec, refreshed, futures = self._start_others(st, placed, stats, host_ids, direction, in_bits)

        # ---- the device executor
        dev = self._device_plan(placed, shape, resident, dense, policy)
        # the floor: edge bytes that must cross (device-placed partitions not resident at the start)
        floor = self._floor_bytes(stats, [i for i, (ex, _) in placed.items() if ex == 0 and i not in resident_before],
                                  dense)
        # asynchronous mode (HyTGraph sec. VI-A): a loaded partition is processed once more, from
        # the vertices this iteration has activated so far, as the program declares
        # (Program.again); programs that declare nothing stay synchronous
        again = st.program.again if policy.asynchronous and direction == "push" else None
        launch = lambda view, rows, bits, loaded=False: self._launch(  # noqa: E731
            kernel, tables, view, rows, bits, out, it, again, loaded, handle.kernels.vertex_map)
        # partitions resident at the start need no copy: their kernels go between the filter
        # groups' (HyTGraph sec. VI-B overlaps copies with kernels), filling the compute stream
        # while the copy stream brings the next group; queued all before the first group, they
        # held the kernel that frees a slot behind them, and the copies stalled (Kronecker 25
        # PageRank: 64 ms rounds against 48 ms of copies)
        # (runs of them: the span's consecutive partitions in one launch, as the resident engine reads them)
        waiting = collections.deque(self._held_runs([i for i, admit in dev["resident"] if admit is False]))
        for i, admit in dev["resident"]:
            if admit is not False:  # admitted now: its own copy first
                self._run_resident(i, admit, stats, launch, in_bits, direction, dense, it, shape)
        fill = None if not waiting else self._resident_filler(st, stats, model, direction, waiting, lambda run:
                                                                 self._run_held(run, stats, launch, in_bits,
                                                                                direction, dense, it))
        # contribution first: groups with the most active edges are copied first, or, where the
        # program says what its pushes carry and the mode is asynchronous, the most carried
        priority = self._carried(st, stats) if policy.asynchronous and st.program.priority is not None else None
        self._run_filter(dev["filter"], stats, launch, in_bits, direction, dense, it, shape, k,
                         fill=None if model is None else fill, priority=priority)
        while waiting:
            self._run_held(waiting.popleft(), stats, launch, in_bits, direction, dense, it)
        self._run_zerocopy(dev["zerocopy"], stats, launch, in_bits, direction, dense, it)
        self._run_compaction(dev["compaction"], stats, host_ids, launch, direction, it, shape)
        for name in dev.keys() - self.RUNNERS:
            self._run_composed(name, dev[name], stats, host_ids, launch, in_bits, direction, dense, it, shape)
        b.synchronize()
        device_times = b.take_device_times()
        if device_times is not None:
            it.copy_seconds, it.kernel_seconds = device_times
            on_device = [i for i, (ex, _) in placed.items() if ex == 0]
            self._observe_kernel_rate(st.program.name, direction, self._edges(stats, on_device, False),
                                      it.kernel_seconds)

        # ---- merge the other executors' states into the device's (the wait for them is not exchange)
        self._finish_others(st, by_exec, refreshed, futures, stats, direction, dense, out, it, state_bytes, model)
        self.pool.busy = set()
        it.floor_bytes = floor
        return out

    def _start_others(self, st, placed, stats, host_ids, direction: str, in_bits):
        """Copy the state to the other executors placed partitions and start them computing beside
        the device; returns ``(their partitions by executor, the refreshed states, the futures)``."""
        b, n, parts = self.backend, self.side.n, self.side.partitions
        by_exec: dict[int, list[int]] = {}
        for i, (ex, _) in placed.items():
            if ex:
                by_exec.setdefault(ex, []).append(i)
        if by_exec and st.program.combine is None:
            raise AssertionError(f"program {st.program.name} declares no combine operator: one executor only")
        futures = []
        # a pull's executor needs the others' values only of what the pull reads at its sources
        everywhere = st.program.pull_source_arrays if direction == "pull" else None
        refreshed = self._executor_states(by_exec, st, n, parts=parts, everywhere=everywhere)
        if by_exec:
            host_bits = None if in_bits is None else b.to_host(in_bits)
            for ex, idx in by_exec.items():
                futures.append(self._exec_threads().submit(self._run_other, refreshed.states[ex], idx, stats,
                                                           host_ids, direction, host_bits))
        return by_exec, refreshed, futures

    def _finish_others(self, st, by_exec, refreshed, futures, stats, direction, dense, out, it, state_bytes,
                       model) -> None:
        """Wait for the other executors, learn their rates, and merge their states into the device's."""
        for f in futures:
            f.result()
        for ex, idx in by_exec.items():
            self._host_tried.add((st.program.name, direction, ex))
            self._observe_host_rate(st.program.name, direction, ex, self._edges(stats, idx, False),
                                    refreshed.states[ex].seconds)
        written = {k: st.arrays[k] for k in st.program.written_arrays}  # the rest is as it was
        self._merge_others(refreshed, by_exec, out, it, lambda es, ranges: es.merge_into(written, direction, ranges),
                           lambda i: self._rows(stats, i, dense), parts=self.side.partitions,
                           state_bytes=state_bytes, model=model)

    def _device_plan(self, placed, shape, resident: set, dense: bool, policy: Policy) -> dict[str, list]:
        """The device's partitions by engine: what the policy placed, moved where the round cannot
        serve it (no slot, a dense round for compaction, not resident), and filter partitions worth
        keeping admitted to blocks of their own (VDS)."""
        s = self.side
        dev: dict[str, list] = {name: [] for name in device_engines()}
        for i, (ex, engine) in sorted(placed.items()):
            if ex == 0:
                if engine == "filter" and shape is None:
                    engine = "zerocopy"  # no room for a copy slot
                if engine == "compaction" and (dense or shape is None):
                    engine = "filter" if shape is not None else "zerocopy"  # every row counts: copy it as it lies
                if engine == "resident" and i not in resident:
                    engine = "filter" if shape is not None else "zerocopy"
                    if policy.residency or policy.mix is not None:
                        dev["resident"].append((i, True))  # try to admit it
                        continue
                dev[engine].append((i, False) if engine == "resident" else i)
        # residency (VDS): filter partitions worth keeping go to a block of their own
        if policy.residency and dev["filter"]:
            keep = []
            refused = np.inf  # the fewest edges a refused partition had: any later one as large is refused too
            order = np.asarray(dev["filter"], dtype=np.int64)
            order = order[np.argsort(-self.value[order], kind="stable")]
            # no partition's block can get more room than the most valuable one could (asking the
            # pool for each of 124 partitions a round that none fits was host work of its own)
            room = self._admission_room(float(self.value[order[0]])) / s.range_bytes_per_edge
            edges = s.partition_edges.tolist()
            for i in order.tolist():
                # (later partitions are worth no more, so they could displace no more blocks)
                block = self._admit(i) if edges[i] < refused and edges[i] <= room else None
                if block is None:
                    refused = min(refused, edges[i])
                if block is not None:
                    dev["resident"].append((i, block))  # admitted: copied in below
                else:
                    keep.append(i)
            dev["filter"] = sorted(keep)
        return dev

    def _exchange_forecast(self, st, state_bytes: int) -> dict[int, float]:
        """Per other executor, the bytes its state exchange is predicted to move this iteration
        (:class:`~graphferry.scheduler.policy.ExchangeEstimate`): a whole copy where it holds no
        copy of ``st``'s state, else the smoothed bytes of its previous exchanges."""
        out = {}
        for k, ex in enumerate(self.executors):
            if k and not ex.device_side:
                es = self._states.get(k)
                if es is not None and es.program is not st.program:
                    self._exchange.pop(k, None)  # another program's exchanges say nothing of this one's
                est = self._exchange.setdefault(k, ExchangeEstimate())
                # priced at the speed its exchanges ran, in bytes at the calibrated bandwidth
                speed = self._exchange_speed.get(k)
                out[k] = est.predict(self._mirrored(k, st), state_bytes) * (speed.scale() if speed else 1.0)
        return out

    def _exec_threads(self) -> ThreadPoolExecutor:
        """The threads the other executors compute on (one each), made on first use."""
        if self._threads is None:
            self._threads = ThreadPoolExecutor(max_workers=len(self.executors), thread_name_prefix="gf-exec")
        return self._threads

    def _executor_states(self, by_exec: dict, st, n: int, *, parts=None,
                         everywhere: tuple[str, ...] | None = None) -> "_Refresh":
        """Each other executor's copy of the state, brought up to date (see :class:`_Refresh`).

        ``everywhere`` (with ``parts``): the executor pulls into its partitions' destinations and
        reads other vertices' values of these arrays only; the rest is refreshed in its ranges."""
        t0 = time.perf_counter()
        done = _Refresh(fresh={ex for ex in by_exec if not self._mirrored(ex, st)})  # whole copies first
        for ex, idx in by_exec.items():
            t = time.perf_counter()
            ranges = owned_ranges(parts, idx) if everywhere is not None else None
            done.states[ex] = self._executor_state(ex, st, n, ranges=ranges, everywhere=everywhere)
            done.seconds[ex] = time.perf_counter() - t
        done.total_seconds = time.perf_counter() - t0
        return done

    def _merge_others(self, refreshed: "_Refresh", by_exec: dict, out, it, merge, rows, *, parts,
                      state_bytes: int, model) -> None:
        """Merge each other executor's copy into the device's state (``merge(es, owned_ranges)``),
        add its output frontier to ``out`` and its partitions (``rows(i)`` rows each) to the record,
        learn the bytes its exchange moved and how fast it ran, both ways this iteration (the
        refresh or first copy before, the merge now), and record the executors' compute seconds,
        the exchange's seconds and bytes (``it.device_seconds``, ``it.state_bytes``)."""
        b, states = self.backend, refreshed.states
        exec_seconds: dict[str, float] = {}
        t_merge = time.perf_counter()
        for ex, es in states.items():
            t = time.perf_counter()
            merge(es, owned_ranges(parts, by_exec[ex]))
            out |= b.asarray(es.out)
            b.synchronize()
            name = self.executors[ex].name
            exec_seconds[name] = es.seconds
            self._exchange.setdefault(ex, ExchangeEstimate()).observe(
                es.moved_bytes, first_copy=state_bytes if ex in refreshed.fresh else 0)
            if model is not None:
                self._exchange_speed.setdefault(ex, ExchangeSpeed()).observe(
                    es.moved_bytes, refreshed.seconds[ex] + time.perf_counter() - t,
                    model.calibration.state_bandwidth)
            for i in by_exec[ex]:
                it.add_partition(i, "host", 0, rows(i), device=name)
        if states:
            exchange_seconds = refreshed.total_seconds + time.perf_counter() - t_merge
            it.device_seconds = {"state_exchange": exchange_seconds, **exec_seconds}
            it.state_bytes = sum(es.moved_bytes for es in states.values())

    def _mirrored(self, ex: int, st) -> bool:
        es = self._states.get(ex)
        return es is not None and es.mirrors(st.program, st.arrays)

    def _executor_state(self, ex: int, st, n: int, *, ranges=None, everywhere=None) -> ExecutorState:
        """Executor ``ex``'s copy of ``st``'s state: the one kept from the last edge_map, refreshed
        by difference (within ``ranges`` only for arrays not in ``everywhere``), or a new whole copy
        when ``st`` is another program state."""
        es = self._states.get(ex)
        if es is not None and es.mirrors(st.program, st.arrays):
            es.refresh(st.arrays, st.scalars, ranges=ranges, everywhere=everywhere)
            return es
        es = self._states[ex] = ExecutorState(self.executors[ex], st.program, st.arrays, self.backend,
                                              st.scalars, self.side.indices.dtype, n)
        return es

    def _mapped(self):
        """The side's plain indices and weights as the device reads them in place (made once):
        what neighbourhood functions read (the zero-copy engine's views where ids are not packed)."""
        if self._host_view is None:
            s, view = self.side, self._mapped_range()
            w = view[1] if s.fused is None else self.backend.host_view(s.weights)  # fused: no weights mapped
            self._host_view = view if s.packed is None else (self.backend.host_view(s.indices), w)
        return self._host_view

    def _mapped_range(self):
        """The side's range layout (packed ids where it has them) and weights as the device reads
        them in place: the zero-copy engine's views, what edge maps read across the bus."""
        return self._engine("zerocopy").mapped

    # ------------------------------------------------------------ the whole-side plan
    @staticmethod
    def _whole_side_pays(placed, program, direction: str, span=None) -> bool:
        """True when one zero-copy launch over the side (three with a ``span``) beats the
        per-partition plan (module doc). Where every placed partition is resident, only when
        they all lie in the span (read in one launch there, not one launch each)."""
        pairs = set(placed.values())  # (executor, engine): a few, not one a partition
        if not placed or any(ex for ex, _ in pairs):
            return False  # nothing to do, or a CPU executor takes part
        engines = {e for _, e in pairs}
        if engines == {"resident"} and not (span is not None and span[0] <= min(placed) and max(placed) < span[1]):
            return False
        if direction == "pull":
            return program.pull_stops_early
        # a copy (filter's, or a composed engine's) is what a whole-side read would save
        return not any(e == "filter" or e not in HybridEngine.RUNNERS for e in engines)

    def _observe_kernel_rate(self, program: str, direction: str, edges: int, seconds: float) -> None:
        """Learn the device's edges/s for ``program``'s kernels in ``direction`` from a round the
        device timed (half the last estimate, half this round's)."""
        if edges <= 0 or seconds <= 0:
            return
        key = (program, direction)
        self._kernel_rate[key] = smoothed(self._kernel_rate.get(key), edges / seconds)

    #: a CPU run shorter than this says more about timer and thread start than about edges/s
    HOST_RATE_MIN_SECONDS = 1e-3

    def _observe_host_rate(self, program: str, direction: str, ex: int, edges: float, seconds: float) -> None:
        """Learn the edges/s CPU executor ``ex`` reached on ``program``'s partitions in
        ``direction`` this round (half the last estimate, half this round's), as the device's
        kernel rate is learned; the policy prices that executor's next partitions with it."""
        if edges <= 0 or seconds < self.HOST_RATE_MIN_SECONDS:
            return
        rates = self._host_rate.setdefault((program, direction), {})
        rates[ex] = smoothed(rates.get(ex), edges / seconds)

    def _edges(self, stats, idx: list[int], dense: bool) -> int:
        """Edges of partitions ``idx`` a round reads: all of each partition's when every row counts
        (``dense``), else its active rows'."""
        edges = self.side.partition_edges if dense else stats.active_edges
        return int(edges[np.asarray(idx, dtype=np.int64)].sum())

    def _floor_bytes(self, stats, idx: list[int], dense: bool) -> int:
        """Edge bytes of partitions ``idx`` that a round must bring to the device (see :meth:`_edges`),
        in the range layout (packed ids where the side has them)."""
        return int(self._edges(stats, idx, dense) * self.side.range_bytes_per_edge)

    @staticmethod
    def _rows(stats, i: int, dense: bool) -> int:
        return int(stats.active_vertices[i])

    def _device_rows(self, stats, first: int, last: int, lo: int):
        """Active rows of partitions ``first..last`` relative to ``lo``, on the device (None: all rows)."""
        if stats.dense:
            return None
        ids = stats.ids[int(stats.cuts[first]) : int(stats.cuts[last + 1])]
        return ids - lo if lo else ids

    def _launch(self, kernel, tables, view, rows, in_bits, out, it, again: tuple[str, ...] | None = None,
                loaded: bool = False, vertex_map=None) -> None:
        """One kernel over ``view``; with ``again`` (:attr:`Program.again`) a second pass over it.

        ``again == ()``: the same edges, from the rows activated so far (the bitmap filters them).
        Vertex functions: only on a ``loaded`` view (a range of partitions whose edges are on the
        device: resident or copied whole), whose touched vertices the functions prepare in turn
        before they push again; a view read in place or compacted holds other partitions' rows,
        or lacks the newly activated rows' edges, and gets no second pass."""
        t = time.perf_counter()
        kernel(tables, view, rows, in_bits, out)
        if again == ():
            kernel(tables, view, None, out, out)
        elif again and loaded:
            lo, hi = view.lo, view.lo + view.rows
            ready = out
            for fn in again:  # e.g. delta PageRank: those whose residual grew past the threshold emit it
                nxt = self.backend.new_bitmap(self.side.n)
                vertex_map(fn, tables, lo, hi, None, ready, nxt)
                ready = nxt
            kernel(tables, view, None, ready, out)
        it.kernel_seconds += time.perf_counter() - t

    def _bits_for(self, direction, rows, in_bits):
        # pull: the bitmap filters sources; push: it filters rows only where no row list is given
        return in_bits if direction == "pull" or rows is None else None

    def _groups(self, idx: list[int], k: int, cap: int):
        """Runs of up to ``k`` consecutive partitions whose edges fit one slot (Algorithm 1, lines 15-24)."""
        parts = self.side.partitions
        group: list[int] = []
        for i in idx:
            if group and (i != group[-1] + 1 or len(group) >= k
                          or parts[i].edge_hi - parts[group[0]].edge_lo > cap):
                yield group
                group = []
            group.append(i)
        if group:
            yield group

    def _carried(self, st, stats) -> np.ndarray:
        """HyTGraph's delta-driven priority per partition (:attr:`Program.priority`): what its active
        edges carry, ``sum over its active v of |priority[v]| * D_o(v)``, in one pass where the
        frontier lies (one cumulative sum, cut at the partitions' bounds)."""
        b, s = self.backend, self.side
        xp = b.xp
        if stats.ids is None:                    # every row: each partition's vertex range
            ids, cuts = xp.arange(s.n, dtype=xp.int64), s.bounds
        else:
            ids, cuts = stats.ids, stats.cuts
        off = s.device_offsets(b)
        carried = xp.abs(st.arrays[st.program.priority][ids].astype(xp.float64)) * (off[ids + 1] - off[ids])
        total = b.to_host(xp.concatenate([xp.zeros(1, dtype=xp.float64), xp.cumsum(carried)]))
        return total[cuts[1:]] - total[cuts[:-1]]

    def _run_filter(self, idx, stats, launch, in_bits, direction, dense, it, shape, k, fill=None,
                    priority=None) -> None:
        """Copy the partitions ``idx`` into slots (up to ``k`` consecutive ones a copy) and run
        each group's kernel; ``fill(group, group_before)`` is called before each group's copy
        and kernel (``group_before`` None for the first) to put other kernels on the compute
        stream while that copy runs, until it says nothing waits."""
        if not idx:
            return
        b, s = self.backend, self.side
        parts = s.partitions
        groups = list(self._groups(sorted(idx), k, shape[3]))
        # contribution first (HyTGraph sec. VI-B): the groups of the highest priority are copied
        # first (the caller's per-partition figure; the active edges by default)
        # (a group is consecutive partitions: its weight one difference of running sums, not a
        # Python sum a group; 124 groups a round for PageRank at 1% of Kronecker 24)
        weight = np.concatenate([[0.0], np.cumsum(stats.active_edges if priority is None else priority,
                                                  dtype=np.float64)]).tolist()
        groups.sort(key=lambda g: weight[g[0]] - weight[g[-1] + 1])
        filt = self._engine("filter")
        slot_args = self._slot_args(shape)
        for j, g in enumerate(groups):
            if fill is not None and not fill(g, groups[j - 1] if j else None):
                fill = None  # nothing resident waits any more
            slot = self.pool.slot(*slot_args[0], **slot_args[1])
            if slot is None:  # no room for a copy after all: read these in place
                self._run_zerocopy(g, stats, launch, in_bits, direction, dense, it)
                continue
            rows = None if stats.dense else self._device_rows(stats, g[0], g[-1], parts[g[0]].lo)
            loaded = filt.load_group(parts[g[0] : g[-1] + 1], rows, slot)
            self._run_loaded(loaded, launch, in_bits, direction, g, stats, dense, it)
            slot.free_at = b.record()

    def _run_zerocopy(self, idx, stats, launch, in_bits, direction, dense, it) -> None:
        """The zero-copy engine's one view over partitions ``idx`` (their rows read in place), one
        launch for all of them; its bytes the lines the round's statistics counted."""
        if not idx:
            return
        xp, parts = self.backend.xp, self.side.partitions
        idx = sorted(idx)
        lo = parts[idx[0]].lo
        if stats.dense:
            if len(idx) == len(parts):
                rows = None
            else:
                rows = xp.concatenate([xp.arange(parts[i].lo - lo, parts[i].hi - lo, dtype=xp.int64) for i in idx])
        else:
            rows = xp.concatenate([stats.ids[int(stats.cuts[i]) : int(stats.cuts[i + 1])] for i in idx])
            rows = rows - lo if lo else rows
        loaded = self._engine("zerocopy").load_group([parts[i] for i in idx], rows, None, self._counts(stats, idx))
        self._run_loaded(loaded, launch, in_bits, direction, idx, stats, dense, it)

    def _counts(self, stats, idx) -> PartitionCounts:
        """The round's statistics of partitions ``idx``, as an engine reads them."""
        s, k = self.side, np.asarray(idx, dtype=np.int64)
        return PartitionCounts(s.partition_edges[k], stats.active_vertices[k], stats.active_edges[k], stats.lines[k],
                               s.bytes_per_edge, s.indices.itemsize, s.range_bytes_per_edge)

    def _run_loaded(self, loaded, launch, in_bits, direction, idx, stats, dense, it, record_as=None) -> None:
        """The round's kernel over what an engine loaded for partitions ``idx`` (pull: the bitmap
        filters sources; push: rows, where no row list came), and their entries in the record."""
        launch(loaded.view, loaded.row_list, in_bits if direction == "pull" or loaded.use_bits else None,
               loaded=loaded.whole_rows)
        it.compact_seconds += loaded.compact_seconds
        it.copy_seconds += loaded.copy_seconds
        name, device, rows = record_as or loaded.engine, self.executors[0].name, stats.active_vertices
        for i, moved in zip(idx, loaded.per_partition()):
            it.add_partition(i, name, int(moved), int(rows[i]), device=device)

    def _run_compaction(self, idx, stats, host_ids, launch, direction, it, shape) -> None:
        if not idx:
            return
        b, s = self.backend, self.side
        cap = min(self._slot_entries(shape))  # plain ids gathered: as many edges as the id buffer holds
        # a partition with more active edges than that (packed ids: a slot holds a run of shape[3]
        # edges in fewer words) is copied whole, which then moves fewer bytes than its gather would
        whole = [i for i in idx if int(stats.active_edges[i]) > cap]
        if whole:
            self._run_filter(whole, stats, launch, None, direction, False, it, shape, 1)
            idx = [i for i in idx if int(stats.active_edges[i]) <= cap]
            if not idx:
                return
        chunk: list[int] = []
        edges = 0
        chunks = []
        for i in sorted(idx):
            e = int(stats.active_edges[i])
            if chunk and edges + e > cap:
                chunks.append(chunk)
                chunk, edges = [], 0
            chunk.append(i)
            edges += e
        chunks.append(chunk)
        comp, parts = self._engine("compaction"), s.partitions
        for chunk in chunks:
            slot = self._slot(shape)
            if slot is None:  # no room for a copy after all: read these in place
                self._run_zerocopy(chunk, stats, launch, None, "push", False, it)
                continue
            # one gather of the chunk's active rows into the slot's staging, one copy, one launch
            ids = np.concatenate([host_ids[int(stats.cuts[i]) : int(stats.cuts[i + 1])] for i in chunk])
            loaded = comp.load_group([parts[i] for i in chunk], ids, slot)
            self._run_loaded(loaded, launch, None, "push", chunk, stats, False, it)
            slot.free_at = b.record()

    #: the device engines the hybrid plans its own way (groups, chunks, one launch, residency)
    RUNNERS = frozenset({"resident", "filter", "compaction", "zerocopy"})

    def _run_composed(self, name: str, idx, stats, host_ids, launch, in_bits, direction, dense, it, shape) -> None:
        """Partitions placed on an engine the hybrid has no plan of its own for (one registered beside
        the built-in ones, ``hybrid_picks``): its own body (:meth:`Engine.load_group`) runs each in a
        slot the pool lends, and its view runs the round's kernel."""
        if not idx:
            return
        engine, parts = self._engine(name), self.side.partitions
        for i in idx:
            p = parts[i]
            slot = self._slot(shape) if shape is not None else None
            if slot is None:  # no room for a slot: read it in place
                self._run_zerocopy([i], stats, launch, in_bits, direction, dense, it)
                continue
            if engine.host_rows:
                rows = None if stats.dense else host_ids[int(stats.cuts[i]) : int(stats.cuts[i + 1])]
            else:
                rows = self._device_rows(stats, i, i, p.lo)
            loaded = engine.load_group([p], rows, slot, self._counts(stats, [i]))
            self._run_loaded(loaded, launch, in_bits, direction, [i], stats, dense, it)
            slot.free_at = self.backend.record()

    def _engine(self, name: str) -> Engine:
        """Engine ``name`` of this side as the hybrid composes it: built once, ``lent`` (it runs in
        the pool's slots and blocks, with no buffers of its own)."""
        engine = self._composed.get(name)
        if engine is None:
            engine = self._composed[name] = engine_class(name)(self.side, self.backend, self.arena, lent=True)
        return engine

    def load(self, part, active):
        raise TypeError("the hybrid engine runs whole edge maps (edge_map), not one partition at a time")

    def _run_other(self, es: ExecutorState, idx, stats, host_ids, direction, host_bits) -> None:
        """A CPU executor computes its partitions where the edges lie, on its copy of the state."""
        s = self.side
        t = time.perf_counter()
        parts = s.partitions
        if stats.dense:
            rows = np.concatenate([np.arange(parts[i].lo, parts[i].hi, dtype=np.int64) for i in idx])
        else:
            rows = np.concatenate([host_ids[int(stats.cuts[i]) : int(stats.cuts[i + 1])] for i in idx])
        view = PartitionView(s.offsets, s.indices, s.weights, None, 0, s.n, 0)
        kernel = es.kernels.push if direction == "push" else es.kernels.pull
        kernel(es.tables, view, rows, host_bits if direction == "pull" else None, es.out)
        es.seconds = time.perf_counter() - t

    def close(self) -> None:
        for engine in self._composed.values():
            engine.close()
        self._composed.clear()
        self.release_whole()
        for key in [k for k in self.pool.blocks if k[0] in (self.key, ("neighbors",) + tuple(self.key))]:
            self.pool.drop(key)
        self.pool.forget_side(self.key)
        if self._threads is not None:
            self._threads.shutdown(wait=True)
            self._threads = None
        self._states.clear()
        self._exchange.clear()
