#!/usr/bin/env bash
# eco14 GPU stage (issue 8, adv16's last defects: the fp32 forward's score scaled before its rounding, ALiBi's anchor
# split in the split-KV kernels, the split combine from (m_s, l_s)), on a device where the tree is already built and
# installed (the lead's merged-tree build). From the tree root:
#   OUT=<dir> bash perf/eco14_stage.sh [LIMIT_S]   -> $OUT/eco14.txt, last line "eco14: pass" or "eco14: fail (...)"
# LIMIT_S (default: HELPER_S, else 90) bounds the whole stage. Steps, each under its own timeout:
#   1. tests/test_gpu_overflow_parameters.py (its fixture runs every case under ROCFLASH_KERNEL=auto and vector) +
#      tests/test_gpu_score_overflow.py -k "kvcache or decode" (the combine's overflow marker, changed) under auto
#   2. the same score-overflow subset under ROCFLASH_KERNEL=vector, and tests/test_gpu_inference.py -k "kvcache or paged or pdl or speculative or padded" (decode through the split kernels)
#   3. python3 perf/eco14_decode_time.py: the changed split-KV kernels' decode time (graphs) and error, printed
set -uo pipefail
: "${OUT:?set OUT}"
LIMIT=${1:-${HELPER_S:-90}}
T0=$(date +%s)
left() { echo $(( LIMIT - ($(date +%s) - T0) )); }
R="$OUT/eco14.txt"
cd "$(dirname "$0")/.."
{ echo "eco14 stage, $(date -u +%FT%TZ), tree $(git rev-parse --short HEAD 2>/dev/null || echo '?'), limit $LIMIT s"; } > "$R"
T=$(( $(left) * 2 / 5 ))
(cd tests && ROCFLASH_KERNEL=auto timeout "$T" python3 -m pytest -q -m gpu -rfE -p no:cacheprovider \
  test_gpu_overflow_parameters.py "test_gpu_score_overflow.py" -k "not score_overflow or kvcache or decode" \
  > "$OUT/.eco14_auto.txt" 2>&1; echo "exit $?" >> "$OUT/.eco14_auto.txt") &
(cd tests && ROCFLASH_KERNEL=vector timeout "$T" python3 -m pytest -q -m gpu -rfE -p no:cacheprovider \
  test_gpu_score_overflow.py -k "kvcache or decode" > "$OUT/.eco14_vector.txt" 2>&1; \
  echo "exit $?" >> "$OUT/.eco14_vector.txt") &
wait
T=$(( $(left) / 2 ))
(cd tests && timeout "$T" python3 -m pytest -q -m gpu -rfE -p no:cacheprovider test_gpu_inference.py -k "kvcache or paged or pdl or speculative or padded" \
  > "$OUT/.eco14_infer.txt" 2>&1; echo "exit $?" >> "$OUT/.eco14_infer.txt")
T=$(( $(left) - 3 ))
(cd /tmp && timeout "$T" python3 "$OLDPWD/perf/eco14_decode_time.py" --deadline-s $(( T - 10 > 5 ? T - 10 : 5 )) \
  > "$OUT/.eco14_time.txt" 2>&1; echo "exit $?" >> "$OUT/.eco14_time.txt")
verdict=pass; why=""
for part in auto vector infer time; do
  f="$OUT/.eco14_$part.txt"
  { echo "== $part"; tail -30 "$f"; } >> "$R"
  grep -q "^exit 0$" "$f" || { verdict=fail; why="$why $part:$(tail -1 "$f")"; }
done
rm -f "$OUT"/.eco14_*.txt
if [ "$verdict" = pass ]; then echo "eco14: pass" | tee -a "$R"; else echo "eco14: fail ($why)" | tee -a "$R"; fi
