"""CSRBuilder: results against independent references, spilling, atomicity, 64-bit offsets."""

from __future__ import annotations

import os
from collections import Counter

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import graphferry.io.builder as builder_mod
from graphferry.errors import InputError
from graphferry.graph import offsets_from_degrees
from graphferry.io import csr_passes
from graphferry.io.builder import CSRBuilder, row_blocks, scatter_positions
from graphferry.partition import partition_bounds, partition_by_bytes
from graphferry.store import open_store


def _arcs(g):
    src = np.repeat(np.arange(g.n), np.diff(np.asarray(g.offsets)))
    w = np.asarray(g.weights).tolist() if g.weighted else [None] * g.m
    return Counter(zip(src.tolist(), np.asarray(g.indices).tolist(), w))


def _expected(src, dst, w, directed, drop_loops, drop_dups):
    """Reference arc multiset, written independently of the builder."""
    out = Counter()
    seen = set()
    for i, (u, v) in enumerate(zip(src.tolist(), dst.tolist())):
        x = None if w is None else float(np.float32(w[i]))
        if drop_loops and u == v:
            continue
        if not directed:
            u, v = min(u, v), max(u, v)
        if drop_dups:
            if (u, v) in seen:
                continue
            seen.add((u, v))
        out[(u, v, x)] += 1
        if not directed and u != v:
            out[(v, u, x)] += 1
    return out


def _build(src, dst, w, *, chunk, **kw):
    b = CSRBuilder(weighted=w is not None, **kw)
    for i in range(0, len(src), chunk):
        b.add(src[i:i + chunk], dst[i:i + chunk], None if w is None else w[i:i + chunk])
    return b


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 25), k=st.integers(0, 150), chunk=st.integers(1, 60),
       directed=st.booleans(), weighted=st.booleans(), loops=st.booleans(), dups=st.booleans(),
       sort=st.booleans(), seg=st.integers(1, 40), seed=st.integers(0, 2**16))
def test_matches_reference(n, k, chunk, directed, weighted, loops, dups, sort, seg, seed):
    rng = np.random.default_rng(seed)
    src, dst = rng.integers(0, n, k), rng.integers(0, n, k)
    w = rng.integers(1, 5, k).astype(np.float64) if weighted else None
    old = builder_mod.SEGMENT_EDGES
    builder_mod.SEGMENT_EDGES = seg  # many segments, spill and regrouping paths
    try:
        g = _build(src, dst, w, chunk=chunk, n=n, directed=directed, drop_self_loops=loops,
                   drop_duplicates=dups, sort_neighbors=sort, memory_bytes=int(rng.integers(0, 3000))).finish()
    finally:
        builder_mod.SEGMENT_EDGES = old
    assert g.n == n and g.directed == directed
    assert _arcs(g) == _expected(src, dst, w, directed, loops, dups)
    if dups or sort:
        for v in range(n):
            nb = g.neighbors(v)
            assert (np.diff(nb) > 0).all() if dups else (np.diff(nb) >= 0).all()
    # networkx as a second oracle for the cleaned structure.
    if dups and loops:
        G = (nx.DiGraph if directed else nx.Graph)()
        G.add_nodes_from(range(n))
        G.add_edges_from((u, v) for u, v in zip(src.tolist(), dst.tolist()) if u != v)
        ref = nx.to_scipy_sparse_array(G, nodelist=range(n), format="csr")
        ours = sp.csr_array((np.ones(g.m), np.asarray(g.indices), np.asarray(g.offsets)), shape=(n, n))
        assert (ref != ours).nnz == 0


def test_directed_order_is_input_order():
    rng = np.random.default_rng(0)
    src, dst = rng.integers(0, 50, 3000), rng.integers(0, 50, 3000)
    old = builder_mod.SEGMENT_EDGES
    builder_mod.SEGMENT_EDGES = 97
    try:
        g = _build(src, dst, None, chunk=211, n=50, memory_bytes=1000).finish()
    finally:
        builder_mod.SEGMENT_EDGES = old
    order = np.argsort(src, kind="stable")
    assert np.array_equal(g.indices, dst[order])


def test_sorted_undirected_input_gives_sorted_rows():
    G = nx.gnm_random_graph(60, 300, seed=4)
    edges = sorted((min(u, v), max(u, v)) for u, v in G.edges)
    src, dst = np.array(edges).T
    g = _build(src, dst, None, chunk=1000, n=60, directed=False).finish()
    for v in range(60):
        assert g.neighbors(v).tolist() == sorted(G.neighbors(v))


def test_undirected_duplicate_weights_stay_symmetric():
    b = CSRBuilder(directed=False, weighted=True, drop_duplicates=True)
    b.add([0, 1, 2], [1, 0, 2], [5.0, 7.0, 1.0])  # (1, 0) repeats (0, 1)
    g = b.finish()
    assert g.neighbors(0).tolist() == [1] and g.edge_weights(0).tolist() == [5.0]
    assert g.neighbors(1).tolist() == [0] and g.edge_weights(1).tolist() == [5.0]
    assert g.neighbors(2).tolist() == [2]


def test_numpy_fallbacks_agree(monkeypatch):
    rng = np.random.default_rng(9)
    src, dst = rng.integers(0, 40, 2000), rng.integers(0, 40, 2000)
    w = rng.integers(1, 4, 2000).astype(float)
    kw = dict(n=40, directed=False, drop_duplicates=True)
    a = _build(src, dst, w, chunk=300, **kw).finish()
    monkeypatch.setattr(csr_passes, "_coo_tocsr", None)
    monkeypatch.setattr(csr_passes, "_csr_sort_indices", None)
    b = _build(src, dst, w, chunk=300, **kw).finish()
    for x in ("offsets", "indices", "weights"):
        assert np.array_equal(getattr(a, x), getattr(b, x))


@pytest.mark.parametrize("dups", [False, True])
def test_store_equals_memory(tmp_path, dups):
    rng = np.random.default_rng(1)
    src, dst = rng.integers(0, 300, 5000), rng.integers(0, 300, 5000)
    w = rng.random(5000)
    kw = dict(n=300, directed=False, drop_duplicates=dups, memory_bytes=10_000, workdir=tmp_path / "work")
    mem = _build(src, dst, w, chunk=700, **kw).finish()
    st_ = _build(src, dst, w, chunk=700, **kw).finish_store(tmp_path / "s", name="x")
    assert isinstance(st_.indices, np.memmap) and st_.name == "x"
    for x in ("offsets", "indices", "weights"):
        assert np.array_equal(getattr(mem, x), np.asarray(getattr(st_, x)))
    open_store(tmp_path / "s", verify=True)
    assert list((tmp_path / "work").iterdir()) == []  # spill directory removed


def test_spill_directory_is_removed(tmp_path, monkeypatch):
    monkeypatch.setattr(builder_mod, "SEGMENT_EDGES", 4)
    b = CSRBuilder(memory_bytes=0, workdir=tmp_path)
    b.add(np.arange(10), np.arange(10)[::-1])
    assert len(list(tmp_path.iterdir())) == 1
    b.finish()
    assert list(tmp_path.iterdir()) == []


def test_renumber_ints_and_strings():
    src = np.array([10**15, -5, 7, 10**15])
    dst = np.array([7, 10**15, -5, 3])
    b = CSRBuilder(renumber=True)
    b.add(src, dst)
    b.add_vertices([99])
    g = b.finish()
    assert g.original_ids.tolist() == [-5, 3, 7, 99, 10**15]
    s, d = g.edges()
    assert Counter(zip(g.original_ids[s].tolist(), g.original_ids[d].tolist())) == Counter(
        zip(src.tolist(), dst.tolist()))
    assert g.out_degree[3] == 0  # listed vertex without edges exists
    b = CSRBuilder(renumber=True, directed=False)
    b.add(np.array(["x", "y"]), np.array(["y", "z"]))
    b.add(np.array([b"z"]), np.array([b"w"]))
    g = b.finish()
    assert g.original_ids.tolist() == ["w", "x", "y", "z"]
    assert g.to_internal_id("y") == 2 and sorted(g.neighbors(2).tolist()) == [1, 3]


def test_renumber_sparse_ids_use_search():
    ids = np.array([0, 10**12, 5 * 10**12, 2**62])
    b = CSRBuilder(renumber=True)
    b.add(ids, ids[::-1])
    g = b.finish()
    assert g.original_ids.tolist() == ids.tolist() and g.indices.tolist() == [3, 2, 1, 0]


def test_renumber_mixed_kinds_refused():
    b = CSRBuilder(renumber=True)
    b.add([1, 2], [2, 3])
    with pytest.raises(InputError, match="mix numbers and strings"):
        b.add(np.array(["a"]), np.array(["b"]))


def test_bad_input():
    with pytest.raises(InputError, match="negative vertex id -1"):
        CSRBuilder(source="f.el").add([0, -1], [1, 1])
    with pytest.raises(InputError, match="out of range for n = 3"):
        CSRBuilder(n=3).add([0], [3])
    with pytest.raises(InputError, match="not a finite float32"):
        CSRBuilder(weighted=True).add([0], [1], [np.nan])
    with pytest.raises(InputError, match="not a finite float32"):
        CSRBuilder(weighted=True).add([0], [1], [1e39])
    with pytest.raises(InputError, match="non-numeric"):
        CSRBuilder().add(np.array(["a"]), np.array(["b"]))
    with pytest.raises(InputError, match="not an integer"):
        CSRBuilder().add(np.array([0.5]), np.array([1.0]))
    with pytest.raises(ValueError, match="differ in length"):
        CSRBuilder().add([0, 1], [1])
    with pytest.raises(ValueError, match="unweighted"):
        CSRBuilder().add([0], [1], [1.0])
    with pytest.raises(ValueError, match="pass weights"):
        CSRBuilder(weighted=True).add([0], [1])
    b = CSRBuilder(renumber=True, n=5)
    b.add([1], [2])
    with pytest.raises(InputError, match="2 distinct vertex ids, but n = 5"):
        b.finish()


def test_failed_finish_store_leaves_nothing(tmp_path, monkeypatch):
    def boom(*a, **k):
        raise MemoryError("simulated")

    monkeypatch.setattr(builder_mod, "SEGMENT_EDGES", 16)
    b = CSRBuilder(drop_duplicates=True, memory_bytes=0, workdir=tmp_path / "work")
    b.add(np.arange(100) % 7, np.arange(100) % 5)
    monkeypatch.setattr(CSRBuilder, "_sort_pass", boom)
    with pytest.raises(MemoryError):
        b.finish_store(tmp_path / "out")
    assert sorted(os.listdir(tmp_path)) == ["work"]
    assert os.listdir(tmp_path / "work") == []


def test_empty_and_isolated():
    g = CSRBuilder().finish()
    assert g.n == 0 and g.m == 0
    g = CSRBuilder(n=4, directed=False).finish()
    assert g.n == 4 and g.offsets.tolist() == [0] * 5
    b = CSRBuilder()
    b.add_vertices([5])
    assert b.finish().n == 6


# ------------------------------------------------ beyond 2**32 arcs (no materialising)
def test_offsets_beyond_2_pow_32():
    deg = np.full(5, 2**31 - 1, dtype=np.int32)  # int32 degrees, sum > 2**33
    off = offsets_from_degrees(deg)
    assert off.dtype == np.int64 and int(off[-1]) == 5 * (2**31 - 1)
    assert off.tolist() == [i * (2**31 - 1) for i in range(6)]
    bounds = partition_bounds(off, bytes_per_edge=4, target_bytes=4 * 2**31)
    assert bounds.tolist() == [0, 2, 3, 4, 5]
    parts = partition_by_bytes(off, 4, 4 * 2**32)
    assert parts[-1].edge_hi == 5 * (2**31 - 1) and sum(p.num_edges for p in parts) == int(off[-1])


def test_scatter_positions_beyond_2_pow_32():
    # A segment's rows placed at cursors past 2**32: positions stay exact.
    base = 2**32 + 12345
    counts = np.array([3, 1, 2])
    local = np.array([0, 3, 4])
    cursor = np.array([base, base + 100, 2**40])
    pos = scatter_positions(cursor, local, counts, 6)
    assert pos.dtype == np.int64
    assert pos.tolist() == [base, base + 1, base + 2, base + 100, 2**40, 2**40 + 1]


def test_row_blocks_beyond_2_pow_32():
    off = offsets_from_degrees(np.array([2**33, 5, 5, 2**33], dtype=np.int64))
    blocks = list(row_blocks(off, max_arcs=100))
    assert blocks == [(0, 1), (1, 3), (3, 4)]
