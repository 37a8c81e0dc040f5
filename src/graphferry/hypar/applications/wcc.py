"""HyPar's connected components (``wcc``): local components, contraction, recursion."""

from __future__ import annotations

import numpy as np

from ... import host_ops
from ...graph import Graph
from ...transforms import contract
from .base import Application, BspApplication, _block_positions, _smallest_member


class Components(Application):
    """Connected components (weak, on a directed input): contraction after each level."""

    name = "wcc"

    def start(self, g: Graph) -> dict:
        return {"owner": host_ops.vertex_ids(g.n, np.int64)}   # input vertex -> vertex of the current graph

    def local(self, part, block, executor, whole=None):
        return executor.run("wcc", part).labels

    def merge(self, g, blocks, results, state):
        labels = np.empty(g.n, np.int64)
        for block, local in zip(blocks, results):
            labels[block] = block[local]                        # part ids -> ids of g
        if len(blocks) == 1 and len(blocks[0]) == g.n:          # one part, the whole graph: its components are final
            state["owner"] = labels[state["owner"]]
            return None
        # an arc inside a block joins one of its part's components: only the arcs between blocks are read
        bounds = np.cumsum([0] + [len(block) for block in blocks])
        reduced, groups = contract(g, labels, bounds=bounds)
        # each label is its component's smallest vertex (wcc's), so a group's rank among the groups
        # is a running count of those vertices: no search
        rank = np.cumsum(labels == np.arange(g.n), dtype=np.int64) - 1
        state["owner"] = rank[labels[state["owner"]]]
        return reduced if reduced.m else None

    def post_process(self, reduced, state, executor):
        state["owner"] = executor.run("wcc", reduced).labels[state["owner"]]

    def alone(self, g, state, executor):
        state["owner"] = np.asarray(executor.run("wcc", g).labels, np.int64)   # owner was the identity: no gather

    def finish(self, graph, g, state):
        labels, groups = _smallest_member(state["owner"])
        return {"labels": labels}, {"components": groups}


class BspComponents(BspApplication, Components):
    """Each executor finds its part's components (ghosts carry the current labels) and gives each the
    least label among its members; done when no label changes."""

    def superstep(self, g, part, block, executor, state):
        labels, ids = state["owner"], part.meta["parent_ids"]
        local = executor.run("wcc", part).labels
        least = np.full(part.n, np.iinfo(np.int64).max)
        np.minimum.at(least, local, labels[ids])
        return least[local][_block_positions(part, block)]

    def exchange(self, g, blocks, results, state):
        labels = state["owner"]
        changed = any(bool(np.any(new != labels[block])) for block, new in zip(blocks, results))
        for block, new in zip(blocks, results):
            labels[block] = new
        return changed
