"""What the NetworkX backend's dispatch costs per call: declining, and the fixed cost when it runs.

On a 10-node path and a 200,000-node random graph (400,000 edges), each figure
the median of ``--repeat`` calls, in milliseconds:

* ``networkx``: the call in NetworkX alone (graphferry not in ``backend_priority``);
* ``declined``: the same call with ``backend_priority = ["graphferry"]`` and
  graphferry declining it (its ``should_run``: fewer than ``min_edges`` edges, a small
  cutoff); ``declined - networkx`` is what automatic dispatch adds (target <= 5 ms);
* ``graphferry``: ``backend="graphferry"`` with the conversion cached on the graph,
  for calls whose own work is O(1) (``is_isolate``; ``has_path`` between neighbours),
  so the time is the fixed cost of running through graphferry (target <= 10 ms);
* ``auto``: the same under automatic dispatch with ``min_edges = 0``;
* ``tiny``: calls that run a graphferry algorithm on the 10-node path (``triangles``,
  ``number_connected_components``, ``pagerank``, ``single_source_dijkstra_path_length``):
  the whole call, conversion cached.

    python bench/networkx_dispatch.py --out bench/results/networkx-dispatch.json

The backend is registered in-process (as ``bench/networkx_pagerank.py`` does).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
import provenance  # noqa: E402

import networkx as nx  # noqa: E402


def median_ms(call, repeat: int) -> float:
    call()  # warm: compiled programs loaded, conversion cached
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        call()
        times.append(time.perf_counter() - t0)
    return round(1000 * statistics.median(times), 4)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "networkx-dispatch.json")
    parser.add_argument("--repeat", type=int, default=21)
    args = parser.parse_args(argv)

    from graphferry.nx_backend import register

    register()
    nx.config.warnings_to_ignore.add("cache")
    cfg = nx.config.backends.graphferry
    cfg.backend = "cpu"
    graphs = {"path10": nx.path_graph(10), "gnm200k": nx.gnm_random_graph(200_000, 400_000, seed=1)}
    rows = []
    for label, G in graphs.items():
        a, b = next(iter(G.edges()))
        calls = {
            "is_isolate": lambda G=G, a=a, **kw: nx.is_isolate(G, a, **kw),
            "has_path": lambda G=G, a=a, b=b, **kw: nx.has_path(G, a, b, **kw),
        }
        bounded = {"single_source_shortest_path_length(cutoff=1)":
                   lambda G=G, a=a, **kw: nx.single_source_shortest_path_length(G, a, cutoff=1, **kw)}
        for name, call in {**calls, **bounded}.items():
            row = {"graph": label, "n": len(G), "edges": G.number_of_edges(), "call": name}
            row["networkx_ms"] = median_ms(call, args.repeat)
            cfg.min_edges = 10**12 if name in calls else 0   # declined by size, or by the small cutoff
            with nx.config.backend_priority(algos=["graphferry"]):
                row["declined_ms"] = median_ms(call, args.repeat)
            row["dispatch_overhead_ms"] = round(row["declined_ms"] - row["networkx_ms"], 4)
            if name in calls:
                row["graphferry_ms"] = median_ms(lambda: call(backend="graphferry"), args.repeat)
                cfg.min_edges = 0
                with nx.config.backend_priority(algos=["graphferry"]):
                    row["auto_ms"] = median_ms(call, args.repeat)
            cfg.min_edges = 100_000
            rows.append(row)
            print(json.dumps(row))
    G = graphs["path10"]
    tiny = {
        "triangles": lambda: nx.triangles(G, backend="graphferry"),
        "number_connected_components": lambda: nx.number_connected_components(G, backend="graphferry"),
        "pagerank": lambda: nx.pagerank(G, backend="graphferry"),
        "single_source_dijkstra_path_length": lambda: nx.single_source_dijkstra_path_length(G, 0, backend="graphferry"),
    }
    tiny_rows = []
    for name, call in tiny.items():
        ms = median_ms(call, args.repeat)
        nx_ms = median_ms(lambda name=name: getattr(nx, name)(G, *([0] if "dijkstra" in name else [])), args.repeat)
        tiny_rows.append({"graph": "path10", "call": name, "graphferry_ms": ms, "networkx_ms": nx_ms})
        print(json.dumps(tiny_rows[-1]))
    doc = provenance.stamp({}, ["bench/networkx_dispatch.py", *(argv if argv is not None else sys.argv[1:])])
    doc.update({
        "what": "NetworkX backend dispatch overhead (declining) and fixed cost (running), medians in ms",
        "machine": {"host_cores": os.cpu_count(), "python": platform.python_version(),
                    "networkx": nx.__version__, "load_average": [round(x, 2) for x in os.getloadavg()]},
        "graphferry_backend": "cpu",
        "runs": rows,
        "tiny_graph_calls": tiny_rows,
    })
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(doc, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
