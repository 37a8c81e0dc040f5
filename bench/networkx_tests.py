"""Run NetworkX's own tests for the functions the graphferry backend provides, with and without it.

NetworkX ships its tests inside the package. With ``NETWORKX_TEST_BACKEND=graphferry``
its test configuration sends every dispatchable call to the backend (converting
the test's graphs), and with ``NETWORKX_FALLBACK_TO_NX=True`` calls the backend
declines (``can_run`` False, or a function it does not provide) run in NetworkX.
So a test file mixes calls the backend answered with calls NetworkX answered; a
small pytest plugin records, per test, whether a graphferry function ran.

graphferry is installed the way a user installs it (``pip install --no-deps
--target TMP .``, entry points and all) into a temporary folder.

Usage::

    python bench/networkx_tests.py [--out bench/results/networkx-tests.json]

The result has the counts of both runs, the share of the tests passing on the
default backend that also pass with graphferry (the target is 95% or more), how
many of those exercised graphferry, and every test that fails with graphferry
and not without, with the first line of its error.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "bench"))
import provenance  # noqa: E402  (commit, dirty, diff hash, command: issue 35)

#: NetworkX test files (or folders) covering the functions the backend provides, directly or
#: through the NetworkX functions that call them (which dispatch to the backend too in this mode)
TEST_FILES = (
    "algorithms/link_analysis/tests",
    "algorithms/traversal/tests",
    "algorithms/shortest_paths/tests",
    "algorithms/components/tests",
    "algorithms/tests/test_cluster.py",
    "algorithms/tests/test_distance_measures.py",
    "algorithms/centrality/tests/test_betweenness_centrality.py",
    "algorithms/centrality/tests/test_eigenvector_centrality.py",
    "algorithms/centrality/tests/test_katz_centrality.py",
    "algorithms/tests/test_core.py",
    "algorithms/tests/test_link_prediction.py",
    "algorithms/tests/test_dag.py",
    "algorithms/tree/tests/test_recognition.py",
    "algorithms/tests/test_isolate.py",
    "algorithms/tests/test_reciprocity.py",
    "algorithms/centrality/tests/test_degree_centrality.py",
    "algorithms/coloring/tests/test_coloring.py",
    "algorithms/tree/tests/test_mst.py",
    "algorithms/community/tests/test_label_propagation.py",
    "algorithms/community/tests/test_louvain.py",
)

#: a quick subset (under a minute with the backend): the CI test runs it (tests/nx/test_networkx_suite.py)
QUICK_FILES = (
    "algorithms/shortest_paths/tests/test_generic.py",
    "algorithms/shortest_paths/tests/test_unweighted.py",
    "algorithms/components/tests/test_connected.py",
    "algorithms/tests/test_dag.py",
    "algorithms/tree/tests/test_recognition.py",
    "algorithms/tests/test_isolate.py",
    "algorithms/tests/test_reciprocity.py",
    "algorithms/centrality/tests/test_degree_centrality.py",
)

ENTRY_POINTS = """[networkx.backends]
graphferry = graphferry.nx_backend.interface

[networkx.backend_info]
graphferry = _graphferry_nx:get_info
"""

PROBE = r'''
"""pytest plugin: per test, its outcome and whether a graphferry backend function ran."""
import json, os

_called = []
_declined = []
_results = {}


def pytest_configure(config):
    if not os.environ.get("NETWORKX_TEST_BACKEND"):
        return
    import graphferry.nx_backend.interface as backend
    for name in backend.FUNCTIONS:
        real = getattr(backend, name)

        def probe(*args, _real=real, _name=name, **kwargs):
            _called.append(_name)
            return _real(*args, **kwargs)

        setattr(backend, name, probe)
    real_can_run = backend.can_run

    def can_run(name, args, kwargs):
        answer = real_can_run(name, args, kwargs)
        if answer is not True and name in backend.FUNCTIONS:
            _declined.append(f"{name}: {answer}")
        return answer

    backend.can_run = can_run


def pytest_runtest_setup(item):
    _called.clear()
    _declined.clear()


def pytest_runtest_logreport(report):
    if report.when == "call" or report.outcome != "passed":
        if report.nodeid in _results and report.when == "teardown":
            return
        outcome = report.outcome
        if hasattr(report, "wasxfail"):
            outcome = "xfailed" if report.skipped else "xpassed"
        message = ""
        if report.failed:
            message = str(getattr(report.longrepr, "reprcrash", None) and report.longrepr.reprcrash.message
                          or report.longrepr).splitlines()[0][:300]
        elif report.skipped and isinstance(report.longrepr, tuple):
            message = str(report.longrepr[2])[:300]
        _results[report.nodeid] = {"outcome": outcome, "graphferry": sorted(set(_called)),
                                   "declined": sorted(set(_declined)), "message": message}


def pytest_sessionfinish(session):
    with open(os.environ["GF_PROBE_OUT"], "w") as f:
        json.dump(_results, f)
'''


def _networkx_dir() -> Path:
    import networkx

    return Path(networkx.__file__).resolve().parent


def install(tmp: Path, *, from_source: bool = False) -> None:
    """graphferry where the NetworkX test run finds it: pip-installed into ``tmp/site`` as a user installs it,
    or (``from_source``) this checkout's ``src`` with a distribution record declaring the entry points."""
    (tmp / "gf_nx_probe.py").write_text(PROBE)
    if not from_source:
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(tmp / "site"),
                        str(REPO)], check=True, capture_output=True)
        return
    record = tmp / "site" / "graphferry_source-0.dist-info"
    record.mkdir(parents=True)
    (record / "METADATA").write_text("Metadata-Version: 2.1\nName: graphferry-source\nVersion: 0\n")
    (record / "entry_points.txt").write_text(ENTRY_POINTS)
    (tmp / "site" / "graphferry-source.pth").write_text(str(REPO / "src") + "\n")


def run_tests(tmp: Path, backend: str | None, label: str, files=TEST_FILES) -> tuple[dict, float]:
    """Run NetworkX's test ``files`` (with ``backend`` and fallback, or on NetworkX alone): per test, the probe's record."""
    nxdir = _networkx_dir()
    out = tmp / f"{label}.json"
    site = tmp / "site"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(tmp)] + (
               [str(REPO / "src")] if (site / "graphferry-source.pth").exists() else [])), "GF_PROBE_OUT": str(out),
           "OMP_WAIT_POLICY": "passive"}
    env.pop("NETWORKX_TEST_BACKEND", None)
    env.pop("NETWORKX_FALLBACK_TO_NX", None)
    if backend:
        env["NETWORKX_TEST_BACKEND"] = backend
        env["NETWORKX_FALLBACK_TO_NX"] = "True"
    ini = tmp / "pytest.ini"
    ini.write_text("[pytest]\n")
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "gf_nx_probe", "-c", str(ini),
           f"--rootdir={nxdir.parent}", f"--confcutdir={nxdir.parent}", *(str(nxdir / f) for f in files)]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=tmp, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - t0
    if not out.exists():
        sys.stderr.write(proc.stdout[-4000:] + proc.stderr[-4000:])
        raise SystemExit(f"pytest ({label}) wrote no results")
    return json.loads(out.read_text()), seconds


def _counts(results: dict) -> dict:
    counts: dict[str, int] = {}
    for r in results.values():
        counts[r["outcome"]] = counts.get(r["outcome"], 0) + 1
    return dict(sorted(counts.items()))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "results" / "networkx-tests.json")
    parser.add_argument("--quick", action="store_true", help="only QUICK_FILES (what CI runs)")
    parser.add_argument("--from-source", action="store_true",
                        help="use this checkout's src with declared entry points instead of a pip install")
    args = parser.parse_args(argv)
    import networkx

    files = QUICK_FILES if args.quick else TEST_FILES
    with tempfile.TemporaryDirectory(prefix="gf-nx-tests-") as name:
        tmp = Path(name)
        install(tmp, from_source=args.from_source)
        default, default_s = run_tests(tmp, None, "default", files)
        ours, ours_s = run_tests(tmp, "graphferry", "graphferry", files)

    passing = [k for k, r in default.items() if r["outcome"] == "passed"]
    still = [k for k in passing if ours.get(k, {}).get("outcome") == "passed"]
    used = [k for k in passing if ours.get(k, {}).get("graphferry")]
    used_passing = [k for k in used if ours[k]["outcome"] == "passed"]
    regressions = {k: {"outcome": ours.get(k, {}).get("outcome", "missing"),
                       "graphferry": ours.get(k, {}).get("graphferry", []),
                       "message": ours.get(k, {}).get("message", "")}
                   for k in passing if k not in still}
    by_function: dict[str, dict[str, int]] = {}
    for k in passing:
        for f in ours.get(k, {}).get("graphferry", []):
            row = by_function.setdefault(f, {"tests": 0, "passed": 0})
            row["tests"] += 1
            row["passed"] += ours[k]["outcome"] == "passed"
    declined: dict[str, int] = {}
    for r in ours.values():
        for reason in r.get("declined", []):
            declined[reason] = declined.get(reason, 0) + 1
    record = {
        **provenance.stamp({}, ["bench/networkx_tests.py", *(argv if argv is not None else sys.argv[1:])]),
        "date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "what": "NetworkX's own tests of the functions the graphferry backend provides",
        "networkx": networkx.__version__,
        "python": platform.python_version(),
        "machine": platform.machine(),
        "test_files": list(files),
        "environment": {"NETWORKX_TEST_BACKEND": "graphferry", "NETWORKX_FALLBACK_TO_NX": "True",
                        "graphferry backend": "auto (cpu without a GPU)"},
        "default_backend": {"counts": _counts(default), "seconds": round(default_s, 1)},
        "graphferry_backend": {"counts": _counts(ours), "seconds": round(ours_s, 1)},
        "passing_on_default": len(passing),
        "of_those_passing_with_graphferry": len(still),
        "pass_rate": round(len(still) / len(passing), 4) if passing else None,
        "of_those_exercising_graphferry": len(used),
        "of_those_exercising_graphferry_passing": len(used_passing),
        "tests_per_graphferry_function": dict(sorted(by_function.items())),
        "declined_by_can_run (tests, reason; NetworkX ran these calls)": dict(
            sorted(declined.items(), key=lambda kv: -kv[1])),
        "failing_with_graphferry_only": regressions,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(record, indent=1) + "\n")
    print(f"default: {record['default_backend']['counts']}; graphferry: {record['graphferry_backend']['counts']}")
    print(f"{len(still)}/{len(passing)} tests passing on the default backend pass with graphferry "
          f"({100 * record['pass_rate']:.1f}%); {len(used)} of them ran graphferry code, "
          f"{len(used_passing)} of those pass")
    for k, r in regressions.items():
        print(f"  {r['outcome']}: {k}: {r['message']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
