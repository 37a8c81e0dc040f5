"""Louvain community detection (Blondel et al. 2008), NetworkX's ``louvain_communities``, with parallel local moving.

Blondel, Guillaume, Lambiotte and Lefebvre, "Fast unfolding of communities in
large networks" (J. Stat. Mech. 2008): every vertex starts in its own
community; *local moving* moves vertices to the neighbouring community that
raises the modularity most, until no move raises it; then *aggregation* makes
each community one vertex of a new weighted graph (the weights between
communities summed, a community's internal weight a self-loop), and the two
steps repeat on it, level after level, until a level raises the modularity by
no more than ``threshold``.

The modularity and the gain of a move are NetworkX's, with its ``resolution``
gamma. For an undirected graph of total edge weight ``m``, moving vertex ``i``
(weighted degree ``k_i``) out of its community into community ``C`` gains

    ΔQ = k_i,C / m - gamma * Σ_tot(C) * k_i / (2 m²)
         - [k_i,own / m - gamma * Σ_tot(own \\ i) * k_i / (2 m²)]

with ``k_i,C`` the weight of ``i``'s edges into ``C`` and ``Σ_tot`` the sum of
the weighted degrees of a community's vertices (NetworkX's ``_one_level``: the
first line is the gain of joining ``C``, the bracket the cost of leaving its own
community, ``own \\ i`` that community without ``i``). For a directed graph it
is Leicht and Newman's form that NetworkX uses: ``m`` the total arc weight,
``k_i,C`` the weight of ``i``'s out- and in-arcs to ``C``, and the penalty
``gamma * (k_i^out Σ_in(C) + k_i^in Σ_out(C)) / m²``. Both are that one form
here: an undirected vertex has ``k^out = k^in = k / 2`` and a community
``Σ_out = Σ_in = Σ_tot / 2``. The modularity is NetworkX's ``modularity``:
``Q = Σ_c [L_c / m - gamma * Σ_out(c) Σ_in(c) / m²]``, ``L_c`` the weight inside
``c`` (each edge once).

**Parallel local moving** (Lu, Halappanavar and Kalyanaraman's colouring form, "Parallel heuristics
for scalable community detection", Parallel Computing 2015): the level's graph is coloured properly
(``coloring.py``), and a step moves the vertices of one colour class together. Each computes, from
the communities as they stood before the step, the sums of its edge weights to each neighbouring
community (its neighbours' communities sorted in a local array with their weights, the runs summed)
and takes the community of largest positive gain (ties: the smallest id); the moves are applied
together. A class is an independent set, so no vertex's neighbours move while it decides: its
``k_i,C`` are exact, and two neighbours cannot swap communities forever. (Every vertex at once,
even with cuGraph's alternation of moves toward larger and smaller ids, ended at half NetworkX's
modularity on random graphs: 0.135 against 0.28 on a 2,000-node, 10,000-edge G(n, m); by colour
classes 0.277.) Colours from the 16th on share one step. A round is a step per class; after each
round the modularity is computed on the runtime. A round that lost modularity (vertices of a class
joining one community together can) is undone, and the level goes on with *careful* rounds: of a
step's moves only those that touch no community another, better move touches are made, so each
move's gain is exact and the round cannot lose (on a 12-node, 59-edge random graph the fast rounds
stopped at 0.024 with 9 nodes in one community; careful rounds went on to 0.079, NetworkX 0.074).
The level's rounds stop when no vertex moved or a
round gained no more than ``threshold`` or than ``TAIL`` (1%) of what the level has gained so far.
Vertices with more than ``LOCAL`` neighbours (hubs) are done by the driver with numpy (one sort of
``(hub, community)`` keys), as in ``label_propagation.py``.

**Aggregation** is host-side: the level's communities numbered ``0..k-1``,
the new graph's weights summed with scipy's sparse duplicate summation, a
community's internal weight kept as its self-loop ``loop`` (not an arc of the
CSR: the local moving reads only other communities' arcs), its degrees the
sums of its members'. So every level's graph is a symmetric weighted CSR
without self-loops plus three arrays per vertex (``k^out``, ``k^in``, ``loop``).

The levels follow NetworkX's ``louvain_partitions``: the first level's
partition is always kept; after each, if its modularity exceeds the previous
level's by no more than ``threshold`` the run stops, else the graph is
aggregated and the next level runs (a level in which no vertex moves adds
nothing). ``max_level`` keeps at most that many levels.

What differs from NetworkX: NetworkX visits the vertices one at a time in a
random order (``seed``), so its communities depend on that order; the parallel
steps here are deterministic and give other communities, of comparable
modularity (the tests compare both against ``networkx.community.modularity``).
Edge weights cross to the kernels as float32 (the degrees and internal weights
stay float64): integers below 2^24 are exact.

Example:
    >>> import numpy as np
    >>> from graphferry import Graph
    >>> from graphferry.algorithms.louvain import louvain, verify_louvain
    >>> a = [0, 0, 1, 3, 3, 4, 2]; b = [1, 2, 2, 4, 5, 5, 3]      # two triangles and a bridge
    >>> g = Graph.from_edges(np.array(a), np.array(b), n=6, directed=False)
    >>> r = louvain(g, backend="cpu")
    >>> r.community.tolist(), r.num_communities, round(r.modularity, 4)
    ([0, 0, 0, 3, 3, 3], 2, 0.3571)
    >>> verify_louvain(g, r.community, r.modularity)
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import numpy as np

from ..graph import Graph, index_dtype_for
from ..runtime import Program, RunOptions
from . import registry
from ._common import Result, checked_community_names, driver_hooks, runtime_for
from .coloring import coloring

log = logging.getLogger(__name__)

LOCAL = 256        # most neighbours a vertex sorts in its device function; more: the driver's numpy path
MAX_ROUNDS = 200   # rounds of local moving per level at most (each gains more than threshold)
#: a level's rounds stop once a round gains less than this share of what the level has gained so far:
#: on sparse random graphs a third of the vertices keep making tiny moves for hundreds of rounds
#: (uniform, 1 M edges: 200 rounds to 0.0885 at level 1, against 6 rounds to 0.070), which the next
#: level's moves make up for (final modularity 0.1652 either way, 8x less time)
TAIL = 0.01
MAX_STEPS = 16     # steps of a round at most: colour classes from the 16th on move in one step

PROGRAM = Program(
    "louvain",
    arrays={"label": "vid", "pending": "vid", "saved": "vid", "kout": "float64", "kin": "float64",
            "loop": "float64", "tot_out": "float64", "tot_in": "float64", "inside": "float64",
            "penalty": "float64", "color": "int32", "gain": "float64"},
    scalars={"m": "float64", "resolution": "float64", "current": "int64"},
    uses_weights=True,
    vertex_functions=("commit", "save", "restore", "clear_totals", "add_totals", "penalty_of"),
    neighbor_functions=("best_move", "inside_weight"),
    neighbor_reads="row",   # its own row, and its neighbours' labels
    neighbor_writes="own",  # pending[v] / inside[v] only
    source=r"""
#define GF_LV_LOCAL %d

// the pairs (community, weight) of c[0..d) ordered by community: insertion sort when short, else heapsort
// (in place, no recursion: a device function has no heap)
GF_FN void lv_sift(vid_t* c, float* w, int64_t root, int64_t end) {
    for (;;) {
        int64_t child = 2 * root + 1;
        if (child >= end) return;
        if (child + 1 < end && c[child] < c[child + 1]) ++child;
        if (c[root] >= c[child]) return;
        const vid_t tc = c[root]; c[root] = c[child]; c[child] = tc;
        const float tw = w[root]; w[root] = w[child]; w[child] = tw;
        root = child;
    }
}
GF_FN void lv_sort(vid_t* c, float* w, int64_t d) {
    if (d <= 16) {
        for (int64_t i = 1; i < d; ++i) {
            const vid_t x = c[i]; const float y = w[i];
            int64_t j = i - 1;
            while (j >= 0 && c[j] > x) { c[j + 1] = c[j]; w[j + 1] = w[j]; --j; }
            c[j + 1] = x; w[j + 1] = y;
        }
        return;
    }
    for (int64_t s = d / 2; s-- > 0;) lv_sift(c, w, s, d);
    for (int64_t e = d - 1; e > 0; --e) {
        const vid_t tc = c[0]; c[0] = c[e]; c[e] = tc;
        const float tw = w[0]; w[0] = w[e]; w[e] = tw;
        lv_sift(c, w, 0, e);
    }
}

// One step of local moving for v of colour S.current: the neighbouring community of largest positive
// modularity gain (NetworkX's gain, Leicht-Newman's form: see the module docstring), ties to the
// smallest id. Written to pending[v]; true when v moves.
GF_FN bool best_move(const State& S, const GfGraph& G, const GfGraph& GT, vid_t v) {
    const int64_t d = G.degree(v);
    if (d == 0 || d > GF_LV_LOCAL) return false;   // no neighbours: stays; hubs: the driver's
    if (S.color[v] != S.current) return false;     // not this step's colour class
    vid_t c[GF_LV_LOCAL];
    float w[GF_LV_LOCAL];
    const eid_t b = G.begin(v);
    int64_t z = 0;
    for (int64_t k = 0; k < d; ++k) {
        const vid_t u = G.indices[b + k];
        if (u == v) continue;
        c[z] = S.label[u];
        w[z] = G.weights ? G.weights[b + k] : 1.0f;
        ++z;
    }
    lv_sort(c, w, z);
    const vid_t own = S.label[v];
    const double kout = S.kout[v], kin = S.kin[v], m = S.m, mm = S.m * S.m, res = S.resolution;
    double w_own = 0.0;
    for (int64_t k = 0; k < z; ++k) if (c[k] == own) w_own += (double)w[k];
    // what staying is worth: the gain of (re)joining its own community without v
    const double stay = w_own / m - res * (kout * (S.tot_in[own] - kin) + kin * (S.tot_out[own] - kout)) / mm;
    double best_gain = 0.0;
    vid_t best = own;
    for (int64_t k = 0; k < z;) {
        const vid_t cc = c[k];
        double wc = 0.0;
        for (; k < z && c[k] == cc; ++k) wc += (double)w[k];
        if (cc == own) continue;
        const double gain = wc / m - res * (kout * S.tot_in[cc] + kin * S.tot_out[cc]) / mm - stay;
        if (gain > best_gain) { best_gain = gain; best = cc; }   // ascending: ties keep the smaller id
    }
    if (best == own) return false;
    S.pending[v] = best;
    S.gain[v] = best_gain;
    return true;
}

// the step's moves, applied together: v leaves its community's totals and joins the new one's
GF_FN bool commit(const State& S, vid_t v) {
    const vid_t from = S.label[v], to = S.pending[v];
    if (from == to) return false;
    gf_atomic_add(&S.tot_out[from], -S.kout[v]);
    gf_atomic_add(&S.tot_in[from], -S.kin[v]);
    gf_atomic_add(&S.tot_out[to], S.kout[v]);
    gf_atomic_add(&S.tot_in[to], S.kin[v]);
    S.label[v] = to;
    return false;
}
GF_FN bool save(const State& S, vid_t v) { S.saved[v] = S.label[v]; return false; }
GF_FN bool restore(const State& S, vid_t v) { S.label[v] = S.saved[v]; S.pending[v] = S.saved[v]; return false; }
// the totals from the labels, at the start of a level and after a round is undone
GF_FN bool clear_totals(const State& S, vid_t v) { S.tot_out[v] = 0.0; S.tot_in[v] = 0.0; return false; }
GF_FN bool add_totals(const State& S, vid_t v) {
    gf_atomic_add(&S.tot_out[S.label[v]], S.kout[v]);
    gf_atomic_add(&S.tot_in[S.label[v]], S.kin[v]);
    return false;
}
// modularity's terms: the weight inside v's community that v accounts for (its self-loop and half
// of each arc to a member, so each internal edge counts once), and each community's penalty
GF_FN bool inside_weight(const State& S, const GfGraph& G, const GfGraph& GT, vid_t v) {
    const vid_t c = S.label[v];
    double in = 0.0;
    for (eid_t i = G.begin(v); i < G.end(v); ++i)
        if (S.label[G.indices[i]] == c) in += G.weights ? (double)G.weights[i] : 1.0;
    S.inside[v] = S.loop[v] + 0.5 * in;
    return false;
}
GF_FN bool penalty_of(const State& S, vid_t c) { S.penalty[c] = S.tot_out[c] * S.tot_in[c]; return false; }
""" % LOCAL,
)


@dataclass
class _Level:
    """One level's graph: symmetric weights between distinct vertices (float64, scipy CSR), each
    vertex's self-loop weight (its community's inside, each edge once) and its out- and in-degrees."""

    adjacency: object          # scipy.sparse.csr_array, float64, no diagonal
    loop: np.ndarray
    kout: np.ndarray
    kin: np.ndarray

    @property
    def n(self) -> int:
        return len(self.loop)

    def csr(self) -> Graph:
        """The level's graph for the runtime (float32 weights, the vertex-id width of its size)."""
        a = self.adjacency
        return Graph(a.indptr.astype(np.int64), a.indices.astype(index_dtype_for(self.n)),
                     a.data.astype(np.float32), directed=False, name="louvain-level")

    def modularity(self, labels: np.ndarray, m: float, resolution: float) -> float:
        """NetworkX's Q of ``labels`` on this level (float64, on the host)."""
        a = self.adjacency.tocoo()
        same = labels[a.row] == labels[a.col]
        k = int(labels.max()) + 1 if len(labels) else 0
        inside = float(self.loop.sum()) + 0.5 * float(a.data[same].sum())
        out = np.bincount(labels, self.kout, minlength=k)
        into = np.bincount(labels, self.kin, minlength=k)
        return inside / m - resolution * float(out @ into) / (m * m)


def _first_level(graph: Graph, weighted: bool) -> tuple[_Level, float]:
    """The input as a level (parallel arcs summed, self-loops set aside) and its total weight ``m``."""
    import scipy.sparse as sp

    n = graph.n
    src, dst = graph.edges()
    w = (graph.weights.astype(np.float64) if weighted and graph.weights is not None
         else np.ones(len(src), np.float64))
    if len(w) and not (np.all(np.isfinite(w)) and w.min() >= 0):
        raise ValueError("louvain: edge weights must be finite and non-negative")
    looped = src == dst
    off = ~looped
    loop = np.bincount(src[looped], w[looped], minlength=n)
    if graph.directed:
        # Leicht-Newman: a vertex's weight to a neighbour counts its arcs both ways
        rows, cols, data = np.concatenate([src[off], dst[off]]), np.concatenate([dst[off], src[off]]), \
            np.concatenate([w[off], w[off]])
        kout, kin = np.bincount(src, w, minlength=n), np.bincount(dst, w, minlength=n)
        m = float(w.sum())
    else:
        # stored both ways already, a self-loop once; NetworkX counts a self-loop twice in the degree
        rows, cols, data = src[off], dst[off], w[off]
        k = np.bincount(src[off], w[off], minlength=n) + 2 * loop
        kout = kin = k / 2
        m = float(w[off].sum()) / 2 + float(loop.sum())
    adjacency = sp.csr_array((data, (rows, cols)), shape=(n, n))
    adjacency.sum_duplicates()
    return _Level(adjacency, loop, kout, kin), m


def _aggregate(level: _Level, compact: np.ndarray, k: int) -> _Level:
    """Each community of ``compact`` (numbers ``0..k-1``) one vertex: weights summed between them,
    the weight inside each its self-loop."""
    import scipy.sparse as sp

    a = level.adjacency.tocoo()
    rows, cols = compact[a.row], compact[a.col]
    inner = rows == cols
    # an internal edge appears as two arcs of the symmetric adjacency: half of their sum, once
    loop = np.bincount(compact, level.loop, minlength=k) + 0.5 * np.bincount(rows[inner], a.data[inner],
                                                                             minlength=k)
    adjacency = sp.csr_array((a.data[~inner], (rows[~inner], cols[~inner])), shape=(k, k))
    adjacency.sum_duplicates()
    return _Level(adjacency, loop, np.bincount(compact, level.kout, minlength=k),
                  np.bincount(compact, level.kin, minlength=k))


class _Hubs:
    """The vertices with more than ``LOCAL`` neighbours and their rows, for the numpy path."""

    def __init__(self, graph: Graph, level: _Level, colors: np.ndarray):
        a = level.adjacency
        deg = np.diff(a.indptr)
        self.ids = np.flatnonzero(deg > LOCAL)
        d = deg[self.ids]
        starts = a.indptr[self.ids]
        pos = np.repeat(starts - np.concatenate([[0], np.cumsum(d)[:-1]]), d) + np.arange(int(d.sum()))
        self.rows = np.repeat(np.arange(len(self.ids), dtype=np.int64), d)
        self.nbrs = a.indices[pos].astype(np.int64)
        self.weights = graph.weights[pos].astype(np.float64)   # as the kernels read them
        self.kout, self.kin = level.kout[self.ids], level.kin[self.ids]
        self.color = colors[self.ids]

    def __len__(self) -> int:
        return len(self.ids)

    def moves(self, st, n: int, current: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(hubs that move, their new communities, the gains): ``best_move``'s rule, with numpy."""
        m, res = st.scalars["m"], st.scalars["resolution"]
        if not np.any(self.color == current):
            return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0)
        own = st.gather("label", self.ids).astype(np.int64)
        key = self.rows * np.int64(n) + st.gather("label", self.nbrs).astype(np.int64)
        order = np.argsort(key, kind="stable")
        key, wt = key[order], self.weights[order]
        starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
        wsum = np.add.reduceat(wt, starts) if len(starts) else np.zeros(0)
        row, comm = key[starts] // n, key[starts] % n
        mine = comm == own[row]
        w_own = np.bincount(row[mine], wsum[mine], minlength=len(self.ids))
        own_out, own_in = st.gather("tot_out", own), st.gather("tot_in", own)
        stay = w_own / m - res * (self.kout * (own_in - self.kin) + self.kin * (own_out - self.kout)) / (m * m)
        ok = ~mine & (self.color[row] == current)
        row, comm, wsum = row[ok], comm[ok], wsum[ok]
        if not len(row):
            return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0)
        gain = (wsum / m - res * (self.kout[row] * st.gather("tot_in", comm) + self.kin[row]
                                  * st.gather("tot_out", comm)) / (m * m) - stay[row])
        best = np.lexsort((comm, -gain, row))            # per hub: largest gain, then smallest id
        first = best[np.r_[True, row[best][1:] != row[best][:-1]]]
        first = first[gain[first] > 0]
        return self.ids[row[first]], comm[first], gain[first]


def _local_moving(st, rt, hubs: _Hubs, n: int, m: float, resolution: float, threshold: float, colors: int
                  ) -> tuple[bool, float, int]:
    """Rounds of parallel local moving on the level in ``st``: (whether any vertex moved, the
    modularity reached, rounds run)."""

    def totals() -> None:
        st.vertex_map("clear_totals")
        st.vertex_map("add_totals")

    def modularity() -> float:
        st.neighbor_map("inside_weight", in_edges=False)
        st.vertex_map("penalty_of")
        return float(st.reduce("inside", "sum")) / m - resolution * float(st.reduce("penalty", "sum")) / (m * m)

    totals()
    quality = start = modularity()
    st.vertex_map("save")
    moved_any = careful = False
    rounds = 0
    while rounds < MAX_ROUNDS:
        rounds += 1
        moved = 0
        for current in range(colors):
            st.scalars["current"] = current
            movers = st.neighbor_map("best_move", in_edges=False)
            if len(hubs):
                ids, to, gain = hubs.moves(st, n, current)
                if len(ids):
                    st.assign("pending", ids, to)
                    st.assign("gain", ids, gain)
                    movers = movers | rt.frontier(ids)
            if movers and careful:
                movers = rt.frontier(_apart(st, movers.host_ids()))
            if movers:
                moved += len(movers)
                st.vertex_map("commit", movers)
        if not moved:
            break
        after = modularity()
        if after < quality:          # simultaneous moves lost modularity: undo the round
            st.vertex_map("restore")
            totals()
            if careful:              # exact gains cannot lose but by rounding: the level is done
                break
            careful = True           # and redo it with moves that do not meet (see _apart)
            log.debug("round %d lost modularity (%.6f < %.6f): undone, careful rounds from here", rounds,
                      after, quality)
            continue
        moved_any = True
        gained, quality = after - quality, after
        log.debug("round %d: %d moved, modularity %.6f (+%.2e)", rounds, moved, after, gained)
        st.vertex_map("save")
        if gained <= max(threshold, TAIL * (quality - start)):
            break
    return moved_any, quality, rounds


def _apart(st, movers: np.ndarray) -> np.ndarray:
    """The movers of a careful step: each the best move (largest gain, then smallest id) of all the
    step's moves that touch its community or the one it joins. No two kept moves touch the same
    community, so each one's gain is exact (a step's vertices are not neighbours, so only the totals of
    the two communities could change under it) and the step gains their sum; the best move of all is
    always kept, so a careful round makes progress."""
    frm = st.gather("label", movers).astype(np.int64)
    to = st.gather("pending", movers).astype(np.int64)
    order = np.lexsort((movers, -st.gather("gain", movers)))
    rank = np.empty(len(movers), np.int64)
    rank[order] = np.arange(len(movers))
    communities, touch = np.unique(np.concatenate([frm, to]), return_inverse=True)
    best = np.full(len(communities), len(movers), np.int64)
    np.minimum.at(best, touch, np.concatenate([rank, rank]))
    k = len(movers)
    return movers[(best[touch[:k]] == rank) & (best[touch[k:]] == rank)]


def louvain(graph: Graph, resolution: float = 1.0, threshold: float = 1e-7, max_level: int | None = None,
            weighted: bool = True, *, options: RunOptions | None = None, **kwargs) -> Result:
    """Communities by Louvain with parallel local moving (values ``community``: the smallest internal
    id of each vertex's community). A directed graph's arcs are read as NetworkX's Louvain reads them
    (Leicht-Newman modularity); parallel arcs add up; edge weights are used when ``weighted`` and the
    graph has them. Scalars: ``modularity`` (NetworkX's, with ``resolution``), ``num_communities``,
    ``levels`` and ``rounds`` (of local moving, over all levels).

    Driver hook (a keyword beside the run options): ``on_level`` is called with each level's
    communities (as ``community``) as the levels are kept, NetworkX's ``louvain_partitions``.
    """
    (on_level,) = driver_hooks(kwargs, "on_level")
    registry.get("louvain").check_values(max_level=max_level)
    if not np.isfinite(resolution):
        raise ValueError(f"louvain: resolution must be a finite number, got {resolution!r}")
    n = graph.n
    level, m = _first_level(graph, weighted)
    belongs = np.arange(n, dtype=np.int64)      # each input vertex's vertex of the current level
    kept, rounds = 0, 0

    def keep() -> None:
        nonlocal kept
        kept += 1
        if on_level is not None:
            on_level(_smallest_member(belongs))

    if n == 0 or m <= 0:                        # NetworkX: an empty graph's partition is its singletons
        keep()
        with runtime_for(graph, "louvain", options, kwargs) as rt:   # a record of no steps
            pass
        return _result(graph, belongs, 0.0, kept, rounds, rt.record)
    first = level
    quality = level.modularity(np.arange(n), m, resolution)
    record = None
    while True:
        csr = level.csr()
        # independent sets to move together; the rare vertices of the last colours share one step
        colors = np.minimum(coloring(csr, options=options, **kwargs).colors, MAX_STEPS - 1).astype(np.int32)
        num_colors = int(colors.max()) + 1
        hubs = _Hubs(csr, level, colors)
        with runtime_for(csr, "louvain", options, dict(kwargs)) as rt:
            st = rt.start(PROGRAM, arrays={"label": np.arange(level.n), "pending": np.arange(level.n),
                                           "saved": 0, "kout": level.kout, "kin": level.kin, "loop": level.loop,
                                           "tot_out": 0, "tot_in": 0, "inside": 0, "penalty": 0,
                                           "color": colors, "gain": 0},
                          scalars={"m": m, "resolution": float(resolution), "current": 0})
            moved, reached, r = _local_moving(st, rt, hubs, level.n, m, resolution, threshold, num_colors)
            labels = st.host("label").astype(np.int64)
        record = rt.record if record is None else record
        rounds += r
        if kept and not moved:                  # NetworkX keeps the first level whatever it did
            break
        values, compact = np.unique(labels, return_inverse=True)
        compact = compact.astype(np.int64).ravel()
        belongs = compact[belongs]
        keep()
        log.debug("louvain level %d: %d -> %d vertices, modularity %.6f, %d rounds", kept, level.n, len(values),
                  reached, r)
        if (max_level is not None and kept >= max_level) or reached - quality <= threshold:
            break
        quality = reached
        level = _aggregate(level, compact, len(values))
    return _result(graph, belongs, first.modularity(belongs, m, resolution), kept, rounds, record)


def _smallest_member(belongs: np.ndarray) -> np.ndarray:
    """Each vertex's community named by its smallest member."""
    _, first, inverse = np.unique(belongs, return_index=True, return_inverse=True)
    return first[inverse.ravel()].astype(np.int64)


def _result(graph: Graph, belongs: np.ndarray, modularity: float, levels: int, rounds: int, record) -> Result:
    community = _smallest_member(belongs)
    return Result(graph, {"community": community}, record,
                  {"modularity": modularity, "num_communities": int(len(np.unique(community))), "levels": levels,
                   "rounds": rounds}, vertex_ids=registry.get("louvain").vertex_ids)


def verify_louvain(graph: Graph, community: np.ndarray, modularity: float | None = None, resolution: float = 1.0,
                   weighted: bool = True) -> None:
    """A partition of the vertices, each community named by its smallest member, no worse than the
    singletons, and (when given) a modularity equal to ``networkx.community.modularity``'s on the graph
    as NetworkX holds it (a MultiGraph / MultiDiGraph of the arcs, so parallel arcs add up).
    Raises AssertionError."""
    import networkx as nx

    community = checked_community_names(community, graph.n)
    n = graph.n
    src, dst = graph.edges()
    w = graph.weights if weighted and graph.weights is not None else np.ones(len(src), np.float32)
    keep = np.ones(len(src), bool) if graph.directed else src <= dst     # an undirected edge once
    g = nx.MultiDiGraph() if graph.directed else nx.MultiGraph()
    g.add_nodes_from(range(n))
    g.add_weighted_edges_from(zip(src[keep].tolist(), dst[keep].tolist(), w[keep].astype(float).tolist()))
    if g.number_of_edges() == 0 or g.size(weight="weight") == 0:
        return
    groups: dict[int, set] = {}
    for v, c in enumerate(community.tolist()):
        groups.setdefault(c, set()).add(v)
    q = nx.community.modularity(g, groups.values(), weight="weight", resolution=resolution)
    alone = nx.community.modularity(g, [{v} for v in range(n)], weight="weight", resolution=resolution)
    assert q >= alone - 1e-9, f"modularity {q} below the singletons' {alone}"
    if modularity is not None:
        assert np.isclose(modularity, q, rtol=1e-6, atol=1e-9), f"modularity {modularity}, networkx says {q}"
