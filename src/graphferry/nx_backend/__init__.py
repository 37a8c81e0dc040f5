"""graphferry as a NetworkX backend: ``nx.pagerank(G, backend="graphferry")``.

Installing graphferry registers the backend with NetworkX through two entry
points (``networkx.backends`` -> :mod:`.interface`, ``networkx.backend_info``
-> :func:`.info.get_info`). NetworkX then sends calls of the functions in
:data:`.info.FUNCTIONS` here when asked (``backend="graphferry"``) or when
``graphferry`` is in ``nx.config.backend_priority``; it converts each graph
once (:mod:`.graph`) and keeps the conversion on the graph. Arguments graphferry
cannot honour exactly are left to NetworkX (``can_run`` says why).

Settings live in ``nx.config.backends.graphferry``: ``backend`` (``"auto"``,
``"cpu"`` or ``"cuda"``), ``engine`` and ``min_edges`` (below it, automatic
dispatch keeps NetworkX).

This package is named ``nx_backend`` so that it never shadows ``networkx``.

Example:
    >>> import networkx as nx
    >>> nx.number_connected_components(nx.barbell_graph(3, 0), backend="graphferry")
    1
"""
