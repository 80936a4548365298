#!/bin/bash
# perf/tc_fwd_run.sh - one device call for the tensor-core forward (NVIDIA H200). Stages (pass names to pick):
#   tiles  the tile variants of perf/mma_tiles.cu on this tree's kernels (bf16, h16, each seqlen of $TILE_SEQLENS,
#          default 4096, at 2^20 tokens), and a baseline binary of older kernels when $BIN/mma_tiles_base exists
#   sdpa   SDPA flash / cuDNN on those shapes (perf/presets/tc_tiles.yaml)
#   build  ROCFLASH_BUILD=cuda TORCH_CUDA_ARCH_LIST=9.0 pip install (this tree)
#   test   ROCFLASH_KERNEL=auto pytest -m gpu $TEST_FILES (default test_gpu.py test_cases.py test_gpu_masked_garbage.py
#          test_gpu_varlen.py), on $XDIST pytest-xdist workers when set
#   train  perf/train_check.py (training check, tensor-core forward and backward by default)
#   tc     python -m rocflash.perf --preset perf/presets/tensor_core.yaml --backends cuda flash cudnn
#   sanitize  compute-sanitizer memcheck and racecheck on perf/sanitize_cases.py (dense cases)
#   host   per-call host time of flash_attn_func and its cProfile (perf/host_overhead.py)
#   ncu    Nsight Compute on the first launch of each of $NCU_VARIANTS (mma_tiles variants; non-causal plain kernel)
#   BIN=dir with prebuilt mma_tiles_new (rebuilt here when it does not run). Writes under $OUT (or ./tc_out).
set -u
OUT=${OUT:-tc_out}; mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
BIN=${BIN:-.tcbin}
REPO=$(pwd)
stages=${*:-tiles sdpa build test tc ncu}
log() { echo "[$(date +%T)] $*"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv | tee "$OUT/gpu.txt"
for stage in $stages; do
  case $stage in
  tiles)
    if ! "$BIN/mma_tiles_new" 1024 16384 16 T64 1 > /dev/null 2>&1; then
      log "rebuilding mma_tiles_new"
      nvcc -O3 -std=c++17 --expt-relaxed-constexpr -arch=sm_90 -Ihip_src perf/mma_tiles.cu -o "$BIN/mma_tiles_new"
    fi
    for sl in ${TILE_SEQLENS:-4096}; do
      "$BIN/mma_tiles_new" $sl 1048576 16 "" 15 2>&1 | tee -a "$OUT/tiles_new.txt"
      [ -x "$BIN/mma_tiles_base" ] && "$BIN/mma_tiles_base" $sl 1048576 16 "" 15 2>&1 | tee -a "$OUT/tiles_base.txt"
    done ;;
  sdpa)
    timeout 120 python3 -m rocflash.perf --preset perf/presets/tc_tiles.yaml --backends flash cudnn \
      --baseline sdpa-flash --no-progress 2>&1 | tail -25 | tee "$OUT/sdpa.txt" ;;
  build)
    log "build"
    ROCFLASH_BUILD=cuda TORCH_CUDA_ARCH_LIST=9.0 MAX_JOBS=16 timeout 300 python3 -m pip install -q \
      --no-build-isolation --no-deps . > "$OUT/build.txt" 2>&1; log "build exit $?"; tail -3 "$OUT/build.txt" ;;
  test)
    log "gpu tests"
    (cd tests && ROCFLASH_KERNEL=auto timeout ${TEST_TIMEOUT:-200} python3 -m pytest -m gpu -q --maxfail=${MAXFAIL:-1} -p no:cacheprovider \
      ${XDIST:+-n $XDIST} ${TEST_FILES:-test_gpu.py test_cases.py test_gpu_masked_garbage.py test_gpu_varlen.py} \
      > "$OUT/tests.txt" 2>&1)
    log "tests exit $?"; tail -4 "$OUT/tests.txt" ;;
  train)
    log "training check"
    timeout ${TRAIN_TIMEOUT:-120} python3 perf/train_check.py --out "$OUT" > "$OUT/train.txt" 2>&1
    log "train exit $?"; tail -6 "$OUT/train.txt" ;;
  tc)
    log "tensor_core preset"
    (cd /tmp && timeout ${TC_TIMEOUT:-120} python3 -m rocflash.perf --preset "$REPO/perf/presets/tensor_core.yaml" \
      --backends cuda flash cudnn --baseline sdpa-flash --time-limit-s "${TC_TIME_LIMIT_S:-90}" --no-progress \
      > "$OUT/tc.txt" 2>&1)
    log "tc exit $?"; grep -E "^--|rocflash-cuda|sdpa-flash" "$OUT/tc.txt" | tail -90 ;;
  sanitize)
    for tool in memcheck racecheck; do
      PYTORCH_NO_CUDA_MEMORY_CACHING=1 timeout ${SAN_TIMEOUT:-60} compute-sanitizer --tool $tool --error-exitcode 9 \
        python3 perf/sanitize_cases.py > "$OUT/san_$tool.txt" 2>&1
      log "$tool exit $?"; tail -2 "$OUT/san_$tool.txt"
    done ;;
  host)
    timeout 120 python3 perf/host_overhead.py --calls 200 2>&1 | tee "$OUT/host.txt" | head -45 ;;
  ncu)
    for v in ${NCU_VARIANTS:-}; do
      timeout 90 ncu --clock-control none -k regex:fmha_fwd_kernel -c 1 --section SpeedOfLight --section WarpStateStats \
        --section SchedulerStats --section ComputeWorkloadAnalysis --section InstructionStats --section Occupancy \
        --section LaunchStats --metrics "regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,smsp__inst_executed.sum" \
        "$BIN/mma_tiles_new" 4096 131072 16 "$v" 1 > "$OUT/ncu_$v.txt" 2>&1
      grep -E "Duration|Registers Per|Issue Slots Busy|Eligible Warps|Warp Cycles Per Issued|Achieved Occupancy|hmma|bank|inst_executed.sum" "$OUT/ncu_$v.txt" | head -12
      grep -E "issue_stalled" "$OUT/ncu_$v.txt" | sort -k3 -g -r | head -6
    done ;;
  esac
done
