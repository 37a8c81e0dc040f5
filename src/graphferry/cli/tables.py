"""What ``info`` shows: sizes, degree statistics, partition count and memory estimates, as data and as tables."""

from __future__ import annotations

import os
from typing import Any

import numpy as np
from rich.console import Console
from rich.table import Table

from ..algorithms import registry
from ..graph import Graph
from ..partition import DEFAULT_PARTITION_BYTES, partition_by_bytes
from .sizes import format_bytes


def _in_degree(graph: Graph, chunk: int = 2**26) -> np.ndarray:
    """In-degrees without materialising an int64 copy of all indices.

    ``np.bincount`` converts its input to intp, which for a memory-mapped store
    of 2 G int32 indices would be a 16 GiB temporary; counting slice by slice
    keeps the extra memory to one slice plus the counts.
    """
    if not graph.directed:
        return graph.out_degree
    n, idx = graph.n, graph.indices
    counts = np.zeros(n, dtype=np.int64)
    step = max(chunk, n)
    for lo in range(0, len(idx), step):
        counts += np.bincount(idx[lo:lo + step], minlength=n)
    return counts


def _degree_stats(deg: np.ndarray) -> dict[str, float | int]:
    if len(deg) == 0:
        return {"min": 0, "max": 0, "mean": 0.0, "median": 0.0}
    return {"min": int(deg.min()), "max": int(deg.max()), "mean": float(deg.mean()),
            "median": float(np.median(deg))}


#: Peak resident memory of ``graphferry run ALGORITHM`` on the CPU backend, as
#: ``(bytes per vertex, bytes per arc)`` beyond the interpreter and the store's
#: arrays the algorithm reads: each algorithm's registry entry declares it
#: (``AlgorithmSpec.memory``); a directed graph adds the transpose for the
#: algorithms that pull (``AlgorithmSpec.pulls``, DIRECTED_PULL_BYTES). Estimates, not promises.
MEMORY_MODEL: dict[str, tuple[int, int]] = {spec.name: spec.memory for spec in registry.ALGORITHMS.values()}
#: Interpreter, numpy and graphferry, measured (``python -c "import graphferry.cli"``).
BASE_BYTES = 40 * 2**20
#: A directed graph's transpose for pulling: kept 8 B/vertex + the index bytes per
#: arc; while it is built (int64 edge arrays, argsort), about 40 B/arc.
DIRECTED_PULL_BYTES = (8, 40)


def memory_estimates(graph: Graph) -> dict[str, dict[str, Any]]:
    """Estimated peak resident bytes of running each algorithm on ``graph`` (CPU backend).

    ``{name: {"bytes": int, "formula": str}}`` from :data:`MEMORY_MODEL`.

    Example:
        >>> g = Graph.from_edges(np.array([0, 1]), np.array([1, 2]), n=3, directed=False)
        >>> est = memory_estimates(g)
        >>> est["bfs"]["formula"], est["bfs"]["bytes"] - BASE_BYTES  # 32 B offsets + 16 B indices
        ('40 MiB + arrays 48 B + 64 B/vertex', 240)
        >>> est["triangle_count"]["formula"], est["triangle_count"]["bytes"] - BASE_BYTES
        ('40 MiB + arrays 48 B + 16 B/vertex + 7 B/arc', 124)
    """
    n, m = graph.n, graph.m
    store = graph.offsets.nbytes + graph.indices.itemsize * m
    if graph.original_ids is not None:
        store += np.asarray(graph.original_ids).nbytes
    out = {}
    for name, (per_vertex, per_arc) in MEMORY_MODEL.items():
        arrays = store + (4 * m if name == "sssp" and graph.weighted else 0)
        v, a = per_vertex, per_arc
        if graph.directed and registry.get(name).pulls:
            v, a = v + DIRECTED_PULL_BYTES[0], a + DIRECTED_PULL_BYTES[1]
        formula = f"{BASE_BYTES >> 20} MiB + arrays {format_bytes(arrays)} + {v} B/vertex"
        if a:
            formula += f" + {a} B/arc"
        out[name] = {"bytes": int(BASE_BYTES + arrays + v * n + a * m), "formula": formula}
    return out


def graph_info(graph: Graph, partition_bytes: int = DEFAULT_PARTITION_BYTES,
               path: str | os.PathLike | None = None) -> dict[str, Any]:
    """Sizes, degree statistics and partition count of a graph, as plain data.

    ``partitions`` counts the ranges of consecutive vertices that
    :func:`graphferry.partition.partition_by_bytes` cuts at ``partition_bytes``
    of edge data (indices plus weights) each.

    Example:
        >>> import numpy as np
        >>> g = Graph.from_edges(np.array([0, 0, 1]), np.array([1, 2, 2]), n=4)
        >>> info = graph_info(g, partition_bytes=8)
        >>> info["n"], info["m"], info["isolated_vertices"], info["partitions"]
        (4, 3, 1, 2)
        >>> info["out_degree"]["max"], info["in_degree"]["max"], info["arrays"]["indices"]["bytes"]
        (2, 2, 12)
    """
    out_deg = graph.out_degree
    in_deg = _in_degree(graph)
    isolated = int(np.count_nonzero((out_deg == 0) & (in_deg == 0)))
    arrays = {}
    for name in ("offsets", "indices", "weights", "original_ids"):
        arr = getattr(graph, name)
        if arr is not None:
            arrays[name] = {"dtype": str(arr.dtype), "entries": int(len(arr)), "bytes": int(arr.nbytes)}
    bytes_per_edge = graph.indices.itemsize + (graph.weights.itemsize if graph.weighted else 0)
    parts = partition_by_bytes(graph.offsets, bytes_per_edge, partition_bytes)
    return {
        "path": None if path is None else str(path),
        "name": graph.name,
        "n": graph.n,
        "m": graph.m,
        "directed": graph.directed,
        "weighted": graph.weighted,
        "weight_column": graph.meta.get("weight_column") if graph.weighted else None,
        "vertex_order": graph.meta.get("vertex_order"),   # e.g. hub sorting (convert --hub-sort)
        "out_degree": _degree_stats(out_deg),
        "in_degree": _degree_stats(in_deg),
        "isolated_vertices": isolated,
        "arrays": arrays,
        "total_bytes": sum(a["bytes"] for a in arrays.values()),
        "edge_bytes": graph.edge_bytes,
        "partition_bytes": int(partition_bytes),
        "partitions": len(parts),
        "largest_partition_bytes": max((p.num_edges * bytes_per_edge for p in parts), default=0),
        "memory_estimates": memory_estimates(graph),
    }


def print_info(info: dict[str, Any], console: Console) -> None:
    """Render :func:`graph_info` as rich tables."""
    head = Table(title=f"graph {info['name']}", show_header=False, title_justify="left")
    head.add_column(style="bold")
    head.add_column(justify="right")
    if info.get("path"):
        head.add_row("path", info["path"])
    head.add_row("vertices (n)", f"{info['n']:,}")
    head.add_row("arcs (m)", f"{info['m']:,}")
    head.add_row("directed", "yes" if info["directed"] else "no (each edge stored both ways)")
    column = f" (column {info['weight_column']!r})" if info.get("weight_column") else ""
    head.add_row("weighted", f"yes{column}" if info["weighted"] else "no")
    head.add_row("isolated vertices", f"{info['isolated_vertices']:,}")
    order = info.get("vertex_order")
    if order:
        head.add_row("vertex order", f"hub sorted (top {order['fraction']:.0%} first)"
                     if order.get("kind") == "hubs" else str(order))
    head.add_row("size", format_bytes(info["total_bytes"]))
    head.add_row(f"partitions of {format_bytes(info['partition_bytes'])}",
                 f"{info['partitions']:,} (largest {format_bytes(info['largest_partition_bytes'])})")
    console.print(head)

    deg = Table(title="degrees", title_justify="left")
    deg.add_column("")
    deg.add_column("out", justify="right")
    deg.add_column("in", justify="right")
    for stat in ("min", "max", "mean", "median"):
        fmt = (lambda x: f"{x:,.2f}") if stat in ("mean", "median") else (lambda x: f"{x:,}")
        deg.add_row(stat, fmt(info["out_degree"][stat]), fmt(info["in_degree"][stat]))
    console.print(deg)

    arr = Table(title="arrays", title_justify="left")
    for col, just in (("array", "left"), ("dtype", "left"), ("entries", "right"), ("bytes", "right")):
        arr.add_column(col, justify=just)
    for name, a in info["arrays"].items():
        arr.add_row(name, a["dtype"], f"{a['entries']:,}", f"{a['bytes']:,} ({format_bytes(a['bytes'])})")
    console.print(arr)

    if info.get("memory_estimates"):
        mem = Table(title="memory to run (estimated peak resident, CPU backend)", title_justify="left")
        for col, just in (("algorithm", "left"), ("peak", "right"), ("from", "left")):
            mem.add_column(col, justify=just)
        for name, e in info["memory_estimates"].items():
            mem.add_row(name, format_bytes(e["bytes"]), e["formula"])
        console.print(mem)
