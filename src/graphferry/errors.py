"""Errors that name what was wrong and where (file, line, argument)."""

from __future__ import annotations


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


class StoreError(GraphferryError):
    """A graph store is missing, truncated, tampered with or of an unknown format."""


class CompilerError(GraphferryError):
    """The C++ compiler for the CPU backend is missing or rejected a program."""


class DeviceMemoryError(GraphferryError, MemoryError):
    """An engine was asked to place more on the device than its budget or the GPU allows."""
