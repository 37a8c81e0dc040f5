"""Katz centrality by power iteration, with NetworkX's parameters, stopping rule and normalisation.

Katz (1953): ``x = alpha A^T x + beta``, i.e. ``x_v = alpha * sum_{u -> v} w(u, v) x_u + beta_v``
(in-edges on a directed graph, as NetworkX). The iteration is
``networkx.katz_centrality``'s (NetworkX 3.6), step for step: from ``x_0 = nstart``
(zero by default),

    x_k = alpha A^T x_{k-1} + beta,

stopping at the first ``k`` with ``sum_v |x_k(v) - x_{k-1}(v)| < n * tol``; then,
with ``normalized=True``, ``x_k / ||x_k||_2`` (unscaled when the norm is 0). It
converges when ``alpha`` is below ``1 / lambda_max``; no such ``k`` within
``max_iterations`` gives ``converged = False`` (NetworkX raises
``PowerIterationFailedConvergence``). Each step is one edge map (pull: a fold
of the in-neighbours' values; push: atomic adds) and one vertex map with a
reduction of the change. ``beta`` is one number or one per vertex.

Weights (``weighted=True`` on a weighted graph) multiply the terms as float32
edge weights; self-loops and repeated arcs each add their term.

Example:
    >>> import numpy as np
    >>> from graphferry import Graph
    >>> from graphferry.algorithms.katz import katz_centrality, verify_katz_centrality
    >>> g = Graph.from_edges([0, 1, 2], [1, 2, 3], n=4, directed=False)     # a path 0-1-2-3
    >>> r = katz_centrality(g, alpha=0.1, backend="cpu")
    >>> np.round(r.centrality, 4).tolist(), r.converged
    ([0.4757, 0.5232, 0.5232, 0.4757], True)
    >>> verify_katz_centrality(g, r.centrality, alpha=0.1)
"""

from __future__ import annotations

import math

import numpy as np

from ..graph import Graph
from ..runtime import Program, RunOptions
from ._common import Result, driver_hooks, runtime_for

_SOURCE = r"""
GF_FN bool cond(const State& S, vid_t d) { return true; }
// pull: one thread owns d and sums its in-neighbours' values
GF_FN bool update(const State& S, vid_t s, vid_t d, float w) { S.y[d] += S.x[s] * (double)w; return false; }
GF_FN double pull_begin(const State& S, vid_t d) { return S.y[d]; }
GF_FN void pull_fold(const State& S, double& a, vid_t s, vid_t d, float w) { a += S.x[s] * (double)w; }
GF_FN bool pull_end(const State& S, vid_t d, double a) { S.y[d] = a; return false; }
GF_FN bool pull_merge(const State& S, vid_t d, double a) { gf_atomic_add(&S.y[d], a); return false; }
// push: many sources add into d at once
GF_FN bool update_atomic(const State& S, vid_t s, vid_t d, float w) {
    gf_atomic_add(&S.y[d], S.x[s] * (double)w); return false;
}
GF_FN bool begin(const State& S, vid_t v) { S.y[v] = 0.0; return false; }
// x = alpha y + beta, and how far each value moved
GF_FN bool finish(const State& S, vid_t v) {
    const double next = S.alpha * S.y[v] + S.beta[v];
    S.change[v] = fabs(next - S.x[v]);
    S.x[v] = next;
    return false;
}
GF_FN bool square(const State& S, vid_t v) { S.change[v] = S.x[v] * S.x[v]; return false; }
GF_FN bool normalise(const State& S, vid_t v) { S.x[v] *= S.scale; return false; }
"""


def _program(weighted: bool) -> Program:
    return Program(
        "katz" + ("_weighted" if weighted else ""),
        arrays={"x": "float64", "y": "float64", "beta": "float64", "change": "float64"},
        scalars={"alpha": "float64", "scale": "float64"},
        vertex_functions=("begin", "finish", "square", "normalise"),
        combine="sum",          # executors' partial sums add up
        edge_writes=("y",),
        uses_weights=weighted,
        source=_SOURCE,
    )


PROGRAMS = {w: _program(w) for w in (False, True)}


def _vector(name: str, value, n: int, default: float) -> np.ndarray | float:
    if value is None:
        return default
    if np.isscalar(value):
        v = float(value)
        if not math.isfinite(v):
            raise ValueError(f"katz_centrality: argument {name!r} must be finite, got {value!r}")
        return v
    arr = np.asarray(value, dtype=np.float64)
    if arr.shape != (n,):
        raise ValueError(f"katz_centrality: argument {name!r} must be a number or hold {n} values, got {arr.shape}")
    return arr


def katz_centrality(graph: Graph, *, alpha: float = 0.1, beta: float = 1.0, max_iterations: int = 1000,
                    tol: float = 1e-6, normalized: bool = True, weighted: bool = True,
                    options: RunOptions | None = None, **kwargs) -> Result:
    """Katz centrality (values ``centrality``, float64), NetworkX's iteration.

    Driver hooks (``_common.driver_hooks``): ``betas``, one ``beta`` per vertex
    (replacing ``beta``), and ``nstart``, the starting vector (None: zero). Scalars: ``iterations`` and ``converged`` (False: no step met the rule
    within ``max_iterations``; the values are then the last iterate, unscaled).
    """
    betas, nstart = driver_hooks(kwargs, "betas", "nstart")
    if int(max_iterations) != max_iterations or max_iterations < 0:
        raise ValueError(f"katz_centrality: argument 'max_iterations' must be a non-negative integer, "
                         f"got {max_iterations!r}")
    if not (isinstance(tol, (int, float)) and tol > 0 and math.isfinite(tol)):
        raise ValueError(f"katz_centrality: argument 'tol' must be a positive number, got {tol!r}")
    if not (isinstance(alpha, (int, float)) and math.isfinite(alpha)):
        raise ValueError(f"katz_centrality: argument 'alpha' must be a finite number, got {alpha!r}")
    n = graph.n
    b = _vector("beta", beta if betas is None else betas, n, 1.0)
    x0 = _vector("nstart", nstart, n, 0.0)
    use_weights = bool(weighted and graph.weighted)
    iterations, converged = 0, False
    with runtime_for(graph, "katz_centrality", options, kwargs) as rt:
        st = rt.start(PROGRAMS[use_weights], arrays={"x": x0, "beta": b},
                      scalars={"alpha": float(alpha), "scale": 1.0})
        everyone = rt.all_vertices()
        while iterations < int(max_iterations) and n:
            iterations += 1
            st.vertex_map("begin")
            st.edge_map(everyone, output=False)
            st.vertex_map("finish")
            if st.reduce("change", "sum") < n * tol:
                converged = True
                break
        if converged and normalized:
            st.vertex_map("square")
            norm = math.sqrt(st.reduce("change", "sum"))
            if norm > 0:
                st.scalars["scale"] = 1.0 / norm
                st.vertex_map("normalise")
        values = st.result("x", np.float64)
    return Result(graph, {"centrality": values}, rt.record, {"iterations": iterations, "converged": converged})


# ---------------------------------------------------------------- verifier
def katz_reference(graph: Graph, *, alpha: float = 0.1, beta=1.0, max_iterations: int = 1000, tol: float = 1e-6,
                   normalized: bool = True, weighted: bool = True, nstart=None) -> tuple[np.ndarray, bool]:
    """NetworkX's iteration (see the module docstring) with a float64 scipy.sparse matrix, independent
    of the framework: (values, converged)."""
    import scipy.sparse as sp

    n = graph.n
    if n == 0:
        return np.zeros(0), True
    w = graph.weights.astype(np.float64) if weighted and graph.weighted else np.ones(graph.m)
    at = sp.csr_array((w, graph.indices, graph.offsets), shape=(n, n)).T.tocsr()
    b = np.broadcast_to(np.asarray(beta, np.float64), (n,))
    x = np.zeros(n) if nstart is None else np.broadcast_to(np.asarray(nstart, np.float64), (n,)).copy()
    for _ in range(int(max_iterations)):
        y = alpha * (at @ x) + b
        done = np.abs(y - x).sum() < n * tol
        x = y
        if done:
            norm = np.linalg.norm(x)
            return (x / norm if normalized and norm > 0 else x), True
    return x, False


def verify_katz_centrality(graph: Graph, values: np.ndarray, *, alpha: float = 0.1, beta=1.0,
                           max_iterations: int = 1000, tol: float = 1e-6, normalized: bool = True,
                           weighted: bool = True, nstart=None, rtol: float = 1e-9, atol: float = 1e-12) -> None:
    """Raise AssertionError unless ``values`` is :func:`katz_reference`'s iterate (the same step of the
    same iteration, float64 sums in another order; where ``alpha`` is too large to converge, the
    last iterate, whose values may have overflowed to infinity as the reference's do)."""
    values = np.asarray(values, dtype=np.float64)
    assert values.shape == (graph.n,), "one value per vertex"
    with np.errstate(over="ignore", invalid="ignore"):
        want, converged = katz_reference(graph, alpha=alpha, beta=beta, max_iterations=max_iterations, tol=tol,
                                         normalized=normalized, weighted=weighted, nstart=nstart)
    assert not converged or np.all(np.isfinite(values)), "a value is not finite"
    bad = np.flatnonzero(~np.isclose(values, want, rtol=rtol, atol=atol, equal_nan=True))
    assert len(bad) == 0, f"vertex {bad[0]}: centrality {values[bad[0]]!r}, expected {want[bad[0]]!r}"
