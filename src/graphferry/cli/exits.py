"""Exit statuses, the signals that stop a run, and the one-line error report."""

from __future__ import annotations

import contextlib
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


def _one_line(message: str) -> str:
    return " ".join(str(message).split()) or "unknown error"


def _report(message: str) -> None:
    """Print the one error line of a run; under mpiexec rank 0 alone speaks.

    Every rank validates the same command line and fails alike on a user
    error; one line says it (a rank that fails alone says so itself, through
    the distributed run's ``fail_all``).
    """
    import typer  # here, not at the top: main() reports a signal before it has imported typer

    from ..distributed.world import launcher_rank

    if launcher_rank() == 0:
        typer.echo(f"error: {_one_line(message)}", err=True)


def _describe(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror and exc.filename is not None:
        return f"{exc.filename}: {exc.strerror}"
    if isinstance(exc, MemoryError):
        return f"out of memory{': ' + str(exc) if str(exc) else ''}"
    return str(exc) or type(exc).__name__
