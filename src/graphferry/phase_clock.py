"""Where a one-shot process's main thread waits: seconds per named phase, counted exclusively.

A user running ``graphferry run`` once waits for the CUDA context, the programs'
compilation (or their load from the disk cache), the edges' upload, pinned host
memory, the hybrid's calibration and the results' way back to the host, besides
the algorithm itself. Library code marks each such wait with ``with phase(name):``;
the command line's record (:mod:`graphferry.cli.run`) names them and counts the
algorithm's own phase as what remains of the call, so a 9 ms BFS that took 0.9 s
shows where the rest went.

Only the main thread counts (work in background threads overlaps it: those seconds
are kept apart, :func:`background_seconds`, for the record's curious reader), and
nested phases count exclusively: while an inner phase runs, the outer one's clock
stops, so the phases of one thread never add up to more than its wall time.

Example:
    >>> reset()
    >>> with phase("upload"):
    ...     with phase("pin"):
    ...         pass
    >>> sorted(seconds()), all(v >= 0 for v in seconds().values())
    (['pin', 'upload'], True)
"""

from __future__ import annotations

import threading
import time
from collections import defaultdict
from contextlib import contextmanager
from typing import Iterator

#: Main-thread seconds per phase (exclusive of the phases nested in it).
_seconds: dict[str, float] = defaultdict(float)
#: Other threads' seconds per phase (they overlap the main thread: never subtracted from it).
_background: dict[str, float] = defaultdict(float)
_lock = threading.Lock()
#: The main thread's open phases, innermost last: [name, when its clock last (re)started].
_stack: list[list] = []


@contextmanager
def phase(name: str) -> Iterator[None]:
    """Count the seconds of the ``with`` body under ``name`` (see the module's docstring)."""
    t = time.perf_counter()
    if threading.current_thread() is not threading.main_thread():
        try:
            yield
        finally:
            with _lock:
                _background[name] += time.perf_counter() - t
        return
    if _stack:  # the outer phase's clock stops while this one runs
        outer = _stack[-1]
        _seconds[outer[0]] += t - outer[1]
    mine = [name, t]
    _stack.append(mine)
    try:
        yield
    finally:
        now = time.perf_counter()
        _seconds[name] += now - mine[1]
        _stack.pop()
        if _stack:
            _stack[-1][1] = now


def seconds() -> dict[str, float]:
    """The main thread's seconds per phase so far (a copy)."""
    return dict(_seconds)


def background_seconds() -> dict[str, float]:
    """Other threads' seconds per phase so far (a copy): work that overlapped the main thread."""
    with _lock:
        return dict(_background)


def since(before: dict[str, float]) -> dict[str, float]:
    """The main thread's seconds per phase since ``before`` (an earlier :func:`seconds`), those above zero.

    Example:
        >>> before = seconds()
        >>> with phase("calibration"):
        ...     pass
        >>> list(since(before)) in (["calibration"], [])
        True
    """
    now = seconds()
    return {k: v - before.get(k, 0.0) for k, v in now.items() if v - before.get(k, 0.0) > 0}


def reset() -> None:
    """Forget every count (tests; a process running several one-shot commands in turn)."""
    with _lock:
        _seconds.clear()
        _background.clear()
