"""Max error against the fp64 reference, on a slice of the problem when the full reference does not fit.

The reference is ``rocflash.backends.reference.attention_reference`` in float64. It materialises S and P
(about 4 float64 values per (row, key, head)), so big cases are checked on a slice: the first batch entry,
the first K/V head(s) with their query heads (at least 2 query heads), and the *last* query rows. Keeping
the last rows keeps the bottom-right alignment of causal masks and windows: row i of the slice is row
seqlen_q - rows + i of the full problem and sees the same keys.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from rocflash.backends import FwdArgs
from rocflash.backends.reference import attention_reference

from .cases import Case

F64 = 8
PER_SCORE = 4 * F64  # scores, masked scores, probabilities, the exp temporary


@dataclass(frozen=True)
class RefSlice:
    """batch[:batch], K/V heads [:kv_heads] (query heads [:kv_heads * group]), query rows [seqlen_q - rows:]."""

    batch: int
    kv_heads: int
    rows: int
    full: bool

    def describe(self, case: Case) -> str:
        if self.full:
            return "full"
        h = self.kv_heads * case.group
        rows = "all rows" if self.rows == case.seqlen_q else f"last {self.rows} of {case.seqlen_q} query rows"
        return f"batch 0{'' if self.batch == 1 else f'-{self.batch - 1}'}, heads 0-{h - 1}, {rows}"


def reference_bytes(case: Case, batch: int, kv_heads: int, rows: int) -> int:
    """Estimated peak bytes of the fp64 reference on a slice: S/P temporaries plus fp64 copies of q, k, v, out."""
    heads = kv_heads * case.group
    scores = batch * heads * rows * case.seqlen_k * PER_SCORE
    tensors = (2 * batch * rows * heads + 2 * batch * case.seqlen_k * kv_heads) * case.headdim * F64
    return scores + tensors


def choose_slice(case: Case, budget_bytes: int) -> RefSlice:
    """The whole problem if its reference fits ``budget_bytes``, else batch 0, max(1, ceil(2 / group)) K/V
    heads, and as many of the last query rows as fit (at least one)."""
    if reference_bytes(case, case.batch, case.nheads_k, case.seqlen_q) <= budget_bytes:
        return RefSlice(case.batch, case.nheads_k, case.seqlen_q, True)
    kvh = max(1, min(case.nheads_k, math.ceil(2 / case.group)))
    per_row = reference_bytes(case, 1, kvh, 1) - reference_bytes(case, 1, kvh, 0)
    fixed = reference_bytes(case, 1, kvh, 0)
    rows = max(1, min(case.seqlen_q, (budget_bytes - fixed) // per_row if budget_bytes > fixed else 1))
    return RefSlice(1, kvh, int(rows), False)


def slice_inputs(q, k, v, case: Case, sl: RefSlice):
    h = sl.kv_heads * case.group
    kvh = sl.kv_heads
    return q[: sl.batch, case.seqlen_q - sl.rows:, :h], k[: sl.batch, :, :kvh], v[: sl.batch, :, :kvh]


def slice_output(out, case: Case, sl: RefSlice):
    return out[: sl.batch, case.seqlen_q - sl.rows:, : sl.kv_heads * case.group]


def reference(q, k, v, case: Case, sl: RefSlice) -> torch.Tensor:
    """fp64 reference output of the slice, shape (sl.batch, sl.rows, kv_heads * group, headdim)."""
    qs, ks, vs = (t.detach().to(torch.float64) for t in slice_inputs(q, k, v, case, sl))
    args = FwdArgs(case.headdim ** -0.5, case.window_left, case.right, 0.0, None)
    with torch.no_grad():
        out, _ = attention_reference(qs, ks, vs, args, torch.float64)
    return out


def max_abs_error(out: torch.Tensor, ref: torch.Tensor, case: Case, sl: RefSlice) -> float:
    """max |out - ref| over the slice, in float64 (NaN if the output has NaN)."""
    diff = (slice_output(out.detach(), case, sl).to(torch.float64) - ref).abs()
    if diff.numel() == 0:
        return 0.0
    if torch.isnan(diff).any():
        return float("nan")
    return float(diff.max())
