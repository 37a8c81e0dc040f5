"""Community detection by label propagation (LDBC Graphalytics CDLP).

Definition (LDBC Graphalytics spec, section "Community Detection using Label
Propagation"): every vertex starts with its own id as label (the *original* id
when the graph was renumbered, so results match the input's ids). Then, for a
fixed number of synchronous iterations, each vertex takes the label that is most
frequent among the labels of its in-neighbours and of its out-neighbours,
counted separately (in a directed graph a neighbour that is both counts twice;
in an undirected graph each neighbour counts once), the smallest label among
equally frequent ones; a vertex without neighbours keeps its label.

Self-loops and repeated edges: the LDBC data model has neither ("every edge is
unique and connects two distinct vertices"), and the algorithm is written over
an edge *set*. graphferry reads any input that way: self-loops are ignored (a
vertex never votes for itself) and a repeated edge counts once.

Method. Labels are kept as *ranks* of the original ids (rank order equals id
order, so "smallest label" is unchanged), which fit the graph's vertex id type.
Per vertex the new label is the mode of a multiset of ``deg_in + deg_out``
labels; finding a mode needs the labels grouped, and a device function has no
heap. So the work is split by degree:

* vertices with at most ``LOCAL`` (256) labels: the neighbourhood function copies
  the neighbours' labels into a fixed-size local array, sorts it (insertion
  sort when short, heapsort otherwise: in place, no recursion, ``O(d log d)``)
  and takes the longest run, the first such (smallest label) on ties;
* vertices with more labels (hubs: few vertices, but many edges in skewed
  graphs): the driver gathers their neighbours' labels with numpy, sorts
  ``(hub, label)`` keys once per iteration (starting from the previous
  iteration's order, nearly sorted once labels settle) and reads the modes off
  the runs.

Counting per candidate label (``O(d^2)``) would make hubs quadratic; sorting every
vertex's labels in numpy would move all of the work off the device. Iterations
stop early once the labels stop changing (a fixed point repeats forever).

Example:
    >>> import numpy as np
    >>> from graphferry import Graph
    >>> from graphferry.algorithms.cdlp import cdlp
    >>> g = Graph.from_edges(np.array([0, 0, 1, 3, 3, 4]), np.array([1, 2, 2, 4, 5, 5]),
    ...                      n=7, directed=False)
    >>> cdlp(g, max_iterations=5, backend="cpu").labels.tolist()
    [0, 0, 0, 3, 3, 3, 6]
"""

from __future__ import annotations

import numpy as np

from ..graph import Graph
from ..runtime import Program, RunOptions
from ._common import Result, runtime_for
from ..transforms import on_handle, simple_graph

LOCAL = 256  # most labels a vertex sorts in its device function; more: the driver's hub path

PROGRAM = Program(
    "cdlp",
    arrays={"label": "vid", "next": "vid"},
    scalars={"directed": "int64"},
    neighbor_functions=("cdlp_vertex",),
    neighbor_reads="row",  # its own rows of G and GT
    neighbor_writes="own",  # next[v] only
    source=r"""
#define GF_CDLP_LOCAL %d

// One synchronous step for v: next[v] = smallest most frequent label among the
// out-neighbours' and (directed graphs) in-neighbours' labels. Vertices with
// more than GF_CDLP_LOCAL labels are left to the driver. True if the label changed.
GF_FN bool cdlp_vertex(const State& S, const GfGraph& G, const GfGraph& GT, vid_t v) {
    const int64_t no = G.degree(v);
    const int64_t ni = S.directed ? GT.degree(v) : 0;
    const int64_t d = no + ni;
    if (d == 0) { S.next[v] = S.label[v]; return false; }
    if (d > GF_CDLP_LOCAL) return false;
    vid_t buf[GF_CDLP_LOCAL];
    const eid_t ob = G.begin(v);
    for (int64_t k = 0; k < no; ++k) buf[k] = S.label[G.indices[ob + k]];
    const eid_t ib = GT.begin(v);
    for (int64_t k = 0; k < ni; ++k) buf[no + k] = S.label[GT.indices[ib + k]];
    gf_sort_ids(buf, d);
    vid_t best = buf[0];
    int64_t best_count = 0;
    for (int64_t k = 0; k < d;) {
        int64_t e = k + 1;
        while (e < d && buf[e] == buf[k]) ++e;
        if (e - k > best_count) { best_count = e - k; best = buf[k]; }  // ascending: ties keep the smaller
        k = e;
    }
    S.next[v] = best;
    return best != S.label[v];
}
""" % LOCAL,
)


class _Hubs:
    """The vertices with more than ``LOCAL`` labels and their neighbours, for the numpy path."""

    def __init__(self, simple: Graph):
        g, gt = simple, simple.transpose()
        deg = g.out_degree + (gt.out_degree if simple.directed else 0)
        self.ids = np.flatnonzero(deg > LOCAL)
        rows, nbrs = [], []
        for side in (g, gt) if simple.directed else (g,):
            d = side.out_degree[self.ids]
            starts = side.offsets[self.ids]
            # the edge positions of each hub's row, without a Python loop
            pos = np.repeat(starts - np.concatenate([[0], np.cumsum(d)[:-1]]), d) + np.arange(d.sum())
            rows.append(np.repeat(np.arange(len(self.ids), dtype=np.int64), d))
            nbrs.append(side.indices[pos].astype(np.int64))
        self.rows = np.concatenate(rows) if rows else np.empty(0, np.int64)
        self.nbrs = np.concatenate(nbrs) if nbrs else np.empty(0, np.int64)
        order = np.argsort(self.rows, kind="stable")
        self.rows, self.nbrs = self.rows[order], self.nbrs[order]
        self.n = simple.n

    def __len__(self) -> int:
        return len(self.ids)

    def step(self, labels: np.ndarray) -> np.ndarray:
        """The hubs' next labels: the smallest most frequent neighbour label of each."""
        n = np.int64(self.n)
        key = self.rows * n + labels[self.nbrs].astype(np.int64)
        # Keep the edges in last step's sorted order: labels change little from one
        # step to the next, so the keys come nearly sorted and a stable sort (timsort,
        # which merges runs) is about 5x faster than sorting from scratch.
        o = np.argsort(key, kind="stable")
        key = key[o]
        self.rows, self.nbrs = self.rows[o], self.nbrs[o]
        starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])   # runs of equal (hub, label)
        counts = np.diff(np.r_[starts, len(key)])
        run_row = key[starts] // n
        row_start = np.flatnonzero(np.r_[True, run_row[1:] != run_row[:-1]])
        row_max = np.maximum.reduceat(counts, row_start)
        best = np.flatnonzero(counts == np.repeat(row_max, np.diff(np.r_[row_start, len(counts)])))
        first = best[np.r_[True, run_row[best][1:] != run_row[best][:-1]]]  # smallest label per hub
        return key[starts[first]] % n


def label_ranks(graph: Graph) -> tuple[np.ndarray, np.ndarray]:
    """(rank of each vertex's original id, original ids in ascending order)."""
    if graph.original_ids is None:
        ids = np.arange(graph.n, dtype=np.int64)
        return ids, ids
    orig = np.asarray(graph.original_ids)
    order = np.argsort(orig, kind="stable")
    rank = np.empty(graph.n, np.int64)
    rank[order] = np.arange(graph.n)
    return rank, orig[order].astype(np.int64)


def cdlp(graph: Graph, max_iterations: int = 10, *, options: RunOptions | None = None,
         **kwargs) -> Result:
    """Community labels (values ``labels``, int64, in the input's id space) after
    ``max_iterations`` synchronous label-propagation steps (scalar ``iterations``:
    steps actually run; the rest would repeat a fixed point)."""
    if max_iterations < 0:
        raise ValueError(f"max_iterations must be >= 0, got {max_iterations}")
    simple = simple_graph(graph, undirected=False)
    rank, sorted_ids = label_ranks(graph)
    hubs = _Hubs(simple)
    ran = 0
    with runtime_for(on_handle(graph, simple), "cdlp", options, kwargs) as rt:
        st = rt.start(PROGRAM, arrays={"label": rank, "next": rank},
                      scalars={"directed": int(simple.directed)})
        for _ in range(max_iterations):
            ran += 1
            changed = len(st.neighbor_map("cdlp_vertex"))
            if len(hubs):
                old = st.host("label")
                new = hubs.step(old)
                changed += int(np.count_nonzero(new != old[hubs.ids]))
                st.assign("next", hubs.ids, new.astype(old.dtype))
            st.swap("label", "next")
            if changed == 0:
                break
        labels = sorted_ids[st.host("label").astype(np.int64)]
    return Result(graph, {"labels": labels}, rt.record, {"iterations": ran})


def verify_cdlp(graph: Graph, labels: np.ndarray, max_iterations: int) -> None:
    """Recompute CDLP with scipy sparse histograms (not the framework) and compare exactly.

    Each step builds the sparse matrix ``H[v, l]`` = how many of ``v``'s in- and
    out-neighbours (in the simple graph) carry label ``l``; its rows give the modes.
    Raises AssertionError on the first differing vertex.
    """
    import scipy.sparse as sp

    n = graph.n
    src, dst = graph.edges()
    keep = src != dst
    a = sp.coo_array((np.ones(int(keep.sum())), (src[keep], dst[keep])), shape=(n, n)).tocsr()
    a = (a > 0).astype(np.int64).tocoo()
    if graph.directed:   # v hears its out-neighbours (row, col) and its in-neighbours (col, row)
        hear_v = np.concatenate([a.row, a.col])
        hear_u = np.concatenate([a.col, a.row])
    else:                # stored symmetrised: each neighbour once
        hear_v, hear_u = a.row, a.col
    orig = np.arange(n, dtype=np.int64) if graph.original_ids is None else np.asarray(graph.original_ids, np.int64)
    cur = orig.copy()
    values, inverse = np.unique(cur, return_inverse=True)
    lab = inverse.astype(np.int64)                    # label ranks
    for _ in range(max_iterations):
        h = sp.csr_array((np.ones(len(hear_v), np.int64), (hear_v, lab[hear_u])), shape=(n, n))
        h.sum_duplicates()
        h.sort_indices()
        nxt = lab.copy()
        deg = np.diff(h.indptr)
        rows = np.flatnonzero(deg)
        if len(rows):
            row_max = np.maximum.reduceat(h.data, h.indptr[rows])
            at_max = np.flatnonzero(h.data == np.repeat(row_max, deg[rows]))
            row_of = np.repeat(np.arange(n), deg)[at_max]
            first = at_max[np.r_[True, row_of[1:] != row_of[:-1]]]   # smallest label at the max
            nxt[rows] = h.indices[first]
        lab = nxt
    want = values[lab]
    labels = np.asarray(labels)
    bad = np.flatnonzero(labels != want)
    assert len(bad) == 0, f"vertex {bad[0]}: label {labels[bad[0]]}, expected {want[bad[0]]}"
