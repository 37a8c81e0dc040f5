"""The CUDA kernel groups (backends/cuda/kernel_groups.py) build, between them, exactly the
kernels of the whole program, each in the group the backend looks it up in.

Oracle: the kernel entry points nvcc itself emits for the whole translation unit (PTX). Needs
nvcc (skipped without it); no GPU and no CuPy.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from graphferry.algorithms.pagerank import LDBC_PROGRAM
from graphferry.backends.base import INCLUDE_DIR
from graphferry.backends.cuda.kernel_groups import group_source, groups_needed, kernel_group

CUDA_DIR = INCLUDE_DIR.parent / "cuda"


def entries(tmp_path: Path, text: str) -> set[str]:
    cu, ptx = tmp_path / "unit.cu", tmp_path / "unit.ptx"
    cu.write_text("#include <cstdint>\n" + text)  # NVRTC predefines the fixed-width integers; nvcc does not
    subprocess.run(["nvcc", "-std=c++17", f"-I{INCLUDE_DIR}", f"-I{CUDA_DIR}", "-arch=sm_90", "-ptx", "-w",
                    "-o", str(ptx), str(cu)], check=True, capture_output=True)
    return set(re.findall(r"\.entry (gf_\w+)", ptx.read_text()))


@pytest.mark.slow  # fourteen nvcc compilations
@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")
def test_groups_build_every_kernel_once_in_its_own_group(tmp_path):
    program = LDBC_PROGRAM  # both directions, both forms of ids, vertex maps: every group
    unit = program.translation_unit("int32_t", "gf_cuda_kernels.cuh")
    whole = entries(tmp_path, unit)
    launches = {f"{d}{launch}{form}" for d in ("push", "pull") for launch in ("", "_zc", "_huge")
                for form in ("", "_packed")}
    assert whole and set(groups_needed(program)) == launches | {"maps"}
    seen: list[str] = []
    for group in groups_needed(program):
        got = entries(tmp_path, group_source(unit, group))
        assert got and all(kernel_group(k) == group for k in got), (group, sorted(got))
        seen += got
    assert sorted(seen) == sorted(whole)
