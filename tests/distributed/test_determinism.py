"""The same seed gives the same labels on 1, 2 and 16 threads and under ``mpiexec -n 2``.

communities (PLP), cdlp and coloring run through ``graphferry run`` in fresh
processes, so ``OMP_NUM_THREADS`` applies to the compiled kernels (16 threads
on this 2-core machine still interleave), and once split over two MPI ranks
(the mpich wheel's ``mpiexec``, as tests/distributed/test_distributed.py launches it). Before
each round's vertices chose from the state committed by the steps before, the
250 x 250 grid gave 13186, 13185 and 13189 communities for one seed.
"""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from graphferry import Graph
from graphferry.generators import kronecker_graph
from graphferry.store import write_store

from test_distributed import MPIEXEC, SRC, needs_mpi

pytestmark = pytest.mark.slow

CASES = [("communities", "grid", ["--seed", "3"]), ("cdlp", "kronecker", ["--max-iterations", "10"]),
         ("coloring", "kronecker", ["--seed", "3"])]


def grid(side: int = 250) -> Graph:
    i = np.arange(side * side).reshape(side, side)
    a = np.r_[i[:, :-1].ravel(), i[:-1, :].ravel()]
    b = np.r_[i[:, 1:].ravel(), i[1:, :].ravel()]
    return Graph.from_edges(a, b, n=side * side, directed=False)


@pytest.fixture(scope="module")
def stores(tmp_path_factory):
    root = tmp_path_factory.mktemp("determinism")
    return {"grid": write_store(grid(), root / "grid") and root / "grid",
            "kronecker": write_store(kronecker_graph(13, seed=5), root / "kron") and root / "kron"}


def labels(store, algorithm: str, args: list[str], out, threads: int, ranks: int = 1) -> np.ndarray:
    env = dict(os.environ, PYTHONPATH=str(SRC), OMP_NUM_THREADS=str(threads))
    launch = [MPIEXEC, "-n", str(ranks)] if ranks > 1 else []
    done = subprocess.run([*launch, sys.executable, "-m", "graphferry", "run", algorithm, str(store),
                           "--backend", "cpu", "--out", str(out), *args],
                          capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    table = np.load(out)
    return np.asarray(table[table.dtype.names[-1]])


@pytest.mark.parametrize("algorithm, graph, args", CASES)
def test_the_same_seed_gives_the_same_labels_on_any_thread_count(stores, tmp_path, algorithm, graph, args):
    runs = {t: labels(stores[graph], algorithm, args, tmp_path / f"{t}.npy", t) for t in (1, 2, 16)}
    assert len(np.unique(runs[1])) > 1
    for t in (2, 16):
        assert np.array_equal(runs[t], runs[1]), \
            f"{algorithm}: {np.count_nonzero(runs[t] != runs[1])} labels differ between 1 and {t} threads"


@needs_mpi
@pytest.mark.parametrize("algorithm, graph, args", CASES)
def test_the_same_seed_gives_the_same_labels_on_two_ranks(stores, tmp_path, algorithm, graph, args):
    alone = labels(stores[graph], algorithm, args, tmp_path / "alone.npy", 2)
    split = labels(stores[graph], algorithm, args, tmp_path / "ranks.npy", 2, ranks=2)
    assert np.array_equal(split, alone), \
        f"{algorithm}: {np.count_nonzero(split != alone)} labels differ between one process and two ranks"
