"""The ``ck`` backend: Composable Kernel ck_tile FMHA instances (ck_configs/ck_fmha.toml) on the MFMA-capable
CDNA GPUs (gfx90a, gfx942, gfx950), module ``rocflash._C_ck`` (built by setup.py from a ROCm install).

Forward: the instance of (dtype, headdim bucket, variant) through CK's ``fmha_fwd_args`` (rocflash.ck.args).
A training forward (a gradient will follow) runs the ``batch_o32`` instance, which writes O in float32; out is
that O rounded to the dtype, and the float32 O is kept for the backward (4 bytes per element of out while the
autograd graph holds it, as on the hip / cuda backends).
Backward: CK's backward instance of (dtype, headdim bucket, batch / deterministic) through ``fmha_bwd_args``:
dq_dk_dv and convert_dq on the current stream, with FlashAttention-2's D = rowsum(dO * O) computed here from the
float32 O (a float32 product of out's shape, transient) and handed to dq_dk_dv through ``d_ptr``. CK's own
dot_do_o would take D from O rounded to fp16 / bf16, whose error |softmax_scale| * eps * |dO| |V| |K| took dq / dk
outside FlashAttention's tolerance rule at large softmax_scale (tests/test_ck_bwd_args.py shows both).
flash-attn's ``deterministic`` picks the variant: False adds dQ atomically (summation order varies run to run,
like flash-attn on ROCm), True sums per-key-tile slices of dq_acc in a fixed order (ceil(seqlen_k / bn0) x the
fp32 dQ in workspace). Under GQA, CK writes dK / dV per query head; they are summed over each group here. The
backward needs are checked at the forward, before any launch: softcap (CK's backward has no soft-cap), ALiBi, a
missing backward instance. Every argument the instances cannot honour raises NotImplementedError naming it
when ``ck`` was asked for; when the selector chose ``ck`` by probe, such a call (forward and backward) runs on
the ``hip`` kernel.

Masked keys (causal / window) contribute exactly nothing: CK's pipelines multiply masked P = 0 by the V (and,
backward, dS = 0 by the K) of masked keys inside visited tiles, so a masked call hands CK K / V with their
non-finite elements replaced by 0 and restores the NaN of the rows that do see them (rocflash.backends.ck_masked:
how, and what it costs).

Status: compiled and ISA-audited in CI (python -m rocflash.isa --ck), never executed (no AMD GPU reachable).
"""

from __future__ import annotations

import functools
import importlib
from dataclasses import replace

import torch

from ..ck import args as ck_args
from ..ck.codegen import ARCH_FAMILY
from ..ck.configs import find_instance
from . import FwdArgs, ck_masked

MODULE = "rocflash._C_ck"
# What the ck backend serves (ck_configs/ck_fmha.toml; `rocflash info` shows it); the rest runs on rocflash's hip
# kernel when ck was chosen by the probe and raises NotImplementedError naming it when ck was asked for.
COVERS = ("flash_attn_func: fp16/bf16, headdim <= 256, causal / windows / GQA, softcap "
          "(forward only, fp16 headdim <= 128), ALiBi (fp16 headdim <= 128); flash_attn_varlen_func with packed K/V: "
          "CK's group mode, headdim <= 128, fp16 (training and inference) and bf16 (inference), no ALiBi or softcap, "
          "deterministic=False. NOT on CK (rocflash's hip kernel): flash_attn_with_kvcache and paged K/V "
          "(block_table; CK's split-KV / paged-KV kernels are not mapped, and CK's paged KV takes page_block_size "
          "multiples of 128 only), dropout, deterministic=True above headdim 128 or with ALiBi or varlen")
_DTYPES = {torch.float16: "fp16", torch.bfloat16: "bf16"}


@functools.cache
def _import():
    try:
        return importlib.import_module(MODULE), None
    except ImportError as e:
        return None, f"{MODULE} not importable: {e}"


def load_module():
    return _import()[0]


def module_error() -> str | None:
    return _import()[1]


TRAIN_VARIANT = "batch_o32"  # the training forward: O in float32 for the backward's D


def variant(args: FwdArgs, with_out_fp32: bool = False, group: bool = False) -> str:
    """The forward variant of a call (ck_configs/ck_fmha.toml): ``group`` for varlen, ``alibi`` with slopes,
    ``softcap``, else ``batch``; ``_o32`` for the training forward (O in float32 for the backward's D)."""
    base = "group" if group else "alibi" if args.alibi_slopes is not None else \
        "softcap" if args.softcap > 0 else "batch"
    return f"{base}_o32" if with_out_fp32 and base != "softcap" else base  # softcap: forward only


def train_variant(args: FwdArgs, group: bool = False) -> str:
    return variant(replace(args, softcap=0.0), True, group)


def bwd_variant(deterministic: bool, alibi: bool = False, group: bool = False) -> str:
    base = "group" if group else "alibi" if alibi else "batch"
    return ("deterministic" if base == "batch" else f"{base}_deterministic") if deterministic else base


def unsupported(q: torch.Tensor, k: torch.Tensor, args: FwdArgs, arch: str, *, dropout_p: float = 0.0,
                return_attn_probs: bool = False, needs_grad: bool = False,
                deterministic: bool = False, group: bool = False) -> NotImplementedError | None:
    """The NotImplementedError the ck backend raises for this call (naming the argument), or None.
    ``needs_grad``: a backward will follow, so CK's backward must cover the call too. ``group``: a varlen call
    (flash_attn_varlen_func: CK's group-mode instances)."""
    try:
        ck_args.check_supported(dropout_p=dropout_p)
    except NotImplementedError as e:
        return e
    alibi = args.alibi_slopes is not None
    if alibi and args.softcap > 0:
        return ck_args.unsupported("softcap", args.softcap, "CK's ALiBi instances apply no logits soft-cap "
                                   "(block_fmha_pipeline_qr_ks_vs.hpp: the ALiBi branch skips it)")
    if args.softcap > 0 and group:
        return ck_args.unsupported("softcap", args.softcap, "no CK group-mode (varlen) instance with logits soft-cap "
                                   "is built (ck_configs/ck_fmha.toml: the group instances would ignore "
                                   "logits_soft_cap)")
    if alibi and group:
        return ck_args.unsupported("alibi_slopes", "tensor", "no CK group-mode (varlen) instance with ALiBi is built "
                                   "(ck_configs/ck_fmha.toml)")
    if q.dtype not in _DTYPES:
        return ck_args.unsupported("q.dtype", str(q.dtype), "the CK instances are fp16 / bf16")
    if not args.softmax_scale > 0:
        return ck_args.unsupported("softmax_scale", args.softmax_scale, "CK's pipelines set masked and padded "
                                   "scores to -inf before multiplying by the scale (fast exp2), so a scale <= 0 "
                                   "turns them into +inf or NaN")
    headdim = max(q.shape[-1], k.shape[-1])
    fv = variant(args, group=group)
    if find_instance(_DTYPES[q.dtype], headdim, fv, arch) is None:
        name = "headdim" if headdim > 256 or fv == "batch" else \
            {"softcap": "softcap", "alibi": "alibi_slopes", "group": "headdim"}[fv]
        value = headdim if name == "headdim" else args.softcap if name == "softcap" else "tensor"
        return ck_args.unsupported(name, value,
                                   f"no CK instance of ck_configs/ck_fmha.toml serves ({_DTYPES[q.dtype]}, headdim "
                                   f"{headdim}, {fv}) on {arch}")
    if not needs_grad:
        return None
    if args.softcap > 0:
        return ck_args.unsupported("softcap", args.softcap, "CK's backward has no logits soft-cap (fmha_bwd_args "
                                   "has no such field; the forward alone runs on CK: call under torch.no_grad())")
    tv = train_variant(args, group)
    if find_instance(_DTYPES[q.dtype], headdim, tv, arch) is None:
        # name what differs: the dtype when another dtype has this training forward at this headdim (bf16 varlen)
        name = "q.dtype" if any(find_instance(d, headdim, tv, arch) for d in _DTYPES.values()) else "headdim"
        return ck_args.unsupported(name, str(q.dtype) if name == "q.dtype" else headdim,
                                   f"no CK training forward ({tv}: O in float32 for "
                                   f"the backward) of ck_configs/ck_fmha.toml serves ({_DTYPES[q.dtype]}, headdim "
                                   f"{headdim}) on {arch}")
    bv = bwd_variant(deterministic, alibi, group)
    if find_instance(_DTYPES[q.dtype], headdim, bv, arch, kind="bwd") is None:
        name = "deterministic" if deterministic and find_instance(
            _DTYPES[q.dtype], headdim, bwd_variant(False, alibi, group), arch, kind="bwd") else "headdim"
        return ck_args.unsupported(name, deterministic if name == "deterministic" else headdim,
                                   f"no CK backward instance of ck_configs/ck_fmha.toml serves "
                                   f"({_DTYPES[q.dtype]}, headdim {headdim}, {bv}) on {arch}")
    return None


def _tensor(t: torch.Tensor) -> ck_args.Tensor:
    name = _DTYPES.get(t.dtype) or ("fp32" if t.dtype == torch.float32 else str(t.dtype))
    return ck_args.tensor_of(t.shape, t.stride(), t.data_ptr(), name)


def _slopes(args: FwdArgs, device) -> torch.Tensor | None:
    """The ALiBi slopes as CK reads them: float32, contiguous (unit head stride), on the device; None without."""
    if args.alibi_slopes is None:
        return None
    return args.alibi_slopes.to(device=device, dtype=torch.float32).contiguous()


def _opt_tensor(t: torch.Tensor | None) -> ck_args.Tensor | None:
    return None if t is None else _tensor(t)


def _launch(fn, inst, arch: str, a, device) -> None:
    mod = load_module()
    with torch.cuda.device(device):
        ms = getattr(mod, fn)(inst.name, ARCH_FAMILY[arch], vars(a), torch.cuda.current_stream(device).cuda_stream)
    if ms < 0:
        raise RuntimeError(f"backend 'ck': instance {inst.name} is not in this build of {MODULE} "
                           f"(compiled: {', '.join(mod.compiled_archs())})")


def forward(q, k, v, args: FwdArgs, arch: str, with_out_fp32: bool = False):
    """Launch the CK forward instance: (out like q (contiguous), lse float32 (batch, nheads, seqlen_q), out_fp32).
    ``with_out_fp32`` (a training forward): the batch_o32 instance writes O in float32, returned as out_fp32
    (out is it rounded to q's dtype); otherwise out_fp32 is None. A masked call hands CK V with its non-finite
    elements replaced by 0 and sets NaN where a row sees one (ck_masked)."""
    inst = find_instance(_DTYPES[q.dtype], max(q.shape[-1], k.shape[-1]), variant(args, with_out_fp32), arch)
    batch, seqlen_q, nheads, _ = q.shape
    masked = ck_masked.is_masked(args)
    v_run = ck_masked.finite_or_zero(v) if masked else v
    o = torch.empty(q.shape[:-1] + v.shape[-1:], dtype=torch.float32 if inst.o_fp32 else q.dtype, device=q.device)
    lse = torch.empty(batch, nheads, seqlen_q, dtype=torch.float32, device=q.device)
    slopes = _slopes(args, q.device)
    a = ck_args.fwd_args(_tensor(q), _tensor(k), _tensor(v_run), _tensor(o), _tensor(lse),
                         softmax_scale=args.softmax_scale, window_left=args.window_left,
                         window_right=args.window_right, softcap=args.softcap, alibi_slopes=_opt_tensor(slopes))
    _launch("fwd", inst, arch, a, q.device)
    if masked:
        ck_masked.poison_out(o, v, args)
    lo, hi = ck_masked.row_key_range(seqlen_q, k.shape[1], args, q.device)
    ck_masked.overflow_rows_to_nan(o, lse, hi > lo)  # every visible score -inf: NaN, not 0 / -inf (issue 8)
    if inst.o_fp32:
        return o.to(q.dtype), lse, o
    return o, lse, None


def delta(dout: torch.Tensor, o: torch.Tensor) -> torch.Tensor:
    """FlashAttention-2's D = rowsum(dO * O) in float32, in LSE's layout (batch, nheads, seqlen_q), contiguous:
    what dq_dk_dv reads through ``d_ptr`` (CK's dot_do_o computes the same from O in the dtype). float64 inputs
    (the CPU evaluation of the tests) keep float64."""
    acc = torch.promote_types(torch.float32, o.dtype)
    return (dout.to(acc) * o.to(acc)).sum(dim=-1).transpose(1, 2).contiguous()


def backward(dout, q, k, v, out, lse, args: FwdArgs, arch: str, deterministic: bool = False, out_fp32=None):
    """Launch CK's backward instance: (dq, dk, dv) shaped like q, k, v (contiguous). ``lse`` is the forward's
    natural-log LSE, float32 (batch, nheads, seqlen_q); ``dout`` any strides with a unit headdim stride;
    ``out_fp32`` the training forward's float32 O (D from it; without it D comes from ``out``, whose rounding
    costs accuracy at large softmax_scale). A masked call hands CK finite K / V and restores the NaN pattern
    (ck_masked)."""
    dtype = _DTYPES[q.dtype]
    bv = bwd_variant(deterministic, args.alibi_slopes is not None)
    inst = find_instance(dtype, max(q.shape[-1], k.shape[-1]), bv, arch, kind="bwd")
    batch, seqlen_q, nheads, headdim = q.shape
    seqlen_k, nheads_k = k.shape[1], k.shape[2]
    work = ck_args.bwd_workspace(batch=batch, nhead_q=nheads, seqlen_q=seqlen_q, hdim_q=headdim,
                                 max_seqlen_k=seqlen_k, bn0=inst.tile[1], deterministic=deterministic)
    buf = {n: (torch.zeros if b.zero else torch.empty)(b.shape, dtype=torch.float32, device=q.device)
           for n, b in work.items()}
    lse = lse.float().contiguous()
    d = delta(dout, out_fp32 if out_fp32 is not None and out_fp32.numel() else out)
    masked = ck_masked.is_masked(args)
    k_run, v_run = k, v
    if masked:
        bad_k, bad_v = ck_masked.rows_seeing_bad(q, k, v, args)  # (batch, seqlen_q, nheads) each
        lse = lse.masked_fill(bad_k.transpose(1, 2), float("inf"))  # P = exp2(s - inf) = 0: nothing from those rows
        d = d.masked_fill((bad_k | bad_v).transpose(1, 2), 0.0)  # finite (O has NaN columns there)
        k_run, v_run = ck_masked.finite_or_zero(k), ck_masked.finite_or_zero(v)
    dq = torch.empty_like(q, memory_format=torch.contiguous_format)
    # CK writes dK / dV per query head: under GQA into (batch, seqlen_k, nheads, headdim), summed below
    dk_h = k.new_empty((batch, seqlen_k, nheads, k.shape[3]))
    dv_h = v.new_empty((batch, seqlen_k, nheads, v.shape[3]))
    slopes = _slopes(args, q.device)
    a = ck_args.bwd_args(_tensor(q), _tensor(k_run), _tensor(v_run), _tensor(out), _tensor(lse), _tensor(dout),
                         _tensor(d), _tensor(dq), _tensor(dk_h), _tensor(dv_h), _tensor(buf["dq_acc"]),
                         softmax_scale=args.softmax_scale, window_left=args.window_left,
                         window_right=args.window_right, deterministic=deterministic,
                         alibi_slopes=_opt_tensor(slopes))
    _launch("bwd", inst, arch, a, q.device)
    if not masked:
        return dq, reduce_gqa(dk_h, nheads_k), reduce_gqa(dv_h, nheads_k)
    ck_masked.poison_grads(dq, dk_h, dv_h, bad_k, bad_v, args)
    dk, dv = reduce_gqa(dk_h, nheads_k), reduce_gqa(dv_h, nheads_k)
    return dq, dk, dv


def reduce_gqa(grad_per_qhead: torch.Tensor, nheads_k: int) -> torch.Tensor:
    """dK or dV per query head (..., seqlen_k, nheads, headdim) -> per key head (..., seqlen_k, nheads_k,
    headdim): query head h uses key head h // (nheads / nheads_k) (CK's nhead_ratio_qk), so each key head sums
    its group of consecutive query heads (in fp32, then back to the dtype)."""
    *lead, nheads, d = grad_per_qhead.shape
    if nheads == nheads_k:
        return grad_per_qhead
    g = grad_per_qhead.view(*lead, nheads_k, nheads // nheads_k, d)
    return g.sum(dim=-2, dtype=torch.float32).to(grad_per_qhead.dtype)


def encode(arch: str, deterministic: bool) -> str:
    """The backend string of the ops (rocflash.ops): ``ck:<arch>`` or ``ck:<arch>:deterministic``."""
    return f"ck:{arch}:deterministic" if deterministic else f"ck:{arch}"


def decode(backend: str) -> tuple[str, bool]:
    """(arch, deterministic) of an ``encode``d backend string."""
    parts = backend.split(":")
    return parts[1], parts[2:] == ["deterministic"]


def resolve(sel, q, k, args: FwdArgs, *, dropout_p: float = 0.0, needs_grad: bool = False,
            deterministic: bool = False, group: bool = False):
    """(selection, arch) for a call the selector sent to ``ck``: CK when its instances cover the call (and its
    backward when ``needs_grad``); else NotImplementedError naming the argument (ck asked for by argument or
    environment) or the ``hip`` kernel (ck chosen by the probe), with the reason in the selection."""
    from ..selector import Selection, check_compiled_backend, probe_device

    arch = sel.arch or probe_device(q.device).arch  # select_backend's probe (one per call); else probed here
    err = unsupported(q, k, args, arch, dropout_p=dropout_p, needs_grad=needs_grad, deterministic=deterministic,
                      group=group)
    if err is None:
        return sel, arch
    if not sel.probed:
        raise err
    check_compiled_backend("hip", q.device)
    return Selection("hip", f"{sel.reason}; this call on rocflash's kernel: {err}", True), None
