"""Breadth-first search: levels and a parent tree, direction-optimising (Beamer).

Push from the frontier while it is small; pull (each unvisited vertex looks
for any visited in-neighbour and stops at the first) once the frontier's edges
exceed a fraction of ``m``. The runtime makes that choice, not this file.

Example:
    >>> import numpy as np
    >>> from graphferry import Graph
    >>> from graphferry.algorithms.bfs import bfs
    >>> g = Graph.from_edges(np.array([0, 0, 1, 3]), np.array([1, 2, 3, 4]), n=6)
    >>> r = bfs(g, 0, backend="cpu")
    >>> r.levels.tolist()
    [0, 1, 1, 2, 3, -1]
"""

from __future__ import annotations

import numpy as np

from ..graph import Graph
from ..runtime import Program, RunOptions
from . import registry
from ._common import Result, arc_keys, runtime_for

PROGRAM = Program(
    "bfs",
    combine="max",  # executors' parents/levels: -1 (unreached) loses to any id or depth
    signals_changes=True,  # a vertex's state changes only where its compare-and-swap succeeds
    edge_writes=("parent", "level"),
    # the graph's vertex-id width (int32 when n < 2^31, as GAPBS's NodeID): the pull's scan of
    # every row's parent and the fills at the start read and write half the bytes of int64, and
    # the state arrays are the result as they are (no pass to widen them)
    arrays={"parent": "vid", "level": "vid"},
    scalars={"depth": "int64"},
    source=r"""
GF_FN bool cond(const State& S, vid_t d) { return S.parent[d] < 0; }
// pull: one thread owns d; the first visited in-neighbour wins
GF_FN bool update(const State& S, vid_t s, vid_t d, float w) {
    S.parent[d] = s; S.level[d] = (vid_t)S.depth; return true;
}
// push: sources race for d; exactly one compare-and-swap succeeds
GF_FN bool update_atomic(const State& S, vid_t s, vid_t d, float w) {
    if (gf_cas(&S.parent[d], (vid_t)-1, s)) { S.level[d] = (vid_t)S.depth; return true; }
    return false;
}
""",
)


def bfs(graph: Graph, source, *, options: RunOptions | None = None, **kwargs) -> Result:
    """Levels (``-1`` unreachable) and parents (``-1`` unreachable; the source is its own parent).

    ``source`` is an id of the input (an original id when the input was renumbered).
    Both arrays have the graph's vertex-id dtype (``graph.indices.dtype``: int32 when
    ``n < 2**31``, else int64).
    """
    s = graph.to_internal_id(source)
    with runtime_for(graph, "bfs", options, kwargs) as rt:
        st = rt.start(PROGRAM, arrays={"parent": -1, "level": -1})
        st.assign("parent", [s], s)
        st.assign("level", [s], 0)
        frontier = rt.frontier([s])
        depth = 0
        while frontier:
            depth += 1
            st.scalars["depth"] = depth
            frontier = st.edge_map(frontier)
        levels = st.result("level")
        parents = st.result("parent")
    return Result(graph, {"levels": levels, "parents": parents}, rt.record, {"source": s},
                  vertex_ids=registry.get("bfs").vertex_ids)


def verify_bfs(graph: Graph, source: int, levels: np.ndarray, parents: np.ndarray) -> None:
    """GAPBS-style check without the framework; raises AssertionError on the first violation.

    The source, and only the source, has level 0 and is its own parent; no edge
    leads from level l to a vertex deeper than l + 1 or to an unreached vertex;
    each other reached vertex's parent is an in-neighbour one level up. Together
    these pin every level: following parents from any reached vertex walks down
    one level a step to the only level-0 vertex, the source (so a level is never
    below the true distance), and no edge skips a level (so never above it).
    """
    levels = np.asarray(levels)
    parents = np.asarray(parents)
    n = graph.n
    assert levels.shape == (n,) and parents.shape == (n,), "one level and one parent per vertex"
    assert np.all(levels >= -1), "a level is below -1"
    assert levels[source] == 0 and parents[source] == source, "source must have level 0 and be its own parent"
    src, dst = graph.edges()
    reached_src = levels[src] >= 0
    assert np.all(levels[dst[reached_src]] >= 0), "an edge leads from a reached to an unreached vertex"
    assert np.all(levels[dst[reached_src]] <= levels[src[reached_src]] + 1), "an edge skips a level"
    others = np.flatnonzero(levels >= 0)
    others = others[others != source]
    assert np.all(levels[others] > 0), "a vertex other than the source has level 0"
    p = parents[others]
    assert np.all((p >= 0) & (p < n)), "a reached vertex has no parent"
    assert np.all(levels[p] == levels[others] - 1), "a parent is not one level up"
    # parent must be an in-neighbour: (p, v) is an edge
    key = arc_keys(src, dst, n)
    key.sort()
    want = arc_keys(p, others, n)
    pos = np.searchsorted(key, want)
    pos = np.minimum(pos, len(key) - 1)
    assert len(want) == 0 or np.all(key[pos] == want), "a parent is not an in-neighbour"
    assert np.all(parents[levels < 0] == -1), "an unreached vertex has a parent"
