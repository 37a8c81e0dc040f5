"""The run command's work, apart from its parser: check the arguments, read, load, run, check,
write and report (the phases of a one-shot run, :class:`_Phases`).

No typer here: the typer command (:mod:`graphferry.cli.run`) and the one-shot parser
(:mod:`graphferry.cli.quick_run`, which builds no command) both call :func:`_run_here`.
"""

from __future__ import annotations

import json
import re
import sys
import time
from collections.abc import Callable, Collection, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from .. import host_ops, phase_clock
from ..algorithms import registry
from ..errors import GraphferryError
from ..graph import Graph
from ..runtime.loaded import load as load_graph
from ..runtime.startup import resolve_auto, work_passes
from . import clock
from .console import _iteration_reporter, _print_stdout, _spinner
from .reading import _load, _user_value_errors
from .writers import _check_table_path, _write_json, check_output_path, write_table


def _echo(text: str) -> None:
    """``text`` and a newline on stdout, flushed (what ``typer.echo`` writes for text without escapes)."""
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def _algorithm_kwargs(accepted: Collection[str], given: dict[str, Any], name: str) -> dict[str, Any]:
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


def _algorithm_arguments(name: str, params: dict[str, Any], backend: str,
                         quick_device_check: bool = False) -> tuple[registry.AlgorithmSpec, dict]:
    """``(the algorithm's registry entry, keyword arguments)``; usage errors before any work is done.

    ``quick_device_check``: for ``--backend cuda``, only look for a device without importing CuPy
    (a one-shot run starts CuPy in the background while it reads the graph; the full check
    comes with the run)."""
    spec = registry.get(name)
    kwargs = _algorithm_kwargs({p.name for p in spec.parameters}, params, name)
    for key, value in kwargs.items():  # the registry's declaration decides (a seed: at least 0)
        problem = spec.parameter(key).problem(value)
        if problem:
            raise GraphferryError(f"--{key.replace('_', '-')} {value}: {problem}")
    missing = [p.name for p in spec.parameters if p.required and p.name not in kwargs]
    if missing:
        flags = " and ".join("--" + m.replace("_", "-") for m in missing)
        from ._click import _cx  # click only for this error: a one-shot run checks it before (quick_run)

        raise _cx.UsageError(f"{name} needs {flags} (e.g. --damping 0.85 --iterations 10, "
                             "as LDBC gives them per graph)" if name == "pagerank_ldbc" else f"{name} needs {flags}")
    if backend == "cuda":
        from ..backends import cuda_available
        from ..runtime.startup import gpu_likely

        if not gpu_likely() or not (quick_device_check or cuda_available()):
            raise GraphferryError("--backend cuda: no usable GPU here (it needs CuPy and a CUDA device); "
                                  "use --backend cpu or auto")
    return spec, kwargs


def run_algorithm(graph: Graph, name: str, *, source: str | None = None, backend: str = "auto",
                  engine: str = "auto", budget: int | None = None,
                  partition_bytes: int | None = None, direction: str = "auto",
                  params: dict[str, Any] | None = None, progress: Callable[..., None] | None = None) -> Any:
    """Run algorithm ``name`` on ``graph`` with command-line style arguments; returns the Result."""
    spec, kwargs = _algorithm_arguments(name, params or {}, backend)
    fn = spec.function
    options = {"backend": backend, "engine": engine, "budget": budget, "partition_bytes": partition_bytes,
               "direction": direction, "progress": progress}
    if spec.takes_source:
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



class _Phases:
    """A one-shot run's start-up phases (see :mod:`graphferry.cli.clock`), in the order they happen.

    Each lap (read, load, the algorithm's call, write) is split: the waits the library marks
    (:mod:`graphferry.phase_clock`: the CUDA start, compiling or loading programs, pinning,
    packing, engine set-up, uploads, the calibration) are named apart, and the lap keeps the
    rest; so "algorithm" is the call less its start-up costs. The phases of the main thread
    add up to the process's wall time (less the exit).
    """

    #: The order the record lists them in (a phase that took no time is left out, but for these).
    ORDER = ("start", "imports", "read", "cuda_start", "load", "compile", "calibration", "pin", "pack",
             "engine_setup", "upload", "algorithm", "to_host", "write")
    ALWAYS = ("compile", "calibration")

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self._t = time.perf_counter()
        self._marked = phase_clock.seconds()

    def imports(self) -> None:
        """The process up to here: the interpreter, the imports and the command line's parsing."""
        before, since = clock.before_main(), clock.since_main()
        if before is not None:
            self.seconds["start"] = before
        if since is not None:
            self.seconds["imports"] = since
        self._t = time.perf_counter()
        self._marked = phase_clock.seconds()

    def lap(self, name: str) -> None:
        """The time since the last lap under ``name``, less the marked waits in it (named apart)."""
        now = time.perf_counter()
        marked = phase_clock.since(self._marked)
        for key, secs in marked.items():
            self.seconds[key] = self.seconds.get(key, 0.0) + secs
        rest = now - self._t - sum(marked.values())
        self.seconds[name] = self.seconds.get(name, 0.0) + max(0.0, rest)
        self._t = now
        self._marked = phase_clock.seconds()

    def run_done(self, record: Any) -> None:
        """The algorithm's call, less the programs compiled, the calibration and the other marked waits."""
        self.lap("algorithm")

    def finish(self, record: Any) -> None:
        """Name the phases in the run record (``extra["phases"]``) and the process's age there."""
        for key in self.ALWAYS:
            self.seconds.setdefault(key, 0.0)
        order = {k: i for i, k in enumerate(self.ORDER)}
        names = sorted(self.seconds, key=lambda k: order.get(k, len(order)))
        record.extra["phases"] = {k: round(self.seconds[k], 6) for k in names}
        background = phase_clock.background_seconds()
        if background:  # work of other threads (compiling ahead, the CUDA start): it overlapped these
            record.extra["background_phases"] = {k: round(v, 6) for k, v in background.items()}
        age = clock.process_age()
        if age is not None and "start" in self.seconds:
            record.extra["process_seconds"] = round(age, 3)


def _run_here(algorithm: str, graph_path: Path, *, source: str | None, out: Path | None, backend: str,
              engine: str, budget: int | None, partition_bytes: int | None, direction: str,
              params: dict[str, Any], record: Path | None, verify: bool, check: bool, as_json: bool) -> None:
    """``run`` in this process: read, load, run, check, write; each phase timed (:class:`_Phases`)."""
    from .device_start import start_device_soon

    phases = _Phases()
    registry.get(algorithm).function  # noqa: B018  (imports the algorithm's module: an "imports" phase)
    phases.imports()
    # CuPy, the context, the programs (the kernel groups its engine launches): while the graph is read
    device = start_device_soon(algorithm, backend, engine, budget)
    device.store_hint(graph_path)  # a store's manifest names the vertex-id type: compile during the read
    graph = None
    try:
        with _spinner(f"reading {graph_path}"):
            graph = _user_value_errors(_load, graph_path, verify=verify)
    finally:
        device.graph_read(graph)
    phases.lap("read")
    if backend == "cuda":  # the full check the command line's quick one left (CuPy imports, a device answers)
        from ..backends import cuda_available

        with phase_clock.phase("cuda_start"):
            usable = cuda_available()
        if not usable:
            raise GraphferryError("--backend cuda: no usable GPU here (it needs CuPy and a CUDA device); "
                                  "use --backend cpu or auto")
    passes = work_passes(algorithm, graph, source)
    # the backend auto takes (the model of runtime.startup), chosen here to place the edges for it
    chosen = resolve_auto(graph.m, graph.edge_bytes, passes) if backend == "auto" else backend
    with _spinner(f"loading {graph_path} for the {chosen} backend"):
        # One call: on the CPU the store's pages serve as they are (a copy into memory pays
        # off only for a graph kept across calls); a device still pins what its engines copy.
        loaded = _user_value_errors(load_graph, graph, backend=chosen, budget=budget,
                                    partition_bytes=partition_bytes, work_passes=passes,
                                    pinned=False if chosen == "cpu" else None, kept=False)
    phases.lap("load")
    progress, stop = _iteration_reporter(algorithm)
    pinned_before = loaded.backend.results_pinned
    loaded.backend.results_pinned = False  # each result is read once: no pinned memory kept for it
    try:
        try:
            result = _user_value_errors(
                run_algorithm, loaded, algorithm, source=source, backend=backend, engine=engine,
                budget=budget, partition_bytes=partition_bytes,
                direction=direction, params=params, progress=progress)
        except GraphferryError as exc:
            raise GraphferryError(_cli_words(str(exc), params)) from exc
        finally:
            stop()
            loaded.close()
        result.record.extra["placement"] = dict(loaded.placement)  # where the edges lay (pinned, registered)
        phases.run_done(result.record)
        if check:
            _check_result(algorithm, graph, result, params)
            phases.lap("check")
        _report_run(algorithm, result, out, record, as_json, phases)
        if loaded.backend.name == "cuda":  # what this GPU start-up cost, for backend=auto's next choice
            from ..runtime.startup import note_gpu_one_shot

            note_gpu_one_shot(phases.seconds)
    finally:
        loaded.backend.results_pinned = pinned_before



def _checked_run_arguments(algorithm: str, graph_path: Path, out: Path | None, record: Path | None,
                           flags: dict[str, Any], param: list[str] | None, backend: str) -> dict[str, Any]:
    """``run``'s inputs checked before any work (the algorithm's parameters, returned typed)."""
    if algorithm not in registry.ALGORITHMS:
        raise GraphferryError(f"unknown algorithm {algorithm!r}; choose one of {', '.join(registry.names())}")
    if not graph_path.exists():
        raise GraphferryError(f"{graph_path}: no such file or directory")
    if out is not None:
        _check_table_path(out)  # before the run, not after it
        check_output_path(out, "--out")
    if record is not None:
        check_output_path(record, "--record")
    params = dict(flags)  # one --flag per registry parameter, None when not given
    params.update(_registry_params(algorithm, param or []))
    _algorithm_arguments(algorithm, params, backend, quick_device_check=True)  # before reading a large graph
    return params


def _check_result(algorithm: str, graph: Graph, result: Any, params: dict[str, Any]) -> None:
    """``--check``: the registry's verifier on the result; a wrong result is a failed run (exit 1)."""
    given = {k: v for k, v in params.items() if v is not None}
    try:
        with _spinner(f"checking the {algorithm} result"):
            registry.get(algorithm).verify(graph, result, **given)
    except AssertionError as exc:
        raise GraphferryError(f"--check: the {algorithm} result fails its verifier: {exc}") from None
    result.record.extra["checked"] = True



def _report_run(algorithm: str, result: Any, out: Path | None, record: Path | None, as_json: bool,
                phases: _Phases | None = None) -> None:
    """Write and print a run's results (``run``'s tail, and a distributed run's rank 0)."""
    summary = summarize_result(algorithm, result)  # first: it times the results' transfer to the host
    if out is not None:
        write_table(result.to_table(), out)
    if phases is not None:
        phases.lap("write")
        phases.finish(result.record)
        summary["phases"] = result.record.extra["phases"]
    if record is not None:
        _write_json(record, result.record.to_dict())
    if as_json:
        _echo(json.dumps(summary, indent=2))
    else:
        print_summary(result, summary)
        if out is not None:
            _print_stdout(f"  wrote {out}")


def print_summary(result: Any, summary: dict[str, Any]) -> None:
    """A run's record line, then one line per summarised value (``run`` and the demo)."""
    # soft_wrap: one line whatever the width (a pipe's 80 columns cut it before the engine's name)
    _print_stdout(result.record.summary(), soft_wrap=True)
    for key, value in summary["values"].items():
        _print_stdout(f"  {key}: {value}")


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


def summarize_result(name: str, result: Any) -> dict[str, Any]:
    """A short, JSON-ready description of a result: per value column its range and a few facts.

    Each column is summarised by its kind in the algorithm registry (a column
    the registry does not list, by its dtype): levels and distances by how
    many vertices were reached and how far, labels by how many distinct ones,
    scores by sum, maximum and the vertex holding it, counts by their sum;
    vertex-id columns (BFS parents) are not summarised. ``to_host_seconds`` is
    the transfer of results the call left on the device (read here first),
    counted in ``end_to_end_seconds``.
    """
    t = time.perf_counter()
    with phase_clock.phase("to_host"):  # a one-shot record names it apart from the write
        result.to_host()
    to_host_s = time.perf_counter() - t
    declared = registry.ALGORITHMS[name].columns if name in registry.ALGORITHMS else ()
    kinds = {c.name: c.kind for c in declared}
    values: dict[str, Any] = {}
    for key, arr in result.values.items():
        arr = np.asarray(arr)
        kind = kinds.get(key) or ("score" if arr.dtype.kind == "f" else "count" if arr.dtype.kind in "iu" else None)
        if kind == "level":  # (no copy of the reached levels: the largest of them is the array's)
            reached = int(np.count_nonzero(arr >= 0))
            values[key] = {"reached": reached, "max": int(arr.max()) if reached else None}
        elif kind == "distance":
            fin = arr[np.isfinite(arr)]
            values[key] = {"reached": int(len(fin)), "max": float(fin.max()) if len(fin) else None}
        elif kind == "label":
            values[key] = {"distinct": host_ops.count_distinct(arr)}
        elif kind == "score":
            top = int(np.argmax(arr)) if len(arr) else None
            values[key] = {"sum": float(arr.sum()), "max": float(arr.max()) if len(arr) else None,
                           "argmax": None if top is None else result.graph.to_original_ids([top]).tolist()[0]}
        elif kind == "count":
            values[key] = {"sum": int(arr.sum())}
    for key, v in result.scalars.items():
        if np.isscalar(v):
            if key in getattr(result, "vertex_ids", ()):
                v = result.input_ids(key)  # the input's id, as the user gave it with --source
            values[key] = v.item() if hasattr(v, "item") else v
    rec = result.record
    load_s = float(rec.extra.get("load_seconds", 0.0))
    return {"algorithm": name, "backend": rec.backend, "engine": rec.engine, "iterations": rec.iterations,
            "seconds": rec.total_seconds, "load_seconds": load_s, "to_host_seconds": to_host_s,
            "end_to_end_seconds": rec.total_seconds + to_host_s + (load_s if rec.extra.get("loaded_graph") else 0.0),
            "bytes_h2d": rec.bytes_h2d, "values": values,
            **({"checked": True} if rec.extra.get("checked") else {})}
