#!/usr/bin/env bash
# dec12: L2 read sectors per DRAM sector of the split-KV kernel at 32 x 16k (ncu), default copies against variants
# built by editing one header of the build tree (VARIANTS: name|header|sed-expression, variants separated by @@;
# diagnostics only), cuDNN's kernel beside (CUDNN=1).
#   OUT=$OUT bash perf/dec12_l2.sh
set -uo pipefail
. "$(dirname "$0")/gpu_lib.sh"
W=/tmp/dec12_tree
M=gpu__time_duration.sum,dram__sectors_read.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,lts__t_requests_srcunit_tex_op_read.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sectors_srcunit_ltcfabric.sum,smsp__inst_executed.sum
prof() {  # label env...
  local label=$1; shift
  (cd /tmp && env "$@" timeout 60 ncu --clock-control none --cache-control none -k regex:"${KREGEX:-splitkv}" -s 1 -c 1 --metrics $M \
    python3 "$REPO/perf/decode_ncu.py" --case ${CASE:-32x16384} > /tmp/l2.txt 2>&1)
  echo "##### $label ($*): exit $?" | tee -a "$OUT/l2.txt"
  grep -E "^    [a-z]" /tmp/l2.txt | sed 's/^ */  /' | tee -a "$OUT/l2.txt"
}
TORCH_CUDA_ARCH_LIST=9.0a BUILD_TIMEOUT=200 gpu_subset_build "$W" "$REPO" 128 bf16 "$OUT/setup.txt" || exit 1
prof default ROCFLASH_SPLITKV_PLAIN=1
[ -n "${OLD:-}" ] && prof old-loop ROCFLASH_SPLITKV_PLAIN=0
[ -n "${CUDNN:-}" ] && KREGEX=sdpa prof cudnn ROCFLASH_SPLITKV_PLAIN=1
variant_prof() { prof "$1" ROCFLASH_SPLITKV_PLAIN=1; }
run_variants "$W" "$OUT/l2.txt" variant_prof
