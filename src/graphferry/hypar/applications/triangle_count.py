"""HyPar's triangle counting (``triangle_count``) on the whole graph's degree-ordered DAG."""

from __future__ import annotations

import threading
from dataclasses import dataclass

import numpy as np

from ...backends import get_backend
from ... import host_ops
from ...graph import Graph
from ...transforms import device_degree_ordered_dag, is_simple
from .base import Application, BspApplication


class Triangles(Application):
    """Triangle counting on the whole graph's degree-ordered DAG (HyPar 6.4: the oriented graph of
    Arifuzzaman et al.'s PATRIC), each executor counting only the triangles whose lowest corner is
    in its block; so every triangle is counted once, by one executor, and the merge adds the parts'
    per-vertex counts ("adds the sums from both the devices").

    An executor that may hold the whole DAG (no device budget, or one at least the DAG's bytes)
    reads it whole, its block marked: no part is built (building one, the DAG rows of the block and
    of their out-neighbours, cost as much as counting it at Kronecker 22). One with a smaller budget
    gets the paper's part with ghost edges: the DAG induced by the block's vertices and their
    out-neighbours. Blocks are cut by each vertex's counting work (:meth:`cut_weights`) along the
    DAG's order (:meth:`block_order`), and a split run's times per executor set the next call's
    shares (``divisible``)."""

    name = "triangle_count"
    divisible = True

    host_first = False                          # the first executor is the host's (use())

    def __init__(self):
        self._dag: tuple | None = None          # (graph, its DAG, the DAG as a Graph): built once a run
        self._dag_lock = threading.Lock()
        self.builder = None                     # the call's device backend that may build the DAG (use())

    def use(self, executors):
        # the DAG is built once for every executor: on the first device among them that has no
        # budget (a few sorts over the arcs there, 2-3x faster than the host's passes), then read
        # by each executor from the host; chosen anew each call (an instance may serve several)
        self.builder = next((backend for backend in (get_backend(ex.backend) for ex in executors if ex.budget is None)
                             if backend.is_device), None)
        # the blocks run from the highest ranks down where the first executor is the host's
        # (:meth:`block_order`), from the lowest up where it is a device
        self.host_first = bool(executors) and not get_backend(executors[0].backend).is_device

    def start(self, g):
        return {"triangles": np.zeros(g.n, np.int64)}

    def dag(self, g: Graph) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``(offsets, indices, order, rank)`` of ``g``'s degree-ordered DAG, built once for all the
        parts of a run (not kept on the graph: each run pays for it, as one executor alone does)."""
        return self._built(g)[1]

    def dag_graph(self, g: Graph) -> Graph:
        """``g``'s degree-ordered DAG as a :class:`Graph` (vertex ``r``: the ``r``-th in the order)."""
        return self._built(g)[2]

    def _built(self, g: Graph) -> tuple:
        with self._dag_lock:
            if self._dag is None or self._dag[0] is not g:
                # g is prepare()'s simple view: the rows are read in place (no dedup), as triangle_count does
                built = device_degree_ordered_dag(g, self.builder)
                if built is not None:
                    offsets, indices, order = built
                else:
                    offsets, indices, order, _ = host_ops.degree_ordered_dag(g.offsets, g.indices,
                                                                             simple=is_simple(g, undirected=True))
                rank = host_ops.unpermute(np.arange(g.n, dtype=np.int64), order)   # rank[order[r]] = r
                dag = Graph(offsets, indices, None, directed=True, name=f"{g.name}-dag")
                self._dag = (g, (offsets, indices, order, rank), dag)
            return self._dag

    def cut_weights(self, g):
        # a DAG row of d vertices is merged (GPU) or marked and scanned (CPU) against its members'
        # rows: about d^2 + d steps where the rows are alike (the sum of squares :meth:`work` uses);
        # from rank order to g's ids by a parallel scatter (numpy's gather by rank took ~0.1 s at
        # Kronecker 22, a tenth of the whole count)
        offsets, _, order, _ = self.dag(g)
        out = np.diff(offsets)
        return host_ops.unpermute(out * out + out + 1, order)

    def block_order(self, g):
        # each block a run of ranks, not of g's ids. A GPU counts a rank per thread, and a warp
        # takes 32 consecutive ranks and lasts as long as its longest row: a block of ids is a
        # random set of ranks, so the warps keep almost all their lanes' longest rows whatever the
        # GPU's share. Modelled on Kronecker 20's DAG (the sum over warps of the longest lane's
        # merge steps): a random 87% of the ranks kept 99.6% of that time, 50% kept 98%; a run of
        # ranks holding 50% of the steps takes 36-37% of it (the thirteenth session measured the
        # first: the GPU's 87% took 0.59 s of its whole count's 0.63 s).
        # The host takes the highest ranks, a device the lowest. Measured on an H200 beside 16
        # cores, Kronecker 22 (bench/triangle_shares_bench.py), the highest ranks holding 13% of
        # the work (cut_weights): the GPU 434 ms of its whole count's 565 (the longest rows, a
        # thread each), the CPU 370 ms of its 3352; the lowest 13%: the GPU 99 ms, the CPU 1288
        order = self.dag(g)[2]
        return order[::-1] if self.host_first else order

    def part(self, g, block, executor=None):
        if len(block) == g.n:                                  # one executor: the part is the graph
            return g
        offsets, indices, order, rank = self.dag(g)
        if executor is None or executor.budget is None or executor.budget >= offsets.nbytes + indices.nbytes:
            in_block = np.zeros(g.n, np.int64)
            in_block[block] = 1
            here = host_ops.unpermute(in_block, rank).astype(np.int8)     # by rank, a parallel scatter
            return _MarkedDag(self.dag_graph(g), here)
        # the DAG induced by the block's vertices (bit 0) and their out-neighbours (bit 1): a
        # triangle u < v < w with u in the block has v, w in u's row and w in v's
        ranks = np.sort(rank[block])
        flags = np.zeros(g.n, np.uint8)
        flags[host_ops.gather_rows(offsets, indices, None, ranks)[1]] = 2
        flags[ranks] |= 1
        vertices = np.flatnonzero(flags)
        new_id = np.full(g.n, -1, np.int64)
        new_id[vertices] = np.arange(len(vertices))
        p_offsets, p_indices, _ = host_ops.subgraph(offsets, indices, None, vertices, new_id)
        part = Graph(p_offsets, p_indices, None, directed=True, name=f"{g.name}-dag-part")
        part.meta["ids"] = order[vertices]                       # part vertex -> vertex of g
        part.meta["here"] = (flags[vertices] & 1).astype(np.int8)
        return part

    def local(self, part, block, executor, whole=None):
        if isinstance(part, _MarkedDag):                        # the whole DAG: counts by rank
            return None, executor.run("triangle_count", part.dag, counting_dag=part.here).triangles
        if whole is None or "here" not in part.meta:          # a sample, or the whole graph: count all
            return executor.run("triangle_count", part).triangles
        counts = executor.run("triangle_count", part, counting_dag=part.meta["here"]).triangles
        return part.meta["ids"], counts

    def work(self, g):
        # counting merges each DAG row with the rows of its members: about the sum of the squared
        # out-degrees, which grows faster than m (a 10% vertex sample of Kronecker 18 has 1% of the
        # arcs and a far smaller share of this), so the planner measures sizes by it. The DAG is
        # built here once and serves the run that follows (split parts or the whole graph)
        out = np.diff(self.dag(g)[0]).astype(np.float64)
        return float(g.n + g.m + (out * out).sum())

    def alone(self, g, state, executor):
        # the whole graph's DAG (built by :meth:`work` for the planner, else now), every vertex counting
        order = self.dag(g)[2]
        by_rank = executor.run("triangle_count", self.dag_graph(g), counting_dag=np.ones(g.n, np.int8)).triangles
        state["triangles"] = host_ops.unpermute(by_rank, order)

    def merge(self, g, blocks, results, state):
        by_rank = None
        for block, result in zip(blocks, results):
            if isinstance(result, tuple):                       # a part's counts, to add
                ids, counts = result
                if ids is None:                                 # the whole DAG's, by rank: added up first
                    by_rank = counts if by_rank is None else by_rank + counts
                else:
                    state["triangles"][ids] += counts
            else:                                               # the whole graph's
                state["triangles"][block] = result
        if by_rank is not None:
            state["triangles"] += host_ops.unpermute(by_rank, self.dag(g)[2])
        return None

    def finish(self, graph, g, state):
        tri = state["triangles"]
        return {"triangles": tri}, {"total": int(host_ops.reduce(tri, "sum")) // 3}


@dataclass(frozen=True)
class _MarkedDag:
    """A triangle-counting part that is the whole DAG, counting only at the marked vertices (``here``)."""

    dag: Graph
    here: np.ndarray


class BspTriangles(BspApplication, Triangles):
    """One superstep: every triangle whose lowest corner is a block vertex lies in the block's part
    of the DAG (HyPar 7.3.1: triangle counting needs no bulk synchronism); the exchange adds the counts."""

    def bsp_part(self, g, block, executor=None):
        return self.part(g, block, executor)

    def superstep(self, g, part, block, executor, state):
        return self.local(part, block, executor, whole=g)

    def exchange(self, g, blocks, results, state):
        self.merge(g, blocks, results, state)
        return False
