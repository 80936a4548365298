"""The host path of ``flash_attn_with_kvcache`` on the compiled backends (hip, cuda) for repeated decode steps.

A decode step launches kernels of a few to a few tens of microseconds, so the Python between the call and the
launch decides its speed (perf/RESULTS.md, host path). The full path (rocflash.kvcache) checks every argument
and reads the index tensors' values on the host (a device->host sync per call); here a call whose *signature*
(shapes, strides, dtypes, devices, the scalar arguments with their types, backend, ROCFLASH_BACKEND) already
passed the full path's checks once skips them and reads no device value:

- no device->host sync, no host read of a device tensor and no torch op but the output's allocation: the step is
  one call into the compiled module (``kvcache_step``: the step kernel of hip_src/fmha_kvstep.h, then the split-KV
  and combine kernels, or the forward kernel; with FOLD_STEP the split-KV kernel (tensor-core, or AMD's vector one
  up to headdim 128) runs no step kernel: each of its blocks does the step for its own split, ``folded_kv_step``
  in fmha_kvstep.h, one launch less per step), and can be captured in a CUDA graph;
- the values of cache_seqlens, block_table and cache_batch_idx are checked on the device by the step kernel (or
  the split kernel's blocks), which reads them anyway (it appends the new keys at cache_seqlens and hands the
  attention kernels each sequence's key count), under the policy ``ROCFLASH_INDEX_CHECKS`` (read per call):
    device (default)  a sequence whose index leaves the cache (cache_seqlens + seqlen_new outside [0, capacity],
                      cache_batch_idx outside the cache's rows, a block_table entry of a page holding one of its
                      keys outside [0, num_blocks)) stops the stream in a device-side assert (the error surfaces
                      at the next synchronization and the process's GPU context is unusable after it, as for an
                      out-of-range index in torch's own kernels);
    host              every call takes the full path: ValueError naming the argument and value before any
                      launch, one device->host sync per call (not graph-capturable);
    off               no assert: such a sequence appends nothing and gets NaN in its O and LSE, and no read of
                      it leaves the cache (the step kernel reads none of its keys; with the step folded, a split
                      whose own pages are fine may read them, its partial then merged into NaN); the other
                      sequences are computed as usual. Either way ``index_error_flag(device)`` is set to 1.
                      Calls that run the forward kernel instead of the split-KV kernel (seqlen_q x nheads / nheads_k
                      above rocflash.splitkv.MAX_ROWS with num_splits <= 1), which would give such a sequence 0,
                      not NaN, take the full path under `off`.
  Entries of block_table past each sequence's pages never matter (vLLM pads tables with anything): the step kernel
  reads none of them; the folded step may load those of its split's pages, inside the table, and ignores them.
- the environment variables a step reads (ROCFLASH_BACKEND, ROCFLASH_INDEX_CHECKS, ROCFLASH_POISON_OUTPUTS,
  ROCFLASH_KERNEL and the split-KV switches) are part of the signature: after a change, the next call takes the
  full path once (the exact host checks), then the fast path under the new values;
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
from dataclasses import dataclass, field

import torch

from . import envvars, splitkv
from .backends import FwdArgs, compiled
from .interface import _getenv as _env
from .selector import ENV_VAR

INDEX_CHECKS_ENV = "ROCFLASH_INDEX_CHECKS"
INDEX_CHECKS = ("device", "host", "off")


class SignatureCache:
    """Plans of repeated call signatures (this module's KV-cache step, rocflash.varlen's repeated inference calls):
    at most ``size`` entries, cleared whole when full; an unhashable key (e.g. a list window_size) is never cached,
    so such calls take the full path."""

    def __init__(self, size: int = 256):
        self.size, self._plans = size, {}

    def get(self, key):
        if key is None:
            return None
        try:
            return self._plans.get(key)
        except TypeError:  # an unhashable argument: the full path
            return None

    def put(self, key, plan) -> None:
        try:
            hash(key)
        except TypeError:
            return
        if len(self._plans) >= self.size:
            self._plans.clear()
        self._plans[key] = plan

    def clear(self) -> None:
        self._plans.clear()

    def values(self):
        return self._plans.values()

    def __len__(self) -> int:
        return len(self._plans)


_PLANS = SignatureCache()


# The environment a step depends on, read as one tuple per call (the plan's key holds it, so a changed variable
# takes the full path once, like any other changed argument): ROCFLASH_BACKEND, ROCFLASH_INDEX_CHECKS,
# ROCFLASH_POISON_OUTPUTS, ROCFLASH_KERNEL and the split-KV switches (rocflash.backends.splitkv_env PLAN_ENV_NAMES).
_ENV_NAMES = (ENV_VAR, INDEX_CHECKS_ENV, compiled.POISON_ENV, compiled.KERNEL_ENV, *compiled.PLAN_ENV_NAMES)
_ENV_KEYS = tuple(n.encode() for n in _ENV_NAMES)


def _env_state() -> tuple:
    raw = getattr(os.environ, "_data", None)  # os.environ's bytes mapping (POSIX): no per-name encoding
    if raw is None or os.name == "nt":
        return tuple(map(os.environ.get, _ENV_NAMES))
    return tuple(map(raw.get, _ENV_KEYS))


def index_checks(raw: str | None = None) -> str:
    """``ROCFLASH_INDEX_CHECKS`` (device | host | off; unset = device), or ``raw`` (its value as read). ValueError
    for another value."""
    return envvars.choice(INDEX_CHECKS_ENV, _env(INDEX_CHECKS_ENV) if raw is None else raw, read=False)


@dataclass(frozen=True)
class Plan:
    """What the full path's checks established for a signature."""

    backend: str
    args: FwdArgs
    seqlen_new: int
    capacity: int  # keys a sequence can hold: seqlen_cache, or max_blocks_per_seq * page_block_size
    num_blocks: int  # paged: k_cache.shape[0]; dense: rows of the cache
    launch: dict = field(default_factory=dict)  # _Launch per switches; ("scratch", stream) -> float32 buffer


def _meta(t):
    return None if t is None else (t.shape, t.stride(), t.dtype, t.device)


def signature(q, k_cache, v_cache, k, v, rotary_cos, rotary_sin, cache_seqlens, cache_batch_idx, cache_leftpad,
              block_table, softmax_scale, causal, window_size, softcap, rotary_interleaved, alibi_slopes,
              num_splits, return_softmax_lse, backend):
    """The key of a call that may take the fast path, or None (full path)."""
    if rotary_cos is not None or rotary_sin is not None or cache_leftpad is not None or alibi_slopes is not None:
        return None
    T = torch.Tensor
    if type(q) is not T or type(k_cache) is not T or type(v_cache) is not T:  # (the caller is not compiling)
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
    key = (q.shape, q.stride(), q.dtype, q.device, k_cache.shape, k_cache.stride(), k_cache.dtype, k_cache.device,
           v_cache.shape, v_cache.stride(), v_cache.dtype, v_cache.device, writes, lens, grad, _env_state(),
           None if cache_batch_idx is None else _meta(cache_batch_idx),
           None if block_table is None else _meta(block_table),
           type(softmax_scale), softmax_scale, type(causal), causal, type(window_size), window_size,
           type(softcap), softcap, type(num_splits), num_splits, type(return_softmax_lse), return_softmax_lse,
           backend, type(rotary_interleaved), rotary_interleaved)
    return key


_KEY_ENV = 15  # where signature() puts _env_state() in its key


def signature_env(key) -> tuple:
    """The _env_state() a signature() key was made with."""
    return key[_KEY_ENV]


def lookup(key) -> Plan | None:
    return _PLANS.get(key)


def remember(key, plan: Plan) -> None:
    _PLANS.put(key, plan)


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


_FLAGS: dict = {}  # device index -> int32 (1,): the step kernel's index-error flag


def index_error_flag(device: torch.device | int) -> torch.Tensor | None:
    """The int32 tensor (1,) that the KV-cache step kernel (hip_src/fmha_kvstep.h) sets to 1 when a fast-path call
    on ``device`` met an out-of-range index (policies ``device`` and ``off``; that sequence's output and LSE are
    NaN), and flash_attn_varlen_func's check kernel (hip_src/fmha_varlen_check.h) when its index values break a
    rule (before its assert). None before the first such call on the device. Never reset by rocflash:
    ``flag.zero_()`` does."""
    index = device if isinstance(device, int) else device.index
    return _FLAGS.get(index)


def _error_flag(dev, capturing: bool) -> int:
    flag = _FLAGS.get(dev.index)
    if flag is None:
        if capturing:  # not made inside a capture (it would live in the graph's pool); the graph runs without it
            return 0
        flag = _FLAGS[dev.index] = torch.zeros(1, dtype=torch.int32, device=dev)
    return flag.data_ptr()


def _contiguous_index(t) -> bool:
    return t is None or t.dim() == 0 or t.shape[-1] <= 1 or t.stride(-1) == 1


@dataclass
class _Launch:
    """What a plan launches for one (pointer alignment, ROCFLASH_KERNEL, the split-KV switches, policy): the kept
    params structs (hip_src/fmha_fwd_params.h: FmhaFwdParams and KvStepParams) and the scratch layout."""

    params: object
    step: object
    split: bool
    num_splits: int
    tile_math: object  # the module's TileMath value
    math: str
    n_o: int  # float32 elements of the split partials' O (0 without splits)
    n_l: int  # ... of their statistics (m_s, l_s, row shift: splitkv.SPLIT_STATS floats)
    n_lse: int  # ... of the LSE the caller does not return
    fused_slots: int  # arrival counters of the fused combine (0: the combine kernel)


def _make_launch(plan: Plan, q, k_cache, v_cache, k, v, out, block_table, cache_batch_idx, num_splits, mode) -> _Launch:
    platform = plan.backend
    mod = compiled.load_module(platform)
    batch, seqlen_q, nheads, headdim = q.shape
    cap = plan.capacity
    # the same params as the full path's launch (rocflash.kvcache._attend): the attention over the cache's capacity
    # (its split plan); Q, O and the LSE in the dense (batch, seqlen_q, nheads) layout (the same bits as the full
    # path's (total_q, ...) one: only the addressing differs)
    p = mod.FmhaFwdParams()
    compiled._fill_common(mod, p, q, k_cache, v_cache, plan.args)
    p.seqlen_k = cap
    compiled._set_strides(p, "o", out)
    p.aligned = compiled.is_aligned(q, k_cache, v_cache, out)
    if block_table is not None:
        p.seq_block_table_batch_stride, p.seq_page_block_size = block_table.stride(0), k_cache.shape[1]
    split, splits, inst = compiled.split_plan(platform, q, k_cache.shape[-2], batch, seqlen_q, cap, num_splits,
                                              p.aligned)
    p.softmax_stats, p.o_fp32 = 0, 0
    p.num_splits = splits if split else 1
    math = inst.get("impl", "vector") if split else compiled.forward_tile_math(platform, mod, q, p.aligned)
    compiled.set_split_switches(p, math if split else "", q.device)
    n_o = n_l = 0
    fused = 0
    if split and splits > 1:
        n_o = splits * nheads * batch * seqlen_q * inst["headdim"]
        n_l = splitkv.SPLIT_STATS * splits * nheads * batch * seqlen_q  # (m_s, l_s, shift) each
        if (math == "mma" and compiled.fused_combine_fits(inst, splits)
                and compiled.splitkv_fused_combine()):
            fused = batch * p.nheads_k * splitkv.row_chunks(seqlen_q, nheads // p.nheads_k, inst["block_m"])
    step = mod.KvStepParams()
    step.seqlen_new, step.capacity, step.num_rows = plan.seqlen_new, cap, plan.num_blocks
    step.assert_on_error = 1 if mode == "device" else 0
    step.fold = int(FOLD_STEP and split)  # (the module folds where the instance can: fmha_kvcache_step)
    if k is not None:
        step.kn_batch_stride, step.kn_row_stride, step.kn_head_stride = k.stride()[:3]
        step.vn_batch_stride, step.vn_row_stride, step.vn_head_stride = v.stride()[:3]
    return _Launch(p, step, split, p.num_splits, getattr(mod.TileMath, math), math, n_o, n_l,
                   nheads * batch * seqlen_q, fused)


def _scratch(plan: Plan, launch: _Launch, want_lse: bool, batch: int, dev, stream: int, capturing: bool):
    """One float32 buffer per stream for what a step writes and nobody returns: the split partials (O, then LSE),
    the LSE when not returned, and the int32 seqused_k (batch,) of the step kernel. Calls on one stream run in
    order, so the next call may reuse it; during a CUDA graph capture a fresh one (the graph's pool), not kept."""
    size = launch.n_o + launch.n_l + (0 if want_lse else launch.n_lse) + batch
    buf = None if capturing else plan.launch.get(("scratch", stream))
    if buf is None or buf.numel() < size:
        buf = torch.empty(size, dtype=torch.float32, device=dev)
        if not capturing:
            plan.launch[("scratch", stream)] = buf
    return buf


def _mode(raw) -> str:
    """The policy of a raw ROCFLASH_INDEX_CHECKS value (bytes or str, as _env_state read it), checked once."""
    mode = _MODES.get(raw)
    if mode is None:
        mode = _MODES[raw] = index_checks((raw.decode() if isinstance(raw, bytes) else raw) or "")
    return mode


_MODES: dict = {}

# Whether the split-KV kernel does the step itself (hip_src/fmha_kvstep.h folded_kv_step: no step kernel launch;
# the checks, the append and the NaN of a bad sequence as the step kernel's): the tensor-core kernel (CUDA) and the
# AMD vector kernel up to headdim 128 (vector_split_folds_step); other instances and the forward kernel run the step
# kernel first. Read per call (part of the launch's key; perf/decode_kernel_bench.py --variants fold and
# tests/test_gpu_kvstep_fold.py switch it for their A/B). On by default since the H200 run of 2026-12-01
# (perf/RESULTS.md, integ20: bitwise the step kernel's results, 1.04-1.17x eager, 1.04-1.30x graphs on the paged-16
# call); the gfx906 fold executed on the emulator only (tests/test_emu_inference.py).
FOLD_STEP = True


def run(plan: Plan, env: tuple, q, k_cache, v_cache, k, v, cache_seqlens, cache_batch_idx, block_table, num_splits,
        return_softmax_lse):
    """The step on a signature that passed the full checks (``env``: the signature's _env_state): one C++ call
    (``kvcache_step`` of the compiled module: the step kernel's index checks and append, then the split-KV and
    combine kernels). NotImplemented when this call must take the full path after all (a shared storage on
    append, ROCFLASH_INDEX_CHECKS=host, an int cache_seqlens out of range, index tensors the kernels cannot
    index flat)."""
    mode = _mode(env[1])
    if mode == "host":
        return NotImplemented
    if k is not None and _shares_storage(q, k_cache, v_cache, k, v):
        return NotImplemented
    batch, seqlen_q, nheads, headdim = q.shape
    new, cap = plan.seqlen_new, plan.capacity
    if batch == 0 or seqlen_q == 0 or cap == 0:
        return NotImplemented
    tensor_lens = type(cache_seqlens) is torch.Tensor
    n = 0 if tensor_lens else cap if cache_seqlens is None else cache_seqlens
    if not 0 <= n <= cap - new:
        return NotImplemented  # the full path raises its ValueError
    dev = q.device
    poison = env[2] in (b"1", "1")
    out = torch.full(q.shape, float("nan"), dtype=q.dtype, device=dev) if poison else \
        torch.empty(q.shape, dtype=q.dtype, device=dev)
    # the plan is per environment (its key holds it): the launch only varies with the pointers' alignment (and
    # FOLD_STEP, a benchmark's switch)
    key = ((q.data_ptr() | k_cache.data_ptr() | v_cache.data_ptr() | out.data_ptr()) % 16 == 0, FOLD_STEP)
    launch = plan.launch.get(key)
    if launch is None:
        if not all(map(_contiguous_index, (cache_seqlens if tensor_lens else None, cache_batch_idx, block_table))) \
                or any(t is not None and t.stride(-1) != 1 for t in (q, k_cache, v_cache, k, v)):
            return NotImplemented  # the kernels index these flat, headdim contiguous (the full path makes copies)
        launch = plan.launch[key] = _make_launch(plan, q, k_cache, v_cache, k, v, out, block_table, cache_batch_idx,
                                                 num_splits, mode)
    if mode == "off" and not launch.split:
        # the forward kernel (seqlen_q x group past the split-KV rule) gives a bad sequence O = 0 and LSE = -inf,
        # not NaN: under `off` (no assert) such calls take the full path, whose host checks raise ValueError
        return NotImplemented
    if return_softmax_lse:
        lse = torch.full((batch, nheads, seqlen_q), float("nan"), dtype=torch.float32, device=dev) if poison else \
            torch.empty((batch, nheads, seqlen_q), dtype=torch.float32, device=dev)
    stream = compiled._current_stream(q)
    capturing = _capturing(dev)
    buf = _scratch(plan, launch, return_softmax_lse, batch, dev, stream, capturing)
    base = buf.data_ptr()
    o_accum = base if launch.n_o else 0
    lse_accum = base + 4 * launch.n_o if launch.n_o else 0
    lse_ptr = lse.data_ptr() if return_softmax_lse else base + 4 * (launch.n_o + launch.n_l)
    seqused = base + 4 * (launch.n_o + launch.n_l + (0 if return_softmax_lse else launch.n_lse))
    counters = compiled.split_counters(dev, stream, launch.fused_slots) if launch.fused_slots else None
    step = launch.step
    step.error_flag = _error_flag(dev, capturing)
    mod = compiled.load_module(plan.backend)
    with compiled._device_of(q):
        mod.kvcache_step(launch.params, step, stream, launch.tile_math, launch.split, q.data_ptr(),
                         k_cache.data_ptr(), v_cache.data_ptr(), out.data_ptr(), lse_ptr,
                         cache_seqlens.data_ptr() if tensor_lens else 0, n,
                         0 if cache_batch_idx is None else cache_batch_idx.data_ptr(),
                         0 if block_table is None else block_table.data_ptr(),
                         0 if k is None or new == 0 else k.data_ptr(), 0 if k is None or new == 0 else v.data_ptr(),
                         seqused, o_accum, lse_accum, 0 if counters is None else counters.data_ptr())
    compiled._LAST["fwd"] = launch.math
    del buf, counters  # the caching allocator keeps them for the queued kernels
    return (out, lse) if return_softmax_lse else out
