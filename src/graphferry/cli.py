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

This is the one layer that talks to people: options are validated here, long
work draws rich progress bars on stderr, and every error a user can cause
(missing or malformed file, bad option value) ends the process with a non-zero
status and a single ``error: ...`` line on stderr, never a traceback. Set
``GRAPHFERRY_DEBUG=1`` to get tracebacks of unexpected errors.

Example:
    >>> from typer.testing import CliRunner
    >>> r = CliRunner().invoke(app, ["info", "--help"])
    >>> r.exit_code
    0
    >>> parse_size("32MiB"), parse_size("1GB"), parse_size("4096")
    (33554432, 1000000000, 4096)
"""

from __future__ import annotations

import contextlib
import inspect
import json
import logging
import os
import re
import sys
import tempfile
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import typer
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from . import __version__
from .errors import GraphferryError, TargetExistsError, writing
from .graph import Graph
from .partition import DEFAULT_PARTITION_BYTES, partition_by_bytes
from .runtime.loaded import load as load_graph
from .store import is_store, open_store

try:  # typer >= 0.2x carries its own copy of click
    from typer._click import exceptions as _cx
except ImportError:  # pragma: no cover - older typer on top of click
    from click import exceptions as _cx

log = logging.getLogger(__name__)

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


# Errors that a user can cause and fix: reported as one line.
USER_ERRORS: tuple[type[BaseException], ...] = (GraphferryError, OSError, MemoryError)


# --------------------------------------------------------------------- sizes
_SIZE_RE = re.compile(r"^\s*(\d+(?:\.\d*)?|\.\d+)\s*([kmgtp]?)(i?)(b?)\s*$", re.IGNORECASE)


def parse_size(text: str | int) -> int:
    """Bytes from ``"32MiB"``, ``"1GB"``, ``"512k"`` or a plain integer.

    Accepted: a number (digits, optionally one decimal point) and an optional
    unit. ``KiB/MiB/GiB/TiB/PiB`` and bare ``K/M/G/T/P`` are powers of 1024,
    ``kB/MB/GB/TB/PB`` powers of 1000 (the convention of ``dd``), ``B`` or no
    unit is bytes; fractions are rounded to whole bytes. Refused (``ValueError``):
    zero, negative sizes, exponents (``1e3``: write ``1000`` or ``1kB``), and
    anything else.

    Example:
        >>> parse_size("1.5KiB"), parse_size("2k"), parse_size("3 MB")
        (1536, 2048, 3000000)
        >>> parse_size("1e3")
        Traceback (most recent call last):
        ...
        ValueError: not a size: '1e3' (no exponents; write 1000 or 1kB)
    """
    if isinstance(text, int):
        value = text
    else:
        match = _SIZE_RE.match(text)
        if not match:
            if re.match(r"^\s*[\d.]+e[+-]?\d+\s*$", text, re.IGNORECASE):
                raise ValueError(f"not a size: {text!r} (no exponents; write 1000 or 1kB)")
            raise ValueError(f"not a size: {text!r} (use e.g. 32MiB, 1GB or a number of bytes)")
        number, prefix, binary, byte = match.groups()
        power = "kmgtp".index(prefix.lower()) + 1 if prefix else 0
        if binary and not prefix:
            raise ValueError(f"not a size: {text!r}")
        base = 1000 if (prefix and byte and not binary) else 1024
        value = round(float(number) * base**power)
    if value <= 0:
        raise ValueError(f"size must be positive, got {text!r}")
    return int(value)


def _size_param(text: str) -> int:
    try:
        return parse_size(text)
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from None


#: Smallest --partition-bytes the command line takes: one page. Smaller
#: partitions only multiply per-partition work (1 byte ran 700x slower); the
#: Python API still takes any size, which tests use to split tiny graphs.
MIN_PARTITION_BYTES = 4096


def _partition_size_param(text: str) -> int:
    size = _size_param(text)
    if size < MIN_PARTITION_BYTES:
        raise typer.BadParameter(f"{format_bytes(size)} is below the minimum of {format_bytes(MIN_PARTITION_BYTES)} "
                                 "(tiny partitions make every run far slower)")
    return size


def format_bytes(n: int) -> str:
    """``1536 -> '1.5 KiB'`` (binary units, as the partition sizes are)."""
    size = float(n)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if size < 1024 or unit == "TiB":
            return f"{int(size)} B" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    raise AssertionError("unreachable")


# ---------------------------------------------------------- error reporting
def _one_line(message: str) -> str:
    return " ".join(str(message).split()) or "unknown error"


def _report(message: str) -> None:
    typer.echo(f"error: {_one_line(message)}", err=True)


def _describe(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror and exc.filename is not None:
        return f"{exc.filename}: {exc.strerror}"
    if isinstance(exc, MemoryError):
        return f"out of memory{': ' + str(exc) if str(exc) else ''}"
    return str(exc) or type(exc).__name__


class _Group(typer.core.TyperGroup):
    """Top-level group that turns every failure into one ``error:`` line.

    click (and typer's rich formatting) would print usage boxes and
    tracebacks; running click non-standalone and catching here gives one place
    that decides what a user sees. ``CliRunner.invoke(app, ...)`` goes through
    this too, so tests see what users see.
    """

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        debug = os.environ.get("GRAPHFERRY_DEBUG", "") not in ("", "0")
        try:
            with _signals_raise():
                rv = super().main(args=args, prog_name=prog_name or "graphferry",
                                  complete_var=complete_var, standalone_mode=False, **extra)
            code = rv if isinstance(rv, int) else 0
        except _cx.NoArgsIsHelpError as exc:
            typer.echo(exc.ctx.get_help())
            code = 0
        except _cx.UsageError as exc:
            hint = ""
            if exc.ctx is not None and exc.ctx.command_path:
                hint = f" (see '{exc.ctx.command_path} --help')"
            _report(exc.format_message() + hint)
            code = EXIT_USAGE
        except _cx.ClickException as exc:
            _report(exc.format_message())
            code = exc.exit_code
        except typer.Abort as exc:
            # click turns Ctrl-C into Abort (after printing a newline).
            if isinstance(exc.__context__, KeyboardInterrupt):
                _report("interrupted")
                code = EXIT_INTERRUPTED
            elif isinstance(exc.__context__, EOFError):  # click turns EOFError into Abort too
                _report(f"unexpected end of data{': ' + str(exc.__context__) if str(exc.__context__) else ''}")
                code = EXIT_FAILURE
            else:
                _report("aborted")
                code = EXIT_FAILURE
        except KeyboardInterrupt:
            _report("interrupted")
            code = EXIT_INTERRUPTED
        except Stopped as exc:
            import signal

            terminated = exc.signum == signal.SIGTERM
            _report("terminated" if terminated else "interrupted")
            code = EXIT_TERMINATED if terminated else EXIT_INTERRUPTED
        except USER_ERRORS as exc:
            if debug:
                raise
            _report(_describe(exc))
            code = EXIT_FAILURE
        except Exception as exc:  # a bug: still no traceback unless asked for
            if debug:
                raise
            _report(f"internal error: {type(exc).__name__}: {exc} "
                    "(set GRAPHFERRY_DEBUG=1 for the traceback)")
            code = EXIT_INTERNAL
        if standalone_mode:
            sys.exit(code)
        return code


# ------------------------------------------------------------------ the app
app = typer.Typer(
    cls=_Group,
    name="graphferry",
    help="Graph analytics on GPUs for graphs whose edges do not fit in GPU memory.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)
generate_app = typer.Typer(help="Generate a synthetic graph into a graph store.",
                           no_args_is_help=True, rich_markup_mode=None)
app.add_typer(generate_app, name="generate")


@dataclass
class _Settings:
    """Per-invocation state set by the root callback."""

    quiet: bool = False
    #: One stderr console per run, shared by progress bars and log records so
    #: that log lines print above a live bar instead of through it.
    stderr: Console | None = None


_settings = _Settings()


def _stderr() -> Console:
    # Made per run, not at import: CliRunner and callers swap sys.stderr.
    if _settings.stderr is None or _settings.stderr.file is not sys.stderr:
        _settings.stderr = Console(file=sys.stderr, stderr=True)
    return _settings.stderr


def _stdout() -> Console:
    return Console(file=sys.stdout)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"graphferry {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    verbose: Annotated[int, typer.Option("--verbose", "-v", count=True,
                                         help="Log progress (-v) or debug details (-vv) to stderr.")] = 0,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bars.")] = False,
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                          help="Print the version and exit.")] = False,
) -> None:
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
def _spinner(what: str) -> Iterator[None]:
    """A spinner with elapsed time for work whose length is unknown (reading a file)."""
    console = _stderr()
    if _settings.quiet or not console.is_terminal:
        yield
        return
    with Progress(SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(),
                  console=console, transient=True) as bar:
        bar.add_task(what, total=None)
        yield


# ----------------------------------------------------------- store helpers
def _check_output(path: Path, force: bool) -> None:
    """Fail before hours of work, not after: the target must be free or (with --force) a store.

    The store layer re-checks and replaces atomically (the old store stays until
    the new one is complete), so nothing is deleted here.
    """
    if not path.exists():
        return
    if not force:
        raise GraphferryError(f"{path} already exists (use --force to replace it)")
    # A typo'd argument must never cost someone a directory: only a store (or
    # an empty directory) may be replaced.
    if not (is_store(path) or (path.is_dir() and not any(path.iterdir()))):
        raise GraphferryError(f"{path} exists and is not a graph store; not replacing it")


def _load(path: Path, fmt: str = "auto", verify: bool = False, **kwargs: Any) -> Graph:
    """A store (directory) is memory-mapped; anything else goes through the readers.

    Every store is checked for structure on open; ``verify`` also compares checksums.
    """
    if path.is_dir():
        return open_store(path, verify=verify)
    from .io import read_graph

    return read_graph(path, format=fmt, **kwargs)


# -------------------------------------------------------------------- info
def _in_degree(graph: Graph, chunk: int = 2**26) -> np.ndarray:
    """In-degrees without materialising an int64 copy of all indices.

    ``np.bincount`` converts its input to intp, which for a memory-mapped store
    of 2 G int32 indices would be a 16 GiB temporary; counting slice by slice
    keeps the extra memory to one slice plus the counts.
    """
    if not graph.directed:
        return graph.out_degree
    n, idx = graph.n, graph.indices
    counts = np.zeros(n, dtype=np.int64)
    step = max(chunk, n)
    for lo in range(0, len(idx), step):
        counts += np.bincount(idx[lo:lo + step], minlength=n)
    return counts


def _degree_stats(deg: np.ndarray) -> dict[str, float | int]:
    if len(deg) == 0:
        return {"min": 0, "max": 0, "mean": 0.0, "median": 0.0}
    return {"min": int(deg.min()), "max": int(deg.max()), "mean": float(deg.mean()),
            "median": float(np.median(deg))}


#: Peak resident memory of ``graphferry run ALGORITHM`` on the CPU backend, as
#: ``(bytes per vertex, bytes per arc)`` beyond the interpreter and the store's
#: arrays the algorithm reads (those count as resident once touched). Fitted to
#: bench/memory_bench.py at Kronecker scale 20 (undirected) and checked at scale
#: 22 (bench/results/memory-kron*.json); a directed graph adds the transpose for
#: the algorithms that pull (DIRECTED_PULL_BYTES). Estimates, not promises.
MEMORY_MODEL: dict[str, tuple[int, int]] = {
    "bfs": (64, 0),             # parents, levels (+ int64 copies), frontier ids and bitmaps
    "sssp": (56, 0),            # distances (+ copy), frontier
    "pagerank": (80, 0),        # ranks, residuals, inverse degrees, frontier (float64)
    "pagerank_ldbc": (72, 0),   # ranks, next ranks, inverse degrees (float64)
    "wcc": (64, 0),             # labels (+ copy), frontiers
    "cdlp": (64, 80),           # simple view + per-hub (vertex, label) keys sorted each round
    "lcc": (32, 64),            # degree-ordered DAG built from int64 edge arrays
    "triangle_count": (16, 7),  # the DAG built row by row in C++ (scale 22: 2.85x the store)
    # not fitted yet: the state arrays plus the simple view built from int64 edge arrays
    # (as lcc's), pending a bench/memory_bench.py run
    "betweenness": (64, 64),    # level, dist, sigma, delta, bc (8 B each) + frontiers; simple view
    "coloring": (40, 64),       # colour, worklists; simple undirected view
    "mst": (40, 72),            # label, key, hi; symmetrised view keeping the least weight per pair
    "communities": (64, 64),    # labels, flags, modularity terms; simple undirected view
}
#: Interpreter, numpy and graphferry, measured (``python -c "import graphferry.cli"``).
BASE_BYTES = 40 * 2**20
#: A directed graph's transpose for pulling: kept 8 B/vertex + the index bytes per
#: arc; while it is built (int64 edge arrays, argsort), about 40 B/arc.
DIRECTED_PULL_BYTES = (8, 40)
_PULLS = {"bfs", "sssp", "pagerank", "pagerank_ldbc", "wcc", "cdlp"}


def memory_estimates(graph: Graph) -> dict[str, dict[str, Any]]:
    """Estimated peak resident bytes of running each algorithm on ``graph`` (CPU backend).

    ``{name: {"bytes": int, "formula": str}}`` from :data:`MEMORY_MODEL`.

    Example:
        >>> g = Graph.from_edges(np.array([0, 1]), np.array([1, 2]), n=3, directed=False)
        >>> est = memory_estimates(g)
        >>> est["bfs"]["formula"], est["bfs"]["bytes"] - BASE_BYTES  # 32 B offsets + 16 B indices
        ('40 MiB + arrays 48 B + 64 B/vertex', 240)
        >>> est["triangle_count"]["formula"], est["triangle_count"]["bytes"] - BASE_BYTES
        ('40 MiB + arrays 48 B + 16 B/vertex + 7 B/arc', 124)
    """
    n, m = graph.n, graph.m
    store = graph.offsets.nbytes + graph.indices.itemsize * m
    if graph.original_ids is not None:
        store += np.asarray(graph.original_ids).nbytes
    out = {}
    for name, (per_vertex, per_arc) in MEMORY_MODEL.items():
        arrays = store + (4 * m if name == "sssp" and graph.weighted else 0)
        v, a = per_vertex, per_arc
        if graph.directed and name in _PULLS:
            v, a = v + DIRECTED_PULL_BYTES[0], a + DIRECTED_PULL_BYTES[1]
        formula = f"{BASE_BYTES >> 20} MiB + arrays {format_bytes(arrays)} + {v} B/vertex"
        if a:
            formula += f" + {a} B/arc"
        out[name] = {"bytes": int(BASE_BYTES + arrays + v * n + a * m), "formula": formula}
    return out


def graph_info(graph: Graph, partition_bytes: int = DEFAULT_PARTITION_BYTES,
               path: str | os.PathLike | None = None) -> dict[str, Any]:
    """Sizes, degree statistics and partition count of a graph, as plain data.

    ``partitions`` counts the ranges of consecutive vertices that
    :func:`graphferry.partition.partition_by_bytes` cuts at ``partition_bytes``
    of edge data (indices plus weights) each.

    Example:
        >>> import numpy as np
        >>> g = Graph.from_edges(np.array([0, 0, 1]), np.array([1, 2, 2]), n=4)
        >>> info = graph_info(g, partition_bytes=8)
        >>> info["n"], info["m"], info["isolated_vertices"], info["partitions"]
        (4, 3, 1, 2)
        >>> info["out_degree"]["max"], info["in_degree"]["max"], info["arrays"]["indices"]["bytes"]
        (2, 2, 12)
    """
    out_deg = graph.out_degree
    in_deg = _in_degree(graph)
    isolated = int(np.count_nonzero((out_deg == 0) & (in_deg == 0)))
    arrays = {}
    for name in ("offsets", "indices", "weights", "original_ids"):
        arr = getattr(graph, name)
        if arr is not None:
            arrays[name] = {"dtype": str(arr.dtype), "entries": int(len(arr)), "bytes": int(arr.nbytes)}
    bytes_per_edge = graph.indices.itemsize + (graph.weights.itemsize if graph.weighted else 0)
    parts = partition_by_bytes(graph.offsets, bytes_per_edge, partition_bytes)
    return {
        "path": None if path is None else str(path),
        "name": graph.name,
        "n": graph.n,
        "m": graph.m,
        "directed": graph.directed,
        "weighted": graph.weighted,
        "weight_column": graph.meta.get("weight_column") if graph.weighted else None,
        "out_degree": _degree_stats(out_deg),
        "in_degree": _degree_stats(in_deg),
        "isolated_vertices": isolated,
        "arrays": arrays,
        "total_bytes": sum(a["bytes"] for a in arrays.values()),
        "edge_bytes": graph.edge_bytes,
        "partition_bytes": int(partition_bytes),
        "partitions": len(parts),
        "largest_partition_bytes": max((p.num_edges * bytes_per_edge for p in parts), default=0),
        "memory_estimates": memory_estimates(graph),
    }


def print_info(info: dict[str, Any], console: Console) -> None:
    """Render :func:`graph_info` as rich tables."""
    head = Table(title=f"graph {info['name']}", show_header=False, title_justify="left")
    head.add_column(style="bold")
    head.add_column(justify="right")
    if info.get("path"):
        head.add_row("path", info["path"])
    head.add_row("vertices (n)", f"{info['n']:,}")
    head.add_row("arcs (m)", f"{info['m']:,}")
    head.add_row("directed", "yes" if info["directed"] else "no (each edge stored both ways)")
    column = f" (column {info['weight_column']!r})" if info.get("weight_column") else ""
    head.add_row("weighted", f"yes{column}" if info["weighted"] else "no")
    head.add_row("isolated vertices", f"{info['isolated_vertices']:,}")
    head.add_row("size", format_bytes(info["total_bytes"]))
    head.add_row(f"partitions of {format_bytes(info['partition_bytes'])}",
                 f"{info['partitions']:,} (largest {format_bytes(info['largest_partition_bytes'])})")
    console.print(head)

    deg = Table(title="degrees", title_justify="left")
    deg.add_column("")
    deg.add_column("out", justify="right")
    deg.add_column("in", justify="right")
    for stat in ("min", "max", "mean", "median"):
        fmt = (lambda x: f"{x:,.2f}") if stat in ("mean", "median") else (lambda x: f"{x:,}")
        deg.add_row(stat, fmt(info["out_degree"][stat]), fmt(info["in_degree"][stat]))
    console.print(deg)

    arr = Table(title="arrays", title_justify="left")
    for col, just in (("array", "left"), ("dtype", "left"), ("entries", "right"), ("bytes", "right")):
        arr.add_column(col, justify=just)
    for name, a in info["arrays"].items():
        arr.add_row(name, a["dtype"], f"{a['entries']:,}", f"{a['bytes']:,} ({format_bytes(a['bytes'])})")
    console.print(arr)

    if info.get("memory_estimates"):
        mem = Table(title="memory to run (estimated peak resident, CPU backend)", title_justify="left")
        for col, just in (("algorithm", "left"), ("peak", "right"), ("from", "left")):
            mem.add_column(col, justify=just)
        for name, e in info["memory_estimates"].items():
            mem.add_row(name, format_bytes(e["bytes"]), e["formula"])
        console.print(mem)


# ---------------------------------------------------------------- options
class InputFormat(str, Enum):
    auto = "auto"
    edgelist = "edgelist"
    mtx = "mtx"
    ldbc = "ldbc"
    csv = "csv"
    parquet = "parquet"
    gr = "gr"


class WeightKindOpt(str, Enum):
    integer = "int"
    real = "float"


OutStore = Annotated[Path, typer.Argument(metavar="OUT_STORE", help="Graph store directory to create.",
                                          show_default=False)]
ScaleOpt = Annotated[int, typer.Option("--scale", "-s", min=0, max=40,
                                       help="log2 of the number of vertices.")]
EdgeFactorOpt = Annotated[int, typer.Option("--edge-factor", "-e", min=0,
                                            help="Edge samples per vertex.")]
SeedOpt = Annotated[int, typer.Option("--seed", min=0, help="Random seed (same seed, same graph).")]
WeightedFlag = Annotated[bool, typer.Option("--weighted", help="Give every edge a random weight.")]
WeightsOpt = Annotated[WeightKindOpt, typer.Option(
    "--weights", help="Weights: integers in [1, 255] (GAPBS) or floats in [0, 1).")]
DirectedFlag = Annotated[bool, typer.Option(
    "--directed", help="Keep samples as directed arcs (default: undirected, as Graph500).")]
KeepLoopsFlag = Annotated[bool, typer.Option("--keep-self-loops", help="Do not drop self-loops.")]
KeepDupsFlag = Annotated[bool, typer.Option("--keep-duplicates", help="Do not drop repeated edges.")]
ThreadsOpt = Annotated[int | None, typer.Option("--threads", min=1, help="Generator threads.",
                                                show_default="all cores, up to 8")]
ForceFlag = Annotated[bool, typer.Option("--force", "-f", help="Replace OUT_STORE if it is a store.")]
PartitionBytesOpt = Annotated[int, typer.Option(
    "--partition-bytes", parser=_partition_size_param, metavar="SIZE",
    help="Partition size for the partition count: 32MiB, 1GB, or bytes.")]
RunPartitionBytesOpt = Annotated[int | None, typer.Option(
    "--partition-bytes", parser=_partition_size_param, metavar="SIZE", show_default="32MiB where edges move",
    help="Partition size: 32MiB, 1GB, or bytes. Default: 32MiB for engines that move edges, "
         "one partition per side for the CPU backend's host engine (nothing moves).")]
JsonFlag = Annotated[bool, typer.Option("--json", help="Machine-readable JSON on stdout.")]
VerifyFlag = Annotated[bool, typer.Option(
    "--verify", help="Also compare the store's checksums before using it (reads it whole).")]


def _generate(kind: str, out: Path, *, force: bool, **kwargs: Any) -> Graph:
    from . import generators

    _check_output(out, force)
    scale, edge_factor = kwargs["scale"], kwargs["edge_factor"]
    total = edge_factor << scale
    fn = generators.kronecker_graph if kind == "kronecker" else generators.uniform_graph
    with _progress(total, f"{kind} scale {scale}: edge samples", "building store") as advance:
        graph = _user_value_errors(fn, store=out, overwrite=force, progress=advance, **kwargs)
    if not _settings.quiet:
        _stderr().print(f"wrote {out}: n={graph.n:,} m={graph.m:,}", highlight=False)
    return graph


def _generate_command(kind: str):
    def command(
        out: OutStore,
        scale: ScaleOpt,
        edge_factor: EdgeFactorOpt = 16,
        seed: SeedOpt = 0,
        weighted: WeightedFlag = False,
        weights: WeightsOpt = WeightKindOpt.integer,
        directed: DirectedFlag = False,
        keep_self_loops: KeepLoopsFlag = False,
        keep_duplicates: KeepDupsFlag = False,
        threads: ThreadsOpt = None,
        force: ForceFlag = False,
    ) -> None:
        _generate(kind, out, force=force, scale=scale, edge_factor=edge_factor, seed=seed,
                  weighted=weighted, weight_kind=weights.value, directed=directed,
                  drop_self_loops=not keep_self_loops, drop_duplicates=not keep_duplicates,
                  threads=threads)

    return command


generate_app.command(
    "kronecker",
    help="Graph500 Kronecker graph: 2^scale vertices, edge-factor * 2^scale samples, "
         "undirected, self-loops and duplicates dropped (unless asked otherwise).",
)(_generate_command("kronecker"))
generate_app.command(
    "uniform",
    help="Uniform random graph (Erdos-Renyi G(n, m), GAPBS -u): same options as kronecker.",
)(_generate_command("uniform"))


@app.command()
def convert(
    input: Annotated[Path, typer.Argument(metavar="INPUT", help="Graph file to read.", show_default=False)],
    out: OutStore,
    format: Annotated[InputFormat, typer.Option("--format", help="Input format (auto: by name and content).")]
        = InputFormat.auto,
    directed: Annotated[bool | None, typer.Option(
        "--directed/--undirected", help="Override the direction the format implies.",
        show_default="as the format says")] = None,
    weighted: Annotated[bool | None, typer.Option(
        "--weighted/--unweighted", help="Read (or ignore) a weight column.",
        show_default="as the format says")] = None,
    renumber: Annotated[bool | None, typer.Option(
        "--renumber/--no-renumber", help="Map arbitrary vertex ids to 0..n-1 (edge lists, tables).",
        show_default="as the format says")] = None,
    drop_self_loops: Annotated[bool, typer.Option("--drop-self-loops", help="Drop edges v -> v.")] = False,
    drop_duplicates: Annotated[bool, typer.Option("--drop-duplicates", help="Keep one of repeated edges.")]
        = False,
    force: ForceFlag = False,
) -> None:
    """Read a graph file (edge list, Matrix Market, LDBC, CSV, Parquet, Galois .gr) into a store.

    The edges stream into the store through the chunked CSR builder, so the
    input need not fit in memory as an edge list; nothing is left at OUT_STORE
    if reading fails.
    """
    if not input.exists():
        raise GraphferryError(f"{input}: no such file or directory")
    _check_output(out, force)
    kwargs: dict[str, Any] = {"drop_self_loops": drop_self_loops, "drop_duplicates": drop_duplicates}
    for key, value in (("directed", directed), ("weighted", weighted), ("renumber", renumber)):
        if value is not None:  # None: let the format decide
            kwargs[key] = value
    from .io import read_graph

    with _spinner(f"converting {input}"):
        graph = _user_value_errors(read_graph, input, format=format.value, store=out,
                                   overwrite=force, **kwargs)
    if not _settings.quiet:
        _stderr().print(f"wrote {out}: n={graph.n:,} m={graph.m:,}", highlight=False)


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


@app.command()
def info(
    path: Annotated[Path, typer.Argument(metavar="STORE_OR_FILE", help="A graph store or a graph file.",
                                         show_default=False)],
    partition_bytes: PartitionBytesOpt = "32MiB",  # type: ignore[assignment]  (parsed to int)
    format: Annotated[InputFormat, typer.Option("--format", help="Format, when PATH is a file.")]
        = InputFormat.auto,
    as_json: JsonFlag = False,
) -> None:
    """Vertices, arcs, degree statistics, array sizes and partition count."""
    if not path.exists():
        raise GraphferryError(f"{path}: no such file or directory")
    with _spinner(f"reading {path}"):
        graph = _user_value_errors(_load, path, format.value)
        data = graph_info(graph, partition_bytes, path=path)
    _emit_info(data, as_json)


def _emit_info(data: dict[str, Any], as_json: bool) -> None:
    if as_json:
        typer.echo(json.dumps(data, indent=2))
    else:
        print_info(data, _stdout())


@app.command()
def verify(
    path: Annotated[Path, typer.Argument(metavar="STORE", help="A graph store directory.", show_default=False)],
    as_json: JsonFlag = False,
) -> None:
    """Check a store completely: manifest, file sizes, headers, CSR structure and every checksum.

    Exit status 0 when all holds, 1 (with one error line naming the files) when not.
    """
    from .store import verify_store

    if not path.exists():
        raise GraphferryError(f"{path}: no such file or directory")
    with _spinner(f"verifying {path}"):
        report = verify_store(path)
    if as_json:
        typer.echo(json.dumps({**report, "ok": True}, indent=2))
    else:
        _stdout().print(f"ok: {path}: n={report['n']:,} m={report['m']:,}, "
                        f"{len(report['files'])} files ({format_bytes(report['bytes'])}), checksums match",
                        highlight=False)


# --------------------------------------------------------------------- run
class Backend(str, Enum):
    auto = "auto"
    cpu = "cpu"
    cuda = "cuda"


class EngineName(str, Enum):
    auto = "auto"
    host = "host"
    resident = "resident"
    filter = "filter"
    compaction = "compaction"
    zerocopy = "zerocopy"
    unified = "unified"
    hybrid = "hybrid"


class Direction(str, Enum):
    auto = "auto"
    push = "push"
    pull = "pull"


def _algorithm_kwargs(accepted: Mapping[str, Any], given: dict[str, Any], name: str) -> dict[str, Any]:
    """Only the parameters in ``accepted``; a given one not accepted is a usage error."""
    out = {}
    for key, value in given.items():
        if value is None:
            continue
        if key not in accepted:
            flag = "--" + key.replace("_", "-")
            raise GraphferryError(f"{flag} does not apply to {name}")
        out[key] = value
    return out


def _iteration_reporter(name: str) -> tuple[Callable[[str, int, Any], None], Callable[[], None]]:
    """A progress callback for the runtime (one status line per edge_map) and its closer."""
    console = _stderr()
    if _settings.quiet or not console.is_terminal:
        def plain(op: str, index: int, record: Any) -> None:
            step = record.steps[-1]
            log.info("%s iteration %d: %s, %d active -> %s", name, index + 1, step.direction,
                     step.active_vertices, step.next_active)
        return plain, lambda: None
    bar = Progress(SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(),
                   console=console, transient=True)
    bar.start()
    task = bar.add_task(f"{name}: starting", total=None)

    def update(op: str, index: int, record: Any) -> None:
        step = record.steps[-1]
        bar.update(task, description=(f"{name}: iteration {record.iterations} ({step.direction}), "
                                      f"{step.active_vertices:,} active, {step.bytes_h2d / 2**20:.1f} MiB moved"))
    return update, bar.stop


_TABLE_SUFFIXES = (".parquet", ".csv", ".npy")


def _check_table_path(out: Path) -> str:
    suffix = out.suffix.lower()
    if suffix not in _TABLE_SUFFIXES:
        raise GraphferryError(f"--out {out}: unsupported file type {suffix or '(none)'}; use .parquet, .csv or .npy")
    return suffix


def _publish(tmp: str, final: Path) -> None:
    """Rename a finished temporary file into place with the permissions a new file would get."""
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o666 & ~umask)
    os.replace(tmp, final)


def write_table(columns: dict[str, np.ndarray], out: Path) -> None:
    """Write per-vertex columns as .parquet, .csv or .npy (structured), atomically.

    The file is written under a temporary name in the same directory and renamed,
    so a failed run never leaves half a file behind.
    """
    suffix = _check_table_path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{out.name}.", suffix=suffix, dir=out.parent)
    os.close(fd)
    try:
        with writing(out):
            _write_table_file(columns, suffix, tmp)
        _publish(tmp, out)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def _write_table_file(columns: dict[str, np.ndarray], suffix: str, tmp: str) -> None:
    """One table format into ``tmp`` (the caller renames it into place)."""
    if suffix == ".npy":
        arr = np.empty(len(next(iter(columns.values()))), dtype=[(k, np.asarray(v).dtype) for k, v in columns.items()])
        for k, v in columns.items():
            arr[k] = v
        np.save(tmp, arr)
    elif suffix == ".csv":
        names = list(columns)
        with open(tmp, "w") as f:
            f.write(",".join(names) + "\n")
            data = np.column_stack([np.asarray(columns[k]).astype(object) for k in names])
            for row in data:
                f.write(",".join(str(x) for x in row) + "\n")
    else:
        try:
            import pyarrow as pa
            import pyarrow.parquet as pq
        except ImportError as exc:
            raise GraphferryError("writing .parquet needs pyarrow: pip install 'graphferry[tables]'") from exc
        pq.write_table(pa.table({k: np.asarray(v) for k, v in columns.items()}), tmp)


def _algorithm_arguments(name: str, params: dict[str, Any], backend: str) -> tuple[Callable[..., Any], Any, dict]:
    """``(function, its parameters, keyword arguments)``; usage errors before any work is done."""
    from . import algorithms

    fn = algorithms.get(name)
    accepted = inspect.signature(fn).parameters
    kwargs = _algorithm_kwargs(accepted, params, name)
    missing = [p.name for p in accepted.values()
               if p.kind is p.KEYWORD_ONLY and p.default is p.empty and p.name not in kwargs]
    if missing:
        flags = " and ".join("--" + m.replace("_", "-") for m in missing)
        raise _cx.UsageError(f"{name} needs {flags} (e.g. --damping 0.85 --iterations 10, "
                             "as LDBC gives them per graph)" if name == "pagerank_ldbc" else f"{name} needs {flags}")
    if backend == "cuda":
        from .backends import cuda_available

        if not cuda_available():
            raise GraphferryError("--backend cuda: no usable GPU here (it needs CuPy and a CUDA device); "
                                  "use --backend cpu or auto")
    return fn, accepted, kwargs


def run_algorithm(graph: Graph, name: str, *, source: str | None = None, backend: str = "auto",
                  engine: str = "auto", budget: int | None = None,
                  partition_bytes: int | None = None, direction: str = "auto",
                  params: dict[str, Any] | None = None, progress: Callable[..., None] | None = None) -> Any:
    """Run algorithm ``name`` on ``graph`` with command-line style arguments; returns the Result."""
    fn, accepted, kwargs = _algorithm_arguments(name, params or {}, backend)
    options = {"backend": backend, "engine": engine, "budget": budget, "partition_bytes": partition_bytes,
               "direction": direction, "progress": progress}
    if "source" in accepted:
        if source is None:
            raise GraphferryError(f"{name} needs --source VERTEX")
        try:
            src: Any = int(source)
        except ValueError:
            src = source
        try:
            graph.to_internal_id(src)
        except KeyError as exc:
            raise GraphferryError(f"--source {source}: {exc.args[0]}") from None
        except (TypeError, ValueError) as exc:
            raise GraphferryError(f"--source {source}: {exc}") from None
        return fn(graph, src, **kwargs, **options)
    if source is not None:
        raise GraphferryError(f"--source does not apply to {name}")
    return fn(graph, **kwargs, **options)


def _registry_params(algorithm: str, given: list[str]) -> dict[str, Any]:
    """``--param NAME=VALUE`` options, typed by the algorithm's registry entry."""
    from .algorithms import registry

    spec = registry.get(algorithm)
    out: dict[str, Any] = {}
    for item in given:
        name, eq, text = item.partition("=")
        name = name.strip().replace("-", "_")
        if not eq:
            raise GraphferryError(f"--param {item}: expected NAME=VALUE")
        try:
            p = spec.parameter(name)
        except KeyError:
            valid = ", ".join(q.name for q in spec.parameters) or "none"
            raise GraphferryError(f"--param {item}: {algorithm} has no parameter {name!r}; valid: {valid}") from None
        try:
            if p.type is bool:
                if text.lower() not in ("true", "false", "1", "0", "yes", "no"):
                    raise ValueError(text)
                value: Any = text.lower() in ("true", "1", "yes")
            else:
                value = p.type(text)
        except ValueError:
            raise GraphferryError(f"--param {item}: {name} must be a {p.type.__name__}") from None
        out[name] = value
    return out


@app.command()
def run(
    algorithm: Annotated[str, typer.Argument(metavar="ALGORITHM", show_default=False,
        help="bfs, sssp, pagerank, pagerank_ldbc, wcc, cdlp, lcc, triangle_count, betweenness, ...")],
    graph_path: Annotated[Path, typer.Argument(metavar="GRAPH", show_default=False,
        help="A graph store or a graph file.")],
    source: Annotated[str | None, typer.Option("--source", help="Source vertex (bfs, sssp), an id of the input.",
                                               show_default=False)] = None,
    out: Annotated[Path | None, typer.Option("--out", "-o", metavar="FILE", show_default=False,
        help="Write per-vertex results (.parquet, .csv or .npy).")] = None,
    backend: Annotated[Backend, typer.Option("--backend", help="Where kernels run.")] = Backend.auto,
    engine: Annotated[EngineName, typer.Option("--engine", help="Transfer engine for edge data.")] = EngineName.auto,
    budget: Annotated[int | None, typer.Option("--budget", metavar="SIZE", parser=_size_param,
        show_default="80% of free device memory",
        help="Device memory for edge data (e.g. 256MiB).")] = None,
    partition_bytes: RunPartitionBytesOpt = None,
    direction: Annotated[Direction, typer.Option("--direction", help="Force push or pull.")] = Direction.auto,
    damping: Annotated[float | None, typer.Option("--damping", help="PageRank damping factor.", show_default=False)] = None,
    iterations: Annotated[int | None, typer.Option("--iterations", help="Fixed iteration count (pagerank_ldbc).",
                                                   show_default=False)] = None,
    max_iterations: Annotated[int | None, typer.Option("--max-iterations", help="Iteration limit (pagerank, cdlp).",
                                                       show_default=False)] = None,
    tol: Annotated[float | None, typer.Option("--tol", help="Convergence tolerance (pagerank).", show_default=False)] = None,
    param: Annotated[list[str] | None, typer.Option("--param", metavar="NAME=VALUE", show_default=False,
        help="Any parameter the algorithm's registry entry lists, e.g. --param k=64 (repeatable).")] = None,
    record: Annotated[Path | None, typer.Option("--record", metavar="FILE", show_default=False,
        help="Write the run record (per iteration, per partition) as JSON.")] = None,
    verify: VerifyFlag = False,
    as_json: JsonFlag = False,
    repartition: Annotated[bool, typer.Option("--repartition",
        help="Under mpiexec: move split points between ranks from observed times (Lux sec. 5).")] = False,
) -> None:
    """Run an algorithm on a graph; print a summary, optionally write results and the run record.

    Under ``mpiexec -n P`` the P ranks split the graph by vertex ranges (a store
    is read by each rank for its own range); rank 0 prints and writes.
    """
    from . import algorithms

    if algorithm not in algorithms.ALGORITHMS:
        raise GraphferryError(f"unknown algorithm {algorithm!r}; choose one of {', '.join(algorithms.ALGORITHMS)}")
    if not graph_path.exists():
        raise GraphferryError(f"{graph_path}: no such file or directory")
    if out is not None:
        _check_table_path(out)  # before the run, not after it
    params = {"damping": damping, "iterations": iterations, "max_iterations": max_iterations, "tol": tol}
    params.update(_registry_params(algorithm, param or []))
    _algorithm_arguments(algorithm, params, backend.value)  # before reading a large graph
    from .distributed import launched_by_mpiexec

    if launched_by_mpiexec():  # mpiexec -n P: the ranks split the graph; rank 0 reports and writes
        from .distributed.cli import run_on_ranks

        result = run_on_ranks(lambda **kw: _user_value_errors(run_algorithm, **kw), graph_path, algorithm,
                              source=source, backend=backend.value, engine=engine.value, budget=budget,
                              partition_bytes=partition_bytes, direction=direction.value, params=params,
                              repartition=repartition, verify=verify, read=_load)
        if result is not None:
            _report_run(algorithm, result, out, record, as_json)
        return
    with _spinner(f"reading {graph_path}"):
        graph = _user_value_errors(_load, graph_path, verify=verify)
    with _spinner(f"loading {graph_path} for the {backend.value} backend"):
        loaded = _user_value_errors(load_graph, graph, backend=backend.value, budget=budget,
                                    partition_bytes=partition_bytes)
    progress, stop = _iteration_reporter(algorithm)
    try:
        result = _user_value_errors(
            run_algorithm, loaded, algorithm, source=source, backend=backend.value, engine=engine.value,
            budget=budget, partition_bytes=partition_bytes,
            direction=direction.value, params=params, progress=progress)
    except GraphferryError as exc:
        raise GraphferryError(_cli_words(str(exc), params)) from exc
    finally:
        stop()
        loaded.close()
    _report_run(algorithm, result, out, record, as_json)


def _report_run(algorithm: str, result: Any, out: Path | None, record: Path | None, as_json: bool) -> None:
    """Write and print a run's results (``run``'s tail, and a distributed run's rank 0)."""
    if out is not None:
        write_table(result.to_table(), out)
    if record is not None:
        _write_json(record, result.record.to_dict())
    summary = summarize_result(algorithm, result)
    if as_json:
        typer.echo(json.dumps(summary, indent=2))
    else:
        _stdout().print(result.record.summary(), highlight=False)
        for key, value in summary["values"].items():
            _stdout().print(f"  {key}: {value}", highlight=False)
        if out is not None:
            _stdout().print(f"  wrote {out}", highlight=False)


@app.command()
def calibrate(
    backend: Annotated[Backend, typer.Option("--backend", help="The device to calibrate.")] = Backend.auto,
    refresh: Annotated[bool, typer.Option("--refresh", help="Measure again even when a calibration is cached.")]
        = False,
    as_json: JsonFlag = False,
) -> None:
    """Show the hybrid engine's cost-model figures for this machine (measured once, then cached)."""
    from .backends import get_backend
    from .runtime.calibration import calibration_for
    from .scheduler.cost import calibration_path

    b = _user_value_errors(get_backend, backend.value)
    with _spinner(f"calibrating {b.name}" if refresh else f"reading the calibration of {b.name}"):
        cal = calibration_for(b, refresh=refresh)
    if as_json:
        typer.echo(cal.to_json())
        return
    gb = lambda x: f"{x / 1e9:.2f} GB/s"  # noqa: E731
    console = _stdout()
    console.print(f"{cal.device} (cached in {calibration_path(cal.device)})", highlight=False)
    console.print(f"  pinned copy: {gb(cal.copy_bandwidth)}; state exchange: {gb(cal.state_bandwidth)}; "
                  f"CPU gather: {gb(cal.gather_bandwidth)}; one iteration: {cal.launch_seconds * 1e6:.0f} us",
                  highlight=False)
    console.print("  zero-copy by request: " + ", ".join(f"{k} B {gb(v)}" for k, v in
                                                         sorted(cal.zerocopy_bandwidth.items())), highlight=False)
    for where, table in (("device", cal.device_edge_rate), ("CPU", cal.host_edge_rate)):
        console.print(f"  {where} edges/s: " + ", ".join(f"{k} {v / 1e6:.0f} M" for k, v in sorted(table.items())),
                      highlight=False)


@app.command()
def plot(
    record: Annotated[Path, typer.Argument(metavar="RUNRECORD", help="A run record (graphferry run --record).",
                                           show_default=False)],
    out: Annotated[Path | None, typer.Option("--out", "-o", metavar="PNG", show_default="RUNRECORD with .png",
        help="Where to write the picture.")] = None,
) -> None:
    """Draw a run record: engines and devices per iteration, bytes moved against the floor, time."""
    from .plots import plot_record

    if not record.exists():
        raise GraphferryError(f"{record}: no such file or directory")
    try:
        data = json.loads(record.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise GraphferryError(f"{record}: not a run record (not JSON: {e})") from None
    if not isinstance(data, dict) or "steps" not in data:
        raise GraphferryError(f"{record}: not a run record (no 'steps')")
    out = record.with_suffix(".png") if out is None else out
    _user_value_errors(plot_record, data, out)
    _stdout().print(f"wrote {out}", highlight=False)


def _cli_words(message: str, params: Mapping[str, Any]) -> str:
    """An algorithm's "argument 'max_iterations'" in the option's own words ("--max-iterations").

    Example:
        >>> _cli_words("pagerank: argument 'max_iterations' must be >= 0", {"max_iterations": -1})
        'pagerank: --max-iterations must be >= 0'
        >>> _cli_words("max_iterations must be >= 0", {"max_iterations": -1, "tol": None})
        '--max-iterations must be >= 0'
    """
    for key in params:
        flag = "--" + key.replace("_", "-")
        message = message.replace(f"argument '{key}'", flag)
        if "_" in key:  # a bare identifier cannot be prose
            message = re.sub(rf"(?<![\w-]){key}\b", flag, message)
    return message


def _write_json(path: Path, data: Any) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent if str(path.parent) else ".")
    try:
        with writing(path), os.fdopen(fd, "w") as f:
            json.dump(data, f, indent=1, default=float)
        _publish(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def summarize_result(name: str, result: Any) -> dict[str, Any]:
    """A short, JSON-ready description of a result: per value column its range and a few facts."""
    values: dict[str, Any] = {}
    for key, arr in result.values.items():
        arr = np.asarray(arr)
        if key in ("levels",):
            reached = arr[arr >= 0]
            values[key] = {"reached": int(len(reached)), "max": int(reached.max()) if len(reached) else None}
        elif key in ("distances",):
            fin = arr[np.isfinite(arr)]
            values[key] = {"reached": int(len(fin)), "max": float(fin.max()) if len(fin) else None}
        elif key in ("labels",):
            values[key] = {"distinct": int(len(np.unique(arr)))}
        elif arr.dtype.kind == "f":
            top = int(np.argmax(arr)) if len(arr) else None
            values[key] = {"sum": float(arr.sum()), "max": float(arr.max()) if len(arr) else None,
                           "argmax": None if top is None else result.graph.to_original_ids([top]).tolist()[0]}
        elif arr.dtype.kind in "iu" and key not in ("parents",):
            values[key] = {"sum": int(arr.sum())}
    for key, v in result.scalars.items():
        if np.isscalar(v):
            if key in getattr(result, "vertex_ids", ()):
                v = result.input_ids(key)  # the input's id, as the user gave it with --source
            values[key] = v.item() if hasattr(v, "item") else v
    rec = result.record
    load_s = float(rec.extra.get("load_seconds", 0.0))
    return {"algorithm": name, "backend": rec.backend, "engine": rec.engine, "iterations": rec.iterations,
            "seconds": rec.total_seconds, "load_seconds": load_s,
            "end_to_end_seconds": rec.total_seconds + (load_s if rec.extra.get("loaded_graph") else 0.0),
            "bytes_h2d": rec.bytes_h2d, "values": values}


# -------------------------------------------------------------------- collaborative filtering
@app.command()
def cf(
    ratings: Annotated[Path, typer.Argument(metavar="RATINGS", show_default=False,
        help="Whitespace- or tab-separated 'user item rating' lines ('#' comments; a non-numeric "
             "header line such as MovieLens-100k's is skipped).")],
    rank: Annotated[int, typer.Option("--rank", min=1, help="Length of each factor vector.")] = 16,
    iterations: Annotated[int, typer.Option("--iterations", min=0, help="Gradient-descent steps.")] = 200,
    learning_rate: Annotated[float, typer.Option("--learning-rate", help="Step size.")] = 0.5,
    regularization: Annotated[float, typer.Option("--regularization", help="Lambda, per rating.")] = 0.1,
    test_fraction: Annotated[float, typer.Option("--test-fraction", min=0.0, max=0.9,
        help="Ratings held out (fixed-seed split) to report a test RMSE.")] = 0.2,
    seed: SeedOpt = 0,
    backend: Annotated[Backend, typer.Option("--backend", help="Where kernels run.")] = Backend.auto,
    out: Annotated[Path | None, typer.Option("--out", "-o", metavar="FILE", show_default=False,
        help="Write the factors (.npy: rows of users, then of items, with their ids).")] = None,
    as_json: JsonFlag = False,
) -> None:
    """Collaborative filtering: factorise a ratings file by gradient descent; report RMSE."""
    from .algorithms.cf import collaborative_filtering, ratings_graph, rmse

    if not ratings.exists():
        raise GraphferryError(f"{ratings}: no such file or directory")
    if out is not None and out.suffix.lower() != ".npy":
        raise GraphferryError(f"--out {out}: the factors are written as .npy")
    rows = []
    with open(ratings) as f:
        for number, line in enumerate(f, 1):
            parts = line.split("#", 1)[0].split()
            if not parts:
                continue
            try:
                rows.append((parts[0], parts[1], float(parts[2])))
            except (IndexError, ValueError):
                if rows:  # only a first line may be a header
                    raise GraphferryError(f"{ratings}:{number}: expected 'user item rating'") from None
    if not rows:
        raise GraphferryError(f"{ratings}: no ratings")
    user_ids, users = np.unique([r[0] for r in rows], return_inverse=True)
    item_ids, items = np.unique([r[1] for r in rows], return_inverse=True)
    values = np.array([r[2] for r in rows])
    test = np.random.default_rng(seed).random(len(values)) < test_fraction
    g = ratings_graph(users[~test], items[~test], values[~test], num_users=len(user_ids), num_items=len(item_ids))
    result = _user_value_errors(collaborative_filtering, g, rank=rank, iterations=iterations,
                                learning_rate=learning_rate, regularization=regularization, seed=seed,
                                backend=backend.value)
    mean = float(values[~test].mean())
    summary = {"algorithm": "collaborative_filtering", "ratings": len(values), "users": len(user_ids),
               "items": len(item_ids), "train_rmse": result.train_rmse, "seconds": result.record.total_seconds,
               "test_rmse": rmse(result, users[test], items[test], values[test]) if test.any() else None,
               "test_rmse_of_the_mean": float(np.sqrt(np.mean((values[test] - mean) ** 2))) if test.any() else None}
    if out is not None:
        table = np.empty(g.n, dtype=[("kind", "U4"), ("id", "U64"), ("factors", np.float32, (rank,))])
        table["kind"] = ["user"] * len(user_ids) + ["item"] * len(item_ids)
        table["id"] = np.concatenate([user_ids.astype(str), item_ids.astype(str)])
        table["factors"] = result.factors
        fd, tmp = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".npy", dir=out.parent if str(out.parent) else ".")
        os.close(fd)
        np.save(tmp, table)
        _publish(tmp, out)
    if as_json:
        typer.echo(json.dumps(summary, indent=2))
    else:
        for key, value in summary.items():
            _stdout().print(f"  {key}: {value}", highlight=False)


# -------------------------------------------------------------------- demo
@dataclass
class DemoContext:
    """What the demo steps share. A step may read and set any field."""

    scale: int
    seed: int
    store: Path
    as_json: bool
    backend: str = "auto"
    graph: Graph | None = None
    results: dict[str, Any] = field(default_factory=dict)


def _demo_generate(ctx: DemoContext) -> None:
    ctx.graph = _generate("kronecker", ctx.store, force=False, scale=ctx.scale, edge_factor=16,
                          seed=ctx.seed, weighted=False, directed=False)


def _demo_info(ctx: DemoContext) -> None:
    assert ctx.graph is not None
    ctx.results["info"] = graph_info(ctx.graph, DEFAULT_PARTITION_BYTES, path=ctx.store)
    if not ctx.as_json:
        print_info(ctx.results["info"], _stdout())


def _demo_algorithms(ctx: DemoContext) -> None:
    """PageRank, then BFS from the highest-degree vertex, on the demo graph (GPU if there is one)."""
    assert ctx.graph is not None
    g = ctx.graph
    source = int(np.argmax(g.out_degree))
    for name, src in (("pagerank", None), ("bfs", str(source))):
        progress, stop = _iteration_reporter(name)
        try:
            result = run_algorithm(g, name, source=src, backend=ctx.backend, progress=progress)
        finally:
            stop()
        summary = summarize_result(name, result)
        ctx.results[name] = summary
        if not ctx.as_json:
            _stdout().print(result.record.summary(), highlight=False)
            for key, value in summary["values"].items():
                _stdout().print(f"  {key}: {value}", highlight=False)


#: The demo runs these in order; later features append theirs.
#: With ``--json`` the demo prints ``ctx.results`` once at the end.
DEMO_STEPS: list[Callable[[DemoContext], None]] = [_demo_generate, _demo_info, _demo_algorithms]


@app.command()
def demo(
    scale: Annotated[int, typer.Option("--scale", "-s", min=1, max=30,
                                       help="Kronecker scale of the demo graph.")] = 16,
    seed: SeedOpt = 0,
    keep: Annotated[Path | None, typer.Option(
        "--keep", metavar="DIR", help="Write the store to DIR and keep it (default: a temporary one).",
        show_default=False)] = None,
    backend: Annotated[Backend, typer.Option("--backend", help="Where kernels run (auto: GPU if present).")]
        = Backend.auto,
    as_json: JsonFlag = False,
) -> None:
    """Generate a Kronecker graph into a temporary store, show what info shows, run PageRank and BFS."""
    with contextlib.ExitStack() as stack:
        if keep is None:
            tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="graphferry-demo-")))
            store = tmp / f"kronecker-s{scale}.store"
        else:
            store = keep
        ctx = DemoContext(scale=scale, seed=seed, store=store, as_json=as_json, backend=backend.value)
        for step in DEMO_STEPS:
            step(ctx)
        if as_json:
            typer.echo(json.dumps(ctx.results, indent=2))
        # Drop the memory maps before the temporary store is removed.
        ctx.graph = None


# -------------------------------------------------------------------- main
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
