"""The NetworkX functions the backend dispatches, NetworkX against ``backend="graphferry"`` on a 1 M-edge graph.

The graph is ``bench/networkx_pagerank.py``'s uniform random graph (100,000
nodes, about 1 M distinct undirected edges, built with ``G.add_edges_from``),
with an integer weight 1..100 per edge for the weighted functions and a
directed copy (each edge one way, at random) for the directed ones. For each
call, in seconds:

* ``networkx``: NetworkX's own implementation (median of ``--nx-repeat`` calls);
* ``graphferry``: ``backend="graphferry"`` with the graph's conversion cache
  emptied before each call, so every call converts the graph (conversion
  included; median of ``--repeat`` calls, after one warm-up call that loads the
  compiled programs);

and whether the answers are equal (``==``, and the same key order for dicts).
OpenMP threads wait passively (``OMP_WAIT_POLICY=passive`` unless set, as in
``networkx_algorithms_bench.py``): on this 2-core machine shared with other jobs,
threads spinning at each barrier made a weighted Dijkstra call 4.1 s instead of
1.25 s and ``greedy_color`` (63 rounds) 2.6 s instead of 0.45 s (load average 9).
``linear``: whether NetworkX's work is at least linear in the edges (the issue's
target, >= 5x, is for those).

    python bench/networkx_functions.py --out bench/results/networkx-functions.json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_WAIT_POLICY", "passive")   # before graphferry loads OpenMP (see the docstring)

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "bench"))
import provenance  # noqa: E402

import networkx as nx  # noqa: E402

from networkx_pagerank import build  # noqa: E402


def timed(fn, repeat: int, before=None):
    times, out = [], None
    for _ in range(repeat):
        if before:
            before()
        t0 = time.perf_counter()
        out = fn()
        if not isinstance(out, (dict, set, list, tuple, int, float, bool, nx.Graph)) \
                and type(out).__name__ != "dict_values":
            out = list(out)
        times.append(time.perf_counter() - t0)
    return statistics.median(times), [round(t, 4) for t in times], out


def same(a, b) -> bool:
    if isinstance(a, nx.Graph):
        return (isinstance(b, nx.Graph) and nx.utils.graphs_equal(a, b)
                and list(a.edges(data=True)) == list(b.edges(data=True)))
    if type(a).__name__ == "dict_values":
        return [set(x) for x in a] == [set(x) for x in b]
    if isinstance(a, float) and isinstance(b, float):
        return abs(a - b) <= 1e-9 * max(abs(b), 1e-300)
    if isinstance(a, dict) and a and isinstance(next(iter(a.values())), float):
        return list(a) == list(b) and all(abs(a[k] - b[k]) <= 1e-6 * max(abs(b[k]), 1e-12) for k in a)
    if isinstance(a, dict):
        return isinstance(b, dict) and list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, tuple):
        return isinstance(b, tuple) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b


#: why a call's ratio is what it is, where that needs saying (the issue's 5x target is for calls whose
#: NetworkX work is at least linear in the edges; a call below it must say why here and in README)
NOTES = {
    "single_source_bellman_ford_path_length": "the same values; the dict in Dijkstra's key order (distance, "
                                              "then heap order), not NetworkX's queue order (README)",
    "reciprocity(all nodes)": "NetworkX's pass reads each node's two small adjacency dicts once (0.7-1.5 s "
                              "for 1.1 M arcs); graphferry converts the directed graph and counts each vertex's "
                              "reciprocated arcs in one host-library pass over the CSR and its transpose",
    "is_tree": "NetworkX answers from the edge count when it is not n - 1 (O(1) after counting): below linear",
    "degree_centrality": "NetworkX reads each adjacency dict's length: O(n), no edge is read (nor by graphferry, "
                         "whose conversion is deferred: the row lengths by a compiled pass)",
    "in_degree_centrality": "NetworkX reads each predecessor dict's length: O(n), no edge is read (nor by "
                            "graphferry, whose conversion is deferred: the row lengths by a compiled pass)",
    "number_of_isolates": "NetworkX reads each adjacency dict's length: O(n), no edge is read (nor by graphferry)",
    "isolates": "NetworkX reads each adjacency dict's length: O(n), no edge is read (nor by graphferry)",
    "descendants_at_distance(far)": "NetworkX reads only the rows of the layers before the distance (a "
                                    "fraction of the graph at distance 4 here); a converting call reads all of it",
    "louvain_communities": "other communities than NetworkX's (its depend on its random visiting order): "
                           "'modularity' compares the two answers",
    "has_path(far target)": "NetworkX's bidirectional search meets in the middle, reading a small part of "
                            "the graph; a call that converts the graph reads all of it",
    "bidirectional_shortest_path(far target)": "NetworkX's bidirectional search meets in the middle, reading a "
                                               "small part of the graph; converting reads all of it",
}


#: calls whose answer is one of many good ones: name -> quality(graph, answer), reported for both answers
QUALITY = {"louvain_communities": lambda g, parts: nx.community.modularity(g, parts)}


def graphs():
    """``(G, W, D, seconds)``: the uniform graph, the same weighted 1..100, and directed with some
    arcs reciprocated."""
    t0 = time.perf_counter()
    G = build("uniform", seed=1)
    rnd = random.Random(1)
    W = nx.Graph()
    W.add_nodes_from(G)
    W.add_weighted_edges_from((u, v, rnd.randint(1, 100)) for u, v in G.edges())
    D = nx.DiGraph()
    D.add_nodes_from(G)
    D.add_edges_from((u, v) if rnd.random() < 0.5 else (v, u) for u, v in G.edges())
    for u, v in list(D.edges())[::7]:
        D.add_edge(v, u)  # some reciprocated arcs
    build_s = time.perf_counter() - t0
    return G, W, D, build_s


def dispatched_calls(G, W, D, far) -> dict:
    """Every call measured: name -> (graph, call(graph, **backend), whether linear in the edges)."""
    calls = {
        # name: (graph, call(graph, **backend), linear)
        "single_source_shortest_path_length": (G, lambda g, **k: nx.single_source_shortest_path_length(g, 0, **k), True),
        "single_source_shortest_path": (G, lambda g, **k: nx.single_source_shortest_path(g, 0, **k), True),
        "single_target_shortest_path_length": (G, lambda g, **k: nx.single_target_shortest_path_length(g, 0, **k), True),
        "shortest_path(source)": (G, lambda g, **k: nx.shortest_path(g, 0, **k), True),
        "descendants": (D, lambda g, **k: nx.descendants(g, 0, **k), True),
        "ancestors": (D, lambda g, **k: nx.ancestors(g, 0, **k), True),
        "single_source_dijkstra_path_length": (W, lambda g, **k: nx.single_source_dijkstra_path_length(g, 0, **k), True),
        "single_source_dijkstra": (W, lambda g, **k: nx.single_source_dijkstra(g, 0, **k), True),
        "multi_source_dijkstra_path_length": (W, lambda g, **k: nx.multi_source_dijkstra_path_length(g, [0, 1, 2], **k), True),
        "dijkstra_path_length(far target)": (W, lambda g, **k: nx.dijkstra_path_length(g, 0, far, **k), True),
        "single_source_bellman_ford_path_length": (W, lambda g, **k: nx.single_source_bellman_ford_path_length(g, 0, **k), True),
        "bellman_ford_path_length(far target)": (W, lambda g, **k: nx.bellman_ford_path_length(g, 0, far, **k), True),
        "is_forest": (G, lambda g, **k: nx.is_forest(g, **k), True),
        "is_tree": (G, lambda g, **k: nx.is_tree(g, **k), False),
        "overall_reciprocity": (D, lambda g, **k: nx.overall_reciprocity(g, **k), True),
        "reciprocity(all nodes)": (D, lambda g, **k: nx.reciprocity(g, list(g), **k), True),
        "bfs_edges": (G, lambda g, **k: list(nx.bfs_edges(g, 0, **k)), True),
        "bfs_layers": (G, lambda g, **k: list(nx.bfs_layers(g, 0, **k)), True),
        "bfs_predecessors": (G, lambda g, **k: list(nx.bfs_predecessors(g, 0, **k)), True),
        "bfs_successors": (G, lambda g, **k: list(nx.bfs_successors(g, 0, **k)), True),
        "descendants_at_distance(far)": (G, lambda g, **k: nx.descendants_at_distance(g, 0, 4, **k), False),
        "single_target_shortest_path": (G, lambda g, **k: nx.single_target_shortest_path(g, 0, **k), True),
        "shortest_path_length(source)": (G, lambda g, **k: nx.shortest_path_length(g, 0, **k), True),
        "single_source_dijkstra_path": (W, lambda g, **k: nx.single_source_dijkstra_path(g, 0, **k), True),
        "dijkstra_path(far target)": (W, lambda g, **k: nx.dijkstra_path(g, 0, far, **k), True),
        "multi_source_dijkstra": (W, lambda g, **k: nx.multi_source_dijkstra(g, [0, 1, 2], **k), True),
        "single_source_bellman_ford": (W, lambda g, **k: nx.single_source_bellman_ford(g, 0, **k), True),
        "connected_components": (G, lambda g, **k: list(nx.connected_components(g, **k)), True),
        "number_connected_components": (G, lambda g, **k: nx.number_connected_components(g, **k), True),
        "is_connected": (G, lambda g, **k: nx.is_connected(g, **k), True),
        "node_connected_component": (G, lambda g, **k: nx.node_connected_component(g, 0, **k), True),
        "weakly_connected_components": (D, lambda g, **k: list(nx.weakly_connected_components(g, **k)), True),
        "number_weakly_connected_components": (D, lambda g, **k: nx.number_weakly_connected_components(g, **k), True),
        "is_weakly_connected": (D, lambda g, **k: nx.is_weakly_connected(g, **k), True),
        "triangles": (G, lambda g, **k: nx.triangles(g, **k), True),
        "clustering": (G, lambda g, **k: nx.clustering(g, **k), True),
        "average_clustering": (G, lambda g, **k: nx.average_clustering(g, **k), True),
        "transitivity": (G, lambda g, **k: nx.transitivity(g, **k), True),
        "betweenness_centrality(k=16)": (G, lambda g, **k: nx.betweenness_centrality(g, k=16, seed=1, **k), True),
        "pagerank": (G, lambda g, **k: nx.pagerank(g, **k), True),
        "greedy_color": (G, lambda g, **k: nx.greedy_color(g, **k), True),
        "minimum_spanning_edges": (W, lambda g, **k: list(nx.minimum_spanning_edges(g, **k)), True),
        "minimum_spanning_tree": (W, lambda g, **k: nx.minimum_spanning_tree(g, **k), True),
        "label_propagation_communities": (G, lambda g, **k: nx.community.label_propagation_communities(g, **k),
                                          True),
        "louvain_communities": (G, lambda g, **k: nx.community.louvain_communities(g, **k), True),
        "degree_centrality": (G, lambda g, **k: nx.degree_centrality(g, **k), False),
        "in_degree_centrality": (D, lambda g, **k: nx.in_degree_centrality(g, **k), False),
        "isolates": (G, lambda g, **k: list(nx.isolates(g, **k)), False),
        "number_of_isolates": (G, lambda g, **k: nx.number_of_isolates(g, **k), False),
        "has_path(far target)": (G, lambda g, **k: nx.has_path(g, 0, far, **k), False),
        "bidirectional_shortest_path(far target)": (G, lambda g, **k: nx.bidirectional_shortest_path(g, 0, far, **k), False),
    }
    return calls


def measure(name: str, graph, kind: str, call, linear: bool, args) -> dict:
    """One call under NetworkX and under backend='graphferry' (after a warm-up), their answers compared."""
    clear = graph.__networkx_cache__.clear
    try:
        call(graph, backend="graphferry")  # warm-up: compiled programs loaded
    except NotImplementedError as exc:   # declined for this graph (can_run's reason): NetworkX runs it
        reason = str(exc.__cause__ or exc)
        return {"call": name, "linear_in_edges": linear, "declined": reason}
    nx_s, nx_times, want = timed(lambda: call(graph), args.nx_repeat)
    gf_s, gf_times, got = timed(lambda: call(graph, backend="graphferry"), args.repeat, before=clear)
    row = {"call": name, "graph": kind,
           "linear_in_edges": linear, "networkx_seconds": round(nx_s, 4), "graphferry_seconds": round(gf_s, 4),
           # issue 35's pair, graphferry's: the median of its calls and the first of them
           "seconds": round(gf_s, 4), "first_seconds": gf_times[0] if gf_times else None,
           "speedup": round(nx_s / gf_s, 2), "graphferry_times": gf_times, "networkx_times": nx_times,
           "same_answer": same(want, got)}
    if not row["same_answer"] and isinstance(want, dict):
        row["same_values"] = isinstance(got, dict) and dict(got) == dict(want)
    if name in QUALITY:   # a heuristic's answer: how good each is, by NetworkX's measure
        row["modularity"] = {"networkx": round(QUALITY[name](graph, want), 6),
                             "graphferry": round(QUALITY[name](graph, got), 6)}
    if name in NOTES:
        row["note"] = NOTES[name]
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "networkx-functions.json")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--nx-repeat", type=int, default=1)
    parser.add_argument("--only", nargs="*", help="run only these calls (names as in the results)")
    args = parser.parse_args(argv)

    from graphferry.nx_backend import register

    register()
    nx.config.warnings_to_ignore.add("cache")
    nx.config.backends.graphferry.backend = "cpu"
    load_before = [round(x, 2) for x in os.getloadavg()]
    G, W, D, build_s = graphs()
    far = max(nx.single_source_shortest_path_length(G, 0).items(), key=lambda kv: kv[1])[0]
    calls = dispatched_calls(G, W, D, far)
    kinds = {G: "uniform", W: "uniform weighted 1..100", D: "uniform directed"}
    rows = []
    for name, (graph, call, linear) in calls.items():
        if args.only and name not in args.only:
            continue
        rows.append(measure(name, graph, kinds[graph], call, linear, args))
        print(json.dumps(rows[-1]), flush=True)
    doc = provenance.stamp({}, ["bench/networkx_functions.py", *(argv if argv is not None else sys.argv[1:])])
    doc.update({
        "what": "NetworkX functions the graphferry backend dispatches: NetworkX vs backend='graphferry', conversion "
                "included in every graphferry call",
        "machine": {"host_cores": os.cpu_count(), "python": platform.python_version(), "networkx": nx.__version__,
                    "load_average": [round(x, 2) for x in os.getloadavg()],
                    "load_average_before": load_before, "omp_wait_policy": os.environ.get("OMP_WAIT_POLICY")},
        "graphferry_backend": "cpu",
        "graph": {"name": "uniform", "n": G.number_of_nodes(), "edges": G.number_of_edges(),
                  "directed_arcs": D.number_of_edges(), "build_seconds": round(build_s, 2)},
        "runs": rows,
        # the calls at least linear in the edges that stay under the 5x, with the reason
        "linear_under_5x": {r["call"]: r.get("note", "no reason recorded: to be looked at")
                            for r in rows if r["linear_in_edges"] and "speedup" in r and r["speedup"] < 5},
    })
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(doc, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
