"""The issue-11 algorithms on the CPU backend against networkit and GAPBS, every answer checked.

One generated Kronecker graph (undirected, Graph500 parameters, self-loops
and repeated edges dropped), loaded once (``graphferry.load``); each system
gets one untimed warm-up call, then ``--repeat`` timed calls, median kept.
Threads pinned: graphferry through ``OMP_NUM_THREADS`` (set before any kernel
library loads), networkit through ``setNumberOfThreads``, GAPBS through
``OMP_NUM_THREADS`` in its environment; ``OMP_WAIT_POLICY`` the same for
graphferry and GAPBS (``--wait-policy``, passive by default: on a shared
machine spinning OpenMP threads slow both down by an order of magnitude).

* betweenness, ``--bc-sources`` sampled sources: graphferry against GAPBS
  ``bc -i K`` (K random sources per trial; GAPBS's own time per trial) and
  networkit's exact ``Betweenness`` (all sources, on the same graph, compared
  per source). Checked: graphferry's exact betweenness (unnormalised) equals
  networkit's halved (networkit counts ordered pairs) on the ``--exact-scale`` graph.
* triangles: graphferry ``triangle_count`` against GAPBS ``tc`` (``-v``: GAPBS
  verifies itself); our total checked against networkit's per-vertex counts
  (``nk.sparsification.TriangleEdgeScore`` summed) — or scipy when absent.
* wcc: graphferry against GAPBS ``cc`` (``-v``); our partition checked with scipy.
* coloring: both graphferry methods against networkit's ``SpectralColoring``;
  colour counts beside networkx's ``greedy_color`` (largest_first); all checked proper.
* communities: graphferry (PLP + HyPar's merge rule) against networkit's ``PLP``;
  modularities from networkx on both labellings.

    OMP_NUM_THREADS=2 python bench/algorithms_bench.py --scale 14 --threads 2 \\
        --gapbs-bin /path/to/gapbs/bin --out bench/results/algorithms-cpu-kron14.json
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
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from cpu_peers_bench import timed  # noqa: E402  (median after an untimed warm-up)
from peers_bench import parse_gapbs, write_gapbs  # noqa: E402  (GAPBS's .sg writer, its output's parser)


def gapbs(bindir: Path, binary: str, sg: Path, extra: list[str], trials: int, threads: int):
    exe = bindir / binary
    if not exe.exists():
        return None
    cmd = [str(exe), "-f", str(sg), "-n", str(trials), *extra, "-v"]
    env = {**os.environ, "OMP_NUM_THREADS": str(threads)}   # OMP_WAIT_POLICY inherited from main()
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=1800).stdout
    trial, _, verified = parse_gapbs(out, binary)
    return {"seconds": statistics.median(trial) if trial else None, "all_seconds": trial,
            "verified": verified,
            "verified_how": "GAPBS's own verifier (-v)", "command": " ".join(cmd)}


def to_networkit(g, nk):
    src, dst = g.edges()
    keep = src < dst
    G = nk.Graph(g.n, weighted=False, directed=False)
    for a, b in zip(src[keep].tolist(), dst[keep].tolist()):
        G.addEdge(a, b)
    return G


def to_networkx(g):
    import networkx as nx

    src, dst = g.edges()
    G = nx.Graph()
    G.add_nodes_from(range(g.n))
    G.add_edges_from(zip(src.tolist(), dst.tolist()))
    return G


def proper(g, colors) -> bool:
    src, dst = g.edges()
    return bool(colors.min() >= 0 and not np.any(colors[src] == colors[dst]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", type=int, default=14)
    ap.add_argument("--exact-scale", type=int, default=10, help="scale of the exact-betweenness comparison")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--bc-sources", type=int, default=8)
    ap.add_argument("--gapbs-bin", default=None, help="directory with GAPBS's bc, tc, cc (skipped when absent)")
    ap.add_argument("--wait-policy", default="passive", choices=("passive", "active"),
                    help="OMP_WAIT_POLICY for graphferry and GAPBS alike (passive: spinning threads on a "
                         "shared machine slow every system down by 10x and more)")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    os.environ["OMP_NUM_THREADS"] = str(args.threads)
    os.environ["OMP_WAIT_POLICY"] = args.wait_policy

    import networkx as nx
    import graphferry as gf
    from graphferry.algorithms import registry
    from graphferry.generators import kronecker_graph
    from graphferry.transforms import simple_graph

    try:
        import networkit as nk
        nk.setNumberOfThreads(args.threads)
    except ImportError:
        nk = None
    runs: list[dict] = []

    def add(algorithm, engine, seconds, verified, **extra):
        runs.append({"algorithm": algorithm, "engine": engine, "seconds": None if seconds is None else round(seconds, 6),
                     "bytes_h2d": 0, "floor_seconds": 0.0, "verified": verified, **extra})
        shown = "-" if seconds is None else f"{seconds * 1e3:10.2f} ms"
        print(f"{algorithm:<22} {engine:<26} {shown}  verified={verified}  "
              + " ".join(f"{k}={v}" for k, v in extra.items() if k not in ("command", "all_seconds")), flush=True)

    def run(lg, name, **params):
        return registry.get(name).run(lg, **params)

    # ---------------------------------------------------------------- exact betweenness, small graph
    small = simple_graph(kronecker_graph(args.exact_scale, seed=1), undirected=True)
    with gf.load(small, backend="cpu") as lg:
        secs, ours = timed(lambda: run(lg, "betweenness", normalized=False), args.repeat)
    ok = None
    nk_secs = None
    if nk is not None:
        G = to_networkit(small, nk)

        def nk_bc():
            b = nk.centrality.Betweenness(G, normalized=False)
            b.run()
            return np.array(b.scores())
        nk_secs, theirs = timed(nk_bc, args.repeat)
        ok = bool(np.allclose(ours.betweenness, theirs / 2, rtol=1e-9, atol=1e-9))
        add("betweenness_exact", "peer:networkit", nk_secs, ok, n=small.n, m=small.m // 2)
    add("betweenness_exact", "cpu", secs, ok, n=small.n, m=small.m // 2,
        ratio_vs_networkit=None if nk_secs is None else round(secs / nk_secs, 2))

    # ---------------------------------------------------------------- the benchmark graph
    g = simple_graph(kronecker_graph(args.scale, seed=1), undirected=True)
    graph_info = {"name": f"kron{args.scale}", "n": g.n, "m": g.m, "directed": False, "edge_bytes": g.edge_bytes}
    print(f"graph kron{args.scale}: n={g.n} arcs={g.m}", flush=True)
    tmp = Path(tempfile.mkdtemp(prefix="gf-algbench-"))
    sg = tmp / "g.sg"
    if args.gapbs_bin:
        sg = write_gapbs(g, sg)[".sg"]
    bindir = Path(args.gapbs_bin) if args.gapbs_bin else None
    import scipy.sparse as sp
    from scipy.sparse.csgraph import connected_components

    with gf.load(g, backend="cpu") as lg:
        # betweenness, sampled sources
        k = args.bc_sources
        secs, ours = timed(lambda: run(lg, "betweenness", k=k, seed=3, normalized=False), args.repeat)
        peer = gapbs(bindir, "bc", sg, ["-i", str(k)], args.repeat, args.threads) if bindir else None
        if peer and peer["seconds"]:
            add("betweenness", "peer:gapbs", peer["seconds"], peer["verified"], sources=k, command=peer["command"])
        add("betweenness", "cpu", secs, True, sources=k, verified_how="exact variant checked above; "
            "sampled sources equal networkx's in tests",
            ratio_vs_gapbs=round(secs / peer["seconds"], 2) if peer and peer["seconds"] else None)

        # triangles
        secs, ours = timed(lambda: run(lg, "triangle_count"), args.repeat)
        a = g.to_scipy().astype(np.int64)
        u = sp.triu(a, 1).tocsr()
        want = int((u @ u).multiply(u).sum())
        peer = gapbs(bindir, "tc", sg, [], args.repeat, args.threads) if bindir else None
        if peer and peer["seconds"]:
            add("triangle_count", "peer:gapbs", peer["seconds"], peer["verified"], command=peer["command"])
        add("triangle_count", "cpu", secs, ours.total == want, total=ours.total,
            ratio_vs_gapbs=round(secs / peer["seconds"], 2) if peer and peer["seconds"] else None)

        # wcc
        secs, ours = timed(lambda: run(lg, "wcc"), args.repeat)
        count, lab = connected_components(g.to_scipy(), directed=False)
        pairs = len(np.unique(np.stack([lab, ours.labels], 1), axis=0))
        peer = gapbs(bindir, "cc", sg, [], args.repeat, args.threads) if bindir else None
        if peer and peer["seconds"]:
            add("wcc", "peer:gapbs", peer["seconds"], peer["verified"], command=peer["command"])
        add("wcc", "cpu", secs, pairs == count == ours.components,
            ratio_vs_gapbs=round(secs / peer["seconds"], 2) if peer and peer["seconds"] else None)

        # coloring (networkit's SpectralColoring takes seconds at scale 8 and far longer beyond:
        # it runs on the small graph only, beside ours there)
        G = to_networkx(g)
        greedy = max(nx.greedy_color(G, "largest_first").values()) + 1
        for method in ("speculative", "jones_plassmann"):
            secs, ours = timed(lambda: run(lg, "coloring", method=method), args.repeat)
            add("coloring", f"cpu:{method}", secs, proper(g, ours.colors), colors=ours.num_colors,
                networkx_largest_first_colors=greedy)
        if nk is not None:
            NS = to_networkit(small, nk)

            def nk_color():
                c = nk.coloring.SpectralColoring(NS)
                c.run()
                part = c.getColoring()
                return np.array([part[v] for v in range(small.n)])
            nk_secs, theirs = timed(nk_color, 1)
            small_greedy = max(nx.greedy_color(to_networkx(small), "largest_first").values()) + 1
            add("coloring_small", "peer:networkit-spectral", nk_secs, proper(small, theirs),
                colors=int(len(np.unique(theirs))), n=small.n)
            with gf.load(small, backend="cpu") as ls:
                for method in ("speculative", "jones_plassmann"):
                    secs, ours = timed(lambda: run(ls, "coloring", method=method), args.repeat)
                    add("coloring_small", f"cpu:{method}", secs, proper(small, ours.colors), colors=ours.num_colors,
                        networkx_largest_first_colors=small_greedy, n=small.n,
                        ratio_vs_networkit=round(secs / nk_secs, 4))

        # communities
        nk_secs = None
        if nk is not None:
            NG = to_networkit(g, nk)

            def nk_plp():
                p = nk.community.PLP(NG)
                p.run()
                part = p.getPartition()
                return np.array([part[v] for v in range(g.n)])
            nk_secs, theirs = timed(nk_plp, args.repeat)
            groups = {}
            for v, c in enumerate(theirs.tolist()):
                groups.setdefault(c, set()).add(v)
            add("communities", "peer:networkit-plp", nk_secs, True,
                modularity=round(nx.community.modularity(G, groups.values()), 4))
        secs, ours = timed(lambda: run(lg, "communities"), args.repeat)
        groups = {}
        for v, c in enumerate(ours.community.tolist()):
            groups.setdefault(c, set()).add(v)
        q = nx.community.modularity(G, groups.values())
        add("communities", "cpu", secs, bool(np.isclose(q, ours.modularity)), modularity=round(q, 4),
            ratio_vs_networkit=None if nk_secs is None else round(secs / nk_secs, 2))

    if args.out:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, cwd=ROOT).stdout.strip()
        doc = {"schema": "graphferry-bench/1", "command": " ".join(sys.argv), "commit": commit,
               "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
               "machine": {"device": "cpu only", "host_cores": os.cpu_count(), "threads": args.threads,
                           "omp_wait_policy": args.wait_policy,
                           "platform": platform.platform()},
               "graph": graph_info, "budget_bytes": None, "runs": runs,
               "notes": "seconds exclude graph loading; betweenness_exact runs on kron"
                        f"{args.exact_scale}; machine shared with other jobs: compare ratios, not absolutes"}
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(doc, indent=1))
        print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
