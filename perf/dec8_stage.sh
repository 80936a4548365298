#!/usr/bin/env bash
# dec8's GPU stage (issue 9 item 6, decode speed: the split-KV kernel's copy variants), for the lead's merged-tree call:
# rocflash ALREADY built and installed (ROCFLASH_BUILD=cuda TORCH_CUDA_ARCH_LIST=9.0a), run from the tree root:
#     OUT=$OUT bash perf/dec8_stage.sh        (DEC8_LIMIT_S, default HELPER_S, else 150: the whole stage)
# 1 tests  pytest -m gpu tests/test_gpu_splitkv_dec8.py: ROCFLASH_SPLITKV_BULK=1, _INFLIGHT=1 and _LOCKSTEP=1
#          bitwise the default (KV-cache cases of test_gpu_kvstep_fold.py, decode shapes, stale NaN rows in a reused
#          ring stage, graph replay), fp64 rule (limit 45 s)
# 2 bench  perf/dec8_stage.py: base / bulk / inflight1 / lockstep / pdl / fused at 1x4k, 1x16k, 8x16k, 32x16k on
#          the paged-16 KV-cache call (step folded) and flash_attn_func (dense), eager + graph, two rounds, cuDNN
#          beside; batch-1 split sweep of base and inflight1; checks (bitwise = base, fp64 rule, graph = eager) (the
#          rest, less ncu's)
# 3 ncu    Nsight Compute of one 32 x 16k step (default, inflight1 and lockstep split kernels, cuDNN) when >= 25 s
#          are left (DEC8_NCU_S, default 30, kept for it; 0: none)
# Everything goes to "$OUT/dec8.txt" (one file); the last line printed (and written) is the summary.
set -uo pipefail
OUT=${OUT:-/tmp/dec8_out}
mkdir -p "$OUT"
REPO=$(cd "$(dirname "$0")/.." && pwd)
LIMIT=${DEC8_LIMIT_S:-${HELPER_S:-150}}
NCU_S=${DEC8_NCU_S:-30}  # kept for step 3 when the limit allows (0: no ncu)
T0=$(date +%s)
left() { echo $(( LIMIT - ($(date +%s) - T0) )); }
F="$OUT/dec8.txt"
{
  echo "dec8 stage, $(date -u +%FT%TZ), tree $(git -C "$REPO" rev-parse --short HEAD 2>/dev/null || echo 'not a git checkout'), limit $LIMIT s"
  (cd /tmp && python3 -c "import torch, rocflash; print('torch', torch.__version__, torch.cuda.get_device_name(0), 'rocflash', rocflash.__file__)")
} > "$F" 2>&1

T=$(( $(left) < 45 ? $(left) : 45 ))
XDIST=$(python3 -c "import xdist" 2>/dev/null && echo "-n 4")  # 51 tests: 4 workers where pytest-xdist exists
(cd "$REPO/tests" && timeout "$T" python3 -m pytest -q -rfEs -m gpu -p no:cacheprovider --tb=short $XDIST \
  test_gpu_splitkv_dec8.py > /tmp/dec8_tests.txt 2>&1)
RC=$?
{ echo "##### pytest -m gpu tests/test_gpu_splitkv_dec8.py (limit $T s): exit $RC"; tail -40 /tmp/dec8_tests.txt; } >> "$F"
TESTS=$(tail -1 /tmp/dec8_tests.txt | tr -d '=' | sed 's/^ *//')
[ "$RC" -eq 124 ] && TESTS="TIMEOUT after $T s ($TESTS)"

KEEP=$(( NCU_S > 0 && $(left) > 2 * NCU_S + 60 ? NCU_S : 0 ))
T=$(( $(left) - KEEP - 2 ))
if [ "$T" -gt 15 ]; then
  D=$(( T * 2 / 3 ))  # start no case after D s
  echo "##### python3 perf/dec8_stage.py --deadline-s $D (limit $T s)" >> "$F"
  (cd /tmp && timeout "$T" python3 "$REPO/perf/dec8_stage.py" --deadline-s "$D" --json /tmp/dec8.json >> "$F" 2>&1)
  BRC=$?
  VERDICT=$(grep '^VERDICT' "$F" | tail -1)
  [ -z "$VERDICT" ] && VERDICT="VERDICT (bench exit $BRC, partial) $(grep '^CASE-VERDICT' "$F" | sed 's/^CASE-VERDICT //' | tr '\n' '|')"
  cp /tmp/dec8.json "$OUT/dec8.json" 2>/dev/null
else
  VERDICT="VERDICT none (bench skipped: $T s left)"
fi
T=$(( $(left) - 2 ))
if [ "$NCU_S" -gt 0 ] && [ "$T" -ge 25 ] && command -v ncu > /dev/null; then
  echo "##### ncu (limit $T s) perf/dec8_stage.py --ncu-program 32x16384" >> "$F"
  (cd /tmp && timeout "$T" ncu --clock-control none --section SpeedOfLight --section Occupancy --section WarpStateStats \
    --section LaunchStats -k "regex:splitkv|cudnn|sdpa|fmha|flash|attn" -c 8 python3 "$REPO/perf/dec8_stage.py" \
    --ncu-program 32x16384 > /tmp/dec8_ncu.txt 2>&1; echo "ncu exit $?" >> /tmp/dec8_ncu.txt)
  grep -E "^  [a-zA-Z_].*\(|Duration|DRAM Throughput|Memory Throughput|L2 Cache Throughput|Achieved Occupancy|Theoretical Occupancy|Registers Per|Grid Size|Stall|Warp Cycles Per Issued|Issued Warp|ncu exit|ERR" \
    /tmp/dec8_ncu.txt | head -90 >> "$F"
else
  echo "##### ncu skipped ($T s left, NCU_S $NCU_S, or no ncu)" >> "$F"
fi
LAST="dec8: tests [$TESTS] | $VERDICT | $(( $(date +%s) - T0 )) s"
echo "$LAST" >> "$F"
echo "$LAST"
