#!/usr/bin/env bash
# Issue 12 item 5's tables on an installed CUDA build (rocflash ALREADY built and installed), from the tree root:
#   OUT=$OUT bash perf/tc12_stage.sh [LIMIT_S=240]     -> $OUT/tc12.txt, $OUT/tc12_fwd.json, $OUT/tc12_bwd.json, ...
# Steps, each bounded, all within LIMIT_S (default 240 s):
#   1 fwd      python -m rocflash.perf --preset perf/presets/tensor_core.yaml --backends cuda flash cudnn
#              --baseline sdpa-flash (fp16 / bf16, headdim 64 / 128, seqlen 1k-16k, causal and not, plus d96, d256,
#              GQA 32:8; same process), 40 % of the limit
#   2 fwdbwd   python -m rocflash.perf --preset perf/presets/fwd_bwd.yaml --bwd --backends cuda-deterministic flash
#              --baseline sdpa-flash (bf16, 4k / 16k, headdim 64 / 128, causal and not; deterministic=True, the
#              column the default's table of 2026-12-02 lacked), 35 %
#   3 extra    the same for perf/presets/fwd_bwd_extra.yaml (d96, d256, GQA, fp16) with the default backward, 10 %
#   4 ncu      Nsight Compute of the main forward kernel (d128, b4 h16 s4096 bf16, non-causal; the first launch),
#              the rest (at most 45 s); skipped when ncu is missing
# The last line is "tc12: fwd <exit> fwdbwd <exit> extra <exit> ncu <exit>".
set -uo pipefail
: "${OUT:?set OUT}"
mkdir -p "$OUT"
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
F="$OUT/tc12.txt"
BUDGET=${1:-${LIMIT_S:-240}}
T0=$(date +%s)
export PYTHONUNBUFFERED=1
left() { echo $(( BUDGET - ($(date +%s) - T0) )); }
share() { local t=$(( BUDGET * $1 / 100 )) l; l=$(( $(left) - 5 )); [ "$t" -lt "$l" ] && echo "$t" || echo $(( l > 10 ? l : 10 )); }
perf() {  # perf LIMIT JSON ARGS...: one rocflash.perf run whose own limit leaves 10 s for its reference checks
  local t=$1 j=$2; shift 2
  (cd /tmp && timeout "$t" python3 -m rocflash.perf "$@" --warmup 3 --repeats 10 --budget-s 0.25 \
    --time-limit-s "$(( t > 30 ? t - 10 : 20 ))" --no-progress --json "$j" >> "$F" 2>&1)
}
: > "$F"
echo "tc12 stage $(date -u +%FT%TZ), limit $BUDGET s" >> "$F"
echo "== 1 forward (tensor_core.yaml)" >> "$F"
perf "$(share 40)" "$OUT/tc12_fwd.json" --preset "$REPO/perf/presets/tensor_core.yaml" --backends cuda flash cudnn \
  --baseline sdpa-flash; fw=$?
echo "fwd exit $fw" >> "$F"
echo "== 2 forward+backward (fwd_bwd.yaml)" >> "$F"
perf "$(share 35)" "$OUT/tc12_bwd.json" --preset "$REPO/perf/presets/fwd_bwd.yaml" --bwd \
  --backends cuda-deterministic flash --baseline sdpa-flash; fb=$?
echo "fwdbwd exit $fb" >> "$F"
echo "== 3 forward+backward (fwd_bwd_extra.yaml)" >> "$F"
perf "$(share 10)" "$OUT/tc12_extra.json" --preset "$REPO/perf/presets/fwd_bwd_extra.yaml" --bwd \
  --backends cuda flash --baseline sdpa-flash; ex=$?
echo "extra exit $ex" >> "$F"
echo "== 4 Nsight Compute of the d128 forward kernel" >> "$F"
nc=skipped
t=$(( $(left) - 3 )); [ "$t" -gt 45 ] && t=45
if command -v ncu > /dev/null && [ "$t" -ge 15 ]; then
  (cd /tmp && timeout "$t" ncu --clock-control none -k regex:fmha_fwd -c 1 --section SpeedOfLight \
    --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section WarpStateStats --section Occupancy \
    --section LaunchStats python3 -c "
import torch, rocflash
torch.manual_seed(0)
q, k, v = (torch.randn(4, 4096, 16, 128, device='cuda', dtype=torch.bfloat16) for _ in range(3))
rocflash.flash_attn_func(q, k, v, backend='cuda')
torch.cuda.synchronize()
print('ncu program: done')
" > "$OUT/tc12_ncu.txt" 2>&1); nc=$?
  grep -E "fmha_fwd|Duration|Registers Per|Theoretical Occ|Achieved Occ|Compute \(SM\) Throughput|Memory Throughput|DRAM Throughput|Issue Slots Busy|Warp Cycles Per Issued|Eligible Warps|Executed Ipc|Shared Memory Configuration|Dynamic Shared" \
    "$OUT/tc12_ncu.txt" | head -30 >> "$F"
fi
echo "ncu exit $nc" >> "$F"
echo "tc12: fwd $fw fwdbwd $fb extra $ex ncu $nc" | tee -a "$F"
