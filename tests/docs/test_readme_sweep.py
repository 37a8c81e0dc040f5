"""README's "Time against the device budget" is what dev/sweep_figure.py makes of the file it names."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "dev"))


def test_readme_budget_sweep_section_is_up_to_date():
    p = subprocess.run([sys.executable, str(ROOT / "dev" / "sweep_figure.py"), "--check"],
                       capture_output=True, text=True, cwd=ROOT)
    assert p.returncode == 0, p.stderr


def run(engine, algorithm, fraction, seconds, **extra):
    return {"engine": engine, "algorithm": algorithm, "budget_fraction": fraction, "seconds": seconds,
            "verified": True, **extra}


def test_each_cell_is_the_files_hybrid_and_fastest_single_engine_there(tmp_path):
    import sweep_figure

    doc = {"graph": {"name": "kron9", "n": 512, "m": 9000}, "machine": {"device": "d", "host_cores": 2},
           "commit": "abcdef0123", "budget_fractions": [0.1, 0.5, 1.0], "runs": [
               run("hybrid", "bfs", 0.1, 0.030), run("hybrid", "bfs", 0.5, 0.020), run("hybrid", "bfs", 1.0, 0.012),
               run("zerocopy", "bfs", 0.1, 0.025, holds_for_budget_fractions=[0.1, 0.5, 1.0]),
               # resident: measured at 1.0, fits from 0.5: the fastest there, not at 10%
               run("resident", "bfs", 1.0, 0.010, fits_from_budget_fraction=0.45),
               run("filter", "bfs", 0.1, 0.001, verified=False),  # unchecked: never the best
               {"engine": "peer:gapbs", "algorithm": "bfs", "seconds": 0.2, "verified": True}]}
    path = tmp_path / "budget-sweep-kron9.json"
    path.write_text(json.dumps(doc))
    row = next(line for line in sweep_figure.render(path).splitlines() if line.startswith("| BFS |"))
    cells = [c.strip() for c in row.strip("|").split("|")][1:]
    assert cells == ["30.0 / 25.0 zerocopy (1.20x)", "20.0 / 10.0 resident (2.00x)",
                     "12.0 / 10.0 resident (1.20x)"]
