"""flash-attn's packed entry points: ``flash_attn_qkvpacked_func``, ``flash_attn_kvpacked_func``,
``flash_attn_varlen_qkvpacked_func`` and ``flash_attn_varlen_kvpacked_func`` (flash-attn's names, argument order
and return values).

Each takes the views of its packed tensor (``qkv[:, :, 0]``... no copy: the kernels take any strides, and rows
stay 16-byte aligned when nheads * headdim elements are) and calls flash_attn_func / flash_attn_varlen_func, so
backends, checks, autograd (the gradient of the packed tensor is the three views' gradients in place) and
torch.compile are theirs. qkv packs q, k and v with the same nheads (flash-attn's layout); kv packs k and v, so q
may have more heads (GQA/MQA).
"""

from __future__ import annotations

import torch

from .interface import flash_attn_func
from .varlen import flash_attn_varlen_func


def _unpack(name: str, x, dims: int, axis: int, parts: int, layout: str) -> tuple[torch.Tensor, ...]:
    """The ``parts`` views of ``x`` along ``axis``; TypeError / ValueError naming the argument, rule and value."""
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor {layout}, got {type(x).__name__}")
    if x.dim() != dims:
        raise ValueError(f"{name} must have {dims} dimensions {layout}, got shape {tuple(x.shape)}")
    if x.shape[axis] != parts:
        raise ValueError(f"{name}.shape[{axis}] must be {parts} ({', '.join('qkv'[3 - parts:])} packed) {layout}, "
                         f"got shape {tuple(x.shape)}")
    return x.unbind(axis)


_QKV = "(batch, seqlen, 3, nheads, headdim)"
_KV = "(batch, seqlen_k, 2, nheads_k, headdim)"
_VQKV = "(total, 3, nheads, headdim)"
_VKV = "(total_k, 2, nheads_k, headdim)"


def flash_attn_qkvpacked_func(qkv, dropout_p=0.0, softmax_scale=None, causal=False, window_size=(-1, -1),
                              softcap=0.0, alibi_slopes=None, deterministic=False, return_attn_probs=False, *,
                              backend=None):
    """flash_attn_func on ``qkv`` (batch, seqlen, 3, nheads, headdim): out (batch, seqlen, nheads, headdim)."""
    q, k, v = _unpack("qkv", qkv, 5, 2, 3, _QKV)
    return flash_attn_func(q, k, v, dropout_p, softmax_scale, causal, window_size, softcap, alibi_slopes,
                           deterministic, return_attn_probs, backend=backend)


def flash_attn_kvpacked_func(q, kv, dropout_p=0.0, softmax_scale=None, causal=False, window_size=(-1, -1),
                             softcap=0.0, alibi_slopes=None, deterministic=False, return_attn_probs=False, *,
                             backend=None):
    """flash_attn_func on q (batch, seqlen_q, nheads, headdim) and ``kv`` (batch, seqlen_k, 2, nheads_k,
    headdim)."""
    k, v = _unpack("kv", kv, 5, 2, 2, _KV)
    return flash_attn_func(q, k, v, dropout_p, softmax_scale, causal, window_size, softcap, alibi_slopes,
                           deterministic, return_attn_probs, backend=backend)


def flash_attn_varlen_qkvpacked_func(qkv, cu_seqlens, max_seqlen, dropout_p=0.0, softmax_scale=None, causal=False,
                                     window_size=(-1, -1), softcap=0.0, alibi_slopes=None, deterministic=False,
                                     return_attn_probs=False, *, backend=None):
    """flash_attn_varlen_func on ``qkv`` (total, 3, nheads, headdim), one ``cu_seqlens`` for queries and keys."""
    q, k, v = _unpack("qkv", qkv, 4, 1, 3, _VQKV)
    return flash_attn_varlen_func(q, k, v, cu_seqlens, cu_seqlens, max_seqlen, max_seqlen, dropout_p, softmax_scale,
                                  causal, window_size, softcap, alibi_slopes, deterministic, return_attn_probs,
                                  backend=backend)


def flash_attn_varlen_kvpacked_func(q, kv, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k, dropout_p=0.0,
                                    softmax_scale=None, causal=False, window_size=(-1, -1), softcap=0.0,
                                    alibi_slopes=None, deterministic=False, return_attn_probs=False, *, backend=None):
    """flash_attn_varlen_func on q (total_q, nheads, headdim) and ``kv`` (total_k, 2, nheads_k, headdim)."""
    k, v = _unpack("kv", kv, 4, 1, 2, _VKV)
    return flash_attn_varlen_func(q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k, dropout_p,
                                  softmax_scale, causal, window_size, softcap, alibi_slopes, deterministic,
                                  return_attn_probs, backend=backend)
