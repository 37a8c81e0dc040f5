"""Single-source shortest paths: delta-stepping (Meyer and Sanders) over priority buckets.

Distances are float64 (LDBC asks for double precision); edge weights are the
graph's float32 weights, or 1 on an unweighted graph, and must be non-negative
(zero allowed). Vertices sit in buckets ``floor(dist / delta)``
(:class:`~graphferry.runtime.PriorityBuckets`); each round relaxes the
out-edges of the lowest non-empty bucket, and the vertices whose distance
dropped go back into the buckets of their new distances (the same bucket
again for light edges, as in GAPBS). Push takes an atomic min at the head,
pull lets each vertex take the minimum over its active in-neighbours; the
runtime chooses, and runs the rounds (``ProgramState.edge_map_buckets``): on
the CPU backend's host engine all of them in one backend call (per-thread
buckets, pushes only), elsewhere round by round. A vertex whose distance drops is always relaxed again, so
the result does not depend on the order in which partitions are processed: a
vertex first reached by a longer path, or through a neighbour in a partition
not yet loaded, is simply relaxed again.

Distances on a graph whose weights are all integers (or an unweighted graph)
are integers: the state is then float32, exact below 2**24 (a run that
reaches 2**24 is repeated in float64), which halves the random memory traffic
as GAPBS's 32-bit distances do; results are float64 either way.

``delta`` (bucket width) defaults to the mean edge weight over the mean
out-degree (:func:`default_delta`); ``delta=inf`` keeps one bucket, which is
frontier Bellman-Ford (every vertex whose distance dropped relaxes in the next round).
On a GPU a round takes several buckets (rounds have a fixed price there): every
pending vertex on graphs with hubs, and elsewhere the lowest buckets up to a share
of the vertices while holding the rest back saves relaxations (see
:mod:`graphferry.runtime.buckets`); the distances are the same either way.

Example:
    >>> import numpy as np
    >>> from graphferry import Graph
    >>> from graphferry.algorithms.sssp import sssp, verify_sssp
    >>> g = Graph.from_edges(np.array([0, 0, 1, 2]), np.array([1, 2, 3, 3]),
    ...                      np.array([4.0, 1.0, 1.0, 5.0]), n=5)
    >>> r = sssp(g, 0, backend="cpu")
    >>> r.distances.tolist()
    [0.0, 4.0, 1.0, 5.0, inf]
    >>> sssp(g, 0, backend="cpu", delta=float("inf")).distances.tolist()
    [0.0, 4.0, 1.0, 5.0, inf]
    >>> verify_sssp(g, 0, r.distances)
"""

from __future__ import annotations

import math

import numpy as np

from .. import host_ops
from ..graph import Graph
from ..runtime import PriorityBuckets, Program, RunOptions
from . import registry
from ._common import Result, once, runtime_for

_SOURCE = r"""
typedef {T} real_t;
GF_FN bool cond(const State& S, vid_t d) { return true; }
// pull: one thread owns d and keeps the best offer of its active in-neighbours
GF_FN bool update(const State& S, vid_t s, vid_t d, float w) {
    const real_t nd = gf_load(&S.dist[s]) + (real_t)w;
    if (nd < S.dist[d]) { S.dist[d] = nd; return true; }
    return false;
}
// push: several sources relax d at once
GF_FN bool update_atomic(const State& S, vid_t s, vid_t d, float w) {
    return gf_atomic_min(&S.dist[d], gf_load(&S.dist[s]) + (real_t)w);
}
"""


def _program(dtype: str) -> Program:
    return Program(f"sssp_{dtype}", arrays={"dist": dtype}, uses_weights=True,
                   combine="min",  # executors' distances merge by the shortest
                   signals_changes=True,  # gf_atomic_min is true exactly when it lowered dist[d]
                   edge_writes=("dist",),
                   again=(),  # asynchronous mode: relax again from what this round lowered
                   source=_SOURCE.replace("{T}", {"float64": "double", "float32": "float"}[dtype]))


PROGRAMS = {dt: _program(dt) for dt in ("float64", "float32")}
PROGRAM = PROGRAMS["float64"]

#: Below this every integer is exact in float32 (2**24).
EXACT_FLOAT32 = float(1 << 24)


def check_weights(graph: Graph) -> bool:
    """Raise ValueError if the graph has a negative, NaN or infinite edge weight.

    Returns whether float32 distances are exact as long as they stay below
    2**24: every weight is an integer of at most 2**24 (or the graph is unweighted).
    """
    w = graph.weights
    if w is None or len(w) == 0:
        return True
    k, integral = host_ops.check_weights(w)  # one parallel pass, no m-sized temporary
    if k >= 0:
        bad = ~((np.asarray(w) >= 0) & np.isfinite(w))
        src = int(np.searchsorted(graph.offsets, k, side="right") - 1)
        raise ValueError(
            f"sssp: argument 'graph' has {int(bad.sum())} negative or non-finite edge weight(s); the first is "
            f"{float(w[k])!r} on edge {graph.to_original_ids(src)} -> {graph.to_original_ids(int(graph.indices[k]))}; "
            f"shortest paths need finite non-negative weights"
        )
    return integral


def default_delta(graph: Graph) -> float:
    """Bucket width: the mean edge weight over the mean out-degree (1 on an unweighted graph).

    Meyer and Sanders (2003) take ``delta = Theta(1 / d)`` for weights in [0, 1] and
    degree ``d``: a bucket then holds about one light edge per vertex, and few
    vertices are relaxed twice. Scaled to the graph's weights that is ``mean weight /
    (m / n)``. Measured on 1 and 2 threads (the CPU backend's one-call delta-stepping):
    Kronecker 20 (mean weight 128, degree 30) runs equally fast at 1 to 4 (the rule:
    4.3) and 1.8x slower at the former rule's 32; a 1000 x 1000 grid with streets
    missing (road-like: degree 3.2, weights 1..1000, rule 156) equally fast from 50 to
    2000 and 1.8x slower at 16000. An unweighted graph gets 1: one bucket per hop.

    Example:
        >>> g = Graph.from_edges(np.array([0, 1]), np.array([1, 2]), np.array([2.0, 6.0]), n=3)
        >>> default_delta(g)   # mean weight 4, mean degree 2/3
        6.0
    """
    if graph.weights is None or graph.m == 0:
        return 1.0
    # a strided sample of at most ~64K weights: a heuristic needs no O(m) pass per call
    mean = float(np.mean(graph.weights[:: max(1, graph.m // 65536)], dtype=np.float64))
    return mean * graph.n / graph.m if mean > 0 else math.inf


def sssp(graph: Graph, source, *, delta: float | None = None, options: RunOptions | None = None,
         **kwargs) -> Result:
    """Distances from ``source`` (float64, ``inf`` where unreachable).

    ``source`` is an id of the input (an original id when the input was
    renumbered). ``delta``: bucket width (None: :func:`default_delta`;
    ``inf``: frontier Bellman-Ford). Other keywords are run options (backend=,
    engine=, ...). ``scalars`` holds ``source`` (internal id), ``rounds``,
    ``delta`` and ``precision``.

    When every weight is an integer (or the graph is unweighted) the distances
    are integers, exact in float32 below 2**24: the run keeps float32 state
    (half the memory traffic, as GAPBS's 32-bit distances) and is repeated in
    float64 only if some distance reaches 2**24. The result is float64 either way.
    """
    integral = once(graph, "sssp.check_weights", lambda: check_weights(graph))  # once per loaded graph
    if delta is not None and not (isinstance(delta, (int, float)) and not math.isnan(delta) and delta > 0):
        raise ValueError(f"sssp: argument 'delta' must be a positive number (inf allowed) or None, got {delta!r}")
    s = graph.to_internal_id(source)
    width = default_delta(graph) if delta is None else float(delta)
    with runtime_for(graph, "sssp", options, kwargs) as rt:
        for precision in (["float32"] if integral else []) + ["float64"]:
            st = rt.start(PROGRAMS[precision], arrays={"dist": np.inf})
            st.assign("dist", [s], 0.0)
            buckets = PriorityBuckets(st, "dist", width)
            buckets.add(rt.frontier([s]))
            rounds = st.edge_map_buckets(buckets)  # pop the lowest bucket, edge_map, file the changed
            if precision == "float64" or not st.select("dist", EXACT_FLOAT32, math.inf):
                break  # float32: exact unless a finite distance reached 2**24
        distances = st.result("dist", np.float64)
    return Result(graph, {"distances": distances}, rt.record,
                  {"source": s, "rounds": rounds, "delta": width, "precision": precision},
                  vertex_ids=registry.get("sssp").vertex_ids)


# ---------------------------------------------------------------- verifier
def verify_sssp(graph: Graph, source: int, dist: np.ndarray, *, rtol: float = 1e-6) -> None:
    """GAPBS-style check without the framework; raises AssertionError on the first violation.

    ``dist[source] == 0``; no distance is negative or NaN; every edge out of a
    reached vertex is relaxed (``d[v] <= d[u] + w``); and every reached vertex
    is reached from the source along tight edges (``d[u] + w == d[v]``, within
    ``rtol``, relative). The last rule (a breadth-first search of the tight
    edges with scipy) pins every distance: a distance below the true one would
    need a tight path from the source shorter than the shortest path. Asking
    only for *some* tight in-edge per vertex is not enough with zero weights: a
    zero-weight cycle can hold too-small distances that justify each other.
    """
    import scipy.sparse as sp
    from scipy.sparse.csgraph import breadth_first_order

    dist = np.asarray(dist, dtype=np.float64)
    n = graph.n
    assert dist.shape == (n,), "one distance per vertex"
    assert dist[source] == 0, "the source must be at distance 0"
    assert not np.isnan(dist).any() and (dist >= 0).all(), "a distance is negative or NaN"
    src, dst = graph.edges()
    w = np.ones(graph.m) if graph.weights is None else graph.weights.astype(np.float64)
    reached = np.isfinite(dist[src])
    src, dst, w = src[reached], dst[reached], w[reached]
    via = dist[src] + w
    tol = rtol * np.maximum(1.0, np.abs(via))
    assert np.all(dist[dst] <= via + tol), "an edge is not relaxed (d[v] > d[u] + w)"
    is_tight = np.abs(via - dist[dst]) <= tol
    tight = np.zeros(n, dtype=bool)
    tight[dst[is_tight]] = True
    others = np.isfinite(dist)
    others[source] = False
    assert tight[others].all(), "a reached vertex has no in-edge with d[u] + w == d[v]"
    t = sp.csr_array((np.ones(int(is_tight.sum())), (src[is_tight], dst[is_tight])), shape=(n, n))
    on_tight_paths = np.zeros(n, dtype=bool)
    on_tight_paths[breadth_first_order(t, source, directed=True, return_predecessors=False)] = True
    assert on_tight_paths[np.isfinite(dist)].all(), \
        "a finite distance is not reached from the source along tight edges (too small)"
