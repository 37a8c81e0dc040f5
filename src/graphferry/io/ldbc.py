"""LDBC Graphalytics datasets: ``<g>.v``, ``<g>.e`` and ``<g>.properties``.

* ``<g>.v``: one vertex id a line (non-negative integers, not necessarily
  contiguous). Every listed vertex exists in the graph, with or without edges.
* ``<g>.e``: ``src dst [weight]`` a line, ids from ``<g>.v``.
* ``<g>.properties``: Java properties; ``graph.<g>.directed``, the edge
  property names (a weight), and the algorithms' parameters
  (``graph.<g>.bfs.source-vertex``, ``pr.damping-factor``, ``pr.num-iterations``,
  ``cdlp.max-iterations``, ``sssp.source-vertex``, ...).

Vertex ids are renumbered to ``0..n-1`` in ascending order of the original
ids, which are kept as ``graph.original_ids`` (the expected outputs are keyed
by them; :meth:`Graph.to_internal_id` maps a source vertex). The edge file is
always ``<g>.e``: two of the official validation graphs' properties files name
it wrongly (``edge-file = <g>.v``).

Example:
    >>> import tempfile, os
    >>> from graphferry.io.ldbc import read_ldbc
    >>> d = tempfile.mkdtemp()
    >>> _ = open(os.path.join(d, "g.v"), "w").write("10\\n20\\n30\\n")
    >>> _ = open(os.path.join(d, "g.e"), "w").write("10 20 0.5\\n")
    >>> _ = open(os.path.join(d, "g.properties"), "w").write(
    ...     "graph.g.directed = true\\ngraph.g.edge-properties.names = weight\\n"
    ...     "graph.g.bfs.source-vertex = 10\\n")
    >>> g, props = read_ldbc(os.path.join(d, "g"))
    >>> g.n, g.m, g.original_ids.tolist(), props["bfs.source-vertex"], props["directed"]
    (3, 1, [10, 20, 30], 10, True)
"""

from __future__ import annotations

import logging
import os
import re
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import InputError
from ..graph import Graph, index_dtype_for
from . import _text
from .options import ReadOptions

log = logging.getLogger(__name__)

_LIST_KEYS = ("algorithms", "edge-properties.names", "edge-properties.types",
              "vertex-properties.names", "vertex-properties.types")
_INT = re.compile(r"^[+-]?\d+$")
_FLOAT = re.compile(r"^[+-]?(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d+)?$")


def read_properties(path: str | os.PathLike) -> dict[str, str]:
    """Parse a Java ``.properties`` file (``key = value`` / ``key: value``,
    ``#``/``!`` comments, backslash line continuation)."""
    p = str(path)
    try:
        text = Path(p).read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        raise InputError("properties file not found", path=p) from None
    out: dict[str, str] = {}
    pending = ""
    for no, raw in enumerate(text.splitlines(), start=1):
        line = pending + raw.strip() if pending else raw.strip()
        pending = ""
        if not line or line[0] in "#!":
            continue
        if line.endswith("\\") and not line.endswith("\\\\"):
            pending = line[:-1]
            continue
        m = re.match(r"^((?:\\.|[^=:\s])+)\s*[=:\s]\s*(.*)$", line)
        if not m:
            out[line] = ""
            continue
        out[m.group(1)] = m.group(2).strip()
    return out


def _typed(key: str, value: str) -> Any:
    if key in _LIST_KEYS or key.endswith(".names") or key.endswith(".types"):
        return [v.strip() for v in value.split(",") if v.strip()]
    low = value.lower()
    if low in ("true", "false"):
        return low == "true"
    if _INT.match(value):
        return int(value)
    if _FLOAT.match(value):
        return float(value)
    return value


def ldbc_parameters(raw: dict[str, str], name: str) -> dict[str, Any]:
    """Typed parameters of graph ``name``: keys without the ``graph.<name>.`` prefix.

    Example:
        >>> ldbc_parameters({"graph.g.pr.damping-factor": "0.85",
        ...                  "graph.g.algorithms": "bfs, pr"}, "g")
        {'name': 'g', 'pr.damping-factor': 0.85, 'algorithms': ['bfs', 'pr']}
    """
    prefix = f"graph.{name}."
    out: dict[str, Any] = {"name": name}
    for key, value in raw.items():
        short = key[len(prefix):] if key.startswith(prefix) else key
        out[short] = _typed(short, value)
    return out


def _resolve(path: str | os.PathLike) -> tuple[Path, str]:
    p = Path(path)
    s = str(p)
    for suffix in (".properties", ".e", ".v"):
        if s.endswith(suffix):
            p = Path(s[: -len(suffix)])
            break
    return p, p.name


class _VertexIndex:
    """Sorted original ids -> 0..n-1 (lookup table when the ids are dense)."""

    def __init__(self, ids: np.ndarray):
        self.ids = ids
        self.lut = None
        if len(ids):
            lo, hi = int(ids[0]), int(ids[-1])
            if hi - lo + 1 <= 4 * len(ids) + 2**16:
                self.lo = lo
                self.lut = np.full(hi - lo + 1, -1, dtype=index_dtype_for(len(ids)))
                self.lut[ids - lo] = np.arange(len(ids))

    def map(self, a: np.ndarray) -> tuple[np.ndarray, int | None]:
        """``(mapped ids, index of the first unknown id or None)``."""
        n = len(self.ids)
        if n == 0:
            return a.astype(np.int64), (0 if len(a) else None)
        if self.lut is not None:
            rel = a - self.lo
            inside = (rel >= 0) & (rel < len(self.lut))
            out = np.full(len(a), -1, dtype=self.lut.dtype)
            out[inside] = self.lut[rel[inside]]
        else:
            pos = np.searchsorted(self.ids, a)
            pos_c = np.minimum(pos, n - 1)
            out = np.where(self.ids[pos_c] == a, pos_c, -1).astype(index_dtype_for(n))
        bad = np.flatnonzero(out < 0)
        return out, (int(bad[0]) if len(bad) else None)


def _read_vertices(path: str, block_bytes: int) -> np.ndarray:
    spec = _text.ColumnSpec(ids=1, file_columns=1, id_names=("vertex",))
    head = _text.head_lines(path)
    first = _text.first_data_line(head)
    if first is not None:
        spec.delimiter = _text.detect_delimiter(first[1])
        spec.file_columns = len(_text.split_tokens(first[1], spec.delimiter))
    parts = []
    starts = []
    with _text.open_binary(path) as f:
        for block, line in _text.iter_blocks(f, block_bytes):
            parsed = _text.parse_block(block, line, spec, path)
            parts.append(parsed.ids[0])
            starts.append((block, line, parsed.rows))
    ids = np.concatenate(parts) if parts else np.zeros(0, np.int64)
    order = np.argsort(ids, kind="stable")
    sorted_ids = ids[order]
    dup = np.flatnonzero(sorted_ids[1:] == sorted_ids[:-1])
    if len(dup):
        row = int(order[dup[0] + 1])  # the later of the two listings
        for block, line, rows in starts:
            if row < rows:
                raise InputError(f"vertex {int(ids[row])} is listed twice", path=path,
                                 line=_text.line_of_row(block, line, row))
            row -= rows
    return sorted_ids


def _graph_properties(ppath: Path, name: str, directed: bool | None, vpath: str, epath: str
                      ) -> tuple[dict[str, Any], bool]:
    """The graph's typed properties and whether it is directed (``directed`` when given, else the
    properties'); a file name the properties give other than the one read is logged."""
    raw = read_properties(ppath) if ppath.exists() else {}
    if not raw and directed is None:
        raise InputError("properties file not found (needed for 'directed'; or pass directed=)",
                         path=str(ppath))
    params = ldbc_parameters(raw, name)
    for key, actual in (("edge-file", Path(epath).name), ("vertex-file", Path(vpath).name)):
        named = params.get(key)
        if named is not None and named != actual:
            log.warning("%s: %s names %r; reading %r", ppath, key, named, actual)
    if directed is None:
        if not isinstance(params.get("directed"), bool):
            raise InputError("graph.%s.directed missing or not true/false" % name, path=str(ppath))
        directed = params["directed"]
    return params, directed


def _edge_columns(epath: str, params: dict[str, Any], weighted: bool | None) -> _text.ColumnSpec:
    """How the edge file's lines are parsed (delimiter and columns from its first data line);
    ``spec.weight``: weighted when asked, else when the properties name an edge property and
    the file has a third column."""
    head = _text.head_lines(epath)
    first = _text.first_data_line(head)
    spec = _text.ColumnSpec(ids=2, min_id=0)
    if first is not None:
        spec.delimiter = _text.detect_delimiter(first[1])
        spec.file_columns = len(_text.split_tokens(first[1], spec.delimiter))
        if spec.file_columns < 2:
            raise InputError(f"too few columns: expected at least 2, found {spec.file_columns}",
                             path=epath, line=first[0])
    names = params.get("edge-properties.names") or []
    if weighted is None:
        weighted = bool(names) and spec.file_columns >= 3
    if weighted and first is not None and spec.file_columns < 3:
        raise InputError(f"too few columns: a weighted graph needs 3, found {spec.file_columns}",
                         path=epath, line=first[0])
    spec.weight = bool(weighted)
    return spec


def read_ldbc(
    prefix_or_properties_path: str | os.PathLike,
    *,
    options: ReadOptions | None = None,
    block_bytes: int = _text.DEFAULT_BLOCK_BYTES,
    **shared,
) -> tuple[Graph, dict[str, Any]]:
    """Read an LDBC Graphalytics graph; returns ``(graph, parameters)``.

    ``parameters`` holds the properties of the graph with the
    ``graph.<name>.`` prefix removed and values typed (bool, int, float, or
    list for name lists and ``algorithms``), e.g. ``parameters["directed"]``,
    ``parameters["bfs.source-vertex"]``, ``parameters["pr.damping-factor"]``.
    The graph carries them too, as ``graph.meta["ldbc"]``.

    ``weighted=None``: weighted when the properties name an edge property and
    the edge file has a third column. The shared options come as ``options=``
    (:class:`~graphferry.io.options.ReadOptions`) or keywords; an LDBC graph
    is read as it is (its vertex file gives the ids), so ``renumber``, ``n``,
    ``drop_self_loops`` and ``drop_duplicates`` are refused.
    """
    opts = ReadOptions.merged(options, shared)
    opts.refuse("ldbc", "renumber", "n", "drop_self_loops", "drop_duplicates")
    directed, weighted = opts.directed, opts.weighted
    prefix, name = _resolve(prefix_or_properties_path)
    opts.check_target()
    ppath = Path(str(prefix) + ".properties")
    vpath, epath = str(prefix) + ".v", str(prefix) + ".e"
    params, directed = _graph_properties(ppath, name, directed, vpath, epath)

    vids = _read_vertices(vpath, block_bytes)
    promised_v = params.get("meta.vertices")
    if isinstance(promised_v, int) and len(vids) < promised_v:
        raise InputError(f"properties promise {promised_v} vertices but the file has {len(vids)}",
                         path=vpath)
    index = _VertexIndex(vids)

    spec = _edge_columns(epath, params, weighted)
    weighted = spec.weight

    builder = opts.builder(directed=directed, weighted=bool(weighted), original_ids=vids,
                           source=epath, name=name)
    builder.meta.update({"format": "ldbc", "file": epath, "ldbc": params})
    total = 0
    with builder, _text.open_binary(epath) as f:
        for block, line in _text.iter_blocks(f, block_bytes):
            parsed = _text.parse_block(block, line, spec, epath)
            if parsed.rows == 0:
                continue
            src, bad_s = index.map(parsed.ids[0])
            dst, bad_d = index.map(parsed.ids[1])
            if bad_s is not None or bad_d is not None:
                row = min(x for x in (bad_s, bad_d) if x is not None)
                which = parsed.ids[0][row] if bad_s == row else parsed.ids[1][row]
                raise InputError(f"vertex {int(which)} is not listed in {Path(vpath).name}",
                                 path=epath, line=_text.line_of_row(block, line, row))
            builder.add(src, dst, parsed.weights)
            total += parsed.rows
        promised_e = params.get("meta.edges")
        if isinstance(promised_e, int) and total < promised_e:
            raise InputError(f"properties promise {promised_e} edges but the file has {total}",
                             path=epath)
        graph = opts.finish(builder)
    return graph, params
