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
from .builder import CSRBuilder

def _f32(a: np.ndarray) -> np.ndarray:
    """float32 copy; overflow to inf is expected here (the caller rejects it)."""
    with np.errstate(over="ignore"):
        return np.asarray(a).astype(np.float32)



def _finish(b: CSRBuilder, store, overwrite: bool) -> Graph:
    with b:
        return b.finish_store(store, overwrite=overwrite) if store is not None else b.finish()


def from_arrays(
    src, dst, weights=None, *,
    n: int | None = None,
    directed: bool = True,
    renumber: bool = False,
    drop_self_loops: bool = False,
    drop_duplicates: bool = False,
    sort_neighbors: bool = False,
    store: str | os.PathLike | None = None,
    overwrite: bool = False,
    name: str = "graph",
) -> Graph:
    """A graph from edge arrays (ids 0-based, or any ids with ``renumber=True``)."""
    b = CSRBuilder(n=n, directed=directed, weighted=weights is not None, renumber=renumber,
                   drop_self_loops=drop_self_loops, drop_duplicates=drop_duplicates,
                   sort_neighbors=sort_neighbors, name=name, source="arrays")
    b.add(src, dst, weights)
    return _finish(b, store, overwrite)


def from_scipy(
    matrix, *,
    directed: bool = True,
    weighted: bool | None = None,
    drop_self_loops: bool = False,
    drop_duplicates: bool = False,
    sort_neighbors: bool = False,
    store: str | os.PathLike | None = None,
    overwrite: bool = False,
    name: str = "graph",
) -> Graph:
    """A graph from a square sparse matrix: stored entry ``(i, j)`` is arc ``i -> j``.

    Duplicate entries are summed by scipy when converting formats; explicit
    zeros are edges of weight 0 (call ``eliminate_zeros()`` first to drop them).
    ``directed=False`` requires a symmetric matrix, whose entries then already
    hold both directions. ``weighted=None``: weighted unless the matrix is
    boolean or every stored value is 1.
    """
    import scipy.sparse as sp

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
    if not (drop_self_loops or drop_duplicates or sort_neighbors):
        g = Graph(offsets, a.indices.astype(index_dtype_for(n)),
                  None if data is None else _f32(data),
                  directed=directed, name=name, meta={"format": "scipy"})
        if store is not None:
            from ..store import open_store, write_store

            write_store(g, store, overwrite=overwrite)
            return open_store(store)
        return g
    src = np.repeat(np.arange(n, dtype=np.int64), np.diff(offsets))
    dst = a.indices.astype(np.int64)
    if not directed:  # each undirected edge once; the builder mirrors it
        keep = src <= dst
        src, dst = src[keep], dst[keep]
        data = None if data is None else data[keep]
    b = CSRBuilder(n=n, directed=directed, weighted=bool(weighted), drop_self_loops=drop_self_loops,
                   drop_duplicates=drop_duplicates, sort_neighbors=sort_neighbors, name=name,
                   source="scipy")
    b.add(src, dst, data)
    return _finish(b, store, overwrite)


def from_networkx(
    G, *,
    weight: str | None = "weight",
    weighted: bool | None = None,
    nodelist: list | None = None,
    drop_self_loops: bool = False,
    drop_duplicates: bool = False,
    sort_neighbors: bool = False,
    store: str | os.PathLike | None = None,
    overwrite: bool = False,
    name: str | None = None,
) -> Graph:
    """A graph from a NetworkX (Multi)(Di)Graph.

    Nodes are numbered in ``nodelist`` order (default: ``G``'s node order);
    their labels become ``original_ids`` unless they already are ``0..n-1`` in
    order. ``weighted=None``: weighted iff some edge has the ``weight``
    attribute (missing ones count 1). Undirected graphs are stored both ways;
    parallel edges of multigraphs are kept (or dropped by ``drop_duplicates``).
    """
    nodes = list(G.nodes) if nodelist is None else list(nodelist)
    index = {v: i for i, v in enumerate(nodes)}
    if len(index) != len(nodes):
        raise InputError("nodelist has repeated nodes")
    edges = list(G.edges(data=True))
    if weighted is None:
        weighted = weight is not None and any(weight in d for _, _, d in edges)
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
    original = None
    if nodes != list(range(len(nodes))):
        if all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in nodes):
            original = np.array(nodes, dtype=np.int64)
        elif all(isinstance(v, str) for v in nodes):
            original = np.array(nodes, dtype=str)
        else:
            original = np.empty(len(nodes), dtype=object)  # in memory only (a store refuses it)
            original[:] = nodes
    b = CSRBuilder(n=len(nodes) if original is None else None, directed=G.is_directed(),
                   weighted=bool(weighted), drop_self_loops=drop_self_loops,
                   drop_duplicates=drop_duplicates, sort_neighbors=sort_neighbors,
                   name=name or (G.name if getattr(G, "name", "") else "graph"), source="networkx",
                   original_ids=original)
    b.meta["format"] = "networkx"
    b.add(src, dst, w)
    return _finish(b, store, overwrite)


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
