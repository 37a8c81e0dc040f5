"""Breadth-first traversal: ``bfs_edges``, ``bfs_layers``, ``bfs_predecessors``, ``bfs_successors``,
``descendants_at_distance``.

BFS levels come from graphferry's BFS; the order NetworkX visits vertices in
is rebuilt from them layer by layer (:func:`.running.bfs_layers`). A depth
limit or distance within :data:`.policy.SMALL_BOUND` hops runs a bounded
layer-by-layer search instead, touching only the rows it reaches.

Example:
    >>> import networkx as nx
    >>> from graphferry.nx_backend import register
    >>> _ = register()
    >>> list(nx.bfs_edges(nx.path_graph(4), 1, backend="graphferry"))
    [(1, 0), (1, 2), (2, 3)]
"""

from __future__ import annotations

from numbers import Real

import networkx as nx
import numpy as np

from .checks import always
from .policy import SMALL_BOUND, bounded, large_graph
from .registration import networkx_algorithm
from .running import bfs_layers as _bfs_layers, bfs_levels, vertex


def _levels_or_bounded(csr, sources: np.ndarray, limit) -> np.ndarray | None:
    """graphferry's BFS levels, or None for a small bound (the bounded search needs none)."""
    if limit is not None and limit < SMALL_BOUND:
        return None
    return bfs_levels(csr, sources)


def _check_bfs_edges(a: dict) -> bool | str:
    if a["sort_neighbors"] is not None:
        return "sort_neighbors is not supported"
    if a["reverse"] and a["G"].is_directed():
        return "reverse=True on a directed graph is not supported (predecessor order)"
    if a["depth_limit"] is not None and not isinstance(a["depth_limit"], Real):
        return "depth_limit must be a number"
    return True


def _check_bfs_tree(a: dict) -> bool | str:
    if a["sort_neighbors"] is not None:
        return "sort_neighbors is not supported"
    if a["depth_limit"] is not None and not isinstance(a["depth_limit"], Real):
        return "depth_limit must be a number"
    return True


@networkx_algorithm(
    note=("BFS levels by graphferry; edges in NetworkX's order (a depth_limit below 3: a bounded search). "
          "sort_neighbors and reverse=True on a directed graph are left to NetworkX."),
    can_run=_check_bfs_edges, should_run=bounded("depth_limit"))
def bfs_edges(G, source, reverse=False, depth_limit=None, sort_neighbors=None):
    """BFS tree edges ``(parent, child)`` in NetworkX's order (a generator, like NetworkX's)."""
    s = vertex(G, source, lambda v: nx.NetworkXError(f"The node {v} is not in the graph."))
    csr = G.csr.transpose() if reverse and G.directed else G.csr
    start = np.array([s], np.int64)
    levels = _levels_or_bounded(csr, start, depth_limit)
    limit = len(G) if depth_limit is None else depth_limit
    nodes = G.nodes
    for layer, parents in _bfs_layers(csr, start, levels, limit):
        if parents[0] < 0:
            continue  # the source has no edge
        yield from zip(map(nodes.__getitem__, parents.tolist()), map(nodes.__getitem__, layer.tolist()))


@networkx_algorithm(
    note="BFS levels by graphferry (several sources through a virtual super-source); layers in NetworkX's order.",
    can_run=always, should_run=large_graph)
def bfs_layers(G, sources):
    """Lists of nodes by distance from ``sources`` (a node or an iterable), in NetworkX's order."""
    if sources in G:
        sources = [sources]
    first = list(set(sources))  # NetworkX's first layer is its set of sources, in set order
    for v in first:
        if v not in G:
            raise nx.NetworkXError(f"The node {v} is not in the graph.")
    if not first:
        return
    ids = np.array([G.id_of(v) for v in first], np.int64)
    levels = bfs_levels(G.csr, ids)
    nodes = G.nodes
    layers = _bfs_layers(G.csr, ids, levels)
    next(layers)
    yield first
    for layer, _ in layers:
        yield [nodes[i] for i in layer.tolist()]


@networkx_algorithm(note="From bfs_edges; sort_neighbors is left to NetworkX.",
                    can_run=_check_bfs_tree, should_run=bounded("depth_limit"))
def bfs_predecessors(G, source, depth_limit=None, sort_neighbors=None):
    """``(child, parent)`` pairs of the BFS tree in NetworkX's order (a generator)."""
    for parent, child in bfs_edges(G, source, depth_limit=depth_limit):
        yield child, parent


@networkx_algorithm(note="From bfs_edges; sort_neighbors is left to NetworkX.",
                    can_run=_check_bfs_tree, should_run=bounded("depth_limit"))
def bfs_successors(G, source, depth_limit=None, sort_neighbors=None):
    """``(parent, [children])`` of the BFS tree in NetworkX's order (a generator)."""
    parent, children = source, []
    for p, c in bfs_edges(G, source, depth_limit=depth_limit):
        if p == parent:
            children.append(c)
            continue
        yield parent, children
        parent, children = p, [c]
    yield parent, children


@networkx_algorithm(note="graphferry's BFS levels (a distance below 3: a bounded search).",
                    can_run=always, should_run=bounded("distance"))
def descendants_at_distance(G, source, distance):
    """The nodes exactly ``distance`` hops from ``source``."""
    if source not in G:
        raise nx.NetworkXError(f"The node {source} is not in the graph.")
    s = np.array([G.id_of(source)], np.int64)
    if isinstance(distance, Real) and distance < SMALL_BOUND:
        at = np.zeros(0, np.int64)
        for depth, (layer, _) in enumerate(_bfs_layers(G.csr, s, None, distance)):
            if depth == distance:
                at = layer
        return set(G.labels(at))
    levels = bfs_levels(G.csr, s)
    at = (levels == distance) & (levels >= 0)  # -1 marks the unreachable, never a distance
    return set(G.labels(np.flatnonzero(at)))
