"""The compiled kernels (hip or cuda build): values a query row cannot see never reach it, forward and backward,
on both load paths; and a backward with create_graph=True raises.

Marker ``gpu``. A clean run and a run with NaN / inf in masked K and V rows go through the same kernels; the
rows that cannot see the garbage must match the clean run bit for bit (a masked element is ANDed to +0 in
the boundary tiles' products, so it adds exactly what 0 * finite adds), and keys no row sees get the clean
run's gradients. Rows past seqlen_k hold NaN in memory (k, v are views of longer tensors) and are never read.
The backward runs with deterministic=True (bitwise comparisons throughout) and False (on the tensor-core backward
dQ is then added atomically, so dq of blind rows is compared within a few units of the last place instead; still
finite, and out, LSE, dK, dV bitwise).
"""

from __future__ import annotations

import pytest
import torch

import rocflash
from conftest import gpu_platform
from rocflash.backends.compiled import is_aligned
from test_masked_garbage import CASES, _blind_rows

pytestmark = pytest.mark.gpu

NAN, INF = float("nan"), float("inf")


def _inputs(sq, sk, h, hk, d, dtype, narrow, seed):
    """q, k, v, dout on the GPU; k and v are views of rows [0, sk) of tensors whose rows past sk are NaN.
    narrow=True offsets every tensor by one element: the kernels' element-wise (narrow) load path."""
    g = torch.Generator().manual_seed(seed)
    off = 1 if narrow else 0

    def make(rows, heads, extra_rows=0):
        t = torch.full((2 * (rows + extra_rows) * heads * d + off,), NAN, dtype=torch.float32)
        x = t[off:].view(2, rows + extra_rows, heads, d)
        x[:, :rows] = torch.randn(2, rows, heads, d, generator=g)
        return x.to("cuda", dtype)

    q, dout = make(sq, h), make(sq, h)
    kbig, vbig = make(sk, hk, extra_rows=7), make(sk, hk, extra_rows=7)
    if narrow:  # .to() copied contiguously: re-offset on the device
        q, dout, kbig, vbig = (_offset(x) for x in (q, dout, kbig, vbig))
    return q, kbig[:, :sk], vbig[:, :sk], dout


def _offset(x):
    buf = torch.empty(x.numel() + 1, dtype=x.dtype, device=x.device)
    y = buf[1:].view(x.shape)
    y.copy_(x)
    return y


def _run(platform, q, k, v, dout, causal, window, deterministic=True):
    q, k, v = (t.detach().requires_grad_() for t in (q, k, v))
    out, lse, _ = rocflash.flash_attn_func(q, k, v, causal=causal, window_size=window, return_attn_probs=True,
                                           backend=platform, deterministic=deterministic)
    dq, dk, dv = torch.autograd.grad(out, (q, k, v), dout)
    torch.cuda.synchronize()
    return out.detach(), lse, dq, dk, dv


@pytest.mark.parametrize("value,what", [(NAN, "k"), (NAN, "v"), (INF, "k"), (-INF, "v"), (NAN, "kv")])
@pytest.mark.parametrize("narrow", [False, True], ids=["aligned", "narrow"])
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32], ids=["fp16", "bf16", "fp32"])
@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("deterministic", [True, False], ids=["deterministic", "atomic_dq"])
def test_unseen_garbage_changes_nothing(case, dtype, narrow, value, what, deterministic):
    platform = gpu_platform()
    sq, sk, h, hk, causal, window, keys = CASES[case]
    d = 64
    q, k, v, dout = _inputs(sq, sk, h, hk, d, dtype, narrow, seed=len(case))
    assert is_aligned(q, k, v) != narrow
    clean = _run(platform, q, k, v, dout, causal, window, deterministic)
    # NaN rows past seqlen_k in memory are never read
    assert all(torch.isfinite(x[x != float("-inf")]).all() for x in clean), "clean run not finite"
    kg, vg = k.clone(), v.clone()  # contiguous copies keep the load path: re-offset for narrow
    if narrow:
        kg, vg = _offset(kg), _offset(vg)
    for j in keys:
        if "k" in what:
            kg[:, j, :, 1::3] = value
        if "v" in what:
            vg[:, j, :, ::2] = value
    dirty = _run(platform, q, kg, vg, dout, causal, window, deterministic)
    blind, unseen = _blind_rows(sq, sk, causal, window, keys)
    blind = blind.cuda()
    what_ = f"{platform} {case} {dtype} {'narrow' if narrow else 'aligned'} {value} in {what}"
    for name, a, b in (("out", dirty[0][:, blind], clean[0][:, blind]), ("lse", dirty[1][:, :, blind], clean[1][:, :, blind]),
                       ("dq", dirty[2][:, blind], clean[2][:, blind])):
        # fully masked rows (causal with seqlen_q > seqlen_k) have LSE -inf, in both runs: only NaN/+inf is garbage
        assert torch.isfinite(a[a != float("-inf")] if name == "lse" else a).all(), \
            f"{what_}: garbage reached {name} of a row that cannot see it"
        if name == "dq" and not deterministic:  # atomic adds: the order of the float32 additions varies
            err = (a.float() - b.float()).abs().max().item() if a.numel() else 0.0
            bound = 4 * torch.finfo(dtype).eps * (b.float().abs().max().item() if b.numel() else 0.0)
            assert err <= bound, f"{what_}: dq of blind rows differs from the clean run by {err:.3g} > {bound:.3g}"
        else:
            assert torch.equal(a, b), f"{what_}: {name} of blind rows differs from the clean run"
    if unseen:
        for name, a, b in (("dk", dirty[3], clean[3]), ("dv", dirty[4], clean[4])):
            assert torch.isfinite(a).all() and torch.equal(a, b), f"{what_}: {name} differs from the clean run"
    elif value != value:
        assert not torch.isfinite(dirty[0][:, ~blind]).all(), f"{what_}: visible NaN did not propagate"


@pytest.mark.parametrize("narrow", [False, True], ids=["aligned", "narrow"])
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=["fp16", "bf16"])
def test_unseen_garbage_dq_tile_switch(monkeypatch, narrow, dtype):
    """The same rule for the atomic-dQ kernel's opt-in dQ warp tile of 32 query rows (ROCFLASH_BWD_DQ_TILE=1; it runs
    in sm_90a builds only, elsewhere this repeats the default kernel): every case, NaN in K and V rows (the K guard
    before the dQ product, the K reload), both load paths."""
    monkeypatch.setenv("ROCFLASH_BWD_DQ_TILE", "1")
    for case in CASES:
        test_unseen_garbage_changes_nothing(case, dtype, narrow, NAN, "kv", False)


@pytest.mark.parametrize("switch", ["2", "3", "0"])
@pytest.mark.parametrize("narrow", [False, True], ids=["aligned", "narrow"])
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=["fp16", "bf16"])
def test_unseen_garbage_lean_switch(monkeypatch, switch, narrow, dtype):
    """The same rule for each atomic-dQ kernel (ROCFLASH_BWD_LEAN=2 / 3: the lean variants, the default picks one
    of them, on the 128-bit path; =0: the kernel before them; the narrow path always runs that one): every case,
    NaN in K and V rows (the K guard, and the K reload, which in the lean kernels precedes the next tile's S^T)."""
    monkeypatch.setenv("ROCFLASH_BWD_LEAN", switch)
    for case in CASES:
        test_unseen_garbage_changes_nothing(case, dtype, narrow, NAN, "kv", False)


def test_issue_example_v90():
    platform = gpu_platform()
    g = torch.Generator().manual_seed(8)
    q, k, v = (torch.randn(1, 100, 2, 64, generator=g).half().cuda() for _ in range(3))
    clean = rocflash.flash_attn_func(q, k, v, causal=True, backend=platform)
    v[0, 90] = NAN
    out = rocflash.flash_attn_func(q, k, v, causal=True, backend=platform)
    assert torch.equal(out[:, :90], clean[:, :90]) and torch.isnan(out[:, 90:]).all()


@pytest.mark.parametrize("loss", ["sum", "square"])
def test_second_derivative_raises(loss):
    platform = gpu_platform()
    q, k, v = (torch.randn(1, 40, 2, 32, device="cuda", dtype=torch.float16, requires_grad=True) for _ in range(3))
    out = rocflash.flash_attn_func(q, k, v, causal=True, backend=platform)
    total = out.float().sum() if loss == "sum" else (out.float() ** 2).sum()
    with pytest.raises(RuntimeError, match=f"backend '{platform}' does not support second derivatives"):
        torch.autograd.grad(total, (q, k, v), create_graph=True)
