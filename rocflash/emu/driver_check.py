"""Host driver for flash_attn_varlen_func's index-check kernel (hip_src/fmha_varlen_check.h) on the emulator.

    flag = run_varlen_check(cu_seqlens_q, cu_seqlens_k, total_q, total_k, max_seqlen_q, max_seqlen_k,
                            block_table=None, num_blocks=0, page_block_size=0)

The gfx906 machine code of ``rf::fmha_varlen_check_kernel<kVarlenCheckThreads>`` run as the module's
``varlen_check`` launches it (fmha_api.hip: one block of kVarlenCheckThreads per sequence), with the params the
binding fills (hip_src/bindings.cpp): returns the error flag the kernel leaves (0 or 1), or, with
``assert_on_error``, raises the emulator's Trap at the kernel's s_trap. Index tensors are int32 CPU tensors copied into the emulated memory.
"""

from __future__ import annotations

import functools
import re

import numpy as np
import torch

from ..configs import hip_src_dir
from . import asm as asm_mod
from .build import compile_asm
from .driver import KernelImage
from .driver_varlen import ParamsMirror, _launch, _Memory
from .machine import Program

CHECK_SOURCE = """#include "fmha_varlen_check.h"
namespace rf {
template __global__ void fmha_varlen_check_kernel<kVarlenCheckThreads>(const VarlenCheckParams);
}  // namespace rf
"""


@functools.lru_cache(maxsize=1)
def check_threads() -> int:
    """kVarlenCheckThreads of hip_src/fmha_varlen_check.h: the block of the check kernel."""
    m = re.search(r"kVarlenCheckThreads\s*=\s*(\d+)", (hip_src_dir() / "fmha_varlen_check.h").read_text())
    if m is None:
        raise RuntimeError("hip_src/fmha_varlen_check.h: kVarlenCheckThreads not found (the launch changed?)")
    return int(m.group(1))


@functools.lru_cache(maxsize=1)
def check_image() -> KernelImage:
    path = compile_asm("rocflash_fmha_varlen_check", CHECK_SOURCE)
    kernels = asm_mod.parse_file(path.read_text(), str(path))
    if len(kernels) != 1:
        raise RuntimeError(f"{path}: expected one varlen check kernel, found {sorted(kernels)}")
    return KernelImage(Program.from_kernel(next(iter(kernels.values()))), None, False, 0, str(path))


def run_varlen_check(cu_seqlens_q, cu_seqlens_k, total_q: int, total_k: int, max_seqlen_q: int, max_seqlen_k: int,
                     block_table=None, num_blocks: int = 0, page_block_size: int = 0, order: str = "forward",
                     assert_on_error: bool = False) -> int:
    """The check kernel's error flag for these index values (total_k -1: cu_seqlens_k may end anywhere). With
    ``assert_on_error`` a violation raises rocflash.emu.state.Trap (the kernel's s_trap) instead."""
    m = _Memory()
    flag = torch.zeros(1, dtype=torch.int32)
    m.put(cu_seqlens_q, cu_seqlens_k, flag, block_table)
    batch = cu_seqlens_q.numel() - 1
    p = ParamsMirror()
    p.cu_seqlens_q, p.cu_seqlens_k = cu_seqlens_q.data_ptr(), cu_seqlens_k.data_ptr()
    p.batch, p.total_q, p.total_k = batch, total_q, total_k
    p.max_seqlen_q, p.max_seqlen_k = max_seqlen_q, max_seqlen_k
    if block_table is not None:
        p.block_table, p.block_table_batch_stride = block_table.data_ptr(), block_table.stride(0)
        p.max_blocks_per_seq = block_table.shape[1]
    p.page_block_size, p.num_blocks = page_block_size, num_blocks
    p.error_flag, p.assert_on_error = flag.data_ptr(), int(assert_on_error)
    kernarg, _ = m.kernarg("rf::VarlenCheckParams", p)
    if batch > 0:
        _launch(check_image(), m.mem, kernarg, batch, check_threads(), order)
    return int(m.mem.read(m.addr[flag.data_ptr()][0], 4).view(np.int32)[0])
