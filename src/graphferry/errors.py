"""Errors that name what was wrong and where (file, line, argument)."""

from __future__ import annotations

import contextlib
import errno
import os
from collections.abc import Iterator


class GraphferryError(Exception):
    """Base class of every error graphferry raises on purpose."""


class InputError(GraphferryError, ValueError):
    """Malformed input. ``str()`` gives ``file:line: problem`` (line omitted when unknown).

    Example:
        >>> str(InputError("bad id 'x'", path="g.el", line=3))
        "g.el:3: bad id 'x'"
    """

    def __init__(self, problem: str, *, path: str | None = None, line: int | None = None):
        self.problem = problem
        self.path = path
        self.line = line
        where = ""
        if path is not None:
            where = f"{path}:{line}: " if line is not None else f"{path}: "
        super().__init__(f"{where}{problem}")


def excerpt(text: str | bytes, limit: int = 32) -> str:
    """A short, escaped quotation of input text for an error message.

    ASCII only (control bytes, invalid UTF-8 and other non-ASCII characters
    escaped), at most ``limit`` characters of the input, ``...`` when cut, and
    a hint when the text looks binary. So a binary file named as an edge list
    gives one readable line, not a screenful of raw bytes.

    Example:
        >>> excerpt("abc")
        "'abc'"
        >>> print(excerpt(b"\\x7fELF\\x02\\x00\\x00", limit=6))
        '\\x7fELF\\x02\\x00'... (binary data? not a text graph file)
    """
    if isinstance(text, (bytes, bytearray)):
        text = bytes(text).decode("utf-8", errors="backslashreplace")
    quoted = ascii(text[:limit]) + ("..." if len(text) > limit else "")
    binary = any((ord(c) < 32 and c not in "\t\r\n") or c == "\ufffd" for c in text[:limit])
    return quoted + (" (binary data? not a text graph file)" if binary else "")


class StoreError(GraphferryError):
    """A graph store is missing, truncated, tampered with or of an unknown format."""


class TargetExistsError(StoreError):
    """The output path is taken and replacing it was not asked for (``path`` names it).

    Raised in API words (``overwrite=True``); the command line rewords it in
    its own (``--force``).
    """

    def __init__(self, message: str, path: str):
        super().__init__(message)
        self.path = path


class CompilerError(GraphferryError):
    """The C++ compiler for the CPU backend is missing or rejected a program."""


class DeviceMemoryError(GraphferryError, MemoryError):
    """An engine was asked to place more on the device than its budget or the GPU allows."""


class DiskFullError(GraphferryError, OSError):
    """The disk (or quota) filled up while writing; names the path being written."""


#: errno values that mean "the disk or the quota is full".
DISK_FULL_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT})


@contextlib.contextmanager
def writing(path: str | os.PathLike) -> Iterator[None]:
    """Turn a full disk inside the block into :class:`DiskFullError` naming ``path``.

    A bare ``OSError(ENOSPC)`` from ``write`` carries no file name; this says
    which file could not be written, which a user needs in order to free space
    in the right place.

    Example:
        >>> with writing("out.csv"):
        ...     raise OSError(errno.ENOSPC, "No space left on device")
        Traceback (most recent call last):
        ...
        graphferry.errors.DiskFullError: no space left on device while writing out.csv
    """
    try:
        yield
    except DiskFullError:
        raise
    except OSError as exc:
        # pyarrow's IO errors carry the text but not always the errno
        if exc.errno in DISK_FULL_ERRNOS or "No space left on device" in str(exc):
            raise DiskFullError(f"no space left on device while writing {os.fspath(path)}") from exc
        raise
