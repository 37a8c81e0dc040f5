"""Commands about the store and the machine: verify, calibrate, plot."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Annotated

import typer

from ..errors import GraphferryError
from .group import app
from .console import _spinner, _stdout
from .graphs import _user_value_errors
from .options import Backend, JsonFlag
from .sizes import format_bytes
from .writers import check_output_path


@app.command()
def verify(
    path: Annotated[Path, typer.Argument(metavar="STORE", help="A graph store directory.", show_default=False)],
    as_json: JsonFlag = False,
) -> None:
    """Check a store completely: manifest, file sizes, headers, CSR structure and every checksum.

    Exit status 0 when all holds, 1 (with one error line naming the files) when not.
    """
    from ..store import verify_store

    if not path.exists():
        raise GraphferryError(f"{path}: no such file or directory")
    with _spinner(f"verifying {path}"):
        report = verify_store(path)
    if as_json:
        typer.echo(json.dumps({**report, "ok": True}, indent=2))
    else:
        _stdout().print(f"ok: {path}: n={report['n']:,} m={report['m']:,}, "
                        f"{len(report['files'])} files ({format_bytes(report['bytes'])}), checksums match",
                        highlight=False)


@app.command()
def calibrate(
    backend: Annotated[Backend, typer.Option("--backend", help="The device to calibrate.")] = Backend.auto,
    refresh: Annotated[bool, typer.Option("--refresh", help="Measure again even when a calibration is cached.")]
        = False,
    as_json: JsonFlag = False,
) -> None:
    """Show the hybrid engine's cost-model figures for this machine (measured once, then cached)."""
    from ..backends import get_backend
    from ..runtime.calibration import calibration_for
    from ..scheduler.cost import calibration_path

    b = _user_value_errors(get_backend, backend.value)
    with _spinner(f"calibrating {b.name}" if refresh else f"reading the calibration of {b.name}"):
        cal = calibration_for(b, refresh=refresh)
    if as_json:
        typer.echo(cal.to_json())
        return
    gb = lambda x: f"{x / 1e9:.2f} GB/s"  # noqa: E731
    console = _stdout()
    console.print(f"{cal.device} (cached in {calibration_path(cal.device)})", highlight=False)
    console.print(f"  pinned copy: {gb(cal.copy_bandwidth)}; state exchange: {gb(cal.state_bandwidth)}; "
                  f"CPU gather: {gb(cal.gather_bandwidth)}; one iteration: {cal.launch_seconds * 1e6:.0f} us",
                  highlight=False)
    console.print("  zero-copy by request: " + ", ".join(f"{k} B {gb(v)}" for k, v in
                                                         sorted(cal.zerocopy_bandwidth.items())), highlight=False)
    for where, table in (("device", cal.device_edge_rate), ("CPU", cal.host_edge_rate)):
        console.print(f"  {where} edges/s: " + ", ".join(f"{k} {v / 1e6:.0f} M" for k, v in sorted(table.items())),
                      highlight=False)
    console.print("  neighbour maps, edges read/s: " + ", ".join(
        f"{k} {v / 1e6:.0f} M" for k, v in sorted(cal.neighbor_rate.items())), highlight=False)


@app.command()
def plot(
    record: Annotated[Path, typer.Argument(metavar="RUNRECORD", show_default=False,
        help="A run record (graphferry run --record), or a budget sweep's results file (bench/budget_sweep.py).")],
    out: Annotated[Path | None, typer.Option("--out", "-o", metavar="PICTURE", show_default="RUNRECORD with .png",
        help="Where to write the picture; its suffix names the format (.png, .svg, .pdf, ...).")] = None,
    as_json: JsonFlag = False,
) -> None:
    """Draw a run record (engines and devices per iteration, bytes moved against the floor, time), or a
    budget sweep (time against the device budget, a line per engine, peers as horizontal lines)."""
    from ..plots import edge_map_steps, picture_format, plot_record
    from ..sweep_plot import check_sweep, is_sweep, plot_sweep

    out = record.with_suffix(".png") if out is None else out
    try:
        picture_format(out)
    except ValueError as e:
        raise GraphferryError(f"--out {e}") from None
    check_output_path(out, "--out")
    if not record.exists():
        raise GraphferryError(f"{record}: no such file or directory")
    try:
        data = json.loads(record.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise GraphferryError(f"{record}: not a run record (not JSON: {e})") from None
    if is_sweep(data):  # a budget sweep's results file (bench/budget_sweep.py): time against the budget
        try:
            check_sweep(data)
        except ValueError as e:
            raise GraphferryError(f"{record}: a budget sweep with nothing to draw: {e}") from None
        _user_value_errors(plot_sweep, data, out)
    else:
        try:
            edge_map_steps(data)
        except ValueError as e:
            raise GraphferryError(f"{record}: not a run record or a budget sweep that can be drawn: {e}") from None
        _user_value_errors(plot_record, data, out)
    if as_json:
        typer.echo(json.dumps({"record": str(record), "out": str(out)}, indent=2))
    else:
        _stdout().print(f"wrote {out}", highlight=False)


# -------------------------------------------------------------------- bench
def _bench_dir() -> Path | None:
    """bench/ of the working directory, else of the source checkout this package runs from."""
    for d in (Path.cwd() / "bench", Path(__file__).resolve().parents[3] / "bench"):
        if d.is_dir() and any(d.glob("*_bench.py")):
            return d
    return None


def _benchmark_summary(path: Path) -> str:
    """The first line of a benchmark's docstring, read without running it."""
    doc = ast.get_docstring(ast.parse(path.read_text())) or ""
    return doc.strip().splitlines()[0] if doc.strip() else ""


@app.command(context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def bench(
    ctx: typer.Context,
    name: Annotated[str | None, typer.Argument(metavar="NAME", show_default=False,
        help="A benchmark of bench/ (NAME_bench.py); none: list them.")] = None,
    as_json: JsonFlag = False,
) -> None:
    """Run a named benchmark (its own options follow, after '--'); it writes its results file.

    Benchmarks live in a source checkout's bench/ (run from it): e.g.
    ``graphferry bench convert -- --scale 20 --out bench/results/convert.json``.
    """
    where = _bench_dir()
    if where is None:
        raise GraphferryError("no bench/ directory: benchmarks run from a source checkout of graphferry")
    found = {p.name[:-len("_bench.py")]: p for p in sorted(where.glob("*_bench.py"))}
    if name is None:
        listing = {n: _benchmark_summary(p) for n, p in found.items()}
        if as_json:
            typer.echo(json.dumps(listing, indent=2))
        else:
            for n, line in listing.items():
                typer.echo(f"{n:<14} {line}")
        return
    if name not in found:
        raise GraphferryError(f"unknown benchmark {name!r}; choose one of {', '.join(found)}")
    # the benchmark imports graphferry: this very package, wherever it was imported from
    package_root = str(Path(__file__).resolve().parents[2])
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [package_root, os.environ.get("PYTHONPATH")])))
    code = subprocess.call([sys.executable, str(found[name]), *ctx.args], env=env)
    if code:
        raise GraphferryError(f"benchmark {name} failed (exit status {code})")
