"""ISA audit of the Composable Kernel instances (ck_configs/ck_fmha.toml): compile each instance device-only
for each CDNA arch with upstream clang, and check what the binary must show. Nothing is executed.

    python -m rocflash.isa --ck --arch gfx90a,gfx942 --check [--markdown perf/results/ck_audit.md]

Toolchain (ci/install_ck.sh sets it up on Debian 12; found in this order):
    clang      ``ROCFLASH_CK_CLANG``, else clang++-22 / -21 / -20 (gfx950 needs >= 20; Debian's clang-15 cannot
               parse this CK)
    sysroot    ``ROCFLASH_CK_SYSROOT``, else ``<cache>/ck-sysroot``: HIP headers newer than Debian 12's 5.2
               (``usr/include/hip``) and ROCm device-libs bitcode with gfx950 (``usr/lib/llvm-*/lib/clang/*/
               amdgcn/bitcode``), both unpacked from Debian packages; a ROCm install (``ROCM_PATH``) also works
    CK         rocflash.ck.source.fetch() (``CK_DIR``, else the pinned amd-aiter wheel)
The device bitcode is linked (``--rocm-device-lib-path``): ``-nogpulib`` would leave library calls in the
kernels and inflate the register numbers.

Invariants (each a violation when broken): wave64; at least one kernel per (file, arch) (a CK file whose arch
guard does not match compiles to nothing, silently), and a backward file holds its two kernels (dq_dk_dv,
convert_dq; D comes from the ck backend, CK's dot_do_o is not built); the main loop of the forward and dq_dk_dv
kernels issues ``v_mfma`` (convert_dq is an elementwise row sum: no matrix product, no MFMA); LDS per block
within the arch's limit
(64 KiB, 160 KiB on gfx950). Reported, not checked here: VGPR/AGPR counts, scratch bytes and VGPR spills
(upstream clang spills where AMD's ROCm compiler may not: these numbers are a compile check, not a prediction of
ROCm's code or speed; tests/test_ck_isa.py holds the known spills to a strict list).
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import glob
import os
import shlex
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import Sequence

from .. import envvars
from ..build import BuildError, find_tool
from ..targets import CK_ARCHS, base_arch
from .audit import KernelAudit, audit_file
from .asm import parse_amdgpu_metadata
from .checks import check_lds_limit, check_wave_size
from .compile import CompiledFile, _cache_key, require_python_deps

CK_KIND = "ck_fwd"
# kernel kinds of a backward instance, recognised by CK's kernel class in the mangled symbol
CK_BWD_KINDS = {"FmhaBwdDQDKDVKernel": "ck_bwd_dq_dk_dv", "FmhaBwdConvertQGradKernel": "ck_bwd_convert_dq"}
CK_MFMA_KINDS = (CK_KIND, "ck_bwd_dq_dk_dv")  # the kernels built around matrix products
CK_DEFAULT_ARCHS = ("gfx90a", "gfx942")
CK_CLANG_VERSIONS = (22, 21, 20)


@dataclasses.dataclass(frozen=True)
class CkToolchain:
    clang: str
    include: Path  # HIP headers (contains hip/hip_runtime.h)
    bitcode: Path  # device-libs (ockl.bc, oclc_isa_version_*.bc)
    ck_dir: Path

    def flags(self, arch: str) -> list[str]:
        from ..ck.source import CK_FLAGS, include_dirs

        return ["-x", "hip", f"--offload-arch={arch}", "--cuda-device-only", "-O3", "-mcode-object-version=5",
                f"--rocm-device-lib-path={self.bitcode}", "-isystem", str(self.include),
                "-D__AMDGCN_WAVEFRONT_SIZE=64", *CK_FLAGS, *(f"-I{d}" for d in include_dirs(self.ck_dir))]


def default_sysroot() -> Path:
    from .._probe import cache_dir

    return cache_dir() / "ck-sysroot"


def find_ck_toolchain(fetch_ck: bool = True) -> CkToolchain:
    """The CK compile toolchain; BuildError naming what is missing and how to get it (ci/install_ck.sh)."""
    hint = "run ci/install_ck.sh (Debian 12, root), or set ROCFLASH_CK_CLANG / ROCFLASH_CK_SYSROOT / CK_DIR"
    try:
        clang = find_tool("ROCFLASH_CK_CLANG", [f"clang++-{v}" for v in CK_CLANG_VERSIONS], [])
    except BuildError:
        raise BuildError(f"CK instances need clang++ >= {CK_CLANG_VERSIONS[-1]} (apt-get install clang-22): {hint}") \
            from None
    roots = [Path(os.environ["ROCFLASH_CK_SYSROOT"])] if os.environ.get("ROCFLASH_CK_SYSROOT") else \
        [default_sysroot(), Path(os.environ.get("ROCM_PATH") or "/opt/rocm")]
    include = bitcode = None
    for root in roots:
        inc = next((p for p in (root / "usr" / "include", root / "include") if (p / "hip" / "hip_runtime.h").is_file()),
                   None)
        bcs = sorted(glob.glob(str(root / "usr/lib/llvm-*/lib/clang/*/amdgcn/bitcode"))) + \
            [str(root / "amdgcn" / "bitcode"), str(root / "lib" / "llvm" / "lib" / "clang")]
        bc = next((Path(b) for b in bcs if Path(b, "ockl.bc").is_file()), None)
        if inc and bc:
            include, bitcode = inc, bc
            break
    if include is None:
        raise BuildError(f"CK instances need HIP headers >= 5.7 and ROCm device-libs (looked in "
                         f"{', '.join(map(str, roots))}): {hint}")
    from ..ck.source import CkSourceError, default_dir, fetch, is_ck_dir

    try:
        ck_dir = fetch() if fetch_ck else (Path(os.environ.get("CK_DIR") or default_dir()))
    except CkSourceError as e:
        raise BuildError(str(e)) from None
    if not is_ck_dir(ck_dir):
        raise BuildError(f"the Composable Kernel source is missing at {ck_dir}: {hint}")
    return CkToolchain(clang, include, bitcode, ck_dir)


def compile_ck(tc: CkToolchain, arch: str, source: Path, build_dir: Path) -> CompiledFile:
    """Device-only ``clang -S`` of one instance source for ``arch``, cached by the hash of the command, the
    source and the pinned CK version. BuildError with the command and the compiler's output on failure."""
    from ..ck.source import AITER_SHA256

    out_dir = build_dir / arch
    out_dir.mkdir(parents=True, exist_ok=True)
    cmd = [tc.clang, *tc.flags(arch), f"-DROCFLASH_CK_PIN={AITER_SHA256[:16]}", "-S", str(source)]
    key = _cache_key([*cmd[:-1], source.name], source, [])  # independent of where the sources were generated
    final = out_dir / f"{source.stem}.{key}.s"
    if final.is_file():
        return CompiledFile(arch, source, final, 0.0, True)
    tmp = out_dir / f".{source.stem}.{key}.{os.getpid()}.{threading.get_ident()}.tmp"  # never read as an output
    t0 = time.time()
    proc = subprocess.run([*cmd, "-o", str(tmp)], capture_output=True, text=True)
    if proc.returncode != 0:
        tmp.unlink(missing_ok=True)
        raise BuildError(f"{arch}: CK instance compile failed ({proc.returncode}): {shlex.join(cmd)}\n"
                         f"{proc.stderr[-4000:]}")
    os.replace(tmp, final)
    return CompiledFile(arch, source, final, time.time() - t0, False)


def check_mfma_main_loop(a: KernelAudit) -> list[str]:
    """The main loop (the loop holding most MFMA instructions and a barrier) issues v_mfma."""
    if a.main_loop is None or not a.loop_counts.get("mfma"):
        got = "no main loop" if a.main_loop is None else "0 v_mfma"
        return [f"{a.name} [{a.arch}]: main loop must issue v_mfma, got {got} "
                f"({a.kernel_counts.get('mfma', 0)} in the kernel)"]
    return []


def ck_kernel_kind(inst_kind: str, symbol: str) -> str:
    """The audit kind of one kernel of an instance file: ck_fwd, or ck_bwd_<role> from CK's kernel class."""
    if inst_kind == "fwd":
        return CK_KIND
    roles = [k for cls, k in CK_BWD_KINDS.items() if cls in symbol]
    return roles[0] if len(roles) == 1 else "ck_bwd_unknown"


def ck_checks(a: KernelAudit) -> list[str]:
    return check_wave_size(a) + check_lds_limit(a) + (check_mfma_main_loop(a) if a.kind in CK_MFMA_KINDS else [])


@dataclasses.dataclass
class CkAuditRun:
    kernels: list[KernelAudit]
    archs: list[str]
    files: dict[tuple[str, str], int]  # (instance name, arch) -> kernels found in the compiled file
    seconds: dict[tuple[str, str], float]  # (instance name, arch) -> compile seconds (0 when from the cache)
    wall_seconds: float
    compile_seconds: float
    compiled: int
    cached: int
    jobs: int
    toolchain: CkToolchain

    def violations(self) -> list[str]:
        out = [f"{name} [{arch}]: the compiled file must hold at least one kernel, got 0 (arch guard mismatch?)"
               for (name, arch), n in self.files.items() if n == 0]
        for (name, arch), n in self.files.items():
            if name.startswith("rocflash_ck_bwd_") and n:
                kinds = sorted(a.kind for a in self.kernels if a.name == name and a.arch == base_arch(arch))
                if kinds != sorted(CK_BWD_KINDS.values()):
                    out.append(f"{name} [{arch}]: a backward file must hold dq_dk_dv and convert_dq once each "
                               f"(and no dot_do_o), got {kinds}")
        return out + [v for a in self.kernels for v in ck_checks(a)]


def run_ck_audit(archs: Sequence[str] = CK_DEFAULT_ARCHS, build_dir: Path | None = None, jobs: int | None = None,
                 instances=None) -> CkAuditRun:
    """Generate (rocflash.ck.codegen), compile in parallel (cached) and audit every CK instance for ``archs``."""
    from ..ck import codegen
    from ..ck.configs import load_ck_instances
    from .compile import default_build_dir

    require_python_deps()
    bad = [a for a in archs if base_arch(a) not in CK_ARCHS]
    if bad:
        raise ValueError(f"archs must be among {CK_ARCHS} for CK instances, got {bad}")
    t0 = time.time()
    tc = find_ck_toolchain()
    build_dir = Path(build_dir) if build_dir else default_build_dir() / "ck"
    jobs = jobs or envvars.jobs()
    instances = list(instances if instances is not None else load_ck_instances())
    work = [(inst, arch) for inst in instances for arch in archs if base_arch(arch) in inst.archs]
    # Sources generated into a directory of this run (the dispatchers depend on archs and instances, so a shared
    # directory would race between concurrent audits); compile_ck's cache key does not depend on where they are.
    with tempfile.TemporaryDirectory(prefix="rocflash-ck-gen-") as gen:
        sources = {p.stem: p for p in codegen.generate(Path(gen), archs, instances)}
        with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
            futures = [pool.submit(compile_ck, tc, arch, sources[inst.name], build_dir) for inst, arch in work]
            compiled = [f.result() for f in futures]
    kernels, files = [], {}
    for (inst, arch), cf in zip(work, compiled):
        text = cf.output.read_text()
        names = [k[".name"] for k in parse_amdgpu_metadata(text).get("amdhsa.kernels") or []]
        files[(inst.name, arch)] = len(names)
        for n in names:
            a = audit_file(cf.output, arch=base_arch(arch), kernel=n, conflicts=False)
            a.name, a.kind, a.dtype, a.headdim = inst.name, ck_kernel_kind(inst.kind, n), inst.dtype, inst.hdim
            kernels.append(a)
    seconds = {(inst.name, arch): cf.seconds for (inst, arch), cf in zip(work, compiled)}
    return CkAuditRun(kernels, list(archs), files, seconds, time.time() - t0, sum(c.seconds for c in compiled),
                      sum(not c.cached for c in compiled), sum(c.cached for c in compiled), jobs, tc)


CK_COLUMNS = ("instance", "kernel", "VGPR", "AGPR", "SGPR", "LDS B", "scratch B", "VGPR spill", "W/SIMD", "mfma", "exp",
              "waitcnt", "loop depth")


def ck_table_rows(run: CkAuditRun, arch: str) -> list[list[str]]:
    rows = []
    for a in (k for k in run.kernels if k.arch == base_arch(arch)):
        ml = lambda n: f"{a.loop_counts.get(n, 0) if a.main_loop else '-'}/{a.kernel_counts.get(n, 0)}"  # noqa: E731
        rows.append([a.name, a.kind.replace("ck_bwd_", "").replace("ck_", ""), str(a.vgprs), str(a.agprs), str(a.sgprs), str(a.lds_total), str(a.scratch_bytes),
                     str(a.vgpr_spill_count), str(a.waves_per_simd), ml("mfma"), ml("exp"), ml("waitcnt"),
                     str(a.main_loop.depth) if a.main_loop else "-"])
    return rows


def format_ck_markdown(run: CkAuditRun, command: str) -> str:
    from ..ck.source import AITER_VERSION, CK_VERSION

    versions = subprocess.run([run.toolchain.clang, "--version"], capture_output=True, text=True).stdout
    violations = run.violations()
    lines = ["# ISA audit of the Composable Kernel instances", "",
             "Compiled device-only with upstream clang and audited; **never executed** (no AMD GPU is reachable). "
             "Upstream clang lacks flags of AMD's ROCm compiler and spills where it may not: the register and "
             "spill numbers are a compile check, not a prediction of ROCm's code or speed.", "",
             "## Run", "",
             f"- command: `{command}`",
             f"- CK {CK_VERSION} from PyPI amd-aiter {AITER_VERSION} (sha256-pinned, rocflash/ck/source.py)",
             f"- compiler: `{run.toolchain.clang}`: {versions.splitlines()[0] if versions else '?'}",
             f"- HIP headers `{run.toolchain.include}`, device bitcode `{run.toolchain.bitcode}`",
             f"- {len(run.files)} (instance, arch) files, {len(run.kernels)} kernels; wall {run.wall_seconds:.1f} s on "
             f"{os.cpu_count()} cores ({run.jobs} jobs), {run.compiled} compiles ({run.compile_seconds:.1f} s of "
             f"compiler time), {run.cached} from the cache", "",
             "## Invariants (wave64, >= 1 kernel per file and the 2 backward kernels per backward file, v_mfma in "
             "the main loop of fwd and dq_dk_dv, LDS within the arch's limit)", "",
             "All invariants hold." if not violations else f"{len(violations)} violations:", "",
             *[f"- {v}" for v in violations], "", "## Tables", "",
             "Counts are `main loop/whole kernel`. VGPR is the unified VGPR+AGPR count on gfx90a+. W/SIMD = waves "
             "per SIMD from VGPRs and LDS. kernel: fwd, or the backward's "
             "dq_dk_dv, convert_dq (dQ from the fp32 dq_acc).", "",
             *(["## Compile wall seconds per instance file (this run; 0 = from the cache)", "",
                "| instance | " + " | ".join(run.archs) + " |", "|---|" + "---|" * len(run.archs),
                *[f"| {name} | " + " | ".join(f"{run.seconds.get((name, a), 0):.0f}" for a in run.archs) + " |"
                  for name in dict.fromkeys(n for n, _ in run.seconds)], ""] if run.compiled else [])]
    for arch in run.archs:
        rows = ck_table_rows(run, arch)
        lines += [f"### {arch}", "", "| " + " | ".join(CK_COLUMNS) + " |", "|" + "---|" * len(CK_COLUMNS)]
        lines += ["| " + " | ".join(r) + " |" for r in rows] + [""]
    return "\n".join(lines) + "\n"


def format_ck_text(run: CkAuditRun) -> str:
    out = []
    for arch in run.archs:
        rows = ck_table_rows(run, arch)
        widths = [max(len(c), *(len(r[i]) for r in rows)) if rows else len(c) for i, c in enumerate(CK_COLUMNS)]
        out += [f"== {arch} (CK)", "  ".join(c.ljust(w) for c, w in zip(CK_COLUMNS, widths))]
        out += ["  ".join(v.ljust(w) for v, w in zip(r, widths)) for r in rows] + [""]
    return "\n".join(out)

