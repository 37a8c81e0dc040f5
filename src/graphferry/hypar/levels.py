"""Running a chosen plan: one executor alone, or HyPar's levels of independent computation
(indComp) and merges (mergeParts), then post-processing on the faster executor."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING

import numpy as np

from ..graph import Graph
from .blocks import _cut
from .planner import Plan
from .workers import HyparExecutor, HyparResult, Split

if TYPE_CHECKING:
    from .applications import Application

MIN_SHRINK = 0.9            # recurse only while a level leaves at most this fraction of the vertices


def independent_compute(graph: Graph, split: Split, app: "Application", executors: list[HyparExecutor],
                        pool: ThreadPoolExecutor | None = None):
    """HyPar's indComp: each executor computes on its part at once; returns (results, seconds each).

    ``pool``: threads to run the executors on (one each), kept across levels by :func:`hypar`."""
    blocks = split.blocks()

    def work(i: int):
        t = time.perf_counter()
        part = app.part(graph, blocks[i], executors[i])
        out = app.local(part, blocks[i], executors[i], whole=graph)
        return out, time.perf_counter() - t

    if len(executors) == 1:
        outs = [work(0)]
    elif pool is not None:
        outs = list(pool.map(work, range(len(executors))))
    else:
        with ThreadPoolExecutor(max_workers=len(executors)) as own:
            outs = list(own.map(work, range(len(executors))))
    return [o for o, _ in outs], [s for _, s in outs]


def merge_parts(graph: Graph, split: Split, results: list, app: "Application", state: dict):
    """HyPar's mergeParts: the application merges and reduces; returns the reduced graph or None."""
    return app.merge(graph, split.blocks(), results, state)


_POOLS = threading.local()


def _pool(k: int) -> ThreadPoolExecutor:
    """Threads to run ``k`` executors at once, kept per calling thread for the process: starting
    threads took milliseconds a call on a busy host, as long as a small part's whole run."""
    pool, size = getattr(_POOLS, "pool", None), getattr(_POOLS, "size", 0)
    if pool is None or size < k:
        if pool is not None:
            pool.shutdown(wait=False)
        pool = _POOLS.pool = ThreadPoolExecutor(max_workers=k, thread_name_prefix="hypar")
        _POOLS.size = k
    return pool


def _run(g: Graph, app: "Application", executors: list[HyparExecutor], chosen: Plan, split: Split | None,
         timings: dict | None, *, graph: Graph | None = None, threshold_edges: int = 100_000_000,
         max_levels: int = 8) -> HyparResult:
    """Run a chosen plan on prepared graph ``g`` (of input ``graph``, by default ``g`` itself, which
    must then be prepared already): alone, the executor runs the application on the whole graph
    (:meth:`Application.alone`); split, HyPar's levels of independent computation and merges,
    then post-processing on the faster executor."""
    graph = g if graph is None else graph
    timings = {"independent": [], "independent_wall": [], "merge_levels": []} if timings is None else timings
    state = app.start(g)
    levels, first_cut = 0, g.n
    if chosen.alone is not None:
        t = time.perf_counter()
        app.alone(g, state, executors[chosen.alone])
        seconds = time.perf_counter() - t
        timings["independent"].append([seconds])
        timings["independent_wall"].append(seconds)
        levels = 1
    else:
        first_cut = int(split.bounds[1])
        reduced: Graph | None = g
        per_executor = np.zeros(len(executors))
        pool = _pool(len(executors))
        while reduced is not None and levels < max_levels:
            before = reduced.n
            t = time.perf_counter()
            results, seconds = independent_compute(reduced, split, app, executors, pool)
            timings["independent_wall"].append(time.perf_counter() - t)
            per_executor += seconds
            timings["independent"].append(seconds)
            t = time.perf_counter()
            reduced = merge_parts(reduced, split, results, app, state)
            timings["merge_levels"].append(time.perf_counter() - t)
            levels += 1
            if (reduced is None or reduced.m <= threshold_edges or not app.recursive
                    or reduced.n > MIN_SHRINK * before):   # little progress across the cut: post-process the rest
                break
            # recursion: the same speed ratio on the reduced graph (HyPar 4.4)
            split = _cut(reduced, split.shares, executors, app, split.sample_seconds)
        timings["merge"] = float(sum(timings["merge_levels"]))
        if reduced is not None or app.post_process_always:
            fastest = executors[int(np.argmin(per_executor))]
            t = time.perf_counter()
            app.post_process(reduced, state, fastest)
            timings["post_process"] = time.perf_counter() - t
    t = time.perf_counter()
    values, scalars = app.finish(graph, g, state)
    timings["finish"] = time.perf_counter() - t
    return HyparResult(graph, values, scalars, timings, first_cut, levels)
