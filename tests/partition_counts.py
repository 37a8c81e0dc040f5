"""Cases and a plain-loop oracle for the backends' ``partition_counts`` (the statistics of the
hybrid's rounds), shared by the CPU backend's tests (tests/runtime) and the CUDA kernel's
(tests/engines). It lives beside conftest.py, whose folder pytest puts on ``sys.path``, so a
test in any folder imports it whichever files the run collects.
"""

from __future__ import annotations

import numpy as np


def partition_counts_oracle(ids, offsets, bounds, bit_sizes):
    """Per partition: active ids, their edges, and the 128-byte (1024-bit) lines of each row's bit range."""
    out = np.zeros((3, len(bounds) - 1), dtype=np.int64)
    for v in ids.tolist():
        p = int(np.searchsorted(bounds, v, side="right")) - 1
        b, e = int(offsets[v]), int(offsets[v + 1])
        out[0, p] += 1
        out[1, p] += e - b
        out[2, p] += sum(len(range((b * s) // 1024, (e * s - 1) // 1024 + 1)) if e > b else 0 for s in bit_sizes)
    return out


def partition_counts_cases(seed=6):
    """(ids, offsets, bounds, bits per entry) cases: empty rows, rows across lines, hubs, one
    partition, packed ids (25 or 7 bits) beside 8- and 16-bit weights."""
    rng = np.random.default_rng(seed)
    for n, parts, sizes in ((1, 1, (32,)), (40, 3, (32,)), (1000, 7, (32, 32)), (5000, 300, (64, 32)),
                            (3000, 2000, (32,)), (2000, 30, (25, 8)), (700, 5, (7, 16))):
        deg = rng.integers(0, 90, n) * rng.integers(0, 2, n)
        deg[rng.integers(0, n, max(1, n // 100))] = rng.integers(100, 5000)
        offsets = np.concatenate([[0], np.cumsum(deg)]).astype(np.int64)
        bounds = np.unique(np.concatenate([[0, n], rng.integers(0, n, parts - 1)])).astype(np.int64)
        for share in (0.0, 0.02, 1.0):
            ids = np.flatnonzero(rng.random(n) < share).astype(np.int64)
            yield ids, offsets, bounds, sizes
