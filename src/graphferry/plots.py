"""Pictures of a run record: the execution path, bytes moved against the floor, time per iteration.

``plot_record(record, out)`` draws three panels into one picture (matplotlib, Agg; PNG, SVG, PDF, ...
as ``out``'s suffix names):

1. the share of active partitions each engine and device served in each edge_map
   iteration (HyTGraph Fig. 6: how the hybrid's choices shift as the frontier
   grows and shrinks);
2. the bytes that crossed host-to-device in each iteration, beside the floor
   (the edge bytes that had to cross: active edges of partitions placed on the
   device and not resident there): explicit copies as measured, zero-copy and
   unified reads hatched and labelled modelled (:func:`bytes_by_kind`);
3. the time of each iteration, split into compaction, copies and kernels where
   the record has them.

Example:
    >>> import json, tempfile, pathlib
    >>> import numpy as np
    >>> from graphferry import Graph
    >>> from graphferry.algorithms.bfs import bfs
    >>> from graphferry.plots import plot_record
    >>> g = Graph.from_edges(np.arange(99), np.arange(1, 100), n=100)
    >>> r = bfs(g, 0, backend="cpu", engine="hybrid", partition_bytes=64, budget=256)
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "bfs.png"
    >>> plot_record(r.record.to_dict(), out).stat().st_size > 1000
    True
"""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path
from typing import Any

from .errors import GraphferryError
from .runtime.record import bytes_modelled
from .workfiles import publish, work_file

#: One colour per engine; devices are told apart by hatching.
ENGINE_COLOURS = {"resident": "#2ca02c", "filter": "#1f77b4", "compaction": "#ff7f0e", "zerocopy": "#9467bd",
                  "unified": "#8c564b", "host": "#7f7f7f"}
HATCHES = ["", "//", "..", "xx", "\\\\", "++"]


def _label(engine: str, device: str) -> str:
    return f"{engine} on {device}" if device else engine


def _matplotlib():
    try:
        import matplotlib
    except ImportError:
        raise GraphferryError("graphferry plot needs matplotlib: pip install 'graphferry[plots]'") from None
    matplotlib.use("Agg")
    return matplotlib


def picture_format(out: str | os.PathLike) -> str:
    """The picture format ``out``'s suffix names (``png``, ``svg``, ``pdf``, ... as matplotlib writes them).

    Raises ValueError naming the suffix when matplotlib writes no such format.

    Example:
        >>> picture_format("run.SVG"), picture_format("a/b.pdf")
        ('svg', 'pdf')
        >>> try:
        ...     picture_format("run.txt")
        ... except ValueError as e:
        ...     print(str(e).split(";")[0])
        run.txt: cannot draw a picture as .txt
    """
    _matplotlib()
    from matplotlib.backend_bases import FigureCanvasBase

    # pgf is LaTeX source that needs a TeX installation to write: not a picture here
    known = {k for k in FigureCanvasBase.get_supported_filetypes() if k != "pgf"}
    suffix = Path(out).suffix.lower().lstrip(".")
    if suffix not in known:
        raise ValueError(f"{out}: cannot draw a picture as {'.' + suffix if suffix else 'a file without a suffix'}; "
                         f"use {', '.join('.' + k for k in sorted(known))}")
    return suffix


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def edge_map_steps(record: Any) -> list[dict[str, Any]]:
    """The edge_map iterations of a run record (a :meth:`RunRecord.to_dict`), checked for what is drawn.

    Raises ValueError saying what is wrong and where (``steps[2]: 'seconds' is
    missing``), so an edited or truncated record gives one line, not a crash.

    Example:
        >>> edge_map_steps({"steps": "x"})
        Traceback (most recent call last):
        ...
        ValueError: 'steps' is a str, expected a list of iterations
        >>> edge_map_steps({"steps": [{"op": "edge_map", "direction": "push", "partitions": []}]})
        Traceback (most recent call last):
        ...
        ValueError: steps[0]: 'seconds' is missing
    """
    if not isinstance(record, dict):
        raise ValueError(f"a run record is a JSON object, not a {type(record).__name__}")
    if "steps" not in record:
        raise ValueError("no 'steps'")
    raw = record["steps"]
    if not isinstance(raw, list):
        raise ValueError(f"'steps' is {'null' if raw is None else 'a ' + type(raw).__name__}, "
                         "expected a list of iterations")
    steps = []
    for i, step in enumerate(raw):
        where = f"steps[{i}]"
        if not isinstance(step, dict):
            raise ValueError(f"{where} is a {type(step).__name__}, expected an object")
        if step.get("op") != "edge_map":
            continue

        def need(key: str, ok: Any, what: str, where: str = where, step: dict = step) -> None:
            if key not in step:
                raise ValueError(f"{where}: {key!r} is missing")
            if not ok(step[key]):
                raise ValueError(f"{where}: {key!r} is {json_text(step[key])}, expected {what}")

        need("seconds", _number, "a number of seconds")
        need("direction", lambda v: isinstance(v, str), "push or pull")
        need("partitions", lambda v: isinstance(v, list), "a list of partitions")
        for key in ("compact_seconds", "copy_seconds", "kernel_seconds", "floor_bytes"):
            if step.get(key) is not None and not _number(step[key]):
                raise ValueError(f"{where}: {key!r} is {json_text(step[key])}, expected a number")
        extra = step.get("device_seconds")
        if extra is not None and not (isinstance(extra, dict) and all(map(_number, extra.values()))):
            raise ValueError(f"{where}: 'device_seconds' is {json_text(extra)}, expected numbers by executor")
        for j, part in enumerate(step["partitions"]):
            here = f"{where}.partitions[{j}]"
            if not isinstance(part, dict):
                raise ValueError(f"{here} is a {type(part).__name__}, expected an object")
            if not isinstance(part.get("engine"), str):
                raise ValueError(f"{here}: 'engine' is " + (json_text(part["engine"]) if "engine" in part
                                                             else "missing"))
            if not _number(part.get("bytes_h2d")):
                raise ValueError(f"{here}: 'bytes_h2d' is " + (json_text(part["bytes_h2d"]) if "bytes_h2d" in part
                                                                else "missing"))
            if not isinstance(part.get("device", ""), str):
                raise ValueError(f"{here}: 'device' is {json_text(part['device'])}, expected a name")
        steps.append(step)
    if not steps:
        raise ValueError("the run record has no edge_map iterations to draw")
    return steps


def json_text(value: Any, limit: int = 40) -> str:
    """A value as the record's JSON spells it, cut to ``limit`` characters (for messages)."""
    import json

    text = json.dumps(value, default=str)
    return text if len(text) <= limit else text[:limit] + "..."


def bytes_by_kind(step: dict[str, Any]) -> tuple[int, int]:
    """(measured, modelled) host-to-device bytes of one step of a record dict: zero-copy and
    unified partitions' bytes are modelled (what their rows read over the bus, never counted
    there), explicit copies measured (their sizes).

    Example:
        >>> bytes_by_kind({"partitions": [{"engine": "filter", "bytes_h2d": 10},
        ...                               {"engine": "zerocopy", "bytes_h2d": 7}]})
        (10, 7)
    """
    modelled = sum(p["bytes_h2d"] for p in step["partitions"] if bytes_modelled(p["engine"]))
    return sum(p["bytes_h2d"] for p in step["partitions"]) - modelled, modelled


def plot_record(record: dict[str, Any], out: str | os.PathLike) -> Path:
    """Draw ``record`` (a :meth:`RunRecord.to_dict`) at ``out``, in the format its suffix names; returns the path.

    Raises ValueError when the record is malformed or has no edge_map iteration
    to draw, or when matplotlib cannot write ``out``'s suffix, and
    GraphferryError when matplotlib is not installed. The file gets the user's
    umask, as any new file; missing folders are made.
    """
    fmt = picture_format(out)
    steps = edge_map_steps(record)
    import matplotlib.pyplot as plt

    xs = list(range(1, len(steps) + 1))
    shares: list[Counter] = []
    for s in steps:
        c = Counter((p["engine"], p.get("device", "")) for p in s["partitions"])
        total = sum(c.values()) or 1
        shares.append(Counter({k: v / total for k, v in c.items()}))
    keys = sorted({k for c in shares for k in c}, key=lambda k: (k[1], k[0]))
    devices = sorted({d for _, d in keys})

    fig, (ax1, ax2, ax3) = plt.subplots(3, 1, figsize=(9, 10), sharex=True)
    bottom = [0.0] * len(steps)
    for engine, device in keys:
        h = [c.get((engine, device), 0.0) for c in shares]
        ax1.bar(xs, h, bottom=bottom, color=ENGINE_COLOURS.get(engine, "#bcbd22"), edgecolor="black",
                linewidth=0.3, hatch=HATCHES[devices.index(device) % len(HATCHES)], label=_label(engine, device))
        bottom = [b + v for b, v in zip(bottom, h)]
    ax1.set_ylabel("share of active partitions")
    ax1.set_ylim(0, 1)
    title = f"{record.get('algorithm', '?')}: engine {record.get('engine', '?')} on {record.get('backend', '?')}"
    fig.suptitle(title)
    ax1.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    if len(steps) <= 25:  # the direction of each iteration, where there is room to print it
        for x, s in zip(xs, steps):
            ax1.text(x, 1.01, s["direction"], ha="center", va="bottom", fontsize=6)

    measured_modelled = [bytes_by_kind(s) for s in steps]
    moved = [a / 2**20 for a, _ in measured_modelled]
    modelled = [b / 2**20 for _, b in measured_modelled]
    ax2.bar(xs, moved, color="#1f77b4", label="copied host-to-device (measured)")
    if any(modelled):
        ax2.bar(xs, modelled, bottom=moved, color="#aec7e8", hatch="//", edgecolor="#1f77b4", linewidth=0.3,
                label="read over the bus by zero-copy (modelled)")
    if any(s.get("floor_bytes") is not None for s in steps):
        floor = [(s.get("floor_bytes") or 0) / 2**20 for s in steps]
        ax2.step(xs, floor, "k-", where="mid", linewidth=1.2, label="floor (edge bytes that must cross)")
    ax2.set_ylabel("MiB per iteration")
    ax2.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))

    parts = [("compact_seconds", "compaction", "#ff7f0e"), ("copy_seconds", "copies", "#1f77b4"),
             ("kernel_seconds", "kernels", "#2ca02c")]
    ms = [s["seconds"] * 1e3 for s in steps]
    ax3.plot(xs, ms, "ko-", markersize=3, label="iteration")
    for key, name, colour in parts:
        ax3.plot(xs, [s.get(key, 0.0) * 1e3 for s in steps], "-", color=colour, linewidth=1, label=name)
    others = sorted({k for s in steps for k in (s.get("device_seconds") or {})})
    for k, name in enumerate(others):  # the hybrid's other executors and its state exchange
        ax3.plot(xs, [(s.get("device_seconds") or {}).get(name, 0.0) * 1e3 for s in steps], "--",
                 color=f"C{k + 4}", linewidth=1, label=name if name == "state_exchange" else f"executor {name}")
    ax3.set_ylabel("ms")
    ax3.set_xlabel("edge_map iteration")
    ax3.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.tight_layout()

    return save_figure(fig, out, fmt)


def save_figure(fig, out: str | os.PathLike, fmt: str) -> Path:
    """Write ``fig`` to ``out`` in format ``fmt`` whole or not at all (a work file published
    over ``out``), creating its folder, and close the figure either way."""
    import matplotlib.pyplot as plt

    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    try:
        with work_file(out.parent, f".{out.name}.", out.suffix) as tmp:
            fig.savefig(tmp, dpi=110, format=fmt)
            publish(tmp, out)  # whole or not at all
    finally:
        plt.close(fig)
    return out
