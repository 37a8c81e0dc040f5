"""Issue 35: results files name the tree that ran, peers are checked or marked unchecked, every
run has its first call and its median, modelled bytes say so, and README's figures come from
the files.

bench/check_results.py holds every committed results file of schema ``graphferry-bench/2`` to
those rules (no GPU needed); these tests run it on the committed files and feed it documents
broken one rule at a time, check the provenance stamp against a changed tree, and the peers'
answer readers and checks against wrong answers.
"""

from __future__ import annotations

import copy
import json
import sys
import time
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "dev"))

import check_results  # noqa: E402
import provenance  # noqa: E402


def test_every_committed_results_file_passes_the_check():
    found = []
    for path in sorted((ROOT / "bench" / "results").glob("*.json")):
        found += check_results.problems(json.loads(path.read_text()), path.name)
    assert not found, "\n".join(found)


GOOD = {
    "schema": "graphferry-bench/2", "commit": "0" * 40, "dirty": True, "diff_hash": "ab" * 32,
    "command": "python bench/peers_bench.py --scales 25",
    "runs": [
        {"algorithm": "bfs", "engine": "hybrid", "seconds": 0.03, "first_seconds": 0.2, "bytes_h2d": 10,
         "bytes_h2d_how": "modelled", "verified": True},
        {"algorithm": "bfs", "engine": "peer:gapbs", "seconds": 0.1, "first_seconds": 0.12, "verified": True,
         "command": "bfs -f g.sg -n 3 -r 5 -v"},
        {"algorithm": "sssp", "engine": "peer:emogi-gpu", "seconds": 0.1, "first_seconds": 0.1, "verified": False,
         "verified_how": "unchecked: no per-vertex output"},
        {"algorithm": "pagerank", "engine": "hybrid", "seconds": 1.0, "first_seconds": 1.2, "verified": True,
         "l1_to_fixed_point": 1e-3, "l1_bound": 2.27e-3},
        {"algorithm": "wcc", "engine": "zerocopy", "error": "RuntimeError: boom", "verified": False},
    ],
}


def _broken(edit):
    doc = copy.deepcopy(GOOD)
    edit(doc)
    return doc


BROKEN = {
    "no commit": lambda d: d.pop("commit"),
    "commit not an id": lambda d: d.update(commit="unknown"),
    "no dirty flag": lambda d: d.pop("dirty"),
    "dirty without its hash": lambda d: d.pop("diff_hash"),
    "no command": lambda d: d.update(command=""),
    "no first call": lambda d: d["runs"][0].pop("first_seconds"),
    "no median": lambda d: d["runs"][1].pop("seconds"),
    "peer neither checked nor marked": lambda d: d["runs"][2].update(verified_how="EMOGI prints nothing"),
    "GAPBS without -v": lambda d: d["runs"][1].update(command="bfs -f g.sg -n 3 -r 5"),
    "bytes without how": lambda d: d["runs"][0].pop("bytes_h2d_how"),
    "bytes how unknown": lambda d: d["runs"][0].update(bytes_h2d_how="guessed"),
    "delta PageRank beyond its bound": lambda d: d["runs"][3].update(l1_to_fixed_point=0.01),
    "delta PageRank without a bound": lambda d: d["runs"][3].pop("l1_bound"),
    "failed run marked verified": lambda d: d["runs"][4].update(verified=True),
}


def test_the_check_passes_a_good_document():
    assert check_results.problems(GOOD, "good", check_commit=False) == []


@pytest.mark.parametrize("rule", sorted(BROKEN))
def test_the_check_rejects_a_document_breaking_one_rule(rule):
    assert check_results.problems(_broken(BROKEN[rule]), "bad", check_commit=False), rule


def test_the_check_rejects_a_commit_not_in_history_and_leaves_schema_1_alone():
    if check_results.commit_known("HEAD") is None:
        pytest.skip("no .git here")
    assert check_results.problems(GOOD, "x") == [f"x: commit {'0' * 40} is not in this repository's history"]
    head = provenance.from_git()["commit"]
    assert check_results.problems(dict(GOOD, commit=head), "x") == []
    assert check_results.problems({"schema": "graphferry-bench/1", "runs": [{"engine": "peer:x"}]}) == []


def test_the_check_rejects_the_old_schema_written_after_the_rules_began():
    old = {"schema": "graphferry-bench/1", "runs": [{"engine": "peer:x"}]}
    assert check_results.problems(dict(old, date="2026-11-28T23:00:00Z"), "x") == []
    assert check_results.problems(dict(old, date="2026-11-29T05:10:31Z"), "x")
    assert check_results.problems(dict(old, date="2026-11-29T06:00:00"), "x")  # no zone: UTC
    name = next(iter(check_results.LATE_OLD_SCHEMA))
    assert check_results.problems(dict(old, date="2026-11-29T05:10:31Z"), name) == []


@pytest.fixture
def tree(tmp_path, monkeypatch):
    """A tree of two files, stamped."""
    (tmp_path / "a.py").write_text("print(1)\n")
    (tmp_path / "b.txt").write_text("b\n")
    files = ["a.py", "b.txt"]
    monkeypatch.setattr(provenance, "ROOT", tmp_path)
    monkeypatch.setattr(provenance, "TREE_FILE", tmp_path / "graphferry-tree.json")
    monkeypatch.setattr(provenance, "_TREE", None)
    stamp = {"commit": "c" * 40, "dirty": True, "diff_hash": "d" * 64, "files": files,
             "fingerprint": provenance._fingerprint(files), "stamped_at": "then"}
    provenance.TREE_FILE.write_text(json.dumps(stamp))
    return tmp_path


def test_provenance_reads_the_stamp_never_the_environment(tree, monkeypatch):
    monkeypatch.setenv("GRAPHFERRY_COMMIT", "e" * 40)
    doc = provenance.stamp({"runs": []}, ["bench/x.py", "--scale", "25"])
    assert doc["commit"] == "c" * 40 and doc["dirty"] is True and doc["diff_hash"] == "d" * 64
    assert doc["schema"] == "graphferry-bench/2" and doc["command"] == "python bench/x.py --scale 25"


def test_provenance_refuses_a_stamp_the_tree_no_longer_matches(tree):
    (tree / "a.py").write_text("print(2)\n")
    with pytest.raises(RuntimeError, match="stamp_tree"):
        provenance.tree()


def test_the_stamp_of_this_checkout_names_its_head():
    live = provenance.from_git()
    if live is None:
        pytest.skip("no .git here")
    assert check_results.commit_known(live["commit"]) and isinstance(live["dirty"], bool)
    assert (live["diff_hash"] is not None) == live["dirty"]
    assert provenance.TREE_FILE.name not in live["untracked"]


def test_record_says_which_bytes_are_modelled():
    from graphferry.plots import bytes_by_kind
    from graphferry.runtime.record import RunRecord

    r = RunRecord(algorithm="bfs", backend="cuda", engine="hybrid")
    assert r.bytes_h2d_how == "none"
    it = r.begin("edge_map", "push", active_vertices=1, active_edges=1)
    it.add_partition(0, "filter", 100, rows=1)
    r.end(it)
    assert r.bytes_h2d_how == "measured" and r.bytes_h2d_modelled == 0
    it = r.begin("edge_map", "push", active_vertices=1, active_edges=1)
    it.add_partition(1, "zerocopy", 40, rows=1)
    it.add_partition(2, "resident", 0, rows=1)
    r.end(it)
    d = r.to_dict()
    assert (d["bytes_h2d_how"], d["bytes_h2d_modelled"], r.bytes_h2d) == ("modelled", 40, 140)
    assert [bytes_by_kind(s) for s in d["steps"]] == [(100, 0), (0, 40)]


@pytest.fixture(scope="module")
def kron10():
    from graphferry.generators import kronecker_graph

    return kronecker_graph(10, weighted=True, seed=1)


def test_emogi_output_is_read_back_and_checked_like_ours(tmp_path, kron10):
    """EMOGI's raw arrays (uint32 levels and costs with all-ones unreached, uint64 labels, float32
    ranks) read back into the checks; a wrong answer of each kind fails them."""
    import peers_bench

    from graphferry.algorithms import bfs, sssp, wcc

    g = kron10
    src = int(np.argmax(g.out_degree))
    checker = peers_bench.Checker(g, src)
    levels = bfs(g, src, backend="cpu").levels.astype(np.int64)
    dist = sssp(g, src, backend="cpu").distances
    raw = {"bfs": np.where(levels < 0, 0xFFFFFFFF, levels).astype(np.uint32),
           "sssp": np.where(np.isinf(dist), 0xFFFFFFFF, np.nan_to_num(dist, posinf=0)).astype(np.uint32),
           "wcc": (np.asarray(wcc(g, backend="cpu").labels) * 7 + 3).astype(np.uint64)}  # any label per class
    for name, arr in raw.items():
        path = tmp_path / f"{name}.bin"
        arr.tofile(path)
        values = peers_bench.read_emogi_output(path, name, g.n)
        ok, how = checker.check_peer(name, values)
        assert ok, (name, how)
    deeper = peers_bench.read_emogi_output(tmp_path / "bfs.bin", "bfs", g.n)
    deeper[np.flatnonzero(deeper == deeper.max())[0]] += 1
    assert not checker.check_peer("bfs", deeper)[0]
    far = peers_bench.read_emogi_output(tmp_path / "sssp.bin", "sssp", g.n)
    far[np.flatnonzero(np.isfinite(far) & (far > 0))[0]] += 1
    assert not checker.check_peer("sssp", far)[0]
    merged = peers_bench.read_emogi_output(tmp_path / "wcc.bin", "wcc", g.n).astype(np.int64)
    merged[merged == merged[np.argmax(g.out_degree == 0)]] = merged[src]  # an isolated vertex joins the giant
    assert not checker.check_peer("wcc", merged)[0]
    assert peers_bench.read_emogi_output(tmp_path / "absent.bin", "bfs", g.n) is None


def test_peer_pagerank_is_measured_against_its_own_definition(kron10):
    """EMOGI's and HyTGraph's PageRank spreads no sink's rank: their fixed point, scaled, passes
    at a tight threshold, the uniform vector does not. (On an undirected graph the sinks are
    isolated vertices, and scaled to sum 1 the two definitions agree: the library's reference too.)"""
    import peers_bench

    from graphferry.algorithms.pagerank import pagerank_reference

    g = kron10
    checker = peers_bench.Checker(g, 0)
    theirs = checker.pagerank_nosink_reference() * 1234.5  # any scale
    ok, how = checker.check_peer("pagerank-delta", theirs, tol=1e-5)
    assert ok, how
    assert not checker.check_peer("pagerank-delta", np.ones(g.n), tol=1e-5)[0]
    assert checker.check_peer("pagerank-delta", pagerank_reference(g, 0.85), tol=1e-5)[0]
    spread = checker.pagerank_nosink_reference().copy()
    spread[:8] *= 1.5  # a few ranks wrong by half
    assert not checker.check_peer("pagerank-delta", spread, tol=1e-5)[0]
    # a threshold whose bound does not exclude the uniform vector checks nothing: unchecked
    ok, how = checker.check_peer("pagerank-delta", theirs, tol=0.05)
    assert not ok and "unchecked" in how


def test_hytgraph_levels_and_labels_are_read_back_whole(tmp_path, kron10):
    """HyTGraph's ``vertex value`` lines (INF unreached; vertices after the last with an edge
    absent) become whole arrays: the trailing vertices unreached and their own components."""
    import peers_bench

    from graphferry.algorithms import bfs

    g = kron10
    src = int(np.argmax(g.out_degree))
    levels = bfs(g, src, backend="cpu").levels.astype(np.int64)
    kept = int(np.flatnonzero(np.diff(g.offsets))[-1]) + 1
    text = "".join(f"{v} {'INF' if levels[v] < 0 else levels[v]}\n" for v in range(kept))
    (tmp_path / "bfs.out").write_text(text)
    back = peers_bench.read_hytgraph_output(tmp_path / "bfs.out", "bfs", g.n)
    assert np.array_equal(back, levels)
    assert peers_bench.Checker(g, src).check_peer("bfs", back)[0]


def test_readme_shows_unchecked_peers_with_a_star_and_managed_emogi_apart():
    import results_table

    doc1 = {"schema": "graphferry-bench/1"}
    emogi_bfs = {"engine": "peer:emogi-gpu", "verified": True, "verified_how": "6 launches vs graphferry's depth 5"}
    gapbs = {"engine": "peer:gapbs", "verified": True, "verified_how": "GAPBS's own verifier (-v)"}
    assert not results_table.checked(emogi_bfs, doc1) and results_table.checked(gapbs, doc1)
    assert results_table.checked(emogi_bfs, {"schema": "graphferry-bench/2"})
    managed = {"engine": "peer:emogi-gpu", "variant": "delta form; -m 1 (managed)"}
    assert results_table.engine_of(managed) == "peer:emogi-managed"
    assert results_table.engine_of({"engine": "peer:emogi-gpu"}) == "peer:emogi-gpu"


def test_the_evidence_table_shows_first_and_median_and_modelled_bytes():
    import results_table

    doc = {"schema": "graphferry-bench/2", "commit": "a" * 40, "dirty": False, "command": "python x",
           "graph": {"name": "kron25", "n": 1, "m": 2}, "machine": {"device": "GPU", "host_cores": 16},
           "runs": [{"algorithm": "bfs", "engine": "zerocopy", "seconds": 0.0459, "first_seconds": 0.234,
                     "verified": True, "bytes_h2d": 11_100_000_000, "bytes_h2d_how": "modelled"},
                    {"algorithm": "bfs", "engine": "peer:emogi-gpu", "seconds": 0.061, "first_seconds": 0.061,
                     "verified": False, "verified_how": "unchecked"}]}
    text = results_table.evidence_table(Path("peers-kron25-x.json"), doc)
    assert "| bfs | 234.0 / 45.9 | 61.0 / 61.0* |" in text
    assert "11.10 (modelled)" in text and "clean tree" in text


def test_schema1_files_carry_the_audits_labels():
    """dev/relabel_schema1.py has been run on every committed file: running it again changes nothing."""
    import relabel_schema1

    changed = {}
    for path in sorted((ROOT / "bench" / "results").glob("*.json")):
        got = relabel_schema1.relabel(path.name, json.loads(path.read_text()))
        if got:
            changed[path.name] = got
    assert not changed, changed


def test_relabel_unchecks_count_based_peer_checks_and_names_managed_emogi():
    import relabel_schema1

    doc = {"schema": "graphferry-bench/1", "commit": provenance.from_git()["commit"] if provenance.from_git() else "x",
           "date": "2999-01-01T00:00:00Z",
           "runs": [{"engine": "peer:emogi-gpu", "algorithm": "bfs", "verified": True,
                     "verified_how": "6 launches vs graphferry's depth 5 (+1 empty)"},
                    {"engine": "peer:emogi-gpu", "algorithm": "pagerank", "verified": False,
                     "variant": "delta form; -m 1 (managed)", "verified_how": "EMOGI prints no per-vertex result"},
                    {"engine": "peer:gapbs", "algorithm": "bfs", "verified": True, "verified_how": "GAPBS's own verifier (-v)"}]}
    changes = relabel_schema1.relabel("peers-x.json", doc)
    bfs, pr, gapbs = doc["runs"]
    assert not bfs["verified"] and "unchecked" in bfs["verified_how"]
    assert pr["engine"] == "peer:emogi-managed" and "unchecked" in pr["verified_how"]
    assert gapbs["verified"] and gapbs["verified_how"] == "GAPBS's own verifier (-v)"
    assert len(changes) == len(doc["audit_35"]) >= 3
    assert relabel_schema1.relabel("peers-x.json", doc) == []


def test_peers_bench_on_the_cpu_writes_a_file_the_check_passes(tmp_path):
    """The evidence session's benchmark end to end on the CPU backend (no peer binaries here):
    schema 2, the tree named, every run's first call and median, a stated delta PageRank bound."""
    import peers_bench

    assert peers_bench.main(["--scales", "9", "--engines", "cpu", "--delta-engines", "host", "--cpu-only",
                             "--reps", "3", "--delta-tol", "0.001", "--out", str(tmp_path), "--tag", "t",
                             "--work", str(tmp_path / "w")]) == 0
    doc = json.loads((tmp_path / "peers-kron9-t.json").read_text())
    assert doc["schema"] == "graphferry-bench/2" and doc["command"].startswith("python ")
    found = check_results.problems(doc, "cpu", check_commit=provenance.from_git() is not None)
    if provenance.from_git() is None:  # a copy without git names no commit: that is the only problem allowed
        found = [p for p in found if "commit" not in p and "dirty" not in p]
    assert found == []
    runs = {r["algorithm"]: r for r in doc["runs"]}
    assert set(runs) == {"bfs", "sssp", "pagerank", "wcc", "pagerank-delta"}
    assert all(r["verified"] and r["first_seconds"] > 0 and r["calls"] == 3 for r in runs.values())
    delta = runs["pagerank-delta"]
    assert delta["l1_to_fixed_point"] <= delta["l1_bound"] == pytest.approx(4 * 0.85 / 0.15 * 1e-3)


def test_readme_flags_a_figure_other_files_contradict(tmp_path, monkeypatch):
    import results_table

    def doc(seconds, commit):
        return {"commit": commit, "graph": {"name": "kron22"}, "machine": {"host_cores": 16},
                "runs": [{"algorithm": "triangle_count", "engine": "cpu", "seconds": seconds}]}

    (tmp_path / "a.json").write_text(json.dumps(doc(19.3, "f6056fd")))
    (tmp_path / "b.json").write_text(json.dumps(doc(4.39, "a1690f5")))
    monkeypatch.setattr(results_table, "RESULTS", tmp_path)
    lines = results_table.disagreements(tmp_path / "a.json", doc(19.3, "f6056fd"), ["triangle_count"], "cpu")
    assert len(lines) == 2 and "19.30 s" in lines[0] and "4.39 s (`b.json`, `a1690f5`)" in lines[0]
    (tmp_path / "b.json").write_text(json.dumps(doc(12.0, "a1690f5")))  # within 2x: no flag
    assert results_table.disagreements(tmp_path / "a.json", doc(19.3, "f6056fd"), ["triangle_count"], "cpu") == []


def test_a_listed_unresolvable_commit_is_excused_from_that_rule_only():
    if check_results.commit_known("HEAD") is None:
        pytest.skip("no .git here")
    name = next(iter(check_results.UNRESOLVABLE_COMMITS))
    assert check_results.problems(GOOD, name) == []
    assert check_results.problems(_broken(BROKEN["no first call"]), name) == [
        f"{name}: run 0 (bfs, hybrid): no first_seconds"]
    assert check_results.problems(GOOD, "other.json")  # any other file: the commit must resolve


def test_records_without_an_engine_are_held_to_the_file_rules_only():
    doc = copy.deepcopy(GOOD)
    doc["runs"].append({"graph": "path10", "call": "is_isolate", "dispatch_overhead_ms": 0.045})
    assert check_results.problems(doc, "x", check_commit=False) == []
    doc["command"] = ""
    assert check_results.problems(doc, "x", check_commit=False) == ["x: no producing command"]


#: A stand-in for HyTGraph's four binaries (no GPU, no HyTGraph here): reads the Galois ``.gr``
#: file the benchmark writes, answers with scipy (BFS levels, Dijkstra distances, component
#: labels, a power iteration without sink spreading) and prints what the real build prints: a
#: ``HOST: Total time`` and ``Total rounds`` per run of its ``-cmdfile``, the ``-output`` files in
#: HyTGraph's formats. FAKE_HYTGRAPH_MODE: ``wrong`` shifts one answer (PageRank: reverses the
#: ranks), ``die`` ends the process
#: after its first run.
FAKE_HYTGRAPH = r'''#!{python}
import os, sys
import numpy as np
import scipy.sparse as sp
from scipy.sparse import csgraph

app = os.path.basename(sys.argv[0])
def flags(words):
    out, k = {{}}, 0
    while k < len(words):
        key = words[k].lstrip("-")
        if k + 1 < len(words) and not words[k + 1].startswith("-"):
            out[key] = words[k + 1]; k += 2
        else:
            out[key] = ""; k += 1
    return out
base = flags(sys.argv[1:])
if "graphfile" not in base:
    print("A Graph File must be provided"); sys.exit(0)
raw = open(base["graphfile"], "rb").read()
version, ebytes, n, m = np.frombuffer(raw[:32], dtype=np.uint64).astype(np.int64)
ends = np.frombuffer(raw[32:32 + 8 * n], dtype=np.uint64).astype(np.int64)
at = 32 + 8 * n
dst = np.frombuffer(raw[at:at + 4 * m], dtype=np.uint32).astype(np.int64)
at += 4 * m + 4 * (m % 2)
offsets = np.concatenate([[0], ends])
src = np.repeat(np.arange(n), np.diff(offsets))
w = np.frombuffer(raw[at:at + 4 * m], dtype=np.uint32).astype(np.float64) if ebytes == 4 else None
mode = os.environ.get("FAKE_HYTGRAPH_MODE", "")
lines = open(base["cmdfile"]).read().splitlines()
for k, line in enumerate(lines):
    f = {{**base, **flags(line.split())}}
    A = sp.csr_matrix((np.ones(m) if app != "hybrid_sssp" else w, (src, dst)), shape=(n, n))
    s = int(f.get("source_node", 0))
    if app == "hybrid_bfs":
        vals = csgraph.shortest_path(A, unweighted=True, indices=s)
    elif app == "hybrid_sssp":
        vals = csgraph.dijkstra(A, indices=s)
    elif app == "hybrid_cc":
        vals = csgraph.connected_components(A, directed=False)[1].astype(float)
    else:
        deg = np.asarray(A.sum(axis=1)).ravel()
        P = sp.diags(np.where(deg > 0, 1 / np.maximum(deg, 1), 0)) @ A
        x = np.full(n, 0.15)
        for _ in range(200):
            x = 0.15 + 0.85 * (P.T @ x)
        vals = x
    if mode == "wrong" and app == "hybrid_pr":
        vals = vals[::-1].copy()  # each rank on another vertex
    elif mode == "wrong":
        vals = vals.copy(); vals[np.flatnonzero(np.isfinite(vals) & (vals > 0))[0]] += 1
    print("HOST: Total time: %f" % (1.5 + k))
    print("HOST: Total rounds: 4")
    print("HOST: filter_num: 3")
    out = f.get("output")
    if out:
        with open(out, "w") as o:
            if app == "hybrid_pr":
                o.write("ALPHA 8.5e-01 EPSILON 1e-02\nRANKS 1--%d of %d\n" % (n, n))
                for v in np.argsort(-vals, kind="stable"):
                    o.write("%d %e\n" % (v, vals[v] / vals.sum()))
            else:
                for v, x in enumerate(vals):
                    o.write("%d %s\n" % (v, "INF" if not np.isfinite(x) else int(x)))
    if mode == "die":
        sys.exit(1)
'''


@pytest.fixture()
def fake_hytgraph(tmp_path):
    bindir = tmp_path / "hytgraph"
    bindir.mkdir()
    for app in ("hybrid_bfs", "hybrid_sssp", "hybrid_pr", "hybrid_cc"):
        exe = bindir / app
        exe.write_text(FAKE_HYTGRAPH.format(python=sys.executable))
        exe.chmod(0o755)
    return bindir


def _hytgraph_runs(tmp_path, bindir, g, reps=3):
    import peers_bench

    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    gr = peers_bench.write_galois_gr(g, work / "graph")
    src = int(np.argmax(g.out_degree))
    return {r["algorithm"]: r for r in peers_bench.hytgraph_runs(
        bindir, gr, src, g.n, peers_bench.Checker(g, src), 60, lambda msg: None, fmt="gr", reps=reps,
        input_seconds=0.25)}


def test_hytgraph_runs_time_its_first_and_median_and_check_every_answer(tmp_path, kron10, fake_hytgraph):
    """The benchmark's HyTGraph harness against a stand-in printing HyTGraph's formats: one process
    per application, its first run and the median of the three after it from its printed times,
    the first and last runs' answers read back and checked, the input's writing time apart."""
    runs = _hytgraph_runs(tmp_path, fake_hytgraph, kron10)
    assert set(runs) == {"bfs", "sssp", "pagerank", "wcc"}
    for name, r in runs.items():
        assert r["verified"], (name, r["verified_how"])
        assert "first run" in r["verified_how"] and "last run" in r["verified_how"]
        assert r["first_seconds"] == 0.0015 and r["seconds"] == 0.0035 and r["calls"] == 3  # 1.5; 2.5 3.5 4.5 ms
        assert r["input_write_seconds"] == 0.25 and r["iterations"] == 4 and "-cmdfile" in r["command"]
    import check_results

    doc = {"schema": "graphferry-bench/2", "commit": "a" * 40, "dirty": False, "command": "python x",
           "runs": list(runs.values())}
    assert check_results.problems(doc, "fake", check_commit=False) == []
    assert runs["pagerank"]["l1_to_fixed_point"] <= runs["pagerank"]["l1_bound"]


def test_hytgraph_wrong_answers_and_a_process_cut_short_are_not_verified(tmp_path, kron10, fake_hytgraph,
                                                                           monkeypatch):
    monkeypatch.setenv("FAKE_HYTGRAPH_MODE", "wrong")
    runs = _hytgraph_runs(tmp_path, fake_hytgraph, kron10)
    assert not any(r["verified"] for r in runs.values()), {k: r["verified_how"] for k, r in runs.items()}
    monkeypatch.setenv("FAKE_HYTGRAPH_MODE", "die")
    runs = _hytgraph_runs(tmp_path, fake_hytgraph, kron10)
    for r in runs.values():  # the first run's answer checked; no repeats: its one time stands for both
        assert r["calls"] == 0 and r["first_seconds"] == r["seconds"] == 0.0015 and "1 of 4 runs" in r["note"]
        assert r["verified"] and "last run" not in r["verified_how"]


def test_hytgraph_command_file_writes_the_first_and_last_answers_only(tmp_path):
    import peers_bench

    path = peers_bench.hytgraph_command_file(tmp_path / "c", 3, tmp_path / "a", tmp_path / "b")
    assert path.read_text().splitlines() == [f"-output {tmp_path / 'a'}", "", "", f"-output {tmp_path / 'b'}"]
    times, rounds, counts = peers_bench.parse_hytgraph(
        "HOST: Total time: 12.5\nHOST: Total rounds: 7\nfilter_num: 2\nHOST: Total time: 10.0\n")
    assert times == [0.0125, 0.01] and rounds == [7] and counts == {"filter": 2}


def test_the_evidence_table_says_which_peers_ran_once_and_the_input_time_apart():
    import results_table

    doc = {"schema": "graphferry-bench/2", "commit": "a" * 40, "dirty": False, "command": "python x",
           "graph": {"name": "kron25", "n": 1, "m": 2}, "machine": {"device": "GPU", "host_cores": 16},
           "runs": [{"algorithm": "bfs", "engine": "peer:emogi-gpu", "seconds": 0.061, "first_seconds": 0.061,
                     "calls": 1, "verified": True},
                    {"algorithm": "bfs", "engine": "peer:hytgraph", "seconds": 0.1, "first_seconds": 0.3, "calls": 3,
                     "verified": True, "input_write_seconds": 9.04, "input_format": "gr"}]}
    text = results_table.evidence_table(Path("peers-kron25-x.json"), doc)
    assert "| bfs | 61.0 / 61.0 | 300.0 / 100.0 |" in text
    assert ("Peers: one call per process (first = median): `peer:emogi-gpu`; a first call and the median of its "
            "repeats: `peer:hytgraph`; `peer:hytgraph`'s input file (gr) written in 9.0 s, not in its times.") in text


def test_hytgraph_past_the_deadline_is_recorded_skipped_and_shown_so(tmp_path, kron10, fake_hytgraph):
    """An application the call has no time left for is a ``skipped`` run with why (the check lets it
    through unverified), and the headline table says "skipped" in its cell, not a blank."""
    import check_results
    import peers_bench
    import results_table

    work = tmp_path / "work"
    work.mkdir()
    gr = peers_bench.write_galois_gr(kron10, work / "graph")
    runs = peers_bench.hytgraph_runs(fake_hytgraph, gr, 0, kron10.n, peers_bench.Checker(kron10, 0), 60,
                                     lambda msg: None, fmt="gr", deadline=time.perf_counter() + 25)
    assert [r["algorithm"] for r in runs] == ["bfs", "sssp", "pagerank", "wcc"]
    assert all("skipped" in r and not r["verified"] for r in runs), runs
    doc = {"schema": "graphferry-bench/2", "commit": "a" * 40, "dirty": False, "command": "python x",
           "graph": {"name": "kron10", "n": kron10.n, "m": kron10.m}, "machine": {}, "runs": runs}
    assert check_results.problems(doc, "x", check_commit=False) == []
    text = results_table.evidence_table(Path("peers-kron10-x.json"), doc)
    assert "| bfs | skipped |" in text and "| pagerank-delta | skipped |" in text
    assert "`peer:hytgraph` bfs: not started:" in text


def test_a_later_call_of_peers_alone_on_the_same_graph_is_shown_under_the_headline(tmp_path, monkeypatch):
    import results_table

    graph = {"name": "kron25", "n": 8, "m": 20, "seed": 0}
    head = {"schema": "graphferry-bench/2", "date": "2026-11-29T08:02:38Z", "graph": graph, "runs": []}
    later = {"schema": "graphferry-bench/2", "date": "2026-11-29T09:31:00Z", "graph": graph, "commit": "b" * 40,
             "dirty": False, "command": "python y", "machine": {},
             "runs": [{"algorithm": "sssp", "engine": "peer:hytgraph", "seconds": 0.4, "first_seconds": 0.5,
                       "calls": 3, "verified": True}]}
    other_graph = dict(later, graph=dict(graph, m=21))
    ours_too = dict(later, runs=[*later["runs"], {"algorithm": "sssp", "engine": "hybrid", "seconds": 1}])
    earlier = dict(later, date="2026-11-29T07:00:00Z")
    for name, doc in {"peers-head.json": head, "peers-later.json": later, "peers-other.json": other_graph,
                      "peers-ours.json": ours_too, "peers-earlier.json": earlier}.items():
        (tmp_path / name).write_text(json.dumps(doc))
    monkeypatch.setattr(results_table, "RESULTS", tmp_path)
    found = results_table.later_peer_calls(tmp_path / "peers-head.json", head)
    assert [p.name for p, _ in found] == ["peers-later.json"]
    assert "| sssp | 500.0 / 400.0 |" in results_table.evidence_table(*found[0])
