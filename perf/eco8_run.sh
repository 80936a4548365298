#!/bin/bash
# perf/eco8_run.sh - one device call (NVIDIA H200) for issue 8's last items, branch eco8. Stages:
#   build      ROCFLASH_BUILD=cuda TORCH_CUDA_ARCH_LIST=9.0 pip install (this tree)
#   test       ROCFLASH_KERNEL=auto, then =vector: pytest -m gpu test_one_key_rows.py (one-key rows exact: the new
#              preprocesses), test_fuzz.py -k gpu (incl. D from the fp32 O), test_gpu_fuzz_layouts.py (varlen,
#              paged, KV cache; ROCFLASH_FUZZ_EXAMPLES, default here 25)
#   boundary   python -m rocflash.perf --preset perf/presets/boundary_tiles.yaml, forward and --bwd, rocflash-cuda,
#              rocflash-cuda-vector and SDPA flash in one process each
#   breakdown  perf/bwd_breakdown.py (b4 h16 s4096 d128 bf16): preprocess time vs the gradient kernels, atomic
#              and deterministic dQ on the tensor cores, and the vector tile math
# Writes under $OUT (or ./eco8_out).
set -u
OUT=${OUT:-eco8_out}; mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
REPO=$(pwd)
stages=${*:-build test boundary breakdown}
log() { echo "[$(date +%T)] $*" | tee -a "$OUT/summary.txt"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >> "$OUT/summary.txt"
for stage in $stages; do
  case $stage in
  build)
    start=$(date +%s)
    ROCFLASH_BUILD=cuda TORCH_CUDA_ARCH_LIST=9.0 timeout ${BUILD_TIMEOUT:-150} python3 -m pip install -q \
      --no-build-isolation --no-deps . > "$OUT/build.txt" 2>&1 || { log "BUILD FAILED"; tail -30 "$OUT/build.txt"; exit 1; }
    log "build took $(( $(date +%s) - start )) s" ;;
  test)
    for kernel in auto vector; do
      (cd tests && ROCFLASH_KERNEL=$kernel ROCFLASH_FUZZ_EXAMPLES=${FUZZ_EXAMPLES:-25} timeout ${TEST_TIMEOUT:-60} \
        python3 -m pytest -m gpu -q -p no:cacheprovider -rs --maxfail=20 test_one_key_rows.py test_gpu_fuzz_layouts.py \
        test_fuzz.py -k "gpu" > "$OUT/tests_$kernel.txt" 2>&1)
      log "pytest ($kernel) exit $?: $(tail -1 "$OUT/tests_$kernel.txt")"
    done ;;
  boundary)
    for mode in "" --bwd; do
      log "python -m rocflash.perf --preset perf/presets/boundary_tiles.yaml $mode --backends cuda cuda-vector flash"
      (cd /tmp && timeout ${BENCH_TIMEOUT:-45} python3 -m rocflash.perf --preset "$REPO/perf/presets/boundary_tiles.yaml" \
        $mode --backends cuda cuda-vector flash --baseline sdpa-flash --budget-s 0.3 --time-limit-s ${BENCH_LIMIT_S:-35} --no-progress \
        >> "$OUT/boundary.txt" 2>&1)
      log "perf $mode exit $?"
    done ;;
  breakdown)
    for run in ${BREAKDOWN_RUNS:-auto auto,--deterministic vector}; do
      run=${run/,/ }
      set -- $run
      echo "##### ROCFLASH_KERNEL=$run" >> "$OUT/breakdown.txt"
      ROCFLASH_KERNEL=$1 timeout ${BREAKDOWN_TIMEOUT:-40} python3 perf/bwd_breakdown.py --headdim 128 --repeats 3 ${2:-} >> "$OUT/breakdown.txt" 2>&1
    done
    log "breakdown done" ;;
  esac
done
