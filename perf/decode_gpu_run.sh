#!/usr/bin/env bash
# One device call for the tensor-core split-KV decode kernel: build, the GPU inference tests under
# ROCFLASH_KERNEL=auto (tensor-core split kernel) and =vector, the decode benchmark (both kernels, same process),
# then compute-sanitizer memcheck on the varlen/paged cases if time is left. Results in $OUT.
set -uo pipefail
source perf/gpu_lib.sh
gpu_info
build_cuda
TESTS="test_gpu_inference.py test_gpu_varlen.py test_compile_inference.py"
log "ROCFLASH_KERNEL=auto pytest -m gpu $TESTS"
(cd tests && ROCFLASH_KERNEL=auto timeout ${TEST_TIMEOUT:-80} python3 -m pytest -q -m gpu -p no:cacheprovider --maxfail=10 \
   $TESTS > "$OUT/tests_auto.txt" 2>&1)
log "exit $?"; tail -12 "$OUT/tests_auto.txt" | tee -a "$OUT/summary.txt"
log "decode benchmark"
(cd /tmp && timeout ${BENCH_TIMEOUT:-120} python3 "$OLDPWD/perf/decode_bench.py" --budget-s ${BUDGET_S:-0.25} --no-varlen \
   --json "$OUT/bench.json" > "$OUT/bench.txt" 2>&1)
log "bench exit $?"
log "ROCFLASH_KERNEL=vector pytest -m gpu $TESTS"
(cd tests && ROCFLASH_KERNEL=vector timeout ${VTEST_TIMEOUT:-60} python3 -m pytest -q -m gpu -p no:cacheprovider --maxfail=10 \
   $TESTS > "$OUT/tests_vector.txt" 2>&1)
log "exit $?"; tail -6 "$OUT/tests_vector.txt" | tee -a "$OUT/summary.txt"
if [ $(( $(date +%s) - T0 )) -lt ${SAN_IF_BELOW_S:-230} ]; then
  log "compute-sanitizer memcheck python3 perf/sanitize_cases.py --seq-only"
  PYTORCH_NO_CUDA_MEMORY_CACHING=1 timeout ${SAN_TIMEOUT:-35} compute-sanitizer --tool memcheck --error-exitcode 9 \
    python3 perf/sanitize_cases.py --seq-only > "$OUT/sanitize.txt" 2>&1
  log "memcheck exit $?"; tail -3 "$OUT/sanitize.txt" | tee -a "$OUT/summary.txt"
fi
log done
cat "$OUT/bench.txt"
