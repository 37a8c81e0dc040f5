"""CSV and Parquet edge tables through pyarrow (the optional ``tables`` extra).

Columns are chosen by name or by position: ``src``, ``dst`` and optionally
``weight``. Unless told (``weighted=`` / ``--weighted/--unweighted``), a table
is weighted when one of its columns is named like a weight (case-insensitive:
``weight``, ``weights``, ``w``, ``value``, ``cost``, ``distance``, ``dist``,
``length``; the first such column counts), as a text edge list is weighted when
it has a third column; a headerless CSV likewise by its third column. The
column used is recorded in the graph's ``meta`` (``weight_column``), which
``graphferry info`` shows. Tables are streamed batch by batch into a
:class:`~graphferry.io.builder.CSRBuilder`. Id columns must hold non-negative
integers unless ``renumber=True`` (then any integers or strings). Errors name
the file and the line (CSV: physical line, header included; Parquet: row
number, 1-based).

Example:
    >>> import tempfile, os
    >>> from graphferry.io.tables import read_csv_edges
    >>> path = os.path.join(tempfile.mkdtemp(), "e.csv")
    >>> _ = open(path, "w").write("from,to,cost\\n0,1,2.5\\n1,2,0.5\\n")
    >>> g = read_csv_edges(path, src="from", dst="to", weight="cost")
    >>> g.n, g.m, g.weights.tolist()
    (3, 2, [2.5, 0.5])
"""

from __future__ import annotations

import csv
import logging
import math
import os
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import InputError, excerpt
from ..graph import Graph
from . import _text
from .builder import CSRBuilder
from .options import ReadOptions

def _f32(a: np.ndarray) -> np.ndarray:
    """float32 copy; overflow to inf is expected here (the caller rejects it)."""
    with np.errstate(over="ignore"):
        return np.asarray(a).astype(np.float32)


log = logging.getLogger(__name__)

Column = int | str


def _require_pyarrow(path: str):
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        raise InputError("reading CSV/Parquet tables needs pyarrow: pip install 'graphferry[tables]'",
                         path=path) from None
    import pyarrow as pa

    return pa


def _pick(names: list[str], col: Column, path: str, what: str) -> str:
    if isinstance(col, (int, np.integer)):
        if not 0 <= int(col) < len(names):
            raise InputError(f"{what} column {col} does not exist (the table has {len(names)} columns)",
                             path=path)
        return names[int(col)]
    if col not in names:
        raise InputError(f"{what} column {col!r} not found (columns: {', '.join(names)})", path=path)
    return col


#: Column names that make a table weighted by default (compared in lower case).
WEIGHT_COLUMN_NAMES = ("weight", "weights", "w", "value", "cost", "distance", "dist", "length")


def _weight_choice(names: list[str], s_name: str, d_name: str, weight: Column | None,
                   weighted: bool | None, named: bool, path: str) -> str | None:
    """The weight column's name, or None for an unweighted graph (rule in the module docstring)."""
    if weighted is None and weight is None:
        others = [c for c in names if c not in (s_name, d_name)]
        if named:
            weight = next((c for c in others if c.strip().lower() in WEIGHT_COLUMN_NAMES), None)
        elif len(names) >= 3:
            weight = names.index(d_name) + 1 if names.index(d_name) + 1 < len(names) else None
        if weight is not None:
            log.info("%s: weighted by column %r", path, weight if isinstance(weight, str) else names[weight])
    if weighted is None:
        weighted = weight is not None
    if not weighted:
        return None
    if weight is None:
        weight = names.index(d_name) + 1
    return _pick(names, weight, path, "weight")


def _builder(opts: ReadOptions, path: str, weighted: bool, n: int | None, fmt: str) -> CSRBuilder:
    """A table's builder: directed unless told (a table says nothing of direction)."""
    b = opts.builder(n=n, directed=True if opts.directed is None else opts.directed, weighted=weighted,
                     source=path, name=Path(path).name.split(".")[0])
    b.meta.update({"format": fmt, "file": path})
    return b


def _check_ids(a: np.ndarray, renumber: bool, n: int | None) -> int | None:
    """Index of the first id breaking the rules, or None."""
    if renumber or len(a) == 0:
        return None
    bad = a < 0
    if n is not None:
        bad |= a >= n
    hits = np.flatnonzero(bad)
    return int(hits[0]) if len(hits) else None


def _column_numpy(col, kind: str, renumber: bool, path: str, what: str) -> np.ndarray:
    import pyarrow as pa

    t = col.type
    if pa.types.is_integer(t):
        if col.null_count:
            raise InputError(f"{what} column has missing values", path=path)
        return col.to_numpy().astype(np.int64, copy=False)
    if kind == "id" and (pa.types.is_string(t) or pa.types.is_large_string(t)) and renumber:
        return np.asarray(col.to_numpy(zero_copy_only=False), dtype=str)
    if kind == "weight" and (pa.types.is_floating(t) or pa.types.is_integer(t)):
        return col.to_numpy(zero_copy_only=False).astype(np.float64)
    raise InputError(f"{what} column has type {t}; "
                     + ("ids must be integers (or renumber them: --renumber, renumber=True)" if kind == "id"
                        else "weights must be numbers"), path=path)


# ---------------------------------------------------------------------- CSV
def _diagnose_csv(path: str, delimiter: str, header: bool, cols: list[int], weight_pos: int | None,
                  renumber: bool, n: int | None, fallback: str) -> InputError:
    """Scan the CSV in Python for the first line breaking a rule; an InputError."""
    with _text.open_binary(path) as fb:
        import io

        f = io.TextIOWrapper(fb, encoding="utf-8", errors="replace", newline="")
        reader = csv.reader(f, delimiter=delimiter)
        need = max(cols + ([weight_pos] if weight_pos is not None else [])) + 1
        for row in reader:
            line = reader.line_num
            if header and line == 1:
                continue
            if not row or (len(row) == 1 and not row[0].strip()):
                continue
            if len(row) < need:
                return InputError(f"too few columns: expected at least {need}, found {len(row)}",
                                  path=path, line=line)
            for k, c in enumerate(cols):
                tok = row[c].strip()
                if renumber:
                    if not tok:
                        return InputError("empty vertex id", path=path, line=line)
                    continue
                try:
                    v = int(tok)
                except ValueError:
                    return InputError(f"non-numeric vertex id {excerpt(tok)}", path=path, line=line)
                if v < 0:
                    return InputError(f"negative vertex id {v}", path=path, line=line)
                if n is not None and v >= n:
                    return InputError(f"vertex id {v} is out of range for n = {n}", path=path, line=line)
            if weight_pos is not None:
                tok = row[weight_pos].strip()
                try:
                    w = float(tok)
                except ValueError:
                    return InputError(f"non-numeric weight {excerpt(tok)}", path=path, line=line)
                if not math.isfinite(w) or abs(w) > float(np.finfo(np.float32).max):
                    return InputError(f"weight {tok} is not a finite float32", path=path, line=line)
    return InputError(fallback, path=path)


def _csv_columns(p: str, header: bool, delimiter: str, src: Column, dst: Column, weight: Column | None,
                 weighted: bool | None, renumber: bool) -> tuple[list[str], str, str, str | None, dict]:
    """The CSV's column names (from its header, or ``f0, f1, ...``), the source, target and weight
    columns chosen, and the pyarrow type each is read as."""
    import pyarrow as pa

    head = _text.head_lines(p, 1 << 16)
    if not head or not head[0][1].strip():
        raise InputError("empty CSV file", path=p, line=1)
    first = next(csv.reader([head[0][1].decode("utf-8", "replace").rstrip("\r")], delimiter=delimiter))
    names = [c.strip() for c in first] if header else [f"f{i}" for i in range(len(first))]
    s_name = _pick(names, src, p, "source")
    d_name = _pick(names, dst, p, "target")
    w_name = _weight_choice(names, s_name, d_name, weight, weighted, header, p)
    id_type = pa.string() if renumber else pa.int64()
    types = {s_name: id_type, d_name: id_type}
    if renumber:
        # Numeric labels stay numbers (so they sort numerically).
        data = _text.first_data_line(head[1:] if header else head)
        if data is not None:
            row = next(csv.reader([data[1].decode("utf-8", "replace")], delimiter=delimiter))
            ids_numeric = all(_text.is_int_token(row[names.index(c)].strip().encode())
                              for c in (s_name, d_name) if names.index(c) < len(row))
            if ids_numeric:
                types = {s_name: pa.int64(), d_name: pa.int64()}
    if w_name is not None:
        types[w_name] = pa.float64()
    return names, s_name, d_name, w_name, types


def _csv_batch_edges(batch, s_name: str, d_name: str, w_name: str | None, renumber: bool, n: int | None,
                     p: str, fail) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """One record batch's sources, targets and weights, checked (``fail(message)``: the error,
    after a scan of the file for the line that broke the rule)."""
    s = batch.column(s_name)
    d = batch.column(d_name)
    if s.null_count or d.null_count:
        raise fail("missing vertex id")
    s = _column_numpy(s, "id", renumber, p, "source")
    d = _column_numpy(d, "id", renumber, p, "target")
    if _check_ids(s, renumber, n) is not None or _check_ids(d, renumber, n) is not None:
        raise fail("bad vertex id")
    w = None
    if w_name:
        wc = batch.column(w_name)
        if wc.null_count:
            raise fail("missing weight")
        w = wc.to_numpy(zero_copy_only=False)
        if not np.isfinite(w).all() or not np.isfinite(_f32(w)).all():
            raise fail("weight is not finite")
    return s, d, w


def read_csv_edges(
    path: str | os.PathLike,
    *,
    src: Column = 0,
    dst: Column = 1,
    weight: Column | None = None,
    header: bool = True,
    delimiter: str = ",",
    options: ReadOptions | None = None,
    block_bytes: int = _text.DEFAULT_BLOCK_BYTES,
    **shared,
) -> Graph:
    """Read an edge table from CSV (optionally compressed) with pyarrow's streaming reader.

    ``weighted=None``: weighted iff ``weight`` is given or a column is named
    like a weight (a headerless file: has a third column), see the module
    docstring; ``weighted=True`` without ``weight`` takes the column after
    ``dst`` (by position); ``weighted=False`` ignores any weight column;
    ``directed=None`` means ``True``. The shared options come as ``options=``
    (:class:`~graphferry.io.options.ReadOptions`) or keywords.
    """
    opts = ReadOptions.merged(options, shared)
    weighted, n = opts.weighted, opts.n
    p = str(path)
    opts.check_target()
    pa = _require_pyarrow(p)
    import pyarrow.csv as pacsv

    renumber = bool(opts.renumber)
    names, s_name, d_name, w_name, types = _csv_columns(p, header, delimiter, src, dst, weight, weighted, renumber)
    weighted = w_name is not None
    include = [s_name, d_name] + ([w_name] if w_name else [])
    cols_pos = [names.index(s_name), names.index(d_name)]
    w_pos = names.index(w_name) if w_name else None

    def fail(msg: str) -> InputError:
        return _diagnose_csv(p, delimiter, header, cols_pos, w_pos,
                             renumber and types[s_name] == pa.string(), n, msg)

    builder = _builder(opts, p, bool(weighted), n if not renumber else None, "csv")
    if w_name is not None:
        builder.meta["weight_column"] = w_name
    with builder:
        report = _text.bytes_listener()
        # a compressed stream's position counts decompressed bytes: progress only for plain files
        if report is not None and p.lower().endswith((".gz", ".bz2", ".xz", ".zst", ".lz4")):
            report = None
        try:
            stream = pa.input_stream(p, compression="detect")
            reader = pacsv.open_csv(
                stream,
                read_options=pacsv.ReadOptions(column_names=names, skip_rows=1 if header else 0,
                                               block_size=min(block_bytes, 1 << 26)),
                parse_options=pacsv.ParseOptions(delimiter=delimiter),
                convert_options=pacsv.ConvertOptions(column_types=types, include_columns=include,
                                                     strings_can_be_null=False),
            )
            for batch in reader:
                builder.add(*_csv_batch_edges(batch, s_name, d_name, w_name, renumber, n, p, fail))
                if report is not None:
                    report(p, stream.tell())
        except (pa.ArrowInvalid, pa.ArrowTypeError) as e:
            raise fail(f"CSV error: {e}") from None
        return opts.finish(builder)


# ------------------------------------------------------------------ Parquet
def read_parquet_edges(
    path: str | os.PathLike,
    *,
    src: Column = 0,
    dst: Column = 1,
    weight: Column | None = None,
    options: ReadOptions | None = None,
    batch_rows: int = 1 << 22,
    **shared,
) -> Graph:
    """Read an edge table from Parquet, row group by row group.

    Errors give ``line`` = 1-based row number. Columns and weights as for
    :func:`read_csv_edges`; the shared options come as ``options=``
    (:class:`~graphferry.io.options.ReadOptions`) or keywords.
    """
    opts = ReadOptions.merged(options, shared)
    weighted, n = opts.weighted, opts.n
    p = str(path)
    opts.check_target()
    _require_pyarrow(p)
    import pyarrow.parquet as pq

    renumber = bool(opts.renumber)
    try:
        pf = pq.ParquetFile(p)
    except FileNotFoundError:
        raise InputError("file not found", path=p) from None
    except Exception as e:
        raise InputError(f"not a readable Parquet file ({e})", path=p) from None
    names = list(pf.schema_arrow.names)
    s_name = _pick(names, src, p, "source")
    d_name = _pick(names, dst, p, "target")
    w_name = _weight_choice(names, s_name, d_name, weight, weighted, True, p)
    weighted = w_name is not None
    columns = [s_name, d_name] + ([w_name] if w_name else [])
    rows_done = 0
    builder = _builder(opts, p, bool(weighted), n if not renumber else None, "parquet")
    if w_name is not None:
        builder.meta["weight_column"] = w_name
    report = _text.bytes_listener()
    size = os.path.getsize(p)
    with builder:
        for batch in pf.iter_batches(batch_size=batch_rows, columns=columns):
            s = _column_numpy(batch.column(s_name), "id", renumber, p, f"source ({s_name!r})")
            d = _column_numpy(batch.column(d_name), "id", renumber, p, f"target ({d_name!r})")
            for arr in (s, d):
                i = _check_ids(arr, renumber, n)
                if i is not None:
                    v = int(arr[i])
                    what = f"negative vertex id {v}" if v < 0 else f"vertex id {v} is out of range for n = {n}"
                    raise InputError(f"{what} (row {rows_done + i + 1})", path=p, line=rows_done + i + 1)
            w = None
            if w_name:
                wc = batch.column(w_name)
                if wc.null_count:
                    i = int(np.flatnonzero(wc.is_null().to_numpy(zero_copy_only=False))[0])
                    raise InputError(f"missing weight (row {rows_done + i + 1})", path=p,
                                     line=rows_done + i + 1)
                w = _column_numpy(wc, "weight", renumber, p, f"weight ({w_name!r})")
                bad = np.flatnonzero(~np.isfinite(_f32(w)))
                if len(bad):
                    i = int(bad[0])
                    raise InputError(f"weight {w[i]} is not a finite float32 (row {rows_done + i + 1})",
                                     path=p, line=rows_done + i + 1)
            builder.add(s, d, w)
            rows_done += batch.num_rows
            if report is not None:  # rows are what Parquet counts: the same fraction of the file's bytes
                report(p, size * rows_done // max(pf.metadata.num_rows, 1))
        return opts.finish(builder)


def write_parquet_edges(graph: Graph, path: str | os.PathLike, *, weights: bool | None = None) -> Path:
    """Write the arcs of ``graph`` as a Parquet table ``src, dst[, weight]`` (undirected: once)."""
    p = str(path)
    pa = _require_pyarrow(p)
    import pyarrow.parquet as pq

    src, dst = graph.edges()
    w = np.asarray(graph.weights) if (graph.weighted if weights is None else weights) else None
    if not graph.directed:
        keep = src <= dst
        src, dst = src[keep], dst[keep]
        w = None if w is None else w[keep]
    cols: dict[str, Any] = {"src": src, "dst": dst}
    if w is not None:
        cols["weight"] = w
    pq.write_table(pa.table(cols), p)
    return Path(p)
