"""Conversions between NetworkX graphs and the backend's :class:`~.graph.NxGraph`, cached on the graph.

A conversion is kept in ``G.__networkx_cache__["graphferry"]`` (key: the edge
attributes it read), beside NetworkX's own cache of backend graphs. NetworkX
empties ``__networkx_cache__`` whenever ``G`` changes through its methods, so a
changed graph is converted anew; an edge attribute set by hand (``G[u][v]["w"] = 2``)
needs ``G.__networkx_cache__.clear()``, as NetworkX documents for its own cache.
The memo is off while NetworkX's own tests run with the backend (they convert
afresh each call) and when ``nx.config.cache_converted_graphs`` is False.

Example:
    >>> import networkx as nx
    >>> from graphferry.nx_backend.convert import converted, cached_size
    >>> G = nx.path_graph(5)
    >>> cached_size(G) is None        # nothing converted yet
    True
    >>> converted(G).csr.m, cached_size(G)
    (8, 8)
"""

from __future__ import annotations

from typing import Any

import networkx as nx

from .graph import DeferredNxGraph, NxGraph, from_networkx

__all__ = ["converted", "cached_conversion", "cached_size", "convert_from_nx", "convert_to_nx", "edge_weights"]


def _conversion_cache(G) -> dict | None:
    cache = getattr(G, "__networkx_cache__", None)
    if cache is None or not nx.config.cache_converted_graphs or nx.utils.backends._dispatchable._is_testing:
        return None
    return cache.setdefault("graphferry", {})


def converted(G, edge_attrs: dict[str, Any] | None = None) -> NxGraph:
    """``G`` converted with ``edge_attrs``, memoised on ``G`` so ``can_run`` and the call share it."""
    if isinstance(G, NxGraph):
        return G
    key = tuple(sorted((k, repr(v)) for k, v in (edge_attrs or {}).items()))
    cache = _conversion_cache(G)
    if cache is not None:
        for have, g in cache.items():
            if set(key) <= set(have):
                return g
    g = from_networkx(G, edge_attrs)
    if cache is not None:
        cache[key] = g
    return g


def _arcs(g) -> int | None:
    """Arcs of conversion ``g``; None for one whose CSR has not been read (:class:`.DeferredNxGraph`)."""
    if isinstance(g, DeferredNxGraph) and "csr" not in g.__dict__:
        return None
    return g.csr.m if isinstance(g, NxGraph) else None


def cached_conversion(G) -> NxGraph | None:
    """``G``'s cached conversion whose CSR has been read (any one of them; ``G`` itself when it is one),
    None when there is none: O(1), for ``can_run`` checks that a CSR answers faster than ``G``'s dicts."""
    if isinstance(G, NxGraph):
        return G if _arcs(G) is not None else None
    cache = getattr(G, "__networkx_cache__", None)
    if not cache:
        return None
    mine = cache.get("graphferry") or {}
    theirs = cache.get("backends", {}).get("graphferry") or {}  # NetworkX's own cache of our conversions
    for g in (*mine.values(), *theirs.values()):
        if _arcs(g) is not None:
            return g
    return None


def cached_size(G) -> int | None:
    """Arcs of ``G``'s cached conversion (any one of them), None when there is none: O(1)."""
    g = cached_conversion(G)
    return None if g is None else _arcs(g)


#: functions that need only each node's neighbour count: their conversion reads no edge until another
#: function needs one (:class:`.DeferredNxGraph`)
ROW_LENGTHS_ONLY = frozenset({"degree_centrality", "in_degree_centrality", "out_degree_centrality", "isolates",
                              "number_of_isolates"})


def convert_from_nx(G, edge_attrs=None, node_attrs=None, preserve_edge_attrs=False, preserve_node_attrs=False,
                    preserve_graph_attrs=False, name=None, graph_name=None) -> NxGraph:
    """NetworkX graph -> :class:`~graphferry.nx_backend.graph.NxGraph` (named edge attributes only)."""
    if isinstance(G, NxGraph):
        return G
    cache = _conversion_cache(G)
    if name in ROW_LENGTHS_ONLY and not edge_attrs and not preserve_edge_attrs and not cache:
        g = DeferredNxGraph(G)   # converted when another function first reads the CSR
        if cache is not None:
            cache[()] = g
    else:
        g = converted(G, edge_attrs)
    if preserve_edge_attrs is True or preserve_node_attrs is True:
        # every attribute asked for (a function returning a subgraph of G, k_truss): graphferry's CSR
        # keeps named edge attributes only, so the function builds its answer from G itself
        g.networkx_graph = G
    if preserve_graph_attrs:
        g.graph_attrs = dict(G.graph)
    return g


def convert_to_nx(obj, *, name=None):
    """A converted graph back to NetworkX; results (dicts, numbers, generators) pass through."""
    if isinstance(obj, NxGraph):
        return obj.to_networkx()
    return obj


def edge_weights(G, weight) -> Any:
    """Edge attribute ``weight`` of ``G`` as converted (None: a backend graph converted without it).

    A conversion made for a function that keeps every attribute (``preserve_edge_attrs``: k_truss,
    minimum_spanning_tree) holds the NetworkX graph instead of reading them all; NetworkX's cache
    hands that conversion to any later call on ``G``, so the attribute is read from it here.
    """
    if isinstance(G, NxGraph) and weight is not None and weight not in G.weights and G.networkx_graph is not None:
        from .graph import _read_weights

        adj = G.networkx_graph._adj
        if G.multigraph:
            adj = adj if type(adj) is dict else {u: {v: dict(keys) for v, keys in nbrs.items()}
                                                 for u, nbrs in adj.items()}
        else:
            adj = adj if type(adj) is dict else {u: dict(nbrs) for u, nbrs in adj.items()}
        G.weights[weight] = _read_weights(adj, weight, 1, multigraph=G.multigraph, m=G.csr.m,
                                          multiplicity=G.multiplicity)
    return converted(G, {weight: 1}).weights.get(weight)
