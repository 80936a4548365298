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
rest=${VARIANTS:-}
while [ -n "$rest" ]; do
  v=${rest%%@@*}; [ "$v" = "$rest" ] && rest="" || rest=${rest#*@@}
  name=${v%%|*}; v=${v#*|}; hdr=${v%%|*}; expr=${v#*|}
  cp "$REPO/hip_src/$hdr" "$W/hip_src/$hdr"
  sed -i "$expr" "$W/hip_src/$hdr"
  diff "$REPO/hip_src/$hdr" "$W/hip_src/$hdr" | head -8 | tee -a "$OUT/summary.txt"
  cmp -s "$REPO/hip_src/$hdr" "$W/hip_src/$hdr" && { log "variant $name: its edit matched nothing, skipped"; continue; }
  REPO=$W TORCH_CUDA_ARCH_LIST=9.0a BUILD_TIMEOUT=200 gpu_build "$OUT/setup_$name.txt" || { log "build $name failed"; continue; }
  probe "$name" ${VARIANT_ARGS:-}
  cp "$REPO/hip_src/$hdr" "$W/hip_src/$hdr"
done
