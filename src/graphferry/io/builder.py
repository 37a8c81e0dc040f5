"""Build a CSR graph from a stream of edge chunks, in memory or straight into a store.

:class:`CSRBuilder` takes edges chunk by chunk (as readers parse them or
generators produce them) and never holds the whole edge list at once:

1. ``add``: each chunk is validated, compacted (int32 ids while they fit) and
   kept in memory up to ``memory_bytes``; beyond that, chunks are spilled to
   ``.npy`` files in a temporary work directory. Out-degrees are counted as
   chunks arrive (``np.bincount``), so no extra pass is needed for them.
2. ``finish``: the degrees' prefix sum gives the offsets; then each spilled
   segment is counting-sorted by source (stable, O(edges + rows), in C++ via
   scipy's sparse tools) and scattered into the final ``indices``/``weights``
   arrays at a per-row cursor. The output arrays are memory maps inside the
   store being written when ``finish_store`` is used, so peak memory is about
   the store plus one segment's working set.
3. With ``drop_duplicates`` or ``sort_neighbors``, one more pass over blocks of
   rows sorts each row by neighbour id and (for duplicates) compacts the arrays
   in place.

Semantics:

* ``directed=False``: each edge is stored in both directions (a self-loop
  once). Edges are first oriented as ``(min, max)``, so that repeated samples
  ``(u, v)`` and ``(v, u)`` are duplicates of each other and deduplication keeps
  the *same* sample (the first one given) for both directions: weights stay
  symmetric.
* Per-row order: without deduplication/sorting, a row lists its arcs in the
  order they were added (for undirected graphs, per segment of ~2 M edges:
  first the arcs to smaller neighbours, then those to larger ones, so an edge
  list sorted by ``(min, max)`` yields sorted rows). With
  ``drop_duplicates`` or ``sort_neighbors`` each row is sorted by neighbour id,
  and of repeated ``(src, dst)`` the first one added is kept (with its weight).
* ``renumber=True``: ids may be any int64 or strings; they are mapped to
  ``0..n-1`` in sorted order of the original ids, kept as ``original_ids``.
* 64-bit offsets and cursors throughout: more than 2**32 arcs are fine.

Example:
    >>> import numpy as np
    >>> from graphferry.io.builder import CSRBuilder
    >>> b = CSRBuilder(directed=False, drop_duplicates=True)
    >>> b.add(np.array([0, 1]), np.array([1, 2]))
    >>> b.add(np.array([1, 2]), np.array([0, 2]))   # (1, 0) repeats (0, 1)
    >>> g = b.finish()
    >>> g.offsets.tolist(), g.indices.tolist()
    ([0, 1, 3, 5], [1, 0, 2, 1, 2])
    >>> b = CSRBuilder(renumber=True)
    >>> b.add(np.array(["b", "a"]), np.array(["c", "b"]))
    >>> g = b.finish()
    >>> g.original_ids.tolist(), g.indices.tolist()
    (['a', 'b', 'c'], [1, 2])
"""

from __future__ import annotations

import logging
import os
import tempfile
import time
import weakref
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import InputError, excerpt, writing
from ..graph import Graph, index_dtype_for, offsets_from_degrees
from ..workfiles import finish_work, make_work_dir, remove_stale_work
from .csr_passes import (  # noqa: F401  (row_blocks, scatter_positions: importable from here as before)
    row_blocks, scatter_positions, sort_rows_block, stable_csr,
)

log = logging.getLogger(__name__)


#: Chunks held in memory before spilling to the work directory.
DEFAULT_MEMORY_BYTES = 64 * 2**20
#: Name prefix of spill directories (followed by the owner: host, pid, start time).
BUILD_DIR_PREFIX = "graphferry-build-"
#: Edges per segment (the unit spilled and scattered). Big enough that the
#: per-segment O(rows) terms of the counting sort are amortised, small enough
#: that a segment's working set (~40 bytes per arc) stays well below the store.
SEGMENT_EDGES = 2 * 2**20
#: Arcs per block in the sort/deduplication pass.
SORT_BLOCK_ARCS = 8 * 2**20
#: Segments are grouped to at least GROUP_FACTOR * n edges before the counting
#: sort, amortising its O(n) terms.
GROUP_FACTOR = 0.5

_INT32_MAX = 2**31 - 1


# ----------------------------------------------------------------- id checks
def _as_ids(x: Any, renumber: bool, source: str | None, what: str) -> np.ndarray:
    """A 1-d id array: int64 (or int32) for numbers, str for labels (renumber only)."""
    a = np.asarray(x)
    if a.ndim != 1:
        a = a.ravel()
    kind = a.dtype.kind
    if kind == "i":
        return a
    if kind == "u":
        if a.dtype.itemsize == 8 and len(a) and int(a.max()) > np.iinfo(np.int64).max:
            raise InputError(f"{what} vertex id {int(a.max())} does not fit int64", path=source)
        return a.astype(np.int64)
    if kind == "b":
        return a.astype(np.int64)
    if kind == "f":
        if len(a) and not (np.isfinite(a).all() and (a == np.round(a)).all()):
            bad = a[~(np.isfinite(a) & (a == np.round(a)))][0]
            raise InputError(f"{what} vertex id {bad!r} is not an integer", path=source)
        return a.astype(np.int64)
    if kind in "USO":
        if not renumber:
            raise InputError(f"non-numeric {what} vertex ids (e.g. {excerpt(str(a[0]))}); "
                             "renumbering maps labels to 0..n-1 (--renumber, renumber=True)", path=source)
        if kind == "S":
            return np.char.decode(a, "utf-8")
        if kind == "O":
            return a.astype(str)
        return a
    raise InputError(f"{what} vertex ids of dtype {a.dtype} are not supported", path=source)


def _compact(a: np.ndarray, lo: int | None = None, hi: int | None = None) -> np.ndarray:
    """int32 when every value fits (half the spill and sort bytes), else int64; a fresh copy.

    ``lo``/``hi``: known bounds of the values (saves two passes)."""
    if a.dtype.kind not in "iu":
        return a.copy()
    if len(a) and lo is None:
        lo, hi = int(a.min()), int(a.max())
    if len(a) == 0 or (lo >= -_INT32_MAX - 1 and hi <= _INT32_MAX):
        return a.astype(np.int32, copy=True)
    return a.astype(np.int64, copy=True)


def _count_into(acc: np.ndarray, ids: np.ndarray, hi: int) -> np.ndarray:
    """``acc[v] += (number of v in ids)``, growing ``acc`` to ``hi + 1`` (amortised doubling)."""
    if hi >= len(acc):
        new = np.zeros(max(hi + 1, 2 * len(acc)), dtype=np.int64)
        new[:len(acc)] = acc
        acc = new
    if len(ids) * 4 < hi:
        # Few ids over many vertices: bincount's O(max id) output would
        # dominate (measured 2.3x slower for 0.5 M ids over 4 M vertices).
        np.add.at(acc, ids, 1)
    else:
        acc[:hi + 1] += np.bincount(ids, minlength=hi + 1)
    return acc


class _IdMap:
    """Sorted set of original ids, built incrementally; maps ids to 0..n-1."""

    def __init__(self, source: str | None):
        self.source = source
        self.kind: str | None = None  # "i" or "U"
        self.ids: np.ndarray | None = None
        self._pending: list[np.ndarray] = []
        self._pending_size = 0
        self._lut: np.ndarray | None = None
        self._lo = 0

    def add(self, a: np.ndarray) -> None:
        if len(a) == 0:
            return
        kind = "U" if a.dtype.kind == "U" else "i"
        if self.kind is None:
            self.kind = kind
        elif self.kind != kind:
            raise InputError("vertex ids mix numbers and strings", path=self.source)
        u = np.unique(a) if kind == "U" else _sorted_unique(a.astype(np.int64, copy=False))
        self._pending.append(u)
        self._pending_size += len(u)
        # Merge when the pending sets outgrow the merged one: amortised
        # O(total log total), not O(chunks * ids).
        if self._pending_size > max(2**20, 0 if self.ids is None else len(self.ids)):
            self._merge()

    def _merge(self) -> None:
        parts = self._pending + ([] if self.ids is None else [self.ids])
        self._pending, self._pending_size = [], 0
        if not parts:
            return
        cat = np.concatenate(parts)
        self.ids = np.unique(cat) if self.kind == "U" else _sorted_unique(cat)

    def finalize(self) -> np.ndarray:
        self._merge()
        if self.ids is None:
            self.ids = np.zeros(0, dtype=np.int64)
        if self.kind == "i" and len(self.ids):
            lo, hi = int(self.ids[0]), int(self.ids[-1])
            # Dense-enough integer ids: a lookup table beats binary search ~10x.
            if hi - lo + 1 <= 4 * len(self.ids) + 2**16:
                self._lo = lo
                self._lut = np.full(hi - lo + 1, -1, dtype=index_dtype_for(len(self.ids)))
                self._lut[self.ids - lo] = np.arange(len(self.ids))
        return self.ids

    def lookup(self, a: np.ndarray) -> np.ndarray:
        dt = index_dtype_for(len(self.ids))
        if len(a) == 0:
            return np.zeros(0, dtype=dt)
        if self._lut is not None:
            return self._lut[a.astype(np.int64, copy=False) - self._lo]
        return np.searchsorted(self.ids, a).astype(dt, copy=False)


def _sorted_unique(a: np.ndarray) -> np.ndarray:
    # np.sort + neighbour compare: np.unique was measured pathologically slow on
    # large int64 arrays with numpy 2.4 here (hash-based path).
    s = np.sort(a)
    if len(s) < 2:
        return s
    keep = np.empty(len(s), dtype=bool)
    keep[0] = True
    np.not_equal(s[1:], s[:-1], out=keep[1:])
    return s[keep]


# ----------------------------------------------------------------- segments
class _Segment:
    """A run of added edges: in memory, or spilled to ``.npy`` files."""

    __slots__ = ("k", "arrays", "paths")

    def __init__(self, arrays: tuple, k: int):
        self.k = k
        self.arrays: tuple | None = arrays
        self.paths: tuple | None = None

    @property
    def nbytes(self) -> int:
        return 0 if self.arrays is None else sum(a.nbytes for a in self.arrays if a is not None)

    def spill(self, directory: Path, index: int) -> None:
        paths = []
        for j, a in enumerate(self.arrays):
            if a is None:
                paths.append(None)
                continue
            p = directory / f"seg{index:06d}_{j}.npy"
            with writing(p):
                np.save(p, a, allow_pickle=False)
            paths.append(p)
        self.paths, self.arrays = tuple(paths), None

    def load(self) -> tuple:
        if self.arrays is not None:
            return self.arrays
        return tuple(None if p is None else np.load(p, allow_pickle=False) for p in self.paths)

    def replace(self, arrays: tuple) -> None:
        """Store new arrays in the segment's place (same medium)."""
        if self.paths is None:
            self.arrays = arrays
            return
        for p, a in zip(self.paths, arrays):
            if p is not None:
                with writing(p):
                    np.save(p, a, allow_pickle=False)

    def drop(self) -> None:
        self.arrays = None
        if self.paths:
            for p in self.paths:
                if p is not None:
                    try:
                        os.unlink(p)
                    except OSError:
                        pass


def _cleanup_dir(path: str) -> None:
    finish_work(path, remove=True)


# ------------------------------------------------------------------ builder
class CSRBuilder:
    """Accumulate edge chunks and build a :class:`~graphferry.graph.Graph` (see module doc).

    Args:
        n: number of vertices; ``None`` means ``max id + 1`` (or, with
            ``renumber``, the number of distinct ids; a given ``n`` must then match).
        directed: ``False`` stores each edge in both directions.
        weighted: chunks carry weights (stored as float32; NaN/inf refused).
        renumber: map arbitrary int64 or string ids to ``0..n-1`` (sorted order).
        drop_self_loops, drop_duplicates: cleaning applied while building.
        sort_neighbors: sort every row by neighbour id (implied by ``drop_duplicates``).
        workdir: where to spill chunks (a temporary directory is made inside it
            and removed afterwards); default: the system temporary directory.
        source: what the edges come from (file name), used in error messages
            and recorded in the graph's ``meta``.
        memory_bytes: bytes of chunks held in memory before spilling.
        name: the graph's name.
        original_ids: for edges whose ids a reader already mapped to
            ``0..n-1``: the original id of each vertex (sets ``n``).
    """

    def __init__(self, *, n: int | None = None, directed: bool = True, weighted: bool = False,
                 renumber: bool = False, drop_self_loops: bool = False,
                 drop_duplicates: bool = False, sort_neighbors: bool = False,
                 workdir: str | os.PathLike | None = None, source: str | None = None,
                 memory_bytes: int = DEFAULT_MEMORY_BYTES, name: str = "graph",
                 original_ids: np.ndarray | None = None):
        if n is not None and int(n) < 0:
            raise ValueError(f"n must be non-negative, got {n}")
        if original_ids is not None:
            if renumber:
                raise ValueError("original_ids is for ids already mapped to 0..n-1; "
                                 "it excludes renumber=True")
            original_ids = np.asarray(original_ids)
            if n is not None and int(n) != len(original_ids):
                raise ValueError(f"n = {n} but {len(original_ids)} original ids")
            n = len(original_ids)
        self._original_ids = original_ids
        self.n = None if n is None else int(n)
        self.directed = bool(directed)
        self.weighted = bool(weighted)
        self.renumber = bool(renumber)
        self.drop_self_loops = bool(drop_self_loops)
        self.drop_duplicates = bool(drop_duplicates)
        self.sort_neighbors = bool(sort_neighbors) or self.drop_duplicates
        self.workdir = None if workdir is None else Path(workdir)
        self.source = None if source is None else str(source)
        self.memory_bytes = int(memory_bytes)
        self.name = name
        #: Extra facts recorded in the graph's ``meta`` (readers add theirs).
        self.meta: dict[str, Any] = {}
        self._segments: list[_Segment] = []
        self._pending: list[tuple] = []
        self._pending_k = 0
        self._mem_bytes = 0
        self._deg = np.zeros(0, dtype=np.int64)
        self._max_id = -1
        self._added = 0
        self._idmap = _IdMap(self.source) if self.renumber else None
        self._tmp: Path | None = None
        self._finalizer: weakref.finalize | None = None
        self._closed = False
        # Spill directories of builders whose process was killed stay until
        # someone removes them: the next builder does (never a live one's).
        remove_stale_work(self._work_base(), BUILD_DIR_PREFIX)

    # ---------------------------------------------------------------- input
    @property
    def edges_added(self) -> int:
        """Edges accepted so far (after dropping self-loops, before symmetrising)."""
        return self._added

    def add(self, src, dst, weights=None) -> None:
        """Add a chunk of edges ``src[i] -> dst[i]`` (with ``weights[i]`` if weighted).

        The arrays are copied; the caller may reuse them afterwards.
        """
        if self._closed:
            raise RuntimeError("this CSRBuilder has already finished")
        s = _as_ids(src, self.renumber, self.source, "source")
        d = _as_ids(dst, self.renumber, self.source, "target")
        if s.shape != d.shape:
            raise ValueError(f"src and dst differ in length ({len(s)} and {len(d)})")
        w = None
        if self.weighted:
            if weights is None:
                raise ValueError("this builder is weighted: pass weights with every chunk")
            w64 = np.asarray(weights).ravel()
            if w64.shape != s.shape:
                raise ValueError(f"weights and src differ in length ({len(w64)} and {len(s)})")
            if w64.dtype.kind not in "fiub":
                raise InputError(f"non-numeric weights of dtype {w64.dtype}", path=self.source)
            with np.errstate(over="ignore"):  # overflow is reported below
                w = w64.astype(np.float32)
            ok = np.isfinite(w)
            if not ok.all():
                bad = w64[np.flatnonzero(~ok)[0]]
                raise InputError(f"weight {bad!r} is not a finite float32", path=self.source)
        elif weights is not None:
            raise ValueError("weights given to an unweighted builder (pass weighted=True)")
        if len(s) == 0:
            return
        if not self.renumber:
            lo = min(int(s.min()), int(d.min()))
            if lo < 0:
                raise InputError(f"negative vertex id {lo}", path=self.source)
            hi = max(int(s.max()), int(d.max()))
            if self.n is not None and hi >= self.n:
                raise InputError(f"vertex id {hi} is out of range for n = {self.n}", path=self.source)
            # a vertex named only by dropped self-loops is still a vertex (n = max id + 1, whatever the chunks)
            self._max_id = max(self._max_id, hi)
        if self.drop_self_loops:
            keep = s != d
            if not keep.all():
                s, d = s[keep], d[keep]
                w = None if w is None else w[keep]
                if len(s) == 0:
                    return
        if self.renumber:
            self._idmap.add(s)
            self._idmap.add(d)
        else:
            self._deg = _count_into(self._deg, s, hi)
            if not self.directed:
                loops = s == d
                self._deg = _count_into(self._deg, d[~loops] if loops.any() else d, hi)
        if self.renumber:
            s, d = _compact(s), _compact(d)
        else:
            s, d = _compact(s, 0, hi), _compact(d, 0, hi)
        w = None if w is None else w.copy()
        self._added += len(s)
        # Cut big chunks so that no segment exceeds SEGMENT_EDGES: a segment's
        # scatter working set (~40 bytes per arc) bounds the builder's memory.
        pos = 0
        while pos < len(s):
            take = min(len(s) - pos, SEGMENT_EDGES - self._pending_k)
            piece = slice(pos, pos + take)
            whole = take == len(s)
            self._pending.append((s if whole else s[piece], d if whole else d[piece],
                                  None if w is None else (w if whole else w[piece])))
            self._pending_k += take
            pos += take
            if self._pending_k >= SEGMENT_EDGES:
                self._flush()

    def add_vertices(self, ids) -> None:
        """Make sure vertices ``ids`` exist even if no edge names them."""
        a = _as_ids(ids, self.renumber, self.source, "listed")
        if len(a) == 0:
            return
        if self.renumber:
            self._idmap.add(a)
            return
        if int(a.min()) < 0:
            raise InputError(f"negative vertex id {int(a.min())}", path=self.source)
        hi = int(a.max())
        if self.n is not None and hi >= self.n:
            raise InputError(f"vertex id {hi} is out of range for n = {self.n}", path=self.source)
        self._max_id = max(self._max_id, hi)

    def _flush(self) -> None:
        if not self._pending:
            return
        if len(self._pending) == 1:
            arrays = self._pending[0]
        else:
            arrays = tuple(
                None if parts[0] is None else np.concatenate(parts)
                for parts in zip(*self._pending)
            )
        seg = _Segment(arrays, self._pending_k)
        self._pending, self._pending_k = [], 0
        if self._mem_bytes + seg.nbytes > self.memory_bytes:
            seg.spill(self._tmpdir(), len(self._segments))
        else:
            self._mem_bytes += seg.nbytes
        self._segments.append(seg)

    def _work_base(self) -> Path:
        return self.workdir if self.workdir is not None else Path(tempfile.gettempdir())

    def _tmpdir(self) -> Path:
        if self._tmp is None:
            base = self._work_base()
            base.mkdir(parents=True, exist_ok=True)
            self._tmp = make_work_dir(base, BUILD_DIR_PREFIX)
            # Removed also if the builder is dropped without close().
            self._finalizer = weakref.finalize(self, _cleanup_dir, str(self._tmp))
            log.debug("spilling edge chunks to %s", self._tmp)
        return self._tmp

    # --------------------------------------------------------------- output
    def finish(self) -> Graph:
        """Build the graph in memory and release the builder's resources."""
        try:
            return self._build(None, None, overwrite=False)
        finally:
            self.close()

    def finish_store(self, path: str | os.PathLike, name: str | None = None, *,
                     overwrite: bool = False) -> Graph:
        """Build straight into a graph store at ``path`` (atomically) and open it.

        Returns the graph memory-mapped from the store. On any error nothing is
        left at ``path``.
        """
        from ..store import open_store

        try:
            self._build(Path(path), name, overwrite=overwrite)
        finally:
            self.close()
        return open_store(path)

    def close(self) -> None:
        """Drop all buffered chunks and the work directory."""
        self._closed = True
        for seg in self._segments:
            seg.drop()
        self._segments, self._pending = [], []
        if self._finalizer is not None:
            self._finalizer()
            self._finalizer = None

    def __enter__(self) -> "CSRBuilder":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # ------------------------------------------------------------ internals
    def _resolve_vertices(self) -> tuple[int, np.ndarray | None, np.ndarray]:
        """``(n, original_ids, degrees)``; maps renumbered segments to 0..n-1."""
        if not self.renumber:
            n = self._max_id + 1 if self.n is None else self.n
            deg = np.zeros(n, dtype=np.int64)
            k = min(n, len(self._deg))
            deg[:k] = self._deg[:k]
            return n, self._original_ids, deg
        ids = self._idmap.finalize()
        n = len(ids)
        if self.n is not None and self.n != n:
            raise InputError(f"{n} distinct vertex ids, but n = {self.n} was given", path=self.source)
        deg = np.zeros(n, dtype=np.int64)
        for seg in self._segments:
            s, d, w = seg.load()
            s, d = self._idmap.lookup(s), self._idmap.lookup(d)
            seg.replace((s, d, w))
            deg += np.bincount(s, minlength=n)
            if not self.directed:
                deg += np.bincount(d[s != d], minlength=n)
        return n, ids, deg

    def _build(self, path: Path | None, name: str | None, overwrite: bool) -> Graph:
        from ..store import StoreWriter

        if self._closed:
            raise RuntimeError("this CSRBuilder has already finished")
        t0 = time.perf_counter()
        self._flush()
        n, original_ids, deg = self._resolve_vertices()
        offsets = offsets_from_degrees(deg)
        m_raw = int(offsets[-1])
        idx_dtype = index_dtype_for(n)
        name = name or self.name
        log.info("%s: %d vertices, %d arcs from %d edges in %d segments; scattering",
                 name, n, m_raw, self._added, len(self._segments))
        writer = StoreWriter(path, overwrite=overwrite) if path is not None else None
        try:
            if writer is not None:
                indices = writer.create("indices", idx_dtype, m_raw)
                weights = writer.create("weights", np.float32, m_raw) if self.weighted else None
            else:
                indices = np.empty(m_raw, dtype=idx_dtype)
                weights = np.empty(m_raw, dtype=np.float32) if self.weighted else None
            self._scatter_all(n, offsets, indices, weights)
            t1 = time.perf_counter()
            if self.sort_neighbors:
                deg = self._sort_pass(n, offsets, indices, weights)
                offsets = offsets_from_degrees(deg)
            m = int(offsets[-1])
            t2 = time.perf_counter()
            meta = {"source": self.source, "drop_self_loops": self.drop_self_loops,
                    "drop_duplicates": self.drop_duplicates, "sorted_neighbors": self.sort_neighbors,
                    **self.meta}
            if writer is None:
                if m < m_raw:
                    # Shrink in place (realloc): no second copy of the arrays.
                    indices.resize(m, refcheck=False)
                    if weights is not None:
                        weights.resize(m, refcheck=False)
                g = Graph(offsets, indices, weights, directed=self.directed,
                          original_ids=original_ids, name=name, meta=meta)
            else:
                del indices, weights  # drop the maps before the files change
                if m < m_raw:
                    writer.shrink("indices", m)
                    if self.weighted:
                        writer.shrink("weights", m)
                writer.write("offsets", offsets)
                if original_ids is not None:
                    writer.write("original_ids", original_ids)
                writer.commit(n=n, m=m, directed=self.directed, name=name, meta=meta)
                g = None
        except BaseException:
            if writer is not None:
                writer.abort()
            raise
        log.info("%s: CSR built: scatter %.2f s, sort/dedup %.2f s, total %.2f s (m=%d)",
                 name, t1 - t0, t2 - t1, time.perf_counter() - t0, m)
        return g

    def _scatter_all(self, n: int, offsets: np.ndarray, indices: np.ndarray,
                     weights: np.ndarray | None) -> None:
        cursor = offsets[:-1].copy()
        # Group small segments so that the counting sort's O(rows) terms are
        # amortised over at least ~n/2 edges (~2n arcs when undirected).
        target = max(SEGMENT_EDGES, int(n * GROUP_FACTOR))
        groups: list[list[_Segment]] = []
        size = 0
        for seg in self._segments:
            if not groups or size >= target:
                groups.append([])
                size = 0
            groups[-1].append(seg)
            size += seg.k
        for group in groups:
            loaded = [seg.load() for seg in group]
            if len(loaded) == 1:
                s, d, w = loaded[0]
            else:
                s = np.concatenate([x[0].astype(np.int64, copy=False) for x in loaded])
                d = np.concatenate([x[1].astype(np.int64, copy=False) for x in loaded])
                w = None if loaded[0][2] is None else np.concatenate([x[2] for x in loaded])
            del loaded
            for seg in group:
                seg.drop()  # spilled files are no longer needed
            self._scatter_segment(s, d, w, n, cursor, indices, weights)
        if not np.array_equal(cursor, offsets[1:]):  # pragma: no cover - internal invariant
            raise AssertionError("CSR scatter did not fill every row exactly")

    def _scatter_segment(self, s, d, w, n, cursor, indices, weights) -> None:
        if len(s) == 0:
            return
        if not self.directed:
            a, b = np.minimum(s, d), np.maximum(s, d)
            nl = a != b
            # Arcs to smaller neighbours first, then to larger ones: an edge
            # list sorted by (min, max), as most files are, gives sorted rows.
            if nl.all():
                s, d = np.concatenate([b, a]), np.concatenate([a, b])
                w = None if w is None else np.concatenate([w, w])
            else:
                s, d = np.concatenate([b[nl], a]), np.concatenate([a[nl], b])
                w = None if w is None else np.concatenate([w[nl], w])
            del a, b, nl
        lo = int(s.min())
        hi = int(s.max()) + 1
        ai = s - lo if lo else s
        bp, bj, bx = stable_csr(hi - lo, ai, d, w)
        del ai, s, d
        counts = np.diff(bp)
        rows = np.flatnonzero(counts)
        pos = scatter_positions(cursor[lo + rows], bp[rows], counts[rows], len(bj))
        indices[pos] = bj
        if weights is not None:
            weights[pos] = bx
        cursor[lo:hi] += counts

    def _sort_pass(self, n: int, offsets: np.ndarray, indices: np.ndarray,
                   weights: np.ndarray | None) -> np.ndarray:
        """Sort rows (and drop duplicates) block by block, compacting in place.

        Writes never overtake reads (a block's output starts at or before its
        input and the block is copied first), so one array suffices.
        """
        new_deg = np.zeros(n, dtype=np.int64)
        write = 0
        for lo, hi in row_blocks(offsets, SORT_BLOCK_ARCS, max_rows=SORT_BLOCK_ARCS):
            a, b = int(offsets[lo]), int(offsets[hi])
            ptr = offsets[lo:hi + 1] - a
            cols = np.array(indices[a:b])
            wb = None if weights is None else np.array(weights[a:b])
            deg, cols, wb = sort_rows_block(ptr, cols, wb, self.drop_duplicates)
            k = len(cols)
            indices[write:write + k] = cols
            if weights is not None:
                weights[write:write + k] = wb
            new_deg[lo:hi] = deg
            write += k
        return new_deg


def build_from_arrays(src, dst, weights=None, **kwargs) -> Graph:
    """One-shot :class:`CSRBuilder` over in-memory arrays (``store=path`` writes a store)."""
    store = kwargs.pop("store", None)
    overwrite = kwargs.pop("overwrite", False)
    b = CSRBuilder(weighted=weights is not None if "weighted" not in kwargs else kwargs.pop("weighted"),
                   **kwargs)
    with b:
        b.add(src, dst, weights if b.weighted else None)
        if store is not None:
            return b.finish_store(store, overwrite=overwrite)
        return b.finish()
