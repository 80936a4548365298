"""Second derivatives: exact through the torch backend, a clear error through the fused ones (never a
gradient silently returned without its graph). The compiled kernels: tests/test_gpu_masked_garbage.py."""

from __future__ import annotations

import pytest
import torch

import rocflash


def _qkv(dtype=torch.float64, shape=(1, 40, 2, 32), seed=0):
    g = torch.Generator().manual_seed(seed)
    return tuple(torch.randn(shape, generator=g, dtype=dtype).requires_grad_() for _ in range(3))


@pytest.mark.parametrize("loss", ["sum", "square"])
def test_fused_backend_raises_at_create_graph(loss):
    q, k, v = _qkv()
    out = rocflash.flash_attn_func(q, k, v, causal=True, backend="sim")
    total = out.sum() if loss == "sum" else (out ** 2).sum()
    with pytest.raises(RuntimeError, match=r"backend 'sim' does not support second derivatives.*backend='torch'"):
        torch.autograd.grad(total, (q, k, v), create_graph=True)


def test_fused_backend_first_derivative_unchanged():
    q, k, v = _qkv()
    out = rocflash.flash_attn_func(q, k, v, causal=True, backend="sim")
    grads = torch.autograd.grad(out.sum(), (q, k, v))
    ref = torch.autograd.grad(rocflash.flash_attn_func(q, k, v, causal=True, backend="torch").sum(), (q, k, v))
    for a, b in zip(grads, ref):
        torch.testing.assert_close(a, b, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("kw", [dict(causal=True), dict(window_size=(3, 2)), dict(softcap=2.0, causal=True),
                                dict(alibi_slopes=torch.tensor([0.3, 0.1]))])
def test_torch_backend_gradgradcheck(kw):
    q, k, v = _qkv(shape=(1, 6, 2, 4), seed=1)
    f = lambda q, k, v: rocflash.flash_attn_func(q, k, v, backend="torch", **kw)  # noqa: E731
    assert torch.autograd.gradgradcheck(f, (q, k, v))


def test_torch_backend_gradient_penalty_matches_finite_difference():
    """The issue's case: (1, 40, 2, 32) fp64 causal, penalty |dL/dq|^2 with L = out.sum()."""
    q, k, v = _qkv()

    def penalty(q):
        out = rocflash.flash_attn_func(q, k, v, causal=True, backend="torch")
        (gq,) = torch.autograd.grad(out.sum(), q, create_graph=True)
        return (gq ** 2).sum()

    (analytic,) = torch.autograd.grad(penalty(q), q)
    direction = torch.randn_like(q)
    eps = 1e-6
    numeric = (penalty(q + eps * direction) - penalty(q - eps * direction)) / (2 * eps)
    assert torch.isclose((analytic * direction).sum(), numeric.detach(), rtol=1e-5, atol=1e-8)


def test_no_keys_second_derivative_is_zero():
    q, k, v = _qkv(shape=(1, 3, 1, 4))
    k0, v0 = (t[:, :0].detach().requires_grad_() for t in (k, v))
    out = rocflash.flash_attn_func(q, k0, v0, backend="sim")
    (gq,) = torch.autograd.grad((out ** 2).sum(), q, create_graph=True)
    assert torch.equal(gq, torch.zeros_like(q))
