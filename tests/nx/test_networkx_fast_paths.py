"""The NetworkX backend's compiled fast paths give what their numpy/Python forms give (the forms NetworkX's
own answers were first matched with): Dijkstra's order sweep, BFS discovery order, the edge attribute reader,
and the node lookups that skip the id map for nodes 0..n-1."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphferry import Graph
from graphferry.nx_backend import _paths, running
from graphferry.nx_backend.graph import _read_compiled, from_networkx

pytestmark = pytest.mark.skipif(_paths._sweep() is None, reason="no C++ compiler: the compiled paths do not run")


def weighted(n: int, m: int, seed: int, top: int) -> tuple[Graph, np.ndarray]:
    rng = np.random.default_rng(seed)
    g = Graph.from_edges(rng.integers(0, n, m), rng.integers(0, n, m), n=n, directed=True)
    return g, rng.integers(1, top + 1, g.m).astype(np.float64)   # few distinct weights: many ties


@settings(max_examples=30, deadline=None)
@given(n=st.integers(1, 60), m=st.integers(0, 300), seed=st.integers(0, 10**6), top=st.integers(1, 4),
       sources=st.integers(1, 3))
def test_the_dijkstra_sweep_is_the_sorted_fixed_point(n, m, seed, top, sources):
    import scipy.sparse as sp
    from scipy.sparse.csgraph import dijkstra

    g, w = weighted(n, m, seed, top)
    starts = np.random.default_rng(seed).integers(0, n, sources)
    src = np.repeat(np.arange(n), g.out_degree)   # the lightest arc of each pair: scipy would sum repeats
    best = {}
    for u, v, x in zip(src.tolist(), g.indices.tolist(), w.tolist()):
        best[(u, v)] = min(best.get((u, v), x), x)
    u, v = (np.array(t, np.int64) for t in zip(*best)) if best else (np.zeros(0, np.int64),) * 2
    a = sp.csr_array((np.array(list(best.values())), (u, v)), shape=(n, n))
    dist = dijkstra(a, indices=np.unique(starts), min_only=True)
    fast = _paths.dijkstra_order(g, w, dist, starts)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_paths, "_sweep", lambda: None)
        slow = _paths.dijkstra_order(g, w, dist, starts)
    assert fast[0].tolist() == slow[0].tolist() and fast[1].tolist() == slow[1].tolist()


@settings(max_examples=30, deadline=None)
@given(n=st.integers(1, 60), m=st.integers(0, 300), seed=st.integers(0, 10**6))
def test_the_compiled_bfs_order_is_the_numpy_one(n, m, seed):
    g, _ = weighted(n, m, seed, 1)
    first = np.array([seed % n], np.int64)
    levels = running.bfs_levels(g, first)
    fast = [(a.tolist(), b.tolist()) for a, b in running.bfs_layers(g, first, levels)]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(running, "bfs_order", lambda *a: None)
        slow = [(a.tolist(), b.tolist()) for a, b in running.bfs_layers(g, first, levels)]
    assert fast == slow


def test_the_attribute_reader_reads_what_python_reads_or_declines():
    G = nx.Graph()
    G.add_edge(0, 1, weight=2)
    G.add_edge(1, 2, weight=0.5)
    G.add_edge(2, 3)                     # absent: the default
    values, integral = _read_compiled(G._adj, "weight", 1, 6)
    assert values.tolist() == [2.0, 2.0, 0.5, 0.5, 1.0, 1.0] and integral is False
    G[2][3]["weight"] = 7
    G[1][2]["weight"] = 3
    assert _read_compiled(G._adj, "weight", 1, 6)[1] is True
    for odd in (True, np.float32(1.5), 2**60, "x", None):   # types Python must judge
        G[0][1]["weight"] = odd
        assert _read_compiled(G._adj, "weight", 1, 6) is None
    G[0][1]["weight"] = 2
    assert _read_compiled(G._adj, "weight", 1.5, 6)[1] is True   # every edge has it: the default is unused
    G[2][3].clear()
    assert _read_compiled(G._adj, "weight", 1.5, 6)[1] is False  # a float default fills a gap


def test_nodes_0_to_n_minus_1_skip_the_id_map_and_others_do_not():
    g = from_networkx(nx.path_graph(4))
    assert g.identity and g.id_of(3) == 3 and 3 in g and 4 not in g and -1 not in g
    assert g.labels(np.array([2, 0])) == [2, 0]
    assert True in g and g.id_of(True) == 1   # NetworkX: True == 1 is node 1
    shuffled = nx.Graph()
    shuffled.add_nodes_from([1, 0, 2])
    h = from_networkx(shuffled)
    assert not h.identity and h.id_of(0) == 1 and h.labels(np.array([0, 1])) == [1, 0]
    assert not from_networkx(nx.relabel_nodes(nx.path_graph(3), {0: 0.0})).identity


@settings(max_examples=20, deadline=None)
@given(n=st.integers(1, 50), p=st.floats(0, 0.3), seed=st.integers(0, 10**6))
def test_reciprocity_of_many_nodes_is_networkx(n, p, seed):
    from graphferry.nx_backend import register

    register()
    G = nx.gnp_random_graph(n, p, seed=seed, directed=True)
    G.add_edges_from((v, v) for v in range(0, n, 3))   # self-loops: each its own reverse
    G.add_node("isolated")
    for nodes in (list(G)[::-1], list(G)):   # labels through the index; every node in G's order
        want = nx.reciprocity(G, nodes)
        got = nx.reciprocity(G, nodes, backend="graphferry")
        assert got == want and list(got) == list(want)   # values (None for the isolated node) and order
    # ints only (nodes 0..n-1 read as arrays), repeated nodes, a node not in G (skipped)
    H = G.copy()
    H.remove_node("isolated")
    # ... and every node as floats (equal to the ints, so of equal hashes: keyed by the floats, as NetworkX does)
    for some in (list(H)[::-1], [0, 0, n - 1], [n + 5, 0], [0, "absent"], [float(v) for v in H]):
        want = nx.reciprocity(H, some)
        got = nx.reciprocity(H, some, backend="graphferry")
        assert got == want and list(got) == list(want) and list(map(type, got)) == list(map(type, want))
    if G.number_of_edges():
        assert nx.overall_reciprocity(G, backend="graphferry") == nx.overall_reciprocity(G)


@settings(max_examples=20, deadline=None)
@given(n=st.integers(1, 40), p=st.floats(0, 0.4), seed=st.integers(0, 10**6))
def test_reciprocal_arc_counts_are_networkx_overlaps_with_and_without_the_host_library(n, p, seed):
    from graphferry import host_ops
    from graphferry.errors import CompilerError
    from graphferry.nx_backend import structure

    G = nx.gnp_random_graph(n, p, seed=seed, directed=True)
    G.add_edges_from((v, v) for v in range(0, n, 4))
    g = from_networkx(G)
    want = [len(set(G.pred[v]) & set(G.succ[v])) for v in G]   # NetworkX's overlap, node by node
    in_degree = [G.in_degree(v) for v in G]
    overlap, got_in = host_ops.reciprocal_counts(g.csr.offsets, g.csr.indices)
    assert overlap.tolist() == want and got_in.tolist() == in_degree

    def no_compiler(*_):
        raise CompilerError("no compiler")

    real = host_ops.reciprocal_counts
    host_ops.reciprocal_counts = no_compiler
    try:
        overlap, got_in = structure._overlap(g)
    finally:
        host_ops.reciprocal_counts = real
    assert overlap.tolist() == want and got_in.tolist() == in_degree


@pytest.mark.parametrize("limit", [0, 1, 2, 2.5, 3.5, float("inf")])
def test_the_compiled_bfs_order_stops_where_the_numpy_one_does(limit):
    g, _ = weighted(40, 120, 3, 1)
    first = np.array([0], np.int64)
    levels = running.bfs_levels(g, first)
    fast = [a.tolist() for a, _ in running.bfs_layers(g, first, levels, limit)]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(running, "bfs_order", lambda *a: None)
        slow = [a.tolist() for a, _ in running.bfs_layers(g, first, levels, limit)]
    assert fast == slow


@settings(max_examples=20, deadline=None)
@given(n=st.integers(1, 60), m=st.integers(0, 200), seed=st.integers(0, 10**6), labels=st.sampled_from(["int", "str"]),
       fill=st.sampled_from([256, 2]))
def test_paths_cut_from_one_list_are_networkx_paths(n, m, seed, labels, fill):
    # fill 2: trees deeper than that build their paths one by one (the fallback) instead
    from graphferry.nx_backend import register

    register()
    rng = np.random.default_rng(seed)
    G = nx.Graph()
    names = [f"v{i}" for i in range(n)] if labels == "str" else list(range(n))
    G.add_nodes_from(names)
    G.add_weighted_edges_from((names[a], names[b], int(w)) for a, b, w in
                              zip(rng.integers(0, n, m), rng.integers(0, n, m), rng.integers(1, 4, m)))
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_paths, "FILL_DEPTH", fill)
        for call in (lambda **k: nx.single_source_shortest_path(G, names[0], **k),
                     lambda **k: nx.single_target_shortest_path(G, names[-1], **k),
                     lambda **k: nx.single_source_dijkstra_path(G, names[0], **k),
                     lambda **k: nx.multi_source_dijkstra(G, set(names[:2]), **k)[1]):
            want, got = call(), call(backend="graphferry")
            assert got == want and list(got) == list(want)


def test_paths_of_a_long_path_graph_take_the_fallback():
    from graphferry.nx_backend import register

    register()
    G = nx.path_graph(1200)   # deeper than FILL_DEPTH: paths built one by one
    for call in (nx.single_source_shortest_path, nx.single_target_shortest_path):
        want, got = call(G, 5), call(G, 5, backend="graphferry")
        assert got == want and list(got) == list(want)


@pytest.mark.parametrize("nodes", [[], [0], [0, 1, 2, 3], [1, 0, 2], [0, 1, 3], [0, True, 2], [0.0, 1, 2],
                                   [0, 1, 2**61 - 1 + 2], [0, 1, -1], [0, 1, 2**70], ["a", "b"], [0, 1, "2"]])
def test_the_compiled_pass_knows_whether_node_i_is_the_int_i(nodes):
    G = nx.Graph()
    G.add_nodes_from(nodes)
    G.add_edges_from(zip(nodes, nodes[1:]))
    g = from_networkx(G)
    assert "identity" in g.__dict__   # set by the compiled pass, not computed again
    want = all(type(v) is int and v == i for i, v in enumerate(nodes))
    assert g.identity == want
    assert g.labels(np.arange(len(nodes))) == list(G)


@pytest.mark.filterwarnings("ignore:Note. conversions to backend graphs are saved to cache")
@settings(max_examples=20, deadline=None)
@given(n=st.integers(0, 40), p=st.floats(0, 0.3), seed=st.integers(0, 10**6), directed=st.booleans())
def test_degree_functions_read_the_dicts_without_converting_and_later_calls_convert(n, p, seed, directed):
    from graphferry.nx_backend import register, structure
    from graphferry.nx_backend.convert import cached_size
    from graphferry.nx_backend.graph import DeferredNxGraph

    register()
    G = nx.gnp_random_graph(n, p, seed=seed, directed=directed)
    G.add_edges_from([(v, v) for v in range(0, n, 5)] + [(-1, -2), (-2, -2), ("a", "a")])  # -1, -2: one hash
    G.add_node("isolated")
    names = ["degree_centrality", "isolates", "number_of_isolates"]
    names += ["in_degree_centrality", "out_degree_centrality"] if directed else []
    for name in names:
        want = getattr(nx, name)(G)
        got = getattr(nx, name)(G, backend="graphferry")
        if name == "isolates":
            want, got = list(want), list(got)
        assert got == want and (not isinstance(want, dict) or list(got) == list(want))
    deferred = [g for g in G.__networkx_cache__["graphferry"].values() if isinstance(g, DeferredNxGraph)]
    assert deferred and "csr" not in deferred[0].__dict__ and cached_size(G) is None   # no edge read yet
    # Python's pass where the compiled one is missing
    real = structure.row_length_reader
    structure.row_length_reader = lambda: None
    try:
        assert nx.degree_centrality(G, backend="graphferry") == nx.degree_centrality(G)
    finally:
        structure.row_length_reader = real
    # a function that needs the edges converts the cached graph then, and answers as NetworkX does
    assert nx.number_connected_components(G.to_undirected(), backend="graphferry") == \
        nx.number_connected_components(G.to_undirected())
    assert nx.triangles(G.to_undirected()) == nx.triangles(G.to_undirected(), backend="graphferry")
    if directed:
        assert nx.overall_reciprocity(G, backend="graphferry") == nx.overall_reciprocity(G)
    else:
        assert nx.triangles(G, backend="graphferry") == nx.triangles(G)
    assert cached_size(G) == sum(map(len, G._adj.values()))


@settings(max_examples=30, deadline=None)
@given(labels=st.lists(st.one_of(st.integers(-3, 10**20), st.text(max_size=3), st.tuples(st.integers(0, 3))),
                       unique=True, max_size=40),
       data=st.data())
def test_result_dicts_built_with_known_hashes_are_pythons(labels, data):
    from graphferry.nx_backend import results

    adj = {v: {} for v in labels}
    nodes = list(adj)
    hashes = results.node_hashes(adj)
    assert hashes is None or hashes.tolist() == [hash(v) for v in nodes]
    n = len(nodes)
    floats = np.array(data.draw(st.lists(st.sampled_from([0.0, -0.0, 1.5, float("nan"), 1e300, -2.0]),
                                         min_size=n, max_size=n)), dtype=np.float64)
    ints = np.array(data.draw(st.lists(st.integers(-2**62, 2**62), min_size=n, max_size=n)), dtype=np.int64)
    cases = [(floats, {}, floats.tolist()),
             (floats, {"zero_as_int": True}, [0 if x == 0 else x for x in floats.tolist()]),
             (floats, {"nan_as_none": True}, [None if x != x else x for x in floats.tolist()]),
             (ints, {}, ints.tolist()), (ints // 2**40, {}, (ints // 2**40).tolist())]
    order = np.array(data.draw(st.permutations(range(n))), dtype=np.int64)[: data.draw(st.integers(0, n))]
    for values, how, want in cases:
        for h in (hashes, None):   # compiled (when hashes were read) and Python's
            got = results.node_dict(nodes, h, values, **how)
            assert list(got) == nodes
            assert [type(x) for x in got.values()] == [type(x) for x in want]
            assert all(a == b or (a != a and b != b) for a, b in zip(got.values(), want))
            # some vertices, in another order: values[i] for nodes[order[i]]
            got = results.node_dict(nodes, h, values[: len(order)], order=order, **how)
            assert list(got) == [nodes[j] for j in order]
            assert [type(x) for x in got.values()] == [type(x) for x in want[: len(order)]]
            assert all(a == b or (a != a and b != b) for a, b in zip(got.values(), want[: len(order)]))


@pytest.mark.parametrize("labels", ["ints", "strings"])
def test_the_compiled_conversion_reads_rows_in_parallel_as_networkx_lists_them(labels):
    # over 2**16 arcs: the rows are read by several OpenMP threads, each into its own ranges
    G = nx.gnm_random_graph(20_000, 45_000, seed=7)
    G.add_edges_from((v, v) for v in range(0, 20_000, 97))
    if labels == "strings":
        G = nx.relabel_nodes(G, {v: f"n{(v * 7919) % 20_000}" for v in G})
    late = list(G.edges())[-3:]   # edge data first seen far into the rows
    G.add_edges_from(late, weight=2.5)
    g = from_networkx(G, {"weight": 1})
    index = {v: i for i, v in enumerate(G)}
    want = [index[u] for nbrs in G._adj.values() for u in nbrs]
    assert g.nodes == list(G) and g.csr.indices.tolist() == want
    assert g.weights["weight"].values.tolist() == [d.get("weight", 1) for nbrs in G._adj.values()
                                                   for d in nbrs.values()]
    assert g.csr.offsets.tolist() == np.concatenate([[0], np.cumsum([len(r) for r in G._adj.values()])]).tolist()
    assert g.identity == (labels == "ints")
