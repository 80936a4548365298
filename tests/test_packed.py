"""flash-attn's packed entry points (rocflash/packed.py; newuser10: a flash-attn user's flash_attn_qkvpacked_func
was an AttributeError): the same results as the unpacked calls on the packed tensor's views, bit for bit, forward
and backward (the packed tensor's gradient is the three views' gradients), and errors naming the argument, the
rule and the value. Fast (CPU: torch and sim backends, tiny shapes)."""

from __future__ import annotations

import pytest
import torch

import rocflash

BACKENDS = ("torch", "sim")


def _leaf(*shape, dtype=torch.float32):
    return torch.randn(*shape, dtype=dtype).requires_grad_()


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [torch.float16, torch.float32])
def test_qkvpacked_equals_unpacked(backend, dtype):
    torch.manual_seed(0)
    qkv = _leaf(2, 17, 3, 4, 24, dtype=dtype)
    kw = dict(causal=True, window_size=(5, 0), softcap=3.0, return_attn_probs=True, backend=backend)
    out, lse, _ = rocflash.flash_attn_qkvpacked_func(qkv, **kw)
    q, k, v = (qkv.detach()[:, :, i].clone().requires_grad_() for i in range(3))
    ref, ref_lse, _ = rocflash.flash_attn_func(q, k, v, **kw)
    assert torch.equal(out, ref) and torch.equal(lse, ref_lse)
    dout = torch.randn_like(out)
    out.backward(dout)
    ref.backward(dout)
    assert torch.equal(qkv.grad, torch.stack([q.grad, k.grad, v.grad], dim=2))


@pytest.mark.parametrize("backend", BACKENDS)
def test_kvpacked_equals_unpacked_gqa(backend):
    torch.manual_seed(1)
    q, kv = _leaf(1, 9, 6, 16), _leaf(1, 13, 2, 2, 16)
    out = rocflash.flash_attn_kvpacked_func(q, kv, causal=True, softmax_scale=0.3, backend=backend)
    q2, k, v = q.detach().clone().requires_grad_(), *(kv.detach()[:, :, i].clone().requires_grad_() for i in range(2))
    ref = rocflash.flash_attn_func(q2, k, v, causal=True, softmax_scale=0.3, backend=backend)
    assert torch.equal(out, ref)
    out.sum().backward()
    ref.sum().backward()
    assert torch.equal(q.grad, q2.grad) and torch.equal(kv.grad, torch.stack([k.grad, v.grad], dim=2))


@pytest.mark.parametrize("backend", BACKENDS)
def test_varlen_packed_equal_unpacked(backend):
    torch.manual_seed(2)
    cu = torch.tensor([0, 5, 5, 16], dtype=torch.int32)
    qkv = _leaf(16, 3, 4, 8)
    out = rocflash.flash_attn_varlen_qkvpacked_func(qkv, cu, 11, causal=True, backend=backend)
    q, k, v = (qkv.detach()[:, i].clone().requires_grad_() for i in range(3))
    ref = rocflash.flash_attn_varlen_func(q, k, v, cu, cu, 11, 11, causal=True, backend=backend)
    assert torch.equal(out, ref)
    out.sum().backward()
    ref.sum().backward()
    assert torch.equal(qkv.grad, torch.stack([q.grad, k.grad, v.grad], dim=1))

    cu_k = torch.tensor([0, 7, 9, 20], dtype=torch.int32)
    qv, kv = _leaf(16, 4, 8), _leaf(20, 2, 2, 8)
    out = rocflash.flash_attn_varlen_kvpacked_func(qv, kv, cu, cu_k, 11, 11, window_size=(3, 2), backend=backend)
    ref = rocflash.flash_attn_varlen_func(qv, kv[:, 0], kv[:, 1], cu, cu_k, 11, 11, window_size=(3, 2), backend=backend)
    assert torch.equal(out, ref)


def test_packed_argument_errors():
    qkv4 = torch.randn(2, 8, 4, 16)
    with pytest.raises(ValueError, match=r"^qkv must have 5 dimensions \(batch, seqlen, 3, nheads, headdim\), got "
                                         r"shape \(2, 8, 4, 16\)"):
        rocflash.flash_attn_qkvpacked_func(qkv4)
    with pytest.raises(ValueError, match=r"^qkv.shape\[2\] must be 3 \(q, k, v packed\) .*, got shape \(2, 8, 2, 4, 16\)"):
        rocflash.flash_attn_qkvpacked_func(torch.randn(2, 8, 2, 4, 16))
    with pytest.raises(ValueError, match=r"^kv.shape\[2\] must be 2 \(k, v packed\) .*, got shape \(2, 8, 3, 4, 16\)"):
        rocflash.flash_attn_kvpacked_func(qkv4, torch.randn(2, 8, 3, 4, 16))
    with pytest.raises(ValueError, match=r"^kv must have 4 dimensions \(total_k, 2, nheads_k, headdim\)"):
        rocflash.flash_attn_varlen_kvpacked_func(torch.randn(8, 4, 16), torch.randn(1, 8, 2, 4, 16),
                                                 torch.tensor([0, 8], dtype=torch.int32),
                                                 torch.tensor([0, 8], dtype=torch.int32), 8, 8)
    with pytest.raises(TypeError, match=r"^qkv must be a torch.Tensor \(total, 3, nheads, headdim\), got list"):
        rocflash.flash_attn_varlen_qkvpacked_func([1, 2], torch.tensor([0, 8], dtype=torch.int32), 8)
    # the unpacked function's own checks name the rule (int64 cu_seqlens)
    with pytest.raises(ValueError, match=r"^cu_seqlens_q must have dtype torch.int32, got torch.int64"):
        rocflash.flash_attn_varlen_qkvpacked_func(torch.randn(8, 3, 4, 16), torch.tensor([0, 8]), 8)
