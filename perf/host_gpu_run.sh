#!/usr/bin/env bash
# One device call for the host-path work (issues 9 and 12): build; the GPU tests of the host path and the KV-cache
# calls; perf/host_overhead.py on this tree and on the base commit's Python (BASE_SRC, installed without kernels,
# the same compiled module copied in: the kernels are identical); the batch-1 decode / paged rows and the
# tensor-core 1k forward through `python -m rocflash.perf` beside SDPA flash and cuDNN. Results in $OUT.
set -uo pipefail
OUT=${OUT:-$PWD/gpu_out}; mkdir -p "$OUT"
ROOT=$PWD
export PYTHONUNBUFFERED=1
T0=$(date +%s)
log() { echo "== $(date -u +%H:%M:%S) +$(( $(date +%s) - T0 ))s $*" | tee -a "$OUT/summary.txt"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >> "$OUT/summary.txt" 2>&1
log "build"
ROCFLASH_BUILD=cuda TORCH_CUDA_ARCH_LIST=9.0 python3 -m pip install -q --no-build-isolation --no-deps . > /tmp/build.log 2>&1 \
  || { tail -40 /tmp/build.log | tee -a "$OUT/summary.txt"; log "BUILD FAILED"; exit 1; }
log "built; pytest -m gpu test_gpu_host_path.py test_gpu_inference.py"
(cd tests && timeout "${TEST_TIMEOUT:-60}" python3 -m pytest -q -m gpu -p no:cacheprovider --maxfail=5 \
   test_gpu_host_path.py test_gpu_inference.py > "$OUT/tests.txt" 2>&1)
log "tests exit $?"; tail -4 "$OUT/tests.txt" | tee -a "$OUT/summary.txt"
(cd /tmp && timeout 45 python3 "$ROOT/perf/host_overhead.py" --calls "${CALLS:-100}" --json "$OUT/host_after.json" \
   > "$OUT/host_after.txt" 2>&1)
log "host overhead (this tree) exit $?"
if [ -n "${BASE_SRC:-}" ]; then
  # from /tmp: in the source tree `import rocflash` would find the unbuilt sources
  SO=$(cd /tmp && python3 -c 'import rocflash, os, glob; print(glob.glob(os.path.dirname(rocflash.__file__) + "/_C_cuda*.so")[0])')
  (cd "$BASE_SRC" && ROCFLASH_BUILD=none python3 -m pip install -q --no-build-isolation --no-deps --target /tmp/base . \
     > /tmp/base.log 2>&1) && cp "$SO" /tmp/base/rocflash/
  (cd /tmp && PYTHONPATH=/tmp/base timeout 45 python3 "$ROOT/perf/host_overhead.py" --calls "${CALLS:-100}" --no-graph \
     --json "$OUT/host_before.json" > "$OUT/host_before.txt" 2>&1)
  log "host overhead (base commit) exit $?"
fi
(cd /tmp && timeout "${PERF_TIMEOUT:-60}" python3 -m rocflash.perf --preset "$ROOT/perf/presets/host.yaml" \
   --backends cuda flash cudnn --budget-s 0.1 --time-limit-s "${PERF_LIMIT:-45}" --baseline sdpa-flash \
   --json "$OUT/perf.json" --no-progress > "$OUT/perf.txt" 2>&1)
log "perf exit $?"
cat "$OUT/host_after.txt" "$OUT/perf.txt"
