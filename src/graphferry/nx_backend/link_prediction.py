"""Link prediction: ``jaccard_coefficient`` by graphferry's pair intersections.

Example:
    >>> import networkx as nx
    >>> from graphferry.nx_backend import register
    >>> _ = register()
    >>> G = nx.cycle_graph(4)
    >>> list(nx.jaccard_coefficient(G, [(0, 2), (1, 3), (0, 1)], backend="graphferry"))
    [(0, 2, 1.0), (1, 3, 1.0), (0, 1, 0.0)]
"""

from __future__ import annotations

from operator import itemgetter

import networkx as nx
import numpy as np

from .policy import large_graph
from .registration import networkx_algorithm
from .running import run


def _check_jaccard(a: dict) -> bool | str:
    G = a["G"]
    if G.is_directed() or G.is_multigraph():
        return "NetworkX rejects directed graphs and multigraphs here; let it say so"
    return True


def _non_edges(G, nodes: list) -> tuple[list, list]:
    """NetworkX's ``non_edges`` of an undirected graph, in its order (a set popped, each node's
    non-neighbours by set difference), as vertex ids."""
    csr = G.csr
    index = G.index
    remaining = set(nodes)
    first, second = [], []
    offsets, indices = csr.offsets, csr.indices
    while remaining:
        u = remaining.pop()
        i = index[u]
        neighbours = {nodes[j] for j in indices[offsets[i]:offsets[i + 1]].tolist()}
        for v in remaining - neighbours:
            first.append(i)
            second.append(index[v])
    return first, second


@networkx_algorithm(
    note=("graphferry's intersections of sorted neighbour rows, one neighbourhood function per vertex over "
          "its slots of pairs. The default ebunch (every non-edge) is listed in NetworkX's order, in Python."),
    can_run=_check_jaccard, should_run=large_graph)
def jaccard_coefficient(G, ebunch=None):
    """``(u, v, p)`` for each pair, in NetworkX's order (a generator; unknown nodes raise at the call)."""
    nodes = G.nodes
    if ebunch is None:
        first, second = _non_edges(G, nodes)
        pairs = list(zip(map(nodes.__getitem__, first), map(nodes.__getitem__, second)))
    else:
        pairs = list(ebunch)
        index = G.index
        try:   # a dict lookup per end, at C speed
            first = list(map(index.__getitem__, map(itemgetter(0), pairs)))
            second = list(map(index.__getitem__, map(itemgetter(1), pairs)))
        except (KeyError, TypeError, IndexError):
            for u, v in pairs:   # NetworkX's error for the first pair with an unknown node
                if u not in G:
                    raise nx.NodeNotFound(f"Node {u} not in G.") from None
                if v not in G:
                    raise nx.NodeNotFound(f"Node {v} not in G.") from None
            raise
    first_ids, second_ids = np.array(first, np.int64), np.array(second, np.int64)
    # a Graph's conversion has no repeated edge: its rows need only a sort
    values = run("jaccard_coefficient", G.csr, pairs=(first_ids, second_ids), simple=True).edges["coefficient"].tolist()
    # NetworkX's 0 for two nodes without neighbours is the int 0 (no division happened)
    degree = G.csr.out_degree
    if len(pairs):
        for i in np.flatnonzero((degree[first_ids] == 0) & (degree[second_ids] == 0)).tolist():
            values[i] = 0
    return (triple for triple in zip(map(itemgetter(0), pairs), map(itemgetter(1), pairs), values))
