#!/bin/bash
# perf/tcbwd2_run.sh - one device call for the tensor-core backward's atomic-dQ variant (NVIDIA H200). Stages:
#   build      ROCFLASH_BUILD=cuda TORCH_CUDA_ARCH_LIST=9.0 pip install (this tree)
#   test       ROCFLASH_KERNEL=auto pytest -m gpu test_gpu_backward.py test_gpu_masked_garbage.py (every backward
#              test with deterministic=False and True)
#   sanitize   compute-sanitizer memcheck on perf/tcbwd2_memcheck.py (backward, both dQ modes, d64 / d128)
#   bench      python -m rocflash.perf --preset perf/presets/fwd_bwd.yaml --bwd, same process: rocflash-cuda
#              (deterministic=False: atomic dQ), rocflash-cuda-deterministic, SDPA flash, cuDNN
#   breakdown  perf/bwd_breakdown.py d128 4k bf16, both dQ modes
# Writes under $OUT (or ./tcbwd2_out).
set -u
OUT=${OUT:-tcbwd2_out}; mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
REPO=$(pwd)
stages=${*:-build test sanitize bench breakdown}
log() { echo "[$(date +%T)] $*"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for stage in $stages; do
  case $stage in
  build)
    ROCFLASH_BUILD=cuda TORCH_CUDA_ARCH_LIST=9.0 MAX_JOBS=16 timeout 240 python3 -m pip install -q \
      --no-build-isolation --no-deps . > "$OUT/build.txt" 2>&1; log "build exit $?"; tail -3 "$OUT/build.txt" ;;
  test)
    (cd tests && ROCFLASH_KERNEL=auto timeout ${TEST_TIMEOUT:-120} python3 -m pytest -m gpu -q -p no:cacheprovider \
      test_gpu_backward.py test_gpu_masked_garbage.py > "$OUT/tests.txt" 2>&1)
    log "tests exit $?"; grep -E "passed|failed|Error" "$OUT/tests.txt" | tail -15 ;;
  sanitize)
    PYTORCH_NO_CUDA_MEMORY_CACHING=1 timeout ${SAN_TIMEOUT:-60} compute-sanitizer --tool memcheck --error-exitcode 9 \
      python3 perf/tcbwd2_memcheck.py > "$OUT/san_memcheck.txt" 2>&1
    log "memcheck exit $?"; tail -4 "$OUT/san_memcheck.txt" ;;
  bench)
    (cd /tmp && timeout ${BENCH_TIMEOUT:-150} python3 -m rocflash.perf --preset "$REPO/perf/presets/fwd_bwd.yaml" --bwd \
      --backends cuda cuda-deterministic flash cudnn --baseline sdpa-flash --time-limit-s "${BENCH_TIME_LIMIT_S:-100}" \
      --no-progress > "$OUT/bench.txt" 2>&1)
    log "bench exit $?"; grep -E "^--|rocflash-cuda|sdpa-" "$OUT/bench.txt" | tail -60 ;;
  breakdown)
    for det in "" --deterministic; do
      timeout 60 python3 perf/bwd_breakdown.py --headdim 128 $det 2>&1 | tee -a "$OUT/breakdown.txt"
    done ;;
  esac
done
