"""Communities: ``label_propagation_communities`` by graphferry's semi-synchronous label propagation.

NetworkX's ``label_propagation_communities`` is Cordasco and Gargano's
semi-synchronous algorithm: NetworkX's greedy colouring (largest first), then
the colour classes updated in turn with the Prec-Max rule until every node's
label is among its neighbours' most frequent. graphferry's
``algorithms/label_propagation.py`` is that algorithm, the classes run as
neighbourhood maps, so the labels are NetworkX's; the communities are grouped
as NetworkX groups them (a dict of sets filled in node order, its values).

Example:
    >>> import networkx as nx
    >>> from graphferry.nx_backend import register
    >>> _ = register()
    >>> G = nx.karate_club_graph()
    >>> [sorted(c) for c in nx.community.label_propagation_communities(G, backend="graphferry")][2]
    [5, 6, 16]
"""

from __future__ import annotations

from collections import defaultdict

from ._paths import collector_paused
from .checks import simple_undirected
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
