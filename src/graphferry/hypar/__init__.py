"""HyPar: divide and conquer across executors (CPU and GPU together), and a BSP baseline.

Banerjee, Kothapalli and Sarkar's HyPar (JPDC 2019), Section 3's API:

* :func:`part_graph`: split the vertices into one contiguous block per
  executor (1-D block partitioning, by edges, or by the application's work
  estimate along its own order: triangle counting's blocks are runs of the
  degree-ordered DAG's ranks, :meth:`Application.block_order`), in the ratio of the executors'
  speeds measured by running the application on three sampled induced
  subgraphs of 5-10% of the vertices on each (Section 4.1, :func:`calibrate`),
  bounded by each executor's device-memory budget;
* :func:`independent_compute`: every executor computes on its own part at
  once (threads; the kernels release the GIL), with no communication, under
  the application's border exception (Sections 6.1-6.4);
* :func:`merge_parts`: the application merges the parts' results and reduces
  the graph (self-edge removal and contraction, or removal of finished
  vertices: :mod:`graphferry.transforms`);
* recursion while the reduced graph has more than ``threshold_edges`` edges
  (Section 4.4) and the last level removed at least a tenth of the vertices,
  then ``post_process`` on the executor that was faster.

Where this departs from the paper: **a planner** (:func:`plan_for`). The
paper splits whenever it has two devices. Here the sampled runs also run the
split itself (independent computation, merges, post-processing) and each
executor alone on the same samples; lines fitted through those times
(``fixed + per_item * work``, :class:`Rate`; the work is ``n + m``, or what
the application's cost grows with: :meth:`Application.work`) predict every
plan on the whole graph, and when the predicted split is not below the best
executor alone (by a margin, :data:`SPLIT_MARGIN`: the fits extrapolate
samples of about 1% of the arcs), that executor runs the application alone,
through the same code (``timings["plan"]`` records what ran, why, and the predictions;
``plan="split"`` always splits, as the paper does). Lines through samples of about 1% of the
arcs misjudge the whole graph by up to 8x, so the planner also learns from whole calls, as
FFTW's planner measures candidate plans: every call's time is kept per plan and size
(:meth:`Calibration.measure`) and stands in for the prediction from then on; a plan not yet run
at a size, predicted within :data:`EXPLORE_WITHIN` times the best run one, runs once
(:func:`_plan_to_explore`), and a rival measured fewer times than the best runs again while it
is close (:data:`RETRY_WITHIN`), or once more where its one run was its first and within
:data:`EXPLORE_WITHIN` or under :data:`RETRY_CHEAP_S`; a graph small enough that its samples run in under
:data:`MIN_SAMPLE_SECONDS` is measured whole while calibrating; and a split of a divisible
application (triangle counting: each part's time follows its share) is predicted from the executors'
rates combined, its shares set by the speeds its last run showed (:meth:`Calibration.observe`).
And the calibration is
made once per application and executor list and kept for graphs up to
:data:`REUSE_UP_TO` times the sampled one (the paper samples on every run;
at Kronecker 18 on one thread a calibration took 50-420 ms, against 10-35 ms
for components or colouring run alone). An executor alone runs the
application's algorithm to its end (:meth:`Application.alone`): no stop rule,
merge or post-processing, which cost more than they save with no other part
to wait for (the spanning forest's contraction after its rounds stopped getting
faster had paid at Kronecker 17-18 on one thread; with today's executors Boruvka's
three rounds to its end are 1.4-1.5x faster at Kronecker 22).

An **executor** is a place to run: a backend and its options (engine, device
budget, partition size). ``[HyparExecutor("cpu"), HyparExecutor("cuda")]`` is HyPar's
CPU + GPU; one executor is CPU-only or GPU-only through the same code (the
whole graph is then one part). CI uses two CPU executors, one of them with
a small simulated device arena and the ``compaction`` engine. This is the
small interface the executors layer of the runtime can take over later: a
list of executors, a split, and per-part runs.

Applications (each runs the registered algorithms on parts through
:mod:`graphferry.algorithms.registry`, so no algorithm file is imported):

* ``wcc``: connected components of the undirected view; local
  components, contraction, recursion, components of the reduced graph. Exact.
* ``triangle_count``: each part is the whole graph's degree-ordered DAG induced by
  its block and the block's out-neighbours (ghost edges), counting only the
  triangles whose lowest corner is in the block: each triangle counted once,
  the parts' per-vertex counts added. Exact.
* ``coloring``: parts coloured independently; a cut edge joining equal colours
  uncolours its higher end; post-processing colours those around the rest (Algorithm 2).
* ``communities``: label propagation per part, HyPar's merge rule (Algorithm 5:
  communities below the average intra-arc ratio, or with tiny interiors, are
  dismantled; the rest are finalised and removed with their edges) with border
  exceptions (a border vertex whose label is not among its neighbours' most
  frequent on the merged labels is not finalised, nor is a community with more
  than a quarter as many cut arcs as internal arcs: the cut likely went through
  it), recursion; post-processing propagates the rest on the reduced graph, then
  every vertex on the whole graph from the merged labels to label propagation's
  fixed point.
* ``mst``: Boruvka per part under the cut-edge exception (a component whose
  lightest edge leaves the part stops growing: ``minimum_spanning_forest(within=)``),
  contraction keeping each quotient edge's lightest representative, recursion,
  Boruvka on the reduced graph; the forest's edges in the input's ids.

:func:`bsp` is the BSP baseline HyPar compares with (Section 7.3.1: "the
computations are organized into super-steps corresponding to the outer loop of
the original algorithms. At the end of each super-step, necessary
communications and synchronizations are performed"), over the same executors
and :func:`part_graph`'s blocks, one driver for every application
(:data:`BSP_APPLICATIONS`): each superstep every executor runs one round of the
registered algorithm on its block with ghost vertices holding the state of the
last exchange, then the blocks' new state is exchanged:

* ``wcc``: the part's components take their least label; until no label changes;
* ``triangle_count``: one superstep on the same parts as HyPar's (no bulk synchronism needed);
* ``coloring``: one speculative round on the block's uncoloured vertices; the
  exchange uncolours the higher end of every edge joining equal colours;
* ``communities``: one label-propagation round on the block, ghosts voting;
  PLP's stop rule;
* ``mst``: one Boruvka round on the block's arcs between components; the exchange
  takes each component's lightest edge over all executors and merges.

Iterative parts (coloring, communities, mst) stop their independent
computation when an iteration takes no less time than the one before
(:class:`IterationTrend`, HyPar Section 4.2); the merge and post-processing
finish what they left.

Example:
    >>> import numpy as np
    >>> from graphferry import Graph
    >>> from graphferry.hypar import HyparExecutor, hypar
    >>> g = Graph.from_edges([0, 1, 2, 4, 5, 7], [1, 2, 3, 5, 6, 8], n=9, directed=False)
    >>> two = [HyparExecutor("cpu"), HyparExecutor("cpu", engine="compaction", budget=1 << 16, partition_bytes=256)]
    >>> r = hypar(g, "wcc", two, threshold_edges=0, plan="split")
    >>> r.values["labels"].tolist()
    [0, 0, 0, 0, 4, 4, 4, 7, 7]
    >>> r.cut > 0, r.levels >= 1
    (True, True)
    >>> auto = hypar(g, "wcc", two)               # the planner's choice, and why
    >>> auto.values["labels"].tolist() == r.values["labels"].tolist(), sorted(auto.timings["plan"])
    (True, ['calibration', 'chosen', 'predicted_seconds', 'trial', 'why'])

The package: :mod:`~graphferry.hypar.workers` (executors, splits, results),
:mod:`~graphferry.hypar.calibration` and :mod:`~graphferry.hypar.sampling` (what the sampled runs
measure), :mod:`~graphferry.hypar.planner` (split or one executor alone),
:mod:`~graphferry.hypar.blocks` (partGraph's cuts), :mod:`~graphferry.hypar.levels` (indComp and
mergeParts), :mod:`~graphferry.hypar.driver` (:func:`hypar`), :mod:`~graphferry.hypar.bsp` (the
baseline) and :mod:`~graphferry.hypar.applications` (one file per application, named as in the
algorithm registry; the old names ``components`` and ``triangles`` are accepted, with a
deprecation line in the log).
"""

from __future__ import annotations

from .applications import (
    APPLICATIONS,
    BSP_APPLICATIONS,
    Application,
    BspApplication,
    IterationTrend,
    ONE_ROUND,
    ghost_part,
    modularity,
)
from .blocks import cut_by_edges
from .bsp import bsp, bsp_components
from .calibration import REUSE_UP_TO, PlannerCalibration, Rate, fit_rate
from .driver import PLANS, hypar, part_graph
from .levels import independent_compute, merge_parts
from .planner import EXPLORE_WITHIN, RETRY_CHEAP_S, RETRY_RUNS, RETRY_WITHIN, SPLIT_MARGIN, Plan, plan_for
from .sampling import calibrate, clear_calibrations, sample_fractions
from .workers import HyparExecutor, HyparResult, Split, labels

__all__ = ["APPLICATIONS", "BSP_APPLICATIONS", "EXPLORE_WITHIN", "ONE_ROUND", "PLANS", "REUSE_UP_TO", "RETRY_CHEAP_S",
           "RETRY_RUNS", "RETRY_WITHIN", "SPLIT_MARGIN", "Application", "BspApplication", "HyparExecutor",
           "HyparResult", "IterationTrend", "Plan", "PlannerCalibration", "Rate", "Split", "bsp", "bsp_components",
           "calibrate", "clear_calibrations", "cut_by_edges", "fit_rate", "ghost_part", "hypar", "independent_compute",
           "labels", "merge_parts", "modularity", "part_graph", "plan_for", "sample_fractions"]
