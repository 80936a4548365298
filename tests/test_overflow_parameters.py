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


# ---------------------------------------------------------------- ALiBi's full distance overflowed (adv16; fixed: eco14)
# The dense forward and backward kernels (and the sim's model of them) split ALiBi's bias at the row's anchor: the
# score keeps -slope * |a - j| and the row constant goes to the LSE (hip_src/fmha_common.h ScoreTransform). The
# split-KV decode kernels (fmha_splitkv_kernel.h, fmha_splitkv_mma.h; sim: _Problem.scores_log2) and the torch
# backend (reference._Parts) subtracted the full -slope * |i + sk - sq - j| from each score: on rows far from every key
# (seqlen_q > seqlen_k, no causal mask) with a large slope every visible score overflowed float32 to -inf there, and
# eco11's rule turned the row NaN, where the exact answer is finite and the dense kernel returns it (O exact; LSE the
# float32 rounding of the exact one, -inf where that is below -FLT_MAX). Since eco14 they split it at the anchor too
# (the torch backend is also the tests' eager float32 baseline: tighter tolerances for ALiBi far rows). The strict
# xfails of adv16 below failed before (NaN rows) and pass now.

def _far_rows(sq, sk, slope, h=2, hk=1, d=8):
    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(1, s, n, d, generator=g) for s, n in ((sq, h), (sk, hk), (sk, hk)))
    slopes = torch.full((h,), slope, dtype=torch.float32)
    ref, ref_lse = attention_reference(q.double(), k.double(), v.double(), FwdArgs(d ** -0.5, -1, -1, 0.0, slopes),
                                       torch.float64)
    return q, k, v, slopes, ref, ref_lse


def test_alibi_far_rows_dense_sim_is_exact():
    """The dense forward (the kernels' anchor split) is exact on the rows below."""
    q, k, v, slopes, ref, ref_lse = _far_rows(40, 4, 1e37)
    out, lse, _ = rocflash.flash_attn_func(q.requires_grad_(), k, v, alibi_slopes=slopes, return_attn_probs=True,
                                           backend="sim")
    assert (out.detach().double() - ref).abs().max().item() <= 1e-6
    assert torch.equal(torch.isneginf(lse), torch.isneginf(ref_lse.float())), "LSE: the float32 rounding of fp64's"


@pytest.mark.parametrize("grad", [False, True])
def test_alibi_far_rows_torch_backend(grad):
    """Was a strict xfail (adv16): rows 0-1 of seqlen_q 40 > seqlen_k 4 at slope 1e37 overflowed to -inf and were NaN
    (eco11's rule); the exact O is finite. The LSE is the float32 rounding of the exact one (-inf below -FLT_MAX),
    and the backward from it (explicit_backward subtracts the row shift) gives the fp64 gradients."""
    q, k, v, slopes, ref, ref_lse = _far_rows(40, 4, 1e37)
    qq = q.clone().requires_grad_(grad)
    out, lse, _ = rocflash.flash_attn_func(qq, k, v, alibi_slopes=slopes, return_attn_probs=True, backend="torch")
    assert not out.isnan().any(), f"NaN rows {out.isnan().any(-1).any(-1)[0].nonzero().flatten().tolist()}"
    assert (out.detach().double() - ref).abs().max().item() <= 1e-6
    assert torch.equal(torch.isneginf(lse), torch.isneginf(ref_lse.float())), "LSE: the float32 rounding of fp64's"
    fin = torch.isfinite(ref_lse)
    assert ((lse.double() - ref_lse)[fin].abs() <= 1e-6 * ref_lse[fin].abs().clamp(min=1)).all()
    if grad:
        dout = torch.randn_like(out)
        out.backward(dout)
        qd = q.double().requires_grad_()
        ref_out, _ = attention_reference(qd, k.double(), v.double(), FwdArgs(8 ** -0.5, -1, -1, 0.0, slopes),
                                         torch.float64)
        ref_out.backward(dout.double())
        assert (qq.grad.double() - qd.grad).abs().max().item() <= 1e-5


@pytest.mark.parametrize("num_splits", [1, 3])
def test_alibi_far_rows_split_kv(num_splits):
    """Was a strict xfail (adv16): the split-KV decode kernel subtracted ALiBi's full distance; row 1 of seqlen_q 6 >
    seqlen_k 2 at slope 1e38 (exact LSE -3e38, O finite) was NaN with 1 and 3 splits (sim). Now the anchor split,
    the row's constant in the LSE (one split) or in the combine (several: the partial statistics' shift plane)."""
    q, k, v, slopes, ref, ref_lse = _far_rows(6, 2, 1e38)
    assert torch.isfinite(ref_lse[0, :, 1]).all(), "test setup: row 1's exact LSE is a float32"
    out, lse = rocflash.flash_attn_with_kvcache(q, k, v, cache_seqlens=2, alibi_slopes=slopes, num_splits=num_splits,
                                                return_softmax_lse=True, backend="sim")
    assert not out[0, 1].isnan().any() and not lse[0, :, 1].isnan().any(), "row 1 NaN"
    assert (out.double() - ref).abs().max().item() <= 1e-6
    assert torch.equal(torch.isneginf(lse), torch.isneginf(ref_lse.float())), "LSE: the float32 rounding of fp64's"
    fin = torch.isfinite(ref_lse)
    assert ((lse.double() - ref_lse)[fin].abs() <= 1e-6 * ref_lse[fin].abs()).all()


# ---------------------------------------------------------------- q.k past float32 at a small softmax_scale (adv16; eco14)
def _sum_past_float32():
    q = torch.ones(1, 1, 1, 4)
    k = torch.zeros(1, 2, 1, 4)
    k[0, 0], k[0, 1] = -8.5e37, -8.51e37  # q.k = -3.400e38 (a float32) and -3.404e38 (past it)
    v = torch.eye(4)[:2].view(1, 2, 1, 4)
    ref, _ = attention_reference(q.double(), k.double(), v.double(), FwdArgs(1e-37, -1, -1, 0.0, None), torch.float64)
    return q, k, v, ref


@pytest.mark.parametrize("path", ["dense", "dense-grad", "split1", "split2"])
def test_fp32_sum_past_float32_small_scale(path):
    """Was a strict xfail (adv16): the fp32 forward rounded q.k's fp64 sum to float32 BEFORE the scale (-3.404e38 ->
    -inf), so at softmax_scale 1e-37 a key whose scaled score is -34.04 (exact weight 0.49) weighed 0 beside one at
    -34.00: out [1, 0] instead of [0.51, 0.49], silently. eco12's fp32 backward scaled the fp64 sum before rounding
    (shifted_log2), so its gradients were those of the exact softmax, not of the returned out. Now the fp32
    forward's score is float32(raw_fp64 * scale * log2 e) (ScoreTransform::fp64_multiplier, the vector kernels' qk
    epilogue; the split-KV kernel sums q.k in fp64 for float32 inputs) on the dense and the split path."""
    q, k, v, ref = _sum_past_float32()
    if path.startswith("dense"):
        out = rocflash.flash_attn_func(q.requires_grad_(path == "dense-grad"), k, v, softmax_scale=1e-37,
                                       backend="sim").detach()
    else:
        out = rocflash.flash_attn_with_kvcache(q, k, v, cache_seqlens=2, softmax_scale=1e-37,
                                               num_splits=int(path[-1]), backend="sim")
    err = (out.double() - ref).abs().max().item()
    assert err <= 1e-3, f"out {out.flatten().tolist()[:2]} vs fp64 {ref.flatten().tolist()[:2]}"


def test_fp32_sum_past_float32_torch_backend_is_eager():
    """The torch backend is eager float32 (the reference's float32 path and the tests' low-precision baseline): its
    q.k is a float32 matmul, -inf past FLT_MAX before any scale, as torch's own math attention. Kept so on purpose
    (an fp64 matmul there would make the eager baseline, and with it FlashAttention's rule, tighter than eager
    float32): this pins the documented limit (README, "Known limits"). The fused backends (sim, kernels) are exact."""
    q, k, v, ref = _sum_past_float32()
    out = rocflash.flash_attn_func(q, k, v, softmax_scale=1e-37, backend="torch")
    assert torch.equal(out.flatten()[:2], torch.tensor([1.0, 0.0])), "the eager float32 answer (the second key -inf)"
    assert ref.flatten()[1].item() > 0.4


# ---------------------------------------------------------------- split combine at |LSE| ~ 1e19 (adv16 finding 5; eco14)
@pytest.mark.parametrize("num_splits", [2, 3, 7])
def test_split_combine_large_lse(num_splits):
    """fp32, causal 9 x 130, every key's q.k = -1e20 (all scores equal, ~ -3.5e19): each row's exact O is the mean of
    the V rows it sees. The combine kept each split's LSE as one float32, (m_s + log2 l_s) ln 2 at |LSE| ~ 2.5e19
    rounded log2 l_s away, and the splits were weighed equally, not by their key counts: errors 0.35 / 1.9 / 1.8
    with 2 / 3 / 7 splits where the dense path and one split are exact (adv16). Now each split writes its max score
    m_s and its row sum l_s and the combine weighs exp2(m_s - M) l_s (splits.combine_partials)."""
    g = torch.Generator().manual_seed(5)
    q = torch.zeros(1, 9, 2, 16)
    q[..., 0] = 1.0
    k = torch.randn(1, 130, 1, 16, generator=g) * 1e-3
    k[..., 0] = -1e20
    v = torch.randn(1, 130, 1, 16, generator=g)
    ref, ref_lse = attention_reference(q.double(), k.double(), v.double(), FwdArgs(16 ** -0.5, -1, 0, 0.0, None),
                                       torch.float64)
    out, lse = rocflash.flash_attn_with_kvcache(q, k, v, cache_seqlens=130, causal=True, num_splits=num_splits,
                                                return_softmax_lse=True, backend="sim")
    err = (out.double() - ref).abs().max().item()
    assert err <= 1e-4, f"{num_splits} splits: max|out - ref| {err:.3g} (splits weighed equally?)"
    assert ((lse.double() - ref_lse).abs() <= 1e-6 * ref_lse.abs()).all()


# ---------------------------------------------------------------- the torch backend's backward from an LSE (adv17)
@pytest.mark.parametrize("slope", [3e4, 1e10, 2e36])
def test_torch_backward_from_lse_far_rows(slope):
    """reference.backward(q, k, v, out, lse, dout) (the torch backend's from-LSE backward, ring attention's) on ALiBi
    far rows (seqlen_q 40 > seqlen_k 4, no causal mask; slopes (s, -s/3)). Since eco14 the LSE holds the row's
    shift (-slope * distance to the nearest key) and the backward subtracted it back: one float32 of shift +
    log-sum lost the log-sum once |shift| * 2^-24 is not negligible, so P of the anchor key came back as
    exp(scale * q.k) instead of ~1: dv off by 0.14 at slope 3e4 and NaN at 1e10 / 2e36, where the exact gradients
    are finite (before eco14 and on the autograd path: within 2e-6). Fixed (adv17): those rows rebuild P from the
    full-distance score, rounded as the LSE was."""
    g = torch.Generator().manual_seed(1)
    q, k, v = (torch.randn(1, s, 2, 8, generator=g) for s in (40, 4, 4))
    args = FwdArgs(8 ** -0.5, -1, -1, 0.0, torch.tensor([slope, -slope / 3]))
    qd, kd, vd = (x.double().requires_grad_() for x in (q, k, v))
    ref, _ = attention_reference(qd, kd, vd, args, torch.float64)
    dout = torch.randn(1, 40, 2, 8, generator=g)
    ref.backward(dout.double())
    from rocflash.backends import reference
    out, lse = reference.forward(q, k, v, args)
    grads = reference.backward(q, k, v, out, lse, dout, args)
    for name, got, want in zip("qkv", grads, (qd.grad, kd.grad, vd.grad)):
        err = (got.double() - want).abs().max().item()
        assert err <= 1e-4, f"d{name}: max|err| {err:.3g}"


# ------------------------------------------------------------ softcap: q.k past float32 at a small scale (adv17; eco16)
def _softcap_sum_past_float32():
    q, k, v, _ = _sum_past_float32()
    args = FwdArgs(1e-38, -1, -1, 5.0, None)
    return q, k, v, args


@pytest.mark.parametrize("path", ["dense", "dense-grad", "split1", "split2"])
def test_fp32_softcap_sum_past_float32_small_scale(path):
    """Was a strict xfail (adv17). eco14's fix (A) without softcap, with it: q.k = -3.400e38 and -3.404e38 (past
    float32), softmax_scale 1e-38, softcap 5: capped scores 5 tanh(-0.680) and 5 tanh(-0.681), exact weights 0.5006 /
    0.4994. The sim (every path, as the kernels) rounded q.k to float32 first: the second key's cap argument was
    -inf, its score -5, out [0.885, 0.115] (silent). Now (eco16) the cap's argument is float32(q.k_fp64 * cap_scale),
    rounded once (ScoreTransform::fp64_multiplier with softcap). The torch backend is eager float32 (documented,
    as without softcap)."""
    q, k, v, args = _softcap_sum_past_float32()
    ref, _ = attention_reference(q.double(), k.double(), v.double(), args, torch.float64)
    if path.startswith("dense"):
        out = rocflash.flash_attn_func(q.requires_grad_(path == "dense-grad"), k, v, softmax_scale=1e-38, softcap=5.0,
                                       backend="sim").detach()
    else:
        out = rocflash.flash_attn_with_kvcache(q, k, v, cache_seqlens=2, softmax_scale=1e-38, softcap=5.0,
                                               num_splits=int(path[-1]), backend="sim")
    err = (out.double() - ref).abs().max().item()
    assert err <= 1e-3, f"out {out.flatten().tolist()[:2]} vs fp64 {ref.flatten().tolist()[:2]}"


@pytest.mark.parametrize("from_lse", [False, True], ids=["autograd", "from-lse"])
def test_fp32_softcap_sum_past_float32_grads(from_lse):
    """The backward of the case above (eco16): the score and dS's factor 1 - tanh^2(t) take the same cap argument
    t = float32(q.k_fp64 * cap_scale) (fmha_bwd_kernel.h tile_s_and_dp, softcap_grad_factor; the sim's tile_grads).
    Before: t = -inf for the second key, its g = 0 and P off (dv [0.885, 0.115] where fp64 has [0.50, 0.50])."""
    q, k, v, args = _softcap_sum_past_float32()
    g = torch.Generator().manual_seed(3)
    dout = torch.randn(1, 1, 1, 4, generator=g)
    qd, kd, vd = (x.double().requires_grad_() for x in (q, k, v))
    ref, _ = attention_reference(qd, kd, vd, args, torch.float64)
    ref.backward(dout.double())
    if from_lse:
        from rocflash.backends import sim
        out, lse = sim.forward(q, k, v, args)
        grads = sim.backward(q, k, v, out, lse, dout, args)
    else:
        qs, ks, vs = (x.clone().requires_grad_() for x in (q, k, v))
        rocflash.flash_attn_func(qs, ks, vs, softmax_scale=1e-38, softcap=5.0, backend="sim").backward(dout)
        grads = qs.grad, ks.grad, vs.grad
    for name, got, want in zip("qv", (grads[0], grads[2]), (qd.grad, vd.grad)):
        err = (got.double() - want).abs().max().item()
        assert err <= 1e-3, f"d{name} {got.flatten().tolist()[:4]} vs fp64 {want.flatten().tolist()[:4]}"


# ---------------------------------------------------------------- rows without keys keep LSE -inf (adv17)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16], ids=["fp32", "fp16"])
@pytest.mark.parametrize("path", ["dense", "dense-grad", "torch", "split1", "split2", "split3"])
def test_alibi_no_key_rows_keep_neg_inf_lse(path, dtype):
    """Causal, seqlen_q 4 > seqlen_k 1: rows 0-2 see no key (O 0, LSE -inf). ALiBi slope -2e38 (allowed: |slope| <=
    MAX_SOFTMAX_SCALE) makes their row shift -slope * |i + sk - sq - anchor| = +4e38 and +6e38: +inf in float32, and
    -inf + inf = NaN. The kernels add the shift only where l > 0 (fmha_fwd_kernel.h empty_row_lse, the split kernel's
    l == 0 branch, splitkv_combined_lse's sum == 0). Since eco14 the torch backend and the sim's split path (and the
    sim's dense forward before) added it to every row: LSE NaN beside O 0, a row class no backend has elsewhere."""
    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(1, s, 1, 8, generator=g).to(dtype) for s in (4, 1, 1))
    slopes = torch.tensor([-2e38])
    if path.startswith("split"):
        out, lse = rocflash.flash_attn_with_kvcache(q, k, v, cache_seqlens=1, causal=True, alibi_slopes=slopes,
                                                    num_splits=int(path[-1]), return_softmax_lse=True, backend="sim")
    else:
        out, lse, _ = rocflash.flash_attn_func(q.requires_grad_(path == "dense-grad"), k, v, causal=True,
                                               alibi_slopes=slopes, return_attn_probs=True,
                                               backend="torch" if path == "torch" else "sim")
    assert (out[0, :3] == 0).all()
    assert torch.isneginf(lse[0, 0, :3]).all(), f"LSE of the rows without keys {lse[0, 0, :3].tolist()}"
    assert torch.isfinite(lse[0, 0, 3]) and torch.isfinite(out[0, 3]).all()


@pytest.mark.parametrize("num_splits", [2, 3])
def test_fp64_split_combine_below_the_overflow_marker(num_splits):
    """float64 (sim): one query, 300 keys, window (10, 0): split 0 holds none of the row's keys and writes the overflow
    marker (OVERFLOW_SPLIT_M = -FLT_MAX, l 0); every visible q.k is ~ -1e300, so the real split's max score is below
    the marker. The combine took the marker as M: every real weight exp2(m_s - M) * l_s = 0 and the row NaN, where
    the dense path, one split and fp64 are finite (adv17; float32 partials cannot go below the marker)."""
    g = torch.Generator().manual_seed(0)
    q = torch.full((1, 1, 1, 4), 1e150, dtype=torch.float64)
    k = torch.zeros(1, 300, 1, 4, dtype=torch.float64)
    k[0, :, 0, 0] = -1e150
    k[0, -3:, 0, 1] = 1e-150 * torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)
    v = torch.randn(1, 300, 1, 4, generator=g, dtype=torch.float64)
    ref, _ = attention_reference(q, k, v, FwdArgs(0.5, 10, 0, 0.0, None), torch.float64)
    out = rocflash.flash_attn_with_kvcache(q, k, v, cache_seqlens=300, window_size=(10, 0), num_splits=num_splits,
                                           backend="sim")
    assert (out - ref).abs().max().item() <= 1e-12, out.flatten().tolist()


@pytest.mark.parametrize("num_splits", [1, 3])
def test_negative_alibi_slope_far_keys(num_splits):
    """Was a strict xfail (adv17): causal 1 x 200, slope -1.25e36: the farthest key's bias is +2.49e38 (natural units,
    a float32; fp64 LSE 2.4875e38), 3.59e38 in log2 units (past FLT_MAX: +inf, then NaN in the sim and the emulated
    split kernel). eco17: rejected before any launch (the limit at distance 199 is -1.18525e36,
    rocflash.interface.min_alibi_slope; the limit's exactness: tests/test_alibi_slope_range.py)."""
    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(1, s, 1, 64, generator=g) for s in (1, 200, 200))
    slopes = torch.tensor([-1.25e36])
    with pytest.raises(ValueError, match=r"alibi_slopes must be >= -1\.18525\d*e\+36 at ALiBi distance up to 199"):
        rocflash.flash_attn_with_kvcache(q, k, v, cache_seqlens=200, causal=True, alibi_slopes=slopes,
                                         num_splits=num_splits, softmax_scale=0.125, backend="sim")
