#!/bin/bash
# perf/tcbwd3_run.sh - one device call for the tensor-core backward (branch tcbwd3; NVIDIA H200). Stages:
#   build      ROCFLASH_BUILD=cuda TORCH_CUDA_ARCH_LIST=9.0 pip install (this tree)
#   test       ROCFLASH_KERNEL=auto pytest -m gpu test_gpu_backward.py test_gpu_masked_garbage.py, then
#              test_gpu_varlen.py -k backward (every backward test with deterministic=False and True)
#   sanitize   compute-sanitizer memcheck on perf/tcbwd2_memcheck.py (backward, both dQ modes, d64 / d128)
#   breakdown  perf/bwd_breakdown.py bf16 4k: d128 and d64, both dQ modes, then d128 causal atomic
#   ab         perf/tcbwd3_ab.py: same-process A/B of the dK/dV loop variants (ROCFLASH_TCBWD3_LOOP)
#   ncu        Nsight Compute (--clock-control none) on the atomic-dQ and the deterministic dK/dV kernel, d128 4k
#   bench      python -m rocflash.perf --preset perf/presets/fwd_bwd.yaml --bwd, same process: rocflash-cuda
#              (deterministic=False: atomic dQ), rocflash-cuda-deterministic, SDPA flash, cuDNN
# Writes under $OUT (or ./tcbwd3_out).
set -u
OUT=${OUT:-tcbwd3_out}; mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
REPO=$(pwd)
stages=${*:-build test sanitize breakdown ncu bench}
log() { echo "[$(date +%T)] $*"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
git log -1 --format=%h 2>/dev/null || true
for stage in $stages; do
  case $stage in
  build)
    ROCFLASH_BUILD=cuda TORCH_CUDA_ARCH_LIST=9.0 MAX_JOBS=16 timeout 240 python3 -m pip install -q \
      --no-build-isolation --no-deps . > "$OUT/build.txt" 2>&1; log "build exit $?"; tail -3 "$OUT/build.txt" ;;
  test)
    (cd tests && ROCFLASH_KERNEL=auto timeout ${TEST_TIMEOUT:-150} python3 -m pytest -m gpu -q -x -p no:cacheprovider \
      ${XDIST:+-n $XDIST} test_gpu_backward.py test_gpu_masked_garbage.py > "$OUT/tests.txt" 2>&1
     echo "exit $?" >> "$OUT/tests.txt"
     ROCFLASH_KERNEL=auto timeout 60 python3 -m pytest -m gpu -q -p no:cacheprovider test_gpu_varlen.py -k backward \
       >> "$OUT/tests.txt" 2>&1)
    log "tests exit $?"; grep -E "passed|failed|Error|^FAILED|^exit" "$OUT/tests.txt" | tail -15 ;;
  sanitize)
    ROCFLASH_TCBWD3_LOOP=${LOOP:-1} PYTORCH_NO_CUDA_MEMORY_CACHING=1 timeout ${SAN_TIMEOUT:-90} compute-sanitizer --tool memcheck --error-exitcode 9 \
      python3 perf/tcbwd2_memcheck.py > "$OUT/san_memcheck${LOOP:-1}.txt" 2>&1
    log "memcheck (loop ${LOOP:-1}) exit $?"; tail -3 "$OUT/san_memcheck${LOOP:-1}.txt" ;;
  sanitize2) LOOP=2 SAN_TIMEOUT=40 bash "$0" sanitize ;;
  ab)
    timeout ${AB_TIMEOUT:-60} python3 perf/tcbwd3_ab.py > "$OUT/ab.txt" 2>&1
    log "ab exit $?"; grep -E "^===|dK/dV kernel|dQ kernel" "$OUT/ab.txt" ;;
  breakdown)
    for args in "--headdim 128" "--headdim 128 --deterministic" "--headdim 64" "--headdim 64 --deterministic" \
                "--headdim 128 --causal"; do
      timeout 60 python3 perf/bwd_breakdown.py $args 2>&1 | tee -a "$OUT/breakdown.txt"
    done ;;
  ncu)
    timeout ${NCU_TIMEOUT:-120} ncu --clock-control none -k regex:fmha_bwd_dkdv -c 2 --section SpeedOfLight \
      --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section WarpStateStats --section Occupancy \
      --section LaunchStats python3 perf/tcbwd3_ncu.py > "$OUT/ncu.txt" 2>&1
    log "ncu exit $?"; grep -E "fmha_bwd|Duration|Throughput|Compute \(SM\)|Stall|Achieved Occupancy|Registers|L2 Hit" \
      "$OUT/ncu.txt" | head -40 ;;
  bench)
    (cd /tmp && timeout ${BENCH_TIMEOUT:-150} python3 -m rocflash.perf --preset "$REPO/perf/presets/fwd_bwd.yaml" --bwd \
      --backends cuda cuda-deterministic flash cudnn --baseline sdpa-flash --time-limit-s "${BENCH_TIME_LIMIT_S:-100}" \
      --no-progress > "$OUT/bench.txt" 2>&1)
    log "bench exit $?"; grep -E "^--|rocflash-cuda|sdpa-" "$OUT/bench.txt" | tail -60 ;;
  esac
done
