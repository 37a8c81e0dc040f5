"""A loaded graph: a graph placed once for a backend and reused by every algorithm call on it.

Peers (GAPBS, EMOGI, HyTGraph) load a graph once and time algorithms on it;
users run several algorithms on one graph. :func:`load` does the one-time work
and returns a :class:`LoadedGraph` that every algorithm accepts in place of a
:class:`~graphferry.graph.Graph`:

* the edge arrays in **pinned host memory** (on a GPU: ``cudaHostAlloc``'ed
  buffers, read straight from the store's files, so copies run at the bus's
  pinned speed and zero-copy kernels read them with no registration per call;
  when host memory is short, the arrays are pinned in place with
  ``cudaHostRegister`` instead). On the CPU backend "pinned" is plain memory: a
  memory-mapped store is read into memory when it fits.
* the **edge sides** (partitions) and their **engines** with their device
  buffers (a ``resident`` copy stays on the device), built on first use and kept;
* the device copies of the **degrees** and their sums (the push/pull choice), and other
  per-vertex **constants** derived from the graph alone (inverse degrees, sink ids, identity
  labels: :meth:`LoadedGraph.constant`) and checked **facts** (:meth:`LoadedGraph.memo`);
* the **compiled programs** (one compilation per program and vertex-id type).

On a device, the engines whose edges are all readable at once (``resident``, ``zerocopy``)
see each edge side as one partition, so a map is one launch.

Engines that need more of the device-memory budget than is free evict the
least recently used other engines (their buffers are given back), so one
handle can serve ``resident`` and ``filter`` runs one after the other.

A plain ``Graph`` passed to an algorithm gets a temporary loaded graph that is
closed when the call ends, with the graph's arrays used where they lie (no
pinned copy), which is what one call on a fresh graph needs.

Example:
    >>> import numpy as np
    >>> import graphferry as gf
    >>> from graphferry.algorithms import bfs, wcc
    >>> g = gf.Graph.from_edges([0, 1, 3], [1, 2, 4], n=5, directed=False)
    >>> with gf.load(g, backend="cpu") as lg:
    ...     levels = bfs(lg, 0).levels.tolist()
    ...     labels = wcc(lg).labels.tolist()
    ...     compiled = lg.stats["programs_compiled"]
    >>> levels, labels, compiled
    ([0, 1, 2, -1, -1], [0, 0, 0, 3, 3], 2)
"""

from __future__ import annotations

import dataclasses
import logging
import os
import time
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..backends import get_backend
from ..backends.base import Backend, DeviceArena
from ..engines.base import EdgeSide, Engine
from ..engines.registry import engine_class
from ..errors import DeviceMemoryError
from ..graph import Graph
from ..partition import DEFAULT_PARTITION_BYTES
from ..phase_clock import phase
from .host_copies import ONE_CALL_PACK_PASSES, HostCopies  # noqa: F401 - (the constant: read from here too)

if TYPE_CHECKING:  # the scheduler is imported where a graph first runs the hybrid (a one-shot run of
    # another engine never does)
    from ..scheduler.executors import Executor
    from ..scheduler.pool import BufferPool

log = logging.getLogger(__name__)

#: Copies and reads into pinned memory run in slices of this many bytes, several threads at once.
COPY_SLICE_BYTES = 64 << 20
#: Leave this fraction of the host's available memory free when choosing pinned copies.
HOST_HEADROOM = 0.2
#: On a device, engines whose edges are all readable at once (in device memory, or mapped
#: host memory; the trait ``Engine.whole_side``) see the whole side as one partition: no transfer needs cutting, and one
#: launch per map replaces one per partition (measured at Kronecker 25 on an H200, resident:
#: PageRank 47 -> 32 ms per iteration, SSSP 242 -> 84 ms, BFS 56 -> 28 ms). The CPU backend keeps the partitions, so
#: CI runs every engine's partition logic.


class LoadedGraphClosedError(RuntimeError):
    """The loaded graph was closed; load the graph again."""


def load(graph: "Graph | str | os.PathLike", *, backend: str | Backend = "auto", budget: int | None = None,
         partition_bytes: int | None = None, pinned: bool | None = None,
         narrow_weights: bool = True, pack_ids: bool = True, work_passes: float | None = None,
         kept: bool = True, fuse_edges: bool = True) -> "LoadedGraph":
    """Load ``graph`` (a :class:`Graph` or a graph store's path) once for ``backend``.

    ``budget``: bytes of device memory for edge data (default: 80% of the GPU's
    free memory; on the CPU, room for both edge directions). ``pinned``: place
    the edges in pinned host memory (default: when host memory allows it).
    ``narrow_weights``: where every edge weight is an integer of at most 65535,
    weighted maps read a uint8 or uint16 copy of the weights (made on first use, pinned
    on a device whatever ``pinned`` says, since it is a new buffer either way; results are
    the same, and a weighted edge moves 5 or 6 bytes instead of 8). It applies to this
    handle's sides: a graph an algorithm derives for one call (the spanning forest's
    symmetrised graph, betweenness's simple graph) narrows its own weights where its
    engine moves edges again and again. ``pack_ids``: engines that copy or map ranges of
    edges again and again (filter, zerocopy, hybrid) read the vertex ids packed in
    ``ceil(log2 n)``-bit fields (made on first use, pinned on a device; 25 bits instead of 32
    for 2^25 vertices, on the bus and in device memory); same results, same partitions.
    ``fuse_edges``: where ids are packed and weights narrowed, engines that read weighted rows in
    place (zerocopy, hybrid) read a third copy with each edge's id and weight in one field
    (:meth:`LoadedGraph.side_fused`), so a short row costs one request instead of two.
    ``backend="auto"``: the GPU where one is usable, unless the start-up model
    (:mod:`graphferry.runtime.startup`) expects the CPU to finish first; ``work_passes``
    tells it how many times the run will read the edges (default: a few). ``kept=False``: the
    handle serves one call (the command line's ``run``): on a device, host copies that engines
    read across the bus go into plain memory registered in place (``cudaHostRegister``: 45 GB/s
    for an array of ones in bench/engines_bench.py on the H200's host) instead of new pinned
    memory (``cudaHostAlloc``: 2.4 GB/s there), which only later calls' faster zero-copy reads (51
    against 37 GB/s) would pay back; ids are packed only for runs that read the edges often
    (:meth:`packs`). At Kronecker 25 the hybrid's one-shot still spent 2.0 s placing 4.2 GB of
    edges this way (the H200, 1e539db): the run record's ``placement`` says how long the read and
    the registration took.

    Example:
        >>> import graphferry as gf
        >>> g = gf.Graph.from_edges([0, 1], [1, 2], n=3)
        >>> lg = gf.load(g, backend="cpu")
        >>> lg.n, lg.m, lg.backend.name
        (3, 2, 'cpu')
        >>> lg.close(); lg.closed
        True
    """
    t0 = time.perf_counter()
    if not isinstance(graph, Graph):
        from ..store import open_store

        graph = open_store(Path(graph))
    return LoadedGraph(graph, backend=backend, budget=budget, partition_bytes=partition_bytes,
                       pinned=True if pinned is None else pinned, narrow_weights=narrow_weights,
                       pack_ids=pack_ids, work_passes=work_passes, kept=kept, fuse_edges=fuse_edges, _t0=t0)


class LoadedGraph(HostCopies):
    """A graph placed for one backend; engines, buffers, degrees and programs kept across calls.

    Reads like the :class:`Graph` it holds (``n``, ``m``, ``indices``,
    ``out_degree``, ``to_internal_id``, ...), so algorithms take either.
    ``load_seconds`` is the one-time cost; each run record names it apart from
    the algorithm's own time. Close it (or use it as a context manager) to give
    back device and pinned memory.
    """

    #: Several ranks (:mod:`graphferry.distributed`): the maps split over them (None: this process alone).
    distribution = None

    def __init__(self, graph: Graph, *, backend: str | Backend = "auto", budget: int | None = None,
                 partition_bytes: int | None = None, pinned: bool = True,
                 temporary: bool = False, narrow_weights: bool = True, pack_ids: bool = True,
                 work_passes: float | None = None, kept: bool = True, fuse_edges: bool = True,
                 _t0: float | None = None):
        t0 = time.perf_counter() if _t0 is None else _t0
        self.kept = bool(kept)
        self.work_passes = work_passes  # the edges' reads the caller expects (None: not said)
        self._registered: list[np.ndarray] = []  # plain buffers this handle registered (kept=False)
        if partition_bytes is not None and int(partition_bytes) <= 0:
            raise ValueError(f"partition_bytes must be positive, got {partition_bytes}")
        if isinstance(backend, str) and backend == "auto":  # the backend the model expects to finish first
            from .startup import resolve_auto

            backend = resolve_auto(graph.m, graph.edge_bytes, work_passes)
        self.backend = get_backend(backend)
        # None: DEFAULT_PARTITION_BYTES for engines that move edges, one partition
        # per side for the host engine (nothing moves; partitions would only add launches)
        self.partition_bytes = None if partition_bytes is None else int(partition_bytes)
        self.temporary = temporary
        self.narrow_weights = bool(narrow_weights)
        self.pack_ids = bool(pack_ids)
        self.fuse_edges = bool(fuse_edges)
        self.closed = False
        self.placement: dict[str, str] = {}
        # On a device the pinned copy waits for an engine that reads host memory again and again:
        # the resident engine reads the edges once, through the backend's pinned staging slots
        # (straight from a store's files), and pinning a whole graph costs more than reading it
        # (4.29 GB: 1.79 s on the H200's host, FLOORS.md).
        self._place_pending = bool(pinned and not temporary and self.backend.is_device)
        if self._place_pending:
            self.graph = graph
            self.placement["indices"] = "in place until an engine other than resident needs it pinned"
        else:
            self.graph = self._place(graph, pinned) if not temporary else graph
        self.arena = DeviceArena(self.backend, int(self._default_budget() if budget is None else budget))
        self._engines: OrderedDict[tuple, tuple[EdgeSide, Engine]] = OrderedDict()
        self._cal = None  # the calibration, once read (see _calibration)
        self._sides: dict[tuple, EdgeSide] = {}
        self._narrowed: dict[str, np.ndarray | None] = {}  # per CSR: its weights narrowed, or None
        self._packed_ids: dict[str, tuple[np.ndarray, int]] = {}  # per CSR: its ids packed, and their bits
        self._fused: dict[str, tuple[np.ndarray, int]] = {}  # per CSR: its edges fused, and the weights' bits
        self._transpose: Graph | None = None
        self._whole: dict[tuple, Any] = {}
        self._degrees: dict[str, Any] = {}
        self._degree_sums: dict[str, int] = {}
        self._programs: dict[tuple, Any] = {}
        self._programs_seen: list = []  # the programs compiled, for the hybrid's CPU executor
        self._pool = None        # the hybrid engine's device buffers (scheduler.pool), made on first use
        self._executors = None   # the hybrid engine's executors (device, CPU), made on first use
        self._memo: dict[str, Any] = {}
        self._constants: dict[str, Any] = {}
        self.stats = {"programs_compiled": 0, "sides_built": 0, "engines_built": 0, "engines_evicted": 0,
                      "constants_built": 0, "facts_computed": 0}
        self.load_seconds = time.perf_counter() - t0
        if not temporary:
            log.info("loaded %r for %s in %.3f s (%s)", graph, self.backend.name, self.load_seconds,
                     ", ".join(f"{k}: {v}" for k, v in self.placement.items()))

    # ------------------------------------------------------------ reads like a Graph
    def __getattr__(self, name: str) -> Any:
        if name.startswith("_") or name in ("graph", "closed"):
            raise AttributeError(name)
        return getattr(self.graph, name)

    def __repr__(self) -> str:
        state = "closed" if self.closed else f"{self.backend.name}, {self.placement.get('indices', 'in place')}"
        return f"LoadedGraph({self.graph!r}, {state})"

    # ------------------------------------------------------------ placement
    def _place(self, g: Graph, pinned: bool) -> Graph:
        """The graph with its edge arrays in pinned host memory where that is allowed."""
        arrays = {"indices": g.indices, "weights": g.weights}
        need = sum(a.nbytes for a in arrays.values() if a is not None)
        place_copy = pinned and need <= host_available_bytes() * (1 - HOST_HEADROOM)
        out = {}
        for key, arr in arrays.items():
            if arr is None:
                out[key] = None
                continue
            out[key] = self._place_array(key, arr, place_copy)
        offsets = np.ascontiguousarray(g.offsets) if not _is_mapped(g.offsets) or not place_copy \
            else _read_copy(g.offsets, np.empty(len(g.offsets), np.int64))
        if not place_copy and all(out[k] is a for k, a in arrays.items()) and g.offsets.flags.c_contiguous:
            return g  # nothing moved (e.g. a one-shot run reading the store in place): checked when it was made
        placed = Graph(offsets, out["indices"], out["weights"], directed=g.directed,
                       original_ids=g.original_ids, name=g.name, meta=g.meta)
        if out["indices"] is g.indices and out["weights"] is g.weights:
            placed._transpose = g._transpose  # nothing moved: a transpose already built still serves
        return placed

    def _ensure_placed(self) -> None:
        """Make the deferred pinned copy of the edges (and of a transpose built before it)."""
        if not self._place_pending:
            return
        with phase("pin"):
            self._place_pending_now()

    def _place_pending_now(self) -> None:
        self._place_pending = False
        t = time.perf_counter()
        g = self.graph
        self.graph = self._place(g, True)
        if self._transpose is not None and self._transpose is not g:
            tr = self._transpose
            self._transpose = Graph(tr.offsets, self._place_array("transpose indices", tr.indices, True),
                                    None if tr.weights is None else
                                    self._place_array("transpose weights", tr.weights, True),
                                    directed=True, name=tr.name)
        elif self._transpose is g:
            self._transpose = None
        for key, w in list(self._narrowed.items()):  # narrowed while the placement waited: pinned now
            if w is not None and w.size and self.kept and not self.backend.is_pinned(w):
                self._narrowed[key] = _read_copy(w, self._new_host_buffer(w.size, w.dtype))
        for key, (words, bits) in list(self._packed_ids.items()):  # the same for ids packed meanwhile
            if words.size and self.kept and not self.backend.is_pinned(words):
                self._packed_ids[key] = (_read_copy(words, self._new_host_buffer(words.size, words.dtype)), bits)
        for key, (words, bits) in list(self._fused.items()):  # and edges fused meanwhile
            if words.size and self.kept and not self.backend.is_pinned(words):
                self._fused[key] = (_read_copy(words, self._new_host_buffer(words.size, words.dtype)), bits)
        self._sides.clear()  # built over the arrays in place; engines built on them keep theirs
        log.info("edges placed for engines that read host memory in %.3f s (%s)", time.perf_counter() - t,
                 ", ".join(f"{k}: {v}" for k, v in self.placement.items()))

    def _place_array(self, key: str, arr: np.ndarray, copy: bool) -> np.ndarray:
        b = self.backend
        if b.is_device and b.is_pinned(arr):  # e.g. another loaded graph's placement
            self.placement[key] = "pinned already"
            return arr
        if copy and b.is_device and not self.kept:  # one call: read into memory, registered in place
            t = time.perf_counter()
            buf = _read_copy(arr, np.empty(arr.size, arr.dtype))
            read = time.perf_counter() - t
            if b.register_host(buf):
                self._registered.append(buf)
                self.placement[key] = (f"read into memory in {read:.3f} s, registered in place in "
                                       f"{time.perf_counter() - t - read:.3f} s (one call)")
                return buf
            log.info("%s: registration refused after a read of %.3f s; a pinned copy instead", key, read)
        if copy and b.is_device:
            try:
                buf = b.pinned_empty(arr.size, arr.dtype)
                self.placement[key] = "pinned (cudaHostAlloc)"
                return _read_copy(arr, buf)
            except Exception as e:  # noqa: BLE001 - the driver refuses: fall back to pinning in place
                log.info("pinned allocation of %d bytes for %s refused (%s); registering in place",
                         arr.nbytes, key, e)
        if copy and not b.is_device and _is_mapped(arr):
            self.placement[key] = "host memory (read from the store)"
            return _read_copy(arr, np.empty(arr.size, arr.dtype))
        if b.is_device and b.register_host(arr):
            self.placement[key] = "registered in place (cudaHostRegister)"
        else:
            self.placement[key] = "in place"
        return arr

    def _default_budget(self) -> int:
        g = self.graph
        if self.backend.is_device:
            return max(1 << 20, int(self.backend.free_device_bytes() * 0.8))
        return 2 * (g.m * (g.indices.itemsize + 4)) + (1 << 20)  # both directions, weights

    # ------------------------------------------------------------ what runtimes use
    def _check_open(self) -> None:
        if self.closed:
            raise LoadedGraphClosedError(f"{self!r} was closed; load the graph again (graphferry.load)")

    def has_transpose(self) -> bool:
        """Whether the in-edge CSR is at hand without building it (an undirected graph is its own)."""
        return not self.graph.directed or self._transpose is not None or self.graph._transpose is not None

    def transpose(self) -> Graph:
        """The in-edge CSR, built once and placed like the graph's own edges."""
        self._check_open()
        if not self.graph.directed:
            return self.graph
        if self._transpose is None:
            t = self.graph.transpose()
            if not self.temporary and not self._place_pending:
                t = Graph(t.offsets, self._place_array("transpose indices", t.indices, True),
                          None if t.weights is None else self._place_array("transpose weights", t.weights, True),
                          directed=True, name=t.name)
            self._transpose = t
        return self._transpose

    def side(self, csr: str, use_weights: bool, engine: str) -> tuple[EdgeSide, Engine]:
        """The edge side of ``csr`` ("out" or "in") and its engine ``engine``, built once."""
        self._check_open()
        cls = engine_class(engine)
        defer = self._defers_placement(cls, use_weights)
        if cls.moves != "side" and not defer:  # reads host memory again and again: pinned
            self._ensure_placed()
        key = (csr, use_weights, engine)
        if key in self._engines:
            self._engines.move_to_end(key)
            return self._engines[key]
        skey, side = self._side_for(csr, use_weights, engine)
        while True:
            used = self.arena.used_bytes
            try:
                with phase("engine_setup"):
                    # an engine that schedules the partitions itself (the hybrid) runs them in this
                    # graph's buffer pool, on its executors
                    eng = cls(side, self.backend, self.arena) if not cls.schedules else \
                        cls(side, self.backend, self.arena, pool=self.pool, executors=self.executors,
                            key=skey, calibration_for=self._calibration,
                            side_for=lambda name: self._side_for(csr, use_weights, name)[1],
                            place=(lambda: self._placed_side(csr, use_weights, engine)) if defer else None)
                break
            except DeviceMemoryError:
                self.arena.used_bytes = used  # buffers taken before the refusal are garbage now
                if not self._evict_one(keep=key):
                    raise
        self._engines[key] = (side, eng)
        self.stats["engines_built"] += 1
        log.debug("%s-edge side: %d partitions, engine %s", csr, len(side.partitions), engine)
        return side, eng

    def _defers_placement(self, cls, use_weights: bool) -> bool:
        """Whether an engine that schedules whole maps (the hybrid) is built before the edges'
        pinned placement: on a device, for one call (``kept=False``), where the budget holds the
        side whole. Its maps are then the resident engine's (``whole_side_engine``), which reads
        the edges once through the staging slots, straight from a store's files; registering
        4.2 GB of edges for nothing cost a one-shot hybrid BFS at Kronecker 25 about 2 s on the
        H200. The engine asks for the placement (``place``) if its own plan ever runs."""
        if not (self._place_pending and cls.schedules and not self.kept):
            return False
        g = self.graph
        per_edge = g.indices.itemsize + (g.weights.itemsize if use_weights and g.weights is not None else 0)
        return g.m * per_edge <= self.arena.free_bytes

    def _placed_side(self, csr: str, use_weights: bool, engine: str) -> EdgeSide:
        """The edges placed now (pinned, or registered for one call), and ``csr``'s side as
        ``engine`` reads it over them: what a hybrid built before the placement reads once its
        own plan runs."""
        self._ensure_placed()
        return self._side_for(csr, use_weights, engine)[1]

    def _side_for(self, csr: str, use_weights: bool, engine: str) -> tuple[tuple, EdgeSide]:
        """``(key, side)``: the edge side of ``csr`` as ``engine`` reads it (its partitions, narrowed
        weights, packed ids), built once and shared by every engine that reads it alike."""
        cls = engine_class(engine)
        # on a device, resident and zerocopy read a side as one partition: one launch per map
        whole = cls.whole_side and self.backend.is_device
        pbytes = self.partition_bytes
        if whole:
            pbytes = max(1, self.graph.m * (self.graph.indices.itemsize + 4))
        elif pbytes is None:
            pbytes = DEFAULT_PARTITION_BYTES if cls.splits_partitions else 1 << 62
        narrow = use_weights and self.narrows(engine)
        pack = self.packs(engine)
        fuse = narrow and pack and self.fuses(engine)
        skey = (csr, use_weights, pbytes, narrow, pack, fuse)
        side = self._sides.get(skey)
        if side is None:
            g = self.graph if csr == "out" else self.transpose()
            w = self.side_weights(csr) if narrow else None
            side = EdgeSide.of(g, pbytes, use_weights, w, self.side_packed(csr) if pack else None)
            if not side.packing_pays():  # partitions of a few dozen edges: packed buffers are larger
                side = dataclasses.replace(side, packed=None, index_bits=0)
            elif fuse and side.weights is not None and side.weights.dtype != np.float32:
                words, wbits = self.side_fused(csr)
                side = dataclasses.replace(side, fused=words, fused_weight_bits=wbits)
            self._sides[skey] = side
            self.stats["sides_built"] += 1
        return skey, side

    def _csr(self, csr: str) -> tuple[Graph, str]:
        """CSR ``csr`` ("out" or "in") as a graph, and the key of its copies ("in" is "out" for an
        undirected graph, which is its own transpose)."""
        self._check_open()
        g = self.graph if csr == "out" or not self.graph.directed else self.transpose()
        return g, "out" if g is self.graph else "in"

    def _new_host_buffer(self, count: int, dtype) -> np.ndarray:
        """A new host array for a copy kernels read across the bus: on a device, pinned
        (cudaHostAlloc) wherever the host allows, since kernels read such memory across the bus
        faster than memory registered in place (37 against 51 GB/s, NOTES-engines). While the
        edges' pinned copy waits (only the resident engine asked so far, which reads such a copy
        once through the staging slots), plain memory: pinning costs more than the copy (0.4 s a
        GB on the H200's host); the pinned copy is made with the edges' (:meth:`_ensure_placed`)."""
        b = self.backend
        if b.is_device and not self.kept:  # one call: plain memory, registered where an engine reads it
            return np.empty(count, dtype)
        if (b.is_device and not self._place_pending
                and count * np.dtype(dtype).itemsize <= host_available_bytes() * (1 - HOST_HEADROOM)):
            try:
                return b.pinned_empty(count, dtype)
            except Exception as e:  # noqa: BLE001 - refused: plain memory, registered by the engines
                log.info("pinned allocation of %d %s refused (%s)", count, np.dtype(dtype).name, e)
        return np.empty(count, dtype)

    @property
    def pool(self) -> BufferPool:
        """One pool of device buffers shared by the hybrid engine's sides (allocated lazily)."""
        if self._pool is None:
            from ..scheduler.pool import BufferPool

            # the pool may evict this graph's other (idle) engines: never a hybrid side in use
            self._pool = BufferPool(self.arena, reclaim=lambda nbytes: self._reclaim_for_pool(nbytes))
        return self._pool

    @property
    def executors(self) -> list[Executor]:
        """Where the hybrid engine computes: this graph's device first, then the host's CPU."""
        if self._executors is None:
            from ..backends.cpu.backend import CpuBackend
            from ..scheduler.executors import Executor

            first = "gpu0" if self.backend.name == "cuda" else "dev0"  # dev0: the CPU's simulated device
            self._executors = [Executor(first, self.backend, True, self.arena),
                               Executor("cpu", CpuBackend(), False)]
            for program in self._programs_seen:
                self._compile_on_host_soon(program)
        return self._executors

    def _reclaim_for_pool(self, nbytes: int) -> bool:
        """Evict engines other than the hybrid's until ``nbytes`` are free (least recently used first)."""
        while self.arena.free_bytes < nbytes:
            victim = next((k for k in self._engines if not engine_class(k[2]).schedules), None)
            if victim is None:
                return False
            _, eng = self._engines.pop(victim)
            eng.close()
            self.stats["engines_evicted"] += 1
            log.debug("evicted engine %s to make room for the hybrid's buffers", victim)
        return True

    def _evict_one(self, keep: tuple) -> bool:
        for key in list(self._engines):
            if key != keep:
                _, eng = self._engines.pop(key)
                eng.close()
                self.stats["engines_evicted"] += 1
                log.debug("evicted engine %s to free device memory", key)
                return True
        return False

    def compile(self, program) -> Any:
        """The program compiled for this backend and the graph's vertex-id type (once)."""
        self._check_open()
        key = (program.fingerprint(), self.graph.indices.dtype.str)
        k = self._programs.get(key)
        if k is None:
            k = self._programs[key] = self.backend.compile(program, self.graph.indices.dtype)
            self.stats["programs_compiled"] += 1
            self._programs_seen.append(program)
            if self._executors is not None:
                self._compile_on_host_soon(program)
        return k

    def _compile_on_host_soon(self, program) -> None:
        """Start compiling ``program`` for the hybrid's CPU executor in the background: on a fresh
        machine the C++ compiler takes seconds, which the executor's first partition would wait
        for; started when the hybrid's executors are made, it overlaps the device's first rounds."""
        if not self.backend.is_device or self._executors is None:
            return
        cpu = self._executors[1].backend

        def build():
            try:
                cpu.compile(program, self.graph.indices.dtype)
            except Exception as e:  # noqa: BLE001 - the executor's own compile reports it
                log.debug("host compilation of %s ahead of use failed (%s)", program.name, e)
        _host_compile_pool().submit(build)

    def degree_sum(self, reverse: bool) -> int:
        key = "in" if reverse and self.graph.directed else "out"
        if key not in self._degree_sums:
            deg = self.graph.in_degree if key == "in" else self.graph.out_degree
            self._degree_sums[key] = int(deg.sum())
        return self._degree_sums[key]

    def degree_offsets(self, reverse: bool) -> np.ndarray:
        """Offsets along the map's edges (the transpose's for a reverse map of a directed graph)."""
        return self.transpose().offsets if reverse and self.graph.directed else self.graph.offsets

    def device_degrees(self, reverse: bool) -> Any:
        """The degrees along the map's edges, on the device (uploaded once)."""
        key = "in" if reverse and self.graph.directed else "out"
        dev = self._degrees.get(key)
        if dev is None:
            deg = self.graph.in_degree if key == "in" else self.graph.out_degree
            with phase("upload"):
                dev = self._degrees[key] = self.backend.asarray(deg)
        return dev

    def memo(self, key: str, build) -> Any:
        """A fact about the graph computed once by ``build()`` and kept (e.g. "weights are
        non-negative"); on a temporary loaded graph it lives for the call only."""
        self._check_open()
        if key not in self._memo:
            self._memo[key] = build()
            self.stats["facts_computed"] += 1
        return self._memo[key]

    def constant(self, key: str, build) -> Any:
        """A per-vertex array derived from the graph alone (inverse degrees, sink ids, ...),
        built once on the host by ``build()`` and kept on the device for every later call."""
        self._check_open()
        dev = self._constants.get(key)
        if dev is None:
            dev = self._constants[key] = self.backend.asarray(np.ascontiguousarray(build()))
            self.stats["constants_built"] += 1
        return dev

    def whole(self, key: tuple, build) -> Any:
        self._check_open()
        if key not in self._whole:
            self._whole[key] = build()
        return self._whole[key]

    # ------------------------------------------------------------ life time
    def _calibration(self):
        """This machine's calibration for the backend, read once per loaded graph (a hybrid call
        with a new policy asked for it each time: the device's name from the driver and the
        cached file, 1-2 ms a call on the H200's host)."""
        if self._cal is None:
            self._cal = calibration_for(self.backend)
        return self._cal

    def with_budget(self, budget: int) -> "LoadedGraph":
        """The same graph with another device budget: a new handle (its own arena, engines and
        hybrid pool) over this one's host copies (the pinned edges, the narrowed weights, the
        packed ids, the transpose: those made so far) and calibration, so a budget sweep pins,
        narrows and packs once (Kronecker 25: 4.3 GB pinned in 1.8 s, FLOORS.md, and a pass to pack the ids, per
        load). The new handle reads those copies: close it before this one.

        Example:
            >>> import graphferry as gf
            >>> g = gf.Graph.from_edges([0, 1, 2], [1, 2, 0], n=3, weights=[3, 4, 5])
            >>> with gf.load(g, backend="cpu", budget=1 << 20) as lg:
            ...     narrowed = lg.side_weights("out")      # made once, here
            ...     with lg.with_budget(64) as small:
            ...         same = small.side_weights("out") is narrowed
            ...         budgets = small.arena.budget_bytes, lg.arena.budget_bytes
            >>> same, budgets
            (True, (64, 1048576))
        """
        self._check_open()
        self._ensure_placed()
        other = LoadedGraph(self.graph, backend=self.backend, budget=budget, partition_bytes=self.partition_bytes,
                            pinned=False, narrow_weights=self.narrow_weights, pack_ids=self.pack_ids,
                            fuse_edges=self.fuse_edges)
        other.placement["host copies"] = "shared with the handle it was made from (with_budget)"
        other._narrowed.update(self._narrowed)
        other._packed_ids.update(self._packed_ids)
        other._fused.update(self._fused)
        other._transpose = self._transpose
        other._cal = self._cal
        return other

    def close(self) -> None:
        """Give back every engine's device buffers and the handle's device copies (idempotent)."""
        if self.closed:
            return
        for _, eng in self._engines.values():
            eng.close()
        self._engines.clear()
        if self._pool is not None:
            self._pool.close()
        self._sides.clear()
        self._narrowed.clear()
        self._packed_ids.clear()
        self._fused.clear()
        self._whole.clear()
        self._degrees.clear()
        self._programs.clear()
        self._programs_seen.clear()
        self._constants.clear()
        self._memo.clear()
        registry = getattr(self.backend, "registry", None)
        for buf in self._registered:  # unpinned before the memory can go back to the allocator
            if registry is not None:
                registry.forget(buf)
        self._registered.clear()
        self.closed = True

    def __enter__(self) -> "LoadedGraph":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self):  # pragma: no cover - best effort on exit
        try:
            if not self.closed:
                self.close()
        except Exception:  # noqa: BLE001
            pass


def calibration_for(backend):
    """This machine's calibration for ``backend`` (:func:`graphferry.runtime.calibration.calibration_for`),
    imported where a hybrid first asks: with it comes the scheduler's cost model, which a run of one
    engine never reads."""
    from .calibration import calibration_for as read

    return read(backend)


_host_compiles: ThreadPoolExecutor | None = None


def _host_compile_pool() -> ThreadPoolExecutor:
    """One thread for compilations for the host ahead of use, one at a time (each runs the C++
    compiler in a process of its own, beside the device's work)."""
    global _host_compiles
    if _host_compiles is None:
        _host_compiles = ThreadPoolExecutor(1, thread_name_prefix="gf-host-compile")
    return _host_compiles


# ------------------------------------------------------------------ copies
def host_available_bytes() -> int:
    """Host memory available without swapping (``MemAvailable``: free plus reclaimable page cache)."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:  # pragma: no cover - not Linux
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError):  # pragma: no cover
        return 1 << 40


def _is_mapped(arr: np.ndarray) -> bool:
    """True when ``arr`` lies in a memory-mapped file (a store) rather than ordinary memory."""
    base = arr
    while base is not None:
        if isinstance(base, np.memmap):
            return True
        base = getattr(base, "base", None)
        if base is not None and not isinstance(base, np.ndarray):
            import mmap

            return isinstance(base, mmap.mmap)
    return False


def _file_of(arr: np.ndarray) -> tuple[str, int] | None:
    """(file name, byte offset) of a memory-mapped array that is one contiguous run of its file."""
    if isinstance(arr, np.memmap) and getattr(arr, "filename", None) and arr.flags.c_contiguous:
        return arr.filename, int(arr.offset)
    return None


def _read_copy(src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """Fill ``dst`` with ``src`` in parallel slices: ``pread`` from the store's file when ``src``
    maps one (no page faults through the mapping), else memory copies (numpy releases the GIL)."""
    raw = dst.reshape(-1).view(np.uint8)
    nbytes = raw.nbytes
    if nbytes == 0:
        return dst
    where = _file_of(src)
    slices = [(o, min(COPY_SLICE_BYTES, nbytes - o)) for o in range(0, nbytes, COPY_SLICE_BYTES)]
    workers = max(1, min(len(slices), os.cpu_count() or 1, 16))
    if where is not None:
        fname, base = where
        fd = os.open(fname, os.O_RDONLY)
        try:
            def read(piece):
                off, n = piece
                view = memoryview(raw[off:off + n])
                got = 0
                while got < n:
                    k = os.preadv(fd, [view[got:]], base + off + got)
                    if k <= 0:
                        raise OSError(f"{fname}: short read at byte {base + off + got}")
                    got += k
            with ThreadPoolExecutor(workers) as pool:
                list(pool.map(read, slices))
        finally:
            os.close(fd)
        return dst
    src_raw = np.ascontiguousarray(src).reshape(-1).view(np.uint8)

    def copy(piece):
        off, n = piece
        np.copyto(raw[off:off + n], src_raw[off:off + n])
    with ThreadPoolExecutor(workers) as pool:
        list(pool.map(copy, slices))
    return dst
