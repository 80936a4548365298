#!/usr/bin/env bash
# Second, shorter device call: build, the varlen/paged GPU tests (auto), the decode benchmark without the sweep,
# and `python -m rocflash.perf --preset decode-paged` (rocflash cuda, SDPA flash, cuDNN). Results in $OUT.
set -uo pipefail
OUT=${OUT:-$PWD/gpu_out}; mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
T0=$(date +%s)
log() { echo "== $(date -u +%H:%M:%S) +$(( $(date +%s) - T0 ))s $*" | tee -a "$OUT/summary.txt"; }
log "build"
ROCFLASH_BUILD=cuda TORCH_CUDA_ARCH_LIST=9.0 python3 -m pip install -q --no-build-isolation --no-deps . > /tmp/build.log 2>&1 \
  || { tail -60 /tmp/build.log | tee -a "$OUT/summary.txt"; log "BUILD FAILED"; exit 1; }
log "built; ROCFLASH_KERNEL=auto pytest -m gpu test_gpu_varlen.py"
(cd tests && ROCFLASH_KERNEL=auto timeout 60 python3 -m pytest -q -m gpu -p no:cacheprovider --maxfail=10 \
   test_gpu_varlen.py > "$OUT/tests_auto.txt" 2>&1)
log "exit $?"; tail -3 "$OUT/tests_auto.txt" | tee -a "$OUT/summary.txt"
(cd /tmp && timeout 60 python3 "$OLDPWD/perf/decode_bench.py" --budget-s 0.25 --no-varlen --no-sweep \
   --json "$OUT/bench.json" > "$OUT/bench.txt" 2>&1)
log "bench exit $?"
(cd /tmp && timeout 70 python3 -m rocflash.perf --preset decode-paged --backends cuda flash cudnn --budget-s 0.15 \
   --baseline sdpa-cudnn --json "$OUT/paged_preset.json" --no-progress > "$OUT/paged_preset.txt" 2>&1)
log "perf exit $?"
cat "$OUT/bench.txt" "$OUT/paged_preset.txt"
