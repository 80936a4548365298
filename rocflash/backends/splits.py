"""The combine of split-KV partial results (flash-decoding: Dao, Haziza, Massa, Sizov, "Flash-Decoding for
long-context inference", 2023), in the order of the combine kernel (hip_src/fmha_splitkv_kernel.h): since eco14
:func:`combine_partials`, from each split's max score and row sum.

When the split kernel runs, how many splits and their key ranges live in :mod:`rocflash.splitkv` (shared by the
compiled launcher and the sim); the sim's split itself is :mod:`rocflash.backends.sim_splitkv`.
"""

from __future__ import annotations

import math

import torch

LOG2E = 1.0 / math.log(2.0)
LN2 = math.log(2.0)
# The partial of a row that sees a key but met no finite score in the split (every score it saw overflowed float32
# to -inf): LSE_s = -FLT_MAX, O_s = 0 (hip_src/fmha_common.h overflow_split_lse; real LSEs are above it). Weighs 0
# next to a split with a finite score; the row is NaN when it is the largest LSE_s (splitkv_combined_lse).
OVERFLOW_SPLIT_LSE = -3.4028234663852886e38
# The split kernels' partials since eco14 (combine_partials): (m_s, l_s) per split, m_s the split's max score in log2
# units and l_s its row sum against it. An overflow split (the row sees a key, none of its scores in the split is
# finite) writes m_s = OVERFLOW_SPLIT_M, l_s = 0 (a real split has l_s >= 1: its max key weighs exp2(0)); an empty
# one m_s = -inf, l_s = 0.
OVERFLOW_SPLIT_M = -3.4028234663852886e38


def combine(outs: torch.Tensor, lses: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """The merge of partial results by their LSEs (the combine kernel before eco14; now :func:`combine_partials`;
    kept for one-split partials of the forward kernel, sim.forward(key_tiles=...)): ``outs`` (splits, ...,
    headdim), ``lses`` (splits, ...) natural log, summed in split order: LSE = base + log2(sum_s exp2((LSE_s - base) log2 e)) ln 2
    with base = max_s LSE_s (0 if all -inf), O = sum_s exp2((LSE_s - LSE) log2 e) O_s. Rows no split saw get
    O 0 and LSE -inf; an empty split (LSE -inf) weighs 0 and its O is never read. Rows whose largest LSE_s is
    OVERFLOW_SPLIT_LSE (visible keys, every score -inf) get LSE and O NaN."""
    lse_max = lses.amax(dim=0)
    base = torch.where(torch.isneginf(lse_max), torch.zeros_like(lse_max), lse_max)
    total = torch.zeros_like(base)
    for s in range(lses.shape[0]):
        total = total + torch.exp2((lses[s] - base) * LOG2E)
    lse = torch.where(total == 0, torch.full_like(total, float("-inf")), base + torch.log2(total) * LN2)
    lse = torch.where(lse_max == OVERFLOW_SPLIT_LSE, torch.full_like(lse, float("nan")), lse)
    out = torch.zeros_like(outs[0])
    for s in range(lses.shape[0]):
        w = torch.where(total == 0, torch.zeros_like(total), torch.exp2((lses[s] - lse) * LOG2E)).unsqueeze(-1)
        out = out + torch.where(w == 0, torch.zeros_like(outs[s]), w * outs[s])
    return out, lse


def combine_partials(outs: torch.Tensor, ms: torch.Tensor, ls: torch.Tensor, shift: torch.Tensor | None = None
                     ) -> tuple[torch.Tensor, torch.Tensor]:
    """The combine kernel since eco14 (hip_src/fmha_common.h SplitStats): ``outs`` (splits, ..., headdim) each
    normalised by its own l_s, ``ms`` (splits, ...) each split's max score m_s in log2 units, ``ls`` its row sum,
    ``shift`` (...) the row's ALiBi constant (natural units; None: 0). Summed in split order:
    M = max_s m_s (0 if all -inf), L = sum_s exp2(m_s - M) l_s, LSE = (M + log2 L) ln 2 + shift,
    O = sum_s (exp2(m_s - M) l_s / L) O_s. The splits' weights come from differences of their float32 max scores,
    not from float32 LSE_s: at |LSE| ~ 1e19 (fp32, every score ~ -1e19) LSE_s = (m_s + log2 l_s) ln 2 rounded
    log2 l_s away and the splits were weighed equally, not by their key counts (adv16 finding 5: errors 0.35-1.9).
    L == 0: every split empty (M -inf): O 0, LSE -inf; else (only overflow splits, OVERFLOW_SPLIT_M): NaN."""
    empty = torch.isneginf(ms.amax(dim=0))  # every split without keys (NaN propagates)
    # the overflow marker weighs 0 and is not the base: float32 partials are all >= OVERFLOW_SPLIT_M, but a float64
    # split's real max can be below it (q.k ~ -1e300), and M = the marker then gave exp2(m_s - M) * l_s = 0 for every
    # real split, NaN rows where the dense path and one split are finite (adv17)
    ms = torch.where((ls == 0) & (ms == OVERFLOW_SPLIT_M), torch.full_like(ms, float("-inf")), ms)
    m_max = ms.amax(dim=0)
    base = torch.where(torch.isneginf(m_max), torch.zeros_like(m_max), m_max)
    total = torch.zeros_like(base)
    for s in range(ms.shape[0]):
        total = total + torch.exp2(ms[s] - base) * ls[s]
    nan = torch.full_like(total, float("nan"))
    lse = torch.where(total == 0, torch.where(empty, torch.full_like(total, float("-inf")), nan),
                      (base + torch.log2(total)) * LN2)
    if shift is not None:  # not on L == 0 rows (-inf / NaN alone, as splitkv_combined_lse): -inf + inf is NaN (adv17)
        lse = torch.where(total == 0, lse, lse + shift)
    inv = torch.where(total == 0, torch.where(empty, torch.zeros_like(total), nan), 1.0 / total)
    out = torch.zeros_like(outs[0])
    for s in range(ms.shape[0]):
        w = (torch.exp2(ms[s] - base) * ls[s] * inv).unsqueeze(-1)
        out = out + torch.where(w == 0, torch.zeros_like(outs[s]), w * outs[s])
    return out, lse
