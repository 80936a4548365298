"""The ALiBi slope range at the call's largest distance (eco17, issue 8; was adv17's strict xfail
test_negative_alibi_slope_far_keys): a negative slope's term -slope * log2(e) * |anchor(i) - j| in the kernels' log2
units (hip_src/fmha_common.h ScoreTransform) must stay a finite float32 at |a - j| = seqlen_k - 1 (varlen:
max_seqlen_k - 1, KV cache: its capacity - 1), else ValueError before any launch (rocflash.interface.min_alibi_slope).
The limit is exact: the slope at it is finite and within fp64 tolerance on sim and torch, the next float32 below it
is rejected. A positive slope has no such bound: far keys go to -inf (weight 0, as exact). The distance is the largest
a row sees (rocflash.interface.alibi_max_distance): a left window bounds it (adv18's nit: a (w, 0) window over a
KV cache was bounded by the capacity)."""
from __future__ import annotations

import math

import pytest
import torch

import rocflash
from rocflash.backends import FwdArgs
from rocflash.backends.reference import attention_reference
from rocflash.interface import MAX_SOFTMAX_SCALE, alibi_max_distance, min_alibi_slope


def _below(x: float) -> float:
    return float(torch.nextafter(torch.tensor(x, dtype=torch.float32), torch.tensor(-math.inf)))


def _qkv(sq, sk, d=64, seed=0):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(1, s, 1, d, generator=g) for s in (sq, sk, sk))


def _ref(q, k, v, slope, causal=True, window=(-1, -1)):
    args = FwdArgs(0.125, window[0], 0 if causal else window[1], 0.0, torch.tensor([slope]))
    return attention_reference(q.double(), k.double(), v.double(), args, torch.float64)[0]


def test_limit_is_exact_float32():
    """At distance 199 the limit is the float32 slope s of largest |s| with float32(s * log2(e)) * 199 <= FLT_MAX."""
    lo = min_alibi_slope(199)
    l2 = lambda s: abs(float(torch.tensor(s, dtype=torch.float32) * torch.tensor(math.log2(math.e), dtype=torch.float32)))
    assert l2(lo) * 199 <= 3.4028234663852886e38 < l2(_below(lo)) * 199
    assert float(torch.tensor(lo, dtype=torch.float32)) == lo
    assert min_alibi_slope(0) == min_alibi_slope(1) == -float(torch.tensor(MAX_SOFTMAX_SCALE, dtype=torch.float32))
    assert min_alibi_slope(199, softcap=1e37) > lo  # the capped score's margin


def _calls(q, k, v, slopes, backend, causal=True, window=(-1, -1)):
    """flash_attn_func, flash_attn_varlen_func and flash_attn_with_kvcache (one and three splits) on q, k, v."""
    sq, sk = q.shape[1], k.shape[1]
    cu_q, cu_k = (torch.tensor([0, n], dtype=torch.int32) for n in (sq, sk))
    kw = dict(causal=causal, window_size=window, alibi_slopes=slopes, softmax_scale=0.125, backend=backend)
    yield "func", lambda: rocflash.flash_attn_func(q, k, v, **kw)
    yield "varlen", lambda: rocflash.flash_attn_varlen_func(q[0], k[0], v[0], cu_q, cu_k, sq, sk, **kw).unsqueeze(0)
    for ns in (1, 3):
        yield f"kvcache{ns}", lambda ns=ns: rocflash.flash_attn_with_kvcache(q, k, v, cache_seqlens=sk, num_splits=ns,
                                                                             **kw)


def _assert_calls_close(q, k, v, slope, backend, ref, **kw):
    """Every entry point of _calls at ``slope`` (no grad) within 1e-4 of the fp64 ``ref``."""
    with torch.no_grad():
        for name, call in _calls(q, k, v, torch.tensor([slope]), backend, **kw):
            out = call()
            err = (out.double() - ref).abs().max().item()
            assert err <= 1e-4, f"{backend} {name}: err {err}, out {out.flatten()[:2].tolist()}"


@pytest.mark.parametrize("backend", ["sim", "torch"])
def test_slope_at_limit_is_finite_and_exact(backend):
    """Causal 1 x 200 at the limit: the farthest key's term is FLT_MAX in log2 units, finite; out within 1e-4 of fp64
    on every entry point (the old xfail's case at slope -1.25e36 is past the limit, -1.18525e36)."""
    q, k, v = _qkv(1, 200)
    lo = min_alibi_slope(199)
    _assert_calls_close(q, k, v, lo, backend, _ref(q, k, v, lo))


@pytest.mark.parametrize("backend", ["sim", "torch", "hip"])
@pytest.mark.parametrize("slope", ["below_limit", "adv17"])
def test_slope_past_limit_is_rejected(backend, slope):
    """The next float32 below the limit, and adv17's -1.25e36, raise ValueError naming argument, rule and value on
    every entry point and backend (the compiled backends share the host check: it runs before any launch, so "hip"
    raises it on a CPU-only machine too)."""
    q, k, v = _qkv(1, 200)
    lo = min_alibi_slope(199)
    value = _below(lo) if slope == "below_limit" else -1.25e36
    slopes = torch.tensor([value])
    with torch.no_grad():
        for name, call in _calls(q, k, v, slopes, backend):
            with pytest.raises(ValueError) as e:
                call()
            msg = str(e.value)
            assert msg.startswith(f"alibi_slopes must be >= {lo!r} at ALiBi distance up to 199"), f"{name}: {msg}"
            assert "finite float32" in msg and repr(float(slopes[0])) in msg, f"{name}: {msg}"


def test_past_limit_was_nan_in_the_sim():
    """The check is needed: bypassing it (the backend directly, as the kernels would run), the slope below the limit
    gives a NaN row in the sim's dense and split paths where fp64 is finite (adv17)."""
    from rocflash.backends import sim

    q, k, v = _qkv(1, 200)
    args = FwdArgs(0.125, -1, 0, 0.0, torch.tensor([_below(min_alibi_slope(199))]))
    assert torch.isfinite(_ref(q, k, v, float(args.alibi_slopes[0]))).all()
    out = sim.forward(q, k, v, args)[0]
    assert torch.isnan(out).any(), out.flatten()[:4].tolist()


def test_kvcache_bound_is_capacity():
    """The KV cache's bound is its capacity (a safe bound, no sync on cache_seqlens): a slope valid for 200 keys is
    rejected in a cache of 400 slots holding 200."""
    q, k, v = _qkv(1, 200)
    kc, vc = torch.zeros(1, 400, 1, 64), torch.zeros(1, 400, 1, 64)
    kc[:, :200], vc[:, :200] = k, v
    lo = min_alibi_slope(199)
    with torch.no_grad():
        with pytest.raises(ValueError, match="distance up to 399"):
            rocflash.flash_attn_with_kvcache(q, kc, vc, cache_seqlens=200, causal=True,
                                             alibi_slopes=torch.tensor([lo]), backend="sim")
        out = rocflash.flash_attn_with_kvcache(q, kc, vc, cache_seqlens=200, causal=True,
                                               alibi_slopes=torch.tensor([min_alibi_slope(399)]), backend="sim",
                                               softmax_scale=0.125)
    assert torch.isfinite(out).all()


# (window_size, causal, the largest distance a row of 200 x 200 sees): the left window bounds the keys behind the
# diagonal, the right bound (or seqlen_q - 1) those ahead of it; a window past every key is unbounded (seqlen_k - 1)
_WINDOWS = [((15, 0), True, 15), ((15, 40), False, 40), ((15, -1), False, 199), ((250, 0), True, 199),
            ((60, 7), False, 60)]


@pytest.mark.parametrize("window,causal,dist", _WINDOWS)
def test_max_distance_is_what_a_row_sees(window, causal, dist):
    """alibi_max_distance by brute force: max |i + sk - sq - j| over the visible (i, j) of the mask rule."""
    from rocflash.masks import MaskRule

    for sq, sk in ((200, 200), (30, 200), (200, 30), (1, 4096)):
        left = -1 if window[0] >= sk else window[0]
        right = 0 if causal else (-1 if window[1] >= sq else window[1])
        rows, cols = torch.arange(sq).view(-1, 1), torch.arange(sk).view(1, -1)
        seen = MaskRule(sq, sk, left, right).visible_grid(rows, cols)
        want = int(((rows + sk - sq - cols).abs() * seen).max()) if bool(seen.any()) else 0
        assert alibi_max_distance(sq, sk, left, right) == want, (sq, sk, left, right)
    assert alibi_max_distance(200, 200, window[0], 0 if causal else window[1]) == dist


@pytest.mark.parametrize("backend", ["sim", "torch"])
@pytest.mark.parametrize("window,causal,dist", [w for w in _WINDOWS if w[2] < 199])
def test_left_window_slope_at_its_limit_is_accepted(backend, window, causal, dist):
    """adv18's nit: with a left window the limit is the window's distance, not seqlen_k - 1: min_alibi_slope(dist)
    (rejected before, when 199 bounded every call of 200 keys) runs on every entry point, finite and within 1e-4 of
    fp64, where masked keys farther back have a term past FLT_MAX (+inf, selected away). The autograd backward on
    flash_attn_func too."""
    q, k, v = _qkv(200, 200)
    slope = min_alibi_slope(dist)
    assert slope < min_alibi_slope(199)
    _assert_calls_close(q, k, v, slope, backend, _ref(q, k, v, slope, causal, window), causal=causal, window=window)
    t = [x.clone().requires_grad_() for x in (q, k, v)]
    out = rocflash.flash_attn_func(*t, causal=causal, window_size=window, alibi_slopes=torch.tensor([slope]),
                                   softmax_scale=0.125, backend=backend)
    do = torch.randn_like(out)
    grads = torch.autograd.grad(out, t, do)
    t64 = [x.detach().double().requires_grad_() for x in (q, k, v)]
    ref64 = torch.autograd.grad(_ref(*t64, slope, causal, window), t64, do.double())
    for name, g, r in zip("qkv", grads, ref64):
        assert (g.double() - r).abs().max().item() <= 1e-4, f"{backend} d{name}"


@pytest.mark.parametrize("backend", ["sim", "torch", "hip"])
@pytest.mark.parametrize("window,causal,dist", _WINDOWS)
def test_window_slope_past_its_limit_is_rejected(backend, window, causal, dist):
    """The edge: the next float32 below min_alibi_slope(dist) raises on every entry point and names the distance,
    and so does the left window's limit where the right side sees farther ((15, -1): 199, (15, 40): 40)."""
    q, k, v = _qkv(200, 200)
    lo = min_alibi_slope(dist)
    values = [_below(lo)] + ([min_alibi_slope(15)] if dist > 15 else [])
    with torch.no_grad():
        for value in values:
            for name, call in _calls(q, k, v, torch.tensor([value]), backend, causal, window):
                with pytest.raises(ValueError) as e:
                    call()
                assert str(e.value).startswith(f"alibi_slopes must be >= {lo!r} at ALiBi distance up to {dist} "), \
                    f"{name}: {e.value}"


def test_kvcache_left_window_bound_is_the_window():
    """The nit's case: over a KV cache of 4096 slots holding 200 keys, a window (15, 0) is bounded by 15, not by the
    capacity (4095): min_alibi_slope(15) runs, finite and exact; the next float32 below it is rejected."""
    q, k, v = _qkv(1, 200)
    kc, vc = torch.zeros(1, 4096, 1, 64), torch.zeros(1, 4096, 1, 64)
    kc[:, :200], vc[:, :200] = k, v
    lo = min_alibi_slope(15)
    ref = _ref(q, k, v, lo, window=(15, 0))
    kw = dict(cache_seqlens=200, causal=True, window_size=(15, 0), softmax_scale=0.125, backend="sim")
    with torch.no_grad():
        for ns in (1, 3):
            out = rocflash.flash_attn_with_kvcache(q, kc, vc, alibi_slopes=torch.tensor([lo]), num_splits=ns, **kw)
            assert (out.double() - ref).abs().max().item() <= 1e-4
        with pytest.raises(ValueError, match="distance up to 15 "):
            rocflash.flash_attn_with_kvcache(q, kc, vc, alibi_slopes=torch.tensor([_below(lo)]), **kw)


@pytest.mark.parametrize("backend", ["sim", "torch"])
def test_huge_positive_slope_far_keys_weigh_zero(backend):
    """The claim the rule relies on: a positive slope whose far keys' term passes FLT_MAX (-inf in log2 units) is
    exact, weight 0 as in fp64, dense and split (one split of three sees only -inf keys: it is empty, not NaN), and
    non-causal seqlen_q > seqlen_k (the anchor key, term 0, keeps each row finite)."""
    q, k, v = _qkv(1, 200)
    slope = 2e36  # float32(slope * log2(e)) * d passes FLT_MAX from d = 118
    _assert_calls_close(q, k, v, slope, backend, _ref(q, k, v, slope))
    with torch.no_grad():
        q2, k2, v2 = _qkv(6, 130, seed=1)
        ref2 = _ref(q2, k2, v2, slope, causal=False)
        out2 = rocflash.flash_attn_func(q2, k2, v2, alibi_slopes=torch.tensor([slope]), softmax_scale=0.125,
                                        backend=backend)
        assert (out2.double() - ref2).abs().max().item() <= 1e-4


@pytest.mark.parametrize("cap", [1e37, 1e38])
def test_softcap_margin(cap):
    """With softcap the term is added to the capped score (natural units) before the factor log2(e): at a saturated
    cap (q.k past FLT_MAX in float32: x = softcap) the no-softcap limit gives a NaN row (the sim, check bypassed),
    the softcap limit min_alibi_slope(199, softcap) is exact on sim (dense, 1 and 3 splits) and torch, and the
    entry points reject the no-softcap limit."""
    from rocflash.backends import sim

    q, k = torch.full((1, 1, 1, 64), 1e19), torch.full((1, 200, 1, 64), 1e19)
    v = torch.randn(1, 200, 1, 64, generator=torch.Generator().manual_seed(0))
    plain, capped = min_alibi_slope(199), min_alibi_slope(199, cap)
    assert torch.isnan(sim.forward(q, k, v, FwdArgs(0.125, -1, 0, cap, torch.tensor([plain])))[0]).any()
    args = FwdArgs(0.125, -1, 0, cap, torch.tensor([capped]))
    ref = attention_reference(q.double(), k.double(), v.double(), args, torch.float64)[0]
    with torch.no_grad():
        outs = [sim.forward(q, k, v, args)[0]]
        for backend, ns in (("sim", 1), ("sim", 3), ("torch", 1)):
            kw = dict(cache_seqlens=200, causal=True, softcap=cap, num_splits=ns, softmax_scale=0.125, backend=backend)
            outs.append(rocflash.flash_attn_with_kvcache(q, k, v, alibi_slopes=torch.tensor([capped]), **kw))
            with pytest.raises(ValueError, match="and softcap"):
                rocflash.flash_attn_with_kvcache(q, k, v, alibi_slopes=torch.tensor([plain]), **kw)
    for out in outs:
        assert (out.double() - ref).abs().max().item() <= 1e-4
