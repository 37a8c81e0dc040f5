"""Registration beside the code: each NetworkX function the backend provides declares itself where it is written.

A function is registered with :func:`networkx_algorithm`, which records its
NetworkX name, the argument checks that decide whether graphferry can give
NetworkX's exact answer (``can_run``), the policy that decides whether it is
worth converting the graph under automatic dispatch (``should_run``) and the
note NetworkX prints in the function's "Backends" section. :func:`registered`
imports every area module (:data:`AREAS`) and returns what registered itself:
:mod:`.interface` exposes that (no module is imported for its side effect alone).

NetworkX learns the names while it imports, before graphferry can be imported
(``_graphferry_nx.functions``, import-free); ``python -m graphferry.nx_backend.registration``
rewrites that file from the registrations, and a test checks that it is current.

Example:
    >>> from graphferry.nx_backend import registration
    >>> spec = registration.registered()["pagerank"]   # every area imported, so everything has registered
    >>> spec.module
    'graphferry.nx_backend.link_analysis'
    >>> spec.check({"personalization": {0: 1}, "nstart": None, "dangling": None})
    'personalization is not supported'
"""

from __future__ import annotations

import functools
import importlib
import inspect
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

__all__ = ["NxFunction", "FUNCTIONS", "AREAS", "networkx_algorithm", "registered", "write_info"]

#: The modules holding the registered functions, by NetworkX's areas (imported by :func:`registered`).
AREAS = (
    "link_analysis",
    "traversal",
    "shortest_paths",
    "components",
    "cluster",
    "centrality",
    "core",
    "link_prediction",
    "structure",
    "coloring",
    "tree",
    "community",
)

Check = Callable[[dict], "bool | str"]


@dataclass
class NxFunction:
    """One NetworkX function graphferry provides.

    ``function``: the implementation (NetworkX's signature, a converted graph as
    ``G``). ``can_run``: cheap checks of the bound arguments (no conversion), True
    or the reason to decline. ``can_run_converted``: checks that need the converted
    graph (edge weights): run by ``can_run`` when a conversion is at hand, and
    always before the function runs (declining then raises ``NotImplementedError``,
    which NetworkX answers by running its own implementation under automatic
    dispatch). ``should_run``: the automatic-dispatch policy, O(1) (see
    :mod:`.policy`). ``note``: NetworkX's docs for graphferry.
    """

    name: str
    function: Callable[..., Any]
    note: str
    can_run: Check | None = None
    can_run_converted: Check | None = None
    should_run: Check | None = None
    module: str = ""
    signature: inspect.Signature = field(init=False)

    def __post_init__(self):
        self.signature = inspect.signature(self.function)

    def bind(self, args: tuple, kwargs: dict) -> dict | str:
        """The arguments by name, defaults applied (a reason string when they do not bind)."""
        try:
            bound = self.signature.bind(*args, **kwargs)
        except TypeError as exc:
            return f"unexpected arguments ({exc})"
        bound.apply_defaults()
        return bound.arguments

    def check(self, a: dict, *, converted: bool = False) -> bool | str:
        """``can_run``'s answer for bound arguments ``a`` (``converted``: also the checks that need the graph)."""
        if self.can_run is not None and (ok := self.can_run(a)) is not True:
            return ok
        if converted and self.can_run_converted is not None:
            return self.can_run_converted(a)
        return True


#: NetworkX name -> registration (filled as the area modules import: read it through :func:`registered`)
FUNCTIONS: dict[str, NxFunction] = {}


def registered() -> dict[str, NxFunction]:
    """Every function the backend provides, by NetworkX name: the area modules (:data:`AREAS`) are
    imported here, so that their ``@networkx_algorithm`` registrations have run.

    Also right when this file runs as a script: the registrations land in the imported package's
    module, not in ``__main__``'s copy of :data:`FUNCTIONS`.
    """
    package = "graphferry.nx_backend"
    for area in AREAS:
        importlib.import_module(f"{package}.{area}")
    return importlib.import_module(f"{package}.registration").FUNCTIONS


def networkx_algorithm(*, note: str, name: str | None = None, can_run: Check | None = None,
                       can_run_converted: Check | None = None, should_run: Check | None = None):
    """Register the decorated function as NetworkX's function ``name`` (default: its own name).

    The function that NetworkX calls checks ``can_run_converted`` first, on the
    converted graph, and raises ``NotImplementedError(reason)`` when it declines.
    """

    def register(function: Callable[..., Any]) -> Callable[..., Any]:
        key = name or function.__name__
        if key in FUNCTIONS:
            raise ValueError(f"{key} is registered twice ({FUNCTIONS[key].module} and {function.__module__})")
        spec = NxFunction(key, function, note, can_run, can_run_converted, should_run, function.__module__)
        FUNCTIONS[key] = spec
        if can_run_converted is None:
            return function

        @functools.wraps(function)
        def checked(*args, **kwargs):
            a = spec.bind(args, kwargs)
            ok = a if isinstance(a, str) else can_run_converted(a)
            if ok is not True:
                raise NotImplementedError(f"graphferry cannot run {key} with these arguments: {ok}")
            return function(*args, **kwargs)

        checked.spec = spec
        return checked

    return register


INFO_FILE = Path(__file__).resolve().parent.parent.parent / "_graphferry_nx" / "functions.py"


def info_source() -> str:
    """The text of ``_graphferry_nx/functions.py`` for the registrations (every area imported)."""
    functions = registered()
    lines = ['"""The NetworkX functions graphferry provides, and their notes: generated, do not edit.',
             "",
             "Rewritten by ``python -m graphferry.nx_backend.registration`` from the registrations",
             "(``@networkx_algorithm`` in ``graphferry/nx_backend/*.py``); a test checks it is current.",
             '"""', "", "FUNCTIONS: dict[str, str] = {"]
    for key in sorted(functions):
        lines.append(f"    {key!r}: {functions[key].note!r},")
    lines.append("}")
    return "\n".join(lines) + "\n"


def write_info(path: Path = INFO_FILE) -> bool:
    """Rewrite the import-free list NetworkX reads; True when it changed."""
    text = info_source()
    if path.exists() and path.read_text() == text:
        return False
    path.write_text(text)
    return True


if __name__ == "__main__":
    print(f"{INFO_FILE}: {'rewritten' if write_info() else 'already current'}")
