"""One-shot runs of the command line (issue 34; issue 39 items 11 and 12).

A process that runs one command: it imports only what that command uses,
handles SIGINT and SIGTERM from the first instruction of ``main`` (one line,
130/143, nothing left), leaves no compiler temporary behind when stopped during
a compilation, and names its start-up phases in the summary line and the run
record. Each test runs the CLI in a fresh process, as a user does.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from graphferry.graph import Graph
from graphferry.store import write_store

SRC = Path(__file__).resolve().parents[2] / "src"


def _env(**extra: str) -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=str(SRC), OMP_WAIT_POLICY="passive", OMP_NUM_THREADS="2")
    env.update(extra)
    return env


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Path:
    rng = np.random.default_rng(5)
    src, dst = rng.integers(0, 300, 2000), rng.integers(0, 300, 2000)
    path = tmp_path_factory.mktemp("oneshot") / "g.store"
    write_store(Graph.from_edges(src, dst, n=300, directed=False), path)
    return path


# ----------------------------------------------------------------- imports
#: Runs ``main`` on the arguments after the first, then lists the modules imported into that file.
_MODULES_AFTER = """
import sys
from graphferry.cli import main
code = main(sys.argv[2:])
with open(sys.argv[1], "w") as f:
    f.write("\\n".join(sorted(sys.modules)))
sys.exit(code)
"""


def _modules_after(tmp_path: Path, *args: str, **env: str) -> set[str]:
    listing = tmp_path / "modules.txt"
    proc = subprocess.run([sys.executable, "-c", _MODULES_AFTER, str(listing), "-q", *args],
                          capture_output=True, text=True, timeout=300, env=_env(**env))
    assert proc.returncode == 0, proc.stderr
    return set(listing.read_text().split())


def test_importing_the_command_line_imports_nothing_heavy():
    code = "import sys, graphferry.cli; print(' '.join(sorted(sys.modules)))"
    mods = set(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=_env(),
                              check=True).stdout.split())
    assert not {"numpy", "typer", "rich", "graphferry.graph"} & mods


def test_generate_imports_neither_the_runtime_nor_other_commands(tmp_path):
    mods = _modules_after(tmp_path, "generate", "kronecker", "--scale", "4", str(tmp_path / "g.store"))
    assert (tmp_path / "g.store" / "manifest.json").exists()
    assert not {m for m in mods if m.startswith(("graphferry.runtime", "graphferry.algorithms.",
                                                  "graphferry.engines", "graphferry.scheduler"))}
    assert not {"graphferry.cli.run", "graphferry.cli.cf", "graphferry.cli.demo", "graphferry.cli.tools"} & mods


def test_run_imports_its_own_algorithm_alone(tmp_path, store):
    mods = _modules_after(tmp_path, "run", "bfs", str(store), "--source", "0", "--backend", "cpu")
    algorithms = {m for m in mods if m.startswith("graphferry.algorithms.")}
    assert "graphferry.algorithms.bfs" in algorithms
    assert not algorithms & {"graphferry.algorithms.pagerank", "graphferry.algorithms.sssp",
                             "graphferry.algorithms.communities", "graphferry.algorithms.betweenness"}
    assert not {"graphferry.cli.cf", "graphferry.cli.demo", "graphferry.cli.tools", "graphferry.cli.tables",
                "graphferry.distributed.graph"} & mods
    # a plain command line is parsed without typer (its pydantic validators cost more than the BFS here),
    # and a quiet run on a pipe prints without rich
    assert not {m.partition(".")[0] for m in mods} & {"typer", "click", "pydantic", "rich"}
    assert "graphferry.cli.run" not in mods and not {m for m in mods if m.startswith("graphferry.scheduler")}


def test_every_command_is_mapped_to_its_module():
    """``main`` imports one module per command: the map must name every command the app has."""
    import typer

    from graphferry import cli

    group = typer.main.get_command(cli.app)
    assert set(group.commands) == set(cli.COMMAND_MODULES)
    for name, module in cli.COMMAND_MODULES.items():
        assert name in typer.main.get_command(cli.app).commands
        assert f"graphferry.cli.{module}" in sys.modules


def test_the_package_attribute_app_is_the_application():
    from graphferry.cli import app  # the typer app, never the submodule of that name

    assert type(app).__name__ == "Typer"
    import graphferry.cli

    assert graphferry.cli.app is app


# ----------------------------------------------------------------- signals
#: Runs ``main`` and delivers the signal named by argv[1] the instant main imports typer
#: (after main's first instruction, before any command exists), as a Ctrl-C in the first
#: second of a command does.
_SIGNAL_AT_IMPORT = """
import builtins, os, signal, sys
from graphferry.cli import main
real = builtins.__import__
def importing(name, *args, **kwargs):
    if name == "typer":
        builtins.__import__ = real
        os.kill(os.getpid(), getattr(signal, sys.argv[1]))
    return real(name, *args, **kwargs)
builtins.__import__ = importing
sys.exit(main(sys.argv[2:]))
"""


@pytest.mark.parametrize("sig, code, word", [("SIGINT", 130, "interrupted"), ("SIGTERM", 143, "terminated")])
def test_signal_while_main_imports_gives_one_line(tmp_path, store, sig, code, word):
    out = tmp_path / "g.store"
    proc = subprocess.run([sys.executable, "-c", _SIGNAL_AT_IMPORT, sig, "convert", str(store / "manifest.json"),
                           str(out)], capture_output=True, text=True, timeout=120,
                          env=_env(TMPDIR=str(tmp_path)))
    assert proc.returncode == code, (proc.returncode, proc.stderr)
    assert [ln for ln in proc.stderr.splitlines() if ln.strip()] == [f"error: {word}"]
    assert not out.exists()


@pytest.mark.parametrize("sig, code, word", [("SIGINT", 130, "interrupted"), ("SIGTERM", 143, "terminated")])
def test_signal_during_the_first_compilation_leaves_nothing(tmp_path, store, sig, code, word):
    cache, tmpdir = tmp_path / "cache", tmp_path / "tmp"
    tmpdir.mkdir()
    for _ in range(5):
        proc = subprocess.Popen([sys.executable, "-m", "graphferry", "-q", "run", "wcc", str(store),
                                 "--backend", "cpu"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env=_env(GRAPHFERRY_CACHE_DIR=str(cache), TMPDIR=str(tmpdir)))
        t0 = time.monotonic()
        caught = False
        while proc.poll() is None and time.monotonic() - t0 < 120:
            building = cache / "cpu"
            if building.is_dir() and any(p.name.endswith(".tmp") for p in building.iterdir()):
                time.sleep(0.2)  # the compiler is running (and writing its temporaries) now
                caught = proc.poll() is None
                if caught:
                    proc.send_signal(getattr(signal, sig))
                break
            time.sleep(0.005)
        _, err = proc.communicate(timeout=120)
        if caught:
            break
    else:
        pytest.fail("could not catch the compiler at work")
    assert proc.returncode == code, (proc.returncode, err)
    assert [ln for ln in err.splitlines() if ln.strip()] == [f"error: {word}"]
    assert list(tmpdir.iterdir()) == []
    assert [p.name for p in (cache / "cpu").iterdir() if p.name.startswith(".")] == []


# ----------------------------------------------------------------- the record
def test_summary_and_record_name_the_start_up_phases(tmp_path, store):
    record = tmp_path / "r.json"
    proc = subprocess.run([sys.executable, "-m", "graphferry", "run", "bfs", str(store), "--source", "0",
                           "--backend", "cpu", "--out", str(tmp_path / "x.npy"), "--record", str(record)],
                          capture_output=True, text=True, timeout=300, env=_env())
    assert proc.returncode == 0, proc.stderr
    first = proc.stdout.splitlines()[0]
    assert "engine host on cpu" in first
    assert "one-shot: " in first and "loaded once before" not in first
    phases = json.loads(record.read_text())["extra"]["phases"]
    assert {"start", "imports", "read", "load", "compile", "calibration", "algorithm", "write"} <= set(phases)
    assert all(v >= 0 for v in phases.values())
    assert list(phases).index("imports") < list(phases).index("algorithm") < list(phases).index("write")


@pytest.mark.parametrize("algorithm", ["cdlp", "lcc", "triangle_count"])
def test_summary_claims_no_empty_iterations(store, algorithm):
    proc = subprocess.run([sys.executable, "-m", "graphferry", "run", algorithm, str(store), "--backend", "cpu"],
                          capture_output=True, text=True, timeout=300, env=_env())
    assert proc.returncode == 0, proc.stderr
    first = proc.stdout.splitlines()[0]
    assert "0 iterations" not in first and "0 edge maps" not in first
    assert "engine host on cpu" in first


def test_one_shot_cpu_run_reads_the_store_in_place(tmp_path, store):
    """The CPU backend reads a one-shot run's store through its memory map (no copy), with the same answer."""
    from scipy.sparse import csgraph

    from graphferry.store import open_store

    out = tmp_path / "levels.npy"
    proc = subprocess.run([sys.executable, "-m", "graphferry", "-q", "-v", "run", "bfs", str(store), "--source", "3",
                           "--backend", "cpu", "--out", str(out)],
                          capture_output=True, text=True, timeout=300, env=_env())
    assert proc.returncode == 0, proc.stderr
    assert "indices: in place" in proc.stderr
    g = open_store(store)
    hops = csgraph.shortest_path(g.to_scipy(), unweighted=True, indices=3)
    levels = np.load(out, allow_pickle=False)
    got = levels["levels"] if levels.dtype.names else levels
    np.testing.assert_array_equal(got, np.where(np.isinf(hops), -1, hops).astype(got.dtype))
