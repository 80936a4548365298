"""flash-attn compatible Python API."""

from __future__ import annotations

import math
import numbers
import os

import torch

from . import ops
from .backends import FwdArgs, ck, compiled, dropout_not_implemented, reference
from .selector import ENV_VAR, select_backend

MAX_HEADDIM = 256
_DTYPES = (torch.float16, torch.bfloat16, torch.float32)
_FP64_BACKENDS = ("torch", "sim")  # float64 (for gradcheck) only where no kernel instance is needed
DTYPE_RULE = "float16, bfloat16 or float32 (float64 also on the torch and sim backends)"  # as enforced below
_FP32_MAX = 3.4028234663852886e38  # the kernels take softmax_scale and softcap as fp32
# The kernels scale scores by softmax_scale * log2(e) in float32 (the exp2 form of the softmax): that factor
# must be a finite float32. Inside the range forward and backward are exact to float32 (the backward rebuilds
# P from the forward's row max and 1/l); scores whose scaled value overflows float32 give NaN, like inf inputs:
# +inf in the row, or every visible score of the row -inf (a row that sees no key stays 0 / LSE -inf; the kernels'
# epilogues tell the two apart from the mask bounds, hip_src/fmha_common.h empty_row_inv_l). fp32 two-key rows meet the
# backward rule at scale 50-100 with and without ALiBi (eco12, eco13: the fp64-shifted backward score). Open (issue 8,
# tests/test_overflow_parameters.py strict xfail): with softcap, float32 q.k past 3.4e38 at a tiny softmax_scale.
# ALiBi's negative slopes are bounded by the call's largest distance (min_alibi_slope, eco17; alibi_max_distance).
MAX_SOFTMAX_SCALE = _FP32_MAX / math.log2(math.e)  # 2.3587e38


def flash_attn_func(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    dropout_p: float = 0.0,
    softmax_scale: float | None = None,
    causal: bool = False,
    window_size: tuple[int, int] = (-1, -1),
    softcap: float = 0.0,
    alibi_slopes: torch.Tensor | None = None,
    deterministic: bool = False,
    return_attn_probs: bool = False,
    *,
    backend: str | None = None,
):
    """Exact attention ``softmax(Q.K^T * softmax_scale + mask) . V``, drop-in for ``flash_attn.flash_attn_func``.

    Args:
        q: (batch, seqlen_q, nheads, headdim), float16 / bfloat16 / float32 (float64 on the torch and sim
            backends, for gradcheck).
        k, v: (batch, seqlen_k, nheads_k, headdim), same dtype and device as q; nheads % nheads_k == 0
            (GQA/MQA: query head h reads K/V head h // (nheads // nheads_k)). Any strides; a last
            dimension that is not contiguous is copied. headdim 1..256 (padded internally to the kernel's
            bucket).
        dropout_p: must be 0.0 (dropout is not implemented by any backend yet: NotImplementedError).
        softmax_scale: scale of Q.K^T; default 1 / sqrt(headdim). Valid: |softmax_scale| <= 2.3587e38
            (``MAX_SOFTMAX_SCALE``: softmax_scale * log2(e) must be a finite float32; 0 gives uniform
            weights). Scores whose scaled value overflows float32 give NaN in their rows (out, LSE and the
            gradients): a +inf score, or a row whose every visible score is -inf (q.k ~ -3e40 in float32, or
            softmax_scale ~ -2e38 on positive q.k; the fp64 answer is finite). A row with at least one finite
            visible score is exact (an overflowed score weighs 0) unless |softmax_scale| is tiny: float32 q.k
            past 3.4e38 is -inf before the scale, so at softmax_scale 1e-37 a key whose exact weight is 0.49
            weighs 0 (open, adv16: tests/test_overflow_parameters.py strict xfail), and a row that sees no key (causal, window,
            seqlen_k) keeps out 0 and LSE -inf as in flash-attn. The forward is exact
            over the whole range. The fused backends' backward (sim, hip, cuda, ck) takes |softmax_scale| <= 100
            for float32 and <= 50 for fp16 / bf16 inputs (``ops.max_backward_scale``; ValueError at the
            backward beyond it; at 100, 16-bit rows whose softmax is exactly one-hot left the rule by up to
            2.3x on the tensor-core backward, perf/RESULTS.md): FlashAttention-2's
            dS = P * (dP - D), D = rowsum(dout * out) (Dao 2023, Algorithm 2), puts an absolute error of about
            |softmax_scale| * 2^-24 * |dout| |v| |k| into dq and dk (float32 rounding of dP and D). fp16 / bf16
            inputs meet FlashAttention's tolerance rule over that range (measured on the sim, headdim <= 256):
            when a gradient will be asked for, the forward keeps O in float32 for D (4 extra bytes per element of
            out while the autograd graph holds it; from O rounded to 16 bits dq and dk left the rule from about
            15 on peaked rows). float32 inputs meet it too, saturated (exactly one-hot) softmax rows included,
            where float32 autograd's error is 0: their backward recomputes each row's max, 1/l and
            D = rowsum(P * dP) / rowsum(P) from its own S and dP (one more pass of the dQ kernel over its key
            tiles; rocflash.backends.sim.own_stats_pass), so dS is exactly 0 there as in autograd (D from O
            left the rule by up to 3.5x at headdim 256, scale 50-100). dv is exact throughout. The torch backend
            is exact at every scale.
        causal: causal mask, aligned to the bottom-right corner when seqlen_q != seqlen_k (flash-attn >= 2.1):
            query row i sees key j iff j <= i + seqlen_k - seqlen_q. For seqlen_q=2, seqlen_k=5::

                keys  0 1 2 3 4
                row 0 x x x x .
                row 1 x x x x x

        window_size: (left, right) sliding window, -1 = unbounded: row i sees keys
            [i + seqlen_k - seqlen_q - left, i + seqlen_k - seqlen_q + right]. With causal=True, right must
            be -1 or 0.
        softcap: > 0 applies ``softcap * tanh(S * softmax_scale / softcap)`` to the scores (Gemma 2 style);
            at most MAX_SOFTMAX_SCALE (softcap * log2(e) must be a finite float32; ValueError beyond).
        alibi_slopes: float32 (nheads,) or (batch, nheads): adds ``-slope * |i + seqlen_k - seqlen_q - j|``;
            |slope| at most MAX_SOFTMAX_SCALE (slope * log2(e) must be a finite float32; ValueError beyond), and a
            negative slope at least min_alibi_slope(distance, softcap) (its term -slope * log2(e) * distance
            must stay a finite float32 at the largest distance a row sees, alibi_max_distance: seqlen_k - 1
            (window_size[0] when >= 0, at most seqlen_k - 1), or where larger seqlen_q - 1 (window_size[1]
            when >= 0, at most seqlen_q - 1), the rows left of key 0 whose LSE carries
            -slope * |i + seqlen_k - seqlen_q|; ValueError beyond).
            Not differentiable (as in flash-attn).
        deterministic: the backward's dQ, as in flash-attn. The forward never uses atomics (bitwise
            repeatable either way), and dK/dV are summed over GQA groups in registers. "cuda" with the
            tensor-core backward (fp16/bf16, sm_80+, headdim <= 128): False (the default) adds dQ atomically from
            the dK/dV kernel into a float32 buffer (FlashAttention-2's split, no separate dQ kernel; faster, see
            perf/RESULTS.md "tcbwd2"), so dq may differ in its last bits from run to run (within the same
            tolerance); True runs the separate dQ kernel (one write per element, bitwise identical across runs),
            and so does every backward under ``torch.use_deterministic_algorithms(True)``. The "hip" and "sim"
            backends and the vector tile math are deterministic either way. The "ck" backend
            honours it as flash-attn on ROCm does: False adds dQ atomically, True (or
            ``torch.use_deterministic_algorithms(True)``) takes CK's deterministic backward
            (NotImplementedError where no such instance exists).
        return_attn_probs: also return the softmax LSE (see Returns). The attention probabilities themselves
            are never materialised; the third element is None.
        backend: "hip" | "cuda" | "torch" | "sim" | "ck" | None (then ROCFLASH_BACKEND, then a device probe).
            "ck" (CDNA gfx90a/942/950 builds with CK instances) raises NotImplementedError naming any argument
            its instances cannot honour (dropout_p, a headdim or dtype without an instance, alibi_slopes with
            bf16, above headdim 128 or with softcap; when a gradient will be needed, softcap and deterministic=True without a
            backward instance), before any launch (``rocflash info`` lists what CK covers). ALiBi on CK adds
            exactly the bias above (rocflash/ck/args.py: CK's own causal ALiBi would change the LSE).

    Returns:
        out (batch, seqlen_q, nheads, headdim), q's dtype; with return_attn_probs=True the tuple
        (out, softmax_lse float32 (batch, nheads, seqlen_q) natural log, None). A fully masked query row
        gives out 0 and LSE -inf. A NaN in a K element a row sees gives NaN in that row's out and LSE; a NaN
        in a V element it sees gives NaN in that column of out (the LSE depends on Q.K^T only). An inf follows
        IEEE arithmetic on the fused backends (a +inf score gives NaN, a -inf score drops that key, an inf in V
        gives +-inf or NaN in its column; ck with a causal / window mask: NaN for a non-finite V element), while
        the torch reference returns NaN for every non-finite element a row sees. Values a row cannot see never
        reach it. Gradients (every backend, tests/test_nan_semantics.py):
        a NaN in a K or V element that rows R see gives NaN dq on R and NaN dk on every key a row of R sees; a
        NaN K element also gives NaN dv on those keys (R's P is NaN), a NaN V element leaves dv finite
        (dV = P^T.dout does not read V). Everything else stays finite.

    Differentiable in q, k, v (``out.backward()``): the fused backends run their backward kernels
    (FlashAttention-2 recomputation from the LSE) and are differentiable once: a backward that asks for a graph
    (``create_graph=True``, as a gradient penalty does) raises RuntimeError at that backward. The torch backend
    autograd through its ops, twice included. The LSE is not differentiable in any backend.

    Raises:
        TypeError / ValueError naming the argument, the rule and the value, before any launch.
        NotImplementedError for dropout_p > 0.
        RuntimeError at a backward with create_graph=True through a fused backend (sim, hip, cuda).
        ValueError at a backward through a fused backend beyond its |softmax_scale| range (100 for float32, 50
            for fp16 / bf16: ``ops.max_backward_scale``; see softmax_scale).
        rocflash.UnsupportedDeviceError when the selected compiled backend was not built for the device.
    """
    key = _call_key(q, k, v, dropout_p, softmax_scale, causal, window_size, softcap, alibi_slopes, deterministic,
                    return_attn_probs, backend)
    checked = _checked(key)
    if checked is not None:  # the same signature passed every check before: compiled backend, no ALiBi tensor
        args, name, op_name, state = checked  # op_name: name with the backward's dQ mode (ops.ATOMIC_DQ)
        if _needs_grad(q, k, v):  # the op's forward and backward without its dispatch (ops.EagerAttention)
            out, lse = ops.EagerAttention.apply(q, k, v, args.softmax_scale, args.window_left, args.window_right,
                                                args.softcap, args.alibi_slopes, op_name)
        elif q.numel() and k.shape[1]:
            out, lse = compiled.forward_planned(name, state, q, k, v, args, _getenv, return_attn_probs)
        else:
            out, lse, _, _ = ops.fwd_impl(*_op_args(q, k, v, args, op_name))
        return (out, lse, None) if return_attn_probs else out
    args = _check_args(q, k, v, dropout_p, softmax_scale, causal, window_size, softcap, alibi_slopes,
                       deterministic, return_attn_probs)
    # one selection per call: eager calls keep it for ck.resolve; under torch.compile the name is a trace-time
    # constant (_backend_name) and a ck call selects again there, at trace time
    sel = None if torch.compiler.is_compiling() else select_backend(q.device, backend)
    name = _backend_name(q.device, backend) if sel is None else sel.backend
    if key is not None and name in ("hip", "cuda") and alibi_slopes is None and q.dtype != torch.float64 \
            and dropout_p == 0 and q.stride(-1) == k.stride(-1) == v.stride(-1) == 1 and _hashable(key):
        if len(_CHECKED) >= _CHECKED_SIZE:
            _CHECKED.clear()
        _CHECKED[key] = (args, name, name + ops.ATOMIC_DQ if name == "cuda" and not deterministic else name, {})
    ck_arch = None
    if name == "ck":  # rocflash.backends.ck: what its instances cannot honour raises, or falls back to hip
        # (ck.resolve reads the call's shapes and the device's arch: it runs per call, not constant-folded)
        needs_grad = torch.is_grad_enabled() and any(t.requires_grad for t in (q, k, v))
        # torch.use_deterministic_algorithms(True) asks for the deterministic backward, as on the cuda backend
        deterministic = deterministic or torch.are_deterministic_algorithms_enabled()
        sel, ck_arch = ck.resolve(sel or select_backend(q.device, backend), q, k, args, dropout_p=dropout_p,
                                  needs_grad=needs_grad, deterministic=deterministic)
        name = sel.backend
    if q.dtype == torch.float64 and name not in _FP64_BACKENDS:
        raise TypeError(f"q.dtype must be float16, bfloat16 or float32 for backend '{name}' "
                        f"(float64 runs on backends {_FP64_BACKENDS}), got {q.dtype}")
    if dropout_p > 0:
        raise dropout_not_implemented(name, dropout_p)
    q, k, v = (x if x.stride(-1) == 1 else x.contiguous() for x in (q, k, v))  # kernels need headdim contiguous

    if name == "torch":
        # PyTorch ops (autograd twice, traced op by op by torch.compile); torch.ops.rocflash.fwd with
        # backend="torch" runs the same forward as one opaque op
        out, lse = reference.forward(q, k, v, args) if q.numel() and k.shape[1] else ops.fwd(*_op_args(q, k, v, args, "torch"))[:2]
        lse = lse.detach()
    else:
        # torch.ops.rocflash.fwd: differentiable once (register_autograd), traceable (register_fake). Eager calls
        # that need no gradient (inference, decode) run the op's body directly: the same function without the
        # dispatcher's cost (a decode step is host-bound at batch 1: perf/RESULTS.md, run D2).
        op_name = ck.encode(ck_arch, deterministic) if ck_arch else \
            name + ops.ATOMIC_DQ if name == "cuda" and not deterministic else name
        op_args = _op_args(q, k, v, args, op_name)
        if op_args[-1] or torch.compiler.is_compiling():
            out, lse, _, _ = ops.fwd(*op_args)
        else:
            out, lse, _, _ = ops.fwd_impl(*op_args)
    return (out, lse, None) if return_attn_probs else out


class _NoWork(torch.autograd.Function):
    """Empty inputs, or no keys at all: out 0, LSE -inf, zero gradients; no kernel launch (rocflash.varlen's
    calls without work; flash_attn_func's go through torch.ops.rocflash.fwd, which handles them the same way)."""

    @staticmethod
    def forward(ctx, q, k, v):
        ctx.save_for_backward(q, k, v)
        batch, seqlen_q, nheads, _ = q.shape
        lse = torch.full((batch, nheads, seqlen_q), float("-inf"), dtype=torch.float32, device=q.device)
        ctx.mark_non_differentiable(lse)
        return torch.zeros_like(q, memory_format=torch.contiguous_format), lse

    @staticmethod
    def backward(ctx, dout, _dlse):
        # The gradients are 0 whatever q, k, v are: their own derivatives are 0 too, so create_graph=True is exact.
        return tuple(torch.zeros_like(t) for t in ctx.saved_tensors)


@torch.compiler.assume_constant_result
def _traced_backend_name(device: torch.device, backend: str | None) -> str:
    return select_backend(device, backend).backend


def _backend_name(device: torch.device, backend: str | None) -> str:
    """The selected backend's name. Under torch.compile this runs once at trace time, outside the graph (the
    probe reads device properties and imports the compiled module): the graph holds the name as a constant,
    so ROCFLASH_BACKEND is read when a function is compiled, not at each call of the compiled function.
    Eager calls skip that wrapper (its cost per call was larger than the selection's)."""
    if torch.compiler.is_compiling():
        return _traced_backend_name(device, backend)
    return select_backend(device, backend).backend


# Eager calls of the compiled backends repeat a few signatures thousands of times (training steps, decode steps):
# the checks and the backend selection depend only on the signature (_call_key: shapes, strides, dtypes, devices,
# the scalar arguments with their types, backend=, ROCFLASH_BACKEND), so a signature that passed them once skips
# them (perf/RESULTS.md, host path). Anything unusual (tensor subclasses, an ALiBi tensor, torch.compile, unhashable
# arguments) takes the full path.
_CHECKED: dict = {}
_CHECKED_SIZE = 256


def _tensor_key(t):
    return (t.shape, t.stride(), t.dtype, t.device)


def _call_key(q, k, v, *scalars):
    """The signature of a flash_attn_func call, or None when the call must take the full checks."""
    if type(q) is not torch.Tensor or type(k) is not torch.Tensor or type(v) is not torch.Tensor or \
            torch.compiler.is_compiling():
        return None
    return (_tensor_key(q), _tensor_key(k), _tensor_key(v), _getenv(ENV_VAR), *map(type, scalars), *scalars)


def _checked(key):
    """The cached (args, backend, launch state) of a signature, or None."""
    if key is None:
        return None
    try:
        return _CHECKED.get(key)
    except TypeError:  # a list window_size: the full path (which raises or accepts it)
        return None


def _hashable(key) -> bool:
    try:
        hash(key)
    except TypeError:
        return False
    return True


def _getenv(name: str) -> str | None:
    """os.environ.get(name) without its per-call encoding (an eager call reads three variables)."""
    raw = getattr(os.environ, "_data", None)
    if raw is None or os.name == "nt":
        return os.environ.get(name)
    value = raw.get(name.encode())
    return None if value is None else value.decode()


def _needs_grad(q, k, v) -> bool:
    return torch.is_grad_enabled() and (q.requires_grad or k.requires_grad or v.requires_grad)


def _op_args(q, k, v, args: FwdArgs, backend: str):
    # softmax stats only when a gradient will be asked for: without them decode shapes may take the split-KV
    # kernel (it does not write them)
    with_stats = torch.is_grad_enabled() and any(t.requires_grad for t in (q, k, v))
    return (q, k, v, args.softmax_scale, args.window_left, args.window_right, args.softcap, args.alibi_slopes, backend,
            with_stats)


def _check_args(q, k, v, dropout_p, softmax_scale, causal, window_size, softcap, alibi_slopes, deterministic,
                return_attn_probs) -> FwdArgs:
    for name, t in (("q", q), ("k", k), ("v", v)):
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor, got {type(t).__name__}")
        if t.dim() != 4:
            raise ValueError(f"{name} must have 4 dimensions (batch, seqlen, heads, headdim), got shape {tuple(t.shape)}")
        if t.dtype not in (*_DTYPES, torch.float64):
            raise TypeError(f"{name}.dtype must be {DTYPE_RULE}, got {t.dtype}")
    if not (q.dtype == k.dtype == v.dtype):
        raise TypeError(f"q, k, v must have the same dtype, got {q.dtype}, {k.dtype}, {v.dtype}")
    if not (q.device == k.device == v.device):
        raise ValueError(f"q, k, v must be on the same device, got {q.device}, {k.device}, {v.device}")
    if k.shape != v.shape:
        raise ValueError(f"k and v must have the same shape (batch, seqlen_k, nheads_k, headdim), got {tuple(k.shape)} and {tuple(v.shape)}")
    batch, _, nheads, headdim = q.shape
    if k.shape[0] != batch:
        raise ValueError(f"k must have q's batch size {batch}, got {k.shape[0]}")
    if k.shape[3] != headdim:
        raise ValueError(f"k and v must have q's headdim {headdim}, got {k.shape[3]}")
    if headdim > MAX_HEADDIM:
        raise ValueError(f"headdim must be <= {MAX_HEADDIM}, got {headdim}")
    if headdim < 1:
        raise ValueError(f"headdim must be >= 1, got {headdim}")
    nheads_k = k.shape[2]
    if nheads_k < 1 or nheads % nheads_k:
        raise ValueError(f"nheads must be divisible by nheads_k (GQA/MQA), got nheads={nheads}, nheads_k={nheads_k}")
    for name, flag in (("causal", causal), ("deterministic", deterministic), ("return_attn_probs", return_attn_probs)):
        if not isinstance(flag, bool):
            raise TypeError(f"{name} must be a bool, got {flag!r}")
    if _real(dropout_p) is None or not 0.0 <= dropout_p < 1.0:
        raise ValueError(f"dropout_p must be a float in [0, 1), got {dropout_p!r}")
    if softmax_scale is None:
        softmax_scale = 1.0 / math.sqrt(headdim)
    scale = _real(softmax_scale)
    if scale is None or not abs(scale) <= _FP32_MAX:
        raise ValueError(f"softmax_scale must be a finite float (within float32 range) or None, got {softmax_scale!r}")
    if not abs(scale) <= MAX_SOFTMAX_SCALE:
        raise ValueError(f"softmax_scale must be in [-{MAX_SOFTMAX_SCALE:.5g}, {MAX_SOFTMAX_SCALE:.5g}] (softmax_scale * "
                         f"log2(e) must be a finite float32), got {softmax_scale!r}")
    if (not isinstance(window_size, (tuple, list)) or len(window_size) != 2
            or not all(isinstance(w, int) and not isinstance(w, bool) and w >= -1 for w in window_size)):
        raise ValueError(f"window_size must be a pair of ints >= -1 (-1 = unbounded), got {window_size!r}")
    left, right = window_size
    if causal:
        if right not in (-1, 0):
            raise ValueError(f"window_size[1] must be -1 or 0 when causal=True (causal means right = 0), got {right}")
        right = 0
    # A bound that reaches past every key is unbounded: left >= seqlen_k or right >= seqlen_q changes nothing.
    # Normalising here keeps the index arithmetic of every backend (int64 tensors, int32 kernel params) in range.
    seqlen_q, seqlen_k = q.shape[1], k.shape[1]
    left = -1 if left >= seqlen_k else left
    right = -1 if right >= seqlen_q else right
    cap = _real(softcap)
    if cap is None or not 0.0 <= cap <= _FP32_MAX:
        raise ValueError(f"softcap must be a finite float >= 0 (0 = off, within float32 range), got {softcap!r}")
    if not cap <= MAX_SOFTMAX_SCALE:  # the kernels form the capped score (|x| <= softcap) times log2(e) in float32
        raise ValueError(f"softcap must be <= {MAX_SOFTMAX_SCALE:.5g} (softcap * log2(e) must be a finite float32: a "
                         f"score near the cap overflowed to +inf, a NaN row), got {softcap!r}")
    if cap > 0 and not abs(scale) / cap <= _FP32_MAX:
        raise ValueError(f"softcap must be >= |softmax_scale| / 3.4e38 (the kernels compute softmax_scale / softcap in "
                         f"float32), got softcap={softcap!r} with softmax_scale={softmax_scale!r}")
    if alibi_slopes is not None:
        if not isinstance(alibi_slopes, torch.Tensor):
            raise TypeError(f"alibi_slopes must be a torch.Tensor or None, got {type(alibi_slopes).__name__}")
        if alibi_slopes.dtype != torch.float32:
            raise TypeError(f"alibi_slopes.dtype must be float32, got {alibi_slopes.dtype}")
        if tuple(alibi_slopes.shape) not in ((nheads,), (batch, nheads)):
            raise ValueError(f"alibi_slopes must have shape (nheads,)=({nheads},) or (batch, nheads)=({batch}, {nheads}), "
                             f"got {tuple(alibi_slopes.shape)}")
        if alibi_slopes.device != q.device:
            raise ValueError(f"alibi_slopes must be on q's device {q.device}, got {alibi_slopes.device}")
        check_alibi_finite(alibi_slopes, alibi_max_distance(seqlen_q, seqlen_k, left, right), cap)
    if alibi_slopes is not None:
        alibi_slopes = alibi_slopes.detach()  # not differentiable, in every backend
    return FwdArgs(scale, int(left), int(right), cap, alibi_slopes)


def _f32(x) -> torch.Tensor:
    return torch.tensor(x, dtype=torch.float32)


_LOG2E_F32 = _f32(math.log2(math.e))  # hip_src/fmha_common.h kLog2e


def _alibi_log2_term(slope: torch.Tensor, max_distance: int) -> float:
    """|ALiBi's term| at distance max_distance in log2 units as the kernels form it: float32(slope * log2(e)) (the
    float32 product, ScoreTransform::alibi_slope_log2) times the distance, the product in fp64 (exact to 2^-53)."""
    return abs(float(slope * _LOG2E_F32)) * max_distance


def alibi_max_distance(seqlen_q: int, seqlen_k: int, window_left: int = -1, window_right: int = -1) -> int:
    """The largest ALiBi distance |i + seqlen_k - seqlen_q - j| of a query row i and a key j it sees (the window
    after normalisation: -1 unbounded; causal is window_right 0). It bounds both parts the kernels compute
    (hip_src/fmha_common.h ScoreTransform): the scores' term |anchor(i) - j| and the LSE's row constant
    |i + seqlen_k - seqlen_q - anchor(i)| (the two add up to it). Keys left of the diagonal: at most seqlen_k - 1,
    or window_left (a (w, 0) window over a 128k KV cache sees w keys back, not the capacity: adv18's nit on
    eco17); right of it: at most seqlen_q - 1 (rows left of key 0 where seqlen_q > seqlen_k, adv18), or
    window_right. Pairs outside the window are masked by selects (rocflash's kernels, the sim, the torch reference;
    CK's forward pipeline sets them to -inf with set_tile_if after its ALiBi update), so their term may overflow."""
    left = seqlen_k - 1 if window_left < 0 else min(seqlen_k - 1, window_left)
    right = seqlen_q - 1 if window_right < 0 else min(seqlen_q - 1, window_right)
    return max(left, right, 0)


def min_alibi_slope(max_distance: int, softcap: float = 0.0) -> float:
    """The most negative slope the kernels represent at ALiBi distance max_distance (|anchor(i) - j| <= seqlen_k - 1,
    hip_src/fmha_common.h ScoreTransform: the anchor and the key are both in [0, seqlen_k)): the float32 slope s of
    largest |s| with float32(s * log2(e)) * max_distance <= 3.4028e38 (exact: the next float32 fails). A negative
    slope makes the term -slope * log2(e) * |a - j| positive: past FLT_MAX it was +inf and the row NaN (adv17).
    With softcap the term is added to the capped score (|x| <= softcap) in natural units before the factor log2(e):
    the budget is FLT_MAX less softcap * log2(e), less 2^-20 relative for those roundings. A positive slope needs no
    bound beyond MAX_SOFTMAX_SCALE: far keys go to -inf, weight 0, and the row's anchor key (term 0) keeps the row
    finite (tests/test_alibi_slope_range.py). Host arithmetic only (CPU float32 scalars), no device sync."""
    top = _f32(MAX_SOFTMAX_SCALE)
    if max_distance == 0:
        return -float(top)
    budget = _FP32_MAX if softcap == 0 else (_FP32_MAX - softcap * math.log2(math.e)) * (1 - 2.0 ** -20)
    s = torch.minimum(_f32(budget / max_distance / math.log2(math.e)), top)
    up, down = _f32(math.inf), _f32(0.0)
    while _alibi_log2_term(s, max_distance) > budget:
        s = torch.nextafter(s, down)
    while s < top and _alibi_log2_term(torch.nextafter(s, up), max_distance) <= budget:
        s = torch.nextafter(s, up)
    return -float(s)


def check_alibi_finite(alibi_slopes: torch.Tensor, max_distance: int = 0, softcap: float = 0.0) -> None:
    """ValueError for a NaN or infinite slope: its head's bias -slope * |i + seqlen_k - seqlen_q - j| would be NaN
    (or NaN at distance 0, inf * 0) in every score of the head, a silently NaN output. Also for |slope| above
    MAX_SOFTMAX_SCALE: the kernels multiply the slope by log2(e) in float32 (hip_src/fmha_common.h ScoreTransform
    alibi_slope_log2), inf there, and inf * 0 at the row's own key made every row of the head NaN (adv16). And for a
    negative slope below min_alibi_slope(max_distance, softcap): its term -slope * log2(e) * |anchor(i) - j| at the
    call's largest distance (alibi_max_distance: seqlen_k - 1 or the left window; varlen max_seqlen_k, the KV cache's
    capacity) passed FLT_MAX, +inf and a NaN row (adv17). One pass and one device sync."""
    lo = min_alibi_slope(max_distance, softcap)
    bad = ~((alibi_slopes.abs() <= MAX_SOFTMAX_SCALE) & (alibi_slopes >= lo))  # NaN fails both
    if bool(bad.any()):
        nonfinite = ~torch.isfinite(alibi_slopes)
        where = tuple((nonfinite if bool(nonfinite.any()) else bad).nonzero()[0].tolist())
        value = alibi_slopes[where].item()
        if not math.isfinite(value):
            raise ValueError(f"alibi_slopes must be finite (one float32 slope per head), got {value} at index {where}")
        if abs(value) > MAX_SOFTMAX_SCALE:
            raise ValueError(f"alibi_slopes must be in [-{MAX_SOFTMAX_SCALE:.5g}, {MAX_SOFTMAX_SCALE:.5g}] (slope * "
                             f"log2(e) must be a finite float32), got {value} at index {where}")
        cap = f" and softcap {softcap:.5g} (the capped score it is added to)" if softcap else ""
        raise ValueError(f"alibi_slopes must be >= {lo!r} at ALiBi distance up to {max_distance} (the larger of "
                         f"seqlen_k - 1 or window_size[0] and seqlen_q - 1 or window_size[1]; varlen: max_seqlen_k, "
                         f"max_seqlen_q; KV cache: its capacity as seqlen_k){cap}: a negative slope's term -slope * "
                         f"log2(e) * |anchor(i) - j| must stay a finite float32 (3.4028e38), got {value!r} at index "
                         f"{where}")


def _real(x) -> float | None:
    """x as a Python float if it is a real number (Python or numpy scalar, not a bool), else None."""
    if isinstance(x, bool) or not isinstance(x, numbers.Real):
        return None
    try:
        return float(x)
    except OverflowError:
        return None
