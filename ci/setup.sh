#!/usr/bin/env bash
# Set up a fresh Debian 12 machine (no GPU needed) and install rocflash with every compiled backend whose
# compiler is present. The README's first command; .ci/run calls it.
#
#   bash ci/setup.sh
#
# Steps: AMD/LLVM toolchain from Debian (hipcc, rocm-device-libs, clang-19: ci/install_toolchain.sh),
# torch (the CPU build unless a torch is already installed), test/perf dependencies, then
#   ROCFLASH_BUILD=<hip if hipcc, cuda if nvcc> GPU_ARCHS=gfx906;gfx90a TORCH_CUDA_ARCH_LIST=8.0;9.0 \
#   pip install --no-build-isolation .
# Override any of those variables to change what is built.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}

if [ "$(id -u)" = 0 ]; then
  bash ci/install_toolchain.sh
  CK_TOOLCHAIN=1  # ci/install_ck.sh after the Python dependencies: clang-22, newer HIP headers, pinned CK
else
  echo "ci/setup.sh: not root, skipping the apt toolchain (hipcc, clang-19); the hip build needs it" >&2
fi

if ! $PY -c "import torch" 2>/dev/null; then
  $PY -m pip install -q "torch==2.13.0"   # the CPU build (on disk on this project's machines)
fi
$PY -m pip install -q -r ci/requirements-test.txt
if [ -n "${CK_TOOLCHAIN:-}" ]; then PYTHONPATH=$PWD bash ci/install_ck.sh; fi

if [ -z "${ROCFLASH_BUILD:-}" ]; then
  platforms=()
  command -v hipcc >/dev/null && platforms+=(hip)
  { command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ]; } && platforms+=(cuda)
  ROCFLASH_BUILD=$(IFS=,; echo "${platforms[*]:-none}")
fi
export ROCFLASH_BUILD
export GPU_ARCHS=${GPU_ARCHS:-gfx906;gfx90a}
export TORCH_CUDA_ARCH_LIST=${TORCH_CUDA_ARCH_LIST:-8.0;9.0}
echo "ci/setup.sh: ROCFLASH_BUILD=$ROCFLASH_BUILD GPU_ARCHS=$GPU_ARCHS TORCH_CUDA_ARCH_LIST=$TORCH_CUDA_ARCH_LIST"
start=$(date +%s)
log=$(mktemp)
if ! $PY -m pip install --no-build-isolation --no-deps -v . > "$log" 2>&1; then
  tail -80 "$log" >&2
  echo "ci/setup.sh: pip install failed (full log: $log)" >&2
  exit 1
fi
# pip -v indents the build's output
grep -E "^[[:space:]]*rocflash: (built|building NO)" "$log" | sed -E 's/^[[:space:]]+//' || true
(cd /tmp && $PY -c "import rocflash") || { echo "ci/setup.sh: rocflash did not install" >&2; exit 1; }
echo "ci/setup.sh: install took $(( $(date +%s) - start )) s"
