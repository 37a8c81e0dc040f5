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

from .graph import NxGraph
from .policy import large_graph
from .registration import networkx_algorithm
from .running import run


def has_self_loops(G) -> bool:
    """Whether ``G`` (a NetworkX graph: a dict lookup per node; or a converted one) has a self-loop."""
    if isinstance(G, NxGraph):
        csr = G.csr
        rows = np.repeat(np.arange(csr.n, dtype=csr.indices.dtype), csr.out_degree)
        return bool(np.any(rows == csr.indices))
    adj = G._adj
    if type(adj) is dict:   # C-level: about 30 ns a node
        return any(map(dict.__contains__, adj.values(), adj))
    return any(u in nbrs for u, nbrs in adj.items())       # a graph view's filtered adjacency


def simple_without_self_loops(a: dict) -> bool | str:
    """NetworkX refuses multigraphs and graphs with self-loops here (``NetworkXNotImplemented``): let it say so."""
    G = a["G"]
    if G.is_multigraph():
        return "NetworkX rejects multigraphs here; let it say so"
    if has_self_loops(G):
        return "the graph has self-loops; NetworkX refuses them"
    return True


@networkx_algorithm(
    note=("graphferry's bucketed peeling (Julienne's k-core: the bucket of k as a frontier, an edge map "
          "lowering live neighbours' degrees); a directed graph's degree is in- plus out-degree, as in NetworkX."),
    can_run=simple_without_self_loops, should_run=large_graph)
def core_number(G):
    """Core number of every node, in ``G``'s node order."""
    if len(G) == 0:
        return {}
    # a (Di)Graph without self-loops: its conversion is the peeling view as it is (no sort)
    return dict(zip(G.nodes, run("core_number", G.csr, simple=True).core.tolist()))
