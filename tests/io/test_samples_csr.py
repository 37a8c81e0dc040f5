"""The compiled generator and in-memory CSR build behind ``graphferry generate`` (issue 34).

The compiled Kronecker sampler must draw kronecker_edges's samples bit for bit;
the in-memory build must give scipy's CSR of the same samples (rows sorted,
repeats and self-loops as asked); and a generated store must be the one the
chunked builder writes (the same checksums).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from graphferry.generators import compiled_kronecker_edges, kronecker_edges, kronecker_graph
from graphferry.host_ops import samples_csr
from graphferry.host_ops.samples_csr import SamplesCSR

pytestmark = pytest.mark.skipif(not samples_csr.available(), reason="needs a C++ compiler with OpenMP")

SRC = Path(__file__).resolve().parents[2] / "src"


@pytest.mark.parametrize("scale, edge_factor, seed, abc", [
    (0, 16, 0, (0.57, 0.19, 0.19)), (3, 1, 5, (0.57, 0.19, 0.19)), (9, 16, 1, (0.57, 0.19, 0.19)),
    (12, 5, 2, (0.45, 0.15, 0.15)), (16, 16, 3, (0.25, 0.25, 0.25)),
])
def test_compiled_kronecker_samples_are_numpys(scale, edge_factor, seed, abc):
    a, b, c = abc
    want = [np.concatenate(x) for x in zip(*kronecker_edges(scale, edge_factor, a=a, b=b, c=c, seed=seed))]
    got = [np.concatenate(x) for x in zip(*compiled_kronecker_edges(scale, edge_factor, a=a, b=b, c=c, seed=seed,
                                                                     chunk_edges=1 << 16))]
    assert got[0].dtype == np.int32
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])


def _scipy_csr(src, dst, n, directed, drop_loops, dedup):
    """The oracle: scipy's CSR of the arcs (both directions of an undirected edge, a loop once)."""
    src, dst = np.asarray(src, np.int64), np.asarray(dst, np.int64)
    if drop_loops:
        keep = src != dst
        src, dst = src[keep], dst[keep]
    if not directed:
        off = src != dst
        src, dst = np.concatenate([src, dst[off]]), np.concatenate([dst, src[off]])
    a = sp.coo_matrix((np.ones(len(src), np.int64), (src, dst)), shape=(n, n)).tocsr()
    a.sum_duplicates()
    a.sort_indices()
    counts = np.ones_like(a.data) if dedup else a.data
    rows = np.repeat(np.arange(n), np.diff(a.indptr))
    per_row = np.bincount(np.repeat(rows, counts), minlength=n)
    offsets = np.concatenate([[0], np.cumsum(per_row)])
    return offsets, np.repeat(a.indices, counts)


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 40), data=st.data(), directed=st.booleans(), drop_loops=st.booleans(),
       dedup=st.booleans(), chunks=st.integers(1, 3))
def test_in_memory_csr_is_scipys(n, data, directed, drop_loops, dedup, chunks):
    k = data.draw(st.integers(0, 200))
    src = np.array(data.draw(st.lists(st.integers(0, n - 1), min_size=k, max_size=k)), dtype=np.int64)
    dst = np.array(data.draw(st.lists(st.integers(0, n - 1), min_size=k, max_size=k)), dtype=np.int64)
    b = SamplesCSR(n, directed=directed, drop_self_loops=drop_loops, drop_duplicates=dedup)
    for part in np.array_split(np.arange(k), chunks):
        b.add(src[part], dst[part])
    offsets, indices = b.finish_arrays()
    want_off, want_idx = _scipy_csr(src, dst, n, directed, drop_loops, dedup)
    np.testing.assert_array_equal(offsets, want_off)
    np.testing.assert_array_equal(indices, want_idx)


def test_ids_outside_the_graph_are_refused():
    b = SamplesCSR(4, directed=True, drop_self_loops=True, drop_duplicates=True)
    with pytest.raises(ValueError, match="outside"):
        b.add(np.array([0, 4]), np.array([1, 2]))
    with pytest.raises(ValueError, match="outside"):
        b.add(np.array([-1]), np.array([1]))


@pytest.mark.parametrize("options", [[], ["--directed"], ["--keep-self-loops"], ["--edge-factor", "3"]])
def test_generated_store_is_the_chunked_builders(tmp_path, options):
    def generate(out: Path, **env: str) -> dict:
        proc = subprocess.run([sys.executable, "-m", "graphferry", "-q", "generate", "kronecker", "--scale", "11",
                               "--seed", "4", *options, str(out)], capture_output=True, text=True, timeout=300,
                              env=dict(os.environ, PYTHONPATH=str(SRC), **env))
        assert proc.returncode == 0, proc.stderr
        return json.loads((out / "manifest.json").read_text())

    fast = generate(tmp_path / "fast.store")
    chunked = generate(tmp_path / "chunked.store", GRAPHFERRY_CHUNKED_BUILD="1")
    for key in ("n", "m", "directed", "weighted", "dtypes", "meta"):
        assert fast[key] == chunked[key], key
    for array in ("offsets", "indices"):
        assert fast["files"][array]["blake2b"] == chunked["files"][array]["blake2b"], array


def test_in_memory_graph_equals_the_chunked_one(monkeypatch):
    fast = kronecker_graph(10, seed=6)
    monkeypatch.setenv("GRAPHFERRY_CHUNKED_BUILD", "1")
    chunked = kronecker_graph(10, seed=6)
    np.testing.assert_array_equal(fast.offsets, chunked.offsets)
    np.testing.assert_array_equal(fast.indices, chunked.indices)
    assert fast.meta == chunked.meta and fast.name == chunked.name
