#!/usr/bin/env bash
# One device call for the split-KV decode kernel work (branch decode2): build; the GPU inference tests with the
# fused combine on (ROCFLASH_SPLITKV_FUSED_COMBINE=1), then with this build's defaults, then ROCFLASH_KERNEL=vector
# (varlen file only); the kernel benchmark (perf/decode_kernel_bench.py: graphs, SDPA flash/cuDNN, variants,
# split sweep); compute-sanitizer memcheck on the varlen/paged cases with the fused combine. Results in $OUT.
set -uo pipefail
source perf/gpu_lib.sh
gpu_info
build_cuda
TESTS="test_gpu_varlen.py test_gpu_inference.py test_compile_inference.py"
log "FUSED=1 ROCFLASH_KERNEL=auto pytest -m gpu $TESTS"
(cd tests && ROCFLASH_SPLITKV_FUSED_COMBINE=1 ROCFLASH_KERNEL=auto timeout ${TEST_TIMEOUT:-50} python3 -m pytest -q -m gpu \
   -p no:cacheprovider --maxfail=10 $TESTS > "$OUT/tests_fused.txt" 2>&1)
log "exit $?"; tail -8 "$OUT/tests_fused.txt" | tee -a "$OUT/summary.txt"
log "decode kernel benchmark"
(cd /tmp && timeout ${BENCH_TIMEOUT:-110} python3 "$OLDPWD/perf/decode_kernel_bench.py" --budget-s ${BUDGET_S:-0.15} \
   --json "$OUT/bench.json" > "$OUT/bench.txt" 2>&1)
log "bench exit $?"
log "defaults, ROCFLASH_KERNEL=auto pytest -m gpu test_gpu_varlen.py test_gpu_inference.py"
(cd tests && ROCFLASH_KERNEL=auto timeout ${TEST_TIMEOUT2:-35} python3 -m pytest -q -m gpu -p no:cacheprovider --maxfail=10 \
   test_gpu_varlen.py test_gpu_inference.py > "$OUT/tests_auto.txt" 2>&1)
log "exit $?"; tail -4 "$OUT/tests_auto.txt" | tee -a "$OUT/summary.txt"
log "FUSED=1 compute-sanitizer memcheck python3 perf/sanitize_cases.py --seq-only"
ROCFLASH_SPLITKV_FUSED_COMBINE=1 PYTORCH_NO_CUDA_MEMORY_CACHING=1 timeout ${SAN_TIMEOUT:-40} compute-sanitizer --tool memcheck \
  --error-exitcode 9 python3 perf/sanitize_cases.py --seq-only > "$OUT/sanitize.txt" 2>&1
log "memcheck exit $?"; tail -3 "$OUT/sanitize.txt" | tee -a "$OUT/summary.txt"
log "ROCFLASH_KERNEL=vector pytest -m gpu test_gpu_varlen.py"
(cd tests && ROCFLASH_KERNEL=vector timeout ${VTEST_TIMEOUT:-30} python3 -m pytest -q -m gpu -p no:cacheprovider --maxfail=10 \
   test_gpu_varlen.py > "$OUT/tests_vector.txt" 2>&1)
log "exit $?"; tail -4 "$OUT/tests_vector.txt" | tee -a "$OUT/summary.txt"
log done
cat "$OUT/bench.txt"
