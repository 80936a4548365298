"""The ``hip`` and ``cuda`` backends: the compiled kernels of ``hip_src/`` (modules rocflash._C_hip / _C_cuda).

The modules do not link torch: this file hands them device pointers, strides in elements and the current
stream as integers. Every check that can fail runs in ``rocflash.interface`` before this launches.

Tile math of the forward, of the split-KV decode kernel and of the backward's dK/dV and dQ kernels (environment
``ROCFLASH_KERNEL``, read at every call):
  auto    (default) tensor cores (``mma``) where they apply: the CUDA build on sm_80 or later, fp16/bf16, a
          compiled mma instance for the headdim; the vector tile math otherwise
  vector  the vector-ALU kernels everywhere (on NVIDIA: the gfx906 kernel logic, executed at warp 32)
  mma     tensor cores, or a ValueError naming why they do not apply
  sbcast  the scalar-broadcast forward (hip_src/fmha_fwd_sbcast.h; designed for gfx9's scalar cache, the CUDA build
          runs its logic with plain loads) for dense forward calls, or a ValueError naming why it does not apply
          (``sbcast_unavailable``); no split-KV decode under it; the backward kernels run the vector tile math
On the HIP build ``auto`` picks the scalar-broadcast forward on gfx906 for the dense forward calls where the
gfx906 cycle MODEL ranks it ahead of the vector kernel (``sbcast_auto``); it is emulated on the gfx906 emulator,
never executed on silicon.
The backward's tensor-core kernels (hip_src/fmha_mma_bwd.h) cover the headdim buckets of ck_configs/fmha_bwd.toml's
mma tables (32, 64 and 128); larger headdims run the vector backward under auto. :func:`last_kernels` names the tile
maths the last calls launched.

dQ of the tensor-core backward: ``backward(..., deterministic=True)`` runs the dQ kernel (one write per element,
bitwise repeatable); ``deterministic=False`` (flash_attn_func's default on backend "cuda") has the dK/dV kernel add
dQ atomically into a float32 buffer (FlashAttention-2's split: no dQ kernel, five tile products per tile pair
instead of seven), so dq may differ in its last bits from run to run; dk, dv are repeatable either way, and the
vector tile math is deterministic either way. ``last_kernels()["bwd_dq"]`` says which ran.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import importlib
import math
import os
import threading

import torch

from .. import envvars, splitkv
from .splitkv_env import (  # noqa: F401 - the split-KV switches (their module since dec9), re-exported
    PLAN_ENV_NAMES, SPLITKV_COPY_NEAR, SPLITKV_COPY_NEAR_LAZY, SPLITKV_COPY_PLAIN, SPLITKV_COPY_PLAIN_TWO, SPLITKV_COPY_TWO,
    SPLITKV_FUSED_COMBINE_ENV, SPLITKV_INFLIGHT_ENV, SPLITKV_LAZY_RESCALE_ENV, SPLITKV_PDL_ENV, SPLITKV_PLAIN_ENV,
    SPLITKV_SPLITS_ENV, fused_combine_fits, set_split_switches, split_counters, splitkv_copy_mode,
    splitkv_fused_combine, splitkv_inflight, splitkv_lazy_rescale, splitkv_pdl, splitkv_plain, splitkv_split_rule)
from . import FwdArgs, SeqArgs
from .seqlayout import alibi_row_shift, alibi_row_shift_varlen

LOG2E = 1.4426950408889634  # log2(e)
_MODULES = {"hip": "rocflash._C_hip", "cuda": "rocflash._C_cuda"}
_DTYPE_NAMES = {torch.float16: "fp16", torch.bfloat16: "bf16", torch.float32: "fp32"}
KERNEL_ENV = "ROCFLASH_KERNEL"
TILE_MATHS = ("auto", "vector", "mma", "sbcast")
SBCAST_HEADDIMS = (64, 128)  # exactly: the scalar loads read whole K rows (no headdim padding)
BWD_KINDS = ("bwd_dkdv", "bwd_dq")  # the backward's tiled kernels (one tile math for both)
MMA_MIN_CAPABILITY = (8, 0)  # mma.sync m16n8k16 for bf16, ldmatrix, cp.async
_LAST: dict[str, str] = {}
# The params structs kept per signature (_PARAMS_CACHE, the planned launches' state) are shared by every thread:
# setting one call's pointers and launching must not interleave with another thread's (a GIL switch in between
# launched both calls on the second one's tensors and left the first one's output unwritten).
_LAUNCH_LOCK = threading.RLock()
# A kept LSE scratch (_lse_scratch) larger than this is allocated per call instead: up to _CHECKED_SIZE
# signatures x streams of prefill-sized buffers would otherwise stay allocated (decode's are a few KiB; 1 MiB keeps
# the 4 x 32 heads x 1k forward's 512 KiB, where one allocation per call still shows next to the kernel).
SCRATCH_KEEP_BYTES = 1 << 20


@functools.cache
def _import(platform: str):
    try:
        return importlib.import_module(_MODULES[platform]), None
    except ImportError as e:  # not built, or built for another runtime
        return None, f"{_MODULES[platform]} not importable: {e}"


def load_module(platform: str):
    """The compiled module of ``platform`` ("hip" | "cuda"), or None."""
    return _import(platform)[0]


def module_error(platform: str) -> str | None:
    """Why ``load_module(platform)`` is None."""
    return _import(platform)[1]


def is_aligned(*tensors: torch.Tensor) -> bool:
    """True when every row of every tensor starts on a 16-byte boundary and headdim fills 16-byte vectors:
    the kernel's 128-bit load path. (Dimensions of size 1 never move the pointer, so their stride is free.)"""
    for t in tensors:
        es = t.element_size()
        if t.data_ptr() % 16 or (t.shape[-1] * es) % 16:
            return False
        if any(size > 1 and (stride * es) % 16 for size, stride in zip(t.shape[:-1], t.stride()[:-1])):
            return False
    return True


POISON_ENV = "ROCFLASH_POISON_OUTPUTS"


def _output_like(t: torch.Tensor, shape=None, dtype=None) -> torch.Tensor:
    """A fresh contiguous output. With ROCFLASH_POISON_OUTPUTS=1 (the GPU tests set it) it starts as NaN, so
    an element the kernel fails to write shows up instead of reading as a plausible value."""
    shape, dtype = shape or t.shape, dtype or t.dtype
    if envvars.switch(POISON_ENV) == "1":
        return torch.full(shape, float("nan"), dtype=dtype, device=t.device)
    return torch.empty(shape, dtype=dtype, device=t.device)


def _set_strides(p, name: str, t: torch.Tensor) -> None:
    """Strides of a (batch, seqlen, heads, headdim) tensor, or of a varlen (total, heads, headdim) one (batch
    stride 0: the sequence offsets come from cu_seqlens)."""
    if t.dim() == 3:
        setattr(p, f"{name}_batch_stride", 0)
        setattr(p, f"{name}_row_stride", t.stride(0))
        setattr(p, f"{name}_head_stride", t.stride(1))
        return
    setattr(p, f"{name}_batch_stride", t.stride(0))
    setattr(p, f"{name}_row_stride", t.stride(1))
    setattr(p, f"{name}_head_stride", t.stride(2))


def _fill_common(mod, p, q, k, v, args: FwdArgs):
    """The fields forward and backward params share, for the dense layout (q (batch, seqlen_q, nheads, headdim)).
    Returns the float32 ALiBi slopes tensor (keep it alive)."""
    p.q, p.k, p.v = q.data_ptr(), k.data_ptr(), v.data_ptr()
    for name, t in (("q", q), ("k", k), ("v", v)):
        _set_strides(p, name, t)
    p.headdim, p.nheads_k = q.shape[-1], k.shape[-2]
    if q.dim() == 4:
        p.batch, p.seqlen_q, p.nheads, _ = q.shape
        p.seqlen_k = k.shape[1]
        p.seq_total_q = p.batch * p.seqlen_q
        p.seq_lse_batch_stride, p.seq_lse_head_stride = p.nheads * p.seqlen_q, p.seqlen_q
    p.dtype = getattr(mod.DType, _DTYPE_NAMES[q.dtype])
    p.softmax_scale, p.softcap = args.softmax_scale, args.softcap
    p.window_left, p.window_right = args.window_left, args.window_right
    alibi = args.alibi_slopes
    if alibi is not None:
        alibi = alibi.to(device=q.device, dtype=torch.float32).contiguous()
        p.alibi_slopes, p.alibi_batch_stride = alibi.data_ptr(), (alibi.stride(0) if alibi.dim() == 2 else 0)
    else:
        p.alibi_slopes, p.alibi_batch_stride = 0, 0
    return alibi


def kernel_choice() -> str:
    """``ROCFLASH_KERNEL`` (auto | vector | mma | sbcast; unset = auto). ValueError for another value
    (rocflash.envvars)."""
    return envvars.switch(KERNEL_ENV)


def mma_unavailable(platform: str, device: torch.device, dtype: torch.dtype) -> str | None:
    """Why the tensor-core tile math cannot run here (None when it can, given an instance)."""
    if platform != "cuda":
        return f"the tensor-core tile math is built for NVIDIA only (platform {platform})"
    if dtype not in (torch.float16, torch.bfloat16):
        return f"the tensor-core tile math takes fp16 or bf16, got {dtype}"
    cap = torch.cuda.get_device_capability(device)
    if cap < MMA_MIN_CAPABILITY:
        return f"the tensor-core tile math needs sm_80 or later, device is sm_{cap[0]}{cap[1]}"
    return None


def sbcast_unavailable(platform: str, mod, q, k, args: FwdArgs, aligned: bool, varlen: bool = False,
                       with_stats: bool = False) -> str | None:
    """Why the scalar-broadcast forward cannot run this call (None when it can): fp16, headdim 64 or 128 exactly
    with a compiled instance, aligned rows, dense layout, plain scores (no softcap, no ALiBi, softmax_scale > 0).
    Causal and window masks are served. Both builds have it (the CUDA one runs its logic with plain loads)."""
    if q.dtype != torch.float16:
        return f"the scalar-broadcast forward takes fp16 (gfx906 has v_dot2_f32_f16 only), got {q.dtype}"
    if q.shape[-1] not in SBCAST_HEADDIMS:
        return f"the scalar-broadcast forward needs headdim in {SBCAST_HEADDIMS} exactly, got {q.shape[-1]}"
    if varlen:
        return "the scalar-broadcast forward has the dense layout only (no varlen, no KV cache, no paged K/V)"
    if not aligned:
        return "the scalar-broadcast forward needs 16-byte aligned pointers and row strides (the 128-bit path)"
    if with_stats:
        # Its probabilities are exp2(fma(s, scale*log2(e), -m)) (hand-scheduled v_fma_f32 + v_exp_f32): the fma's
        # rounding residual gives a row's max key P = 1 + eps, so a row that sees one key has l != 1 and the float32
        # O the backward's D comes from misses dP (issue 8; the other forwards round the product first, rf_mul_rn).
        return ("the scalar-broadcast forward serves inference calls only (no gradient): its exp2(fma(...)) "
                "probabilities would leave one-key rows' gradients outside the tolerance")
    if args.softcap != 0 or args.alibi_slopes is not None or not args.softmax_scale > 0:
        return "the scalar-broadcast forward takes plain scores (no softcap, no ALiBi, softmax_scale > 0)"
    i = mod.select_instance("fwd", mod.DType.fp16, q.shape[-1], True, mod.TileMath.sbcast)
    if i < 0 or mod.instances()[i]["headdim"] != q.shape[-1]:
        return f"no scalar-broadcast instance compiled for headdim {q.shape[-1]}"
    return None


def sbcast_auto(q, k) -> bool:
    """Whether ``ROCFLASH_KERNEL=auto`` takes the scalar-broadcast forward (given sbcast_unavailable is None): on
    gfx906 only, with at least one workgroup of query rows (256) and 256 keys. The gfx906 cycle MODEL (perf/RESULTS.md,
    "Scalar-broadcast forward: sourced latencies, masks, dispatch" and "... K/V group pipelining") ranks it ahead of the
    vector kernel at b4 h32 s4096 d64/d128 on the perfect-overlap bound and on the per-wait no-overlap bound for every
    sourced scalar-load latency (20-200 clocks), 1.2-2.6 % behind on the per-load bound; shorter shapes were not
    modelled and keep the vector kernel. A model, not a measurement: no AMD GPU ran it."""
    arch = getattr(torch.cuda.get_device_properties(q.device), "gcnArchName", "").split(":")[0]
    return arch == "gfx906" and q.shape[1] >= 256 and k.shape[1] >= 256


def forward_tile_math(platform: str, mod, q, aligned: bool, kind: str | tuple[str, ...] = "fwd") -> str:
    """"mma" or "vector": the tile math of a ``kind`` ("fwd" | "fwd_splitkv") launch, or of the backward's
    ("bwd_dkdv", "bwd_dq") pair, for these inputs under ``ROCFLASH_KERNEL`` (the scalar-broadcast forward is
    chosen before this, in _launch_fwd: under ``sbcast`` the other kernels run the vector tile math)."""
    kinds = (kind,) if isinstance(kind, str) else tuple(kind)
    choice = kernel_choice()
    if choice == "sbcast" and any(k in ("fwd", "fwd_splitkv") for k in kinds):
        raise ValueError(f"{KERNEL_ENV}=sbcast: the scalar-broadcast forward has the dense layout only (no varlen, "
                         "KV cache, paged K/V or split-KV decode)")
    if choice in ("vector", "sbcast"):
        return "vector"
    why = mma_unavailable(platform, q.device, q.dtype)
    if why is None and any(mod.select_instance(k, getattr(mod.DType, _DTYPE_NAMES[q.dtype]), q.shape[-1], aligned,
                                               mod.TileMath.mma) < 0 for k in kinds):
        what = "backward instance" if kinds == BWD_KINDS else "instance"
        why = f"no tensor-core {what} for {_DTYPE_NAMES[q.dtype]} headdim {q.shape[-1]}"
    if why is None:
        return "mma"
    if choice == "mma":
        raise ValueError(f"{KERNEL_ENV}=mma: {why}")
    return "vector"


def last_kernels() -> dict[str, str]:
    """{"fwd": tile math of the last forward launched in this process, "bwd": ..., "bwd_dq": "atomic" (dQ added by
    the dK/dV kernel, deterministic=False) or "dq kernel"}."""
    return dict(_LAST)


def _fill_seq(p, q, k, seq: SeqArgs) -> None:
    """The varlen / KV-cache fields (SeqLayout in hip_src/fmha_fwd_params.h) for q (total_q, nheads, headdim)."""
    total_q, nheads, _ = q.shape
    p.batch, p.nheads = seq.batch, nheads
    p.seqlen_q, p.seqlen_k = seq.max_seqlen_q, seq.max_seqlen_k
    p.seq_cu_seqlens_q = seq.cu_seqlens_q.data_ptr()
    p.seq_cu_seqlens_k = seq.cu_seqlens_k.data_ptr() if seq.cu_seqlens_k is not None else 0
    p.seq_seqused_k = seq.seqused_k.data_ptr() if seq.seqused_k is not None else 0
    p.seq_cache_batch_idx = seq.cache_batch_idx.data_ptr() if seq.cache_batch_idx is not None else 0
    if seq.block_table is not None:
        p.seq_block_table, p.seq_block_table_batch_stride = seq.block_table.data_ptr(), seq.block_table.stride(0)
        p.seq_page_block_size = k.shape[1]
    p.seq_total_q = total_q
    p.seq_lse_batch_stride, p.seq_lse_head_stride = 0, total_q


@functools.cache
def _instance(platform: str, kind: str, dtype: torch.dtype, headdim: int, aligned: bool, math: str = "vector") -> dict:
    """The compiled instance the dispatch runs (its tile config), as ``instances()`` describes it."""
    mod = load_module(platform)
    i = mod.select_instance(kind, getattr(mod.DType, _DTYPE_NAMES[dtype]), headdim, aligned, getattr(mod.TileMath, math))
    if i < 0:
        raise RuntimeError(f"rocflash: no {kind} kernel instance for {_DTYPE_NAMES[dtype]} headdim {headdim}")
    return mod.instances()[i]


@functools.cache
def _num_cus(index: int) -> int:
    return torch.cuda.get_device_properties(index).multi_processor_count


def _resident_blocks(index: int, inst: dict) -> int | None:
    """Blocks of a tensor-core split-KV instance per SM by shared memory (1 KiB per block reserved): 2 on sm_90
    (228 KiB), 1 on sm_80 (164 KiB) for the d128 tile. None when torch does not report the SM's shared memory."""
    smem = getattr(torch.cuda.get_device_properties(index), "shared_memory_per_multiprocessor", 0)
    return max(1, min(splitkv.BLOCKS_PER_CU["cuda-mma"], smem // (inst["lds_bytes"] + 1024))) if smem else None


def split_plan(platform: str, q, nheads_k: int, batch: int, max_seqlen_q: int, max_seqlen_k: int, num_splits: int,
               aligned: bool) -> tuple[bool, int, dict | None]:
    """(split kernel?, num_splits, its instance) for a call; the rule and heuristic live in rocflash.splitkv."""
    nheads = q.shape[-2]
    group = nheads // nheads_k
    if not splitkv.use_split_kernel(max_seqlen_q, group, num_splits):
        return False, 1, None
    math = forward_tile_math(platform, load_module(platform), q, aligned, "fwd_splitkv")
    inst = _instance(platform, "fwd_splitkv", q.dtype, q.shape[-1], aligned, math)
    if num_splits == 0:
        chunks = splitkv.row_chunks(max_seqlen_q, group, inst["block_m"])
        num_splits = splitkv.num_splits_heuristic(batch, nheads_k, chunks, max_seqlen_k, _num_cus(q.device.index or 0),
                                                  splitkv.occupancy_key(platform, math),
                                                  _resident_blocks(q.device.index or 0, inst) if math == "mma" else
                                                  splitkv.vector_blocks_per_cu(platform, inst.get("dtype", "")),
                                                  splitkv_split_rule(), inst["block_n"])
    return True, max(1, num_splits), inst


def _device_of(t: torch.Tensor):
    """A context that makes t's device current; a no-op when it already is (decode calls are host-bound)."""
    return contextlib.nullcontext() if t.device.index == torch.cuda.current_device() else torch.cuda.device(t.device)


def _sbcast_choice(platform: str, mod, q, k, args: FwdArgs, aligned: bool, with_stats: bool = False) -> bool:
    """Whether a dense forward call runs the scalar-broadcast kernel: ROCFLASH_KERNEL=sbcast (ValueError naming
    why when it cannot), or auto on gfx906 where sbcast_auto says so."""
    choice = kernel_choice()
    if choice not in ("auto", "sbcast"):
        return False
    why = sbcast_unavailable(platform, mod, q, k, args, aligned, with_stats=with_stats)
    if choice == "sbcast" and why is not None:
        raise ValueError(f"{KERNEL_ENV}=sbcast: {why}")
    return why is None and (choice == "sbcast" or sbcast_auto(q, k))


def sbcast_workspace_bytes(p, block_n: int) -> int:
    """Bytes of each of the two workspaces of the scalar-broadcast forward (hip_src/fmha_fwd_sbcast.h
    sbcast_v_pairs_bytes): K zero-padded to whole Bc tiles, and V in key pairs, fp16."""
    return p.batch * p.nheads_k * (-(-p.seqlen_k // block_n) * block_n) * p.headdim * 2


def _launch_fwd(mod, p, q, out, num_splits: int, inst: dict | None, sbcast: bool = False) -> None:
    """Run the forward (inst None; the scalar-broadcast kernel with its two fresh workspaces when ``sbcast``) or
    the split-KV kernel with num_splits splits (plus fresh partial buffers; repeated eager calls keep theirs:
    forward_planned)."""
    with _device_of(q):
        stream = _current_stream(q)
        if inst is None and sbcast:
            sb = mod.instances()[mod.select_instance("fwd", mod.DType.fp16, p.headdim, True, mod.TileMath.sbcast)]
            n = sbcast_workspace_bytes(p, sb["block_n"])
            work = torch.empty(2 * n, dtype=torch.uint8, device=q.device)
            p.k_padded, p.v_pairs = work.data_ptr(), work.data_ptr() + n
            try:
                mod.fwd(p, stream, mod.TileMath.sbcast)
            finally:
                p.k_padded = p.v_pairs = 0
            _LAST["fwd"] = "sbcast"
            del work  # the caching allocator keeps it for the kernels queued on this stream
            return
        if inst is None:
            math = forward_tile_math(mod.platform(), mod, q, p.aligned)  # ROCFLASH_KERNEL, checked before launch
            mod.fwd(p, stream, getattr(mod.TileMath, math))
            _LAST["fwd"] = math
            return
        math = inst.get("impl", "vector")
        _LAST["fwd"] = math
        set_split_switches(p, math, q.device)  # checked before launch
        buffers = fill_split_buffers(p, num_splits, inst["headdim"], torch.empty, q.device)
        counters = None
        # the last block keeps (row, split) m_s and l_s in its shared memory: 16 + block_m * num_splits * 8 bytes
        if (math == "mma" and num_splits > 1 and fused_combine_fits(inst, num_splits)
                and splitkv_fused_combine()):
            slots = p.batch * p.nheads_k * splitkv.row_chunks(p.seqlen_q, p.nheads // p.nheads_k, inst["block_m"])
            counters = split_counters(q.device, stream, slots)
        p.split_counters = counters.data_ptr() if counters is not None else 0
        mod.fwd_splitkv(p, stream, getattr(mod.TileMath, math))
        del counters
        del buffers  # the caching allocator keeps the partial buffers for the queued combine


def fill_split_buffers(p, num_splits: int, bucket: int, alloc, device) -> tuple:
    """Set num_splits and, for more than one split, the fp32 partial buffers o_accum (num_splits, nheads,
    total_q, headdim bucket) and lse_accum (num_splits, nheads, total_q, SPLIT_STATS), allocated with ``alloc(*shape,
    dtype=, device=)``; returns them (the gfx906 emulator's driver fills its params with this too)."""
    p.num_splits = num_splits
    if num_splits <= 1:
        return ()
    o_accum = alloc(num_splits, p.nheads, p.seq_total_q, bucket, dtype=torch.float32, device=device)
    # the partial statistics (m_s, l_s, row shift) of each (split, head, row): splitkv.SPLIT_STATS floats
    lse_accum = alloc(num_splits, p.nheads, p.seq_total_q, splitkv.SPLIT_STATS, dtype=torch.float32,
                      device=device)
    p.o_accum, p.lse_accum = o_accum.data_ptr(), lse_accum.data_ptr()
    return o_accum, lse_accum


# Decode steps repeat one shape for thousands of calls and are short enough for the host to matter: the filled
# params of a shape are kept (the launch copies the struct by value) and only the pointers change per call.
_PARAMS_CACHE: dict = {}
_PARAMS_CACHE_SIZE = 64


def out_fp32_like(q, out: torch.Tensor) -> torch.Tensor | None:
    """The forward's float32 copy of O for the backward's D (hip_src/fmha_fwd_params.h ``o_fp32``): a fresh
    float32 tensor with out's shape and strides for 16-bit inputs; None for fp32 (out is that copy itself)."""
    if q.dtype == torch.float32:
        return None
    return _output_like(out, dtype=torch.float32)


def forward(platform: str, q, k, v, args: FwdArgs, with_stats: bool = False, with_out_fp32: bool = False):
    """Launch the compiled forward: returns (out like q, lse float32 (batch, nheads, seqlen_q)), and with
    with_stats=True also the softmax statistics the backward needs: float32 (batch, nheads, seqlen_q, 2),
    per row the log2-domain row max m and 1/l (hip_src/fmha_fwd_params.h). Few query rows per kv-head
    (decode) run the split-KV kernel (rocflash.splitkv) unless the stats are asked for (it does not write them).
    with_out_fp32=True (with with_stats) appends O in float32 before its rounding (``out_fp32_like``: None for
    fp32 inputs), the backward's input for D = rowsum(dO * O)."""
    mod = load_module(platform)
    batch, seqlen_q, nheads, _ = q.shape
    out = _output_like(q)
    lse = _output_like(q, (batch, nheads, seqlen_q), torch.float32)
    stats = _output_like(q, (batch, nheads, seqlen_q, 2), torch.float32) if with_stats else None
    out32 = out_fp32_like(q, out) if with_stats and with_out_fp32 else None
    key = None
    if args.alibi_slopes is None:  # see _PARAMS_CACHE
        ptrs_aligned = (q.data_ptr() | k.data_ptr() | v.data_ptr() | out.data_ptr()) % 16 == 0
        key = ("dense", platform, q.device.index, q.dtype, q.shape, q.stride(), k.shape, k.stride(), v.stride(), args,
               ptrs_aligned, with_stats, kernel_choice(), splitkv_split_rule())
    with _LAUNCH_LOCK:  # the cached params are shared between threads
        _forward_launch(platform, mod, key, q, k, v, args, out, lse, stats, out32, with_stats)
    res = (out, lse, stats) if with_stats else (out, lse)
    return (*res, out32) if with_stats and with_out_fp32 else res


def _forward_launch(platform, mod, key, q, k, v, args, out, lse, stats, out32, with_stats) -> None:
    batch, seqlen_q = q.shape[:2]
    hit = _PARAMS_CACHE.get(key) if key is not None else None
    if hit is None:
        p = mod.FmhaFwdParams()
        alibi = _fill_common(mod, p, q, k, v, args)
        p.o, p.lse = out.data_ptr(), lse.data_ptr()
        _set_strides(p, "o", out)
        p.aligned = is_aligned(q, k, v, out)
        split, num_splits, inst = False, 1, None
        sbcast = _sbcast_choice(platform, mod, q, k, args, p.aligned, with_stats)
        if not with_stats and not sbcast and kernel_choice() != "sbcast":
            split, num_splits, inst = split_plan(platform, q, k.shape[2], batch, seqlen_q, k.shape[1], 0, p.aligned)
        inst = inst if split else None
        if key is not None:
            if len(_PARAMS_CACHE) >= _PARAMS_CACHE_SIZE:
                _PARAMS_CACHE.clear()
            _PARAMS_CACHE[key] = (p, num_splits, inst, sbcast)
    else:
        alibi = None
        p, num_splits, inst, sbcast = hit
        p.q, p.k, p.v, p.o, p.lse = q.data_ptr(), k.data_ptr(), v.data_ptr(), out.data_ptr(), lse.data_ptr()
    p.softmax_stats = stats.data_ptr() if with_stats else 0
    p.o_fp32 = out32.data_ptr() if out32 is not None else 0
    _launch_fwd(mod, p, q, out, num_splits, inst, sbcast=sbcast)
    del alibi  # freed after the launch: the caching allocator keeps it for work queued on this stream


def _seq_pointers(p, q, k, v, seq: SeqArgs, out, lse) -> None:
    p.q, p.k, p.v, p.o, p.lse = q.data_ptr(), k.data_ptr(), v.data_ptr(), out.data_ptr(), lse.data_ptr()
    p.seq_cu_seqlens_q = seq.cu_seqlens_q.data_ptr()
    if seq.cu_seqlens_k is not None:
        p.seq_cu_seqlens_k = seq.cu_seqlens_k.data_ptr()
    if seq.seqused_k is not None:
        p.seq_seqused_k = seq.seqused_k.data_ptr()
    if seq.cache_batch_idx is not None:
        p.seq_cache_batch_idx = seq.cache_batch_idx.data_ptr()
    if seq.block_table is not None:
        p.seq_block_table = seq.block_table.data_ptr()


def varlen_forward(platform: str, q, k, v, seq: SeqArgs, args: FwdArgs, with_stats: bool = False):
    """Launch the compiled forward on a varlen or KV-cache layout (SeqArgs' contract): returns (out like q,
    lse float32 (nheads, total_q)). Decode-sized calls and num_splits > 1 run the split-KV kernel.
    with_stats=True (a gradient will be asked for) runs the forward kernel and also returns what the backward
    reads: the softmax stats float32 (nheads, total_q, 2) and O in float32 (``out_fp32_like``, None for fp32)."""
    mod = load_module(platform)
    total_q, nheads, _ = q.shape
    out = _output_like(q)
    lse = _output_like(q, (nheads, total_q), torch.float32)
    stats = _output_like(q, (nheads, total_q, 2), torch.float32) if with_stats else None
    out32 = out_fp32_like(q, out) if with_stats else None
    if total_q == 0 or seq.batch == 0:
        return (out, lse, stats, out32) if with_stats else (out, lse)
    key = None
    if args.alibi_slopes is None:
        ptrs_aligned = (q.data_ptr() | k.data_ptr() | v.data_ptr() | out.data_ptr()) % 16 == 0
        bt = seq.block_table
        key = (platform, q.device.index, q.dtype, q.shape, q.stride(), k.shape, k.stride(), v.stride(), args,
               seq.batch, seq.max_seqlen_q, seq.max_seqlen_k, seq.num_splits, seq.cu_seqlens_k is None,
               seq.seqused_k is None, seq.cache_batch_idx is None, None if bt is None else bt.stride(0), ptrs_aligned,
               with_stats, kernel_choice(), splitkv_split_rule())
    with _LAUNCH_LOCK:  # the cached params are shared between threads
        _varlen_forward_launch(platform, mod, key, q, k, v, seq, args, out, lse, stats, out32, with_stats)
    return (out, lse, stats, out32) if with_stats else (out, lse)


def _varlen_forward_launch(platform, mod, key, q, k, v, seq, args, out, lse, stats, out32, with_stats) -> None:
    hit = _PARAMS_CACHE.get(key) if key is not None else None
    if hit is None:
        p = mod.FmhaFwdParams()
        alibi = _fill_common(mod, p, q, k, v, args)
        _fill_seq(p, q, k, seq)
        p.o, p.lse = out.data_ptr(), lse.data_ptr()
        _set_strides(p, "o", out)
        p.aligned = is_aligned(q, k, v, out)
        split, num_splits, inst = False, 1, None
        if not with_stats:  # the split-KV kernel writes neither the stats nor the fp32 O
            split, num_splits, inst = split_plan(platform, q, k.shape[-2], seq.batch, seq.max_seqlen_q,
                                                 seq.max_seqlen_k, seq.num_splits, p.aligned)
        if key is not None:
            if len(_PARAMS_CACHE) >= _PARAMS_CACHE_SIZE:
                _PARAMS_CACHE.clear()
            _PARAMS_CACHE[key] = (p, num_splits, inst if split else None)
    else:
        alibi = None
        p, num_splits, inst = hit
        split = inst is not None
        _seq_pointers(p, q, k, v, seq, out, lse)
    p.softmax_stats = stats.data_ptr() if with_stats else 0
    p.o_fp32 = out32.data_ptr() if out32 is not None else 0
    _launch_fwd(mod, p, q, out, num_splits, inst if split else None)
    del alibi


def varlen_backward(platform: str, q, k, v, out, lse, dout, seq: SeqArgs, args: FwdArgs, out_fp32=None):
    """Launch the compiled backward on the varlen layout (q/out/dout (total_q, nheads, headdim), k/v (total_k,
    nheads_k, headdim), lse (nheads, total_q) natural log, or softmax stats (nheads, total_q, 2)): returns (dq, dk,
    dv) shaped like q, k, v. An LSE becomes stats through ``stats_from_lse``. Rows of k/v outside every sequence
    (cu_seqlens_k[-1] < total_k) get zero gradients. ``out_fp32``: the forward's float32 O (D is computed from
    it), or None / empty (D from out)."""
    mod = load_module(platform)
    total_q, nheads, _ = q.shape
    dq = _output_like(q)
    # K/V rows outside every sequence get no block: zero them first (the poisoned test mode keeps NaN there,
    # so a row the kernel should have written still shows up).
    poison = envvars.switch(POISON_ENV) == "1"
    dk, dv = (_output_like(t) if poison else torch.zeros_like(t, memory_format=torch.contiguous_format) for t in (k, v))
    if seq.batch == 0 or total_q == 0 or k.shape[0] == 0:
        for t in (dq, dk, dv):
            t.zero_()
        return dq, dk, dv
    own = own_stats_scratch(q, lse, 2)
    if lse.dim() == 2:
        stats = stats_from_lse(lse, alibi_row_shift_varlen(args.alibi_slopes, seq, nheads, total_q, q.device))
    else:
        stats = lse
    delta = torch.empty(nheads, total_q, dtype=torch.float32, device=q.device)
    p = mod.FmhaBwdParams()
    alibi = _fill_common(mod, p, q, k, v, args)
    _fill_seq(p, q, k, seq)
    _launch_bwd(mod, p, q, k, v, out, stats, dout, delta, dq, dk, dv, out_fp32, own_stats=own)
    del alibi
    return dq, dk, dv


def own_stats_scratch(q, stats, lse_dims: int):
    """float32 inputs with the forward's own softmax statistics (not an LSE, e.g. context parallelism's merged
    one: its rows span more keys than this launch sees): scratch like ``stats`` for the backward's own (m, 1/l),
    which the dQ kernel recomputes with D = rowsum(P * dP) / rowsum(P) from its own S and dP
    (hip_src/fmha_bwd_params.h ``bwd_stats``; rocflash.backends.sim.own_stats_pass says why). Else None."""
    if q.dtype != torch.float32 or stats.dim() == lse_dims:
        return None
    return torch.empty(stats.shape, dtype=torch.float32, device=q.device)


def _launch_bwd(mod, p, q, k, v, out, stats, dout, delta, dq, dk, dv, out_fp32=None, deterministic=True,
                own_stats=None) -> None:
    """The backward's output, statistics and stride fields of ``p`` (dense or varlen), then the launch (tile math
    under ``ROCFLASH_KERNEL``, recorded in :func:`last_kernels`). ``deterministic=False`` with the mma tile math:
    dQ added atomically by the dK/dV kernel into a zeroed float32 buffer, then scaled into dq (module docstring)."""
    fill_bwd_outputs(p, q, k, v, out, stats, dout, delta, dq, dk, dv, out_fp32)
    p.bwd_stats = own_stats.data_ptr() if own_stats is not None else 0
    math = forward_tile_math(mod.platform(), mod, q, p.aligned, BWD_KINDS)  # checked before launch
    atomic = not deterministic and math == "mma"
    with _device_of(q):
        dq_accum = None
        if atomic:  # dq's shape and element strides (dq is a fresh contiguous output)
            dq_accum = torch.zeros(dq.shape, dtype=torch.float32, device=dq.device)
            p.dq_accum = dq_accum.data_ptr()
        mod.bwd(p, torch.cuda.current_stream(q.device).cuda_stream, getattr(mod.TileMath, math))
        if atomic:
            dq.copy_(dq_accum.mul_(p.softmax_scale))
            p.dq_accum = 0
    _LAST["bwd"] = math
    _LAST["bwd_dq"] = "atomic" if atomic else "dq kernel"


def fill_bwd_outputs(p, q, k, v, out, stats, dout, delta, dq, dk, dv, out_fp32=None) -> None:
    """The backward's output, statistics and stride fields of ``p`` (also filled by the gfx906 emulator's
    driver, rocflash.emu.driver_varlen). ``out_fp32`` (the forward's float32 O, or None / empty) is read with
    out's strides: both are made contiguous when they differ."""
    if out_fp32 is not None and out_fp32.numel() and out_fp32.dtype != out.dtype:
        if out_fp32.stride() != out.stride():
            out, out_fp32 = out.contiguous(), out_fp32.contiguous()
        p.o_fp32 = out_fp32.data_ptr()
    else:
        p.o_fp32 = 0
    p.o, p.dout, p.lse, p.delta = out.data_ptr(), dout.data_ptr(), 0, delta.data_ptr()
    p.softmax_stats = stats.data_ptr()
    p.dq, p.dk, p.dv = dq.data_ptr(), dk.data_ptr(), dv.data_ptr()
    for name, t in (("o", out), ("do", dout), ("dq", dq), ("dk", dk), ("dv", dv)):
        _set_strides(p, name, t)
    p.aligned = is_aligned(q, k, v, out, dout, dq, dk, dv)


def stats_from_lse(lse: torch.Tensor, shift: torch.Tensor | None = None) -> torch.Tensor:
    """The backward kernels' softmax statistics (m, 1/l) from an LSE: m = (LSE - shift) * log2(e) and 1/l = 1, so
    that P = exp2(S2 - m) * (1/l) = exp(S - LSE) (a fully masked row's -inf stays -inf: P = 0). ``shift``: the ALiBi
    row constant the kernels' scores leave out (seqlayout.alibi_row_shift / alibi_row_shift_varlen, like ``lse``);
    None without ALiBi. Exact while |LSE| * 2^-24 is negligible; the forward's own stats are exact for every
    softmax_scale."""
    lse = lse.float()
    if shift is not None:
        lse = lse - shift
    return torch.stack((lse * LOG2E, torch.ones_like(lse)), dim=-1).contiguous()


def backward(platform: str, q, k, v, out, stats, dout, args: FwdArgs, out_fp32=None, deterministic: bool = True):
    """Launch the compiled backward (preprocess, dK/dV, dQ; float32 inputs with the forward's stats: dQ with its
    statistics pass, then dK/dV, ``own_stats_scratch``): returns (dq, dk, dv) shaped like q, k, v.
    ``stats`` is the forward's (``forward(..., with_stats=True)``: float32 (batch, nheads, seqlen_q, 2)) or a
    natural-log LSE float32 (batch, nheads, seqlen_q) (e.g. one merged over key blocks by context parallelism),
    turned into stats by ``stats_from_lse``; ``dout`` may have any strides with a contiguous last dimension.
    ``out_fp32``: the forward's float32 O (``forward(..., with_out_fp32=True)``), or None / empty: D from out.
    ``deterministic=False``: dQ added atomically where the tensor-core backward runs (module docstring)."""
    own = own_stats_scratch(q, stats, 3)
    batch, seqlen_q, nheads, _ = q.shape
    if stats.dim() == 3:
        stats = stats_from_lse(stats, alibi_row_shift(args.alibi_slopes, batch, nheads, seqlen_q, k.shape[1], q.device))
    mod = load_module(platform)
    dq, dk, dv = _output_like(q), _output_like(k), _output_like(v)
    delta = torch.empty(batch, nheads, seqlen_q, dtype=torch.float32, device=q.device)
    p = mod.FmhaBwdParams()
    alibi = _fill_common(mod, p, q, k, v, args)
    _launch_bwd(mod, p, q, k, v, out, stats, dout, delta, dq, dk, dv, out_fp32, deterministic, own)
    del alibi
    return dq, dk, dv


def _lse_scratch(state: dict, shape: tuple, q) -> torch.Tensor:
    """An LSE the caller will not return (flash_attn_func without return_attn_probs, flash_attn_with_kvcache
    without return_softmax_lse): the kernels still write one, into a buffer kept in ``state`` per stream (calls
    on one stream write it in order and nobody reads it). Fresh during a CUDA graph capture."""
    if (q.device.type == "cuda" and torch.cuda.is_current_stream_capturing()) or \
            math.prod(shape) * 4 > SCRATCH_KEEP_BYTES:
        return torch.empty(shape, dtype=torch.float32, device=q.device)
    key = ("lse", _current_stream(q))
    buf = state.get(key)
    if buf is None:
        buf = state[key] = torch.empty(shape, dtype=torch.float32, device=q.device)
    return buf


_raw_stream = getattr(torch._C, "_cuda_getCurrentRawStream", None)


def current_stream(t: torch.Tensor) -> int:
    """The current stream of t's (CUDA / HIP) device as an integer handle (see ``_current_stream``)."""
    return _current_stream(t)


def _current_stream(t: torch.Tensor) -> int:
    """The current stream of t's device as an integer handle (torch's raw accessor where it has one: the Stream
    object of torch.cuda.current_stream costs microseconds per call)."""
    if _raw_stream is not None and t.device.index is not None:
        return _raw_stream(t.device.index)
    return torch.cuda.current_stream(t.device).cuda_stream


def forward_planned(platform: str, state: dict, q, k, v, args: FwdArgs, getenv=os.environ.get, want_lse: bool = True):
    """``forward`` for inference (no stats) on a signature the caller validated once and keeps ``state`` (a dict)
    for: the filled params, the split plan and the tile math are kept there per (pointer alignment,
    ROCFLASH_KERNEL and the split-KV switches) (rocflash.interface: eager flash_attn_func calls). No ALiBi tensor.
    Returns (out like q, lse float32 (batch, nheads, seqlen_q), or None when not ``want_lse``). The launch is one
    call into the compiled module (``fwd_step``: the kept params copied with this call's pointers); the split
    partials and an unreturned LSE share one float32 buffer kept per stream."""
    batch, seqlen_q, nheads, _ = q.shape
    poison = envvars.choice(POISON_ENV, getenv(POISON_ENV), read=False) == "1"
    out = torch.full(q.shape, float("nan"), dtype=q.dtype, device=q.device) if poison else \
        torch.empty(q.shape, dtype=q.dtype, device=q.device)
    key = ((q.data_ptr() | k.data_ptr() | v.data_ptr() | out.data_ptr()) % 16 == 0, getenv(KERNEL_ENV),
           *map(getenv, PLAN_ENV_NAMES))
    mod = load_module(platform)
    hit = state.get(key)
    if hit is None:
        hit = _plan_launch(platform, mod, q, k, v, args, out)
        state[key] = hit
    if want_lse:
        lse = torch.full((batch, nheads, seqlen_q), float("nan"), dtype=torch.float32, device=q.device) if poison \
            else torch.empty((batch, nheads, seqlen_q), dtype=torch.float32, device=q.device)
    if hit.sbcast:  # the scalar-broadcast forward and its two fresh workspaces: _launch_fwd
        if not want_lse:
            lse = _lse_scratch(state, (batch, nheads, seqlen_q), q)
        with _LAUNCH_LOCK:  # the kept params are written here
            p = hit.params
            p.q, p.k, p.v, p.o, p.lse = q.data_ptr(), k.data_ptr(), v.data_ptr(), out.data_ptr(), lse.data_ptr()
            _launch_fwd(mod, p, q, out, 1, None, sbcast=True)
        return out, lse
    stream = _current_stream(q)
    # one float32 buffer per stream for what nobody returns: the split partials (O, then LSE) and the LSE when not
    # asked for (calls on one stream run in order, so the next call may reuse it); fresh during a graph capture
    lse_part = 0 if want_lse else hit.n_lse
    size = hit.n_o + hit.n_l + lse_part
    base, buf = 0, None
    if size:
        capturing = q.device.type == "cuda" and torch.cuda.is_current_stream_capturing()
        skey = ("scratch", stream)
        buf = None if capturing else state.get(skey)
        if buf is None or buf.numel() < size:
            buf = torch.empty(size, dtype=torch.float32, device=q.device)
            if not capturing and 4 * lse_part <= SCRATCH_KEEP_BYTES:
                state[skey] = buf
        base = buf.data_ptr()
    counters = split_counters(q.device, stream, hit.fused_slots) if hit.fused_slots else None
    with _device_of(q):
        mod.fwd_step(hit.params, stream, hit.tile_math, hit.split, q.data_ptr(), k.data_ptr(), v.data_ptr(),
                     out.data_ptr(), lse.data_ptr() if want_lse else base + 4 * (hit.n_o + hit.n_l),
                     base if hit.n_o else 0, base + 4 * hit.n_o if hit.n_o else 0,
                     0 if counters is None else counters.data_ptr())
    _LAST["fwd"] = hit.math
    del buf, counters  # the caching allocator keeps fresh ones for the queued kernels
    return out, (lse if want_lse else None)


@dataclasses.dataclass(frozen=True)
class _PlannedLaunch:
    """What forward_planned launches for a (signature, alignment, switches): the filled params (the module's
    fwd_step copies them with each call's pointers) and the float32 scratch layout."""

    params: object
    split: bool
    tile_math: object
    math: str
    sbcast: bool
    n_o: int  # float32 elements of the split partials' O (0 without splits)
    n_l: int  # ... of their LSEs
    n_lse: int  # ... of the LSE when the caller does not return it
    fused_slots: int  # arrival counters of the fused combine (0: the combine kernel)


def _plan_launch(platform, mod, q, k, v, args, out) -> _PlannedLaunch:
    """The params, split plan, tile math and split-KV switches of a planned call (ValueError for a bad
    ROCFLASH_KERNEL / split-KV switch, before anything is kept)."""
    batch, seqlen_q, nheads, _ = q.shape
    kernel_choice()
    p = mod.FmhaFwdParams()
    _fill_common(mod, p, q, k, v, args)
    _set_strides(p, "o", out)
    p.aligned = is_aligned(q, k, v, out)
    p.softmax_stats, p.o_fp32 = 0, 0
    n_lse = batch * nheads * seqlen_q
    if _sbcast_choice(platform, mod, q, k, args, p.aligned):  # as _forward_launch: before the split plan
        return _PlannedLaunch(p, False, mod.TileMath.sbcast, "sbcast", True, 0, 0, n_lse, 0)
    split, num_splits, inst = split_plan(platform, q, k.shape[2], batch, seqlen_q, k.shape[1], 0, p.aligned)
    math = inst.get("impl", "vector") if split else forward_tile_math(platform, mod, q, p.aligned)
    n_o = n_l = fused = 0
    if split:
        p.num_splits = num_splits
        set_split_switches(p, math, q.device)
        fuse = splitkv_fused_combine()  # checked for every split call, as _launch_fwd does
        if num_splits > 1:
            n_o, n_l = num_splits * n_lse * inst["headdim"], splitkv.SPLIT_STATS * num_splits * n_lse
            if math == "mma" and fused_combine_fits(inst, num_splits) and fuse:
                fused = batch * p.nheads_k * splitkv.row_chunks(seqlen_q, nheads // p.nheads_k, inst["block_m"])
    return _PlannedLaunch(p, split, getattr(mod.TileMath, math), math, False, n_o, n_l, n_lse, fused)
