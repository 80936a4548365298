"""``flash_attn_varlen_func``: attention over packed variable-length sequences, drop-in for flash-attn's.

Also the shared machinery of the inference API (:mod:`rocflash.kvcache` uses it): the checks of the
per-sequence index tensors (cu_seqlens, block_table), the page-size rule, and the dispatch of a
:class:`rocflash.backends.SeqArgs` call to a backend with autograd.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, replace

import torch
from torch.autograd.function import once_differentiable

from .backends import FwdArgs, SeqArgs, ck, ck_varlen, compiled, dropout_not_implemented, reference, sim
from .backends.seqlayout import alibi_for, sequence_kv, sequences
from .interface import _FP64_BACKENDS, _backend_name, _check_args, _NoWork
from .kvcache_fast import SignatureCache, _capturing, _env_state, _error_flag, index_checks
from .ops import check_backward_scale
from .selector import Selection, select_backend

LOG2E = 1.0 / math.log(2.0)
PAGE_SIZES = tuple(range(16, 257, 16))  # page_block_size: every multiple of 16 from 16 to 256
PAGE_RULE = "a multiple of 16 from 16 to 256 (16, 32, 48, ..., 256)"


def flash_attn_varlen_func(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    cu_seqlens_q: torch.Tensor,
    cu_seqlens_k: torch.Tensor,
    max_seqlen_q: int,
    max_seqlen_k: int,
    dropout_p: float = 0.0,
    softmax_scale: float | None = None,
    causal: bool = False,
    window_size: tuple[int, int] = (-1, -1),
    softcap: float = 0.0,
    alibi_slopes: torch.Tensor | None = None,
    deterministic: bool = False,
    return_attn_probs: bool = False,
    block_table: torch.Tensor | None = None,
    *,
    backend: str | None = None,
):
    """Exact attention over a batch of sequences of different lengths packed along the token axis, drop-in for
    ``flash_attn.flash_attn_varlen_func``.

    Args:
        q: (total_q, nheads, headdim); sequence b owns rows [cu_seqlens_q[b], cu_seqlens_q[b+1]).
            dtypes as :func:`rocflash.flash_attn_func` (float16 / bfloat16 / float32; float64 on torch, sim).
        k, v: (total_k, nheads_k, headdim), sequence b owns rows [cu_seqlens_k[b], cu_seqlens_k[b+1]); or,
            with ``block_table``, a paged cache (num_blocks, page_block_size, nheads_k, headdim) whose key j
            of sequence b is k[block_table[b, j // page_block_size], j % page_block_size].
            nheads % nheads_k == 0 (GQA/MQA).
        cu_seqlens_q, cu_seqlens_k: int32 (batch + 1,) on q's device: 0, then non-decreasing cumulative
            lengths ending at total_q / total_k (with block_table: ending anywhere, the lengths being the keys
            of each sequence in its pages). Repeated entries are empty sequences: they produce nothing.
        max_seqlen_q, max_seqlen_k: ints >= the longest sequence's seqlen_q / seqlen_k (flash-attn sizes its
            grid with them; an upper bound is accepted, a smaller value raises ValueError).
        dropout_p, softmax_scale, softcap: as :func:`rocflash.flash_attn_func`.
        deterministic: accepted for flash-attn compatibility; the varlen backward always runs the separate dQ
            kernel (bitwise repeatable), also where flash_attn_func's deterministic=False adds dQ atomically;
            except on "ck", where False (the default) adds dQ atomically, as flash-attn on ROCm does, and True
            (or torch.use_deterministic_algorithms(True)) is not built for CK's group mode (the hip kernel runs
            it when ck was probed; NotImplementedError when ck was asked for).
        causal, window_size: per sequence, bottom-right aligned with that sequence's seqlen_q and seqlen_k:
            row i of a sequence sees key j iff i + seqlen_k - seqlen_q - left <= j <= i + seqlen_k - seqlen_q
            + right (causal: right = 0).
        alibi_slopes: float32 (nheads,) or (batch, nheads).
        return_attn_probs: also return the LSE float32 (nheads, total_q), natural log, and None.
        block_table: int32 (batch, max_blocks_per_seq) on q's device: paged K/V (forward only on the fused
            backends; the torch backend differentiates through the gather). page_block_size must be
            a multiple of 16 from 16 to 256.
        backend: "hip" | "cuda" | "torch" | "sim" | "ck" | None (then ROCFLASH_BACKEND, then a device probe).
            "ck" (CDNA builds with CK instances) runs CK's group-mode instances for packed K/V (headdim <= 128,
            fp16 with gradients, bf16 inference only, no ALiBi; the training forward writes O in float32 for the
            backward's D). Paged K/V
            (block_table) never runs on CK (its split-KV / paged kernels are not mapped). What CK does not cover
            runs on rocflash's hip kernel when ck was chosen by the probe, and raises NotImplementedError naming
            the argument when backend='ck' (or ROCFLASH_BACKEND=ck) asked for it.

    Returns:
        out (total_q, nheads, headdim) in q's dtype, or (out, softmax_lse, None) with return_attn_probs.
        Rows of a sequence without keys give 0 (LSE -inf).

    Differentiable once in q, k, v: the fused backends run their varlen backward kernels, the torch backend
    autograd. On the compiled backends (hip, cuda) no index value is read on the host (no device->host sync;
    the grid comes from max_seqlen_q / max_seqlen_k): their rules are checked on the device by one check kernel
    launched before the attention kernels, a violation setting ``rocflash.kvcache_fast.index_error_flag(device)``
    and stopping the stream with a device-side assert (RuntimeError at the next synchronization; on AMD a trap
    without the message; ``device_checks``), unless
    ROCFLASH_INDEX_CHECKS=host, which reads them (two syncs) and raises the ValueErrors below (``off`` checks
    on the device too: a varlen kernel has no safe way to skip a bad sequence). The torch and sim backends read
    them on the host. A repeated inference call (no gradient, no ALiBi tensor) of one signature (shapes, strides,
    dtypes, devices, max_seqlen_q/k, the scalar arguments, backend, the ROCFLASH_* switches) on hip / cuda skips
    the host checks and the backend selection it passed before: the check kernel and the forward only.

    Raises:
        TypeError / ValueError naming the argument, rule and value, before any launch (index tensors: dtype
        int32, shape, device; their values (monotonic, totals, max_seqlen, block_table entries) on the host path,
        see above; page size rule); NotImplementedError for dropout_p > 0 and,
        before any launch, for block_table with q/k/v requiring grad on a fused backend (no paged backward).
    """
    if torch.compiler.is_compiling():
        # torch.compile: the checks read the index tensors' values, so they run inside torch.ops.rocflash.varlen_fwd
        # (same rules and messages, raised before any launch); the backend is selected here, at trace time
        window_left, window_right = window_size
        with_stats = torch.is_grad_enabled() and any(t.requires_grad for t in (q, k, v))
        out, lse, _, _ = varlen_fwd(q, k, v, cu_seqlens_q, cu_seqlens_k, block_table, max_seqlen_q, max_seqlen_k,
                                    dropout_p, softmax_scale, causal, window_left, window_right, softcap, alibi_slopes,
                                    deterministic, traced_backend_name(q, backend), with_stats)
        return (out, lse, None) if return_attn_probs else out
    key = _plan_key(q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k, dropout_p, softmax_scale, causal,
                    window_size, softcap, alibi_slopes, deterministic, return_attn_probs, block_table, backend)
    plan = _lookup(key)
    if plan is not None:  # an inference signature that passed every host check before (see _plan_key)
        out, lse = _run_plan(plan, q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k, block_table)
        return (out, lse, None) if return_attn_probs else out
    on_device, sel = _checks_on_device(q, backend)
    seq, args, no_work = _prepare(q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k, dropout_p,
                                  softmax_scale, causal, window_size, softcap, alibi_slopes, deterministic,
                                  return_attn_probs, block_table, on_device=on_device)
    needs_grad = torch.is_grad_enabled() and any(t.requires_grad for t in (q, k, v))
    name = select_varlen_backend(q, backend, dropout_p,
                                 ck_call=(k, args, block_table is not None, needs_grad, deterministic), sel=sel)
    if block_table is not None and name != "torch" and torch.is_grad_enabled() and \
            any(t.requires_grad for t in (q, k, v)):
        raise NotImplementedError(f"flash_attn_varlen_func: backend '{name}' has no backward for paged K/V "
                                  f"(block_table given and q/k/v require grad): call it under torch.no_grad() or "
                                  f"with tensors that do not require grad, or use backend='torch' for gradients")
    if key is not None and on_device is not None and name == on_device and not no_work and \
            all(t.stride(-1) == 1 for t in (q, k, v)) and \
            all(t is None or t.is_contiguous() for t in (cu_seqlens_q, cu_seqlens_k, block_table)):
        _remember(key, _VarlenPlan(name, args, q.shape[0], None if block_table is not None else k.shape[0],
                                   k.shape[0] if block_table is not None else 0,
                                   k.shape[1] if block_table is not None else 0))
    out, lse = run_varlen(q, k, v, seq, args, name, no_work=no_work)
    return (out, lse, None) if return_attn_probs else out


# Repeated inference calls of one signature on the compiled backends (prefill and decode steps of a serving loop)
# skip the host checks and the backend selection: the signature (_plan_key) fixes everything they depend on but
# the index values, which the check kernel checks on the device at every call (device_checks). Forward only (no
# gradient), no ALiBi tensor, plain tensors, headdim contiguous, contiguous index tensors, some work to do.
_PLANS = SignatureCache()


@dataclass(frozen=True)
class _VarlenPlan:
    platform: str  # "hip" or "cuda": the compiled backend (and its check kernel)
    args: FwdArgs
    total_q: int
    total_k: int | None  # None: paged K/V (cu_seqlens_k ends anywhere)
    num_blocks: int
    page_block_size: int


def _meta(t):
    return None if t is None else (type(t), t.shape, t.stride(), t.dtype, t.device)


def _plan_key(q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k, dropout_p, softmax_scale, causal,
              window_size, softcap, alibi_slopes, deterministic, return_attn_probs, block_table, backend):
    """The signature of a flash_attn_varlen_func call that may reuse a plan, or None (return_attn_probs by its type
    only: the planned launch writes the LSE either way)."""
    T = torch.Tensor
    if alibi_slopes is not None or type(q) is not T or type(k) is not T or type(v) is not T or \
            type(cu_seqlens_q) is not T or type(cu_seqlens_k) is not T or \
            (block_table is not None and type(block_table) is not T):
        return None
    if torch.is_grad_enabled() and (q.requires_grad or k.requires_grad or v.requires_grad):
        return None
    return (_meta(q), _meta(k), _meta(v), _meta(cu_seqlens_q), _meta(cu_seqlens_k), _meta(block_table),
            type(max_seqlen_q), max_seqlen_q, type(max_seqlen_k), max_seqlen_k, type(dropout_p), dropout_p,
            type(softmax_scale), softmax_scale, type(causal), causal, type(window_size), window_size, type(softcap),
            softcap, type(deterministic), deterministic, type(return_attn_probs), backend,
            _env_state())


def _lookup(key) -> _VarlenPlan | None:
    return _PLANS.get(key)


def _remember(key, plan: _VarlenPlan) -> None:
    _PLANS.put(key, plan)


def _run_plan(plan: _VarlenPlan, q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k, block_table):
    """The full path's launches for a planned signature: the check kernel on this call's index values, then the
    compiled forward (rocflash.backends.compiled.varlen_forward, as _VarlenAttention runs it without a gradient)."""
    paged = block_table is not None
    device_checks(cu_seqlens_q, cu_seqlens_k, plan.total_q, plan.total_k, max_seqlen_q, max_seqlen_k, block_table,
                  plan.num_blocks, plan.page_block_size, platform=plan.platform)
    seq = SeqArgs(cu_seqlens_q, None if paged else cu_seqlens_k,
                  cu_seqlens_k[1:] - cu_seqlens_k[:-1] if paged else None, max_seqlen_q, max_seqlen_k,
                  block_table=block_table)
    return compiled.varlen_forward(plan.platform, q, k, v, seq, plan.args)


def _checks_on_device(q, backend) -> tuple[str | None, Selection | None]:
    """(platform, selection): the compiled module's platform ("hip" or "cuda") when flash_attn_varlen_func checks
    the index values on the device (no host read, no sync): the call runs on a compiled backend (hip, cuda; ck with
    the hip module's check kernel) and ROCFLASH_INDEX_CHECKS is not ``host``, else None; and the backend selection
    it read, which select_varlen_backend takes on (one selection per call), None where it raised (the error comes
    later, from select_varlen_backend, after the argument checks)."""
    if not isinstance(q, torch.Tensor) or torch.compiler.is_compiling():
        return None, None
    mode = index_checks()  # ValueError for a bad ROCFLASH_INDEX_CHECKS on every backend, never ignored
    try:
        sel = select_backend(q.device, backend)
    except Exception:  # noqa: BLE001 - the selection's own error comes later, from select_varlen_backend
        return None, None
    if sel.backend not in ("hip", "cuda", "ck") or mode == "host":
        return None, sel
    return "hip" if sel.backend == "ck" else sel.backend, sel


def _prepare(q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k, dropout_p, softmax_scale, causal,
             window_size, softcap, alibi_slopes, deterministic, return_attn_probs, block_table, on_device=False):
    """flash_attn_varlen_func's checks (errors before any launch): (SeqArgs, FwdArgs, no_work). ``on_device``: the
    index values are checked on the device (``device_checks``; a platform name: its compiled module's check kernel)
    instead of read on the host."""
    for name, t in (("q", q), ("k", k), ("v", v)):
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor, got {type(t).__name__}")
    if q.dim() != 3:
        raise ValueError(f"q must have 3 dimensions (total_q, nheads, headdim), got shape {tuple(q.shape)}")
    paged = block_table is not None
    k_dims = "4 dimensions (num_blocks, page_block_size, nheads_k, headdim) with block_table" if paged \
        else "3 dimensions (total_k, nheads_k, headdim)"
    for name, t in (("k", k), ("v", v)):
        if t.dim() != (4 if paged else 3):
            raise ValueError(f"{name} must have {k_dims}, got shape {tuple(t.shape)}")
    if k.shape != v.shape:
        raise ValueError(f"k and v must have the same shape, got {tuple(k.shape)} and {tuple(v.shape)}")
    if on_device:
        return _prepare_on_device(q, k, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k, dropout_p,
                                  softmax_scale, causal, window_size, softcap, alibi_slopes, deterministic,
                                  return_attn_probs, block_table, platform=on_device)
    cu_q = check_cu_seqlens("cu_seqlens_q", cu_seqlens_q, q.device, q.shape[0])
    cu_k = check_cu_seqlens("cu_seqlens_k", cu_seqlens_k, q.device, None if paged else k.shape[0])
    if len(cu_q) != len(cu_k):
        raise ValueError(f"cu_seqlens_q and cu_seqlens_k must have the same length batch + 1, got {len(cu_q)} "
                         f"and {len(cu_k)}")
    lens_q = [b - a for a, b in zip(cu_q, cu_q[1:])]
    lens_k = [b - a for a, b in zip(cu_k, cu_k[1:])]
    batch = len(lens_q)
    for name, given, lens in (("max_seqlen_q", max_seqlen_q, lens_q), ("max_seqlen_k", max_seqlen_k, lens_k)):
        if not isinstance(given, int) or isinstance(given, bool) or given < 0:
            raise ValueError(f"{name} must be an int >= 0, got {given!r}")
        if lens and given < max(lens):
            raise ValueError(f"{name} must be >= the longest sequence ({max(lens)} from the cu_seqlens), got {given}")
    if paged:
        check_page_size(k.shape[1])
        check_block_table(block_table, batch, k.shape[0], k.shape[1], lens_k, q.device)
    sq, sk = max(lens_q, default=0), max(lens_k, default=0)
    args = check_options(q, k, batch, sq, sk, dropout_p, softmax_scale, causal, window_size, softcap,
                         alibi_slopes, deterministic, return_attn_probs)
    cu_seqlens_q, cu_seqlens_k = cu_seqlens_q.contiguous(), cu_seqlens_k.contiguous()  # the kernels index them
    seq = SeqArgs(cu_seqlens_q, None if paged else cu_seqlens_k,
                  cu_seqlens_k[1:] - cu_seqlens_k[:-1] if paged else None, sq, sk,
                  block_table=block_table.contiguous() if paged else None)
    return seq, args, not any(a * b for a, b in zip(lens_q, lens_k))


def _prepare_on_device(q, k, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k, dropout_p, softmax_scale,
                       causal, window_size, softcap, alibi_slopes, deterministic, return_attn_probs, block_table,
                       platform=None):
    """_prepare without a host read: dtypes, shapes and devices of the index tensors and every scalar rule are
    checked on the host as usual; their values by ``device_checks`` (the grid comes from max_seqlen_q / k, as in
    flash-attn, where they are arguments for that reason)."""
    paged = block_table is not None
    for name, t in (("cu_seqlens_q", cu_seqlens_q), ("cu_seqlens_k", cu_seqlens_k)):
        if isinstance(t, torch.Tensor) and (t.dim() != 1 or t.shape[0] < 1):
            raise ValueError(f"{name} must have shape (batch + 1,) with batch >= 0, got {tuple(t.shape)}")
        check_index(name, t, (t.shape[0] if isinstance(t, torch.Tensor) else 0,), q.device, "(batch + 1,)",
                    values=False)
    if cu_seqlens_q.shape[0] != cu_seqlens_k.shape[0]:
        raise ValueError(f"cu_seqlens_q and cu_seqlens_k must have the same length batch + 1, got "
                         f"{cu_seqlens_q.shape[0]} and {cu_seqlens_k.shape[0]}")
    batch = cu_seqlens_q.shape[0] - 1
    for name, given in (("max_seqlen_q", max_seqlen_q), ("max_seqlen_k", max_seqlen_k)):
        if not isinstance(given, int) or isinstance(given, bool) or given < 0:
            raise ValueError(f"{name} must be an int >= 0, got {given!r}")
    num_blocks = page = 0
    if paged:
        check_page_size(k.shape[1])
        if isinstance(block_table, torch.Tensor) and block_table.dim() != 2:
            raise ValueError(f"block_table must have shape (batch, max_blocks_per_seq), got {tuple(block_table.shape)}")
        width = block_table.shape[1] if isinstance(block_table, torch.Tensor) else 0
        check_index("block_table", block_table, (batch, width), q.device, "(batch, max_blocks_per_seq)", values=False)
        num_blocks, page = k.shape[0], k.shape[1]
    args = check_options(q, k, batch, max_seqlen_q, max_seqlen_k, dropout_p, softmax_scale, causal, window_size,
                         softcap, alibi_slopes, deterministic, return_attn_probs)
    cu_seqlens_q, cu_seqlens_k = cu_seqlens_q.contiguous(), cu_seqlens_k.contiguous()  # the kernels index them
    block_table = block_table.contiguous() if paged else None
    if batch > 0:
        device_checks(cu_seqlens_q, cu_seqlens_k, q.shape[0], None if paged else k.shape[0], max_seqlen_q,
                      max_seqlen_k, block_table, num_blocks, page, platform=platform)
    seq = SeqArgs(cu_seqlens_q, None if paged else cu_seqlens_k,
                  cu_seqlens_k[1:] - cu_seqlens_k[:-1] if paged else None, max_seqlen_q, max_seqlen_k,
                  block_table=block_table)
    return seq, args, batch == 0 or max_seqlen_q == 0 or max_seqlen_k == 0


def device_checks(cu_seqlens_q, cu_seqlens_k, total_q: int, total_k: int | None, max_seqlen_q: int, max_seqlen_k: int,
                  block_table=None, num_blocks: int = 0, page_block_size: int = 0, platform: str | None = None) -> None:
    """The value rules of flash_attn_varlen_func's index tensors checked on their device, without a host read (no
    sync: CUDA-graph capturable). Rules: cu_seqlens start at 0, do not decrease, end at total_q / total_k (K with
    block_table: anywhere); every sequence has at most max_seqlen_q / max_seqlen_k rows (the grid covers them);
    with block_table, at most max_blocks_per_seq x page_block_size keys, and the entries of the pages holding them
    index blocks in [0, num_blocks). ROCFLASH_INDEX_CHECKS=host names the failing value instead (one host read per
    tensor).

    On a GPU with ``platform``'s compiled module: one launch of its check kernel (``varlen_check``,
    hip_src/fmha_varlen_check.h) on the current stream, which sets ``rocflash.kvcache_fast.index_error_flag`` and
    stops the stream in a device-side assert on a violation (NVIDIA: the message below printed, RuntimeError at the
    next synchronization; AMD: a trap, no message); the attention kernels queued after it never run then. Else
    (CPU tensors, a module without the kernel) the same rules as torch ops ending in one ``torch._assert_async``
    (on the CPU it raises RuntimeError here)."""
    mod = compiled.load_module(platform) if platform is not None else None
    launch = getattr(mod, "varlen_check", None)
    if launch is not None:
        dev = cu_seqlens_q.device
        paged = block_table is not None
        with compiled._device_of(cu_seqlens_q):
            launch(compiled._current_stream(cu_seqlens_q), cu_seqlens_q.data_ptr(), cu_seqlens_k.data_ptr(),
                   cu_seqlens_q.shape[0] - 1, total_q, -1 if total_k is None else total_k,
                   min(max_seqlen_q, _INT32_MAX), min(max_seqlen_k, _INT32_MAX),
                   block_table.data_ptr() if paged else 0, block_table.stride(0) if paged else 0,
                   block_table.shape[1] if paged else 0, page_block_size, num_blocks,
                   _error_flag(dev, _capturing(dev)), True)
        return
    cu = torch.stack((cu_seqlens_q, cu_seqlens_k))  # (2, batch + 1)
    lens = cu.diff(dim=1)  # (2, batch)
    limit_k = max_seqlen_k
    if block_table is not None:
        limit_k = min(limit_k, block_table.shape[1] * page_block_size)
    ok = (lens.amin() >= 0) & (lens[0].amax() <= max_seqlen_q) & (lens[1].amax() <= limit_k) & \
        (cu[:, 0].abs().amax() == 0) & (cu[0, -1] == total_q)
    if total_k is not None:
        ok &= cu[1, -1] == total_k
    if block_table is not None:
        pages = (lens[1] + (page_block_size - 1)) // page_block_size  # (batch,) pages holding each sequence's keys
        cols = torch.arange(block_table.shape[1], device=block_table.device)
        outside = (block_table < 0) | (block_table >= num_blocks)
        ok &= ~(outside & (cols < pages[:, None])).any()
    torch._assert_async(ok, _DEVICE_CHECK_MESSAGE)


_INT32_MAX = 2**31 - 1  # max_seqlen_q / k above it bound no int32 length: the kernel takes them clamped


# torch._assert_async on a GPU takes messages shorter than 255 characters (tests/test_varlen.py checks the length)
_DEVICE_CHECK_MESSAGE = ("flash_attn_varlen_func index values: cu_seqlens start at 0, do not decrease, end at total_q/k; "
                         "sequences within max_seqlen_q/k and the block table; used pages in [0, num_blocks) "
                         "(ROCFLASH_INDEX_CHECKS=host names the value)")


# ---------------------------------------------------------------- checks shared with rocflash.kvcache
def check_index(name: str, t, shape: tuple[int, ...], device: torch.device, what: str, values: bool = True) -> list | None:
    """An int32 index tensor of exactly ``shape`` on ``device``; returns its values (one host copy), or None
    with ``values=False``."""
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"{name} must be an int32 torch.Tensor {what}, got {type(t).__name__}")
    if t.dtype != torch.int32:
        raise ValueError(f"{name} must have dtype torch.int32, got {t.dtype}")
    if tuple(t.shape) != shape:
        raise ValueError(f"{name} must have shape {what}={shape}, got {tuple(t.shape)}")
    if t.device != device:
        raise ValueError(f"{name} must be on q's device {device}, got {t.device}")
    return t.tolist() if values else None


def check_cu_seqlens(name: str, t, device: torch.device, total: int | None) -> list[int]:
    """cu_seqlens: int32 (batch + 1,), 0 first, non-decreasing, last == total (when given). Returns its values."""
    if isinstance(t, torch.Tensor) and (t.dim() != 1 or t.shape[0] < 1):
        raise ValueError(f"{name} must have shape (batch + 1,) with batch >= 0, got {tuple(t.shape)}")
    n = t.shape[0] if isinstance(t, torch.Tensor) else 0
    cu = check_index(name, t, (n,), device, "(batch + 1,)")
    if cu[0] != 0:
        raise ValueError(f"{name}[0] must be 0, got {cu[0]}")
    bad = next((i for i in range(1, len(cu)) if cu[i] < cu[i - 1]), None)
    if bad is not None:
        raise ValueError(f"{name} must be non-decreasing (cumulative sequence lengths), got {name}[{bad - 1}]="
                         f"{cu[bad - 1]} > {name}[{bad}]={cu[bad]}")
    if total is not None and cu[-1] != total:
        raise ValueError(f"{name}[-1] must equal the number of rows {total} of the packed tensor, got {cu[-1]}")
    return cu


def check_page_size(page_block_size: int) -> None:
    if page_block_size not in PAGE_SIZES:
        raise ValueError(f"page_block_size (dimension 1 of the paged k_cache / v_cache) must be {PAGE_RULE}, "
                         f"got {page_block_size}")


def check_block_table(block_table, batch: int, num_blocks: int, page_block_size: int, lens_k: list[int],
                      device: torch.device) -> None:
    """block_table int32 (batch, max_blocks_per_seq); the blocks holding each sequence's keys in [0, num_blocks)."""
    if isinstance(block_table, torch.Tensor) and block_table.dim() != 2:
        raise ValueError(f"block_table must have shape (batch, max_blocks_per_seq), got {tuple(block_table.shape)}")
    width = block_table.shape[1] if isinstance(block_table, torch.Tensor) else 0
    check_index("block_table", block_table, (batch, width), device, "(batch, max_blocks_per_seq)", values=False)
    capacity = width * page_block_size
    for b, n in enumerate(lens_k):
        if n > capacity:
            raise ValueError(f"sequence {b} has {n} keys, more than block_table holds: max_blocks_per_seq {width} x "
                             f"page_block_size {page_block_size} = {capacity}")
    if not lens_k or width == 0:
        return
    # On the table's device with one host sync (a decode step's table has batch x seqlen_k / page entries: a
    # Python loop over them cost milliseconds per call on the H200, run D2). Entries of unused pages may hold
    # anything: only when some entry is out of range are the used pages looked at.
    bad = (block_table < 0) | (block_table >= num_blocks)
    if not bool(bad.any()):
        return
    pages = torch.tensor([-(-n // page_block_size) for n in lens_k], dtype=torch.int64, device=block_table.device)
    hits = (bad & (torch.arange(width, device=block_table.device).view(1, -1) < pages.view(-1, 1))).nonzero()
    if hits.numel():
        b, c = (int(x) for x in hits[0])  # row-major: the first sequence, then its first page
        raise ValueError(f"block_table[{b}, {c}] must index blocks in [0, num_blocks={num_blocks}) for the "
                         f"{-(-lens_k[b] // page_block_size)} pages holding its {lens_k[b]} keys, "
                         f"got {int(block_table[b, c])}")


def check_options(q, k, batch: int, seqlen_q: int, seqlen_k: int, dropout_p, softmax_scale, causal, window_size,
                  softcap, alibi_slopes, deterministic, return_attn_probs) -> FwdArgs:
    """dtypes, devices, headdim, GQA and the scalar options, by flash_attn_func's own checks: they run on
    zero-stride stand-ins of the dense shapes (batch, max seqlen_q/k, heads, headdim) that share the real
    tensors' dtype and device (no memory), so the rules and messages stay those of ``flash_attn_func``."""
    q4 = q.new_zeros(()).expand(batch, seqlen_q, q.shape[-2], q.shape[-1])
    k4 = k.new_zeros(()).expand(batch, seqlen_k, k.shape[-2], k.shape[-1])
    return _check_args(q4, k4, k4, dropout_p, softmax_scale, causal, window_size, softcap, alibi_slopes,
                       deterministic, return_attn_probs)


# ---------------------------------------------------------------- dispatch
CK_NO_VARLEN_PATH = ("backend 'ck' has no KV-cache / paged-KV path (flash_attn_with_kvcache, flash_attn_varlen_func "
                     "with block_table; CK's fmha_fwd_splitkv is not mapped, and its paged KV needs page_block_size "
                     "a multiple of 128) nor a torch.compile / context-parallel varlen path: use backend='hip' "
                     "(rocflash's kernels) for them")


def traced_backend_name(q, backend: str | None) -> str:
    """The backend name a traced (torch.compile) varlen / KV-cache call hands its custom op, which re-selects
    with it as an explicit ``backend=``. CK has no traced varlen / KV-cache path: a probe-chosen ``ck`` becomes
    ``hip`` here (as eager calls CK does not cover do), ``ck`` asked for raises NotImplementedError."""
    name = _backend_name(q.device, backend)
    return _traced_ck_fallback(q.device, backend) if name == "ck" else name


@torch.compiler.assume_constant_result
def _traced_ck_fallback(device: torch.device, backend: str | None) -> str:
    if not select_backend(device, backend).probed:
        raise NotImplementedError(CK_NO_VARLEN_PATH)
    return "hip"


def select_varlen_backend(q, backend: str | None, dropout_p: float = 0.0, *, ck_call=None,
                          sel: Selection | None = None) -> str:
    """The backend a SeqArgs call runs on (selector rules), checked to run it: raises before any side effect.

    ``ck_call`` = (k, FwdArgs, paged, needs_grad, deterministic) of a flash_attn_varlen_func call: when the
    selector picks ``ck``, such a call (packed K/V) runs on CK's group-mode instances if they cover it, as
    ``ck:<arch>[:deterministic]`` (rocflash.backends.ck_varlen; deterministic or
    torch.use_deterministic_algorithms picks the deterministic backward). Every other call (flash_attn_with_kvcache,
    paged K/V, the context-parallel ring, torch.compile) and every call CK does not cover runs on rocflash's
    ``hip`` kernel when ck was chosen by the probe, and raises NotImplementedError naming the reason when
    backend='ck' (argument or ROCFLASH_BACKEND) asked for it. ``sel``: the call's select_backend(q.device, backend)
    when the caller made it already (one selection per call)."""
    sel = sel or select_backend(q.device, backend)
    name = sel.backend
    if name == "ck":
        if ck_call is None or ck_call[2]:  # KV cache / paged K/V: CK's split-KV kernels are not mapped
            if not sel.probed:
                raise NotImplementedError(CK_NO_VARLEN_PATH)
            name = "hip"
        else:
            k, args, _, needs_grad, deterministic = ck_call
            deterministic = deterministic or torch.are_deterministic_algorithms_enabled()
            sel, arch = ck.resolve(sel, q, k, args, dropout_p=dropout_p, needs_grad=needs_grad,
                                   deterministic=deterministic, group=True)
            name = ck.encode(arch, deterministic) if sel.backend == "ck" else sel.backend
    if q.dtype == torch.float64 and name not in _FP64_BACKENDS:
        raise TypeError(f"q.dtype must be float16, bfloat16 or float32 for backend '{name}' "
                        f"(float64 runs on backends {_FP64_BACKENDS}), got {q.dtype}")
    if dropout_p > 0:
        raise dropout_not_implemented(name, dropout_p)
    if name not in ("torch", "sim"):
        backend_functions(name)  # raises if the compiled module has no varlen entry points
    return name


def run_varlen(q, k, v, seq: SeqArgs, args: FwdArgs, backend: str, no_work: bool = False):
    """Run a validated SeqArgs call on ``backend`` (from :func:`select_varlen_backend`):
    (out like q, lse float32 (nheads, total_q))."""
    q, k, v = (x if x.stride(-1) == 1 else x.contiguous() for x in (q, k, v))  # kernels need headdim contiguous
    if no_work:  # no sequence has both a query row and a key: out 0, LSE -inf, zero gradients, no launch
        out, lse = _NoWork.apply(q.unsqueeze(0), k, v)  # as a dense batch of one: lse (1, nheads, total_q)
        return out[0], lse[0]
    if backend == "torch":
        out, lse = reference.varlen_forward(q, k, v, seq, args)
        return out, lse.detach()
    return _VarlenAttention.apply(q, k, v, seq, args, backend)


def backend_functions(backend: str):
    """(varlen_forward, varlen_backward) of a fused backend with the SeqArgs signature. The compiled module
    serves two platforms: its functions take the platform first, as ``compiled.forward`` does."""
    if backend == "sim":
        return sim.varlen_forward, sim.varlen_backward
    if backend.startswith("ck:"):  # "ck:<arch>[:deterministic]": CK's group-mode instances
        arch, deterministic = ck.decode(backend)
        return (functools.partial(ck_varlen.varlen_forward, arch, deterministic),
                functools.partial(ck_varlen.varlen_backward, arch, deterministic))
    fwd, bwd = getattr(compiled, "varlen_forward", None), getattr(compiled, "varlen_backward", None)
    if fwd is None or bwd is None:
        raise NotImplementedError(f"backend '{backend}': this rocflash has no varlen / KV-cache kernels yet "
                                  f"(rocflash.backends.compiled.varlen_forward missing); use backend='torch' or 'sim'")
    return functools.partial(fwd, backend), functools.partial(bwd, backend)


class _VarlenAttention(torch.autograd.Function):
    """Varlen forward and backward through a fused backend; the LSE is not differentiable (as in flash-attn).
    When a gradient will be asked for, the forward keeps what the backward reads besides the inputs: the softmax
    stats (P rebuilt exactly as the forward weighted V) and, for 16-bit inputs, O in float32 (D = rowsum(dO * O)
    from it: 4 bytes per element of out while the graph holds it; see rocflash.ops)."""

    @staticmethod
    def forward(ctx, q, k, v, seq, args, backend):
        fwd, _ = backend_functions(backend)
        if any(ctx.needs_input_grad[:3]) and seq.cu_seqlens_k is not None:
            out, lse, stats, out32 = fwd(q, k, v, seq, args, with_stats=True)
        else:  # inference, or a KV-cache / paged layout (forward only): the split-KV kernel may run
            out, lse = fwd(q, k, v, seq, args)
            stats, out32 = lse, None  # the sim keeps an fp64 LSE for fp64 inputs (gradcheck)
        ctx.save_for_backward(q, k, v, out, stats, out32)
        ctx.seq, ctx.args, ctx.backend = seq, args, backend
        lse = lse.float()
        ctx.mark_non_differentiable(lse)
        return out, lse

    @staticmethod
    @once_differentiable
    def backward(ctx, dout, _dlse):
        if ctx.seq.cu_seqlens_k is None:
            raise NotImplementedError(f"backend '{ctx.backend}': the backward of paged K/V (block_table) or a KV "
                                      f"cache is not implemented (forward only); use backend='torch' for gradients")
        q, k, v, out, stats, out32 = ctx.saved_tensors
        check_backward_scale(ctx.args.softmax_scale, q.dtype, ctx.backend, "flash_attn_varlen_func")
        if dout.stride(-1) != 1:
            dout = dout.contiguous()
        _, bwd = backend_functions(ctx.backend)
        dq, dk, dv = bwd(q, k, v, out, stats, dout, ctx.seq, ctx.args, out_fp32=out32)
        return dq, dk, dv, None, None, None


# ---------------------------------------------------------------- torch.library custom ops (torch.compile)
# torch.ops.rocflash.varlen_fwd(q, k, v, cu_seqlens_q, cu_seqlens_k, block_table, max_seqlen_q, max_seqlen_k,
#     dropout_p, softmax_scale, causal, window_left, window_right, softcap, alibi_slopes, deterministic, backend,
#     with_stats=True)
#     -> (out like q contiguous, lse float32 (nheads, total_q), stats_saved, out_fp32)
# torch.ops.rocflash.varlen_bwd(dout, q, k, v, out, stats_saved, <the forward's arguments from cu_seqlens_q>,
#     out_fp32=None) -> (dq, dk, dv) like q, k, v (contiguous)
# Unlike rocflash::fwd these take the user's arguments and run flash_attn_varlen_func's checks themselves (the
# checks read cu_seqlens / block_table values, which a traced graph cannot); ``backend`` is a selected name
# (not None). stats_saved is what the backward reads: with_stats=True (a gradient will be asked for) the softmax
# stats (nheads, total_q, 2) (as rocflash::fwd's: per row m and 1/l; (LSE * log2(e), 1) for the torch backend and
# a block_table call, whose backward does not read them), else an empty (0,) tensor (the split-KV kernel may run);
# float64 for float64 inputs on the sim, else float32. out_fp32: with_stats and float16 / bfloat16 on sim, hip,
# cuda (not paged): O in float32 before rounding (like q), the backward's D = rowsum(dO * O) reads it (4 bytes per
# element of out while the graph holds it); else an empty (0,) float32 tensor.
def _saved_lse_dtype(q, backend: str) -> torch.dtype:
    return torch.float64 if backend == "sim" and q.dtype == torch.float64 else torch.float32


def _keeps_out_fp32(q, backend: str, with_stats: bool, paged: bool) -> bool:
    return with_stats and not paged and q.dtype in (torch.float16, torch.bfloat16) and backend != "torch"


def _op_prepare(q, k, v, cu_seqlens_q, cu_seqlens_k, block_table, max_seqlen_q, max_seqlen_k, dropout_p,
                softmax_scale, causal, window_left, window_right, softcap, alibi_slopes, deterministic, backend):
    seq, args, no_work = _prepare(q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k, dropout_p,
                                  softmax_scale, causal, (window_left, window_right), softcap, alibi_slopes,
                                  deterministic, False, block_table)
    select_varlen_backend(q, backend, dropout_p)
    q, k, v = (x if x.stride(-1) == 1 else x.contiguous() for x in (q, k, v))
    return q, k, v, seq, args, no_work


@torch.library.custom_op("rocflash::varlen_fwd", mutates_args=())
def varlen_fwd(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, cu_seqlens_q: torch.Tensor,
               cu_seqlens_k: torch.Tensor, block_table: torch.Tensor | None, max_seqlen_q: int, max_seqlen_k: int,
               dropout_p: float, softmax_scale: float | None, causal: bool, window_left: int, window_right: int,
               softcap: float, alibi_slopes: torch.Tensor | None, deterministic: bool,
               backend: str, with_stats: bool = True) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """flash_attn_varlen_func's forward through a selected ``backend``: (out, lse, stats_saved, out_fp32); see
    above."""
    q, k, v, seq, args, no_work = _op_prepare(q, k, v, cu_seqlens_q, cu_seqlens_k, block_table, max_seqlen_q,
                                              max_seqlen_k, dropout_p, softmax_scale, causal, window_left,
                                              window_right, softcap, alibi_slopes, deterministic, backend)
    stats = out32 = None
    fused_stats = with_stats and backend != "torch" and not seq.paged
    if no_work:
        out = torch.zeros_like(q, memory_format=torch.contiguous_format)
        lse = torch.full((q.shape[1], q.shape[0]), float("-inf"), dtype=torch.float32, device=q.device)
    elif backend == "torch":
        with torch.no_grad():
            out, lse = reference.varlen_forward(q, k, v, seq, args)
    elif fused_stats:
        out, lse, stats, out32 = backend_functions(backend)[0](q, k, v, seq, args, with_stats=True)
    else:
        out, lse = backend_functions(backend)[0](q, k, v, seq, args)
    sdt = _saved_lse_dtype(q, backend)
    if not with_stats:
        saved = q.new_empty((0,), dtype=sdt)
    elif stats is not None:
        saved = stats.to(sdt).contiguous()
    else:  # from the LSE: m = LSE * log2(e), 1/l = 1 (a row without keys: -inf, and P = 0 either way)
        lse_s = lse.to(sdt)
        saved = torch.stack((lse_s * LOG2E, torch.ones_like(lse_s)), dim=-1).contiguous()
    if _keeps_out_fp32(q, backend, with_stats, seq.paged):
        out32 = torch.zeros(q.shape, dtype=torch.float32, device=q.device) if out32 is None else out32.contiguous()
    else:
        out32 = q.new_empty((0,), dtype=torch.float32)
    return out.contiguous(), lse.float().contiguous(), saved, out32


@varlen_fwd.register_fake
def _varlen_fwd_fake(q, k, v, cu_seqlens_q, cu_seqlens_k, block_table, max_seqlen_q, max_seqlen_k, dropout_p,
                     softmax_scale, causal, window_left, window_right, softcap, alibi_slopes, deterministic, backend,
                     with_stats=True):
    out = torch.empty_like(q, memory_format=torch.contiguous_format)
    lse = q.new_empty((q.shape[1], q.shape[0]), dtype=torch.float32)
    saved = q.new_empty((q.shape[1], q.shape[0], 2) if with_stats else (0,), dtype=_saved_lse_dtype(q, backend))
    out32 = q.new_empty(q.shape if _keeps_out_fp32(q, backend, with_stats, block_table is not None) else (0,),
                        dtype=torch.float32)
    return out, lse, saved, out32


@torch.library.custom_op("rocflash::varlen_bwd", mutates_args=())
def varlen_bwd(dout: torch.Tensor, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, out: torch.Tensor,
               lse_saved: torch.Tensor, cu_seqlens_q: torch.Tensor, cu_seqlens_k: torch.Tensor,
               block_table: torch.Tensor | None, max_seqlen_q: int, max_seqlen_k: int, softmax_scale: float | None,
               causal: bool, window_left: int, window_right: int, softcap: float,
               alibi_slopes: torch.Tensor | None, backend: str,
               out_fp32: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Gradients (dq, dk, dv) of varlen_fwd's out for the upstream gradient ``dout``; see above."""
    q, k, v, seq, args, no_work = _op_prepare(q, k, v, cu_seqlens_q, cu_seqlens_k, block_table, max_seqlen_q,
                                              max_seqlen_k, 0.0, softmax_scale, causal, window_left, window_right,
                                              softcap, alibi_slopes, False, backend)
    if no_work:
        grads = tuple(torch.zeros_like(t) for t in (q, k, v))
    elif backend == "torch":  # no autograd inside an op: the reference's explicit backward, per sequence
        grads = _torch_varlen_backward(q, k, v, dout, seq, args)
    else:
        if seq.cu_seqlens_k is None:
            raise NotImplementedError(f"backend '{backend}': the backward of paged K/V (block_table) or a KV "
                                      f"cache is not implemented (forward only); use backend='torch' for gradients")
        grads = backend_functions(backend)[1](q, k, v, out, lse_saved, dout.contiguous(), seq, args, out_fp32=out_fp32)
    return tuple(g.contiguous() for g in grads)


def _torch_varlen_backward(q, k, v, dout, seq, args):
    """(dq, dk, dv) of reference.varlen_forward by reference.explicit_backward on each sequence; the keys'
    gradients are added back into the packed (or paged) K/V rows the sequence read."""
    dq = torch.zeros_like(q, memory_format=torch.contiguous_format)
    dk, dv = (torch.zeros(x.shape, dtype=x.dtype, device=x.device) for x in (k, v))
    flat_dk, flat_dv = (x.view(-1, *x.shape[-2:]) for x in (dk, dv))  # (total_k or num_blocks*page, hk, d)
    page = k.shape[1] if seq.paged else 0
    for s in sequences(seq, page):
        if s.seqlen_q == 0 or s.seqlen_k == 0:
            continue
        ks, vs = sequence_kv(k, v, seq, s)
        gq, gk, gv = reference.explicit_backward(
            q[s.q_begin:s.q_end].unsqueeze(0), ks, vs, dout[s.q_begin:s.q_end].unsqueeze(0),
            replace(args, alibi_slopes=alibi_for(args.alibi_slopes, s.index)))
        dq[s.q_begin:s.q_end] = gq[0]
        if seq.cu_seqlens_k is not None:
            rows = torch.arange(s.k_begin, s.k_begin + s.seqlen_k, device=k.device)
        else:  # paged: key j lives at row blocks[j // page] * page + j % page of the flattened cache
            j = torch.arange(s.seqlen_k, device=k.device)
            rows = torch.tensor(s.blocks, dtype=torch.long, device=k.device)[j // page] * page + j % page
        flat_dk.index_add_(0, rows, gk[0].to(dk.dtype))
        flat_dv.index_add_(0, rows, gv[0].to(dv.dtype))
    return dq, dk, dv


@varlen_bwd.register_fake
def _varlen_bwd_fake(dout, q, k, v, out, lse_saved, cu_seqlens_q, cu_seqlens_k, block_table, max_seqlen_q,
                     max_seqlen_k, softmax_scale, causal, window_left, window_right, softcap, alibi_slopes, backend,
                     out_fp32=None):
    return tuple(torch.empty_like(t, memory_format=torch.contiguous_format) for t in (q, k, v))


def _varlen_setup_context(ctx, inputs, output):
    (q, k, v, cu_q, cu_k, block_table, max_q, max_k, _dropout, scale, causal, left, right, softcap, alibi,
     _det, backend, _with_stats) = inputs
    out, lse, saved, out32 = output
    ctx.save_for_backward(q, k, v, out, saved, cu_q, cu_k, block_table, alibi, out32)
    ctx.scalars = (max_q, max_k, scale, causal, left, right, softcap)
    ctx.backend = backend
    ctx.mark_non_differentiable(lse, saved, out32)


def _varlen_backward(ctx, dout, _dlse, _dsaved, _dout32):
    q, k, v, out, saved, cu_q, cu_k, block_table, alibi, out32 = ctx.saved_tensors
    max_q, max_k, scale, causal, left, right, softcap = ctx.scalars
    if scale is not None:
        check_backward_scale(scale, q.dtype, ctx.backend, "flash_attn_varlen_func")
    dq, dk, dv = varlen_bwd(dout, q, k, v, out, saved, cu_q, cu_k, block_table, max_q, max_k, scale, causal, left,
                            right, softcap, alibi, ctx.backend, out32)
    return (dq, dk, dv) + (None,) * 15


varlen_fwd.register_autograd(_varlen_backward, setup_context=_varlen_setup_context)
