"""The host library built as several units at once exports what one unit does (gf_host_ops.h's regions)."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from graphferry.errors import CompilerError
from graphferry.host_ops import compiler
from graphferry.host_ops._library import HOST_REGIONS, host_shards

SOURCE = '#include "gf_host_ops.h"\n'


def test_the_headers_regions_are_the_libraries():
    text = (compiler.HOST_DIR / "gf_host_ops.h").read_text()
    regions = {int(r) for r in re.findall(r"^#define GF_REGION (\d+)$", text, flags=re.M)}
    assert regions == set(range(HOST_REGIONS))
    assert 1 <= host_shards() <= HOST_REGIONS


def _exports(paths) -> list[str]:
    names = []
    for path in paths:
        out = subprocess.run(["nm", "-D", "--defined-only", str(path)], capture_output=True, text=True, check=True)
        names += [line.split()[-1] for line in out.stdout.splitlines() if line.split()[-1].startswith("gf_")]
    return sorted(names)


@pytest.mark.parametrize("shards", [3])
def test_a_sharded_build_exports_each_function_once_as_one_unit_does(tmp_path, monkeypatch, shards):
    if shutil.which("nm") is None:
        pytest.skip("needs nm (binutils)")
    try:
        cxx = compiler.find_compiler()
    except CompilerError:
        pytest.skip("needs a C++ compiler")
    monkeypatch.setenv("GRAPHFERRY_CACHE_DIR", str(tmp_path))
    whole = compiler.compile_library(SOURCE, label="host_ops_shards_test")
    sharded = compiler.compile_library(SOURCE, label="host_ops_shards_test", shards=shards)
    one = _exports([compiler._entry(cxx, SOURCE, "host_ops_shards_test")[1]])
    units = [f"#define GF_HOST_SHARD {k}\n#define GF_HOST_SHARDS {shards}\n{SOURCE}" for k in range(shards)]
    several = _exports([compiler._entry(cxx, unit, "host_ops_shards_test")[1] for unit in units])
    assert len(one) > 50 and several == one      # each export in exactly one unit
    assert sharded.gf_contract_arc_bytes() == whole.gf_contract_arc_bytes() > 0  # a call through the shards
