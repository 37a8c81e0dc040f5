"""The one place where push or pull is chosen (Beamer's direction optimisation, GAPBS's rule).

Push scatters along the active vertices' out-edges with atomics; pull gathers
along every unfinished vertex's in-edges without atomics. Pull pays off once
the frontier is dense. The rule is GAPBS's (Beamer, Asanovic and Patterson,
"Direction-optimizing breadth-first search", SC 2012, with GAPBS's constants
alpha = 15, beta = 18), and it needs the previous step, so a
:class:`DirectionHistory` carries it from one edge_map to the next:

* while pushing, switch to pull when ``n_f + m_f > m_u / alpha``: the frontier's
  edges ``m_f`` (plus its size ``n_f``, as in Ligra) exceed a fraction of the
  edges ``m_u`` not yet scanned by earlier pushes (GAPBS's
  ``scout_count > edges_to_check / alpha``);
* while pulling, switch back to push when the frontier shrinks and holds at
  most ``n / beta`` vertices (GAPBS: ``awake_count < old_awake_count`` and
  ``awake_count <= n / beta``), and keep pulling otherwise. The push that
  follows a pull is charged no edges (GAPBS sets ``scout_count = 1`` there
  and does not count the converted frontier's degrees), so neither a pull nor
  that push needs the frontier's edges: only pushes after pushes count them.

That rule prices a pull below ``m`` because a pull stops at a row's first
useful in-edge (BFS). A program whose ``cond`` is the constant ``true``
(SSSP, PageRank, linking) never stops early: its pull reads all ``m`` edges
and beats the push's atomics only when the frontier covers most edges, so it
pulls when ``n_f + m_f > f * m`` and pushes otherwise, with ``f`` the backend's
``full_pull_fraction_for(program)``: how a push's edge rate compares with a pull's
there (on the CPU 1, a frontier of every vertex, and 0.3 for programs whose pushes
add, which pay a compare-and-swap per edge: 3x a pull's edge on 16 cores; 2/3 on a
GPU, where atomics on scattered heads cost more: delta PageRank at Kronecker 25 on
an H200 pushed 1.0 G edges in 54-60 ms where a pull of all 1.05 G took 42.5 ms).

For BFS the pushed edges never exceed ``m``; a program that re-activates
vertices (SSSP, PageRank) can scan more, so ``m_u`` starts again at ``m``
once it would drop below zero. Algorithms never choose; a caller may force a direction.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

ALPHA = 15
BETA = 18
DEFAULT_PULL_FRACTION = 1 / ALPHA
#: a program that never stops a pull early pulls when its frontier's edges exceed this share of m
FULL_PULL_FRACTION = 1.0


@dataclass
class DirectionHistory:
    """What the rule remembers between edge_map calls of one traversal."""

    m: int
    n: int
    last: str | None = None   # the previous step's direction
    last_size: int = 0        # the previous step's frontier size
    unscanned: int = -1       # edges not yet scanned by pushes (GAPBS edges_to_check)

    def __post_init__(self) -> None:
        if self.unscanned < 0:
            self.unscanned = self.m

    def note(self, direction: str, frontier_size: int, frontier_edges: int) -> None:
        """Record the step just chosen."""
        if direction == "push":
            self.unscanned -= frontier_edges
            if self.unscanned < 0:
                self.unscanned = self.m
        self.last, self.last_size = direction, frontier_size


def choose_direction(program, frontier_size: int, frontier_edges: "int | Callable[[], int]", m: int, *,
                     force: str = "auto", pull_fraction: float = DEFAULT_PULL_FRACTION,
                     history: DirectionHistory | None = None, n: int | None = None,
                     full_pull_fraction: float = FULL_PULL_FRACTION) -> str:
    """``"push"`` or ``"pull"`` for one edge_map call (and noted in ``history`` when given).

    Without history the step is judged as a first step (push unless its edges
    exceed ``pull_fraction * m``). ``frontier_edges`` may be a function that
    counts them: it is called only where the rule reads the count (not while a
    traversal keeps pulling: that choice needs the frontier's size alone, as
    GAPBS's bottom-up loop counts no edges).

    Example:
        >>> class P: has_push = has_pull = True
        >>> choose_direction(P(), 10, 50, 10_000), choose_direction(P(), 900, 9_000, 10_000)
        ('push', 'pull')
        >>> h = DirectionHistory(m=10_000, n=1_000)
        >>> [choose_direction(P(), s, e, 10_000, history=h) for s, e in
        ...  [(1, 100), (100, 2_000), (500, 6_000), (300, 3_000), (40, 400), (5, 50)]]
        ['push', 'pull', 'pull', 'pull', 'push', 'push']
        >>> class Full: has_push = has_pull = True; pull_stops_early = False
        >>> [choose_direction(Full(), 10, 7_000, 10_000, full_pull_fraction=f) for f in (1.0, 2 / 3)]
        ['push', 'pull']
    """
    if force not in ("auto", "push", "pull"):
        raise ValueError(f"direction must be auto, push or pull, got {force!r}")
    counted: list[int] = []

    def edges() -> int:
        if not counted:
            counted.append(int(frontier_edges() if callable(frontier_edges) else frontier_edges))
        return counted[0]

    if force == "push" or (force == "auto" and not program.has_pull):
        if not program.has_push:
            raise ValueError(f"program {program.name} has no push form (update_atomic)")
        d = "push"
    elif force == "pull" or not program.has_push:
        if not program.has_pull:
            raise ValueError(f"program {program.name} has no pull form (update)")
        d = "pull"
    elif not getattr(program, "pull_stops_early", True):
        d = "pull" if frontier_size + edges() > full_pull_fraction * m else "push"
    elif history is None or history.last is None or history.last == "push":
        unscanned = m if history is None else history.unscanned
        # (the frontier's size counts too, as in Ligra: an edgeless frontier of every vertex pulls)
        d = "pull" if frontier_size + edges() > pull_fraction * unscanned else "push"
    else:
        shrinking = frontier_size < history.last_size
        d = "push" if shrinking and frontier_size * BETA <= (history.n if n is None else n) else "pull"
    if history is not None:
        # a pull leaves unscanned as it is; so does the push after a pull (GAPBS's scout_count = 1)
        history.note(d, frontier_size, edges() if d == "push" and history.last != "pull" else 0)
    return d
