"""The demo command: generate a graph, show it, run PageRank and BFS; its steps are a list others extend."""

from __future__ import annotations

import contextlib
import json
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import typer

from ..graph import Graph
from ..partition import DEFAULT_PARTITION_BYTES
from .group import app
from .console import _iteration_reporter, _stdout
from .graphs import _generate
from .options import Backend, JsonFlag, SeedOpt
from .run import print_summary, run_algorithm, summarize_result
from .tables import graph_info, print_info


@dataclass
class DemoContext:
    """What the demo steps share. A step may read and set any field."""

    scale: int
    seed: int
    store: Path
    as_json: bool
    backend: str = "auto"
    graph: Graph | None = None
    results: dict[str, Any] = field(default_factory=dict)


def _demo_generate(ctx: DemoContext) -> None:
    ctx.graph = _generate("kronecker", ctx.store, force=False, scale=ctx.scale, edge_factor=16,
                          seed=ctx.seed, weighted=False, directed=False)


def _demo_info(ctx: DemoContext) -> None:
    assert ctx.graph is not None
    ctx.results["info"] = graph_info(ctx.graph, DEFAULT_PARTITION_BYTES, path=ctx.store)
    if not ctx.as_json:
        print_info(ctx.results["info"], _stdout())


def _demo_algorithms(ctx: DemoContext) -> None:
    """PageRank, then BFS from the highest-degree vertex, on the demo graph (GPU if there is one)."""
    assert ctx.graph is not None
    g = ctx.graph
    source = int(np.argmax(g.out_degree))
    for name, src in (("pagerank", None), ("bfs", str(source))):
        progress, stop = _iteration_reporter(name)
        try:
            result = run_algorithm(g, name, source=src, backend=ctx.backend, progress=progress)
        finally:
            stop()
        summary = summarize_result(name, result)
        ctx.results[name] = summary
        if not ctx.as_json:
            print_summary(result, summary)


#: The demo runs these in order; later features append theirs.
#: With ``--json`` the demo prints ``ctx.results`` once at the end.
DEMO_STEPS: list[Callable[[DemoContext], None]] = [_demo_generate, _demo_info, _demo_algorithms]


@app.command()
def demo(
    scale: Annotated[int, typer.Option("--scale", "-s", min=1, max=30,
                                       help="Kronecker scale of the demo graph.")] = 16,
    seed: SeedOpt = 0,
    keep: Annotated[Path | None, typer.Option(
        "--keep", metavar="DIR", help="Write the store to DIR and keep it (default: a temporary one).",
        show_default=False)] = None,
    backend: Annotated[Backend, typer.Option("--backend", help="Where kernels run (auto: GPU if present).")]
        = Backend.auto,
    as_json: JsonFlag = False,
) -> None:
    """Generate a Kronecker graph into a temporary store, show what info shows, run PageRank and BFS."""
    with contextlib.ExitStack() as stack:
        if keep is None:
            tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="graphferry-demo-")))
            store = tmp / f"kronecker-s{scale}.store"
        else:
            store = keep
        ctx = DemoContext(scale=scale, seed=seed, store=store, as_json=as_json, backend=backend.value)
        for step in DEMO_STEPS:
            step(ctx)
        if as_json:
            typer.echo(json.dumps(ctx.results, indent=2))
        # Drop the memory maps before the temporary store is removed.
        ctx.graph = None
