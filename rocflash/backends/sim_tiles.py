"""The ``sim`` backend's tiling model, shared by its forward (:mod:`rocflash.backends.sim`) and backward
(:mod:`rocflash.backends.sim_backward`) launches and the split-KV kernel (:mod:`rocflash.backends.sim_splitkv`):
inputs as the kernels see them (_Problem: tile config, headdim bucket, GQA repeat, mask rule, ALiBi slopes), the
score transform (hip_src/fmha_common.h ScoreTransform), float32's fp64 sum of Q.K^T in the kernels' order
(_fp64_ascending), boundary tiles' masked products, and the batched (block, tile) pairs of one main-loop step.

Vectorised without changing a rounding: batch, heads and all blocks of the grid run together, one main-loop
step at a time (step s of every block: its s-th tile, gathered). Each (block, tile) keeps its own Br x Bc
(x headdim bucket) products and the same elementwise recurrences in the same order, so the results are
bit-for-bit those of one Python loop per block and tile (tests/test_sim_vectorised.py checks that against
the loop version). Boundary tiles with non-finite operands take masked_product tile by tile, as before.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import torch
import torch.nn.functional as F

from ..configs import TileConfig, select_config
from ..masks import MaskRule
from . import FwdArgs
from .seqlayout import alibi_anchor, alibi_row_shift

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

    def row_shift(self):
        """(b, h, sq) in the accumulation dtype: the ALiBi constant of each row that the forward and backward
        kernels leave out of their scores (_Tiles.scores_log2) and the LSE carries (seqlayout.alibi_row_shift);
        None without ALiBi."""
        if self.slopes is None:
            return None
        return alibi_row_shift(self.slopes.view(self.batch, self.nheads), self.batch, self.nheads, self.seqlen_q,
                               self.seqlen_k, self.device, self.acc)

    def scores_log2(self, raw, rows, cols, prescaled: bool = False):
        """Raw Q.K^T -> score in log2 units, the split-KV decode kernel's score (hip_src/fmha_splitkv_kernel.h,
        sim_splitkv): ALiBi as -slope * |anchor(i) - j| (seqlayout.alibi_anchor) as the dense kernels' ScoreTransform
        (_Tiles.scores_log2), the row's constant left to the LSE (row_shift; eco14: the full distance overflowed
        float32 on rows far from every key at slopes ~1e37). ``raw`` float64 for float32 inputs (the kernels' fp64
        sum): without softcap scaled in fp64 and rounded once, float32(raw * scale_log2) (q.k past float32 with a
        small softmax_scale keeps its finite score; eco14), ALiBi's term then in float32; with softcap the sum times
        cap_scale rounded once, the cap's argument t (eco16: the float32 q.k was -inf past FLT_MAX). ``prescaled``:
        ``raw`` is already the split-KV kernel's float32 lane tree of its rounded, fp64_multiplier-scaled lane
        partials (sim_splitkv.lane_tree_fp32; ScoreTransform::from_fp64_sum takes it on): the score, or with softcap t.
        Returns (score_log2, g) with g = d(score)/d(raw) / softmax_scale."""
        a = self.args
        dist = None
        if self.slopes is not None:
            dist = (alibi_anchor(rows.view(-1, 1), self.seqlen_q, self.seqlen_k) - cols.view(1, -1)).abs().to(self.acc)
        if prescaled or (raw.dtype == torch.float64 and self.acc == torch.float32):
            if a.softcap == 0:
                x = raw if prescaled else (raw * _scale_log2_64(a.softmax_scale)).float()
                return (x if dist is None else x - (self.slopes * LOG2E) * dist), 1.0
            t = raw if prescaled else (raw * _cap_scale_64(a.softmax_scale, a.softcap)).float()
            return capped_log2(a.softcap, t, None if dist is None else self.slopes * dist)
        if a.softcap == 0 and self.slopes is None:
            return raw * (a.softmax_scale * LOG2E), 1.0
        if a.softcap > 0:
            return capped_log2(a.softcap, raw * (a.softmax_scale / a.softcap),
                               None if dist is None else self.slopes * dist)
        x = raw * a.softmax_scale
        if dist is not None:
            x = x - self.slopes * dist
        return x * LOG2E, 1.0


def _scale_log2_64(softmax_scale: float) -> float:
    """ScoreTransform::scale_log2_64: float32(softmax_scale) * log2(e) in fp64 (one rounding)."""
    return float(torch.tensor(softmax_scale, dtype=torch.float32)) * LOG2E


def _cap_scale_64(softmax_scale: float, softcap: float) -> float:
    """ScoreTransform::cap_scale widened to fp64 (fp64_multiplier with softcap, eco16): float32(softmax_scale) /
    float32(softcap), one float32 division (subnormal below FLT_MIN, e.g. 1e-38 / 5: the kernels keep subnormals
    there, gfx906 denorm mode 3 and CUDA without ftz)."""
    f32 = torch.float32
    return float(torch.tensor(softmax_scale, dtype=f32) / torch.tensor(softcap, dtype=f32))


def fp64_multiplier(args: FwdArgs) -> float:
    """ScoreTransform::fp64_multiplier: what float32 inputs' fp64 sum of Q.K^T is multiplied by before its one
    rounding: scale_log2_64 without softcap, double(cap_scale) with it (eco14, eco16)."""
    return _scale_log2_64(args.softmax_scale) if args.softcap == 0 else _cap_scale_64(args.softmax_scale, args.softcap)


def capped_log2(softcap: float, t, bias=None):
    """ScoreTransform::capped_log2: the cap's argument t (raw * softmax_scale / softcap) -> (score_log2, g):
    softcap * tanh(t), less ALiBi's ``bias`` (slope * distance, natural units), * log2(e); g = 1 - tanh(t)^2
    (d(score)/d(raw) / softmax_scale; fmha_bwd_kernel.h softcap_grad_factor takes the same t)."""
    th = torch.tanh(t)
    x = softcap * th
    if bias is not None:
        x = x - bias
    return x * LOG2E, 1 - th * th


def masked_product(a, b, keep):
    """sum_j a[..., i, j] * b[..., j, :] over the j with keep[i, j] only: a boundary tile's product, where a
    masked (i, j) (a = 0) must not multiply b's row j, which may hold NaN or inf (hip_src/fmha_tile_math.h
    ANDs those operand elements to +0). Bit for bit a @ b of the same tile with finite values in b's masked rows:
    a is exactly 0 at masked (i, j), so a @ b with b's non-finite elements zeroed gives every row that sees none
    of them the clean run's bits (summed in the same order); only rows that see one take the per-element
    broadcast (their NaN / inf). The broadcast alone summed every row in another order, and garbage in a masked
    key moved rows that cannot see it by an ulp (adv8; tests/test_masked_garbage.py
    test_unseen_garbage_changes_no_bit)."""
    finite = torch.isfinite(b)
    if bool(finite.all()):
        return a @ b
    zero = torch.zeros((), dtype=b.dtype, device=b.device)
    r = a @ torch.where(finite, b, zero)
    sees = (keep & ~finite.all(-1).unsqueeze(-2)).any(-1)  # (..., M): rows that see a non-finite element
    if not bool(sees.any()):
        return r
    b_kept = torch.where(keep.unsqueeze(-1), b.unsqueeze(-3), zero)
    return torch.where(sees.unsqueeze(-1), (a.unsqueeze(-1) * b_kept).sum(dim=-2), r)


def _tiles(x, size: int, count: int):
    """(b, h, s, d) -> (b, h, count, size, d): tile i holds rows [i*size, i*size + size), zero past the end
    (the kernel's loads; as _Problem.rows per tile)."""
    s = x.shape[2]
    x = x[:, :, :count * size] if s > count * size else F.pad(x, (0, 0, 0, count * size - s))
    return x.reshape(*x.shape[:2], count, size, x.shape[-1])


def _run(idx) -> bool:
    return idx == list(range(idx[0], idx[0] + len(idx)))


def _pick(x, idx, dim: int = 2):
    """The tiles ``idx`` (a python list) of ``x`` along ``dim``: a view for a run of consecutive tiles."""
    if _run(idx):
        return x.narrow(dim, idx[0], len(idx))
    return x.index_select(dim, torch.tensor(idx, device=x.device))


def _matmul(a, b, idx):
    """a @ _pick(b, idx) for a (b, h, pairs, M, K) and the tiles b (b, h, tiles, K, N): when every pair reads the
    same tile, one (pairs * M) x K x N product per head instead of gathering copies of it."""
    if len(idx) > 1 and idx.count(idx[0]) == len(idx) and b.dim() == 5:
        shared = b.select(2, idx[0])  # (b, h, K, N)
        return (a.reshape(*a.shape[:2], -1, a.shape[-1]) @ shared).view(*a.shape[:-1], shared.shape[-1])
    return a @ _pick(b, idx)


def _score_operands(a, b, dtype):
    """(A, B^T) for S = A . B^T of inputs of ``dtype`` (the tiles a, b are in the accumulation dtype): for float32
    inputs float64 copies, whose product rounded once to float32 is the
    compiled kernels' fp32 score (hip_src/fmha_tile_math.h tile_rowdot_fp64: exact fp32 products summed in fp64
    over headdim, one rounding, ascending d: _fp64_ascending re-sums in that order the elements where torch's order
    could round differently). Other dtypes: unchanged (fp64 inputs: fp64)."""
    if dtype == torch.float32:
        return a.double(), b.double().transpose(-1, -2)
    return a, b.transpose(-1, -2)


def _fp64_ascending(a, b, idx, b_norm=None, post=None):
    """a @ _pick(b, idx) rounded once to float32 as hip_src's tile_rowdot_fp64 sums it: a (b, h, pairs, M, D) and
    the tiles b (b, h, tiles, D, N) in float64 holding float32 values; each product is exact in fp64 and the kernels
    add them in ascending d (one v_fma_f64 each, from +0). torch's fp64 matmul sums in another order: the two fp64
    sums differ by at most 2 D 2^-53 sum_d |a_d b_d| <= 2 D 2^-53 |a| |b| (Cauchy-Schwarz), so the float32 bits can
    differ only where that interval straddles a float32 rounding boundary, which products that cancel (|a . b| far
    below |a| |b|, e.g. 1e20 * 1e20 - 1e20 * 1e20 + small) make common. Those elements are summed again in the
    kernels' order (found by adv15: the emulated gfx906 code gave the exact score there, the sim did not).
    ``b_norm``: b.norm(dim=-2, keepdim=True), when the caller keeps it for all steps. ``post``: an elementwise
    monotone fp64 map (non-decreasing or non-increasing, e.g. the fp64 shifted score, _Tiles.shifted_log2)
    applied to the fp64 sums before the one rounding to float32, as the kernels' epilogue does."""
    s = _matmul(a, b, idx)
    b_norm = b.norm(dim=-2, keepdim=True) if b_norm is None else b_norm
    err = (2 * a.shape[-1] * 2.0**-53) * (a.norm(dim=-1, keepdim=True) @ _pick(b_norm, idx))
    post = (lambda t: t) if post is None else post
    # rounding (and post) is monotone: where s - err and s + err round to one float32 value, every sum in between
    # does. inf sums are the same in every order (fp32 products cannot overflow an fp64 sum of <= 256 of them).
    # (NaN sums are redone too, to NaN: only NaN / inf inputs make them)
    out = post(s - err).float()
    redo = out != post(s + err).float()  # where not redone, out is post(s) rounded to float32
    if bool(redo.any()):
        bt = _pick(b, idx)
        rows = a.unsqueeze(-2).expand(*s.shape, a.shape[-1])[redo]  # (F, D)
        cols = bt.transpose(-1, -2).unsqueeze(-3).expand(*s.shape, a.shape[-1])[redo]
        wide = torch.zeros(rows.shape[0], dtype=torch.float64, device=s.device)
        for d in range(rows.shape[-1]):
            wide = wide + rows[:, d] * cols[:, d]  # the exact product, one rounding per add: v_fma_f64
        s[redo] = wide
        out[redo] = post(s).float()[redo]
    return out


def _update(x, idx, fn, dim: int = 2):
    """x[..., idx, ...] = fn(x[..., idx, ...]) along ``dim``: in place on the view for a run of tiles."""
    if _run(idx):
        view = x.narrow(dim, idx[0], len(idx))
        view.copy_(fn(view))
    else:
        _put(x, idx, fn(_pick(x, idx, dim)), dim)


def _put(x, idx, value, dim: int = 2):
    """x[..., idx, ...] = value along ``dim`` (idx as in _pick, without repeats)."""
    if _run(idx):
        x.narrow(dim, idx[0], len(idx)).copy_(value)
    else:
        x.index_copy_(dim, torch.tensor(idx, device=x.device), value)


def _schedule(ranges):
    """Main-loop steps of a grid: ranges[blk] = (begin, end) tiles of block blk, walked in ascending order.
    Returns per step s the blocks still running and the tile each visits: [(blocks, tiles)]."""
    steps = max((e - b for b, e in ranges), default=0)
    out = []
    for s in range(steps):
        blocks = [i for i, (b, e) in enumerate(ranges) if b + s < e]
        out.append((blocks, [ranges[i][0] + s for i in blocks]))
    return out


class _Tiles:
    """The (block, tile) pairs of one main-loop step, batched along a new dim 2: row and column indices,
    the per-tile masked decisions and, for the masked ones, the per-element visibility."""

    def __init__(self, pb: _Problem, m0s, n0s, bm: int, bn: int, masked):
        dev = pb.device
        self.rows = (torch.tensor(m0s, device=dev).view(-1, 1) + torch.arange(bm, device=dev)).view(-1, bm, 1)
        self.cols = (torch.tensor(n0s, device=dev).view(-1, 1) + torch.arange(bn, device=dev)).view(-1, 1, bn)
        self.masked = masked
        self.keep = None
        if any(masked):  # the boundary tiles' predicate (pb.visible), all True on interior tiles of the step
            r, c, rule = self.rows, self.cols, pb.rule
            ok = (c >= 0) & (c < rule.seqlen_k) & (r < rule.seqlen_q)
            if rule.window_left >= 0:
                ok = ok & (c >= r + rule.seqlen_k - rule.seqlen_q - rule.window_left)
            if rule.window_right >= 0:
                ok = ok & (c <= r + rule.seqlen_k - rule.seqlen_q + rule.window_right)
            interior = torch.tensor([not m for m in masked], device=dev).view(-1, 1, 1)
            self.keep = ok | interior

    def scores_log2(self, pb: _Problem, raw):
        """Raw Q.K^T -> score in log2 units on the batched pairs, as ScoreTransform in hip_src/fmha_common.h: ALiBi
        as -slope * |anchor(i) - j| (seqlayout.alibi_anchor), the row's constant left to the LSE (pb.row_shift).
        Returns (score_log2, g) with g = d(score)/d(raw) / softmax_scale."""
        a = pb.args
        if a.softcap == 0 and pb.slopes is None:
            return raw * (a.softmax_scale * LOG2E), 1.0
        dist = None if pb.slopes is None else self.alibi_dist(pb)
        if a.softcap == 0:  # ALiBi alone: one product in log2 units (no second rounding of a large score by log2(e))
            return raw * (a.softmax_scale * LOG2E) - (pb.slopes * LOG2E).unsqueeze(-1) * dist, 1.0
        return self.capped_log2(pb, raw * (a.softmax_scale / a.softcap))

    def capped_log2(self, pb: _Problem, t):
        """The capped score of the cap's argument t on the pairs (ScoreTransform::capped_log2): float32 inputs pass
        t = float32(S_fp64 * cap_scale) (fp64_multiplier, eco16), 16-bit raw * (softmax_scale / softcap)."""
        bias = None if pb.slopes is None else pb.slopes.unsqueeze(-1) * self.alibi_dist(pb)
        return capped_log2(pb.args.softcap, t, bias)

    def alibi_dist(self, pb: _Problem):
        """|anchor(i) - j| of the pairs, in the accumulation dtype (ALiBi's distance, seqlayout.alibi_anchor)."""
        return (alibi_anchor(self.rows, pb.seqlen_q, pb.seqlen_k) - self.cols).abs().to(pb.acc)

    def shifted_alibi_log2(self, pb: _Problem, x):
        """The shifted score's ALiBi term (hip_src/fmha_common.h ScoreTransform::shifted_alibi_log2): x - slope_log2 *
        |anchor(i) - j| in float32, after x = raw * c - ref was rounded once (shifted_log2). The ALiBi term stays
        out of the fp64 value: x then holds about bias_j + (the row's score spread), so its one rounding and the
        float32 subtraction each carry |bias| * 2^-24, not |S2| * 2^-24 (issue 8, eco13). x unchanged without
        ALiBi."""
        if pb.slopes is None:
            return x
        return x - (pb.slopes * LOG2E).unsqueeze(-1) * self.alibi_dist(pb)

    @staticmethod
    def shifted_log2(pb: _Problem, ref):
        """float32 inputs with the statistics pass, no softcap (ALiBi: shifted_alibi_log2 after this): the backward's
        score relative to its row's reference ``ref`` (b, h, pairs, Br, 1), the row max (log2 units) its statistics
        were taken against, as a map
        of the fp64 sum of Q.K^T (hip_src/fmha_common.h ScoreTransform::shifted_log2): x = raw * c - ref, each step
        an fp64 operation rounded on its own (no FMA), c = float32(softmax_scale) * log2(e) in fp64; the caller
        rounds x once to float32 (_fp64_ascending's ``post``). Rounding S (|S2| ~ 3000 at softmax_scale 50) to
        float32 before the shift put |S2| * 2^-24 into every exp2 argument of the backward's P (adv15: dq 2.02x the
        rule on rows whose softmax splits over two keys); the shifted x carries |x| * 2^-24 (and the fp64 sum's
        2^-53 terms). ALiBi's term is subtracted after the rounding, in float32 (shifted_alibi_log2); softcap keeps
        the float32 score (hip_src/fmha_bwd_kernel.h shifted_variant)."""
        c = float(torch.tensor(pb.args.softmax_scale, dtype=torch.float32)) * LOG2E
        ref = ref.double()
        return lambda raw: raw * c - ref

    def product(self, a, b, tiles, product):
        """a @ b[tile] per pair; a masked pair whose b tile is not finite goes through masked_product, as alone."""
        r = _matmul(a, b, tiles)
        for i, m in enumerate(self.masked):
            if m and not bool(torch.isfinite(b[:, :, tiles[i]]).all()):
                r[:, :, i] = product(a[:, :, i], b[:, :, tiles[i]], self.keep[i])
        return r

def empty_row(rule: MaskRule, l, device):
    """1/l of rows whose l is 0 (broadcast over ``l`` (..., seqlen_q)): 0 for rows that see no key, NaN for rows
    that see one (every visible score overflowed float32 to -inf; hip_src/fmha_common.h empty_row_inv_l). Minus
    inf: their LSE (-inf or NaN)."""
    sees = rule.sees_any_key_grid(torch.arange(l.shape[-1], device=device))
    return torch.where(sees, torch.full((), math.nan, dtype=l.dtype, device=device),
                       torch.zeros((), dtype=l.dtype, device=device))
