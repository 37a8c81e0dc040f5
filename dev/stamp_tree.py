#!/usr/bin/env python
"""Stamp the working tree before a device call: which commit it is, dirty or not, the diff's hash.

Writes ``graphferry-tree.json`` at the repository root (untracked and not git-ignored, so it
travels with the working tree to the device machine). Every benchmark reads it through
``bench/provenance.py`` and writes ``commit``, ``dirty``, ``diff_hash`` and ``command`` into its
results; a file changed after stamping makes the benchmarks refuse the stamp.

    python dev/stamp_tree.py            # then the device call
    python dev/stamp_tree.py --print    # show the stamp, write nothing
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
import provenance  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--print", action="store_true", help="print the stamp, write nothing")
    args = ap.parse_args(argv)
    live = provenance.from_git()
    if live is None:
        print(f"error: {provenance.ROOT} is not a git checkout: nothing to stamp", file=sys.stderr)
        return 2
    live["stamped_at"] = _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    text = json.dumps(live, indent=1) + "\n"
    if args.print:
        print(text, end="")
        return 0
    provenance.TREE_FILE.write_text(text)
    print(f"{provenance.TREE_FILE.name}: commit {live['commit'][:12]}, dirty {live['dirty']}"
          + (f", diff {live['diff_hash'][:12]} ({len(live['untracked'])} untracked files)" if live["dirty"] else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
