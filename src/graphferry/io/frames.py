"""Graphs from edge tables in memory: pandas data frames and Arrow data.

:func:`from_pandas` reads two id columns and an optional weight column of a
pandas ``DataFrame``. :func:`from_arrow` reads any object that exports Arrow
data through the Arrow PyCapsule interface (``__arrow_c_stream__`` or
``__arrow_c_array__``: a pyarrow ``Table``/``RecordBatch``/``RecordBatchReader``,
a polars or pandas ``DataFrame``, a DuckDB result, ...), batch by batch,
through pyarrow (the optional ``tables`` extra), so a stream larger than
memory spills to disk in the builder instead of being held whole.

The rules are those of the file readers (:mod:`graphferry.io.tables`):

* ids are integers or strings. Non-negative integers are used as given;
  string ids are renumbered to ``0..n-1`` (sorted), and ``renumber=True``
  does the same for integers (any, negatives included). Either way the input's
  ids stay in ``graph.original_ids``, so results speak them
  (``Result.to_table()``, ``Result.to_pandas()``).
* the graph is weighted when ``weight=`` names a column (numbers, finite as
  float32); directed unless ``directed=False``.
* every problem is a ``ValueError`` naming the argument or column, and the row
  (0-based, as ``df.iloc`` counts) for bad values.

Example:
    >>> import pandas as pd
    >>> from graphferry.io.frames import from_pandas
    >>> df = pd.DataFrame({"src": ["a", "b"], "dst": ["b", "c"], "w": [2.5, 1.0]})
    >>> g = from_pandas(df, source="src", target="dst", weight="w", directed=False)
    >>> g.n, g.m, g.original_ids.tolist(), g.weights.tolist()
    (3, 4, ['a', 'b', 'c'], [2.5, 2.5, 1.0, 1.0])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import InputError
from ..graph import Graph
from .options import ReadOptions


def require_pyarrow(what: str):
    """pyarrow, or an ImportError saying what needed it and how to install it."""
    try:
        import pyarrow
    except ImportError:
        raise ImportError(f"{what} needs pyarrow: pip install 'graphferry[tables]' (or pip install pyarrow)") \
            from None
    return pyarrow


def _first_row(mask: np.ndarray, offset: int) -> int:
    return offset + int(np.flatnonzero(mask)[0])


def _ids(values: np.ndarray, what: str, offset: int, renumber: bool = True) -> np.ndarray:
    """One batch of an id column as int64 or str; ValueError naming the column and row.

    Negative integers are refused unless ``renumber``.
    """
    if values.dtype.kind == "O":
        kinds = {type(v) for v in values}
        if not kinds:  # an empty column of no particular type
            values = np.zeros(0, dtype=np.int64)
        elif all(issubclass(k, str) for k in kinds):
            # numpy's str arrays drop trailing NULs: "a\0" would become vertex "a"
            bad = [i for i, v in enumerate(values) if v.endswith("\x00")]
            if bad:
                raise ValueError(f"{what}: id {values[bad[0]]!r} (row {offset + bad[0]}) ends in a NUL "
                                 "character, which numpy's strings cannot hold")
            values = np.asarray(values, dtype=str)
        elif kinds and all(issubclass(k, (int, np.integer)) and not issubclass(k, (bool, np.bool_))
                           for k in kinds):
            try:
                values = np.asarray(values, dtype=np.int64)
            except OverflowError:
                raise ValueError(f"{what}: an id does not fit int64") from None
        else:
            names = ", ".join(sorted(k.__name__ for k in kinds))
            raise ValueError(f"{what}: values of type {names}; vertex ids must be all integers or all strings")
    if values.dtype.kind in "iu":
        if values.dtype.kind == "u" and len(values) and values.max() >= 2**63:
            raise ValueError(f"{what}: id {int(values.max())} (row {_first_row(values >= 2**63, offset)}) "
                             "does not fit int64")
        ids = values.astype(np.int64, copy=False)
        if not renumber and len(ids) and ids.min() < 0:
            raise ValueError(f"{what}: negative vertex id {int(ids.min())} (row {_first_row(ids < 0, offset)}); "
                             "pass renumber=True to map any ids to 0..n-1")
        return ids
    if values.dtype.kind == "U":
        return values
    raise ValueError(f"{what}: dtype {values.dtype}; vertex ids must be integers or strings")


def _weights(values: np.ndarray, what: str, offset: int) -> np.ndarray:
    if values.dtype.kind == "O" and all(isinstance(v, (int, float, np.integer, np.floating))
                                       and not isinstance(v, (bool, np.bool_)) for v in values):
        values = np.asarray(values, dtype=np.float64)  # Python numbers (or none) in an object column
    if values.dtype.kind not in "iuf":
        raise ValueError(f"{what}: dtype {values.dtype}; weights must be numbers")
    w = values.astype(np.float64, copy=False)
    with np.errstate(over="ignore"):
        bad = ~np.isfinite(w.astype(np.float32))
    if bad.any():
        row = _first_row(bad, offset)
        raise ValueError(f"{what}: weight {w[row - offset]} (row {row}) is not a finite float32")
    return w


class _Columns:
    """Which columns to read, checked against the input's column names once."""

    def __init__(self, names: list, source: Any, target: Any, weight: Any, opts: ReadOptions):
        for arg, col in (("source", source), ("target", target), ("weight", weight)):
            if col is not None and col not in names:
                shown = ", ".join(map(repr, names))
                raise ValueError(f"{arg}={col!r}: no such column (columns: {shown})")
        if source == target:
            raise ValueError(f"source and target name the same column {source!r}")
        if opts.weighted and weight is None:
            raise ValueError("weighted=True needs weight= (the column holding the weights)")
        self.source, self.target = source, target
        self.weight = None if opts.weighted is False else weight

    def what(self, arg: str) -> str:
        return f"{arg} column {getattr(self, arg)!r}"


def _build(opts: ReadOptions, cols: _Columns, batches, string_ids: bool, source: str, meta: dict) -> Graph:
    """Feed ``(offset, src, dst, weights)`` batches of numpy columns into one builder."""
    renumber = string_ids if opts.renumber is None else bool(opts.renumber)
    if string_ids and not renumber:
        raise ValueError("string vertex ids need renumbering; renumber=False forbids it")
    b = opts.builder(n=None if renumber else opts.n, directed=opts.directed is not False,
                     weighted=cols.weight is not None, renumber=renumber, source=source, name=source)
    b.meta.update(meta)
    if cols.weight is not None:
        b.meta["weight_column"] = str(cols.weight)
    with b:
        for offset, s, d, w in batches:
            s = _ids(s, cols.what("source"), offset, renumber)
            d = _ids(d, cols.what("target"), offset, renumber)
            if s.dtype.kind != d.dtype.kind:
                raise ValueError(f"{cols.what('source')} and {cols.what('target')} hold different id types "
                                 f"({s.dtype} and {d.dtype})")
            if not renumber and opts.n is not None:
                for arg, ids in (("source", s), ("target", d)):
                    if len(ids) and ids.max() >= opts.n:
                        raise ValueError(f"{cols.what(arg)}: vertex id {int(ids.max())} (row "
                                         f"{_first_row(ids >= opts.n, offset)}) is not below n = {opts.n}")
            b.add(s, d, None if w is None else _weights(w, cols.what("weight"), offset))
        try:
            return opts.finish(b)
        except InputError as e:  # e.g. a given n that renumbering contradicts: name the argument, not a file
            raise ValueError(e.problem) from None


def from_pandas(df, source: Any = "source", target: Any = "target", weight: Any = None, *,
                options: ReadOptions | None = None, **shared) -> Graph:
    """A graph from the edge table ``df`` (a pandas ``DataFrame``), one edge a row.

    ``source``/``target``: the id columns; ``weight``: the weight column (or
    None: unweighted). The shared options come as ``options=``
    (:class:`~graphferry.io.options.ReadOptions`) or keywords: ``directed``
    (default ``True``), ``renumber`` (default: when the ids are strings),
    ``n``, ``drop_self_loops``, ``drop_duplicates``, ``store``, ...
    Rules and errors: see the module docstring.

    Example:
        >>> import pandas as pd
        >>> df = pd.DataFrame({"source": [10, 20, -5], "target": [20, 30, 10]})
        >>> g = from_pandas(df, renumber=True)
        >>> g.original_ids.tolist(), g.to_original_ids(g.neighbors(g.to_internal_id(10))).tolist()
        ([-5, 10, 20, 30], [20])
        >>> from_pandas(df, target="dst")
        Traceback (most recent call last):
        ...
        ValueError: target='dst': no such column (columns: 'source', 'target')
    """
    import pandas as pd

    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"df must be a pandas DataFrame, got {type(df).__name__}")
    opts = ReadOptions.merged(options, shared)
    cols = _Columns(list(df.columns), source, target, weight, opts)
    picked = {arg: df[getattr(cols, arg)] for arg in ("source", "target", "weight") if getattr(cols, arg) is not None}
    for arg, column in picked.items():
        if isinstance(column, pd.DataFrame):
            raise ValueError(f"{arg}={getattr(cols, arg)!r}: the data frame has several columns of that name")
        missing = column.isna().to_numpy()
        if missing.any():
            raise ValueError(f"{cols.what(arg)}: missing value (row {_first_row(missing, 0)})")

    def numpy(arg: str) -> np.ndarray:
        column = picked[arg]
        if pd.api.types.is_bool_dtype(column.dtype):
            raise ValueError(f"{cols.what(arg)}: dtype bool; " +
                             ("weights must be numbers" if arg == "weight" else
                              "vertex ids must be integers or strings"))
        if pd.api.types.is_string_dtype(column.dtype) and not pd.api.types.is_object_dtype(column.dtype):
            return column.to_numpy(dtype=object)  # str objects: _ids checks them
        if isinstance(column.dtype, pd.api.extensions.ExtensionDtype) and \
                pd.api.types.is_numeric_dtype(column.dtype):  # nullable Int64/Float64 without missing values
            return column.to_numpy(dtype=column.dtype.numpy_dtype)
        return column.to_numpy()

    s = _ids(numpy("source"), cols.what("source"), 0)
    d = _ids(numpy("target"), cols.what("target"), 0)
    string_ids = s.dtype.kind == "U" or d.dtype.kind == "U"
    w = numpy("weight") if "weight" in picked else None
    return _build(opts, cols, [(0, s, d, w)], string_ids, "dataframe", {"format": "pandas"})


def from_arrow(data, source: str = "source", target: str = "target", weight: str | None = None, *,
               options: ReadOptions | None = None, **shared) -> Graph:
    """A graph from any Arrow-exporting object, read through the Arrow PyCapsule interface.

    ``data`` exposes ``__arrow_c_stream__`` (a table or stream: read batch by
    batch) or ``__arrow_c_array__`` (one record batch). Columns and the shared
    options as for :func:`from_pandas`. Needs pyarrow (``pip install
    'graphferry[tables]'``); without it, an ImportError says so.

    Example:
        >>> import pyarrow as pa
        >>> t = pa.table({"source": [0, 1], "target": [1, 2], "cost": [1.5, 2.0]})
        >>> g = from_arrow(t, weight="cost")
        >>> g.n, g.m, g.weights.tolist(), g.meta["weight_column"]
        (3, 2, [1.5, 2.0], 'cost')
    """
    if not (hasattr(data, "__arrow_c_stream__") or hasattr(data, "__arrow_c_array__")):
        raise TypeError(f"data must export Arrow data (__arrow_c_stream__ or __arrow_c_array__), "
                        f"got {type(data).__name__}")
    pa = require_pyarrow("graphferry.from_arrow")
    opts = ReadOptions.merged(options, shared)
    if hasattr(data, "__arrow_c_stream__"):
        reader = pa.RecordBatchReader.from_stream(data)
        schema, batches = reader.schema, iter(reader)
    else:
        batch = pa.record_batch(data)
        schema, batches = batch.schema, iter([batch])
    cols = _Columns(list(schema.names), source, target, weight, opts)

    def plain(t):  # a dictionary-encoded column reads as its values
        return t.value_type if pa.types.is_dictionary(t) else t

    def is_text(t) -> bool:
        return pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_string_view(t)

    string_ids = any(is_text(plain(schema.field(getattr(cols, arg)).type)) for arg in ("source", "target"))

    def numpy(batch, arg: str, offset: int) -> np.ndarray:
        column = batch.column(getattr(cols, arg))
        if column.null_count:
            missing = column.is_null().to_numpy(zero_copy_only=False)
            raise ValueError(f"{cols.what(arg)}: missing value (row {_first_row(missing, offset)})")
        if pa.types.is_dictionary(column.type):
            column = column.cast(column.type.value_type)
        t = column.type
        if arg != "weight" and is_text(t):
            return column.to_numpy(zero_copy_only=False)  # str objects: _ids checks them
        if not (pa.types.is_integer(t) or (arg == "weight" and pa.types.is_floating(t))):
            raise ValueError(f"{cols.what(arg)}: Arrow type {t}; " +
                             ("weights must be numbers" if arg == "weight" else
                              "vertex ids must be integers or strings"))
        return column.to_numpy(zero_copy_only=False)

    def numpy_batches():
        offset = 0
        for batch in batches:
            w = numpy(batch, "weight", offset) if cols.weight is not None else None
            yield offset, numpy(batch, "source", offset), numpy(batch, "target", offset), w
            offset += batch.num_rows

    return _build(opts, cols, numpy_batches(), string_ids, "arrow", {"format": "arrow"})
