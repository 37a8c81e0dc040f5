"""The one-shot ``run`` parser (graphferry.cli.quick_run) against the typer command it stands in for.

Every command line the shortcut takes must give what the typer command gives: the same exit
status, the same stderr (the one ``error:`` line), the same stdout but for the seconds in it,
and the same file. A command line it does not take must reach the typer command untouched
(``main`` returns None and has printed nothing). The oracle is typer/click's own parsing of
the same argv, run in this process.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphferry.cli import quick_run
from graphferry.graph import Graph
from graphferry.store import write_store

@pytest.fixture(scope="module")
def work(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("quick")
    rng = np.random.default_rng(11)
    src, dst = rng.integers(0, 60, 300), rng.integers(0, 60, 300)
    write_store(Graph.from_edges(src, dst, n=60, directed=False), d / "g.store")
    return d


def _typer_run(argv: list[str]) -> int:
    """The typer command line on ``argv`` (as ``graphferry.cli.main`` runs it without the shortcut)."""
    from graphferry.cli import _import_commands
    from graphferry.cli.group import click_group

    _import_commands({"run"})
    return click_group("run").main(args=argv, prog_name="graphferry", standalone_mode=False)


_SECONDS = re.compile(r"\d+\.\d+(e[-+]?\d+)?|\d+e[-+]?\d+")


def _answer(path: Path) -> dict[str, np.ndarray] | None:
    """The file a run wrote, as columns (BFS's parents left out: threads race for them)."""
    if not path.exists():
        return None
    table = np.load(path, allow_pickle=False)
    return {k: table[k] for k in table.dtype.names if k != "parents"}


def _both(argv: list[str], work: Path, capsys) -> tuple[tuple, tuple] | None:
    """(status, stdout, stderr, file) from the shortcut and from typer; None where the shortcut declines."""
    outs = []
    for runner in ("quick", "typer"):
        for p in work.glob("o*"):
            p.unlink() if p.is_file() else shutil.rmtree(p)
        capsys.readouterr()
        code = quick_run.main(argv) if runner == "quick" else _typer_run(argv)
        out, err = capsys.readouterr()
        if code is None:
            assert out == err == "", "a command line the shortcut declines must print nothing"
            return None
        outs.append((code, _SECONDS.sub("S", out), err, _answer(work / "o.npy")))
    return outs[0], outs[1]


def _same(a: tuple, b: tuple) -> None:
    assert a[:3] == b[:3]
    if a[3] is None or b[3] is None:
        assert a[3] is b[3]
    else:
        assert a[3].keys() == b[3].keys() and all(np.array_equal(a[3][k], b[3][k]) for k in a[3])


def _argv(work: Path, *tokens: str) -> list[str]:
    return [t.replace("STORE", str(work / "g.store")).replace("OUT", str(work / "o")) for t in tokens]


@pytest.mark.parametrize("tokens, declined", [
    (("-q", "run", "bfs", "STORE", "--source", "3", "--backend", "cpu", "--out", "OUT.npy"), False),
    (("run", "bfs", "STORE", "--source=3", "-o", "OUT.npy", "--backend=cpu", "--json"), False),
    (("-q", "run", "--backend", "cpu", "wcc", "--out", "OUT.npy", "STORE", "--engine", "host"), False),
    (("-q", "run", "pagerank_ldbc", "STORE", "--backend", "cpu", "--damping", "0.85", "--iterations", "3",
      "--stop-below", "1e-4", "--out", "OUT.npy"), False),
    (("-q", "run", "pagerank_ldbc", "STORE", "--backend", "cpu", "--damping", "0.85",
      "--param", "iterations=2"), False),
    (("-q", "run", "pagerank", "STORE", "--backend", "cpu", "--max-iterations", "5", "--check"), False),
    (("-q", "run", "betweenness", "STORE", "--backend", "cpu", "--k", "4", "--seed", "2",
      "--no-normalized"), False),
    (("-q", "run", "bfs", "STORE", "--backend", "cpu", "--budget", "1MiB", "--partition-bytes", "4KiB",
      "--engine", "compaction", "--source", "0", "--direction", "push"), False),
    # errors the shortcut reports itself, in the typer command's words
    (("-q", "run", "bfs", "STORE", "--backend", "cpu"), False),                        # no --source
    (("-q", "run", "bfs", "STORE", "--source", "99999", "--backend", "cpu"), False),   # not a vertex
    (("-q", "run", "bogus", "STORE"), False),
    (("-q", "run", "bfs", "OUT-missing.store", "--source", "1"), False),
    (("-q", "run", "wcc", "STORE", "--out", "OUT.txt", "--backend", "cpu"), False),
    (("-q", "run", "wcc", "STORE", "--damping", "0.5", "--backend", "cpu"), False),     # not wcc's
    (("-q", "run", "pagerank_ldbc", "STORE", "--damping", "0.85", "--iterations", "2",
      "--param", "bogus=1"), False),
    (("-q", "run", "pagerank", "STORE", "--damping", "1.5", "--backend", "cpu"), False),
    # left to typer: its own usage errors and help
    (("run", "bfs", "STORE", "--help"), True),
    (("-q", "run", "bfs", "STORE", "--backend", "gpu"), True),
    (("-q", "run", "bfs", "STORE", "--frobnicate"), True),
    (("-q", "run", "bfs", "STORE", "--source"), True),
    (("-q", "run", "bfs", "STORE", "--source", "-1"), True),
    (("-q", "run", "bfs", "STORE", "extra", "--source", "1"), True),
    (("-q", "run", "pagerank_ldbc", "STORE", "--damping", "0.85"), True),               # needs --iterations
    (("-q", "run", "pagerank", "STORE", "--max-iterations", "1.5"), True),
    (("-q", "run", "bfs", "STORE", "--partition-bytes", "100", "--source", "1"), True),
    (("--version", "run", "bfs", "STORE"), True),
])
def test_the_shortcut_gives_what_typer_gives(work, capsys, tokens, declined):
    pair = _both(_argv(work, *tokens), work, capsys)
    assert (pair is None) == declined
    if pair is not None:
        _same(*pair)


_OPTIONS = st.sampled_from([
    ("--source", "0"), ("--source", "7"), ("--source", "59"), ("--source", "60"), ("--source", "x"),
    ("--source", "-3"), ("--backend", "cpu"), ("--backend", "auto"), ("--backend", "tpu"),
    ("--engine", "host"), ("--engine", "auto"), ("--engine", "filter"), ("--engine", "nope"),
    ("--out", "OUT.npy"), ("-o", "OUT.npy"), ("--out", "OUT.csv"), ("--out", "OUT"), ("--direction", "pull"),
    ("--direction", "up"), ("--budget", "2MiB"), ("--budget", "0"), ("--budget", "1e3"),
    ("--partition-bytes", "8KiB"), ("--partition-bytes", "12"), ("--damping", "0.85"), ("--damping", "x"),
    ("--iterations", "2"), ("--iterations", "+2"), ("--max-iterations", "3"), ("--tol", "1e-3"),
    ("--tol", "inf"), ("--k", "3"), ("--seed", "1"), ("--param", "k=2"), ("--param", "iterations=2"),
    ("--param", "nope"), ("--check",), ("--json",), ("--verify",), ("--normalized",), ("--no-normalized",),
    ("--record", "OUT.json"), ("--help",), ("--unknown",), ("--out",),
])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(prefix=st.sampled_from([[], ["-q"], ["--quiet"]]),
       algorithm=st.sampled_from(["bfs", "wcc", "pagerank", "pagerank_ldbc", "nope"]),
       graph=st.sampled_from(["STORE", "OUT-missing"]),
       options=st.lists(_OPTIONS, max_size=5), equals=st.booleans())
def test_any_command_line_gives_what_typer_gives(work, capsys, prefix, algorithm, graph, options, equals):
    # options as "--opt VALUE" or "--opt=VALUE"; the graph after them (click takes it anywhere)
    tokens = [t for opt in options for t in ((f"{opt[0]}={opt[1]}",) if equals and len(opt) == 2
                                             and opt[0].startswith("--") else opt)]
    argv = _argv(work, *prefix, "run", algorithm, *tokens, graph)
    pair = _both(argv, work, capsys)
    if pair is not None:
        _same(*pair)


def test_a_plain_run_is_taken_without_typer(work):
    """The command lines a script writes are the shortcut's (else the saving is lost silently)."""
    assert quick_run.parse(_argv(work, "-q", "run", "bfs", "STORE", "--source", "1", "--out", "OUT.npy",
                                 "--backend", "cpu")) is not None
    assert quick_run.parse(_argv(work, "run", "wcc", "STORE", "--backend", "cpu", "--out", "OUT.npy",
                                 "--record", "OUT.json")) is not None
