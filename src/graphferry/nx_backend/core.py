"""Cores: ``core_number`` by graphferry's bucketed peeling.

Example:
    >>> import networkx as nx
    >>> from graphferry.nx_backend import register
    >>> _ = register()
    >>> G = nx.complete_graph(4)
    >>> G.add_edge(3, 4)
    >>> nx.core_number(G, backend="graphferry")
    {0: 3, 1: 3, 2: 3, 3: 3, 4: 1}
"""

from __future__ import annotations

import numpy as np

from .convert import converted
from .policy import large_graph
from .registration import networkx_algorithm
from .running import run


def no_multigraph(a: dict) -> bool | str:
    if a["G"].is_multigraph():
        return "NetworkX rejects multigraphs here; let it say so"
    return True


def no_self_loops(a: dict) -> bool | str:
    """NetworkX refuses graphs with self-loops here (``NetworkXNotImplemented``): let it say so."""
    csr = converted(a["G"]).csr
    rows = np.repeat(np.arange(csr.n, dtype=csr.indices.dtype), csr.out_degree)
    if np.any(rows == csr.indices):
        return "the graph has self-loops; NetworkX refuses them"
    return True


@networkx_algorithm(
    note=("graphferry's bucketed peeling (Julienne's k-core: the bucket of k as a frontier, an edge map "
          "lowering live neighbours' degrees); a directed graph's degree is in- plus out-degree, as in NetworkX."),
    can_run=no_multigraph, can_run_converted=no_self_loops, should_run=large_graph)
def core_number(G):
    """Core number of every node, in ``G``'s node order."""
    if len(G) == 0:
        return {}
    return dict(zip(G.nodes, run("core_number", G.csr).core.tolist()))
