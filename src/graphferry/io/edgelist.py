"""Text edge lists as SNAP, Konect and graphferry's own datasets ship them.

One edge a line, ``src dst [weight] [more columns ignored]``, separated by
blanks or tabs (or commas); ``#`` and ``%`` start comment lines; the file may be
gzip, bzip2 or xz compressed. The leading comment lines are read for facts:

* graphferry datasets: ``# name | directed|undirected | n=34 | source`` sets the
  name, directedness and ``n`` (ids must then lie in ``[0, n)``); an ``m=...``
  field promises that many edges.
* SNAP: ``# Directed graph ...`` / ``# Undirected graph ...`` and
  ``# Nodes: N Edges: M`` (M is a promise of at least that many lines).
  SNAP's undirected files sometimes list both directions of an edge: pass
  ``drop_duplicates=True`` to keep one.
* Konect: ``% sym|asym|bip <weight kind>`` then ``% m n1 [n2]``. Konect ids are
  1-based and are shifted to 0-based; for ``bip`` graphs the second column's
  ids are placed after the first side's ``n1`` vertices. ``unweighted`` files
  ignore extra columns.

Parsing goes block by block (see :mod:`graphferry.io._text`) into a
:class:`~graphferry.io.builder.CSRBuilder`, so the whole edge list is never in
memory; with ``store=path`` the CSR goes straight into a graph store.

Example:
    >>> import tempfile, os
    >>> from graphferry.io.edgelist import read_edgelist
    >>> path = os.path.join(tempfile.mkdtemp(), "tri.el")
    >>> _ = open(path, "w").write("# tri | undirected | n=4 | example\\n0 1 2.5\\n1 2 1.0\\n")
    >>> g = read_edgelist(path)
    >>> g.name, g.n, g.directed, g.weighted, g.indices.tolist()
    ('tri', 4, False, True, [1, 0, 2, 1])
"""

from __future__ import annotations

import logging
import os
import re
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import InputError, excerpt
from ..graph import Graph
from . import _text, compiled_text
from .builder import CSRBuilder
from .options import ReadOptions

log = logging.getLogger(__name__)


@dataclass
class EdgeListHeader:
    """Facts read from an edge list's leading comment lines."""

    kind: str | None = None  # "graphferry", "snap", "konect" or None
    name: str | None = None
    directed: bool | None = None
    n: int | None = None
    edges: int | None = None  # promised number of edge lines
    edges_line: int | None = None
    weighted: bool | None = None
    one_based: bool = False
    bipartite: tuple[int, int] | None = None
    source: str | None = None
    comment_lines: int = 0


_SNAP_KIND = re.compile(rb"^#\s*(directed|undirected)\s+graph", re.I)
_SNAP_COUNTS = re.compile(rb"nodes:\s*(\d+)\s+edges:\s*(\d+)", re.I)
_KONECT_FORMATS = {b"sym": False, b"asym": True, b"bip": False}


def parse_header(lines: list[tuple[int, bytes]]) -> EdgeListHeader:
    """Read the leading comment lines (see module docstring for what is understood)."""
    h = EdgeListHeader()
    leading = []
    for no, raw in lines:
        s = raw.strip()
        if s and s[:1] not in (b"#", b"%"):
            break
        leading.append((no, s))
    h.comment_lines = len(leading)
    for i, (no, s) in enumerate(leading):
        if not s:
            continue
        if i == 0 and s.startswith(b"#") and b"|" in s:
            fields = [f.strip() for f in s[1:].split(b"|")]
            if len(fields) >= 2 and fields[1].lower() in (b"directed", b"undirected"):
                h.kind = "graphferry"
                h.name = fields[0].decode("utf-8", "replace") or None
                h.directed = fields[1].lower() == b"directed"
                for f in fields[2:]:
                    key, _, val = f.partition(b"=")
                    if key.strip() == b"n" and val.strip().isdigit():
                        h.n = int(val)
                    elif key.strip() == b"m" and val.strip().isdigit():
                        h.edges, h.edges_line = int(val), no
                if len(fields) >= 4:
                    h.source = b" | ".join(fields[3:]).decode("utf-8", "replace")
                continue
        if i == 0 and s.startswith(b"%"):
            toks = s[1:].split()
            if toks and toks[0].lower() in _KONECT_FORMATS:
                h.kind = "konect"
                h.directed = _KONECT_FORMATS[toks[0].lower()]
                h.one_based = True
                if len(toks) > 1:
                    h.weighted = toks[1].lower() != b"unweighted"
                if toks[0].lower() == b"bip":
                    h.bipartite = (0, 0)
                continue
        if h.kind == "konect" and s.startswith(b"%") and h.edges is None:
            toks = s[1:].split()
            if 2 <= len(toks) <= 3 and all(t.isdigit() for t in toks):
                h.edges, h.edges_line = int(toks[0]), no
                if h.bipartite is not None and len(toks) == 3:
                    h.bipartite = (int(toks[1]), int(toks[2]))
                    h.n = int(toks[1]) + int(toks[2])
                else:
                    h.n = int(toks[1])
                continue
        if s.startswith(b"#"):
            m = _SNAP_KIND.match(s)
            if m:
                h.kind = h.kind or "snap"
                h.directed = m.group(1).lower() == b"directed"
            m = _SNAP_COUNTS.search(s)
            if m:
                h.kind = h.kind or "snap"
                h.edges, h.edges_line = int(m.group(2)), no
    if h.bipartite == (0, 0):
        h.bipartite = None  # sizes unknown: ids cannot be separated
    return h


def _spec_for(path: str, header: EdgeListHeader, first: tuple[int, bytes] | None,
              weighted: bool | None, renumber: bool, n: int | None) -> tuple[_text.ColumnSpec, bool]:
    spec = _text.ColumnSpec()
    if first is not None:
        no, line = first
        spec.delimiter = _text.detect_delimiter(line)
        toks = _text.split_tokens(line, spec.delimiter)
        spec.file_columns = len(toks)
        if len(toks) < 2:
            raise InputError(f"too few columns: expected at least 2, found {len(toks)} in {excerpt(line)}",
                             path=path, line=no)
        if renumber and not all(_text.is_int_token(t) for t in toks[:2]):
            spec.str_ids = True
    cols = spec.file_columns
    if weighted is None:
        weighted = cols >= 3 and header.weighted is not False
    if weighted and first is not None and cols < 3:
        raise InputError("too few columns: a weighted graph needs 3 (src dst weight), found "
                         f"{cols}", path=path, line=first[0])
    spec.weight = bool(weighted)
    if renumber:
        spec.min_id = None
    else:
        base = 1 if header.one_based else 0
        spec.min_id = base
        if header.one_based:
            spec.id_why = " of a 1-based Konect file"
        limit = n if n is not None else header.n
        if header.bipartite is not None:
            limit = max(header.bipartite)
        if limit is not None:
            spec.max_id = limit - 1 + base
            if not spec.id_why:
                spec.id_why = f", n = {limit}"
    return spec, bool(weighted)


def _feed(builder: CSRBuilder, blocks, header: EdgeListHeader, renumber: bool, p: str) -> int:
    """Add parsed blocks to the builder (Konect id shifts applied); the number of edge lines."""
    rows = 0
    for block, line, parsed in blocks:
        if parsed.rows == 0:
            continue
        src, dst = parsed.ids
        if header.bipartite is not None and src.dtype.kind in "iu":
            # The two sides of a Konect bipartite graph are numbered
            # separately; put the second side after the first.
            n1 = header.bipartite[0]
            bad = np.flatnonzero(src > n1)
            if len(bad):
                raise InputError(f"vertex id {int(src[bad[0]])} exceeds the first side's {n1} vertices",
                                 path=p, line=_text.line_of_row(block, line, int(bad[0])))
            dst = dst + n1
        if header.one_based and not renumber:
            src = src - 1
            dst = dst - 1
        builder.add(src, dst, parsed.weights)
        rows += parsed.rows
    return rows


def read_edgelist(
    path: str | os.PathLike,
    *,
    options: ReadOptions | None = None,
    block_bytes: int = _text.DEFAULT_BLOCK_BYTES,
    use_arrow: bool | None = None,
    **shared,
) -> Graph:
    """Read a SNAP/Konect-style edge list (see module docstring).

    The options every reader shares come as ``options=``
    (:class:`~graphferry.io.options.ReadOptions`) or as keywords:

    Args:
        directed: default from the header, else ``True``.
        weighted: default: ``True`` when lines have a third column (and a
            Konect header does not say ``unweighted``).
        renumber: map ids (any int64, or any token) to ``0..n-1`` in sorted
            order, keeping ``original_ids``. Default ``False``: ids are used as
            given and must be non-negative integers.
        n: number of vertices (default: header's ``n``, else max id + 1).
        store: write a graph store there and return it memory-mapped.
        drop_self_loops, drop_duplicates, sort_neighbors, overwrite, name,
            workdir: see :class:`~graphferry.io.options.ReadOptions`.
        block_bytes: bytes parsed per block.
        use_arrow: force (True) or forbid (False) the pyarrow parser (either one
            reads block by block; None: a plain file is parsed by compiled
            code, :mod:`graphferry.io.compiled_text`, when it can be).

    Raises:
        InputError: naming file and line (too few columns, non-numeric or
            negative id, NaN/inf weight, fewer edges than the header promises).
    """
    opts = ReadOptions.merged(options, shared)
    p = str(path)
    renumber = bool(opts.renumber)
    n = opts.n
    t0 = time.perf_counter()
    opts.check_target()
    head = _text.head_lines(p)
    header = parse_header(head)
    first = _text.first_data_line(head)
    directed = opts.directed
    if directed is None:
        directed = True if header.directed is None else header.directed
    if n is not None and header.n is not None and n != header.n:
        log.info("%s: n=%d given, header says n=%d; using %d", p, n, header.n, n)
    n_final = n if n is not None else header.n
    spec, weighted = _spec_for(p, header, first, opts.weighted, renumber, n)

    def make_builder() -> CSRBuilder:
        b = opts.builder(n=None if renumber else n_final, directed=directed, weighted=weighted,
                         source=p, name=header.name or Path(p).name.split(".")[0])
        b.meta.update({"format": "edgelist", "header": header.kind, "file": p})
        if header.source:
            b.meta["origin"] = header.source
        return b

    if use_arrow is None and compiled_text.applies(p, spec, renumber, header.one_based, header.bipartite):
        with make_builder() as builder:
            graph = compiled_text.read_compiled(p, spec, builder, header.edges, header.edges_line, opts)
        if graph is not None:
            return graph
    return _read_blocks(p, make_builder(), spec, header, renumber, opts, block_bytes, use_arrow, t0)


def _read_blocks(p: str, builder: CSRBuilder, spec: _text.ColumnSpec, header: EdgeListHeader, renumber: bool,
                 opts: ReadOptions, block_bytes: int, use_arrow: bool | None, t0: float) -> Graph:
    """Parse block by block (pyarrow or numpy, a parsing thread ahead) into ``builder``."""
    with builder, _text.open_binary(p) as raw:
        f = raw
        for _ in range(header.comment_lines):
            f.readline()  # the header was parsed above; skip it without regex work
        blocks = _text.prefetch(
            (block, line, _text.parse_block(block, line, spec, p, use_arrow=use_arrow))
            for block, line in _text.iter_blocks(f, block_bytes, first_line=header.comment_lines + 1))
        try:
            total = _feed(builder, blocks, header, renumber, p)
        finally:
            blocks.close()  # stops the parsing thread before the file closes
        if header.edges is not None and total < header.edges:
            raise InputError(f"header promises {header.edges} edges but the file has {total}",
                             path=p, line=header.edges_line)
        if header.edges is not None and total > header.edges and header.kind == "konect":
            log.warning("%s: header promises %d edges, file has %d", p, header.edges, total)
        log.info("%s: parsed %d edges in %.2f s", p, total, time.perf_counter() - t0)
        if _text.pa is not None:
            # Hand the parser's cached buffers back before the CSR build needs memory.
            _text.pa.default_memory_pool().release_unused()
        return opts.finish(builder)


def write_edgelist(graph: Graph, path: str | os.PathLike, *, header: bool = True,
                   weights: bool | None = None, original_ids: bool = False,
                   delimiter: str = " ") -> Path:
    """Write ``graph`` as a text edge list that :func:`read_edgelist` reads back.

    The first line is a graphferry header (``# name | directed | n=N | graphferry``).
    Undirected graphs are written once per edge (arcs with ``src <= dst``).
    Written row block by row block; uses pyarrow's CSV writer when installed.
    """
    from .csr_passes import row_blocks

    p = Path(path)
    weights = graph.weighted if weights is None else weights
    if weights and not graph.weighted:
        raise ValueError("graph has no weights to write")
    tmp = p.with_name(p.name + ".tmp")
    with open(tmp, "wb") as f:
        if header:
            kind = "directed" if graph.directed else "undirected"
            f.write(f"# {graph.name} | {kind} | n={graph.n} | graphferry\n".encode())
        for lo, hi in row_blocks(graph.offsets, 1 << 22):
            a, b = int(graph.offsets[lo]), int(graph.offsets[hi])
            src = np.repeat(np.arange(lo, hi, dtype=np.int64), np.diff(graph.offsets[lo:hi + 1]))
            dst = np.asarray(graph.indices[a:b], dtype=np.int64)
            w = np.asarray(graph.weights[a:b]) if weights else None
            if not graph.directed:
                keep = src <= dst
                src, dst = src[keep], dst[keep]
                w = None if w is None else w[keep]
            if original_ids and graph.original_ids is not None:
                src, dst = graph.original_ids[src], graph.original_ids[dst]
            _write_columns(f, [src, dst] + ([w] if w is not None else []), delimiter)
    os.replace(tmp, p)
    return p


def _write_columns(f, cols: list[np.ndarray], delimiter: str) -> None:
    if not len(cols[0]):
        return
    if _text.pa is not None:
        table = _text.pa.table({f"c{i}": c for i, c in enumerate(cols)})
        _text.pacsv.write_csv(table, f, write_options=_text.pacsv.WriteOptions(
            include_header=False, delimiter=delimiter, quoting_style="none"))
        return
    fmt = delimiter.join(["%d", "%d"] + (["%.9g"] if len(cols) > 2 else []))
    # column_stack makes float64 when weighted: ids stay exact below 2**53.
    np.savetxt(f, np.column_stack(cols), fmt=fmt)
