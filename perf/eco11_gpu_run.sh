#!/usr/bin/env bash
# eco11 (issue 8, adv15's defect 2: rows whose every visible score overflows to -inf give NaN) in one short device
# call: a build of the headdim-128 CUDA instances plus the sbcast one (perf/subset_configs.py, in place: run it on a
# disposable copy only), then tests/test_gpu_score_overflow.py (the d128 and sbcast cases) under ROCFLASH_KERNEL=auto
# and vector side by side, and compute-sanitizer memcheck on one split-KV overflow case (paged, 3 splits + combine).
#   cd <copy> && OUT=... bash perf/eco11_gpu_run.sh
set -uo pipefail
source "$(dirname "$0")/gpu_lib.sh"
gpu_info
python3 "$REPO/perf/subset_configs.py" --headdims 128 --also-impl sbcast "$REPO" >> "$OUT/summary.txt"
ROCFLASH_JOBS=16 BUILD_TIMEOUT=${BUILD_TIMEOUT:-90} build_cuda
K="not d32 and not d64 and not d96 and not d256"
for kernel in auto vector; do
  (cd "$REPO/tests" && ROCFLASH_KERNEL=$kernel timeout "${TEST_TIMEOUT:-60}" python3 -m pytest -q -m gpu -rfE \
    -p no:cacheprovider test_gpu_score_overflow.py -k "$K" > "$OUT/tests_$kernel.txt" 2>&1; echo "exit $?" >> "$OUT/tests_$kernel.txt") &
done
wait
for kernel in auto vector; do log "ROCFLASH_KERNEL=$kernel: $(tail -2 "$OUT/tests_$kernel.txt" | tr '\n' ' ')"; done
(cd "$REPO/tests" && PYTORCH_NO_CUDA_MEMORY_CACHING=1 timeout "${SAN_TIMEOUT:-50}" compute-sanitizer --tool memcheck \
  --error-exitcode 9 python3 -c "
import torch, test_score_overflow as t
t.run_kvcache('cuda', 'pos', torch.float16, 'cuda', sq=3, sk=700, h=8, hk=2, d=128, num_splits=3, page=16)
t.run_dense('cuda', 'sum', torch.float32, 'cuda', sq=70, sk=66, h=4, hk=2, d=128, grad=True)
print('memcheck cases ok')" > "$OUT/memcheck.txt" 2>&1; echo "exit $?" >> "$OUT/memcheck.txt")
log "memcheck: $(tail -3 "$OUT/memcheck.txt" | tr '\n' ' ')"
