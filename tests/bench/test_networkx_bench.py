"""bench/networkx_bench.py runs end to end on a tiny graph: NetworkX's calls in forked workers give
the same verified rows as calls in the main process, and a deadline that has passed skips them."""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import networkx_bench  # noqa: E402

FUNCTIONS = ["pagerank", "triangles", "weakly_connected_components", "k_truss"]


def run(tmp_path: Path, *extra: str) -> dict:
    out = tmp_path / f"nx{len(list(tmp_path.iterdir()))}.json"
    networkx_bench.main(["--backend", "cpu", "--nodes", "300", "--edges", "1200", "--repeat", "1",
                         "--functions", *FUNCTIONS, "--out", str(out), *extra])
    return json.loads(out.read_text())


def test_networkx_in_workers_gives_the_rows_networkx_here_gives(tmp_path):
    here = run(tmp_path)
    # a deadline bounds the wait for the workers' answers: a worker that dies leaves its task pending
    # forever in multiprocessing's pool (one run hung under xdist), and the test must fail, not hang
    workers = run(tmp_path, "--nx-workers", "2", "--deadline-s", "600")
    assert workers["machine"]["networkx_workers"] == 2 and "networkx_workers_how" in workers["machine"]
    for doc in (here, workers):
        assert [r["algorithm"] for r in doc["runs"]] == FUNCTIONS
        assert all(r["verified"] for r in doc["runs"]) and not doc["skipped"]
        assert all(r["networkx_seconds"] > 0 for r in doc["runs"])


def test_a_passed_deadline_skips_every_function_and_stops_the_workers(tmp_path):
    doc = run(tmp_path, "--nx-workers", "2", "--deadline-s", "0")
    assert doc["runs"] == [] and [s["function"] for s in doc["skipped"]] == FUNCTIONS
