#!/usr/bin/env bash
# Issue 35: README's headline table re-measured in ONE device call under the evidence rules.
#
# Kronecker 25 (generated on the GPU inside the call: 6-7 s in the earlier calls' build_seconds;
# `graphferry generate` on the CPU is far slower), then bench/peers_bench.py:
#   graphferry resident, zerocopy and the hybrid (device budget a quarter of the weighted edge
#   bytes) on bfs, sssp, pagerank (LDBC, 20 iterations), delta PageRank (to tol 1e-3, whose
#   documented L1 bound 2.3e-2 excludes the uniform vector) and wcc: every run's first call
#   after loading (first_seconds) and the median of 3 calls after it (seconds), each answer
#   checked by the CUDA oracle kernels and a float64 power iteration;
#   GAPBS (16 threads; its verifier -v on a first call in a process of its own, the 3 timed
#   trials in a second process: its serial verifier after every trial would take minutes);
#   EMOGI edges in GPU memory (-m 0; PageRank -m 1, managed), and zero-copy (-m 2), one call per
#   process, its per-vertex answer read back (EMOGI_OUTPUT, a build-folder patch of its output
#   only) and checked as ours;
#   HyTGraph (its .gr input, written once and timed apart) when its binaries are there: one
#   process per application running 1 + 3 times on the graph it read once (-cmdfile), its first
#   run and the median of the 3 after it, the first and last runs' -output read back and checked
#   the same way. NO_HYTGRAPH=1 leaves it out (the fallback if its binaries fail on the machine).
# Results: $OUT/peers-kron25-evidence.json (schema graphferry-bench/2: commit, dirty flag and
# diff hash of the tree that ran, from graphferry-tree.json). Copy it to
# bench/results/peers-kron25-h200-evidence.json, check it (python bench/check_results.py FILE),
# run python dev/results_table.py --write, commit.
#
# Before the call, on the machine that sends the tree:
#   python dev/stamp_tree.py                 # graphferry-tree.json travels with the tree
#   peer binaries in .carry/bin (git-ignored; carried): gapbs/{bfs,sssp,pr,cc},
#   emogi/emogi_{bfs,sssp,cc,pagerank}_32, hytgraph/hybrid_{bfs,sssp,pr,cc} (optional)
# On the GPU machine (16 cores, one H200), carrying .carry/bin:
#   bash bench/evidence_session.sh           # LIMIT=560 s of work, results under $OUT
#   NO_HYTGRAPH=1 bash bench/evidence_session.sh   # the same without HyTGraph
# Here, on the CPU backend at a small scale (the same script end to end, EMOGI and HyTGraph
# need a GPU and are skipped):
#   CPU=1 SCALE=12 OUT=/tmp/ev bash bench/evidence_session.sh
set -u
export PYTHONPATH=src PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/gf-out}; mkdir -p "$OUT"
LIMIT=${LIMIT:-560}; SCALE=${SCALE:-25}; BIN=${BIN:-.carry/bin}; WORK=${WORK:-/dev/shm/gf-evidence}
T0=$(date +%s)
left() { echo $(( LIMIT - ($(date +%s) - T0) )); }
if [ ! -f graphferry-tree.json ]; then
  echo "error: no graphferry-tree.json: run python dev/stamp_tree.py before the call (results must name the tree)"
  exit 2
fi
PEERS=()
[ -x "$BIN/gapbs/bfs" ] && PEERS+=(--gapbs-bin "$BIN/gapbs" --gapbs-verify-once --peer-trials 3)
[ -x "$BIN/emogi/emogi_bfs_32" ] && PEERS+=(--emogi-bin "$BIN/emogi")
[ -x "$BIN/hytgraph/hybrid_bfs" ] && [ "${NO_HYTGRAPH:-0}" != 1 ] && PEERS+=(--hytgraph-bin "$BIN/hytgraph" --hytgraph-format gr)
if [ "${CPU:-0}" = 1 ]; then
  ENGINES=(--engines cpu --delta-engines host --cpu-only)
  [ -d /dev/shm ] || WORK=/tmp/gf-evidence
else
  ENGINES=(--engines resident zerocopy hybrid --delta-engines resident zerocopy hybrid --delta-dtype float32)
  command -v nvidia-smi > /dev/null && nvidia-smi --query-gpu=name,memory.used,memory.total --format=csv | tee "$OUT/gpu.txt"
fi
echo "tree: $(python3 -c 'import json; d=json.load(open("graphferry-tree.json")); print(d["commit"][:12], "dirty" if d["dirty"] else "clean")')"
echo "peers: ${PEERS[*]:-none}"
# graphferry's runs end by 200 s (a run not started by then is skipped), the peers' by LIMIT - 15
timeout $(( $(left) - 5 )) python3 bench/peers_bench.py --graph kron --scales "$SCALE" \
  --algorithms bfs sssp pagerank wcc "${ENGINES[@]}" --reps 3 --delta-tol 0.001 \
  --deadline-s "${OURS_S:-200}" --peers-deadline-s $(( $(left) - 15 )) --peer-timeout 150 \
  --out "$OUT" --tag evidence --work "$WORK" "${PEERS[@]}" 2>&1 | tee "$OUT/evidence.log" | grep -v "^|"
echo "peers_bench rc=${PIPESTATUS[0]} at $(( $(date +%s) - T0 )) s"
rm -rf "$WORK"
f="$OUT/peers-kron$SCALE-evidence.json"
[ -f "$f" ] && python3 bench/check_results.py "$f"
echo "done at $(( $(date +%s) - T0 )) s"
