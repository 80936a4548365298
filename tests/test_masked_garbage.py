"""Values a query row cannot see never reach it (CPU backends: sim, torch).

NaN or inf in a K or V row that a query row cannot attend to (causal or window masked) changes neither
that row's output and LSE nor its gradients; keys no row sees get the clean run's (zero) dK, dV. NaN in a
visible K or V row still gives NaN (documented behaviour). The compiled kernels: tests/test_gpu_masked_garbage.py.
"""

from __future__ import annotations

import pytest
import torch

import rocflash
from rocflash.backends import FwdArgs
from rocflash.masks import MaskRule

# (seqlen_q, seqlen_k, nheads, nheads_k, causal, window, garbage keys): tiles of 64 or fewer rows, so every
# case has boundary tiles where a garbage key is visible to some rows of a block and masked for others.
CASES = {
    "causal_square_v90": (100, 100, 2, 2, True, (-1, -1), [90]),
    "causal_sq_lt_sk": (40, 100, 2, 2, True, (-1, -1), [80, 99]),
    "causal_sq_gt_sk": (100, 40, 2, 2, True, (-1, -1), [10, 39]),
    "window_left_right": (150, 150, 2, 1, False, (8, 4), [0, 63, 64, 149]),
    "window_unseen_keys": (30, 200, 4, 2, False, (5, 0), [0, 64, 100, 150]),  # keys < 165 are seen by no row
    "causal_window_gqa": (129, 129, 4, 1, True, (16, -1), [1, 64, 100]),
    "right_window_only": (70, 90, 2, 2, False, (-1, 3), [30, 89]),
}


def _inputs(sq, sk, h, hk, dtype, seed, d=32):
    g = torch.Generator().manual_seed(seed)
    q = torch.randn(2, sq, h, d, generator=g, dtype=torch.float64).to(dtype)
    k = torch.randn(2, sk, hk, d, generator=g, dtype=torch.float64).to(dtype)
    v = torch.randn(2, sk, hk, d, generator=g, dtype=torch.float64).to(dtype)
    dout = torch.randn(2, sq, h, d, generator=g, dtype=torch.float64).to(dtype)
    return q, k, v, dout


def _run(backend, q, k, v, dout, causal, window):
    q, k, v = (t.detach().clone().requires_grad_() for t in (q, k, v))
    out, lse, _ = rocflash.flash_attn_func(q, k, v, causal=causal, window_size=window, return_attn_probs=True,
                                           backend=backend)
    out.backward(dout)
    return out.detach(), lse, q.grad, k.grad, v.grad


def _blind_rows(sq, sk, causal, window, keys):
    """Query rows that see none of ``keys``; and whether no row sees any of them."""
    rule = MaskRule(sq, sk, window[0], 0 if causal else window[1])
    vis = rule.visible_grid(torch.arange(sq), torch.arange(sk))[:, keys].any(dim=1)
    return ~vis, not bool(vis.any())


NAN, INF = float("nan"), float("inf")


@pytest.mark.parametrize("dtype,value,what", [("fp64", NAN, "k"), ("fp64", NAN, "v"), ("fp64", INF, "k"),
                                               ("fp64", -INF, "v"), ("fp16", NAN, "kv")])
@pytest.mark.parametrize("backend", ["sim", "torch"])
@pytest.mark.parametrize("case", list(CASES))
def test_unseen_garbage_changes_nothing(case, backend, dtype, value, what):
    sq, sk, h, hk, causal, window, keys = CASES[case]
    dtype = {"fp64": torch.float64, "fp16": torch.float16}[dtype]
    q, k, v, dout = _inputs(sq, sk, h, hk, dtype, seed=len(case))
    clean = _run(backend, q, k, v, dout, causal, window)
    kg, vg = k.clone(), v.clone()
    for j in keys:
        if "k" in what:
            kg[:, j, :, 1::3] = value
        if "v" in what:
            vg[:, j, :, ::2] = value
    dirty = _run(backend, q, kg, vg, dout, causal, window)
    blind, unseen = _blind_rows(sq, sk, causal, window, keys)
    assert blind.any()
    # the boundary tiles' masked products sum in another order than a matmul: fp16 may round 1 ulp apart
    tol = dict(rtol=0, atol=1e-12) if dtype == torch.float64 else dict(rtol=1e-2, atol=2e-3)
    out, lse, dq = dirty[0][:, blind], dirty[1][:, :, blind], dirty[2][:, blind]
    assert torch.isfinite(out).all() and torch.isfinite(dq).all(), f"{case}: garbage reached a blind row"
    torch.testing.assert_close(out, clean[0][:, blind], **tol)
    torch.testing.assert_close(lse, clean[1][:, :, blind], rtol=0, atol=1e-5, equal_nan=False)
    torch.testing.assert_close(dq, clean[2][:, blind], **tol)
    if unseen:  # no row sees the garbage: every gradient equals the clean run's
        for name, a, b in (("dq", dirty[2], clean[2]), ("dk", dirty[3], clean[3]), ("dv", dirty[4], clean[4])):
            assert torch.isfinite(a).all(), f"{case}: {name} not finite"
            torch.testing.assert_close(a, b, **tol)
        assert torch.equal(dirty[3][:, keys], torch.zeros_like(dirty[3][:, keys]))
    elif value != value:  # visible NaN still propagates to the rows that see it
        seen = ~blind
        assert not torch.isfinite(dirty[0][:, seen]).all()


@pytest.mark.parametrize("backend", ["sim", "torch"])
def test_issue_example_v90(backend):
    """(1, 100, 2, 64) causal, v[0, 90] = NaN: rows 0-89 unchanged, rows 90-99 NaN."""
    g = torch.Generator().manual_seed(8)
    q, k, v = (torch.randn(1, 100, 2, 64, generator=g) for _ in range(3))
    clean = rocflash.flash_attn_func(q, k, v, causal=True, backend=backend)
    v[0, 90] = float("nan")
    out = rocflash.flash_attn_func(q, k, v, causal=True, backend=backend)
    torch.testing.assert_close(out[:, :90], clean[:, :90], rtol=0, atol=1e-6)
    assert torch.isnan(out[:, 90:]).all()


@pytest.mark.parametrize("backend", ["sim", "torch"])
def test_visible_nan_in_k_gives_nan_row_and_lse(backend):
    g = torch.Generator().manual_seed(9)
    q, k, v = (torch.randn(1, 20, 1, 16, generator=g) for _ in range(3))
    k[0, 5, 0, 3] = float("nan")
    out, lse, _ = rocflash.flash_attn_func(q, k, v, causal=True, return_attn_probs=True, backend=backend)
    assert torch.isnan(out[0, 5:]).all() and torch.isnan(lse[0, 0, 5:]).all()
    assert torch.isfinite(out[0, :5]).all() and torch.isfinite(lse[0, 0, :5]).all()


@pytest.mark.parametrize("backend", ["sim", "torch"])
def test_visible_nan_in_v_gives_nan_row_and_finite_lse(backend):
    """LSE = log sum exp(S) is a function of Q.K^T alone: a NaN in a visible V poisons the output column it sits
    in for the rows that see it, never the LSE (the torch reference once NaN-ed whole rows and their LSE)."""
    g = torch.Generator().manual_seed(10)
    q, k, v = (torch.randn(1, 20, 2, 16, generator=g) for _ in range(3))
    v[0, 5, 0, 3] = float("nan")
    out, lse, _ = rocflash.flash_attn_func(q, k, v, causal=True, return_attn_probs=True, backend=backend)
    _, clean_lse, _ = rocflash.flash_attn_func(q, k, torch.nan_to_num(v), causal=True, return_attn_probs=True,
                                               backend=backend)
    assert torch.isnan(out[0, 5:, 0, 3]).all()  # P @ V mixes columns separately: only column 3 sees the NaN
    bad = torch.zeros_like(out, dtype=torch.bool)
    bad[0, 5:, 0, 3] = True
    assert torch.isfinite(out[~bad]).all()
    torch.testing.assert_close(lse, clean_lse, rtol=0, atol=0)


@pytest.mark.parametrize("case", ["causal_sq_gt_sk", "window_unseen_keys", "causal_window_gqa"])
@pytest.mark.parametrize("what", ["k", "v"])
def test_reference_backward_from_lse_keeps_garbage_out(case, what):
    """The torch backend's backward from a given O and LSE (what ring attention calls per key block): NaN in a
    K/V row must not reach dq of rows that cannot see it (0 * NaN through dS.K), nor dk/dv of keys no row sees."""
    from rocflash.backends import reference
    sq, sk, h, hk, causal, window, keys = CASES[case]
    q, k, v, dout = _inputs(sq, sk, h, hk, torch.float64, seed=3)
    args = FwdArgs(q.shape[-1] ** -0.5, window[0], 0 if causal else window[1], 0.0, None)
    out, lse = reference.forward(q, k, v, args)
    clean = reference.backward(q, k, v, out, lse, dout, args)
    kg, vg = k.clone(), v.clone()
    for j in keys:
        (kg if what == "k" else vg)[:, j] = float("nan")
    dirty = reference.backward(q, kg, vg, out, lse, dout, args)
    blind, unseen = _blind_rows(sq, sk, causal, window, keys)
    assert torch.isfinite(dirty[0][:, blind]).all() and torch.equal(dirty[0][:, blind], clean[0][:, blind])
    if unseen:
        for a, b in zip(dirty[1:], clean[1:]):
            assert torch.isfinite(a).all() and torch.equal(a, b)


# adv8: boundary tiles whose K / V tile holds garbage summed their products in another order than the clean
# run's (the broadcast of masked_product), so a blind row's out / dq moved by an ulp with the garbage's mere
# presence (float32 sim: out 1.2e-7, dq 9.5e-7 on a (0, 1) window at softmax_scale 50). Masked entries contribute
# exactly nothing: the blind rows' bits equal the clean run's, in every dtype, at the 16-bit range's edge and with
# one- and two-key rows (windows (0, 0) / (0, 1), causal seqlen_q > seqlen_k).
EXACT_CASES = {
    "window_0_1_d7": (37, 37, 2, 2, 7, False, (0, 1), [5, 36]),
    "window_0_0_d129": (70, 70, 4, 2, 129, False, (0, 0), [0, 63, 64]),
    "causal_sq_lt_sk_d65": (5, 70, 2, 2, 65, True, (-1, -1), [69]),
    "causal_two_keys_gqa_d33": (40, 2, 2, 1, 33, True, (-1, -1), [1]),
}


@pytest.mark.parametrize("what", ["k", "v"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16, torch.float64],
                         ids=["fp32", "fp16", "bf16", "fp64"])
@pytest.mark.parametrize("backend", ["sim", "torch"])
@pytest.mark.parametrize("case", list(EXACT_CASES))
def test_unseen_garbage_changes_no_bit(case, backend, dtype, what):
    sq, sk, h, hk, d, causal, window, keys = EXACT_CASES[case]
    g = torch.Generator().manual_seed(len(case))
    q, k, v, dout = (torch.randn(1, s, n, d, generator=g).to(dtype) for s, n in ((sq, h), (sk, hk), (sk, hk), (sq, h)))
    scale = 50.0 if dtype != torch.float64 else 1.0
    run = lambda kk, vv: _run_scaled(backend, q, kk, vv, dout, causal, window, scale)  # noqa: E731
    clean = run(k, v)
    kg, vg = k.clone(), v.clone()
    for j in keys:
        (kg if what == "k" else vg)[:, j, :, ::2] = NAN
    dirty = run(kg, vg)
    blind, _ = _blind_rows(sq, sk, causal, window, keys)
    assert blind.any()
    for name, a, b in (("out", dirty[0][:, blind], clean[0][:, blind]), ("dq", dirty[2][:, blind], clean[2][:, blind])):
        assert torch.equal(a, b), f"{case} {backend} {dtype} {what}: {name} of rows blind to the garbage moved by " \
                                  f"{(a.double() - b.double()).abs().max().item():.3g}"


def _run_scaled(backend, q, k, v, dout, causal, window, scale):
    q, k, v = (t.detach().clone().requires_grad_() for t in (q, k, v))
    out = rocflash.flash_attn_func(q, k, v, softmax_scale=scale, causal=causal, window_size=window, backend=backend)
    out.backward(dout)
    return out.detach(), None, q.grad, k.grad, v.grad
