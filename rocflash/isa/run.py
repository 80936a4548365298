"""The full audit run: generate every instance source, compile them (in parallel, cached), audit each kernel.

Extra sources (the test fixtures of tests/fixtures/) can join the same parallel compile (``extra``), so a test
session builds everything it audits once, in one pool, and shares the outputs between its tests.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import time
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, Sequence

from .. import codegen, envvars
from ..configs import hip_src_dir
from ..targets import arch_info
from .audit import KernelAudit, _named_preprocess, audit_compiled_file, audit_file
from .compile import CompiledFile, compile_for_audit, default_build_dir, require_python_deps
from .kinds import (API_SOURCE, AUDIT_KINDS, DEFAULT_ARCHS, KIND_KERNEL, PATH_CHOICES, PREPROCESS_KIND, TILED_KINDS,
                    audits_path)

if TYPE_CHECKING:
    from ..configs import TileConfig


class CompileJob(NamedTuple):
    """One extra device-only compile: ``source`` for ``arch`` into ``build_dir/arch/`` (see compile_for_audit)."""

    arch: str
    source: Path
    build_dir: Path
    includes: tuple[Path, ...] = ()


@dataclasses.dataclass
class AuditRun:
    kernels: list[KernelAudit]
    archs: list[str]
    paths: str  # PATH_CHOICES
    wall_seconds: float
    compile_seconds: float  # summed over compiler processes (0 when everything came from the cache)
    compiled: int
    cached: int
    build_dir: str
    jobs: int
    kinds: tuple[str, ...] = AUDIT_KINDS
    extra: dict[CompileJob, CompiledFile | Exception] = dataclasses.field(default_factory=dict)


def run_audit(archs: Sequence[str] = DEFAULT_ARCHS, build_dir: Path | None = None, jobs: int | None = None,
              paths: str = "split", kinds: Sequence[str] = AUDIT_KINDS, extra: Sequence[CompileJob] = ()) -> AuditRun:
    """Generate, compile (in parallel, cached) and audit every instance of ``kinds`` for every arch.

    paths: "split" (default) audits the narrow path on NARROW_ARCHS (gfx906, sm_90) and the aligned path
    everywhere; "both" both paths everywhere; "aligned" the narrow path on gfx906 only (see "What is compiled";
    the wall times measured on 2 cores are in perf/results/isa_audit.md).
    kinds: AUDIT_KINDS to audit; "bwd_preprocess" compiles hip_src/fmha_api.hip once per arch.
    extra: more compiles for the same pool; their results (CompiledFile, or the BuildError of a failed
    compile, not raised) are in ``AuditRun.extra``; they are not audited here.
    Raises BuildError (a missing compiler or Python dependency, a failed compile) and ValueError (arguments).
    """
    for arch in archs:
        arch_info(arch)  # ValueError naming the known archs
    if paths not in PATH_CHOICES:
        raise ValueError(f"paths must be one of {PATH_CHOICES}, got {paths!r}")
    bad = [k for k in kinds if k not in AUDIT_KINDS]
    if bad:
        raise ValueError(f"kinds must be among {AUDIT_KINDS}, got {bad}")
    require_python_deps()
    t0 = time.time()
    build_dir = Path(build_dir) if build_dir else default_build_dir()
    jobs = jobs or envvars.jobs()

    # Step 1: generate the instance sources of each vendor's configs, every kind (codegen names each source
    # after its instance: <kernel_name(aligned)>.hip); a job per (arch, instance) the selection audits, plus
    # fmha_api.hip (the preprocess kernel) per arch. cfg is None for the API file.
    jobs_list: list[tuple[str, Path, TileConfig | None, bool, list[Path]]] = []
    for target, vendor_archs in (("gfx9", [a for a in archs if arch_info(a).vendor == "amd"]),
                                 ("cuda", [a for a in archs if arch_info(a).vendor == "nvidia"])):
        if not vendor_archs:
            continue
        gen = codegen.keyed_dir(build_dir / "gen", target)  # per generator inputs: concurrent trees never collide
        sources = {p.name: p for p in codegen.generate(target, gen, kinds=TILED_KINDS)}
        includes = [hip_src_dir(), gen]
        for kind in (k for k in TILED_KINDS if k in kinds):
            for cfg, aligned in codegen.instances(target, kind=kind):
                if cfg.impl == "mma":  # tensor-core instances (two kernels each): rocflash.mma_audit audits them
                    continue
                src = sources[f"{cfg.kernel_name(aligned)}.hip"]
                jobs_list += [(arch, src, cfg, aligned, includes) for arch in vendor_archs
                              if audits_path(arch, aligned, paths)]
        if PREPROCESS_KIND in kinds:
            jobs_list += [(arch, hip_src_dir() / API_SOURCE, None, True, includes) for arch in vendor_archs]

    # Step 2: compile in parallel (each job is one compiler process), the extra jobs in the same pool
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(compile_for_audit, arch, src, build_dir, inc) for arch, src, _, _, inc in jobs_list]
        extra_futures = {job: pool.submit(compile_for_audit, job.arch, job.source, job.build_dir, job.includes)
                         for job in extra}
        compiled = [f.result() for f in futures]
    extra_results: dict[CompileJob, CompiledFile | Exception] = {}
    for job, fut in extra_futures.items():
        try:
            extra_results[job] = fut.result()
        except Exception as e:  # noqa: BLE001 -- handed to the caller, who decides (a test fixture may be absent)
            extra_results[job] = e

    # Step 3: parse and audit (the probe evaluates each tile's conflicts once per tile and vendor)
    kernels = []
    conflict_cache: dict[tuple, tuple] = {}
    for (arch, src, cfg, aligned, _), cf in zip(jobs_list, compiled):
        amd_arch = arch if arch_info(arch).vendor == "amd" else None
        if cfg is None:  # fmha_api.hip: its preprocess kernels (any other kernel there is audited too)
            kernels += [_named_preprocess(a) for a in audit_compiled_file(cf.output, amd_arch)]
            continue
        if cfg.impl == "sbcast":  # no LDS, no tile of the shared shape: its own checks (checks.check_sbcast)
            kernels.append(audit_sbcast(cf.output, amd_arch, cfg))
            continue
        key = (cfg.kind, cfg.tile_name, arch_info(arch).vendor)
        a = audit_file(cf.output, arch=amd_arch, kernel=KIND_KERNEL.get(cfg.kind), conflicts=key not in conflict_cache)
        if key in conflict_cache:
            a.bank_conflicts, a.bank_conflicts_unpadded = conflict_cache[key]
        else:
            conflict_cache[key] = (a.bank_conflicts, a.bank_conflicts_unpadded)
        if a.kind != cfg.kind:
            raise ValueError(f"{cf.output}: the kernel's tile type must be of kind {cfg.kind!r} "
                             f"({cfg.struct_name}), got {a.kind!r} ({a.symbol})")
        a.name = cfg.kernel_name(aligned)
        a.dtype, a.headdim, a.aligned = cfg.dtype, cfg.headdim, aligned
        kernels.append(a)
    return AuditRun(kernels, list(archs), paths, time.time() - t0, sum(c.seconds for c in compiled),
                    sum(not c.cached for c in compiled), sum(c.cached for c in compiled), str(build_dir), jobs,
                    tuple(k for k in AUDIT_KINDS if k in kinds), extra_results)




def audit_sbcast(path, arch: str | None, cfg):
    """Audit of a scalar-broadcast forward instance (hip_src/fmha_fwd_sbcast.h, ck_configs impl "sbcast"): its
    forward kernel (the K/V preparation kernel of the same file is checked for spills by check_sbcast), with the
    main loop found without a barrier (the waves never synchronise) and no LDS. NVIDIA (the CUDA build of the
    same logic): the ptxas figures only; the common checks (no spill bytes) apply."""
    from .asm import count_instructions, kernel_instructions
    from .loops import find_main_loop

    text = Path(path).read_text()
    a = audit_file(path, arch=arch, kernel="fmha_fwd_sbcast_kernel", conflicts=False)
    a.kind, a.name = cfg.kind, cfg.kernel_name(True)
    a.dtype, a.headdim, a.aligned = cfg.dtype, cfg.headdim, True
    a.tile = {"impl": "sbcast", "block_m": cfg.block_m, "block_n": cfg.block_n, "threads": cfg.threads}
    if a.vendor == "nvidia":  # the CUDA build of its logic: a ptxas report (registers, spills), no instruction stream
        return a
    instrs, labels = kernel_instructions(text, a.symbol)
    a.main_loop = find_main_loop(instrs, labels, synced=False)
    a.loop_counts = count_instructions(instrs, a.main_loop) if a.main_loop else {}
    prep = audit_file(path, arch=arch, kernel="fmha_fwd_vpairs_kernel", conflicts=False)
    a.kernel_counts = {**a.kernel_counts, "prep_scratch_bytes": prep.scratch_bytes, "prep_spill_ops": prep.spill_ops,
                       "prep_vgpr_spill_count": prep.vgpr_spill_count}
    return a
