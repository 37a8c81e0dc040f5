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

import ctypes
import gc
import heapq
import logging
import math
from contextlib import contextmanager
from functools import lru_cache

import numpy as np

from ..graph import Graph

__all__ = ["dijkstra_order", "bidirectional", "paths_from_parents", "collector_paused", "bfs_order"]

log = logging.getLogger(__name__)

#: sorts tried before replaying NetworkX's heap from the distances
MAX_SORTS = 32


def _arcs(csr: Graph):
    src = np.repeat(np.arange(csr.n, dtype=np.int64), csr.out_degree)
    dst = csr.indices.astype(np.int64)
    pos = np.arange(csr.m, dtype=np.int64) - csr.offsets[src]
    return src, dst, pos


ORDERS_SOURCE = r"""
#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

// NetworkX's Dijkstra order given the distances, when every tight arc weighs more than zero: a
// vertex's parents then lie at smaller distances, so sweeping the groups of equal distance in
// ascending order, every parent is ranked before its children's group is sorted. A group is
// sorted by (source slot) for sources, then by the least (parent's rank, position in the
// parent's row) over its tight arcs: the counter of the push NetworkX's heap pops.
// `by_dist`: the reached vertices sorted by distance. Returns the count ranked, or -1 when some
// tight arc weighs zero or a reached vertex has no tight arc from an earlier group (parents
// inside a group, or a distance no arc sums to): the caller's sorts decide.
extern "C" __attribute__((visibility("default")))
int64_t gf_dijkstra_sweep(int64_t n, const int64_t *offsets, const int32_t *idx32, const int64_t *idx64,
                          const double *w, const double *dist, double cutoff, const int64_t *by_dist,
                          int64_t reached, const int64_t *source_slot, int64_t *order, int64_t *parent) {
    const int64_t INF = INT64_MAX;
    std::vector<int64_t> key(n, INF), from(n, -1);
    std::vector<std::pair<int64_t, int64_t>> group;
    int64_t r = 0, seen = 0;
    for (int64_t a = 0; a < reached;) {
        int64_t b = a + 1;
        while (b < reached && dist[by_dist[b]] == dist[by_dist[a]]) ++b;
        group.clear();
        for (int64_t k = a; k < b; ++k) {
            const int64_t v = by_dist[k];
            if (source_slot[v] >= 0) group.emplace_back(source_slot[v] - INF, v);   // sources first
            else if (key[v] == INF) return -1;   // a parent in its own group (zero weights) or none: numpy decides
            else group.emplace_back(key[v], v);
        }
        std::sort(group.begin(), group.end());
        for (const auto &kv : group) {
            const int64_t p = kv.second;
            order[r] = p;
            parent[p] = source_slot[p] >= 0 ? -1 : from[p];
            const double dp = dist[p];
            for (int64_t e = offsets[p]; e < offsets[p + 1]; ++e) {
                const int64_t v = idx32 ? idx32[e] : idx64[e];
                if (v == p || source_slot[v] >= 0) continue;
                const double cand = dp + w[e];
                if (cand > cutoff || cand != dist[v]) continue;
                if (w[e] == 0.0) return -1;
                // the first tight arc seen is the least (rank of p, position in p's row): ranks and
                // positions only grow, so a count of sightings orders the keys as those pairs would
                if (key[v] == INF) { key[v] = seen++; from[v] = p; }
            }
            ++r;
        }
        a = b;
    }
    return r;
}

// NetworkX's BFS discovery order from known levels: layer by layer, each layer's rows read in
// order, a vertex of the next level joins at its first sighting, its parent that row's vertex
// (what _single_shortest_path_length and bfs_edges visit). `order` starts with the first layer's
// `n_first` vertices; `layer_end[d]` is where layer d ends. Returns the layers written.
extern "C" __attribute__((visibility("default")))
int64_t gf_bfs_order(int64_t n, const int64_t *offsets, const int32_t *idx32, const int64_t *idx64,
                     const int64_t *levels, int64_t n_first, int64_t depth_limit,
                     int64_t *order, int64_t *parent, int64_t *layer_end) {
    std::vector<char> placed(n, 0);
    for (int64_t k = 0; k < n_first; ++k) { placed[order[k]] = 1; parent[k] = -1; }
    int64_t a = 0, b = n_first, r = n_first, layers = 0;
    for (int64_t d = 0; a < b; ++d) {
        layer_end[layers++] = b;
        if (d >= depth_limit) break;
        for (int64_t k = a; k < b; ++k) {
            const int64_t p = order[k];
            for (int64_t e = offsets[p]; e < offsets[p + 1]; ++e) {
                const int64_t v = idx32 ? idx32[e] : idx64[e];
                if (levels[v] == d + 1 && !placed[v]) { placed[v] = 1; order[r] = v; parent[r] = p; ++r; }
            }
        }
        a = b;
        b = r;
    }
    return layers;
}
"""


@lru_cache(maxsize=1)
def _sweep():
    """The compiled sweep (None without a compiler: the numpy fixed point below does it)."""
    try:
        from ..host_ops.compiler import compile_library

        fn = compile_library(ORDERS_SOURCE, label="nx_orders").gf_dijkstra_sweep
    except Exception as exc:   # no compiler: the vectorised fixed point
        log.info("Dijkstra's order by numpy (compiled sweep unavailable: %s)", exc)
        return None
    fn.restype = ctypes.c_int64
    fn.argtypes = [ctypes.c_int64] + [ctypes.c_void_p] * 5 + [ctypes.c_double] + [ctypes.c_void_p, ctypes.c_int64] \
        + [ctypes.c_void_p] * 3
    return fn


@lru_cache(maxsize=1)
def _bfs_order_fn():
    if _sweep() is None:
        return None
    from ..host_ops.compiler import compile_library

    fn = compile_library(ORDERS_SOURCE, label="nx_orders").gf_bfs_order
    fn.restype = ctypes.c_int64
    fn.argtypes = [ctypes.c_int64] + [ctypes.c_void_p] * 4 + [ctypes.c_int64, ctypes.c_int64] \
        + [ctypes.c_void_p] * 3
    return fn


def bfs_order(csr: Graph, first: np.ndarray, levels: np.ndarray, depth_limit: float
              ) -> list[tuple[np.ndarray, np.ndarray]] | None:
    """NetworkX's BFS layers ``[(layer, parents), ...]`` from graphferry's levels by one compiled pass
    (None without a compiler). Sorting each layer's sightings for first occurrences in numpy cost a
    third of a 1 M-edge ``single_source_shortest_path_length`` call."""
    fn = _bfs_order_fn()
    if fn is None:
        return None
    n = csr.n
    order = np.empty(n + len(first), np.int64)
    order[:len(first)] = first
    parent = np.empty(n + len(first), np.int64)
    layer_end = np.empty(n + 2, np.int64)
    idx = np.ascontiguousarray(csr.indices)
    narrow = idx.dtype == np.int32
    wide = None if narrow else idx.astype(np.int64, copy=False)
    lv = np.ascontiguousarray(levels, np.int64)
    offsets = np.ascontiguousarray(csr.offsets, np.int64)
    limit = int(min(math.ceil(depth_limit), n + 1)) if depth_limit < math.inf else n + 1   # depth >= 3.5: >= 4
    layers = fn(n, offsets.ctypes.data, idx.ctypes.data if narrow else None, None if narrow else wide.ctypes.data,
                lv.ctypes.data, len(first), limit, order.ctypes.data, parent.ctypes.data, layer_end.ctypes.data)
    ends = layer_end[:layers].tolist()
    starts = [0] + ends[:-1]
    return [(order[a:b], parent[a:b]) for a, b in zip(starts, ends)]


def _swept_order(csr: Graph, arc_weights, dist, src_order, cutoff) -> tuple[np.ndarray, np.ndarray] | None:
    fn = _sweep()
    if fn is None:
        return None
    n = csr.n
    ids = np.flatnonzero(np.isfinite(dist))
    by_dist = np.ascontiguousarray(ids[np.argsort(dist[ids], kind="stable")], np.int64)
    source_slot = np.full(n, -1, np.int64)
    source_slot[src_order] = np.arange(len(src_order))
    offsets = np.ascontiguousarray(csr.offsets, np.int64)
    idx = np.ascontiguousarray(csr.indices)
    w = np.ascontiguousarray(arc_weights, np.float64)
    d = np.ascontiguousarray(dist, np.float64)
    order = np.empty(len(ids), np.int64)
    parent = np.full(n, -1, np.int64)
    narrow = idx.dtype == np.int32
    got = fn(n, offsets.ctypes.data, idx.ctypes.data if narrow else None,
             None if narrow else idx.astype(np.int64, copy=False).ctypes.data, w.ctypes.data, d.ctypes.data,
             np.inf if cutoff is None else float(cutoff), by_dist.ctypes.data, len(ids), source_slot.ctypes.data,
             order.ctypes.data, parent.ctypes.data)
    return (order, parent) if got == len(ids) else None


def dijkstra_order(csr: Graph, arc_weights: np.ndarray, dist: np.ndarray, sources: np.ndarray,
                   cutoff: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """NetworkX's Dijkstra on ``csr`` given the distances: ``(finalised order, parent)``.

    ``dist``: float64 distances (``inf`` unreached, already cut at ``cutoff``);
    ``sources``: vertex ids in the order NetworkX pushes them (duplicates allowed).
    ``parent[v]``: the node before ``v`` on NetworkX's path (-1 for sources and the
    unreached). With positive weights, one compiled sweep over the distances in
    ascending order (:data:`ORDERS_SOURCE`); otherwise the sorts below.
    """
    _, first = np.unique(sources, return_index=True)
    swept = _swept_order(csr, arc_weights, dist, sources[np.sort(first)], cutoff)
    if swept is not None:
        return swept
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


#: deeper trees build their paths one by one (the level-by-level fill below pays numpy's
#: per-call cost once a level)
FILL_DEPTH = 256


def _depths(order: np.ndarray, parent: np.ndarray) -> np.ndarray | None:
    """Hops from each vertex of ``order`` up to its root (``parent`` -1), by pointer jumping;
    None when some tree is deeper than about :data:`FILL_DEPTH` (up to twice that)."""
    up = parent[order]
    depth = (up >= 0).astype(np.int64)
    hop = np.where(up >= 0, up, 0)
    where = np.full(len(parent), -1, np.int64)
    where[order] = np.arange(len(order))
    up = where[hop]          # an ancestor's slot in ``order``, or -1 at a root
    up[depth == 0] = -1
    rounds = 0
    while True:
        live = np.flatnonzero(up >= 0)
        if len(live) == 0:
            return depth
        rounds += 1
        if rounds > FILL_DEPTH.bit_length():
            return None
        depth[live] += depth[up[live]]
        up[live] = up[up[live]]


def _flat_paths(order: np.ndarray, parent: np.ndarray, depth: np.ndarray, reverse: bool
                ) -> tuple[np.ndarray, np.ndarray]:
    """Every path's vertex ids end to end, and where each one starts (``len(order) + 1`` offsets).

    Level ``k`` writes the ``k``-th ancestor of every vertex at least ``k`` deep: at its path's
    ``k``-th place (``reverse``: vertex first) or ``k``-th from the end (root first).
    """
    lengths = depth + 1
    starts = np.zeros(len(order) + 1, np.int64)
    np.cumsum(lengths, out=starts[1:])
    flat = np.empty(int(starts[-1]), np.int64)
    slot = starts[:-1].copy() if reverse else starts[1:] - 1
    step = 1 if reverse else -1
    current, left = order.astype(np.int64, copy=True), depth.copy()
    while len(current):
        flat[slot] = current
        more = left > 0
        current, left, slot = parent[current[more]], left[more] - 1, slot[more] + step
    return flat, starts


def paths_from_parents(nodes: list, order: np.ndarray, parent: np.ndarray, keys: np.ndarray | None = None,
                       reverse: bool = False, identity: bool = False) -> dict:
    """``{node: path}`` built along ``order`` (parents come first); keys in ``keys`` order (default ``order``).

    ``reverse``: paths run to the root instead (single-target searches). ``identity``: node ``i`` is ``i``.
    Every path's ids are laid end to end in numpy and the lists cut from one list of labels
    (100,000 paths: one slice each at C speed, where building each from its parent's took 0.6 s).
    """
    order = np.asarray(order, np.int64)
    depth = _depths(order, parent) if len(order) else None
    with collector_paused():
        if depth is None:
            by_id: list = [None] * len(nodes)
            for v, p in zip(order.tolist(), parent[order].tolist()):
                if p < 0:
                    by_id[v] = [nodes[v]]
                elif reverse:
                    by_id[v] = [nodes[v]] + by_id[p]
                else:
                    by_id[v] = by_id[p] + [nodes[v]]
            return {nodes[v]: by_id[v] for v in (order if keys is None else keys).tolist()}
        flat, starts = _flat_paths(order, parent, depth, reverse)
        labels = flat.tolist() if identity else list(map(nodes.__getitem__, flat.tolist()))
        paths = list(map(labels.__getitem__, map(slice, starts[:-1].tolist(), starts[1:].tolist())))
        if keys is None:
            ids = order
        else:
            slot = np.empty(len(parent), np.int64)
            slot[order] = np.arange(len(order))
            ids = np.asarray(keys, np.int64)
            paths = list(map(paths.__getitem__, slot[ids].tolist()))
        names = ids.tolist() if identity else list(map(nodes.__getitem__, ids.tolist()))
        return dict(zip(names, paths))


@contextmanager
def collector_paused():
    """Python's cyclic garbage collector off while a result of many containers is built.

    Every 700 new lists the collector runs, and its older generations walk every
    tracked object: a 1 M-edge NetworkX graph holds 2 M attribute and adjacency
    dicts. Building 100,000 path lists spent 3.3 s of 3.4 s in those walks; the
    lists hold no cycles, so nothing is left for the collector (NetworkX's own
    path-building loop pays the walks too).
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


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
