#!/usr/bin/env bash
# dec12 stage (perf/final_1202_run.sh STAGE_SPECS="dec12_stage.sh:LIMIT"), on the installed build: perf/dec12_probe.py
# (PROBE_PARTS, default layers,splits) into $OUT/probe.txt, then one ncu run of the split kernel at 32 x 16k (L2 read
# requests and sectors per DRAM sector, as perf/dec12_l2.sh) into $OUT/l2.txt.
set -uo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
(cd /tmp && timeout "${PROBE_S:-150}" python3 "$REPO/perf/dec12_probe.py" --out "$OUT" --parts "${PROBE_PARTS:-layers,splits}" > "$OUT/probe.txt" 2>&1)
echo "probe exit $?"
M=gpu__time_duration.sum,dram__sectors_read.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_requests_srcunit_tex_op_read.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,smsp__inst_executed.sum
(cd /tmp && timeout 60 ncu --clock-control none --cache-control none -k regex:"splitkv|sdpa" -s 1 -c 3 --metrics $M \
  python3 "$REPO/perf/decode_ncu.py" --case 32x16384 > "$OUT/l2.txt" 2>&1)
echo "ncu exit $?"
grep -E "LAYERS|SPLITS" "$OUT/probe.txt" | cut -c1-330
grep -E "^  [a-z_]|^    [a-z]" "$OUT/l2.txt" | cut -c1-120
