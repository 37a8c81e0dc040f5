"""The README's "Latest results" section is what dev/results_table.py makes of bench/results."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_readme_results_section_is_up_to_date():
    p = subprocess.run([sys.executable, str(ROOT / "dev" / "results_table.py"), "--check"],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr


def _results(name: str) -> dict:
    import json

    return json.loads((ROOT / "bench" / "results" / name).read_text())


def _per_store(doc: dict) -> dict:
    return {r["algorithm"]: r["peak_rss_bytes"] / doc["graph"]["store_bytes"] for r in doc["runs"]}


def _run(doc: dict, engine: str, algorithm: str) -> dict:
    return next(r for r in doc["runs"] if r["engine"] == engine and r["algorithm"] == algorithm)


def test_readme_figures_outside_the_generated_sections_match_their_files():
    """The figures README quotes by hand (memory, the store check, narrowed weights, packed ids,
    several GPUs), each recomputed here from the results file it names: a figure that drifts
    from its file, or a file re-measured without the text, fails."""
    text = " ".join((ROOT / "README.md").read_text().split())
    m20, m22 = _results("memory-kron20.json"), _results("memory-kron22.json")
    r20, r22 = _per_store(m20), _per_store(m22)
    r22n = _per_store(_results("memory-kron22-neighbourhood.json"))
    basic = ["bfs", "sssp", "pagerank", "pagerank_ldbc", "wcc"]
    lo20, hi20 = min(r20[a] for a in basic), max(r20[a] for a in basic)
    lo22, hi22 = min(r22[a] for a in basic), max(r22[a] for a in basic)
    check = m22["structural_check"]
    bfs22 = next(r["seconds"] for r in m22["runs"] if r["algorithm"] == "bfs")
    narrow = _results("peers-kron25-h200-s14-sssp.json")
    kron15, urand15 = _results("peers-kron25-h200-s15.json"), _results("peers-urand25-h200-s15.json")
    lanes25 = _results("multidevice-kron25-h200x4-lanes.json")["pagerank_speedups"]["rounds"]
    lanes26 = _results("multidevice-kron26-h200x4-lanes.json")["pagerank_speedups"]["rounds"]
    ms = lambda r: r["seconds"] * 1e3  # noqa: E731
    per_it = lambda r: r["seconds"] / r["iterations"] * 1e3  # noqa: E731
    expected = [
        f"cores: {check['warm_check_seconds']:.2f} s, a quarter of reading those files once, "
        f"{100 * check['warm_check_seconds'] / bfs22:.1f}% of `run bfs`",
        f"scale 20 ({m20['graph']['store_bytes'] / 2**20:.0f} MiB): bfs, sssp, pagerank, pagerank_ldbc, wcc "
        f"{lo20:.2f}-{hi20:.2f}x, convert {r20['convert']:.1f}x, cdlp {r20['cdlp']:.1f}x, lcc and triangle_count "
        f"{r20['lcc']:.1f}x",
        f"scale 22 ({m22['graph']['store_bytes'] / 2**20:.0f} MiB): bfs, sssp, pagerank, pagerank_ldbc, wcc "
        f"{lo22:.2f}-{hi22:.2f}x, convert {r22['convert']:.2f}x, triangle_count {r22n['triangle_count']:.2f}x, "
        f"lcc {r22n['lcc']:.1f}x, cdlp {r22n['cdlp']:.1f}x",
        f"hybrid: {ms(_run(narrow, 'hybrid', 'sssp')):.0f} against "
        f"{ms(_run(narrow, 'hybrid:float32-weights', 'sssp')):.0f} ms",
        f"hybrid SSSP {ms(_run(kron15, 'hybrid', 'sssp')):.0f} against "
        f"{ms(_run(kron15, 'hybrid:plain-ids', 'sssp')):.0f} ms; uniform 25 PageRank "
        f"{per_it(_run(urand15, 'hybrid', 'pagerank')):.1f} against "
        f"{per_it(_run(urand15, 'hybrid:plain-ids', 'pagerank')):.1f} ms per iteration",
        f"ran {lanes25['4']:.2f}x faster than on one at Kronecker 25 and {lanes26['4']:.2f}x at 26 (two: "
        f"{lanes25['2']:.2f}x, {lanes26['2']:.2f}x",
    ]
    missing = [e for e in expected if e not in text]
    assert not missing, missing


def test_readme_one_shot_figures_match_their_files():
    """The one-shot paragraph's seconds, each recomputed from the results file it names."""
    text = " ".join((ROOT / "README.md").read_text().split())
    wcc = _results("oneshot-gpu-kron25-h200-wcc-fresh.json")
    pr = _results("oneshot-gpu-kron25-h200-wcc-pr.json")
    bfs = _results("oneshot-gpu-kron25-h200.json")

    def row(doc, engine, algorithm, option=None):
        return next(r["seconds"] for r in doc["runs"] if r["engine"] == engine and r["algorithm"] == algorithm
                    and r.get("engine_option") == option)
    want = (f"WCC {row(wcc, 'cli-gpu', 'wcc'):.2f} s against {row(wcc, 'peer:gapbs-process', 'wcc'):.2f} s, and "
            f"{row(wcc, 'cli-gpu-fresh', 'wcc'):.2f} s on a fresh machine (empty program caches; "
            f"{row(wcc, 'cli-gpu-fresh', 'wcc', 'hybrid'):.2f} s with `--engine hybrid`)",
            f"{row(pr, 'cli-gpu', 'pagerank'):.2f} s against {row(pr, 'peer:gapbs-process', 'pagerank'):.2f} s",
            f"BFS {row(bfs, 'cli-gpu', 'bfs'):.2f} s against {row(bfs, 'peer:gapbs-process', 'bfs'):.2f} s, "
            f"{row(bfs, 'cli-gpu-fresh', 'bfs'):.2f} s on a fresh machine")
    for phrase in want:
        assert phrase in text, phrase
