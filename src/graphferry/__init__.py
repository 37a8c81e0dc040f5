"""graphferry: graph analytics on NVIDIA GPUs for graphs whose edges do not fit in GPU memory.

``import graphferry`` needs neither a GPU nor CuPy; the CUDA backend is loaded
only when asked for (or when ``backend="auto"`` finds a GPU). Submodules
(``graphferry.algorithms``, ``graphferry.io``, ``graphferry.store``,
``graphferry.generators``) are imported on first use.

Example:
    >>> import graphferry as gf
    >>> g = gf.Graph.from_edges([0, 1], [1, 2], n=3, directed=False)
    >>> gf.algorithms.bfs(g, 0, backend="cpu").levels.tolist()
    [0, 1, 2]
"""

import importlib
import logging

from .version import __version__
__all__ = ["Graph", "LoadedGraph", "load", "from_file", "from_scipy", "from_networkx", "from_pandas", "from_arrow", "__version__", "algorithms", "generators", "io", "store", "runtime"]

_SUBMODULES = {"algorithms", "generators", "io", "store", "runtime", "engines", "backends", "partition"}

#: the graph constructors offered here, each the io function it names (graph.py imports no io:
#: the readers build Graphs, so Graph's own methods calling them would close a cycle)
_CONSTRUCTORS = {"from_file": "read_graph", "from_scipy": "from_scipy", "from_networkx": "from_networkx",
                 "from_pandas": "from_pandas", "from_arrow": "from_arrow"}

logging.getLogger(__name__).addHandler(logging.NullHandler())


def __getattr__(name: str):
    # Even Graph is imported on first use: the command line's entry point imports this
    # package before it can install its signal handlers, so this import stays tiny.
    if name == "Graph":
        from .graph import Graph

        return Graph
    if name in _CONSTRUCTORS:  # graphs from files and in-memory objects: io's, above Graph
        from . import io

        return getattr(io, _CONSTRUCTORS[name])
    if name in ("load", "LoadedGraph"):
        from .runtime import loaded

        return getattr(loaded, name)
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module 'graphferry' has no attribute {name!r}")
