"""`graphferry run` and the demo's algorithm steps, through typer's CliRunner."""

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from graphferry.cli import app
from graphferry.generators import kronecker_graph
from graphferry.store import write_store

runner = CliRunner()


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    path = tmp_path_factory.mktemp("run") / "k8.store"
    write_store(kronecker_graph(8, seed=3), path)
    return path


def scipy_graph(store):
    """The stored graph (the fixture's generator output, not read back through graphferry's
    store reader) as a scipy matrix, and its offsets."""
    g = kronecker_graph(8, seed=3)
    return g.to_scipy(), g.offsets


def test_run_bfs_writes_scipys_levels(store, tmp_path):
    import scipy.sparse.csgraph as csgraph

    out = tmp_path / "levels.npy"
    r = runner.invoke(app, ["run", "bfs", str(store), "--source", "3", "--out", str(out), "--backend", "cpu",
                            "--engine", "compaction", "--budget", "64KiB", "--partition-bytes", "4KiB"])
    assert r.exit_code == 0, r.output
    table = np.load(out)
    a, _ = scipy_graph(store)
    d = csgraph.shortest_path(a, unweighted=True, indices=3, directed=True)
    want = np.where(np.isinf(d), -1, d).astype(np.int64)
    assert np.array_equal(table["levels"], want)
    assert np.array_equal(table["vertex"], np.arange(len(want)))


def ldbc_pagerank_scipy(a, offsets, damping: float, iterations: int) -> np.ndarray:
    n = a.shape[0]
    deg = np.diff(offsets).astype(float)
    inv = np.divide(1.0, deg, out=np.zeros(n), where=deg > 0)
    x = np.full(n, 1.0 / n)
    for _ in range(iterations):
        x = (1 - damping) / n + damping * (a.T @ (x * inv)) + damping / n * x[deg == 0].sum()
    return x


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_run_pagerank_ldbc_tables(store, tmp_path, suffix):
    import pyarrow.csv
    import pyarrow.parquet

    out = tmp_path / f"pr{suffix}"
    r = runner.invoke(app, ["run", "pagerank_ldbc", str(store), "--damping", "0.85", "--iterations", "5",
                            "--out", str(out), "--backend", "cpu", "--json"])
    assert r.exit_code == 0, r.output
    summary = json.loads(r.stdout)
    assert summary["iterations"] == 5
    table = (pyarrow.csv.read_csv if suffix == ".csv" else pyarrow.parquet.read_table)(out)
    a, offsets = scipy_graph(store)
    want = ldbc_pagerank_scipy(a, offsets, 0.85, 5)
    ranks = np.empty(len(want))
    ranks[table.column("vertex").to_numpy()] = table.column("ranks").to_numpy()
    np.testing.assert_allclose(ranks, want, rtol=1e-12, atol=0)
    assert summary["values"]["ranks"]["sum"] == pytest.approx(want.sum(), rel=1e-12)


def test_run_record_is_json(store, tmp_path):
    rec = tmp_path / "rec.json"
    r = runner.invoke(app, ["run", "wcc", str(store), "--backend", "cpu", "--record", str(rec)])
    assert r.exit_code == 0, r.output
    data = json.loads(rec.read_text())
    assert data["algorithm"] == "wcc" and data["steps"]


@pytest.mark.parametrize("args, message", [
    (["run", "bfs", "{store}"], "bfs needs --source"),
    (["run", "wcc", "{store}", "--damping", "0.5"], "--damping does not apply to wcc"),
    (["run", "bfs", "{store}", "--source", "100000"], "--source 100000"),
    (["run", "nosuch", "{store}"], "unknown algorithm 'nosuch'"),
    (["run", "wcc", "{store}", "--k", "4"], "--k does not apply to wcc"),
    (["run", "pagerank_ldbc", "{store}", "--damping", "0.85"], "pagerank_ldbc needs --iterations"),
    (["run", "bfs", "{store}", "--source", "1", "--out", "x.txt"], "unsupported file type .txt"),
    (["run", "bfs", "missing.store", "--source", "1"], "missing.store: no such file"),
])
def test_run_errors_are_one_line(store, args, message):
    r = runner.invoke(app, [a.replace("{store}", str(store)) for a in args])
    assert r.exit_code != 0
    assert message in r.stderr and "Traceback" not in r.output + r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


def test_demo_runs_pagerank_and_bfs():
    r = runner.invoke(app, ["demo", "--scale", "8", "--json", "--backend", "cpu"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    # the demo's graph rebuilt by the generator (seed 0, undirected, unweighted) and checked with scipy
    import scipy.sparse.csgraph as csgraph

    g = kronecker_graph(8, seed=0)
    source = int(np.argmax(g.out_degree))
    d = csgraph.shortest_path(g.to_scipy(), unweighted=True, indices=source)
    assert data["bfs"]["values"]["levels"]["reached"] == int(np.isfinite(d).sum())
    assert data["bfs"]["values"]["levels"]["max"] == int(d[np.isfinite(d)].max())
    offsets = g.offsets
    want = ldbc_pagerank_scipy(g.to_scipy(), offsets, 0.85, 500)      # converged
    pr = data["pagerank"]["values"]["ranks"]
    assert pr["argmax"] == int(np.argmax(want))
    assert pr["max"] == pytest.approx(want.max(), abs=4 * 0.85 / 0.15 * 1e-6)   # documented bound at tol 1e-6


def test_run_betweenness_sampled_matches_networkx(store, tmp_path):
    import networkx as nx

    out = tmp_path / "bc.csv"
    r = runner.invoke(app, ["run", "betweenness", str(store), "--out", str(out), "--backend", "cpu",
                            "--param", "k=16", "--param", "seed=5", "--param", "normalized=false", "--json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)["values"]["sources"] == 16
    a, _ = scipy_graph(store)
    directed = json.loads(next(store.rglob("manifest.json")).read_text())["directed"]
    ref = nx.from_scipy_sparse_array(a, create_using=nx.DiGraph if directed else nx.Graph)
    ref.remove_edges_from(nx.selfloop_edges(ref))
    want = nx.betweenness_centrality(ref, k=16, seed=5, normalized=False)
    rows = np.loadtxt(out, delimiter=",", skiprows=1)
    assert np.allclose(rows[:, 1], [want[int(v)] for v in rows[:, 0]])


def test_run_param_errors_are_one_line(store):
    r = runner.invoke(app, ["run", "betweenness", str(store), "--backend", "cpu", "--param", "q=1"])
    assert r.exit_code != 0 and "has no parameter 'q'" in r.output


@pytest.mark.parametrize("method", ["speculative", "jones_plassmann"])
def test_run_coloring_writes_a_proper_colouring(store, tmp_path, method):
    out = tmp_path / "colors.csv"
    r = runner.invoke(app, ["run", "coloring", str(store), "--out", str(out), "--backend", "cpu",
                            "--param", f"method={method}", "--json"])
    assert r.exit_code == 0, r.output
    rows = np.loadtxt(out, delimiter=",", skiprows=1, dtype=np.int64)
    colors = np.empty(len(rows), np.int64)
    colors[rows[:, 0]] = rows[:, 1]
    a, _ = scipy_graph(store)
    a = a.tocoo()
    off_diagonal = a.row != a.col
    assert not np.any(colors[a.row[off_diagonal]] == colors[a.col[off_diagonal]])
    assert json.loads(r.output)["values"]["num_colors"] == colors.max() + 1


def test_run_mst_writes_one_row_per_forest_edge(tmp_path):
    import scipy.sparse as sp
    from scipy.sparse.csgraph import minimum_spanning_tree

    el = tmp_path / "g.el"
    el.write_text("10 20 3\n20 30 1\n10 30 2\n40 50 7\n")
    out = tmp_path / "forest.csv"
    r = runner.invoke(app, ["run", "mst", str(el), "--out", str(out), "--backend", "cpu", "--json"])
    assert r.exit_code == 0, r.output
    lines = out.read_text().splitlines()
    assert lines[0] == "source,target,weight"
    rows = sorted(tuple(x.split(",")) for x in lines[1:])
    assert rows == [("10", "30", "2.0"), ("20", "30", "1.0"), ("40", "50", "7.0")]
    a = sp.csr_array(([3.0, 1.0, 2.0, 7.0], ([0, 1, 0, 3], [1, 2, 2, 4])), shape=(5, 5))
    assert json.loads(r.output)["values"]["total_weight"] == minimum_spanning_tree(a).sum()


def test_run_communities_reports_networkx_modularity(tmp_path):
    import networkx as nx

    G = nx.planted_partition_graph(4, 30, 0.5, 0.005, seed=1)
    el = tmp_path / "pp.el"
    el.write_text("".join(f"{a} {b}\n" for a, b in G.edges()))
    out = tmp_path / "c.csv"
    r = runner.invoke(app, ["run", "communities", str(el), "--out", str(out), "--backend", "cpu", "--json"])
    assert r.exit_code == 0, r.output
    rows = np.loadtxt(out, delimiter=",", skiprows=1, dtype=np.int64)
    groups = {}
    for v, c in rows.tolist():
        groups.setdefault(c, set()).add(v)
    summary = json.loads(r.output)["values"]
    assert np.isclose(summary["modularity"], nx.community.modularity(G, groups.values()))
    assert summary["num_communities"] == len(groups)


def test_cf_command_factorises_a_ratings_file(tmp_path):
    rng = np.random.default_rng(0)
    p, q = rng.random((80, 3)), rng.random((50, 3))
    full = 1 + 4 * (p @ q.T) / 3
    users, items = np.nonzero(rng.random((80, 50)) < 0.35)
    path = tmp_path / "ratings.tsv"
    path.write_text("user item rating\n" + "".join(f"u{a}\ti{b}\t{full[a, b]:.4f}\n" for a, b in zip(users, items)))
    out = tmp_path / "factors.npy"
    r = runner.invoke(app, ["cf", str(path), "--backend", "cpu", "--rank", "6", "--out", str(out), "--json"])
    assert r.exit_code == 0, r.output
    s = json.loads(r.output)
    assert s["users"] == 80 and s["items"] == 50 and s["ratings"] == len(users)
    assert s["test_rmse"] < 0.6 * s["test_rmse_of_the_mean"]
    table = np.load(out)
    assert table.shape == (130,) and table["factors"].shape == (130, 6)
    assert table["kind"][0] == "user" and table["kind"][-1] == "item"


def test_cf_command_reports_a_bad_line(tmp_path):
    path = tmp_path / "bad.tsv"
    path.write_text("1 2 3.5\n1 x\n")
    r = runner.invoke(app, ["cf", str(path), "--backend", "cpu"])
    assert r.exit_code != 0 and "bad.tsv:2" in r.output


def test_every_registry_parameter_is_a_run_flag(store):
    """run's flags come from the algorithm registry: --flag and --param NAME=VALUE give the same run."""
    from graphferry.algorithms import registry

    help_text = runner.invoke(app, ["run", "--help"], terminal_width=200).output
    for spec in registry.ALGORITHMS.values():
        assert spec.name in help_text
        for p in spec.parameters:
            assert "--" + p.name.replace("_", "-") in help_text, p.name
    common = ["run", "coloring", str(store), "--backend", "cpu", "--json"]
    by_flag = runner.invoke(app, common + ["--method", "jones_plassmann", "--order", "random", "--seed", "3"])
    by_param = runner.invoke(app, common + ["--param", "method=jones_plassmann", "--param", "order=random",
                                            "--param", "seed=3"])
    assert by_flag.exit_code == 0 and by_param.exit_code == 0, by_flag.output + by_param.output
    assert json.loads(by_flag.output)["values"] == json.loads(by_param.output)["values"]
    r = runner.invoke(app, ["run", "communities", str(store), "--backend", "cpu", "--json", "--no-refine"])
    assert r.exit_code == 0, r.output
    # a label column is summarised by its registry kind: how many distinct labels
    summary = json.loads(r.output)["values"]
    assert summary["community"]["distinct"] == summary["num_communities"]


def test_engine_choices_come_from_the_engine_registry():
    from graphferry.cli.options import EngineName
    from graphferry.engines import registry

    assert [e.value for e in EngineName] == ["auto", *registry.names()]
    assert "hybrid" in registry.names() and registry.engine_class("hybrid").__name__ == "HybridEngine"
    r = runner.invoke(app, ["run", "bfs", "g.store", "--source", "0", "--engine", "fast"])
    assert r.exit_code == 2 and "'fast' is not one of" in r.stderr


@pytest.mark.parametrize("algorithm, extra", [("bfs", ["--source", "3"]), ("pagerank", ["--tol", "1e-8"]),
                                              ("wcc", []), ("coloring", ["--method", "jones_plassmann"])])
def test_run_check_uses_the_registry_verifier(store, algorithm, extra):
    r = runner.invoke(app, ["run", algorithm, str(store), "--backend", "cpu", "--check", "--json", *extra])
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)["checked"] is True


def test_run_check_fails_a_wrong_result(store, monkeypatch):
    """A result its verifier rejects is a failed run: one error line, exit 1."""
    from graphferry.algorithms import registry

    def wrong(self, graph, result, **params):
        raise AssertionError("level of vertex 7 is 3, expected 2")

    monkeypatch.setattr(registry.AlgorithmSpec, "verify", wrong)
    r = runner.invoke(app, ["run", "bfs", str(store), "--backend", "cpu", "--source", "3", "--check"])
    assert r.exit_code == 1
    assert r.stderr.strip() == "error: --check: the bfs result fails its verifier: level of vertex 7 is 3, expected 2"


def _seeded() -> list[str]:
    from graphferry.algorithms import registry

    return [s.name for s in registry.ALGORITHMS.values() if any(p.name == "seed" for p in s.parameters)]


SEEDED = _seeded()


@pytest.mark.parametrize("algorithm", SEEDED)
@pytest.mark.parametrize("how", [["--seed", "-1"], ["--param", "seed=-1"]])
def test_a_negative_seed_is_refused_in_one_line_naming_the_option(store, algorithm, how):
    """Every algorithm with a seed refuses a negative one the same way, before any work: exit 1
    (a refused option value), one line naming --seed."""
    r = runner.invoke(app, ["run", algorithm, str(store), "--backend", "cpu", *how])
    assert r.exit_code == 1, r.output
    assert r.stderr.strip() == "error: --seed -1: must be at least 0"


@pytest.mark.parametrize("algorithm", SEEDED)
def test_a_negative_seed_is_refused_by_the_python_api(algorithm):
    from graphferry.algorithms import registry

    spec = registry.get(algorithm)
    g = kronecker_graph(4, seed=1)
    with pytest.raises(ValueError, match=f"^{algorithm}: parameter 'seed' must be at least 0, got -1$"):
        spec.function(g, seed=-1, backend="cpu")
    with pytest.raises(ValueError, match="parameter 'seed' must be at least 0"):
        spec.run(g, seed=-1, backend="cpu")
    spec.run(g, seed=0, backend="cpu")


def test_npy_table_is_the_file_np_save_writes(tmp_path, monkeypatch):
    from graphferry.cli import writers

    monkeypatch.setattr(writers, "NPY_CHUNK_ROWS", 7)  # several chunks, the last one short
    rng = np.random.default_rng(1)
    cols = {"vertex": np.array([f"v{i}" for i in range(45)]), "levels": rng.integers(-1, 9, 45),
            "ranks": rng.random(45).astype(np.float32), "parents": rng.integers(0, 45, 45).astype(np.int32)}
    writers.write_table(cols, tmp_path / "t.npy")
    whole = np.empty(45, dtype=[(k, v.dtype) for k, v in cols.items()])
    for k, v in cols.items():
        whole[k] = v
    np.save(tmp_path / "ref.npy", whole)
    assert (tmp_path / "t.npy").read_bytes() == (tmp_path / "ref.npy").read_bytes()
