"""Refit the performance model of multidevice_bench results from their own fit observations.

For a model change made after a device run: the fit graphs' observations in
the results file are refitted (their ``n`` taken from ``fit_graphs`` where an
older file lacks it) and the model's prediction error and choice recomputed on
the measured configurations. Nothing is re-measured; the file gains a
``model_refit`` entry naming the commit whose model made it.

Usage::

    python bench/multidevice_refit.py bench/results/multidevice-kron25-h200x4-pr.json \\
        --also bench/results/multidevice-kron26-h200x4-pr.json
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))


def choice_for(model, runs, graph, vertex_bytes, ranks):
    candidates = {(r["direction"], r["ranks"]): statistics.median(r["iteration_seconds"]) for r in runs
                  if r["case"] in ("pagerank-pull", "pagerank-push")}
    n, m = graph["n"], graph["m"]
    chosen = model.choose(edges=m, n=n, vertex_bytes=vertex_bytes, candidates=ranks)
    best = min(candidates, key=candidates.get)
    predicted = {f"{d}-{r}": model.predict(d, edges=m, n=n, vertex_bytes=vertex_bytes, ranks=r) for d, r in candidates}
    errors = [abs(predicted[f"{d}-{r}"] - t) / t for (d, r), t in candidates.items()]
    return {"chosen": {"direction": chosen[0], "ranks": chosen[1], "predicted_seconds": chosen[2]},
            "measured_best": {"direction": best[0], "ranks": best[1], "seconds": candidates[best]},
            "chosen_measured_seconds": candidates.get((chosen[0], chosen[1])),
            "picked_fastest": (chosen[0], chosen[1]) == best,
            "predicted_iteration_seconds": predicted,
            "measured_iteration_seconds": {f"{d}-{r}": t for (d, r), t in candidates.items()},
            "median_abs_relative_error": statistics.median(errors),
            "max_abs_relative_error": max(errors)}


def main() -> None:
    from graphferry.distributed.model import PerformanceModel

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("fitted", help="a results file holding model_fit_observations and fit_graphs")
    ap.add_argument("--also", nargs="*", default=[], help="results files measured with that file's model")
    args = ap.parse_args()
    fitted = json.loads(Path(args.fitted).read_text())
    n_of = {g["m"]: g["n"] for g in fitted["fit_graphs"]}
    obs = [dict(o, n=o.get("n") or n_of.get(o["edges"])) for o in fitted["model_fit_observations"]]
    old = fitted["model"]
    model = PerformanceModel.fit(obs, units=old["units"], shared_host=old["shared_host"],
                                 gamma_load=old["gamma_load"])
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import provenance  # the commit of the tree that refitted (issue 35)

    commit = provenance.tree()["commit"]
    for path in [args.fitted] + args.also:
        d = json.loads(Path(path).read_text())
        ranks = sorted({r["ranks"] for r in d["runs"] if r.get("case", "").startswith("pagerank-p")})
        choice = choice_for(model, d["runs"], d["graph"], 24, ranks)
        d["model_refit"] = {"commit": commit, "fitted_from": Path(args.fitted).name, "model": model.to_dict(),
                            "model_choice": choice,
                            "note": "the model refitted after the run from the same fit observations "
                                    "(no re-measurement): a per-edge rate growing with log2 n"}
        Path(path).write_text(json.dumps(d, indent=1))
        print(f"{path}: picked {choice['chosen']}, measured best {choice['measured_best']}, "
              f"median error {choice['median_abs_relative_error']:.3f}")


if __name__ == "__main__":
    main()
