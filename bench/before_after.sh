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
#   OUT=/tmp/out ENGINES=hybrid ALGORITHMS=bfs SETTLE=5 CALIBRATION=own TAG=-own bash bench/before_after.sh
#
# CALIBRATION: shared (default: both trees price the hybrid's plans with this tree's calibration for
# the device) or own (each tree makes its own in its first hybrid call); SETTLE: seconds to wait after
# the timed calls before timing them again; PROFILE: calls under cProfile after them; TAG: a suffix for the output files' names.
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
ALGORITHMS=${ALGORITHMS:-bfs sssp pagerank wcc}
CALIBRATION=${CALIBRATION:-shared}
SETTLE=${SETTLE:-0}
TAG=${TAG:-}
PROFILE=${PROFILE:-0}   # calls under cProfile after the timed ones (0: none)
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
# shellcheck disable=SC2086  # ENGINES and ALGORITHMS are lists of words
PYTHONPATH=src python bench/before_after.py --before "$BEFORE" --before-commit "$BEFORE_COMMIT" \
  --scale "$SCALE" --backend "$BACKEND" --engines $ENGINES --algorithms $ALGORITHMS --reps "$REPS" \
  --deadline-s "$DEADLINE" --calibration "$CALIBRATION" --settle-seconds "$SETTLE" --profile-calls "$PROFILE" \
  --out "$OUT/before-after-kron$SCALE-$tag$TAG.json" 2>&1 | tee "$OUT/before-after-kron$SCALE-$tag$TAG.log"
