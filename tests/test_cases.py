"""Cases distilled from public bug reports (shared/cases/public_cases.md) that apply to the forward pass.

Each runs on the ``sim`` golden model (CPU, always) and on the compiled kernel when a GPU is present
(marker ``gpu``). C1/C2/C10/C15 sweeps live in test_sim.py / test_gpu.py; C9, C11 errors in test_api.py,
C12 in test_selector.py, C13 in test_build.py.
"""

from __future__ import annotations

import pytest
import torch

import rocflash
from rocflash.masks import MaskRule
from conftest import assert_close_to_reference, fwd_args, gpu_platform, rand_qkv

BACKENDS = ["sim", pytest.param("gpu", marks=pytest.mark.gpu)]


def _dev(backend):
    return ("cpu", "sim") if backend == "sim" else ("cuda", gpu_platform())


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("sq,sk", [(2, 5), (5, 2), (17, 65), (65, 17)])
def test_c5_bottom_right_causal_probe(backend, sq, sk):
    """One-hot V (V[j] = e_j, headdim = seqlen_k): out[i, j] > 0 exactly where row i may see key j."""
    device, name = _dev(backend)
    g = torch.Generator().manual_seed(sq * 100 + sk)
    q = torch.randn(1, sq, 1, sk, generator=g).to(device, torch.float32)
    k = torch.randn(1, sk, 1, sk, generator=g).to(device, torch.float32) * 0.1
    v = torch.eye(sk).view(1, sk, 1, sk).to(device)
    out = rocflash.flash_attn_func(q, k, v, causal=True, backend=name)[0, :, 0].cpu()
    rule = MaskRule(sq, sk, -1, 0)
    expected = torch.tensor([[rule.visible(i, j) for j in range(sk)] for i in range(sq)])
    assert torch.equal(out > 0, expected)
    if sq == 2 and sk == 5:  # the picture in flash_attn_func's docstring
        assert expected.tolist() == [[True, True, True, True, False], [True] * 5]


@pytest.mark.parametrize("backend", BACKENDS)
def test_c6_window_conventions(backend):
    device, name = _dev(backend)
    n = 1024 if backend != "sim" else 300  # the sim is a Python loop: the conventions hold at any length
    q, k, v = rand_qkv(1, n, n, 2, 2, 32, torch.float16, device)
    causal = rocflash.flash_attn_func(q, k, v, causal=True, backend=name)
    for window in [(-1, 0), (n, 0), (n - 1, 0)]:
        assert torch.equal(rocflash.flash_attn_func(q, k, v, window_size=window, backend=name), causal), window
    assert torch.equal(rocflash.flash_attn_func(q, k, v, window_size=(0, 0), backend=name), v)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_c7_very_negative_logits(backend, dtype):
    """A row whose logits all lie below -6e4: its true softmax, not zeros, not NaN."""
    device, name = _dev(backend)
    g = torch.Generator().manual_seed(7)
    d, sk = 64, 129
    u = torch.ones(d) / d ** 0.5
    k = (u * (300 + torch.rand(sk, 1, generator=g) * 4)).view(1, sk, 1, d)  # logits differ by a few units
    q = torch.randn(1, 3, 1, d, generator=g)
    q[0, 1, 0] = -u * 220 * d ** 0.5  # row 1: q.k * scale ~ -6.6e4 .. -6.7e4
    v = torch.randn(1, sk, 1, d, generator=g)
    q, k, v = (t.to(device, dtype) for t in (q, k, v))
    out, lse, _ = rocflash.flash_attn_func(q, k, v, backend=name, return_attn_probs=True)
    logits = (q[0, 1, 0].double() @ k[0, :, 0].double().T) * d ** -0.5
    assert logits.max() < -6e4
    assert out[0, 1].abs().sum() > 0 and not torch.isnan(out).any()
    assert_close_to_reference(out.cpu(), lse.cpu(), q.cpu(), k.cpu(), v.cpu(), fwd_args(d), "C7")


@pytest.mark.parametrize("backend", BACKENDS)
def test_c8_all_equal_and_extreme(backend):
    device, name = _dev(backend)
    g = torch.Generator().manual_seed(8)
    q = torch.ones(2, 65, 2, 64).to(device, torch.float16)
    k = torch.ones(2, 129, 2, 64).to(device, torch.float16)
    v = torch.randn(2, 129, 2, 64, generator=g).to(device, torch.float16)
    out = rocflash.flash_attn_func(q, k, v, backend=name)
    mean = v.float().mean(dim=1, keepdim=True).expand(-1, 65, -1, -1)
    assert (out.float() - mean).abs().max() < 2e-3  # uniform softmax: the average of V
    # logits mixing +1e4 and -1e4: q[..., 0] = 100, k[..., 0] = +-100, the rest small noise
    q2 = torch.randn(2, 65, 2, 64, generator=g) * 0.05
    k2 = torch.randn(2, 129, 2, 64, generator=g) * 0.05
    q2[..., 0] = 100.0
    k2[..., 0] = torch.where(torch.rand(2, 129, 2, generator=g) > 0.5, 100.0, -100.0)
    q2, k2 = q2.to(device, torch.float16), k2.to(device, torch.float16)
    out, lse, _ = rocflash.flash_attn_func(q2, k2, v, softmax_scale=1.0, backend=name, return_attn_probs=True)
    assert torch.isfinite(out).all() and torch.isfinite(lse).all() and lse.min() > 9e3
    assert_close_to_reference(out.cpu(), lse.cpu(), q2.cpu(), k2.cpu(), v.cpu(), fwd_args(64, softmax_scale=1.0), "C8 +-1e4")


@pytest.mark.parametrize("backend", BACKENDS)
def test_c14_bitwise_repeatable(backend):
    device, name = _dev(backend)
    q, k, v = rand_qkv(2, 129, 257, 4, 2, 64, torch.bfloat16, device)
    first = rocflash.flash_attn_func(q, k, v, causal=True, backend=name)
    for _ in range(2):
        assert torch.equal(rocflash.flash_attn_func(q, k, v, causal=True, backend=name), first)
