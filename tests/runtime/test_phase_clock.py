"""The phase clock (graphferry.phase_clock) and the one-shot record's phases built on it (issue 34)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np

from graphferry import phase_clock
from graphferry.graph import Graph
from graphferry.store import write_store

SRC = Path(__file__).resolve().parents[2] / "src"


def test_nested_phases_count_exclusively_and_add_up_to_the_wall():
    phase_clock.reset()
    t = time.perf_counter()
    with phase_clock.phase("outer"):
        time.sleep(0.05)
        with phase_clock.phase("inner"):
            time.sleep(0.1)
        time.sleep(0.05)
    wall = time.perf_counter() - t
    s = phase_clock.seconds()
    assert 0.09 <= s["inner"] <= wall
    assert 0.09 <= s["outer"] < wall - 0.09       # the inner phase's time is not the outer's
    assert s["inner"] + s["outer"] <= wall + 1e-6


def test_other_threads_count_apart():
    phase_clock.reset()

    def work():
        with phase_clock.phase("compile"):
            time.sleep(0.05)
    th = threading.Thread(target=work)
    th.start()
    th.join()
    assert "compile" not in phase_clock.seconds()
    assert phase_clock.background_seconds()["compile"] >= 0.04


def test_a_phase_that_raises_still_counts():
    phase_clock.reset()
    try:
        with phase_clock.phase("upload"):
            raise ValueError("x")
    except ValueError:
        pass
    assert "upload" in phase_clock.seconds()
    with phase_clock.phase("next"):  # the stack is empty again: no outer phase is charged
        pass
    assert set(phase_clock.seconds()) == {"upload", "next"}


def test_a_fresh_hybrid_one_shot_names_its_calibration_and_compilation(tmp_path):
    """On a fresh machine (empty caches) the hybrid's calibration and the programs' compilation
    are their own phases, not the algorithm's; the main thread's phases fit in the process's wall."""
    rng = np.random.default_rng(3)
    store = tmp_path / "g.store"
    write_store(Graph.from_edges(rng.integers(0, 200, 1500), rng.integers(0, 200, 1500), n=200, directed=False),
                store)
    record = tmp_path / "r.json"
    env = dict(os.environ, PYTHONPATH=str(SRC), OMP_NUM_THREADS="2", GRAPHFERRY_CACHE_DIR=str(tmp_path / "cache"))
    t = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "graphferry", "run", "bfs", str(store), "--source", "0",
                           "--backend", "cpu", "--engine", "hybrid", "--out", str(tmp_path / "x.npy"),
                           # a budget below the edges' 12 kB: one that holds them all is the resident
                           # engine's run (HybridEngine.whole_side_engine), which needs no calibration
                           "--budget", "4000",
                           "--record", str(record)], capture_output=True, text=True, timeout=600, env=env)
    wall = time.perf_counter() - t
    assert proc.returncode == 0, proc.stderr
    phases = json.loads(record.read_text())["extra"]["phases"]
    assert phases["calibration"] > 0 and phases["compile"] > 0
    assert sum(phases.values()) <= wall
    order = list(phases)
    assert order.index("imports") < order.index("compile") < order.index("algorithm") < order.index("write")
