#!/usr/bin/env bash
# dec7's GPU stage (issue 9, decode speed), for the lead's merged-tree call: rocflash ALREADY built and installed
# (ROCFLASH_BUILD=cuda TORCH_CUDA_ARCH_LIST=9.0a), run from the tree root:
#     OUT=$OUT bash perf/dec7_stage.sh            (DEC7_LIMIT_S, default 100: the whole stage, both steps)
# 1 tests  pytest -m gpu tests/test_gpu_splitkv_dec7.py: ROCFLASH_SPLITKV_K_FIRST=1 bitwise the default (KV-cache
#          cases of test_gpu_kvstep_fold.py, flash_attn_with_kvcache decode), ROCFLASH_SPLITKV_SPLITS=fill's plan
#          and fp64 rule (limit 35 s)
# 2 bench  perf/dec7_stage.py: num_splits sweep (eager + graph) at 1x4k, 1x16k, 8x16k, 32x16k on the folded KV-cache
#          call, A/B of the split rule (wave / fill) and of K-first (0 / 1) in the same process, cuDNN beside, and
#          its checks (fp64 rule per count, bitwise K-first = default, graph = eager) (the rest of the limit)
# 3 ncu    Nsight Compute of a 1 x 16k step (split + combine vs cuDNN) when >= 20 s are left
# Everything goes to "$OUT/dec7.txt" (one file); the last line printed (and written) is the verdict per case.
set -uo pipefail
OUT=${OUT:-/tmp/dec7_out}
mkdir -p "$OUT"
REPO=$(cd "$(dirname "$0")/.." && pwd)
LIMIT=${DEC7_LIMIT_S:-100}
T0=$(date +%s)
left() { echo $(( LIMIT - ($(date +%s) - T0) )); }
F="$OUT/dec7.txt"
{
  echo "dec7 stage, $(date -u +%FT%TZ), tree $(git -C "$REPO" rev-parse --short HEAD 2>/dev/null || echo 'not a git checkout')"
  python3 -c "import torch, rocflash; print('torch', torch.__version__, torch.cuda.get_device_name(0), 'rocflash', rocflash.__file__)"
} > "$F" 2>&1

T=$(( $(left) < 35 ? $(left) : 35 ))
(cd "$REPO/tests" && timeout "$T" python3 -m pytest -q -rfEs -m gpu -p no:cacheprovider --tb=short \
  test_gpu_splitkv_dec7.py > /tmp/dec7_tests.txt 2>&1)
RC=$?
{ echo "##### pytest -m gpu tests/test_gpu_splitkv_dec7.py (limit $T s): exit $RC"; tail -40 /tmp/dec7_tests.txt; } >> "$F"
TESTS=$(tail -1 /tmp/dec7_tests.txt | tr -d '=' | sed 's/^ *//')
[ "$RC" -eq 124 ] && TESTS="TIMEOUT after $T s ($TESTS)"

T=$(( $(left) - 2 ))
if [ "$T" -gt 10 ]; then
  D=$(( T - 35 )); [ "$D" -lt $(( T / 2 )) ] && D=$(( T / 2 ))  # start no case after D s (room for ncu)
  echo "##### python3 perf/dec7_stage.py --deadline-s $D (limit $T s)" >> "$F"
  timeout "$T" python3 "$REPO/perf/dec7_stage.py" --deadline-s "$D" >> "$F" 2>&1
  BRC=$?
  VERDICT=$(grep '^VERDICT' "$F" | tail -1)
  [ -z "$VERDICT" ] && VERDICT="VERDICT (bench exit $BRC, partial) $(grep '^CASE-VERDICT' "$F" | sed 's/^CASE-VERDICT //' | tr '\n' '|')"
else
  VERDICT="VERDICT none (bench skipped: $T s left)"
fi
# 3 (what time is left, >= 20 s, where ncu reads counters) Nsight Compute of one 1 x 16k decode step: the split +
#   combine kernels beside cuDNN's (perf/decode_ncu.py): DRAM throughput, occupancy, warp stalls; condensed here
T=$(( $(left) - 2 ))
if [ "$T" -ge 20 ] && command -v ncu > /dev/null; then
  echo "##### ncu (limit $T s) perf/decode_ncu.py --case 1x16384" >> "$F"
  (cd /tmp && timeout "$T" ncu --clock-control none --section SpeedOfLight --section Occupancy --section WarpStateStats \
    --section LaunchStats -k "regex:splitkv|cudnn|sdpa|fmha|flash|attn" -c 6 python3 "$REPO/perf/decode_ncu.py" \
    --case 1x16384 > /tmp/dec7_ncu.txt 2>&1; echo "ncu exit $?" >> /tmp/dec7_ncu.txt)
  grep -E "^  [a-zA-Z_].*\(|Duration|DRAM Throughput|Memory Throughput|Achieved Occupancy|Theoretical Occupancy|Registers Per|Grid Size|Stall|Warp Cycles Per Issued|ncu exit|ERR" \
    /tmp/dec7_ncu.txt | head -80 >> "$F"
else
  echo "##### ncu skipped ($T s left or no ncu)" >> "$F"
fi
LAST="dec7: tests [$TESTS] | $VERDICT | $(( $(date +%s) - T0 )) s"
echo "$LAST" >> "$F"
echo "$LAST"
