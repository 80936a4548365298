"""The ``torch`` backend: attention written out with PyTorch ops (S and P materialised, O(N^2) memory).

Also the tests' reference: ``attention_reference(..., compute_dtype=torch.float64)`` is the fp64 golden
result, and ``compute_dtype=q.dtype`` the low-precision eager baseline of FlashAttention's tolerance rule.
"""

from __future__ import annotations

import math
import operator
from dataclasses import replace

import torch

from ..masks import MaskRule
from . import FwdArgs, SeqArgs
from .seqlayout import alibi_for, backward_by_sequence, sequence_kv, sequences


def attention_reference(q, k, v, args: FwdArgs, compute_dtype: torch.dtype | None = None):
    """softmax(Q.K^T * scale [softcap] [+ ALiBi] [mask]) . V computed in ``compute_dtype``.

    q: (batch, seqlen_q, nheads, headdim); k, v: (batch, seqlen_k, nheads_k, headdim).
    Returns (out in q.dtype with q's shape, lse float32 (batch, nheads, seqlen_q), natural log).
    Fully masked rows give out 0 and lse -inf; rows whose visible scaled scores all overflow ``compute_dtype`` to
    -inf give NaN (out, lse, gradients), as the fused kernels (float32 / float64 compute_dtype; a 16-bit one, the
    eager baseline, keeps 0 / -inf there). Differentiable in q, k, v, twice (autograd through the ops).

    Masked keys contribute exactly nothing: NaN or inf in a K or V row that a query row cannot see changes
    neither that row's output nor any gradient of it. The products run on K and V with their non-finite
    elements replaced by 0 (a select); visible non-finite elements then poison exactly what IEEE arithmetic
    through FlashAttention's formulas poisons in the fused kernels (rocflash.flash_attn_func's docstring,
    "NaN semantics"): a row that sees a non-finite K element gets NaN P (out, LSE, and the dV of every key it
    sees), a row that sees a non-finite V element in column c gets NaN in out[:, c]; either makes the row's dP
    NaN (its dq, and the dk of every key it sees). dV = P^T dO never reads V: a non-finite V element leaves dv
    finite.
    P is exp(S - max) / sum, normalised in ``compute_dtype`` (not exp(S - LSE), whose rounding of a large
    LSE would put rows off by up to |LSE| * eps).

    As the fp64 oracle (compute_dtype float64, float32 / 16-bit inputs) every score is within
    ORACLE_SCORE_ERROR * max(1, |score|) (1e-9) of the exact one, also where q.k's products cancel (those elements
    are re-summed exactly: :func:`_exact_where_rounded`). The other sums (P.V, and autograd's dP = dO.V^T, dQ, dK,
    dV) are fp64 matmuls, within headdim (or seqlen_k) * 2^-53 * the sum of the absolute products: exact enough
    for the tolerance rule except on inputs built to cancel there.
    """
    parts = _Parts(q, k, v, args, compute_dtype)
    p = parts.probs + parts.p_poison  # NaN P where a row sees a non-finite K element (its visible keys)
    # dP = dO.V^T is NaN on rows that see a non-finite K or V element (their V is 0 here: poison the gradient)
    p = _PoisonGrad.apply(p, parts.sees_bad.unsqueeze(-1))
    out = torch.matmul(p.to(parts.vc.dtype), parts.vc) + parts.out_poison  # no gradient through the V poison
    return out.transpose(1, 2).to(q.dtype).contiguous(), (parts.lse * parts.lse_poison).to(torch.float32)


class _FiniteOrZero(torch.autograd.Function):
    """x with its non-finite elements 0 (the select that keeps them out of masked products); the gradient passes
    through unchanged, so a non-finite element's own gradient is what the kernels give it (NaN for a K element
    its rows see, P^T dO for a V element), not the 0 of torch.where's backward."""

    @staticmethod
    def forward(ctx, x):
        return torch.where(torch.isfinite(x), x, torch.zeros((), dtype=x.dtype, device=x.device))

    @staticmethod
    def backward(ctx, grad):
        return grad


class _PoisonGrad(torch.autograd.Function):
    """Identity forward; the backward sets the gradient to NaN where ``bad`` (broadcast) holds (differentiable)."""

    @staticmethod
    def forward(ctx, x, bad):
        ctx.save_for_backward(bad)
        return x.view_as(x)

    @staticmethod
    def backward(ctx, grad):
        (bad,) = ctx.saved_tensors
        return torch.where(bad, torch.full((), float("nan"), dtype=grad.dtype, device=grad.device), grad), None


# A score of the fp64 oracle may carry at most this error (absolute, after softmax_scale; relative above 1): far
# below the tolerance rule's 1e-3 floor and float32's own rounding of the outputs.
ORACLE_SCORE_ERROR = 1e-9


def _exact_where_rounded(qc, kc, dots, softmax_scale: float):
    """``dots`` = qc @ kc^T (float64 of float32 / 16-bit inputs) with every element whose rounding could exceed
    ORACLE_SCORE_ERROR * max(1, |score|) after the scale replaced by the correctly rounded dot product.

    Each product of two float32 (or 16-bit) values is exact in float64 (at most 48 significant bits); only the
    matmul's additions round, in any order by at most gamma_d * sum_c |q_c k_c| <= gamma_d |q| |k| (Cauchy-Schwarz)
    with gamma_d = d u / (1 - d u), u = 2^-53 (Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed.,
    eq. 3.5). That bound is small against the score except where the products cancel (q.k far below |q| |k|:
    e.g. 1e20 * 1e20 - 1e20 * 1e20 + 1, where the matmul's order can lose the 1). Those elements, and only those,
    are summed again with math.fsum (exact sum, rounded once). Inputs whose largest |q| |k| cannot reach the
    threshold (ordinary ones) cost two norms. The correction is a constant for autograd (dS/dq = k whatever the
    sum order).
    """
    d = qc.shape[-1]
    if dots.numel() == 0 or d == 0:
        return dots
    u = 2.0 ** -53
    c = d * u / (1 - d * u) * abs(softmax_scale)
    with torch.no_grad():
        qn, kn = torch.linalg.vector_norm(qc, dim=-1), torch.linalg.vector_norm(kc, dim=-1)  # (b, h, s)
        if not c * float(qn.max()) * float(kn.max()) > ORACLE_SCORE_ERROR:  # NaN inputs: their scores are NaN
            return dots
        bound = (qn * c).unsqueeze(-1) * kn.unsqueeze(-2)
        scaled = dots * softmax_scale
        suspect = torch.isfinite(bound) & torch.isfinite(scaled) & \
            (bound > ORACLE_SCORE_ERROR * scaled.abs().clamp(min=1.0))
        idx = suspect.nonzero()
        if idx.shape[0] == 0:
            return dots
        b, h, i, j = idx.unbind(1)
        exact = [math.fsum(map(operator.mul, x, y)) for x, y in zip(qc[b, h, i].tolist(), kc[b, h, j].tolist())]
        fixed = dots.detach().clone()
        fixed[b, h, i, j] = torch.tensor(exact, dtype=dots.dtype, device=dots.device)
    return dots + (fixed - dots.detach())


class _Parts:
    """The intermediates of ``attention_reference`` (all (b, h, ...) in compute_dtype): the shared first half
    of its forward and of the explicit ``backward``."""

    def __init__(self, q, k, v, args: FwdArgs, compute_dtype):
        self.compute_dtype = compute_dtype = compute_dtype or (torch.float64 if q.dtype == torch.float64 else torch.float32)
        batch, seqlen_q, nheads, _ = q.shape
        seqlen_k, nheads_k = k.shape[1], k.shape[2]
        self.group = group = nheads // nheads_k
        self.qc = qc = q.to(compute_dtype).transpose(1, 2)  # (b, h, sq, d)

        def finite_part(x):  # (b, sk, hk, d) -> (b, h, sk, d) with non-finite elements 0; (b, h, sk) "row had any"
            x = x.transpose(1, 2)
            ok = torch.isfinite(x)
            clean = _FiniteOrZero.apply(x).to(compute_dtype)
            return clean.repeat_interleave(group, dim=1), (~ok).any(dim=-1).repeat_interleave(group, dim=1), ok

        self.kc, k_bad, self.k_ok = finite_part(k)
        self.vc, _, self.v_ok = finite_part(v)
        scores = torch.matmul(qc, self.kc.transpose(-1, -2))
        if compute_dtype == torch.float64 and q.dtype != torch.float64:  # the fp64 oracle: exact products
            scores = _exact_where_rounded(qc, self.kc, scores, args.softmax_scale)
        self.tanh = None
        if args.softcap > 0:  # tanh(S * (scale / softcap)) as the kernels (cap_scale): S * scale itself can pass
            # float32 (scale 2e38, softcap 2e38, q.k 2: inf, tanh 1) where the capped score is finite and exact (adv16)
            self.tanh = torch.tanh(scores * (args.softmax_scale / args.softcap))
            scores = args.softcap * self.tanh
        else:
            scores = scores * args.softmax_scale
        rows = torch.arange(seqlen_q, device=q.device).view(-1, 1)
        cols = torch.arange(seqlen_k, device=q.device).view(1, -1)
        diag = rows + seqlen_k - seqlen_q  # the key aligned with each query row (bottom-right)
        self.row_shift = None
        if args.alibi_slopes is not None:
            # ALiBi split at the row's anchor a = clamp(i + sk - sq, 0, sk - 1), as the kernels (ScoreTransform):
            # the score keeps -slope * |a - j| and the row constant -slope * |i + sk - sq - a| (it cancels in
            # softmax) goes to the LSE. Subtracting the full distance overflowed float32 to -inf on rows far from
            # every key (seqlen_q > seqlen_k, no causal, slope ~1e37): NaN rows where the exact O is finite (adv16)
            slopes = args.alibi_slopes.to(compute_dtype)
            slopes = slopes.view(1, nheads, 1, 1) if slopes.dim() == 1 else slopes.view(batch, nheads, 1, 1)
            anchor = diag.clamp(max=seqlen_k - 1).clamp(min=0)
            scores = scores - slopes * (anchor - cols).abs().to(compute_dtype)
            self.row_shift = -(slopes.squeeze(-1) * (diag - anchor).abs().view(-1).to(compute_dtype))  # (b|1, h, sq)
        visible = MaskRule(seqlen_q, seqlen_k, args.window_left, args.window_right).visible_grid(rows, cols)
        scores = scores.masked_fill(~visible, float("-inf"))
        self.visible, self.scores = visible, scores
        # softmax is shift invariant: no gradient through the row max (no key at all: every row fully masked)
        row_max = (scores.amax(dim=-1, keepdim=True) if seqlen_k else scores.new_full((*scores.shape[:-1], 1), float("-inf"))).detach()
        # a row that sees keys whose scaled scores all overflowed compute_dtype to -inf (fp32: q.k ~ -3e40, or
        # softmax_scale ~ -1e38) is NaN, as in the fused kernels (hip_src/fmha_common.h empty_row_inv_l): the exact
        # answer is finite, a 0 / -inf row would pass for one that sees no key (issue 8)
        # (float32 / float64 compute only: the kernels' arithmetic. A 16-bit compute_dtype is the tests' eager
        # baseline, whose scores overflow float16 at -65504 where the kernels' float32 scores do not (test_cases C7);
        # NaN there would make the tolerance NaN, so it keeps the 0 / -inf of a row without keys)
        overflow = torch.isneginf(row_max.squeeze(-1)) & visible.any(dim=-1)
        if compute_dtype not in (torch.float32, torch.float64):
            overflow = torch.zeros_like(overflow)
        row_max = row_max.masked_fill(torch.isneginf(row_max), 0.0)  # fully masked rows: exp(-inf - 0) = 0
        e = torch.exp(scores - row_max)
        total = e.sum(dim=-1, keepdim=True)
        self.probs = e / total.masked_fill(total == 0, 1.0)  # fully masked rows: P = 0, out 0
        self.lse = (row_max + torch.log(total)).squeeze(-1)  # -inf for fully masked rows
        if self.row_shift is not None:  # rows without a visible key keep -inf (a negative slope's shift may be +inf)
            self.lse = torch.where(torch.isneginf(self.lse), self.lse, self.lse + self.row_shift)
        # NaN where a row sees a non-finite K or V element (the selects above must not hide visible NaN):
        # out[i, :] and LSE[i] when it sees a non-finite K element (every score of the row is), out[i, c] when it
        # sees a non-finite V element in column c (P @ V mixes columns separately); sees_bad (either) for the
        # gradients of the row
        nan = torch.full((), float("nan"), dtype=compute_dtype, device=q.device)
        one = torch.ones((), dtype=compute_dtype, device=q.device)
        vis = visible.to(compute_dtype)
        sees_bad_k = torch.matmul(vis, k_bad.to(compute_dtype).unsqueeze(-1)).squeeze(-1) > 0  # (b, h, sq)
        sees_bad_k = sees_bad_k | overflow  # poisoned as a row that sees a non-finite K element
        v_bad_cols = (~self.v_ok).repeat_interleave(group, dim=1).to(compute_dtype)  # (b, h, sk, d)
        sees_bad_v = torch.matmul(vis, v_bad_cols) > 0  # (b, h, sq, d)
        self.sees_bad = sees_bad_k | sees_bad_v.any(dim=-1)
        self.sees_bad_k = sees_bad_k
        self.lse_poison = torch.where(sees_bad_k, nan, one)
        zero = torch.zeros((), dtype=compute_dtype, device=q.device)
        self.p_poison = torch.where(sees_bad_k.unsqueeze(-1) & visible, nan, zero)  # (b, h, sq, sk), added to P
        self.out_poison = torch.where(sees_bad_v, nan, zero)  # (b, h, sq, d), added to out

def explicit_backward(q, k, v, dout, args: FwdArgs, out=None, lse=None):
    """(dq, dk, dv) of ``attention_reference`` (compute dtype fp32, fp64 for fp64 inputs) written out
    (FlashAttention-2's formulas, Dao 2023, Algorithm 2), for callers that cannot run autograd (the
    ``rocflash::bwd`` custom op, ring attention)::

        dV = P^T dO,  dP = dO V^T,  dS = P * (dP - D) * g  (g = 1 - tanh^2 with softcap),
        dQ = dS K * scale,  dK = dS^T Q * scale,  dK/dV summed over each GQA group

    Without ``out``/``lse``: P is this problem's softmax and D = rowsum(P * dP). With them (ring attention
    passes each key block the global O and LSE): P = exp(S - LSE) and D = rowsum(dO * O), so the result is this
    block's share of the gradients. Masked entries contribute exactly nothing (selects, not products with 0); a
    visible non-finite K or V element makes dq NaN on the rows that see it and dk NaN on every key those rows
    see; a non-finite K element also makes dv NaN on every key its rows see (their P is NaN), a non-finite V
    element leaves dv finite (the NaN semantics of ``attention_reference``, as the fused kernels compute).
    """
    parts = _Parts(q, k, v, args, None)
    acc = parts.compute_dtype
    zero = torch.zeros((), dtype=acc, device=q.device)
    do = dout.to(acc).transpose(1, 2)  # (b, h, sq, d)
    visible = parts.visible  # (sq, sk) bool
    if lse is None:
        p = parts.probs
    else:
        lse_x = lse.detach().to(acc).unsqueeze(-1)
        inf = torch.full_like(lse_x, float("inf"))
        z = parts.scores - torch.where(torch.isneginf(lse_x), inf, lse_x)
        if parts.row_shift is not None:
            # The scores leave ALiBi's row constant out, the LSE holds it. Rows whose anchor is their diagonal
            # (shift 0): exp(S - LSE) as above. Rows with a shift (seqlen_q > seqlen_k, far from every key): the LSE
            # is one float32 of shift + the row's own log-sum, so LSE - shift loses that log-sum once |shift| * 2^-24
            # is not negligible (adv17: slope 2e36, seqlen_q 40, seqlen_k 4: P = exp(scale * q.k) for the anchor
            # key, dv off by 17, silently). There the score takes the full distance back, rounded as the LSE was:
            # exp((S + shift) - LSE), as before eco14. A -inf LSE on a row that sees a key (its exact LSE below
            # -FLT_MAX) gives NaN, not 0: the gradient is not representable from it.
            shift = parts.row_shift.to(acc).unsqueeze(-1)
            z = torch.where(shift == 0, z, (parts.scores + shift) - lse_x)
        p = torch.where(visible, torch.exp(z), zero)
    dv = torch.matmul(p.transpose(-1, -2), do)
    dp = torch.matmul(do, parts.vc.transpose(-1, -2))
    if out is None:
        delta = (p * dp).sum(dim=-1, keepdim=True)
    else:
        delta = (do * out.detach().to(acc).transpose(1, 2)).sum(dim=-1, keepdim=True)
    ds = torch.where(visible, p * (dp - delta), zero)
    if parts.tanh is not None:
        ds = ds * (1 - parts.tanh * parts.tanh)
    dq = torch.matmul(ds, parts.kc) * args.softmax_scale
    dk = torch.matmul(ds.transpose(-1, -2), parts.qc) * args.softmax_scale
    # NaN where a non-finite input is visible: rows that see one (dq), keys those rows see (dk); keys that rows
    # seeing a non-finite K element see (dv: those rows' P is NaN)
    nan = torch.full((), float("nan"), dtype=acc, device=q.device)
    dq = torch.where(parts.sees_bad.unsqueeze(-1), nan, dq)
    vis = visible.to(acc)
    keys_hit = torch.matmul(parts.sees_bad.to(acc).unsqueeze(-2), vis).squeeze(-2) > 0  # (b, h, sk)
    keys_hit_k = torch.matmul(parts.sees_bad_k.to(acc).unsqueeze(-2), vis).squeeze(-2) > 0
    dk = torch.where(keys_hit.unsqueeze(-1), nan, dk)
    dv = torch.where(keys_hit_k.unsqueeze(-1), nan, dv)

    def finish(x, heads):  # (b, h, s, d) -> (b, s, heads, d), GQA groups summed
        if heads != x.shape[1]:
            x = x.view(x.shape[0], heads, parts.group, *x.shape[2:]).sum(dim=2)
        return x.transpose(1, 2).to(q.dtype).contiguous()

    nheads_k = k.shape[2]
    return finish(dq, q.shape[2]), finish(dk, nheads_k), finish(dv, nheads_k)


def forward(q, k, v, args: FwdArgs):
    return attention_reference(q, k, v, args)


def backward(q, k, v, out, lse, dout, args: FwdArgs):
    """The torch backend's backward from a forward's ``out`` and ``lse`` (the fused backends' contract).

    FlashAttention-2's recomputation (Dao 2023, Algorithm 2) through :func:`explicit_backward`: P = exp(S - LSE),
    D = rowsum(dO * O), dS = P * (dO.V^T - D). ``out`` and ``lse`` may be those of a larger problem that
    contains this one (ring attention passes each block the global O and LSE): the result is then this
    block's share of the gradients. Inputs as ``forward`` plus out (q's shape), lse (batch, nheads, seqlen_q)
    and dout (q's shape); returns (dq, dk, dv) in the inputs' dtype and shapes. Used by rocflash.parallel.
    """
    return explicit_backward(q, k, v, dout, args, out=out, lse=lse)


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
    """(dq, dk, dv) from a varlen forward's ``out`` and ``lse`` (nheads, total_q): :func:`backward` per sequence
    (the fused backends' contract; ``out``/``lse`` may be those of a larger problem, as ring attention passes
    them: then this call's share of the gradients). Varlen K/V layout only."""
    return backward_by_sequence(backward, q, k, v, out, lse, dout, seq, args)
