"""Lux's performance model (sec. 6, Table 1): per-iteration time from a few constants fitted on the machine.

Table 1, for ``x`` ranks (Lux: nodes) of ``y`` devices each::

    T_pull(x, y) = gamma_l |T_v| sum_i |INS(P_i)| / x  +  gamma_c |E| / (x y)   +  T_xfer
    T_push(x, y) = 0                                  +  gamma_c* |E| / (x y)  +  T_xfer
    T_xfer       = gamma_x |T_v| sum_j |UDS(N_j)|

with ``gamma_l`` the load rate (seconds per byte moved into a device; zero in
this implementation, whose ranks keep the whole state where they compute, CPU
or GPU, the exchange below moving the values: at Kronecker 25 on one H200 a
load term at the pinned copy rate predicted 7 ms an iteration that no rank
spends), ``gamma_c``/``gamma_c*`` the compute time per edge for pull and
push (push scaled by the iteration's share of active edges), and ``gamma_x``
the exchange time per byte. Three departures, all measured rather than assumed:

* a fixed compute time per iteration (``step_latency``: launches and the
  synchronisation ending a step), fitted with the per-edge rates on graphs of
  two sizes; a line through zero fitted on small graphs charged that cost to
  every edge and overpredicted PageRank at Kronecker 25 by 44% (H200);

* a per-edge rate that grows with ``log2 n`` where the fit graphs show it
  (``gamma_pull_log``, ``gamma_push_log``: ``gamma_d + gamma_d_log log2 n``
  per edge): push's atomic adds land on random addresses of an n-sized
  array, and their misses (caches, TLB) grow with it. Four H200s, per edge
  and device, push: 1.9, 2.8, 3.5, 4.4 e-11 s at Kronecker 23, 24, 25, 26;
  pull stayed at 2.6-2.9 e-11 s. A constant fitted on 23 and 24 predicted
  push a third too fast at 25 and 26 and chose it over pull;

* the exchange moves what this implementation moves: in pull each rank receives
  every other rank's range of every changed state array (``|T_v| n (x - 1) / x``
  bytes, a superset of Lux's update set), in push the whole arrays are merged
  (``|T_v| n``), plus a latency per step (``log2 x`` steps);
* ``x y`` devices compute at once only up to the host's capacity
  (``units``): CPU ranks of one thread each on one host share its cores, and
  beyond the cores the ranks waiting in MPI keep polling on theirs, so four
  ranks on two cores compute at the speed of one (``units * units / (x y)``).

Constants come from observed iterations (:meth:`PerformanceModel.fit`, least
squares); :meth:`PerformanceModel.choose` predicts every configuration and
direction and returns the fastest.

Example:
    >>> m = PerformanceModel(gamma_load=0.0, gamma_pull=1e-8, gamma_push=2e-8, gamma_xfer=1e-9,
    ...                      xfer_latency=1e-5, units=4, step_latency=1e-3)
    >>> round(m.predict("pull", edges=10**8, n=10**6, vertex_bytes=8, ranks=2), 4)
    0.505
    >>> m.choose(edges=10**8, n=10**6, vertex_bytes=8, candidates=[1, 2, 4])[:2]
    ('pull', 4)
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np


@dataclass
class PerformanceModel:
    gamma_load: float    # s per byte loaded into a device (pull: the in-neighbour set)
    gamma_pull: float    # s per edge, one unit, pull
    gamma_push: float    # s per active edge, one unit, push
    gamma_xfer: float    # s per byte a rank receives in the exchange
    xfer_latency: float  # s per exchange step (log2 x steps)
    units: int           # devices that compute at once on this machine (GPUs, or cores for CPU ranks)
    shared_host: bool = False  # CPU ranks on one host: together they always have ``units`` cores
    step_latency: float = 0.0  # s of compute per iteration whatever its edges (launches, the closing sync)
    gamma_pull_log: float = 0.0  # s per edge per log2(n): the pull rate's growth with the vertex count
    gamma_push_log: float = 0.0  # the same for push

    def edge_seconds(self, direction: str, n: int) -> float:
        """Seconds per edge on one unit for a graph of ``n`` vertices."""
        grow = math.log2(max(n, 2))
        if direction == "pull":
            return self.gamma_pull + self.gamma_pull_log * grow
        return self.gamma_push + self.gamma_push_log * grow

    def parallel(self, ranks: int, devices_per_rank: int = 1) -> float:
        """How many units compute at once with ``ranks`` x ``devices_per_rank`` devices."""
        xy = ranks * devices_per_rank
        if self.shared_host:  # ranks waiting in MPI poll on their core: beyond the cores, they slow the others
            return max(1.0, min(xy, self.units) * min(1.0, self.units / xy))
        return max(1, min(xy, self.units))

    def predict(self, direction: str, *, edges: int, n: int, vertex_bytes: int, ranks: int,
                devices_per_rank: int = 1, ins_total: int | None = None, active_fraction: float = 1.0) -> float:
        """Predicted seconds of one iteration (Table 1)."""
        x, y = ranks, devices_per_rank
        units = self.parallel(x, y)
        if direction == "pull":
            ins = n if ins_total is None else ins_total
            load = self.gamma_load * vertex_bytes * ins / x
            compute = self.step_latency + self.edge_seconds("pull", n) * edges / units
        else:
            load = 0.0  # overlapped with compute (Lux sec. 6.2)
            compute = self.step_latency + self.edge_seconds("push", n) * edges * active_fraction / units
        return load + compute + self.transfer(n=n, vertex_bytes=vertex_bytes, ranks=x, devices_per_rank=y,
                                              direction=direction)

    def oversubscription(self, ranks: int, devices_per_rank: int = 1) -> float:
        """How much slower an exchange runs when CPU ranks outnumber the cores (1 otherwise)."""
        return max(1.0, ranks * devices_per_rank / self.units) if self.shared_host else 1.0

    def transfer(self, *, n: int, vertex_bytes: int, ranks: int, devices_per_rank: int = 1,
                 direction: str = "pull") -> float:
        if ranks <= 1:
            return 0.0
        received = received_bytes(direction, n=n, vertex_bytes=vertex_bytes, ranks=ranks)
        return self.oversubscription(ranks, devices_per_rank) * (
            self.gamma_xfer * received + self.xfer_latency * math.ceil(math.log2(ranks)))

    def choose(self, *, edges: int, n: int, vertex_bytes: int, candidates, devices_per_rank: int = 1,
               active_fraction: float = 1.0) -> tuple[str, int, float]:
        """(direction, ranks, predicted seconds) of the fastest configuration among ``candidates`` ranks."""
        best = None
        for ranks in candidates:
            for direction in ("pull", "push"):
                t = self.predict(direction, edges=edges, n=n, vertex_bytes=vertex_bytes, ranks=ranks,
                                 devices_per_rank=devices_per_rank, active_fraction=active_fraction)
                if best is None or t < best[2]:
                    best = (direction, ranks, t)
        return best

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def fit(cls, observations: list[dict], *, units: int, shared_host: bool = False,
            gamma_load: float = 0.0) -> "PerformanceModel":
        """Least-squares constants from observed iterations (the median of each configuration's iterations,
        so that a first iteration's warm-up or a neighbour's burst on a shared machine weighs little).

        Each observation: ``direction``, ``edges`` (all ranks' edges the
        iteration read: active edges for push), ``ranks``, ``compute`` (the
        slowest rank's compute seconds), ``exchange`` (the slowest rank's exchange
        seconds), ``received_bytes`` (what one rank received).
        """
        groups: dict[tuple, list[dict]] = {}
        for o in observations:
            groups.setdefault((o["direction"], o["ranks"], o["edges"], o["received_bytes"], o.get("n")),
                              []).append(o)
        observations = [{"direction": d, "ranks": r, "edges": e, "received_bytes": b, "n": n,
                         "compute": float(np.median([o["compute"] for o in g])),
                         "exchange": float(np.median([o["exchange"] for o in g]))}
                        for (d, r, e, b, n), g in groups.items()]
        shape = cls(0.0, 0.0, 0.0, 0.0, 0.0, units, shared_host)
        gammas = {"pull": float("nan"), "push": float("nan")}
        grows = {"pull": 0.0, "push": 0.0}
        step = 0.0
        timed = [o for o in observations if o["edges"] > 0 and o["compute"] > 0]
        directions = [d for d in ("pull", "push") if any(o["direction"] == d for o in timed)]
        if timed:
            # compute = step_latency + (gamma_d + gamma_d_log log2 n) * edges / units, both directions at
            # once; relative least squares (a 1 ms step weighs as much as a 100 ms one); the log term
            # where a direction was seen on graphs of two vertex counts, the step where the edges per
            # unit take two values per direction, else a line through zero
            sizes = {d: {o["edges"] / shape.parallel(o["ranks"]) for o in timed if o["direction"] == d}
                     for d in directions}
            counts = {d: {o["n"] for o in timed if o["direction"] == d and o["n"]} for d in directions}
            with_step = all(len(v) >= 2 for v in sizes.values())
            logged = [d for d in directions if len(counts[d]) >= 2 and len(sizes[d]) >= 3]
            names = ["step"] if with_step else []
            names += [(d, "rate") for d in directions] + [(d, "log") for d in logged]

            def column(o, name):
                if name == "step":
                    return 1.0
                d, kind = name
                per_unit = o["edges"] / shape.parallel(o["ranks"]) * (o["direction"] == d)
                return per_unit * (math.log2(max(o["n"], 2)) if kind == "log" else 1.0)

            a = np.array([[column(o, k) for k in names] for o in timed], dtype=np.float64)
            t = np.array([o["compute"] for o in timed], dtype=np.float64)
            coef, *_ = np.linalg.lstsq(a / t[:, None], np.ones_like(t), rcond=None)
            if with_step and coef[0] < 0:  # a negative intercept: refit through zero
                names, a = names[1:], a[:, 1:]
                coef, *_ = np.linalg.lstsq(a / t[:, None], np.ones_like(t), rcond=None)
            for k, c in zip(names, coef):
                if k == "step":
                    step = float(c)
                elif k[1] == "rate":
                    gammas[k[0]] = float(c)
                else:
                    grows[k[0]] = float(c)
        multi = [o for o in observations if o["ranks"] > 1 and o["exchange"] > 0]
        if len(multi) >= 2:
            a = np.array([[o["received_bytes"], math.ceil(math.log2(o["ranks"]))] for o in multi], dtype=np.float64)
            b = np.array([o["exchange"] / shape.oversubscription(o["ranks"]) for o in multi], dtype=np.float64)
            # relative least squares: a 0.1 ms exchange counts as much as a 10 ms one
            (gx, lat), *_ = np.linalg.lstsq(a / b[:, None], np.ones_like(b), rcond=None)
            gx, lat = max(float(gx), 0.0), max(float(lat), 0.0)
        else:
            gx, lat = 0.0, 0.0
        return cls(gamma_load=gamma_load, gamma_pull=gammas["pull"], gamma_push=gammas["push"],
                   gamma_xfer=gx, xfer_latency=lat, units=units, shared_host=shared_host, step_latency=step,
                   gamma_pull_log=grows["pull"], gamma_push_log=grows["push"])


def observations_from_log(log: list[dict], *, n: int, vertex_bytes: int, active_edges: list[int] | None = None):
    """Model observations from a :class:`~graphferry.distributed.graph.DistributedGraph`'s log of edge_maps."""
    out = []
    for i, e in enumerate(log):
        if e["op"] != "edge_map":
            continue
        ranks = len(e["compute_seconds"])
        edges = sum(e["edges"]) if active_edges is None else active_edges[i]
        # the slowest rank's compute; the exchange as the last rank to arrive saw it (the others' also
        # holds their wait for that rank)
        out.append({"direction": e["direction"], "edges": edges, "ranks": ranks, "n": n,
                    "compute": max(e["compute_seconds"]), "exchange": min(e["exchange_seconds"]),
                    "received_bytes": received_bytes(e["direction"], n=n, vertex_bytes=vertex_bytes, ranks=ranks)})
    return out


def received_bytes(direction: str, *, n: int, vertex_bytes: int, ranks: int) -> float:
    """Bytes one rank receives per iteration: pull gathers the others' ranges; push merges whole arrays."""
    if ranks <= 1:
        return 0.0
    return vertex_bytes * n * ((ranks - 1) / ranks if direction == "pull" else 1.0)
