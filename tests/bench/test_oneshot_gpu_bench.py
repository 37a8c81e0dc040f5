"""bench/oneshot_gpu_bench.py's pieces that need no GPU: its options for each side, GAPBS pr's
printed error, and the reading of what CuPy compiled into a fresh cache (what the device call's
fresh rows report)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import oneshot_gpu_bench as bench  # noqa: E402


def test_pagerank_runs_a_fixed_number_of_rounds_on_both_sides():
    ours, peer = bench.OPTIONS["pagerank"], bench.PEER_OPTIONS["pagerank"]
    assert ours[ours.index("--iterations") + 1] == str(bench.PR_ROUNDS) and "--stop-below" not in ours
    assert peer == ["-i", str(bench.PR_ROUNDS), "-t", "0"]
    assert bench.OUR_ALGORITHM["pagerank"] == "pagerank_ldbc"


def test_gapbs_pr_error_is_read_from_its_verifier_output():
    out = "Trial Time:          0.51037\nTotal Error:         0.00003\nVerification:        FAIL\n"
    assert bench.gapbs_pr_error(out) == 3e-05
    assert bench.gapbs_pr_error("Verification:        PASS\n") is None


def test_compiled_modules_name_kernels_or_a_program_group(tmp_path):
    cupy = tmp_path / "cupy"
    cupy.mkdir()
    (cupy / "a.cu").write_text('extern "C" __global__ void gf_fill_b4(unsigned int* o) {}\n'
                               'extern "C" __global__ void gf_iota_i32(int* o) {}\n')
    (cupy / "b.cu").write_text("#define GF_BUILD_PULL 0\n#define GF_BUILD_PACKED 0\n// graphferry headers x\n")
    (cupy / "c.cubin").write_bytes(b"\0")
    assert bench.compiled_modules(tmp_path) == [{"kernels": ["gf_fill_b4", "gf_iota_i32"]},
                                                {"program_group_without": ["GF_BUILD_PULL", "GF_BUILD_PACKED"]}]
    assert bench.compiled_kernels(tmp_path) == ["gf_fill_b4", "gf_iota_i32"]
