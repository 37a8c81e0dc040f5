"""Random edge lists for hypothesis, shared by the algorithms' tests: self-loops and repeated edges
included, the direction drawn too. Beside conftest.py, whose folder pytest puts on ``sys.path``.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st


@st.composite
def edge_lists(draw, max_n: int, max_m: int, weighted: bool = False):
    """``(n, src, dst, directed)``; with ``weighted``, ``(n, src, dst, weights or None, directed)``
    (integer weights 1..5 as float32 on about half the lists)."""
    n = draw(st.integers(1, max_n))
    m = draw(st.integers(0, max_m))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    if not weighted:
        return n, src, dst, draw(st.booleans())
    weights = rng.integers(1, 6, m).astype(np.float32) if draw(st.booleans()) else None
    return n, src, dst, weights, draw(st.booleans())
