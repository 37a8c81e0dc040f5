"""Structure read off the CSR and graphferry's BFS/WCC: degrees, isolates, reciprocity, ancestors and
descendants, trees and forests.

Degrees, isolates and reciprocity are array operations on the converted CSR
(degrees counted as NetworkX counts them: a self-loop twice in an undirected
graph, parallel edges each); ancestors and descendants are graphferry's BFS
(on the transpose for ancestors); trees and forests compare the edge count
with graphferry's WCC.

Example:
    >>> import networkx as nx
    >>> from graphferry.nx_backend import register
    >>> _ = register()
    >>> G = nx.DiGraph([(0, 1), (1, 2), (2, 1)])
    >>> G.add_node(3)
    >>> sorted(nx.descendants(G, 0, backend="graphferry")), list(nx.isolates(G, backend="graphferry"))
    ([1, 2], [3])
    >>> nx.overall_reciprocity(G, backend="graphferry")
    0.6666666666666666
"""

from __future__ import annotations

import operator

import networkx as nx
import numpy as np

from .. import host_ops
from ..errors import CompilerError
from ..transforms import cached
from .adjacency import row_length_reader
from .checks import always
from .graph import DeferredNxGraph, NxGraph
from .policy import large_graph
from .registration import networkx_algorithm
from .results import node_dict
from .running import bfs_levels, nbunch, run


def _arc_counts(G: NxGraph) -> np.ndarray:
    """Edges each CSR arc stands for (parallel edges of a multigraph each)."""
    return G.multiplicity if G.multiplicity is not None else np.ones(G.csr.m, np.int64)


def _loops(G: NxGraph) -> np.ndarray:
    """Self-loop edges at each vertex."""
    csr = G.csr
    rows = np.repeat(np.arange(csr.n), csr.out_degree)
    loop = csr.indices == rows
    return np.bincount(rows[loop], weights=_arc_counts(G)[loop], minlength=csr.n).astype(np.int64)


def _from_dicts(G: NxGraph, kind: str) -> np.ndarray | None:
    """NetworkX's degrees (``kind``: "degree", "in" or "out") read off its dicts' lengths, O(nodes),
    while ``G``'s CSR has not been read (:class:`~.graph.DeferredNxGraph`); else None."""
    source = G.rows() if isinstance(G, DeferredNxGraph) else None
    if source is None:
        return None
    n = len(source)
    compiled = row_length_reader()

    def lengths(rows: dict, self_loops: bool = False) -> np.ndarray:
        # a self-loop counts twice in an undirected degree: once more where the node is its own neighbour
        got = compiled(rows, self_loops) if compiled is not None else None
        if got is None:
            got = np.fromiter(map(len, rows.values()), np.int64, count=n)
            if self_loops:
                got += np.fromiter(map(operator.contains, rows.values(), rows), bool, count=n)
        return got

    if source.is_directed():
        if kind != "degree":
            return lengths(source._pred if kind == "in" else source._succ)
        return lengths(source._succ) + lengths(source._pred)
    return lengths(source._adj, self_loops=True)


def _out_degree(G: NxGraph) -> np.ndarray:
    if (d := _from_dicts(G, "out")) is not None:
        return d
    csr = G.csr
    if G.multiplicity is None:
        return csr.out_degree.astype(np.int64)
    rows = np.repeat(np.arange(csr.n), csr.out_degree)
    return np.bincount(rows, weights=G.multiplicity, minlength=csr.n).astype(np.int64)


def _in_degree(G: NxGraph) -> np.ndarray:
    if (d := _from_dicts(G, "in")) is not None:
        return d
    return np.bincount(G.csr.indices, weights=_arc_counts(G), minlength=G.csr.n).astype(np.int64)


def _degree(G: NxGraph) -> np.ndarray:
    """NetworkX's ``G.degree()``: in + out for a directed graph, a self-loop counted twice when undirected."""
    if (d := _from_dicts(G, "degree")) is not None:
        return d
    if G.directed:
        return _out_degree(G) + _in_degree(G)
    return _out_degree(G) + _loops(G)


def _edges(G: NxGraph) -> int:
    """NetworkX's ``G.number_of_edges()``."""
    total = int(_arc_counts(G).sum())
    if G.directed:
        return total
    return (total + int(_loops(G).sum())) // 2


def _directed_simple(a: dict) -> bool | str:
    G = a["G"]
    if not G.is_directed() or G.is_multigraph():
        return "directed simple graphs only: NetworkX answers (or refuses) the others itself"
    return True


def _directed(a: dict) -> bool | str:
    if not a["G"].is_directed():
        return "directed graphs only: NetworkX refuses the others itself"
    return True


# ------------------------------------------------------------ degree centrality
def _centrality(G: NxGraph, degree: np.ndarray) -> dict:
    if len(G) <= 1:
        return {n: 1 for n in G.nodes}
    s = 1.0 / (len(G) - 1.0)
    return G.node_dict(degree * s)


@networkx_algorithm(note="Degrees from the CSR (NetworkX's count: self-loops twice, parallel edges each).",
                    can_run=always, should_run=large_graph)
def degree_centrality(G):
    return _centrality(G, _degree(G))


@networkx_algorithm(note="In-degrees from the CSR.", can_run=_directed, should_run=large_graph)
def in_degree_centrality(G):
    return _centrality(G, _in_degree(G))


@networkx_algorithm(note="Out-degrees from the CSR.", can_run=_directed, should_run=large_graph)
def out_degree_centrality(G):
    return _centrality(G, _out_degree(G))


# ------------------------------------------------------------ isolates
@networkx_algorithm(note="Degrees from the CSR; a generator in node order, like NetworkX's.", can_run=always,
                    should_run=large_graph)
def isolates(G):
    nodes = G.nodes
    return (nodes[i] for i in np.flatnonzero(_degree(G) == 0).tolist())


def _check_node_n(a: dict) -> bool | str:
    if a["n"] not in a["G"]:
        return "the node is not in the graph; NetworkX raises its own error"
    return True


@networkx_algorithm(note="Degrees from the CSR.", can_run=_check_node_n, should_run=large_graph)
def is_isolate(G, n):
    v = G.id_of(n)
    csr = G.csr
    if csr.offsets[v + 1] > csr.offsets[v]:
        return False
    return not G.directed or not bool(np.any(csr.indices == v))


@networkx_algorithm(note="Degrees from the CSR.", can_run=always, should_run=large_graph)
def number_of_isolates(G):
    return int(np.count_nonzero(_degree(G) == 0))


# ------------------------------------------------------------ reciprocity
def _reciprocated(G: NxGraph) -> np.ndarray:
    """The tails of the arcs u -> v whose reverse v -> u is an arc too (a self-loop is its own
    reverse), one entry per such arc, ascending (without a C++ compiler: :func:`_overlap`'s fallback).

    Every arc as a word ``u << bits | v``, sorted; its reverse's word ``v << bits | u``, sorted too;
    an arc is reciprocated when its word is among the reverse words.
    """
    csr = G.csr
    if csr.m == 0:
        return np.zeros(0, np.int64)
    bits = max(csr.n - 1, 1).bit_length()
    tails = np.repeat(np.arange(csr.n, dtype=np.int64), csr.out_degree)
    heads = csr.indices.astype(np.int64)
    forward = np.sort((tails << bits) | heads)
    backward = np.sort((heads << bits) | tails)
    at = np.minimum(np.searchsorted(backward, forward), csr.m - 1)
    return forward[backward[at] == forward] >> bits


def _overlap(G: NxGraph) -> tuple[np.ndarray, np.ndarray]:
    """``(overlap, in_degree)`` per vertex: ``overlap[u]`` is NetworkX's ``len(pred[u] & succ[u])``.

    One parallel pass of the host library over the CSR and its transpose (no sort: two sorts of the
    arcs' words and a merge of them took 0.13-0.33 s of a 1.1 M-arc call, about as long as
    NetworkX's whole pass over its dicts).
    """
    csr = G.csr

    def counts() -> tuple[np.ndarray, np.ndarray]:
        try:
            return host_ops.reciprocal_counts(csr.offsets, csr.indices)
        except CompilerError:   # no C++ compiler: sorted words
            return np.bincount(_reciprocated(G), minlength=csr.n), np.bincount(csr.indices, minlength=csr.n)
    # kept on the conversion (as NetworkX keeps it: until G changes): a warm call's transpose took
    # 18 of its 29 ms on the H200's host
    return cached(csr, ("reciprocal_counts",), counts)


def _loop_count(G: NxGraph) -> int:
    return int(G.self_loops.sum())


@networkx_algorithm(note="Arc pairs matched on the CSR (directed simple graphs, as NetworkX requires).",
                    can_run=_directed_simple, should_run=large_graph)
def overall_reciprocity(G):
    m = G.csr.m
    if m == 0:
        raise nx.NetworkXError("Not defined for empty graphs")
    return (int(_overlap(G)[0].sum()) - _loop_count(G)) / m


def _node_ids(G: NxGraph, nodes) -> tuple[list, np.ndarray]:
    """NetworkX's ``G.nbunch_iter(nodes)`` as (the nodes, their vertex ids): a list of nodes all in
    ``G`` is read with one map over the index (nodes 0..n-1: with arrays), others through :func:`nbunch`."""
    if isinstance(nodes, (list, tuple)):
        which = list(nodes)
        if G.identity and set(map(type, which)) == {int}:
            ids = np.fromiter(which, np.int64, count=len(which))   # nodes 0..n-1: a node is its id
            if len(ids) == 0 or (int(ids.min()) >= 0 and int(ids.max()) < len(G)):
                return which, ids
        elif len(which) == len(G) and which == G.nodes:   # every node in G's order (list(G)): no lookups
            return which, np.arange(len(which), dtype=np.int64)
        else:
            try:
                return which, np.fromiter(map(G.index.__getitem__, which), np.int64, count=len(which))
            except (KeyError, TypeError):   # a node not in G (skipped), an unhashable one (an error)
                pass
    which = nbunch(G, nodes)
    return which, np.fromiter(map(G.id_of, which), np.int64, count=len(which))


@networkx_algorithm(note="Arc pairs matched on the CSR (directed simple graphs, as NetworkX requires).",
                    can_run=_directed_simple, should_run=large_graph)
def reciprocity(G, nodes=None):
    if nodes is None:
        return overall_reciprocity(G)
    overlap, in_degree = _overlap(G)
    total = G.csr.out_degree + in_degree

    def value(v: int):
        return None if total[v] == 0 else 2 * int(overlap[v]) / int(total[v])

    if nodes in G:
        r = value(G.id_of(nodes))
        if r is None:
            raise nx.NetworkXError("Not defined for isolated nodes.")
        return r
    # every value at once: 2 * overlap / total in float64 is Python's int division's float exactly
    which, ids = _node_ids(G, nodes)
    t = total[ids]
    ratio = 2 * overlap[ids] / np.maximum(t, 1)
    if len(ids) == len(G) and bool(np.array_equal(ids, np.arange(len(G)))):
        # every node in G's order: keyed by the nodes as given (equal to G's, so of equal hashes)
        return node_dict(which, G.node_hashes, np.where(t == 0, np.nan, ratio), nan_as_none=True)
    values = ratio.tolist()
    for k in np.flatnonzero(t == 0).tolist():
        values[k] = None   # an isolated node: NetworkX's None
    return dict(zip(which, values))


# ------------------------------------------------------------ ancestors, descendants
def _reached(G: NxGraph, source, csr) -> set:
    if source not in G:
        raise nx.NetworkXError(f"The node {source} is not in the graph.")
    s = G.id_of(source)
    levels = bfs_levels(csr, np.array([s]))
    return set(G.labels(np.flatnonzero(levels > 0)))


@networkx_algorithm(note="graphferry's BFS.", can_run=always, should_run=large_graph)
def descendants(G, source):
    return _reached(G, source, G.csr)


@networkx_algorithm(note="graphferry's BFS on the transpose.", can_run=always, should_run=large_graph)
def ancestors(G, source):
    return _reached(G, source, G.csr.transpose() if G.directed else G.csr)


# ------------------------------------------------------------ trees and forests
def _components(G: NxGraph) -> int:
    return int(run("wcc", G.csr).components)


@networkx_algorithm(note="The edge count and graphferry's WCC.", can_run=always, should_run=large_graph)
def is_tree(G):
    if len(G) == 0:
        raise nx.NetworkXPointlessConcept("G has no nodes.")
    return len(G) - 1 == _edges(G) and _components(G) == 1


@networkx_algorithm(note="The edge count and graphferry's WCC (a forest: every component has one edge "
                         "fewer than nodes, i.e. edges = nodes - components).",
                    can_run=always, should_run=large_graph)
def is_forest(G):
    if len(G) == 0:
        raise nx.NetworkXPointlessConcept("G has no nodes.")
    return _edges(G) == len(G) - _components(G)
