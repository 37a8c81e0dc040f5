#!/usr/bin/env bash
# One call on the lent GPU machine: GPU tests (CUDA backend, LDBC on every engine; their counts
# recorded in $OUT/gpu-tests-<device>.json for bench/results/),
# the README's demo on the GPU, and the engines benchmark with the library's PageRank.
# Usage there: GRAPHFERRY_SHARED=.carry/shared bash bench/gpu_session.sh   (writes under $OUT)
set -u
export PYTHONPATH=src
OUT=${OUT:-/tmp/gf-out}
mkdir -p "$OUT"
# the tree that runs: graphferry-tree.json, written by `python dev/stamp_tree.py` before the call
[ -f graphferry-tree.json ] || echo "warning: no graphferry-tree.json (run python dev/stamp_tree.py before the call): results will name commit unknown"
nvidia-smi --query-gpu=name,memory.used,memory.total --format=csv | tee "$OUT/gpu.txt"
# every GPU-marked test (339 at f6056fd: 64 s on an H200)
TESTS=(python -m pytest -q -m gpu -p no:cacheprovider tests --junitxml="$OUT/gpu-tests.xml")
timeout "${TEST_S:-220}" "${TESTS[@]}" > "$OUT/gpu-tests.txt" 2>&1
rc=$?
echo "gpu tests rc=$rc"; tail -4 "$OUT/gpu-tests.txt"
# The record the repository keeps: commit, device, passed/failed/skipped counts. Copy
# $OUT/gpu-tests-<device>.json to bench/results/ and commit it after every change to the
# runtime, the backends or the engines.
python bench/gpu_tests_record.py "$OUT/gpu-tests.xml" "$rc" "$OUT" "${TESTS[@]}"
timeout 90 python -m graphferry demo --scale 20 > "$OUT/demo.txt" 2>&1
echo "demo rc=$?"; tail -12 "$OUT/demo.txt"
timeout "${BENCH_S:-230}" python bench/engines_bench.py --scales 24 --algorithms pagerank --tag pr-lib \
    --deadline-s 190 --run-cap-s 30 --out "$OUT" > "$OUT/bench.txt" 2>&1
echo "bench rc=$?"; tail -25 "$OUT/bench.txt"
