"""bench/budget_sweep.py (issue 37): the sweep's logic end to end on the CPU backend, and the
loaded graph's with_budget that it is built on."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse.csgraph as csgraph

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))


def test_spread_order_keeps_every_value_and_starts_at_both_ends():
    import budget_sweep

    vals = [0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 0.75, 1.0]
    order = budget_sweep.spread_order(vals)
    assert sorted(order) == vals and order[:2] == [1.0, 0.01]
    assert budget_sweep.spread_order([0.5]) == [0.5]


def test_the_single_engines_come_from_the_registry():
    import budget_sweep
    from graphferry.engines import registry

    engines = budget_sweep.sweep_engines()
    assert "hybrid" not in engines and "host" not in engines
    assert set(engines) == {n for n in registry.names() if registry.engine_class(n).on_device
                            and not registry.engine_class(n).schedules}


def test_small_sweep_writes_verified_runs_at_every_budget(tmp_path):
    import budget_sweep
    import check_results

    budgets = [0.05, 0.5, 1.0]
    budget_sweep.main(["--small", "--scale", "8", "--budgets", *map(str, budgets), "--reps", "1",
                       "--algorithms", "bfs", "sssp", "--out", str(tmp_path), "--note", "A test's call."])
    doc = json.loads((tmp_path / "budget-sweep-kron8.json").read_text())
    assert doc["notes"].endswith(" Budgets 5%, 50%, 100% only (--budgets), not the issue's 1%, 2%, 5%, 10%, "
                                 "25%, 50%, 75%, 100%. A test's call.")
    assert check_results.problems(doc, "sweep", check_commit=False) == []
    runs = [r for r in doc["runs"] if "seconds" in r]
    assert runs and all(r["verified"] for r in runs)
    assert all(isinstance(r["budget_fraction"], float) for r in runs)
    from graphferry.sweep_plot import sweep_points

    rows = sweep_points(doc["runs"])
    for engine in doc["engines"]:
        if engine == "resident":
            res = [r for r in runs if r["engine"] == "resident"]
            assert {r["budget_fraction"] for r in res} == {1.0}
            assert all(0 < r["fits_from_budget_fraction"] <= 1.0 for r in res)
            # each algorithm's own side: SSSP's holds weights too (one handle for all said the last side's)
            fits = {r["algorithm"]: r["fits_from_budget_fraction"] for r in res}
            assert fits["sssp"] > fits["bfs"], fits
            continue
        for algorithm in ("bfs", "sssp"):
            seen = {r["budget_fraction"] for r in rows if r["engine"] == engine and r["algorithm"] == algorithm
                    and "seconds" in r}
            skipped = {r["budget_fraction"] for r in doc["runs"] if r["engine"] == engine and "skipped" in r}
            assert seen | skipped == set(budgets), (engine, algorithm)
    zc = [r for r in runs if r["engine"] == "zerocopy"]  # holds nothing on the device: measured once
    assert len(zc) == 2 and all(r["holds_for_budget_fractions"] == budgets for r in zc)
    hybrid = {(r["algorithm"], r["budget_fraction"]) for r in runs if r["engine"] == "hybrid"}
    assert hybrid == {(a, b) for a in ("bfs", "sssp") for b in budgets}
    # the hybrid's budgets, resident and the engines that keep nothing between iterations (a handle
    # per footprint) timed together: every such run says with how many handles; unified runs apart
    together = {r["interleaved_with"] for r in runs if r["engine"] != "unified"}
    assert len(together) == 1 and together.pop() >= len(budgets) + 2
    assert all("interleaved_with" not in r for r in runs if r["engine"] == "unified")
    assert "| sssp | hybrid |" in budget_sweep.report(doc)
    # graphferry plot draws it; a file with nothing to draw is one error line naming it
    from typer.testing import CliRunner

    from graphferry.cli import app

    sweep = tmp_path / "budget-sweep-kron8.json"
    res = CliRunner().invoke(app, ["plot", str(sweep), "-o", str(tmp_path / "sweep.png")])
    assert res.exit_code == 0 and (tmp_path / "sweep.png").stat().st_size > 10_000, res.output
    empty = tmp_path / "empty.json"
    empty.write_text(json.dumps({"budget_fractions": [0.5], "runs": [{"engine": "hybrid", "skipped": "x"}]}))
    res = CliRunner().invoke(app, ["plot", str(empty)])
    assert res.exit_code != 0 and "Traceback" not in res.output
    assert f"error: {empty}: a budget sweep with nothing to draw" in res.output


def test_with_budget_shares_host_copies_and_gives_the_same_answers():
    import graphferry as gf
    from graphferry.algorithms.sssp import sssp
    from graphferry.generators import kronecker_graph

    g = kronecker_graph(8, seed=3, weighted=True)
    ref = csgraph.dijkstra(g.to_scipy(), indices=0)
    with gf.load(g, backend="cpu", budget=g.m * 8, partition_bytes=1024) as lg:
        narrowed, packed = lg.side_weights("out"), lg.side_packed("out")
        for fraction in (0.05, 0.5):
            small = lg.with_budget(int(fraction * g.m * 8))
            assert small.side_weights("out") is narrowed and small.side_packed("out") is packed
            assert small.arena.budget_bytes == int(fraction * g.m * 8)
            for engine in ("filter", "hybrid"):
                dist = sssp(small, 0, engine=engine).values["distances"]
                np.testing.assert_allclose(dist, ref)
            assert small.arena.used_bytes <= small.arena.budget_bytes
            small.close()
        # the first handle's copies outlive the handles made from it
        assert lg.side_weights("out") is narrowed
        np.testing.assert_allclose(sssp(lg, 0, engine="filter").values["distances"], ref)


def test_interleaved_calls_go_round_the_handles_after_each_ones_warm_up(monkeypatch):
    """time_ours_interleaved: each handle's warm-up first, then the timed calls round the handles,
    the round's order turned each time, a handle with fewer reps left out once it has had them;
    each run's figures are its own handle's calls (not its neighbours')."""
    import peers_bench as pb

    calls = []

    class Record:
        steps, iterations, bytes_h2d, bytes_h2d_modelled, bytes_h2d_how, setup_seconds = [], 1, 0, 0, "", 0.0
        edge_steps = []

        def to_dict(self):
            return {}

    class Result:
        def __init__(self, lg):
            self.record, self.values = Record(), {"distances": np.zeros(2)}

        def to_host(self):
            pass

    class Handle:
        def __init__(self, name):
            self.name, self.load_seconds = name, 0.0
            self.backend = type("B", (), {"name": "cpu", "is_device": False})()
            self.n = 2

    def fake_call(name, lg, source, engine):
        calls.append(lg.name)
        return Result(lg)

    class Checker:
        def check(self, name, vals, bound_factor=1.0):
            return True, "fake"

    monkeypatch.setattr(pb, "call", fake_call)
    monkeypatch.setattr(pb, "RECORDS", None)
    entries = [(Handle("a"), 0, "hybrid", 3, "a"), (Handle("b"), 0, "hybrid", 3, "b"),
               (Handle("c"), 0, "resident", 1, "c")]
    runs = pb.time_ours_interleaved("sssp", entries, Checker(), 50.0, lambda msg: None)
    assert calls[:3] == ["a", "b", "c"]                       # the warm-ups
    assert calls[3:] == ["a", "b", "c", "b", "a", "a", "b"]   # turns a b c, b c a, c a b (c done)
    assert [r["calls"] for r in runs] == [3, 3, 1] and [len(r["all_seconds"]) for r in runs] == [3, 3, 1]
    # a run whose warm-up call was fast gets at least the fast reps (here every warm-up is fast)
    calls.clear()
    runs = pb.time_ours_interleaved("sssp", entries, Checker(), 50.0, lambda msg: None, fast=(60.0, 4))
    assert [r["calls"] for r in runs] == [4, 4, 4] and len(calls) == 3 + 12
    runs = pb.time_ours_interleaved("sssp", entries, Checker(), 50.0, lambda msg: None, fast=(0.0, 4))
    assert [r["calls"] for r in runs] == [3, 3, 1]
    # a run whose first timed call was slow gets at most the slow reps (here every call is slow)
    runs = pb.time_ours_interleaved("sssp", entries, Checker(), 50.0, lambda msg: None, slow=(0.0, 1))
    assert [r["calls"] for r in runs] == [1, 1, 1]
    # a slow warm-up (the hybrid builds its copies) but fast timed calls: the fast reps too
    warmed = set()

    def slow_warmup(name, lg, source, engine):
        if lg.name not in warmed:
            warmed.add(lg.name)
            time.sleep(0.02)
        return fake_call(name, lg, source, engine)

    monkeypatch.setattr(pb, "call", slow_warmup)
    runs = pb.time_ours_interleaved("sssp", entries, Checker(), 50.0, lambda msg: None, fast=(0.01, 5))
    assert [r["calls"] for r in runs] == [5, 5, 5]
    assert all(r["first_seconds"] >= 0.02 for r in runs)
    # calls whose spread is wide (here b's: 2 ms, then 20 ms, in turn) get the spread's reps, in turns
    # among themselves; steady ones (a's and c's, 10 ms each) keep theirs
    slow_calls = {"b": 0}

    def noisy(name, lg, source, engine):
        if lg.name == "b":
            slow_calls["b"] += 1
            time.sleep(0.020 if slow_calls["b"] % 2 else 0.002)
        else:
            time.sleep(0.010)
        return fake_call(name, lg, source, engine)

    monkeypatch.setattr(pb, "call", noisy)
    calls.clear()
    runs = pb.time_ours_interleaved("sssp", entries, Checker(), 50.0, lambda msg: None, fast=(1.0, 4),
                                    spread=(0.3, 8))
    assert [r["calls"] for r in runs] == [4, 8, 4]
    assert "interquartile range" in runs[1]["more_calls_because"] and "more_calls_because" not in runs[0]
    assert calls[3 + 12:] == ["b"] * 4
