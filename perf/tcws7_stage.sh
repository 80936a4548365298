#!/usr/bin/env bash
# tcws7's GPU stage (<= 90 s) for the lead's merged-tree call: assumes rocflash already built and installed on the
# device (ROCFLASH_BUILD=cuda TORCH_CUDA_ARCH_LIST=9.0a: the opt-in kernel exists only in sm_90a builds), runs from
# the tree root, writes ONE file, "$OUT/tcws7.txt", and prints the verdict as its last line.
#   1 tests  ROCFLASH_BWD_DQ_TILE's GPU tests: test_gpu_backward.py -k test_dq_tile_switch (modes 1 and 0 within the
#            fp64 rule, dk/dv bitwise equal across modes, the dq2 kernel in the profile) and test_gpu_masked_garbage.py
#            -k test_unseen_garbage_dq_tile_switch (NaN in K and V rows no query sees, both load paths); limit 45 s
#   2 ab     perf/tcbwd5_ab.py --switch ROCFLASH_BWD_DQ_TILE --modes 1,0 --cases d128causal,d128,d64 (same process,
#            b4 h16 s4096 bf16, dK/dV + atomic-dQ kernel device ms, 2 rounds of 5 steps); limit 40 s
#   cd <tree> && OUT=$OUT bash perf/tcws7_stage.sh
set -uo pipefail
OUT=${OUT:-$PWD/gpu_out}
mkdir -p "$OUT"
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
F="$OUT/tcws7.txt"
export PYTHONUNBUFFERED=1
T0=$(date +%s)
log() { echo "== +$(( $(date +%s) - T0 ))s $*" | tee -a "$F"; }
: > "$F"
log "tcws7 stage: $(git -C "$REPO" log -1 --format=%h 2>/dev/null || echo 'no git') $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)"

log "tests: pytest -m gpu test_gpu_backward.py -k test_dq_tile_switch test_gpu_masked_garbage.py -k test_unseen_garbage_dq_tile_switch"
XDIST=$(python3 -c "import xdist" 2>/dev/null && echo "-n 4" || echo "")  # 4 workers where pytest-xdist is installed
(cd "$REPO/tests" && ROCFLASH_KERNEL=auto timeout 45 python3 -m pytest -q -rfEs -m gpu -p no:cacheprovider $XDIST \
  test_gpu_backward.py test_gpu_masked_garbage.py -k "test_dq_tile_switch or test_unseen_garbage_dq_tile_switch" \
  > /tmp/tcws7_tests.txt 2>&1)
rc_tests=$?
grep -E "FAILED|ERROR|passed|failed|skipped|error" /tmp/tcws7_tests.txt | tail -30 >> "$F"
log "tests exit $rc_tests"

log "ab: python3 perf/tcbwd5_ab.py --switch ROCFLASH_BWD_DQ_TILE --modes 1,0 --cases d128causal,d128,d64"
(cd /tmp && timeout 40 python3 "$REPO/perf/tcbwd5_ab.py" --switch ROCFLASH_BWD_DQ_TILE --modes 1,0 \
  --cases d128causal,d128,d64 > /tmp/tcws7_ab.txt 2>&1)
rc_ab=$?
cat /tmp/tcws7_ab.txt >> "$F"
log "ab exit $rc_ab"

verdict=$(RC_TESTS=$rc_tests RC_AB=$rc_ab python3 - /tmp/tcws7_ab.txt <<'EOF'
import os, re, sys
from collections import defaultdict
ms = defaultdict(list)
bitwise = {}
for line in open(sys.argv[1]):
    m = re.match(r"\s*(\S+)\s+round \d+ ROCFLASH_BWD_DQ_TILE=(\d): kernel (\S+)\s+dK/dV\+dQ\s+([\d.]+) ms", line)
    if m:
        ms[(m.group(1), m.group(2))].append((m.group(3), float(m.group(4))))
    m = re.match(r"\s*(\S+)\s+ROCFLASH_BWD_DQ_TILE=1: .*dk bitwise (\w+), dv bitwise (\w+); finite (\w+)", line)
    if m:
        bitwise[m.group(1)] = m.group(2) == m.group(3) == m.group(4) == "True"
tests = "tests pass" if os.environ["RC_TESTS"] == "0" else f"tests FAIL (exit {os.environ['RC_TESTS']})"
parts, faster, complete = [], [], True
for case in ("d128causal", "d128", "d64"):
    on, off = ms.get((case, "1")), ms.get((case, "0"))
    if not on or not off:
        parts.append(f"{case} not measured")
        complete = False
        continue
    a, b = sum(t for _, t in on) / len(on), sum(t for _, t in off) / len(off)
    kern = "/".join(sorted({k for k, _ in on}))
    parts.append(f"{case} {a:.3f} vs {b:.3f} ms ({100 * (a / b - 1):+.1f} %, kernel {kern}, dk/dv bitwise "
                 f"{'yes' if bitwise.get(case) else 'NO'})")
    faster.append(a < b and kern == "dq2" and bitwise.get(case, False))
if not complete or os.environ["RC_AB"] != "0":
    call = f"A/B incomplete (exit {os.environ['RC_AB']}): no decision"
elif all(faster):
    call = "DQ_TILE=1 faster in every case: candidate for the default (lead's call)"
else:
    call = "DQ_TILE=1 not faster in every case: stays opt-in"
print(f"tcws7 VERDICT: {tests}; " + "; ".join(parts) + f"; {call}")
EOF
)
echo "$verdict" | tee -a "$F"
