"""Backward on the CPU: the sim golden model of the backward kernels against fp64 autograd, gradcheck,
dout strides, fully masked rows. (The compiled kernels: tests/test_gpu_backward.py.)"""

from __future__ import annotations

import itertools
import os
import random

import pytest
import torch

import rocflash
from rocflash.backends import sim
from rocflash.masks import MaskRule
from conftest import DTYPES, assert_grads_close, fwd_args, rand_qkv

SEQLENS = [1, 17, 65, 129, 257, 1025]
FULL = os.environ.get("ROCFLASH_FULL_MATRIX") == "1"


def _grads(backend, q, k, v, dout, **kw):
    q, k, v = (t.detach().clone().requires_grad_() for t in (q, k, v))
    out = rocflash.flash_attn_func(q, k, v, backend=backend, **kw)
    out.backward(dout)
    return q.grad, k.grad, v.grad


def _check(sq, sk, h, hk, d, dtype, causal=False, window=(-1, -1), seed=0, batch=2, **kw):
    g = torch.Generator().manual_seed(seed)
    q, k, v = rand_qkv(batch, sq, sk, h, hk, d, DTYPES[dtype], "cpu", g)
    dout = torch.randn(q.shape, generator=g).to(q.dtype)
    grads = _grads("sim", q, k, v, dout, causal=causal, window_size=window, **kw)
    assert_grads_close(grads, q, k, v, dout, fwd_args(d, causal, window, kw.get("softcap", 0.0), kw.get("alibi_slopes")),
                       f"sim bwd sq{sq} sk{sk} h{h}/{hk} d{d} {dtype} causal={causal} window={window}")


_MATRIX = list(itertools.product(SEQLENS, SEQLENS, [False, True]))


@pytest.mark.parametrize("sq,sk,causal", _MATRIX if FULL else random.Random(5).sample(_MATRIX, 24))
def test_boundary_matrix(sq, sk, causal):
    _check(sq, sk, 4, 2, 64, "fp16", causal)


@pytest.mark.parametrize("headdim", [32, 40, 64, 96, 128, 160, 192, 256, 7])
@pytest.mark.parametrize("dtype", ["bf16", "fp32"])
def test_headdims(headdim, dtype):  # C10 (backward)
    _check(129, 65, 2, 1, headdim, dtype, causal=True)


@pytest.mark.parametrize("ratio", [1, 2, 4, 8])
def test_gqa_groups_summed(ratio):  # C9 (backward): dK/dV summed over each group
    _check(65, 129, 8, 8 // ratio, 32, "fp16", causal=True)


@pytest.mark.parametrize("window", [(16, 0), (8, 8), (0, -1)])
def test_windows(window):
    _check(129, 129, 2, 2, 32, "fp16", window=window)


def test_softcap_and_alibi():
    _check(65, 129, 4, 2, 64, "fp16", causal=True, softcap=10.0)
    _check(129, 65, 4, 2, 64, "bf16", alibi_slopes=torch.rand(2, 4) * 0.3)


def test_cross_attention_4096_by_77():  # C3, in a smaller batch for the CPU sim
    _check(4096, 77, 2, 2, 64, "fp16", batch=1)


def test_fully_masked_rows_zero_gradients():
    g = torch.Generator().manual_seed(3)
    q, k, v = rand_qkv(1, 200, 50, 2, 2, 32, torch.float16, "cpu", g)
    dout = torch.randn(q.shape, generator=g).half()
    dq, dk, dv = _grads("sim", q, k, v, dout, causal=True)  # rows 0..149 see no key
    assert torch.equal(dq[:, :150], torch.zeros_like(dq[:, :150]))
    assert dq[:, 150:].abs().sum() > 0 and not any(torch.isnan(x).any() for x in (dq, dk, dv))


@pytest.mark.parametrize("backend", ["sim", "torch"])
def test_gradcheck_float64(backend):
    g = torch.Generator().manual_seed(11)
    q, k, v = (t.double().requires_grad_() for t in rand_qkv(1, 9, 13, 2, 1, 8, torch.float32, "cpu", g))
    for kw in (dict(causal=True), dict(window_size=(3, 2), softcap=2.0)):
        assert torch.autograd.gradcheck(lambda a, b, c: rocflash.flash_attn_func(a, b, c, backend=backend, **kw), (q, k, v))


def test_float64_rejected_by_compiled_backends(monkeypatch):
    q, k, v = rand_qkv(1, 4, 4, 1, 1, 8, torch.float64)
    assert rocflash.flash_attn_func(q, k, v, backend="torch").dtype == torch.float64  # allowed there
    monkeypatch.setattr("rocflash.interface.select_backend",
                        lambda device, backend: rocflash.selector.Selection(backend, "test"))
    monkeypatch.setattr("rocflash.backends.compiled.forward", lambda *a, **kw: pytest.fail("launched"))
    for backend in ("hip", "cuda"):
        with pytest.raises(TypeError, match=rf"q.dtype must be float16, bfloat16 or float32 for backend '{backend}' "
                                            r"\(float64 runs on backends \('torch', 'sim'\)\), got torch.float64"):
            rocflash.flash_attn_func(q, k, v, backend=backend)


@pytest.mark.parametrize("make_dout", [
    lambda o: torch.ones_like(o).expand_as(o),                        # what out.sum().backward() passes
    lambda o: torch.randn(o.shape[0], o.shape[2], o.shape[1], o.shape[3]).to(o.dtype).transpose(1, 2),
    lambda o: torch.randn(*o.shape[:-1], 2 * o.shape[-1]).to(o.dtype)[..., ::2],  # stride(-1) = 2
    lambda o: torch.randn(1, *o.shape[1:]).to(o.dtype).expand_as(o),  # stride 0 along batch
])
def test_dout_strides(make_dout):
    g = torch.Generator().manual_seed(4)
    q, k, v = rand_qkv(2, 65, 65, 2, 2, 32, torch.float16, "cpu", g)
    dout = make_dout(torch.empty_like(q))
    assert_grads_close(_grads("sim", q, k, v, dout, causal=True), q, k, v, dout, fwd_args(32, True), "dout strides")


def test_sum_backward():
    q, k, v = (t.requires_grad_() for t in rand_qkv(2, 17, 33, 2, 1, 16, torch.float32))
    rocflash.flash_attn_func(q, k, v, backend="sim").sum().backward()
    assert q.grad is not None and k.grad.shape == k.shape and v.grad.abs().sum() > 0


@pytest.mark.parametrize("sq,sk,causal,window", [(1025, 1000, True, (-1, -1)), (129, 1025, False, (64, 0)), (300, 77, False, (-1, -1))])
def test_dkdv_tiling_trace(sq, sk, causal, window):
    """The dK/dV kernel visits, for each key block, exactly the query tiles whose rows see one of its keys, and
    masks exactly the tiles holding a masked (valid row, key) pair."""
    q, k, v = rand_qkv(1, sq, sk, 1, 1, 64, torch.float16)
    args = fwd_args(64, causal, window)
    out, lse = sim.forward(q, k, v, args)
    trace = sim.SimTrace()
    sim.backward(q, k, v, out, lse, torch.randn_like(q), args, trace=trace)
    cfg = trace.config
    rule = MaskRule(sq, sk, args.window_left, args.window_right)
    vis = torch.tensor([[rule.visible(i, j) for j in range(sk)] for i in range(sq)])
    for n_block, tiles in trace.blocks:
        n0 = n_block * cfg.block_n
        cols = vis[:, n0:n0 + cfg.block_n]
        needed = sorted({int(i) // cfg.block_m for i in torch.nonzero(cols.any(1)).flatten()})
        assert [t for t, _ in tiles] == needed, f"key block {n_block}"
        for t, masked in tiles:
            tile = cols[t * cfg.block_m:(t + 1) * cfg.block_m]
            assert masked == (not (tile.shape[1] == cfg.block_n and bool(tile.all()))), (n_block, t)
