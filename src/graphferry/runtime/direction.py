"""The one place where push or pull is chosen (Ligra / Beamer's direction optimisation).

Push scatters along the active vertices' out-edges with atomics; pull gathers
along every unfinished vertex's in-edges without atomics. Pull pays off once
the frontier is dense: Ligra switches when the frontier's out-edges plus its
size exceed ``m / 20``. Algorithms never choose; a caller may force a direction.
"""

from __future__ import annotations

DEFAULT_PULL_FRACTION = 1 / 20


def choose_direction(program, frontier_size: int, frontier_edges: int, m: int, *,
                     force: str = "auto", pull_fraction: float = DEFAULT_PULL_FRACTION) -> str:
    """``"push"`` or ``"pull"`` for one edge_map call.

    Example:
        >>> class P: has_push = has_pull = True
        >>> choose_direction(P(), 10, 50, 10_000), choose_direction(P(), 900, 9_000, 10_000)
        ('push', 'pull')
    """
    if force not in ("auto", "push", "pull"):
        raise ValueError(f"direction must be auto, push or pull, got {force!r}")
    if force == "push" or (force == "auto" and not program.has_pull):
        if not program.has_push:
            raise ValueError(f"program {program.name} has no push form (update_atomic)")
        return "push"
    if force == "pull" or not program.has_push:
        if not program.has_pull:
            raise ValueError(f"program {program.name} has no pull form (update)")
        return "pull"
    return "pull" if frontier_size + frontier_edges > pull_fraction * m else "push"
