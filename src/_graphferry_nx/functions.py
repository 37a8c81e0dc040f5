"""The NetworkX functions graphferry provides, and their notes: generated, do not edit.

Rewritten by ``python -m graphferry.nx_backend.registration`` from the registrations
(``@networkx_algorithm`` in ``graphferry/nx_backend/*.py``); a test checks it is current.
"""

FUNCTIONS: dict[str, str] = {
    'average_clustering': "graphferry's LCC, summed in NetworkX's order; as clustering, weighted and directed are left to NetworkX.",
    'betweenness_centrality': "graphferry's Brandes (BFS levels, or distances with positive float32 weights); sampled sources drawn from seed as NetworkX draws them. endpoints=True, weight functions, zero weights and weighted multigraphs are left to NetworkX.",
    'bfs_edges': "BFS levels by graphferry; edges in NetworkX's order (a depth_limit below 3: a bounded search). sort_neighbors and reverse=True on a directed graph are left to NetworkX.",
    'bfs_layers': "BFS levels by graphferry (several sources through a virtual super-source); layers in NetworkX's order.",
    'bfs_predecessors': 'From bfs_edges; sort_neighbors is left to NetworkX.',
    'bfs_successors': 'From bfs_edges; sort_neighbors is left to NetworkX.',
    'clustering': "graphferry's LCC on undirected graphs; weighted and directed clustering are left to NetworkX (graphferry's directed LCC is LDBC's definition, not NetworkX's).",
    'connected_components': "graphferry's WCC; components in NetworkX's order.",
    'core_number': "graphferry's bucketed peeling (Julienne's k-core: the bucket of k as a frontier, an edge map lowering live neighbours' degrees); a directed graph's degree is in- plus out-degree, as in NetworkX.",
    'descendants_at_distance': "graphferry's BFS levels (a distance below 3: a bounded search).",
    'eigenvector_centrality': "graphferry's power iteration, NetworkX's step for step ((A^T + I) x, L2-normalised, stopping when the L1 change is below n * tol); float32 edge weights.",
    'hits': "graphferry's power iteration (NetworkX's _hits_python steps, up to 10 x max_iter of them, until the hubs' L1 change is below tol), scaled as networkx.hits scales its SVD; float32 edge weights. Multigraphs are left to NetworkX.",
    'is_connected': "graphferry's WCC.",
    'is_weakly_connected': "graphferry's WCC.",
    'jaccard_coefficient': "graphferry's intersections of sorted neighbour rows, one neighbourhood function per vertex over its slots of pairs. The default ebunch (every non-edge) is listed in NetworkX's order, in Python.",
    'katz_centrality': "graphferry's power iteration, NetworkX's step for step (alpha A^T x + beta, stopping when the L1 change is below n * tol, then L2-normalised); beta a number or one per node; float32 edge weights.",
    'node_connected_component': "graphferry's WCC.",
    'number_connected_components': "graphferry's WCC.",
    'number_weakly_connected_components': "graphferry's WCC.",
    'pagerank': "NetworkX's power iteration run by graphferry's LDBC PageRank in one run, NetworkX's stopping test (L1 change below N * tol) evaluated every iteration, so the same iterate at the same iteration. personalization, nstart, dangling and non-uniform weights are left to NetworkX.",
    'single_source_dijkstra_path_length': "graphferry's SSSP (float32 edge weights, float64 sums): weights that float32 cannot hold exactly, negative weights and weight functions are left to NetworkX. The dict is ordered by distance.",
    'single_source_shortest_path_length': "graphferry's BFS (a cutoff below 3: a bounded search); the dict in NetworkX's discovery order.",
    'transitivity': "graphferry's triangle counts; simple undirected graphs only.",
    'triangles': "graphferry's ordered triangle counting.",
    'weakly_connected_components': "graphferry's WCC; components in NetworkX's order.",
}
