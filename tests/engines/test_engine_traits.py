"""Engines declare their traits on ``Engine``; every list of engines is derived from the registry.

The target of the seam: an engine the hybrid can pick is one file plus one registry entry. Here the
"file" is this test's :class:`ToyCopyEngine` and the entry one ``registry.register`` call; the cost
model prices it, the policy picks it, and the hybrid runs its own body, ``load_group``, in the
slots its pool lends (answers checked against networkx's BFS and scipy's shortest paths).
"""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from scipy.sparse.csgraph import dijkstra

import graphferry as gf
from graphferry.algorithms import bfs, sssp
from graphferry.engines import registry
from graphferry.engines.base import Engine, Loaded, PartitionCounts, Traffic
from graphferry.generators import kronecker_graph
from graphferry.scheduler import Calibration, Policy
from graphferry.scheduler.cost import CostModel
from graphferry.scheduler.policy import device_engines, host_engines


class ToyCopyEngine(Engine):
    """Each active partition copied whole into one buffer of its own (filter's transfer, one
    buffer), priced at ``price_factor`` times filter's bytes."""

    name = "toycopy"
    moves = "partitions"
    rows_on_device = True
    hybrid_places = True
    hybrid_picks = True
    price_factor = 0.01
    loads = 0
    lent_runs = 0

    @classmethod
    def traffic(cls, counts: PartitionCounts) -> Traffic:
        return Traffic(copy_bytes=np.asarray(counts.part_edges, dtype=np.float64) * counts.range_bytes
                       * cls.price_factor)

    def __init__(self, side, backend, arena, lent=False):
        super().__init__(side, backend, arena, lent)
        self.own_buffers("toycopy", most=1)   # none where the hybrid lends it its pool's slots
        self._offsets = side.device_offsets(backend)

    def load_group(self, parts, rows, bufs, counts=None):
        # its whole body: the one method its own load() and the hybrid both run (in whatever
        # buffers they hand it), counted per partition so the test sees which ran
        type(self).loads += len(parts)
        type(self).lent_runs += self.lent
        moved, shares, _ = self.copy_group(parts, bufs)
        view = self.group_view(parts, self._offsets, bufs.indices, bufs.weights,
                               first=self.side.range_base(parts[0].edge_lo))
        return Loaded(view, rows, rows is None, moved, engine=self.name, shares=shares)


@pytest.fixture
def toy():
    ToyCopyEngine.loads = ToyCopyEngine.lent_runs = 0
    ToyCopyEngine.price_factor = 0.01
    registry.register(ToyCopyEngine)
    try:
        yield ToyCopyEngine
    finally:
        registry.ENGINES.pop(ToyCopyEngine.name, None)


def test_the_lists_of_engines_are_the_registrys_traits():
    assert device_engines() == ("resident", "filter", "compaction", "zerocopy")
    assert host_engines() == ("host",)
    assert registry.names_where(hybrid_picks=True) == ("filter", "compaction", "zerocopy")
    assert registry.names_where(whole_side=True) == ("resident", "zerocopy")
    assert {n for n in registry.names() if registry.engine_class(n).bytes_modelled()} == {"zerocopy", "unified"}
    assert registry.names_where(schedules=True) == ("hybrid",)
    assert issubclass(registry.engine_class("hybrid"), Engine)
    for name in registry.names():                 # every engine answers every trait from its class
        cls = registry.engine_class(name)
        assert cls.moves in ("nothing", "side", "partitions", "rows", "lines", "pages", "mixed")
        assert not cls.hybrid_picks or cls.hybrid_places


def test_a_registered_engine_is_priced_and_picked_where_cheaper(toy):
    stats = dict(part_edges=np.array([1000.0, 50_000.0]), active_vertices=np.array([5.0, 900.0]),
                 active_edges=np.array([20.0, 40_000.0]), lines=np.array([10.0, 3000.0]), bytes_per_edge=8)
    model = CostModel(Calibration.nominal())
    assert set(model.transfer_costs(**stats)) == {"filter", "compaction", "zerocopy", "toycopy"}
    names, costs = model.transfer_engines(**stats)
    assert names.tolist() == ["toycopy", "toycopy"]
    toy.price_factor = 100.0                       # dearer than every built-in: HyTGraph's rule stands
    names, _ = model.transfer_engines(**stats)
    assert "toycopy" not in names.tolist()
    assert "toycopy" in device_engines()


def _networkx_levels(g) -> np.ndarray:
    G = nx.DiGraph()
    G.add_nodes_from(range(g.n))
    src, dst = g.edges()
    G.add_edges_from(zip(src.tolist(), dst.tolist()))
    depth = nx.single_source_shortest_path_length(G, 0)
    return np.array([depth.get(v, -1) for v in range(g.n)])


def test_the_hybrid_runs_a_registered_engine_it_picked(toy):
    g = kronecker_graph(9, seed=5)
    per_edge = g.indices.itemsize
    lg = gf.load(g, backend="cpu", budget=4 * g.m * per_edge, partition_bytes=g.m * per_edge // 16)
    policy = Policy(calibration=Calibration.nominal(), residency=False, use_cpu=False, whole_side=False,
                    single_engine_plans=False)
    r = bfs(lg, 0, engine="hybrid", policy=policy)
    levels = np.asarray(r.levels)
    want = _networkx_levels(g)
    assert np.array_equal(np.where(levels < 0, -1, levels), want)
    engines = {p.engine for s in r.record.edge_steps for p in s.partitions}
    # the toy engine's own body ran inside the hybrid (built lent: in the pool's slots), not a copy
    assert engines == {"toycopy"} and toy.loads > 0 and toy.lent_runs == toy.loads
    moved = sum(p.bytes_h2d for s in r.record.edge_steps for p in s.partitions)
    assert moved > 0                               # its copies, measured


def test_a_registered_engine_the_hybrid_picks_gives_weighted_answers_too(toy):
    g = kronecker_graph(8, seed=2, weighted=True)
    per_edge = g.indices.itemsize + 4
    lg = gf.load(g, backend="cpu", budget=4 * g.m * per_edge, partition_bytes=g.m * per_edge // 8)
    r = sssp(lg, 0, engine="hybrid", policy=Policy(calibration=Calibration.nominal(), residency=False, whole_side=False,
                                                    use_cpu=False))
    want = dijkstra(g.to_scipy(), indices=0)
    got = np.asarray(r.distances, dtype=np.float64)
    assert np.allclose(np.where(np.isinf(want), np.inf, got), want)
    assert "toycopy" in {p.engine for s in r.record.edge_steps for p in s.partitions}
