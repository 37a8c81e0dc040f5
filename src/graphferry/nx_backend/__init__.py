"""graphferry as a NetworkX backend: ``nx.pagerank(G, backend="graphferry")``.

Installing graphferry registers the backend with NetworkX through two entry
points (``networkx.backends`` -> :mod:`.interface`, ``networkx.backend_info``
-> ``_graphferry_nx.get_info``, a package that imports nothing, since NetworkX
calls it on every import). NetworkX then sends calls of the functions in
:data:`.info.FUNCTIONS` here when asked (``backend="graphferry"``) or when
``graphferry`` is in ``nx.config.backend_priority``; it converts each graph
once (:mod:`.graph`) and keeps the conversion on the graph. Arguments graphferry
cannot honour exactly are left to NetworkX (``can_run`` says why).

Settings live in ``nx.config.backends.graphferry``: ``backend`` (``"auto"``,
``"cpu"`` or ``"cuda"``), ``engine`` and ``min_edges`` (below it, automatic
dispatch keeps NetworkX).

This package is named ``nx_backend`` so that it never shadows ``networkx``.

Example (``register()`` only matters when running from a source checkout):
    >>> import networkx as nx
    >>> from graphferry.nx_backend import register
    >>> _ = register()
    >>> nx.number_connected_components(nx.barbell_graph(3, 0), backend="graphferry")
    1
"""

__all__ = ["register"]


def register() -> bool:
    """Register the backend with an imported NetworkX when no installed entry point did; True if it did now.

    An installed graphferry needs none of this: NetworkX finds the entry points.
    This is for a source checkout run with ``PYTHONPATH=src`` (tests,
    benchmarks), and does what NetworkX's own test suite does for its
    loopback backend.

    Example:
        >>> from graphferry.nx_backend import register
        >>> register() in (True, False)   # False when already installed or registered
        True
    """
    from importlib.metadata import EntryPoint

    import networkx as nx

    from .info import get_info

    backends = nx.utils.backends
    if "graphferry" in backends.backends:
        return False
    backends.backends["graphferry"] = EntryPoint("graphferry", "graphferry.nx_backend.interface", "networkx.backends")
    info = get_info()
    backends.backend_info["graphferry"] = info
    nx.config.backends = nx.utils.Config(graphferry=nx.utils.Config(**info["default_config"]), **nx.config.backends)
    # NetworkX skips dispatching altogether when it found no backend at import
    backends._dispatchable.__call__ = backends._dispatchable._call_if_any_backends_installed
    return True
