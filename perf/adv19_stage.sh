#!/usr/bin/env bash
# adv19 GPU stage (adversarial pass of issue 12's tensor-core forward / backward and issue 9's decode / KV cache), on a
# device where the tree is already built and installed (the lead's merged-tree build). From the tree root:
#   OUT=<dir> bash perf/adv19_stage.sh [LIMIT_S]   -> $OUT/adv19.txt, last line "adv19: pass" or "adv19: fail (...)"
# LIMIT_S (default: HELPER_S, else 100) bounds the whole stage. Steps, each under its own timeout:
#   1. tests/test_gpu_adv19.py and test_gpu_adv19_kvcache.py under the default tile math (ROCFLASH_KERNEL=auto: tensor
#      cores on sm_80+), pytest -n XDIST (default 14), about 2/3 of the limit;
#   2. the same files' forward, garbage, decode and KV-cache cases under ROCFLASH_KERNEL=vector (the gfx906 logic), the rest.
# The file lists the FAILED / ERROR lines (-rfE, up to 60) and up to 40 of the tracebacks' E lines per step.
set -uo pipefail
: "${OUT:?set OUT}"
LIMIT=${1:-${HELPER_S:-100}}
T0=$(date +%s)
left() { echo $(( LIMIT - ($(date +%s) - T0) )); }
R="$OUT/adv19.txt"
N=${XDIST:-14}
cd "$(dirname "$0")/.."
{ echo "adv19 stage, $(date -u +%FT%TZ), tree $(git rev-parse --short HEAD 2>/dev/null || echo '?'), limit $LIMIT s"; } > "$R"
T=$(( $(left) * 2 / 3 ))
(cd tests && timeout "$T" python3 -m pytest -q -m gpu -rfE -p no:cacheprovider -n "$N" --tb=short test_gpu_adv19.py test_gpu_adv19_kvcache.py \
  > "$OUT/.adv19_auto.txt" 2>&1; echo "exit $?" >> "$OUT/.adv19_auto.txt")
T=$(( $(left) - 3 ))
if [ "$T" -gt 10 ]; then
  (cd tests && ROCFLASH_KERNEL=vector timeout "$T" python3 -m pytest -q -m gpu -rfE -p no:cacheprovider -n "$N" \
    --tb=short test_gpu_adv19.py test_gpu_adv19_kvcache.py -k "fwd_padded or seqlen_pairs or garbage or decode or paged or cache" \
    > "$OUT/.adv19_vector.txt" 2>&1; echo "exit $?" >> "$OUT/.adv19_vector.txt")
else
  echo "exit skipped (no time left)" > "$OUT/.adv19_vector.txt"
fi
verdict=pass; why=""
for part in auto vector; do
  f="$OUT/.adv19_$part.txt"
  { echo "== $part"; grep -E "^(FAILED|ERROR)" "$f" | head -60; grep -E "^E  " "$f" | head -40; tail -3 "$f"; } >> "$R"
  grep -q "^exit 0$" "$f" || { verdict=fail; why="$why $part:$(tail -1 "$f")"; }
done
rm -f "$OUT"/.adv19_*.txt
if [ "$verdict" = pass ]; then echo "adv19: pass" | tee -a "$R"; else echo "adv19: fail ($why)" | tee -a "$R"; fi
