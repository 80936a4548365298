# perf/gpu_lib.sh - what the one-call device scripts share; `source perf/gpu_lib.sh` from the repository root.
# Sets OUT (the device tool's result folder, or ./gpu_out), T0, PYTHONUNBUFFERED; defines:
#   log MESSAGE               a timestamped line (seconds since T0) on stdout and in $OUT/summary.txt
#   gpu_info                  the GPU, driver, memory and clock line into $OUT/summary.txt
#   build_cuda                the CUDA build of this tree (TORCH_CUDA_ARCH_LIST, default 9.0); exits on failure
#   gpu_pytest NAME LIMIT_S ARGS...   pytest -m gpu ARGS in tests/ under `timeout LIMIT_S` into $OUT/NAME.txt
OUT=${OUT:-$PWD/gpu_out}; mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
T0=$(date +%s)
log() { echo "== $(date -u +%H:%M:%S) +$(( $(date +%s) - T0 ))s $*" | tee -a "$OUT/summary.txt"; }
gpu_info() { nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm --format=csv >> "$OUT/summary.txt"; }
build_cuda() {
  log "build (ROCFLASH_BUILD=cuda TORCH_CUDA_ARCH_LIST=${TORCH_CUDA_ARCH_LIST:-9.0})"
  ROCFLASH_BUILD=cuda TORCH_CUDA_ARCH_LIST=${TORCH_CUDA_ARCH_LIST:-9.0} python3 -m pip install -q --no-build-isolation \
    --no-deps . > /tmp/build.log 2>&1 || { tail -60 /tmp/build.log | tee -a "$OUT/summary.txt"; log "BUILD FAILED"; exit 1; }
  log "built"
}
gpu_pytest() {
  local name=$1 limit=$2
  shift 2
  log "pytest -m gpu $* (limit ${limit} s) -> $name.txt"
  (cd tests && timeout "$limit" python3 -m pytest -q -m gpu -p no:cacheprovider --maxfail=10 "$@" > "$OUT/$name.txt" 2>&1)
  log "exit $?"; tail -4 "$OUT/$name.txt" | tee -a "$OUT/summary.txt"
}
