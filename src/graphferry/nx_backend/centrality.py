"""Centrality: ``betweenness_centrality`` by graphferry's Brandes, ``eigenvector_centrality`` and
``katz_centrality`` by its power iterations.

Example:
    >>> import networkx as nx
    >>> from graphferry.nx_backend import register
    >>> _ = register()
    >>> nx.betweenness_centrality(nx.path_graph(3), backend="graphferry")
    {0: 0.0, 1: 1.0, 2: 0.0}
    >>> c = nx.katz_centrality(nx.path_graph(4), backend="graphferry")
    >>> [round(v, 4) for v in c.values()]
    [0.4757, 0.5232, 0.5232, 0.4757]
"""

from __future__ import annotations

from numbers import Integral, Real

import networkx as nx
import numpy as np

from .checks import weight_name, weights_float32_exact, weights_positive
from .policy import large_graph
from .registration import networkx_algorithm
from .running import run


def _check_betweenness(a: dict) -> bool | str:
    if a["endpoints"]:
        return "endpoints=True is not supported"
    k, n = a["k"], len(a["G"])
    if k is not None and not (isinstance(k, int) and 1 <= k <= n):
        return "k must be an int in 1..len(G); NetworkX reports anything else"
    if (ok := weight_name(a)) is not True:
        return ok
    if a["weight"] is not None and a["G"].is_multigraph():
        return "weighted multigraphs are not supported"
    return True


@networkx_algorithm(
    note=("graphferry's Brandes (BFS levels, or distances with positive float32 weights); "
          "sampled sources drawn from seed as NetworkX draws them. endpoints=True, "
          "weight functions, zero weights and weighted multigraphs are left to NetworkX."),
    can_run=_check_betweenness, can_run_converted=weights_positive, should_run=large_graph)
def betweenness_centrality(G, k=None, normalized=True, weight=None, endpoints=False, seed=None):
    """Brandes betweenness by graphferry, NetworkX's scaling and (for ``k``) NetworkX's sample of sources.

    NetworkX hands ``seed`` over as a ``random.Random``; graphferry draws the
    sources from it exactly as NetworkX does, so the same seed samples the same nodes.
    """
    n = len(G)
    if n == 0:
        return {}
    csr = G.csr if weight is None else G.weighted(weight)
    values = run("betweenness", csr, k=k, normalized=bool(normalized), weighted=weight is not None,
                 seed=seed).betweenness
    return G.node_dict(values)


def _node_vector(G, values: dict, what: str) -> np.ndarray | str:
    """A dict keyed by every node of ``G`` as a vector in ``G``'s order, or the reason it is not one."""
    if not isinstance(values, dict) or len(values) != len(G) or any(v not in values for v in G.nodes):
        return f"{what} must give a value for every node (NetworkX reports anything else)"
    try:
        return np.array([float(values[v]) for v in G.nodes], dtype=np.float64)
    except (TypeError, ValueError):
        return f"{what} must hold numbers"


def _check_power_iteration(a: dict) -> bool | str:
    G = a["G"]
    if G.is_multigraph():
        return "NetworkX rejects multigraphs here; let it say so"
    if len(G) == 0:
        return "an empty graph: NetworkX answers (or raises) itself"
    if not isinstance(a["max_iter"], Integral) or not (isinstance(a["tol"], Real) and a["tol"] > 0):
        return "max_iter must be an int and tol a positive number"
    if (ok := weight_name(a)) is not True:
        return ok
    if a["nstart"] is not None:
        start = _node_vector(G, a["nstart"], "nstart")
        if isinstance(start, str):
            return start
        if not np.any(start):
            return "nstart is all zero; NetworkX raises"
    return True


def _check_katz(a: dict) -> bool | str:
    if (ok := _check_power_iteration(a)) is not True:
        return ok
    if not isinstance(a["alpha"], Real):
        return "alpha must be a number"
    beta = a["beta"]
    if not isinstance(beta, Real) and isinstance(_node_vector(a["G"], beta, "beta"), str):
        return "beta must be a number or give a value for every node"
    return True


@networkx_algorithm(
    note=("graphferry's power iteration, NetworkX's step for step ((A^T + I) x, L2-normalised, stopping when the "
          "L1 change is below n * tol); float32 edge weights."),
    can_run=_check_power_iteration, can_run_converted=weights_float32_exact, should_run=large_graph)
def eigenvector_centrality(G, max_iter=100, tol=1.0e-6, nstart=None, weight=None):
    """Eigenvector centrality by graphferry; ``PowerIterationFailedConvergence`` as in NetworkX."""
    csr = G.csr if weight is None else G.weighted(weight)
    hooks = {} if nstart is None else {"nstart": _node_vector(G, nstart, "nstart")}
    r = run("eigenvector_centrality", csr, max_iterations=int(max_iter), tol=float(tol),
            weighted=weight is not None, **hooks)
    if not r.converged:
        raise nx.PowerIterationFailedConvergence(max_iter)
    return G.node_dict(r.centrality)


@networkx_algorithm(
    note=("graphferry's power iteration, NetworkX's step for step (alpha A^T x + beta, stopping when the L1 change "
          "is below n * tol, then L2-normalised); beta a number or one per node; float32 edge weights."),
    can_run=_check_katz, can_run_converted=weights_float32_exact, should_run=large_graph)
def katz_centrality(G, alpha=0.1, beta=1.0, max_iter=1000, tol=1.0e-6, nstart=None, normalized=True,
                    weight=None):
    """Katz centrality by graphferry; ``PowerIterationFailedConvergence`` as in NetworkX."""
    csr = G.csr if weight is None else G.weighted(weight)
    hooks = {} if nstart is None else {"nstart": _node_vector(G, nstart, "nstart")}
    if not isinstance(beta, Real):
        hooks["betas"] = _node_vector(G, beta, "beta")
        beta = 1.0
    r = run("katz_centrality", csr, alpha=float(alpha), beta=float(beta), max_iterations=int(max_iter),
            tol=float(tol), normalized=bool(normalized), weighted=weight is not None, **hooks)
    if not r.converged:
        raise nx.PowerIterationFailedConvergence(max_iter)
    return G.node_dict(r.centrality)


def _check_edge_betweenness(a: dict) -> bool | str:
    G = a["G"]
    if G.is_multigraph():
        return "multigraphs are not supported (NetworkX keys their edges)"
    k, n = a["k"], len(G)
    if k is not None and not (isinstance(k, int) and 1 <= k <= n):
        return "k must be an int in 1..len(G); NetworkX reports anything else"
    return weight_name(a)


@networkx_algorithm(
    note=("graphferry's Brandes with edge accumulation (BFS levels, or distances with positive float32 weights); "
          "sampled sources drawn from seed as NetworkX draws them. Multigraphs, weight functions and zero "
          "weights are left to NetworkX."),
    can_run=_check_edge_betweenness, can_run_converted=weights_positive, should_run=large_graph)
def edge_betweenness_centrality(G, k=None, normalized=True, weight=None, seed=None):
    """Edge betweenness by graphferry, keyed by ``G.edges()`` in NetworkX's order and orientation."""
    n = len(G)
    csr = G.csr if weight is None else G.weighted(weight)
    if csr.m == 0:
        return {}
    r = run("edge_betweenness", csr, k=k, normalized=bool(normalized), weighted=weight is not None, seed=seed)
    # NetworkX's G.edges(): rows in node order, each undirected edge from its earlier end (a self-loop too)
    src, dst = csr.edges()
    keep = np.ones(len(src), bool) if G.is_directed() else src <= dst
    src, dst = src[keep].astype(np.int64), dst[keep].astype(np.int64)
    lo, hi = (src, dst) if G.is_directed() else (np.minimum(src, dst), np.maximum(src, dst))
    keys = r.edges["source"] * n + r.edges["target"]       # sorted: the simple view's order
    at = np.clip(np.searchsorted(keys, lo * n + hi), 0, max(len(keys) - 1, 0))
    found = (src != dst) & (keys[at] == lo * n + hi) if len(keys) else np.zeros(len(src), bool)
    values = np.where(found, r.edges["betweenness"][at] if len(keys) else 0.0, 0.0)
    nodes = G.nodes
    return dict(zip(zip(map(nodes.__getitem__, src.tolist()), map(nodes.__getitem__, dst.tolist())),
                    values.tolist()))
