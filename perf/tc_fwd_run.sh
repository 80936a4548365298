#!/bin/bash
# perf/tc_fwd_run.sh - one device call for the tensor-core forward's tile choice (NVIDIA H200): the tile variants of
# perf/mma_tiles.cu (this tree's kernels, and optionally a baseline binary of older kernels), SDPA flash / cuDNN
# on the same shapes in one process (perf/presets/tc_tiles.yaml), and an Nsight Compute profile of one kernel.
#   BIN=dir with prebuilt mma_tiles_new [mma_tiles_base] (rebuilt here when they do not run)
#   NCU_VARIANTS="T128_cur T128_m2n32"   variants to profile (first launch of each: the non-causal plain kernel)
# Writes under $OUT (or ./tc_out): tiles_*.txt, sdpa.txt, ncu_*.txt.
set -u
OUT=${OUT:-tc_out}; mkdir -p "$OUT"
BIN=${BIN:-.tcbin}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv | tee "$OUT/gpu.txt"
build() {  # build NAME SOURCE INCLUDE
  nvcc -O3 -std=c++17 --expt-relaxed-constexpr -arch=sm_90 -I"$3" "$2" -o "$BIN/$1"
}
if ! "$BIN/mma_tiles_new" 1024 16384 16 T64_cur 1 > /dev/null 2>&1; then
  echo "rebuilding mma_tiles_new"; build mma_tiles_new perf/mma_tiles.cu hip_src
fi
if [ -e "$BIN/mma_tiles_base.cu" ] && ! "$BIN/mma_tiles_base" 1024 16384 16 T64_cur 1 > /dev/null 2>&1; then
  echo "rebuilding mma_tiles_base"; build mma_tiles_base "$BIN/mma_tiles_base.cu" "$BIN/base_src"
fi
"$BIN/mma_tiles_new" 4096 1048576 16 "" 15 2>&1 | tee "$OUT/tiles_new.txt"
[ -x "$BIN/mma_tiles_base" ] && "$BIN/mma_tiles_base" 4096 1048576 16 "" 15 2>&1 | tee "$OUT/tiles_base.txt"
timeout 120 python3 -m rocflash.perf --preset perf/presets/tc_tiles.yaml --backends flash cudnn --baseline sdpa-flash \
  --no-progress 2>&1 | tail -25 | tee "$OUT/sdpa.txt"
for v in ${NCU_VARIANTS:-}; do
  timeout 90 ncu --clock-control none -k regex:fmha_fwd_kernel -c 1 --section SpeedOfLight --section WarpStateStats \
    --section SchedulerStats --section ComputeWorkloadAnalysis --section InstructionStats --section Occupancy \
    --section LaunchStats --metrics "regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,smsp__inst_executed.sum" \
    "$BIN/mma_tiles_new" 4096 131072 16 "$v" 1 > "$OUT/ncu_$v.txt" 2>&1
  grep -E "Duration|Registers|Issue Slots Busy|Eligible|No Eligible|Warp Cycles Per Issued|Executed Ipc A|Achieved Occupancy|Compute \(SM\) Throughput|Memory Throughput|hmma|bank|inst_executed.sum" "$OUT/ncu_$v.txt" | head -30
  grep -E "issue_stalled" "$OUT/ncu_$v.txt" | sort -k3 -g -r | head -8
done
