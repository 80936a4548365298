#!/usr/bin/env bash
# Toolchain of the Composable Kernel compile checks (python -m rocflash.isa --ck, tests/test_ck_isa.py) on a
# fresh Debian 12 machine without GPU; about 30 s and 120 MB. Called by ci/setup.sh (as root).
#   - clang-22 from Debian bookworm (apt): Debian's hipcc / clang-15 cannot parse this CK, clang-19 lacks gfx950;
#     lld-22 (its device linker: the `pip install` build path of rocflash._C_ck through ci/ck_hipcc_standin.sh) and
#     clang-tools-22 (clang-offload-bundler, which that path's HIP compile runs after the device link: Debian's
#     clang-22 1:22.1.8 does not ship it, and clang then fails with "posix_spawn failed: No such file or directory")
#   - HIP headers and ROCm device-libs newer than Debian 12's 5.2: Debian forky's libamdhip64-dev and
#     rocm-device-libs-21 (gfx950 bitcode), DOWNLOADED (not installed) through a private apt list and unpacked
#     into <cache>/ck-sysroot (what rocflash.isa.ck looks for)
#   - the pinned CK source: PyPI amd-aiter (sha256-checked) unpacked into <cache> (python -m rocflash.ck.source)
# Pinned versions: a pinned package that disappeared upstream fails here with a message naming it.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
CACHE=${ROCFLASH_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/rocflash}
SYSROOT=$CACHE/ck-sysroot
HIP_DEV="libamdhip64-dev=6.4.3-5"
DEVICE_LIBS="rocm-device-libs-21=7.0.2+dfsg-3"
SUITE=${ROCFLASH_CK_DEBIAN_SUITE:-forky}
MIRROR=$(sed -n 's/^URIs: *\(http[^ ]*debian\)\/*$/\1/p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -1)
MIRROR=${MIRROR:-http://deb.debian.org/debian}

if ! command -v clang++-22 >/dev/null || [ ! -x /usr/lib/llvm-22/bin/ld.lld ] \
    || [ ! -x /usr/lib/llvm-22/bin/clang-offload-bundler ]; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends clang-22 lld-22 clang-tools-22 >/dev/null
fi

if [ ! -f "$SYSROOT/usr/include/hip/hip_runtime.h" ]; then
  work=$(mktemp -d)
  mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/debs"
  echo "deb $MIRROR $SUITE main" > "$work/sources.list"
  o=(-o Dir::Etc::SourceList="$work/sources.list" -o Dir::Etc::SourceParts=/dev/null
     -o Dir::State::Lists="$work/lists" -o Dir::Cache="$work/cache" -o APT::Sandbox::User=root)
  apt-get "${o[@]}" -q update >/dev/null
  if ! (cd "$work/debs" && apt-get "${o[@]}" -q download "$HIP_DEV" "$DEVICE_LIBS" >/dev/null); then
    echo "ci/install_ck.sh: the pinned $HIP_DEV / $DEVICE_LIBS are gone from Debian $SUITE ($MIRROR)." >&2
    echo "  Available now: $(apt-cache "${o[@]}" policy libamdhip64-dev rocm-device-libs-21 | grep Candidate | tr -s ' ' | tr '\n' ' ')" >&2
    echo "  Update the pins in ci/install_ck.sh (HIP headers >= 5.7; device-libs with gfx950 bitcode)." >&2
    exit 1
  fi
  mkdir -p "$SYSROOT"
  for f in "$work"/debs/*.deb; do dpkg -x "$f" "$SYSROOT"; done
  rm -rf "$work"
fi

# the pinned CK source (sha256-checked); prints its directory
$PY -m rocflash.ck.source
echo "ci/install_ck.sh: clang $(clang++-22 --version | head -1 | sed 's/.*version //'), sysroot $SYSROOT"
