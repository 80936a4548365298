"""The ``sim`` backend's split-KV decode kernel (hip_src/fmha_splitkv_kernel.h, layout fmha_splitkv_tile.h).

One split of one sequence, with the kernel's fwd_splitkv tile config (ck_configs/fmha_splitkv.toml):

- threads / threads_n key groups; per main-loop iteration (kKeysPerIter = U x key_groups keys from n0, the
  128-bit-load path's U = block_n / key_groups) key group g owns keys ``n0 + u * key_groups + g`` (u < U),
  SplitKvShape::key_of;
- each key group keeps its own online softmax in the log2 domain with fp32 state (fp64 for fp64 inputs):
  ``m' = max(m, max_u s_u)``, ``alpha = exp2(m - base)``, ``O = O * alpha``, then for u in order
  ``O += exp2(s_u - base) * V_u`` (P stays fp32: no rounding to the element type) and ``l = l * alpha + sum_u P``;
  a masked (row, key) gives P = 0 and its V operand is selected to 0;
- at the end of the split the key groups' (m, l, O) merge through LDS in a tree: for half = G/2, ..., 1 group
  g < half takes group g + half: ``O = O * exp2(m - m') + O2 * exp2(m2 - m')``, l likewise;
- one split writes O / l and LSE = (m + log2 l) * ln 2 + the row's ALiBi shift (0 and -inf for l == 0); several
  write O / l and the partial statistics (m, l), which :func:`rocflash.backends.splits.combine_partials` merges in
  the combine kernel's order (eco14; a float32 LSE_s per split lost log2 l_s at |LSE| ~ 1e19).
- scores: ALiBi's distance from the row's anchor as the dense kernels (ScoreTransform; the row constant goes to
  the LSE); float32 inputs: each lane's fp64 partial of Q.K^T scaled and rounded to float32, then the key group's
  float32 lane tree (lane_tree_fp32, the kernel's arithmetic bit for bit; eco17: eco14's one fp64 sum no longer
  modelled the kernel where lane partials cancel).

Each row chunk of the kernel narrows the split's keys to what its query positions can see, from a block_n
boundary; iterations a row cannot see leave its state unchanged (alpha 1, P 0), so the simulation walks the
union of the chunks' iterations for all rows at once and records each chunk's own iterations in the trace.
"""

from __future__ import annotations

import math

import torch

from .. import splitkv
from . import FwdArgs
from .splits import OVERFLOW_SPLIT_LSE, OVERFLOW_SPLIT_M, combine, combine_partials  # noqa: F401  (re-exported)
from .sim_tiles import SimTrace, _Problem, fp64_multiplier

LN2 = math.log(2.0)


def split_partial(q, k, v, args: FwdArgs, target: str, keys: tuple[int, int], trace: SimTrace | None = None,
                  num_splits: int = 2):
    """One split of the split-KV kernel on one sequence: keys ``[keys[0], keys[1])`` (split_bounds).

    q (1, seqlen_q, nheads, headdim), k/v (1, seqlen_k, nheads_k, headdim). Returns the split's result as the
    kernel writes it, ``(out, lse, m, l)``: O (1, seqlen_q, nheads, headdim) in the accumulation dtype, normalised
    by the split's own row sums; with one split (``num_splits`` 1) the output's LSE (1, nheads, seqlen_q), natural
    log with the row's ALiBi shift (-inf for rows that see no key, NaN for rows that see a key but met only -inf
    scores); for the combine (:func:`rocflash.backends.splits.combine_partials`) the partial statistics m (the
    split's max score, log2 units) and l (its row sum), (1, nheads, seqlen_q) each: -inf and 0 for a row without
    keys here, OVERFLOW_SPLIT_M and 0 (O 0) for a row that sees a key but met no finite score in the split.
    ``trace`` gets the config and per row chunk ``(chunk, [(iteration, masked)])``, iteration = n0 /
    keys_per_iter (:func:`keys_per_iter`).
    """
    pb = _Problem(q, k, v, args, "fwd_splitkv", target)
    cfg, dev, acc, rule = pb.cfg, pb.device, pb.acc, pb.rule
    groups = cfg.threads // cfg.threads_n
    per_iter = keys_per_iter(cfg)
    u_count = per_iter // groups
    if trace is not None:
        trace.config = cfg
    # the kernel's iterations per row chunk (rows: query position x GQA group, heads of a group fastest)
    rows_total = pb.seqlen_q * pb.group
    spans = []
    for chunk in range(splitkv.row_chunks(pb.seqlen_q, pb.group, cfg.block_m)):
        r0 = chunk * cfg.block_m
        i_first, i_last = r0 // pb.group, (min(r0 + cfg.block_m, rows_total) - 1) // pb.group
        kb = max(keys[0], rule.first_key(i_first))
        ke = min(keys[1], rule.last_key(i_last) + 1)
        kb = kb // cfg.block_n * cfg.block_n
        if keys[0] >= keys[1]:  # a split past the sequence's end (the kernel's k_begin >= k_end): no iteration
            kb, ke = 0, 0
        spans.append((kb, ke))
        if trace is not None:
            trace.blocks.append((chunk, [
                (n0 // per_iter, not (n0 + per_iter <= ke and not rule.tile_needs_mask(i_first, i_last + 1, n0, per_iter)))
                for n0 in range(kb, ke, per_iter)]))
    begin = min((b for b, e in spans if b < e), default=0)
    end = max((e for b, e in spans if b < e), default=0)

    qf, kf, vf = pb.prep(q), pb.prep(k, pb.group), pb.prep(v, pb.group)  # (1, h, s, bucket)
    shape = (pb.batch, pb.nheads, pb.seqlen_q, groups)
    m = torch.full(shape, float("-inf"), dtype=acc, device=dev)
    l = torch.zeros(shape, dtype=acc, device=dev)
    o = torch.zeros(*shape, cfg.headdim, dtype=acc, device=dev)
    rows = torch.arange(pb.seqlen_q, device=dev).view(-1, 1)
    neg_inf = torch.tensor(float("-inf"), dtype=acc, device=dev)
    zero = torch.zeros((), dtype=acc, device=dev)
    mult64 = fp64_multiplier(args) if pb.dtype == torch.float32 else None  # once per split, not per key round
    for n0 in range(begin, end, per_iter):
        cols = n0 + torch.arange(per_iter, device=dev).view(1, -1)  # key u * groups + g at column u * groups + g
        idx = cols.view(-1).clamp(max=pb.seqlen_k - 1)  # keys past the sequence re-read its last key
        kt, vt = kf.index_select(2, idx), vf.index_select(2, idx)  # (1, h, per_iter, bucket)
        # float32 inputs: the kernel's per-lane fp64 partials of Q.K^T, each scaled and rounded to float32, then
        # the key group's float32 butterfly (lane_tree_fp32); 16-bit: the fp32 product
        if pb.dtype == torch.float32:
            s2, _ = pb.scores_log2(lane_tree_fp32(qf, kt, cfg.threads_n, mult64), rows, cols,
                                   prescaled=True)
        else:
            s2, _ = pb.scores_log2(qf @ kt.transpose(-1, -2), rows, cols)
        visible = (cols >= keys[0]) & (cols < keys[1]) & rule_grid(rule, rows, cols)
        visible = visible.expand(pb.seqlen_q, per_iter)
        s2 = torch.where(visible, s2, neg_inf)
        # (1, h, sq, U, G) -> (1, h, sq, G, U): key group g, its u-th key
        s2 = s2.reshape(*s2.shape[:-1], u_count, groups).transpose(-1, -2)
        vis = visible.reshape(pb.seqlen_q, u_count, groups).transpose(-1, -2)  # (sq, G, U)
        vg = vt.reshape(*vt.shape[:2], u_count, groups, cfg.headdim)  # (1, h, U, G, bucket)
        m_new = torch.maximum(m, s2.amax(dim=-1))
        base = torch.where(torch.isneginf(m_new), torch.zeros_like(m_new), m_new)
        alpha = torch.exp2(m - base)
        o = o * alpha.unsqueeze(-1)
        total = torch.zeros_like(l)
        for u in range(u_count):
            p = torch.exp2(s2[..., u] - base)  # (1, h, sq, G)
            total = total + p
            v_sel = torch.where(vis[..., u].unsqueeze(-1), vg[:, :, u].unsqueeze(2), zero)  # (1, h, sq, G, bucket)
            o = o + p.unsqueeze(-1) * v_sel
        l = l * alpha + total
        m = m_new
    # LDS tree merge: group g < half takes group g + half
    half = groups // 2
    while half >= 1:
        m1, m2 = m[..., :half], m[..., half:2 * half]
        m_new = torch.maximum(m1, m2)
        base = torch.where(torch.isneginf(m_new), torch.zeros_like(m_new), m_new)
        a1, a2 = torch.exp2(m1 - base), torch.exp2(m2 - base)
        o = o[..., :half, :] * a1.unsqueeze(-1) + o[..., half:2 * half, :] * a2.unsqueeze(-1)
        l = l[..., :half] * a1 + l[..., half:2 * half] * a2
        m = m_new
        half //= 2
    m, l, o = m[..., 0], l[..., 0], o[..., 0, :]
    # the kernel's SplitRowEnd: l == 0 on a row that sees a key (every score it met -inf): NaN for one split, else
    # the partial O 0 and (m, l) = (OVERFLOW_SPLIT_M, 0) that the combine turns into NaN; l == 0 otherwise: 0, -inf
    ovf = (l == 0) & rule.sees_any_key_grid(torch.arange(pb.seqlen_q, device=dev))
    one_split = num_splits == 1
    inv_l = torch.where(ovf, math.nan if one_split else 0.0, torch.where(l == 0, 0.0, 1.0 / l)).to(acc)
    lse = torch.where(ovf, math.nan, torch.where(l == 0, -math.inf, (m + torch.log2(l)) * LN2)).to(acc)
    shift = pb.row_shift()
    if shift is not None:  # the ALiBi constant the scores left out (ScoreTransform::row_shift)
        lse = torch.where(l == 0, lse, lse + shift)  # l == 0: -inf / NaN alone, as the kernel (adv17)
    m_part = torch.where(ovf, OVERFLOW_SPLIT_M, torch.where(l == 0, -math.inf, m)).to(acc)
    out = (o * inv_l.unsqueeze(-1))[..., :pb.headdim]
    return out.transpose(1, 2), lse, m_part, l


def lane_tree_fp32(qf, kt, threads_n: int, multiplier: float):
    """The float32 split-KV kernel's Q.K^T (hip_src/fmha_splitkv_kernel.h, eco14), bit for bit: lane t of a key
    group of ``threads_n`` lanes owns the 128-bit vectors t, t + threads_n, ... of the (zero-padded) headdim bucket
    (SplitKvShape::vec_of), 4 float32 elements each; it sums their products in fp64 in that order (vector, then
    element; fp32 x fp32 products are exact in fp64, so rf_fma_f64 is one rounding per step as here), multiplies
    the sum by ``multiplier`` in fp64 and rounds it to float32 once; group_sum then adds the lanes in float32 as a
    butterfly (step s adds lane t ^ (threads_n >> s): lanes t and t + threads_n / 2 first; each step's addition is
    symmetric, so every lane holds the same tree). Partials that cancel across lanes lose what float32 cannot hold
    (adv17: out [0.5, 0.5] where fp64 gives [0.9526, 0.0474], as eager float32; the dense kernels sum the whole
    row in fp64 first). qf (1, h, sq, bucket), kt (1, h, n, bucket) float32 -> (1, h, sq, n) float32."""
    bucket = qf.shape[-1]
    vl = bucket // (4 * threads_n)
    qv = qf.double().reshape(*qf.shape[:-1], vl, threads_n, 4)
    kv = kt.double().reshape(*kt.shape[:-1], vl, threads_n, 4)
    acc = None
    for x in range(vl):
        for w in range(4):
            term = qv[..., x, :, w].unsqueeze(-2) * kv[..., x, :, w].unsqueeze(-3)  # (1, h, sq, n, threads_n)
            acc = term + 0.0 if acc is None else acc + term
    lanes = (acc * multiplier).float()
    while lanes.shape[-1] > 1:
        half = lanes.shape[-1] // 2
        lanes = lanes[..., :half] + lanes[..., half:]
    return lanes[..., 0]


def keys_per_iter(cfg) -> int:
    """Keys per main-loop iteration of the split-KV kernel's 128-bit load path: block_n (U x key groups)."""
    groups = cfg.threads // cfg.threads_n
    return (cfg.block_n // groups) * groups


def rule_grid(rule, rows, cols):
    """MaskRule.visible for index tensors rows (sq, 1) and cols (1, n)."""
    ok = (cols >= 0) & (cols < rule.seqlen_k)
    if rule.window_left >= 0:
        ok = ok & (cols >= rows + rule.seqlen_k - rule.seqlen_q - rule.window_left)
    if rule.window_right >= 0:
        ok = ok & (cols <= rows + rule.seqlen_k - rule.seqlen_q + rule.window_right)
    return ok
