"""Minimum spanning forest by Boruvka's algorithm, ties broken deterministically.

The graph is read as its symmetrised simple view (directions ignored,
self-loops dropped, each vertex pair joined by its lightest arc; 1 per edge
when unweighted), which is what ``scipy.sparse.csgraph.minimum_spanning_tree``
spans for ``A + A.T`` with the lighter entry kept.

Boruvka (1926), as in Chung and Condon's parallel form: every component picks
its lightest outgoing edge and all picked edges join the forest at once;
repeated until no component has an outgoing edge (``O(log n)`` rounds, each
at least halving the components that still have one). Edges are ordered by
``(weight, lower endpoint, higher endpoint)``, a total order, so the picked
edges never close a cycle (two components may pick the same edge: it joins
once) and the forest is the same on every run and every backend. Each round:

1. every vertex scans its row and lowers its component's key
   ``(weight, lower endpoint)`` with an atomic minimum over one 64-bit word
   (the weight's bits made order-preserving, then the endpoint), then a second
   scan lowers the higher endpoint among the edges that carry that key;
2. the components' picks are gathered (the forest's new edges), then each
   pick links the two trees in a union-find (Afforest's hook of the higher root
   under the lower, by compare-and-swap) and a vertex pass compresses paths.

Component labels are the smallest vertex id of each tree (internal ids).
Vertex ids must fit 32 bits (the key's lower half).

Example:
    >>> import numpy as np
    >>> from graphferry import Graph
    >>> from graphferry.algorithms.mst import minimum_spanning_forest, verify_msf
    >>> g = Graph.from_edges([0, 1, 2, 0, 3], [1, 2, 0, 2, 4], [1, 2, 3, 1, 5], n=6, directed=False)
    >>> r = minimum_spanning_forest(g, backend="cpu")
    >>> r.to_table()["source"].tolist(), r.to_table()["target"].tolist(), r.to_table()["weight"].tolist()
    ([0, 0, 3], [1, 2, 4], [1.0, 1.0, 5.0])
    >>> r.total_weight, r.num_edges, r.components
    (7.0, 3, 3)
    >>> verify_msf(g, r.edges["source"], r.edges["target"], r.edges["weight"])
"""

from __future__ import annotations

import time

import numpy as np

from .. import host_ops
from ..graph import Graph
from ..runtime import Program, RunOptions
from ..transforms import symmetrize
from . import registry
from ._common import EdgeResult, driver_hooks, runtime_for

NO_EDGE = np.iinfo(np.uint64).max

PROGRAM = Program(
    "boruvka",
    arrays={"label": "vid", "key": "uint64", "hi": "int64", "out_key": "uint64", "out_hi": "int64"},
    scalars={"offset": "int64", "n_vertices": "int64"},
    vertex_functions=("reset_pick", "outside_key", "freeze", "link_pick", "compress"),
    neighbor_functions=("lightest_key", "lightest_hi"),
    neighbor_reads="row",  # its own row (and its neighbours' labels)
    neighbor_writes="min",  # key and hi of a component: atomic minima
    uses_weights=True,
    source=r"""
// float weight -> uint32 with the same order (negative weights too)
GF_FN uint64_t msf_weight_bits(const GfGraph& G, eid_t i) {
    const float w = G.weights ? G.weights[i] : 1.0f;
#if defined(GF_CUDA)
    uint32_t b = __float_as_uint(w);
#else
    uint32_t b;
    memcpy(&b, &w, sizeof b);
#endif
    b = (b & 0x80000000u) ? ~b : (b | 0x80000000u);
    return (uint64_t)b;
}
// keys name vertices by their ids in the whole graph (u + offset): a part's keys then order
// its edges and its cut edges (out_key, computed outside) the same way
GF_FN uint64_t msf_key(const State& S, const GfGraph& G, eid_t i, vid_t u, vid_t v) {
    const uint64_t lo = (uint64_t)(uint32_t)((u < v ? u : v) + S.offset);
    return (msf_weight_bits(G, i) << 32) | lo;
}
GF_FN bool reset_pick(const State& S, vid_t v) {
    S.key[v] = 0xFFFFFFFFFFFFFFFFull;
    S.hi[v] = 0x7FFFFFFFFFFFFFFFLL;   // INT64_MAX (NVRTC has no <cstdint> macros)
    return false;
}
// round step 1a: each component's least (weight, lower endpoint) over its outgoing edges
GF_FN bool lightest_key(const State& S, const GfGraph& G, const GfGraph& GT, vid_t v) {
    const vid_t c = S.label[v];
    uint64_t best = 0xFFFFFFFFFFFFFFFFull;
    for (eid_t i = G.begin(v); i < G.end(v); ++i) {
        const vid_t u = G.indices[i];
        if (S.label[u] == c) continue;
        const uint64_t k = msf_key(S, G, i, v, u);
        if (k < best) best = k;
    }
    if (best != 0xFFFFFFFFFFFFFFFFull) gf_atomic_min(&S.key[c], best);
    return false;
}
// round step 1b: among the edges carrying the component's key, the least higher endpoint
GF_FN bool lightest_hi(const State& S, const GfGraph& G, const GfGraph& GT, vid_t v) {
    const vid_t c = S.label[v];
    const uint64_t want = S.key[c];
    if (want == 0xFFFFFFFFFFFFFFFFull) return false;
    for (eid_t i = G.begin(v); i < G.end(v); ++i) {
        const vid_t u = G.indices[i];
        if (S.label[u] == c || msf_key(S, G, i, v, u) != want) continue;
        gf_atomic_min(&S.hi[c], (int64_t)(u < v ? v : u) + S.offset);
    }
    return false;
}
// HyPar's exception (part runs): a vertex's lightest cut edge competes for its component
GF_FN bool outside_key(const State& S, vid_t v) {
    if (S.out_key[v] != 0xFFFFFFFFFFFFFFFFull) gf_atomic_min(&S.key[S.label[v]], S.out_key[v]);
    return false;
}
// ... and if it wins (same key and higher end), the component stops growing this round
GF_FN bool freeze(const State& S, vid_t v) {
    const vid_t c = S.label[v];
    if (S.out_key[v] == S.key[c]) gf_atomic_min(&S.hi[c], S.out_hi[v]);
    return false;
}
// round step 2: every component root with a pick links its edge's endpoints
GF_FN bool link_pick(const State& S, vid_t r) {
    const uint64_t k = S.key[r];
    if (k == 0xFFFFFFFFFFFFFFFFull) return false;
    const int64_t lo = (int64_t)(k & 0xFFFFFFFFull) - S.offset, hi = S.hi[r] - S.offset;
    if (lo < 0 || hi < 0 || lo >= S.n_vertices || hi >= S.n_vertices) return false;   // a cut edge: frozen
    gf_link(S.label, (vid_t)lo, (vid_t)hi);   // Afforest's link (prelude)
    return true;
}
GF_FN bool compress(const State& S, vid_t v) {
    vid_t l = gf_load(&S.label[v]);
    for (vid_t up = gf_load(&S.label[l]); up != l; up = gf_load(&S.label[l])) l = up;
    S.label[v] = l;
    return false;
}
""",
)


def _key_weights(keys: np.ndarray) -> np.ndarray:
    """The float32 weights inside 64-bit keys (inverse of ``msf_weight_bits``)."""
    b = (keys >> np.uint64(32)).astype(np.uint32)
    b = np.where(b & np.uint32(0x80000000), b & np.uint32(0x7FFFFFFF), ~b)
    return b.astype(np.uint32).view(np.float32)


def cut_edge_keys(whole: Graph, block: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each vertex of ``block`` (a sorted range of ``whole``'s symmetric weighted graph), the key
    (weight bits, lower end) and higher end of its lightest edge leaving the block; ``2**64 - 1`` and
    ``2**63 - 1`` where none. Ids are ``whole``'s: the ``outside`` argument of a part's run."""
    if len(block) == 0:
        return np.zeros(0, np.uint64), np.zeros(0, np.int64)
    if int(block[-1]) - int(block[0]) + 1 != len(block):
        raise ValueError("cut_edge_keys: the block must be a range of consecutive vertex ids")
    # one parallel pass over the block's rows in C++ (no edge list of the whole graph)
    return host_ops.cut_min_keys(whole.offsets, whole.indices, whole.weights, int(block[0]), int(block[-1]) + 1)


def minimum_spanning_forest(graph: Graph, *, options: RunOptions | None = None, **kwargs) -> EdgeResult:
    """The minimum spanning forest's edges (``edges``: ``source`` < ``target``, internal ids,
    and ``weight``, in order of picking then of endpoints) and each vertex's tree (values
    ``component``: the tree's smallest internal vertex id).

    Scalars: ``total_weight`` (float64 sum of the float32 weights), ``num_edges``
    (``n - components``), ``components`` and ``rounds``.

    Driver hooks (keywords beside the run options, see ``_common.driver_hooks``):
    HyPar's exception for a part of a larger graph (Section 6.2): with
    ``within=(whole, block)``, ``graph`` is the subgraph of symmetric weighted
    ``whole`` induced by the sorted range ``block``; each vertex's lightest cut
    edge (:func:`cut_edge_keys`) then competes for its component, and a
    component whose lightest edge is a cut edge stops growing, so every edge
    picked is one the whole graph's Boruvka could pick. ``stop_when`` gets each
    round's seconds and ends the run early (a forest of the rounds so far) when it returns True.
    """
    within, stop_when = driver_hooks(kwargs, "within", "stop_when")
    outside, offset = None, 0
    if within is not None:
        whole, block = within
        outside, offset = cut_edge_keys(whole, np.asarray(block, np.int64)), int(block[0]) if len(block) else 0
    sym = symmetrize(graph)
    n = sym.n
    if n >= 2**32:
        raise ValueError("minimum_spanning_forest: vertex ids must fit 32 bits")
    lo_all, hi_all, w_all = [], [], []
    rounds = 0
    out_key, out_hi = outside if outside is not None else (NO_EDGE, np.iinfo(np.int64).max)
    with runtime_for(sym, "mst", options, kwargs) as rt:
        st = rt.start(PROGRAM, arrays={"label": np.arange(n, dtype=sym.indices.dtype), "key": 0, "hi": 0,
                                       "out_key": out_key, "out_hi": out_hi},
                      scalars={"offset": int(offset), "n_vertices": n})
        while n:
            t = time.perf_counter()
            st.vertex_map("reset_pick")
            st.neighbor_map("lightest_key", in_edges=False)
            if outside is not None:
                st.vertex_map("outside_key")
            st.neighbor_map("lightest_hi", in_edges=False)
            if outside is not None:
                st.vertex_map("freeze")
            roots = st.select("key", 0, float(NO_EDGE))   # components with a pick (keys below "none")
            if not roots:
                break
            keys = st.gather("key", roots).astype(np.uint64)
            his = st.gather("hi", roots).astype(np.int64) - offset
            los = (keys & np.uint64(0xFFFFFFFF)).astype(np.int64) - offset
            internal = (los >= 0) & (los < n) & (his >= 0) & (his < n)   # cut-edge picks: frozen
            if not internal.any():
                break
            rounds += 1
            lo_all.append(los[internal])
            hi_all.append(his[internal])
            w_all.append(_key_weights(keys[internal]))
            st.vertex_map("link_pick", roots)
            st.vertex_map("compress")
            if stop_when is not None and stop_when(time.perf_counter() - t):
                break
        labels = st.host("label").astype(np.int64)
    lo = np.concatenate(lo_all) if lo_all else np.empty(0, np.int64)
    hi = np.concatenate(hi_all) if hi_all else np.empty(0, np.int64)
    w = np.concatenate(w_all) if w_all else np.empty(0, np.float32)
    # two components may pick the same edge in a round: keep it once, its first pick. An unstable
    # argsort and the least index per run of equal keys: np.unique's return_index sorts stably,
    # 0.31 s for a Kronecker 22 forest's 2.4 M edges
    key = lo * np.int64(max(n, 1)) + hi
    first = np.empty(0, np.int64)
    if len(key):
        order = np.argsort(key)
        runs = np.flatnonzero(np.r_[True, key[order[1:]] != key[order[:-1]]])
        first = np.sort(np.minimum.reduceat(order, runs))
    lo, hi, w = lo[first], hi[first], w[first]
    components = int(np.count_nonzero(labels == np.arange(n)))
    edges = {"source": lo, "target": hi, "weight": w.astype(np.float32)}
    scalars = {"total_weight": float(w.astype(np.float64).sum()), "num_edges": len(lo),
               "components": components, "rounds": rounds}
    return EdgeResult(graph, {"component": labels}, rt.record, scalars, vertex_ids=registry.get("mst").vertex_ids, edges=edges)


def verify_msf(graph: Graph, source: np.ndarray, target: np.ndarray, weight: np.ndarray,
               total_weight: float | None = None, component: np.ndarray | None = None) -> None:
    """Check a spanning forest against ``scipy.sparse.csgraph`` on the symmetrised simple graph.

    The edges are edges of that graph with its weights, they form a forest
    (``n - components`` edges that connect exactly the graph's components), and
    their total equals ``minimum_spanning_tree``'s (float64 sums of float32 weights,
    so equal up to rounding). ``component``, if given, must name each vertex's
    tree by its smallest vertex id. Raises AssertionError.
    """
    import scipy.sparse as sp
    from scipy.sparse.csgraph import connected_components, minimum_spanning_tree

    n = graph.n
    src, dst = graph.edges()
    w = np.ones(len(src), np.float64) if graph.weights is None else graph.weights.astype(np.float64)
    keep = src != dst
    lo, hi, w = np.minimum(src, dst)[keep], np.maximum(src, dst)[keep], w[keep]
    order = np.lexsort((w, hi, lo))
    lo, hi, w = lo[order], hi[order], w[order]
    first = np.r_[True, (lo[1:] != lo[:-1]) | (hi[1:] != hi[:-1])] if len(lo) else np.zeros(0, bool)
    lo, hi, w = lo[first], hi[first], w[first]            # lightest arc of every vertex pair
    lightest = dict(zip(zip(lo.tolist(), hi.tolist()), w.tolist()))
    source, target, weight = (np.asarray(a) for a in (source, target, weight))
    for a, b, x in zip(source.tolist(), target.tolist(), weight.tolist()):
        pair = (min(a, b), max(a, b))
        assert pair in lightest, f"forest edge {a} - {b} is not an edge of the graph"
        assert np.float32(lightest[pair]) == np.float32(x), f"forest edge {a} - {b} weighs {x}, not {lightest[pair]}"
    want_components, want_labels = connected_components(
        sp.coo_array((np.ones(len(lo)), (lo, hi)), shape=(n, n)), directed=False)
    assert len(source) == n - want_components, f"{len(source)} edges, a spanning forest has {n - want_components}"
    got_components, got_labels = connected_components(
        sp.coo_array((np.ones(len(source)), (source, target)), shape=(n, n)), directed=False)
    assert got_components == want_components, "the edges do not connect every component (a cycle or a gap)"
    pairs = np.unique(np.stack([got_labels, want_labels], 1), axis=0) if n else np.zeros((0, 2))
    assert len(pairs) == want_components, "the forest's trees are not the graph's components"
    if component is not None:
        smallest = np.full(got_components, n, np.int64)
        np.minimum.at(smallest, got_labels, np.arange(n))
        assert np.array_equal(np.asarray(component), smallest[got_labels]), \
            "a vertex's component is not its tree's smallest vertex"
    # scipy drops zero entries as non-edges: shift every weight by the same amount so none is zero
    shift = 1.0 - (float(w.min()) if len(w) else 0.0)
    mst = minimum_spanning_tree(sp.csr_array((w + shift, (lo, hi)), shape=(n, n)))
    want_total = float(mst.sum()) - shift * (n - want_components)
    total = float(np.asarray(weight, np.float64).sum()) if total_weight is None else total_weight
    assert np.isclose(total, want_total, rtol=1e-9, atol=1e-6), f"forest weight {total}, minimum {want_total}"
