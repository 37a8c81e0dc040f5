"""Tests of the synthetic graph generators (graphferry.generators)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphferry.generators import (
    BLOCK_EDGES,
    edge_weights,
    kronecker_edges,
    kronecker_graph,
    kronecker_permutation,
    uniform_graph,
    uniform_random_edges,
)


def collect(chunks):
    parts = list(chunks)
    if not parts:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


# --------------------------------------------------------------- determinism
@settings(max_examples=25, deadline=None)
@given(chunk=st.integers(1, 3000), threads=st.integers(1, 3), seed=st.integers(0, 2**40))
def test_kronecker_same_output_for_any_chunking_and_threads(chunk, threads, seed):
    ref = collect(kronecker_edges(7, 12, seed=seed, threads=1))
    got = collect(kronecker_edges(7, 12, seed=seed, chunk_edges=chunk, threads=threads))
    assert np.array_equal(ref[0], got[0]) and np.array_equal(ref[1], got[1])


def test_kronecker_across_blocks_is_deterministic():
    # More than one internal block, chunk sizes that straddle block boundaries.
    scale, ef = 12, 40  # 163840 samples = 2.5 blocks of 2**16
    ref = collect(kronecker_edges(scale, ef, seed=9, threads=1))
    assert len(ref[0]) == ef << scale > 2 * BLOCK_EDGES
    for chunk, threads in [(BLOCK_EDGES, 2), (BLOCK_EDGES - 1, 3), (100_003, 2), (10**9, 2)]:
        got = collect(kronecker_edges(scale, ef, seed=9, chunk_edges=chunk, threads=threads))
        assert np.array_equal(ref[0], got[0]) and np.array_equal(ref[1], got[1])


def test_kronecker_chunk_sizes():
    sizes = [len(s) for s, d in kronecker_edges(5, 10, chunk_edges=100)]
    assert sizes == [100, 100, 100, 20]
    assert all(s.dtype == np.int64 and d.dtype == np.int64 for s, d in kronecker_edges(5, 2))


def test_kronecker_seed_matters_and_edge_factor_keeps_prefix():
    s0, _ = collect(kronecker_edges(10, 4, seed=0))
    s1, _ = collect(kronecker_edges(10, 4, seed=1))
    assert not np.array_equal(s0, s1)
    s8, _ = collect(kronecker_edges(10, 8, seed=0))
    assert np.array_equal(s8[: len(s0)], s0)


def test_early_stop_of_threaded_stream_returns():
    it = kronecker_edges(14, 16, chunk_edges=1000, threads=2)
    next(it)
    it.close()  # must not hang on the worker pool


# ----------------------------------------------------------- counts & shape
@pytest.mark.parametrize("scale,ef", [(0, 3), (1, 1), (6, 16), (9, 5)])
def test_kronecker_vertex_and_edge_counts(scale, ef):
    src, dst = collect(kronecker_edges(scale, ef, seed=4))
    n = 1 << scale
    assert len(src) == len(dst) == ef * n
    assert src.min() >= 0 and dst.min() >= 0
    assert src.max() < n and dst.max() < n


def test_kronecker_zero_edges():
    assert collect(kronecker_edges(5, 0))[0].size == 0


def test_kronecker_quadrant_probabilities():
    # Without relabelling, every bit of src is 1 with probability c + d, every
    # bit of dst with b + d, and both with d (i.i.d. over levels and samples).
    a, b, c = 0.57, 0.19, 0.19
    scale = 10
    src, dst = collect(kronecker_edges(scale, 64, a=a, b=b, c=c, seed=3, permute=False))
    bits = np.arange(scale)
    sb = (src[:, None] >> bits) & 1
    db = (dst[:, None] >> bits) & 1
    assert abs(sb.mean() - (1 - a - b)) < 0.005
    assert abs(db.mean() - (1 - a - c)) < 0.005
    assert abs((sb & db).mean() - (1 - a - b - c)) < 0.003


def test_kronecker_permutation_is_a_relabelling():
    scale = 9
    perm = kronecker_permutation(scale, seed=5)
    assert np.array_equal(np.sort(perm), np.arange(1 << scale))
    raw = collect(kronecker_edges(scale, 8, seed=5, permute=False))
    relabelled = collect(kronecker_edges(scale, 8, seed=5))
    assert np.array_equal(perm[raw[0]], relabelled[0])
    assert np.array_equal(perm[raw[1]], relabelled[1])


def test_kronecker_degrees_are_skewed():
    g = kronecker_graph(14, seed=0)
    deg = g.out_degree
    assert deg.max() > 50 * deg.mean()
    # Graph500 relabels: the hubs are not simply the smallest ids.
    assert int(np.argmax(deg)) != 0
    # Many isolated vertices is characteristic of Graph500 Kronecker graphs.
    assert 0.1 < (deg == 0).mean() < 0.7


def test_uniform_degrees_are_not_skewed():
    g = uniform_graph(14, seed=0)
    deg = g.out_degree
    assert deg.max() < 3 * deg.mean()


@pytest.mark.parametrize("kw", [dict(a=0.6, b=0.3, c=0.3), dict(a=-0.1), dict(b=1.5)])
def test_kronecker_rejects_bad_probabilities(kw):
    with pytest.raises(ValueError, match="probabilit"):
        next(kronecker_edges(4, **kw))


@pytest.mark.parametrize("kw", [dict(scale=-1), dict(scale=3, edge_factor=-2), dict(scale=3, seed=-1)])
def test_kronecker_rejects_bad_counts(kw):
    with pytest.raises(ValueError):
        next(kronecker_edges(**kw))


# ------------------------------------------------------------------- uniform
@settings(max_examples=20, deadline=None)
@given(n=st.integers(1, 500), m=st.integers(0, 3000), chunk=st.integers(1, 4000),
       threads=st.integers(1, 3))
def test_uniform_counts_range_and_determinism(n, m, chunk, threads):
    ref = collect(uniform_random_edges(n, m, seed=7, threads=1))
    got = collect(uniform_random_edges(n, m, seed=7, chunk_edges=chunk, threads=threads))
    assert len(ref[0]) == m
    assert np.array_equal(ref[0], got[0]) and np.array_equal(ref[1], got[1])
    if m:
        assert 0 <= min(ref[0].min(), ref[1].min()) and max(ref[0].max(), ref[1].max()) < n


def test_uniform_is_roughly_uniform():
    src, dst = collect(uniform_random_edges(16, 160_000, seed=1))
    counts = np.bincount(src, minlength=16)
    assert np.all(np.abs(counts / 10_000 - 1) < 0.05)
    assert np.bincount(dst, minlength=16).min() > 9_000


def test_uniform_rejects_empty_vertex_set():
    with pytest.raises(ValueError):
        next(uniform_random_edges(0, 5))


# ------------------------------------------------------------------- weights
@settings(max_examples=30, deadline=None)
@given(start=st.integers(0, 3 * BLOCK_EDGES), count=st.integers(0, 2 * BLOCK_EDGES),
       kind=st.sampled_from(["int", "float"]))
def test_weights_depend_only_on_position(start, count, kind):
    whole = edge_weights(start + count, seed=11, kind=kind)
    part = edge_weights(count, start=start, seed=11, kind=kind)
    assert part.dtype == np.float32 and len(part) == count
    assert np.array_equal(part, whole[start:])


def test_weight_ranges():
    wi = edge_weights(200_000, seed=1, kind="int")
    assert wi.min() == 1 and wi.max() == 255 and np.array_equal(wi, np.round(wi))
    wf = edge_weights(200_000, seed=1, kind="float")
    assert wf.min() >= 0.0 and wf.max() < 1.0 and 0.49 < wf.mean() < 0.51
    assert not np.array_equal(edge_weights(100, seed=1), edge_weights(100, seed=2))


def test_weight_kind_is_checked():
    with pytest.raises(ValueError, match="weight kind"):
        edge_weights(3, kind="double")


# -------------------------------------------------------------- whole graphs
def _arcs(g):
    src, dst = g.edges()
    return src, dst


def test_kronecker_graph_defaults_undirected_simple():
    g = kronecker_graph(10, 8, seed=2)
    assert g.n == 1024 and not g.directed and not g.weighted
    src, dst = _arcs(g)
    assert not np.any(src == dst), "self-loops must be dropped"
    key = src * g.n + dst
    assert len(np.unique(key)) == len(key), "duplicates must be dropped"
    assert set(key.tolist()) == set((dst * g.n + src).tolist()), "must be symmetric"
    assert 0 < g.m <= 2 * 8 * 1024
    # Exactly the distinct non-loop pairs of the raw samples, symmetrised.
    rs, rd = collect(kronecker_edges(10, 8, seed=2))
    keep = rs != rd
    raw = np.unique(np.concatenate([rs[keep] * 1024 + rd[keep], rd[keep] * 1024 + rs[keep]]))
    assert np.array_equal(np.sort(key), raw)


def test_kronecker_graph_directed_keeps_what_is_asked():
    g = kronecker_graph(8, 4, seed=1, directed=True, drop_self_loops=False, drop_duplicates=False)
    assert g.directed and g.m == 4 * 256


def test_kronecker_graph_weighted_symmetric_weights():
    g = kronecker_graph(9, 8, seed=3, weighted=True)
    src, dst = _arcs(g)
    w = dict(zip((src * g.n + dst).tolist(), g.weights.tolist()))
    assert all(w[int(d) * g.n + int(s)] == x for s, d, x in zip(src[:2000], dst[:2000], g.weights[:2000]))
    assert g.weights.min() >= 1 and g.weights.max() <= 255
    gf = kronecker_graph(9, 8, seed=3, weighted=True, weight_kind="float")
    assert gf.weights.max() < 1.0


def test_uniform_graph_n_m_override():
    g = uniform_graph(0, n=300, m=1000, seed=2, directed=True)
    assert g.n == 300 and g.directed and g.m <= 1000


def test_progress_callback_counts_samples():
    seen = []
    kronecker_graph(8, 4, progress=seen.append, chunk_edges=100)
    assert sum(seen) == 4 * 256 and max(seen) == 100


def test_kronecker_graph_into_store(tmp_path):
    from graphferry import store

    g = kronecker_graph(9, 4, seed=6, store=tmp_path / "k9", weighted=True)
    ref = kronecker_graph(9, 4, seed=6, weighted=True)
    h = store.open_store(tmp_path / "k9")
    for x in (g, h):
        assert x.n == ref.n and x.m == ref.m and not x.directed
        assert np.array_equal(np.asarray(x.offsets), ref.offsets)
        assert np.array_equal(np.asarray(x.indices), ref.indices)
        assert np.array_equal(np.asarray(x.weights), ref.weights)
    assert h.meta["generator"]["scale"] == 9 and h.meta["generator"]["seed"] == 6
    with pytest.raises(Exception, match="exists"):
        kronecker_graph(9, 4, seed=6, store=tmp_path / "k9")
    assert kronecker_graph(5, 4, store=tmp_path / "k9", overwrite=True).n == 32
