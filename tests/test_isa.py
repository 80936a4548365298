"""ISA invariants of the forward and backward kernels (rocflash/isa/), each with a negative test: a
deliberately bad kernel in tests/fixtures/ (or a deliberately wrong expectation) that the same check must flag.
The invariants are parametrized over the kernel kinds (fwd, bwd_dkdv, bwd_dq; the backward's preprocess
kernel where it applies).

Compiler-driven tests are marked ``toolchain``: they need hipcc (gfx906/908/90a), clang++-19 (gfx942) and nvcc
(sm_80/90). CI installs them (ci/install_toolchain.sh); under CI=true a missing tool is a failure, elsewhere
the test skips. All of them share one build per session (the session fixture ``audit_run``: rocflash.isa's
default instance set, both load paths on gfx906 and sm_90, the aligned path elsewhere, ``ROCFLASH_ISA_PATHS=both``
for every instance; plus the fixture compiles of FIXTURE_BUILDS in the same parallel pool), whose outputs are
cached on disk by a hash of the sources (``ROCFLASH_ISA_BUILD_DIR``, default ``~/.cache/rocflash/isa``): a
second run compiles nothing. A cold one compiles 288 instances, fmha_api.hip per arch and 9 fixtures (see the
docstring of rocflash/isa/compile.py for the cost).
"""

from __future__ import annotations

import collections
import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

import re

import pytest

from rocflash import build, isa
from rocflash._probe import READ_KINDS, Probe, TileShape
from rocflash.configs import hip_src_dir, load_configs

FIXTURES = Path(__file__).resolve().parent / "fixtures"
GFX9 = isa.AMD_AUDIT_ARCHS
NVIDIA = isa.NVIDIA_AUDIT_ARCHS
TILED = isa.TILED_KINDS  # fwd, bwd_dkdv, bwd_dq, fwd_splitkv
ALL_KINDS = isa.AUDIT_KINDS  # ... and bwd_preprocess


def _missing(what: str, err: Exception):
    """Skip, or fail under CI=true (CI installs the toolchain: a missing tool is a setup bug)."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI=true but {what} is missing ({err}); CI installs it with ci/install_toolchain.sh")
    pytest.skip(f"{what} is missing ({err})")


def _tool_for(arch: str) -> str:
    """The compiler of ``arch`` (BuildError when it is missing)."""
    if arch in isa.HIPCC_ARCHS:
        return build.find_hipcc()
    if arch in isa.ISA_VERSION_BITCODE:
        isa.find_clang_for(arch)
        if isa.find_device_libs() is None:
            raise build.BuildError("ROCm device-libs bitcode (rocm-device-libs) not found")
        return arch
    return build.find_nvcc()


def _require(arch: str) -> None:
    try:
        _tool_for(arch)
        build.find_cxx()
    except build.BuildError as e:
        _missing(f"the compiler for {arch}", e)


def _build_dir() -> Path:
    return Path(os.environ.get("ROCFLASH_ISA_BUILD_DIR") or isa.default_build_dir())


# Every fixture compile the tests make (tests/fixtures/<name> for <arch>). They join the audit's parallel compile
# pool (isa.run_audit(extra=...)), so a test session builds everything once, in one pool, and shares it.
FIXTURE_BUILDS = (
    ("scalar_loads.hip", "gfx1030"), ("scalar_loads.hip", "gfx906"), ("spill.hip", "gfx906"), ("spill.hip", "gfx942"),
    ("spill.hip", "sm_80"), ("spill.hip", "sm_90"), ("oversized_lds.hip", "gfx906"), ("unpadded_lds.hip", "gfx906"),
    ("unpadded_lds_bwd.hip", "gfx906"),
)


def _fixture_job(name: str, arch: str) -> isa.CompileJob:
    return isa.CompileJob(arch, FIXTURES / name, _build_dir() / "fixtures", (hip_src_dir(),))


@pytest.fixture(scope="session")
def audit_run() -> isa.AuditRun | None:
    """One audit run per test session: every instance of every kind on every arch whose compiler exists (the
    CLI's default instance set, so ``python -m rocflash.isa`` and the tests share the cache), plus the fixture
    compiles of FIXTURE_BUILDS in the same parallel pool. None when no compiler exists."""
    available = []
    for arch in (*GFX9, *NVIDIA):
        try:
            _tool_for(arch)
            available.append(arch)
        except build.BuildError:
            pass
    if not available:
        return None
    paths = os.environ.get("ROCFLASH_ISA_PATHS", "split")
    if paths not in isa.PATH_CHOICES:
        pytest.fail(f"ROCFLASH_ISA_PATHS must be one of {isa.PATH_CHOICES}, got {paths!r}")
    return isa.run_audit(available, _build_dir(), paths=paths, extra=[_fixture_job(*f) for f in FIXTURE_BUILDS])


@pytest.fixture(scope="session")
def audit(audit_run) -> dict[str, list[isa.KernelAudit]]:
    """{arch: [KernelAudit]} of the session's audit run."""
    by_arch = collections.defaultdict(list)
    for a in (audit_run.kernels if audit_run else []):
        by_arch[a.arch].append(a)
    return dict(by_arch)


@pytest.fixture(scope="session")
def compile_fixture(audit_run):
    """``compile_fixture(name, arch)`` -> the KernelAudit of tests/fixtures/<name> compiled for <arch>: the
    session's shared compile when FIXTURE_BUILDS lists it, else compiled now (cached on disk)."""

    def get(name: str, arch: str) -> isa.KernelAudit:
        _require(arch)
        job = _fixture_job(name, arch)
        done = audit_run.extra.get(job) if audit_run else None
        if isinstance(done, Exception):
            raise done
        cf = done or isa.compile_for_audit(arch, job.source, job.build_dir, job.includes)
        return isa.audit_file(cf.output)

    return get


def _is_sbcast(a: isa.KernelAudit) -> bool:
    return (a.tile or {}).get("impl") == "sbcast"


def kernels(audit, arch: str, aligned: bool | None = None, kind: str | None = None) -> list[isa.KernelAudit]:
    """The tiled (LDS) kernels of ``arch``; the scalar-broadcast forward rows have their own test below."""
    _require(arch)
    found = [a for a in audit.get(arch, [])
             if (aligned is None or a.aligned == aligned) and (kind is None or a.kind == kind) and not _is_sbcast(a)]
    assert found, f"no {kind or ''} kernels audited for {arch}"
    return found


def _configs(kind: str = "fwd", target: str = "gfx9"):
    return [c for c in load_configs(kind) if c.target == target and c.impl == "vector"]  # mma: rocflash.mma_audit


def _all_configs(target: str = "gfx9"):
    return [c for kind in TILED for c in _configs(kind, target)]


# ------------------------------------------------------------------------------------- wavefront size


@pytest.mark.toolchain
@pytest.mark.parametrize("kind", ALL_KINDS)
@pytest.mark.parametrize("arch", GFX9)
def test_wave64_on_every_gfx9_target(audit, arch, kind):
    for a in kernels(audit, arch, kind=kind):
        assert a.wave_size == isa.GFX9_WAVE_SIZE, a.name
        assert not isa.check_wave_size(a)


@pytest.mark.toolchain
def test_wave_size_check_flags_a_wave32_kernel(compile_fixture):
    a = compile_fixture("scalar_loads.hip", "gfx1030")  # RDNA2 compiles wave32 by default
    assert a.wave_size == 32
    assert isa.check_wave_size(a, expected=isa.GFX9_WAVE_SIZE)


# ----------------------------------------------------------------------------------- scratch / spills


# Open defects: spills the audit found on the merged kernels (CI, 2026-11-30) that are not fixed yet (they need
# re-tiling and a GPU re-run). Listed by (kernel, arch) so that any NEW spill fails, and a fixed one fails too
# until it is removed from here (strict). perf/RESULTS.md and the README name them.
KNOWN_SPILLS = {
    # (the sm_90 bf16 d32 narrow vector forward's 8 B spill is gone since eco11's epilogue: 230 registers, 0 B,
    # integ20's audit; removed here)
    # (the sm_80 fp32 d64 / d128 vector split-KV kernels' 36/56 B spill is gone since eco14: fp32 split kernels are
    # compiled for 2 blocks per SM (kSplitKvCudaBlocksPerSmOf), 240 registers, 0 B; removed here)
}


def _unexpected_spills(audit, arch, kind):
    """The spill violations of (arch, kind) that KNOWN_SPILLS does not list, and the listed kernels of
    (arch, kind) that no longer spill."""
    violations, known_seen = [], set()
    for a in kernels(audit, arch, kind=kind):
        found = isa.check_no_spills(a)
        if (a.name, arch) in KNOWN_SPILLS and found:
            known_seen.add(a.name)
        else:
            violations += found
    fixed = [f"{name} [{arch}] no longer spills: remove it from KNOWN_SPILLS" for name, ar in KNOWN_SPILLS
             if ar == arch and any(a.name == name for a in kernels(audit, arch, kind=kind)) and name not in known_seen]
    return violations + fixed


@pytest.mark.toolchain
@pytest.mark.parametrize("kind", ALL_KINDS)
@pytest.mark.parametrize("arch", GFX9)
def test_no_scratch_no_spills_amd(audit, arch, kind):
    violations = _unexpected_spills(audit, arch, kind)
    assert not violations, "\n".join(violations)


@pytest.mark.toolchain
@pytest.mark.parametrize("arch", ["gfx906", "gfx942"])
def test_spill_check_flags_spilling_kernel(arch, compile_fixture):
    a = compile_fixture("spill.hip", arch)
    assert a.scratch_bytes > 0 and a.vgpr_spill_count > 0 and a.spill_ops > 0
    assert isa.check_no_spills(a)


@pytest.mark.toolchain
@pytest.mark.parametrize("kind", ALL_KINDS)
@pytest.mark.parametrize("arch", NVIDIA)
def test_zero_spill_bytes_nvidia(audit, arch, kind):
    violations = _unexpected_spills(audit, arch, kind)
    assert not violations, "\n".join(violations)


@pytest.mark.toolchain
@pytest.mark.parametrize("arch", NVIDIA)
def test_nvidia_spill_check_flags_spilling_kernel(arch, compile_fixture):
    a = compile_fixture("spill.hip", arch)
    assert a.spill_store_bytes > 0 and a.spill_load_bytes > 0
    assert isa.check_no_spills(a)


# --------------------------------------------------------------------------------------------- LDS size


@pytest.mark.toolchain
@pytest.mark.parametrize("kind", TILED)
@pytest.mark.parametrize("arch", GFX9)
def test_lds_per_block_within_64k(audit, arch, kind):
    for a in kernels(audit, arch, kind=kind):
        assert a.lds_dynamic > 0, f"{a.name}: the launcher's dynamic LDS must be counted"
        assert not isa.check_lds_limit(a), isa.check_lds_limit(a)


@pytest.mark.toolchain
@pytest.mark.parametrize("arch", GFX9)
def test_preprocess_kernel_audited_apart_from_the_tiles(audit, arch):
    """fmha_api.hip's only device code: one preprocess kernel per dtype, no tile (no tile invariants), no LDS."""
    pre = kernels(audit, arch, kind=isa.PREPROCESS_KIND)
    assert sorted(a.dtype for a in pre) == ["bf16", "fp16", "fp32"]
    for a in pre:
        assert a.tile is None and a.aligned is None and a.bank_conflicts is None, a.name
        assert a.lds_total == 0, a.name
        assert not isa.all_checks(a, isa.configs_by_key()), a.name
    # fmha_api.hip's other device code: the KV-cache step kernel (fmha_kvstep.h), the varlen index-check kernel
    # (fmha_varlen_check.h) and the scalar-broadcast forward's V-pair preparation (fmha_fwd_sbcast.h): untiled
    # helpers, audited for scratch only
    helpers = [a for a in audit[arch] if a.kind is None]
    assert all(re.search(r"fmha_kvstep_kernel|fmha_varlen_check_kernel|fmha_fwd_vpairs_kernel", a.symbol)
               for a in helpers), [a.symbol for a in helpers]
    assert any("fmha_varlen_check_kernel" in a.symbol for a in helpers), [a.symbol for a in helpers]
    # none uses scratch: the device-side assert of the step and check kernels is a trap on AMD (rf_vendor.h
    # rf_assert_fail; HIP's __assert_fail cost the step kernel 224 B per lane on every gfx9 arch)
    assert not [a.symbol for a in helpers if a.scratch_bytes], [(a.symbol, a.scratch_bytes) for a in helpers]
    assert {a.kind for a in audit[arch]} - {None} == set(ALL_KINDS), "fmha_api.hip must hold no tiled kernel"


@pytest.mark.toolchain
def test_lds_check_flags_oversized_tile(compile_fixture):
    a = compile_fixture("oversized_lds.hip", "gfx906")
    assert a.lds_total == 75776
    assert isa.check_lds_limit(a)


@pytest.mark.parametrize("cfg", _all_configs() + _all_configs("cuda"), ids=lambda c: f"{c.kind}-{c.tile_name}")
def test_probe_lds_bytes_match_the_config_files_formula(cfg):
    """lds_bytes() of each shape type (through the probe) against the LDS formulas written in the headers of
    ck_configs/fmha_fwd.toml, fmha_bwd.toml and fmha_splitkv.toml: a second derivation, so a layout change is
    noticed."""
    row = cfg.headdim * cfg.elem_bytes + cfg.lds_pad_bytes  # one padded Q / K / V / dO row, bytes
    if cfg.kind == "fwd":  # Q + max(K, V row pairs) + P
        expected = cfg.block_m * row + max(cfg.block_n * row, cfg.block_n // 2 * (2 * cfg.headdim * cfg.elem_bytes
                                                                                   + cfg.lds_pad_bytes)) \
            + cfg.block_m * cfg.block_n * cfg.elem_bytes
    elif cfg.kind == "fwd_splitkv":  # key_groups / 2 merge slots of O (fp32 rows + pad), m, l
        slots = max(1, cfg.threads // cfg.threads_n // 2)
        expected = slots * (cfg.block_m * (cfg.headdim * 4 + cfg.lds_pad_bytes) + 2 * cfg.block_m * 4)
    elif cfg.kind == "bwd_dkdv":  # K, V + Q, dO + P^T, dS^T
        expected = 2 * cfg.block_n * row + 2 * cfg.block_m * row \
            + 2 * cfg.block_n * (cfg.block_m * cfg.elem_bytes + cfg.lds_pad_bytes)
    else:  # Q, dO + K, V + dS
        expected = 2 * cfg.block_m * row + 2 * cfg.block_n * row + cfg.block_m * (cfg.block_n * cfg.elem_bytes
                                                                                   + cfg.lds_pad_bytes)
    try:
        probe = Probe.load()
    except build.BuildError as e:
        _missing("the host C++ compiler", e)
    shape = TileShape.from_config(cfg)
    assert probe.valid(shape), cfg.tile_name
    assert probe.lds_bytes(shape) == expected
    # the same fields read as another shape type give another layout: the kind reaches the C++ side
    other = "bwd_dq" if cfg.kind != "bwd_dq" else "bwd_dkdv"
    assert probe.lds_bytes(TileShape.from_config(cfg, kind=other)) != expected


def test_probe_rejects_unknown_kinds():
    with pytest.raises(ValueError, match="kind must be one of"):
        TileShape(128, 64, 64, 256, 16, 16, 2, kind="bwd")
    shape = TileShape(128, 32, 64, 256, 16, 16, 2, kind="bwd_dkdv")
    try:
        probe = Probe.load()
    except build.BuildError as e:
        _missing("the host C++ compiler", e)
    with pytest.raises(ValueError, match="read must be one of"):
        probe.read_extent(shape, "p")  # a forward read kind
    # the column reads of dV += P^T.dO: one row per loop step, o_col_read_bytes() per lane
    assert probe.read_extent(shape, "do_col") == (32, 1, 16)
    # dO starts after K, V (2 x 64 rows) and Q (32 rows) of 128 * 2 + 16 bytes; lane tx reads columns 8 tx .. 8 tx + 7
    row = 128 * 2 + 16
    assert probe.lane_addresses(shape, "do_col", 1, 0, 0, 4) == [(2 * 64 + 32 + 1) * row + 16 * tx for tx in range(4)]


# -------------------------------------------------------------------------------------------- occupancy


def test_occupancy_formula_gfx906():
    gfx906 = isa.ARCHS["gfx906"]
    wave = isa.GFX9_WAVE_SIZE
    # VGPR limit: 256 / round_up(v, 4), at most 10
    assert isa.occupancy_amd(gfx906, 24, 256, wave, 0)[0] == 10
    assert isa.occupancy_amd(gfx906, 25, 256, wave, 0)[0] == 9  # 28 VGPRs allocated
    assert isa.occupancy_amd(gfx906, 128, 256, wave, 0)[0] == 2
    assert isa.occupancy_amd(gfx906, 129, 256, wave, 0)[0] == 1
    # LDS limit: floor(65536 / lds) blocks of 4 waves over 4 SIMDs
    assert isa.occupancy_amd(gfx906, 64, 256, wave, 22016)[1] == 2
    assert isa.occupancy_amd(gfx906, 64, 256, wave, 43008)[1] == 1
    assert isa.occupancy_amd(gfx906, 64, 256, wave, 43008)[2] == 1
    # a block of 2 waves alone on a CU leaves 2 of its 4 SIMDs without a wave
    assert isa.occupancy_amd(gfx906, 64, 128, wave, 51456)[1] == 0


@pytest.mark.toolchain
@pytest.mark.parametrize("kind", TILED)
def test_designed_occupancy_matches_gfx906(audit, kind):
    """waves_per_simd of each config (ck_configs/fmha_fwd.toml, fmha_bwd.toml) equals what the aligned gfx906
    kernel achieves."""
    by_key = {(a.dtype, a.headdim): a for a in kernels(audit, "gfx906", aligned=True, kind=kind)}
    configs = _configs(kind)
    assert {(c.dtype, c.headdim) for c in configs} == set(by_key)
    violations = [v for c in configs for v in isa.check_occupancy(by_key[(c.dtype, c.headdim)], c.waves_per_simd)]
    assert not violations, "\n".join(violations)


@pytest.mark.toolchain
@pytest.mark.parametrize("kind", TILED)
def test_occupancy_check_flags_a_wrong_design(audit, kind):
    a = kernels(audit, "gfx906", aligned=True, kind=kind)[0]
    assert isa.check_occupancy(a, a.waves_per_simd + 1)


# ------------------------------------------------------------------------------- instruction selection


@pytest.mark.toolchain
@pytest.mark.parametrize("kind", TILED)
def test_gfx906_fp16_main_loop_uses_dot2_and_128bit_loads(audit, kind):
    fp16 = [a for a in kernels(audit, "gfx906", aligned=True, kind=kind) if a.dtype == "fp16"]
    assert len(fp16) == len([c for c in _configs(kind) if c.dtype == "fp16"])
    for a in fp16:
        assert not isa.check_vector_path(a, want_dot2=True), isa.check_vector_path(a)
        if kind not in isa.UNSYNCED_MAIN_LOOP:  # the split-KV key loop streams K/V through registers, no LDS
            assert a.loop_counts["ds_read_b128"] > 0, a.name
        assert a.loop_counts["dot2"] == a.kernel_counts["dot2"], f"{a.name}: every dot2 belongs to the main loop"


@pytest.mark.toolchain
@pytest.mark.parametrize("kind", TILED)
def test_aligned_path_uses_128bit_loads_all_dtypes(audit, kind):
    violations = [v for a in kernels(audit, "gfx906", aligned=True, kind=kind)
                  for v in isa.check_vector_path(a, want_dot2=False)]
    assert not violations, "\n".join(violations)


@pytest.mark.toolchain
@pytest.mark.parametrize("kind", ("fwd", "bwd_dkdv", "bwd_dq"))
def test_fp32_scores_sum_in_fp64_and_16bit_never(audit, kind):
    """fp32 tiles sum their scores (and dP) in fp64 in the main loop (hip_src tile_rowdot_fp64, issue 8: the fp32 FMA
    chain left the backward rule at softmax_scale 50); 16-bit kernels hold no fp64 FMA (their speed is untouched)."""
    for arch in GFX9:
        ks = kernels(audit, arch, kind=kind)
        assert any(a.dtype == "fp32" for a in ks) and any(a.dtype == "fp16" for a in ks), arch
        violations = [v for a in ks for v in isa.check_score_precision(a)]
        assert not violations, "\n".join(violations)


def test_score_precision_check_flags_both_ways():
    """check_score_precision flags an fp32 main loop without v_fma_f64 and a 16-bit kernel with one."""
    a = isa.KernelAudit(symbol="k", arch="gfx906", vendor="amd", name="k", kind="fwd", dtype="fp32")
    a.main_loop = (0, 1)
    a.loop_counts, a.kernel_counts = {"fma": 64, "fma64": 0}, {"fma": 64, "fma64": 0}
    assert any("v_fma_f64" in v for v in isa.check_score_precision(a))
    a.loop_counts["fma64"] = a.kernel_counts["fma64"] = 32
    assert not isa.check_score_precision(a)
    b = dataclasses.replace(a, dtype="bf16")
    assert any("16-bit" in v for v in isa.check_score_precision(b))


@pytest.mark.toolchain
def test_vector_path_check_flags_scalar_loads(compile_fixture):
    a = compile_fixture("scalar_loads.hip", "gfx906")
    v = isa.check_vector_path(a, want_dot2=True)
    assert any("global_load_dwordx4" in x for x in v) and any("dot2" in x for x in v), v


@pytest.mark.toolchain
@pytest.mark.parametrize("kind", TILED)
def test_narrow_path_exists_without_128bit_global_loads(audit, kind):
    narrow = {(a.dtype, a.headdim): a for a in kernels(audit, "gfx906", aligned=False, kind=kind)}
    assert set(narrow) == {(c.dtype, c.headdim) for c in _configs(kind)}, "every config needs its narrow instance"
    violations = [v for a in narrow.values() for v in isa.check_narrow_path(a)]
    assert not violations, "\n".join(violations)


@pytest.mark.toolchain
@pytest.mark.parametrize("kind", TILED)
def test_narrow_check_flags_vector_loads(audit, kind):
    aligned = kernels(audit, "gfx906", aligned=True, kind=kind)[0]
    assert isa.check_narrow_path(aligned)


def _synthetic_kernel(body: list[str]) -> tuple[list, dict]:
    text = "\n".join(["k:"] + [ln if ln.endswith(":") else "\t" + ln for ln in body] + [".Lfunc_end0:"])
    return isa.kernel_instructions(text, "k")


def test_versioned_main_loop_is_found_inside_its_largest_copy():
    """A kernel that picks one of two copies of its tile loop at run time (the float32 backward's shifted and
    plain score since eco12) spreads its products over two fenced sibling loops, neither holding half: the main
    loop is then the tile loop inside the larger copy (here the inner fenced loop, depth 3), not the grid loop
    that holds both; two UNfenced product loops inside one tile loop (the forward's S and P.V) are not copies."""
    fma = "v_fma_f32 v1, v2, v3, v1"
    copy = lambda n, tag: [f".Lcopy{tag}:", "s_barrier", f".Ltile{tag}:", "s_barrier", *[fma] * n,  # noqa: E731
                           f"s_cbranch_scc1 .Ltile{tag}", f"s_cbranch_vccnz .Lcopy{tag}"]
    instrs, labels = _synthetic_kernel([".Lgrid:", "s_cbranch_scc0 .Lplain", *copy(9, "A"), "s_branch .Lnext",
                                        ".Lplain:", *copy(8, "B"), ".Lnext:", fma, "s_cbranch_execnz .Lgrid",
                                        "s_endpgm"])
    main = isa.find_main_loop(instrs, labels)
    assert (main.header, main.depth) == (".LtileA", 3), main
    # one copy only: the usual rule (innermost fenced loop holding more than half)
    instrs, labels = _synthetic_kernel([".Lgrid:", *copy(9, "A"), "s_cbranch_execnz .Lgrid", "s_endpgm"])
    assert isa.find_main_loop(instrs, labels).header == ".LtileA"
    # two unfenced product loops inside one fenced tile loop: the tile loop stays the main loop
    instrs, labels = _synthetic_kernel([".Lgrid:", ".Ltile:", "s_barrier", ".Ls:", *[fma] * 5, "s_cbranch_scc1 .Ls",
                                        ".Lpv:", *[fma] * 5, "s_cbranch_scc1 .Lpv", "s_cbranch_vccnz .Ltile",
                                        "s_cbranch_execnz .Lgrid", "s_endpgm"])
    assert isa.find_main_loop(instrs, labels).header == ".Ltile"


# Kernels whose main loop the audit's finder does not place at its kind's depth (open, strict: a kernel listed here
# that passes fails until it is removed). Found by the clean-clone CI check of 2026-12-02 (stop 22, tree 1615ef4):
# in the gfx906 fp32 d256 split-KV kernel clang peels the first key iterations into the depth-1 loop (3278
# instructions: 22 global loads, 20 v_exp, 32 v_fma_f64), which then holds more products than the depth-2 key loop
# itself (486 instructions: 4 global loads, 12 v_exp, 32 v_fma_f64), and the finder takes it; the kernel's results
# are unaffected (tests/test_emu_inference.py, test_emu_overflow_parameters.py execute it). Since eco14-eco16's fp32
# score changes; which of them was not bisected.
KNOWN_MAIN_LOOP_DEPTH = {
    f"rocflash_fmha_fwd_splitkv_gfx9_fp32_d256_b2x4_t128x32_p16_{path}":
        "clang peels the first key iterations into the depth-1 loop, which the finder takes as the main loop"
    for path in ("vec", "narrow")
}


@pytest.mark.toolchain
@pytest.mark.parametrize("kind", TILED)
def test_main_loop_is_the_tile_loop(audit, kind):
    """The detected loops match LLVM's own loop annotations; the main loop sits at its kind's depth (fwd and dQ:
    the K/V tile loop, depth 2; dK/dV: the query-tile loop inside the head loop, depth 3) and refills LDS
    between barriers; the split-KV key loop (depth 2) streams K/V through registers, without a barrier."""
    for a in kernels(audit, "gfx906", kind=kind):
        text = Path(a.source).read_text()
        instrs, labels = isa.kernel_instructions(text, a.symbol)
        loops = isa.find_loops(instrs, labels)
        llvm = isa.llvm_loop_headers(text)
        if kind not in isa.UNSYNCED_MAIN_LOOP:
            assert collections.Counter(lp.depth for lp in loops) == collections.Counter(llvm.values()), a.name
            for header, depth in llvm.items():
                assert any(header in lp.header.split("|") and lp.depth == depth for lp in loops), (a.name, header)
        # Open gap (CI 2026-11-30): in the split-KV kernels LLVM annotates more loops (nested, unrolled-remainder)
        # than the audit's CFG finds; only the main loop's depth and contents are checked there.
        if a.name in KNOWN_MAIN_LOOP_DEPTH:  # strict: still misplaced, and a loop at the kind's depth exists
            assert a.main_loop is not None and a.main_loop.depth != isa.MAIN_LOOP_DEPTH[kind], \
                f"{a.name}: main loop found at its depth now: remove it from KNOWN_MAIN_LOOP_DEPTH"
            assert any(lp.depth == isa.MAIN_LOOP_DEPTH[kind] for lp in loops), a.name
            continue
        assert a.main_loop is not None and a.main_loop.depth == isa.MAIN_LOOP_DEPTH[kind], a.name
        assert a.loop_counts["exp"] > 0, a.name
        assert (a.loop_counts["barrier"] == 0) == (kind in isa.UNSYNCED_MAIN_LOOP), a.name
        # the loop that holds it (dK/dV: the head loop) holds the same products but is not the main loop
        body = set(a.main_loop.instructions)
        outer = [lp for lp in loops if lp.depth < a.main_loop.depth and body <= set(lp.instructions)]
        assert len(outer) == a.main_loop.depth - 1, a.name


@pytest.mark.toolchain
@pytest.mark.parametrize("arch", (*GFX9, *NVIDIA))
def test_sbcast_rows_pass_their_checks(audit, arch):
    """The scalar-broadcast forward instances (ck_configs impl "sbcast") are audited on every gfx9 target:
    no LDS, dot2 on s_load_dwordx16 rows, no scalar-load hazard, no spills (checks.check_sbcast); and
    check_sbcast flags an LDS (vector) forward kernel. NVIDIA (the CUDA build of the logic): no spill bytes."""
    _require(arch)
    rows = [a for a in audit.get(arch, []) if _is_sbcast(a)]
    target = "gfx9" if arch in GFX9 else "cuda"
    want = {c.kernel_name(True) for c in load_configs("fwd") if c.impl == "sbcast" and c.target == target}
    assert {a.name for a in rows} == want
    violations = [v for a in rows for v in isa.all_checks(a)]
    assert not violations, "\n".join(violations)
    if arch not in GFX9:
        return
    vector = kernels(audit, arch, aligned=True, kind="fwd")[0]
    flagged = isa.check_sbcast(dataclasses.replace(vector, source=""))
    assert any("no LDS" in v for v in flagged) and any("s_load_dwordx16" in v for v in flagged), flagged


# -------------------------------------------------------------------------------------- bank conflicts


def test_conflict_model():
    # 16-byte reads are served 8 lanes at a time; rows 256 bytes apart all start in bank 0
    assert isa.lds_conflict_degree([r * 256 for r in range(8)], 16) == 8
    assert isa.lds_conflict_degree([r * 272 for r in range(8)], 16) == 1  # + 16 bytes of padding
    assert isa.lds_conflict_degree([0] * 64, 16) == 1  # broadcast
    assert isa.lds_conflict_degree([4 * i for i in range(32)], 4) == 1
    assert isa.lds_conflict_degree([128 * i for i in range(32)], 4) == 32
    assert isa.lds_conflict_degree([8 * i for i in range(16)], 8) == 1
    with pytest.raises(ValueError, match="width_bytes"):
        isa.lds_conflict_degree([0], 6)


def _conflicts(cfg, **overrides):
    try:
        return isa.tile_bank_conflicts(TileShape.from_config(cfg, **overrides), isa.ARCHS["gfx906"],
                                       isa.GFX9_WAVE_SIZE)
    except build.BuildError as e:
        _missing("the host C++ compiler", e)


@pytest.mark.parametrize("cfg", _all_configs(), ids=lambda c: f"{c.kind}-{c.tile_name}")
def test_main_loop_lds_reads_conflict_free(cfg):
    degrees = _conflicts(cfg)
    assert set(degrees) == set(READ_KINDS[cfg.kind])
    assert {r: d for r, d in degrees.items() if r in isa.CONFLICT_FREE_READS[cfg.kind]} == \
        {r: 1 for r in isa.CONFLICT_FREE_READS[cfg.kind]}, degrees
    if not READ_KINDS[cfg.kind]:  # the split-KV main loop reads no LDS
        return
    # the same config without padding: K (and, in the backward, V) rows of a power-of-two byte length start in
    # the same bank
    unpadded = _conflicts(cfg, lds_pad_bytes=0)
    assert unpadded["k"] > 1, unpadded
    if cfg.kind != "fwd":
        assert unpadded["v"] > 1, unpadded


def test_conflict_check_covers_every_claimed_read():
    """check_bank_conflicts flags a degree > 1 on any read the kind's design claims conflict-free."""
    for kind in TILED:
        for read in isa.CONFLICT_FREE_READS[kind]:
            a = isa.KernelAudit(symbol="k", arch="gfx906", vendor="amd", name="k", kind=kind)
            a.bank_conflicts = {r: 1 for r in READ_KINDS[kind]} | {read: 2}
            assert any(f"{read}_read" in v for v in isa.check_bank_conflicts(a)), (kind, read)


@pytest.mark.toolchain
def test_conflict_check_flags_unpadded_kernel(compile_fixture):
    a = compile_fixture("unpadded_lds.hip", "gfx906")
    assert a.kind == "fwd" and a.tile["lds_pad_bytes"] == 0 and a.bank_conflicts["k"] == 8
    assert isa.check_bank_conflicts(a)


@pytest.mark.toolchain
def test_conflict_check_flags_unpadded_backward_kernel(compile_fixture):
    a = compile_fixture("unpadded_lds_bwd.hip", "gfx906")
    assert a.kind == "bwd_dkdv" and a.tile["lds_pad_bytes"] == 0
    assert a.bank_conflicts["k"] == 8 and a.bank_conflicts["v"] == 8, a.bank_conflicts
    flagged = isa.check_bank_conflicts(a)
    assert any("k_read" in v for v in flagged) and any("v_read" in v for v in flagged), flagged
    assert a.main_loop is not None and a.main_loop.depth == isa.MAIN_LOOP_DEPTH["bwd_dkdv"]


def test_parse_tile_symbol_names_the_kind():
    fwd = "_ZN2rf15fmha_fwd_kernelINS_4Fp16ENS_38Tile_gfx9_fp16_d128_b64x64_t256x16_p16ELb1EEEvNS_13FmhaFwdParamsE"
    dkdv = ("_ZN2rf20fmha_bwd_dkdv_kernelINS_4Fp16ENS_47Tile_bwd_dkdv_gfx9_fp16_d128_b32x64_t256x16_p16ELb1EEEvNS_"
            "13FmhaBwdParamsE")
    dq = "rf::fmha_bwd_dq_kernel<rf::Bf16, rf::Tile_bwd_dq_gfx9_bf16_d64_b64x64_t256x16_p16, false>"
    assert isa.parse_tile_symbol(fwd)[1]["kind"] == "fwd"
    dtype, shape, aligned = isa.parse_tile_symbol(dkdv)
    assert (dtype, shape["kind"], shape["block_m"], shape["block_n"], aligned) == ("fp16", "bwd_dkdv", 32, 64, True)
    dtype, shape, aligned = isa.parse_tile_symbol(dq)
    assert (dtype, shape["kind"], shape["headdim"], aligned) == ("bf16", "bwd_dq", 64, False)
    pre = "_ZN2rf26fmha_bwd_preprocess_kernelINS_4Fp32ELi256ELi16EEEvNS_13FmhaBwdParamsE"
    assert isa.parse_tile_symbol(pre) is None and isa.parse_preprocess_symbol(pre) == "fp32"
    assert isa.parse_preprocess_symbol(fwd) is None


# ------------------------------------------------------------------------------------------------ CLI


@pytest.mark.toolchain
def test_cli_reads_a_build_directory(tmp_path, capsys, compile_fixture):
    compile_fixture("unpadded_lds.hip", "gfx906")
    src = next((_build_dir() / "fixtures" / "gfx906").glob("unpadded_lds.*.s"))
    (tmp_path / src.name).write_text(src.read_text())
    assert isa.main(["--from-dir", str(tmp_path), "--json", str(tmp_path / "a.json"), "--check"]) == 1
    data = json.loads((tmp_path / "a.json").read_text())
    (k,) = data["kernels"]
    assert k["arch"] == "gfx906" and k["kind"] == "fwd" and k["bank_conflicts"]["k"] == 8
    assert k["main_loop"]["depth"] == 2
    assert "VIOLATION" in capsys.readouterr().err


def test_cli_imports_no_torch():
    """``python -m rocflash.isa`` runs where torch is absent: neither the package nor the tool imports it."""
    code = "import sys, rocflash.isa.cli; assert 'torch' not in sys.modules, 'torch imported'; print('ok')"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=FIXTURES)
    assert proc.returncode == 0 and "ok" in proc.stdout, proc.stderr


def test_cli_accepts_exactly_the_build_archs(tmp_path, capsys):
    """--arch takes what GPU_ARCHS / TORCH_CUDA_ARCH_LIST take (gfx950 and target-id features included) and
    rejects the rest with the accepted list."""
    assert set(isa.cli.CLI_ARCHS) == {*build.AMD_ARCHS, *(f"sm_{c.replace('.', '')}" for c in build.CUDA_ARCHS)}
    for arch in isa.cli.CLI_ARCHS:
        isa.arch_info(arch)  # every arch the build accepts has a row in the arch table
    # accepted archs get past argument parsing to the (empty) directory, which is an error of its own
    assert isa.main(["--arch", "gfx950,gfx90a:xnack-,sm_100", "--from-dir", str(tmp_path)]) == 2
    assert "no kernel to audit" in capsys.readouterr().err
    for bad in ("gfx1030", "gfx999", "sm_99", "gfx90a:xnack"):
        with pytest.raises(SystemExit) as e:
            isa.main(["--arch", bad, "--from-dir", str(tmp_path)])
        assert e.value.code == 2
        assert "gfx950" in capsys.readouterr().err


def test_cli_help_is_complete(capsys):
    with pytest.raises(SystemExit):
        isa.main(["--help"])
    out = capsys.readouterr().out
    assert "conflict-free LDS reads)." in out and "--from-dir DIR" in out
    # the install hint is the README's: a plain 'rocflash[audit]' would rebuild rocflash without GPU kernels
    assert 'pip install --no-build-isolation ".[audit]"' in out and "rocflash[audit]" not in out
    readme = Path(__file__).resolve().parents[1] / "README.md"
    assert 'pip install --no-build-isolation ".[audit]"' in readme.read_text()


def test_cli_checks_python_dependencies_before_compiling(monkeypatch, capsys):
    """A missing PyYAML / networkx is reported at once, naming the extra, before any compile starts."""
    monkeypatch.setitem(isa.compile.PYTHON_DEPS, "rocflash_no_such_module", "no-such-package")
    monkeypatch.setattr(isa.cli, "run_audit", lambda *a, **k: pytest.fail("must not compile"))
    assert isa.main(["--arch", "gfx906"]) == 2
    err = capsys.readouterr().err
    assert "no-such-package" in err and 'pip install --no-build-isolation ".[audit]"' in err


def test_instruction_decoding():
    ins = isa.Instruction("v_dot2c_f32_f16_e32", "v1, v[2:3], s[4:5] offset:16", " comment")
    assert ins.base == "v_dot2c_f32_f16" and ins.encoding == "e32"
    assert ins.args == ("v1", "v[2:3]", "s[4:5] offset:16")
    assert isa.Instruction("s_cbranch_scc1", ".LBB0_3").branch_target == ".LBB0_3"
    assert isa.Instruction("s_endpgm").is_terminator and not isa.Instruction("s_endpgm").is_branch
    mnemonic, operands, comment = ins  # still unpacks like the (mnemonic, operands, comment) tuples it replaced
    assert (mnemonic, operands) == ("v_dot2c_f32_f16_e32", "v1, v[2:3], s[4:5] offset:16")
