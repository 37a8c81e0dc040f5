"""The backend's graph: a NetworkX graph converted once into graphferry's CSR.

NetworkX keeps a graph as dicts of dicts; graphferry as CSR arrays. The
conversion walks the adjacency dicts once, in NetworkX's own order (nodes in
``G`` order, neighbours in adjacency order), so vertex ``i`` is the ``i``-th
node of ``G`` and every row lists its neighbours in the order NetworkX visits
them. Results that depend on visiting order (BFS edges, BFS layers, component
order) can therefore be put back into NetworkX's order exactly.

The pass over the dicts is compiled (:mod:`.adjacency`): it reads each
neighbour's hash from the dict's entry table instead of its label, and checks
edge attribute dicts for emptiness only, about 25 ns a neighbour entry instead
of 150 from Python. Where it cannot run (no compiler, node hashes that
collide), the dicts are read from Python: integer labels still take a path
without per-edge dict lookups. Edge attributes are read only when a function
asks for one (``weight``), and a graph whose edges carry no attributes at all
is recognised without reading any value. NetworkX caches the converted graph
on the input graph (``G.__networkx_cache__``), so repeated calls on one graph
convert it once.

Example:
    >>> import networkx as nx
    >>> from graphferry.nx_backend.graph import from_networkx
    >>> G = nx.Graph([("a", "b"), ("b", "c")])
    >>> g = from_networkx(G)
    >>> g.nodes, g.csr.offsets.tolist(), g.csr.indices.tolist()
    (['a', 'b', 'c'], [0, 1, 3, 4], [1, 0, 2, 1])
    >>> nx.utils.graphs_equal(g.to_networkx(), G)
    True
"""

from __future__ import annotations

import itertools
from functools import cached_property
from typing import Any

import numpy as np

from ..graph import Graph, index_dtype_for, offsets_from_degrees
from .adjacency import attribute_reader, ids_from_hashes, reader, row_length_reader
from .results import node_dict, node_hashes

_chain = itertools.chain.from_iterable


class EdgeWeights:
    """One edge attribute read from the NetworkX graph, per arc in CSR order.

    ``values`` is float64 (None: no edge carries the attribute, every edge has
    the default); ``integral`` tells whether every value was a Python int
    (NetworkX then returns int distances); ``numeric`` is False when some value
    is not a real number (the attribute then cannot be used here); ``all_uniform``
    is the one value every edge (every parallel edge, too) has, or None when they differ.
    """

    def __init__(self, values: np.ndarray | None, default: Any, *, integral: bool, numeric: bool,
                 all_uniform: float | None):
        self.values = values
        self.default = default
        self.integral = integral
        self.numeric = numeric
        self.all_uniform = all_uniform

    @cached_property
    def float32_exact(self) -> bool:
        """Every value is finite, non-negative and exactly representable in float32."""
        if not self.numeric:
            return False
        if self.values is None:
            d = self.default
            return isinstance(d, (int, float)) and 0 <= d < np.inf and float(np.float32(d)) == d
        v = self.values
        return bool(np.all(np.isfinite(v)) and np.all(v >= 0) and np.all(v.astype(np.float32) == v))

    def as_float32(self, m: int) -> np.ndarray:
        if self.values is None:
            return np.full(m, self.default, dtype=np.float32)
        return self.values.astype(np.float32)


class NxGraph:
    """A NetworkX graph in graphferry form (``__networkx_backend__ = "graphferry"``).

    ``csr``: the graphferry :class:`~graphferry.graph.Graph` (vertex ``i`` is
    ``nodes[i]``; a multigraph's parallel edges appear once each); ``nodes``:
    the NetworkX nodes in ``G`` order; ``multiplicity``: for a multigraph, how
    many parallel edges each CSR arc stands for (None otherwise); ``weights``:
    edge attributes that were asked for, by name.
    """

    __networkx_backend__ = "graphferry"

    def __init__(self, csr: Graph, nodes: list, *, directed: bool, multigraph: bool,
                 multiplicity: np.ndarray | None = None, weights: dict[str, EdgeWeights] | None = None,
                 graph_attrs: dict | None = None, node_hashes: np.ndarray | None = None):
        self.csr = csr
        self.nodes = nodes
        #: each node's hash, as NetworkX's dict keeps it (None: not read), for :meth:`node_dict`
        self.node_hashes = node_hashes
        self.directed = directed
        self.multigraph = multigraph
        self.multiplicity = multiplicity
        self.weights = weights or {}
        self.graph_attrs = graph_attrs or {}
        #: the NetworkX graph converted, kept where a function needs its every attribute (None otherwise)
        self.networkx_graph = None
        self.__networkx_cache__: dict = {}

    # the small part of NetworkX's graph interface that dispatching looks at
    def is_directed(self) -> bool:
        return self.directed

    def is_multigraph(self) -> bool:
        return self.multigraph

    def __len__(self) -> int:
        return len(self.nodes)

    def __contains__(self, node: Any) -> bool:
        if type(node) is int and self.identity:
            return 0 <= node < len(self.nodes)
        try:
            hash(node)   # an unhashable (a list of nodes) is no node: answered before building the index
            return node in self.index
        except TypeError:  # unhashable: not a node, as in NetworkX
            return False

    @cached_property
    def identity(self) -> bool:
        """Whether node ``i`` is the int ``i`` for every ``i`` (most graphs built from edge lists):
        then a vertex id is its node, and results skip the id -> node lookup."""
        nodes, n = self.nodes, len(self.nodes)
        return n == 0 or (type(nodes[0]) is int and nodes[0] == 0 and nodes[-1] == n - 1
                          and set(map(type, nodes)) == {int} and nodes == list(range(n)))

    @cached_property
    def self_loops(self) -> np.ndarray:
        """Each vertex's self-loops (its CSR arcs ``i -> i``), counted once and kept with the conversion,
        which NetworkX drops when ``G`` changes: can_run's checks, degrees and loop counts read them."""
        csr = self.csr
        rows = np.repeat(np.arange(csr.n, dtype=csr.indices.dtype), csr.out_degree)
        return np.bincount(rows[rows == csr.indices], minlength=csr.n)

    def labels(self, ids: np.ndarray) -> list:
        """The nodes of vertex ids ``ids``, as a list (C-speed when the nodes are 0..n-1)."""
        if self.identity:
            return ids.tolist()
        return list(map(self.nodes.__getitem__, ids.tolist()))

    def id_of(self, node: Any) -> int:
        """The vertex id of ``node`` (KeyError or TypeError when it is not a node)."""
        if type(node) is int and self.identity and 0 <= node < len(self.nodes):
            return node
        return self.index[node]

    def __iter__(self):
        return iter(self.nodes)

    def node_dict(self, values: np.ndarray, **how) -> dict:
        """``{node: value}`` for every node in order (``order=ids``: for those vertices, in that order),
        built at C speed (:func:`.results.node_dict`)."""
        return node_dict(self.nodes, self.node_hashes, values, **how)

    def __repr__(self) -> str:
        kind = ("Multi" if self.multigraph else "") + ("DiGraph" if self.directed else "Graph")
        return f"<graphferry {kind}: {len(self.nodes)} nodes, {self.csr.m} arcs>"

    @cached_property
    def index(self) -> dict:
        """NetworkX node -> vertex id."""
        return dict(zip(self.nodes, range(len(self.nodes))))

    @cached_property
    def arcs(self) -> Graph:
        """The CSR with every parallel edge of a multigraph as its own arc (what PageRank counts)."""
        if self.multiplicity is None:
            return self.csr
        g = self.csr
        rows = np.repeat(np.arange(g.n), g.out_degree)
        degree = np.bincount(rows, weights=self.multiplicity, minlength=g.n).astype(np.int64)
        return Graph(offsets_from_degrees(degree), np.repeat(g.indices, self.multiplicity), None,
                     directed=g.directed, name=g.name)

    def weighted(self, attr: str) -> Graph:
        """The CSR carrying edge attribute ``attr`` as float32 weights (convert with that attribute first)."""
        w = self.weights[attr]
        g = self.csr
        return Graph(g.offsets, g.indices, w.as_float32(g.m), directed=g.directed, name=g.name)

    def to_networkx(self):
        """A NetworkX graph with the same nodes, edges and converted edge attributes.

        A multigraph keeps its parallel edges, each with the lightest weight of
        its group (the conversion keeps only what shortest paths use).
        """
        import networkx as nx

        cls = {(False, False): nx.Graph, (True, False): nx.DiGraph,
               (False, True): nx.MultiGraph, (True, True): nx.MultiDiGraph}[(self.directed, self.multigraph)]
        G = cls()
        G.graph.update(self.graph_attrs)
        G.add_nodes_from(self.nodes)
        src, dst = self.csr.edges()
        keep = np.ones(len(src), bool) if self.directed else src <= dst
        count = np.ones(len(src), np.int64) if self.multiplicity is None else self.multiplicity
        attrs = {k: w for k, w in self.weights.items() if w.values is not None}
        nodes = self.nodes
        for k in np.flatnonzero(keep).tolist():
            data = {a: (int(w.values[k]) if w.integral else float(w.values[k])) for a, w in attrs.items()}
            for _ in range(int(count[k])):
                G.add_edge(nodes[src[k]], nodes[dst[k]], **data)
        return G


class DeferredNxGraph(NxGraph):
    """A conversion whose CSR is read from the NetworkX graph only when a function first needs it.

    Functions that need only each node's neighbour count (the degree centralities, isolates) read
    the row lengths of NetworkX's dicts instead, O(nodes), through :meth:`rows`: converting a
    262,111-node, 1.2 M-edge graph (0.1-0.15 s) took most of a cold ``degree_centrality`` call,
    whose answer needs no edge. Any other use (``csr``, ``multiplicity``, ``weights``, ``nodes``)
    converts the graph then, once, and keeps it; NetworkX's cache holds this object as it holds
    any conversion, and drops it when the graph changes through its methods.

    Example:
        >>> import networkx as nx
        >>> g = DeferredNxGraph(nx.path_graph(3))
        >>> g.rows() is not None, len(g), g.nodes     # no conversion yet
        (True, 3, [0, 1, 2])
        >>> g.csr.m, g.rows() is None        # converted on first use of the CSR
        (4, True)
    """

    _CONVERTED = ("csr", "multiplicity", "weights", "nodes", "node_hashes")

    def __init__(self, G, edge_attrs: dict[str, Any] | None = None, *, graph_attrs: bool = False):
        # no NxGraph.__init__: the converted attributes come from __getattr__, on first use
        self.source = G
        self.edge_attrs = edge_attrs
        self.directed = G.is_directed()
        self.multigraph = G.is_multigraph()
        self.graph_attrs = dict(G.graph) if graph_attrs else {}
        self.networkx_graph = None
        self.__networkx_cache__: dict = {}

    def __getattr__(self, name: str):
        if name not in DeferredNxGraph._CONVERTED or self.__dict__.get("source") is None:
            raise AttributeError(name)
        if name == "nodes":   # the conversion's node list, without converting
            self.nodes = list(self.source._adj)
            return self.nodes
        if name == "node_hashes":   # read off NetworkX's node dict, without converting
            self.node_hashes = node_hashes(self.source._adj)
            return self.node_hashes
        g = from_networkx(self.source, self.edge_attrs)
        self.csr, self.multiplicity, self.weights, self.nodes = g.csr, g.multiplicity, g.weights, g.nodes
        self.node_hashes = g.node_hashes
        if "identity" in g.__dict__:
            self.__dict__.setdefault("identity", g.__dict__["identity"])
        self.source = None   # converted: the CSR answers from now on
        return getattr(self, name)

    def __len__(self) -> int:
        return len(self.source) if self.source is not None else len(self.nodes)

    def __repr__(self) -> str:
        if self.source is not None:
            return f"<graphferry graph, not converted yet: {len(self)} nodes>"
        return super().__repr__()

    def rows(self):
        """The NetworkX graph while its CSR has not been read (a simple graph whose adjacency is plain
        dicts), else None."""
        G = self.source
        if G is None or self.multigraph or type(G._adj) is not dict:
            return None
        return G


def _row_lengths(adj: dict) -> np.ndarray:
    """Each row's length, rows in dict order: the compiled pass (:func:`.adjacency.row_length_reader`, the rows'
    cache misses overlapped: 60-90 ms of a 262,111-node conversion from Python) where it runs."""
    compiled = row_length_reader()
    got = compiled(adj, False) if compiled is not None else None
    return got if got is not None else np.fromiter(map(len, adj.values()), np.int64, count=len(adj))


def _neighbor_ids(adj: dict, nodes: list, m: int) -> np.ndarray:
    """Every row's neighbours as vertex ids, rows in node order (one pass over the dicts)."""
    n = len(nodes)
    dtype = index_dtype_for(n)
    if all(type(v) is int for v in nodes):
        # integer labels: read the keys as numbers and map them with arrays, no dict lookups
        try:
            keys = np.fromiter(adj, np.int64, count=n)
            flat = np.fromiter(_chain(adj.values()), np.int64, count=m)
        except OverflowError:  # a label beyond int64: the dict lookups below
            keys = None
    else:
        keys = None
    if keys is not None:
        if n == 0 or (keys[0] == 0 and keys[-1] == n - 1 and bool(np.all(keys == np.arange(n)))):
            return flat.astype(dtype, copy=False)
        lo, hi = int(keys.min()), int(keys.max())
        if hi - lo <= 4 * n + 1024:
            table = np.empty(hi - lo + 1, dtype)
            table[keys - lo] = np.arange(n, dtype=dtype)
            return table[flat - lo]
        order = np.argsort(keys, kind="stable")
        return order[np.searchsorted(keys[order], flat)].astype(dtype)
    index = dict(zip(nodes, range(n)))
    return np.fromiter(map(index.__getitem__, _chain(adj.values())), dtype, count=m)


def _edge_attrs(adj: dict, multigraph: bool):
    """Every arc's attribute dict in CSR order (a multigraph: every parallel edge's, arc by arc)."""
    per_arc = _chain(map(dict.values, adj.values()))
    return _chain(map(dict.values, per_arc)) if multigraph else per_arc


def _is_real(kind: type) -> bool:
    """Python and numpy ints and floats; not bool (NetworkX would add True as 1, which we do not mimic)."""
    return issubclass(kind, (int, float, np.integer, np.floating)) and not issubclass(kind, (bool, np.bool_))


def _read_weights(adj: dict, attr: str, default: Any, *, multigraph: bool, m: int,
                  multiplicity: np.ndarray | None, any_attrs: bool | None = None) -> EdgeWeights:
    """Edge attribute ``attr`` of every arc (``any_attrs``: whether some edge has any attribute, if known)."""
    if any_attrs is None and multigraph:
        any_attrs = any(map(bool, _edge_attrs(adj, True)))
    elif any_attrs is None:
        any_attrs = any(map(any, map(dict.values, adj.values())))
    if not any_attrs:
        # no edge carries any attribute: every edge has the default (read nothing per edge)
        numeric = _is_real(type(default))
        return EdgeWeights(None, default, integral=issubclass(type(default), (int, np.integer)), numeric=numeric,
                           all_uniform=float(default) if numeric else None)
    compiled = _read_compiled(adj, attr, default, m) if not multigraph else None
    if compiled is not None:
        values, integral = compiled
    else:
        raw = [d.get(attr, default) for d in _edge_attrs(adj, multigraph)]
        kinds = set(map(type, raw))
        numeric = all(_is_real(k) for k in kinds)
        integral = numeric and all(issubclass(k, (int, np.integer)) for k in kinds)
        if not numeric:
            return EdgeWeights(None, default, integral=False, numeric=False, all_uniform=None)
        values = np.array(raw, dtype=np.float64)
    all_uniform = float(values[0]) if len(values) and bool(np.all(values == values[0])) else None
    if multigraph:
        # NetworkX's shortest paths use the lightest of parallel edges
        starts = np.r_[0, np.cumsum(multiplicity)[:-1]] if len(multiplicity) else np.zeros(0, np.int64)
        values = np.minimum.reduceat(values, starts) if len(values) else values
    return EdgeWeights(values, default, integral=integral, numeric=True, all_uniform=all_uniform)


def _read_compiled(adj: dict, attr: Any, default: Any, m: int) -> tuple[np.ndarray, bool] | None:
    """Attribute ``attr`` of every arc by the compiled pass (:func:`.adjacency.attribute_reader`):
    (values, whether every value is an int), or None where Python must read them."""
    read = attribute_reader()
    if read is None or type(attr) is not str or type(default) not in (int, float):
        return None
    degree = _row_lengths(adj)
    got = read(adj, degree, attr)
    if got is None:
        return None
    values, kind = got
    absent = kind == 0
    if absent.any():
        values[absent] = default
    integral = bool(np.all(kind == 1)) if type(default) is float else bool(not np.any(kind == 2))
    return values, integral


def from_networkx(G, edge_attrs: dict[str, Any] | None = None, *, graph_attrs: bool = False) -> NxGraph:
    """Convert NetworkX graph ``G`` (edge attributes ``edge_attrs``: name -> default)."""
    directed = G.is_directed()
    multigraph = G.is_multigraph()
    adj = G._adj  # successors for a directed graph; the fastest read NetworkX offers
    if type(adj) is not dict:  # a graph view (subgraph, restricted, ...): its filtered adjacency, as dicts
        if multigraph:
            adj = {u: {v: dict(keys) for v, keys in nbrs.items()} for u, nbrs in adj.items()}
        else:
            adj = {u: dict(nbrs) for u, nbrs in adj.items()}
    nodes = list(adj)
    n = len(nodes)
    degree = _row_lengths(adj)
    offsets = offsets_from_degrees(degree)
    m = int(offsets[-1])
    indices, any_attrs, identity, hashes = None, None, None, None
    read = reader()
    if read is not None:
        # a multigraph's rows hold dicts of parallel edges, not attribute dicts: Python checks those
        rows = read(adj, degree, want_edge_data=bool(edge_attrs) and not multigraph)
        if rows is not None:
            indices = ids_from_hashes(rows.node_hashes, rows.neighbor_hashes, index_dtype_for(n))
            if rows.first_edge_with_data is not None:
                any_attrs = rows.first_edge_with_data >= 0
            identity = rows.int_nodes   # node i is the int i: read in the same pass
            hashes = rows.node_hashes
    if indices is None:
        indices = _neighbor_ids(adj, nodes, m)
    multiplicity = None
    if multigraph:
        multiplicity = np.fromiter(map(len, _chain(map(dict.values, adj.values()))), np.int64, count=m)
    csr = Graph(offsets, indices, None, directed=directed, name=str(G.name) if G.name else "networkx")
    weights = {}
    for attr, default in (edge_attrs or {}).items():
        weights[attr] = _read_weights(adj, attr, default, multigraph=multigraph, m=m, multiplicity=multiplicity,
                                      any_attrs=any_attrs)
    g = NxGraph(csr, nodes, directed=directed, multigraph=multigraph, multiplicity=multiplicity,
                weights=weights, graph_attrs=dict(G.graph) if graph_attrs else None, node_hashes=hashes)
    if identity is not None:
        g.__dict__["identity"] = identity   # known from the compiled pass: no second pass over the nodes
    return g
