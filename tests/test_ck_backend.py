"""The ck backend's selection and refusals, on fake devices (no GPU, no CK build needed): the probe picks ck on a
CDNA arch only when the CK module is built for it, rocflash's dot2 kernel (hip) stays the fallback and the
default elsewhere, and every argument the CK instances cannot honour raises NotImplementedError naming it."""

from __future__ import annotations

import types

import pytest
import torch

import rocflash
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
    (dict(args=FwdArgs(0.125, -1, 0, 0.0, torch.ones(4)), headdim=256), "alibi_slopes"),  # alibi: up to d128
    (dict(args=FwdArgs(0.125, -1, 0, 2.0, torch.ones(4))), "softcap"),  # CK's ALiBi pipeline has no soft-cap
    (dict(dtype=torch.float32), "q.dtype"),
    (dict(headdim=320), "headdim"),
    (dict(dtype=torch.bfloat16, args=FwdArgs(0.125, -1, 0, 30.0, None)), "softcap"),  # no bf16 softcap instance
])
def test_unsupported_arguments_raise_naming_them(change, name):
    q = torch.zeros(1, 4, 2, change.get("headdim", 64), dtype=change.get("dtype", torch.float16))
    err = ck.unsupported(q, q, change.get("args", ARGS), "gfx942", dropout_p=change.get("dropout_p", 0.0))
    assert isinstance(err, NotImplementedError) and name in str(err), err


@pytest.mark.parametrize("change,name", [
    (dict(args=FwdArgs(0.125, -1, 0, 30.0, None)), "softcap"),  # CK's backward has no soft-cap
    (dict(headdim=200, deterministic=True), "deterministic"),  # deterministic backward: up to the d128 bucket
    (dict(args=FwdArgs(0.125, -1, 0, 0.0, torch.ones(2)), deterministic=True), "deterministic"),  # no alibi one
    (dict(args=FwdArgs(-0.125, -1, 0, 0.0, None)), "softmax_scale"),
    (dict(dtype=torch.bfloat16, group=True), "q.dtype='torch.bfloat16'"),  # varlen training: fp16 only (adv11)
])
def test_backward_needs_are_checked_before_the_forward(change, name):
    q = torch.zeros(1, 4, 2, change.get("headdim", 128), dtype=change.get("dtype", torch.float16))
    args, det, group = change.get("args", ARGS), change.get("deterministic", False), change.get("group", False)
    if group:
        q = q[0]
    err = ck.unsupported(q, q, args, "gfx942", needs_grad=True, deterministic=det, group=group)
    assert isinstance(err, NotImplementedError) and name in str(err), err
    if name != "softmax_scale":  # inference (no gradient) runs the forward on CK
        assert ck.unsupported(q, q, args, "gfx942", needs_grad=False, deterministic=det, group=group) is None


def test_backward_instances_cover_the_buckets():
    for dtype in ("fp16", "bf16"):
        for headdim in (1, 32, 64, 80, 128, 256):
            inst = find_instance(dtype, headdim, "batch", "gfx942", kind="bwd")
            assert inst is not None and inst.kind == "bwd" and inst.hdim >= headdim, (dtype, headdim)
        assert find_instance(dtype, 128, "deterministic", "gfx90a", kind="bwd").deterministic
    assert find_instance("fp16", 257, "batch", "gfx942", kind="bwd") is None
    q = torch.zeros(1, 4, 2, 96, dtype=torch.bfloat16)
    assert ck.unsupported(q, q, ARGS, "gfx942", needs_grad=True, deterministic=True) is None


def test_every_backward_instance_has_its_training_forward():
    """A training call runs the batch_o32 forward (O in float32 for the backward's D) and then the backward: every
    (dtype, bucket, arch) of a backward instance has one, and unsupported() requires both."""
    from rocflash.ck.configs import load_ck_instances
    for inst in (i for i in load_ck_instances() if i.kind == "bwd"):
        for arch in inst.archs:
            train = {"group": "group_o32", "alibi": "alibi_o32"}.get(inst.variant.split("_")[0], ck.TRAIN_VARIANT)
            fwd = find_instance(inst.dtype, inst.hdim, train, arch)
            assert fwd is not None and fwd.o_fp32 and fwd.hdim == inst.hdim, (inst.name, arch)
            assert fwd.group_mode == inst.group_mode and fwd.alibi == inst.alibi, (inst.name, arch)
    q = torch.zeros(1, 4, 2, 32, dtype=torch.float16)
    assert find_instance("fp16", 32, ck.TRAIN_VARIANT, "gfx942").hdim == 64  # d32 trains on the d64 pair
    assert ck.unsupported(q, q, ARGS, "gfx942", needs_grad=True) is None
    q = torch.zeros(1, 4, 2, 257, dtype=torch.bfloat16)
    err = ck.unsupported(q, q, ARGS, "gfx942", needs_grad=True)
    assert isinstance(err, NotImplementedError) and "headdim" in str(err)


@pytest.mark.parametrize("headdim", [32, 64, 128])
def test_alibi_calls_have_forward_and_backward_instances(headdim):
    """ALiBi (the fp16 alibi / alibi_o32 / bwd alibi instances, d128 bucket: headdim <= 128 padded) is served for
    inference and training; its variants are the ones the backend launches. bf16 ALiBi has no instance: named."""
    q = torch.zeros(1, 4, 2, headdim, dtype=torch.float16)
    args = FwdArgs(0.125, -1, 0, 0.0, torch.ones(2))
    assert ck.unsupported(q, q, args, "gfx942", needs_grad=True) is None
    assert ck.variant(args) == "alibi" and ck.variant(args, True) == "alibi_o32"
    assert ck.bwd_variant(False, alibi=True) == "alibi"
    for kind, v in (("fwd", "alibi"), ("fwd", "alibi_o32"), ("bwd", "alibi")):
        inst = find_instance("fp16", headdim, v, "gfx90a", kind=kind)
        assert inst is not None and inst.alibi and inst.hdim == 128, (kind, v)
    err = ck.unsupported(q.bfloat16(), q.bfloat16(), args, "gfx942")
    assert isinstance(err, NotImplementedError) and "alibi_slopes" in str(err)


def test_backend_string_carries_arch_and_determinism():
    assert ck.decode(ck.encode("gfx942", False)) == ("gfx942", False)
    assert ck.decode(ck.encode("gfx90a", True)) == ("gfx90a", True)


def test_gqa_gradients_sum_each_group_of_query_heads():
    g = torch.arange(2 * 3 * 6 * 4, dtype=torch.float16).view(2, 3, 6, 4)
    out = ck.reduce_gqa(g, 2)  # heads 0-2 -> key head 0, 3-5 -> key head 1 (CK's h / nhead_ratio_qk)
    assert out.shape == (2, 3, 2, 4)
    torch.testing.assert_close(out[:, :, 1].float(), g[:, :, 3:].float().sum(2))
    assert ck.reduce_gqa(g, 6) is g


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
        assert inst.name.startswith(f"rocflash_ck_{inst.kind}_{inst.dtype}_d{inst.hdim}_b{inst.tile[0]}x")
        assert inst.name.endswith(f"_{inst.pipeline}_{inst.variant}")


def test_kvcache_never_reaches_ck(monkeypatch):
    """CK's split-KV / paged-KV kernels are not mapped: a probe choosing ck runs flash_attn_with_kvcache (no
    ck_call) on rocflash's hip kernels; backend='ck' asked for raises NotImplementedError naming the way out,
    before launch. (Varlen calls with packed K/V go to CK's group mode: tests/test_ck_varlen.py.)"""
    import rocflash.varlen as varlen
    monkeypatch.setattr(varlen, "select_backend", lambda device, backend: Selection("ck", "test", backend is None))
    monkeypatch.setattr(varlen, "backend_functions", lambda name: None)
    q = torch.zeros(4, 2, 8, dtype=torch.float16)
    assert varlen.select_varlen_backend(q, None) == "hip"
    with pytest.raises(NotImplementedError, match="backend 'ck' has no KV-cache / paged-KV path .* backend='hip'"):
        varlen.select_varlen_backend(q, "ck")


@pytest.mark.parametrize("flag", [False, True])
def test_deterministic_algorithms_take_the_deterministic_backward(monkeypatch, flag):
    """Under torch.use_deterministic_algorithms(True) a ck selection asks CK for its deterministic backward (no
    atomic dQ), as the cuda backend does; deterministic=False otherwise keeps flash-attn's atomic default."""
    import types
    import rocflash.interface as interface
    seen = {}

    def resolve(sel, q, k, args, **kw):
        seen.update(kw)
        raise RuntimeError("stop before launch")

    monkeypatch.setattr(interface, "_backend_name", lambda device, backend: "ck")
    monkeypatch.setattr(interface, "select_backend", lambda device, backend: types.SimpleNamespace(backend="ck"))
    monkeypatch.setattr(interface.ck, "resolve", resolve)
    q = torch.zeros(1, 4, 2, 64, dtype=torch.float16)
    was = torch.are_deterministic_algorithms_enabled()
    torch.use_deterministic_algorithms(flag)
    try:
        with pytest.raises(RuntimeError, match="stop before launch"):
            rocflash.flash_attn_func(q, q, q, deterministic=False)
    finally:
        torch.use_deterministic_algorithms(was)
    assert seen["deterministic"] is flag


def _spy(monkeypatch, module, name):
    """Calls of module.name (still run), as a list of their arguments."""
    calls, real = [], getattr(module, name)

    def spy(*a, **kw):
        calls.append(a)
        return real(*a, **kw)
    monkeypatch.setattr(module, name, spy)
    return calls


@pytest.mark.parametrize("backend", [None, "ck"])
def test_a_ck_call_selects_once(hip_built, monkeypatch, backend):
    """One backend selection per flash_attn_func / flash_attn_varlen_func call on ck (probe-chosen or asked for):
    select_backend, ck_unavailable and the device probe run once each; ck.resolve takes the selection and its probed
    arch. Before: flash_attn_func selected in _backend_name and again for ck.resolve, which probed the device once
    more, and a probe-chosen ck asked ck_unavailable twice per selection; flash_attn_varlen_func selected in
    _checks_on_device and again in select_varlen_backend."""
    import rocflash.interface as interface
    import rocflash.varlen as varlen
    from rocflash.backends import ck_varlen

    _fake_ck(monkeypatch, ["gfx942"])
    monkeypatch.setattr(selector, "probe_device", lambda device: MI300X)
    monkeypatch.setenv("ROCFLASH_INDEX_CHECKS", "host")  # the varlen index checks on the host (no check kernel)
    launched = []

    def fake_forward(q, k, v, args, arch, **kw):  # CK's launch, stubbed: the arch it got, zeros of the right shapes
        launched.append(arch)
        return torch.zeros_like(q), torch.zeros(q.shape[0], q.shape[2], q.shape[1]), None
    monkeypatch.setattr(ck, "forward", fake_forward)
    probes, unavailable = _spy(monkeypatch, selector, "probe_device"), _spy(monkeypatch, selector, "ck_unavailable")
    selects = _spy(monkeypatch, interface, "select_backend")
    q = torch.zeros(1, 4, 2, 64, dtype=torch.float16)
    for _ in range(2):
        rocflash.flash_attn_func(q, q, q, backend=backend)
    assert launched == ["gfx942", "gfx942"]
    assert (len(selects), len(probes), len(unavailable)) == (2, 2, 2)

    varlen_launched = []
    monkeypatch.setattr(ck_varlen, "varlen_forward", lambda arch, det, q, *a, **kw: varlen_launched.append(arch) or
                        (torch.zeros_like(q), torch.zeros(q.shape[1], q.shape[0])))
    vselects = _spy(monkeypatch, varlen, "select_backend")
    del probes[:], unavailable[:]
    cu = torch.tensor([0, 4], dtype=torch.int32)
    rocflash.flash_attn_varlen_func(q[0], q[0], q[0], cu, cu, 4, 4, backend=backend)
    assert varlen_launched == ["gfx942"]
    assert (len(vselects), len(probes), len(unavailable)) == (1, 1, 1)
