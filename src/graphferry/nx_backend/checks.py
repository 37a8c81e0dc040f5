"""Argument checks that several area modules share (``can_run`` and ``can_run_converted`` of a registration).

Each takes the bound arguments (a dict by parameter name, defaults applied)
and returns True or the reason graphferry declines.

Example:
    >>> import networkx as nx
    >>> from graphferry.nx_backend.checks import cutoff_number, weights_float32_exact
    >>> cutoff_number({"cutoff": "3"})
    'cutoff must be a number'
    >>> G = nx.path_graph(3)
    >>> G.add_edge(0, 1, weight=0.1)
    >>> weights_float32_exact({"G": G, "weight": "weight"})
    'edge weights must be non-negative numbers that float32 holds exactly'
"""

from __future__ import annotations

from numbers import Real

import numpy as np

from .convert import edge_weights

__all__ = ["always", "cutoff_number", "weight_name", "weights_float32_exact", "weights_positive",
           "simple_undirected", "no_multigraph_with_nodes"]


def always(a: dict) -> bool:
    return True


def cutoff_number(a: dict) -> bool | str:
    if a["cutoff"] is not None and not isinstance(a["cutoff"], Real):
        return "cutoff must be a number"
    return True


def weight_name(a: dict) -> bool | str:
    """``weight`` is None or an attribute name (not a function)."""
    if a["weight"] is not None and not isinstance(a["weight"], str):
        return "weight functions are not supported"
    return True


def weights_float32_exact(a: dict) -> bool | str:
    """Edge weights non-negative, finite and exact in float32 (graphferry's SSSP sums them in float64)."""
    weight = a["weight"]
    if weight is None:
        return True
    w = edge_weights(a["G"], weight)
    if w is None:
        return f"the graph was converted without edge attribute {weight!r}"
    if not w.float32_exact:
        return "edge weights must be non-negative numbers that float32 holds exactly"
    return True


def weights_positive(a: dict) -> bool | str:
    """As :func:`weights_float32_exact`, and every weight above zero."""
    if (ok := weights_float32_exact(a)) is not True or a["weight"] is None:
        return ok
    w = edge_weights(a["G"], a["weight"])
    if (w.values is None and not w.default > 0) or (w.values is not None and not np.all(w.values > 0)):
        return "edge weights must be positive"
    return True


def simple_undirected(a: dict) -> bool | str:
    G = a["G"]
    if G.is_directed() or G.is_multigraph():
        return "only simple undirected graphs"
    return True


def no_multigraph_with_nodes(a: dict) -> bool | str:
    if a["nodes"] is not None and a["G"].is_multigraph():
        return "NetworkX rejects multigraphs here; let it say so"
    return True
