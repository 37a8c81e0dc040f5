"""Every Python block of the guides in docs/ runs, top to bottom, as one session.

Each guide runs in its own interpreter, so what one registers (an example
engine) cannot leak into other tests.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
GUIDES = sorted((REPO / "docs").glob("*.md"))

RUNNER = r"""
import re, sys
path = sys.argv[1]
blocks = re.findall(r"```python\n(.*?)```", open(path).read(), re.S)
assert blocks, f"{path} has no python blocks"
session = {"__name__": "guide"}
for number, block in enumerate(blocks, 1):
    exec(compile(block, f"{path} (python block {number})", "exec"), session)
"""


def python_blocks(path: Path) -> list[str]:
    return re.findall(r"```python\n(.*?)```", path.read_text(), re.S)


def test_the_guides_exist():
    names = {p.name for p in GUIDES}
    assert {"writing-an-algorithm.md", "writing-an-engine.md"} <= names


@pytest.mark.parametrize("guide", GUIDES, ids=lambda p: p.name)
def test_guide_code_runs(guide):
    if not python_blocks(guide):
        pytest.skip("no python blocks")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO / "src"), os.environ.get("PYTHONPATH", "")])}
    out = subprocess.run([sys.executable, "-c", RUNNER, str(guide)], cwd=REPO, env=env,
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
