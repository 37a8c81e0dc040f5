"""The Graph class itself (its derived CSRs)."""

import numpy as np
import pytest

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


@pytest.mark.parametrize("bad", [None, 0, 517, 999])
def test_check_csr_in_shares_finds_an_id_out_of_range_wherever_it_lies(monkeypatch, bad):
    """The indices' range check reduced by several threads (graph._parallel_max), each a share of the
    array: an id out of range in any share (the first, a middle one, the last entry) is found."""
    import graphferry.graph as graph_module
    from graphferry.graph import CSRError, check_csr

    monkeypatch.setattr(graph_module, "PARALLEL_MAX_ENTRIES", 8)
    monkeypatch.setattr("os.cpu_count", lambda: 7)
    n, m = 50, 1000
    offsets = np.linspace(0, m, n + 1).astype(np.int64)
    indices = np.random.default_rng(3).integers(0, n, m).astype(np.int32)
    if bad is None:
        check_csr(offsets, indices)
        return
    indices[bad] = -2 if bad % 2 else n
    with pytest.raises(CSRError, match=rf"indices\[{bad}\]"):
        check_csr(offsets, indices)
