# perf/gpu_lib.sh - what the one-call device scripts share (perf/final_run.sh, gpu_run.sh, cp_final_run.sh,
# decode_*_gpu_run.sh); sourced, not run. Sets OUT (the device tool's result folder, or ./gpu_out; created,
# exported), REPO (the tree this file is in), T0, PYTHONUNBUFFERED; defines:
#   log MESSAGE               a timestamped line (seconds since T0) on stdout and in $OUT/summary.txt (LOG_FILE
#                             overrides the file)
#   gpu_info                  the GPU, driver, memory and clock line (and the commit) into $OUT/summary.txt
#   gpu_setup_info FILE       the same into FILE
#   gpu_count                 number of visible NVIDIA GPUs (0 without nvidia-smi)
#   gpu_build [FILE]          the CUDA build of this tree (ROCFLASH_BUILD=cuda, TORCH_CUDA_ARCH_LIST default 9.0,
#                             BUILD_TIMEOUT s, default 240), `rocflash info` into FILE (default $OUT/setup.txt);
#                             returns 1 (logging BUILD FAILED and the log's tail) on failure
#   build_cuda                gpu_build into $OUT/summary.txt; exits on failure
#   gpu_subset_build W SRC HEADDIMS DTYPES [INFO]   a copy of tree SRC at W (no .git, no .wt) with only those
#                             CUDA tables (perf/subset_configs.py; build time), gpu_build there into INFO
#                             (TORCH_CUDA_ARCH_LIST, BUILD_TIMEOUT as gpu_build)
#   gpu_pytest NAME LIMIT_S ARGS...   pytest -m gpu ARGS in tests/ under `timeout LIMIT_S` into $OUT/NAME.txt
#   run_cp_gpu TIMEOUT_S ARGS...      python3 perf/cp_gpu.py ARGS from /tmp (the installed rocflash, not the source
#                             tree), its own --timeout-s 10 s less (it kills hung ranks and keeps what was measured),
#                             TIMEOUT_S the backstop (timeout signals the whole process group: the ranks too);
#                             returns its exit status (124: timed out)
#   apply_variant W HDR EXPR LOG      W/hip_src/HDR = this tree's with `sed -i EXPR` applied, the diff's head appended
#                             to LOG; returns 1 when the edit changes nothing (a pattern of another tree)
#   run_variants W LOG FN             per entry NAME|HEADER|SED-EXPRESSION of VARIANTS (entries separated by @@; a
#                             diagnostic): apply_variant, a 9.0a build of W into $OUT/setup_NAME.txt, then FN NAME;
#                             W's header is restored after each entry, also when it is skipped
export OUT=${OUT:-$PWD/gpu_out}
mkdir -p "$OUT"
REPO=${REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
export PYTHONUNBUFFERED=1
T0=$(date +%s)

log() { echo "== $(date -u +%H:%M:%S) +$(( $(date +%s) - T0 ))s $*" | tee -a "${LOG_FILE:-$OUT/summary.txt}"; }

gpu_setup_info() {
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm --format=csv >> "$1" 2>&1 || echo "no nvidia-smi" >> "$1"
  git -C "$REPO" log -1 --format=%H >> "$1" 2>/dev/null || true
}

gpu_info() { gpu_setup_info "$OUT/summary.txt"; }

gpu_count() { nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true; }

gpu_build() {
  local info=${1:-$OUT/setup.txt} start arch=${TORCH_CUDA_ARCH_LIST:-9.0}
  log "build: ROCFLASH_BUILD=cuda TORCH_CUDA_ARCH_LIST=$arch pip install --no-build-isolation --no-deps ."
  start=$(date +%s)
  (cd "$REPO" && ROCFLASH_BUILD=cuda TORCH_CUDA_ARCH_LIST=$arch timeout "${BUILD_TIMEOUT:-240}" \
    python3 -m pip install -q --no-build-isolation --no-deps . > /tmp/build.log 2>&1) \
    || { tail -60 /tmp/build.log | tee -a "$info"; log "BUILD FAILED"; return 1; }
  log "build took $(( $(date +%s) - start )) s"
  (cd /tmp && python3 -m rocflash info) >> "$info" 2>&1
}

build_cuda() { gpu_build "$OUT/summary.txt" || exit 1; }

gpu_subset_build() {
  local w=$1 src=$2 heads=$3 dtypes=$4 info=${5:-$OUT/setup.txt}
  rm -rf "$w" && mkdir -p "$w" && (cd "$src" && tar --exclude=./.wt --exclude=./.git -cf - .) | (cd "$w" && tar -xf -)
  python3 "$REPO/perf/subset_configs.py" --headdims "$heads" --dtypes "$dtypes" "$w" >> "$OUT/summary.txt" 2>&1
  REPO=$w gpu_build "$info"
}

gpu_pytest() {
  local name=$1 limit=$2
  shift 2
  log "pytest -m gpu $* (limit ${limit} s) -> $name.txt"
  (cd "$REPO/tests" && timeout "$limit" python3 -m pytest -q -m gpu -p no:cacheprovider --maxfail=10 "$@" > "$OUT/$name.txt" 2>&1)
  log "exit $?"; tail -4 "$OUT/$name.txt" | tee -a "$OUT/summary.txt"
}

run_cp_gpu() {
  local limit=$1
  shift
  (cd /tmp && timeout -k 5 "$limit" python3 "$REPO/perf/cp_gpu.py" --timeout-s "$(( limit > 20 ? limit - 10 : limit ))" "$@")
}

apply_variant() {
  local w=$1 hdr=$2 expr=$3 logf=$4
  cp "$REPO/hip_src/$hdr" "$w/hip_src/$hdr" && sed -i "$expr" "$w/hip_src/$hdr"
  diff "$REPO/hip_src/$hdr" "$w/hip_src/$hdr" | head -8 | tee -a "$logf"
  ! cmp -s "$REPO/hip_src/$hdr" "$w/hip_src/$hdr"
}

run_variants() {
  local w=$1 logf=$2 fn=$3 rest=${VARIANTS:-} v name hdr expr
  while [ -n "$rest" ]; do
    v=${rest%%@@*}; [ "$v" = "$rest" ] && rest="" || rest=${rest#*@@}
    name=${v%%|*}; v=${v#*|}; hdr=${v%%|*}; expr=${v#*|}
    if ! apply_variant "$w" "$hdr" "$expr" "$logf"; then
      log "variant $name: its edit matched nothing, skipped"
    elif REPO=$w TORCH_CUDA_ARCH_LIST=9.0a BUILD_TIMEOUT=200 gpu_build "$OUT/setup_$name.txt"; then
      "$fn" "$name"
    else
      log "build $name failed"
    fi
    cp "$REPO/hip_src/$hdr" "$w/hip_src/$hdr"
  done
}
