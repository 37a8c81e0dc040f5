"""Cores: ``core_number`` by graphferry's bucketed peeling, ``k_truss`` by its support counting.

Example:
    >>> import networkx as nx
    >>> from graphferry.nx_backend import register
    >>> _ = register()
    >>> G = nx.complete_graph(4)
    >>> G.add_edge(3, 4)
    >>> nx.core_number(G, backend="graphferry")
    {0: 3, 1: 3, 2: 3, 3: 3, 4: 1}
    >>> sorted(nx.k_truss(G, 4, backend="graphferry").edges())
    [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]
"""

from __future__ import annotations

from numbers import Integral

import networkx as nx
import numpy as np

from .convert import cached_conversion
from .graph import NxGraph
from .policy import large_graph
from .registration import networkx_algorithm
from .running import run


def has_self_loops(G) -> bool:
    """Whether ``G`` (a NetworkX graph: a dict lookup per node; or a converted one) has a self-loop.

    A NetworkX graph with a cached conversion is answered by that conversion's loop counts (kept with
    it): a warm call's check then costs no pass over the nodes (90 ms for 262,000 nodes on 2 cores,
    more than the rest of a warm k_truss's host work)."""
    conversion = G if isinstance(G, NxGraph) else cached_conversion(G)
    if conversion is not None:
        return bool(conversion.self_loops.any())
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
    return G.node_dict(run("core_number", G.csr, simple=True).core)


def _check_k_truss(a: dict) -> bool | str:
    G = a["G"]
    if G.is_directed():
        return "NetworkX rejects directed graphs here; let it say so"
    if (ok := simple_without_self_loops(a)) is not True:
        return ok
    if not isinstance(a["k"], Integral):
        return "k must be an int"
    if isinstance(G, NxGraph) and G.networkx_graph is None:
        return "a graph converted without its attributes: the subgraph could not keep them"
    return True


@networkx_algorithm(
    note=("graphferry's support counting (synchronous rounds dropping edges under k - 2 live common neighbours, "
          "sorted-row merges); the subgraph, every attribute kept, is built from G as NetworkX builds it."),
    can_run=_check_k_truss, should_run=large_graph)
def k_truss(G, k):
    """The k-truss of ``G``: a copy of G without the dropped edges and the nodes left isolated (NetworkX's)."""
    source = G.networkx_graph
    if source is None:
        raise NotImplementedError("graphferry needs the NetworkX graph to keep every attribute of the subgraph")
    r = run("k_truss", G.csr, k=int(k))
    nodes = G.nodes
    u = list(map(nodes.__getitem__, r.edges["source"].tolist()))
    v = list(map(nodes.__getitem__, r.edges["target"].tolist()))
    kept = set(zip(u, v)) | set(zip(v, u))
    # what NetworkX's H = G.copy() less the dropped edges and the isolated nodes is, built from the
    # kept part only: the nodes in G's order with copies of their attributes, then the kept edges in
    # the order copy() adds them (each node's adjacency, in G's order), attributes copied
    H = source.__class__()
    H.graph.update(source.graph)
    # the ends in G's order: their indices sorted (no pass over G's other nodes)
    order = np.unique(np.concatenate([r.edges["source"], r.edges["target"]]))
    node_data = source._node
    H.add_nodes_from((x, node_data[x].copy()) for x in map(nodes.__getitem__, order.tolist()))
    adj = source._adj
    H.add_edges_from((x, y, d) for x in H for y, d in adj[x].items() if (x, y) in kept)
    return H
