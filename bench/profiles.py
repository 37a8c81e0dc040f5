"""Where a profiled call's time went, as rows for a benchmark's results file (cProfile)."""

from __future__ import annotations

import cProfile
import io
import pstats
from pathlib import Path

#: label -> (pstats sort key, the files a function must come from; None: any)
ORDERS = {"cumulative": ("cumulative", None), "tottime": ("tottime", None),
          "ours_cumulative": ("cumulative", ("graphferry", "cupy"))}


def top_functions(profile: Path | cProfile.Profile, count: int = 45, *, labels=tuple(ORDERS),
                  digits: int = 4) -> dict:
    """Per label of :data:`ORDERS` (the most cumulative time, the most own time, and graphferry's and
    CuPy's own functions by cumulative time, below the imports' and the CLI's frames), the ``count``
    functions of a cProfile dump (a file) or profiler, seconds rounded to ``digits``.

    Example:
        >>> p = cProfile.Profile()
        >>> _ = p.runcall(sorted, [3, 1, 2])
        >>> rows = top_functions(p, 5, labels=("cumulative",))["cumulative"]
        >>> sorted(rows[0])
        ['calls', 'cumulative_seconds', 'function', 'own_seconds']
    """
    out = {}
    for label in labels:
        key, keep = ORDERS[label]
        stats = pstats.Stats(profile if isinstance(profile, cProfile.Profile) else str(profile),
                             stream=io.StringIO())
        stats.sort_stats(key)
        funcs = [f for f in stats.fcn_list if keep is None or any(k in f[0] for k in keep)]
        rows = []
        for func in funcs[:count]:
            _, calls, own, cumulative, _ = stats.stats[func]
            rows.append({"function": f"{'/'.join(Path(func[0]).parts[-2:])}:{func[1]}({func[2]})", "calls": calls,
                         "own_seconds": round(own, digits), "cumulative_seconds": round(cumulative, digits)})
        out[label] = rows
    return out
