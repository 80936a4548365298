#!/usr/bin/env bash
# dec8's own device call (branch dec8 carried as .wt/dec8): build this tree for sm_90a, then perf/dec8_stage.sh.
#     cd .wt/dec8 && OUT=$OUT DEC8_LIMIT_S=170 bash perf/dec8_gpu_run.sh
# Files: $OUT/summary.txt (GPU, build), $OUT/setup.txt (rocflash info), $OUT/dec8.txt, $OUT/dec8.json.
set -uo pipefail
. "$(dirname "$0")/gpu_lib.sh"  # OUT, REPO, log, gpu_info, gpu_build
gpu_info
TORCH_CUDA_ARCH_LIST=9.0a BUILD_TIMEOUT=${BUILD_TIMEOUT:-220} gpu_build || exit 1
log "perf/dec8_stage.sh (DEC8_LIMIT_S ${DEC8_LIMIT_S:-150})"
bash "$REPO/perf/dec8_stage.sh"
log "done"
