"""Context parallelism: attention over a sequence split across the ranks of a torch.distributed group.

- :func:`ring_flash_attn_func`: ring attention on each rank's shards, forward and backward, any backend.
- :func:`ring_flash_attn_varlen_func`: the same over packed variable-length sequences, each split across ranks.
- :func:`zigzag_shard` / :func:`zigzag_unshard` / :func:`zigzag_indices`: the load-balanced causal layout
  (rank r holds chunks r and 2·world_size−1−r of 2·world_size).
- :func:`zigzag_shard_varlen` / :func:`zigzag_unshard_varlen` / :func:`zigzag_varlen_cu_seqlens` /
  :func:`zigzag_varlen_indices`: that layout applied to every sequence of a packed batch.
- :func:`memory_model`: bytes per rank, linear in the local sequence length.
"""

from .layout import (padded_seqlen, zigzag_indices, zigzag_merge, zigzag_merge_varlen, zigzag_shard,
                     zigzag_shard_varlen, zigzag_unshard, zigzag_unshard_varlen, zigzag_varlen_cu_seqlens,
                     zigzag_varlen_indices)
from .ring import memory_model, ring_flash_attn_func
from .ring_varlen import ring_flash_attn_varlen_func

__all__ = ["ring_flash_attn_func", "ring_flash_attn_varlen_func", "zigzag_shard", "zigzag_unshard", "zigzag_merge",
           "zigzag_indices", "padded_seqlen", "zigzag_shard_varlen", "zigzag_unshard_varlen", "zigzag_merge_varlen",
           "zigzag_varlen_cu_seqlens", "zigzag_varlen_indices", "memory_model"]
