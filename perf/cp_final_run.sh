#!/usr/bin/env bash
# Context parallelism's GPU checks (issue 13) in one bounded step of a device call on 2 GPUs, after the build:
#   bash perf/cp_final_run.sh [TIME_S] [stage ...]     (TIME_S: wall-clock budget of all stages together, default 150)
# Stages (default: correct speed; the tree must be installed: perf/final_run.sh build, or stage build here):
#   build    perf/gpu_lib.sh's gpu_build (ROCFLASH_BUILD=cuda TORCH_CUDA_ARCH_LIST=9.0 pip install .), inside TIME_S
#   correct  the ring's correctness cases through the compiled kernels (perf/cp_gpu.py --skip-speed: 2 ranks, NCCL;
#            tests/cp_check.py's cases against fp64 with FlashAttention's rule, outputs NaN-poisoned, among them
#            softmax_scale 50 at the 16-bit backward's limit); at most CORRECT_S s (default 60)
#   speed    perf/cp_gpu.py --skip-correctness, causal bf16 fwd+bwd, batch 1, nheads 32, headdim 128: one profiled
#            call at 64k (NCCL time hidden behind compute), then 128k, 256k, 512k (CP_SEQLENS): the ring on 2 GPUs,
#            the exchange alone, compute alone (<= 128k), torch's context_parallel + SDPA flash on the same GPUs,
#            and 1 GPU (flash_attn_func on rank 0) where its memory estimate fits. Each measurement is predicted
#            from the last measured rate first and skipped, with a line saying so, when it does not fit the time left.
# Every stage prints its wall time. Results in $OUT (2 files; OUT unset: ./gpu_out, git-ignored; the stages' scratch
# is a fresh mktemp -d, removed at exit): cp_final.txt (this log, every line of cp_gpu.py,
# a summary table at the end) and cp_final.json ({"correct": cp.json of stage correct, "speed": that of speed};
# into $CP_FINAL_JSON_DIR instead when set: perf/final_run.sh's cpfinal stage puts it in its json.tar.gz).
# Exit status 0 when every stage ran and every correctness case passed.
# CPU check of this script (no GPU: gloo, backend torch, tiny sizes): CP_DEVICE=cpu bash perf/cp_final_run.sh 240
set -uo pipefail
. "$(dirname "$0")/gpu_lib.sh"  # OUT, REPO, log, gpu_setup_info, gpu_build, gpu_count, run_cp_gpu
LOG_FILE=$OUT/cp_final.txt
TIME_S=${1:-150}
[ $# -gt 0 ] && shift
stages=${*:-correct speed}
t_start=$(date +%s)
left() { echo $(( TIME_S - ($(date +%s) - t_start) )); }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/cp_final.XXXXXX")  # per run: two users (or runs) never clobber each other
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/correct" "$WORK/speed"
status=0

if [ "${CP_DEVICE:-cuda}" = cpu ]; then
  dev=(--device cpu --nprocs 2 --nheads 4 --headdim 32)
  correct_args=(--tiny)
  speed_args=(--seqlens "${CP_SEQLENS:-256,512}" --profile-seqlens 128 --compute-only-max 256 --assumed-tflops 0.01)
  startup_s=40  # spawning 2 ranks, imports, gloo, the warm-up call (a loaded 2-core machine)
else
  dev=(--device cuda)
  correct_args=()
  speed_args=(--seqlens "${CP_SEQLENS:-131072,262144,524288}" --profile-seqlens "${CP_PROFILE:-65536}"
              --compute-only-max 131072 --one-gpu-max 524288 --assumed-tflops 100 --no-warmup-over-s 1.5)
  startup_s=25  # spawning 2 ranks, imports, NCCL communicators, the warm-up call, the final writes
  n=$(gpu_count)
  if [ "$n" -lt 2 ]; then
    log "cp_final_run: needs 2 GPUs, found $n: nothing run"; exit 2
  fi
  gpu_setup_info "$LOG_FILE"
fi
log "cp_final_run: budget ${TIME_S} s, stages: $stages"

for s in $stages; do
  t0=$(date +%s)
  case $s in
    build)
      gpu_build "$LOG_FILE" || { status=1; break; } ;;
    correct)
      limit=$(( $(left) < ${CORRECT_S:-60} ? $(left) : ${CORRECT_S:-60} ))
      if [ "$limit" -lt 20 ]; then log "correct: skipped (${limit} s left)"; status=1; continue; fi
      log "correct: python3 perf/cp_gpu.py --skip-speed ${dev[*]} ${correct_args[*]} (at most ${limit} s)"
      run_cp_gpu "$limit" --out "$WORK/correct" --skip-speed "${dev[@]}" ${correct_args[@]+"${correct_args[@]}"} 2>&1 | tee -a "$LOG_FILE"
      rc=${PIPESTATUS[0]}; [ "$rc" -ne 0 ] && status=1
      log "correct: exit $rc" ;;
    speed)
      limit=$(( $(left) - 8 ))  # 8 s for the files and the summary below
      budget=$(( limit - startup_s ))
      if [ "$budget" -lt 10 ]; then log "speed: skipped (${limit} s left, ${startup_s} s of start-up)"; status=1; continue; fi
      log "speed: python3 perf/cp_gpu.py --skip-correctness ${dev[*]} ${speed_args[*]} --time-limit-s $budget (at most ${limit} s)"
      run_cp_gpu "$limit" --out "$WORK/speed" --skip-correctness --time-limit-s "$budget" "${dev[@]}" "${speed_args[@]}" \
        2>&1 | tee -a "$LOG_FILE"
      rc=${PIPESTATUS[0]}; [ "$rc" -ne 0 ] && status=1
      log "speed: exit $rc" ;;
    *)
      log "unknown stage '$s' (stages: build correct speed)"; status=1; continue ;;
  esac
  log "$s: wall time $(( $(date +%s) - t0 )) s ($(left) s of ${TIME_S} s left)"
done

mkdir -p "${CP_FINAL_JSON_DIR:-$OUT}"
timeout 20 python3 - "$WORK" "${CP_FINAL_JSON_DIR:-$OUT}/cp_final.json" <<'EOF'
import json, os, sys
work, dest = sys.argv[1], sys.argv[2]
merged = {}
for stage in ("correct", "speed"):
    path = os.path.join(work, stage, "cp.json")
    if os.path.exists(path):
        with open(path) as f:
            merged[stage] = json.load(f)
with open(dest, "w") as f:
    json.dump(merged, f, indent=1)
EOF
# the summary names each stage's report where it is kept (the stage's key in cp_final.json), not the scratch
# path removed at exit
reports=() labels=()
for stage in correct speed; do
  [ -f "$WORK/$stage/cp.json" ] && reports+=("$WORK/$stage/cp.json") && labels+=("cp_final.json[\"$stage\"]")
done
summary="no cp.json written (see the stages' lines above)"
[ ${#reports[@]} -gt 0 ] && summary=$(cd /tmp && timeout 30 python3 "$REPO/perf/cp_gpu.py" --summarize "${reports[@]}" \
  --labels "${labels[@]}" 2>&1)
{ echo "## summary"; echo "$summary"; } | tee -a "$LOG_FILE"
log "cp_final_run: done in $(( $(date +%s) - t_start )) s of ${TIME_S} s, exit $status; results in $OUT"
exit $status
