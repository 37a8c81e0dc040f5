"""Galois ``.gr`` binary CSR files: import and export.

Version 1 layout (little-endian)::

    u64 version (1)   u64 sizeof_edge_data (0 or 4)   u64 n   u64 m
    u64 out_end[n]          end offset of each vertex's edges (start = previous end)
    u32 dest[m]
    u32 padding             only when m is odd (keeps the edge data 8-byte aligned)
    edge_data[m]            sizeof_edge_data bytes each (Galois: uint32 weights)

Version 2 has ``u64 dest[m]`` and no padding. The file carries no
directedness: Galois stores symmetric graphs (``.sgr``) with both directions,
so ``directed=False`` here declares the file *already symmetric* (it is not
symmetrised again). Edge data is read as ``weight_dtype`` (Galois' convention
is ``uint32``; ``float32`` and ``int32`` are accepted) and stored as float32.

The file is memory-mapped and validated (sizes, monotone offsets, targets in
range) before anything is built; the CSR is taken over as it is, in blocks.

Example:
    >>> import tempfile, os, numpy as np
    >>> from graphferry.graph import Graph
    >>> from graphferry.io.galois import read_gr, write_gr
    >>> g = Graph.from_edges(np.array([0, 1, 1]), np.array([1, 2, 0]), np.array([3, 4, 5]), n=3)
    >>> path = os.path.join(tempfile.mkdtemp(), "g.gr")
    >>> _ = write_gr(g, path)
    >>> h = read_gr(path)
    >>> h.offsets.tolist(), h.indices.tolist(), h.weights.tolist()
    ([0, 1, 3, 3], [1, 2, 0], [3.0, 4.0, 5.0])
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

import numpy as np

from ..errors import InputError
from ..graph import Graph, index_dtype_for
from .options import ReadOptions

log = logging.getLogger(__name__)

HEADER_BYTES = 32
_WEIGHT_DTYPES = {"uint32": np.dtype("<u4"), "int32": np.dtype("<i4"), "float32": np.dtype("<f4"),
                  "uint64": np.dtype("<u8"), "int64": np.dtype("<i8"), "float64": np.dtype("<f8")}
_BLOCK = 1 << 22


class _GrLayout:
    def __init__(self, path: str, weight_dtype: str):
        self.path = path
        size = os.path.getsize(path)
        if size < HEADER_BYTES:
            raise InputError(f"file of {size} bytes is shorter than the 32-byte .gr header", path=path)
        hdr = np.fromfile(path, dtype="<u8", count=4)
        self.version, self.edge_bytes, self.n, self.m = (int(x) for x in hdr)
        if self.version not in (1, 2):
            raise InputError(f"unsupported .gr version {self.version} (expected 1 or 2)", path=path)
        if self.edge_bytes not in (0, 4, 8):
            raise InputError(f"unsupported edge data size {self.edge_bytes} bytes (expected 0, 4 or 8)",
                             path=path)
        if weight_dtype not in _WEIGHT_DTYPES:
            raise ValueError(f"weight_dtype must be one of {sorted(_WEIGHT_DTYPES)}, got {weight_dtype!r}")
        self.weight_dtype = _WEIGHT_DTYPES[weight_dtype]
        if self.edge_bytes and self.weight_dtype.itemsize != self.edge_bytes:
            raise InputError(f"edge data of {self.edge_bytes} bytes cannot be read as {weight_dtype}",
                             path=path)
        if self.n >= 2**62 or self.m >= 2**62:
            raise InputError(f"implausible header: n = {self.n}, m = {self.m}", path=path)
        dest = 4 if self.version == 1 else 8
        self.dest_dtype = np.dtype("<u4") if self.version == 1 else np.dtype("<u8")
        self.off_at = HEADER_BYTES
        self.dst_at = self.off_at + 8 * self.n
        pad = 4 if (self.version == 1 and self.m % 2) else 0
        data_at = self.dst_at + dest * self.m
        need_padded = data_at + pad + self.edge_bytes * self.m
        need_unpadded = data_at + self.edge_bytes * self.m
        if size == need_padded or (self.edge_bytes == 0 and size == need_unpadded):
            self.data_at = data_at + (pad if size == need_padded else 0)
        elif size < need_unpadded:
            raise InputError(f"header promises n = {self.n}, m = {self.m} ({need_padded} bytes) "
                             f"but the file has only {size} bytes (truncated)", path=path)
        else:
            raise InputError(f"file has {size} bytes, header implies {need_padded} "
                             "(trailing bytes or wrong header)", path=path)
        self.size = size

    def maps(self) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        def mm(dtype, offset, count):
            if count == 0:
                return np.zeros(0, dtype=dtype)
            return np.memmap(self.path, dtype=dtype, mode="r", offset=offset, shape=(count,))

        ends = mm("<u8", self.off_at, self.n)
        dests = mm(self.dest_dtype, self.dst_at, self.m)
        data = mm(self.weight_dtype, self.data_at, self.m) if self.edge_bytes else None
        return ends, dests, data


def _validate(path: str, ends: np.ndarray, dests: np.ndarray, data, n: int, m: int) -> None:
    prev = 0
    for lo in range(0, n, _BLOCK):
        # ends[v] is where vertex v's edges end (its start is ends[v - 1], or 0):
        # the first v whose end lies before its start, or beyond m, is the bad one.
        e = np.asarray(ends[lo:lo + _BLOCK])
        starts = np.concatenate([np.array([prev], dtype=e.dtype), e[:-1]])
        bad = (e < starts) | (e > m)
        if bad.any():
            i = int(np.argmax(bad))
            v, end, start = lo + i, int(e[i]), int(starts[i])
            if end > m:
                raise InputError(f"vertex {v}: its edges end at {end}, beyond m = {m} edges", path=path)
            raise InputError(f"vertex {v}: its edges end at {end}, before they start at {start} "
                             "(edge offsets must never decrease)", path=path)
        prev = int(e[-1])
    if n and prev != m:
        raise InputError(f"last edge offset is {prev}, header says m = {m}", path=path)
    if n == 0 and m:
        raise InputError(f"m = {m} edges but no vertices", path=path)
    for lo in range(0, m, _BLOCK):
        d = np.asarray(dests[lo:lo + _BLOCK])
        if int(d.max()) >= n:
            raise InputError(f"edge {lo + int(np.argmax(d))} names vertex {int(d.max())} >= n = {n}",
                             path=path)
    if data is not None and data.dtype.kind == "f":
        for lo in range(0, m, _BLOCK):
            w = np.asarray(data[lo:lo + _BLOCK], dtype=np.float32)
            if not np.isfinite(w).all():
                i = lo + int(np.flatnonzero(~np.isfinite(w))[0])
                raise InputError(f"weight of edge {i} is not finite", path=path)


def read_gr(
    path: str | os.PathLike,
    *,
    options: ReadOptions | None = None,
    weight_dtype: str = "uint32",
    **shared,
) -> Graph:
    """Read a Galois ``.gr`` file (version 1 or 2). See the module docstring.

    ``weighted=None``: weighted iff the file has edge data; ``directed=None``
    means ``True`` (see the module docstring for ``False``). The shared options
    come as ``options=`` (:class:`~graphferry.io.options.ReadOptions`) or
    keywords; ``renumber`` and ``n`` are refused (the header gives ``n``).
    """
    opts = ReadOptions.merged(options, shared)
    opts.refuse("gr", "renumber", "n")
    directed = True if opts.directed is None else opts.directed
    weighted = opts.weighted
    drop_self_loops, drop_duplicates = opts.drop_self_loops, opts.drop_duplicates
    sort_neighbors, store, overwrite = opts.sort_neighbors, opts.store, opts.overwrite
    p = str(path)
    opts.check_target()
    if not os.path.isfile(p):
        raise InputError("file not found", path=p)
    lay = _GrLayout(p, weight_dtype)
    ends, dests, data = lay.maps()
    _validate(p, ends, dests, data, lay.n, lay.m)
    if weighted is None:
        weighted = data is not None
    if weighted and data is None:
        raise InputError("file has no edge data: cannot read it as weighted", path=p)
    n, m = lay.n, lay.m
    name = opts.name or Path(p).name.split(".")[0]
    meta = {"format": "galois-gr", "file": p, "gr_version": lay.version}
    offsets = np.zeros(n + 1, dtype=np.int64)
    offsets[1:] = ends
    if drop_self_loops or drop_duplicates or sort_neighbors:
        # Through the builder, row block by row block. An undirected .gr holds
        # both directions: feed each edge once (src <= dst), the builder mirrors.
        from .csr_passes import row_blocks

        b = opts.builder(n=n, directed=directed, weighted=bool(weighted), source=p, name=name)
        b.meta.update(meta)
        with b:
            for lo, hi in row_blocks(offsets, _BLOCK):
                a, z = int(offsets[lo]), int(offsets[hi])
                s = np.repeat(np.arange(lo, hi, dtype=np.int64), np.diff(offsets[lo:hi + 1]))
                d = np.asarray(dests[a:z], dtype=np.int64)
                w = np.asarray(data[a:z], dtype=np.float64) if weighted else None
                if not directed:
                    keep = s <= d
                    s, d = s[keep], d[keep]
                    w = None if w is None else w[keep]
                b.add(s, d, w)
            return opts.finish(b)
    idx_dtype = index_dtype_for(n)
    if store is not None:
        from ..store import StoreWriter, open_store

        with StoreWriter(store, overwrite=overwrite) as w:
            w.write("offsets", offsets)
            out = w.create("indices", idx_dtype, m)
            wout = w.create("weights", np.float32, m) if weighted else None
            for lo in range(0, m, _BLOCK):
                out[lo:lo + _BLOCK] = dests[lo:lo + _BLOCK]
                if wout is not None:
                    wout[lo:lo + _BLOCK] = data[lo:lo + _BLOCK]
            del out, wout
            w.commit(n=n, m=m, directed=directed, name=name, meta=meta)
        return open_store(store)
    indices = np.empty(m, dtype=idx_dtype)
    weights = np.empty(m, dtype=np.float32) if weighted else None
    for lo in range(0, m, _BLOCK):
        indices[lo:lo + _BLOCK] = dests[lo:lo + _BLOCK]
        if weights is not None:
            weights[lo:lo + _BLOCK] = data[lo:lo + _BLOCK]
    return Graph(offsets, indices, weights, directed=directed, name=name, meta=meta)


def write_gr(graph: Graph, path: str | os.PathLike, *, weights: bool | None = None,
             weight_dtype: str = "uint32") -> Path:
    """Write ``graph`` as a Galois ``.gr`` file (version 1; version 2 if ``n >= 2**32``).

    Undirected graphs are written as stored (both directions, like ``.sgr``).
    ``weight_dtype="uint32"`` (Galois' convention) needs non-negative integral
    weights below 2**32; use ``"float32"`` otherwise. Written to a temporary
    file and renamed, so a failed export leaves nothing.
    """
    p = Path(path)
    weights = graph.weighted if weights is None else weights
    if weights and not graph.weighted:
        raise ValueError("graph has no weights to write")
    wdt = _WEIGHT_DTYPES.get(weight_dtype)
    if wdt is None or wdt.itemsize != 4:
        raise ValueError(f"weight_dtype must be uint32, int32 or float32, got {weight_dtype!r}")
    n, m = graph.n, graph.m
    version = 1 if n < 2**32 else 2
    tmp = p.with_name(f".{p.name}.tmp-{os.getpid()}")
    try:
        with open(tmp, "wb") as f:
            np.array([version, 4 if weights else 0, n, m], dtype="<u8").tofile(f)
            for lo in range(0, n, _BLOCK):
                np.asarray(graph.offsets[lo + 1:lo + 1 + _BLOCK], dtype="<u8").tofile(f)
            ddt = "<u4" if version == 1 else "<u8"
            for lo in range(0, m, _BLOCK):
                np.asarray(graph.indices[lo:lo + _BLOCK]).astype(ddt).tofile(f)
            if version == 1 and m % 2:
                f.write(b"\0" * 4)
            if weights:
                for lo in range(0, m, _BLOCK):
                    w = np.asarray(graph.weights[lo:lo + _BLOCK])
                    if wdt.kind in "iu":
                        info = np.iinfo(wdt)
                        if not ((w == np.round(w)).all() and w.min(initial=0) >= info.min
                                and w.max(initial=0) <= info.max):
                            raise ValueError(f"weights are not all integers in [{info.min}, {info.max}]; "
                                             "pass weight_dtype='float32'")
                    w.astype(wdt).tofile(f)
        os.replace(tmp, p)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return p
