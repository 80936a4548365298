"""Context parallelism: attention over a sequence split across the ranks of a torch.distributed group.

- :func:`ring_flash_attn_func`: ring attention on each rank's shards, forward and backward, any backend.
- :func:`zigzag_shard` / :func:`zigzag_unshard` / :func:`zigzag_indices`: the load-balanced causal layout
  (rank r holds chunks r and 2·world_size−1−r of 2·world_size).
- :func:`memory_model`: bytes per rank, linear in the local sequence length.
"""

from .layout import padded_seqlen, zigzag_indices, zigzag_merge, zigzag_shard, zigzag_unshard
from .ring import memory_model, ring_flash_attn_func

__all__ = ["ring_flash_attn_func", "zigzag_shard", "zigzag_unshard", "zigzag_merge", "zigzag_indices",
           "padded_seqlen", "memory_model"]
