#!/usr/bin/env bash
# One call on the lent GPU machine for issue 9's open measurements (the hybrid beside its peers),
# in priority order, each step bounded so the call ends inside its limit; results under $OUT.
# Peers are given as binary directories (built elsewhere, never here):
#   PARTS="1 2 3" GAPBS=dir EMOGI=dir HYTGRAPH=dir LIMIT=seconds bash bench/peers_session.sh
# Parts (one device call each, or several in one; a step is skipped when its peer directory is
# unset or the time left is short):
#   1. the GPU tests (record: $OUT/gpu-tests-<device>.json); uniform 25 delta PageRank from both
#      starts beside HyTGraph's, synchronous and asynchronous, every run's L1 to the converged
#      ranks recorded (matched accuracy: --delta-tol 0.005 too), and the GPU's pull share for
#      summing programs at 0.45 beside its default 2/3
#   2. Kronecker 26, every single engine under the same budget (HyTGraph's Table V at 26, and the
#      best single engine there), the hybrid first, three timed calls each (the hybrid's first
#      timed SSSP call is the one to watch)
#   3. uniform 26, the hybrid beside GAPBS and EMOGI
#   4. Kronecker 25, the hybrid (growth to 26 with the warm start; the first timed SSSP call)
#      beside itself with HyTGraph's fixed constants (hybrid-paper: the calibrated model against them)
#   5. uniform 26, the hybrid beside HyTGraph (its .gr input; not run by part 3)
set -u
export PYTHONPATH=src PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/gf-out}; mkdir -p "$OUT"
LIMIT=${LIMIT:-590}; T0=$(date +%s)
left() { echo $(( LIMIT - ($(date +%s) - T0) )); }
# the tree that runs: graphferry-tree.json, written by `python dev/stamp_tree.py` before the call
[ -f graphferry-tree.json ] || echo "warning: no graphferry-tree.json (run python dev/stamp_tree.py before the call): results will name commit unknown"
step() {  # name, seconds it needs at least, command...
  local name=$1 need=$2; shift 2
  local l; l=$(left)
  STEP_RC=125
  if [ "$l" -lt "$need" ]; then echo "[$name] skipped: $l s left, needs $need"; return; fi
  echo "[$name] $(date +%T), $l s left"
  timeout $(( l - 5 )) "$@" > "$OUT/$name.log" 2>&1
  STEP_RC=$?
  echo "[$name] rc=$STEP_RC at $(( $(date +%s) - T0 )) s"; grep -E "^(\[ *[0-9.]+ s\])? +(hybrid|peer:|filter|compaction|zerocopy)" "$OUT/$name.log" | tail -30
}
PARTS=${PARTS:-1 2 3}
PART2_ENGINES=${PART2_ENGINES:-hybrid zerocopy compaction filter}  # part 2's engines, in the order they run
has() { [[ " $PARTS " == *" $1 "* ]]; }
if has 1; then
  TESTS=(python3 -m pytest -q -m gpu -p no:cacheprovider tests --junitxml="$OUT/gpu-tests.xml")
  step gpu-tests 200 "${TESTS[@]}"
  [ -f "$OUT/gpu-tests.xml" ] && python3 bench/gpu_tests_record.py "$OUT/gpu-tests.xml" "$STEP_RC" "$OUT" "${TESTS[@]}" > /dev/null 2>&1
  HYT=(); [ -n "${HYTGRAPH:-}" ] && HYT=(--hytgraph-bin "$HYTGRAPH" --hytgraph-format gr)
  SHARE=(--sum-pull-share-too 0.45)
  for start in uniform degrees; do
    step "urand25-pr-$start" 90 python3 bench/peers_bench.py --graph urand --scales 25 --algorithms pagerank \
      --engines hybrid hybrid-async --delta-engines hybrid hybrid-async --delta-dtype float32 --delta-start $start \
      --reps 3 --peer-algorithms pagerank --deadline-s 80 --out "$OUT" --tag pr-$start --work /dev/shm/peers \
      "${HYT[@]}" "${SHARE[@]}"
    HYT=(); SHARE=()  # HyTGraph and the other share once
  done
  step urand25-pr-matched 60 python3 bench/peers_bench.py --graph urand --scales 25 --algorithms pagerank \
    --engines hybrid hybrid-async --delta-engines hybrid hybrid-async --delta-dtype float32 --delta-start uniform \
    --delta-tol 0.005 --reps 3 --deadline-s 50 --out "$OUT" --tag pr-matched --work /dev/shm/peers
fi
if has 2; then
  step kron26-single 240 python3 bench/peers_bench.py --graph kron --scales 26 --algorithms pagerank bfs wcc sssp \
    --engines $PART2_ENGINES --delta-engines $PART2_ENGINES --delta-dtype float32 --reps 3 \
    --deadline-s $(( $(left) - 120 )) --out "$OUT" --tag single --work /dev/shm/peers
fi
if has 3; then
  PEERS=(); [ -n "${GAPBS:-}" ] && PEERS+=(--gapbs-bin "$GAPBS"); [ -n "${EMOGI:-}" ] && PEERS+=(--emogi-bin "$EMOGI")
  step urand26 200 python3 bench/peers_bench.py --graph urand --scales 26 --algorithms pagerank bfs wcc sssp \
    --engines hybrid --delta-engines hybrid --delta-dtype float32 --reps 3 --peer-trials 1 --peer-timeout 60 \
    --deadline-s 150 --out "$OUT" --tag peers --work /tmp/peers "${PEERS[@]}"
fi
if has 4; then
  step kron25-hybrid 120 python3 bench/peers_bench.py --graph kron --scales 25 --algorithms pagerank bfs wcc sssp \
    --engines hybrid hybrid-paper --delta-engines hybrid hybrid-paper --delta-dtype float32 --reps 3 \
    --deadline-s $(( $(left) - 30 )) --out "$OUT" --tag growth --work /dev/shm/peers
fi
if has 5 && [ -n "${HYTGRAPH:-}" ]; then
  step urand26-hytgraph 200 python3 bench/peers_bench.py --graph urand --scales 26 --algorithms pagerank bfs wcc sssp \
    --engines hybrid --delta-engines hybrid --delta-dtype float32 --delta-start uniform --reps 3 --peer-timeout 90 \
    --deadline-s 120 --out "$OUT" --tag hytgraph --work /dev/shm/peers --hytgraph-bin "$HYTGRAPH" --hytgraph-format gr
fi
rm -rf /dev/shm/peers /tmp/peers
echo "done at $(( $(date +%s) - T0 )) s"
