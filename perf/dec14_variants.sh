#!/usr/bin/env bash
# dec14 device call (issue 9 item 6; diagnostics only): header variants of the tensor-core split-KV kernel measured
# against the unedited tree in ALTERNATING PROCESSES, so that a variant's effect can be told from the cross-process
# offset (up to ~2 % of the x-cuDNN ratio between two processes running the same code: perf/RESULTS.md "dec13").
#   OUT=$OUT bash perf/dec14_variants.sh
# Each variant (the base included) is a 9.0a build of the headdim-128 bf16 tables (perf/subset_configs.py) installed
# with `pip install --target` into its own directory (the builds run in parallel); then ROUNDS rounds run
# perf/dec13_probe.py (PROBE_ARGS) once per variant, PYTHONPATH selecting the build, the variants' order reversed
# every other round. Each probe also times SDPA cuDNN in its own process (the offset shows there).
# Variants (name, header, sed expression; VARIANT_NAMES picks a subset):
#   pf256   the copies' L2 prefetch-size hint 256 B instead of 128 (fmha_splitkv_mma.h kL2Prefetch)
#   evict   the 128-B-hint copies (every K/V copy of the tensor-core split kernel) with an L2::evict_first cache
#           policy (createpolicy.fractional 1.0): K/V lines, read once, leave the L2 before Q, the block tables and
#           cache_seqlens of the next calls
#   evict256  both
set -uo pipefail
. "$(dirname "$0")/gpu_lib.sh"
LOG_FILE=$OUT/dec14.txt
EVICT='/cp.async.cg.shared.global.L2::128B \[/c\    { uint64_t pol; asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(pol)); asm volatile("cp.async.cg.shared.global.L2::cache_hint.L2::128B [%0], [%1], 16, %2, %3;" ::"r"(dst), "l"(src), "r"(src_bytes), "l"(pol)); }'
EVICT256=${EVICT//128B/256B}  # (the 256-B line of cp_async_16_l2, which kL2Prefetch = 256 selects)
PF256='s/kL2Prefetch = 128;/kL2Prefetch = 256;/'
declare -A HDR=([pf256]=fmha_splitkv_mma.h [evict]=fmha_mma.h [evict256]=fmha_mma.h)
declare -A EXPR=([pf256]="$PF256" [evict]="$EVICT" [evict256]="$EVICT256")
NAMES="base ${VARIANT_NAMES:-pf256 evict evict256}"

build_one() {  # name: tree /tmp/dec14_NAME, installed into /tmp/dec14_inst_NAME
  local name=$1 w=/tmp/dec14_$1 inst=/tmp/dec14_inst_$1
  rm -rf "$w" "$inst" && mkdir -p "$w" && (cd "$REPO" && tar --exclude=./.wt --exclude=./.git -cf - .) | (cd "$w" && tar -xf -)
  if [ "$name" != base ]; then
    apply_variant "$w" "${HDR[$name]}" "${EXPR[$name]}" "$OUT/diff_$name.txt" > /dev/null || { echo "EDIT MATCHED NOTHING"; return 1; }
    if [ "$name" = evict256 ]; then  # the 256-B hint too
      sed -i "$PF256" "$w/hip_src/fmha_splitkv_mma.h" && ! cmp -s "$REPO/hip_src/fmha_splitkv_mma.h" "$w/hip_src/fmha_splitkv_mma.h" \
        || { echo "PF256 EDIT MATCHED NOTHING"; return 1; }
      diff "$REPO/hip_src/fmha_splitkv_mma.h" "$w/hip_src/fmha_splitkv_mma.h" >> "$OUT/diff_$name.txt"
    fi
  fi
  python3 "$REPO/perf/subset_configs.py" --headdims 128 --dtypes bf16 "$w" > /dev/null 2>&1
  (cd "$w" && ROCFLASH_BUILD=cuda TORCH_CUDA_ARCH_LIST=9.0a MAX_JOBS=${JOBS_EACH:-6} timeout "${BUILD_TIMEOUT:-240}" \
    python3 -m pip install -q --no-build-isolation --no-deps --target "$inst" . > "/tmp/dec14_build_$name.log" 2>&1) \
    || { tail -30 "/tmp/dec14_build_$name.log"; return 1; }
  (cd /tmp && PYTHONPATH=$inst python3 -c "import rocflash; print(rocflash.__file__)")
}

log "building: $NAMES (parallel)"
for n in $NAMES; do (build_one "$n" > "$OUT/build_$n.txt" 2>&1; echo "rc $?" >> "$OUT/build_$n.txt") & done
wait
OK=""
for n in $NAMES; do
  log "build $n: $(tail -2 "$OUT/build_$n.txt" | tr '\n' ' ')"
  grep -q "rc 0" "$OUT/build_$n.txt" && OK="$OK $n"
done
cat "$OUT"/diff_*.txt >> "$LOG_FILE" 2>/dev/null
order=$OK
for r in $(seq 1 "${ROUNDS:-2}"); do
  for n in $order; do
    (cd /tmp && PYTHONPATH=/tmp/dec14_inst_$n timeout "${PROBE_S:-60}" python3 "$REPO/perf/dec13_probe.py" \
      ${PROBE_ARGS:---cases 1x4096,1x16384,8x4096,32x16384 --envs default --kinds dense,densekv,paged16,paged256} \
      > "$OUT/probe_${n}_r$r.txt" 2>&1)
    log "probe $n round $r exit $?"
    grep "DEC13" "$OUT/probe_${n}_r$r.txt" | sed "s/^DEC13/$n r$r/" | cut -c1-120 >> "$OUT/dec14_rows.txt"
  done
  order=$(echo $order | tr ' ' '\n' | tac | tr '\n' ' ')
done
cat "$OUT/dec14_rows.txt"
