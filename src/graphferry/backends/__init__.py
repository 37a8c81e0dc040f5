"""Backends: where kernels run. ``get_backend("auto")`` picks CUDA when a GPU and CuPy are there."""

from __future__ import annotations

import logging
import threading
from functools import lru_cache

from ..phase_clock import phase
from .base import Backend

log = logging.getLogger(__name__)


def cuda_available() -> bool:
    """True when CuPy imports and sees at least one GPU (never raises)."""
    try:
        import cupy

        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:  # noqa: BLE001 - no CuPy, no driver, no device: all mean "no"
        return False


#: One backend made at a time: a one-shot run may start the CUDA backend in a background thread
#: while the main thread reads the graph, then ask for it (it must get the same one).
_making = threading.Lock()


def _make(name: str, device: int) -> Backend:
    if name == "cpu":
        return _make_once(name, device)
    with phase("cuda_start"), _making:  # CuPy's import, the driver, the context (or waiting for them)
        return _make_once(name, device)


@lru_cache(maxsize=None)
def _make_once(name: str, device: int) -> Backend:
    if name == "cpu":
        from .cpu.backend import CpuBackend

        return CpuBackend()
    if name == "cuda":
        if not cuda_available():
            raise RuntimeError("backend 'cuda' needs CuPy and a GPU; install graphferry[cuda13] or use backend='cpu'")
        from .cuda.backend import CudaBackend

        return CudaBackend(device)
    raise ValueError(f"unknown backend {name!r}; choose auto, cpu or cuda")


def get_backend(name: str | Backend = "auto", device: int = 0) -> Backend:
    """The backend named ``cpu``, ``cuda`` or ``auto`` (CUDA when available)."""
    if isinstance(name, Backend):
        return name
    if name == "auto":
        name = "cuda" if cuda_available() else "cpu"
        log.info("backend auto -> %s", name)
    return _make(name, device)
