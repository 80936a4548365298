"""Build ``rocflash._C_ck``: every CK instance for the CDNA arches of GPU_ARCHS, with the user's ROCm hipcc and
the pinned CK (rocflash.ck.source: CK_DIR, else the sha256-checked amd-aiter wheel). Called by setup.py.

Environment: ``ROCFLASH_CK`` = ``auto`` (default: build when the hip platform is built against a ROCm torch and
GPU_ARCHS has a CDNA arch with matrix cores), ``1`` (always, e.g. a ROCm machine with a CPU torch), ``0``
(never). Imports neither torch nor numpy.

The same build by hand (what setup.py runs, e.g. to try a compiler; ``--only`` keeps the instances whose name
holds one of the given substrings; ``HIPCC`` picks the compiler, e.g. ci/ck_hipcc_standin.sh on a machine
without ROCm):

    python -m rocflash.ck.build --arch gfx942 --out /tmp/_C_ck.so [--build-dir DIR] [--only _qr_batch,_kr_batch]
"""

from __future__ import annotations

import argparse
import concurrent.futures
import os
import sys
import sysconfig
import time
from pathlib import Path

from .. import envvars
from ..build import BuildError, _env, _run, find_hipcc
from ..configs import hip_src_dir
from ..targets import CK_ARCHS, base_arch
from . import codegen
from .configs import load_ck_instances
from .source import CK_FLAGS, CkSourceError, fetch, include_dirs


def ck_archs(amd_archs: list[str]) -> list[str]:
    """The archs of GPU_ARCHS that get CK instances (gfx90a, gfx942, gfx950)."""
    return [a for a in amd_archs if base_arch(a) in CK_ARCHS]


def wanted(amd_archs: list[str], torch_hip: bool) -> tuple[bool, str]:
    """(build CK?, why), from ROCFLASH_CK and the arch list."""
    mode = envvars.choice("ROCFLASH_CK")
    archs = ck_archs(amd_archs)
    if mode == "0":
        return False, "ROCFLASH_CK=0"
    if not archs:
        return False, f"GPU_ARCHS has no CDNA arch with matrix cores ({', '.join(CK_ARCHS)})"
    if mode == "auto" and not torch_hip:
        return False, "ROCFLASH_CK=auto and torch is not a ROCm build (set ROCFLASH_CK=1 on a ROCm machine)"
    return True, f"CK instances for {', '.join(archs)}"


def check_compiler(hipcc: str, archs: list[str]) -> None:
    """Compile an empty translation unit with CK's flags for ``archs`` (a fraction of a second), so that a
    compiler that cannot build CK stops the build at once with what to do, not with clang's errors per source.

    Raises BuildError: e.g. Debian's hipcc (clang-15) rejects ``-fno-offload-uniform-block`` and does not know
    gfx942 ("invalid target ID").
    """
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory(prefix="rocflash-ck-probe-") as tmp:
        src = Path(tmp) / "probe.hip"
        src.write_text("")
        cmd = [hipcc, "-x", "hip", "-O3", "-fPIC", *CK_FLAGS, *(f"--offload-arch={a}" for a in archs), "-c", str(src),
               "-o", str(Path(tmp) / "probe.o")]
        try:
            proc = subprocess.run(cmd, env=_env("hip"), capture_output=True, text=True)
            failed, said = proc.returncode != 0, proc.stdout + proc.stderr
        except OSError as e:
            failed, said = True, str(e)
    if failed:
        errors = [ln.strip() for ln in said.splitlines() if "error" in ln][:4] or said.strip().splitlines()[-4:]
        raise BuildError(
            f"the compiler {hipcc} cannot build CK for {', '.join(archs)}: it rejects CK's flags or these archs on an "
            f"empty source ({'; '.join(errors)}). CK needs ROCm's hipcc (HIPCC=/opt/rocm/bin/hipcc or ROCM_PATH); "
            "Debian's hipcc (clang-15) knows neither gfx942 nor CK's flags. Without ROCm, ci/install_ck.sh then "
            "HIPCC=ci/ck_hipcc_standin.sh (clang-22 + downloaded HIP headers) builds the module but does not link the "
            "HIP runtime, so it does not import (docs: the README's CK section, --only for a subset of instances)")


def build_ck_module(archs: list[str], out_path: Path, build_dir: Path, jobs: int | None = None,
                    only: list[str] | None = None) -> float:
    """Compile the instances, the dispatcher and the binding with hipcc and link ``out_path``. Seconds taken.
    ``only``: keep the instances whose name contains one of these substrings (default: all). BuildError with the
    failing command, or from :func:`check_compiler` before anything is fetched or compiled (CkSourceError when the
    CK source cannot be had)."""
    import pybind11

    t0 = time.time()
    if not ck_archs(archs):
        raise BuildError(f"rocflash._C_ck: none of {archs} has CK instances (CK archs: {', '.join(CK_ARCHS)})")
    archs = ck_archs(archs)
    hipcc = find_hipcc()
    try:
        check_compiler(hipcc, archs)
    except BuildError as e:
        raise BuildError(f"rocflash._C_ck: {e}") from None
    try:
        ck_dir = fetch()
    except CkSourceError as e:
        raise BuildError(f"rocflash._C_ck: {e}") from None
    gen = Path(build_dir) / "ck"
    instances = [i for i in load_ck_instances() if any(base_arch(a) in i.archs for a in archs)
                 and (not only or any(o in i.name for o in only))]
    if not instances:
        raise BuildError(f"rocflash._C_ck: no CK instance for {archs} matches {only}")
    sources = [*codegen.generate(gen / "gen", archs, instances), gen / "gen" / codegen.DISPATCH_FILE,
               gen / "gen" / codegen.DISPATCH_BWD_FILE, hip_src_dir() / "ck_bindings.cpp",
               hip_src_dir() / "ck_bwd_bindings.cpp"]
    names = ";".join(i.name for i in instances)
    flags = ["-x", "hip", "-O3", "-fPIC", *CK_FLAGS, *(f"--offload-arch={a}" for a in archs),
             *(f"-I{d}" for d in include_dirs(ck_dir)), f"-I{pybind11.get_include()}",
             f"-I{sysconfig.get_paths()['include']}", f'-DRF_CK_ARCHS="{";".join(base_arch(a) for a in archs)}"',
             f'-DRF_CK_INSTANCES="{names}"']
    objects = [gen / (s.stem + ".o") for s in sources]
    log: list[str] = []
    jobs = jobs or envvars.jobs()
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        for fut in [pool.submit(_run, [hipcc, *flags, "-c", str(s), "-o", str(o)], "hip", log)
                    for s, o in zip(sources, objects)]:
            fut.result()
    out_path = Path(out_path)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    _run([hipcc, "-shared", "-fPIC", *(f"--offload-arch={a}" for a in archs), *map(str, objects), "-o", str(out_path)],
         "hip", log)
    print(f"rocflash: built rocflash._C_ck ({len(instances)} CK instances for {', '.join(archs)}) in "
          f"{time.time() - t0:.0f} s", file=sys.stderr)
    return time.time() - t0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m rocflash.ck.build",
                                 description="Build rocflash._C_ck as setup.py does (HIPCC picks the compiler).")
    ap.add_argument("--arch", default="gfx942", help="comma-separated CDNA archs (default gfx942)")
    ap.add_argument("--out", type=Path, required=True, help="the module file to write")
    ap.add_argument("--build-dir", type=Path, default=None, help="objects and generated sources (default: a temp dir)")
    ap.add_argument("--only", default="", help="comma-separated substrings of instance names to keep (default all)")
    ap.add_argument("--jobs", type=int, default=None, help="parallel compiles (default ROCFLASH_JOBS or CPU count)")
    args = ap.parse_args(argv)
    import tempfile

    with tempfile.TemporaryDirectory(prefix="rocflash-ck-") as tmp:
        try:
            build_ck_module([a for a in args.arch.split(",") if a], args.out, args.build_dir or Path(tmp),
                            args.jobs, [o for o in args.only.split(",") if o])
        except BuildError as e:
            print(f"rocflash.ck.build: {e}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
