"""Single-source shortest paths: frontier Bellman-Ford with atomic min, optionally delta-stepping.

Distances are float64 (LDBC asks for double precision); edge weights are the
graph's float32 weights, or 1 on an unweighted graph, and must be non-negative
(zero allowed). Each round the vertices whose distance dropped relax their
out-edges: push takes an atomic min at the head, pull lets each vertex take
the minimum over its active in-neighbours; the runtime chooses. A vertex whose
distance drops is always in the next frontier, so the result does not depend
on the order in which partitions are processed: a vertex first reached by a
longer path, or through a neighbour in a partition not yet loaded, is simply
relaxed again.

With ``delta`` set, the driver keeps the active vertices as pending and each
round relaxes only those in the lowest non-empty distance bucket
``[k * delta, (k + 1) * delta)`` (Meyer and Sanders' delta-stepping, buckets in
the driver): fewer wasted relaxations on weighted graphs, more rounds.

Example:
    >>> import numpy as np
    >>> from graphferry import Graph
    >>> from graphferry.algorithms.sssp import sssp, verify_sssp
    >>> g = Graph.from_edges(np.array([0, 0, 1, 2]), np.array([1, 2, 3, 3]),
    ...                      np.array([4.0, 1.0, 1.0, 5.0]), n=5)
    >>> r = sssp(g, 0, backend="cpu")
    >>> r.distances.tolist()
    [0.0, 4.0, 1.0, 5.0, inf]
    >>> sssp(g, 0, backend="cpu", delta=2.0).distances.tolist()
    [0.0, 4.0, 1.0, 5.0, inf]
    >>> verify_sssp(g, 0, r.distances)
"""

from __future__ import annotations

import math

import numpy as np

from ..graph import Graph
from ..runtime import Frontier, Program, RunOptions
from ._common import Result, once, runtime_for

PROGRAM = Program(
    "sssp",
    arrays={"dist": "float64"},
    uses_weights=True,
    source=r"""
GF_FN bool cond(const State& S, vid_t d) { return true; }
// pull: one thread owns d and keeps the best offer of its active in-neighbours
GF_FN bool update(const State& S, vid_t s, vid_t d, float w) {
    const double nd = gf_load(&S.dist[s]) + (double)w;
    if (nd < S.dist[d]) { S.dist[d] = nd; return true; }
    return false;
}
// push: several sources relax d at once
GF_FN bool update_atomic(const State& S, vid_t s, vid_t d, float w) {
    return gf_atomic_min(&S.dist[d], gf_load(&S.dist[s]) + (double)w);
}
""",
)


def check_weights(graph: Graph) -> None:
    """Raise ValueError if the graph has a negative or NaN edge weight."""
    w = graph.weights
    if w is None or len(w) == 0:
        return
    bad = ~(np.asarray(w) >= 0)  # catches NaN too
    if bad.any():
        k = int(np.argmax(bad))
        src = int(np.searchsorted(graph.offsets, k, side="right") - 1)
        raise ValueError(
            f"sssp: argument 'graph' has {int(bad.sum())} negative or NaN edge weight(s); the first is "
            f"{float(w[k])!r} on edge {graph.to_original_ids(src)} -> {graph.to_original_ids(int(graph.indices[k]))}; "
            f"shortest paths need non-negative weights"
        )


def sssp(graph: Graph, source, *, delta: float | None = None, options: RunOptions | None = None,
         **kwargs) -> Result:
    """Distances from ``source`` (float64, ``inf`` where unreachable).

    ``source`` is an id of the input (an original id when the input was
    renumbered). ``delta``: bucket width for delta-stepping (None: plain
    frontier Bellman-Ford). Other keywords are run options (backend=, engine=, ...).
    ``scalars`` holds ``source`` (internal id) and ``rounds``.
    """
    once(graph, "sssp.check_weights", lambda: check_weights(graph))
    if delta is not None and not (isinstance(delta, (int, float)) and math.isfinite(delta) and delta > 0):
        raise ValueError(f"sssp: argument 'delta' must be a positive finite number or None, got {delta!r}")
    s = graph.to_internal_id(source)
    rounds = 0
    with runtime_for(graph, "sssp", options, kwargs) as rt:
        st = rt.start(PROGRAM, arrays={"dist": np.inf})  # filled where the state lives
        st.set("dist", [s], 0.0)
        b, n = rt.backend, graph.n
        pending = rt.frontier([s])
        while pending:
            rounds += 1
            if delta is None:
                pending = st.edge_map(pending)
                continue
            ids = pending.ids
            d = st.arrays["dist"][ids]
            bound = (math.floor(float(d.min()) / delta) + 1) * delta
            near = d < bound
            now = Frontier(b, n, ids=ids[near])
            later = Frontier(b, n, ids=ids[~near])
            pending = Frontier(b, n, bits=st.edge_map(now).bits | later.bits)
        distances = st.host("dist", np.float64)
    return Result(graph, {"distances": distances}, rt.record, {"source": s, "rounds": rounds})


# ---------------------------------------------------------------- verifier
def verify_sssp(graph: Graph, source: int, dist: np.ndarray, *, rtol: float = 1e-6) -> None:
    """GAPBS-style check without the framework; raises AssertionError on the first violation.

    ``dist[source] == 0``; no distance is negative or NaN; every edge out of a
    reached vertex is relaxed (``d[v] <= d[u] + w``); and every reached vertex
    other than the source is tight: some in-edge has ``d[u] + w == d[v]``
    (both within ``rtol``, relative).
    """
    dist = np.asarray(dist, dtype=np.float64)
    assert dist.shape == (graph.n,), "one distance per vertex"
    assert dist[source] == 0, "the source must be at distance 0"
    assert not np.isnan(dist).any() and (dist >= 0).all(), "a distance is negative or NaN"
    src, dst = graph.edges()
    w = np.ones(graph.m) if graph.weights is None else graph.weights.astype(np.float64)
    reached = np.isfinite(dist[src])
    src, dst, w = src[reached], dst[reached], w[reached]
    via = dist[src] + w
    tol = rtol * np.maximum(1.0, np.abs(via))
    assert np.all(dist[dst] <= via + tol), "an edge is not relaxed (d[v] > d[u] + w)"
    tight = np.zeros(graph.n, dtype=bool)
    tight[dst[np.abs(via - dist[dst]) <= tol]] = True
    others = np.isfinite(dist)
    others[source] = False
    assert tight[others].all(), "a reached vertex has no in-edge with d[u] + w == d[v]"
