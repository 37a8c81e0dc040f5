"""Uploads of host arrays that are not pinned: a few pinned slots filled by several threads, copies overlapped.

A graph store's edges are memory-mapped ``.npy`` files. Pinning a whole edge array
before copying it costs more than reading it (on the lent H200's host, pinning 4.29 GB
took 1.79 s; /work/shared/FLOORS.md), and copying from pageable memory runs at a sixth
of the bus. :class:`StagedUpload` keeps a few pinned slots of :data:`SLOT_BYTES` each,
allocated once per backend, and streams an array through them: several threads fill
slot ``k + 1`` (``os.preadv`` straight from the store's file when the array maps one,
so no page faults go through the mapping; memory copies otherwise) while the copy of
slot ``k`` runs. Measured on that host with plain numpy/CuPy: 16 threads reading into
two 256 MB pinned buffers with the copies overlapped moved 4.29 GB in 0.15 s (29 GB/s),
against 1.79 s + 0.08 s to pin the array and copy it.

The class knows nothing about devices: the backend hands it ``alloc`` (a pinned byte
buffer), ``send`` (start copying a filled slot to the device, return a token) and
``wait`` (block until a token's copy is done), so the CPU backend's tests run it with
plain arrays.

Example:
    >>> import numpy as np
    >>> dst = np.zeros(10, np.int64)
    >>> def send(buf, off):
    ...     dst.view(np.uint8)[off:off + len(buf)] = buf
    >>> up = StagedUpload(lambda nbytes: np.empty(nbytes, np.uint8), slot_bytes=16, slots=2)
    >>> up.upload(np.arange(10, dtype=np.int64), send, lambda token: None)
    80
    >>> dst.tolist()
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]
"""

from __future__ import annotations

import mmap
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable

import numpy as np

#: Bytes per pinned slot: large enough that a slot's copy runs at the bus's speed, small enough
#: that pinning the slots once (about 0.4 s per GB on the H200's host) stays near 0.1 s.
SLOT_BYTES = 64 << 20
#: Slots: while one is copied, the next ones are being read.
SLOTS = 4
#: Each reading thread takes at least this many bytes of a slot.
PIECE_BYTES = 4 << 20


def file_range(arr: np.ndarray) -> tuple[str, int] | None:
    """``(file name, byte offset)`` of ``arr``'s first byte when ``arr`` is one contiguous run of a
    memory-mapped file (a store's array or a slice of one), else None.

    The offset comes from the pointers, not ``np.memmap.offset``: a slice of a memmap keeps
    its parent's ``offset``.

    Example:
        >>> import tempfile, pathlib
        >>> path = pathlib.Path(tempfile.mkdtemp()) / "a.npy"
        >>> np.save(path, np.arange(100, dtype=np.int32))
        >>> a = np.load(path, mmap_mode="r")
        >>> name, off = file_range(a[10:20])
        >>> np.fromfile(name, np.int32, 10, offset=off).tolist() == list(range(10, 20))
        True
        >>> file_range(np.asarray(a)[5:]) == (name, off - 20)   # a plain view of the mapping
        True
        >>> file_range(np.arange(3)) is None
        True
    """
    if not isinstance(arr, np.ndarray) or not arr.flags.c_contiguous:
        return None
    root = arr  # the memmap that owns the mapping (views and np.asarray's plain views lead to it)
    while isinstance(root, np.ndarray) and not (isinstance(root, np.memmap) and isinstance(root.base, mmap.mmap)):
        root = root.base
    name = getattr(root, "filename", None) if isinstance(root, np.memmap) else None
    if not name:
        return None
    return name, int(root.offset) + (int(arr.ctypes.data) - int(root.ctypes.data))


def _read_fully(fd: int, view: memoryview, pos: int, name: str) -> None:
    got, n = 0, len(view)
    while got < n:
        k = os.preadv(fd, [view[got:]], pos + got)
        if k <= 0:
            raise OSError(f"{name}: short read at byte {pos + got}")
        got += k


class StagedUpload:
    """Pinned slots, allocated on first use and kept, that carry uploads of unpinned host arrays."""

    def __init__(self, alloc: Callable[[int], np.ndarray], *, slot_bytes: int = SLOT_BYTES, slots: int = SLOTS,
                 threads: int | None = None):
        if slots < 1 or slot_bytes < 1:
            raise ValueError("StagedUpload needs at least one slot of at least one byte")
        self.slot_bytes = int(slot_bytes)
        self.slots = int(slots)
        self.threads = max(1, min(16, threads or os.cpu_count() or 1))
        self._alloc = alloc
        self._bufs: list[np.ndarray] = []
        self._tokens: list[Any] = []
        self._pool: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()  # one upload at a time through the slots
        self.bytes_uploaded = 0

    def reserve(self) -> None:
        """Allocate every slot now (a first upload would wait for their pinning otherwise).

        Example:
            >>> up = StagedUpload(lambda nbytes: np.empty(nbytes, np.uint8), slot_bytes=16, slots=3)
            >>> up.reserve(); len(up._bufs)
            3
        """
        with self._lock:
            self._slot(self.slots - 1)

    def _slot(self, k: int) -> np.ndarray:
        while len(self._bufs) <= k:
            self._bufs.append(self._alloc(self.slot_bytes).reshape(-1).view(np.uint8))
            self._tokens.append(None)
        return self._bufs[k]

    def _fill(self, buf: np.ndarray, src_raw: np.ndarray | None, fd: int | None, name: str, pos: int) -> None:
        """Fill ``buf`` from ``src_raw[pos:]`` (memory) or the file ``fd`` at ``pos``, several threads at once."""
        n = len(buf)
        parts = max(1, min(self.threads, n // PIECE_BYTES))
        step = -(-n // parts)
        step += -step % 4096  # page-aligned pieces
        pieces = [(o, min(step, n - o)) for o in range(0, n, step)]

        def one(piece):
            o, k = piece
            if fd is not None:
                _read_fully(fd, memoryview(buf[o:o + k]), pos + o, name)
            else:
                np.copyto(buf[o:o + k], src_raw[pos + o:pos + o + k])

        if len(pieces) == 1:
            one(pieces[0])
            return
        if self._pool is None:
            self._pool = ThreadPoolExecutor(self.threads, thread_name_prefix="gf-staging")
        list(self._pool.map(one, pieces))

    def upload(self, src: np.ndarray, send: Callable[[np.ndarray, int], Any], wait: Callable[[Any], None]) -> int:
        """Stream ``src``'s bytes through the slots: ``send(filled slot bytes, byte offset in src)`` starts
        each slot's copy and returns a token; a slot is refilled only after ``wait(token)``. Returns
        the bytes sent. The last copies may still run when it returns (wait on the device's stream)."""
        src = np.asarray(src)
        nbytes = int(src.nbytes)
        if nbytes == 0:
            return 0
        where = file_range(src)
        src_raw = None if where is not None else np.ascontiguousarray(src).reshape(-1).view(np.uint8)
        with self._lock:
            fd = os.open(where[0], os.O_RDONLY) if where is not None else None
            try:
                for i, off in enumerate(range(0, nbytes, self.slot_bytes)):
                    k = i % self.slots
                    buf = self._slot(k)
                    if self._tokens[k] is not None:
                        wait(self._tokens[k])
                        self._tokens[k] = None
                    n = min(self.slot_bytes, nbytes - off)
                    pos = off if where is None else where[1] + off
                    self._fill(buf[:n], src_raw, fd, where[0] if where else "", pos)
                    self._tokens[k] = send(buf[:n], off)
            finally:
                if fd is not None:
                    os.close(fd)
        self.bytes_uploaded += nbytes
        return nbytes

    def download(self, dst: np.ndarray, fetch: Callable[[np.ndarray, int], Any], wait: Callable[[Any], None]) -> int:
        """Fill host ``dst`` through the slots: ``fetch(slot bytes, byte offset)`` starts copying the
        source's bytes at that offset into the slot and returns a token; after ``wait(token)``
        several threads copy the slot into ``dst`` while the next slots' copies run. Returns the
        bytes received. A one-shot process's results come back this way: pinning fresh memory for
        each result costs more than the copy (0.4 s per GB on the H200's host), and a pageable
        copy runs at a sixth of the bus.

        Example:
            >>> src = np.arange(10, dtype=np.int64)
            >>> def fetch(buf, off):
            ...     buf[:] = src.view(np.uint8)[off:off + len(buf)]
            >>> down = StagedUpload(lambda nbytes: np.empty(nbytes, np.uint8), slot_bytes=16, slots=2)
            >>> out = np.zeros(10, np.int64)
            >>> down.download(out, fetch, lambda token: None), out.tolist()
            (80, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9])
        """
        raw = dst.reshape(-1).view(np.uint8)
        nbytes = int(raw.nbytes)
        if nbytes == 0:
            return 0
        if not dst.flags.c_contiguous:
            raise ValueError("download needs a contiguous destination")
        with self._lock:
            pending: list[tuple[int, int, int, Any]] = []  # (slot, offset, bytes, token), oldest first

            def drain() -> None:
                k, off, n, token = pending.pop(0)
                wait(token)
                self._spread(raw[off:off + n], self._bufs[k][:n])

            for i, off in enumerate(range(0, nbytes, self.slot_bytes)):
                k = i % self.slots
                if len(pending) == self.slots:
                    drain()  # the oldest slot: copied out before it is fetched into again
                buf = self._slot(k)
                if self._tokens[k] is not None:  # an upload's copy may still read it
                    wait(self._tokens[k])
                    self._tokens[k] = None
                n = min(self.slot_bytes, nbytes - off)
                pending.append((k, off, n, fetch(buf[:n], off)))
            while pending:
                drain()
        return nbytes

    def _spread(self, out: np.ndarray, buf: np.ndarray) -> None:
        """Copy ``buf`` into ``out`` (bytes), several threads at once (fresh pages fault in parallel)."""
        n = len(buf)
        parts = max(1, min(self.threads, n // PIECE_BYTES))
        step = -(-n // parts)
        step += -step % 4096
        pieces = [(o, min(step, n - o)) for o in range(0, n, step)]
        if len(pieces) == 1:
            np.copyto(out, buf)
            return
        if self._pool is None:
            self._pool = ThreadPoolExecutor(self.threads, thread_name_prefix="gf-staging")
        list(self._pool.map(lambda p: np.copyto(out[p[0]:p[0] + p[1]], buf[p[0]:p[0] + p[1]]), pieces))

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None
        self._bufs.clear()
        self._tokens.clear()
