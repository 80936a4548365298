#!/usr/bin/env bash
# One device call on nvidia-h200 for a merged tree whose kernel changes were verified on CPU only (the gfx906
# emulator, the ISA / ptxas audits): it builds once and runs, in priority order, each stage bounded so that the
# whole call ends before DEADLINE_S (default 585: the device tool's 600 s limit). Written for branch integ20 (eco12 +
# eco11 + tcws6 + dec6; RESULTS.md "integ20", where it ran as perf/integ20_gpu_run.sh), reused since.
#   1 build     ROCFLASH_BUILD=cuda TORCH_CUDA_ARCH_LIST=9.0a (sm_90a: the opt-in wgmma variants are built)
#   2 tests     perf/final_run.sh's test stage, per kernel mode in KERNELS (default "auto vector"): AUTO_FILES /
#               VECTOR_FILES (default: run P2's 16 / 9 files, test_gpu_score_overflow.py, and under auto
#               test_gpu_kvstep_fold.py, which skips where the split kernel keeps the step kernel)
#   3 memcheck  compute-sanitizer memcheck: perf/sanitize_cases.py --seq-only, and eco11's two overflow cases
#   4 scan      perf/fp32_class_scan.py --backend cuda (every autograd line must say ok)
#   5 fold      perf/decode_kernel_bench.py --variants fold (FOLD_STEP A/B in one process, bitwise check)
#   6 sdp       (removed in branch tc80 with the ROCFLASH_BWD_SDP_WGMMA kernel: logged as skipped if asked for)
#   7 helpers   each of HELPER_STAGES (scripts, e.g. "perf/eco13_stage.sh perf/dec9_stage.sh"), in order: a helper's
#               bounded GPU stage on the installed build, writing "$OUT/<name>.txt" itself; limit HELPER_S each
#               (default 120), or what is left
# STAGES (default "tests memcheck scan fold helpers") picks stages; DEBUG_TESTS (pytest node ids, auto mode, no
# xdist, long tracebacks into $OUT/debug.txt) runs right after the build. Stages past the deadline are skipped and
# logged as such. Results in $OUT: summary.txt setup.txt tests.txt memcheck.txt scan.txt fold.txt
# json.tar.gz and the helpers' files (the device tool brings back what is under $OUT).
#   cd <tree> && OUT=$OUT bash perf/merged_gpu_run.sh
set -uo pipefail
. "$(dirname "$0")/gpu_lib.sh"  # OUT, REPO, T0, log
DEADLINE_S=${DEADLINE_S:-585}
left() { echo $(( DEADLINE_S - ($(date +%s) - T0) )); }
# stage_limit WANT: WANT seconds, or what is left before the deadline (less 5 s); 0 when under 15 s are left
stage_limit() { local l=$(( $(left) - 5 )); [ "$l" -lt 15 ] && { echo 0; return; }; [ "$1" -lt "$l" ] && echo "$1" || echo "$l"; }

P2_AUTO="test_gpu.py test_gpu_backward.py test_gpu_masked_garbage.py test_gpu_varlen.py test_gpu_inference.py
test_gpu_host_path.py test_gpu_sbcast.py test_gpu_fuzz_layouts.py test_cases.py test_fuzz.py test_one_key_rows.py
test_compile_inference.py test_compile.py test_fp32_alibi_far_rows.py test_alibi_anchor_layouts.py test_build.py"
P2_VECTOR="test_gpu.py test_gpu_backward.py test_gpu_masked_garbage.py test_gpu_varlen.py test_gpu_inference.py
test_one_key_rows.py test_cases.py test_fp32_alibi_far_rows.py test_alibi_anchor_layouts.py"

export TORCH_CUDA_ARCH_LIST=${TORCH_CUDA_ARCH_LIST:-9.0a}
BUILD_TIMEOUT=$(stage_limit ${BUILD_TIMEOUT:-220}) bash "$REPO/perf/final_run.sh" build || { log "build failed"; exit 1; }

STAGES=${STAGES:-tests memcheck scan fold helpers}
want_stage() { case " $STAGES " in *" $1 "*) return 0;; esac; return 1; }
skipped() { if want_stage "$1"; then log "$1: SKIPPED (deadline)"; else log "$1: not in STAGES"; fi; }
if [ -n "${DEBUG_TESTS:-}" ]; then
  log "debug: pytest --tb=long $DEBUG_TESTS"
  (cd "$REPO/tests" && ROCFLASH_KERNEL=auto timeout "$(stage_limit 60)" python3 -m pytest -q -rfEs -m gpu -p no:cacheprovider \
    --tb=long $DEBUG_TESTS > "$OUT/debug.txt" 2>&1); log "debug exit $?: $(tail -1 "$OUT/debug.txt")"
fi

# the test stage of perf/final_run.sh, with a limit per kernel mode from the deadline (auto first: the default path)
AUTO_FILES=${AUTO_FILES:-$(echo $P2_AUTO) test_gpu_score_overflow.py test_gpu_kvstep_fold.py}
VECTOR_FILES=${VECTOR_FILES:-$(echo $P2_VECTOR) test_gpu_score_overflow.py}
want_stage tests || log "tests: not in STAGES"
want_stage tests && for kernel in ${KERNELS:-auto vector}; do
  if [ $kernel = auto ]; then files=$AUTO_FILES; want=${AUTO_TIMEOUT:-240}; else files=$VECTOR_FILES; want=${VECTOR_TIMEOUT:-130}; fi
  t=$(stage_limit "$want")
  if [ "$t" -eq 0 ]; then log "tests ($kernel): SKIPPED (deadline)"; continue; fi
  log "ROCFLASH_KERNEL=$kernel pytest -m gpu -n ${XDIST:-14} $files (limit $t s)"
  (cd "$REPO/tests" && ROCFLASH_KERNEL=$kernel timeout "$t" python3 -m pytest -q -rfEs -m gpu -p no:cacheprovider \
    --maxfail=30 -n "${XDIST:-14}" $files > /tmp/tests_$kernel.txt 2>&1)
  log "pytest ($kernel) exit $?"; tail -3 /tmp/tests_$kernel.txt | tee -a "$OUT/summary.txt"
  { echo "##### ROCFLASH_KERNEL=$kernel"; grep -E "FAILED|ERROR|SKIPPED|XPASS|passed|failed" /tmp/tests_$kernel.txt | tail -80; } >> "$OUT/tests.txt"
done

t=$(stage_limit 45)
if want_stage memcheck && [ "$t" -gt 0 ]; then
  log "memcheck: perf/sanitize_cases.py --seq-only; eco11's paged 3-split and dense fp32 fwd+bwd overflow cases"
  (cd "$REPO/tests" && PYTORCH_NO_CUDA_MEMORY_CACHING=1 timeout "$t" compute-sanitizer --tool memcheck --error-exitcode 9 \
    python3 "$REPO/perf/sanitize_cases.py" --seq-only > "$OUT/memcheck.txt" 2>&1; echo "exit $?" >> "$OUT/memcheck.txt"
   PYTORCH_NO_CUDA_MEMORY_CACHING=1 timeout "$(stage_limit 25)" compute-sanitizer --tool memcheck --error-exitcode 9 python3 -c "
import torch, test_score_overflow as t
t.run_kvcache('cuda', 'pos', torch.float16, 'cuda', sq=3, sk=700, h=8, hk=2, d=128, num_splits=3, page=16)
t.run_dense('cuda', 'sum', torch.float32, 'cuda', sq=70, sk=66, h=4, hk=2, d=128, grad=True)
print('eco11 memcheck cases ok')" >> "$OUT/memcheck.txt" 2>&1; echo "exit $?" >> "$OUT/memcheck.txt")
  log "memcheck: $(grep -E 'ERROR SUMMARY|^exit|cases ok' "$OUT/memcheck.txt" | tr '\n' ' ')"
else skipped memcheck; fi

t=$(stage_limit 40)
if want_stage scan && [ "$t" -gt 0 ]; then
  log "python3 perf/fp32_class_scan.py --backend cuda"
  (cd /tmp && timeout "$t" python3 "$REPO/perf/fp32_class_scan.py" --backend cuda > "$OUT/scan.txt" 2>&1; echo "exit $?" >> "$OUT/scan.txt")
  log "scan: $(grep -c '| ok$' "$OUT/scan.txt") lines ok, $(grep -c '| FAIL' "$OUT/scan.txt") FAIL, $(tail -1 "$OUT/scan.txt")"
else skipped scan; fi

t=$(stage_limit 50)
if want_stage fold && [ "$t" -gt 0 ]; then
  log "python3 perf/decode_kernel_bench.py --cases 1x4096,1x16384,8x16384 --variants fold --no-sweep --budget-s 0.03"
  (cd /tmp && timeout "$t" python3 "$REPO/perf/decode_kernel_bench.py" --cases 1x4096,1x16384,8x16384 --variants fold \
    --no-sweep --budget-s 0.03 --json /tmp/json/fold.json > "$OUT/fold.txt" 2>&1; echo "exit $?" >> "$OUT/fold.txt")
  log "fold: $(tail -1 "$OUT/fold.txt")"
else skipped fold; fi

if want_stage sdp; then log "sdp: the ROCFLASH_BWD_SDP_WGMMA kernel was removed in branch tc80"; fi

for script in ${HELPER_STAGES:-}; do
  t=$(stage_limit "${HELPER_S:-120}")
  if want_stage helpers && [ "$t" -gt 0 ]; then
    log "helper stage $script (limit $t s)"
    (cd "$REPO" && OUT=$OUT timeout "$t" bash "$script" > "/tmp/$(basename "$script").log" 2>&1)
    log "$script exit $?: $(tail -1 "/tmp/$(basename "$script").log")"
  else skipped helpers; fi
done

tar -czf "$OUT/json.tar.gz" -C /tmp json 2>/dev/null
log "done ($(left) s before the deadline)"
