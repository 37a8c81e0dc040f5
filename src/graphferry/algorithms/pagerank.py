"""PageRank, in two forms: delta-based push to a tolerance, and LDBC Graphalytics' fixed iterations.

Both compute the PageRank whose sink vertices (no out-edges) spread their rank
uniformly over all vertices (networkx's and LDBC's definition)::

    PR(v) = (1 - d) / n  +  d * sum_{u -> v} PR(u) / outdeg(u)  +  d / n * sum_{sinks w} PR(w)

**pagerank** (delta-based, HyTGraph / Lux push model). Each vertex holds a
residual, rank not yet passed on. Active vertices (residual above a
threshold) move their residual into their rank and send ``d * residual /
outdeg`` to each out-neighbour's residual (push: atomic add; pull: each
vertex sums what its active in-neighbours send); only vertices whose residual
grew past the threshold stay active, so work shrinks as ranks settle. Sinks are
handled without dense all-to-all traffic: with the sink terms left out the
iteration solves ``y = 1 / n + d * A y``, and since the sink terms only
add a multiple of the uniform vector, the true ranks are ``y / sum(y)``
(ranks sum to 1). A vertex stays active while its residual exceeds ``tol``
times its rank (plus ``1 / n``) in magnitude, so hubs need no more rounds than
the rest (about ``log(tol) / log(d)``); the run stops when no vertex is active
(the L1 error is then at most about ``4 d / (1 - d) * tol``) or after
``max_iterations`` rounds (with a ``RuntimeWarning`` and ``converged = False``).
State may be float64 or float32.

Where it starts (``start``): ``"uniform"`` is the classic delta form, rank 0
and every residual ``1 / n``: the whole mass, ``1 / (1 - d)`` of it in all,
flows through the graph, and every vertex stays active for the first dozen
rounds or so. ``"degrees"`` (the default) starts from a guess,
``y0 = 1 / n + d / (1 - d) * indeg / m``: on an undirected graph ``deg / 2m`` is
where a random walk without teleports settles, so the guess is near the
answer. One priming round (an edge map over every vertex, counted as an
iteration) then gives its exact residual, ``r0 = 1 / n + d * A D^-1 y0 - y0``,
which may be negative anywhere, and the rounds pass on only that. Any guess
reaches the same ranks under the same rule; a good one leaves far less to pass
on (``bench/NOTES-hybrid.md``): on the CPU backend a uniform random graph of
scale 20 at tol 0.01 took 4 rounds (the priming one included) instead of 29,
to the same L1 error; in a model of the rule at scale 18 it read 0.04 m edges
instead of 18.8 m, and a Kronecker graph 28% fewer.

**pagerank_ldbc** (Graphalytics, ``spec/appendix_algorithms.tex``): every rank
starts at ``1 / n``; each of exactly ``iterations`` rounds sums the sinks'
rank, then every vertex pulls ``rank[u] / outdeg(u)`` from its in-neighbours
and sets ``(1 - d) / n + d * pulled + d / n * sink_sum``. Double precision
throughout. Every vertex is active, so the runtime pulls (one owner thread
per vertex: no atomics, a fixed summation order on the CPU); the program also
has the atomic form, which a device kernel uses to split a hub's in-edges over
many threads, and which a forced push uses.

Example:
    >>> import numpy as np
    >>> from graphferry import Graph
    >>> from graphferry.algorithms.pagerank import pagerank, pagerank_ldbc, verify_pagerank
    >>> g = Graph.from_edges(np.array([0, 1, 1, 2]), np.array([1, 0, 2, 0]), n=4)
    >>> r = pagerank_ldbc(g, damping=0.85, iterations=2, backend="cpu")
    >>> np.round(r.ranks, 6).tolist()
    [0.35293, 0.404727, 0.185586, 0.056758]
    >>> verify_pagerank(g, r.ranks, damping=0.85, iterations=2)
    >>> p = pagerank(g, tol=1e-9, max_iterations=200, backend="cpu")
    >>> verify_pagerank(g, p.ranks, damping=0.85, atol=1e-7)
    >>> round(float(p.ranks.sum()), 12), p.converged
    (1.0, True)
"""

from __future__ import annotations

import math
import logging

import numpy as np

from ..graph import Graph
from ..runtime import Program, RunOptions
from ._common import Result, once, runtime_for

log = logging.getLogger(__name__)

_DELTA_SOURCE = r"""
typedef {T} real_t;
GF_FN bool cond(const State& S, vid_t d) { return true; }
// pull: d owns its residual and sums what its active in-neighbours send
GF_FN bool update(const State& S, vid_t s, vid_t d, float w) {
    S.resid[d] += S.send[s]; return true;
}
// the same sum folded in a register (the CPU pull kernel's form)
GF_FN real_t pull_begin(const State& S, vid_t d) { return S.resid[d]; }
GF_FN void pull_fold(const State& S, real_t& a, vid_t s, vid_t d, float w) { a += S.send[s]; }
GF_FN bool pull_end(const State& S, vid_t d, real_t a) { S.resid[d] = a; return true; }
// a partial sum of d's in-edges, added while other threads add the rest
GF_FN bool pull_merge(const State& S, vid_t d, real_t a) { gf_atomic_add(&S.resid[d], a); return true; }
// push: many sources add to d's residual at once
GF_FN bool update_atomic(const State& S, vid_t s, vid_t d, float w) {
    gf_atomic_add(&S.resid[d], S.send[s]); return true;
}
// an active vertex keeps its residual and passes on d / outdeg of it (scale = 0 for sinks)
GF_FN bool emit(const State& S, vid_t v) {
    const real_t r = S.resid[v];
    S.rank[v] += r;
    S.send[v] = r * S.scale[v];
    S.resid[v] = (real_t)0;
    return true;
}
// stay active while the residual is above tol relative to the rank (floored at 1/n), in
// magnitude: after a warm start it may be negative
GF_FN bool active(const State& S, vid_t v) {
    return fabs((double)S.resid[v]) > S.tol * ((double)S.rank[v] + S.floor);
}
// a warm start: rank holds the in-degree share; the guess y0 = 1/n + warm * share is passed on
// (d / outdeg of it), and the residual starts at what the guess lacks, 1/n - y0, to which the
// priming round's pull adds d * A D^-1 y0
GF_FN bool prime(const State& S, vid_t v) {
    const real_t y = (real_t)(S.floor + S.warm * (double)S.rank[v]);
    S.rank[v] = y;
    S.send[v] = y * S.scale[v];
    S.resid[v] = (real_t)(S.floor - (double)y);
    return true;
}
// at the end: the rank keeps what is still pending, then all ranks are scaled to sum to 1
GF_FN bool settle(const State& S, vid_t v) {
    S.rank[v] += S.resid[v];
    S.resid[v] = (real_t)0;
    return false;
}
GF_FN bool normalise(const State& S, vid_t v) {
    S.rank[v] = (real_t)((double)S.rank[v] * S.norm);
    return false;
}
"""


def _delta_program(dtype: str) -> Program:
    ctype = {"float64": "double", "float32": "float"}[dtype]
    return Program(
        f"pagerank_delta_{dtype}",
        arrays={"rank": dtype, "resid": dtype, "send": dtype, "scale": dtype},
        scalars={"tol": "float64", "floor": "float64", "norm": "float64", "warm": "float64"},
        vertex_functions=("emit", "active", "settle", "normalise", "prime"),
        combine="sum",  # executors' residual increments add up
        edge_writes=("resid",),  # the edge functions add into resid only
        # asynchronous mode: a loaded partition's vertices whose residual grew past the threshold
        # in this round pass it on at once, from the edges already on the device
        again=("active", "emit"),
        # and its partitions go in order of the residual their pushes carry (send x out-degree)
        priority="send",
        source=_DELTA_SOURCE.replace("{T}", ctype),
    )


DELTA_PROGRAMS = {dt: _delta_program(dt) for dt in ("float64", "float32")}

LDBC_PROGRAM = Program(
    "pagerank_ldbc",
    arrays={"rank": "float64", "acc": "float64", "contrib": "float64", "scale": "float64"},
    scalars={"base": "float64", "damping": "float64"},
    vertex_functions=("prepare", "finish", "finish_change"),
    combine="sum",  # executors' pushed sums add up
    edge_writes=("acc",),  # the edge functions add into acc only
    source=r"""
GF_FN bool cond(const State& S, vid_t d) { return true; }
// pull: one thread owns d, so a plain sum in a fixed order
GF_FN bool update(const State& S, vid_t s, vid_t d, float w) {
    S.acc[d] += S.contrib[s]; return false;
}
// the same sum folded in a register (the CPU pull kernel's form): one store per vertex
GF_FN double pull_begin(const State& S, vid_t d) { return S.acc[d]; }
GF_FN void pull_fold(const State& S, double& a, vid_t s, vid_t d, float w) { a += S.contrib[s]; }
GF_FN bool pull_end(const State& S, vid_t d, double a) { S.acc[d] = a; return false; }
// a partial sum of d's in-edges, added while other threads add the rest (a GPU's heavy rows)
GF_FN bool pull_merge(const State& S, vid_t d, double a) { gf_atomic_add(&S.acc[d], a); return false; }
// the atomic form: for push, and for device kernels that split a heavy row over many threads
GF_FN bool update_atomic(const State& S, vid_t s, vid_t d, float w) {
    gf_atomic_add(&S.acc[d], S.contrib[s]); return false;
}
// once, before the first round: what each vertex sends (scale = 1 / outdeg, 0 for sinks)
GF_FN bool prepare(const State& S, vid_t v) {
    S.contrib[v] = S.rank[v] * S.scale[v];
    S.acc[v] = 0.0;
    return false;
}
// after each round: the new rank, and already what it sends in the next round
// (one pass over the vertices per round, as GAPBS's pull does)
GF_FN bool finish(const State& S, vid_t v) {
    const double r = S.base + S.damping * S.acc[v];
    S.rank[v] = r;
    S.contrib[v] = r * S.scale[v];
    S.acc[v] = 0.0;
    return false;
}
// finish, keeping in acc how far the rank moved (|new - old|, summed for NetworkX's stopping
// test); prepare then clears acc for the next round
GF_FN bool finish_change(const State& S, vid_t v) {
    const double r = S.base + S.damping * S.acc[v];
    S.acc[v] = fabs(r - S.rank[v]);
    S.rank[v] = r;
    S.contrib[v] = r * S.scale[v];
    return false;
}
""",
)


def _check_damping(damping) -> float:
    d = float(damping)
    if not (0.0 <= d <= 1.0):
        raise ValueError(f"pagerank: argument 'damping' must lie in [0, 1], got {damping!r}")
    return d


def _inverse_degrees(graph: Graph, dtype) -> np.ndarray:
    deg = graph.out_degree
    scale = np.zeros(graph.n, dtype=np.float64)
    np.divide(1.0, deg, out=scale, where=deg > 0)
    return scale.astype(dtype, copy=False)


def pagerank(graph: Graph, *, damping: float = 0.85, tol: float = 1e-6, max_iterations: int = 100,
             dtype: str = "float64", start: str = "degrees", options: RunOptions | None = None,
             **kwargs) -> Result:
    """Delta-based PageRank to tolerance ``tol`` (see module docstring); ranks sum to 1.

    ``dtype``: ``"float64"`` or ``"float32"`` vertex state (ranks are returned
    as float64). ``start``: ``"degrees"`` (a guess from in-degrees and one priming
    round) or ``"uniform"`` (the classic delta form). ``scalars`` holds
    ``iterations`` (the priming round included) and ``converged``.
    """
    d = _check_damping(damping)
    if d >= 1.0:
        raise ValueError(f"pagerank: argument 'damping' must be below 1 for the delta form, got {damping!r}")
    if not (isinstance(tol, (int, float)) and tol > 0 and math.isfinite(tol)):
        raise ValueError(f"pagerank: argument 'tol' must be a positive number, got {tol!r}")
    if int(max_iterations) < 0:
        raise ValueError(f"pagerank: argument 'max_iterations' must be >= 0, got {max_iterations!r}")
    if dtype not in DELTA_PROGRAMS:
        raise ValueError(f"pagerank: argument 'dtype' must be 'float64' or 'float32', got {dtype!r}")
    if start not in ("degrees", "uniform"):
        raise ValueError(f"pagerank: argument 'start' must be 'degrees' or 'uniform', got {start!r}")
    n = graph.n
    program = DELTA_PROGRAMS[dtype]
    iterations, converged = 0, True
    with runtime_for(graph, "pagerank", options, kwargs) as rt:
        if n == 0:
            return Result(graph, {"ranks": np.zeros(0)}, rt.record, {"iterations": 0, "converged": True})
        inverse = rt.constant("inverse_out_degree", lambda: _inverse_degrees(graph, np.float64))
        scalars = {"tol": float(tol), "floor": 1.0 / n, "warm": d / (1.0 - d)}
        if start == "uniform" or int(max_iterations) < 1:
            st = rt.start(program, arrays={"resid": 1.0 / n, "scale": d * inverse}, scalars=scalars)
        else:
            share = rt.constant("in_degree_share", lambda: graph.in_degree / max(1, graph.m))
            st = rt.start(program, arrays={"rank": share, "scale": d * inverse}, scalars=scalars)
            st.vertex_map("prime")
            st.edge_map(rt.all_vertices(), output=False)  # the residual of the guess, everywhere
            iterations = 1
        frontier = st.vertex_map("active")
        while frontier:
            if iterations >= int(max_iterations):
                converged = False
                break
            iterations += 1
            st.vertex_map("emit", frontier)
            touched = st.edge_map(frontier)
            frontier = st.vertex_map("active", touched) if touched else touched
        # rank + pending residual, scaled to sum 1, where the state lives: one transfer back
        st.vertex_map("settle")
        total = st.reduce("rank", "sum")
        if total > 0:
            st.scalars["norm"] = 1.0 / total
            st.vertex_map("normalise")
            ranks = st.result("rank", np.float64)
        else:
            ranks = np.full(n, 1.0 / n)
    if not converged:  # reported, not raised: the result says converged=False
        log.warning("pagerank did not reach tol=%g in %d iterations", tol, max_iterations)
    return Result(graph, {"ranks": ranks}, rt.record, {"iterations": iterations, "converged": converged})


def pagerank_ldbc(graph: Graph, *, damping: float, iterations: int, stop_below: float | None = None,
                  options: RunOptions | None = None, **kwargs) -> Result:
    """LDBC Graphalytics PageRank: exactly ``iterations`` rounds, sinks redistributed, float64.

    ``stop_below``: stop after the first round whose ranks moved less than this
    in L1 (``sum |x_k - x_{k-1}|``), NetworkX's stopping test (``err < N * tol``),
    evaluated every round in the same run; the scalars then say how many rounds
    ran (``iterations``) and whether the test fired (``converged``).
    """
    d = _check_damping(damping)
    if int(iterations) != iterations or iterations < 0:
        raise ValueError(f"pagerank_ldbc: argument 'iterations' must be a non-negative integer, got {iterations!r}")
    n = graph.n
    with runtime_for(graph, "pagerank_ldbc", options, kwargs) as rt:
        if n == 0:
            return Result(graph, {"ranks": np.zeros(0)}, rt.record, {"iterations": 0})
        st = rt.start(LDBC_PROGRAM, arrays={"rank": 1.0 / n,
                                            "scale": rt.constant("inverse_out_degree",
                                                                 lambda: _inverse_degrees(graph, np.float64))},
                      scalars={"damping": d, "base": 0.0})
        # the sinks as a frontier, built once per loaded graph (ids uploaded once)
        sinks = once(graph, "pagerank.sink_frontier", lambda: rt.frontier(np.flatnonzero(graph.out_degree == 0)))
        everyone = rt.all_vertices()
        st.vertex_map("prepare")
        rounds, converged = 0, stop_below is None
        for _ in range(int(iterations)):
            sink_sum = st.reduce("rank", "sum", sinks) if sinks else 0.0
            st.scalars["base"] = (1.0 - d) / n + d / n * sink_sum
            st.edge_map(everyone, output=False)  # every vertex stays active: no frontier to build
            rounds += 1
            if stop_below is None:
                st.vertex_map("finish")
                continue
            st.vertex_map("finish_change")
            moved = st.reduce("acc", "sum", everyone)
            st.vertex_map("prepare")
            if moved < stop_below:
                converged = True
                break
        ranks = st.result("rank", np.float64)
    scalars = {"iterations": rounds}
    if stop_below is not None:
        scalars["converged"] = converged
    return Result(graph, {"ranks": ranks}, rt.record, scalars)


# ---------------------------------------------------------------- verifier
def pagerank_reference(graph: Graph, damping: float, iterations: int | None = None) -> np.ndarray:
    """Float64 power iteration with scipy.sparse (independent of the framework).

    ``iterations``: exactly that many rounds from ``1 / n`` (LDBC); None: until
    the L1 change is below 1e-15 (at most 10,000 rounds).
    """
    n = graph.n
    if n == 0:
        return np.zeros(0)
    import scipy.sparse as sp

    # a[u, v] = number of arcs u -> v (edge weights play no part in PageRank)
    a = sp.csr_array((np.ones(graph.m), graph.indices, graph.offsets), shape=(n, n))
    deg = np.asarray(a.sum(axis=1)).ravel()
    sink = deg == 0
    inv = np.where(sink, 0.0, 1.0 / np.where(sink, 1.0, deg))
    at = a.T.tocsr()
    x = np.full(n, 1.0 / n)
    rounds = 10_000 if iterations is None else int(iterations)
    for _ in range(rounds):
        nxt = (1.0 - damping) / n + damping * (at @ (x * inv)) + damping / n * x[sink].sum()
        done = iterations is None and np.abs(nxt - x).sum() < 1e-15
        x = nxt
        if done:
            break
    return x


def verify_pagerank(graph: Graph, ranks: np.ndarray, *, damping: float, iterations: int | None = None,
                    atol: float = 1e-10, rtol: float = 1e-9) -> None:
    """Raise AssertionError unless ``ranks`` is within tolerance of :func:`pagerank_reference`."""
    ranks = np.asarray(ranks, dtype=np.float64)
    assert ranks.shape == (graph.n,), "one rank per vertex"
    assert np.all(np.isfinite(ranks)) and np.all(ranks >= 0), "a rank is negative or not finite"
    want = pagerank_reference(graph, damping, iterations)
    err = np.abs(ranks - want)
    bad = err > atol + rtol * np.abs(want)
    assert not bad.any(), (f"{int(bad.sum())} ranks differ from the float64 power iteration "
                           f"(worst: vertex {int(np.argmax(err))}, {ranks[np.argmax(err)]!r} vs {want[np.argmax(err)]!r})")
