#!/usr/bin/env bash
# tcbwd8's own device call (one call: build + stage), from this tree's root:
#   OUT=$OUT bash perf/tcbwd8_run.sh
# 1. build: ROCFLASH_BUILD=cuda TORCH_CUDA_ARCH_LIST=9.0a pip install with NVCC_APPEND_FLAGS=-DRF_TCBWD8_DIAG=1 (the
#    lean kernel's steps and timing diagnostics 1, 8, 9 compiled too; nvcc reads NVCC_APPEND_FLAGS itself), limit
#    BUILD_TIMEOUT (200 s)
# 2. perf/tcbwd8_stage.sh with FULL_TESTS=1 (the whole test_gpu_backward.py, -n 14), AB_MODES=3,2,1,9,8,0, HELPER_S
#    (default 190). Run X1 (perf/RESULTS.md tcbwd8) ran this at commit ad14c44, where the stage's A/B default was these modes.
set -uo pipefail
: "${OUT:?set OUT}"
cd "$(dirname "$0")/.."
export PYTHONUNBUFFERED=1
T0=$(date +%s)
echo "== build: NVCC_APPEND_FLAGS=-DRF_TCBWD8_DIAG=1 ROCFLASH_BUILD=cuda TORCH_CUDA_ARCH_LIST=9.0a pip install" | tee "$OUT/build.txt"
NVCC_APPEND_FLAGS=-DRF_TCBWD8_DIAG=1 ROCFLASH_BUILD=cuda TORCH_CUDA_ARCH_LIST=9.0a timeout "${BUILD_TIMEOUT:-200}" \
  python3 -m pip install -q --no-build-isolation --no-deps . > /tmp/build.log 2>&1
rc=$?
echo "== build exit $rc after $(( $(date +%s) - T0 )) s" | tee -a "$OUT/build.txt"
[ $rc = 0 ] || { tail -40 /tmp/build.log | tee -a "$OUT/build.txt"; exit 1; }
(cd /tmp && python3 -m rocflash info 2>&1 | head -30) >> "$OUT/build.txt"
OUT=$OUT FULL_TESTS=1 AB_MODES=${AB_MODES:-3,2,1,9,8,0} HELPER_S=${HELPER_S:-190} bash perf/tcbwd8_stage.sh
echo "== total $(( $(date +%s) - T0 )) s"
