"""A one-shot GPU run starts the device while it reads the graph.

``graphferry run ALG STORE --backend cuda`` waits, before its first kernel, for CuPy's import
and the CUDA context (0.76 s on the lent H200 machine, /work/shared/FLOORS.md) and for the
algorithm's programs (NVRTC on a fresh machine, seconds; their load from CuPy's disk cache
otherwise); reading the store takes about half a second more. None of them needs the others,
so :func:`start_device_soon` starts the backend in a thread of its own as soon as the command
line is checked, and, once the main thread has read the graph (the vertex-id type is known),
starts compiling the algorithm's programs there (:meth:`CudaBackend.compile` submits each
kernel group to its compile pool and returns). The main thread's own requests for the backend
and the programs then find them made, or wait for them (the ``cuda_start`` and ``compile``
phases of the run record).

Nothing here reports errors: a backend that cannot start, or a program that does not compile,
fails again, with its message, where the main thread asks for it.

Example (no GPU here: nothing is started):
    >>> started = start_device_soon("bfs", "cpu")
    >>> started.graph_read(None); started.thread is None
    True
"""

from __future__ import annotations

import logging
import threading
from typing import Any

log = logging.getLogger(__name__)


def algorithm_programs(algorithm: str) -> list:
    """The programs ``algorithm``'s module defines at its top level (those it may compile before
    the call; a program built per call, such as PageRank's, is compiled when the call makes it).

    Example:
        >>> [p.name for p in algorithm_programs("bfs")]
        ['bfs']
    """
    from ..algorithms import registry
    from ..runtime.program import Program

    import sys

    function = registry.get(algorithm).function
    module = sys.modules.get(getattr(function, "__module__", ""))
    return [v for v in vars(module).values() if isinstance(v, Program)] if module is not None else []


class DeviceStart:
    """The background start of one run's device (see the module's docstring)."""

    def __init__(self, algorithm: str, backend: str, start_for: tuple[str, ...] = ("cuda",), *,
                 engine: str = "auto", budget: int | None = None):
        self.algorithm = algorithm
        self.backend = backend
        self.engine = engine
        self.budget = budget
        self.thread: threading.Thread | None = None
        self._read = threading.Event()
        self._dtype: Any = None
        self._edge_bytes = 0
        if backend in start_for:  # (tests start the CPU backend this way)
            self.thread = threading.Thread(target=self._start, name="gf-device-start", daemon=True)
            self.thread.start()

    def graph_read(self, graph) -> None:
        """The main thread has read ``graph`` (None: it failed): the programs may be compiled now
        (unless :meth:`store_hint` let them start already)."""
        if not self._read.is_set():
            self._dtype = None if graph is None else graph.indices.dtype
            self._edge_bytes = int(getattr(graph, "edge_bytes", 0) or 0)
        self._read.set()

    def store_hint(self, path) -> None:
        """Where ``path`` is a graph store, take the vertex-id type and the edges' bytes from its
        manifest now, so the programs start compiling while the main thread reads the graph
        (0.6 s at Kronecker 25) instead of after it; anything else waits for :meth:`graph_read`.

        Example (a store of int32 ids; the CPU backend starts nothing):
            >>> import tempfile, numpy as np
            >>> from graphferry.graph import Graph
            >>> from graphferry.store import write_store
            >>> path = tempfile.mkdtemp() + "/g.store"
            >>> _ = write_store(Graph.from_edges(np.array([0]), np.array([1]), n=2), path)
            >>> started = start_device_soon("bfs", "cpu")
            >>> started.store_hint(path); started._dtype, started._edge_bytes
            (dtype('int32'), 4)
        """
        try:
            import numpy as np

            from ..store import is_store, read_manifest

            if not is_store(path):
                return
            manifest = read_manifest(path)
            dtype = np.dtype(manifest["dtypes"]["indices"])
            edge_bytes = int(manifest["m"]) * (dtype.itemsize + (4 if manifest.get("weighted") else 0))
        except Exception as e:  # noqa: BLE001 - the read reports a damaged store; this only waits for it
            log.debug("no vertex-id type ahead of the read (%s)", e)
            return
        self._dtype, self._edge_bytes = dtype, edge_bytes
        self._read.set()

    def _start(self) -> None:
        try:
            from ..backends import get_backend

            backend = get_backend(self.backend)
            prepare = getattr(backend, "prepare_transfers", None)  # the pinned slots of the first uploads
            if prepare is not None and not self._read.is_set():  # while the graph is still being read
                prepare()
                prepare = None
            self._read.wait()
            if self._dtype is None:
                return
            for program in algorithm_programs(self.algorithm):
                groups = self._groups(backend, program)
                if groups is None:
                    backend.compile(program, self._dtype)  # submits its groups to the compile pool
                else:  # only those the run's engine launches: the others compile if a launch asks
                    backend.compile(program, self._dtype, groups=groups)
            if prepare is not None:
                prepare()
        except Exception as e:  # noqa: BLE001 - the main thread's own request reports it
            log.debug("device not started ahead (%s)", e)


    def _groups(self, backend, program) -> list[str] | None:
        """The kernel groups of ``program`` the run's engine will launch on the CUDA backend
        (:func:`~graphferry.backends.cuda.kernel_groups.groups_for`; None elsewhere): ``auto``
        resolved as the runtime will (:func:`~graphferry.runtime.runtime.device_engine`, on the
        default budget unless ``--budget`` gave one), packed ids only where a one-call handle
        packs them (:meth:`LoadedGraph.packs <graphferry.runtime.loaded.LoadedGraph.packs>`)."""
        if getattr(backend, "name", None) != "cuda":
            return None
        import numpy as np

        from ..backends.cuda.kernel_groups import groups_for
        from ..runtime.loaded import ONE_CALL_PACK_PASSES
        from ..runtime.runtime import device_engine
        from ..runtime.startup import passes_for

        engine = self.engine
        if engine == "auto":
            budget = self.budget or max(1 << 20, int(backend.free_device_bytes() * 0.8))  # LoadedGraph's default
            engine = device_engine(self._edge_bytes, budget)
        packed = np.dtype(self._dtype) == np.int32 and passes_for(self.algorithm) > ONE_CALL_PACK_PASSES
        return groups_for(program, engine, packed=packed)


def start_device_soon(algorithm: str, backend: str, engine: str = "auto", budget: int | None = None) -> DeviceStart:
    """Start ``backend``'s device and ``algorithm``'s programs in the background (only ``cuda``):
    the programs' kernel groups that ``engine`` (``auto``: as the runtime will choose it, on
    ``budget`` or the default budget) launches."""
    return DeviceStart(algorithm, backend, engine=engine, budget=budget)
