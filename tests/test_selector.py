"""Backend selection with faked device properties: argument > ROCFLASH_BACKEND > probe, arch gating (C12)."""

from __future__ import annotations

import pytest
import torch

from rocflash import selector
from rocflash.selector import DeviceProbe, UnsupportedDeviceError, arch_compatible, select_backend

GPU = torch.device("cuda", 0)  # never touched: every test passes a probe
MI50 = DeviceProbe("cuda", "hip", "gfx906", "AMD Instinct MI50", 64, 65536)
NAVI = DeviceProbe("cuda", "hip", "gfx1100", "Radeon RX 7900 XTX", 32, 65536)
H200 = DeviceProbe("cuda", "cuda", "sm_90", "NVIDIA H200", 32, 232448)
A10 = DeviceProbe("cuda", "cuda", "sm_86", "NVIDIA A10", 32, 101376)


@pytest.fixture
def built(monkeypatch):
    """Pretend the hip module was built for gfx906;gfx90a and the cuda module for sm_80;sm_90."""
    archs = {"hip": ["gfx906", "gfx90a"], "cuda": ["sm_80", "sm_90"]}
    monkeypatch.setattr(selector, "compiled_archs", lambda platform: archs[platform])
    monkeypatch.delenv("ROCFLASH_BACKEND", raising=False)
    return archs


def test_probe_picks_platform(built):
    assert select_backend(GPU, probe=MI50).backend == "hip"
    assert select_backend(GPU, probe=H200).backend == "cuda"
    cpu = select_backend(torch.device("cpu"))
    assert cpu.backend == "torch" and "cpu" in cpu.reason


def test_reason_names_device_and_runtime(built):
    sel = select_backend(GPU, probe=MI50)
    assert "gfx906" in sel.reason and "ROCm" in sel.reason


def test_argument_beats_environment_beats_probe(built, monkeypatch):
    monkeypatch.setenv("ROCFLASH_BACKEND", "sim")
    sel = select_backend(GPU, probe=MI50)
    assert (sel.backend, sel.reason) == ("sim", "ROCFLASH_BACKEND=sim")
    sel = select_backend(GPU, backend="torch", probe=MI50)
    assert (sel.backend, sel.reason) == ("torch", "backend= argument")


def test_unknown_names(built, monkeypatch):
    with pytest.raises(ValueError, match=r"backend must be one of .*got 'rocm'"):
        select_backend(GPU, backend="rocm", probe=MI50)
    monkeypatch.setenv("ROCFLASH_BACKEND", "HIP")
    with pytest.raises(ValueError, match=r"ROCFLASH_BACKEND must be one of .*got 'HIP'"):
        select_backend(GPU, probe=MI50)


def test_arch_not_compiled_names_arch_and_list(built):  # C12
    with pytest.raises(UnsupportedDeviceError, match=r"device Radeon RX 7900 XTX is gfx1100, which this build did not "
                                                     r"compile \(compiled: gfx906, gfx90a\); rebuild with GPU_ARCHS"):
        select_backend(GPU, probe=NAVI)


def test_module_not_built(monkeypatch):
    monkeypatch.setattr(selector, "compiled_archs", lambda platform: None)
    monkeypatch.setattr(selector, "module_error", lambda platform: "rocflash._C_hip not importable: no module")
    with pytest.raises(UnsupportedDeviceError, match=r"backend 'hip': .*(not built|built without).*Rebuild: ROCFLASH_BUILD=hip GPU_ARCHS=gfx906 pip install"):
        select_backend(GPU, probe=MI50)


def test_wrong_platform(built):
    with pytest.raises(UnsupportedDeviceError, match=r"backend 'hip' cannot run on NVIDIA H200 \(sm_90\).*use backend='cuda'"):
        select_backend(GPU, backend="hip", probe=H200)


def test_cpu_tensors_with_compiled_backend(built):
    with pytest.raises(UnsupportedDeviceError, match=r"backend 'cuda' runs on GPU tensors; the tensors are on cpu") as e:
        select_backend(torch.device("cpu"), backend="cuda")
    assert "ROCFLASH_BACKEND" not in str(e.value)  # the argument chose it: the message names no variable


@pytest.mark.parametrize("backend", ["cuda", "hip"])
def test_environment_choice_named_in_device_error(built, monkeypatch, backend):
    """A compiled backend chosen by ROCFLASH_BACKEND (no backend= argument) that cannot run: the error says where
    the choice came from (dec14 new-user pass: it read as if the caller had passed backend=)."""
    monkeypatch.setenv("ROCFLASH_BACKEND", backend)
    with pytest.raises(UnsupportedDeviceError, match=rf"backend '{backend}' runs on GPU tensors; the tensors are on "
                       rf"cpu.*chosen by ROCFLASH_BACKEND={backend}: unset it, or pass backend="):
        select_backend(torch.device("cpu"))


@pytest.mark.parametrize("platform,device,compiled,ok", [
    ("hip", "gfx906", ["gfx906"], True),
    ("hip", "gfx908", ["gfx906", "gfx90a"], False),
    ("cuda", "sm_86", ["sm_80"], True),     # sm_80 machine code runs on sm_86
    ("cuda", "sm_90", ["sm_80"], False),    # not across majors
    ("cuda", "sm_80", ["sm_86"], False),    # not downwards
    ("cuda", "sm_90", ["sm_90a"], True),
    ("cuda", "sm_100", ["sm_90a"], False),  # arch-specific code only on its own arch
    ("cuda", "sm_120", ["sm_100"], False),  # 12.0 is another major than 10.0
    ("cuda", "sm_103", ["sm_100"], True),
    ("cuda", "sm_90", ["sm_80", "compute_80"], True),   # +PTX: the driver JIT-compiles compute_80 for sm_90
    ("cuda", "sm_120", ["compute_90"], True),
    ("cuda", "sm_75", ["sm_80", "compute_80"], False),  # PTX not downwards
    ("cuda", "sm_100", ["sm_90a", "compute_90a"], False),  # arch-specific PTX only on its own arch
    ("cuda", "sm_90", ["compute_90a"], True),
])
def test_arch_compatible(platform, device, compiled, ok):
    assert arch_compatible(platform, device, compiled) is ok


@pytest.mark.parametrize("device,compiled,code", [
    ("sm_90", ["sm_80", "compute_80", "sm_90a"], "sm_90a"),  # a cubin before any PTX
    ("sm_86", ["sm_80", "sm_86"], "sm_86"),                  # the highest cubin that runs
    ("sm_90", ["compute_80", "compute_86"], "compute_86"),   # the highest PTX that runs
    ("sm_90", ["sm_80", "compute_80"], "compute_80"),        # the sm_80 cubin cannot run on sm_90
    ("sm_90", ["sm_80"], None),
])
def test_running_code(device, compiled, code):
    from rocflash.selector import running_code

    assert running_code("cuda", device, compiled) == code
    assert running_code("hip", "gfx906", ["gfx906", "gfx90a"]) == "gfx906"
    assert running_code("hip", "gfx908", ["gfx906"]) is None


def test_cuda_minor_upgrade_selected(built):
    assert select_backend(GPU, probe=A10).backend == "cuda"


def test_device_given_as_string(built):
    assert select_backend("cpu").backend == "torch"


@pytest.mark.skipif(torch.cuda.is_available(), reason="needs a torch without GPU support")
def test_gpu_device_without_gpu_torch():
    with pytest.raises(UnsupportedDeviceError, match=r"needs a ROCm or CUDA build of torch that sees a GPU"):
        select_backend(torch.device("cuda", 0))
