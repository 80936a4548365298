"""The load-balanced (zigzag) sequence layout of causal ring attention, and helpers to shard and gather.

The sequence is cut into ``2 * world_size`` equal chunks; rank ``r`` holds chunks ``r`` and
``2 * world_size - 1 - r``, concatenated. Under a causal mask every rank then has the same amount of work
(an early chunk that sees little, a late chunk that sees much). For world_size 2 and seqlen 8::

    positions  0 1 | 2 3 | 4 5 | 6 7
    chunk      0   | 1   | 2   | 3
    rank 0 holds chunks 0, 3: positions 0 1 6 7
    rank 1 holds chunks 1, 2: positions 2 3 4 5

A sequence that does not divide into ``2 * world_size`` chunks is rejected (ValueError), as in torch's
context_parallel; pad it first. Padding the END of the sequence is exact for causal attention: every padded key
comes after every real query, so no real row sees it, and padded query rows only feed gradients that are zero
when their rows of dO are (drop them after :func:`zigzag_unshard`). For non-causal attention the padded keys
would be attended: do not pad there. :func:`zigzag_shard` with ``pad=True`` pads with zeros and says how much.
"""

from __future__ import annotations

import torch
import torch.distributed as dist


def _rank_world(group, rank, world_size) -> tuple[int, int]:
    if rank is None or world_size is None:
        if not dist.is_initialized():
            raise RuntimeError("torch.distributed is not initialized: call init_process_group, or pass rank= and "
                               "world_size=")
        rank = dist.get_rank(group) if rank is None else rank
        world_size = dist.get_world_size(group) if world_size is None else world_size
    if not (isinstance(world_size, int) and world_size >= 1 and isinstance(rank, int) and 0 <= rank < world_size):
        raise ValueError(f"rank must be in [0, world_size), got rank={rank!r}, world_size={world_size!r}")
    return rank, world_size


def padded_seqlen(seqlen: int, world_size: int) -> int:
    """The smallest multiple of ``2 * world_size`` that is >= seqlen (what ``zigzag_shard(pad=True)`` pads to)."""
    n = 2 * world_size
    return -(-seqlen // n) * n


def zigzag_indices(seqlen: int, world_size: int, rank: int, device=None) -> torch.Tensor:
    """Global positions (int64, (seqlen / world_size,)) of the rows rank ``rank`` holds: the position_ids of
    its shard (for RoPE). Raises ValueError when seqlen is not a multiple of 2 * world_size."""
    n = 2 * world_size
    if seqlen % n:
        raise ValueError(f"seqlen must be divisible by 2 * world_size = {n} for the load-balanced (zigzag) layout, "
                         f"got seqlen={seqlen}; pad the end of the sequence to {padded_seqlen(seqlen, world_size)} "
                         f"(zigzag_shard(..., pad=True); exact for causal attention only, see rocflash.parallel.layout)")
    c = seqlen // n
    first, second = rank * c, (n - 1 - rank) * c
    return torch.cat([torch.arange(first, first + c, device=device), torch.arange(second, second + c, device=device)])


def zigzag_shard(x: torch.Tensor, group=None, dim: int = 1, *, pad: bool = False, rank: int | None = None,
                 world_size: int | None = None) -> torch.Tensor:
    """This rank's shard of the full tensor ``x`` (every rank passes the same ``x``): chunks r and 2W-1-r of
    dimension ``dim`` (the sequence; dim 1 of flash-attn's (batch, seqlen, nheads, headdim)), contiguous.

    rank / world_size default to the process group's. ``pad=True`` first zero-pads the end of ``dim`` to
    :func:`padded_seqlen` (exact for causal attention only; see the module docstring); otherwise a length that
    is not a multiple of 2 * world_size raises ValueError. Differentiable (an index_select).
    """
    rank, world_size = _rank_world(group, rank, world_size)
    seqlen = x.shape[dim]
    if pad and seqlen % (2 * world_size):
        shape = list(x.shape)
        shape[dim] = padded_seqlen(seqlen, world_size) - seqlen
        x = torch.cat([x, x.new_zeros(shape)], dim=dim)
    idx = zigzag_indices(x.shape[dim], world_size, rank, device=x.device)
    return x.index_select(dim, idx).contiguous()


def zigzag_unshard(x_local: torch.Tensor, group=None, dim: int = 1, *, seqlen: int | None = None) -> torch.Tensor:
    """Gather every rank's shard (all_gather over ``group``) and return the full tensor in sequence order.

    ``seqlen``: the unpadded length to cut back to after ``zigzag_shard(pad=True)`` (default: keep everything).
    Every rank receives the full tensor. Not differentiable (use it for outputs and checks, not inside a loss).
    """
    rank, world_size = _rank_world(group, None, None)
    parts = [torch.empty_like(x_local) for _ in range(world_size)]
    dist.all_gather(parts, x_local.contiguous(), group=group)
    return zigzag_merge(parts, dim, seqlen=seqlen)


def zigzag_merge(parts: list[torch.Tensor], dim: int = 1, *, seqlen: int | None = None) -> torch.Tensor:
    """The full tensor from every rank's shard (``parts[r]`` from rank r), in sequence order; no communication."""
    world_size = len(parts)
    halves = [p.chunk(2, dim=dim) for p in parts]
    chunks = [halves[r][0] for r in range(world_size)] + [halves[r][1] for r in reversed(range(world_size))]
    full = torch.cat(chunks, dim=dim)
    return full if seqlen is None else full.narrow(dim, 0, seqlen)
