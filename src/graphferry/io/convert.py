"""Graphs from in-memory objects: numpy arrays, scipy sparse matrices, NetworkX graphs.

Example:
    >>> import numpy as np, networkx as nx, scipy.sparse as sp
    >>> from graphferry.io.convert import from_arrays, from_networkx, from_scipy
    >>> from_arrays([0, 1], [1, 2], n=4).out_degree.tolist()
    [1, 1, 0, 0]
    >>> g = from_networkx(nx.path_graph(["a", "b", "c"]))
    >>> g.directed, g.original_ids.tolist(), g.neighbors(1).tolist()
    (False, ['a', 'b', 'c'], [0, 2])
    >>> from_scipy(sp.csr_array(np.array([[0, 2.0], [0, 0]]))).weights.tolist()
    [2.0]
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from ..errors import InputError
from ..graph import Graph, index_dtype_for
from .options import ReadOptions

def _f32(a: np.ndarray) -> np.ndarray:
    """float32 copy; overflow to inf is expected here (the caller rejects it)."""
    with np.errstate(over="ignore"):
        return np.asarray(a).astype(np.float32)



def from_arrays(src, dst, weights=None, *, options: ReadOptions | None = None, **shared) -> Graph:
    """A graph from edge arrays (ids 0-based, or any integers or strings with ``renumber=True``).

    The shared options come as ``options=`` (:class:`~graphferry.io.options.ReadOptions`)
    or keywords; ``directed=None`` means ``True``.
    """
    opts = ReadOptions.merged(options, shared)
    b = opts.builder(n=opts.n, directed=opts.directed is not False, weighted=weights is not None,
                     source="arrays", name="graph")
    b.add(src, dst, weights)
    return opts.finish(b)


def from_scipy(matrix, *, options: ReadOptions | None = None, **shared) -> Graph:
    """A graph from a square sparse matrix: stored entry ``(i, j)`` is arc ``i -> j``.

    Duplicate entries are summed by scipy when converting formats; explicit
    zeros are edges of weight 0 (call ``eliminate_zeros()`` first to drop them).
    ``directed=False`` requires a symmetric matrix, whose entries then already
    hold both directions (``directed=None`` means ``True``). ``weighted=None``:
    weighted unless the matrix is boolean or every stored value is 1. The
    shared options come as ``options=`` (:class:`~graphferry.io.options.ReadOptions`)
    or keywords; ``renumber`` and ``n`` are refused (the shape gives ``n``).
    """
    import scipy.sparse as sp

    opts = ReadOptions.merged(options, shared)
    opts.refuse("scipy", "renumber", "n")
    directed, weighted = opts.directed is not False, opts.weighted
    if not sp.issparse(matrix):
        matrix = sp.csr_array(np.asarray(matrix))
    if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1]:
        raise InputError(f"matrix of shape {matrix.shape}: a graph needs a square matrix")
    a = sp.csr_array(matrix)
    if a.dtype.kind == "c":
        raise InputError("complex matrices are not supported")
    n = a.shape[0]
    if not directed:
        asym = a - a.T
        if asym.count_nonzero():
            raise InputError("matrix is not symmetric; pass directed=True or symmetrise it")
    if weighted is None:
        weighted = a.dtype != bool and not (a.data == 1).all()
    data = a.data.astype(np.float64) if weighted else None
    if data is not None and not np.isfinite(_f32(data)).all():
        raise InputError("matrix has NaN/inf values (or values beyond float32)")
    offsets = a.indptr.astype(np.int64)
    if not (opts.drop_self_loops or opts.drop_duplicates or opts.sort_neighbors):
        g = Graph(offsets, a.indices.astype(index_dtype_for(n)),
                  None if data is None else _f32(data),
                  directed=directed, name=opts.name or "graph", meta={"format": "scipy"})
        return opts.keep(g)
    src = np.repeat(np.arange(n, dtype=np.int64), np.diff(offsets))
    dst = a.indices.astype(np.int64)
    if not directed:  # each undirected edge once; the builder mirrors it
        keep = src <= dst
        src, dst = src[keep], dst[keep]
        data = None if data is None else data[keep]
    b = opts.builder(n=n, directed=directed, weighted=bool(weighted), source="scipy", name="graph")
    b.add(src, dst, data)
    return opts.finish(b)


def labels_array(labels: list) -> np.ndarray | None:
    """Vertex labels as ``original_ids``: None when they are ``0..n-1`` in order, else
    int64 or str when they all are, else an object array (in memory only: a store refuses it).

    Example:
        >>> labels_array([0, 1, 2]) is None, labels_array([5, 3]).tolist(), labels_array(["a"]).dtype.kind
        (True, [5, 3], 'U')
        >>> labels_array([(0, 1), "x", 2.5]).tolist()
        [(0, 1), 'x', 2.5]
    """
    if labels == list(range(len(labels))) and all(type(v) is int for v in labels):
        return None
    if all(isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)) for v in labels) \
            and all(-2**63 <= int(v) < 2**63 for v in labels):
        return np.array(labels, dtype=np.int64)
    if all(isinstance(v, (str, np.str_)) and not v.endswith("\x00") for v in labels):
        return np.array(labels, dtype=str)  # (numpy's strings drop trailing NULs: such labels stay objects)
    out = np.empty(len(labels), dtype=object)
    for i, v in enumerate(labels):  # one by one: tuples must stay whole, not become rows
        out[i] = v
    return out


def from_networkx(
    G, *,
    weight: str | None = "weight",
    nodelist: list | None = None,
    options: ReadOptions | None = None,
    **shared,
) -> Graph:
    """A graph from a NetworkX (Multi)(Di)Graph.

    Nodes (any hashable labels) are numbered in ``nodelist`` order (default:
    ``G``'s node order); their labels become ``original_ids`` unless they
    already are ``0..n-1`` in order (see :func:`labels_array`).
    ``weighted=None``: weighted iff some edge has the ``weight`` attribute
    (missing ones count 1; ``weight=None`` reads none). Directedness is
    ``G``'s own (``directed=`` is refused). Undirected graphs are stored both
    ways; parallel edges of multigraphs are kept (or dropped by
    ``drop_duplicates``). The shared options come as ``options=``
    (:class:`~graphferry.io.options.ReadOptions`) or keywords.

    Example:
        >>> import networkx as nx
        >>> g = from_networkx(nx.DiGraph([("x", (1, 2)), ((1, 2), 7)]))
        >>> g.directed, g.original_ids.tolist(), g.to_internal_id((1, 2))
        (True, ['x', (1, 2), 7], 1)
    """
    opts = ReadOptions.merged(options, shared)
    opts.refuse("networkx", "directed", "renumber", "n")
    weighted = opts.weighted
    nodes = list(G.nodes) if nodelist is None else list(nodelist)
    index = {v: i for i, v in enumerate(nodes)}
    if len(index) != len(nodes):
        raise InputError("nodelist has repeated nodes")
    edges = list(G.edges(data=True))
    if weighted is None:
        weighted = weight is not None and any(weight in d for _, _, d in edges)
    elif weighted and weight is None:
        raise ValueError("weighted=True needs weight= (the edge attribute to read)")
    try:
        src = np.fromiter((index[u] for u, _, _ in edges), dtype=np.int64, count=len(edges))
        dst = np.fromiter((index[v] for _, v, _ in edges), dtype=np.int64, count=len(edges))
    except KeyError as e:
        raise InputError(f"edge names node {e.args[0]!r}, which is not in nodelist") from None
    w = None
    if weighted:
        try:
            w = np.fromiter((float(d.get(weight, 1.0)) for _, _, d in edges), dtype=np.float64,
                            count=len(edges))
        except (TypeError, ValueError) as e:
            raise InputError(f"non-numeric edge weight attribute {weight!r} ({e})") from None
    original = labels_array(nodes)
    b = opts.builder(n=len(nodes) if original is None else None, directed=G.is_directed(),
                     weighted=bool(weighted), source="networkx",
                     name=str(G.name) if getattr(G, "name", "") else "graph", original_ids=original)
    b.meta["format"] = "networkx"
    b.add(src, dst, w)
    return opts.finish(b)


def to_networkx(graph: Graph, *, weight: str = "weight", original_ids: bool = True) -> Any:
    """The graph as a NetworkX (Multi)(Di)Graph -- for tests and small graphs."""
    import networkx as nx

    src, dst = graph.edges()
    labels = graph.original_ids if (original_ids and graph.original_ids is not None) else None
    G = nx.MultiDiGraph() if graph.directed else nx.MultiGraph()
    G.add_nodes_from(range(graph.n) if labels is None else labels.tolist())
    keep = np.ones(len(src), bool) if graph.directed else src <= dst
    s, d = src[keep], dst[keep]
    if labels is not None:
        s, d = labels[s], labels[d]
    if graph.weighted:
        G.add_weighted_edges_from(zip(s.tolist(), d.tolist(), np.asarray(graph.weights)[keep].tolist()),
                                  weight=weight)
    else:
        G.add_edges_from(zip(s.tolist(), d.tolist()))
    return G
