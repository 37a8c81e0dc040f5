"""HyPar's minimum spanning forest (Algorithm 3): Boruvka per part under the cut-edge exception."""

from __future__ import annotations

import numpy as np

from ...algorithms import registry
from ... import host_ops
from ...graph import Graph
from ...transforms import cached, contract, symmetrize
from .base import ONE_ROUND, Application, BspApplication, _arc_positions


class SpanningForest(Application):
    """Boruvka's minimum spanning forest (HyPar Algorithm 3): parts grow components under the
    cut-edge exception, merge contracts them (self-edges removed, lightest parallel edge kept),
    recursion, post-processing on the reduced graph."""

    name = "mst"

    def prepare(self, graph):
        sym = symmetrize(graph)
        if sym.weights is None:                                  # unweighted: every edge weighs 1
            # kept on the graph: filling the weights took 0.12 s of each call at Kronecker 22
            sym = cached(graph, ("hypar-mst-unit-weights",), lambda: Graph(
                sym.offsets, sym.indices, host_ops.full(sym.m, 1.0, np.float32), directed=False,
                original_ids=sym.original_ids, name=sym.name))
        return sym

    def start(self, g):
        # each arc of the current graph stands for an arc of the prepared graph: "rep" holds its
        # position there (None while the current graph is the prepared one)
        return {"prepared": g, "rep": None, "weights": g.weights, "edges": []}

    def local(self, part, block, executor, whole=None):
        spec = registry.get("mst")
        if whole is None:                                        # a sample: no cut edges to respect
            r = spec.function(part, **executor.options())
        else:
            r = spec.function(part, within=(whole, block), stop_when=self.stop_when(whole), **executor.options())
        return r.edges["source"], r.edges["target"], r.values["component"]

    def _record(self, g, state, a, b):
        """Forest edges (a, b) of ``g`` as arcs of the prepared graph."""
        if len(a) == 0:
            return
        if state["rep"] is None:                                 # g is the prepared graph: its own ids
            state["edges"].append(np.stack([np.asarray(a, np.int64), np.asarray(b, np.int64)], 1))
            return
        pos = state["rep"][_arc_positions(g, a, b)]
        prepared = state["prepared"]
        src = host_ops.rows_of(prepared.offsets, pos)            # the row holding each position
        state["edges"].append(np.stack([src, prepared.indices[pos].astype(np.int64)], 1))

    def merge(self, g, blocks, results, state):
        labels = np.empty(g.n, np.int64)
        for block, (a, b, comp) in zip(blocks, results):
            self._record(g, state, block[a], block[b])
            labels[block] = block[comp]
        reduced, groups, rep = contract(g, labels, representatives=True)
        state["rep"] = rep if state["rep"] is None else state["rep"][rep]
        return reduced if reduced.m else None

    def post_process(self, reduced, state, executor):
        r = registry.get("mst").function(reduced, **executor.options())
        self._record(reduced, state, r.edges["source"], r.edges["target"])

    def alone(self, g, state, executor):
        # Boruvka to its end. HyPar's steps on one part (Boruvka while its rounds get faster, a
        # contraction dropping the arcs inside the trees, the rest on the contracted graph) had
        # paid at Kronecker 17 on one thread (83 ms against 123). Since the executors' rounds got
        # fast they cost more than they save: Kronecker 22 (three rounds) on an H200 0.99 s against
        # 0.66 s, on its 16 cores 1.04 against 0.74 s; Kronecker 18, one thread here, 141 against 127 ms
        r = registry.get("mst").function(g, **executor.options())
        self._record(g, state, r.edges["source"], r.edges["target"])
        state["weights_of_edges"] = r.edges["weight"]            # finish need not look them up

    def finish(self, graph, g, state):
        edges = np.concatenate(state["edges"]) if state["edges"] else np.zeros((0, 2), np.int64)
        lo, hi = np.minimum(edges[:, 0], edges[:, 1]), np.maximum(edges[:, 0], edges[:, 1])
        w = state.get("weights_of_edges")
        if w is None:                                            # a split's: each edge's weight in g
            w = g.weights[_arc_positions(g, lo, hi)]
        return ({"source": lo, "target": hi, "weight": np.asarray(w, np.float32)},
                {"total_weight": float(w.astype(np.float64).sum()), "num_edges": int(len(lo))})


class BspSpanningForest(BspApplication, SpanningForest):
    """Boruvka by supersteps: each executor finds, for every component, the lightest edge leaving it
    from the block's vertices (one Boruvka round on the block's arcs between components); the
    exchange takes each component's lightest over all executors in the order ``(weight, lower
    component, higher component)``, adds those edges to the forest and merges the components."""

    def start(self, g):
        return {"component": np.arange(g.n, dtype=np.int64), "edges": []}

    def bsp_part(self, g, block, executor=None):
        lo, hi = (int(g.offsets[block[0]]), int(g.offsets[block[-1] + 1])) if len(block) else (0, 0)
        src = np.repeat(block, np.diff(g.offsets[block[0]:block[-1] + 2]) if len(block) else 0)
        return src, g.indices[lo:hi].astype(np.int64), g.weights[lo:hi]

    def superstep(self, g, part, block, executor, state):
        src, dst, w = part
        comp = state["component"]
        a, b = comp[src], comp[dst]
        cross = a != b
        a, b, w, src, dst = a[cross], b[cross], w[cross], src[cross], dst[cross]
        if len(a) == 0:
            return tuple(np.zeros(0, np.int64) for _ in range(4)) + (np.zeros(0, np.float32),)
        # one arc per pair of components (ascending pairs), the lightest then the one of least ends:
        # the quotient's edge, and the input's edge a pick of it stands for
        n = np.int64(g.n)
        pair = np.minimum(a, b) * n + np.maximum(a, b)
        olo, ohi = np.minimum(src, dst), np.maximum(src, dst)
        order = np.lexsort((ohi, olo, w, pair))
        rep = order[np.r_[True, pair[order][1:] != pair[order][:-1]]]
        lo, hi = pair[rep] // n, pair[rep] % n
        groups = np.unique(np.concatenate([lo, hi]))            # ascending: ties break as in whole ids
        quotient = Graph.from_edges(np.searchsorted(groups, lo), np.searchsorted(groups, hi), w[rep],
                                    n=len(groups), directed=False)
        r = executor.run("mst", quotient, stop_when=ONE_ROUND)
        clo, chi = groups[r.edges["source"]], groups[r.edges["target"]]
        idx = rep[np.searchsorted(pair[rep], clo * n + chi)]
        return clo, chi, olo[idx], ohi[idx], w[idx]

    def exchange(self, g, blocks, results, state):
        from scipy.sparse import coo_array
        from scipy.sparse.csgraph import connected_components

        clo, chi, olo, ohi, w = (np.concatenate(x) for x in zip(*results))
        if len(clo) == 0:
            return False
        rank = np.empty(len(clo), np.int64)
        rank[np.lexsort((ohi, olo, chi, clo, w))] = np.arange(len(clo))
        best = np.full(g.n, len(clo), np.int64)                 # per component: its least candidate
        np.minimum.at(best, np.concatenate([clo, chi]), np.concatenate([rank, rank]))
        by_rank = np.argsort(rank)
        picked = by_rank[np.unique(best[best < len(clo)])]
        state["edges"].append(np.stack([olo[picked], ohi[picked]], 1))
        joined = coo_array((np.ones(len(picked)), (clo[picked], chi[picked])), shape=(g.n, g.n))
        _, tree = connected_components(joined, directed=False)
        smallest = np.full(tree.max() + 1, g.n, np.int64)
        np.minimum.at(smallest, tree, np.arange(g.n))
        state["component"] = smallest[tree[state["component"]]]
        return True
