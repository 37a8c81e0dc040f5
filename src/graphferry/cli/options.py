"""Option types shared by several commands."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from .sizes import _partition_size_param


class InputFormat(str, Enum):
    auto = "auto"
    edgelist = "edgelist"
    mtx = "mtx"
    ldbc = "ldbc"
    csv = "csv"
    parquet = "parquet"
    gr = "gr"


class WeightKindOpt(str, Enum):
    integer = "int"
    real = "float"


OutStore = Annotated[Path, typer.Argument(metavar="OUT_STORE", help="Graph store directory to create.",
                                          show_default=False)]
ScaleOpt = Annotated[int, typer.Option("--scale", "-s", min=0, max=40,
                                       help="log2 of the number of vertices.")]
EdgeFactorOpt = Annotated[int, typer.Option("--edge-factor", "-e", min=0,
                                            help="Edge samples per vertex.")]
SeedOpt = Annotated[int, typer.Option("--seed", min=0, help="Random seed (same seed, same graph).")]
WeightedFlag = Annotated[bool, typer.Option("--weighted", help="Give every edge a random weight.")]
WeightsOpt = Annotated[WeightKindOpt, typer.Option(
    "--weights", help="Weights: integers in [1, 255] (GAPBS) or floats in [0, 1).")]
DirectedFlag = Annotated[bool, typer.Option(
    "--directed", help="Keep samples as directed arcs (default: undirected, as Graph500).")]
KeepLoopsFlag = Annotated[bool, typer.Option("--keep-self-loops", help="Do not drop self-loops.")]
KeepDupsFlag = Annotated[bool, typer.Option("--keep-duplicates", help="Do not drop repeated edges.")]
ThreadsOpt = Annotated[int | None, typer.Option("--threads", min=1, help="Generator threads.",
                                                show_default="all cores (numpy's sampler: up to 8)")]
ForceFlag = Annotated[bool, typer.Option("--force", "-f", help="Replace OUT_STORE if it is a store.")]
PartitionBytesOpt = Annotated[int, typer.Option(
    "--partition-bytes", parser=_partition_size_param, metavar="SIZE",
    help="Partition size for the partition count: 32MiB, 1GB, or bytes.")]
RunPartitionBytesOpt = Annotated[int | None, typer.Option(
    "--partition-bytes", parser=_partition_size_param, metavar="SIZE", show_default="32MiB where edges move",
    help="Partition size: 32MiB, 1GB, or bytes. Default: 32MiB for engines that move edges, "
         "one partition per side for the CPU backend's host engine (nothing moves).")]
JsonFlag = Annotated[bool, typer.Option("--json", help="Machine-readable JSON on stdout.")]
VerifyFlag = Annotated[bool, typer.Option(
    "--verify", help="Also compare the store's checksums before using it (reads it whole).")]


class Backend(str, Enum):
    auto = "auto"
    cpu = "cpu"
    cuda = "cuda"


def __getattr__(name: str):
    # ``EngineName`` is made on first use: it imports the engines, which only ``run`` needs
    # (``generate`` and ``convert`` start without them).
    if name == "EngineName":
        from ..engines import registry as engine_registry

        #: ``--engine``: auto, then every engine in the engine registry (the composed hybrid included).
        engines = Enum("EngineName", {name: name for name in ("auto", *engine_registry.names())}, type=str)
        engines.__module__ = __name__
        globals()["EngineName"] = engines
        return engines
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class Direction(str, Enum):
    auto = "auto"
    push = "push"
    pull = "pull"
