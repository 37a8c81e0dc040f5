"""Compile every program's CUDA translation unit with nvcc, on a machine with no GPU.

The CUDA backend compiles programs with NVRTC on the device; an error in the kernels' text
shows there first, at the price of a device call. This check runs the same translation
units (prelude, state, program, ``gf_cuda_kernels.cuh``) through ``nvcc -arch sm_90``
where nvcc is installed, for int32 and int64 vertex ids, and reports each failure.

    python dev/cuda_compile_check.py            # every program of graphferry.algorithms
    python dev/cuda_compile_check.py --only bfs wcc
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from graphferry import algorithms
from graphferry.backends.base import INCLUDE_DIR
from graphferry.runtime.program import Program

CUDA_DIR = Path(algorithms.__file__).resolve().parent.parent / "backends" / "cuda"


def programs() -> dict[str, Program]:
    """Every Program object defined at module level in graphferry.algorithms (or in a module-level
    dict of them, as PageRank's per-dtype programs)."""
    found: dict[str, Program] = {}
    for info in pkgutil.iter_modules(algorithms.__path__):
        mod = importlib.import_module(f"graphferry.algorithms.{info.name}")
        for value in vars(mod).values():
            for prog in value.values() if isinstance(value, dict) else (value,):
                if isinstance(prog, Program):
                    found.setdefault(prog.name, prog)
    return found


def compile_one(nvcc: str, prog: Program, vid: str, work: Path) -> str | None:
    src = work / f"{prog.name}-{vid}.cu"
    # nvcc (unlike NVRTC) brings the integer types with its runtime header
    src.write_text("#include <cstdint>\n" + prog.translation_unit(vid, "gf_cuda_kernels.cuh"))
    cmd = [nvcc, "-arch=sm_90", "-std=c++17", "--device-c", "-c", "-w", f"-I{INCLUDE_DIR}", f"-I{CUDA_DIR}",
           "-o", str(src.with_suffix(".o")), str(src)]
    r = subprocess.run(cmd, capture_output=True, text=True, check=False)
    return None if r.returncode == 0 else r.stderr[-3000:]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", nargs="*", help="program names")
    ap.add_argument("--nvcc", default=shutil.which("nvcc"))
    args = ap.parse_args()
    if not args.nvcc:
        print("nvcc not found: nothing checked")
        return 0
    progs = programs()
    if args.only:
        progs = {k: v for k, v in progs.items() if k in args.only}
    jobs = [(p, vid) for p in progs.values() for vid in ("int32_t", "int64_t")]
    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda j: (j, compile_one(args.nvcc, j[0], j[1], Path(tmp))), jobs))
    failed = 0
    for (prog, vid), err in results:
        if err is not None:
            failed += 1
            print(f"FAILED {prog.name} ({vid}):\n{err}")
    print(f"{len(jobs) - failed} of {len(jobs)} translation units compiled")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
