"""The cost model: HyTGraph's engine-selection rule, extended with residency and CPU compute.

HyTGraph (sec. V-A) prices each partition ``P_i`` with active vertices ``A_i``
three ways, with ``d_1`` bytes per edge, ``d_2`` bytes per vertex index, ``m``
= 128-byte requests and ``MR`` = 256 outstanding requests per TLP batch:

* (1) ExpTM-filter:      ``Tef_i = ceil(sum_{v in P_i} D_o(v) * d_1 / m / MR) * RTT``
* (2) ExpTM-compaction:  ``Tec_i = ceil((sum_{v in A_i} D_o(v) * d_1 + |A_i| * d_2) / m / MR) * RTT
  + (sum_{v in A_i} D_o(v) * d_1 + |A_i| * d_2) / Thpt_cpt``
* (3) ImpTM-zero-copy:   ``Tiz_i = ceil(sum_{v in A_i} (ceil(D_o(v) * d_1 / m) + am(v)) / MR) * RTT_zc``
  with ``RTT_zc = gamma * RTT + (1 - gamma) * (sum_{A_i} D_o / sum_{P_i} D_o) * RTT``

(each engine's file says what its loads move, :meth:`~graphferry.engines.base.Engine.traffic`;
:meth:`CostModel.price` prices that traffic) and chooses compaction if ``Tec_i < alpha * Tef_i`` and ``Tec_i < beta * Tiz_i``,
else zero-copy if ``Tiz_i < Tef_i``, else filter (alpha 0.8, beta 0.4, gamma
0.625; RTT cancels out, and the paper drops the compaction term in practice).

``mode="paper"`` applies exactly that. ``mode="calibrated"`` (the default)
keeps the rule's shape but prices each term in seconds with figures measured
on this machine (:class:`Calibration`): bytes over the measured pinned copy
bandwidth for (1) and (2), the CPU gather at its measured throughput in (2),
and the zero-copy lines at the throughput measured for requests of the
partition's mean request size in (3) (which replaces the damping ``gamma``:
small scattered requests are far slower on a PCIe 5 H100 than the paper's
constants assume). Both modes add:

* residency: a partition already on the device costs no transfer, only its kernel;
* computing: the device kernel at the measured edge rate of the program's class
  (traversal, relax, accumulate) and, for a CPU executor, the same edges at
  the CPU's measured rate, plus the vertex state it must exchange;
* neighbourhood functions (``neighbor_map``: triangles, LCC, ...) read any row
  of the graph, so no transfer engine applies: a partition of vertices runs on
  the CPU where the lists lie, on the device reading them in place (zero-copy),
  or on the device from a copy of the whole graph; each priced as its work
  (the edges it reads, :func:`~graphferry.scheduler.stats.neighbor_work`) at the
  measured rate of a reference function that reads the same way.

Example:
    >>> from graphferry.scheduler.cost import Calibration, CostModel
    >>> c = Calibration.nominal()
    >>> model = CostModel(c, mode="paper")
    >>> # a few active vertices in a partition of 10,000 edges: read their lines in place
    >>> model.transfer_engine(part_edges=10_000, active_vertices=10, active_edges=20, lines=10, bytes_per_edge=4)[0]
    'zerocopy'
    >>> # many active vertices of degree 1 (many unsaturated requests): compact them
    >>> model.transfer_engine(part_edges=10**6, active_vertices=20_000, active_edges=20_000, lines=20_000,
    ...                       bytes_per_edge=4)[0]
    'compaction'
    >>> # every row active: copy the partition whole
    >>> model.transfer_engine(part_edges=10_000, active_vertices=1000, active_edges=10_000, lines=1000, bytes_per_edge=4)[0]
    'filter'
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from ..backends.base import LINE_BYTES  # m
from ..engines.base import PartitionCounts, Traffic
from ..engines.registry import engine_class, names_where

log = logging.getLogger(__name__)

MAX_REQUESTS = 256  # MR (PCIe 3.0)
#: The engines HyTGraph's rule chooses among, each priced by the traffic it says it would move.
#: (Any other engine the registry says the hybrid may pick, ``hybrid_picks``, is priced beside
#: them and takes a partition where it is cheaper than the rule's choice: :meth:`CostModel.transfer_engines`.)
TRANSFER_ENGINES = ("filter", "compaction", "zerocopy")
CLASSES = ("traversal", "relax", "accumulate")
#: A program's combine operator names its class of per-edge work (the calibration has one rate each).
CLASS_OF_COMBINE = {None: "traversal", "max": "traversal", "or": "traversal", "min": "relax", "sum": "accumulate"}
CALIBRATION_VERSION = 2  # 2: neighbourhood-function rates
#: Where a neighbourhood function's partitions can run: the CPU executor reading host memory, the
#: device reading the host's lists in place, or the device reading a copy of the whole graph.
NEIGHBOR_PLACES = ("host", "zerocopy", "resident")
#: Neighbour-map work (scheduler.stats.neighbor_work edges) per second where nothing was measured.
#: Intersections, from the H200's triangle counts at Kronecker 22 (algorithms-kron22-h200.json;
#: the DAG's work is about 2.9e10, extrapolated from 4.4e9 at scale 20): about 19 s on 16 cores,
#: 31 s reading the lists in place, 1.3 s from device memory (whole calls, the DAG's build
#: included). Rows stream like an edge map's.
NOMINAL_NEIGHBOR_RATE = {"host/row": 2e9, "host/neighbors": 1.5e9, "zerocopy/row": 4e9,
                         "zerocopy/neighbors": 1e9, "resident/row": 3e10, "resident/neighbors": 3e10}


@dataclass
class Calibration:
    """Figures measured once per machine and device (bytes/s, edges/s, seconds)."""

    device: str
    copy_bandwidth: float                 # pinned host-to-device explicit copy
    zerocopy_bandwidth: dict[int, float]  # kernel reads of mapped host memory, by request size (bytes)
    gather_bandwidth: float               # CPU compaction (gathered bytes/s, all threads)
    device_edge_rate: dict[str, float]    # "class/direction" -> edges/s on the device
    host_edge_rate: dict[str, float]      # the same on the CPU executor
    launch_seconds: float                 # one kernel launch (and its bookkeeping) on the device
    state_bandwidth: float                # vertex state between executors (each way)
    measured: bool = True
    #: "place/reads" -> neighbour-map work (scheduler.stats.neighbor_work edges) per second,
    #: place in NEIGHBOR_PLACES, reads "row" or "neighbors" (Program.neighbor_reads)
    neighbor_rate: dict[str, float] = field(default_factory=lambda: dict(NOMINAL_NEIGHBOR_RATE))
    version: int = CALIBRATION_VERSION
    notes: dict = field(default_factory=dict)

    @classmethod
    def nominal(cls) -> "Calibration":
        """The lent H100's published ceilings (ARCHITECTURE.md), for when nothing was measured."""
        rates = {f"{c}/{d}": 2e9 for c in CLASSES for d in ("push", "pull")}
        host = {f"{c}/{d}": 3e8 for c in CLASSES for d in ("push", "pull")}
        return cls("nominal", 51.3e9, {32: 2.2e9, 128: 8.3e9, 4096: 48.1e9}, 10e9, rates, host,
                   5e-6, 25e9, measured=False)

    # ------------------------------------------------------------ lookups
    def zerocopy_rate(self, request_bytes):
        """Throughput for requests of ``request_bytes`` (a number or an array), log-linear between
        the measured sizes and flat beyond them."""
        sizes = sorted(self.zerocopy_bandwidth)
        rates = [float(self.zerocopy_bandwidth[k]) for k in sizes]
        r = np.interp(np.log(np.maximum(np.asarray(request_bytes, dtype=np.float64), 1e-9)), np.log(sizes), rates)
        return float(r) if np.ndim(r) == 0 else r

    def edge_rate(self, where: str, klass: str, direction: str) -> float:
        table = self.device_edge_rate if where == "device" else self.host_edge_rate
        return float(table.get(f"{klass}/{direction}") or min(table.values()))

    def neighbor_rate_of(self, place: str, reads: str) -> float:
        """Neighbour-map work per second at ``place`` for functions that read ``reads`` ("rows":
        one row each, as "row")."""
        key = f"{place}/{'row' if reads == 'rows' else reads}"
        return float(self.neighbor_rate.get(key) or NOMINAL_NEIGHBOR_RATE[key])

    # ------------------------------------------------------------ cache
    def to_json(self) -> str:
        d = asdict(self)
        d["zerocopy_bandwidth"] = {str(k): v for k, v in self.zerocopy_bandwidth.items()}
        return json.dumps(d, indent=1, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> "Calibration":
        d = json.loads(text)
        d["zerocopy_bandwidth"] = {int(k): float(v) for k, v in d["zerocopy_bandwidth"].items()}
        d["neighbor_rate"] = {**NOMINAL_NEIGHBOR_RATE, **d.get("neighbor_rate", {})}
        return cls(**d)


def calibration_path(device: str) -> Path:
    """Where the calibration of ``device`` is cached (``$GRAPHFERRY_CACHE_DIR`` or ``~/.cache/graphferry``)."""
    root = os.environ.get("GRAPHFERRY_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "graphferry")
    key = hashlib.sha256(f"{device}|{os.cpu_count()}|v{CALIBRATION_VERSION}".encode()).hexdigest()[:16]
    return Path(root) / "calibration" / f"{key}.json"


def load_cached(device: str) -> Calibration | None:
    path = calibration_path(device)
    try:
        cal = Calibration.from_json(path.read_text())
    except (OSError, ValueError, TypeError, KeyError):
        return None
    return cal if cal.version == CALIBRATION_VERSION and cal.device == device else None


def save(cal: Calibration) -> Path:
    path = calibration_path(cal.device)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".tmp{os.getpid()}")
    tmp.write_text(cal.to_json())
    os.replace(tmp, path)  # whole or not at all
    return path


# ------------------------------------------------------------------ the model
@dataclass
class CostModel:
    """Prices a partition's options (see module doc). ``mode``: "calibrated" or "paper"."""

    calibration: Calibration
    mode: str = "calibrated"
    alpha: float = 0.8
    beta: float = 0.4
    gamma: float = 0.625

    def __post_init__(self):
        if self.mode not in ("calibrated", "paper"):
            raise ValueError(f"cost model mode must be 'calibrated' or 'paper', got {self.mode!r}")

    def transfer_costs(self, *, part_edges, active_vertices, active_edges, lines,
                       bytes_per_edge: int, index_bytes: int = 8,
                       range_bytes_per_edge: float | None = None) -> dict[str, np.ndarray]:
        """``{"filter": Tef, "compaction": Tec, "zerocopy": Tiz}`` (seconds when calibrated, RTTs
        in paper mode), each an array with one entry per partition (the counts are arrays, or
        scalars for one partition). ``bytes_per_edge``: an edge as compaction gathers it (plain
        ids); ``range_bytes_per_edge``: as a copy of a range or a zero-copy read moves it (packed
        ids: fewer; default ``bytes_per_edge``). Each engine says what it would move
        (:meth:`~graphferry.engines.base.Engine.traffic`, HyTGraph's formulas 1-3 in its file);
        :meth:`price` prices that here."""
        counts = PartitionCounts(*(np.asarray(x, dtype=np.float64) for x in (part_edges, active_vertices,
                                                                               active_edges, lines)),
                                 bytes_per_edge=bytes_per_edge, index_bytes=index_bytes,
                                 range_bytes_per_edge=range_bytes_per_edge)
        return {name: self.price(engine_class(name).traffic(counts))
                for name in dict.fromkeys(TRANSFER_ENGINES + names_where(hybrid_picks=True))}

    def price(self, traffic: Traffic) -> np.ndarray:
        """What ``traffic`` costs: round trips of full TLP batches in paper mode (``m`` = 128-byte
        requests, ``MR`` of them a batch, RTT 1; the paper drops the host's gather in practice),
        seconds at this machine's measured rates when calibrated."""
        # a term an engine does not move (a scalar 0 in its Traffic) is not computed: the policy
        # prices every active partition every round (28 us for 300 partitions at the former one
        # formula, 59 us computing every term for every engine)
        def moves(x) -> bool:
            return not (np.ndim(x) == 0 and float(x) == 0.0)

        copy_bytes = np.asarray(traffic.copy_bytes, dtype=np.float64)
        lines = np.asarray(traffic.lines, dtype=np.float64)
        if self.mode == "paper":
            cost = np.ceil(copy_bytes / (LINE_BYTES * MAX_REQUESTS))
            if moves(traffic.lines):
                share = np.asarray(traffic.share, dtype=np.float64)
                cost = cost + np.ceil(lines / MAX_REQUESTS) * (self.gamma + (1 - self.gamma) * share)
            return cost
        c = self.calibration
        cost = copy_bytes / c.copy_bandwidth
        if moves(traffic.gather_bytes):
            cost = cost + np.asarray(traffic.gather_bytes, dtype=np.float64) / c.gather_bandwidth
        if not moves(traffic.lines):
            return cost
        # zero-copy: the calibration times reads of `size` useful bytes each (aligned segments at
        # random places) and reports useful bytes/s, so a line whose rows use `request` bytes of it
        # costs what a request of that size cost there, never less than the smallest size measured
        # (the device reads host memory in sectors of that size): lines * request / rate(request).
        # Pricing every line as 128 bytes at that rate overstated scattered reads by 128 / request
        # (H200, SSSP at Kronecker 25: 2x; filter was chosen where zero-copy took half the time).
        line_bytes = np.asarray(traffic.line_bytes, dtype=np.float64)
        request = np.divide(line_bytes, lines, out=np.full_like(lines, float(LINE_BYTES)), where=lines > 0)
        request = np.clip(request, min(c.zerocopy_bandwidth), LINE_BYTES)
        return cost + lines * request / c.zerocopy_rate(request)

    def transfer_engines(self, **stats) -> tuple[np.ndarray, np.ndarray]:
        """HyTGraph's rule (Algorithm 1, lines 4-12) per partition: engine names and their costs
        (arguments as for :meth:`transfer_costs`)."""
        return self.rule(self.transfer_costs(**stats))

    def rule(self, t: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`transfer_engines` over costs :meth:`transfer_costs` gave (a caller that prices
        the partitions' plans too prices them once)."""
        tef, tec, tiz = np.broadcast_arrays(t["filter"], t["compaction"], t["zerocopy"])
        compact = (tec < self.alpha * tef) & (tec < self.beta * tiz)
        zero = ~compact & (tiz < tef)
        names = np.where(compact, "compaction", np.where(zero, "zerocopy", "filter"))
        costs = np.where(compact, tec, np.where(zero, tiz, tef))
        for name, other in t.items():   # an engine registered beside HyTGraph's three: where it is cheaper
            if name not in TRANSFER_ENGINES:
                other = np.broadcast_to(other, costs.shape)
                cheaper = other < costs
                names, costs = np.where(cheaper, name, names), np.where(cheaper, other, costs)
        return names, costs

    def transfer_engine(self, **stats) -> tuple[str, float]:
        """The rule for one partition: its engine and that engine's cost."""
        names, costs = self.transfer_engines(**stats)
        return str(names.reshape(-1)[0]), float(costs.reshape(-1)[0])

    def seconds(self, engine: str, cost: float) -> float:
        """A transfer cost in seconds (paper mode counts RTTs: priced here at one full TLP batch each)."""
        if self.mode == "calibrated":
            return cost
        return cost * LINE_BYTES * MAX_REQUESTS / self.calibration.copy_bandwidth

    def kernel_seconds(self, where: str, klass: str, direction: str, edges: int) -> float:
        return edges / self.calibration.edge_rate(where, klass, direction)

    def neighbor_seconds(self, place: str, reads: str, work) -> float:
        """A neighbourhood function's ``work`` (``scheduler.stats.neighbor_work``) at ``place``
        (host, zerocopy or resident): the measured rate of a reference function that reads the
        same way (own rows, or every neighbour's row), in both modes (the paper has no such term)."""
        return work / self.calibration.neighbor_rate_of(place, reads)
