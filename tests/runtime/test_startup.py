"""backend=auto: the start-up model (runtime/startup.py) and the figures it keeps.

The model is checked against its own formula's meaning (a run with no work never pays the
GPU's start-up; a large iterative run does), with figures given here, not read from a machine.
"""

from __future__ import annotations

import json

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import graphferry as gf
from graphferry.runtime import startup


@settings(max_examples=50, deadline=None)
@given(m=st.integers(1, 1 << 34), passes=st.floats(0, 100), cores=st.integers(1, 256),
       start=st.floats(0.01, 5.0))
def test_the_choice_is_the_cheaper_side_and_monotone_in_the_work(m, passes, cores, start):
    costs = startup.StartupCosts(cuda_start_seconds=start)
    edge_bytes = 4 * m
    choice = startup.choose_backend(m=m, edge_bytes=edge_bytes, passes=passes, cores=cores, costs=costs)
    gpu = start + edge_bytes / costs.upload_bandwidth + passes * m / costs.device_edge_rate
    cpu = passes * m / (costs.host_edge_rate_per_core * cores)
    assert choice == ("cuda" if gpu <= cpu else "cpu")
    if passes == 0:
        assert choice == "cpu"  # nothing to do: never pay the GPU's start-up
    if choice == "cuda":  # more passes over the same edges never turn it back to the CPU
        assert startup.choose_backend(m=m, edge_bytes=edge_bytes, passes=passes * 2 + 1, cores=cores,
                                      costs=costs) == "cuda"


def test_cuda_start_ups_are_kept_and_their_median_used(tmp_path, monkeypatch):
    monkeypatch.setenv("GRAPHFERRY_CACHE_DIR", str(tmp_path))
    assert startup.load_costs() == startup.StartupCosts()
    for s in (0.9, 0.2, 0.4, 5.0, 0.3):
        startup.note_cuda_start(s)
    costs = startup.load_costs()
    assert costs.cuda_start_seconds == 0.4 and len(costs.observed_cuda_starts) == 5
    for _ in range(2 * startup.KEEP):
        startup.note_cuda_start(0.1)
    assert startup.load_costs().cuda_start_seconds == 0.1
    assert len(json.loads(startup.startup_path().read_text())["observed_cuda_starts"]) == startup.KEEP
    startup.startup_path().write_text("{damaged")
    assert startup.load_costs() == startup.StartupCosts()


def test_work_passes_and_auto_without_a_gpu(monkeypatch):
    g = gf.Graph.from_edges([0, 1], [1, 2], n=4, directed=True)
    assert startup.work_passes("bfs", g, "3") == 0 and startup.work_passes("bfs", g, 0) == startup.EDGE_PASSES["bfs"]
    assert startup.work_passes("bfs", g, "no such vertex") == startup.EDGE_PASSES["bfs"]  # the run reports it
    assert startup.work_passes("wcc", g) == startup.EDGE_PASSES["wcc"]
    monkeypatch.setattr(startup, "gpu_likely", lambda: False)
    assert startup.resolve_auto(1 << 40, 4 << 40, 100) == "cpu"
    with gf.load(g, backend="auto", work_passes=0) as lg:
        assert lg.backend.name == "cpu"
        np.testing.assert_array_equal(gf.algorithms.bfs(lg, 0).levels, [0, 1, 2, -1])


def test_the_model_sends_a_run_with_no_work_to_the_cpu_even_where_a_gpu_is_seen(monkeypatch):
    monkeypatch.setattr(startup, "gpu_likely", lambda: True)
    assert startup.resolve_auto(1 << 30, 4 << 30, 0) == "cpu"
