"""``mpiexec -n P graphferry run ...``: the command line's run, split over the ranks.

Every rank opens the graph (a store: memory maps, each rank reading its own
range; another file: each rank reads it), splits it with the others and runs
the algorithm; rank 0 returns the result for the command line to print and
write, the others return None. A failure on any rank ends every rank with that
rank's message (no rank is left waiting in an exchange); a failure of every
rank alike (a user error) ends each normally, for rank 0 to report once.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from ..errors import GraphferryError
from ..store import is_store
from .graph import DistributedGraph, open_rank_store
from .world import enter, fail_all, failed_alike, leave, mpi_world


def agree_before_run(error: BaseException | None) -> None:
    """Every rank says whether its checks of the command line failed; if any did, every rank raises.

    Called by every rank once its checks are done, failed or not (a collective over
    ``MPI.COMM_WORLD``, before :func:`run_on_ranks` splits anything): a rank that
    left alone would leave the others waiting for it forever. The error is
    the first failing rank's; its words alone when every rank failed alike, for
    rank 0 to print once.
    """
    try:
        from mpi4py import MPI
    except ImportError:  # mpi_world says what to install, once the checks pass
        if error is not None:
            raise error from None
        return
    comm = MPI.COMM_WORLD
    said = comm.allgather(None if error is None else str(error))
    failed = [(rank, text) for rank, text in enumerate(said) if text is not None]
    if not failed:
        return
    if error is not None and len(failed) == comm.Get_size() and len(set(said)) == 1:
        raise error
    rank, text = failed[0]
    raise GraphferryError(f"rank {rank} of {comm.Get_size()}: {text}")


def run_on_ranks(run: Callable[..., Any], graph_path: Path, algorithm: str, *, source, backend: str, engine: str,
                 budget, partition_bytes, direction: str, params: dict, repartition: bool, verify: bool,
                 read: Callable[..., Any]) -> Any:
    """Run ``algorithm`` on every rank of ``mpiexec``'s world; the result on rank 0, None elsewhere."""
    world = mpi_world()
    try:
        graph = open_rank_store(graph_path) if is_store(graph_path) and not verify else read(graph_path,
                                                                                             verify=verify)
        loaded = DistributedGraph(graph, world, backend=backend, budget=budget, partition_bytes=partition_bytes,
                                  repartition=repartition)
        enter(world, repartition=repartition)  # graphs an algorithm derives (simple_graph) split too
        try:
            result = run(graph=loaded, name=algorithm, source=source, backend=backend, engine=engine,
                         budget=budget, partition_bytes=partition_bytes, direction=direction, params=params)
        finally:
            leave()
            loaded.close()
        world.barrier()
    except BaseException as e:  # noqa: BLE001 - one rank's failure must end every rank
        if not failed_alike(world, e):
            fail_all(world, e)
        raise  # every rank failed alike: each ends normally, rank 0 reports the error (the command line's)
    return result if world.rank == 0 else None
