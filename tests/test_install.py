"""Installs that say what they did (issue 8 item 5): an invalid arch always fails the install; an install
without GPU kernels (CPU torch, pip's build isolation, ROCFLASH_BUILD=none) is said by the build record,
`rocflash info`, `import rocflash` on a GPU machine and the first GPU call's error."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
import torch

import rocflash
from rocflash import build, selector
from rocflash.backends.compiled import load_module
from rocflash.selector import DeviceProbe, MissingKernelWarning, UnsupportedDeviceError
from conftest import require_builds

info_mod = importlib.import_module("rocflash.info")  # rocflash.info is also the function
SOURCE = Path(__file__).resolve().parents[1]
CPU_TORCH = (False, False)
NO_KERNELS = {"platforms": {}, "why_none": "the installed torch is a CPU-only build", "torch_at_build": "2.13.0+cpu"}


# ------------------------------------------------------------------------------------------ the build plan
@pytest.mark.parametrize("env,var", [
    ({"GPU_ARCHS": "gfx1234"}, "GPU_ARCHS"),
    ({"GPU_ARCHS": "gfx1234", "ROCFLASH_BUILD": "none"}, "GPU_ARCHS"),
    ({"PYTORCH_ROCM_ARCH": "gfx906;gfx1234"}, "PYTORCH_ROCM_ARCH"),
    ({"TORCH_CUDA_ARCH_LIST": "Turing", "ROCFLASH_BUILD": "hip"}, "TORCH_CUDA_ARCH_LIST"),
])
@pytest.mark.parametrize("torch_platform", [CPU_TORCH, None, (True, False)], ids=["cpu-torch", "isolated", "rocm-torch"])
def test_invalid_arch_always_fails(env, var, torch_platform):
    """Whatever is built (nothing with a CPU torch or under build isolation), a bad arch name is an error that
    names the variable and the accepted list."""
    with pytest.raises(ValueError, match=rf"^{var}: unknown .*'(gfx1234|Turing)'; accepted: .*(gfx906, gfx908|7.0, 7.5)"):
        build.plan_build(env, torch_platform)


@pytest.mark.parametrize("env,torch_platform,why", [
    ({}, CPU_TORCH, "the installed torch is a CPU-only build"),
    ({"ROCFLASH_BUILD": "auto"}, None, "torch was not importable at build time (pip's build isolation: add "
                                       "--no-build-isolation)"),
    ({"ROCFLASH_BUILD": "none"}, (True, False), "ROCFLASH_BUILD=none"),
])
def test_no_kernels_says_why(env, torch_platform, why):
    plan = build.plan_build(env, torch_platform)
    assert plan.platforms == {} and plan.why_none == why
    assert plan.record("2.13.0+cpu") == {"platforms": {}, "why_none": why, "torch_at_build": "2.13.0+cpu"}


def test_plan_records_arch_names():
    plan = build.plan_build({"ROCFLASH_BUILD": "hip,cuda", "GPU_ARCHS": "gfx906:xnack-;gfx90a",
                             "TORCH_CUDA_ARCH_LIST": "9.0+PTX"}, CPU_TORCH)
    assert plan.platforms == {"hip": ["gfx906:xnack-", "gfx90a"], "cuda": [("9.0", True)]}
    assert plan.record(None)["platforms"] == {"hip": ["gfx906", "gfx90a"], "cuda": ["sm_90", "compute_90"]}  # +PTX: compute_90 too
    assert build.plan_build({}, (True, False)).platforms == {"hip": list(build.DEFAULT_AMD_ARCHS)}


def _setup_py(env_extra: dict) -> subprocess.CompletedProcess:
    if not (SOURCE / "setup.py").is_file():
        pytest.skip("no source tree next to tests/")
    env = {k: v for k, v in os.environ.items()
           if k not in ("ROCFLASH_BUILD", "GPU_ARCHS", "PYTORCH_ROCM_ARCH", "TORCH_CUDA_ARCH_LIST")}
    return subprocess.run([sys.executable, "setup.py", "--name"], cwd=SOURCE, env={**env, **env_extra},
                          capture_output=True, text=True, timeout=300)


def test_setup_py_rejects_invalid_arch():
    """What `GPU_ARCHS=gfx1234 pip install .` runs first: it exits non-zero with the accepted list."""
    proc = _setup_py({"GPU_ARCHS": "gfx1234"})
    assert proc.returncode != 0
    assert "GPU_ARCHS: unknown AMD arch 'gfx1234'; accepted: gfx906, gfx908, gfx90a, gfx942, gfx950" in proc.stderr


@pytest.mark.parametrize("env, message", [
    ({"ROCFLASH_CK": "2"}, "rocflash: ROCFLASH_CK must be one of auto, 0, 1, got '2' (unset = auto)"),
    ({"ROCFLASH_JOBS": "abc"}, "rocflash: ROCFLASH_JOBS must be a positive integer, got 'abc'"),
])
def test_setup_py_rejects_bad_compile_switch_in_one_line(env, message):
    """newuser9: a bad ROCFLASH_CK / ROCFLASH_JOBS in a build that compiles kernels stops setup.py at once with one
    'rocflash: ...' line, as a bad GPU_ARCHS does (ROCFLASH_CK was a Python traceback from the metadata step,
    ROCFLASH_JOBS one from the wheel build after the code generation)."""
    proc = _setup_py({"ROCFLASH_BUILD": "hip", "GPU_ARCHS": "gfx906", **env})
    assert proc.returncode != 0
    assert message in proc.stderr and "Traceback" not in proc.stderr, proc.stderr


@pytest.mark.skipif(bool(torch.version.hip or torch.version.cuda), reason="needs a CPU-only torch")
def test_setup_py_cpu_torch_says_no_kernels():
    proc = _setup_py({})
    assert proc.returncode == 0, proc.stderr
    assert "rocflash: building NO GPU kernels (the installed torch is a CPU-only build)" in proc.stderr


def test_installed_build_record_matches_modules():
    """The record pip installed (rocflash/_build_info.json) names exactly the modules that import."""
    record = build.load_build_info()
    if record is None:
        if require_builds():
            pytest.fail("ROCFLASH_REQUIRE_BUILDS is set, but the install has no build record")
        pytest.skip("rocflash imported from a source tree: no build record")
    for platform in ("hip", "cuda"):
        mod = load_module(platform)
        assert (platform in record["platforms"]) == (mod is not None), (platform, record)
        if mod is not None:
            assert record["platforms"][platform] == list(mod.compiled_archs())
    assert bool(record["platforms"]) != bool(record["why_none"])


# ------------------------------------------------------------------- where the user looks next
@pytest.fixture
def no_kernels(monkeypatch):
    """An install built without kernels: no module imports; the record says why."""
    for mod in (info_mod, selector):
        monkeypatch.setattr(mod, "load_module", lambda platform: None)
        monkeypatch.setattr(mod, "load_build_info", lambda: dict(NO_KERNELS))
    monkeypatch.setattr(selector, "compiled_archs", lambda platform: None)


def test_info_says_built_without_gpu_kernels(no_kernels, capsys):
    report = rocflash.info()
    out = capsys.readouterr().out
    assert report["build"] == NO_KERNELS
    line = "built without GPU kernels (the installed torch is a CPU-only build); only the torch and sim backends work"
    assert line in out and line in report["no_kernels"]
    assert "Rebuild: ROCFLASH_BUILD=hip GPU_ARCHS=gfx906" in out and "--no-build-isolation" in out


def test_first_gpu_call_error_says_built_without_kernels(no_kernels):
    mi50 = DeviceProbe("cuda", "hip", "gfx906", "AMD Instinct MI50", 64, 65536)
    with pytest.raises(UnsupportedDeviceError, match=r"rocflash was built without GPU kernels \(the installed torch "
                                                     r"is a CPU-only build\).*Rebuild: ROCFLASH_BUILD=hip GPU_ARCHS="):
        selector.select_backend(torch.device("cuda", 0), probe=mi50)


class FakeModule:
    def __init__(self, arch, compiled, n=1):
        self.arch, self.compiled, self.n = arch, compiled, n

    def device_count(self):
        return (self.n, "") if self.n else (-1, "hipErrorNoDevice")

    def device_info(self, i):
        return {"name": "AMD Instinct MI50", "arch": self.arch}

    def compiled_archs(self):
        return self.compiled


@pytest.fixture
def rocm_gpu(monkeypatch):
    """torch is a ROCm build that sees a GPU (never touched: the check reads the compiled module)."""
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.version, "hip", "6.2.41133")
    monkeypatch.setattr(selector, "_warned", False)


def test_import_check_no_kernels(rocm_gpu, no_kernels):
    reason = selector.missing_kernel_reason()
    assert reason.startswith("torch sees a GPU, but rocflash was built without GPU kernels (the installed torch is")
    assert "Rebuild: ROCFLASH_BUILD=hip" in reason


@pytest.mark.parametrize("arch,compiled,gap", [
    ("gfx906:sramecc+:xnack-", ["gfx906", "gfx90a"], False),
    ("gfx90a:sramecc+:xnack-", ["gfx906"], True),
])
def test_import_check_arch(rocm_gpu, monkeypatch, arch, compiled, gap):
    monkeypatch.setattr(selector, "load_module", lambda platform: FakeModule(arch, compiled))
    reason = selector.missing_kernel_reason()
    if gap:
        assert "is gfx90a, which this rocflash build did not compile (compiled: gfx906)" in reason
        assert "GPU_ARCHS" in reason
    else:
        assert reason is None


def test_import_warns_once(rocm_gpu, no_kernels):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        selector.warn_if_missing_kernels()
        selector.warn_if_missing_kernels()
    assert [w.category for w in caught] == [MissingKernelWarning]
    assert "built without GPU kernels" in str(caught[0].message)


def test_import_check_never_raises(rocm_gpu, monkeypatch):
    def broken(platform):
        raise OSError("runtime exploded")

    monkeypatch.setattr(selector, "load_module", broken)
    monkeypatch.delenv("ROCFLASH_DEBUG", raising=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        selector.warn_if_missing_kernels()


def test_import_is_silent_without_gpu():
    if torch.cuda.is_available():
        pytest.skip("a GPU is present")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    code = "import rocflash; rocflash.flash_attn_func"  # the first use of the torch API runs the check
    proc = subprocess.run([sys.executable, "-W", "always", "-c", code], capture_output=True, text=True, env=env,
                          timeout=300)
    assert proc.returncode == 0 and "MissingKernelWarning" not in proc.stderr, proc.stderr


def test_ci_setup_summary_matches_pips_indented_lines(tmp_path):
    """ci/setup.sh's build summary: pip -v indents the build's stderr; both notices are found."""
    script = SOURCE / "ci" / "setup.sh"
    if not script.is_file():
        pytest.skip("no source tree next to tests/")
    line = next(x for x in script.read_text().splitlines() if "rocflash: (built|building NO)" in x)
    log = tmp_path / "pip.log"
    log.write_text("  Running command Building wheel\n  rocflash: built rocflash._C_hip for gfx906, gfx90a in 99 s\n"
                   "  rocflash: built rocflash._C_cuda for sm_80, sm_90 in 88 s\n  other\n")
    out = subprocess.run(["bash", "-c", line.replace('"$log"', str(log))], capture_output=True, text=True).stdout
    assert out.splitlines() == ["rocflash: built rocflash._C_hip for gfx906, gfx90a in 99 s",
                                "rocflash: built rocflash._C_cuda for sm_80, sm_90 in 88 s"]
