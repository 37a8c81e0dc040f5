"""Small rank programs for tests/distributed/test_distributed.py: ``mpiexec -n P python rank_scripts.py WHAT OUT STORE``.

``fail``: rank 1 raises in the middle of a BFS (from its progress callback), the
others wait in the next exchange; the run must end at once with that rank's message.
``repartition``: PageRank with rank 1 slowed down (a slower device) and dynamic
repartitioning on; writes the split points observed per iteration.
"""

import json
import sys

from graphferry.algorithms import bfs, registry
from graphferry.distributed import DistributedGraph, fail_all, mpi_world, open_rank_store


def main() -> None:
    what, out_path, store = sys.argv[1:4]
    world = mpi_world()
    try:
        dg = DistributedGraph(open_rank_store(store), world, backend="cpu", repartition=what == "repartition",
                              slowdown={1: 2e-5} if what == "repartition" else None)
        if what == "fail":
            def progress(op, index, record):
                if world.rank == 1 and index >= 1:
                    raise RuntimeError("injected failure on rank 1")
            bfs(dg, 0, progress=progress)
        elif what == "repartition":
            registry.get("pagerank_ldbc").run(dg, damping=0.85, iterations=12)
            if world.rank == 0:
                with open(out_path, "w") as f:
                    json.dump({"splits": [e["splits"] for e in dg.log],
                               "repartitions": dg.repartitioner.history,
                               "in_offsets": dg.in_offsets.tolist()}, f)
        world.barrier()
    except BaseException as e:  # noqa: BLE001 - one rank's failure ends every rank
        fail_all(world, e)


if __name__ == "__main__":
    main()
