"""Parameters whose product the kernels form in float32 must keep it finite (adv16, issue 8's overflow class).

The kernels take scores to log2 units in float32: softmax_scale * log2(e) (MAX_SOFTMAX_SCALE, checked since issue 8),
and likewise ALiBi's slope * log2(e) (hip_src/fmha_common.h ScoreTransform alibi_slope_log2) and the capped score
softcap * tanh(.) * log2(e). A slope above MAX_SOFTMAX_SCALE made slope_log2 inf and inf * 0 at each row's own key
NaN: every row of the head NaN on the dense forward (the sim's training path), where the exact answer is finite and
the split-KV path (natural units) returned it. A softcap above it overflowed the scores near the cap to +inf: NaN rows.
Both now raise ValueError before any launch, on every entry point that takes them.

The torch backend (the CPU default and the tests' eager baseline) formed S * softmax_scale before the cap: at
softmax_scale 2e38 and q.k 2 that is inf, tanh(inf) = 1, and two keys whose capped scores differ by 1.7% of 2e38 got
equal weight: a silent wrong output (the kernels' tanh(S * (scale / softcap)) is exact there).
"""
from __future__ import annotations

import pytest
import torch

import rocflash
from rocflash.backends import FwdArgs
from rocflash.backends.reference import attention_reference
from rocflash.interface import MAX_SOFTMAX_SCALE

BACKENDS = ["sim", "torch"]


def _qkv(sq=4, sk=4, h=2, d=8, seed=0):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(1, sq, h, d, generator=g), torch.randn(1, sk, h, d, generator=g),
            torch.randn(1, sk, h, d, generator=g))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("slope", [3e38, -2.4e38, MAX_SOFTMAX_SCALE * 1.0001])
def test_alibi_slope_beyond_log2_range_raises(backend, slope):
    q, k, v = _qkv()
    slopes = torch.tensor([0.5, slope], dtype=torch.float32)
    with pytest.raises(ValueError, match=r"alibi_slopes must be in \[-2.3587e\+38, 2.3587e\+38\].*at index \(1,\)"):
        rocflash.flash_attn_func(q, k, v, causal=True, alibi_slopes=slopes, backend=backend)
    cu = torch.tensor([0, 4], dtype=torch.int32)
    with pytest.raises(ValueError, match=r"alibi_slopes must be in"):
        rocflash.flash_attn_varlen_func(q[0], k[0], v[0], cu, cu, 4, 4, causal=True, alibi_slopes=slopes,
                                        backend=backend)
    with pytest.raises(ValueError, match=r"alibi_slopes must be in"):
        rocflash.flash_attn_with_kvcache(q, k, v, cache_seqlens=4, causal=True, alibi_slopes=slopes, backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("grad", [False, True])
def test_alibi_slope_at_the_limit_is_exact(backend, grad):
    """Causal, slope MAX_SOFTMAX_SCALE: each row sees its own key at distance 0 with a finite score and every other
    key 2.4e38 * distance lower (weight 0 in fp64): out = V of the row's own key, on the dense (grad) and the
    inference path alike. (A slope past the limit gave NaN rows on the sim's dense path: now a ValueError.)"""
    q, k, v = _qkv()
    slopes = torch.full((2,), MAX_SOFTMAX_SCALE, dtype=torch.float32)
    qq = q.clone().requires_grad_(grad)
    out, lse, _ = rocflash.flash_attn_func(qq, k, v, causal=True, alibi_slopes=slopes, return_attn_probs=True,
                                           backend=backend)
    assert torch.isfinite(out).all() and torch.isfinite(lse).all()
    assert (out.detach() - v).abs().max().item() <= 1e-6


@pytest.mark.parametrize("backend", BACKENDS)
def test_softcap_beyond_log2_range_raises(backend):
    q, k, v = _qkv()
    with pytest.raises(ValueError, match=r"softcap must be <= 2.3587e\+38 .*got 3e\+38"):
        rocflash.flash_attn_func(q, k, v, softmax_scale=2e38, softcap=3e38, backend=backend)
    with pytest.raises(ValueError, match=r"softcap must be <= 2.3587e\+38"):
        rocflash.flash_attn_with_kvcache(q, k, v, cache_seqlens=4, softcap=3e38, backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("grad", [False, True])
def test_softcap_with_scaled_score_past_float32(backend, grad):
    """softmax_scale 2e38, softcap 2e38: q.k = 2 and 1.9 give S * scale past float32 but capped scores 0.964 and
    0.956 of 2e38, 1.6e36 apart: the softmax is one-hot on the first key (fp64). The torch backend capped an inf
    score (tanh(inf) = 1) and averaged the two keys' V. Checked against the fp64 reference; the sim as well."""
    q = torch.zeros(1, 2, 1, 4)
    q[..., 0] = 1.0
    k = torch.zeros(1, 2, 1, 4)
    k[0, 0, 0, 0], k[0, 1, 0, 0] = 2.0, 1.9
    v = torch.randn(1, 2, 1, 4, generator=torch.Generator().manual_seed(1))
    ref, ref_lse = attention_reference(q.double(), k.double(), v.double(), FwdArgs(2e38, -1, -1, 2e38, None),
                                       torch.float64)
    assert torch.allclose(ref[0, :, 0], v[0, 0, 0].double().expand(2, 4)), "test setup: one-hot on key 0"
    qq = q.clone().requires_grad_(grad)
    out, lse, _ = rocflash.flash_attn_func(qq, k, v, softmax_scale=2e38, softcap=2e38, return_attn_probs=True,
                                           backend=backend)
    err = (out.detach().double() - ref).abs().max().item()
    assert err <= 1e-6, f"{backend}: max|out - ref| {err:.3g} (the key averaged with one it outweighs?)"
    lerr = (lse.double() - ref_lse.double()).abs().max().item() / ref_lse.abs().max().item()
    assert lerr <= 1e-6, f"{backend}: LSE relative error {lerr:.3g}"
