"""The ``sim`` backend's backward launches (hip_src/fmha_bwd_kernel.h): the preprocess, the fp32 dQ kernel's
statistics pass, the dK/dV kernel and the dQ kernel, on the tiling model of :mod:`rocflash.backends.sim_tiles`
(the forward: :mod:`rocflash.backends.sim`, which re-exports this module's functions).

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
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from ..configs import select_config
from . import FwdArgs, SeqArgs
from .seqlayout import backward_by_sequence
from .sim_tiles import (LOG2E, _DTYPE_NAMES, SimTrace, _Problem, _Tiles, _fp64_ascending, _matmul, _pick, _put,
                        _schedule, _tiles, _update, empty_row, fp64_multiplier, masked_product)


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


def varlen_backward(q, k, v, out, lse, dout, seq: SeqArgs, args: FwdArgs, target: str = "gfx9", out_fp32=None):
    """Simulate the varlen backward: per sequence the dense backward launches (seqlayout.backward_by_sequence);
    varlen K/V layout only. lse (nheads, total_q) as the forward returned it, or its softmax stats
    (nheads, total_q, 2) (``varlen_forward(..., with_stats=True)``: P exactly as the forward weighted V);
    ``out_fp32`` its float32 O (None or empty: D from out). Returns (dq, dk, dv) like q, k, v."""
    def dense(q, k, v, out, lse, dout, args, out_fp32=None):
        stats = lse if lse.dim() == 4 else None
        return backward(q, k, v, out, None if stats is not None else lse, dout, args, target, stats=stats,
                        out_fp32=out_fp32)

    return backward_by_sequence(dense, q, k, v, out, lse, dout, seq, args, out_fp32)
