#!/usr/bin/env bash
# Issue 36's before/after measurement in one device call: the peers benchmark's graphferry runs
# (resident, hybrid and zerocopy under 25% of the weighted edge bytes; bfs, sssp, pagerank, wcc;
# first call and warm median) on one Kronecker graph, generated once, with the library before the
# seam work (BEFORE: that commit's src/ and bench/, as `git archive 20e9547 src bench` writes them)
# and this tree's, alternating (bench/before_after.py). Results under $OUT: one JSON naming both
# trees with the per-run ratio after / before, and the log.
#
#   OUT=/tmp/out bash bench/before_after.sh                        # on the GPU machine, from the repo root
#   OUT=/tmp/out SCALE=10 BACKEND=cpu ENGINES=host bash bench/before_after.sh   # a check without a GPU
#
# Run `python dev/stamp_tree.py` in the checkout first (bench/provenance.py: the results name the tree).
set -euo pipefail
cd "$(dirname "$0")/.."
: "${OUT:?set OUT to the folder for the results}"
BEFORE=${BEFORE:-_scratch/before}
BEFORE_COMMIT=${BEFORE_COMMIT:-20e9547}
SCALE=${SCALE:-25}
BACKEND=${BACKEND:-cuda}
ENGINES=${ENGINES:-resident hybrid zerocopy}
REPS=${REPS:-3}
DEADLINE=${DEADLINE:-170}   # seconds after which no further process starts (one runs 20-60 s)
if [ ! -f "$BEFORE/src/graphferry/__init__.py" ]; then
  if git cat-file -e "$BEFORE_COMMIT^{commit}" 2>/dev/null; then
    mkdir -p "$BEFORE" && git archive "$BEFORE_COMMIT" src bench | tar -x -C "$BEFORE"
  else
    echo "error: $BEFORE holds no graphferry src/ and $BEFORE_COMMIT is not in a git history here" >&2
    exit 2
  fi
fi
mkdir -p "$OUT"
tag=$([ "$BACKEND" = cuda ] && echo h200 || echo "$BACKEND")
# shellcheck disable=SC2086  # ENGINES is a list of words
PYTHONPATH=src python bench/before_after.py --before "$BEFORE" --before-commit "$BEFORE_COMMIT" \
  --scale "$SCALE" --backend "$BACKEND" --engines $ENGINES --reps "$REPS" --deadline-s "$DEADLINE" \
  --out "$OUT/before-after-kron$SCALE-$tag.json" 2>&1 | tee "$OUT/before-after-kron$SCALE-$tag.log"
