"""What HyPar and the BSP baseline ask of an application (:class:`Application`,
:class:`BspApplication`), and helpers the applications share."""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import host_ops
from ...graph import Graph
from ...transforms import induced_subgraph, simple_graph
from ..workers import HyparExecutor


class IterationTrend:
    """HyPar 4.2: independent computation stops once an iteration takes no less time than the one
    before it ("when the execution time does not show further decrease"), after ``least`` iterations."""

    def __init__(self, least: int = 2):
        self.least = least
        self.seconds: list[float] = []

    def __call__(self, seconds: float) -> bool:
        self.seconds.append(seconds)
        return len(self.seconds) >= self.least and seconds >= self.seconds[-2]


class Application:
    """What HyPar asks of an application (defaults: induced parts, no reduction)."""

    name = "?"
    recursive = True     # may the reduced graph be divided again (False: post-process it at once)
    post_process_always = False  # post-process even when the merge left no reduced graph (it gets None)
    stop_on_trend = True  # iterative parts stop when iteration times stop falling (set by hypar())
    # a part's time grows with its share of the work (no stop rule, no part-dependent rounds), so a
    # split run's times per executor say how to share the next graph of its size (PlannerCalibration.observe)
    divisible = False

    def stop_when(self, whole: Graph | None):
        """The stop rule for one part's run (none for the sampled runs, which time whole runs)."""
        return IterationTrend() if self.stop_on_trend and whole is not None else None

    def prepare(self, graph: Graph) -> Graph:
        """The graph HyPar divides (here: the undirected simple view)."""
        return simple_graph(graph, undirected=True)

    def start(self, g: Graph) -> dict:
        return {}

    def part(self, g: Graph, block: np.ndarray, executor: HyparExecutor | None = None) -> Graph:
        """The part ``executor`` computes on: by default the block's induced subgraph (``g`` itself
        when the block is every vertex: one executor)."""
        return g if len(block) == g.n else induced_subgraph(g, block)

    def cut_weights(self, g: Graph) -> np.ndarray | None:
        """Each vertex's share of the work, by which blocks are cut (None: by its edges)."""
        return None

    def block_order(self, g: Graph) -> np.ndarray | None:
        """The order of ``g``'s vertices along which blocks are cut, each block a run of it (None:
        by id, each block a range of ids)."""
        return None

    def local(self, part: Graph, block: np.ndarray, executor: HyparExecutor, whole: Graph | None = None) -> Any:
        raise NotImplementedError

    def merge(self, g: Graph, blocks: list[np.ndarray], results: list, state: dict) -> Graph | None:
        raise NotImplementedError

    def post_process(self, reduced: Graph, state: dict, executor: HyparExecutor) -> None:
        raise NotImplementedError

    def use(self, executors: list[HyparExecutor]) -> None:
        """Told the call's executors before it starts (default: nothing to arrange)."""

    def work(self, g: Graph) -> float:
        """What the application's cost grows with on ``g``, the planner's measure of size (its
        rates are seconds per unit): ``n + m`` unless the application knows better."""
        return float(g.n + g.m)

    def alone(self, g: Graph, state: dict, executor: HyparExecutor) -> None:
        """The whole graph on one executor, the application's algorithm run to its end (CPU-only,
        GPU-only, and the planner's fallback): by default the post-processing of the whole graph."""
        self.post_process(g, state, executor)

    def finish(self, graph: Graph, g: Graph, state: dict) -> tuple[dict, dict]:
        raise NotImplementedError


def _smallest_member(labels: np.ndarray) -> tuple[np.ndarray, int]:
    """Each vertex's label replaced by the smallest vertex id carrying the same label, and how many
    distinct labels there are (the vertices labelled by themselves).

    Example:
        >>> labels, groups = _smallest_member(np.array([7, 7, 3, 3, 7]))
        >>> labels.tolist(), groups
        ([0, 0, 2, 2, 0], 2)
        >>> _smallest_member(np.array([0, 0, 2, 2, 0]))[0].tolist()   # already so (wcc's labels): kept
        [0, 0, 2, 2, 0]
    """
    n = len(labels)
    if n and labels.dtype == np.int64:
        groups = host_ops.smallest_members(labels)
        if groups is not None:
            return labels, groups                               # the smallest member already (one pass)
    if n and labels.min() >= 0 and labels.max() < n:          # labels are ids already: no sort needed
        group = labels
    else:
        _, group = np.unique(labels, return_inverse=True)
    smallest = np.full(group.max() + 1 if n else 0, n, np.int64)
    np.minimum.at(smallest, group, np.arange(n))
    smallest = smallest[group]
    return smallest, host_ops.smallest_members(smallest)


def _label_holds(g: Graph, labels: np.ndarray, check: np.ndarray, own: np.ndarray | None = None) -> np.ndarray:
    """Per vertex: False where ``check`` is set and the vertex's label is not among the most
    frequent labels of its neighbours in ``g``; True elsewhere. ``own``: per vertex, how many
    neighbours share its label (:func:`host_ops.label_arcs`), when already counted.

    Example (vertex 2 is labelled with vertex 3's community but sees two 0s):
        >>> g = Graph.from_edges([0, 0, 1, 1, 2, 2, 2, 3], [1, 2, 0, 2, 0, 1, 3, 2], n=4)
        >>> _label_holds(g, np.array([0, 0, 3, 3]), np.ones(4, bool)).tolist()
        [True, True, False, True]
    """
    holds = np.ones(g.n, bool)
    if own is None:
        own, _ = host_ops.label_arcs(g.offsets, g.indices, labels)
    # a label held by at least half the neighbours is among the most frequent: only the others
    # need their neighbours' labels counted
    check = check & (2 * own < g.out_degree)
    rows = np.flatnonzero(check)
    if len(rows) == 0:
        return holds
    holds[rows] = own[rows] >= host_ops.top_label_count(g.offsets, g.indices, labels, rows)
    return holds


def _arc_positions(g: Graph, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """CSR positions of arcs ``(a[i], b[i])`` of ``g``, whose rows are sorted (simple graphs from
    :mod:`graphferry.transforms` are): one search over the sorted arc keys ``row * n + column``."""
    return host_ops.find_arcs(g.offsets, g.indices, a, b)



def ONE_ROUND(seconds: float) -> bool:
    """A stop rule ending an algorithm after its first round: one BSP superstep."""
    return True


def ghost_part(g: Graph, block: np.ndarray) -> Graph:
    """The block's edges and their other ends (ghost vertices, whose state the executor reads but does
    not own): the subgraph of the arcs with an end in ``block``, ids as in ``meta["parent_ids"]``."""
    src, dst = g.edges()
    inside = np.zeros(g.n, bool)
    inside[block] = True
    keep = inside[src] | inside[dst]
    near = inside.copy()
    near[dst[inside[src]]] = True
    return induced_subgraph(Graph.from_edges(src[keep], dst[keep], n=g.n, directed=False), np.flatnonzero(near))


class BspApplication:
    """What the BSP driver asks of an application, beside a HyPar :class:`Application` (which gives
    ``prepare``, ``start``, ``finish`` and the ``local`` run that :func:`part_graph` samples with).

    A superstep is one round of the algorithm's outer loop (HyPar 7.3.1): every executor computes
    its block's new state from the whole graph's state as it was at the last exchange (ghost
    vertices included), then :meth:`exchange` writes the blocks' results into that state."""

    max_supersteps = 10_000

    def bsp_part(self, g: Graph, block: np.ndarray, executor: HyparExecutor | None = None) -> Any:
        """What ``executor`` computes on in every superstep (built once): by default the ghost part."""
        return ghost_part(g, block)

    def superstep(self, g: Graph, part: Any, block: np.ndarray, executor: HyparExecutor, state: dict) -> Any:
        raise NotImplementedError

    def exchange(self, g: Graph, blocks: list[np.ndarray], results: list, state: dict) -> bool:
        """Write the blocks' results into ``state``; True while another superstep is needed."""
        raise NotImplementedError


def _block_positions(part: Graph, block: np.ndarray) -> np.ndarray:
    return np.searchsorted(part.meta["parent_ids"], block)
