"""Shortest paths: hop counts by graphferry's BFS, weighted distances by its SSSP.

Example:
    >>> import networkx as nx
    >>> from graphferry.nx_backend import register
    >>> _ = register()
    >>> nx.single_source_shortest_path_length(nx.path_graph(4), 1, backend="graphferry")
    {1: 0, 0: 1, 2: 1, 3: 2}
"""

from __future__ import annotations

import math

import networkx as nx
import numpy as np

from ..graph import Graph
from ._paths import bidirectional, dijkstra_order, paths_from_parents
from .checks import always, cutoff_number, weight_name, weights_float32_exact
from .policy import SMALL_BOUND, bounded, large_graph
from .registration import networkx_algorithm
from .running import bfs_layers, bfs_levels, run


@networkx_algorithm(note="graphferry's BFS (a cutoff below 3: a bounded search); the dict in NetworkX's discovery order.",
                    can_run=cutoff_number, should_run=bounded("cutoff"))
def single_source_shortest_path_length(G, source, cutoff=None):
    """Hops from ``source`` to every node within ``cutoff``, in NetworkX's discovery order."""
    if source not in G:
        raise nx.NodeNotFound(f"Source {source} is not in G")
    s = np.array([G.id_of(source)], np.int64)
    limit = math.inf if cutoff is None else cutoff
    levels = None if limit < SMALL_BOUND else bfs_levels(G.csr, s)
    layers = [layer for layer, _ in bfs_layers(G.csr, s, levels, limit)]
    if not layers:
        return {}
    order = np.concatenate(layers)
    depth = np.repeat(np.arange(len(layers)), [len(x) for x in layers])
    return G.node_dict(depth, order=order)   # one dict built at C speed


# ------------------------------------------------------------ weighted: Dijkstra's family
def _weighted(G, weight):
    """(CSR for graphferry's SSSP, float64 weight of each arc, whether NetworkX's sums are ints)."""
    w = G.weights.get(weight) if weight is not None else None
    m = G.csr.m
    if w is None or (w.values is None and w.default == 1):
        return G.csr, np.ones(m), True
    arc = w.values if w.values is not None else np.full(m, float(w.default))
    return G.weighted(weight), arc, bool(w.integral)


def _with_super_source(csr: Graph, starts: np.ndarray, arc: np.ndarray) -> Graph:
    """``csr`` plus a vertex ``n`` with a zero-weight arc to each of ``starts``."""
    offsets = np.concatenate([csr.offsets, [csr.m + len(starts)]])
    indices = np.concatenate([csr.indices, starts.astype(csr.indices.dtype)])
    weights = np.concatenate([arc.astype(np.float32), np.zeros(len(starts), np.float32)])
    return Graph(offsets, indices, weights, directed=True, name=f"{csr.name}+sources")


def _distances(G, ids: np.ndarray, weight, cutoff) -> tuple[np.ndarray, np.ndarray, bool]:
    """(float64 distances from the nearest of ``ids``, inf beyond ``cutoff``; arc weights; integral)."""
    csr, arc, integral = _weighted(G, weight)
    starts = np.unique(ids)
    if len(starts) == 1:
        dist = run("sssp", csr, source=int(starts[0])).distances.astype(np.float64)
    else:
        dist = run("sssp", _with_super_source(csr, starts, arc), source=csr.n).distances[:-1].astype(np.float64)
    if cutoff is not None:
        dist = np.where(dist <= cutoff, dist, np.inf)
    return dist, arc, integral


def _dijkstra(G, sources: list, weight, cutoff):
    ids = np.array([G.id_of(s) for s in sources], np.int64)
    dist, arc, integral = _distances(G, ids, weight, cutoff)
    order, parent = dijkstra_order(G.csr, arc, dist, ids, cutoff)
    return dist, order, parent, integral


def _lengths(G, dist, order, integral, sources: list) -> dict:
    """``{node: distance}`` in ``order``: ints when every weight is an int; a source's distance is NetworkX's int 0."""
    out = G.node_dict(dist[order].astype(np.int64) if integral else dist[order], order=order)
    for s in sources:
        out[s] = 0
    return out


def _sources(G, sources) -> list:
    sources = list(sources)
    if not sources:
        raise ValueError("sources must not be empty")
    for s in sources:
        if s not in G:
            raise nx.NodeNotFound(f"Node {s} not found in graph")
    return sources


def _as_number(value: float, integral: bool):
    return int(value) if integral else float(value)


_DIJKSTRA_NOTE = ("graphferry's SSSP for the distances; NetworkX's heap order and tie-breaking rebuilt from "
                  "them (the same dict order, the same path where shortest paths tie). Weights that float32 cannot "
                  "hold exactly, negative weights and weight functions are left to NetworkX.")


def _check_weighted(a: dict) -> bool | str:
    if "cutoff" in a and (ok := cutoff_number(a)) is not True:
        return ok
    return weight_name(a)


def _dijkstra_function(**kw):
    return networkx_algorithm(note=_DIJKSTRA_NOTE, can_run=_check_weighted,
                              can_run_converted=weights_float32_exact, **kw)


@_dijkstra_function(should_run=bounded("cutoff"))
def multi_source_dijkstra(G, sources, target=None, cutoff=None, weight="weight"):
    """``(distances, paths)`` from the nearest of ``sources``; ``(distance, path)`` to ``target`` when given."""
    sources = _sources(G, sources)
    if target in sources:
        return (0, [target])
    dist, order, parent, integral = _dijkstra(G, sources, weight, cutoff)
    if target is not None:
        t = G.index.get(target) if target in G else None
        if t is None or not np.isfinite(dist[t]):
            raise nx.NetworkXNoPath(f"No path to {target}.")
        path = []
        while t >= 0:
            path.append(G.nodes[t])
            t = int(parent[t])
        return (_as_number(dist[G.id_of(target)], integral), path[::-1])
    paths = paths_from_parents(G.nodes, order, parent, identity=G.identity)
    return _lengths(G, dist, order, integral, sources), paths


@_dijkstra_function(should_run=bounded("cutoff"))
def multi_source_dijkstra_path(G, sources, cutoff=None, weight="weight"):
    return multi_source_dijkstra(G, sources, cutoff=cutoff, weight=weight)[1]


@_dijkstra_function(should_run=bounded("cutoff"))
def multi_source_dijkstra_path_length(G, sources, cutoff=None, weight="weight"):
    sources = _sources(G, sources)
    dist, order, _, integral = _dijkstra(G, sources, weight, cutoff)
    return _lengths(G, dist, order, integral, sources)


@_dijkstra_function(should_run=bounded("cutoff"))
def single_source_dijkstra(G, source, target=None, cutoff=None, weight="weight"):
    return multi_source_dijkstra(G, {source}, cutoff=cutoff, target=target, weight=weight)


@_dijkstra_function(should_run=bounded("cutoff"))
def single_source_dijkstra_path(G, source, cutoff=None, weight="weight"):
    return multi_source_dijkstra(G, {source}, cutoff=cutoff, weight=weight)[1]


@_dijkstra_function(should_run=bounded("cutoff"))
def single_source_dijkstra_path_length(G, source, cutoff=None, weight="weight"):
    """Weighted distances from ``source`` within ``cutoff``, in NetworkX's order (the order Dijkstra finalises them)."""
    return multi_source_dijkstra_path_length(G, {source}, cutoff=cutoff, weight=weight)


@_dijkstra_function(should_run=bounded(target="target"))
def dijkstra_path(G, source, target, weight="weight"):
    return single_source_dijkstra(G, source, target=target, weight=weight)[1]


@_dijkstra_function(should_run=bounded(target="target"))
def dijkstra_path_length(G, source, target, weight="weight"):
    if source not in G:
        raise nx.NodeNotFound(f"Node {source} not found in graph")
    if source == target:
        return 0
    dist, arc, integral = _distances(G, np.array([G.id_of(source)]), weight, None)
    t = G.index.get(target) if target in G else None
    if t is None or not np.isfinite(dist[t]):
        raise nx.NetworkXNoPath(f"Node {target} not reachable from {source}")
    return _as_number(dist[t], integral)


@_dijkstra_function(should_run=bounded("cutoff"))
def all_pairs_dijkstra(G, cutoff=None, weight="weight"):
    for n in G:
        dist, path = single_source_dijkstra(G, n, cutoff=cutoff, weight=weight)
        yield (n, (dist, path))


@_dijkstra_function(should_run=bounded("cutoff"))
def all_pairs_dijkstra_path_length(G, cutoff=None, weight="weight"):
    for n in G:
        yield (n, single_source_dijkstra_path_length(G, n, cutoff=cutoff, weight=weight))


@_dijkstra_function(should_run=bounded("cutoff"))
def all_pairs_dijkstra_path(G, cutoff=None, weight="weight"):
    for n in G:
        yield (n, single_source_dijkstra_path(G, n, cutoff=cutoff, weight=weight))


# ------------------------------------------------------------ Bellman-Ford (non-negative weights)
_BELLMAN_NOTE = ("graphferry's SSSP (non-negative float32-exact weights; negative weights, and so negative cycles, "
                 "are left to NetworkX). Paths: where shortest paths tie, NetworkX's queue order picks one, so "
                 "those graphs are left to NetworkX. Dicts are ordered by distance (Dijkstra's order), not by "
                 "NetworkX's queue order.")


def _bellman_function(**kw):
    return networkx_algorithm(note=_BELLMAN_NOTE, can_run=weight_name, can_run_converted=weights_float32_exact,
                              **kw)


def _unique_paths(G, dist, arc, ids) -> None:
    """Raise NotImplementedError where two shortest paths tie (Bellman-Ford's queue order would choose)."""
    csr = G.csr
    src = np.repeat(np.arange(csr.n), csr.out_degree)
    dst = csr.indices
    finite = np.isfinite(dist[src])
    tight = finite & (dist[src] + arc == dist[dst]) & (src != dst)
    counts = np.bincount(dst[tight], minlength=csr.n)
    counts[ids] = 0
    if np.any(counts > 1):
        raise NotImplementedError("shortest paths tie: NetworkX's Bellman-Ford queue order picks one")


@_bellman_function(should_run=large_graph)
def single_source_bellman_ford(G, source, target=None, weight="weight"):
    if source == target:
        if source not in G:
            raise nx.NodeNotFound(f"Node {source} is not found in the graph")
        return (0, [source])
    if source not in G:
        raise nx.NodeNotFound(f"Source {source} not in G")
    ids = np.array([G.id_of(source)], np.int64)
    dist, arc, _ = _distances(G, ids, weight, None)
    _unique_paths(G, dist, arc, ids)
    if target is not None:
        if target not in G or not np.isfinite(dist[G.id_of(target)]):
            raise nx.NetworkXNoPath(f"Node {target} not reachable from {source}")
    return multi_source_dijkstra(G, [source], target=target, weight=weight)


@_bellman_function(should_run=large_graph)
def single_source_bellman_ford_path(G, source, weight="weight"):
    return single_source_bellman_ford(G, source, weight=weight)[1]


@_bellman_function(should_run=large_graph)
def single_source_bellman_ford_path_length(G, source, weight="weight"):
    if source not in G:
        raise nx.NodeNotFound(f"Source {source} not in G")
    return multi_source_dijkstra_path_length(G, [source], weight=weight)


@_bellman_function(should_run=bounded(target="target"))
def bellman_ford_path(G, source, target, weight="weight"):
    return single_source_bellman_ford(G, source, target=target, weight=weight)[1]


@_bellman_function(should_run=bounded(target="target"))
def bellman_ford_path_length(G, source, target, weight="weight"):
    if source == target:
        if source not in G:
            raise nx.NodeNotFound(f"Node {source} not found in graph")
        return 0
    if source not in G:
        raise nx.NodeNotFound(f"Source {source} not in G")
    dist, _, integral = _distances(G, np.array([G.id_of(source)]), weight, None)
    t = G.index.get(target) if target in G else None
    if t is None or not np.isfinite(dist[t]):
        raise nx.NetworkXNoPath(f"node {target} not reachable from {source}")
    return _as_number(dist[t], integral)


@_bellman_function(should_run=large_graph)
def all_pairs_bellman_ford_path_length(G, weight="weight"):
    for n in G:
        yield (n, dict(single_source_bellman_ford_path_length(G, n, weight=weight)))


@_bellman_function(should_run=large_graph)
def all_pairs_bellman_ford_path(G, weight="weight"):
    for n in G:
        yield (n, single_source_bellman_ford_path(G, n, weight=weight))


# ------------------------------------------------------------ unweighted: BFS's family
def _bfs_tree(G, s: int, cutoff) -> tuple[np.ndarray, np.ndarray]:
    """(vertices in NetworkX's discovery order, parent of each vertex) of the BFS from ``s`` within ``cutoff``."""
    start = np.array([s], np.int64)
    limit = math.inf if cutoff is None else cutoff
    levels = None if limit < SMALL_BOUND else bfs_levels(G.csr, start)
    order, parent = [], np.full(G.csr.n, -1, np.int64)
    for layer, parents in bfs_layers(G.csr, start, levels, limit):
        order.append(layer)
        parent[layer] = parents
    return np.concatenate(order), parent


def _undirected_only(a: dict) -> bool | str:
    if a["G"].is_directed():
        return "directed graphs: NetworkX reads predecessors in insertion order, which the conversion does not keep"
    return True


def _check_cutoff_undirected(a: dict) -> bool | str:
    if (ok := cutoff_number(a)) is not True:
        return ok
    return _undirected_only(a)


@networkx_algorithm(note="graphferry's BFS (a cutoff below 3: a bounded search); paths along NetworkX's BFS tree, "
                         "in its discovery order.",
                    can_run=cutoff_number, should_run=bounded("cutoff"))
def single_source_shortest_path(G, source, cutoff=None):
    if source not in G:
        raise nx.NodeNotFound(f"Source {source} not in G")
    order, parent = _bfs_tree(G, G.id_of(source), cutoff)
    return paths_from_parents(G.nodes, order, parent, identity=G.identity)


@networkx_algorithm(note="graphferry's BFS on undirected graphs (directed graphs are left to NetworkX, whose "
                         "predecessor order the conversion does not keep).",
                    can_run=_check_cutoff_undirected, should_run=bounded("cutoff"))
def single_target_shortest_path(G, target, cutoff=None):
    if target not in G:
        raise nx.NodeNotFound(f"Target {target} not in G")
    order, parent = _bfs_tree(G, G.id_of(target), cutoff)
    return paths_from_parents(G.nodes, order, parent, reverse=True, identity=G.identity)


@networkx_algorithm(note="graphferry's BFS on undirected graphs (directed graphs are left to NetworkX, whose "
                         "predecessor order the conversion does not keep).",
                    can_run=_check_cutoff_undirected, should_run=bounded("cutoff"))
def single_target_shortest_path_length(G, target, cutoff=None):
    if target not in G:
        raise nx.NodeNotFound(f"Target {target} is not in G")
    return single_source_shortest_path_length(G, target, cutoff=cutoff)


@networkx_algorithm(note="graphferry's BFS from every node in turn.", can_run=cutoff_number,
                    should_run=bounded("cutoff"))
def all_pairs_shortest_path_length(G, cutoff=None):
    for n in G:
        yield (n, single_source_shortest_path_length(G, n, cutoff=cutoff))


@networkx_algorithm(note="graphferry's BFS from every node in turn.", can_run=cutoff_number,
                    should_run=bounded("cutoff"))
def all_pairs_shortest_path(G, cutoff=None):
    for n in G:
        yield (n, single_source_shortest_path(G, n, cutoff=cutoff))


def _missing(G, source, target) -> None:
    """NetworkX's errors for a point-to-point search: the source checked first."""
    if source not in G:
        raise nx.NodeNotFound(f"Source {source} is not in G")
    if target not in G:
        raise nx.NodeNotFound(f"Target {target} is not in G")


@networkx_algorithm(note="NetworkX's bidirectional BFS replayed level by level on the CSR (touching only what it "
                         "reaches); undirected graphs (directed ones read predecessors in insertion order).",
                    can_run=_undirected_only, should_run=large_graph)
def bidirectional_shortest_path(G, source, target):
    _missing(G, source, target)
    path = bidirectional(G.csr, G.csr, G.id_of(source), G.id_of(target))
    if path is None:
        raise nx.NetworkXNoPath(f"No path between {source} and {target}.")
    return [G.nodes[v] for v in path]


@networkx_algorithm(note="A bidirectional BFS on the CSR (the transpose for a directed graph's backward search), "
                         "touching only what it reaches.",
                    can_run=always, should_run=large_graph)
def has_path(G, source, target):
    _missing(G, source, target)
    backward = G.csr.transpose() if G.directed else G.csr
    return bidirectional(G.csr, backward, G.id_of(source), G.id_of(target)) is not None


def _check_generic(a: dict) -> bool | str:
    if a["method"] not in ("dijkstra", "bellman-ford"):
        return "an unknown method: NetworkX reports it"
    if (ok := weight_name(a)) is not True:
        return ok
    if a["source"] is None and a["target"] is not None and a["G"].is_directed():
        return "paths to a target in a directed graph read predecessors in insertion order"
    if a["source"] is not None and a["target"] is not None and a["weight"] is None and a["G"].is_directed():
        return "NetworkX's bidirectional search on a directed graph reads predecessors in insertion order"
    if a["source"] is not None and a["target"] is not None and a["weight"] is not None \
            and a["method"] == "dijkstra":
        return "NetworkX's bidirectional Dijkstra picks among tied paths in its own order"
    return True


@networkx_algorithm(note="The branch NetworkX takes, each by graphferry's function for it (see those).",
                    can_run=_check_generic, can_run_converted=weights_float32_exact, should_run=large_graph)
def shortest_path(G, source=None, target=None, weight=None, method="dijkstra"):
    method = "unweighted" if weight is None else method
    if source is None:
        if target is None:
            if method == "unweighted":
                return all_pairs_shortest_path(G)
            if method == "dijkstra":
                return all_pairs_dijkstra_path(G, weight=weight)
            return all_pairs_bellman_ford_path(G, weight=weight)
        if method == "unweighted":
            paths = single_source_shortest_path(G, target)
        elif method == "dijkstra":
            paths = single_source_dijkstra_path(G, target, weight=weight)
        else:
            paths = single_source_bellman_ford_path(G, target, weight=weight)
        return {v: p[::-1] for v, p in paths.items()}
    if target is None:
        if method == "unweighted":
            return single_source_shortest_path(G, source)
        if method == "dijkstra":
            return single_source_dijkstra_path(G, source, weight=weight)
        return single_source_bellman_ford_path(G, source, weight=weight)
    if method == "unweighted":
        return bidirectional_shortest_path(G, source, target)
    return bellman_ford_path(G, source, target, weight)


def _check_generic_length(a: dict) -> bool | str:
    if a["method"] not in ("dijkstra", "bellman-ford"):
        return "an unknown method: NetworkX reports it"
    if (ok := weight_name(a)) is not True:
        return ok
    if a["source"] is None and a["target"] is not None and a["G"].is_directed():
        return "distances to a target in a directed graph: NetworkX's order follows predecessors in insertion order"
    return True


@networkx_algorithm(note="The branch NetworkX takes, each by graphferry's function for it (see those).",
                    can_run=_check_generic_length, can_run_converted=weights_float32_exact,
                    should_run=large_graph)
def shortest_path_length(G, source=None, target=None, weight=None, method="dijkstra"):
    method = "unweighted" if weight is None else method
    if source is None:
        if target is None:
            if method == "unweighted":
                return all_pairs_shortest_path_length(G)
            if method == "dijkstra":
                return all_pairs_dijkstra_path_length(G, weight=weight)
            return all_pairs_bellman_ford_path_length(G, weight=weight)
        if method == "unweighted":
            return single_source_shortest_path_length(G, target)
        if method == "dijkstra":
            return single_source_dijkstra_path_length(G, target, weight=weight)
        return single_source_bellman_ford_path_length(G, target, weight=weight)
    if target is None:
        if method == "unweighted":
            return single_source_shortest_path_length(G, source)
        if method == "dijkstra":
            return single_source_dijkstra_path_length(G, source, weight=weight)
        return single_source_bellman_ford_path_length(G, source, weight=weight)
    if method == "unweighted":  # the length of any shortest path: the backward search's order does not matter
        if source not in G or target not in G:
            _missing(G, source, target)
        backward = G.csr.transpose() if G.directed else G.csr
        path = bidirectional(G.csr, backward, G.id_of(source), G.id_of(target))
        if path is None:
            raise nx.NetworkXNoPath(f"No path between {source} and {target}.")
        return len(path) - 1
    if method == "dijkstra":
        return dijkstra_path_length(G, source, target, weight)
    return bellman_ford_path_length(G, source, target, weight)
