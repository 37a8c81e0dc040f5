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

from .checks import cutoff_number, weight_name, weights_float32_exact
from .policy import SMALL_BOUND, bounded
from .registration import networkx_algorithm
from .running import bfs_layers, bfs_levels, run


def _check_dijkstra(a: dict) -> bool | str:
    if (ok := cutoff_number(a)) is not True:
        return ok
    return weight_name(a)


@networkx_algorithm(note="graphferry's BFS (a cutoff below 3: a bounded search); the dict in NetworkX's discovery order.",
                    can_run=cutoff_number, should_run=bounded("cutoff"))
def single_source_shortest_path_length(G, source, cutoff=None):
    """Hops from ``source`` to every node within ``cutoff``, in NetworkX's discovery order."""
    if source not in G:
        raise nx.NodeNotFound(f"Source {source} is not in G")
    s = np.array([G.index[source]], np.int64)
    limit = math.inf if cutoff is None else cutoff
    levels = None if limit < SMALL_BOUND else bfs_levels(G.csr, s)
    out = {}
    nodes = G.nodes
    for depth, (layer, _) in enumerate(bfs_layers(G.csr, s, levels, limit)):
        out.update(zip(map(nodes.__getitem__, layer.tolist()), [depth] * len(layer)))
    return out


@networkx_algorithm(
    note=("graphferry's SSSP (float32 edge weights, float64 sums): weights that float32 cannot hold exactly, "
          "negative weights and weight functions are left to NetworkX. The dict is ordered by distance."),
    can_run=_check_dijkstra, can_run_converted=weights_float32_exact, should_run=bounded("cutoff"))
def single_source_dijkstra_path_length(G, source, cutoff=None, weight="weight"):
    """Weighted distances from ``source`` within ``cutoff`` (ints when every weight is an int).

    The dict is ordered by distance (ties by node order; NetworkX breaks ties
    by heap insertion order, which only its own Dijkstra defines).
    """
    if source not in G:
        raise nx.NodeNotFound(f"Node {source} not found in graph")
    s = G.index[source]
    w = G.weights.get(weight) if weight is not None else None
    csr = G.csr if w is None or w.values is None and w.default == 1 else G.weighted(weight)
    dist = run("sssp", csr, source=s).distances
    reached = np.isfinite(dist)
    if cutoff is not None:
        reached &= dist <= cutoff
    ids = np.flatnonzero(reached)
    ids = ids[np.argsort(dist[ids], kind="stable")]
    integral = w is None or w.integral
    values = dist[ids].astype(np.int64).tolist() if integral else dist[ids].tolist()
    out = dict(zip(map(G.nodes.__getitem__, ids.tolist()), values))
    out[source] = 0  # NetworkX's source distance is the int 0 whatever the weights
    return out
