"""``flash_attn_varlen_func`` on the ``ck`` backend: Composable Kernel's group mode (packed sequences through
``seqstart_q`` / ``seqstart_k``; rocflash/ck/args.py) with the ``group`` / ``group_o32`` forward and ``group``
backward instances of ck_configs/ck_fmha.toml.

The functions follow rocflash.backends.SeqArgs' contract (what rocflash.varlen calls): ``varlen_forward(arch,
deterministic, q, k, v, seq, args, with_stats=False)`` and ``varlen_backward(arch, deterministic, q, k, v, out,
stats, dout, seq, args, out_fp32=None)``; rocflash.varlen binds arch and deterministic (the backend string
``ck:<arch>[:deterministic]``, rocflash.backends.ck.encode). Only the packed K/V layout (cu_seqlens_k): the
KV-cache and paged calls never reach CK (rocflash.varlen.select_varlen_backend).

As in the dense path (rocflash.backends.ck): the training forward writes O in float32 (``group_o32``) and the
backward's D = rowsum(dO * O) is computed here from it; the backward writes dK / dV per query head into zeroed
buffers (CK's dq_dk_dv returns at once for a sequence without queries, leaving its keys' rows unwritten; zero is
their gradient) and sums them over each GQA group; masked calls (causal / window) hand CK finite K / V and
restore the reference's NaN pattern per sequence (rocflash.backends.ck_masked.varlen_ranges). Rows of a
sequence without keys: CK's pipeline stores O = 0 and LSE = -inf (block_fmha_pipeline_qr_ks_vs.hpp, read, not
run), what flash_attn_varlen_func defines.

Status: compiled and ISA-audited (python -m rocflash.isa --ck), never executed (no AMD GPU reachable); the
mapping is evaluated on the CPU by tests/test_ck_eval.py.
"""

from __future__ import annotations

import torch

from ..ck import args as ck_args
from ..ck.configs import find_instance
from . import FwdArgs, SeqArgs, ck, ck_masked


def _instance(q, k, args: FwdArgs, arch: str, variant: str, kind: str = "fwd"):
    inst = find_instance(ck._DTYPES[q.dtype], max(q.shape[-1], k.shape[-1]), variant, arch, kind=kind)
    if inst is None:  # select_varlen_backend checked coverage (ck.unsupported with group=True)
        raise NotImplementedError(f"backend 'ck': no {kind} instance {variant} for {q.dtype} headdim "
                                  f"{max(q.shape[-1], k.shape[-1])} on {arch} (ck_configs/ck_fmha.toml)")
    return inst


def _cu(t: torch.Tensor) -> ck_args.Tensor:
    """An int32 cu_seqlens array as CK's seqstart_q / seqstart_k (contiguous: rocflash.varlen made it so)."""
    return ck._tensor(t)


def varlen_forward(arch: str, deterministic: bool, q, k, v, seq: SeqArgs, args: FwdArgs, with_stats: bool = False):
    """CK's group-mode forward: (out like q, lse float32 (nheads, total_q)); ``with_stats``: + (stats
    (nheads, total_q, 2) = (LSE, 1), what varlen_backward reads, O float32 like q)."""
    del deterministic  # the forward never uses atomics
    if seq.cu_seqlens_k is None:
        raise NotImplementedError("backend 'ck': a KV-cache / paged call has no CK path (rocflash's hip kernel "
                                  "runs it)")
    inst = _instance(q, k, args, arch, ck.variant(args, with_stats, group=True))
    total_q, nheads, _ = q.shape
    masked = ck_masked.is_masked(args)
    v_run = ck_masked.finite_or_zero(v) if masked else v
    o = torch.empty(q.shape[:-1] + v.shape[-1:], dtype=torch.float32 if inst.o_fp32 else q.dtype, device=q.device)
    lse = torch.empty(nheads, total_q, dtype=torch.float32, device=q.device)
    a = ck_args.fwd_args(ck._tensor(q), ck._tensor(k), ck._tensor(v_run), ck._tensor(o), ck._tensor(lse),
                         softmax_scale=args.softmax_scale, window_left=args.window_left,
                         window_right=args.window_right, softcap=args.softcap,
                         cu_seqlens_q=_cu(seq.cu_seqlens_q), cu_seqlens_k=_cu(seq.cu_seqlens_k),
                         max_seqlen_q=seq.max_seqlen_q)
    ck._launch("fwd", inst, arch, a, q.device)
    rows, _ = ck_masked.varlen_ranges(seq.cu_seqlens_q, seq.cu_seqlens_k, total_q, k.shape[0], args)
    if masked:
        ck_masked.poison_out(o.unsqueeze(0), v.unsqueeze(0), args, rows)
    ck_masked.overflow_rows_to_nan(o, lse, rows[1] > rows[0])  # every visible score -inf: NaN (issue 8)
    out = o.to(q.dtype) if inst.o_fp32 else o
    if not with_stats:
        return out, lse
    return out, lse, torch.stack((lse, torch.ones_like(lse)), dim=-1), o if inst.o_fp32 else None


def varlen_backward(arch: str, deterministic: bool, q, k, v, out, stats, dout, seq: SeqArgs, args: FwdArgs,
                    out_fp32=None):
    """CK's group-mode backward: (dq, dk, dv) shaped like q, k, v. ``stats``: varlen_forward's (LSE, 1) (or the
    LSE (nheads, total_q)); ``out_fp32``: the training forward's float32 O (D from it)."""
    inst = _instance(q, k, args, arch, ck.bwd_variant(deterministic, group=True), "bwd")
    total_q, nheads, headdim = q.shape
    total_k, nheads_k = k.shape[0], k.shape[1]
    work = ck_args.bwd_workspace(batch=seq.batch, nhead_q=nheads, seqlen_q=seq.max_seqlen_q, hdim_q=headdim,
                                 max_seqlen_k=seq.max_seqlen_k, bn0=inst.tile[1], deterministic=deterministic,
                                 total_q=total_q)
    buf = {n: (torch.zeros if b.zero else torch.empty)(b.shape, dtype=torch.float32, device=q.device)
           for n, b in work.items()}
    lse = (stats[..., 0] if stats.dim() == 3 else stats).float().contiguous()
    o = out_fp32 if out_fp32 is not None and out_fp32.numel() else out
    acc = torch.promote_types(torch.float32, o.dtype)
    d = (dout.to(acc) * o.to(acc)).sum(dim=-1).T.contiguous()  # D = rowsum(dO * O), LSE's layout (nheads, total_q)
    masked = ck_masked.is_masked(args)
    k_run, v_run = k, v
    if masked:
        rows, keys = ck_masked.varlen_ranges(seq.cu_seqlens_q, seq.cu_seqlens_k, total_q, total_k, args)
        bad_k, bad_v = ck_masked.rows_seeing_bad(q.unsqueeze(0), k.unsqueeze(0), v.unsqueeze(0), args, rows)
        bad_k, bad_v = bad_k[0], bad_v[0]  # (total_q, nheads)
        lse = lse.masked_fill(bad_k.T, float("inf"))  # P = exp2(s - inf) = 0: nothing from those rows
        d = d.masked_fill((bad_k | bad_v).T, 0.0)
        k_run, v_run = ck_masked.finite_or_zero(k), ck_masked.finite_or_zero(v)
    dq = torch.empty_like(q, memory_format=torch.contiguous_format)
    dk_h = k.new_zeros((total_k, nheads, k.shape[2]))  # zeroed: keys of a sequence without queries stay 0
    dv_h = v.new_zeros((total_k, nheads, v.shape[2]))
    a = ck_args.bwd_args(ck._tensor(q), ck._tensor(k_run), ck._tensor(v_run), ck._tensor(out), ck._tensor(lse),
                         ck._tensor(dout), ck._tensor(d), ck._tensor(dq), ck._tensor(dk_h), ck._tensor(dv_h),
                         ck._tensor(buf["dq_acc"]), softmax_scale=args.softmax_scale, window_left=args.window_left,
                         window_right=args.window_right, deterministic=deterministic,
                         cu_seqlens_q=_cu(seq.cu_seqlens_q), cu_seqlens_k=_cu(seq.cu_seqlens_k),
                         max_seqlen_q=seq.max_seqlen_q, max_seqlen_k=seq.max_seqlen_k)
    ck._launch("bwd", inst, arch, a, q.device)
    if masked:
        ck_masked.poison_grads(dq.unsqueeze(0), dk_h.unsqueeze(0), dv_h.unsqueeze(0), bad_k.unsqueeze(0),
                               bad_v.unsqueeze(0), args, keys)
    return dq, ck.reduce_gqa(dk_h, nheads_k), ck.reduce_gqa(dv_h, nheads_k)
