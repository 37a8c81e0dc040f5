"""Readers, writers and the streaming CSR builder.

:func:`read_graph` picks a reader by ``format`` or, with ``format="auto"``, by
the file's name and first bytes:

============  ================================================  ==============================
format        files                                             reader
============  ================================================  ==============================
``store``     a directory with ``manifest.json``                :func:`graphferry.store.open_store`
``edgelist``  SNAP/Konect/graphferry text (``.gz``/``.bz2``/``.xz``)  :func:`read_edgelist`
``mtx``       Matrix Market ``.mtx``/``.mm``                    :func:`read_matrix_market`
``ldbc``      LDBC Graphalytics ``<g>.properties/.v/.e``        :func:`read_ldbc`
``csv``       ``.csv`` edge tables (pyarrow)                    :func:`read_csv_edges`
``parquet``   ``.parquet``/``.pq`` edge tables (pyarrow)        :func:`read_parquet_edges`
``gr``        Galois binary ``.gr``/``.sgr``                    :func:`read_gr`
============  ================================================  ==============================

In memory: :func:`from_arrays`, :func:`from_scipy`, :func:`from_networkx`,
:func:`from_pandas` and :func:`from_arrow` (any Arrow PyCapsule exporter). The
package's top level offers them as ``graphferry.from_file`` (:func:`read_graph`),
``graphferry.from_scipy``, ``from_networkx``, ``from_pandas`` and ``from_arrow``: they
live here, above :mod:`graphferry.graph`, which imports neither this package nor the store. Every reader and converter takes the shared
options as one :class:`ReadOptions` (``options=``) or as keywords.

Every reader raises :class:`graphferry.errors.InputError` naming the file,
the line and the problem, and with ``store=path`` writes a graph store
atomically (nothing is left behind on error) and returns it memory-mapped.

Example:
    >>> import tempfile, os
    >>> from graphferry.io import read_graph
    >>> d = tempfile.mkdtemp()
    >>> _ = open(os.path.join(d, "g.txt"), "w").write("# Directed graph\\n0\\t1\\n1\\t2\\n")
    >>> g = read_graph(os.path.join(d, "g.txt"), store=os.path.join(d, "g.store"))
    >>> g.n, g.m, g.directed, g.meta["store"].endswith("g.store")
    (3, 2, True, True)
"""

from __future__ import annotations

import os
from pathlib import Path

from ..errors import InputError
from ..graph import Graph
from .builder import CSRBuilder, build_from_arrays
from .convert import from_arrays, from_networkx, from_scipy, to_networkx
from .edgelist import read_edgelist, write_edgelist
from .frames import from_arrow, from_pandas
from .galois import read_gr, write_gr
from .ldbc import read_ldbc, read_properties
from .mtx import read_matrix_market
from .options import ReadOptions
from ._text import reporting_bytes_read
from .tables import read_csv_edges, read_parquet_edges, write_parquet_edges

__all__ = [
    "CSRBuilder", "ReadOptions", "build_from_arrays", "detect_format", "from_arrays", "from_arrow",
    "from_networkx", "from_pandas", "from_scipy", "read_csv_edges", "read_edgelist", "read_gr", "read_graph", "read_ldbc",
    "read_matrix_market", "read_parquet_edges", "read_properties", "reporting_bytes_read", "to_networkx",
    "write_edgelist", "write_gr", "write_parquet_edges",
]

FORMATS = ("store", "edgelist", "mtx", "ldbc", "csv", "parquet", "gr")
_COMPRESSED = (".gz", ".bz2", ".xz")


def detect_format(path: str | os.PathLike) -> str:
    """The format :func:`read_graph` would use for ``path`` with ``format="auto"``."""
    from ..store import is_store

    p = Path(path)
    if p.is_dir():
        if is_store(p):
            return "store"
        raise InputError("is a directory but not a graph store (no manifest.json)", path=str(p))
    name = p.name.lower()
    for c in _COMPRESSED:
        if name.endswith(c):
            name = name[: -len(c)]
            break
    suffix = os.path.splitext(name)[1]
    if suffix in (".mtx", ".mm"):
        return "mtx"
    if suffix in (".gr", ".sgr"):
        return "gr"
    if suffix in (".parquet", ".pq"):
        return "parquet"
    if suffix == ".csv":
        return "csv"
    if suffix == ".properties":
        return "ldbc"
    stem = str(p)[: -len(suffix)] if suffix in (".e", ".v") else str(p)
    if (suffix in (".e", ".v") or not p.exists()) and Path(stem + ".e").exists() \
            and Path(stem + ".v").exists():
        return "ldbc"
    if p.is_file():
        from ._text import open_binary

        with open_binary(p) as f:
            head = f.read(64)
        if head.startswith(b"%%MatrixMarket"):
            return "mtx"
    return "edgelist"


def read_graph(
    path: str | os.PathLike,
    format: str = "auto",
    *,
    options: ReadOptions | None = None,
    **keywords,
) -> Graph:
    """Read a graph file of any supported format (see the module docstring).

    The options every reader shares (``directed``, ``weighted``, ``renumber``,
    ``n``, ``drop_self_loops``, ``drop_duplicates``, ``sort_neighbors``,
    ``store``, ``overwrite``, ``name``, ``workdir``) come as ``options=``
    (:class:`~graphferry.io.options.ReadOptions`) or as keywords; ``None``
    lets the format decide (header, properties, columns). ``store``: also
    write a graph store there and return the graph memory-mapped from it.
    Other keywords go to the format's reader (e.g. ``src=``/``dst=``/``weight=``
    for tables, ``weight_dtype=`` for ``.gr``). A reader refuses shared options
    its format cannot honour (``renumber`` for ``.mtx``) with a ValueError
    naming both. For LDBC the parameters are in ``graph.meta["ldbc"]``.
    ``graphferry.from_file`` is this function.

    Example:
        >>> import os, tempfile
        >>> import graphferry as gf
        >>> path = os.path.join(tempfile.mkdtemp(), "g.csv")
        >>> _ = open(path, "w").write("from,to,cost\\na,b,2.5\\nb,c,1\\n")
        >>> g = gf.from_file(path, src="from", dst="to", renumber=True, directed=False)
        >>> g.n, g.m, g.weighted, g.original_ids.tolist()
        (3, 4, True, ['a', 'b', 'c'])
    """
    fmt = detect_format(path) if format == "auto" else format
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {format!r}; expected 'auto' or one of {FORMATS}")
    shared, own = ReadOptions.split(keywords)
    opts = ReadOptions.merged(options, shared)
    if fmt == "store":
        from ..store import open_store

        opts.refuse("store", "directed", "weighted", "renumber", "n", "drop_self_loops",
                    "drop_duplicates", "sort_neighbors", "name", "workdir")
        return opts.keep(open_store(path, verify=bool(own.pop("verify", False)), **own))
    if fmt == "ldbc":
        graph, _params = read_ldbc(path, options=opts, **own)
        return graph
    reader = {"edgelist": read_edgelist, "mtx": read_matrix_market, "gr": read_gr,
              "csv": read_csv_edges, "parquet": read_parquet_edges}[fmt]
    return reader(path, options=opts, **own)
