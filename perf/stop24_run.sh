#!/usr/bin/env bash
# Stop 24's second device call (issue 12 item 4 and issue 9 item 6), from the tree root:
#   OUT=$OUT [BASE=.wt/base] [DEADLINE_S=400] bash perf/stop24_run.sh       -> $OUT/summary.txt narrow_old.txt narrow_new.txt ncu.txt
# 1 narrow   the narrow load path's speed before and after stop 24's copy change: BASE (a checkout of the commit before
#            it, carried as an ignored folder) and this tree, each built with the headdim 64/128 fp16/bf16 CUDA tables
#            only (perf/subset_configs.py), then perf/narrow_bench.py (narrow vs 128-bit path, same process) on each.
#            The two builds run in separate processes on the same machine: compare their narrow / aligned ratios.
# 2 ncu      Nsight Compute on this tree's build: the split-KV kernel and its combine at 1 x 4k and 1 x 16k dense
#            (perf/decode_ncu.py; seqlen_q 1, nheads 32 / 8, d128, bf16) beside cuDNN's two kernels: SpeedOfLight,
#            LaunchStats, Occupancy, WarpStateStats, SchedulerStats, MemoryWorkloadAnalysis (where the batch-1 fixed
#            cost of about 4 us goes)
set -uo pipefail
. "$(dirname "$0")/gpu_lib.sh"  # OUT, REPO, T0, log
DEADLINE_S=${DEADLINE_S:-400}
left() { echo $(( DEADLINE_S - ($(date +%s) - T0) )); }
gpu_info
BASE=${BASE:-$REPO/.wt/base}
for name in old new; do
  tree=$BASE; [ "$name" = new ] && tree=$REPO
  log "build $name ($tree)"
  TORCH_CUDA_ARCH_LIST=9.0a BUILD_TIMEOUT=${BUILD_TIMEOUT:-150} gpu_subset_build "/tmp/${name}_tree" "$tree" 64,128 fp16,bf16 "$OUT/setup_$name.txt" || { log "build $name failed"; continue; }
  log "narrow bench $name"
  (cd /tmp && timeout 60 python3 "$REPO/perf/narrow_bench.py" --repeats 20 > "$OUT/narrow_$name.txt" 2>&1); log "exit $?"
done
t=$(( $(left) - 10 ))
if command -v ncu > /dev/null && [ "$t" -ge 30 ]; then
  for case in 1x4096 1x16384; do
    log "ncu $case (limit $(( t / 2 )) s)"
    (cd /tmp && timeout $(( t / 2 )) ncu --clock-control none -k regex:"splitkv|sdpa|lean_reduction" -s 2 -c 4 \
      --section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats --section SchedulerStats \
      --section MemoryWorkloadAnalysis python3 "$REPO/perf/decode_ncu.py" --case $case >> "$OUT/ncu.txt" 2>&1)
    log "ncu $case exit $?"
  done
else
  log "ncu skipped ($t s left or no ncu)"
fi
log "done"
