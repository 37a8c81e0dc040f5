#!/usr/bin/env python
"""Do a program's kernel groups compile in parallel? NVRTC in threads, in processes, and serially (GPU machine).

A fresh machine's first ``graphferry run`` waits for its program's kernel groups (NVRTC through
CuPy, compiled in a thread pool: :mod:`graphferry.backends.cuda.kernel_groups`). On the H200 the
compile phase grew with the number of groups as if they ran one after another (WCC: 7 units
2.0 s, with ``--engine hybrid`` 15 units 5.6 s; SSSP 14 units 4.4 s), though CuPy releases the
GIL in ``nvrtcCompileProgram``. This probe times one program's groups (WCC's, int32 ids, every
group the hybrid may launch) four ways, each source made unique per way so that no cache answers:

* ``serial``: ``cupy.RawModule(...).compile()`` one group after another;
* ``threads``: the same, every group in a thread of its own, at once (what the backend does);
* ``threads_nvrtc``: NVRTC itself in threads (``cupy_backends``' wrapper: source to cubin, no CuPy
  cache, no module load into the context);
* ``processes``: the same in forked processes (forked before this process touches CUDA).

Each way's wall seconds and each unit's own seconds are printed and written as JSON::

    PYTHONPATH=src python dev/nvrtc_probe.py --out $OUT/nvrtc-probe.json
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))


def _sources(tag: str) -> list[tuple[str, str]]:
    from graphferry.algorithms.wcc import PROGRAM
    from graphferry.backends.cuda.kernel_groups import group_source, groups_needed

    src = PROGRAM.translation_unit("int32_t", "gf_cuda_kernels.cuh")
    return [(g, f"// probe {tag} {time.time_ns()}\n" + group_source(src, g)) for g in groups_needed(PROGRAM)]


def _options() -> tuple[str, ...]:
    from graphferry.backends.cuda.backend import _NVRTC_OPTIONS

    return tuple(_NVRTC_OPTIONS)


def _nvrtc_only(src: str, arch: str) -> float:
    """NVRTC itself (CuPy's thin wrapper, which releases the GIL): source to cubin, nothing else."""
    from cupy_backends.cuda.libs import nvrtc

    t = time.perf_counter()
    prog = nvrtc.createProgram(src, "probe.cu", (), ())
    try:
        nvrtc.compileProgram(prog, list(_options()) + ["-ftz=true", f"-arch=sm_{arch}"])
        nvrtc.getCUBIN(prog)
    finally:
        nvrtc.destroyProgram(prog)
    return time.perf_counter() - t


def _module(src: str) -> float:
    import cupy

    t = time.perf_counter()
    cupy.RawModule(code=src, options=_options()).compile()
    return time.perf_counter() - t


def _in_threads(fn, sources, *args) -> tuple[float, list[float]]:
    own = [0.0] * len(sources)

    def work(i: int) -> None:
        own[i] = fn(sources[i][1], *args)
    t = time.perf_counter()
    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(sources))]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    return time.perf_counter() - t, own


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--arch", default="90", help="the GPU's compute capability, for the processes (no CUDA there)")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)
    out = {"cpus": os.cpu_count(), "ways": {}}
    # processes first: forked before this process creates a CUDA context
    sources = _sources("processes")
    t = time.perf_counter()
    with multiprocessing.get_context("fork").Pool(len(sources)) as pool:
        own = pool.starmap(_nvrtc_only, [(s, args.arch) for _, s in sources])
    out["ways"]["processes"] = {"wall": time.perf_counter() - t, "own": own}
    sources = _sources("serial")
    t = time.perf_counter()
    own = [_module(s) for _, s in sources]
    out["ways"]["serial"] = {"wall": time.perf_counter() - t, "own": own}
    wall, own = _in_threads(_module, _sources("threads"))
    out["ways"]["threads"] = {"wall": wall, "own": own}
    wall, own = _in_threads(_nvrtc_only, _sources("threads_nvrtc"), args.arch)
    out["ways"]["threads_nvrtc"] = {"wall": wall, "own": own}
    out["groups"] = [g for g, _ in sources]
    for way, r in out["ways"].items():
        print(f"{way:14s} wall {r['wall']:.2f} s, units {len(r['own'])}, own seconds "
              + " ".join(f"{x:.2f}" for x in r["own"]))
    if args.out:
        args.out.write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
