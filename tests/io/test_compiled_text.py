"""The compiled edge-list path (io.compiled_text, host_ops.text_edges): the same graph as the block
reader, and the same errors naming the file and line, or a hand-back to the block reader."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphferry.errors import InputError
from graphferry.host_ops import text_edges
from graphferry.io import compiled_text, read_edgelist
from graphferry.store import open_store


@st.composite
def edge_texts(draw):
    """A plain edge list with what real files hold: comments, blank lines, CRLF, tabs, commas, extra columns."""
    n = draw(st.integers(1, 40))
    k = draw(st.integers(0, 120))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    src, dst = rng.integers(0, n, k), rng.integers(0, n, k)
    comma = draw(st.booleans())
    sep = "," if comma else draw(st.sampled_from([" ", "\t", "  ", " \t"]))
    extra = draw(st.booleans())
    comments, crlf, last_newline = draw(st.booleans()), draw(st.booleans()), draw(st.booleans())
    lines = []
    for i in range(k):
        if comments and i % 6 == 2:
            lines += ["# a comment 1 2", "", "  ", "% another"]
        fields = [str(src[i]), str(dst[i])] + (["7.5"] if extra else [])
        lines.append((" " if comments and i % 4 == 1 else "") + sep.join(fields) + (" " if i % 3 == 0 else ""))
    text = ("\r\n" if crlf else "\n").join(lines) + ("\n" if last_newline or not lines else "")
    return text, n, src, dst


def _arrays(g):
    return np.asarray(g.offsets).tolist(), np.asarray(g.indices).tolist(), g.n, g.m, g.directed


@settings(max_examples=30, deadline=None)
@given(case=edge_texts(), directed=st.booleans(), dedup=st.booleans(), loops=st.booleans(),
       sort=st.booleans(), to_store=st.booleans())
def test_same_graph_as_the_block_reader(tmp_path_factory, case, directed, dedup, loops, sort, to_store):
    text, _, src, dst = case
    d = tmp_path_factory.mktemp("el")
    path = d / "g.el"
    path.write_bytes(text.encode())
    kw = {"directed": directed, "drop_duplicates": dedup, "drop_self_loops": loops, "sort_neighbors": sort,
          "weighted": False}
    fast = read_edgelist(path, store=d / "fast" if to_store else None, **kw)
    slow = read_edgelist(path, use_arrow=False, store=d / "slow" if to_store else None, **kw)
    assert _arrays(fast) == _arrays(slow)
    def facts(g):  # the store's own path and creation time differ, nothing else may
        return {k: v for k, v in g.meta.items() if k not in ("store", "manifest")}

    assert fast.name == slow.name and facts(fast) == facts(slow)
    if to_store:
        assert _arrays(open_store(d / "fast", verify=True)) == _arrays(slow)
    if dedup and loops and fast.n:  # the oracle: NetworkX's simple graph of the same pairs
        G = (nx.DiGraph if directed else nx.Graph)()
        G.add_nodes_from(range(fast.n))
        G.add_edges_from((int(u), int(v)) for u, v in zip(src, dst) if u != v)
        A = nx.to_scipy_sparse_array(G, nodelist=range(fast.n), format="csr")
        A.sort_indices()
        assert np.asarray(fast.offsets).tolist() == A.indptr.tolist()
        assert np.asarray(fast.indices).tolist() == A.indices.tolist()


def test_the_parser_reads_the_file_in_order_across_pieces(tmp_path):
    rng = np.random.default_rng(5)
    src, dst = rng.integers(0, 2**31 - 1, 300_000), rng.integers(0, 2**31 - 1, 300_000)
    path = tmp_path / "big.el"
    lines = [f"{u} {v}" for u, v in zip(src, dst)]
    lines[1000] = "# a comment in the first piece"
    path.write_text("\n".join(lines))  # no newline at the end
    s, t, bad = text_edges.parse_file(path, threads=4)
    keep = np.ones(len(src), bool)
    keep[1000] = False
    assert bad is None and s.tolist() == src[keep].tolist() and t.tolist() == dst[keep].tolist()


@pytest.mark.parametrize("text,line,problem", [
    ("0 1\n1 -2\n", 2, "negative vertex id -2"),
    ("0 1\n1\n", 2, "too few columns"),
    ("0 1\n\n# c\n1 x\n", 4, "non-numeric target vertex id 'x'"),
    ("0 1\r\n1 2\r\n3 99999999999999999999999\r\n", 3, "does not fit int64"),
])
def test_errors_name_the_line(tmp_path, text, line, problem):
    path = tmp_path / "bad.el"
    path.write_text(text)
    with pytest.raises(InputError, match=problem) as e:
        read_edgelist(path, store=tmp_path / "s", drop_duplicates=True)
    assert e.value.line == line and e.value.path == str(path)
    assert not (tmp_path / "s").exists()


@pytest.mark.parametrize("text", ["0 1\n+2 3\n", "0 1\n2 000000000003\n"])
def test_lines_the_parser_refuses_but_the_reader_takes_are_read_by_the_reader(tmp_path, text):
    # '+2' is an int to Python; the compiled parser reads ten digits at most
    path = tmp_path / "odd.el"
    path.write_text(text)
    assert text_edges.parse_file(path)[2] is not None
    g = read_edgelist(path, drop_duplicates=True)
    assert g.n == 4 and g.m == 2


def test_the_path_applies_to_plain_unweighted_files_only(tmp_path):
    import gzip

    from graphferry.io import _text

    plain, packed = tmp_path / "g.el", tmp_path / "g.el.gz"
    plain.write_text("0 1\n")
    with gzip.open(packed, "wt") as f:
        f.write("0 1\n")
    spec = _text.ColumnSpec()
    assert compiled_text.applies(str(plain), spec, False, False, None)
    assert not compiled_text.applies(str(packed), spec, False, False, None)
    assert not compiled_text.applies(str(plain), spec, True, False, None)  # renumbering
    assert not compiled_text.applies(str(plain), _text.ColumnSpec(weight=True), False, False, None)
