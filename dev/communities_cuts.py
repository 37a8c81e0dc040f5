#!/usr/bin/env python
"""How far HyPar's communities fall from networkx's label propagation, cut by cut.

For each graph of the chosen families, networkx's ``asyn_lpa_communities`` modularity (mean of
seeds 0-2) is the reference; HyPar runs with two CPU executors (one with a small simulated
device arena, as in CI) split at every given share of the edges (0.05, 0.10, ..., 0.95 by
default), ``--repeat`` times each (runs differ: threads, and the parts stop when iteration
times stop falling). The gap is networkx's modularity minus ours (positive: ours is lower).
Prints the worst runs and the distribution of the gaps; ``--single`` instead runs the plain
``communities`` (seeds 0-2, with and without the merge rule) and HyPar with one executor.

Families: ``planted57`` (networkx planted partitions 6 x 40, p_in 0.4, p_out 0.004, seeds
1-3: the 57 cuts of tests/hypar/test_hypar.py), ``plantedwide`` (the same with seeds 4-23, and 12
planted partitions of 2-8 groups of 30-60, p_in 0.3/0.5, p_out 0.002/0.005), ``kron``
(Kronecker scales 9-11) and ``real`` (the shared datasets: karate, les_miserables,
minnesota_road, roget, wormnet_v3, metis_4elt; needs ../shared).

    python dev/communities_cuts.py planted57 plantedwide --repeat 3
    python dev/communities_cuts.py real --single
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
DATASETS = ROOT.parent / "shared" / "datasets"


def families(name: str):
    """(name, networkx graph or Graph) pairs of family ``name``."""
    import networkx as nx

    from graphferry import Graph
    from graphferry.generators import kronecker_graph

    if name == "planted57":
        for s in (1, 2, 3):
            yield f"pp6x40-{s}", nx.planted_partition_graph(6, 40, 0.4, 0.004, seed=s)
    elif name == "plantedwide":
        for s in range(4, 24):
            yield f"pp6x40-{s}", nx.planted_partition_graph(6, 40, 0.4, 0.004, seed=s)
        rng = np.random.default_rng(11)
        for i in range(12):
            k, size = int(rng.integers(2, 9)), int(rng.integers(30, 61))
            p_in, p_out = [0.3, 0.5][int(rng.integers(2))], [0.002, 0.005][int(rng.integers(2))]
            yield f"pp{k}x{size}-{p_in}-{p_out}-{i}", nx.planted_partition_graph(k, size, p_in, p_out, seed=100 + i)
    elif name == "kron":
        for scale, s in ((9, 1), (10, 2), (11, 3)):
            yield f"kron{scale}-{s}", kronecker_graph(scale, seed=s)
    elif name == "real":
        for stem in ("karate", "les_miserables", "minnesota_road", "roget", "wormnet_v3", "metis_4elt"):
            path = DATASETS / f"{stem}.el"
            header = path.open().readline()
            e = np.loadtxt(path, comments="#", ndmin=2)
            n = int(header.split("n=")[1].split()[0].strip("|"))
            yield stem, Graph.from_edges(e[:, 0].astype(np.int64), e[:, 1].astype(np.int64), n=n,
                                         directed="| directed" in header)
    else:
        raise SystemExit(f"communities_cuts: unknown family {name!r} (planted57, plantedwide, kron, real)")


def as_pair(obj):
    """(networkx undirected simple graph, Graph) of a networkx graph or a Graph."""
    import networkx as nx

    from graphferry import Graph

    if isinstance(obj, nx.Graph):
        e = np.array(list(obj.edges()), dtype=np.int64).reshape(-1, 2)
        obj = Graph.from_edges(e[:, 0], e[:, 1], n=obj.number_of_nodes(), directed=False)
    G = nx.Graph()
    G.add_nodes_from(range(obj.n))
    src, dst = obj.edges()
    G.add_edges_from((a, b) for a, b in zip(src.tolist(), dst.tolist()) if a != b)
    return G, obj


def main() -> None:
    warnings.filterwarnings("ignore")
    import networkx as nx

    from graphferry.algorithms.communities import communities
    from graphferry.hypar import HyparExecutor as Executor, hypar

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("families", nargs="+")
    ap.add_argument("--step", type=float, default=0.05, help="shares step (default 0.05: 19 cuts)")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--single", action="store_true", help="the plain algorithm and one executor instead")
    ap.add_argument("--out", help="write every (gap, graph, cut) as JSON")
    a = ap.parse_args()
    two = [Executor("cpu"), Executor("cpu", engine="compaction", budget=1 << 16, partition_bytes=256)]
    rows = []
    t0 = time.perf_counter()
    for family in a.families:
        for name, obj in families(family):
            G, g = as_pair(obj)
            want = float(np.mean([nx.community.modularity(G, nx.community.asyn_lpa_communities(G, seed=s))
                                  for s in range(3)]))
            if a.single:
                for s in range(3):
                    for refine in (True, False):
                        q = communities(g, seed=s, refine=refine, backend="cpu").modularity
                        rows.append((want - q, name, f"{'refine' if refine else 'plain'}-seed{s}"))
                rows.append((want - hypar(g, "communities", two[:1], threshold_edges=0).scalars["modularity"],
                             name, "hypar-one"))
                continue
            for share in np.round(np.arange(a.step, 1 - 1e-9, a.step), 3).tolist():
                for _ in range(a.repeat):
                    r = hypar(g, "communities", two, threshold_edges=0, shares=[share, 1 - share])
                    rows.append((want - r.scalars["modularity"], name, share))
    gaps = np.array([r[0] for r in rows])
    rows.sort(key=lambda r: -r[0])
    print("worst:", [(round(r[0], 4), r[1], r[2]) for r in rows[:8]])
    print(f"runs {len(gaps)}: gap > 0.05 in {int((gaps > 0.05).sum())}, < -0.05 in {int((gaps < -0.05).sum())}; "
          f"quantiles 0/25/50/75/90/99/100%: {np.round(np.quantile(gaps, [0, .25, .5, .75, .9, .99, 1]), 4).tolist()}; "
          f"mean {gaps.mean():+.4f}; {time.perf_counter() - t0:.1f} s")
    if a.out:
        Path(a.out).write_text(json.dumps(rows))


if __name__ == "__main__":
    main()
