#!/usr/bin/env bash
# One device call for issue 9's host-path and decode targets (branch dec4), most important first: build; the GPU
# tests of the host path, inference, varlen, layout fuzz and compiled inference (ROCFLASH_KERNEL=auto, XDIST
# workers); compute-sanitizer memcheck on the varlen / paged / KV-cache cases (perf/sanitize_cases.py --seq-only,
# public varlen calls with the check kernel included); perf/host_overhead.py; the decode and decode-paged presets
# beside SDPA flash and cuDNN; perf/host_breakdown.py (host primitives, stubbed launches, cProfile; varlen prefill
# vs the dense call); the host path and inference tests under ROCFLASH_KERNEL=vector. Results in $OUT (8 files): summary.txt tests_auto.txt tests_vector.txt
# sanitize.txt host.txt breakdown.txt perf.txt perf.json
# Options (dec5): SAN_PARALLEL=1 runs the memcheck beside the auto tests (one GPU, less wall time); KBENCH_CASES=BxS,...
# adds perf/decode_kernel_bench.py --variants pdl on those points (CUDA graphs with programmatic dependent launches
# on / off, the public KV-cache call) after the presets, its output appended to perf.txt; VTEST_TIMEOUT=0 skips the
# vector tests; BREAK_ARGS=--no-host keeps only the varlen prefill part of perf/host_breakdown.py.
# Options (dec6): KBENCH_VARIANTS (default pdl) picks the kernel bench's switch columns (fold: the KV-cache step
# folded into the split kernel vs the step kernel, tests/test_gpu_kvstep_fold.py joins the auto tests);
# BREAK_TIMEOUT=0 skips perf/host_breakdown.py.
set -uo pipefail
source perf/gpu_lib.sh
ROOT=$PWD
gpu_info
build_cuda
sanitize() {
  log "compute-sanitizer memcheck python3 perf/sanitize_cases.py --seq-only"
  PYTORCH_NO_CUDA_MEMORY_CACHING=1 timeout "${SAN_TIMEOUT:-40}" compute-sanitizer --tool memcheck --error-exitcode 9 \
    python3 perf/sanitize_cases.py --seq-only > "$OUT/sanitize.txt" 2>&1
  log "memcheck exit $?"; tail -3 "$OUT/sanitize.txt" | tee -a "$OUT/summary.txt"
}
[ "${SAN_PARALLEL:-0}" = 1 ] && { sanitize & san_pid=$!; }
gpu_pytest tests_auto "${TEST_TIMEOUT:-90}" ${XDIST:+-n $XDIST} test_gpu_host_path.py test_gpu_inference.py \
  test_gpu_varlen.py test_gpu_fuzz_layouts.py test_compile_inference.py test_gpu_kvstep_fold.py
if [ "${SAN_PARALLEL:-0}" = 1 ]; then wait "$san_pid"; else sanitize; fi
(cd /tmp && timeout "${HOST_TIMEOUT:-40}" python3 "$ROOT/perf/host_overhead.py" --calls "${CALLS:-60}" > "$OUT/host.txt" 2>&1)
log "host overhead exit $?"
(cd /tmp && timeout "${PERF_TIMEOUT:-70}" python3 -m rocflash.perf --preset decode,decode-paged --backends cuda flash cudnn \
   --baseline sdpa-cudnn --budget-s "${BUDGET_S:-0.05}" --time-limit-s "${PERF_LIMIT:-60}" --json "$OUT/perf.json" \
   --no-progress > "$OUT/perf.txt" 2>&1)
log "perf exit $?"
if [ -n "${KBENCH_CASES:-}" ]; then
  log "python3 perf/decode_kernel_bench.py --cases $KBENCH_CASES --variants ${KBENCH_VARIANTS:-pdl} --no-sweep >> perf.txt"
  (cd /tmp && timeout "${KBENCH_TIMEOUT:-60}" python3 "$ROOT/perf/decode_kernel_bench.py" --cases "$KBENCH_CASES" \
    --variants "${KBENCH_VARIANTS:-pdl}" --no-sweep --budget-s "${KBENCH_BUDGET_S:-0.05}" --json "$OUT/kbench.json" \
    >> "$OUT/perf.txt" 2>&1)
  log "kernel bench exit $?"
fi
if [ "${BREAK_TIMEOUT:-40}" != 0 ]; then
  (cd /tmp && timeout "${BREAK_TIMEOUT:-40}" python3 "$ROOT/perf/host_breakdown.py" --calls "${BREAK_CALLS:-2000}" \
    ${BREAK_ARGS:-} > "$OUT/breakdown.txt" 2>&1)
  log "host breakdown exit $?"
fi
if [ -n "${NCU_CASE:-}" ]; then  # (dec6) Nsight Compute: the split-KV + combine kernels beside cuDNN's, one decode step
  log "ncu python3 perf/decode_ncu.py --case $NCU_CASE -> ncu.txt"
  (cd /tmp && timeout "${NCU_TIMEOUT:-60}" ncu --clock-control none --section SpeedOfLight --section MemoryWorkloadAnalysis \
    --section Occupancy --section WarpStateStats --section LaunchStats -k "regex:splitkv|cudnn|sdpa|fmha|flash|attn" \
    -c "${NCU_COUNT:-8}" python3 "$ROOT/perf/decode_ncu.py" --case "$NCU_CASE" > "$OUT/ncu.txt" 2>&1)
  log "ncu exit $?"
  grep -E "^  [a-zA-Z_].*\(|Duration|DRAM Throughput|Memory Throughput|Achieved Occupancy|Registers Per|Block Size|Grid Size" \
    "$OUT/ncu.txt" | head -60 | tee -a "$OUT/summary.txt"
fi
[ "${VTEST_TIMEOUT:-40}" != 0 ] && (export ROCFLASH_KERNEL=vector; gpu_pytest tests_vector "${VTEST_TIMEOUT:-40}" \
  ${XDIST:+-n $XDIST} test_gpu_host_path.py test_gpu_inference.py)
log done
cat "$OUT/host.txt" "$OUT/perf.txt" "$OUT/breakdown.txt" 2>/dev/null
