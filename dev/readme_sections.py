"""README.md's generated sections: each stands between a BEGIN and an END marker line and is rewritten
only by the dev/ script that makes it (``--write``), which a test runs with ``--check``.

One helper for the scripts that generate sections (``dev/results_table.py``, ``dev/networkx_table.py``,
``dev/sweep_figure.py``): a section is ``(begin, end, text)``, ``text`` the whole new section, its
markers included.

Example:
    >>> text = "intro\\n<!-- a -->\\nold\\n<!-- /a -->\\nrest\\n"
    >>> current(text, "<!-- a -->", "<!-- /a -->")
    '<!-- a -->\\nold\\n<!-- /a -->'
    >>> replaced(text, [("<!-- a -->", "<!-- /a -->", "<!-- a -->\\nnew\\n<!-- /a -->")])
    'intro\\n<!-- a -->\\nnew\\n<!-- /a -->\\nrest\\n'
    >>> stale(text, [("<!-- a -->", "<!-- /a -->", "<!-- a -->\\nold\\n<!-- /a -->")])
    False
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"

Section = tuple[str, str, str]   # (begin marker, end marker, the whole section, markers included)


def current(text: str, begin: str, end: str) -> str | None:
    """The section of ``text`` from ``begin`` to ``end``, markers included (None: a marker is missing)."""
    if begin not in text or end not in text:
        return None
    return text[text.index(begin): text.index(end) + len(end)]


def stale(text: str, sections: list[Section]) -> bool:
    """Whether any section of ``text`` is missing or differs from what its script makes now."""
    return any(current(text, begin, end) != new for begin, end, new in sections)


def replaced(text: str, sections: list[Section]) -> str:
    """``text`` with each section replaced by its new text (SystemExit naming the markers of one missing)."""
    for begin, end, new in sections:
        old = current(text, begin, end)
        if old is None:
            raise SystemExit(f"README.md has no {begin!r} ... {end!r} markers: add them where the section goes")
        text = text.replace(old, new)
    return text


def check(sections: list[Section], script: str, what: str, readme: Path | None = None) -> int:
    """``--check``: 0 when README.md holds every section as its script makes it, else 1 with one line
    on stderr saying which command rewrites it."""
    if stale((readme or README).read_text(), sections):
        print(f"README.md's {what} is out of date: run python dev/{script} --write", file=sys.stderr)
        return 1
    return 0


def write(sections: list[Section], readme: Path | None = None) -> None:
    """``--write``: README.md with each section replaced."""
    path = readme or README
    path.write_text(replaced(path.read_text(), sections))


def main(argv, *, description: str, script: str, what: str, sections, printed=None) -> int:
    """The command line of a script whose sections depend on nothing but bench/results:
    ``--check``, ``--write``, or print (``printed``: the text shown, default every section).
    ``sections``: a function returning them (called once)."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--write", action="store_true", help="replace the sections in README.md")
    ap.add_argument("--check", action="store_true", help="exit 1 when README.md's sections are out of date")
    args = ap.parse_args(argv)
    made = sections()
    if args.check:
        return check(made, script, what)
    if args.write:
        write(made)
        return 0
    sys.stdout.write(printed if printed is not None else "\n\n".join(new for _, _, new in made) + "\n")
    return 0
