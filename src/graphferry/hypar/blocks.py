"""HyPar's blocks: edge-balanced (or work-balanced) cuts of a graph, one block per executor,
within each executor's device budget."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import numpy as np

from .. import host_ops
from ..graph import Graph
from .calibration import PlannerCalibration
from .workers import HyparExecutor, Split

if TYPE_CHECKING:
    from .applications import Application

log = logging.getLogger("graphferry.hypar")


def cut_by_edges(graph: Graph, shares: list[float], budgets: list[int | None] | None = None,
                 weights: np.ndarray | None = None, order: np.ndarray | None = None) -> np.ndarray:
    """Block bounds giving executor ``i`` about ``shares[i]`` of the edges (each block non-empty when
    possible), shrunk where a block's edge bytes would exceed that executor's budget.

    ``weights`` (one per vertex): cut by their sums instead of the edges, an application's
    estimate of each vertex's work (:meth:`Application.cut_weights`); the budgets still bound edges.
    ``order`` (a permutation of the vertices): the bounds are positions along it (block ``i`` is
    ``order[bounds[i]:bounds[i + 1]]``, :class:`Split`) instead of vertex ids.

    Example (the first vertex holds most of the weight, so it makes the first block alone):
        >>> g = Graph.from_edges([0, 1, 2], [1, 2, 3], n=4, directed=True)
        >>> cut_by_edges(g, [0.5, 0.5]).tolist(), cut_by_edges(g, [0.5, 0.5], weights=np.array([8, 1, 1, 0])).tolist()
        ([0, 2, 4], [0, 1, 4])
    """
    n, k = graph.n, len(shares)
    cum = graph.offsets                                       # edges before each vertex
    if order is not None:                                     # ... before each position of the order
        cum = host_ops.prefix_sum(graph.out_degree[order])
        weights = None if weights is None else weights[order]
    along = cum if weights is None else host_ops.prefix_sum(weights)   # in parallel: n is millions
    total = max(float(along[-1]), 1.0)
    bounds = [0]
    acc = 0.0
    for i in range(k - 1):
        acc += shares[i]
        cut = int(np.searchsorted(along, acc * total))
        if budgets is not None and budgets[i] is not None:
            per_edge = graph.indices.itemsize + (4 if graph.weighted else 0)
            limit = int(np.searchsorted(cum, cum[bounds[-1]] + budgets[i] / per_edge, side="right")) - 1
            cut = min(cut, limit)
        bounds.append(min(max(cut, bounds[-1] + (1 if n - bounds[-1] > k - 1 - i else 0)), n))
    bounds.append(n)
    if k > 1 and budgets is not None and budgets[-1] is not None:   # the last block takes the rest: fit it too
        per_edge = graph.indices.itemsize + (4 if graph.weighted else 0)
        least = int(np.searchsorted(cum, cum[-1] - budgets[-1] / per_edge, side="left"))
        bounds[-2] = max(bounds[-2], min(least, n))
    return np.array(bounds, dtype=np.int64)



def _cut(graph: Graph, shares: list[float], executors: list[HyparExecutor], app: "Application",
         sample_seconds: list[float] | None = None) -> Split:
    """``app``'s blocks for ``shares``: :func:`cut_by_edges` by its per-vertex work estimate, along its
    block order, within the executors' budgets."""
    order = app.block_order(graph)
    bounds = cut_by_edges(graph, shares, [ex.budget for ex in executors], app.cut_weights(graph), order)
    return Split(bounds, list(shares), list(sample_seconds or []), order)


def _split_by(graph: Graph, cal: PlannerCalibration, executors: list[HyparExecutor], app: "Application", work: float) -> Split:
    shares = cal.shares_for(work)
    split = _cut(graph, shares, executors, app, cal.sample_seconds)
    log.info("hypar: shares %s, bounds %s", np.round(shares, 3).tolist(), split.bounds.tolist())
    return split
