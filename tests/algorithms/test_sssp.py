"""SSSP: every engine and direction gives scipy's Dijkstra distances on graphs split into many partitions."""

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from graphferry import Graph
from graphferry.algorithms.sssp import sssp, verify_sssp

from conftest import ENGINES, dijkstra_distances, small_budget_options, tiny_budget_options
from shapes import shape_edges, shaped_graphs


def oracle(g: Graph, s: int) -> np.ndarray:
    """scipy Dijkstra on the graph with parallel arcs reduced to their lightest."""
    return dijkstra_distances(g, [s])


@st.composite
def graphs(draw, max_n=100, max_m=400):
    n = draw(st.integers(1, max_n))
    m = draw(st.integers(0, max_m))
    seed = draw(st.integers(0, 2**32 - 1))
    directed = draw(st.booleans())
    kind = draw(st.sampled_from(["unweighted", "real", "int", "zeros"]))
    rng = np.random.default_rng(seed)
    w = {
        "unweighted": None,
        "real": rng.uniform(0, 10, m),
        "int": rng.integers(0, 4, m).astype(float),   # ties and zero-weight edges
        "zeros": np.where(rng.random(m) < 0.5, 0.0, rng.uniform(0, 1, m)),
    }[kind]
    return Graph.from_edges(rng.integers(0, n, m), rng.integers(0, n, m), w, n=n, directed=directed)


def check(g, s, r):
    want = oracle(g, s)
    assert np.array_equal(np.isinf(r.distances), np.isinf(want))
    fin = np.isfinite(want)
    np.testing.assert_allclose(r.distances[fin], want[fin], rtol=1e-12, atol=1e-12)
    verify_sssp(g, s, r.distances)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("direction", ["auto", "push", "pull"])
@settings(max_examples=8, deadline=None)
@given(g=graphs(), data=st.data())
def test_sssp_matches_scipy(engine, direction, g, data):
    s = data.draw(st.integers(0, g.n - 1))
    check(g, s, sssp(g, s, direction=direction, **tiny_budget_options(engine)))


@pytest.mark.parametrize("engine", ENGINES)
@settings(max_examples=6, deadline=None)
@given(g=graphs(), data=st.data(), delta=st.sampled_from([0.5, 3.0, 100.0]))
def test_delta_stepping_matches_scipy(engine, g, data, delta):
    s = data.draw(st.integers(0, g.n - 1))
    check(g, s, sssp(g, s, delta=delta, **tiny_budget_options(engine)))


@settings(max_examples=20, deadline=None)
@given(g=graphs(max_n=40, max_m=150), data=st.data())
def test_matches_networkx(g, data):
    s = data.draw(st.integers(0, g.n - 1))
    G = nx.MultiDiGraph()
    G.add_nodes_from(range(g.n))
    src, dst = g.edges()
    w = np.ones(g.m) if g.weights is None else g.weights.astype(np.float64)
    G.add_weighted_edges_from(zip(src.tolist(), dst.tolist(), w.tolist()))
    want = nx.single_source_dijkstra_path_length(G, s)
    got = sssp(g, s, backend="cpu").distances
    for v in range(g.n):
        assert got[v] == pytest.approx(want[v], rel=1e-12, abs=1e-12) if v in want else np.isinf(got[v])


# ----------------------------------------------------------------------------------------------
# The partition-by-partition traps of the UVM study: with partitions of a few vertices each, the
# engines process a frontier partition after partition; results must not depend on that order.

def padded(src, dst, w, n=100):
    """The trap edges plus 4 heavy self-loops per vertex, so 256-byte partitions hold ~8 vertices."""
    loops = np.repeat(np.arange(n), 4)
    return Graph.from_edges(np.concatenate([src, loops]), np.concatenate([dst, loops]),
                            np.concatenate([np.asarray(w, float), np.full(len(loops), 1000.0)]), n=n)


def trap_graphs():
    # 1. vertex 9 is first reached by a longer path (0->9 weight 100) and later by a shorter one
    #    through vertices that lie in later partitions (0->30->60->9).
    yield ("longer-path-first", padded([0, 0, 30, 60, 9], [9, 30, 60, 9, 90], [100, 1, 1, 1, 2]),
           0, {9: 3.0, 90: 5.0})
    # 2. several predecessors of one vertex in different partitions, offering different distances
    #    in the same round (the smallest must win whatever the order of partitions).
    yield ("several-predecessors", padded([0, 0, 0, 0, 10, 40, 70, 95], [10, 40, 70, 95, 50, 50, 50, 50],
                                          [1, 1, 1, 1, 9, 7, 3, 8]), 0, {50: 4.0})
    # 3. neighbours outside the loaded partition, both directions of the id order, and a
    #    decrease of an already-processed vertex in a later partition of the same round.
    yield ("neighbours-outside-partition", padded([99, 99, 1, 2, 98, 1], [1, 98, 2, 3, 2, 3],
                                                  [5, 1, 1, 1, 1, 10]), 99, {2: 2.0, 3: 3.0, 1: 5.0})
    # 4. a long chain laid out against the partition order (each hop goes to an earlier partition)
    chain = np.arange(99, 20, -3)
    yield "reverse-chain", padded(chain, chain - 3, np.full(len(chain), 0.5)), 99, {18: 13.5}
    # 5. zero-weight edges and a zero-weight cycle
    yield "zero-cycle", padded([0, 1, 2, 2], [1, 2, 1, 60], [0, 0, 0, 0]), 0, {1: 0.0, 2: 0.0, 60: 0.0}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("direction", ["auto", "push", "pull"])
@pytest.mark.parametrize("case", list(trap_graphs()), ids=lambda c: c[0])
def test_partition_traps(case, engine, direction):
    _, g, s, expect = case
    for delta in (None, 1.0):
        r = sssp(g, s, direction=direction, delta=delta, **tiny_budget_options(engine))
        check(g, s, r)
        for v, d in expect.items():
            assert r.distances[v] == d
        touched = {p.partition for step in r.record.edge_steps for p in step.partitions}
        assert len(touched) >= 2  # the work really crossed partitions


def test_unweighted_is_hops():
    g = Graph.from_edges(np.array([0, 1, 2, 0]), np.array([1, 2, 3, 3]), n=5)
    assert sssp(g, 0, backend="cpu").distances.tolist() == [0.0, 1.0, 2.0, 1.0, np.inf]


def test_rejects_bad_weights_and_arguments():
    g = Graph.from_edges(np.array([0, 1]), np.array([1, 2]), np.array([1.0, -2.0]), n=3)
    with pytest.raises(ValueError, match="'graph'.*negative or non-finite"):
        sssp(g, 0, backend="cpu")
    g = Graph.from_edges(np.array([0, 1]), np.array([1, 2]), np.array([np.nan, 2.0]), n=3)
    with pytest.raises(ValueError, match="'graph'"):
        sssp(g, 0, backend="cpu")
    g = Graph.from_edges(np.array([0]), np.array([1]), np.array([1.0]), n=3)
    for bad in (0, -1.0, float("nan"), "2"):
        with pytest.raises(ValueError, match="'delta'"):
            sssp(g, 0, backend="cpu", delta=bad)
    with pytest.raises(KeyError):
        sssp(g, 7, backend="cpu")
    with pytest.raises(TypeError):
        sssp(g, 0, bogus=1)


def test_verifier_catches_errors():
    g = Graph.from_edges(np.array([0, 1]), np.array([1, 2]), np.array([1.0, 1.0]), n=4)
    verify_sssp(g, 0, np.array([0.0, 1.0, 2.0, np.inf]))
    for bad in ([0.0, 1.0, 3.0, np.inf],   # 3 > 1 + 1: an edge is not relaxed
                [0.0, 1.0, 1.5, np.inf],   # not tight
                [0.0, 1.0, np.inf, np.inf],  # unreached but an edge leads there
                [1.0, 1.0, 2.0, np.inf],   # source not at 0
                [0.0, 1.0, 2.0, 7.0]):     # reached without an in-edge
        with pytest.raises(AssertionError):
            verify_sssp(g, 0, np.array(bad))


@pytest.mark.parametrize("delta", [None, 0.25, 3.0, 1000.0, float("inf")])
def test_bucket_widths_agree_with_scipy(delta):
    # delta-stepping with narrow to single-bucket widths (inf: frontier Bellman-Ford)
    from scipy.sparse.csgraph import dijkstra

    rng = np.random.default_rng(11)
    n, m = 300, 2400
    g = Graph.from_edges(rng.integers(0, n, m), rng.integers(0, n, m),
                         rng.integers(0, 20, m).astype(np.float64) / 4, n=n, drop_duplicates=True)
    r = sssp(g, 0, delta=delta, backend="cpu")
    want = dijkstra(g.to_scipy(), indices=0)
    assert np.allclose(r.distances, want)
    verify_sssp(g, 0, r.distances)
    if delta == float("inf"):
        assert r.rounds < 40   # Bellman-Ford: one bucket, rounds ~ hops


@settings(max_examples=10, deadline=None)
@given(case=shaped_graphs(weighted=True), engine=st.sampled_from(ENGINES),
       direction=st.sampled_from(["auto", "push", "pull"]), delta=st.sampled_from([None, 2.0]), data=st.data())
def test_sssp_on_long_deep_hub_and_large_graphs(case, engine, direction, delta, data):
    _, g = case
    s = data.draw(st.integers(0, g.n - 1))
    check(g, s, sssp(g, s, direction=direction, delta=delta, **small_budget_options(engine)))


@pytest.mark.parametrize("engine", ["resident", "filter"])
def test_sssp_reaches_the_end_of_a_long_weighted_path(engine):
    # 1500 hops plus a heavy shortcut: the shortcut's distance must be corrected by the far end
    n = 1500
    src, dst = shape_edges("path", n, np.random.default_rng(0))
    perm = np.random.default_rng(2).permutation(n)
    w = np.r_[np.full(n - 1, 0.5), 10_000.0]
    g = Graph.from_edges(perm[np.r_[src, 0]], perm[np.r_[dst, n - 1]], w, n=n)
    r = sssp(g, int(perm[0]), **small_budget_options(engine))
    np.testing.assert_array_equal(r.distances[perm], 0.5 * np.arange(n))
    verify_sssp(g, int(perm[0]), r.distances)


def test_integer_weights_run_in_exact_float32_and_fall_back_past_2_pow_24():
    from scipy.sparse.csgraph import dijkstra

    rng = np.random.default_rng(5)
    n, m = 200, 1500
    g = Graph.from_edges(rng.integers(0, n, m), rng.integers(0, n, m), rng.integers(1, 256, m).astype(float),
                         n=n, drop_duplicates=True)
    r = sssp(g, 0, backend="cpu")
    assert r.precision == "float32" and r.distances.dtype == np.float64
    assert np.array_equal(r.distances, dijkstra(g.to_scipy(), indices=0))
    # 16777215 + 2 = 2**24 + 1 is not a float32: the run is repeated in float64
    far = Graph.from_edges(np.array([0, 1]), np.array([1, 2]), np.array([16777215.0, 2.0]), n=3)
    r = sssp(far, 0, backend="cpu")
    assert r.precision == "float64" and r.distances.tolist() == [0.0, 16777215.0, 16777217.0]
    # a fractional weight keeps float64 from the start
    frac = Graph.from_edges(np.array([0]), np.array([1]), np.array([0.5]), n=2)
    assert sssp(frac, 0, backend="cpu").precision == "float64"


@pytest.mark.parametrize("dense", [False, True])
@pytest.mark.parametrize("fill", [1, 7, 50, 10**9])
def test_merged_buckets_keep_distances_exact(fill, dense, monkeypatch):
    # a device's PriorityBuckets merges the lowest buckets up to Backend.bucket_fill vertices;
    # every fill (1: plain delta-stepping, huge: Bellman-Ford order) gives scipy's distances
    from scipy.sparse.csgraph import dijkstra

    from graphferry.backends.cpu.backend import CpuBackend

    monkeypatch.setattr(CpuBackend, "bucket_fill", fill)
    monkeypatch.setattr(CpuBackend, "dense_buckets", dense)   # a GPU's layout, run by the CPU backend
    rng = np.random.default_rng(5)
    n, m = 400, 3200
    g = Graph.from_edges(rng.integers(0, n, m), rng.integers(0, n, m),
                         rng.integers(1, 60, m).astype(np.float64), n=n, drop_duplicates=True)
    plain = sssp(g, 0, delta=4.0, backend="cpu")
    assert np.allclose(plain.distances, dijkstra(g.to_scipy(), indices=0))
    verify_sssp(g, 0, plain.distances)
    rounds = {}
    for f in (1, fill):
        monkeypatch.setattr(CpuBackend, "bucket_fill", f)
        rounds[f] = sssp(g, 0, delta=4.0, backend="cpu").rounds
    assert rounds[fill] <= rounds[1]          # merging never adds rounds
    if fill >= n:
        assert rounds[fill] < rounds[1]       # and here it merges every bucket: fewer rounds


def _deferring(monkeypatch, share, price):
    """The CPU backend with a GPU's bucket layout and deferral (Backend.bucket_share, round prices)."""
    from graphferry.backends.cpu.backend import CpuBackend
    from graphferry.runtime import buckets as buckets_module

    monkeypatch.setattr(CpuBackend, "dense_buckets", True)
    monkeypatch.setattr(CpuBackend, "bucket_fill", 1 << 62)
    monkeypatch.setattr(CpuBackend, "bucket_share", share)
    monkeypatch.setattr(CpuBackend, "round_price_resident", price)
    made = []
    init = buckets_module.PriorityBuckets.__init__

    def remember(self, *a, **k):
        init(self, *a, **k)
        made.append(self)

    monkeypatch.setattr(buckets_module.PriorityBuckets, "__init__", remember)
    return made


def _uniform_weighted(n=3000, degree=16, seed=3):
    rng = np.random.default_rng(seed)
    m = n * degree
    return Graph.from_edges(rng.integers(0, n, m), rng.integers(0, n, m),
                            rng.integers(1, 256, m).astype(np.float64), n=n, drop_duplicates=True)


def test_deferring_far_buckets_saves_relaxations_on_a_uniform_graph(monkeypatch):
    # Bellman-Ford's order relaxes a uniform random graph's arcs several times over; a GPU's
    # buckets hold back all but the lowest n/32 vertices a round while the held-back ones keep
    # dropping, and the distances stay scipy's
    g = _uniform_weighted()
    made = _deferring(monkeypatch, 0.0, 0.0)
    every = sssp(g, 0, backend="cpu")
    assert made[-1].deferred_rounds == 0
    made = _deferring(monkeypatch, 1 / 32, 1.0)
    deferred = sssp(g, 0, backend="cpu")
    assert made[-1].deferred_rounds >= 3
    assert np.array_equal(deferred.distances, every.distances)
    assert np.allclose(deferred.distances, oracle(g, 0))
    work = {k: sum(s.active_edges for s in r.record.edge_steps) for k, r in (("every", every), ("deferred", deferred))}
    assert work["deferred"] < 0.6 * work["every"]


def test_deferring_stops_when_a_round_costs_more_than_it_saves(monkeypatch):
    # a binary tree: one path to each vertex, so the vertices held back never drop; after the
    # first deferral the saving is nothing and every later round takes all pending vertices
    n = 3000
    child = np.arange(1, n)
    tree = Graph.from_edges((child - 1) // 2, child,
                            np.random.default_rng(1).integers(1, 256, n - 1).astype(np.float64), n=n)
    made = _deferring(monkeypatch, 1 / 32, 1.0)
    r = sssp(tree, 0, backend="cpu")
    assert made[-1].deferred_rounds == 1 and not made[-1].deferring
    assert np.allclose(r.distances, oracle(tree, 0))
    # a round priced above what the graph's every relaxation could save: no deferral at all
    g = _uniform_weighted()
    made = _deferring(monkeypatch, 1 / 32, float(g.m) * 2)
    r = sssp(g, 0, backend="cpu")
    assert made[-1].deferred_rounds == 0
    assert np.allclose(r.distances, oracle(g, 0))
    # an explicit fill is kept as given: no deferral
    from graphferry.runtime import Program, Runtime
    from graphferry.runtime.buckets import PriorityBuckets

    with Runtime(g, backend="cpu") as rt:
        st = rt.start(Program("defer_fill_test", arrays={"x": "float64"}, source=""), arrays={"x": 1.0})
        assert not PriorityBuckets(st, "x", delta=2.0, fill=5).deferring
        assert PriorityBuckets(st, "x", delta=2.0).deferring
        assert not PriorityBuckets(st, "x", delta=float("inf")).deferring
    # a graph whose hubs hold most edges never defers: the hubs settle distances in a few rounds
    from graphferry.runtime.buckets import hub_share

    rng = np.random.default_rng(2)
    ring = np.arange(3000)
    hubs = Graph.from_edges(np.concatenate([ring, np.repeat(np.arange(10), 1000)]),
                            np.concatenate([(ring + 1) % 3000, rng.integers(0, 3000, 10000)]),
                            rng.integers(1, 256, 13000).astype(np.float64), n=3000)
    assert hub_share(hubs) > 0.5 > 0.1 > hub_share(g)
    made = _deferring(monkeypatch, 1 / 32, 1.0)
    assert np.allclose(sssp(hubs, 0, backend="cpu").distances, oracle(hubs, 0))
    assert made[-1].deferred_rounds == 0 and not made[-1].deferring


@settings(max_examples=30, deadline=None)
@given(g=graphs(max_n=120, max_m=600), data=st.data(), share=st.sampled_from([0.01, 0.1, 0.5]),
       price=st.sampled_from([0.0, 5.0, 1e9]))
def test_deferring_keeps_distances_exact(g, data, share, price):
    # whatever deferral holds back and whenever it stops, the distances are scipy's
    s = data.draw(st.integers(0, g.n - 1))
    with pytest.MonkeyPatch.context() as mp:
        _deferring(mp, share, price)
        r = sssp(g, s, backend="cpu", delta=data.draw(st.sampled_from([None, 1.0, 7.5])))
    check(g, s, r)
