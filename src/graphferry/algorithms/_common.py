"""What every algorithm file shares: options, results, progress."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, MutableMapping
from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np

from ..graph import Graph
from ..runtime import DeferredArray, RunOptions, RunRecord, Runtime


def run_options(options: RunOptions | None, kwargs: dict[str, Any]) -> RunOptions:
    """Merge ``options`` with keyword overrides (backend=, engine=, budget=, ...)."""
    opts = RunOptions() if options is None else options
    valid = {f.name for f in fields(RunOptions)}
    bad = set(kwargs) - valid
    if bad:
        raise TypeError(f"unknown option(s) {sorted(bad)}; valid: {sorted(valid)}")
    if kwargs:
        opts = RunOptions(**{**opts.__dict__, **kwargs})
    return opts


def checked_community_names(community: Any, n: int) -> np.ndarray:
    """``community`` as int64 after checking how a community answer names its communities: one
    entry per vertex, each community named by its smallest member (what the community
    verifiers accept). Raises AssertionError.

    Example:
        >>> checked_community_names([0, 0, 2, 2], 4).tolist()
        [0, 0, 2, 2]
    """
    community = np.asarray(community, dtype=np.int64)
    assert community.shape == (n,), "one community per vertex"
    assert n == 0 or (community.min() >= 0 and community.max() < n), "community names are vertex ids"
    assert np.all(community[community] == community), "a community is not named by one of its members"
    assert np.all(community <= np.arange(n)), "a community is not named by its smallest member"
    return community


def arc_keys(src: Any, dst: Any, n: int) -> np.ndarray:
    """One int64 key per arc, ``src * n + dst``: sorting the keys sorts the arcs by (source, target).

    Verifiers match arcs this way (is a BFS parent an in-neighbour? which vertex pairs are
    distinct?). Both ends are widened first: result columns come in the graph's vertex-id
    width (int32 when n < 2^31), where ``src * n`` wraps once it passes 2^31, that is on every
    graph with more than about 46,000 vertices.

    Example:
        >>> import numpy as np
        >>> arc_keys(np.array([70_000], np.int32), np.array([5], np.int32), 100_000).tolist()
        [7000000005]
    """
    return np.asarray(src).astype(np.int64, copy=False) * np.int64(n) + np.asarray(dst).astype(np.int64, copy=False)


def once(graph, key: str, build) -> Any:
    """``build()``, computed once per loaded graph (every call on a plain Graph)."""
    memo = getattr(graph, "memo", None)
    return memo(key, build) if callable(memo) else build()


def runtime_for(graph: Graph, algorithm: str, options: RunOptions | None, kwargs: dict[str, Any]) -> Runtime:
    return Runtime.from_options(graph, run_options(options, kwargs), algorithm)


class Values(MutableMapping):
    """A result's per-vertex columns by name: numpy arrays to every reader.

    A column an algorithm left where it was computed (a
    :class:`~graphferry.runtime.DeferredArray`: device memory on a GPU) crosses
    to the host on its first read, once; :meth:`where` gives it without a transfer.

    Example:
        >>> import numpy as np
        >>> from graphferry.runtime import DeferredArray
        >>> v = Values({"a": np.zeros(2), "b": DeferredArray(np.ones(2), np.array)})
        >>> v.on_host("a"), v.on_host("b")
        (True, False)
        >>> v["b"].tolist(), v.on_host("b")
        ([1.0, 1.0], True)
    """

    def __init__(self, columns: Mapping[str, Any] = ()):
        self._columns: dict[str, Any] = dict(columns)

    def __getitem__(self, name: str) -> np.ndarray:
        col = self._columns[name]
        return col.host() if isinstance(col, DeferredArray) else col

    def __setitem__(self, name: str, value: Any) -> None:
        self._columns[name] = value

    def __delitem__(self, name: str) -> None:
        del self._columns[name]

    def __contains__(self, name: object) -> bool:  # a question about names: no transfer
        return name in self._columns

    def __iter__(self) -> Iterator[str]:
        return iter(self._columns)

    def __len__(self) -> int:
        return len(self._columns)

    def where(self, name: str) -> Any:
        """Column ``name`` where it lives (a CuPy array on a GPU, numpy on the host), no transfer."""
        col = self._columns[name]
        return col.array if isinstance(col, DeferredArray) else col

    def on_host(self, name: str) -> bool:
        """True when column ``name`` is on the host (read already, or computed there)."""
        col = self._columns[name]
        return col.on_host if isinstance(col, DeferredArray) else True

    def __repr__(self) -> str:
        return f"Values({self._columns!r})"


@dataclass
class Result:
    """Per-vertex values (indexed by internal vertex id) plus the run record.

    ``vertices`` gives the ids of the input (original ids when the input was
    renumbered). ``vertex_ids`` names the values and scalars that hold internal
    vertex ids (BFS parents, a WCC label, the source), set by the algorithm from
    its registry entry (``AlgorithmSpec.vertex_ids``);
    :meth:`to_table` and :meth:`input_ids` give those in the input's ids, so
    every column of an output speaks one id space. ``-1`` (no vertex: an
    unreached vertex's parent) stays ``-1`` (``""`` for string ids, ``None`` for
    other labels).

    Example:
        >>> import numpy as np
        >>> from graphferry import Graph
        >>> from graphferry.algorithms import bfs
        >>> g = Graph.from_edges(np.array([0, 1]), np.array([1, 2]), n=4)
        >>> g.original_ids = np.array([10, 20, 30, 40])
        >>> r = bfs(g, 10, backend="cpu")
        >>> r.parents.tolist(), r.input_ids("parents").tolist(), r.input_ids("source")
        ([0, 0, 1, -1], [10, 10, 20, -1], 10)
        >>> r.to_table()["parents"].tolist()
        [10, 10, 20, -1]

    On a GPU the values stay in device memory after the call (as the peers'
    results do) and each crosses to the host when first read, once:
    ``r.values``, ``r.levels``, :meth:`to_table` and the rest see numpy arrays;
    :meth:`device` gives a column where it lives and :meth:`to_host` brings them
    all over (to time the transfer apart from the call). A result holds its
    device arrays until it is dropped.
    """

    graph: Graph
    values: Values
    record: RunRecord
    scalars: dict[str, Any] = field(default_factory=dict)
    vertex_ids: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.values, Values):
            self.values = Values(self.values)

    def device(self, name: str) -> Any:
        """Value ``name`` where it was computed, without a transfer: a CuPy array on a GPU,
        the numpy array on the CPU.

        Example:
            >>> import numpy as np
            >>> from graphferry import Graph
            >>> from graphferry.algorithms import bfs
            >>> r = bfs(Graph.from_edges(np.array([0]), np.array([1]), n=2), 0, backend="cpu")
            >>> type(r.device("levels")).__name__, r.device("levels").tolist()
            ('ndarray', [0, 1])
        """
        return self.values.where(name)

    def to_host(self) -> "Result":
        """Bring every value to the host now (one transfer each, none twice); returns the result.

        Example:
            >>> import numpy as np
            >>> from graphferry import Graph
            >>> from graphferry.algorithms import wcc
            >>> wcc(Graph.from_edges(np.array([0]), np.array([1]), n=3), backend="cpu").to_host().labels.tolist()
            [0, 0, 2]
        """
        for name in self.values:
            self.values[name]  # a read brings a column over, once
        return self

    def input_ids(self, name: str) -> Any:
        """Value or scalar ``name`` in the input's ids if it holds vertex ids, else as it is."""
        value = self.values[name] if name in self.values else self.scalars[name]
        if name not in self.vertex_ids or self.graph.original_ids is None:
            return value
        internal = np.asarray(value)
        ids = np.asarray(self.graph.original_ids)
        none = -1 if ids.dtype.kind in "iu" else ("" if ids.dtype.kind == "U" else None)
        mapped = np.where(internal >= 0, ids[np.clip(internal, 0, None)], np.asarray(none, dtype=ids.dtype))
        return mapped.item() if np.ndim(value) == 0 else mapped

    @property
    def vertices(self) -> np.ndarray:
        return self.graph.to_original_ids(np.arange(self.graph.n))

    def __getattr__(self, name: str) -> Any:
        values = self.__dict__.get("values", {})
        if name in values:
            return values[name]
        scalars = self.__dict__.get("scalars", {})
        if name in scalars:
            return scalars[name]
        raise AttributeError(name)

    def to_table(self) -> dict[str, np.ndarray]:
        """Columns ``vertex`` and each per-vertex value, all vertex ids in the input's ids."""
        return {"vertex": self.vertices, **{k: self.input_ids(k) for k in self.values}}

    def to_pandas(self):
        """:meth:`to_table` as a pandas ``DataFrame`` (vertex ids in the input's ids).

        pandas is optional: without it an ImportError says how to install it.

        Example:
            >>> import pandas as pd
            >>> import graphferry as gf
            >>> from graphferry.algorithms import bfs
            >>> g = gf.from_pandas(pd.DataFrame({"source": ["a", "b"], "target": ["b", "c"]}))
            >>> bfs(g, "a", backend="cpu").to_pandas()
              vertex  levels parents
            0      a       0       a
            1      b       1       a
            2      c       2       b
        """
        return _data_frame(self.to_table(), type(self).__name__)


@dataclass
class EdgeResult(Result):
    """A result whose table is one row per edge (or vertex pair): ``source``, ``target`` (original
    ids) and the edge's values (a spanning forest's ``weight``, a pair's ``coefficient``).

    ``edges`` holds the edge columns by internal id; ``values`` may still hold per-vertex columns.
    """

    edges: dict[str, np.ndarray] = field(default_factory=dict)

    def to_table(self) -> dict[str, np.ndarray]:
        """Columns ``source``, ``target`` (original ids), then every other edge column, one row per edge."""
        return {"source": self.graph.to_original_ids(self.edges["source"]),
                "target": self.graph.to_original_ids(self.edges["target"]),
                **{k: v for k, v in self.edges.items() if k not in ("source", "target")}}


def _data_frame(table: dict[str, np.ndarray], owner: str):
    try:
        import pandas as pd
    except ImportError:
        raise ImportError(f"{owner}.to_pandas needs pandas: pip install pandas "
                          "(or use to_table(), a dict of numpy arrays)") from None
    return pd.DataFrame(table)


def driver_hooks(kwargs: dict[str, Any], *names: str) -> list[Any]:
    """Take keyword arguments that drivers such as HyPar pass (``precolored``, ``within``,
    ``stop_when``, ...) out of ``kwargs``, None where absent.

    They are not algorithm parameters (the registry, the CLI and NetworkX never
    see them: arrays and callables), so they travel with the run options.
    """
    return [kwargs.pop(name, None) for name in names]
