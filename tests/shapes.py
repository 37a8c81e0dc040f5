"""Graph shapes that small uniform random graphs never produce: long paths, deep trees, large
diameters, heavy hubs, and graphs of thousands of vertices.

A loop capped at a few dozen rounds, or a stopping rule a few times too loose, survives
tests on 100-vertex random graphs (their diameter is a handful of hops); it does not
survive a 2,000-vertex path. Vertex ids are permuted so that consecutive path vertices
land in different partitions.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from graphferry import Graph

SHAPES = ("path", "tree", "ladder", "hub", "random")


def shape_edges(kind: str, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """(src, dst) of a ``kind`` graph on ``n`` vertices (ids 0..n-1 before permutation)."""
    v = np.arange(1, n)
    if kind == "path":                       # diameter n - 1
        src, dst = v - 1, v
    elif kind == "tree":                     # parent among the last 3: depth about n / 2
        src, dst = v - rng.integers(1, 4, n - 1).clip(max=v), v
    elif kind == "ladder":                   # two rails with rungs: diameter about n / 2, many shortest paths
        half = n // 2
        a = np.arange(half - 1)
        rungs = np.arange(half)
        src = np.concatenate([a, a + half, rungs])
        dst = np.concatenate([a + 1, a + 1 + half, rungs + half])
    elif kind == "hub":                      # one vertex joined to a third of the others, plus a long tail
        k = n // 3
        tail = np.arange(k, n - 1)
        src = np.concatenate([np.zeros(k - 1, np.int64), tail, rng.integers(0, n, n // 4)])
        dst = np.concatenate([np.arange(1, k), tail + 1, rng.integers(0, n, n // 4)])
    elif kind == "random":                   # sparse: long shortest paths in its big component
        m = int(1.3 * n)
        src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    else:
        raise ValueError(kind)
    return np.asarray(src, np.int64), np.asarray(dst, np.int64)


@st.composite
def shaped_graphs(draw, kinds=SHAPES, min_n=200, max_n=3000, weighted=False, directed=None):
    """(kind, Graph): a permuted ``kind`` graph; edges point either way at random when directed
    (so a directed path is broken into pieces that only the undirected view joins)."""
    kind = draw(st.sampled_from(kinds))
    n = draw(st.integers(min_n, max_n))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    src, dst = shape_edges(kind, n, rng)
    is_directed = draw(st.booleans()) if directed is None else directed
    if is_directed and draw(st.booleans()):
        flip = rng.random(len(src)) < 0.1
        src, dst = np.where(flip, dst, src), np.where(flip, src, dst)
    perm = rng.permutation(n)
    w = rng.integers(1, 5, len(src)).astype(np.float64) if weighted else None
    return kind, Graph.from_edges(perm[src], perm[dst], w, n=n, directed=is_directed)
