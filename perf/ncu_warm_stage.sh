#!/usr/bin/env bash
# Warm-cache Nsight Compute of the batch-1 decode kernels on an INSTALLED CUDA build (a stage of
# perf/final_1202_run.sh or perf/stop24_ncu.sh), from the tree root:   OUT=$OUT bash perf/ncu_warm_stage.sh [LIMIT_S]
# --cache-control none (perf/stop24_run.sh's call flushed the caches between passes, which inflates instruction-fetch
# stalls): every warp-stall reason per issued instruction, instructions executed, active cycles and duration of the
# split-KV kernel, its combine and cuDNN's two kernels at 1 x 4k and 1 x 16k dense (perf/decode_ncu.py: seqlen_q 1,
# nheads 32 / 8, d128, bf16). Output: $OUT/ncu_warm.txt and a digest (stall reasons >= 0.15 cycles) as the last lines.
set -uo pipefail
OUT=${OUT:-/tmp/ncu_warm_out}; mkdir -p "$OUT"
REPO=$(cd "$(dirname "$0")/.." && pwd)
LIMIT=${1:-${HELPER_S:-120}}
T0=$(date +%s)
command -v ncu > /dev/null || { echo "ncu_warm: no ncu"; exit 0; }
M="gpu__time_duration.sum,sm__cycles_active.avg,smsp__inst_executed.sum,smsp__warps_active.avg.per_cycle_active,regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio"
for case in 1x4096 1x16384; do
  t=$(( (LIMIT - ($(date +%s) - T0)) / 2 )); [ "$t" -lt 20 ] && { echo "ncu $case skipped" >> "$OUT/ncu_warm.txt"; continue; }
  (cd /tmp && timeout $t ncu --clock-control none --cache-control none -k regex:"splitkv|sdpa|lean_reduction" -s 2 -c 4 \
    --metrics "$M" python3 "$REPO/perf/decode_ncu.py" --case $case >> "$OUT/ncu_warm.txt" 2>&1)
  echo "ncu $case exit $?" >> "$OUT/ncu_warm.txt"
done
python3 - "$OUT/ncu_warm.txt" <<'PY'
import re, sys
t = open(sys.argv[1]).read()
for blk in re.split(r"\n  (?=\S)", t)[1:]:
    name, rows, other = blk.split("\n")[0][:60], [], []
    for ln in blk.split("\n")[1:]:
        m = re.match(r"\s+(\S+)\s+(\S*)\s+([\d.,]+)$", ln)
        if not m:
            continue
        k, v = m.group(1), float(m.group(3).replace(",", ""))
        if "stalled" in k:
            if v >= 0.15:
                rows.append((k.replace("smsp__average_warps_issue_stalled_", "").replace("_per_issue_active.ratio", ""), v))
        else:
            other.append(f"{k} {v:g}")
    print("ncu_warm", name, "|", ", ".join(other), "| stalls:", ", ".join(f"{k} {v:.2f}" for k, v in sorted(rows, key=lambda x: -x[1])))
PY
