"""Core numbers against networkx.core_number: hypothesis graphs, every engine, the datasets, broken answers."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from graphferry import Graph
from graphferry.algorithms.core_number import core_number, verify_core_number

from conftest import DATASETS, ENGINES, read_dataset, tiny_budget_options
from edge_lists import edge_lists


def networkx_cores(n, src, dst, directed) -> np.ndarray:
    """NetworkX's core numbers of the same graph: a (Di)Graph collapses repeats; self-loops dropped
    (NetworkX refuses them)."""
    g = nx.DiGraph() if directed else nx.Graph()
    g.add_nodes_from(range(n))
    g.add_edges_from((a, b) for a, b in zip(src.tolist(), dst.tolist()) if a != b)
    core = nx.core_number(g)
    return np.array([core[v] for v in range(n)], dtype=np.int64)


@settings(max_examples=80, deadline=None)
@given(e=edge_lists(max_n=40, max_m=160), direction=st.sampled_from(["auto", "push", "pull"]))
def test_matches_networkx(e, direction):
    n, src, dst, directed = e
    r = core_number(Graph.from_edges(src, dst, n=n, directed=directed), backend="cpu", direction=direction)
    want = networkx_cores(*e)
    assert r.core.tolist() == want.tolist()
    assert r.max_core == (int(want.max()) if n else 0)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("directed", [False, True])
def test_every_engine_with_a_tiny_budget(engine, directed):
    rng = np.random.default_rng(3)
    n = 120
    src, dst = rng.integers(0, n, 700), rng.integers(0, n, 700)
    g = Graph.from_edges(src, dst, n=n, directed=directed)
    want = networkx_cores(n, src, dst, directed)
    for direction in ("push", "pull"):
        r = core_number(g, direction=direction, **tiny_budget_options(engine))
        assert r.core.tolist() == want.tolist(), (engine, direction)


@pytest.mark.parametrize("name", ["karate", "les_miserables", "roget", "minnesota_road", "metis_4elt"])
def test_datasets(name):
    path = DATASETS / f"{name}.el"
    if not path.exists():
        pytest.skip(f"{path} not found")
    n, src, dst, directed = read_dataset(path)
    r = core_number(Graph.from_edges(src, dst, n=n, directed=directed), backend="cpu")
    assert r.core.tolist() == networkx_cores(n, src, dst, directed).tolist()


def test_a_hand_checked_graph():
    # two triangles joined by a path through 3 (in the 2-core: both its neighbours are), a 4-clique off 6
    edges = [(0, 1), (1, 2), (2, 0), (2, 3), (3, 4), (4, 5), (5, 6), (6, 4), (6, 7), (7, 8), (7, 9), (7, 10),
             (8, 9), (8, 10), (9, 10)]
    src, dst = np.array(edges).T
    g = Graph.from_edges(src, dst, n=11, directed=False)
    r = core_number(g, backend="cpu")
    assert r.core.tolist() == [2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3]
    assert r.max_core == 3


def test_verifier_rejects_a_wrong_answer():
    rng = np.random.default_rng(5)
    g = Graph.from_edges(rng.integers(0, 50, 300), rng.integers(0, 50, 300), n=50, directed=False)
    core = core_number(g, backend="cpu").core.copy()
    verify_core_number(g, core)
    core[np.argmax(core)] += 1
    with pytest.raises(AssertionError, match="core number"):
        verify_core_number(g, core)
    with pytest.raises(AssertionError, match="one core number per vertex"):
        verify_core_number(g, core[:-1])
