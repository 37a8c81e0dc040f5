"""The options every reader shares, in one object: :class:`ReadOptions`.

Every reader (edge lists, Matrix Market, LDBC, CSV, Parquet, Galois ``.gr``)
and every in-memory converter (arrays, scipy, NetworkX, data frames, Arrow)
builds its graph the same way: a direction, weights or not, ids as given or
renumbered, cleaning (self-loops, duplicates, sorted rows), an optional graph
store to write. Those choices travel as one :class:`ReadOptions`; the readers
also take them as keywords, merged by :meth:`ReadOptions.merged` (as
algorithms merge ``RunOptions`` with ``backend=``/``engine=`` keywords). A
reader refuses the options its format cannot honour with a ``ValueError``
naming the option and the reader (:meth:`ReadOptions.refuse`).

Example:
    >>> from graphferry.io.options import ReadOptions
    >>> opts = ReadOptions(directed=False)
    >>> ReadOptions.merged(opts, {"drop_duplicates": True})
    ReadOptions(directed=False, drop_duplicates=True)
    >>> ReadOptions.merged(None, {"drop_dupes": True})
    Traceback (most recent call last):
    ...
    TypeError: unknown read option(s) ['drop_dupes']; valid: ['directed', 'drop_duplicates', 'drop_self_loops', 'n', 'name', 'overwrite', 'renumber', 'sort_neighbors', 'store', 'weighted', 'workdir']
    >>> ReadOptions(directed="no")
    Traceback (most recent call last):
    ...
    ValueError: directed must be True, False or None (as the input says), got 'no'
    >>> opts.refuse("mtx", "renumber")   # renumber not set: nothing to refuse
    >>> ReadOptions(renumber=True).refuse("mtx", "renumber")
    Traceback (most recent call last):
    ...
    ValueError: renumber is not an option of the 'mtx' reader
"""

from __future__ import annotations

import os
from dataclasses import dataclass, fields, replace
from typing import Any

import numpy as np

from ..graph import Graph
from .builder import CSRBuilder


@dataclass(frozen=True)
class ReadOptions:
    """How a reader builds a graph (``None``: as the format or the input says).

    Attributes:
        directed: keep arcs as given (``True``) or store each edge both ways.
        weighted: read (``True``) or ignore (``False``) a weight column.
        renumber: map arbitrary ids (any integers or strings) to ``0..n-1`` in
            sorted order, keeping them as ``graph.original_ids``.
        n: number of vertices (ids must lie in ``[0, n)``).
        drop_self_loops, drop_duplicates: cleaning applied while building.
        sort_neighbors: sort every row by neighbour id (implied by ``drop_duplicates``).
        store: also write a graph store there and return the graph memory-mapped.
        overwrite: replace an existing store at ``store``.
        name: the graph's name (default: from the file or the input).
        workdir: where the builder spills edge chunks (default: the system's temporary directory).
    """

    directed: bool | None = None
    weighted: bool | None = None
    renumber: bool | None = None
    n: int | None = None
    drop_self_loops: bool = False
    drop_duplicates: bool = False
    sort_neighbors: bool = False
    store: str | os.PathLike | None = None
    overwrite: bool = False
    name: str | None = None
    workdir: str | os.PathLike | None = None

    def __post_init__(self) -> None:
        # checked once here, so no reader meets a truthy string such as directed="no"
        for name in ("directed", "weighted", "renumber"):
            value = getattr(self, name)
            if value is not None and not isinstance(value, (bool, np.bool_)):
                raise ValueError(f"{name} must be True, False or None (as the input says), got {value!r}")
        for name in ("drop_self_loops", "drop_duplicates", "sort_neighbors", "overwrite"):
            if not isinstance(getattr(self, name), (bool, np.bool_)):
                raise ValueError(f"{name} must be True or False, got {getattr(self, name)!r}")
        n = self.n
        if n is not None and (isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)) or n < 0):
            raise ValueError(f"n must be a non-negative integer or None, got {n!r}")

    def __repr__(self) -> str:  # only what differs from the defaults: readable in messages and doctests
        shown = [f"{f.name}={getattr(self, f.name)!r}" for f in fields(self)
                 if getattr(self, f.name) != f.default]
        return f"ReadOptions({', '.join(shown)})"

    @classmethod
    def names(cls) -> list[str]:
        return sorted(f.name for f in fields(cls))

    @classmethod
    def merged(cls, options: "ReadOptions | None", keywords: dict[str, Any]) -> "ReadOptions":
        """``options`` (default: all defaults) with ``keywords`` overriding; unknown names raise TypeError."""
        base = cls() if options is None else options
        if not isinstance(base, ReadOptions):
            raise TypeError(f"options must be a ReadOptions, got {type(options).__name__}")
        bad = set(keywords) - set(cls.names())
        if bad:
            raise TypeError(f"unknown read option(s) {sorted(bad)}; valid: {cls.names()}")
        return replace(base, **keywords) if keywords else base

    @classmethod
    def split(cls, keywords: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        """``keywords`` as (shared read options, the rest: a format's own options)."""
        names = set(cls.names())
        return ({k: v for k, v in keywords.items() if k in names},
                {k: v for k, v in keywords.items() if k not in names})

    def refuse(self, reader: str, *names: str) -> None:
        """Raise ValueError if any option in ``names`` is set (differs from its default)."""
        defaults = {f.name: f.default for f in fields(self)}
        for name in names:
            if getattr(self, name) != defaults[name]:
                raise ValueError(f"{name} is not an option of the {reader!r} reader")

    def check_target(self) -> None:
        """Fail before parsing when ``store`` is taken (and ``overwrite`` not given)."""
        if self.store is not None:
            from ..store import check_target

            check_target(self.store, self.overwrite)

    def builder(self, *, source: str, name: str, directed: bool, weighted: bool,
                n: int | None = None, renumber: bool | None = None,
                original_ids=None) -> CSRBuilder:
        """A :class:`CSRBuilder` with these options' cleaning; ``directed``/``weighted``/``n``
        as the reader resolved them (its format's defaults applied)."""
        renumber = bool(self.renumber if renumber is None else renumber)
        return CSRBuilder(n=n, directed=directed, weighted=weighted, renumber=renumber,
                          drop_self_loops=self.drop_self_loops, drop_duplicates=self.drop_duplicates,
                          sort_neighbors=self.sort_neighbors, workdir=self.workdir, source=source,
                          name=self.name or name, original_ids=original_ids)

    def finish(self, builder: CSRBuilder) -> Graph:
        """The builder's graph: in memory, or written to ``store`` and memory-mapped from it."""
        with builder:
            if self.store is not None:
                return builder.finish_store(self.store, overwrite=self.overwrite)
            return builder.finish()

    def keep(self, graph: Graph) -> Graph:
        """A graph built without the builder: written to ``store`` (and reopened) if asked."""
        if self.store is None:
            return graph
        from ..store import open_store, write_store

        write_store(graph, self.store, overwrite=self.overwrite)
        return open_store(self.store)
