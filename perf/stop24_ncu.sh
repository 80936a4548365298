#!/usr/bin/env bash
# Stop 24's third device call, from the tree root:  OUT=$OUT [DEADLINE_S=300] bash perf/stop24_ncu.sh
# 1 build   the headdim 64/128 fp16/bf16 CUDA tables only (perf/subset_configs.py), 9.0a
# 2 tests   pytest -m gpu test_gpu_narrow_path.py (the narrow path: the forward's sm_90 copies unroll every pass again)
# 3 ncu     warm caches (--cache-control none; stop24_run.sh's call flushed them between passes): every warp-stall
#           reason per issued instruction, instructions executed, active cycles and duration of the split-KV kernel,
#           its combine and cuDNN's two kernels at 1 x 4k and 1 x 16k dense (perf/decode_ncu.py)
set -uo pipefail
. "$(dirname "$0")/gpu_lib.sh"  # OUT, REPO, T0, log
DEADLINE_S=${DEADLINE_S:-300}
left() { echo $(( DEADLINE_S - ($(date +%s) - T0) )); }
gpu_info
TORCH_CUDA_ARCH_LIST=9.0a BUILD_TIMEOUT=150 gpu_subset_build /tmp/s24_tree "$REPO" 64,128 fp16,bf16 || exit 1
(cd "$REPO/tests" && timeout 90 python3 -m pytest -q -m gpu -p no:cacheprovider -n 8 test_gpu_narrow_path.py > "$OUT/tests.txt" 2>&1)
log "narrow tests exit $?: $(tail -1 "$OUT/tests.txt")"
(cd "$REPO" && bash perf/ncu_warm_stage.sh $(( $(left) - 5 )))
log "done"
