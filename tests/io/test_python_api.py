"""The Python entry points: graphferry.from_file / from_scipy / from_networkx / from_pandas / from_arrow,
Result.to_pandas and the shared ReadOptions.

Oracles are not our code: files are written by networkx, scipy, pandas and
pyarrow, and graphs compared with networkx / scipy views of the same input.
"""

from __future__ import annotations

import sys

import networkx as nx
import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import scipy.io
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import graphferry as gf
from graphferry import Graph
from graphferry.algorithms import bfs, minimum_spanning_forest, sssp
from graphferry.errors import InputError
from graphferry.io import ReadOptions, read_graph

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def test_the_constructors_are_io_functions_offered_at_the_top_level():
    # graph.py imports neither io nor the store (test_code_shape's cycles): the constructors are io's
    import graphferry.io as io

    assert gf.from_file is io.read_graph and gf.from_networkx is io.from_networkx
    assert {gf.from_scipy, gf.from_pandas, gf.from_arrow} == {io.from_scipy, io.from_pandas, io.from_arrow}
    assert not any(hasattr(Graph, name) for name in ("from_file", "from_scipy", "from_networkx"))


def arcs(g: Graph) -> list[tuple]:
    """The graph's arcs in the input's ids, with weights (sorted by repr: labels of mixed types)."""
    src, dst = g.edges()
    s, d = g.to_original_ids(src).tolist(), g.to_original_ids(dst).tolist()
    w = g.weights.tolist() if g.weighted else [None] * len(s)
    return sorted(zip(s, d, w), key=repr)


def nx_arcs(G, weight: str | None = None) -> list[tuple]:
    """The same, from NetworkX: an undirected edge gives both arcs (a self-loop one)."""
    out = []
    for u, v, data in G.edges(data=True):
        w = None if weight is None else float(np.float32(data.get(weight, 1.0)))
        out.append((u, v, w))
        if not G.is_directed() and u != v:
            out.append((v, u, w))
    return sorted(out, key=repr)


# ------------------------------------------------------------------ from_file
def random_nx(seed: int, directed: bool, n: int = 30, p: float = 0.15) -> nx.Graph:
    G = nx.gnp_random_graph(n, p, seed=seed, directed=directed)
    rng = np.random.default_rng(seed)
    for u, v in G.edges:
        G[u][v]["weight"] = float(rng.integers(1, 9))
    return G


@pytest.mark.parametrize("directed", [True, False])
def test_from_file_reads_what_networkx_writes(tmp_path, directed):
    G = random_nx(1, directed)
    path = tmp_path / "g.el"
    nx.write_weighted_edgelist(G, path)
    g = gf.from_file(path, directed=directed, n=G.number_of_nodes())
    assert arcs(g) == nx_arcs(G, "weight")


def test_from_file_matrix_market_written_by_scipy(tmp_path):
    a = sp.random(40, 40, density=0.1, random_state=3, format="coo") * 10
    scipy.io.mmwrite(tmp_path / "a.mtx", a)
    g = gf.from_file(tmp_path / "a.mtx")
    assert g.directed and (abs(g.to_scipy() - sp.csr_array(a).astype(np.float32)) > 1e-5).nnz == 0


def test_from_file_csv_and_parquet_written_by_pandas(tmp_path):
    df = pd.DataFrame({"a": ["x", "y", "z", "x"], "b": ["y", "z", "x", "z"], "cost": [1.0, 2.0, 3.0, 4.0]})
    df.to_csv(tmp_path / "e.csv", index=False)
    df.to_parquet(tmp_path / "e.parquet", index=False)
    want = nx_arcs(nx.from_pandas_edgelist(df, "a", "b", "cost", create_using=nx.DiGraph), "cost")
    for name in ("e.csv", "e.parquet"):
        g = gf.from_file(tmp_path / name, src="a", dst="b", renumber=True)
        assert g.meta["weight_column"] == "cost" and arcs(g) == want


def test_from_file_errors(tmp_path):
    with pytest.raises(InputError, match="file not found"):
        gf.from_file(tmp_path / "none.mtx")
    (tmp_path / "g.el").write_text("0 1\n1 x\n")
    with pytest.raises(InputError, match=r"g\.el:2: .*non-numeric"):
        gf.from_file(tmp_path / "g.el")
    with pytest.raises(ValueError, match="unknown format 'xml'"):
        gf.from_file(tmp_path / "g.el", format="xml")
    with pytest.raises(TypeError, match=r"unknown read option\(s\) \['drop_dupes'\]"):
        gf.from_file(tmp_path / "g.el", drop_dupes=True)


# -------------------------------------------------------------- ReadOptions
def test_read_options_object_and_keywords_agree(tmp_path):
    path = tmp_path / "g.el"
    path.write_text("0 1\n1 0\n1 2\n2 2\n")
    opts = ReadOptions(directed=False, drop_duplicates=True, drop_self_loops=True)
    by_object = read_graph(path, options=opts)
    by_keywords = read_graph(path, directed=False, drop_duplicates=True, drop_self_loops=True)
    assert arcs(by_object) == arcs(by_keywords) == [(0, 1, None), (1, 0, None), (1, 2, None), (2, 1, None)]
    # a keyword overrides the object
    assert read_graph(path, options=opts, directed=True).directed


@pytest.mark.parametrize("option, fmt", [("renumber", "mtx"), ("n", "gr"), ("drop_self_loops", "ldbc"),
                                         ("directed", "networkx")])
def test_read_options_a_format_cannot_honour_are_refused_by_name(tmp_path, option, fmt):
    value = 5 if option == "n" else True
    if fmt == "networkx":
        with pytest.raises(ValueError, match=f"{option} is not an option of the 'networkx' reader"):
            gf.from_networkx(nx.path_graph(3), **{option: value})
        return
    files = {"mtx": "a.mtx", "gr": "a.gr", "ldbc": "a.properties"}
    with pytest.raises(ValueError, match=f"{option} is not an option of the '{fmt}' reader"):
        read_graph(tmp_path / files[fmt], format=fmt, **{option: value})


@pytest.mark.parametrize("option, value, message", [
    ("directed", "no", "directed must be True, False or None"),
    ("drop_duplicates", None, "drop_duplicates must be True or False"),
    ("n", -1, "n must be a non-negative integer or None, got -1"),
    ("n", 2.0, "n must be a non-negative integer or None, got 2.0"),
])
def test_read_option_values_are_checked_once_at_the_boundary(tmp_path, option, value, message):
    df = pd.DataFrame({"source": [0], "target": [1]})
    for call in (lambda: gf.from_pandas(df, **{option: value}),
                 lambda: gf.from_file(tmp_path / "absent.el", **{option: value})):
        with pytest.raises(ValueError, match=message):
            call()


def test_store_option_writes_a_store(tmp_path):
    G = random_nx(2, False)
    g = gf.from_networkx(G, store=tmp_path / "s")
    again = gf.from_file(tmp_path / "s")
    assert again.meta["store"].endswith("s") and arcs(again) == arcs(g) == nx_arcs(G, "weight")


# ---------------------------------------------------------------- from_scipy
@SETTINGS
@given(st.integers(1, 25), st.floats(0.0, 0.5), st.integers(0, 2**31 - 1))
def test_from_scipy_round_trips(n, density, seed):
    rng = np.random.default_rng(seed)
    a = sp.random_array((n, n), density=density, rng=rng, format="csr",
                        data_sampler=lambda size: rng.integers(1, 9, size)).astype(np.float32)
    g = gf.from_scipy(a)
    assert g.weighted == bool((a.data != 1).any())
    assert (g.to_scipy() != a).nnz == 0
    sym = sp.csr_array(a + a.T)
    u = gf.from_scipy(sym, directed=False)
    assert not u.directed and (u.to_scipy() != sym).nnz == 0
    assert arcs(u) == nx_arcs(nx.from_scipy_sparse_array(sym), "weight" if u.weighted else None)


def test_from_scipy_errors():
    with pytest.raises(InputError, match="square"):
        gf.from_scipy(sp.csr_array(np.ones((2, 3))))
    with pytest.raises(InputError, match="not symmetric"):
        gf.from_scipy(sp.csr_array(np.array([[0, 1.0], [0, 0]])), directed=False)
    with pytest.raises(ValueError, match="renumber is not an option of the 'scipy' reader"):
        gf.from_scipy(sp.eye(2), renumber=True)


# ------------------------------------------------------------- from_networkx
labels = st.one_of(st.integers(-2**40, 2**40), st.text(max_size=4),
                   st.tuples(st.integers(0, 3), st.text(max_size=2)), st.frozensets(st.integers(0, 3), max_size=2))


@st.composite
def labelled_graphs(draw):
    """A random (Di)Graph whose nodes are arbitrary hashables: all ints, all strings, or mixed."""
    kind = draw(st.sampled_from(["int", "str", "mixed"]))
    label = {"int": st.integers(-2**40, 2**40), "str": st.text(max_size=4), "mixed": labels}[kind]
    nodes = draw(st.lists(label, min_size=1, max_size=12, unique_by=lambda v: (type(v).__name__, v)))
    nodes = list(dict.fromkeys(nodes))  # 1 and True, 0 and '' differ here; NetworkX's dict keeps one of equals
    directed = draw(st.booleans())
    G = nx.DiGraph() if directed else nx.Graph()
    G.add_nodes_from(nodes)
    pairs = draw(st.lists(st.tuples(st.integers(0, len(nodes) - 1), st.integers(0, len(nodes) - 1)),
                          max_size=30))
    weighted = draw(st.booleans())
    for i, j in pairs:
        G.add_edge(nodes[i], nodes[j], **({"weight": draw(st.integers(1, 100))} if weighted else {}))
    return G


@SETTINGS
@given(labelled_graphs())
def test_from_networkx_round_trips_any_hashable_labels(G):
    g = gf.from_networkx(G)
    weighted = G.number_of_edges() > 0 and "weight" in next(iter(G.edges(data=True)))[2]
    assert g.n == G.number_of_nodes() and g.directed == G.is_directed() and g.weighted == weighted
    assert arcs(g) == nx_arcs(G, "weight" if weighted else None)
    for i, v in enumerate(G.nodes):  # every label maps to its vertex and back
        assert g.to_internal_id(v) == i
        assert g.to_original_ids(np.array([i]))[0] == v


def test_from_networkx_results_speak_the_labels():
    G = nx.Graph([(("a", 1), "b", {"weight": 2.0}), ("b", 3, {"weight": 1.0}), (3, ("a", 1), {"weight": 5.0})])
    r = sssp(gf.from_networkx(G), ("a", 1), backend="cpu")
    df = r.to_pandas()
    want = nx.single_source_dijkstra_path_length(G, ("a", 1))
    assert dict(zip(df["vertex"], df["distances"])) == want
    with pytest.raises(KeyError, match="not in the graph"):
        gf.from_networkx(G).to_internal_id(("a", 2))


def test_from_networkx_keeps_labels_numpy_strings_cannot_hold():
    G = nx.Graph([("a", "a\x00")])  # numpy's str arrays would drop the NUL and merge the two
    g = gf.from_networkx(G)
    assert g.n == 2 and g.to_internal_id("a\x00") == 1 and arcs(g) == nx_arcs(G)


def test_from_networkx_weight_errors():
    G = nx.Graph([(0, 1, {"weight": "heavy"})])
    with pytest.raises(InputError, match="non-numeric edge weight attribute 'weight'"):
        gf.from_networkx(G)
    assert not gf.from_networkx(G, weight=None).weighted
    with pytest.raises(ValueError, match="weighted=True needs weight="):
        gf.from_networkx(G, weight=None, weighted=True)


# --------------------------------------------------------------- from_pandas
@st.composite
def edge_frames(draw):
    ids = draw(st.sampled_from(["int", "str"]))
    label = st.integers(0, 40) if ids == "int" else st.text(min_size=1, max_size=3).filter(
        lambda t: not t.endswith("\x00"))  # refused: numpy strings cannot hold them
    rows = draw(st.lists(st.tuples(label, label, st.floats(0.5, 100, width=32)), max_size=25))
    return pd.DataFrame(rows, columns=["u", "v", "w"]).astype({"u": object if ids == "str" else "int64",
                                                              "v": object if ids == "str" else "int64"})


@SETTINGS
@given(edge_frames(), st.booleans())
def test_from_pandas_matches_networkx(df, directed):
    g = gf.from_pandas(df, source="u", target="v", weight="w", directed=directed)
    G = nx.from_pandas_edgelist(df, "u", "v", "w", create_using=nx.MultiDiGraph if directed else nx.MultiGraph)
    assert arcs(g) == nx_arcs(G, "w")
    if len(df) and df["u"].dtype == object:
        assert g.original_ids.tolist() == sorted(set(df["u"]) | set(df["v"]))


def test_from_pandas_integer_ids_are_used_as_given_or_renumbered():
    df = pd.DataFrame({"source": [5, 0], "target": [0, 2]})
    g = gf.from_pandas(df)
    assert g.n == 6 and g.original_ids is None
    r = gf.from_pandas(df, renumber=True)
    assert r.n == 3 and r.original_ids.tolist() == [0, 2, 5] and arcs(r) == arcs(g)
    nullable = df.astype("Int64")
    assert arcs(gf.from_pandas(nullable)) == arcs(g)


@pytest.mark.parametrize("frame, kwargs, message", [
    ({"a": [0], "b": [1]}, {}, r"source='source': no such column \(columns: 'a', 'b'\)"),
    ({"source": [0], "target": [1]}, {"weight": "w"}, r"weight='w': no such column"),
    ({"source": [0, None], "target": [1, 2]}, {}, r"source column 'source': missing value \(row 1\)"),
    ({"source": [0.5], "target": [1.0]}, {}, r"source column 'source': dtype float64; vertex ids must be"),
    ({"source": [True], "target": [False]}, {}, r"source column 'source': dtype bool"),
    ({"source": [0, -3], "target": [1, 2]}, {}, r"negative vertex id -3 \(row 1\); pass renumber=True"),
    ({"source": [0, "a"], "target": [1, 2]}, {}, r"values of type int, str; vertex ids must be all integers"),
    ({"source": ["a"], "target": ["b"]}, {"renumber": False}, r"string vertex ids need renumbering"),
    ({"source": [0], "target": ["b"]}, {}, r"hold different id types"),
    ({"source": ["a\x00"], "target": ["b"]}, {}, r"id 'a\\x00' \(row 0\) ends in a NUL character"),
    ({"source": [0, 1], "target": [1, 2], "w": [1.0, np.inf]}, {"weight": "w"},
     r"weight column 'w': weight inf \(row 1\) is not a finite float32"),
    ({"source": [0], "target": [1], "w": ["x"]}, {"weight": "w"}, r"weight column 'w': dtype .*must be numbers"),
    ({"source": [0], "target": [1]}, {"weighted": True}, r"weighted=True needs weight="),
    ({"source": [0], "target": [5]}, {"n": 3}, r"vertex id 5 \(row 0\) is not below n = 3"),
    ({"source": [0], "target": [0]}, {"target": "source"}, r"source and target name the same column"),
])
def test_from_pandas_errors_name_the_argument(frame, kwargs, message):
    with pytest.raises(ValueError, match=message):
        gf.from_pandas(pd.DataFrame(frame), **kwargs)


def test_from_pandas_wants_a_data_frame():
    with pytest.raises(TypeError, match="df must be a pandas DataFrame, got dict"):
        gf.from_pandas({"source": [0], "target": [1]})


# ---------------------------------------------------------------- from_arrow
class CapsuleOnly:
    """Exports a table through the PyCapsule stream protocol and nothing else (as polars or DuckDB do)."""

    def __init__(self, table):
        self._table = table

    def __arrow_c_stream__(self, requested_schema=None):
        return self._table.__arrow_c_stream__(requested_schema)


def test_from_arrow_reads_every_exporter_alike():
    df = pd.DataFrame({"source": ["a", "b", "c", "a"], "target": ["b", "c", "a", "c"], "w": [1.0, 2.0, 3.0, 4.0]})
    table = pa.Table.from_pandas(df, preserve_index=False)
    want = arcs(gf.from_pandas(df, weight="w"))
    chunked = pa.Table.from_batches(table.to_batches(max_chunksize=1))
    for data in (table, chunked, table.to_batches()[0], pa.RecordBatchReader.from_batches(table.schema,
                 chunked.to_batches()), CapsuleOnly(chunked), df,
                 table.set_column(0, "source", pa.compute.dictionary_encode(table["source"]))):
        assert arcs(gf.from_arrow(data, weight="w")) == want, type(data)


def test_from_arrow_errors_count_rows_across_batches():
    table = pa.Table.from_batches(pa.table({"source": [0, 1, 2, 3], "target": [1, 2, -3, 0]})
                                  .to_batches(max_chunksize=2))
    with pytest.raises(ValueError, match=r"target column 'target': negative vertex id -3 \(row 2\)"):
        gf.from_arrow(table)
    with pytest.raises(ValueError, match=r"missing value \(row 3\)"):
        gf.from_arrow(pa.table({"source": [0, 1, 2, None], "target": [1, 2, 0, 1]}))
    with pytest.raises(ValueError, match=r"source column 'source': Arrow type double"):
        gf.from_arrow(pa.table({"source": [0.5], "target": [1.0]}))
    with pytest.raises(ValueError, match=r"target='dst': no such column \(columns: 'source', 'target'\)"):
        gf.from_arrow(pa.table({"source": [0], "target": [1]}), target="dst")
    with pytest.raises(TypeError, match="data must export Arrow data"):
        gf.from_arrow([(0, 1)])


def test_from_arrow_without_pyarrow_says_how_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "pyarrow", None)  # import pyarrow now raises ImportError
    with pytest.raises(ImportError, match=r"graphferry\.from_arrow needs pyarrow: pip install 'graphferry\[tables\]'"):
        gf.from_arrow(CapsuleOnly(None))


# ----------------------------------------------------------------- to_pandas
def test_to_pandas_has_the_input_ids_and_networkx_answers():
    G = random_nx(4, False)
    mapping = {v: f"v{v}" for v in G}
    G = nx.relabel_nodes(G, mapping)
    df = nx.to_pandas_edgelist(G)
    g = gf.from_pandas(df, weight="weight", directed=False)
    result = bfs(g, "v0", backend="cpu").to_pandas()
    want = nx.single_source_shortest_path_length(G, "v0")
    reached = result[result["levels"] >= 0]
    assert dict(zip(reached["vertex"], reached["levels"])) == want
    # parents are input ids too: each reached vertex's parent is a neighbour one level up
    for v, level, parent in zip(reached["vertex"], reached["levels"], reached["parents"]):
        if v != "v0":
            assert G.has_edge(parent, v) and want[parent] == level - 1


def test_edge_result_to_pandas_is_networkx_spanning_forest():
    G = nx.relabel_nodes(random_nx(5, False), lambda v: v * 10 + 7)
    g = gf.from_networkx(G)
    df = minimum_spanning_forest(g, backend="cpu").to_pandas()
    assert list(df.columns) == ["source", "target", "weight"]
    assert all(G.has_edge(u, v) for u, v in zip(df["source"], df["target"]))
    want = nx.minimum_spanning_tree(G).size(weight="weight")
    assert df["weight"].sum() == pytest.approx(want)


def test_to_pandas_without_pandas_says_how_to_install(monkeypatch):
    r = bfs(Graph.from_edges([0], [1], n=2), 0, backend="cpu")
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(ImportError, match="Result.to_pandas needs pandas: pip install pandas"):
        r.to_pandas()
