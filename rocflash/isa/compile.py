"""The compile step: device-only compiles of the instance sources per arch, with a content-addressed cache.

What is compiled
    Every instance of the three tiled kernel kinds (:func:`rocflash.codegen.instances`: config x load path,
    aligned 128-bit ``vec`` / ``narrow``), each kind with its own configs:
      fwd        rf::fmha_fwd_kernel        ck_configs/fmha_fwd.toml [[fwd]]       shape rf::FwdTileShape
      bwd_dkdv   rf::fmha_bwd_dkdv_kernel   ck_configs/fmha_bwd.toml [[bwd_dkdv]]  shape rf::BwdDkdvShape
      bwd_dq     rf::fmha_bwd_dq_kernel     ck_configs/fmha_bwd.toml [[bwd_dq]]    shape rf::BwdDqShape
    plus ``hip_src/fmha_api.hip``, whose only device code is ``rf::fmha_bwd_preprocess_kernel<E, 256, 16>``
    (kind ``bwd_preprocess``: element-wise loads, no tile, no LDS; audited for wave size, spills and LDS only,
    reported in its own rows). Sources come from :func:`rocflash.codegen.generate` (all kinds, always, so the
    generated headers and the cache keys do not depend on the selection) and are compiled device-only with the
    flags of the real build (:func:`rocflash.build.device_compile_flags`):
      gfx906, gfx908, gfx90a   hipcc (Debian HIP 5.2 / clang-15, rocm-device-libs), ``--cuda-device-only -S``
      gfx942, gfx950           clang++-19 (gfx950: clang >= 20) ``-nogpulib`` plus the Debian device-libs
                               bitcode linked explicitly (device-libs 5.2 predate gfx942 and gfx950: the
                               closest older ISA-version constant, gfx940, is linked; it
                               only selects code paths of libm-style functions the kernel does not call).
                               Without that bitcode, HIP 5.2's ``blockIdx`` / ``__syncthreads`` stay calls
                               into ockl and the kernel gets a call stack: the audit reports such calls.
      sm_80, sm_90             nvcc ``--cubin -Xptxas -v`` (the ptxas report is parsed)
    Default instance set (``--paths split``, also what tests/test_isa.py audits): both load paths on gfx906
    and sm_90, the aligned path only on gfx908, gfx90a, gfx942 and sm_80: 72 + 72 + 4 x 36 = 288 instance
    compiles plus 6 of fmha_api.hip. Measured cold (empty cache) on the 2-core development machine
    (2026-11-29, 2 jobs), twice, because its speed varied with load (compiler time per compile 1.2 s quiet,
    3.0 s loaded): the full set (``--paths both``, 432 + 6 compiles) took 282 s quiet and 683 s loaded, the
    split 197 s and 379 s. The split keeps a loaded 2-core CI job under ~8 minutes; the full set does not.
    The narrow path differs from the aligned one only in its global loads and address arithmetic; it is
    checked on the first-class target (gfx906) and on one NVIDIA arch. What the split gives up:
    register-allocation differences of the narrow instances on gfx908, gfx90a, gfx942 and sm_80 (the full run
    of 2026-11-29 found one: a VGPR spill into AGPRs of a gfx942 narrow-only instance, see
    perf/results/isa_audit.md). ``--paths both`` audits everything (tests: ``ROCFLASH_ISA_PATHS=both``).
    Outputs are cached under ``--build-dir`` (default ``$ROCFLASH_CACHE_DIR/isa``, else
    ``$XDG_CACHE_HOME/rocflash/isa``, else ``~/.cache/rocflash/isa``) in files named by a hash of the command
    line and of every source and header they read, so a second run compiles only what changed.
    Compiles run in parallel (``--jobs``). The generated
    instance sources go to ``<build dir>/gen/<hash of the generator inputs>/<target>`` (``codegen.keyed_dir``), so
    audits of different source trees sharing one build dir, concurrently or not, never rewrite each other's headers;
    the CK audit generates into a temporary directory per run (its cache key ignores where the sources were).

Dependencies are checked before anything compiles (:func:`require_python_deps`): the parser needs PyYAML and
networkx (:data:`AUDIT_INSTALL` says how).
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib.util
import os
import shlex
import shutil
import subprocess
import threading
import time
from pathlib import Path
from typing import Sequence

from ..build import BuildError, device_compile_flags, find_hipcc, find_nvcc, find_tool
from ..targets import arch_info, base_arch

# Archs the Debian hipcc (clang-15) compiles; newer ones go through a newer clang (find_clang_for).
HIPCC_ARCHS = ("gfx906", "gfx908", "gfx90a", "gfx1030")
# The ISA-version bitcode linked for each arch compiled with -nogpulib, newest first (device-libs 5.2 predate
# gfx942 and gfx950: the closest older ISA version is linked; it only selects code paths of libm-style
# functions the kernels do not call).
ISA_VERSION_BITCODE = {"gfx942": ("942", "940"), "gfx950": ("950", "942", "940")}
# clang++ versions that know each arch compiled outside hipcc, newest first
CLANG_VERSIONS = {"gfx942": (19, 18, 17), "gfx950": (22, 21, 20)}  # gfx942: the clang the audit was tuned with
DEVICE_LIBS = ("hip", "ocml", "ockl", "oclc_daz_opt_off", "oclc_unsafe_math_off", "oclc_finite_only_off",
               "oclc_correctly_rounded_sqrt_on", "oclc_wavefrontsize64_on", "oclc_abi_version_500")
# Python packages the audit imports (module -> pip name); require_python_deps checks them before compiling.
PYTHON_DEPS = {"yaml": "pyyaml", "networkx": "networkx"}
# How to install them, in the README's words (a plain `pip install '.[audit]'` rebuilds rocflash in an isolated
# environment without torch, so without its GPU kernels).
AUDIT_INSTALL = ("pip install pyyaml networkx, or from the rocflash checkout: "
                 'pip install --no-build-isolation ".[audit]"')


def require_python_deps() -> None:
    """Raise BuildError naming every missing Python dependency of the audit and the extra that installs it."""
    missing = [pip for mod, pip in PYTHON_DEPS.items() if importlib.util.find_spec(mod) is None]
    if missing:
        raise BuildError(f"the ISA audit needs the Python packages {', '.join(missing)} (missing); install them "
                         f"with: {AUDIT_INSTALL}")


def default_build_dir() -> Path:
    from .._probe import cache_dir

    return cache_dir() / "isa"


def find_clang_for(arch: str) -> str:
    """clang++ for archs the Debian hipcc does not know (gfx942, gfx950): ``ROCFLASH_CLANG``, else the newest
    clang++-N of CLANG_VERSIONS[arch] on PATH. BuildError says which versions know the arch."""
    versions = CLANG_VERSIONS.get(base_arch(arch), CLANG_VERSIONS["gfx942"])
    try:
        return find_tool("ROCFLASH_CLANG", [f"clang++-{v}" for v in versions], [])
    except BuildError:
        raise BuildError(f"{arch}: a clang++ that knows {base_arch(arch)} must be installed (clang++-{versions[-1]} "
                         f"or newer, e.g. apt-get install clang-{versions[0]}; or set ROCFLASH_CLANG)") from None
def find_device_libs() -> Path | None:
    """Directory of the ROCm device-libs bitcode (``ROCFLASH_DEVICE_LIB_PATH``, ROCm, Debian), or None."""
    rocm = os.environ.get("ROCM_PATH") or "/opt/rocm"
    for d in (os.environ.get("ROCFLASH_DEVICE_LIB_PATH"), f"{rocm}/amdgcn/bitcode",
              "/usr/lib/x86_64-linux-gnu/amdgcn/bitcode", "/usr/lib/amdgcn/bitcode"):
        if d and Path(d, "ockl.bc").is_file():
            return Path(d)
    return None


def hip_include_dir() -> str:
    rocm = os.environ.get("ROCM_PATH") or "/opt/rocm"
    return f"{rocm}/include" if Path(rocm, "include", "hip").is_dir() else "/usr/include"


def compile_command(arch: str, source: Path, out: Path, includes: Sequence[Path]) -> tuple[list[str], dict]:
    """(argv, environment) of the device-only compile of ``source`` for ``arch`` into ``out``."""
    inc = [f"-I{d}" for d in includes]
    env = dict(os.environ)
    base = base_arch(arch)
    if base in HIPCC_ARCHS:
        compiler, flags = device_compile_flags("hip", [arch])
        env["HIP_PLATFORM"] = "amd"  # Debian's hipcc picks the NVIDIA platform by itself when nvcc is on PATH
        return [compiler, *flags, "--cuda-device-only", *inc, "-S", str(source), "-o", str(out)], env
    if base in ISA_VERSION_BITCODE:
        _, flags = device_compile_flags("hip", [arch])
        cmd = [find_clang_for(arch), *flags, "--cuda-device-only", "-nogpulib", f"-I{hip_include_dir()}"]
        if base == "gfx950":  # clang >= 20 no longer predefines it; HIP's headers read it (gfx9 is wave64)
            cmd.append(f"-D__AMDGCN_WAVEFRONT_SIZE={arch_info(base).wave_size}")
        libs = find_device_libs()
        if libs is not None:
            isa = next((libs / f"oclc_isa_version_{v}.bc" for v in ISA_VERSION_BITCODE[base]
                        if (libs / f"oclc_isa_version_{v}.bc").is_file()), None)
            for bc in [*(libs / f"{n}.bc" for n in DEVICE_LIBS), isa]:
                if bc is not None and bc.is_file():
                    cmd += ["-Xclang", "-mlink-builtin-bitcode", "-Xclang", str(bc)]
        return [*cmd, *inc, "-S", str(source), "-o", str(out)], env
    if arch.startswith("sm_"):
        num = arch[3:].rstrip("a")
        cc = f"{num[:-1]}.{num[-1]}{'a' if arch.endswith('a') else ''}"  # sm_90a -> 9.0a, sm_100 -> 10.0
        compiler, flags = device_compile_flags("cuda", [(cc, False)])
        return [compiler, *flags, "--cubin", "-Xptxas", "-v", *inc, str(source), "-o", str(out)], env
    raise ValueError(f"arch must be one of {', '.join((*HIPCC_ARCHS, *ISA_VERSION_BITCODE))} or sm_XX, got {arch!r}")


def _cache_key(cmd: Sequence[str], source: Path, includes: Sequence[Path]) -> str:
    """Hash of the command line (output path excluded), the compiler binary and every file it may read."""
    h = hashlib.sha256()
    args = list(cmd)
    if "-o" in args:
        del args[args.index("-o"):args.index("-o") + 2]
    h.update("\0".join(args).encode())
    compiler = shutil.which(cmd[0]) or cmd[0]
    if Path(compiler).exists():
        st = Path(compiler).resolve().stat()
        h.update(f"{st.st_size}:{st.st_mtime_ns}".encode())
    h.update(source.read_bytes())
    for d in includes:
        for f in sorted(Path(d).glob("*")):
            if f.suffix in (".h", ".inc", ".hpp") and f.is_file():
                h.update(f.name.encode() + b"\0" + f.read_bytes())
    return h.hexdigest()[:16]


@dataclasses.dataclass
class CompiledFile:
    arch: str
    source: Path
    output: Path  # .s (AMD) or .ptxas.txt (NVIDIA)
    seconds: float  # 0.0 when taken from the cache
    cached: bool


def compile_for_audit(arch: str, source: Path, build_dir: Path, includes: Sequence[Path] = ()) -> CompiledFile:
    """Compile ``source`` device-only for ``arch`` into ``build_dir/arch/`` unless the cached output is current.

    Raises BuildError with the command and the compiler output when the compile fails.
    """
    out_dir = build_dir / arch
    out_dir.mkdir(parents=True, exist_ok=True)
    nvidia = arch.startswith("sm_")
    probe_out = out_dir / (source.stem + (".cubin" if nvidia else ".s"))
    cmd, env = compile_command(arch, source, probe_out, includes)
    key = _cache_key(cmd, source, includes)
    final = out_dir / f"{source.stem}.{key}{'.ptxas.txt' if nvidia else '.s'}"
    if final.is_file():
        return CompiledFile(arch, source, final, 0.0, True)
    # a hidden name that no reader of the directory takes for an output (audit_directory reads every *.s): a
    # concurrent compile's partial file, or a killed one's leftover, is never audited
    tmp = out_dir / f".{source.stem}.{key}.{os.getpid()}.{threading.get_ident()}.tmp{'.cubin' if nvidia else ''}"
    cmd, env = compile_command(arch, source, tmp, includes)
    t0 = time.time()
    try:
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    except OSError as e:
        raise BuildError(f"{arch}: the compiler {cmd[0]!r} must be runnable, got {e} "
                         f"(set HIPCC / ROCFLASH_CLANG / NVCC, or install it)") from None
    seconds = time.time() - t0
    if proc.returncode != 0:
        tmp.unlink(missing_ok=True)
        raise BuildError(f"{arch}: device compile failed ({proc.returncode}): {shlex.join(cmd)}\n{proc.stderr[-4000:]}")
    if nvidia:  # keep the ptxas report, not the cubin
        (out_dir / f"{tmp.name}.txt").write_text(proc.stdout + proc.stderr)
        os.replace(out_dir / f"{tmp.name}.txt", final)
        tmp.unlink(missing_ok=True)
    else:
        os.replace(tmp, final)
    return CompiledFile(arch, source, final, seconds, False)


def compiler_versions(archs: Sequence[str]) -> dict[str, str]:
    """First lines of ``--version`` of each compiler the audit used, plus the device-libs directory."""
    found = {}

    def first(cmd, env=None, lines=1):
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=60)
            return " / ".join(ln.strip() for ln in p.stdout.splitlines()[:lines] if ln.strip())
        except (OSError, subprocess.SubprocessError) as e:
            return f"unavailable ({e})"

    if any(base_arch(a) in HIPCC_ARCHS for a in archs):
        hip_env = {**os.environ, "HIP_PLATFORM": "amd"}
        found["hipcc"] = f"{find_hipcc()}: " + first([find_hipcc(), "--version"], hip_env, 2)
    for target in sorted({base_arch(a) for a in archs if base_arch(a) in ISA_VERSION_BITCODE}):
        try:
            clang = find_clang_for(target)
        except BuildError as e:
            found[f"clang ({target})"] = f"unavailable ({e})"
            continue
        found[f"clang ({target})"] = f"{clang}: " + first([clang, "--version"])
        libs = find_device_libs()
        isa = next((f"oclc_isa_version_{v}.bc" for v in ISA_VERSION_BITCODE[target]
                    if libs is not None and (libs / f"oclc_isa_version_{v}.bc").is_file()), "none")
        found[f"device-libs (linked for {target})"] = f"{libs} ({', '.join(DEVICE_LIBS)}, {isa})"
    if any(a.startswith("sm_") for a in archs):
        found["nvcc"] = f"{find_nvcc()}: " + first([find_nvcc(), "--version"], lines=5).split(" / ")[-1]
    from ..build import find_cxx

    found["host c++ (probe)"] = f"{find_cxx()}: " + first([find_cxx(), "--version"])
    return found
