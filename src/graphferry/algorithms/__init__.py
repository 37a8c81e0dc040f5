"""The algorithms, one file each. Every function takes a Graph plus run options
(``backend=``, ``engine=``, ``budget=``, ``partition_bytes=``, ``direction=``)
and returns a :class:`~graphferry.algorithms._common.Result`.

Example:
    >>> import numpy as np
    >>> import graphferry.algorithms as alg
    >>> from graphferry import Graph
    >>> g = Graph.from_edges(np.array([0, 1]), np.array([1, 2]), n=3)
    >>> alg.bfs(g, 0, backend="cpu").levels.tolist()
    [0, 1, 2]
"""

from __future__ import annotations

import importlib
import sys
import types

from . import registry

# public name -> module that defines it (imported on first use, keeps `import graphferry` light)
_WHERE = {
    "bfs": "bfs",
    "verify_bfs": "bfs",
    "sssp": "sssp",
    "verify_sssp": "sssp",
    "pagerank": "pagerank",
    "pagerank_ldbc": "pagerank",
    "verify_pagerank": "pagerank",
    "wcc": "wcc",
    "verify_wcc": "wcc",
    "cdlp": "cdlp",
    "verify_cdlp": "cdlp",
    "lcc": "lcc",
    "verify_lcc": "lcc",
    "triangle_count": "triangles",
    "verify_triangles": "triangles",
    "betweenness": "betweenness",
    "verify_betweenness": "betweenness",
    "coloring": "coloring",
    "verify_coloring": "coloring",
    "mst": "mst",
    "minimum_spanning_forest": "mst",
    "verify_msf": "mst",
    "communities": "communities",
    "verify_communities": "communities",
    "core_number": "core_number",
    "verify_core_number": "core_number",
    "eigenvector_centrality": "eigenvector",
    "verify_eigenvector_centrality": "eigenvector",
    "katz_centrality": "katz",
    "verify_katz_centrality": "katz",
    "hits": "hits",
    "verify_hits": "hits",
    "jaccard_coefficient": "jaccard",
    "verify_jaccard": "jaccard",
    "edge_betweenness": "edge_betweenness",
    "verify_edge_betweenness": "edge_betweenness",
    "k_truss": "k_truss",
    "verify_k_truss": "k_truss",
    "label_propagation": "label_propagation",
    "verify_label_propagation": "label_propagation",
    "louvain": "louvain",
    "verify_louvain": "louvain",
    "collaborative_filtering": "cf",
    "ratings_graph": "cf",
    "verify_cf": "cf",
}

# public names whose function is called otherwise in its module
_FUNCTION = {"mst": "minimum_spanning_forest"}

# the names the CLI and the LDBC runner accept: the registry's (it imports no algorithm)
ALGORITHMS = registry.names()

__all__ = list(_WHERE) + ["ALGORITHMS", "get"]


def get(name: str):
    """The algorithm function called ``name`` (a clear error for unknown names)."""
    if name not in _WHERE:
        raise ValueError(f"unknown algorithm {name!r}; choose one of {', '.join(ALGORITHMS)}")
    module = importlib.import_module(f"{__name__}.{_WHERE[name]}")
    return getattr(module, _FUNCTION.get(name, name))


class _Package(types.ModuleType):
    """This package, whose attribute ``bfs`` is the function even once the module ``bfs`` is imported.

    Importing a submodule binds it as a package attribute of the same name
    (bfs.py -> graphferry.algorithms.bfs), which would shadow the function; the
    binding is turned into the function's. So every algorithm module is imported
    on first use (a one-shot ``graphferry run bfs`` imports bfs.py alone).
    """

    def __setattr__(self, name: str, value) -> None:
        if name in _WHERE and isinstance(value, types.ModuleType) and value.__name__ == f"{__name__}.{name}":
            value = getattr(value, _FUNCTION.get(name, name))
        super().__setattr__(name, value)


def __getattr__(name: str):
    if name in _WHERE:
        try:
            fn = get(name)
        except ModuleNotFoundError:  # an algorithm whose file has not landed yet
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
        globals()[name] = fn
        return fn
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


sys.modules[__name__].__class__ = _Package
