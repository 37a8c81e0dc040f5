"""Shortest-path machinery shared by the shortest-path functions: NetworkX's orders rebuilt from distances.

graphferry computes distances (BFS levels, SSSP); NetworkX's answers also
carry orders and, where shortest paths tie, a choice of path. Both follow from
the distances:

* **Dijkstra** (:func:`dijkstra_order`). NetworkX pops ``(distance, counter, node)``
  from a heap, so nodes are finalised in order of distance, then of the counter of
  their last push. A node's last push comes from the first finalised node ``p``
  that reaches it at its final distance (later ones only tie), during ``p``'s scan
  of its neighbours: the counter orders such pushes by (``p``'s finalisation rank,
  the node's position in ``p``'s adjacency); sources come first, in the order
  given. That defines the order recursively through the parents' ranks;
  :func:`dijkstra_order` finds its fixed point by sorting again with the ranks of
  the previous sort (each sort fixes one more level of ties; a few suffice, and
  long chains of zero-weight ties fall back to replaying the heap). ``p`` is the
  node's parent on NetworkX's path (NetworkX 3.6 builds ``paths`` in the order
  of ``dist``, from these parents).
* **BFS** (:func:`.running.bfs_layers`): the discovery order and first discoverer.
* **Bidirectional BFS** (:func:`bidirectional`): NetworkX's search replayed level
  by level on the CSR, touching only the rows it reaches.

Example:
    >>> import numpy as np
    >>> from graphferry import Graph
    >>> g = Graph.from_edges(np.array([0, 0, 1, 2]), np.array([1, 2, 3, 3]), n=4)
    >>> dist = np.array([0.0, 1.0, 1.0, 2.0])
    >>> order, parent = dijkstra_order(g, np.ones(4), dist, np.array([0]))
    >>> order.tolist(), parent.tolist()     # 3 is reached through 1, scanned first
    ([0, 1, 2, 3], [-1, 0, 0, 1])
"""

from __future__ import annotations

import heapq

import numpy as np

from ..graph import Graph

__all__ = ["dijkstra_order", "bidirectional", "paths_from_parents"]

#: sorts tried before replaying NetworkX's heap from the distances
MAX_SORTS = 32


def _arcs(csr: Graph):
    src = np.repeat(np.arange(csr.n, dtype=np.int64), csr.out_degree)
    dst = csr.indices.astype(np.int64)
    pos = np.arange(csr.m, dtype=np.int64) - csr.offsets[src]
    return src, dst, pos


def dijkstra_order(csr: Graph, arc_weights: np.ndarray, dist: np.ndarray, sources: np.ndarray,
                   cutoff: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """NetworkX's Dijkstra on ``csr`` given the distances: ``(finalised order, parent)``.

    ``dist``: float64 distances (``inf`` unreached, already cut at ``cutoff``);
    ``sources``: vertex ids in the order NetworkX pushes them (duplicates allowed).
    ``parent[v]``: the node before ``v`` on NetworkX's path (-1 for sources and the
    unreached).
    """
    n = csr.n
    reached = np.isfinite(dist)
    _, first = np.unique(sources, return_index=True)
    src_order = sources[np.sort(first)]                 # sources by first occurrence
    is_source = np.zeros(n, bool)
    is_source[src_order] = True
    src, dst, pos = _arcs(csr)
    cand = dist[src] + arc_weights
    ok = reached[src] & (src != dst) & ~is_source[dst]
    if cutoff is not None:
        ok &= cand <= cutoff
    tight = ok & (cand == dist[dst])
    span = int(csr.out_degree.max()) + 1 if n else 1

    def min_per_target(mask, rank):
        """Per vertex: the least (rank of source, position) over arcs in ``mask`` (-1 where none)."""
        key = rank[src[mask]] * span + pos[mask]
        d = dst[mask]
        out = np.full(n, np.iinfo(np.int64).max, np.int64)
        np.minimum.at(out, d, key)
        return out

    ids = np.flatnonzero(reached)
    source_slot = np.zeros(n, np.int64)
    source_slot[src_order] = np.arange(len(src_order))
    rank = np.zeros(n, np.int64)
    rank[ids[np.argsort(dist[ids], kind="stable")]] = np.arange(len(ids))
    order = None
    for _ in range(MAX_SORTS):
        pkey = min_per_target(tight, rank)
        second = np.where(is_source, source_slot, pkey)
        new_order = ids[np.lexsort((second[ids], ~is_source[ids], dist[ids]))]
        new_rank = rank.copy()
        new_rank[new_order] = np.arange(len(ids))
        if order is not None and np.array_equal(new_order, order):
            break
        order, rank = new_order, new_rank
    else:
        order = _replay(csr, arc_weights, dist, src_order, cutoff)
        rank[order] = np.arange(len(order))
    pkey = min_per_target(tight, rank)
    parent = np.full(n, -1, np.int64)
    has = ~is_source & reached
    if np.any(pkey[has] == np.iinfo(np.int64).max):
        # a distance no arc sums to exactly (rounding): NetworkX's own sums decide, so it runs
        raise NotImplementedError("graphferry's distances do not reproduce NetworkX's sums exactly here")
    parent[has] = order[pkey[has] // span]
    return order, parent


def _replay(csr: Graph, arc_weights, dist, sources, cutoff) -> np.ndarray:
    """NetworkX's heap, replayed in Python (for long zero-weight tie chains only)."""
    heap = [(0.0, c, int(s)) for c, s in enumerate(sources)]
    c = len(heap)
    seen = {int(s): 0.0 for s in sources}
    done, order = set(), []
    offsets, indices = csr.offsets, csr.indices
    while heap:
        d, _, v = heapq.heappop(heap)
        if v in done:
            continue
        done.add(v)
        order.append(v)
        for e in range(int(offsets[v]), int(offsets[v + 1])):
            u = int(indices[e])
            vu = d + float(arc_weights[e])
            if cutoff is not None and vu > cutoff:
                continue
            if u not in done and (u not in seen or vu < seen[u]):
                seen[u] = vu
                heapq.heappush(heap, (vu, c, u))
                c += 1
    return np.array(order, np.int64)


def paths_from_parents(nodes: list, order: np.ndarray, parent: np.ndarray, keys: np.ndarray | None = None,
                       reverse: bool = False) -> dict:
    """``{node: path}`` built along ``order`` (parents come first); keys in ``keys`` order (default ``order``).

    ``reverse``: paths run to the root instead (single-target searches).
    """
    paths: dict = {}
    by_id: list = [None] * len(nodes)
    for v, p in zip(order.tolist(), parent[order].tolist()):
        if p < 0:
            by_id[v] = [nodes[v]]
        elif reverse:
            by_id[v] = [nodes[v]] + by_id[p]
        else:
            by_id[v] = by_id[p] + [nodes[v]]
    for v in (order if keys is None else keys).tolist():
        paths[nodes[v]] = by_id[v]
    return paths


def _scan(csr: Graph, layer: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    starts, ends = csr.offsets[layer], csr.offsets[layer + 1]
    lengths = ends - starts
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    where = np.arange(total) + np.repeat(starts - np.cumsum(lengths) + lengths, lengths)
    return csr.indices[where].astype(np.int64), np.repeat(layer, lengths)


def bidirectional(forward: Graph, backward: Graph, s: int, t: int) -> list[int] | None:
    """NetworkX's ``bidirectional_shortest_path`` on vertex ids (None: no path), touching only what it reaches.

    ``backward``: the rows NetworkX's reverse search reads (``G.pred``; the same
    CSR for an undirected graph). Each level expands the smaller fringe, scans
    its rows in order, records each new vertex's first discoverer and stops at
    the first vertex the other side has seen, as NetworkX does.
    """
    if s == t:
        return [s]
    n = forward.n
    pred = np.full(n, -2, np.int64)
    succ = np.full(n, -2, np.int64)
    pred[s], succ[t] = -1, -1
    fringes = [np.array([s], np.int64), np.array([t], np.int64)]
    meet = None
    while len(fringes[0]) and len(fringes[1]):
        side = 0 if len(fringes[0]) <= len(fringes[1]) else 1
        mine, theirs = (pred, succ) if side == 0 else (succ, pred)
        children, owners = _scan(forward if side == 0 else backward, fringes[side])
        hits = np.flatnonzero(theirs[children] != -2)
        upto = int(hits[0]) + 1 if len(hits) else len(children)
        c, o = children[:upto], owners[:upto]
        new = mine[c] == -2
        c, o = c[new], o[new]
        _, first = np.unique(c, return_index=True)
        first.sort()
        mine[c[first]] = o[first]
        fringes[side] = c[first]
        if len(hits):
            meet = int(children[hits[0]])
            break
    if meet is None:
        return None
    path = []
    w = meet
    while w >= 0:
        path.append(w)
        w = int(pred[w])
    path.reverse()
    w = int(succ[meet])
    while w >= 0:
        path.append(w)
        w = int(succ[w])
    return path
