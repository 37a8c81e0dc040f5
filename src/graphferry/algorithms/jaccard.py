"""Jaccard coefficients of vertex pairs: shared neighbours over all neighbours, NetworkX's definition.

For a pair ``(u, v)`` of an undirected graph with neighbour sets ``N(u)`` and
``N(v)`` (Liben-Nowell and Kleinberg, "The link prediction problem for social
networks", 2004)::

    J(u, v) = |N(u) & N(v) - {u, v}| / |N(u) | N(v)|      (0 when both sets are empty)

exactly as ``networkx.jaccard_coefficient`` computes it (``common_neighbors``
leaves ``u`` and ``v`` out of the intersection; a self-loop makes a vertex its
own neighbour). A directed graph is read as undirected, repeated edges once.

Pairs are either given (``pairs=(sources, targets)``, any vertex pairs, repeats
and ``u == v`` allowed) or, by default, every pair that a coefficient can be
non-zero for and that is not an edge: the pairs ``u < v`` at distance exactly 2
(NetworkX's default, all non-edges, adds only zeros to these). The default
pairs are listed on the host (each vertex's pairs of neighbours, repeats and
edges removed), whose size grows with the sum of squared degrees.

Method: the neighbour sets are the rows of the sorted undirected view. The
pairs are laid out as a vector property (row ``v`` holds pair slots
``v * W .. v * W + W - 1``, ``W = ceil(P / n)``), and one neighbourhood
function per vertex intersects each of its slots' two rows: a merge of the
sorted rows, or, where one row is 8 times shorter, a binary search of each of
its entries in the longer one (a hub paired with a leaf reads the leaf's few
entries and ``log`` of the hub's).

Example:
    >>> import numpy as np
    >>> from graphferry import Graph
    >>> from graphferry.algorithms.jaccard import jaccard_coefficient, verify_jaccard
    >>> g = Graph.from_edges([0, 0, 1, 2], [1, 2, 3, 3], n=5, directed=False)     # a 4-cycle and vertex 4
    >>> r = jaccard_coefficient(g, pairs=([0, 1, 0], [3, 2, 4]), backend="cpu")
    >>> r.edges["coefficient"].tolist()
    [1.0, 1.0, 0.0]
    >>> d = jaccard_coefficient(g, backend="cpu")       # the pairs at distance 2
    >>> d.edges["source"].tolist(), d.edges["target"].tolist()
    ([0, 1], [3, 2])
    >>> verify_jaccard(g, d.edges["source"], d.edges["target"], d.edges["coefficient"])
"""

from __future__ import annotations

import numpy as np

from ..graph import Graph, index_dtype_for, offsets_from_degrees
from ..runtime import Program, RunOptions
from ..transforms import cached, is_simple, on_handle, unique_pairs
from ._common import EdgeResult, driver_hooks, runtime_for

#: the most candidate pairs (sum over vertices of d (d - 1) / 2) the default pairs may list
MAX_DEFAULT_CANDIDATES = 200_000_000

PROGRAM = Program(
    "jaccard",
    arrays={"first": "int64", "second": "int64", "coefficient": "float64"},
    scalars={"pairs": "int64", "width": "int64"},
    neighbor_functions=("score_pairs",),
    neighbor_reads="neighbors",   # each slot intersects two other vertices' rows
    source=r"""
// |N(a) & N(b)| of the sorted rows [i, ie) and [j, je), and the shared entries other than a and b
GF_FN void jc_intersect(const GfGraph& G, eid_t i, eid_t ie, eid_t j, eid_t je, int64_t a, int64_t b,
                        int64_t& both, int64_t& common) {
    if ((ie - i) * 8 < (je - j) || (je - j) * 8 < (ie - i)) {
        eid_t s = i, se = ie, l = j, le = je;              // s: the shorter row, l: the longer
        if (ie - i > je - j) { s = j; se = je; l = i; le = ie; }
        for (; s < se && l < le; ++s) {
            const vid_t x = G.indices[s];
            eid_t lo = l, hi = le;
            while (lo < hi) {
                const eid_t mid = lo + ((hi - lo) >> 1);
                if (G.indices[mid] < x) lo = mid + 1; else hi = mid;
            }
            if (lo < le && G.indices[lo] == x) {
                ++both;
                if ((int64_t)x != a && (int64_t)x != b) ++common;
                ++lo;
            }
            l = lo;
        }
        return;
    }
    while (i < ie && j < je) {
        const vid_t x = G.indices[i], y = G.indices[j];
        if (x < y) { ++i; }
        else if (y < x) { ++j; }
        else {
            ++both;
            if ((int64_t)x != a && (int64_t)x != b) ++common;
            ++i; ++j;
        }
    }
}
// vertex v scores its slots of pairs
GF_FN bool score_pairs(const State& S, const GfGraph& G, const GfGraph& GT, vid_t v) {
    const int64_t lo = (int64_t)v * S.width;
    const int64_t hi = lo + S.width < S.pairs ? lo + S.width : S.pairs;
    for (int64_t p = lo; p < hi; ++p) {
        const int64_t a = S.first[p], b = S.second[p];
        int64_t both = 0, common = 0;
        jc_intersect(G, G.begin((vid_t)a), G.end((vid_t)a), G.begin((vid_t)b), G.end((vid_t)b), a, b, both, common);
        const int64_t total = G.degree((vid_t)a) + G.degree((vid_t)b) - both;
        S.coefficient[p] = total ? (double)common / (double)total : 0.0;
    }
    return false;
}
""",
)


def neighbour_sets(graph: Graph, simple: bool = False) -> Graph:
    """The sorted undirected view whose rows are the neighbour sets (self-loops kept, repeats once). Cached.

    ``simple``: the caller knows ``graph`` is undirected without repeated edges (a NetworkX
    ``Graph``'s conversion): only its rows are sorted, by one sort of ``row * n + neighbour``.
    """
    def build() -> Graph:
        if is_simple(graph, undirected=True):      # sorted, symmetric, no self-loop: itself
            return graph
        n = graph.n
        if simple and not graph.directed:
            rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(graph.offsets))
            keys = np.sort(rows * n + graph.indices)     # rows stay where they are: only each row's order
            return Graph(graph.offsets, (keys - rows * n).astype(graph.indices.dtype), None, directed=False,
                         original_ids=graph.original_ids, name=f"{graph.name}-neighbour-sets")
        src, dst = graph.edges()
        if graph.directed:
            src, dst = np.concatenate([src, dst]), np.concatenate([dst, src])
        src, dst, _ = unique_pairs(src, dst, n)
        degree = np.bincount(src, minlength=n).astype(np.int64)
        return Graph(offsets_from_degrees(degree), dst.astype(index_dtype_for(n)), None, directed=False,
                     original_ids=graph.original_ids, name=f"{graph.name}-neighbour-sets")
    return cached(graph, ("jaccard.neighbour_sets", simple), build)


def distance_two_pairs(sets: Graph) -> tuple[np.ndarray, np.ndarray]:
    """Every pair ``u < v`` at distance exactly 2 in ``sets`` (sorted), listed on the host."""
    n = sets.n
    degree = np.diff(sets.offsets)
    wedges = int((degree * (degree - 1) // 2).sum())
    if wedges > MAX_DEFAULT_CANDIDATES:
        raise ValueError(f"jaccard_coefficient: the default pairs (distance 2) would list {wedges:,} candidates; "
                         f"pass pairs= instead")
    rows = np.repeat(np.arange(n), degree)
    # every pair (x, y), x < y, of a row's entries: row k's entries at positions i < j
    heads, tails = [], []
    for d in np.unique(degree[degree >= 2]).tolist():
        centres = np.flatnonzero(degree == d)
        i, j = np.triu_indices(d, 1)
        base = sets.offsets[centres][:, None]
        heads.append(sets.indices[(base + i).ravel()])
        tails.append(sets.indices[(base + j).ravel()])
    if not heads:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    a = np.concatenate(heads).astype(np.int64)
    b = np.concatenate(tails).astype(np.int64)
    keep = a != b                                   # a self-loop's row lists the centre itself
    a, b = np.minimum(a[keep], b[keep]), np.maximum(a[keep], b[keep])
    a, b, _ = unique_pairs(a, b, n)
    key = a * n + b
    edge_keys = rows.astype(np.int64) * n + sets.indices
    at = np.isin(key, edge_keys, assume_unique=False)  # adjacent pairs are edges, not candidates
    return a[~at], b[~at]


def jaccard_coefficient(graph: Graph, *, options: RunOptions | None = None, **kwargs) -> EdgeResult:
    """Jaccard coefficient of each pair (edge columns ``source``, ``target``, ``coefficient``).

    Driver hooks (``_common.driver_hooks``): ``pairs=(sources, targets)``, internal
    ids (None: the pairs at distance 2, see the module docstring); ``simple=True``
    (see :func:`neighbour_sets`). Scalars: ``pairs``.
    """
    pairs, simple = driver_hooks(kwargs, "pairs", "simple")
    sets = neighbour_sets(graph, bool(simple))
    n = graph.n
    if pairs is None:
        first, second = distance_two_pairs(sets)
    else:
        first = np.asarray(pairs[0], dtype=np.int64).reshape(-1)
        second = np.asarray(pairs[1], dtype=np.int64).reshape(-1)
        if first.shape != second.shape:
            raise ValueError("jaccard_coefficient: argument 'pairs' must hold as many sources as targets")
        if len(first) and (min(first.min(), second.min()) < 0 or max(first.max(), second.max()) >= n):
            raise ValueError(f"jaccard_coefficient: argument 'pairs' holds a vertex outside 0..{n - 1}")
    count = len(first)
    width = max(1, -(-count // max(n, 1)))
    with runtime_for(on_handle(graph, sets), "jaccard_coefficient", options, kwargs) as rt:
        if count and n:
            slots = n * width

            def laid_out(values: np.ndarray, fill) -> np.ndarray:
                out = np.full(slots, fill, dtype=values.dtype)
                out[:count] = values
                return out.reshape(n, width)
            st = rt.start(PROGRAM, arrays={"first": laid_out(first, 0), "second": laid_out(second, 0),
                                           "coefficient": np.zeros((n, width))},
                          scalars={"pairs": count, "width": width})
            st.neighbor_map("score_pairs", in_edges=False)
            coefficient = st.host("coefficient").reshape(-1)[:count]
        else:
            coefficient = np.zeros(count)
    return EdgeResult(graph, {}, rt.record, {"pairs": count},
                      edges={"source": first, "target": second, "coefficient": coefficient})


# ---------------------------------------------------------------- verifier
def verify_jaccard(graph: Graph, sources: np.ndarray, targets: np.ndarray, coefficients: np.ndarray,
                   *, all_pairs: bool = False) -> None:
    """Raise AssertionError unless each pair's coefficient is NetworkX's ``jaccard_coefficient`` on the
    same undirected graph (not the framework). With ``all_pairs=True`` the pairs must also be exactly
    the non-edges ``u < v`` whose coefficient is not zero (the default pairs, less their zeros).

    For test-sized graphs (NetworkX's sets in Python).
    """
    import networkx as nx

    ref = nx.Graph()
    ref.add_nodes_from(range(graph.n))
    src, dst = graph.edges()
    ref.add_edges_from(zip(src.tolist(), dst.tolist()))
    sources, targets = np.asarray(sources).tolist(), np.asarray(targets).tolist()
    coefficients = np.asarray(coefficients, dtype=np.float64)
    assert len(sources) == len(targets) == len(coefficients), "one coefficient per pair"
    want = np.array([p for _, _, p in nx.jaccard_coefficient(ref, list(zip(sources, targets)))], dtype=np.float64)
    bad = np.flatnonzero(~np.isclose(coefficients, want, rtol=1e-12, atol=0))
    assert len(bad) == 0, (f"pair ({sources[bad[0]]}, {targets[bad[0]]}): coefficient {coefficients[bad[0]]!r}, "
                           f"expected {want[bad[0]]!r}")
    if all_pairs:
        # the non-edges with a common neighbour: the off-diagonal non-zeros of A^2 that are not
        # edges (scipy; NetworkX's own list walks all n^2 / 2 non-edges, hours past 10^4 vertices)
        import scipy.sparse as sp

        loop = src != dst
        a = sp.csr_array((np.ones(int(loop.sum())), (src[loop], dst[loop])), shape=(graph.n, graph.n))
        a = ((a + a.T) > 0).astype(np.float64)
        two = (a @ a).tocoo()
        upper = two.row < two.col
        rows, cols = two.row[upper].astype(np.int64), two.col[upper].astype(np.int64)
        adjacent = np.asarray(a[rows, cols]).ravel() > 0 if len(rows) else np.zeros(0, bool)
        nonzero = set(zip(rows[~adjacent].tolist(), cols[~adjacent].tolist()))
        listed = {(min(u, v), max(u, v)) for u, v, p in zip(sources, targets, coefficients.tolist()) if p > 0}
        assert listed == nonzero, f"{len(nonzero ^ listed)} pairs with a non-zero coefficient missing or extra"
