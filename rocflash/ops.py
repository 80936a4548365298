"""rocflash's attention as ``torch.library`` custom ops, for ``torch.compile``, ``torch.export`` and AOTAutograd.

    torch.ops.rocflash.fwd(q, k, v, softmax_scale, window_left, window_right, softcap, alibi_slopes, backend,
                           with_stats=True) -> (out, lse, softmax_stats, out_fp32)
    torch.ops.rocflash.bwd(dout, q, k, v, out, softmax_stats, softmax_scale, window_left, window_right, softcap,
                           alibi_slopes, backend, out_fp32=None) -> (dq, dk, dv)

As flash-attn 2.7+ does (``flash_attn::_flash_attn_forward``): the forward returns what the backward needs
besides the inputs (here the softmax statistics and a float32 O), both ops have a fake (meta) implementation that gives the
output shapes from the input shapes (dynamic shapes included), and ``fwd`` is differentiable through
``register_autograd`` (backward = ``bwd``). The ops take validated, resolved arguments (``FwdArgs`` fields:
``window_right`` is already 0 for causal, windows past the sequence already -1) and the backend as a
string; ``rocflash.flash_attn_func`` checks the user's arguments and selects the backend outside the op.

Shapes and dtypes:
    q (batch, seqlen_q, nheads, headdim); k, v (batch, seqlen_k, nheads_k, headdim), last dimension contiguous.
    out: like q (contiguous); lse: float32 (batch, nheads, seqlen_q), natural log;
    softmax_stats: (batch, nheads, seqlen_q, 2), per row the log2-domain row max m and 1/l of the forward
    (hip_src/fmha_fwd_params.h; the tensor-core forward's m may lie up to 8 below the row max, its conditional
    rescaling: P = exp2(S2 - m) / l all the same), float32 (float64 for float64 inputs); m = -inf and 1/l = 0 for a row that
    sees no key. For backend "torch" (no kernel statistics) it is (LSE * log2(e), 1), which ``bwd`` ignores
    (the torch backward recomputes P exactly as its forward); for "ck:<arch>" it is (LSE, 1): CK's backward
    reads the natural-log LSE itself. with_stats=False (inference: no gradient will be
    asked for) returns an empty (0,) tensor instead, so the compiled backends may take the split-KV decode
    kernel (which does not write them); ``bwd`` then cannot run.
    out_fp32: with_stats=True and float16 / bfloat16 inputs on the fused backends (sim, hip, cuda, ck): O before its
    rounding to q's dtype, float32, out's shape (contiguous). ``bwd`` computes FlashAttention-2's
    D = rowsum(dout * out) from it: from the rounded out, dq and dk would carry an error of about
    |softmax_scale| * eps(out) * |dout| |v| |k| (eps 2^-11 fp16, 2^-8 bf16), beyond the tolerance rule from
    |softmax_scale| ~15 on peaked rows. It costs 4 bytes per element of out while the autograd graph holds it
    (the forward writes it only when a gradient will be asked for). Otherwise an empty (0,) float32 tensor:
    float32 inputs (out is that copy), float64, backend "torch", with_stats=False. (ck: CK's batch_o32 forward
    instance writes it.)
    dq, dk, dv: like q, k, v (contiguous).

Empty inputs (no query row, or no key) launch nothing: out 0, LSE -inf, zero gradients.

Backends: "sim" (CPU golden model), "torch" (PyTorch ops), "hip" / "cuda" (compiled kernels; "cuda:atomic_dq" is
"cuda" whose tensor-core backward adds dQ atomically: flash_attn_func's deterministic=False), "ck:<arch>" and
"ck:<arch>:deterministic" (Composable Kernel's forward and backward for that gfx arch; the suffix picks the
deterministic backward instance: rocflash.backends.ck.encode). The ops do not
check arguments: call ``rocflash.flash_attn_func`` for the checks and errors.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor

from .backends import FwdArgs, ck, compiled, reference, sim

LOG2E = 1.0 / math.log(2.0)
# The fused backends' backward (sim, hip, cuda, ck) runs for |softmax_scale| <= MAX_BACKWARD_SCALE and raises
# ValueError beyond it (the forward is exact over the whole range, MAX_SOFTMAX_SCALE). FlashAttention-2's
# dS = P * (dP - D), D = rowsum(dO * O) (Dao 2023, Algorithm 2), puts an absolute error of about
# |softmax_scale| * 2^-24 * |dO| |V| |K| into dQ and dK: the float32 rounding of dP and D, which autograd's softmax
# (D from the same dP) does not have. D comes from the forward's float32 O (``out_fp32``); from O rounded to
# fp16 / bf16 the error was |softmax_scale| * eps(dtype) * ... and left the tolerance rule from |softmax_scale|
# ~15 (peaked ALiBi rows). Measured on the sim against fp64 (standard-normal inputs, headdim 16 to 256, causal /
# ALiBi): fp16 and bf16 keep within the rule at 100 (worst 0.29 of the allowed error); at 1e3 fp16 leaves it by up
# to 35x where the eager fp16 softmax saturates to exact one-hot rows. float32 inputs recompute the row statistics
# and D = rowsum(P * dP) / rowsum(P) from the backward's own S and dP (sim.own_stats_pass): on exactly one-hot rows
# dS is then 0 as in float32 autograd (D from O left the rule by 3.5x at headdim 256, scale 50;
# tests/test_fp32_saturated.py). 16-bit inputs end at MAX_BACKWARD_SCALE_16BIT = 50: at 100 rows whose softmax is
# exactly one-hot (eager fp16's dS is exactly 0) left the rule, on the tensor-core backward by 2.3x (fp16 d128,
# H200, perf/bwd_scale_scan.py: worst ratio to the rule 0.20 at 50 on both tile maths, 2.33 at 100 on mma; the sim
# 1.09x on one key, tests/test_fuzz.py). Rows that see exactly one key are exact at every scale since: the
# preprocess sums D's dO . O part in the gradient kernels' dP arithmetic, so their D is their dP bit for bit and
# dS = 0 (tests/test_one_key_rows.py; before, the sim left the rule by 2.5x at 50 there). The range was not
# re-measured for that change: it stays at 50. float32 rows whose softmax splits over two keys (adv15: headdim
# 200, causal, scale 50: dq 2.02x from the float32 S2 = S * scale * log2(e), |S2| * 2^-24 in each exp2 argument)
# meet the rule up to 100 since the backward forms S2 - m from S's fp64 sum, rounded once (sim, adv15's shape, no
# failure in seeds 0-39 at 50, 0-19 at 20 / 100, 0-9 at -100, worst 0.22; tests/test_score_overflow.py); with
# ALiBi too since eco13 (its term subtracted after the shifted score's rounding; seed 2 at 50: 3.16x -> 0.008x).
MAX_BACKWARD_SCALE = 100.0
MAX_BACKWARD_SCALE_16BIT = 50.0


def max_backward_scale(dtype: torch.dtype) -> float:
    """The end of the fused backward's |softmax_scale| range for inputs of ``dtype`` (float16 / bfloat16: 50,
    float32: 100; float64 has none)."""
    return MAX_BACKWARD_SCALE_16BIT if dtype in (torch.float16, torch.bfloat16) else MAX_BACKWARD_SCALE
_EMPTY = (0,)


def check_backward_scale(softmax_scale: float, dtype: torch.dtype, backend: str, where: str = "flash_attn_func") -> None:
    """ValueError (naming the range) for a fused backward beyond ``max_backward_scale(dtype)``; float64 (the sim's
    gradcheck precision) and the torch backend are exact at every scale."""
    limit = max_backward_scale(dtype)
    if backend != "torch" and dtype != torch.float64 and abs(softmax_scale) > limit:
        raise ValueError(
            f"{where}: softmax_scale must be in [-{limit:g}, {limit:g}] for the backward of {dtype} inputs "
            f"through backend '{backend}', got {softmax_scale:g}: beyond it FlashAttention-2's dS = P * (dP - D) "
            f"puts rounding errors of dP and D (and of P rebuilt from the forward's statistics) times "
            f"|softmax_scale| * |k| into dq and dk, outside FlashAttention's tolerance rule on rows whose softmax is "
            f"one-hot. The forward is exact at this scale; for gradients use backend='torch' (exact at every "
            f"scale).")


ATOMIC_DQ = ":atomic_dq"  # backend suffix: the compiled backward may add dQ atomically (deterministic=False)


def compiled_platform(backend: str) -> tuple[str, bool]:
    """("hip" | "cuda", deterministic) of a compiled backend string ("cuda" or "cuda:atomic_dq")."""
    if backend.endswith(ATOMIC_DQ):
        return backend[:-len(ATOMIC_DQ)], False
    return backend, True


def _stats_dtype(q: Tensor) -> torch.dtype:
    return torch.float64 if q.dtype == torch.float64 else torch.float32


def _no_work(q: Tensor, k: Tensor) -> bool:
    return q.numel() == 0 or k.shape[1] == 0


def _keeps_out_fp32(q: Tensor, backend: str, with_stats: bool) -> bool:
    """Whether fwd returns a float32 O (see the module docstring) or an empty tensor."""
    return with_stats and q.dtype in (torch.float16, torch.bfloat16) and backend != "torch"


def fwd_impl(q: Tensor, k: Tensor, v: Tensor, softmax_scale: float, window_left: int, window_right: int,
             softcap: float, alibi_slopes: Tensor | None, backend: str,
             with_stats: bool = True) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """Attention forward through ``backend``: (out, lse, softmax_stats, out_fp32); see the module docstring. The
    body of the ``rocflash::fwd`` op (``fwd``); eager inference calls it directly (flash_attn_func: the op's
    dispatch costs tens of microseconds per call, and a decode step is that short)."""
    args = FwdArgs(softmax_scale, window_left, window_right, softcap, alibi_slopes)
    batch, seqlen_q, nheads, _ = q.shape
    if _no_work(q, k):
        # Nothing to launch: empty output, or no keys at all (every row fully masked: 0 and LSE -inf).
        lse = torch.full((batch, nheads, seqlen_q), float("-inf"), dtype=torch.float32, device=q.device)
        stats = torch.zeros((batch, nheads, seqlen_q, 2), dtype=_stats_dtype(q), device=q.device)
        stats[..., 0] = float("-inf")
        if not with_stats:
            stats = q.new_empty((0,), dtype=_stats_dtype(q))
        out = torch.zeros_like(q, memory_format=torch.contiguous_format)
        out32 = torch.zeros(q.shape, dtype=torch.float32, device=q.device) if _keeps_out_fp32(q, backend, with_stats) \
            else q.new_empty(_EMPTY, dtype=torch.float32)
        return out, lse, stats, out32
    out32 = None
    if backend == "sim" and not with_stats:  # the compiled dispatch: decode-sized calls take the split-KV kernel
        out, lse = sim.forward_inference(q, k, v, args)
        stats = q.new_empty((0,), dtype=_stats_dtype(q))
    elif backend == "sim":
        out, lse, stats, out32 = sim.forward(q, k, v, args, with_stats=True, with_out_fp32=True)
    elif backend == "torch":
        out, lse = reference.forward(q, k, v, args)
        stats = torch.stack((lse.to(_stats_dtype(q)) * LOG2E, torch.ones_like(lse, dtype=_stats_dtype(q))), dim=-1)
    elif backend.startswith("ck:"):  # "ck:<arch>[:deterministic]" (ck.encode): CK's forward; its backward from the LSE
        out, lse, out32 = ck.forward(q, k, v, args, ck.decode(backend)[0], with_out_fp32=with_stats)
        stats = torch.stack((lse, torch.ones_like(lse)), dim=-1)
    elif with_stats:
        out, lse, stats, out32 = compiled.forward(compiled_platform(backend)[0], q, k, v, args, with_stats=True,
                                                  with_out_fp32=True)
    else:
        out, lse = compiled.forward(compiled_platform(backend)[0], q, k, v, args)
    if not with_stats:
        stats = q.new_empty((0,), dtype=_stats_dtype(q))
    if out32 is None:
        out32 = q.new_empty(_EMPTY, dtype=torch.float32)
    return out, lse.float().contiguous(), stats.contiguous(), out32


fwd = torch.library.custom_op("rocflash::fwd", mutates_args=())(fwd_impl)


@fwd.register_fake
def _fwd_fake(q, k, v, softmax_scale, window_left, window_right, softcap, alibi_slopes, backend, with_stats=True):
    batch, seqlen_q, nheads, _ = q.shape
    out = torch.empty_like(q, memory_format=torch.contiguous_format)
    lse = q.new_empty((batch, nheads, seqlen_q), dtype=torch.float32)
    stats = q.new_empty((batch, nheads, seqlen_q, 2) if with_stats else (0,), dtype=_stats_dtype(q))
    out32 = q.new_empty(q.shape if _keeps_out_fp32(q, backend, with_stats) else _EMPTY, dtype=torch.float32)
    return out, lse, stats, out32


def bwd_impl(dout: Tensor, q: Tensor, k: Tensor, v: Tensor, out: Tensor, softmax_stats: Tensor, softmax_scale: float,
        window_left: int, window_right: int, softcap: float, alibi_slopes: Tensor | None,
        backend: str, out_fp32: Tensor | None = None) -> tuple[Tensor, Tensor, Tensor]:
    """Attention backward through ``backend``: (dq, dk, dv) for the upstream gradient ``dout`` (any strides);
    see the module docstring."""
    if _no_work(q, k):  # the gradients are 0 whatever q, k, v are
        return tuple(torch.zeros_like(t, memory_format=torch.contiguous_format) for t in (q, k, v))
    args = FwdArgs(softmax_scale, window_left, window_right, softcap, alibi_slopes)
    if dout.stride(-1) != 1:  # e.g. the expanded ones of out.sum().backward(): kernels need headdim contiguous
        dout = dout.contiguous()
    if backend == "sim":
        return sim.backward(q, k, v, out, None, dout, args, stats=softmax_stats, out_fp32=out_fp32)
    if backend == "torch":
        return reference.explicit_backward(q, k, v, dout, args)
    if backend.startswith("ck:"):  # CK's backward from the LSE the forward's stats carry, D from out_fp32
        arch, deterministic = ck.decode(backend)
        return ck.backward(dout, q, k, v, out, softmax_stats[..., 0], args, arch, deterministic, out_fp32=out_fp32)
    platform, deterministic = compiled_platform(backend)
    # torch.use_deterministic_algorithms(True) asks every op for its deterministic implementation: the dQ kernel
    # instead of the atomic dQ of deterministic=False (read at the backward, as PyTorch's ops read it when they run)
    deterministic = deterministic or torch.are_deterministic_algorithms_enabled()
    return compiled.backward(platform, q, k, v, out, softmax_stats, dout, args, out_fp32=out_fp32,
                             deterministic=deterministic)


bwd = torch.library.custom_op("rocflash::bwd", mutates_args=())(bwd_impl)


@bwd.register_fake
def _bwd_fake(dout, q, k, v, out, softmax_stats, softmax_scale, window_left, window_right, softcap, alibi_slopes,
              backend, out_fp32=None):
    return tuple(torch.empty_like(t, memory_format=torch.contiguous_format) for t in (q, k, v))


def _setup_context(ctx, inputs, output):
    q, k, v, softmax_scale, window_left, window_right, softcap, alibi_slopes, backend, _with_stats = inputs
    out, lse, stats, out32 = output
    ctx.save_for_backward(q, k, v, out, stats, alibi_slopes, out32)
    ctx.scalars = (softmax_scale, window_left, window_right, softcap)
    ctx.backend = backend
    ctx.mark_non_differentiable(lse, stats, out32)
    ctx.set_materialize_grads(False)  # no zero tensors for the gradients of lse, stats and out32 (never read)


def _backward(ctx, dout, _dlse, _dstats, _dout32, impl=None):
    q, k, v, out, stats, alibi_slopes, out32 = ctx.saved_tensors
    if dout is None:  # out took no part in the loss (grads are not materialised): nothing flows back
        return None, None, None, None, None, None, None, None, None, None
    if _no_work(q, k):  # the gradients are 0 whatever q, k, v are: their derivatives too (create_graph exact)
        return (*(torch.zeros_like(t) for t in (q, k, v)), None, None, None, None, None, None, None)
    if torch.is_grad_enabled():  # create_graph=True: no derivative of the backward
        raise RuntimeError(
            f"flash_attn_func: backend '{ctx.backend.removesuffix(ATOMIC_DQ)}' does not support second derivatives (a backward with "
            f"create_graph=True, e.g. a gradient penalty): its backward kernels are not differentiable. Use "
            f"backend='torch' (autograd through PyTorch ops, differentiable twice) for higher-order gradients.")
    check_backward_scale(ctx.scalars[0], q.dtype, ctx.backend.removesuffix(ATOMIC_DQ))
    dq, dk, dv = (impl or bwd)(dout, q, k, v, out, stats, *ctx.scalars, alibi_slopes, ctx.backend, out32)
    return dq, dk, dv, None, None, None, None, None, None, None


fwd.register_autograd(_backward, setup_context=_setup_context)


class EagerAttention(torch.autograd.Function):
    """``fwd`` and its registered backward for eager calls that need a gradient: the same fwd_impl / bwd_impl and
    checks without the torch.library dispatch, which costs hundreds of microseconds per forward+backward on the
    H200's host (perf/RESULTS.md, host path). ``rocflash.flash_attn_func`` takes it for repeated eager calls of a
    signature; torch.compile and torch.export trace ``fwd``. apply(q, k, v, softmax_scale, window_left,
    window_right, softcap, alibi_slopes, backend) -> (out, lse)."""

    @staticmethod
    def forward(ctx, q, k, v, softmax_scale, window_left, window_right, softcap, alibi_slopes, backend):
        out, lse, stats, out32 = fwd_impl(q, k, v, softmax_scale, window_left, window_right, softcap, alibi_slopes,
                                          backend, True)
        ctx.save_for_backward(q, k, v, out, stats, alibi_slopes, out32)
        ctx.scalars = (softmax_scale, window_left, window_right, softcap)
        ctx.backend = backend
        ctx.mark_non_differentiable(lse)
        ctx.set_materialize_grads(False)
        return out, lse

    @staticmethod
    def backward(ctx, dout, _dlse):
        return _backward(ctx, dout, None, None, None, impl=bwd_impl)[:9]
