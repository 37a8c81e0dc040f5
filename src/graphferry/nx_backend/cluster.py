"""Triangles and clustering: graphferry's triangle counting and local clustering coefficient.

Example:
    >>> import networkx as nx
    >>> from graphferry.nx_backend import register
    >>> _ = register()
    >>> nx.triangles(nx.complete_graph(4), backend="graphferry")
    {0: 3, 1: 3, 2: 3, 3: 3}
"""

from __future__ import annotations

import numpy as np

from .checks import no_multigraph_with_nodes, simple_undirected
from .policy import large_graph
from .registration import networkx_algorithm
from .running import nbunch, run


def _check_clustering(a: dict) -> bool | str:
    G = a["G"]
    if a["weight"] is not None:
        return "weighted clustering is not supported"
    if G.is_directed():
        return "directed clustering is not supported (graphferry's directed LCC is LDBC's definition)"
    if G.is_multigraph():
        return "NetworkX rejects multigraphs here; let it say so"
    return True


@networkx_algorithm(note="graphferry's ordered triangle counting.", can_run=no_multigraph_with_nodes,
                    should_run=large_graph)
def triangles(G, nodes=None):
    """Triangles through each node (an int when ``nodes`` is one node)."""
    counts = run("triangle_count", G.csr).triangles if len(G) else np.zeros(0, np.int64)
    if nodes is not None:
        if nodes in G:
            return int(counts[G.id_of(nodes)])
        return {v: int(counts[G.id_of(v)]) for v in nbunch(G, nodes)}
    return G.node_dict(counts)


def _lcc(G) -> np.ndarray:
    """Each vertex's local clustering coefficient (graphferry's LCC), in G's order."""
    return run("lcc", G.csr).lcc if len(G) else np.zeros(0)


@networkx_algorithm(
    note=("graphferry's LCC on undirected graphs; weighted and directed clustering are left to NetworkX "
          "(graphferry's directed LCC is LDBC's definition, not NetworkX's)."),
    can_run=_check_clustering, should_run=large_graph)
def clustering(G, nodes=None, weight=None):
    """Local clustering of each node of an undirected graph (a number when ``nodes`` is one node).

    Like NetworkX, a node in no triangle gets the int 0.
    """
    values = _lcc(G)
    if nodes is None:   # NetworkX's int 0 for a node in no triangle
        return G.node_dict(values, zero_as_int=True)
    # an object array takes the int zeros in one masked store (twice as fast as a test per value)
    as_objects = values.astype(object)
    as_objects[values == 0] = 0
    as_python = as_objects.tolist()
    if nodes in G:
        return as_python[G.id_of(nodes)]
    return {v: as_python[G.id_of(v)] for v in nbunch(G, nodes)}


@networkx_algorithm(
    note=("graphferry's LCC, summed in NetworkX's order; as clustering, weighted and directed are left to "
          "NetworkX."),
    can_run=_check_clustering, should_run=large_graph)
def average_clustering(G, nodes=None, weight=None, count_zeros=True):
    """Mean local clustering, summed in NetworkX's order (so the same float)."""
    if nodes is None:   # G's order is the vertices': no {node: value} dict to build and read back
        c = _lcc(G).tolist()
    else:
        c = clustering(G, nodes, weight=weight).values()
    if not count_zeros:
        c = [v for v in c if abs(v) > 0]
    return sum(c) / len(c)


@networkx_algorithm(note="graphferry's triangle counts; simple undirected graphs only.", can_run=simple_undirected,
                    should_run=large_graph)
def transitivity(G):
    """``3 * triangles / connected triples`` of an undirected graph (exact integer sums, one division)."""
    if len(G) == 0:
        return 0
    csr = G.csr
    triangles_through = run("triangle_count", csr).triangles
    degree = csr.out_degree - G.self_loops  # self-loops aside
    twice_triangles = 2 * int(triangles_through.sum())
    triples = int((degree * (degree - 1)).sum())
    return 0 if twice_triangles == 0 else twice_triangles / triples
