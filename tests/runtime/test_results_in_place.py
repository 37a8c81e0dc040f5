"""Results stay where they were computed until they are read (issue 7: no result transfer in the call).

CI has no GPU, so a stand-in backend plays the device: the CPU backend whose
arrays count as "not on the host" and whose every device-to-host transfer is
counted. Its results must equal the plain CPU backend's, and each column must
cross once, lazily, only when read. The GPU test checks the same with CuPy.
"""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from graphferry import Graph
from graphferry.algorithms import bfs, coloring, pagerank, pagerank_ldbc, sssp, wcc
from graphferry.algorithms.bfs import verify_bfs
from graphferry.algorithms.coloring import verify_coloring
from graphferry.algorithms.wcc import same_partition
from graphferry.backends.cpu.backend import CpuBackend
from graphferry.runtime import DeferredArray


class StandInDevice(CpuBackend):
    """The CPU backend posing as a device: arrays read only through a counted transfer."""

    def __init__(self):
        super().__init__()
        self.transfers: list[np.ndarray] = []   # every array that crossed, the run's own reads included

    def on_host(self, arr) -> bool:
        return False

    def to_host(self, arr) -> np.ndarray:
        self.transfers.append(arr)
        return np.array(arr, copy=True)  # a transfer makes a new host array

    def since(self, mark: int) -> list[np.ndarray]:
        return self.transfers[mark:]


def crossed(arrays, arr) -> int:
    return sum(a is arr for a in arrays)


def random_graph(n=200, m=900, seed=5, directed=True) -> Graph:
    rng = np.random.default_rng(seed)
    w = rng.integers(1, 9, m).astype(np.float32)
    return Graph.from_edges(rng.integers(0, n, m), rng.integers(0, n, m), w, n=n, directed=directed)


CALLS = {
    "bfs": (lambda g, **o: bfs(g, 0, **o), ["levels", "parents"]),
    "sssp": (lambda g, **o: sssp(g, 0, **o), ["distances"]),
    "wcc": (lambda g, **o: wcc(g, **o), ["labels"]),
    "pagerank": (lambda g, **o: pagerank(g, **o), ["ranks"]),
    "pagerank_ldbc": (lambda g, **o: pagerank_ldbc(g, damping=0.85, iterations=10, **o), ["ranks"]),
    "coloring": (lambda g, **o: coloring(g, **o), ["colors"]),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_transfer_happens_once_lazily_and_values_equal_the_cpu_backend(name):
    g = random_graph()
    run, columns = CALLS[name]
    device = StandInDevice()
    r = run(g, backend=device)
    after_call = len(device.transfers)
    where = {col: r.device(col) for col in columns}   # where it lives: no transfer
    for col in columns:
        assert not r.values.on_host(col)
        assert crossed(device.transfers, where[col]) == 0, "the call moved no result column"
    assert all(col in r.values for col in columns) and sorted(r.values) == sorted(columns)
    assert len(device.transfers) == after_call
    ref = run(g, backend="cpu")
    for i, col in enumerate(columns):
        got = r.values[col]
        assert isinstance(got, np.ndarray) and r.values.on_host(col)
        moved = device.since(after_call)
        assert len(moved) == i + 1 and moved[-1] is where[col], "one transfer, on the first read"
        assert getattr(r, col) is got and r.values[col] is got, "read again: the same array, no transfer"
        want = ref.values[col]
        assert got.dtype == want.dtype and got.shape == want.shape
        if name == "wcc":
            assert same_partition(got, want)
        elif name == "coloring":         # threads racing in a round may colour differently: check it
            verify_coloring(g, got)
        elif name.startswith("pagerank"):  # atomic float sums: the order of the adds may differ
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)
        elif col != "parents":           # a BFS tree is not unique; its levels are
            np.testing.assert_array_equal(got, want)
    if name == "bfs":
        verify_bfs(g, 0, r.levels, r.parents)
    r.to_host()
    assert len(device.since(after_call)) == len(columns), "to_host moves nothing read already"


def test_to_host_and_tables_read_each_column_once():
    g = random_graph()
    device = StandInDevice()
    r = bfs(g, 0, backend=device)
    mark = len(device.transfers)
    assert r.to_host() is r
    assert [a.dtype for a in device.since(mark)] == [g.indices.dtype, g.indices.dtype]  # the vertex-id width
    ref = bfs(g, 0, backend="cpu").to_table()
    table = r.to_table()
    assert sorted(table) == sorted(ref) and np.array_equal(table["levels"], ref["levels"])
    assert len(device.since(mark)) == 2


def test_dtype_is_converted_where_the_array_lives():
    g = random_graph()
    device = StandInDevice()
    r = sssp(g, 0, backend=device)           # float32 state (integral weights), float64 result
    assert r.precision == "float32" and r.device("distances").dtype == np.float64
    mark = len(device.transfers)
    assert r.distances.dtype == np.float64 and device.since(mark)[0].dtype == np.float64


def test_the_cpu_backend_hands_its_arrays_over_as_they_are():
    g = random_graph()
    r = bfs(g, 0, backend="cpu")
    assert r.values.on_host("levels") and r.device("levels") is r.levels


def test_many_readers_at_once_make_one_transfer():
    count = []

    def slow_transfer(arr):
        count.append(1)
        time.sleep(0.05)                 # readers pile up while the copy runs
        return np.array(arr)

    d = DeferredArray(np.arange(10), slow_transfer)
    seen = []
    threads = [threading.Thread(target=lambda: seen.append(d.host())) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(count) == 1 and all(s is seen[0] for s in seen)


def test_a_result_holds_the_array_alone():
    """Nothing of the run (runtime, program state, loaded graph) stays alive through a result's column."""
    import gc

    from graphferry.runtime import LoadedGraph, ProgramState, Runtime

    device = StandInDevice()
    column = bfs(random_graph(), 0, backend=device).values._columns["levels"]
    assert isinstance(column, DeferredArray)
    held = gc.get_referents(column)
    held += [y for x in held for y in gc.get_referents(x)]
    assert any(x is device for x in held)  # the transfer (the backend: one per process)
    assert not any(isinstance(x, (Runtime, ProgramState, LoadedGraph)) for x in held)


@pytest.mark.gpu
def test_resident_bfs_result_stays_on_the_gpu_until_read():
    import cupy

    import graphferry as gf

    g = random_graph(n=2000, m=12000, directed=False)
    with gf.load(g, backend="cuda") as lg:
        r = bfs(lg, 0, engine="resident")
        assert isinstance(r.device("levels"), cupy.ndarray) and isinstance(r.device("parents"), cupy.ndarray)
        assert not r.values.on_host("levels") and not r.values.on_host("parents")
        ref = bfs(g, 0, backend="cpu")
        np.testing.assert_array_equal(r.levels, ref.levels)
        assert isinstance(r.levels, np.ndarray) and r.values.on_host("levels")
        assert not r.values.on_host("parents")
        verify_bfs(g, 0, r.levels, r.parents)
