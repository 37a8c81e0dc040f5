"""The ``graphferry`` command line (also ``python -m graphferry``).

Commands::

    graphferry generate kronecker --scale 20 out.store   # Graph500 Kronecker graph
    graphferry generate uniform --scale 20 out.store     # uniform random graph
    graphferry convert web.mtx web.store                 # any readable format -> store
    graphferry info web.store [--json]                   # sizes, degrees, partitions
    graphferry verify web.store                          # checksums and structure of a store
    graphferry run pagerank web.store --out pr.parquet   # run an algorithm, write per-vertex results
    graphferry demo                                      # the main job on a built-in graph
    graphferry calibrate [--refresh]                     # the hybrid's cost-model figures
    graphferry plot run.json -o run.png                  # execution path of a run record
    graphferry plot budget-sweep-kron25.json -o s.png    # time against the device budget (bench/budget_sweep.py)
    graphferry cf ratings.tsv --rank 16                  # collaborative filtering, RMSE
    graphferry bench [NAME -- OPTIONS]                   # list or run a benchmark of bench/

This is the one layer that talks to people: options are validated here, long
work draws rich progress bars on stderr, and every error a user can cause
(missing or malformed file, bad option value) ends the process with a non-zero
status and a single ``error: ...`` line on stderr, never a traceback. Set
``GRAPHFERRY_DEBUG=1`` to get tracebacks of unexpected errors.

One file per concern: ``group`` (the typer application ``app``: the group that turns every failure into
one line, global options), ``exits`` (exit statuses, signals), ``sizes``,
``console`` (consoles, progress bars, the per-iteration line), ``options``
(shared option types; ``--engine`` from the engine registry), ``tables``
(what ``info`` shows, memory estimates), ``writers`` (result tables and JSON,
written atomically), ``reading`` (the graph a command names), ``graphs`` (generate, convert,
info), ``run`` (the run command's options; its algorithms, flags and summaries come from the
algorithm registry), ``running`` (its work: no typer there), ``quick_run`` (a one-shot ``run``
parsed without typer), ``cf``, ``tools`` (verify, calibrate, plot, bench) and ``demo``. Every
command takes ``--json``.

Start-up is part of every one-shot run, so :func:`main` installs its signal
handlers first, then imports only the module of the command it was given and
builds only that command (typer builds a validator for every option of every
command it is handed, which costs more than most runs); a plain ``run`` command line builds
none (``quick_run``). The names below are imported on first use, so ``import graphferry.cli``
itself is cheap.

Example:
    >>> from typer.testing import CliRunner
    >>> from graphferry.cli import app, parse_size   # imported on first use, not at import time
    >>> r = CliRunner().invoke(app, ["info", "--help"])
    >>> r.exit_code
    0
    >>> parse_size("32MiB"), parse_size("1GB"), parse_size("4096")
    (33554432, 1000000000, 4096)
"""

from __future__ import annotations

import importlib
import sys

#: The module (of this package) that registers each command; :func:`main` imports only the one it runs.
COMMAND_MODULES = {
    "generate": "graphs", "convert": "graphs", "info": "graphs",
    "run": "run",
    "verify": "tools", "calibrate": "tools", "plot": "tools", "bench": "tools",
    "cf": "cf",
    "demo": "demo",
}

#: Public name -> the module of this package that defines it (imported on first use).
_WHERE = {
    "app": "group", "generate_app": "group",
    "_settings": "console", "_spinner": "console", "_stderr": "console", "_stdout": "console",
    "DEMO_STEPS": "demo", "DemoContext": "demo",
    "EXIT_FAILURE": "exits", "EXIT_INTERNAL": "exits", "EXIT_INTERRUPTED": "exits", "EXIT_TERMINATED": "exits",
    "EXIT_USAGE": "exits", "USER_ERRORS": "exits", "Stopped": "exits",
    "_check_output": "graphs", "_load": "reading",
    "Backend": "options", "Direction": "options", "EngineName": "options", "InputFormat": "options",
    "_report_run": "running", "run_algorithm": "running", "summarize_result": "running",
    "MIN_PARTITION_BYTES": "sizes", "format_bytes": "sizes", "parse_size": "sizes",
    "BASE_BYTES": "tables", "DIRECTED_PULL_BYTES": "tables", "MEMORY_MODEL": "tables", "_in_degree": "tables",
    "graph_info": "tables", "memory_estimates": "tables", "print_info": "tables",
    "write_table": "writers",
}

__all__ = [
    "app",
    "main",
    "format_bytes",
    "graph_info",
    "parse_size",
    "print_info",
    "run_algorithm",
    "summarize_result",
    "memory_estimates",
    "write_table",
    "MEMORY_MODEL",
    "BASE_BYTES",
    "DIRECTED_PULL_BYTES",
    "MIN_PARTITION_BYTES",
    "DEMO_STEPS",
    "DemoContext",
    "EXIT_FAILURE",
    "EXIT_INTERNAL",
    "EXIT_INTERRUPTED",
    "EXIT_TERMINATED",
    "EXIT_USAGE",
    "USER_ERRORS",
    "Stopped",
    "Backend",
    "Direction",
    "EngineName",
    "InputFormat",
    "generate_app",
    "COMMAND_MODULES",
]


def _import_commands(names: set[str] | None = None) -> None:
    """Import the modules registering the commands ``names`` (every command's when None)."""
    for module in sorted({COMMAND_MODULES[c] for c in (COMMAND_MODULES if names is None else names)}):
        importlib.import_module(f"{__name__}.{module}")


def __getattr__(name: str):
    if name in ("app", "generate_app"):
        # The application as a whole (tests, CliRunner): every command registered on it.
        _import_commands()
    if name in _WHERE:
        value = getattr(importlib.import_module(f"{__name__}.{_WHERE[name]}"), name)
        globals()[name] = value  # the package attribute: the object, never the submodule of that name
        return value
    if name in COMMAND_MODULES.values() or name in ("console", "exits", "options", "sizes", "tables", "writers",
                                                     "reading", "running", "quick_run"):
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


#: Global options taking no value (they come before the command's name).
_GLOBAL_FLAGS = {"-v", "-vv", "-vvv", "--verbose", "-q", "--quiet"}


def _command_name(argv: list[str]) -> str | None:
    """The command ``argv`` names, when it names one we know (else None: build every command).

    Example:
        >>> _command_name(["-q", "run", "bfs", "g.store"]), _command_name(["--help"]), _command_name([])
        ('run', None, None)
    """
    for arg in argv:
        if arg in _GLOBAL_FLAGS:
            continue
        return arg if arg in COMMAND_MODULES else None
    return None


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``graphferry`` script; returns the exit status.

    Called as the script (no ``argv``), a process that used the GPU ends at once when the
    command is done (:func:`_end_device_process`).

    Example:
        >>> main(["--version"])
        graphferry 0.1.0
        0
    """
    code = _main(argv)
    if argv is None:
        _end_device_process(code)
    return code


def _end_device_process(code: int) -> None:
    """End a process that used the GPU now, with ``code``, its output flushed: Python's own exit
    would wait for the background compilations still running (kernel groups this run never
    launched, the host library: seconds on a fresh machine, each compiled again when a run needs
    it) and tear the CUDA context down, while every file the command wrote is already complete
    (written under a temporary name and renamed). Not under mpiexec (MPI finalizes at exit)."""
    if "graphferry.backends.cuda.backend" not in sys.modules or "mpi4py" in sys.modules:
        return
    import logging
    import os

    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe: nothing more to say
            pass
    logging.shutdown()
    os._exit(0 if code is None else code if isinstance(code, int) else 1)  # as sys.exit reads it


def _main(argv: list[str] | None) -> int:
    # First of all: SIGINT and SIGTERM raise Stopped, so a signal during the imports
    # below ends with one line and status 130/143 (not a traceback, not a silent death).
    from .exits import Stopped, _signals_raise, _stopped_status

    with _signals_raise():
        from . import clock

        clock.mark_main()
        try:
            args = list(sys.argv[1:] if argv is None else argv)
            name = _command_name(args)
            if name == "run":  # a one-shot run: parsed without building the typer command, where it can be
                from .quick_run import main as quick_main

                code = quick_main(args)
                if code is not None:
                    return code
            from .group import click_group

            _import_commands(None if name is None else {name})
            command = click_group(name)
            return command.main(args=args, prog_name="graphferry", standalone_mode=False)
        except Stopped as exc:
            return _stopped_status(exc)
        finally:
            clock.forget_main()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
