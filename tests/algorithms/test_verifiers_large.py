"""Every registered algorithm's verifier on a graph whose index products overflow 32 bits.

A verifier matches arcs and vertex pairs by keys such as ``u * n + v``. Result
columns come in the graph's vertex-id width (int32 when n < 2^31), so a product
computed there wraps once ``u * n`` passes 2^31: ``--check`` then rejected every
correct BFS on graphs of more than about 46,000 vertices. The graph here has
n > 2^16 vertices and m > 2^31 / n edges, so almost every such product of two
ids would wrap. Each algorithm runs on it; its own verifier (through the
registry, as ``--check`` calls it) must accept the answer and reject the answer
broken in one place, at a vertex whose id is large. ``dev/mutation_check.py``
holds a mutant per verifier that fails only at this size.
"""

from __future__ import annotations

import json

import networkx as nx
import numpy as np
import pytest
from typer.testing import CliRunner

from graphferry import Graph
from graphferry.algorithms import registry

pytestmark = pytest.mark.slow   # ~25 s on 2 cores: every algorithm and verifier at 70,000 vertices

N = 70_000            # > 2^16
EDGES = 90_000        # undirected edges: 180,000 arcs, and m > 2^31 / N = 30,678
SOURCE = 65_537       # a source above 2^16


CLIQUE = 200          # the last 200 vertices form a clique: a leading eigenvalue (199) far above the
                      # rest, so HITS, Katz and eigenvector centrality converge in a few steps


def random_edges(seed: int = 7) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A sparse random graph (self-loops and repeats dropped) plus a clique, weights 1..9, by numpy."""
    rng = np.random.default_rng(seed)
    ca, cb = np.triu_indices(CLIQUE, 1)
    a = np.r_[rng.integers(0, N, EDGES), N - CLIQUE + ca]
    b = np.r_[rng.integers(0, N, EDGES), N - CLIQUE + cb]
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    keep = lo != hi
    pairs = np.unique(np.stack([lo[keep], hi[keep]], 1), axis=0)
    return pairs[:, 0], pairs[:, 1], rng.integers(1, 10, len(pairs)).astype(np.float32)


@pytest.fixture(scope="module")
def graph() -> Graph:
    a, b, w = random_edges()
    g = Graph.from_edges(a, b, w, n=N, directed=False)
    assert g.n > 2 ** 16 and g.m > 2 ** 31 / g.n and g.indices.dtype == np.int32
    return g


@pytest.fixture(scope="module")
def neighbours(graph) -> nx.Graph:
    a, b, _ = random_edges()
    g = nx.Graph()
    g.add_nodes_from(range(N))
    g.add_edges_from(zip(a.tolist(), b.tolist()))
    return g


PARAMS = {
    "betweenness": {"k": 1, "seed": 1},
    "edge_betweenness": {"k": 1, "seed": 1},     # NetworkX's Brandes from one sampled source (seconds)
    "cdlp": {"max_iterations": 4},
    "pagerank_ldbc": {"damping": 0.85, "iterations": 8},
    "communities": {"max_iterations": 20},
    "katz_centrality": {"alpha": 0.004, "weighted": False},  # alpha below 1 / the leading eigenvalue (199)
}


def high_vertex(mask: np.ndarray) -> int:
    """The largest vertex id where ``mask`` holds (a large id: its products wrap in int32)."""
    return int(np.flatnonzero(mask)[-1])


def broken_bfs(r, g, nb):
    levels, parents = r.values["levels"].copy(), r.values["parents"].copy()
    v = high_vertex(levels >= 2)
    up = set(np.flatnonzero(levels == levels[v] - 1).tolist()) - set(nb[v])
    parents[v] = max(up)            # one level up, but not an in-neighbour
    return {"levels": levels, "parents": parents}


def broken_sssp(r, g, nb):
    d = r.values["distances"].copy()
    v = high_vertex(np.isfinite(d) & (d > 0))
    d[v] += 1.0
    return {"distances": d}


def broken_pagerank(r, g, nb):
    ranks = r.values["ranks"].copy()
    ranks[N - 1] += 1e-4
    return {"ranks": ranks}


def broken_pagerank_ldbc(r, g, nb):
    ranks = r.values["ranks"].copy()
    ranks[N - 1] += 1e-8               # ranks are ~1 / N; the tolerance 1e-10 + 1e-9 relative
    return {"ranks": ranks}


def broken_labels(column):
    def broken(r, g, nb):
        labels = r.values[column].copy()
        v = high_vertex(labels != labels[-1])
        labels[v] = labels[-1] if labels[-1] != labels[v] else labels[v] + 1
        return {column: labels}
    return broken


def broken_lcc(r, g, nb):
    lcc = r.values["lcc"].copy()
    lcc[high_vertex(lcc > 0)] /= 2
    return {"lcc": lcc}


def broken_triangles(r, g, nb):
    t = r.values["triangles"].copy()
    t[high_vertex(t > 0)] -= 1
    return {"triangles": t}


def broken_betweenness(r, g, nb):
    b = r.values["betweenness"].copy()
    b[high_vertex(b > 0)] *= 1.01
    return {"betweenness": b}


def broken_coloring(r, g, nb):
    c = r.values["colors"].copy()
    v = high_vertex(np.array([len(nb[u]) > 0 for u in range(N)]))
    c[v] = c[max(nb[v])]                 # the colour of a neighbour
    return {"colors": c}


def broken_mst(r, g, nb):
    """The forest's heaviest edge at a large vertex swapped for the heaviest graph edge beside it."""
    src, dst, w = (r.edges[k].copy() for k in ("source", "target", "weight"))
    i = high_vertex(np.maximum(src, dst) > 2 ** 16)
    v = int(max(src[i], dst[i]))
    u = max(x for x in nb[v] if x not in (src[i], dst[i]))
    src[i], dst[i], w[i] = u, v, w[i] + 100.0     # not the graph's weight of that edge
    r.edges = {"source": src, "target": dst, "weight": w}
    return {}


def broken_communities(r, g, nb):
    c = r.values["community"].copy()
    v = high_vertex(c != np.arange(N))         # a vertex in a community it does not name
    c[v] = v                                   # alone now: a valid naming, a different modularity
    return {"community": c}


def broken_scores(column, factor=1.01):
    def broken(r, g, nb):
        x = r.values[column].copy()
        x[high_vertex(x > 0)] *= factor
        return {column: x}
    return broken


def broken_core_number(r, g, nb):
    core = r.values["core"].copy()
    core[high_vertex(core > 0)] += 1
    return {"core": core}


def broken_jaccard(r, g, nb):
    """One pair's coefficient halved at a large vertex."""
    c = r.edges["coefficient"].copy()
    c[high_vertex((np.maximum(r.edges["source"], r.edges["target"]) > 2 ** 16) & (c > 0))] /= 2
    r.edges = {**r.edges, "coefficient": c}
    return {}


def broken_edge_betweenness(r, g, nb):
    """One arc's betweenness raised at a large vertex."""
    x = r.edges["betweenness"].copy()
    x[high_vertex((np.maximum(r.edges["source"], r.edges["target"]) > 2 ** 16) & (x > 0))] *= 1.01
    r.edges = {**r.edges, "betweenness": x}
    return {}


def broken_k_truss(r, g, nb):
    """The truss's edge at the largest vertex left out."""
    src, dst = r.edges["source"], r.edges["target"]
    keep = np.arange(len(src)) != high_vertex(np.maximum(src, dst) > 2 ** 16)
    r.edges = {name: column[keep] for name, column in r.edges.items()}
    return {}


BROKEN = {
    "bfs": broken_bfs, "sssp": broken_sssp, "pagerank": broken_pagerank, "pagerank_ldbc": broken_pagerank_ldbc,
    "wcc": broken_labels("labels"), "cdlp": broken_labels("labels"), "lcc": broken_lcc,
    "triangle_count": broken_triangles, "betweenness": broken_betweenness, "coloring": broken_coloring,
    "mst": broken_mst, "communities": broken_communities, "core_number": broken_core_number,
    "eigenvector_centrality": broken_scores("centrality"),
    "katz_centrality": broken_scores("centrality"), "hits": broken_scores("hubs"),
    "jaccard_coefficient": broken_jaccard, "edge_betweenness": broken_edge_betweenness,
    "k_truss": broken_k_truss, "label_propagation": broken_labels("labels"),
    "louvain": broken_communities,
}


def test_every_registered_algorithm_has_a_broken_answer():
    missing = sorted(set(registry.names()) - set(BROKEN))
    assert not missing, f"add a broken answer (and PARAMS if needed) for {', '.join(missing)} to BROKEN here"
    assert sorted(BROKEN) == sorted(registry.names())


@pytest.mark.parametrize("name", registry.names())
def test_verifier_accepts_the_answer_and_rejects_a_broken_one(graph, neighbours, name):
    spec = registry.get(name)
    params = PARAMS.get(name, {})
    r = spec.run(graph, source=SOURCE if spec.takes_source else None, backend="cpu", **params)
    spec.verify(graph, r, **params)
    for column, values in BROKEN[name](r, graph, neighbours).items():
        r.values[column] = values
    with pytest.raises(AssertionError):
        spec.verify(graph, r, **params)


def test_run_bfs_check_accepts_a_correct_answer_past_2_to_the_16_vertices(graph, tmp_path):
    """`graphferry run bfs STORE --check` on the large graph: exit 0, the result checked."""
    from graphferry.cli import app
    from graphferry.store import write_store

    store = tmp_path / "big.store"
    write_store(graph, store)
    r = CliRunner().invoke(app, ["run", "bfs", str(store), "--backend", "cpu", "--source", str(SOURCE),
                                 "--check", "--json"])
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert out["checked"] is True
