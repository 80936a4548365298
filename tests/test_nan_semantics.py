"""NaN semantics of the forward and the backward, the same on every backend (flash_attn_func's docstring).

A NaN in a K or V element that a set R of query rows can see (visible, not masked):
    out      K element: NaN on the rows R (every column), and their LSE; V element (column c): NaN in out[R, c]
    dq       NaN on the rows R (their dP = dO.V^T, or their P, is NaN)
    dk       NaN on every key a row of R sees (dS^T.Q sums those rows)
    dv       K element: NaN on every key a row of R sees (their P is NaN); V element: finite everywhere
             (dV = P^T.dO never reads V)
Everything else stays finite; rows and keys outside these sets are bit-for-bit unaffected by a masked NaN
(tests/test_masked_garbage.py). This is what IEEE arithmetic through FlashAttention-2's formulas gives with masked
entries selected out; the torch reference (both its autograd path and its explicit backward) follows it.
The compiled kernels' check is test_gpu_backward.py::test_nan_pattern_gpu (marker gpu).
"""

from __future__ import annotations

import pytest
import torch

import rocflash
from rocflash import ops
from rocflash.backends import reference
from rocflash.masks import MaskRule
from conftest import fwd_args


def _expected(sq, sk, causal, window, which, key, col, h, hk, d):
    """NaN masks (out, dq, dk, dv) for a NaN at k/v[0, key, head 0, col] (batch 1, query heads of kv head 0)."""
    rule = MaskRule(sq, sk, *((window[0], 0) if causal else window))
    vis = rule.visible_grid(torch.arange(sq).view(-1, 1), torch.arange(sk).view(1, -1))  # (sq, sk)
    rows = vis[:, key]  # R
    keys = vis[rows].any(0)  # keys a row of R sees
    group = h // hk
    out = torch.zeros(sq, h, d, dtype=torch.bool)
    dq = torch.zeros(sq, h, d, dtype=torch.bool)
    dk = torch.zeros(sk, hk, d, dtype=torch.bool)
    dv = torch.zeros(sk, hk, d, dtype=torch.bool)
    for head in range(group):  # the query heads that read kv head 0
        if which == "k":
            out[rows, head] = True
        else:
            out[rows, head, col] = True
        dq[rows, head] = True
    dk[keys, 0] = True
    if which == "k":
        dv[keys, 0] = True
    return out, dq, dk, dv


CASES = [  # sq, sk, causal, window, which, key, col, h, hk
    (12, 12, True, (-1, -1), "k", 5, 3, 1, 1),
    (12, 12, True, (-1, -1), "v", 5, 3, 1, 1),
    (9, 15, False, (2, 1), "v", 7, 0, 2, 1),
    (9, 15, False, (2, 1), "k", 8, 5, 2, 1),
    (20, 20, False, (-1, -1), "v", 0, 7, 4, 2),
]


def _run(case, backend, dtype, device="cpu", explicit=False):
    sq, sk, causal, window, which, key, col, h, hk = case
    d = 8
    g = torch.Generator().manual_seed(1)
    q = torch.randn(1, sq, h, d, generator=g).to(device, dtype)
    k, v = (torch.randn(1, sk, hk, d, generator=g).to(device, dtype) for _ in range(2))
    dout = torch.randn(q.shape, generator=g).to(device, dtype)
    (k if which == "k" else v)[0, key, 0, col] = float("nan")
    if explicit:  # the torch backend's explicit backward (the rocflash::bwd op's body for backend 'torch')
        args = fwd_args(d, causal, window)
        out, _ = reference.forward(q, k, v, args)
        grads = ops.bwd(dout, q, k, v, out, torch.empty(0), args.softmax_scale, args.window_left,
                        args.window_right, 0.0, None, "torch")
    else:
        qg, kg, vg = (t.clone().requires_grad_() for t in (q, k, v))
        out = rocflash.flash_attn_func(qg, kg, vg, causal=causal, window_size=window, backend=backend)
        out.backward(dout)
        grads = (qg.grad, kg.grad, vg.grad)
    got = [x[0].isnan().cpu() for x in (out, *grads)]
    want = _expected(sq, sk, causal, window, which, key, col, h, hk, d)
    for name, a, b in zip(("out", "dq", "dk", "dv"), got, want):
        assert torch.equal(a, b), f"{backend} {dtype} {case}: {name} NaN at {a.nonzero().tolist()}, want {b.nonzero().tolist()}"


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
@pytest.mark.parametrize("backend", ["sim", "torch", "torch-explicit"])
def test_nan_pattern(case, backend, dtype):
    _run(case, backend.split("-")[0], dtype, explicit=backend == "torch-explicit")

