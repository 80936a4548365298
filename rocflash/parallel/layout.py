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
Padding must be finite (zeros, as ``pad=True`` writes): a padded query row's gradient share is 0 only as
0 * P, and NaN garbage there makes P NaN, so dK and dV of the real keys it sees become NaN (flash_attn_func's
semantics for a non-finite query row).
"""

from __future__ import annotations

import operator

import torch
import torch.distributed as dist


def _rank_world(group, rank, world_size) -> tuple[int, int]:
    if rank is None or world_size is None:
        if not dist.is_initialized():
            raise RuntimeError("torch.distributed is not initialized: call init_process_group, or pass rank= and "
                               "world_size=")
        if dist.get_rank(group) < 0:
            raise ValueError(f"group: this process (global rank {dist.get_rank()}) is not a member of the process "
                             f"group it passed")
        rank = dist.get_rank(group) if rank is None else rank
        world_size = dist.get_world_size(group) if world_size is None else world_size
    return _check_rank_world(rank, world_size)


def _check_rank_world(rank, world_size) -> tuple[int, int]:
    """(rank, world_size) as ints (any integer type but bool), 0 <= rank < world_size; else ValueError."""
    def as_int(x):
        if isinstance(x, bool):
            return None
        try:
            return operator.index(x)
        except TypeError:
            return None
    r, w = as_int(rank), as_int(world_size)
    if r is None or w is None or not (w >= 1 and 0 <= r < w):
        raise ValueError(f"rank and world_size must be ints with 0 <= rank < world_size, got rank={rank!r}, "
                         f"world_size={world_size!r}")
    return r, w


def padded_seqlen(seqlen: int, world_size: int) -> int:
    """The smallest multiple of ``2 * world_size`` that is >= seqlen (what ``zigzag_shard(pad=True)`` pads to)."""
    n = 2 * world_size
    return -(-seqlen // n) * n


def zigzag_indices(seqlen: int, world_size: int, rank: int, device=None) -> torch.Tensor:
    """Global positions (int64, (seqlen / world_size,)) of the rows rank ``rank`` holds: the position_ids of
    its shard (for RoPE). Raises ValueError when seqlen is not a multiple of 2 * world_size, or unless
    0 <= rank < world_size."""
    rank, world_size = _check_rank_world(rank, world_size)
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
    Shards of different shapes or dtypes on different ranks: ValueError on every rank (a small all_gather of the
    shapes first).
    """
    return zigzag_merge(_all_gather_same_shape(x_local, group, "zigzag_unshard"), dim, seqlen=seqlen)


_GATHER_DTYPES = (torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.int32, torch.int64, torch.bool,
                  torch.uint8, torch.int8, torch.int16)
_GATHER_DIMS = 8


def _all_gather_same_shape(x_local: torch.Tensor, group, caller: str) -> list[torch.Tensor]:
    """Every rank's ``x_local`` (all_gather over ``group``), after a small all_gather of each rank's shape and
    dtype: different ones are a ValueError on every rank naming them (all_gather itself would leave some ranks
    with garbage in the buffers of their own shape and others dead or waiting)."""
    _, world_size = _rank_world(group, None, None)
    if not isinstance(x_local, torch.Tensor):
        raise TypeError(f"{caller}: x_local must be a torch.Tensor, got {type(x_local).__name__}")
    shape = list(x_local.shape)
    code = _GATHER_DTYPES.index(x_local.dtype) if x_local.dtype in _GATHER_DTYPES else len(_GATHER_DTYPES)
    row = [len(shape), code] + (shape + [-1] * _GATHER_DIMS)[:_GATHER_DIMS]
    mine = torch.tensor(row, dtype=torch.int64, device=x_local.device)
    rows = [torch.empty_like(mine) for _ in range(world_size)]
    dist.all_gather(rows, mine, group=group)
    rows = [tuple(r.tolist()) for r in rows]
    if any(r != rows[0] for r in rows) or len(shape) > _GATHER_DIMS:
        def describe(r):
            dtype = _GATHER_DTYPES[r[1]] if r[1] < len(_GATHER_DTYPES) else "other"
            return f"shape {tuple(r[2:2 + r[0]])} dtype {dtype}"
        raise ValueError(f"{caller}: every rank must pass a shard of the same shape and dtype (at most "
                         f"{_GATHER_DIMS} dimensions), got " + "; ".join(f"rank {i}: {describe(r)}"
                                                                        for i, r in enumerate(rows)))
    parts = [torch.empty_like(x_local, memory_format=torch.contiguous_format) for _ in range(world_size)]
    dist.all_gather(parts, x_local.contiguous(), group=group)
    return parts


def zigzag_merge(parts: list[torch.Tensor], dim: int = 1, *, seqlen: int | None = None) -> torch.Tensor:
    """The full tensor from every rank's shard (``parts[r]`` from rank r), in sequence order; no communication.
    Raises ValueError unless the parts are tensors of one shape with an even length along ``dim`` (each the two
    chunks of :func:`zigzag_shard`), or when ``seqlen`` is not in [0, full length]."""
    _check_parts(parts, dim, even=True)
    world_size = len(parts)
    halves = [p.chunk(2, dim=dim) for p in parts]
    chunks = [halves[r][0] for r in range(world_size)] + [halves[r][1] for r in reversed(range(world_size))]
    full = torch.cat(chunks, dim=dim)
    if seqlen is None:
        return full
    if isinstance(seqlen, bool) or not isinstance(seqlen, int) or not 0 <= seqlen <= full.shape[dim]:
        raise ValueError(f"seqlen must be an int in [0, {full.shape[dim]}] (the gathered length), got {seqlen!r}")
    return full.narrow(dim, 0, seqlen)


def _check_parts(parts, dim: int, even: bool) -> None:
    if not isinstance(parts, (list, tuple)) or not parts or not all(isinstance(p, torch.Tensor) for p in parts):
        raise ValueError("parts must be a non-empty list of tensors (parts[r]: rank r's shard)")
    shapes = [tuple(p.shape) for p in parts]
    if any(sh != shapes[0] for sh in shapes):
        raise ValueError(f"every rank's shard must have the same shape, got {shapes}")
    if even and parts[0].shape[dim] % 2:
        raise ValueError(f"a shard holds two equal chunks (ranks r and 2*world_size-1-r): its length along dim "
                         f"{dim} must be even, got {parts[0].shape[dim]}")


# ---------------------------------------------------------------- varlen: packed sequences, each split in zigzag
# A packed batch (total, heads, headdim) with cu_seqlens (batch + 1,) is split sequence by sequence: sequence b
# (length n_b, a multiple of 2 * world_size) is cut into 2 * world_size chunks of n_b / (2 * world_size) rows and
# rank r keeps chunks r and 2W-1-r of EVERY sequence, packed in sequence order. Every rank then holds the same
# local cu_seqlens = cu_seqlens / world_size, which ring_flash_attn_varlen_func takes. With ``pad=True`` each
# sequence is first zero-padded at its end to padded_seqlen(n_b, world_size) (exact for causal attention only,
# as for the dense layout).

def _cu_list(cu_seqlens, name: str = "cu_seqlens") -> list[int]:
    if not isinstance(cu_seqlens, torch.Tensor) or cu_seqlens.dim() != 1 or cu_seqlens.shape[0] < 1 \
            or cu_seqlens.dtype not in (torch.int32, torch.int64):
        raise ValueError(f"{name} must be an int32 tensor of shape (batch + 1,), got "
                         f"{getattr(cu_seqlens, 'dtype', type(cu_seqlens).__name__)} "
                         f"{tuple(getattr(cu_seqlens, 'shape', ()))}")
    cu = cu_seqlens.tolist()
    if cu[0] != 0 or any(b < a for a, b in zip(cu, cu[1:])):
        raise ValueError(f"{name} must start at 0 and be non-decreasing, got {cu}")
    return cu


def _padded_lengths(cu: list[int], world_size: int, pad: bool) -> list[int]:
    lens = [b - a for a, b in zip(cu, cu[1:])]
    n = 2 * world_size
    bad = next((i for i, m in enumerate(lens) if m % n), None)
    if bad is not None and not pad:
        raise ValueError(f"every sequence length must be divisible by 2 * world_size = {n} for the load-balanced "
                         f"(zigzag) varlen layout, got sequence {bad} of length {lens[bad]} (cu_seqlens {cu}); pad "
                         f"each sequence's end (zigzag_shard_varlen(..., pad=True); exact for causal attention only)")
    return [padded_seqlen(m, world_size) for m in lens]


def zigzag_varlen_cu_seqlens(cu_seqlens: torch.Tensor, group=None, *, pad: bool = False,
                             world_size: int | None = None) -> tuple[torch.Tensor, int]:
    """The local (cu_seqlens int32 (batch + 1,) on cu_seqlens' device, max_seqlen) every rank passes to
    :func:`rocflash.parallel.ring_flash_attn_varlen_func` for a packed batch with global ``cu_seqlens``
    sharded by :func:`zigzag_shard_varlen` (same ``pad``): each sequence's (padded) length / world_size.
    Raises ValueError when a sequence does not divide into 2 * world_size chunks and pad is False."""
    _, world_size = _rank_world(group, 0 if world_size is not None else None, world_size)
    lens = [m // world_size for m in _padded_lengths(_cu_list(cu_seqlens), world_size, pad)]
    cu = [0]
    for m in lens:
        cu.append(cu[-1] + m)
    return torch.tensor(cu, dtype=torch.int32, device=cu_seqlens.device), max(lens, default=0)


def zigzag_varlen_indices(cu_seqlens: torch.Tensor, world_size: int, rank: int, *, pad: bool = False,
                          device=None) -> torch.Tensor:
    """int64 (local_total,): for each row of rank ``rank``'s shard, its row in the (padded, with ``pad``)
    packed global tensor. Minus the (padded) sequence start it is the row's position in its sequence (the
    position_ids for RoPE). Raises ValueError as :func:`zigzag_varlen_cu_seqlens`."""
    rank, world_size = _check_rank_world(rank, world_size)
    cu = _cu_list(cu_seqlens)
    lens = _padded_lengths(cu, world_size, pad)
    parts, start = [], 0
    for m in lens:
        parts.append(zigzag_indices(m, world_size, rank, device=device) + start)
        start += m
    return torch.cat(parts) if parts else torch.zeros(0, dtype=torch.int64, device=device)


def _pad_rows(cu: list[int], padded: list[int], device) -> torch.Tensor:
    """Row of each real row in the padded packing (sequence b moves by the padding of the sequences before it)."""
    shift, rows = 0, []
    for b, m in enumerate(padded):
        rows.append(torch.arange(cu[b], cu[b + 1], device=device) + shift)
        shift += m - (cu[b + 1] - cu[b])
    return torch.cat(rows) if rows else torch.zeros(0, dtype=torch.int64, device=device)


def zigzag_shard_varlen(x: torch.Tensor, cu_seqlens: torch.Tensor, group=None, dim: int = 0, *, pad: bool = False,
                        rank: int | None = None, world_size: int | None = None) -> torch.Tensor:
    """This rank's shard of the packed tensor ``x`` (every rank passes the same ``x``; dimension ``dim`` of
    length cu_seqlens[-1] holds the tokens, dim 0 of flash-attn's varlen (total, nheads, headdim)): chunks r and
    2W-1-r of every sequence, packed in sequence order, contiguous. Pair it with
    :func:`zigzag_varlen_cu_seqlens` (same ``pad``). ``pad=True`` zero-pads each sequence's end first (exact for
    causal attention only); otherwise a sequence length that is not a multiple of 2 * world_size raises
    ValueError. Differentiable (index_copy and index_select)."""
    rank, world_size = _rank_world(group, rank, world_size)
    cu = _cu_list(cu_seqlens)
    if x.shape[dim] != cu[-1]:
        raise ValueError(f"x.shape[{dim}] must be cu_seqlens[-1] = {cu[-1]} (the packed tokens), got {x.shape[dim]}")
    padded = _padded_lengths(cu, world_size, pad)
    if sum(padded) != cu[-1]:
        shape = list(x.shape)
        shape[dim] = sum(padded)
        x = x.new_zeros(shape).index_copy(dim, _pad_rows(cu, padded, x.device), x)
    idx = zigzag_varlen_indices(cu_seqlens, world_size, rank, pad=pad, device=x.device)
    return x.index_select(dim, idx).contiguous()


def zigzag_unshard_varlen(x_local: torch.Tensor, cu_seqlens: torch.Tensor, group=None, dim: int = 0) -> torch.Tensor:
    """Gather every rank's varlen shard (all_gather over ``group``) into the packed tensor in global order, the
    padding of ``zigzag_shard_varlen(pad=True)`` dropped (``cu_seqlens``: the global, unpadded ones). Use
    dim=1 for an LSE (nheads, local_total). Not differentiable."""
    return zigzag_merge_varlen(_all_gather_same_shape(x_local, group, "zigzag_unshard_varlen"), cu_seqlens, dim)


def zigzag_merge_varlen(parts: list[torch.Tensor], cu_seqlens: torch.Tensor, dim: int = 0) -> torch.Tensor:
    """The packed tensor from every rank's varlen shard (``parts[r]`` from rank r), no communication. Raises
    ValueError unless the parts are tensors of one shape whose ``dim`` holds the local rows of ``cu_seqlens``
    (the global ones) split over len(parts) ranks."""
    _check_parts(parts, dim, even=False)
    world_size = len(parts)
    cu = _cu_list(cu_seqlens)
    padded = _padded_lengths(cu, world_size, True)
    if parts[0].shape[dim] * world_size != sum(padded):
        raise ValueError(f"each of the {world_size} parts must hold {sum(padded) // world_size} rows along dim {dim} "
                         f"(cu_seqlens {cu}, each sequence padded to a multiple of 2 * {world_size}), got "
                         f"{parts[0].shape[dim]}")
    full = torch.empty_like(torch.cat(parts, dim=dim))
    for r, p in enumerate(parts):
        full.index_copy_(dim, zigzag_varlen_indices(cu_seqlens, world_size, r, pad=True, device=p.device), p)
    if sum(padded) == cu[-1]:
        return full
    return full.index_select(dim, _pad_rows(cu, padded, full.device))
