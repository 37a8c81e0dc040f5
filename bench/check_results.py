#!/usr/bin/env python
"""Hold every new results file to issue 35's rules; no GPU needed (the test suite runs it).

"New" means ``"schema": "graphferry-bench/2"``: the files written through ``bench/provenance.py``
(every benchmark since issue 35). Older files (schema 1) were written before these rules and
are left as they are, their known labelling errors fixed where the data allowed (see
``bench/NOTES-peers.md``, "Audit of issue 35").

A file of schema 1 dated after the rules began (``RULES_SINCE``) is a problem, unless listed with
its reason in ``LATE_OLD_SCHEMA``. A new file must have:

* ``commit``: a commit in this repository's history (``git cat-file``; skipped where there is
  no ``.git``), ``dirty`` (true or false) and, when dirty, ``diff_hash``; ``command``;
* every run of an ``engine`` (ours or a peer's; records without one, such as a dispatch overhead,
  hold other measurements and only the file's rules apply):
  ``seconds`` and ``first_seconds`` (the first call after loading; for a peer that
  runs once per process, its one call), unless the run failed (``error``) or was skipped
  (``skipped``) and is not verified;
* every peer run (``engine`` ``peer:...``): ``verified`` true, or ``verified_how`` containing
  "unchecked"; every GAPBS run checked by its own verifier (``-v`` in its command);
* every run that reports ``bytes_h2d`` above zero: ``bytes_h2d_how`` "measured" or "modelled";
* every verified delta PageRank run: its ``l1_to_fixed_point`` within the ``l1_bound`` it states.

    python bench/check_results.py            # every bench/results/*.json; exit 1 on a problem
    python bench/check_results.py FILE ...   # these files
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
NEW_SCHEMA = "graphferry-bench/2"
#: schema-2 files whose commit is known not to be in the history, each with why: excused from that
#: one rule only, listed here so that the exception is reviewed, not silent. Measure them again.
UNRESOLVABLE_COMMITS = {
    "networkx-algorithms.json": "its producer stamped a worktree commit and rebased it before merging "
                                "(the file's commit_note); to be measured again at a main commit",
}


#: when the rules began: the commit that added ``bench/provenance.py`` (97190b4). A file dated at or
#: after it must be of the new schema: an older schema written later would slip past every rule.
RULES_SINCE = "2026-11-29T04:52:35+00:00"

#: files dated after ``RULES_SINCE`` that are not of the new schema, each with why: excused from
#: that one rule only, listed so that the exception is reviewed, not silent. Measure them again.
LATE_OLD_SCHEMA = {
    "oneshot-upload-h200.json": "written at bad6ffd by bench/oneshot_gpu_bench.py before it stamped the tree "
                                "(commit from --commit-file, no diff hash; seconds the best of its runs, not a "
                                "median); the bench now writes schema 2: to be measured again",
}


def dated_after_the_rules(doc: dict) -> bool:
    """Whether the document's ``date`` is at or after ``RULES_SINCE`` (False without a readable date)."""
    import datetime as _dt

    try:
        when = _dt.datetime.fromisoformat(str(doc.get("date", "")).replace("Z", "+00:00"))
    except ValueError:
        return False
    if when.tzinfo is None:
        when = when.replace(tzinfo=_dt.timezone.utc)
    return when >= _dt.datetime.fromisoformat(RULES_SINCE)


def _git_ok(*args: str) -> bool | None:
    try:
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, timeout=30).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return None


def commit_known(commit: str) -> bool | None:
    """Whether ``commit`` is in this checkout's history (an ancestor of HEAD: a commit rewritten by
    a rebase may linger as an object, but no longer names the tree anyone has); None where there
    is no git to ask. In a shallow clone, whose history is cut, its presence as a commit object."""
    if not (ROOT / ".git").exists():
        return None
    shallow = subprocess.run(["git", "rev-parse", "--is-shallow-repository"], cwd=ROOT, capture_output=True,
                             text=True).stdout.strip() == "true"
    if shallow:
        return _git_ok("cat-file", "-e", f"{commit}^{{commit}}")
    return _git_ok("merge-base", "--is-ancestor", commit, "HEAD")


def problems(doc: dict, name: str = "?", check_commit: bool = True) -> list[str]:
    """What is wrong with one results document (empty: nothing); schema 1 documents dated before
    the rules (``RULES_SINCE``) pass."""
    if doc.get("schema") != NEW_SCHEMA:
        if (str(doc.get("schema", "")).startswith("graphferry-bench/") and dated_after_the_rules(doc)
                and name not in LATE_OLD_SCHEMA):
            return [f"{name}: dated {doc.get('date')}, after the rules began ({RULES_SINCE}), but of schema "
                    f"{doc.get('schema')}: write it through bench/provenance.py"]
        return []
    out = []
    commit = str(doc.get("commit") or "")
    if len(commit) < 7 or not all(c in "0123456789abcdef" for c in commit):
        out.append(f"{name}: commit {commit!r} is not a commit id")
    elif check_commit and commit_known(commit) is False and name not in UNRESOLVABLE_COMMITS:
        out.append(f"{name}: commit {commit} is not in this repository's history")
    if not isinstance(doc.get("dirty"), bool):
        out.append(f"{name}: no dirty flag")
    elif doc["dirty"] and not doc.get("diff_hash"):
        out.append(f"{name}: dirty without diff_hash")
    if not str(doc.get("command") or "").strip():
        out.append(f"{name}: no producing command")
    for k, r in enumerate(doc.get("runs", [])):
        where = f"{name}: run {k} ({r.get('algorithm')}, {r.get('engine')})"
        if "engine" not in r:  # not an engine's or a peer's run (a dispatch overhead, a timing of a call)
            continue
        if "error" in r or "skipped" in r:  # a run that failed or was not made: no timing to hold
            if r.get("verified"):
                out.append(f"{where}: failed or skipped but marked verified")
            continue
        for key in ("seconds", "first_seconds"):
            if not isinstance(r.get(key), (int, float)):
                out.append(f"{where}: no {key}")
        engine = str(r.get("engine", ""))
        if engine.startswith("peer:"):
            if not r.get("verified") and "unchecked" not in str(r.get("verified_how", "")):
                out.append(f"{where}: a peer neither verified nor marked unchecked")
            if engine.startswith("peer:gapbs") and " -v" not in f" {r.get('command', '')} ":
                out.append(f"{where}: GAPBS without its verifier (-v)")
        if (r.get("bytes_h2d") or 0) > 0 and r.get("bytes_h2d_how") not in ("measured", "modelled"):
            out.append(f"{where}: bytes_h2d without bytes_h2d_how (measured or modelled)")
        if r.get("verified") and r.get("l1_to_fixed_point") is not None:
            bound = r.get("l1_bound")
            if not isinstance(bound, (int, float)):
                out.append(f"{where}: verified delta PageRank without the l1_bound its tolerance implies")
            elif r["l1_to_fixed_point"] > bound:
                out.append(f"{where}: verified at L1 {r['l1_to_fixed_point']:.3g} beyond its bound {bound:.3g}")
    return out


def main(argv=None) -> int:
    paths = [Path(a) for a in (sys.argv[1:] if argv is None else argv)] or sorted(RESULTS.glob("*.json"))
    found, new = [], 0
    for p in paths:
        doc = json.loads(p.read_text())
        new += doc.get("schema") == NEW_SCHEMA
        found += problems(doc, p.name)
    for line in found:
        print(line, file=sys.stderr)
    for name, why in UNRESOLVABLE_COMMITS.items():
        print(f"note: {name}: commit not in the history, excused: {why}", file=sys.stderr)
    for name, why in LATE_OLD_SCHEMA.items():
        print(f"note: {name}: old schema after the rules began, excused: {why}", file=sys.stderr)
    print(f"{len(paths)} results files, {new} of schema {NEW_SCHEMA}: {len(found)} problems")
    return 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(main())
