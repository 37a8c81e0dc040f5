"""A result array left where it was computed until someone reads it.

On a GPU an algorithm's per-vertex result is a device array; copying it to the
host is one device-to-host transfer of ``n`` entries per column (two int64
BFS columns at Kronecker 25: 536 MB, ~10 ms at the bus's speed, more than the
iterations). The peers (EMOGI, cuGraph) leave results on the device; so does
graphferry: :meth:`~graphferry.runtime.runtime.ProgramState.result` hands a
state array to the algorithm's result as a :class:`DeferredArray`, and the
transfer happens on the first read, once.

Example:
    >>> import numpy as np
    >>> copies = []
    >>> def to_host(arr):                      # a backend's transfer, counted
    ...     copies.append(arr.nbytes)
    ...     return np.array(arr)
    >>> d = DeferredArray(np.arange(4), to_host)
    >>> d.on_host, copies
    (False, [])
    >>> d.host().tolist(), d.host().tolist(), copies
    ([0, 1, 2, 3], [0, 1, 2, 3], [32])
"""

from __future__ import annotations

import threading
from typing import Any, Callable

import numpy as np


class DeferredArray:
    """``array`` where it lives (a CuPy array on a GPU) and the transfer that brings it to the host.

    :meth:`host` makes the transfer on first use and keeps its answer (one
    transfer however many readers, threads included). Only the array and the
    backend's transfer function are held: nothing of the run or the loaded
    graph stays alive through a result.
    """

    __slots__ = ("array", "_to_host", "_host", "_lock")

    def __init__(self, array: Any, to_host: Callable[[Any], np.ndarray]):
        self.array = array
        self._to_host = to_host
        self._host: np.ndarray | None = None
        self._lock = threading.Lock()

    @property
    def on_host(self) -> bool:
        """True once the host copy has been made."""
        return self._host is not None

    def host(self) -> np.ndarray:
        """The array on the host: one transfer on the first call, the same numpy array after."""
        if self._host is None:
            with self._lock:
                if self._host is None:
                    self._host = self._to_host(self.array)
        return self._host

    def __repr__(self) -> str:
        return (f"DeferredArray({self.array.dtype}{list(self.array.shape)}, "
                f"{'on the host' if self.on_host else 'not read yet'})")
