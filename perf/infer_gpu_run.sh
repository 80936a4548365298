#!/usr/bin/env bash
# One device call for the inference path (issue 9): build, the GPU tests of the varlen / KV-cache kernels and the
# dense ones they share code with, compute-sanitizer on the varlen and paged cases, the decode benchmark.
# Results in $OUT: setup.txt summary.txt tests.txt bench.txt bench.json sanitize.txt
set -uo pipefail
OUT=${OUT:-$PWD/gpu_out}; mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
log() { echo "== $(date -u +%H:%M:%S) $*" | tee -a "$OUT/summary.txt"; }
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm --format=csv >> "$OUT/setup.txt"
git log -1 --format=%H >> "$OUT/setup.txt" 2>/dev/null || true
log "build"
start=$(date +%s)
ROCFLASH_BUILD=cuda TORCH_CUDA_ARCH_LIST=9.0 python3 -m pip install -q --no-build-isolation --no-deps . > /tmp/build.log 2>&1 \
  || { tail -60 /tmp/build.log | tee -a "$OUT/setup.txt"; log "BUILD FAILED"; exit 1; }
log "build took $(( $(date +%s) - start )) s"
log "pytest -m gpu ${GPU_TESTS:-test_gpu_varlen.py test_gpu.py test_gpu_backward.py}"
(cd tests && timeout ${TEST_TIMEOUT:-120} python3 -m pytest -q -m gpu -p no:cacheprovider --maxfail=25 \
   ${GPU_TESTS:-test_gpu_varlen.py test_gpu.py test_gpu_backward.py} > "$OUT/tests.txt" 2>&1)
log "pytest exit $?"; tail -5 "$OUT/tests.txt" | tee -a "$OUT/summary.txt"
log "decode benchmark"
(cd /tmp && timeout ${BENCH_TIMEOUT:-150} python3 "$OLDPWD/perf/decode_bench.py" --json "$OUT/bench.json" > "$OUT/bench.txt" 2>&1)
log "bench exit $?"
for tool in memcheck racecheck; do
  log "compute-sanitizer --tool $tool python3 perf/sanitize_cases.py --seq-only"
  PYTORCH_NO_CUDA_MEMORY_CACHING=1 timeout ${SAN_TIMEOUT:-60} compute-sanitizer --tool $tool --error-exitcode 9 \
    python3 perf/sanitize_cases.py --seq-only >> "$OUT/sanitize.txt" 2>&1
  log "$tool exit $?"; tail -3 "$OUT/sanitize.txt" | tee -a "$OUT/summary.txt"
done
log done
