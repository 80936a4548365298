"""Cycle MODEL of the decode path the dispatcher actually runs: the split-KV kernel and its combine kernel.

THIS IS A MODEL, NOT A MEASUREMENT: the rules of :mod:`rocflash.emu.cycles` applied to emulator traces of the
gfx906 split-KV instance (rocflash.emu.driver_varlen). The split count is the launcher's heuristic for an MI50
(rocflash.splitkv.num_splits_heuristic, 60 CUs, 2 resident blocks per CU) unless given.

  split kernel  workgroups = row chunks x splits x nheads_k x batch; one workgroup's clocks are linear in its
                keys: workgroup 0 of split 0 is traced at two key counts (2 splits, so the partial-buffer
                epilogue of a multi-split run is in the trace) and evaluated at the keys per split
                (rocflash.splitkv.split_keys)
  combine       workgroups = batch x seqlen_q x nheads (one (row, head) per block, kCombineThreads lanes); one
                workgroup traced at the target split count
"""

from __future__ import annotations

import torch

from .. import splitkv
from ..backends import FwdArgs
from ..configs import select_config
from .cycles import CUS, GroupCost, Prediction, _traced_launches, group_cost, occupancy
from .driver import kernel_image
from .driver_varlen import combine_threads



def _trace(dtype: str, group: int, seqlen_q: int, seqlen_k: int, headdim: int, num_splits: int, split_groups):
    from .driver import DTYPES
    from .driver_varlen import run_forward_seq

    torch_dtype = next(t for t, (n, _) in DTYPES.items() if n == dtype)
    g = torch.Generator().manual_seed(0)
    q = torch.randn(1, seqlen_q, group, headdim, generator=g).to(torch_dtype)
    k, v = (torch.randn(1, seqlen_k, 1, headdim, generator=g).to(torch_dtype) for _ in range(2))
    args = FwdArgs(headdim ** -0.5, -1, -1, 0.0, None)
    return _traced_launches(lambda: run_forward_seq(q, k, v, args, num_splits=num_splits, aligned=True,
                                                    groups=split_groups))


def predict_splitkv(label: str, dtype: str, batch: int, nheads: int, nheads_k: int, seqlen_q: int, seqlen_k: int,
                    headdim: int, num_splits: int = 0) -> list[Prediction]:
    """MODEL of one non-causal decode call through the split-KV kernel (+ combine when num_splits > 1): one
    Prediction per kernel. ValueError when the dispatcher would not take the split kernel for this shape."""
    cfg = select_config("fwd_splitkv", "gfx9", dtype, headdim)
    group = nheads // nheads_k
    if not splitkv.use_split_kernel(seqlen_q, group, num_splits):
        raise ValueError(f"seqlen_q x group = {seqlen_q * group} > {splitkv.MAX_ROWS} rows: the forward kernel runs")
    chunks = splitkv.row_chunks(seqlen_q, group, cfg.block_m)
    if num_splits == 0:
        num_splits = splitkv.num_splits_heuristic(batch, nheads_k, chunks, seqlen_k, CUS, "hip")
    kps = min(splitkv.split_keys(seqlen_k, num_splits, cfg.block_n), seqlen_k)
    rows = min(seqlen_q, max(1, cfg.block_m // group))  # query positions that fill row chunk 0
    t1, t2 = 4, 12  # key tiles (block_n) of the two traced points
    costs = []
    for t in (t1, t2):
        (prog, waves), *_ = _trace(dtype, group, rows, 2 * t * cfg.block_n, headdim, 2, [0])
        costs.append(group_cost(prog, waves))
    vec = costs[0].vector() + (costs[1].vector() - costs[0].vector()) * (kps / cfg.block_n - t1) / (t2 - t1)
    lds = prog.kernel.group_segment_fixed_size + kernel_image("fwd_splitkv", dtype, headdim, True).dynamic_lds
    waves, wg_per_cu = occupancy(prog, lds, cfg.threads)
    flops = 4.0 * batch * nheads * seqlen_q * seqlen_k * headdim
    out = [Prediction(f"{label}: split-KV, {num_splits} splits of {kps} keys", cfg.kernel_name(True),
                      chunks * num_splits * nheads_k * batch, waves, wg_per_cu, GroupCost.from_vector(vec), flops)]
    if num_splits > 1:
        # combine workgroup 0: (row 0, head 0), every split one key tile
        launches = _trace(dtype, group, 1, num_splits * cfg.block_n, headdim, num_splits, [0])
        prog_c, waves_c = launches[1]
        w, wg = occupancy(prog_c, prog_c.kernel.group_segment_fixed_size, combine_threads())
        out.append(Prediction(f"{label}: combine of {num_splits} splits", "fmha_fwd_splitkv_combine_kernel",
                              batch * seqlen_q * nheads, w, wg, group_cost(prog_c, waves_c), 0.0))
    return out


def decode_predictions() -> list[Prediction]:
    """The decode preset (b8, 32 query heads over 8 kv-heads, seqlen_q 1, 16k keys, d128) through the kernels
    the dispatcher runs for it on gfx906: split-KV + combine, fp16 and bf16."""
    return [p for dtype in ("fp16", "bf16")
            for p in predict_splitkv(f"decode preset (dispatch): b8 h32/8 sq1 sk16384 d128 {dtype}", dtype, 8, 32, 8,
                                     1, 16384, 128)]
