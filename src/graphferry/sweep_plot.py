"""Time against the device budget: the picture of a budget sweep's results file (issue 37).

``bench/budget_sweep.py`` times every single engine and the hybrid at budgets from 1% to 100%
of the weighted edge bytes, with peers beside them; this draws it as the
UVM-versus-Subway-versus-EMOGI study draws its central figure: one panel per algorithm, time
against the budget (log scale), a line per engine and a heavier one for the hybrid, each peer a
horizontal line (its time does not depend on graphferry's budget), resident a point at 100% with a
dotted line down to the smallest budget that holds it. PageRank's panels are per iteration.
A run not checked in its run is drawn hollow.

Example:
    >>> import tempfile, pathlib
    >>> from graphferry.sweep_plot import plot_sweep
    >>> doc = {"graph": {"name": "g"}, "budget_fractions": [0.1, 1.0], "runs": [
    ...     {"engine": "hybrid", "algorithm": "bfs", "budget_fraction": 0.1, "seconds": 0.02, "verified": True},
    ...     {"engine": "hybrid", "algorithm": "bfs", "budget_fraction": 1.0, "seconds": 0.01, "verified": True},
    ...     {"engine": "zerocopy", "algorithm": "bfs", "budget_fraction": 0.1, "seconds": 0.03, "verified": True,
    ...      "holds_for_budget_fractions": [0.1, 1.0]},
    ...     {"engine": "peer:gapbs", "algorithm": "bfs", "seconds": 0.05, "verified": True}]}
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "sweep.png"
    >>> plot_sweep(doc, out).stat().st_size > 1000
    True
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from .plots import ENGINE_COLOURS, picture_format, save_figure

#: the panels, in order, and what each shows
PANELS = {"bfs": "BFS", "sssp": "SSSP", "pagerank": "PageRank (LDBC), per iteration",
          "pagerank-delta": "PageRank (delta), per iteration", "wcc": "WCC"}
PEER_STYLES = {"peer:emogi-gpu": ("EMOGI, edges in GPU memory", "#d62728", "--"),
               "peer:emogi-managed": ("EMOGI, managed memory", "#d62728", "-."),
               "peer:emogi-zerocopy": ("EMOGI zero-copy", "#e377c2", "--"),
               "peer:hytgraph": ("HyTGraph", "#17becf", "--"),
               "peer:gapbs": ("GAPBS (CPU)", "#000000", ":")}


def is_sweep(doc: Any) -> bool:
    """Whether ``doc`` is a budget sweep's results file (``budget_fractions`` and runs)."""
    return isinstance(doc, dict) and isinstance(doc.get("budget_fractions"), list) and isinstance(doc.get("runs"), list)


def panel_of(run: dict) -> str:
    """The panel a run belongs to: its algorithm, with PageRank's delta form apart (a peer's
    PageRank is the delta form: EMOGI's and HyTGraph's push to a tolerance)."""
    a = run.get("algorithm", "?")
    if a == "pagerank" and str(run.get("engine", "")).startswith("peer:") and run["engine"] != "peer:gapbs":
        return "pagerank-delta"
    return a


def sweep_points(runs: list[dict]) -> list[dict]:
    """The measured runs with each ``holds_for_budget_fractions`` written out: one row per budget
    the measurement stands for (``budget_fraction`` that budget, ``same_as`` the one measured).
    Runs without ``seconds`` (skipped, failed) are left out.

    Example:
        >>> rows = sweep_points([{"engine": "zerocopy", "algorithm": "bfs", "seconds": 1.0,
        ...                       "budget_fraction": 0.5, "holds_for_budget_fractions": [0.01, 0.5]}])
        >>> [(r["budget_fraction"], r.get("same_as")) for r in rows]
        [(0.5, None), (0.01, 0.5)]
    """
    out = []
    for r in runs:
        if not isinstance(r, dict) or not isinstance(r.get("seconds"), (int, float)):
            continue
        out.append(r)
        for f in r.get("holds_for_budget_fractions") or []:
            if f != r.get("budget_fraction"):
                out.append({**r, "budget_fraction": f, "same_as": r["budget_fraction"]})
    return out


def milliseconds(run: dict) -> float:
    """A run's figure in ms: per iteration for PageRank, per call otherwise."""
    if run.get("algorithm", "").startswith("pagerank") and run.get("seconds_per_iteration"):
        return float(run["seconds_per_iteration"]) * 1e3
    return float(run["seconds"]) * 1e3


def best_single(points: list[dict], panel: str, fraction: float) -> dict | None:
    """The fastest checked single engine's run of ``panel`` at budget ``fraction`` among
    ``points`` (:func:`sweep_points`): resident wherever it fits; peers and the hybrid are not
    single engines.

    Example:
        >>> pts = [{"engine": "zerocopy", "algorithm": "bfs", "seconds": 0.02, "budget_fraction": 0.1, "verified": True},
        ...        {"engine": "resident", "algorithm": "bfs", "seconds": 0.01, "budget_fraction": 1.0, "verified": True,
        ...         "fits_from_budget_fraction": 0.5}]
        >>> best_single(pts, "bfs", 0.1)["engine"], best_single(pts, "bfs", 0.5)["engine"]
        ('zerocopy', 'resident')
    """
    cands = [r for r in points if panel_of(r) == panel and r["engine"] != "hybrid"
             and not str(r["engine"]).startswith("peer:") and r.get("verified")
             and (r.get("budget_fraction") == fraction
                  or (r["engine"] == "resident" and r.get("fits_from_budget_fraction", 2.0) <= fraction))]
    return min(cands, key=milliseconds) if cands else None


def check_sweep(doc: Any) -> list[dict]:
    """The points a sweep draws (:func:`sweep_points`); ValueError saying why when there are none."""
    if not is_sweep(doc):
        raise ValueError("not a budget sweep's results file (no budget_fractions and runs)")
    points = sweep_points(doc["runs"])
    if not any(isinstance(r.get("budget_fraction"), (int, float)) for r in points):
        raise ValueError("no run with a budget_fraction and seconds to draw")
    return points


def plot_sweep(doc: dict, out: str | os.PathLike) -> Path:
    """Draw a budget sweep's results file ``doc`` at ``out`` (format from its suffix); returns the path.

    Raises ValueError when ``doc`` is not a sweep or has nothing to draw, or when matplotlib
    cannot write ``out``'s suffix."""
    fmt = picture_format(out)
    points = check_sweep(doc)
    import matplotlib.pyplot as plt

    panels = [p for p in PANELS if any(panel_of(r) == p for r in points)]
    cols = min(3, len(panels))
    rows = (len(panels) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(5.2 * cols, 4.0 * rows), squeeze=False)
    fractions = sorted(float(f) for f in doc["budget_fractions"])
    handles: dict[str, Any] = {}
    for ax, panel in zip(axes.flat, panels):
        mine = [r for r in points if panel_of(r) == panel]
        _draw_engines(ax, [r for r in mine if not str(r["engine"]).startswith("peer:")], handles)
        _draw_peers(ax, [r for r in mine if str(r["engine"]).startswith("peer:")], handles)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xticks(fractions)
        ax.set_xticklabels([f"{f:.0%}" for f in fractions], fontsize=7, rotation=45)
        ax.minorticks_off()
        ax.set_title(PANELS[panel], fontsize=10)
        ax.set_xlabel("device budget (share of the weighted edge bytes)", fontsize=8)
        ax.set_ylabel("ms per iteration" if panel.startswith("pagerank") else "ms", fontsize=8)
        ax.grid(True, which="major", alpha=0.3)
    for ax in list(axes.flat)[len(panels):]:
        ax.axis("off")
    g = doc.get("graph", {})
    fig.suptitle(f"{g.get('name', '?')}: time against the device budget ({doc.get('machine', {}).get('device', '?')})",
                 fontsize=11)
    fig.legend(list(handles.values()), list(handles), loc="lower center", ncol=min(6, len(handles)), fontsize=8,
               frameon=False)
    fig.tight_layout(rect=(0, 0.05 + 0.02 * (len(handles) // 6), 1, 0.96))
    return save_figure(fig, out, fmt)


def _draw_engines(ax, runs: list[dict], handles: dict) -> None:
    engines = sorted({r["engine"] for r in runs}, key=lambda e: (e == "hybrid", e))
    for engine in engines:
        mine = sorted((r for r in runs if r["engine"] == engine and isinstance(r.get("budget_fraction"), (int, float))),
                      key=lambda r: r["budget_fraction"])
        if not mine:
            continue
        xs, ys = [r["budget_fraction"] for r in mine], [milliseconds(r) for r in mine]
        colour = "#000000" if engine == "hybrid" else ENGINE_COLOURS.get(engine, "#bcbd22")
        width = 2.4 if engine == "hybrid" else 1.2
        (line,) = ax.plot(xs, ys, "-", color=colour, linewidth=width, zorder=3 if engine == "hybrid" else 2)
        for r, x, y in zip(mine, xs, ys):
            ax.plot([x], [y], "o", color=colour, markersize=4, zorder=4,
                    markerfacecolor=colour if r.get("verified") else "white")
        fits = [r.get("fits_from_budget_fraction") for r in mine if r.get("fits_from_budget_fraction")]
        if engine == "resident" and fits and fits[0] < xs[0]:  # the same run wherever the side fits
            ax.plot([fits[0], xs[0]], [ys[0], ys[0]], ":", color=colour, linewidth=width)
        handles.setdefault(engine, line)


def _draw_peers(ax, runs: list[dict], handles: dict) -> None:
    for r in runs:
        label, colour, style = PEER_STYLES.get(r["engine"], (r["engine"], "#7f7f7f", "--"))
        line = ax.axhline(milliseconds(r), color=colour, linestyle=style, linewidth=1.1,
                          alpha=1.0 if r.get("verified") else 0.5)
        handles.setdefault(label + ("" if r.get("verified") else " (unchecked)"), line)
