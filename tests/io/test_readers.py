"""Readers: round trips against networkx/scipy/numpy oracles, line-accurate errors, atomicity."""

from __future__ import annotations

import gzip
import os
import struct
from collections import Counter
from pathlib import Path

import networkx as nx
import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import DATASETS, LDBC_GRAPHS, need_shared
from graphferry.errors import InputError
from graphferry.io import (detect_format, from_arrays, from_networkx, from_scipy, read_csv_edges,
                           read_edgelist, read_gr, read_graph, read_ldbc, read_matrix_market,
                           read_parquet_edges, to_networkx, write_edgelist, write_gr,
                           write_parquet_edges)
from graphferry.io import _text
from graphferry.store import open_store

ARROW = [True, False, None]  # pyarrow fast path, the numpy fallback, the compiled path where it applies


def _arcs(g, original=False):
    src = np.repeat(np.arange(g.n), np.diff(np.asarray(g.offsets)))
    dst = np.asarray(g.indices)
    if original and g.original_ids is not None:
        src, dst = g.original_ids[src], g.original_ids[dst]
    w = np.asarray(g.weights).tolist() if g.weighted else [None] * g.m
    return Counter(zip(src.tolist(), dst.tolist(), w))


def _nx_arcs(G, weight=None):
    out = Counter()
    for u, v, d in G.edges(data=True):
        x = None if weight is None else float(np.float32(d.get(weight, 1.0)))
        out[(u, v, x)] += 1
        if not G.is_directed() and u != v:
            out[(v, u, x)] += 1
    return out


def _no_leftovers(parent: Path) -> bool:
    return not [p for p in parent.iterdir() if p.name.startswith(".")]


# ------------------------------------------------------------------ edge lists
@st.composite
def edge_files(draw):
    n = draw(st.integers(1, 30))
    k = draw(st.integers(0, 80))
    seed = draw(st.integers(0, 2**16))
    rng = np.random.default_rng(seed)
    src, dst = rng.integers(0, n, k), rng.integers(0, n, k)
    weighted = draw(st.booleans())
    w = np.round(rng.normal(size=k) * 100, 3) if weighted else None
    return n, src, dst, w, draw(st.sampled_from([" ", "\t", "  ", " \t"])), \
        draw(st.booleans()), draw(st.booleans()), draw(st.booleans()), draw(st.booleans())


def _write_text(path, src, dst, w, sep, comments, crlf, gz, header):
    lines = [header] if header else []
    for i in range(len(src)):
        if comments and i % 7 == 3:
            lines.append("% interleaved comment 1 2")
            lines.append("")
        fields = [str(src[i]), str(dst[i])] + ([repr(float(w[i]))] if w is not None else [])
        lines.append((" " if comments and i % 5 == 0 else "") + sep.join(fields))
    text = ("\r\n" if crlf else "\n").join(lines) + "\n"
    if gz:
        with gzip.open(path, "wt", newline="") as f:
            f.write(text)
    else:
        with open(path, "w", newline="") as f:
            f.write(text)


@settings(max_examples=40, deadline=None)
@given(case=edge_files(), arrow=st.sampled_from(ARROW), directed=st.booleans())
def test_edgelist_round_trip(tmp_path_factory, case, arrow, directed):
    n, src, dst, w, sep, comments, crlf, gz, use_header = case
    d = tmp_path_factory.mktemp("el")
    path = d / ("g.txt.gz" if gz else "g.txt")
    kind = "directed" if directed else "undirected"
    header = f"# rnd | {kind} | n={n} | hypothesis" if use_header else None
    _write_text(path, src, dst, w, sep, comments, crlf, gz, header)
    g = read_edgelist(path, directed=None if use_header else directed, use_arrow=arrow,
                      block_bytes=64, store=d / "s")
    G = (nx.MultiDiGraph if directed else nx.MultiGraph)()
    G.add_nodes_from(range(n if use_header else (max(src.max(), dst.max()) + 1 if len(src) else 0)))
    for i in range(len(src)):
        G.add_edge(int(src[i]), int(dst[i]), **({"weight": w[i]} if w is not None else {}))
    assert g.n == G.number_of_nodes() and g.directed == directed
    assert _arcs(g) == _nx_arcs(G, "weight" if w is not None else None)
    assert _arcs(open_store(d / "s", verify=True)) == _arcs(g)


@pytest.mark.parametrize("path", sorted(DATASETS.glob("*.el")), ids=lambda p: p.name)
def test_shared_datasets_match_networkx(path):
    head = path.open().readline()
    directed = "| directed |" in head
    n = int(head.split("n=")[1].split()[0])
    weighted = len(path.open().readlines()[1].split()) > 2
    G = nx.read_edgelist(path, nodetype=int, data=[("weight", float)] if weighted else False,
                         create_using=nx.MultiDiGraph if directed else nx.MultiGraph)
    G.add_nodes_from(range(n))
    g = read_edgelist(path)
    assert g.n == n and g.directed == directed and g.weighted == weighted
    assert g.name == path.stem
    assert _arcs(g) == _nx_arcs(G, "weight" if weighted else None)


BAD_LINES = [
    ("0 1\n1\n", 2, "too few columns"),
    ("0 1\n1 x\n", 2, "non-numeric target vertex id 'x'"),
    ("0 1\n2 3\n-1 2\n", 3, "negative vertex id -1"),
    ("0 1 1.0\n1 2 nan\n", 2, "not a finite"),
    ("0 1 1.0\n1 2 inf\n", 2, "not a finite"),
    ("0 1 1.0\n1 2 1e40\n", 2, "not a finite"),
    ("0 1 1.0\n1 2 heavy\n", 2, "non-numeric weight 'heavy'"),
    ("0 1 2\n1 2\n", 2, "too few columns"),
    ("# g | directed | n=3 | x\n0 1\n1 3\n", 3, "exceeds 2"),
    ("# Nodes: 3 Edges: 5\n0 1\n1 2\n", 1, "promises 5 edges"),
    ("% asym unweighted\n% 4 3 3\n1 2\n2 3\n", 2, "promises 4 edges"),
    ("% sym unweighted\n1 2\n0 3\n", 3, "below 1"),
    ("0 1\n1.5 2\n", 2, "non-numeric source vertex id '1.5'"),
]


@pytest.mark.parametrize("arrow", ARROW)
@pytest.mark.parametrize("text,line,problem", BAD_LINES)
def test_edgelist_errors_name_the_line(tmp_path, text, line, problem, arrow):
    path = tmp_path / "bad.el"
    path.write_text(text)
    with pytest.raises(InputError, match=problem) as e:
        read_edgelist(path, use_arrow=arrow, store=tmp_path / "s")
    assert e.value.line == line and e.value.path == str(path)
    assert str(e.value).startswith(f"{path}:{line}: ")
    assert not (tmp_path / "s").exists() and _no_leftovers(tmp_path)


@pytest.mark.parametrize("arrow", ARROW)
def test_edgelist_error_line_in_a_later_block(tmp_path, arrow):
    lines = [f"{i} {i + 1}" for i in range(5000)]
    lines[4321] = "17 -3"
    path = tmp_path / "big.el"
    path.write_text("# Directed graph\n" + "\n".join(lines) + "\n")
    with pytest.raises(InputError, match="negative vertex id -3") as e:
        read_edgelist(path, block_bytes=1000, use_arrow=arrow)
    assert e.value.line == 4321 + 2


def test_edgelist_weights_and_columns(tmp_path):
    path = tmp_path / "w.tsv"
    path.write_text("0\t1\t2.5\t99\n1\t2\t0.5\t98\n")
    g = read_edgelist(path)
    assert g.weighted and g.weights.tolist() == [2.5, 0.5]
    g = read_edgelist(path, weighted=False)
    assert not g.weighted and g.m == 2
    two = tmp_path / "two.el"
    two.write_text("0 1\n")
    with pytest.raises(InputError, match="too few columns") as e:
        read_edgelist(two, weighted=True)
    assert e.value.line == 1


def test_edgelist_renumber(tmp_path):
    path = tmp_path / "labels.el"
    path.write_text("alice bob\nbob carol\n")
    with pytest.raises(InputError, match="non-numeric source vertex id 'alice'") as e:
        read_edgelist(path)
    assert e.value.line == 1
    g = read_edgelist(path, renumber=True, directed=False)
    assert g.original_ids.tolist() == ["alice", "bob", "carol"]
    assert _arcs(g, original=True) == Counter({("alice", "bob", None): 1, ("bob", "alice", None): 1,
                                              ("bob", "carol", None): 1, ("carol", "bob", None): 1})
    big = tmp_path / "big.el"
    big.write_text("-5 1000000000000\n1000000000000 7\n")
    g = read_edgelist(big, renumber=True)
    assert g.original_ids.tolist() == [-5, 7, 10**12]


def test_snap_and_konect_headers(tmp_path):
    snap = tmp_path / "snap.txt"
    snap.write_text("# Undirected graph: x\n# Nodes: 3 Edges: 2\n# FromNodeId\tToNodeId\n0\t1\n1\t2\n")
    g = read_edgelist(snap)
    assert not g.directed and g.m == 4
    konect = tmp_path / "out.k"
    konect.write_text("% asym positive\n% 3 4 4\n1 2 5 123\n2 3 1 124\n4 1 2 125\n")
    g = read_edgelist(konect)
    assert g.directed and g.n == 4 and g.weighted
    assert _arcs(g) == Counter({(0, 1, 5.0): 1, (1, 2, 1.0): 1, (3, 0, 2.0): 1})
    unweighted = tmp_path / "out.u"
    unweighted.write_text("% sym unweighted\n% 2 3 3\n1 2 1\n2 3 1\n")
    g = read_edgelist(unweighted)
    assert not g.weighted and not g.directed and g.n == 3
    bip = tmp_path / "out.bip"
    bip.write_text("% bip unweighted\n% 3 2 3\n1 1\n1 3\n2 2\n")
    g = read_edgelist(bip)
    assert g.n == 5 and sorted(g.neighbors(0).tolist()) == [2, 4] and g.neighbors(1).tolist() == [3]


def test_write_edgelist_round_trip(tmp_path):
    G = nx.gnm_random_graph(40, 120, seed=2)
    for u, v in G.edges:
        G[u][v]["weight"] = float((u * 7 + v) % 11) + 0.25
    g = from_networkx(G)
    write_edgelist(g, tmp_path / "o.el")
    h = read_edgelist(tmp_path / "o.el")
    assert h.n == 40 and not h.directed and _arcs(h) == _arcs(g)


# --------------------------------------------------------------- Matrix Market
@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 20), density=st.floats(0.0, 0.5), seed=st.integers(0, 2**16),
       field=st.sampled_from(["real", "integer", "pattern"]), symmetric=st.booleans())
def test_mtx_round_trip(tmp_path_factory, n, density, seed, field, symmetric):
    rng = np.random.default_rng(seed)
    a = sp.random(n, n, density=density, random_state=rng, format="coo")
    a.data = np.round(a.data * 10) + 1
    if symmetric:
        a = sp.coo_matrix(sp.tril(a) + sp.tril(a, -1).T)
    path = tmp_path_factory.mktemp("mtx") / "m.mtx"
    scipy.io.mmwrite(path, a, field=field, symmetry="symmetric" if symmetric else "general")
    g = read_matrix_market(path)
    _, _, _, _, field, symmetry = scipy.io.mminfo(path)  # scipy may change both when empty
    assert g.n == n and g.directed == (symmetry == "general") and g.weighted == (field != "pattern")
    ref = sp.csr_matrix(scipy.io.mmread(path))  # full matrix (scipy expands symmetric)
    ours = sp.csr_matrix((np.asarray(g.weights) if g.weighted else np.ones(g.m),
                          g.indices, g.offsets), shape=(n, n))
    assert abs(ref - ours).sum() == 0 and ref.nnz == ours.nnz


MTX_BAD = [
    ("%%MatrixMarket matrix coordinate complex general\n2 2 1\n1 2 1 0\n", 1, "field 'complex'"),
    ("%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n", 1, "'array'"),
    ("%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n2 1 1\n", 1, "skew-symmetric"),
    ("%%MatrixMarket matrix coordinate real general\n% c\n2 3 1\n1 2 1\n", 3, "square"),
    ("%%MatrixMarket matrix coordinate real general\n3 3 4\n1 2 1\n2 3 2\n", 2, "promises 4 entries"),
    ("%%MatrixMarket matrix coordinate real general\n3 3 2\n1 2 1\n2 x 2\n", 4, "entry"),
    ("%%MatrixMarket matrix coordinate real general\n3 3 2\n1 2 1\n2 4 2\n", 4, "out of bounds"),
    ("%%MatrixMarket matrix coordinate real general\n3 3 2\n1 2 1\n0 1 2\n", 4, "out of bounds"),
    ("%%MatrixMarket matrix coordinate real general\n% c\n3 3 2\n1 2 1\n2 3 nan\n", 5, "not finite"),
]


@pytest.mark.parametrize("text,line,problem", MTX_BAD)
def test_mtx_errors(tmp_path, text, line, problem):
    path = tmp_path / "bad.mtx"
    path.write_text(text)
    with pytest.raises(InputError, match=problem) as e:
        read_matrix_market(path, store=tmp_path / "s")
    assert e.value.line == line and e.value.path == str(path)
    assert not (tmp_path / "s").exists() and _no_leftovers(tmp_path)


# ------------------------------------------------------------------------ LDBC
LDBC = sorted(LDBC_GRAPHS.glob("*.properties")) if LDBC_GRAPHS.exists() else []


@pytest.mark.parametrize("props", LDBC or [None], ids=lambda p: p.stem if p else "absent")
def test_ldbc_conformance_graphs(props, tmp_path):
    if props is None:
        need_shared(LDBC_GRAPHS / "example-directed.properties", "LDBC conformance graphs")
    stem = str(props)[: -len(".properties")]
    g, params = read_ldbc(props, store=tmp_path / "s")
    vids = np.loadtxt(stem + ".v", dtype=np.int64, ndmin=1)
    edges = np.loadtxt(stem + ".e", ndmin=2)
    directed = "directed = true" in props.read_text()
    G = (nx.MultiDiGraph if directed else nx.MultiGraph)()
    G.add_nodes_from(vids.tolist())
    weighted = edges.shape[1] > 2
    for row in edges:
        G.add_edge(int(row[0]), int(row[1]), **({"weight": row[2]} if weighted else {}))
    assert params["directed"] is directed and g.directed is directed
    assert g.n == len(vids) and g.original_ids.tolist() == sorted(vids.tolist())
    assert _arcs(g, original=True) == _nx_arcs(G, "weight" if weighted else None)
    for alg in ("bfs", "sssp"):
        if f"{alg}.source-vertex" in params:
            assert g.to_original_ids(g.to_internal_id(params[f"{alg}.source-vertex"])) == \
                params[f"{alg}.source-vertex"]
    assert g.meta["ldbc"]["name"] == props.stem


def test_ldbc_parameters_and_wrong_edge_file_name():
    need_shared(LDBC_GRAPHS / "test-wcc-directed.properties", "LDBC conformance graphs")
    g, params = read_ldbc(LDBC_GRAPHS / "test-wcc-directed")  # its properties name .v as edge file
    assert params["edge-file"] == "test-wcc-directed.v" and g.m == 10
    _, params = read_ldbc(LDBC_GRAPHS / "example-directed.properties")
    assert params["pr.damping-factor"] == 0.85 and params["pr.num-iterations"] == 2
    assert params["cdlp.max-iterations"] == 2 and params["bfs.source-vertex"] == 1
    assert params["algorithms"] == ["bfs", "cdlp", "lcc", "pr", "sssp", "wcc"]
    assert params["edge-properties.names"] == ["weight"]


def _ldbc(tmp_path, v, e, props="graph.g.directed = false\n"):
    (tmp_path / "g.v").write_text(v)
    (tmp_path / "g.e").write_text(e)
    (tmp_path / "g.properties").write_text(props)
    return tmp_path / "g"


def test_ldbc_isolated_and_sparse_ids(tmp_path):
    g, _ = read_ldbc(_ldbc(tmp_path, "5\n1000000000000\n70\n3\n", "70 5\n"))
    assert g.n == 4 and g.original_ids.tolist() == [3, 5, 70, 10**12]
    assert g.out_degree.tolist() == [0, 1, 1, 0]


@pytest.mark.parametrize("v,e,file,line,problem", [
    ("1\n2\n", "1 2\n2 3\n", "g.e", 2, "vertex 3 is not listed"),
    ("1\n2\n1\n", "1 2\n", "g.v", 3, "listed twice"),
    ("1\n-2\n", "1 1\n", "g.v", 2, "negative vertex id"),
    ("1\nx\n", "1 1\n", "g.v", 2, "non-numeric"),
    ("1\n2\n", "1\n", "g.e", 1, "too few columns"),
])
def test_ldbc_errors(tmp_path, v, e, file, line, problem):
    prefix = _ldbc(tmp_path, v, e)
    with pytest.raises(InputError, match=problem) as err:
        read_ldbc(prefix, store=tmp_path / "s")
    assert err.value.line == line and err.value.path == str(tmp_path / file)
    assert not (tmp_path / "s").exists() and _no_leftovers(tmp_path)


def test_ldbc_promised_counts_and_missing_properties(tmp_path):
    prefix = _ldbc(tmp_path, "1\n2\n", "1 2\n",
                   "graph.g.directed = true\ngraph.g.meta.edges = 3\n")
    with pytest.raises(InputError, match="promise 3 edges"):
        read_ldbc(prefix)
    os.unlink(tmp_path / "g.properties")
    with pytest.raises(InputError, match="properties file not found"):
        read_ldbc(prefix)
    g, _ = read_ldbc(prefix, directed=True)
    assert g.m == 1


# ---------------------------------------------------------------- CSV, Parquet
def test_csv_and_parquet_round_trip(tmp_path):
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(5)
    df = pd.DataFrame({"a": rng.integers(0, 50, 400), "b": rng.integers(0, 50, 400),
                       "w": rng.random(400).round(4), "tag": ["x"] * 400})
    df.to_csv(tmp_path / "e.csv", index=False)
    df.to_csv(tmp_path / "e.csv.gz", index=False, compression="gzip")
    df.to_parquet(tmp_path / "e.parquet")
    G = nx.MultiDiGraph()
    G.add_nodes_from(range(max(df.a.max(), df.b.max()) + 1))
    for a, b, w in zip(df.a, df.b, df.w):
        G.add_edge(int(a), int(b), weight=w)
    expect = _nx_arcs(G, "weight")
    for path in ("e.csv", "e.csv.gz", "e.parquet"):
        reader = read_parquet_edges if path.endswith("parquet") else read_csv_edges
        g = reader(tmp_path / path, src="a", dst=1, weight="w")
        assert _arcs(g) == expect, path
        # a column named like a weight makes the table weighted, as a third column does an edge list
        g = read_graph(tmp_path / path, src=0, dst="b", store=tmp_path / f"s-{path}")
        assert g.weighted and g.m == 400 and _arcs(g) == expect and g.meta["weight_column"] == "w"
        g = read_graph(tmp_path / path, src=0, dst="b", weighted=False)
        assert not g.weighted and g.m == 400
    g = read_csv_edges(tmp_path / "e.csv", src="tag", dst="a", renumber=True)
    assert g.n == len(set(df.a) | {"x"}) - 0 and "x" in g.original_ids.tolist()
    write_parquet_edges(g, tmp_path / "back.parquet")
    h = read_parquet_edges(tmp_path / "back.parquet", n=g.n)
    assert np.array_equal(h.offsets, g.offsets)


def test_csv_errors(tmp_path):
    path = tmp_path / "e.csv"
    path.write_text("s,d,w\n0,1,1.0\n1,2,2.0\n2,x,3.0\n")
    with pytest.raises(InputError, match="non-numeric vertex id 'x'") as e:
        read_csv_edges(path, store=tmp_path / "st")
    assert e.value.line == 4 and not (tmp_path / "st").exists() and _no_leftovers(tmp_path)
    path.write_text("s,d,w\n0,1,1.0\n-1,2,2.0\n")
    with pytest.raises(InputError, match="negative vertex id -1") as e:
        read_csv_edges(path)
    assert e.value.line == 3
    path.write_text("s,d,w\n0,1,1.0\n1,2,nan\n")
    with pytest.raises(InputError, match="not a finite") as e:
        read_csv_edges(path, weight="w")
    assert e.value.line == 3
    with pytest.raises(InputError, match="column 'nope' not found"):
        read_csv_edges(path, src="nope")
    with pytest.raises(InputError, match="column 7 does not exist"):
        read_csv_edges(path, dst=7)


def test_parquet_errors(tmp_path):
    pd = pytest.importorskip("pandas")
    pd.DataFrame({"s": [0, 1, -4], "d": [1, 2, 0]}).to_parquet(tmp_path / "n.parquet")
    with pytest.raises(InputError, match="negative vertex id -4") as e:
        read_parquet_edges(tmp_path / "n.parquet")
    assert e.value.line == 3
    pd.DataFrame({"s": ["a", "b"], "d": ["b", "c"]}).to_parquet(tmp_path / "s.parquet")
    with pytest.raises(InputError, match="ids must be integers"):
        read_parquet_edges(tmp_path / "s.parquet")
    g = read_parquet_edges(tmp_path / "s.parquet", renumber=True)
    assert g.original_ids.tolist() == ["a", "b", "c"]
    pd.DataFrame({"s": [0, 1], "d": [1, 2], "w": [1.0, np.inf]}).to_parquet(tmp_path / "w.parquet")
    with pytest.raises(InputError, match="not a finite") as e:
        read_parquet_edges(tmp_path / "w.parquet", weight="w")
    assert e.value.line == 2


# --------------------------------------------------------------------- Galois
def _gr_bytes(n, ends, dests, data=None, version=1, pad=True):
    m = len(dests)
    out = struct.pack("<4Q", version, 4 if data is not None else 0, n, m)
    out += struct.pack(f"<{n}Q", *ends)
    out += struct.pack(f"<{m}{'I' if version == 1 else 'Q'}", *dests)
    if version == 1 and m % 2 and pad:
        out += b"\0\0\0\0"
    if data is not None:
        out += struct.pack(f"<{m}I", *data)
    return out


def test_gr_reads_hand_made_file(tmp_path):
    # 0 -> 1 (w 7), 0 -> 2 (w 8), 2 -> 0 (w 9); m odd, so padded before the data.
    (tmp_path / "a.gr").write_bytes(_gr_bytes(3, [2, 2, 3], [1, 2, 0], [7, 8, 9]))
    g = read_gr(tmp_path / "a.gr")
    assert g.offsets.tolist() == [0, 2, 2, 3] and g.indices.tolist() == [1, 2, 0]
    assert g.weights.tolist() == [7.0, 8.0, 9.0]
    (tmp_path / "b.gr").write_bytes(_gr_bytes(3, [2, 2, 3], [1, 2, 0], version=2))
    assert read_gr(tmp_path / "b.gr").indices.tolist() == [1, 2, 0]
    (tmp_path / "c.gr").write_bytes(_gr_bytes(3, [2, 2, 3], [1, 2, 0], pad=False))
    assert read_gr(tmp_path / "c.gr", store=tmp_path / "s").m == 3  # lenient: no padding, no data


@settings(max_examples=20, deadline=None)
@given(n=st.integers(1, 30), k=st.integers(0, 90), seed=st.integers(0, 2**16),
       wdt=st.sampled_from(["uint32", "float32", None]))
def test_gr_round_trip(tmp_path_factory, n, k, seed, wdt):
    rng = np.random.default_rng(seed)
    src, dst = rng.integers(0, n, k), rng.integers(0, n, k)
    w = None if wdt is None else (rng.integers(0, 1000, k) if wdt == "uint32" else rng.normal(size=k))
    g = from_arrays(src, dst, w, n=n)
    d = tmp_path_factory.mktemp("gr")
    write_gr(g, d / "g.gr", weight_dtype=wdt or "uint32")
    size = 32 + 8 * n + 4 * k + (4 if k % 2 else 0) + (4 * k if w is not None else 0)
    assert (d / "g.gr").stat().st_size == size
    h = read_gr(d / "g.gr", weight_dtype=wdt or "uint32")
    assert _arcs(h) == _arcs(g) and np.array_equal(h.indices, g.indices)


def test_gr_errors(tmp_path):
    good = _gr_bytes(3, [2, 2, 3], [1, 2, 0], [7, 8, 9])
    for name, data, problem in [
        ("trunc", good[:-6], "truncated"),
        ("short", good[:20], "shorter than the 32-byte"),
        ("ver", struct.pack("<Q", 7) + good[8:], "version 7"),
        ("dest", _gr_bytes(3, [2, 2, 3], [1, 5, 0]), "names vertex 5"),
        ("ends", _gr_bytes(3, [2, 1, 3], [1, 2, 0]), "decrease"),
        ("last", _gr_bytes(3, [1, 1, 2], [1, 2, 0]), "last edge offset"),
        ("tail", good + b"\0" * 8, "trailing bytes"),
    ]:
        (tmp_path / f"{name}.gr").write_bytes(data)
        with pytest.raises(InputError, match=problem):
            read_gr(tmp_path / f"{name}.gr", store=tmp_path / "s")
        assert not (tmp_path / "s").exists() and _no_leftovers(tmp_path)
    g = from_arrays([0], [1], [0.5])
    with pytest.raises(ValueError, match="float32"):
        write_gr(g, tmp_path / "x.gr")
    assert not (tmp_path / "x.gr").exists() and _no_leftovers(tmp_path)


# ------------------------------------------------- scipy, networkx, arrays
@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 20), p=st.floats(0, 0.6), directed=st.booleans(), multi=st.booleans(),
       seed=st.integers(0, 2**16), labels=st.sampled_from(["int", "str", "shifted"]))
def test_from_networkx(n, p, directed, multi, seed, labels):
    G = nx.gnp_random_graph(n, p, seed=seed, directed=directed)
    if multi:
        G = nx.MultiDiGraph(G) if directed else nx.MultiGraph(G)
        G.add_edges_from(list(G.edges)[:3])
    rng = np.random.default_rng(seed)
    for u, v, d in G.edges(data=True):
        d["weight"] = float(rng.integers(1, 9))
    if labels == "str":
        G = nx.relabel_nodes(G, {v: f"v{v}" for v in G})
    elif labels == "shifted":
        G = nx.relabel_nodes(G, {v: 3 * v + 100 for v in G})
    g = from_networkx(G)
    assert g.n == n and g.directed == directed and (g.weighted or G.number_of_edges() == 0)
    assert _arcs(g, original=True) == _nx_arcs(G, "weight" if g.weighted else None)
    H = to_networkx(g)
    assert sorted(H.degree()) == sorted(G.degree())


def test_from_scipy():
    rng = np.random.default_rng(0)
    a = sp.random(30, 30, density=0.2, random_state=rng, format="csr")
    g = from_scipy(a)
    assert abs(g.to_scipy() - a).max() < 1e-6 and g.directed and g.weighted
    s = a + a.T
    g = from_scipy(s, directed=False, drop_self_loops=True)
    ref = sp.csr_array(s)
    ref.setdiag(0)
    ref.eliminate_zeros()
    assert abs(g.to_scipy() - ref).max() < 1e-6 and not g.directed
    assert not from_scipy((a != 0).astype(bool)).weighted
    with pytest.raises(InputError, match="not symmetric"):
        from_scipy(a, directed=False)
    with pytest.raises(InputError, match="square"):
        from_scipy(sp.random(3, 4, density=0.5, format="csr"))


# --------------------------------------------------------------- dispatching
def test_detect_format_and_read_graph(tmp_path):
    (tmp_path / "a.mtx").write_text("%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2\n")
    (tmp_path / "noext").write_text("%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2\n")
    (tmp_path / "b.txt.gz").write_bytes(gzip.compress(b"0 1\n"))
    (tmp_path / "c.gr").write_bytes(_gr_bytes(2, [1, 1], [1]))
    assert detect_format(tmp_path / "a.mtx") == "mtx"
    assert detect_format(tmp_path / "noext") == "mtx"
    assert detect_format(tmp_path / "b.txt.gz") == "edgelist"
    assert detect_format(tmp_path / "c.gr") == "gr"
    assert detect_format(tmp_path / "x.parquet") == "parquet"
    for f in ("a.mtx", "noext", "b.txt.gz", "c.gr"):
        g = read_graph(tmp_path / f, store=tmp_path / f"{f}.store")
        assert g.m == 1 and detect_format(tmp_path / f"{f}.store") == "store"
        assert read_graph(tmp_path / f"{f}.store", verify=True).m == 1
    with pytest.raises(InputError, match="not a graph store"):
        detect_format(tmp_path)
    if LDBC:
        assert detect_format(LDBC_GRAPHS / "example-directed") == "ldbc"
        assert detect_format(LDBC_GRAPHS / "example-directed.e") == "ldbc"
        assert read_graph(LDBC_GRAPHS / "example-directed").meta["ldbc"]["bfs.source-vertex"] == 1


def test_taken_target_refused_before_parsing(tmp_path):
    from graphferry.errors import StoreError

    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "mine.txt").write_text("x")
    (tmp_path / "bad.el").write_text("0 1\n1 x\n")  # would fail parsing at line 2
    for overwrite in (False, True):
        with pytest.raises(StoreError, match="taken"):
            read_graph(tmp_path / "bad.el", store=tmp_path / "taken", overwrite=overwrite)
    assert (tmp_path / "taken" / "mine.txt").read_text() == "x"


def test_missing_file(tmp_path):
    with pytest.raises(InputError, match="file not found"):
        read_graph(tmp_path / "nope.el")
    with pytest.raises(InputError, match="file not found"):
        read_graph(tmp_path / "nope.gr")


def test_numpy_only_parser_matches_arrow(tmp_path, monkeypatch):
    rng = np.random.default_rng(4)
    lines = [f"{a}\t{b}\t{w:.3f}" for a, b, w in zip(rng.integers(0, 90, 3000),
                                                   rng.integers(0, 90, 3000), rng.random(3000))]
    (tmp_path / "g.tsv").write_text("\n".join(lines) + "\n")
    a = read_edgelist(tmp_path / "g.tsv", block_bytes=4096)
    monkeypatch.setattr(_text, "pa", None)
    b = read_edgelist(tmp_path / "g.tsv", block_bytes=4096)
    assert np.array_equal(a.indices, b.indices) and np.array_equal(a.weights, b.weights)
