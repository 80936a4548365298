#!/usr/bin/env bash
# eco10 (issue 8: the fp32 score as an fp64 sum) in one device call, from this tree (NEW) and a tree of the code
# before (OLD, default ../eco10_old): both built fp32-only (perf/fp32_only_configs.py, in place: disposable copies
# only) with pip --target, in parallel; then on NEW the fp32 GPU cases of tests/test_fp32_alibi_far_rows.py,
# perf/fp32_class_scan.py on both, and perf/bwd_breakdown.py --dtype fp32 (per-kernel device time of forward +
# backward) alternating OLD, NEW, OLD, NEW (separate processes, same machine, back to back).
#   OUT=... bash perf/fp32_score_gpu_run.sh
set -uo pipefail
NEW=$(cd "$(dirname "$0")/.." && pwd); OLD=${OLD:-$NEW/../eco10_old}; OUT=${OUT:-$NEW/gpu_out}; mkdir -p "$OUT"
S=$OUT/summary.txt; T0=$(date +%s)
log() { echo "== +$(( $(date +%s) - T0 ))s $*" | tee -a "$S"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >> "$S" 2>&1
for t in NEW OLD; do
  dir=${!t}
  (python3 "$NEW/perf/fp32_only_configs.py" "$dir" > /dev/null && cd "$dir" && ROCFLASH_BUILD=cuda \
    TORCH_CUDA_ARCH_LIST=${TORCH_CUDA_ARCH_LIST:-9.0} ROCFLASH_JOBS=8 timeout ${BUILD_TIMEOUT:-120} \
    python3 -m pip install -q --no-build-isolation --no-deps --target /tmp/rf_$t . > /tmp/build_$t.log 2>&1
   echo "build $t rc $?" >> "$S"; tail -5 /tmp/build_$t.log >> "$S") &
done
wait; log "builds done"
(cd "$NEW/tests" && PYTHONPATH=/tmp/rf_NEW timeout 60 python3 -m pytest -q -m gpu -rfEs -p no:cacheprovider \
  test_fp32_alibi_far_rows.py -k dtype0 2>&1 | tail -8 >> "$S"); log "far-rows GPU tests (fp32, NEW)"
for t in NEW OLD; do
  (cd /tmp && PYTHONPATH=/tmp/rf_$t timeout 60 python3 "$NEW/perf/fp32_class_scan.py" --backend cuda 2>&1 | sed "s/^/$t /" >> "$S")
done; log "class scan"
for t in OLD NEW OLD NEW; do
  (cd /tmp && PYTHONPATH=/tmp/rf_$t timeout 40 python3 "$NEW/perf/bwd_breakdown.py" --dtype fp32 --batch 4 --nheads 16 \
    --seqlen 2048 --headdim 128 --repeats 5 2>&1 | sed "s/^/$t /" >> "$S")
done; log "timing"
