"""bench/sssp_delta_bench.py on tiny graphs: every width it times gives scipy's distances."""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import sssp_delta_bench  # noqa: E402


def test_every_width_is_checked_against_dijkstra(tmp_path, monkeypatch):
    monkeypatch.setenv("OMP_NUM_THREADS", "1")   # the script sets it; restored after the test
    out = tmp_path / "delta.json"
    assert sssp_delta_bench.main(["--threads", "1", "--kron-scale", "8", "--grid-side", "30", "--reps", "1",
                                  "--factors", "0.5", "1", "4", "--out", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert [g["name"] for g in doc["graphs"]] == ["kron8", "grid30"]
    runs = [r for r in doc["runs"] if r["engine"] == "cpu"]
    assert len(runs) == 6 and all(r["verified"] for r in runs)
    assert all(r["rounds"] > 0 and r["edges_per_arc"] > 0 for r in runs)
