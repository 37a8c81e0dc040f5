"""Semi-synchronous label propagation against NetworkX's label_propagation_communities (the oracle).

The same labels, hence the same communities in the same order, on graphs with
self-loops, isolated vertices, string labels and hubs (rows longer than the
device function's local buffer, done by the driver's numpy path); the verifier
catches a labelling that is not a fixed point.
"""

from __future__ import annotations

import importlib
import random

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphferry import Graph
from graphferry.algorithms.label_propagation import label_propagation, verify_label_propagation
from graphferry.nx_backend import register
from graphferry.nx_backend.interface import can_run

register()
GF = {"backend": "graphferry"}
lpa = importlib.import_module("graphferry.algorithms.label_propagation")   # the module, not the function


def networkx_graph(n: int, m: int, seed: int, *, loops: bool, hub: int = 0, labels: str = "int") -> nx.Graph:
    rng = random.Random(seed)
    names = [f"v{i}" for i in range(n)] if labels == "str" else list(range(n))
    rng.shuffle(names)
    G = nx.Graph()
    G.add_nodes_from(names)
    for _ in range(m):
        u, v = rng.choice(names), rng.choice(names)
        if u != v or loops:
            G.add_edge(u, v)
    for v in names[1:hub + 1]:   # one node joined to `hub` others
        G.add_edge(names[0], v)
    return G


def as_sets(communities) -> list[set]:
    return [set(c) for c in communities]


def networkx_labels(G: nx.Graph) -> list[int]:
    """The labels NetworkX's algorithm ends with (its own steps, which its function does not return)."""
    from networkx.algorithms.community import label_propagation as nxlpa

    coloring = nxlpa._color_network(G)
    labeling = {v: k for k, v in enumerate(G)}
    while not nxlpa._labeling_complete(labeling, G):
        for _, nodes in coloring.items():
            for v in nodes:
                nxlpa._update_label(v, labeling, G)
    return [labeling[v] for v in G]


def csr_of(G: nx.Graph) -> Graph:
    index = {v: i for i, v in enumerate(G)}
    src = [index[u] for u in G for _ in G[u]]
    dst = [index[v] for u in G for v in G[u]]
    return Graph.from_edges(np.array(src, np.int64), np.array(dst, np.int64), n=len(G), directed=True)


@settings(max_examples=30, deadline=None)
@given(n=st.integers(1, 60), m=st.integers(0, 150), seed=st.integers(0, 10**6), loops=st.booleans(),
       labels=st.sampled_from(["int", "str"]))
def test_communities_are_networkx(n, m, seed, loops, labels):
    G = networkx_graph(n, m, seed, loops=loops, labels=labels)
    want = nx.community.label_propagation_communities(G)
    got = nx.community.label_propagation_communities(G, **GF)
    assert type(got) is type(want) and as_sets(got) == as_sets(want)   # the same sets, the same order


@pytest.mark.parametrize("seed", [1, 2])
def test_hubs_take_the_numpy_path_and_agree(seed):
    G = networkx_graph(700, 2500, seed, loops=True, hub=400)
    G.add_edges_from((0, v) for v in range(401, 650))   # a second long row
    assert max(d for _, d in G.degree()) > lpa.LOCAL   # rows beyond the device buffer: the driver's numpy
    want = nx.community.label_propagation_communities(G)
    got = nx.community.label_propagation_communities(G, **GF)
    assert as_sets(got) == as_sets(want)
    # the labels themselves (a wrong label of the same sets would pass above): NetworkX's steps
    r = label_propagation(csr_of(G), backend="cpu")
    assert r.labels.tolist() == networkx_labels(G)
    verify_label_propagation(csr_of(G), r.labels)


def test_a_star_hub_takes_the_largest_of_its_tied_labels():
    G = nx.star_graph(300)   # the hub's 300 neighbours each carry their own label: Prec-Max takes the largest
    r = label_propagation(csr_of(G), backend="cpu")
    assert r.labels.tolist() == networkx_labels(G) == [300] * 301


def test_the_verifier_rejects_a_labelling_that_is_not_a_fixed_point():
    g = Graph.from_edges(np.array([0, 0, 1, 3, 3, 4, 2]), np.array([1, 2, 2, 4, 5, 5, 3]), n=7, directed=False)
    r = label_propagation(g, backend="cpu")
    verify_label_propagation(g, r.labels)
    broken = r.labels.copy()
    broken[0] = 5   # vertex 0's neighbours 1 and 2 carry another label
    with pytest.raises(AssertionError):
        verify_label_propagation(g, broken)


def test_declines_directed_graphs_and_multigraphs():
    G = nx.karate_club_graph()
    assert can_run("label_propagation_communities", (G,), {}) is True
    assert can_run("label_propagation_communities", (nx.DiGraph(G),), {}) is not True
    assert can_run("label_propagation_communities", (nx.MultiGraph(G),), {}) is not True
