"""What NetworkX learns about the graphferry backend while it imports (the ``networkx.backend_info`` entry point).

A package of its own, outside ``graphferry``: NetworkX calls :func:`get_info`
at the end of every ``import networkx``, and importing ``graphferry`` would
bring numpy and the graph module along (about 40-100 ms added to NetworkX's
import). This module imports nothing. ``graphferry.nx_backend.info`` re-exports it.

Example:
    >>> from _graphferry_nx import get_info
    >>> info = get_info()
    >>> info["backend_name"], "pagerank" in info["functions"]
    ('graphferry', True)
    >>> sorted(info["default_config"])
    ['backend', 'engine', 'min_edges']
"""

from __future__ import annotations

#: NetworkX function -> what its docstring's "Backends" section says about graphferry (generated from
#: the registrations in graphferry/nx_backend: ``python -m graphferry.nx_backend.registration``).
#: A NetworkX call that these notes say is unsupported is handed back to NetworkX (can_run is False).
from .functions import FUNCTIONS  # noqa: E402

DEFAULT_CONFIG = {
    "backend": "auto",    # graphferry backend: "auto" (a GPU when there is one), "cpu" or "cuda"
    "engine": "auto",     # transfer engine (see graphferry.engines)
    "min_edges": 100_000,  # should_run: below this, converting costs more than NetworkX's own run
}


def get_info() -> dict:
    """The dict NetworkX's ``backend_info`` entry point returns."""
    return {
        "backend_name": "graphferry",
        "project": "graphferry",
        "package": "graphferry",
        "short_summary": "Vertex programs on the CPU (C++/OpenMP) or NVIDIA GPUs, for graphs larger than GPU memory.",
        "functions": {name: {"additional_docs": note} for name, note in FUNCTIONS.items()},
        "default_config": dict(DEFAULT_CONFIG),
    }
