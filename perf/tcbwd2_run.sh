#!/bin/bash
# perf/tcbwd2_run.sh - one device call for the tensor-core backward (branches tcbwd2-tcbwd5, tcws6; NVIDIA H200). Stages:
#   build      ROCFLASH_BUILD=cuda TORCH_CUDA_ARCH_LIST=${TORCH_CUDA_ARCH_LIST:-9.0} pip install (this tree); 9.0a
#              (sm_90a only) builds the atomic-dQ kernel's wgmma dQ product (tcbwd5)
#   test       ROCFLASH_KERNEL=auto pytest -m gpu test_gpu_backward.py test_gpu_masked_garbage.py (every backward
#              test with deterministic=False and True; XDIST=n runs them on n workers), then test_gpu_varlen.py -k backward
#   sanitize   compute-sanitizer memcheck on perf/tcbwd2_memcheck.py (backward, both dQ modes, d64 / d128)
#   bench      python -m rocflash.perf --preset perf/presets/fwd_bwd.yaml --bwd, same process: rocflash-cuda
#              (deterministic=False: atomic dQ), rocflash-cuda-deterministic, SDPA flash, cuDNN
#   breakdown  perf/bwd_breakdown.py bf16 4k: d128 and d64, both dQ modes, then d128 causal atomic (BREAKDOWN_QUICK=1:
#              d128 atomic only)
#   ab5        perf/tcbwd5_ab.py: the atomic-dQ kernel's opt-in wgmma variants (sm_90a builds) against mma.sync, one
#              process: AB_SWITCH (default ROCFLASH_BWD_DQ_WGMMA, the dQ product; ROCFLASH_BWD_DQ_TILE: the dQ warp
#              tile), AB_MODES (default 1,0), AB_CASES (default d128,d64,d128causal,d128fp16)
#   Environment of the whole script reaches every stage: e.g. ROCFLASH_BWD_DQ_WGMMA=1 runs test and sanitize on
#   that variant (the A/B sets the switch itself per mode).
#   ncu        Nsight Compute (--clock-control none) on the atomic-dQ and the deterministic dK/dV kernel, d128 4k
#              (perf/tcbwd3_ncu.py)
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
    ROCFLASH_BUILD=cuda TORCH_CUDA_ARCH_LIST=${TORCH_CUDA_ARCH_LIST:-9.0} MAX_JOBS=16 timeout ${BUILD_TIMEOUT:-240} python3 -m pip install -q \
      --no-build-isolation --no-deps . > "$OUT/build.txt" 2>&1; log "build exit $?"; tail -3 "$OUT/build.txt" ;;
  test)
    (cd tests && ROCFLASH_KERNEL=auto timeout ${TEST_TIMEOUT:-150} python3 -m pytest -m gpu -q -p no:cacheprovider \
      ${XDIST:+-n $XDIST} test_gpu_backward.py test_gpu_masked_garbage.py > "$OUT/tests.txt" 2>&1
     echo "exit $?" >> "$OUT/tests.txt"
     ROCFLASH_KERNEL=auto timeout 60 python3 -m pytest -m gpu -q -p no:cacheprovider test_gpu_varlen.py -k backward \
       >> "$OUT/tests.txt" 2>&1
     ROCFLASH_KERNEL=auto timeout ${TEST2_TIMEOUT:-90} python3 -m pytest -m gpu -q -p no:cacheprovider \
       ${XDIST:+-n $XDIST} test_one_key_rows.py test_gpu_fuzz_layouts.py >> "$OUT/tests.txt" 2>&1)
    log "tests exit $?"; grep -E "passed|failed|Error|^FAILED|^exit" "$OUT/tests.txt" | tail -15 ;;
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
    cases=("--headdim 128" "--headdim 128 --deterministic" "--headdim 64" "--headdim 64 --deterministic" "--headdim 128 --causal")
    [ -n "${BREAKDOWN_QUICK:-}" ] && cases=("--headdim 128")  # the atomic-dQ d128 step only
    for args in "${cases[@]}"; do
      timeout 60 python3 perf/bwd_breakdown.py $args 2>&1 | tee -a "$OUT/breakdown.txt"
    done ;;
  ab5)
    (cd /tmp && timeout ${AB_TIMEOUT:-120} python3 "$REPO/perf/tcbwd5_ab.py" --switch "${AB_SWITCH:-ROCFLASH_BWD_DQ_WGMMA}" \
      --modes "${AB_MODES:-1,0}" --cases "${AB_CASES:-d128,d64,d128causal,d128fp16}") \
      2>&1 | tee "$OUT/ab5.txt" ;;
  ncu)
    timeout ${NCU_TIMEOUT:-120} ncu --clock-control none -k regex:fmha_bwd_dkdv -c 2 --section SpeedOfLight \
      --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section WarpStateStats --section Occupancy \
      --section LaunchStats python3 perf/tcbwd3_ncu.py > "$OUT/ncu.txt" 2>&1
    log "ncu exit $?"; grep -E "fmha_bwd|Duration|Throughput|Compute \(SM\)|Stall|Achieved Occupancy|Registers|L2 Hit" \
      "$OUT/ncu.txt" | head -40 ;;
  esac
done
