#!/usr/bin/env bash
# dec11's GPU stage (issue 9 item 6: the plain-decode loop of the tensor-core split-KV kernel, ROCFLASH_SPLITKV_PLAIN),
# on an INSTALLED CUDA build (ROCFLASH_BUILD=cuda TORCH_CUDA_ARCH_LIST=9.0a), from the tree root:
#     OUT=$OUT bash perf/dec11_stage.sh [LIMIT_S]      (default HELPER_S, else 300: the whole stage)
# 1 tests     ROCFLASH_KERNEL=auto pytest -m gpu test_gpu_splitkv_dec8.py (the plain variants bitwise the default,
#             the case where they differ by design), then with ROCFLASH_SPLITKV_PLAIN=1 for the whole process
#             test_gpu_kvstep_fold.py test_gpu_inference.py test_gpu_varlen.py test_gpu_splitkv_dec7.py (DEC11_TEST_PCT,
#             default 30 %)
# 2 sanitize  compute-sanitizer memcheck and racecheck of perf/sanitize_cases.py --seq-only with PLAIN=1 (22 %)
# 3 ncu       warm-cache instruction counts and durations of the split kernels at 1 x 4k and 1 x 16k (perf/decode_ncu.py),
#             of the DEC11_NCU environments (';'-separated; default PLAIN=0, PLAIN=1, PLAIN=1 with INFLIGHT=2; cuDNN's
#             kernels in the same programs) (DEC11_NCU_PCT, default 20 %; one ncu run takes ~25 s)
# 4 bench     perf/dec9_stage.py over issue 9's grid (batch 1/8/32 x 4k/16k/128k, paged16 / paged256 / dense), variants
#             DEC11_VARIANTS (default base, plain, plain2 = plain with two tiles in flight, fill, plainfill; dec9_stage.py
#             VARIANTS), eager + graphs, two rounds, SDPA cuDNN beside, the kernel profile at 1 x 4k and 1 x 16k of
#             DEC11_PROFILE (default base, plain, plain2) (the rest)
# Everything goes to "$OUT/dec11.txt"; the last line printed is the summary.
set -uo pipefail
OUT=${OUT:-/tmp/dec11_out}
mkdir -p "$OUT"
REPO=$(cd "$(dirname "$0")/.." && pwd)
LIMIT=${1:-${HELPER_S:-300}}
T0=$(date +%s)
left() { echo $(( LIMIT - ($(date +%s) - T0) )); }
share() { local t=$(( LIMIT * $1 / 100 )); [ "$t" -gt "$(left)" ] && t=$(left); echo "$t"; }
F="$OUT/dec11.txt"
PLAIN=ROCFLASH_SPLITKV_PLAIN
echo "dec11 stage, $(date -u +%FT%TZ), tree $(git -C "$REPO" rev-parse --short HEAD 2>/dev/null || echo 'no git'), limit $LIMIT s" > "$F"
XDIST=$(python3 -c "import xdist" 2>/dev/null && echo "-n 8")

T=$(share ${DEC11_TEST_PCT:-30})
TESTS="skipped (DEC11_TEST_PCT)"
if [ "$T" -ge 10 ]; then
(cd "$REPO/tests" && ROCFLASH_KERNEL=auto timeout $(( T * 2 / 5 )) python3 -m pytest -q -rfE -m gpu -p no:cacheprovider \
  --tb=short $XDIST test_gpu_splitkv_dec8.py > /tmp/dec11_t1.txt 2>&1)
R1=$?
(cd "$REPO/tests" && env $PLAIN=1 ROCFLASH_KERNEL=auto timeout $(( T * 3 / 5 )) python3 -m pytest -q -rfE -m gpu \
  -p no:cacheprovider --tb=short $XDIST test_gpu_kvstep_fold.py test_gpu_inference.py test_gpu_varlen.py \
  test_gpu_splitkv_dec7.py > /tmp/dec11_t2.txt 2>&1)  # (test_split_fused_combine_and_inflight sets INFLIGHT=2: plain2)
R2=$?
{ echo "##### pytest -m gpu test_gpu_splitkv_dec8.py: exit $R1"; tail -25 /tmp/dec11_t1.txt
  echo "##### $PLAIN=1 pytest -m gpu test_gpu_kvstep_fold.py test_gpu_inference.py test_gpu_varlen.py test_gpu_splitkv_dec7.py: exit $R2"
  tail -25 /tmp/dec11_t2.txt; } >> "$F"
TESTS="dec8 file: $(tail -1 /tmp/dec11_t1.txt | tr -d '=' | sed 's/^ *//'); PLAIN=1 files: $(tail -1 /tmp/dec11_t2.txt | tr -d '=' | sed 's/^ *//')"
fi

T=$(share 22)
SAN=""
if command -v compute-sanitizer > /dev/null && [ "$T" -ge 20 ]; then
  for tool in memcheck racecheck; do
    (cd /tmp && env $PLAIN=1 PYTORCH_NO_CUDA_MEMORY_CACHING=1 timeout $(( T / 2 )) compute-sanitizer --tool $tool \
      --error-exitcode 9 python3 "$REPO/perf/sanitize_cases.py" --seq-only > /tmp/dec11_$tool.txt 2>&1)
    rc=$?
    SAN="$SAN $tool exit $rc ($(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' /tmp/dec11_$tool.txt | tail -1));"
    { echo "##### $PLAIN=1 compute-sanitizer --tool $tool perf/sanitize_cases.py --seq-only: exit $rc"; tail -6 /tmp/dec11_$tool.txt; } >> "$F"
  done
else
  SAN="skipped"
fi

T=$(share ${DEC11_NCU_PCT:-20})
M="gpu__time_duration.sum,sm__cycles_active.avg,smsp__inst_executed.sum,smsp__warps_active.avg.per_cycle_active"
NCU_VARIANTS=${DEC11_NCU:-"$PLAIN=0;$PLAIN=1;$PLAIN=1 ROCFLASH_SPLITKV_INFLIGHT=2"}
NV=$(echo "$NCU_VARIANTS" | tr ';' '\n' | wc -l)
if command -v ncu > /dev/null && [ "$T" -ge 20 ]; then
  IFS=';' read -ra NCU_LIST <<< "$NCU_VARIANTS"
  for variant in "${NCU_LIST[@]}"; do
    for case in 1x4096 1x16384; do
      (cd /tmp && env $variant timeout $(( T / (2 * NV) )) ncu --clock-control none --cache-control none \
        -k regex:"splitkv|sdpa|lean_reduction" -s 2 -c 4 --metrics "$M" python3 "$REPO/perf/decode_ncu.py" --case $case \
        > /tmp/dec11_ncu.txt 2>&1)
      echo "##### ncu $variant $case: exit $?" >> "$F"
      grep -E "^  [a-z_]|gpu__time|sm__cycles|inst_executed|warps_active" /tmp/dec11_ncu.txt | sed 's/^/  /' >> "$F"
    done
  done
fi

T=$(( $(left) - 3 ))
if [ "$T" -gt 30 ]; then
  echo "##### python3 perf/dec9_stage.py (issue 9's grid, base / plain; limit $T s)" >> "$F"
  (cd /tmp && timeout "$T" python3 "$REPO/perf/dec9_stage.py" \
    --cases 1x4096,1x16384,1x131072,8x4096,8x16384,8x131072,32x4096,32x16384,32x131072 \
    --kinds paged16,paged256,dense --variants ${DEC11_VARIANTS:-base,plain,plain2,fill,plainfill} --profile-cases 1x4096,1x16384 \
    --profile-variants ${DEC11_PROFILE:-base,plain,plain2} \
    --deadline-s $(( T * 3 / 4 )) --json "$OUT/dec11.json" >> "$F" 2>&1)
  echo "bench exit $?" >> "$F"
fi
echo "DEC11 tests: $TESTS | sanitizers:$SAN | $(grep '^VERDICT' "$F" | tail -1 | cut -c1-400)" | tee -a "$F"
