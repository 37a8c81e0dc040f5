"""Hub sorting (HyTGraph sec. VI-B) as a stored preprocessing option: the renumbered graph is the
same graph, the order is HyTGraph's formula 4, and every result read in the input's ids equals
scipy's and networkx's answers on the graph as it was given.

Oracles: scipy (BFS levels, Dijkstra distances, connected components), networkx (triangles),
a plain-Python sort of formula 4, and the input's own arc list.
"""

from __future__ import annotations

import json

import networkx as nx
import numpy as np
import pytest
import scipy.sparse.csgraph as csgraph
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import graphferry as gf
from graphferry import Graph
from graphferry.algorithms.bfs import bfs
from graphferry.algorithms.sssp import sssp
from graphferry.algorithms.triangles import triangle_count
from graphferry.algorithms.wcc import wcc
from graphferry.cli import app
from graphferry.store import open_store, write_store
from graphferry.transforms import HUB_FRACTION, hub_order, hub_sorted, relabel


@st.composite
def graphs(draw):
    n = draw(st.integers(1, 60))
    m = draw(st.integers(0, 300))
    seed = draw(st.integers(0, 2**32 - 1))
    directed = draw(st.booleans())
    rng = np.random.default_rng(seed)
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    if rng.random() < 0.5:  # a hub: many edges at one vertex
        src[: m // 2] = rng.integers(0, n)
    w = (rng.integers(1, 50, m)).astype(np.float32) if draw(st.booleans()) else None
    return Graph.from_edges(src, dst, w, n=n, directed=directed)


def arcs_in_input_ids(g: Graph) -> list[tuple]:
    """Every arc as (source, target, weight) in the input's ids, sorted."""
    src = np.repeat(np.arange(g.n), np.diff(g.offsets))
    ids = g.to_original_ids(np.arange(g.n))
    w = g.weights if g.weights is not None else np.ones(g.m, np.float32)
    return sorted(zip(ids[src].tolist(), ids[g.indices].tolist(), w.tolist()))


def formula_4_order(g: Graph, fraction: float) -> list[int]:
    """HyTGraph's order written out plainly: H(v) = Do(v) Di(v) / (Domax Dimax), the top
    ``fraction`` of the vertices (those with H > 0) by decreasing H then id, the rest by id."""
    d_out = [int(g.offsets[v + 1] - g.offsets[v]) for v in range(g.n)]
    d_in = [0] * g.n
    for u in g.indices.tolist():
        d_in[u] += 1
    if not g.directed:
        d_in = d_out
    top_out, top_in = max(d_out, default=0) or 1, max(d_in, default=0) or 1
    h = {v: d_out[v] * d_in[v] / (top_out * top_in) for v in range(g.n)}
    k = min(int(np.ceil(fraction * g.n)), sum(1 for v in h if h[v] > 0))
    hubs = sorted(range(g.n), key=lambda v: (-h[v], v))[:k]
    return hubs + [v for v in range(g.n) if v not in set(hubs)]


@given(graphs(), st.sampled_from([0.0, 0.08, 0.3, 1.0]))
@settings(max_examples=60, deadline=None)
def test_hub_sorting_keeps_every_arc_and_follows_formula_4(g, fraction):
    order = hub_order(g, fraction)
    assert order.tolist() == formula_4_order(g, fraction)
    h = hub_sorted(g, fraction)
    assert arcs_in_input_ids(h) == arcs_in_input_ids(g)
    assert h.directed == g.directed and h.n == g.n and h.m == g.m
    for v in range(h.n):  # rows sorted by neighbour
        row = h.indices[h.offsets[v]:h.offsets[v + 1]]
        assert np.all(row[1:] >= row[:-1])
    assert h.meta["vertex_order"] == {"kind": "hubs", "fraction": fraction}


@given(graphs(), st.integers(0, 2**32 - 1))
@settings(max_examples=40, deadline=None)
def test_results_on_a_hub_sorted_graph_read_in_the_input_ids_equal_scipys(g, seed):
    h = hub_sorted(g)
    a = g.to_scipy()
    source = int(np.random.default_rng(seed).integers(0, g.n))
    # BFS levels by vertex of the input
    d = csgraph.shortest_path(a, unweighted=True, indices=source, directed=True)
    want = np.where(np.isinf(d), -1, d).astype(np.int64)
    assert np.array_equal(_by_input_vertex(bfs(h, source, backend="cpu"), "levels"), want)
    # SSSP distances (weights, or 1 per arc; of parallel arcs the lightest: scipy would add them)
    src = np.repeat(np.arange(g.n), np.diff(g.offsets))
    dense = np.full((g.n, g.n), np.inf)
    np.minimum.at(dense, (src, g.indices), g.weights if g.weights is not None else np.ones(g.m))
    dist = csgraph.dijkstra(csgraph.csgraph_from_dense(dense, null_value=np.inf), directed=True, indices=source)
    got = _by_input_vertex(sssp(h, source, backend="cpu"), "distances")
    assert np.allclose(np.where(np.isinf(got), -1, got), np.where(np.isinf(dist), -1, dist))
    # WCC: the same partition of the input's vertices
    _, want_labels = csgraph.connected_components(a, directed=True, connection="weak")
    labels = _by_input_vertex(wcc(h, backend="cpu"), "labels")
    pairs = set(zip(want_labels.tolist(), labels.tolist()))
    assert len(pairs) == len(set(want_labels.tolist())) == len(set(labels.tolist()))


def _by_input_vertex(result, column: str) -> np.ndarray:
    """A per-vertex result column indexed by the input's vertex ids (0..n-1 here)."""
    out = np.empty(result.graph.n, dtype=np.asarray(result.values[column]).dtype)
    out[result.vertices] = np.asarray(result.values[column])
    return out


def test_triangles_on_a_hub_sorted_kronecker_graph_equal_networkx():
    from graphferry.generators import kronecker_graph

    g = kronecker_graph(9, seed=4)
    h = hub_sorted(g)
    nxg = nx.Graph()
    nxg.add_nodes_from(range(g.n))
    src = np.repeat(np.arange(g.n), np.diff(g.offsets))
    nxg.add_edges_from(zip(src.tolist(), g.indices.tolist()))
    want = nx.triangles(nxg)
    got = _by_input_vertex(triangle_count(h, backend="cpu"), "triangles")
    assert got.tolist() == [want[v] for v in range(g.n)]
    # the hubs come first: the new vertex 0 is the one of largest degree
    assert g.out_degree[h.original_ids[0]] == g.out_degree.max()


def test_a_store_keeps_the_order_and_the_hybrid_engine_reads_it(tmp_path):
    from graphferry.generators import kronecker_graph

    g = kronecker_graph(10, seed=2, weighted=True)
    path = write_store(hub_sorted(g), tmp_path / "h.gf")
    back = open_store(path)
    assert back.meta["vertex_order"] == {"kind": "hubs", "fraction": HUB_FRACTION}
    assert arcs_in_input_ids(back) == arcs_in_input_ids(g)
    source = int(np.argmax(g.out_degree))
    # the hybrid engine over the simulated device, a quarter of the edges' bytes as budget
    lg = gf.load(back, backend="cpu", budget=max(64, g.m * 2), partition_bytes=max(64, g.m // 4))
    r = sssp(lg, source, engine="hybrid")       # the input's id: the run maps it
    want = csgraph.dijkstra(g.to_scipy(), directed=True, indices=source)
    assert np.allclose(_by_input_vertex(r, "distances"), want)


def test_relabel_refuses_an_order_that_is_not_a_permutation():
    g = Graph.from_edges([0, 1], [1, 2], n=3)
    with pytest.raises(ValueError, match="permutation of the 3 vertices"):
        relabel(g, np.array([0, 0, 1]))
    with pytest.raises(ValueError, match="fraction"):
        hub_order(g, 1.5)


def test_convert_hub_sort_writes_a_store_whose_results_keep_the_input_ids(tmp_path):
    edges = tmp_path / "e.el"
    edges.write_text("1 2\n2 3\n3 1\n3 4\n3 5\n5 6\n10 3\n")
    runner = CliRunner()
    for name, extra in (("plain.gf", []), ("hubs.gf", ["--hub-sort"])):
        r = runner.invoke(app, ["convert", str(edges), str(tmp_path / name), *extra])
        assert r.exit_code == 0, r.output
    r = runner.invoke(app, ["info", str(tmp_path / "hubs.gf"), "--json"])
    assert json.loads(r.stdout)["vertex_order"]["kind"] == "hubs"
    outs = []
    for name in ("plain.gf", "hubs.gf"):
        out = tmp_path / f"{name}.csv"
        r = runner.invoke(app, ["run", "bfs", str(tmp_path / name), "--source", "1", "--out", str(out)])
        assert r.exit_code == 0, r.output
        outs.append(sorted(out.read_text().splitlines()))
    assert outs[0] == outs[1]
    # vertex 3 (out 3 x in 2, the only hub at 8% of 11 vertices) is vertex 0 of the sorted store
    assert open_store(tmp_path / "hubs.gf").original_ids[0] == 3
