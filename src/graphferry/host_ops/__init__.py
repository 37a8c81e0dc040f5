"""Host-side helpers shared by every layer (engines on every backend, the scheduler, transforms,
algorithms, HyPar): one C++ + OpenMP library compiled at first use (``gf_host_ops.h``, by
:mod:`graphferry.host_ops.compiler`, which also compiles the CPU backend's programs), as one unit
per core up to ten, built at once and loaded as one (``gf_host_shard.h``).

Not CPU-backend code: a GPU run gathers its partitions' rows and packs their ids here too. The
helpers are grouped by what they work on: :mod:`~graphferry.host_ops.rows` (a CSR's rows and
vertex sets), :mod:`~graphferry.host_ops.graphs` (whole-graph passes), and
:mod:`~graphferry.host_ops.arrays` (vertex-state arrays); every one is importable from here.

Example:
    >>> import numpy as np
    >>> from graphferry.host_ops import gather_rows
    >>> offsets = np.array([0, 2, 3, 5], dtype=np.int64)
    >>> indices = np.array([1, 2, 0, 0, 1], dtype=np.int32)
    >>> off, idx, w = gather_rows(offsets, indices, None, np.array([0, 2]))
    >>> off.tolist(), idx.tolist()
    ([0, 2, 4], [1, 2, 0, 1])
"""

from __future__ import annotations

from ._library import _lib
from .arrays import (
    bucket_keep,
    bucket_range,
    bucket_split,
    check_weights,
    convert,
    copy,
    copy_into,
    count_distinct,
    full,
    id_bits,
    narrow_weights,
    pack_edges,
    pack_indices,
    packed_words,
    reduce,
    select,
    select_bits,
    unpack_edges,
    unpack_indices,
    vertex_ids,
    weight_width,
)
from .graphs import (
    arcs_where,
    contract,
    cut_min_keys,
    degree_ordered_dag,
    find_arcs,
    label_arcs,
    reciprocal_counts,
    rows_of,
    simple_weighted,
    subgraph,
    top_label_count,
)
from .rows import (
    bits_to_ids,
    compacted_offsets,
    degree_order,
    degree_sum,
    gather_rows,
    ids_to_bits,
    popcount,
    prefix_sum,
    rows_simple,
    smallest_members,
    unordered_transpose,
    unpermute,
)

__all__ = ["arcs_where", "bits_to_ids", "bucket_keep", "bucket_range", "bucket_split", "check_weights",
           "compacted_offsets", "contract", "convert", "copy", "copy_into", "count_distinct", "cut_min_keys",
           "degree_order", "degree_ordered_dag", "degree_sum", "find_arcs", "full", "gather_rows", "id_bits",
           "ids_to_bits", "label_arcs", "narrow_weights", "pack_edges", "pack_indices", "packed_words",
           "popcount", "prefix_sum", "reciprocal_counts", "reduce", "rows_of", "rows_simple", "select",
           "select_bits", "simple_weighted", "smallest_members", "subgraph", "top_label_count",
           "unordered_transpose", "unpack_edges", "unpack_indices", "unpermute", "vertex_ids", "weight_width"]
# (``_lib``, the compiled library itself, is importable from here too: a caller may load it ahead of use)
