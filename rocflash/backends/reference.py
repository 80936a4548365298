"""The ``torch`` backend: attention written out with PyTorch ops (S and P materialised, O(N^2) memory).

Also the tests' reference: ``attention_reference(..., compute_dtype=torch.float64)`` is the fp64 golden
result, and ``compute_dtype=q.dtype`` the low-precision eager baseline of FlashAttention's tolerance rule.
"""

from __future__ import annotations

import torch

from ..masks import MaskRule
from . import FwdArgs


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
