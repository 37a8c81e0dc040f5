#!/usr/bin/env bash
# One call on the lent GPU machine: GPU tests (CUDA backend, LDBC on every engine),
# the README's demo on the GPU, and the engines benchmark with the library's PageRank.
# Usage there: GRAPHFERRY_SHARED=.carry/shared bash bench/gpu_session.sh   (writes under $OUT)
set -u
export PYTHONPATH=src
OUT=${OUT:-/tmp/gf-out}
mkdir -p "$OUT"
export GRAPHFERRY_COMMIT=${GRAPHFERRY_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
nvidia-smi --query-gpu=name,memory.used,memory.total --format=csv | tee "$OUT/gpu.txt"
timeout "${TEST_S:-220}" python -m pytest -q -m gpu -p no:cacheprovider tests/test_cuda_backend.py tests/test_ldbc.py \
    > "$OUT/gpu-tests.txt" 2>&1
echo "gpu tests rc=$?"; tail -4 "$OUT/gpu-tests.txt"
timeout 90 python -m graphferry demo --scale 20 > "$OUT/demo.txt" 2>&1
echo "demo rc=$?"; tail -12 "$OUT/demo.txt"
timeout "${BENCH_S:-230}" python bench/engines_bench.py --scales 24 --algorithms pagerank --tag pr-lib \
    --deadline-s 190 --run-cap-s 30 --out "$OUT" > "$OUT/bench.txt" 2>&1
echo "bench rc=$?"; tail -25 "$OUT/bench.txt"
