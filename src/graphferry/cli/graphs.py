"""Commands that make and describe graphs: generate, convert, info."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from ..errors import GraphferryError
from ..graph import Graph
from ..store import is_store
from . import console as _console
from .group import app, generate_app
from .console import _progress, _settings, _spinner, _stdout
from .reading import _load, _user_value_errors
from .options import (
    DirectedFlag,
    EdgeFactorOpt,
    ForceFlag,
    InputFormat,
    JsonFlag,
    KeepDupsFlag,
    KeepLoopsFlag,
    OutStore,
    PartitionBytesOpt,
    ScaleOpt,
    SeedOpt,
    ThreadsOpt,
    WeightedFlag,
    WeightKindOpt,
    WeightsOpt,
)


def _check_output(path: Path, force: bool) -> None:
    """Fail before hours of work, not after: the target must be free or (with --force) a store.

    The store layer re-checks and replaces atomically (the old store stays until
    the new one is complete), so nothing is deleted here.
    """
    if not path.exists():
        from .writers import check_output_folder

        check_output_folder(path, str(path))
        return
    if not force:
        raise GraphferryError(f"{path} already exists (use --force to replace it)")
    # A typo'd argument must never cost someone a directory: only a store (or
    # an empty directory) may be replaced.
    if not (is_store(path) or (path.is_dir() and not any(path.iterdir()))):
        raise GraphferryError(f"{path} exists and is not a graph store; not replacing it")


def _generate(kind: str, out: Path, *, force: bool, **kwargs: Any) -> Graph:
    from .. import generators

    _check_output(out, force)
    scale, edge_factor = kwargs["scale"], kwargs["edge_factor"]
    total = edge_factor << scale
    fn = generators.kronecker_graph if kind == "kronecker" else generators.uniform_graph
    with _progress(total, f"{kind} scale {scale}: edge samples", "building store") as advance:
        graph = _user_value_errors(fn, store=out, overwrite=force, progress=advance, **kwargs)
    if not _settings.quiet:
        _console._stderr().print(f"wrote {out}: n={graph.n:,} m={graph.m:,}", highlight=False)
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
        as_json: JsonFlag = False,
    ) -> None:
        graph = _generate(kind, out, force=force, scale=scale, edge_factor=edge_factor, seed=seed,
                          weighted=weighted, weight_kind=weights.value, directed=directed,
                          drop_self_loops=not keep_self_loops, drop_duplicates=not keep_duplicates,
                          threads=threads)
        if as_json:
            _emit_store(out, graph)

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
    hub_sort: Annotated[bool, typer.Option(
        "--hub-sort", help="Renumber by HyTGraph's hub sorting: the 8% of vertices with the largest "
                           "out-degree x in-degree first, the rest in order. Results keep the input's ids. "
                           "Holds the graph in memory.")] = False,
    force: ForceFlag = False,
    as_json: JsonFlag = False,
) -> None:
    """Read a graph file (edge list, Matrix Market, LDBC, CSV, Parquet, Galois .gr) into a store.

    The edges stream into the store through the chunked CSR builder, so the
    input need not fit in memory as an edge list; nothing is left at OUT_STORE
    if reading fails. ``--hub-sort`` renumbers the graph in memory first
    (:func:`graphferry.transforms.hub_sorted`); the store records the order.
    """
    if not input.exists():
        raise GraphferryError(f"{input}: no such file or directory")
    _check_output(out, force)
    from ..io import ReadOptions, read_graph, reporting_bytes_read

    # None (a flag not given): the format decides
    options = ReadOptions(directed=directed, weighted=weighted, renumber=renumber,
                          drop_self_loops=drop_self_loops, drop_duplicates=drop_duplicates,
                          store=None if hub_sort else out, overwrite=force)
    with _console._bytes_bar(f"converting {input}") as report, reporting_bytes_read(report):
        graph = _user_value_errors(read_graph, input, format=format.value, options=options)
    if hub_sort:
        from ..store import write_store
        from ..transforms import hub_sorted

        with _spinner("hub sorting"):
            graph = hub_sorted(graph)
            write_store(graph, out, overwrite=force)
    if not _settings.quiet:
        _console._stderr().print(f"wrote {out}: n={graph.n:,} m={graph.m:,}", highlight=False)
    if as_json:
        _emit_store(out, graph)


def _emit_store(out: Path, graph: Graph) -> None:
    """``--json`` of the commands that write a store: where, and what it holds."""
    typer.echo(json.dumps({"store": str(out), "n": graph.n, "m": graph.m, "directed": graph.directed,
                           "weighted": graph.weighted}, indent=2))


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
        from .tables import graph_info  # rich tables: for info alone

        data = graph_info(graph, partition_bytes, path=path)
    _emit_info(data, as_json)


def _emit_info(data: dict[str, Any], as_json: bool) -> None:
    if as_json:
        typer.echo(json.dumps(data, indent=2))
    else:
        from .tables import print_info

        print_info(data, _stdout())
