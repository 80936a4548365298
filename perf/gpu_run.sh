#!/usr/bin/env bash
# One device call: build the CUDA version of hip_src/, run the GPU tests, compute-sanitizer on boundary
# cases, and the perf table. Results land in $OUT (the device tool) or ./gpu_out.
# Usage: bash perf/gpu_run.sh [stage ...]   stages: build test sanitize perf model (default: all)
set -uo pipefail
OUT=${OUT:-$PWD/gpu_out}; mkdir -p "$OUT"
stages=${*:-build test sanitize perf model}
export PYTHONUNBUFFERED=1
log() { echo "== $(date -u +%H:%M:%S) $*" | tee -a "$OUT/summary.txt"; }
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm --format=csv | tee "$OUT/gpu.txt"
git rev-parse HEAD 2>/dev/null | tee -a "$OUT/gpu.txt"
for s in $stages; do case $s in
  build)
    log "build: ROCFLASH_BUILD=cuda TORCH_CUDA_ARCH_LIST=9.0 pip install --no-build-isolation ."
    start=$(date +%s)
    ROCFLASH_BUILD=cuda TORCH_CUDA_ARCH_LIST=9.0 python3 -m pip install -q --no-build-isolation --no-deps . > "$OUT/build.log" 2>&1 \
      || { tail -50 "$OUT/build.log"; log "BUILD FAILED"; exit 1; }
    log "build took $(( $(date +%s) - start )) s"
    (cd /tmp && python3 -m rocflash info) 2>&1 | tee "$OUT/info.txt" ;;
  test)
    log "pytest -m gpu"
    (cd tests && python3 -m pytest -q -m gpu -p no:cacheprovider ${PYTEST_ARGS:-} ${GPU_TESTS:-test_gpu.py test_gpu_backward.py test_cases.py} 2>&1 | tail -40 | tee "$OUT/pytest_gpu.txt")
    log "pytest exit ${PIPESTATUS[0]}" ;;
  sanitize)
    for tool in memcheck racecheck; do
      log "compute-sanitizer --tool $tool python3 perf/sanitize_cases.py"
      PYTORCH_NO_CUDA_MEMORY_CACHING=1 compute-sanitizer --tool $tool --error-exitcode 9 python3 perf/sanitize_cases.py > "$OUT/sanitizer_$tool.txt" 2>&1
      log "$tool exit $? ($(grep -c 'ERROR SUMMARY: 0 errors' "$OUT/sanitizer_$tool.txt") clean summaries)"
      tail -3 "$OUT/sanitizer_$tool.txt"
    done ;;
  perf)
    log "python3 -m rocflash.perf"
    (cd /tmp && python3 -m rocflash.perf --json "$OUT/perf.json") 2>&1 | tee "$OUT/perf.txt" ;;
  model)
    log "python3 perf/minilm_gpu_check.py"
    python3 perf/minilm_gpu_check.py 2>&1 | tee "$OUT/minilm_gpu.txt" ;;
esac; done
log done
