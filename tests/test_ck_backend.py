"""The ck backend's selection and refusals, on fake devices (no GPU, no CK build needed): the probe picks ck on a
CDNA arch only when the CK module is built for it, rocflash's dot2 kernel (hip) stays the fallback and the
default elsewhere, and every argument the CK instances cannot honour raises NotImplementedError naming it."""

from __future__ import annotations

import types

import pytest
import torch

from rocflash import selector
from rocflash.backends import FwdArgs
from rocflash.backends import ck
from rocflash.ck.configs import find_instance, load_ck_instances
from rocflash.selector import DeviceProbe, Selection, UnsupportedDeviceError

MI300X = DeviceProbe("cuda", "hip", "gfx942", "AMD Instinct MI300X", 64, 65536)
MI50 = DeviceProbe("cuda", "hip", "gfx906", "AMD Instinct MI50", 64, 65536)
GPU = torch.device("cuda", 0)


@pytest.fixture
def hip_built(monkeypatch):
    monkeypatch.setattr(selector, "compiled_archs", lambda platform: ["gfx906", "gfx90a", "gfx942"])
    monkeypatch.delenv("ROCFLASH_BACKEND", raising=False)


def _fake_ck(monkeypatch, archs):
    mod = types.SimpleNamespace(compiled_archs=lambda: archs, instances=lambda: [i.name for i in load_ck_instances()])
    monkeypatch.setattr(ck, "_import", lambda: (mod, None))


def test_probe_picks_ck_on_cdna_when_built(hip_built, monkeypatch):
    _fake_ck(monkeypatch, ["gfx942"])
    sel = selector.select_backend(GPU, probe=MI300X)
    assert sel.backend == "ck" and sel.probed and "MFMA" in sel.reason


def test_probe_keeps_hip_without_ck_build_and_says_why(hip_built, monkeypatch):
    monkeypatch.setattr(ck, "_import", lambda: (None, "rocflash._C_ck not importable: test"))
    sel = selector.select_backend(GPU, probe=MI300X)
    assert sel.backend == "hip" and "CK not used" in sel.reason and "not built" in sel.reason


def test_gfx906_stays_on_the_dot2_kernel(hip_built, monkeypatch):
    _fake_ck(monkeypatch, ["gfx942"])
    assert selector.select_backend(GPU, probe=MI50).backend == "hip"
    with pytest.raises(UnsupportedDeviceError, match="gfx906"):
        selector.select_backend(GPU, "ck", probe=MI50)


def test_explicit_ck_needs_a_build_for_the_arch(hip_built, monkeypatch):
    _fake_ck(monkeypatch, ["gfx90a"])
    with pytest.raises(UnsupportedDeviceError, match="built for gfx90a, not gfx942"):
        selector.select_backend(GPU, "ck", probe=MI300X)
    with pytest.raises(UnsupportedDeviceError, match="ROCm"):
        selector.select_backend(torch.device("cpu"), "ck")


ARGS = FwdArgs(0.125, -1, 0, 0.0, None)


@pytest.mark.parametrize("change,name", [
    (dict(dropout_p=0.1), "dropout_p"),
    (dict(args=FwdArgs(0.125, -1, 0, 0.0, torch.ones(4))), "alibi_slopes"),
    (dict(dtype=torch.float32), "q.dtype"),
    (dict(headdim=320), "headdim"),
    (dict(dtype=torch.bfloat16, args=FwdArgs(0.125, -1, 0, 30.0, None)), "softcap"),  # no bf16 softcap instance
])
def test_unsupported_arguments_raise_naming_them(change, name):
    q = torch.zeros(1, 4, 2, change.get("headdim", 64), dtype=change.get("dtype", torch.float16))
    err = ck.unsupported(q, q, change.get("args", ARGS), "gfx942", dropout_p=change.get("dropout_p", 0.0))
    assert isinstance(err, NotImplementedError) and name in str(err), err


def test_covered_calls_have_an_instance():
    q = torch.zeros(1, 4, 2, 80, dtype=torch.float16)
    assert ck.unsupported(q, q, ARGS, "gfx942") is None
    assert find_instance("fp16", 80, "batch", "gfx942").hdim == 128  # the smallest bucket that holds it
    assert find_instance("fp16", 32, "batch", "gfx950").hdim == 32


def test_resolve_explicit_raises_probed_falls_back(monkeypatch):
    monkeypatch.setattr(selector, "probe_device", lambda device: MI300X)
    monkeypatch.setattr(selector, "check_compiled_backend", lambda platform, device: None)
    q = torch.zeros(1, 4, 2, 64, dtype=torch.float32)
    with pytest.raises(NotImplementedError, match="q.dtype"):
        ck.resolve(Selection("ck", "backend= argument"), q, q, ARGS)
    sel, arch = ck.resolve(Selection("ck", "probe", True), q, q, ARGS)
    assert sel.backend == "hip" and arch is None and "q.dtype" in sel.reason


def test_instance_names_are_self_describing():
    for inst in load_ck_instances():
        assert inst.name.startswith(f"rocflash_ck_{inst.kind}_{inst.dtype}_d{inst.hdim}_b")
        assert inst.name.endswith(f"_{inst.pipeline}_{inst.variant}")
