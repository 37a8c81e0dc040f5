"""Work files and directories: owned while half written, published atomically, cleaned after dead processes.

A store being written, a CSR build's spill directory, a compiled kernel's output or a plot go first
to a temporary sibling of their target, renamed into place (:func:`publish`) only once complete; so
a reader sees either nothing or a whole result, also after a crash. Temporary stores and build
directories carry their owner in their name (host, pid, process start time), so that a later run can
tell the work of a killed process (SIGKILL, power loss: no chance to clean up) from that of a live
one, which it must never touch. The start time guards against a reused pid; a directory of another
host is never judged.

Every work path this process claims is removed at interpreter exit unless it
was finished (:func:`remove_unfinished_work`; the command line also runs it
when stopped by a signal).

Example:
    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp())
    >>> work = make_work_dir(d, ".out.tmp-")
    >>> work.name.startswith(".out.tmp-" + owner_tag()), owner_is_alive(work.name, ".out.tmp-")
    (True, True)
    >>> finish_work(work, remove=True); work.exists()
    False
"""

from __future__ import annotations

import atexit
import contextlib
import errno
import hashlib
import logging
import os
import re
import secrets
import shutil
from pathlib import Path

log = logging.getLogger(__name__)


def _host_tag() -> str:
    import socket  # (here: a one-shot run names no work directory of its own)

    return hashlib.blake2b(socket.gethostname().encode(), digest_size=4).hexdigest()


def _start_ticks(pid: int) -> int:
    """The process's start time in clock ticks since boot (0 where /proc is missing)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0
    # The command name (field 2) may hold spaces and parentheses: split after the last ')'.
    return int(stat.rsplit(")", 1)[1].split()[19])


def owner_tag() -> str:
    """``host-pid-start`` of this process, for names of its temporary directories."""
    pid = os.getpid()
    return f"{_host_tag()}-{pid}-{_start_ticks(pid)}"


_OWNER_RE = re.compile(r"(?P<host>[0-9a-f]{8})-(?P<pid>\d+)-(?P<start>\d+)-")


def owner_is_alive(name: str, prefix: str) -> bool:
    """Whether the process named in a temporary directory's name may still be running.

    True (keep it) whenever in doubt: another host, an unparsable name, a pid
    that exists but belongs to someone else.
    """
    match = _OWNER_RE.match(name[len(prefix):])
    if not name.startswith(prefix) or match is None or match["host"] != _host_tag():
        return True
    pid, start = int(match["pid"]), int(match["start"])
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # alive, another user's
    now = _start_ticks(pid)
    return not (start and now and now != start)  # a different start time: the pid was reused


# Work directories and files this process made and has not finished with. A name is
# recorded *before* it is made, so a signal that lands anywhere between mkdir (or open)
# and the owner's ``with``/``finally`` (inside mkdtemp, before ``__enter__``) still
# leaves a name that :func:`remove_unfinished_work` finds.
# Each name maps to the pid that made it: a forked child exiting must not remove its parent's.
_UNFINISHED: dict[Path, int] = {}


def _claim(parent: str | os.PathLike, name, create, what: str) -> Path:
    """``parent/name()`` made by ``create(path)``, its name recorded as unfinished first; a new
    random name while one is taken (64 random bits: all but impossible)."""
    for _ in range(100):
        path = Path(parent) / name()
        _UNFINISHED[path] = os.getpid()
        try:
            create(path)
        except FileExistsError:  # not ours
            _UNFINISHED.pop(path, None)
            continue
        except BaseException:
            # A signal's exception can surface here after the path was made: keep
            # such a name recorded; forget it only when nothing was made.
            if not os.path.lexists(path):
                _UNFINISHED.pop(path, None)
            raise
        return path
    raise FileExistsError(errno.EEXIST, f"no free name for a work {what}", str(parent))


def make_work_dir(parent: str | os.PathLike, prefix: str) -> Path:
    """A new private directory ``parent/<prefix><owner_tag()>-<random>``, recorded as unfinished.

    Like :func:`tempfile.mkdtemp`, but the name is known before the directory
    exists, so an interruption cannot orphan it. Call :func:`finish_work`
    once it is renamed into place or removed.

    Example:
        >>> import tempfile
        >>> d = make_work_dir(tempfile.mkdtemp(), ".g.tmp-")
        >>> d.is_dir(), d.name.startswith(".g.tmp-" + owner_tag())
        (True, True)
        >>> finish_work(d, remove=True); d.exists()
        False
    """
    return _claim(parent, lambda: f"{prefix}{owner_tag()}-{secrets.token_hex(8)}",
                  lambda path: os.mkdir(path, 0o700), "directory")


def make_work_file(parent: str | os.PathLike, prefix: str, suffix: str = "") -> Path:
    """A new empty file ``parent/<prefix><random><suffix>``, recorded as unfinished like
    :func:`make_work_dir`'s directories: an output written under it and renamed into place.

    Example:
        >>> import tempfile
        >>> f = make_work_file(tempfile.mkdtemp(), ".out.csv.", ".csv")
        >>> f.is_file(), f.name.endswith(".csv")
        (True, True)
        >>> finish_work(f, remove=True); f.exists()
        False
    """
    return _claim(parent, lambda: f"{prefix}{secrets.token_hex(8)}{suffix}",
                  lambda path: os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)), "file")


def _remove(path: Path) -> None:
    """Remove a directory tree or a file (a link itself, not what it points to); gone already is fine."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()


def finish_work(path: str | os.PathLike, *, remove: bool = False) -> None:
    """Forget ``path`` (a work directory or file) as unfinished, after renaming it into place,
    or remove it first."""
    path = Path(path)
    if remove:
        _remove(path)
    _UNFINISHED.pop(path, None)


@contextlib.contextmanager
def work_file(parent: str | os.PathLike, prefix: str, suffix: str = ""):
    """A :func:`make_work_file` for the block, which writes it and renames it into place; whatever
    the block leaves there (after an error, or a rename that did not happen) is removed.

    Example:
        >>> import tempfile
        >>> d = Path(tempfile.mkdtemp())
        >>> with work_file(d, ".out.txt.") as tmp:
        ...     _ = tmp.write_text("done")
        ...     os.replace(tmp, d / "out.txt")
        >>> sorted(p.name for p in d.iterdir())
        ['out.txt']
    """
    tmp = make_work_file(parent, prefix, suffix)
    try:
        yield tmp
    finally:
        finish_work(tmp, remove=True)  # renamed into place: nothing left to remove


def current_umask() -> int:
    """The process's file-mode creation mask (read by setting it and putting it back).

    Example:
        >>> old = os.umask(0o027); current_umask() == 0o027; _ = os.umask(old)
        True
    """
    mask = os.umask(0o077)
    os.umask(mask)
    return mask


def publish(tmp: str | os.PathLike, final: str | os.PathLike) -> None:
    """Rename a finished work file or directory into place with the mode a plain new one gets.

    Work files and directories are made private (0600, 0700, as
    :func:`tempfile.mkstemp` makes them) while they are half written; what the
    user gets must follow their umask (0644 and 0755 under umask 022), so that a
    store shared between users, as the README suggests, is readable by them.

    Example:
        >>> import tempfile
        >>> d = Path(tempfile.mkdtemp()); old = os.umask(0o022)
        >>> with work_file(d, ".out.txt.") as tmp:
        ...     _ = tmp.write_text("done")
        ...     publish(tmp, d / "out.txt")
        >>> oct((d / "out.txt").stat().st_mode & 0o777); _ = os.umask(old); shutil.rmtree(d)
        '0o644'
    """
    full = 0o777 if os.path.isdir(tmp) else 0o666
    os.chmod(tmp, full & ~current_umask())
    os.replace(tmp, final)


def remove_unfinished_work() -> list[Path]:
    """Remove every work directory and file of this process that was not finished; returns them.

    Runs at interpreter exit and when the CLI is stopped by a signal, so a
    conversion interrupted at any instant leaves no temporary directory.
    """
    me = os.getpid()
    removed = sorted(path for path, pid in _UNFINISHED.items() if pid == me)
    for path in removed:
        finish_work(path, remove=True)
    return removed


atexit.register(remove_unfinished_work)


def remove_stale_work(parent: str | os.PathLike, prefix: str) -> list[Path]:
    """Remove ``parent/prefix*`` directories (or files) whose owner process is dead; returns them.

    Example:
        >>> import tempfile
        >>> d = Path(tempfile.mkdtemp())
        >>> dead = d / ".g.tmp-{}-999999999-1-x".format(_host_tag())  # no such pid
        >>> live = Path(tempfile.mkdtemp(prefix=f".g.tmp-{owner_tag()}-", dir=d))
        >>> dead.mkdir(); [p.name == dead.name for p in remove_stale_work(d, ".g.tmp-")]
        [True]
        >>> live.exists()
        True
    """
    removed = []
    try:
        candidates = [p for p in Path(parent).iterdir() if p.name.startswith(prefix)]
    except OSError:
        return removed
    for path in candidates:
        if path.is_symlink() or owner_is_alive(path.name, prefix):
            continue
        log.warning("removing %s, left by a process that no longer runs", path)
        _remove(path)
        removed.append(path)
    return removed
