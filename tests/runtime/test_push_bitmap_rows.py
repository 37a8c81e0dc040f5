"""A push edge_map from a frontier that is only a bitmap (the host engine's rows filtered by it, no id list)."""

import numpy as np
from hypothesis import given, settings, strategies as st

from graphferry import Graph
from graphferry.backends.cpu.backend import CpuBackend
from graphferry.runtime import Frontier, Program, Runtime

# count[d] += 1 for every arc s -> d with s active; every head counted is in the output frontier
COUNT = Program("push_count_test", arrays={"count": "int64"}, source="""
GF_FN bool cond(const State& S, vid_t d) { return true; }
GF_FN bool update_atomic(const State& S, vid_t s, vid_t d, float w) { gf_atomic_add(&S.count[d], (int64_t)1); return true; }
""")


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 400), m=st.integers(0, 3000), density=st.sampled_from([0.0, 0.01, 0.05, 0.3, 0.9, 1.0]),
       seed=st.integers(0, 2**32 - 1), directed=st.booleans())
def test_push_from_a_bitmap_counts_every_active_arc(n, m, density, seed, directed):
    rng = np.random.default_rng(seed)
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    g = Graph.from_edges(src, dst, n=n, directed=directed)
    active = rng.random(n) < density
    be = CpuBackend()
    bits = be.bits_from_ids(np.flatnonzero(active), n)
    gs, gd = g.edges()
    want = np.bincount(gd[active[gs]], minlength=n)
    for engine in ("host", "filter"):
        with Runtime(g, backend="cpu", engine=engine, direction="push") as rt:
            st_ = rt.start(COUNT)
            frontier = Frontier(rt.backend, n, bits=bits.copy())   # a bitmap only, as an edge_map returns
            dense = frontier.prefers_bitmap()
            out = st_.edge_map(frontier)
            got = st_.host("count")
            assert np.array_equal(got, want), engine
            assert out.ids.tolist() == np.flatnonzero(want).tolist()
            step = rt.record.edge_steps[-1]
            if engine == "host" and dense and step.partitions:
                assert step.partitions[0].rows == int(active.sum())   # rows: the active ones, not the side's
