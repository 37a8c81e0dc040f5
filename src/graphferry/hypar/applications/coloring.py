"""HyPar's graph colouring (Algorithm 2): independent parts, clashes on cut edges uncoloured."""

from __future__ import annotations

import numpy as np

from ...algorithms import registry
from ... import host_ops
from ...transforms import induced_subgraph
from .base import ONE_ROUND, Application, BspApplication, _block_positions


class Coloring(Application):
    """Graph colouring (HyPar Algorithm 2): independent parts, conflicts on cut edges uncoloured."""

    name = "coloring"
    recursive = False    # the uncoloured vertices must see their coloured neighbours' colours

    def start(self, g):
        return {"colors": np.full(g.n, -1, np.int64), "whole": g}

    def local(self, part, block, executor, whole=None):
        return executor.run("coloring", part, stop_when=self.stop_when(whole)).colors

    def merge(self, g, blocks, results, state):
        colors = state["colors"]
        for block, local in zip(blocks, results):
            colors[block] = local
        # an edge joining equal colours (a cut edge, or one inside a part whose run stopped early with
        # its clashes unresolved): its higher end is coloured again
        clash, _, _ = host_ops.arcs_where(g.offsets, g.indices, colors, clash=True, groups_too=False)
        colors[g.indices[clash]] = -1
        state["conflicts"] = int(np.count_nonzero(colors < 0))
        todo = np.flatnonzero(colors < 0)
        return induced_subgraph(g, todo) if len(todo) else None

    def post_process(self, reduced, state, executor):
        # colour the uncoloured vertices around the fixed ones (the whole graph's edges: a
        # removed vertex still forbids its colour to its uncoloured neighbours)
        state["colors"] = registry.get("coloring").function(
            state["whole"], precolored=state["colors"], **executor.options()).colors

    def alone(self, g, state, executor):
        state["colors"] = executor.run("coloring", g).colors

    def finish(self, graph, g, state):
        colors = state["colors"]
        return {"colors": colors}, {"num_colors": int(colors.max()) + 1 if len(colors) else 0,
                                    "conflicts": state.get("conflicts", 0)}


class BspColoring(BspApplication, Coloring):
    """One speculative round per superstep on the block's uncoloured vertices, seeing the colours its
    neighbours had at the last exchange; the exchange uncolours the higher end of every edge whose
    ends took one colour (Gebremedhin-Manne across the cut). The least such vertex of a round
    always keeps its colour, so every superstep colours at least one vertex."""

    def start(self, g):
        return {**super().start(g), "conflicts": 0}

    def superstep(self, g, part, block, executor, state):
        colors, ids = state["colors"], part.meta["parent_ids"]
        mine = _block_positions(part, block)
        if not np.any(colors[block] < 0):
            return colors[block]
        keep = colors[ids] >= 0                                 # uncoloured ghosts are the other side's work
        keep[mine] = True
        kept = np.flatnonzero(keep)
        r = executor.run("coloring", induced_subgraph(part, kept), precolored=colors[ids[kept]], stop_when=ONE_ROUND)
        return r.colors[np.searchsorted(kept, mine)]

    def exchange(self, g, blocks, results, state):
        colors = state["colors"]
        for block, new in zip(blocks, results):
            colors[block] = new
        src, dst = g.edges()
        clash = (colors[src] == colors[dst]) & (src < dst) & (colors[src] >= 0)
        again = np.unique(dst[clash])
        colors[again] = -1
        state["conflicts"] += len(again)
        return bool(np.any(colors < 0))
