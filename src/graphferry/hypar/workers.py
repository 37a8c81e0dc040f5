"""Where HyPar runs parts (:class:`HyparExecutor`), how a graph is split among them (:class:`Split`),
and what a call returns (:class:`HyparResult`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..algorithms import registry
from ..graph import Graph


@dataclass(frozen=True)
class HyparExecutor:
    """A place to run parts: a backend and the run options it takes (engine, budget, partition size)."""

    backend: str = "cpu"
    engine: str = "auto"
    budget: int | None = None
    partition_bytes: int | None = None
    name: str = ""

    def options(self) -> dict[str, Any]:
        return {"backend": self.backend, "engine": self.engine, "budget": self.budget,
                "partition_bytes": self.partition_bytes}

    def run(self, algorithm: str, graph: Graph, **params):
        """Run registered ``algorithm`` on ``graph`` here."""
        spec = registry.get(algorithm)
        return spec.function(graph, **params, **self.options())

    @property
    def label(self) -> str:
        return self.name or (self.backend if self.budget is None else f"{self.backend}[{self.engine}]")


def labels(executors: list[HyparExecutor]) -> list[str]:
    """The executors' labels, a repeated one numbered from its second use (``cpu``, ``cpu#2``): the
    planner's predictions and a run's timings name each executor apart.

    Example:
        >>> labels([HyparExecutor("cpu"), HyparExecutor("cuda"), HyparExecutor("cpu")])
        ['cpu', 'cuda', 'cpu#2']
    """
    out: list[str] = []
    for ex in executors:
        label, k = ex.label, 2
        while label in out:
            label, k = f"{ex.label}#{k}", k + 1
        out.append(label)
    return out


@dataclass
class Split:
    """Vertex blocks, one per executor, and how they were chosen: positions ``[bounds[i], bounds[i + 1])``
    of ``order`` (the vertex ids in an application's order, :meth:`Application.block_order`), or of
    the ids themselves where ``order`` is None."""

    bounds: np.ndarray
    shares: list[float]                       # the edge share aimed at for each executor
    sample_seconds: list[float] = field(default_factory=list)
    order: np.ndarray | None = None

    def blocks(self) -> list[np.ndarray]:
        spans = [(int(self.bounds[i]), int(self.bounds[i + 1])) for i in range(len(self.bounds) - 1)]
        n = int(self.bounds[-1])
        # a block of every vertex is the ids in order, as without an order (one executor's part is the graph)
        return [np.arange(lo, hi, dtype=np.int64) if self.order is None or hi - lo == n
                else np.asarray(self.order[lo:hi], dtype=np.int64) for lo, hi in spans]


@dataclass
class HyparResult:
    """Values per vertex of the input, scalars, and where the time went (``timings``; its ``plan``
    says which plan ran and why)."""

    graph: Graph
    values: dict[str, np.ndarray]
    scalars: dict[str, Any]
    timings: dict[str, Any]
    cut: int
    levels: int
