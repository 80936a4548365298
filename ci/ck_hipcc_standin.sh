#!/usr/bin/env bash
# A stand-in for ROCm's hipcc on a machine without ROCm (CI, this project's build machines): Debian's clang-22
# with the HIP headers and device-libs that ci/install_ck.sh downloads into <cache>/ck-sysroot. It lets the
# `pip install` build path of rocflash._C_ck (rocflash/ck/build.py) run here:
#   HIPCC=ci/ck_hipcc_standin.sh python -m rocflash.ck.build --arch gfx942 --out /tmp/_C_ck.so
# What it does NOT give: the HIP runtime (libamdhip64) is not linked, so the module it builds does not import
# here (undefined hip* symbols); a user's ROCm hipcc links it. Upstream clang also lacks some of AMD's
# compiler flags (register allocation differs: tests/test_ck_isa.py KNOWN_CK_SPILLS).
set -euo pipefail
CACHE=${ROCFLASH_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/rocflash}
SYSROOT=${ROCFLASH_CK_SYSROOT:-$CACHE/ck-sysroot}
CLANG=${ROCFLASH_CK_CLANG:-clang++-22}
BITCODE=$(ls -d "$SYSROOT"/usr/lib/llvm-*/lib/clang/*/amdgcn/bitcode 2>/dev/null | sort | tail -1)
if [ ! -f "$SYSROOT/usr/include/hip/hip_runtime.h" ] || [ -z "$BITCODE" ]; then
  echo "ci/ck_hipcc_standin.sh: no HIP headers / device-libs in $SYSROOT: run ci/install_ck.sh" >&2
  exit 2
fi
exec "$CLANG" --rocm-path="$SYSROOT/usr" --rocm-device-lib-path="$BITCODE" -isystem "$SYSROOT/usr/include" \
  -mcode-object-version=5 -D__AMDGCN_WAVEFRONT_SIZE=64 -D__HIP_PLATFORM_AMD__ "$@"
