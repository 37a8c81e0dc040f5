"""Link analysis: ``pagerank``, and ``hits`` by graphferry's power iteration.

Example:
    >>> import networkx as nx
    >>> from graphferry.nx_backend import register
    >>> _ = register()
    >>> ranks = nx.pagerank(nx.path_graph(4), backend="graphferry")
    >>> {v: round(r, 4) for v, r in ranks.items()}
    {0: 0.1754, 1: 0.3246, 2: 0.3246, 3: 0.1754}
    >>> hubs, authorities = nx.hits(nx.DiGraph([(0, 1), (0, 2), (1, 2)]), backend="graphferry")
    >>> [round(h, 4) for h in hubs.values()], [round(a, 4) for a in authorities.values()]
    ([0.618, 0.382, 0.0], [0.0, 0.382, 0.618])
"""

from __future__ import annotations

import math
from numbers import Real

import networkx as nx
import numpy as np

from .convert import converted, edge_weights
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
    note=("NetworkX's power iteration run by graphferry's LDBC PageRank in one run, NetworkX's stopping test "
          "(L1 change below N * tol) evaluated every iteration, so the same iterate at the same iteration. "
          "personalization, nstart, dangling and non-uniform weights are left to NetworkX."),
    can_run=_check_pagerank, can_run_converted=_check_pagerank_weights, should_run=large_graph)
def pagerank(G, alpha=0.85, personalization=None, max_iter=100, tol=1e-06, nstart=None, weight="weight",
             dangling=None):
    """PageRank: NetworkX's own power iteration and stopping test, run by graphferry's LDBC PageRank.

    NetworkX iterates ``x_k = (1 - alpha) / n + alpha * (P x_{k-1} + sinks' mass / n)``
    from ``x_0 = 1 / n`` and returns the first ``x_k`` whose step changed it by
    less than ``n * tol`` in L1 (``PowerIterationFailedConvergence`` if none of the
    first ``max_iter`` does). graphferry's ``pagerank_ldbc`` is that recurrence step
    for step, and with ``stop_below = n * tol`` it measures each step's L1 change
    and stops at the first below it: one run, NetworkX's iteration count, its
    iterate (sums in another order, so a change within rounding of ``n * tol``
    could decide one step apart). Parallel edges of a multigraph count once
    each; uniform edge weights are the unweighted case.
    """
    n = len(G)
    if n == 0:
        return {}
    max_iter = int(max_iter)
    if max_iter <= 0:
        raise nx.PowerIterationFailedConvergence(max_iter)
    result = run("pagerank_ldbc", G.arcs, damping=float(alpha), iterations=max_iter, stop_below=n * tol)
    if not result.scalars["converged"]:
        raise nx.PowerIterationFailedConvergence(max_iter)
    return G.node_dict(result.ranks)


#: NetworkX's ``max_iter`` counts ARPACK's restarts, each of which applies ``A^T A`` about ncv = 20
#: times for one singular vector; graphferry's power method gets this many steps per unit of it
HITS_STEPS_PER_ITERATION = 10


def _check_hits(a: dict) -> bool | str:
    G = a["G"]
    if G.is_multigraph():
        return "multigraphs are not supported (NetworkX adds up parallel edges' weights)"
    if len(G) == 0:
        return "an empty graph: NetworkX answers itself"
    if not isinstance(a["max_iter"], int) or not (isinstance(a["tol"], Real) and a["tol"] > 0):
        return "max_iter must be an int and tol a positive number"
    if a["nstart"] is not None:
        nstart = a["nstart"]
        if not isinstance(nstart, dict) or len(nstart) != len(G) or any(v not in nstart for v in G):
            return "nstart must give a value for every node"
    return True


def _hits_weights(a: dict) -> bool | str:
    """hits reads edge attribute ``weight`` (default 1) as NetworkX's adjacency matrix does; the graph needs
    an edge, and weights that float32 holds exactly."""
    g = converted(a["G"], {"weight": 1})
    w = g.weights.get("weight")
    if w is None:
        return "the graph was converted without edge attribute 'weight'"
    if not w.float32_exact:
        return "edge weights must be non-negative numbers that float32 holds exactly"
    if g.csr.m == 0:
        return "a graph without edges: NetworkX's ARPACK reports it"
    return True


@networkx_algorithm(
    note=("graphferry's power iteration (NetworkX's _hits_python steps, up to 10 x max_iter of them, until the "
          "hubs' L1 change is below tol), scaled as networkx.hits scales its SVD; float32 edge weights. "
          "Multigraphs are left to NetworkX."),
    can_run=_check_hits, can_run_converted=_hits_weights, should_run=large_graph)
def hits(G, max_iter=100, tol=1.0e-8, nstart=None, normalized=True):
    """Hubs and authorities by graphferry, as NetworkX's dicts; ``PowerIterationFailedConvergence`` when
    the power method does not settle in ``HITS_STEPS_PER_ITERATION * max_iter`` steps."""
    if max_iter <= 0:
        raise nx.PowerIterationFailedConvergence(max_iter)
    w = G.weights.get("weight")
    csr = G.csr if w is None or (w.values is None and w.default == 1) else G.weighted("weight")
    hooks = {}
    if nstart is not None:
        hooks["nstart"] = np.array([float(nstart[v]) for v in G.nodes])
    r = run("hits", csr, max_iterations=HITS_STEPS_PER_ITERATION * int(max_iter), tol=float(tol),
            normalized=bool(normalized), weighted=csr.weighted, **hooks)
    if not r.converged:
        raise nx.PowerIterationFailedConvergence(max_iter)
    return G.node_dict(r.hubs), G.node_dict(r.authorities)
