#!/usr/bin/env bash
# Install the AMD cross-compilers that the ISA audit (python -m rocflash.isa, tests/test_isa.py) needs, on a
# Debian 12 (bookworm) machine without a GPU. Run as root. Idempotent: installs only when a piece is missing,
# then checks that every piece works; exits non-zero when something is still missing or broken.
#
#   hipcc, libamdhip64-dev   Debian HIP 5.2 (hipcc drives clang-15): gfx906, gfx908, gfx90a
#   rocm-device-libs         device bitcode (ockl, ocml, ...) for those arches, also linked for gfx942
#   clang-19                 clang++-19 for gfx942 (clang-15 does not know it)
#
# nvcc (sm_80 / sm_90) is not a Debian package: the CI image provides it (CUDA toolkit); this script only
# reports whether it is there.
set -euo pipefail

PACKAGES=(hipcc libamdhip64-dev rocm-device-libs clang-19)

installed() {  # installed PACKAGE: true when dpkg knows it as installed
  [ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" = "install ok installed" ]
}

# Step 1: install when any tool or package is missing
missing=0
command -v hipcc >/dev/null 2>&1 || missing=1
command -v clang++-19 >/dev/null 2>&1 || missing=1
for p in "${PACKAGES[@]}"; do installed "$p" || missing=1; done
if [ "$missing" -eq 1 ]; then
  echo "install_toolchain.sh: installing ${PACKAGES[*]}"
  apt-get update
  DEBIAN_FRONTEND=noninteractive apt-get install -y "${PACKAGES[@]}"
else
  echo "install_toolchain.sh: ${PACKAGES[*]} already installed"
fi

# Step 2: check that each piece is there and compiles a kernel (device-only, no GPU needed)
fail=0
for tool in hipcc clang++-19; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "install_toolchain.sh: $tool is missing after the install" >&2
    fail=1
  fi
done
if [ "$fail" -eq 0 ]; then
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  printf '#include <hip/hip_runtime.h>\n__global__ void k(float* x) { x[threadIdx.x] *= 2.f; }\n' > "$work/k.hip"
  # Debian's hipcc picks the NVIDIA platform by itself when nvcc is on PATH
  if ! HIP_PLATFORM=amd hipcc -x hip --offload-arch=gfx906 --cuda-device-only -O3 -S "$work/k.hip" \
      -o "$work/k906.s" >"$work/log" 2>&1; then
    echo "install_toolchain.sh: hipcc cannot compile for gfx906:" >&2
    cat "$work/log" >&2
    fail=1
  fi
  if ! clang++-19 -x hip --offload-arch=gfx942 --cuda-device-only -nogpulib -O3 -std=c++17 -I/usr/include \
      -S "$work/k.hip" -o "$work/k942.s" >"$work/log" 2>&1; then
    echo "install_toolchain.sh: clang++-19 cannot compile for gfx942:" >&2
    cat "$work/log" >&2
    fail=1
  fi
fi
if [ "$fail" -ne 0 ]; then
  exit 1
fi

HIP_PLATFORM=amd hipcc --version 2>/dev/null | head -n 2
clang++-19 --version | head -n 1
if command -v nvcc >/dev/null 2>&1; then
  nvcc --version | tail -n 1
else
  echo "install_toolchain.sh: note: nvcc is not on PATH (the sm_80/sm_90 audit needs the CUDA toolkit)" >&2
fi
echo "install_toolchain.sh: toolchain ready"
