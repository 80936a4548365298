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

The backward's model is :mod:`rocflash.backends.sim_backward` (re-exported here: ``sim.backward``), the
tiling both share :mod:`rocflash.backends.sim_tiles`, the split-KV decode kernel
:mod:`rocflash.backends.sim_splitkv`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import torch

from ..configs import TileConfig, select_config
from .. import splitkv
from . import FwdArgs, SeqArgs, sim_splitkv
from .seqlayout import alibi_for, sequence_kv, sequences
from .splits import OVERFLOW_SPLIT_LSE
from .sim_tiles import (LOG2E, _DTYPE_NAMES, SimTrace, _Problem, _Tiles, _fp64_ascending, _matmul, _pick, _put,
                        _schedule, _score_operands, _tiles, _update, empty_row, fp64_multiplier, masked_product)
# re-exported: the names callers and tests reach as rocflash.backends.sim.* (the module before the split)
from .sim_tiles import _cap_scale_64, _scale_log2_64, capped_log2  # noqa: F401
from .sim_backward import backward, own_stats_pass, preprocess_delta, varlen_backward  # noqa: F401


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
