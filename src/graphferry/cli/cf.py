"""The cf command: collaborative filtering on a ratings file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import numpy as np
import typer

from ..errors import GraphferryError
from ..workfiles import publish, work_file
from .group import app
from .console import _stdout
from .graphs import _user_value_errors
from .options import Backend, JsonFlag, SeedOpt
from .writers import check_output_path


@app.command()
def cf(
    ratings: Annotated[Path, typer.Argument(metavar="RATINGS", show_default=False,
        help="Whitespace- or tab-separated 'user item rating' lines ('#' comments; a non-numeric "
             "header line such as MovieLens-100k's is skipped).")],
    rank: Annotated[int, typer.Option("--rank", min=1, help="Length of each factor vector.")] = 16,
    iterations: Annotated[int, typer.Option("--iterations", min=0, help="Gradient-descent steps.")] = 200,
    learning_rate: Annotated[float, typer.Option("--learning-rate", help="Step size.")] = 0.5,
    regularization: Annotated[float, typer.Option("--regularization", help="Lambda, per rating.")] = 0.1,
    test_fraction: Annotated[float, typer.Option("--test-fraction", min=0.0, max=0.9,
        help="Ratings held out (fixed-seed split) to report a test RMSE.")] = 0.2,
    seed: SeedOpt = 0,
    backend: Annotated[Backend, typer.Option("--backend", help="Where kernels run.")] = Backend.auto,
    out: Annotated[Path | None, typer.Option("--out", "-o", metavar="FILE", show_default=False,
        help="Write the factors (.npy: rows of users, then of items, with their ids).")] = None,
    as_json: JsonFlag = False,
) -> None:
    """Collaborative filtering: factorise a ratings file by gradient descent; report RMSE."""
    from ..algorithms.cf import collaborative_filtering, ratings_graph, rmse

    if not ratings.exists():
        raise GraphferryError(f"{ratings}: no such file or directory")
    if out is not None and out.suffix.lower() != ".npy":
        raise GraphferryError(f"--out {out}: the factors are written as .npy")
    if out is not None:
        check_output_path(out, "--out")
    rows = []
    with open(ratings) as f:
        for number, line in enumerate(f, 1):
            parts = line.split("#", 1)[0].split()
            if not parts:
                continue
            try:
                rows.append((parts[0], parts[1], float(parts[2])))
            except (IndexError, ValueError):
                if rows:  # only a first line may be a header
                    raise GraphferryError(f"{ratings}:{number}: expected 'user item rating'") from None
    if not rows:
        raise GraphferryError(f"{ratings}: no ratings")
    user_ids, users = np.unique([r[0] for r in rows], return_inverse=True)
    item_ids, items = np.unique([r[1] for r in rows], return_inverse=True)
    values = np.array([r[2] for r in rows])
    test = np.random.default_rng(seed).random(len(values)) < test_fraction
    g = ratings_graph(users[~test], items[~test], values[~test], num_users=len(user_ids), num_items=len(item_ids))
    result = _user_value_errors(collaborative_filtering, g, rank=rank, iterations=iterations,
                                learning_rate=learning_rate, regularization=regularization, seed=seed,
                                backend=backend.value)
    mean = float(values[~test].mean())
    summary = {"algorithm": "collaborative_filtering", "ratings": len(values), "users": len(user_ids),
               "items": len(item_ids), "train_rmse": result.train_rmse, "seconds": result.record.total_seconds,
               "test_rmse": rmse(result, users[test], items[test], values[test]) if test.any() else None,
               "test_rmse_of_the_mean": float(np.sqrt(np.mean((values[test] - mean) ** 2))) if test.any() else None}
    if out is not None:
        table = np.empty(g.n, dtype=[("kind", "U4"), ("id", "U64"), ("factors", np.float32, (rank,))])
        table["kind"] = ["user"] * len(user_ids) + ["item"] * len(item_ids)
        table["id"] = np.concatenate([user_ids.astype(str), item_ids.astype(str)])
        table["factors"] = result.factors
        out.parent.mkdir(parents=True, exist_ok=True)
        with work_file(out.parent, f".{out.name}.", ".npy") as tmp:
            np.save(tmp, table)
            publish(tmp, out)
    if as_json:
        typer.echo(json.dumps(summary, indent=2))
    else:
        for key, value in summary.items():
            _stdout().print(f"  {key}: {value}", highlight=False)
