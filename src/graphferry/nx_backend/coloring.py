"""Colouring: ``greedy_color`` by graphferry's Jones-Plassmann colouring in NetworkX's order.

NetworkX's ``greedy_color`` visits the nodes in an order its strategy gives and
gives each the smallest colour no earlier neighbour has. Jones-Plassmann with
that order as its priorities colours a vertex once every earlier neighbour is
coloured and before any later one is, so it gives the very same colours, in
parallel rounds (``algorithms/coloring.py``, ``priority``). The orders computed
here are NetworkX's own: ``largest_first`` is a stable sort by degree, highest
first (a self-loop counting twice, as ``G.degree`` counts it);
``random_sequential`` shuffles the node list with the same ``random`` module
state NetworkX's strategy would use. The dict lists the nodes in that order, as
NetworkX's does.

Example:
    >>> import networkx as nx
    >>> from graphferry.nx_backend import register
    >>> _ = register()
    >>> G = nx.cycle_graph(5)
    >>> G.add_edge(0, 2)
    >>> nx.greedy_color(G, backend="graphferry")
    {0: 0, 2: 1, 1: 2, 3: 0, 4: 1}
"""

from __future__ import annotations

import random

import networkx as nx
import numpy as np

from ..graph import stable_order
from .policy import large_graph
from .registration import networkx_algorithm
from .running import run

_greedy = nx.algorithms.coloring.greedy_coloring
#: the strategies whose order is computed here (by name, or NetworkX's function itself)
ORDERS = {"largest_first": _greedy.strategy_largest_first, "random_sequential": _greedy.strategy_random_sequential}


def _strategy_name(strategy) -> str | None:
    if isinstance(strategy, str):
        return strategy if strategy in ORDERS else None
    return next((name for name, fn in ORDERS.items() if strategy is fn), None)


def _check_greedy(a: dict) -> bool | str:
    G = a["G"]
    if G.is_directed() or G.is_multigraph():
        return "only simple undirected graphs (NetworkX colours a directed graph along out-edges only)"
    if a["interchange"]:
        return "interchange=True (NetworkX's interchange colouring) is left to NetworkX"
    if _strategy_name(a["strategy"]) is None:
        return "only the largest_first and random_sequential strategies"
    return True


def visiting_order(G, strategy: str) -> np.ndarray:
    """The vertex ids in the order NetworkX's ``strategy`` visits the nodes."""
    csr = G.csr
    if strategy == "random_sequential":
        order = list(range(csr.n))
        random.shuffle(order)   # NetworkX: seed.shuffle(list(G)) with seed the random module's instance
        return np.asarray(order, dtype=np.int64)
    degree = csr.out_degree + G.self_loops   # a self-loop: twice
    # sorted(G, key=G.degree, reverse=True) keeps ties in G order: a stable sort by -degree
    top = int(degree.max(initial=0))
    return stable_order(top - degree, top + 1)


@networkx_algorithm(
    note=("graphferry's Jones-Plassmann colouring with NetworkX's visiting order as its priorities, which "
          "gives the sequential greedy colouring in that order: the same colours, the same dict order. "
          "Strategies largest_first and random_sequential; interchange, other strategies, directed graphs and "
          "multigraphs are left to NetworkX."),
    can_run=_check_greedy, should_run=large_graph)
def greedy_color(G, strategy="largest_first", interchange=False):
    """Node -> colour (ints from 0), the nodes in the order NetworkX's strategy colours them."""
    if len(G) == 0:
        return {}
    order = visiting_order(G, _strategy_name(strategy))
    rank = np.empty(len(order), np.int64)
    rank[order] = np.arange(len(order))
    colors = run("coloring", G.csr, method="jones_plassmann", priority=rank).colors
    return dict(zip(G.labels(order), colors[order].tolist()))
