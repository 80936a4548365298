"""Build the compiled backends: the same ``hip_src/`` with hipcc (AMD) or nvcc (NVIDIA).

torch's extension helpers need a ROCm or CUDA build of torch; this builder needs neither (the module
does not link torch: Python passes raw device pointers and the stream). So the HIP module builds with
Debian's hipcc on a machine without GPU and without ROCm torch, and the CUDA module with plain nvcc.

Environment (read by ``setup.py``):
  ROCFLASH_BUILD         "auto" (default: hip with a ROCm torch, cuda with a CUDA torch, nothing with a
                         CPU-only torch), "none", or a list of "hip" / "cuda" separated by ',' or ';'
  GPU_ARCHS / PYTORCH_ROCM_ARCH   AMD arches, ';'-separated (default gfx906;gfx908;gfx90a;gfx942)
  TORCH_CUDA_ARCH_LIST   NVIDIA compute capabilities, ';'-separated (default 8.0;9.0)
  ROCFLASH_JOBS          parallel compile jobs (default: CPU count)
  HIPCC, NVCC, CXX       compilers (default: found on PATH / ROCM_PATH / CUDA_HOME)

Imports neither torch nor numpy.
"""

from __future__ import annotations

import concurrent.futures
import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
import time
from dataclasses import dataclass, field
from pathlib import Path

from . import codegen, envvars
from .configs import hip_src_dir

AMD_ARCHS = ("gfx906", "gfx908", "gfx90a", "gfx942", "gfx950")
DEFAULT_AMD_ARCHS = ("gfx906", "gfx908", "gfx90a", "gfx942")
CUDA_ARCHS = ("7.0", "7.5", "8.0", "8.6", "8.7", "8.9", "9.0", "9.0a", "10.0", "12.0")
DEFAULT_CUDA_ARCHS = ("8.0", "9.0")
PLATFORMS = ("hip", "cuda")
# Which [[fwd]] configs each platform compiles.
CONFIG_TARGET = {"hip": "gfx9", "cuda": "cuda"}


class BuildError(RuntimeError):
    pass


def parse_amd_archs(spec: str | None, var: str = "GPU_ARCHS") -> list[str]:
    """``"gfx906;gfx90a:xnack-"`` -> ``["gfx906", "gfx90a:xnack-"]``; ValueError naming ``var`` for an unknown
    arch."""
    if not spec or not spec.strip():
        return list(DEFAULT_AMD_ARCHS)
    archs = []
    for item in re.split(r"[;,\s]+", spec.strip()):
        if not item:
            continue
        base = item.split(":")[0]
        features = [f[:-1] for f in item.split(":")[1:]]
        if (base not in AMD_ARCHS or not re.fullmatch(r"gfx[0-9a-f]+(:(sramecc|xnack)[+-])*", item)
                or len(features) != len(set(features))):
            raise ValueError(f"{var}: unknown AMD arch {item!r}; accepted: {', '.join(AMD_ARCHS)} "
                             f"(each optionally with :sramecc+/- and :xnack+/-, once)")
        if item not in archs:
            archs.append(item)
    if not archs:
        raise ValueError(f"{var} must name at least one arch (accepted: {', '.join(AMD_ARCHS)}), got {spec!r}")
    return archs


def parse_cuda_archs(spec: str | None) -> list[tuple[str, bool]]:
    """``"8.0;9.0+PTX"`` -> ``[("8.0", False), ("9.0", True)]`` (True: also embed PTX)."""
    if not spec or not spec.strip():
        return [(a, False) for a in DEFAULT_CUDA_ARCHS]
    archs = []
    for item in re.split(r"[;,\s]+", spec.strip()):
        if not item:
            continue
        cc, ptx = (item[:-4], True) if item.endswith("+PTX") else (item, False)
        if cc not in CUDA_ARCHS:
            raise ValueError(f"TORCH_CUDA_ARCH_LIST: unknown compute capability {item!r}; accepted: {', '.join(CUDA_ARCHS)}")
        if (cc, ptx) not in archs:
            archs.append((cc, ptx))
    if not archs:
        raise ValueError(f"TORCH_CUDA_ARCH_LIST must name at least one compute capability, got {spec!r}")
    return archs


def parse_platforms(spec: str | None, torch_hip: bool, torch_cuda: bool) -> list[str]:
    """ROCFLASH_BUILD -> the platforms to build (see module docstring)."""
    spec = (spec or "auto").strip().lower()
    if spec == "auto":
        return ["hip"] if torch_hip else ["cuda"] if torch_cuda else []
    if spec in ("none", "", "0"):
        return []
    out = []
    for item in re.split(r"[;,\s]+", spec):
        if item not in PLATFORMS:
            raise ValueError(f"ROCFLASH_BUILD: unknown platform {item!r}; accepted: auto, none, {', '.join(PLATFORMS)}")
        if item not in out:
            out.append(item)
    return out


@dataclass
class BuildPlan:
    """What ``pip install`` builds: ``platforms`` maps "hip" / "cuda" to its arch list (as the parse_* functions
    return it); ``why_none`` says why nothing is built when ``platforms`` is empty."""

    platforms: dict[str, list]
    why_none: str | None = None

    def record(self, torch_version: str | None) -> dict:
        """The JSON written into the package as BUILD_INFO_FILE (read back by :func:`load_build_info`)."""
        return {"platforms": {p: arch_names(p, a) for p, a in self.platforms.items()}, "why_none": self.why_none,
                "torch_at_build": torch_version}


def plan_build(env: dict[str, str], torch_platform: tuple[bool, bool] | None) -> BuildPlan:
    """The build that ``env`` (ROCFLASH_BUILD, GPU_ARCHS / PYTORCH_ROCM_ARCH, TORCH_CUDA_ARCH_LIST) asks for
    with the installed torch (``torch_platform``: (ROCm torch, CUDA torch), None when torch is not importable).

    Every arch variable that is set is checked, whether or not its platform is built, so a typo always fails
    the install (ValueError naming the variable and the accepted values) instead of installing no kernels.
    """
    amd_var = "GPU_ARCHS" if env.get("GPU_ARCHS") else "PYTORCH_ROCM_ARCH"
    amd = parse_amd_archs(env.get(amd_var), amd_var)
    cuda = parse_cuda_archs(env.get("TORCH_CUDA_ARCH_LIST"))
    torch_hip, torch_cuda = torch_platform or (False, False)
    platforms = parse_platforms(env.get("ROCFLASH_BUILD"), torch_hip, torch_cuda)
    why = None
    if not platforms:
        auto = (env.get("ROCFLASH_BUILD") or "auto").strip().lower() == "auto"
        why = (f"ROCFLASH_BUILD={env['ROCFLASH_BUILD']}" if not auto
               else "torch was not importable at build time (pip's build isolation: add --no-build-isolation)"
               if torch_platform is None else "the installed torch is a CPU-only build")
    return BuildPlan({p: amd if p == "hip" else cuda for p in platforms}, why)


BUILD_INFO_FILE = "_build_info.json"


def load_build_info() -> dict | None:
    """What setup.py recorded about the build of this install (BuildPlan.record), or None (a source tree)."""
    import json

    path = Path(__file__).resolve().parent / BUILD_INFO_FILE
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def source_tree_note(package_dir: Path | None = None, search_path: list[str] | None = None) -> str | None:
    """When the imported rocflash is a source checkout (``setup.py`` beside the package, no build record):
    what to do instead of rebuilding, else None. None too when every installed copy it shadows was built
    without kernels (leaving the tree would not help: the caller says "built without GPU kernels" and how to
    rebuild).

    Running from the repository root puts the checkout first on ``sys.path``, so ``import rocflash`` finds the
    sources, whose compiled modules were never built in place, and shadows the installed copy. ``package_dir``
    (default: this package) and ``search_path`` (default ``sys.path``, where installed distributions are
    looked up) are for tests.
    """
    import importlib.metadata

    pkg = (package_dir or Path(__file__).parent).resolve()
    if (pkg / BUILD_INFO_FILE).is_file() or not (pkg.parent / "setup.py").is_file():
        return None
    installed = []
    for dist in importlib.metadata.distributions(name="rocflash", path=search_path or sys.path):
        where = Path(dist.locate_file("rocflash")).resolve()  # the checkout's own rocflash.egg-info points back here
        if where != pkg and (where / "__init__.py").is_file():
            installed.append(where)
    # installed[0]: the copy an import from outside the tree finds (distributions() follows the path's order)
    if installed and has_compiled_modules(installed[0]):
        return (f"this rocflash was imported from its source tree {pkg.parent} (no compiled module there), which "
                f"shadows the installed copy in {installed[0]}: run from outside the source tree (e.g. cd /tmp)")
    if installed:  # leaving the tree would not help: the copy found there was built without kernels too
        return None
    return (f"this rocflash was imported from its source tree {pkg.parent}, where no compiled module is built, and "
            f"no installed copy was found: install it ({rebuild_command()}), then run from outside the source tree")


COMPILED_MODULE_PREFIXES = ("_C_hip", "_C_cuda", "_C_ck")  # rocflash._C_hip, ._C_cuda, ._C_ck*


def has_compiled_modules(package_dir: Path) -> bool:
    """Whether the rocflash package in ``package_dir`` holds a compiled kernel module (a file, read without
    importing that copy: ``rocflash._C_hip.cpython-311-x86_64-linux-gnu.so`` and the like)."""
    return any(f.name.startswith(COMPILED_MODULE_PREFIXES) and f.suffix in (".so", ".pyd")
               for f in package_dir.iterdir())


def rebuild_command(platform: str | None = None) -> str:
    """How to reinstall rocflash with the kernels of ``platform`` ("hip" | "cuda"; None: the one of this
    machine's GPU, named generically)."""
    arch = {"hip": "GPU_ARCHS=gfx906", "cuda": "TORCH_CUDA_ARCH_LIST=9.0"}
    build = f"ROCFLASH_BUILD={platform} {arch[platform]}" if platform in arch else \
        "ROCFLASH_BUILD=hip GPU_ARCHS=gfx906 (or ROCFLASH_BUILD=cuda TORCH_CUDA_ARCH_LIST=9.0)"
    return (f"{build} pip install --no-build-isolation --force-reinstall --no-deps . in the rocflash source "
            f"tree, with your GPU's arch")


def find_tool(env: str, names: list[str], dirs: list[str | None]) -> str:
    if os.environ.get(env):
        return os.environ[env]
    for d in dirs:
        for n in names:
            if d and Path(d, n).is_file():
                return str(Path(d, n))
    for n in names:
        found = shutil.which(n)
        if found:
            return found
    raise BuildError(f"{env}: none of {names} found (set {env}, or put the compiler on PATH)")


def find_hipcc() -> str:
    rocm = os.environ.get("ROCM_PATH") or os.environ.get("ROCM_HOME") or "/opt/rocm"
    return find_tool("HIPCC", ["hipcc"], [str(Path(rocm, "bin"))])


def find_nvcc() -> str:
    cuda = os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH") or "/usr/local/cuda"
    return find_tool("NVCC", ["nvcc"], [str(Path(cuda, "bin"))])


def find_cxx() -> str:
    return find_tool("CXX", ["c++", "g++", "clang++"], [])


def cuda_gencode_flags(archs: list[tuple[str, bool]]) -> list[str]:
    flags = []
    for cc, ptx in archs:
        num = cc.replace(".", "")
        flags.append(f"-gencode=arch=compute_{num},code=sm_{num}")
        if ptx:
            flags.append(f"-gencode=arch=compute_{num},code=compute_{num}")
    return flags


def device_compile_flags(platform: str, archs: list) -> tuple[str, list[str]]:
    """(compiler, flags) that compile one ``.hip`` kernel source to an object for ``platform``."""
    if platform == "hip":
        return find_hipcc(), ["-x", "hip", "-O3", "-std=c++17", "-fPIC", *[f"--offload-arch={a}" for a in archs]]
    return find_nvcc(), [
        "-x", "cu", "-O3", "-std=c++17", "-Xcompiler", "-fPIC", "--expt-relaxed-constexpr", *cuda_gencode_flags(archs),
        *cuda_feature_defines(archs)
    ]


def cuda_feature_defines(archs: list[tuple[str, bool]]) -> list[str]:
    """``-DRF_CUDA_SM90A=1`` when the build's compute-capability-9.0 code is sm_90a only (no plain 9.0 beside it,
    whose cubin an sm_90 device could load instead): the launchers may then pick kernels that use wgmma
    (hip_src/fmha_mma_bwd.h)."""
    ccs = {cc for cc, _ in archs}
    return ["-DRF_CUDA_SM90A=1"] if "9.0a" in ccs and "9.0" not in ccs else []


def arch_names(platform: str, archs: list) -> list[str]:
    """The compiled arch list as the runtime probe names devices: gfx906..., sm_80...; NVIDIA ``+PTX`` entries add
    ``compute_XY`` (selector.running_code: the PTX runs on any later device)."""
    if platform == "hip":
        return [a.split(":")[0] for a in archs]
    names = []
    for cc, ptx in archs:  # "8.0+PTX" -> sm_80 (the cubin) and compute_80 (the PTX the driver JIT-compiles)
        names += [f"sm_{cc.replace('.', '')}"] + ([f"compute_{cc.replace('.', '')}"] if ptx else [])
    return names


@dataclass
class BuildResult:
    module: Path
    platform: str
    archs: list[str]
    seconds: float
    commands: list[str] = field(default_factory=list)


def _env(platform: str) -> dict[str, str]:
    env = dict(os.environ)
    if platform == "hip":
        env["HIP_PLATFORM"] = "amd"  # Debian's hipcc picks the NVIDIA platform by itself when nvcc is on PATH
    return env


def _run(cmd: list[str], platform: str, log: list[str]) -> None:
    log.append(shlex.join(cmd))
    proc = subprocess.run(cmd, env=_env(platform), capture_output=True, text=True)
    if proc.returncode != 0:
        raise BuildError(f"command failed ({proc.returncode}): {shlex.join(cmd)}\n{proc.stdout}\n{proc.stderr}")


def build_module(platform: str, archs: list, out_path: str | Path, build_dir: str | Path, jobs: int | None = None,
                 verbose: bool = False) -> BuildResult:
    """Compile every instance of ``platform`` for ``archs`` and link the pybind11 module ``out_path``.

    ``archs``: from :func:`parse_amd_archs` (hip) or :func:`parse_cuda_archs` (cuda).
    Raises BuildError with the failing command and its output.
    """
    import pybind11  # build-time dependency

    t0 = time.time()
    build = Path(build_dir) / platform
    gen = build / "gen"
    sources = codegen.generate(CONFIG_TARGET[platform], gen)
    src = hip_src_dir()
    compiler, flags = device_compile_flags(platform, archs)
    includes = [f"-I{src}", f"-I{gen}"]
    names = arch_names(platform, archs)
    log: list[str] = []

    jobs = jobs or envvars.jobs()
    device_sources = [*sources, src / "fmha_api.hip"]
    objects = [build / (s.stem + ".o") for s in device_sources]
    cmds = [[compiler, *flags, *includes, "-c", str(s), "-o", str(o)] for s, o in zip(device_sources, objects)]

    module_name = Path(out_path).name.split(".")[0]
    binding_obj = build / "bindings.o"
    cmds.append([
        find_cxx(), "-O2", "-std=c++17", "-fPIC", "-fvisibility=hidden", f"-I{src}",
        f"-I{pybind11.get_include()}", f"-I{sysconfig.get_paths()['include']}",
        f"-DRF_MODULE_NAME={module_name}", f'-DRF_COMPILED_ARCHS="{";".join(names)}"',
        "-c", str(src / "bindings.cpp"), "-o", str(binding_obj),
    ])
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = {pool.submit(_run, c, platform, log): Path(c[-1]).name for c in cmds}
        for done, fut in enumerate(concurrent.futures.as_completed(futures), 1):
            fut.result()
            if verbose:  # pip -v shows it as it happens: a build of many minutes is not silent (newuser8)
                print(f"rocflash: [{platform} {done}/{len(cmds)}] {futures[fut]} compiled after "
                      f"{time.time() - t0:.0f} s", file=sys.stderr, flush=True)

    out_path = Path(out_path)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    if platform == "hip":
        link = [compiler, "-shared", "-fPIC", *[f"--offload-arch={a}" for a in archs]]
    else:
        link = [compiler, "-shared", "-Xcompiler", "-fPIC", *cuda_gencode_flags(archs)]
    _run([*link, *map(str, objects), str(binding_obj), "-o", str(out_path)], platform, log)
    if verbose:
        print("\n".join(log), file=sys.stderr)
    return BuildResult(out_path, platform, names, time.time() - t0, log)


def extension_suffix() -> str:
    return sysconfig.get_config_var("EXT_SUFFIX") or ".so"
