"""A program's CUDA kernels in groups, compiled apart and at once (no CuPy needed to read this).

The CUDA backend compiles each group of a program's kernels as its own NVRTC unit, all
groups at once in several threads (NVRTC through CuPy compiles with the GIL released): on a
fresh machine a program's first launch waits for its own group only, and the groups'
compilations overlap each other and whatever the process does meanwhile (reading the graph,
uploading it). Compiled as one unit, BFS's kernels took 9.5 s with nvcc (sm_90) on the 2-core
CI host where its largest group took 3.7 s. A group sets the ``GF_BUILD_*`` switches of
``gf_cuda_kernels.cuh``, which builds every kernel when none is set.

Example:
    >>> kernel_group("gf_push_zc_packed"), kernel_group("gf_pull_huge"), kernel_group("gf_vmap_init")
    ('push_packed', 'pull', 'maps')
    >>> group_source("// program", "maps").splitlines()
    ['#define GF_BUILD_PLAIN 0', '#define GF_BUILD_PACKED 0', '// program']
"""

from __future__ import annotations

#: group -> the switches that build only its kernels: each direction's row, zero-copy and
#: grid-wide kernels for one form of ids (plain or packed), and the vertex and neighbourhood maps
KERNEL_GROUPS: dict[str, dict[str, int]] = {
    "push": {"GF_BUILD_PACKED": 0, "GF_BUILD_PULL": 0, "GF_BUILD_MAPS": 0},
    "pull": {"GF_BUILD_PACKED": 0, "GF_BUILD_PUSH": 0, "GF_BUILD_MAPS": 0},
    "push_packed": {"GF_BUILD_PLAIN": 0, "GF_BUILD_PULL": 0, "GF_BUILD_MAPS": 0},
    "pull_packed": {"GF_BUILD_PLAIN": 0, "GF_BUILD_PUSH": 0, "GF_BUILD_MAPS": 0},
    "maps": {"GF_BUILD_PLAIN": 0, "GF_BUILD_PACKED": 0},
}


def kernel_group(name: str) -> str:
    """The group (:data:`KERNEL_GROUPS`) that holds kernel ``name``."""
    if name.startswith(("gf_vmap_", "gf_nmap_")):
        return "maps"
    direction = "push" if name.startswith("gf_push") else "pull"
    return direction + ("_packed" if name.endswith("_packed") else "")


def group_source(source: str, group: str) -> str:
    """A program's translation unit that builds only ``group``'s kernels."""
    return "".join(f"#define {k} {v}\n" for k, v in KERNEL_GROUPS[group].items()) + source


def groups_needed(program) -> list[str]:
    """The groups that hold any kernel of ``program`` (a direction it lacks has none).

    Example:
        >>> from graphferry.algorithms.bfs import PROGRAM
        >>> groups_needed(PROGRAM)
        ['push', 'pull', 'push_packed', 'pull_packed']
    """
    has = {"push": program.has_push, "pull": program.has_pull,
           "maps": bool(program.vertex_functions or program.neighbor_functions)}
    return [g for g in KERNEL_GROUPS if has[g.split("_")[0]]]
