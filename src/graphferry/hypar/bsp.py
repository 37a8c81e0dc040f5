"""The BSP baseline HyPar compares with (Section 7.3.1): supersteps over :func:`part_graph`'s blocks,
the blocks' state exchanged after each."""

from __future__ import annotations

import time

import numpy as np

from ..graph import Graph
from .applications import BspApplication, bsp_application
from .driver import part_graph
from .levels import _pool
from .workers import HyparExecutor, HyparResult, labels


def bsp(graph: Graph, app: "str | BspApplication", executors: list[HyparExecutor], *, max_supersteps: int | None = None,
        seed: int = 0, shares: list[float] | None = None) -> HyparResult:
    """Run application ``app`` (a name from :data:`BSP_APPLICATIONS`) by BSP supersteps over the blocks
    :func:`part_graph` gives HyPar: every executor computes one superstep on its block from the state
    of the last exchange, at the same time as the others; then the state is exchanged, until the
    application says it is done (or after ``max_supersteps``, by default the application's). The
    result's ``levels`` is the number of supersteps.

    Example:
        >>> from graphferry import Graph
        >>> g = Graph.from_edges([0, 1, 2, 4, 5, 7], [1, 2, 3, 5, 6, 8], n=9, directed=False)
        >>> two = [HyparExecutor("cpu"), HyparExecutor("cpu", engine="compaction", budget=1 << 16, partition_bytes=256)]
        >>> r = bsp(g, "coloring", two, shares=[0.3, 0.7])     # blocks 0-2 and 3-8
        >>> r.values["colors"].tolist(), r.cut, r.levels
        ([0, 1, 0, 1, 1, 0, 1, 0, 1], 3, 2)
    """
    if isinstance(app, str):
        app = bsp_application(app)
    if not executors:
        raise ValueError("bsp needs at least one executor")
    limit = app.max_supersteps if max_supersteps is None else max_supersteps
    t0 = time.perf_counter()
    app.use(executors)
    g = app.prepare(graph)
    state = app.start(g)
    split = part_graph(g, app, executors, seed=seed, shares=shares)
    blocks = split.blocks()
    parts = [app.bsp_part(g, block, ex) for block, ex in zip(blocks, executors)]
    seconds = np.zeros(len(executors))
    supersteps = 0

    def step(i: int):
        t = time.perf_counter()
        out = app.superstep(g, parts[i], blocks[i], executors[i], state)
        return out, time.perf_counter() - t

    pool = _pool(len(executors))
    while supersteps < limit:
        supersteps += 1
        outs = list(pool.map(step, range(len(executors))))
        seconds += [s for _, s in outs]
        if not app.exchange(g, blocks, [o for o, _ in outs], state):   # the exchange
            break
    values, scalars = app.finish(graph, g, state)
    timings = {"total": time.perf_counter() - t0, "supersteps": supersteps, "executor_seconds": seconds.tolist(),
               "executors": labels(executors), "sample_seconds": split.sample_seconds}
    return HyparResult(graph, values, scalars, timings,
                       int(split.bounds[1]) if len(split.bounds) > 2 else g.n, supersteps)


def bsp_components(graph: Graph, executors: list[HyparExecutor], *, max_supersteps: int = 10_000) -> HyparResult:
    """Connected components by BSP supersteps (:func:`bsp` with :class:`BspComponents`)."""
    return bsp(graph, "components", executors, max_supersteps=max_supersteps)
