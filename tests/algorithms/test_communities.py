"""Label propagation communities: modularity against networkx's asyn_lpa_communities and modularity()."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from graphferry import Graph
from graphferry.algorithms.communities import communities, verify_communities

from conftest import DATASETS, need_shared, read_dataset


def to_graph(G: nx.Graph) -> Graph:
    e = np.array(list(G.edges()), dtype=np.int64).reshape(-1, 2)
    return Graph.from_edges(e[:, 0], e[:, 1], n=G.number_of_nodes(), directed=False)


def nx_lpa_modularity(G: nx.Graph, seeds=range(3)) -> float:
    """Mean modularity of networkx's asynchronous label propagation over a few seeds."""
    return float(np.mean([nx.community.modularity(G, nx.community.asyn_lpa_communities(G, seed=s))
                          for s in seeds]))


@settings(max_examples=12, deadline=None)
@given(groups=st.integers(2, 8), size=st.integers(30, 60), p_in=st.sampled_from([0.3, 0.5]),
       p_out=st.sampled_from([0.002, 0.005]), graph_seed=st.integers(0, 10**6),
       refine=st.booleans(), seed=st.integers(0, 100))
def test_planted_partitions_modularity_near_networkx(groups, size, p_in, p_out, graph_seed, refine, seed):
    # clear structure: ~10 or more neighbours inside a group, a fifth of that or less outside.
    # Label propagation is a randomised heuristic on both sides: means over three seeds each
    G = nx.planted_partition_graph(groups, size, p_in, p_out, seed=graph_seed)
    g = to_graph(G)
    ours = []
    for s in range(seed, seed + 3):
        r = communities(g, refine=refine, seed=s, backend="cpu")
        verify_communities(g, r.community, r.modularity)
        ours.append(r.modularity)
    assert abs(np.mean(ours) - nx_lpa_modularity(G)) <= 0.05, ours


@settings(max_examples=40, deadline=None)
@given(n=st.integers(0, 40), m=st.integers(0, 150), graph_seed=st.integers(0, 2**32 - 1),
       directed=st.booleans(), refine=st.booleans())
def test_any_graph_gives_a_valid_labelling_and_networkx_modularity(n, m, graph_seed, directed, refine):
    rng = np.random.default_rng(graph_seed)
    m = m if n else 0
    g = Graph.from_edges(rng.integers(0, max(n, 1), m), rng.integers(0, max(n, 1), m), n=n, directed=directed)
    r = communities(g, refine=refine, backend="cpu")
    verify_communities(g, r.community, r.modularity)
    assert r.num_communities == len(np.unique(r.community))


def test_hub_neighbourhoods_use_the_candidate_counters():
    # two stars of 600 leaves whose leaves form cliques of 4: hubs have > 256 neighbours
    G = nx.Graph()
    for hub, base in ((0, 1), (601, 602)):
        for k in range(600):
            G.add_edge(hub, base + k)
        for k in range(0, 600, 4):
            G.add_edges_from((base + k + i, base + k + j) for i in range(4) for j in range(i + 1, 4))
    G.add_edge(0, 601)
    g = to_graph(G)
    r = communities(g, backend="cpu")
    verify_communities(g, r.community, r.modularity)
    assert abs(r.modularity - nx_lpa_modularity(G)) <= 0.05


def test_seed_gives_the_same_result_single_threaded_order_free():
    G = nx.planted_partition_graph(5, 40, 0.4, 0.005, seed=3)
    a = communities(to_graph(G), seed=7, backend="cpu")
    assert a.num_communities == 5 and abs(a.modularity - nx_lpa_modularity(G)) <= 0.05


@pytest.mark.parametrize("name", ["les_miserables.el", "minnesota_road.el", "wormnet_v3.el"])
def test_shared_datasets_modularity_near_networkx(name):
    path = DATASETS / name
    need_shared(path, name)
    n, src, dst, directed = read_dataset(path)
    g = Graph.from_edges(src, dst, n=n, directed=directed)
    G = nx.Graph()
    G.add_nodes_from(range(n))
    G.add_edges_from((a, b) for a, b in zip(src.tolist(), dst.tolist()) if a != b)
    r = communities(g, backend="cpu")
    verify_communities(g, r.community, r.modularity)
    assert abs(r.modularity - nx_lpa_modularity(G)) <= 0.05, r.modularity


def test_start_labels_and_inactive_vertices_vote_without_changing():
    # the BSP baseline's superstep: ghosts (inactive) keep their labels but count as neighbours,
    # and the labels come back as propagated, not renamed by smallest member
    g = Graph.from_edges([0, 1, 3], [1, 2, 4], n=5, directed=False)
    r = communities(g, refine=False, max_iterations=1, labels=np.array([2, 1, 2, 4, 3]),
                    active=np.array([0, 1, 0, 1, 0]), backend="cpu")
    assert r.community.tolist() == [2, 2, 2, 3, 3]
    with pytest.raises(ValueError, match="labels"):
        communities(g, labels=np.array([0, 1, 2, 3, 5]), backend="cpu")
