"""The algorithm registry: every algorithm declares itself here, once.

An :class:`AlgorithmSpec` says what a user-facing reader (the CLI, the
NetworkX backend, the tests, the benchmarks) needs to know about an algorithm
without importing it: its name, the module and function that run it, its
parameters (name, type, default, help), whether it takes a source vertex, the
columns of its result and which of them hold vertex ids, its scalars, a
one-line summary, and how to call its verifier. The function and the verifier
are imported on first use, so reading the registry is cheap (NetworkX reads it
while it imports, through the backend's ``get_info``).

Adding an algorithm is one file under ``algorithms/`` plus one entry in
:data:`ALGORITHMS` below (``docs/writing-an-algorithm.md`` walks through it).

How the readers use it: the NetworkX backend runs algorithms through
:meth:`AlgorithmSpec.run`; a command line takes its list of algorithms from
:func:`names`, builds each ``--flag`` from :attr:`AlgorithmSpec.parameters`
(name, type, default, help, choices; a flag applies to the algorithms that
declare it), asks for ``--source`` where :attr:`AlgorithmSpec.takes_source`,
validates with :meth:`AlgorithmSpec.check_parameters`, summarises each column
by its :attr:`Column.kind`, maps the columns whose :attr:`Column.ids` is
``"internal"`` to the input's ids, and offers ``--verify`` through
:meth:`AlgorithmSpec.verify`.

Example:
    >>> import numpy as np
    >>> from graphferry import Graph
    >>> from graphferry.algorithms import registry
    >>> spec = registry.get("bfs")
    >>> spec.summary
    'Breadth-first search: hop count and parent of every vertex reachable from a source.'
    >>> [p.name for p in spec.parameters], spec.takes_source
    ([], True)
    >>> [(c.name, c.ids) for c in spec.columns], spec.vertex_ids
    ([('levels', None), ('parents', 'internal')], ('parents', 'source'))
    >>> g = Graph.from_edges(np.array([0, 1]), np.array([1, 2]), n=3)
    >>> result = spec.run(g, source=0, backend="cpu")
    >>> result.levels.tolist()
    [0, 1, 2]
    >>> spec.verify(g, result)          # raises AssertionError on a wrong result
    >>> registry.get("pagerank").defaults()
    {'damping': 0.85, 'tol': 1e-06, 'max_iterations': 100, 'dtype': 'float64', 'start': 'degrees'}
    >>> registry.get("page_rank")
    Traceback (most recent call last):
    ...
    ValueError: unknown algorithm 'page_rank'; choose one of bfs, sssp, pagerank, pagerank_ldbc, wcc, cdlp, lcc, triangle_count, betweenness, coloring, mst, communities, core_number, eigenvector_centrality, katz_centrality, hits, jaccard_coefficient, edge_betweenness, k_truss, label_propagation, louvain
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any, Callable

__all__ = ["AlgorithmSpec", "Column", "Parameter", "ALGORITHMS", "REQUIRED", "get", "names"]


class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


#: The default of a parameter the caller must give.
REQUIRED: Any = _Required()


@dataclass(frozen=True)
class Parameter:
    """One algorithm parameter (run options such as ``backend=`` are not listed: every algorithm takes them)."""

    name: str
    type: type
    default: Any = REQUIRED
    help: str = ""
    choices: tuple[Any, ...] = ()
    #: the least value allowed, or None; checked by :meth:`problem`. A parameter named ``seed``
    #: takes 0 unless it says otherwise: no seed is negative
    minimum: Any = None

    def __post_init__(self) -> None:
        if self.name == "seed" and self.minimum is None:
            object.__setattr__(self, "minimum", 0)

    @property
    def required(self) -> bool:
        return self.default is REQUIRED

    def problem(self, value: Any) -> str | None:
        """What is wrong with ``value`` for this parameter (``"must be at least 0"``), or None.

        The one check of a value against its declaration: the command line (which names
        the ``--flag``), :meth:`AlgorithmSpec.check_parameters` and the algorithms
        themselves (:meth:`AlgorithmSpec.check_values`) all ask it. None passes (an
        optional parameter left out), as does a value not of the declared type (a
        ``random.Random`` that NetworkX passes as a seed).

        Example:
            >>> seed = Parameter("seed", int, 0, minimum=0)
            >>> seed.problem(3), seed.problem(-1), seed.problem(None)
            (None, 'must be at least 0', None)
        """
        if value is None:
            return None
        if self.choices and value not in self.choices:
            return f"must be one of {', '.join(map(str, self.choices))}"
        if (self.minimum is not None and isinstance(value, (int, float)) and not isinstance(value, bool)
                and value < self.minimum):
            return f"must be at least {self.minimum}"
        return None


@dataclass(frozen=True)
class Column:
    """One per-vertex result column.

    ``kind`` says how to summarise it: ``level`` (hops, -1 unreached),
    ``distance`` (inf unreached), ``label`` (a component or community),
    ``score`` (a real number per vertex), ``count`` (an integer per vertex) or
    ``vertex`` (a vertex id, -1 none). ``ids`` says which ids it holds:
    ``"internal"`` (0..n-1, map them with ``graph.to_original_ids``),
    ``"original"`` (already the input's ids) or None (not vertex ids).
    ``dtype`` is a numpy dtype name, or ``"vid"``: the graph's vertex-id dtype
    (int32 when n < 2^31, else int64; :meth:`numpy_dtype` resolves it), for a
    column whose state is kept in vertex ids' width so that no pass widens it.

    Example:
        >>> import numpy as np
        >>> from graphferry import Graph
        >>> g = Graph.from_edges(np.array([0]), np.array([1]), n=2)
        >>> Column("parents", "vid", "vertex", "").numpy_dtype(g), Column("hops", "int64", "level", "").numpy_dtype(g)
        (dtype('int32'), dtype('int64'))
    """

    name: str
    dtype: str
    kind: str
    help: str
    ids: str | None = None

    def numpy_dtype(self, graph) -> "np.dtype":
        """The column's numpy dtype for results on ``graph`` (``"vid"``: ``graph.indices.dtype``)."""
        import numpy as np

        return np.dtype(graph.indices.dtype) if self.dtype == "vid" else np.dtype(self.dtype)


@dataclass(frozen=True)
class AlgorithmSpec:
    """What the readers know about one algorithm (see the module docstring)."""

    name: str
    module: str                          # under graphferry.algorithms
    summary: str
    columns: tuple[Column, ...]
    parameters: tuple[Parameter, ...] = ()
    takes_source: bool = False
    scalars: tuple[str, ...] = ()
    verifier: str = ""
    #: how to call the verifier: (verifier function, graph, result, parameters) -> None.
    #: None: ``verifier(graph, *columns)``.
    verify_call: Callable[[Callable[..., None], Any, Any, dict[str, Any]], None] | None = field(
        default=None, repr=False)
    function_name: str = ""              # default: ``name``
    #: peak resident memory of a CPU-backend run beyond the interpreter and the store's arrays it
    #: reads, as (bytes per vertex, bytes per arc): fitted to bench/memory_bench.py at Kronecker
    #: scale 20 (undirected), checked at 22; `graphferry info` prints the estimate
    memory: tuple[int, int] = (64, 0)
    #: pulls along in-edges, so a directed graph also builds its transpose
    pulls: bool = False

    @property
    def function(self) -> Callable[..., Any]:
        """The algorithm function (imported now)."""
        module = importlib.import_module(f"graphferry.algorithms.{self.module}")
        return getattr(module, self.function_name or self.name)

    @property
    def verifier_function(self) -> Callable[..., None]:
        module = importlib.import_module(f"graphferry.algorithms.{self.module}")
        return getattr(module, self.verifier)

    @property
    def vertex_ids(self) -> tuple[str, ...]:
        """The result's values and scalars that hold internal vertex ids.

        The columns declared ``ids="internal"``, and the ``source`` scalar where
        the algorithm takes one. Each algorithm passes this as its
        ``Result.vertex_ids``, so the declaration here is the only one.
        """
        return tuple(c.name for c in self.columns if c.ids == "internal") + (("source",) if self.takes_source else ())

    def parameter(self, name: str) -> Parameter:
        for p in self.parameters:
            if p.name == name:
                return p
        raise KeyError(f"{self.name} has no parameter {name!r}")

    def defaults(self) -> dict[str, Any]:
        """Parameter name -> default, for those that have one."""
        return {p.name: p.default for p in self.parameters if not p.required}

    def column(self, name: str) -> Column:
        for c in self.columns:
            if c.name == name:
                return c
        raise KeyError(f"{self.name} has no result column {name!r}")

    def check_parameters(self, params: dict[str, Any]) -> dict[str, Any]:
        """``params`` with defaults filled in; ValueError naming an unknown, missing or invalid one."""
        known = {p.name for p in self.parameters}
        unknown = sorted(set(params) - known)
        if unknown:
            valid = ", ".join(sorted(known)) or "none"
            raise ValueError(f"{self.name}: unknown parameter(s) {', '.join(unknown)}; valid: {valid}")
        out = self.defaults()
        out.update(params)
        for p in self.parameters:
            if p.name not in out:
                raise ValueError(f"{self.name}: parameter {p.name!r} is required")
        self.check_values(**out)
        return out

    def check_values(self, **values: Any) -> None:
        """ValueError naming the first of ``values`` (parameter name -> value) that its declaration
        refuses (:meth:`Parameter.problem`): a seed below 0, a method not among the choices.

        Each algorithm calls it on entry, so a direct call, the registry's :meth:`run`, the
        NetworkX backend and the command line refuse the same values.

        Example:
            >>> get("communities").check_values(seed=-1)
            Traceback (most recent call last):
            ...
            ValueError: communities: parameter 'seed' must be at least 0, got -1
        """
        for name, value in values.items():
            problem = self.parameter(name).problem(value)
            if problem:
                raise ValueError(f"{self.name}: parameter {name!r} {problem}, got {value!r}")

    def run(self, graph: Any, *, source: Any = None, options: Any = None, **kwargs: Any) -> Any:
        """Run on ``graph``: algorithm parameters and run options (backend=, engine=, ...) as keywords.

        ``source`` is required exactly when :attr:`takes_source`.
        """
        known = {p.name for p in self.parameters}
        params = {k: v for k, v in kwargs.items() if k in known}
        run_options = {k: v for k, v in kwargs.items() if k not in known}
        params = self.check_parameters(params)
        if self.takes_source:
            if source is None:
                raise ValueError(f"{self.name} needs a source vertex")
            return self.function(graph, source, options=options, **params, **run_options)
        if source is not None:
            raise ValueError(f"{self.name} takes no source vertex")
        return self.function(graph, options=options, **params, **run_options)

    def verify(self, graph: Any, result: Any, **params: Any) -> None:
        """Check ``result`` (of :meth:`run` with ``params``) with the algorithm's own verifier."""
        params = self.check_parameters(params)
        if self.verify_call is not None:
            self.verify_call(self.verifier_function, graph, result, params)
        else:
            self.verifier_function(graph, *(result.values[c.name] for c in self.columns))


# ----------------------------------------------------------- how to verify
def _verify_with_source(verify, graph, result, params):
    verify(graph, result.scalars["source"], *result.values.values())


def _verify_pagerank(verify, graph, result, params):
    d, tol = params["damping"], params["tol"]
    # pagerank's documented bound: L1 error at most about 4 d / (1 - d) * tol
    verify(graph, result.ranks, damping=d, atol=4 * d / (1 - d) * tol, rtol=0)


def _verify_pagerank_ldbc(verify, graph, result, params):
    # with stop_below the run may stop early: check the ranks after the rounds it ran
    verify(graph, result.ranks, damping=params["damping"], iterations=result.iterations)


def _verify_cdlp(verify, graph, result, params):
    verify(graph, result.labels, result.iterations)


def _verify_triangles(verify, graph, result, params):
    verify(graph, result.triangles, result.total)


def _verify_communities(verify, graph, result, params):
    verify(graph, result.community, result.modularity)


def _verify_louvain(verify, graph, result, params):
    verify(graph, result.community, result.modularity, resolution=params["resolution"], weighted=params["weighted"])


def _verify_msf(verify, graph, result, params):
    verify(graph, result.edges["source"], result.edges["target"], result.edges["weight"], result.total_weight,
           component=result.values["component"])


def _verify_hits(verify, graph, result, params):
    verify(graph, result.hubs, result.authorities, weighted=params["weighted"], normalized=params["normalized"])


def _verify_jaccard(verify, graph, result, params):
    verify(graph, result.edges["source"], result.edges["target"], result.edges["coefficient"], all_pairs=True)


def _verify_edge_betweenness(verify, graph, result, params):
    verify(graph, result.edges["source"], result.edges["target"], result.edges["betweenness"], **params)


def _verify_k_truss(verify, graph, result, params):
    verify(graph, params["k"], result.edges["source"], result.edges["target"])


def _verify_with_params(verify, graph, result, params):
    verify(graph, *result.values.values(), **params)


def _verify_power_iteration(verify, graph, result, params):
    verify(graph, *result.values.values(), **{k: v for k, v in params.items() if k != "nstart"})


ALGORITHMS: dict[str, AlgorithmSpec] = {s.name: s for s in (
    AlgorithmSpec(
        "bfs", "bfs",
        "Breadth-first search: hop count and parent of every vertex reachable from a source.",
        columns=(Column("levels", "vid", "level", "hops from the source, -1 when unreachable"),
                 Column("parents", "vid", "vertex", "BFS-tree parent, -1 when unreachable; the source is its own",
                        ids="internal")),
        takes_source=True, scalars=("source",), verifier="verify_bfs", verify_call=_verify_with_source,
        memory=(64, 0),  # parents, levels (vertex ids' width), frontier ids and bitmaps
        pulls=True),
    AlgorithmSpec(
        "sssp", "sssp",
        "Single-source shortest paths over non-negative edge weights (1 when unweighted).",
        columns=(Column("distances", "float64", "distance", "distance from the source, inf when unreachable"),),
        parameters=(Parameter("delta", float, None, "bucket width for delta-stepping (none: a quarter of the mean edge weight; inf: frontier Bellman-Ford)"),),
        takes_source=True, scalars=("source", "rounds"), verifier="verify_sssp", verify_call=_verify_with_source,
        memory=(56, 0),  # distances (+ copy), frontier
        pulls=True),
    AlgorithmSpec(
        "pagerank", "pagerank",
        "PageRank to a tolerance (delta-based push), sinks spread uniformly; ranks sum to 1.",
        columns=(Column("ranks", "float64", "score", "PageRank"),),
        parameters=(Parameter("damping", float, 0.85, "damping factor, in [0, 1)"),
                    Parameter("tol", float, 1e-6, "per-vertex residual tolerance, relative to the rank"),
                    Parameter("max_iterations", int, 100, "iteration limit"),
                    Parameter("dtype", str, "float64", "vertex state precision", choices=("float64", "float32")),
                    Parameter("start", str, "degrees", "where the residuals start: a guess from in-degrees and "
                              "one priming round, or the classic uniform start", choices=("degrees", "uniform"))),
        scalars=("iterations", "converged"), verifier="verify_pagerank", verify_call=_verify_pagerank,
        memory=(80, 0),  # ranks, residuals, inverse degrees, frontier (float64)
        pulls=True),
    AlgorithmSpec(
        "pagerank_ldbc", "pagerank",
        "PageRank as LDBC Graphalytics defines it: a fixed number of float64 iterations.",
        columns=(Column("ranks", "float64", "score", "PageRank after the given iterations"),),
        parameters=(Parameter("damping", float, help="damping factor, in [0, 1]"),
                    Parameter("iterations", int, help="number of iterations"),
                    Parameter("stop_below", float, None,
                              "stop after the first round whose ranks moved less than this in L1 (none: run every iteration)",
                              minimum=0.0)),
        scalars=("iterations",), verifier="verify_pagerank", verify_call=_verify_pagerank_ldbc,
        memory=(72, 0),  # ranks, next ranks, inverse degrees (float64)
        pulls=True),
    AlgorithmSpec(
        "wcc", "wcc",
        "Weakly connected components: each vertex labelled with its component's smallest vertex.",
        columns=(Column("labels", "int64", "label", "smallest (internal) vertex id of the component",
                        ids="internal"),),
        scalars=("components", "rounds"), verifier="verify_wcc",
        memory=(64, 0),  # labels (+ copy), frontiers
        pulls=True),
    AlgorithmSpec(
        "cdlp", "cdlp",
        "Community detection by synchronous label propagation (LDBC Graphalytics CDLP).",
        columns=(Column("labels", "int64", "label", "community label, an id of the input", ids="original"),),
        parameters=(Parameter("max_iterations", int, 10, "number of label-propagation steps"),),
        scalars=("iterations",), verifier="verify_cdlp", verify_call=_verify_cdlp,
        memory=(64, 80),  # simple view + per-hub (vertex, label) keys sorted each round
        pulls=True),
    AlgorithmSpec(
        "lcc", "lcc",
        "Local clustering coefficient of every vertex (LDBC Graphalytics LCC; networkx's on undirected graphs).",
        columns=(Column("lcc", "float64", "score", "local clustering coefficient"),),
        verifier="verify_lcc",
        memory=(32, 64)),  # degree-ordered DAG built from int64 edge arrays
    AlgorithmSpec(
        "triangle_count", "triangles",
        "Triangles through every vertex and in total, directions, self-loops and repeats ignored.",
        columns=(Column("triangles", "int64", "count", "triangles through the vertex"),),
        scalars=("total",), verifier="verify_triangles", verify_call=_verify_triangles,
        memory=(16, 7)),  # the DAG built row by row in C++ (scale 22: 2.85x the store)
    AlgorithmSpec(
        "betweenness", "betweenness",
        "Betweenness centrality (Brandes), exact or from k sampled sources; NetworkX's scaling.",
        columns=(Column("betweenness", "float64", "score", "betweenness centrality"),),
        parameters=(Parameter("k", int, None, "number of sampled sources (none: every vertex, exact)"),
                    Parameter("normalized", bool, True, "divide by the number of vertex pairs, as NetworkX does"),
                    Parameter("weighted", bool, True, "edge weights as path lengths (when the graph has them)"),
                    Parameter("seed", int, None, "seed of the source sample (NetworkX's draw)", minimum=0)),
        scalars=("sources",), verifier="verify_betweenness", verify_call=_verify_with_params,
        memory=(64, 64)),  # not fitted yet: level, dist, sigma, delta, bc (8 B each) + frontiers; simple view
    AlgorithmSpec(
        "coloring", "coloring",
        "Proper vertex colouring (speculative Gebremedhin-Manne or Jones-Plassmann) of the undirected simple view.",
        columns=(Column("colors", "int64", "count", "colour, from 0"),),
        parameters=(Parameter("method", str, "speculative", "colouring method",
                              choices=("speculative", "jones_plassmann")),
                    Parameter("order", str, "largest_first", "Jones-Plassmann priority order",
                              choices=("largest_first", "random")),
                    Parameter("seed", int, 0, "seed of the speculative blocks and Jones-Plassmann's priorities",
                              minimum=0)),
        scalars=("num_colors", "rounds"), verifier="verify_coloring",
        memory=(40, 64)),  # not fitted yet: colour, worklists; simple undirected view
    AlgorithmSpec(
        "mst", "mst",
        "Minimum spanning forest (Boruvka) of the symmetrised graph; its table is one row per forest edge.",
        columns=(Column("component", "int64", "label", "smallest (internal) vertex id of the vertex's tree",
                        ids="internal"),),
        scalars=("total_weight", "num_edges", "components", "rounds"), verifier="verify_msf",
        verify_call=_verify_msf, function_name="minimum_spanning_forest",
        memory=(40, 72)),  # not fitted yet: label, key, hi; symmetrised view keeping the least weight per pair
    AlgorithmSpec(
        "communities", "communities",
        "Communities by label propagation (PLP) refined by HyPar's merge rule; modularity reported.",
        columns=(Column("community", "int64", "label", "smallest (internal) vertex id of the community",
                        ids="internal"),),
        parameters=(Parameter("max_iterations", int, 100, "most propagation rounds"),
                    Parameter("refine", bool, True, "apply HyPar's merge rule, then propagate on the rest"),
                    Parameter("seed", int, 0, "seed of the visiting order and tie-breaks", minimum=0)),
        scalars=("modularity", "num_communities", "iterations", "finalised"), verifier="verify_communities",
        verify_call=_verify_communities,
        memory=(64, 64)),  # not fitted yet: labels, flags, modularity terms; simple undirected view
    AlgorithmSpec(
        "core_number", "core_number",
        "Core number of every vertex (k-core decomposition by bucketed peeling), NetworkX's degrees.",
        columns=(Column("core", "int64", "count", "largest k of a k-core holding the vertex"),),
        scalars=("max_core", "rounds"), verifier="verify_core_number",
        memory=(40, 8)),  # not fitted yet: degrees, cores, frontiers; the simple (both-ways) view
    AlgorithmSpec(
        "eigenvector_centrality", "eigenvector",
        "Eigenvector centrality by power iteration (NetworkX's shift, normalisation and stopping rule).",
        columns=(Column("centrality", "float64", "score", "eigenvector centrality, unit L2 norm"),),
        parameters=(Parameter("max_iterations", int, 100, "iteration limit"),
                    Parameter("tol", float, 1e-6, "stop when the L1 change is below n * tol"),
                    Parameter("weighted", bool, True, "edge weights as matrix entries (when the graph has them)")),
        scalars=("iterations", "converged"), verifier="verify_eigenvector_centrality",
        verify_call=_verify_power_iteration,
        memory=(48, 0),  # not fitted yet: x, y, change (float64) and frontiers
        pulls=True),
    AlgorithmSpec(
        "katz_centrality", "katz",
        "Katz centrality by power iteration (NetworkX's alpha, beta, stopping rule and normalisation).",
        columns=(Column("centrality", "float64", "score", "Katz centrality"),),
        parameters=(Parameter("alpha", float, 0.1, "attenuation factor (below 1 / the largest eigenvalue)"),
                    Parameter("beta", float, 1.0, "weight of every vertex's own term"),
                    Parameter("max_iterations", int, 1000, "iteration limit"),
                    Parameter("tol", float, 1e-6, "stop when the L1 change is below n * tol"),
                    Parameter("normalized", bool, True, "scale to unit L2 norm"),
                    Parameter("weighted", bool, True, "edge weights as matrix entries (when the graph has them)")),
        scalars=("iterations", "converged"), verifier="verify_katz_centrality",
        verify_call=_verify_power_iteration,
        memory=(56, 0),  # not fitted yet: x, y, beta, change (float64) and frontiers
        pulls=True),
    AlgorithmSpec(
        "hits", "hits",
        "HITS hubs and authorities by power iteration, NetworkX's normalisation.",
        columns=(Column("hubs", "float64", "score", "hub value"),
                 Column("authorities", "float64", "score", "authority value")),
        parameters=(Parameter("max_iterations", int, 100, "iteration limit"),
                    Parameter("tol", float, 1e-8, "stop when the hubs' L1 change is below tol"),
                    Parameter("normalized", bool, True, "divide each vector by its sum"),
                    Parameter("weighted", bool, True, "edge weights as matrix entries (when the graph has them)")),
        scalars=("iterations", "converged"), verifier="verify_hits", verify_call=_verify_hits,
        memory=(56, 0),  # not fitted yet: hubs, authorities, last hubs, change (float64) and frontiers
        pulls=True),
    AlgorithmSpec(
        "jaccard_coefficient", "jaccard",
        "Jaccard coefficient of every non-adjacent pair at distance 2 (NetworkX's definition); one row per pair.",
        columns=(), scalars=("pairs",), verifier="verify_jaccard", verify_call=_verify_jaccard,
        memory=(24, 40)),  # not fitted yet: pair slots and coefficients; the sorted undirected view
    AlgorithmSpec(
        "edge_betweenness", "edge_betweenness",
        "Edge betweenness centrality (Brandes with edge accumulation), exact or sampled; one row per edge.",
        columns=(),
        parameters=(Parameter("k", int, None, "number of sampled sources (none: every vertex, exact)"),
                    Parameter("normalized", bool, True, "divide by K (n - 1), as NetworkX does"),
                    Parameter("weighted", bool, True, "edge weights as path lengths (when the graph has them)"),
                    Parameter("seed", int, None, "seed of the source sample (NetworkX's draw)", minimum=0)),
        scalars=("sources",), verifier="verify_edge_betweenness", verify_call=_verify_edge_betweenness,
        memory=(64, 72)),  # not fitted yet: betweenness's state, a float64 per arc; simple view
    AlgorithmSpec(
        "k_truss", "k_truss",
        "The k-truss (every edge in at least k - 2 triangles), by support counting; one row per edge.",
        columns=(),
        parameters=(Parameter("k", int, 3, "every edge of the truss lies in at least k - 2 triangles"),),
        scalars=("num_edges", "num_vertices", "rounds"), verifier="verify_k_truss", verify_call=_verify_k_truss,
        memory=(16, 40)),  # not fitted yet: per-arc flags and mirrors; the undirected simple view
    AlgorithmSpec(
        "label_propagation", "label_propagation",
        "Communities by semi-synchronous label propagation (Cordasco-Gargano, as NetworkX's).",
        columns=(Column("labels", "int64", "label", "community label: the id of a vertex", ids="internal"),),
        scalars=("rounds", "colors"), verifier="verify_label_propagation",
        memory=(48, 16)),  # not fitted yet: labels, colours, the colouring's state; hub rows in numpy
    AlgorithmSpec(
        "louvain", "louvain",
        "Communities by Louvain (Blondel et al.) with parallel local moving; NetworkX's modularity.",
        columns=(Column("community", "int64", "label", "smallest (internal) vertex id of the community",
                        ids="internal"),),
        parameters=(Parameter("resolution", float, 1.0, "modularity's resolution gamma (NetworkX's)"),
                    Parameter("threshold", float, 1e-7, "stop when a level (or a round) gains no more modularity"),
                    Parameter("max_level", int, None, "most levels kept (none: until no gain)", minimum=1),
                    Parameter("weighted", bool, True, "edge weights as edge strengths (when the graph has them)")),
        scalars=("modularity", "num_communities", "levels", "rounds"), verifier="verify_louvain",
        verify_call=_verify_louvain,
        memory=(96, 40)),  # not fitted yet: ten state arrays; each level's graph rebuilt on the host (scipy)
)}


def names() -> tuple[str, ...]:
    """Every registered algorithm name, in registry order."""
    return tuple(ALGORITHMS)


def get(name: str) -> AlgorithmSpec:
    """The spec called ``name`` (ValueError listing the valid names otherwise)."""
    try:
        return ALGORITHMS[name]
    except KeyError:
        raise ValueError(f"unknown algorithm {name!r}; choose one of {', '.join(ALGORITHMS)}") from None
