"""The runtime: edge_map, vertex_map and neighbor_map over partitions and engines.

An algorithm binds a :class:`~graphferry.runtime.program.Program` to a graph
with :meth:`Runtime.start`, then loops over ``edge_map`` / ``vertex_map`` on
frontiers. The runtime picks the direction (one place:
:mod:`graphferry.runtime.direction`), walks the active partitions, asks the
engine for each partition's view, launches the backend's kernel and records
what happened. Algorithms never name an engine, a direction or a device.
With ``engine="hybrid"`` (the default on a device whose budget does not hold
the edges) the scheduler (:mod:`graphferry.scheduler`) takes each edge_map:
it places every partition on an engine and an executor (device or CPU) per
iteration, under a cost model calibrated on the machine.

Algorithms touch vertex state only through the runtime's primitives, which
every backend implements (C++/OpenMP on the CPU, CuPy on a GPU), so no
algorithm reads a backend array:

* frontiers: ``a | b``, ``a & b``, ``a - b`` (:class:`~.frontier.Frontier`);
* state: ``assign`` (scatter), ``gather``, ``reduce`` (sum / min / max over a
  frontier or every vertex), ``select`` (the vertices whose value lies in a range);
* :class:`~.buckets.PriorityBuckets` (delta-stepping's buckets) and
  ``edge_map_buckets`` (their rounds, in one backend call where it can);
* initial values: a scalar, :data:`VERTEX_IDS`, :data:`UNSET` (written before read), or a host array;
* results: ``result`` hands a state array to the algorithm's result where it
  lives (:class:`~.deferred.DeferredArray` on a GPU: read on the host on first use).

Example:
    >>> import numpy as np
    >>> from graphferry import Graph
    >>> from graphferry.runtime import Runtime, Program
    >>> reach = Program("reach", arrays={"seen": "int32"}, source='''
    ... GF_FN bool cond(const State& S, vid_t d) { return S.seen[d] == 0; }
    ... GF_FN bool update_atomic(const State& S, vid_t s, vid_t d, float w) { return gf_cas(&S.seen[d], 0, 1); }
    ... ''')
    >>> g = Graph.from_edges(np.array([0, 1, 3]), np.array([1, 2, 4]), n=5)
    >>> with Runtime(g, backend="cpu") as rt:
    ...     st = rt.start(reach, arrays={"seen": np.array([1, 0, 0, 0, 0], np.int32)})
    ...     f = rt.frontier([0])
    ...     while f:
    ...         f = st.edge_map(f)
    ...     st.host("seen").tolist()
    [1, 1, 1, 0, 0]
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from ..backends import get_backend
from ..backends.base import Backend, DeviceArena
from ..engines.base import EdgeSide, Engine
from ..engines.registry import engine_class
from ..graph import Graph
from .loaded import LoadedGraph
from .maps import maps_for
from .deferred import DeferredArray
from .direction import DEFAULT_PULL_FRACTION, DirectionHistory, choose_direction
from .frontier import Frontier
from .program import Program
from .record import RunRecord

if TYPE_CHECKING:
    from ..scheduler.policy import Policy

log = logging.getLogger(__name__)

Progress = Callable[[str, int, "RunRecord"], None]

#: ``active_edges`` of an edge_map step whose frontier's edges were not counted (a pull that
#: stops early, on the CPU: the direction rule needed only the frontier's size).
NOT_COUNTED = -1
#: A frontier given from the host with at most this many ids has its edges counted there.
SMALL_HOST_FRONTIER = 1 << 12
#: Initial value of a state array that starts as each vertex's own id (``Runtime.start``).
VERTEX_IDS = "vertex_ids"
#: Initial value of a state array that the program writes in full before anything reads it
#: (``Runtime.start``): allocated where the state lives and not filled, so no pass over n
#: (a result array written by the last vertex_map, first touched by its own threads).
UNSET = "unset"


@dataclass
class RunOptions:
    """Options every algorithm accepts and passes through to the runtime.

    ``budget`` and ``partition_bytes`` belong to the placement of the graph: on a
    :class:`~graphferry.runtime.loaded.LoadedGraph` they are the handle's (give
    them to :func:`graphferry.load`); None means the handle's or the default.
    """

    backend: str | Backend = "auto"
    engine: str = "auto"
    budget: int | None = None          # bytes of device memory for edge data
    partition_bytes: int | None = None  # None: the loaded graph's, else each engine's choice
    direction: str = "auto"
    pull_fraction: float = DEFAULT_PULL_FRACTION
    progress: Progress | None = None
    policy: Policy | None = None       # engine "hybrid": per-partition placement (None: cost-driven)


@dataclass
class GraphArrays:
    offsets: Any
    indices: Any
    weights: Any
    n: int
    #: the first edge ``indices`` and ``weights`` hold: edge ``e`` is ``indices[e - edge_base]``
    #: (a device block of consecutive rows; only those rows may be read), 0 for the whole graph
    edge_base: int = 0


class Runtime:
    """Binds a graph to a backend, a device-memory budget and an engine for one algorithm call.

    ``graph`` is a :class:`Graph` (a temporary loaded graph is made for this
    call and closed with it) or a :class:`~graphferry.runtime.loaded.LoadedGraph`,
    whose sides, engines, device buffers, degrees and compiled programs the call
    reuses and leaves in place for the next.
    """

    def __init__(self, graph: "Graph | LoadedGraph", *, backend: str | Backend = "auto", engine: str = "auto",
                 budget: int | None = None, partition_bytes: int | None = None,
                 direction: str = "auto", pull_fraction: float = DEFAULT_PULL_FRACTION,
                 progress: Progress | None = None, algorithm: str = "?", policy: Policy | None = None):
        self._t0 = time.perf_counter()
        if partition_bytes is not None and partition_bytes <= 0:
            raise ValueError(f"partition_bytes must be positive, got {partition_bytes}")
        if isinstance(graph, LoadedGraph):
            graph._check_open()
            _same_placement(graph, backend, budget, partition_bytes)
            self.loaded, self._owns_loaded = graph, False
        else:
            self.loaded = _temporary_loaded(graph, backend, budget, partition_bytes)
            self._owns_loaded = True
        self.graph = self.loaded.graph
        self.backend = self.loaded.backend
        self.arena = self.loaded.arena
        self.partition_bytes = self.loaded.partition_bytes
        self.direction = direction
        self.pull_fraction = pull_fraction
        self.progress = progress
        self.engine_name = self._resolve_engine(engine)
        #: how this call's maps run (its own loop, the hybrid, the ranks): chosen once, here
        self.maps = maps_for(self.loaded, engine_class(self.engine_name))   # (a bad name fails here)
        self._policy = policy  # made when a scheduling engine first asks (:attr:`policy`)
        self.record = RunRecord(algorithm=algorithm, backend=self.backend.name, engine=self.engine_name)
        self.record.extra["loaded_graph"] = not self._owns_loaded
        self.record.extra["load_seconds"] = self.loaded.load_seconds
        self.record.setup_seconds = time.perf_counter() - self._t0

    @property
    def policy(self) -> Policy:
        """The hybrid's per-partition placement (the one given, else the cost-driven default), made on
        first use: a run of one engine never imports the scheduler's policy."""
        if self._policy is None:
            from ..scheduler.policy import Policy

            self._policy = Policy()
        return self._policy

    @classmethod
    def from_options(cls, graph: "Graph | LoadedGraph", options: RunOptions, algorithm: str) -> "Runtime":
        return cls(graph, backend=options.backend, engine=options.engine, budget=options.budget,
                   partition_bytes=options.partition_bytes, direction=options.direction,
                   pull_fraction=options.pull_fraction, progress=options.progress, algorithm=algorithm,
                   policy=options.policy)

    # ------------------------------------------------------------ set-up
    def _resolve_engine(self, engine: str) -> str:
        if engine != "auto":
            return engine
        if not self.backend.is_device:
            return "host"
        return device_engine(self.graph.edge_bytes, self.arena.budget_bytes)

    def side(self, direction: str, use_weights: bool, reverse: bool = False) -> tuple[EdgeSide, Engine]:
        """The edge side and its engine, built once per physical CSR (and kept by a loaded graph).

        Push reads out-edges and pull reads in-edges; ``reverse`` runs the map on
        the transposed graph (push along in-edges, pull along out-edges), which
        is the same physical CSR as the other direction. An undirected graph
        has one physical CSR for everything.
        """
        use_weights = use_weights and self.graph.weighted
        csr = "out" if (direction == "push") != bool(reverse) or not self.graph.directed else "in"
        t = time.perf_counter()
        built = self.loaded.stats["engines_built"]
        out = self.loaded.side(csr, use_weights, self.engine_name)
        if self.loaded.stats["engines_built"] != built:  # set-up, not iteration time
            self.record.setup_seconds += time.perf_counter() - t
        return out

    def maps_move_edges(self, use_weights: bool) -> bool:
        """Whether this call's push maps bring edges to the device every round: not where its engine
        moves none a round (``host`` reads them in place, ``resident`` holds its side from the first
        map on), nor where the hybrid holds the side whole (its maps are then the resident engine's
        own: :meth:`HybridEngine.whole_side_engine <graphferry.scheduler.hybrid.HybridEngine.whole_side_engine>`),
        asked without building anything. Delta-stepping's deferral prices a round by it
        (:class:`~.buckets.PriorityBuckets`): before, every hybrid round was priced as one across
        the bus, and at 100% of the edges on a uniform graph the hybrid deferred rounds the
        resident engine did not (H200, uniform 25: 247 against 219 ms in 37 rounds each).

        Example:
            >>> from graphferry import Graph
            >>> g = Graph.from_edges([0, 1], [1, 2], n=3)
            >>> with Runtime(g, backend="cpu", engine="zerocopy") as rt:
            ...     rt.maps_move_edges(False)
            True
            >>> with Runtime(g, backend="cpu", engine="resident") as rt:
            ...     rt.maps_move_edges(False)
            False
        """
        cls = engine_class(self.engine_name)
        if cls.moves in ("nothing", "side"):
            return False
        if cls.schedules and self.loaded.distribution is None:
            _, engine = self.side("push", use_weights)
            return not getattr(engine, "holds_whole", False)
        return True

    def whole_graph(self, use_weights: bool, in_edges: bool = True) -> tuple[GraphArrays, GraphArrays]:
        """Device-readable whole graph and transpose (for neighbourhood functions).

        With ``in_edges=False`` the transpose is neither built nor mapped: the
        second array set is empty (null pointers), for functions that read only G.
        """
        use_weights = use_weights and self.graph.weighted
        b = self.backend
        # an engine that holds the whole side on the device (resident) lends it
        if b.is_device and engine_class(self.engine_name).lends_whole and self.loaded.distribution is None \
                and not self.loaded.packs(self.engine_name):  # (its copy must hold plain ids)
            return self._resident_whole_graph(use_weights, in_edges)

        narrow = use_weights and self.loaded.narrows(self.engine_name)

        def arrays(g: Graph, csr: str) -> GraphArrays:
            w = (self.loaded.side_weights(csr) if narrow else g.weights) if use_weights else None
            return GraphArrays(b.asarray(g.offsets) if b.is_device else g.offsets,
                               b.host_view(g.indices), None if w is None else b.host_view(w), g.n)

        def build():
            out = arrays(self.graph, "out")
            if in_edges:
                return out, arrays(self.loaded.transpose(), "in")
            return out, GraphArrays(None, None, None, self.graph.n)

        return self.loaded.whole((use_weights, in_edges, narrow), build)

    def host_whole_graph(self, use_weights: bool, in_edges: bool = True) -> tuple[GraphArrays, GraphArrays]:
        """The whole graph and transpose as host arrays (what a CPU executor of the hybrid reads);
        with ``in_edges=False`` the second set is empty, as in :meth:`whole_graph`."""
        use_weights = use_weights and self.graph.weighted

        def arrays(g: Graph) -> GraphArrays:
            return GraphArrays(g.offsets, g.indices, g.weights if use_weights else None, g.n)

        out = arrays(self.graph)
        if not in_edges:
            return out, GraphArrays(None, None, None, self.graph.n)
        return out, (out if not self.graph.directed else arrays(self.loaded.transpose()))

    def _resident_whole_graph(self, use_weights: bool, in_edges: bool) -> tuple[GraphArrays, GraphArrays]:
        """The engine's device copies (``Engine.whole``: resident) as the whole graph: a neighbourhood function
        then reads device memory, not the host's pinned copy across the bus (Afforest's
        sampling reads one random edge per vertex: through the bus, a transaction each)."""
        def arrays(direction: str) -> GraphArrays:
            _, engine = self.side(direction, use_weights)
            (offs, idx, w), moved, secs = engine.whole()
            if moved:  # the first call on this side uploads it: set-up, as in an edge_map
                self.record.setup_seconds += secs
            return GraphArrays(offs, idx, w, self.graph.n)

        out = arrays("push")
        if not in_edges:
            return out, GraphArrays(None, None, None, self.graph.n)
        return out, (out if not self.graph.directed else arrays("pull"))

    def constant(self, key: str, build) -> Any:
        """A per-vertex array that depends on the graph alone (``build()`` gives it on the host),
        on the backend; a loaded graph keeps it for every later call (no pass over n per call)."""
        return self.loaded.constant(key, build)

    # ------------------------------------------------------------ frontiers
    def frontier_edges(self, frontier: Frontier, reverse: bool = False) -> int:
        """Sum of the active vertices' degrees along the map's edges (for the push/pull choice).

        On a device backend the sum is taken there (the loaded graph's device copy
        of the degrees), so a dense pull iteration never copies the frontier's ids to the host.
        """
        if frontier.is_all:
            return self.loaded.degree_sum(reverse)
        out_edges = not (reverse and self.graph.directed)  # (the in-edges' offsets would need the transpose)
        if not self.backend.is_device or (out_edges and frontier.listed_on_host(SMALL_HOST_FRONTIER)):
            # the CPU: one C++/OpenMP pass over the frontier's words; a device: a few ids given from
            # the host (a source's), summed there (a one-shot run's first step launches nothing for it,
            # before the backend's own kernels may have compiled)
            return frontier.degree_sum(self.loaded.degree_offsets(reverse))
        degrees = self.loaded.device_degrees(reverse)
        if not frontier.prefers_bitmap():
            # ids at hand, or a small frontier that will be pushed: its ids, listed here, serve the push
            return self.backend.ids_degree_sum(frontier.ids, degrees)
        # a dense bitmap (an edge_map's output): its size and edges from the bitmap, ids not listed
        # (a pull round never needs them; a push round lists them then)
        count, edges = self.backend.bits_degree_sum(frontier.bits, degrees, self.graph.n)
        frontier.know_count(count)
        return edges

    def frontier(self, ids) -> Frontier:
        return Frontier.from_ids(self.backend, self.graph.n, ids)

    def all_vertices(self) -> Frontier:
        return Frontier.all(self.backend, self.graph.n)

    # ------------------------------------------------------------ programs
    def start(self, program: Program, arrays: dict[str, Any] | None = None,
              scalars: dict[str, float | int] | None = None) -> "ProgramState":
        """Bind ``program``: each state array starts as a scalar (filled on the backend),
        :data:`VERTEX_IDS` (``v`` at ``v``), :data:`UNSET` (not filled), an n-sized host
        array (copied), or 0."""
        return ProgramState(self, program, arrays or {}, scalars or {})

    def finish(self) -> RunRecord:
        """Close the record: ``total_seconds`` is the call (set-up included, the loaded
        graph's one-time loading excluded); ``extra["end_to_end_seconds"]`` adds the
        loading when this call made its own (temporary) loaded graph."""
        self.record.total_seconds = time.perf_counter() - self._t0
        self.record.extra["end_to_end_seconds"] = self.record.total_seconds + (
            self.loaded.load_seconds if self._owns_loaded else 0.0)
        self.record.extra.setdefault("budget_bytes", self.arena.budget_bytes)
        self.record.extra.setdefault("peak_device_edge_bytes", self.arena.peak_bytes)
        if self.loaded.distribution is not None:  # ranks, devices, split points
            self.record.extra.update(self.loaded.distribution.record_extra())
        return self.record

    def close(self) -> None:
        """Close a temporary loaded graph; a loaded graph passed in keeps everything for the next call."""
        if self._owns_loaded:
            self.loaded.close()

    def __enter__(self) -> "Runtime":
        return self

    def __exit__(self, *exc) -> None:
        if exc[0] is None:  # a failed call's record is never read (and on ranks: no collective after a failure)
            self.finish()
        self.close()


#: How a call's plain graph is split over ranks while a distributed run is in its world: handed
#: down by :func:`graphferry.distributed.world.enter` (the runtime imports nothing above it); None:
#: this process alone.
_ranks_loader: Callable[..., LoadedGraph] | None = None


def use_ranks(loader: Callable[..., LoadedGraph] | None) -> None:
    """Load each call's plain graph with ``loader(graph, backend=, budget=, partition_bytes=)`` from
    now on, a graph split over ranks (None: back to this process alone). The distributed layer
    calls it as it enters and leaves a world of more than one rank."""
    global _ranks_loader
    _ranks_loader = loader


def _temporary_loaded(graph: Graph, backend, budget, partition_bytes) -> LoadedGraph:
    """A loaded graph for one call; split over the ranks when a distributed run has entered its world."""
    if _ranks_loader is not None:
        return _ranks_loader(graph, backend=backend, budget=budget, partition_bytes=partition_bytes)
    return LoadedGraph(graph, backend=backend, budget=budget, partition_bytes=partition_bytes, temporary=True)


def _same_placement(loaded: LoadedGraph, backend, budget, partition_bytes) -> None:
    """A call on a loaded graph may not ask for another backend, budget or partition size."""
    if not (backend == "auto" or backend is loaded.backend or backend == loaded.backend.name):
        raise ValueError(f"the graph was loaded for backend {loaded.backend.name!r}, not {backend!r}; "
                         "load it again for that backend (graphferry.load)")
    if budget is not None and int(budget) != loaded.arena.budget_bytes:
        raise ValueError(f"the graph was loaded with a device budget of {loaded.arena.budget_bytes} bytes; "
                         f"a call cannot change it to {budget} (pass budget= to graphferry.load)")
    if partition_bytes is not None and int(partition_bytes) != loaded.partition_bytes:
        raise ValueError(f"the graph was loaded with partitions of {loaded.partition_bytes} bytes; a call cannot "
                         f"change them to {partition_bytes} (pass partition_bytes= to graphferry.load)")


def device_engine(edge_bytes: int, budget_bytes: int) -> str:
    """The engine ``auto`` means on a device: ``resident`` where the budget holds both edge
    directions, else ``hybrid`` (it places each partition each iteration).

    Example:
        >>> device_engine(4 << 30, 100 << 30), device_engine(4 << 30, 6 << 30)
        ('resident', 'hybrid')
    """
    return "resident" if 2 * edge_bytes <= budget_bytes else "hybrid"


def _checked_ids(idx: np.ndarray, n: int, name: str) -> np.ndarray:
    """Host ids into an array of ``n`` entries, negative ones counted from the end (numpy's
    indexing); one outside ``-n..n-1`` is an error here, before a kernel reads past the array."""
    if len(idx) and (int(idx.min()) < -n or int(idx.max()) >= n):
        raise IndexError(f"array {name!r} has {n} entries: an id lies outside -{n}..{n - 1}")
    return np.where(idx < 0, idx + n, idx) if len(idx) and int(idx.min()) < 0 else idx


@dataclass(frozen=True)
class KernelHandle:
    """What a driver of maps (the runtime's own loop, the hybrid, the ranks) launches a program's
    kernels with: the backend's compiled program and the tables its kernels read now (the state's
    array pointers and scalars, on the backend). :meth:`ProgramState.kernel_handle` gives one."""

    kernels: Any     # push, pull, vertex_map, neighbor_map (and the backend's extras)
    tables: Any

    def edge(self, direction: str):
        """The edge kernel of ``direction`` ("push" or "pull")."""
        return self.kernels.push if direction == "push" else self.kernels.pull


class ProgramState:
    """A program's vertex state on the backend, and the operators over it."""

    def __init__(self, rt: Runtime, program: Program, arrays: dict[str, Any], scalars: dict[str, Any]):
        self.rt = rt
        self.program = program
        self.kernels = rt.loaded.compile(program)
        n = rt.graph.n
        self.arrays: dict[str, Any] = {}
        for name in program.arrays:
            dtype = program.array_dtype(name, rt.graph.indices.dtype)
            init = arrays.get(name, 0)
            if isinstance(init, str) and init == VERTEX_IDS:  # label[v] = v
                self.arrays[name] = rt.backend.vertex_ids(n, dtype)
                continue
            if isinstance(init, str) and init == UNSET:  # the program writes it before reading it
                self.arrays[name] = rt.backend.empty(n, dtype)
                continue
            if np.isscalar(init):  # filled where it lives, in one pass, no host copy
                self.arrays[name] = rt.backend.full(n, init, dtype)
                continue
            if isinstance(init, rt.backend.xp.ndarray) and rt.backend.xp is not np:  # already there
                if init.shape != (n,):
                    raise ValueError(f"array {name!r} must have {n} entries, got shape {init.shape}")
                self.arrays[name] = init.astype(dtype, copy=True)
                continue
            host = np.asarray(init)
            # one entry per vertex, or one row per vertex (a vector property: Lux's
            # array-of-structs layout, row v at v * width, read by the program with its own stride)
            if host.ndim == 0 or host.shape[0] != n:
                raise ValueError(f"array {name!r} must have {n} entries (or rows), got shape {host.shape}")
            self.arrays[name] = rt.backend.asarray(np.ascontiguousarray(host, dtype=dtype))
        unknown = set(arrays) - set(program.arrays)
        if unknown:
            raise ValueError(f"program {program.name} has no arrays {sorted(unknown)}")
        self.scalars: dict[str, float | int] = {s: 0 for s in program.scalars}
        self.scalars.update(scalars)
        self._tables_key: tuple | None = None
        self._tables: tuple | None = None
        self._directions: dict[bool, DirectionHistory] = {}

    # ------------------------------------------------------------ state access
    def host(self, name: str, dtype=None) -> np.ndarray:
        """Array ``name`` on the host, converted to ``dtype`` first where it lives (on a GPU:
        one device-side conversion and one device-to-host transfer, no pass over it on the host)."""
        return self.rt.backend.to_host(self._converted(name, dtype))

    def result(self, name: str, dtype=None) -> "np.ndarray | DeferredArray":
        """Array ``name`` for an algorithm's result, converted to ``dtype`` where it lives and
        left there: on the CPU the numpy array itself, on a GPU a :class:`DeferredArray` that
        the result brings to the host when it is first read (no transfer inside the call).

        Example:
            >>> import numpy as np
            >>> from graphferry import Graph
            >>> from graphferry.runtime import Runtime, Program
            >>> p = Program("ids", arrays={"label": "int32"}, source="")
            >>> with Runtime(Graph.from_edges(np.array([0]), np.array([1]), n=3), backend="cpu") as rt:
            ...     rt.start(p, arrays={"label": VERTEX_IDS}).result("label", np.int64)
            array([0, 1, 2])
        """
        arr = self._converted(name, dtype)
        b = self.rt.backend
        if b.on_host(arr):
            return arr
        b.synchronize()  # complete (a conversion included) before a reader on any stream copies it
        return DeferredArray(arr, b.to_host)

    def _converted(self, name: str, dtype):
        arr = self.arrays[name]
        if dtype is not None and np.dtype(dtype) != arr.dtype:
            arr = self.rt.backend.convert(arr, dtype)
        return arr

    def assign(self, name: str, ids, values) -> None:
        """Scatter: ``name[ids] = values`` (a scalar, or one value per id) where the state lives.

        With scalar initial values (filled where the state lives) this initialises
        vertex state with no pass over ``n`` on the host, e.g. a BFS source's own entries.
        """
        b = self.rt.backend
        arr = self.arrays[name]
        idx = np.asarray(ids, dtype=np.int64).reshape(-1)
        if len(idx) == 1 and np.isscalar(values):  # one entry (a source's): no index array to upload
            b.set_entry(arr, int(idx[0]), values)
        elif len(idx):
            idx = _checked_ids(idx, len(arr), name)
            vals = values if np.isscalar(values) else np.asarray(values)
            if len(np.unique(idx)) < len(idx):  # repeated ids: the last value wins, as numpy's does
                keep = len(idx) - 1 - np.unique(idx[::-1], return_index=True)[1]
                idx, vals = idx[keep], (vals if np.isscalar(vals) else vals[keep])
            b.scatter(arr, b.asarray(idx), vals if np.isscalar(vals) else b.asarray(vals))

    def gather(self, name: str, ids) -> np.ndarray:
        """Gather: ``name[ids]`` as a host array (ids on the host, or a frontier's)."""
        b = self.rt.backend
        arr = self.arrays[name]
        idx = ids.ids if isinstance(ids, Frontier) else b.asarray(_checked_ids(np.asarray(ids, dtype=np.int64),
                                                                                len(arr), name))
        return b.to_host(b.gather(arr, idx))

    def assign_entries(self, name: str, ids, columns, values) -> None:
        """Scatter into an array with one row per vertex: ``name[ids[i], columns[i]] = values[i]``
        (``values`` a scalar, or one value per id), on the backend."""
        b = self.rt.backend
        rows = b.asarray(np.asarray(ids, dtype=np.int64).reshape(-1))
        cols = b.asarray(np.asarray(columns, dtype=np.int64).reshape(-1))
        self.arrays[name][rows, cols] = values if np.isscalar(values) else b.asarray(np.asarray(values))

    _REDUCTIONS = ("sum", "min", "max")

    def reduce(self, name: str, op: str = "sum", frontier: Frontier | None = None):
        """``op`` (sum, min or max) of array ``name`` over ``frontier`` (None: every vertex).

        A Python number; the sum of nothing is 0, the min or max of nothing is None.
        One pass on the backend (C++/OpenMP on the CPU, CuPy on a GPU).
        """
        if op not in self._REDUCTIONS:
            raise ValueError(f"reduce: op must be one of {', '.join(self._REDUCTIONS)}, got {op!r}")
        ids = frontier.ids if frontier is not None and not frontier.is_all else None
        return self.rt.backend.reduce(self.arrays[name], op, ids)

    def select(self, name: str, lo: float, hi: float, frontier: Frontier | None = None) -> Frontier:
        """The vertices of ``frontier`` (None: every vertex) with ``lo <= name[v] < hi``."""
        b, n = self.rt.backend, self.rt.graph.n
        if frontier is None or frontier.is_all:
            bits = b.select_bits(self.arrays[name], lo, hi)  # a dense answer needs no id list
            if bits is not None:
                return Frontier(b, n, bits=bits)
        ids = None if frontier is None or frontier.is_all else frontier.ids
        return Frontier(b, n, ids=b.select(self.arrays[name], lo, hi, ids))

    def groups(self, name: str, column: int | None = None) -> list[Frontier]:
        """The vertices whose entry of ``name`` (its ``column`` for an array with a row per vertex)
        is finite, one frontier per distinct value, in increasing order of the value: the buckets
        of equal distance that a weighted Brandes search walks. One stable sort where the state
        lives (on a GPU: no n-sized copy to the host).

        Example:
            >>> import numpy as np
            >>> from graphferry import Graph
            >>> from graphferry.runtime import Runtime, Program
            >>> p = Program("d", arrays={"dist": "float64"}, source="")
            >>> with Runtime(Graph.from_edges(np.array([0]), np.array([1]), n=4), backend="cpu") as rt:
            ...     st = rt.start(p, arrays={"dist": np.array([2.0, np.inf, 0.0, 2.0])})
            ...     [g.host_ids().tolist() for g in st.groups("dist")]
            [[2], [0, 3]]
        """
        b, n = self.rt.backend, self.rt.graph.n
        xp = b.xp
        arr = self.arrays[name]
        values = arr[:, column] if column is not None else arr
        reached = xp.flatnonzero(xp.isfinite(values))
        # ids ascend within a value: flatnonzero's order kept by a stable sort (CuPy's is stable)
        order = reached[xp.argsort(values[reached], **({"kind": "stable"} if xp is np else {}))]
        ordered = values[order]
        cuts = b.to_host(xp.flatnonzero(ordered[1:] != ordered[:-1]) + 1).tolist()
        bounds = [0, *cuts, int(len(order))]
        return [Frontier(b, n, ids=order[a:z]) for a, z in zip(bounds[:-1], bounds[1:]) if z > a]

    def swap(self, a: str, b: str) -> None:
        """Exchange two arrays of the same dtype (double buffering, e.g. PageRank)."""
        self.arrays[a], self.arrays[b] = self.arrays[b], self.arrays[a]

    def kernel_handle(self) -> KernelHandle:
        """The program's kernels and the tables they read now (:class:`KernelHandle`): what a
        driver of maps needs of the state, without reaching into it."""
        return KernelHandle(self.kernels, self._tables_now())

    def _tables_now(self):
        b = self.rt.backend
        ptrs = tuple(b.pointer(self.arrays[a]) for a in self.program.arrays)
        f, i = self.program.pack_scalars(self.scalars)
        key = (ptrs, f.tobytes(), i.tobytes())
        old = self._tables_key or (None, None, None)
        if key != old:
            # each table uploaded only when it changed: a round that moves BFS's depth on sends
            # the integer scalars alone (on a GPU: one small copy instead of three)
            A, F, I = self._tables or (None, None, None)
            A = b.asarray(np.array(ptrs + (0,), dtype=np.uint64)) if key[0] != old[0] else A
            F = b.asarray(f) if key[1] != old[1] else F
            I = b.asarray(i) if key[2] != old[2] else I
            self._tables = (A, F, I)
            self._tables_key = key
        return self._tables

    # ------------------------------------------------------------ operators
    def edge_map(self, frontier: Frontier, *, direction: str | None = None,
                 reverse: bool = False, output: bool = True) -> Frontier:
        """Apply the program along the edges of the active vertices; return the new frontier.

        ``reverse=True`` maps over the transposed graph: ``s`` and ``d`` of the
        program's functions are then an edge's head and tail (an undirected view
        of a directed graph is one forward and one reverse map).
        ``output=False`` (Ligra's ``no_output``): the caller does not use the new
        frontier; the map returns an empty one, and several ranks do not merge
        their frontiers.
        """
        rt, g, b = self.rt, self.rt.graph, self.rt.backend
        since = time.perf_counter()  # the step begins with choosing its direction
        fsize = len(frontier)
        history = self._directions.get(reverse)
        if history is None:
            history = self._directions[reverse] = DirectionHistory(m=g.m, n=g.n)
        # The frontier's edges, counted only where the direction rule reads them (on the CPU: a
        # pass over the offsets of every active vertex, 14.6 M of them in BFS's second pull at
        # scale 25, for a choice that needs only the frontier's size); several ranks and device
        # backends count them always (their records and models read them).
        counted: list[int] = []

        def count_edges() -> int:
            if not counted:
                counted.append(rt.frontier_edges(frontier, reverse))
            return counted[0]

        if b.is_device or rt.loaded.distribution is not None:
            count_edges()
        d = choose_direction(self.program, fsize, count_edges, g.m, force=direction or rt.direction,
                             pull_fraction=rt.pull_fraction, history=history,
                             full_pull_fraction=rt.backend.full_pull_fraction_for(self.program))
        fedges = counted[0] if counted else NOT_COUNTED

        def begin():  # the step's record, opened by the way the map runs (chosen at build: rt.maps)
            return rt.record.begin("edge_map", d, active_vertices=fsize, active_edges=fedges, since=since)

        out, it = rt.maps.edge_map(self, frontier, d, reverse, begin, output)
        return self._finish_edge_map(out, it, output)

    def edge_map_buckets(self, buckets) -> int:
        """Edge_map the lowest bucket of ``buckets`` (:class:`~.buckets.PriorityBuckets` over this
        state), file the vertices it changed, until every bucket is empty; returns the rounds.

        This is ``while (b := buckets.pop()) is not None: buckets.add(self.edge_map(b))``,
        and runs so where the work crosses partitions, engines or executors. Where one
        backend call can run every round (the CPU backend on the ``host`` engine: one
        side read in place, per-thread buckets, no frontier between rounds) it does, and
        the record holds one edge_map step for all rounds (active vertices and edges are
        the relaxations of every round; ``extra["bucket_rounds"]`` the rounds).

        Example:
            >>> import numpy as np
            >>> from graphferry import Graph
            >>> from graphferry.runtime import Program, Runtime
            >>> from graphferry.runtime.buckets import PriorityBuckets
            >>> from graphferry.algorithms.sssp import PROGRAM
            >>> g = Graph.from_edges(np.array([0, 0, 1]), np.array([1, 2, 2]), np.array([5.0, 9.0, 1.0]), n=4)
            >>> with Runtime(g, backend="cpu") as rt:
            ...     st = rt.start(PROGRAM, arrays={"dist": np.inf})
            ...     st.assign("dist", [0], 0.0)
            ...     b = PriorityBuckets(st, "dist", delta=2.0)
            ...     b.add(rt.frontier([0]))
            ...     rounds = st.edge_map_buckets(b)
            ...     st.host("dist").tolist()
            [0.0, 5.0, 6.0, inf]
        """
        fused = self._fused_buckets(buckets)
        if fused is not None:
            return fused
        rounds = 0
        while (bucket := buckets.pop()) is not None:
            rounds += 1
            buckets.add(self.edge_map(bucket))
        return rounds

    def _fused_buckets(self, buckets) -> int | None:
        """All rounds in one backend call (see :meth:`edge_map_buckets`), or None where it cannot."""
        rt = self.rt
        if (buckets.state is not self or buckets.dense or buckets.fill > 1 or rt.direction not in ("auto", "push")
                or rt.loaded.distribution is not None or rt.engine_name != "host"
                or not hasattr(self.kernels, "push_buckets") or not self.program.has_push):
            return None
        side, engine = rt.side("push", self.program.uses_weights)
        if len(side.partitions) != 1:
            return None
        values = self.arrays[buckets.name]
        if values.dtype not in (np.float32, np.float64):
            return None
        seeds = buckets.take_all()
        it = rt.record.begin("edge_map", "push", active_vertices=len(seeds), active_edges=0)
        loaded = engine.load(side.partitions[0], None)
        t = time.perf_counter()
        rounds, relaxed, edges = self.kernels.push_buckets(self._tables_now(), loaded.view, values,
                                                           buckets.delta, seeds)
        it.kernel_seconds += time.perf_counter() - t
        it.active_vertices, it.active_edges, it.next_active = relaxed, edges, 0
        it.add_partition(0, loaded.engine or engine.name, loaded.bytes_h2d, relaxed)
        engine.done(loaded)
        rt.record.extra["bucket_rounds"] = rt.record.extra.get("bucket_rounds", 0) + rounds
        self._end_edge_map_step(it)
        return rounds

    def _finish_edge_map(self, out, it, output: bool = True) -> Frontier:
        g, b = self.rt.graph, self.rt.backend
        nxt = Frontier(b, g.n, bits=out if output else b.new_bitmap(g.n))
        it.next_active = len(nxt)
        self._end_edge_map_step(it)
        return nxt

    def _end_edge_map_step(self, it) -> None:
        """Close an edge_map step in the record and report it to the run's progress callback."""
        rt = self.rt
        rt.record.end(it)
        if rt.progress is not None:
            rt.progress("edge_map", it.index, rt.record)

    def vertex_map(self, fn: str, frontier: Frontier | None = None) -> Frontier:
        """Run vertex function ``fn`` on every vertex (or the frontier's); return those it kept."""
        if fn not in self.program.vertex_functions:
            raise ValueError(f"program {self.program.name} has no vertex function {fn!r}")
        rt, b, n = self.rt, self.rt.backend, self.rt.graph.n
        out = b.new_bitmap(n)
        it = rt.record.begin("vertex_map", "-", active_vertices=n if frontier is None else len(frontier),
                             active_edges=0)
        ids = in_bits = None
        if frontier is not None and not frontier.is_all:
            # a dense bitmap is read in place (the kernels visit its set bits a word at a
            # time) rather than listed first: listing is a pass over n and an id array
            if frontier.prefers_bitmap():
                in_bits = frontier.bits
            else:
                ids = frontier.ids
        self.kernels.vertex_map(fn, self._tables_now(), 0, n, ids, in_bits, out)
        b.synchronize()
        nxt = Frontier(b, n, bits=out)
        rt.record.end(it)
        return nxt

    def neighbor_map(self, fn: str, *, in_edges: bool = True) -> Frontier:
        """Run neighbourhood function ``fn`` on every vertex with the whole graph readable.

        ``in_edges=False`` promises that ``fn`` never reads ``GT`` (the transpose),
        which then is not built: a directed graph's transpose costs a sort of m edges.
        """
        if fn not in self.program.neighbor_functions:
            raise ValueError(f"program {self.program.name} has no neighbourhood function {fn!r}")
        rt, b, n = self.rt, self.rt.backend, self.rt.graph.n
        g, gt = rt.whole_graph(self.program.uses_weights, in_edges)
        out = b.new_bitmap(n)
        it = rt.record.begin("neighbor_map", "-", active_vertices=n, active_edges=rt.graph.m)
        out = rt.maps.neighbor_map(self, fn, g, gt, out, it, in_edges)
        b.synchronize()
        nxt = Frontier(b, n, bits=out)
        rt.record.end(it)
        return nxt
