"""Louvain against NetworkX's louvain_communities and networkx.community.modularity (the oracles).

A parallel Louvain gives other communities than NetworkX's sequential one (whose
answer depends on its shuffled visiting order), so the checks are: a partition of
the nodes; its modularity, recomputed by NetworkX, is what the run reports; and it
is no worse than NetworkX's own Louvain's, within a small tolerance, on karate,
LFR and planted-partition graphs (a fixed fraction of it on hypothesis's random
graphs). The same answer on every engine with a tiny budget; the hubs' numpy path;
the NetworkX backend's arguments (seed, max_level, weights, multigraphs, directed).
"""

from __future__ import annotations

import importlib
import random

import networkx as nx
import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from conftest import ENGINES, tiny_budget_options
from graphferry import Graph
from graphferry.algorithms.louvain import louvain, verify_louvain
from graphferry.nx_backend import register
from graphferry.nx_backend.interface import can_run

register()
GF = {"backend": "graphferry"}
lv = importlib.import_module("graphferry.algorithms.louvain")   # the module, not the function


def csr_of(G: nx.Graph, weight: str | None = None) -> Graph:
    """G's edges as a graphferry Graph (vertex i is G's i-th node)."""
    index = {v: i for i, v in enumerate(G)}
    edges = list(G.edges(data=True))
    src = np.array([index[u] for u, _, _ in edges], np.int64)
    dst = np.array([index[v] for _, v, _ in edges], np.int64)
    w = None if weight is None else np.array([d.get(weight, 1) for _, _, d in edges], np.float32)
    return Graph.from_edges(src, dst, w, n=len(G), directed=G.is_directed())


def networkx_modularity(G: nx.Graph, weight: str | None = None, seeds=range(3), resolution: float = 1.0) -> float:
    """The median modularity of NetworkX's own Louvain over a few seeds."""
    return float(np.median([nx.community.modularity(
        G, nx.community.louvain_communities(G, weight=weight, seed=s, resolution=resolution), weight=weight,
        resolution=resolution) for s in seeds]))


def partition_of(community: np.ndarray, nodes: list) -> list[set]:
    groups: dict[int, set] = {}
    for v, c in zip(nodes, community.tolist()):
        groups.setdefault(c, set()).add(v)
    return list(groups.values())


def lfr(n: int, mu: float, seed: int) -> nx.Graph:
    G = nx.LFR_benchmark_graph(n, 3, 1.5, mu, average_degree=10, max_degree=50, min_community=20,
                               max_community=100, seed=seed)
    G.remove_edges_from(nx.selfloop_edges(G))
    return nx.Graph(G)


@pytest.mark.parametrize("case", ["karate", "karate weighted", "karate resolution 0.5", "karate resolution 2",
                                  "lfr 0.1", "lfr 0.3", "lfr 0.5", "planted", "directed gn"])
def test_modularity_is_networkx_louvains_or_better(case):
    weight, resolution = None, 1.0
    if case.startswith("karate"):
        G = nx.karate_club_graph()
        weight = "weight" if case == "karate weighted" else None
        resolution = float(case.split()[-1]) if "resolution" in case else 1.0
    elif case.startswith("lfr"):
        G = lfr(500, float(case.split()[1]), seed=42)
    elif case == "planted":
        G = nx.planted_partition_graph(10, 40, 0.3, 0.01, seed=1)
    else:
        G = nx.gn_graph(300, seed=1234)
    g = csr_of(G, weight)
    r = louvain(g, resolution=resolution, backend="cpu")
    verify_louvain(g, r.community, r.modularity, resolution=resolution)   # a partition, NetworkX's modularity
    ours = nx.community.modularity(G, partition_of(r.community, list(G)), weight=weight, resolution=resolution)
    assert ours == pytest.approx(r.modularity, abs=1e-9)
    assert ours >= networkx_modularity(G, weight, resolution=resolution) - 0.01


@settings(max_examples=12, deadline=None)
@given(n=st.integers(1, 80), m=st.integers(0, 300), seed=st.integers(0, 10**6), directed=st.booleans(),
       loops=st.booleans())
@example(n=12, m=123, seed=0, directed=False, loops=True)   # fast rounds alone: 0.024 against NetworkX's 0.074
def test_random_graphs_give_a_partition_near_networkx(n, m, seed, directed, loops):
    rng = random.Random(seed)
    G = nx.DiGraph() if directed else nx.Graph()
    G.add_nodes_from(range(n))
    for _ in range(m):
        u, v = rng.randrange(n), rng.randrange(n)
        if u != v or loops:
            G.add_edge(u, v)
    got = nx.community.louvain_communities(G, **GF)
    assert nx.community.is_partition(G, got)
    if G.number_of_edges():
        ours = nx.community.modularity(G, got)
        assert ours >= 0.9 * networkx_modularity(G, seeds=range(2)) - 0.02


@pytest.mark.parametrize("engine", ENGINES + ["hybrid"])
def test_every_engine_gives_the_same_communities(engine):
    g = csr_of(lfr(250, 0.2, seed=3))
    want = louvain(g, backend="cpu", engine="host")
    got = louvain(g, **tiny_budget_options(engine))
    assert got.community.tolist() == want.community.tolist()
    assert got.modularity == pytest.approx(want.modularity, abs=1e-12)


def test_hubs_take_the_numpy_path_and_are_checked():
    G = nx.planted_partition_graph(6, 60, 0.3, 0.01, seed=2)
    for hub, group in ((1000, range(0, 60)), (1001, range(60, 120))):   # two hubs, each tied to one group
        G.add_edges_from((hub, v) for v in group)
        G.add_edges_from((hub, v) for v in range(120, 360, 2))
    for a in range(300):                                                  # a third with a long, thin row
        G.add_edge(2000, 1100 + a)
        G.add_edge(1100 + a, 1100 + (a + 1) % 300)
    assert max(d for _, d in G.degree()) > lv.LOCAL
    g = csr_of(G)
    r = louvain(g, backend="cpu")
    verify_louvain(g, r.community, r.modularity)
    assert nx.community.modularity(G, partition_of(r.community, list(G))) >= networkx_modularity(G) - 0.01


def test_an_edgeless_graph_is_its_singletons_and_levels_follow_networkx():
    G = nx.Graph()
    G.add_nodes_from(range(5))
    assert nx.community.louvain_communities(G, **GF) == [{0}, {1}, {2}, {3}, {4}]
    K = nx.karate_club_graph()
    levels = list(nx.community.louvain_partitions(K, **GF))
    assert len(levels) >= 2 and all(nx.community.is_partition(K, p) for p in levels)
    assert nx.community.louvain_communities(K, **GF) == levels[-1]
    assert nx.community.louvain_communities(K, max_level=1, **GF) == levels[0]
    q = [nx.community.modularity(K, p) for p in levels]
    assert q == sorted(q)   # every kept level gains
    with pytest.raises(ValueError, match="max_level argument must be a positive integer"):
        nx.community.louvain_communities(K, max_level=0, **GF)


def test_weights_self_loops_and_multigraphs_count_as_networkx_counts_them():
    K = nx.karate_club_graph()
    K.add_weighted_edges_from([(i, i, i * 1000) for i in range(9)])   # heavy self-loops: NetworkX's test
    for G, weight in ((K, "weight"), (K, None), (nx.MultiGraph(K), None), (nx.MultiDiGraph(nx.gn_graph(80, seed=1)),
                                                                          None)):
        got = nx.community.louvain_communities(G, weight=weight, **GF)
        assert nx.community.is_partition(G, got)
        g = nx.Graph(G) if not G.is_directed() else G
        ours = nx.community.modularity(G, got, weight=weight)
        assert ours >= networkx_modularity(G if not G.is_multigraph() else g, weight) - 0.02, (G, weight)
    M = nx.MultiGraph([(0, 1), (0, 1), (1, 2), (2, 3), (3, 4), (3, 4), (4, 5), (5, 3)])
    got = nx.community.louvain_communities(M, weight=None, **GF)
    # the parallel edges count: NetworkX's modularity of the multigraph, as reported by the algorithm
    r = louvain(csr_of(nx.Graph(M)), backend="cpu")
    assert nx.community.modularity(M, got, weight=None) >= nx.community.modularity(
        M, partition_of(r.community, list(M)), weight=None) - 1e-12


def test_can_run_declines_what_it_does_not_answer():
    G = nx.karate_club_graph()
    assert can_run("louvain_communities", (G,), {}) is True
    assert can_run("louvain_communities", (G,), {"seed": 1}) is not True    # NetworkX's order for that seed
    assert can_run("louvain_partitions", (G,), {"seed": 1}) is not True
    assert can_run("louvain_communities", (G,), {"weight": len}) is not True
    N = nx.Graph([(0, 1, {"weight": -1.0}), (1, 2, {"weight": 2.0})])
    assert can_run("louvain_communities", (N,), {}) is not True             # negative weights
    P = nx.MultiGraph([(0, 1, {"weight": 1.0}), (0, 1, {"weight": 3.0})])
    assert can_run("louvain_communities", (P,), {}) is not True             # parallel edges that differ


def test_the_verifier_rejects_a_wrong_modularity_and_a_bad_partition():
    g = Graph.from_edges(np.array([0, 0, 1, 3, 3, 4, 2]), np.array([1, 2, 2, 4, 5, 5, 3]), n=6, directed=False)
    r = louvain(g, backend="cpu")
    verify_louvain(g, r.community, r.modularity)
    with pytest.raises(AssertionError):
        verify_louvain(g, r.community, r.modularity + 0.01)
    broken = r.community.copy()
    broken[0] = 1                      # community 1 is not named by its smallest member, 0
    with pytest.raises(AssertionError):
        verify_louvain(g, broken)


@pytest.mark.gpu
def test_the_gpu_gives_the_cpus_communities():
    g = csr_of(lfr(500, 0.3, seed=42))
    want = louvain(g, backend="cpu")
    got = louvain(g, backend="cuda")
    verify_louvain(g, got.community, got.modularity)
    # the same rule; a gain's last bit may differ (the GPU fuses multiply-adds), so a tie may break otherwise
    assert got.modularity >= want.modularity - 0.01
