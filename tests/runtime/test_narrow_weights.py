"""Weights narrowed to uint8 / uint16 where every weight is an integer that fits.

A loaded graph's weighted sides read a narrow copy of the weights (5 or 6 bytes a
weighted edge instead of 8 with int32 ids). Oracles: numpy's own conversion for the
narrowing pass; scipy's Dijkstra and minimum spanning tree for the answers, which must
also be bit-identical to the same runs on float32 weights (``narrow_weights=False``),
on every engine, on the CPU backend's simulated device and on the GPU.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import ENGINES, dijkstra_distances
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.sparse import csgraph

import graphferry as gf
from graphferry import Graph
from graphferry.algorithms.mst import minimum_spanning_forest
from graphferry.algorithms.sssp import sssp
from graphferry.host_ops import narrow_weights

#: weight kind -> (a draw of m weights, the dtype the side should read)
KINDS = {
    "uint8": (lambda rng, m: rng.integers(0, 256, m).astype(np.float32), np.uint8),
    "uint16": (lambda rng, m: rng.integers(1, 60000, m).astype(np.float32), np.uint16),
    "float32": (lambda rng, m: (rng.integers(1, 40, m) + 0.5).astype(np.float32), np.float32),
}


def narrow_oracle(w: np.ndarray):
    """What numpy says the narrowest exact type is (None: keep float32)."""
    if len(w) == 0:
        return np.uint8
    ok = np.isfinite(w).all() and not np.signbit(w).any() and (w == np.floor(w)).all()
    if not ok or w.max() > 65535:
        return None
    return np.uint8 if w.max() <= 255 else np.uint16


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.integers(0, 300).map(float), st.integers(0, 70000).map(float),
                          st.sampled_from([-0.0, -1.0, 0.5, 255.5, float("nan"), float("inf"), 65535.0, 65536.0]),
                          st.floats(width=32, allow_nan=True)), max_size=60))
def test_narrowing_keeps_every_weight_exactly(values):
    w = np.array(values, dtype=np.float32)
    got = narrow_weights(w)
    want = narrow_oracle(w)
    if want is None:
        assert got is None
    else:
        assert got.dtype == want
        np.testing.assert_array_equal(got.astype(np.float32), w)


def test_narrowing_runs_in_parallel_blocks_on_a_large_array():
    rng = np.random.default_rng(0)
    w = rng.integers(0, 256, 3_000_017).astype(np.float32)
    assert narrow_weights(w).dtype == np.uint8
    w[2_999_999] = 256.0                      # one weight in the last block widens everything
    assert narrow_weights(w).dtype == np.uint16
    w[1_234_567] = 0.25
    assert narrow_weights(w) is None


def weighted_graph(kind: str, seed: int = 1, n: int = 300, m: int = 3000, directed: bool = True) -> Graph:
    rng = np.random.default_rng(seed)
    draw, _ = KINDS[kind]
    return Graph.from_edges(rng.integers(0, n, m), rng.integers(0, n, m), n=n, directed=directed,
                            weights=draw(rng, m))


@pytest.mark.parametrize("kind", list(KINDS))
@pytest.mark.parametrize("engine", ENGINES + ["hybrid"])
def test_sssp_on_narrowed_weights_equals_float32_and_dijkstra(engine, kind):
    g = weighted_graph(kind)
    src = int(np.argmax(np.diff(g.offsets)))
    options = {"backend": "cpu", "budget": None if engine in ("host", "resident") else g.m * 8 // 4,
               "partition_bytes": 2048}
    got = {}
    for narrow in (True, False):
        with gf.load(g, narrow_weights=narrow, **options) as lg:
            want_dtype = KINDS[kind][1] if narrow else np.float32
            assert lg.side_weights("out").dtype == want_dtype
            assert lg.side_weights("in").dtype == want_dtype   # the transpose's, for pull
            for direction in ("push", "pull"):
                r = sssp(lg, src, engine=engine, direction=direction)
                got[narrow, direction] = (r.distances, r.record.bytes_h2d)
    ref = dijkstra_distances(g, [src])
    for (narrow, direction), (dist, _) in got.items():
        np.testing.assert_array_equal(dist, got[False, direction][0])
        np.testing.assert_allclose(np.where(np.isinf(dist), np.inf, dist), ref, rtol=1e-6)
    if engine in ("filter", "compaction") and kind != "float32":  # fewer bytes cross for the same work
        assert got[True, "push"][1] < got[False, "push"][1]


@pytest.mark.parametrize("engine", ["host", "resident", "zerocopy"])
def test_spanning_forest_reads_narrowed_weights_through_the_whole_graph(engine):
    """The forest's neighbourhood function reads G.weights of the whole graph (GfGraph): narrowed
    there too, its total equals scipy's on the symmetrised graph."""
    rng = np.random.default_rng(4)
    pairs = np.unique(np.sort(rng.integers(0, 300, (3000, 2)), axis=1), axis=0)
    pairs = pairs[pairs[:, 0] != pairs[:, 1]]            # a simple graph: scipy's matrix is exact
    g = Graph.from_edges(pairs[:, 0], pairs[:, 1], n=300, directed=False,
                         weights=rng.integers(1, 60000, len(pairs)).astype(np.float32))
    with gf.load(g, backend="cpu") as lg:
        assert lg.side_weights("out").dtype == np.uint16
        forest = minimum_spanning_forest(lg, engine=engine)
    ref = csgraph.minimum_spanning_tree(g.to_scipy()).sum()
    assert float(forest.edges["weight"].sum(dtype=np.float64)) == ref


def test_a_temporary_graph_on_the_host_engine_reads_its_float_weights_where_they_lie():
    """One call on a plain graph with nothing to move makes no narrow copy (a pass over every
    weight that no later call would use)."""
    g = weighted_graph("uint8")
    lg = gf.LoadedGraph(g, backend="cpu", temporary=True)
    assert not lg.narrows("host") and lg.narrows("filter")
    r = sssp(g, 0, backend="cpu")
    np.testing.assert_array_equal(r.distances, sssp(g, 0, backend="cpu", engine="filter").distances)


@pytest.mark.gpu
@pytest.mark.parametrize("kind", list(KINDS))
@pytest.mark.parametrize("engine", ["resident", "filter", "compaction", "zerocopy", "hybrid"])
def test_cuda_sssp_on_narrowed_weights_equals_the_cpu(engine, kind):
    g = weighted_graph(kind, n=3000, m=60000)
    src = int(np.argmax(np.diff(g.offsets)))
    ref = sssp(g, src, backend="cpu").distances
    budget = None if engine == "resident" else g.m * 8 // 4
    with gf.load(g, backend="cuda", budget=budget, partition_bytes=16384) as lg:
        assert lg.side_weights("out").dtype == KINDS[kind][1]
        for direction in ("push", "pull"):
            np.testing.assert_array_equal(sssp(lg, src, engine=engine, direction=direction).distances, ref)
    with gf.load(g, backend="cuda") as lg:
        forest = minimum_spanning_forest(lg, engine="resident")
    assert forest.edges["weight"].sum() == pytest.approx(minimum_spanning_forest(g, backend="cpu").edges["weight"].sum())


def test_which_loads_narrow_and_which_read_float_weights():
    """A kept graph narrows for every engine; one loaded for a single call only for engines that
    move edges again and again; several ranks never (their maps read the graph's own weights)."""
    from graphferry.distributed.graph import DistributedGraph
    from graphferry.distributed.world import local_world

    g = weighted_graph("uint8")
    kept = gf.load(g, backend="cpu")
    one_call = gf.LoadedGraph(g, backend="cpu", temporary=True)
    assert all(kept.narrows(e) for e in ENGINES + ["hybrid"])
    assert [e for e in ENGINES + ["hybrid"] if one_call.narrows(e)] == ["filter", "compaction", "zerocopy", "unified",
                                                                        "hybrid"]
    assert not gf.load(g, backend="cpu", narrow_weights=False).narrows("filter")
    ranks = DistributedGraph(g, local_world(), backend="cpu")
    assert not any(ranks.narrows(e) for e in ENGINES)
    kept.close()


def test_a_block_admitted_again_gives_its_old_buffers_back():
    """A forced filter mix copies partitions that already hold a block again: the pool used to
    overwrite the block and lose its bytes from the budget's count (at close, bytes stayed used)."""
    from graphferry.generators import kronecker_graph
    from graphferry.scheduler import Policy

    g = kronecker_graph(12, seed=3, weighted=True)
    src = int(np.argmax(np.diff(g.offsets)))
    with gf.load(g, backend="cpu", budget=int(0.6 * g.m * 8), partition_bytes=g.m * 8 // 125) as lg:
        for _ in range(2):
            r = sssp(lg, src, engine="hybrid", policy=Policy(mix=[("device", "filter")]))
        held = sum(b.nbytes for b in lg.pool.blocks.values()) + sum(
            s.indices.nbytes + (0 if s.weights is None else s.weights.nbytes) for v in lg.pool.slots.values() for s in v)
        assert lg.arena.used_bytes == held
    assert lg.arena.used_bytes == 0
    np.testing.assert_array_equal(r.distances, sssp(g, src, backend="cpu").distances)
