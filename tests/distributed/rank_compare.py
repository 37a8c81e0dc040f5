"""Run every registered algorithm on this world's ranks and on one process; report differences.

Started by tests/distributed/test_distributed.py as ``mpiexec -n P python rank_compare.py OUT.json STORE [ALGORITHMS [SPARSE_SHARE]]``
(``GF_RANK_BACKEND=cuda``: each rank on its own GPU, the state exchanged by NCCL):
each rank runs the algorithm split over all ranks (the graph loaded per range
from the store, or split on the fly), and rank 0 also runs it alone and writes
the comparison.
"""

import json
import os
import sys

import numpy as np

import graphferry as gf
from graphferry.algorithms import registry
from graphferry.distributed import DistributedGraph, enter, fail_all, leave, local_world, mpi_world, open_rank_store


REQUIRED = {"damping": 0.85, "iterations": 10}
SMALLER = {"betweenness": {"k": 3, "seed": 1},  # sampled sources keep the test short
           "edge_betweenness": {"k": 3, "seed": 1},
           "katz_centrality": {"alpha": 0.01}}   # below 1 / lambda_max: converges


def arguments(spec, world_size: int) -> dict:
    kwargs = {p.name: REQUIRED[p.name] for p in spec.parameters if p.required}
    kwargs.update(SMALLER.get(spec.name, {}))
    if spec.name in ("betweenness", "edge_betweenness") and world_size > 2:  # one level sweep per edge_map: oversubscribed ranks crawl
        kwargs["k"] = 1
    if spec.takes_source:
        kwargs["source"] = 0
    return kwargs


def compare(a: np.ndarray, b: np.ndarray, name: str) -> str | None:
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype.kind == "f":
        ok = np.allclose(a, b, rtol=1e-6, atol=1e-9, equal_nan=True)
    else:
        ok = np.array_equal(a, b)
    return None if ok else f"{name}: differs ({np.count_nonzero(a != b)} of {a.size})"


def main() -> None:
    world = mpi_world()
    out_path, store = sys.argv[1], sys.argv[2]
    names = sys.argv[3].split(",") if len(sys.argv) > 3 else registry.names()
    try:
        report = {}
        graph = open_rank_store(store)
        dg = DistributedGraph(graph, world, backend=os.environ.get("GF_RANK_BACKEND", "cpu"))
        if os.environ.get("GF_PIPELINE_CHUNKS") == "auto":  # the measured choice, on host buffers too
            dg.PIPELINE_TUNE_ON_HOST, dg.PIPELINE_CANDIDATES = True, (1, 3)
        elif os.environ.get("GF_PIPELINE_CHUNKS"):  # pulls in chunks, each gathered after its compute
            dg.PIPELINE_CHUNKS = int(os.environ["GF_PIPELINE_CHUNKS"])
        if len(sys.argv) > 4:  # the share of vertices up to which push exchanges send the update set only
            dg.SPARSE_SHARE = float(sys.argv[4])
        enter(world)  # algorithms that transform the graph split the transformed one
        results = {}
        sparse, packed = {}, {}
        for name in names:
            spec = registry.get(name)
            kwargs = arguments(spec, world.size)
            if os.environ.get("GF_DIRECTION"):  # every edge_map of the split run in this direction
                kwargs["direction"] = os.environ["GF_DIRECTION"]
            before, packed_before = dg.sparse_exchanges, dg.packed_exchanges
            results[name] = spec.run(dg, **kwargs)
            sparse[name] = dg.sparse_exchanges - before
            packed[name] = dg.packed_exchanges - packed_before
        leave()
        if world.rank == 0:
            whole = gf.store.open_store(store)
            for name in names:
                spec = registry.get(name)
                kwargs = arguments(spec, world.size)
                alone = spec.run(whole, backend="cpu", **kwargs)
                got = results[name]
                diffs = [d for k in alone.values
                         if (d := compare(got.values[k], alone.values[k], k)) is not None]
                diffs += [d for k in getattr(alone, "edges", {})   # a result of one row per edge or pair
                          if (d := compare(got.edges[k], alone.edges[k], k)) is not None]
                spec.verify(whole, got, **{k: v for k, v in kwargs.items() if k != 'source'})
                report[name] = {"differences": diffs, "ranks": got.record.extra.get("ranks"),
                                "devices": got.record.extra.get("devices"),
                                "splits": got.record.extra.get("splits"), "sparse_exchanges": sparse[name],
                                "packed_exchanges": packed[name],
                                "pipeline_choices": dg.pipeline_choices}
            with open(out_path, "w") as f:
                json.dump(report, f)
        world.barrier()
    except BaseException as e:  # noqa: BLE001 - one rank's failure ends every rank
        fail_all(world, e)


if __name__ == "__main__":
    main()
