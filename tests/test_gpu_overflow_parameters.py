"""adv16's last defects of issue 8 (fixed by eco14) through the compiled kernels: marker ``gpu``; the checks of
tests/test_overflow_parameters.py (which runs them on sim and torch) on the cuda/hip backend, each under
ROCFLASH_KERNEL=auto (fp16/bf16 decode: the tensor-core split-KV kernel and its fused combine on sm_80+) and vector.

(A) fp32 q.k past FLT_MAX at softmax_scale 1e-37: the dense forward kernel's score float32(raw_fp64 * scale_log2)
    (VectorTileMath::qk_fp64) and the vector split-KV kernel's fp64 lane sums; the old kernels rounded q.k to -inf
    first and gave out [1, 0] where fp64 is [0.51, 0.49].
(B) ALiBi far rows (seqlen_q > seqlen_k, no causal, slope 1e38) through the split-KV kernels: the anchor split; the
    full distance overflowed to -inf and made the row NaN.
(C) the split combine at |LSE| ~ 1e19 (every score equal): the partial statistics (m_s, l_s); one float32 LSE_s per
    split weighed the splits equally (errors ~0.35-1.9 with 2-7 splits).
Outputs start as NaN (conftest), so an unwritten element fails.
"""
from __future__ import annotations

import pytest
import torch

import rocflash
from conftest import gpu_platform
from rocflash.backends import FwdArgs, compiled
from rocflash.backends.reference import attention_reference

pytestmark = pytest.mark.gpu

KERNELS = ["auto", "vector"]
DEV = "cuda"  # ROCm torch names AMD GPUs "cuda" too


@pytest.fixture(params=KERNELS)
def kernel(request, monkeypatch):
    monkeypatch.setenv(compiled.KERNEL_ENV, request.param)
    return request.param


def _ref(q, k, v, args):
    return attention_reference(q.double().cpu(), k.double().cpu(), v.double().cpu(), args, torch.float64)


@pytest.mark.parametrize("path", ["dense", "dense-grad", "split1", "split2"])
def test_fp32_sum_past_float32_small_scale(kernel, path):
    q = torch.ones(1, 1, 1, 4)
    k = torch.zeros(1, 2, 1, 4)
    k[0, 0], k[0, 1] = -8.5e37, -8.51e37  # q.k = -3.400e38 (a float32) and -3.404e38 (past it)
    v = torch.eye(4)[:2].view(1, 2, 1, 4)
    ref, _ = _ref(q, k, v, FwdArgs(1e-37, -1, -1, 0.0, None))
    q, k, v = q.to(DEV), k.to(DEV), v.to(DEV)
    if path.startswith("dense"):
        out = rocflash.flash_attn_func(q.requires_grad_(path == "dense-grad"), k, v, softmax_scale=1e-37,
                                       backend=gpu_platform()).detach()
    else:
        out = rocflash.flash_attn_with_kvcache(q, k, v, cache_seqlens=2, softmax_scale=1e-37,
                                               num_splits=int(path[-1]), backend=gpu_platform())
    err = (out.double().cpu() - ref).abs().max().item()
    assert err <= 1e-3, f"{kernel} {path}: out {out.flatten().tolist()[:2]} vs fp64 {ref.flatten().tolist()[:2]}"


@pytest.mark.parametrize("num_splits", [1, 3])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16], ids=["fp32", "fp16", "bf16"])
def test_alibi_far_rows_split_kv(kernel, dtype, num_splits):
    """seqlen_q 6 > seqlen_k 2 (GQA 2:1), slope 1e38, headdim 64: rows 0-3 are far from both keys (exact LSE down to
    -4e38: -inf in float32 on rows 0-1, finite on rows 2-3), every O finite."""
    g = torch.Generator().manual_seed(0)
    d = 64
    q, k, v = (torch.randn(1, s, n, d, generator=g).to(dtype) for s, n in ((6, 2), (2, 1), (2, 1)))
    slopes = torch.full((2,), 1e38, dtype=torch.float32)
    ref, ref_lse = _ref(q, k, v, FwdArgs(d ** -0.5, -1, -1, 0.0, slopes))
    out, lse = rocflash.flash_attn_with_kvcache(q.to(DEV), k.to(DEV), v.to(DEV), cache_seqlens=2,
                                                alibi_slopes=slopes.to(DEV), num_splits=num_splits,
                                                return_softmax_lse=True, backend=gpu_platform())
    out, lse = out.double().cpu(), lse.double().cpu()
    assert not out.isnan().any() and not lse.isnan().any(), f"NaN rows {out.isnan().any(-1).any(-1)[0].tolist()}"
    tol = 1e-5 if dtype == torch.float32 else 1e-2
    assert (out - ref).abs().max().item() <= tol
    assert torch.equal(torch.isneginf(lse), torch.isneginf(ref_lse.float().double()))
    fin = torch.isfinite(ref_lse)
    ltol = 1e-5 if dtype == torch.float32 else 2e-3
    assert ((lse - ref_lse)[fin].abs() <= ltol * ref_lse[fin].abs().clamp(min=1)).all()


@pytest.mark.parametrize("num_splits", [2, 3, 7])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16], ids=["fp32", "fp16"])
def test_split_combine_large_lse(kernel, dtype, num_splits):
    """Causal 9 x 130 (fp32: q.k = -1e20, headdim 16; fp16: q.k = -6e4 at softmax_scale 1e15, headdim 64): every
    visible score equal, ~ -1e19 to -6e19, so each row's O is the mean of the V rows it sees."""
    g = torch.Generator().manual_seed(5)
    d, big, scale = (16, -1e20, 16 ** -0.5) if dtype == torch.float32 else (64, -6e4, 1e15)
    q = torch.zeros(1, 9, 2, d)
    q[..., 0] = 1.0
    k = torch.zeros(1, 130, 1, d)
    k[..., 0] = big
    v = torch.randn(1, 130, 1, d, generator=g)
    q, k, v = q.to(dtype), k.to(dtype), v.to(dtype)
    ref, ref_lse = _ref(q, k, v, FwdArgs(scale, -1, 0, 0.0, None))
    out, lse = rocflash.flash_attn_with_kvcache(q.to(DEV), k.to(DEV), v.to(DEV), cache_seqlens=130, causal=True,
                                                softmax_scale=scale, num_splits=num_splits, return_softmax_lse=True,
                                                backend=gpu_platform())
    err = (out.double().cpu() - ref).abs().max().item()
    tol = 1e-4 if dtype == torch.float32 else 5e-3
    assert err <= tol, f"{kernel} {num_splits} splits: max|out - ref| {err:.3g} (splits weighed equally?)"
    assert ((lse.double().cpu() - ref_lse).abs() <= 1e-6 * ref_lse.abs()).all()


def _softcap_sum_past_float32():
    """q.k = -3.400e38 / -3.404e38, softmax_scale 1e-38, softcap 5: fp64 out [0.5006, 0.4994]."""
    q = torch.ones(1, 1, 1, 4)
    k = torch.zeros(1, 2, 1, 4)
    k[0, 0], k[0, 1] = -8.5e37, -8.51e37
    v = torch.eye(4)[:2].view(1, 2, 1, 4)
    return q, k, v, FwdArgs(1e-38, -1, -1, 5.0, None)


@pytest.mark.parametrize("path", ["dense", "dense-grad", "split1", "split2"])
def test_fp32_softcap_sum_past_float32_small_scale(kernel, path):
    """eco16 (adv17's strict xfail on the sim): with softcap the cap's argument is float32(q.k_fp64 * cap_scale)
    (ScoreTransform::fp64_multiplier): the dense forward's qk_fp64 and the vector split-KV kernel's lane sums. The
    float32 q.k (-inf past FLT_MAX) gave out [0.885, 0.115]."""
    q, k, v, args = _softcap_sum_past_float32()
    ref, _ = _ref(q, k, v, args)
    q, k, v = q.to(DEV), k.to(DEV), v.to(DEV)
    if path.startswith("dense"):
        out = rocflash.flash_attn_func(q.requires_grad_(path == "dense-grad"), k, v, softmax_scale=1e-38, softcap=5.0,
                                       backend=gpu_platform()).detach()
    else:
        out = rocflash.flash_attn_with_kvcache(q, k, v, cache_seqlens=2, softmax_scale=1e-38, softcap=5.0,
                                               num_splits=int(path[-1]), backend=gpu_platform())
    err = (out.double().cpu() - ref).abs().max().item()
    assert err <= 1e-3, f"{kernel} {path}: out {out.flatten().tolist()[:2]} vs fp64 {ref.flatten().tolist()[:2]}"


@pytest.mark.parametrize("from_lse", [False, True], ids=["autograd", "from-lse"])
def test_fp32_softcap_sum_past_float32_grads(kernel, from_lse):
    """The backward (eco16): the score and dS's factor 1 - tanh^2(t) from the same t (fmha_bwd_kernel.h
    tile_s_and_dp, softcap_grad_factor), through autograd (the forward's statistics) and from the LSE."""
    q, k, v, args = _softcap_sum_past_float32()
    dout = torch.randn(1, 1, 1, 4, generator=torch.Generator().manual_seed(3))
    qd, kd, vd = (x.double().requires_grad_() for x in (q, k, v))
    ref, _ = attention_reference(qd, kd, vd, args, torch.float64)
    ref.backward(dout.double())
    q, k, v, dout = q.to(DEV), k.to(DEV), v.to(DEV), dout.to(DEV)
    if from_lse:
        out, lse, _ = compiled.forward(gpu_platform(), q, k, v, args, with_stats=True)
        grads = compiled.backward(gpu_platform(), q, k, v, out, lse, dout, args)
    else:
        qs, ks, vs = (x.clone().requires_grad_() for x in (q, k, v))
        rocflash.flash_attn_func(qs, ks, vs, softmax_scale=1e-38, softcap=5.0, backend=gpu_platform()).backward(dout)
        grads = qs.grad, ks.grad, vs.grad
    for name, got, want in (("dq", grads[0], qd.grad), ("dv", grads[2], vd.grad)):
        err = (got.double().cpu() - want).abs().max().item()
        assert err <= 1e-3, f"{kernel} d{name} {got.flatten().tolist()} vs fp64 {want.flatten().tolist()}"


@pytest.mark.parametrize("num_splits", [1, 3])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16], ids=["fp32", "fp16"])
def test_alibi_no_key_rows_keep_neg_inf_lse(kernel, dtype, num_splits):
    """adv17: causal 4 x 1, slope -2e38: rows 0-2 see no key and their ALiBi row shift is +inf in float32; the kernels
    add it only where l > 0 (emulated gfx906: LSE -inf; the sim and torch backend gave NaN before adv17)."""
    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(1, s, 1, 64, generator=g).to(dtype).to(DEV) for s in (4, 1, 1))
    slopes = torch.tensor([-2e38], device=DEV)
    out, lse = rocflash.flash_attn_with_kvcache(q, k, v, cache_seqlens=1, causal=True, alibi_slopes=slopes,
                                                num_splits=num_splits, return_softmax_lse=True, backend=gpu_platform())
    out, lse = out.cpu(), lse.cpu()
    assert (out[0, :3] == 0).all() and torch.isneginf(lse[0, 0, :3]).all(), lse.flatten().tolist()
    assert torch.isfinite(lse[0, 0, 3]) and torch.isfinite(out[0, 3]).all()
