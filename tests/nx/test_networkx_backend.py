"""The NetworkX backend against NetworkX's own implementations (the oracle), on many graphs.

The backend is registered in-process the way NetworkX's own test suite
registers its loopback backend (the package is not pip-installed in the test
run); ``test_entry_points_resolve`` checks, in a fresh interpreter, that the
entry points pyproject.toml declares load the same objects.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

nx = pytest.importorskip("networkx")

from graphferry.nx_backend import adjacency, convert, interface, register  # noqa: E402
from graphferry.nx_backend import graph as graph_module  # noqa: E402
from graphferry.nx_backend.graph import from_networkx  # noqa: E402
from graphferry.nx_backend.info import FUNCTIONS, get_info  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
GF = {"backend": "graphferry"}


register()
nx.config.warnings_to_ignore.add("cache")
nx.config.backends.graphferry.backend = "cpu"


# ------------------------------------------------------------ graphs
@st.composite
def nx_graphs(draw, kinds=("Graph", "DiGraph", "MultiGraph", "MultiDiGraph"), weights=(None, "int", "dyadic"),
              max_n=24):
    kind = draw(st.sampled_from(kinds))
    n = draw(st.integers(0, max_n))
    labels = draw(st.sampled_from(["range", "shuffled", "sparse", "str"]))
    ids = list(range(n))
    if labels == "shuffled":
        ids = draw(st.permutations(ids))
    elif labels == "sparse":
        ids = [3 * i + 1000 for i in draw(st.permutations(ids))]
    elif labels == "str":
        ids = [f"v{i}" for i in draw(st.permutations(ids))]
    G = getattr(nx, kind)()
    G.add_nodes_from(ids)
    if n:
        pairs = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=4 * n))
        weight = draw(st.sampled_from(weights))
        for a, b in pairs:
            if weight is None:
                G.add_edge(ids[a], ids[b])
            elif weight == "int":
                G.add_edge(ids[a], ids[b], weight=draw(st.integers(0, 9)))
            elif weight == "positive":
                G.add_edge(ids[a], ids[b], weight=draw(st.integers(1, 5)))
            else:
                G.add_edge(ids[a], ids[b], weight=draw(st.integers(0, 40)) / 8)
    return G


def _node(draw_data, G):
    nodes = list(G)
    return draw_data.draw(st.sampled_from(nodes)) if nodes else None


SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# ------------------------------------------------------------ pagerank
@SETTINGS
@given(G=nx_graphs(weights=(None,)), alpha=st.sampled_from([0.85, 0.5, 0.0]))
def test_pagerank_matches_networkx(G, alpha):
    want = nx.pagerank(G, alpha=alpha, tol=1e-12, max_iter=10_000)
    got = nx.pagerank(G, alpha=alpha, tol=1e-12, max_iter=10_000, **GF)
    assert list(got) == list(want)
    assert all(type(x) is float for x in got.values())
    err = sum(abs(got[v] - want[v]) for v in G)
    assert err <= 1e-9


@SETTINGS
@given(G=nx_graphs(weights=(None,), max_n=40))
def test_pagerank_default_tolerance_is_as_accurate_as_networkx(G):
    # NetworkX's stopping rule bounds its L1 error by alpha / (1 - alpha) * len(G) * tol
    exact = nx.pagerank(G, tol=1e-14, max_iter=100_000)
    got = nx.pagerank(G, **GF)
    bound = 0.85 / 0.15 * len(G) * 1e-6
    assert sum(abs(got[v] - exact[v]) for v in G) <= bound


@SETTINGS
@given(G=nx_graphs(weights=(None,)), max_iter=st.integers(1, 15), tol=st.sampled_from([1e-2, 1e-4, 1e-6]),
       alpha=st.sampled_from([0.85, 0.5]))
def test_pagerank_converges_exactly_when_networkx_does(G, max_iter, tol, alpha):
    try:
        want = nx.pagerank(G, alpha=alpha, max_iter=max_iter, tol=tol)
    except nx.PowerIterationFailedConvergence:
        with pytest.raises(nx.PowerIterationFailedConvergence):
            nx.pagerank(G, alpha=alpha, max_iter=max_iter, tol=tol, **GF)
        return
    got = nx.pagerank(G, alpha=alpha, max_iter=max_iter, tol=tol, **GF)
    # NetworkX's very iterate (the same step; float sums in another order)
    assert max((abs(got[v] - want[v]) for v in G), default=0) <= 1e-12


def _networkx_steps(G, **kwargs) -> int:
    """The iteration at which NetworkX's pagerank stops, found with NetworkX alone (the smallest max_iter that works)."""
    for k in range(1, 200):
        try:
            nx.pagerank(G, max_iter=k, **kwargs)
            return k
        except nx.PowerIterationFailedConvergence:
            pass
    raise AssertionError("NetworkX did not converge")


@settings(SETTINGS, max_examples=25)
@given(G=nx_graphs(weights=(None,), max_n=30), tol=st.sampled_from([1e-3, 1e-6]))
def test_pagerank_stops_at_networkx_step_in_one_run(G, tol):
    from graphferry.nx_backend import link_analysis

    if len(G) == 0:
        return
    want = nx.pagerank(G, tol=tol)
    runs = []
    real = link_analysis.run
    link_analysis.run = lambda name, g, **kw: runs.append(real(name, g, **kw)) or runs[-1]
    try:
        got = nx.pagerank(G, tol=tol, **GF)
    finally:
        link_analysis.run = real
    assert len(runs) == 1
    assert runs[0].scalars["iterations"] == _networkx_steps(G, tol=tol)
    assert max(abs(got[v] - want[v]) for v in G) <= 1e-12


def test_pagerank_on_karate_stops_at_step_21_like_networkx():
    G = nx.Graph(nx.karate_club_graph().edges())
    assert _networkx_steps(G) == 21
    from graphferry.algorithms import registry

    g = interface.convert_from_nx(G)
    r = registry.get("pagerank_ldbc").run(g.arcs, damping=0.85, iterations=100, stop_below=len(G) * 1e-6,
                                          backend="cpu")
    assert r.scalars == {"iterations": 21, "converged": True}


def test_pagerank_uniform_weights_are_the_unweighted_case():
    G = nx.gnp_random_graph(30, 0.2, seed=3, directed=True)
    nx.set_edge_attributes(G, 2.5, "weight")
    assert interface.can_run("pagerank", (G,), {}) is True
    got, want = nx.pagerank(G, tol=1e-12, **GF), nx.pagerank(G, tol=1e-12)
    assert max(abs(got[v] - want[v]) for v in G) < 1e-10


def test_pagerank_max_iter_raises_like_networkx():
    G = nx.gnp_random_graph(30, 0.2, seed=1)
    with pytest.raises(nx.PowerIterationFailedConvergence):
        nx.pagerank(G, max_iter=0, **GF)
    assert nx.pagerank(nx.Graph(), **GF) == {}


@pytest.mark.parametrize("kwargs, reason", [
    ({"personalization": {0: 1}}, "personalization"),
    ({"nstart": {0: 1}}, "nstart"),
    ({"dangling": {0: 1}}, "dangling"),
    ({"alpha": 1.0}, "alpha"),
])
def test_pagerank_unsupported_arguments_go_back_to_networkx(kwargs, reason):
    G = nx.path_graph(5)
    assert reason in interface.can_run("pagerank", (G,), kwargs)
    with pytest.raises(NotImplementedError, match="not implemented by 'graphferry'"):
        nx.pagerank(G, **kwargs, **GF)


def test_weighted_pagerank_goes_back_to_networkx():
    G = nx.path_graph(5)
    G.add_edge(0, 1, weight=3)
    assert "weight" in interface.can_run("pagerank", (G,), {})
    assert interface.can_run("pagerank", (G,), {"weight": None}) is True


# ------------------------------------------------------------ BFS
@SETTINGS
@given(G=nx_graphs(), data=st.data(), depth=st.sampled_from([None, 0, 1, 2, 5]))
def test_bfs_edges_in_networkx_order(G, data, depth):
    s = _node(data, G)
    if s is None:
        return
    assert list(nx.bfs_edges(G, s, depth_limit=depth, **GF)) == list(nx.bfs_edges(G, s, depth_limit=depth))
    if not G.is_directed():
        got = list(nx.bfs_edges(G, s, reverse=True, **GF))
        assert got == list(nx.bfs_edges(G, s, reverse=True))


@SETTINGS
@given(G=nx_graphs(), data=st.data(), depth=st.sampled_from([None, 1, 3]))
def test_bfs_trees_and_distances_in_networkx_order(G, data, depth):
    s = _node(data, G)
    if s is None:
        return
    assert list(nx.bfs_predecessors(G, s, depth_limit=depth, **GF)) == list(nx.bfs_predecessors(G, s, depth_limit=depth))
    assert list(nx.bfs_successors(G, s, depth_limit=depth, **GF)) == list(nx.bfs_successors(G, s, depth_limit=depth))
    for distance in (0, 1, 2, 5, -1):
        assert nx.descendants_at_distance(G, s, distance, **GF) == nx.descendants_at_distance(G, s, distance)


def test_bfs_edges_is_lazy_and_reports_missing_source_like_networkx():
    G = nx.path_graph(3)
    edges = nx.bfs_edges(G, 9, **GF)  # nothing raised yet: a generator
    with pytest.raises(nx.NetworkXError, match="The node 9 is not in the graph."):
        next(edges)


@SETTINGS
@given(G=nx_graphs(), data=st.data())
def test_bfs_layers_in_networkx_order(G, data):
    nodes = list(G)
    if not nodes:
        return
    sources = data.draw(st.lists(st.sampled_from(nodes), min_size=1, max_size=4))
    assert list(nx.bfs_layers(G, sources, **GF)) == list(nx.bfs_layers(G, sources))
    assert list(nx.bfs_layers(G, sources[0], **GF)) == list(nx.bfs_layers(G, sources[0]))


@SETTINGS
@given(G=nx_graphs(), data=st.data(), cutoff=st.sampled_from([None, 0, 1, 2.5, 4]))
def test_single_source_shortest_path_length(G, data, cutoff):
    s = _node(data, G)
    if s is None:
        return
    got = nx.single_source_shortest_path_length(G, s, cutoff=cutoff, **GF)
    want = nx.single_source_shortest_path_length(G, s, cutoff=cutoff)
    assert list(got.items()) == list(want.items())
    with pytest.raises(nx.NodeNotFound):
        nx.single_source_shortest_path_length(G, "missing", **GF)


# ------------------------------------------------------------ shortest paths
@SETTINGS
@given(G=nx_graphs(), data=st.data(), cutoff=st.sampled_from([None, 3, 7.5]))
def test_dijkstra_path_length(G, data, cutoff):
    s = _node(data, G)
    if s is None:
        return
    assert interface.can_run("single_source_dijkstra_path_length", (G, s), {}) is True
    got = nx.single_source_dijkstra_path_length(G, s, cutoff=cutoff, **GF)
    want = nx.single_source_dijkstra_path_length(G, s, cutoff=cutoff)
    assert got == want
    assert {v: type(x) for v, x in got.items()} == {v: type(x) for v, x in want.items()}
    assert list(got.values()) == sorted(got.values())
    assert nx.single_source_dijkstra_path_length(G, s, weight=None, **GF) == \
        nx.single_source_dijkstra_path_length(G, s, weight=None)


def test_dijkstra_weights_float32_cannot_hold_go_back_to_networkx():
    G = nx.Graph()
    G.add_edge(0, 1, weight=0.1)
    assert "float32" in interface.can_run("single_source_dijkstra_path_length", (G, 0), {})
    G.add_edge(1, 2, weight=-1)
    assert "float32" in interface.can_run("single_source_dijkstra_path_length", (G, 0), {})
    assert "function" in interface.can_run("single_source_dijkstra_path_length", (G, 0),
                                           {"weight": lambda u, v, d: 1})


# ------------------------------------------------------------ components
@SETTINGS
@given(G=nx_graphs(kinds=("Graph", "MultiGraph"), weights=(None,)))
def test_connected_components_in_networkx_order(G):
    assert list(nx.connected_components(G, **GF)) == list(nx.connected_components(G))
    assert nx.number_connected_components(G, **GF) == nx.number_connected_components(G)


@SETTINGS
@given(G=nx_graphs(kinds=("DiGraph", "MultiDiGraph"), weights=(None,)))
def test_weakly_connected_components_in_networkx_order(G):
    assert list(nx.weakly_connected_components(G, **GF)) == list(nx.weakly_connected_components(G))
    assert nx.number_weakly_connected_components(G, **GF) == nx.number_weakly_connected_components(G)


@SETTINGS
@given(G=nx_graphs(weights=(None,)), data=st.data())
def test_connectivity_predicates(G, data):
    if len(G) == 0:
        for fn in (nx.is_connected, nx.is_weakly_connected):
            with pytest.raises((nx.NetworkXPointlessConcept, nx.NetworkXNotImplemented)):
                fn(G, **GF)
        return
    s = _node(data, G)
    if G.is_directed():
        assert nx.is_weakly_connected(G, **GF) == nx.is_weakly_connected(G)
    else:
        assert nx.is_connected(G, **GF) == nx.is_connected(G)
        assert nx.node_connected_component(G, s, **GF) == nx.node_connected_component(G, s)


def test_component_functions_keep_networkx_type_errors():
    with pytest.raises(nx.NetworkXNotImplemented):
        list(nx.connected_components(nx.DiGraph([(0, 1)]), **GF))


# ------------------------------------------------------------ triangles, clustering
@SETTINGS
@given(G=nx_graphs(kinds=("Graph",), weights=(None,)), data=st.data())
def test_triangles_and_clustering(G, data):
    assert list(nx.triangles(G, **GF).items()) == list(nx.triangles(G).items())
    got, want = nx.clustering(G, **GF), nx.clustering(G)
    assert list(got.items()) == list(want.items())
    assert [type(x) for x in got.values()] == [type(x) for x in want.values()]
    s = _node(data, G)
    if s is not None:
        assert nx.triangles(G, s, **GF) == nx.triangles(G, s)
        assert nx.clustering(G, s, **GF) == nx.clustering(G, s)
        some = data.draw(st.lists(st.sampled_from(list(G)), max_size=5)) + ["not a node"]
        assert nx.triangles(G, some, **GF) == nx.triangles(G, some)
        assert nx.clustering(G, some, **GF) == nx.clustering(G, some)


@SETTINGS
@given(G=nx_graphs(kinds=("Graph",), weights=(None,)), count_zeros=st.booleans())
def test_average_clustering_and_transitivity_are_the_same_floats(G, count_zeros):
    assert nx.transitivity(G, **GF) == nx.transitivity(G)
    try:
        want = nx.average_clustering(G, count_zeros=count_zeros)
    except ZeroDivisionError:
        with pytest.raises(ZeroDivisionError):
            nx.average_clustering(G, count_zeros=count_zeros, **GF)
        return
    assert nx.average_clustering(G, count_zeros=count_zeros, **GF) == want


def test_clustering_variants_graphferry_does_not_define_go_back_to_networkx():
    assert "weighted" in interface.can_run("clustering", (nx.path_graph(3),), {"weight": "weight"})
    assert "directed" in interface.can_run("clustering", (nx.DiGraph([(0, 1)]),), {})
    assert "multigraph" in interface.can_run("clustering", (nx.MultiGraph([(0, 1)]),), {})


# ------------------------------------------------------------ betweenness
@SETTINGS
@given(G=nx_graphs(weights=(None, "positive")), data=st.data())
def test_betweenness_matches_networkx(G, data):
    weight = "weight" if any("weight" in d for *_, d in G.edges(data=True)) else None
    if weight is not None and G.is_multigraph():
        assert "multigraph" in interface.can_run("betweenness_centrality", (G,), {"weight": weight})
        return
    normalized = data.draw(st.booleans())
    k = data.draw(st.none() | st.integers(1, max(len(G), 1))) if len(G) else None
    seed = data.draw(st.integers(0, 99))
    got = nx.betweenness_centrality(G, k=k, normalized=normalized, weight=weight, seed=seed, **GF)
    want = nx.betweenness_centrality(G, k=k, normalized=normalized, weight=weight, seed=seed)
    assert list(got) == list(want)
    assert np.allclose(list(got.values()), list(want.values()), rtol=1e-9, atol=1e-12, equal_nan=True)


def test_betweenness_variants_graphferry_does_not_define_go_back_to_networkx():
    G = nx.path_graph(4)
    assert "endpoints" in interface.can_run("betweenness_centrality", (G,), {"endpoints": True})
    G.add_edge(0, 1, weight=0)
    assert "positive" in interface.can_run("betweenness_centrality", (G,), {"weight": "weight"})


# ------------------------------------------------------------ conversion, caching, dispatch
def test_conversion_is_cached_on_the_graph(monkeypatch):
    calls = []
    real = convert.from_networkx

    def counting(G, edge_attrs=None):
        calls.append(edge_attrs)
        return real(G, edge_attrs)

    monkeypatch.setattr(convert, "from_networkx", counting)
    G = nx.gnp_random_graph(50, 0.1, seed=2)
    nx.pagerank(G, **GF)
    nx.pagerank(G, **GF)
    nx.number_connected_components(G, **GF)  # a conversion with more attributes serves one with fewer
    assert len(calls) == 1
    assert G.__networkx_cache__["backends"]["graphferry"]
    G.add_edge(0, 49)  # NetworkX clears the cache when the graph changes
    nx.pagerank(G, **GF)
    assert len(calls) == 2


@SETTINGS
@given(G=nx_graphs(weights=(None, "int", "dyadic")))
def test_convert_round_trip(G):
    g = interface.convert_from_nx(G, edge_attrs={"weight": 1})
    assert g.is_directed() == G.is_directed() and g.is_multigraph() == G.is_multigraph()
    H = interface.convert_to_nx(g)
    assert set(H.nodes) == set(G.nodes)
    if G.is_multigraph():  # parallel edges keep their number; each carries the lightest weight (what paths use)
        assert sorted(map(repr, H.edges())) == sorted(map(repr, G.edges()))
    else:
        assert sorted(map(repr, H.edges(data="weight", default=1))) == sorted(map(repr, G.edges(data="weight", default=1)))
    assert interface.convert_to_nx({"a": 1}) == {"a": 1}


def test_backend_graph_is_accepted_directly():
    G = nx.karate_club_graph()
    g = interface.convert_from_nx(G)
    assert nx.number_connected_components(g) == 1  # dispatched on the graph's type, no backend= needed
    assert "without edge attribute 'weight'" in interface.can_run("pagerank", (g,), {})
    assert interface.can_run("pagerank", (g,), {"weight": None}) is True
    weighted = interface.convert_from_nx(G, edge_attrs={"weight": 1})
    assert nx.single_source_dijkstra_path_length(weighted, 0) == nx.single_source_dijkstra_path_length(G, 0)
    assert "karate" not in repr(g) and "34 nodes" in repr(g)


def test_should_run_keeps_small_graphs_in_networkx():
    assert isinstance(interface.should_run("pagerank", (nx.path_graph(4),), {}), str)
    big = nx.empty_graph(10)
    nx.config.backends.graphferry.min_edges = 3
    try:
        big.add_edges_from([(0, 1), (1, 2), (2, 3)])
        assert interface.should_run("pagerank", (big,), {}) is True
    finally:
        nx.config.backends.graphferry.min_edges = get_info()["default_config"]["min_edges"]


def test_automatic_dispatch_through_backend_priority():
    G = nx.gnp_random_graph(40, 0.2, seed=5)
    nx.config.backends.graphferry.min_edges = 0
    try:
        with nx.config.backend_priority(algos=["graphferry"]):
            got = nx.pagerank(G, tol=1e-12)
            fallback = nx.pagerank(G, personalization={0: 1})  # can_run is False: NetworkX runs it
    finally:
        nx.config.backends.graphferry.min_edges = get_info()["default_config"]["min_edges"]
    want = nx.pagerank(G, tol=1e-12)
    assert max(abs(got[v] - want[v]) for v in G) < 1e-10
    assert fallback == pytest.approx(nx.pagerank(G, personalization={0: 1}))


def test_automatic_dispatch_keeps_small_graphs_in_networkx(monkeypatch):
    calls = []
    monkeypatch.setattr(convert, "from_networkx", lambda *a, **k: calls.append(a) or from_networkx(*a, **k))
    G = nx.gnp_random_graph(40, 0.2, seed=6)
    with nx.config.backend_priority(algos=["graphferry"]):
        nx.pagerank(G, weight=None)      # 150-odd edges, far below min_edges: NetworkX runs it
    assert calls == []
    nx.pagerank(G, weight=None, **GF)    # asked for by name: graphferry runs it whatever the size
    assert len(calls) == 1


def test_every_advertised_function_exists_and_matches_networkx_signature():
    import inspect

    assert set(FUNCTIONS) == set(interface.FUNCTIONS)
    for name, spec in interface.FUNCTIONS.items():
        function = getattr(interface, name)
        theirs = nx.utils.backends._registered_algorithms[name]
        ours = inspect.signature(function)
        want = [p for p in inspect.signature(theirs).parameters.values() if p.name not in ("backend", "backend_kwargs")]
        assert list(ours.parameters.values()) == want, name


def test_entry_points_resolve(tmp_path):
    """In a fresh interpreter, pyproject's entry points (as a dist-info would list them) load the backend."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    points = project["entry-points"]
    dist = tmp_path / f"graphferry-{project['version']}.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: graphferry\nVersion: {project['version']}\n")
    (dist / "entry_points.txt").write_text("".join(
        f"[{group}]\n" + "".join(f"{k} = {v}\n" for k, v in eps.items()) for group, eps in points.items()))
    code = ("import networkx as nx; nx.config.backends.graphferry.backend = 'cpu'; "
            "print(round(nx.pagerank(nx.path_graph(3), backend='graphferry')[1], 4))")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(REPO / "src")])}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == str(round(nx.pagerank(nx.path_graph(3))[1], 4))


@SETTINGS
@given(G=nx_graphs(weights=(None, "int")), data=st.data())
def test_graph_views(G, data):
    keep = data.draw(st.lists(st.sampled_from(list(G)), unique=True)) if len(G) else []
    view = G.subgraph(keep)
    s = keep[0] if keep else None
    if s is not None:
        assert list(nx.bfs_edges(view, s, **GF)) == list(nx.bfs_edges(view, s))
        assert nx.single_source_dijkstra_path_length(view, s, **GF) == nx.single_source_dijkstra_path_length(view, s)
    if G.is_directed():
        assert list(nx.weakly_connected_components(view, **GF)) == list(nx.weakly_connected_components(view))
    else:
        assert list(nx.connected_components(view, **GF)) == list(nx.connected_components(view))


def test_labels_beyond_int64_and_numpy_weights():
    G = nx.Graph()
    G.add_edge(2**70, 5, weight=np.int64(3))
    G.add_edge(5, -7, weight=np.float64(0.5))
    assert nx.single_source_dijkstra_path_length(G, 2**70, **GF) == nx.single_source_dijkstra_path_length(G, 2**70)
    assert list(nx.bfs_edges(G, -7, **GF)) == list(nx.bfs_edges(G, -7))


def test_conversion_of_integer_labels_matches_dict_lookup():
    G = nx.DiGraph()
    G.add_nodes_from([10**12, 5, 7])
    G.add_edges_from([(5, 10**12), (10**12, 7), (7, 5)])
    g = from_networkx(G)
    assert g.csr.indices.tolist() == [2, 0, 1] and g.nodes == [10**12, 5, 7]
    assert math.isclose(sum(nx.pagerank(G, **GF).values()), 1.0)
    assert np.asarray(g.csr.offsets).tolist() == [0, 1, 2, 3]


def _python_conversion(G, edge_attrs):
    """The conversion with the compiled adjacency reader switched off (NetworkX's dicts read from Python)."""
    real = graph_module.reader
    graph_module.reader = lambda: None
    try:
        return from_networkx(G, edge_attrs)
    finally:
        graph_module.reader = real


def _assert_same_conversion(a, b):
    assert a.nodes == b.nodes and a.directed == b.directed and a.multigraph == b.multigraph
    assert np.array_equal(a.csr.offsets, b.csr.offsets)
    assert a.csr.indices.dtype == b.csr.indices.dtype and np.array_equal(a.csr.indices, b.csr.indices)
    assert (a.multiplicity is None) == (b.multiplicity is None)
    assert a.multiplicity is None or np.array_equal(a.multiplicity, b.multiplicity)
    assert a.weights.keys() == b.weights.keys()
    for name, wa in a.weights.items():
        wb = b.weights[name]
        assert (wa.default, wa.integral, wa.numeric, wa.all_uniform) == (wb.default, wb.integral, wb.numeric,
                                                                         wb.all_uniform)
        assert (wa.values is None) == (wb.values is None)
        assert wa.values is None or np.array_equal(wa.values, wb.values)


def test_compiled_adjacency_reader_is_used_where_a_compiler_is():
    assert adjacency.reader() is not None  # the CPU backend's compiler is there wherever these tests run


@SETTINGS
@given(G=nx_graphs(weights=(None, None, "int", "dyadic")), attrs=st.sampled_from([None, {"weight": 1}, {"w": 2.5}]))
def test_compiled_adjacency_reader_converts_as_python_does(G, attrs):
    _assert_same_conversion(from_networkx(G, attrs), _python_conversion(G, attrs))


@pytest.mark.parametrize("labels", [
    [-1, -2, 0, 5],                        # -1 and -2 share CPython's hash: labels are looked up instead
    [2**62 + i for i in range(4)],         # beyond the range where an int is its own hash
    ["a", (1, 2), 3.5, frozenset({1})],    # hashes of any kind
    [True, 2, 3.0, "x"],                   # True == 1 and 3.0 == 3 hash as those ints do
])
def test_compiled_adjacency_reader_on_awkward_labels(labels):
    for kind in (nx.Graph, nx.DiGraph, nx.MultiGraph):
        G = kind()
        G.add_nodes_from(labels)
        G.add_edges_from([(labels[i], labels[(i * 3 + 1) % 4]) for i in range(4)])
        G.add_edge(labels[0], labels[2], weight=2)
        for attrs in (None, {"weight": 1}):
            _assert_same_conversion(from_networkx(G, attrs), _python_conversion(G, attrs))
    view = nx.path_graph(10).subgraph([1, 2, 3, 7, 8])  # a view: its filtered adjacency is copied first
    _assert_same_conversion(from_networkx(view, {"weight": 1}), _python_conversion(view, {"weight": 1}))


def test_edge_attributes_set_after_a_cached_conversion_need_a_cache_clear_as_networkx_says():
    G = nx.gnm_random_graph(30, 80, seed=5)
    assert nx.pagerank(G, **GF)  # converted and cached: every edge without attributes
    u, v = next(iter(G.edges()))
    G[u][v]["weight"] = 5.0  # NetworkX cannot see this change; its documentation asks for a clear
    nx._clear_cache(G)
    assert "edge weights differ" in interface.can_run("pagerank", (G,), {})
    G.add_edge(u, v, weight=1.0)  # a change through NetworkX's methods clears the cache by itself
    assert interface.can_run("pagerank", (G,), {}) is True


def test_a_conversion_that_kept_every_attribute_serves_a_later_weighted_call():
    # k_truss's conversion keeps the NetworkX graph instead of reading every attribute; NetworkX's
    # cache then hands it to later calls, which read their weights from that graph (they were declined)
    G = nx.gnm_random_graph(60, 300, seed=3)
    for i, (u, v) in enumerate(G.edges()):
        G[u][v]["weight"] = 1 + i % 4
    assert nx.utils.graphs_equal(nx.k_truss(G, 3, **GF), nx.k_truss(G, 3))
    assert nx.single_source_dijkstra_path_length(G, 0, **GF) == nx.single_source_dijkstra_path_length(G, 0)
    assert list(nx.minimum_spanning_edges(G, **GF)) == list(nx.minimum_spanning_edges(G))
    assert interface.can_run("louvain_communities", (G,), {}) is True


def test_readme_example_runs():
    import re

    blocks = re.findall(r"```python\n(.*?)```", (REPO / "README.md").read_text(), re.S)
    example = next(b for b in blocks if 'backend="graphferry"' in b)
    session: dict = {}
    exec(compile(example, "README.md (NetworkX backend)", "exec"), session)
    assert session["parts"] == list(nx.connected_components(session["G"]))


@pytest.mark.gpu
def test_backend_on_the_gpu_matches_networkx():
    G = nx.gnm_random_graph(3000, 20_000, seed=4)
    nx.config.backends.graphferry.backend = "cuda"
    try:
        got = nx.pagerank(G, tol=1e-10, **GF)
        assert list(nx.bfs_edges(G, 0, **GF)) == list(nx.bfs_edges(G, 0))
        assert list(nx.connected_components(G, **GF)) == list(nx.connected_components(G))
        assert nx.triangles(G, **GF) == nx.triangles(G)
        assert nx.single_source_dijkstra_path_length(G, 0, **GF) == nx.single_source_dijkstra_path_length(G, 0)
    finally:
        nx.config.backends.graphferry.backend = "cpu"
    exact = nx.pagerank(G, tol=1e-15, max_iter=10_000)
    assert sum(abs(got[v] - exact[v]) for v in G) <= 0.85 / 0.15 * len(G) * 1e-10  # NetworkX's own bound


def test_import_free_function_list_is_current():
    """``_graphferry_nx/functions.py`` (what NetworkX reads at import) lists exactly the registrations."""
    from graphferry.nx_backend import registration

    assert registration.INFO_FILE.read_text() == registration.info_source(), \
        "run: python -m graphferry.nx_backend.registration"


def test_every_registered_function_is_in_its_area_module():
    from graphferry.nx_backend import registration

    for name, spec in registration.FUNCTIONS.items():
        assert spec.module.rsplit(".", 1)[1] in registration.AREAS, name
        assert spec.note, name


# ------------------------------------------------------------ the shortest-path family, structure
def _outcome(f, *args, **kwargs):
    """What a call gives: ("ok", result with generators listed) or ("raises", exception type)."""
    try:
        r = f(*args, **kwargs)
    except nx.NetworkXException as exc:
        return ("raises", type(exc))
    except (ValueError, KeyError) as exc:
        return ("raises", type(exc))
    if not isinstance(r, (dict, set, list, tuple, int, float, bool, type(None))):
        r = list(r)
    return ("ok", r)


def _ordered(x):
    """A result with every dict turned into its list of items, so that key order counts."""
    if isinstance(x, dict):
        return [(k, _ordered(v)) for k, v in x.items()]
    if isinstance(x, (list, tuple)):
        return type(x)(_ordered(v) for v in x)
    return x


def _same_as_networkx(name, *args, ordered=True, **kwargs):
    f = getattr(nx, name)
    if interface.can_run(name, args, kwargs) is not True:
        return False
    want = _outcome(f, *args, **kwargs)
    try:
        got = _outcome(f, *args, **kwargs, **GF)
    except NotImplementedError:  # a check on the converted graph declined: NetworkX answers
        return False
    if ordered:
        assert _ordered(got) == _ordered(want), (name, args, kwargs)
    else:
        assert got == want, (name, args, kwargs)
    return True


@SETTINGS
@given(G=nx_graphs(weights=("int", "dyadic", "positive")), data=st.data(), cutoff=st.sampled_from([None, 1, 2, 3.5]))
def test_dijkstra_family_in_networkx_order_with_networkx_paths(G, data, cutoff):
    s = _node(data, G)
    if s is None:
        return
    t = data.draw(st.sampled_from(list(G) + ["absent"]))
    others = data.draw(st.lists(st.sampled_from(list(G)), min_size=1, max_size=3))
    _same_as_networkx("single_source_dijkstra", G, s, cutoff=cutoff)
    _same_as_networkx("single_source_dijkstra_path", G, s, cutoff=cutoff)
    _same_as_networkx("single_source_dijkstra_path_length", G, s, cutoff=cutoff)
    _same_as_networkx("multi_source_dijkstra", G, others, cutoff=cutoff)
    _same_as_networkx("multi_source_dijkstra_path_length", G, set(others))
    _same_as_networkx("dijkstra_path", G, s, t)
    _same_as_networkx("dijkstra_path_length", G, s, t)
    _same_as_networkx("single_source_dijkstra", G, s, target=t)
    _same_as_networkx("shortest_path", G, s, weight="weight")
    _same_as_networkx("shortest_path_length", G, None, s, weight="weight")
    if len(G) <= 8:
        _same_as_networkx("all_pairs_dijkstra", G, cutoff=cutoff)
        _same_as_networkx("all_pairs_dijkstra_path_length", G)


def test_dijkstra_path_length_order_is_networkx_heap_order_on_ties():
    """Issue 39 item 15: ties are ordered as NetworkX's heap pops them, not by node id."""
    G = nx.Graph()
    G.add_weighted_edges_from([(0, 5, 1), (0, 3, 1), (5, 1, 1), (3, 2, 1), (5, 4, 0), (0, 6, 2)])
    want = nx.single_source_dijkstra_path_length(G, 0)
    got = nx.single_source_dijkstra_path_length(G, 0, **GF)
    assert list(got.items()) == list(want.items())
    assert list(got) != sorted(got, key=lambda v: (got[v], v))  # node order would differ here


@SETTINGS
@given(G=nx_graphs(weights=("int", "dyadic")), data=st.data())
def test_bellman_ford_family_matches_networkx(G, data):
    s = _node(data, G)
    if s is None:
        return
    t = data.draw(st.sampled_from(list(G) + ["absent"]))
    _same_as_networkx("bellman_ford_path_length", G, s, t)
    _same_as_networkx("bellman_ford_path", G, s, t)
    _same_as_networkx("single_source_bellman_ford", G, s, ordered=False)
    _same_as_networkx("single_source_bellman_ford_path_length", G, s, ordered=False)
    _same_as_networkx("shortest_path_length", G, s, weight="weight", method="bellman-ford", ordered=False)


def test_bellman_ford_declines_negative_weights_and_tied_paths():
    G = nx.DiGraph([(0, 1, {"weight": -1})])
    assert "non-negative" in interface.can_run("bellman_ford_path_length", (G, 0, 1), {})
    H = nx.cycle_graph(4)  # two shortest paths from 0 to 2
    with pytest.raises(NotImplementedError):
        nx.bellman_ford_path(H, 0, 2, **GF)
    with nx.config.backend_priority(algos=["graphferry"]):
        nx.config.backends.graphferry.min_edges = 0
        try:
            assert nx.bellman_ford_path(H, 0, 2) == nx.bellman_ford_path(nx.cycle_graph(4), 0, 2)
        finally:
            nx.config.backends.graphferry.min_edges = get_info()["default_config"]["min_edges"]


@SETTINGS
@given(G=nx_graphs(weights=(None,)), data=st.data(), cutoff=st.sampled_from([None, 0, 1, 2, 3.5]))
def test_bfs_path_family_in_networkx_order(G, data, cutoff):
    s = _node(data, G)
    if s is None:
        return
    t = data.draw(st.sampled_from(list(G) + ["absent"]))
    _same_as_networkx("single_source_shortest_path", G, s, cutoff=cutoff)
    _same_as_networkx("single_target_shortest_path", G, s, cutoff=cutoff)
    _same_as_networkx("single_target_shortest_path_length", G, s, cutoff=cutoff)
    _same_as_networkx("bidirectional_shortest_path", G, s, t)
    _same_as_networkx("has_path", G, s, t)
    _same_as_networkx("shortest_path", G, s)
    _same_as_networkx("shortest_path", G, s, t)
    _same_as_networkx("shortest_path_length", G, s, t)
    _same_as_networkx("shortest_path", G, None, s)
    if len(G) <= 8:
        _same_as_networkx("all_pairs_shortest_path", G, cutoff=cutoff)
        _same_as_networkx("all_pairs_shortest_path_length", G)
        _same_as_networkx("shortest_path", G)


def test_directed_functions_reading_predecessor_order_go_back_to_networkx():
    G = nx.DiGraph([(2, 0), (1, 0)])
    for name, args in [("single_target_shortest_path", (G, 0)), ("bidirectional_shortest_path", (G, 1, 0))]:
        assert "predecessors" in interface.can_run(name, args, {})
    assert interface.can_run("has_path", (G, 1, 0), {}) is True


@SETTINGS
@given(G=nx_graphs(weights=(None,)), data=st.data())
def test_structure_functions_match_networkx(G, data):
    s = _node(data, G)
    for name in ("degree_centrality", "in_degree_centrality", "out_degree_centrality", "isolates",
                 "number_of_isolates", "reciprocity", "overall_reciprocity", "is_tree", "is_forest"):
        if len(G) or name not in ("is_tree", "is_forest"):
            _same_as_networkx(name, G)
    if s is not None:
        for name in ("is_isolate", "descendants", "ancestors"):
            _same_as_networkx(name, G, s)
        _same_as_networkx("reciprocity", G, s)
        _same_as_networkx("reciprocity", G, list(G)[:3])


def test_small_bounds_run_a_bounded_search_without_graphferry_bfs(monkeypatch):
    from graphferry.nx_backend import running, shortest_paths, traversal

    calls = []
    monkeypatch.setattr(running, "run", lambda *a, **k: calls.append(a[0]))
    G = nx.path_graph(50)
    assert nx.single_source_shortest_path_length(G, 0, cutoff=2, **GF) == {0: 0, 1: 1, 2: 2}
    assert nx.descendants_at_distance(G, 10, 2, **GF) == {8, 12}
    assert list(nx.bfs_edges(G, 0, depth_limit=1, **GF)) == [(0, 1)]
    assert calls == [] and shortest_paths and traversal
    assert isinstance(interface.should_run("single_source_shortest_path_length", (G, 0), {"cutoff": 1}), str)
