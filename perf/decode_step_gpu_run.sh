#!/usr/bin/env bash
# One device call for the KV-cache decode step as one C++ call (issue 9; hip_src/fmha_kvstep.h,
# rocflash/kvcache_fast.py): build; the GPU tests of the host path, inference, varlen and compiled inference under
# ROCFLASH_KERNEL=auto (MORE_TESTS: more files, e.g. test_compile_inference.py), the host path and inference again under =vector (the split kernels share the bad-index
# epilogue); compute-sanitizer memcheck on the varlen / paged / KV-cache fast-path cases; perf/host_overhead.py;
# the decode and decode-paged presets beside SDPA flash and cuDNN. Results in $OUT (8 files at most):
# summary.txt tests_auto.txt tests_vector.txt sanitize.txt host.txt host.json perf.txt perf.json
set -uo pipefail
source perf/gpu_lib.sh
ROOT=$PWD
gpu_info
build_cuda
gpu_pytest tests_auto "${TEST_TIMEOUT:-75}" test_gpu_host_path.py test_gpu_inference.py test_gpu_varlen.py ${MORE_TESTS:-}
(export ROCFLASH_KERNEL=vector; gpu_pytest tests_vector "${VTEST_TIMEOUT:-30}" test_gpu_host_path.py test_gpu_inference.py)
log "compute-sanitizer memcheck python3 perf/sanitize_cases.py --seq-only"
PYTORCH_NO_CUDA_MEMORY_CACHING=1 timeout "${SAN_TIMEOUT:-40}" compute-sanitizer --tool memcheck --error-exitcode 9 \
  python3 perf/sanitize_cases.py --seq-only > "$OUT/sanitize.txt" 2>&1
log "memcheck exit $?"; tail -3 "$OUT/sanitize.txt" | tee -a "$OUT/summary.txt"
(cd /tmp && timeout "${HOST_TIMEOUT:-40}" python3 "$ROOT/perf/host_overhead.py" --calls "${CALLS:-60}" \
   --json "$OUT/host.json" > "$OUT/host.txt" 2>&1)
log "host overhead exit $?"
(cd /tmp && timeout "${PERF_TIMEOUT:-70}" python3 -m rocflash.perf --preset decode,decode-paged --backends cuda flash cudnn \
   --baseline sdpa-cudnn --budget-s "${BUDGET_S:-0.05}" --time-limit-s "${PERF_LIMIT:-60}" --json "$OUT/perf.json" \
   --no-progress > "$OUT/perf.txt" 2>&1)
log "perf exit $?"
log done
cat "$OUT/host.txt" "$OUT/perf.txt"
