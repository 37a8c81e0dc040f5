"""Shared test fixtures: paths to the team's shared data (optional) and GPU detection."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

# OpenMP threads that spin while waiting steal the other core from the rest of a
# loaded 2-core CI machine (test_sssp: 39 s spinning vs 7.5 s passive). Tests only:
# benchmarks keep the default, which is faster for back-to-back kernels.
os.environ.setdefault("OMP_WAIT_POLICY", "passive")

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("GRAPHFERRY_SHARED", REPO.parent / "shared"))
LDBC_GRAPHS = SHARED / "conformance" / "ldbc" / "graphs"
DATASETS = SHARED / "datasets"

ENGINES = ["host", "resident", "filter", "compaction", "zerocopy", "unified"]

# CI (``.ci/run`` sets CI=true) must have the shared conformance data: a missing copy is
# then an error, not a quiet skip that would hide every check that reads it.
ON_CI = os.environ.get("CI", "").lower() == "true"


def need_shared(path: Path, what: str = "shared data") -> None:
    """Skip the calling test when ``path`` (under ``../shared``) is missing; fail under CI."""
    if path.exists():
        return
    message = f"{what} not found at {path}"
    if ON_CI:
        pytest.fail(f"{message} (CI=true: the shared conformance data must be present)", pytrace=False)
    pytest.skip(message)


def pytest_configure(config):
    """Every temporary file of the run goes under one folder of ``$TMPDIR``, removed at its end.

    The tests' and doctests' ``mkdtemp``, the command-line and ``mpiexec`` subprocesses (they
    inherit ``TMPDIR``), pytest's own ``tmp_path`` and xdist's workers (started after this, with
    this environment) all write there, so the suite leaves nothing in ``$TMPDIR``.
    """
    if hasattr(config, "workerinput"):  # an xdist worker: the controller's folder is its TMPDIR already
        return
    root = tempfile.mkdtemp(prefix="graphferry-tests-")
    config.stash[_TMP_KEY] = (root, os.environ.get("TMPDIR"))
    os.environ["TMPDIR"] = tempfile.tempdir = root


def pytest_unconfigure(config):
    root, before = config.stash.get(_TMP_KEY, (None, None))
    if root is None:
        return
    if before is None:
        os.environ.pop("TMPDIR", None)
    else:
        os.environ["TMPDIR"] = before
    tempfile.tempdir = None
    shutil.rmtree(root, ignore_errors=True)


_TMP_KEY = pytest.StashKey[tuple]()


def _has_gpu() -> bool:
    from graphferry.backends import cuda_available

    return cuda_available()


HAS_GPU = _has_gpu()


def pytest_collection_modifyitems(config, items):
    if HAS_GPU:
        return
    skip = pytest.mark.skip(reason="needs a CUDA GPU and CuPy")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


def read_dataset(path: Path):
    """(n, src, dst, directed) of a shared ``.el`` file, parsed with numpy alone (not our readers).

    The first line is ``# name | directed/undirected | n=N | source``.
    """
    import numpy as np

    with path.open() as f:
        header = f.readline()
    directed = "| directed" in header
    e = np.loadtxt(path, comments="#", ndmin=2)
    n = int(header.split("n=")[1].split()[0].strip("|")) if "n=" in header else int(e[:, :2].max()) + 1
    return n, e[:, 0].astype(np.int64), e[:, 1].astype(np.int64), directed


def tiny_budget_options(engine: str) -> dict:
    """Options that split even a 100-vertex graph into many partitions."""
    return {"backend": "cpu", "engine": engine, "partition_bytes": 256,
            "budget": None if engine == "resident" else 64 * 1024}


def small_budget_options(engine: str) -> dict:
    """Options for graphs of thousands of vertices: a few dozen partitions, budget for a few."""
    return {"backend": "cpu", "engine": engine, "partition_bytes": 2048,
            "budget": None if engine == "resident" else 16 * 1024}


def dijkstra_distances(g, sources) -> "np.ndarray":
    """scipy's Dijkstra from the nearest of ``sources`` (the oracle of SSSP and its buckets), parallel
    arcs reduced to their lightest (scipy would add them up; explicit zero weights stay arcs)."""
    import numpy as np
    import scipy.sparse as sp
    from scipy.sparse.csgraph import dijkstra

    src, dst = g.edges()
    w = np.ones(g.m) if g.weights is None else g.weights.astype(np.float64)
    order = np.lexsort((w, dst, src))
    src, dst, w = src[order], dst[order], w[order]
    first = np.ones(len(src), bool)
    first[1:] = (src[1:] != src[:-1]) | (dst[1:] != dst[:-1])
    a = sp.csr_array((w[first], (src[first], dst[first])), shape=(g.n, g.n))
    return dijkstra(a, directed=True, indices=list(sources), min_only=True)
