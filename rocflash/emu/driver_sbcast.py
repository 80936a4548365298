"""Run the gfx906 scalar-broadcast forward (hip_src/fmha_fwd_sbcast.h) on the emulator, as its launcher does.

    out, lse, info = run_forward_sbcast(q, k, v, softmax_scale=None, window_left=-1, window_right=-1, block_n=16)

Two launches per call (``launch_fmha_fwd_sbcast``): ``fmha_fwd_vpairs_kernel`` writes the zero-padded K copy and
V in key pairs into two workspaces, then ``fmha_fwd_sbcast_kernel`` computes O and LSE. Scope of the variant
(ValueError otherwise, before any launch): fp16, headdim 64 or 128, dense layout, softmax_scale > 0; causal
(window_right = 0) and sliding windows (flash-attn's bottom-right convention) are served; the tensors are
(batch, seqlen, heads, headdim) with rows on 16-byte boundaries. ``groups`` runs a subset of the forward's
workgroups (the K/V preparation always runs whole).

The instance is compiled here from the same tile shape the build generates for ck_configs' ``impl = "sbcast"``
entries; ``SBCAST_TILES`` names the Bc values the model explored.
"""

from __future__ import annotations

import functools
import math

import torch

from ..configs import load_configs
from . import asm as asm_mod
from .build import compile_asm, params_layout
from .driver import MAX_GRID, KernelImage, _common, _dense_seq, _get, _nan_like, _put, _strides
from .machine import Launcher, Program
from .state import GlobalMemory

THREADS = 256  # 4 waves x 64 query rows per workgroup
HEADDIMS = (64, 128)
SBCAST_TILES = (8, 16, 32, 64)  # block_n: keys per softmax tile
# {headdim: Bc} of the instances the build generates (ck_configs/fmha_fwd.toml, impl "sbcast"): Bc * headdim = 2048,
# d128 Bc 16 and d64 Bc 32 (their key loops fit gfx906's 32 KB instruction cache: hip_src/fmha_fwd_sbcast.h).
DISPATCH_BLOCK_N = {c.headdim: c.block_n for c in load_configs("fwd") if c.impl == "sbcast" and c.target == "gfx9"}


def instance_source(block_n: int, headdim: int = 128) -> str:
    t = f"Tile_sbcast_d{headdim}_b{block_n}"
    return (f'#include "fmha_fwd_sbcast.h"\nnamespace rf {{\nstruct {t} {{\n'
            f"  static constexpr FwdTileShape kShape = FwdTileShape{{{headdim}, {THREADS}, {block_n}, {THREADS}, 1, 0, 2}};\n"
            f"  static constexpr int kWavesPerSimd = 1;\n}};\n"
            f"template rfError_t launch_fmha_fwd_sbcast<{t}>(const FmhaFwdParams&, rfStream_t);\n"
            f"}}  // namespace rf\n"
            f'extern "C" __device__ __attribute__((used)) const int rocflash_emu_lds_bytes = 0;\n')


def kernel_name(block_n: int, headdim: int = 128) -> str:
    """The instance name codegen gives the same tile (ck_configs impl "sbcast"; TileConfig.kernel_name)."""
    return f"rocflash_fmha_fwd_gfx9_sbcast_fp16_d{headdim}_b{THREADS}x{block_n}_t{THREADS}x1_p0_vec"


@functools.lru_cache(maxsize=8)
def images(block_n: int = 16, headdim: int = 128) -> tuple[KernelImage, KernelImage]:
    """(K/V preparation kernel, forward kernel) of the instance with Bc = block_n and this headdim."""
    if block_n not in SBCAST_TILES:
        raise ValueError(f"block_n must be one of {SBCAST_TILES}, got {block_n}")
    if headdim not in HEADDIMS:
        raise ValueError(f"headdim must be one of {HEADDIMS}, got {headdim}")
    path = compile_asm(kernel_name(block_n, headdim), instance_source(block_n, headdim))
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
    if q.shape[-1] not in HEADDIMS:
        raise ValueError(f"the scalar-broadcast forward needs headdim in {HEADDIMS}, got {q.shape[-1]}")
    if softmax_scale is not None and not softmax_scale > 0:
        raise ValueError(f"the scalar-broadcast forward needs softmax_scale > 0 (its row max is taken on raw scores), "
                         f"got {softmax_scale}")
    for name, t in (("q", q), ("k", k), ("v", v)):
        if t.stride(-1) != 1 or any((s * 2) % 16 for s in t.stride()[:-1]):
            raise ValueError(f"{name}: rows must start on 16-byte boundaries (strides {tuple(t.stride())})")


def run_forward_sbcast(q, k, v, softmax_scale: float | None = None, window_left: int = -1, window_right: int = -1,
                       block_n: int = 16, groups=None, trace: list | None = None):
    """Run the preparation and the forward on the emulator: (out like q, lse float32 (b, h, sq), info).

    trace: a list that receives the forward launch's traced waves ([(group, wave, Wave)], as ``Launcher.trace``)."""
    check_scope(q, k, v, window_left, window_right, softmax_scale)
    batch, seqlen_q, nheads, headdim = q.shape
    seqlen_k, nheads_k = k.shape[1], k.shape[2]
    softmax_scale = 1.0 / math.sqrt(headdim) if softmax_scale is None else softmax_scale
    prep, fwd = images(block_n, headdim)
    mem = GlobalMemory()
    out = _nan_like(q).contiguous()
    lse = _nan_like(q, (batch, nheads, seqlen_q), torch.float32)
    keys = -(-seqlen_k // block_n) * block_n
    poison = torch.full((batch * nheads_k * keys * headdim,), float("nan"), dtype=torch.float16)
    p = _common(q, k, v, softmax_scale, window_left, window_right, 0.0, None, mem)
    o_addr, lse_addr = _put(mem, out), _put(mem, lse)
    p.update({"o": o_addr, "lse": lse_addr, **_strides("o", out), "aligned": True,
              "k_padded": _put(mem, poison), "v_pairs": _put(mem, poison)})
    layout = params_layout("rf::FmhaFwdParams")
    _dense_seq(layout, p, batch, nheads, seqlen_q)
    kernarg = layout.pack(p)
    prep_blocks = -(-batch * nheads_k * (keys // 2) * (headdim // 8) // 256)
    info = {"kernel": kernel_name(block_n, headdim), "zero_fields": sorted(set(layout.fields) - set(p))}
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
