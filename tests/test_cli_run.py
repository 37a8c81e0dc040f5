"""`graphferry run` and the demo's algorithm steps, through typer's CliRunner."""

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from graphferry.cli import app
from graphferry.generators import kronecker_graph
from graphferry.store import write_store

runner = CliRunner()


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    path = tmp_path_factory.mktemp("run") / "k8.store"
    write_store(kronecker_graph(8, seed=3), path)
    return path


def test_run_bfs_writes_levels_matching_the_library(store, tmp_path):
    from graphferry.algorithms import bfs
    from graphferry.store import open_store

    out = tmp_path / "levels.npy"
    r = runner.invoke(app, ["run", "bfs", str(store), "--source", "3", "--out", str(out), "--backend", "cpu",
                            "--engine", "compaction", "--budget", "64KiB", "--partition-bytes", "4KiB"])
    assert r.exit_code == 0, r.output
    table = np.load(out)
    want = bfs(open_store(store), 3, backend="cpu").levels
    assert np.array_equal(table["levels"], want)
    assert np.array_equal(table["vertex"], np.arange(len(want)))


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_run_pagerank_ldbc_tables(store, tmp_path, suffix):
    out = tmp_path / f"pr{suffix}"
    r = runner.invoke(app, ["run", "pagerank_ldbc", str(store), "--damping", "0.85", "--iterations", "5",
                            "--out", str(out), "--backend", "cpu", "--json"])
    assert r.exit_code == 0, r.output
    summary = json.loads(r.stdout)
    assert summary["iterations"] == 5 and abs(summary["values"]["ranks"]["sum"] - 1) < 1e-9
    assert out.exists() and out.stat().st_size > 0


def test_run_record_is_json(store, tmp_path):
    rec = tmp_path / "rec.json"
    r = runner.invoke(app, ["run", "wcc", str(store), "--backend", "cpu", "--record", str(rec)])
    assert r.exit_code == 0, r.output
    data = json.loads(rec.read_text())
    assert data["algorithm"] == "wcc" and data["steps"]


@pytest.mark.parametrize("args, message", [
    (["run", "bfs", "{store}"], "bfs needs --source"),
    (["run", "wcc", "{store}", "--damping", "0.5"], "--damping does not apply to wcc"),
    (["run", "bfs", "{store}", "--source", "100000"], "--source 100000"),
    (["run", "nosuch", "{store}"], "unknown algorithm 'nosuch'"),
    (["run", "bfs", "{store}", "--source", "1", "--out", "x.txt"], "unsupported file type .txt"),
    (["run", "bfs", "missing.store", "--source", "1"], "missing.store: no such file"),
])
def test_run_errors_are_one_line(store, args, message):
    r = runner.invoke(app, [a.replace("{store}", str(store)) for a in args])
    assert r.exit_code != 0
    assert message in r.stderr and "Traceback" not in r.output + r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


def test_demo_runs_pagerank_and_bfs():
    r = runner.invoke(app, ["demo", "--scale", "8", "--json", "--backend", "cpu"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert data["bfs"]["values"]["levels"]["reached"] > 1
    assert abs(data["pagerank"]["values"]["ranks"]["sum"] - 1) < 1e-6
