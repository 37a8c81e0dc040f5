"""Output files, written atomically: per-vertex result tables and JSON records."""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import GraphferryError, writing


_TABLE_SUFFIXES = (".parquet", ".csv", ".npy")


def _check_table_path(out: Path) -> str:
    suffix = out.suffix.lower()
    if suffix not in _TABLE_SUFFIXES:
        raise GraphferryError(f"--out {out}: unsupported file type {suffix or '(none)'}; use .parquet, .csv or .npy")
    return suffix


def _publish(tmp: str, final: Path) -> None:
    """Rename a finished temporary file into place with the permissions a new file would get."""
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o666 & ~umask)
    os.replace(tmp, final)


def write_table(columns: dict[str, np.ndarray], out: Path) -> None:
    """Write per-vertex columns as .parquet, .csv or .npy (structured), atomically.

    The file is written under a temporary name in the same directory and renamed,
    so a failed run never leaves half a file behind.
    """
    suffix = _check_table_path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{out.name}.", suffix=suffix, dir=out.parent)
    os.close(fd)
    try:
        with writing(out):
            _write_table_file(columns, suffix, tmp)
        _publish(tmp, out)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def _write_table_file(columns: dict[str, np.ndarray], suffix: str, tmp: str) -> None:
    """One table format into ``tmp`` (the caller renames it into place)."""
    if suffix == ".npy":
        arr = np.empty(len(next(iter(columns.values()))), dtype=[(k, np.asarray(v).dtype) for k, v in columns.items()])
        for k, v in columns.items():
            arr[k] = v
        np.save(tmp, arr)
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


def _write_json(path: Path, data: Any) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent if str(path.parent) else ".")
    try:
        with writing(path), os.fdopen(fd, "w") as f:
            json.dump(data, f, indent=1, default=float)
        _publish(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
