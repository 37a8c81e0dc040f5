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
    graphferry cf ratings.tsv --rank 16                  # collaborative filtering, RMSE
    graphferry bench [NAME -- OPTIONS]                   # list or run a benchmark of bench/

This is the one layer that talks to people: options are validated here, long
work draws rich progress bars on stderr, and every error a user can cause
(missing or malformed file, bad option value) ends the process with a non-zero
status and a single ``error: ...`` line on stderr, never a traceback. Set
``GRAPHFERRY_DEBUG=1`` to get tracebacks of unexpected errors.

One file per concern: ``app`` (the typer group that turns every failure into
one line, global options), ``exits`` (exit statuses, signals), ``sizes``,
``console`` (consoles, progress bars, the per-iteration line), ``options``
(shared option types; ``--engine`` from the engine registry), ``tables``
(what ``info`` shows, memory estimates), ``writers`` (result tables and JSON,
written atomically), ``graphs`` (generate, convert, info), ``run`` (the run
command; its algorithms, flags and summaries come from the algorithm
registry), ``cf``, ``tools`` (verify, calibrate, plot, bench) and ``demo``. Every command
takes ``--json``.

Example:
    >>> from typer.testing import CliRunner
    >>> r = CliRunner().invoke(app, ["info", "--help"])
    >>> r.exit_code
    0
    >>> parse_size("32MiB"), parse_size("1GB"), parse_size("4096")
    (33554432, 1000000000, 4096)
"""

from __future__ import annotations

import sys

import typer

# Importing the command modules registers their commands on ``app``.
from . import cf, demo, graphs, run, tools  # noqa: F401
from .app import app, generate_app
from .console import _settings, _spinner, _stderr, _stdout
from .demo import DEMO_STEPS, DemoContext
from .exits import (
    EXIT_FAILURE,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_TERMINATED,
    EXIT_USAGE,
    USER_ERRORS,
    Stopped,
)
from .graphs import _check_output, _load
from .options import Backend, Direction, EngineName, InputFormat
from .run import _report_run, run_algorithm, summarize_result
from .sizes import MIN_PARTITION_BYTES, format_bytes, parse_size
from .tables import BASE_BYTES, DIRECTED_PULL_BYTES, MEMORY_MODEL, _in_degree, graph_info, memory_estimates, print_info
from .writers import write_table

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
]


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``graphferry`` script; returns the exit status.

    Example:
        >>> main(["--version"])
        graphferry 0.1.0
        0
    """
    command = typer.main.get_command(app)
    return command.main(args=argv, prog_name="graphferry", standalone_mode=False)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
