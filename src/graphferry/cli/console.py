"""The per-run consoles, progress bars and the per-iteration status line (all on stderr)."""

from __future__ import annotations

import contextlib
import logging
import os
import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console

# rich is imported where a console is made and rich.progress where a bar is drawn: a quiet
# run (every one-shot run a script makes) draws none, and their imports are a visible part of
# a short run.

log = logging.getLogger("graphferry.cli")


@dataclass
class _Settings:
    """Per-invocation state set by the root callback."""

    quiet: bool = False
    #: One stderr console per run, shared by progress bars and log records so
    #: that log lines print above a live bar instead of through it.
    stderr: Console | None = None


_settings = _Settings()


def _console(file: Any, **options: Any) -> Console:
    """A console on ``file``; one that is not a terminal (a pipe, a log file) never wraps lines.

    rich wraps at 80 columns when it cannot ask a terminal for its width, which
    would cut a summary's values mid-way for the program reading them.

    Example:
        >>> import io
        >>> out = io.StringIO()
        >>> _console(out).print("x" * 100, highlight=False)
        >>> len(out.getvalue().splitlines())
        1
    """
    from rich.console import Console

    console = Console(file=file, **options)
    if not console.is_terminal:
        console.soft_wrap = True
    return console


def _stderr() -> Console:
    # Made per run, not at import: CliRunner and callers swap sys.stderr.
    if _settings.stderr is None or _settings.stderr.file is not sys.stderr:
        _settings.stderr = _console(sys.stderr, stderr=True)
    return _settings.stderr


def _stdout() -> Console:
    return _console(sys.stdout)


#: What rich changes in a line it prints with ``highlight=False``: markup (``[``), emoji codes
#: (``:name:``), tabs (expanded) and the control codes its ``Text`` strips.
_RICH_WOULD_CHANGE = re.compile(r"[\[\t\x07\x08\x0b\x0c\r]|:\S*?:")
#: The variables that make rich treat a file as a terminal (or not) whatever it is.
_RICH_TERMINAL_VARIABLES = ("FORCE_COLOR", "TTY_COMPATIBLE")


def _print_stdout(text: str, *, soft_wrap: bool | None = None) -> None:
    """``_stdout().print(text, highlight=False, soft_wrap=soft_wrap)``, without rich where rich
    would write the text as it is: stdout a file or a pipe (a console there never wraps, see
    :func:`_console`) and nothing in the text that rich reads as markup, an emoji or a control.
    A one-shot run's summary then costs no import of rich.

    Example:
        >>> import contextlib, io
        >>> out = io.StringIO()
        >>> with contextlib.redirect_stdout(out):
        ...     _print_stdout("levels: {'reached': 3, 'max': 2}")
        ...     _print_stdout("[bold]x[/bold] :smile:")  # rich's markup and emoji, as rich prints them
        >>> out.getvalue().splitlines()
        ["levels: {'reached': 3, 'max': 2}", 'x 😄']
    """
    out = sys.stdout
    isatty = getattr(out, "isatty", None)
    if (out is not None and isatty is not None and not isatty() and not _RICH_WOULD_CHANGE.search(text)
            and not any(v in os.environ for v in _RICH_TERMINAL_VARIABLES)):
        out.write(text + "\n")
        out.flush()
        return
    _stdout().print(text, highlight=False, soft_wrap=soft_wrap)


def apply_global_options(verbose: int, quiet: bool) -> None:
    """The global options of every command (``-v``, ``-q``): bars off, log records on stderr."""
    _settings.quiet = quiet
    _settings.stderr = None
    if verbose:
        root = logging.getLogger("graphferry")
        root.setLevel(logging.INFO if verbose == 1 else logging.DEBUG)
        console = _stderr()
        handler: logging.Handler
        if console.is_terminal:
            from rich.logging import RichHandler

            handler = RichHandler(console=console, show_path=False)
        else:
            # In a log file, rich would wrap lines at 80 columns; one record per line instead.
            handler = logging.StreamHandler(sys.stderr)
            handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        handler.set_name("graphferry-cli")
        # Replace, not add: a second in-process run (tests) has a new stderr.
        for old in [h for h in root.handlers if h.get_name() == "graphferry-cli"]:
            root.removeHandler(old)
        root.addHandler(handler)


# ----------------------------------------------------------------- progress
@contextlib.contextmanager
def _progress(total: int, what: str, then: str) -> Iterator[Callable[[int], None]]:
    """A bar over ``total`` items (on stderr), then a spinner for the ``then`` phase.

    Yields the callback the library layer advances (it knows nothing of rich).
    """
    if _settings.quiet:
        yield lambda k: None
        return
    from rich.progress import (BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn,
                               TimeElapsedColumn, TimeRemainingColumn)

    console = _stderr()
    # Not a terminal (a log file, CI): a bar would only leave noise behind.
    bar = Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(),
                   MofNCompleteColumn(), TimeElapsedColumn(), TimeRemainingColumn(),
                   console=console, transient=True, disable=not console.is_terminal)
    with bar:
        task = bar.add_task(what, total=total)
        state = {"done": 0}

        def advance(k: int) -> None:
            state["done"] += k
            bar.advance(task, k)
            if state["done"] >= total:
                bar.add_task(then, total=None)

        if total == 0:
            bar.add_task(then, total=None)
        yield advance


@contextlib.contextmanager
def _bytes_bar(what: str) -> Iterator[Callable[[str, int], None] | None]:
    """A bar over the bytes a reader reports (read, rate, ETA): yields the reader's listener.

    A pulsing bar until the first report (a reader that does not report, as
    the memory-mapped ``.gr``'s, keeps it); None when bars are off (quiet, or
    not a terminal).
    """
    if _settings.quiet or not _stderr().is_terminal:
        yield None
        return
    console = _stderr()
    from rich.progress import (BarColumn, DownloadColumn, Progress, SpinnerColumn, TextColumn,
                               TimeRemainingColumn, TransferSpeedColumn)

    bar = Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), DownloadColumn(),
                   TransferSpeedColumn(), TimeRemainingColumn(), console=console, transient=True)
    with bar:
        task = bar.add_task(what, total=None)
        positions: dict[str, int] = {}
        sizes: dict[str, int] = {}

        def report(path: str, position: int) -> None:
            # per file its latest position; a reader of several files (LDBC) adds up
            positions[path] = position
            if path not in sizes:
                try:
                    sizes[path] = os.path.getsize(path)
                except OSError:
                    sizes[path] = position
            bar.update(task, completed=sum(positions.values()), total=max(sum(sizes.values()), 1))

        yield report


@contextlib.contextmanager
def _spinner(what: str) -> Iterator[None]:
    """A spinner with elapsed time for work whose length is unknown (reading a file)."""
    if _settings.quiet or not _stderr().is_terminal:
        yield
        return
    console = _stderr()
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    with Progress(SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(),
                  console=console, transient=True) as bar:
        bar.add_task(what, total=None)
        yield


def _iteration_reporter(name: str) -> tuple[Callable[[str, int, Any], None], Callable[[], None]]:
    """A progress callback for the runtime (one status line per edge_map) and its closer."""
    if _settings.quiet or not _stderr().is_terminal:
        def plain(op: str, index: int, record: Any) -> None:
            step = record.steps[-1]
            log.info("%s iteration %d: %s, %d active -> %s", name, index + 1, step.direction,
                     step.active_vertices, step.next_active)
        return plain, lambda: None
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    bar = Progress(SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(),
                   console=_stderr(), transient=True)
    bar.start()
    task = bar.add_task(f"{name}: starting", total=None)

    def update(op: str, index: int, record: Any) -> None:
        bar.update(task, description=iteration_line(name, record))
    return update, bar.stop


def iteration_line(name: str, record: Any) -> str:
    """The live line of a run: iteration, direction, active vertices and edges, engines
    (and devices) of the last step's partitions, bytes moved so far, the step's time.

    Example:
        >>> from graphferry.runtime.record import IterationRecord, RunRecord
        >>> rec = RunRecord("bfs", "cpu", "hybrid")
        >>> step = IterationRecord(0, "edge_map", "push", 1200, 45000, seconds=0.0021)
        >>> step.add_partition(0, "filter", 3 * 10**8, 10, "gpu0")
        >>> step.add_partition(1, "host", 0, 10, "cpu")
        >>> rec.steps.append(step)
        >>> iteration_line("bfs", rec)
        'bfs: iteration 1 (push), 1,200 active vertices, 45,000 edges; filter@gpu0 host@cpu; 0.30 GB moved; 2.1 ms'
        >>> rec.steps.append(IterationRecord(1, "edge_map", "pull", 9000, -1, seconds=0.004))  # not counted
        >>> iteration_line("bfs", rec)
        'bfs: iteration 2 (pull), 9,000 active vertices, edges not counted; 0.30 GB moved; 4.0 ms'
    """
    step = record.steps[-1]
    placed = dict.fromkeys(f"{p.engine}@{p.device}" if p.device else p.engine for p in step.partitions)
    where = f"; {' '.join(placed)}" if placed else ""
    return (f"{name}: iteration {record.iterations} ({step.direction}), {step.active_vertices:,} active vertices, "
            + (f"{step.active_edges:,} edges" if step.active_edges >= 0 else "edges not counted")
            + f"{where}; {record.bytes_h2d / 1e9:.2f} GB moved; {step.seconds * 1e3:.1f} ms")
