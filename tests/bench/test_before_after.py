"""bench/before_after.py: the trees alternate, the ratios pair the same runs, and a whole call works.

The whole call runs this tree as both "before" and "after" on a tiny graph with the CPU backend:
what the device call does at Kronecker 25, with every run checked by the peers benchmark's Checker.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import before_after  # noqa: E402


def test_the_trees_alternate_and_each_engine_runs_on_both():
    order = before_after.child_order(["resident", "hybrid", "zerocopy"], 2)
    firsts = [order[k][0] for k in range(0, len(order), 2)]
    assert firsts == ["before", "after", "before", "after", "before", "after"]
    pairs = {(order[k][1], order[k][2]): {order[k][0], order[k + 1][0]} for k in range(0, len(order), 2)}
    assert len(pairs) == 6 and all(trees == {"before", "after"} for trees in pairs.values())


def test_ratios_pair_the_same_algorithm_engine_and_round():
    run = lambda tree, name, rnd, s: {"tree": tree, "algorithm": name, "engine": "hybrid", "round": rnd,  # noqa: E731
                                      "seconds": s, "first_seconds": 2 * s, "verified": True}
    runs = [run("before", "bfs", 0, 1.0), run("after", "bfs", 0, 1.2), run("after", "bfs", 1, 0.5),
            run("before", "wcc", 0, 2.0), {"tree": "after", "engine": "hybrid", "round": 0, "error": "x"}]
    (r,) = before_after.ratios(runs)
    assert (r["algorithm"], r["round"], r["ratio"], r["first_ratio"], r["within_tolerance"]) == ("bfs", 0, 1.2, 1.2, False)


@pytest.mark.slow
def test_a_whole_call_on_the_cpu_backend(tmp_path):
    out = tmp_path / "ba.json"
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / "before_after.py"), "--before", str(ROOT),
                           "--bench-dir", str(ROOT / "bench"), "--before-commit", "HEAD", "--scale", "6",
                           "--backend", "cpu", "--engines", "host", "--algorithms", "bfs", "wcc",
                           "--work", str(tmp_path / "work"), "--out", str(out)],
                          env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    doc = json.loads(out.read_text())
    assert {r["tree"] for r in doc["runs"]} == {"before", "after"}
    assert all(r["verified"] for r in doc["runs"]), doc["runs"]
    assert [(r["algorithm"], r["engine"]) for r in doc["ratios"]] == [("bfs", "host"), ("wcc", "host")]
    assert doc["trees"]["before"]["commit"] == "HEAD" and doc["trees"]["after"]["commit"]
    assert not (tmp_path / "work").exists()


def test_both_trees_read_the_one_shared_calibration(tmp_path, monkeypatch):
    """The calibration written for the trees is the file each child's calibration_for reads first:
    neither tree prices its plans with figures of its own (20e9547 measured them in its first call)."""
    from graphferry.backends import get_backend
    from graphferry.runtime.calibration import calibration_for

    cal = before_after.shared_calibration("cpu")
    cal.launch_seconds = 1.25e-3   # a figure no measurement here gives
    paths = before_after.seed_calibration(cal, tmp_path)
    assert len(set(paths)) == 2
    for tree in ("before", "after"):
        monkeypatch.setenv("GRAPHFERRY_CACHE_DIR", str(tmp_path / f"cache-{tree}" / "graphferry"))
        assert calibration_for(get_backend("cpu")) == cal


def test_a_runs_plan_names_its_bytes_placements_and_directions():
    from graphferry.runtime.record import RunRecord

    rec = RunRecord(algorithm="bfs", backend="cpu", engine="hybrid")
    for direction, engines in (("push", ["zerocopy"]), ("pull", ["resident", "zerocopy", "resident"])):
        it = rec.begin("edge_map", direction, active_vertices=1, active_edges=1)
        for i, e in enumerate(engines):
            it.add_partition(i, e, 128 if e == "zerocopy" else 0, 1, device="dev0")
        rec.end(it)
    plan = before_after.plan_of(rec)
    assert plan["placements"] == {"zerocopy@dev0": 2, "resident@dev0": 2}
    assert (plan["bytes_h2d"], plan["bytes_h2d_how"], plan["directions"]) == (256, "modelled", "pu pu")


def test_profiled_calls_name_the_librarys_functions_per_call():
    import graphferry as gf
    from graphferry.generators import kronecker_graph

    class Bench:  # peers_bench's call, as the child imports it
        @staticmethod
        def call(name, lg, source, engine):
            from graphferry.algorithms.bfs import bfs
            return bfs(lg, source, engine=engine)

    with gf.load(kronecker_graph(6, seed=1), backend="cpu") as lg:
        prof = before_after.profile_calls(Bench, "bfs", lg, 0, "host", calls=2, top=40)
    assert prof["calls"] == 2 and prof["python_calls_per_call"] > 0
    assert 0 < len(prof["by_own_time"]) <= 40
    assert any(row[0].startswith("algorithms/bfs.py:") for row in prof["by_cumulative_time"])
