"""Compile checks of the Composable Kernel instances (ck_configs/ck_fmha.toml) for gfx90a and gfx942, audited
with rocflash.isa (rocflash/isa/ck.py): wave64, at least one kernel per (file, arch), v_mfma in the main loop,
LDS within the arch's limit; scratch and spills reported. Nothing is executed.

Marked ``toolchain``: needs clang++-22, the newer HIP headers / device-libs and the pinned CK source
(ci/install_ck.sh). Under CI=true a missing piece fails; elsewhere the tests skip. The compiled outputs are
cached (``ROCFLASH_ISA_BUILD_DIR``/ck, default ~/.cache/rocflash/isa/ck), so a second run compiles nothing.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from rocflash import build, isa
from rocflash.ck import codegen
from rocflash.ck.configs import load_ck_instances
from rocflash.isa import ck as ck_isa

ARCHS = ck_isa.CK_DEFAULT_ARCHS  # gfx90a, gfx942 (gfx950: python -m rocflash.isa --ck --arch gfx950)


def _build_dir() -> Path:
    return Path(os.environ.get("ROCFLASH_ISA_BUILD_DIR") or isa.default_build_dir()) / "ck"


def _toolchain():
    try:
        return ck_isa.find_ck_toolchain()
    except build.BuildError as e:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true but the CK toolchain is missing ({e}); ci/setup.sh runs ci/install_ck.sh")
        pytest.skip(f"the CK toolchain is missing ({e})")


@pytest.fixture(scope="session")
def ck_run() -> ck_isa.CkAuditRun:
    _toolchain()
    return ck_isa.run_ck_audit(ARCHS, _build_dir())


@pytest.mark.toolchain
def test_every_instance_compiles_to_kernels_on_every_arch(ck_run):
    expected = {(i.name, a) for i in load_ck_instances() for a in ARCHS if a in i.archs}
    assert set(ck_run.files) == expected
    empty = [k for k, n in ck_run.files.items() if n == 0]
    assert not empty, f"files without a kernel (arch guard mismatch): {empty}"


@pytest.mark.toolchain
def test_ck_invariants_hold(ck_run):
    violations = ck_run.violations()
    assert not violations, "\n".join(violations)
    for a in ck_run.kernels:
        assert a.wave_size == 64 and a.loop_counts["mfma"] > 0 and a.lds_total <= isa.arch_info(a.arch).lds_per_cu


@pytest.mark.toolchain
def test_ck_report_lists_spills_and_scratch(ck_run):
    text = ck_isa.format_ck_markdown(ck_run, "test")
    assert "scratch B" in text and "VGPR spill" in text and "never executed" in text
    for arch in ARCHS:
        assert f"### {arch}" in text


@pytest.mark.toolchain
def test_arch_guard_mismatch_is_flagged(tmp_path):
    """A source whose device code is guarded for another arch family (gfx950 code compiled for gfx942) holds no
    kernel: the audit must count 0 and report it, not pass silently."""
    tc = _toolchain()
    inst = next(i for i in load_ck_instances() if i.hdim == 32)
    src = tmp_path / f"{inst.name}.cpp"
    src.write_text(codegen.instance_source(inst, ["gfx950"]))
    cf = ck_isa.compile_ck(tc, "gfx942", src, _build_dir() / "negative")
    meta = isa.parse_amdgpu_metadata(cf.output.read_text())
    assert not meta.get("amdhsa.kernels")
    run = ck_isa.CkAuditRun([], ["gfx942"], {(inst.name, "gfx942"): 0}, 0, 0, 1, 0, 1, tc)
    assert any("at least one kernel" in v for v in run.violations())


def test_mfma_check_flags_a_kernel_without_mfma():
    a = isa.KernelAudit(symbol="k", arch="gfx942", vendor="amd", name="k", wave_size=64)
    assert ck_isa.check_mfma_main_loop(a)
    a.main_loop = isa.Loop("L", 1, (0,), (0,))
    a.loop_counts = {"mfma": 0}
    assert "0 v_mfma" in ck_isa.check_mfma_main_loop(a)[0]
    a.loop_counts = {"mfma": 8}
    assert not ck_isa.check_mfma_main_loop(a)


def test_gfx950_lds_limit_is_160k():
    a = isa.KernelAudit(symbol="k", arch="gfx950", vendor="amd", name="k", wave_size=64, lds_static=150 * 1024)
    assert not isa.check_lds_limit(a)
    a.arch = "gfx942"
    assert isa.check_lds_limit(a)
