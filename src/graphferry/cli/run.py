"""The run command: its options (the algorithm registry's parameters among them), for typer.

The work it does is in :mod:`graphferry.cli.running` (no typer there: a one-shot process
parses ``run``'s command line without building this command, :mod:`graphferry.cli.quick_run`).
"""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Annotated, Any

import typer

from ..algorithms import registry
from ..errors import GraphferryError
from .group import app
from .options import Backend, Direction, EngineName, JsonFlag, RunPartitionBytesOpt, VerifyFlag
from .reading import _load, _user_value_errors
from .running import (  # noqa: F401  (the names this module has always had: demo and tests use them)
    _check_result,
    _checked_run_arguments,
    _cli_words,
    _Phases,
    _registry_params,
    _report_run,
    _run_here,
    print_summary,
    run_algorithm,
    summarize_result,
)
from .sizes import _size_param


#: The algorithms that take --source, for its help.
_SOURCED = ", ".join(s.name for s in registry.ALGORITHMS.values() if s.takes_source)


def run(
    algorithm: Annotated[str, typer.Argument(metavar="ALGORITHM", show_default=False,
        help=", ".join(registry.names()))],
    graph_path: Annotated[Path, typer.Argument(metavar="GRAPH", show_default=False,
        help="A graph store or a graph file.")],
    source: Annotated[str | None, typer.Option("--source", help=f"Source vertex ({_SOURCED}), an id of the input.",
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
    param: Annotated[list[str] | None, typer.Option("--param", metavar="NAME=VALUE", show_default=False,
        help="Any parameter the algorithm's registry entry lists, e.g. --param k=64 (repeatable).")] = None,
    record: Annotated[Path | None, typer.Option("--record", metavar="FILE", show_default=False,
        help="Write the run record (per iteration, per partition) as JSON.")] = None,
    verify: VerifyFlag = False,
    check: Annotated[bool, typer.Option("--check", help="Check the result with the algorithm's own verifier "
                                                         "(its registry entry's; may take longer than the run).")]
        = False,
    as_json: JsonFlag = False,
    repartition: Annotated[bool, typer.Option("--repartition",
        help="Under mpiexec: move split points between ranks from observed times (Lux sec. 5).")] = False,
    **algorithm_params: Any,
) -> None:
    """Run an algorithm on a graph; print a summary, optionally write results and the run record.

    Under ``mpiexec -n P`` the P ranks split the graph by vertex ranges (a store
    is read by each rank for its own range); rank 0 prints and writes.
    """
    from ..distributed.world import launched_by_mpiexec

    distributed = launched_by_mpiexec()  # mpiexec -n P: the ranks split the graph; rank 0 reports and writes
    try:
        params = _checked_run_arguments(algorithm, graph_path, out, record, algorithm_params, param, backend.value)
        if distributed and check:
            raise GraphferryError("--check runs in one process: leave it out under mpiexec")
    except GraphferryError as exc:
        if not distributed:
            raise
        from ..distributed.cli import agree_before_run

        agree_before_run(exc)  # every rank raises, so no rank waits for one that left
        raise
    if distributed:
        from ..distributed.cli import agree_before_run, run_on_ranks

        agree_before_run(None)
        result = run_on_ranks(lambda **kw: _user_value_errors(run_algorithm, **kw), graph_path, algorithm,
                              source=source, backend=backend.value, engine=engine.value, budget=budget,
                              partition_bytes=partition_bytes, direction=direction.value, params=params,
                              repartition=repartition, verify=verify, read=_load)
        if result is not None:
            _report_run(algorithm, result, out, record, as_json)
        return
    _run_here(algorithm, graph_path, source=source, out=out, backend=backend.value, engine=engine.value,
              budget=budget, partition_bytes=partition_bytes, direction=direction.value, params=params,
              record=record, verify=verify, check=check, as_json=as_json)


def _parameter_options() -> list[inspect.Parameter]:
    """One ``--flag`` per parameter name in the algorithm registry (it applies to the algorithms that declare it).

    A name means one thing across algorithms (``max_iterations`` is an int
    everywhere), so one flag serves them all; its help says which take it.
    """
    uses: dict[str, list[tuple[str, registry.Parameter]]] = {}
    for spec in registry.ALGORITHMS.values():
        for p in spec.parameters:
            uses.setdefault(p.name, []).append((spec.name, p))
    out = []
    for name, declared in uses.items():
        kinds = {p.type for _, p in declared}
        if len(kinds) != 1:  # the registry's own consistency, checked at import
            raise TypeError(f"algorithm parameter {name!r} has types {kinds} in the registry; one flag needs one")
        kind = kinds.pop()
        flag = "--" + name.replace("_", "-")
        decls = [f"{flag}/--no-{name.replace('_', '-')}"] if kind is bool else [flag]
        first = declared[0][1]
        choices = f" ({', '.join(map(str, first.choices))})" if first.choices else ""
        help_text = f"{first.help}{choices}; for {', '.join(a for a, _ in declared)}."
        option = typer.Option(*decls, help=help_text, show_default=False)
        out.append(inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=None,
                                     annotation=Annotated[kind | None, option]))
    return out


# typer reads the command's options from its signature: the fixed ones, then the registry's.
run.__signature__ = inspect.signature(run, eval_str=True).replace(parameters=[  # type: ignore[attr-defined]
    *(p for p in inspect.signature(run, eval_str=True).parameters.values()
      if p.kind is not inspect.Parameter.VAR_KEYWORD),
    *_parameter_options()])
app.command()(run)


