"""The loaded graph's host copies of its edges as engines read them: weights narrowed to integers, ids
packed in ``ceil(log2 n)`` bits, and edges fused (id and weight in one field) for reads in place; each
made once per CSR, pinned on a device where the host allows. A part of
:class:`~graphferry.runtime.loaded.LoadedGraph`."""

from __future__ import annotations

import logging
import time

import numpy as np

from ..engines.registry import engine_class
from ..phase_clock import phase

log = logging.getLogger("graphferry.runtime.loaded")

#: A handle for one call (``kept=False``) packs ids only for runs expected to read the edges more
#: often than this (runtime.startup's passes: BFS a quarter pass, WCC 3, PageRank 20).
ONE_CALL_PACK_PASSES = 2


class HostCopies:
    """What :class:`~graphferry.runtime.loaded.LoadedGraph` copies of its edges for engines to read
    (its ``_narrowed``, ``_packed_ids`` and ``_fused``, kept per CSR)."""

    def narrows(self, engine: str) -> bool:
        """Whether ``engine``'s weighted sides read narrowed weights. A kept graph: always (each
        later call moves, or reads, fewer bytes). A graph loaded for one call: only for engines
        that move edges again and again (a pass over every weight pays back only then; the host
        engine moves nothing, resident moves them once). Several ranks: never (their edge maps
        read the graph's own weights, and each rank would copy all of them)."""
        if not self.narrow_weights or self.distribution is not None:
            return False
        return not self.temporary or engine_class(engine).moves not in ("nothing", "side")

    def packs(self, engine: str) -> bool:
        """Whether ``engine``'s sides read packed ids (:meth:`side_packed`): engines that copy or map
        ranges of edges again and again (``reads_packed``: filter, zerocopy, hybrid),
        on a graph of int32 ids; never for several ranks (their maps read the graph's own ids),
        nor for one call (``kept=False``) that reads the edges at most :data:`ONE_CALL_PACK_PASSES`
        times: packing reads every id and writes 78% of them again (2^25 vertices: 25 of 32 bits),
        which pays only when the packed ids cross the bus more often than that."""
        if not self.pack_ids or self.distribution is not None or self.graph.indices.dtype != np.int32:
            return False
        if not self.kept and self.work_passes is not None and self.work_passes <= ONE_CALL_PACK_PASSES:
            return False
        return engine_class(engine).reads_packed

    def fuses(self, engine: str) -> bool:
        """Whether ``engine``'s weighted sides, where their ids are packed and their weights narrowed
        to integers, are read in place as fused edges (:meth:`side_fused`): engines that read rows
        across the bus (``moves`` lines: zerocopy; the hybrid, which reads sparse rounds in place).
        A short row's ids and weights then share their 128-byte lines: one request, not two (at
        Kronecker 16-19, 25% of the edge bytes, SSSP's reads in place took 25% fewer requests)."""
        if not self.fuse_edges:
            return False
        cls = engine_class(engine)
        return cls.moves == "lines" or cls.schedules

    def side_fused(self, csr: str) -> tuple[np.ndarray, int]:
        """The edges of CSR ``csr`` fused for reads in place (:func:`~graphferry.host_ops.pack_edges`:
        each field an id packed as :meth:`side_packed` packs it and its narrowed weight above it),
        and the weights' bits: made once, in pinned memory on a device where the host allows (kernels
        read it across the bus), beside the packed ids and weights that copies move.

        Example:
            >>> import graphferry as gf
            >>> g = gf.Graph.from_edges([0, 1, 2], [1, 2, 0], n=3, weights=[3, 200, 7])
            >>> with gf.load(g, backend="cpu") as lg:
            ...     words, wbits = lg.side_fused("out")
            >>> wbits, len(words)   # 3 edges of 2 + 8 bits: one group of 32 fields, 10 words
            (8, 10)
        """
        g, key = self._csr(csr)
        if key not in self._fused:
            from ..host_ops import pack_edges

            w = self.side_weights(csr)
            if w is None or w.dtype == np.float32:
                raise ValueError(f"{key}-edges: fused edges need integer weights narrowed to 8 or 16 bits")
            _, bits = self.side_packed(csr)
            t = time.perf_counter()
            with phase("pack"):
                self._fused[key] = pack_edges(g.indices, w, bits, self._new_host_buffer)
            self.placement[f"{key} edges fused"] = f"{bits} + {self._fused[key][1]} bits"
            log.info("%s-edges fused in %d + %d bits in %.3f s", key, bits, self._fused[key][1],
                     time.perf_counter() - t)
        return self._fused[key]

    def side_packed(self, csr: str) -> tuple[np.ndarray, int]:
        """The ids of CSR ``csr`` ("out" or "in") packed in ``ceil(log2 n)``-bit fields
        (:func:`~graphferry.host_ops.pack_indices`), and that width: made once, in
        pinned memory on a device where the host allows (kernels read it across the bus).

        Example:
            >>> import graphferry as gf
            >>> g = gf.Graph.from_edges([0, 1, 2], [1, 2, 0], n=3)
            >>> with gf.load(g, backend="cpu") as lg:
            ...     words, bits = lg.side_packed("out")
            >>> bits, len(words)   # 3 ids of 2 bits: one group of 32 fields, 2 words
            (2, 2)
        """
        g, key = self._csr(csr)
        if key not in self._packed_ids:
            from ..host_ops import id_bits, pack_indices

            t = time.perf_counter()
            bits = id_bits(g.n)
            with phase("pack"):
                words = pack_indices(g.indices, bits, self._new_host_buffer)
            self._packed_ids[key] = (words, bits)
            self.placement[f"{key} ids"] = f"packed in {bits} bits"
            log.info("%s-edge ids packed in %d bits in %.3f s", key, bits, time.perf_counter() - t)
        return self._packed_ids[key]

    def side_weights(self, csr: str) -> np.ndarray | None:
        """The weights of CSR ``csr`` ("out" or "in") as kernels read them: a uint8 or uint16 copy
        where every weight is an integer that fits (made once, placed like the graph's edges:
        pinned on a device), else the graph's own float32 weights; None for an unweighted graph.

        Example:
            >>> import graphferry as gf
            >>> g = gf.Graph.from_edges([0, 1], [1, 2], n=3, weights=[3, 200])
            >>> with gf.load(g, backend="cpu") as lg:
            ...     w = lg.side_weights("out")
            >>> w.dtype.name, w.tolist()
            ('uint8', [3, 200])
        """
        g, key = self._csr(csr)
        if g.weights is None:
            return None
        if not self.narrow_weights:
            return g.weights
        if key not in self._narrowed:
            from ..host_ops import narrow_weights

            t = time.perf_counter()
            with phase("pack"):
                w = self._narrowed[key] = narrow_weights(g.weights, self._new_host_buffer)
            if w is not None:
                self.placement[f"{key} weights"] = f"narrowed to {w.dtype.name}"
                log.info("%s-edge weights narrowed to %s in %.3f s", key, w.dtype.name, time.perf_counter() - t)
        w = self._narrowed[key]
        return g.weights if w is None else w
