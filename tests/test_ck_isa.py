"""Compile checks of the Composable Kernel instances (ck_configs/ck_fmha.toml), forward and backward, for gfx90a
and gfx942, audited with rocflash.isa (rocflash/isa/ck.py): wave64, at least one kernel per (file, arch) and the
backward's two kernels per backward file (dq_dk_dv, convert_dq; no dot_do_o), v_mfma in the main loop of the forward and dq_dk_dv kernels, LDS
within the arch's limit; scratch and spills reported and held to KNOWN_CK_SPILLS. Nothing is executed.

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


# Kernels that spill with upstream clang-22 (AMD's ROCm compiler has flags upstream lacks), per (instance, kernel
# kind, arch). Strict, like tests/test_isa.py's KNOWN_SPILLS: a kernel that starts spilling fails, and so does
# a listed one that stops (remove it here and from perf/results/ck_audit.md).
FWD_D128 = "rocflash_ck_fwd_{}_d128_b128x128x32x128x32x128_w4x1x1_t32x32x16_qr_{}"
KNOWN_CK_SPILLS = {
    (FWD_D128.format("fp16", "softcap"), "ck_fwd", "gfx90a"): "292 B scratch, 72 VGPR spills",
    (FWD_D128.format("fp16", "softcap"), "ck_fwd", "gfx942"): "128 B scratch, 31 VGPR spills",
    (FWD_D128.format("bf16", "batch"), "ck_fwd", "gfx90a"): "16 B scratch, 3 VGPR spills",
    (FWD_D128.format("bf16", "group"), "ck_fwd", "gfx90a"): "16 B scratch, 3 VGPR spills",
    (FWD_D128.format("bf16", "batch_o32"), "ck_fwd", "gfx90a"): "16 B scratch, 3 VGPR spills",  # branch ck2
    (FWD_D128.format("fp16", "alibi"), "ck_fwd", "gfx90a"): "404 B scratch, 100 VGPR spills",  # branch ck11
    (FWD_D128.format("fp16", "alibi_o32"), "ck_fwd", "gfx90a"): "404 B scratch, 100 VGPR spills",
    (FWD_D128.format("fp16", "alibi"), "ck_fwd", "gfx942"): "128 B scratch, 31 VGPR spills",
    (FWD_D128.format("fp16", "alibi_o32"), "ck_fwd", "gfx942"): "128 B scratch, 31 VGPR spills",
}


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
        assert a.wave_size == 64 and a.lds_total <= isa.arch_info(a.arch).lds_per_cu
        if a.kind in ck_isa.CK_MFMA_KINDS:  # convert_dq: a row sum, no matrix product
            assert a.loop_counts["mfma"] > 0, (a.name, a.kind, a.arch)


@pytest.mark.toolchain
def test_backward_files_hold_their_two_kernels(ck_run):
    for inst in (i for i in load_ck_instances() if i.kind == "bwd"):
        for arch in (a for a in ARCHS if a in inst.archs):
            kinds = sorted(a.kind for a in ck_run.kernels if a.name == inst.name and a.arch == arch)
            assert kinds == sorted(ck_isa.CK_BWD_KINDS.values()), (inst.name, arch, kinds)
            dq_dk_dv = next(a for a in ck_run.kernels if a.name == inst.name and a.arch == arch
                            and a.kind == "ck_bwd_dq_dk_dv")
            assert dq_dk_dv.loop_counts["mfma"] > 0 and dq_dk_dv.lds_total > 0


@pytest.mark.toolchain
@pytest.mark.parametrize("arch", ARCHS)
def test_ck_spills_are_the_known_ones(ck_run, arch):
    violations, seen = [], set()
    for a in (k for k in ck_run.kernels if k.arch == arch):
        found = isa.check_no_spills(a)
        if (a.name, a.kind, arch) in KNOWN_CK_SPILLS and found:
            seen.add((a.name, a.kind, arch))
        else:
            violations += [f"{v} ({a.kind})" for v in found]
    compiled = {(a.name, a.kind, a.arch) for a in ck_run.kernels}
    violations += [f"{n} ({kind}) [{ar}] no longer spills: remove it from KNOWN_CK_SPILLS"
                   for (n, kind, ar) in KNOWN_CK_SPILLS if ar == arch and (n, kind, ar) in compiled
                   and (n, kind, ar) not in seen]
    assert not violations, "\n".join(violations)


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
    run = ck_isa.CkAuditRun([], ["gfx942"], {(inst.name, "gfx942"): 0}, {}, 0, 0, 1, 0, 1, tc)
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


def test_backward_kernels_are_told_apart_and_checked():
    """convert_dq needs no MFMA; dq_dk_dv does; a backward file missing one of them, or holding CK's dot_do_o
    (not used: D comes from the ck backend), is a violation."""
    sym = "_ZN7ck_tile6kentryINS_6gfx9_tELi1ENS_19FmhaBwdDQDKDVKernelIvEEJEEEvDpT2_"
    assert ck_isa.ck_kernel_kind("bwd", sym) == "ck_bwd_dq_dk_dv"
    assert ck_isa.ck_kernel_kind("bwd", sym.replace("FmhaBwdDQDKDVKernel", "FmhaBwdConvertQGradKernel")) == \
        "ck_bwd_convert_dq"
    assert ck_isa.ck_kernel_kind("fwd", "anything") == ck_isa.CK_KIND
    assert ck_isa.ck_kernel_kind("bwd", sym.replace("FmhaBwdDQDKDVKernel", "FmhaBwdOGradDotOKernel")) == \
        "ck_bwd_unknown"
    a = isa.KernelAudit(symbol="k", arch="gfx942", vendor="amd", name="b", wave_size=64, kind="ck_bwd_convert_dq")
    assert not ck_isa.ck_checks(a)  # no main loop, no MFMA: fine for convert_dq
    a.kind = "ck_bwd_dq_dk_dv"
    assert any("v_mfma" in v for v in ck_isa.ck_checks(a))
    inst = next(i for i in load_ck_instances() if i.kind == "bwd")
    run = ck_isa.CkAuditRun([a], ["gfx942"], {(inst.name, "gfx942"): 1}, {}, 0, 0, 1, 0, 1, None)
    a.name = inst.name
    assert any("dq_dk_dv and convert_dq once each" in v for v in run.violations())


def test_backward_sources_instantiate_their_two_kernels_per_family():
    inst = next(i for i in load_ck_instances() if i.kind == "bwd" and i.deterministic)
    src = codegen.instance_source(inst, ["gfx9", "gfx950"])
    for cls in ck_isa.CK_BWD_KINDS:
        assert src.count(f"ck_tile::{cls}<") == 2, cls
    assert "FmhaBwdOGradDotOKernel" not in src and "dot_do_o_create_kargs" not in src  # D is the binding's
    assert "constexpr bool kDeterministic = true;" in src and "fmha_bwd_args a" in src
    assert src.count("#if !defined(__HIP_DEVICE_COMPILE__)") == 2
    disp = codegen.dispatch_source(load_ck_instances(), ["gfx9"], "bwd")
    assert f'name == "{inst.name}" && family == "gfx9"' in disp and "fmha_fwd" not in disp


def test_training_forward_sources_store_o_in_float32():
    """batch_o32 (the training forward): CK's O type is float in the pipeline problem and the epilogue; every
    other forward instance stores O in its dtype."""
    for inst in (i for i in load_ck_instances() if i.kind == "fwd"):
        src = codegen.instance_source(inst, ["gfx9"])
        assert src.count("/*O*/ float") == (2 if inst.o_fp32 else 0), inst.name
        assert src.count("/*O*/ Types::ODataType") == (0 if inst.o_fp32 else 2), inst.name


def test_alibi_sources_use_ck_alibi_bias():
    """alibi instances (forward and backward) instantiate CK's ALIBI bias; every other instance NO_BIAS; the
    bindings copy the slopes' pointer and batch stride into the args structs."""
    for inst in load_ck_instances():
        src = codegen.instance_source(inst, ["gfx9"])
        want = "ALIBI" if inst.alibi else "NO_BIAS"
        assert src.count(f"ck_tile::BlockAttentionBiasEnum::{want}") == 1, inst.name
        assert ("ALIBI" in src) == inst.alibi and not (inst.alibi and inst.softcap), inst.name
    from rocflash.configs import hip_src_dir
    for binding in ("ck_bindings.cpp", "ck_bwd_bindings.cpp"):
        text = (hip_src_dir() / binding).read_text()
        assert "bias_ptr" in text and "RF_INT(stride_bias)" in text, binding


STANDIN = Path(__file__).resolve().parents[1] / "ci" / "ck_hipcc_standin.sh"


@pytest.mark.toolchain
def test_pip_build_path_compiles_and_links(tmp_path):
    """setup.py's rocflash._C_ck build (rocflash.ck.build: codegen, host + device compile of an instance, both
    dispatchers and both bindings, link) with ci/ck_hipcc_standin.sh (clang-22 + the downloaded HIP headers) as
    hipcc, for gfx942 and the smallest forward instance: this project has no ROCm hipcc, so this is the closest
    run of the user's `pip install` build. The module is not imported (no HIP runtime here): it must exist, export
    PyInit__C_ck and carry the HIP fat binary."""
    _toolchain()
    if not STANDIN.is_file():
        pytest.skip("ci/ck_hipcc_standin.sh is not next to this tests/ directory")
    import subprocess
    import sys

    out = tmp_path / "_C_ck.so"
    env = {**os.environ, "HIPCC": str(STANDIN)}
    proc = subprocess.run([sys.executable, "-m", "rocflash.ck.build", "--arch", "gfx942", "--out", str(out),
                           "--build-dir", str(tmp_path / "b"), "--only", "fwd_fp16_d32_"], env=env,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert "built rocflash._C_ck (1 CK instances for gfx942)" in proc.stderr
    symbols = subprocess.run(["nm", "-D", str(out)], capture_output=True, text=True, check=True).stdout
    assert " T PyInit__C_ck" in symbols and " U __hipRegisterFatBinary" in symbols
    sections = subprocess.run(["readelf", "-S", "-W", str(out)], capture_output=True, text=True, check=True).stdout
    assert ".hip_fatbin" in sections
