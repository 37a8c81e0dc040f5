"""The algorithm registry says the truth about every algorithm: signatures, columns, verifiers."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

from graphferry import Graph, algorithms
from graphferry.algorithms import registry
from graphferry.algorithms.registry import REQUIRED

RUN_OPTIONS = {"graph", "source", "options", "kwargs"}
#: parameters needed to run each algorithm in these tests (the rest take their defaults)
GIVEN = {"pagerank_ldbc": {"damping": 0.85, "iterations": 5}, "pagerank": {"tol": 1e-9, "max_iterations": 300}}


def test_registry_lists_the_algorithms_the_package_exports():
    assert registry.names() == tuple(algorithms.ALGORITHMS)


@pytest.mark.parametrize("name", registry.names())
def test_spec_matches_the_function_signature(name):
    spec = registry.get(name)
    params = inspect.signature(spec.function).parameters
    declared = {p.name: p for p in spec.parameters}
    assert set(params) - RUN_OPTIONS == set(declared), "every algorithm parameter declared, nothing else"
    for pname, p in declared.items():
        default = params[pname].default
        if p.required:
            assert default is inspect.Parameter.empty, f"{pname} is required in the registry, not in the function"
        else:
            assert default == p.default, f"{pname}: registry default {p.default!r}, function default {default!r}"
    assert spec.takes_source == ("source" in params)
    assert callable(spec.verifier_function)
    assert spec.summary.endswith(".") and len(spec.summary) < 120


@pytest.mark.parametrize("name", registry.names())
@pytest.mark.parametrize("directed", [True, False])
def test_run_gives_the_declared_columns_and_verifies(name, directed):
    spec = registry.get(name)
    rng = np.random.default_rng(7)
    g = Graph.from_edges(rng.integers(0, 40, 160), rng.integers(0, 40, 160), n=40, directed=directed)
    params = GIVEN.get(name, {})
    result = spec.run(g, source=0 if spec.takes_source else None, backend="cpu", **params)
    assert list(result.values) == [c.name for c in spec.columns]
    assert set(spec.scalars) <= set(result.scalars)
    # one id declaration: the registry's; the Result that library users read agrees with it
    assert result.vertex_ids == spec.vertex_ids
    assert set(spec.vertex_ids) <= set(result.values) | set(result.scalars)
    for column in spec.columns:
        values = np.asarray(result.values[column.name])
        assert values.dtype == column.numpy_dtype(g), column.name
        if column.ids == "internal":
            assert values.min() >= -1 and values.max() < g.n
    spec.verify(g, result, **params)


@pytest.mark.parametrize("name", registry.names())
def test_verify_rejects_a_wrong_result(name):
    spec = registry.get(name)
    g = Graph.from_edges(np.array([0, 1, 2, 3, 0]), np.array([1, 2, 3, 0, 2]), n=6)
    params = GIVEN.get(name, {})
    result = spec.run(g, source=0 if spec.takes_source else None, backend="cpu", **params)
    # a result of one row per pair (no vertex column): its last edge column is the answer
    table = result.values if spec.columns else result.edges
    column = spec.columns[0].name if spec.columns else list(result.edges)[-1]
    wrong = np.asarray(table[column]).copy()
    k = min(1, len(wrong) - 1)
    wrong[k] = wrong[k] + 7 if wrong.dtype.kind in "iu" else wrong[k] + 0.25
    table[column] = wrong
    with pytest.raises(AssertionError):
        spec.verify(g, result, **params)


def test_run_checks_parameters_with_clear_messages():
    g = Graph.from_edges(np.array([0]), np.array([1]), n=2)
    with pytest.raises(ValueError, match="bfs needs a source vertex"):
        registry.get("bfs").run(g)
    with pytest.raises(ValueError, match="wcc takes no source vertex"):
        registry.get("wcc").run(g, source=0)
    with pytest.raises(ValueError, match="parameter 'iterations' is required"):
        registry.get("pagerank_ldbc").run(g, damping=0.85)
    with pytest.raises(ValueError, match="'dtype' must be one of float64, float32"):
        registry.get("pagerank").check_parameters({"dtype": "float16"})
    with pytest.raises(ValueError, match="unknown parameter"):
        registry.get("lcc").check_parameters({"damping": 0.5})
    with pytest.raises(KeyError):
        registry.get("lcc").parameter("damping")
    assert registry.get("cdlp").parameter("max_iterations").default == 10
    assert registry.get("pagerank_ldbc").parameter("damping").default is REQUIRED
