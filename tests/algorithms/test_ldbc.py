"""LDBC Graphalytics conformance: all 24 reference outputs, on the CPU backend with several engines."""

from __future__ import annotations

import pytest

import ldbc
from conftest import LDBC_GRAPHS, need_shared

CASES = ldbc.cases(LDBC_GRAPHS)
MATCHING = LDBC_GRAPHS.parent / "matching"

# engine "host" with default partitions; "compaction" and "filter" with partitions of a few edges,
# so even these 10-vertex graphs are processed partition by partition through the device arena
ENGINE_OPTIONS = {
    "host": {"backend": "cpu", "engine": "host"},
    "compaction": {"backend": "cpu", "engine": "compaction", "partition_bytes": 32, "budget": 1 << 16},
    "filter": {"backend": "cpu", "engine": "filter", "partition_bytes": 32, "budget": 1 << 16},
}
# the same suite on the GPU, every engine (skipped without one)
GPU_ENGINES = ["resident", "filter", "compaction", "zerocopy", "unified"]
for _engine in GPU_ENGINES:
    ENGINE_OPTIONS[f"cuda-{_engine}"] = pytest.param(
        {"backend": "cuda", "engine": _engine, "partition_bytes": 32, "budget": 1 << 16},
        marks=pytest.mark.gpu)


def test_suite_is_complete():
    need_shared(LDBC_GRAPHS, "LDBC validation graphs")
    assert len(CASES) == 24
    assert {alg for _, alg in CASES} == set(ldbc.ALGORITHMS)


@pytest.mark.parametrize("options", list(ENGINE_OPTIONS.values()), ids=list(ENGINE_OPTIONS))
@pytest.mark.parametrize("case", CASES or [None], ids=lambda c: "-".join(c) if c else "absent")
def test_ldbc_case(case, options):
    if case is None:
        need_shared(LDBC_GRAPHS, "LDBC validation graphs")
    name, alg = case
    assert ldbc.algorithm_module(alg) is not None, f"graphferry.algorithms has no {alg} module"
    graph, params = ldbc.load_graph(LDBC_GRAPHS, name)
    expected = ldbc.read_output(LDBC_GRAPHS / f"{name}-{alg}")
    actual = ldbc.run(alg, graph, params, **options)
    problems = ldbc.compare(ldbc.RULES[alg], expected, actual)
    assert not problems, f"{name}-{alg} ({ldbc.RULES[alg]} match) with {options}:\n" + "\n".join(problems)


# ---------------------------------------------------------------- the comparator's own tests
@pytest.mark.parametrize("rule", ["exact", "epsilon", "equivalence"])
def test_comparator_on_official_matching_examples(rule):
    need_shared(MATCHING, "LDBC matching examples")
    expected = ldbc.read_output(MATCHING / f"{rule}_expected.csv")
    assert ldbc.compare(rule, expected, ldbc.read_output(MATCHING / f"{rule}_actual1.csv")) == []
    assert ldbc.compare(rule, expected, ldbc.read_output(MATCHING / f"{rule}_actual2.csv")) != []


def test_comparator_rules():
    e = {1: 0.0, 2: 0.3, 3: float("inf")}
    assert ldbc.compare("epsilon", e, {1: 0.0, 2: 0.300029, 3: float("inf")}) == []
    assert ldbc.compare("epsilon", e, {1: 1e-300, 2: 0.3, 3: float("inf")})       # r = 0 needs s = 0
    assert ldbc.compare("epsilon", e, {1: 0.0, 2: 0.30004, 3: float("inf")})     # just outside 1e-4
    assert ldbc.compare("epsilon", e, {1: 0.0, 2: 0.3, 3: 1.7e308})              # inf only matches inf
    assert ldbc.compare("epsilon", e, {1: 0.0, 2: float("nan"), 3: float("inf")})
    assert ldbc.compare("exact", {1: ldbc.BFS_UNREACHABLE}, {1: ldbc.BFS_UNREACHABLE - 1})  # no float rounding
    assert ldbc.compare("exact", {1: 1, 2: 2}, {1: 1})                            # vertex missing
    assert ldbc.compare("exact", {1: 1}, {1: 1, 2: 2})                            # vertex extra
    assert ldbc.compare("equivalence", {1: 5, 2: 5, 3: 6}, {1: 0, 2: 0, 3: 9}) == []
    assert ldbc.compare("equivalence", {1: 5, 2: 5, 3: 6}, {1: 0, 2: 0, 3: 0})   # merged classes
    assert ldbc.compare("equivalence", {1: 5, 2: 5, 3: 6}, {1: 0, 2: 1, 3: 1})   # split and merged


def test_read_output_parses_ldbc_spellings(tmp_path):
    p = tmp_path / "out"
    p.write_text("1 0\n2 9223372036854775807\n3 infinity\n4 +Infinity\n5 1.5e-01\n")
    assert ldbc.read_output(p) == {1: 0, 2: 9223372036854775807, 3: float("inf"), 4: float("inf"), 5: 0.15}
    p.write_text("1 0\n1 2\n")
    with pytest.raises(ValueError, match="twice"):
        ldbc.read_output(p)
