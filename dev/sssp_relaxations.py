#!/usr/bin/env python
"""How many edges SSSP relaxes in frontier Bellman-Ford's order and in delta-stepping's (issue 37).

A plain numpy simulation, no engine: every round relaxes the out-edges of the round's vertices (all
pending ones for ``delta = inf``; else the lowest non-empty bucket ``floor(dist / delta)``) and the
vertices whose distance dropped become pending. It counts rounds and relaxed edges (in units of m),
the quantity the hybrid's SSSP moves across the bus for the partitions not on the device.

    PYTHONPATH=src python dev/sssp_relaxations.py --scale 18 --deltas inf 32 64 128
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
import engines_bench as eb  # noqa: E402


def relaxations(offsets, indices, weights, source: int, delta: float) -> tuple[int, int]:
    """(rounds, relaxed edges) from ``source`` with bucket width ``delta`` (inf: Bellman-Ford's order)."""
    n = len(offsets) - 1
    deg = np.diff(offsets)
    tails = np.repeat(np.arange(n), deg)
    dist = np.full(n, np.inf)
    dist[source] = 0.0
    pending = np.zeros(n, bool)
    pending[source] = True
    rounds = relaxed = 0
    while pending.any():
        ids = np.flatnonzero(pending)
        if not math.isinf(delta):
            keys = np.floor(dist[ids] / delta)
            ids = ids[keys == keys.min()]
        pending[ids] = False
        rounds += 1
        relaxed += int(deg[ids].sum())
        chosen = np.zeros(n, bool)
        chosen[ids] = True
        e = chosen[tails]
        before = dist.copy()
        np.minimum.at(dist, indices[e], dist[tails[e]] + weights[e])
        pending |= dist < before
    return rounds, relaxed


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scale", type=int, default=16)
    ap.add_argument("--deltas", type=float, nargs="+", default=[math.inf, 32, 64, 128])
    ap.add_argument("--hub-rank", type=int, default=2, help="the source: the vertex of this degree rank (0: the top hub)")
    args = ap.parse_args(argv)
    g, _ = eb.kronecker(args.scale, cpu_generator=True, weighted=True)
    offsets, indices = np.asarray(g.offsets), np.asarray(g.indices)
    weights = np.asarray(g.weights, dtype=np.float64)
    source = int(np.argsort(np.diff(offsets))[-1 - args.hub_rank])
    for delta in args.deltas:
        rounds, relaxed = relaxations(offsets, indices, weights, source, delta)
        print(f"kron{args.scale} delta {delta:g}: {rounds} rounds, {relaxed / g.m:.2f} m relaxed", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
