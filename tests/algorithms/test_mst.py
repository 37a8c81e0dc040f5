"""Minimum spanning forest (Boruvka) against scipy.sparse.csgraph.minimum_spanning_tree."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings, strategies as st
from scipy.sparse.csgraph import connected_components, minimum_spanning_tree

from graphferry import Graph
from graphferry.algorithms.mst import minimum_spanning_forest, verify_msf

from conftest import DATASETS, need_shared, read_dataset


@st.composite
def graphs(draw, max_n=50, max_m=250):
    n = draw(st.integers(0, max_n))
    m = draw(st.integers(0, max_m)) if n else 0
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    src, dst = rng.integers(0, max(n, 1), m), rng.integers(0, max(n, 1), m)
    kind = draw(st.sampled_from(["none", "few", "many", "negative"]))
    weights = {"none": None, "few": rng.integers(1, 3, m), "many": rng.random(m) * 100,
               "negative": rng.integers(-5, 5, m)}[kind]
    weights = None if weights is None else np.asarray(weights, np.float32)
    return n, src, dst, weights, draw(st.booleans())


def scipy_forest(n, src, dst, weights):
    """(total weight, components) by scipy on the symmetrised simple graph (lightest arc per pair)."""
    w = np.ones(len(src)) if weights is None else weights.astype(np.float64)
    keep = src != dst
    lo, hi, w = np.minimum(src, dst)[keep], np.maximum(src, dst)[keep], w[keep]
    best = {}
    for a, b, x in zip(lo.tolist(), hi.tolist(), w.tolist()):
        best[(a, b)] = min(x, best.get((a, b), np.inf))
    rows = np.array([p[0] for p in best], np.int64)
    cols = np.array([p[1] for p in best], np.int64)
    vals = np.array(list(best.values()), np.float64)
    comps = connected_components(sp.coo_array((np.ones(len(rows)), (rows, cols)), shape=(n, n)),
                                 directed=False)[0] if n else 0
    shift = 1.0 - (vals.min() if len(vals) else 0.0)     # scipy reads a zero as "no edge"
    total = minimum_spanning_tree(sp.csr_array((vals + shift, (rows, cols)), shape=(n, n))).sum() if n else 0.0
    return float(total) - shift * (n - comps), comps


@settings(max_examples=80, deadline=None)
@given(e=graphs())
def test_forest_weight_and_size_match_scipy(e):
    n, src, dst, weights, directed = e
    g = Graph.from_edges(src, dst, weights, n=n, directed=directed)
    r = minimum_spanning_forest(g, backend="cpu")
    total, comps = scipy_forest(n, src, dst, weights)
    assert r.components == comps
    assert r.num_edges == n - comps == len(r.edges["source"])
    assert np.isclose(r.total_weight, total, rtol=1e-9, atol=1e-6)
    assert np.all(r.edges["source"] < r.edges["target"])
    verify_msf(g, r.edges["source"], r.edges["target"], r.edges["weight"], r.total_weight)


def test_ties_are_broken_the_same_way_every_time():
    # every weight equal: many minimum forests; Boruvka's (weight, lo, hi) order picks one
    rng = np.random.default_rng(2)
    g = Graph.from_edges(rng.integers(0, 400, 3000), rng.integers(0, 400, 3000), n=400, directed=False)
    a = minimum_spanning_forest(g, backend="cpu").to_table()
    for _ in range(3):
        b = minimum_spanning_forest(g, backend="cpu").to_table()
        assert all(np.array_equal(a[k], b[k]) for k in a)
    # and the pick is the forest Kruskal builds over the same total order
    s, d = g.edges()
    keep = s < d
    pairs = sorted(set(zip(s[keep].tolist(), d[keep].tolist())))
    parent = list(range(400))

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    kruskal = []
    for u, v in pairs:
        if find(u) != find(v):
            parent[find(u)] = find(v)
            kruskal.append((u, v))
    assert sorted(zip(a["source"].tolist(), a["target"].tolist())) == kruskal


def test_original_ids_in_the_table():
    g = Graph.from_edges([0, 1], [1, 2], [2.0, 1.0], n=3, directed=False)
    g.original_ids = np.array([10, 20, 30])
    t = minimum_spanning_forest(g, backend="cpu").to_table()
    assert sorted(zip(t["source"].tolist(), t["target"].tolist(), t["weight"].tolist())) == \
        [(10, 20, 2.0), (20, 30, 1.0)]


@pytest.mark.parametrize("name", ["karate.el", "roget.el", "minnesota_road.el", "metis_4elt.el"])
def test_shared_datasets(name):
    path = DATASETS / name
    need_shared(path, name)
    n, src, dst, directed = read_dataset(path)
    w = (np.random.default_rng(0).integers(1, 50, len(src))).astype(np.float32)
    g = Graph.from_edges(src, dst, w, n=n, directed=directed)
    r = minimum_spanning_forest(g, backend="cpu")
    total, comps = scipy_forest(n, src, dst, w)
    assert r.num_edges == n - comps
    assert np.isclose(r.total_weight, total)


@settings(max_examples=60, deadline=None)
@given(g=graphs(), data=st.data())
def test_cut_edge_keys_are_each_vertex_lightest_edge_leaving_the_block(g, data):
    """HyPar's cut-edge exception input against a plain loop: per vertex of a range block, the least
    (weight, lower end, higher end) edge to a vertex outside the block."""
    from graphferry.algorithms.mst import _key_weights, cut_edge_keys
    from graphferry.transforms import symmetrize

    n, src, dst, weights, directed = g
    whole = symmetrize(Graph.from_edges(src, dst, weights, n=n, directed=directed))
    lo = data.draw(st.integers(0, n))
    block = np.arange(lo, data.draw(st.integers(lo, n)), dtype=np.int64)
    key, higher = cut_edge_keys(whole, block)
    inside = set(block.tolist())
    w = np.ones(whole.m, np.float32) if whole.weights is None else whole.weights
    for i, u in enumerate(block.tolist()):
        row = range(int(whole.offsets[u]), int(whole.offsets[u + 1]))
        cand = sorted((float(w[j]), min(u, int(whole.indices[j])), max(u, int(whole.indices[j])))
                      for j in row if int(whole.indices[j]) not in inside)
        if not cand:
            assert key[i] == np.iinfo(np.uint64).max and higher[i] == np.iinfo(np.int64).max
        else:
            got = (float(_key_weights(key[i:i + 1])[0]), int(key[i] & np.uint64(0xFFFFFFFF)), int(higher[i]))
            assert got == cand[0]
