"""Link analysis: ``pagerank``.

Example:
    >>> import networkx as nx
    >>> from graphferry.nx_backend import register
    >>> _ = register()
    >>> ranks = nx.pagerank(nx.path_graph(4), backend="graphferry")
    >>> {v: round(r, 4) for v, r in ranks.items()}
    {0: 0.1754, 1: 0.3246, 2: 0.3246, 3: 0.1754}
"""

from __future__ import annotations

import math
from numbers import Real

import networkx as nx
import numpy as np

from .convert import edge_weights
from .policy import large_graph
from .registration import networkx_algorithm
from .running import run


def _check_pagerank(a: dict) -> bool | str:
    for name in ("personalization", "nstart", "dangling"):
        if a[name] is not None:
            return f"{name} is not supported"
    if not (isinstance(a["alpha"], Real) and 0 <= a["alpha"] < 1):
        return "alpha must lie in [0, 1)"
    if not (isinstance(a["tol"], Real) and a["tol"] > 0 and math.isfinite(a["tol"])):
        return "tol must be a positive number"
    if not isinstance(a["max_iter"], int) or a["max_iter"] < 0:
        return "max_iter must be a non-negative int"
    if a["weight"] is not None and not isinstance(a["weight"], str):
        return "weight must be an attribute name"
    return True


def _check_pagerank_weights(a: dict) -> bool | str:
    if a["weight"] is None:
        return True
    w = edge_weights(a["G"], a["weight"])
    if w is None:
        return f"the graph was converted without edge attribute {a['weight']!r}"
    if not w.numeric or w.all_uniform is None or w.all_uniform <= 0:
        return "weighted PageRank is not supported (edge weights differ)"
    return True


@networkx_algorithm(
    note=("NetworkX's power iteration run by graphferry's LDBC PageRank, to a step at which NetworkX's "
          "stopping rule has certainly fired. personalization, nstart, dangling and non-uniform "
          "weights are left to NetworkX."),
    can_run=_check_pagerank, can_run_converted=_check_pagerank_weights, should_run=large_graph)
def pagerank(G, alpha=0.85, personalization=None, max_iter=100, tol=1e-06, nstart=None, weight="weight",
             dangling=None):
    """PageRank: NetworkX's own power iteration, run by graphferry's LDBC PageRank.

    NetworkX iterates ``x_k = (1 - alpha) / n + alpha * (P x_{k-1} + sinks' mass / n)``
    from ``x_0 = 1 / n`` and returns the first ``x_k`` whose step changed it by
    less than ``n * tol`` in L1 (``PowerIterationFailedConvergence`` if none of the
    first ``max_iter`` does). graphferry's ``pagerank_ldbc`` is that recurrence step
    for step: ``pagerank_ldbc(iterations=k)`` is NetworkX's ``x_k``.

    The step changes shrink by at least ``alpha`` per step (the iteration
    contracts zero-sum vectors by ``alpha`` in L1), so a measured change ``c_k``
    names a step ``K`` by which NetworkX has certainly stopped. While the next
    step is cheap next to ``K`` (``k + 1 <= K / 2``), the change of step ``k + 1`` is
    measured (one more run); in practice changes shrink much faster than
    ``alpha``, and this finds NetworkX's own stopping step and returns its very
    ``x_k``. Otherwise ``x_K`` is returned: a later, more converged iterate of the
    same iteration. Where ``K`` is beyond ``max_iter``, the change at ``max_iter``
    decides, as in NetworkX. Parallel edges of a multigraph count once each;
    uniform edge weights are the unweighted case.
    """
    n = len(G)
    if n == 0:
        return {}
    alpha, max_iter, target = float(alpha), int(max_iter), len(G) * tol
    if max_iter <= 0:
        raise nx.PowerIterationFailedConvergence(max_iter)
    graph = G.arcs

    def iterate(k: int) -> np.ndarray:
        return run("pagerank_ldbc", graph, damping=alpha, iterations=k).ranks

    def certain_stop(k: int, change: float) -> int:
        while change >= target:
            change *= alpha
            k += 1
        return k

    before, x, k = np.full(n, 1.0 / n), iterate(1), 1
    change = float(np.abs(x - before).sum())
    while change >= target:
        if k >= max_iter:
            raise nx.PowerIterationFailedConvergence(max_iter)
        stop = certain_stop(k, change)
        if k + 1 <= stop / 2:      # measuring the next step is cheap next to running to `stop`
            before, x, k = x, iterate(k + 1), k + 1
        elif stop <= max_iter:     # NetworkX has stopped by step `stop`
            x = iterate(stop)
            break
        else:                      # NetworkX's rule at max_iter decides
            before, x, k = iterate(max_iter - 1), iterate(max_iter), max_iter
        change = float(np.abs(x - before).sum())
    return dict(zip(G.nodes, x.tolist()))
