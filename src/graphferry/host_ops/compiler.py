"""Compile a program's C++ text with the system compiler and OpenMP, cached on disk.

The shared library is keyed by a hash of the full translation unit, the
headers it includes and the compiler command, so editing a program or a header
rebuilds it and nothing else does.

The cache heals itself and is safe for several processes at once:

* an entry is written under a temporary name, carries a footer (magic, its
  length, its BLAKE2b digest) after the ELF image, and is renamed into place,
  so a reader sees a whole entry or none (the dynamic loader ignores bytes
  after the sections it maps);
* on load the footer is checked first; a truncated, empty or altered entry
  (a full disk, a killed process, a copied cache) is rebuilt instead of being
  handed to ``dlopen``, which would die of SIGBUS on a truncated file;
* one process compiles a given entry at a time (an advisory ``flock`` on a
  per-entry lock file, released by the kernel if the process dies); the others
  wait and then load its entry.

Cache directory: ``$GRAPHFERRY_CACHE_DIR`` or ``~/.cache/graphferry``.

Example:
    >>> lib = compile_library('extern "C" __attribute__((visibility("default"))) int gf_two() { return 2; }',
    ...                       label="doctest")
    >>> lib.gf_two()
    2
"""

from __future__ import annotations

import ctypes
import hashlib
import logging
import os
import shutil
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager, suppress
from functools import lru_cache
from pathlib import Path

from ..errors import CompilerError
from ..phase_clock import phase
from ..workfiles import owner_tag, remove_stale_work

log = logging.getLogger(__name__)

HOST_DIR = Path(__file__).resolve().parent                    # gf_host_ops.h
#: the headers a program may include, by path (no import: the backends sit above this module):
#: gf_prelude.h (every backend's), gf_cpu_kernels.h (the CPU backend's) and gf_host_ops.h
HEADER_DIRS = (HOST_DIR.parent / "backends" / "include", HOST_DIR.parent / "backends" / "cpu", HOST_DIR)
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
    for d in HEADER_DIRS:
        for p in sorted(d.glob("*.h")):
            h.update(p.name.encode())
            h.update(p.read_bytes())
    return h.hexdigest()


_loaded: dict[str, ctypes.CDLL] = {}

#: Footer after the ELF image: magic, image length (8 bytes, little endian), BLAKE2b-256 digest.
FOOTER_MAGIC = b"GFCACHE1"
FOOTER_BYTES = len(FOOTER_MAGIC) + 8 + 32


def _footer(image: bytes) -> bytes:
    return FOOTER_MAGIC + len(image).to_bytes(8, "little") + hashlib.blake2b(image, digest_size=32).digest()


def entry_is_valid(path: Path) -> bool:
    """True when ``path`` is a whole cache entry: its footer matches the image before it."""
    try:
        data = path.read_bytes()
    except OSError:
        return False
    if len(data) <= FOOTER_BYTES:
        return False
    image, footer = data[:-FOOTER_BYTES], data[-FOOTER_BYTES:]
    return footer == _footer(image)


@contextmanager
def _entry_lock(path: Path):
    """Hold an exclusive advisory lock for one cache entry (no-op where flock is missing)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX: fall back to rename-only safety
        yield
        return
    with open(path.with_suffix(".lock"), "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def _run_compiler(cmd: list[str], scratch: str) -> tuple[int, str]:
    """Run the compiler with its temporaries in ``scratch``; ``(status, stderr)``.

    Stopped on the way (a signal raises here): the compiler is asked to stop with
    SIGTERM, on which gcc and clang remove their own temporaries (subprocess.run
    would SIGKILL it and leave them), and ``scratch`` is removed by the caller either way.
    """
    import subprocess  # (here: a warm cache compiles nothing)

    env = dict(os.environ, TMPDIR=scratch, TMP=scratch, TEMP=scratch)
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        _, err = proc.communicate()
    except BaseException:
        proc.terminate()
        try:
            proc.communicate(timeout=10)
        except BaseException:
            proc.kill()
            proc.wait()
        raise
    return proc.returncode, err


def _build(cxx: str, source: str, label: str, key: str, out: Path) -> None:
    """Compile into a temporary file, append the footer, rename onto ``out``.

    Every file the build makes lies in the cache directory under a name that
    carries its owner (the compiler's own temporaries too, in a scratch
    directory given to it as ``TMPDIR``): an interrupted build leaves nothing
    in ``$TMPDIR``, and the next build removes what a killed one left.
    """
    directory = out.parent
    # Temporaries carry their owner, so the next build removes those of a killed compiler.
    remove_stale_work(directory, f".{label}-")
    tag = f".{label}-{owner_tag()}-"
    src = directory / f"{label}-{key}.cpp"
    fd, tmp_src = tempfile.mkstemp(prefix=tag, suffix=".cpp", dir=directory)
    with os.fdopen(fd, "w") as f:
        f.write(source)
    os.replace(tmp_src, src)
    fd, tmp_out = tempfile.mkstemp(prefix=tag, suffix=".so", dir=directory)
    os.close(fd)
    scratch = tempfile.mkdtemp(prefix=tag, suffix=".tmp", dir=directory)
    try:
        cmd = [cxx, *_FLAGS, *(f"-I{d}" for d in HEADER_DIRS), str(src), "-o", tmp_out]
        log.info("compiling %s for the CPU backend", label)
        returncode, stderr = _run_compiler(cmd, scratch)
        if returncode != 0:
            raise CompilerError(
                f"compiling program {label!r} failed ({' '.join(cmd)}):\n{stderr[-4000:]}"
            )
        image = Path(tmp_out).read_bytes()
        with open(tmp_out, "ab") as f:
            f.write(_footer(image))
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp_out, out)
    except BaseException:
        with suppress(FileNotFoundError):
            os.unlink(tmp_out)
        raise
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


#: Seconds this process spent building cache entries (or waiting for another process to).
_compile_seconds = 0.0


def seconds_compiling() -> float:
    """Seconds this process has spent compiling programs so far (a run record's ``compile`` phase)."""
    return _compile_seconds


def _entry(cxx: str, source: str, label: str, headers: str | None = None) -> tuple[str, Path]:
    """``(key, path)`` of ``source``'s cache entry: a hash of the unit, the headers (``headers``: their
    digest, read here when None) and the command."""
    headers = _headers_digest() if headers is None else headers
    key = hashlib.sha256("\0".join([source, headers, cxx, *_FLAGS]).encode()).hexdigest()[:24]
    return key, cache_dir() / f"{label}-{key}.so"


def _ensure_built(cxx: str, source: str, label: str, key: str, out: Path) -> None:
    """Build ``out`` unless a whole entry is there (one process at a time builds an entry)."""
    if entry_is_valid(out):
        return
    with _entry_lock(out):
        if not entry_is_valid(out):  # another process may have built it meanwhile
            if out.exists():
                log.warning("program cache entry %s is damaged; rebuilding it", out)
            _build(cxx, source, label, key, out)


def compile_library(source: str, label: str = "program", shards: int = 1):
    """Compile ``source`` (a full translation unit) into a shared library and load it.

    ``shards`` > 1: the unit is built that many times at once, unit ``k`` with ``GF_HOST_SHARD``
    defined as ``k`` and ``GF_HOST_SHARDS`` as ``shards`` (``gf_host_ops.h`` defines there only
    the exports of its regions ``r`` with ``r % shards == k``), and the
    result is a :class:`ShardedLibrary` whose attributes are the shards' exports. One compiler
    process optimises all of a unit's code on one core: the host library took 4.3 s as one unit
    on 2 cores, its slowest tenth about 1 s, so a fresh machine's first run waits far less.
    """
    global _compile_seconds
    cxx = find_compiler()
    units = [source] if shards == 1 else [f"#define GF_HOST_SHARD {k}\n#define GF_HOST_SHARDS {shards}\n{source}"
                                          for k in range(shards)]
    headers = _headers_digest()  # once: every unit includes the same headers
    entries = [_entry(cxx, unit, label, headers) for unit in units]
    whole = "+".join(key for key, _ in entries)
    if whole in _loaded:  # (a dict read: no lock, and no phase for a library at hand)
        return _loaded[whole]
    with phase("compile"), _lock:  # building, loading, or waiting for another thread's build
        if whole in _loaded:
            return _loaded[whole]
        missing = [(unit, key, out) for unit, (key, out) in zip(units, entries) if not entry_is_valid(out)]
        if missing:
            t0 = time.perf_counter()
            try:
                if len(missing) == 1:
                    _ensure_built(cxx, missing[0][0], label, missing[0][1], missing[0][2])
                else:  # each unit by its own compiler process, at once
                    with ThreadPoolExecutor(len(missing), thread_name_prefix="gf-cxx") as pool:
                        for done in [pool.submit(_ensure_built, cxx, unit, label, key, out)
                                     for unit, key, out in missing]:
                            done.result()
            finally:
                _compile_seconds += time.perf_counter() - t0
        if not _loaded:
            _spin_less_on_a_busy_machine()  # before the first library brings OpenMP's runtime in
        libs = [ctypes.CDLL(str(out)) for _, out in entries]
        lib = libs[0] if shards == 1 else ShardedLibrary(libs)
        _loaded[whole] = lib
        return lib


class ShardedLibrary:
    r"""The shared libraries of one sharded build as one: an attribute is the export of whichever
    shard defines it (a ctypes function, kept, so its ``argtypes`` stay set).

    Example:
        >>> lib = compile_library('#if GF_HOST_SHARD == 0\n'
        ...                       'extern "C" __attribute__((visibility("default"))) int gf_one() { return 1; }\n'
        ...                       '#else\n'
        ...                       'extern "C" __attribute__((visibility("default"))) int gf_three() { return 3; }\n'
        ...                       '#endif\n', label="doctest-shards", shards=2)
        >>> lib.gf_one() + lib.gf_three()
        4
    """

    def __init__(self, libs: list[ctypes.CDLL]):
        self._libs = libs

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        for lib in self._libs:
            try:
                fn = getattr(lib, name)
            except AttributeError:
                continue
            setattr(self, name, fn)  # later lookups find it at once
            return fn
        raise AttributeError(f"no shard of the library exports {name}")


#: OpenMP's idle threads on a busy machine: the spin count libgomp itself takes when it has more
#: threads than processors (its default otherwise: 300,000 iterations, milliseconds).
BUSY_MACHINE_SPINCOUNT = "1000"


def _spin_less_on_a_busy_machine() -> None:
    """Where the machine is already busy (load average at least its processors), OpenMP's threads
    spin briefly at the end of a parallel loop before they sleep (``GOMP_SPINCOUNT``).

    Between two parallel loops of ours runs Python (the next frontier, the next call): for
    milliseconds each of libgomp's idle threads spins on a processor that other processes, and
    this process's own main thread, are waiting for. On the shared 2-core machine at load 3-7 a
    one-shot BFS of Kronecker 21 took 0.20-0.53 s with the default and 0.11-0.16 s with
    ``GOMP_SPINCOUNT=1000`` (libgomp's own count when it has more threads than processors); on
    a quiet machine the default stays (no thread waits for a processor there). A user's
    ``OMP_WAIT_POLICY`` or ``GOMP_SPINCOUNT`` is left as it is; libgomp reads them when it loads.
    """
    if "OMP_WAIT_POLICY" in os.environ or "GOMP_SPINCOUNT" in os.environ:
        return
    try:
        load = os.getloadavg()[0]
        processors = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    except OSError:  # no load average here
        return
    if load >= processors:
        os.environ["GOMP_SPINCOUNT"] = BUSY_MACHINE_SPINCOUNT
        log.info("load average %.1f on %d processors: OpenMP threads spin %s iterations before they sleep",
                 load, processors, BUSY_MACHINE_SPINCOUNT)
