"""Build rocflash: the Python package, plus the compiled kernels for the platform of the installed torch.

    pip install --no-build-isolation .                       # hip with a ROCm torch, cuda with a CUDA torch
    GPU_ARCHS="gfx906" pip install --no-build-isolation .    # only the MI50/MI60 arch (fastest build)
    ROCFLASH_BUILD=hip,cuda pip install --no-build-isolation .   # both, whatever torch is (CI does this)

See rocflash/build.py for every variable. No GPU is needed at build time.
"""

import importlib
import os
import shutil
import sys
import types
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

ROOT = Path(__file__).parent.resolve()


def _tools():
    """rocflash/build.py without running rocflash/__init__.py (which imports torch)."""
    pkg = types.ModuleType("_rocflash_build")
    pkg.__path__ = [str(ROOT / "rocflash")]
    sys.modules.setdefault("_rocflash_build", pkg)
    return importlib.import_module("_rocflash_build.build")


def _torch_platform():
    """(ROCm torch, CUDA torch), or None when torch is not importable."""
    try:
        import torch
    except ImportError:
        return None
    return bool(torch.version.hip), bool(torch.version.cuda)


class GpuExtension(Extension):
    def __init__(self, platform, archs):
        super().__init__(f"rocflash._C_{platform}", sources=[])
        self.platform, self.archs = platform, archs


class BuildGpu(build_ext):
    def build_extension(self, ext):
        tools = _tools()
        out = Path(self.get_ext_fullpath(ext.name))
        if ext.platform == "ck":  # Composable Kernel instances (rocflash/ck/build.py)
            importlib.import_module("_rocflash_build.ck.build").build_ck_module(
                ext.archs, out, Path(self.build_temp) / "rocflash")
            return
        res = tools.build_module(ext.platform, ext.archs, out, Path(self.build_temp) / "rocflash", verbose=bool(self.verbose))
        print(f"rocflash: built {ext.name} for {', '.join(res.archs)} in {res.seconds:.0f} s", file=sys.stderr)


class BuildPyWithSources(build_py):
    """Ship hip_src/ and ck_configs/ inside the package: the ISA audit and the sim read them at run time."""

    def run(self):
        super().run()
        for name in ("hip_src", "ck_configs"):
            dst = Path(self.build_lib) / "rocflash" / name
            shutil.rmtree(dst, ignore_errors=True)
            shutil.copytree(ROOT / name, dst)


def _extensions():
    tools = _tools()
    torch_platform = _torch_platform()
    torch_hip, torch_cuda = torch_platform or (False, False)
    exts = []
    for platform in tools.parse_platforms(os.environ.get("ROCFLASH_BUILD"), torch_hip, torch_cuda):
        if platform == "hip":
            archs = tools.parse_amd_archs(os.environ.get("GPU_ARCHS") or os.environ.get("PYTORCH_ROCM_ARCH"))
        else:
            archs = tools.parse_cuda_archs(os.environ.get("TORCH_CUDA_ARCH_LIST"))
        exts.append(GpuExtension(platform, archs))
        if platform == "hip":  # CK instances for the CDNA arches (ROCFLASH_CK=auto|0|1, rocflash/ck/build.py)
            ck_build = importlib.import_module("_rocflash_build.ck.build")
            build_ck, why = ck_build.wanted(archs, torch_hip)
            print(f"rocflash: {'building' if build_ck else 'not building'} rocflash._C_ck: {why}", file=sys.stderr)
            if build_ck:
                exts.append(GpuExtension("ck", ck_build.ck_archs(archs)))
    if not exts:
        why = ("ROCFLASH_BUILD=" + os.environ["ROCFLASH_BUILD"]) if os.environ.get("ROCFLASH_BUILD") else (
            "ROCFLASH_BUILD=auto and torch is " + ("not importable (build isolation? use --no-build-isolation)"
                                                   if torch_platform is None else "a CPU-only build"))
        print(f"rocflash: building NO GPU kernels ({why}); only the torch and sim backends will work. "
              f"Set ROCFLASH_BUILD=hip or cuda, or install a ROCm/CUDA torch first.", file=sys.stderr)
    return exts


setup(
    ext_modules=_extensions(),
    cmdclass={"build_ext": BuildGpu, "build_py": BuildPyWithSources},
)
