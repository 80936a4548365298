"""The ``torch`` backend: attention written out with PyTorch ops (S and P materialised, O(N^2) memory).

Also the tests' reference: ``attention_reference(..., compute_dtype=torch.float64)`` is the fp64 golden
result, and ``compute_dtype=q.dtype`` the low-precision eager baseline of FlashAttention's tolerance rule.
"""

from __future__ import annotations

from dataclasses import replace

import torch

from ..masks import MaskRule
from . import FwdArgs, SeqArgs
from .seqlayout import alibi_for, sequence_kv, sequences


def attention_reference(q, k, v, args: FwdArgs, compute_dtype: torch.dtype | None = None):
    """softmax(Q.K^T * scale [softcap] [+ ALiBi] [mask]) . V computed in ``compute_dtype``.

    q: (batch, seqlen_q, nheads, headdim); k, v: (batch, seqlen_k, nheads_k, headdim).
    Returns (out in q.dtype with q's shape, lse float32 (batch, nheads, seqlen_q), natural log).
    Fully masked rows give out 0 and lse -inf. Differentiable in q, k, v.
    """
    compute_dtype = compute_dtype or (torch.float64 if q.dtype == torch.float64 else torch.float32)
    batch, seqlen_q, nheads, _ = q.shape
    seqlen_k, nheads_k = k.shape[1], k.shape[2]
    group = nheads // nheads_k
    qc = q.to(compute_dtype).transpose(1, 2)  # (b, h, sq, d)
    kc = k.to(compute_dtype).transpose(1, 2).repeat_interleave(group, dim=1)
    vc = v.to(compute_dtype).transpose(1, 2).repeat_interleave(group, dim=1)
    scores = torch.matmul(qc, kc.transpose(-1, -2)) * args.softmax_scale
    if args.softcap > 0:
        scores = args.softcap * torch.tanh(scores / args.softcap)
    rows = torch.arange(seqlen_q, device=q.device).view(-1, 1)
    cols = torch.arange(seqlen_k, device=q.device).view(1, -1)
    diag = rows + seqlen_k - seqlen_q  # the key aligned with each query row (bottom-right)
    if args.alibi_slopes is not None:
        slopes = args.alibi_slopes.to(compute_dtype)
        slopes = slopes.view(1, nheads, 1, 1) if slopes.dim() == 1 else slopes.view(batch, nheads, 1, 1)
        scores = scores - slopes * (diag - cols).abs().to(compute_dtype)
    visible = MaskRule(seqlen_q, seqlen_k, args.window_left, args.window_right).visible_grid(rows, cols)
    scores = scores.masked_fill(~visible, float("-inf"))
    lse = torch.logsumexp(scores, dim=-1)  # -inf for fully masked rows
    probs = torch.exp(scores - lse.unsqueeze(-1).masked_fill(torch.isinf(lse).unsqueeze(-1), 0.0))
    out = torch.matmul(probs.to(vc.dtype), vc)
    return out.transpose(1, 2).to(q.dtype).contiguous(), lse.to(torch.float32)


def forward(q, k, v, args: FwdArgs):
    return attention_reference(q, k, v, args)


def varlen_forward(q, k, v, seq: SeqArgs, args: FwdArgs):
    """Varlen / KV-cache forward (layouts: :class:`rocflash.backends.SeqArgs`), one dense call per sequence.

    Returns (out like q, lse float32 (nheads, total_q)). Differentiable in q, k, v through the torch ops
    (the gathers included). ``seq.num_splits`` changes nothing here: the reference never splits.
    """
    out = torch.zeros_like(q, memory_format=torch.contiguous_format)
    lse = torch.full((q.shape[1], q.shape[0]), float("-inf"), dtype=torch.float32, device=q.device)
    for s in sequences(seq, k.shape[1] if seq.paged else 0):
        if s.seqlen_q == 0 or s.seqlen_k == 0:  # nothing to compute: rows stay 0 / -inf
            continue
        ks, vs = sequence_kv(k, v, seq, s)
        o, l = attention_reference(q[s.q_begin:s.q_end].unsqueeze(0), ks, vs,
                                   replace(args, alibi_slopes=alibi_for(args.alibi_slopes, s.index)))
        out[s.q_begin:s.q_end] = o[0]  # in place into a fresh tensor: autograd records it (CopySlices)
        lse[:, s.q_begin:s.q_end] = l[0].detach()
    return out, lse


def varlen_backward(q, k, v, out, lse, dout, seq: SeqArgs, args: FwdArgs):
    """(dq, dk, dv) of :func:`varlen_forward` by autograd through the recomputed forward."""
    with torch.enable_grad():
        leaves = [t.detach().requires_grad_() for t in (q, k, v)]
        o, _ = varlen_forward(*leaves, seq, args)
        grads = torch.autograd.grad(o, leaves, dout, allow_unused=True)
    return tuple(torch.zeros_like(x) if g is None else g for g, x in zip(grads, (q, k, v)))
