"""Several ranks and devices (Lux): a graph split by vertex ranges, vertex updates exchanged by MPI or NCCL.

``mpiexec -n 4 graphferry run pagerank graph.gfs`` runs the unchanged
algorithms on four ranks; from Python, :func:`~graphferry.distributed.world.mpi_world`
and :class:`~graphferry.distributed.graph.DistributedGraph` (or
:func:`~graphferry.distributed.world.enter`, which splits every graph an
algorithm loads) do the same. See :mod:`~graphferry.distributed.graph`.
"""

import importlib

#: Public name -> the module that defines it, imported on first use: every run asks
#: ``launched_by_mpiexec`` (world.py), and a run in one process needs nothing else here.
_WHERE = {
    "DistributedGraph": "graph", "open_rank_store": "graph",
    "Repartitioner": "placement", "balanced_splits": "placement", "interpolate_splits": "placement",
    "World": "world", "current_world": "world", "enter": "world", "fail_all": "world",
    "launched_by_mpiexec": "world", "leave": "world", "local_world": "world", "mpi_world": "world",
}

__all__ = ["DistributedGraph", "open_rank_store", "Repartitioner", "balanced_splits", "interpolate_splits",
           "World", "current_world", "enter", "fail_all", "launched_by_mpiexec", "leave", "local_world",
           "mpi_world"]


def __getattr__(name: str):
    if name in _WHERE:
        return getattr(importlib.import_module(f"{__name__}.{_WHERE[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
