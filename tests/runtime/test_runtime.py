"""The runtime's own pieces: compiler errors, programs, frontiers, direction choice, run record."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from graphferry import Graph
from graphferry.host_ops import compiler
from graphferry.backends.cpu.backend import CpuBackend
from graphferry.host_ops import gather_rows
from graphferry.errors import CompilerError
from graphferry.runtime import Frontier, Program, Runtime
from graphferry.runtime.direction import choose_direction

TOUCH = Program("touch_test", arrays={"seen": "int32"}, source="""
GF_FN bool cond(const State& S, vid_t d) { return S.seen[d] == 0; }
GF_FN bool update_atomic(const State& S, vid_t s, vid_t d, float w) { return gf_cas(&S.seen[d], 0, 1); }
GF_FN bool is_seen(const State& S, vid_t v) { return S.seen[v] != 0; }
""", vertex_functions=("is_seen",))


def test_missing_compiler_is_a_clear_error(monkeypatch):
    compiler.find_compiler.cache_clear()
    monkeypatch.setenv("CXX", "/nonexistent/c++")
    try:
        with pytest.raises(CompilerError, match="needs a C\\+\\+ compiler"):
            compiler.find_compiler()
    finally:
        monkeypatch.delenv("CXX")
        compiler.find_compiler.cache_clear()


def test_program_that_does_not_compile_names_itself(tmp_path, monkeypatch):
    monkeypatch.setenv("GRAPHFERRY_CACHE_DIR", str(tmp_path))
    bad = Program("broken_prog", arrays={"x": "int32"}, source="GF_FN bool cond(const State& S, vid_t d) { return S.nope[d]; }")
    with pytest.raises(CompilerError, match="broken_prog"):
        CpuBackend().compile(bad, np.dtype(np.int32))


def test_compiled_programs_are_cached_on_disk(tmp_path, monkeypatch):
    monkeypatch.setenv("GRAPHFERRY_CACHE_DIR", str(tmp_path))
    CpuBackend().compile(TOUCH, np.dtype(np.int64))
    libs = list((tmp_path / "cpu").glob("touch_test-*.so"))
    assert len(libs) == 1
    mtime = libs[0].stat().st_mtime_ns
    CpuBackend().compile(TOUCH, np.dtype(np.int64))
    assert libs[0].stat().st_mtime_ns == mtime


def test_program_validation():
    with pytest.raises(ValueError, match="unsupported dtype"):
        Program("p", arrays={"x": "complex64"}, source="")
    with pytest.raises(ValueError, match="not defined"):
        Program("p", source="", vertex_functions=("f",))
    assert TOUCH.has_push and not TOUCH.has_pull


_ARRAYS = {"a": "int64", "b": "float64", "c": "int32"}
_COND = "GF_FN bool cond(const State& S, vid_t d) { return S.a[d] < 0; }\n"


@pytest.mark.parametrize("update, want", [
    ("{ S.a[d] = s; S.c[ d ] = (int)S.k; return true; }", ()),                         # BFS-like
    ("{ double x = S.b[s] + w; if (x < S.b[d]) { S.b[d] = x; return true; } return false; }", ("b",)),
    ("{ S.a[d] = S.c[S.a[s]]; return true; }", ("a", "c")),                            # nested index
    ("{ /* S.b[s] */ S.a[d] = 1; // S.c[s]\n return true; }", ()),                     # comments
    ("{ gf_link(S.a, s, d); return false; }", None),                                   # a pointer handed on
    ("{ return helper(S, s, d); }", None),                                             # the state handed on
    ("{ int64_t* p = S.a; p[d] = 1; return true; }", None),
    ("{ AT(a, d) = AT(c, s); return true; }", None),                                   # a macro's arguments
])
def test_pull_source_arrays_reads_the_pull_text(update, want):
    # what a pull touches at vertices other than its destination, or None when the text cannot say
    p = Program("t", arrays=_ARRAYS, scalars={"k": "int64"},
                source=_COND + f"GF_FN bool update(const State& S, vid_t s, vid_t d, float w) {update}\n")
    assert p.pull_source_arrays == want


def test_again_names_vertex_functions_only():
    src = "GF_FN bool emit(const State& S, vid_t v) { return true; }\n"
    assert Program("a", arrays={"x": "int64"}, source=src, vertex_functions=("emit",), again=("emit",)).again
    with pytest.raises(ValueError, match="again names functions"):
        Program("a", arrays={"x": "int64"}, source=src, vertex_functions=("emit",), again=("settle",))


def test_pull_merge_needs_a_summing_fold():
    """pull_merge adds partial folds: a program that declares it without the fold or without
    combine='sum' is refused by name; PageRank's programs declare it."""
    from graphferry.algorithms.pagerank import DELTA_PROGRAMS, LDBC_PROGRAM

    fold = ("GF_FN bool cond(const State& S, vid_t d) { return true; }\n"
            "GF_FN bool update(const State& S, vid_t s, vid_t d, float w) { S.a[d] += 1; return true; }\n"
            "GF_FN double pull_begin(const State& S, vid_t d) { return S.a[d]; }\n"
            "GF_FN void pull_fold(const State& S, double& x, vid_t s, vid_t d, float w) { x += 1; }\n"
            "GF_FN bool pull_end(const State& S, vid_t d, double x) { S.a[d] = x; return true; }\n")
    merge = "GF_FN bool pull_merge(const State& S, vid_t d, double x) { gf_atomic_add(&S.a[d], x); return true; }\n"
    assert Program("m", arrays={"a": "float64"}, source=fold + merge, combine="sum").pull_reduces
    assert not Program("f", arrays={"a": "float64"}, source=fold, combine="sum").pull_reduces
    with pytest.raises(ValueError, match="program m2: pull_merge .* combine='sum'"):
        Program("m2", arrays={"a": "float64"}, source=fold + merge, combine="min")
    with pytest.raises(ValueError, match="program m3: pull_merge"):
        Program("m3", arrays={"a": "float64"}, source=fold.split("GF_FN double pull_begin")[0] + merge, combine="sum")
    assert LDBC_PROGRAM.pull_reduces and all(p.pull_reduces for p in DELTA_PROGRAMS.values())


def test_pull_source_arrays_reads_the_fold_and_its_own_parameter_names():
    src = ("GF_FN bool cond(const State& T, vid_t v) { return true; }\n"
           "GF_FN bool update(const State& T, vid_t u, vid_t v, float w) { T.a[v] += T.b[u]; return true; }\n"
           "GF_FN double pull_begin(const State& T, vid_t v) { return T.b[v]; }\n"
           "GF_FN void pull_fold(const State& T, double& acc, vid_t u, vid_t v, float w) { acc += T.c[u]; }\n"
           "GF_FN bool pull_end(const State& T, vid_t v, double acc) { T.b[v] = acc; return true; }\n")
    assert Program("t", arrays=_ARRAYS, source=src).pull_source_arrays == ("b", "c")
    from graphferry.algorithms.bfs import PROGRAM as BFS

    assert BFS.pull_source_arrays == ()
    hidden = "#define LEVEL(x) T.a[x]\n" + src.replace("T.a[v] += T.b[u]", "LEVEL(v) += 1")
    assert Program("t", arrays=_ARRAYS, source=hidden).pull_source_arrays is None   # a macro hides its index


@settings(max_examples=50, deadline=None)
@given(n=st.integers(1, 300), data=st.data())
def test_frontier_ids_and_bits_round_trip(n, data):
    ids = data.draw(st.lists(st.integers(0, n - 1), max_size=50))
    b = CpuBackend()
    f = Frontier.from_ids(b, n, ids)
    g = Frontier(b, n, bits=f.bits)
    assert g.ids.tolist() == sorted(set(ids)) and len(g) == len(set(ids))
    assert Frontier.all(b, n).ids.tolist() == list(range(n))
    assert len(Frontier(b, n, bits=Frontier.all(b, n).bits)) == n


def test_frontier_rejects_out_of_range():
    with pytest.raises(ValueError, match="outside"):
        Frontier.from_ids(CpuBackend(), 5, [5])


def test_direction_choice_and_forcing():
    class Both:
        has_push = has_pull = True
        name = "both"

    class PushOnly:
        has_push, has_pull, name = True, False, "push-only"

    assert choose_direction(Both(), 1, 10, 1000) == "push"
    assert choose_direction(Both(), 100, 900, 1000) == "pull"
    assert choose_direction(Both(), 100, 900, 1000, force="push") == "push"
    assert choose_direction(PushOnly(), 100, 900, 1000) == "push"
    with pytest.raises(ValueError, match="no pull form"):
        choose_direction(PushOnly(), 1, 1, 10, force="pull")
    with pytest.raises(ValueError, match="auto, push or pull"):
        choose_direction(Both(), 1, 1, 10, force="sideways")


@given(st.lists(st.tuples(st.integers(0, 2_000), st.integers(0, 20_000)), min_size=1, max_size=12))
@settings(max_examples=200, deadline=None)
def test_direction_rule_counts_edges_only_where_it_reads_them(steps):
    """A counting function gives the choices a count gives, and runs only for a step judged by
    its edges or a push after a push (never after a pull: GAPBS's rule reads sizes there)."""
    from graphferry.runtime.direction import DirectionHistory

    class Both:
        has_push = has_pull = True
        name = "both"

    given_counts, lazy = DirectionHistory(m=10_000, n=2_000), DirectionHistory(m=10_000, n=2_000)
    for size, edges in steps:
        calls = []
        before = lazy.last
        want = choose_direction(Both(), size, edges, 10_000, history=given_counts)
        got = choose_direction(Both(), size, lambda: calls.append(1) or edges, 10_000, history=lazy)
        assert got == want and lazy == given_counts
        assert len(calls) <= 1
        if before == "pull":   # pulling on, or the push after a pull: sizes alone
            assert not calls


def test_bfs_on_the_cpu_counts_no_edges_while_it_pulls():
    from graphferry.algorithms.bfs import bfs
    from graphferry.generators import kronecker_graph

    g = kronecker_graph(10, 16, seed=3)
    source = int(np.argmax(np.diff(g.offsets)))
    steps = bfs(g, source, backend="cpu").record.edge_steps
    dirs = [s.direction for s in steps]
    assert "pull" in dirs
    deg = np.diff(g.offsets)
    for prev, s in zip([None] + dirs, steps):
        if prev == "pull":
            assert s.active_edges == -1   # runtime.NOT_COUNTED: a pull, or the push after one
        elif s.direction == "push":
            assert s.active_edges >= 0
    assert steps[0].active_edges == int(deg[source])


def test_vertex_map_and_record():
    g = Graph.from_edges(np.array([0, 1, 2]), np.array([1, 2, 3]), n=5)
    with Runtime(g, backend="cpu", partition_bytes=4) as rt:
        st_ = rt.start(TOUCH, arrays={"seen": np.array([1, 0, 0, 0, 0], np.int32)})
        f = rt.frontier([0])
        while f:
            f = st_.edge_map(f)
        seen = st_.vertex_map("is_seen")
    assert seen.ids.tolist() == [0, 1, 2, 3]
    rec = rt.record
    assert rec.iterations == 4  # three hops, then one map that finds nothing new
    assert [s.active_vertices for s in rec.edge_steps] == [1, 1, 1, 1]
    assert all(len(s.partitions) == 1 for s in rec.edge_steps)  # 4-byte partitions: one vertex each
    assert rec.to_dict()["steps"][0]["direction"] == "push"


def test_gather_rows_matches_numpy():
    rng = np.random.default_rng(0)
    g = Graph.from_edges(rng.integers(0, 50, 400), rng.integers(0, 50, 400), rng.random(400), n=50)
    ids = np.array([3, 7, 7, 49, 0])
    off, idx, w = gather_rows(g.offsets, g.indices, g.weights, ids)
    assert idx.tolist() == np.concatenate([g.neighbors(v) for v in ids]).tolist()
    assert np.array_equal(w, np.concatenate([g.edge_weights(v) for v in ids]))
    assert off[-1] == len(idx)


def test_bad_state_shapes_are_refused():
    g = Graph.from_edges(np.array([0]), np.array([1]), n=2)
    with Runtime(g, backend="cpu") as rt:
        with pytest.raises(ValueError, match="must have 2 entries"):
            rt.start(TOUCH, arrays={"seen": np.zeros(3, np.int32)})
        with pytest.raises(ValueError, match="no arrays"):
            rt.start(TOUCH, arrays={"other": 0})
        with pytest.raises(ValueError, match="unknown engine"):
            Runtime(g, backend="cpu", engine="teleport")


@settings(max_examples=100, deadline=None)
@given(values=st.lists(st.integers(-2**40, 2**40), max_size=60), small=st.booleans())
def test_count_distinct_equals_numpy_unique(values, small):
    from graphferry.host_ops import count_distinct

    a = np.array(values, np.int64) % 50 if small else np.array(values, np.int64)   # the table path, the sort path
    assert count_distinct(a) == len(np.unique(a))
    assert count_distinct(a.astype(np.float64)) == len(np.unique(a.astype(np.float64)))


@settings(max_examples=100, deadline=None)
@given(degrees=st.lists(st.integers(0, 5), min_size=1, max_size=40), data=st.data())
def test_rows_of_equals_searchsorted(degrees, data):
    from graphferry.host_ops import rows_of

    offsets = np.concatenate([[0], np.cumsum(degrees)]).astype(np.int64)
    if offsets[-1] == 0:
        return
    pos = np.array(data.draw(st.lists(st.integers(0, int(offsets[-1]) - 1), max_size=30)), np.int64)
    assert rows_of(offsets, pos).tolist() == (np.searchsorted(offsets, pos, side="right") - 1).tolist()


def test_a_backends_full_pull_fraction_decides_where_a_program_that_reads_every_edge_pulls(monkeypatch):
    """PageRank's delta form never stops a pull early: it pulls once its frontier's edges pass the
    backend's ``full_pull_fraction_for`` it (for a summing program 0.3 on the CPU, 2/3 on a GPU) of
    m; the ranks are the same. Programs that do not sum keep the backend's full_pull_fraction."""
    from graphferry.algorithms import pagerank
    from graphferry.backends.cpu.backend import CpuBackend
    from graphferry.generators import kronecker_graph

    g = kronecker_graph(10, seed=2)
    directions, ranks = {}, {}
    for fraction in (1.0, 0.0):
        monkeypatch.setattr(CpuBackend, "full_pull_fraction_sum", fraction)
        r = pagerank(g, tol=1e-6, backend="cpu", start="uniform")
        directions[fraction] = [s.direction for s in r.record.edge_steps]
        ranks[fraction] = r.ranks
    assert "push" in directions[1.0] and set(directions[0.0]) == {"pull"}
    np.testing.assert_allclose(ranks[0.0], ranks[1.0], atol=1e-6)
    from graphferry.algorithms.pagerank import DELTA_PROGRAMS
    from graphferry.algorithms.sssp import PROGRAM as SSSP

    monkeypatch.undo()
    cpu = CpuBackend()
    assert cpu.full_pull_fraction_for(DELTA_PROGRAMS["float64"]) == 0.3
    assert cpu.full_pull_fraction_for(SSSP) == cpu.full_pull_fraction == 1.0
    # the default pulls in more of the classic delta form's rounds than pulling only past every edge
    default = [s.direction for s in pagerank(g, tol=1e-6, backend="cpu", start="uniform").record.edge_steps]
    assert default.count("pull") > directions[1.0].count("pull")


@pytest.mark.parametrize("engine", ["resident", "hybrid"])
def test_a_frontier_counted_to_every_vertex_hands_the_kernels_no_bitmap(monkeypatch, engine):
    """Delta PageRank's first rounds hold every vertex: its frontier, an edge map's output counted
    to n, is then the whole set (``is_all``), and pulls test no bitmap for it; partial frontiers
    still hand theirs. The ranks are those of a run that tested every edge."""
    import graphferry as gf
    from graphferry.algorithms.pagerank import pagerank
    from graphferry.generators import kronecker_graph

    b = CpuBackend()
    full = Frontier(b, 70, bits=Frontier.all(b, 70).bits)
    assert not full.is_all and len(full) == 70 and full.is_all
    part = Frontier.from_ids(b, 70, range(69))
    assert len(part) == 69 and not part.is_all

    g = kronecker_graph(9, seed=5)
    want = pagerank(g, tol=1e-6, backend="cpu", start="uniform").ranks
    lg = gf.load(g, backend="cpu", budget=None if engine == "resident" else g.edge_bytes // 2)
    from graphferry.backends.cpu.backend import CpuProgram

    seen = []
    pull = CpuProgram.pull

    def spy(self, tables, view, row_list, in_bits, out_bits):
        seen.append(in_bits is None)
        return pull(self, tables, view, row_list, in_bits, out_bits)

    monkeypatch.setattr(CpuBackend, "full_pull_fraction_sum", 0.0)  # every round pulls
    monkeypatch.setattr(CpuProgram, "pull", spy)
    r = pagerank(lg, tol=1e-6, engine=engine, start="uniform")  # every vertex active from the start
    steps = r.record.edge_steps
    assert steps[0].active_vertices == g.n and steps[-1].active_vertices < g.n
    assert True in seen and False in seen  # full rounds without the bitmap, partial ones with it
    np.testing.assert_allclose(r.ranks, want, atol=1e-6)
