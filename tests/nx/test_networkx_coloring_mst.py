"""The NetworkX backend's greedy_color and minimum spanning edges/tree against NetworkX itself (the oracle).

Both must give NetworkX's exact answer: the same colours in the same dict order,
the same forest edges in the same order with the same attribute dicts. Graphs
with many ties (few distinct weights, many equal degrees) are where an answer
that is merely valid would differ.
"""

from __future__ import annotations

import random

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphferry import Graph
from graphferry.algorithms.coloring import coloring, verify_greedy_coloring
from graphferry.algorithms.mst import verify_msf
from graphferry.nx_backend import register
from graphferry.nx_backend.interface import can_run

register()
GF = {"backend": "graphferry"}


def random_graph(n: int, m: int, seed: int, *, labels: str = "int", loops: bool = False) -> nx.Graph:
    rng = random.Random(seed)
    G = nx.Graph()
    names = [f"v{i}" for i in range(n)] if labels == "str" else list(range(n))
    rng.shuffle(names)   # node order unlike the labels' order
    G.add_nodes_from(names)
    for _ in range(m):
        u, v = rng.choice(names), rng.choice(names)
        if u != v or loops:
            G.add_edge(u, v, weight=rng.randint(1, 4), other=rng.randint(-4, 4) / 4)   # float32-exact, negative too
    return G


@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 40), m=st.integers(0, 120), seed=st.integers(0, 10**6), loops=st.booleans(),
       labels=st.sampled_from(["int", "str"]))
def test_greedy_color_largest_first_is_networkx(n, m, seed, loops, labels):
    G = random_graph(n, m, seed, labels=labels, loops=loops)
    want = nx.greedy_color(G)
    got = nx.greedy_color(G, **GF)
    assert got == want and list(got) == list(want)


def test_greedy_color_random_sequential_uses_the_random_state_networkx_would():
    G = random_graph(200, 900, 3)
    random.seed(7)
    want = nx.greedy_color(G, strategy="random_sequential")
    random.seed(7)
    got = nx.greedy_color(G, strategy=nx.coloring.strategy_random_sequential, **GF)
    assert got == want and list(got) == list(want)


def test_greedy_color_declines_what_it_does_not_do():
    G = nx.cycle_graph(5)
    assert can_run("greedy_color", (G,), {"interchange": True}) is not True
    assert can_run("greedy_color", (G,), {"strategy": "smallest_last"}) is not True
    assert can_run("greedy_color", (G,), {"strategy": lambda G, c: list(G)}) is not True
    assert can_run("greedy_color", (nx.DiGraph(G),), {}) is not True
    assert can_run("greedy_color", (G,), {"strategy": "largest_first"}) is True
    assert nx.greedy_color(nx.Graph(), **GF) == {}


def test_verify_greedy_coloring_catches_a_colouring_that_is_proper_but_not_greedy():
    g = Graph.from_edges(np.array([0, 1, 2]), np.array([1, 2, 3]), n=4, directed=False)   # a path
    rank = np.arange(4)
    r = coloring(g, method="jones_plassmann", priority=rank, backend="cpu")
    assert r.colors.tolist() == [0, 1, 0, 1]
    verify_greedy_coloring(g, r.colors, rank)
    with pytest.raises(AssertionError):
        verify_greedy_coloring(g, np.array([0, 1, 2, 0]), rank)   # proper, but vertex 2 could take 0


@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 40), m=st.integers(0, 120), seed=st.integers(0, 10**6), loops=st.booleans(),
       labels=st.sampled_from(["int", "str"]), weight=st.sampled_from(["weight", "other", "absent", None]))
def test_minimum_spanning_edges_are_networkx_kruskal(n, m, seed, loops, labels, weight):
    G = random_graph(n, m, seed, labels=labels, loops=loops)
    want = list(nx.minimum_spanning_edges(G, weight=weight))
    got = list(nx.minimum_spanning_edges(G, weight=weight, **GF))
    assert got == want                                   # the same edges, order, orientation, data
    assert all(d is G[u][v] for u, v, d in got)          # NetworkX yields the graph's own dicts
    assert list(nx.minimum_spanning_edges(G, weight=weight, data=False, **GF)) == [(u, v) for u, v, _ in want]
    G.graph["title"] = "kept"
    G.nodes[next(iter(G))]["colour"] = "red"
    T = nx.minimum_spanning_tree(G, weight=weight, **GF)
    W = nx.minimum_spanning_tree(G, weight=weight)
    assert nx.utils.graphs_equal(T, W) and list(T.edges(data=True)) == list(W.edges(data=True))
    assert all(list(T.adj[v]) == list(W.adj[v]) for v in W)               # neighbours in NetworkX's order
    assert all(T[u][v] is T[v][u] and T[u][v] is not G[u][v] for u, v in T.edges())   # one copy per edge
    assert all(T.nodes[v] is not G.nodes[v] for v in T)
    class Sub(nx.Graph):   # a subclass: built through its own methods
        pass
    S = Sub(G)
    assert type(nx.minimum_spanning_tree(S, weight=weight, **GF)) is Sub


def test_minimum_spanning_forest_passes_the_scipy_verifier():
    G = random_graph(300, 1200, 5)
    got = list(nx.minimum_spanning_edges(G, **GF))
    index = {v: i for i, v in enumerate(G)}
    src, dst = zip(*((index[u], index[v]) for u, v in G.edges()))
    w = np.array([d["weight"] for *_, d in G.edges(data=True)], np.float32)
    g = Graph.from_edges(np.array(src), np.array(dst), w, n=len(G), directed=False)
    verify_msf(g, np.array([index[u] for u, _, _ in got]), np.array([index[v] for _, v, _ in got]),
               np.array([d["weight"] for *_, d in got], np.float32))


def test_minimum_spanning_edges_declines_what_it_does_not_do():
    G = random_graph(10, 20, 1)
    assert can_run("minimum_spanning_edges", (G,), {"algorithm": "prim"}) is not True
    assert can_run("minimum_spanning_edges", (nx.MultiGraph(G),), {}) is not True
    assert can_run("minimum_spanning_tree", (nx.DiGraph(G),), {}) is not True
    G.add_edge(0, 1, weight=float("nan"))
    with pytest.raises(NotImplementedError):
        list(nx.minimum_spanning_edges(G, **GF))
    G.add_edge(0, 1, weight=0.1)   # not exact in float32
    with pytest.raises(NotImplementedError):
        list(nx.minimum_spanning_edges(G, **GF))
