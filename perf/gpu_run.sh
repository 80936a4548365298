#!/usr/bin/env bash
# One device call: build the CUDA version of hip_src/, run the GPU tests, compute-sanitizer on boundary cases,
# the real-model check, the perf tables and the training check. Results land in $OUT (the device tool) or
# ./gpu_out, at most 8 files:
#   setup.txt summary.txt | perf.json perf.txt roofline.png | fwd_bwd.json | train_check.csv train_check.png
# Usage: bash perf/gpu_run.sh [stage ...]   stages: build test fuzz sanitize model perf fwdbwd train tc cp
#        (default: build test fuzz sanitize model). fuzz: tests/test_fuzz.py through the compiled kernels
#        (FUZZ_EXAMPLES examples, default 600) and tests/test_compile.py's GPU ops/compile test.
#        PERF_TIME_LIMIT_S bounds the perf stage (default 300).
#        cp (>= 2 GPUs: context parallelism, cp.json cp.txt): CP_TIME_LIMIT_S bounds its speed part (default 180),
#        CP_TIMEOUT the whole stage (default 480).
set -uo pipefail
. "$(dirname "$0")/gpu_lib.sh"  # OUT, REPO, log, gpu_setup_info, gpu_build, run_cp_gpu
stages=${*:-build test fuzz sanitize model}
gpu_setup_info "$OUT/setup.txt"
for s in $stages; do case $s in
  build) gpu_build || exit 1 ;;
  test)  # once per forward tile math (ROCFLASH_KERNEL: auto = tensor cores on sm_80+, vector = the gfx906 logic)
    for kernel in ${TILE_MATHS:-auto vector}; do
      log "ROCFLASH_KERNEL=$kernel pytest -m gpu"
      (cd tests && ROCFLASH_KERNEL=$kernel python3 -m pytest -q -m gpu -p no:cacheprovider ${PYTEST_ARGS:-} ${GPU_TESTS:-test_gpu.py test_gpu_backward.py test_gpu_masked_garbage.py test_cases.py} 2>&1 | tail -40 | tee -a "$OUT/summary.txt")
      log "pytest exit ${PIPESTATUS[0]}"
    done ;;
  tc)  # forward speed of the tensor-core tile math beside SDPA flash and cuDNN (issue 12)
    log "python3 -m rocflash.perf --preset perf/presets/tensor_core.yaml --backends cuda flash cudnn --baseline sdpa-flash"
    (cd /tmp && python3 -m rocflash.perf --preset "$REPO/perf/presets/tensor_core.yaml" --backends cuda flash cudnn \
      --baseline sdpa-flash --time-limit-s "${TC_TIME_LIMIT_S:-200}" --json "$OUT/tensor_core.json" 2>&1 | tee "$OUT/tensor_core.txt" | tail -45) ;;
  fuzz)
    log "pytest -m gpu test_fuzz.py test_compile.py (CI=true ROCFLASH_FUZZ_EXAMPLES=${FUZZ_EXAMPLES:-600})"
    (cd tests && CI=true ROCFLASH_FUZZ_EXAMPLES=${FUZZ_EXAMPLES:-600} python3 -m pytest -q -m gpu -p no:cacheprovider test_fuzz.py test_compile.py 2>&1 | tail -40 | tee -a "$OUT/summary.txt")
    log "pytest exit ${PIPESTATUS[0]}" ;;
  sanitize)
    for tool in memcheck racecheck; do
      log "compute-sanitizer --tool $tool python3 perf/sanitize_cases.py"
      PYTORCH_NO_CUDA_MEMORY_CACHING=1 compute-sanitizer --tool $tool --error-exitcode 9 python3 perf/sanitize_cases.py > /tmp/san_$tool.txt 2>&1
      log "$tool exit $?"
      tail -3 /tmp/san_$tool.txt | tee -a "$OUT/summary.txt"
    done ;;
  model)
    log "python3 perf/minilm_gpu_check.py"
    python3 perf/minilm_gpu_check.py 2>&1 | tail -3 | tee -a "$OUT/summary.txt" ;;
  perf)
    log "python3 -m rocflash.perf --preset default,decode,train --time-limit-s ${PERF_TIME_LIMIT_S:-300}"
    (cd /tmp && python3 -m rocflash.perf --preset default,decode,train --time-limit-s "${PERF_TIME_LIMIT_S:-300}" \
      --json "$OUT/perf.json" --plot "$OUT/roofline.png" 2>&1 | tee "$OUT/perf.txt" | tail -60) ;;
  fwdbwd)
    log "python3 -m rocflash.perf --preset perf/presets/fwd_bwd.yaml --bwd"
    (cd /tmp && python3 -m rocflash.perf --preset "$REPO/perf/presets/fwd_bwd.yaml" --bwd --time-limit-s "${FWDBWD_TIME_LIMIT_S:-150}" \
      --json "$OUT/fwd_bwd.json" 2>&1 | tee -a "$OUT/summary.txt" | tail -40) ;;
  train)
    log "python3 perf/train_check.py"
    python3 perf/train_check.py --out "$OUT" 2>&1 | tee -a "$OUT/summary.txt" ;;
  cp)
    log "python3 perf/cp_gpu.py --time-limit-s ${CP_TIME_LIMIT_S:-180}"
    run_cp_gpu "${CP_TIMEOUT:-480}" --out "$OUT" --time-limit-s "${CP_TIME_LIMIT_S:-180}" 2>&1 | tail -40 | tee -a "$OUT/summary.txt"
    log "cp exit ${PIPESTATUS[0]}" ;;
esac; done
log done
