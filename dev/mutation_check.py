#!/usr/bin/env python
"""Mutation check: do the tests catch deliberately wrong algorithms and verifiers?

Each mutant is one small edit, ``(file, exact original snippet, replacement)``: a wrong answer
at depth, one wrong distance, a small rank shift, merged or split components, a missing
triangle, a wrong clustering coefficient or label, a loop capped at too few rounds, a stopping
threshold too loose, a verifier that accepts anything. One at a time, the mutant is applied to
a temporary copy of ``src/`` and ``tests/`` (the working tree is never touched) and the tests
that should catch it run there (targeted files, ``-x``). A mutant is

* KILLED when those tests fail,
* SURVIVED when they pass (a hole in the tests: add a test that fails on it),
* STALE when its original snippet is no longer in the file exactly once (the code changed:
  update the mutant to aim at the new code; it is never skipped silently).

The script prints one line per mutant and the kill rate, and exits non-zero when a mutant
survived or is stale. Mutants aim at logic likely to outlive rewrites of the drivers: the
programs' C++ text, the verifiers, loop and stopping rules.

    python dev/mutation_check.py              # all mutants (a few minutes on 2 cores)
    python dev/mutation_check.py -k wcc        # those whose name contains "wcc"
    python dev/mutation_check.py --list        # names and descriptions only
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
ALG = "src/graphferry/algorithms"
SCHED = "src/graphferry/scheduler"
HYPAR = "src/graphferry/hypar"
LARGE = "tests/algorithms/test_verifiers_large.py"
#: a verifier's name here -> its algorithm's name in the registry (the large-graph test's case)
LARGE_CASE = {"triangles": "triangle_count", "msf": "mst", "jaccard": "jaccard_coefficient"}


@dataclass(frozen=True)
class Mutant:
    name: str
    what: str
    file: str
    original: str
    replacement: str
    tests: tuple[str, ...]


MUTANTS = [
    # ------------------------------------------------------------------ BFS
    Mutant("bfs-wrong-level-at-depth", "push records level depth + 1 below depth 5", f"{ALG}/bfs.py",
           "if (gf_cas(&S.parent[d], (vid_t)-1, s)) { S.level[d] = (vid_t)S.depth; return true; }",
           "if (gf_cas(&S.parent[d], (vid_t)-1, s)) { S.level[d] = (vid_t)(S.depth + (S.depth > 5)); return true; }",
           ("tests/engines/test_engines_bfs.py",)),
    Mutant("bfs-pull-wrong-level-at-depth", "pull records level depth + 1 below depth 5", f"{ALG}/bfs.py",
           "S.parent[d] = s; S.level[d] = (vid_t)S.depth; return true;",
           "S.parent[d] = s; S.level[d] = (vid_t)(S.depth + (S.depth > 5)); return true;",
           ("tests/engines/test_engines_bfs.py",)),
    Mutant("bfs-loop-capped", "BFS stops after 40 levels", f"{ALG}/bfs.py",
           "        while frontier:\n            depth += 1\n",
           "        while frontier and depth < 40:\n            depth += 1\n",
           ("tests/engines/test_engines_bfs.py",)),
    Mutant("verify_bfs-second-root", "verify_bfs lets a non-source vertex sit at level 0 (the old hole)",
           f"{ALG}/bfs.py", "    others = others[others != source]\n",
           "    others = np.flatnonzero(levels > 0)\n", ("tests/algorithms/test_verifiers.py",)),
    # ------------------------------------------------------------------ SSSP
    Mutant("sssp-one-wrong-distance", "relaxing into vertex 17 adds 0.5", f"{ALG}/sssp.py",
           "return gf_atomic_min(&S.dist[d], gf_load(&S.dist[s]) + (real_t)w);",
           "return gf_atomic_min(&S.dist[d], gf_load(&S.dist[s]) + (real_t)w + (d == 17 ? (real_t)0.5 : (real_t)0));",
           ("tests/algorithms/test_sssp.py",)),
    Mutant("sssp-pull-one-wrong-distance", "pulling into vertex 17 stores 1% too much", f"{ALG}/sssp.py",
           "if (nd < S.dist[d]) { S.dist[d] = nd; return true; }",
           "if (nd < S.dist[d]) { S.dist[d] = nd * (d == 17 ? 1.01 : 1.0); return true; }",
           ("tests/algorithms/test_sssp.py",)),
    Mutant("sssp-loop-capped", "delta-stepping stops after 40 rounds (the round-by-round path: engines "
           "that move edges, GPUs, ranks)", "src/graphferry/runtime/runtime.py",
           "        while (bucket := buckets.pop()) is not None:\n            rounds += 1\n",
           "        while (bucket := buckets.pop()) is not None and rounds < 40:\n            rounds += 1\n",
           ("tests/algorithms/test_sssp.py", "tests/runtime/test_priority_buckets.py")),
    Mutant("verify_sssp-no-tight-paths", "verify_sssp skips the tight-path reachability rule",
           f"{ALG}/sssp.py", "    assert on_tight_paths[np.isfinite(dist)].all(), \\\n",
           "    assert True or on_tight_paths[np.isfinite(dist)].all(), \\\n", ("tests/algorithms/test_verifiers.py",)),
    # ------------------------------------------------------------------ WCC
    Mutant("wcc-merged-components", "linking vertex 1 hooks it under vertex 0 too", f"{ALG}/wcc.py",
           "GF_FN bool cond(const State& S, vid_t d) { return true; }\n",
           "#define gf_link(p, u, v) gf_link(p, ((u) == 1 || (v) == 1) ? (vid_t)0 : (u), v)\n"
           "GF_FN bool cond(const State& S, vid_t d) { return true; }\n",
           ("tests/algorithms/test_wcc.py",)),
    Mutant("wcc-sample-one-edge", "Afforest's sample links each vertex with its first out-neighbour only",
           f"{ALG}/wcc.py",
           "            st.scalars[\"sample_edges\"] = SAMPLE_EDGES\n",
           "            st.scalars[\"sample_edges\"] = 1\n",
           ("tests/algorithms/test_wcc.py",)),
    Mutant("wcc-split-components", "Afforest skips its final pass over the vertices outside the giant tree",
           f"{ALG}/wcc.py",
           "            if rest:\n",
           "            if rest and False:\n",
           ("tests/algorithms/test_wcc.py",)),
    # ------------------------------------------------------------------ PageRank
    Mutant("pagerank-ldbc-rank-shift", "LDBC PageRank ranks 1e-9 too large", f"{ALG}/pagerank.py",
           "    const double r = S.base + S.damping * S.acc[v];\n    S.rank[v] = r;\n    S.contrib[v] = r * S.scale[v];\n    S.acc[v] = 0.0;\n",
           "    const double r = (S.base + S.damping * S.acc[v]) * (1.0 + 1e-9);\n    S.rank[v] = r;\n"
           "    S.contrib[v] = r * S.scale[v];\n    S.acc[v] = 0.0;\n",
           ("tests/algorithms/test_pagerank.py",)),
    Mutant("pagerank-delta-rank-shift", "delta PageRank keeps 0.1% too much of vertex 3's residual",
           f"{ALG}/pagerank.py", "    S.rank[v] += r;\n", "    S.rank[v] += v == 3 ? r * 1.001 : r;\n",
           ("tests/algorithms/test_pagerank.py",)),
    Mutant("pagerank-threshold-3x-loose", "delta PageRank stops at 3x its documented threshold",
           f"{ALG}/pagerank.py", "return fabs((double)S.resid[v]) > S.tol * ((double)S.rank[v] + S.floor);",
           "return fabs((double)S.resid[v]) > 3.0 * S.tol * ((double)S.rank[v] + S.floor);",
           ("tests/algorithms/test_pagerank.py",)),
    Mutant("pagerank-negative-residuals-ignored", "a warm start's negative residuals never pass on",
           f"{ALG}/pagerank.py", "return fabs((double)S.resid[v]) > S.tol * ((double)S.rank[v] + S.floor);",
           "return (double)S.resid[v] > S.tol * ((double)S.rank[v] + S.floor);",
           ("tests/algorithms/test_pagerank.py",)),
    Mutant("pagerank-guess-taken-as-answer", "the warm start's residual leaves out what the guess lacks",
           f"{ALG}/pagerank.py", "S.resid[v] = (real_t)(S.floor - (double)y);", "S.resid[v] = (real_t)0;",
           ("tests/algorithms/test_pagerank.py",)),
    Mutant("pagerank-loop-capped", "delta PageRank gives up after 40 rounds", f"{ALG}/pagerank.py",
           "            if iterations >= int(max_iterations):\n",
           "            if iterations >= min(int(max_iterations), 40):\n",
           ("tests/algorithms/test_pagerank.py",)),
    # ------------------------------------------------------------------ triangles, LCC, CDLP
    Mutant("triangles-one-missing", "vertex 3's own count misses one triangle", f"{ALG}/triangles.py",
           "    }\n    if (mine) gf_atomic_add(&S.tri[u], mine);\n}",  # the CPU kernel's (gf_count_row)
           "    }\n    if (mine) gf_atomic_add(&S.tri[u], mine - (u == 3 ? 1 : 0));\n}",
           ("tests/algorithms/test_triangles.py",)),
    Mutant("lcc-degree-two-is-zero", "LCC is 0 for vertices with two neighbours", f"{ALG}/lcc.py",
           "S.lcc[v] = d < 2 ? 0.0 :", "S.lcc[v] = d < 3 ? 0.0 :", ("tests/algorithms/test_lcc.py",)),
    Mutant("cdlp-ties-to-larger", "CDLP breaks ties towards the larger label", f"{ALG}/cdlp.py",
           "if (e - k > best_count)", "if (e - k >= best_count)", ("tests/algorithms/test_cdlp.py",)),
    Mutant("cdlp-stops-early", "CDLP stops while two labels still change", f"{ALG}/cdlp.py",
           "            if changed == 0:\n", "            if changed <= 2:\n", ("tests/algorithms/test_cdlp.py",)),
    # ------------------------------------------------------------------ verifiers that accept anything
    Mutant("verify_bfs-accepts-anything", "verify_bfs returns at once", f"{ALG}/bfs.py",
           "    levels = np.asarray(levels)\n    parents = np.asarray(parents)\n",
           "    return\n    levels = np.asarray(levels)\n", ("tests/algorithms/test_verifiers.py",)),
    Mutant("verify_sssp-accepts-anything", "verify_sssp returns at once", f"{ALG}/sssp.py",
           "    dist = np.asarray(dist, dtype=np.float64)\n    n = graph.n\n",
           "    return\n    n = graph.n\n", ("tests/algorithms/test_verifiers.py",)),
    Mutant("verify_wcc-accepts-anything", "verify_wcc returns at once", f"{ALG}/wcc.py",
           "    labels = np.asarray(labels)\n    assert labels.shape == (graph.n,), \"one label per vertex\"\n",
           "    return\n", ("tests/algorithms/test_verifiers.py",)),
    Mutant("verify_pagerank-accepts-anything", "verify_pagerank returns at once", f"{ALG}/pagerank.py",
           "    ranks = np.asarray(ranks, dtype=np.float64)\n    assert ranks.shape == (graph.n,), \"one rank per vertex\"\n",
           "    return\n", ("tests/algorithms/test_verifiers.py",)),
    Mutant("verify_triangles-accepts-anything", "verify_triangles returns at once", f"{ALG}/triangles.py",
           "    import scipy.sparse as sp\n\n    n = graph.n\n    src, dst = graph.edges()\n    keep = src != dst\n"
           "    a = sp.coo_array((np.ones(int(keep.sum())), (src[keep], dst[keep])), shape=(n, n)).tocsr()\n"
           "    a = ((a + a.T) > 0)",
           "    return\n    import scipy.sparse as sp\n\n    n = graph.n\n    src, dst = graph.edges()\n    keep = src != dst\n"
           "    a = sp.coo_array((np.ones(int(keep.sum())), (src[keep], dst[keep])), shape=(n, n)).tocsr()\n"
           "    a = ((a + a.T) > 0)", ("tests/algorithms/test_verifiers.py",)),
    Mutant("verify_lcc-accepts-anything", "verify_lcc returns at once", f"{ALG}/lcc.py",
           "    values = np.asarray(values, dtype=np.float64)\n", "    return\n", ("tests/algorithms/test_verifiers.py",)),
    Mutant("verify_cdlp-accepts-anything", "verify_cdlp returns at once", f"{ALG}/cdlp.py",
           "    want = values[lab]\n", "    return\n", ("tests/algorithms/test_verifiers.py",)),
    # ------------------------------------------------------------------ verifiers past 2^16 vertices
    # tests/algorithms/test_verifiers_large.py runs every registered algorithm on a graph whose index
    # products wrap in 32 bits; each verifier must still accept the answer and reject a broken one
    Mutant("verify_bfs-int32-parent-keys", "verify_bfs keys (parent, vertex) arcs in the parents' int32 (the old wrap)",
           f"{ALG}/bfs.py", "    want = arc_keys(p, others, n)\n", "    want = p * n + others\n", (LARGE,)),
    Mutant("verify_coloring-int32-pair-keys", "verify_coloring keys vertex pairs in int32",
           f"{ALG}/coloring.py", "    pairs = np.unique(arc_keys(a, b, max(graph.n, 1)))\n",
           "    pairs = np.unique(a.astype(np.int32) * np.int32(max(graph.n, 1)) + b.astype(np.int32))\n", (LARGE,)),
    # each aimed at its own algorithm's case of the large-graph test (the whole file, run with -x up to the
    # algorithm's case, passed the 300 s timeout for the registry's late entries on a loaded machine)
    *(Mutant(f"verify_{name}-accepts-anything-past-2^16", f"verify_{name} returns at once on graphs of more than "
             "2^16 vertices", f"{ALG}/{file}.py", anchor, f"    if graph.n > 2 ** 16:\n        return\n{anchor}",
             (f"{LARGE}::test_verifier_accepts_the_answer_and_rejects_a_broken_one[{LARGE_CASE.get(name, name)}]",))
      for name, file, anchor in [
          ("bfs", "bfs", "    levels = np.asarray(levels)\n    parents = np.asarray(parents)\n"),
          ("sssp", "sssp", "    dist = np.asarray(dist, dtype=np.float64)\n    n = graph.n\n"),
          ("pagerank", "pagerank", "    ranks = np.asarray(ranks, dtype=np.float64)\n"
                                   "    assert ranks.shape == (graph.n,), \"one rank per vertex\"\n"),
          ("wcc", "wcc", "    labels = np.asarray(labels)\n    assert labels.shape == (graph.n,), \"one label per vertex\"\n"),
          ("cdlp", "cdlp", "    want = values[lab]\n"),
          ("lcc", "lcc", "    values = np.asarray(values, dtype=np.float64)\n"),
          ("triangles", "triangles", "    triangles = np.asarray(triangles)\n"),
          ("betweenness", "betweenness", "    values = np.asarray(values, dtype=np.float64)\n"),
          ("coloring", "coloring", "    colors = np.asarray(colors)\n"),
          ("msf", "mst", "    source, target, weight = (np.asarray(a) for a in (source, target, weight))\n"),
          ("communities", "communities", "    community = checked_community_names(community, graph.n)\n"),
          ("core_number", "core_number", "    core = np.asarray(core)\n"),
          ("eigenvector_centrality", "eigenvector", "    want, _ = eigenvector_reference("),
          ("katz_centrality", "katz", "    with np.errstate(over=\"ignore\", invalid=\"ignore\"):\n"
                                      "        want, converged = katz_reference("),
          ("hits", "hits", "    hubs, authorities = np.asarray(hubs, np.float64), np.asarray(authorities, np.float64)\n"),
          ("jaccard", "jaccard", "    sources, targets = np.asarray(sources).tolist(), np.asarray(targets).tolist()\n"),
          ("edge_betweenness", "edge_betweenness",
           "    got = {(u, v): x for u, v, x in zip(np.asarray(sources).tolist(), np.asarray(targets).tolist(),\n"),
          ("k_truss", "k_truss", "    got = set(zip(np.asarray(sources).tolist(), np.asarray(targets).tolist()))\n"),
      ]),
    # ------------------------------------------------------------------ the hybrid engine
    Mutant("hybrid-span-rows-skipped", "the whole-side plan forgets the span's own rows", f"{SCHED}/residency.py",
           "            pieces = [(0, parts[a].lo, 0, a), (parts[a].lo, parts[z - 1].hi, a, z), "
           "(parts[z - 1].hi, s.n, z, len(parts))]",
           "            pieces = [(0, parts[a].lo, 0, a), (parts[z - 1].hi, s.n, z, len(parts))]",
           ("tests/hybrid/test_hybrid.py",)),
    Mutant("cost-zerocopy-whole-lines", "zero-copy priced as whole 128-byte lines again", f"{SCHED}/cost.py",
           "        return cost + lines * request / c.zerocopy_rate(request)",
           "        return cost + lines * LINE_BYTES / c.zerocopy_rate(request)", ("tests/hybrid/test_hybrid.py",)),
    Mutant("hybrid-delta-priority-ignored", "the asynchronous mode copies by active edges whatever the pushes carry",
           f"{SCHED}/hybrid.py", "np.cumsum(stats.active_edges if priority is None else priority,",
           "np.cumsum(stats.active_edges,", ("tests/hybrid/test_hybrid.py",)),
    Mutant("compaction-traffic-no-gather", "compaction says it gathers nothing on the host", "src/graphferry/engines/compaction.py",
           "        return Traffic(copy_bytes=moved, gather_bytes=moved)",
           "        return Traffic(copy_bytes=moved)", ("tests/hybrid/test_hybrid.py",)),
    Mutant("nmap-edge-base-ignored", "a neighbourhood kernel reads a block's rows at global offsets",
           "src/graphferry/backends/cpu/gf_cpu_kernels.h",
           "const GfGraph G{go, gi ? gi - gb : nullptr, GfWeights{gw, gwb}.shifted(gb), n};",
           "const GfGraph G{go, gi, GfWeights{gw, gwb}, n};", ("tests/hybrid/test_hybrid.py",)),
    Mutant("hybrid-busy-kept", "an edge map's per-partition plan returns with its blocks marked busy",
           f"{SCHED}/hybrid.py", "        self.pool.busy = set()\n        it.floor_bytes = floor\n",
           "        it.floor_bytes = floor\n", ("tests/hybrid/test_hybrid.py",)),
    Mutant("hybrid-whole-side-keeps-busy", "the one-launch zero-copy plan returns with its blocks marked busy",
           f"{SCHED}/residency.py", "        self.pool.busy = set()  # as every other plan's end: nothing is being read now\n",
           "", ("tests/hybrid/test_hybrid.py",)),
    Mutant("hybrid-span-ignores-idle-sides", "a span is cut to the free room only", f"{SCHED}/residency.py",
           "        idle = [k for k in self.pool.blocks if k[0] != self.key and k not in self.pool.busy\n"
           "                and (k[1] != \"prefix\" or self.pool.blocks[k].value < mean_value)]",
           "        idle = []", ("tests/hybrid/test_hybrid.py",)),
    Mutant("buckets-deferral-never-stops", "deferring goes on whatever the held-back vertices did",
           "src/graphferry/runtime/buckets.py",
           "            if saving < price:\n                self.deferring = False\n", "",
           ("tests/algorithms/test_sssp.py",)),
    Mutant("buckets-held-back-not-remembered", "a deferring pop forgets what it held back (so never judges)",
           "src/graphferry/runtime/buckets.py",
           "                self._held_back = (held, b.gather(values, held))  # a copy: what they were when held back",
           "                pass", ("tests/algorithms/test_sssp.py",)),
    Mutant("buckets-defer-never", "the dense layout never defers (Bellman-Ford's order again)",
           "src/graphferry/runtime/buckets.py",
           "        fill = self.defer_fill if defer else self.fill\n", "        fill = self.fill\n", ("tests/algorithms/test_sssp.py",)),
    Mutant("buckets-hubs-defer-too", "graphs with hubs defer like the rest", "src/graphferry/runtime/buckets.py",
           "    HUB_SHARE = 0.1\n", "    HUB_SHARE = 2.0\n", ("tests/algorithms/test_sssp.py",)),
    Mutant("hybrid-host-rate-ignored", "the policy prices the CPU at its calibrated rate whatever its runs reached",
           f"{SCHED}/policy.py", "host_rate = ctx.host_rates.get(host_k) or model", "host_rate = model",
           ("tests/hybrid/test_hybrid.py",)),
    Mutant("hybrid-no-sparse-span", "sparse rounds never admit a span", f"{SCHED}/hybrid.py",
           "self._admit_span(min_reads=0.0 if dense else self.SPAN_AFTER_READS)",
           "(self._admit_span() if dense else None)", ("tests/hybrid/test_hybrid.py",)),
    Mutant("partition-counts-no-misalignment", "a row's lines counted without its misalignment",
           "src/graphferry/backends/base.py",
           "    last = (e * bits - 1) // (8 * LINE_BYTES)",
           "    last = first + ((e - b) * bits - 1) // (8 * LINE_BYTES)", ("tests/runtime/test_primitives.py",)),
    # ------------------------------------------------------------------ HyPar
    Mutant("hypar-triangles-block-mark-misses-one", "a triangle part on the whole DAG leaves its block's first vertex unmarked",
           f"{HYPAR}/applications/triangle_count.py", "            in_block[block] = 1\n", "            in_block[block[1:]] = 1\n",
           ("tests/hypar/test_hypar.py",)),
    Mutant("hypar-shares-ignore-feedback", "a split's measured speeds are not used for the next call's shares",
           f"{HYPAR}/calibration.py", "            return list(self.observed[1])\n", "            return list(self.shares)\n",
           ("tests/hypar/test_hypar.py",)),
    Mutant("hypar-planner-never-explores", "the planner never tries a plan it has not run at a size",
           f"{HYPAR}/planner.py", "    if untried:\n        return trial(", "    if False:\n        return trial(",
           ("tests/hypar/test_hypar.py",)),
    Mutant("hypar-measure-keeps-the-last", "a slower run of a plan replaces its faster measurement",
           f"{HYPAR}/calibration.py", "        if same_size and kept[1] / max(kept[0], 1e-12) <= seconds / max(work, 1e-12):",
           "        if False and same_size and kept[1] / max(kept[0], 1e-12) <= seconds / max(work, 1e-12):",
           ("tests/hypar/test_hypar.py",)),
    Mutant("hypar-triangle-blocks-by-id", "triangle blocks are ranges of ids, not runs of the DAG's order",
           f"{HYPAR}/applications/triangle_count.py", "        return order[::-1] if self.host_first else order\n", "        return None\n",
           ("tests/hypar/test_hypar.py",)),
    Mutant("hypar-triangle-host-takes-low-ranks", "the host executor's triangle block is the lowest ranks, not the highest",
           f"{HYPAR}/applications/triangle_count.py", "        return order[::-1] if self.host_first else order\n", "        return order\n",
           ("tests/hypar/test_hypar.py",)),
    Mutant("mst-picks-not-deduplicated", "an edge two components picked in one round is kept twice",
           f"{ALG}/mst.py", "np.flatnonzero(np.r_[True, key[order[1:]] != key[order[:-1]]])",
           "np.arange(len(key))", ("tests/algorithms/test_mst.py",)),
    Mutant("contract-giant-minus-zero-lighter", "a big bucket's deduplication takes -0 as lighter than +0",
           "src/graphferry/host_ops/gf_host_ops.h",
           "    return gf_float_order_bits(w == 0.0f ? 0.0f : w);   // -0 and +0 compare equal: one key for both\n",
           "    return gf_float_order_bits(w);\n", ("tests/io/test_transforms.py",)),
    # ------------------------------------------------------------------ narrowed weights, row prefixes
    Mutant("narrow-weights-256-as-uint8", "a weight of 256 is narrowed to uint8 (it wraps to 0)",
           "src/graphferry/host_ops/gf_host_ops.h", "return most <= 255.0f ? 1 : 2;", "return most <= 256.0f ? 1 : 2;",
           ("tests/runtime/test_narrow_weights.py",)),
    Mutant("narrow-weights-misread", "kernels read one narrowed weight a unit too heavy",
           "src/graphferry/backends/include/gf_prelude.h",
           "if (bytes == 1) return (float)((const uint8_t*)p)[j];",
           "if (bytes == 1) return (float)((const uint8_t*)p)[j] + (float)(j == 7);",
           ("tests/runtime/test_narrow_weights.py",)),
    Mutant("row-prefixes-shifted", "the prefix copy starts one edge into each row",
           "src/graphferry/backends/base.py",
           "- out_offsets[rows] + offsets[rows]]", "- out_offsets[rows] + offsets[rows] + 1]",
           ("tests/hybrid/test_hybrid.py",)),
    Mutant("hypar-retry-far-rivals", "the planner runs again rivals up to 5x the best run, not 1.5x, after their second run",
           f"{HYPAR}/planner.py", "        if runs[plan] != 1:\n            return RETRY_WITHIN\n",
           "        if False:\n            return RETRY_WITHIN\n", ("tests/hypar/test_hypar.py",)),
    Mutant("hypar-first-run-not-retried", "a rival's one slow first run beyond 1.5x the best keeps it from running again",
           f"{HYPAR}/planner.py", "        if runs[plan] != 1:\n            return RETRY_WITHIN\n",
           "        if True:\n            return RETRY_WITHIN\n", ("tests/hypar/test_hypar.py",)),
    Mutant("hypar-cheap-first-run-not-retried", "a rival's one cheap first run beyond 5x the best keeps it from running again",
           f"{HYPAR}/planner.py", "return max(EXPLORE_WITHIN, RETRY_CHEAP_S / max(predicted[best], 1e-12))",
           "return EXPLORE_WITHIN", ("tests/hypar/test_hypar.py",)),
    # ------------------------------------------------------------------ summing pulls
    Mutant("pull-merge-without-a-sum", "a program may merge partial folds under combine 'min'",
           "src/graphferry/runtime/program.py",
           'if _defines(self.source, "pull_merge") and not (self.has_pull_fold and self.combine == "sum"):',
           'if _defines(self.source, "pull_merge") and not (self.has_pull_fold and self.combine in ("sum", "min")):',
           ("tests/runtime/test_runtime.py",)),
    Mutant("pull-reduces-without-merge", "kernels sum partial folds of a program with no pull_merge",
           "src/graphferry/runtime/program.py",
           'return self.has_pull_fold and self.combine == "sum" and _defines(self.source, "pull_merge")',
           'return self.has_pull_fold and self.combine == "sum"', ("tests/runtime/test_runtime.py",)),
    # ------------------------------------------------------------------ packed ids
    Mutant("packed-ids-high-part-lost", "a field that spans two words loses its high part",
           "src/graphferry/backends/include/gf_prelude.h",
           "if (s + (unsigned)bits > 32u) v |= (uint64_t)w[1] << (32u - s);",
           "if (s + (unsigned)bits > 33u) v |= (uint64_t)w[1] << (32u - s);",
           ("tests/runtime/test_packed_ids.py",)),
    Mutant("packed-range-unaligned", "a packed range starts at its own first edge, not a word",
           "src/graphferry/engines/base.py", "return e0 & ~31 if self.packed is not None else e0",
           "return e0 & ~15 if self.packed is not None else e0", ("tests/runtime/test_packed_ids.py",)),
    Mutant("packed-range-short", "a packed copy stops one group early",
           "src/graphferry/engines/base.py", "min(((e1 + 31) >> 5) * bits - start, len(idx))",
           "min(((e1 + 31) >> 5) * bits - start - bits, len(idx))", ("tests/runtime/test_packed_ids.py",)),
    Mutant("packing-drops-the-top-bit", "the pack pass keeps one bit fewer than an id needs",
           "src/graphferry/host_ops/gf_host_ops.h", "    const uint64_t mask = (1ull << bits) - 1, wmask",
           "    const uint64_t mask = (1ull << (bits - 1)) - 1, wmask", ("tests/runtime/test_packed_ids.py",)),
    # ------------------------------------------------------------------ direction
    Mutant("summing-pull-share-ignored", "a summing program pulls only where every edge is active, as others",
           "src/graphferry/backends/base.py", "            return self.full_pull_fraction_sum\n",
           "            return self.full_pull_fraction\n", ("tests/runtime/test_runtime.py",)),
    # ------------------------------------------------------------------ frontiers
    Mutant("frontier-all-one-short", "a frontier one vertex short of every vertex counts as all of them",
           "src/graphferry/runtime/frontier.py", "        if count == self.n:",
           "        if count is not None and count >= self.n - 1:", ("tests/runtime/test_runtime.py",)),
    Mutant("frontier-never-all-when-counted", "a frontier counted to every vertex still hands its bitmap",
           "src/graphferry/runtime/frontier.py", "        if count == self.n:",
           "        if count == self.n and count < 0:", ("tests/runtime/test_runtime.py",)),
    Mutant("hub-order-out-degree-only", "hub sorting ranks a directed graph's vertices by out-degree alone",
           "src/graphferry/transforms.py",
           "    in_degree = np.bincount(g.indices, minlength=n) if g.directed else out_degree",
           "    in_degree = out_degree", ("tests/io/test_hub_sort.py",)),
    Mutant("relabel-rows-unsorted", "a renumbered graph's rows keep their old order",
           "src/graphferry/transforms.py", "    for lo, hi in row_blocks(offsets, 1 << 24):",
           "    for lo, hi in row_blocks(offsets, 1 << 24) if False else ():", ("tests/io/test_hub_sort.py",)),
    Mutant("host-shards-export-everywhere", "every unit of the sharded host library defines every export",
           "src/graphferry/host_ops/gf_host_shard.h",
           "#if !defined(GF_HOST_SHARD) || GF_REGION % GF_HOST_SHARDS == GF_HOST_SHARD\n", "#if 1\n",
           ("tests/runtime/test_host_shards.py",)),
    Mutant("same-partition-one-way", "same_partition checks only that each class of a has one label in b",
           f"{ALG}/wcc.py", "    return bool(np.array_equal(one_a[b], a))\n", "    return True\n",
           ("tests/algorithms/test_wcc.py",)),
]


def copy_tree(dst: Path) -> None:
    for part in ("src", "tests"):
        shutil.copytree(REPO / part, dst / part, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    for f in ("pyproject.toml",):
        if (REPO / f).exists():
            shutil.copy2(REPO / f, dst / f)


def run_mutant(m: Mutant, work: Path, timeout: float) -> tuple[str, float, str]:
    path = work / m.file
    text = path.read_text()
    if text.count(m.original) != 1:
        return "STALE", 0.0, f"original snippet found {text.count(m.original)} times in {m.file}"
    env = dict(os.environ, PYTHONPATH=str(work / "src"),
               GRAPHFERRY_SHARED=os.environ.get("GRAPHFERRY_SHARED", str(REPO.parent / "shared")))
    t = time.perf_counter()
    try:
        path.write_text(text.replace(m.original, m.replacement))
        try:
            proc = subprocess.run([sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider",
                                   "--no-header", "-o", "addopts=", *m.tests],
                                  cwd=work, env=env, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return "SURVIVED", time.perf_counter() - t, f"tests ran past {timeout:.0f} s"
    finally:
        path.write_text(text)                      # never leave a mutant applied
    seconds = time.perf_counter() - t
    lines = (proc.stdout + proc.stderr).strip().splitlines()
    if proc.returncode == 1:                       # tests failed: caught
        first = next((ln for ln in lines if ln.startswith("FAILED")), lines[-1] if lines else "")
        return "KILLED", seconds, first
    if proc.returncode == 0:
        return "SURVIVED", seconds, lines[-1] if lines else ""
    return "ERROR", seconds, f"pytest exit code {proc.returncode}: {lines[-1] if lines else ''}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-k", default="", help="only mutants whose name contains this")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per mutant's tests")
    args = ap.parse_args(argv)
    chosen = [m for m in MUTANTS if args.k in m.name]
    if args.list:
        for m in chosen:
            print(f"{m.name:36s} {m.file:40s} {m.what}")
        return 0
    # the unmutated copy must pass the same tests, or a "kill" would mean nothing
    results = []
    with tempfile.TemporaryDirectory(prefix="graphferry-mutants-") as tmp:
        work = Path(tmp)
        copy_tree(work)
        targets = sorted({t for m in chosen for t in m.tests})
        base = subprocess.run([sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider",
                               "-o", "addopts=", *targets], cwd=work,
                              env=dict(os.environ, PYTHONPATH=str(work / "src"),
                                       GRAPHFERRY_SHARED=os.environ.get("GRAPHFERRY_SHARED",
                                                                        str(REPO.parent / "shared"))),
                              capture_output=True, text=True)
        if base.returncode != 0:
            print("the unmutated tests fail; fix them first:\n" + (base.stdout + base.stderr)[-2000:])
            return 2
        for m in chosen:
            status, seconds, detail = run_mutant(m, work, args.timeout)
            results.append((m, status))
            print(f"{status:8s} {seconds:6.1f} s  {m.name:36s} {m.what}" + (f"\n         {detail}" if status != "KILLED" else ""),
                  flush=True)
    killed = sum(s == "KILLED" for _, s in results)
    judged = sum(s in ("KILLED", "SURVIVED") for _, s in results)
    stale = [m.name for m, s in results if s in ("STALE", "ERROR")]
    print(f"\nkill rate: {killed}/{judged}" + (f" = {killed / judged:.0%}" if judged else "") +
          (f"; stale or broken (update them): {', '.join(stale)}" if stale else ""))
    return 0 if killed == judged and not stale else 1


if __name__ == "__main__":
    sys.exit(main())
