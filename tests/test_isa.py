"""ISA invariants of the forward kernels (rocflash/isa.py), each with a negative test: a deliberately bad
kernel in tests/fixtures/ (or a deliberately wrong expectation) that the same check must flag.

Compiler-driven tests are marked ``toolchain``: they need hipcc (gfx906/908/90a), clang++-19 (gfx942) and nvcc
(sm_80/90). CI installs them (ci/install_toolchain.sh); under CI=true a missing tool is a failure, elsewhere
the test skips. The compiled outputs are cached (``ROCFLASH_ISA_BUILD_DIR``, default
``~/.cache/rocflash/isa``), so a second run takes under a minute; the first compiles 144 instances (2.5 to 5
minutes on 2 cores, see perf/results/isa_audit.md) plus the fixtures.
"""

from __future__ import annotations

import collections
import json
import os
from pathlib import Path

import pytest

from rocflash import build, isa
from rocflash._probe import TileShape
from rocflash.configs import hip_src_dir, load_fwd_configs

FIXTURES = Path(__file__).resolve().parent / "fixtures"
GFX9 = isa.AMD_AUDIT_ARCHS
NVIDIA = isa.NVIDIA_AUDIT_ARCHS


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


@pytest.fixture(scope="session")
def audit() -> dict[str, list[isa.KernelAudit]]:
    """Every forward instance audited on every arch whose compiler exists: {arch: [KernelAudit]}."""
    available = []
    for arch in (*GFX9, *NVIDIA):
        try:
            _tool_for(arch)
            available.append(arch)
        except build.BuildError:
            pass
    if not available:
        return {}
    run = isa.run_audit(available, _build_dir(), paths="both")
    by_arch = collections.defaultdict(list)
    for a in run.kernels:
        by_arch[a.arch].append(a)
    return dict(by_arch)


def kernels(audit, arch: str, aligned: bool | None = None) -> list[isa.KernelAudit]:
    _require(arch)
    found = [a for a in audit.get(arch, []) if aligned is None or a.aligned == aligned]
    assert found, f"no kernels audited for {arch}"
    return found


def compile_fixture(name: str, arch: str) -> isa.KernelAudit:
    _require(arch)
    cf = isa.compile_for_audit(arch, FIXTURES / name, _build_dir() / "fixtures", [hip_src_dir()])
    return isa.audit_file(cf.output)


def _configs(target: str = "gfx9"):
    return [c for c in load_fwd_configs() if c.target == target]


# ------------------------------------------------------------------------------------- wavefront size


@pytest.mark.toolchain
@pytest.mark.parametrize("arch", GFX9)
def test_wave64_on_every_gfx9_target(audit, arch):
    for a in kernels(audit, arch):
        assert a.wave_size == isa.GFX9_WAVE_SIZE, a.name
        assert not isa.check_wave_size(a)


@pytest.mark.toolchain
def test_wave_size_check_flags_a_wave32_kernel():
    a = compile_fixture("scalar_loads.hip", "gfx1030")  # RDNA2 compiles wave32 by default
    assert a.wave_size == 32
    assert isa.check_wave_size(a, expected=isa.GFX9_WAVE_SIZE)


# ----------------------------------------------------------------------------------- scratch / spills


@pytest.mark.toolchain
@pytest.mark.parametrize("arch", GFX9)
def test_no_scratch_no_spills_amd(audit, arch):
    violations = [v for a in kernels(audit, arch) for v in isa.check_no_spills(a)]
    assert not violations, "\n".join(violations)


@pytest.mark.toolchain
@pytest.mark.parametrize("arch", ["gfx906", "gfx942"])
def test_spill_check_flags_spilling_kernel(arch):
    a = compile_fixture("spill.hip", arch)
    assert a.scratch_bytes > 0 and a.vgpr_spill_count > 0 and a.spill_ops > 0
    assert isa.check_no_spills(a)


@pytest.mark.toolchain
@pytest.mark.parametrize("arch", NVIDIA)
def test_zero_spill_bytes_nvidia(audit, arch):
    violations = [v for a in kernels(audit, arch) for v in isa.check_no_spills(a)]
    assert not violations, "\n".join(violations)


@pytest.mark.toolchain
@pytest.mark.parametrize("arch", NVIDIA)
def test_nvidia_spill_check_flags_spilling_kernel(arch):
    a = compile_fixture("spill.hip", arch)
    assert a.spill_store_bytes > 0 and a.spill_load_bytes > 0
    assert isa.check_no_spills(a)


# --------------------------------------------------------------------------------------------- LDS size


@pytest.mark.toolchain
@pytest.mark.parametrize("arch", GFX9)
def test_lds_per_block_within_64k(audit, arch):
    for a in kernels(audit, arch):
        assert a.lds_dynamic > 0, f"{a.name}: the launcher's dynamic LDS must be counted"
        assert not isa.check_lds_limit(a), isa.check_lds_limit(a)


@pytest.mark.toolchain
def test_lds_check_flags_oversized_tile():
    a = compile_fixture("oversized_lds.hip", "gfx906")
    assert a.lds_total == 75776
    assert isa.check_lds_limit(a)


# -------------------------------------------------------------------------------------------- occupancy


def test_occupancy_formula_gfx906():
    gfx906 = isa.ARCHS["gfx906"]
    # VGPR limit: 256 / round_up(v, 4), at most 10
    assert isa.occupancy_amd(gfx906, 24, 256, 64, 0)[0] == 10
    assert isa.occupancy_amd(gfx906, 25, 256, 64, 0)[0] == 9  # 28 VGPRs allocated
    assert isa.occupancy_amd(gfx906, 128, 256, 64, 0)[0] == 2
    assert isa.occupancy_amd(gfx906, 129, 256, 64, 0)[0] == 1
    # LDS limit: floor(65536 / lds) blocks of 4 waves over 4 SIMDs
    assert isa.occupancy_amd(gfx906, 64, 256, 64, 22016)[1] == 2
    assert isa.occupancy_amd(gfx906, 64, 256, 64, 43008)[1] == 1
    assert isa.occupancy_amd(gfx906, 64, 256, 64, 43008)[2] == 1


@pytest.mark.toolchain
def test_designed_occupancy_matches_gfx906(audit):
    """ck_configs/fmha_fwd.toml's waves_per_simd equals what the aligned gfx906 kernel achieves."""
    by_key = {(a.dtype, a.headdim): a for a in kernels(audit, "gfx906", aligned=True)}
    configs = _configs()
    assert {(c.dtype, c.headdim) for c in configs} == set(by_key)
    violations = [v for c in configs for v in isa.check_occupancy(by_key[(c.dtype, c.headdim)], c.waves_per_simd)]
    assert not violations, "\n".join(violations)


@pytest.mark.toolchain
def test_occupancy_check_flags_a_wrong_design(audit):
    a = kernels(audit, "gfx906", aligned=True)[0]
    assert isa.check_occupancy(a, a.waves_per_simd + 1)


# ------------------------------------------------------------------------------- instruction selection


@pytest.mark.toolchain
def test_gfx906_fp16_main_loop_uses_dot2_and_128bit_loads(audit):
    fp16 = [a for a in kernels(audit, "gfx906", aligned=True) if a.dtype == "fp16"]
    assert len(fp16) == len([c for c in _configs() if c.dtype == "fp16"])
    for a in fp16:
        assert not isa.check_vector_path(a, want_dot2=True), isa.check_vector_path(a)
        assert a.loop_counts["ds_read_b128"] > 0, a.name
        assert a.loop_counts["dot2"] == a.kernel_counts["dot2"], f"{a.name}: every dot2 belongs to the main loop"


@pytest.mark.toolchain
def test_aligned_path_uses_128bit_loads_all_dtypes(audit):
    violations = [v for a in kernels(audit, "gfx906", aligned=True) for v in isa.check_vector_path(a, want_dot2=False)]
    assert not violations, "\n".join(violations)


@pytest.mark.toolchain
def test_vector_path_check_flags_scalar_loads():
    a = compile_fixture("scalar_loads.hip", "gfx906")
    v = isa.check_vector_path(a, want_dot2=True)
    assert any("global_load_dwordx4" in x for x in v) and any("dot2" in x for x in v), v


@pytest.mark.toolchain
def test_narrow_path_exists_without_128bit_global_loads(audit):
    narrow = {(a.dtype, a.headdim): a for a in kernels(audit, "gfx906", aligned=False)}
    assert set(narrow) == {(c.dtype, c.headdim) for c in _configs()}, "every config needs its narrow instance"
    violations = [v for a in narrow.values() for v in isa.check_narrow_path(a)]
    assert not violations, "\n".join(violations)


@pytest.mark.toolchain
def test_narrow_check_flags_vector_loads(audit):
    aligned = kernels(audit, "gfx906", aligned=True)[0]
    assert isa.check_narrow_path(aligned)


@pytest.mark.toolchain
def test_main_loop_is_the_kv_tile_loop(audit):
    """The detected loops match LLVM's own loop annotations; the main loop is the depth-2 K/V loop."""
    for a in kernels(audit, "gfx906"):
        text = Path(a.source).read_text()
        instrs, labels = isa.kernel_instructions(text, a.symbol)
        loops = isa.find_loops(instrs, labels)
        llvm = isa.llvm_loop_headers(text)
        assert collections.Counter(lp.depth for lp in loops) == collections.Counter(llvm.values()), a.name
        for header, depth in llvm.items():
            assert any(header in lp.header.split("|") and lp.depth == depth for lp in loops), (a.name, header)
        assert a.main_loop is not None and a.main_loop.depth == 2, a.name
        assert a.loop_counts["barrier"] > 0 and a.loop_counts["exp"] > 0, a.name


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


@pytest.mark.parametrize("cfg", _configs(), ids=lambda c: c.tile_name)
def test_main_loop_lds_reads_conflict_free(cfg):
    degrees = _conflicts(cfg)
    assert degrees == {"q": 1, "k": 1, "p": 1, "v": 1}, degrees
    # the same config without padding: K rows of a power-of-two byte length start in the same bank
    assert _conflicts(cfg, lds_pad_bytes=0)["k"] > 1


@pytest.mark.toolchain
def test_conflict_check_flags_unpadded_kernel():
    a = compile_fixture("unpadded_lds.hip", "gfx906")
    assert a.tile["lds_pad_bytes"] == 0 and a.bank_conflicts["k"] == 8
    assert isa.check_bank_conflicts(a)


# ------------------------------------------------------------------------------------------------ CLI


@pytest.mark.toolchain
def test_cli_reads_a_build_directory(tmp_path, capsys):
    compile_fixture("unpadded_lds.hip", "gfx906")
    src = next((_build_dir() / "fixtures" / "gfx906").glob("unpadded_lds.*.s"))
    (tmp_path / src.name).write_text(src.read_text())
    assert isa.main(["--from-dir", str(tmp_path), "--json", str(tmp_path / "a.json"), "--check"]) == 1
    data = json.loads((tmp_path / "a.json").read_text())
    (k,) = data["kernels"]
    assert k["arch"] == "gfx906" and k["bank_conflicts"]["k"] == 8 and k["main_loop"]["depth"] == 2
    assert "VIOLATION" in capsys.readouterr().err
