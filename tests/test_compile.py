"""torch.library custom ops (rocflash::fwd, rocflash::bwd), torch.compile and torch.export (issue 8.1).

CPU: opcheck of both ops on the sim and torch backends; torch.compile(fullgraph=True) with every CPU backend,
static and dynamic shapes, forward and backward; torch.export of a module. The compiled backends' ops:
test_gpu_compile below (marker gpu).
"""

from __future__ import annotations

import pytest
import torch
import torch._dynamo.testing

import rocflash
from rocflash import ops
from conftest import gpu_platform, rand_qkv

CASES = [  # (batch, seqlen_q, seqlen_k, nheads, nheads_k, headdim, dtype, scale, left, right, softcap, alibi)
    (2, 9, 13, 2, 1, 8, torch.float32, 0.35, -1, 0, 0.0, False),
    (1, 17, 5, 2, 2, 16, torch.float16, 0.25, 3, 2, 0.0, True),
    (1, 6, 6, 4, 2, 4, torch.float64, 0.5, -1, -1, 2.0, False),
    (1, 0, 4, 1, 1, 8, torch.float32, 0.35, -1, -1, 0.0, False),  # no query row
    (2, 3, 0, 1, 1, 8, torch.float32, 0.35, -1, -1, 0.0, False),  # no key
]


def _op_inputs(case, backend, device="cpu", seed=0):
    batch, sq, sk, h, hk, d, dtype, scale, left, right, cap, alibi = case
    g = torch.Generator().manual_seed(seed)
    q, k, v = rand_qkv(batch, sq, sk, h, hk, d, dtype, device, g)
    slopes = torch.rand(h, generator=g).to(device) if alibi else None
    return [q, k, v, scale, left, right, cap, slopes, backend]


@pytest.mark.parametrize("backend", ["sim", "torch"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: "x".join(map(str, c[:6])) + f"-{c[6]}".replace("torch.", ""))
def test_opcheck_cpu(backend, case):
    args = _op_inputs(case, backend)
    for t in args[:3]:
        t.requires_grad_(True)
    torch.library.opcheck(ops.fwd, args)
    q, k, v = (t.detach() for t in args[:3])
    out, _, stats, out32 = ops.fwd(q, k, v, *args[3:])
    dout = torch.randn_like(out)
    torch.library.opcheck(ops.bwd, [dout, q, k, v, out, stats, *args[3:], out32])


@pytest.mark.parametrize("backend", ["sim", "torch"])
def test_op_backward_matches_autograd(backend):
    """bwd through the op (the torch backend's explicit backward included) equals autograd through the
    torch backend's ops, in fp64."""
    case = (1, 11, 7, 4, 2, 8, torch.float64, 0.4, 4, 0, 1.5, True)
    q, k, v, *rest = _op_inputs(case, backend, seed=3)
    if backend == "torch":  # non-finite K: gradient 0 there, NaN in the rows that see it (as autograd gives)
        k[0, 2, 1, 3] = float("nan")
    q, k, v = (t.requires_grad_() for t in (q, k, v))
    out, *_ = ops.fwd(q, k, v, *rest)
    dout = torch.randn_like(out)
    grads = torch.autograd.grad(out, (q, k, v), dout)
    args = rocflash.backends.FwdArgs(*rest[:5])
    ref_out, _ = rocflash.backends.reference.attention_reference(q, k, v, args)
    ref = torch.autograd.grad(ref_out, (q, k, v), dout)
    for name, a, b in zip(("dq", "dk", "dv"), grads, ref):
        torch.testing.assert_close(a, b, rtol=1e-7, atol=1e-9, equal_nan=True, msg=name)


def _compare_compiled(fn, backend, shapes, dtype=torch.float32, **kw):
    for batch, sq, sk, h, hk, d in shapes:
        q, k, v = (t.requires_grad_() for t in rand_qkv(batch, sq, sk, h, hk, d, dtype))
        out = fn(q, k, v)
        grads = torch.autograd.grad(out, (q, k, v), torch.ones_like(out))
        q2, k2, v2 = (t.detach().clone().requires_grad_() for t in (q, k, v))
        ref = rocflash.flash_attn_func(q2, k2, v2, backend=backend, **kw)
        ref_grads = torch.autograd.grad(ref, (q2, k2, v2), torch.ones_like(ref))
        torch.testing.assert_close(out, ref, rtol=1e-5, atol=1e-5)
        for a, b in zip(grads, ref_grads):
            torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("backend", ["sim", "torch", None])
def test_compile_fullgraph_dynamic(backend):
    torch._dynamo.reset()
    kw = dict(causal=True, softcap=3.0)
    # sim: AOTAutograd traces the op's backward (aot_eager); the torch backend's many ops: dynamo only (eager)
    counter = torch._dynamo.testing.CompileCounterWithBackend("aot_eager" if backend == "sim" else "eager")
    fn = torch.compile(lambda q, k, v: rocflash.flash_attn_func(q, k, v, backend=backend, **kw),
                       fullgraph=True, dynamic=True, backend=counter)
    _compare_compiled(fn, backend, [(3, 37, 41, 4, 2, 16), (5, 50, 61, 4, 2, 16)], **kw)
    frames = counter.frame_count
    _compare_compiled(fn, backend, [(6, 20, 29, 4, 2, 16)], **kw)
    assert counter.frame_count == frames, "a third shape recompiled"


def test_compile_inductor_mark_dynamic():
    """The default backend (inductor), seqlen marked dynamic, the op's outputs and grads as in eager."""
    torch._dynamo.reset()
    fn = torch.compile(lambda q, k, v: rocflash.flash_attn_func(q, k, v, window_size=(5, 1), backend="sim") * 2,
                       fullgraph=True)
    for sq in (24, 31):
        q, k, v = (t.requires_grad_() for t in rand_qkv(1, sq, sq, 2, 2, 8, torch.float32))
        for t in (q, k, v):
            torch._dynamo.mark_dynamic(t, 1)
        out = fn(q, k, v)
        ref = rocflash.flash_attn_func(q, k, v, window_size=(5, 1), backend="sim") * 2
        torch.testing.assert_close(out, ref)
        torch.testing.assert_close(torch.autograd.grad(out.sum(), q)[0], torch.autograd.grad(ref.sum(), q)[0])


def test_compile_keeps_second_derivative_error():
    """Eager raises at the backward with create_graph=True; a compiled function's backward runs the graph
    AOTAutograd traced (without grad mode), and the second backward raises (never a silent gradient)."""
    torch._dynamo.reset()
    q, k, v = (t.double().requires_grad_() for t in rand_qkv(1, 8, 8, 1, 1, 4, torch.float32))
    out = torch.compile(lambda q, k, v: rocflash.flash_attn_func(q, k, v, backend="sim"), fullgraph=True)(q, k, v)
    with pytest.raises(RuntimeError, match="does not support second derivatives|does not currently support double backward"):
        (gq,) = torch.autograd.grad((out ** 2).sum(), q, create_graph=True)
        torch.autograd.grad((gq ** 2).sum(), q)


class _Block(torch.nn.Module):
    def __init__(self, backend):
        super().__init__()
        self.proj = torch.nn.Linear(16, 16)
        self.backend = backend

    def forward(self, x):  # x (batch, seqlen, 2 heads * 8)
        b, s, _ = x.shape
        q = self.proj(x).view(b, s, 2, 8)
        out, lse, _ = rocflash.flash_attn_func(q, q, q, causal=True, return_attn_probs=True, backend=self.backend)
        return out.reshape(b, s, 16), lse


@pytest.mark.parametrize("backend", ["sim", "torch"])
def test_export(backend):
    model = _Block(backend)
    x = torch.randn(2, 12, 16)
    seqlen = torch.export.Dim("seqlen", min=2, max=512)
    exported = torch.export.export(model, (x,), dynamic_shapes={"x": {1: seqlen}})
    if backend == "sim":
        assert "rocflash.fwd" in str(exported.graph)
    for s in (12, 29):
        x = torch.randn(2, s, 16)
        for a, b in zip(exported.module()(x), model(x)):
            torch.testing.assert_close(a, b)


@pytest.mark.gpu
@pytest.mark.parametrize("case", CASES[:2] + CASES[3:], ids=lambda c: "x".join(map(str, c[:6])))
def test_gpu_opcheck_and_compile(case):
    platform = gpu_platform()
    args = _op_inputs(case, platform, device="cuda")
    for t in args[:3]:
        t.requires_grad_(True)
    torch.library.opcheck(ops.fwd, args)
    q, k, v = (t.detach() for t in args[:3])
    out, _, stats, out32 = ops.fwd(q, k, v, *args[3:])
    torch.library.opcheck(ops.bwd, [torch.randn_like(out), q, k, v, out, stats, *args[3:], out32])
    torch._dynamo.reset()
    for backend in (platform, None):
        fn = torch.compile(lambda q, k, v: rocflash.flash_attn_func(q, k, v, causal=True, backend=backend),
                           fullgraph=True, dynamic=True)
        for batch, sq, h in ((2, 37, 4), (1, 70, 4)):
            q, k, v = (t.requires_grad_() for t in rand_qkv(batch, sq, sq, h, 2, 64, torch.float16, "cuda"))
            out = fn(q, k, v)
            ref = rocflash.flash_attn_func(q, k, v, causal=True, backend=platform)
            torch.testing.assert_close(out, ref, rtol=0, atol=0)
            g = torch.autograd.grad(out.sum(), (q, k, v))
            g_ref = torch.autograd.grad(ref.sum(), (q, k, v))
            for a, b in zip(g, g_ref):
                torch.testing.assert_close(a, b, rtol=0, atol=0)
