"""HyPar's community detection: label propagation with the merge rule of Algorithm 5."""

from __future__ import annotations

import numpy as np

from ... import host_ops
from ...graph import Graph
from ...transforms import induced_subgraph
from .base import Application, BspApplication, _block_positions, _label_holds, _smallest_member

TINY_COMMUNITY = 1e-7        # HyPar 6.3: fewer internal edges than this fraction of m: dismantled
CUT_THROUGH = 0.25           # border exception: a community with more cut arcs than this fraction of its internal arcs


class Communities(Application):
    """Label propagation with HyPar's merge rule (Algorithm 5) and border-vertex exception; the
    post-process propagates the rest on the reduced graph, then every vertex on the whole graph."""

    name = "communities"
    post_process_always = True   # the whole-graph propagation is needed even when nothing was left

    def start(self, g):
        return {"labels": np.arange(g.n, dtype=np.int64), "active": np.arange(g.n, dtype=np.int64), "whole": g}

    def local(self, part, block, executor, whole=None):
        return block[executor.run("communities", part, refine=False, stop_when=self.stop_when(whole)).community]

    def merge(self, g, blocks, results, state):
        labels = np.empty(g.n, np.int64)
        part_of = np.empty(g.n, np.int64)
        for i, (block, local) in enumerate(zip(blocks, results)):
            labels[block] = local
            part_of[block] = i
        # per vertex, in one parallel pass over its row: arcs to its own label, arcs to another part
        same, crossing = host_ops.label_arcs(g.offsets, g.indices, labels, part_of)
        degree = g.out_degree
        inside = np.bincount(labels, weights=same, minlength=g.n)   # arcs inside each community
        total = np.bincount(labels, weights=degree, minlength=g.n)  # arcs leaving the community's vertices
        # HyPar Algorithm 5: "commRatio <- ratio of intra-community and total edges for each
        # community; avgRatio <- Find the average ratio; ... if (commRatio[c] < avgRatio) ||
        # (compEdges[c] < minReqEdges) then mergeResult[v] <- v else markVer for removal"
        present = total > 0
        ratio = np.zeros(g.n)
        ratio[present] = inside[present] / total[present]
        average = ratio[present].mean() if present.any() else 0.0
        m_edges = state["whole"].m / 2
        # HyPar 6.3: the devices "form local communities ..., with the exception of the border
        # vertices, as indicated by the boolean flag EXCPT_BORDER_VERTEX". Per community: one
        # with many cut arcs (arcs to another part) was probably cut through by the partition
        # and grew without the other side's view (on a small graph a part's propagation can
        # flood most of it into one label): not finalised
        cut = np.bincount(labels, weights=crossing, minlength=g.n)
        cut_through = cut > CUT_THROUGH * inside
        dismantle = ((ratio[labels] < average) | (inside[labels] / 2 < m_edges * TINY_COMMUNITY)
                     | ~present[labels] | cut_through[labels])
        # and per vertex: a border vertex (one with a neighbour in another part) chose its label
        # without seeing that neighbour's; it is finalised only if label propagation's own rule
        # holds for it on the merged labels (its label is among the most frequent of all its
        # neighbours'), else it goes to the rest: a vertex the cut left among another
        # community's members does not stay there
        border = crossing > 0
        dismantle |= ~_label_holds(g, labels, border & ~dismantle, same)
        ids = state["active"]                                    # vertices of g as vertices of the prepared graph
        kept = ~dismantle
        state["labels"][ids[kept]] = ids[labels[kept]]
        rest = np.flatnonzero(dismantle)
        state["active"] = ids[rest]
        state["finalised"] = state.get("finalised", 0) + int(np.count_nonzero(kept))
        return induced_subgraph(g, rest) if len(rest) else None

    def post_process(self, reduced, state, executor):
        # HyPar 6.3: "The graph is then reduced by removing the finalized communities and their
        # incident edges from the graph": the rest propagates on the reduced graph alone (with
        # the finalised communities voting instead, a dismantled community's singletons take the
        # label of whichever finalised neighbour they meet first, and two planted groups become one)
        if reduced is not None:
            ids = state["active"]
            state["labels"][ids] = ids[executor.run("communities", reduced, refine=False).community]
        # Then every vertex propagates on the whole graph from the merged labels (Algorithm 5's
        # postProcess("COMMDEC", G, mergeResult, finalOutput)) to label propagation's fixed point:
        # pieces of one community that parts, levels or the reduced graph formed apart, none
        # seeing the others, join where their members see more of each other than of themselves.
        # Every community is formed, so a label moves only where a vertex's neighbours outvote it
        state["labels"] = executor.run("communities", state["whole"], refine=False,
                                       labels=state["labels"]).community.astype(np.int64)

    def alone(self, g, state, executor):
        state["labels"] = executor.run("communities", g, refine=False).community.astype(np.int64)

    def finish(self, graph, g, state):
        labels, groups = _smallest_member(state["labels"])
        return {"community": labels}, {"modularity": modularity(g, labels),
                                       "num_communities": groups,
                                       "finalised": state.get("finalised", 0)}


def modularity(g: Graph, labels: np.ndarray) -> float:
    """Newman's Q of ``labels`` on undirected simple graph ``g`` (HyPar Eq. 1)."""
    if g.m == 0:
        return 0.0
    two_m = float(g.m)
    same, _ = host_ops.label_arcs(g.offsets, g.indices, labels)   # per vertex: arcs inside its community
    inside = float(same.sum())
    tot = np.bincount(labels, weights=g.out_degree.astype(np.float64), minlength=g.n)
    return inside / two_m - float((tot ** 2).sum()) / two_m ** 2



class BspCommunities(BspApplication, Communities):
    """One label-propagation round per superstep on the block's vertices (asynchronous within the
    block), the ghosts voting with the labels of the last exchange; stopped by PLP's rule (fewer than
    ``n / 10**5`` labels changed) or after 100 supersteps (PLP's round limit)."""

    max_supersteps = 100

    def start(self, g):
        return {**super().start(g), "superstep": 0}

    def superstep(self, g, part, block, executor, state):
        ids = part.meta["parent_ids"]
        present, local = np.unique(state["labels"][ids], return_inverse=True)   # labels as ids of the part
        active = np.zeros(part.n, np.int8)
        mine = _block_positions(part, block)
        active[mine] = 1
        r = executor.run("communities", part, refine=False, max_iterations=1, seed=state["superstep"],
                         labels=local, active=active)
        return present[r.community[mine]]

    def exchange(self, g, blocks, results, state):
        labels = state["labels"]
        changed = sum(int(np.count_nonzero(new != labels[block])) for block, new in zip(blocks, results))
        for block, new in zip(blocks, results):
            labels[block] = new
        state["superstep"] += 1
        return changed >= max(1.0, g.n * 1e-5)
