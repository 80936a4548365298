"""Deliberately wrong backends for tests/test_gpu_adv19*.py: shows each of its tests can fail (not collected by CI).

Usage (CPU, through the torch or sim backend):
    cd tests && ADV19_BACKEND=torch ADV19_MUTANT=NAME python -m pytest -p adv19_mutants test_gpu_adv19.py test_gpu_adv19_kvcache.py
NAME (each wraps rocflash's public calls as the test file sees them):
    scale      flash_attn_func / with_kvcache computed with softmax_scale * 1.02 (out, LSE and grads off)
    grad       dq, dk, dv scaled by 1.01 (ADV19_GRAD_FACTOR; the forward exact)
    lse        the returned LSE + 1e-2
    nondet     out and dq + random noise of 1e-2 on every call (bitwise repeatability breaks)
    dqmode     deterministic=False gives dk scaled by 1 + 2^-8 (dk of the two dQ modes differ)
    leak       a non-finite K or V anywhere poisons the whole output (masked garbage reaches every row)
    nocheck    every exception of a call is swallowed: zeros are returned instead
    append     the KV-cache append also writes into the slot after the new tokens
    noappend   the KV-cache append writes nothing
    nokeys     rows that see no key (LSE -inf) get out 1 instead of 0, and their dq 1 (flash_attn_func)
"""

from __future__ import annotations

import os

import torch

import rocflash

MUTANT = os.environ.get("ADV19_MUTANT", "")
_func, _kv, _varlen = rocflash.flash_attn_func, rocflash.flash_attn_with_kvcache, rocflash.flash_attn_varlen_func


def _scaled(kw, q):
    kw = dict(kw)
    s = kw.get("softmax_scale")
    kw["softmax_scale"] = (s if s is not None else q.shape[-1] ** -0.5) * 1.02
    return kw


class _ScaleGrad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x.view_as(x)

    @staticmethod
    def backward(ctx, g):
        return g * float(os.environ.get("ADV19_GRAD_FACTOR", "1.01"))


def func(q, k, v, *args, **kw):
    if MUTANT == "nocheck":
        try:
            return _func(q, k, v, *args, **kw)
        except Exception:
            out = torch.zeros_like(q)
            lse = torch.zeros(q.shape[0], q.shape[2], q.shape[1])
            return (out, lse, None) if kw.get("return_attn_probs") else out
    if MUTANT == "scale":
        kw = _scaled(kw, q)
    if MUTANT == "nondet" and torch.is_grad_enabled() and q.requires_grad:
        q = _NoisyGrad.apply(q)
    if MUTANT == "grad" and torch.is_grad_enabled():
        q, k, v = (_ScaleGrad.apply(x) if x.requires_grad else x for x in (q, k, v))
    if MUTANT == "dqmode" and not kw.get("deterministic", False) and k.requires_grad and torch.is_grad_enabled():
        k = _DkBump.apply(k)
    if MUTANT == "nokeys":
        _NoKeyRows.k, _NoKeyRows.v = k.detach(), v.detach()
        _NoKeyRows.kw = {n: kw[n] for n in ("causal", "window_size", "softmax_scale", "backend") if n in kw}
    res = _func(q, k, v, *args, **kw)
    out, rest = (res[0], res[1:]) if isinstance(res, tuple) else (res, None)
    if MUTANT == "lse" and rest is not None:
        rest = (rest[0] + 1e-2, *rest[1:])
    if MUTANT == "nondet":
        out = out + (torch.rand((), device=out.device) * 1e-2).to(out.dtype)
    if MUTANT == "nokeys":
        out = _NoKeyRows.apply(out, q)
    if MUTANT == "leak" and not (torch.isfinite(k).all() and torch.isfinite(v).all()):
        out = out + float("nan")
    return (out, *rest) if rest is not None else out


class _NoKeyRows(torch.autograd.Function):
    """out 1 on rows without keys (seqlen_k 0, or causal rows above the diagonal when seqlen_q > seqlen_k); dq 1."""

    @staticmethod
    def forward(ctx, out, q):
        lse = _func(q.detach(), _NoKeyRows.k, _NoKeyRows.v, return_attn_probs=True, **_NoKeyRows.kw)[1]
        rows = torch.isneginf(lse).transpose(1, 2).unsqueeze(-1)  # (batch, seqlen_q, nheads, 1)
        ctx.save_for_backward(rows)
        return torch.where(rows, torch.ones_like(out), out)

    @staticmethod
    def backward(ctx, g):
        (rows,) = ctx.saved_tensors
        return torch.where(rows, torch.zeros_like(g), g), torch.where(rows, torch.ones_like(g), torch.zeros_like(g))


class _NoisyGrad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x.view_as(x)

    @staticmethod
    def backward(ctx, g):
        return g + (torch.rand((), device=g.device) * 1e-2).to(g.dtype)


class _DkBump(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x.view_as(x)

    @staticmethod
    def backward(ctx, g):
        return g * (1 + 2 ** -8)


def kvcache(q, k_cache, v_cache, k=None, v=None, *args, **kw):
    if MUTANT == "nocheck":
        try:
            return _kv(q, k_cache, v_cache, k, v, *args, **kw)
        except Exception:
            out = torch.zeros_like(q)
            return (out, torch.zeros(q.shape[0], q.shape[2], q.shape[1])) if kw.get("return_softmax_lse") else out
    if MUTANT == "scale":
        kw = _scaled(kw, q)
    if MUTANT == "noappend" and k is not None:
        lens = kw.get("cache_seqlens")
        kw["cache_seqlens"] = lens + k.shape[1] if lens is not None else lens
        k = v = None
    res = _kv(q, k_cache, v_cache, k, v, *args, **kw)
    if MUTANT == "append" and k is not None and kw.get("block_table") is None:
        lens = kw.get("cache_seqlens")
        lens = [lens] * q.shape[0] if isinstance(lens, int) else lens.tolist()
        rows = kw.get("cache_batch_idx")
        rows = list(range(q.shape[0])) if rows is None else rows.tolist()
        for r, n in zip(rows, lens):
            if n + k.shape[1] < k_cache.shape[1]:
                k_cache[r, n + k.shape[1]] = 7.0
    if MUTANT == "append" and k is not None and kw.get("block_table") is not None:
        k_cache.view(-1)[-1] = 7.0  # a slot of an unused block
    if MUTANT == "lse" and isinstance(res, tuple):
        res = (res[0], res[1] + 1e-2)
    if MUTANT == "nondet":
        out = res[0] if isinstance(res, tuple) else res
        out = out + (torch.rand((), device=out.device) * 1e-2).to(out.dtype)
        res = (out, res[1]) if isinstance(res, tuple) else out
    return res


def varlen(*args, **kw):
    if MUTANT == "nocheck":
        try:
            return _varlen(*args, **kw)
        except Exception:
            return torch.zeros_like(args[0])
    return _varlen(*args, **kw)


if MUTANT:
    rocflash.flash_attn_func, rocflash.flash_attn_with_kvcache, rocflash.flash_attn_varlen_func = func, kvcache, varlen
