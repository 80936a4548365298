"""rocflash backends. Each exposes ``forward(q, k, v, args) -> (out, lse)`` on validated inputs.

- ``torch``: unfused reference through PyTorch ops (any device, autograd-capable)
- ``sim``:   the kernel's exact tiling simulated with torch on the CPU (the golden model)
- ``hip``:   the HIP build of hip_src/ (AMD GPUs)
- ``cuda``:  the CUDA build of the same source (NVIDIA GPUs)
- ``ck``:    Composable Kernel ck_tile FMHA instances (CDNA gfx90a / gfx942 / gfx950; rocflash.backends.ck)
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

NAMES = ("hip", "cuda", "torch", "sim", "ck")
# What a user whose model has attention dropout (a transformers model in train mode) can do: no backend
# implements dropout (flash_attn_func, the varlen calls, the CK instances, the transformers integration).
DROPOUT_ADVICE = ("rocflash implements no attention dropout on any backend: set the model's attention dropout to "
                  "0.0 (e.g. config.attention_probs_dropout_prob / config.attention_dropout = 0.0, or dropout_p=0.0 "
                  "in the call), or call model.eval() for inference")


def dropout_not_implemented(backend: str, dropout_p) -> NotImplementedError:
    """The one error for ``dropout_p > 0``, whichever call or backend rejects it."""
    return NotImplementedError(f"dropout_p > 0 is not implemented (backend '{backend}'), got {dropout_p}: "
                               f"{DROPOUT_ADVICE}")


@dataclass(frozen=True)
class FwdArgs:
    """Validated, resolved forward arguments (see rocflash.flash_attn_func)."""

    softmax_scale: float
    window_left: int  # -1: unbounded
    window_right: int  # -1: unbounded; causal is 0
    softcap: float  # 0: off
    alibi_slopes: torch.Tensor | None  # float32 (nheads,) or (batch, nheads)


@dataclass(frozen=True)
class SeqArgs:
    """Per-sequence layout of a varlen or KV-cache call (validated by rocflash.interface before any backend).

    The contract every backend's ``varlen_forward(q, k, v, seq, args) -> (out, lse)`` and
    ``varlen_backward(q, k, v, out, lse, dout, seq, args) -> (dq, dk, dv)`` follows (the fused backends' also
    take ``with_stats=True``: + (softmax stats (nheads, total_q, 2), O in float32 or None), and ``out_fp32=``,
    which their backward's D = rowsum(dO * O) then reads; ``lse`` may be those stats):

    - q: (total_q, nheads, headdim); sequence b owns rows [cu_seqlens_q[b], cu_seqlens_q[b+1]).
      out: like q; lse: float32 (nheads, total_q), natural log (flash-attn's varlen layout).
    - K/V layout, exactly one of:
      * varlen:      k, v (total_k, nheads_k, headdim), rows [cu_seqlens_k[b], cu_seqlens_k[b+1]) of sequence b;
      * dense cache: k, v (batch_cache, seqlen_cache, nheads_k, headdim), cu_seqlens_k None, seqused_k given;
                     sequence b reads cache row cache_batch_idx[b] (b when None), its first seqused_k[b] keys;
      * paged cache: k, v (num_blocks, page_block_size, nheads_k, headdim), block_table given, seqused_k given;
                     key j of sequence b is k[block_table[b, j // page_block_size], j % page_block_size].
    - seqlen_k of sequence b: cu_seqlens_k[b+1] - cu_seqlens_k[b] (varlen) or seqused_k[b] (cache).
      Causal and windows are bottom-right aligned per sequence with that sequence's seqlen_q and seqlen_k.
      Keys past seqlen_k (cache slots, unused blocks) are never read: they may hold garbage, NaN included.
    - varlen_backward takes the varlen K/V layout only (the KV-cache call is forward only).
    """

    cu_seqlens_q: torch.Tensor  # int32 (batch + 1,), on q's device
    cu_seqlens_k: torch.Tensor | None  # int32 (batch + 1,): varlen K/V; None for a cache
    seqused_k: torch.Tensor | None  # int32 (batch,): keys per sequence in a cache; None for varlen
    max_seqlen_q: int  # max over b of the query rows of sequence b
    max_seqlen_k: int  # max over b of seqlen_k (an upper bound is allowed for a cache)
    block_table: torch.Tensor | None = None  # int32 (batch, max_blocks_per_seq): paged cache
    cache_batch_idx: torch.Tensor | None = None  # int32 (batch,): dense cache row per sequence
    num_splits: int = 1  # split-KV count for the forward: 0 = heuristic, 1 = no split

    @property
    def batch(self) -> int:
        return self.cu_seqlens_q.shape[0] - 1

    @property
    def paged(self) -> bool:
        return self.block_table is not None
