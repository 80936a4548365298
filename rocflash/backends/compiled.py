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


def forward(platform: str, q, k, v, args: FwdArgs):
    """Launch the compiled forward. With ROCFLASH_POISON_OUTPUTS=1 (the GPU tests set it) O and LSE start
    as NaN, so an element the kernel fails to write shows up instead of reading as a plausible value."""
    mod = load_module(platform)
    batch, seqlen_q, nheads, headdim = q.shape
    if os.environ.get(POISON_ENV) == "1":
        out = torch.full_like(q, float("nan"), memory_format=torch.contiguous_format)
        lse = torch.full((batch, nheads, seqlen_q), float("nan"), dtype=torch.float32, device=q.device)
    else:
        out = torch.empty_like(q, memory_format=torch.contiguous_format)
        lse = torch.empty(batch, nheads, seqlen_q, dtype=torch.float32, device=q.device)
    p = mod.FmhaFwdParams()
    p.q, p.k, p.v, p.o, p.lse = q.data_ptr(), k.data_ptr(), v.data_ptr(), out.data_ptr(), lse.data_ptr()
    p.q_batch_stride, p.q_row_stride, p.q_head_stride = q.stride(0), q.stride(1), q.stride(2)
    p.k_batch_stride, p.k_row_stride, p.k_head_stride = k.stride(0), k.stride(1), k.stride(2)
    p.v_batch_stride, p.v_row_stride, p.v_head_stride = v.stride(0), v.stride(1), v.stride(2)
    p.o_batch_stride, p.o_row_stride, p.o_head_stride = out.stride(0), out.stride(1), out.stride(2)
    p.batch, p.seqlen_q, p.seqlen_k, p.nheads, p.nheads_k, p.headdim = batch, seqlen_q, k.shape[1], nheads, k.shape[2], headdim
    p.dtype = getattr(mod.DType, _DTYPE_NAMES[q.dtype])
    p.softmax_scale, p.softcap = args.softmax_scale, args.softcap
    alibi = args.alibi_slopes
    if alibi is not None:
        alibi = alibi.to(device=q.device, dtype=torch.float32).contiguous()
        p.alibi_slopes, p.alibi_batch_stride = alibi.data_ptr(), (alibi.stride(0) if alibi.dim() == 2 else 0)
    else:
        p.alibi_slopes, p.alibi_batch_stride = 0, 0
    p.window_left, p.window_right = args.window_left, args.window_right
    p.aligned = is_aligned(q, k, v, out)
    with torch.cuda.device(q.device):
        mod.fwd(p, torch.cuda.current_stream(q.device).cuda_stream)
    return out, lse
