"""The README's "Latest results" section is what dev/results_table.py makes of bench/results."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_readme_results_section_is_up_to_date():
    p = subprocess.run([sys.executable, str(ROOT / "dev" / "results_table.py"), "--check"],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
