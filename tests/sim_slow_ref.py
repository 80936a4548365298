"""The sim backend as it was before vectorisation (main before the simfast merge): Python loops over blocks and
tiles. Kept only as the bitwise reference of tests/test_sim_vectorised.py and perf/sim_speed.py; not part of
the package."""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import torch
import torch.nn.functional as F

from rocflash.configs import TileConfig, select_config
from rocflash.masks import MaskRule
from rocflash.backends import FwdArgs, sim
from rocflash.backends.seqlayout import alibi_anchor, alibi_row_shift
from rocflash.backends.splits import OVERFLOW_SPLIT_LSE

LOG2E = 1.0 / math.log(2.0)
# float64 runs the fp32 kernel's tiling in fp64 arithmetic (the sim only; the compiled kernels reject it)
_DTYPE_NAMES = {torch.float16: "fp16", torch.bfloat16: "bf16", torch.float32: "fp32", torch.float64: "fp32"}


@dataclass
class SimTrace:
    """What the simulated kernel did, for tests: one entry per block, in launch order within a head."""

    config: TileConfig | None = None
    blocks: list[tuple[int, list[tuple[int, bool]]]] = field(default_factory=list)  # (block, [(tile, masked)])


class _Problem:
    """Inputs prepared as the kernels see them: (batch, heads, seqlen, bucket) in the accumulation dtype,
    zero-padded along headdim, K/V heads repeated over each GQA group."""

    def __init__(self, q, k, v, args: FwdArgs, kind: str, target: str):
        self.batch, self.seqlen_q, self.nheads, self.headdim = q.shape
        self.seqlen_k, self.nheads_k = k.shape[1], k.shape[2]
        self.group = self.nheads // self.nheads_k
        self.dtype, self.device = q.dtype, q.device
        self.acc = torch.float64 if q.dtype == torch.float64 else torch.float32
        self.cfg = select_config(kind, target, _DTYPE_NAMES[q.dtype], self.headdim)
        self.args = args
        self.rule = MaskRule(self.seqlen_q, self.seqlen_k, args.window_left, args.window_right)
        self.slopes = None
        if args.alibi_slopes is not None:
            s = args.alibi_slopes.to(device=q.device, dtype=self.acc)
            s = (s.view(1, self.nheads) if s.dim() == 1 else s.view(self.batch, self.nheads)).expand(self.batch, self.nheads)
            self.slopes = s.reshape(self.batch, self.nheads, 1, 1)

    def prep(self, x, repeat: int = 1):  # (b, s, h, d) -> (b, h, s, bucket)
        x = x.transpose(1, 2).to(self.acc)
        if repeat > 1:
            x = x.repeat_interleave(repeat, dim=1)
        return F.pad(x, (0, self.cfg.headdim - self.headdim))

    def rows(self, x, start: int, count: int):
        """Rows [start, start + count) of a (b, h, s, d) tensor, zero past its end (the kernel's loads)."""
        valid = max(0, min(count, x.shape[2] - start))
        return F.pad(x[:, :, start:start + valid], (0, 0, 0, count - valid))

    def visible(self, rows, cols):
        """The per-element mask of a boundary tile: visible keys of valid rows (rows past seqlen_q see none,
        as in the kernels' boundary tiles)."""
        return self.rule.visible_grid(rows, cols) & (rows < self.seqlen_q).view(-1, 1)

    def round(self, x):
        """What storing to LDS in the element type does to a probability or gradient tile."""
        return x.to(self.dtype).to(self.acc)

    def scores_log2(self, raw, rows, cols):
        """Raw Q.K^T -> score in log2 units, as ScoreTransform in hip_src/fmha_common.h.
        Returns (score_log2, g) with g = d(score)/d(raw) / softmax_scale."""
        a = self.args
        if a.softcap == 0 and self.slopes is None:
            return raw * (a.softmax_scale * LOG2E), 1.0
        dist = None if self.slopes is None else \
            (alibi_anchor(rows.view(-1, 1), self.seqlen_q, self.seqlen_k) - cols.view(1, -1)).abs().to(self.acc)
        if a.softcap == 0:  # ALiBi alone: one product in log2 units, the row's constant left to the LSE
            return raw * (a.softmax_scale * LOG2E) - (self.slopes * LOG2E) * dist, 1.0
        return self.capped_log2(raw * (a.softmax_scale / a.softcap), rows, cols)

    def capped_log2(self, t, rows, cols):
        """The capped score of the cap's argument t (ScoreTransform::capped_log2; float32: t from the fp64 sum)."""
        th = torch.tanh(t)
        x = self.args.softcap * th
        if self.slopes is not None:
            x = x - self.slopes * (alibi_anchor(rows.view(-1, 1), self.seqlen_q, self.seqlen_k)
                                   - cols.view(1, -1)).abs().to(self.acc)
        return x * LOG2E, 1 - th * th

    def row_shift(self):
        return None if self.slopes is None else alibi_row_shift(self.slopes.view(self.batch, self.nheads), self.batch,
                                                                self.nheads, self.seqlen_q, self.seqlen_k,
                                                                self.device, self.acc)


# the boundary tiles' product with garbage in masked K / V rows: the package's (a @ b with the non-finite
# elements zeroed, the per-element broadcast only for the rows that see one; adv8), so both stay bit for bit equal
masked_product = sim.masked_product


def forward(q, k, v, args: FwdArgs, target: str = "gfx9", trace: SimTrace | None = None, with_stats: bool = False,
            key_tiles: tuple[int, int] | None = None):
    """Simulate one forward launch. Shapes as ``flash_attn_func``; returns (out, lse float32 (b, h, sq)), and
    with with_stats=True also the statistics the backward rebuilds P from: (b, h, sq, 2), per row the final
    log2-domain row max m and 1/l (the kernel's softmax_stats; fp64 for fp64 inputs).

    ``key_tiles=(begin, end)`` simulates one split of a split-KV launch: only those K/V tiles are visited
    (intersected with the mask's range) and the partial result comes back unrounded, O in the accumulation
    dtype (normalised by the split's own row sums) and its LSE, as the kernel writes them for the combine."""
    pb = _Problem(q, k, v, args, "fwd", target)
    cfg, dev = pb.cfg, pb.device
    if trace is not None:
        trace.config = cfg
    bm, bn = cfg.block_m, cfg.block_n
    qf, kf, vf = pb.prep(q), pb.prep(k, pb.group), pb.prep(v, pb.group)
    out = torch.empty(pb.batch, pb.nheads, pb.seqlen_q, pb.headdim, dtype=pb.acc, device=dev)
    lse = torch.empty(pb.batch, pb.nheads, pb.seqlen_q, dtype=pb.acc, device=dev)
    stats = torch.empty(pb.batch, pb.nheads, pb.seqlen_q, 2, dtype=pb.acc, device=dev)
    split_ovf = torch.zeros(pb.batch, pb.nheads, pb.seqlen_q, dtype=torch.bool, device=dev)
    neg_inf = torch.tensor(float("-inf"), dtype=pb.acc, device=dev)

    for m_block in reversed(range(-(-pb.seqlen_q // bm))):
        m0, m_end = m_block * bm, min(m_block * bm + bm, pb.seqlen_q)
        rows = torch.arange(m0, m0 + bm, device=dev)
        q_tile = pb.rows(qf, m0, bm)  # rows past seqlen_q load as zero
        m = torch.full((pb.batch, pb.nheads, bm), float("-inf"), dtype=pb.acc, device=dev)
        l = torch.zeros(pb.batch, pb.nheads, bm, dtype=pb.acc, device=dev)
        o = torch.zeros(pb.batch, pb.nheads, bm, cfg.headdim, dtype=pb.acc, device=dev)
        visited = []
        tiles = pb.rule.key_tile_range(m0, m_end, bn)
        if key_tiles is not None:
            tiles = (max(tiles[0], key_tiles[0]), min(tiles[1], key_tiles[1]))
        for t in range(*tiles):
            n0 = t * bn
            cols = torch.arange(n0, n0 + bn, device=dev)
            k_tile, v_tile = pb.rows(kf, n0, bn), pb.rows(vf, n0, bn)
            if q.dtype == torch.float32 and args.softcap == 0:  # eco14: the fp64 sum scaled in fp64, one rounding
                c = float(torch.tensor(args.softmax_scale, dtype=torch.float32)) * LOG2E
                s2 = (q_tile.double() @ k_tile.double().transpose(-1, -2) * c).float()
                if pb.slopes is not None:  # ScoreTransform::from_fp64_sum: ALiBi's term after, in float32
                    a = alibi_anchor(rows.view(-1, 1), pb.seqlen_q, pb.seqlen_k)
                    s2 = s2 - (pb.slopes * LOG2E) * (a - cols.view(1, -1)).abs().to(pb.acc)
            elif q.dtype == torch.float32:  # softcap (eco16): the fp64 sum times cap_scale, one rounding: the cap's t
                c = sim._cap_scale_64(args.softmax_scale, args.softcap)
                cap_arg = (q_tile.double() @ k_tile.double().transpose(-1, -2) * c).float()
                s2, _ = pb.capped_log2(cap_arg, rows, cols)
            else:
                s2, _ = pb.scores_log2(q_tile @ k_tile.transpose(-1, -2), rows, cols)
            masked = pb.rule.tile_needs_mask(m0, m_end, n0, bn)
            if masked:
                keep = pb.visible(rows, cols)
                s2 = torch.where(keep, s2, neg_inf)
            visited.append((t, masked))
            m_new = torch.maximum(m, s2.amax(dim=-1))
            base = torch.where(torch.isneginf(m_new), torch.zeros_like(m_new), m_new)
            alpha = torch.exp2(m - base)
            p = torch.exp2(s2 - base.unsqueeze(-1))
            l = l * alpha + p.sum(dim=-1)
            o = o * alpha.unsqueeze(-1) + (masked_product(pb.round(p), v_tile, keep) if masked else pb.round(p) @ v_tile)
            m = m_new
        if trace is not None:
            trace.blocks.append((m_block, visited))
        n = m_end - m0
        l_valid, m_valid = l[:, :, :n], m[:, :, :n]
        # l == 0: no visible key (out 0, LSE -inf), or the row sees a key and every visible score overflowed to
        # -inf: NaN (eco11); a NaN l (NaN/inf inputs) propagates as NaN
        sees = pb.rule.sees_any_key_grid(torch.arange(m0, m_end, device=dev))
        empty = torch.where(sees, torch.full((), math.nan, dtype=l_valid.dtype, device=dev),
                            torch.zeros((), dtype=l_valid.dtype, device=dev))
        inv_l = torch.where(l_valid == 0, empty, 1.0 / l_valid)
        out[:, :, m0:m_end] = o[:, :, :n, :pb.headdim] * inv_l.unsqueeze(-1)
        lse[:, :, m0:m_end] = torch.where(l_valid == 0, empty - math.inf, (m_valid + torch.log2(l_valid)) / LOG2E)
        split_ovf[:, :, m0:m_end] = (l_valid == 0) & sees
        stats[:, :, m0:m_end, 0], stats[:, :, m0:m_end, 1] = m_valid, inv_l
    if pb.row_shift() is not None:
        lse = lse + pb.row_shift()
    if key_tiles is not None:  # one split's partial (eco11's SplitRowEnd, several splits): O 0, LSE the marker
        out = torch.where(split_ovf.unsqueeze(-1), torch.zeros((), dtype=out.dtype, device=dev), out)
        lse = torch.where(split_ovf, torch.full((), OVERFLOW_SPLIT_LSE, dtype=lse.dtype, device=dev), lse)
        return out.transpose(1, 2), lse
    # the LSE keeps fp64 for fp64 inputs: the simulated backward recomputes P from it (gradcheck precision);
    # flash_attn_func hands callers a float32 copy
    lse_dtype = torch.float64 if q.dtype == torch.float64 else torch.float32
    out = out.transpose(1, 2).to(q.dtype).contiguous()
    return (out, lse.to(lse_dtype), stats) if with_stats else (out, lse.to(lse_dtype))


def backward(q, k, v, out, lse, dout, args: FwdArgs, target: str = "gfx9", trace: SimTrace | None = None,
             stats=None):
    """Simulate the backward launches (preprocess, dK/dV kernel, dQ kernel).

    Inputs as the forward's plus its ``out``, ``dout`` (q's shape) and either ``stats`` (the forward's
    ``with_stats=True`` output, as the kernels use: P = exp2(S2 - m) / l, never above 1) or ``lse``
    (b, h, sq) (P = exp2(S2 - LSE * log2(e)), exact only while |LSE| * 2^-24 is negligible). Returns
    (dq, dk, dv) in the inputs' dtype and shapes. ``trace`` records the dK/dV kernel's tiling.
    """
    pb = _Problem(q, k, v, args, "bwd_dkdv", target)
    dev, acc = pb.device, pb.acc
    qf, kf, vf, dof = pb.prep(q), pb.prep(k, pb.group), pb.prep(v, pb.group), pb.prep(dout)
    delta = sim.preprocess_delta(dout, out).transpose(1, 2)  # (b, h, sq): the preprocess kernel
    if stats is None:  # from the LSE: m = (LSE - ALiBi row shift) * log2(e), 1/l = 1
        row_max = (lse.to(acc) if pb.row_shift() is None else lse.to(acc) - pb.row_shift()) * LOG2E
        inv_l = torch.ones_like(row_max)
    else:
        row_max, inv_l = stats[..., 0].to(acc), stats[..., 1].to(acc)
    row_max = torch.where(torch.isposinf(row_max), torch.full_like(row_max, float("nan")), row_max)  # overflowed rows
    # rows that saw no key and rows past seqlen_q: m = +inf and 1/l = 0, P = 0 (exp2(S2 + inf) * 0 would be NaN)
    inv_l = torch.where(torch.isneginf(row_max), torch.zeros_like(inv_l), inv_l)
    row_max = torch.where(torch.isneginf(row_max), torch.full_like(row_max, float("inf")), row_max)

    def dot(a, b, every_dtype=False):  # a . b^T; float32 inputs (every_dtype: 16-bit too): correctly rounded
        if pb.dtype == torch.float64 or (pb.dtype != torch.float32 and not every_dtype):  # as the sim's exact_dot
            return a @ b.transpose(-1, -2)
        return (a.double() @ b.double().transpose(-1, -2)).float()

    # float32 / float64 with the statistics pass (eco12): x = score - row_max (float32 without softcap: S's fp64 sum,
    # rounded once, in the kernels' ascending order: sim._fp64_ascending; ALiBi's term after that in float32, eco13),
    # P = exp2(x - m_shift) * (1/l)
    shifted = stats is not None and q.dtype in (torch.float32, torch.float64)
    m_shift = torch.zeros_like(row_max)

    def x_of(q_tile, k_tile, rows, cols, ref):  # ref (b, h, bm) -> (x (b, h, bm, bn), g)
        if pb.dtype == torch.float32 and args.softcap == 0:
            # with the statistics pass: x = raw * c - ref in fp64, rounded once; from an LSE (eco15): the forward's
            # score float32(raw * c), then - ref in float32; ALiBi's term after the rounding in float32 in both
            c = float(torch.tensor(args.softmax_scale, dtype=torch.float32)) * LOG2E
            ref64 = ref.double().unsqueeze(-1).unsqueeze(2)

            def post(raw):  # raw (b, h, 1, bm, bn)
                return raw * c - ref64 if shifted else raw * c
            a, b = q_tile.double().unsqueeze(2), k_tile.double().transpose(-1, -2).unsqueeze(2)
            x = sim._fp64_ascending(a, b, [0], post=post).squeeze(2)
            if pb.slopes is not None:  # ScoreTransform::shifted_alibi_log2 / from_fp64_sum
                dist = (alibi_anchor(rows.view(-1, 1), pb.seqlen_q, pb.seqlen_k) - cols.view(1, -1)).abs().to(pb.acc)
                x = x - (pb.slopes * LOG2E) * dist
            return (x if shifted else x - ref.unsqueeze(-1)), 1.0
        if pb.dtype == torch.float32:  # softcap (eco16): t = float32(S_fp64 * cap_scale) for the score and g
            c = sim._cap_scale_64(args.softmax_scale, args.softcap)
            a, b = q_tile.double().unsqueeze(2), k_tile.double().transpose(-1, -2).unsqueeze(2)
            s2, g = pb.capped_log2(sim._fp64_ascending(a, b, [0], post=lambda raw: raw * c).squeeze(2), rows, cols)
            return s2 - ref.unsqueeze(-1), g
        s2, g = pb.scores_log2(dot(q_tile, k_tile), rows, cols)
        return s2 - ref.unsqueeze(-1), g

    if stats is not None and q.dtype in (torch.float32, torch.float64):  # the fp32 dQ kernel's statistics pass
        cfg = select_config("bwd_dq", target, _DTYPE_NAMES[q.dtype], pb.headdim)
        qd, kd, vd, dod = (F.pad(x[..., :pb.headdim], (0, cfg.headdim - pb.headdim)) for x in (qf, kf, vf, dof))
        m = torch.full((pb.batch, pb.nheads, pb.seqlen_q), float("-inf"), dtype=acc, device=dev)
        l, d = torch.zeros_like(m), torch.zeros_like(m)
        for m_block in range(-(-pb.seqlen_q // cfg.block_m)):
            ref = F.pad(row_max[:, :, m_block * cfg.block_m:min(m_block * cfg.block_m + cfg.block_m, pb.seqlen_q)],
                        (0, max(0, m_block * cfg.block_m + cfg.block_m - pb.seqlen_q)), value=float("inf"))
            m0 = m_block * cfg.block_m
            m_end = min(m0 + cfg.block_m, pb.seqlen_q)
            q_tile, do_tile = pb.rows(qd, m0, cfg.block_m), pb.rows(dod, m0, cfg.block_m)
            mt = torch.full((pb.batch, pb.nheads, cfg.block_m), float("-inf"), dtype=acc, device=dev)
            lt, dt = torch.zeros_like(mt), torch.zeros_like(mt)
            for t in range(*pb.rule.key_tile_range(m0, m_end, cfg.block_n)):
                n0 = t * cfg.block_n
                k_tile, v_tile = pb.rows(kd, n0, cfg.block_n), pb.rows(vd, n0, cfg.block_n)
                rows = torch.arange(m0, m0 + cfg.block_m, device=dev)
                cols = torch.arange(n0, n0 + cfg.block_n, device=dev)
                x, _ = x_of(q_tile, k_tile, rows, cols, ref)
                dp = dot(do_tile, v_tile, True)
                if pb.rule.tile_needs_mask(m0, m_end, n0, cfg.block_n):
                    x = torch.where(pb.visible(rows, cols), x, float("-inf"))
                m_new = torch.fmax(mt, x.nan_to_num(nan=float("-inf")).amax(-1))
                base = torch.where(torch.isneginf(m_new), torch.zeros_like(m_new), m_new)
                e = torch.exp2(x - base.unsqueeze(-1))
                alpha = torch.exp2(mt - base)
                pdp = torch.where(torch.isneginf(x), torch.zeros_like(e), e * dp)
                lt, dt, mt = lt * alpha + e.sum(-1), dt * alpha + pdp.sum(-1), m_new
            m[:, :, m0:m_end], l[:, :, m0:m_end], d[:, :, m0:m_end] = (x[:, :, :m_end - m0] for x in (mt, lt, dt))
        m_shift = torch.where(torch.isneginf(m), torch.zeros_like(m), m)
        inv_l = torch.where(l == 0, torch.zeros_like(l), 1 / l)
        delta = d * inv_l  # the kernel: D = rowsum(P * dP) * (1/l)

    def tile_grads(m0, n0, bm, bn, q_tile, do_tile, k_tile, v_tile):
        """P and dS of one (query tile, key tile), rounded to the element type as the kernels store them."""
        rows, cols = torch.arange(m0, m0 + bm, device=dev), torch.arange(n0, n0 + bn, device=dev)
        pad = (0, max(0, m0 + bm - pb.seqlen_q))
        m_t = F.pad(row_max[:, :, m0:min(m0 + bm, pb.seqlen_q)], pad, value=float("inf"))
        x, g = x_of(q_tile, k_tile, rows, cols, m_t)
        inv_l_t = F.pad(inv_l[:, :, m0:min(m0 + bm, pb.seqlen_q)], pad)
        shift_t = F.pad(m_shift[:, :, m0:min(m0 + bm, pb.seqlen_q)], pad)
        p = torch.exp2(x - shift_t.unsqueeze(-1) if shifted else x) * inv_l_t.unsqueeze(-1)
        delta_t = F.pad(delta[:, :, m0:min(m0 + bm, pb.seqlen_q)], (0, max(0, m0 + bm - pb.seqlen_q)))
        ds = p * (dot(do_tile, v_tile, True) - delta_t.unsqueeze(-1)) * g
        masked = pb.rule.tile_needs_mask(m0, min(m0 + bm, pb.seqlen_q), n0, bn)
        keep = None
        if masked:  # selects: S and dP of a masked key may be NaN (its K or V row), and 0 * NaN = NaN
            keep = pb.visible(rows, cols)
            p = torch.where(keep, p, torch.zeros_like(p))
            ds = torch.where(keep, ds, torch.zeros_like(ds))
        return pb.round(p), pb.round(ds), keep

    # dK/dV kernel: per key block, every query head of the group, the query tiles that see the keys
    cfg = pb.cfg
    if trace is not None:
        trace.config = cfg
    dk = torch.zeros(pb.batch, pb.nheads, pb.seqlen_k, cfg.headdim, dtype=acc, device=dev)
    dv = torch.zeros_like(dk)
    for n_block in range(-(-pb.seqlen_k // cfg.block_n)):
        n0 = n_block * cfg.block_n
        k_tile, v_tile = pb.rows(kf, n0, cfg.block_n), pb.rows(vf, n0, cfg.block_n)
        dk_acc = torch.zeros(pb.batch, pb.nheads, cfg.block_n, cfg.headdim, dtype=acc, device=dev)
        dv_acc = torch.zeros_like(dk_acc)
        visited = []
        for t in range(*pb.rule.query_tile_range(n0, min(n0 + cfg.block_n, pb.seqlen_k), cfg.block_m)):
            m0 = t * cfg.block_m
            q_tile, do_tile = pb.rows(qf, m0, cfg.block_m), pb.rows(dof, m0, cfg.block_m)
            p, ds, keep = tile_grads(m0, n0, cfg.block_m, cfg.block_n, q_tile, do_tile, k_tile, v_tile)
            dv_acc += p.transpose(-1, -2) @ do_tile
            dk_acc += ds.transpose(-1, -2) @ q_tile
            visited.append((t, keep is not None))
        if trace is not None:
            trace.blocks.append((n_block, visited))
        n = min(cfg.block_n, pb.seqlen_k - n0)
        dk[:, :, n0:n0 + n] = dk_acc[:, :, :n] * args.softmax_scale
        dv[:, :, n0:n0 + n] = dv_acc[:, :, :n]

    # dQ kernel: per query block, the key tiles its rows see
    cfg = select_config("bwd_dq", target, _DTYPE_NAMES[q.dtype], pb.headdim)
    dq = torch.zeros(pb.batch, pb.nheads, pb.seqlen_q, cfg.headdim, dtype=acc, device=dev)
    qf, kf, vf, dof = (F.pad(x[..., :pb.headdim], (0, cfg.headdim - pb.headdim)) for x in (qf, kf, vf, dof))
    for m_block in range(-(-pb.seqlen_q // cfg.block_m)):
        m0 = m_block * cfg.block_m
        m_end = min(m0 + cfg.block_m, pb.seqlen_q)
        q_tile, do_tile = pb.rows(qf, m0, cfg.block_m), pb.rows(dof, m0, cfg.block_m)
        dq_acc = torch.zeros(pb.batch, pb.nheads, cfg.block_m, cfg.headdim, dtype=acc, device=dev)
        for t in range(*pb.rule.key_tile_range(m0, m_end, cfg.block_n)):
            n0 = t * cfg.block_n
            k_tile, v_tile = pb.rows(kf, n0, cfg.block_n), pb.rows(vf, n0, cfg.block_n)
            _, ds, keep = tile_grads(m0, n0, cfg.block_m, cfg.block_n, q_tile, do_tile, k_tile, v_tile)
            dq_acc += ds @ k_tile if keep is None else masked_product(ds, k_tile, keep)
        dq[:, :, m0:m_end] = dq_acc[:, :, :m_end - m0] * args.softmax_scale

    def finish(x, heads):  # (b, h, s, bucket) -> (b, s, heads, headdim), GQA groups summed
        x = x[..., :pb.headdim]
        if heads != pb.nheads:
            x = x.view(pb.batch, heads, pb.group, *x.shape[2:]).sum(dim=2)
        return x.transpose(1, 2).to(q.dtype).contiguous()

    return finish(dq, pb.nheads), finish(dk, pb.nheads_k), finish(dv, pb.nheads_k)
