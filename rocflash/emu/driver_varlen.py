"""Host driver for the inference layouts: varlen, KV cache (dense and paged) and split-KV decode, on the emulator.

    out, lse, info = run_forward_seq(q, k, v, args, seq)                # varlen / paged / cache, as compiled
    out, lse, info = run_forward_seq(q, k, v, args, num_splits=3)       # dense decode through split-KV + combine
    dq, dk, dv, info = run_backward_seq(q, k, v, out, lse, dout, args, seq)

The params struct is filled by the compiled backend's own host code (rocflash.backends.compiled:
``_fill_common``, ``_fill_seq``, ``_set_strides``, ``is_aligned``, ``fill_split_buffers``,
``fill_bwd_outputs``) writing into :class:`ParamsMirror`, an attribute-style stand-in for the pybind11
params object of hip_src/bindings.cpp (``seq_<name>`` are the SeqLayout fields). Tensor pointers the fill
code writes (host ``data_ptr()`` values) are replaced by the addresses of the tensors' copies in emulated
memory; a pointer field naming no copied tensor stops the run. The struct bytes come from the headers'
layout (:func:`rocflash.emu.build.params_layout`); a field the mirror sets that the struct lacks raises.

Launches mirror hip_src/: the forward grid (fmha_fwd_launch.h), the split-KV grid and the combine grid
(fmha_splitkv_launch.h: kCombineThreads per block, one (row, head) per block), the backward's preprocess over the flattened
varlen rows (fmha_api.hip) then dK/dV and dQ (fmha_bwd_launch.h). When the split kernel runs and how many
splits: rocflash.splitkv with the launcher's rule (``num_splits`` 0: the heuristic for an MI50, 60 CUs).
Outputs, partial buffers and scratch start as NaN, so an element no kernel writes shows up.
"""

from __future__ import annotations

import functools
import math
import re
import types

import numpy as np
import torch

from .. import splitkv
from ..backends import FwdArgs, SeqArgs
from ..backends import compiled
from ..configs import hip_src_dir, select_config
from .build import params_layout
from .driver import DTYPES, MAX_GRID, KernelImage, _get, _nan_like, _put, check_aligned, combine_image, \
    kernel_image, preprocess_image
from .machine import Launcher, LaunchStats
from .state import GlobalMemory

MI50_CUS = 60
PREPROCESS_THREADS, PREPROCESS_LANES = 256, 16  # launch_fmha_bwd_preprocess (fmha_bwd_launch.h)
_MOD = types.SimpleNamespace(DType=types.SimpleNamespace(fp16=0, bf16=1, fp32=2))  # rf::DType values


class ParamsMirror:
    """The pybind11 params object as the compiled backend's fill code sees it: attributes by field name,
    ``seq_<name>`` for the SeqLayout fields; unset fields read 0 (the C++ struct is value-initialised)."""

    def __init__(self):
        object.__setattr__(self, "values", {})

    def __setattr__(self, name, value):
        self.values[name[4:] if name.startswith("seq_") else name] = value

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return self.values.get(name[4:] if name.startswith("seq_") else name, 0)


class _Memory:
    """Emulated global memory plus the host pointer -> emulated address map of the tensors copied in."""

    def __init__(self):
        self.mem = GlobalMemory()
        self.addr: dict[int, tuple[int, int, torch.Tensor]] = {}  # data_ptr -> (address, extent bytes, tensor)

    def put(self, *tensors) -> None:
        for t in tensors:
            if t is None or t.numel() == 0:
                continue
            nbytes = (1 + sum((s - 1) * st for s, st in zip(t.shape, t.stride()))) * t.element_size()
            have = self.addr.get(t.data_ptr())
            if have is None or have[1] < nbytes:
                self.addr[t.data_ptr()] = (_put(self.mem, t), nbytes, t)

    def get(self, t: torch.Tensor) -> torch.Tensor:
        return _get(self.mem, self.addr[t.data_ptr()][0], t)

    def kernarg(self, struct_name: str, p: ParamsMirror) -> tuple[bytes, list[str]]:
        """The struct bytes with every pointer translated; also the fields left zero."""
        layout = params_layout(struct_name)
        values = dict(p.values)
        for name, v in values.items():
            f = layout.fields.get(name)
            if f is not None and f.ctype.endswith("*") and v:
                if v not in self.addr:
                    raise KeyError(f"{struct_name}.{name} = {v:#x} points into no tensor copied to emulated memory")
                values[name] = self.addr[v][0]
        return layout.pack(values), sorted(set(layout.fields) - set(values))


@functools.lru_cache(maxsize=1)
def combine_threads() -> int:
    """kCombineThreads of hip_src/fmha_splitkv_launch.h: the combine's block, one (query row, head) per block."""
    text = (hip_src_dir() / "fmha_splitkv_launch.h").read_text()
    m = re.search(r"kCombineThreads\s*=\s*(\d+)", text)
    if m is None:
        raise RuntimeError("hip_src/fmha_splitkv_launch.h: kCombineThreads not found (the combine launch changed?)")
    return int(m.group(1))


def _launch(img: KernelImage, mem: GlobalMemory, kernarg: bytes, blocks: int, threads: int, order: str,
            groups=None) -> LaunchStats:
    gsel = None if groups is None else [(g, 0, 0) for g in groups]
    return Launcher(img.program, mem).launch((max(1, min(blocks, MAX_GRID)),), (threads,), kernarg, img.dynamic_lds,
                                             gsel, order)


def split_plan(q: torch.Tensor, nheads_k: int, batch: int, max_seqlen_q: int, max_seqlen_k: int, num_splits: int,
               aligned: bool):
    """compiled.split_plan for an MI50: (split kernel?, num_splits, its tile config or None)."""
    group = q.shape[-2] // nheads_k
    if not splitkv.use_split_kernel(max_seqlen_q, group, num_splits):
        return False, 1, None
    cfg = select_config("fwd_splitkv", "gfx9", DTYPES[q.dtype][0], q.shape[-1])
    if num_splits == 0:
        chunks = splitkv.row_chunks(max_seqlen_q, group, cfg.block_m)
        num_splits = splitkv.num_splits_heuristic(batch, nheads_k, chunks, max_seqlen_k, MI50_CUS, "hip")
    return True, max(1, num_splits), cfg


def run_forward_seq(q, k, v, args: FwdArgs, seq: SeqArgs | None = None, num_splits: int | None = None,
                    aligned: bool | None = None, order: str = "forward", groups=None, step: dict | None = None):
    """The compiled forward's host path (compiled.forward for dense q (batch, seqlen_q, nheads, headdim),
    compiled.varlen_forward for q (total_q, nheads, headdim) with ``seq``) with the kernels emulated.

    num_splits: None: the call's own (``seq.num_splits``, 0 for dense: the heuristic); else forces it (1 still
    takes the split kernel when the rule says decode). aligned: None: what the launcher picks, else forces the
    load path (True outside the 128-bit path's rule: ValueError before anything runs, driver.check_aligned). Returns (out like q, lse float32 (batch, nheads, seqlen_q) or (nheads, total_q), info) with info
    {"kernels": [names], "stats": [LaunchStats], "num_splits", "zero_fields", "o_accum", "lse_accum"}.
    step: the KV-cache step folded into the split kernel (hip_src/fmha_kvstep.h folded_kv_step): KvStepParams
    fields by name (tensors: cache_seqlens, k_new, v_new, error_flag; ints: seqlen_cache, seqlen_new, capacity,
    num_rows, assert_on_error), fold set to 1; info then holds the caches after the call ("k", "v") and the flag.
    """
    dtype = DTYPES[q.dtype][0]
    check_aligned(aligned, q=q, k=k, v=v)
    m = _Memory()
    out = _nan_like(q).contiguous()
    if seq is None:
        batch, seqlen_q, nheads, _ = q.shape
        lse = _nan_like(q, (batch, nheads, seqlen_q), torch.float32)
        max_q, max_k, nheads_k = seqlen_q, k.shape[1], k.shape[2]
    else:
        total_q, nheads, _ = q.shape
        lse = _nan_like(q, (nheads, total_q), torch.float32)
        batch, max_q, max_k, nheads_k = seq.batch, seq.max_seqlen_q, seq.max_seqlen_k, k.shape[-2]
    info = {"kernels": [], "stats": [], "num_splits": 1}
    if out.numel() == 0 or batch == 0:
        return out, lse, info
    p = ParamsMirror()
    alibi = compiled._fill_common(_MOD, p, q, k, v, args)
    if seq is not None:
        compiled._fill_seq(p, q, k, seq)
    p.o, p.lse = out.data_ptr(), lse.data_ptr()
    compiled._set_strides(p, "o", out)
    p.aligned = compiled.is_aligned(q, k, v, out) if aligned is None else bool(aligned)
    splits = (seq.num_splits if seq is not None else 0) if num_splits is None else num_splits
    split, splits, cfg = split_plan(q, nheads_k, batch, max_q, max_k, splits, p.aligned)
    if split and num_splits is not None and num_splits > 0:
        splits = num_splits
    partial = compiled.fill_split_buffers(p, splits, cfg.headdim, lambda *s, **kw: torch.full(
        s, float("nan"), dtype=kw["dtype"]), None) if split else ()
    m.put(q, k, v, out, lse, alibi, *partial)
    if seq is not None:
        m.put(seq.cu_seqlens_q, seq.cu_seqlens_k, seq.seqused_k, seq.cache_batch_idx, seq.block_table)
    for name, value in (step or {}).items():
        if isinstance(value, torch.Tensor):
            m.put(value)
            value = value.data_ptr()
        setattr(p, name, value)
    if step:
        p.fold = 1
    kernarg, zero = m.kernarg("rf::FmhaFwdParams", p)
    info.update(zero_fields=zero, num_splits=splits if split else 1)
    if not split:
        img = kernel_image("fwd", dtype, q.shape[-1], p.aligned)
        blocks = -(-p.seqlen_q // img.config.block_m) * p.nheads * p.batch
        info["stats"].append(_launch(img, m.mem, kernarg, blocks, img.config.threads, order, groups))
        info["kernels"].append(img.config.kernel_name(p.aligned))
    else:
        img = kernel_image("fwd_splitkv", dtype, q.shape[-1], p.aligned)
        chunks = splitkv.row_chunks(p.seqlen_q, p.nheads // p.nheads_k, cfg.block_m)
        blocks = chunks * splits * p.nheads_k * p.batch
        info["stats"].append(_launch(img, m.mem, kernarg, blocks, cfg.threads, order, groups))
        info["kernels"].append(cfg.kernel_name(p.aligned))
        if splits > 1:
            comb = combine_image(dtype, q.shape[-1], p.aligned)
            blocks = p.seq_total_q * p.nheads  # one (query row, head) per block
            info["stats"].append(_launch(comb, m.mem, kernarg, blocks, combine_threads(), order))
            info["kernels"].append(f"fmha_fwd_splitkv_combine_kernel<{dtype}, d{cfg.headdim}>")
            info["o_accum"], info["lse_accum"] = m.get(partial[0]), m.get(partial[1])
    if step:
        info.update(k=m.get(k), v=m.get(v))
        flag = step.get("error_flag")
        if isinstance(flag, torch.Tensor):  # int32: read as raw words (the float readers do not take it)
            raw = m.mem.read(m.addr[flag.data_ptr()][0], 4 * flag.numel())
            info["error_flag"] = torch.from_numpy(raw.view(np.int32).copy())
    return m.get(out), m.get(lse), info


def run_backward_seq(q, k, v, out, lse, dout, args: FwdArgs, seq: SeqArgs, aligned: bool | None = None,
                     order: str = "forward"):
    """compiled.varlen_backward with the kernels emulated: q/out/dout (total_q, nheads, headdim), k/v (total_k,
    nheads_k, headdim), lse float32 (nheads, total_q) natural log or softmax stats (nheads, total_q, 2).
    Every output starts NaN (the poisoned mode of the compiled backend). Returns (dq, dk, dv, info)."""
    dtype = DTYPES[q.dtype][0]
    check_aligned(aligned, q=q, k=k, v=v, out=out, dout=dout)
    total_q, nheads, headdim = q.shape
    dq, dk, dv = (_nan_like(t).contiguous() for t in (q, k, v))
    info = {"kernels": [], "stats": []}
    if seq.batch == 0 or total_q == 0 or k.shape[0] == 0:
        return dq.zero_(), dk.zero_(), dv.zero_(), info
    if lse.dim() == 2:
        from ..backends.seqlayout import alibi_row_shift_varlen

        stats = compiled.stats_from_lse(lse, alibi_row_shift_varlen(args.alibi_slopes, seq, nheads, total_q, lse.device))
    else:
        stats = lse.float().contiguous()
    delta = torch.full((nheads, total_q), float("nan"), dtype=torch.float32)
    p = ParamsMirror()
    alibi = compiled._fill_common(_MOD, p, q, k, v, args)
    compiled._fill_seq(p, q, k, seq)
    compiled.fill_bwd_outputs(p, q, k, v, out, stats, dout, delta, dq, dk, dv)
    if aligned is not None:
        p.aligned = bool(aligned)
    # float32 with the forward's statistics: the dQ kernel's statistics pass, then dK/dV (compiled.own_stats_scratch)
    own = compiled.own_stats_scratch(q, lse, 2) if "bwd_stats" in params_layout("rf::FmhaBwdParams").fields else None
    if own is not None:
        own.fill_(float("nan"))
        p.bwd_stats = own.data_ptr()
    m = _Memory()
    m.put(q, k, v, out, dout, stats, delta, dq, dk, dv, alibi, seq.cu_seqlens_q, seq.cu_seqlens_k, own)
    kernarg, zero = m.kernarg("rf::FmhaBwdParams", p)
    info["zero_fields"] = zero
    if own is not None:
        for kind in ("bwd_dq", "bwd_dkdv"):
            img = kernel_image(kind, dtype, headdim, p.aligned)
            c = img.config
            blocks = (-(-p.seqlen_k // c.block_n) * p.nheads_k if kind == "bwd_dkdv"
                      else -(-p.seqlen_q // c.block_m) * p.nheads) * p.batch
            # the same params for both, as fmha_api.hip launches them: dK/dV reads the forward's m (softmax_stats)
            # and the (shift, 1/l) the dQ kernel's statistics pass wrote (bwd_stats)
            info["stats"].append(_launch(img, m.mem, kernarg, blocks, c.threads, order))
            info["kernels"].append(c.kernel_name(p.aligned) + (" (statistics pass)" if kind == "bwd_dq" else ""))
        return m.get(dq), m.get(dk), m.get(dv), info
    # The preprocess walks (batch, head, row) in the LSE layout: varlen rows are one (1, nheads, total_q) batch.
    flat = ParamsMirror()
    flat.values.update(p.values, batch=1, seqlen_q=p.seq_total_q)
    flat_arg, _ = m.kernarg("rf::FmhaBwdParams", flat)
    rows_per_block = PREPROCESS_THREADS // PREPROCESS_LANES
    pre = preprocess_image(dtype)
    info["stats"].append(_launch(pre, m.mem, flat_arg, -(-total_q * nheads // rows_per_block), PREPROCESS_THREADS,
                                 order))
    info["kernels"].append(f"fmha_bwd_preprocess_kernel<{dtype}>")
    for kind in ("bwd_dkdv", "bwd_dq"):
        img = kernel_image(kind, dtype, headdim, p.aligned)
        c = img.config
        blocks = (-(-p.seqlen_k // c.block_n) * p.nheads_k if kind == "bwd_dkdv"
                  else -(-p.seqlen_q // c.block_m) * p.nheads) * p.batch
        info["stats"].append(_launch(img, m.mem, kernarg, blocks, c.threads, order))
        info["kernels"].append(c.kernel_name(p.aligned))
    return m.get(dq), m.get(dk), m.get(dv), info


def softmax_scale_args(headdim: int, causal: bool = False, window=(-1, -1), softcap: float = 0.0,
                       alibi_slopes=None) -> FwdArgs:
    """FwdArgs with flash-attn's defaults (softmax_scale = headdim^-0.5, causal = window_right 0)."""
    return FwdArgs(1 / math.sqrt(headdim), window[0], 0 if causal else window[1], softcap, alibi_slopes)
