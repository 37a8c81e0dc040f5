"""Fast, line-accurate parsing of whitespace-separated numeric text in blocks.

Shared by the edge-list, LDBC and vertex-list readers. A file is read in
fixed-size byte blocks cut at the last newline; each block is parsed by
``pyarrow.csv`` (multi-threaded C++) when it is installed, else by numpy. Files
whose lines are irregular (comments between data lines, runs of blanks, ``\\r``)
are normalised first. Whenever the fast path refuses a block or its values
break a rule (negative id, NaN weight, too few columns...), the block is parsed
again line by line in Python, which names the exact line and problem. So the
common case runs at C speed and errors are still precise.
"""

from __future__ import annotations

import bz2
import contextlib
import contextvars
import gzip
import io
import lzma
import math
import os
import queue
import re
import threading
import warnings
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, Callable, Iterator

import numpy as np

from ..errors import InputError, excerpt

try:
    import pyarrow as pa
    import pyarrow.csv as pacsv
except ImportError:  # pragma: no cover - exercised by monkeypatching in tests
    pa = None
    pacsv = None


def _f32(a: np.ndarray) -> np.ndarray:
    """float32 copy; overflow to inf is expected here (the caller rejects it)."""
    with np.errstate(over="ignore"):
        return np.asarray(a).astype(np.float32)


#: pyarrow's unit of parallel parsing. Measured on 2 cores: 2 MiB pieces in
#: 8 MiB blocks parse as fast as 8 MiB pieces in 32 MiB blocks, with half the
#: peak memory (the parser holds several copies of a block).
ARROW_BLOCK_BYTES = 2 * 2**20
#: Bytes per parse block: two pieces per core, so every core has work.
DEFAULT_BLOCK_BYTES = max(8 * 2**20, 2 * ARROW_BLOCK_BYTES * (os.cpu_count() or 1))
COMMENT_CHARS = b"#%"

_INT64_MAX = 2**63 - 1
_F32_MAX = float(np.finfo(np.float32).max)


def open_binary(path: str | os.PathLike) -> BinaryIO:
    """Open ``path`` for binary reading, decompressing gzip, bzip2 or xz by magic bytes.

    A compressed file that ends early or holds damaged data raises
    :class:`InputError` naming the file ("truncated"), not the bare
    ``EOFError`` of the decompressor.
    """
    p = Path(path)
    try:
        f = open(p, "rb")
    except FileNotFoundError:
        raise InputError("file not found", path=str(p)) from None
    except IsADirectoryError:
        raise InputError("is a directory, not a file", path=str(p)) from None
    magic = f.read(6)
    f.seek(0)
    if magic[:2] == b"\x1f\x8b":
        return _Decompressed(gzip.GzipFile(fileobj=f, mode="rb"), f, str(p), "gzip")  # type: ignore[return-value]
    if magic[:3] == b"BZh":
        return _Decompressed(bz2.BZ2File(f, mode="rb"), f, str(p), "bzip2")  # type: ignore[return-value]
    if magic[:6] == b"\xfd7zXZ\x00":
        return _Decompressed(lzma.LZMAFile(f, mode="rb"), f, str(p), "xz")  # type: ignore[return-value]
    return f


class _Decompressed(io.BufferedIOBase):
    """A decompressing reader whose stream errors name the file and say what went wrong."""

    def __init__(self, inner: BinaryIO, raw: BinaryIO, path: str, kind: str):
        super().__init__()
        self._inner, self._raw, self._path, self._kind = inner, raw, path, kind

    def _guard(self, fn, *args):
        try:
            return fn(*args)
        except EOFError:
            raise InputError(f"truncated {self._kind} file: it ends before its compressed data does "
                             "(an interrupted download or copy?)", path=self._path) from None
        except (lzma.LZMAError, zlib.error) as exc:
            raise InputError(f"damaged {self._kind} data ({exc})", path=self._path) from None
        except OSError as exc:
            if exc.errno is not None:  # a real I/O error of the disk, not of the format
                raise
            raise InputError(f"damaged {self._kind} data ({exc})", path=self._path) from None

    def read(self, size: int | None = -1) -> bytes:
        return self._guard(self._inner.read, -1 if size is None else size)

    def read1(self, size: int = -1) -> bytes:
        return self._guard(self._inner.read1, size)

    def readinto(self, buffer) -> int:
        return self._guard(self._inner.readinto, buffer)

    def readline(self, size: int | None = -1) -> bytes:
        return self._guard(self._inner.readline, -1 if size is None else size)

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return self._inner.seekable()

    def seek(self, offset: int, whence: int = 0) -> int:
        return self._guard(self._inner.seek, offset, whence)

    def tell(self) -> int:
        return self._inner.tell()

    def close(self) -> None:
        if not self.closed:
            try:
                self._inner.close()
            finally:
                self._raw.close()  # GzipFile(fileobj=...) leaves its file open
        super().close()


#: Who hears how far the text readers have got: ``callback(path, bytes)``.
_bytes_read: contextvars.ContextVar[Callable[[str, int], None] | None] = contextvars.ContextVar(
    "graphferry_bytes_read", default=None)


@contextlib.contextmanager
def reporting_bytes_read(callback: Callable[[str, int], None] | None) -> Iterator[None]:
    """Within the block, the readers call ``callback(path, position)`` after each block they read.

    The text readers (edge lists, Matrix Market, LDBC) and the CSV and Parquet
    table readers report; ``.gr`` files are memory-mapped and do not. A plain
    edge list read by compiled code (:mod:`graphferry.io.compiled_text`) is
    reported once, whole, when it has been parsed (in a few seconds a GB).

    ``position`` is how far into the file on disk reading has got (compressed
    bytes for a compressed file), so ``position / os.path.getsize(path)`` is the
    fraction read; a progress bar needs nothing more. ``None``: nobody listens.
    The callback may run on a reader's parsing thread.

    Example:
        >>> import os, tempfile
        >>> from graphferry.io import read_edgelist
        >>> path = os.path.join(tempfile.mkdtemp(), "g.el")
        >>> _ = open(path, "w").write("".join(f"{i} {i + 1}\\n" for i in range(100)))
        >>> seen = []
        >>> with reporting_bytes_read(lambda p, pos: seen.append(pos)):
        ...     g = read_edgelist(path, block_bytes=64, use_arrow=True)  # block by block
        >>> seen == sorted(seen) and seen[-1] == os.path.getsize(path) and len(seen) > 1
        True
    """
    token = _bytes_read.set(callback)
    try:
        yield
    finally:
        _bytes_read.reset(token)


def bytes_listener() -> Callable[[str, int], None] | None:
    """The callback of the enclosing :func:`reporting_bytes_read` block (None outside one)."""
    return _bytes_read.get()


def iter_blocks(f: BinaryIO, block_bytes: int = DEFAULT_BLOCK_BYTES,
                first_line: int = 1) -> Iterator[tuple[bytes, int]]:
    """``(block, number of its first line)`` for blocks of whole lines.

    The listener of :func:`reporting_bytes_read` is looked up here, in the
    caller's context (the blocks themselves may be read on a parsing thread).
    """
    return _blocks(f, block_bytes, first_line, _bytes_read.get())


def _blocks(f: BinaryIO, block_bytes: int, first_line: int,
            report: Callable[[str, int], None] | None) -> Iterator[tuple[bytes, int]]:
    on_disk = getattr(f, "_raw", f)  # a decompressing reader's file: progress in bytes on disk
    name = str(getattr(f, "_path", getattr(f, "name", "")))
    rest = b""
    line = first_line
    while True:
        data = f.read(block_bytes)
        if report is not None:
            report(name, on_disk.tell())
        if not data:
            if rest:
                yield rest, line
            return
        buf = rest + data if rest else data
        cut = buf.rfind(b"\n")
        if cut < 0:  # a line longer than a block: keep reading
            rest = buf
            continue
        block, rest = buf[:cut + 1], buf[cut + 1:]
        yield block, line
        line += block.count(b"\n")


# -------------------------------------------------------------------- spec
@dataclass
class ColumnSpec:
    """What a block must hold: ``ids`` integer id columns then ``weight`` or not.

    ``file_columns`` is the number of columns of the file's first data line
    (extra ones, like Konect timestamps, are ignored). ``min_id``/``max_id``
    bound the ids (``max_id`` None: unbounded); ``str_ids`` accepts any token
    as an id (for renumbering).
    """

    ids: int = 2
    weight: bool = False
    file_columns: int = 2
    delimiter: bytes = b" "
    min_id: int | None = 0
    max_id: int | None = None
    str_ids: bool = False
    id_names: tuple[str, ...] = ("source", "target")
    weight_column: int | None = None  # column of the weight, default: right after the ids
    id_why: str = ""  # why ids are bounded (for messages)

    @property
    def needed(self) -> int:
        return max(self.ids, (self.weight_col + 1) if self.weight else 0)

    @property
    def weight_col(self) -> int:
        return self.ids if self.weight_column is None else self.weight_column


@dataclass
class Parsed:
    ids: list[np.ndarray]
    weights: np.ndarray | None
    rows: int = 0
    fallbacks: dict = field(default_factory=dict)


# --------------------------------------------------------------- slow path
def _check_id_value(v: int, spec: ColumnSpec, k: int, path, line) -> None:
    if spec.min_id is not None and v < spec.min_id:
        if spec.min_id == 0:
            raise InputError(f"negative vertex id {v} ({spec.id_names[k]} column)", path=path, line=line)
        raise InputError(f"vertex id {v} below {spec.min_id} ({spec.id_names[k]} column{spec.id_why})",
                         path=path, line=line)
    if spec.max_id is not None and v > spec.max_id:
        raise InputError(f"vertex id {v} exceeds {spec.max_id} ({spec.id_names[k]} column{spec.id_why})",
                         path=path, line=line)


def parse_lines_python(block: bytes, first_line: int, spec: ColumnSpec, path: str | None) -> Parsed:
    """Line-by-line parse that raises :class:`InputError` at the first bad line."""
    cols: list[list] = [[] for _ in range(spec.ids)]
    wts: list[float] = []
    need = spec.needed
    text = block.decode("utf-8", errors="replace")
    for i, raw in enumerate(text.split("\n")):
        line = first_line + i
        s = raw.strip()
        if not s or s[0] in "#%":
            continue
        toks = s.split(",") if spec.delimiter == b"," else s.split()
        if len(toks) < need:
            raise InputError(f"too few columns: expected at least {need}, found {len(toks)} in {excerpt(s)}",
                             path=path, line=line)
        for k in range(spec.ids):
            tok = toks[k].strip()
            if spec.str_ids:
                if not tok:
                    raise InputError(f"empty {spec.id_names[k]} vertex id", path=path, line=line)
                cols[k].append(tok)
                continue
            try:
                v = int(tok)
            except ValueError:
                raise InputError(f"non-numeric {spec.id_names[k]} vertex id {excerpt(tok)}",
                                 path=path, line=line) from None
            if not -_INT64_MAX - 1 <= v <= _INT64_MAX:
                raise InputError(f"vertex id {tok} does not fit int64", path=path, line=line)
            _check_id_value(v, spec, k, path, line)
            cols[k].append(v)
        if spec.weight:
            tok = toks[spec.weight_col].strip()
            try:
                w = float(tok)
            except ValueError:
                raise InputError(f"non-numeric weight {excerpt(tok)}", path=path, line=line) from None
            if not math.isfinite(w) or abs(w) > _F32_MAX:
                raise InputError(f"weight {tok} is not a finite float32 (NaN/inf/overflow)",
                                 path=path, line=line)
            wts.append(w)
    ids = [np.array(c, dtype=str if spec.str_ids else np.int64) for c in cols]
    if not spec.str_ids:
        ids = [a if len(a) else np.zeros(0, np.int64) for a in ids]
    w = np.array(wts, dtype=np.float64) if spec.weight else None
    return Parsed(ids, w, rows=len(ids[0]))


def line_of_row(block: bytes, first_line: int, row: int) -> int:
    """Line number of the ``row``-th data line (0-based; comments/blank lines skipped)."""
    seen = -1
    for i, raw in enumerate(block.split(b"\n")):
        s = raw.strip()
        if not s or s[:1] in (b"#", b"%"):
            continue
        seen += 1
        if seen == row:
            return first_line + i
    return first_line + block.count(b"\n")


# --------------------------------------------------------------- fast path
_COMMENT_LINE = re.compile(rb"(?m)^[ \t]*[#%][^\n]*\n?")
_BLANKS = re.compile(rb"[ \t]+")
_EDGE_BLANKS = re.compile(rb"(?m)^ | ?\r?$")
_EMPTY_LINES = re.compile(rb"\n\n+")


def _normalise(block: bytes, delimiter: bytes) -> bytes:
    """Drop comment lines and make every separator a single ``delimiter``."""
    if b"#" in block or b"%" in block:
        block = _COMMENT_LINE.sub(b"", block)
    if delimiter == b",":
        if b"\r" in block:
            block = block.replace(b"\r", b"")
        return block
    block = _BLANKS.sub(b" ", block)
    block = _EDGE_BLANKS.sub(b"", block)
    block = _EMPTY_LINES.sub(b"\n", block).lstrip(b"\n")
    return block


def _parse_arrow(block: bytes, spec: ColumnSpec, delimiter: bytes) -> Parsed | None:
    names = [f"c{i}" for i in range(spec.file_columns)]
    types = {}
    include = [f"c{k}" for k in range(spec.ids)]
    for k in range(spec.ids):
        types[f"c{k}"] = pa.string() if spec.str_ids else pa.int64()
    if spec.weight:
        include.append(f"c{spec.weight_col}")
        types[f"c{spec.weight_col}"] = pa.float64()
    try:
        table = pacsv.read_csv(
            pa.py_buffer(block),
            read_options=pacsv.ReadOptions(column_names=names, block_size=ARROW_BLOCK_BYTES),
            parse_options=pacsv.ParseOptions(delimiter=delimiter.decode(), quote_char=False,
                                             double_quote=False, escape_char=False,
                                             newlines_in_values=False, ignore_empty_lines=True),
            convert_options=pacsv.ConvertOptions(column_types=types, include_columns=include,
                                                 strings_can_be_null=False, quoted_strings_can_be_null=False,
                                                 null_values=[]),
        )
    except (pa.ArrowInvalid, pa.ArrowTypeError, ValueError):
        return None
    if table.num_rows == 0:
        return Parsed([np.zeros(0, np.int64) for _ in range(spec.ids)],
                      np.zeros(0) if spec.weight else None)
    cols = []
    for k in range(spec.ids):
        col = table.column(f"c{k}")
        if col.null_count:
            return None
        if spec.str_ids:
            cols.append(np.asarray(col.to_numpy(zero_copy_only=False), dtype=str))
        else:
            cols.append(col.to_numpy())
    w = None
    if spec.weight:
        col = table.column(f"c{spec.weight_col}")
        if col.null_count:
            return None
        w = col.to_numpy()
    return Parsed(cols, w, rows=table.num_rows)


def _parse_numpy(block: bytes, spec: ColumnSpec, delimiter: bytes) -> Parsed | None:
    if spec.str_ids or delimiter == b",":
        return None
    lines = block.count(b"\n") + (0 if block.endswith(b"\n") or not block else 1)
    if lines == 0:
        return Parsed([np.zeros(0, np.int64) for _ in range(spec.ids)],
                      np.zeros(0) if spec.weight else None)
    # Extra columns (Konect timestamps, unused weights) may be fractional.
    as_float = spec.weight or spec.file_columns > spec.ids
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # numpy warns (and stops) on a bad token
        try:
            flat = np.fromstring(block, dtype=np.float64 if as_float else np.int64, sep=" ")
        except (ValueError, DeprecationWarning):
            return None
    if len(flat) != lines * spec.file_columns:
        return None
    table = flat.reshape(lines, spec.file_columns)
    cols = []
    for k in range(spec.ids):
        c = table[:, k]
        if as_float:
            # Ids parsed as float64 are exact below 2**53; refuse anything else.
            if not (np.isfinite(c).all() and (c == np.round(c)).all() and np.abs(c).max() < 2**53):
                return None
            c = c.astype(np.int64)
        cols.append(np.ascontiguousarray(c))
    w = np.ascontiguousarray(table[:, spec.weight_col]) if spec.weight else None
    return Parsed(cols, w, rows=lines)


def _values_ok(parsed: Parsed, spec: ColumnSpec) -> bool:
    if not spec.str_ids:
        for c in parsed.ids:
            if len(c) == 0:
                continue
            if spec.min_id is not None and int(c.min()) < spec.min_id:
                return False
            if spec.max_id is not None and int(c.max()) > spec.max_id:
                return False
    if parsed.weights is not None and len(parsed.weights):
        w = parsed.weights
        if not np.isfinite(w).all() or not np.isfinite(_f32(w)).all():
            return False
    return True


def parse_block(block: bytes, first_line: int, spec: ColumnSpec, path: str | None,
                use_arrow: bool | None = None) -> Parsed:
    """Parse one block of whole lines; InputError names the bad line."""
    use_arrow = (pa is not None) if use_arrow is None else use_arrow
    fast = _parse_arrow if use_arrow else _parse_numpy
    # Try the block as it is first: checking it for irregularities up front
    # (comments, blank runs, tabs among spaces) cost more than the parse.
    # Irregular lines make the strict parsers fail (wrong field count or an
    # unparsable field), never parse wrongly, so failure is the signal.
    parsed = fast(block, spec, spec.delimiter)
    if parsed is None:
        delimiter = b"," if spec.delimiter == b"," else b" "  # blank runs become one space
        parsed = fast(_normalise(block, spec.delimiter), spec, delimiter)
    if parsed is not None and _values_ok(parsed, spec):
        return parsed
    # Refused or a rule broken: the Python parser either names the line or
    # (for benign irregularities the fast path cannot take) returns the data.
    return parse_lines_python(block, first_line, spec, path)


# ------------------------------------------------------------------ header
def first_data_line(lines: list[tuple[int, bytes]]) -> tuple[int, bytes] | None:
    for no, raw in lines:
        s = raw.strip()
        if s and s[:1] not in (b"#", b"%"):
            return no, s
    return None


def head_lines(path: str | os.PathLike, max_bytes: int = 1 << 20) -> list[tuple[int, bytes]]:
    """The numbered lines of the first ``max_bytes`` of a (possibly compressed) file."""
    with open_binary(path) as f:
        data = f.read(max_bytes)
    parts = data.split(b"\n")
    if len(data) == max_bytes and len(parts) > 1:
        parts = parts[:-1]  # last one may be cut
    return [(i + 1, p) for i, p in enumerate(parts)]


def detect_delimiter(line: bytes) -> bytes:
    if b"\t" in line:
        return b"\t"
    if b"," in line:
        return b","
    return b" "


def split_tokens(line: bytes, delimiter: bytes) -> list[bytes]:
    if delimiter == b",":
        return [t.strip() for t in line.split(b",")]
    return line.split()


def is_int_token(tok: bytes) -> bool:
    try:
        int(tok)
        return True
    except ValueError:
        return False


def prefetch(items: Iterator, depth: int = 2) -> Iterator:
    """Run ``items`` in a background thread, ``depth`` results ahead.

    The readers parse the next block (pyarrow and numpy release the GIL)
    while the caller feeds the previous one to the CSR builder. Exceptions
    are re-raised in the caller; closing the returned generator stops and
    joins the thread (so the caller may then close the file it reads).
    """
    q: queue.Queue = queue.Queue(maxsize=depth)
    stop = threading.Event()

    def put(item) -> bool:
        while not stop.is_set():
            try:
                q.put(item, timeout=0.05)
                return True
            except queue.Full:
                continue
        return False

    def work() -> None:
        try:
            for x in items:
                if not put(("item", x)):
                    return
            put(("end", None))
        except BaseException as e:  # noqa: BLE001 - handed to the consumer
            put(("error", e))

    t = threading.Thread(target=work, name="graphferry-parse", daemon=True)
    t.start()
    try:
        while True:
            kind, x = q.get()
            if kind == "item":
                yield x
            elif kind == "end":
                return
            else:
                raise x
    finally:
        stop.set()
        t.join()
