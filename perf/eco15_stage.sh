#!/usr/bin/env bash
# eco15 GPU stage (issue 8: the fp32 backward from an LSE alone forms the forward's score, float32(S_fp64 *
# scale_log2_64) through from_fp64_sum, as the fp32 forward since eco14), on a device where the tree is already built
# and installed (the lead's merged-tree build). From the tree root:
#   OUT=<dir> bash perf/eco15_stage.sh [LIMIT_S]   -> $OUT/eco15.txt, last line "eco15: pass" or "eco15: fail (...)"
# LIMIT_S (default: HELPER_S, else 90) bounds the whole stage. The three parts run at once, each under LIMIT_S - 5
# (rev9: the stage of 2026-12-02 ran them one after another with a quarter of what was left each: 12 s and 9 s of its
# 50 s for the far-rows file, whose gpu cases (7) did not finish in either; eco13's stage, which ran that file whole
# in parallel parts of 55 s, passed). Workers: XDIST (default 14) in all, pytest-xdist where installed:
#   1. tests/test_fp32_alibi_far_rows.py -m gpu under ROCFLASH_KERNEL=auto, every gpu case (6 far-rows cases, fp32
#      and fp16, one skipped; the one-key-rows case from the LSE), on half the workers (long tracebacks: main 89495f5
#      failed test_gpu_alibi_far_rows[100.0-32-3-11-dtype0] and [50.0-128-3-0-dtype0] there, the from-LSE check)
#   2. the same file under ROCFLASH_KERNEL=vector, its fp32 cases only (dtype0 and the one-key-rows case: eco15
#      changed the fp32 backward alone), on the other half
#   3. tests/test_gpu_backward.py -k fp32 (118 cases, 8.7 s serially in the 2026-12-02 run), without xdist, under
#      ROCFLASH_KERNEL as the caller set it (as before)
# Each part's wall time goes into $OUT/eco15.txt.
set -uo pipefail
: "${OUT:?set OUT}"
LIMIT=${1:-${HELPER_S:-90}}
T=$(( LIMIT - 5 ))
[ "$T" -lt 15 ] && T=15
R="$OUT/eco15.txt"
cd "$(dirname "$0")/.."
{ echo "eco15 stage, $(date -u +%FT%TZ), tree $(git rev-parse --short HEAD 2>/dev/null || echo '?'), limit $LIMIT s"; } > "$R"
XD=${XDIST:-14}
if python3 -c "import xdist" 2>/dev/null && [ "$XD" -ge 2 ]; then N=(-n $(( XD / 2 ))); else N=(); fi
part() {  # part NAME KERNEL PYTEST-ARGS...: one pytest run under its timeout (KERNEL "": ROCFLASH_KERNEL as set), its
  # wall time and exit status at the end
  local name=$1 kernel=$2; shift 2
  local t0=$(date +%s)
  (cd tests && env ${kernel:+ROCFLASH_KERNEL=$kernel} timeout "$T" python3 -m pytest -q -m gpu -rfE -p no:cacheprovider "$@" \
    > "$OUT/.eco15_$name.txt" 2>&1; rc=$?; echo "wall $(( $(date +%s) - t0 )) s" >> "$OUT/.eco15_$name.txt"
    echo "exit $rc" >> "$OUT/.eco15_$name.txt")
}
part auto auto --tb=long "${N[@]}" test_fp32_alibi_far_rows.py &
part vector vector --tb=long "${N[@]}" test_fp32_alibi_far_rows.py -k "dtype0 or one_key_rows" &
part bwd "" test_gpu_backward.py -k fp32 &
wait
verdict=pass; why=""
for part in auto vector bwd; do
  f="$OUT/.eco15_$part.txt"
  # a failure's long traceback in full (up to 300 lines), else the summary
  # (a run that only skipped, e.g. no GPU or no compiled module, is a failure: nothing was checked)
  if grep -q "^exit 0$" "$f" && grep -q " passed" "$f"; then { echo "== $part"; tail -8 "$f"; } >> "$R"
  else { echo "== $part (FAILED or nothing ran)"; tail -300 "$f"; } >> "$R"; verdict=fail; why="$why $part:$(tail -1 "$f")"; fi
done
rm -f "$OUT"/.eco15_*.txt
if [ "$verdict" = pass ]; then echo "eco15: pass" | tee -a "$R"; else echo "eco15: fail ($why)" | tee -a "$R"; fi
