"""Turn a pytest JUnit XML report of the GPU tests into the record kept in ``bench/results/``.

    python bench/gpu_tests_record.py gpu-tests.xml <pytest exit code> <out dir> [the pytest command]

writes ``<out dir>/gpu-tests-<device>.json``: the commit, dirty flag and diff hash of the tree
that ran (``bench/provenance.py``: ``dev/stamp_tree.py``'s stamp, or git), the date, the device (from
``nvidia-smi``), pytest's exit code and the passed / failed / error / skipped counts, with the
ids of the tests that failed, and the command that ran them (the trailing arguments; when
absent, ``GRAPHFERRY_TEST_COMMAND``, else "unknown"). bench/gpu_session.sh calls it on the GPU machine; the lead copies
the file into ``bench/results/`` and commits it.

Example (a report without a GPU):
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "r.xml").write_text('<testsuites><testsuite name="pytest" tests="3">'
    ...     '<testcase classname="t" name="a"/><testcase classname="t" name="b"><failure message="x"/></testcase>'
    ...     '<testcase classname="t" name="c"><skipped message="no gpu"/></testcase></testsuite></testsuites>')
    >>> counts(d / "r.xml")
    ({'passed': 1, 'failed': 1, 'error': 0, 'skipped': 1}, ['t::b'])
"""

from __future__ import annotations

import datetime as dt
import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path


def counts(xml_path) -> tuple[dict, list[str]]:
    """(outcome counts, ids of failed or errored tests) of a JUnit XML report."""
    out = {"passed": 0, "failed": 0, "error": 0, "skipped": 0}
    bad = []
    for case in ET.parse(xml_path).getroot().iter("testcase"):
        kinds = {child.tag for child in case}
        kind = ("failed" if "failure" in kinds else "error" if "error" in kinds
                else "skipped" if "skipped" in kinds else "passed")
        out[kind] += 1
        if kind in ("failed", "error"):
            bad.append(f"{case.get('classname')}::{case.get('name')}")
    return out, bad


def _run(cmd) -> str:
    try:
        return subprocess.run(cmd, capture_output=True, text=True, check=False).stdout.strip()
    except OSError:
        return ""


def main(argv) -> int:
    import os

    xml_path, rc, out_dir = argv[1], int(argv[2]), Path(argv[3])
    command = " ".join(argv[4:]) or os.environ.get("GRAPHFERRY_TEST_COMMAND") or "unknown"

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import provenance  # commit, dirty flag and diff hash of the tree that ran (issue 35)

    tree = provenance.tree()
    device = _run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"]).splitlines()
    name = device[0] if device else "no-gpu"
    slug = next((c for c in ("h200", "h100", "a100", "l40s", "l4") if c in name.lower()),
                re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "unknown")
    try:
        tally, bad = counts(xml_path)
    except (OSError, ET.ParseError) as e:        # pytest killed before writing its report
        tally, bad = None, [f"no report: {e}"]
    doc = {"schema": "graphferry-gpu-tests/1", "commit": tree["commit"], "dirty": tree["dirty"],
           "diff_hash": tree["diff_hash"], "tree_how": tree["tree_how"],
           "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
           "device": name, "gpus": len(device), "command": command,
           "pytest_exit_code": rc, "counts": tally, "failed": bad}
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"gpu-tests-{slug}.json"
    path.write_text(json.dumps(doc, indent=1) + "\n")
    print(f"wrote {path}: {tally}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
