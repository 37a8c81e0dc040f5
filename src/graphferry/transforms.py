"""Graph transforms that algorithms share, each computed once per graph and cached on it.

Several algorithms read a graph through a derived view: triangle counting and
LCC the degree-ordered DAG, CDLP the simple graph, the spanning forest and
colouring the symmetrised graph, HyPar induced subgraphs and contractions.
They live here, below ``algorithms/``, so no algorithm imports another's file:

* :func:`simple_graph`: self-loops dropped, repeated edges kept once, rows sorted;
* :func:`degree_ordered_dag`: the undirected simple view relabelled by
  ``(degree, id)`` and oriented upwards (Schank's ordering, GAPBS ``tc``);
* :func:`simple_weighted_graph`: the same keeping the least weight per arc;
* :func:`symmetrize`: the undirected simple view keeping, per vertex pair, the
  smallest weight of the arcs between them (what ``scipy``'s spanning tree
  reads from a symmetrised matrix);
* :func:`induced_subgraph`: the edges among a vertex subset, renumbered;
* :func:`contract`: the quotient graph of a labelling (HyPar's merge step),
  self-edges removed and parallel edges merged;
* :func:`relabel` and :func:`hub_sorted`: the graph renumbered, HyTGraph's hub sorting
  (a preprocessing step kept in a store; ``graphferry convert --hub-sort``).

The first four are cached on the graph (one computation per graph object and
arguments, dropped with the graph); a :class:`~graphferry.runtime.LoadedGraph`
caches on the graph it holds.

Example:
    >>> import numpy as np
    >>> from graphferry import Graph
    >>> from graphferry.transforms import contract, simple_graph, symmetrize
    >>> g = Graph.from_edges([0, 0, 1, 1, 2], [1, 1, 2, 1, 0], [5, 3, 2, 9, 4], n=3)
    >>> s = simple_graph(g, undirected=True)
    >>> s.directed, s.offsets.tolist(), s.indices.tolist()
    (False, [0, 2, 4, 6], [1, 2, 0, 2, 0, 1])
    >>> simple_graph(g, undirected=True) is s          # cached
    True
    >>> u = symmetrize(g)
    >>> u.weights.tolist()                           # {0,1}: min(5, 3); {0,2}: 4; {1,2}: 2
    [3.0, 4.0, 3.0, 2.0, 4.0, 2.0]
    >>> q, w = contract(u, np.array([0, 0, 1]))       # merge 0 and 1: the edge {0,1} vanishes
    >>> q.n, q.indices.tolist(), q.weights.tolist()
    (2, [1, 0], [2.0, 2.0])
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from . import host_ops
from .errors import CompilerError
from .graph import Graph, index_dtype_for, offsets_from_degrees

__all__ = ["unique_pairs", "simple_graph", "is_simple", "on_handle", "simple_weighted_graph", "degree_ordered_dag", "symmetrize", "induced_subgraph",
           "contract", "cached", "relabel", "hub_order", "hub_sorted", "HUB_FRACTION"]

_KEY_LIMIT = 3_000_000_000  # n * n + n fits in int64 below this: pairs sort as one int64 key


def _base(graph: Any) -> Graph:
    """The plain Graph behind ``graph`` (a LoadedGraph holds one in ``.graph``)."""
    inner = getattr(graph, "graph", None)
    return inner if isinstance(inner, Graph) else graph


def cached(graph: Any, key: tuple, build: Callable[[], Any]) -> Any:
    """``build()`` once per graph object and ``key``; kept in the graph's private cache."""
    g = _base(graph)
    store = g.__dict__.setdefault("_derived", {})
    if key not in store:
        store[key] = build()
    return store[key]


def on_handle(graph: Any, derived: Graph) -> Any:
    """``graph`` itself (a loaded handle keeps its placement, engines and compiled programs)
    when ``derived`` is the graph it holds, else ``derived``."""
    return graph if derived is _base(graph) else derived


def _pair_order(a: np.ndarray, b: np.ndarray, n: int) -> np.ndarray | None:
    """Permutation sorting the pairs ``(a, b)``; None when they are sorted already."""
    if len(a) < 2:
        return None
    if n <= _KEY_LIMIT:
        key = a * np.int64(n) + b
        if bool(np.all(key[1:] >= key[:-1])):  # CSR rows in order: the common case
            return None
        return np.argsort(key)
    return np.lexsort((b, a))


def unique_pairs(a: np.ndarray, b: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct pairs ``(a, b)`` in ascending order, and how often each occurred.

    Sorting (not ``np.unique``, whose hashing path is many times slower than a
    sort on numpy 2.4) and skipped when the pairs come sorted.
    """
    order = _pair_order(a, b, n)
    if order is not None:
        a, b = a[order], b[order]
    if len(a) == 0:
        return a, b, np.zeros(0, np.int64)
    starts = np.flatnonzero(np.r_[True, (a[1:] != a[:-1]) | (b[1:] != b[:-1])])
    return a[starts], b[starts], np.diff(np.r_[starts, len(a)])


def _csr(src: np.ndarray, dst: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Offsets and indices of pairs already sorted by source."""
    offsets = offsets_from_degrees(np.bincount(src, minlength=n) if len(src) else np.zeros(n, np.int64))
    return offsets, dst.astype(index_dtype_for(n))


def simple_graph(graph: Graph, *, undirected: bool) -> Graph:
    """The simple view of ``graph``: self-loops dropped, repeated edges kept once, rows sorted.

    With ``undirected=True`` directions are ignored (each edge stored both ways,
    result ``directed=False``); otherwise the result keeps ``graph.directed``.
    Rows come out sorted by neighbour id, so its transpose's rows are sorted too
    (``Graph.transpose`` keeps source order). ``original_ids`` are kept. A graph that is
    already simple (:func:`is_simple`) is its own view, weights and all. Cached.
    """
    return cached(graph, ("simple", bool(undirected)), lambda: _simple_graph(_base(graph), undirected))


def is_simple(graph: Any, *, undirected: bool) -> bool:
    """True when ``graph`` is its own simple view: rows strictly increasing, no self-loop,
    and stored both ways when ``undirected`` (a generator's or a store's graph usually is).
    One parallel pass in C++; False where the host helpers cannot be built. Cached."""
    g = _base(graph)

    def check() -> bool:
        if undirected and g.directed:
            return False
        try:
            return host_ops.rows_simple(g.offsets, g.indices)
        except CompilerError:  # no C++ compiler: the general path builds the view
            return False
    return cached(g, ("is_simple", bool(undirected)), check)


def _simple_graph(graph: Graph, undirected: bool) -> Graph:
    if is_simple(graph, undirected=undirected):
        # its own simple view (weights kept: programs that ignore weights don't read them):
        # no m-sized pass, and a loaded handle of it serves the derived runs too (on_handle)
        return graph
    symmetric = undirected or not graph.directed
    try:  # each row sorted, deduplicated and self-loop-free in C++, in parallel (merged with the transpose's
        # rows for a directed graph's undirected view): no edge list and no argsort of its pairs (0.5 s of a
        # cold NetworkX k_truss call on a 1.2 M-edge graph whose rows come in NetworkX's order, 2 cores)
        ones = np.ones(graph.m, np.float32)
        merged = host_ops.unordered_transpose(graph.offsets, graph.indices) if undirected and graph.directed \
            else None
        offsets, indices, _ = host_ops.simple_weighted(graph.offsets, graph.indices, ones,
                                                       *((*merged, ones) if merged is not None else ()))
        return Graph(offsets, indices, None, directed=not symmetric, original_ids=graph.original_ids,
                     name=f"{graph.name}-simple")
    except CompilerError:  # no C++ compiler: the numpy path
        pass
    n = graph.n
    src, dst = graph.edges()
    keep = src != dst
    src, dst = src[keep], dst[keep]
    if undirected and graph.directed:
        src, dst = np.concatenate([src, dst]), np.concatenate([dst, src])
    src, dst, _ = unique_pairs(src, dst, n)
    offsets, indices = _csr(src, dst, n)
    return Graph(offsets, indices, None, directed=not symmetric,
                 original_ids=graph.original_ids, name=f"{graph.name}-simple")


def degree_ordered_dag(graph: Graph, *, arc_counts: bool = False) -> tuple[Graph, np.ndarray, np.ndarray]:
    """The undirected simple view relabelled by ``(degree, id)`` and oriented upwards.

    Returns ``(dag, order, degree)``: in the DAG vertex ``r`` is the ``r``-th
    vertex in that order and row ``r`` holds its higher-labelled neighbours,
    sorted; ``order[r]`` is the input's internal id of label ``r``; ``degree``
    is each input vertex's simple undirected degree ``|N(v)|``. With
    ``arc_counts`` each DAG edge ``{x, y}`` carries as weight how many of the
    arcs ``x -> y``, ``y -> x`` the input has (1 or 2; always 2 when undirected).
    Cached.
    """
    return cached(graph, ("dag", bool(arc_counts)), lambda: _degree_ordered_dag(_base(graph), arc_counts))


def device_degree_ordered_dag(graph: Graph, backend: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """``backend``'s build (:meth:`Backend.degree_ordered_dag`: ``(offsets, indices, order)``) of
    undirected simple ``graph``'s degree-ordered DAG, where one pays: ``backend`` is a device, and
    the graph has arcs enough for the build's fixed costs and few enough for its memory
    (:meth:`Backend.dag_pays`). None otherwise (or without a backend): the host builds it.
    Triangle counting and HyPar's triangle application both decide by this."""
    if (backend is None or not backend.is_device or graph.directed or not backend.dag_pays(graph.m)
            or not is_simple(graph, undirected=True)):
        return None
    return backend.degree_ordered_dag(graph.offsets, graph.indices)


def _degree_ordered_dag(graph: Graph, arc_counts: bool) -> tuple[Graph, np.ndarray, np.ndarray]:
    n = graph.n
    if not graph.directed:
        # the same DAG built row by row in C++ (no edge list, no argsort of the pairs: 1.2 s of a
        # cold NetworkX clustering call on a 1.2 M-edge graph went to the two argsorts below);
        # every edge of an undirected graph has both arcs, so its count is 2
        try:
            offsets, indices, order, degree = host_ops.degree_ordered_dag(
                graph.offsets, graph.indices, simple=is_simple(graph, undirected=True))
        except CompilerError:  # no C++ compiler: the numpy path
            pass
        else:
            weights = np.full(len(indices), 2.0, np.float32) if arc_counts else None
            return Graph(offsets, indices, weights, directed=True, name=f"{graph.name}-dag"), order, degree
    src, dst = graph.edges()
    keep = src != dst
    if not graph.directed:
        # stored both ways: the lo < hi half names every edge, already in sorted order
        keep &= src < dst
        lo, hi, _ = unique_pairs(src[keep], dst[keep], n)
        mult = np.full(len(lo), 2, np.int64)
    else:
        src, dst = src[keep], dst[keep]
        if arc_counts:
            src, dst, _ = unique_pairs(src, dst, n)      # distinct arcs
        lo, hi, mult = unique_pairs(np.minimum(src, dst), np.maximum(src, dst), n)
    degree = np.bincount(lo, minlength=n) + np.bincount(hi, minlength=n) if len(lo) else np.zeros(n, np.int64)
    order = np.argsort(degree, kind="stable")           # by degree, then id
    rank = np.empty(n, np.int64)
    rank[order] = np.arange(n)
    rlo, rhi = rank[lo], rank[hi]
    rs, rd = np.minimum(rlo, rhi), np.maximum(rlo, rhi)
    perm = _pair_order(rs, rd, n)
    if perm is not None:
        rs, rd, mult = rs[perm], rd[perm], mult[perm]
    offsets, indices = _csr(rs, rd, n)
    weights = mult.astype(np.float32) if arc_counts else None
    dag = Graph(offsets, indices, weights, directed=True, name=f"{graph.name}-dag")
    return dag, order, degree.astype(np.int64)


def _min_weight_pairs(a: np.ndarray, b: np.ndarray, w: np.ndarray, n: int):
    """Distinct pairs ``(a, b)`` sorted, each with the smallest of its weights."""
    order = np.lexsort((w, b, a))          # by pair, lightest first
    a, b, w = a[order], b[order], w[order]
    if len(a) == 0:
        return a, b, w
    first = np.flatnonzero(np.r_[True, (a[1:] != a[:-1]) | (b[1:] != b[:-1])])
    return a[first], b[first], w[first]


def simple_weighted_graph(graph: Graph, *, undirected: bool) -> Graph:
    """:func:`simple_graph` keeping weights: each arc (each edge ``{u, v}`` when ``undirected``)
    weighs the least of the input's arcs it stands for.

    An unweighted graph gives :func:`simple_graph`'s result. Cached.
    """
    if _base(graph).weights is None:
        return simple_graph(graph, undirected=undirected)
    return cached(graph, ("simple_weighted", bool(undirected)),
                  lambda: _simple_weighted_graph(_base(graph), undirected))


def _simple_weighted_graph(graph: Graph, undirected: bool) -> Graph:
    if is_simple(graph, undirected=undirected):  # no parallel arcs: each weighs what it weighs
        return graph
    try:  # each row sorted, deduplicated and self-loop-free in C++, in parallel: no edge list
        # (Kronecker 18 with its repeated edges, undirected: 2.6 s by the numpy path below)
        merged = graph.transpose() if undirected and graph.directed else None
        offsets, indices, w = host_ops.simple_weighted(
            graph.offsets, graph.indices, graph.weights,
            *((merged.offsets, merged.indices, merged.weights) if merged is not None else ()))
        return Graph(offsets, indices, w, directed=graph.directed and not undirected,
                     original_ids=graph.original_ids, name=f"{graph.name}-simple")
    except CompilerError:  # no C++ compiler: the numpy path
        pass
    n = graph.n
    src, dst = graph.edges()
    w = graph.weights
    keep = src != dst
    src, dst, w = src[keep], dst[keep], w[keep]
    if undirected or not graph.directed:
        lo, hi, w = _min_weight_pairs(np.minimum(src, dst), np.maximum(src, dst), w, n)
        src, dst, w = np.concatenate([lo, hi]), np.concatenate([hi, lo]), np.concatenate([w, w])
        order = np.lexsort((dst, src))
        src, dst, w = src[order], dst[order], w[order]
    else:
        src, dst, w = _min_weight_pairs(src, dst, w, n)
    offsets, indices = _csr(src, dst, n)
    return Graph(offsets, indices, w.astype(np.float32), directed=graph.directed and not undirected,
                 original_ids=graph.original_ids, name=f"{graph.name}-simple")


def symmetrize(graph: Graph) -> Graph:
    """The undirected simple view; each edge ``{u, v}`` weighs the least of the arcs between u and v.

    Self-loops are dropped. An unweighted graph gives an unweighted result
    (:func:`simple_graph` with ``undirected=True``). ``original_ids`` are kept. Cached.
    """
    return simple_weighted_graph(graph, undirected=True)


def induced_subgraph(graph: Graph, vertices: np.ndarray) -> Graph:
    """The edges of ``graph`` between ``vertices`` (sorted distinct internal ids), renumbered 0..k-1.

    Vertex ``i`` of the result is ``vertices[i]`` of ``graph`` (also kept as
    the result's ``meta["parent_ids"]``); weights and direction are kept. Not cached
    (HyPar samples fresh subsets).
    """
    g = _base(graph)
    vertices = np.asarray(vertices, dtype=np.int64)
    new_id = np.full(g.n, -1, np.int64)
    new_id[vertices] = np.arange(len(vertices))
    k = len(vertices)
    # the kept rows' arcs filtered and renumbered in C++, in parallel: no int64 edge list
    # (rows stay sorted: vertices ascend, so new ids keep the columns' order)
    offsets, indices, w = host_ops.subgraph(g.offsets, g.indices, g.weights, vertices, new_id)
    sub = Graph(offsets, indices.astype(index_dtype_for(k), copy=False), w, directed=g.directed,
                name=f"{g.name}-induced")
    sub.meta["parent_ids"] = vertices
    return sub


def _groups(labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(labels, return_inverse=True)`` (inverse as int64), in O(n) without a sort when
    every label is a vertex carrying its own label (a representative: components, communities)."""
    n = len(labels)
    if n and labels.dtype.kind in "iu" and 0 <= labels.min() and labels.max() < n:
        root = labels == np.arange(n)
        if bool(root[labels].all()):                      # every label is a vertex labelled by itself
            rank = np.cumsum(root, dtype=np.int64) - 1
            return np.flatnonzero(root), rank[labels]
    groups, group_of = np.unique(labels, return_inverse=True)
    return groups, group_of.astype(np.int64)


def contract(graph: Graph, labels: np.ndarray, *, representatives: bool = False, bounds: np.ndarray | None = None):
    """The quotient graph of ``labels`` (one label per vertex; any integers).

    Returns ``(quotient, groups)``: vertex ``i`` of the quotient is the group of
    vertices labelled ``groups[i]`` (ascending distinct labels); an edge joins
    two groups when some edge of ``graph`` joins their members. Self-edges
    (edges inside a group) are removed and parallel edges merged, keeping the
    least weight (HyPar's ``merge_parts``). Direction is kept. With
    ``representatives``, also the position (in ``graph``'s CSR order) of the
    arc each quotient arc stands for: the lightest, then the first. ``bounds`` (ascending vertex ids
    from 0 to n, rows of ``graph`` sorted): ranges inside which every arc joins one group (HyPar's
    blocks after their parts' components), so only the arcs between ranges are read.
    """
    g = _base(graph)
    groups, group_of = _groups(np.asarray(labels))
    k = len(groups)
    # in parallel C++ over the CSR: the arcs between groups bucketed by their source's group, each
    # bucket sorted by (target group, weight, position) and deduplicated (no edge list)
    offsets, indices, rep = host_ops.contract(g.offsets, g.indices, g.weights, group_of, k, bounds)
    indices = indices.astype(index_dtype_for(k), copy=False)
    weights = None if g.weights is None else g.weights[rep].astype(np.float32)
    quotient = Graph(offsets, indices, weights, directed=g.directed, name=f"{g.name}-contracted")
    return (quotient, groups, rep) if representatives else (quotient, groups)


# ------------------------------------------------------------------ renumbering
#: HyTGraph's share of vertices gathered at the front by hub sorting ("the top 8% important vertices")
HUB_FRACTION = 0.08


def relabel(graph: Graph, order: np.ndarray, *, name: str | None = None) -> Graph:
    """``graph`` renumbered: vertex ``order[i]`` becomes vertex ``i``.

    Rows come out sorted by neighbour, weights follow their arcs, and the direction is kept.
    ``original_ids`` maps each new id to the input's id (the old graph's ``original_ids``
    where it had them), so results read in the input's ids are the same as before. Not
    cached: the result is a new graph to keep (a store, say), not a view.

    Example (a path 0-1-2 numbered backwards):
        >>> g = Graph.from_edges([0, 1], [1, 2], n=3, directed=False)
        >>> r = relabel(g, np.array([2, 1, 0]))
        >>> r.offsets.tolist(), r.indices.tolist(), r.original_ids.tolist()
        ([0, 1, 3, 4], [1, 0, 2, 1], [2, 1, 0])
    """
    from .io.csr_passes import row_blocks, sort_rows_block

    g = _base(graph)
    n = g.n
    order = np.asarray(order, dtype=np.int64)
    if order.shape != (n,) or (n and (order.min() < 0 or order.max() >= n
                                      or np.count_nonzero(np.bincount(order, minlength=n)) != n)):
        raise ValueError(f"relabel: order must be a permutation of the {n} vertices")
    rank = host_ops.unpermute(np.arange(n, dtype=np.int64), order)           # rank[order[i]] = i
    offsets, indices, weights = host_ops.gather_rows(g.offsets, g.indices, g.weights, order)
    indices = rank[indices].astype(index_dtype_for(n), copy=False)
    # every row's columns were renumbered: sort each row again, a block of rows at a time (a
    # row's parallel arcs may come out in any order, the same every time: restoring theirs took
    # 6.6 of 7.9 s at Kronecker 20)
    for lo, hi in row_blocks(offsets, 1 << 24):
        a, b = int(offsets[lo]), int(offsets[hi])
        _, cols, w = sort_rows_block(offsets[lo:hi + 1] - a, indices[a:b],
                                     None if weights is None else weights[a:b], drop_duplicates=False, stable=False)
        indices[a:b] = cols
        if weights is not None:
            weights[a:b] = w
    ids = order if g.original_ids is None else np.asarray(g.original_ids)[order]
    meta = {k: v for k, v in g.meta.items() if k not in ("store", "manifest")}
    return Graph(offsets, indices, weights, directed=g.directed, original_ids=ids,
                 name=name or g.name, meta=meta)


def hub_order(graph: Graph, fraction: float = HUB_FRACTION) -> np.ndarray:
    """HyTGraph's hub sorting as an order (new id -> vertex): the ``fraction`` of the vertices
    with the highest importance first, most important first (ties by id), then the others in
    their own order. HyTGraph's importance (sec. VI-B, formula 4):

        H(v) = D_o(v) * D_i(v) / (D_omax * D_imax)

    (out- and in-degree over their maxima; for an undirected graph both are the degree).
    Only vertices with some importance are gathered: a vertex with no in- or out-edge stays
    in place.

    Example (vertex 2 is the hub of a star; with a third of the vertices gathered):
        >>> g = Graph.from_edges([2, 2, 2, 0], [0, 1, 3, 1], n=5, directed=False)
        >>> hub_order(g, fraction=1 / 3).tolist()
        [2, 0, 1, 3, 4]
    """
    g = _base(graph)
    if not 0.0 <= fraction <= 1.0:
        raise ValueError(f"hub_order: fraction must lie in [0, 1], got {fraction}")
    n = g.n
    out_degree = np.diff(g.offsets)
    in_degree = np.bincount(g.indices, minlength=n) if g.directed else out_degree
    importance = out_degree.astype(np.float64) * in_degree     # H(v) times D_omax * D_imax: the same order
    k = min(int(np.ceil(fraction * n)), int(np.count_nonzero(importance)))
    if k == 0:
        return np.arange(n, dtype=np.int64)
    hubs = np.lexsort((np.arange(n), -importance))[:k]          # most important first, then by id
    rest = np.ones(n, dtype=bool)
    rest[hubs] = False
    return np.concatenate([hubs.astype(np.int64), np.flatnonzero(rest)])


def hub_sorted(graph: Graph, fraction: float = HUB_FRACTION) -> Graph:
    """``graph`` hub-sorted (:func:`hub_order`, :func:`relabel`), with ``meta["vertex_order"]``
    saying so; a store written from it keeps both. HyTGraph sorts once when it prepares the
    data, and every later run reads the sorted graph. Whether it pays depends on the engine
    and the graph: measured on a GPU in ``bench/NOTES-engines.md``, so it is an option, off by
    default.

    Example:
        >>> g = Graph.from_edges([2, 2, 2, 0], [0, 1, 3, 1], n=5, directed=False)
        >>> h = hub_sorted(g, fraction=0.2)
        >>> h.original_ids.tolist(), h.meta["vertex_order"]
        ([2, 0, 1, 3, 4], {'kind': 'hubs', 'fraction': 0.2})
    """
    out = relabel(graph, hub_order(graph, fraction))
    out.meta["vertex_order"] = {"kind": "hubs", "fraction": float(fraction)}
    return out
