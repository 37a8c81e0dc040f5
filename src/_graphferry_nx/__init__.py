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

#: NetworkX function -> what its docstring's "Backends" section says about graphferry.
#: A NetworkX call that these notes say is unsupported is handed back to NetworkX (can_run is False).
FUNCTIONS: dict[str, str] = {
    "pagerank": ("NetworkX's power iteration run by graphferry's LDBC PageRank, to a step at which NetworkX's "
                 "stopping rule has certainly fired. personalization, nstart, dangling and non-uniform "
                 "weights are left to NetworkX."),
    "bfs_edges": "BFS levels by graphferry; edges in NetworkX's order. sort_neighbors and reverse=True on "
                 "a directed graph are left to NetworkX.",
    "bfs_layers": "BFS levels by graphferry (several sources through a virtual super-source); layers in NetworkX's order.",
    "single_source_shortest_path_length": "graphferry's BFS; the dict in NetworkX's discovery order.",
    "single_source_dijkstra_path_length": ("graphferry's SSSP (float32 edge weights, float64 sums): weights "
                                           "that float32 cannot hold exactly, negative weights and weight "
                                           "functions are left to NetworkX. The dict is ordered by distance."),
    "connected_components": "graphferry's WCC; components in NetworkX's order.",
    "number_connected_components": "graphferry's WCC.",
    "weakly_connected_components": "graphferry's WCC; components in NetworkX's order.",
    "number_weakly_connected_components": "graphferry's WCC.",
    "triangles": "graphferry's ordered triangle counting.",
    "clustering": ("graphferry's LCC on undirected graphs; weighted and directed clustering are left to NetworkX "
                   "(graphferry's directed LCC is LDBC's definition, not NetworkX's)."),
    "bfs_predecessors": "From bfs_edges; sort_neighbors is left to NetworkX.",
    "bfs_successors": "From bfs_edges; sort_neighbors is left to NetworkX.",
    "descendants_at_distance": "graphferry's BFS levels.",
    "is_connected": "graphferry's WCC.",
    "is_weakly_connected": "graphferry's WCC.",
    "node_connected_component": "graphferry's WCC.",
    "average_clustering": "graphferry's LCC, summed in NetworkX's order; as clustering, weighted and directed are left to NetworkX.",
    "transitivity": "graphferry's triangle counts; simple undirected graphs only.",
    "betweenness_centrality": ("graphferry's Brandes (BFS levels, or distances with positive float32 weights); "
                               "sampled sources drawn from seed as NetworkX draws them. endpoints=True, "
                               "weight functions, zero weights and weighted multigraphs are left to NetworkX."),
}

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
