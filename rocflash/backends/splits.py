"""Split-KV (flash-decoding) policy: how many splits a forward runs, and which key tiles each split owns.

One definition for every backend: the compiled launcher resolves ``num_splits=0`` with the device's CU/SM
count, the ``sim`` backend with the simulated target's (60 CUs: MI50), and both cut the key range with
:func:`split_tile_range`. The combine of the partial results (:func:`combine`) follows flash-decoding
(Dao, Haziza, Massa, Sizov, "Flash-Decoding for long-context inference", 2023): every split returns its
normalised partial output O_s and its LSE_s; the result is ``sum_s exp(LSE_s - LSE) * O_s`` with
``LSE = log(sum_s exp(LSE_s))``. A split that sees no key has LSE_s = -inf and weight 0.

Why split: a decode step (seqlen_q 1) launches one block per (batch, kv head) without splitting; with batch 1
and 8 kv heads that is 8 blocks on a 60-CU MI50, so >85 % of the GPU idles while the cache streams in.
The heuristic's choices are recorded in :data:`CHOICES`; :func:`choices_table` prints them for a device.
"""

from __future__ import annotations

import functools
import math

import torch

MAX_SPLITS = 128
# The heuristic's decisions, (batch, nheads_k, seqlen_k, num_cus, block_n) -> num_splits, for the perf records
# (perf/RESULTS.md states the choices next to the decode figures). Bounded: cleared past _MAX_RECORDS.
CHOICES: dict[tuple[int, int, int, int, int], int] = {}
_MAX_RECORDS = 4096


def num_splits_heuristic(batch: int, nheads_k: int, seqlen_k: int, num_cus: int, *, block_n: int = 64,
                         blocks_per_cu: int = 4, min_tiles_per_split: int = 2, max_splits: int = MAX_SPLITS) -> int:
    """Split count for a forward over ``batch * nheads_k`` (batch, kv head) blocks and ``seqlen_k`` keys.

    Args:
        batch, nheads_k: the blocks before splitting (the decode kernel runs one block per (batch, kv head),
            all query heads of a GQA group inside it).
        seqlen_k: keys per sequence (the longest one in a varlen or paged batch).
        num_cus: compute units (AMD) or SMs (NVIDIA) of the device.
        block_n: keys per K/V tile; a split owns whole tiles.
        blocks_per_cu: blocks resident per CU that keep its memory pipeline busy (a decode step is
            memory-bound: bandwidth needs loads in flight on every CU, not one block per CU).
        min_tiles_per_split: a split streams at least this many tiles (its partial O, LSE and the combine
            cost about one tile's traffic).
        max_splits: upper bound of the result.

    Returns:
        num_splits >= 1: enough splits that the grid fills ``num_cus * blocks_per_cu`` block slots, no more
        than the tiles allow, rounded so that no split is empty (:func:`effective_splits`). 1 when the unsplit
        grid already fills 80 % of the slots.
    """
    for name, x, low in (("batch", batch, 0), ("nheads_k", nheads_k, 1), ("seqlen_k", seqlen_k, 0),
                         ("num_cus", num_cus, 1), ("block_n", block_n, 1), ("blocks_per_cu", blocks_per_cu, 1),
                         ("min_tiles_per_split", min_tiles_per_split, 1), ("max_splits", max_splits, 1)):
        if not isinstance(x, int) or isinstance(x, bool) or x < low:
            raise ValueError(f"{name} must be an int >= {low}, got {x!r}")
    units = batch * nheads_k
    slots = num_cus * blocks_per_cu
    n_tiles = -(-seqlen_k // block_n)
    limit = min(max_splits, n_tiles // min_tiles_per_split)
    if units == 0 or limit <= 1 or units >= 0.8 * slots:
        choice = 1
    else:
        choice = effective_splits(seqlen_k, block_n, min(limit, -(-slots // units)))
    if len(CHOICES) >= _MAX_RECORDS:
        CHOICES.clear()
    CHOICES[(batch, nheads_k, seqlen_k, num_cus, block_n)] = choice
    return choice


@functools.cache
def device_cus(device: torch.device) -> int:
    """Compute units (AMD) / SMs (NVIDIA) of a GPU device, as torch reports them."""
    return torch.cuda.get_device_properties(device).multi_processor_count


def choices_table(num_cus: int, nheads_k: int = 8, batches=(1, 8, 32), seqlens=(4096, 16384, 131072),
                  block_n: int = 64) -> str:
    """The heuristic's split counts as a markdown table (batch rows, seqlen_k columns), for the perf records."""
    lines = [f"| batch \\ seqlen_k ({num_cus} CUs, nheads_k {nheads_k}, block_n {block_n}) | "
             + " | ".join(str(s) for s in seqlens) + " |", "|---|" + "---|" * len(seqlens)]
    for b in batches:
        row = [num_splits_heuristic(b, nheads_k, s, num_cus, block_n=block_n) for s in seqlens]
        lines.append(f"| {b} | " + " | ".join(str(x) for x in row) + " |")
    return "\n".join(lines)


def effective_splits(seqlen_k: int, block_n: int, num_splits: int) -> int:
    """The split count without empty splits: ceil(n_tiles / ceil(n_tiles / num_splits)) (>= 1)."""
    n_tiles = max(1, -(-seqlen_k // block_n))
    per = -(-n_tiles // max(1, num_splits))
    return -(-n_tiles // per)


def resolve_num_splits(num_splits: int, batch: int, nheads_k: int, seqlen_k: int, num_cus: int,
                       block_n: int) -> int:
    """``num_splits`` as passed by the caller (0 = heuristic, n >= 1 = n splits) -> the count a launch uses."""
    if num_splits == 0:
        return num_splits_heuristic(batch, nheads_k, seqlen_k, num_cus, block_n=block_n)
    return min(num_splits, MAX_SPLITS)


def split_tile_range(seqlen_k: int, block_n: int, num_splits: int, split: int) -> tuple[int, int]:
    """Key tiles ``[begin, end)`` of split ``split`` for a sequence of ``seqlen_k`` keys: consecutive runs of
    ceil(n_tiles / num_splits) tiles, n_tiles = ceil(seqlen_k / block_n); trailing splits may be empty
    (a short sequence in a batch of long ones). The kernel intersects this with the mask's tile range."""
    n_tiles = -(-seqlen_k // block_n)
    per = -(-n_tiles // num_splits)
    begin = min(split * per, n_tiles)
    return begin, min(begin + per, n_tiles)


def combine(outs: torch.Tensor, lses: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Merge split partials: ``outs`` (splits, ..., headdim) normalised per split, ``lses`` (splits, ...) natural
    log with -inf for a split that saw no key. Returns (out (..., headdim), lse (...)) in the inputs' dtype;
    rows no split saw give out 0 and LSE -inf."""
    lse_max = lses.amax(dim=0)
    base = torch.where(torch.isneginf(lse_max), torch.zeros_like(lse_max), lse_max)
    total = torch.exp(lses - base).sum(dim=0)  # 0 when every split is empty
    lse = torch.where(total == 0, torch.full_like(total, float("-inf")), base + torch.log(total))
    finite = torch.where(torch.isneginf(lse), torch.zeros_like(lse), lse)
    scale = torch.where(torch.isneginf(lses), torch.zeros_like(lses), torch.exp(lses - finite))
    # 0 * anything is not enough for an empty split whose partial O is unwritten: select it away
    out = torch.where(scale.unsqueeze(-1) == 0, torch.zeros_like(outs), scale.unsqueeze(-1) * outs).sum(dim=0)
    return out, lse
