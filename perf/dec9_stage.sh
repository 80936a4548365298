#!/usr/bin/env bash
# dec9's GPU stage (issue 9 item 6, decode speed: the split-KV kernel's new defaults, one K/V tile in flight per warp
# and programmatic dependent launches), for the lead's merged-tree call: rocflash ALREADY built and installed
# (ROCFLASH_BUILD=cuda TORCH_CUDA_ARCH_LIST=9.0a), run from the tree root:
#     OUT=$OUT bash perf/dec9_stage.sh [LIMIT_S]      (default DEC9_LIMIT_S, else HELPER_S, else 200: the whole stage)
# 1 tests     ROCFLASH_KERNEL=auto pytest -m gpu test_gpu_splitkv_dec8.py (INFLIGHT=2 / PDL=0 / LAZY_RESCALE=1 bitwise the new
#             defaults), test_gpu_splitkv_dec7.py, test_gpu_kvstep_fold.py, test_gpu_inference.py, and
#             test_gpu_varlen.py::test_split_fused_combine_and_inflight (27 % of the limit)
# 2 memcheck  compute-sanitizer --tool memcheck perf/sanitize_cases.py --seq-only (paged decode with 0 / 3 / 1 splits,
#             the KV-cache fast path dense and paged: the new defaults) (25 %)
# 3 bench     perf/dec9_stage.py: the new defaults ("base") against the old ("old": INFLIGHT=2, PDL=0) and each
#             lever alone, fill, the fused combine and the opt-in lazy O rescale (LAZY_RESCALE=1, bitwise checked),
#             eager + graph, two rounds, SDPA cuDNN beside, over issue 9's decode grid (batch 1/8/32 x
#             4k/16k/128k) on paged16 / paged256 / dense calls, plus the kernel profile at 1 x 4k and 1 x 16k (the rest)
# Everything goes to "$OUT/dec9.txt" (+ dec9.json); the last line printed (and written) is the summary.
# Timing (H200, installed build; run D9-2): 79 s with a 154 s limit (tests 30 s, memcheck ~25 s, bench 19 s); each
# step is cut by its own timeout, the bench starts no case after 3/4 of its share.
set -uo pipefail
OUT=${OUT:-/tmp/dec9_out}
mkdir -p "$OUT"
REPO=$(cd "$(dirname "$0")/.." && pwd)
LIMIT=${1:-${DEC9_LIMIT_S:-${HELPER_S:-200}}}
T0=$(date +%s)
left() { echo $(( LIMIT - ($(date +%s) - T0) )); }
F="$OUT/dec9.txt"
{
  echo "dec9 stage, $(date -u +%FT%TZ), tree $(git -C "$REPO" rev-parse --short HEAD 2>/dev/null || echo 'not a git checkout'), limit $LIMIT s"
  (cd /tmp && python3 -c "import torch, rocflash; print('torch', torch.__version__, torch.cuda.get_device_name(0), 'rocflash', rocflash.__file__)")
} > "$F" 2>&1

T=$(( LIMIT * 27 / 100 )); [ "$T" -gt "$(left)" ] && T=$(left)
XDIST=$(python3 -c "import xdist" 2>/dev/null && echo "-n 8")
(cd "$REPO/tests" && ROCFLASH_KERNEL=auto timeout "$T" python3 -m pytest -q -rfE -m gpu -p no:cacheprovider --tb=short \
  $XDIST test_gpu_splitkv_dec8.py test_gpu_splitkv_dec7.py test_gpu_kvstep_fold.py test_gpu_inference.py \
  "test_gpu_varlen.py::test_split_fused_combine_and_inflight" > /tmp/dec9_tests.txt 2>&1)
RC=$?
{ echo "##### ROCFLASH_KERNEL=auto pytest -m gpu (5 files, limit $T s): exit $RC"; tail -30 /tmp/dec9_tests.txt; } >> "$F"
TESTS=$(tail -1 /tmp/dec9_tests.txt | tr -d '=' | sed 's/^ *//')
[ "$RC" -eq 124 ] && TESTS="TIMEOUT after $T s ($TESTS)"

T=$(( LIMIT * 25 / 100 )); [ "$T" -gt "$(left)" ] && T=$(left)
if command -v compute-sanitizer > /dev/null && [ "$T" -ge 15 ]; then
  (cd /tmp && PYTORCH_NO_CUDA_MEMORY_CACHING=1 timeout "$T" compute-sanitizer --tool memcheck --error-exitcode 9 \
    python3 "$REPO/perf/sanitize_cases.py" --seq-only > /tmp/dec9_memcheck.txt 2>&1)
  MRC=$?
  MEM="exit $MRC, $(grep -E 'ERROR SUMMARY' /tmp/dec9_memcheck.txt | tail -1)"
  { echo "##### memcheck perf/sanitize_cases.py --seq-only (limit $T s): $MEM"; tail -8 /tmp/dec9_memcheck.txt; } >> "$F"
else
  MEM="skipped ($T s left or no compute-sanitizer)"
  echo "##### memcheck $MEM" >> "$F"
fi

T=$(( $(left) - 3 ))
if [ "$T" -gt 20 ]; then
  D=$(( T * 3 / 4 ))
  echo "##### python3 perf/dec9_stage.py --preset (limit $T s, deadline $D s)" >> "$F"
  (cd /tmp && timeout "$T" python3 "$REPO/perf/dec9_stage.py" --preset --sweep --deadline-s "$D" --json /tmp/dec9.json >> "$F" 2>&1)
  BRC=$?
  VERDICT=$(grep '^VERDICT' "$F" | tail -1 | cut -c1-600)
  [ -z "$VERDICT" ] && VERDICT="VERDICT (bench exit $BRC, partial) $(grep '^CASE-VERDICT' "$F" | sed 's/^CASE-VERDICT //' | cut -c1-200 | tr '\n' '|')"
  cp /tmp/dec9.json "$OUT/dec9.json" 2>/dev/null
else
  VERDICT="VERDICT none (bench skipped: $T s left)"
fi
LAST="dec9: tests [$TESTS] | memcheck [$MEM] | $(grep '^SUMMARY' "$F" | tail -1) | $(( $(date +%s) - T0 )) s"
echo "$VERDICT" >> "$F"
echo "$LAST" >> "$F"
echo "$LAST"
