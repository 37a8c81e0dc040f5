"""Matrix Market (``.mtx``) coordinate files through ``scipy.io.mmread``.

Supported: ``coordinate`` format with ``pattern``, ``real`` or ``integer``
field and ``general`` or ``symmetric`` symmetry. Rows are sources, columns
targets (1-based in the file, 0-based in the graph). ``symmetric`` matrices
become undirected graphs (each stored entry is one edge), ``general`` ones
directed; ``pattern`` matrices are unweighted.

Refused with :class:`~graphferry.errors.InputError` naming the file (and line
where scipy or our checks know it): ``array`` (dense) format, ``complex`` field,
``hermitian``/``skew-symmetric`` symmetry, non-square matrices, entries beyond
the stated size, fewer entries than the header promises, NaN/inf values.

Example:
    >>> import tempfile, os
    >>> from graphferry.io.mtx import read_matrix_market
    >>> path = os.path.join(tempfile.mkdtemp(), "m.mtx")
    >>> _ = open(path, "w").write("%%MatrixMarket matrix coordinate real symmetric\\n"
    ...                           "3 3 2\\n2 1 0.5\\n3 2 2.0\\n")
    >>> g = read_matrix_market(path)
    >>> g.directed, g.n, g.m, g.neighbors(1).tolist()
    (False, 3, 4, [0, 2])
"""

from __future__ import annotations

import logging
import os
import re
from pathlib import Path

import numpy as np

from ..errors import InputError
from ..graph import Graph
from . import _text
from .options import ReadOptions

log = logging.getLogger(__name__)

_LINE = re.compile(r"[Ll]ine (\d+)")


def _size_line(path: str) -> int:
    """Line number of the ``rows cols entries`` line (first non-comment line)."""
    with _text.open_binary(path) as f:
        for no, raw in enumerate(f, start=1):
            s = raw.strip()
            if s and not s.startswith(b"%"):
                return no
    return 1


def _entry_line(path: str, k: int) -> int:
    """Line number of the ``k``-th (0-based) entry line."""
    seen = -2  # the size line comes first
    with _text.open_binary(path) as f:
        for no, raw in enumerate(f, start=1):
            s = raw.strip()
            if not s or s.startswith(b"%"):
                continue
            seen += 1
            if seen == k:
                return no
    return no


def _header(p: str) -> tuple[int, int, str, str]:
    """``(n, entries, field, symmetry)`` from the banner and size line, refused unless the file
    is a square coordinate matrix of a field and symmetry this reader takes."""
    import scipy.io

    try:
        rows, cols, entries, fmt, field, symmetry = scipy.io.mminfo(p)
    except FileNotFoundError:
        raise InputError("file not found", path=p) from None
    except Exception as e:  # scipy raises ValueError for a malformed banner/size line
        raise InputError(f"not a Matrix Market file or bad header ({e})", path=p, line=1) from None
    if fmt != "coordinate":
        raise InputError(f"Matrix Market format {fmt!r} (dense) is not supported; "
                         "only 'coordinate'", path=p, line=1)
    if field not in ("pattern", "real", "integer"):
        raise InputError(f"Matrix Market field {field!r} is not supported "
                         "(use pattern, real or integer)", path=p, line=1)
    if symmetry not in ("general", "symmetric"):
        raise InputError(f"Matrix Market symmetry {symmetry!r} is not supported "
                         "(use general or symmetric)", path=p, line=1)
    if rows != cols:
        raise InputError(f"matrix is {rows} x {cols}; a graph needs a square matrix",
                         path=p, line=_size_line(p))
    return rows, entries, field, symmetry


def _entries(p: str, entries: int):
    """The file's entries (scipy's ``mmread``, a COO matrix); its errors as InputErrors naming the line."""
    import scipy.io

    try:
        return scipy.io.mmread(p)
    except Exception as e:
        msg = str(e)
        m = _LINE.search(msg)
        line = int(m.group(1)) if m else None
        if "runcated" in msg or "premature" in msg.lower():
            raise InputError(f"header promises {entries} entries but the file has fewer ({msg})",
                             path=p, line=_size_line(p)) from None
        raise InputError(f"bad Matrix Market entry ({msg})", path=p, line=line) from None


def read_matrix_market(
    path: str | os.PathLike,
    *,
    options: ReadOptions | None = None,
    **shared,
) -> Graph:
    """Read a Matrix Market coordinate file as a graph (see module docstring).

    ``directed=None`` follows the symmetry (symmetric: undirected). Passing
    ``directed=True`` for a symmetric file stores both triangles as arcs of a
    directed graph; ``directed=False`` for a general file symmetrises it.
    ``weighted=None``: weighted unless the field is ``pattern``. The shared
    options come as ``options=`` (:class:`~graphferry.io.options.ReadOptions`)
    or keywords; ``renumber`` and ``n`` are refused (the size line gives ``n``).
    """
    opts = ReadOptions.merged(options, shared)
    opts.refuse("mtx", "renumber", "n")
    directed, weighted = opts.directed, opts.weighted
    p = str(path)
    opts.check_target()
    rows, entries, field, symmetry = _header(p)
    coo = _entries(p, entries)
    row = np.asarray(coo.row, dtype=np.int64)
    col = np.asarray(coo.col, dtype=np.int64)
    data = None if field == "pattern" else np.asarray(coo.data)
    if symmetry == "symmetric":
        # scipy expands symmetric files to both triangles. Each file entry has
        # exactly one copy with row >= col (the lower triangle the standard
        # stores, or the mirror of a stray upper entry): keep those.
        keep = row >= col
        row, col = row[keep], col[keep]
        data = None if data is None else data[keep]
    if len(row) != entries:
        raise InputError(f"header promises {entries} entries but the file has {len(row)}",
                         path=p, line=_size_line(p))
    if data is not None and data.dtype.kind == "f":
        bad = np.flatnonzero(~np.isfinite(data))
        if len(bad):
            # Kept entries are in file order for files that store the lower
            # triangle as the standard says, so entry k is the k-th entry line.
            raise InputError(f"value {data[bad[0]]} is not finite", path=p,
                             line=_entry_line(p, int(bad[0])))
    if weighted is None:
        weighted = field != "pattern"
    if weighted and data is None:
        raise InputError("a pattern matrix has no values: cannot read it as weighted", path=p, line=1)
    if directed is None:
        directed = symmetry == "general"
    if symmetry == "symmetric" and directed:
        # A directed graph from a symmetric matrix: both triangles are arcs.
        off = row != col
        row, col = np.concatenate([row, col[off]]), np.concatenate([col, row[off]])
        data = None if data is None else np.concatenate([data, data[off]])
    builder = opts.builder(n=rows, directed=directed, weighted=bool(weighted), source=p,
                           name=Path(p).name.split(".")[0])
    builder.meta.update({"format": "matrix-market", "field": field, "symmetry": symmetry, "file": p})
    with builder:
        builder.add(row, col, data if weighted else None)
        return opts.finish(builder)
