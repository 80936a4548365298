#!/usr/bin/env bash
# dec14 stage (perf/final_1202_run.sh STAGE_SPECS="dec14_stage.sh:LIMIT"), on the installed full build:
#   1 compute-sanitizer memcheck and racecheck of perf/sanitize_cases.py --seq-only (the varlen / paged / KV-cache
#     boundary cases) -> $OUT/sanitize.txt
#   2 perf/decode_bench.py (BENCH_ARGS; default: the graph-of-layers section over the whole preset, the eager grid
#     with a 0.3 s budget per method and case, varlen prefill; no sweep) -> $OUT/bench.txt, $OUT/bench.json
#   3 perf/dec13_probe.py (PROBE_ARGS; default envs only) -> $OUT/probe.txt
set -uo pipefail
. "$(dirname "$0")/gpu_lib.sh"
LOG_FILE=$OUT/dec14.txt
for tool in memcheck racecheck; do
  (cd /tmp && PYTORCH_NO_CUDA_MEMORY_CACHING=1 timeout "${SAN_S:-70}" compute-sanitizer --tool $tool --error-exitcode 9 \
    python3 "$REPO/perf/sanitize_cases.py" --seq-only > /tmp/dec14_$tool.txt 2>&1)
  rc=$?
  { echo "##### compute-sanitizer --tool $tool perf/sanitize_cases.py --seq-only: exit $rc"; tail -6 /tmp/dec14_$tool.txt; } >> "$OUT/sanitize.txt"
  log "$tool exit $rc: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' /tmp/dec14_$tool.txt | tail -1)"
done
(cd /tmp && timeout "${BENCH_S:-200}" python3 "$REPO/perf/decode_bench.py" ${BENCH_ARGS:---budget-s 0.3 --no-sweep} \
  --json "$OUT/bench.json" > "$OUT/bench.txt" 2>&1)
log "decode_bench exit $?"
(cd /tmp && timeout "${PROBE_S:-90}" python3 "$REPO/perf/dec13_probe.py" ${PROBE_ARGS:---envs default} > "$OUT/probe.txt" 2>&1)
log "probe exit $?"
head -40 "$OUT/bench.txt" | cut -c1-200
