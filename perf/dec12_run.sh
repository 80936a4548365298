#!/usr/bin/env bash
# dec12 device call: a 9.0a build of the headdim-128 bf16 tables only (perf/subset_configs.py), then
# perf/dec12_probe.py (PROBE_PARTS, default layers,layout) and, when STAGE is set, that command in the build's tree.
#   OUT=$OUT bash perf/dec12_run.sh
set -uo pipefail
. "$(dirname "$0")/gpu_lib.sh"
W=/tmp/dec12_tree
if [ -z "${SKIP_BUILD:-}" ]; then
  TORCH_CUDA_ARCH_LIST=9.0a BUILD_TIMEOUT=${BUILD_TIMEOUT:-200} gpu_subset_build "$W" "$REPO" 128 bf16 "$OUT/setup.txt" || exit 1
  log "build done"
fi
(cd /tmp && timeout "${PROBE_S:-200}" python3 "$REPO/perf/dec12_probe.py" --out "$OUT" --parts "${PROBE_PARTS:-layers,layout}" > "$OUT/probe.txt" 2>&1)
log "probe exit $?"
grep -E "LAYERS|NODES|LAYOUT|part|FAILED|Error" "$OUT/probe.txt" | cut -c1-400
if [ -n "${STAGE:-}" ]; then (cd "$REPO" && timeout "${STAGE_S:-200}" bash -c "$STAGE" > "$OUT/stage.txt" 2>&1); log "stage exit $?"; tail -30 "$OUT/stage.txt"; fi
