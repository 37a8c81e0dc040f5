"""The ranks of a run and the collectives that exchange vertex state between them.

A :class:`World` is the set of processes of one run (``mpiexec -n P``): each
has a rank, knows which ranks share its node, and exchanges vertex state with
the others through collectives:

* host buffers (NumPy arrays): MPI collectives through ``mpi4py``;
* GPU buffers (CuPy arrays): NCCL through ``cupy.cuda.nccl``, its unique id
  broadcast over MPI (NCCL bootstrapped over MPI), chosen only when CuPy and a
  GPU per rank are present.

No home-made networking: everything goes through MPI or NCCL. A single process
is a world of one (:func:`local_world`), whose collectives do nothing, so the
same code runs with and without ``mpiexec``.

A rank that fails must not leave the others waiting in a collective:
:func:`fail_all` writes one line naming the rank and the error and aborts the
whole job (``MPI_Abort``), so ``mpiexec`` returns non-zero at once. When every
rank fails alike (:func:`failed_alike`: a user error, found by all), none waits
and none aborts: each ends normally and rank 0 alone reports the error.

Example:
    >>> import numpy as np
    >>> w = local_world()
    >>> w.rank, w.size, w.local_size
    (0, 1, 1)
    >>> a = np.array([3, 1, 2]); w.allreduce(a, "min"); a.tolist()
    [3, 1, 2]
"""

from __future__ import annotations

import logging
import os
import sys
import time
from typing import Any

import numpy as np

log = logging.getLogger(__name__)

#: Environment variables that MPI launchers (MPICH's hydra, Open MPI, Slurm's PMI) set in each rank.
LAUNCHER_VARIABLES = ("PMI_SIZE", "PMI_RANK", "OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "MPI_LOCALNRANKS")

_current: "World | None" = None


def launcher_size() -> int:
    """How many ranks the MPI launcher that started this process says it started (1 if none)."""
    for var in ("PMI_SIZE", "OMPI_COMM_WORLD_SIZE", "MPI_LOCALNRANKS"):
        value = os.environ.get(var)
        if value is not None and value.isdigit() and int(value) > 1:
            return int(value)
    return 1


def launched_by_mpiexec() -> bool:
    """True when this process was started by an MPI launcher with more than one rank."""
    return launcher_size() > 1


class World:
    """The processes of a run: rank, size, node-local ranks, and host collectives (MPI)."""

    def __init__(self, comm=None):
        self.comm = comm
        self.options: dict[str, Any] = {}  # DistributedGraph options for graphs split on the fly
        if comm is None:
            self.rank, self.size = 0, 1
            self.local_rank, self.local_size, self.node, self.nodes = 0, 1, 0, 1
            self.node_of = [0]
            self.failures = None
            return
        from mpi4py import MPI

        self.MPI = MPI
        self.rank, self.size = comm.Get_rank(), comm.Get_size()
        local = comm.Split_type(MPI.COMM_TYPE_SHARED, key=self.rank)
        self.local_rank, self.local_size = local.Get_rank(), local.Get_size()
        leader = self.rank if self.local_rank == 0 else -1
        leaders = [r for r in comm.allgather(leader) if r >= 0]
        node_leader = local.bcast(self.rank, root=0)
        self.node = leaders.index(node_leader)
        self.nodes = len(leaders)
        self.node_of = comm.allgather(self.node)
        local.Free()
        # Its own communicator, so that failing ranks can agree (failed_alike) without matching
        # a collective that another rank is still waiting in.
        self.failures = comm.Dup()

    # ------------------------------------------------------------ host collectives
    _OPS = {"min": "MIN", "max": "MAX", "sum": "SUM", "or": "BOR"}

    def allreduce(self, arr: np.ndarray, op: str) -> None:
        """``arr`` becomes the elementwise ``op`` (min, max, sum, or) over the ranks, in place."""
        if self.comm is None:
            return
        self.comm.Allreduce(self.MPI.IN_PLACE, arr, op=getattr(self.MPI, self._OPS[op]))

    def sum_deterministic(self, arr: np.ndarray) -> None:
        """Sum over the ranks in place, the same bits on every rank (reduced at rank 0, then broadcast).

        An allreduce may add in a different order on different ranks; floating-point
        sums then differ in their last bits and ranks would choose differently later.
        """
        if self.comm is None:
            return
        if self.rank == 0:
            self.comm.Reduce(self.MPI.IN_PLACE, arr, op=self.MPI.SUM, root=0)
        else:
            self.comm.Reduce(arr, None, op=self.MPI.SUM, root=0)
        self.comm.Bcast(arr, root=0)

    def allgather_ranges(self, arr: np.ndarray, splits: np.ndarray) -> None:
        """Every rank's ``arr[splits[r]:splits[r+1]]`` copied to every rank, in place."""
        if self.comm is None:
            return
        counts = np.diff(splits).astype(np.int64)
        displs = splits[:-1].astype(np.int64)
        self.comm.Allgatherv(self.MPI.IN_PLACE, [arr, (counts, displs)])

    def gather_after(self, token, arr: np.ndarray, mine: np.ndarray, buf: np.ndarray, splits: np.ndarray) -> None:
        """``buf[splits[r]:splits[r + 1]] = arr[mine]`` on this rank, then every rank's piece of ``buf``
        to every rank. On the host it runs at once (``token``: the compute it would wait for)."""
        lo, hi = int(splits[self.rank]), int(splits[self.rank + 1])
        np.take(arr, mine, axis=0, out=buf[lo:hi])
        self.allgather_ranges(buf, splits)

    def side_done(self) -> None:
        """Wait for every :meth:`gather_after` (the host's are done when they return)."""

    def send(self, arr: np.ndarray, dest: int) -> None:
        self.comm.Send(np.ascontiguousarray(arr), dest=dest)

    def recv(self, arr: np.ndarray, source: int) -> None:
        self.comm.Recv(arr, source=source)

    def bcast(self, arr: np.ndarray, root: int) -> None:
        if self.comm is not None:
            self.comm.Bcast(arr, root=root)

    def allgather(self, value: Any) -> list:
        """Small Python objects (timings, counts) from every rank."""
        return [value] if self.comm is None else self.comm.allgather(value)

    def bcast_object(self, value: Any, root: int = 0) -> Any:
        return value if self.comm is None else self.comm.bcast(value, root=root)

    def alltoallv(self, send: np.ndarray, send_counts: np.ndarray) -> np.ndarray:
        """Rank ``r``'s ``send_counts[q]`` items (in order) go to rank ``q``; returns what arrived, by sender."""
        if self.comm is None:
            return send.copy()
        send_counts = np.asarray(send_counts, dtype=np.int64)
        recv_counts = np.empty(self.size, dtype=np.int64)
        self.comm.Alltoall(send_counts, recv_counts)
        recv = np.empty(int(recv_counts.sum()), dtype=send.dtype)
        sdispl = np.concatenate([[0], np.cumsum(send_counts)[:-1]])
        rdispl = np.concatenate([[0], np.cumsum(recv_counts)[:-1]])
        self.comm.Alltoallv([np.ascontiguousarray(send), (send_counts, sdispl)], [recv, (recv_counts, rdispl)])
        return recv

    def barrier(self) -> None:
        if self.comm is not None:
            self.comm.Barrier()

    def abort(self, code: int = 1) -> None:
        if self.comm is not None:
            self.comm.Abort(code)

    def __repr__(self) -> str:
        return f"World(rank {self.rank} of {self.size}, {self.nodes} node(s))"


class DeviceCollectives:
    """The same collectives on GPU buffers through NCCL, bootstrapped over the world's MPI.

    Rank 0 makes the NCCL unique id and broadcasts it with MPI; every rank then
    joins one NCCL communicator on its own GPU (``local_rank`` modulo the GPUs of
    its node). Allgather of unequal ranges is either one in-place broadcast per
    rank, grouped, or an allgather padded to the longest range, whichever was
    faster on first use; a bitmap's OR gathers the ranks' words and ORs them
    (NCCL has no bitwise operator). On 4 H200s (NVLink NV18) at Kronecker 25 a
    PageRank pull iteration spent 1.9 ms in grouped broadcasts of 268 MB
    (``bench/results/multidevice-kron25-h200x4.json``).
    """

    overlaps = True  # gather_after runs on a side stream while the compute stream goes on

    _DTYPES = {"int8": "NCCL_INT8", "uint8": "NCCL_UINT8", "int32": "NCCL_INT32", "uint32": "NCCL_UINT32",
               "int64": "NCCL_INT64", "uint64": "NCCL_UINT64", "float32": "NCCL_FLOAT32",
               "float64": "NCCL_FLOAT64"}
    _OPS = {"min": "NCCL_MIN", "max": "NCCL_MAX", "sum": "NCCL_SUM"}

    def __init__(self, world: World):
        import cupy
        from cupy.cuda import nccl

        self.world, self.cupy, self.nccl = world, cupy, nccl
        uid = nccl.get_unique_id() if world.rank == 0 else None
        uid = world.bcast_object(uid, root=0)
        self.comm = nccl.NcclCommunicator(world.size, uid, world.rank)
        self.stream = cupy.cuda.get_current_stream().ptr
        self._gather_way: dict[tuple, str] = {}   # (dtype, size, splits) -> the faster way, measured
        self._stage: dict[tuple, Any] = {}        # staging buffers of the padded allgather
        self.gathers: list[dict] = []             # what each first gather measured and chose
        self._side = None                         # the stream gathers run on beside the compute

    def _done(self) -> None:
        # the backend's kernels and these collectives may run on different streams: finish here
        self.cupy.cuda.runtime.deviceSynchronize()

    def _t(self, arr):
        return getattr(self.nccl, self._DTYPES[arr.dtype.name])

    def allreduce(self, arr, op: str) -> None:
        if op == "or":  # NCCL has no bitwise or: gather every rank's words, OR them here
            # (size x the words, against 8x the words each way for a MAX over unpacked bits)
            words = self.cupy.empty((self.world.size, arr.size), dtype=arr.dtype)
            self._done()
            self.comm.allGather(arr.data.ptr, words.data.ptr, arr.size, self._t(arr), self.stream)
            self._done()
            arr[...] = words[0]
            for q in range(1, self.world.size):
                self.cupy.bitwise_or(arr, words[q], out=arr)
            return
        self._done()
        self.comm.allReduce(arr.data.ptr, arr.data.ptr, arr.size, self._t(arr), getattr(self.nccl, self._OPS[op]),
                            self.stream)
        self._done()

    def sum_deterministic(self, arr) -> None:
        self._done()
        self.comm.reduce(arr.data.ptr, arr.data.ptr, arr.size, self._t(arr), self.nccl.NCCL_SUM, 0, self.stream)
        self.bcast(arr, 0)

    #: the ways to gather unequal ranges, measured against each other on first use
    GATHERS = ("bcast", "allgather")

    def allgather_ranges(self, arr, splits) -> None:
        """Every rank's ``arr[splits[r]:splits[r + 1]]`` to every rank, in place.

        Two ways, both exact: one in-place broadcast per rank, grouped (no
        staging copies), or one NCCL allgather of the ranges padded to the
        longest (a copy in and out of a staging buffer). Which is faster
        depends on the links and the rank count, so the first gather of each
        size runs both (a gather repeated gives the same bytes), and the ranks
        keep rank 0's faster one for that size.
        """
        key = (arr.dtype.name, int(arr.size), tuple(int(x) for x in splits))
        way = self._gather_way.get(key)
        if way is None:
            seconds = {}
            for name in self.GATHERS:
                for timed in (False, True):  # the first of each sets NCCL's channels up
                    t = time.perf_counter()
                    getattr(self, f"_gather_by_{name}")(arr, splits)
                    if timed:
                        seconds[name] = time.perf_counter() - t
            way = self.world.bcast_object(min(seconds, key=seconds.get), root=0)  # one choice for all
            self._gather_way[key] = way
            self.gathers.append({"dtype": key[0], "size": key[1], "way": way,
                                 "seconds": {k: round(v, 6) for k, v in seconds.items()}})
            log.info("rank %d: gathering %d %s by %s (%s)", self.world.rank, arr.size, arr.dtype.name, way,
                     ", ".join(f"{k} {v * 1e3:.2f} ms" for k, v in seconds.items()))
            return
        getattr(self, f"_gather_by_{way}")(arr, splits)

    def gather_after(self, token, arr, mine, buf, splits) -> None:
        """On the side stream, once ``token`` (an event of the compute stream) has passed: pack this
        rank's ``arr[mine]`` into its piece of ``buf`` and gather every rank's piece, while the
        compute stream goes on. The first gather of a size measures both ways (synchronously)."""
        cp = self.cupy
        if self._side is None:
            self._side = cp.cuda.Stream(non_blocking=True)
        side, r = self._side, self.world.rank
        lo, hi = int(splits[r]), int(splits[r + 1])
        side.wait_event(token)
        with side:
            cp.take(arr, mine, axis=0, out=buf[lo:hi])
        key = (buf.dtype.name, int(buf.size), tuple(int(x) for x in splits))
        way = self._gather_way.get(key)
        if way is None:
            side.synchronize()
            self.allgather_ranges(buf, splits)
            return
        getattr(self, f"_gather_by_{way}")(buf, splits, stream=side)

    def side_done(self) -> None:
        """The compute stream waits for every side-stream gather."""
        if self._side is not None:
            ev = self.cupy.cuda.Event(disable_timing=True)
            ev.record(self._side)
            self.cupy.cuda.get_current_stream().wait_event(ev)

    def _gather_by_bcast(self, arr, splits, stream=None) -> None:
        # rank q broadcasts arr[splits[q]:splits[q + 1]] in place; grouped, NCCL runs them together
        # (stream: ordered on it, no device-wide waits, so the compute stream runs on meanwhile)
        on = self.stream if stream is None else stream.ptr
        if stream is None:
            self._done()
        row = _row_items(arr)
        self.nccl.groupStart()
        for q in range(self.world.size):
            lo, hi = int(splits[q]), int(splits[q + 1])
            if hi > lo:
                self.comm.bcast(arr.data.ptr + lo * row * arr.itemsize, (hi - lo) * row, self._t(arr), q, on)
        self.nccl.groupEnd()
        if stream is None:
            self._done()

    def _gather_by_allgather(self, arr, splits, stream=None) -> None:
        # every range padded to the longest: one allgather, in place in a staging buffer
        row = _row_items(arr)
        flat = arr.reshape(-1)
        counts = np.diff(np.asarray(splits, dtype=np.int64)) * row
        chunk, r = int(counts.max()), self.world.rank
        key = (arr.dtype.name, chunk, None if stream is None else stream.ptr)
        stage = self._stage.get(key)
        if stage is None:
            stage = self._stage[key] = self.cupy.empty(chunk * self.world.size, arr.dtype)
        lo = int(splits[r]) * row
        ctx = stream if stream is not None else self.cupy.cuda.get_current_stream()
        with ctx:
            stage[r * chunk : r * chunk + counts[r]] = flat[lo : lo + counts[r]]
        if stream is None:
            self._done()
        self.comm.allGather(stage.data.ptr + r * chunk * arr.itemsize, stage.data.ptr, chunk, self._t(arr),
                            self.stream if stream is None else stream.ptr)
        if stream is None:
            self._done()
        with ctx:
            for q in range(self.world.size):
                if q != r and counts[q]:
                    lo = int(splits[q]) * row
                    flat[lo : lo + counts[q]] = stage[q * chunk : q * chunk + counts[q]]
        if stream is None:
            self._done()

    def send(self, arr, dest: int) -> None:
        self._done()
        self.comm.send(arr.data.ptr, arr.size, self._t(arr), dest, self.stream)
        self._done()

    def recv(self, arr, source: int) -> None:
        self._done()
        self.comm.recv(arr.data.ptr, arr.size, self._t(arr), source, self.stream)
        self._done()

    def bcast(self, arr, root: int) -> None:
        self._done()
        self.comm.bcast(arr.data.ptr, arr.size, self._t(arr), root, self.stream)
        self._done()


def _row_items(arr) -> int:
    """Items per vertex of a state array: 1, or a vector property's row length."""
    return int(arr.size // arr.shape[0]) if arr.ndim > 1 and arr.shape[0] else 1


def use_local_device(world: World) -> int | None:
    """Point this rank at GPU ``local_rank`` modulo its node's GPUs (before the CUDA backend starts).

    Nothing assumes a number of GPUs: ranks beyond the node's GPUs share them
    round-robin. Returns the device index, or None without CuPy or a GPU.
    """
    try:
        import cupy

        count = cupy.cuda.runtime.getDeviceCount()
    except Exception:  # noqa: BLE001 - no CuPy, no driver or no GPU: CPU ranks
        return None
    if count == 0:
        return None
    device = world.local_rank % count
    cupy.cuda.Device(device).use()
    return device


def collectives_for(world: World, backend):
    """MPI for host buffers, NCCL when the state lives on a GPU and there are several ranks."""
    if world.size > 1 and getattr(backend, "is_device", False) and backend.name == "cuda":
        return DeviceCollectives(world)
    return world


def local_world() -> World:
    """A world of one process (no MPI)."""
    return World(None)


def mpi_world() -> World:
    """The world of ``mpiexec``'s ranks (``MPI.COMM_WORLD``); needs mpi4py."""
    try:
        from mpi4py import MPI
    except ImportError as e:  # pragma: no cover - depends on the installation
        raise RuntimeError("running under mpiexec needs mpi4py: pip install 'graphferry[mpi]'") from e
    started = launcher_size()
    if MPI.COMM_WORLD.Get_size() == 1 and started > 1:
        # mpiexec of one MPI (its PMI variables say N ranks) and an mpi4py built for another: each
        # process would run alone on the whole graph, and all N would write the same outputs
        raise RuntimeError(
            f"mpiexec started {started} processes but mpi4py sees a world of 1: the mpiexec on PATH "
            f"and mpi4py ({MPI.Get_library_version().splitlines()[0].strip()}) belong to different MPI "
            "implementations; run the mpiexec of mpi4py's MPI (with the mpich wheel: the one installed "
            "beside python)")
    return World(MPI.COMM_WORLD.Dup())


def current_world() -> "World | None":
    """The world a distributed run has entered (:func:`enter`), or None."""
    return _current


def enter(world: World, **options) -> World:
    """Make ``world`` the current one: runtimes made from now on split their graph over its ranks.

    ``options`` (``repartition=``, ``alpha=``) go to every graph split so.
    Also gives each rank its share of the node's cores (:func:`share_cores`):
    ranks on one node would otherwise each start a thread per core and fight over them.
    """
    global _current
    _current = world
    world.options = options
    share_cores(world)
    from ..runtime import runtime   # handed down: the runtime imports nothing of this layer

    runtime.use_ranks(_split_over(world) if world.size > 1 else None)
    return world


def _split_over(world: World):
    """What the runtime loads a call's graph with in ``world``: the graph split over its ranks."""
    def split(graph, **placement):
        from .graph import DistributedGraph

        return DistributedGraph(graph, world, **placement, **world.options)
    return split


def share_cores(world: World) -> None:
    """Give each rank its share of the node's cores for OpenMP (unless ``OMP_NUM_THREADS`` is set).

    Takes effect for kernels compiled and loaded after it (the OpenMP runtime reads it once).
    """
    if world.size > 1 and "OMP_NUM_THREADS" not in os.environ:
        os.environ["OMP_NUM_THREADS"] = str(max(1, (os.cpu_count() or 1) // world.local_size))


def leave() -> None:
    global _current
    _current = None
    from ..runtime import runtime

    runtime.use_ranks(None)


def launcher_rank() -> int:
    """This process's rank as the MPI launcher that started it says (0 if none), read without MPI.

    Example:
        >>> launcher_rank() if not launched_by_mpiexec() else 0
        0
    """
    for var in ("PMI_RANK", "OMPI_COMM_WORLD_RANK", "PMIX_RANK"):
        value = os.environ.get(var)
        if value is not None and value.isdigit():
            return int(value)
    return 0


def failed_alike(world: World, error: BaseException, wait: float = 3.0) -> bool:
    """True when every rank failed, with the same message, within ``wait`` seconds of this one.

    Then no rank waits in an exchange and each can end normally (MPI finalized at
    exit) with rank 0 alone reporting the error: a user error (a vertex not in the
    graph, a missing file) is found alike on every rank, and one line says it,
    not one per rank plus the launcher's abort lines. False when another rank
    still runs (or failed differently): then :func:`fail_all` must abort them.
    """
    comm = getattr(world, "failures", None)
    if comm is None:
        return False
    everyone = comm.Ibarrier()  # non-blocking: a rank that does not fail never joins it
    deadline = time.monotonic() + wait
    while not everyone.Test():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.005)
    return len(set(comm.allgather(f"{type(error).__name__}: {error}"))) == 1


def fail_all(world: World, error: BaseException, code: int = 1) -> None:
    """Report ``error`` as this rank's and abort every rank (never a hang in a collective)."""
    sys.stderr.write(f"graphferry: rank {world.rank} of {world.size} failed: {type(error).__name__}: {error}\n")
    sys.stderr.flush()
    world.abort(code)
