"""What every algorithm file shares: options, results, progress."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np

from ..graph import Graph
from ..runtime import RunOptions, RunRecord, Runtime


def run_options(options: RunOptions | None, kwargs: dict[str, Any]) -> RunOptions:
    """Merge ``options`` with keyword overrides (backend=, engine=, budget=, ...)."""
    opts = RunOptions() if options is None else options
    valid = {f.name for f in fields(RunOptions)}
    bad = set(kwargs) - valid
    if bad:
        raise TypeError(f"unknown option(s) {sorted(bad)}; valid: {sorted(valid)}")
    if kwargs:
        opts = RunOptions(**{**opts.__dict__, **kwargs})
    return opts


def runtime_for(graph: Graph, algorithm: str, options: RunOptions | None, kwargs: dict[str, Any]) -> Runtime:
    return Runtime.from_options(graph, run_options(options, kwargs), algorithm)


@dataclass
class Result:
    """Per-vertex values (indexed by internal vertex id) plus the run record.

    ``vertices`` gives the ids of the input (original ids when the input was renumbered).
    """

    graph: Graph
    values: dict[str, np.ndarray]
    record: RunRecord
    scalars: dict[str, Any] = field(default_factory=dict)

    @property
    def vertices(self) -> np.ndarray:
        return self.graph.to_original_ids(np.arange(self.graph.n))

    def __getattr__(self, name: str) -> Any:
        values = self.__dict__.get("values", {})
        if name in values:
            return values[name]
        scalars = self.__dict__.get("scalars", {})
        if name in scalars:
            return scalars[name]
        raise AttributeError(name)

    def to_table(self) -> dict[str, np.ndarray]:
        """Columns ``vertex`` (original ids) and each per-vertex value."""
        return {"vertex": self.vertices, **self.values}


@dataclass
class EdgeResult(Result):
    """A result whose table is one row per edge: ``source``, ``target`` (original ids) and ``weight``.

    ``edges`` holds the edge columns by internal id; ``values`` may still hold per-vertex columns.
    """

    edges: dict[str, np.ndarray] = field(default_factory=dict)

    def to_table(self) -> dict[str, np.ndarray]:
        """Columns ``source``, ``target`` (original ids) and ``weight``, one row per edge."""
        return {"source": self.graph.to_original_ids(self.edges["source"]),
                "target": self.graph.to_original_ids(self.edges["target"]),
                "weight": self.edges["weight"]}


def driver_hooks(kwargs: dict[str, Any], *names: str) -> list[Any]:
    """Take keyword arguments that drivers such as HyPar pass (``precolored``, ``within``,
    ``stop_when``, ...) out of ``kwargs``, None where absent.

    They are not algorithm parameters (the registry, the CLI and NetworkX never
    see them: arrays and callables), so they travel with the run options.
    """
    return [kwargs.pop(name, None) for name in names]
