#!/usr/bin/env bash
# tcbwd8's GPU stage (issue 12 item 5: the lean atomic-dQ kernel, ROCFLASH_BWD_LEAN; hip_src/fmha_mma_bwd_lean.h) on
# a device where the tree is already built and installed (any CUDA build: the lean kernel is the default atomic-dQ
# kernel of every one). From the tree root:
#   OUT=<dir> [HELPER_S=150] bash perf/tcbwd8_stage.sh   -> $OUT/tcbwd8.txt (+ $OUT/tcbwd8_ncu.txt with the ncu stage),
#                                                         last line "tcbwd8 VERDICT: ..."
# Stages (TCBWD8_STAGES, default "ab tests ncu"), in this order, each under its own timeout, all within HELPER_S:
#   ab     perf/tcbwd5_ab.py --switch ROCFLASH_BWD_LEAN --modes $AB_MODES (default 3,2,0) --cases
#          d128,d128causal,d64,d64causal (same process, b4 h16 s4096 bf16, the dK/dV + atomic-dQ kernel's device ms,
#          2 rounds of 5 steps; 0 = the kernel before the lean one). Modes 1, 8, 9 exist only in builds with
#          NVCC_APPEND_FLAGS=-DRF_TCBWD8_DIAG=1 (perf/tcbwd8_run.sh: AB_MODES=3,2,1,9,8,0); elsewhere they fall back to
#          the default (auto) kernel. 8 and 9 are timing diagnostics whose dq is wrong.
#   tests  pytest -m gpu test_gpu_backward.py -k lean and test_gpu_masked_garbage.py -k lean (FULL_TESTS=1: the whole
#          test_gpu_backward.py, -n XDIST (default 14) where pytest-xdist is installed)
#   ncu    Nsight Compute on one launch each of the old kernel and lean variants 2, 3 at d128 4k (perf/tcbwd8_ncu.py): WarpStateStats,
#          SourceCounters (per-SASS-instruction stall sampling), SpeedOfLight, Occupancy; the summary into
#          $OUT/tcbwd8_ncu.txt, the exported source page into $OUT/tcbwd8_sass.csv.gz; skipped when < 45 s are left
set -uo pipefail
: "${OUT:?set OUT}"
mkdir -p "$OUT"
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
F="$OUT/tcbwd8.txt"
BUDGET=${HELPER_S:-150}
T0=$(date +%s)
export PYTHONUNBUFFERED=1
left() { echo $(( BUDGET - ($(date +%s) - T0) )); }
lim() { local l; l=$(left); [ "$1" -lt "$l" ] && echo "$1" || echo $(( l > 5 ? l - 5 : 0 )); }
log() { echo "== +$(( $(date +%s) - T0 ))s $*" | tee -a "$F"; }
want() { case " ${TCBWD8_STAGES:-ab tests ncu} " in *" $1 "*) return 0 ;; esac; return 1; }
: > "$F"
log "tcbwd8 stage: $(git -C "$REPO" log -1 --format=%h 2>/dev/null || echo 'no git') $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1); budget ${BUDGET} s"

rc_ab=skipped
if want ab; then
  t=$(lim "${AB_S:-60}")
  log "ab: perf/tcbwd5_ab.py --switch ROCFLASH_BWD_LEAN --modes ${AB_MODES:-3,2,0} --cases ${AB_CASES:-d128,d128causal,d64,d64causal} (limit $t s)"
  (cd /tmp && timeout "$t" python3 "$REPO/perf/tcbwd5_ab.py" --switch ROCFLASH_BWD_LEAN --modes "${AB_MODES:-3,2,0}" \
    --cases "${AB_CASES:-d128,d128causal,d64,d64causal}" > /tmp/tcbwd8_ab.txt 2>&1)
  rc_ab=$?
  cat /tmp/tcbwd8_ab.txt >> "$F"
  log "ab exit $rc_ab"
fi

rc_tests=skipped
if want tests; then
  t=$(lim "${TEST_S:-75}")
  XD=$(python3 -c "import xdist" 2>/dev/null && echo "-n ${XDIST:-14}" || echo "")
  if [ "${FULL_TESTS:-0}" = 1 ]; then sel=(test_gpu_backward.py); desc="test_gpu_backward.py (all)"
  else sel=(test_gpu_backward.py test_gpu_masked_garbage.py -k lean); desc="test_gpu_backward.py test_gpu_masked_garbage.py -k lean"; fi
  log "tests: ROCFLASH_KERNEL=auto pytest -m gpu $XD $desc (limit $t s)"
  (cd "$REPO/tests" && ROCFLASH_KERNEL=auto timeout "$t" python3 -m pytest -q -rfE -m gpu -p no:cacheprovider $XD \
    "${sel[@]}" > /tmp/tcbwd8_tests.txt 2>&1)
  rc_tests=$?
  grep -E "FAILED|ERROR|passed|failed|skipped|error" /tmp/tcbwd8_tests.txt | tail -30 >> "$F"
  tail -300 /tmp/tcbwd8_tests.txt > "$OUT/tcbwd8_tests.txt"
  log "tests exit $rc_tests"
fi

if want ncu; then
  t=$(lim "${NCU_S:-90}")
  if [ "$t" -ge 45 ] && command -v ncu > /dev/null; then
    log "ncu: WarpStateStats + SourceCounters on the old kernel and lean 2, 3, d128 4k bf16 (limit $t s)"
    rep=/tmp/tcbwd8_rep
    (cd /tmp && timeout "$(( t - 15 ))" ncu --clock-control none -k regex:fmha_bwd_dkdvq -c 3 --section WarpStateStats \
      --section SourceCounters --section SpeedOfLight --section Occupancy -f -o "$rep" \
      python3 "$REPO/perf/tcbwd8_ncu.py" run > /tmp/tcbwd8_ncu_run.txt 2>&1)
    log "ncu exit $?: $(tail -2 /tmp/tcbwd8_ncu_run.txt | tr '\n' ' ')"
    if [ -f "$rep.ncu-rep" ]; then
      timeout 20 ncu -i "$rep.ncu-rep" --page details --csv > /tmp/tcbwd8_details.csv 2> /tmp/tcbwd8_export.err
      timeout 25 ncu -i "$rep.ncu-rep" --page source --csv --print-source sass > /tmp/tcbwd8_sass.csv 2>> /tmp/tcbwd8_export.err
      gzip -c /tmp/tcbwd8_sass.csv > "$OUT/tcbwd8_sass.csv.gz"
      python3 "$REPO/perf/tcbwd8_ncu.py" summary /tmp/tcbwd8_sass.csv /tmp/tcbwd8_details.csv > "$OUT/tcbwd8_ncu.txt" 2>&1
      head -c 2000 /tmp/tcbwd8_export.err >> "$OUT/tcbwd8_ncu.txt"
      log "ncu summary: $(wc -l < "$OUT/tcbwd8_ncu.txt") lines in tcbwd8_ncu.txt"
    fi
  else log "ncu skipped ($t s left or no ncu)"; fi
fi

verdict=$(RC_TESTS=$rc_tests RC_AB=$rc_ab python3 - /tmp/tcbwd8_ab.txt <<'EOF'
import os, re, sys
from collections import defaultdict
ms, kern, bit = defaultdict(list), defaultdict(set), {}
try:
    lines = open(sys.argv[1]).read().splitlines()
except OSError:
    lines = []
for line in lines:
    m = re.match(r"\s*(\S+)\s+round \d+ ROCFLASH_BWD_LEAN=(\d): kernel (\S+)\s+dK/dV\+dQ\s+([\d.]+) ms", line)
    if m:
        ms[(m.group(1), m.group(2))].append(float(m.group(4)))
        kern[(m.group(1), m.group(2))].add(m.group(3))
    m = re.match(r"\s*(\S+)\s+ROCFLASH_BWD_LEAN=([23]): .*dk bitwise (\w+), dv bitwise (\w+); finite (\w+)", line)
    if m:
        bit[(m.group(1), m.group(2))] = m.group(3) == m.group(4) == m.group(5) == "True"
rt = os.environ["RC_TESTS"]
tests = "tests skipped" if rt == "skipped" else "tests pass" if rt == "0" else f"tests FAIL (exit {rt})"
parts, wins, complete = [], {"2": [], "3": []}, True
for case in ("d128", "d128causal", "d64", "d64causal"):
    base = ms.get((case, "0"))
    if not base or not ms.get((case, "2")):
        parts.append(f"{case} not measured"); complete = False; continue
    b = sum(base) / len(base)
    txt = []
    for mode in ("3", "2", "1", "9", "8"):
        v = ms.get((case, mode))
        if not v:
            continue
        a = sum(v) / len(v)
        k = "/".join(sorted(kern[(case, mode)]))
        txt.append(f"{mode}: {a:.3f} ({100 * (a / b - 1):+.1f} %{'' if k == 'lean' else ', kernel ' + k})")
    bits = "/".join("yes" if bit.get((case, m)) else "NO" for m in ("2", "3"))
    parts.append(f"{case} 0: {b:.3f} ms, " + ", ".join(txt) + f", dk/dv (2/3) bitwise {bits}")
    for m in ("2", "3"):
        v = ms.get((case, m))
        wins[m].append(bool(v) and sum(v) / len(v) < b and kern[(case, m)] == {"lean"} and bit.get((case, m), False))
if not complete or os.environ["RC_AB"] != "0":
    call = f"A/B incomplete (exit {os.environ['RC_AB']}): no decision"
else:
    good = [m for m in ("2", "3") if wins[m] and all(wins[m])]
    call = (f"LEAN={'/'.join(good)} faster in every case with dk/dv bitwise: candidate for the default (lead's call)"
            if good else "no LEAN variant faster in every case: stays opt-in")
print(f"tcbwd8 VERDICT: {tests}; " + "; ".join(parts) + f"; {call}")
EOF
)
echo "$verdict" | tee -a "$F"
