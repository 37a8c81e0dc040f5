"""NetworkX's own tests of the dispatched functions, run with the graphferry backend (``NETWORKX_TEST_BACKEND``).

The quick subset of ``bench/networkx_tests.py`` (``QUICK_FILES``: the shortest-path,
component, DAG, tree, isolate, reciprocity and degree-centrality test files),
with NetworkX's test configuration sending every dispatchable call to the
backend and calls it declines back to NetworkX; graphferry runs from this
checkout, its entry points declared beside it. The full run and its per-function
counts are ``bench/networkx_tests.py`` (``bench/results/networkx-tests.json``).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

pytest.importorskip("networkx")

BENCH = Path(__file__).resolve().parents[2] / "bench" / "networkx_tests.py"


def _bench():
    spec = importlib.util.spec_from_file_location("networkx_tests_bench", BENCH)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_networkx_own_tests_pass_with_the_backend(tmp_path):
    bench = _bench()
    bench.install(tmp_path, from_source=True)
    results, _ = bench.run_tests(tmp_path, "graphferry", "graphferry", bench.QUICK_FILES)
    failed = {k: r["message"] for k, r in results.items() if r["outcome"] in ("failed", "error")}
    assert not failed
    ran = {f for r in results.values() if r["outcome"] == "passed" for f in r["graphferry"]}
    # the run went through graphferry, not only NetworkX's fallback
    assert {"all_pairs_dijkstra_path_length", "bidirectional_shortest_path", "has_path", "descendants", "is_forest",
            "number_of_isolates", "reciprocity", "degree_centrality"} <= ran, sorted(ran)
