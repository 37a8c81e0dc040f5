"""Connected components (undirected) and weakly connected components (directed), by graphferry's WCC.

Example:
    >>> import networkx as nx
    >>> from graphferry.nx_backend import register
    >>> _ = register()
    >>> list(nx.connected_components(nx.Graph([(0, 1), (2, 3)]), backend="graphferry"))
    [{0, 1}, {2, 3}]
"""

from __future__ import annotations

from typing import Iterator

import networkx as nx
import numpy as np

from .checks import always
from .graph import NxGraph
from .policy import large_graph
from .registration import networkx_algorithm
from .running import run


def _check_node(a: dict) -> bool | str:
    if a["n"] not in a["G"]:
        return "the node is not in the graph; NetworkX raises its own error"
    return True


def _components(G: NxGraph) -> Iterator[set]:
    labels = run("wcc", G.csr).labels
    # each label is its component's smallest vertex id, i.e. its first node in G's order;
    # NetworkX yields components in that order
    order = np.argsort(labels, kind="stable")
    cuts = np.flatnonzero(np.diff(labels[order])) + 1
    for group in np.split(order, cuts):
        yield set(G.labels(group))


@networkx_algorithm(note="graphferry's WCC; components in NetworkX's order.", can_run=always, should_run=large_graph)
def connected_components(G):
    """Sets of nodes, one per component, in NetworkX's order (a generator)."""
    if len(G) == 0:
        return
    yield from _components(G)


@networkx_algorithm(note="graphferry's WCC; components in NetworkX's order.", can_run=always, should_run=large_graph)
def weakly_connected_components(G):
    """Sets of nodes, one per weak component, in NetworkX's order (a generator)."""
    if len(G) == 0:
        return
    yield from _components(G)


@networkx_algorithm(note="graphferry's WCC.", can_run=always, should_run=large_graph)
def number_connected_components(G):
    return int(run("wcc", G.csr).components) if len(G) else 0


@networkx_algorithm(note="graphferry's WCC.", can_run=always, should_run=large_graph)
def number_weakly_connected_components(G):
    return int(run("wcc", G.csr).components) if len(G) else 0


@networkx_algorithm(note="graphferry's WCC.", can_run=always, should_run=large_graph)
def is_connected(G):
    if len(G) == 0:
        raise nx.NetworkXPointlessConcept("Connectivity is undefined for the null graph.")
    return number_connected_components(G) == 1


@networkx_algorithm(note="graphferry's WCC.", can_run=always, should_run=large_graph)
def is_weakly_connected(G):
    if len(G) == 0:
        raise nx.NetworkXPointlessConcept("Connectivity is undefined for the null graph.")
    return number_weakly_connected_components(G) == 1


@networkx_algorithm(note="graphferry's WCC.", can_run=_check_node, should_run=large_graph)
def node_connected_component(G, n):
    """The set of nodes in ``n``'s component."""
    labels = run("wcc", G.csr).labels
    return set(G.labels(np.flatnonzero(labels == labels[G.id_of(n)])))
