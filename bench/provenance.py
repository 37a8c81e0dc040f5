"""Which tree produced a results file: commit, dirty flag, the diff's hash, the producing command.

Every benchmark under ``bench/`` names the exact tree that ran through this module (issue 35):
a results file says ``commit`` (the checked-out commit), ``dirty`` (whether the tree differed from
it: changed tracked files, or untracked files that are not git-ignored), ``diff_hash`` (sha256 of
that difference, when dirty) and ``command`` (the command line). Results files written this way
carry ``"schema": "graphferry-bench/2"``; ``bench/check_results.py`` (run by the test suite)
holds every such file to it.

Where the facts come from: ``dev/stamp_tree.py``, run in the checkout *before* a device call,
writes them to :data:`TREE_FILE` at the repository root, an untracked file that is not
git-ignored, so it travels with the working tree to the device machine (whose copy has no
current ``.git``). :func:`tree` reads that file, never an environment variable, and refuses a
stale one: the stamp lists the tree's files with a hash of their bytes, checked again at read.
Without a stamp, a local run takes the facts from git.

Use, in a benchmark (``bench/oneshot_bench.py`` and any new one included)::

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import provenance
    doc = provenance.stamp({"date": ..., "machine": ..., "runs": runs})

Example (on a checkout):

    >>> import provenance
    >>> sorted(provenance.stamp({})) == ["command", "commit", "diff_hash", "dirty", "schema", "tree_how"]
    True
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: written by dev/stamp_tree.py; untracked and not git-ignored, so it travels with the tree
TREE_FILE = ROOT / "graphferry-tree.json"
SCHEMA = "graphferry-bench/2"


def _git(*args: str) -> str | None:
    try:
        p = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return p.stdout.decode(errors="replace") if p.returncode == 0 else None


def _git_bytes(*args: str) -> bytes:
    p = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, timeout=120)
    return p.stdout if p.returncode == 0 else b""


def _fingerprint(paths: list[str]) -> str:
    """sha256 over the named files (name and bytes, in order): the tree's content, without git."""
    h = hashlib.sha256()
    for name in paths:
        h.update(b"\0file\0" + name.encode() + b"\0")
        try:
            h.update((ROOT / name).read_bytes())
        except OSError:
            h.update(b"\0absent\0")
    return h.hexdigest()


def from_git() -> dict | None:
    """The tree's facts from git, or None where there is no usable repository here.

    ``diff_hash`` hashes ``git diff HEAD --binary`` and every untracked, not ignored file (name and
    bytes), except :data:`TREE_FILE` itself; ``files`` and ``fingerprint`` let a copy of the tree
    without git (the device's) check that it is still the tree that was stamped."""
    head = _git("rev-parse", "--verify", "HEAD")
    top = _git("rev-parse", "--show-toplevel")
    if not head or not top or Path(top.strip()).resolve() != ROOT:
        return None
    h = hashlib.sha256()
    diff = _git_bytes("diff", "HEAD", "--binary")
    h.update(diff)
    untracked = sorted(f for f in (_git("ls-files", "--others", "--exclude-standard", "-z") or "").split("\0")
                       if f and f != TREE_FILE.name)
    for name in untracked:
        h.update(b"\0untracked\0" + name.encode() + b"\0")
        try:
            h.update((ROOT / name).read_bytes())
        except OSError:
            pass
    dirty = bool(diff) or bool(untracked)
    files = sorted(set(f for f in (_git("ls-files", "-z") or "").split("\0") if f and (ROOT / f).is_file())
                   | set(untracked))
    return {"commit": head.strip(), "dirty": dirty, "diff_hash": h.hexdigest() if dirty else None,
            "untracked": untracked, "files": files, "fingerprint": _fingerprint(files)}


_TREE: dict | None = None


def tree() -> dict:
    """``{"commit", "dirty", "diff_hash", "tree_how"}`` of the tree this process runs from.

    From :data:`TREE_FILE` when there is one, after checking that the files it lists still hold
    the bytes they held when stamped (a stale stamp raises: run ``python dev/stamp_tree.py``
    again); else from git where it is at hand (a local run); else commit ``"unknown"`` and
    dirty ``None``, which ``bench/check_results.py`` rejects. Read once per process: results
    files the run writes later do not change the tree it ran."""
    global _TREE
    if _TREE is not None:
        return dict(_TREE)
    if TREE_FILE.exists():
        stamped = json.loads(TREE_FILE.read_text())
        now = _fingerprint(stamped.get("files", []))
        if now != stamped.get("fingerprint"):
            raise RuntimeError(f"{TREE_FILE.name} (commit {stamped.get('commit')}) no longer matches the files "
                               "in this tree: run python dev/stamp_tree.py again before the call")
        _TREE = {"commit": stamped["commit"], "dirty": bool(stamped["dirty"]), "diff_hash": stamped.get("diff_hash"),
                 "tree_how": f"{TREE_FILE.name} (dev/stamp_tree.py, {stamped.get('stamped_at', '?')}), "
                             f"{len(stamped.get('files', []))} files' bytes checked"}
    elif (live := from_git()) is not None:
        _TREE = {"commit": live["commit"], "dirty": live["dirty"], "diff_hash": live["diff_hash"],
                 "tree_how": "git, in the tree that ran"}
    else:
        _TREE = {"commit": "unknown", "dirty": None, "diff_hash": None,
                 "tree_how": f"no {TREE_FILE.name} and no git: run python dev/stamp_tree.py before the call"}
    return dict(_TREE)


def command(argv: list[str] | None = None) -> str:
    """The producing command line, as a shell would take it back (``python bench/x.py --a 1``)."""
    argv = list(sys.argv if argv is None else argv)
    if argv and argv[0].endswith(".py"):
        p = Path(argv[0]).resolve()
        try:
            argv[0] = str(p.relative_to(ROOT))
        except ValueError:
            pass
        argv = ["python", *argv]
    return shlex.join(argv)


def host() -> dict:
    """The CPU side of the machine a results file was measured on: the CPU's model (from
    /proc/cpuinfo where there is one), its cores, Python and the platform; ``device`` "cpu only"
    until the caller names a GPU.

    Example:
        >>> sorted(host())
        ['cpu', 'device', 'host_cores', 'platform', 'python']
    """
    cpu = platform.processor()
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {"device": "cpu only", "cpu": cpu, "host_cores": os.cpu_count(), "python": platform.python_version(),
            "platform": platform.platform()}


def stamp(doc: dict, argv: list[str] | None = None) -> dict:
    """``doc`` with schema 2's provenance keys set (in place; also returned)."""
    doc["schema"] = SCHEMA
    doc.update(tree())
    doc["command"] = command(argv)
    return doc
