"""The ``sim`` backend: the forward kernel's exact tiling, simulated with torch (the golden model).

Same tile sizes as the compiled instance (from ``ck_configs/fmha_fwd.toml``, same headdim bucket and
zero padding), the same block order (Br-row slices last-first within a head), the same K/V tile range per
block and the same masked/unmasked decision per tile (``rocflash.masks``, the mirror of
``hip_src/fmha_mask.h``), and the same online-softmax recurrences in the log2 domain with fp32 state:

    m' = max(m, rowmax(S2))            S2 = score * log2(e)
    base = 0 if m' == -inf else m'     (a row that has seen no visible key stays at 0 / -inf)
    alpha = exp2(m - base);  P = exp2(S2 - base)
    l = l * alpha + rowsum(P)          (rowsum of the fp32 P)
    O = O * alpha + round_to_dtype(P) . V   (the kernel stores P in LDS in the element type)
    out = O / l (0 if l == 0),  LSE = (m + log2 l) * ln 2 (-inf if l == 0)

Batch and heads are vectorised; blocks and tiles are Python loops, as the kernel's grid and main loop.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import torch
import torch.nn.functional as F

from ..configs import FwdTileConfig, select_fwd_config
from ..masks import MaskRule
from . import FwdArgs

LOG2E = 1.0 / math.log(2.0)
_DTYPE_NAMES = {torch.float16: "fp16", torch.bfloat16: "bf16", torch.float32: "fp32"}


@dataclass
class SimTrace:
    """What the simulated kernel did, for tests: one entry per (Br-row block), in launch order within a head."""

    config: FwdTileConfig | None = None
    blocks: list[tuple[int, list[tuple[int, bool]]]] = field(default_factory=list)  # (m_block, [(tile, masked)])


def forward(q, k, v, args: FwdArgs, target: str = "gfx9", trace: SimTrace | None = None):
    """Simulate one launch. Shapes as ``flash_attn_func``; returns (out, lse float32 (b, h, sq))."""
    batch, seqlen_q, nheads, headdim = q.shape
    seqlen_k, nheads_k = k.shape[1], k.shape[2]
    cfg = select_fwd_config(target, _DTYPE_NAMES[q.dtype], headdim)
    if trace is not None:
        trace.config = cfg
    bm, bn, dpad = cfg.block_m, cfg.block_n, cfg.headdim - headdim
    group = nheads // nheads_k

    def prep(x, heads_repeat):  # (b, s, h, d) in the element type -> fp32 (b, h, s, D), zero-padded like the loads
        x = x.transpose(1, 2).float()
        if heads_repeat > 1:
            x = x.repeat_interleave(heads_repeat, dim=1)
        return F.pad(x, (0, dpad))

    qf, kf, vf = prep(q, 1), prep(k, group), prep(v, group)
    out = torch.empty(batch, nheads, seqlen_q, headdim, dtype=torch.float32, device=q.device)
    lse = torch.empty(batch, nheads, seqlen_q, dtype=torch.float32, device=q.device)
    rule = MaskRule(seqlen_q, seqlen_k, args.window_left, args.window_right)
    slopes = None
    if args.alibi_slopes is not None:
        s = args.alibi_slopes.float().to(q.device)
        slopes = (s.view(1, nheads) if s.dim() == 1 else s.view(batch, nheads)).expand(batch, nheads)
        slopes = slopes.reshape(batch, nheads, 1, 1)
    neg_inf = torch.tensor(float("-inf"), device=q.device)

    num_m_blocks = (seqlen_q + bm - 1) // bm
    for m_block in reversed(range(num_m_blocks)):
        m0, m_end = m_block * bm, min(m_block * bm + bm, seqlen_q)
        rows = torch.arange(m0, m0 + bm, device=q.device)
        q_tile = F.pad(qf[:, :, m0:m_end], (0, 0, 0, bm - (m_end - m0)))  # rows past seqlen_q load as zero
        m = torch.full((batch, nheads, bm), float("-inf"), device=q.device)
        l = torch.zeros(batch, nheads, bm, device=q.device)
        o = torch.zeros(batch, nheads, bm, cfg.headdim, device=q.device)
        tile_begin, tile_end = rule.key_tile_range(m0, m_end, bn)
        visited = []
        for t in range(tile_begin, tile_end):
            n0 = t * bn
            n_valid = min(bn, seqlen_k - n0)
            k_tile = F.pad(kf[:, :, n0:n0 + n_valid], (0, 0, 0, bn - n_valid))
            v_tile = F.pad(vf[:, :, n0:n0 + n_valid], (0, 0, 0, bn - n_valid))
            cols = torch.arange(n0, n0 + bn, device=q.device)
            s2 = _scores_log2(torch.matmul(q_tile, k_tile.transpose(-1, -2)), args, slopes, rows, cols, seqlen_k - seqlen_q)
            masked = rule.tile_needs_mask(m0, m_end, n0, bn)
            if masked:
                s2 = torch.where(_visible(rule, rows, cols), s2, neg_inf)
            visited.append((t, masked))
            m_new = torch.maximum(m, s2.amax(dim=-1))
            base = torch.where(torch.isneginf(m_new), torch.zeros_like(m_new), m_new)
            alpha = torch.exp2(m - base)
            p = torch.exp2(s2 - base.unsqueeze(-1))
            l = l * alpha + p.sum(dim=-1)
            p_elem = p.to(q.dtype).float()  # P is stored in LDS in the element type
            o = o * alpha.unsqueeze(-1) + torch.matmul(p_elem, v_tile)
            m = m_new
        if trace is not None:
            trace.blocks.append((m_block, visited))
        n = m_end - m0
        l_valid, m_valid = l[:, :, :n], m[:, :, :n]
        inv_l = torch.where(l_valid > 0, 1.0 / l_valid, torch.zeros_like(l_valid))
        out[:, :, m0:m_end] = o[:, :, :n, :headdim] * inv_l.unsqueeze(-1)
        lse[:, :, m0:m_end] = torch.where(l_valid > 0, (m_valid + torch.log2(l_valid)) / LOG2E, neg_inf)
    return out.transpose(1, 2).to(q.dtype).contiguous(), lse


def _scores_log2(raw, args: FwdArgs, slopes, rows, cols, diag):
    """Raw Q.K^T -> score in log2 units, as ScoreTransform in hip_src/fmha_fwd_kernel.h."""
    if args.softcap == 0 and slopes is None:
        return raw * (args.softmax_scale * LOG2E)
    x = raw * args.softmax_scale
    if args.softcap > 0:
        x = args.softcap * torch.tanh(raw * (args.softmax_scale / args.softcap))
    if slopes is not None:
        x = x - slopes * (rows.view(-1, 1) + diag - cols.view(1, -1)).abs().float()
    return x * LOG2E


def _visible(rule: MaskRule, rows, cols):
    r, c = rows.view(-1, 1), cols.view(1, -1)
    ok = (c >= 0) & (c < rule.seqlen_k)
    if rule.window_left >= 0:
        ok = ok & (c >= r + rule.seqlen_k - rule.seqlen_q - rule.window_left)
    if rule.window_right >= 0:
        ok = ok & (c <= r + rule.seqlen_k - rule.seqlen_q + rule.window_right)
    return ok
