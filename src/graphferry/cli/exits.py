"""Exit statuses, the signals that stop a run, and the one-line error report."""

from __future__ import annotations

import contextlib
import re
import sys
from collections.abc import Iterator
from typing import Any

from ..errors import GraphferryError


# Exit statuses: 1 for a failed run, 2 for a command line that makes no sense
# (click's convention), 130 for Ctrl-C (SIGINT), 143 for SIGTERM (128 + signal
# number, as a shell reports a process killed by it), 70 (EX_SOFTWARE) for a bug.
EXIT_FAILURE, EXIT_USAGE, EXIT_INTERRUPTED, EXIT_TERMINATED, EXIT_INTERNAL = 1, 2, 130, 143, 70


class Stopped(BaseException):
    """Raised in the main thread on SIGINT or SIGTERM, so that cleanup runs on both.

    A BaseException like KeyboardInterrupt, so ``except Exception`` in library
    code does not swallow it while ``with``/``finally`` blocks (temporary stores,
    spill directories, half-written output files) still remove what they made.
    Not a KeyboardInterrupt itself: typer would turn that into a silent exit 130.
    """

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


def _raise_stopped(signum: int, frame: Any) -> None:
    raise Stopped(signum)


@contextlib.contextmanager
def _signals_raise() -> Iterator[None]:
    """Within the block, SIGINT and SIGTERM raise :class:`Stopped` (main thread only)."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {sig: signal.signal(sig, _raise_stopped) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _remove_unfinished_work() -> None:
    """The work files' cleanup, where that module was imported at all (else nothing can be unfinished)."""
    import sys

    workfiles = sys.modules.get("graphferry.workfiles")
    if workfiles is not None:
        workfiles.remove_unfinished_work()


def _stopped_status(exc: Stopped) -> int:
    """Clean up after ``exc`` (SIGINT or SIGTERM), print the one line and return 130 or 143."""
    import signal

    # A signal may land between a work directory's mkdir and the
    # ``with`` that would remove it; the work-file module knows its names.
    _remove_unfinished_work()
    terminated = exc.signum == signal.SIGTERM
    _report("terminated" if terminated else "interrupted")
    return EXIT_TERMINATED if terminated else EXIT_INTERRUPTED


# Errors that a user can cause and fix: reported as one line.
USER_ERRORS: tuple[type[BaseException], ...] = (GraphferryError, OSError, MemoryError)


def failure_status(debug: bool) -> int:
    """The exit status of the exception being handled (call it in an ``except`` block), its one
    line reported: Ctrl-C 130, SIGINT or SIGTERM 130 or 143, a user's error 1, a bug 70 (its
    traceback with ``debug``). Anything else (SystemExit) is raised again."""
    import sys

    exc = sys.exc_info()[1]
    if isinstance(exc, KeyboardInterrupt):
        _remove_unfinished_work()
        _report("interrupted")
        return EXIT_INTERRUPTED
    if isinstance(exc, Stopped):
        return _stopped_status(exc)
    if isinstance(exc, USER_ERRORS):
        if debug:
            raise
        _report(_describe(exc))
        return EXIT_FAILURE
    if isinstance(exc, Exception):  # a bug: still no traceback unless asked for
        if debug:
            raise
        _report(f"internal error: {type(exc).__name__}: {exc} (set GRAPHFERRY_DEBUG=1 for the traceback)")
        return EXIT_INTERNAL
    raise


def _one_line(message: str) -> str:
    return " ".join(str(message).split()) or "unknown error"


def _report(message: str) -> None:
    """Print the one error line of a run; under mpiexec rank 0 alone speaks.

    Every rank validates the same command line and fails alike on a user
    error; one line says it (a rank that fails alone says so itself, through
    the distributed run's ``fail_all``).
    """
    from ..distributed.world import launcher_rank

    if launcher_rank() == 0:
        _echo_err(f"error: {_one_line(message)}")


#: The escape sequences click's ``echo`` strips from a line written to a file or a pipe.
_ANSI = re.compile(r"\033\[[;?0-9]*[a-zA-Z]")


def _echo_err(line: str) -> None:
    """``line`` on stderr, as ``typer.echo(line, err=True)`` writes it (escape sequences stripped
    where stderr is no terminal), without importing typer: a one-shot run's error needs no parser."""
    stream = sys.stderr
    if stream is None:
        return
    isatty = getattr(stream, "isatty", None)
    if not (isatty is not None and isatty()):
        line = _ANSI.sub("", line)
    stream.write(line + "\n")
    stream.flush()


def _describe(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror and exc.filename is not None:
        return f"{exc.filename}: {exc.strerror}"
    if isinstance(exc, MemoryError):
        return f"out of memory{': ' + str(exc) if str(exc) else ''}"
    return str(exc) or type(exc).__name__
