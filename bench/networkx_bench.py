"""graphferry's NetworkX backend beside nx-cugraph's published speed-ups, on a graph of amazon0302's size.

nx-cugraph publishes, per algorithm, NetworkX's time over its own on four graphs
(``bench/data/nx-cugraph-published.json``, transcribed from its Benchmarks page;
it cannot be installed on the GPU machine, which has no network). This script
measures the same ratio for graphferry on the machine it runs on: a uniform
random graph with amazon0302's 262,111 nodes and 1,234,877 edges (undirected,
built with ``G.add_edges_from`` as a user builds one; a directed copy, each
edge one way at random, for the functions NetworkX defines on directed graphs).
The topology differs from amazon0302's (a co-purchase graph), so a ratio is
comparable in size, not graph for graph. For each function, in seconds:

* ``networkx``: NetworkX's own implementation, one call (``--nx-repeat``);
* ``graphferry_cold``: ``backend="graphferry"``, the conversion cache emptied
  before each call, so every call converts the graph (median of ``--repeat``);
* ``graphferry_warm``: the conversion cached on the graph (median of ``--repeat``);
* ``first_seconds``: the first cold call, after a warm-up on a small graph that
  compiled (NVRTC) and loaded the function's programs.

Each answer is compared with NetworkX's in the same run (``verified``). The
published figure goes beside ours in each row (``nx_cugraph_published``).
A deadline (``--deadline-s``) skips the functions left once it has passed (cheap
ones run first), so one device call stays within its budget.
``--nx-workers K`` runs NetworkX's calls in K processes forked once the graphs
are built (the longest first), while graphferry's run in the main process, so
that every function fits one device call: NetworkX alone takes about 150 s
for them all on the H200's host. A function whose NetworkX calls have not
finished by the deadline is listed as skipped.

NetworkX's Louvain (:data:`SMALLER_FOR_NETWORKX`) takes far longer than one device call on this graph
(a uniform graph has weak communities, so its levels run many rounds: 3,540 s on the 1 M-edge graph of
``bench/networkx_functions.py`` on 2 cores), so its NetworkX calls run on a smaller uniform graph of the
same mean degree (``--nx-smaller-nodes``), where graphferry's run too (the same-graph speed-up and
modularities); graphferry's cold and warm calls on the full graph are timed as for the others and
checked to be a partition of the nodes (its modularity recorded).

    PYTHONPATH=src python bench/networkx_bench.py --backend cuda --deadline-s 120 \\
        --out $OUT/networkx-nxcugraph-h200.json
"""

from __future__ import annotations

import argparse
import cProfile
import datetime as dt
import json
import multiprocessing
import os
import platform
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Callable

os.environ.setdefault("OMP_WAIT_POLICY", "passive")   # see networkx_algorithms_bench.py: shared CPUs

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "bench"))
import provenance  # noqa: E402  (commit, dirty, diff hash, command: issue 35)
from profiles import top_functions  # noqa: E402

import networkx as nx  # noqa: E402
import numpy as np  # noqa: E402

PUBLISHED = ROOT / "bench" / "data" / "nx-cugraph-published.json"
AMAZON0302 = (262_111, 1_234_877)


def build(n: int, m: int, seed: int) -> tuple[nx.Graph, nx.DiGraph]:
    """``m`` distinct undirected edges on ``n`` nodes drawn uniformly (no self-loops), and a directed
    copy (each edge one way, at random)."""
    rng = np.random.default_rng(seed)
    keys = np.empty(0, dtype=np.int64)
    while keys.size < m:
        u = rng.integers(0, n, 2 * m)
        v = rng.integers(0, n, 2 * m)
        keep = u != v
        lo, hi = np.minimum(u, v)[keep], np.maximum(u, v)[keep]
        keys = np.unique(np.concatenate([keys, lo * n + hi]))
    keys = rng.permutation(keys)[:m]
    lo, hi = (keys // n).tolist(), (keys % n).tolist()
    G = nx.Graph(name="uniform-amazon0302-size")
    G.add_nodes_from(range(n))
    G.add_edges_from(zip(lo, hi))
    flip = rng.random(m) < 0.5
    D = nx.DiGraph(name="uniform-amazon0302-size-directed")
    D.add_nodes_from(range(n))
    D.add_edges_from((b, a) if f else (a, b) for a, b, f in zip(lo, hi, flip.tolist()))
    return G, D


def same(got, want) -> tuple[bool, str]:
    if isinstance(want, dict):
        ok = isinstance(got, dict) and list(got) == list(want) and got == want
    else:
        ok = got == want
    return ok, "equal (and the same key order)"


def close(rel: float) -> Callable[[Any, Any], tuple[bool, str]]:
    def check(got, want):
        if list(got) != list(want):
            return False, "keys or their order differ"
        top = max((abs(v) for v in want.values()), default=0.0)
        d = max((abs(got[k] - want[k]) for k in want), default=0.0)
        return d <= rel * top + 1e-15, f"largest difference {d:.2e} ({rel:g} of the largest value {top:.2e})"
    return check


def close_number(rel: float) -> Callable[[Any, Any], tuple[bool, str]]:
    def check(got, want):
        d = abs(got - want)
        return d <= rel * abs(want) + 1e-15, f"difference {d:.2e}"
    return check


def same_partition(got, want) -> tuple[bool, str]:
    ok = sorted(map(sorted, got)) == sorted(map(sorted, want))
    return ok, "the same sets"


def modularity_near(tolerance: float) -> Callable[[Any, Any, Any], tuple[bool, str]]:
    """A partition of the graph's nodes whose modularity is NetworkX's answer's, or better, within ``tolerance``
    (Louvain: NetworkX's communities follow its random visiting order, graphferry's parallel steps give others)."""
    def check(got, want, graph):
        if not nx.community.is_partition(graph, got):
            return False, "not a partition of the nodes"
        q_got, q_want = nx.community.modularity(graph, got), nx.community.modularity(graph, want)
        return q_got >= q_want - tolerance, (f"modularity {q_got:.4f} against NetworkX's {q_want:.4f} "
                                             f"(at least NetworkX's - {tolerance})")
    check.needs_graph = True
    return check


def as_list(fn):
    return lambda *a, **k: list(fn(*a, **k))


#: name -> (graph "G" or "D", call(graph, **backend), compare, key in the published table)
CASES: dict[str, tuple[str, Callable, Callable, str]] = {
    "degree_centrality": ("G", lambda g, **b: nx.degree_centrality(g, **b), same, "degree_centrality"),
    "in_degree_centrality": ("D", lambda g, **b: nx.in_degree_centrality(g, **b), same, "in_degree_centrality"),
    "single_source_shortest_path_length": (
        "G", lambda g, **b: nx.single_source_shortest_path_length(g, 0, **b), same,
        "single_source_shortest_path_length"),
    "single_target_shortest_path_length": (
        "G", lambda g, **b: nx.single_target_shortest_path_length(g, 0, **b), same,
        "single_target_shortest_path_length"),
    "bfs_layers": ("G", lambda g, **b: list(nx.bfs_layers(g, 0, **b)), same, "bfs_layers"),
    "weakly_connected_components": (
        "D", lambda g, **b: list(nx.weakly_connected_components(g, **b)), same, "weakly_connected_components"),
    "number_weakly_connected_components": (
        "D", lambda g, **b: nx.number_weakly_connected_components(g, **b), same,
        "number_weakly_connected_components"),
    "descendants": ("D", lambda g, **b: nx.descendants(g, 0, **b), same, "descendants"),
    "ancestors": ("D", lambda g, **b: nx.ancestors(g, 0, **b), same, "ancestors"),
    "shortest_path": ("G", lambda g, **b: nx.shortest_path(g, 0, **b), same, "shortest_path"),
    "bfs_edges": ("G", lambda g, **b: list(nx.bfs_edges(g, 0, **b)), same, "bfs_edges"),
    "core_number": ("G", lambda g, **b: nx.core_number(g, **b), same, "core_number"),
    "pagerank": ("G", lambda g, **b: nx.pagerank(g, **b), close(1e-4), "pagerank"),
    "triangles": ("G", lambda g, **b: nx.triangles(g, **b), same, "triangles"),
    "overall_reciprocity": ("D", lambda g, **b: nx.overall_reciprocity(g, **b), close_number(1e-12),
                            "overall_reciprocity"),
    "average_clustering": ("G", lambda g, **b: nx.average_clustering(g, **b), close_number(1e-9),
                           "average_clustering"),
    "k_truss": ("G", lambda g, **b: nx.k_truss(g, 3, **b),
                lambda got, want: (nx.utils.graphs_equal(got, want), "equal graphs"), "k_truss"),
    "betweenness_centrality(k=10)": ("G", lambda g, **b: nx.betweenness_centrality(g, k=10, seed=1, **b),
                                     close(1e-6), "betweenness_centrality, k=10"),
    "transitivity": ("G", lambda g, **b: nx.transitivity(g, **b), close_number(1e-12), "transitivity"),
    "clustering": ("G", lambda g, **b: nx.clustering(g, **b), close(1e-9), "clustering"),
    "edge_betweenness_centrality(k=10)": ("G", lambda g, **b: nx.edge_betweenness_centrality(g, k=10, seed=1, **b),
                                          close(1e-6), "edge_betweenness_centrality, k=10"),
    # NetworkX's default alpha 0.1 exceeds 1 / lambda_max of this graph (mean degree 9.4): it would diverge; 0.02 converges in a few steps
    "katz_centrality": ("G", lambda g, **b: nx.katz_centrality(g, alpha=0.02, **b), close(1e-6), "katz_centrality"),
    # no seed: a given seed asks for NetworkX's communities for it, which graphferry leaves to NetworkX
    "louvain_communities": ("G", lambda g, **b: nx.community.louvain_communities(g, **b), modularity_near(0.01),
                            "louvain_communities"),
}


#: functions whose NetworkX calls run on a smaller graph of the same mean degree (``--nx-smaller-nodes``):
#: the graph each reads ("G" or "D") -> its smaller copy's key in the graphs
SMALLER_FOR_NETWORKX = {"louvain_communities": "G-smaller"}

#: NetworkX's Louvain on the 1 M-edge uniform graph on the 2-core machine (bench/results/networkx-functions-louvain.json)
LOUVAIN_2_CORES = {"networkx_seconds": 3539.92, "graphferry_cpu_seconds": 4.9172, "n": 100_000, "edges": 999_896,
                   "source": "bench/results/networkx-functions-louvain.json (2 cores, graphferry's CPU backend)"}


def timed(fn, repeat: int, before=None) -> tuple[float, list[float], Any]:
    times, out = [], None
    for _ in range(repeat):
        if before:
            before()
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), [round(t, 5) for t in times], out


def warm_profile(fn, count: int = 25) -> list[dict]:
    """One more warm call under cProfile: its ``count`` functions of most cumulative time (where a warm
    call's time goes on the GPU machine, which this machine cannot show)."""
    prof = cProfile.Profile()
    prof.runcall(fn)
    return top_functions(prof, count, labels=("cumulative",), digits=5)["cumulative"]


def dispatched(name: str) -> bool:
    from _graphferry_nx.functions import FUNCTIONS

    return name.split("(")[0] in FUNCTIONS


#: NetworkX's own implementation, whatever backend priority the process has (a forked worker must not run
#: graphferry's compiled code: OpenMP's threads do not survive a fork)
NETWORKX = {"backend": "networkx"}

#: the graphs a NetworkX worker process reads (``--nx-workers``: set before the workers fork)
_WORKER_GRAPHS: dict = {}


def _networkx_in_worker(name: str, which: str, repeat: int) -> tuple[float, list[float], Any]:
    """NetworkX's calls of one function, in a worker forked after the graphs were built."""
    _, call, _, _ = CASES[name]
    return timed(lambda: call(_WORKER_GRAPHS[which], **NETWORKX), repeat)


def start_networkx_workers(names: list[str], graphs: dict, published: dict, args) -> dict:
    """``--nx-workers`` processes forked now (before graphferry starts a thread or a GPU context), each
    running functions' NetworkX calls; the longest (by NetworkX's time on nx-cugraph's machine) start
    first. Returns name -> pending result (``.get(timeout)``), and the pool under ``None``."""
    _WORKER_GRAPHS.update(graphs)
    pool = multiprocessing.get_context("fork").Pool(args.nx_workers)

    def expected(name: str) -> float:
        theirs = published["algorithms"].get(CASES[name][3])
        return theirs["networkx_seconds"] if theirs else 1.0

    pending = {name: pool.apply_async(_networkx_in_worker,
                                      (name, SMALLER_FOR_NETWORKX.get(name, CASES[name][0]), args.nx_repeat))
               for name in sorted(names, key=expected, reverse=True)}
    pending[None] = pool
    return pending


def networkx_result(name: str, call, graph, args, pending: dict | None, deadline_left: float):
    """NetworkX's (median, times, answer): from its worker (waiting at most ``deadline_left`` seconds;
    TimeoutError past it) or, without workers, by calling it here (on ``graph``: the smaller one for
    :data:`SMALLER_FOR_NETWORKX`)."""
    if pending is None:
        graph.__networkx_cache__.clear()
        return timed(lambda: call(graph, **NETWORKX), args.nx_repeat)
    return pending[name].get(timeout=max(deadline_left, 0.0) if deadline_left < float("inf") else None)


def measure(name: str, graph, small, theirs: dict | None, args, pending: dict | None = None,
            deadline_left: float = float("inf"), smaller=None) -> dict:
    """One function: a warm-up on ``small`` (compiles), graphferry cold and warm, NetworkX, the comparison
    (``smaller``: the graph NetworkX runs on instead, for :data:`SMALLER_FOR_NETWORKX`)."""
    _, call, compare, _ = CASES[name]
    gf = {"backend": "graphferry"}
    t0 = time.perf_counter()
    call(small, **gf)   # compile (NVRTC on a GPU) and load the programs; NotImplementedError: declined
    warmup_s = time.perf_counter() - t0
    cold_s, cold_all, got = timed(lambda: call(graph, **gf), args.repeat, before=graph.__networkx_cache__.clear)
    warm_s, warm_all, _ = timed(lambda: call(graph, **gf), args.repeat)
    profile = warm_profile(lambda: call(graph, **gf)) if name in args.profile_warm else None
    graph.__networkx_cache__.clear()
    if smaller is not None:
        return measure_on_smaller(name, graph, smaller, got, theirs, args, pending, deadline_left, {
            "graphferry_cold_seconds": round(cold_s, 5), "graphferry_warm_seconds": round(warm_s, 5),
            "seconds": round(cold_s, 5), "first_seconds": cold_all[0], "warmup_compile_seconds": round(warmup_s, 3),
            "all_seconds": {"graphferry_cold": cold_all, "graphferry_warm": warm_all}})
    nx_s, nx_all, want = networkx_result(name, call, graph, args, pending, deadline_left)
    ok, how = compare(got, want, graph) if getattr(compare, "needs_graph", False) else compare(got, want)
    row = {"algorithm": name, "engine": "networkx-backend", "backend": args.backend,
           "graph": {"name": graph.name, "n": graph.number_of_nodes(), "edges": graph.number_of_edges(),
                     "directed": graph.is_directed()},
           "networkx_seconds": round(nx_s, 5), "graphferry_cold_seconds": round(cold_s, 5),
           "graphferry_warm_seconds": round(warm_s, 5),
           "seconds": round(cold_s, 5), "first_seconds": cold_all[0], "warmup_compile_seconds": round(warmup_s, 3),
           "speedup_cold": round(nx_s / cold_s, 2), "speedup_warm": round(nx_s / warm_s, 2),
           "nx_cugraph_published": ({"dataset": "amazon0302", **theirs} if theirs else None),
           "all_seconds": {"networkx": nx_all, "graphferry_cold": cold_all, "graphferry_warm": warm_all},
           "verified": bool(ok), "verified_how": f"against NetworkX's answer in the same run: {how}",
           **({"profile_warm": profile} if profile else {})}
    print(f"{name}: networkx {nx_s:.3f} s, graphferry cold {cold_s:.4f} s ({row['speedup_cold']}x), warm "
          f"{warm_s:.4f} s ({row['speedup_warm']}x); nx-cugraph published "
          f"{theirs['speedup'] if theirs else '--'}x; {how}", flush=True)
    return row


def measure_on_smaller(name: str, graph, smaller, got, theirs: dict | None, args, pending: dict | None,
                       deadline_left: float, full: dict) -> dict:
    """A :data:`SMALLER_FOR_NETWORKX` function's row: graphferry's calls on the full graph (``full``; its
    answer ``got`` checked to be a partition), NetworkX's and graphferry's on ``smaller``, compared there."""
    _, call, compare, _ = CASES[name]
    gf = {"backend": "graphferry"}
    ok_full = nx.community.is_partition(graph, got)
    q_full = nx.community.modularity(graph, got) if ok_full else None
    gf_small_s, gf_small_all, got_small = timed(lambda: call(smaller, **gf), args.repeat,
                                                before=smaller.__networkx_cache__.clear)
    try:
        nx_s, nx_all, want = networkx_result(name, call, smaller, args, pending, deadline_left)
    except multiprocessing.TimeoutError:   # keep graphferry's full-graph timings all the same
        nx_s, nx_all, want = float("nan"), [], None
    if want is None:
        ok, how = False, "NetworkX's calls (in a worker) had not finished by the deadline"
    else:
        ok, how = compare(got_small, want, smaller) if getattr(compare, "needs_graph", False) else \
            compare(got_small, want)
    row = {"algorithm": name, "engine": "networkx-backend", "backend": args.backend,
           "graph": {"name": graph.name, "n": graph.number_of_nodes(), "edges": graph.number_of_edges(),
                     "directed": graph.is_directed()},
           "networkx_seconds": None, "speedup_cold": None, "speedup_warm": None, **full,
           "full_graph_answer": {"partition": bool(ok_full),
                                 "modularity": None if q_full is None else round(q_full, 6)},
           "networkx_on_smaller_graph": {
               "why": "NetworkX's call on the full graph takes far longer than a device call",
               "graph": {"name": smaller.name, "n": smaller.number_of_nodes(), "edges": smaller.number_of_edges()},
               "networkx_seconds": None if want is None else round(nx_s, 5),
               "graphferry_cold_seconds": round(gf_small_s, 5),
               "speedup": None if want is None else round(nx_s / gf_small_s, 2),
               "all_seconds": {"networkx": nx_all, "graphferry_cold": gf_small_all},
               "verified": bool(ok), "verified_how": f"against NetworkX's answer on that graph: {how}"},
           "networkx_2_cores_elsewhere": LOUVAIN_2_CORES if name == "louvain_communities" else None,
           "nx_cugraph_published": ({"dataset": "amazon0302", **theirs} if theirs else None),
           "verified": bool(ok_full and (ok or want is None)),
           "verified_how": "full graph: a partition of the nodes; smaller graph: " + how}
    print(f"{name}: graphferry cold {full['graphferry_cold_seconds']:.4f} s, warm "
          f"{full['graphferry_warm_seconds']:.4f} s on the full graph (modularity {q_full}); on "
          f"{smaller.number_of_nodes():,} nodes NetworkX {nx_s:.3f} s, graphferry {gf_small_s:.4f} s "
          f"({row['networkx_on_smaller_graph']['speedup']}x); {how}", flush=True)
    return row


def smaller_graphs(names: list[str], args) -> dict:
    """The smaller graph NetworkX's :data:`SMALLER_FOR_NETWORKX` calls run on (same mean degree), when one is asked."""
    if not any(f in SMALLER_FOR_NETWORKX for f in names):
        return {}
    k = min(args.nx_smaller_nodes, args.nodes)
    smaller = build(k, round(args.edges * k / args.nodes), args.seed)[0]
    smaller.name = f"uniform-{k}-nodes-same-mean-degree"
    return {"G-smaller": smaller}


def device_name(backend: str) -> str:
    if backend == "cpu":
        return "cpu"
    try:
        import cupy

        return cupy.cuda.runtime.getDeviceProperties(0)["name"].decode()
    except Exception:   # no CuPy or no GPU: the run used the CPU backend
        return "cpu"


def write(args, argv, record: dict) -> None:
    """The results file, rewritten after every function (a run cut short keeps what it measured)."""
    if args.out:
        doc = {**provenance.stamp({}, ["bench/networkx_bench.py", *(argv if argv is not None else sys.argv[1:])]),
               **record}
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(doc, indent=1) + "\n")


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--functions", nargs="+", default=list(CASES), choices=list(CASES))
    parser.add_argument("--nodes", type=int, default=AMAZON0302[0])
    parser.add_argument("--edges", type=int, default=AMAZON0302[1])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--nx-repeat", type=int, default=1)
    parser.add_argument("--backend", default="auto", help="graphferry backend: auto, cpu or cuda")
    parser.add_argument("--deadline-s", type=float, default=float("inf"),
                        help="start no function after this many seconds from the script's start, nor one whose "
                             "NetworkX time on nx-cugraph's machine, doubled, would pass it")
    parser.add_argument("--nx-workers", type=int, default=0,
                        help="run NetworkX's calls in this many forked processes at once, beside graphferry's "
                             "(0: one after another in this process); each NetworkX call is single-threaded")
    parser.add_argument("--nx-smaller-nodes", type=int, default=10_000,
                        help="nodes of the smaller graph (the same mean degree) that NetworkX's Louvain runs on")
    parser.add_argument("--profile-warm", nargs="*", default=[], metavar="FUNCTION",
                        help="also profile one warm call of these functions (cProfile: the row's profile_warm)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    started = time.perf_counter()

    from graphferry.nx_backend import register

    register()
    nx.config.backends.graphferry.backend = args.backend
    nx.config.warnings_to_ignore.add("cache")
    published = json.loads(PUBLISHED.read_text())
    names = [f for f in args.functions if dispatched(f)]
    skipped = [{"function": f, "why": "not dispatched by graphferry in this tree"}
               for f in args.functions if f not in names]
    t0 = time.perf_counter()
    G, D = build(args.nodes, args.edges, args.seed)
    build_s = time.perf_counter() - t0
    graphs = {"G": G, "D": D, **smaller_graphs(names, args)}
    pending = start_networkx_workers(names, graphs, published, args) if args.nx_workers > 0 else None
    small = {"G": nx.gnm_random_graph(300, 1500, seed=0), "D": nx.gnm_random_graph(300, 1500, seed=0, directed=True)}
    print(f"graph: n={G.number_of_nodes():,} edges={G.number_of_edges():,} built in {build_s:.1f} s", flush=True)
    runs: list[dict] = []
    record = {
        "date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "what": "graphferry's NetworkX backend against NetworkX on a graph of amazon0302's size, beside "
                "nx-cugraph's published speed-ups on amazon0302 (not measured here: nx-cugraph cannot be "
                "installed on this machine)",
        "machine": {"device": device_name(args.backend), "host_cores": os.cpu_count(),
                    "python": platform.python_version(), "networkx": nx.__version__,
                    "load_average_before": round(os.getloadavg()[0], 1), "networkx_workers": args.nx_workers,
                    **({"networkx_workers_how": f"NetworkX's calls ran in {args.nx_workers} forked processes at once "
                        "(longest first), beside graphferry's calls in the main process"} if pending else {})},
        "graph": {"name": G.name, "n": G.number_of_nodes(), "m": G.number_of_edges(), "directed": False,
                  "build_seconds": round(build_s, 2), "directed_copy_arcs": D.number_of_edges()},
        "nx_cugraph_published": {k: published[k] for k in ("source", "their_machine", "dataset", "note")},
        "runs": runs, "skipped": skipped,
    }
    for name in names:
        elapsed = time.perf_counter() - started
        which, _, _, key = CASES[name]
        theirs = published["algorithms"].get(key)
        networkx_left = 0.0 if pending or name in SMALLER_FOR_NETWORKX else \
            (2 * theirs["networkx_seconds"] if theirs else 0.0)
        if elapsed + networkx_left > args.deadline_s:
            skipped.append({"function": name, "why": f"deadline: {elapsed:.0f} s had passed" + (
                f"; NetworkX took {theirs['networkx_seconds']} s on nx-cugraph's machine" if theirs else "")})
            continue
        try:
            runs.append(measure(name, graphs[which], small[which], theirs, args, pending,
                                args.deadline_s - (time.perf_counter() - started),
                                graphs.get(SMALLER_FOR_NETWORKX.get(name))))
        except NotImplementedError as e:   # can_run declined these arguments
            skipped.append({"function": name, "why": f"declined: {e}"})
        except multiprocessing.TimeoutError:   # its NetworkX calls had not finished by the deadline
            skipped.append({"function": name, "why": f"deadline: NetworkX's calls (in a worker) had not finished "
                                                     f"{args.deadline_s:.0f} s after the start"})
        except Exception as e:   # recorded, and the other functions still run
            runs.append({"algorithm": name, "engine": "networkx-backend", "error": repr(e), "verified": False})
            print(f"{name}: error {e!r}", flush=True)
        record["total_seconds"] = round(time.perf_counter() - started, 1)
        write(args, argv, record)
    record["total_seconds"] = round(time.perf_counter() - started, 1)
    write(args, argv, record)
    if pending:
        pending[None].terminate()   # workers still running a call past the deadline
    return 0 if all(r["verified"] for r in runs) else 1


if __name__ == "__main__":
    raise SystemExit(main())
