"""Graph stores: round trips, refusal of damaged stores, atomic writes."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphferry.errors import StoreError
from graphferry.graph import Graph
from graphferry.store import (StoreWriter, is_store, open_store, read_manifest, remove_store,
                              write_store)


def _graph(weighted=True, ids=None, directed=True, n=6):
    rng = np.random.default_rng(3)
    src = rng.integers(0, n, 20)
    dst = rng.integers(0, n, 20)
    w = rng.random(20).astype(np.float32) if weighted else None
    g = Graph.from_edges(src, dst, w, n=n, directed=directed, name="g")
    if ids is not None:
        g.original_ids = ids
    return g


def _same(a: Graph, b: Graph) -> None:
    assert (a.n, a.m, a.directed, a.weighted) == (b.n, b.m, b.directed, b.weighted)
    assert np.array_equal(np.asarray(a.offsets), np.asarray(b.offsets))
    assert np.array_equal(np.asarray(a.indices), np.asarray(b.indices))
    assert a.indices.dtype == b.indices.dtype
    if a.weighted:
        assert np.array_equal(np.asarray(a.weights), np.asarray(b.weights))
    if a.original_ids is None:
        assert b.original_ids is None
    else:
        assert np.array_equal(np.asarray(a.original_ids), np.asarray(b.original_ids))


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("ids", [None, "int", "str"])
def test_round_trip(tmp_path, weighted, ids):
    orig = {None: None, "int": np.arange(6, dtype=np.int64) * 10 - 7,
            "str": np.array(["a", "bb", "c", "d", "e", "ff"])}[ids]
    g = _graph(weighted, orig, directed=False)
    write_store(g, tmp_path / "s")
    h = open_store(tmp_path / "s", verify=True)
    _same(g, h)
    assert isinstance(h.indices, np.memmap) and not h.indices.flags.writeable
    assert h.name == "g" and h.meta["store"] == str(tmp_path / "s")
    m = read_manifest(tmp_path / "s")
    assert m["format"] == "graphferry-store" and m["version"] == 1
    assert m["weighted"] is weighted and m["renumbered"] is (ids is not None)
    for key, entry in m["files"].items():
        assert entry["bytes"] == (tmp_path / "s" / entry["file"]).stat().st_size
        assert len(entry["blake2b"]) == 64


@settings(max_examples=25, deadline=None)
@given(n=st.integers(0, 40), k=st.integers(0, 120), weighted=st.booleans(),
       directed=st.booleans(), seed=st.integers(0, 2**16))
def test_round_trip_random(tmp_path_factory, n, k, weighted, directed, seed):
    rng = np.random.default_rng(seed)
    k = k if n else 0
    src, dst = rng.integers(0, max(n, 1), k), rng.integers(0, max(n, 1), k)
    w = rng.normal(size=k).astype(np.float32) if weighted else None
    g = Graph.from_edges(src, dst, w, n=n, directed=directed)
    path = tmp_path_factory.mktemp("s") / "store"
    write_store(g, path)
    _same(g, open_store(path, verify=True))


def test_empty_graphs(tmp_path):
    for n in (0, 3):
        g = Graph(np.zeros(n + 1, np.int64), np.zeros(0, np.int32))
        write_store(g, tmp_path / f"e{n}")
        h = open_store(tmp_path / f"e{n}", verify=True)
        assert h.n == n and h.m == 0


def test_existing_target_and_overwrite(tmp_path):
    g = _graph()
    write_store(g, tmp_path / "s")
    with pytest.raises(StoreError, match="already exists"):
        write_store(g, tmp_path / "s")
    h = _graph(weighted=False)
    write_store(h, tmp_path / "s", overwrite=True)
    assert not open_store(tmp_path / "s").weighted
    other = tmp_path / "not_a_store"
    other.mkdir()
    (other / "precious.txt").write_text("keep me")
    with pytest.raises(StoreError, match="not a graph store"):
        write_store(g, other, overwrite=True)
    assert (other / "precious.txt").read_text() == "keep me"
    with pytest.raises(StoreError):
        remove_store(other)
    remove_store(tmp_path / "s")
    assert not (tmp_path / "s").exists()


def _leftovers(parent: Path) -> list[str]:
    return sorted(p.name for p in parent.iterdir() if p.name.startswith("."))


def test_failed_write_leaves_nothing(tmp_path):
    with pytest.raises(RuntimeError):
        with StoreWriter(tmp_path / "s") as w:
            w.write("offsets", np.array([0, 1], dtype=np.int64))
            raise RuntimeError("conversion failed half way")
    assert not (tmp_path / "s").exists()
    assert _leftovers(tmp_path) == []
    # Object labels cannot be stored: refused before anything appears.
    g = _graph()
    g.original_ids = np.array([1, "a", 2.0, None, 4, 5], dtype=object)
    with pytest.raises(StoreError, match="original_ids"):
        write_store(g, tmp_path / "o")
    assert not (tmp_path / "o").exists() and _leftovers(tmp_path) == []


def test_commit_checks_lengths(tmp_path):
    with pytest.raises(StoreError, match="indices has 2 entries"):
        with StoreWriter(tmp_path / "s") as w:
            w.write("offsets", np.array([0, 1], dtype=np.int64))
            w.write("indices", np.array([0, 0], dtype=np.int32))
            w.commit(n=1, m=1, directed=True)
    assert not (tmp_path / "s").exists() and _leftovers(tmp_path) == []


@pytest.fixture
def store(tmp_path):
    write_store(_graph(ids=np.arange(6, dtype=np.int64)), tmp_path / "s")
    return tmp_path / "s"


def test_missing_pieces(store, tmp_path):
    with pytest.raises(StoreError, match="does not exist"):
        open_store(tmp_path / "nothing")
    os.unlink(store / "weights.npy")
    with pytest.raises(StoreError, match="weights.npy: missing"):
        open_store(store)
    os.unlink(store / "manifest.json")
    with pytest.raises(StoreError, match="manifest.json is missing"):
        open_store(store)


def test_truncated_file(store):
    p = store / "indices.npy"
    size = p.stat().st_size
    with open(p, "r+b") as f:
        f.truncate(size - 4)
    with pytest.raises(StoreError, match=r"indices\.npy: size"):
        open_store(store)


def test_truncated_consistently_with_manifest(store):
    # Someone truncates the file AND edits the manifest's byte count: the
    # .npy header still promises m entries.
    p = store / "indices.npy"
    with open(p, "r+b") as f:
        f.truncate(p.stat().st_size - 8)
    man = json.loads((store / "manifest.json").read_text())
    man["files"]["indices"]["bytes"] -= 8
    (store / "manifest.json").write_text(json.dumps(man))
    with pytest.raises(StoreError, match=r"indices\.npy: .*do not hold"):
        open_store(store)


def test_tampered_content_detected_by_verify(store):
    p = store / "weights.npy"
    data = bytearray(p.read_bytes())
    data[-1] ^= 0x01  # a weight's sign: still finite, the structure still holds
    p.write_bytes(bytes(data))
    open_store(store)  # size, header and structure are fine: only the checksum can tell
    with pytest.raises(StoreError, match=r"weights\.npy: checksum mismatch"):
        open_store(store, verify=True)


def test_tampered_header(store):
    p = store / "weights.npy"
    data = p.read_bytes().replace(b"'<f4'", b"'<i4'")
    p.write_bytes(data)
    with pytest.raises(StoreError, match=r"weights\.npy: dtype"):
        open_store(store)


def test_tampered_offsets(store):
    g = open_store(store)
    off = np.array(g.offsets)
    del g
    off[-1] += 1
    np.save(store / "offsets.npy", off)
    # Same size and header, so only the offsets[n] == m check catches it.
    with pytest.raises(StoreError, match=r"offsets\.npy: damaged store: entry 6: \d+, expected m = "):
        open_store(store)


def test_out_of_range_index_refused_on_open(store):
    g = open_store(store)
    idx = np.array(g.indices)
    del g
    idx[0] = 99
    np.save(store / "indices.npy", idx)
    man = json.loads((store / "manifest.json").read_text())
    from graphferry.store import _checksum

    man["files"]["indices"]["blake2b"] = _checksum(store / "indices.npy")
    (store / "manifest.json").write_text(json.dumps(man))
    # The checksum matches, yet every open checks the structure.
    with pytest.raises(StoreError, match=r"indices\.npy: damaged store: entry 0: vertex id 99 is outside \[0, 6\)"):
        open_store(store)


@pytest.mark.parametrize("edit,match", [
    (lambda m: m.update(format="other"), "not a graphferry-store"),
    (lambda m: m.update(version=99), "version 99"),
    (lambda m: m.update(n=-1), "'n'"),
    (lambda m: m.update(n=m["n"] + 1), "shape"),
    (lambda m: m.update(weighted=False), "weighted"),
    (lambda m: m["files"]["indices"].update(file="../escape.npy"), "leaves the store"),
    (lambda m: m["files"].update(extra={"file": "x.npy"}), "unknown arrays"),
])
def test_bad_manifest(store, edit, match):
    man = json.loads((store / "manifest.json").read_text())
    edit(man)
    (store / "manifest.json").write_text(json.dumps(man))
    with pytest.raises(StoreError, match=match):
        open_store(store)


def test_unreadable_manifest(store):
    (store / "manifest.json").write_text("{not json")
    with pytest.raises(StoreError, match="unreadable manifest"):
        open_store(store)
    assert is_store(store)
