"""The Graph class itself (its derived CSRs)."""

import numpy as np

from graphferry import Graph


def test_a_transpose_keeps_the_graphs_id_type():
    """A small graph given int64 ids keeps them in its transpose: kernels are compiled for the
    graph's id type, and a pull on int32 ids read as int64 crashed."""
    import graphferry as gf
    from graphferry.algorithms import bfs

    rng = np.random.default_rng(3)
    g32 = Graph.from_edges(rng.integers(0, 500, 6000), rng.integers(0, 500, 6000), n=500, directed=True)
    g64 = Graph(g32.offsets, g32.indices.astype(np.int64), None, directed=True)
    assert g64.transpose().indices.dtype == np.int64
    with gf.load(g64, backend="cpu") as lg:
        np.testing.assert_array_equal(bfs(lg, 0, direction="pull").levels, bfs(g32, 0, backend="cpu").levels)
