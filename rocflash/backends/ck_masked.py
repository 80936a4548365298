"""Masked keys contribute exactly nothing on the ``ck`` backend: the inputs CK gets for a masked call
(causal or sliding window) and the NaN pattern restored afterwards.

Why (CK 1.2.0, read, not run): CK's pipelines set a masked score to -inf, so P = 0, and then multiply P by
the V rows (forward O += P.V; backward dP = dO.V^T, dS = P * (dP - D)) and dS by the K rows (backward
dQ = dS.K) of every key in the key tiles a query tile visits (block_fmha_pipeline_qr_ks_vs.hpp,
block_fmha_bwd_dq_dk_dv_pipeline_kr_ktr_vr.hpp). 0 * NaN = NaN, so a NaN / inf in a K or V row that a query
row cannot see (garbage in causal- or window-masked rows) would reach that row. A masked score itself is
overwritten with -inf (set_tile_if on every edge tile), so a non-finite K never reaches the forward; keys past
seqlen_k are read as 0 (padded tensor views) and are harmless.

What the ck backend does for a masked call, with torch ops on the device (no host synchronisation):
- forward: V with its non-finite elements replaced by 0 goes to CK; afterwards out[i, c] is NaN where row i
  sees a non-finite V element in column c. K goes to CK unchanged (its masked scores are overwritten), so a
  non-finite K element a row sees gives that row's out and LSE what IEEE arithmetic gives (NaN for NaN).
- backward: K and V with non-finite elements replaced by 0; for the rows that see a non-finite K element
  LSE = +inf (P = exp2(s - inf) = 0: those rows contribute exactly nothing), for the rows that see a non-finite
  K or V element D = 0 (finite); then dq of those rows is NaN, dk of every key such a row sees is NaN, dv of
  every key a row seeing a non-finite K element sees is NaN, and dv = P^T.dout stays exact for the rows that see
  only a non-finite V element: the documented pattern (flash_attn_func's docstring; backends/reference.py).
Cost (masked calls only): forward one isfinite + select pass over V and a copy of it (V's bytes), an int32
prefix count over V's elements (4 bytes each) and a bool (out's shape); backward copies of K and V, int32
prefix counts per key row and per query row, and selects over dq, dk, dv. All O(seqlen * headdim): no
(seqlen_q, seqlen_k) matrix. Unmasked calls run unchanged.

Which keys a row sees: flash-attn's bottom-right rule (rocflash.masks), a contiguous range [lo, hi) per row
(and a contiguous range of rows per key), so "sees a flagged key" is a difference of prefix counts.
"""

from __future__ import annotations

import torch

from . import FwdArgs


def is_masked(args: FwdArgs) -> bool:
    """A causal or sliding-window call (some key is masked for some row): CK's mask_type is not 'none'."""
    return args.window_left >= 0 or args.window_right >= 0


def finite_or_zero(x: torch.Tensor) -> torch.Tensor:
    """``x`` with its non-finite elements replaced by 0 (a new tensor)."""
    return torch.where(torch.isfinite(x), x, torch.zeros((), dtype=x.dtype, device=x.device))


def row_key_range(seqlen_q: int, seqlen_k: int, args: FwdArgs, device) -> tuple[torch.Tensor, torch.Tensor]:
    """(lo, hi) int64 (seqlen_q,): query row i sees keys [lo[i], hi[i]) (bottom-right; empty: lo == hi)."""
    i = torch.arange(seqlen_q, device=device)
    diag = seqlen_k - seqlen_q
    lo = (i + diag - args.window_left).clamp(0, seqlen_k) if args.window_left >= 0 else torch.zeros_like(i)
    hi = (i + diag + args.window_right + 1).clamp(0, seqlen_k) if args.window_right >= 0 \
        else torch.full_like(i, seqlen_k)
    return lo, torch.maximum(lo, hi)


def overflow_rows_to_nan(out: torch.Tensor, lse: torch.Tensor, sees: torch.Tensor) -> None:
    """In place: NaN in ``out`` and ``lse`` on the rows whose LSE is -inf although they see a key (``sees``: bool, the
    rows' key ranges non-empty): every visible scaled score overflowed float32 to -inf, whose answer is finite, and O
    0 / LSE -inf would pass for a row that sees no key (issue 8; rocflash's kernels decide it in their epilogue,
    hip_src/fmha_common.h empty_row_inv_l). CK's epilogue is not ours: this runs after it, on the LSE alone.
    Layouts: dense out (batch, seqlen_q, nheads, d) with lse (batch, nheads, seqlen_q) and sees (seqlen_q,); group
    mode out (total_q, nheads, d) with lse (nheads, total_q) and sees (total_q,). Cost: three elementwise passes over
    the LSE and a masked fill of out (O(seqlen_q * nheads)), every CK forward (CK has no cheaper hook)."""
    bad = torch.isneginf(lse) & sees  # (batch, nheads, seqlen_q) or (nheads, total_q)
    lse.masked_fill_(bad, float("nan"))
    out.masked_fill_(bad.transpose(-1, -2).unsqueeze(-1), float("nan"))


def key_row_range(seqlen_q: int, seqlen_k: int, args: FwdArgs, device) -> tuple[torch.Tensor, torch.Tensor]:
    """(lo, hi) int64 (seqlen_k,): key j is seen by query rows [lo[j], hi[j]) (the transpose of
    :func:`row_key_range`: row i sees j iff j - diag - right <= i <= j - diag + left, diag = seqlen_k - seqlen_q)."""
    j = torch.arange(seqlen_k, device=device)
    diag = seqlen_k - seqlen_q
    lo = (j - diag - args.window_right).clamp(0, seqlen_q) if args.window_right >= 0 else torch.zeros_like(j)
    hi = (j - diag + args.window_left + 1).clamp(0, seqlen_q) if args.window_left >= 0 \
        else torch.full_like(j, seqlen_q)
    return lo, torch.maximum(lo, hi)


def varlen_ranges(cu_seqlens_q: torch.Tensor, cu_seqlens_k: torch.Tensor, total_q: int, total_k: int,
                  args: FwdArgs) -> tuple[tuple[torch.Tensor, torch.Tensor], tuple[torch.Tensor, torch.Tensor]]:
    """The packed (group-mode) counterparts of :func:`row_key_range` and :func:`key_row_range`, on the device
    without a host sync: ((lo, hi) per packed query row, in packed key rows), ((lo, hi) per packed key row, in
    packed query rows); each sequence bottom-right aligned with its own seqlen_q / seqlen_k."""
    dev = cu_seqlens_q.device
    cu_q, cu_k = cu_seqlens_q.long(), cu_seqlens_k.long()
    lens_q, lens_k = cu_q[1:] - cu_q[:-1], cu_k[1:] - cu_k[:-1]
    seqs = torch.arange(lens_q.shape[0], device=dev)
    left, right = args.window_left, args.window_right

    def ranges(n, lens_a, lens_b, cu_a, cu_b, diag_sign, lo_side, hi_side):
        seq = torch.repeat_interleave(seqs, lens_a, output_size=n)
        idx = torch.arange(n, device=dev) - cu_a[seq]
        nb = lens_b[seq]
        diag = diag_sign * (lens_k[seq] - lens_q[seq])
        zero = torch.zeros_like(idx)
        lo = torch.clamp(idx + diag - lo_side, min=zero, max=nb) if lo_side >= 0 else zero
        hi = torch.clamp(idx + diag + hi_side + 1, min=zero, max=nb) if hi_side >= 0 else nb
        return lo + cu_b[seq], torch.maximum(lo, hi) + cu_b[seq]

    rows = ranges(total_q, lens_q, lens_k, cu_q, cu_k, 1, left, right)  # row i sees [i + diag - left, i + diag + right]
    keys = ranges(total_k, lens_k, lens_q, cu_k, cu_q, -1, right, left)  # j seen by [j - diag - right, j - diag + left]
    return rows, keys


def any_in_range(flags: torch.Tensor, lo: torch.Tensor, hi: torch.Tensor) -> torch.Tensor:
    """flags (batch, n, ...) bool -> (batch, len(lo), ...) bool: whether flags[:, lo[r]:hi[r]] holds a True,
    from an int32 prefix count along dim 1."""
    counts = torch.cumsum(flags, dim=1, dtype=torch.int32)
    counts = torch.cat((torch.zeros_like(counts[:, :1]), counts), dim=1)
    return counts.index_select(1, hi) > counts.index_select(1, lo)


def _per_query_head(x: torch.Tensor, nheads: int) -> torch.Tensor:
    """(batch, s, nheads_k, ...) -> (batch, s, nheads, ...): query head h uses key head h // (nheads / nheads_k)."""
    return x.repeat_interleave(nheads // x.shape[2], dim=2)


def poison_out(out: torch.Tensor, v: torch.Tensor, args: FwdArgs, ranges=None) -> torch.Tensor:
    """``out`` (batch, seqlen_q, nheads, headdim_v) with NaN where the row sees a non-finite element of V in
    that column (in place; returns out). ``ranges``: (lo, hi) per row (varlen_ranges; default row_key_range)."""
    lo, hi = ranges if ranges is not None else row_key_range(out.shape[1], v.shape[1], args, out.device)
    bad = any_in_range(~torch.isfinite(v), lo, hi)  # (batch, seqlen_q, nheads_k, headdim_v)
    return out.masked_fill_(_per_query_head(bad, out.shape[2]), float("nan"))


def rows_seeing_bad(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, args: FwdArgs,
                    ranges=None) -> tuple[torch.Tensor, torch.Tensor]:
    """bool (batch, seqlen_q, nheads) twice: the query rows that see a non-finite element of K, and those that see
    one of V. ``ranges`` as in :func:`poison_out`."""
    lo, hi = ranges if ranges is not None else row_key_range(q.shape[1], k.shape[1], args, q.device)
    return tuple(_per_query_head(any_in_range((~torch.isfinite(x)).any(dim=-1), lo, hi), q.shape[2]) for x in (k, v))


def poison_grads(dq: torch.Tensor, dk_h: torch.Tensor, dv_h: torch.Tensor, sees_bad_k: torch.Tensor,
                 sees_bad_v: torch.Tensor, args: FwdArgs, key_ranges=None) -> None:
    """In place, the documented NaN pattern (flash_attn_func's docstring, tests/test_nan_semantics.py): NaN in dq's
    rows that see a non-finite K or V element, in the per-query-head dk (batch, seqlen_k, nheads, headdim) of every
    key such a row sees, and in dv of every key a row seeing a non-finite K element sees (a non-finite V element
    leaves dv = P^T.dout finite)."""
    sees_bad = sees_bad_k | sees_bad_v
    dq.masked_fill_(sees_bad.unsqueeze(-1), float("nan"))
    lo, hi = key_ranges if key_ranges is not None else key_row_range(dq.shape[1], dk_h.shape[1], args, dq.device)
    dk_h.masked_fill_(any_in_range(sees_bad, lo, hi).unsqueeze(-1), float("nan"))  # (batch, seqlen_k, nheads, 1)
    dv_h.masked_fill_(any_in_range(sees_bad_k, lo, hi).unsqueeze(-1), float("nan"))
