"""HyPar's applications, by the algorithm registry's names (:data:`APPLICATIONS`), and their BSP
versions (:data:`BSP_APPLICATIONS`). Each file holds one application and its BSP version.

``components`` and ``triangles``, the names HyPar's applications had before they took the
registry's (``wcc``, ``triangle_count``), are still accepted, with a deprecation line in the log.

Example:
    >>> sorted(APPLICATIONS) == sorted(BSP_APPLICATIONS)
    True
    >>> application("triangles").name                 # the old name: logged as deprecated
    'triangle_count'
"""

from __future__ import annotations

import logging
from typing import Callable

from .base import Application, BspApplication, IterationTrend, ONE_ROUND, ghost_part
from .coloring import BspColoring, Coloring
from .communities import BspCommunities, Communities, modularity
from .mst import BspSpanningForest, SpanningForest
from .triangle_count import BspTriangles, Triangles
from .wcc import BspComponents, Components

log = logging.getLogger("graphferry.hypar")

APPLICATIONS: dict[str, Callable[[], Application]] = {
    "wcc": Components, "triangle_count": Triangles, "coloring": Coloring, "communities": Communities,
    "mst": SpanningForest}

BSP_APPLICATIONS: dict[str, Callable[[], BspApplication]] = {
    "wcc": BspComponents, "triangle_count": BspTriangles, "coloring": BspColoring,
    "communities": BspCommunities, "mst": BspSpanningForest}

#: the applications' names before they took the registry's; accepted, with a deprecation line
DEPRECATED_NAMES = {"components": "wcc", "triangles": "triangle_count"}


def canonical_name(name: str, table: dict | None = None) -> str:
    """``name`` as a key of :data:`APPLICATIONS` (an old name logged as deprecated and translated);
    ValueError naming the valid ones for an unknown name."""
    table = APPLICATIONS if table is None else table
    if name in DEPRECATED_NAMES:
        log.warning("hypar: application name %r is deprecated; use %r (the algorithm registry's name)",
                    name, DEPRECATED_NAMES[name])
        name = DEPRECATED_NAMES[name]
    if name not in table:
        hint = " (the BSP baseline is graphferry.hypar.bsp(graph, app, executors))" if name == "bsp" else ""
        raise ValueError(f"hypar: unknown application {name!r}; choose one of {', '.join(table)}{hint}")
    return name


def application(app: "str | Application") -> Application:
    """A new instance of the application called ``app``, or ``app`` itself when given one."""
    if isinstance(app, str):
        return APPLICATIONS[canonical_name(app)]()
    return app


def bsp_application(app: "str | BspApplication") -> BspApplication:
    """A new instance of the BSP application called ``app``, or ``app`` itself when given one."""
    if isinstance(app, str):
        return BSP_APPLICATIONS[canonical_name(app, BSP_APPLICATIONS)]()
    return app


def hypar_class(app: Application) -> type:
    """``app``'s HyPar application class (a BSP application's is the one it extends)."""
    return next(c for c in type(app).__mro__ if issubclass(c, Application) and not issubclass(c, BspApplication))


def fresh(app: Application) -> Application:
    """A new HyPar instance of ``app``'s application with its settings (an instance may keep
    per-run state; a BSP application is sampled as the HyPar application it extends)."""
    other = hypar_class(app)()
    other.stop_on_trend = app.stop_on_trend
    return other


__all__ = ["APPLICATIONS", "BSP_APPLICATIONS", "DEPRECATED_NAMES", "Application", "BspApplication", "Coloring",
           "Communities", "Components", "IterationTrend", "ONE_ROUND", "SpanningForest", "Triangles",
           "application", "bsp_application", "canonical_name", "fresh", "ghost_part", "hypar_class", "modularity"]
