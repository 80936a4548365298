"""The ``sim`` backend: the kernels' exact tiling, simulated with torch (the golden model).

Same tile sizes as the compiled instances (from ``ck_configs/``, same headdim bucket and zero padding),
the same block order, the same tile ranges per block and the same masked/unmasked decision per tile
(``rocflash.masks``, the mirror of ``hip_src/fmha_mask.h``), and the same recurrences in the log2 domain
with fp32 state (fp64 for float64 inputs, so that ``torch.autograd.gradcheck`` can run on it).

Forward (hip_src/fmha_fwd_kernel.h)::

    S = Q . K^T                        float32 inputs: each element the fp64 sum of the exact products, rounded
                                       once (the kernels' tile_rowdot_fp64); 16-bit: torch's fp32 product
    m' = max(m, rowmax(S2))            S2 = score * log2(e)
    base = 0 if m' == -inf else m'     (a row that has seen no visible key stays at 0 / -inf)
    alpha = exp2(m - base);  P = exp2(S2 - base)
    l = l * alpha + rowsum(P)          (rowsum of the fp32 P)
    O = O * alpha + round_to_dtype(P) . V   (the kernel stores P in LDS in the element type; on boundary
                                             tiles a masked (i, j) never multiplies V row j: masked_product)
    out = O / l (0 if l == 0),  LSE = (m + log2 l) * ln 2 (-inf if l == 0)

Backward (hip_src/fmha_bwd_kernel.h)::

    D = rowsum(dO * O)            (preprocess_delta: dO . O in dP's arithmetic plus dO . (O_fp32 - O);
                                   float32 / float64 inputs with the forward's stats: the dQ kernel's statistics
                                   pass instead, launched first: m, l by the forward's recurrence on the backward's
                                   own S and D = rowsum(P * dP) * (1/l); S and dP correctly rounded here, the same
                                   bits in every pass, as the kernels' fixed per-element order; own_stats_pass)
    P = exp2(S2 - m) * (1/l)      (the forward's final row max and 1/l; 0 where masked, and for rows with l = 0;
                                   with the statistics pass P = exp2(x - shift) * (1/l), x = S2 - m (the forward's
                                   m) and shift, 1/l, D the pass's, over x; float32 without softcap: x from
                                   S's fp64 sum, rounded once, _Tiles.shifted_log2, ALiBi's term
                                   after it in float32, _Tiles.shifted_alibi_log2; from an LSE alone,
                                   float32 without softcap: S2 the forward's own, the fp64 sum times
                                   scale_log2 rounded once, ALiBi's term after it in float32, then - m)
    dS = P * (dP - D) * g,  dP = dO . V^T,  g = 1 or 1 - tanh^2 (softcap)
                                  (S and dP correctly rounded: for float32 inputs the kernels' fp64 sum of exact
                                  products, rounded once (tile_rowdot_fp64); for 16-bit dP the model of the
                                  kernels' fixed per-element fp32 order)
    dK/dV kernel, per key block and query tile:  dV += round(P)^T . dO,  dK += round(dS)^T . Q
    dQ kernel, per query block and key tile:     dQ += round(dS) . K   (boundary tiles: masked_product)
    boundary tiles select P and dS to 0 where masked (never 0 * a NaN of an unseen K/V row)
    dQ, dK scaled by softmax_scale at the end; dK, dV summed over the query heads of each GQA group

Vectorised without changing a rounding: batch, heads and all blocks of the grid run together, one main-loop
step at a time (step s of every block: its s-th tile, gathered). Each (block, tile) keeps its own Br x Bc
(x headdim bucket) products and the same elementwise recurrences in the same order, so the results are
bit-for-bit those of one Python loop per block and tile (tests/test_sim_vectorised.py checks that against
the loop version). Boundary tiles with non-finite operands take masked_product tile by tile, as before.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import torch
import torch.nn.functional as F

from ..configs import TileConfig, select_config
from ..masks import MaskRule
from .. import splitkv
from . import FwdArgs, SeqArgs
from .seqlayout import alibi_anchor, alibi_for, alibi_row_shift, sequence_kv, sequences
from .splits import OVERFLOW_SPLIT_LSE

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


def forward(q, k, v, args: FwdArgs, target: str = "gfx9", trace: SimTrace | None = None, with_stats: bool = False,
            key_tiles: tuple[int, int] | None = None, with_out_fp32: bool = False):
    """Simulate one forward launch. Shapes as ``flash_attn_func``; returns (out, lse float32 (b, h, sq)), and
    with with_stats=True also the statistics the backward rebuilds P from: (b, h, sq, 2), per row the final
    log2-domain row max m and 1/l (the kernel's softmax_stats; fp64 for fp64 inputs). ``with_out_fp32=True``
    appends O before its rounding to the inputs' dtype, float32, as the store stage writes it for a training
    forward (hip_src/fmha_fwd_params.h ``o_fp32``; None for fp32 and fp64 inputs: out is that copy).

    ``key_tiles=(begin, end)`` simulates one split of a split-KV launch: only those K/V tiles are visited
    (intersected with the mask's range) and the partial result comes back unrounded, O in the accumulation
    dtype (normalised by the split's own row sums) and its LSE, as the kernel writes them for the combine."""
    pb = _Problem(q, k, v, args, "fwd", target)
    cfg, dev = pb.cfg, pb.device
    if trace is not None:
        trace.config = cfg
    bm, bn = cfg.block_m, cfg.block_n
    n_blocks, n_tiles = -(-pb.seqlen_q // bm), -(-pb.seqlen_k // bn)
    bounds = [(i * bm, min(i * bm + bm, pb.seqlen_q)) for i in range(n_blocks)]
    ranges = []
    for m0, m_end in bounds:
        r = pb.rule.key_tile_range(m0, m_end, bn)
        if key_tiles is not None:
            r = (max(r[0], key_tiles[0]), min(r[1], key_tiles[1]))
        ranges.append(r if r[0] < r[1] else (0, 0))
    if trace is not None:  # launch order: the last query block first
        for i in reversed(range(n_blocks)):
            m0, m_end = bounds[i]
            trace.blocks.append((i, [(t, pb.rule.tile_needs_mask(m0, m_end, t * bn, bn)) for t in range(*ranges[i])]))

    qt = _tiles(pb.prep(q), bm, n_blocks)  # (b, h, blocks, Br, bucket); rows past seqlen_q load as zero
    kt, vt = _tiles(pb.prep(k, pb.group), bn, n_tiles), _tiles(pb.prep(v, pb.group), bn, n_tiles)
    m = torch.full((pb.batch, pb.nheads, n_blocks, bm), float("-inf"), dtype=pb.acc, device=dev)
    l = torch.zeros(pb.batch, pb.nheads, n_blocks, bm, dtype=pb.acc, device=dev)
    o = torch.zeros(pb.batch, pb.nheads, n_blocks, bm, cfg.headdim, dtype=pb.acc, device=dev)
    neg_inf = torch.tensor(float("-inf"), dtype=pb.acc, device=dev)

    # float32: S = Q.K^T accumulated in fp64 and rounded once (_score_operands), as hip_src's tile_rowdot_fp64
    qs, kst = _score_operands(qt, kt, pb.dtype)
    kst_norm = kst.norm(dim=-2, keepdim=True) if pb.dtype == torch.float32 else None
    mult64 = fp64_multiplier(args)

    def post64(t):  # float32: S's fp64 sum times fp64_multiplier (the score, or with softcap the cap's argument)
        return t * mult64

    for blocks, tiles in _schedule(ranges):
        masked = [pb.rule.tile_needs_mask(*bounds[i], t * bn, bn) for i, t in zip(blocks, tiles)]
        pairs = _Tiles(pb, [bounds[i][0] for i in blocks], [t * bn for t in tiles], bm, bn, masked)
        if kst_norm is not None and args.softcap == 0:
            # float32 without softcap: the fp64 sum scaled in fp64, rounded once (the vector kernel's qk epilogue,
            # VectorTileMath::qk with ScoreTransform::fp64_multiplier), ALiBi's term after it in float32 (eco14: q.k
            # past float32 rounded to -inf before the scale weighed 0 at softmax_scale 1e-37, adv16)
            s2 = pairs.shifted_alibi_log2(pb, _fp64_ascending(_pick(qs, blocks), kst, tiles, kst_norm, post=post64))
        elif kst_norm is not None:  # float32 with softcap: t rounded once (ScoreTransform::fp64_multiplier, eco16)
            s2, _ = pairs.capped_log2(pb, _fp64_ascending(_pick(qs, blocks), kst, tiles, kst_norm, post=post64))
        else:
            s = (_fp64_ascending(_pick(qs, blocks), kst, tiles, kst_norm) if kst_norm is not None
                 else _matmul(_pick(qs, blocks), kst, tiles))
            s2, _ = pairs.scores_log2(pb, s.to(pb.acc))
        if pairs.keep is not None:
            s2 = torch.where(pairs.keep, s2, neg_inf)
        m_old = _pick(m, blocks)
        m_new = torch.maximum(m_old, s2.amax(dim=-1))
        base = torch.where(torch.isneginf(m_new), torch.zeros_like(m_new), m_new)
        alpha = torch.exp2(m_old - base)
        p = torch.exp2(s2 - base.unsqueeze(-1))
        _update(l, blocks, lambda x: x.mul_(alpha).add_(p.sum(dim=-1)))
        pv = pairs.product(pb.round(p), vt, tiles, masked_product)
        _update(o, blocks, lambda x: x.mul_(alpha.unsqueeze(-1)).add_(pv))
        _put(m, blocks, m_new)

    flat = (pb.batch, pb.nheads, n_blocks * bm)
    l_valid, m_valid = l.reshape(flat)[:, :, :pb.seqlen_q], m.reshape(flat)[:, :, :pb.seqlen_q]
    # l == 0: no visible key (out 0, LSE -inf), or every visible score overflowed to -inf: NaN (hip_src/fmha_common.h
    # empty_row_inv_l, MaskRule.sees_any_key); a NaN l (NaN/inf inputs) propagates as NaN
    empty = empty_row(pb.rule, l_valid, pb.device)
    inv_l = torch.where(l_valid == 0, empty, 1.0 / l_valid)
    out = o.reshape(*flat, cfg.headdim)[:, :, :pb.seqlen_q, :pb.headdim] * inv_l.unsqueeze(-1)
    lse = torch.where(l_valid == 0, empty - math.inf, (m_valid + torch.log2(l_valid)) / LOG2E)
    shift = pb.row_shift()
    if shift is not None:  # the ALiBi constant the scores left out (the kernel's epilogue: LSE + row_shift)
        # only where l > 0, as the kernel (l == 0: empty_row_lse alone): a row without keys keeps -inf even where a
        # negative slope makes its shift +inf (-inf + inf = NaN; adv17)
        lse = torch.where(l_valid == 0, lse, lse + shift)
    if key_tiles is not None:
        # one split's partial as the split-KV kernels write it for the combine (fmha_splitkv_kernel.h SplitRowEnd,
        # several splits): a row that sees a key but met no finite score in this split (none of its keys here, or
        # all -inf) writes O 0 and LSE OVERFLOW_SPLIT_LSE, which the combine weighs 0 or turns into NaN
        split_ovf = (l_valid == 0) & torch.isnan(empty)
        out = torch.where(split_ovf.unsqueeze(-1), torch.zeros((), dtype=out.dtype, device=dev), out)
        lse = torch.where(split_ovf, torch.full((), OVERFLOW_SPLIT_LSE, dtype=lse.dtype, device=dev), lse)
        return out.transpose(1, 2), lse
    stats = torch.stack([m_valid, inv_l], dim=-1)
    # the LSE keeps fp64 for fp64 inputs: the simulated backward recomputes P from it (gradcheck precision);
    # flash_attn_func hands callers a float32 copy
    lse_dtype = torch.float64 if q.dtype == torch.float64 else torch.float32
    out_acc = out.transpose(1, 2)
    out = out_acc.to(q.dtype).contiguous()
    res = (out, lse.to(lse_dtype), stats) if with_stats else (out, lse.to(lse_dtype))
    if with_out_fp32:  # the store stage's second copy of O, before rounding (float32; None: out is that copy)
        res += (None if q.dtype in (torch.float32, torch.float64) else out_acc.float().contiguous(),)
    return res


def empty_row(rule: MaskRule, l, device):
    """1/l of rows whose l is 0 (broadcast over ``l`` (..., seqlen_q)): 0 for rows that see no key, NaN for rows
    that see one (every visible score overflowed float32 to -inf; hip_src/fmha_common.h empty_row_inv_l). Minus
    inf: their LSE (-inf or NaN)."""
    sees = rule.sees_any_key_grid(torch.arange(l.shape[-1], device=device))
    return torch.where(sees, torch.full((), math.nan, dtype=l.dtype, device=device),
                       torch.zeros((), dtype=l.dtype, device=device))


def own_stats_pass(dtype: torch.dtype) -> bool:
    """Whether the backward recomputes the softmax statistics and D itself (float32 inputs; float64 in the sim):
    the fp32 dQ kernel's first pass runs the forward's recurrence on its own S bits (row max m, l = rowsum(P)) and
    D = rowsum(P * dP) / l from its own dP; both gradient kernels then use these (m, 1/l, D), not the forward's
    statistics and the preprocess's D = rowsum(dO * O) (hip_src/fmha_bwd_kernel.h ``own_row_stats``). The pass
    runs on x = S2 - m, m the forward's row max; its own max of x is the row's shift (P = exp2(x - shift) / l);
    for float32 without softcap, x comes from S's fp64 sum rounded once (_Tiles.shifted_log2; ALiBi's term after
    that, in float32: _Tiles.shifted_alibi_log2).

    Why: where a row's softmax is one-hot (every other key's exp2 underflows: large |softmax_scale| * |q| |k|,
    e.g. headdim 256 at softmax_scale 50), eager float32 attention's softmax backward gives dS = 0 exactly
    (P = 1 and D = that same dP), so its error there is 0 and FlashAttention's rule allows only the 1e-3 term.
    FlashAttention-2's D = rowsum(dO * O) is that dP as another dot product (O = V_j): it differs by its rounding,
    about 2^-24 * |dO| |V|, and P from the forward's statistics is exp2 of the forward's S bits minus the
    backward's (1 + |S2| * 2^-24 off); dQ and dK carry both times softmax_scale * |K| (|Q|): measured on the sim,
    fp32 headdim 256 left the rule at softmax_scale 50 (3.5x) and 100 (3.0x). With the own statistics the row's
    P is exp2(0) * 1 = 1 and D is its dP bit for bit: dS = 0 as in eager. Other rows: D = rowsum(P * dP) /
    rowsum(P) with the P the gradient kernels use, so rowsum(dS) cancels to rounding. 16-bit inputs keep the
    forward's statistics and D from its float32 O (their eager baseline's error, from the 16-bit softmax, is
    orders of magnitude larger). Cost: the fp32 dQ kernel walks its key tiles twice (S and dP again, no dQ
    product); the preprocess is not launched. Only with the forward's own statistics (the dense and varlen
    autograd backward): a backward from an LSE (context parallelism's, merged over key blocks this launch
    does not see) keeps P = exp(S - LSE) and the D it is given."""
    return dtype in (torch.float32, torch.float64)


def preprocess_delta(dout, out, out_fp32=None):
    """The backward preprocess's D = rowsum(dO * O), (b, sq, h), float32 (float64 for float64 inputs), as
    hip_src/fmha_bwd_kernel.h fmha_bwd_preprocess_kernel computes it: D = hi + lo with hi = dO . O over the
    stored O (the inputs' dtype) in the main loop's dP arithmetic (here: the correctly rounded dot product, as the
    sim's dP), and lo = dO . (O_fp32 - O), the forward's float32 O (``out_fp32``) minus its rounding, in float32.
    hi + lo is D from the float32 O to float32 rounding; on a row that sees one key (or whose softmax is exactly
    one-hot) O_fp32 = O = that key's V row, lo = 0 and D is that key's dP bit for bit: dS = P * (dP - D) = 0
    exactly, as autograd's softmax gives (FlashAttention-2's D from O in another summation order left dq and dk
    |softmax_scale| * 2^-24 * |dO| |V| |K| off there: tests/test_one_key_rows.py)."""
    if out.dtype == torch.float64:
        return (dout.double() * out).sum(-1)
    if out.dtype == torch.float32:  # tile_rowdot_fp64's ascending fp64 sum, as the preprocess kernel's fp32 branch
        a, b = dout.double().unsqueeze(-2).unsqueeze(2), out.double().unsqueeze(-1).unsqueeze(2)  # (b, sq, 1, h, 1|D, D|1)
        return _fp64_ascending(a, b, [0]).reshape(out.shape[:-1])
    hi = (dout.double() * out.double()).sum(-1).float()
    if out_fp32 is None or out_fp32.numel() == 0 or out.dtype == torch.float32:
        return hi
    return hi + (dout.float() * (out_fp32 - out.float())).sum(-1)


def backward(q, k, v, out, lse, dout, args: FwdArgs, target: str = "gfx9", trace: SimTrace | None = None,
             stats=None, out_fp32=None):
    """Simulate the backward launches (preprocess, dK/dV kernel, dQ kernel).

    Inputs as the forward's plus its ``out``, ``dout`` (q's shape) and either ``stats`` (the forward's
    ``with_stats=True`` output, as the kernels use: P = exp2(S2 - m) / l, never above 1) or ``lse``
    (b, h, sq) (P = exp2(S2 - LSE * log2(e)), exact only while |LSE| * 2^-24 is negligible). ``out_fp32``:
    the forward's float32 O (``forward(..., with_out_fp32=True)``): the preprocess's D = rowsum(dO * O) adds
    dO . (out_fp32 - out) to dO . out (preprocess_delta); None or empty: dO . out alone. Returns (dq, dk, dv) in the inputs' dtype and shapes. ``trace``
    records the dK/dV kernel's tiling.
    """
    pb = _Problem(q, k, v, args, "bwd_dkdv", target)
    dev, acc = pb.device, pb.acc
    qf, kf, vf, dof = pb.prep(q), pb.prep(k, pb.group), pb.prep(v, pb.group), pb.prep(dout)
    # float32 inputs (float64 too: the fp32 kernel in fp64 arithmetic) with the forward's own stats: the dQ kernel's
    # statistics pass recomputes (m, 1/l) and D below (own_stats_pass); else the preprocess's D = rowsum(dO * O)
    own_stats = stats is not None and own_stats_pass(q.dtype)
    delta = preprocess_delta(dout, out, out_fp32).transpose(1, 2)  # (b, h, sq): the preprocess kernel
    if stats is None:  # from the LSE: m = (LSE - ALiBi row shift) * log2(e), 1/l = 1 (compiled.stats_from_lse)
        shift = pb.row_shift()
        row_max = (lse.to(acc) if shift is None else lse.to(acc) - shift) * LOG2E
        inv_l = torch.ones_like(row_max)
    else:
        row_max, inv_l = stats[..., 0].to(acc), stats[..., 1].to(acc)
    # a row whose scores overflowed to +inf (the forward's m = +inf, out and LSE NaN): NaN gradients, not the
    # zeros an fp64 score shifted by m = +inf would give
    row_max = torch.where(torch.isposinf(row_max), torch.full_like(row_max, float("nan")), row_max)
    # rows that saw no key and rows past seqlen_q: m = +inf and 1/l = 0, P = 0 (exp2(S2 + inf) * 0 would be NaN);
    # a NaN 1/l (visible scores all overflowed to -inf: the forward's empty_row) stays NaN: NaN P and gradients
    inv_l = torch.where(torch.isneginf(row_max) & ~torch.isnan(inv_l), torch.zeros_like(inv_l), inv_l)
    row_max = torch.where(torch.isneginf(row_max), torch.full_like(row_max, float("inf")), row_max)

    wide = {}  # id(tile tensor) -> (tensor, its fp64 copy (A side) or fp64 transpose (B side)), for exact_dot

    def exact_dot(a_tiles, a_idx, b, k_tiles, every_dtype=False, post=None):
        """a . b[tile]^T per pair. float32 inputs (every_dtype: float16 / bfloat16 too): each element the correctly
        rounded dot product (fp64, rounded once: for float32 the kernels' own arithmetic, tile_rowdot_fp64 in
        hip_src/fmha_tile_math.h, as in the forward), the same bits whatever the tile shapes, as the kernels' fixed
        per-element order gives the dK/dV kernel, the dQ kernel and its statistics pass (torch's float32 matmul
        rounds differently for different shapes: S a few ulps apart between passes moves P = exp2(S2 - m) off 1
        at large softmax_scale). dP takes it for every dtype: the preprocess's D (preprocess_delta) is the same
        correctly rounded dot product, so a one-hot row's D is its dP bit for bit."""
        if pb.dtype == torch.float64 or (pb.dtype != torch.float32 and not every_dtype):
            return _matmul(_pick(a_tiles, a_idx), b.transpose(-1, -2), k_tiles)
        for t, make in ((a_tiles, lambda x: x.double()), (b, lambda x: x.double().transpose(-1, -2))):
            if id(t) not in wide:  # each Q / dO / K / V tile tensor converted once per launch, not once per step
                wide[id(t)] = (t, make(t))
        a64, b64 = _pick(wide[id(a_tiles)][1], a_idx), wide[id(b)][1]
        if pb.dtype == torch.float32:  # the kernels' ascending fp64 sum (16-bit dP: the correctly rounded model)
            if ("norm", id(b)) not in wide:
                wide[("norm", id(b))] = (b, b64.norm(dim=-2, keepdim=True))
            return _fp64_ascending(a64, b64, k_tiles, wide[("norm", id(b))][1], post)
        return _matmul(a64, b64, k_tiles).float()

    # With the statistics pass (own_stats): P = exp2(x - m_shift) * (1/l), x the score relative to the row's
    # reference row_max (the forward's row max), in fp64 before the one rounding to float32 for float32 without
    # softcap (_Tiles.shifted_log2; ALiBi's term after the rounding, _Tiles.shifted_alibi_log2); m_shift = the
    # pass's own max of x. Else (16-bit inputs; a backward from an LSE): P = exp2(S2 - m) * (1/l) from the
    # forward's own S2 bits, whose rounding its m or LSE shares: an S2 rounded otherwise against an m carrying the
    # forward's rounding left the rule (3.7x on the from-LSE run of adv15's case, where the pass's own shift cancels
    # it). float32 without softcap (eco15): the forward's score since eco14, S's fp64 sum times scale_log2 rounded
    # once, ALiBi's term after it in float32 (hip_src/fmha_bwd_kernel.h tile_s_and_dp); the float32 S times the
    # float32 scale, one rounding of |S2| off the forward's, left the far-row ALiBi cases from the LSE past the rule
    # (tests/test_fp32_alibi_far_rows.py: dv 1.47x at softmax_scale 50, 1.29x at 100). Softcap, 16-bit: scores_log2
    # of the float32 S, as their forward.
    shifted = own_stats
    m_shift = torch.zeros_like(row_max)
    mult64 = fp64_multiplier(args)

    def post64(t):  # the forward's fp32 score epilogue; with softcap the cap's argument t, for the score and dS alike
        return t * mult64

    def row_stats(bm):  # (b, h, blocks, Br) each: m (+inf past seqlen_q), 1/l, D (0 past seqlen_q) and the shift
        n_blocks = -(-pb.seqlen_q // bm)
        pad = (0, n_blocks * bm - pb.seqlen_q)
        return [F.pad(x, pad, value=fill).view(pb.batch, pb.nheads, n_blocks, bm)
                for x, fill in ((row_max, float("inf")), (inv_l, 0.0), (delta, 0.0), (m_shift, 0.0))]

    def tile_grads(cfg, stat, qt, dot, kt, vt, q_blocks, k_tiles, stats_pass=False):
        """P and dS of the pairs (query tile q_blocks[i], key tile k_tiles[i]), rounded to the element type as
        the kernels store them, and the pairs (_Tiles). ``stats_pass``: the fp32 dQ kernel's statistics pass
        instead: (x with masked entries -inf, dP) of the pairs."""
        bm, bn = cfg.block_m, cfg.block_n
        masked = [pb.rule.tile_needs_mask(i * bm, min(i * bm + bm, pb.seqlen_q), t * bn, bn)
                  for i, t in zip(q_blocks, k_tiles)]
        pairs = _Tiles(pb, [i * bm for i in q_blocks], [t * bn for t in k_tiles], bm, bn, masked)
        q_tile, do_tile = _pick(qt, q_blocks), _pick(dot, q_blocks)
        m_t, inv_l_t, delta_t, shift_t = (_pick(x, q_blocks).unsqueeze(-1) for x in stat)
        if shifted and pb.dtype == torch.float32 and args.softcap == 0:  # fp64, shifted; ALiBi after, float32
            x = exact_dot(qt, q_blocks, kt, k_tiles, post=pairs.shifted_log2(pb, m_t))
            x, g = pairs.shifted_alibi_log2(pb, x), 1.0
        elif pb.dtype == torch.float32 and args.softcap == 0:  # from an LSE: the forward's score bits, then - m
            x = pairs.shifted_alibi_log2(pb, exact_dot(qt, q_blocks, kt, k_tiles, post=post64)) - m_t
            g = 1.0
        elif pb.dtype == torch.float32:  # softcap (eco16): t = float32(S_fp64 * cap_scale), the forward's score
            s2, g = pairs.capped_log2(pb, exact_dot(qt, q_blocks, kt, k_tiles, post=post64))
            x = s2 - m_t
        else:
            s2, g = pairs.scores_log2(pb, exact_dot(qt, q_blocks, kt, k_tiles))
            x = s2 - m_t
        dp = exact_dot(dot, q_blocks, vt, k_tiles, every_dtype=True)
        if stats_pass:
            return (x if pairs.keep is None else torch.where(pairs.keep, x, float("-inf"))), dp
        p = torch.exp2(x - shift_t if shifted else x) * inv_l_t
        ds = p * (dp - delta_t) * g
        if pairs.keep is not None:  # selects: S and dP of a masked key may be NaN (its K or V row), 0 * NaN = NaN
            p = torch.where(pairs.keep, p, torch.zeros_like(p))
            ds = torch.where(pairs.keep, ds, torch.zeros_like(ds))
        return pb.round(p), pb.round(ds), pairs, (q_tile, do_tile)

    if own_stats:  # the fp32 dQ kernel's statistics pass (hip_src/fmha_bwd_kernel.h own_row_stats), first
        cfg = select_config("bwd_dq", target, _DTYPE_NAMES[q.dtype], pb.headdim)
        bm, bn = cfg.block_m, cfg.block_n
        n_qblocks, n_ktiles = -(-pb.seqlen_q // bm), -(-pb.seqlen_k // bn)
        pad = [F.pad(x[..., :pb.headdim], (0, cfg.headdim - pb.headdim)) for x in (qf, kf, vf, dof)]
        qt, dot = _tiles(pad[0], bm, n_qblocks), _tiles(pad[3], bm, n_qblocks)
        kt, vt = _tiles(pad[1], bn, n_ktiles), _tiles(pad[2], bn, n_ktiles)
        ranges = [pb.rule.key_tile_range(i * bm, min(i * bm + bm, pb.seqlen_q), bn) for i in range(n_qblocks)]
        ranges = [r if r[0] < r[1] else (0, 0) for r in ranges]
        shape = (pb.batch, pb.nheads, n_qblocks, bm)
        m = torch.full(shape, float("-inf"), dtype=acc, device=dev)
        l, d = torch.zeros(shape, dtype=acc, device=dev), torch.zeros(shape, dtype=acc, device=dev)
        stat = row_stats(bm)  # the reference row_max (the forward's row max) for x
        for blocks, tiles in _schedule(ranges):
            x, dp = tile_grads(cfg, stat, qt, dot, kt, vt, blocks, tiles, stats_pass=True)
            m_old, l_old, d_old = (_pick(t, blocks) for t in (m, l, d))
            # the kernel's rf_max (fmax): a NaN score is not a maximum; its exp2 is NaN and poisons l
            m_new = torch.fmax(m_old, x.nan_to_num(nan=float("-inf")).amax(-1))
            base = torch.where(torch.isneginf(m_new), torch.zeros_like(m_new), m_new)
            e = torch.exp2(x - base.unsqueeze(-1))
            alpha = torch.exp2(m_old - base)
            pdp = torch.where(torch.isneginf(x), torch.zeros_like(e), e * dp)  # select: a masked key's dP may be NaN
            _put(m, blocks, m_new)
            _put(l, blocks, l_old * alpha + e.sum(-1))
            _put(d, blocks, d_old * alpha + pdp.sum(-1))
        m, l, d = (t.reshape(pb.batch, pb.nheads, n_qblocks * bm)[:, :, :pb.seqlen_q] for t in (m, l, d))
        m_shift = torch.where(torch.isneginf(m), torch.zeros_like(m), m)  # no visible key: x = -inf, P = 0
        inv_l = torch.where(l == 0, empty_row(pb.rule, l, dev), 1 / l)  # as the forward: NaN if all visible -inf
        delta = d * inv_l  # the kernel: D = rowsum(P * dP) * (1/l)

    # dK/dV kernel: per key block, every query head of the group, the query tiles that see the keys
    cfg = pb.cfg
    if trace is not None:
        trace.config = cfg
    bm, bn = cfg.block_m, cfg.block_n
    n_kblocks, n_qtiles = -(-pb.seqlen_k // bn), -(-pb.seqlen_q // bm)
    ranges = [pb.rule.query_tile_range(i * bn, min(i * bn + bn, pb.seqlen_k), bm) for i in range(n_kblocks)]
    ranges = [r if r[0] < r[1] else (0, 0) for r in ranges]
    if trace is not None:
        for i in range(n_kblocks):
            trace.blocks.append((i, [(t, pb.rule.tile_needs_mask(t * bm, min(t * bm + bm, pb.seqlen_q), i * bn, bn))
                                     for t in range(*ranges[i])]))
    qt, dot = _tiles(qf, bm, n_qtiles), _tiles(dof, bm, n_qtiles)
    kt, vt = _tiles(kf, bn, n_kblocks), _tiles(vf, bn, n_kblocks)
    stat = row_stats(bm)
    dk = torch.zeros(pb.batch, pb.nheads, n_kblocks, bn, cfg.headdim, dtype=acc, device=dev)
    dv = torch.zeros_like(dk)
    for blocks, tiles in _schedule(ranges):
        p, ds, _, (q_tile, do_tile) = tile_grads(cfg, stat, qt, dot, kt, vt, tiles, blocks)
        _update(dv, blocks, lambda x: x.add_(p.transpose(-1, -2) @ do_tile))
        _update(dk, blocks, lambda x: x.add_(ds.transpose(-1, -2) @ q_tile))
    flat = (pb.batch, pb.nheads, n_kblocks * bn, cfg.headdim)
    dk = dk.reshape(flat)[:, :, :pb.seqlen_k] * args.softmax_scale
    dv = dv.reshape(flat)[:, :, :pb.seqlen_k]

    # dQ kernel: per query block, the key tiles its rows see
    cfg = select_config("bwd_dq", target, _DTYPE_NAMES[q.dtype], pb.headdim)
    bm, bn = cfg.block_m, cfg.block_n
    n_qblocks, n_ktiles = -(-pb.seqlen_q // bm), -(-pb.seqlen_k // bn)
    qf, kf, vf, dof = (F.pad(x[..., :pb.headdim], (0, cfg.headdim - pb.headdim)) for x in (qf, kf, vf, dof))
    qt, dot = _tiles(qf, bm, n_qblocks), _tiles(dof, bm, n_qblocks)
    kt, vt = _tiles(kf, bn, n_ktiles), _tiles(vf, bn, n_ktiles)
    stat = row_stats(bm)
    ranges = [pb.rule.key_tile_range(i * bm, min(i * bm + bm, pb.seqlen_q), bn) for i in range(n_qblocks)]
    ranges = [r if r[0] < r[1] else (0, 0) for r in ranges]
    dq = torch.zeros(pb.batch, pb.nheads, n_qblocks, bm, cfg.headdim, dtype=acc, device=dev)
    for blocks, tiles in _schedule(ranges):
        _, ds, pairs, _ = tile_grads(cfg, stat, qt, dot, kt, vt, blocks, tiles)
        _update(dq, blocks, lambda x: x.add_(pairs.product(ds, kt, tiles, masked_product)))
    dq = dq.reshape(pb.batch, pb.nheads, n_qblocks * bm, cfg.headdim)[:, :, :pb.seqlen_q] * args.softmax_scale

    def finish(x, heads):  # (b, h, s, bucket) -> (b, s, heads, headdim), GQA groups summed
        x = x[..., :pb.headdim]
        if heads != pb.nheads:
            x = x.view(pb.batch, heads, pb.group, *x.shape[2:]).sum(dim=2)
        return x.transpose(1, 2).to(q.dtype).contiguous()

    return finish(dq, pb.nheads), finish(dk, pb.nheads_k), finish(dv, pb.nheads_k)


# ---------------------------------------------------------------- varlen, KV cache, split-KV
# Target CU counts used to resolve num_splits=0 (the compiled backend uses the real device's count): the CPU
# simulation takes the documented target of each platform.
SIM_CUS = {"gfx9": 60, "cuda": 132}  # MI50, H200
_PLATFORM = {"gfx9": "hip", "cuda": "cuda"}  # target -> rocflash.splitkv platform (resident blocks per CU/SM)


@dataclass
class SplitTrace:
    """What a simulated varlen / KV-cache forward did: whether it took the split-KV kernel, its split count,
    then per (sequence, split) the key range ``[first, end)`` and the split's trace (fwd_splitkv config; per row
    chunk the main-loop iterations, :func:`rocflash.backends.sim_splitkv.split_partial`)."""

    split_kernel: bool = False
    num_splits: int = 1
    splits: list[tuple[int, int, tuple[int, int], SimTrace]] = field(default_factory=list)  # (b, split, keys, trace)


def split_plan(target: str, dtype: torch.dtype, headdim: int, nheads: int, nheads_k: int, batch: int,
               max_seqlen_q: int, max_seqlen_k: int, num_splits: int) -> tuple[bool, int, TileConfig | None]:
    """(split kernel?, num_splits, its fwd_splitkv tile config) as the compiled launcher decides them
    (rocflash.backends.compiled.split_plan, rules in rocflash.splitkv), with ``SIM_CUS[target]`` CUs for
    ``num_splits=0``."""
    group = nheads // nheads_k
    if not splitkv.use_split_kernel(max_seqlen_q, group, num_splits):
        return False, 1, None
    cfg = select_config("fwd_splitkv", target, _DTYPE_NAMES[dtype], headdim)
    if num_splits == 0:
        chunks = splitkv.row_chunks(max_seqlen_q, group, cfg.block_m)
        num_splits = splitkv.num_splits_heuristic(batch, nheads_k, chunks, max_seqlen_k, SIM_CUS[target],
                                                  _PLATFORM[target],
                                                  splitkv.vector_blocks_per_cu(_PLATFORM[target], cfg.dtype))
    return True, max(1, num_splits), cfg


def _split_kv(qs, ks, vs, args: FwdArgs, target: str, max_seqlen_k: int, num_splits: int, cfg: TileConfig,
              trace: SplitTrace | None, index: int):
    """The split-KV kernel and its combine on one sequence (qs (1, sq, h, d), ks/vs (1, sk, hk, d)): the splits
    of rocflash.splitkv.split_bounds, each as :func:`rocflash.backends.sim_splitkv.split_partial`.
    Returns (out (1, sq, h, d) in q's dtype, lse (1, h, sq))."""
    from . import sim_splitkv  # imports this module

    parts = []
    for i, keys in enumerate(splitkv.split_bounds(ks.shape[1], max_seqlen_k, num_splits, cfg.block_n)):
        t = SimTrace() if trace is not None else None
        parts.append(sim_splitkv.split_partial(qs, ks, vs, args, target, keys, t, num_splits=num_splits))
        if trace is not None:
            trace.splits.append((index, i, keys, t))
    if num_splits == 1:  # the kernel writes O / l and the LSE straight to the output
        o, l = parts[0][:2]
    else:  # (m_s, l_s) per split and the row's ALiBi shift (eco14), (splits, 1, h, sq)
        shift = _Problem(qs, ks, vs, args, "fwd_splitkv", target).row_shift()
        o, l = sim_splitkv.combine_partials(torch.stack([p[0] for p in parts]).transpose(2, 3),  # (splits, 1, h, sq, d)
                                            torch.stack([p[2] for p in parts]), torch.stack([p[3] for p in parts]),
                                            shift)
        o = o.transpose(1, 2)
    return o.to(qs.dtype), l


def forward_inference(q, k, v, args: FwdArgs, target: str = "gfx9"):
    """The dense forward without softmax statistics, as the compiled backend launches it: few query rows per
    kv-head take the split-KV kernel (num_splits 0: the heuristic), others :func:`forward`.
    Returns (out like q, lse (b, h, sq))."""
    batch, seqlen_q, nheads, headdim = q.shape
    split, num_splits, cfg = split_plan(target, q.dtype, headdim, nheads, k.shape[2], batch, seqlen_q, k.shape[1], 0)
    if not split:
        return forward(q, k, v, args, target)
    outs, lses = [], []
    for b in range(batch):
        a = replace(args, alibi_slopes=alibi_for(args.alibi_slopes, b))
        o, l = _split_kv(q[b:b + 1], k[b:b + 1], v[b:b + 1], a, target, k.shape[1], num_splits, cfg, None, b)
        outs.append(o)
        lses.append(l)
    lse_dtype = torch.float64 if q.dtype == torch.float64 else torch.float32
    return torch.cat(outs).contiguous(), torch.cat(lses).to(lse_dtype)


def varlen_forward(q, k, v, seq: SeqArgs, args: FwdArgs, target: str = "gfx9", trace: SplitTrace | None = None,
                   with_stats: bool = False):
    """Simulate a varlen / KV-cache forward (layouts: :class:`rocflash.backends.SeqArgs`).

    The launch decision is the compiled backend's (:func:`split_plan`, rocflash.splitkv): calls with few query
    rows per kv-head, or ``seq.num_splits > 1``, take the split-KV kernel; others the forward kernel, per
    sequence the dense launch's tiling (same tile config, bottom-right masks with that sequence's seqlen_q /
    seqlen_k) on the sequence's keys gathered the way the kernel addresses them (only its first seqlen_k keys:
    stale slots are never read). The split-KV kernel's splits cover the keys of
    :func:`rocflash.splitkv.split_bounds` (multiples of its block_n, sized by max_seqlen_k; trailing splits of
    a short sequence are empty), each simulated as the split-KV kernel computes it (key groups, LDS tree merge:
    :mod:`rocflash.backends.sim_splitkv`) and merged in the combine kernel's order.
    Returns (out like q, lse (nheads, total_q): float32, float64 for float64 inputs); with ``with_stats=True``
    (a gradient will be asked for: the forward kernel always, as the compiled launcher) also the backward's
    inputs: the softmax stats (nheads, total_q, 2) (the lse's dtype) and O in float32 (None for fp32 / fp64).
    """
    total_q, nheads, headdim = q.shape
    split, num_splits, scfg = split_plan(target, q.dtype, headdim, nheads, k.shape[-2], seq.batch,
                                         seq.max_seqlen_q, seq.max_seqlen_k, seq.num_splits)
    if with_stats:
        split, num_splits, scfg = False, 1, None
    if trace is not None:
        trace.split_kernel, trace.num_splits = split, num_splits
    out = torch.zeros_like(q, memory_format=torch.contiguous_format)
    lse = torch.full((nheads, total_q), float("-inf"), device=q.device,
                     dtype=torch.float64 if q.dtype == torch.float64 else torch.float32)
    wide = q.dtype in (torch.float32, torch.float64)
    if with_stats:  # rows of sequences without work: m = -inf, 1/l = 0 (P = 0); O = 0
        stats = torch.stack((lse, torch.zeros_like(lse)), dim=-1)
        out32 = None if wide else torch.zeros(q.shape, dtype=torch.float32, device=q.device)
    for s in sequences(seq, k.shape[1] if seq.paged else 0):
        if s.seqlen_q == 0 or s.seqlen_k == 0:  # no block has work: rows stay 0 / -inf
            continue
        qs = q[s.q_begin:s.q_end].unsqueeze(0)
        ks, vs = sequence_kv(k, v, seq, s)
        a = replace(args, alibi_slopes=alibi_for(args.alibi_slopes, s.index))
        if with_stats:
            o, l, st, o32 = forward(qs, ks, vs, a, target, with_stats=True, with_out_fp32=True)
            stats[:, s.q_begin:s.q_end] = st[0].to(stats.dtype)
            if out32 is not None:
                out32[s.q_begin:s.q_end] = o32[0]
        elif not split:
            o, l = forward(qs, ks, vs, a, target)
        else:
            o, l = _split_kv(qs, ks, vs, a, target, seq.max_seqlen_k, num_splits, scfg, trace, s.index)
        out[s.q_begin:s.q_end] = o[0]
        lse[:, s.q_begin:s.q_end] = l[0].to(lse.dtype)
    return (out, lse, stats, out32) if with_stats else (out, lse)


def varlen_backward(q, k, v, out, lse, dout, seq: SeqArgs, args: FwdArgs, target: str = "gfx9", out_fp32=None):
    """Simulate the varlen backward: per sequence the dense backward launches; varlen K/V layout only.
    lse (nheads, total_q) as the forward returned it, or its softmax stats (nheads, total_q, 2) (``varlen_forward(
    ..., with_stats=True)``: P exactly as the forward weighted V); ``out_fp32`` its float32 O (None or empty: D
    from out). Returns (dq, dk, dv) like q, k, v."""
    if seq.cu_seqlens_k is None:
        raise NotImplementedError("the backward of a KV-cache / paged layout is not implemented (forward only)")
    dq, dk, dv = (torch.zeros_like(x, memory_format=torch.contiguous_format) for x in (q, k, v))
    for s in sequences(seq):
        if s.seqlen_q == 0 or s.seqlen_k == 0:  # no visible key: every gradient of the sequence is 0
            continue
        rows, keys = slice(s.q_begin, s.q_end), slice(s.k_begin, s.k_begin + s.seqlen_k)
        a = replace(args, alibi_slopes=alibi_for(args.alibi_slopes, s.index))
        stats = lse[:, rows].unsqueeze(0)
        o32 = out_fp32[rows].unsqueeze(0) if out_fp32 is not None and out_fp32.numel() else None
        g = backward(q[rows].unsqueeze(0), k[keys].unsqueeze(0), v[keys].unsqueeze(0), out[rows].unsqueeze(0),
                     None if stats.dim() == 4 else stats, dout[rows].unsqueeze(0), a, target,
                     stats=stats if stats.dim() == 4 else None, out_fp32=o32)
        dq[rows], dk[keys], dv[keys] = (x[0] for x in g)
    return dq, dk, dv
