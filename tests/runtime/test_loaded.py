"""The loaded graph: one placement reused by every algorithm call (CPU backend, simulated device arena).

Oracles are not our code: scipy.sparse.csgraph (BFS levels, shortest paths,
components) and a scipy power iteration (PageRank, itself checked against networkx). Results on a loaded graph must also equal
those on a plain Graph, engine by engine.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse.csgraph as csgraph

import graphferry as gf
from graphferry.algorithms.bfs import bfs
from graphferry.algorithms.pagerank import pagerank, pagerank_reference
from graphferry.algorithms.sssp import sssp
from graphferry.algorithms.wcc import wcc
from graphferry.engines.registry import PARTITION_ENGINES
from graphferry.scheduler.policy import device_engines
from graphferry.runtime import LoadedGraphClosedError
from graphferry.store import write_store

MOVING_ENGINES = list(PARTITION_ENGINES)


def random_graph(n=300, m=1500, directed=True, weighted=True, seed=3):
    rng = np.random.default_rng(seed)
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    w = rng.integers(1, 20, m).astype(np.float32) if weighted else None
    return gf.Graph.from_edges(src, dst, w, n=n, directed=directed, drop_self_loops=True, drop_duplicates=True)


def oracle_levels(g, s):
    d = csgraph.shortest_path(g.to_scipy(), method="D", unweighted=True, indices=s)
    return np.where(np.isinf(d), -1, d).astype(np.int64)


def oracle_components(g):
    _, lab = csgraph.connected_components(g.to_scipy(), directed=True, connection="weak")
    first = {}
    for v, c in enumerate(lab):
        first.setdefault(c, v)
    return np.array([first[c] for c in lab])


def run_all(target, opts):
    return {
        "bfs": bfs(target, 0, **opts).levels,
        "sssp": sssp(target, 0, **opts).distances,
        "wcc": wcc(target, **opts).labels,
        "pagerank": pagerank(target, **opts).ranks,
    }


@pytest.mark.parametrize("engine", MOVING_ENGINES)
def test_algorithms_on_one_handle_match_plain_graph_and_oracles(engine):
    g = random_graph()
    budget = None if engine in ("host", "resident") else 16 * 1024
    plain = run_all(g, {"backend": "cpu", "engine": engine, "budget": budget, "partition_bytes": 512})
    with gf.load(g, backend="cpu", budget=budget, partition_bytes=512) as lg:
        first = run_all(lg, {"engine": engine})
        again = run_all(lg, {"engine": engine})
    for name in plain:
        np.testing.assert_allclose(first[name], plain[name], rtol=1e-9, err_msg=name)
        np.testing.assert_allclose(again[name], plain[name], rtol=1e-9, err_msg=name)
    np.testing.assert_array_equal(first["bfs"], oracle_levels(g, 0))
    np.testing.assert_allclose(first["sssp"], csgraph.dijkstra(g.to_scipy(), indices=0), rtol=1e-6)
    np.testing.assert_array_equal(first["wcc"], oracle_components(g))
    # scipy power iteration (test_pagerank checks it against networkx); the delta form's bound
    assert np.abs(first["pagerank"] - pagerank_reference(g, 0.85)).sum() <= 4 * 0.85 / 0.15 * 1e-6


def test_resources_are_built_once():
    g = random_graph(directed=False, weighted=False)
    with gf.load(g, backend="cpu", budget=1 << 20, partition_bytes=512) as lg:
        bfs(lg, 0, engine="filter")
        after_first = dict(lg.stats)
        r = bfs(lg, 5, engine="filter")
        assert lg.stats == after_first  # nothing compiled, partitioned or built again
        assert after_first["programs_compiled"] == 1
        assert after_first["sides_built"] == 1 and after_first["engines_built"] == 1
        assert r.record.extra["loaded_graph"] is True
        assert r.record.setup_seconds < r.record.total_seconds
        wcc(lg, engine="filter")
        assert lg.stats["sides_built"] == 1  # another program, the same side and engine
        assert lg.stats["engines_built"] == 1
        assert lg.stats["programs_compiled"] == 2
        constants = lg.stats["constants_built"]
        for _ in range(2):
            wcc(lg, engine="filter")
            pagerank(lg, engine="filter")
        # pagerank's inverse degrees and in-degree shares (its warm start), once each
        assert lg.stats["constants_built"] == constants + 2


def test_facts_are_checked_once_per_handle():
    g = random_graph()
    with gf.load(g, backend="cpu") as lg:
        sssp(lg, 0)
        sssp(lg, 1)
        assert lg.stats["facts_computed"] == 1  # the weights' sign, read once
    bad = gf.Graph(g.offsets, g.indices, -g.weights, directed=True)
    with gf.load(bad, backend="cpu") as lg, pytest.raises(ValueError, match="negative"):
        sssp(lg, 0)


def test_resident_copy_moves_once_per_handle():
    g = random_graph(directed=False, weighted=False)
    with gf.load(g, backend="cpu", partition_bytes=512) as lg:
        first = bfs(lg, 0, engine="resident").record
        second = bfs(lg, 1, engine="resident").record
    assert first.bytes_h2d == g.m * 4  # the edge side once, in the first call
    assert second.bytes_h2d == 0
    plain = [bfs(g, 0, backend="cpu", engine="resident").record.bytes_h2d for _ in range(2)]
    assert plain == [g.m * 4, g.m * 4]  # a plain Graph gets a fresh placement per call


def test_engines_evicted_when_the_budget_is_short():
    g = random_graph(directed=False, weighted=False)
    budget = g.m * 4 + 1024  # room for the resident copy, or for filter's buffers, not both
    with gf.load(g, backend="cpu", budget=budget, partition_bytes=1024, pack_ids=False) as lg:
        a = bfs(lg, 0, engine="resident").levels
        b = bfs(lg, 0, engine="filter").levels
        c = bfs(lg, 0, engine="resident").levels
        assert lg.stats["engines_evicted"] >= 2
        assert lg.arena.used_bytes <= budget
    np.testing.assert_array_equal(a, oracle_levels(g, 0))
    np.testing.assert_array_equal(b, a)
    np.testing.assert_array_equal(c, a)


def test_closed_handle_refuses_use():
    g = random_graph()
    lg = gf.load(g, backend="cpu")
    bfs(lg, 0)
    lg.close()
    lg.close()  # idempotent
    with pytest.raises(LoadedGraphClosedError, match="closed; load the graph again"):
        bfs(lg, 0)
    with gf.load(g, backend="cpu") as lg2:
        pass
    with pytest.raises(LoadedGraphClosedError):
        wcc(lg2)


def test_placement_options_belong_to_the_handle():
    g = random_graph()
    with gf.load(g, backend="cpu", budget=1 << 20, partition_bytes=512) as lg:
        with pytest.raises(ValueError, match="device budget"):
            bfs(lg, 0, budget=1 << 16)
        with pytest.raises(ValueError, match="partitions of 512 bytes"):
            bfs(lg, 0, partition_bytes=1024)
        with pytest.raises(ValueError, match="loaded for backend 'cpu'"):
            bfs(lg, 0, backend="cuda")
        bfs(lg, 0, budget=1 << 20, partition_bytes=512, backend="cpu")  # the same values are fine


def test_load_store_reads_edges_into_memory(tmp_path):
    g = random_graph()
    write_store(g, tmp_path / "g")
    with gf.load(tmp_path / "g", backend="cpu") as lg:
        assert lg.placement["indices"] == "host memory (read from the store)"
        assert not isinstance(lg.indices, np.memmap)
        np.testing.assert_array_equal(lg.indices, g.indices)
        np.testing.assert_array_equal(lg.weights, g.weights)
        assert lg.load_seconds > 0
        np.testing.assert_array_equal(bfs(lg, 0).levels, oracle_levels(g, 0))
        np.testing.assert_allclose(sssp(lg, 0).distances, csgraph.dijkstra(g.to_scipy(), indices=0), rtol=1e-6)


def test_loaded_graph_reads_like_its_graph():
    g = random_graph()
    with gf.load(g, backend="cpu") as lg:
        assert (lg.n, lg.m, lg.directed, lg.weighted) == (g.n, g.m, g.directed, g.weighted)
        np.testing.assert_array_equal(lg.out_degree, g.out_degree)
        assert lg.to_internal_id(7) == 7
        r = bfs(lg, 0)
        assert r.vertices.tolist() == list(range(g.n))


@pytest.mark.gpu
@pytest.mark.parametrize("engine", device_engines())
def test_cuda_loaded_graph_is_pinned_and_matches_plain_graph(engine):
    g = random_graph(n=2000, m=20000)
    budget = None if engine == "resident" else 64 * 1024
    plain = run_all(g, {"backend": "cuda", "engine": engine, "budget": budget, "partition_bytes": 4096})
    with gf.load(g, backend="cuda", budget=budget, partition_bytes=4096) as lg:
        first = run_all(lg, {"engine": engine})
        # the pinned copy waits for an engine that reads host memory again and again
        pinned = lg.backend.registry.covers(int(lg.indices.ctypes.data), lg.indices.nbytes)
        assert pinned == (engine != "resident")
        assert (lg.placement["indices"] == "pinned (cudaHostAlloc)") == pinned
        built = dict(lg.stats)
        again = run_all(lg, {"engine": engine})
        assert lg.stats == built
    for name in plain:
        np.testing.assert_allclose(first[name], plain[name], rtol=1e-9, err_msg=name)
        np.testing.assert_allclose(again[name], plain[name], rtol=1e-9, err_msg=name)
    np.testing.assert_array_equal(first["bfs"], oracle_levels(g, 0))
    np.testing.assert_array_equal(first["wcc"], oracle_components(g))


def test_cli_run_loads_the_graph_once_and_reports_load_time(tmp_path):
    import json

    from typer.testing import CliRunner

    from graphferry.cli import app

    g = random_graph()
    write_store(g, tmp_path / "g")
    r = CliRunner().invoke(app, ["run", "bfs", str(tmp_path / "g"), "--source", "0", "--backend", "cpu",
                                 "--json", "--record", str(tmp_path / "rec.json")])
    assert r.exit_code == 0, r.output
    summary = json.loads(r.stdout)
    assert summary["load_seconds"] > 0
    assert summary["end_to_end_seconds"] >= summary["seconds"] + summary["load_seconds"] - 1e-9
    rec = json.loads((tmp_path / "rec.json").read_text())
    assert rec["extra"]["loaded_graph"] is True and rec["extra"]["load_seconds"] == summary["load_seconds"]
