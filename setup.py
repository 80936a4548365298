"""Build rocflash: the Python package, plus the compiled kernels for the platform of the installed torch.

    pip install --no-build-isolation .                       # hip with a ROCm torch, cuda with a CUDA torch
    GPU_ARCHS="gfx906" pip install --no-build-isolation .    # only the MI50/MI60 arch (fastest build)
    ROCFLASH_BUILD=hip,cuda pip install --no-build-isolation .   # both, whatever torch is (CI does this)

See rocflash/build.py for every variable. No GPU is needed at build time.
"""

import importlib
import json
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
    """(ROCm torch, CUDA torch, torch version), or None when torch is not importable."""
    try:
        import torch
    except ImportError:
        return None
    return bool(torch.version.hip), bool(torch.version.cuda), torch.__version__


class GpuExtension(Extension):
    def __init__(self, platform, archs):
        super().__init__(f"rocflash._C_{platform}", sources=[])
        self.platform, self.archs = platform, archs


class BuildGpu(build_ext):
    def build_extension(self, ext):
        tools = _tools()
        out = Path(self.get_ext_fullpath(ext.name))
        if ext.platform == "ck":  # Composable Kernel instances (rocflash/ck/build.py)
            ck_build = importlib.import_module("_rocflash_build.ck.build")
            try:
                ck_build.build_ck_module(ext.archs, out, Path(self.build_temp) / "rocflash")
            except ck_build.BuildError as e:
                # ROCFLASH_CK=auto: CK is an extra (the dot2 kernels cover every arch), so a CK source that cannot
                # be downloaded or a CK compile that fails leaves the install without it, said loudly;
                # ROCFLASH_CK=1 asked for it, so the install fails.
                if (os.environ.get("ROCFLASH_CK") or "auto").strip().lower() == "1":
                    raise
                print(f"rocflash: WARNING: rocflash._C_ck not built ({e}); the hip kernels serve every arch. "
                      f"Set ROCFLASH_CK=1 to make this an error, ROCFLASH_CK=0 to skip CK.", file=sys.stderr)
            return
        res = tools.build_module(ext.platform, ext.archs, out, Path(self.build_temp) / "rocflash", verbose=bool(self.verbose))
        print(f"rocflash: built {ext.name} for {', '.join(res.archs)} in {res.seconds:.0f} s", file=sys.stderr)


class BuildPyWithSources(build_py):
    """Ship hip_src/ and ck_configs/ inside the package (the ISA audit and the sim read them at run time), and
    the build record (rocflash/_build_info.json: what was built, or why nothing), which `rocflash info`, the
    import-time check and the compiled backends' errors read."""

    def run(self):
        super().run()
        for name in ("hip_src", "ck_configs"):
            dst = Path(self.build_lib) / "rocflash" / name
            shutil.rmtree(dst, ignore_errors=True)
            shutil.copytree(ROOT / name, dst)
        (Path(self.build_lib) / "rocflash" / _tools().BUILD_INFO_FILE).write_text(json.dumps(BUILD_RECORD, indent=2))


def _plan():
    """The build plan; an invalid arch name or platform fails here, before anything is built."""
    tools = _tools()
    torch_platform = _torch_platform()
    try:
        plan = tools.plan_build(dict(os.environ), torch_platform and torch_platform[:2])
        if plan.platforms:  # the compile's own switches, checked here too: one line, before anything is built
            envvars = importlib.import_module("_rocflash_build.envvars")  # (was a traceback from the wheel build)
            envvars.jobs()
            if "hip" in plan.platforms:
                envvars.choice("ROCFLASH_CK")
    except ValueError as e:
        sys.exit(f"rocflash: {e}")
    if not plan.platforms:
        # pip shows this only with -v or when the build fails; `rocflash info`, `import rocflash` on a GPU
        # machine and the compiled backends' errors say it again.
        print(f"rocflash: building NO GPU kernels ({plan.why_none}); only the torch and sim backends will work. "
              f"Set ROCFLASH_BUILD=hip or cuda, or install a ROCm/CUDA torch first.", file=sys.stderr)
    return plan, plan.record(torch_platform[2] if torch_platform else None)


PLAN, BUILD_RECORD = _plan()

def _ck_extensions(plan):
    """rocflash._C_ck: CK instances for the CDNA arches of the hip build (ROCFLASH_CK=auto|0|1, rocflash/ck/build.py)."""
    if "hip" not in plan.platforms:
        return []
    torch_platform = _torch_platform()
    ck_build = importlib.import_module("_rocflash_build.ck.build")
    build_ck, why = ck_build.wanted(plan.platforms["hip"], bool(torch_platform and torch_platform[0]))
    print(f"rocflash: {'building' if build_ck else 'not building'} rocflash._C_ck: {why}", file=sys.stderr)
    return [GpuExtension("ck", ck_build.ck_archs(plan.platforms["hip"]))] if build_ck else []


setup(
    ext_modules=[GpuExtension(platform, archs) for platform, archs in PLAN.platforms.items()] + _ck_extensions(PLAN),
    cmdclass={"build_ext": BuildGpu, "build_py": BuildPyWithSources},
)
