#!/usr/bin/env python
"""Where the hybrid's SSSP bytes go (issue 37: SSSP at 25% of Kronecker 25 against EMOGI with every edge
in GPU memory), per round, in the simulated arena (CPU backend, no GPU needed).

A Kronecker graph is loaded with a budget of ``--budget`` x m x 8 bytes, cut into partitions of m x 8 /
``--partitions`` bytes (as tests/hybrid/test_policy_plans.py; of 5-byte edges, 100 of them), and SSSP runs ``--calls`` times on the hybrid with the
H200's calibration (``bench/results/calibration-h200.json``, launches scaled to the partitions' size) and
the GPU's round structure (``delta=inf``: every pending vertex a round, as the CUDA backend's buckets do on
graphs with hubs). The last call is the warm one. Per round it prints the frontier, the engines the plan
used, the bytes moved and the floor (``IterationRecord.floor_bytes``: the active rows' edges of partitions
not resident when the round began, ids + weights in the range layout), and what each candidate would move:

* ``fused``: the partitions read in place with a row's ids and weights in one packed field per edge
  (``index_bits + weight_bits`` bits: a short row's edges share lines), counted exactly from the round's
  frontier (HyTGraph formula 3's ``sum_v ceil(D_o(v) d / 128) + am(v)`` with d the fused edge). The
  library reads fused edges by default (``gf.load(fuse_edges=True)``): the column equals ``moved`` then;
  ``--no-fuse`` runs the separate arrays, and the column says what fusing saves on those rounds;
* ``cheapest``: each partition not resident moved by the cheapest of a whole copy (filter), its active
  rows gathered (compaction: their edges with plain ids and a row index) and its lines read in place
  (split or fused), counted in bytes (no prices: what any per-round choice could reach at best).

It also prices the rows read in place as the cost model does (each line a request of the row's bytes
in it, at the calibration's rate for that size): ``zerocopy_seconds`` split and fused.

Writes a JSON file (``--out``) with every round and the totals; ``--small`` is scale 14.

Usage:
    PYTHONPATH=src python bench/sssp_bytes_bench.py --scale 16 --out /tmp/sssp_bytes.json
"""

from __future__ import annotations

import argparse
import collections
import json
import math
import sys
import time
from pathlib import Path

import numpy as np

import graphferry as gf
from graphferry.algorithms.sssp import sssp
from graphferry.backends.base import LINE_BYTES, row_lines
from graphferry.generators import kronecker_graph
from graphferry.scheduler import Policy
from graphferry.scheduler import hybrid as hybrid_module
from graphferry.scheduler.cost import Calibration

H200 = Path(__file__).resolve().parent / "results" / "calibration-h200.json"
PARTITIONS_AT_K25 = 32 * 2**20  # the library's partition size, at which the calibration's launch was timed


def h200_calibration(partition_bytes: int) -> Calibration:
    """The lent H200's calibration with its launch cost scaled to ``partition_bytes`` against Kronecker 25's
    32 MiB partitions (what a launch costs beside a copy of one)."""
    d = json.loads(H200.read_text())
    d = {k: v for k, v in d.items() if k in Calibration.__dataclass_fields__}
    cal = Calibration.from_json(json.dumps(d))
    cal.launch_seconds *= partition_bytes / PARTITIONS_AT_K25
    return cal


def capture_frontiers():
    """Wrap the hybrid's statistics so each round's frontier (host ids, None for dense) is kept."""
    seen = []
    real = hybrid_module.partition_stats

    def spy(side, backend, frontier, *, dense, **kw):
        stats = real(side, backend, frontier, dense=dense, **kw)
        seen.append((side, None if stats.ids is None else np.asarray(backend.to_host(stats.ids)), stats))
        return stats

    hybrid_module.partition_stats = spy
    return seen, lambda: setattr(hybrid_module, "partition_stats", real)


def read_seconds(cal: Calibration, b, e, bits_list) -> float:
    """Seconds the calibration gives reading rows ``[b, e)`` in place, arrays of ``bits_list`` bits an
    entry: each row's lines in each array, each line a request of the row's bytes in it (at least the
    smallest size measured: the device reads host memory in sectors), at that size's measured rate."""
    total = 0.0
    for bits in bits_list:
        lines = row_lines(np, b, e, bits).astype(np.float64)
        useful = (e - b) * bits / 8.0
        request = np.clip(np.divide(useful, lines, out=np.zeros_like(lines), where=lines > 0),
                          min(cal.zerocopy_bandwidth), LINE_BYTES)
        total += float((lines * request / cal.zerocopy_rate(request)).sum())
    return total


def round_row(side, ids, stats, step, cal: Calibration) -> dict:
    """One round's figures: the record's (engines, bytes, floor) and the candidates' (module doc)."""
    parts = side.partitions
    by_engine = collections.Counter()
    moved = collections.Counter()
    resident = set()
    for p in step.partitions:
        by_engine[p.engine] += 1
        moved[p.engine] += p.bytes_h2d
        if p.engine == "resident" and p.bytes_h2d == 0:
            resident.add(p.partition)
    out = {"active_vertices": step.active_vertices, "active_edges": int(step.active_edges),
           "engines": dict(by_engine), "bytes": {k: int(v) for k, v in moved.items()},
           "moved": int(step.bytes_h2d), "floor": int(step.floor_bytes or 0)}
    if ids is None:   # a dense round: every row
        return out
    off = side.offsets
    idx_bits, w_bits = side.range_index_bits, 8 * side.weight_bytes
    b, e = off[ids], off[ids + 1]
    split = row_lines(np, b, e, idx_bits) + (row_lines(np, b, e, w_bits) if w_bits else 0)
    fused = row_lines(np, b, e, idx_bits + w_bits)
    cuts = stats.cuts
    read_in_place = {p.partition for p in step.partitions if p.engine == "zerocopy"}
    zc_split = zc_fused = cheapest_split = cheapest_fused = 0
    t_split = t_fused = 0.0
    for i in np.flatnonzero(stats.active_edges > 0):
        if int(i) in resident:
            continue
        a, z = int(cuts[i]), int(cuts[i + 1])
        ls, lf = int(split[a:z].sum()) * LINE_BYTES, int(fused[a:z].sum()) * LINE_BYTES
        whole = side.range_bytes(parts[i].edge_lo, parts[i].edge_hi)
        gathered = int(stats.active_edges[i]) * side.bytes_per_edge + (z - a) * (8 + side.indices.itemsize)
        cheapest_split += min(whole, gathered, ls)
        cheapest_fused += min(whole, gathered, lf)
        if i in read_in_place:
            zc_split += ls
            zc_fused += lf
            t_split += read_seconds(cal, b[a:z], e[a:z], [idx_bits] + ([w_bits] if w_bits else []))
            t_fused += read_seconds(cal, b[a:z], e[a:z], [idx_bits + w_bits])
    out.update(zerocopy_split=zc_split, zerocopy_fused=zc_fused,
               fused=int(step.bytes_h2d) - moved["zerocopy"] + zc_fused,
               cheapest_split=cheapest_split, cheapest_fused=cheapest_fused,
               zerocopy_seconds_split=t_split, zerocopy_seconds_fused=t_fused)
    return out


def run(scale: int, budget: float, partitions: int, calls: int, delta: float, fuse: bool = True) -> dict:
    g = kronecker_graph(scale, seed=0, weighted=True)
    wbytes = g.m * 8
    cal = h200_calibration(wbytes // partitions)
    policy = Policy(use_cpu=False, calibration=cal)
    source = int(np.flatnonzero(np.diff(g.offsets) > 0)[0])  # the first vertex with out-edges
    seen, restore = capture_frontiers()
    try:
        with gf.load(g, backend="cpu", budget=int(wbytes * budget), partition_bytes=wbytes // partitions,
                     fuse_edges=fuse) as lg:
            for _ in range(calls):
                del seen[:]
                t = time.perf_counter()
                r = sssp(lg, source, engine="hybrid", policy=policy, delta=delta)
                secs = time.perf_counter() - t
    finally:
        restore()
    steps = r.record.edge_steps
    assert len(steps) == len(seen), (len(steps), len(seen))
    rows = [round_row(side, ids, stats, step, cal) for (side, ids, stats), step in zip(seen, steps)]
    side = seen[0][0]
    zc = {k: sum(row.get(k, 0.0) for row in rows) for k in ("zerocopy_seconds_split", "zerocopy_seconds_fused")}
    total = {k: sum(row.get(k, row["moved"]) for row in rows)
             for k in ("moved", "floor", "fused", "cheapest_split", "cheapest_fused")}
    return {"scale": scale, "source": source, "n": g.n, "m": g.m, "budget_fraction": budget, "partitions": len(side.partitions),
            "index_bits": side.range_index_bits, "weight_bytes": side.weight_bytes, "fused": side.fused is not None, "delta": delta,
            "rounds": len(rows), "cpu_seconds": secs, "totals": total, "zerocopy_seconds": zc,
            "ratios": {k: v / max(1, total["floor"]) for k, v in total.items()}, "per_round": rows}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", type=int, default=16)
    ap.add_argument("--small", action="store_true", help="scale 14")
    ap.add_argument("--budget", type=float, default=0.25, help="device budget, a fraction of m x 8 bytes")
    ap.add_argument("--partitions", type=int, default=160)
    ap.add_argument("--calls", type=int, default=3)
    ap.add_argument("--delta", type=float, default=math.inf)
    ap.add_argument("--no-fuse", action="store_true", help="zero-copy reads ids and weights as two arrays")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)
    res = run(14 if args.small else args.scale, args.budget, args.partitions, args.calls, args.delta, not args.no_fuse)
    print(f"Kronecker {res['scale']}, {res['budget_fraction']:.0%}, {res['partitions']} partitions, "
          f"{'fused' if res['fused'] else 'separate'} reads in place, ids {res['index_bits']} bits, weights {res['weight_bytes']} B, {res['rounds']} rounds")
    print(f"{'rd':>3} {'active':>8} {'floor':>10} {'moved':>10} {'x':>5} {'fused':>10} {'cheap':>10} "
          f"{'cheap+f':>10}  engines")
    for k, row in enumerate(res["per_round"]):
        f = max(1, row["floor"])
        print(f"{k:>3} {row['active_vertices']:>8} {row['floor']:>10} {row['moved']:>10} {row['moved'] / f:>5.2f} "
              f"{row.get('fused', row['moved']):>10} {row.get('cheapest_split', row['moved']):>10} "
              f"{row.get('cheapest_fused', row['moved']):>10}  "
              + " ".join(f"{e}:{c}/{row['bytes'].get(e, 0)}" for e, c in sorted(row["engines"].items())))
    print("totals:", res["totals"])
    print("x floor:", {k: round(v, 3) for k, v in res["ratios"].items()})
    print("zero-copy reads at the calibration's rates (s):", res["zerocopy_seconds"])
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(res, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
