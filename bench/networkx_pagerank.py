"""``nx.pagerank(G)`` against ``nx.pagerank(G, backend="graphferry")`` on NetworkX graphs of about 1 M edges.

For each graph (built as a NetworkX user builds one: ``G.add_edges_from`` of an
edge list), three timings, each the median of ``--repeat`` calls:

* ``networkx``: NetworkX's default PageRank (scipy power iteration, tol 1e-6);
* ``graphferry_cold``: ``backend="graphferry"`` with the graph's conversion
  cache emptied before every call, so each call converts the graph
  (conversion included, the first call a user makes);
* ``graphferry_warm``: the converted graph is in NetworkX's cache on ``G``
  (every later call on the same graph);
* ``graphferry_first_call``: the first call in a fresh Python process that
  has built ``G``: importing graphferry, loading its compiled programs from the
  disk cache, converting and running (bytecode cached, as in an installed package).

plus the conversion alone, and the accuracy of both answers: the L1 distance
to a float64 power iteration run to 1e-15 (scipy, not graphferry), which NetworkX's
stopping rule bounds by ``alpha / (1 - alpha) * len(G) * tol``. graphferry's
kernels are compiled (and cached on disk) by a warm-up call before timing.

    python bench/networkx_pagerank.py --out bench/results/networkx-pagerank.json

It installs nothing: graphferry's backend is registered in-process the way
NetworkX's test suite registers one (``tests/nx/test_networkx_backend.py`` and
``bench/networkx_tests.py`` check the entry points of a real install).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
import provenance  # noqa: E402  (commit, dirty, diff hash, command: issue 35)

import networkx as nx  # noqa: E402

from graphferry.generators import kronecker_edges, uniform_random_edges  # noqa: E402


def build(kind: str, seed: int) -> nx.Graph:
    """An undirected NetworkX graph of about 1 M distinct edges (self-loops and repeats dropped)."""
    if kind == "uniform":
        n, samples = 100_000, 1_000_000
        src, dst = next(uniform_random_edges(n, samples, seed=seed, chunk_edges=samples))
    elif kind == "kronecker":
        n, samples = 2**16, 16 * 2**16 + 2**18
        src, dst = next(kronecker_edges(16, samples // 2**16, seed=seed, chunk_edges=samples * 2))
    else:
        raise ValueError(kind)
    G = nx.Graph(name=kind)
    G.add_nodes_from(range(n))
    G.add_edges_from(zip(src.tolist(), dst.tolist()))
    G.remove_edges_from(nx.selfloop_edges(G))
    return G


def reference(G: nx.Graph, alpha: float = 0.85) -> np.ndarray:
    A = nx.to_scipy_sparse_array(G, dtype=float, format="csr")
    n = A.shape[0]
    out = np.asarray(A.sum(axis=1)).ravel()
    inv = np.divide(1.0, out, out=np.zeros(n), where=out > 0)
    AT = A.T.tocsr()
    sink = out == 0
    x = np.full(n, 1.0 / n)
    for _ in range(10_000):
        nxt = (1 - alpha) / n + alpha * (AT @ (x * inv)) + alpha / n * x[sink].sum()
        done = np.abs(nxt - x).sum() < 1e-15
        x = nxt
        if done:
            break
    return x


def median_seconds(fn, repeat: int) -> tuple[float, list[float], object]:
    times, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), [round(t, 4) for t in times], out


FIRST_CALL = """
import sys, time
import numpy as np
import networkx as nx
saved = np.load({edges!r})
G = nx.Graph()
G.add_nodes_from(saved["nodes"].tolist())
G.add_edges_from(saved["edges"].tolist())
t0 = time.perf_counter()
sys.path.insert(0, {src!r})
from graphferry.nx_backend import register
register()
nx.config.backends.graphferry.backend = {backend!r}
nx.pagerank(G, backend="graphferry")
print(time.perf_counter() - t0)
"""


def first_call_seconds(G: nx.Graph, backend: str, repeat: int) -> tuple[float, list[float]]:
    """Median over fresh processes (holding the same graph) of the time from importing graphferry to the answer."""
    import tempfile

    times = []
    with tempfile.TemporaryDirectory(prefix="gf-first-call-") as tmp:
        edges = os.path.join(tmp, "graph.npz")
        np.savez(edges, nodes=np.fromiter(G, np.int64, count=len(G)), edges=np.array(G.edges(), np.int64))
        code = FIRST_CALL.format(edges=edges, src=str(ROOT / "src"), backend=backend)
        env = {**os.environ, "PYTHONPYCACHEPREFIX": os.path.join(tmp, "pyc")}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        for i in range(repeat + 1):  # the first run writes the bytecode cache and is not counted
            out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
            if i:
                times.append(float(out.stdout.split()[-1]))
    return statistics.median(times), [round(t, 4) for t in times]


def l1(result: dict, nodes: list, ref: np.ndarray) -> float:
    return float(np.abs(np.array([result[v] for v in nodes]) - ref).sum())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graphs", nargs="+", default=["uniform", "kronecker"])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--repeat-networkx", type=int, default=3)
    parser.add_argument("--repeat-first-call", type=int, default=3, help="fresh processes per graph")
    parser.add_argument("--backend", default="auto", help="graphferry backend (auto: a GPU when there is one)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)

    from graphferry.nx_backend import register

    register()
    from graphferry.nx_backend.graph import from_networkx

    nx.config.backends.graphferry.backend = args.backend
    nx.config.warnings_to_ignore.add("cache")
    nx.pagerank(nx.gnm_random_graph(100, 400, seed=0), backend="graphferry")  # compile the kernels once

    load_before = os.getloadavg()[0]
    runs = []
    for kind in args.graphs:
        G = build(kind, args.seed)
        nodes = list(G)
        ref = reference(G)
        nx_s, nx_all, nx_result = median_seconds(lambda: nx.pagerank(G), args.repeat_networkx)

        def cold():
            G.__networkx_cache__.clear()
            return nx.pagerank(G, backend="graphferry")

        cold_s, cold_all, gf_result = median_seconds(cold, args.repeat)
        warm_s, warm_all, _ = median_seconds(lambda: nx.pagerank(G, backend="graphferry"), args.repeat)
        conv_s, conv_all, _ = median_seconds(lambda: from_networkx(G, {"weight": 1}), args.repeat)
        first_s, first_all = first_call_seconds(G, args.backend, args.repeat_first_call)
        assert list(gf_result) == list(nx_result)
        row = {
            "graph": {"name": kind, "n": G.number_of_nodes(), "edges": G.number_of_edges(), "directed": False},
            # issue 35's pair: the median warm call, and the first call in a fresh process
            "seconds": round(warm_s, 4), "first_seconds": round(first_s, 4),
            "networkx_seconds": round(nx_s, 4),
            "graphferry_cold_seconds": round(cold_s, 4),
            "graphferry_warm_seconds": round(warm_s, 4),
            "conversion_seconds": round(conv_s, 4),
            "graphferry_first_call_seconds": round(first_s, 4),
            "speedup_cold": round(nx_s / cold_s, 1),
            "speedup_warm": round(nx_s / warm_s, 1),
            "speedup_first_call": round(nx_s / first_s, 1),
            "all_seconds": {"networkx": nx_all, "graphferry_cold": cold_all, "graphferry_warm": warm_all,
                            "conversion": conv_all, "graphferry_first_call": first_all},
            "l1_error_networkx": l1(nx_result, nodes, ref),
            "l1_error_graphferry": l1(gf_result, nodes, ref),
            "l1_error_bound_of_networkx_rule": 0.85 / 0.15 * len(G) * 1e-6,
            "verified": l1(gf_result, nodes, ref) <= 0.85 / 0.15 * len(G) * 1e-6,
        }
        runs.append(row)
        print(f"{kind}: n={row['graph']['n']:,} edges={row['graph']['edges']:,}  networkx {nx_s:.3f} s  "
              f"graphferry cold {cold_s:.3f} s ({row['speedup_cold']}x), warm {warm_s:.3f} s "
              f"({row['speedup_warm']}x), conversion {conv_s:.3f} s, first call in a fresh process {first_s:.3f} s "
              f"({row['speedup_first_call']}x); L1 error networkx "
              f"{row['l1_error_networkx']:.2e}, graphferry {row['l1_error_graphferry']:.2e}")
        del G

    if args.out:
        record = {
            **provenance.stamp({}, ["bench/networkx_pagerank.py", *(argv if argv is not None else sys.argv[1:])]),
            "date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "machine": {"device": "cpu", "host_cores": os.cpu_count(), "python": platform.python_version(),
                        "networkx": nx.__version__, "note": "CI-class machine shared with other jobs: medians",
                        "load_average_before_after": [round(load_before, 1), round(os.getloadavg()[0], 1)]},
            "graphferry_backend": args.backend,
            "runs": [{"algorithm": "pagerank", "engine": "networkx-backend", **r} for r in runs],
        }
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(record, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
