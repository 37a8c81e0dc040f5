"""Several ranks (Lux): ``mpiexec -n 2, 4, 8`` CPU ranks give one process's results; failures end the run.

The rank programs live in tests/distributed/ and are started with ``mpiexec``
(from the ``mpich`` wheel); the tests skip when mpi4py or mpiexec is missing.
Oracles: one process running the same algorithm (itself checked against
NetworkX/SciPy by the algorithm tests) and each algorithm's own verifier.
"""

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from graphferry.distributed import DistributedGraph, balanced_splits, interpolate_splits, local_world
from graphferry.distributed.placement import Repartitioner, moved_edges, work_prefix
from graphferry.generators import kronecker_graph
from graphferry.store import write_store

HERE = Path(__file__).parent
SRC = Path(__file__).parents[2] / "src"
# the mpich wheel puts mpiexec beside the interpreter; a venv's bin need not be on PATH
_BESIDE = Path(sys.executable).parent / "mpiexec"
MPIEXEC = str(_BESIDE) if _BESIDE.exists() else shutil.which("mpiexec")
needs_mpi = pytest.mark.skipif(importlib.util.find_spec("mpi4py") is None or MPIEXEC is None,
                               reason="needs mpi4py and mpiexec (pip install 'graphferry[mpi]')")


def mpiexec(ranks: int, script: str, *args, timeout: float = 240, **extra_env) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(SRC) + os.pathsep + os.environ.get("PYTHONPATH", ""),
               OMP_NUM_THREADS="1", **extra_env)
    return subprocess.run([MPIEXEC, "-n", str(ranks), sys.executable, str(HERE / script), *map(str, args)],
                          capture_output=True, text=True, timeout=timeout, env=env)


@pytest.fixture(scope="module")
def stores(tmp_path_factory):
    root = tmp_path_factory.mktemp("stores")
    out = {}
    for name, directed in (("directed", True), ("undirected", False)):
        g = kronecker_graph(8, 8, seed=3, weighted=True, directed=directed)
        out[name] = write_store(g, root / name) and root / name
    return out


# more ranks than the 2 cores of CI's machine: 15-35 s of CPU each (MPI's waits poll), so marked slow
# (CI's second step runs them); two ranks run by default
_MANY_RANKS = pytest.mark.slow


@needs_mpi
@pytest.mark.parametrize("ranks,kind,algorithms", [
    (2, "directed", None), (2, "undirected", None),
    pytest.param(4, "directed", None, marks=_MANY_RANKS), pytest.param(4, "undirected", None, marks=_MANY_RANKS),
    pytest.param(8, "undirected", "bfs,sssp,pagerank,pagerank_ldbc,wcc,cdlp",  # issue 13: more than four ranks
                 marks=_MANY_RANKS),
])
def test_ranks_give_one_process_results(stores, tmp_path, ranks, kind, algorithms):
    out = tmp_path / "report.json"
    args = [out, stores[kind]] + ([algorithms] if algorithms else [])
    done = mpiexec(ranks, "rank_compare.py", *args)
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(out.read_text())
    if algorithms is None:
        from graphferry.algorithms import registry
        assert sorted(report) == sorted(registry.names())
    for name, entry in report.items():
        assert entry["differences"] == [], (name, entry)
        assert entry["ranks"] == ranks and entry["devices"] == ranks
        splits = entry["splits"]
        assert len(splits) == ranks + 1 and splits[0] == 0 and splits == sorted(splits)
    # the test graphs leave vertices without edges: pull exchanges sent the rows with edges only
    assert report["pagerank"]["packed_exchanges"] > 0, report["pagerank"]


def gpu_count() -> int:
    try:
        import cupy

        return int(cupy.cuda.runtime.getDeviceCount())
    except Exception:  # noqa: BLE001 - no CuPy, no driver
        return 0


@pytest.mark.gpu
@needs_mpi
@pytest.mark.parametrize("kind", ["directed", "undirected"])
def test_gpu_ranks_give_one_process_results(stores, tmp_path, kind):
    # one GPU per rank, the state exchanged by NCCL (grouped broadcasts or a padded allgather,
    # packed pull rows, update sets, the gathered OR): the CPU backend's single-process answers
    ranks = min(gpu_count(), 4)
    if ranks < 2:
        pytest.skip("needs two GPUs")
    out = tmp_path / "report.json"
    done = mpiexec(ranks, "rank_compare.py", out, stores[kind], "bfs,sssp,pagerank,pagerank_ldbc,wcc,cdlp,betweenness",
                   GF_RANK_BACKEND="cuda")
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(out.read_text())
    for name, entry in report.items():
        assert entry["differences"] == [], (name, entry)
        assert entry["devices"] == ranks
    assert report["pagerank"]["packed_exchanges"] > 0


@needs_mpi
@pytest.mark.parametrize("ranks,kind,chunks", [(2, "directed", 3), (4, "undirected", 4),
                                               pytest.param(3, "undirected", 64, marks=_MANY_RANKS)])
def test_pulls_in_chunks_give_one_process_results(stores, tmp_path, ranks, kind, chunks):
    # each chunk of rows computed, then its packed rows gathered (on GPUs: beside the next chunk's
    # compute); more chunks than some ranks have rows leaves empty chunks; SSSP after PageRank pulls
    # the same rows with weights (the unweighted sub-views must not serve it)
    out = tmp_path / "report.json"
    done = mpiexec(ranks, "rank_compare.py", out, stores[kind], "pagerank,pagerank_ldbc,sssp,cdlp,bfs",
                   GF_PIPELINE_CHUNKS=str(chunks))
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(out.read_text())
    for name, entry in report.items():
        assert entry["differences"] == [], (name, entry)
    assert report["pagerank_ldbc"]["packed_exchanges"] == 10 * chunks  # each chunk of its 10 pulls


@needs_mpi
def test_weighted_pulls_in_chunks_after_unweighted_ones(stores, tmp_path):
    # PageRank's pulls cut the rows into chunks of its (unweighted) view; SSSP's pulls on the same
    # rows need their own, weighted, sub-views (on 4 H200s the reused ones made distances wrong)
    out = tmp_path / "report.json"
    done = mpiexec(2, "rank_compare.py", out, stores["undirected"], "pagerank_ldbc,sssp",
                   GF_PIPELINE_CHUNKS="3", GF_DIRECTION="pull")
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(out.read_text())
    for name, entry in report.items():
        assert entry["differences"] == [], (name, entry)
    assert report["sssp"]["packed_exchanges"] > 0  # its pulls did run in chunks


@needs_mpi
def test_chunk_count_measured_and_chosen_alike_on_every_rank(stores, tmp_path):
    out = tmp_path / "report.json"
    done = mpiexec(2, "rank_compare.py", out, stores["undirected"], "pagerank_ldbc,pagerank", GF_PIPELINE_CHUNKS="auto")
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(out.read_text())
    for name, entry in report.items():
        assert entry["differences"] == [], (name, entry)
    choices = report["pagerank_ldbc"]["pipeline_choices"]
    assert choices and choices[0]["chunks"] in (1, 3) and set(choices[0]["seconds"]) == {"1", "3"}


@needs_mpi
@pytest.mark.parametrize("ranks,kind", [(2, "directed"), (2, "undirected"), (4, "undirected")])
def test_update_set_exchanges_give_one_process_results(stores, tmp_path, ranks, kind):
    # every push exchange of BFS and SSSP sends the changed vertices only (share 1: always sparse)
    out = tmp_path / "report.json"
    done = mpiexec(ranks, "rank_compare.py", out, stores[kind], "bfs,sssp", 1.0)
    assert done.returncode == 0, done.stderr[-3000:]
    for name, entry in json.loads(out.read_text()).items():
        assert entry["differences"] == [], (name, entry)
        assert entry["sparse_exchanges"] > 0, (name, entry)


@needs_mpi
def test_a_failing_rank_ends_the_run_with_its_message(stores, tmp_path):
    done = mpiexec(2, "rank_scripts.py", "fail", tmp_path / "x.json", stores["directed"], timeout=60)
    assert done.returncode != 0
    assert "rank 1 of 2 failed: RuntimeError: injected failure on rank 1" in done.stderr


@needs_mpi
def test_a_slow_rank_gives_up_vertices(stores, tmp_path):
    out = tmp_path / "splits.json"
    done = mpiexec(2, "rank_scripts.py", "repartition", out, stores["undirected"])
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(out.read_text())
    in_offsets = np.array(report["in_offsets"])
    first, last = report["splits"][0], report["splits"][-1]
    share = lambda s: (in_offsets[s[2]] - in_offsets[s[1]]) / in_offsets[-1]  # noqa: E731 - rank 1's edges
    assert report["repartitions"], "no repartitioning happened"
    assert share(last) < share(first) - 0.1, (first, last)


# ------------------------------------------------------------------ without MPI
def test_balanced_splits_balance_in_edges():
    g = kronecker_graph(9, 8, seed=1, directed=True)
    t = g.transpose()
    splits = balanced_splits(work_prefix(t.offsets), 4)
    work = np.diff(work_prefix(t.offsets)[splits])
    assert work.max() - work.min() <= 2 * (g.in_degree.max() + 1)


def test_interpolated_splits_follow_observed_times():
    prefix = work_prefix(np.arange(0, 1001, 10))  # 100 vertices, 10 in-edges each
    old = balanced_splits(prefix, 4)
    new = interpolate_splits(prefix, old, np.array([1.0, 1.0, 1.0, 5.0]), 4)
    assert new[0] == 0 and new[-1] == 100 and list(new) == sorted(new)
    assert new[3] - new[2] < old[3] - old[2] and new[4] - new[3] < old[4] - old[3]
    # equal times keep the split points
    assert interpolate_splits(prefix, old, np.ones(4), 4).tolist() == old.tolist()


def test_repartitioning_only_when_gain_beats_cost():
    offsets = np.arange(0, 1001, 10)
    splits = balanced_splits(work_prefix(offsets), 2)
    cheap = Repartitioner(alpha=0.1, node_of=[0, 0], bytes_per_edge=4, local_bytes_per_second=1e9)
    assert cheap.propose(offsets, splits, [1.0, 3.0]) is not None
    dear = Repartitioner(alpha=0.1, node_of=[0, 0], bytes_per_edge=4, local_bytes_per_second=1.0)
    assert dear.propose(offsets, splits, [1.0, 3.0]) is None
    assert moved_edges(offsets, np.array([0, 50, 100]), np.array([0, 40, 100])) == 100


def test_one_rank_world_runs_the_algorithms_unchanged():
    from graphferry.algorithms import bfs, pagerank

    g = kronecker_graph(8, 8, seed=2, directed=True)
    dg = DistributedGraph(g, local_world(), backend="cpu")
    assert np.array_equal(bfs(dg, 0).levels, bfs(g, 0, backend="cpu").levels)
    r = pagerank(dg)
    assert np.allclose(r.values["ranks"] if "ranks" in r.values else list(r.values.values())[0],
                       list(pagerank(g, backend="cpu").values.values())[0])
    assert r.record.extra["ranks"] == 1 and r.record.extra["devices"] == 1


@needs_mpi
def test_cli_under_mpiexec_says_ranks_and_devices(stores, tmp_path):
    env = dict(os.environ, PYTHONPATH=str(SRC), OMP_NUM_THREADS="1")
    rec = tmp_path / "record.json"
    done = subprocess.run([MPIEXEC, "-n", "2", sys.executable, "-m", "graphferry", "run", "bfs",
                           str(stores["directed"]), "--source", "0", "--record", str(rec)],
                          capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "on 2 ranks, 2 devices" in done.stdout
    extra = json.loads(rec.read_text())["extra"]
    assert extra["ranks"] == 2 and extra["devices"] == 2


def test_model_fit_recovers_its_constants_and_chooses_the_fastest():
    from graphferry.distributed.model import PerformanceModel, received_bytes

    truth = PerformanceModel(gamma_load=0.0, gamma_pull=2e-9, gamma_push=5e-9, gamma_xfer=1e-9,
                             xfer_latency=2e-5, units=8, step_latency=1e-4)
    obs = []
    for n, m in ((1 << 12, 1 << 16), (1 << 14, 1 << 18)):
        for ranks in (1, 2, 4, 8):
            for direction in ("pull", "push"):
                total = truth.predict(direction, edges=m, n=n, vertex_bytes=8, ranks=ranks)
                xfer = truth.transfer(n=n, vertex_bytes=8, ranks=ranks, direction=direction)
                obs.append({"direction": direction, "edges": m, "ranks": ranks, "compute": total - xfer,
                            "exchange": xfer, "received_bytes": received_bytes(direction, n=n, vertex_bytes=8,
                                                                               ranks=ranks)})
    fitted = PerformanceModel.fit(obs, units=8)
    for key in ("gamma_pull", "gamma_push", "gamma_xfer", "xfer_latency", "step_latency"):
        assert getattr(fitted, key) == pytest.approx(getattr(truth, key), rel=1e-6)
    direction, ranks, _ = fitted.choose(edges=1 << 24, n=1 << 14, vertex_bytes=8, candidates=[1, 2, 4, 8])
    assert (direction, ranks) == ("pull", 8)  # compute dominates: all devices, pull's cheaper edges


def test_model_fit_recovers_a_per_edge_rate_growing_with_the_vertex_count():
    # push slower per edge on larger graphs (scattered atomics): fitted on two sizes, the model
    # predicts a third, larger graph and picks pull there, although push was faster on the fit graphs
    from graphferry.distributed.model import PerformanceModel, received_bytes

    truth = PerformanceModel(gamma_load=0.0, gamma_pull=2.7e-11, gamma_push=-1.6e-10, gamma_xfer=3e-12,
                             xfer_latency=2e-4, units=4, step_latency=1.4e-4, gamma_push_log=8e-12)
    obs = []
    for scale in (23, 24):
        n, m = 1 << scale, 31 << scale
        for ranks in (1, 2, 4):
            for direction in ("pull", "push"):
                total = truth.predict(direction, edges=m, n=n, vertex_bytes=24, ranks=ranks)
                xfer = truth.transfer(n=n, vertex_bytes=24, ranks=ranks, direction=direction)
                obs.append({"direction": direction, "edges": m, "ranks": ranks, "n": n, "compute": total - xfer,
                            "exchange": xfer, "received_bytes": received_bytes(direction, n=n, vertex_bytes=24,
                                                                               ranks=ranks)})
    fitted = PerformanceModel.fit(obs, units=4)
    for key in ("gamma_pull", "gamma_push", "gamma_push_log", "step_latency"):
        assert getattr(fitted, key) == pytest.approx(getattr(truth, key), rel=1e-6, abs=1e-15)
    assert fitted.gamma_pull_log == pytest.approx(0.0, abs=1e-15)
    assert fitted.edge_seconds("push", 1 << 23) < fitted.edge_seconds("pull", 1 << 23)
    assert fitted.choose(edges=31 << 26, n=1 << 26, vertex_bytes=24, candidates=[1, 2, 4])[:2] == ("pull", 4)


def test_global_repartitioning_across_nodes_before_local():
    offsets = np.arange(0, 1001, 10)
    splits = balanced_splits(work_prefix(offsets), 4)
    two_nodes = Repartitioner(alpha=0.1, node_of=[0, 0, 1, 1], bytes_per_edge=4)
    new = two_nodes.propose(offsets, splits, [3.0, 3.0, 1.0, 1.0])  # node 0 is slower: vertices cross nodes
    assert new is not None and two_nodes.history[-1]["kind"] == "global" and new[2] < splits[2]
    local = Repartitioner(alpha=0.1, node_of=[0, 0, 1, 1], bytes_per_edge=4)
    new = local.propose(offsets, splits, [3.0, 1.0, 2.0, 2.0])  # nodes balanced, ranks of node 0 not
    assert local.history[-1]["kind"] == "local node 0" and new[2] == splits[2] and new[1] < splits[1]


@needs_mpi
def test_each_rank_checks_the_edges_it_reads(tmp_path):
    g = kronecker_graph(8, 8, seed=3, directed=True)
    write_store(g, tmp_path / "bad")
    indices = np.load(tmp_path / "bad" / "indices.npy", mmap_mode="r+")
    indices[-1] = g.n + 5  # the last vertex's edge (rank 1's range) names no vertex
    indices.flush()
    del indices
    done = mpiexec(2, "rank_compare.py", tmp_path / "r.json", tmp_path / "bad", "bfs", timeout=60)
    assert done.returncode != 0
    assert "rank 1 of 2 failed" in done.stderr and "outside" in done.stderr


def test_one_noisy_iteration_moves_nothing():
    offsets = np.arange(0, 1001, 10)
    splits = balanced_splits(work_prefix(offsets), 2)
    r = Repartitioner(alpha=0.1, node_of=[0, 0], bytes_per_edge=4, window=3)
    assert r.observe(offsets, splits, [5.0, 1.0]) is None   # one burst, window not full
    assert r.observe(offsets, splits, [1.0, 1.0]) is None
    assert r.observe(offsets, splits, [1.0, 1.0]) is not None  # the burst still weighs a third: a small move
    # bursts on either rank cancel out in the mean; deciding on each iteration (Lux) moves twice
    lux = Repartitioner(alpha=0.1, node_of=[0, 0], bytes_per_edge=4, window=1)
    assert lux.observe(offsets, splits, [1.3, 1.0]) is not None
    r = Repartitioner(alpha=0.1, node_of=[0, 0], bytes_per_edge=4, window=3)
    assert r.observe(offsets, splits, [1.3, 1.0]) is None
    assert r.observe(offsets, splits, [1.0, 1.3]) is None
    assert r.observe(offsets, splits, [1.0, 1.0]) is None
    assert r.history == []


@pytest.mark.skipif(importlib.util.find_spec("mpi4py") is None, reason="needs mpi4py")
def test_launcher_of_another_mpi_is_refused_by_name():
    # a launcher that says it started 2 ranks (Open MPI's variable) while mpi4py's MPI sees a world
    # of one: each process would run alone on the whole graph and write the same outputs
    code = ("from graphferry.distributed import mpi_world\n"
            "try:\n    mpi_world()\nexcept RuntimeError as e:\n    print('REFUSED', e)\n")
    env = dict(os.environ, PYTHONPATH=str(SRC), OMPI_COMM_WORLD_SIZE="2")
    env.pop("PMI_SIZE", None)
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    assert "REFUSED mpiexec started 2 processes but mpi4py sees a world of 1" in p.stdout, p.stdout + p.stderr
