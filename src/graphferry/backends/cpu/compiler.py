"""Compile a program's C++ text with the system compiler and OpenMP, cached on disk.

The shared library is keyed by a hash of the full translation unit, the
headers it includes and the compiler command, so editing a program or a header
rebuilds it and nothing else does. Libraries are written under a temporary
name and renamed, so two processes compiling at once never load half a file.

Cache directory: ``$GRAPHFERRY_CACHE_DIR`` or ``~/.cache/graphferry``.
"""

from __future__ import annotations

import ctypes
import hashlib
import logging
import os
import shutil
import subprocess
import tempfile
import threading
from functools import lru_cache
from pathlib import Path

from ...errors import CompilerError
from ..base import INCLUDE_DIR

log = logging.getLogger(__name__)

CPU_DIR = Path(__file__).resolve().parent
_FLAGS = ["-O3", "-std=c++17", "-fPIC", "-shared", "-fopenmp", "-fno-strict-aliasing",
          "-fvisibility=hidden", "-w"]
_lock = threading.Lock()


def cache_dir() -> Path:
    root = os.environ.get("GRAPHFERRY_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "graphferry"
    )
    path = Path(root) / "cpu"
    path.mkdir(parents=True, exist_ok=True)
    return path


@lru_cache(maxsize=1)
def find_compiler() -> str:
    """The C++ compiler: ``$CXX``, else ``c++``, ``g++`` or ``clang++`` on PATH."""
    candidates = [os.environ["CXX"]] if os.environ.get("CXX") else ["c++", "g++", "clang++"]
    for c in candidates:
        path = shutil.which(c)
        if path:
            return path
    raise CompilerError(
        "the CPU backend needs a C++ compiler with OpenMP (looked for "
        + ", ".join(candidates)
        + "); install one (e.g. `apt-get install g++`) or set CXX"
    )


def _headers_digest() -> str:
    h = hashlib.sha256()
    for d in (INCLUDE_DIR, CPU_DIR):
        for p in sorted(d.glob("*.h")):
            h.update(p.name.encode())
            h.update(p.read_bytes())
    return h.hexdigest()


_loaded: dict[str, ctypes.CDLL] = {}


def compile_library(source: str, label: str = "program") -> ctypes.CDLL:
    """Compile ``source`` (a full translation unit) into a shared library and load it."""
    cxx = find_compiler()
    key = hashlib.sha256(
        "\0".join([source, _headers_digest(), cxx, *_FLAGS]).encode()
    ).hexdigest()[:24]
    with _lock:
        if key in _loaded:
            return _loaded[key]
        out = cache_dir() / f"{label}-{key}.so"
        if not out.exists():
            src = cache_dir() / f"{label}-{key}.cpp"
            fd, tmp_src = tempfile.mkstemp(suffix=".cpp", dir=cache_dir())
            with os.fdopen(fd, "w") as f:
                f.write(source)
            os.replace(tmp_src, src)
            fd, tmp_out = tempfile.mkstemp(suffix=".so", dir=cache_dir())
            os.close(fd)
            cmd = [cxx, *_FLAGS, f"-I{INCLUDE_DIR}", f"-I{CPU_DIR}", str(src), "-o", tmp_out]
            log.info("compiling %s for the CPU backend", label)
            proc = subprocess.run(cmd, capture_output=True, text=True)
            if proc.returncode != 0:
                os.unlink(tmp_out)
                raise CompilerError(
                    f"compiling program {label!r} failed ({' '.join(cmd)}):\n{proc.stderr[-4000:]}"
                )
            os.replace(tmp_out, out)
        lib = ctypes.CDLL(str(out))
        _loaded[key] = lib
        return lib
