"""LDBC Graphalytics validation glue: read expected outputs, run an algorithm, compare by the spec's rules.

Rules (``spec/definition.tex``, "Output validation"):

* the vertex-id sets of reference and output must be equal;
* **exact** (BFS, CDLP): identical values (BFS unreachable = 9223372036854775807);
* **equivalence** (WCC): equal as partitions: vertices share a label in the output
  exactly when they share one in the reference;
* **epsilon** (PR, LCC, SSSP): ``|r - s| <= 1e-4 * |r|`` (equality allowed, so
  ``r = s = 0`` passes); ``infinity`` (SSSP unreachable) matches only infinity.

Output files are ``<vertex> <value>`` a line, separated by a space.
"""

from __future__ import annotations

import importlib
import math
import re
from pathlib import Path
from typing import Any

import numpy as np

BFS_UNREACHABLE = 9223372036854775807
EPSILON = 1e-4
ALGORITHMS = ("BFS", "CDLP", "LCC", "PR", "SSSP", "WCC")
RULES = {"BFS": "exact", "CDLP": "exact", "WCC": "equivalence", "PR": "epsilon", "LCC": "epsilon",
         "SSSP": "epsilon"}
_CASE = re.compile(r"^(?P<graph>.+)-(?P<alg>BFS|CDLP|LCC|PR|SSSP|WCC)$")


# ---------------------------------------------------------------- files
def cases(directory: Path) -> list[tuple[str, str]]:
    """``(graph name, algorithm)`` for every expected-output file ``<graph>-<ALG>`` in ``directory``."""
    out = []
    if directory.is_dir():
        for p in sorted(directory.iterdir()):
            m = _CASE.match(p.name)
            if m and p.is_file():
                out.append((m.group("graph"), m.group("alg")))
    return out


def _parse_value(tok: str) -> int | float:
    try:
        return int(tok)
    except ValueError:
        return float(tok)  # accepts "infinity", "+Infinity", "1.5e-01"


def read_output(path: str | Path) -> dict[int, int | float]:
    """``{vertex: value}`` from an LDBC output file (ints stay exact ints)."""
    out: dict[int, int | float] = {}
    for no, line in enumerate(Path(path).read_text().splitlines(), start=1):
        parts = line.split()
        if not parts:
            continue
        if len(parts) != 2:
            raise ValueError(f"{path}:{no}: expected '<vertex> <value>', got {line!r}")
        v = int(parts[0])
        if v in out:
            raise ValueError(f"{path}:{no}: vertex {v} listed twice")
        out[v] = _parse_value(parts[1])
    return out


# ---------------------------------------------------------------- comparison
def _epsilon_ok(r: float, s: float) -> bool:
    r, s = float(r), float(s)
    if math.isnan(r) or math.isnan(s):
        return False
    if math.isinf(r) or math.isinf(s):
        return r == s
    return abs(r - s) <= EPSILON * abs(r)


def _exact_ok(r, s) -> bool:
    if isinstance(r, int) and isinstance(s, int):
        return r == s
    return float(r) == float(s)


def compare(rule: str, expected: dict[int, Any], actual: dict[int, Any], limit: int = 10) -> list[str]:
    """Violations (empty when the output is valid) of ``actual`` against ``expected`` under ``rule``."""
    if rule not in ("exact", "epsilon", "equivalence"):
        raise ValueError(f"unknown rule {rule!r}")
    problems: list[str] = []
    missing = sorted(set(expected) - set(actual))
    extra = sorted(set(actual) - set(expected))
    if missing:
        problems.append(f"{len(missing)} vertices missing from the output, e.g. {missing[:5]}")
    if extra:
        problems.append(f"{len(extra)} vertices not in the reference, e.g. {extra[:5]}")
    common = sorted(set(expected) & set(actual))
    if rule == "equivalence":
        # the mapping expected label -> actual label must be a bijection
        fwd: dict[Any, Any] = {}
        back: dict[Any, Any] = {}
        for v in common:
            e, a = expected[v], actual[v]
            fa, be = fwd.setdefault(e, a), back.setdefault(a, e)
            if fa != a or be != e:
                problems.append(f"vertex {v}: reference class {e!r} is output class {fa!r} elsewhere, "
                                f"output class {a!r} is reference class {be!r} elsewhere")
            if len(problems) >= limit:
                break
        return problems
    ok = _exact_ok if rule == "exact" else _epsilon_ok
    for v in common:
        if not ok(expected[v], actual[v]):
            problems.append(f"vertex {v}: expected {expected[v]!r}, got {actual[v]!r}")
            if len(problems) >= limit:
                break
    return problems


# ---------------------------------------------------------------- running
def load_graph(directory: Path, name: str):
    """``(graph, parameters)`` through :func:`graphferry.io.read_ldbc` (undirected graphs symmetrised)."""
    from graphferry.io import read_ldbc

    return read_ldbc(directory / name)


def algorithm_module(alg: str):
    """The graphferry module for ``alg``, or None while it does not exist yet."""
    mod = {"BFS": "bfs", "CDLP": "cdlp", "LCC": "lcc", "PR": "pagerank", "SSSP": "sssp", "WCC": "wcc"}[alg]
    try:
        return importlib.import_module(f"graphferry.algorithms.{mod}")
    except ModuleNotFoundError as e:
        if e.name == f"graphferry.algorithms.{mod}":
            return None
        raise


def run(alg: str, graph, params: dict[str, Any], **options) -> dict[int, int | float]:
    """Run ``alg`` with the parameters of the ``.properties`` file; ``{original id: value}``."""
    mod = algorithm_module(alg)
    if mod is None:
        raise ModuleNotFoundError(f"graphferry.algorithms has no module for {alg} yet")
    if alg == "BFS":
        r = mod.bfs(graph, params["bfs.source-vertex"], **options)
        levels = r.levels.astype(np.int64)  # widened first: levels come in vertex ids' width (int32)
        values = np.where(levels < 0, BFS_UNREACHABLE, levels)
    elif alg == "CDLP":
        values = mod.cdlp(graph, max_iterations=int(params["cdlp.max-iterations"]), **options).labels
    elif alg == "LCC":
        values = mod.lcc(graph, **options).lcc
    elif alg == "PR":
        values = mod.pagerank_ldbc(graph, damping=float(params["pr.damping-factor"]),
                                   iterations=int(params["pr.num-iterations"]), **options).ranks
    elif alg == "SSSP":
        values = mod.sssp(graph, params["sssp.source-vertex"], **options).distances
    else:
        values = mod.wcc(graph, **options).labels
    ids = graph.to_original_ids(np.arange(graph.n))
    values = np.asarray(values)
    cast = int if values.dtype.kind in "iu" else float
    return {int(v): cast(x) for v, x in zip(ids.tolist(), values.tolist())}
