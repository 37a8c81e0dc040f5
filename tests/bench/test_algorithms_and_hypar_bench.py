"""The issue-11 benchmarks' own checks hold against networkx and reject wrong answers, and both
scripts run end to end on tiny graphs with every answer verified (the GPU plans played by the CPU
backend through a simulated device arena, as CI has no GPU)."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import algorithms_bench  # noqa: E402
import hypar_bench  # noqa: E402


@pytest.fixture(scope="module")
def kron9():
    from graphferry.generators import kronecker_graph
    from graphferry.transforms import simple_graph

    return simple_graph(kronecker_graph(9, seed=1), undirected=True)


def test_numpy_brandes_equals_networkx_sampled_betweenness(kron9):
    import networkx as nx

    g = kron9
    G = algorithms_bench.to_networkx(g)
    for k in (1, 3):
        sources = random.Random(7).sample(range(g.n), k)
        ours = algorithms_bench.networkx_scaled(algorithms_bench.brandes_sources(g, sources), sources, g.n)
        want = nx.betweenness_centrality(G, k=k, normalized=False, seed=7)   # samples the same sources
        want = np.array([want[v] for v in range(g.n)])
        keep = np.isfinite(ours)            # k = 1: networkx's scale at the source itself is undefined
        assert algorithms_bench.same(ours[keep], want[keep])
        wrong = ours.copy()
        wrong[np.flatnonzero(keep & (ours > 0))[0]] *= 1 + 1e-5
        assert not algorithms_bench.same(wrong[keep], want[keep])


def test_modularity_equals_networkx(kron9):
    import networkx as nx

    g = kron9
    G = algorithms_bench.to_networkx(g)
    labels = np.random.default_rng(0).integers(0, 7, g.n)
    groups = [set(np.flatnonzero(labels == c).tolist()) for c in np.unique(labels)]
    assert np.isclose(algorithms_bench.modularity(g, labels), nx.community.modularity(G, groups))


def test_executor_specs():
    spec = hypar_bench.ExecutorSpec("cuda:budget=0.25")
    assert (spec.backend, spec.engine, spec.budget) == ("cuda", "hybrid", 0.25)
    spec = hypar_bench.ExecutorSpec("cpu:budget=0.5:engine=compaction:partition=0.125")
    assert (spec.engine, spec.partition) == ("compaction", 0.125)
    assert hypar_bench.ExecutorSpec("cpu:sim").sim
    for bad in ("tpu", "cuda:budget=x", "cuda:speed=2", "cuda:budget=-1"):
        with pytest.raises(SystemExit):
            hypar_bench.ExecutorSpec(bad)


def _argv(monkeypatch, script, *args):
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    monkeypatch.setenv("OMP_WAIT_POLICY", "passive")
    monkeypatch.setattr(sys, "argv", [script, *args])


@pytest.mark.slow  # a whole benchmark run: 14 s on 2 cores
def test_algorithms_bench_runs_every_plan_verified(tmp_path, monkeypatch, capsys):
    out = tmp_path / "alg.json"
    _argv(monkeypatch, "algorithms_bench.py", "--scale", "8", "--exact-scale", "6", "--threads", "1", "--repeat", "1",
          "--bc-sources", "4", "--backends", "cpu", "cuda", "--device-backend", "cpu", "--out", str(out))
    algorithms_bench.main()
    runs = json.loads(out.read_text())["runs"]
    ours = [r for r in runs if not r["engine"].startswith("peer:")]
    assert {r["engine"].split(":")[0] for r in ours} == {"cpu", "cpu-sim"}
    assert {"cpu-sim:resident", "cpu-sim:hybrid"} <= {r["engine"] for r in ours}
    assert {r["algorithm"] for r in ours} >= {"betweenness", "triangle_count", "wcc", "coloring", "communities"}
    assert all(r["verified"] for r in ours if r["algorithm"] != "betweenness_exact"), \
        [(r["algorithm"], r["engine"], r["verified_how"]) for r in ours if not r["verified"]]
    _argv(monkeypatch, "algorithms_bench.py", "--backends", "cpu", "cuda", "--dry-run")
    algorithms_bench.main()
    assert "plan hybrid" in capsys.readouterr().out


@pytest.mark.slow  # a whole benchmark run: 22 s on 2 cores
def test_hypar_bench_runs_every_plan_verified(tmp_path, monkeypatch, capsys):
    out = tmp_path / "hypar.json"
    _argv(monkeypatch, "hypar_bench.py", "--scales", "7", "8", "--executors", "cpu", "cpu:sim", "--repeat", "1",
          "--threads", "1", "--budgeted", "cpu:budget=0.25:engine=compaction:partition=0.125",
          "--budgeted-on", "kron8", "--out", str(out))
    hypar_bench.main()
    doc = json.loads(out.read_text())
    runs = [r for r in doc["runs"] if not r["engine"].startswith("peer:")]
    assert {g["name"] for g in doc["graphs"]} == {"kron7", "kron8"}
    assert all(r["verified"] for r in runs), [(r["graph"], r["algorithm"], r["engine"]) for r in runs
                                              if not r["verified"]]
    budgeted = {r["graph"] for r in runs if "budget=" in r["engine"]}
    assert budgeted == {"kron8"}
    # HyPar as the planner runs it (what ran and why), the always-split HyPar, each executor alone, BSP
    ways = {(r["graph"], r["algorithm"], r["engine"]) for r in runs}
    for graph in ("kron7", "kron8"):
        for app in hypar_bench.APPS:
            assert {(graph, app, e) for e in ("hypar", "split", "only:cpu", "only:cpu:sim", "bsp")} <= ways
    planned = [r for r in runs if r["engine"] == "hypar"]
    assert all(r["plan"]["chosen"] in ("split", "cpu", "cpu:sim") and r["plan"]["why"] for r in planned)
    assert all(r["first_seconds"] > 0 and set(r["phases"]) == set(hypar_bench.PHASES) for r in planned)
    assert {(g["algorithm"], g["engine"]) for g in doc["geomeans"]} >= {(a, w) for a in hypar_bench.APPS
                                                                      for w in ("hypar", "split")}
    out = capsys.readouterr().out
    assert "summary kron8 mst" in out and "best single / hypar" in out and "best single / split" in out
    _argv(monkeypatch, "hypar_bench.py", "--scales", "22", "--executors", "cpu", "cuda", "--budgeted",
          "cuda:budget=0.25", "--dry-run")
    hypar_bench.main()
    assert "plan only:cuda:budget=0.25" in capsys.readouterr().out
