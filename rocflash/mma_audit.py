"""ptxas audit of the tensor-core instances (``impl = "mma"``: the forward in ck_configs/fmha_fwd.toml,
hip_src/fmha_mma.h; the backward's dK/dV and dQ kernels in ck_configs/fmha_bwd.toml, hip_src/fmha_mma_bwd.h) on
sm_80 and sm_90 (and the atomic-dQ kernel's wgmma and dQ-tile variants on sm_90a): no GPU needed, nvcc only.

    python -m rocflash.mma_audit                     # every mma instance, aligned path, sm_80 and sm_90
    python -m rocflash.mma_audit --paths both --check   # both load paths; exit 1 when a rule fails
    python -m rocflash.mma_audit --kinds bwd_dkdv --only fp16_d128 --arch sm_80   # one instance on one arch

Each instance source (rocflash.codegen, target "cuda") is compiled with the real build's flags plus
``--cubin -Xptxas -v -keep``: the ptxas report gives registers, spills, stack frame and static shared memory of
each kernel, and the kept PTX the products. An mma config builds two kernels (hip_src/fmha_fwd_launch.h): the
plain-score one on the config's tile and the general-score one on ``GeneralScoreTile`` (16 rows per warp; Bc at
most 16 at headdim 256, ``general_block_n``).
Rules, per kernel (``check``):

- main loop: the innermost PTX loop (a backward ``bra`` to an earlier label) that holds ``mma.sync``
  instructions holds at least one K/V tile's products, MT * headdim * block_n / 64 (S = Q.K^T and O += P.V,
  MT * headdim * block_n / 128 m16n8k16 each; MT = rows per warp / 16), in whole products (the P.V product
  appears twice: boundary tiles run it behind the V guard, ``pv_masked``). Backward (MT = rows per warp / 16
  m16 tiles of keys or query rows per warp): the dK/dV kernel's query-tile loop holds S^T, dP^T, dV += P^T.dO and
  dK += dS^T.Q, 4 * MT * headdim * block_m / 128; the dQ kernel's key-tile loop S, dP and dQ += dS.K,
  3 * MT * headdim * block_n / 128; one kernel per instance, plus the dK/dV instance's atomic-dQ kernel
  (deterministic=False; kind "bwd_dkdvq"): dQ += dS.K of the block's keys on top, 5 products of that size;
- no spills: ptxas reports 0 bytes of spill stores and loads;
- designed occupancy: ``blocks = max(1, 4 * waves_per_simd * 32 / threads)`` resident blocks per SM (the
  config's waves_per_simd is warps per SM sub-partition, rf_vendor.h RF_LAUNCH_BOUNDS): registers
  <= 65536 / (threads * blocks) and blocks * dynamic shared memory within the SM's shared memory
  (CUDA C Programming Guide, "Compute Capabilities": 164 KiB per SM on sm_80, 228 KiB on sm_90; 1 KiB of
  each block's share is reserved by the system); the shared memory is the kernel's on that arch (the deterministic
  dK/dV kernel's grid tile is compact() below sm_90: ``lds_bytes``);
- conflict-free operand reads: every ldmatrix of the main loop (Q, K, V row addresses of
  ``MmaFwdTileShape::q_read / k_read / v_read``, evaluated per lane by the host probe, rocflash._probe) has
  conflict degree 1 in the ISA audit's bank model (rocflash.isa ``lds_conflict_degree``: 32 banks of 4 bytes,
  128 bytes per clock, i.e. ldmatrix's eight 16-byte rows per phase); the unpadded layout is reported beside.
  The backward's reads (``MmaBwdTileBase::a_read / b_read / bt_read``, hip_src/fmha_mma_bwd_tile.h) are the same
  three row formulas over rows of the same pitch (headdim * 2 + pad): a backward config is checked through the
  forward tile of its headdim, pad and warps (``bank_proxy``).

Imports neither torch nor numpy.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import dataclasses
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from . import codegen
from .build import device_compile_flags
from .configs import TileConfig, hip_src_dir, load_configs

ARCHS = {"sm_80": "8.0", "sm_90": "9.0"}
# The atomic-dQ kernel with its dQ product on the warpgroup (wgmma, kind "bwd_dkdvq_wg"; hip_src/fmha_mma_bwd.h
# fmha_bwd_dkdvq_wgmma_kernel) exists only in sm_90a builds: audited there, for the configs it serves (wgmma_dq).
WGMMA_ARCH = ("sm_90a", "9.0a")
SMEM_PER_SM = {"sm_80": 164 * 1024, "sm_90": 228 * 1024, "sm_90a": 228 * 1024}  # bytes, CUDA C Programming Guide
SMEM_RESERVED_PER_BLOCK = 1024
REGISTERS_PER_SM = 65536
SM_SUBPARTITIONS = 4
WARP = 32

_ENTRY = re.compile(r"Compiling entry function '(\S+)' for '(sm_\d+a?)'")
_FRAME = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
_USED = re.compile(r"Used (\d+) registers(.*)")


@dataclasses.dataclass
class MmaKernelAudit:
    """One compiled kernel of an mma instance."""

    instance: str
    symbol: str
    arch: str
    general: bool  # the general-score kernel (GeneralScoreTile)
    rows_per_warp: int
    kind: str = "fwd"  # "fwd" | "bwd_dkdv" | "bwd_dkdvq" (the dK/dV instance's atomic-dQ kernel) | "bwd_dq"
    #                    | "bwd_dkdvq_wg" (that kernel with its dQ product on wgmma, sm_90a)
    #                    | "bwd_dkdvq_dq2" (the dQ warp tile of 32 query rows, mma.sync, sm_90a builds)
    registers: int = 0
    spill_bytes: int = 0
    stack_frame: int = 0
    mma_in_loop: int = 0
    mma_per_tile: int = 0
    register_limit: int = 0
    lds_bytes: int = 0
    blocks: int = 1
    wgmma_in_loop: int = 0  # bwd_dkdvq_wg: wgmma.mma_async in the main loop (its dQ product)
    wgmma_per_tile: int = 0


def designed_blocks(cfg: TileConfig) -> int:
    """Resident blocks per SM the config was designed for (RF_LAUNCH_BOUNDS in hip_src/rf_vendor.h)."""
    return max(1, SM_SUBPARTITIONS * cfg.waves_per_simd * WARP // cfg.threads)


def register_limit(cfg: TileConfig) -> int:
    """Most registers per thread that keep ``designed_blocks`` blocks resident (allocation in units of 8)."""
    return min(255, REGISTERS_PER_SM // (cfg.threads * designed_blocks(cfg)) // 8 * 8)


def lds_bytes(cfg: TileConfig, kind: str | None = None, arch: str | None = None) -> int:
    """Dynamic shared memory of the plain kernel (MmaFwdTileShape::lds_bytes, hip_src/fmha_mma_tile.h); the
    general kernel's tile has fewer rows, so this bounds both. Backward: MmaBwdDkdvShape / MmaBwdDqShape::lds_bytes
    (hip_src/fmha_mma_bwd_tile.h); on sm_80 the deterministic dK/dV kernel of a grid tile (s_query_warps 2, block_m
    = block_n) runs MmaBwdDkdvShape::compact(): every buffer in the core-matrix layout, no row padding."""
    if (kind or cfg.kind) == "bwd_dkdv" and arch == "sm_80" and cfg.s_query_warps > 1 and cfg.block_m == cfg.block_n:
        e = cfg.elem_bytes
        return ((2 * cfg.block_n + 2 * cfg.q_buffers * cfg.block_m) * cfg.headdim * e + cfg.q_buffers * 12 * cfg.block_m
                + 2 * cfg.block_n * cfg.block_m * e)
    if (kind or cfg.kind) == "bwd_dkdvq_wg":  # bwd_dkdvq's, plus K^T in wgmma core matrices
        a = cfg.atomic_config()
        return lds_bytes(cfg, "bwd_dkdvq") + a.headdim * a.block_n * a.elem_bytes
    if (kind or cfg.kind) == "bwd_dkdvq_dq2":  # bwd_dkdvq's tile and shared memory (only dQ's warp split differs)
        return lds_bytes(cfg, "bwd_dkdvq")
    if (kind or cfg.kind) == "bwd_dkdvq_lean2":  # and a second dS^T buffer (MmaBwdDkdvLean<..., 2>::lds_bytes)
        a = cfg.atomic_config()
        return lds_bytes(cfg, "bwd_dkdvq") + a.block_n * (a.block_m * a.elem_bytes + a.lds_pad_bytes)
    if (kind or cfg.kind) == "bwd_dkdvq_lean3":  # lean2's on the wide tile
        return lds_bytes(wide_atomic(cfg), "bwd_dkdvq_lean2")
    if (kind or cfg.kind) == "bwd_dkdvq" and cfg.atomic_config() != cfg:  # its own tile (atomic_* fields)
        return lds_bytes(cfg.atomic_config(), kind)
    row = cfg.headdim * cfg.elem_bytes + cfg.lds_pad_bytes
    st = cfg.block_n * (cfg.block_m * cfg.elem_bytes + cfg.lds_pad_bytes)  # dS^T or P^T [block_n][block_m * 2 + pad]
    grid = cfg.kind == "bwd_dkdv" and cfg.s_query_warps > 1  # P^T and dS^T in both kernels
    if (kind or cfg.kind) == "bwd_dkdvq" and not grid:  # and dS^T (MmaBwdDkdvShape::lds_bytes_atomic_dq)
        return lds_bytes(cfg) + st
    if cfg.kind == "bwd_dkdv":  # K, V; Q, dO and (m, 1/l), D per row, q_buffers times; P^T, dS^T (layout 2)
        return (2 * cfg.block_n + 2 * cfg.q_buffers * cfg.block_m) * row + cfg.q_buffers * 12 * cfg.block_m + 2 * grid * st
    if cfg.kind == "bwd_dq":  # Q, dO; K, V double-buffered
        return (2 * cfg.block_m + 4 * cfg.block_n) * row
    return (cfg.block_m + 2 * cfg.block_n) * row


_KERNELS = {"fwd": "fmha_fwd_kernel", "bwd_dkdv": "fmha_bwd_dkdv_mma_kernel", "bwd_dq": "fmha_bwd_dq_mma_kernel"}
_ATOMIC_DQ_KERNEL = "fmha_bwd_dkdvq_mma_kernel"  # built from each bwd_dkdv mma instance
_WGMMA_DQ_KERNEL = "fmha_bwd_dkdvq_wgmma_kernel"  # and, in sm_90a builds, from those that wgmma_dq() admits
WGMMA_VARIANTS = 1  # of that kernel (MmaBwdDkdvPipeline's kWgmma)
_DQ2_KERNEL = "fmha_bwd_dkdvq_dq2_kernel"  # sm_90a builds, from those that dq_tile2() admits (ROCFLASH_BWD_DQ_TILE)
# every CUDA build, from every layout-1 atomic tile on the 128-bit path (lean(), ROCFLASH_BWD_LEAN; the default
# atomic-dQ kernel since tcbwd8): kLean 2, and 3 on the wide tile (twice the keys over twice the warps,
# wide_atomic(); one block per SM); 1, 8, 9 only with -DRF_TCBWD8_DIAG, which the audit does not build. Audited on
# sm_80 and sm_90 (the sm_90a pass skips them, as the other kernels of an instance)
_LEAN_KERNEL = "fmha_bwd_dkdvq_lean_kernel"
_LEAN_MODE = re.compile(r"fmha_bwd_dkdvq_lean_kernel.*Lb[01]ELi([12389])E")
LEAN_VARIANTS = 2
PRODUCTS = {"fwd": 2, "bwd_dkdv": 4, "bwd_dkdvq": 5, "bwd_dq": 3, "bwd_dkdvq_wg": 4, "bwd_dkdvq_dq2": 5, "bwd_dkdvq_lean2": 5, "bwd_dkdvq_lean3": 5}  # mma.sync tile products per main-loop iteration (bwd_dkdvq_wg: its fifth product,
# dQ, is wgmma_per_tile; branch tcws6's bwd_dkdvq_sdp / _core, S^T and dP^T on wgmma, were removed in branch tc80)
_WG_KINDS = ("bwd_dkdvq_wg",)
_ATOMIC_KINDS = ("bwd_dkdvq", "bwd_dkdvq_wg", "bwd_dkdvq_dq2", "bwd_dkdvq_lean2",
                 "bwd_dkdvq_lean3")


def wgmma_dq(cfg: TileConfig) -> bool:
    """Whether a tensor-core dK/dV config's atomic-dQ kernel has the wgmma dQ product (MmaBwdDkdvShape::wgmma_dq,
    hip_src/fmha_mma_bwd_tile.h)."""
    a = cfg.atomic_config()
    return (cfg.kind == "bwd_dkdv" and cfg.impl == "mma" and a.s_query_warps == 1 and a.threads == 4 * WARP
            and a.headdim % 64 == 0 and a.block_m in (32, 64) and a.block_n % 16 == 0)


def dq_tile2(cfg: TileConfig) -> bool:
    """Whether a tensor-core dK/dV config's atomic-dQ kernel has the variant with the dQ warp tile of 32 query rows
    (MmaBwdDkdvShape::dq_tile2().valid(), hip_src/fmha_mma_bwd_tile.h): block_m a multiple of 32, the warps split
    as row warps (block_m / 32, at most all) x column warps of a multiple of 16 columns each."""
    a = cfg.atomic_config()
    if cfg.kind != "bwd_dkdv" or cfg.impl != "mma" or a.block_m % 32:
        return False
    warps = a.threads // WARP
    row_warps = min(a.block_m // 32, warps)
    return warps % row_warps == 0 and a.headdim % (warps // row_warps) == 0 and (a.headdim // (warps // row_warps)) % 16 == 0


def lean(cfg: TileConfig) -> bool:
    """Whether a tensor-core dK/dV config's atomic-dQ kernel has the lean variants (MmaBwdDkdvLean,
    hip_src/fmha_mma_bwd_lean.h): every layout-1 atomic tile (s_query_warps 1), on the 128-bit load path only."""
    return cfg.kind == "bwd_dkdv" and cfg.impl == "mma" and cfg.atomic_config().s_query_warps == 1


def wide_atomic(cfg: TileConfig) -> TileConfig:
    """The lean variant 3's tile (MmaBwdDkdvShape::wide, hip_src/fmha_mma_bwd_tile.h): the atomic tile with twice the
    keys over twice the warps, one block per SM by its registers (255 x 256 threads)."""
    a = cfg.atomic_config()
    return dataclasses.replace(a, block_n=2 * a.block_n, threads=2 * a.threads, waves_per_simd=2 * a.threads // (SM_SUBPARTITIONS * WARP))


def wgmma_per_tile(cfg: TileConfig, kind: str = "bwd_dkdvq_wg") -> int:
    """wgmma of one query tile: the dQ product's m64n32k16, headdim / 64 x block_m / 32 tiles x block_n / 16
    k-steps."""
    a = cfg.atomic_config()
    return a.headdim // 64 * (a.block_m // 32) * a.block_n // 16


def general_block_n(cfg: TileConfig) -> int:
    """Bc of a forward config's general-score kernel (GeneralScoreTile, hip_src/fmha_mma.h): the config's, but at
    most 16 at headdim 256."""
    return 16 if cfg.headdim >= 256 and cfg.block_n > 16 else cfg.block_n


def mma_per_tile(cfg: TileConfig, rows_per_warp: int, kind: str | None = None, general: bool = False) -> int:
    """m16n8k16 products of one main-loop iteration of one warp (the module docstring's counts)."""
    if cfg.kind == "bwd_dkdv":  # (rows_per_warp keys x block_m / s_query_warps queries x headdim per product)
        cfg = cfg.atomic_config() if kind in _ATOMIC_KINDS else cfg
        return PRODUCTS[kind or "bwd_dkdv"] * rows_per_warp // 16 * cfg.headdim * cfg.block_m // cfg.s_query_warps // 128
    if cfg.kind == "bwd_dq":
        return PRODUCTS["bwd_dq"] * rows_per_warp // 16 * cfg.headdim * cfg.block_n // 128
    return rows_per_warp // 16 * cfg.headdim * (general_block_n(cfg) if general else cfg.block_n) // 64


def parse_ptxas(text: str) -> dict[str, dict]:
    """``ptxas -v`` report -> {symbol: {arch, registers, stack_frame, spill_bytes}}."""
    out: dict[str, dict] = {}
    current = None
    for ln in text.splitlines():
        if m := _ENTRY.search(ln):
            current = out.setdefault(m.group(1), {"arch": m.group(2)})
        elif current is not None and (m := _FRAME.search(ln)):
            current.update(stack_frame=int(m.group(1)), spill_bytes=int(m.group(2)) + int(m.group(3)))
        elif current is not None and (m := _USED.search(ln)):
            current["registers"] = int(m.group(1))
    return out


def ptx_entries(ptx: str) -> dict[str, list[str]]:
    """{entry symbol: its body lines} of a PTX file."""
    out: dict[str, list[str]] = {}
    for m in re.finditer(r"\.entry (\S+)\(", ptx):
        body_start = ptx.index("{", m.end())
        depth, i = 0, body_start
        while True:
            if ptx[i] == "{":
                depth += 1
            elif ptx[i] == "}":
                depth -= 1
                if depth == 0:
                    break
            i += 1
        out[m.group(1)] = ptx[body_start:i].splitlines()
    return out


def main_loop_mma_count(lines: list[str], op: str = "mma.sync") -> int:
    """``op`` instructions (``mma.sync``, ``wgmma.mma_async``) in the innermost loop that holds any (0 when none
    does)."""
    labels = {m.group(1): n for n, ln in enumerate(lines) if (m := re.match(r"\s*(\$\S+):", ln))}
    loops = []
    for n, ln in enumerate(lines):
        if (m := re.search(r"\bbra(?:\.uni)?\s+(\$[\w$]+);", ln)) and labels.get(m.group(1), n + 1) <= n:
            loops.append((labels[m.group(1)], n))
    best = None
    for a, b in loops:
        count = sum(op in lines[k] for k in range(a, b + 1))
        if count and (best is None or b - a < best[1] - best[0]):
            best = (a, b, count)
    return best[2] if best else 0


def _rows_per_warp(symbol: str, cfg: TileConfig, kind: str | None = None) -> tuple[bool, int]:
    if cfg.kind != "fwd":  # keys (dK/dV) or query rows (dQ) per warp
        if cfg.kind == "bwd_dkdv":
            cfg = cfg.atomic_config() if kind in _ATOMIC_KINDS else cfg  # layout 2 (s_query_warps 2): twice the keys over half the queries per warp
            return False, cfg.block_n // (cfg.threads // WARP // cfg.s_query_warps)
        return False, cfg.block_m // (cfg.threads // WARP)
    general = "GeneralScoreTile" in symbol
    return general, 16 if general else cfg.block_m // (cfg.threads // WARP)


def compile_instance(cfg: TileConfig, aligned: bool, arch: str, gen: Path, work: Path) -> list[MmaKernelAudit]:
    """Compile one instance for ``arch`` and audit both of its kernels (RuntimeError when nvcc fails)."""
    name = cfg.kernel_name(aligned)
    keep = work / f"{name}.{arch}"
    keep.mkdir(parents=True, exist_ok=True)
    compiler, flags = device_compile_flags("cuda", [(WGMMA_ARCH[1] if arch == WGMMA_ARCH[0] else ARCHS[arch], False)])
    cmd = [compiler, *flags, "--cubin", "-Xptxas", "-v", "-keep", f"-keep-dir={keep}", f"-I{hip_src_dir()}",
           f"-I{gen}", str(gen / f"{name}.hip"), "-o", str(keep / f"{name}.cubin")]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"nvcc failed ({proc.returncode}): {' '.join(cmd)}\n{proc.stderr}")
    report = parse_ptxas(proc.stdout + proc.stderr)
    ptx = "\n".join(p.read_text() for p in keep.glob("*.ptx"))
    entries = ptx_entries(ptx)
    out = []
    for symbol, r in report.items():
        if arch == WGMMA_ARCH[0]:  # the other kernels of the instance are audited on sm_90
            if _WGMMA_DQ_KERNEL in symbol:
                kind = "bwd_dkdvq_wg"
            elif _DQ2_KERNEL in symbol:
                kind = "bwd_dkdvq_dq2"
            else:  # (the lean kernels too: the same mma.sync code as on sm_90)
                continue
        elif _WGMMA_DQ_KERNEL in symbol:  # sm_80 / sm_90: a trap (never launched)
            continue
        elif (m := _LEAN_MODE.search(symbol)):
            if m.group(1) not in "23":
                raise RuntimeError(f"{name}: lean variant {m.group(1)} is built only with -DRF_TCBWD8_DIAG")
            kind = f"bwd_dkdvq_lean{m.group(1)}"
        elif cfg.kind == "bwd_dkdv" and _ATOMIC_DQ_KERNEL in symbol:
            kind = "bwd_dkdvq"
        elif _KERNELS[cfg.kind] in symbol:
            kind = cfg.kind
        else:
            continue
        general, rows = _rows_per_warp(symbol, cfg, kind)
        occ = wide_atomic(cfg) if kind == "bwd_dkdvq_lean3" else cfg  # (the same rows per warp: 16 keys)
        out.append(MmaKernelAudit(
            instance=name, symbol=symbol, arch=arch, general=general, rows_per_warp=rows, kind=kind,
            registers=r.get("registers", 0), spill_bytes=r.get("spill_bytes", 0), stack_frame=r.get("stack_frame", 0),
            mma_in_loop=main_loop_mma_count(entries.get(symbol, [])),
            mma_per_tile=mma_per_tile(cfg, rows, kind, general),
            register_limit=register_limit(occ), lds_bytes=lds_bytes(cfg, kind, arch), blocks=designed_blocks(occ),
            wgmma_in_loop=main_loop_mma_count(entries.get(symbol, []), "wgmma.mma_async") if kind in _WG_KINDS else 0,
            wgmma_per_tile=wgmma_per_tile(cfg, kind) if kind in _WG_KINDS else 0))
    expected = (WGMMA_VARIANTS * wgmma_dq(cfg) + dq_tile2(cfg)) if arch == WGMMA_ARCH[0] else \
        2 + LEAN_VARIANTS * (lean(cfg) and aligned) if cfg.kind == "bwd_dkdv" else 2 if cfg.kind == "fwd" else 1
    if len(out) != expected:
        what = f"{_WGMMA_DQ_KERNEL} / {_DQ2_KERNEL}" if arch == WGMMA_ARCH[0] else "a plain and a general kernel" if cfg.kind == "fwd" else \
            f"{_KERNELS[cfg.kind]} and {_ATOMIC_DQ_KERNEL}" if cfg.kind == "bwd_dkdv" else f"one {_KERNELS[cfg.kind]}"
        raise RuntimeError(f"{name} [{arch}]: expected {what}, ptxas reported {sorted(report)}")
    return out


def bank_proxy(cfg: TileConfig) -> TileConfig:
    """The forward tile whose ldmatrix reads are a backward config's (same headdim, pad and warps; 16 rows per
    warp; block_n covering both tile sides): the backward's a_read / b_read / bt_read are q_read / k_read /
    v_read over rows of the same pitch."""
    if cfg.kind == "fwd":
        return cfg
    return dataclasses.replace(cfg, kind="fwd", block_m=max(cfg.block_m, cfg.block_n), block_n=max(cfg.block_m, cfg.block_n))


def bank_conflicts(cfg: TileConfig, **overrides) -> dict[str, int]:
    """Worst conflict degree of each ldmatrix read kind (q, k, v) of the config's tile (the plain kernel's; the
    general kernel's tile has the same rows and columns per warp), over every warp and loop index."""
    from ._probe import TileShape
    from .isa import tile_bank_conflicts
    from .targets import arch_info

    return tile_bank_conflicts(TileShape.from_config(bank_proxy(cfg), **overrides), arch_info("sm_90"), WARP)


def check_bank_conflicts(cfg: TileConfig) -> list[str]:
    return [f"{cfg.kernel_name(True)}: ldmatrix {kind}_read must be conflict-free (degree 1), got degree {d}"
            for kind, d in bank_conflicts(cfg).items() if d != 1]


def check(a: MmaKernelAudit) -> list[str]:
    """The rules of the module docstring; an empty list when the kernel passes."""
    what = f"{a.instance} ({'general' if a.general else 'plain'} kernel) [{a.arch}]" if a.kind == "fwd" else \
        f"{a.instance} ({a.kind[4:]} kernel) [{a.arch}]"
    v = []
    half = max(1, a.mma_per_tile // PRODUCTS.get(a.kind, 2))  # one product (e.g. S = Q.K^T or O += P.V)
    if a.mma_in_loop < a.mma_per_tile or a.mma_in_loop % half:
        v.append(f"{what}: main loop must hold >= {a.mma_per_tile} mma.sync in whole products of {half}, "
                 f"got {a.mma_in_loop}")
    if a.kind in _WG_KINDS and (a.wgmma_in_loop < a.wgmma_per_tile or a.wgmma_in_loop % a.wgmma_per_tile):
        which = "the dQ product"
        v.append(f"{what}: main loop must hold >= {a.wgmma_per_tile} wgmma.mma_async ({which}) in whole "
                 f"products, got {a.wgmma_in_loop}")
    if a.spill_bytes:
        v.append(f"{what}: must not spill, got {a.spill_bytes} bytes of spill stores + loads")
    if a.registers > a.register_limit:
        v.append(f"{what}: registers must be <= {a.register_limit} for {a.blocks} block(s) per SM, got {a.registers}")
    smem = a.blocks * (a.lds_bytes + SMEM_RESERVED_PER_BLOCK)
    if smem > SMEM_PER_SM[a.arch]:
        v.append(f"{what}: {a.blocks} block(s) of {a.lds_bytes} B shared memory must fit {SMEM_PER_SM[a.arch]} B, "
                 f"got {smem}")
    return v


def mma_instances(paths: str = "vec", kinds: tuple[str, ...] = tuple(_KERNELS)) -> list[tuple[TileConfig, bool]]:
    """(config, aligned) of every mma instance of ``kinds``; ``paths``: "vec" (aligned only) or "both"."""
    return [(c, al) for kind in kinds for c, al in codegen.instances("cuda", kind=kind)
            if c.impl == "mma" and (al or paths == "both")]


def run_audit(archs=tuple(ARCHS), paths: str = "vec", jobs: int | None = None,
              kinds: tuple[str, ...] = tuple(_KERNELS), wgmma: bool = True, only: str = "",
              keep: str | None = None) -> list[MmaKernelAudit]:
    """Audits of every mma instance of ``kinds`` on ``archs``, plus (``wgmma``) the sm_90a wgmma variants of the
    atomic-dQ kernel; ``only``: just the instances whose name contains that substring; ``keep``: a folder that
    keeps the generated sources, PTX and cubins (for cuobjdump), else a temporary one."""
    with tempfile.TemporaryDirectory(prefix="rocflash_mma_audit_") as tmp:
        tmp = keep or tmp
        gen = Path(tmp) / "gen"
        codegen.generate("cuda", gen)
        jobs = jobs or os.cpu_count() or 1
        with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
            insts = [(c, al) for c, al in mma_instances(paths, kinds) if only in c.kernel_name(al)]
            futures = [pool.submit(compile_instance, c, al, arch, gen, Path(tmp) / "work")
                       for c, al in insts for arch in archs]
            if wgmma:
                futures += [pool.submit(compile_instance, c, al, WGMMA_ARCH[0], gen, Path(tmp) / "work")
                            for c, al in insts if wgmma_dq(c) or dq_tile2(c)]
            return [a for f in futures for a in f.result()]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m rocflash.mma_audit", description=__doc__.split("\n\n")[0],
                                 epilog=__doc__.split("\n\n")[1], formatter_class=argparse.RawDescriptionHelpFormatter)
    every = (*ARCHS, WGMMA_ARCH[0])
    ap.add_argument("--arch", default=",".join(every),
                    help=f"comma-separated, among {', '.join(every)} ({WGMMA_ARCH[0]}: the atomic-dQ kernel's sm_90a variants)")
    ap.add_argument("--paths", choices=("vec", "both"), default="vec", help="aligned path only, or both load paths")
    ap.add_argument("--jobs", type=int, default=None)
    ap.add_argument("--check", action="store_true", help="exit 1 when a rule fails")
    ap.add_argument("--kinds", default=",".join(_KERNELS), help=f"comma-separated, among {', '.join(_KERNELS)}")
    ap.add_argument("--only", default="", metavar="SUBSTRING",
                    help="only the instances whose name contains SUBSTRING (e.g. bf16_d128): one compile per arch")
    ap.add_argument("--keep", default=None, metavar="DIR", help="keep sources, PTX and cubins under DIR")
    args = ap.parse_args(argv)
    archs = [a.strip() for a in args.arch.split(",") if a.strip()]
    bad = [a for a in archs if a not in every]
    if bad:
        ap.error(f"--arch must be among {', '.join(every)}, got {', '.join(bad)}")
    wgmma = WGMMA_ARCH[0] in archs
    archs = [a for a in archs if a != WGMMA_ARCH[0]]
    kinds = tuple(k.strip() for k in args.kinds.split(",") if k.strip())
    if bad := [k for k in kinds if k not in _KERNELS]:
        ap.error(f"--kinds must be among {', '.join(_KERNELS)}, got {', '.join(bad)}")
    audits = run_audit(archs, args.paths, args.jobs, kinds, wgmma, args.only, args.keep)
    if not audits:
        ap.error(f"no instance of {', '.join(kinds)} matches --only {args.only!r} on {args.arch}")
    print(f"{'instance':58s} {'kernel':7s} {'arch':5s} {'rows/w':>6s} {'regs':>4s} {'limit':>5s} {'spill':>5s} "
          f"{'mma/loop':>8s} {'per tile':>8s} {'LDS B':>6s} {'blocks':>6s}")
    violations = []
    for a in sorted(audits, key=lambda a: (a.instance, a.arch, a.general)):
        print(f"{a.instance:58s} {'general' if a.general else 'plain' if a.kind == 'fwd' else a.kind[4:]:7s} {a.arch:5s} {a.rows_per_warp:6d} "
              f"{a.registers:4d} {a.register_limit:5d} {a.spill_bytes:5d} {a.mma_in_loop:8d} {a.mma_per_tile:8d} "
              f"{a.lds_bytes:6d} {a.blocks:6d}" + (f"  wgmma/loop {a.wgmma_in_loop} per tile {a.wgmma_per_tile}"
                                               if a.kind in _WG_KINDS else ""))
        violations += check(a)
    for cfg in dict.fromkeys(c for c, al in mma_instances(args.paths, kinds) if args.only in c.kernel_name(al)):
        padded, unpadded = bank_conflicts(cfg), bank_conflicts(cfg, lds_pad_bytes=0)
        print(f"{cfg.tile_name}: ldmatrix conflict degree {padded} (unpadded layout: {unpadded})")
        violations += check_bank_conflicts(cfg)
    for v in violations:
        print("FAIL", v)
    print(f"{len(audits)} kernels, {len(violations)} violations")
    return 1 if (violations and args.check) else 0


if __name__ == "__main__":
    sys.exit(main())
