"""Core numbers (k-core decomposition) by bucketed peeling with frontiers.

The k-core of a graph is its largest subgraph in which every vertex has degree
at least ``k``; a vertex's core number is the largest ``k`` whose k-core holds
it (Seidman 1983; Batagelj and Zaversnik, "An O(m) algorithm for cores
decomposition of networks", 2003). Peeling computes it: remove every vertex of
degree at most ``k`` (its core number is ``k``), which lowers its neighbours'
degrees; repeat until no vertex of degree ``<= k`` is left, then raise ``k`` to
the smallest remaining degree.

Method (Ligra's / Julienne's ``KCore``, Dhulipala, Blelloch and Shun, SPAA 2017,
the bucket of the current ``k`` as a frontier): a vertex function ``peel``
takes the live vertices with ``degree <= k`` (``core[v] = k``); an edge map from
them decrements every live neighbour's degree (push: an atomic add; pull: each
live vertex counts its peeled in-neighbours); ``peel`` over the vertices the
map touched gives the next round's frontier. When a round peels nothing, ``k``
becomes the smallest degree among the live vertices (a reduction where the
state lives) and peeling resumes from them.

Which degree: an undirected graph is read as its simple view (self-loops
dropped, repeated edges once, as a NetworkX ``Graph`` holds it). A directed
graph follows ``networkx.core_number`` on a ``DiGraph``: a vertex's degree is
its in-degree plus its out-degree and its neighbours are its predecessors and
its successors (a pair of opposite arcs counts twice), self-loops dropped and
repeated arcs once.

Example:
    >>> import numpy as np
    >>> from graphferry import Graph
    >>> from graphferry.algorithms.core_number import core_number, verify_core_number
    >>> # a triangle 0-1-2 with a tail 2-3-4 and an isolated vertex 5
    >>> g = Graph.from_edges([0, 1, 2, 2, 3], [1, 2, 0, 3, 4], n=6, directed=False)
    >>> r = core_number(g, backend="cpu")
    >>> r.core.tolist(), r.max_core
    ([2, 2, 2, 1, 1, 0], 2)
    >>> verify_core_number(g, r.core)
"""

from __future__ import annotations

import numpy as np

from ..graph import Graph, offsets_from_degrees
from ..runtime import Program, RunOptions
from ..transforms import cached, on_handle, simple_graph
from ._common import Result, driver_hooks, runtime_for

PROGRAM = Program(
    "core_number",
    arrays={"deg": "int64", "core": "int64"},
    scalars={"k": "int64"},
    vertex_functions=("peel",),
    combine="sum",             # executors' degree decrements add up
    edge_writes=("deg",),      # the edge functions lower degrees only; peel writes core
    signals_changes=True,      # every decrement returns true
    source=r"""
// only live vertices (not peeled yet) lose degree; a pull stops at once for peeled ones
GF_FN bool cond(const State& S, vid_t d) { return S.core[d] < 0; }
// pull: one thread owns d and counts its in-neighbours peeled this round (the frontier)
GF_FN bool update(const State& S, vid_t s, vid_t d, float w) { S.deg[d] -= 1; return true; }
// push: the peeled vertices' out-edges race for d
GF_FN bool update_atomic(const State& S, vid_t s, vid_t d, float w) {
    if (gf_load(&S.core[d]) >= 0) return false;
    gf_atomic_add(&S.deg[d], (int64_t)-1);
    return true;
}
// the bucket of k: a live vertex of degree <= k has core number k and leaves the graph
GF_FN bool peel(const State& S, vid_t v) {
    if (S.core[v] < 0 && S.deg[v] <= S.k) { S.core[v] = S.k; return true; }
    return false;
}
""",
)


def peeling_view(graph: Graph, simple: bool = False) -> Graph:
    """The graph whose rows are the neighbours peeling walks (see the module docstring).

    Undirected: the simple view. Directed: successors and predecessors in one
    row (the simple directed view's arcs stored both ways, a pair of opposite
    arcs giving two entries), so one edge map lowers both ends' degrees. Cached.
    ``simple``: the caller knows ``graph`` has no self-loop and no repeated arc
    (a NetworkX ``Graph``'s conversion): its rows need no sort, and are the view as they are.
    """
    if not graph.directed:
        return graph if simple else simple_graph(graph, undirected=True)

    def build() -> Graph:
        base = graph if simple else simple_graph(graph, undirected=False)
        src, dst = base.edges()
        both_src, both_dst = np.concatenate([src, dst]), np.concatenate([dst, src])
        order = np.argsort(both_src, kind="stable")
        degree = np.bincount(both_src, minlength=graph.n).astype(np.int64)
        return Graph(offsets_from_degrees(degree), both_dst[order].astype(base.indices.dtype), None,
                     directed=True, name=f"{graph.name}-both-ways")
    return cached(graph, ("core_number.both_ways", simple), build)


def core_number(graph: Graph, *, options: RunOptions | None = None, **kwargs) -> Result:
    """Core number of every vertex (values ``core``, int64); scalars ``max_core`` and ``rounds``.

    ``rounds`` counts the edge maps (peeling rounds). See the module docstring
    for how directed graphs, self-loops and repeated edges are read. Driver hook
    (``_common.driver_hooks``): ``simple=True`` promises no self-loop and no
    repeated arc (see :func:`peeling_view`).
    """
    (simple,) = driver_hooks(kwargs, "simple")
    view = peeling_view(graph, bool(simple))
    n = graph.n
    rounds = 0
    with runtime_for(on_handle(graph, view), "core_number", options, kwargs) as rt:
        st = rt.start(PROGRAM, arrays={"deg": view.out_degree.astype(np.int64), "core": -1}, scalars={"k": 0})
        k = 0
        frontier = st.vertex_map("peel")          # degree 0: isolated vertices
        while True:
            while frontier:
                rounds += 1
                touched = st.edge_map(frontier)
                frontier = st.vertex_map("peel", touched) if touched else touched
            alive = st.select("core", -1, 0)
            if not alive:
                break
            # nothing of degree <= k is left: the next bucket is the smallest live degree
            k = max(k + 1, int(st.reduce("deg", "min", alive)))
            st.scalars["k"] = k
            frontier = st.vertex_map("peel", alive)
        core = st.result("core")
    return Result(graph, {"core": core}, rt.record, {"max_core": k if n else 0, "rounds": rounds})


# ---------------------------------------------------------------- verifier
def verify_core_number(graph: Graph, core: np.ndarray) -> None:
    """Raise AssertionError unless ``core`` is NetworkX's ``core_number`` (not the framework) of
    the same graph: the simple view as a ``Graph``, or the simple directed view as a ``DiGraph``.

    For test-sized graphs (NetworkX's peeling in Python).
    """
    import networkx as nx

    simple = simple_graph(graph, undirected=not graph.directed)
    ref = nx.DiGraph() if graph.directed else nx.Graph()
    ref.add_nodes_from(range(graph.n))
    src, dst = simple.edges()
    ref.add_edges_from(zip(src.tolist(), dst.tolist()))
    want = nx.core_number(ref)
    want = np.array([want[v] for v in range(graph.n)], dtype=np.int64)
    core = np.asarray(core)
    assert core.shape == want.shape, "one core number per vertex"
    bad = np.flatnonzero(core != want)
    assert len(bad) == 0, f"vertex {bad[0]}: core number {core[bad[0]]}, expected {want[bad[0]]}"
