"""CDLP against a brute force straight from the LDBC definition, the LDBC validation
graphs and the shared datasets.

Semantics under test (LDBC Graphalytics spec, "Community Detection using Label
Propagation"): labels start as the vertices' (original) ids; each synchronous
iteration, a vertex takes the most frequent label among its in-neighbours' and its
out-neighbours' labels counted separately (so in a directed graph a neighbour that
is both counts twice; in an undirected graph each neighbour counts once), the
smallest on ties; no neighbours: keep the label. The LDBC data model has no
self-loops and no repeated edges, and E is a *set*: a self-loop is ignored (a
vertex does not vote for itself) and a repeated edge counts once. The brute force
applies exactly that reading to the raw edge list.
"""

from __future__ import annotations

import re
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from graphferry import Graph
from graphferry.io import read_ldbc
from graphferry.algorithms.cdlp import LOCAL, _Hubs, cdlp, verify_cdlp
from graphferry.algorithms.triangles import simple_graph

from conftest import DATASETS, LDBC_GRAPHS, need_shared, read_dataset, tiny_budget_options


def ldbc_cdlp_bruteforce(n: int, src, dst, directed: bool, max_iterations: int, ids=None) -> list[int]:
    edges = {(a, b) for a, b in zip(np.asarray(src).tolist(), np.asarray(dst).tolist()) if a != b}
    if not directed:
        edges |= {(b, a) for a, b in edges}
    n_out = [[] for _ in range(n)]
    n_in = [[] for _ in range(n)]
    for a, b in edges:
        n_out[a].append(b)
        n_in[b].append(a)
    labels = list(range(n)) if ids is None else [int(x) for x in ids]
    for _ in range(max_iterations):
        new = []
        for v in range(n):
            hist = Counter(labels[u] for u in n_out[v])
            if directed:                      # undirected: N_in = N_out, each neighbour once
                hist.update(labels[u] for u in n_in[v])
            if not hist:
                new.append(labels[v])
                continue
            top = max(hist.values())
            new.append(min(label for label, c in hist.items() if c == top))
        labels = new
    return labels


@st.composite
def cases(draw, max_n=60, max_m=400):
    """(graph, n, src, dst, directed, ids, iterations) with self-loops, repeats, mutual arcs."""
    n = draw(st.integers(1, max_n))
    m = draw(st.integers(0, max_m))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    if m:
        rep = rng.integers(0, m, draw(st.integers(0, 20)))
        back = rng.integers(0, m, draw(st.integers(0, 20)))
        src = np.concatenate([src, src[rep], dst[back]])
        dst = np.concatenate([dst, dst[rep], src[back]])
    loops = rng.integers(0, n, draw(st.integers(0, 5)))
    src, dst = np.concatenate([src, loops]), np.concatenate([dst, loops])
    directed = draw(st.booleans())
    g = Graph.from_edges(src, dst, n=n, directed=directed)
    ids = None
    if draw(st.booleans()):  # renumbered input: labels live in the original id space (int64)
        ids = rng.permutation(n).astype(np.int64) * 3 + 2**33
        g.original_ids = ids
    return g, n, src, dst, directed, ids, draw(st.integers(0, 12))


@settings(max_examples=80, deadline=None)
@given(c=cases())
def test_matches_ldbc_definition(c):
    g, n, src, dst, directed, ids, iterations = c
    r = cdlp(g, iterations, backend="cpu")
    assert r.labels.dtype == np.int64
    assert r.labels.tolist() == ldbc_cdlp_bruteforce(n, src, dst, directed, iterations, ids)
    assert r.iterations <= iterations
    verify_cdlp(g, r.labels, iterations)


def test_tiny_budget_gives_the_same_labels():
    # neighbor_map reads the whole graph whatever the engine: not parametrised over engines
    rng = np.random.default_rng(11)
    src, dst = rng.integers(0, 150, 700), rng.integers(0, 150, 700)
    g = Graph.from_edges(src, dst, n=150, directed=True)
    r = cdlp(g, 10, **tiny_budget_options("filter"))
    assert r.labels.tolist() == ldbc_cdlp_bruteforce(150, src, dst, True, 10)


@pytest.mark.parametrize("directed", [True, False])
def test_hubs_take_the_vectorised_path(directed):
    """Vertices with more than LOCAL labels are decided by the driver, the rest on the
    device (vertex 5, with about LOCAL / 2 labels, takes the heapsort path)."""
    n = 3000
    rng = np.random.default_rng(4)
    hubs = [0, 1, 2]
    src = np.concatenate([np.repeat(hubs, LOCAL + 50), rng.integers(0, n, 6000),
                          np.full(LOCAL // 2 + 1, 5), rng.integers(0, 60, 600)])
    dst = np.concatenate([rng.integers(0, n, 3 * (LOCAL + 50)), rng.integers(0, n, 6000),
                          np.full(LOCAL // 2 + 1, 9) + np.arange(LOCAL // 2 + 1), rng.integers(0, 60, 600)])
    g = Graph.from_edges(src, dst, n=n, directed=directed)
    assert len(_Hubs(simple_graph(g, undirected=False))) == 3   # only 0, 1, 2 exceed LOCAL
    for iterations in (1, 2, 10):
        r = cdlp(g, iterations, backend="cpu")
        assert r.labels.tolist() == ldbc_cdlp_bruteforce(n, src, dst, directed, iterations)


def test_ties_isolated_vertices_and_zero_iterations():
    # 0 - 1, 0 - 2 undirected: 0 sees labels {1, 2} -> 1; 1 and 2 see {0} -> 0; 3 is isolated
    g = Graph.from_edges(np.array([0, 0]), np.array([1, 2]), n=4, directed=False)
    assert cdlp(g, 1, backend="cpu").labels.tolist() == [1, 0, 0, 3]
    assert cdlp(g, 0, backend="cpu").labels.tolist() == [0, 1, 2, 3]
    # directed: 0 hears 1 as in- and out-neighbour (label 1 twice); 1 hears 0 twice and 2 once
    g = Graph.from_edges(np.array([0, 1, 2]), np.array([1, 0, 1]), n=3)
    assert cdlp(g, 1, backend="cpu").labels.tolist() == [1, 0, 1]


@pytest.mark.parametrize("directed", [True, False])
def test_few_changes_are_not_a_fixed_point(directed):
    # vertices 0 and 1 swap labels every iteration while a triangle with a tail settles
    # (9, 7, 5, 4, 3, then 2 changes an iteration): stopping on "few labels changed"
    # instead of "none changed" freezes the pair at the wrong parity
    src = np.r_[0, 2, 3, 4, 4, 5, 6, 7]
    dst = np.r_[1, 3, 4, 2, 5, 6, 7, 8]
    g = Graph.from_edges(src, dst, n=9, directed=directed)
    for iterations in range(1, 10):
        assert cdlp(g, iterations, backend="cpu").labels.tolist() == \
            ldbc_cdlp_bruteforce(9, src, dst, directed, iterations), iterations


def test_stops_at_a_fixed_point():
    g = Graph.from_edges(np.array([0, 1, 2]), np.array([1, 2, 0]), n=3, directed=False)
    r = cdlp(g, 50, backend="cpu")
    assert r.labels.tolist() == [0, 0, 0] and r.iterations < 50


def test_verifier_rejects_wrong_labels():
    g = Graph.from_edges(np.array([0, 1, 2]), np.array([1, 2, 0]), n=3, directed=False)
    with pytest.raises(AssertionError):
        verify_cdlp(g, np.array([0, 1, 0]), 2)


# ------------------------------------------------------------------ LDBC validation graphs
def max_iterations_of(prefix) -> int:
    props = prefix.with_name(prefix.name + ".properties").read_text()
    return int(re.search(r"cdlp\.max-iterations\s*=\s*(\d+)", props).group(1))


LDBC_CDLP = ["example-directed", "example-undirected", "test-cdlp-directed", "test-cdlp-undirected"]


@pytest.mark.parametrize("name", LDBC_CDLP)
def test_ldbc_validation_graphs(name):
    need_shared(LDBC_GRAPHS / f"{name}.properties", "LDBC validation graph")
    prefix = LDBC_GRAPHS / name
    g = read_ldbc(prefix)[0]
    iterations = max_iterations_of(prefix)
    r = cdlp(g, iterations, backend="cpu")
    expected = np.loadtxt(LDBC_GRAPHS / f"{name}-CDLP", dtype=np.int64, ndmin=2)
    got = dict(zip(r.vertices.tolist(), r.labels.tolist()))
    assert got == {int(v): int(label) for v, label in expected}   # LDBC: CDLP must match exactly
    verify_cdlp(g, r.labels, iterations)


# ------------------------------------------------------------------ shared datasets
@pytest.mark.parametrize("name", ["karate", "les_miserables", "roget", "wormnet_v3", "metis_4elt"])
def test_datasets(name):
    path = DATASETS / f"{name}.el"
    need_shared(path, "shared dataset")
    n, src, dst, directed = read_dataset(path)
    g = Graph.from_edges(src, dst, n=n, directed=directed)
    r = cdlp(g, 10, backend="cpu")
    assert r.labels.tolist() == ldbc_cdlp_bruteforce(n, src, dst, directed, 10)
    verify_cdlp(g, r.labels, 10)
