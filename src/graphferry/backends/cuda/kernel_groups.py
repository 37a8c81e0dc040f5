"""A program's CUDA kernels in groups, compiled apart and at once (no CuPy needed to read this).

The CUDA backend compiles each group of a program's kernels as its own NVRTC unit, all
groups at once in several threads (NVRTC through CuPy compiles with the GIL released): on a
fresh machine a program's first launch waits for its own group only, and the groups'
compilations overlap each other and whatever the process does meanwhile (reading the graph,
uploading it). Compiled as one unit, BFS's kernels took 9.5 s with nvcc (sm_90) on the 2-core
CI host where its largest group took 3.7 s. A group is one kernel of the edge maps (a
direction, a form of ids, and one of the row launch over edges in device memory, the row
launch over mapped host memory ``_zc``, the grid-wide launch over heavy rows ``_huge``), so
every edge kernel compiles in a unit of its own (BFS's push kernels with NVRTC 12.9 on 2 cores:
1.62 s together, 0.61 s for the row kernel, 0.32 s for the grid-wide one), or the vertex and
neighbourhood maps. A group sets the ``GF_BUILD_*`` switches of ``gf_cuda_kernels.cuh``, which
builds every kernel when none is set.

Example:
    >>> kernel_group("gf_push_zc_packed"), kernel_group("gf_pull_huge"), kernel_group("gf_vmap_init")
    ('push_zc_packed', 'pull_huge', 'maps')
    >>> group_source("// program", "maps").splitlines()
    ['#define GF_BUILD_PLAIN 0', '#define GF_BUILD_PACKED 0', '// program']
"""

from __future__ import annotations

_DIRECTIONS = {"push": {"GF_BUILD_PULL": 0}, "pull": {"GF_BUILD_PUSH": 0}}
_FORMS = {"": {"GF_BUILD_PACKED": 0}, "_packed": {"GF_BUILD_PLAIN": 0}}
#: the row launch over edges in device memory, over mapped host memory, and the grid-wide launch
_LAUNCHES = {"": {"GF_BUILD_ZC": 0, "GF_BUILD_HUGE": 0}, "_zc": {"GF_BUILD_ROWS": 0, "GF_BUILD_HUGE": 0},
             "_huge": {"GF_BUILD_ROWS": 0, "GF_BUILD_ZC": 0}}

#: group -> the switches that build only its kernels, in the order the backend submits them: the
#: kernels engines that copy edges launch first (plain ids: resident, filter, compaction), then
#: the maps, then the zero-copy ones, then the packed ids' (zerocopy, filter and the hybrid)
KERNEL_GROUPS: dict[str, dict[str, int]] = {
    **{f"{d}{launch}": {**_DIRECTIONS[d], **_FORMS[""], **_LAUNCHES[launch], "GF_BUILD_MAPS": 0}
       for launch in ("", "_huge") for d in _DIRECTIONS},
    "maps": {"GF_BUILD_PLAIN": 0, "GF_BUILD_PACKED": 0},
    **{f"{d}{launch}{form}": {**_DIRECTIONS[d], **_FORMS[form], **_LAUNCHES[launch], "GF_BUILD_MAPS": 0}
       for form, launches in (("", ("_zc",)), ("_packed", ("", "_huge", "_zc")))
       for launch in launches for d in _DIRECTIONS},
}


def kernel_group(name: str) -> str:
    """The group (:data:`KERNEL_GROUPS`) that holds kernel ``name``: its own name, less ``gf_``,
    for an edge kernel."""
    if name.startswith(("gf_vmap_", "gf_nmap_")):
        return "maps"
    return name[len("gf_"):]


def group_source(source: str, group: str) -> str:
    """A program's translation unit that builds only ``group``'s kernels."""
    return "".join(f"#define {k} {v}\n" for k, v in KERNEL_GROUPS[group].items()) + source


def groups_needed(program) -> list[str]:
    """The groups that hold any kernel of ``program`` (a direction it lacks has none, and a pull
    with neither an atomic form nor a sum has no grid-wide kernel), in submission order.

    Example:
        >>> from graphferry.algorithms.bfs import PROGRAM
        >>> groups_needed(PROGRAM)[:4]
        ['push', 'pull', 'push_huge', 'pull_huge']
        >>> len(groups_needed(PROGRAM))
        12
    """
    has = {"push": program.has_push, "pull": program.has_pull,
           "maps": bool(program.vertex_functions or program.neighbor_functions)}
    pull_huge = program.has_pull and (program.has_push or program.pull_reduces)  # gf_cuda_kernels.cuh
    return [g for g in KERNEL_GROUPS
            if has[g.split("_")[0]] and not (g.startswith("pull_huge") and not pull_huge)]


#: Engines that launch only the plain-id kernels over device memory (no ``_zc`` launch over mapped
#: host memory, no packed ids): a program compiled for one of them waits for no other group.
DEVICE_MEMORY_ENGINES = ("resident",)


def groups_for(program, engine: str | None, packed: bool = True) -> list[str]:
    """The groups of ``program`` (:func:`groups_needed`) that engine ``engine`` may launch: for an
    engine of :data:`DEVICE_MEMORY_ENGINES`, the plain-id kernels over device memory and the
    maps; for any other (or None: not known), every group, less the packed ids' where
    ``packed`` is False (a run that never packs its ids: a one-shot traversal). The others
    are compiled when a launch first asks for them.

    Example:
        >>> from graphferry.algorithms.bfs import PROGRAM
        >>> groups_for(PROGRAM, "resident")
        ['push', 'pull', 'push_huge', 'pull_huge']
        >>> [g for g in groups_for(PROGRAM, "hybrid", packed=False) if g not in groups_for(PROGRAM, "resident")]
        ['push_zc', 'pull_zc']
    """
    need = groups_needed(program)
    if engine in DEVICE_MEMORY_ENGINES:
        return [g for g in need if "_zc" not in g and "_packed" not in g]
    return [g for g in need if packed or "_packed" not in g]
