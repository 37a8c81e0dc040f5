"""Several ranks and devices (Lux): a graph split by vertex ranges, vertex updates exchanged by MPI or NCCL.

``mpiexec -n 4 graphferry run pagerank graph.gfs`` runs the unchanged
algorithms on four ranks; from Python, :func:`~graphferry.distributed.world.mpi_world`
and :class:`~graphferry.distributed.graph.DistributedGraph` (or
:func:`~graphferry.distributed.world.enter`, which splits every graph an
algorithm loads) do the same. See :mod:`~graphferry.distributed.graph`.
"""

from .graph import DistributedGraph, open_rank_store
from .placement import Repartitioner, balanced_splits, interpolate_splits
from .world import World, current_world, enter, fail_all, launched_by_mpiexec, leave, local_world, mpi_world

__all__ = ["DistributedGraph", "open_rank_store", "Repartitioner", "balanced_splits", "interpolate_splits",
           "World", "current_world", "enter", "fail_all", "launched_by_mpiexec", "leave", "local_world",
           "mpi_world"]
