#!/usr/bin/env bash
# One device call that checks a whole merged tree on an H200 machine (>= 1 GPU; the cp stage needs >= 2):
# build, the GPU test matrix on both forward tile maths (tensor cores and the gfx906 vector logic), the
# inference and masked-garbage tests, compute-sanitizer, context parallelism, and short speed tables.
# Every stage has its own time limit so that the whole call ends inside the device tool's 10 minutes.
# Results in $OUT: summary.txt setup.txt tests.txt sanitize.txt cp.txt tc.txt train.txt host.txt bench.txt json.tar.gz
#   bash perf/final_run.sh            (stages: build test sanitize cp tc bench; also train, host; pass names to pick)
#   cp stage: CP_SEQLENS, CP_TIME_LIMIT_S, CP_TIMEOUT, and CP_ARGS (more perf/cp_gpu.py flags, e.g. --profile-seqlens)
#   cpfinal stage (not in the default list): bash perf/cp_final_run.sh $CP_FINAL_S (default 150 s): cp_final.txt, and
#   cp_final.json inside json.tar.gz
set -uo pipefail
. "$(dirname "$0")/gpu_lib.sh"  # OUT, REPO, log, gpu_setup_info, gpu_build, gpu_count, run_cp_gpu
mkdir -p /tmp/json
stages=${*:-build test sanitize cp tc bench}
gpu_setup_info "$OUT/setup.txt"
for s in $stages; do case $s in
  build) gpu_build || exit 1 ;;
  test)
    tests=${TEST_FILES:-$(cd tests && ls test_gpu*.py test_cases.py test_fuzz.py test_one_key_rows.py test_compile*.py 2>/dev/null | tr '\n' ' ')}
    for kernel in auto vector; do
      [ $kernel = vector ] && tests=${VECTOR_TEST_FILES:-$tests}
      log "ROCFLASH_KERNEL=$kernel pytest -m gpu ${XDIST:+-n $XDIST} $tests"
      (cd tests && ROCFLASH_KERNEL=$kernel timeout ${TEST_TIMEOUT:-150} python3 -m pytest -q -rfEs -m gpu -p no:cacheprovider \
        --maxfail=30 ${XDIST:+-n $XDIST} $tests > /tmp/tests_$kernel.txt 2>&1)
      log "pytest ($kernel) exit $?"; tail -3 /tmp/tests_$kernel.txt | tee -a "$OUT/summary.txt"
      { echo "##### ROCFLASH_KERNEL=$kernel"; grep -E "FAILED|ERROR|SKIPPED|passed|failed" /tmp/tests_$kernel.txt | tail -80; } >> "$OUT/tests.txt"
    done ;;
  sanitize)
    for tool in memcheck racecheck; do
      for extra in "" "--seq-only"; do
        log "compute-sanitizer --tool $tool python3 perf/sanitize_cases.py $extra"
        PYTORCH_NO_CUDA_MEMORY_CACHING=1 timeout ${SAN_TIMEOUT:-60} compute-sanitizer --tool $tool --error-exitcode 9 \
          python3 perf/sanitize_cases.py $extra > /tmp/san.txt 2>&1
        log "$tool $extra exit $?"; tail -3 /tmp/san.txt | tee -a "$OUT/summary.txt" >> "$OUT/sanitize.txt"
      done
    done ;;
  cp)
    n=$(gpu_count)
    if [ "$n" -lt 2 ]; then log "cp: skipped ($n GPU)"; continue; fi
    log "python3 perf/cp_gpu.py --time-limit-s ${CP_TIME_LIMIT_S:-100} --seqlens ${CP_SEQLENS:-131072,262144} ${CP_ARGS:-}"
    run_cp_gpu "${CP_TIMEOUT:-200}" --out /tmp/json --time-limit-s "${CP_TIME_LIMIT_S:-100}" \
      --seqlens "${CP_SEQLENS:-131072,262144}" ${CP_ARGS:-} > "$OUT/cp.txt" 2>&1
    log "cp exit $?"; tail -12 "$OUT/cp.txt" | tee -a "$OUT/summary.txt" >/dev/null ;;
  cpfinal)  # issue 13's bounded GPU step (perf/cp_final_run.sh): ring correctness, ring / torch CP / 1 GPU 128k-512k
    CP_FINAL_JSON_DIR=/tmp/json bash "$REPO/perf/cp_final_run.sh" "${CP_FINAL_S:-150}"
    log "cpfinal exit $?" ;;
  tc)
    log "python3 -m rocflash.perf --preset perf/presets/tensor_core.yaml --backends cuda cuda-vector flash cudnn"
    (cd /tmp && timeout ${TC_TIMEOUT:-100} python3 -m rocflash.perf --preset "$REPO/perf/presets/tensor_core.yaml" \
      --backends cuda flash cudnn --baseline sdpa-flash --time-limit-s "${TC_TIME_LIMIT_S:-80}" \
      --json /tmp/json/tensor_core.json > "$OUT/tc.txt" 2>&1)
    log "tc exit $?" ;;
  train)
    log "python3 perf/train_check.py (ROCFLASH_KERNEL=${ROCFLASH_KERNEL:-auto})"
    (cd /tmp && timeout ${TRAIN_TIMEOUT:-150} python3 "$REPO/perf/train_check.py" --out /tmp/json > "$OUT/train.txt" 2>&1)
    log "train exit $?"; tail -4 "$OUT/train.txt" | tee -a "$OUT/summary.txt" >/dev/null ;;
  host)
    log "python3 perf/host_overhead.py (host time per call, CUDA-graph decode step)"
    (cd /tmp && timeout ${HOST_TIMEOUT:-60} python3 "$REPO/perf/host_overhead.py" --calls 100 --json /tmp/json/host.json \
      > "$OUT/host.txt" 2>&1)
    log "host exit $?" ;;
  bench)
    log "python3 perf/decode_bench.py --quick"
    (cd /tmp && timeout ${BENCH_TIMEOUT:-90} python3 "$REPO/perf/decode_bench.py" --quick --json /tmp/json/decode.json \
      > "$OUT/bench.txt" 2>&1)
    log "bench exit $?"
    log "python3 perf/decode_kernel_bench.py --quick --no-sweep --no-variants (kernel alone from CUDA graphs vs cuDNN's)"
    (cd /tmp && timeout ${KBENCH_TIMEOUT:-60} python3 "$REPO/perf/decode_kernel_bench.py" --quick --no-sweep --no-variants \
      --json /tmp/json/decode_kernel.json >> "$OUT/bench.txt" 2>&1)
    log "kernel bench exit $?" ;;
esac; done
tar -czf "$OUT/json.tar.gz" -C /tmp json 2>/dev/null
log done
