"""dev/networkx_table.py: the README's NetworkX-on-the-GPU table is generated from a results file.

Not a staleness check (the device's results file is committed by whoever runs the
device call, after which ``python dev/networkx_table.py --write`` regenerates the
table): the generator must read every such file, and the README must hold the section.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _table():
    spec = importlib.util.spec_from_file_location("networkx_table", ROOT / "dev" / "networkx_table.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_readme_holds_the_generated_section():
    t = _table()
    text = (ROOT / "README.md").read_text()
    assert t.BEGIN in text and t.END in text


def test_a_results_file_becomes_rows_beside_the_published_figures(tmp_path, monkeypatch):
    t = _table()
    published = json.loads((ROOT / "bench" / "data" / "nx-cugraph-published.json").read_text())
    doc = {"date": "2026-11-29T08:00:00Z", "commit": "0" * 40, "dirty": False, "command": "python bench/x.py",
           "machine": {"device": "NVIDIA H200", "host_cores": 16},
           "graph": {"n": 262111, "m": 1234877},
           "nx_cugraph_published": {k: published[k] for k in ("source", "their_machine", "dataset", "note")},
           "runs": [{"algorithm": "pagerank", "networkx_seconds": 3.0, "graphferry_cold_seconds": 0.02,
                     "graphferry_warm_seconds": 0.01, "speedup_cold": 150.0, "speedup_warm": 300.0,
                     "verified": True, "nx_cugraph_published": {"dataset": "amazon0302",
                                                                **published["algorithms"]["pagerank"]}},
                    {"algorithm": "bfs_edges", "networkx_seconds": 1.0, "graphferry_cold_seconds": 0.5,
                     "graphferry_warm_seconds": 0.4, "speedup_cold": 2.0, "speedup_warm": 2.5,
                     "verified": False, "nx_cugraph_published": None}],
           "skipped": [{"function": "louvain_communities", "why": "not dispatched"}]}
    (tmp_path / "networkx-nxcugraph-h200.json").write_text(json.dumps(doc))
    monkeypatch.setattr(t, "RESULTS", tmp_path)
    body = t.section()
    assert "| pagerank | 3.00 s | 20.0 ms | 10.0 ms | 150x / 300x | 76.288x | yes / yes |" in body
    assert "| bfs_edges (answer differed) |" in body and "louvain_communities (not dispatched)" in body
