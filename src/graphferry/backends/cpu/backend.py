"""The CPU backend: programs compiled with the system C++ compiler and OpenMP.

This is a real backend (HyPar's and Lux's CPU side), not a stand-in: edge_map
runs in parallel with real atomics. Its "device" is a separate arena of host
memory, so the transfer engines make real copies with real byte counts.

Example:
    >>> from graphferry.backends.cpu.backend import CpuBackend
    >>> b = CpuBackend()
    >>> bits = b.bits_from_ids([1, 33], 40)
    >>> b.ids_from_bits(bits, 40).tolist(), b.popcount(bits)
    ([1, 33], 2)
"""

from __future__ import annotations

import ctypes

import numpy as np

from ..base import Backend, CompiledProgram, PartitionView, weight_bytes
from ... import host_ops
from ...host_ops.compiler import compile_library

_P = ctypes.c_void_p
_I = ctypes.c_int64
_EDGE_ARGTYPES = [_P, _P, _P, _P, _P, _I, _P, _I, _P, _I, _I, _I, _P, _I, _P, _P]
_VMAP_ARGTYPES = [_P, _P, _P, _I, _I, _P, _I, _P, _P]
_NMAP_ARGTYPES = [_P, _P, _P, _P, _P, _P, _P, _P, _P, _I, _I, _I, _P, _I, _I, _I, _I]


def _ptr(a) -> int:
    return 0 if a is None else int(a.ctypes.data)


class CpuProgram(CompiledProgram):
    def __init__(self, program, vid_dtype: np.dtype):
        vid_ctype = "int32_t" if np.dtype(vid_dtype) == np.int32 else "int64_t"
        src = program.translation_unit(vid_ctype, "gf_cpu_kernels.h")
        self.lib = compile_library(src, label=f"{program.name}-{vid_ctype[:-2]}")
        self.program = program
        self._fns: dict[str, ctypes._CFuncPtr] = {}

    def _fn(self, name: str, argtypes):
        f = self._fns.get(name)
        if f is None:
            f = getattr(self.lib, name)
            f.argtypes = argtypes
            f.restype = None
            self._fns[name] = f
        return f

    def _edge(self, kind, tables, view: PartitionView, row_list, in_bits, out_bits):
        A, F, I = tables
        nlist = 0 if row_list is None else len(row_list)
        index_code, weights, weight_code = view.kernel_codes()
        self._fn(kind, _EDGE_ARGTYPES)(
            _ptr(A), _ptr(F), _ptr(I),
            _ptr(view.offsets), _ptr(view.indices), index_code, _ptr(weights), weight_code,
            _ptr(view.vertex_ids),
            view.lo, view.rows, view.edge_base,
            _ptr(row_list), nlist, _ptr(in_bits), _ptr(out_bits),
        )

    def push(self, tables, view, row_list, in_bits, out_bits):
        self._edge("gf_push", tables, view, row_list, in_bits, out_bits)

    def pull(self, tables, view, row_list, in_bits, out_bits):
        self._edge("gf_pull", tables, view, row_list, in_bits, out_bits)

    def push_buckets(self, tables, view: PartitionView, values, delta: float, seeds) -> tuple[int, int, int] | None:
        """Delta-stepping in one call: relax the lowest bucket of ``floor(values[v] / delta)`` with
        the program's push, file the vertices it changed, until every bucket is empty
        (``gf_push_buckets`` in gf_cpu_kernels.h). ``view`` is a whole side (rows are vertex ids).
        Returns (rounds, vertices relaxed, edges relaxed), or None where the program cannot
        (no push, or values that are not float32/float64)."""
        if not self.program.has_push or values.dtype not in (np.float32, np.float64):
            return None
        if view.vertex_ids is not None or view.lo != 0 or view.edge_base != 0 or view.index_bits:
            raise ValueError("push_buckets needs a whole side (a range view from vertex 0, plain ids)")
        A, F, I = tables
        seeds = np.ascontiguousarray(seeds, dtype=np.int64)
        stats = np.zeros(3, np.int64)
        fn = self._fn(f"gf_push_buckets_{'f32' if values.dtype == np.float32 else 'f64'}",
                      [_P, _P, _P, _P, _P, _P, _I, _I, _P, ctypes.c_double, _P, _I, _P])
        fn(_ptr(A), _ptr(F), _ptr(I), _ptr(view.offsets), _ptr(view.indices), _ptr(view.weights),
           weight_bytes(view.weights), view.rows, _ptr(values), float(delta), _ptr(seeds), len(seeds), _ptr(stats))
        return int(stats[0]), int(stats[1]), int(stats[2])

    def vertex_map(self, fn, tables, lo, hi, ids, in_bits, out_bits):
        A, F, I = tables
        nids = 0 if ids is None else len(ids)
        self._fn(f"gf_vmap_{fn}", _VMAP_ARGTYPES)(
            _ptr(A), _ptr(F), _ptr(I), lo, hi, _ptr(ids), nids, _ptr(in_bits), _ptr(out_bits)
        )

    def neighbor_map(self, fn, tables, graph, transpose, lo, hi, out_bits):
        A, F, I = tables
        self._fn(f"gf_nmap_{fn}", _NMAP_ARGTYPES)(
            _ptr(A), _ptr(F), _ptr(I),
            _ptr(graph.offsets), _ptr(graph.indices), _ptr(graph.weights),
            _ptr(transpose.offsets), _ptr(transpose.indices), _ptr(transpose.weights),
            graph.n, lo, hi, _ptr(out_bits), graph.edge_base, transpose.edge_base,
            weight_bytes(graph.weights), weight_bytes(transpose.weights),
        )


class CpuBackend(Backend):
    name = "cpu"
    xp = np
    is_device = False
    # A push that adds (PageRank) pays a compare-and-swap per edge: its edges cost 3x a pull's
    # on 16 cores (bench/results/calibration-h200.json, host: "accumulate" pushes 0.79 G edges/s,
    # pulls 2.45 G) and 9x on 2. With pulls only where a frontier held every edge (the default 1),
    # delta PageRank at Kronecker 20 pushed 30 of 31 M edges in 200 ms rounds a pull takes 25 ms
    # for; at 0.3 the call took 889 ms instead of 2709 (2 cores, NOTES-hybrid).
    full_pull_fraction_sum = 0.3

    def __init__(self):
        self._programs: dict[tuple, CpuProgram] = {}

    def compile(self, program, vid_dtype):
        key = (program.fingerprint(), np.dtype(vid_dtype).str)
        if key not in self._programs:
            self._programs[key] = CpuProgram(program, vid_dtype)
        return self._programs[key]

    def asarray(self, host):
        return host_ops.copy(host)

    def degree_ordered_dag(self, offsets, indices):
        # parallel C++ passes over the rows (no arc-sized arrays but the DAG)
        dag_offsets, dag_indices, order, _ = host_ops.degree_ordered_dag(offsets, indices, simple=True)
        return dag_offsets, dag_indices, order

    # vertex state written in parallel (first touch on every core)
    def full(self, shape, value, dtype):
        return host_ops.full(shape, value, dtype)

    def vertex_ids(self, n, dtype):
        return host_ops.vertex_ids(n, dtype)

    # priority buckets: a parallel counting sort in C++ (float values; others: numpy)
    def split_by_bucket(self, ids, values, delta):
        if values.dtype not in (np.float32, np.float64):
            return super().split_by_bucket(ids, values, delta)
        low, high = host_ops.bucket_range(ids, values, delta)
        if low == high:
            return ids, [low], [0, len(ids)]
        if high - low >= len(ids):  # sparse keys: sorting beats a histogram over the span
            return super().split_by_bucket(ids, values, delta)
        grouped, starts = host_ops.bucket_split(ids, values, delta, low, high - low)
        nonempty = np.flatnonzero(starts[1:] > starts[:-1])
        return grouped, (nonempty + low).tolist(), np.r_[starts[nonempty], starts[-1]].tolist()

    def keep_bucket(self, ids, values, delta, key):
        if values.dtype not in (np.float32, np.float64):
            return super().keep_bucket(ids, values, delta, key)
        return host_ops.bucket_keep(ids, values, delta, key)

    # vertex-state passes: one parallel pass each in C++ (numpy's are serial)
    def reduce(self, arr, op, ids=None):
        return host_ops.reduce(arr, op, ids)

    def select(self, arr, lo, hi, ids=None):
        return host_ops.select(arr, lo, hi, ids)

    def select_bits(self, arr, lo, hi):
        return host_ops.select_bits(arr, lo, hi)

    def convert(self, arr, dtype):
        return host_ops.convert(arr, dtype)

    def sorted_unique(self, ids, n):
        # Through a bitmap (two parallel passes over n / 32 words) unless the ids are few:
        # numpy's unique is serial (at scale 25 on 16 cores it took 1.7 of SSSP's 3.6 s)
        if len(ids) * 1024 > n or len(ids) > 1 << 15:
            return host_ops.bits_to_ids(host_ops.ids_to_bits(ids, self.bitmap_words(n)))
        return np.unique(ids)

    # frontier conversions: one parallel pass each in C++ (host_ops), not numpy's several
    def ids_from_bits(self, bits, n):
        return host_ops.bits_to_ids(bits)

    def ids_from_bits_counted(self, bits, count):
        """ids_from_bits when the frontier already knows its size (skips a popcount)."""
        return host_ops.bits_to_ids(bits, count)

    def bits_from_ids(self, ids, n):
        return host_ops.ids_to_bits(np.asarray(ids), self.bitmap_words(n))

    def popcount(self, bits):
        return host_ops.popcount(bits)

    def degree_sum(self, offsets, *, ids=None, bits=None):
        return host_ops.degree_sum(offsets, ids=ids, bits=bits)

    def copy_h2d(self, dst, src, after=None):
        np.copyto(dst, src, casting="no")
        return None

    def device_description(self) -> str:
        import os

        return f"CPU ({os.cpu_count()} logical cores)"
