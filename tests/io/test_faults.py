"""Fault injection: damaged stores and caches, killed or failing conversions, user errors.

Each test here is one way a user's data or machine can go wrong (issue 8). The
promise under test is the README's "What graphferry promises": a clean error
(exit 1 or 2, one ``error:`` line, nothing half-written) or a correct result,
never a signal, a traceback or an "internal error".
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphferry.graph import Graph
from graphferry.store import NPY_HEADER_BYTES, open_store, write_store

REPO = Path(__file__).resolve().parents[2]
SRC = REPO / "src"
ALGORITHMS = ("bfs", "sssp", "pagerank", "pagerank_ldbc", "wcc", "cdlp", "lcc", "triangle_count")


def _env(**extra: str) -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=str(SRC), OMP_WAIT_POLICY="passive", OMP_NUM_THREADS="2")
    env.update(extra)
    return env


def graphferry(*args: str, timeout: float = 120, **env: str) -> subprocess.CompletedProcess:
    """The CLI in a fresh process, as a user runs it."""
    return subprocess.run([sys.executable, "-m", "graphferry", "-q", *args], capture_output=True,
                          text=True, timeout=timeout, env=_env(**env))


def assert_clean_error(proc: subprocess.CompletedProcess, *codes: int) -> str:
    """Exit status in ``codes`` (default 1 or 2) and exactly one ``error:`` line on stderr."""
    codes = codes or (1, 2)
    assert proc.returncode in codes, (proc.returncode, proc.stderr[-2000:])
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), proc.stderr[-2000:]
    assert "internal error" not in lines[0] and "Traceback" not in proc.stderr
    return lines[0]


# ---------------------------------------------------------------- 1. damaged stores
def _small_graph() -> Graph:
    rng = np.random.default_rng(8)
    n, e = 40, 160
    src, dst = rng.integers(0, n, e), rng.integers(0, n, e)
    w = rng.integers(1, 9, e).astype(np.float32)
    return Graph.from_edges(src, dst, w, n=n, directed=False, drop_self_loops=True,
                            drop_duplicates=True, name="faults")


@pytest.fixture(scope="module")
def clean_store(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("faults") / "clean.store"
    write_store(_small_graph(), path)
    return path


#: Runs every algorithm through the CLI in one process (one interpreter start for
#: all eight); prints each one's exit status and stderr as JSON. A signal in any
#: of them kills the process, which the caller sees as a negative return code.
_DRIVER = r"""
import contextlib, io, json, sys
from graphferry.cli import main
store, out_dir, algorithms = sys.argv[1], sys.argv[2], sys.argv[3].split(",")
report = {}
for name in algorithms:
    args = ["-q", "run", name, store, "--backend", "cpu", "--out", f"{out_dir}/{name}.npy"]
    if name in ("bfs", "sssp"):
        args += ["--source", "0"]
    if name == "pagerank_ldbc":
        args += ["--damping", "0.85", "--iterations", "10"]
    print(name, file=sys.__stderr__, flush=True)  # the last name printed is the one that died
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        rc = main(args)
    report[name] = {"rc": rc, "stderr": err.getvalue()}
print(json.dumps(report))
"""


def _is_symmetric(g: Graph) -> bool:
    import scipy.sparse as sp

    data = np.ones(g.m) if g.weights is None else np.asarray(g.weights, dtype=np.float64)
    a = sp.csr_array((data, np.asarray(g.indices), np.asarray(g.offsets)), shape=(g.n, g.n))
    return (a != a.T).nnz == 0  # NaN != NaN: a NaN weight counts as asymmetric


def _check_result(store: Path, name: str, table: np.ndarray) -> None:
    """The result is right for the graph the store holds (checked by the algorithm's own verifier).

    An undirected store whose arrays are no longer symmetric has no right
    answer (its in-edges are its out-edges by definition, which the damage broke);
    its weights (one per direction) must agree too; only the checksums tell, so there the promise is "no signal, a clean
    exit", and ``verify`` must catch it (checked by the caller).
    """
    from graphferry import algorithms as alg

    g = open_store(store)
    if not g.directed and not _is_symmetric(g):
        return
    if name == "bfs":
        alg.verify_bfs(g, 0, table["levels"], table["parents"])
    elif name == "sssp":
        alg.verify_sssp(g, 0, table["distances"])
    elif name == "pagerank":
        alg.verify_pagerank(g, table["ranks"], damping=0.85, atol=1e-5, rtol=1e-3)
    elif name == "pagerank_ldbc":
        alg.verify_pagerank(g, table["ranks"], damping=0.85, iterations=10)
    elif name == "wcc":
        alg.verify_wcc(g, table["labels"])
    elif name == "cdlp":
        alg.verify_cdlp(g, table["labels"], 10)
    elif name == "lcc":
        alg.verify_lcc(g, table["lcc"])
    elif name == "triangle_count":
        alg.verify_triangles(g, table["triangles"])


def run_all_algorithms(store: Path, out_dir: Path) -> dict[str, dict]:
    proc = subprocess.run([sys.executable, "-c", _DRIVER, str(store), str(out_dir), ",".join(ALGORITHMS)],
                          capture_output=True, text=True, timeout=300, env=_env())
    died_in = proc.stderr.strip().splitlines()[-1:] if proc.stderr else []
    assert proc.returncode == 0, f"signal/exit {proc.returncode} while running {died_in}: {proc.stderr[-2000:]}"
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _damage(store: Path, array: str, flips: list[tuple[float, int]]) -> None:
    path = store / f"{array}.npy"
    data = bytearray(path.read_bytes())
    for where, mask in flips:
        data[int(where * (len(data) - 1))] ^= mask
    path.write_bytes(bytes(data))


def _assert_clean_or_correct(store: Path, out: Path, check_results: bool = True) -> None:
    report = run_all_algorithms(store, out)
    for name, r in report.items():
        if r["rc"] == 0:
            if check_results:
                _check_result(store, name, np.load(out / f"{name}.npy"))
            continue
        assert r["rc"] in (1, 2), (name, r)
        lines = r["stderr"].strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: "), (name, r["stderr"])
        assert "internal error" not in lines[0], (name, lines[0])


@pytest.mark.parametrize("array", ["offsets", "indices", "weights"])
@settings(max_examples=2, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(flips=st.lists(st.tuples(st.floats(0, 1), st.integers(1, 255)), min_size=1, max_size=3))
def test_flipped_bytes_give_a_clean_error_or_a_correct_result(clean_store, tmp_path_factory, array, flips):
    work = tmp_path_factory.mktemp("damaged")
    store = work / "s"
    shutil.copytree(clean_store, store)
    _damage(store, array, flips)
    _assert_clean_or_correct(store, work)
    if (store / f"{array}.npy").read_bytes() != (clean_store / f"{array}.npy").read_bytes():
        line = assert_clean_error(graphferry("verify", str(store)), 1)
        assert f"{array}.npy" in line


@settings(max_examples=2, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(flips=st.lists(st.tuples(st.floats(0, 1), st.integers(1, 255)), min_size=1, max_size=3))
def test_flipped_original_ids_give_a_clean_exit(tmp_path_factory, flips):
    """Damaged labels of a renumbered store: whatever they became, no signal and no traceback."""
    work = tmp_path_factory.mktemp("damaged-ids")
    g = _small_graph()
    g.original_ids = np.arange(g.n, dtype=np.int64) * 5  # original id 0 is internal 0
    write_store(g, work / "s")
    clean = (work / "s" / "original_ids.npy").read_bytes()
    _damage(work / "s", "original_ids", flips)
    _assert_clean_or_correct(work / "s", work, check_results=False)
    if (work / "s" / "original_ids.npy").read_bytes() != clean:
        assert "original_ids.npy" in assert_clean_error(graphferry("verify", str(work / "s")), 1)


@pytest.mark.parametrize("array, offset, mask", [
    ("indices", 3, 0x80),     # high byte of an int32 index: negative id
    ("indices", 1, 0x7F),     # a large positive id
    ("offsets", 7, 0x80),     # a negative offset
    ("offsets", 8 * 5 + 2, 0x01),  # an offset off by 65536: offsets decrease after it
])
def test_out_of_bounds_structure_is_refused_on_open(clean_store, tmp_path, array, offset, mask):
    store = tmp_path / "s"
    shutil.copytree(clean_store, store)
    path = store / f"{array}.npy"
    data = bytearray(path.read_bytes())
    data[NPY_HEADER_BYTES + offset] ^= mask
    path.write_bytes(bytes(data))
    for name in ALGORITHMS:
        extra = ["--source", "0"] if name in ("bfs", "sssp") else []
        line = assert_clean_error(graphferry("run", name, str(store), "--backend", "cpu", *extra), 1)
        assert f"{array}.npy: damaged store: entry" in line
        break  # one algorithm suffices: the open refuses before any runs (the property test runs all)
    line = assert_clean_error(graphferry("info", str(store)), 1)
    assert f"{array}.npy: damaged store" in line


def test_verify_command_and_run_verify_compare_checksums(clean_store, tmp_path):
    ok = graphferry("verify", str(clean_store))
    assert ok.returncode == 0 and "checksums match" in ok.stdout
    store = tmp_path / "s"
    shutil.copytree(clean_store, store)
    _damage(store, "weights", [(0.5, 0x01)])  # still finite and positive-ish: only checksums see it
    assert graphferry("info", str(store)).returncode == 0
    line = assert_clean_error(graphferry("verify", str(store)), 1)
    assert "weights.npy: checksum mismatch" in line
    line = assert_clean_error(graphferry("run", "wcc", str(store), "--verify", "--backend", "cpu"), 1)
    assert "weights.npy: checksum mismatch" in line
    with pytest.raises(Exception, match="weights.npy: checksum mismatch"):
        open_store(store, verify=True)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf, -1.0])
def test_sssp_refuses_non_finite_or_negative_weights(tmp_path, bad):
    g = _small_graph()
    w = np.array(g.weights)
    w[5] = bad
    write_store(Graph(g.offsets, g.indices, w, directed=False), tmp_path / "s")
    line = assert_clean_error(graphferry("run", "sssp", str(tmp_path / "s"), "--source", "0",
                                         "--backend", "cpu"), 1)
    assert "non-finite" in line and "--source" not in line
    # Algorithms that ignore weights still run.
    assert graphferry("run", "wcc", str(tmp_path / "s"), "--backend", "cpu").returncode == 0


def test_graph_constructor_checks_structure():
    with pytest.raises(ValueError, match=r"indices\[1\]: vertex id 7 is outside \[0, 3\)"):
        Graph(np.array([0, 1, 2, 2]), np.array([1, 7], dtype=np.int32))
    with pytest.raises(ValueError, match=r"offsets\[2\]"):
        Graph(np.array([0, 2, 1, 2]), np.array([1, 0], dtype=np.int32))


# ---------------------------------------------------------------- 2. program cache
_PROGRAM = 'extern "C" __attribute__((visibility("default"))) int gf_answer() { return %d; }\n'


def _entries(cache: Path) -> list[Path]:
    return sorted((cache / "cpu").glob("*.so"))


@pytest.mark.parametrize("damage", ["truncate", "empty", "garbage", "no-footer"])
def test_damaged_cache_entry_is_rebuilt(tmp_path, damage):
    """In a fresh process (as after a crash): a bad entry is rebuilt, never dlopen'ed."""
    cache = tmp_path / "cache"
    code = f"from graphferry.host_ops.compiler import compile_library; print(compile_library({_PROGRAM!r} % 42, label='t').gf_answer())"
    run = lambda: subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                 env=_env(GRAPHFERRY_CACHE_DIR=str(cache)), timeout=120)
    first = run()
    assert first.returncode == 0 and first.stdout.strip() == "42", first.stderr
    (entry,) = _entries(cache)
    data = entry.read_bytes()
    if damage == "truncate":
        entry.write_bytes(data[: len(data) // 3])
    elif damage == "empty":
        entry.write_bytes(b"")
    elif damage == "garbage":
        entry.write_bytes(bytes(len(data)))
    else:  # an entry written by an older graphferry, or by hand: no footer to vouch for it
        from graphferry.host_ops.compiler import FOOTER_BYTES

        entry.write_bytes(data[:-FOOTER_BYTES])
    again = run()
    assert again.returncode == 0 and again.stdout.strip() == "42", (again.returncode, again.stderr)
    from graphferry.host_ops.compiler import entry_is_valid

    assert entry_is_valid(entry)


def test_killed_compilers_temporaries_are_removed(tmp_path):
    cache = tmp_path / "cache"
    code = f"from graphferry.host_ops.compiler import compile_library; compile_library({_PROGRAM!r} % 5, label='t')"
    dead = subprocess.run([sys.executable, "-c", "from graphferry.store import owner_tag; print(owner_tag())"],
                          capture_output=True, text=True, env=_env(), check=True).stdout.strip()
    (cache / "cpu").mkdir(parents=True)
    left = cache / "cpu" / f".t-{dead}-abc.so"  # what SIGKILL during a compile leaves
    left.write_bytes(b"half")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=_env(GRAPHFERRY_CACHE_DIR=str(cache)), timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert not left.exists()


@pytest.mark.slow  # compiles every program of wcc twice into a fresh cache: 26 s on 2 cores
def test_damaged_cache_does_not_crash_a_run(tmp_path, clean_store):
    cache = tmp_path / "cache"
    assert graphferry("run", "wcc", str(clean_store), "--backend", "cpu", GRAPHFERRY_CACHE_DIR=str(cache)).returncode == 0
    for entry in _entries(cache):
        entry.write_bytes(entry.read_bytes()[:1000])  # what a full disk or a killed copy leaves
    proc = graphferry("run", "wcc", str(clean_store), "--backend", "cpu", GRAPHFERRY_CACHE_DIR=str(cache))
    assert proc.returncode == 0, (proc.returncode, proc.stderr)


def _compile_in_child(args: tuple[str, int]) -> int:
    cache, value = args
    os.environ["GRAPHFERRY_CACHE_DIR"] = cache
    from graphferry.host_ops.compiler import compile_library

    return compile_library(_PROGRAM % value, label="race").gf_answer()


def test_several_processes_compiling_at_once(tmp_path):
    import multiprocessing

    ctx = multiprocessing.get_context("spawn")  # fresh interpreters: no in-process memo shared
    jobs = [(str(tmp_path / "cache"), 7)] * 4 + [(str(tmp_path / "cache"), 8)] * 2
    with ctx.Pool(4) as pool:
        got = pool.map(_compile_in_child, jobs)
    assert got == [7, 7, 7, 7, 8, 8]
    from graphferry.host_ops.compiler import entry_is_valid

    entries = _entries(tmp_path / "cache")
    assert len(entries) == 2 and all(entry_is_valid(e) for e in entries)
    assert not [p for p in (tmp_path / "cache" / "cpu").iterdir() if p.name.startswith(".")]  # no temporaries left


# ------------------------------------------------- 3. killed conversions, full disk
@pytest.fixture(scope="module")
def big_edge_list(tmp_path_factory) -> Path:
    """An edge list that takes a second or more to convert on a loaded 2-core machine."""
    path = tmp_path_factory.mktemp("input") / "big.el"
    rng = np.random.default_rng(3)
    e = rng.integers(0, 1 << 20, size=(3_000_000, 2))
    with open(path, "w") as f:
        f.write("\n".join(f"{a} {b}" for a, b in e.tolist()))
        f.write("\n")
    return path


def _leftovers(directory: Path, tmpdir: Path) -> list[str]:
    names = [p.name for p in directory.iterdir() if p.name.startswith(".")]
    return names + [p.name for p in tmpdir.iterdir() if p.name.startswith("graphferry-build-")]


def _start_convert(src: Path, out: Path, tmpdir: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "graphferry", "-q", "convert", str(src), str(out),
                             "--drop-duplicates"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=_env(TMPDIR=str(tmpdir)))


def _signal_during_build(src: Path, out: Path, tmpdir: Path, sig: int) -> subprocess.Popen:
    """Start a conversion and deliver ``sig`` while its temporary store exists.

    The process is frozen (SIGSTOP) as soon as the temporary store appears, so
    the signal cannot arrive after the conversion finished; a run that finished
    before it could be frozen (a fast machine) is retried.
    """
    import signal
    import time

    for _ in range(5):
        proc = _start_convert(src, out, tmpdir)
        t0 = time.monotonic()
        while proc.poll() is None and time.monotonic() - t0 < 120:
            if any(p.name.startswith(f".{out.name}.tmp-") for p in out.parent.iterdir()):
                proc.send_signal(signal.SIGSTOP)
                break
            time.sleep(0.005)
        if proc.poll() is None and any(p.name.startswith(f".{out.name}.tmp-") for p in out.parent.iterdir()):
            proc.send_signal(sig)
            proc.send_signal(signal.SIGCONT)
            return proc
        proc.kill()
        proc.communicate()
        shutil.rmtree(out, ignore_errors=True)
    pytest.fail("could not catch the conversion while it wrote its temporary store")


@pytest.mark.parametrize("sig, code, word", [("SIGTERM", 143, "terminated"), ("SIGINT", 130, "interrupted")])
def test_signal_during_convert_leaves_nothing(big_edge_list, tmp_path, sig, code, word):
    import signal

    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    out = tmp_path / "out" / "g.store"
    out.parent.mkdir()
    proc = _signal_during_build(big_edge_list, out, tmpdir, getattr(signal, sig))
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == code, (proc.returncode, err)
    assert [ln for ln in err.splitlines() if ln.strip()] == [f"error: {word}"]
    assert not out.exists()
    assert _leftovers(out.parent, tmpdir) == []


@pytest.mark.parametrize("where", ["after mkdir", "writer made", "spill mkdir"])
@pytest.mark.parametrize("sig, code, word", [("SIGTERM", 143, "terminated"), ("SIGINT", 130, "interrupted")])
def test_signal_at_the_worst_instant_leaves_nothing(tmp_path, monkeypatch, where, sig, code, word):
    """The instants a real signal can hit (the race the test above catches only sometimes):
    right after a work directory's mkdir, and after the writer is made but before the ``try`` that owns it."""
    import signal

    import graphferry.store as store
    from graphferry.cli.exits import Stopped
    from graphferry.io import builder

    signum = getattr(signal, sig)
    real_mkdir = os.mkdir

    def mkdir_then_signal(path, *args, **kwargs):
        real_mkdir(path, *args, **kwargs)
        name = os.path.basename(path)
        if (where == "after mkdir" and ".tmp-" in name) or (where == "spill mkdir" and "graphferry-build-" in name):
            raise Stopped(signum)

    real_init = store.StoreWriter.__init__

    def init_then_signal(self, *args, **kwargs):
        real_init(self, *args, **kwargs)
        raise Stopped(signum)

    monkeypatch.setattr(os, "mkdir", mkdir_then_signal)
    if where == "writer made":
        monkeypatch.setattr(store.StoreWriter, "__init__", init_then_signal)
    if where == "spill mkdir":  # every chunk spills to a work directory under TMPDIR
        builder_init = builder.CSRBuilder.__init__

        def init_spilling(self, *args, **kwargs):
            builder_init(self, *args, **kwargs)
            self.memory_bytes = 0

        monkeypatch.setattr(builder.CSRBuilder, "__init__", init_spilling)
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    monkeypatch.setenv("TMPDIR", str(tmpdir))
    monkeypatch.setattr(tempfile, "tempdir", None)  # gettempdir() reads TMPDIR again
    src = tmp_path / "g.el"
    src.write_text("".join(f"{i} {i + 1}\n" for i in range(200)))
    out = tmp_path / "out" / "g.store"
    out.parent.mkdir()
    result = _cli("convert", str(src), str(out))
    assert _cli_error(result, code) == f"error: {word}"
    assert not out.exists() and _leftovers(out.parent, tmpdir) == []
    assert not store._UNFINISHED


@pytest.mark.parametrize("sig, code", [("SIGTERM", 143), ("SIGINT", 130)])
def test_signal_between_the_renames_of_a_replacement_puts_the_old_store_back(tmp_path, monkeypatch, sig, code):
    # convert --force moves the old store aside, then the new one in: a signal in between
    # leaves the old store where it was, and nothing else
    import signal

    from graphferry.cli.exits import Stopped

    out = tmp_path / "g.store"
    write_store(_small_graph(), out)
    src = tmp_path / "g.el"
    src.write_text("0 1\n1 2\n")
    real_rename = os.rename

    def rename_then_signal(a, b, *args, **kwargs):
        real_rename(a, b, *args, **kwargs)
        if ".old-" in os.path.basename(b):
            raise Stopped(getattr(signal, sig))

    monkeypatch.setattr(os, "rename", rename_then_signal)
    result = _cli("convert", str(src), str(out), "--force")
    assert result.exit_code == code, result.stderr
    assert open_store(out).n == _small_graph().n
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.el", "g.store"]


@pytest.mark.parametrize("suffix", [".csv", ".npy", ".json"])
def test_signal_right_after_an_output_file_is_made_leaves_nothing(clean_store, tmp_path, monkeypatch, suffix):
    # `run --out` / `--record` write under a temporary name and rename: a signal the instant that
    # name was made (before any try owns it) leaves neither it nor a half-written output
    import signal

    import graphferry.store as store
    from graphferry.cli.exits import Stopped

    real_open = os.open

    def open_then_signal(path, flags, *args, **kwargs):
        fd = real_open(path, flags, *args, **kwargs)
        if flags & os.O_EXCL and os.path.basename(path).startswith(".out"):
            os.close(fd)
            raise Stopped(signal.SIGINT)
        return fd

    monkeypatch.setattr(os, "open", open_then_signal)
    out = tmp_path / f"out{suffix}"
    args = ["run", "wcc", str(clean_store), "--backend", "cpu"]
    args += ["--record", str(out)] if suffix == ".json" else ["--out", str(out)]
    result = _cli(*args)
    assert result.exit_code == 130, (result.exit_code, result.stderr)
    assert list(tmp_path.iterdir()) == [] and not store._UNFINISHED


def test_a_forked_child_leaves_its_parents_work_alone(tmp_path):
    # a child forked while a store is being written exits (atexit runs) without removing it
    import graphferry.store as store

    work = store.make_work_dir(tmp_path, ".g.tmp-")
    try:
        pid = os.fork()
        if pid == 0:  # the child: its exit runs remove_unfinished_work
            os._exit(0 if store.remove_unfinished_work() == [] else 1)
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0 and work.is_dir()
    finally:
        store.finish_work(work, remove=True)
    assert not work.exists()


def test_next_convert_removes_what_a_killed_one_left(big_edge_list, tmp_path):
    import signal

    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    out = tmp_path / "out" / "g.store"
    out.parent.mkdir()
    proc = _signal_during_build(big_edge_list, out, tmpdir, signal.SIGKILL)
    proc.communicate(timeout=60)
    left = _leftovers(out.parent, tmpdir)
    assert any(".tmp-" in name for name in left), left  # what SIGKILL leaves (no handler runs)
    # A spill directory of another dead process, and work of live ones, which must survive.
    from graphferry.store import owner_tag

    dead_tag = subprocess.run([sys.executable, "-c", "from graphferry.store import owner_tag; print(owner_tag())"],
                              capture_output=True, text=True, env=_env(), check=True).stdout.strip()
    (tmpdir / f"graphferry-build-{dead_tag}-abc").mkdir()
    live = out.parent / f".g.store.tmp-{owner_tag()}-live"
    live.mkdir()
    live_build = tmpdir / f"graphferry-build-{owner_tag()}-live"
    live_build.mkdir()
    small = tmp_path / "small.el"
    small.write_text("0 1\n1 2\n")
    done = subprocess.run([sys.executable, "-m", "graphferry", "-q", "convert", str(small), str(out)],
                          capture_output=True, text=True, env=_env(TMPDIR=str(tmpdir)), timeout=120)
    assert done.returncode == 0, done.stderr
    assert sorted(_leftovers(out.parent, tmpdir)) == sorted([live.name, live_build.name])
    assert open_store(out).m == 2


def test_interrupted_replacement_is_restored(tmp_path):
    """Killed between moving the old store aside and moving the new one in: the old one comes back."""
    write_store(_small_graph(), tmp_path / "g.store")
    aside = tmp_path / ".g.store.old-00000000-1-1-x"  # another host's: never touched
    from graphferry.store import _host_tag

    dead = tmp_path / f".g.store.old-{_host_tag()}-999999999-1-x"
    os.rename(tmp_path / "g.store", dead)
    aside.mkdir()
    g = Graph.from_edges(np.array([0]), np.array([1]), n=2)
    # The next writer of that target first puts the old store back, then finds it taken.
    with pytest.raises(Exception, match="already exists"):
        write_store(g, tmp_path / "g.store")
    assert open_store(tmp_path / "g.store").n == _small_graph().n and not dead.exists() and aside.exists()


def test_full_disk_is_an_error_naming_the_file(tmp_path, monkeypatch):
    """ENOSPC injected where the store reserves its files (works without root)."""
    import errno

    from graphferry.errors import DiskFullError
    from graphferry.generators import kronecker_graph

    def full(fd, offset, length):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "posix_fallocate", full)
    with pytest.raises(DiskFullError, match=r"no space left on device while writing .*indices\.npy"):
        kronecker_graph(6, store=tmp_path / "k.store")
    assert list(tmp_path.iterdir()) == []


@pytest.fixture
def small_tmpfs(tmp_path):
    """A 1 MiB tmpfs (needs root and mount; skipped elsewhere)."""
    mnt = tmp_path / "full"
    mnt.mkdir()
    proc = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mnt)], capture_output=True)
    if proc.returncode != 0:
        pytest.skip("cannot mount a small tmpfs here")
    yield mnt
    subprocess.run(["umount", "-l", str(mnt)], capture_output=True)


def test_full_disk_during_convert_and_out(small_tmpfs, tmp_path, clean_store):
    src = tmp_path / "g.el"
    rng = np.random.default_rng(0)
    np.savetxt(src, rng.integers(0, 50_000, size=(400_000, 2)), fmt="%d")
    out = small_tmpfs / "g.store"
    proc = graphferry("convert", str(src), str(out), TMPDIR=str(small_tmpfs))
    line = assert_clean_error(proc, 1)
    assert line.startswith(f"error: no space left on device while writing {small_tmpfs}"), line
    assert list(small_tmpfs.iterdir()) == []  # temporaries removed: the disk is free again
    # --out and --record on a full disk name their path; nothing half-written stays.
    filler = small_tmpfs / "filler"
    with pytest.raises(OSError):
        with open(filler, "wb") as f:
            f.write(bytes(4 << 20))
    for opt, name in (("--out", "r.csv"), ("--record", "rec.json")):
        proc = graphferry("run", "pagerank", str(clean_store), "--backend", "cpu", opt, str(small_tmpfs / name))
        line = assert_clean_error(proc, 1)
        assert line == f"error: no space left on device while writing {small_tmpfs / name}", line
    assert [p.name for p in small_tmpfs.iterdir()] == ["filler"]


# ---------------------------------------------------------------- 4. one id space per output
@pytest.fixture(scope="module")
def renumbered_store(tmp_path_factory) -> Path:
    """A path 100 -> 200 -> 300 plus an isolated 400 and a separate edge 500 -> 600, via an edge list."""
    d = tmp_path_factory.mktemp("ids")
    (d / "g.el").write_text("100 200\n200 300\n500 600\n400 400\n")
    proc = graphferry("convert", str(d / "g.el"), str(d / "g.store"), "--renumber", "--directed")
    assert proc.returncode == 0, proc.stderr
    return d / "g.store"


@pytest.mark.parametrize("suffix", [".csv", ".parquet", ".npy"])
def test_parents_and_labels_use_the_input_ids(renumbered_store, tmp_path, suffix):
    import pandas as pd

    def table(args):
        out = tmp_path / f"t{suffix}"
        proc = graphferry("run", *args, str(renumbered_store), "--backend", "cpu", "--out", str(out), "--json")
        assert proc.returncode == 0, proc.stderr
        frame = pd.DataFrame(np.load(out)) if suffix == ".npy" else (
            pd.read_csv(out) if suffix == ".csv" else pd.read_parquet(out))
        return json.loads(proc.stdout), frame.set_index("vertex")

    summary, bfs_table = table(["bfs", "--source", "200"])
    assert summary["values"]["source"] == 200
    assert bfs_table.loc[300, "parents"] == 200 and bfs_table.loc[200, "parents"] == 200
    assert bfs_table.loc[100, "parents"] == -1  # unreached
    summary, sssp_table = table(["sssp", "--source", "100"])
    assert summary["values"]["source"] == 100 and sssp_table.loc[300, "distances"] == 2
    _, wcc_table = table(["wcc"])
    assert wcc_table.loc[300, "labels"] == 100 and wcc_table.loc[600, "labels"] == 500
    assert wcc_table.loc[400, "labels"] == 400


def test_result_to_table_and_input_ids_with_string_ids():
    from graphferry.algorithms import bfs

    g = Graph.from_edges(np.array([0, 1]), np.array([1, 2]), n=4)
    g.original_ids = np.array(["a", "b", "c", "d"])
    r = bfs(g, "b", backend="cpu")
    assert r.parents.tolist() == [-1, 1, 1, -1]  # the API's values stay internal, as documented
    assert r.to_table()["parents"].tolist() == ["", "b", "b", ""]
    assert r.input_ids("source") == "b"


# ---------------------------------------------------------------- 5. user errors are user errors
def _cli(*args: str):
    from typer.testing import CliRunner

    from graphferry.cli import app

    return CliRunner().invoke(app, list(args))


def _cli_error(result, code: int) -> str:
    assert result.exit_code == code, (result.exit_code, result.stderr, result.stdout)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "internal error" not in lines[0], result.stderr
    return lines[0]


@pytest.mark.parametrize("args, code, words", [
    (["--budget", "0"], 2, ["--budget", "positive"]),
    (["--budget", "-5"], 2, ["--budget", "not a size"]),
    (["--budget", "abc"], 2, ["--budget", "not a size"]),
    (["--budget", "1e3"], 2, ["--budget", "no exponents"]),
    (["--partition-bytes", "1"], 2, ["--partition-bytes", "minimum of 4.0 KiB"]),
    (["--partition-bytes", "4095"], 2, ["--partition-bytes", "minimum"]),
    (["--source", "abc"], 1, ["--source abc", "must be an integer"]),
    (["--source", "2.0"], 1, ["--source 2.0", "must be an integer"]),
    (["--source", "-1"], 1, ["--source -1", "not in the graph"]),
    (["--backend", "cuda"], 1, ["--backend cuda", "--backend cpu"]),
])
def test_bad_run_options_name_the_option(clean_store, args, code, words):
    from graphferry.backends import cuda_available

    if "cuda" in args and cuda_available():
        pytest.skip("there is a GPU here")
    base = ["run", "bfs", str(clean_store), "--backend", "cpu"]
    if "--source" not in args:
        base += ["--source", "0"]
    if "--backend" in args:
        base.remove("--backend"), base.remove("cpu")
    line = _cli_error(_cli(*base, *args), code)
    for w in words:
        assert w in line, line


def test_accepted_sizes(clean_store):
    from graphferry.cli import parse_size

    assert [parse_size(s) for s in ("64MiB", "1GB", "4096", "1.5KiB", "2k")] == [64 << 20, 10**9, 4096, 1536, 2048]
    r = _cli("run", "wcc", str(clean_store), "--backend", "cpu", "--budget", "64MiB", "--partition-bytes", "4KiB")
    assert r.exit_code == 0, r.stderr


@pytest.mark.parametrize("args, flags", [
    ([], "--damping and --iterations"),
    (["--damping", "0.85"], "--iterations"),
    (["--iterations", "3"], "--damping"),
])
def test_pagerank_ldbc_without_its_parameters_is_a_usage_error(clean_store, args, flags):
    line = _cli_error(_cli("run", "pagerank_ldbc", str(clean_store), "--backend", "cpu", *args), 2)
    assert f"pagerank_ldbc needs {flags}" in line


def test_cli_speaks_cli_words_when_the_target_appears_late(clean_store, tmp_path, monkeypatch):
    """The store layer's 'overwrite=True' becomes '--force' (the target appeared after the early check)."""
    import graphferry.cli as cli

    monkeypatch.setattr(cli.graphs, "_check_output", lambda path, force: None)
    src = tmp_path / "g.el"
    src.write_text("0 1\n")
    for args in (["convert", str(src), str(clean_store)], ["generate", "kronecker", "--scale", "3", str(clean_store)]):
        line = _cli_error(_cli(*args), 1)
        assert "--force" in line and "overwrite" not in line, line


def test_python_api_rejects_float_and_bool_vertex_ids():
    from graphferry.algorithms import bfs, sssp

    with pytest.raises(TypeError, match="integer vertex ids, got dtype float64"):
        Graph.from_edges(np.array([0.5, 1.2]), np.array([1, 0]))
    with pytest.raises(TypeError, match="dtype bool"):
        Graph.from_edges(np.array([True, False]), np.array([1, 0]))
    g = Graph.from_edges(np.array([0, 1]), np.array([1, 2]), n=3)
    for bad in (2.0, True, np.float32(1), None, "1"):
        with pytest.raises(TypeError, match="vertex id must be"):
            bfs(g, bad, backend="cpu")
    with pytest.raises(TypeError):
        sssp(g, False, backend="cpu")
    assert bfs(g, np.int64(1), backend="cpu").levels.tolist() == [-1, 0, 1]


# ---------------------------------------------------------------- 6. inputs
@pytest.mark.parametrize("suffix, compress", [
    (".gz", lambda b: __import__("gzip").compress(b)),
    (".bz2", lambda b: __import__("bz2").compress(b)),
    (".xz", lambda b: __import__("lzma").compress(b)),
])
def test_truncated_compressed_input_is_named_truncated(tmp_path, suffix, compress):
    text = "".join(f"{i} {(i * 7) % 1000}\n" for i in range(20000)).encode()
    whole = compress(text)
    path = tmp_path / f"g.el{suffix}"
    path.write_bytes(whole[: len(whole) * 2 // 3])
    for args in (["convert", str(path), str(tmp_path / "g.store")], ["info", str(path)]):
        line = _cli_error(_cli(*args), 1)
        assert line.startswith(f"error: {path}: truncated ") and "ends before" in line, line
    assert not (tmp_path / "g.store").exists()
    path.write_bytes(whole)
    assert _cli("convert", str(path), str(tmp_path / "g.store")).exit_code == 0


def test_binary_input_error_is_short_and_escaped(tmp_path):
    path = tmp_path / "g.el"
    path.write_bytes(b"\x7fELF\x02\x01\x01" + bytes(range(256)) * 20)
    line = _cli_error(_cli("convert", str(path), str(tmp_path / "s")), 1)
    assert line.isascii() and len(line.replace(str(path), "")) < 200, line
    assert "\\x7fELF" in line and "binary data?" in line


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
@pytest.mark.parametrize("column", ["weight", "W", "value", "cost"])
def test_weight_named_table_column_makes_a_weighted_graph(tmp_path, fmt, column):
    import pandas as pd

    df = pd.DataFrame({"src": [0, 1, 2], "dst": [1, 2, 0], "tag": [7, 7, 7], column: [0.5, 1.5, 2.5]})
    path = tmp_path / f"e.{fmt}"
    df.to_csv(path, index=False) if fmt == "csv" else df.to_parquet(path)
    store = tmp_path / "s"
    assert _cli("convert", str(path), str(store)).exit_code == 0
    g = open_store(store)
    assert g.weighted and sorted(np.asarray(g.weights).tolist()) == [0.5, 1.5, 2.5]
    info = _cli("info", str(store))
    assert f"yes (column '{column}')" in info.stdout
    assert json.loads(_cli("info", str(path), "--json").stdout)["weight_column"] == column
    assert _cli("convert", str(path), str(tmp_path / "u"), "--unweighted").exit_code == 0
    assert not open_store(tmp_path / "u").weighted


def test_galois_offset_error_names_the_vertex(tmp_path):
    n, ends, dests = 5, [1, 3, 2, 4, 4], [1, 2, 3, 4]
    raw = np.array([1, 0, n, len(dests)], dtype="<u8").tobytes() + np.array(ends, "<u8").tobytes()
    raw += np.array(dests, "<u4").tobytes()
    path = tmp_path / "g.gr"
    path.write_bytes(raw)
    line = _cli_error(_cli("convert", str(path), str(tmp_path / "s")), 1)
    assert "vertex 2: its edges end at 2, before they start at 3" in line, line


@pytest.mark.parametrize("args, flag", [
    (["pagerank", "--damping", "2"], "--damping must lie in [0, 1]"),
    (["pagerank", "--max-iterations", "-1"], "--max-iterations must be >= 0"),
    (["pagerank", "--tol", "0"], "--tol must be a positive number"),
    (["pagerank_ldbc", "--damping", "0.85", "--iterations", "-1"], "--iterations must be a non-negative"),
    (["cdlp", "--max-iterations", "-3"], "--max-iterations must be >= 0"),
])
def test_algorithm_argument_errors_speak_cli_words(clean_store, args, flag):
    line = _cli_error(_cli("run", args[0], str(clean_store), "--backend", "cpu", *args[1:]), 1)
    assert flag in line and "argument '" not in line, line


# ---------------------------------------------------------------- 7. memory
def test_info_states_what_each_algorithm_needs(clean_store):
    from graphferry.algorithms import ALGORITHMS as ALL

    data = json.loads(_cli("info", str(clean_store), "--json").stdout)
    est = data["memory_estimates"]
    assert set(est) == set(ALL)
    arrays = data["arrays"]["offsets"]["bytes"] + data["arrays"]["indices"]["bytes"]
    for name, e in est.items():
        assert e["bytes"] > arrays and "B/vertex" in e["formula"], (name, e)
    text = _cli("info", str(clean_store)).stdout
    assert "memory to run" in text and "triangle_count" in text
