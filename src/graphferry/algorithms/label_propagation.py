"""Semi-synchronous label propagation (Cordasco and Gargano), NetworkX's ``label_propagation_communities``.

Cordasco and Gargano, "Community detection via semi-synchronous label
propagation algorithms" (BASNA 2010): colour the graph properly, then update
the vertices one colour class at a time. A class is an independent set, so its
vertices update at once without reading each other (synchronous inside a
class, sequential across classes): the update cannot oscillate as fully
synchronous label propagation can, and it runs in parallel, which the
asynchronous form cannot. Each vertex starts with its own id as label. The
update is the paper's Prec-Max rule on the multiset of its neighbours' labels
(a self-loop counts the vertex's own label, as NetworkX's ``G[v]`` lists it):

* the labels of highest frequency ``H``; if there is one, take it;
* if there are several and the vertex's label is among them, keep it;
  otherwise take the largest of ``H``.

The run stops before a round in which every vertex with neighbours already
has a label in its ``H`` (NetworkX's ``_labeling_complete``). The colouring is
NetworkX's: the greedy colouring in largest-first order (degree, a self-loop
counting twice; ties in vertex order), by Jones-Plassmann with that order as
priorities (``coloring.py``), the classes taken in colour order. So the labels
are exactly NetworkX's.

Each class is one neighbourhood map over the vertices of that colour: a vertex
with at most ``LOCAL`` neighbours sorts their labels in a local array and reads
the runs; vertices with more (hubs) are done by the driver with numpy (one sort
of ``(hub, label)`` keys), as in ``cdlp.py``.

Example:
    >>> import numpy as np
    >>> from graphferry import Graph
    >>> from graphferry.algorithms.label_propagation import label_propagation, verify_label_propagation
    >>> g = Graph.from_edges(np.array([0, 0, 1, 3, 3, 4, 2]), np.array([1, 2, 2, 4, 5, 5, 3]), n=7,
    ...                      directed=False)                   # two triangles joined by an edge
    >>> r = label_propagation(g, backend="cpu")
    >>> r.labels.tolist(), r.rounds
    ([3, 3, 3, 5, 5, 5, 6], 1)
    >>> verify_label_propagation(g, r.labels)
"""

from __future__ import annotations

import numpy as np

from ..graph import Graph
from ..runtime import Program, RunOptions
from . import registry
from ._common import Result, runtime_for
from .coloring import coloring

LOCAL = 256  # most labels a vertex sorts in its device function; more: the driver's numpy path

PROGRAM = Program(
    "label_propagation",
    arrays={"label": "int64", "color": "int64"},
    scalars={"current": "int64", "apply": "int64"},
    neighbor_functions=("lpa_step",),
    neighbor_reads="row",  # its own row (and its neighbours' labels)
    neighbor_writes="own",  # label[v] only, and only v of the current colour, whose neighbours are not
    source=r"""
#define GF_LPA_LOCAL %d

// Prec-Max for v (Cordasco-Gargano): H = the most frequent labels among v's neighbours. Returns
// whether v's label is not in H (v would change). With S.apply, v of colour S.current takes the
// one label of H, or the largest when there are several and its own is not among them.
GF_FN bool lpa_step(const State& S, const GfGraph& G, const GfGraph& GT, vid_t v) {
    if (S.apply && S.color[v] != S.current) return false;
    const int64_t d = G.degree(v);
    if (d == 0 || d > GF_LPA_LOCAL) return false;   // no neighbours: done; hubs: the driver's
    int64_t buf[GF_LPA_LOCAL];
    const eid_t b = G.begin(v);
    for (int64_t k = 0; k < d; ++k) buf[k] = S.label[G.indices[b + k]];
    for (int64_t i = 1; i < d; ++i) {   // insertion sort: rows are short here
        const int64_t x = buf[i];
        int64_t j = i - 1;
        while (j >= 0 && buf[j] > x) { buf[j + 1] = buf[j]; --j; }
        buf[j + 1] = x;
    }
    const int64_t own = S.label[v];
    int64_t best_count = 0, largest = -1, ties = 0;
    bool own_in = false;
    for (int64_t k = 0; k < d;) {
        int64_t e = k + 1;
        while (e < d && buf[e] == buf[k]) ++e;
        const int64_t c = e - k;
        if (c > best_count) { best_count = c; largest = buf[k]; ties = 1; own_in = buf[k] == own; }
        else if (c == best_count) { largest = buf[k]; ++ties; own_in = own_in || buf[k] == own; }   // ascending
        k = e;
    }
    if (own_in) return false;
    if (S.apply) S.label[v] = largest;   // one label of highest frequency, or the largest of several
    return true;
}
""" % LOCAL,
)


class _Hubs:
    """The vertices with more than ``LOCAL`` neighbours, and their rows, for the numpy path."""

    def __init__(self, graph: Graph):
        self.ids = np.flatnonzero(graph.out_degree > LOCAL)
        d = graph.out_degree[self.ids]
        starts = graph.offsets[self.ids]
        pos = np.repeat(starts - np.concatenate([[0], np.cumsum(d)[:-1]]), d) + np.arange(int(d.sum()))
        self.rows = np.repeat(np.arange(len(self.ids), dtype=np.int64), d)
        self.nbrs = graph.indices[pos].astype(np.int64)

    def __len__(self) -> int:
        return len(self.ids)

    def step(self, labels: np.ndarray, which: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """For hubs ``which`` (indices into :attr:`ids`): (whether each would change, its Prec-Max label)."""
        take = np.isin(self.rows, which)
        rows, lab = self.rows[take], labels[self.nbrs[take]]
        span = np.int64(int(labels.max()) + 1 if len(labels) else 1)
        key = np.sort(rows * span + lab)
        starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
        counts = np.diff(np.r_[starts, len(key)])
        run_row, run_label = key[starts] // span, key[starts] % span
        row_start = np.flatnonzero(np.r_[True, run_row[1:] != run_row[:-1]])
        top = np.repeat(np.maximum.reduceat(counts, row_start), np.diff(np.r_[row_start, len(counts)]))
        high = counts == top
        own = labels[self.ids[run_row]]
        own_in = np.zeros(len(self.ids), bool)
        own_in[run_row[high & (run_label == own)]] = True
        largest = np.full(len(self.ids), -1, np.int64)
        np.maximum.at(largest, run_row[high], run_label[high])
        return ~own_in[which], largest[which]


def label_propagation(graph: Graph, *, options: RunOptions | None = None, **kwargs) -> Result:
    """Community labels (values ``labels``: the id of a vertex whose label it is) by semi-synchronous
    label propagation over the rows of ``graph`` (an undirected graph's neighbours; a directed
    graph's out-neighbours). Scalars: ``rounds`` (passes over the colour classes) and ``colors``."""
    n = graph.n
    rows = np.repeat(np.arange(n, dtype=np.int64), graph.out_degree)
    degree = graph.out_degree + np.bincount(rows[rows == graph.indices], minlength=n)   # a self-loop: twice
    order = np.argsort(-degree, kind="stable")   # largest first, ties in vertex order
    rank = np.empty(n, np.int64)
    rank[order] = np.arange(n)
    colors = coloring(graph, method="jones_plassmann", priority=rank, options=options, **kwargs).colors
    num_colors = int(colors.max()) + 1 if n else 0
    hubs = _Hubs(graph)
    hub_color = colors[hubs.ids]
    rounds = 0
    with runtime_for(graph, "label_propagation", options, kwargs) as rt:
        st = rt.start(PROGRAM, arrays={"label": np.arange(n, dtype=np.int64), "color": colors},
                      scalars={"current": 0, "apply": 0})
        while n:
            st.scalars["apply"] = 0
            pending = len(st.neighbor_map("lpa_step", in_edges=False))
            if len(hubs):
                pending += int(np.count_nonzero(hubs.step(st.host("label"), np.arange(len(hubs)))[0]))
            if not pending:   # every vertex's label is among its most frequent: complete
                break
            rounds += 1
            st.scalars["apply"] = 1
            for c in range(num_colors):
                st.scalars["current"] = c
                st.neighbor_map("lpa_step", in_edges=False)
                which = np.flatnonzero(hub_color == c)
                if len(which):
                    change, new = hubs.step(st.host("label"), which)
                    if change.any():
                        st.assign("label", hubs.ids[which[change]], new[change])
        labels = st.host("label").astype(np.int64)
    return Result(graph, {"labels": labels}, rt.record, {"rounds": rounds, "colors": num_colors},
                  vertex_ids=registry.get("label_propagation").vertex_ids)


def verify_label_propagation(graph: Graph, labels: np.ndarray) -> None:
    """The fixed point the run stops at, checked with scipy sparse histograms (not the framework):
    every vertex with neighbours (the rows of ``graph``, a self-loop counting) carries one of the
    labels most frequent among them, and every label is a vertex id. Raises AssertionError."""
    import scipy.sparse as sp

    n = graph.n
    labels = np.asarray(labels, np.int64)
    assert labels.shape == (n,), "one label per vertex"
    assert n == 0 or (labels.min() >= 0 and labels.max() < n), "a label is not a vertex id"
    src, dst = graph.edges()
    h = sp.csr_array((np.ones(len(src), np.int64), (src, labels[dst])), shape=(n, n))
    h.sum_duplicates()
    top = np.zeros(n, np.int64)
    deg = np.diff(h.indptr)
    has = np.flatnonzero(deg)
    if len(has):
        top[has] = np.maximum.reduceat(h.data, h.indptr[has])
    own = h[np.arange(n), labels] if n else np.zeros(0)
    bad = np.flatnonzero((deg > 0) & (np.asarray(own).ravel() != top))
    assert len(bad) == 0, f"vertex {bad[0]}: label {labels[bad[0]]} is not among its neighbours' most frequent"

