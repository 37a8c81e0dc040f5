"""Centrality: ``betweenness_centrality`` by graphferry's Brandes.

Example:
    >>> import networkx as nx
    >>> from graphferry.nx_backend import register
    >>> _ = register()
    >>> nx.betweenness_centrality(nx.path_graph(3), backend="graphferry")
    {0: 0.0, 1: 1.0, 2: 0.0}
"""

from __future__ import annotations

from .checks import weight_name, weights_positive
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
    return dict(zip(G.nodes, values.tolist()))
