"""The NetworkX backend interface (the ``networkx.backends`` entry point ``graphferry``).

NetworkX calls :func:`can_run` with a function's name and arguments; when it
says yes, NetworkX converts the graph with :func:`convert_from_nx` (caching the
result on the graph) and calls the function of the same name here. Each
function runs the matching graphferry algorithm (looked up in
:mod:`graphferry.algorithms.registry`) and returns what NetworkX returns: the
same dict, generator, set or number, keyed by the same nodes, in NetworkX's
order where NetworkX defines one. Arguments graphferry cannot honour exactly
make :func:`can_run` answer False (with the reason), so NetworkX runs its own
implementation instead (automatic dispatch, ``NETWORKX_FALLBACK_TO_NX``) or
raises ``NotImplementedError`` (an explicit ``backend="graphferry"``).

Example:
    >>> import networkx as nx
    >>> from graphferry.nx_backend import register
    >>> _ = register()  # only needed when graphferry runs from a source checkout
    >>> G = nx.path_graph(4)
    >>> ranks = nx.pagerank(G, backend="graphferry")
    >>> {v: round(r, 4) for v, r in ranks.items()}
    {0: 0.1754, 1: 0.3246, 2: 0.3246, 3: 0.1754}
    >>> list(nx.bfs_edges(nx.path_graph(4), 1, backend="graphferry"))  # a fresh graph: converted anew
    [(1, 0), (1, 2), (2, 3)]
    >>> nx.pagerank(nx.path_graph(4), personalization={0: 1}, backend="graphferry")
    Traceback (most recent call last):
    ...
    NotImplementedError: 'pagerank' is not implemented by 'graphferry' backend for the given arguments. ...
"""

from __future__ import annotations

import inspect
import logging
import math
from numbers import Real
from typing import Any, Callable, Iterator

import networkx as nx
import numpy as np

from ..algorithms import registry
from ..graph import Graph
from .graph import NxGraph, from_networkx
from .info import DEFAULT_CONFIG

log = logging.getLogger(__name__)

__all__ = ["can_run", "should_run", "convert_from_nx", "convert_to_nx"]

# ------------------------------------------------------------ conversion
def _conversion_cache(G) -> dict | None:
    cache = getattr(G, "__networkx_cache__", None)
    if cache is None or not nx.config.cache_converted_graphs or nx.utils.backends._dispatchable._is_testing:
        return None
    return cache.setdefault("graphferry", {})


def _converted(G, edge_attrs: dict[str, Any] | None = None) -> NxGraph:
    """``G`` converted with ``edge_attrs``, memoised on ``G`` so :func:`can_run` and the call share it.

    The memo lives in ``G.__networkx_cache__``, which NetworkX empties whenever
    ``G`` changes through its methods; it is off while NetworkX's own tests run
    with the backend (they convert afresh each call).
    """
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


def convert_from_nx(G, edge_attrs=None, node_attrs=None, preserve_edge_attrs=False, preserve_node_attrs=False,
                    preserve_graph_attrs=False, name=None, graph_name=None) -> NxGraph:
    """NetworkX graph -> :class:`~graphferry.nx_backend.graph.NxGraph` (named edge attributes only)."""
    if isinstance(G, NxGraph):
        return G
    if preserve_edge_attrs:
        # only a callable weight asks for every attribute, and can_run turns those away
        raise NotImplementedError("graphferry converts named edge attributes only, not all of them")
    g = _converted(G, edge_attrs)
    if preserve_graph_attrs:
        g.graph_attrs = dict(G.graph)
    return g


def convert_to_nx(obj, *, name=None):
    """A converted graph back to NetworkX; results (dicts, numbers, generators) pass through."""
    if isinstance(obj, NxGraph):
        return obj.to_networkx()
    return obj


# ------------------------------------------------------------ running
def _config():
    try:
        return nx.config.backends.graphferry
    except AttributeError:  # backend_info not loaded (e.g. networkx imported oddly)
        return nx.utils.Config(**DEFAULT_CONFIG)


def _run(name: str, graph: Graph, **kwargs):
    """Run registered algorithm ``name`` with the backend's configured run options."""
    cfg = _config()
    return registry.get(name).run(graph, backend=cfg.backend, engine=cfg.engine, **kwargs)


def _vertex(G: NxGraph, node, error: Callable[[Any], Exception]) -> int:
    try:
        return G.index[node]
    except KeyError:
        raise error(node) from None


def _nbunch(G: NxGraph, nbunch) -> list:
    """NetworkX's ``G.nbunch_iter``: the nodes of ``nbunch`` that are in ``G``, same errors."""
    if nbunch in G:
        return [nbunch]
    try:
        return [v for v in nbunch if v in G.index]
    except TypeError as err:
        message = err.args[0] if err.args else ""
        if "object is not iterable" in message:
            raise nx.NetworkXError(f"Node {nbunch} is not in the graph.") from None
        if "iter" in message:
            raise nx.NetworkXError("nbunch is not a node or a sequence of nodes.") from None
        if "hashable" in message:
            bad = next(v for v in nbunch if not _hashable(v))
            raise nx.NetworkXError(f"Node {bad} in sequence nbunch is not a valid node.") from None
        raise


def _hashable(v) -> bool:
    try:
        hash(v)
    except TypeError:
        return False
    return True


def _bfs_levels(csr: Graph, sources: np.ndarray) -> np.ndarray:
    """Hops from the nearest of ``sources`` (-1: unreachable), by graphferry's BFS.

    Several sources: BFS from a virtual vertex ``n`` with an arc to each source.
    """
    if len(sources) == 1:
        return _run("bfs", csr, source=int(sources[0])).levels
    starts = np.unique(sources)
    offsets = np.concatenate([csr.offsets, [csr.m + len(starts)]])
    indices = np.concatenate([csr.indices, starts.astype(csr.indices.dtype)])
    with_super = Graph(offsets, indices, None, directed=True, name=f"{csr.name}+sources")
    levels = _run("bfs", with_super, source=csr.n).levels[:-1]
    return np.where(levels > 0, levels - 1, -1)


def _bfs_layers(csr: Graph, first: np.ndarray, levels: np.ndarray, depth_limit: float = math.inf
                ) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """(layer, parents) per BFS layer, in exactly the order NetworkX's BFS discovers vertices.

    NetworkX scans each layer's vertices in order and each one's neighbours in
    adjacency order; a vertex joins the next layer, with that parent, at its
    first sighting. Given the levels, that is: the next layer is the first
    occurrence of each level-(d + 1) vertex among the layer's rows, read in order.
    """
    layer = first
    parents = np.full(len(first), -1, np.int64)
    depth = 0
    while len(layer):
        yield layer, parents
        if depth >= depth_limit:
            return
        starts, ends = csr.offsets[layer], csr.offsets[layer + 1]
        lengths = ends - starts
        total = int(lengths.sum())
        if total == 0:
            return
        # positions of every arc of the layer's rows, rows in layer order
        pos = np.arange(total) + np.repeat(starts - np.cumsum(lengths) + lengths, lengths)
        children = csr.indices[pos]
        keep = levels[children] == depth + 1
        children = children[keep]
        owners = np.repeat(layer, lengths)[keep]
        _, firsts = np.unique(children, return_index=True)
        firsts.sort()
        layer, parents = children[firsts].astype(np.int64), owners[firsts]
        depth += 1


# ------------------------------------------------------------ algorithms
def pagerank(G, alpha=0.85, personalization=None, max_iter=100, tol=1e-06, nstart=None, weight="weight",
             dangling=None):
    """PageRank: NetworkX's own power iteration, run by graphferry's LDBC PageRank.

    NetworkX iterates ``x_k = (1 - alpha) / n + alpha * (P x_{k-1} + sinks' mass / n)``
    from ``x_0 = 1 / n`` and returns the first ``x_k`` whose step changed it by
    less than ``n * tol`` in L1 (``PowerIterationFailedConvergence`` if none of the
    first ``max_iter`` does). graphferry's ``pagerank_ldbc`` is that recurrence step
    for step: ``pagerank_ldbc(iterations=k)`` is NetworkX's ``x_k``.

    The step changes shrink by at least ``alpha`` per step (the iteration
    contracts zero-sum vectors by ``alpha`` in L1), so a measured change ``c_k``
    names a step ``K`` by which NetworkX has certainly stopped. While the next
    step is cheap next to ``K`` (``k + 1 <= K / 2``), the change of step ``k + 1`` is
    measured (one more run); in practice changes shrink much faster than
    ``alpha``, and this finds NetworkX's own stopping step and returns its very
    ``x_k``. Otherwise ``x_K`` is returned: a later, more converged iterate of the
    same iteration. Where ``K`` is beyond ``max_iter``, the change at ``max_iter``
    decides, as in NetworkX. Parallel edges of a multigraph count once each;
    uniform edge weights are the unweighted case.
    """
    n = len(G)
    if n == 0:
        return {}
    alpha, max_iter, target = float(alpha), int(max_iter), len(G) * tol
    if max_iter <= 0:
        raise nx.PowerIterationFailedConvergence(max_iter)
    graph = G.arcs

    def iterate(k: int) -> np.ndarray:
        return _run("pagerank_ldbc", graph, damping=alpha, iterations=k).ranks

    def certain_stop(k: int, change: float) -> int:
        while change >= target:
            change *= alpha
            k += 1
        return k

    before, x, k = np.full(n, 1.0 / n), iterate(1), 1
    change = float(np.abs(x - before).sum())
    while change >= target:
        if k >= max_iter:
            raise nx.PowerIterationFailedConvergence(max_iter)
        stop = certain_stop(k, change)
        if k + 1 <= stop / 2:      # measuring the next step is cheap next to running to `stop`
            before, x, k = x, iterate(k + 1), k + 1
        elif stop <= max_iter:     # NetworkX has stopped by step `stop`
            x = iterate(stop)
            break
        else:                      # NetworkX's rule at max_iter decides
            before, x, k = iterate(max_iter - 1), iterate(max_iter), max_iter
        change = float(np.abs(x - before).sum())
    return dict(zip(G.nodes, x.tolist()))


def bfs_edges(G, source, reverse=False, depth_limit=None, sort_neighbors=None):
    """BFS tree edges ``(parent, child)`` in NetworkX's order (a generator, like NetworkX's)."""
    s = _vertex(G, source, lambda v: nx.NetworkXError(f"The node {v} is not in the graph."))
    csr = G.csr.transpose() if reverse and G.directed else G.csr
    levels = _bfs_levels(csr, np.array([s]))
    limit = len(G) if depth_limit is None else depth_limit
    nodes = G.nodes
    for layer, parents in _bfs_layers(csr, np.array([s], np.int64), levels, limit):
        if parents[0] < 0:
            continue  # the source has no edge
        yield from zip(map(nodes.__getitem__, parents.tolist()), map(nodes.__getitem__, layer.tolist()))


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
    ids = np.array([G.index[v] for v in first], np.int64)
    levels = _bfs_levels(G.csr, ids)
    nodes = G.nodes
    layers = _bfs_layers(G.csr, ids, levels)
    next(layers)
    yield first
    for layer, _ in layers:
        yield [nodes[i] for i in layer.tolist()]


def bfs_predecessors(G, source, depth_limit=None, sort_neighbors=None):
    """``(child, parent)`` pairs of the BFS tree in NetworkX's order (a generator)."""
    for parent, child in bfs_edges(G, source, depth_limit=depth_limit):
        yield child, parent


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


def descendants_at_distance(G, source, distance):
    """The nodes exactly ``distance`` hops from ``source``."""
    if source not in G:
        raise nx.NetworkXError(f"The node {source} is not in the graph.")
    levels = _bfs_levels(G.csr, np.array([G.index[source]]))
    at = (levels == distance) & (levels >= 0)  # -1 marks the unreachable, never a distance
    return set(map(G.nodes.__getitem__, np.flatnonzero(at).tolist()))


def single_source_shortest_path_length(G, source, cutoff=None):
    """Hops from ``source`` to every node within ``cutoff``, in NetworkX's discovery order."""
    if source not in G:
        raise nx.NodeNotFound(f"Source {source} is not in G")
    s = G.index[source]
    limit = math.inf if cutoff is None else cutoff
    levels = _bfs_levels(G.csr, np.array([s]))
    out = {}
    nodes = G.nodes
    for depth, (layer, _) in enumerate(_bfs_layers(G.csr, np.array([s], np.int64), levels, limit)):
        out.update(zip(map(nodes.__getitem__, layer.tolist()), [depth] * len(layer)))
    return out


def single_source_dijkstra_path_length(G, source, cutoff=None, weight="weight"):
    """Weighted distances from ``source`` within ``cutoff`` (ints when every weight is an int).

    The dict is ordered by distance (ties by node order; NetworkX breaks ties
    by heap insertion order, which only its own Dijkstra defines).
    """
    sources = {source}
    if source not in G:
        raise nx.NodeNotFound(f"Node {source} not found in graph")
    del sources
    s = G.index[source]
    w = G.weights.get(weight) if weight is not None else None
    csr = G.csr if w is None or w.values is None and w.default == 1 else G.weighted(weight)
    dist = _run("sssp", csr, source=s).distances
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


def _components(G: NxGraph) -> Iterator[set]:
    labels = _run("wcc", G.csr).labels
    # each label is its component's smallest vertex id, i.e. its first node in G's order;
    # NetworkX yields components in that order
    order = np.argsort(labels, kind="stable")
    cuts = np.flatnonzero(np.diff(labels[order])) + 1
    nodes = G.nodes
    for group in np.split(order, cuts):
        yield set(map(nodes.__getitem__, group.tolist()))


def connected_components(G):
    """Sets of nodes, one per component, in NetworkX's order (a generator)."""
    if len(G) == 0:
        return
    yield from _components(G)


def weakly_connected_components(G):
    """Sets of nodes, one per weak component, in NetworkX's order (a generator)."""
    if len(G) == 0:
        return
    yield from _components(G)


def number_connected_components(G):
    return int(_run("wcc", G.csr).components) if len(G) else 0


def number_weakly_connected_components(G):
    return int(_run("wcc", G.csr).components) if len(G) else 0


def is_connected(G):
    if len(G) == 0:
        raise nx.NetworkXPointlessConcept("Connectivity is undefined for the null graph.")
    return number_connected_components(G) == 1


def is_weakly_connected(G):
    if len(G) == 0:
        raise nx.NetworkXPointlessConcept("Connectivity is undefined for the null graph.")
    return number_weakly_connected_components(G) == 1


def node_connected_component(G, n):
    """The set of nodes in ``n``'s component."""
    labels = _run("wcc", G.csr).labels
    return set(map(G.nodes.__getitem__, np.flatnonzero(labels == labels[G.index[n]]).tolist()))


def triangles(G, nodes=None):
    """Triangles through each node (an int when ``nodes`` is one node)."""
    counts = _run("triangle_count", G.csr).triangles if len(G) else np.zeros(0, np.int64)
    if nodes is not None:
        if nodes in G:
            return int(counts[G.index[nodes]])
        return {v: int(counts[G.index[v]]) for v in _nbunch(G, nodes)}
    return dict(zip(G.nodes, counts.tolist()))


def clustering(G, nodes=None, weight=None):
    """Local clustering of each node of an undirected graph (a number when ``nodes`` is one node).

    Like NetworkX, a node in no triangle gets the int 0.
    """
    values = _run("lcc", G.csr).lcc if len(G) else np.zeros(0)
    as_python = [0 if x == 0 else x for x in values.tolist()]
    if nodes is not None and nodes in G:
        return as_python[G.index[nodes]]
    if nodes is not None:
        return {v: as_python[G.index[v]] for v in _nbunch(G, nodes)}
    return dict(zip(G.nodes, as_python))


def average_clustering(G, nodes=None, weight=None, count_zeros=True):
    """Mean local clustering, summed in NetworkX's order (so the same float)."""
    c = clustering(G, nodes, weight=weight).values()
    if not count_zeros:
        c = [v for v in c if abs(v) > 0]
    return sum(c) / len(c)


def transitivity(G):
    """``3 * triangles / connected triples`` of an undirected graph (exact integer sums, one division)."""
    if len(G) == 0:
        return 0
    csr = G.csr
    triangles_through = _run("triangle_count", csr).triangles
    rows = np.repeat(np.arange(csr.n), csr.out_degree)
    degree = csr.out_degree - np.bincount(rows[csr.indices == rows], minlength=csr.n)  # self-loops aside
    twice_triangles = 2 * int(triangles_through.sum())
    triples = int((degree * (degree - 1)).sum())
    return 0 if twice_triangles == 0 else twice_triangles / triples


def betweenness_centrality(G, k=None, normalized=True, weight=None, endpoints=False, seed=None):
    """Brandes betweenness by graphferry, NetworkX's scaling and (for ``k``) NetworkX's sample of sources.

    NetworkX hands ``seed`` over as a ``random.Random``; graphferry draws the
    sources from it exactly as NetworkX does, so the same seed samples the same nodes.
    """
    n = len(G)
    if n == 0:
        return {}
    csr = G.csr if weight is None else G.weighted(weight)
    values = _run("betweenness", csr, k=k, normalized=bool(normalized), weighted=weight is not None,
                  seed=seed).betweenness
    return dict(zip(G.nodes, values.tolist()))


# ------------------------------------------------------------ can_run / should_run
def _weights(G, weight) -> Any:
    """Edge attribute ``weight`` of ``G`` as converted (None: a backend graph converted without it)."""
    return _converted(G, {weight: 1}).weights.get(weight)


def _check_pagerank(a: dict) -> bool | str:
    for name in ("personalization", "nstart", "dangling"):
        if a[name] is not None:
            return f"{name} is not supported"
    if not (isinstance(a["alpha"], Real) and 0 <= a["alpha"] < 1):
        return "alpha must lie in [0, 1)"
    if not (isinstance(a["tol"], Real) and a["tol"] > 0 and math.isfinite(a["tol"])):
        return "tol must be a positive number"
    if not isinstance(a["max_iter"], int) or a["max_iter"] < 0:
        return "max_iter must be a non-negative int"
    if a["weight"] is not None:
        if not isinstance(a["weight"], str):
            return "weight must be an attribute name"
        w = _weights(a["G"], a["weight"])
        if w is None:
            return f"the graph was converted without edge attribute {a['weight']!r}"
        if not w.numeric or w.all_uniform is None or w.all_uniform <= 0:
            return "weighted PageRank is not supported (edge weights differ)"
    return True


def _check_bfs_edges(a: dict) -> bool | str:
    if a["sort_neighbors"] is not None:
        return "sort_neighbors is not supported"
    if a["reverse"] and a["G"].is_directed():
        return "reverse=True on a directed graph is not supported (predecessor order)"
    if a["depth_limit"] is not None and not isinstance(a["depth_limit"], Real):
        return "depth_limit must be a number"
    return True


def _check_cutoff(a: dict) -> bool | str:
    if a["cutoff"] is not None and not isinstance(a["cutoff"], Real):
        return "cutoff must be a number"
    return True


def _check_dijkstra(a: dict) -> bool | str:
    if (ok := _check_cutoff(a)) is not True:
        return ok
    weight = a["weight"]
    if weight is None:
        return True
    if not isinstance(weight, str):
        return "weight functions are not supported"
    w = _weights(a["G"], weight)
    if w is None:
        return f"the graph was converted without edge attribute {weight!r}"
    if not w.float32_exact:
        return "edge weights must be non-negative numbers that float32 holds exactly"
    return True


def _check_triangles(a: dict) -> bool | str:
    if a["nodes"] is not None and a["G"].is_multigraph():
        return "NetworkX rejects multigraphs here; let it say so"
    return True


def _check_bfs_tree(a: dict) -> bool | str:
    if a["sort_neighbors"] is not None:
        return "sort_neighbors is not supported"
    if a["depth_limit"] is not None and not isinstance(a["depth_limit"], Real):
        return "depth_limit must be a number"
    return True


def _check_node(a: dict) -> bool | str:
    if a["n"] not in a["G"]:
        return "the node is not in the graph; NetworkX raises its own error"
    return True


def _check_simple_undirected(a: dict) -> bool | str:
    G = a["G"]
    if G.is_directed() or G.is_multigraph():
        return "only simple undirected graphs"
    return True


def _check_clustering(a: dict) -> bool | str:
    G = a["G"]
    if a["weight"] is not None:
        return "weighted clustering is not supported"
    if G.is_directed():
        return "directed clustering is not supported (graphferry's directed LCC is LDBC's definition)"
    if G.is_multigraph():
        return "NetworkX rejects multigraphs here; let it say so"
    return True


def _check_betweenness(a: dict) -> bool | str:
    if a["endpoints"]:
        return "endpoints=True is not supported"
    k, n = a["k"], len(a["G"])
    if k is not None and not (isinstance(k, int) and 1 <= k <= n):
        return "k must be an int in 1..len(G); NetworkX reports anything else"
    weight = a["weight"]
    if weight is None:
        return True
    if not isinstance(weight, str):
        return "weight functions are not supported"
    if a["G"].is_multigraph():
        return "weighted multigraphs are not supported"
    w = _weights(a["G"], weight)
    if w is None:
        return f"the graph was converted without edge attribute {weight!r}"
    if not w.float32_exact:
        return "edge weights must be numbers that float32 holds exactly"
    if (w.values is None and not w.default > 0) or (w.values is not None and not np.all(w.values > 0)):
        return "edge weights must be positive"
    return True


def _always(a: dict) -> bool:
    return True


#: NetworkX function -> (our function, argument check)
FUNCTIONS: dict[str, tuple[Callable[..., Any], Callable[[dict], bool | str]]] = {
    "pagerank": (pagerank, _check_pagerank),
    "bfs_edges": (bfs_edges, _check_bfs_edges),
    "bfs_layers": (bfs_layers, _always),
    "single_source_shortest_path_length": (single_source_shortest_path_length, _check_cutoff),
    "single_source_dijkstra_path_length": (single_source_dijkstra_path_length, _check_dijkstra),
    "connected_components": (connected_components, _always),
    "number_connected_components": (number_connected_components, _always),
    "weakly_connected_components": (weakly_connected_components, _always),
    "number_weakly_connected_components": (number_weakly_connected_components, _always),
    "triangles": (triangles, _check_triangles),
    "clustering": (clustering, _check_clustering),
    "bfs_predecessors": (bfs_predecessors, _check_bfs_tree),
    "bfs_successors": (bfs_successors, _check_bfs_tree),
    "descendants_at_distance": (descendants_at_distance, _always),
    "is_connected": (is_connected, _always),
    "is_weakly_connected": (is_weakly_connected, _always),
    "node_connected_component": (node_connected_component, _check_node),
    "average_clustering": (average_clustering, _check_clustering),
    "transitivity": (transitivity, _check_simple_undirected),
    "betweenness_centrality": (betweenness_centrality, _check_betweenness),
}


def can_run(name: str, args: tuple, kwargs: dict) -> bool | str:
    """True when graphferry gives NetworkX's exact answer for these arguments, else the reason why not."""
    if name not in FUNCTIONS:
        return f"graphferry does not provide {name}"
    function, check = FUNCTIONS[name]
    try:
        bound = inspect.signature(function).bind(*args, **kwargs)
    except TypeError as exc:
        return f"unexpected arguments ({exc})"
    bound.apply_defaults()
    return check(bound.arguments)


def should_run(name: str, args: tuple, kwargs: dict) -> bool | str:
    """Worth converting? Only graphs of at least ``min_edges`` edges (config ``graphferry.min_edges``)."""
    G = args[0] if args else kwargs.get("G")
    if isinstance(G, NxGraph):
        return True
    need = _config().min_edges
    if G is not None and G.number_of_edges() < need:
        return f"fewer than {need} edges: converting costs more than running in NetworkX"
    return True
