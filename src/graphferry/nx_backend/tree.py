"""Spanning trees: ``minimum_spanning_edges`` and ``minimum_spanning_tree`` by graphferry's Boruvka.

NetworkX's Kruskal sorts the edges by weight, stably (ties keep the order of
``G.edges(data=True)``), and keeps each edge that joins two trees. Under that
total order (weight, then position among ``G.edges()``) the minimum spanning
forest is unique, and Kruskal finds it; so does any minimum spanning forest
algorithm that compares edges by the same order. Here each edge's weight is
replaced by its rank in that order (exact in float32 below 2^24 edges) and
graphferry's Boruvka (``algorithms/mst.py``: parallel rounds of lightest
outgoing edges) spans the graph: the same forest as NetworkX's, listed in
Kruskal's order (ascending rank), each edge oriented and carrying its attribute
dict as ``G.edges(data=True)`` gives it.

Example:
    >>> import networkx as nx
    >>> from graphferry.nx_backend import register
    >>> _ = register()
    >>> G = nx.Graph()
    >>> G.add_weighted_edges_from([(0, 1, 2), (1, 2, 1), (0, 2, 1), (2, 3, 5)])
    >>> list(nx.minimum_spanning_edges(G, backend="graphferry"))
    [(0, 2, {'weight': 1}), (1, 2, {'weight': 1}), (2, 3, {'weight': 5})]
    >>> sorted(nx.minimum_spanning_tree(G, backend="graphferry").edges())
    [(0, 2), (1, 2), (2, 3)]
"""

from __future__ import annotations

import itertools

import networkx as nx
import numpy as np

from ..graph import Graph
from ._paths import collector_paused
from .convert import converted, edge_weights
from .policy import large_graph
from .registration import networkx_algorithm
from .running import run

#: ranks are float32 weights: exact below 2^24
MAX_EDGES = 1 << 24


def _check_mst(a: dict) -> bool | str:
    G = a["G"]
    if G.is_directed():
        return "NetworkX rejects directed graphs here; let it say so"
    if G.is_multigraph():
        return "multigraphs (keys) are left to NetworkX"
    if a["algorithm"] != "kruskal":
        return "only algorithm='kruskal' (Prim's and Boruvka's choices among equal weights differ)"
    if a["weight"] is not None and not isinstance(a["weight"], str):
        return "weight must be an attribute name"
    return True


def mst_weights(G, weight: str | None):
    """Edge attribute ``weight`` per arc (None: every weight 1), read from ``G`` itself when its
    conversion kept the NetworkX graph but not that attribute (``data=True`` preserves every one)."""
    if weight is None:
        return None
    return edge_weights(G, weight)


def _check_weights(a: dict) -> bool | str:
    G, weight = a["G"], a["weight"]
    w = mst_weights(G, weight)
    if weight is not None and w is None:
        return f"the graph was converted without edge attribute {weight!r}"
    if w is not None:
        values = w.values if w.values is not None else np.array([w.default] if w.numeric else [np.nan])
        if not w.numeric or not np.all(np.isfinite(values)) or not np.all(values.astype(np.float32) == values):
            return "edge weights must be finite numbers that float32 holds exactly (NaN is NetworkX's to handle)"
    if converted(G).csr.m >= 2 * MAX_EDGES:
        return f"at most {MAX_EDGES} edges (their ranks are float32 weights)"
    return True


def _stable_by_weight(values: np.ndarray) -> np.ndarray:
    """``np.argsort(values, kind="stable")`` for float32-exact weights (``_check_weights``), as
    :func:`graphferry.graph.stable_order` sorts ids: each weight's float32 bits made to order as
    the numbers do (negatives' bits flipped, -0.0 as 0.0), the position below them, one quicksort.

    Example:
        >>> _stable_by_weight(np.array([2.0, -1.0, 2.0, 0.0, -0.0, -3.5])).tolist()
        [5, 1, 3, 4, 0, 2]
    """
    m = len(values)
    bits = max((m - 1).bit_length(), 1)
    if m == 0 or 32 + bits > 63:
        return np.argsort(values, kind="stable")
    raw = (values.astype(np.float32) + np.float32(0.0)).view(np.uint32).astype(np.int64)   # -0.0 + 0.0 is 0.0
    key = np.where(raw >= 1 << 31, (1 << 32) - 1 - raw, raw + (1 << 31))
    words = key << bits
    words |= np.arange(m, dtype=np.int64)
    words.sort()
    words &= (1 << bits) - 1
    return words


def kruskal_edges(G, weight: str | None) -> tuple[np.ndarray, np.ndarray]:
    """The forest NetworkX's Kruskal finds, in its order: the endpoints' vertex ids (as G.edges lists them)."""
    csr = G.csr
    rows = np.repeat(np.arange(csr.n, dtype=np.int64), csr.out_degree)
    cols = csr.indices.astype(np.int64)
    first = cols >= rows   # G.edges() lists an edge at its earlier endpoint, in that row's order
    u, v = rows[first], cols[first]
    w = mst_weights(G, weight)
    if w is None or w.values is None:
        order = np.arange(len(u))   # every weight equal: G.edges order
    else:
        order = _stable_by_weight(w.values[first])   # NetworkX's stable sort by weight
    rank = np.empty(len(u), np.float32)
    rank[order] = np.arange(len(u), dtype=np.float32)
    loop = u == v   # a self-loop never joins two trees
    g = Graph.from_edges(u[~loop], v[~loop], rank[~loop], n=csr.n, directed=False, name=csr.name)
    picked = order[np.sort(run("mst", g).edges["weight"].astype(np.int64))]
    return u[picked], v[picked]


@networkx_algorithm(
    note=("graphferry's Boruvka over each edge's rank in Kruskal's order (weight, then G.edges order), under "
          "which the forest is unique: NetworkX's edges, in its order, with their attribute dicts. "
          "algorithm='kruskal' only; multigraphs and weights float32 cannot hold (NaN) are left to NetworkX."),
    can_run=_check_mst, can_run_converted=_check_weights, should_run=large_graph)
def minimum_spanning_edges(G, algorithm="kruskal", weight="weight", keys=True, data=True, ignore_nan=False):
    """The edges of NetworkX's minimum spanning forest, as a generator (``(u, v, d)`` or ``(u, v)``)."""
    u, v = kruskal_edges(G, weight)
    us, vs = G.labels(u), G.labels(v)
    source = G.networkx_graph
    if data and source is None:
        raise NotImplementedError("graphferry needs the NetworkX graph to give each edge its attribute dict")
    # the edge tuples made here with the collector paused, an iterator over them returned: made while the
    # caller iterates, every 700 of them started a collection that walks the input's millions of dicts
    # (a 1 M-edge call took 3.4 s or 11 s by where those walks fell)
    with collector_paused():
        if not data:
            return iter(list(zip(us, vs)))
        adj = source._adj
        return iter([(a, b, adj[a][b]) for a, b in zip(us, vs)])


@networkx_algorithm(
    note=("The edges of minimum_spanning_edges (graphferry's Boruvka in Kruskal's order) in a graph built from "
          "G as NetworkX builds it, every attribute kept."),
    can_run=_check_mst, can_run_converted=_check_weights, should_run=large_graph)
def minimum_spanning_tree(G, weight="weight", algorithm="kruskal", ignore_nan=False):
    """NetworkX's minimum spanning forest of ``G`` as a graph of G's class, nodes and attributes."""
    source = G.networkx_graph
    if source is None:
        raise NotImplementedError("graphferry needs the NetworkX graph to keep every attribute of the tree")
    T = source.__class__()
    T.graph.update(source.graph)
    edges = minimum_spanning_edges(G, algorithm, weight, keys=True, data=True, ignore_nan=ignore_nan)
    with collector_paused():   # 200,000 new dicts: the collector's walks over G's millions cost seconds
        if type(source) is not nx.Graph:   # a subclass may have its own dict factories: its own methods
            T.add_nodes_from(source.nodes.items())
            T.add_edges_from(edges)
            return T
        # what add_nodes_from and add_edges_from store for a plain Graph (a copy of each node's and
        # edge's attribute dict, one dict per edge shared by both ends, neighbours in insertion
        # order), written directly: their per-item checks were most of a 1 M-edge call
        T._node.update(zip(source._node, map(dict, source._node.values())))
        adj = T._adj
        adj.update(zip(source._node, map(dict, itertools.repeat((), len(source._node)))))
        for u, v, d in edges:
            adj[u][v] = adj[v][u] = dict(d)
    return T
