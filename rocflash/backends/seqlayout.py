"""Per-sequence views of a varlen / KV-cache call (:class:`rocflash.backends.SeqArgs`) for the torch-op backends.

The ``torch`` and ``sim`` backends run a varlen call as one dense call per sequence: these helpers read the
sequence boundaries once on the host and gather each sequence's first seqlen_k keys, exactly the rows the
kernels address (varlen offsets, a dense cache row, or pages through the block table). Slots past seqlen_k
are never touched, so garbage there (NaN included) cannot reach the result.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import torch

from . import FwdArgs, SeqArgs


@dataclass(frozen=True)
class Sequence:
    """Sequence ``index`` of a call: query rows [q_begin, q_end) and its seqlen_k keys."""

    index: int
    q_begin: int
    q_end: int
    seqlen_k: int
    k_begin: int = 0  # varlen: first K/V row in (total_k, ...)
    cache_row: int = 0  # dense cache: row of k_cache
    blocks: tuple[int, ...] = ()  # paged: the physical blocks holding keys [0, seqlen_k)

    @property
    def seqlen_q(self) -> int:
        return self.q_end - self.q_begin


def sequences(seq: SeqArgs, page_block_size: int = 0) -> list[Sequence]:
    """The sequences of ``seq`` with host-side bounds (one device-to-host copy per index tensor)."""
    cu_q = seq.cu_seqlens_q.tolist()
    if seq.cu_seqlens_k is not None:
        cu_k = seq.cu_seqlens_k.tolist()
        lens_k, starts = [b - a for a, b in zip(cu_k, cu_k[1:])], cu_k[:-1]
    else:
        lens_k, starts = seq.seqused_k.tolist(), [0] * seq.batch
    rows = seq.cache_batch_idx.tolist() if seq.cache_batch_idx is not None else list(range(seq.batch))
    table = seq.block_table.tolist() if seq.block_table is not None else None
    out = []
    for b in range(seq.batch):
        blocks = ()
        if table is not None:
            blocks = tuple(table[b][:-(-lens_k[b] // page_block_size)])
        out.append(Sequence(b, cu_q[b], cu_q[b + 1], lens_k[b], starts[b], rows[b], blocks))
    return out


def sequence_kv(k: torch.Tensor, v: torch.Tensor, seq: SeqArgs, s: Sequence) -> tuple[torch.Tensor, torch.Tensor]:
    """(k_s, v_s): (1, seqlen_k, nheads_k, headdim) views or gathers of sequence ``s``'s keys (differentiable)."""
    if seq.cu_seqlens_k is not None:
        ks, vs = (x[s.k_begin:s.k_begin + s.seqlen_k] for x in (k, v))
    elif seq.block_table is not None:
        idx = torch.tensor(s.blocks, dtype=torch.long, device=k.device)
        ks, vs = (x.index_select(0, idx).flatten(0, 1)[:s.seqlen_k] for x in (k, v))
    else:
        ks, vs = (x[s.cache_row, :s.seqlen_k] for x in (k, v))
    return ks.unsqueeze(0), vs.unsqueeze(0)


def alibi_for(args_alibi: torch.Tensor | None, b: int) -> torch.Tensor | None:
    """The ALiBi slopes of sequence ``b``: (nheads,) slopes are shared, (batch, nheads) ones are per sequence."""
    if args_alibi is None or args_alibi.dim() == 1:
        return args_alibi
    return args_alibi[b]


def backward_by_sequence(dense_backward, q, k, v, out, lse, dout, seq: SeqArgs, args: FwdArgs, out_fp32=None):
    """A varlen backward (SeqArgs' contract, varlen K/V layout only) as one dense backward per sequence:
    ``dense_backward(q, k, v, out, lse, dout, args)`` on the sequence's (1, n, heads, headdim) views and its
    lse (1, nheads, n) cut from the given (nheads, total_q), which may be a larger problem's (ring attention), or
    softmax stats (1, nheads, n, 2) from (nheads, total_q, 2). ``out_fp32``: the forward's float32 O like q (None or
    empty: none), the sequence's rows passed on as ``dense_backward(..., out_fp32=)``.
    Returns (dq, dk, dv) like q, k, v; sequences without rows or keys get zero gradients."""
    if seq.cu_seqlens_k is None:
        raise NotImplementedError("the backward of a KV-cache / paged layout is not implemented (forward only)")
    dq, dk, dv = (torch.zeros_like(x, memory_format=torch.contiguous_format) for x in (q, k, v))
    for s in sequences(seq):
        if s.seqlen_q == 0 or s.seqlen_k == 0:  # no visible key: every gradient of the sequence is 0
            continue
        rows, keys = slice(s.q_begin, s.q_end), slice(s.k_begin, s.k_begin + s.seqlen_k)
        a = replace(args, alibi_slopes=alibi_for(args.alibi_slopes, s.index))
        kw = {} if out_fp32 is None or not out_fp32.numel() else {"out_fp32": out_fp32[rows].unsqueeze(0)}
        g = dense_backward(q[rows].unsqueeze(0), k[keys].unsqueeze(0), v[keys].unsqueeze(0), out[rows].unsqueeze(0),
                           lse[:, rows].unsqueeze(0), dout[rows].unsqueeze(0), a, **kw)
        dq[rows], dk[keys], dv[keys] = (x[0] for x in g)
    return dq, dk, dv


# ---------------------------------------------------------------------------------------------- ALiBi row shift
def alibi_anchor(rows: torch.Tensor, seqlen_q: int, seqlen_k: int) -> torch.Tensor:
    """The key each query row's ALiBi distance is measured from in the kernels (ScoreTransform::alibi_anchor in
    hip_src/fmha_common.h): the row's diagonal position i + seqlen_k - seqlen_q clamped into [0, seqlen_k - 1].

    For every key j in [0, seqlen_k): |i + sk - sq - j| = |i + sk - sq - a| + |a - j| with a the anchor (both
    differences have one sign when the diagonal lies outside the keys; the first is 0 when it lies inside). So the
    score keeps -slope * |a - j| and the per-row constant -slope * |i + sk - sq - a|, which cancels in softmax, is
    added to the LSE only (alibi_row_shift). Rows far from every key (seqlen_q > seqlen_k, no causal mask) then
    round scores of the size of scale * q.k in float32, not of slope * seqlen_q (issue 8: |score| ~ 2000-2800 left
    FlashAttention's backward rule in float32)."""
    return (rows + (seqlen_k - seqlen_q)).clamp(max=seqlen_k - 1).clamp(min=0)


def alibi_row_shift(slopes: torch.Tensor | None, batch: int, nheads: int, seqlen_q: int, seqlen_k: int,
                    device, dtype=torch.float32) -> torch.Tensor | None:
    """(batch, nheads, seqlen_q) in ``dtype``: the per-row constant -slope * |i + sk - sq - anchor| (natural units)
    the kernels leave out of the scores and add to the LSE (ScoreTransform::row_shift); None without ALiBi.
    A backward that rebuilds P from an LSE subtracts it first: m = (LSE - shift) * log2(e) (stats_from_lse)."""
    if slopes is None:
        return None
    rows = torch.arange(seqlen_q, device=device)
    dist = (rows + (seqlen_k - seqlen_q) - alibi_anchor(rows, seqlen_q, seqlen_k)).abs().to(dtype)
    s = slopes.to(device=device, dtype=dtype)
    s = (s.view(1, nheads) if s.dim() == 1 else s.view(batch, nheads)).expand(batch, nheads)
    return -(s.reshape(batch, nheads, 1) * dist)


def alibi_row_shift_varlen(slopes: torch.Tensor | None, seq: SeqArgs, nheads: int, total_q: int, device,
                           dtype=torch.float32) -> torch.Tensor | None:
    """alibi_row_shift in the varlen LSE layout (nheads, total_q): each sequence with its own seqlen_q, seqlen_k and
    slopes (read on the host once); rows outside every sequence 0. None without ALiBi."""
    if slopes is None:
        return None
    out = torch.zeros(nheads, total_q, dtype=dtype, device=device)
    for s in sequences(seq):
        if s.seqlen_q:
            out[:, s.q_begin:s.q_end] = alibi_row_shift(alibi_for(slopes, s.index), 1, nheads, s.seqlen_q,
                                                        s.seqlen_k, device, dtype)[0]
    return out
