"""Host driver: run our real gfx906 forward and backward kernels on the emulator, like the HIP launcher does.

    out, lse, info = run_forward(q, k, v, softmax_scale=..., window_left=-1, window_right=0)
    dq, dk, dv, info = run_backward(q, k, v, out, lse, dout, softmax_scale=...)

What mirrors the real launch (hip_src/fmha_api.hip, fmha_fwd_launch.h, fmha_bwd_launch.h,
rocflash/backends/compiled.py): the instance choice (smallest headdim bucket >= headdim of the dtype, load
path = ``aligned``), the params struct filled field by field (layout from the headers, see :mod:`.build`),
the grid (one workgroup per (Br rows | Bc rows, head, batch): the launchers' formula, repeated here), the
block size (``threads`` of the config) and the dynamic LDS (``lds_bytes()`` evaluated by the compiler).
Outputs start as NaN, so an element the kernel does not write shows up. ``groups`` runs a subset of the
workgroups (e.g. the boundary tiles only) and ``order="reverse"`` the waves of a workgroup in reverse order.

Tensors are torch CPU tensors (fp16, bf16, fp32) of shape (batch, seqlen, heads, headdim), any strides with
a contiguous last dimension; they are copied into the emulated global memory.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from pathlib import Path

import numpy as np
import torch

from ..configs import TileConfig, select_config
from . import asm as asm_mod
from .build import (PREPROCESS_SOURCE, compile_asm, custom_instance_source, instance_source, params_layout,
                    read_lds_constant)
from .machine import Launcher, LaunchStats, Program
from .state import GlobalMemory

DTYPES = {torch.float16: ("fp16", 0), torch.bfloat16: ("bf16", 1), torch.float32: ("fp32", 2)}
MAX_GRID = 1 << 20  # kMaxGridBlocks of fmha_fwd_launch.h


@dataclasses.dataclass
class KernelImage:
    """A decoded gfx906 kernel with what its launch needs."""

    program: Program
    config: TileConfig | None
    aligned: bool
    dynamic_lds: int
    source: str


@functools.lru_cache(maxsize=64)
def kernel_image(kind: str, dtype: str, headdim: int, aligned: bool, config: TileConfig | None = None) -> KernelImage:
    """The decoded instance of ``kind`` ("fwd", "bwd_dkdv", "bwd_dq") the dispatcher would pick, or of the
    forward tile ``config`` when given (a config outside ck_configs/, for the cycle model)."""
    cfg = config or select_config(kind, "gfx9", dtype, headdim)
    source = custom_instance_source(cfg, aligned) if config is not None else instance_source(cfg, aligned)
    path = compile_asm(cfg.kernel_name(aligned) + ("_custom" if config is not None else ""), source)
    text = path.read_text()
    kernels = asm_mod.parse_file(text, str(path))
    if kind == "fwd_splitkv":  # the translation unit also holds the combine kernel (combine_image)
        kernels = {n: k for n, k in kernels.items() if "fmha_fwd_splitkv_kernel" in n}
    if len(kernels) != 1:
        raise RuntimeError(f"{path}: expected one {kind} kernel, found {sorted(kernels)}")
    kernel = next(iter(kernels.values()))
    return KernelImage(Program.from_kernel(kernel), cfg, aligned, read_lds_constant(text), str(path))


@functools.lru_cache(maxsize=16)
def combine_image(dtype: str, headdim: int, aligned: bool) -> KernelImage:
    """The split-KV combine kernel launched after the ``fwd_splitkv`` instance of (dtype, headdim, aligned):
    fmha_fwd_splitkv_combine_kernel<E, kCombineThreads, kCombineLanes, bucket> of the same translation unit
    (hip_src/fmha_splitkv_launch.h), no dynamic LDS."""
    split = kernel_image("fwd_splitkv", dtype, headdim, aligned)
    kernels = {n: k for n, k in asm_mod.parse_file(Path(split.source).read_text(), split.source).items()
               if "fmha_fwd_splitkv_combine_kernel" in n}
    if len(kernels) != 1:
        raise RuntimeError(f"{split.source}: expected one combine kernel, found {sorted(kernels)}")
    return KernelImage(Program.from_kernel(next(iter(kernels.values()))), None, aligned, 0, split.source)


@functools.lru_cache(maxsize=8)
def preprocess_image(dtype: str) -> KernelImage:
    path = compile_asm("rocflash_fmha_bwd_preprocess", PREPROCESS_SOURCE)
    kernels = asm_mod.parse_file(path.read_text(), str(path))
    elem = {"fp16": "Fp16", "bf16": "Bf16", "fp32": "Fp32"}[dtype]
    name = next(n for n in kernels if f"fmha_bwd_preprocess_kernelINS_{len(elem)}{elem}E" in n)
    return KernelImage(Program.from_kernel(kernels[name]), None, False, 0, str(path))


def _put(mem: GlobalMemory, t: torch.Tensor) -> int:
    """Copy a tensor's storage span into memory; returns the address of element [0, 0, ...]."""
    if t.dtype == torch.bfloat16:
        t = t.view(torch.int16)


    flat = torch.as_strided(t, (_extent(t),), (1,)).contiguous().numpy()
    return mem.put(flat, 256)


def _extent(t: torch.Tensor) -> int:
    return 1 + sum((s - 1) * st for s, st in zip(t.shape, t.stride())) if t.numel() else 1


def _get(mem: GlobalMemory, addr: int, like: torch.Tensor) -> torch.Tensor:
    n = like.numel()
    raw = mem.read(addr, n * like.element_size())
    if like.dtype == torch.bfloat16:
        return torch.from_numpy(raw.view(np.int16).copy()).view(torch.bfloat16).reshape(like.shape)
    np_dtype = {torch.float16: np.float16, torch.float32: np.float32}[like.dtype]
    return torch.from_numpy(raw.view(np_dtype).copy()).reshape(like.shape)


def _nan_like(t: torch.Tensor, shape=None, dtype=None) -> torch.Tensor:
    return torch.full(shape or t.shape, float("nan"), dtype=dtype or t.dtype)


def _strides(prefix: str, t: torch.Tensor) -> dict[str, int]:
    return {f"{prefix}_batch_stride": t.stride(0), f"{prefix}_row_stride": t.stride(1),
            f"{prefix}_head_stride": t.stride(2)}


def _common(q, k, v, softmax_scale, window_left, window_right, softcap, alibi_slopes, mem) -> dict:
    batch, seqlen_q, nheads, headdim = q.shape
    p = {"q": _put(mem, q), "k": _put(mem, k), "v": _put(mem, v),
         **_strides("q", q), **_strides("k", k), **_strides("v", v),
         "batch": batch, "seqlen_q": seqlen_q, "seqlen_k": k.shape[1], "nheads": nheads, "nheads_k": k.shape[2],
         "headdim": headdim, "dtype": DTYPES[q.dtype][1], "softmax_scale": float(softmax_scale),
         "softcap": float(softcap), "window_left": int(window_left), "window_right": int(window_right)}
    if alibi_slopes is not None:
        a = alibi_slopes.to(torch.float32).contiguous()
        p["alibi_slopes"] = mem.put(a.numpy(), 256)
        p["alibi_batch_stride"] = a.stride(0) if a.dim() == 2 else 0
    return p


def _dense_seq(layout, p: dict, batch: int, nheads: int, seqlen_q: int) -> None:
    """The dense-layout values of the SeqLayout fields (hip_src/fmha_fwd_params.h), when the struct has them:
    every pointer null (left zero), total_q = batch * seqlen_q, LSE (batch, nheads, seqlen_q) contiguous."""
    if "total_q" in layout.fields:
        p.update(total_q=batch * seqlen_q, lse_batch_stride=nheads * seqlen_q, lse_head_stride=seqlen_q)


def _launch(img: KernelImage, mem: GlobalMemory, kernarg: bytes, blocks: int, groups, order: str) -> LaunchStats:
    threads = img.config.threads if img.config is not None else 256
    grid = min(blocks, MAX_GRID)
    gsel = None if groups is None else [(g, 0, 0) for g in groups]
    return Launcher(img.program, mem).launch((grid,), (threads,), kernarg, img.dynamic_lds, gsel, order)


def check_aligned(aligned, **tensors) -> None:
    """ValueError naming the tensor, the rule and the value when ``aligned=True`` forces the 128-bit load path
    on tensors outside its rule (rocflash.backends.compiled.is_aligned, less the pointer part: the emulated
    copies start on 256-byte boundaries): a contiguous headdim, headdim * element size a multiple of 16 bytes,
    and every stride of a dimension of size > 1 a multiple of 16 bytes. The kernel would otherwise read past
    its rows (a fault in the emulator, or a silent wrong result inside a larger allocation). ``aligned`` None or
    False: only the contiguous headdim, which both load paths need (the narrow path takes any other strides)."""
    for name, t in tensors.items():
        if t is None:
            continue
        es, headdim = t.element_size(), t.shape[-1]
        if t.stride(-1) != 1 and headdim > 1:  # both load paths read a row's headdim elements as one span
            raise ValueError(f"{name} must have a contiguous last dimension (headdim), got strides "
                             f"{tuple(t.stride())}")
        if not aligned:
            continue
        if (headdim * es) % 16:
            raise ValueError(f"aligned=True (128-bit loads) needs headdim * element size a multiple of 16 bytes, "
                             f"got {name} headdim {headdim} ({headdim * es} bytes of {t.dtype}); pass aligned=None "
                             f"or False for the narrow load path")
        for dim, (size, stride) in enumerate(zip(t.shape[:-1], t.stride()[:-1])):
            if size > 1 and (stride * es) % 16:
                raise ValueError(f"aligned=True (128-bit loads) needs every stride of {name} a multiple of 16 bytes, "
                                 f"got stride {stride} ({stride * es} bytes) in dimension {dim} (strides "
                                 f"{tuple(t.stride())}, {t.dtype}); pass aligned=None or False for the narrow "
                                 f"load path")


def run_forward(q, k, v, softmax_scale: float | None = None, window_left: int = -1, window_right: int = -1,
                softcap: float = 0.0, alibi_slopes=None, aligned: bool | None = None, groups=None,
                order: str = "forward", config: TileConfig | None = None, with_stats: bool = False):
    """Run the gfx906 forward kernel on the emulator: returns (out like q, lse float32 (b, h, sq), info).

    aligned: load path (True: 128-bit, False: narrow); default: what the launcher picks for these tensors.
    True on tensors outside the 128-bit path's rule raises ValueError before anything runs (:func:`check_aligned`).
    groups: workgroup indices to run (default all); rows of other workgroups stay NaN.
    config: a forward tile config to compile instead of the dispatcher's choice (model exploration).
    with_stats: also return the softmax statistics the backward reads (float32 (b, h, sq, 2): per row the
    log2-domain row max and 1/l; hip_src/fmha_fwd_params.h ``softmax_stats``) as info["softmax_stats"].
    With with_stats on 16-bit inputs, also the float32 O the training forward keeps for the backward's D
    (hip_src/fmha_fwd_params.h ``o_fp32``) as info["out_fp32"].
    info: dict with the instance name, launch statistics (incl. the emulator's wall time) and ``zero_fields``,
    the params fields the driver left zero (null pointers / 0: e.g. no ALiBi; a field added to the struct by a
    kernel change shows up here until the driver sets it).
    """
    dtype = DTYPES[q.dtype][0]
    batch, seqlen_q, nheads, headdim = q.shape
    softmax_scale = 1.0 / math.sqrt(headdim) if softmax_scale is None else softmax_scale
    mem = GlobalMemory()
    out = _nan_like(q).contiguous()
    lse = _nan_like(q, (batch, nheads, seqlen_q), torch.float32)
    if aligned is None:
        aligned = all(t.stride(-1) == 1 and (t.shape[-1] * t.element_size()) % 16 == 0
                      and all((s * t.element_size()) % 16 == 0 for s in t.stride()[:-1]) for t in (q, k, v, out))
    check_aligned(aligned, q=q, k=k, v=v)
    img = kernel_image("fwd", dtype, headdim, bool(aligned), config)
    p = _common(q, k, v, softmax_scale, window_left, window_right, softcap, alibi_slopes, mem)
    o_addr, lse_addr = _put(mem, out), _put(mem, lse)
    p.update({"o": o_addr, "lse": lse_addr, **_strides("o", out), "aligned": bool(aligned)})
    stats = _nan_like(q, (batch, nheads, seqlen_q, 2), torch.float32) if with_stats else None
    out32 = _nan_like(out, dtype=torch.float32) if with_stats and q.dtype != torch.float32 else None
    if with_stats:
        p["softmax_stats"] = _put(mem, stats)
    if out32 is not None:
        p["o_fp32"] = _put(mem, out32)  # O's strides (out is contiguous, and so is out32)
    layout = params_layout("rf::FmhaFwdParams")
    _dense_seq(layout, p, batch, nheads, seqlen_q)
    kernarg = layout.pack(p)
    blocks = -(-seqlen_q // img.config.block_m) * nheads * batch
    launch_stats = _launch(img, mem, kernarg, blocks, groups, order)
    info = {"kernel": img.config.kernel_name(bool(aligned)), "stats": launch_stats,
            "zero_fields": sorted(set(layout.fields) - set(p))}
    if with_stats:
        info["softmax_stats"] = _get(mem, p["softmax_stats"], stats)
    if out32 is not None:
        info["out_fp32"] = _get(mem, p["o_fp32"], out32)
    return _get(mem, o_addr, out), _get(mem, lse_addr, lse), info


def run_backward(q, k, v, out, lse, dout, softmax_scale: float | None = None, window_left: int = -1,
                 window_right: int = -1, softcap: float = 0.0, alibi_slopes=None, aligned: bool | None = None,
                 order: str = "forward", stats=None, out_fp32=None):
    """Run the gfx906 backward (preprocess, dK/dV, dQ kernels) on the emulator: returns (dq, dk, dv, info).

    stats: the forward's softmax statistics (``run_forward(..., with_stats=True)``); when None they are
    derived from ``lse`` as the compiled backend does (rocflash.backends.compiled.stats_from_lse), if the
    params struct has that field. out_fp32: the forward's float32 O (info["out_fp32"]): the preprocess computes
    D from it (None: from out). float32 inputs with ``stats`` run as the compiled backend launches them: the dQ
    kernel's statistics pass (p.bwd_stats) first, then dK/dV, no preprocess.
    """
    dtype = DTYPES[q.dtype][0]
    batch, seqlen_q, nheads, headdim = q.shape
    seqlen_k, nheads_k = k.shape[1], k.shape[2]
    softmax_scale = 1.0 / math.sqrt(headdim) if softmax_scale is None else softmax_scale
    mem = GlobalMemory()
    dq, dk, dv = _nan_like(q).contiguous(), _nan_like(k).contiguous(), _nan_like(v).contiguous()
    delta = _nan_like(q, (batch, nheads, seqlen_q), torch.float32)
    if aligned is None:
        aligned = all((t.shape[-1] * t.element_size()) % 16 == 0
                      and all((s * t.element_size()) % 16 == 0 for s in t.stride()[:-1])
                      for t in (q, k, v, out, dout, dq, dk, dv))
    check_aligned(aligned, q=q, k=k, v=v, out=out, dout=dout)
    p = _common(q, k, v, softmax_scale, window_left, window_right, softcap, alibi_slopes, mem)
    addr = {"o": _put(mem, out), "dout": _put(mem, dout), "lse": _put(mem, lse.to(torch.float32).contiguous()),
            "delta": _put(mem, delta), "dq": _put(mem, dq), "dk": _put(mem, dk), "dv": _put(mem, dv)}
    layout = params_layout("rf::FmhaBwdParams")
    from_lse = stats is None  # compiled.backward with an LSE: no statistics pass (compiled.own_stats_scratch)
    if "softmax_stats" in layout.fields:
        if stats is None:
            from ..backends.compiled import stats_from_lse
            from ..backends.seqlayout import alibi_row_shift

            stats = stats_from_lse(lse, alibi_row_shift(alibi_slopes, batch, nheads, seqlen_q, seqlen_k, lse.device))
        addr["softmax_stats"] = _put(mem, stats.to(torch.float32).contiguous())
    if out_fp32 is not None:
        assert out_fp32.stride() == out.stride(), "o_fp32 is read with O's strides"
        addr["o_fp32"] = _put(mem, out_fp32)
    p.update(addr)
    for name, t in (("o", out), ("do", dout), ("dq", dq), ("dk", dk), ("dv", dv)):
        p.update(_strides(name, t))
    p["aligned"] = bool(aligned)
    _dense_seq(layout, p, batch, nheads, seqlen_q)
    # float32 with the forward's own statistics: the dQ kernel's statistics pass first (fmha_api.hip fmha_bwd,
    # compiled.own_stats_scratch), then dK/dV reading the statistics and D it wrote; no preprocess
    # (from an LSE the statistics derived above are not the forward's own: eco15, the emulated from-LSE backward ran
    # the statistics pass on them before, not the compiled backend's from-LSE kernels)
    own = dtype == "fp32" and not from_lse and stats.dim() == 4 and "bwd_stats" in layout.fields
    if own:
        own_stats = _nan_like(q, (batch, nheads, seqlen_q, 2), torch.float32)
        addr["bwd_stats"] = p["bwd_stats"] = _put(mem, own_stats)
    kernarg = layout.pack(p)
    info = {"zero_fields": sorted(set(layout.fields) - set(p))}
    if own:
        dqk = kernel_image("bwd_dq", dtype, headdim, bool(aligned))
        info["bwd_dq"] = _launch(dqk, mem, kernarg, -(-seqlen_q // dqk.config.block_m) * nheads * batch, None, order)
        dkdv = kernel_image("bwd_dkdv", dtype, headdim, bool(aligned))
        # the same params: dK/dV reads the forward's m (softmax_stats) and the pass's (shift, 1/l) (bwd_stats)
        info["bwd_dkdv"] = _launch(dkdv, mem, kernarg, -(-seqlen_k // dkdv.config.block_n) * nheads_k * batch, None,
                                   order)
        info["kernels"] = (dqk.config.kernel_name(bool(aligned)) + " (statistics pass)",
                           dkdv.config.kernel_name(bool(aligned)))
        return _get(mem, addr["dq"], dq), _get(mem, addr["dk"], dk), _get(mem, addr["dv"], dv), info
    pre = preprocess_image(dtype)
    rows_per_block = 256 // 16  # launch_fmha_bwd_preprocess: 256 threads, 16 lanes per row
    info["preprocess"] = Launcher(pre.program, mem).launch(
        (min(-(-batch * nheads * seqlen_q // rows_per_block), MAX_GRID),), (256,), kernarg, 0, None, order)
    dkdv = kernel_image("bwd_dkdv", dtype, headdim, bool(aligned))
    info["bwd_dkdv"] = _launch(dkdv, mem, kernarg, -(-seqlen_k // dkdv.config.block_n) * nheads_k * batch, None, order)
    dqk = kernel_image("bwd_dq", dtype, headdim, bool(aligned))
    info["bwd_dq"] = _launch(dqk, mem, kernarg, -(-seqlen_q // dqk.config.block_m) * nheads * batch, None, order)
    info["kernels"] = (dkdv.config.kernel_name(bool(aligned)), dqk.config.kernel_name(bool(aligned)))
    return _get(mem, addr["dq"], dq), _get(mem, addr["dk"], dk), _get(mem, addr["dv"], dv), info


def reference_grads(q, k, v, dout, args, compute_dtype: torch.dtype):
    """(dq, dk, dv) of the torch reference attention in ``compute_dtype`` (fp64: the golden gradients;
    the input dtype: the eager low-precision baseline of the tolerance rule)."""
    from ..backends.reference import attention_reference

    leaves = [x.detach().to(compute_dtype).requires_grad_() for x in (q, k, v)]
    out, _ = attention_reference(*leaves, args, compute_dtype=compute_dtype)
    out.backward(dout.to(compute_dtype))
    return [x.grad for x in leaves]
