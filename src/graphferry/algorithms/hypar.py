"""HyPar's old home, kept importable: the package is :mod:`graphferry.hypar` now.

``Executor`` and ``Calibration`` are the old names of :class:`graphferry.hypar.HyparExecutor` and
:class:`graphferry.hypar.PlannerCalibration` (renamed apart from the scheduler's ``Executor`` and the
cost model's ``Calibration``); the applications ``components`` and ``triangles`` are accepted as
``wcc`` and ``triangle_count``, with a deprecation line in the log.

Example:
    >>> from graphferry import Graph
    >>> from graphferry.algorithms.hypar import Executor, hypar
    >>> g = Graph.from_edges([0, 1, 4], [1, 2, 5], n=6, directed=False)
    >>> hypar(g, "wcc", [Executor("cpu")]).values["labels"].tolist()
    [0, 0, 0, 3, 4, 4]
"""

from __future__ import annotations

from ..hypar import *  # noqa: F401,F403  (the public names, re-exported)
from ..hypar import HyparExecutor as Executor  # noqa: F401
from ..hypar import PlannerCalibration as Calibration  # noqa: F401
from ..hypar import __all__ as _names

__all__ = [*_names, "Executor", "Calibration"]
