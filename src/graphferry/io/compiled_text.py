"""The fast path of :func:`~graphferry.io.edgelist.read_edgelist`: a plain edge list, parsed and built in C++.

For the common file (plain text, ids ``0..2**31-1`` used as given, no weight
read) the whole file is parsed by parallel compiled code
(:mod:`graphferry.host_ops.text_edges`) into two int32 arrays, and, when rows
are to be sorted (``drop_duplicates`` or ``sort_neighbors``) and the edges fit
in memory, built by the compiled counting sort that ``graphferry generate``
uses (:mod:`graphferry.host_ops.samples_csr`): GAPBS's way, no spill files.
The graph is the one the block-by-block reader and the chunked builder give,
array for array (a sorted row lists its neighbours one way only).

Whatever this path cannot read is handed back: the line it stopped at is read
by the line-by-line reader, which raises the error naming the file and line;
if that reader takes the line (a ``+5`` id, say), or an id is out of the
header's range, :func:`read_compiled` returns None and the caller reads the
file its own way, so the rules stay the slower readers'.

Example:
    >>> import os, tempfile
    >>> from graphferry.io import read_edgelist
    >>> path = os.path.join(tempfile.mkdtemp(), "tri.el")
    >>> _ = open(path, "w").write("0 1\\n1 2\\n2 0\\n1 0\\n")
    >>> g = read_edgelist(path, directed=False, drop_duplicates=True)
    >>> g.offsets.tolist(), g.indices.tolist()
    ([0, 2, 4, 6], [1, 2, 0, 2, 0, 1])
"""

from __future__ import annotations

import logging
import os
import time

import numpy as np

from ..errors import InputError
from ..graph import Graph
from . import _text
from .builder import SEGMENT_EDGES, CSRBuilder

log = logging.getLogger(__name__)

#: Bytes of memory the compiled build takes per edge (the parsed int32 pair, the unsorted arcs
#: of an undirected edge, the output's share), against the memory available (as ``generate``'s).
BYTES_PER_EDGE = 24
#: The share of the available memory the compiled build may take.
MEMORY_SHARE = 0.6


def applies(path: str, spec: _text.ColumnSpec, renumber: bool, one_based: bool, bipartite) -> bool:
    """Whether the file and the options are the common case this path reads."""
    if renumber or one_based or bipartite is not None or spec.weight or spec.str_ids \
            or spec.min_id != 0 or spec.delimiter not in (b" ", b"\t", b","):
        return False
    if os.environ.get("GRAPHFERRY_COMPILED_TEXT", "1") == "0":  # the block reader, for comparisons
        return False
    try:
        with open(path, "rb") as f:
            magic = f.read(6)
    except OSError:
        return False
    if magic[:2] == b"\x1f\x8b" or magic[:3] == b"BZh" or magic[:6] == b"\xfd7zXZ\x00":
        return False  # compressed: the block reader decompresses as it goes
    from ..host_ops import text_edges

    return text_edges.available()


def _stopped_at(path: str, offset: int, spec: _text.ColumnSpec) -> None:
    """The line at byte ``offset``, read by the line-by-line reader: raises its InputError if bad."""
    text = np.memmap(path, dtype=np.uint8, mode="r")
    line_no = int(np.count_nonzero(text[:offset] == 10)) + 1
    end = offset
    size = len(text)
    while end < size and text[end] != 10:
        end += 1
    line = bytes(text[offset:end])
    del text
    _text.parse_lines_python(line, line_no, spec, path)


def read_compiled(path: str, spec: _text.ColumnSpec, builder: CSRBuilder, header_edges: int | None,
                  header_edges_line: int | None, opts) -> Graph | None:
    """The graph of the edge list at ``path``, or None when the caller must read it its own way.

    ``builder``: the reader's builder (its options: n, direction, cleaning, name,
    meta); its work is done here when the compiled build does not apply.
    """
    from ..host_ops import text_edges

    t0 = time.perf_counter()
    src, dst, bad = text_edges.parse_file(path, comma=spec.delimiter == b",")
    if bad is not None:
        _stopped_at(path, bad, spec)  # raises the error naming the line
        log.info("%s: the compiled parser stopped at byte %d, which the line reader takes; "
                 "reading block by block", path, bad)
        return None
    listener = _text.bytes_listener()
    if listener is not None:
        listener(path, os.path.getsize(path))
    total = len(src)
    hi = max(int(src.max()), int(dst.max())) if total else -1
    if spec.max_id is not None and hi > spec.max_id:
        return None  # the block reader names the line and the bound
    if header_edges is not None and total < header_edges:
        raise InputError(f"header promises {header_edges} edges but the file has {total}",
                         path=path, line=header_edges_line)
    log.info("%s: parsed %d edges in %.2f s (compiled)", path, total, time.perf_counter() - t0)
    n = builder.n if builder.n is not None else hi + 1
    if builder.sort_neighbors and not builder.weighted and _fits(total, n):
        return _build_sorted(src, dst, n, builder, opts)
    for lo in range(0, total, SEGMENT_EDGES):
        builder.add(src[lo:lo + SEGMENT_EDGES], dst[lo:lo + SEGMENT_EDGES])
    del src, dst
    return opts.finish(builder)


def _fits(edges: int, n: int) -> bool:
    from ..host_ops import samples_csr

    if n >= 2**31:
        return False
    avail = samples_csr.memory_available()
    return avail is not None and edges * BYTES_PER_EDGE <= avail * MEMORY_SHARE and samples_csr.available()


def _build_sorted(src: np.ndarray, dst: np.ndarray, n: int, builder: CSRBuilder, opts) -> Graph:
    """The CSR with sorted rows by the compiled counting sort, in memory or into ``opts.store``."""
    from ..host_ops.samples_csr import SamplesCSR

    build = SamplesCSR(n, directed=builder.directed, drop_self_loops=builder.drop_self_loops,
                       drop_duplicates=builder.drop_duplicates)
    build.add(src, dst)
    del src, dst
    meta = {"source": builder.source, "drop_self_loops": builder.drop_self_loops,
            "drop_duplicates": builder.drop_duplicates, "sorted_neighbors": True, **builder.meta}
    return write_samples(build, store=opts.store, overwrite=opts.overwrite, directed=builder.directed,
                         name=builder.name, meta=meta)


def write_samples(build, *, store, overwrite: bool, directed: bool, name: str, meta: dict) -> Graph:
    """A :class:`~graphferry.host_ops.samples_csr.SamplesCSR`'s graph: in memory, or written to
    ``store`` (atomically) and memory-mapped from it."""
    from ..store import StoreWriter, open_store

    if store is None:
        offsets, indices = build.finish_arrays()
        return Graph(offsets, indices, None, directed=directed, name=name, meta=meta)
    writer = StoreWriter(store, overwrite=overwrite)
    try:
        offsets, indices = build.build(lambda m: writer.create("indices", np.int32, m))
        del indices  # the map goes before the files are checksummed
        writer.write("offsets", offsets)
        writer.commit(n=build.n, m=int(offsets[-1]), directed=directed, name=name, meta=meta)
    except BaseException:
        writer.abort()
        raise
    return open_store(store)
