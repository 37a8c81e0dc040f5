"""The NetworkX backend interface (the ``networkx.backends`` entry point ``graphferry``): it only collects.

How to add a NetworkX function
------------------------------
1. Write it in the area module NetworkX files it under (:data:`.registration.AREAS`:
   ``link_analysis``, ``traversal``, ``shortest_paths``, ``components``, ``cluster``,
   ``centrality``, ...; a new area is a new module added to that tuple), with
   NetworkX's exact signature, ``G`` being a converted :class:`~.graph.NxGraph`.
   Run graphferry's algorithm with :func:`.running.run` (the registry's algorithm
   on the configured backend and engine) and return what NetworkX returns: the
   same type, keyed by the same nodes, in NetworkX's order.
2. Decorate it with :func:`.registration.networkx_algorithm`: ``note=`` (what
   NetworkX's docs say about graphferry), ``can_run=`` (cheap argument checks,
   returning True or the reason to decline: anything graphferry cannot answer
   exactly), ``can_run_converted=`` (checks that need the converted graph, e.g.
   edge weights) and ``should_run=`` (an O(1) policy from :mod:`.policy`:
   ``large_graph``, or ``bounded("cutoff")`` for bounded searches).
3. Run ``python -m graphferry.nx_backend.registration`` to rewrite the import-free
   list NetworkX reads at import (``_graphferry_nx/functions.py``), add the
   function's NetworkX test file to ``bench/networkx_tests.py``, a test against
   NetworkX in ``tests/nx/test_networkx_backend.py``, and its line to README's
   NetworkX section.

How a call runs
---------------
NetworkX calls :func:`can_run` with a function's name and arguments; when it
says yes (and, under automatic dispatch, :func:`should_run` too), NetworkX
converts the graph with :func:`convert_from_nx` (caching the result on the
graph) and calls the function of the same name here. Arguments graphferry
cannot honour exactly make :func:`can_run` answer False (with the reason), or,
for checks that need the converted graph, make the function raise
``NotImplementedError``; NetworkX then runs its own implementation (automatic
dispatch, ``NETWORKX_FALLBACK_TO_NX``) or raises ``NotImplementedError`` (an
explicit ``backend="graphferry"``).

Example:
    >>> import networkx as nx
    >>> from graphferry.nx_backend import register
    >>> _ = register()  # only needed when graphferry runs from a source checkout
    >>> G = nx.path_graph(4)
    >>> ranks = nx.pagerank(G, backend="graphferry")
    >>> {v: round(r, 4) for v, r in ranks.items()}
    {0: 0.1754, 1: 0.3246, 2: 0.3246, 3: 0.1754}
    >>> list(nx.bfs_edges(nx.path_graph(4), 1, backend="graphferry"))  # a fresh graph: converted anew
    [(1, 0), (1, 2), (2, 3)]
    >>> nx.pagerank(nx.path_graph(4), personalization={0: 1}, backend="graphferry")
    Traceback (most recent call last):
    ...
    NotImplementedError: 'pagerank' is not implemented by 'graphferry' backend for the given arguments. ...
"""

from __future__ import annotations

import importlib

from .convert import cached_size, convert_from_nx, convert_to_nx
from .graph import NxGraph
from .policy import EXACT_NODES, estimated_arcs, large_graph
from .registration import NxFunction, registered
from .running import config

__all__ = ["can_run", "should_run", "convert_from_nx", "convert_to_nx", "FUNCTIONS"]

#: every function the backend provides (the area modules imported), by NetworkX name
FUNCTIONS = registered()
for _name, _spec in FUNCTIONS.items():
    globals()[_name] = getattr(importlib.import_module(_spec.module), _spec.function.__name__)
del _name, _spec

#: below this many arcs a conversion costs well under a millisecond: can_run converts to check weights
TINY_ARCS = 4096


def _conversion_at_hand(G) -> bool:
    """Whether ``can_run`` may look at the converted graph without paying for a conversion nobody needs.

    A backend graph or a cached conversion: free. A tiny graph: converting
    costs less than a millisecond. A graph large enough for :func:`should_run`:
    it is about to be converted anyway (the conversion is cached and reused).
    Between those, the checks wait for the call (the function raises
    ``NotImplementedError``, and NetworkX runs its own implementation).
    """
    if G is None or isinstance(G, NxGraph) or cached_size(G) is not None:
        return True
    if len(G) <= EXACT_NODES and estimated_arcs(G) <= TINY_ARCS:
        return True
    return large_graph({"G": G}) is True


def can_run(name: str, args: tuple, kwargs: dict) -> bool | str:
    """True when graphferry gives NetworkX's exact answer for these arguments, else the reason why not."""
    spec: NxFunction | None = FUNCTIONS.get(name)
    if spec is None:
        return f"graphferry does not provide {name}"
    a = spec.bind(args, kwargs)
    if isinstance(a, str):
        return a
    return spec.check(a, converted=spec.can_run_converted is not None and _conversion_at_hand(a.get("G")))


def should_run(name: str, args: tuple, kwargs: dict) -> bool | str:
    """Worth converting? The function's O(1) policy (:mod:`.policy`), by default at least ``min_edges`` edges."""
    spec = FUNCTIONS.get(name)
    if spec is None:
        return f"graphferry does not provide {name}"
    a = spec.bind(args, kwargs)
    if isinstance(a, str):
        return a
    return (spec.should_run or large_graph)(a)


config = config
