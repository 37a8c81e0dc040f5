"""The sorting and scatter passes of CSR building, over blocks of rows: counting sort by row,
per-row sort (and deduplication), cursor positions, row blocks.

:class:`~graphferry.io.builder.CSRBuilder` runs them on its segments; the hub sort
(:mod:`graphferry.transforms`) and the readers that write in row blocks use them too. The
counting sort and the per-row sort are scipy's C++ sparse tools where present (numpy fallbacks).

Example:
    >>> import numpy as np
    >>> ptr, cols, data = stable_csr(3, np.array([2, 0, 2]), np.array([5, 6, 7]), None)
    >>> ptr.tolist(), cols.tolist(), data
    ([0, 1, 1, 3], [6, 5, 7], None)
    >>> list(row_blocks(np.array([0, 4, 5, 9, 10]), max_arcs=5))
    [(0, 2), (2, 4)]
"""

from __future__ import annotations

import numpy as np

from ..graph import offsets_from_degrees

try:  # C++ counting sort / per-row sort from scipy; numpy fallbacks below.
    from scipy.sparse import _sparsetools as _st

    _coo_tocsr = _st.coo_tocsr
    _csr_sort_indices = _st.csr_sort_indices
except (ImportError, AttributeError):  # pragma: no cover - depends on scipy internals
    _coo_tocsr = None
    _csr_sort_indices = None

_INT32_MAX = 2**31 - 1
#: the shared index array grows to at least this many entries (two of the builder's segments)
_ARANGE_AT_LEAST = 4 * 2**20


def stable_csr(rows: int, ai: np.ndarray, aj: np.ndarray, ax: np.ndarray | None
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Counting sort of arcs by row, stable: ``(row_ptr, cols, data)``.

    ``ai`` in ``[0, rows)``. Uses scipy's C++ ``coo_tocsr`` (O(arcs + rows));
    numpy's stable argsort otherwise.
    """
    k = len(ai)
    it = np.int32 if max(rows, k, int(aj.max(initial=0)) + 1) <= _INT32_MAX else np.int64
    if _coo_tocsr is not None:
        ai = ai.astype(it, copy=False)
        aj = aj.astype(it, copy=False)
        data = ax if ax is not None else np.zeros(k, dtype=np.int8)
        bp = np.empty(rows + 1, dtype=it)
        bj = np.empty(k, dtype=it)
        bx = np.empty(k, dtype=data.dtype)
        _coo_tocsr(rows, int(aj.max(initial=0)) + 1, k, ai, aj, data, bp, bj, bx)
        return bp, bj, (bx if ax is not None else None)
    order = np.argsort(ai, kind="stable")
    bp = offsets_from_degrees(np.bincount(ai, minlength=rows))
    return bp, aj[order], (None if ax is None else ax[order])


def scatter_positions(cursor_at_rows: np.ndarray, local_ptr: np.ndarray, counts: np.ndarray,
                      total: int) -> np.ndarray:
    """Global int64 positions of a segment's row-sorted arcs.

    Row ``r`` (one entry per non-empty row) owns local arcs
    ``local_ptr[r] .. local_ptr[r] + counts[r]`` and writes them from global
    position ``cursor_at_rows[r]`` on. Pure int64 arithmetic, so positions
    beyond 2**32 are exact.

    Example:
        >>> import numpy as np
        >>> scatter_positions(np.array([2**33, 2**33 + 10]), np.array([0, 2]),
        ...                   np.array([2, 1]), 3).tolist()
        [8589934592, 8589934593, 8589934602]
    """
    shift = np.asarray(cursor_at_rows, dtype=np.int64) - np.asarray(local_ptr, dtype=np.int64)
    pos = np.repeat(shift, counts)
    pos += _arange(total)
    return pos


_ARANGE = np.arange(0, dtype=np.int64)


def _arange(k: int) -> np.ndarray:
    """``np.arange(k)`` as a read-only view of a cached array: a fresh one per
    segment cost ~10% of the scatter in page faults alone."""
    global _ARANGE
    if len(_ARANGE) < k:
        a = np.arange(max(k, _ARANGE_AT_LEAST), dtype=np.int64)
        a.flags.writeable = False
        _ARANGE = a
    return _ARANGE[:k]


def row_blocks(offsets: np.ndarray, max_arcs: int, max_rows: int | None = None):
    """Yield ``(lo, hi)`` vertex ranges holding at most ``max_arcs`` arcs each
    (a single larger row forms its own block), at most ``max_rows`` rows each."""
    n = len(offsets) - 1
    max_rows = max_rows or max(1, max_arcs)
    lo = 0
    while lo < n:
        limit = int(offsets[lo]) + max_arcs
        hi = int(np.searchsorted(offsets, limit, side="right")) - 1
        hi = min(max(hi, lo + 1), n, lo + max_rows)
        yield lo, hi
        lo = hi


def sort_rows_block(ptr: np.ndarray, cols: np.ndarray, weights: np.ndarray | None,
                    drop_duplicates: bool, *, stable: bool = True) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Sort each row of a CSR block by column; optionally drop repeated columns.

    ``ptr`` is the block's local row pointer (starts at 0). Of repeated
    ``(row, col)`` the first in the input order is kept, with its weight.
    Returns ``(new_degrees, cols, weights)`` (fresh arrays). ``stable=False``
    (kept arcs only): repeated columns keep their weights in an order that is the
    same every time but not the input's, without the pass that restores it (6.6
    of 7.9 s when renumbering Kronecker 20, ``transforms.relabel``).
    """
    rows = len(ptr) - 1
    k = len(cols)
    deg = np.diff(ptr)
    it = np.int32 if (cols.dtype == np.int32 and k <= _INT32_MAX) else np.int64
    cols = np.array(cols, dtype=it, copy=True)
    need_pos = weights is not None
    if _csr_sort_indices is not None:
        # Per-row std::sort in C++ (measured ~3x faster than numpy sorting a
        # combined (row, col) key). It is not stable, so each arc's position
        # rides along as the data when weights must follow.
        pos = np.arange(k, dtype=it) if need_pos else np.zeros(k, dtype=np.int8)
        _csr_sort_indices(rows, np.asarray(ptr, dtype=it), cols, pos)
    else:
        rowid = np.repeat(np.arange(rows, dtype=np.int64), deg)
        pos = np.lexsort((cols, rowid))  # stable
        cols = cols[pos]
    if not drop_duplicates:
        if need_pos and stable:
            # Equal columns in a row: restore input order among them, so the
            # result does not depend on the sort's tie handling.
            rowid = np.repeat(np.arange(rows, dtype=np.int64), deg)
            order = np.lexsort((pos, cols, rowid))
            cols, pos = cols[order], pos[order]
            return deg.astype(np.int64), cols, weights[pos]
        return deg.astype(np.int64), cols, (weights[pos] if need_pos else None)
    first = np.empty(k, dtype=bool)
    if k:
        first[0] = True
        np.not_equal(cols[1:], cols[:-1], out=first[1:])
        starts = ptr[:-1][deg > 0]
        first[starts] = True  # a row's first arc always starts a run
    run_starts = np.flatnonzero(first)
    new_cols = cols[run_starts]
    new_w = None
    if need_pos:
        keep_pos = np.minimum.reduceat(pos, run_starts) if k else pos[:0]
        new_w = weights[keep_pos]
    # Runs never cross rows, so a row's new degree is its number of run starts.
    csum = np.zeros(k + 1, dtype=np.int64)
    np.cumsum(first, out=csum[1:])
    new_deg = csum[ptr[1:]] - csum[ptr[:-1]]
    return new_deg, new_cols, new_w
