"""Eigenvector centrality by power iteration, with NetworkX's normalisation and stopping rule.

The eigenvector centrality ``x`` solves ``lambda x = A^T x`` for the largest
eigenvalue: ``x_v = 1 / lambda * sum_{u -> v} w(u, v) x_u`` (Bonacich 1987; for a
directed graph the in-edges, the left eigenvector, as NetworkX computes it).
The iteration is ``networkx.eigenvector_centrality``'s (NetworkX 3.6), step for
step: from ``x_0 = nstart / sum(nstart)`` (uniform by default),

    y_k = (A^T + I) x_{k-1},    x_k = y_k / ||y_k||_2

(the identity shifts the spectrum so that a bipartite graph converges too),
stopping at the first ``k`` with ``sum_v |x_k(v) - x_{k-1}(v)| < n * tol``; no
such ``k`` among the first ``max_iterations`` gives ``converged = False``
(NetworkX raises ``PowerIterationFailedConvergence``). Each step is one edge map
(pull: each vertex sums its in-neighbours' values, a fold in a register; push:
atomic adds along out-edges) and two vertex maps with a reduction each (the
norm, then the scaled values and their change).

Weights (``weighted=True`` on a weighted graph) multiply the terms as float32
edge weights (NetworkX's ``weight`` attribute); self-loops count once, as an
edge ``v -> v``; repeated arcs each add their term.

Example:
    >>> import numpy as np
    >>> from graphferry import Graph
    >>> from graphferry.algorithms.eigenvector import eigenvector_centrality, verify_eigenvector_centrality
    >>> g = Graph.from_edges([0, 1, 2], [1, 2, 3], n=4, directed=False)     # a path 0-1-2-3
    >>> r = eigenvector_centrality(g, backend="cpu")
    >>> np.round(r.centrality, 4).tolist(), r.converged
    ([0.3717, 0.6015, 0.6015, 0.3717], True)
    >>> verify_eigenvector_centrality(g, r.centrality)
"""

from __future__ import annotations

import math

import numpy as np

from ..graph import Graph
from ..runtime import Program, RunOptions
from ._common import Result, driver_hooks, runtime_for

_SOURCE = r"""
GF_FN bool cond(const State& S, vid_t d) { return true; }
// pull: one thread owns d; y[d] starts at x[d] (the identity's term) and adds its in-edges
GF_FN bool update(const State& S, vid_t s, vid_t d, float w) { S.y[d] += S.x[s] * (double)w; return false; }
GF_FN double pull_begin(const State& S, vid_t d) { return S.y[d]; }
GF_FN void pull_fold(const State& S, double& a, vid_t s, vid_t d, float w) { a += S.x[s] * (double)w; }
GF_FN bool pull_end(const State& S, vid_t d, double a) { S.y[d] = a; return false; }
GF_FN bool pull_merge(const State& S, vid_t d, double a) { gf_atomic_add(&S.y[d], a); return false; }
// push: many sources add into d at once
GF_FN bool update_atomic(const State& S, vid_t s, vid_t d, float w) {
    gf_atomic_add(&S.y[d], S.x[s] * (double)w); return false;
}
// before each step: y = x (the identity of A^T + I)
GF_FN bool begin(const State& S, vid_t v) { S.y[v] = S.x[v]; return false; }
GF_FN bool square(const State& S, vid_t v) { S.change[v] = S.y[v] * S.y[v]; return false; }
// after it: x = y / ||y||, and how far each value moved
GF_FN bool finish(const State& S, vid_t v) {
    const double next = S.y[v] * S.scale;
    S.change[v] = fabs(next - S.x[v]);
    S.x[v] = next;
    return false;
}
"""


def _program(weighted: bool) -> Program:
    return Program(
        "eigenvector" + ("_weighted" if weighted else ""),
        arrays={"x": "float64", "y": "float64", "change": "float64"},
        scalars={"scale": "float64"},
        vertex_functions=("begin", "square", "finish"),
        combine="sum",          # executors' partial sums add up
        edge_writes=("y",),
        uses_weights=weighted,
        source=_SOURCE,
    )


PROGRAMS = {w: _program(w) for w in (False, True)}


def _check_iteration(name: str, max_iterations, tol) -> None:
    if int(max_iterations) != max_iterations or max_iterations < 0:
        raise ValueError(f"{name}: argument 'max_iterations' must be a non-negative integer, got {max_iterations!r}")
    if not (isinstance(tol, (int, float)) and tol > 0 and math.isfinite(tol)):
        raise ValueError(f"{name}: argument 'tol' must be a positive number, got {tol!r}")


def eigenvector_centrality(graph: Graph, *, max_iterations: int = 100, tol: float = 1e-6, weighted: bool = True,
                           options: RunOptions | None = None, **kwargs) -> Result:
    """Eigenvector centrality (values ``centrality``, float64, unit L2 norm), NetworkX's iteration.

    Driver hook (``_common.driver_hooks``): ``nstart``, the starting vector (one
    value per vertex, not all zero; None: uniform). Scalars: ``iterations`` and ``converged`` (False: no step met the
    rule within ``max_iterations``; the values are then the last iterate).
    """
    (nstart,) = driver_hooks(kwargs, "nstart")
    _check_iteration("eigenvector_centrality", max_iterations, tol)
    n = graph.n
    if nstart is None:
        start = np.full(n, 1.0 / max(n, 1))
    else:
        start = np.asarray(nstart, dtype=np.float64)
        if start.shape != (n,):
            raise ValueError(f"eigenvector_centrality: argument 'nstart' must hold {n} values, got {start.shape}")
        if not np.any(start != 0):
            raise ValueError("eigenvector_centrality: argument 'nstart' must not be all zero")
        start = start / start.sum()
    use_weights = bool(weighted and graph.weighted)
    iterations, converged = 0, False
    with runtime_for(graph, "eigenvector_centrality", options, kwargs) as rt:
        st = rt.start(PROGRAMS[use_weights], arrays={"x": start}, scalars={"scale": 1.0})
        everyone = rt.all_vertices()
        while iterations < int(max_iterations) and n:
            iterations += 1
            st.vertex_map("begin")
            st.edge_map(everyone, output=False)
            st.vertex_map("square")
            norm = math.sqrt(st.reduce("change", "sum")) or 1.0   # NetworkX: hypot(...) or 1
            st.scalars["scale"] = 1.0 / norm
            st.vertex_map("finish")
            if st.reduce("change", "sum") < n * tol:
                converged = True
                break
        values = st.result("x", np.float64)
    return Result(graph, {"centrality": values}, rt.record, {"iterations": iterations, "converged": converged})


# ---------------------------------------------------------------- verifier
def eigenvector_reference(graph: Graph, *, max_iterations: int = 100, tol: float = 1e-6, weighted: bool = True,
                          nstart: np.ndarray | None = None) -> tuple[np.ndarray, bool]:
    """NetworkX's iteration (see the module docstring) with a float64 scipy.sparse matrix, independent of
    the framework: (values, converged)."""
    import scipy.sparse as sp

    n = graph.n
    if n == 0:
        return np.zeros(0), True
    w = graph.weights.astype(np.float64) if weighted and graph.weighted else np.ones(graph.m)
    at = sp.csr_array((w, graph.indices, graph.offsets), shape=(n, n)).T.tocsr()
    x = np.full(n, 1.0 / n) if nstart is None else np.asarray(nstart, np.float64) / np.sum(nstart)
    for _ in range(int(max_iterations)):
        y = x + at @ x
        y = y / (np.linalg.norm(y) or 1.0)
        done = np.abs(y - x).sum() < n * tol
        x = y
        if done:
            return x, True
    return x, False


def verify_eigenvector_centrality(graph: Graph, values: np.ndarray, *, max_iterations: int = 100,
                                  tol: float = 1e-6, weighted: bool = True, nstart: np.ndarray | None = None,
                                  rtol: float = 1e-9, atol: float = 1e-12) -> None:
    """Raise AssertionError unless ``values`` is :func:`eigenvector_reference`'s iterate (the same
    step of the same iteration, float64 sums in another order)."""
    values = np.asarray(values, dtype=np.float64)
    assert values.shape == (graph.n,), "one value per vertex"
    assert np.all(np.isfinite(values)), "a value is not finite"
    want, _ = eigenvector_reference(graph, max_iterations=max_iterations, tol=tol, weighted=weighted, nstart=nstart)
    bad = np.flatnonzero(~np.isclose(values, want, rtol=rtol, atol=atol))
    assert len(bad) == 0, f"vertex {bad[0]}: centrality {values[bad[0]]!r}, expected {want[bad[0]]!r}"
