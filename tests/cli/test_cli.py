"""Tests of the ``graphferry`` command line (graphferry.cli)."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console
from typer.testing import CliRunner

from graphferry import cli
from graphferry.cli import app, format_bytes, graph_info, main, parse_size, print_info
from graphferry.graph import Graph


def run(*args: str):
    return CliRunner().invoke(app, list(args))


def assert_one_line_error(result, code=None):
    assert result.exit_code != 0, result.output
    if code is not None:
        assert result.exit_code == code, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert "Traceback" not in result.output
    return lines[0]


# --------------------------------------------------------------------- sizes
@pytest.mark.parametrize("text,value", [
    ("32MiB", 32 * 2**20), ("32mib", 32 * 2**20), ("1GB", 10**9), ("1GiB", 2**30),
    ("4096", 4096), ("4096B", 4096), ("2k", 2048), ("2K", 2048), ("2kB", 2000), ("2KiB", 2048),
    ("1.5MiB", 3 * 2**19), (" 8 M ", 8 * 2**20), ("1T", 2**40), (7, 7),
])
def test_parse_size(text, value):
    assert parse_size(text) == value


@pytest.mark.parametrize("text", ["", "MiB", "1.2.3", "-4", "0", "0MiB", "12 parsecs", "3iB", "1e6"])
def test_parse_size_rejects(text):
    with pytest.raises(ValueError):
        parse_size(text)


@given(st.integers(1, 2**50))
def test_format_bytes_round_trips_roughly(n):
    text = format_bytes(n)
    # One decimal of the unit: within 5% (the value is at least 1.0 unit).
    assert abs(parse_size(text.replace(" ", "")) - n) <= max(1, n * 0.05)


# -------------------------------------------------------------- graph_info
def test_graph_info_directed():
    g = Graph.from_edges(np.array([0, 0, 1, 3]), np.array([1, 2, 2, 3]), n=6, directed=True)
    info = graph_info(g, partition_bytes=4)
    assert (info["n"], info["m"], info["directed"], info["weighted"]) == (6, 4, True, False)
    assert info["out_degree"] == {"min": 0, "max": 2, "mean": 4 / 6, "median": 0.5}
    assert info["in_degree"]["max"] == 2 and info["in_degree"]["min"] == 0
    assert info["isolated_vertices"] == 2  # 4 and 5 (3 has a self-loop)
    assert info["arrays"]["indices"] == {"dtype": "int32", "entries": 4, "bytes": 16}
    assert info["arrays"]["offsets"]["bytes"] == 7 * 8
    assert info["total_bytes"] == 16 + 56
    # 4 bytes per edge, one edge per partition, but a vertex is never split:
    # vertex 0's two edges make one partition.
    assert info["partitions"] == 3


def test_graph_info_in_degree_chunked_equals_bincount():
    rng = np.random.default_rng(0)
    g = Graph.from_edges(rng.integers(0, 50, 1000), rng.integers(0, 50, 1000), n=60)
    assert np.array_equal(cli._in_degree(g, chunk=7), g.in_degree)


def test_graph_info_weighted_partitions_count_weight_bytes():
    g = Graph.from_edges(np.arange(10), np.arange(1, 11), np.ones(10), n=11)
    assert graph_info(g, partition_bytes=8)["partitions"] == 10
    assert graph_info(g, partition_bytes=16)["partitions"] == 5
    assert "weights" in graph_info(g)["arrays"]


def test_print_info_renders():
    g = Graph.from_edges(np.array([0, 1]), np.array([1, 2]), n=3, directed=False)
    buf = io.StringIO()
    print_info(graph_info(g, path="x.store"), Console(file=buf, width=100))
    text = buf.getvalue()
    for word in ("vertices", "arcs", "median", "isolated", "indices", "partitions", "x.store"):
        assert word in text


# ---------------------------------------------------------- basic commands
def test_help_and_version():
    r = run("--help")
    assert r.exit_code == 0 and "generate" in r.stdout and "convert" in r.stdout
    r = run("--version")
    assert r.exit_code == 0 and r.stdout.strip().startswith("graphferry ")
    r = run()
    assert r.exit_code == 0 and "Usage" in r.stdout
    assert main(["--version"]) == 0


def test_python_dash_m():
    env = dict(os.environ, PYTHONPATH=str(Path(cli.__file__).parents[2]))
    p = subprocess.run([sys.executable, "-m", "graphferry", "info", "/no/such/graph"],
                       capture_output=True, text=True, env=env, timeout=60)
    assert p.returncode == 1
    assert p.stderr.strip() == "error: /no/such/graph: no such file or directory"


# ------------------------------------------------------------------ errors
@pytest.mark.parametrize("args,code,needle", [
    (["info", "/no/such/thing"], 1, "no such file"),
    (["convert", "/no/such/file.el", "out.store"], 1, "no such file"),
    (["generate", "kronecker", "--scale", "x", "o"], 2, "--scale"),
    (["generate", "kronecker", "--scale", "99", "o"], 2, "--scale"),
    (["generate", "kronecker", "o"], 2, "Missing option"),
    (["generate", "kronecker", "--scale", "3", "--edge-factor", "-1", "o"], 2, "--edge-factor"),
    (["generate", "kronecker", "--scale", "3", "--weights", "double", "o"], 2, "--weights"),
    (["generate", "koch", "--scale", "3", "o"], 2, "koch"),
    (["info", ".", "--partition-bytes", "lots"], 2, "not a size"),
    (["info", ".", "--partition-bytes", "0"], 2, "positive"),
    (["convert", "a", "b", "--format", "xml"], 2, "--format"),
    (["frobnicate"], 2, "frobnicate"),
    (["demo", "--scale", "0"], 2, "--scale"),
])
def test_user_errors_are_one_line(args, code, needle, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    line = assert_one_line_error(run(*args), code)
    assert needle in line


def test_output_exists_needs_force(tmp_path):
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "precious.txt").write_text("keep me")
    line = assert_one_line_error(run("generate", "kronecker", "-s", "3", str(tmp_path / "taken")), 1)
    assert "already exists" in line and "--force" in line
    # --force replaces only a graph store, never some other directory.
    line = assert_one_line_error(run("generate", "kronecker", "-s", "3", "-f", str(tmp_path / "taken")), 1)
    assert "not a graph store" in line
    assert (tmp_path / "taken" / "precious.txt").read_text() == "keep me"


def test_internal_errors_have_no_traceback(monkeypatch):
    def boom(ctx):
        raise RuntimeError("kaboom")

    monkeypatch.setattr(cli.demo, "DEMO_STEPS", [boom])
    r = run("demo")
    line = assert_one_line_error(r, cli.EXIT_INTERNAL)
    assert "kaboom" in line and "GRAPHFERRY_DEBUG" in line
    monkeypatch.setenv("GRAPHFERRY_DEBUG", "1")
    r = run("demo")
    assert isinstance(r.exception, RuntimeError)


def test_graphferry_errors_from_steps_are_one_line(monkeypatch):
    from graphferry.errors import InputError

    def bad(ctx):
        raise InputError("bad id 'x'", path="g.el", line=3)

    monkeypatch.setattr(cli.demo, "DEMO_STEPS", [bad])
    assert assert_one_line_error(run("demo"), 1) == "error: g.el:3: bad id 'x'"


# ------------------------------------------------- with the store and readers
def test_generate_info_convert_round_trip(tmp_path):
    from graphferry.generators import kronecker_graph
    from graphferry.store import open_store

    store = tmp_path / "k.store"
    r = run("generate", "kronecker", "--scale", "9", "--edge-factor", "8", "--seed", "3", str(store))
    assert r.exit_code == 0, r.output
    g = open_store(store)
    ref = kronecker_graph(9, 8, seed=3)
    assert (g.n, g.m, g.directed) == (ref.n, ref.m, False)
    assert np.array_equal(np.asarray(g.offsets), ref.offsets)

    r = run("info", str(store), "--json", "--partition-bytes", "16KiB")
    assert r.exit_code == 0, r.output
    info = json.loads(r.stdout)
    assert (info["n"], info["m"], info["directed"]) == (512, ref.m, False)
    assert info["out_degree"]["max"] == int(ref.out_degree.max())
    assert info["partitions"] == len(
        __import__("graphferry.partition").partition.partition_by_bytes(ref.offsets, 4, 16 * 1024))

    r = run("info", str(store))
    assert r.exit_code == 0 and "vertices" in r.stdout and f"{ref.m:,}" in r.stdout

    # Store -> Matrix Market (every arc, general) -> store again.
    import scipy.io

    mtx = tmp_path / "k.mtx"
    scipy.io.mmwrite(str(mtx), ref.to_scipy().tocoo())
    back = tmp_path / "back.store"
    r = run("convert", str(mtx), str(back), "--format", "mtx", "--directed")
    assert r.exit_code == 0, r.output
    h = open_store(back)
    assert h.n == ref.n and h.m == ref.m
    assert (h.to_scipy() != ref.to_scipy()).nnz == 0

    r = run("info", str(mtx), "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["m"] in (ref.m, ref.m // 2)  # general or read as symmetric


def test_generate_weighted_uniform_directed(tmp_path):
    from graphferry.store import open_store

    store = tmp_path / "u.store"
    r = run("generate", "uniform", "-s", "8", "-e", "4", "--weighted", "--weights", "float",
            "--directed", str(store))
    assert r.exit_code == 0, r.output
    g = open_store(store)
    assert g.directed and g.weighted and g.n == 256 and g.m <= 1024
    assert float(np.max(g.weights)) < 1.0
    # --force replaces a store.
    r = run("generate", "uniform", "-s", "5", "-f", str(store))
    assert r.exit_code == 0, r.output
    assert open_store(store).n == 32


def test_convert_malformed_input_is_one_line(tmp_path):
    bad = tmp_path / "bad.el"
    bad.write_text("0 1\n1 two\n")
    line = assert_one_line_error(run("convert", str(bad), str(tmp_path / "o.store"),
                                     "--format", "edgelist"), 1)
    assert "bad.el" in line
    assert not (tmp_path / "o.store").exists() or not any((tmp_path / "o.store").iterdir())


def test_demo(tmp_path):
    r = run("demo", "--scale", "8")
    assert r.exit_code == 0, r.output
    assert "kronecker-s8" in r.stdout and "vertices" in r.stdout and "median" in r.stdout
    r = run("demo", "--scale", "8", "--json", "--keep", str(tmp_path / "d.store"))
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["info"]["n"] == 256
    assert (tmp_path / "d.store").is_dir()


def test_convert_edgelist_options(tmp_path):
    from graphferry.store import open_store

    el = tmp_path / "g.txt"
    el.write_text("# a comment\n10 20\n20 30\n30 10\n10 10\n10 20\n")
    out = tmp_path / "g.store"
    r = run("convert", str(el), str(out), "--renumber", "--undirected", "--drop-self-loops",
            "--drop-duplicates")
    assert r.exit_code == 0, r.output
    g = open_store(out)
    assert (g.n, g.m, g.directed) == (3, 6, False)
    assert g.original_ids.tolist() == [10, 20, 30]
    # Same target again: refused without --force, replaced with it.
    assert "already exists" in assert_one_line_error(run("convert", str(el), str(out)), 1)
    r = run("convert", str(el), str(out), "--force", "--directed", "--renumber")
    assert r.exit_code == 0, r.output
    assert open_store(out).m == 5


def test_convert_option_the_format_lacks_is_one_line(tmp_path):
    mtx = tmp_path / "g.mtx"
    mtx.write_text("%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n2 3\n")
    line = assert_one_line_error(run("convert", str(mtx), str(tmp_path / "o"), "--renumber"), 1)
    assert "renumber" in line
    assert not (tmp_path / "o").exists()


def test_info_of_a_text_file(tmp_path):
    el = tmp_path / "g.txt"
    el.write_text("0 1\n1 2\n")
    r = run("info", str(el), "--json", "--format", "edgelist")
    assert r.exit_code == 0, r.output
    info = json.loads(r.stdout)
    assert (info["n"], info["m"], info["directed"]) == (3, 2, True)
    assert info["in_degree"]["max"] == 1 and info["isolated_vertices"] == 0


def test_progress_bars_on_a_terminal(tmp_path, monkeypatch):
    # CliRunner's stderr is not a terminal (bars are off there); force one.
    buf = io.StringIO()
    monkeypatch.setattr(cli.console, "_stderr", lambda: Console(file=buf, force_terminal=True, width=100))
    r = run("-v", "generate", "kronecker", "-s", "8", str(tmp_path / "k.store"))
    assert r.exit_code == 0, r.output
    assert "edge samples" in buf.getvalue() and "wrote" in buf.getvalue()
    el = tmp_path / "g.txt"
    el.write_text("0 1\n")
    assert run("convert", str(el), str(tmp_path / "g.store")).exit_code == 0
    assert run("-q", "demo", "--scale", "6").exit_code == 0


def test_every_command_has_json():
    """Scripts can ask every command for JSON on stdout (the root group and the generate group print nothing)."""
    import typer

    def leaves(cmd, path):
        if hasattr(cmd, "commands"):  # a group (typer carries its own copy of click's classes)
            for name, sub in cmd.commands.items():
                yield from leaves(sub, path + [name])
        else:
            yield path, cmd

    found = list(leaves(typer.main.get_command(app), []))
    assert len(found) >= 10
    for path, cmd in found:
        assert any("--json" in p.opts for p in cmd.params), " ".join(path)


def test_generate_and_convert_json(tmp_path):
    r = run("generate", "uniform", "-s", "4", "-e", "2", "--json", str(tmp_path / "u.store"))
    assert r.exit_code == 0, r.output
    made = json.loads(r.stdout)
    assert made["store"] == str(tmp_path / "u.store") and made["directed"] is False and made["m"] > 0
    el = tmp_path / "g.txt"
    el.write_text("0 1\n1 2\n")
    r = run("convert", str(el), str(tmp_path / "g.store"), "--directed", "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout) == {"store": str(tmp_path / "g.store"), "n": 3, "m": 2, "directed": True,
                                    "weighted": False}


def test_convert_bar_counts_the_bytes_read(tmp_path, monkeypatch):
    """convert draws a bar over the input's bytes (read, rate, ETA) from what the reader reports."""
    from graphferry.cli import console

    seen = []

    @contextlib.contextmanager
    def recording_bar(what):
        yield lambda path, position: seen.append((path, position))

    monkeypatch.setattr(console, "_bytes_bar", recording_bar)
    el = tmp_path / "g.el"
    el.write_text("".join(f"{i} {i + 1}\n" for i in range(2000)))
    assert run("convert", str(el), str(tmp_path / "g.store")).exit_code == 0
    positions = [pos for path, pos in seen]
    assert {path for path, _ in seen} == {str(el)}
    assert positions == sorted(positions) and positions[-1] == el.stat().st_size
    # and on a terminal the real bar is drawn with byte counts
    buf = io.StringIO()
    monkeypatch.undo()
    monkeypatch.setattr(console, "_stderr", lambda: Console(file=buf, force_terminal=True, width=120))
    assert run("convert", str(el), str(tmp_path / "h.store")).exit_code == 0
    assert "converting" in buf.getvalue()


def test_every_registered_algorithm_has_a_memory_estimate():
    """info's memory table covers exactly the algorithms run accepts (the registry's)."""
    from graphferry.algorithms import registry

    g = Graph.from_edges(np.array([0, 1]), np.array([1, 2]), n=3)
    assert set(cli.MEMORY_MODEL) == set(registry.names())
    assert set(cli.memory_estimates(g)) == set(registry.names())


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_table_readers_report_bytes_read(tmp_path, suffix):
    """CSV and Parquet tables report their progress too (the bar of convert), ending at the file's size."""
    pa = pytest.importorskip("pyarrow")
    from graphferry.io import read_graph, reporting_bytes_read

    path = tmp_path / f"g{suffix}"
    src = np.arange(50_000) % 997
    table = pa.table({"src": src, "dst": (src * 7 + 1) % 997})
    if suffix == ".csv":
        import pyarrow.csv as pacsv

        pacsv.write_csv(table, path)
        options = {"block_bytes": 1 << 16}
    else:
        import pyarrow.parquet as pq

        pq.write_table(table, path, row_group_size=10_000)
        options = {"batch_rows": 10_000}
    seen = []
    with reporting_bytes_read(lambda p, pos: seen.append(pos)):
        g = read_graph(path, **options)
    assert g.m == 50_000
    assert len(seen) > 1 and seen == sorted(seen) and seen[-1] == path.stat().st_size


def test_bench_lists_runs_and_refuses(tmp_path):
    """graphferry bench: the benchmarks of bench/, one run with its own options, a clear error otherwise."""
    listing = run("bench", "--json")
    assert listing.exit_code == 0, listing.output
    names = json.loads(listing.stdout)
    assert {"convert", "engines", "memory"} <= set(names) and all(names.values())
    r = run("bench", "convert", "--", "--help")  # the benchmark's own --help, in a child process
    assert r.exit_code == 0
    assert assert_one_line_error(run("bench", "nosuch"), 1).startswith("error: unknown benchmark 'nosuch'")
