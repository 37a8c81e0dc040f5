"""The command line's edges (issue 39): malformed run records, picture formats, the umask, output
folders, messages whose numbers tell the difference, and one error line under ``mpiexec``."""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from graphferry.cli import app
from graphferry.generators import kronecker_graph
from graphferry.store import write_store

SRC = Path(__file__).resolve().parents[2] / "src"


def run(*args: str):
    return CliRunner().invoke(app, [str(a) for a in args])


def one_line_error(result, code: int = 1) -> str:
    assert result.exit_code == code, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert "internal error" not in lines[0] and "Traceback" not in result.output
    return lines[0]


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    path = tmp_path_factory.mktemp("edges") / "k6.store"
    write_store(kronecker_graph(6, 8, seed=1, directed=True), path)
    return path


@pytest.fixture(scope="module")
def record(store, tmp_path_factory):
    path = tmp_path_factory.mktemp("record") / "bfs.json"
    r = run("run", "bfs", store, "--source", "0", "--backend", "cpu", "--engine", "filter",
            "--partition-bytes", "4KiB", "--record", path)
    assert r.exit_code == 0, r.output
    return json.loads(path.read_text())


@contextlib.contextmanager
def umask(mask: int):
    old = os.umask(mask)
    try:
        yield
    finally:
        os.umask(old)


# ------------------------------------------------------------------ plot
def _without_seconds(rec):
    for s in rec["steps"]:
        s.pop("seconds", None)
    return rec


def _partition_is_a_number(rec):
    for s in rec["steps"]:
        if s["op"] == "edge_map":
            s["partitions"] = [3]
    return rec


@pytest.mark.parametrize("edit, needle", [
    (lambda rec: {"steps": "x"}, "'steps' is a str"),
    (lambda rec: {"steps": None}, "'steps' is null"),
    (lambda rec: {**rec, "steps": [7]}, "steps[0] is a int"),
    (_without_seconds, "'seconds' is missing"),
    (_partition_is_a_number, "partitions[0] is a int"),
    (lambda rec: [rec], "not a list"),
])
def test_plot_names_the_file_and_what_is_wrong_in_a_malformed_record(record, tmp_path, edit, needle):
    bad = tmp_path / "edited.json"
    bad.write_text(json.dumps(edit(json.loads(json.dumps(record)))))
    line = one_line_error(run("plot", bad, "--out", tmp_path / "p.png"))
    assert str(bad) in line and needle in line, line
    assert not (tmp_path / "p.png").exists()


@pytest.mark.parametrize("suffix, magic", [(".png", b"\x89PNG\r\n\x1a\n"), (".svg", b"<svg"), (".pdf", b"%PDF")])
def test_plot_writes_the_format_its_suffix_names(record, tmp_path, suffix, magic):
    rec = tmp_path / "r.json"
    rec.write_text(json.dumps(record))
    out = tmp_path / f"p{suffix}"
    r = run("plot", rec, "--out", out)
    assert r.exit_code == 0, r.output
    head = out.read_bytes()[:4096]
    assert head.startswith(magic) or (suffix == ".svg" and magic in head)
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


@pytest.mark.parametrize("name", ["p.txt", "p", "p.json"])
def test_plot_refuses_a_suffix_it_cannot_write_naming_it(record, tmp_path, name):
    rec = tmp_path / "r.json"
    rec.write_text(json.dumps(record))
    line = one_line_error(run("plot", rec, "--out", tmp_path / name))
    suffix = Path(name).suffix
    assert "--out" in line and (f"as {suffix};" in line if suffix else "without a suffix" in line), line
    assert not (tmp_path / name).exists()


# ------------------------------------------------------------------ umask
@pytest.mark.parametrize("mask", [0o022, 0o077])
def test_every_file_and_folder_made_follows_the_umask(store, record, tmp_path, mask):
    files, folders = 0o666 & ~mask, 0o777 & ~mask
    el = tmp_path / "g.el"
    el.write_text("0 1\n1 2\n2 0\n")
    rec = tmp_path / "r.json"
    rec.write_text(json.dumps(record))
    with umask(mask):
        assert run("convert", el, tmp_path / "c.store").exit_code == 0
        assert run("generate", "kronecker", "-s", "4", tmp_path / "k.store").exit_code == 0
        r = run("run", "bfs", store, "--source", "0", "--backend", "cpu", "--out", tmp_path / "t" / "levels.csv",
                "--record", tmp_path / "rec" / "run.json")
        assert r.exit_code == 0, r.output
        assert run("plot", rec, "--out", tmp_path / "pics" / "p.png").exit_code == 0
    made = [tmp_path / "c.store", tmp_path / "k.store", tmp_path / "t", tmp_path / "rec", tmp_path / "pics"]
    for folder in made:
        assert stat.S_IMODE(folder.stat().st_mode) == folders, folder
    for folder in made:
        for f in folder.iterdir():
            assert stat.S_IMODE(f.stat().st_mode) == files, f


# ------------------------------------------------------- outputs, up front
def test_record_and_out_make_their_missing_folders(store, tmp_path):
    out, rec = tmp_path / "a" / "b" / "levels.npy", tmp_path / "c" / "d" / "run.json"
    r = run("run", "bfs", store, "--source", "0", "--backend", "cpu", "--out", out, "--record", rec)
    assert r.exit_code == 0, r.output
    assert json.loads(rec.read_text())["algorithm"] == "bfs" and np.load(out).shape == (64,)


@pytest.mark.parametrize("option", ["--out", "--record"])
def test_an_output_that_cannot_be_written_is_refused_before_the_run(store, tmp_path, option):
    (tmp_path / "afile").write_text("not a folder")
    bad = tmp_path / "afile" / ("x.csv" if option == "--out" else "r.json")
    other = "--record" if option == "--out" else "--out"
    good = tmp_path / ("r.json" if option == "--out" else "x.csv")
    line = one_line_error(run("run", "bfs", store, "--source", "0", "--backend", "cpu", option, bad, other, good))
    assert line.startswith(f"error: {option} {bad}:") and "not a folder" in line, line
    assert not good.exists()  # nothing written: refused before the work
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile"]


def test_cf_factors_make_their_folders_follow_the_umask_and_are_checked_first(tmp_path):
    ratings = tmp_path / "r.tsv"
    ratings.write_text("".join(f"u{u} i{i} {1 + (u * i) % 5}\n" for u in range(6) for i in range(5)))
    out = tmp_path / "new" / "f.npy"
    with umask(0o027):
        r = run("cf", ratings, "--rank", "2", "--iterations", "3", "--backend", "cpu", "--out", out)
    assert r.exit_code == 0, r.output
    assert stat.S_IMODE(out.stat().st_mode) == 0o640 and len(np.load(out)) == 11
    (tmp_path / "afile").write_text("x")
    line = one_line_error(run("cf", ratings, "--backend", "cpu", "--out", tmp_path / "afile" / "f.npy"))
    assert "--out" in line and "is not a folder" in line


@pytest.mark.parametrize("command", [["generate", "kronecker", "-s", "4"], ["convert", "{el}"]])
def test_a_store_under_a_file_is_refused_before_the_work_naming_it(tmp_path, command):
    el = tmp_path / "g.el"
    el.write_text("0 1\n")
    (tmp_path / "afile").write_text("x")
    target = tmp_path / "afile" / "sub" / "g.store"
    line = one_line_error(run(*[a.replace("{el}", str(el)) for a in command], target))
    assert line == f"error: {target}: {tmp_path / 'afile'} is not a folder", line


def test_an_output_that_is_a_folder_is_refused_naming_it(store, tmp_path):
    (tmp_path / "r.json").mkdir()
    line = one_line_error(run("run", "bfs", store, "--source", "0", "--backend", "cpu", "--record",
                              tmp_path / "r.json"))
    assert f"--record {tmp_path / 'r.json'}: is a folder" in line


# ---------------------------------------------------------------- messages
def test_partition_bytes_just_below_the_minimum_says_the_exact_bytes(store):
    line = one_line_error(run("info", store, "--partition-bytes", "4095"), code=2)
    assert "4,095 B is below the minimum of 4,096 B" in line, line


def test_an_edited_manifest_shape_says_what_it_claims_and_what_the_file_holds(store, tmp_path):
    copy = tmp_path / "s.store"
    shutil.copytree(store, copy)
    manifest = json.loads((copy / "manifest.json").read_text())
    m = manifest["m"]
    manifest["files"]["indices"]["shape"] = [m + 1]
    (copy / "manifest.json").write_text(json.dumps(manifest))
    line = one_line_error(run("info", copy))
    assert f"the manifest says shape [{m + 1}], the file holds [{m}]" in line, line


def test_summaries_are_not_wrapped_when_piped(store):
    r = run("run", "bfs", store, "--source", "0", "--backend", "cpu", "--engine", "filter")
    assert r.exit_code == 0, r.output
    first = r.stdout.splitlines()[0]
    assert len(first) > 80 and first.startswith("bfs: ") and "engine filter on cpu" in first, r.stdout


# ------------------------------------------------------------------- mpiexec
_BESIDE = Path(sys.executable).parent / "mpiexec"
MPIEXEC = str(_BESIDE) if _BESIDE.exists() else shutil.which("mpiexec")
needs_mpi = pytest.mark.skipif(importlib.util.find_spec("mpi4py") is None or MPIEXEC is None,
                               reason="needs mpi4py and mpiexec (pip install 'graphferry[mpi]')")


@needs_mpi
@pytest.mark.parametrize("args, needle", [
    (["--source", "0", "--check"], "--check runs in one process"),     # refused before the ranks split
    (["--source", "99999"], "--source 99999: vertex 99999 is not in the graph"),  # found by every rank
])
def test_a_user_error_under_mpiexec_is_one_line_and_a_clean_exit(store, args, needle):
    env = dict(os.environ, PYTHONPATH=str(SRC), OMP_NUM_THREADS="1")
    done = subprocess.run([MPIEXEC, "-n", "2", sys.executable, "-m", "graphferry", "run", "bfs", str(store),
                           "--backend", "cpu", *args], capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 1, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and needle in lines[0], done.stderr
    assert "Abort" not in done.stdout + done.stderr


@needs_mpi
def test_a_check_that_fails_on_one_rank_alone_ends_every_rank_with_one_line(store, tmp_path):
    # rank 1 names a graph that is not there (as on a node without the shared folder): rank 0 must
    # not wait for it in the split; every rank ends, rank 0 says which rank failed and why
    env = dict(os.environ, PYTHONPATH=str(SRC), OMP_NUM_THREADS="1")
    missing = tmp_path / "not-on-this-node.store"
    script = (f'g="{store}"; [ "${{PMI_RANK:-0}}" = 1 ] && g="{missing}"; '
              f'exec "{sys.executable}" -m graphferry run bfs "$g" --source 0 --backend cpu')
    done = subprocess.run([MPIEXEC, "-n", "2", "sh", "-c", script], capture_output=True, text=True, timeout=120,
                          env=env)
    assert done.returncode == 1, done.stderr
    assert done.stderr.strip() == f"error: rank 1 of 2: {missing}: no such file or directory", done.stderr
    assert "Abort" not in done.stdout + done.stderr
