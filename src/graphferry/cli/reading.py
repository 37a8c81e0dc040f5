"""Reading the graph a command names, and the readers' option conflicts as user errors.

Apart from the commands' module (no typer here): a one-shot ``run`` reads its graph without
building the command-line parser (:mod:`graphferry.cli.quick_run`).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..errors import GraphferryError, TargetExistsError
from ..graph import Graph
from ..store import open_store


def _load(path: Path, fmt: str = "auto", verify: bool = False, **kwargs: Any) -> Graph:
    """A store (directory) is memory-mapped; anything else goes through the readers.

    Every store is checked for structure on open; ``verify`` also compares checksums.
    """
    if path.is_dir():
        return open_store(path, verify=verify)
    from ..io import read_graph

    return read_graph(path, format=fmt, **kwargs)


def _user_value_errors(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Run a reader; its plain ValueErrors are option conflicts the user made.

    (Malformed input raises InputError, itself a GraphferryError.) Options that
    a format does not take (``--renumber`` for .mtx, dropping edges of an LDBC
    graph) come back as ValueError: report them in one line, not as a bug.
    """
    try:
        return fn(*args, **kwargs)
    except TargetExistsError as exc:  # the API's words (overwrite=True) in the CLI's (--force)
        raise GraphferryError(f"{exc.path} already exists (use --force to replace it)") from exc
    except GraphferryError:
        raise
    except ValueError as exc:
        raise GraphferryError(str(exc)) from exc
