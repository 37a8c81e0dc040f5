"""Vertex-program runtime: programs, frontiers, edge_map / vertex_map / neighbor_map."""

from .buckets import PriorityBuckets
from .deferred import DeferredArray
from .frontier import Frontier
from .loaded import LoadedGraph, LoadedGraphClosedError, load
from .program import Program
from .record import RunRecord
from .runtime import UNSET, VERTEX_IDS, ProgramState, RunOptions, Runtime

__all__ = ["DeferredArray", "PriorityBuckets", "Frontier", "LoadedGraph", "LoadedGraphClosedError", "load", "Program", "ProgramState",
           "RunOptions", "RunRecord", "Runtime", "UNSET", "VERTEX_IDS"]
