"""NetworkX's functions against ``backend="graphferry"`` on a NetworkX graph of about 1 M edges, conversion included.

For each function (``--functions``), on an undirected uniform random graph
(100,000 nodes, about 1 M distinct edges, built as a NetworkX user builds one):

* ``networkx``: NetworkX's own implementation (median of ``--repeat-networkx`` calls);
* ``graphferry_cold``: ``backend="graphferry"`` with the graph's conversion cache
  emptied before every call, so each call converts the graph (what a user's
  first call on a graph pays; median of ``--repeat`` calls);
* ``graphferry_warm``: the conversion already cached on ``G`` (later calls).

Every graphferry answer is compared with NetworkX's in the same run (``verified``:
equal, or within the stated tolerance). graphferry's kernels are compiled (and
cached on disk) by a warm-up call on a small graph before timing. Generators
(``jaccard_coefficient``) are consumed in full in both timings.

    python bench/networkx_algorithms_bench.py --out bench/results/networkx-algorithms.json

New functions add one entry to :data:`CASES`: how to call it, and how to compare
the two answers. OpenMP threads wait passively (``OMP_WAIT_POLICY=passive`` unless
set): on a 2-core machine shared with other jobs, threads spinning at each
barrier made a 1M-edge ``core_number`` (99 short maps) 3.0 s instead of 0.4 s.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np

os.environ.setdefault("OMP_WAIT_POLICY", "passive")   # before graphferry loads OpenMP (see the docstring)

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
import provenance  # noqa: E402  (commit, dirty, diff hash, command: issue 35)

import networkx as nx  # noqa: E402

from graphferry.generators import uniform_random_edges  # noqa: E402


def build(n: int, samples: int, seed: int) -> nx.Graph:
    """An undirected NetworkX graph of about ``samples`` distinct edges (self-loops and repeats dropped)."""
    src, dst = next(uniform_random_edges(n, samples, seed=seed, chunk_edges=samples))
    G = nx.Graph(name="uniform")
    G.add_nodes_from(range(n))
    G.add_edges_from(zip(src.tolist(), dst.tolist()))
    G.remove_edges_from(nx.selfloop_edges(G))
    return G


def max_difference(a: dict, b: dict) -> float:
    assert list(a) == list(b), "keys or their order differ"
    return max((abs(a[k] - b[k]) for k in a), default=0.0)


def same_dict(got, want) -> tuple[bool, str]:
    return got == want and list(got) == list(want), "equal dicts, same order"


def same_graph(got, want) -> tuple[bool, str]:
    same = nx.utils.graphs_equal(got, want) and list(got.edges(data=True)) == list(want.edges(data=True))
    return same, f"equal graphs ({want.number_of_edges():,} edges), attributes and order"


def close_dict(tol: float) -> Callable[[Any, Any], tuple[bool, str]]:
    def check(got, want):
        d = max_difference(got, want)
        return d <= tol, f"largest difference {d:.2e} (tolerance {tol:g})"
    return check


def close_pair_of_dicts(tol: float) -> Callable[[Any, Any], tuple[bool, str]]:
    def check(got, want):
        d = max(max_difference(got[0], want[0]), max_difference(got[1], want[1]))
        return d <= tol, f"largest difference {d:.2e} (tolerance {tol:g})"
    return check


def close_triples(tol: float) -> Callable[[Any, Any], tuple[bool, str]]:
    def check(got, want):
        same_pairs = [(u, v) for u, v, _ in got] == [(u, v) for u, v, _ in want]
        d = max((abs(p - q) for (*_, p), (*_, q) in zip(got, want)), default=0.0)
        return same_pairs and d <= tol, f"same pairs in the same order: {same_pairs}; largest difference {d:.2e}"
    return check


def jaccard_pairs(G: nx.Graph, count: int, seed: int) -> list:
    """``count`` pairs for jaccard_coefficient: edges of G and random pairs, half each."""
    rng = np.random.default_rng(seed)
    edges = list(G.edges())
    picked = [edges[i] for i in rng.choice(len(edges), count // 2, replace=False).tolist()]
    n = len(G)
    return picked + list(zip(rng.integers(0, n, count - count // 2).tolist(),
                             rng.integers(0, n, count - count // 2).tolist()))


#: name -> (call(G, backend_kwargs, context) -> answer, compare(graphferry, networkx) -> (ok, how))
CASES: dict[str, tuple[Callable, Callable]] = {
    "core_number": (lambda G, b, c: nx.core_number(G, **b), same_dict),
    "eigenvector_centrality": (lambda G, b, c: nx.eigenvector_centrality(G, **b), close_dict(1e-12)),
    # alpha below 1 / lambda_max (about 21 here, the mean degree plus one): NetworkX's default 0.1 diverges
    "katz_centrality": (lambda G, b, c: nx.katz_centrality(G, alpha=0.01, **b), close_dict(1e-12)),
    "hits": (lambda G, b, c: nx.hits(G, **b), close_pair_of_dicts(1e-6)),
    "jaccard_coefficient": (lambda G, b, c: list(nx.jaccard_coefficient(G, c["pairs"], **b)), close_triples(1e-12)),
    # exact edge betweenness is n searches (hours in NetworkX here): 16 sampled sources, NetworkX's draw
    "edge_betweenness_centrality": (lambda G, b, c: nx.edge_betweenness_centrality(G, k=16, seed=1, **b),
                                    close_dict(1e-12)),
    "k_truss": (lambda G, b, c: nx.k_truss(G, 4, **b), same_graph),
}


def median_seconds(fn, repeat: int) -> tuple[float, list[float], Any]:
    times, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), [round(t, 4) for t in times], out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--functions", nargs="+", default=list(CASES), choices=list(CASES))
    parser.add_argument("--nodes", type=int, default=100_000)
    parser.add_argument("--edges", type=int, default=1_000_000, help="edges sampled (repeats dropped)")
    parser.add_argument("--pairs", type=int, default=1_000_000,
                        help="pairs given to jaccard_coefficient (default: as many as the edges)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--repeat-networkx", type=int, default=1, help="NetworkX takes seconds to minutes a call")
    parser.add_argument("--backend", default="auto", help="graphferry backend (auto: a GPU when there is one)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)

    from graphferry.nx_backend import register

    register()
    nx.config.backends.graphferry.backend = args.backend
    nx.config.warnings_to_ignore.add("cache")
    small = nx.gnm_random_graph(200, 800, seed=0)
    for name in args.functions:   # compile every program once (the disk cache keeps them)
        call, _ = CASES[name]
        call(small, {"backend": "graphferry"}, {"pairs": list(small.edges())})

    load_before = os.getloadavg()[0]
    G = build(args.nodes, args.edges, args.seed)
    context = {"pairs": jaccard_pairs(G, args.pairs, args.seed)}
    graph = {"name": "uniform", "n": G.number_of_nodes(), "edges": G.number_of_edges(), "directed": False}
    print(f"graph: n={graph['n']:,} edges={graph['edges']:,}", flush=True)
    runs = []
    for name in args.functions:
        call, compare = CASES[name]
        gf = {"backend": "graphferry"}

        def cold():
            G.__networkx_cache__.clear()
            return call(G, gf, context)

        cold_s, cold_all, got = median_seconds(cold, args.repeat)
        warm_s, warm_all, _ = median_seconds(lambda: call(G, gf, context), args.repeat)
        G.__networkx_cache__.clear()
        nx_s, nx_all, want = median_seconds(lambda: call(G, {}, context), args.repeat_networkx)
        ok, how = compare(got, want)
        row = {"algorithm": name, "engine": "networkx-backend", "graph": graph,
               "networkx_seconds": round(nx_s, 4), "graphferry_cold_seconds": round(cold_s, 4),
               "graphferry_warm_seconds": round(warm_s, 4), "seconds": round(cold_s, 4),
               # the first call on the graph (its conversion included): issue 35's first call
               "first_seconds": round(cold_all[0], 4),
               "speedup_cold": round(nx_s / cold_s, 1), "speedup_warm": round(nx_s / warm_s, 1),
               "all_seconds": {"networkx": nx_all, "graphferry_cold": cold_all, "graphferry_warm": warm_all},
               "verified": bool(ok), "verified_how": f"against NetworkX's answer in the same run: {how}"}
        if name == "jaccard_coefficient":
            row["pairs"] = len(context["pairs"])
        runs.append(row)
        print(f"{name}: networkx {nx_s:.3f} s, graphferry cold {cold_s:.3f} s ({row['speedup_cold']}x), "
              f"warm {warm_s:.3f} s ({row['speedup_warm']}x); {how}", flush=True)

    if args.out:
        record = {
            **provenance.stamp({}, ["bench/networkx_algorithms_bench.py",
                                    *(argv if argv is not None else sys.argv[1:])]),
            "date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "machine": {"device": "cpu", "host_cores": os.cpu_count(), "python": platform.python_version(),
                        "networkx": nx.__version__, "note": "CI-class machine shared with other jobs: medians",
                        "load_average_before_after": [round(load_before, 1), round(os.getloadavg()[0], 1)]},
            "graphferry_backend": args.backend,
            "runs": runs,
        }
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(record, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
