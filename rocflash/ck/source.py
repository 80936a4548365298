"""The pinned Composable Kernel source and the flags that compile rocflash's CK instances.

CK comes from the PyPI wheel ``amd-aiter`` (pure Python, about 40 MB), which ships Composable Kernel under
``aiter_meta/3rdparty/composable_kernel/``; rocflash needs two of its folders (about 22 MB): ``include/``
(ck_tile) and ``example/ck_tile/01_fmha/`` (fmha_fwd.hpp, the args struct). The wheel is fetched with pip,
checked against its sha256 and unpacked into the cache; a user who has CK already points ``CK_DIR`` at a
checkout or a ROCm install with the same layout.

    python -m rocflash.ck.source [--dir DIR]     # fetch + unpack, print the CK directory

Imports neither torch nor numpy.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

AITER_VERSION = "0.1.7.post2.dev18"
AITER_WHEEL = f"amd_aiter-{AITER_VERSION}-py3-none-any.whl"
AITER_SHA256 = "fe139d74438217c35e87e3b961166bac8db2d381eadccb371da2e63615f05a31"
CK_IN_WHEEL = "aiter_meta/3rdparty/composable_kernel/"
CK_FOLDERS = ("include/", "example/ck_tile/01_fmha/")
CK_VERSION = "1.2.0"  # CMake project version of the CK inside that wheel

# CK's own compile definitions and LLVM options for these instances (example/ck_tile/01_fmha/CMakeLists.txt and
# CK's top-level CMakeLists), minus the AMD-compiler-only ones upstream clang rejects.
CK_FLAGS = ("-std=c++20", "-DCK_TILE_FMHA_FWD_FAST_EXP2=1", "-DCK_TILE_FLOAT_TO_BFLOAT16_DEFAULT=3",
            "-mllvm", "-amdgpu-early-inline-all=true", "-mllvm", "-enable-post-misched=0",
            "-mllvm", "--lsr-drop-solution=1", "-fno-offload-uniform-block", "-fgpu-flush-denormals-to-zero")


class CkSourceError(RuntimeError):
    pass


def default_dir() -> Path:
    from .._probe import cache_dir

    return cache_dir() / f"ck-{CK_VERSION}-aiter-{AITER_VERSION}"


def is_ck_dir(path: Path) -> bool:
    return (path / "include" / "ck_tile" / "ops" / "fmha.hpp").is_file() and \
        (path / "example" / "ck_tile" / "01_fmha" / "fmha_fwd.hpp").is_file()


def include_dirs(ck_dir: Path) -> list[Path]:
    return [ck_dir / "include", ck_dir / "example" / "ck_tile" / "01_fmha"]


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def unpack(wheel: Path, dest: Path) -> Path:
    """Check the wheel's sha256 and unpack CK_FOLDERS into ``dest``. CkSourceError on a checksum mismatch."""
    got = sha256(wheel)
    if got != AITER_SHA256:
        raise CkSourceError(f"{wheel.name}: sha256 must be {AITER_SHA256} (the pinned amd-aiter {AITER_VERSION}), "
                            f"got {got}; the file changed upstream or is damaged")
    tmp = Path(tempfile.mkdtemp(prefix=".ck-", dir=dest.parent))
    with zipfile.ZipFile(wheel) as z:
        for name in z.namelist():
            rel = name[len(CK_IN_WHEEL):] if name.startswith(CK_IN_WHEEL) else None
            if rel and rel.startswith(CK_FOLDERS) and not name.endswith("/"):
                target = tmp / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(z.read(name))
    if not is_ck_dir(tmp):
        raise CkSourceError(f"{wheel.name} must contain {CK_IN_WHEEL}{{{', '.join(CK_FOLDERS)}}}, found none")
    tmp.rename(dest)
    return dest


def fetch(dest: Path | None = None, python: str | None = None) -> Path:
    """The CK directory: ``CK_DIR`` when set (checked), else the cached unpack of the pinned wheel, fetched with
    ``pip download`` when missing. Raises CkSourceError saying what is missing and how to provide it."""
    if os.environ.get("CK_DIR"):
        ck = Path(os.environ["CK_DIR"])
        if not is_ck_dir(ck):
            raise CkSourceError(f"CK_DIR={ck} must hold include/ck_tile/ops/fmha.hpp and "
                                f"example/ck_tile/01_fmha/fmha_fwd.hpp (Composable Kernel {CK_VERSION} layout)")
        return ck
    dest = Path(dest) if dest else default_dir()
    if is_ck_dir(dest):
        return dest
    dest.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=dest.parent) as tmp:
        cmd = [python or sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "-d", tmp,
               f"amd-aiter=={AITER_VERSION}"]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        wheel = Path(tmp) / AITER_WHEEL
        if proc.returncode != 0 or not wheel.is_file():
            raise CkSourceError(f"the pinned CK source (PyPI amd-aiter=={AITER_VERSION}) could not be fetched: "
                                f"{(proc.stderr or proc.stdout).strip()[-600:]}\nPoint CK_DIR at a Composable "
                                f"Kernel {CK_VERSION} source tree instead (include/ and example/ck_tile/01_fmha/).")
        return unpack(wheel, dest)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m rocflash.ck.source",
                                 description=f"Fetch the pinned Composable Kernel source (amd-aiter {AITER_VERSION}, "
                                             f"sha256-checked) and print its directory.")
    ap.add_argument("--dir", type=Path, default=None, help=f"unpack here (default: {default_dir()})")
    args = ap.parse_args(argv)
    try:
        print(fetch(args.dir))
    except CkSourceError as e:
        print(f"rocflash.ck.source: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
