"""Communities: ``label_propagation_communities`` by graphferry's semi-synchronous label propagation,
``louvain_communities`` and ``louvain_partitions`` by graphferry's Louvain.

NetworkX's ``label_propagation_communities`` is Cordasco and Gargano's
semi-synchronous algorithm: NetworkX's greedy colouring (largest first), then
the colour classes updated in turn with the Prec-Max rule until every node's
label is among its neighbours' most frequent. graphferry's
``algorithms/label_propagation.py`` is that algorithm, the classes run as
neighbourhood maps, so the labels are NetworkX's; the communities are grouped
as NetworkX groups them (a dict of sets filled in node order, its values).

NetworkX's Louvain visits the nodes one at a time in an order shuffled by
``seed``, so its communities depend on that order (and on the seed); graphferry's
(``algorithms/louvain.py``) moves independent sets of nodes together and is
deterministic: other communities, of comparable modularity. A call that gives a
``seed`` asks for NetworkX's communities for that seed, which only NetworkX's
sequential order reproduces, so it is left to NetworkX (``can_run`` says so);
without one, NetworkX's answer is any of its random runs', and graphferry
answers. (nx-cugraph ignores ``seed`` instead.) The communities come as a list
of sets, in order of each one's first node in ``G``.

Example:
    >>> import networkx as nx
    >>> from graphferry.nx_backend import register
    >>> _ = register()
    >>> G = nx.karate_club_graph()
    >>> [sorted(c) for c in nx.community.label_propagation_communities(G, backend="graphferry")][2]
    [5, 6, 16]
    >>> parts = nx.community.louvain_communities(G, weight=None, backend="graphferry")
    >>> len(parts), round(nx.community.modularity(G, parts, weight=None), 4)
    (4, 0.4188)
"""

from __future__ import annotations

import random
from collections import defaultdict
from numbers import Real

import numpy as np

from ..graph import Graph
from ._paths import collector_paused
from .checks import simple_undirected
from .convert import edge_weights
from .policy import large_graph
from .registration import networkx_algorithm
from .running import run


@networkx_algorithm(
    note=("graphferry's semi-synchronous label propagation (Cordasco-Gargano): NetworkX's greedy largest-first "
          "colouring, each colour class one parallel step with the Prec-Max rule, until every label is among "
          "its neighbours' most frequent: NetworkX's communities. Directed graphs and multigraphs are left to "
          "NetworkX."),
    can_run=simple_undirected, should_run=large_graph)
def label_propagation_communities(G):
    """The communities as NetworkX returns them: a ``dict_values`` of sets, in order of each label's first node."""
    labels = run("label_propagation", G.csr).labels
    clusters: defaultdict = defaultdict(set)
    with collector_paused():
        for node, label in zip(G.nodes, labels.tolist()):
            clusters[label].add(node)
    return clusters.values()


def _louvain_arguments(a: dict) -> bool | str:
    # NetworkX hands a missing seed over as the random module's own generator (py_random_state)
    if a.get("seed") is not None and a.get("seed") is not random._inst:
        return ("a given seed asks for NetworkX's communities for that seed (its sequential shuffled order), "
                "which graphferry's parallel Louvain does not reproduce")
    if a["weight"] is not None and not isinstance(a["weight"], str):
        return "weight must be an edge attribute name or None"
    for name in ("resolution", "threshold"):
        if not isinstance(a[name], Real) or isinstance(a[name], bool) or not np.isfinite(a[name]):
            return f"{name} must be a finite number"
    max_level = a.get("max_level")
    if max_level is not None and (not isinstance(max_level, Real) or isinstance(max_level, bool)):
        return "max_level must be a number or None"
    return True


def _louvain_weights(a: dict) -> bool | str:
    """Weights graphferry sums as NetworkX does: finite, non-negative, and a multigraph's parallel edges alike
    (the conversion keeps one value per pair of nodes)."""
    G, weight = a["G"], a["weight"]
    if weight is None:
        return True
    w = edge_weights(G, weight)
    if w is None:
        return f"the graph was converted without edge attribute {weight!r}"
    if not w.numeric:
        return "edge weights must be real numbers"
    values = np.asarray([w.default], np.float64) if w.values is None else w.values
    if len(values) and not (np.all(np.isfinite(values)) and values.min() >= 0):
        return "edge weights must be finite and non-negative"
    if G.is_multigraph() and w.values is not None and w.all_uniform is None:
        return "parallel edges of different weights (the conversion keeps the lightest of each group)"
    return True


def _louvain_graph(G, weight) -> Graph:
    """``G``'s CSR with NetworkX's Louvain weights: the attribute (default 1) times a multigraph's multiplicity."""
    csr = G.csr
    w = G.weights.get(weight) if weight is not None else None
    if w is None or (w.values is None and w.default == 1):
        if G.multiplicity is None:
            return csr
        values = G.multiplicity.astype(np.float64)
    else:
        values = w.values if w.values is not None else np.full(csr.m, float(w.default))
        if G.multiplicity is not None:
            values = (w.all_uniform if w.values is not None else float(w.default)) * G.multiplicity
    return Graph(csr.offsets, csr.indices, np.asarray(values, np.float32), directed=csr.directed, name=csr.name)


def _partition(G, community: np.ndarray) -> list[set]:
    """The communities (each vertex's named by its smallest member) as sets of nodes, by first node."""
    order = np.argsort(community, kind="stable")
    cuts = np.flatnonzero(np.diff(community[order])) + 1
    nodes = G.nodes
    with collector_paused():
        return [set(map(nodes.__getitem__, part.tolist())) for part in np.split(order, cuts)] if len(order) else []


def _check_max_level(max_level) -> None:
    if max_level is not None and max_level <= 0:
        raise ValueError("max_level argument must be a positive integer or None")


@networkx_algorithm(
    note=("graphferry's Louvain (Blondel et al.): local moving in parallel, one colour class of a proper "
          "colouring at a time (NetworkX's modularity gain, its resolution; Leicht-Newman's form on directed "
          "graphs), levels aggregated until a level gains no more than threshold. Deterministic: other "
          "communities than NetworkX's shuffled sequential order, of comparable modularity. A given seed "
          "(NetworkX's communities for that seed) is left to NetworkX, as are multigraphs whose parallel "
          "edges differ in weight and negative weights."),
    can_run=_louvain_arguments, can_run_converted=_louvain_weights, should_run=large_graph)
def louvain_communities(G, weight="weight", resolution=1, threshold=1e-07, max_level=None, seed=None):
    """NetworkX's ``louvain_communities``: a list of sets of nodes, the last level's partition."""
    _check_max_level(max_level)
    result = run("louvain", _louvain_graph(G, weight), resolution=float(resolution), threshold=float(threshold),
                 max_level=None if max_level is None else int(max_level))
    return _partition(G, result.community)


@networkx_algorithm(
    note=("The partition of every level of graphferry's Louvain (see louvain_communities), as a generator. "
          "A given seed is left to NetworkX."),
    can_run=_louvain_arguments, can_run_converted=_louvain_weights, should_run=large_graph)
def louvain_partitions(G, weight="weight", resolution=1, threshold=1e-07, seed=None):
    """NetworkX's ``louvain_partitions``: a generator of each level's partition (lists of sets of nodes)."""
    levels: list[np.ndarray] = []
    run("louvain", _louvain_graph(G, weight), resolution=float(resolution), threshold=float(threshold),
        on_level=levels.append)
    return (_partition(G, community) for community in levels)
