"""The host path of ``flash_attn_with_kvcache`` on the compiled backends (hip, cuda) for repeated decode steps.

A decode step launches kernels of a few to a few tens of microseconds, so the Python between the call and the
launch decides its speed (perf/RESULTS.md, host path). The full path (rocflash.kvcache) checks every argument
and reads the index tensors' values on the host (a device->host sync per call); here a call whose *signature*
(shapes, strides, dtypes, devices, the scalar arguments with their types, backend, ROCFLASH_BACKEND) already
passed the full path's checks once skips them and reads no device value:

- no device->host sync and no host read of a device tensor: the step can be captured in a CUDA graph;
- the values of cache_seqlens, block_table and cache_batch_idx are guarded on the device instead, by the
  policy ``ROCFLASH_INDEX_CHECKS`` (read per call):
    device (default)  clamp-and-flag: the kernel reads the clamped indices (never outside the cache), and
                      ``torch._assert_async`` stops the stream when a value is out of range (on a GPU: the
                      device-side assert of PyTorch's own indexing; the error surfaces at the next sync and the
                      process's GPU context is unusable after it, as for an out-of-range index in torch). The
                      block table's valid pages are found once per table object and ``_version`` (a write that
                      bypasses torch's version counter goes unflagged until the next in-place change; the
                      clamp still applies);
    host              every call takes the full path: ValueError naming the argument and value before any
                      launch, one device->host sync per call (not graph-capturable);
    off               clamp only, no flag (flash-attn's and vLLM's behaviour: no value check; the clamp keeps
                      every read inside the cache, out-of-range values give the result of the clamped ones).
- the split-KV plan takes the cache's capacity (seqlen_cache, or max_blocks_per_seq x page_block_size) as
  max_seqlen_k, as flash-attn does (``k_cache.size(1)``): the full path on these backends does the same, so the
  first call and the following ones of a signature give bitwise the same result.

Taken only for: plain tensors, no rotary, no cache_leftpad, no ALiBi tensor, forward only (no gradient), and,
when k, v are appended, a dense cache without cache_batch_idx whose storage no other argument shares (the
paged append and cache_batch_idx appends check their aliasing rules on the values: full path). Every other call
takes the full path. When the launch itself fails after the append, the new tokens stay in the slots
[cache_seqlens, cache_seqlens + seqlen_new), which the caller's cache_seqlens does not cover (garbage by the
API's contract); every slot before them is unchanged.
"""

from __future__ import annotations

import os
import weakref
from dataclasses import dataclass, field

import torch

from .backends import FwdArgs, SeqArgs, compiled
from .interface import _getenv as _env
from .selector import ENV_VAR

INDEX_CHECKS_ENV = "ROCFLASH_INDEX_CHECKS"
INDEX_CHECKS = ("device", "host", "off")
_PLANS: dict = {}
_PLANS_SIZE = 256
_CONST: dict = {}  # small index tensors a step reuses: (kind, device, ...) -> tensor
_CONST_SIZE = 256


def index_checks() -> str:
    """``ROCFLASH_INDEX_CHECKS`` (device | host | off; unset = device). ValueError for another value."""
    mode = (_env(INDEX_CHECKS_ENV) or "device").strip().lower() or "device"
    if mode not in INDEX_CHECKS:
        raise ValueError(f"{INDEX_CHECKS_ENV} must be one of {', '.join(INDEX_CHECKS)}, got "
                         f"{os.environ[INDEX_CHECKS_ENV]!r}")
    return mode


@dataclass(frozen=True)
class Plan:
    """What the full path's checks established for a signature."""

    backend: str
    args: FwdArgs
    seqlen_new: int
    capacity: int  # keys a sequence can hold: seqlen_cache, or max_blocks_per_seq * page_block_size
    num_blocks: int  # paged: k_cache.shape[0]; dense: rows of the cache
    launch: dict = field(default_factory=dict)  # the compiled params of this signature (varlen_forward_planned)
    tables: dict = field(default_factory=dict)  # (id(block_table), stream) -> (weakref, version, valid keys per row)


def _meta(t):
    return None if t is None else (t.shape, t.stride(), t.dtype, t.device)


def signature(q, k_cache, v_cache, k, v, rotary_cos, rotary_sin, cache_seqlens, cache_batch_idx, cache_leftpad,
              block_table, softmax_scale, causal, window_size, softcap, rotary_interleaved, alibi_slopes,
              num_splits, return_softmax_lse, backend):
    """The key of a call that may take the fast path, or None (full path)."""
    if rotary_cos is not None or rotary_sin is not None or cache_leftpad is not None or alibi_slopes is not None:
        return None
    T = torch.Tensor
    if type(q) is not T or type(k_cache) is not T or type(v_cache) is not T or torch.compiler.is_compiling():
        return None
    if k is not None and (type(k) is not T or type(v) is not T or block_table is not None
                          or cache_batch_idx is not None):
        return None
    if (block_table is not None and type(block_table) is not T) or \
            (cache_batch_idx is not None and type(cache_batch_idx) is not T):
        return None
    if type(cache_seqlens) is T:
        lens = _meta(cache_seqlens)
    elif cache_seqlens is None or type(cache_seqlens) is int:
        lens = cache_seqlens is None  # an int's value is checked per call
    else:
        return None
    grad = torch.is_grad_enabled() and (q.requires_grad or k_cache.requires_grad or v_cache.requires_grad or
                                        (k is not None and (k.requires_grad or v.requires_grad)))
    writes = None if k is None else \
        (k_cache.is_inference(), v_cache.is_inference(), torch.is_inference_mode_enabled(), _meta(k), _meta(v))
    key = (_meta(q), _meta(k_cache), _meta(v_cache), writes, lens, grad, _env(ENV_VAR),
           None if cache_batch_idx is None else _meta(cache_batch_idx),
           None if block_table is None else _meta(block_table),
           type(softmax_scale), softmax_scale, type(causal), causal, type(window_size), window_size,
           type(softcap), softcap, type(num_splits), num_splits, type(return_softmax_lse), return_softmax_lse,
           backend, type(rotary_interleaved), rotary_interleaved)
    return key


def lookup(key) -> Plan | None:
    if key is None:
        return None
    try:
        return _PLANS.get(key)
    except TypeError:  # an unhashable argument (a list window_size): the full path
        return None


def remember(key, plan: Plan) -> None:
    try:
        hash(key)
    except TypeError:
        return
    if len(_PLANS) >= _PLANS_SIZE:
        _PLANS.clear()
    _PLANS[key] = plan


def _shares_storage(q, k_cache, v_cache, k, v) -> bool:
    """Whether an input shares a storage with a cache (the full path then checks the exact overlap)."""
    a, b = k_cache.untyped_storage().data_ptr(), v_cache.untyped_storage().data_ptr()
    for t in (q, k, v):
        ptr = t.untyped_storage().data_ptr()
        if ptr == a or ptr == b:
            return True
    return a == b


def _capturing(dev) -> bool:
    """Whether this stream of dev is being captured into a CUDA graph."""
    return dev.type == "cuda" and torch.cuda.is_current_stream_capturing()


def _const(key, make):
    """A cached constant index tensor, made on its first eager use. key[1] is (device, stream, capturing): one copy
    per stream, made in that stream's order (a copy made on another stream may not be written yet when this
    stream's kernel reads it, and the caching allocator would hand its memory out again without waiting for this
    stream's reads). During a CUDA graph capture it is made fresh (the graph's pool) and neither kept nor taken
    from the cache: a captured graph reads the tensor at every replay, and a kept one can be dropped by the clear."""
    if key[1][2]:
        return make()
    t = _CONST.get(key)
    if t is None:
        t = make()
        if len(_CONST) >= _CONST_SIZE:
            _CONST.clear()
        _CONST[key] = t
    return t


def run(plan: Plan, q, k_cache, v_cache, k, v, cache_seqlens, cache_batch_idx, block_table, num_splits,
        return_softmax_lse):
    """The step on a signature that passed the full checks; NotImplemented when this call must take the full
    path after all (a shared storage on append, ROCFLASH_INDEX_CHECKS=host)."""
    mode = index_checks()
    if mode == "host":
        return NotImplemented
    if k is not None and _shares_storage(q, k_cache, v_cache, k, v):
        return NotImplemented
    batch, seqlen_q, nheads, headdim = q.shape
    dev = q.device
    at = (dev, compiled.current_stream(q), _capturing(dev))  # the _const tensors' device, stream; a capture?
    new, cap = plan.seqlen_new, plan.capacity
    if batch == 0 or seqlen_q == 0 or cap == 0:
        return NotImplemented
    checks = []  # (ok: bool tensor, message) for the device flag
    table = rows = None
    if block_table is not None:  # (no append here: a paged append takes the full path, so seqlen_new is 0)
        page = k_cache.shape[1]
        table = block_table.clamp(0, plan.num_blocks - 1)  # never a block outside the cache, whatever the flag
    if table is not None and mode == "device":
        # the pages a sequence uses must all be blocks of the cache: its keys must lie below the first page that is
        # not (per row, once per table object and version; recomputed at every replay of a captured graph)
        limit = _valid_keys(plan, block_table, table, page, at)
        if isinstance(cache_seqlens, torch.Tensor):
            zeros = _const(("zeros", at, batch), lambda: torch.zeros(batch, dtype=torch.int32, device=dev))
            lens = used = torch.clamp(cache_seqlens, zeros, limit)
            checks.append((torch.eq(lens, cache_seqlens).all(),
                           f"cache_seqlens + seqlen_new must be in [0, {cap}] (the cache's capacity) and block_table "
                           f"must index blocks in [0, num_blocks={plan.num_blocks}) for the pages holding each "
                           f"sequence's keys (ROCFLASH_INDEX_CHECKS=host names the value)"))
        else:
            n = cap if cache_seqlens is None else cache_seqlens
            if not 0 <= n <= cap:
                return NotImplemented  # the full path raises its ValueError
            lens = used = _const(("full", at, batch, n), lambda: torch.full((batch,), n, dtype=torch.int32, device=dev))
            checks.append(((limit >= n).all(),
                           f"block_table must index blocks in [0, num_blocks={plan.num_blocks}) for the pages "
                           f"holding each sequence's keys (ROCFLASH_INDEX_CHECKS=host names the entry)"))
    # keys of each sequence after the append: cache_seqlens + seqlen_new, clamped into the cache
    elif isinstance(cache_seqlens, torch.Tensor):
        lens = cache_seqlens.clamp(0, cap - new)
        if mode == "device":
            checks.append((torch.eq(lens, cache_seqlens).all(),
                           f"cache_seqlens + seqlen_new must be in [0, {cap}] (the cache's capacity); seqlen_new = "
                           f"{new} (ROCFLASH_INDEX_CHECKS=host names the value)"))
        used = lens + new if new else lens
    elif cache_seqlens is None:
        lens = used = _const(("full", at, batch, cap), lambda: torch.full((batch,), cap, dtype=torch.int32, device=dev))
    else:
        n = cache_seqlens
        if not 0 <= n <= cap - new:
            return NotImplemented  # the full path raises its ValueError
        lens = None
        used = torch.full((batch,), n + new, dtype=torch.int32, device=dev)
    if cache_batch_idx is not None:
        rows = cache_batch_idx.clamp(0, plan.num_blocks - 1)
        if mode == "device":
            checks.append((torch.eq(rows, cache_batch_idx).all(),
                           f"cache_batch_idx must index rows of k_cache in [0, {plan.num_blocks}) "
                           f"(ROCFLASH_INDEX_CHECKS=host names the value)"))
    for ok, message in checks:  # before the append and the launch on this stream
        torch._assert_async(ok, message)
    if k is not None and new > 0:
        _append(k_cache, v_cache, k, v, lens, new, cache_seqlens, batch, at)
    seq = SeqArgs(
        cu_seqlens_q=_const(("cu_q", at, batch, seqlen_q),
                            lambda: torch.arange(0, (batch + 1) * seqlen_q, seqlen_q, dtype=torch.int32, device=dev)),
        cu_seqlens_k=None, seqused_k=used, max_seqlen_q=seqlen_q, max_seqlen_k=cap, block_table=table,
        cache_batch_idx=rows, num_splits=num_splits)
    # no autograd: the signature's gradient flag is False (the full path raises NotImplementedError otherwise)
    out, lse = compiled.varlen_forward_planned(plan.backend, plan.launch, q.reshape(batch * seqlen_q, nheads, headdim),
                                               k_cache, v_cache, seq, plan.args, _env, return_softmax_lse)
    out = out.view(batch, seqlen_q, nheads, headdim)
    if return_softmax_lse:
        return out, lse.view(nheads, batch, seqlen_q).transpose(0, 1).contiguous()
    return out


def _valid_keys(plan: Plan, block_table, table, page: int, at) -> torch.Tensor:
    """int32 (batch,): per row, the keys its pages hold up to the first entry outside [0, num_blocks) (``table``
    is block_table clamped into that range, so they differ exactly there). Kept per table object and version
    (``Tensor._version``: torch's in-place writes bump it; writes that bypass torch, e.g. through ``.data`` or
    DLPack, do not and then go unflagged until the table changes; the clamp still keeps every read inside the
    cache). During a CUDA graph capture it is computed, not kept: each replay checks the table it reads. Kept per
    stream too (``at`` = (device, stream, capturing)): another stream's copy may not be computed yet."""
    dev = at[0]
    capturing = at[2]
    version = block_table._version
    hit = None if capturing else plan.tables.get((id(block_table), at[1]))
    if hit is not None and hit[0]() is block_table and hit[1] == version:
        return hit[2]
    width = table.shape[1]
    cols = _const(("cols", at, width), lambda: torch.arange(width, dtype=torch.int32, device=dev))
    limit = torch.where(table != block_table, cols, width).amin(1) * page
    if not capturing:
        if len(plan.tables) >= 8:
            plan.tables.clear()
        plan.tables[(id(block_table), at[1])] = (weakref.ref(block_table), version, limit)
    return limit


def _append(k_cache, v_cache, k, v, lens, new, cache_seqlens, batch, at):
    """k, v (batch, new, nheads_k, headdim) written at positions lens[b] + i of cache row b (dense cache, rows
    0..batch-1). ``lens`` is the clamped device tensor, or None for an int cache_seqlens."""
    seqlen_cache = k_cache.shape[1]
    dev = k.device
    if lens is None:  # one int for every sequence: a slice assignment
        k_cache[:batch, cache_seqlens:cache_seqlens + new] = k
        v_cache[:batch, cache_seqlens:cache_seqlens + new] = v
        return
    base = _const(("rows", at, batch, seqlen_cache),
                  lambda: torch.arange(0, batch * seqlen_cache, seqlen_cache, dtype=torch.int64, device=dev))
    flat = base + lens  # (batch,) int64: row b's first new slot in the (batch_cache * seqlen_cache) rows
    if new > 1:
        flat = (flat[:, None] + _const(("ar", at, new), lambda: torch.arange(new, device=dev))).reshape(-1)
    for cache, x in ((k_cache, k), (v_cache, v)):
        src = x.reshape(-1, *x.shape[2:])
        if cache.stride(0) == seqlen_cache * cache.stride(1):  # rows of the cache as one (rows, nheads_k, d) axis
            cache.view(-1, *cache.shape[2:]).index_copy_(0, flat, src)
        else:
            cache.index_put_((flat // seqlen_cache, flat % seqlen_cache), src)
