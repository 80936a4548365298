"""torch.library custom ops of the inference API (issue 8.1): rocflash::varlen_fwd / varlen_bwd.

CPU: opcheck of both ops on the sim and torch backends; torch.compile(fullgraph=True) over
flash_attn_varlen_func equal to eager (forward, LSE, gradients) and its errors unchanged. The compiled
backends: test_gpu_varlen_compile (marker gpu).
"""

from __future__ import annotations

import pytest
import torch
import torch._dynamo.testing

import rocflash
from rocflash import kvcache, varlen
from conftest import gpu_platform

LENS = [(5, 7), (0, 3), (4, 0), (9, 9)]  # (seqlen_q, seqlen_k) per sequence; empty ones included


def _packed(lens, nheads=4, nheads_k=2, headdim=8, dtype=torch.float32, device="cpu", seed=0):
    g = torch.Generator().manual_seed(seed)
    tq, tk = sum(a for a, _ in lens), sum(b for _, b in lens)
    q = torch.randn(tq, nheads, headdim, generator=g).to(device=device, dtype=dtype)
    k = torch.randn(tk, nheads_k, headdim, generator=g).to(device=device, dtype=dtype)
    v = torch.randn(tk, nheads_k, headdim, generator=g).to(device=device, dtype=dtype)
    cu = lambda xs: torch.tensor([0] + list(torch.tensor(xs).cumsum(0).tolist()), dtype=torch.int32, device=device)
    return q, k, v, cu([a for a, _ in lens]), cu([b for _, b in lens]), max(a for a, _ in lens), max(b for _, b in lens)


def _fwd_args(backend, dtype=torch.float32, causal=True, left=-1, right=-1, softcap=0.0, alibi=False, lens=LENS):
    q, k, v, cu_q, cu_k, mq, mk = _packed(lens, dtype=dtype)
    slopes = torch.rand(q.shape[1]) if alibi else None
    return [q, k, v, cu_q, cu_k, None, mq, mk, 0.0, 0.35, causal, left, right, softcap, slopes, False, backend]


@pytest.mark.parametrize("backend", ["sim", "torch"])
@pytest.mark.parametrize("dtype,causal,left,right,softcap,alibi", [
    (torch.float32, True, -1, -1, 0.0, False),
    (torch.float16, False, 3, 1, 2.0, True),
    (torch.float64, False, -1, -1, 0.0, False),
])
def test_varlen_opcheck_cpu(backend, dtype, causal, left, right, softcap, alibi):
    args = _fwd_args(backend, dtype, causal, left, right, softcap, alibi)
    for t in args[:3]:
        t.requires_grad_(True)
    torch.library.opcheck(varlen.varlen_fwd, args)
    q, k, v = (t.detach() for t in args[:3])
    out, _, saved, out32 = varlen.varlen_fwd(q, k, v, *args[3:])
    dout = torch.randn_like(out)
    bwd_args = [dout, q, k, v, out, saved, *args[3:8], *args[9:15], backend, out32]
    torch.library.opcheck(varlen.varlen_bwd, bwd_args)


def test_varlen_opcheck_no_work():
    args = _fwd_args("sim", lens=[(3, 0), (0, 4)])
    torch.library.opcheck(varlen.varlen_fwd, args)


@pytest.mark.parametrize("backend", ["sim", "torch"])
def test_varlen_compile_fullgraph_equals_eager(backend):
    torch._dynamo.reset()
    kw = dict(causal=True, softcap=3.0, window_size=(4, 0), return_attn_probs=True, backend=backend)
    counter = torch._dynamo.testing.CompileCounterWithBackend("aot_eager")
    fn = torch.compile(lambda q, k, v, cq, ck, mq, mk: rocflash.flash_attn_varlen_func(q, k, v, cq, ck, mq, mk, **kw),
                       fullgraph=True, backend=counter)
    for seed, lens in enumerate((LENS, [(11, 6), (2, 13)])):
        q, k, v, cq, ck, mq, mk = _packed(lens, seed=seed)
        q, k, v = (t.requires_grad_() for t in (q, k, v))
        out, lse, _ = fn(q, k, v, cq, ck, mq, mk)
        assert counter.frame_count >= 1
        q2, k2, v2 = (t.detach().clone().requires_grad_() for t in (q, k, v))
        ref, ref_lse, _ = rocflash.flash_attn_varlen_func(q2, k2, v2, cq, ck, mq, mk, **kw)
        torch.testing.assert_close(out, ref, rtol=1e-6, atol=1e-6)
        torch.testing.assert_close(lse, ref_lse, rtol=1e-6, atol=1e-6)
        dout = torch.randn_like(out)
        for a, b in zip(torch.autograd.grad(out, (q, k, v), dout), torch.autograd.grad(ref, (q2, k2, v2), dout)):
            torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-5)


def test_varlen_compile_inductor():
    torch._dynamo.reset()
    fn = torch.compile(lambda *a: rocflash.flash_attn_varlen_func(*a, causal=True, backend="sim") * 2, fullgraph=True)
    q, k, v, cq, ck, mq, mk = _packed(LENS, seed=5)
    torch.testing.assert_close(fn(q, k, v, cq, ck, mq, mk),
                               rocflash.flash_attn_varlen_func(q, k, v, cq, ck, mq, mk, causal=True, backend="sim") * 2)


def test_varlen_compile_dynamic_no_recompile():
    """dynamic=True: total_q/total_k, batch and max_seqlen change without a recompile; grads flow."""
    torch._dynamo.reset()
    counter = torch._dynamo.testing.CompileCounterWithBackend("aot_eager")
    fn = torch.compile(lambda *a: rocflash.flash_attn_varlen_func(*a, causal=True, backend="sim"), fullgraph=True,
                       dynamic=True, backend=counter)
    for seed, lens in enumerate(([(11, 6), (2, 13)], [(3, 30), (7, 7), (5, 9)], [(4, 21), (9, 2), (1, 1)])):
        q, k, v, cq, ck, mq, mk = _packed(lens, seed=seed)
        q.requires_grad_()
        out = fn(q, k, v, cq, ck, mq, mk)
        ref = rocflash.flash_attn_varlen_func(q, k, v, cq, ck, mq, mk, causal=True, backend="sim")
        torch.testing.assert_close(out, ref)
        torch.testing.assert_close(torch.autograd.grad(out.sum(), q)[0], torch.autograd.grad(ref.sum(), q)[0])
        if seed == 1:
            frames = counter.frame_count
    assert counter.frame_count == frames, "a third packing recompiled"


@pytest.mark.parametrize("backend", ["sim", "torch"])
def test_varlen_compile_keeps_errors(backend):
    """The value checks run inside the op under torch.compile: the same errors and messages as eager."""
    torch._dynamo.reset()
    q, k, v, cq, ck, mq, mk = _packed(LENS)
    bad = cq.clone()
    bad[2] = bad[1] - 1  # decreasing
    fn = torch.compile(lambda *a: rocflash.flash_attn_varlen_func(*a, backend=backend), fullgraph=True,
                       backend="aot_eager")
    with pytest.raises(ValueError) as eager:
        rocflash.flash_attn_varlen_func(q, k, v, bad, ck, mq, mk, backend=backend)
    with pytest.raises(ValueError) as compiled:
        fn(q, k, v, bad, ck, mq, mk)
    assert str(compiled.value) == str(eager.value)
    with pytest.raises(ValueError, match="max_seqlen_k must be >= the longest sequence"):
        fn(q, k, v, cq, ck, mq, mk - 1)


@pytest.mark.gpu
def test_gpu_varlen_compile():
    platform = gpu_platform()
    args = _fwd_args(platform, torch.float16)
    args[:5] = [t.cuda() for t in args[:5]]
    for t in args[:3]:
        t.requires_grad_(True)
    torch.library.opcheck(varlen.varlen_fwd, args)
    torch._dynamo.reset()
    for backend in (platform, None):
        fn = torch.compile(lambda *a: rocflash.flash_attn_varlen_func(*a, causal=True, backend=backend),
                           fullgraph=True)
        q, k, v, cq, ck, mq, mk = _packed([(37, 41), (1, 70), (64, 64)], 4, 2, 64, torch.float16, "cuda")
        q, k, v = (t.requires_grad_() for t in (q, k, v))
        out = fn(q, k, v, cq, ck, mq, mk)
        ref = rocflash.flash_attn_varlen_func(q, k, v, cq, ck, mq, mk, causal=True, backend=platform)
        torch.testing.assert_close(out, ref, rtol=0, atol=0)
        for a, b in zip(torch.autograd.grad(out.sum(), (q, k, v)), torch.autograd.grad(ref.sum(), (q, k, v))):
            torch.testing.assert_close(a, b, rtol=0, atol=0)


# ---------------------------------------------------------------- rocflash::kvcache_fwd
def _kv_step(paged, device="cpu", dtype=torch.float32, headdim=8, seed=0, rotary=False):
    """(q, k_cache, v_cache, k, v, kwargs) of one decode/prefill step: batch 2, 3 new tokens, GQA 4/2."""
    g = torch.Generator().manual_seed(seed)
    r = lambda *s: torch.randn(*s, generator=g).to(device=device, dtype=dtype)
    shape = (6, 16, 2, headdim) if paged else (2, 20, 2, headdim)
    kw = dict(cache_seqlens=torch.tensor([4, 13], dtype=torch.int32, device=device), causal=True)
    if paged:
        kw["block_table"] = torch.tensor([[0, 2], [5, 3]], dtype=torch.int32, device=device)
    if rotary:
        kw.update(rotary_cos=torch.rand(40, headdim // 4, generator=g).to(device),
                  rotary_sin=torch.rand(40, headdim // 4, generator=g).to(device))
    return r(2, 3, 4, headdim), r(*shape), r(*shape), r(2, 3, 2, headdim), r(2, 3, 2, headdim), kw


def _kv_op_args(backend, paged, rotary=False):
    q, kc, vc, k, v, kw = _kv_step(paged, rotary=rotary)
    return [q, kc, vc, k, v, kw.get("rotary_cos"), kw.get("rotary_sin"), kw["cache_seqlens"], None, None, None,
            kw.get("block_table"), 0.35, True, -1, -1, 0.0, True, None, 0, backend]


@pytest.mark.parametrize("backend", ["sim", "torch"])
@pytest.mark.parametrize("paged,rotary", [(False, False), (True, True)])
def test_kvcache_opcheck_cpu(backend, paged, rotary):
    torch.library.opcheck(kvcache.kvcache_fwd, _kv_op_args(backend, paged, rotary))


@pytest.mark.parametrize("backend", ["sim", "torch"])
@pytest.mark.parametrize("paged", [False, True])
def test_kvcache_compile_fullgraph_equals_eager(backend, paged):
    """Compiled step == eager step, the appended keys visible in the caller's caches after the compiled call."""
    torch._dynamo.reset()
    fn = torch.compile(lambda q, kc, vc, k, v, **kw: rocflash.flash_attn_with_kvcache(
        q, kc, vc, k, v, return_softmax_lse=True, backend=backend, **kw), fullgraph=True, backend="aot_eager")
    for seed in (0, 1):
        q, kc, vc, k, v, kw = _kv_step(paged, seed=seed, rotary=seed == 1)
        kc2, vc2 = kc.clone(), vc.clone()
        before = kc.clone()
        out, lse = fn(q, kc, vc, k, v, **kw)
        ref, ref_lse = rocflash.flash_attn_with_kvcache(q, kc2, vc2, k, v, return_softmax_lse=True, backend=backend,
                                                        **kw)
        assert not torch.equal(kc, before), "the compiled call did not write the cache"
        torch.testing.assert_close(kc, kc2, rtol=0, atol=0)
        torch.testing.assert_close(vc, vc2, rtol=0, atol=0)
        torch.testing.assert_close(out, ref, rtol=1e-6, atol=1e-6)
        torch.testing.assert_close(lse, ref_lse, rtol=1e-6, atol=1e-6)


def test_kvcache_compile_keeps_errors_and_cache():
    torch._dynamo.reset()
    q, kc, vc, k, v, kw = _kv_step(False)
    kw["cache_seqlens"] = torch.tensor([4, 19], dtype=torch.int32)  # 19 + 3 new > seqlen_cache 20
    fn = torch.compile(lambda *a, **kw: rocflash.flash_attn_with_kvcache(*a, backend="sim", **kw), fullgraph=True,
                       backend="aot_eager")
    before = kc.clone()
    with pytest.raises(ValueError) as eager:
        rocflash.flash_attn_with_kvcache(q, kc, vc, k, v, backend="sim", **kw)
    with pytest.raises(ValueError) as compiled:
        fn(q, kc, vc, k, v, **kw)
    assert str(compiled.value) == str(eager.value)
    assert torch.equal(kc, before)


@pytest.mark.gpu
@pytest.mark.parametrize("paged", [False, True])
def test_gpu_kvcache_compile(paged):
    platform = gpu_platform()
    torch._dynamo.reset()
    for backend in (platform, None):
        fn = torch.compile(lambda q, kc, vc, k, v, **kw: rocflash.flash_attn_with_kvcache(
            q, kc, vc, k, v, backend=backend, **kw), fullgraph=True)
        q, kc, vc, k, v, kw = _kv_step(paged, "cuda", torch.float16, headdim=64)
        kc2, vc2 = kc.clone(), vc.clone()
        out = fn(q, kc, vc, k, v, **kw)
        ref = rocflash.flash_attn_with_kvcache(q, kc2, vc2, k, v, backend=platform, **kw)
        torch.testing.assert_close(kc, kc2, rtol=0, atol=0)
        torch.testing.assert_close(vc, vc2, rtol=0, atol=0)
        torch.testing.assert_close(out, ref, rtol=0, atol=0)
