"""adv18: the ALiBi slope range also covers the LSE's row constant (issue 8, after eco17). A query row whose
diagonal i + seqlen_k - seqlen_q lies left of key 0 (seqlen_q > seqlen_k, a right bound that lets it see keys) is
anchored at key 0 and the kernels leave its constant -slope * |i + seqlen_k - seqlen_q| out of the scores and put it
into the LSE (ScoreTransform::row_shift). eco17 bounded a negative slope by seqlen_k - 1 only: at seqlen_q 64,
seqlen_k 2 and slope -1e37 the call was accepted, its LSE +inf (the row's true LSE, ~|slope| * 63, past FLT_MAX)
and the backward from that LSE (sim.backward / compiled.backward with an LSE: m = LSE - row_shift = inf - inf) NaN
where fp64 autograd is finite. The bound's distance is now the call's largest |i + seqlen_k - seqlen_q - j| of a
row that sees a key: seqlen_k - 1, or seqlen_q - 1 (window_right -1) / min(seqlen_q - 1, window_right)."""
from __future__ import annotations

import pytest
import torch

import rocflash
from rocflash.backends import FwdArgs, sim
from rocflash.backends.reference import attention_reference
from rocflash.interface import min_alibi_slope


def _qkv(sq, sk, d=16, seed=0):
    g = torch.Generator().manual_seed(seed)
    return tuple(torch.randn(1, s, 1, d, generator=g) for s in (sq, sk, sk, sq))


def test_row_shift_past_float32_made_the_lse_backward_nan():
    """The defect, bypassing the check: the accepted-before slope gives an infinite LSE and NaN gradients from it."""
    q, k, v, do = _qkv(64, 2)
    args = FwdArgs(0.25, -1, -1, 0.0, torch.tensor([-1e37]))
    out, lse = sim.forward(q, k, v, args)[:2]
    assert torch.isposinf(lse).any()
    t = [x.double().requires_grad_() for x in (q, k, v)]
    ref = torch.autograd.grad(attention_reference(*t, args, torch.float64)[0], t, do.double())
    assert all(torch.isfinite(g).all() for g in ref)
    assert torch.isnan(sim.backward(q, k, v, out, lse, do, args)[0]).any()


@pytest.mark.parametrize("window", [(-1, -1), (-1, 40), (5, 63)])
def test_slope_past_row_shift_limit_is_rejected(window):
    q, k, v, _ = _qkv(64, 2)
    dist = 63 if window[1] in (-1, 63) else window[1]
    for slope in (-1e37, float(torch.nextafter(torch.tensor(min_alibi_slope(dist)), torch.tensor(-float("inf"))))):
        with pytest.raises(ValueError, match=f"alibi_slopes must be >= .* at ALiBi distance up to {dist} "):
            rocflash.flash_attn_func(q, k, v, window_size=window, alibi_slopes=torch.tensor([slope]), backend="sim")
    cu_q, cu_k = torch.tensor([0, 64], dtype=torch.int32), torch.tensor([0, 2], dtype=torch.int32)
    with pytest.raises(ValueError, match=f"distance up to {dist} "):
        rocflash.flash_attn_varlen_func(q[0], k[0], v[0], cu_q, cu_k, 64, 2, window_size=window,
                                        alibi_slopes=torch.tensor([-1e37]), backend="sim")


@pytest.mark.parametrize("window,causal", [((-1, -1), False), ((-1, 40), False), ((-1, 0), True)])
def test_slope_at_row_shift_limit_is_accepted_with_a_finite_lse(window, causal):
    """At the limit the call runs, its LSE finite and out within FlashAttention's rule of fp64; causal (the rows left
    of key 0 see nothing) keeps eco17's seqlen_k - 1 bound: slope -1e37 is accepted there."""
    q, k, v, _ = _qkv(64, 2)
    dist = 1 if causal else (63 if window[1] == -1 else window[1])
    slope = -1e37 if causal else min_alibi_slope(dist)
    with torch.no_grad():
        out, lse = rocflash.flash_attn_func(q, k, v, window_size=window, causal=causal, softmax_scale=0.25,
                                            alibi_slopes=torch.tensor([slope]), backend="sim",
                                            return_attn_probs=True)[:2]
    args = FwdArgs(0.25, window[0], 0 if causal else window[1], 0.0, torch.tensor([slope]))
    assert not torch.isposinf(lse).any() and not torch.isnan(lse).any()
    ref = attention_reference(q.double(), k.double(), v.double(), args, torch.float64)[0]
    eager = attention_reference(q, k, v, args, torch.float32)[0]
    err, base = (out.double() - ref).abs().max().item(), (eager.double() - ref).abs().max().item()
    assert err <= 2 * base + 1e-3, (err, base)


@pytest.mark.xfail(strict=True, reason="adv18 finding B (open): the backward from an LSE alone rebuilds "
                   "P = exp2(S2 - LSE * log2(e)); a negative ALiBi slope makes |LSE| ~ |slope| * seqlen_k and the "
                   "LSE's float32 rounding |LSE| * 2^-24 enters every exp2 argument (documented: 'exact only while "
                   "|LSE| * 2^-24 is negligible', as flash-attn): 16 x 16, slope -1e4: 17x the backward rule; "
                   "slope -1e8: NaN. Slopes the call accepts (eco17). The forward's stats path is exact.")
@pytest.mark.parametrize("slope", [-1e4, -1e8])
def test_lse_backward_with_a_large_negative_slope(slope):
    q, k, v, do = _qkv(16, 16, seed=0)
    args = FwdArgs(0.25, -1, -1, 0.0, torch.tensor([slope]))
    out, lse = sim.forward(q, k, v, args)[:2]
    grads = sim.backward(q, k, v, out, lse, do, args)
    t = [x.double().requires_grad_() for x in (q, k, v)]
    ref = torch.autograd.grad(attention_reference(*t, args, torch.float64)[0], t, do.double())
    t = [x.clone().requires_grad_() for x in (q, k, v)]
    eager = torch.autograd.grad(attention_reference(*t, args, torch.float32)[0], t, do)
    for a, r, e in zip(grads, ref, eager):
        err, base = (a.double() - r).abs().max().item(), (e.double() - r).abs().max().item()
        assert err <= 3 * base + 1e-3, (err, base)
