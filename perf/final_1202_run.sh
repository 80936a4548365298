#!/usr/bin/env bash
# The lead's one device call of 2026-12-01/02 (stop 22): build, the GPU files of the session's kernel changes under
# ROCFLASH_KERNEL=auto, then the helpers' stages with their own limits, all before DEADLINE_S (default 505 s):
#   eco15 (fp32 backward from an LSE), eco16 (fp32 softcap score from the fp64 sum), fwdbwd (issue 12: memcheck of the
#   lean atomic-dQ kernel, the fwd_bwd table against SDPA flash, the training check), dec9 (split-KV defaults; dec8's stage was removed by dec9).
#   cd <tree> && OUT=$OUT bash perf/final_1202_run.sh
set -uo pipefail
. "$(dirname "$0")/gpu_lib.sh"  # OUT, REPO, T0, log
DEADLINE_S=${DEADLINE_S:-505}
left() { echo $(( DEADLINE_S - ($(date +%s) - T0) )); }
lim() { local l=$(( $(left) - 5 )); [ "$l" -lt 15 ] && { echo 0; return; }; [ "$1" -lt "$l" ] && echo "$1" || echo "$l"; }
OUT=$OUT DEADLINE_S=$(( 150 + ${AUTO_TIMEOUT:-100} + 15 )) BUILD_TIMEOUT=200 STAGES="tests" KERNELS=auto \
  AUTO_TIMEOUT=${AUTO_TIMEOUT:-100} DEBUG_TESTS="${DEBUG_TESTS:-}" AUTO_FILES="${AUTO_FILES:-test_gpu_backward.py \
  test_gpu_masked_garbage.py test_gpu_varlen.py test_fp32_alibi_far_rows.py test_gpu_overflow_parameters.py \
  test_gpu_splitkv_dec8.py test_gpu_inference.py test_gpu_score_overflow.py}" bash "$REPO/perf/merged_gpu_run.sh" \
  || { log "merged_gpu_run failed ($?)"; }
for spec in ${STAGE_SPECS:-eco15_stage.sh:50 eco16_stage.sh:45 fwdbwd_stage.sh:160 dec9_stage.sh:200}; do
  script=${spec%%:*}; want=${spec##*:}; t=$(lim "$want")
  [ -f "$REPO/perf/$script" ] || { log "$script: missing"; continue; }
  if [ "$t" -eq 0 ]; then log "$script: SKIPPED (deadline)"; continue; fi
  log "stage $script (limit $t s)"
  (cd "$REPO" && OUT=$OUT HELPER_S=$t DEC8_LIMIT_S=$t DEC8_NCU_S=0 timeout "$t" bash "perf/$script" $t > "/tmp/$script.log" 2>&1)
  log "$script exit $?: $(tail -1 "/tmp/$script.log")"
done
log "done ($(left) s before the deadline)"
for f in tests.txt debug.txt fwdbwd.txt eco15.txt eco16.txt adv19.txt tc12.txt; do  # the reply's output tail: the key lines
  [ -f "$OUT/$f" ] && { echo "##### $f"; grep -E "FAILED|ERROR|passed|failed|exit|verdict|VERDICT|pass|fail|x$|ms|PASS|FAIL" "$OUT/$f" | tail -40; }
done
[ -f "$OUT/dec9.txt" ] && { echo "##### dec9.txt"; tail -25 "$OUT/dec9.txt"; }
# the device tool brings back at most 8 files: everything in one archive, the summary beside it
(cd "$OUT" && tar -czf /tmp/final_1202.tar.gz --exclude=summary.txt . && find . -mindepth 1 ! -name summary.txt -delete \
  && mv /tmp/final_1202.tar.gz "$OUT/final_1202.tar.gz")
