"""Graph stores: a CSR graph as a directory of ``.npy`` files, opened memory-mapped.

A store is a directory holding

* ``offsets.npy`` (int64, ``n + 1``), ``indices.npy`` (int32 or int64, ``m``),
* ``weights.npy`` (float32, ``m``) when the graph is weighted,
* ``original_ids.npy`` (int64 or unicode, ``n``) when the input's vertex ids
  were renumbered to ``0 .. n-1``,
* ``manifest.json``: format name and version, ``n``, ``m``, dtypes,
  ``directed``/``weighted``/``renumbered``, the graph's name and, per file, its
  byte size, shape, dtype and a BLAKE2b checksum.

``.npy`` is chosen because it needs no parsing: :func:`open_store` hands out
``np.load(..., mmap_mode="r")`` maps, so a partition's edges are a byte range of
``indices.npy`` that the operating system pages in on demand (the engines copy
from it, pin it or read it zero-copy).

Writes are atomic: everything goes into a temporary sibling directory that is
renamed onto the target only once every file and the manifest are complete and
synced, so a reader sees either no store or a whole one, also after a crash or
a failed conversion. File space is reserved (``posix_fallocate``) before a file
is memory-mapped for writing, so a full disk raises an error naming the file
instead of killing the process with SIGBUS. Temporary directories carry their
owner in their name (host, pid, process start time); the next writer of the
same target removes those of dead processes (never a live one's) and puts back
an old store that a killed replacement had moved aside. Opening always checks the manifest, every file's size and
``.npy`` header against it, and that the CSR is well formed (one vectorised
pass over ``offsets`` and ``indices``, a few percent of reading them);
``verify=True`` also recomputes the checksums (O(size of the store), hashing). A store that fails a check raises
:class:`~graphferry.errors.StoreError` naming the file and the problem, never a
half-read graph.

Example:
    >>> import tempfile, numpy as np
    >>> from graphferry.graph import Graph
    >>> from graphferry.store import write_store, open_store
    >>> g = Graph.from_edges(np.array([0, 0, 1]), np.array([1, 2, 2]), n=3, name="tiny")
    >>> path = tempfile.mkdtemp() + "/tiny"
    >>> _ = write_store(g, path)
    >>> h = open_store(path, verify=True)
    >>> h.name, h.n, h.m, h.indices.tolist(), type(h.indices).__name__
    ('tiny', 3, 3, [1, 2, 2], 'memmap')
"""

from __future__ import annotations

import errno
import hashlib
import json
import logging
import os
import shutil
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from .errors import StoreError, TargetExistsError, writing
from .graph import CSRError, Graph
# the work-file helpers lived here; kept importable from this module
from .workfiles import (  # noqa: F401
    _UNFINISHED, _host_tag, current_umask, finish_work, make_work_dir, make_work_file, owner_is_alive,
    owner_tag, publish, remove_stale_work, remove_unfinished_work, work_file,
)

log = logging.getLogger(__name__)

FORMAT_NAME = "graphferry-store"
FORMAT_VERSION = 1
MANIFEST = "manifest.json"
ARRAYS = ("offsets", "indices", "weights", "original_ids")
#: Streamed hashing/copy block. Large enough that per-call overhead vanishes,
#: small enough that hashing a memory map does not keep much resident.
BLOCK_BYTES = 16 * 2**20
#: Fixed size of the ``.npy`` header this module writes, so that a header can be
#: rewritten in place when an array is shortened (deduplication) without
#: moving the data behind it. 128 bytes hold any 1-d header; a multiple of 64
#: keeps the data aligned as numpy itself does.
NPY_HEADER_BYTES = 128


# ----------------------------------------------------------------- helpers
def _checksum(path: Path) -> str:
    h = hashlib.blake2b(digest_size=32)
    with open(path, "rb", buffering=0) as f:
        buf = bytearray(BLOCK_BYTES)
        view = memoryview(buf)
        while True:
            k = f.readinto(buf)
            if not k:
                break
            h.update(view[:k])  # hashlib releases the GIL on large buffers
    return h.hexdigest()


def _npy_header(dtype: np.dtype, length: int) -> bytes:
    """A version-1.0 ``.npy`` header for a 1-d C array, padded to NPY_HEADER_BYTES."""
    d = {"descr": np.lib.format.dtype_to_descr(np.dtype(dtype)), "fortran_order": False,
         "shape": (int(length),)}
    text = repr(d).encode("latin1")
    pad = NPY_HEADER_BYTES - 10 - len(text) - 1
    if pad < 0:
        raise StoreError(f"npy header for dtype {dtype} does not fit {NPY_HEADER_BYTES} bytes")
    body = text + b" " * pad + b"\n"
    return b"\x93NUMPY\x01\x00" + len(body).to_bytes(2, "little") + body


def _read_npy_header(path: Path) -> tuple[np.dtype, tuple[int, ...], bool, int]:
    """``(dtype, shape, fortran_order, data_offset)`` of a ``.npy`` file, or StoreError."""
    try:
        with open(path, "rb") as f:
            version = np.lib.format.read_magic(f)
            if version == (1, 0):
                shape, fortran, dtype = np.lib.format.read_array_header_1_0(f)
            elif version == (2, 0):
                shape, fortran, dtype = np.lib.format.read_array_header_2_0(f)
            else:
                raise StoreError(f"{path}: unsupported .npy version {version}")
            return dtype, shape, fortran, f.tell()
    except StoreError:
        raise
    except Exception as e:  # numpy raises ValueError/EOFError on damaged headers
        raise StoreError(f"{path}: damaged .npy header ({e})") from e


def _reserve(fd: int, size: int) -> None:
    """Allocate ``size`` bytes of a file on disk (ENOSPC now, not SIGBUS later)."""
    if size <= 0:
        return
    try:
        os.posix_fallocate(fd, 0, size)
    except AttributeError:  # pragma: no cover - platforms without posix_fallocate
        os.ftruncate(fd, size)
    except OSError as exc:
        if exc.errno not in (errno.EOPNOTSUPP, errno.EINVAL, errno.ENOSYS):
            raise
        os.ftruncate(fd, size)  # a filesystem that cannot reserve: sparse, as before


def _fsync_path(path: Path, directory: bool = False) -> None:
    flags = os.O_RDONLY | (getattr(os, "O_DIRECTORY", 0) if directory else 0)
    try:
        fd = os.open(path, flags)
    except OSError:  # some filesystems refuse opening directories; durability is best effort there
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _json_safe(value: Any) -> Any:
    """``value`` reduced to what JSON holds (numpy scalars unwrapped); unknown leaves dropped."""
    if isinstance(value, (str, bool, int, float)) or value is None:
        return value
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, (Path, os.PathLike)):
        return os.fspath(value)
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            sv = _json_safe(v)
            if sv is not _DROP:
                out[str(k)] = sv
        return out
    if isinstance(value, (list, tuple)):
        items = [_json_safe(v) for v in value]
        return [v for v in items if v is not _DROP]
    return _DROP


_DROP = object()


def _restore_or_remove_old(target: Path) -> None:
    """A dead process may have moved the old store aside and died before the new one
    was in place: put the old one back if the target is empty, else remove it."""
    prefix = f".{target.name}.old-"
    try:
        candidates = [p for p in target.parent.iterdir() if p.name.startswith(prefix)]
    except OSError:
        return
    for old in candidates:
        if owner_is_alive(old.name, prefix):
            continue
        if not target.exists() and is_store(old):
            log.warning("restoring %s from %s (its replacement never finished)", target, old)
            os.rename(old, target)
        else:
            shutil.rmtree(old, ignore_errors=True)


def is_store(path: str | os.PathLike) -> bool:
    """True when ``path`` is a directory with a ``manifest.json`` (not checked further)."""
    p = Path(path)
    return p.is_dir() and (p / MANIFEST).is_file()


def check_target(path: str | os.PathLike, overwrite: bool = False) -> None:
    """Raise :class:`StoreError` unless a store may be written at ``path``.

    Readers call it before parsing, so a conversion does not run for minutes
    only to find the target taken. ``overwrite`` replaces stores only, never
    other directories or files.
    """
    p = Path(path)
    if not p.exists():
        return
    if not overwrite:
        raise TargetExistsError(f"{p} already exists; pass overwrite=True to replace it", str(p))
    # Never delete something that is not a store: overwrite is for stores only.
    if p.is_dir() and (is_store(p) or not any(p.iterdir())):
        return
    raise StoreError(f"{p} exists and is not a graph store; refusing to overwrite it")


# ------------------------------------------------------------------ writer
class StoreWriter:
    """Write a store into a temporary sibling directory, then rename it into place.

    Use as a context manager: leaving the block with an exception removes the
    temporary directory, so a failed conversion leaves nothing behind.
    ``create`` returns a writable memory map (the builder scatters into it);
    ``write`` streams an existing array. ``commit`` syncs, writes the manifest
    last and renames.

    Example:
        >>> import tempfile, numpy as np
        >>> from graphferry.store import StoreWriter, open_store
        >>> path = tempfile.mkdtemp() + "/g"
        >>> with StoreWriter(path) as w:
        ...     w.write("offsets", np.array([0, 1, 1], dtype=np.int64))
        ...     idx = w.create("indices", np.int32, 1)
        ...     idx[:] = [1]
        ...     _ = w.commit(n=2, m=1, directed=True, name="g")
        >>> open_store(path).indices.tolist()
        [1]
    """

    def __init__(self, path: str | os.PathLike, *, overwrite: bool = False, durable: bool = True):
        self.path = Path(path)
        self.overwrite = overwrite
        self.durable = durable
        self.path.parent.mkdir(parents=True, exist_ok=True)
        _restore_or_remove_old(self.path)
        self._check_target()
        remove_stale_work(self.path.parent, f".{self.path.name}.tmp-")
        # A sibling, so the final rename stays within one filesystem (atomic).
        self.tmp = make_work_dir(self.path.parent, f".{self.path.name}.tmp-")
        self._arrays: dict[str, tuple[np.dtype, int]] = {}
        self._maps: list[np.memmap] = []
        self._done = False

    def _check_target(self) -> None:
        check_target(self.path, self.overwrite)

    def file(self, key: str) -> Path:
        return self.tmp / f"{key}.npy"

    def create(self, key: str, dtype, length: int) -> np.memmap | np.ndarray:
        """A writable array of ``length`` entries backed by ``<key>.npy`` (zero-filled)."""
        if key not in ARRAYS:
            raise ValueError(f"unknown store array {key!r}")
        dtype = np.dtype(dtype)
        length = int(length)
        path = self.file(key)
        with writing(self.path / path.name), open(path, "wb") as f:
            f.write(_npy_header(dtype, length))
            f.flush()
            # Reserve the blocks now: writes through a memory map into a sparse
            # file on a full disk die of SIGBUS; here they fail as an exception.
            _reserve(f.fileno(), NPY_HEADER_BYTES + length * dtype.itemsize)
        self._arrays[key] = (dtype, length)
        if length == 0:
            return np.zeros(0, dtype=dtype)  # mmap cannot map zero bytes
        mm = np.memmap(path, dtype=dtype, mode="r+", offset=NPY_HEADER_BYTES, shape=(length,))
        self._maps.append(mm)
        return mm

    def shrink(self, key: str, length: int) -> None:
        """Cut ``<key>.npy`` to its first ``length`` entries (after deduplication)."""
        dtype, old = self._arrays[key]
        if length > old:
            raise ValueError(f"cannot grow {key} from {old} to {length}")
        self._release_maps()
        path = self.file(key)
        with open(path, "r+b") as f:
            f.write(_npy_header(dtype, length))
            f.truncate(NPY_HEADER_BYTES + int(length) * dtype.itemsize)
        self._arrays[key] = (dtype, int(length))

    def write(self, key: str, array: np.ndarray) -> None:
        """Write a 1-d array (in memory or memory-mapped) to ``<key>.npy`` in blocks."""
        if key not in ARRAYS:
            raise ValueError(f"unknown store array {key!r}")
        array = np.asarray(array)
        if array.ndim != 1:
            raise ValueError(f"{key} must be 1-d, got shape {array.shape}")
        if array.dtype.hasobject:
            raise StoreError(f"{key} has dtype object, which a store cannot hold "
                             "(vertex labels must be all integers or all strings)")
        dtype = array.dtype.newbyteorder("=") if array.dtype.byteorder not in "=|" else array.dtype
        with writing(self.path / f"{key}.npy"), open(self.file(key), "wb") as f:
            f.write(_npy_header(dtype, len(array)))
            step = max(1, BLOCK_BYTES // max(1, dtype.itemsize))
            for lo in range(0, len(array), step):
                f.write(np.ascontiguousarray(array[lo:lo + step], dtype=dtype).data)
        self._arrays[key] = (dtype, len(array))

    def _release_maps(self) -> None:
        # Flush only: closing the map would make any view still held by the
        # caller crash on access; the map goes away with its last reference.
        for mm in self._maps:
            mm.flush()
        self._maps.clear()

    def commit(self, *, n: int, m: int, directed: bool, name: str = "graph",
               meta: dict | None = None) -> Path:
        """Check shapes, checksum, write ``manifest.json`` and rename into place."""
        self._release_maps()
        expected = {"offsets": n + 1, "indices": m, "weights": m, "original_ids": n}
        for key in ("offsets", "indices"):
            if key not in self._arrays:
                raise StoreError(f"{self.path}: cannot commit a store without {key}")
        for key, (dtype, length) in self._arrays.items():
            if length != expected[key]:
                raise StoreError(f"{self.path}: {key} has {length} entries, expected {expected[key]}")
        t0 = time.perf_counter()
        keys = sorted(self._arrays)
        # Hash the files in parallel threads (hashlib releases the GIL).
        with ThreadPoolExecutor(max_workers=min(4, len(keys))) as pool:
            sums = dict(zip(keys, pool.map(lambda k: _checksum(self.file(k)), keys)))
        files = {}
        for key in keys:
            dtype, length = self._arrays[key]
            files[key] = {
                "file": f"{key}.npy",
                "bytes": self.file(key).stat().st_size,
                "dtype": dtype.str,
                "shape": [length],
                "blake2b": sums[key],
            }
        from .version import __version__

        manifest = {
            "format": FORMAT_NAME,
            "version": FORMAT_VERSION,
            "name": name,
            "n": int(n),
            "m": int(m),
            "directed": bool(directed),
            "weighted": "weights" in self._arrays,
            "renumbered": "original_ids" in self._arrays,
            "dtypes": {k: self._arrays[k][0].str for k in keys},
            "files": files,
            "checksum": "blake2b-256",
            "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "writer": f"graphferry {__version__}",
            "meta": _json_safe(meta or {}),
        }
        with writing(self.path / MANIFEST), open(self.tmp / MANIFEST, "w") as f:
            json.dump(manifest, f, indent=1)
            f.write("\n")
        log.debug("%s: checksums of %d files in %.2f s", self.path, len(keys), time.perf_counter() - t0)
        if self.durable:
            for key in keys:
                _fsync_path(self.file(key))
            _fsync_path(self.tmp / MANIFEST)
            _fsync_path(self.tmp, directory=True)
        self._install()
        self._done = True
        log.info("wrote graph store %s (n=%d, m=%d)", self.path, n, m)
        return self.path

    def _install(self) -> None:
        self._check_target()  # again: something may have appeared meanwhile
        old = None

        def put_back() -> None:  # the old store, moved aside, goes back when the new one is not in place
            if old is not None and old.exists() and not self.path.exists():
                os.rename(old, self.path)

        try:
            if self.path.exists():
                # rename() cannot replace a non-empty directory: move the old store
                # aside, put the new one in, then delete the old one.
                old = Path(tempfile.mkdtemp(prefix=f".{self.path.name}.old-{owner_tag()}-",
                                            dir=self.path.parent))
                os.rmdir(old)
                os.rename(self.path, old)
            os.chmod(self.tmp, 0o777 & ~current_umask())  # made private while half written; now the user's mode
            os.rename(self.tmp, self.path)
        except OSError as e:
            put_back()
            raise StoreError(f"{self.path}: could not move the new store into place ({e})") from e
        except BaseException:  # a signal between the two renames
            put_back()
            raise
        finish_work(self.tmp)  # after the rename: an interruption before it still removes tmp
        if self.durable:
            _fsync_path(self.path.parent, directory=True)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)

    def abort(self) -> None:
        """Remove the temporary directory (nothing is left at the target)."""
        if self._done:
            return
        self._release_maps()
        finish_work(self.tmp, remove=True)
        self._done = True

    def __enter__(self) -> "StoreWriter":
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is not None or not self._done:
            self.abort()


# ------------------------------------------------------------------- write
def write_store(graph: Graph, path: str | os.PathLike, overwrite: bool = False, *,
                name: str | None = None) -> Path:
    """Write ``graph`` as a store at ``path`` (atomically); returns the path.

    Arrays are streamed in blocks, so a memory-mapped graph is copied without
    loading it whole. ``original_ids`` must be integers or strings.
    """
    with StoreWriter(path, overwrite=overwrite) as w:
        w.write("offsets", graph.offsets)
        w.write("indices", graph.indices)
        if graph.weights is not None:
            w.write("weights", graph.weights)
        if graph.original_ids is not None:
            ids = np.asarray(graph.original_ids)
            if ids.dtype.kind in "iu":
                ids = ids.astype(np.int64, copy=False)
            elif ids.dtype.kind not in "U":
                raise StoreError(f"{path}: original_ids of dtype {ids.dtype} cannot be stored; "
                                 "vertex labels must be all integers or all strings")
            w.write("original_ids", ids)
        meta = {k: v for k, v in graph.meta.items() if k != "store"}
        return w.commit(n=graph.n, m=graph.m, directed=graph.directed,
                        name=name or graph.name, meta=meta)


# -------------------------------------------------------------------- open
_ALLOWED_DTYPES = {
    "offsets": {"<i8"},
    "indices": {"<i4", "<i8"},
    "weights": {"<f4"},
    "original_ids": None,  # int64 or unicode, checked below
}


def read_manifest(path: str | os.PathLike) -> dict:
    """The parsed ``manifest.json`` of a store, with its format checked."""
    p = Path(path)
    if not p.exists():
        raise StoreError(f"{p}: no graph store here (path does not exist)")
    if not p.is_dir():
        raise StoreError(f"{p}: not a graph store (a store is a directory)")
    mpath = p / MANIFEST
    if not mpath.is_file():
        raise StoreError(f"{mpath}: manifest.json is missing (not a store, or an unfinished one)")
    try:
        manifest = json.loads(mpath.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise StoreError(f"{mpath}: unreadable manifest ({e})") from e
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT_NAME:
        raise StoreError(f"{mpath}: not a {FORMAT_NAME} manifest")
    if manifest.get("version") != FORMAT_VERSION:
        raise StoreError(f"{mpath}: store format version {manifest.get('version')!r} "
                         f"is not supported (this graphferry reads version {FORMAT_VERSION})")
    for key, typ in (("n", int), ("m", int), ("directed", bool), ("files", dict)):
        if not isinstance(manifest.get(key), typ) or (typ is int and manifest[key] < 0):
            raise StoreError(f"{mpath}: field {key!r} missing or invalid")
    return manifest


def _check_file(root: Path, key: str, entry: Any, length: int) -> tuple[Path, np.dtype]:
    if not isinstance(entry, dict) or not isinstance(entry.get("file"), str):
        raise StoreError(f"{root / MANIFEST}: entry for {key} is malformed")
    fpath = root / entry["file"]
    if fpath.parent != root:
        raise StoreError(f"{root / MANIFEST}: file name {entry['file']!r} leaves the store")
    if not fpath.is_file():
        raise StoreError(f"{fpath}: missing ({key} of the store)")
    size = fpath.stat().st_size
    if size != entry.get("bytes"):
        raise StoreError(f"{fpath}: size {size} bytes, manifest says {entry.get('bytes')} "
                         "(truncated or replaced)")
    dtype, shape, fortran, data_offset = _read_npy_header(fpath)
    if dtype.str != entry.get("dtype"):
        raise StoreError(f"{fpath}: dtype {dtype.str}, manifest says {entry.get('dtype')}")
    allowed = _ALLOWED_DTYPES[key]
    if allowed is not None and dtype.str not in allowed:
        raise StoreError(f"{fpath}: dtype {dtype.str} not allowed for {key}")
    if key == "original_ids" and dtype.kind not in "iU":
        raise StoreError(f"{fpath}: dtype {dtype.str} not allowed for original_ids")
    if fortran:
        raise StoreError(f"{fpath}: the file is in Fortran order; a store's arrays are in C order")
    if shape != (length,):
        rule = {"offsets": "n + 1", "original_ids": "n"}.get(key, "m")
        raise StoreError(f"{fpath}: the file holds shape {list(shape)}, the manifest's {rule} = {length} "
                         f"entries for {key}")
    if list(shape) != entry.get("shape"):
        raise StoreError(f"{fpath}: the manifest says shape {json.dumps(entry.get('shape'))}, "
                         f"the file holds {list(shape)}")
    if data_offset + length * dtype.itemsize != size:
        raise StoreError(f"{fpath}: {size} bytes do not hold {length} entries of {dtype} "
                         "after the header (truncated or padded)")
    return fpath, dtype


def _load(fpath: Path, length: int) -> np.ndarray:
    if length == 0:  # mmap cannot map zero bytes
        return np.load(fpath, allow_pickle=False)
    return np.load(fpath, mmap_mode="r", allow_pickle=False)


def _checksum_mismatches(checked: dict[str, tuple[Path, np.dtype]], files: dict) -> list[Path]:
    keys = sorted(checked)
    with ThreadPoolExecutor(max_workers=min(4, len(keys))) as pool:
        sums = dict(zip(keys, pool.map(lambda k: _checksum(checked[k][0]), keys)))
    return [checked[k][0] for k in keys if sums[k] != files[k].get("blake2b")]


def verify_store(path: str | os.PathLike) -> dict[str, Any]:
    """Check a store completely: manifest, sizes, headers, structure and every checksum.

    Returns a summary (``path``, ``n``, ``m``, ``files``, ``bytes``) when all
    holds; raises :class:`StoreError` naming every file whose checksum differs
    (or the first other problem).

    Example:
        >>> import tempfile, numpy as np
        >>> from graphferry.graph import Graph
        >>> path = tempfile.mkdtemp() + "/g"
        >>> _ = write_store(Graph.from_edges(np.array([0]), np.array([1]), n=2), path)
        >>> verify_store(path)["files"]
        ['indices.npy', 'offsets.npy']
        >>> with open(path + "/indices.npy", "r+b") as f:
        ...     _ = f.seek(NPY_HEADER_BYTES); _ = f.write(b"\\x00")  # edge 0 -> 0 now
        >>> verify_store(path)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        graphferry.errors.StoreError: .../indices.npy: checksum mismatch (changed or damaged since the store was written)
    """
    graph = open_store(path, verify=True)
    root = Path(path)
    files = read_manifest(root)["files"]
    return {"path": str(root), "n": graph.n, "m": graph.m,
            "files": sorted(e["file"] for e in files.values()),
            "bytes": sum(int(e["bytes"]) for e in files.values())}


def checked_files(root: Path) -> tuple[dict, dict[str, int], dict[str, tuple[Path, Any]]]:
    """``(manifest, expected length per array, {array: _check_file(...)})`` of the store at ``root``.

    Checks the manifest (known arrays, offsets and indices listed, ``weighted``
    matching the files) and each file's presence, size and ``.npy`` header;
    raises :class:`StoreError` naming the file. The arrays' contents are not read.
    """
    manifest = read_manifest(root)
    n, m = manifest["n"], manifest["m"]
    files = manifest["files"]
    unknown = set(files) - set(ARRAYS)
    if unknown:
        raise StoreError(f"{root / MANIFEST}: unknown arrays {sorted(unknown)}")
    for key in ("offsets", "indices"):
        if key not in files:
            raise StoreError(f"{root / MANIFEST}: no entry for {key}")
    if bool(manifest.get("weighted")) != ("weights" in files):
        raise StoreError(f"{root / MANIFEST}: 'weighted' disagrees with the files listed")
    lengths = {"offsets": n + 1, "indices": m, "weights": m, "original_ids": n}
    return manifest, lengths, {key: _check_file(root, key, files[key], lengths[key]) for key in files}


def open_store(path: str | os.PathLike, verify: bool = False) -> Graph:
    """Open a store as a :class:`Graph` whose arrays are read-only memory maps.

    Always checks the manifest, each file's presence, size, ``.npy`` header
    (dtype and shape) and the CSR structure (offsets start at 0, never
    decrease and end at ``m``; every index lies in ``[0, n)``: see
    :func:`graphferry.graph.check_csr`), so no kernel can be sent out of
    bounds. ``verify=True`` also recomputes every file's checksum against the
    manifest (reads the whole store). Raises :class:`StoreError` naming the
    file and the first bad entry.
    """
    root = Path(path)
    manifest, lengths, checked = checked_files(root)
    files = manifest["files"]
    if verify:
        bad = _checksum_mismatches(checked, files)
        if bad:
            raise StoreError(f"{', '.join(map(str, bad))}: checksum mismatch "
                             "(changed or damaged since the store was written)")
    arrays = {key: _load(fpath, lengths[key]) for key, (fpath, _) in checked.items()}
    meta = dict(manifest.get("meta") or {})
    meta["store"] = str(root)
    meta["manifest"] = {k: manifest[k] for k in ("format", "version", "created", "writer")
                        if k in manifest}
    try:
        # Graph() runs the structural check (check_csr) that keeps kernels in bounds.
        return Graph(
            arrays["offsets"],
            arrays["indices"],
            arrays.get("weights"),
            directed=manifest["directed"],
            original_ids=arrays.get("original_ids"),
            name=str(manifest.get("name", root.name)),
            meta=meta,
        )
    except CSRError as e:
        raise StoreError(f"{checked[e.array][0]}: damaged store: entry {e.position}: {e.problem}") from e


def remove_store(path: str | os.PathLike) -> None:
    """Delete a store directory (refuses directories that are not stores)."""
    p = Path(path)
    if not is_store(p):
        raise StoreError(f"{p}: not a graph store; refusing to delete it")
    shutil.rmtree(p)
