#!/usr/bin/env bash
# dec13 stage (perf/final_1202_run.sh STAGE_SPECS="dec13_stage.sh:LIMIT"), on the installed full build:
#   1 compute-sanitizer memcheck and racecheck of perf/sanitize_cases.py --seq-only (the varlen / paged / KV-cache
#     boundary cases) -> $OUT/sanitize.txt
#   2 perf/dec13_probe.py (PROBE_ARGS) -> $OUT/probe_base.txt
#   3 the same tree without the speculative first copies (speculate_first_tiles compiled out: a 9.0a build of the
#     headdim-128 bf16 tables, perf/subset_configs.py) and the probe again (NOSPEC_ARGS) -> $OUT/probe_nospec.txt
set -uo pipefail
. "$(dirname "$0")/gpu_lib.sh"
LOG_FILE=$OUT/dec13.txt
for tool in memcheck racecheck; do
  (cd /tmp && PYTORCH_NO_CUDA_MEMORY_CACHING=1 timeout "${SAN_S:-70}" compute-sanitizer --tool $tool --error-exitcode 9 \
    python3 "$REPO/perf/sanitize_cases.py" --seq-only > /tmp/dec13_$tool.txt 2>&1)
  rc=$?
  { echo "##### compute-sanitizer --tool $tool perf/sanitize_cases.py --seq-only: exit $rc"; tail -6 /tmp/dec13_$tool.txt; } >> "$OUT/sanitize.txt"
  log "$tool exit $rc: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' /tmp/dec13_$tool.txt | tail -1)"
done
(cd /tmp && timeout "${PROBE_S:-120}" python3 "$REPO/perf/dec13_probe.py" ${PROBE_ARGS:-} > "$OUT/probe_base.txt" 2>&1)
log "probe base exit $?"
W=/tmp/dec13_nospec
rm -rf "$W" && mkdir -p "$W" && (cd "$REPO" && tar --exclude=./.wt --exclude=./.git -cf - .) | (cd "$W" && tar -xf -)
# (calls 3 and 4 of dec13 ran this stage with a pattern of call 2's tree that no longer matched: their "nospec" build
# was the same code; an edit that changes nothing now stops the stage)
apply_variant "$W" fmha_splitkv_mma.h \
  's/if constexpr (kPlainKernel) spec = Plain::speculate_first_tiles(/if constexpr (false) spec = Plain::speculate_first_tiles(/' \
  "$LOG_FILE" || { log "NOSPEC EDIT MATCHED NOTHING: no variant built"; exit 1; }
python3 "$REPO/perf/subset_configs.py" --headdims 128 --dtypes bf16 "$W" >> "$LOG_FILE" 2>&1
REPO=$W TORCH_CUDA_ARCH_LIST=9.0a BUILD_TIMEOUT=200 gpu_build "$OUT/setup_nospec.txt" || exit 1
(cd /tmp && timeout "${PROBE_S:-120}" python3 "$REPO/perf/dec13_probe.py" ${NOSPEC_ARGS:-} > "$OUT/probe_nospec.txt" 2>&1)
log "probe nospec exit $?"
grep -h "DEC13" "$OUT/probe_base.txt" "$OUT/probe_nospec.txt" | grep "/default" | cut -c1-150
