"""``graphferry run`` in a process of its own, parsed without building the typer command.

A one-shot run's start-up is part of what a user waits for (issue 34): typer builds a
``pydantic`` validator for every option of the command it is handed, which cost about 0.14 CPU
seconds on the 2-core machine, a third of GAPBS's whole BFS process there. So :func:`main`
reads the plain command lines a script writes itself:

    graphferry [-q] [-v] run ALGORITHM GRAPH [--source V] [--out FILE] [--backend B] ...

every option of ``run`` (``--opt VALUE``, ``--opt=VALUE``, ``-o FILE``), the registry's
parameters (``--damping 0.85``, ``--normalized``/``--no-normalized``, ``--param k=64``), and
runs the same work as the typer command (:func:`graphferry.cli.running._run_here`), its errors
reported in the same one line with the same status (:func:`graphferry.cli.exits.failure_status`).

Anything it does not read exactly as click would (``--help``, an unknown option, a value click
would refuse, a value that starts with ``-``, a missing required parameter, a run under
``mpiexec``) it leaves to the full command line, which gives the usual answer and message: so
the shortcut changes nothing but the time it takes.

Example:
    >>> parse(["-q", "run", "bfs", "g.store", "--source", "3", "--out=x.npy", "--backend", "cpu"])["source"]
    '3'
    >>> parse(["run", "bfs", "g.store", "--help"]) is None  # the full command line answers
    True
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

#: Global options before the command, and what each adds to ``-v``'s count.
_VERBOSE = {"-v": 1, "-vv": 2, "-vvv": 3, "--verbose": 1}
_QUIET = ("-q", "--quiet")
#: run's options that take a value (the short ``-o`` is ``--out``), and its flags.
_VALUED = ("--source", "--out", "--backend", "--engine", "--budget", "--partition-bytes", "--direction",
           "--param", "--record")
_SHORT = {"-o": "--out"}
_FLAGS = ("--verify", "--check", "--json", "--repartition")
_CHOICES = {"--backend": ("auto", "cpu", "cuda"), "--direction": ("auto", "push", "pull")}
#: The values the shortcut converts itself; any other form goes to click (an int with a sign,
#: spaces or underscores; a float written as inf or nan; ...).
_INT = re.compile(r"\d+\Z")
_FLOAT = re.compile(r"(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\Z")


def parse(argv: list[str]) -> dict[str, Any] | None:
    """``run``'s arguments from ``argv`` (the global options, ``run``, its own), as the typer command
    receives them; None where the full command line should read ``argv``."""
    verbose, quiet, i = 0, False, 0
    while i < len(argv) and argv[i] != "run":
        if argv[i] in _VERBOSE:
            verbose += _VERBOSE[argv[i]]
        elif argv[i] in _QUIET:
            quiet = True
        else:
            return None
        i += 1
    if i == len(argv):
        return None
    positional: list[str] = []
    given: dict[str, Any] = {}
    params: list[str] = []
    flags = _registry_flags()
    rest = argv[i + 1:]
    while rest:
        token = rest.pop(0)
        if not token.startswith("-"):
            positional.append(token)
            continue
        # click splits "--opt=VALUE" (not "-o=VALUE": that is -o with the value "=VALUE")
        name, eq, attached = token.partition("=") if token.startswith("--") else (token, "", "")
        name = _SHORT.get(name, name)
        if name in _FLAGS and not eq:
            given[name] = True
        elif name in flags and flags[name][1] is bool:
            if eq:
                return None
            given[name] = flags[name][2]
        elif name in _VALUED or name in flags:
            if eq:
                value = attached
            elif rest:
                value = rest.pop(0)
            else:
                return None  # click: "requires an argument"
            if not value or value.startswith("-"):
                return None
            if name == "--param":
                params.append(value)
            else:
                given[name] = value
        else:
            return None
    if len(positional) != 2 or not all(positional):
        return None
    return _arguments(positional, given, params, flags, verbose, quiet)


def _registry_flags() -> dict[str, tuple[str, type, Any]]:
    """``--flag`` -> (parameter name, type, value for a bool flag): the algorithm registry's
    parameters, as :func:`graphferry.cli.run._parameter_options` declares them to typer."""
    from ..algorithms import registry

    out: dict[str, tuple[str, type, Any]] = {}
    for spec in registry.ALGORITHMS.values():
        for p in spec.parameters:
            flag = "--" + p.name.replace("_", "-")
            out[flag] = (p.name, p.type, True)
            if p.type is bool:
                out["--no-" + p.name.replace("_", "-")] = (p.name, bool, False)
    return out


def _arguments(positional: list[str], given: dict[str, Any], params: list[str],
               flags: dict[str, tuple[str, type, Any]], verbose: int, quiet: bool) -> dict[str, Any] | None:
    """The typed arguments, or None where a value is one the full command line should judge."""
    from ..algorithms import registry
    from .sizes import MIN_PARTITION_BYTES, parse_size

    algorithm, graph = positional
    for option, choices in _CHOICES.items():
        if given.get(option, "auto") not in choices:
            return None
    engine = given.get("--engine", "auto")
    if engine != "auto":
        from ..engines import registry as engine_registry

        if engine not in engine_registry.names():
            return None
    sizes: dict[str, int | None] = {}
    for option in ("--budget", "--partition-bytes"):
        try:
            sizes[option] = None if option not in given else parse_size(given[option])
        except ValueError:
            return None
    if (sizes["--partition-bytes"] or MIN_PARTITION_BYTES) < MIN_PARTITION_BYTES:
        return None
    values: dict[str, Any] = {}  # every registry parameter, None unless given (as typer passes them)
    for flag, (name, kind, flag_value) in flags.items():
        values.setdefault(name, None)
        if flag not in given:
            continue
        text = given[flag]
        if kind is bool:
            values[name] = flag_value
        elif kind is int and _INT.match(text):
            values[name] = int(text)
        elif kind is float and _FLOAT.match(text):
            values[name] = float(text)
        elif kind is str:
            values[name] = text
        else:
            return None
    spec = registry.ALGORITHMS.get(algorithm)
    if spec is not None:  # a required parameter left out is click's usage error (status 2)
        named = {item.partition("=")[0].strip().replace("-", "_") for item in params}
        if any(p.required and values.get(p.name) is None and p.name not in named for p in spec.parameters):
            return None
    return {"algorithm": algorithm, "graph_path": Path(graph), "source": given.get("--source"),
            "out": Path(given["--out"]) if "--out" in given else None,
            "backend": given.get("--backend", "auto"), "engine": engine, "budget": sizes["--budget"],
            "partition_bytes": sizes["--partition-bytes"], "direction": given.get("--direction", "auto"),
            "param": params, "record": Path(given["--record"]) if "--record" in given else None,
            "verify": "--verify" in given, "check": "--check" in given, "as_json": "--json" in given,
            "repartition": "--repartition" in given, "algorithm_params": values,
            "verbose": verbose, "quiet": quiet}


def main(argv: list[str]) -> int | None:
    """Run ``argv`` (``[global options] run ...``) here and return the exit status; None when the
    full command line should run it (see the module's docstring)."""
    from ..distributed.world import launched_by_mpiexec

    if launched_by_mpiexec():  # the ranks agree on errors before the run: the typer command's way
        return None
    args = parse(argv)
    if args is None:
        return None
    from . import console
    from .exits import Stopped, _signals_raise, failure_status

    debug = os.environ.get("GRAPHFERRY_DEBUG", "") not in ("", "0")
    try:
        with _signals_raise():
            console.apply_global_options(args["verbose"], args["quiet"])
            _run(args)
        return 0
    except (KeyboardInterrupt, Stopped, Exception):  # as the typer group reports them
        return failure_status(debug)


def _run(args: dict[str, Any]) -> None:
    """The typer command ``run``'s body, for one process (:func:`graphferry.cli.run.run`)."""
    from .running import _checked_run_arguments, _run_here

    params = _checked_run_arguments(args["algorithm"], args["graph_path"], args["out"], args["record"],
                                    args["algorithm_params"], args["param"], args["backend"])
    _run_here(args["algorithm"], args["graph_path"], source=args["source"], out=args["out"],
              backend=args["backend"], engine=args["engine"], budget=args["budget"],
              partition_bytes=args["partition_bytes"], direction=args["direction"], params=params,
              record=args["record"], verify=args["verify"], check=args["check"], as_json=args["as_json"])
