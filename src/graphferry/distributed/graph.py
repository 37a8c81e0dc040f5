"""A graph split over the ranks of a world (Lux): each rank owns consecutive vertices and their edges.

Every rank holds the whole vertex state (``n`` entries per array, as the
single-device runtime does) and the edges of its own vertex range
``[lo, hi)`` only: the out-edges of its vertices (push) and the in-edges that
point to them (pull). The split points balance in-edges (Lux sec. 4.2,
:mod:`~graphferry.distributed.placement`). Per range the in-neighbour set
(sources read), the out-neighbour set (the range itself for pull) and the
update set (what the rank needs from others, ``INS - ONS``, Lux eq. 9) are
counted for the performance model.

Each ``edge_map`` of the unchanged single-device programs:

* **pull** (no atomics): each rank computes its own destinations from its
  in-edges; the owned ranges of every state array are then exchanged
  (allgather), so every rank sees every update before the next iteration;
* **push**: each rank pushes from its own active sources along its out-edges
  onto its copy of the state; the copies are merged by the program's declared
  ``combine`` operator (``min``/``max``/``or``: an allreduce; ``sum``: the
  increments over the state all ranks started from, summed in rank order so
  every rank gets the same bits);
* the new frontier is the OR of the ranks' frontiers.

A program that declares no ``combine`` (its updates may write any vertex, e.g.
Afforest's union-find links) and every ``neighbor_map`` run **in rank order**:
rank 0 computes its range, hands the state on to rank 1, and so on; the last
rank broadcasts. That is the single-device runtime's partition loop with the
partitions on different ranks: correct for every program, not parallel.

Memory: a rank holds its own edges (copied from the store's memory maps; see
:func:`open_rank_store`), the offsets (``n + 1``) and the vertex state. A
``neighbor_map`` reads neighbours' lists through the maps (the pages it
touches); algorithms that first transform the graph (simple_graph) hand every
rank the transformed whole graph and split the work only.

Example (a world of one process; ``mpiexec -n 2`` splits the same call over two):
    >>> import numpy as np
    >>> import graphferry as gf
    >>> from graphferry.distributed import DistributedGraph, local_world
    >>> g = gf.Graph.from_edges(np.array([0, 1, 2]), np.array([1, 2, 3]), n=4)
    >>> dg = DistributedGraph(g, local_world(), backend="cpu")
    >>> gf.algorithms.bfs(dg, 0).levels.tolist()
    [0, 1, 2, 3]
    >>> dg.splits.tolist(), dg.devices
    ([0, 4], 1)
"""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Any

import numpy as np

from ..backends.base import PartitionView
from ..graph import Graph
from ..runtime.loaded import LoadedGraph
from ..scheduler.executors import elementwise_merge
from .placement import DEFAULT_ALPHA, Repartitioner, balanced_splits, moved_edges, work_prefix
from .world import World, collectives_for, share_cores, use_local_device

log = logging.getLogger(__name__)


class DistributedGraph(LoadedGraph):
    """A graph loaded on every rank of ``world``, each rank computing its own vertex range.

    Reads like the graph (``n``, ``m``, ``out_degree``, ``in_degree``) on every
    rank; algorithms take it like any loaded graph. ``repartition``: Lux's
    dynamic repartitioning after each edge_map (``alpha``: amortisation).
    ``slowdown``: seconds added per owned edge to each edge_map of the ranks
    named (a slower device, for load-balancing experiments).
    """

    def __init__(self, graph: Graph, world: World, *, backend="auto", budget: int | None = None,
                 partition_bytes: int | None = None, repartition: bool = False, alpha: float = DEFAULT_ALPHA,
                 slowdown: dict[int, float] | None = None, splits: np.ndarray | None = None,
                 in_offsets: np.ndarray | None = None, _t0: float | None = None):
        t0 = time.perf_counter() if _t0 is None else _t0
        share_cores(world)
        if isinstance(backend, str) and backend in ("auto", "cuda"):
            device = use_local_device(world)  # one GPU per rank on each node (None: no GPU here)
            if device is not None:
                from ..backends import get_backend

                backend = get_backend("cuda", device=device)
        super().__init__(graph, backend=backend, budget=budget, partition_bytes=partition_bytes,
                         pinned=False, temporary=True, _t0=t0)
        self.temporary = False  # the handle outlives calls; its edges stay where they lie (memory maps)
        self.world = world
        self.collectives = collectives_for(world, self.backend)
        self.repartition = repartition
        self.slowdown = dict(slowdown or {})
        self._slices: dict[tuple, PartitionView] = {}
        self.log: list[dict] = []             # one entry per distributed map (identical on every rank)
        self._unshared: list[tuple] = []      # maps whose ranks' times are not gathered yet (share_log)
        self.sparse_exchanges = 0             # push exchanges that sent the update set only
        self.packed_exchanges = 0             # pull exchanges that sent the rows with edges only
        self._packed: tuple = (None, None)             # (side, splits) and the rows a pull can write
        self._packed_host: np.ndarray | None = None    # those rows on the host (the chunks' cuts)
        self._chunks: tuple = (None, None)             # (side, splits, count) and the chunks
        self._pipeline_tuning: dict[tuple, dict] = {}  # (side, splits) -> chunk counts' times, the choice
        self.pipeline_choices: list[dict] = []          # what the measured choices chose
        t = time.perf_counter()
        self.in_offsets = self._global_in_offsets() if in_offsets is None else np.asarray(in_offsets)
        self.splits = balanced_splits(work_prefix(self.in_offsets), world.size) if splits is None \
            else np.asarray(splits, dtype=np.int64)
        self.setup_seconds = time.perf_counter() - t
        edge_bytes = graph.indices.itemsize + (4 if graph.weights is not None else 0)
        self.repartitioner = Repartitioner(alpha=alpha, node_of=list(world.node_of), bytes_per_edge=edge_bytes)
        self.distribution = self
        self.load_seconds = time.perf_counter() - t0

    # ------------------------------------------------------------ what the rank owns
    @property
    def lo(self) -> int:
        return int(self.splits[self.world.rank])

    @property
    def hi(self) -> int:
        return int(self.splits[self.world.rank + 1])

    @property
    def devices(self) -> int:
        """Devices computing: one per rank (a GPU, or the CPU cores a CPU rank was given)."""
        return self.world.size

    @property
    def in_degree(self) -> np.ndarray:
        return np.diff(self.in_offsets)

    def degree_sum(self, reverse: bool) -> int:
        return int(self.in_offsets[-1]) if reverse and self.graph.directed else int(self.graph.offsets[-1])

    def degree_offsets(self, reverse: bool) -> np.ndarray:
        return self.in_offsets if reverse and self.graph.directed else self.graph.offsets

    def device_degrees(self, reverse: bool) -> Any:
        key = "in" if reverse and self.graph.directed else "out"
        if key not in self._degrees:
            self._degrees[key] = self.backend.asarray(np.diff(self.degree_offsets(reverse)))
        return self._degrees[key]

    def _global_in_offsets(self) -> np.ndarray:
        """In-degree prefix sums of the whole graph, each rank counting its own out-edges' heads."""
        g = self.graph
        if not g.directed:
            return np.asarray(g.offsets)
        first = balanced_splits(work_prefix(np.asarray(g.offsets)), self.world.size)
        lo, hi = int(first[self.world.rank]), int(first[self.world.rank + 1])
        heads = self._heads(lo, hi)
        counts = np.bincount(heads, minlength=g.n).astype(np.int64)
        self.world.allreduce(counts, "sum")
        out = np.zeros(g.n + 1, dtype=np.int64)
        np.cumsum(counts, out=out[1:])
        return out

    # ------------------------------------------------------------ this rank's edges
    def side_view(self, csr: str, use_weights: bool) -> PartitionView:
        """This rank's out-edges (``csr="out"``) or in-edges (``"in"``) as one kernel view, built once."""
        use_weights = use_weights and self.graph.weighted
        if not self.graph.directed:
            csr = "out"
        key = (csr, use_weights)
        view = self._slices.get(key)
        if view is None:
            t = time.perf_counter()
            offsets, indices, weights, base = (self._out_slice(use_weights) if csr == "out"
                                               else self._in_slice(use_weights))
            b = self.backend
            view = PartitionView(b.asarray(offsets) if b.is_device else offsets,
                                 b.asarray(indices) if b.is_device else indices,
                                 None if weights is None else (b.asarray(weights) if b.is_device else weights),
                                 None, self.lo, self.hi - self.lo, base)
            self._slices[key] = view
            seconds = time.perf_counter() - t
            self._note_move_rate(len(indices) * (indices.itemsize + (0 if weights is None else 4)), seconds)
        return view

    def _note_move_rate(self, nbytes: int, seconds: float) -> None:
        rates = self.world.allgather(nbytes / max(seconds, 1e-6))
        rate = float(min(rates))
        self.repartitioner.local_bytes_per_second = rate
        self.repartitioner.global_bytes_per_second = rate

    def _out_slice(self, use_weights: bool):
        g, lo, hi = self.graph, self.lo, self.hi
        e0, e1 = int(g.offsets[lo]), int(g.offsets[hi])
        offsets = np.ascontiguousarray(g.offsets[lo : hi + 1])
        indices = self._heads(lo, hi)
        weights = np.array(g.weights[e0:e1]) if use_weights else None
        return offsets, indices, weights, e0

    def _heads(self, lo: int, hi: int) -> np.ndarray:
        """The heads of rows ``lo..hi`` copied from the graph (the store's byte range of those rows only),
        checked to lie in ``[0, n)`` as the whole-graph structural check would."""
        g = self.graph
        heads = np.array(g.indices[int(g.offsets[lo]) : int(g.offsets[hi])])
        if len(heads) and (int(heads.min()) < 0 or int(heads.max()) >= g.n):
            raise ValueError(f"rows {lo}..{hi}: an edge names a vertex outside 0..{g.n - 1} (damaged graph)")
        return heads

    def _in_slice(self, use_weights: bool):
        """In-edges of this rank's vertices: every rank sends its out-edges to their heads' owners."""
        g, w = self.graph, self.world
        offsets, heads, weights, _ = self._out_slice(use_weights)
        tails = np.repeat(np.arange(self.lo, self.hi, dtype=heads.dtype), np.diff(offsets))
        owner = np.searchsorted(self.splits, heads, side="right") - 1
        order = np.argsort(owner, kind="stable")
        counts = np.bincount(owner, minlength=w.size)
        got_tails = w.alltoallv(tails[order], counts)
        got_heads = w.alltoallv(heads[order], counts)
        got_w = w.alltoallv(weights[order], counts) if weights is not None else None
        # arrivals come by sender, tails ascending: a stable sort by head gives (head, tail) order
        by_head = np.argsort(got_heads, kind="stable")
        base = int(self.in_offsets[self.lo])
        in_offsets = np.ascontiguousarray(self.in_offsets[self.lo : self.hi + 1])
        indices = np.ascontiguousarray(got_tails[by_head])
        if len(indices) != int(in_offsets[-1] - base):
            raise RuntimeError(f"rank {w.rank}: received {len(indices)} in-edges, expected "
                               f"{int(in_offsets[-1] - base)} (the ranks disagree about the graph)")
        return in_offsets, indices, None if got_w is None else np.ascontiguousarray(got_w[by_head]), base

    def neighbour_sets(self) -> dict[str, int]:
        """Sizes of this rank's in-neighbour set and update set (Lux eqs. 7-9), for the performance model."""
        view = self.side_view("in", False)
        if view.indices is None or len(view.indices) == 0:
            return {"ins": 0, "ons": self.hi - self.lo, "uds": 0}
        # distinct sources where the edges live (a bitmap on the CPU, a sort on the GPU):
        # numpy's serial unique took ~2 minutes per rank at scale 25
        b = self.backend
        ins = b.sorted_unique(view.indices, self.graph.n)
        own = int(b.xp.searchsorted(ins, self.hi)) - int(b.xp.searchsorted(ins, self.lo))
        return {"ins": int(len(ins)), "ons": self.hi - self.lo, "uds": int(len(ins)) - own}

    # ------------------------------------------------------------ one edge_map
    def edge_map(self, st, frontier, direction: str, reverse: bool, it, output: bool = True):
        """Apply ``st``'s program along this rank's edges, exchange the updates, return the out bitmap
        (``output=False``: the caller ignores it, and the ranks' bitmaps are not merged)."""
        b, g = self.backend, self.graph
        prog = st.program
        csr = "out" if (direction == "push") != bool(reverse) or not g.directed else "in"
        view = self.side_view(csr, prog.uses_weights)
        kernel = st.kernel_handle().edge(direction)
        rows, in_bits = self._rows(frontier, direction)
        edges = int(view.offsets[-1] - view.offsets[0]) if len(view.offsets) else 0

        def compute(out):
            tables = st.kernel_handle().tables
            t = time.perf_counter()
            if view.rows and (rows is None or len(rows)):
                kernel(tables, view, rows, in_bits, out)
            b.synchronize()
            self._slow(edges)
            return time.perf_counter() - t

        if prog.combine is None and self.world.size > 1:
            out, seconds, exchange = self._in_rank_order(st, compute)
            mode = "rank order"
        else:
            out = b.new_bitmap(g.n)
            snapshot = None
            if self.world.size > 1:
                written = prog.written_arrays
                if direction == "pull" and prog.edge_writes is None:  # own range only: pull writes nothing else
                    snapshot = {k: st.arrays[k][self.lo : self.hi].copy() for k in written}
                elif direction == "push" and prog.combine == "sum":  # the increments are summed
                    snapshot = {k: st.arrays[k].copy() for k in written}
            # a whole pull whose written rows are packed may run in chunks (measured against one)
            chunkable = (direction == "pull" and self.world.size > 1 and prog.edge_writes is not None
                         and rows is None and bool(view.rows) and self._pull_rows(csr) is not None)
            chunks = self._chunks_for(csr) if chunkable else 1
            if chunks > 1:
                # compute a chunk of rows, gather its packed rows while the next chunk computes
                seconds, exchange = self._pull_pipelined(st, view, kernel, in_bits, out, csr, chunks)
                t = time.perf_counter()
                if output:
                    self.collectives.allreduce(out, "or")
                self._frontier_seconds = time.perf_counter() - t
                exchange += self._frontier_seconds
            else:
                seconds = compute(out)
                t = time.perf_counter()
                self._exchange(st, out if output else None, direction, snapshot, csr)
                exchange = time.perf_counter() - t
            if chunkable:
                self._tried_chunks(csr, chunks, seconds + exchange)
            mode = direction
        active_rows = view.rows if rows is None else len(rows)
        it.add_partition(self.world.rank, f"rank-{mode}", 0, int(active_rows), device=f"rank{self.world.rank}")
        self._after(it, "edge_map", direction, seconds, exchange, edges)
        return out

    def neighbor_map(self, st, fn: str, g_arrays, gt_arrays, it):
        """A neighbourhood function over this rank's vertices, the ranks in order (see module docstring)."""
        def compute(out):
            t = time.perf_counter()
            if self.hi > self.lo:
                handle = st.kernel_handle()
                handle.kernels.neighbor_map(fn, handle.tables, g_arrays, gt_arrays, self.lo, self.hi, out)
            self.backend.synchronize()
            return time.perf_counter() - t

        if self.world.size == 1:
            out = self.backend.new_bitmap(self.graph.n)
            seconds, exchange = compute(out), 0.0
        else:
            out, seconds, exchange = self._in_rank_order(st, compute)
        self._after(it, "neighbor_map", "-", seconds, exchange, 0, repartition=False)
        return out

    def _rows(self, frontier, direction):
        """Rows of this rank's view to compute (None: all) and the source filter for pull."""
        if direction == "pull" or frontier.is_all:
            return None, (None if frontier.is_all or direction == "push" else frontier.bits)
        xp = self.backend.xp
        ids = frontier.ids
        mine = ids[(ids >= self.lo) & (ids < self.hi)]
        return (mine - self.lo if self.lo else mine), None

    def _slow(self, edges: int) -> None:
        extra = self.slowdown.get(self.world.rank)
        if extra:
            time.sleep(extra * max(edges, 1))

    # ------------------------------------------------------------ exchanging vertex updates
    def _exchange(self, st, out, direction: str, snapshot, csr: str = "in") -> None:
        """Make every rank's updates visible to all (arrays no rank changed are not sent)."""
        c, w = self.collectives, self.world
        if w.size == 1:
            return
        combine = st.program.combine
        names = st.program.written_arrays  # what the program declares its edge functions write, else all
        if snapshot is not None and st.program.edge_writes is None:  # which changed anywhere (per array)
            xp = self.backend.xp
            lo, hi = (self.lo, self.hi) if direction == "pull" else (0, self.graph.n)
            flags = np.array([int(bool(xp.any(st.arrays[k][lo:hi] != snapshot[k]))) for k in names], np.int32)
            w.allreduce(flags, "max")
            names = [k for k, f in zip(names, flags) if f]
        if direction == "pull":  # disjoint owners: every rank's range to every rank
            rows = self._pull_rows(csr)
            for k in names:
                if rows is None:
                    c.allgather_ranges(st.arrays[k], self.splits)
                else:
                    self._allgather_rows(st.arrays[k], *rows)
        elif combine in ("min", "max", "or") and st.program.signals_changes and out is not None \
                and self._sparse_exchange(st, out, names):
            pass  # the changed vertices' values only (Lux's update set)
        elif combine in ("min", "max", "or"):
            for k in names:
                c.allreduce(st.arrays[k], combine)
        elif combine == "sum":  # snapshot + the sum of every rank's increments
            for k in names:
                arr = st.arrays[k]
                delta = arr - snapshot[k]
                c.sum_deterministic(delta)
                arr[...] = snapshot[k] + delta
        else:
            raise ValueError(f"cannot merge ranks' states with combine={combine!r}")
        t = time.perf_counter()
        if out is not None:
            c.allreduce(out, "or")
        self.backend.synchronize()  # the exchange's last scatter is done when its time is taken
        self._frontier_seconds = time.perf_counter() - t

    #: a pull exchange sends only the rows with edges in the direction pulled (the only ones an
    #: edge function can write) when they are at most this share of the vertices
    PACKED_SHARE = 0.9

    def _pull_rows(self, csr: str):
        """The rows a pull along ``csr`` can write, as (device ids in rank order, their split points),
        or None when packing them would save too little.

        A pull's edge functions run per edge and write only the destination
        (``update``, ``pull_end``: rows that folded at least one edge), so a
        row without edges on the side pulled keeps, on every rank, the value the
        ranks' identical vertex maps gave it. Kronecker graphs leave a third to
        a half of their vertices isolated: Lux's update set (eq. 9) is then
        smaller than the ranges, and so is what crosses the links.
        """
        key = (csr if self.graph.directed else "out", self._splits_key())
        if self._packed[0] != key:
            rows = np.flatnonzero(np.diff(np.asarray(self.degree_offsets(csr == "in"))))
            if len(rows) > self.PACKED_SHARE * self.graph.n:
                self._packed = (key, None)
            else:
                rows = rows.astype(np.int32 if self.graph.n < 2**31 else np.int64)
                splits = np.searchsorted(rows, self.splits).astype(np.int64)
                self._packed_host = rows
                self._packed = (key, (self.backend.asarray(rows) if self.backend.is_device else rows, splits))
        return self._packed[1]

    def _splits_key(self) -> tuple:
        """The split points as a key: what the packed rows, chunks and chunk choice were made for."""
        return tuple(int(x) for x in self.splits)

    def _allgather_rows(self, arr, rows, splits) -> None:
        """Every rank's written ``rows`` of ``arr`` to every rank: packed, gathered, scattered back."""
        xp, r = self.backend.xp, self.world.rank
        lo, hi = int(splits[r]), int(splits[r + 1])
        buf = xp.empty((len(rows),) + tuple(arr.shape[1:]), dtype=arr.dtype)
        xp.take(arr, rows[lo:hi], axis=0, out=buf[lo:hi])  # packed straight into place, no temporary
        self.packed_exchanges += 1
        self.collectives.allgather_ranges(buf, splits)
        arr[rows] = buf

    #: a pull whose rows are packed runs in this many chunks of rows (equal edges), each chunk's
    #: rows gathered while the next computes (Lux overlaps its transfers with compute, sec. 4.3);
    #: 1: compute everything, then exchange. None: measured where the collectives run beside the
    #: compute (NCCL on a side stream), 1 where they block (MPI on host buffers)
    PIPELINE_CHUNKS: int | None = None
    #: what the measured choice tries, and its pulls per candidate (the first of each warms up: a
    #: chunk count's first pull measures its gathers' two ways), after PIPELINE_WARMUP pulls of
    #: the split that count for none (the first uploads the edges and compiles: on 4 H200s a
    #: candidate timed on the second pull of a split measured 29.5 ms for a 9.5 ms pull)
    PIPELINE_CANDIDATES = (1, 2, 4)
    #: streams the chunks alternate between (see _pull_pipelined)
    PIPELINE_LANES = 2
    PIPELINE_TRIALS = 3
    PIPELINE_WARMUP = 2
    #: measure on host collectives too (tests: the choice's bookkeeping without a GPU)
    PIPELINE_TUNE_ON_HOST = False

    def _chunks_for(self, csr: str) -> int:
        """How many chunks this pull takes: fixed, or the next candidate to measure, or the one measured
        fastest. Chunks cost launches and idle SMs at each chunk's tail; they hide the gathers: on 4 H200s
        at Kronecker 25 four chunks took a PageRank pull from 9.44 to 9.24 ms, on 2 from 16.1 to 16.9."""
        if self.PIPELINE_CHUNKS is not None:
            return int(self.PIPELINE_CHUNKS)
        if not (getattr(self.collectives, "overlaps", False) or self.PIPELINE_TUNE_ON_HOST):
            return 1
        tune = self._pipeline_tuning.setdefault((csr, self._splits_key()), {
            "seconds": {}, "chosen": None, "warmup": self.PIPELINE_WARMUP})
        if tune["chosen"] is not None:
            return tune["chosen"]
        if tune["warmup"] > 0:
            return self.PIPELINE_CANDIDATES[0]
        for k in self.PIPELINE_CANDIDATES:
            if len(tune["seconds"].get(k, [])) < self.PIPELINE_TRIALS:
                return k
        return self.PIPELINE_CANDIDATES[0]

    def _tried_chunks(self, csr: str, chunks: int, seconds: float) -> None:
        """Note a measured pull; once every candidate ran its trials, every rank takes the candidate
        whose slowest rank was fastest (the same on all: the times are gathered)."""
        tune = self._pipeline_tuning.get((csr, self._splits_key()))
        if tune is None or tune["chosen"] is not None:
            return
        if tune["warmup"] > 0:
            tune["warmup"] -= 1
            return
        tune["seconds"].setdefault(chunks, []).append(seconds)
        if any(len(tune["seconds"].get(k, [])) < self.PIPELINE_TRIALS for k in self.PIPELINE_CANDIDATES):
            return
        timed = {k: min(v[1:]) if len(v) > 1 else v[0] for k, v in tune["seconds"].items()}
        everyone = self.world.allgather(timed)
        slowest = {k: max(t[k] for t in everyone) for k in self.PIPELINE_CANDIDATES}
        tune["chosen"] = min(slowest, key=slowest.get)
        self.pipeline_choices.append({"csr": csr, "chunks": tune["chosen"],
                                      "seconds": {str(k): round(v, 6) for k, v in slowest.items()}})
        log.info("rank %d: pulls in %d chunk(s) (%s)", self.world.rank, tune["chosen"], slowest)

    def _pull_chunks(self, view, csr: str, k: int):
        """Per chunk: this rank's sub-view, every rank's packed rows of that chunk (rank order, on the
        device) and their split points; the same cuts on every rank (from the global offsets)."""
        # the view's arrays in the key: a weighted program's pull (SSSP) must not take the sub-views
        # cut from an unweighted one's (PageRank) on the same rows, whose weights are None
        key = (csr, self._splits_key(), k, id(view.indices), id(view.weights))
        if self._chunks[0] == key:
            return self._chunks[1]
        r = self.world.rank
        offsets = np.asarray(self.degree_offsets(csr == "in"))
        rows_host = self._packed_host
        cuts = []  # per rank q: k + 1 vertex ids cutting [lo_q, hi_q) at equal edges
        for q in range(self.world.size):
            lo, hi = int(self.splits[q]), int(self.splits[q + 1])
            targets = offsets[lo] + (offsets[hi] - offsets[lo]) * np.arange(1, k) // k
            inner = np.clip(np.searchsorted(offsets[lo : hi + 1], targets, side="left") + lo, lo, hi)
            cuts.append(np.concatenate([[lo], inner, [hi]]).astype(np.int64))
        chunks = []
        for j in range(k):
            pieces = [np.searchsorted(rows_host, [c[j], c[j + 1]]) for c in cuts]
            counts = np.array([z - a for a, z in pieces], dtype=np.int64)
            ids = np.concatenate([rows_host[a:z] for a, z in pieces])
            splits = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
            a, z = int(cuts[r][j]) - self.lo, int(cuts[r][j + 1]) - self.lo
            sub = PartitionView(view.offsets[a : z + 1], view.indices, view.weights, None, view.lo + a, z - a,
                                view.edge_base)
            dev = self.backend.asarray(ids) if self.backend.is_device else ids
            chunks.append((sub, dev, splits))
        self._chunks = (key, chunks)
        return chunks

    def _pull_pipelined(self, st, view, kernel, in_bits, out, csr: str, chunks: int):
        """A pull in chunks: chunk ``j``'s packed rows cross (on the collectives' side stream, after
        its kernels) while chunk ``j + 1`` computes; the other ranks' values are written back after
        the last kernel, so kernels read the previous iteration's values of other ranks' rows exactly
        as in the unchunked pull. Returns (compute seconds, exchange seconds after the compute)."""
        b, c, xp, r = self.backend, self.collectives, self.backend.xp, self.world.rank
        tables = st.kernel_handle().tables
        names = st.program.written_arrays
        pending = []
        t = time.perf_counter()
        # chunks alternate between two lanes (streams): a chunk's kernels start while the previous
        # chunk's last blocks still run, instead of idling SMs at every chunk's tail. Chunks write
        # disjoint rows; a source row one chunk reads while another writes it is read old or new,
        # as between the threads of one unchunked kernel (PageRank reads only what no pull writes;
        # a min-relaxation is right with either value)
        lanes = b.lanes(self.PIPELINE_LANES)
        start = b.record()
        for j, (sub, ids, splits) in enumerate(self._pull_chunks(view, csr, chunks)):
            with lanes[j % len(lanes)]:
                b.wait_for(start)
                if sub.rows:
                    kernel(tables, sub, None, in_bits, out)
                after = b.record()  # this chunk's rows are final
            lo, hi = int(splits[r]), int(splits[r + 1])
            for name in names:
                arr = st.arrays[name]
                buf = xp.empty((len(ids),) + tuple(arr.shape[1:]), dtype=arr.dtype)
                c.gather_after(after, arr, ids[lo:hi], buf, splits)
                pending.append((arr, ids, buf))
            self.packed_exchanges += 1
        b.join_lanes(lanes)
        computed = b.record()
        b.host_wait(computed)
        self._slow(int(view.offsets[-1] - view.offsets[0]) if len(view.offsets) else 0)
        seconds = time.perf_counter() - t
        t = time.perf_counter()
        c.side_done()
        for arr, ids, buf in pending:  # the others' rows; this rank's own are already in place
            arr[ids] = buf
        b.synchronize()
        return seconds, time.perf_counter() - t

    #: the update set is sent as (id, values) when it is at most this share of the vertices;
    #: beyond it the whole arrays are reduced (a dense iteration of a traversal)
    SPARSE_SHARE = 1 / 64

    def _sparse_exchange(self, st, out, names) -> bool:
        """Push with a min/max/or merge, the program signalling its changes: every rank sends the
        vertices its output frontier names, with their values, and each rank merges the others'
        into its copy. Before the edge_map every rank held the same state and a rank changed
        only the vertices it names, so this equals the elementwise merge of the whole arrays.
        Returns False (nothing sent) when the changed vertices are too many to pay off."""
        b, w = self.backend, self.world
        ids = b.ids_from_bits(out, self.graph.n)
        if sum(w.allgather(int(len(ids)))) > self.SPARSE_SHARE * self.graph.n:
            return False
        self.sparse_exchanges += 1
        mine = (b.to_host(ids), {k: b.to_host(st.arrays[k][ids]) for k in names})
        merge = elementwise_merge(b.xp, st.program.combine)
        for q, (their_ids, values) in enumerate(w.allgather(mine)):
            if q == w.rank or not len(their_ids):
                continue
            at = b.asarray(their_ids)  # distinct within one rank's frontier: a plain scatter is exact
            for k in names:
                arr = st.arrays[k]
                arr[at] = merge(arr[at], b.asarray(values[k]))
        return True

    def _in_rank_order(self, st, compute):
        """Rank 0 computes, hands the state to rank 1, ...; the last rank broadcasts it to all."""
        c, w, b = self.collectives, self.world, self.backend
        out = b.new_bitmap(self.graph.n)
        arrays = list(st.arrays.values()) + [out]
        wait = 0.0
        t = time.perf_counter()
        if w.rank > 0:
            for arr in arrays:
                c.recv(arr, w.rank - 1)
        wait = time.perf_counter() - t
        seconds = compute(out)
        t = time.perf_counter()
        if w.rank < w.size - 1:
            for arr in arrays:
                c.send(arr, w.rank + 1)
        for arr in arrays:
            c.bcast(arr, w.size - 1)
        return out, seconds, wait + time.perf_counter() - t

    # ------------------------------------------------------------ observation and repartitioning
    def _after(self, it, op: str, direction: str, seconds: float, exchange: float, edges: int,
               repartition: bool = True) -> None:
        mine = (seconds, exchange, edges, getattr(self, "_frontier_seconds", 0.0))
        self._frontier_seconds = 0.0
        it.kernel_seconds = seconds
        entry = {"op": op, "direction": direction, "active_edges": int(it.active_edges),
                 "splits": [int(s) for s in self.splits]}
        self.log.append(entry)
        self._unshared.append((it, entry, mine))
        if repartition and self.repartition and self.world.size > 1:
            self.share_log()  # the repartitioner weighs every rank's time now
            proposal = self.repartitioner.observe(self.in_offsets, self.splits, entry["compute_seconds"])
            if proposal is not None:
                self.move_to(proposal)
                entry["repartitioned"] = self.repartitioner.history[-1]

    def share_log(self) -> None:
        """Every rank's times of the maps since the last call, into the log and the run record: one
        gather for them all (every rank calls it: at each run's end, and after each map while
        repartitioning, which needs them at once), rather than one host round trip per map."""
        if not self._unshared:
            return
        everyone = self.world.allgather([m for _, _, m in self._unshared])
        for j, (it, entry, _) in enumerate(self._unshared):
            times = [ranks_times[j] for ranks_times in everyone]
            entry.update({"compute_seconds": [t[0] for t in times], "exchange_seconds": [t[1] for t in times],
                          "edges": [t[2] for t in times], "frontier_exchange_seconds": [t[3] for t in times]})
            it.device_seconds = {f"rank{r}": t[0] for r, t in enumerate(times)}
            it.device_seconds["state_exchange"] = max(t[1] for t in times)
        self._unshared.clear()

    def move_to(self, splits: np.ndarray) -> None:
        """Take new split points: edges are read again from the store and exchanged (migration)."""
        old = self.splits
        if np.array_equal(old, splits):  # nothing moves: keep the edges where they are
            return
        self.splits = np.asarray(splits, dtype=np.int64)
        self._slices.clear()
        self.repartitioner._seen.clear()
        log.info("rank %d: repartitioned %s -> %s (%d in-edges move)", self.world.rank, old.tolist(),
                 self.splits.tolist(), moved_edges(self.in_offsets, old, self.splits))

    def record_extra(self) -> dict:
        self.share_log()
        return {"ranks": self.world.size, "devices": self.devices, "nodes": self.world.nodes,
                "splits": [int(s) for s in self.splits], "repartitions": len(self.repartitioner.history)}


# ------------------------------------------------------------------ a store read by ranges
def open_rank_store(path: str | Path) -> Graph:
    """A graph store opened for one rank: memory maps, the offsets checked, no pass over the edges.

    :func:`graphferry.store.open_store` checks every index of the store; a rank
    that owns a range needs only its own edges, so here the offsets are checked
    (``n + 1`` entries) and each rank checks its own edges' heads when it
    first reads them.
    """
    from ..store import StoreError, _load, checked_files

    root = Path(path)
    manifest, lengths, checked = checked_files(root)
    n, m = manifest["n"], manifest["m"]
    arrays = {key: _load(fpath, lengths[key]) for key, (fpath, _) in checked.items()}
    offsets = np.asarray(arrays["offsets"])
    if len(offsets) and (offsets[0] != 0 or offsets[-1] != m or np.any(np.diff(offsets) < 0)):
        raise StoreError(f"{root / 'offsets.npy'}: damaged store: offsets do not rise from 0 to m = {m}")
    g = object.__new__(Graph)
    g.__dict__.update(offsets=np.ascontiguousarray(offsets), indices=arrays["indices"],
                      weights=arrays.get("weights"), directed=bool(manifest["directed"]),
                      original_ids=arrays.get("original_ids"), name=str(manifest.get("name", root.name)),
                      meta={"store": str(root)}, _transpose=None)
    return g

