#!/usr/bin/env bash
# dec13 device call: a 9.0a build of the headdim-128 bf16 tables only (perf/subset_configs.py), perf/dec13_probe.py
# (PROBE_ARGS) on it, then per variant (VARIANTS: name|header|sed-expression, separated by @@; diagnostics only) a
# rebuild of the tree with that header edited and the probe again (VARIANT_ARGS).
#   OUT=$OUT bash perf/dec13_run.sh
set -uo pipefail
. "$(dirname "$0")/gpu_lib.sh"
W=/tmp/dec13_tree
TORCH_CUDA_ARCH_LIST=9.0a BUILD_TIMEOUT=${BUILD_TIMEOUT:-200} gpu_subset_build "$W" "$REPO" 128 bf16 "$OUT/setup.txt" || exit 1
probe() {  # name args...
  local name=$1; shift
  (cd /tmp && timeout "${PROBE_S:-240}" python3 "$REPO/perf/dec13_probe.py" "$@" > "$OUT/probe_$name.txt" 2>&1)
  log "probe $name exit $?"
  grep -E "DEC13|FAILED|Error|case" "$OUT/probe_$name.txt" | cut -c1-300
}
probe base ${PROBE_ARGS:-}
variant_probe() { probe "$1" ${VARIANT_ARGS:-}; }
run_variants "$W" "$OUT/summary.txt" variant_probe
