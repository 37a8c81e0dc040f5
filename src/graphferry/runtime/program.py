"""Vertex programs: per-edge and per-vertex logic written once as C++ text.

A :class:`Program` names its vertex-state arrays and scalars and carries a few
C++ functions (Ligra's update / updateAtomic / cond, Lux's init / compute /
update):

* ``cond(S, d)``: may vertex ``d`` still change? (skips finished destinations)
* ``update(S, s, d, w)``: pull direction, one thread owns ``d``: no atomics
* ``update_atomic(S, s, d, w)``: push direction, many sources hit ``d`` at once
* optionally ``pull_begin(S, d)`` / ``pull_fold(S, acc, s, d, w)`` /
  ``pull_end(S, d, acc)``: the same pull as a fold into a register (for
  programs whose update accumulates and never stops early, like PageRank's
  sum): the CPU kernel then stores once per row instead of once per edge.
  ``pull_end`` (called for rows that folded at least one edge) returns whether
  ``d`` changed; the result must equal ``update``'s.
* optionally, for a fold that adds (``combine="sum"``: ``pull_fold`` adds a term
  to the accumulator, so a fold started from zero is the row's increment),
  ``pull_merge(S, d, part)``: add such a partial sum to ``d`` atomically and
  return whether ``d`` changed. GPU kernels then share a heavy row among a warp,
  a block or the grid by summing partial folds (shuffles, one atomic per block)
  instead of adding every edge atomically.
* vertex functions ``f(S, v) -> bool`` run by ``vertex_map`` (true = keep ``v`` active)
* neighbourhood functions ``f(S, G, GT, v) -> bool`` run by ``neighbor_map``
  with read access to the whole graph ``G`` and its transpose ``GT``.

``S`` is a generated ``State`` struct whose fields are the arrays (pointers) and
scalars declared here, in order. The same text is compiled for the CPU (C++ and
OpenMP) and for CUDA (NVRTC); ``gf_prelude.h`` supplies the shared vocabulary
(``GF_FN``, ``vid_t``, ``gf_atomic_min``, ``gf_cas``, ...).

Example:
    >>> from graphferry.runtime.program import Program
    >>> p = Program("touch", arrays={"seen": "int32"},
    ...     source="GF_FN bool cond(const State& S, vid_t d) { return S.seen[d] == 0; }\\n"
    ...            "GF_FN bool update_atomic(const State& S, vid_t s, vid_t d, float w)"
    ...            " { return gf_cas(&S.seen[d], 0, 1); }")
    >>> p.has_push, p.has_pull
    (True, False)
    >>> "int32_t* seen;" in p.state_struct()
    True
"""

from __future__ import annotations

import functools
import hashlib
import re
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

# C++ spelling of the dtypes a program may declare. "vid" is the graph's vertex id type.
_CTYPES = {
    "int8": "int8_t",
    "uint8": "uint8_t",
    "int32": "int32_t",
    "uint32": "uint32_t",
    "int64": "int64_t",
    "uint64": "uint64_t",
    "float32": "float",
    "float64": "double",
    "vid": "vid_t",
}
_SCALAR_CTYPES = {"int64": "int64_t", "float64": "double"}
#: Merge operators a program may declare for state written by several executors at once.
COMBINE_OPERATORS = (None, "min", "max", "sum", "or")
#: What a neighbourhood function reads of the graph (``Program.neighbor_reads``).
NEIGHBOR_READS = ("row", "rows", "neighbors")
#: How executors' copies merge after a neighbourhood function (``Program.neighbor_writes``).
NEIGHBOR_WRITES = (None, "own", "min", "max", "sum", "or")


@functools.lru_cache(maxsize=4096)
def _defines(source: str, name: str) -> bool:
    # cached: the runtime asks per edge_map (has_push, has_pull); a regex search each time was
    # 20 us of a BFS round's Python on this 2-core machine
    return re.search(rf"\b{name}\s*\(\s*const\s+State\s*&", source) is not None


@functools.lru_cache(maxsize=1024)
def _cond_is_true(source: str) -> bool:
    return re.search(r"\bcond\s*\(\s*const\s+State\s*&\s*\w+\s*,\s*vid_t\s+\w+\s*\)\s*"
                     r"\{\s*return\s+true\s*;\s*\}", source) is not None


# The functions a pull runs for destination d, and the position of d among their parameters.
_PULL_FUNCTIONS = {"cond": 1, "update": 2, "pull_begin": 1, "pull_fold": 3, "pull_end": 1, "pull_merge": 1}


def _closing(text: str, start: int, pair: str) -> int | None:
    """The index of the bracket that closes the one opened just before ``start`` (``pair``: its
    opening and closing characters, ``"{}"`` or ``"[]"``); None when it is never closed."""
    depth, i = 1, start
    while i < len(text) and depth:
        depth += {pair[0]: 1, pair[1]: -1}.get(text[i], 0)
        i += 1
    return i - 1 if depth == 0 else None


def _function_body(source: str, name: str) -> tuple[list[str], str] | None:
    """Parameter names and body text of ``name(const State& ...)`` in ``source`` (None: not found,
    or braces that do not balance)."""
    m = re.search(rf"\b{name}\s*\(\s*(const\s+State\s*&[^)]*)\)\s*\{{", source)
    if m is None:
        return None
    params = [(re.findall(r"\w+", p) or [""])[-1] for p in m.group(1).split(",")]
    end = _closing(source, m.end(), "{}")
    return None if end is None else (params, source[m.end():end])


@functools.lru_cache(maxsize=1024)
def _pull_source_arrays(source: str, arrays: tuple[str, ...], scalars: tuple[str, ...]) -> tuple[str, ...] | None:
    """The arrays that a pull's functions may read or write at a vertex other than the destination
    ``d`` (see :attr:`Program.pull_source_arrays`); None when the text does not show it: the
    state is handed on whole (``gf_link(S.label, ...)``, ``helper(S, ...)``), an array is used
    other than indexed, or a function's text cannot be found."""
    found: set[str] = set()
    names = "|".join(re.escape(a) for a in arrays) or "(?!)"
    for line in re.findall(r"^\s*#\s*define\b.*$", source, flags=re.M):
        if re.search(rf"\b({names})\b", line):
            return None  # a macro may index an array at any vertex: the text does not show which
    for name, at in _PULL_FUNCTIONS.items():
        if not _defines(source, name):
            continue
        parsed = _function_body(source, name)
        if parsed is None or len(parsed[0]) <= at:
            return None
        params, body = parsed
        state, dest = params[0], params[at]
        body = re.sub(r"//[^\n]*|/\*.*?\*/", " ", body, flags=re.S)
        bare = re.sub(rf"\b{re.escape(state)}\s*\.\s*\w+", " ", body)  # S.a gone: what names remain?
        if re.search(rf"\b({names})\b", bare):
            return None  # an array named outside ``S.a[...]`` (a macro's argument, a local of that name)
        for m in re.finditer(rf"\b{re.escape(state)}\b", body):  # each use, nested ones too
            use = re.match(r"\s*\.\s*(\w+)\s*(\[)?", body[m.end():])
            if use is None:
                return None  # the state itself handed on
            field_name = use.group(1)
            if field_name in scalars and not use.group(2):
                continue
            if field_name not in arrays or not use.group(2):
                return None  # a pointer handed on, or something this reading does not know
            start = m.end() + use.end()
            end = _closing(body, start, "[]")
            if end is None:
                return None
            if body[start:end].strip() != dest:
                found.add(field_name)
    return tuple(a for a in arrays if a in found)


@dataclass(frozen=True)
class Program:
    """A vertex program (see module docstring)."""

    name: str
    source: str
    arrays: dict[str, str] = field(default_factory=dict)
    scalars: dict[str, str] = field(default_factory=dict)
    vertex_functions: tuple[str, ...] = ()
    neighbor_functions: tuple[str, ...] = ()
    uses_weights: bool = False  # False: engines move no weight bytes, kernels see w = 1
    #: How two executors' copies of the state merge after a push (min, max, sum or or);
    #: declaring it also promises that pull's ``update`` writes only ``d``'s entries (so
    #: executors owning disjoint destinations merge by copying them). None: the edge
    #: functions write elsewhere (e.g. union-find links): one executor runs each edge_map.
    combine: str | None = None
    #: True promises that push's ``update_atomic`` and pull's ``update`` (or ``pull_end``) return
    #: true whenever they change ``d``'s state, so an edge_map's output frontier names every
    #: vertex it changed: ranks and executors then exchange only those vertices' values (Lux's
    #: update set) instead of whole arrays.
    signals_changes: bool = False
    #: The arrays the edge functions (``update``, ``pull_end``, ``update_atomic``) write; None:
    #: any. Executors and ranks then merge and exchange these only, and need no snapshot of
    #: the others to find what an edge_map changed.
    edge_writes: tuple[str, ...] | None = None
    #: What a neighbourhood function reads of the graph, for the hybrid's cost rule and its
    #: placement: "row" (at most its own vertex's rows, like an edge map: the hybrid may read
    #: those rows from a device block that holds only them), "rows" (one row per call, but not
    #: always its own: a function that visits vertices in a scrambled order; priced as "row")
    #: or "neighbors" (its neighbours' rows too: intersections, as in triangle counting and
    #: LCC, which must say so).
    neighbor_reads: str = "row"
    #: A "row" function that reads at most the first this-many edges of its row (and the row's
    #: degree) promises it here (Afforest's sampling: 2). Where a vertex's row lies across the
    #: bus, one such read costs a whole request; the hybrid may then serve every row from a
    #: device copy of just those prefixes (a CSR of ``min(D(u), k)`` edges a row, built once
    #: and kept like a resident partition), in which ``G.degree(u)`` is the prefix's. 0: no promise.
    neighbor_prefix: int = 0
    #: How several executors running a neighbourhood function over disjoint vertex ranges at once
    #: merge: "own" (it writes only its own vertex's entries: each range is copied back), a
    #: combine operator ("sum": it adds into any vertex's entries, merged as increments; "min",
    #: "max", "or" elementwise), or None (it writes elsewhere otherwise: one executor runs it).
    neighbor_writes: str | None = None
    #: HyTGraph's asynchronous mode (sec. VI-A: a loaded partition is processed once more in the
    #: same iteration): how a push prepares a partition's sources for a second pass. ``()``: push
    #: again from the vertices the iteration has touched so far, as they are (a min-combining
    #: program, whose fixpoint does not depend on the order of relaxations, like SSSP); a tuple of
    #: vertex functions: each runs over the previous one's output, the first over the partition's
    #: touched vertices, and the last one's output pushes again (delta PageRank: ``("active",
    #: "emit")``); None: synchronous only. Used by the hybrid engine with ``Policy(asynchronous=True)``.
    again: tuple[str, ...] | None = None
    #: HyTGraph's delta-driven priority (sec. VI-B: "computes delta value for all partitions and
    #: prioritizes those with large delta values"): a vertex array whose magnitude is what a
    #: vertex's push carries along each of its edges (delta PageRank: ``"send"``, its residual over
    #: its out-degree). With ``Policy(asynchronous=True)`` the hybrid engine copies partitions in
    #: order of what their active edges carry, largest first, instead of their active edges.
    priority: str | None = None

    def __post_init__(self) -> None:
        if self.combine not in COMBINE_OPERATORS:
            raise ValueError(f"program {self.name}: combine must be one of "
                             f"{', '.join(str(c) for c in COMBINE_OPERATORS)}, got {self.combine!r}")
        if self.neighbor_reads not in NEIGHBOR_READS:
            raise ValueError(f"program {self.name}: neighbor_reads must be one of {', '.join(NEIGHBOR_READS)}, "
                             f"got {self.neighbor_reads!r}")
        if self.neighbor_prefix < 0 or (self.neighbor_prefix and self.neighbor_reads != "row"):
            raise ValueError(f"program {self.name}: neighbor_prefix needs neighbor_reads='row' and a count >= 0, "
                             f"got {self.neighbor_prefix!r} with {self.neighbor_reads!r}")
        if self.neighbor_writes not in NEIGHBOR_WRITES:
            raise ValueError(f"program {self.name}: neighbor_writes must be one of "
                             f"{', '.join(str(c) for c in NEIGHBOR_WRITES)}, got {self.neighbor_writes!r}")
        if self.edge_writes is not None and not set(self.edge_writes) <= set(self.arrays):
            raise ValueError(f"program {self.name}: edge_writes names arrays it does not have: "
                             f"{sorted(set(self.edge_writes) - set(self.arrays))}")
        for a, t in self.arrays.items():
            if t not in _CTYPES:
                raise ValueError(f"program {self.name}: array {a!r} has unsupported dtype {t!r}")
        for s, t in self.scalars.items():
            if t not in _SCALAR_CTYPES:
                raise ValueError(f"program {self.name}: scalar {s!r} must be int64 or float64, got {t!r}")
        for f in self.vertex_functions + self.neighbor_functions:
            if not _defines(self.source, f):
                raise ValueError(f"program {self.name}: function {f}(const State& ...) is not defined")
        if _defines(self.source, "pull_merge") and not (self.has_pull_fold and self.combine == "sum"):
            raise ValueError(f"program {self.name}: pull_merge adds partial folds, so it needs pull_begin, "
                             f"pull_fold, pull_end and combine='sum' (got combine={self.combine!r})")
        if self.priority is not None and self.priority not in self.arrays:
            raise ValueError(f"program {self.name}: priority names an array it does not have: {self.priority!r}")
        if self.again is not None and not set(self.again) <= set(self.vertex_functions):
            raise ValueError(f"program {self.name}: again names functions that are not among its "
                             f"vertex_functions: {sorted(set(self.again) - set(self.vertex_functions))}")

    @property
    def written_arrays(self) -> list[str]:
        """The arrays an edge_map may change (all of them unless ``edge_writes`` says which)."""
        return list(self.arrays) if self.edge_writes is None else [a for a in self.arrays if a in self.edge_writes]

    @property
    def pull_source_arrays(self) -> tuple[str, ...] | None:
        """The arrays a pull may touch at vertices other than its destination (read from the
        text of ``cond``, ``update`` and the fold: every ``S.a[x]`` with ``x`` not ``d``), or
        None when the text does not show it. An executor that pulls a range of destinations
        then needs the others' values of these arrays only, and of the rest its own range.

        Example:
            >>> p = Program("pr", arrays={"contrib": "float64", "acc": "float64"}, source=(
            ...     "GF_FN bool cond(const State& S, vid_t d) { return true; }\\n"
            ...     "GF_FN bool update(const State& S, vid_t s, vid_t d, float w) {"
            ...     " S.acc[d] += S.contrib[s]; return true; }"))
            >>> p.pull_source_arrays
            ('contrib',)
        """
        return _pull_source_arrays(self.source, tuple(self.arrays), tuple(self.scalars))

    @property
    def has_push(self) -> bool:
        return _defines(self.source, "update_atomic") and _defines(self.source, "cond")

    @property
    def has_pull(self) -> bool:
        return _defines(self.source, "update") and _defines(self.source, "cond")

    @property
    def pull_stops_early(self) -> bool:
        """False when ``cond`` is the constant ``true``: a pull then reads every in-edge
        of every row (no early exit), which the direction rule must know."""
        return not _cond_is_true(self.source)

    @property
    def has_pull_fold(self) -> bool:
        return self.has_pull and all(_defines(self.source, f) for f in ("pull_begin", "pull_fold", "pull_end"))

    @property
    def pull_reduces(self) -> bool:
        """A pull GPU kernels may split among threads by summing partial folds (``pull_merge``)."""
        return self.has_pull_fold and self.combine == "sum" and _defines(self.source, "pull_merge")

    def array_dtype(self, name: str, vid_dtype: np.dtype) -> np.dtype:
        t = self.arrays[name]
        return np.dtype(vid_dtype) if t == "vid" else np.dtype(t)

    def state_struct(self) -> str:
        """C++ text of the ``State`` struct and of ``gf_state`` that fills it.

        Arrays arrive as a table of pointers, scalars as one double table and one
        int64 table, so every backend passes the same three arguments.
        """
        lines = ["struct State {"]
        lines += [f"    {_CTYPES[t]}* {a};" for a, t in self.arrays.items()]
        lines += [f"    {_SCALAR_CTYPES[t]} {s};" for s, t in self.scalars.items()]
        lines.append("    int gf_unused;")
        lines.append("};")
        lines.append(
            "GF_FN State gf_state(void* const* A, const double* F, const int64_t* I) {"
        )
        lines.append("    State S;")
        for k, (a, t) in enumerate(self.arrays.items()):
            lines.append(f"    S.{a} = ({_CTYPES[t]}*)A[{k}];")
        fi = ii = 0
        for s, t in self.scalars.items():
            if t == "float64":
                lines.append(f"    S.{s} = F[{fi}];")
                fi += 1
            else:
                lines.append(f"    S.{s} = I[{ii}];")
                ii += 1
        lines.append("    S.gf_unused = 0; (void)F; (void)I; (void)A;")
        lines.append("    return S;")
        lines.append("}")
        return "\n".join(lines)

    def translation_unit(self, vid_ctype: str, kernels_header: str) -> str:
        """Full source: prelude, State, program text, then the backend's kernels."""
        parts = [
            f"#define GF_VID_T {vid_ctype}",
            f"#define GF_HAS_PUSH {int(self.has_push)}",
            f"#define GF_HAS_PULL {int(self.has_pull)}",
            f"#define GF_HAS_PULL_FOLD {int(self.has_pull_fold)}",
            f"#define GF_PULL_REDUCES {int(self.pull_reduces)}",
            '#include "gf_prelude.h"',
            self.state_struct(),
            f"// ---- program {self.name}",
            self.source,
            f'#include "{kernels_header}"',
        ]
        for f in self.vertex_functions:
            parts.append(f"GF_VERTEX_KERNEL({f})")
        for f in self.neighbor_functions:
            parts.append(f"GF_NEIGHBOR_KERNEL({f})")
        return "\n".join(parts) + "\n"

    @cached_property
    def _fingerprint(self) -> str:
        h = hashlib.sha256()
        h.update(repr((self.name, self.source, self.arrays, self.scalars,
                       self.vertex_functions, self.neighbor_functions, self.uses_weights)).encode())
        return h.hexdigest()[:16]

    def fingerprint(self) -> str:
        """A hash of everything that shapes the compiled code (computed once per program)."""
        return self._fingerprint

    def pack_scalars(self, values: dict[str, float | int]) -> tuple[np.ndarray, np.ndarray]:
        """The scalar tables (float64, int64) in declaration order."""
        f, i = [], []
        for s, t in self.scalars.items():
            if s not in values:
                raise KeyError(f"program {self.name}: scalar {s!r} has no value")
            (f if t == "float64" else i).append(values[s])
        return (np.array(f + [0.0], dtype=np.float64), np.array(i + [0], dtype=np.int64))
