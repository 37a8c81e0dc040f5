"""``should_run`` policies: is a call worth converting the graph, decided in O(1).

NetworkX asks ``should_run`` only under automatic dispatch (``backend_priority``),
never for ``backend="graphferry"``. The answer must cost next to nothing, since
it is paid on every call, including those graphferry declines: it never counts
the edges of a NetworkX graph (``G.number_of_edges()`` walks every node: 0.2 s
on a 200,000-node graph). The size it judges by is

* the arcs of a cached conversion (``G.__networkx_cache__``), when there is one;
* else, for a graph of at most :data:`EXACT_NODES` nodes, the arcs counted from
  the adjacency's row lengths (a C-level ``sum(map(len, ...))``, microseconds);
* else an estimate: the nodes times the mean degree of the first
  :data:`SAMPLE_NODES` rows.

Bounded searches (``cutoff``, ``depth_limit``, ``distance``, a ``target``) touch
only what lies within the bound in NetworkX, so a bound below
:data:`SMALL_BOUND` hops keeps the call in NetworkX.

Example:
    >>> import networkx as nx
    >>> from graphferry.nx_backend.policy import large_graph, estimated_arcs
    >>> estimated_arcs(nx.path_graph(10))
    18
    >>> large_graph({"G": nx.path_graph(10)}).startswith("about 18 arcs")
    True
"""

from __future__ import annotations

from itertools import islice
from numbers import Real

from .convert import cached_size
from .graph import NxGraph
from .running import config

__all__ = ["estimated_arcs", "large_graph", "bounded", "EXACT_NODES", "SAMPLE_NODES", "SMALL_BOUND"]

#: graphs with at most this many nodes have their arcs counted exactly (about 10 us per 1,000 nodes)
EXACT_NODES = 50_000
#: rows sampled to estimate the mean degree of a larger graph
SAMPLE_NODES = 256
#: a cutoff / depth limit / distance below this many hops stays in NetworkX under automatic dispatch
SMALL_BOUND = 3


def estimated_arcs(G) -> int:
    """Arcs of ``G``'s CSR (each undirected edge twice): cached, counted or estimated, in O(1) time."""
    m = cached_size(G)
    if m is not None:
        return m
    adj = getattr(G, "_adj", None)
    if adj is None:
        return 0
    n = len(adj)
    if n <= EXACT_NODES:
        return sum(map(len, adj.values()))
    sample = sum(map(len, islice(adj.values(), SAMPLE_NODES)))
    return int(sample * n / SAMPLE_NODES)


def large_graph(a: dict) -> bool | str:
    """The default policy: run when the graph has at least ``min_edges`` edges (``nx.config.backends.graphferry``)."""
    G = a.get("G")
    if G is None or isinstance(G, NxGraph):
        return True
    need = config().min_edges
    arcs = estimated_arcs(G)
    edges = arcs if G.is_directed() else arcs // 2
    if edges < need:
        return f"about {arcs} arcs, fewer than min_edges={need} edges: converting costs more than NetworkX's own run"
    return True


def bounded(*names: str, target: str | None = None):
    """A policy for bounded searches: NetworkX keeps a small bound (any of ``names``) or a point-to-point search.

    ``target``: an argument that, when given, makes the search stop at one node
    (NetworkX's bidirectional search touches only what lies between).
    """

    def policy(a: dict) -> bool | str:
        for name in names:
            bound = a.get(name)
            if isinstance(bound, Real) and bound < SMALL_BOUND:
                return f"{name}={bound}: NetworkX touches only what lies within it"
        if target is not None and a.get(target) is not None:
            return f"{target} given: NetworkX's search stops there"
        return large_graph(a)

    return policy
