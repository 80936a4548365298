#!/usr/bin/env bash
# perf/sbcast_gpu_run.sh OLD_TREE - one device call (NVIDIA H200): the CUDA build of the scalar-broadcast forward in
# this tree against the same kernel in OLD_TREE (e.g. `git archive main` unpacked), issue 10 item 5's check that a
# kernel change the gfx906 cycle model favours is not slower on the NVIDIA vector build. Both trees built in
# parallel into their own --target folders; tests/test_gpu_sbcast.py on this tree; perf/presets/sbcast_fwd.yaml
# under ROCFLASH_KERNEL=sbcast for the old tree, then this one (same machine, one after the other), and
# perf/compare.py on the two JSON files. Results in $OUT (summary.txt, the two JSON files, the pytest log).
set -u
source "$(dirname "${BASH_SOURCE[0]}")/gpu_lib.sh"
OLD=$(cd "$1" && pwd)
gpu_info
log "builds (parallel): ROCFLASH_BUILD=cuda TORCH_CUDA_ARCH_LIST=9.0 pip install --target"
for t in new old; do
  src=$REPO; [ "$t" = old ] && src=$OLD
  (cd "$src" && ROCFLASH_BUILD=cuda TORCH_CUDA_ARCH_LIST=9.0 timeout 300 python3 -m pip install -q --no-build-isolation \
    --no-deps --target "/tmp/rf_$t" . > "/tmp/build_$t.log" 2>&1; echo "build $t rc=$?" >> "$OUT/summary.txt") &
done
wait
log "pytest -m gpu test_gpu_sbcast.py (this tree)"
(cd "$REPO/tests" && PYTHONPATH=/tmp/rf_new timeout 240 python3 -m pytest -q -m gpu -p no:cacheprovider test_gpu_sbcast.py \
  > "$OUT/pytest_sbcast.txt" 2>&1); log "exit $?"; tail -3 "$OUT/pytest_sbcast.txt" | tee -a "$OUT/summary.txt"
for t in old new; do
  log "perf $t: ROCFLASH_KERNEL=sbcast python3 -m rocflash.perf --preset sbcast_fwd.yaml --backends cuda"
  (cd /tmp && PYTHONPATH=/tmp/rf_$t ROCFLASH_KERNEL=sbcast timeout 200 python3 -m rocflash.perf \
    --preset "$REPO/perf/presets/sbcast_fwd.yaml" --backends cuda --warmup 3 --repeats 20 --budget-s 0.3 --no-progress \
    --json "$OUT/perf_sbcast_$t.json") 2>&1 | tee -a "$OUT/summary.txt"
done
python3 "$REPO/perf/compare.py" --threshold 0.03 "$OUT/perf_sbcast_old.json" "$OUT/perf_sbcast_new.json" 2>&1 | tee -a "$OUT/summary.txt"
log "done"
