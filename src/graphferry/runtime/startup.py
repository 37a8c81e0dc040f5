"""Which backend ``auto`` takes for a run: the GPU's start-up costs against the work to do.

A run on the GPU pays the CUDA context and the upload of the edges before its first
kernel; on the CPU it pays neither but processes edges several times slower. For a small
graph, a traversal from a vertex that reaches little, or a one-shot process, the CPU can
finish before the GPU has started. :func:`choose_backend` compares the two from a model:

* GPU: ``cuda_start_seconds + edge_bytes / upload_bandwidth + passes * m / device_edge_rate``
* CPU: ``passes * m / (host_edge_rate_per_core * cores)``

``passes`` is how many times the algorithm reads the edges (:data:`EDGE_PASSES`; 0 for a
traversal from a vertex with no edges). The figures start from the lent H200 machine's:
the choice is made before CuPy is imported, so the GPU's start-up is everything a one-shot
run on the GPU waits for that a run on the CPU does not: CuPy's import and the context
(/work/shared/FLOORS.md: 0.76 s for both), the programs' load, the engines' set-up and the
results' way back (:data:`GPU_START_PHASES`); at Kronecker 25 a one-shot BFS on the GPU took
1.84 s longer than on the CPU for a BFS 0.09 s shorter (bench/results/oneshot-kron25-h200-bfs.json).
Then staged uploads at 24 GB/s (bench/results/oneshot-upload-h200.json), traversal edges at
75 G/s on the device and 2.0 G/s on 16 cores (the H200's calibration). Each one-shot run on
the GPU keeps what its start-up phases took on disk beside the calibration
(:func:`note_gpu_one_shot`), so the choice follows the machine it runs on.

Example:
    >>> costs = StartupCosts()
    >>> choose_backend(m=1_000, edge_bytes=4_000, passes=1, cores=16, costs=costs)
    'cpu'
    >>> choose_backend(m=1 << 30, edge_bytes=4 << 30, passes=20, cores=16, costs=costs)
    'cuda'
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import asdict, dataclass
from pathlib import Path

log = logging.getLogger(__name__)

#: Passes over the edges an algorithm makes, for the choice (direction-optimised traversals
#: skip most edges: BFS at Kronecker 25 took 0.097 s on 16 cores where a pass over its 1.05 G
#: edges at the traversal rate takes 0.52 s, a quarter pass; WCC links sampled neighbours first
#: and then reads only the rows outside the largest component: 0.20-0.23 s on 16 cores at
#: Kronecker 25, under half a pass (bench/results/oneshot-gpu-kron25-h200-wcc-fresh.json: with 3
#: passes auto took the GPU, 2.37 s, where the CPU backend's process took 1.16 s); label
#: propagation and PageRank iterate; neighbourhood intersections read rows many times over).
EDGE_PASSES = {"bfs": 0.25, "sssp": 4, "wcc": 0.5, "pagerank": 20, "pagerank_ldbc": 20, "cdlp": 10, "lcc": 30,
               "triangle_count": 30, "betweenness": 8, "coloring": 10, "mst": 8, "communities": 10, "cf": 20}
#: Passes for an algorithm missing from EDGE_PASSES.
DEFAULT_PASSES = 10
#: Observations of the CUDA start-up kept (the choice takes their median).
KEEP = 9
#: The one-shot phases (graphferry.phase_clock, cli.run) a run on the GPU waits for and one on
#: the CPU does not: its start-up in the model (the upload is the model's own term).
GPU_START_PHASES = ("cuda_start", "compile", "calibration", "pin", "pack", "engine_setup", "to_host")


@dataclass
class StartupCosts:
    """The model's figures (seconds, bytes/s, edges/s)."""

    cuda_start_seconds: float = 1.8
    upload_bandwidth: float = 24e9
    device_edge_rate: float = 75e9
    host_edge_rate_per_core: float = 2.0e9 / 16
    observed_cuda_starts: tuple[float, ...] = ()


def startup_path() -> Path:
    """Where the figures are kept (``$GRAPHFERRY_CACHE_DIR`` or ``~/.cache/graphferry``)."""
    root = os.environ.get("GRAPHFERRY_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "graphferry")
    return Path(root) / "startup.json"


def load_costs() -> StartupCosts:
    """The kept figures (defaults where none were kept or the file is damaged)."""
    try:
        data = json.loads(startup_path().read_text())
        costs = StartupCosts(**{k: v for k, v in data.items() if k in StartupCosts.__dataclass_fields__})
        costs.observed_cuda_starts = tuple(float(x) for x in costs.observed_cuda_starts)[-KEEP:]
        if costs.observed_cuda_starts:
            costs.cuda_start_seconds = sorted(costs.observed_cuda_starts)[len(costs.observed_cuda_starts) // 2]
        return costs
    except (OSError, ValueError, TypeError):
        return StartupCosts()


def note_cuda_start(seconds: float) -> None:
    """Keep one observation of the CUDA backend's start-up (CuPy's import, the device count, the
    context); never raises (a read-only cache only loses the observation)."""
    try:
        costs = load_costs()
        costs.observed_cuda_starts = (costs.observed_cuda_starts + (float(seconds),))[-KEEP:]
        path = startup_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".tmp{os.getpid()}")
        tmp.write_text(json.dumps(asdict(costs), indent=1))
        os.replace(tmp, path)
    except OSError as e:  # pragma: no cover - a read-only cache
        log.debug("CUDA start-up not kept (%s)", e)


def note_gpu_one_shot(phases: dict[str, float]) -> float:
    """Keep what a one-shot run on the GPU waited for that a CPU run would not (the sum of its
    :data:`GPU_START_PHASES`) as one observation of the start-up; returns it.

    Example:
        >>> import os, tempfile
        >>> os.environ["GRAPHFERRY_CACHE_DIR"] = tempfile.mkdtemp()
        >>> note_gpu_one_shot({"imports": 0.3, "cuda_start": 0.4, "compile": 0.1, "algorithm": 0.01})
        0.5
        >>> load_costs().cuda_start_seconds
        0.5
        >>> del os.environ["GRAPHFERRY_CACHE_DIR"]
    """
    seconds = float(sum(phases.get(k, 0.0) for k in GPU_START_PHASES))
    note_cuda_start(seconds)
    return seconds


def passes_for(algorithm: str | None) -> float:
    """Passes over the edges ``algorithm`` makes (:data:`EDGE_PASSES`)."""
    return float(EDGE_PASSES.get(algorithm or "", DEFAULT_PASSES))


def gpu_likely() -> bool:
    """True when CuPy is installed and the machine shows an NVIDIA device, found without importing
    CuPy (its import alone takes 0.45 s on the lent machine; a run the CPU takes never pays it)."""
    import importlib.util

    if importlib.util.find_spec("cupy") is None:
        return False
    return any(Path(p).exists() for p in ("/dev/nvidia0", "/dev/nvidiactl", "/dev/dxg"))


def resolve_auto(m: int, edge_bytes: int, passes: float | None) -> str:
    """The backend ``auto`` means for a run of ``passes`` over ``m`` edges (None: the default
    passes): the CPU where no GPU is usable or the model expects it to finish first."""
    if not gpu_likely():
        return "cpu"
    name = choose_backend(m=m, edge_bytes=edge_bytes, passes=DEFAULT_PASSES if passes is None else passes)
    if name == "cpu":
        return name
    from ..backends import cuda_available

    return "cuda" if cuda_available() else "cpu"


def work_passes(algorithm: str | None, graph, source=None) -> float:
    """Passes over the edges a run of ``algorithm`` from ``source`` (an input id, or its text) makes
    on ``graph``: none from a vertex with no out-edges, else :func:`passes_for`.

    Example:
        >>> from graphferry import Graph
        >>> g = Graph.from_edges([0], [1], n=3, directed=True)
        >>> work_passes("bfs", g, "0"), work_passes("bfs", g, "2"), work_passes("pagerank", g)
        (0.25, 0.0, 20.0)
    """
    if source is not None:
        try:
            try:
                src = int(source)
            except (TypeError, ValueError):
                src = source
            if int(graph.out_degree[graph.to_internal_id(src)]) == 0:
                return 0.0
        except (KeyError, TypeError, ValueError, IndexError):
            pass  # the run itself reports a source that is not there
    return passes_for(algorithm)


def choose_backend(*, m: int, edge_bytes: int, passes: float, cores: int | None = None,
                   costs: StartupCosts | None = None) -> str:
    """``"cuda"`` or ``"cpu"``: the one the model expects to finish first (the GPU on a tie)."""
    costs = load_costs() if costs is None else costs
    cores = max(1, cores or os.cpu_count() or 1)
    work = passes * m
    gpu = costs.cuda_start_seconds + edge_bytes / costs.upload_bandwidth + work / costs.device_edge_rate
    cpu = work / (costs.host_edge_rate_per_core * cores)
    choice = "cuda" if gpu <= cpu else "cpu"
    log.info("backend auto -> %s (model: GPU %.3f s with its start-up, CPU %.3f s; %.3g edges x %.3g passes)",
             choice, gpu, cpu, m, passes)
    return choice
