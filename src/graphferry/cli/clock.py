"""Where a one-shot process's time goes: the start-up phases a run record names.

A user running ``graphferry run`` once waits for the interpreter, the imports,
reading the store, loading it for the backend, compiling programs, the hybrid's
calibration, the algorithm and writing the results; the record and the summary
line give each of them (``extra["phases"]``), so the time can be placed.

Example:
    >>> mark_main()
    >>> since_main() >= 0.0
    True
    >>> age = process_age()
    >>> age is None or age >= 0.0
    True
"""

from __future__ import annotations

import os
import time

#: ``time.perf_counter()`` at the first instruction of ``graphferry.cli.main`` (None: not called).
_main_started: float | None = None
#: Seconds from the process's start to that instant (the interpreter and ``import graphferry.cli``).
_before_main: float | None = None


def process_age() -> float | None:
    """Seconds since this process started (from ``/proc``, 10 ms resolution; None where there is none)."""
    try:
        with open("/proc/self/stat") as f:
            # the command name may hold spaces and parentheses: fields are counted after its last ')'
            fields = f.read().rsplit(")", 1)[1].split()
        with open("/proc/uptime") as f:
            uptime = float(f.read().split()[0])
        start = int(fields[19]) / os.sysconf("SC_CLK_TCK")  # field 22 of proc(5), the start time
    except (OSError, ValueError, IndexError):
        return None
    return max(0.0, uptime - start)


def mark_main() -> None:
    """Note that ``main`` starts now (its first instruction)."""
    global _main_started, _before_main
    _main_started = time.perf_counter()
    _before_main = process_age()


def forget_main() -> None:
    """``main`` returned: a later in-process call of the CLI (tests) has no main of its own."""
    global _main_started, _before_main
    _main_started = _before_main = None


def since_main() -> float | None:
    """Seconds since :func:`mark_main` (None when ``main`` did not run: the CLI called in-process)."""
    return None if _main_started is None else time.perf_counter() - _main_started


def before_main() -> float | None:
    """Seconds from the process's start to ``main`` (None when unknown)."""
    return _before_main
