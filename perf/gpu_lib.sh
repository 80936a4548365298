# Shared lines of the device-call scripts (perf/final_run.sh, perf/gpu_run.sh, perf/cp_final_run.sh): sourced,
# not run. Defines OUT (default ./gpu_out, created), REPO (the tree this file is in), PYTHONUNBUFFERED, and:
#   log MSG...              "== HH:MM:SS MSG" to stdout and $OUT/summary.txt (LOG_FILE overrides the file)
#   gpu_setup_info FILE     GPU names, driver, memory and SM clock, and the tree's commit, appended to FILE
#   gpu_count               number of visible NVIDIA GPUs (0 without nvidia-smi)
#   gpu_build [FILE]        ROCFLASH_BUILD=cuda TORCH_CUDA_ARCH_LIST=9.0 pip install of this tree into the device's
#                           python3 (BUILD_TIMEOUT s, default 240), its time in the log, `rocflash info` appended to
#                           FILE (default $OUT/setup.txt); returns 1 (and logs BUILD FAILED with the log's tail)
#   run_cp_gpu TIMEOUT_S ARGS...   python3 perf/cp_gpu.py ARGS from /tmp (the installed rocflash, not the source
#                           tree), its own --timeout-s 10 s less (it kills hung ranks and keeps what was measured),
#                           TIMEOUT_S the backstop (timeout signals the whole process group: the ranks too);
#                           returns its exit status (124: timed out)
export OUT=${OUT:-$PWD/gpu_out}
mkdir -p "$OUT"
REPO=${REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
export PYTHONUNBUFFERED=1

log() { echo "== $(date -u +%H:%M:%S) $*" | tee -a "${LOG_FILE:-$OUT/summary.txt}"; }

gpu_setup_info() {
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm --format=csv >> "$1" 2>&1 || echo "no nvidia-smi" >> "$1"
  git -C "$REPO" log -1 --format=%H >> "$1" 2>/dev/null || true
}

gpu_count() { nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true; }

gpu_build() {
  local info=${1:-$OUT/setup.txt} start
  log "build: ROCFLASH_BUILD=cuda TORCH_CUDA_ARCH_LIST=9.0 pip install --no-build-isolation --no-deps ."
  start=$(date +%s)
  (cd "$REPO" && ROCFLASH_BUILD=cuda TORCH_CUDA_ARCH_LIST=9.0 timeout "${BUILD_TIMEOUT:-240}" \
    python3 -m pip install -q --no-build-isolation --no-deps . > /tmp/build.log 2>&1) \
    || { tail -60 /tmp/build.log | tee -a "$info"; log "BUILD FAILED"; return 1; }
  log "build took $(( $(date +%s) - start )) s"
  (cd /tmp && python3 -m rocflash info) >> "$info" 2>&1
}

run_cp_gpu() {
  local limit=$1
  shift
  (cd /tmp && timeout -k 5 "$limit" python3 "$REPO/perf/cp_gpu.py" --timeout-s "$(( limit > 20 ? limit - 10 : limit ))" "$@")
}
