"""Copying engines under a budget that holds one partition buffer only (a hub row's edges).

Found by hypothesis on the 'hub' shape: with two buffers required, a budget just above a
hub row's edges failed at set-up although one buffer would do.
"""

import numpy as np
import pytest
from scipy.sparse.csgraph import dijkstra

from graphferry import Graph
from graphferry.algorithms import sssp
from graphferry.errors import DeviceMemoryError


def hub_graph(n=1200, seed=0):
    rng = np.random.default_rng(seed)
    src = np.r_[np.zeros(n - 1, np.int64), np.arange(1, n - 1)]       # a hub and a path
    dst = np.r_[np.arange(1, n), np.arange(2, n)]
    w = rng.integers(1, 5, len(src)).astype(np.float64)
    return Graph.from_edges(src, dst, w, n=n, directed=False)


@pytest.mark.parametrize("engine", ["filter", "compaction"])
def test_a_budget_for_one_buffer_runs_with_one(engine):
    g = hub_graph()
    hub_bytes = int(g.out_degree.max()) * (g.indices.itemsize + 4)
    budget = int(1.5 * hub_bytes)                       # one buffer of the largest partition, not two
    r = sssp(g, 5, backend="cpu", engine=engine, budget=budget, partition_bytes=1024)
    assert np.array_equal(r.distances, dijkstra(g.to_scipy(), indices=5))
    assert max(p.bytes_h2d for it in r.record.steps for p in it.partitions) <= budget


@pytest.mark.parametrize("engine", ["filter", "compaction"])
def test_a_budget_below_one_buffer_says_so_at_set_up(engine):
    g = hub_graph()
    hub_bytes = int(g.out_degree.max()) * (g.indices.itemsize + 4)
    # a buffer holds the hub's row with 11-bit packed ids and one-byte weights (filter), or
    # 4-byte ids (compaction's gather): about 2.4 or 5 of the 8 bytes an edge takes as float32
    with pytest.raises(DeviceMemoryError, match=rf"{engine} buffer 0 .*device budget"):
        sssp(g, 5, backend="cpu", engine=engine, budget=hub_bytes // 4, partition_bytes=1024)


@pytest.mark.parametrize("engine", ["host", "resident", "filter", "compaction", "zerocopy", "unified"])
def test_what_an_engine_loads_names_the_engine(engine, monkeypatch):
    # the run record names each partition's engine from what was loaded (Loaded.engine)
    from graphferry.engines import registry

    cls = registry.engine_class(engine)
    seen = []
    real = cls.load

    def spy(self, part, active):
        loaded = real(self, part, active)
        seen.append(loaded.engine)
        return loaded

    monkeypatch.setattr(cls, "load", spy)
    g = hub_graph(n=300)
    r = sssp(g, 5, backend="cpu", engine=engine, budget=1 << 20, partition_bytes=512)
    assert np.allclose(r.distances, dijkstra(g.to_scipy(), indices=5))
    assert seen and set(seen) == {engine}
    assert {p.engine for it in r.record.edge_steps for p in it.partitions} == {engine}
