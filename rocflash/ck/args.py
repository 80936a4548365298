"""flash_attn_func's arguments -> Composable Kernel's ``fmha_fwd_args`` and ``fmha_bwd_args``
(example/ck_tile/01_fmha/fmha_fwd.hpp, fmha_bwd.hpp).

:class:`FmhaFwdArgs` has exactly the fields of the C++ struct that rocflash's instances read (same names,
same units: pointers as integers, strides in elements); the ck backend's binding copies it field by field.
:func:`fwd_args` builds it from tensor geometry alone (shapes, strides, pointers), so the mapping is tested on
the CPU (tests/test_ck_args.py evaluates attention from the struct with CK's documented semantics).

CK semantics used here (CK 1.2.0, include/ck_tile/ops/fmha/kernel/fmha_fwd_kernel.hpp, block/block_masking.hpp):
- Batch mode: element (b, h, i, d) of Q is at ``q_ptr + b*batch_stride_q + h*nhead_stride_q + i*stride_q + d``
  (the headdim stride is 1); K and V use head ``h / (nhead_q / nhead_k)`` (GQA); LSE (b, h, i) is at
  ``lse_ptr + b*batch_stride_lse + h*nhead_stride_lse + i``.
- Group mode (varlen): sequence b owns rows ``[seqstart_q[b], seqstart_q[b+1])`` and ``[seqstart_k[b],
  seqstart_k[b+1])``; its row i is at ``q_ptr + (seqstart_q[b] + i)*stride_q + h*nhead_stride_q``; LSE (h, row)
  at ``lse_ptr + h*nhead_stride_lse + seqstart_q[b] + i``; batch strides unused.
- Mask: the kernel builds (y, x) from ``window_size_left/right`` (-1 = unbounded) and the corner
  (``mask_type`` 1 = top-left, 2 = bottom-right); key j is visible to query i iff ``i - y + 1 <= j < min(i + x,
  seqlen_k)``. flash-attn's causal and windows are bottom-right aligned: mask_type 2, causal = (-1, 0).
- Scores: ``scale_s * q.k``; with ``logits_soft_cap`` > 0, ``cap * tanh(scale_s * q.k / cap)`` (the fast-exp2
  build folds log2e into both, block/variants.hpp LogitsSoftCapParams).
- ALiBi (instances built with BlockAttentionBiasEnum::ALIBI; kernel/fmha_fwd_kernel.hpp, fmha_bwd_kernel.hpp,
  block/block_position_encoding.hpp): ``bias_ptr`` holds float32 slopes, the slope of (sequence b, query head h)
  at ``bias_ptr + b*stride_bias + h`` (``stride_bias`` = nheads for (batch, nheads) slopes, 0 for (nheads,));
  the score becomes ``scale_s * q.k + slope * position`` (added after the scale, before the mask; no soft-cap).
  The position comes from ``make_alibi_from_lr_mask``: for the window (-1, 0) (what CK calls causal) it is
  VERTICAL, ``+slope * j``, which equals flash-attn's ``-slope * |i + seqlen_k - seqlen_q - j|`` on the visible
  keys up to a per-row constant, so out agrees but LSE does not; otherwise the mode is ``mask_type``: 0 (no mask)
  is VERTICAL too (wrong for keys on both sides of the diagonal), 1 top-left ``-slope * |i - j|``, 2
  bottom-right ``-slope * |i + seqlen_k - seqlen_q - j|`` (flash-attn's). So with slopes :func:`mask_fields`
  always sends mask_type 2 and encodes causal as the window (seqlen_k rows, 0) (the same visible keys, not
  CK's causal pattern): CK then adds exactly flash-attn's bias and writes flash-attn's LSE.

Backward (CK 1.2.0, kernel/fmha_bwd_kernel.hpp, pipeline/block_fmha_bwd_dq_dk_dv_pipeline_kr_ktr_vr.hpp,
block_fmha_bwd_dot_do_o.hpp, block_fmha_bwd_convert_dq.hpp; :func:`bwd_args`, :func:`bwd_workspace`):
- D: ``D[i] = sum_d dO[i, d] * O[i, d]`` (float32) at ``d_ptr``, which shares LSE's layout
  (``nhead_stride_lsed``, ``batch_stride_lsed``; group mode: row offset seqstart_q[b]). rocflash's instances do
  not launch CK's dot_do_o (which writes ``p_undrop`` * that sum from O in the dtype): the ck backend writes D
  from the training forward's float32 O before dq_dk_dv. ``p_undrop`` stays 1 (no dropout).
- dq_dk_dv: one block per (bn0 keys, query head, batch); ``P = exp2(scale*log2e * q.k - log2e * LSE)`` with
  LSE = -inf read as 0 (masked instances), masked (i, j) set to -inf first; dV = P^T dO, dP = dO V^T,
  dS = P * (dP - D), dK = scale * dS^T Q, dQ += scale * dS K. K and V are read at head h / (nhead_q / nhead_k)
  but dK and dV are written at the QUERY head h (``nhead_stride_dk/dv``): under GQA they go to an (nhead_q)
  buffer that the caller sums over each group. dQ goes to the fp32 ``dq_acc``: atomically added (instances
  without deterministic) or, deterministic, set into slice ``i_tile_n`` (``split_stride_dq_acc``) for the
  query tiles the key tile visits; unvisited rows keep what was there, so dq_acc starts zeroed.
- convert_dq: ``dQ = dq_acc`` (deterministic: the sum of ``ceil(seqlen_k / bn0)`` slices), cast to the dtype.
- No logits soft-cap field exists: CK's backward cannot honour flash-attn's softcap.
Imports neither torch nor numpy.
"""

from __future__ import annotations

import dataclasses
from typing import Sequence

MASK_NONE, MASK_TOP_LEFT, MASK_BOTTOM_RIGHT = 0, 1, 2  # ck_tile::GenericAttentionMaskEnum


INDEX_MAX = 2 ** 31 - 1  # ck_tile::index_t is int32: every size and stride field of the args structs


def _check_index_fields(args) -> None:
    """Every non-pointer integer field fits CK's int32 index_t (a stride past it would wrap in the kernel):
    ValueError naming the field, before any launch."""
    for f in dataclasses.fields(args):
        value = getattr(args, f.name)
        if f.name.endswith("_ptr") or isinstance(value, bool) or not isinstance(value, int):
            continue
        if not -INDEX_MAX - 1 <= value <= INDEX_MAX:
            raise ValueError(f"backend 'ck': {f.name} must fit CK's int32 index_t (|value| < 2^31), got {value}: "
                             f"the tensors are too large for CK's 32-bit indexing; use backend='hip'")


@dataclasses.dataclass
class FmhaFwdArgs:
    """The fields of CK's ``fmha_fwd_args`` that rocflash sets (the others stay at their defaults: null
    pointers, zero strides, p_drop 0)."""

    def __post_init__(self) -> None:
        _check_index_fields(self)

    q_ptr: int
    k_ptr: int
    v_ptr: int
    lse_ptr: int
    o_ptr: int
    seqstart_q_ptr: int  # group mode: int32 (batch + 1); else 0
    seqstart_k_ptr: int
    seqlen_q: int
    seqlen_k: int
    batch: int
    max_seqlen_q: int
    hdim_q: int
    hdim_v: int
    nhead_q: int
    nhead_k: int
    scale_s: float
    logits_soft_cap: float
    stride_q: int
    stride_k: int
    stride_v: int
    stride_o: int
    nhead_stride_q: int
    nhead_stride_k: int
    nhead_stride_v: int
    nhead_stride_lse: int
    nhead_stride_o: int
    batch_stride_q: int
    batch_stride_k: int
    batch_stride_v: int
    batch_stride_lse: int
    batch_stride_o: int
    window_size_left: int
    window_size_right: int
    mask_type: int
    bias_ptr: int = 0  # ALiBi instances: float32 slopes (batch or 1, nhead_q); else 0
    stride_bias: int = 0  # ALiBi: slopes per batch entry (nhead_q), 0 when every sequence shares one row
    scale_p: float = 1.0
    scale_o: float = 1.0
    p_drop: float = 0.0

    @property
    def group_mode(self) -> bool:
        return self.seqstart_q_ptr != 0


@dataclasses.dataclass(frozen=True)
class Tensor:
    """What the mapping needs of a tensor: address of element 0, shape, strides in elements, dtype name."""

    ptr: int
    shape: tuple[int, ...]
    strides: tuple[int, ...]
    dtype: str = "fp16"


def unsupported(name: str, value, why: str) -> NotImplementedError:
    return NotImplementedError(f"backend 'ck' cannot honour {name}={value!r}: {why}; use backend='hip' "
                               f"(rocflash's own kernel) or leave the backend to the selector")


def check_supported(*, dropout_p: float = 0.0, return_attn_probs: bool = False, block_table=None,
                    deterministic: bool = False, headdim_stride: int = 1) -> None:
    """NotImplementedError naming the first argument rocflash's CK instances cannot honour (they are built
    without dropout: ck_configs/ck_fmha.toml). Never ignore one silently. ALiBi is served by the ``alibi``
    instances (which (dtype, headdim) have one: rocflash.backends.ck.unsupported)."""
    if dropout_p:  # no backend has dropout: the shared advice, not "use backend='hip'"
        from ..backends import dropout_not_implemented

        raise dropout_not_implemented("ck", dropout_p)
    if return_attn_probs:
        raise unsupported("return_attn_probs", True, "CK does not return the attention probabilities")
    if block_table is not None:
        raise unsupported("block_table", "tensor", "the CK instances have no paged-KV variant")
    if headdim_stride != 1:
        raise unsupported("headdim stride", headdim_stride, "CK reads Q, K, V, O rows with a unit headdim stride")


def mask_fields(window_left: int, window_right: int, alibi_keys: int | None = None) -> tuple[int, int, int]:
    """(mask_type, window_size_left, window_size_right) of a flash-attn window (-1 = unbounded; causal is
    (-1, 0)), bottom-right aligned as flash-attn defines it. No window at all gives mask_type 0 (CK's no-mask
    encoding; the generic-mask instance then sees the full (y, x) = (seqlen_q, seqlen_k) rectangle).

    ``alibi_keys`` (an ALiBi call): the number of K rows (seqlen_k; total_k in group mode, >= every sequence's
    seqlen_k). CK derives the ALiBi alignment from these fields (module docstring): mask_type is always 2
    (bottom-right; the no-window rectangle is the same), and causal (-1, 0) is sent as (alibi_keys, 0), which
    masks the same keys (key j < seqlen_k is never more than seqlen_k - 1 left of the diagonal) but is not what
    CK treats as causal, so its ALiBi is flash-attn's bottom-right ``-slope * |i + seqlen_k - seqlen_q - j|``."""
    if window_left < -1 or window_right < -1:
        raise ValueError(f"window_size must be >= -1 on both sides, got ({window_left}, {window_right})")
    if alibi_keys is not None:
        if window_left == -1 and window_right == 0:
            return MASK_BOTTOM_RIGHT, max(int(alibi_keys), 1), 0
        return MASK_BOTTOM_RIGHT, window_left, window_right
    if window_left == -1 and window_right == -1:
        return MASK_NONE, -1, -1
    return MASK_BOTTOM_RIGHT, window_left, window_right


def alibi_fields(alibi_slopes: Tensor | None, batch: int, nhead_q: int) -> dict[str, int]:
    """``bias_ptr`` / ``stride_bias`` of ALiBi slopes: float32 (nheads,) (every sequence) or (batch, nheads) with
    a unit head stride (CK reads ``bias_ptr + b*stride_bias + h``); none: zeros. ValueError on another shape,
    dtype or stride."""
    if alibi_slopes is None:
        return {"bias_ptr": 0, "stride_bias": 0}
    t = alibi_slopes
    if t.dtype not in ("fp32", "float32") or t.shape not in ((nhead_q,), (batch, nhead_q)):
        raise ValueError(f"alibi_slopes must be float32 of shape ({nhead_q},) or ({batch}, {nhead_q}) for CK, got "
                         f"{t.dtype} {t.shape}")
    if t.strides[-1] != 1:
        raise ValueError(f"alibi_slopes must have a unit stride along the heads (CK reads slope h at "
                         f"bias_ptr + h), got strides {t.strides}")
    return {"bias_ptr": t.ptr, "stride_bias": t.strides[0] if len(t.shape) == 2 else 0}


def fwd_args(q: Tensor, k: Tensor, v: Tensor, o: Tensor, lse: Tensor, *, softmax_scale: float,
             window_left: int = -1, window_right: int = -1, softcap: float = 0.0,
             cu_seqlens_q: Tensor | None = None, cu_seqlens_k: Tensor | None = None,
             max_seqlen_q: int | None = None, alibi_slopes: Tensor | None = None) -> FmhaFwdArgs:
    """The ``fmha_fwd_args`` of one forward call.

    Batch mode: q (batch, seqlen_q, nheads, headdim), k/v (batch, seqlen_k, nheads_k, headdim), o like q,
    lse float32 (batch, nheads, seqlen_q). Group mode (varlen, cu_seqlens_q/k given): q (total_q, nheads,
    headdim), k/v (total_k, nheads_k, headdim), o like q, lse (nheads, total_q); cu_seqlens int32 (batch + 1)
    device arrays, max_seqlen_q required. ``alibi_slopes`` (an ``alibi`` instance): float32 (nheads,) or
    (batch, nheads), unit head stride (:func:`alibi_fields`; causal encoded as :func:`mask_fields` says).
    Raises NotImplementedError for a non-unit headdim stride and ValueError for inconsistent shapes.
    """
    group = cu_seqlens_q is not None
    if group != (cu_seqlens_k is not None):
        raise ValueError("cu_seqlens_q and cu_seqlens_k must be given together (group mode) or not at all")
    for name, t in (("q", q), ("k", k), ("v", v), ("o", o)):
        if t.strides[-1] != 1:
            check_supported(headdim_stride=t.strides[-1])
        if len(t.shape) != (3 if group else 4):
            raise ValueError(f"{name} must have {3 if group else 4} dimensions in "
                             f"{'group' if group else 'batch'} mode, got shape {t.shape}")
    if lse.strides[-1] != 1:
        raise ValueError(f"lse must have a unit stride along its rows, got strides {lse.strides}")
    nhead_q, nhead_k = q.shape[-2], k.shape[-2]
    if nhead_q % nhead_k:
        raise ValueError(f"nheads ({nhead_q}) must be a multiple of nheads_k ({nhead_k})")
    row = -3  # the seqlen (row) axis: dim 1 of (batch, seqlen, nheads, headdim), dim 0 of (total, nheads, headdim)
    mask_type, left, right = mask_fields(window_left, window_right,
                                         None if alibi_slopes is None else k.shape[row])
    nbatch = cu_seqlens_q.shape[0] - 1 if group else q.shape[0]
    common = dict(**alibi_fields(alibi_slopes, nbatch, nhead_q), q_ptr=q.ptr, k_ptr=k.ptr, v_ptr=v.ptr,
                  lse_ptr=lse.ptr, o_ptr=o.ptr,
                  hdim_q=q.shape[-1], hdim_v=v.shape[-1], nhead_q=nhead_q, nhead_k=nhead_k,
                  scale_s=float(softmax_scale), logits_soft_cap=float(softcap) if softcap > 0 else 0.0,
                  stride_q=q.strides[row], stride_k=k.strides[row], stride_v=v.strides[row], stride_o=o.strides[row],
                  nhead_stride_q=q.strides[-2], nhead_stride_k=k.strides[-2], nhead_stride_v=v.strides[-2],
                  nhead_stride_o=o.strides[-2], window_size_left=left, window_size_right=right,
                  mask_type=mask_type)
    if group:
        batch = cu_seqlens_q.shape[0] - 1
        if max_seqlen_q is None:
            raise ValueError("max_seqlen_q must be given in group mode (it sizes the grid)")
        return FmhaFwdArgs(**common, seqstart_q_ptr=cu_seqlens_q.ptr, seqstart_k_ptr=cu_seqlens_k.ptr,
                           seqlen_q=0, seqlen_k=0, batch=batch, max_seqlen_q=max_seqlen_q,
                           nhead_stride_lse=lse.strides[0], batch_stride_q=0, batch_stride_k=0, batch_stride_v=0,
                           batch_stride_lse=0, batch_stride_o=0)
    batch, seqlen_q = q.shape[0], q.shape[1]
    return FmhaFwdArgs(**common, seqstart_q_ptr=0, seqstart_k_ptr=0, seqlen_q=seqlen_q, seqlen_k=k.shape[1],
                       batch=batch, max_seqlen_q=seqlen_q, nhead_stride_lse=lse.strides[1],
                       batch_stride_q=q.strides[0], batch_stride_k=k.strides[0], batch_stride_v=v.strides[0],
                       batch_stride_lse=lse.strides[0], batch_stride_o=o.strides[0])


@dataclasses.dataclass
class FmhaBwdArgs:
    """The fields of CK's ``fmha_bwd_args`` that rocflash sets (the others: null bias / dbias / randval
    pointers, zero strides for them, no dropout seed)."""

    def __post_init__(self) -> None:
        _check_index_fields(self)

    q_ptr: int
    k_ptr: int
    v_ptr: int
    o_ptr: int
    lse_ptr: int
    do_ptr: int
    d_ptr: int  # float32, LSE's layout: D = rowsum(dO * O), written by the caller, read by dq_dk_dv
    dq_ptr: int
    dk_ptr: int  # nhead_q heads (GQA: summed over each group afterwards)
    dv_ptr: int
    dq_acc_ptr: int  # float32 workspace, zeroed (bwd_workspace)
    seqstart_q_ptr: int  # group mode: int32 (batch + 1); else 0
    seqstart_k_ptr: int
    seqlen_q: int
    seqlen_k: int
    batch: int
    max_seqlen_q: int  # grid of convert_dq
    max_seqlen_k: int  # grid of dq_dk_dv
    hdim_q: int
    hdim_v: int
    nhead_q: int
    nhead_k: int
    scale: float
    stride_q: int
    stride_k: int
    stride_v: int
    stride_o: int
    stride_do: int
    stride_dq_acc: int
    stride_dq: int
    stride_dk: int
    stride_dv: int
    nhead_stride_q: int
    nhead_stride_k: int
    nhead_stride_v: int
    nhead_stride_o: int
    nhead_stride_do: int
    nhead_stride_lsed: int
    nhead_stride_dq_acc: int
    nhead_stride_dq: int
    nhead_stride_dk: int
    nhead_stride_dv: int
    batch_stride_q: int
    batch_stride_k: int
    batch_stride_v: int
    batch_stride_o: int
    batch_stride_do: int
    batch_stride_lsed: int
    batch_stride_dq_acc: int
    batch_stride_dq: int
    batch_stride_dk: int
    batch_stride_dv: int
    split_stride_dq_acc: int
    window_size_left: int
    window_size_right: int
    mask_type: int
    bias_ptr: int = 0  # ALiBi instances: float32 slopes (batch or 1, nhead_q); else 0
    stride_bias: int = 0
    p_drop: float = 0.0
    p_undrop: float = 1.0  # 1 - p_drop: 1 here (CK's dot_do_o, not launched, would scale D by it)

    @property
    def group_mode(self) -> bool:
        return self.seqstart_q_ptr != 0


@dataclasses.dataclass(frozen=True)
class Buffer:
    """A buffer the backward binding allocates: contiguous ``shape`` of float32, zeroed when ``zero``."""

    shape: tuple[int, ...]
    zero: bool


def dq_acc_splits(max_seqlen_k: int, bn0: int, deterministic: bool) -> int:
    """Slices of dq_acc: one per key tile of bn0 keys when deterministic (CK's convert_dq sums
    ceil(seqlen_k / kN0) of them), else 1 (atomic accumulation)."""
    return max(1, -(-max_seqlen_k // bn0)) if deterministic else 1


def bwd_workspace(*, batch: int, nhead_q: int, seqlen_q: int, hdim_q: int, max_seqlen_k: int, bn0: int,
                  deterministic: bool, total_q: int | None = None) -> dict[str, Buffer]:
    """The float32 workspace of one backward call: ``dq_acc`` (batch mode (batch, nhead_q, splits, seqlen_q,
    hdim_q), group mode (nhead_q, splits, total_q, hdim_q); zeroed: CK adds into it, or sets only the rows a key
    tile visits). ``total_q`` given = group mode. D (LSE's layout) is the caller's (see the module docstring)."""
    splits = dq_acc_splits(max_seqlen_k, bn0, deterministic)
    if total_q is not None:
        return {"dq_acc": Buffer((nhead_q, splits, total_q, hdim_q), True)}
    return {"dq_acc": Buffer((batch, nhead_q, splits, seqlen_q, hdim_q), True)}


def bwd_args(q: Tensor, k: Tensor, v: Tensor, o: Tensor, lse: Tensor, do: Tensor, d: Tensor, dq: Tensor,
             dk: Tensor, dv: Tensor, dq_acc: Tensor, *, softmax_scale: float, window_left: int = -1,
             window_right: int = -1, deterministic: bool = False, cu_seqlens_q: Tensor | None = None,
             cu_seqlens_k: Tensor | None = None, max_seqlen_q: int | None = None,
             max_seqlen_k: int | None = None, alibi_slopes: Tensor | None = None) -> FmhaBwdArgs:
    """The ``fmha_bwd_args`` of one backward call (the forward's layouts: see :func:`fwd_args`).

    do, dq like q; dk, dv like k but with nhead_q heads (CK writes them per query head); lse and d (D =
    rowsum(dO * O), filled by the caller) float32 of one layout (batch mode (batch, nheads, seqlen_q), group mode (nheads, total_q)); dq_acc float32 of
    :func:`bwd_workspace`'s shape. Group mode (cu_seqlens given) needs max_seqlen_q and max_seqlen_k; there
    dq_dk_dv returns at once for a sequence without queries, so the dK / dV rows of its keys are never
    written: allocate dk and dv zeroed in group mode.
    ``alibi_slopes``: as :func:`fwd_args` (the forward's, so both see the same bias and LSE).
    Raises NotImplementedError for a non-unit headdim stride, ValueError for inconsistent shapes.
    """
    group = cu_seqlens_q is not None
    if group != (cu_seqlens_k is not None):
        raise ValueError("cu_seqlens_q and cu_seqlens_k must be given together (group mode) or not at all")
    for name, t in (("q", q), ("k", k), ("v", v), ("o", o), ("dout", do), ("dq", dq), ("dk", dk), ("dv", dv)):
        if t.strides[-1] != 1:
            check_supported(headdim_stride=t.strides[-1])
        if len(t.shape) != (3 if group else 4):
            raise ValueError(f"{name} must have {3 if group else 4} dimensions in "
                             f"{'group' if group else 'batch'} mode, got shape {t.shape}")
    nhead_q, nhead_k = q.shape[-2], k.shape[-2]
    if nhead_q % nhead_k:
        raise ValueError(f"nheads ({nhead_q}) must be a multiple of nheads_k ({nhead_k})")
    if dk.shape[-2] != nhead_q or dv.shape[-2] != nhead_q:
        raise ValueError(f"dk and dv must have nhead_q = {nhead_q} heads (CK writes them per query head), got "
                         f"{dk.shape} and {dv.shape}")
    if lse.strides[-1] != 1 or d.strides != lse.strides or d.shape != lse.shape:
        raise ValueError(f"lse and d must share one layout with unit row stride (CK reads both through "
                         f"nhead_stride_lsed / batch_stride_lsed), got {lse.shape}/{lse.strides} and "
                         f"{d.shape}/{d.strides}")
    if len(dq_acc.shape) != (4 if group else 5) or dq_acc.strides[-1] != 1:
        raise ValueError(f"dq_acc must be bwd_workspace's {'(nheads, splits, total_q, headdim)' if group else '(batch, nheads, splits, seqlen_q, headdim)'}, "
                         f"got shape {dq_acc.shape} strides {dq_acc.strides}")
    row = -3
    mask_type, left, right = mask_fields(window_left, window_right,
                                         None if alibi_slopes is None else k.shape[row])
    nbatch = cu_seqlens_q.shape[0] - 1 if group else q.shape[0]
    common = dict(**alibi_fields(alibi_slopes, nbatch, nhead_q), q_ptr=q.ptr, k_ptr=k.ptr, v_ptr=v.ptr, o_ptr=o.ptr, lse_ptr=lse.ptr, do_ptr=do.ptr, d_ptr=d.ptr,
                  dq_ptr=dq.ptr, dk_ptr=dk.ptr, dv_ptr=dv.ptr, dq_acc_ptr=dq_acc.ptr,
                  hdim_q=q.shape[-1], hdim_v=v.shape[-1], nhead_q=nhead_q, nhead_k=nhead_k,
                  scale=float(softmax_scale),
                  stride_q=q.strides[row], stride_k=k.strides[row], stride_v=v.strides[row], stride_o=o.strides[row],
                  stride_do=do.strides[row], stride_dq_acc=dq_acc.strides[-2], stride_dq=dq.strides[row],
                  stride_dk=dk.strides[row], stride_dv=dv.strides[row],
                  nhead_stride_q=q.strides[-2], nhead_stride_k=k.strides[-2], nhead_stride_v=v.strides[-2],
                  nhead_stride_o=o.strides[-2], nhead_stride_do=do.strides[-2], nhead_stride_lsed=lse.strides[-2],
                  nhead_stride_dq_acc=dq_acc.strides[-4], nhead_stride_dq=dq.strides[-2],
                  nhead_stride_dk=dk.strides[-2], nhead_stride_dv=dv.strides[-2],
                  split_stride_dq_acc=dq_acc.strides[-3] if deterministic else 0,
                  window_size_left=left, window_size_right=right, mask_type=mask_type)
    if group:
        if max_seqlen_q is None or max_seqlen_k is None:
            raise ValueError("max_seqlen_q and max_seqlen_k must be given in group mode (they size the grids)")
        zero = dict.fromkeys(("batch_stride_q", "batch_stride_k", "batch_stride_v", "batch_stride_o",
                              "batch_stride_do", "batch_stride_lsed", "batch_stride_dq_acc", "batch_stride_dq",
                              "batch_stride_dk", "batch_stride_dv"), 0)
        return FmhaBwdArgs(**common, **zero, seqstart_q_ptr=cu_seqlens_q.ptr, seqstart_k_ptr=cu_seqlens_k.ptr,
                           seqlen_q=0, seqlen_k=0, batch=cu_seqlens_q.shape[0] - 1, max_seqlen_q=max_seqlen_q,
                           max_seqlen_k=max_seqlen_k)
    seqlen_q, seqlen_k = q.shape[1], k.shape[1]
    return FmhaBwdArgs(**common, seqstart_q_ptr=0, seqstart_k_ptr=0, seqlen_q=seqlen_q, seqlen_k=seqlen_k,
                       batch=q.shape[0], max_seqlen_q=seqlen_q, max_seqlen_k=seqlen_k,
                       batch_stride_q=q.strides[0], batch_stride_k=k.strides[0], batch_stride_v=v.strides[0],
                       batch_stride_o=o.strides[0], batch_stride_do=do.strides[0], batch_stride_lsed=lse.strides[0],
                       batch_stride_dq_acc=dq_acc.strides[0], batch_stride_dq=dq.strides[0],
                       batch_stride_dk=dk.strides[0], batch_stride_dv=dv.strides[0])


def mask_coordinates(args: FmhaFwdArgs | FmhaBwdArgs, seqlen_q: int, seqlen_k: int) -> tuple[int, int]:
    """(y, x) of CK's generic mask for one sequence, as the kernel derives them
    (make_generic_attention_mask_coordinates_from_lr_window, block/block_masking.hpp)."""
    top_left = args.mask_type == MASK_TOP_LEFT
    left = args.window_size_left if args.window_size_left >= 0 else (seqlen_q - 1 if top_left else seqlen_k - 1)
    right = args.window_size_right if args.window_size_right >= 0 else (seqlen_k - 1 if top_left else seqlen_q - 1)
    x = 1 + right + (0 if top_left else seqlen_k - seqlen_q)
    y = 1 + left + (0 if top_left else seqlen_q - seqlen_k)
    return y, x


def tensor_of(shape: Sequence[int], strides: Sequence[int], ptr: int, dtype: str = "fp16") -> Tensor:
    return Tensor(int(ptr), tuple(int(s) for s in shape), tuple(int(s) for s in strides), dtype)
