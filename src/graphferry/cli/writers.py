"""Output files, written atomically: per-vertex result tables and JSON records."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import GraphferryError, writing
from ..workfiles import publish, work_file


_TABLE_SUFFIXES = (".parquet", ".csv", ".npy")


def _check_table_path(out: Path) -> str:
    suffix = out.suffix.lower()
    if suffix not in _TABLE_SUFFIXES:
        raise GraphferryError(f"--out {out}: unsupported file type {suffix or '(none)'}; use .parquet, .csv or .npy")
    return suffix


def check_output_path(path: Path, option: str) -> None:
    """Fail before the work, not after it: ``path`` must be writable once its missing folders are made.

    Every output file of the command line (``--out``, ``--record``) is written
    the same way: missing folders are created (only when it is written), an
    existing file is replaced whole. What cannot work is reported now, in one
    line naming the option and the path as the user typed them.

    Example:
        >>> import tempfile
        >>> d = Path(tempfile.mkdtemp())
        >>> check_output_path(d / "new" / "folders" / "r.json", "--record")  # made when written
        >>> (d / "file").write_text("x")
        1
        >>> try:
        ...     check_output_path(d / "file" / "r.json", "--record")
        ... except GraphferryError as e:
        ...     print(str(e).replace(str(d), "D"))
        --record D/file/r.json: D/file is not a folder
    """
    if path.is_dir():
        raise GraphferryError(f"{option} {path}: is a folder, not a file")
    check_output_folder(path, f"{option} {path}")


def check_output_folder(path: Path, said: str) -> None:
    """``path``'s folder exists, or can be made, and is writable; else one error starting with ``said``."""
    folder = path.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if not folder.is_dir():
        raise GraphferryError(f"{said}: {folder} is not a folder")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise GraphferryError(f"{said}: cannot write in {folder} (permission denied)")


def write_table(columns: dict[str, np.ndarray], out: Path) -> None:
    """Write per-vertex columns as .parquet, .csv or .npy (structured), atomically.

    The file is written under a temporary name in the same directory and renamed,
    so a failed run never leaves half a file behind.
    """
    suffix = _check_table_path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with work_file(out.parent, f".{out.name}.", suffix) as tmp:  # named before it exists: no orphan
        with writing(out):
            _write_table_file(columns, suffix, str(tmp))
        publish(str(tmp), out)


def _write_table_file(columns: dict[str, np.ndarray], suffix: str, tmp: str) -> None:
    """One table format into ``tmp`` (the caller renames it into place)."""
    if suffix == ".npy":
        _write_npy_rows(columns, tmp)
    elif suffix == ".csv":
        names = list(columns)
        with open(tmp, "w") as f:
            f.write(",".join(names) + "\n")
            data = np.column_stack([np.asarray(columns[k]).astype(object) for k in names])
            for row in data:
                f.write(",".join(str(x) for x in row) + "\n")
    else:
        try:
            import pyarrow as pa
            import pyarrow.parquet as pq
        except ImportError as exc:
            raise GraphferryError("writing .parquet needs pyarrow: pip install 'graphferry[tables]'") from exc
        pq.write_table(pa.table({k: np.asarray(v) for k, v in columns.items()}), tmp)


#: Rows of a .npy table filled at a time: a buffer of about a MB (16-byte rows), so it stays in cache
#: while it is written.
NPY_CHUNK_ROWS = 1 << 16


def _write_npy_rows(columns: dict[str, np.ndarray], path: str) -> None:
    """The columns as one structured .npy array, the bytes ``np.save`` writes, built a chunk of rows at a time.

    Filling the whole interleaved array first cost 2.5 CPU seconds for 33 M vertices (half a GB to
    allocate, fault in and copy before the write); a chunk refilled while the previous one is being
    written (the write releases the GIL) cost 0.35-0.8 s for the same bytes, the 'write' phase of a
    one-shot BFS at Kronecker 25 (0.59 s of 2.6 s on the H200's host, where GAPBS writes nothing).
    Now several threads (as many as cores) each take a contiguous share of the rows and fill one
    buffer of their own again and again, writing each chunk at its place in the file
    (``os.pwrite``; numpy's copies and the write release the GIL): a new buffer per chunk had the
    kernel fault in and zero every page of it again, the whole table's bytes once more.

    Example:
        >>> import tempfile, os
        >>> path = os.path.join(tempfile.mkdtemp(), "t.npy")
        >>> _write_npy_rows({"vertex": np.arange(3), "levels": np.array([0, 1, -1], np.int32)}, path)
        >>> np.load(path).tolist()
        [(0, 0), (1, 1), (2, -1)]
    """
    import os
    from concurrent.futures import ThreadPoolExecutor

    from numpy.lib import format as npy_format

    cols = {k: np.asarray(v) for k, v in columns.items()}
    dtype = np.dtype([(k, v.dtype) for k, v in cols.items()])
    n = len(next(iter(cols.values())))
    if dtype.hasobject:  # Python objects (pickled by np.save): no raw bytes to copy
        arr = np.empty(n, dtype=dtype)
        for k, v in cols.items():
            arr[k] = v
        np.save(path, arr)
        return
    rows = min(NPY_CHUNK_ROWS, max(n, 1))
    with open(path, "wb") as f:
        npy_format.write_array_header_1_0(f, {"descr": npy_format.dtype_to_descr(dtype), "fortran_order": False,
                                              "shape": (n,)})
        f.flush()
        base = f.tell()
        fd = f.fileno()

        def share(span: tuple[int, int]) -> None:
            lo, hi = span
            buf = np.empty(min(rows, hi - lo), dtype)
            while lo < hi:
                take = min(rows, hi - lo)
                part = buf[:take]
                for k, v in cols.items():
                    part[k] = v[lo:lo + take]
                view, at = memoryview(part).cast("B"), base + lo * dtype.itemsize
                while len(view):
                    done = os.pwrite(fd, view, at)
                    view, at = view[done:], at + done
                lo += take

        chunks = -(-n // rows)
        if chunks == 0:  # no rows: the header alone
            return
        workers = max(1, min(chunks, os.cpu_count() or 1, 16))
        per = -(-chunks // workers) * rows  # each share a whole number of chunks
        spans = [(lo, min(n, lo + per)) for lo in range(0, n, per)]
        if len(spans) <= 1:
            for span in spans:
                share(span)
        else:
            with ThreadPoolExecutor(len(spans)) as pool:
                list(pool.map(share, spans))


def _write_json(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)  # as write_table does: every output makes its folders
    with work_file(path.parent if str(path.parent) else ".", f".{path.name}.") as tmp:
        with writing(path), open(tmp, "w") as f:
            json.dump(data, f, indent=1, default=float)
        publish(str(tmp), path)
