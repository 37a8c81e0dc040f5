"""The run record: what each iteration did, which engine served each partition, bytes moved.

Example:
    >>> from graphferry.runtime.record import RunRecord
    >>> r = RunRecord(algorithm="bfs", backend="cpu", engine="host")
    >>> it = r.begin("edge_map", "push", active_vertices=1, active_edges=3)
    >>> it.add_partition(0, "host", 0, rows=1)
    >>> r.end(it); r.iterations, r.bytes_h2d
    (1, 0)
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from typing import Any



def bytes_modelled(engine: str) -> bool:
    """Whether ``engine``'s bytes_h2d is a model, not a measurement (its trait,
    :meth:`Engine.bytes_modelled <graphferry.engines.base.Engine.bytes_modelled>`): zero-copy
    kernels and unified memory read the host's edges over the bus without an explicit copy, so the
    bytes a partition "moved" are what its active rows would read, not counted on the bus. A name
    the registry does not know (a record from elsewhere) counts as measured.

    Example:
        >>> bytes_modelled("zerocopy"), bytes_modelled("filter"), bytes_modelled("elsewhere")
        (True, False, False)
    """
    from ..engines.registry import engine_class, names   # (on first use: reading a record needs no engine)

    return engine in names() and engine_class(engine).bytes_modelled()


@dataclass
class PartitionStep:
    partition: int
    engine: str
    bytes_h2d: int
    rows: int
    device: str = ""  # the executor that computed it ("" when the run has one)


@dataclass
class IterationRecord:
    index: int
    op: str
    direction: str
    active_vertices: int
    active_edges: int  # the frontier's edges along the map; -1: not counted (runtime.NOT_COUNTED)
    seconds: float = 0.0
    compact_seconds: float = 0.0
    copy_seconds: float = 0.0
    kernel_seconds: float = 0.0
    next_active: int | None = None
    device_seconds: dict | None = None  # hybrid: seconds per other executor and for the state exchange
    floor_bytes: int | None = None  # edge bytes that had to cross (hybrid: device-placed, not resident)
    state_bytes: int | None = None  # hybrid: vertex-state bytes that crossed between executors
    partitions: list[PartitionStep] = field(default_factory=list)
    started: float = 0.0  # seconds from the record's creation to this step's start
    _t0: float = 0.0

    def add_partition(self, partition: int, engine: str, bytes_h2d: int, rows: int, device: str = "") -> None:
        self.partitions.append(PartitionStep(partition, engine, bytes_h2d, rows, device))

    @property
    def bytes_h2d(self) -> int:
        return sum(p.bytes_h2d for p in self.partitions)


@dataclass
class RunRecord:
    algorithm: str
    backend: str
    engine: str
    steps: list[IterationRecord] = field(default_factory=list)
    setup_seconds: float = 0.0
    total_seconds: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)
    _origin: float = field(default_factory=time.perf_counter, repr=False)

    def begin(self, op: str, direction: str, *, active_vertices: int, active_edges: int,
              since: float | None = None) -> IterationRecord:
        """Open a step; ``since`` (a ``time.perf_counter()`` reading) dates its start earlier, to
        the work that belongs to it before its direction and sizes were known (the choice of
        direction: GAPBS's per-step timers also cover the counts its rule reads)."""
        it = IterationRecord(len(self.steps), op, direction, active_vertices, active_edges)
        it._t0 = time.perf_counter() if since is None else since
        it.started = it._t0 - self._origin
        return it

    def end(self, it: IterationRecord) -> None:
        it.seconds = time.perf_counter() - it._t0
        self.steps.append(it)

    @property
    def edge_steps(self) -> list[IterationRecord]:
        return [s for s in self.steps if s.op == "edge_map"]

    def round_seconds(self) -> list[float]:
        """Wall seconds of each round, a round being an edge_map and every step and line of the
        algorithm up to the next edge_map (vertex maps, reductions, the driver's own work): from one
        edge_map's start to the next one's, the last to the end of the last step after it. What a
        user waits per iteration, where an edge_map step's own seconds leave out the rest.

        Example:
            >>> r = RunRecord(algorithm="pr", backend="cpu", engine="host")
            >>> for op in ("edge_map", "vertex_map", "edge_map", "vertex_map"):
            ...     r.end(r.begin(op, "-", active_vertices=1, active_edges=1))
            >>> rounds = r.round_seconds()
            >>> len(rounds), all(s >= 0 for s in rounds)
            (2, True)
        """
        starts = [i for i, s in enumerate(self.steps) if s.op == "edge_map"]
        out = []
        for k, i in enumerate(starts):
            if k + 1 < len(starts):
                out.append(self.steps[starts[k + 1]].started - self.steps[i].started)
            else:
                last = self.steps[-1]
                out.append(last.started + last.seconds - self.steps[i].started)
        return out

    @property
    def iterations(self) -> int:
        return len(self.edge_steps)

    @property
    def bytes_h2d(self) -> int:
        return sum(s.bytes_h2d for s in self.steps)

    @property
    def bytes_h2d_modelled(self) -> int:
        """The part of :attr:`bytes_h2d` that is modelled (partitions served by an engine of
        :func:`bytes_modelled`); the rest is measured (explicit copies, their sizes)."""
        return sum(p.bytes_h2d for s in self.steps for p in s.partitions if bytes_modelled(p.engine))

    @property
    def bytes_h2d_how(self) -> str:
        """``"measured"`` (explicit copies only), ``"modelled"`` (any zero-copy or unified bytes)
        or ``"none"`` (nothing crossed)."""
        if not self.bytes_h2d:
            return "none"
        return "modelled" if self.bytes_h2d_modelled else "measured"

    def to_dict(self) -> dict:
        d = asdict(self)
        d.pop("_origin", None)
        d["bytes_h2d_how"] = self.bytes_h2d_how
        d["bytes_h2d_modelled"] = self.bytes_h2d_modelled
        for s in d["steps"]:
            s.pop("_t0", None)
        return d

    def summary(self) -> str:
        """One line: the edge maps (an algorithm running whole-graph kernels has none, and its
        own scalars give its iterations), time, bytes moved, engine; then, for a one-shot
        process (``extra["phases"]``), where its time went, else the loaded graph's load time.

        Example:
            >>> r = RunRecord(algorithm="bfs", backend="cpu", engine="host")
            >>> r.end(r.begin("edge_map", "push", active_vertices=1, active_edges=3))
            >>> r.summary()
            'bfs: 1 edge map (1 push, 0 pull), 0.0000 s, 0.0 MiB host-to-device, engine host on cpu'
            >>> r.extra["phases"] = {"imports": 0.25, "load": 0.01, "algorithm": 0.0}
            >>> r.summary().split(", engine host on cpu")[1]
            ' (one-shot: imports 0.250 s, load 0.010 s, algorithm 0.000 s)'
        """
        maps = self.iterations
        pushes = sum(1 for s in self.edge_steps if s.direction == "push")
        phases = self.extra.get("phases")
        return (f"{self.algorithm}: "
                + (f"{maps} edge map{'s' if maps != 1 else ''} ({pushes} push, {maps - pushes} pull), " if maps else "")
                + f"{self.total_seconds:.4f} s, "
                f"{self.bytes_h2d / 2**20:.1f} MiB host-to-device, engine {self.engine} on {self.backend}"
                + (f" on {self.extra['ranks']} ranks, {self.extra['devices']} devices" if "ranks" in self.extra else "")
                + (" (one-shot: " + ", ".join(f"{k} {v:.3f} s" for k, v in phases.items()) + ")" if phases
                   else f" (graph loaded once before, in {self.extra['load_seconds']:.4f} s)"
                   if self.extra.get("loaded_graph") else ""))
