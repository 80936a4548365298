"""The ``hip`` and ``cuda`` backends: the compiled kernels of ``hip_src/`` (modules rocflash._C_hip / _C_cuda).

The modules do not link torch: this file hands them device pointers, strides in elements and the current
stream as integers. Every check that can fail runs in ``rocflash.interface`` before this launches.
"""

from __future__ import annotations

import functools
import importlib
import os

import torch

from . import FwdArgs

LOG2E = 1.4426950408889634  # log2(e)
_MODULES = {"hip": "rocflash._C_hip", "cuda": "rocflash._C_cuda"}
_DTYPE_NAMES = {torch.float16: "fp16", torch.bfloat16: "bf16", torch.float32: "fp32"}


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
    if os.environ.get(POISON_ENV) == "1":
        return torch.full(shape, float("nan"), dtype=dtype, device=t.device)
    return torch.empty(shape, dtype=dtype, device=t.device)


def _set_strides(p, name: str, t: torch.Tensor) -> None:
    setattr(p, f"{name}_batch_stride", t.stride(0))
    setattr(p, f"{name}_row_stride", t.stride(1))
    setattr(p, f"{name}_head_stride", t.stride(2))


def _fill_common(mod, p, q, k, v, args: FwdArgs):
    """The fields forward and backward params share. Returns the float32 ALiBi slopes tensor (keep it alive)."""
    p.q, p.k, p.v = q.data_ptr(), k.data_ptr(), v.data_ptr()
    for name, t in (("q", q), ("k", k), ("v", v)):
        _set_strides(p, name, t)
    p.batch, p.seqlen_q, p.nheads, p.headdim = q.shape
    p.seqlen_k, p.nheads_k = k.shape[1], k.shape[2]
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


def forward(platform: str, q, k, v, args: FwdArgs, with_stats: bool = False):
    """Launch the compiled forward: returns (out like q, lse float32 (batch, nheads, seqlen_q)), and with
    with_stats=True also the softmax statistics the backward needs: float32 (batch, nheads, seqlen_q, 2),
    per row the log2-domain row max m and 1/l (hip_src/fmha_fwd_params.h)."""
    mod = load_module(platform)
    batch, seqlen_q, nheads, _ = q.shape
    out = _output_like(q)
    lse = _output_like(q, (batch, nheads, seqlen_q), torch.float32)
    stats = _output_like(q, (batch, nheads, seqlen_q, 2), torch.float32) if with_stats else None
    p = mod.FmhaFwdParams()
    alibi = _fill_common(mod, p, q, k, v, args)
    p.o, p.lse = out.data_ptr(), lse.data_ptr()
    p.softmax_stats = stats.data_ptr() if with_stats else 0
    _set_strides(p, "o", out)
    p.aligned = is_aligned(q, k, v, out)
    with torch.cuda.device(q.device):
        mod.fwd(p, torch.cuda.current_stream(q.device).cuda_stream)
    del alibi  # freed after the launch: the caching allocator keeps it for work queued on this stream
    return (out, lse, stats) if with_stats else (out, lse)


def stats_from_lse(lse: torch.Tensor) -> torch.Tensor:
    """The backward kernels' softmax statistics (m, 1/l) from an LSE: m = LSE * log2(e) and 1/l = 1, so that
    P = exp2(S2 - m) * (1/l) = exp(S - LSE) (a fully masked row's -inf stays -inf: P = 0). Exact while
    |LSE| * 2^-24 is negligible; the forward's own stats are exact for every softmax_scale."""
    lse = lse.float()
    return torch.stack((lse * LOG2E, torch.ones_like(lse)), dim=-1).contiguous()


def backward(platform: str, q, k, v, out, stats, dout, args: FwdArgs):
    """Launch the compiled backward (preprocess, dK/dV, dQ): returns (dq, dk, dv) shaped like q, k, v.
    ``stats`` is the forward's (``forward(..., with_stats=True)``: float32 (batch, nheads, seqlen_q, 2)) or a
    natural-log LSE float32 (batch, nheads, seqlen_q) (e.g. one merged over key blocks by context parallelism),
    turned into stats by ``stats_from_lse``; ``dout`` may have any strides with a contiguous last dimension."""
    if stats.dim() == 3:
        stats = stats_from_lse(stats)
    mod = load_module(platform)
    batch, seqlen_q, nheads, _ = q.shape
    dq, dk, dv = _output_like(q), _output_like(k), _output_like(v)
    delta = torch.empty(batch, nheads, seqlen_q, dtype=torch.float32, device=q.device)
    p = mod.FmhaBwdParams()
    alibi = _fill_common(mod, p, q, k, v, args)
    p.o, p.dout, p.lse, p.delta = out.data_ptr(), dout.data_ptr(), 0, delta.data_ptr()
    p.softmax_stats = stats.data_ptr()
    p.dq, p.dk, p.dv = dq.data_ptr(), dk.data_ptr(), dv.data_ptr()
    for name, t in (("o", out), ("do", dout), ("dq", dq), ("dk", dk), ("dv", dv)):
        _set_strides(p, name, t)
    p.aligned = is_aligned(q, k, v, out, dout, dq, dk, dv)
    with torch.cuda.device(q.device):
        mod.bwd(p, torch.cuda.current_stream(q.device).cuda_stream)
    del alibi
    return dq, dk, dv
