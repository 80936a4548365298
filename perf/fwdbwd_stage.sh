#!/usr/bin/env bash
# Issue 12 item 5 / 6 stage for a merged-tree device call (rocflash ALREADY built and installed for CUDA), from the
# tree root:   OUT=$OUT [HELPER_S=170] bash perf/fwdbwd_stage.sh      -> $OUT/fwdbwd.txt, $OUT/fwdbwd.json
# Steps, each bounded, all within HELPER_S (default 170):
#   1 memcheck  compute-sanitizer memcheck of perf/tcbwd2_memcheck.py (the default atomic-dQ kernel: since tcbwd8 the
#               lean one; boundary shapes, GQA, causal, NaN in a K row no query sees), limit 40 s
#   2 table     python -m rocflash.perf --preset perf/presets/fwd_bwd.yaml --bwd --backends cuda flash
#               --baseline sdpa-flash (bf16, 4k and 16k, headdim 64 / 128, causal and not; same process), the rest
#               less 35 s
#   3 train     perf/train_check.py (the tensor-core forward and backward against SDPA's loss curve), 30 s
# The last line is "fwdbwd: memcheck <exit> table <exit> train <PASS|FAIL|...>".
set -uo pipefail
: "${OUT:?set OUT}"
mkdir -p "$OUT"
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
F="$OUT/fwdbwd.txt"
BUDGET=${HELPER_S:-170}
T0=$(date +%s)
export PYTHONUNBUFFERED=1
left() { echo $(( BUDGET - ($(date +%s) - T0) )); }
lim() { local l; l=$(left); [ "$1" -lt "$l" ] && echo "$1" || echo $(( l > 5 ? l - 5 : 0 )); }
: > "$F"
echo "fwdbwd stage $(date -u +%FT%TZ), limit $BUDGET s" >> "$F"
(cd /tmp && PYTORCH_NO_CUDA_MEMORY_CACHING=1 timeout "$(lim 40)" compute-sanitizer --tool memcheck --error-exitcode 9 \
  python3 "$REPO/perf/tcbwd2_memcheck.py" >> "$F" 2>&1); mc=$?
echo "memcheck exit $mc" >> "$F"
t=$(( $(left) - 35 ))
(cd /tmp && timeout "$(( t > 20 ? t : 20 ))" python3 -m rocflash.perf --preset "$REPO/perf/presets/fwd_bwd.yaml" --bwd \
  --backends cuda flash --baseline sdpa-flash --warmup 3 --repeats 10 --budget-s 0.3 --time-limit-s "$(( t > 30 ? t - 10 : 20 ))" --no-progress \
  --json "$OUT/fwdbwd.json" >> "$F" 2>&1); tb=$?
echo "table exit $tb" >> "$F"
(cd /tmp && timeout "$(lim 30)" python3 "$REPO/perf/train_check.py" --out /tmp/train_check > /tmp/train_check.log 2>&1); tr=$?
cat /tmp/train_check.log >> "$F"
verdict=$(grep -Eo "PASS|FAIL" /tmp/train_check.log | tail -1)
echo "fwdbwd: memcheck $mc table $tb train ${verdict:-exit $tr}" | tee -a "$F"
