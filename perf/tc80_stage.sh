#!/usr/bin/env bash
# Branch tc80's stage for a merged-tree device call (rocflash ALREADY built and installed for CUDA, e.g.
# TORCH_CUDA_ARCH_LIST=9.0a), from the tree root:
#   OUT=$OUT bash perf/tc80_stage.sh [LIMIT_S=120]      -> $OUT/tc80.txt (last line: "tc80: tests <exit>")
# What tc80 changed that runs on the H200: no device code of a kept kernel (sm_90a SASS of every dK/dV and dQ
# instance's kernels identical to the base, cuobjdump; perf/RESULTS.md "tc80"), but the deterministic dK/dV
# launcher now asks the device's compute capability (cached) to size the kernel's shared memory (the padded tile's
# bytes on 9.x, the compact core-matrix tile's below 9), and ROCFLASH_BWD_SDP_WGMMA's kernel and tests are gone.
# One step, bounded by LIMIT_S: the backward GPU tests that launch the deterministic dK/dV kernel of every
# tensor-core headdim bucket and compare against fp64 (test_headdims, test_deterministic_bitwise, test_gqa,
# test_dq_mode_selected_and_close: both dq modes).
set -uo pipefail
: "${OUT:?set OUT}"
mkdir -p "$OUT"
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
LIMIT=${1:-120}
F="$OUT/tc80.txt"
export PYTHONUNBUFFERED=1
T0=$(date +%s)
left() { echo $(( LIMIT - ($(date +%s) - T0) )); }
echo "tc80 stage $(date -u +%FT%TZ), limit $LIMIT s" > "$F"
(cd "$REPO/tests" && timeout "$(( $(left) > 10 ? $(left) - 5 : 5 ))" python3 -m pytest -q -x -p no:cacheprovider \
  test_gpu_backward.py -k "test_headdims or test_deterministic_bitwise or test_gqa or test_dq_mode_selected_and_close" \
  >> "$F" 2>&1); rc=$?
echo "tests exit $rc" >> "$F"
tail -3 "$F" | head -2
echo "tc80: tests $rc" | tee -a "$F"
