"""rocflash's attention as ``torch.library`` custom ops, for ``torch.compile``, ``torch.export`` and AOTAutograd.

    torch.ops.rocflash.fwd(q, k, v, softmax_scale, window_left, window_right, softcap, alibi_slopes, backend,
                           with_stats=True) -> (out, lse, softmax_stats)
    torch.ops.rocflash.bwd(dout, q, k, v, out, softmax_stats, softmax_scale, window_left, window_right, softcap,
                           alibi_slopes, backend) -> (dq, dk, dv)

As flash-attn 2.7+ does (``flash_attn::_flash_attn_forward``): the forward returns what the backward needs
besides the inputs (here the softmax statistics), both ops have a fake (meta) implementation that gives the
output shapes from the input shapes (dynamic shapes included), and ``fwd`` is differentiable through
``register_autograd`` (backward = ``bwd``). The ops take validated, resolved arguments (``FwdArgs`` fields:
``window_right`` is already 0 for causal, windows past the sequence already -1) and the backend as a
string; ``rocflash.flash_attn_func`` checks the user's arguments and selects the backend outside the op.

Shapes and dtypes:
    q (batch, seqlen_q, nheads, headdim); k, v (batch, seqlen_k, nheads_k, headdim), last dimension contiguous.
    out: like q (contiguous); lse: float32 (batch, nheads, seqlen_q), natural log;
    softmax_stats: (batch, nheads, seqlen_q, 2), per row the log2-domain row max m and 1/l of the forward
    (hip_src/fmha_fwd_params.h), float32 (float64 for float64 inputs); m = -inf and 1/l = 0 for a row that
    sees no key. For backend "torch" (no kernel statistics) it is (LSE * log2(e), 1), which ``bwd`` ignores
    (the torch backward recomputes P exactly as its forward). with_stats=False (inference: no gradient will be
    asked for) returns an empty (0,) tensor instead, so the compiled backends may take the split-KV decode
    kernel (which does not write them); ``bwd`` then cannot run.
    dq, dk, dv: like q, k, v (contiguous).

Empty inputs (no query row, or no key) launch nothing: out 0, LSE -inf, zero gradients.

Backends: "sim" (CPU golden model), "torch" (PyTorch ops), "hip" / "cuda" (compiled kernels), "ck:<arch>"
(Composable Kernel's forward for that gfx arch, rocflash's hip backward kernels). The ops do not
check arguments: call ``rocflash.flash_attn_func`` for the checks and errors.
"""

from __future__ import annotations

import math
import warnings

import torch
from torch import Tensor

from .backends import FwdArgs, ck, compiled, reference, sim

LOG2E = 1.0 / math.log(2.0)
# Above this |softmax_scale| the fused backward's dQ and dK leave FlashAttention's tolerance rule (see
# flash_attn_func's docstring): the backward warns. Measured: the sim passes the rule at 1e2 and 3e2 (fp16, bf16,
# fp32, standard-normal inputs) and fails it from 1e3 (tests/test_softmax_scale.py); peaked rows (ALiBi) in fp16
# fail it from about 15 (tests/test_fuzz.py, xfail until the forward keeps an fp32 O for D).
EXACT_BACKWARD_SCALE = 100.0


def _stats_dtype(q: Tensor) -> torch.dtype:
    return torch.float64 if q.dtype == torch.float64 else torch.float32


def _no_work(q: Tensor, k: Tensor) -> bool:
    return q.numel() == 0 or k.shape[1] == 0


def fwd_impl(q: Tensor, k: Tensor, v: Tensor, softmax_scale: float, window_left: int, window_right: int,
             softcap: float, alibi_slopes: Tensor | None, backend: str,
             with_stats: bool = True) -> tuple[Tensor, Tensor, Tensor]:
    """Attention forward through ``backend``: (out, lse, softmax_stats); see the module docstring. The body of
    the ``rocflash::fwd`` op (``fwd``); eager inference calls it directly (flash_attn_func: the op's dispatch
    costs tens of microseconds per call, and a decode step is that short)."""
    args = FwdArgs(softmax_scale, window_left, window_right, softcap, alibi_slopes)
    batch, seqlen_q, nheads, _ = q.shape
    if _no_work(q, k):
        # Nothing to launch: empty output, or no keys at all (every row fully masked: 0 and LSE -inf).
        lse = torch.full((batch, nheads, seqlen_q), float("-inf"), dtype=torch.float32, device=q.device)
        stats = torch.zeros((batch, nheads, seqlen_q, 2), dtype=_stats_dtype(q), device=q.device)
        stats[..., 0] = float("-inf")
        if not with_stats:
            stats = q.new_empty((0,), dtype=_stats_dtype(q))
        return torch.zeros_like(q, memory_format=torch.contiguous_format), lse, stats
    if backend == "sim" and not with_stats:  # the compiled dispatch: decode-sized calls take the split-KV kernel
        out, lse = sim.forward_inference(q, k, v, args)
        stats = q.new_empty((0,), dtype=_stats_dtype(q))
    elif backend == "sim":
        out, lse, stats = sim.forward(q, k, v, args, with_stats=True)
    elif backend == "torch":
        out, lse = reference.forward(q, k, v, args)
        stats = torch.stack((lse.to(_stats_dtype(q)) * LOG2E, torch.ones_like(lse, dtype=_stats_dtype(q))), dim=-1)
    elif backend.startswith("ck:"):  # "ck:<arch>": CK's forward; rocflash's own backward kernels ("hip") from its LSE
        out, lse = ck.forward(q, k, v, args, backend[3:])
        stats = compiled.stats_from_lse(lse)
    elif with_stats:
        out, lse, stats = compiled.forward(backend, q, k, v, args, with_stats=True)
    else:
        out, lse = compiled.forward(backend, q, k, v, args)
    if not with_stats:
        stats = q.new_empty((0,), dtype=_stats_dtype(q))
    return out, lse.float().contiguous(), stats.contiguous()


fwd = torch.library.custom_op("rocflash::fwd", mutates_args=())(fwd_impl)


@fwd.register_fake
def _fwd_fake(q, k, v, softmax_scale, window_left, window_right, softcap, alibi_slopes, backend, with_stats=True):
    batch, seqlen_q, nheads, _ = q.shape
    out = torch.empty_like(q, memory_format=torch.contiguous_format)
    lse = q.new_empty((batch, nheads, seqlen_q), dtype=torch.float32)
    stats = q.new_empty((batch, nheads, seqlen_q, 2) if with_stats else (0,), dtype=_stats_dtype(q))
    return out, lse, stats


@torch.library.custom_op("rocflash::bwd", mutates_args=())
def bwd(dout: Tensor, q: Tensor, k: Tensor, v: Tensor, out: Tensor, softmax_stats: Tensor, softmax_scale: float,
        window_left: int, window_right: int, softcap: float, alibi_slopes: Tensor | None,
        backend: str) -> tuple[Tensor, Tensor, Tensor]:
    """Attention backward through ``backend``: (dq, dk, dv) for the upstream gradient ``dout`` (any strides);
    see the module docstring."""
    if _no_work(q, k):  # the gradients are 0 whatever q, k, v are
        return tuple(torch.zeros_like(t, memory_format=torch.contiguous_format) for t in (q, k, v))
    args = FwdArgs(softmax_scale, window_left, window_right, softcap, alibi_slopes)
    if dout.stride(-1) != 1:  # e.g. the expanded ones of out.sum().backward(): kernels need headdim contiguous
        dout = dout.contiguous()
    if backend == "sim":
        return sim.backward(q, k, v, out, None, dout, args, stats=softmax_stats)
    if backend == "torch":
        return reference.explicit_backward(q, k, v, dout, args)
    return compiled.backward("hip" if backend.startswith("ck:") else backend, q, k, v, out, softmax_stats, dout, args)


@bwd.register_fake
def _bwd_fake(dout, q, k, v, out, softmax_stats, softmax_scale, window_left, window_right, softcap, alibi_slopes,
              backend):
    return tuple(torch.empty_like(t, memory_format=torch.contiguous_format) for t in (q, k, v))


def _setup_context(ctx, inputs, output):
    q, k, v, softmax_scale, window_left, window_right, softcap, alibi_slopes, backend, _with_stats = inputs
    out, lse, stats = output
    ctx.save_for_backward(q, k, v, out, stats, alibi_slopes)
    ctx.scalars = (softmax_scale, window_left, window_right, softcap)
    ctx.backend = backend
    ctx.mark_non_differentiable(lse, stats)


def _backward(ctx, dout, _dlse, _dstats):
    q, k, v, out, stats, alibi_slopes = ctx.saved_tensors
    if _no_work(q, k):  # the gradients are 0 whatever q, k, v are: their derivatives too (create_graph exact)
        return (*(torch.zeros_like(t) for t in (q, k, v)), None, None, None, None, None, None, None)
    if torch.is_grad_enabled():  # create_graph=True: no derivative of the backward
        raise RuntimeError(
            f"flash_attn_func: backend '{ctx.backend}' does not support second derivatives (a backward with "
            f"create_graph=True, e.g. a gradient penalty): its backward kernels are not differentiable. Use "
            f"backend='torch' (autograd through PyTorch ops, differentiable twice) for higher-order gradients.")
    if abs(ctx.scalars[0]) > EXACT_BACKWARD_SCALE and ctx.backend != "torch":
        warnings.warn(
            f"flash_attn_func backward through backend '{ctx.backend}' with |softmax_scale| = {abs(ctx.scalars[0]):g} > "
            f"{EXACT_BACKWARD_SCALE:g}: dq and dk carry an absolute error of about |softmax_scale| * eps(out) * "
            f"|dout| * |v| * |k| (D = rowsum(dout * out) cancels against dout . v); dv and the forward are exact. "
            f"Use backend='torch' for exact dq and dk at such scales.", RuntimeWarning, stacklevel=2)
    dq, dk, dv = bwd(dout, q, k, v, out, stats, *ctx.scalars, alibi_slopes, ctx.backend)
    return dq, dk, dv, None, None, None, None, None, None, None


fwd.register_autograd(_backward, setup_context=_setup_context)
