"""Ring attention over packed variable-length sequences (``ring_flash_attn_varlen_func``).

Each sequence of a packed batch is split across the ranks in the load-balanced layout of
:mod:`rocflash.parallel.layout` (rank r holds chunks r and 2W-1-r of EVERY sequence), so every rank holds the
same local cu_seqlens and each local sequence is an even-length shard of the dense ring's form. The ring is the
dense one (:mod:`rocflash.parallel.ring`: same exchange, fp32 LSE merge, backward with the global O and LSE);
only the blocks differ: at each step every sequence has the dense ring's blocks for its own shard length, and
the blocks of all sequences that sit at the same place with the same window bounds run as ONE varlen call of the
backend (rows and keys gathered, one sub-sequence per sequence). Without a window that is one call per step
(two for none), whatever the number of sequences.
"""

from __future__ import annotations

import torch
import torch.distributed as dist

from ..backends import FwdArgs, SeqArgs
from ..varlen import check_cu_seqlens, check_options, select_varlen_backend
from .ring import Block, _Kernels, _RingAttention, agree, check_no_alibi, global_window, step_blocks


def ring_flash_attn_varlen_func(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    cu_seqlens: torch.Tensor,
    max_seqlen: int,
    group: dist.ProcessGroup | None = None,
    causal: bool = False,
    softmax_scale: float | None = None,
    window_size: tuple[int, int] = (-1, -1),
    softcap: float = 0.0,
    alibi_slopes: torch.Tensor | None = None,
    deterministic: bool = False,
    return_attn_probs: bool = False,
    *,
    backend: str | None = None,
):
    """Exact attention over a packed batch of sequences, each split across the ranks of ``group`` (ring
    attention / context parallel for ``flash_attn_varlen_func``; self-attention: one cu_seqlens for q and k).

    Every rank calls this with its own shards: :func:`rocflash.parallel.zigzag_shard_varlen` of q, k, v and
    :func:`rocflash.parallel.zigzag_varlen_cu_seqlens` of the global cu_seqlens.

    Args:
        q: (local_total, nheads, headdim): this rank's rows of every sequence, packed; float16 / bfloat16 /
            float32 (float64 on the torch and sim backends).
        k, v: (local_total, nheads_k, headdim), same dtype and device; nheads % nheads_k == 0 (GQA/MQA).
        cu_seqlens: int32 (batch + 1,) on q's device: the LOCAL cumulative lengths (global / world_size),
            identical on every rank (checked: ValueError). Local sequence b holds rows
            [cu_seqlens[b], cu_seqlens[b+1]) of q, k and v.
        max_seqlen: int >= the longest local sequence (flash-attn's argument; a smaller value raises).
        group: the torch.distributed process group (default: the world). NCCL/RCCL on GPUs, gloo on CPU.
        causal: causal mask per sequence over its FULL length (bottom-right, which for self-attention is the
            usual causal mask). Needs the load-balanced layout: every local sequence of even length (chunks
            r and 2W-1-r of each sequence); an odd one raises ValueError.
        softmax_scale, softcap: as :func:`rocflash.parallel.ring_flash_attn_func`.
        deterministic: accepted for flash-attn compatibility: the varlen backward always runs the separate dQ
            kernel, so results are bitwise reproducible for a given world size and backend.
        window_size: (left, right) sliding window over each sequence's global positions, -1 = unbounded (with
            causal, right must be -1 or 0); needs the load-balanced layout like causal.
        alibi_slopes: must be None (NotImplementedError), as for the dense ring.
        return_attn_probs: also return this rank's LSE float32 (nheads, local_total), natural log.
        backend: "hip" | "cuda" | "torch" | "sim" | None (then ROCFLASH_BACKEND, then a device probe): the
            backend whose varlen kernels run every block.

    Returns:
        out (local_total, nheads, headdim) in q's dtype, or (out, softmax_lse, None) with return_attn_probs.
        Empty sequences (repeated cu_seqlens entries) produce nothing.

    Differentiable once in q, k, v through autograd (the backward is a second ring pass); a backward with
    create_graph=True raises RuntimeError (no second derivatives).

    Raises:
        TypeError / ValueError naming the argument, rule and value, before any exchange of K/V, on EVERY rank
        of the group (as :func:`rocflash.parallel.ring_flash_attn_func`: the offending rank raises its own
        error, the others a ValueError naming it); ValueError on every rank when the ranks' shapes, dtypes,
        cu_seqlens, causal, window_size, softmax_scale, softcap or gradient requests differ.
        NotImplementedError for ALiBi. RuntimeError when torch.distributed is not initialized.
    """
    def local_checks():
        args, cu = _check_args(q, k, v, cu_seqlens, max_seqlen, causal, softmax_scale, window_size, softcap,
                               alibi_slopes, deterministic, return_attn_probs)
        if not dist.is_initialized():
            raise RuntimeError("ring_flash_attn_varlen_func needs torch.distributed: call "
                               "torch.distributed.init_process_group")
        return args, cu, select_varlen_backend(q, backend)

    ring, (args, cu, name) = agree(group, "ring_flash_attn_varlen_func", local_checks, q, k, v, causal,
                                   cu_seqlens_of=lambda result: result[1])
    plan = varlen_plan(ring.rank, ring.world, causal, cu, args, q.device)
    out, lse = _RingAttention.apply(q.unsqueeze(0), k.unsqueeze(0), v.unsqueeze(0), ring, _Kernels(name), plan)
    out, lse = out[0], lse[0]
    return (out, lse, None) if return_attn_probs else out


def varlen_plan(rank: int, world: int, causal: bool, cu: list[int], args: FwdArgs, device) -> list[list[Block]]:
    """The blocks of every ring step for the local sequences ``cu`` (host list of the local cu_seqlens).

    Per sequence the dense ring's blocks of its shard (:func:`rocflash.parallel.ring.step_blocks`); the
    blocks at the same place of the list with the same window bounds, one per sequence, form one varlen
    Block (the rows of different sequences never overlap, so a block repeats no row)."""
    plan = []
    for step in range(world):
        groups: dict[tuple, list] = {}
        for start, end in zip(cu, cu[1:]):
            n = end - start
            if n == 0:
                continue
            for place, (rows, keys, a) in enumerate(step_blocks(rank, world, step, causal, n, n, args)):
                groups.setdefault((place, a.window_left, a.window_right), []).append((start, rows, keys, a))
        plan.append([_gather(members, cu[-1], device) for members in groups.values()])
    return plan


def _gather(members, total: int, device) -> Block:
    """One varlen Block from (sequence start, rows slice, keys slice, args) of several sequences."""
    row_ranges = [(start + rows.start, start + rows.stop) for start, rows, _, _ in members]
    key_ranges = [(start + keys.start, start + keys.stop) for start, _, keys, _ in members]

    def index(ranges):
        cu = [0]
        for a, b in ranges:
            cu.append(cu[-1] + b - a)
        if all(a == b_prev for (a, _), b_prev in zip(ranges, [0] + [b for _, b in ranges])) and cu[-1] == total:
            sel = slice(0, total)  # every row in order: a view, no gather
        else:
            sel = torch.cat([torch.arange(a, b) for a, b in ranges]).to(device)
        return sel, torch.tensor(cu, dtype=torch.int32, device=device), max(b - a for a, b in ranges)

    rows, cu_q, max_q = index(row_ranges)
    keys, cu_k, max_k = index(key_ranges)
    return Block(rows, keys, members[0][3], SeqArgs(cu_q, cu_k, None, max_q, max_k))


def _check_args(q, k, v, cu_seqlens, max_seqlen, causal, softmax_scale, window_size, softcap, alibi_slopes,
                deterministic, return_attn_probs) -> tuple[FwdArgs, list[int]]:
    """flash_attn_varlen_func's checks (rocflash.varlen: cu_seqlens, dtypes, GQA, options) and the ring's:
    one cu_seqlens for q and k, even local sequences under a causal mask or a window, no ALiBi."""
    for name, t in (("q", q), ("k", k), ("v", v)):
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor, got {type(t).__name__}")
        if t.dim() != 3:
            raise ValueError(f"{name} must have 3 dimensions (local_total, nheads, headdim), got shape "
                             f"{tuple(t.shape)}")
    if k.shape != v.shape:
        raise ValueError(f"k and v must have the same shape, got {tuple(k.shape)} and {tuple(v.shape)}")
    if k.shape[0] != q.shape[0]:
        raise ValueError(f"k must have q's number of rows {q.shape[0]} (one cu_seqlens for q and k: "
                         f"self-attention), got {k.shape[0]}")
    cu = check_cu_seqlens("cu_seqlens", cu_seqlens, q.device, q.shape[0])
    lens = [b - a for a, b in zip(cu, cu[1:])]
    longest = max(lens, default=0)
    if not isinstance(max_seqlen, int) or isinstance(max_seqlen, bool) or max_seqlen < longest:
        raise ValueError(f"max_seqlen must be an int >= the longest local sequence ({longest} from cu_seqlens), "
                         f"got {max_seqlen!r}")
    fa = check_options(q, k, len(lens), longest, longest, 0.0, softmax_scale, causal, window_size, softcap, None,
                       deterministic, return_attn_probs)
    args = global_window(fa, causal, window_size)
    if causal or args.window_left >= 0 or args.window_right >= 0:
        odd = next((b for b, n in enumerate(lens) if n % 2), None)
        if odd is not None:
            raise ValueError(f"causal or windowed ring attention needs the load-balanced layout of every sequence "
                             f"(rocflash.parallel.zigzag_shard_varlen): even local sequence lengths (chunks r and "
                             f"2*world_size-1-r), got sequence {odd} of local length {lens[odd]} (cu_seqlens {cu})")
    check_no_alibi(alibi_slopes)
    return args, cu
