"""HITS hubs and authorities by power iteration, NetworkX's normalisation.

Kleinberg, "Authoritative sources in a hyperlinked environment" (JACM 1999):
authorities ``a = A^T h`` and hubs ``h = A a``, so ``h`` converges to the
principal eigenvector of ``A A^T`` (the leading left singular vector of ``A``)
and ``a`` to that of ``A^T A``. Each step (NetworkX's ``_hits_python``)::

    a_k = A^T h_{k-1},   h_k = A a_k,   h_k /= max(h_k),   a_k /= max(a_k)

from ``h_0 = nstart / sum(nstart)`` (uniform by default), stopping at the first
``k`` with ``sum_v |h_k(v) - h_{k-1}(v)| < tol``; no such ``k`` within
``max_iterations`` gives ``converged = False``. One step is two edge maps: the
authorities along the edges (pull: a fold of each vertex's in-neighbours' hub
values; push: atomic adds), the hubs along the reversed edges, then a vertex
map scaling both by their maxima (reductions where the state lives).

The answer is then scaled as ``networkx.hits`` scales its own (an ARPACK
singular value decomposition, the same vectors where the leading singular value
is simple): ``normalized=True`` divides each vector by its sum;
``normalized=False`` returns the authorities with unit L2 norm and ``h = A a``.
Weights (``weighted=True`` on a weighted graph: NetworkX's ``weight`` attribute)
are the entries of ``A`` as float32; repeated arcs each add theirs. A graph
without edges has no direction to converge to: every value is ``1 / n``.

Example:
    >>> import numpy as np
    >>> from graphferry import Graph
    >>> from graphferry.algorithms.hits import hits, verify_hits
    >>> g = Graph.from_edges([0, 0, 1, 2], [1, 2, 2, 0], n=3)
    >>> r = hits(g, backend="cpu")
    >>> np.round(r.hubs, 4).tolist(), np.round(r.authorities, 4).tolist()
    ([0.618, 0.382, 0.0], [0.0, 0.382, 0.618])
    >>> verify_hits(g, r.hubs, r.authorities)
"""

from __future__ import annotations

import math

import numpy as np

from ..graph import Graph
from ..runtime import Program, RunOptions
from ._common import Result, driver_hooks, runtime_for

# which vector an edge map computes (scalar ``phase``)
AUTHORITIES, HUBS = 0, 1

_SOURCE = r"""
GF_FN bool cond(const State& S, vid_t d) { return true; }
// phase 0 (edges s -> d): d's authority sums the hubs pointing at it;
// phase 1 (reversed edges, s the head of d -> s): d's hub sums the authorities it points at
GF_FN bool update(const State& S, vid_t s, vid_t d, float w) {
    if (S.phase == 0) S.auth[d] += S.hub[s] * (double)w;
    else S.hub[d] += S.auth[s] * (double)w;
    return false;
}
GF_FN double pull_begin(const State& S, vid_t d) { return S.phase == 0 ? S.auth[d] : S.hub[d]; }
GF_FN void pull_fold(const State& S, double& a, vid_t s, vid_t d, float w) {
    a += (S.phase == 0 ? S.hub[s] : S.auth[s]) * (double)w;
}
GF_FN bool pull_end(const State& S, vid_t d, double a) {
    if (S.phase == 0) S.auth[d] = a; else S.hub[d] = a;
    return false;
}
GF_FN bool pull_merge(const State& S, vid_t d, double a) {
    if (S.phase == 0) gf_atomic_add(&S.auth[d], a); else gf_atomic_add(&S.hub[d], a);
    return false;
}
GF_FN bool update_atomic(const State& S, vid_t s, vid_t d, float w) {
    if (S.phase == 0) gf_atomic_add(&S.auth[d], S.hub[s] * (double)w);
    else gf_atomic_add(&S.hub[d], S.auth[s] * (double)w);
    return false;
}
// before a step: keep the last hubs (read by the authorities' map), clear the authorities
GF_FN bool begin(const State& S, vid_t v) { S.last[v] = S.hub[v]; S.auth[v] = 0.0; return false; }
GF_FN bool clear_hubs(const State& S, vid_t v) { S.hub[v] = 0.0; return false; }
// after it: both scaled (by their maxima, or their sums at the end), and the hubs' change
GF_FN bool scale(const State& S, vid_t v) {
    S.hub[v] *= S.hub_scale;
    S.auth[v] *= S.auth_scale;
    S.change[v] = fabs(S.hub[v] - S.last[v]);
    return false;
}
GF_FN bool square(const State& S, vid_t v) { S.change[v] = S.auth[v] * S.auth[v]; return false; }
"""


def _program(weighted: bool) -> Program:
    return Program(
        "hits" + ("_weighted" if weighted else ""),
        arrays={"hub": "float64", "auth": "float64", "last": "float64", "change": "float64"},
        scalars={"phase": "int64", "hub_scale": "float64", "auth_scale": "float64"},
        vertex_functions=("begin", "clear_hubs", "scale", "square"),
        combine="sum",            # executors' partial sums add up
        edge_writes=("hub", "auth"),
        uses_weights=weighted,
        source=_SOURCE,
    )


PROGRAMS = {w: _program(w) for w in (False, True)}


def hits(graph: Graph, *, max_iterations: int = 100, tol: float = 1e-8, normalized: bool = True,
         weighted: bool = True, options: RunOptions | None = None, **kwargs) -> Result:
    """Hubs and authorities (values ``hubs``, ``authorities``, float64), NetworkX's scaling.

    Driver hook (``_common.driver_hooks``): ``nstart``, the starting hubs (one
    value per vertex; None: uniform). Scalars: ``iterations`` and ``converged``
    (False: no step met the rule within ``max_iterations``; the values are the
    last iterate, scaled).
    """
    (nstart,) = driver_hooks(kwargs, "nstart")
    if int(max_iterations) != max_iterations or max_iterations < 0:
        raise ValueError(f"hits: argument 'max_iterations' must be a non-negative integer, got {max_iterations!r}")
    if not (isinstance(tol, (int, float)) and tol > 0 and math.isfinite(tol)):
        raise ValueError(f"hits: argument 'tol' must be a positive number, got {tol!r}")
    n = graph.n
    if nstart is None:
        start = np.full(n, 1.0 / max(n, 1))
    else:
        start = np.asarray(nstart, dtype=np.float64)
        if start.shape != (n,) or not start.sum():
            raise ValueError(f"hits: argument 'nstart' must hold {n} values with a non-zero sum")
        start = start / start.sum()
    use_weights = bool(weighted and graph.weighted)
    iterations, converged = 0, False
    with runtime_for(graph, "hits", options, kwargs) as rt:
        st = rt.start(PROGRAMS[use_weights], arrays={"hub": start},
                      scalars={"phase": AUTHORITIES, "hub_scale": 1.0, "auth_scale": 1.0})
        everyone = rt.all_vertices()
        if graph.m == 0:
            converged = True
            hubs = authorities = np.full(n, 1.0 / max(n, 1))
            return Result(graph, {"hubs": hubs, "authorities": authorities.copy()}, rt.record,
                          {"iterations": 0, "converged": True})

        def step() -> None:
            st.scalars["phase"] = AUTHORITIES
            st.edge_map(everyone, output=False)
            st.vertex_map("clear_hubs")
            st.scalars["phase"] = HUBS
            st.edge_map(everyone, reverse=True, output=False)

        while iterations < int(max_iterations):
            iterations += 1
            st.vertex_map("begin")
            step()
            h_max, a_max = st.reduce("hub", "max"), st.reduce("auth", "max")
            st.scalars["hub_scale"] = 1.0 / h_max if h_max else 1.0
            st.scalars["auth_scale"] = 1.0 / a_max if a_max else 1.0
            st.vertex_map("scale")
            if st.reduce("change", "sum") < tol:
                converged = True
                break
        if normalized:
            h_sum, a_sum = st.reduce("hub", "sum"), st.reduce("auth", "sum")
            st.scalars["hub_scale"] = 1.0 / h_sum if h_sum else 1.0
            st.scalars["auth_scale"] = 1.0 / a_sum if a_sum else 1.0
            st.vertex_map("scale")
        else:  # the SVD's scale: |a| = 1, h = A a
            st.vertex_map("square")
            norm = math.sqrt(st.reduce("change", "sum"))
            st.scalars["hub_scale"], st.scalars["auth_scale"] = 1.0, 1.0 / norm if norm else 1.0
            st.vertex_map("scale")
            st.vertex_map("clear_hubs")
            st.scalars["phase"] = HUBS
            st.edge_map(everyone, reverse=True, output=False)
        hubs = st.result("hub", np.float64)
        authorities = st.result("auth", np.float64)
    return Result(graph, {"hubs": hubs, "authorities": authorities}, rt.record,
                  {"iterations": iterations, "converged": converged})


# ---------------------------------------------------------------- verifier
#: the most vertices for which verify_hits decomposes a dense matrix (more: scipy's sparse svds)
DENSE_SVD_UP_TO = 4096


def verify_hits(graph: Graph, hubs: np.ndarray, authorities: np.ndarray, *, weighted: bool = True,
                normalized: bool = True, atol: float = 1e-6) -> None:
    """Raise AssertionError unless ``hubs`` and ``authorities`` are within ``atol`` of the leading
    singular vectors of ``A`` (a dense float64 SVD by numpy, not the framework), scaled as
    :func:`hits` scales them. For test-sized graphs whose leading singular value is simple.
    """
    n = graph.n
    hubs, authorities = np.asarray(hubs, np.float64), np.asarray(authorities, np.float64)
    assert hubs.shape == authorities.shape == (n,), "one hub and one authority value per vertex"
    assert np.all(np.isfinite(hubs)) and np.all(np.isfinite(authorities)), "a value is not finite"
    if n == 0 or graph.m == 0:
        return
    src, dst = graph.edges()
    entries = graph.weights.astype(np.float64) if weighted and graph.weighted else np.ones(len(src))
    if n <= DENSE_SVD_UP_TO:
        a = np.zeros((n, n))
        np.add.at(a, (src, dst), entries)
        _, _, vt = np.linalg.svd(a)
        top = vt[0]
    else:  # a dense n x n matrix past a few thousand vertices is gigabytes: ARPACK on the sparse one
        import scipy.sparse as sp
        from scipy.sparse.linalg import svds

        a = sp.csr_array((entries, (src, dst)), shape=(n, n))   # repeated arcs add up, as above
        _, _, vt = svds(a, k=1, tol=1e-12, random_state=0)
        top = vt[0]
    auth = top if top.sum() >= 0 else -top
    hub = a @ auth
    if normalized:
        hub, auth = hub / hub.sum(), auth / auth.sum()
    for name, got, want in (("hub", hubs, hub), ("authority", authorities, auth)):
        err = np.abs(got - want)
        assert err.max() <= atol, (f"vertex {int(np.argmax(err))}: {name} {got[np.argmax(err)]!r}, "
                                   f"expected {want[np.argmax(err)]!r}")
