#!/usr/bin/env bash
# dec9's own device calls (branch dec9 carried as .wt/dec9): build this tree for sm_90a, then the stage.
#   cd .wt/dec9 && OUT=$OUT DEC9_CALL=1 bash perf/dec9_run.sh     (call 1: profile + variant bench, no tests)
#   cd .wt/dec9 && OUT=$OUT DEC9_CALL=2 bash perf/dec9_run.sh     (call 2: tests, memcheck, bench: perf/dec9_stage.sh)
# DEADLINE_S (default 255): the whole call. Everything under $OUT in one archive (dec9.tar.gz) + summary.txt.
set -uo pipefail
. "$(dirname "$0")/gpu_lib.sh"  # OUT, REPO, T0, log, gpu_build
DEADLINE_S=${DEADLINE_S:-255}  # call 2: DEADLINE_S=320
left() { echo $(( DEADLINE_S - ($(date +%s) - T0) )); }
gpu_info
BUILD_TIMEOUT=${BUILD_TIMEOUT:-230} TORCH_CUDA_ARCH_LIST=9.0a gpu_build "$OUT/setup.txt" || { tail -30 "$OUT/setup.txt"; exit 1; }
if [ "${DEC9_CALL:-1}" = 1 ]; then
  T=$(( $(left) - 8 ))
  log "perf/dec9_stage.py (limit $T s)"
  (cd /tmp && timeout "$T" python3 "$REPO/perf/dec9_stage.py" --sweep --cases 1x4096,1x16384,1x131072,8x16384,32x16384 \
    --variants base,inflight1,fill,pdl,inflight1+pdl --deadline-s $(( T * 2 / 3 )) --json "$OUT/dec9_call1.json" > "$OUT/dec9_call1.txt" 2>&1)
  log "exit $?"
  F="$OUT/dec9_call1.txt"
else
  T=$(( $(left) - 8 ))
  log "perf/dec9_stage.sh $T"
  (cd "$REPO" && OUT=$OUT bash perf/dec9_stage.sh "$T" > /tmp/dec9_stage.log 2>&1)
  log "exit $?"
  F="$OUT/dec9.txt"
fi
grep -E "^PROFILE|graph:|eager:|floor|^BENCH|GB/s|VERDICT|SUMMARY|check:.*False|Traceback|Error|passed|failed|ERROR SUMMARY|^#####|^dec9:" "$F" | cut -c1-900 | tail -90
(cd "$OUT" && tar -czf /tmp/dec9.tar.gz --exclude=summary.txt . && find . -mindepth 1 ! -name summary.txt -delete \
  && mv /tmp/dec9.tar.gz "$OUT/dec9.tar.gz")
