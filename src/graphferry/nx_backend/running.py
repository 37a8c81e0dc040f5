"""What the area modules share: the backend's settings, running a registered algorithm, node lookups, BFS layers.

Example:
    >>> import networkx as nx
    >>> from graphferry.nx_backend.convert import converted
    >>> from graphferry.nx_backend.running import bfs_levels
    >>> import numpy as np
    >>> bfs_levels(converted(nx.path_graph(4)).csr, np.array([1])).tolist()
    [1, 0, 1, 2]
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
import math
from contextlib import contextmanager
from functools import lru_cache
from typing import Any, Callable, Iterator

import networkx as nx
import numpy as np

from ..algorithms import registry
from ..graph import Graph
from ._paths import bfs_order
from .graph import NxGraph
from .info import DEFAULT_CONFIG

__all__ = ["config", "run", "vertex", "nbunch", "bfs_levels", "bfs_layers", "SERIAL_ARCS"]

log = logging.getLogger(__name__)

#: graphs with fewer arcs run the CPU backend's OpenMP loops on one thread (see :func:`run`)
SERIAL_ARCS = 1 << 16


def config():
    """``nx.config.backends.graphferry`` (the defaults when NetworkX did not load the backend's info)."""
    try:
        return nx.config.backends.graphferry
    except AttributeError:  # backend_info not loaded (e.g. networkx imported oddly)
        return nx.utils.Config(**DEFAULT_CONFIG)


def run(name: str, graph: Graph, **kwargs):
    """Run registered algorithm ``name`` with the backend's configured run options.

    A graph of fewer than :data:`SERIAL_ARCS` arcs runs its OpenMP loops on one
    thread: each parallel region ends in a barrier that waits for every thread,
    and on a busy machine a thread that lost its core holds the barrier for a
    scheduler slice (milliseconds), while the work itself takes microseconds.
    That was most of the fixed cost of a call on a tiny graph (triangles on a
    10-node path: 100 ms of barriers in ten passes over ten vertices).
    """
    cfg = config()
    with _openmp_threads(1 if graph.m < SERIAL_ARCS else None):
        return registry.get(name).run(graph, backend=cfg.backend, engine=cfg.engine, **kwargs)


@lru_cache(maxsize=1)
def _libgomp():
    """The OpenMP runtime the CPU backend's libraries use (g++ -fopenmp: libgomp), None when absent."""
    try:
        lib = ctypes.CDLL(ctypes.util.find_library("gomp") or "libgomp.so.1")
        lib.omp_get_max_threads.restype = ctypes.c_int
        lib.omp_set_num_threads.argtypes = [ctypes.c_int]
        return lib
    except (OSError, AttributeError) as exc:
        log.debug("no OpenMP runtime to set threads with: %s", exc)
        return None


@contextmanager
def _openmp_threads(threads: int | None):
    """OpenMP's default team size for regions started from this thread, ``threads`` meanwhile (None: as is).

    ``omp_set_num_threads`` sets the calling thread's own setting, so other
    threads' parallel regions keep theirs.
    """
    lib = _libgomp() if threads is not None else None
    if lib is None:
        yield
        return
    before = lib.omp_get_max_threads()
    lib.omp_set_num_threads(threads)
    try:
        yield
    finally:
        lib.omp_set_num_threads(before)


def vertex(G: NxGraph, node, error: Callable[[Any], Exception]) -> int:
    """The vertex id of ``node``; ``error(node)`` raised when it is not in ``G``."""
    try:
        return G.id_of(node)
    except (KeyError, TypeError):
        raise error(node) from None


def nbunch(G: NxGraph, nodes) -> list:
    """NetworkX's ``G.nbunch_iter``: the nodes of ``nodes`` that are in ``G``, same errors."""
    if nodes in G:
        return [nodes]
    try:
        return [v for v in nodes if v in G.index]
    except TypeError as err:
        message = err.args[0] if err.args else ""
        if "object is not iterable" in message:
            raise nx.NetworkXError(f"Node {nodes} is not in the graph.") from None
        if "iter" in message:
            raise nx.NetworkXError("nbunch is not a node or a sequence of nodes.") from None
        if "hashable" in message:
            bad = next(v for v in nodes if not _hashable(v))
            raise nx.NetworkXError(f"Node {bad} in sequence nbunch is not a valid node.") from None
        raise


def _hashable(v) -> bool:
    try:
        hash(v)
    except TypeError:
        return False
    return True


def bfs_levels(csr: Graph, sources: np.ndarray) -> np.ndarray:
    """Hops from the nearest of ``sources`` (-1: unreachable), by graphferry's BFS.

    Several sources: BFS from a virtual vertex ``n`` with an arc to each source.
    """
    if len(sources) == 1:
        return run("bfs", csr, source=int(sources[0])).levels
    starts = np.unique(sources)
    offsets = np.concatenate([csr.offsets, [csr.m + len(starts)]])
    indices = np.concatenate([csr.indices, starts.astype(csr.indices.dtype)])
    with_super = Graph(offsets, indices, None, directed=True, name=f"{csr.name}+sources")
    levels = run("bfs", with_super, source=csr.n).levels[:-1]
    return np.where(levels > 0, levels - 1, -1)


def bfs_layers(csr: Graph, first: np.ndarray, levels: np.ndarray | None, depth_limit: float = math.inf
               ) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """(layer, parents) per BFS layer, in exactly the order NetworkX's BFS discovers vertices.

    NetworkX scans each layer's vertices in order and each one's neighbours in
    adjacency order; a vertex joins the next layer, with that parent, at its
    first sighting. Given the levels, that is: the next layer is the first
    occurrence of each level-(d + 1) vertex among the layer's rows, read in order.
    ``levels`` None: a bounded search, which marks what it has seen instead and
    touches only the rows it reaches (for a small ``depth_limit``).
    """
    if levels is not None:
        compiled = bfs_order(csr, np.asarray(first, np.int64), levels, depth_limit)
        if compiled is not None:
            yield from compiled
            return
    layer = first
    parents = np.full(len(first), -1, np.int64)
    seen = None
    if levels is None:
        seen = np.zeros(csr.n, bool)
        seen[first] = True
    depth = 0
    while len(layer):
        yield layer, parents
        if depth >= depth_limit:
            return
        starts, ends = csr.offsets[layer], csr.offsets[layer + 1]
        lengths = ends - starts
        total = int(lengths.sum())
        if total == 0:
            return
        # positions of every arc of the layer's rows, rows in layer order
        pos = np.arange(total) + np.repeat(starts - np.cumsum(lengths) + lengths, lengths)
        children = csr.indices[pos]
        keep = levels[children] == depth + 1 if seen is None else ~seen[children]
        children = children[keep]
        owners = np.repeat(layer, lengths)[keep]
        _, firsts = np.unique(children, return_index=True)
        firsts.sort()
        layer, parents = children[firsts].astype(np.int64), owners[firsts]
        if seen is not None:
            seen[layer] = True
        depth += 1
