"""Synthetic graphs: Graph500 Kronecker and uniform random (Erdős–Rényi G(n, m)).

Both generators stream edge samples as ``(src, dst)`` int64 chunks so that graphs
far larger than memory allows as an edge list (Kronecker scale 26: 64 M vertices,
1 G edge samples, 16 GiB as int64 pairs) can be fed chunk by chunk into
:class:`graphferry.io.builder.CSRBuilder` and written into a graph store
(``kronecker_graph(26, store=path)``).

Determinism
    Edge sample ``i`` depends only on ``(seed, scale or n, i)``: the samples are
    produced in fixed internal blocks of :data:`BLOCK_EDGES` samples, and block
    ``k`` draws from its own random stream, seeded with
    ``SeedSequence([seed, stream_tag, k])``. The public ``chunk_edges`` only
    regroups blocks and ``threads`` only changes who computes them, so neither
    changes the output. Changing ``edge_factor`` keeps the samples common to both
    edge counts identical (a prefix). Weights are keyed on edge-sample position
    the same way (:func:`edge_weights`).

    The bit generator is SFC64 (measured ~2x faster than Philox here, and the
    Kronecker generator is bound by random-number throughput); stream
    independence comes from SeedSequence hashing the ``(seed, tag, block)`` key.

Example:
    >>> from graphferry.generators import kronecker_edges, kronecker_graph
    >>> chunks = list(kronecker_edges(4, 8, seed=1, chunk_edges=50))
    >>> [len(s) for s, d in chunks]
    [50, 50, 28]
    >>> g = kronecker_graph(10, seed=1)
    >>> g.n, g.directed, bool(g.out_degree.max() > 10 * g.out_degree.mean())
    (1024, False, True)
"""

from __future__ import annotations

import functools
import logging
import os
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Literal

import numpy as np

from .graph import Graph, index_dtype_for
from .io.builder import CSRBuilder

log = logging.getLogger(__name__)

#: Edge samples per internal block. Part of the output's definition: changing
#: it changes every generated graph, so it is fixed. At 2**16 the per-level
#: working set (about 1 MiB) stays in L2; 2**15..2**19 measured within noise
#: of each other (~1.8 ns per sample per level, half of it drawing randoms).
BLOCK_EDGES = 2**16

DEFAULT_CHUNK_EDGES = 2**24

# Stream tags: each kind of randomness has its own family of streams so that,
# for example, asking for weights never shifts the edges.
_TAG_KRONECKER = 1
_TAG_PERMUTATION = 2
_TAG_UNIFORM = 3
_TAG_WEIGHTS = 4

WeightKind = Literal["int", "float"]
ProgressFn = Callable[[int], None]


def _rng(seed: int, tag: int, key: int) -> np.random.Generator:
    if seed < 0:
        raise ValueError(f"seed must be non-negative, got {seed}")
    return np.random.Generator(np.random.SFC64(np.random.SeedSequence([seed, tag, key])))


def _default_threads() -> int:
    # numpy releases the GIL inside random_raw and the ufuncs, so threads scale
    # until Python call overhead between them dominates; beyond ~8 it does not pay.
    return max(1, min(8, os.cpu_count() or 1))


def _ordered_blocks(make: Callable[[int], tuple[np.ndarray, ...]], n_blocks: int,
                    threads: int) -> Iterator[tuple[np.ndarray, ...]]:
    """``make(k)`` for k in order, computed up to ``2 * threads`` blocks ahead."""
    if threads <= 1 or n_blocks <= 1:
        for k in range(n_blocks):
            yield make(k)
        return
    pool = ThreadPoolExecutor(threads, thread_name_prefix="graphferry-gen")
    try:
        pending: deque = deque()
        nxt = 0
        while nxt < n_blocks and len(pending) < 2 * threads:
            pending.append(pool.submit(make, nxt))
            nxt += 1
        while pending:
            out = pending.popleft().result()
            if nxt < n_blocks:
                pending.append(pool.submit(make, nxt))
                nxt += 1
            yield out
    finally:
        # Runs also when the consumer stops early (generator closed).
        pool.shutdown(wait=True, cancel_futures=True)


def _regroup(blocks: Iterator[tuple[np.ndarray, ...]], total: int,
             chunk_edges: int) -> Iterator[tuple[np.ndarray, ...]]:
    """Re-cut a stream of per-block arrays into chunks of ``chunk_edges`` rows."""
    if chunk_edges < 1:
        raise ValueError(f"chunk_edges must be positive, got {chunk_edges}")
    cur: tuple[np.ndarray, ...] | None = None
    pos = 0
    for c0 in range(0, total, chunk_edges):
        size = min(chunk_edges, total - c0)
        if cur is None or pos == len(cur[0]):
            cur, pos = next(blocks), 0
        if pos == 0 and len(cur[0]) == size:
            # Chunk == one whole block: hand the block over, no copy.
            yield cur
            pos = size
            continue
        outs = tuple(np.empty(size, dtype=a.dtype) for a in cur)
        filled = 0
        while filled < size:
            if pos == len(cur[0]):
                cur, pos = next(blocks), 0
            take = min(size - filled, len(cur[0]) - pos)
            for o, a in zip(outs, cur):
                o[filled:filled + take] = a[pos:pos + take]
            filled += take
            pos += take
        yield outs


def _check_count(name: str, value: int) -> int:
    value = int(value)
    if value < 0:
        raise ValueError(f"{name} must be non-negative, got {value}")
    return value


# --------------------------------------------------------------------- Kronecker
def kronecker_permutation(scale: int, *, seed: int = 0) -> np.ndarray:
    """The seeded vertex-label permutation :func:`kronecker_edges` applies.

    Graph500 relabels vertices with a random permutation so that the
    high-degree vertices are not all packed at small ids. int32 while the ids
    fit (half the memory: 256 MiB at scale 26).

    Example:
        >>> p = kronecker_permutation(3, seed=0)
        >>> sorted(p.tolist()) == list(range(8))
        True
    """
    n = 1 << scale
    perm = np.arange(n, dtype=index_dtype_for(n))
    # shuffle in place rather than permutation(n): no int64 temporary of n entries.
    _rng(seed, _TAG_PERMUTATION, scale).shuffle(perm)
    return perm


def _kronecker_thresholds(a: float, b: float, c: float) -> tuple[np.uint32, np.uint32, np.uint32]:
    for name, p in (("a", a), ("b", b), ("c", c)):
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"Kronecker probability {name} must lie in [0, 1], got {p}")
    if a + b + c > 1.0 + 1e-12:
        raise ValueError(f"Kronecker probabilities a + b + c must not exceed 1, got {a + b + c}")

    def t(p: float) -> np.uint32:
        # A uint32 draw u selects the quadrant by comparing against p * 2**32.
        return np.uint32(min(2**32 - 1, round(p * 2**32)))

    return t(a), t(a + b), t(min(1.0, a + b + c))


def _kronecker_block(k: int, *, scale: int, total: int, seed: int, thresholds: tuple, acc_dtype,
                     perm: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """Block ``k`` of :func:`kronecker_edges`'s samples (``BLOCK_EDGES`` of them, the last one
    shorter), from its own random stream: the same whichever thread makes it."""
    ta, tab, tabc = thresholds
    bitgen = _rng(seed, _TAG_KRONECKER, k).bit_generator
    src = np.zeros(BLOCK_EDGES, dtype=acc_dtype)
    dst = np.zeros(BLOCK_EDGES, dtype=acc_dtype)
    ii = np.empty(BLOCK_EDGES, dtype=bool)
    jj = np.empty(BLOCK_EDGES, dtype=bool)
    tmp = np.empty(BLOCK_EDGES, dtype=bool)
    for _level in range(scale):
        # One 64-bit raw draw = two 32-bit uniforms; always a full block so
        # that sample i's draws do not depend on how many samples follow.
        u = bitgen.random_raw(BLOCK_EDGES // 2).view(np.uint32)
        # Quadrant of u in [0, tA) A, [tA, tAB) B, [tAB, tABC) C, else D:
        #   source bit = u >= tAB  (C or D: bottom half)
        #   dest bit   = (u >= tA) ^ (u >= tAB) ^ (u >= tABC)  (B or D: right half)
        np.greater_equal(u, tab, out=ii)
        np.greater_equal(u, ta, out=jj)
        np.bitwise_xor(jj, ii, out=jj)
        np.greater_equal(u, tabc, out=tmp)
        np.bitwise_xor(jj, tmp, out=jj)
        # Append the level's bit (first level = most significant bit; the
        # levels are i.i.d., so the order of bits does not matter).
        np.left_shift(src, 1, out=src)
        np.bitwise_or(src, ii, out=src, casting="unsafe")
        np.left_shift(dst, 1, out=dst)
        np.bitwise_or(dst, jj, out=dst, casting="unsafe")
    count = min(BLOCK_EDGES, total - k * BLOCK_EDGES)
    src, dst = src[:count].astype(np.int64), dst[:count].astype(np.int64)
    if perm is None:
        return src, dst
    # take(mode="clip") with intp indices skips the bounds check and index
    # conversion of perm[src]: measured 2x faster (ids are < n by construction).
    return (perm.take(src, mode="clip").astype(np.int64, copy=False),
            perm.take(dst, mode="clip").astype(np.int64, copy=False))


def kronecker_edges(
    scale: int,
    edge_factor: int = 16,
    *,
    a: float = 0.57,
    b: float = 0.19,
    c: float = 0.19,
    seed: int = 0,
    chunk_edges: int = DEFAULT_CHUNK_EDGES,
    permute: bool = True,
    threads: int | None = None,
) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """Graph500 Kronecker (R-MAT) edge samples as ``(src, dst)`` int64 chunks.

    ``2**scale`` vertices and ``edge_factor * 2**scale`` edge samples, yielded
    in chunks of ``chunk_edges`` (the last one shorter). Each sample descends
    ``scale`` levels of the adjacency matrix; at every level one uniform draw
    picks a quadrant, A (top-left) with probability ``a``, B (top-right) ``b``,
    C (bottom-left) ``c``, D the rest (0.57/0.19/0.19/0.05 as in Graph500), which
    sets one bit of the source and one of the destination. This is the
    noise-free quadrant choice of the Graph500 reference generator, vectorised
    over a block of samples per level. Then vertex ids are relabelled by a
    seeded random permutation (:func:`kronecker_permutation`) unless
    ``permute=False``.

    The samples are raw: they include self-loops and repeated edges, and are
    directed pairs (Graph500 treats them as undirected). Unlike the Graph500
    reference, the order of the samples is not shuffled (that would need the
    whole edge list at once); a CSR build sorts them anyway.

    Deterministic: identical for every ``chunk_edges`` and ``threads`` (see the
    module docstring). Memory: the permutation (4 bytes per vertex) plus about
    two chunks.

    Example:
        >>> import numpy as np
        >>> s1, d1 = map(np.concatenate, zip(*kronecker_edges(6, seed=3, chunk_edges=7)))
        >>> s2, d2 = next(kronecker_edges(6, seed=3))
        >>> len(s1), bool((s1 == s2).all() and (d1 == d2).all()), int(s1.max()) < 64
        (1024, True, True)
    """
    scale = _check_count("scale", scale)
    if scale > 62:
        raise ValueError(f"scale must be at most 62, got {scale}")
    edge_factor = _check_count("edge_factor", edge_factor)
    ta, tab, tabc = _kronecker_thresholds(a, b, c)
    n = 1 << scale
    total = edge_factor * n
    threads = _default_threads() if threads is None else max(1, int(threads))
    n_blocks = -(-total // BLOCK_EDGES)
    perm = kronecker_permutation(scale, seed=seed) if permute else None
    acc_dtype = np.uint32 if scale <= 32 else np.uint64
    log.debug("kronecker scale=%d edge_factor=%d: %d samples in %d blocks, %d threads",
              scale, edge_factor, total, n_blocks, threads)

    make = functools.partial(_kronecker_block, scale=scale, total=total, seed=seed,
                             thresholds=(ta, tab, tabc), acc_dtype=acc_dtype, perm=perm)
    yield from _regroup(_ordered_blocks(make, n_blocks, threads), total, chunk_edges)


def compiled_kronecker_edges(scale: int, edge_factor: int = 16, *, a: float = 0.57, b: float = 0.19,
                             c: float = 0.19, seed: int = 0, chunk_edges: int = DEFAULT_CHUNK_EDGES,
                             threads: int | None = None) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """:func:`kronecker_edges`'s samples, bit for bit, drawn by compiled code on every core (int32 chunks).

    The same SFC64 stream per block (seeded here as there), the same quadrant rule
    and permutation, in C++ with OpenMP (:func:`graphferry.host_ops.samples_csr.kronecker_chunks`):
    scale <= 31, and a C++ compiler is needed. Chunks of ``chunk_edges`` samples, as there;
    ``threads`` (None: every core).

    Example:
        >>> s1, d1 = map(np.concatenate, zip(*kronecker_edges(7, seed=4)))
        >>> s2, d2 = map(np.concatenate, zip(*compiled_kronecker_edges(7, seed=4)))
        >>> bool((s1 == s2).all() and (d1 == d2).all())
        True
    """
    from .host_ops.samples_csr import kronecker_chunks

    scale = _check_count("scale", scale)
    edge_factor = _check_count("edge_factor", edge_factor)
    perm = kronecker_permutation(scale, seed=seed)

    def states(k: int) -> np.ndarray:
        return _rng(seed, _TAG_KRONECKER, k).bit_generator.state["state"]["state"]

    yield from kronecker_chunks(scale, edge_factor, _kronecker_thresholds(a, b, c), perm, states,
                                block=BLOCK_EDGES, chunk_edges=chunk_edges, threads=threads)


# ----------------------------------------------------------------------- uniform
def uniform_random_edges(
    n: int,
    m: int,
    *,
    seed: int = 0,
    chunk_edges: int = DEFAULT_CHUNK_EDGES,
    threads: int | None = None,
) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """``m`` edge samples with both endpoints uniform in ``[0, n)``, as int64 chunks.

    Erdős–Rényi G(n, m) sampled with replacement (as GAPBS ``-u`` does): the
    raw samples may contain self-loops and repeated pairs. Deterministic in the
    same way as :func:`kronecker_edges`.

    Example:
        >>> s, d = next(uniform_random_edges(100, 500, seed=2))
        >>> len(s), int(min(s.min(), d.min())) >= 0, int(max(s.max(), d.max())) < 100
        (500, True, True)
    """
    n = _check_count("n", n)
    m = _check_count("m", m)
    if n == 0 and m > 0:
        raise ValueError("cannot place edges in a graph of 0 vertices")
    threads = _default_threads() if threads is None else max(1, int(threads))

    def make(k: int) -> tuple[np.ndarray, np.ndarray]:
        rng = _rng(seed, _TAG_UNIFORM, k)
        pair = rng.integers(0, n, size=(2, BLOCK_EDGES), dtype=np.int64)
        count = min(BLOCK_EDGES, m - k * BLOCK_EDGES)
        return pair[0, :count], pair[1, :count]

    yield from _regroup(_ordered_blocks(make, -(-m // BLOCK_EDGES), threads), m, chunk_edges)


# ----------------------------------------------------------------------- weights
def edge_weights(count: int, *, start: int = 0, seed: int = 0, kind: WeightKind = "int") -> np.ndarray:
    """Weights of edge samples ``start .. start + count - 1`` as float32.

    ``kind="int"``: uniform integers in [1, 255], as GAPBS generates them;
    ``kind="float"``: uniform in [0, 1). The weight of sample ``i`` depends only
    on ``(seed, kind, i)``, so weights computed per chunk equal the weights
    computed at once.

    Example:
        >>> w = edge_weights(10, seed=5)
        >>> w.dtype.name, bool(((w >= 1) & (w <= 255)).all()), bool((w == w.round()).all())
        ('float32', True, True)
        >>> bool((edge_weights(4, start=3, seed=5) == w[3:7]).all())
        True
    """
    count = _check_count("count", count)
    start = _check_count("start", start)
    if kind not in ("int", "float"):
        raise ValueError(f"weight kind must be 'int' or 'float', got {kind!r}")
    out = np.empty(count, dtype=np.float32)
    pos = start
    while pos < start + count:
        k = pos // BLOCK_EDGES
        rng = _rng(seed, _TAG_WEIGHTS, k)
        block = (rng.integers(1, 256, size=BLOCK_EDGES, dtype=np.int32).astype(np.float32)
                 if kind == "int" else rng.random(BLOCK_EDGES, dtype=np.float32))
        lo = pos - k * BLOCK_EDGES
        take = min(BLOCK_EDGES - lo, start + count - pos)
        out[pos - start:pos - start + take] = block[lo:lo + take]
        pos += take
    return out


# ------------------------------------------------------------------ full graphs
def build_graph(
    chunks: Iterable[tuple[np.ndarray, np.ndarray]],
    n: int,
    *,
    directed: bool,
    weighted: bool,
    weight_kind: WeightKind = "int",
    seed: int = 0,
    drop_self_loops: bool = True,
    drop_duplicates: bool = True,
    store: str | os.PathLike | None = None,
    overwrite: bool = False,
    name: str = "graph",
    source: str | None = None,
    meta: dict | None = None,
    progress: ProgressFn | None = None,
    samples: int | None = None,
) -> Graph:
    """Feed generated edge chunks (plus seeded weights) into a :class:`CSRBuilder`.

    ``samples`` (how many the chunks hold, when known): an unweighted graph with
    sorted rows (``drop_duplicates``) whose samples fit in memory is built there
    by parallel C++ (:mod:`graphferry.host_ops.samples_csr`, GAPBS's way: counting
    sort, per-row sort and deduplication, no spill files), array for array the
    graph the builder would give.

    ``progress(k)`` is called after each chunk with the number of samples it
    held (the CLI draws a progress bar with it; this layer never prints).
    ``overwrite`` lets ``store`` replace an existing store (atomically: the old
    one stays until the new one is complete). ``meta`` (the generator's
    parameters) is recorded in the graph's ``meta`` and the store's manifest.
    """
    if weight_kind not in ("int", "float"):
        raise ValueError(f"weight kind must be 'int' or 'float', got {weight_kind!r}")
    if _in_memory_build_fits(n, samples, weighted, drop_duplicates):
        return _build_in_memory(chunks, n, directed=directed, drop_self_loops=drop_self_loops, store=store,
                                overwrite=overwrite, name=name, source=source, meta=meta, progress=progress)
    builder = CSRBuilder(n=n, directed=directed, weighted=weighted,
                         drop_self_loops=drop_self_loops, drop_duplicates=drop_duplicates,
                         source=source, name=name)
    if meta:
        builder.meta["generator"] = meta
    t0 = time.perf_counter()
    done = 0
    last_log = t0
    # The builder orients undirected samples as (min, max) before deduplicating,
    # so (u, v) and (v, u) keep one sample's weight for both directions.
    for src, dst in chunks:
        w = edge_weights(len(src), start=done, seed=seed, kind=weight_kind) if weighted else None
        builder.add(src, dst, w)
        done += len(src)
        if progress is not None:
            progress(len(src))
        now = time.perf_counter()
        if now - last_log > 5.0:
            log.info("%s: %d edge samples added (%.1f M/s)", name, done, done / (now - t0) / 1e6)
            last_log = now
    log.info("%s: %d edge samples generated in %.1f s; building CSR", name, done,
             time.perf_counter() - t0)
    if store is None:
        graph = builder.finish()
    else:
        graph = builder.finish_store(store, name=name, overwrite=overwrite)
    graph.name = name
    log.info("%s: n=%d m=%d built in %.1f s total", name, graph.n, graph.m, time.perf_counter() - t0)
    return graph


#: Bytes of memory an in-memory build takes per sample (int32 pairs, the unsorted arcs of an
#: undirected sample, the output's share), against the memory available.
IN_MEMORY_BYTES_PER_SAMPLE = 24
#: The share of the available memory an in-memory build may take.
IN_MEMORY_SHARE = 0.6


def _in_memory_build_fits(n: int, samples: int | None, weighted: bool, drop_duplicates: bool) -> bool:
    """Whether :func:`build_graph` builds in memory (see there)."""
    if weighted or not drop_duplicates or samples is None or n >= 2**31 or \
            os.environ.get("GRAPHFERRY_CHUNKED_BUILD", "") not in ("", "0"):
        return False
    from .host_ops import samples_csr

    avail = samples_csr.memory_available()
    if avail is None or samples * IN_MEMORY_BYTES_PER_SAMPLE > avail * IN_MEMORY_SHARE:
        return False
    return samples_csr.available()


def _build_in_memory(chunks, n: int, *, directed: bool, drop_self_loops: bool, store, overwrite: bool,
                     name: str, source: str | None, meta: dict | None, progress: ProgressFn | None) -> Graph:
    """:func:`build_graph` through :class:`~graphferry.host_ops.samples_csr.SamplesCSR` (unweighted, sorted rows)."""
    from .host_ops.samples_csr import SamplesCSR
    from .io.compiled_text import write_samples

    t0 = time.perf_counter()
    build = SamplesCSR(n, directed=directed, drop_self_loops=drop_self_loops, drop_duplicates=True)
    for src, dst in chunks:
        build.add(src, dst)
        if progress is not None:
            progress(len(src))
    t1 = time.perf_counter()
    # the builder's manifest entries, in its order
    graph_meta = {"source": source, "drop_self_loops": drop_self_loops, "drop_duplicates": True,
                  "sorted_neighbors": True, **({"generator": meta} if meta else {})}
    graph = write_samples(build, store=store, overwrite=overwrite, directed=directed, name=name, meta=graph_meta)
    graph.name = name
    log.info("%s: n=%d m=%d from %d samples: generated in %.1f s, built in memory in %.1f s", name, graph.n,
             graph.m, build.samples, t1 - t0, time.perf_counter() - t1)
    return graph


def kronecker_graph(
    scale: int,
    edge_factor: int = 16,
    *,
    seed: int = 0,
    weighted: bool = False,
    directed: bool = False,
    weight_kind: WeightKind = "int",
    a: float = 0.57,
    b: float = 0.19,
    c: float = 0.19,
    drop_self_loops: bool = True,
    drop_duplicates: bool = True,
    store: str | os.PathLike | None = None,
    overwrite: bool = False,
    chunk_edges: int = DEFAULT_CHUNK_EDGES,
    threads: int | None = None,
    progress: ProgressFn | None = None,
) -> Graph:
    """A Graph500 Kronecker graph of ``2**scale`` vertices as a :class:`Graph`.

    ``edge_factor * 2**scale`` samples from :func:`kronecker_edges`. By default
    the graph is **undirected** (as in Graph500: each sample is stored in both
    directions) and **self-loops and duplicate edges are dropped**, so ``m`` is
    less than ``2 * edge_factor * 2**scale``. With ``weighted=True`` each sample
    gets a weight from :func:`edge_weights` (``weight_kind``), shared by both
    directions of an undirected edge; of duplicates the first sample's weight
    is kept.

    With ``store=path`` the CSR is streamed into a graph store at ``path`` and
    the returned graph is memory-mapped from it (scale 26 fits in 24 GiB this
    way; ``overwrite=True`` replaces an existing store); otherwise it is built
    in memory.

    Example:
        >>> g = kronecker_graph(8, 4, seed=2, weighted=True)
        >>> g.n, g.weighted, bool((g.indices != g.edges()[0]).all())
        (256, True, True)
    """
    scale = _check_count("scale", scale)
    name = f"kronecker-s{scale}-ef{edge_factor}"
    if scale <= 31 and _in_memory_build_fits(1 << scale, edge_factor << scale, weighted, drop_duplicates):
        chunks = compiled_kronecker_edges(scale, edge_factor, a=a, b=b, c=c, seed=seed, chunk_edges=chunk_edges,
                                          threads=threads)
    else:
        chunks = kronecker_edges(scale, edge_factor, a=a, b=b, c=c, seed=seed,
                                 chunk_edges=chunk_edges, threads=threads)
    params = dict(kind="kronecker", scale=scale, edge_factor=edge_factor, a=a, b=b, c=c,
                  seed=seed, weight_kind=weight_kind if weighted else None)
    return build_graph(chunks, 1 << scale, directed=directed, weighted=weighted,
                       weight_kind=weight_kind, seed=seed, drop_self_loops=drop_self_loops,
                       drop_duplicates=drop_duplicates, store=store, overwrite=overwrite,
                       name=name, source=f"kronecker(scale={scale}, seed={seed})", meta=params,
                       progress=progress, samples=edge_factor << scale)


def uniform_graph(
    scale: int,
    edge_factor: int = 16,
    *,
    n: int | None = None,
    m: int | None = None,
    seed: int = 0,
    weighted: bool = False,
    directed: bool = False,
    weight_kind: WeightKind = "int",
    drop_self_loops: bool = True,
    drop_duplicates: bool = True,
    store: str | os.PathLike | None = None,
    overwrite: bool = False,
    chunk_edges: int = DEFAULT_CHUNK_EDGES,
    threads: int | None = None,
    progress: ProgressFn | None = None,
) -> Graph:
    """A uniform random graph (GAPBS ``-u``): ``2**scale`` vertices, ``edge_factor * n`` samples.

    ``n`` and ``m`` override the vertex and sample counts. Same defaults as
    :func:`kronecker_graph`: **undirected, self-loops and duplicates dropped**.

    Example:
        >>> g = uniform_graph(0, n=50, m=200, seed=1)
        >>> g.n, g.directed, bool(g.m <= 400)
        (50, False, True)
    """
    n = (1 << _check_count("scale", scale)) if n is None else _check_count("n", n)
    m = edge_factor * n if m is None else _check_count("m", m)
    name = f"uniform-n{n}-m{m}"
    chunks = uniform_random_edges(n, m, seed=seed, chunk_edges=chunk_edges, threads=threads)
    return build_graph(chunks, n, directed=directed, weighted=weighted, weight_kind=weight_kind,
                       seed=seed, drop_self_loops=drop_self_loops,
                       drop_duplicates=drop_duplicates, store=store, overwrite=overwrite,
                       name=name, source=f"uniform(n={n}, m={m}, seed={seed})",
                       meta=dict(kind="uniform", n=n, m=m, seed=seed,
                                 weight_kind=weight_kind if weighted else None),
                       progress=progress, samples=m)
