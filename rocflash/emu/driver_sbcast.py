"""Run the gfx906 scalar-broadcast forward (hip_src/fmha_fwd_sbcast.h) on the emulator, as its launcher does.

    out, lse, info = run_forward_sbcast(q, k, v, softmax_scale=None, block_n=16)

Two launches per call (``launch_fmha_fwd_sbcast``): ``fmha_fwd_vpairs_kernel`` writes the zero-padded K copy and
V in key pairs into two workspaces, then ``fmha_fwd_sbcast_kernel`` computes O and LSE. Scope of the variant
(ValueError otherwise, before any launch): fp16, headdim 128, no causal/window mask, dense layout; the
tensors are (batch, seqlen, heads, 128) with rows on 16-byte boundaries. ``groups`` runs a subset of the
forward's workgroups (the K/V preparation always runs whole).

The instance is compiled here (not in ck_configs/): ``SBCAST_TILES`` names the tiles the model explored.
"""

from __future__ import annotations

import functools
import math

import torch

from . import asm as asm_mod
from .build import compile_asm, params_layout
from .driver import MAX_GRID, KernelImage, _common, _dense_seq, _get, _nan_like, _put, _strides
from .machine import Launcher, Program
from .state import GlobalMemory

THREADS = 256  # 4 waves x 64 query rows per workgroup
HEADDIM = 128
SBCAST_TILES = (8, 16, 32)  # block_n: keys per softmax tile


def instance_source(block_n: int) -> str:
    return (f'#include "fmha_fwd_sbcast.h"\nnamespace rf {{\nstruct Tile_sbcast_b{block_n} {{\n'
            f"  static constexpr FwdTileShape kShape = FwdTileShape{{{HEADDIM}, {THREADS}, {block_n}, {THREADS}, 1, 0, 2}};\n"
            f"  static constexpr int kWavesPerSimd = 1;\n}};\n"
            f"template rfError_t launch_fmha_fwd_sbcast<Tile_sbcast_b{block_n}>(const FmhaFwdParams&, rfStream_t);\n"
            f"}}  // namespace rf\n"
            f'extern "C" __device__ __attribute__((used)) const int rocflash_emu_lds_bytes = 0;\n')


def kernel_name(block_n: int) -> str:
    return f"rocflash_fmha_fwd_sbcast_gfx9_fp16_d{HEADDIM}_b{THREADS}x{block_n}_t{THREADS}x1"


@functools.lru_cache(maxsize=8)
def images(block_n: int = 16) -> tuple[KernelImage, KernelImage]:
    """(K/V preparation kernel, forward kernel) of the instance with Bc = block_n."""
    if block_n not in SBCAST_TILES:
        raise ValueError(f"block_n must be one of {SBCAST_TILES}, got {block_n}")
    path = compile_asm(kernel_name(block_n), instance_source(block_n))
    kernels = asm_mod.parse_file(path.read_text(), str(path))
    prep = [k for n, k in kernels.items() if "fmha_fwd_vpairs_kernel" in n]
    fwd = [k for n, k in kernels.items() if "fmha_fwd_sbcast_kernel" in n]
    if len(prep) != 1 or len(fwd) != 1:
        raise RuntimeError(f"{path}: expected one vpairs and one sbcast kernel, found {sorted(kernels)}")
    return (KernelImage(Program.from_kernel(prep[0]), None, True, 0, str(path)),
            KernelImage(Program.from_kernel(fwd[0]), None, True, 0, str(path)))


def check_scope(q, k, v, window_left: int, window_right: int, softmax_scale: float | None = None) -> None:
    """ValueError naming the rule when the call is outside the variant's scope (module docstring)."""
    if q.dtype != torch.float16 or k.dtype != torch.float16 or v.dtype != torch.float16:
        raise ValueError(f"the scalar-broadcast forward is fp16 only, got {q.dtype}, {k.dtype}, {v.dtype}")
    if q.shape[-1] != HEADDIM:
        raise ValueError(f"the scalar-broadcast forward needs headdim == {HEADDIM}, got {q.shape[-1]}")
    if softmax_scale is not None and not softmax_scale > 0:
        raise ValueError(f"the scalar-broadcast forward needs softmax_scale > 0 (its row max is taken on raw scores), "
                         f"got {softmax_scale}")
    if window_left >= 0 or window_right >= 0:
        raise ValueError("the scalar-broadcast forward has no causal/window mask (a masked key's V would enter "
                         f"P.V as 0 * V), got window_left={window_left}, window_right={window_right}")
    for name, t in (("q", q), ("k", k), ("v", v)):
        if t.stride(-1) != 1 or any((s * 2) % 16 for s in t.stride()[:-1]):
            raise ValueError(f"{name}: rows must start on 16-byte boundaries (strides {tuple(t.stride())})")


def run_forward_sbcast(q, k, v, softmax_scale: float | None = None, window_left: int = -1, window_right: int = -1,
                       block_n: int = 16, groups=None, trace: list | None = None):
    """Run the preparation and the forward on the emulator: (out like q, lse float32 (b, h, sq), info).

    trace: a list that receives the forward launch's traced waves ([(group, wave, Wave)], as ``Launcher.trace``)."""
    check_scope(q, k, v, window_left, window_right, softmax_scale)
    batch, seqlen_q, nheads, _ = q.shape
    seqlen_k, nheads_k = k.shape[1], k.shape[2]
    softmax_scale = 1.0 / math.sqrt(HEADDIM) if softmax_scale is None else softmax_scale
    prep, fwd = images(block_n)
    mem = GlobalMemory()
    out = _nan_like(q).contiguous()
    lse = _nan_like(q, (batch, nheads, seqlen_q), torch.float32)
    keys = -(-seqlen_k // block_n) * block_n
    poison = torch.full((batch * nheads_k * keys * HEADDIM,), float("nan"), dtype=torch.float16)
    p = _common(q, k, v, softmax_scale, window_left, window_right, 0.0, None, mem)
    o_addr, lse_addr = _put(mem, out), _put(mem, lse)
    p.update({"o": o_addr, "lse": lse_addr, **_strides("o", out), "aligned": True,
              "k_padded": _put(mem, poison), "v_pairs": _put(mem, poison)})
    layout = params_layout("rf::FmhaFwdParams")
    _dense_seq(layout, p, batch, nheads, seqlen_q)
    kernarg = layout.pack(p)
    prep_blocks = -(-batch * nheads_k * (keys // 2) * (HEADDIM // 8) // 256)
    info = {"kernel": kernel_name(block_n), "zero_fields": sorted(set(layout.fields) - set(p))}
    info["prep"] = Launcher(prep.program, mem).launch((min(prep_blocks, MAX_GRID),), (256,), kernarg, 0, None)
    launcher = Launcher(fwd.program, mem)
    if trace is not None:
        launcher.trace = []
    blocks = -(-seqlen_q // THREADS) * nheads * batch
    gsel = None if groups is None else [(g, 0, 0) for g in groups]
    info["stats"] = launcher.launch((min(blocks, MAX_GRID),), (THREADS,), kernarg, 0, gsel)
    if trace is not None:
        trace.extend(launcher.trace)
    return _get(mem, o_addr, out), _get(mem, lse_addr, lse), info
