"""ISA audit of the forward and backward kernels: resource use, instruction selection and LDS layout, read
from compiler output (no GPU needed).

    python -m rocflash.isa                       # compile the default instance set for every arch, print the table
    python -m rocflash.isa --paths both          # every instance of every kind, both load paths, on every arch
    python -m rocflash.isa --arch gfx906 --check # one arch; exit 1 when an invariant fails
    python -m rocflash.isa --kinds bwd_dkdv,bwd_dq --arch gfx906   # the backward kernels only
    python -m rocflash.isa --markdown perf/results/isa_audit.md --json audit.json
    python -m rocflash.isa --from-dir DIR        # audit *.s / *.ptxas.txt files already in DIR, compile nothing

What is compiled
    Every instance of the three tiled kernel kinds (:func:`rocflash.codegen.instances`: config x load path,
    aligned 128-bit ``vec`` / ``narrow``), each kind with its own configs:
      fwd        rf::fmha_fwd_kernel        ck_configs/fmha_fwd.toml [[fwd]]       shape rf::FwdTileShape
      bwd_dkdv   rf::fmha_bwd_dkdv_kernel   ck_configs/fmha_bwd.toml [[bwd_dkdv]]  shape rf::BwdDkdvShape
      bwd_dq     rf::fmha_bwd_dq_kernel     ck_configs/fmha_bwd.toml [[bwd_dq]]    shape rf::BwdDqShape
    plus ``hip_src/fmha_api.hip``, whose only device code is ``rf::fmha_bwd_preprocess_kernel<E, 256, 16>``
    (kind ``bwd_preprocess``: element-wise loads, no tile, no LDS; audited for wave size, spills and LDS only,
    reported in its own rows). Sources come from :func:`rocflash.codegen.generate` (all kinds, always, so the
    generated headers and the cache keys do not depend on the selection) and are compiled device-only with the
    flags of the real build (:func:`rocflash.build.device_compile_flags`):
      gfx906, gfx908, gfx90a   hipcc (Debian HIP 5.2 / clang-15, rocm-device-libs), ``--cuda-device-only -S``
      gfx942                   clang++-19 ``-nogpulib`` plus the Debian device-libs bitcode linked explicitly
                               (device-libs 5.2 predate gfx942: the gfx940 ISA-version constant is linked; it
                               only selects code paths of libm-style functions the kernel does not call).
                               Without that bitcode, HIP 5.2's ``blockIdx`` / ``__syncthreads`` stay calls
                               into ockl and the kernel gets a call stack: the audit reports such calls.
      sm_80, sm_90             nvcc ``--cubin -Xptxas -v`` (the ptxas report is parsed)
    Default instance set (``--paths split``, also what tests/test_isa.py audits): both load paths on gfx906
    and sm_90, the aligned path only on gfx908, gfx90a, gfx942 and sm_80: 72 + 72 + 4 x 36 = 288 instance
    compiles plus 6 of fmha_api.hip. Measured cold (empty cache) on the 2-core development machine
    (2026-11-29, 2 jobs), twice, because its speed varied with load (compiler time per compile 1.2 s quiet,
    3.0 s loaded): the full set (``--paths both``, 432 + 6 compiles) took 282 s quiet and 683 s loaded, the
    split 197 s and 379 s. The split keeps a loaded 2-core CI job under ~8 minutes; the full set does not.
    The narrow path differs from the aligned one only in its global loads and address arithmetic; it is
    checked on the first-class target (gfx906) and on one NVIDIA arch. What the split gives up:
    register-allocation differences of the narrow instances on gfx908, gfx90a, gfx942 and sm_80 (the full run
    of 2026-11-29 found one: a VGPR spill into AGPRs of a gfx942 narrow-only instance, see
    perf/results/isa_audit.md). ``--paths both`` audits everything (tests: ``ROCFLASH_ISA_PATHS=both``).
    Outputs are cached under ``--build-dir`` (default ``$ROCFLASH_CACHE_DIR/isa``, else
    ``~/.cache/rocflash/isa``) in files named by a hash of the command line and of every source and header
    they read, so a second run compiles only what changed. Compiles run in parallel (``--jobs``).

What is read from the AMDGPU assembly (per kernel; LLVM AMDGPU backend, docs "AMDGPUUsage", code object
metadata)
    ``.amdgpu_metadata`` (YAML, parsed with PyYAML): ``.wavefront_size``, ``.vgpr_count`` (on gfx90a+ the
    unified VGPR+AGPR count that sets occupancy), ``.sgpr_count``, ``.agpr_count``,
    ``.group_segment_fixed_size`` (static LDS bytes), ``.private_segment_fixed_size`` (scratch bytes per
    lane), ``.vgpr_spill_count``, ``.sgpr_spill_count`` (SGPRs spilled into VGPR lanes),
    ``.uses_dynamic_stack``; the ``; Occupancy:`` comment (LLVM's own waves/SIMD, static LDS only).
    The dynamic LDS is what the launcher requests for the config, ``lds_bytes()`` of the kind's shape type
    (hip_src/fmha_fwd_launch.h, fmha_bwd_launch.h), evaluated by the host-side probe (:mod:`rocflash._probe`).

Main-loop detection
    The kernel's instructions (its label to ``.Lfunc_end``) are split into basic blocks at labels and after
    branches; ``s_branch L`` / ``s_cbranch_* L`` (plus the fall-through of conditional branches) give the
    control-flow graph (a networkx DiGraph). A loop is a cycle of that graph: a branch back to an earlier
    label closes it. Loops and their nesting come from the loop nesting forest (Steensgaard): each strongly
    connected component with a cycle is a loop, its entries are its blocks with a predecessor outside it;
    dropping the edges from inside the loop to its entries and repeating inside gives the nested loops.
    Unlike natural loops (a header that dominates the body) this keeps the blocks that late exec-mask skip
    branches (``s_cbranch_execz`` around a masked region) leave reachable from outside the loop: on gfx9 the
    compiler places the first masked V-tile loads of the K/V loop before its header and jumps back to them,
    and a natural-loop analysis (like LLVM's own ``Loop Header`` annotations) would count them outside the
    loop. The loops found this way match the loops LLVM annotates in verbose assembly
    (``=> This Loop Header: Depth=N``): same number per depth, each LLVM header is an entry of a loop at
    its depth (tests/test_isa.py checks this).
    The *tile-product instructions* are ``v_dot2_f32_f16`` / ``v_dot2c_f32_f16`` and ``v_mfma_*`` when the
    kernel has any, else the fp32 FMA family (bf16 / fp32 kernels; a few FMAs of integer-division sequences
    sit outside the loops). The main loop is the innermost loop that holds more than half of the
    tile-product instructions and contains an ``s_barrier``: the tile loop whose iteration is fenced by
    ``__syncthreads`` because it refills LDS. Per kind (``MAIN_LOOP_DEPTH``):
      fwd        the K/V tile loop (depth 2), inside the grid-stride loop (depth 1); the product loops
                 S = Q.K^T and O += P.V (depth 3) have no barrier.
      bwd_dkdv   the query-tile loop (depth 3), nested in the GQA head loop (depth 2) inside the grid-stride
                 loop; it reloads Q and dO (copy_rows_to_lds) and holds the S, dP, dV and dK products (depth 4,
                 no barrier). The head loop holds the same products but is outer.
      bwd_dq     the K/V tile loop (depth 2), inside the grid-stride loop; it reloads K and V and holds the
                 S, dP and dQ products.
    For kernels without barriers (small fixtures) it is the innermost loop holding more than half of the
    products. Counts are static instruction counts over the loop's blocks, inner loops included, reported
    next to the whole-kernel counts (``main loop/whole kernel``).

Occupancy (waves per SIMD; AMD "Vega" 7nm ISA Reference Guide, chapter "Kernel State", section "GPRs and
LDS": VGPRs are allocated per wave in groups of 4 on gfx906; LLVM ``AMDGPU::IsaInfo`` gives the same
granules and wave limits per target, table ``ARCHS`` below)
    from VGPRs   min(max_waves, floor(vgpr_file / round_up(vgprs, granule)))
                 gfx906/gfx908: file 256, granule 4, max 10; gfx90a/gfx942: unified file 512, granule 8, max 8
    from LDS     floor(floor(lds_per_cu / lds_bytes_per_block) * waves_per_block / simds_per_cu), capped at
                 max_waves; waves_per_block = threads / wave size (from the metadata)
    occupancy    the smaller of the two. ``waves_per_simd`` of each config (ck_configs/fmha_fwd.toml,
                 fmha_bwd.toml) is what the kernel asks the compiler for (``RF_LAUNCH_BOUNDS`` ->
                 ``amdgpu_waves_per_eu``) and is checked against the gfx906 value of the aligned instance.

LDS bank conflicts (AMD "Vega" 7nm ISA Reference Guide, chapter "Data Share Operations": 64 KiB LDS per CU in
32 banks of 4-byte dwords)
    The byte address of every lane for each main-loop LDS read comes from the probe, i.e. from the kernel's
    own address arithmetic (the ``*_read`` functions of the shape types; read kinds in
    :data:`rocflash._probe.READ_KINDS`):
      fwd        q, k (S = Q.K^T), p, v (O += P.V; V in row pairs)                        hip_src/fmha_tile.h
      bwd_dkdv   q, k (S), do, v (dP = dO.V^T), pt, do_col (dV += P^T.dO), dst, q_col (dK += dS^T.Q)
      bwd_dq     q, k (S), do, v (dP), ds, k_col (dQ += dS.K)                          hip_src/fmha_bwd_tile.h
    An access of W bytes per lane is served in groups of 128 / W consecutive lanes (LDS delivers 128 bytes
    per clock); within a group the degree is the largest number of distinct dwords that fall into one bank
    (the same dword read by several lanes is a broadcast and costs nothing). A read kind's degree is the
    maximum over every wave of the block and every loop index; 1 = conflict-free. It is reported for the
    config and for the same config with ``lds_pad_bytes = 0``. NVIDIA shared memory has the same 32 x 4-byte
    banks; the same model is used there.
    Which reads the design claims conflict-free on the padded layout (``CONFLICT_FREE_READS``, the
    invariant): every read kind of every kernel. The row reads (q, do, k, v: 16 bytes, one row per lane at a
    stride of row_bytes) are conflict-free only because of the padding (unpadded, the rows of K and V start
    in one bank: degree 4 to 8); the transposed P^T / dS^T reads (pt, dst) and the dS reads (ds) are one row
    per row group, i.e. a broadcast to the 8 lanes of a 128-byte group, and the column reads of the products
    (do_col, q_col, k_col: consecutive columns of one row across the lanes) are contiguous; those stay
    conflict-free without padding, and the report shows it. LDS *writes* (global -> LDS staging, the
    transposed P^T / dS^T stores) are not modelled.

What this cannot show: timing (latency, issue rate, achieved bandwidth) and correctness on silicon.

This module imports neither torch nor numpy (importing the rocflash package does import torch). Besides the
compilers it needs PyYAML (metadata) and networkx (control-flow graph), plus the host C++ compiler for the probe.
"""

from __future__ import annotations

import argparse
import collections
import concurrent.futures
import dataclasses
import datetime
import functools
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Sequence

from . import codegen
from .build import BuildError, device_compile_flags, find_hipcc, find_nvcc, find_tool
from .configs import KINDS, hip_src_dir, load_configs

if TYPE_CHECKING:
    from .configs import TileConfig

# ----------------------------------------------------------------------------------------------- arch facts

GFX9_WAVE_SIZE = 64  # every gfx9 target runs wave64 (ISA guide, chapter "Program Organization")
NVIDIA_WARP_SIZE = 32


@dataclasses.dataclass(frozen=True)
class ArchInfo:
    """Per-target facts the audit needs. Units: registers per lane, bytes, waves."""

    name: str
    vendor: str  # "amd" | "nvidia"
    wave_size: int  # expected wavefront / warp size
    simds_per_cu: int = 4
    vgpr_file: int = 256  # VGPRs per lane of one SIMD available to its waves (gfx90a+: unified VGPR+AGPR file)
    vgpr_granule: int = 4  # allocation granule of .vgpr_count
    max_waves_per_simd: int = 10
    lds_per_cu: int = 65536  # bytes of LDS per CU, also the most one block may use
    lds_banks: int = 32
    lds_bank_bytes: int = 4
    lds_bytes_per_clock: int = 128


ARCHS: dict[str, ArchInfo] = {
    "gfx906": ArchInfo("gfx906", "amd", GFX9_WAVE_SIZE),
    "gfx908": ArchInfo("gfx908", "amd", GFX9_WAVE_SIZE),  # AGPRs are a second 256-entry file here
    "gfx90a": ArchInfo("gfx90a", "amd", GFX9_WAVE_SIZE, vgpr_file=512, vgpr_granule=8, max_waves_per_simd=8),
    "gfx942": ArchInfo("gfx942", "amd", GFX9_WAVE_SIZE, vgpr_file=512, vgpr_granule=8, max_waves_per_simd=8),
    # RDNA2, wave32 by default: not a rocflash target; the tests compile a fixture for it to show the gfx9
    # wave64 check firing. CU mode: 2 SIMD32 per CU, 1024 VGPRs per lane in wave32, granule 8, 16 waves.
    "gfx1030": ArchInfo("gfx1030", "amd", 32, simds_per_cu=2, vgpr_file=1024, vgpr_granule=8, max_waves_per_simd=16),
    "sm_80": ArchInfo("sm_80", "nvidia", NVIDIA_WARP_SIZE, lds_per_cu=164 * 1024),
    "sm_90": ArchInfo("sm_90", "nvidia", NVIDIA_WARP_SIZE, lds_per_cu=228 * 1024),
}
AMD_AUDIT_ARCHS = ("gfx906", "gfx908", "gfx90a", "gfx942")
NVIDIA_AUDIT_ARCHS = ("sm_80", "sm_90")
DEFAULT_ARCHS = AMD_AUDIT_ARCHS + NVIDIA_AUDIT_ARCHS
# Archs the Debian hipcc (clang-15) compiles; newer ones go through clang-19.
HIPCC_ARCHS = ("gfx906", "gfx908", "gfx90a", "gfx1030")
# The ISA-version bitcode linked for each arch compiled with -nogpulib (see module docstring).
ISA_VERSION_BITCODE = {"gfx942": ("942", "940")}
DEVICE_LIBS = ("hip", "ocml", "ockl", "oclc_daz_opt_off", "oclc_unsafe_math_off", "oclc_finite_only_off",
               "oclc_correctly_rounded_sqrt_on", "oclc_wavefrontsize64_on", "oclc_abi_version_500")

MAIN_LOOP_SHARE = 0.5  # the main loop holds more than this share of the tile-product instructions

# Kernel kinds: the three tiled kernels (rocflash.configs.KINDS, one config table each) and the backward's
# element-wise preprocess kernel, which lives in hip_src/fmha_api.hip (no tile, no config).
TILED_KINDS: tuple[str, ...] = tuple(KINDS)  # ("fwd", "bwd_dkdv", "bwd_dq")
PREPROCESS_KIND = "bwd_preprocess"
AUDIT_KINDS = (*TILED_KINDS, PREPROCESS_KIND)
API_SOURCE = "fmha_api.hip"  # in hip_src/
# Loop depth of each tiled kind's main loop (see "Main-loop detection"; tests/test_isa.py checks it).
MAIN_LOOP_DEPTH = {"fwd": 2, "bwd_dkdv": 3, "bwd_dq": 2, "fwd_splitkv": 2}
# The main-loop LDS reads each kernel's design claims conflict-free on its padded layout: all of them (see
# "LDS bank conflicts"). check_bank_conflicts checks exactly these; the others would only be reported.
CONFLICT_FREE_READS = {
    "fwd": ("q", "k", "p", "v"),
    "bwd_dkdv": ("q", "do", "k", "v", "pt", "dst", "do_col", "q_col"),
    "bwd_dq": ("q", "do", "k", "v", "ds", "k_col"),
    "fwd_splitkv": (),  # no LDS reads in its main loop (K/V rows go global -> registers)
}
# Kernel symbol of each tiled kind, for instance files that hold more than one kernel (the split-KV instance
# also instantiates its combine kernel).
KIND_KERNEL = {"fwd_splitkv": "fmha_fwd_splitkv_kernel"}
# Kinds whose main loop has no barrier: the split-KV key loop streams K/V through registers (its LDS merge,
# after the loop, is what synchronises).
UNSYNCED_MAIN_LOOP = ("fwd_splitkv",)
# Load paths audited per arch. "both": aligned and narrow everywhere; "split" (the default): narrow only on
# these archs, aligned everywhere (see "What is compiled").
PATH_CHOICES = ("split", "both", "aligned")
NARROW_ARCHS = ("gfx906", "sm_90")

# ------------------------------------------------------------------------------------ instruction classes


def _base(mnemonic: str) -> str:
    """Mnemonic without its encoding suffix: v_dot2c_f32_f16_e32 -> v_dot2c_f32_f16."""
    return re.sub(r"_(e32|e64|sdwa|dpp|vop3)$", "", mnemonic)


_FMA = {"v_fma_f32", "v_fmac_f32", "v_mac_f32", "v_mad_f32", "v_fma_mix_f32", "v_mad_mix_f32", "v_pk_fma_f32"}
_GLOBAL_LOAD = re.compile(r"^(global|flat)_load_")
_B128_LOAD = {"global_load_dwordx4", "flat_load_dwordx4"}
_DS64 = ("ds_read_b64", "ds_load_b64", "ds_read2_b64", "ds_read2st64_b64", "ds_load_2addr_b64")

# name -> predicate on the base mnemonic. Counted in the main loop and in the whole kernel.
COUNTERS: dict[str, Callable[[str], bool]] = {
    "global_load_b128": lambda m: m in _B128_LOAD,
    "global_load_narrow": lambda m: bool(_GLOBAL_LOAD.match(m)) and m not in _B128_LOAD,
    "ds_read_b128": lambda m: m in ("ds_read_b128", "ds_load_b128"),
    # ds_read2_b64 is one instruction doing two 64-bit reads (the compiler pairs ds_read_b64 into it)
    "ds_read_b64": lambda m: m in _DS64,
    "ds_read_other": lambda m: (m.startswith("ds_read") or m.startswith("ds_load"))
    and m not in ("ds_read_b128", "ds_load_b128", *_DS64),
    "dot2": lambda m: m in ("v_dot2_f32_f16", "v_dot2c_f32_f16"),
    "mfma": lambda m: m.startswith("v_mfma_"),
    "fma": lambda m: m in _FMA,
    "exp": lambda m: m == "v_exp_f32",
    "waitcnt": lambda m: m.startswith("s_waitcnt"),
    "barrier": lambda m: m == "s_barrier",
    "lane_moves": lambda m: m in ("v_readlane_b32", "v_writelane_b32"),  # SGPR spills live in VGPR lanes
    "accvgpr_moves": lambda m: m.startswith("v_accvgpr_"),  # gfx90a+: AGPRs used as extra VGPR storage
    "scratch_ops": lambda m: m.startswith("scratch_"),
    "calls": lambda m: m in ("s_swappc_b64", "s_call_b64"),
}


# ----------------------------------------------------------------------------------------- data classes


@dataclasses.dataclass
class Loop:
    """One loop (cycle) of the kernel's control-flow graph (see "Main-loop detection")."""

    header: str  # label of the entry block; "A|B" for a loop with several entries (irreducible control flow)
    depth: int  # 1 = outermost (the grid-stride loop of the forward kernel)
    blocks: tuple[int, ...]  # basic-block indices of the loop body, inner loops included
    instructions: tuple[int, ...]  # instruction indices of the loop body, ascending

    def summary(self) -> dict:
        return {"header": self.header, "depth": self.depth, "blocks": len(self.blocks),
                "instructions": len(self.instructions)}


@dataclasses.dataclass
class KernelAudit:
    """Everything the audit knows about one kernel on one arch. Bytes, registers per lane, waves per SIMD."""

    symbol: str  # mangled name, as in the code object
    arch: str
    vendor: str
    name: str = ""  # readable name: codegen's instance name, else the demangled symbol
    kind: str | None = None  # AUDIT_KINDS ("fwd", "bwd_dkdv", "bwd_dq", "bwd_preprocess"); None: another kernel
    dtype: str | None = None
    headdim: int | None = None
    aligned: bool | None = None  # True: 128-bit load path, False: narrow path, None: not a tiled kernel
    tile: dict | None = None  # TileShape fields (kind included), when the symbol names a tile (parse_tile_symbol)
    wave_size: int | None = None
    threads: int | None = None
    vgprs: int | None = None
    sgprs: int | None = None
    agprs: int | None = None
    lds_static: int = 0
    lds_dynamic: int = 0
    scratch_bytes: int = 0
    vgpr_spill_count: int = 0
    sgpr_spill_count: int = 0
    spill_ops: int = 0  # instructions LLVM annotates as spill / reload, plus scratch_* instructions
    uses_dynamic_stack: bool = False
    llvm_occupancy: int | None = None
    waves_per_simd_vgpr: int | None = None
    waves_per_simd_lds: int | None = None
    waves_per_simd: int | None = None
    # NVIDIA (ptxas -v)
    registers: int | None = None
    spill_store_bytes: int = 0
    spill_load_bytes: int = 0
    stack_frame_bytes: int = 0
    # instruction counts (AMD)
    main_loop: Loop | None = None
    loop_counts: dict = dataclasses.field(default_factory=dict)
    kernel_counts: dict = dataclasses.field(default_factory=dict)
    # LDS bank-conflict degree per read kind (rocflash._probe.READ_KINDS[kind]), as configured and unpadded
    bank_conflicts: dict | None = None
    bank_conflicts_unpadded: dict | None = None
    source: str = ""  # the compiled file the numbers come from

    @property
    def lds_total(self) -> int:
        return self.lds_static + self.lds_dynamic

    def to_json(self) -> dict:
        d = dataclasses.asdict(self)
        d["lds_total"] = self.lds_total
        d["main_loop"] = self.main_loop.summary() if self.main_loop else None
        return d


# ------------------------------------------------------------------------------- AMDGPU assembly parsing

_LABEL = re.compile(r"^([.$A-Za-z_][\w.$]*):")
_METADATA = re.compile(r"^\s*\.amdgpu_metadata\s*$(.*?)^\s*\.end_amdgpu_metadata", re.M | re.S)
_TARGET = re.compile(r'\.amdgcn_target\s+"amdgcn-amd-amdhsa--(gfx[0-9a-f]+)')


def parse_amdgpu_metadata(text: str) -> dict:
    """The ``.amdgpu_metadata`` YAML block of an assembly file as a dict (``amdhsa.kernels`` etc.)."""
    import yaml  # PyYAML: the code object metadata is YAML (LLVM AMDGPUUsage, "Code Object V3+ Metadata")

    m = _METADATA.search(text)
    if not m:
        raise ValueError("text must contain an .amdgpu_metadata block (AMDGPU assembly from clang -S), found none")
    return yaml.safe_load(m.group(1)) or {}


def kernel_instructions(text: str, symbol: str) -> tuple[list[tuple[str, str, str]], dict[str, int]]:
    """Instructions of one kernel as (mnemonic, operands, comment) and its labels -> instruction index."""
    lines = text.splitlines()
    try:
        start = next(i for i, ln in enumerate(lines) if ln.startswith(symbol + ":"))
    except StopIteration:
        raise ValueError(f"kernel must have a code label in the assembly, found none for {symbol!r}") from None
    instrs: list[tuple[str, str, str]] = []
    labels: dict[str, int] = {}
    for ln in lines[start + 1:]:
        if re.match(r"^\.Lfunc_end\d+:", ln) or ln.startswith(".end_amdhsa_kernel") or ln.startswith("\t.size"):
            break
        lab = _LABEL.match(ln)
        if lab:
            labels[lab.group(1)] = len(instrs)
            continue
        code, _, comment = ln.partition(";")
        code = code.split("//")[0].strip()
        if not code or code.startswith("."):
            continue
        mnemonic, *operands = code.split(None, 1)
        instrs.append((mnemonic, operands[0].strip() if operands else "", comment))
    return instrs, labels


_TERMINATORS = ("s_endpgm", "s_setpc_b64", "s_endpgm_saved")


def _is_branch(mnemonic: str) -> bool:
    return mnemonic == "s_branch" or mnemonic.startswith("s_cbranch_")


def control_flow_graph(instrs: Sequence[tuple[str, str, str]], labels: dict[str, int]):
    """(graph, block starts, label -> block): basic blocks of the instruction stream as a networkx DiGraph.

    A block starts at instruction 0, at every label and after every branch / terminator. Edges:
    ``s_branch L`` -> L; ``s_cbranch_* L`` -> L and the next block; ``s_endpgm`` -> none; others fall through.
    """
    import networkx as nx  # well-kept graph library (a torch dependency)

    starts = sorted({0, *(i for i in labels.values() if i < len(instrs)),
                     *(i + 1 for i, (m, _, _) in enumerate(instrs)
                       if (_is_branch(m) or m in _TERMINATORS) and i + 1 < len(instrs))})
    block_of_start = {s: b for b, s in enumerate(starts)}
    label_block = {lab: block_of_start[i] for lab, i in labels.items() if i in block_of_start}
    g = nx.DiGraph()
    g.add_nodes_from(range(len(starts)))
    for b, s in enumerate(starts):
        last = (starts[b + 1] if b + 1 < len(starts) else len(instrs)) - 1
        mnemonic, operands, _ = instrs[last]
        target = operands.split(",")[0].strip()
        if _is_branch(mnemonic) and target in label_block:
            g.add_edge(b, label_block[target])
        if mnemonic != "s_branch" and mnemonic not in _TERMINATORS and b + 1 < len(starts):
            g.add_edge(b, b + 1)
    return g, starts, label_block


def find_loops(instrs: Sequence[tuple[str, str, str]], labels: dict[str, int]) -> list[Loop]:
    """The loop nesting forest of the kernel's control-flow graph (Steensgaard's construction, which also
    covers irreducible cycles): every strongly connected component with a cycle is a loop; its entries are
    the blocks with a predecessor outside it; removing the edges from inside the loop to its entries and
    repeating on the loop's blocks gives the loops nested in it. Outermost first."""
    import networkx as nx

    if not instrs:
        return []
    g, starts, label_block = control_flow_graph(instrs, labels)
    block_label = {b: lab for lab, b in label_block.items()}
    loops: list[Loop] = []

    def nest(sub, depth: int) -> None:
        for scc in nx.strongly_connected_components(sub):
            if len(scc) == 1 and not sub.has_edge(next(iter(scc)), next(iter(scc))):
                continue  # a block that is not on a cycle
            entries = sorted(n for n in scc if any(p not in scc for p in g.predecessors(n))) or [min(scc)]
            ranges = [range(starts[b], starts[b + 1] if b + 1 < len(starts) else len(instrs)) for b in sorted(scc)]
            loops.append(Loop("|".join(block_label.get(e, f"block{e}") for e in entries), depth,
                              tuple(sorted(scc)), tuple(i for r in ranges for i in r)))
            inner = sub.subgraph(scc).copy()
            inner.remove_edges_from([(u, e) for e in entries for u in list(inner.predecessors(e))])
            nest(inner, depth + 1)

    nest(g, 1)
    return sorted(loops, key=lambda lp: (lp.depth, lp.instructions[0]))


def product_positions(instrs: Sequence[tuple[str, str, str]]) -> list[int]:
    """Indices of the tile-product instructions: dot2 / MFMA when present, else the fp32 FMA family."""
    bases = [_base(m) for m, _, _ in instrs]
    packed = [i for i, m in enumerate(bases) if COUNTERS["dot2"](m) or COUNTERS["mfma"](m)]
    return packed or [i for i, m in enumerate(bases) if COUNTERS["fma"](m)]


def find_main_loop(instrs: Sequence[tuple[str, str, str]], labels: dict[str, int], synced: bool = True) -> Loop | None:
    """The innermost loop that holds more than MAIN_LOOP_SHARE of the tile-product instructions and contains
    an ``s_barrier``; without such a loop (kernels that never synchronise), or with ``synced=False`` (kinds in
    UNSYNCED_MAIN_LOOP), the innermost loop holding more than MAIN_LOOP_SHARE of them. See "Main-loop
    detection" in the module docstring."""
    products = product_positions(instrs)
    if not products:
        return None
    holding = []
    for lp in find_loops(instrs, labels):
        inside = set(lp.instructions)
        if sum(i in inside for i in products) > MAIN_LOOP_SHARE * len(products):
            barrier = any(instrs[i][0] == "s_barrier" for i in lp.instructions)
            holding.append((barrier, lp))
    fenced = [lp for barrier, lp in holding if barrier] if synced else []
    candidates = fenced or [lp for _, lp in holding]
    return max(candidates, key=lambda lp: (lp.depth, -len(lp.instructions))) if candidates else None


_SPILL_COMMENT = re.compile(r"\b(Spill|Reload)\b")


@functools.lru_cache(maxsize=None)
def _categories(mnemonic: str) -> tuple[str, ...]:
    """The COUNTERS names a mnemonic belongs to."""
    m = _base(mnemonic)
    return tuple(name for name, pred in COUNTERS.items() if pred(m))


def count_instructions(instrs: Sequence[tuple[str, str, str]], loop: Loop | None = None) -> dict[str, int]:
    """COUNTERS over the instructions (of ``loop`` when given), plus ``spill_ops`` and ``instructions``."""
    chosen = instrs if loop is None else [instrs[i] for i in loop.instructions]
    counts = {name: 0 for name in COUNTERS}
    counts["spill_ops"] = 0
    for mnemonic, _, comment in chosen:
        for name in _categories(mnemonic):
            counts[name] += 1
        # LLVM annotates stack-slot accesses ("4-byte Folded Spill" / "Reload"); scratch_* only address scratch
        if "scratch_ops" in _categories(mnemonic) or _SPILL_COMMENT.search(comment):
            counts["spill_ops"] += 1
    counts["instructions"] = len(chosen)
    return counts


def llvm_loop_headers(text: str) -> dict[str, int]:
    """Loop headers as LLVM's verbose assembly annotates them (``.LBB0_42: ... => This Loop Header: Depth=2``):
    {label: depth}. An independent cross-check of :func:`find_loops` (tests/test_isa.py)."""
    out = {}
    lines = text.splitlines()
    for i, ln in enumerate(lines):
        lab = _LABEL.match(ln)
        if not lab:
            continue
        for follow in [ln, *lines[i + 1:i + 4]]:
            m = re.search(r"=>\s*This (?:Inner )?Loop Header: Depth=(\d+)", follow)
            if m:
                out[lab.group(1)] = int(m.group(1))
                break
            if follow is not ln and not follow.lstrip().startswith(";"):
                break
    return out


def occupancy_amd(arch: ArchInfo, vgprs: int, threads: int, wave_size: int, lds_bytes: int) -> tuple[int, int, int]:
    """(waves/SIMD from VGPRs, from LDS, min of both); formulas in the module docstring."""
    rounded = -(-max(vgprs, 1) // arch.vgpr_granule) * arch.vgpr_granule
    from_vgpr = min(arch.max_waves_per_simd, arch.vgpr_file // rounded)
    waves_per_block = -(-threads // wave_size)
    if lds_bytes <= 0:
        from_lds = arch.max_waves_per_simd
    else:
        blocks = arch.lds_per_cu // lds_bytes
        from_lds = min(arch.max_waves_per_simd, blocks * waves_per_block // arch.simds_per_cu)
    return from_vgpr, from_lds, min(from_vgpr, from_lds)


_TILE = re.compile(r"Tile_(?:(?P<kind>bwd_dkdv|bwd_dq|fwd_splitkv)_)?(?P<target>[A-Za-z0-9]+)_(?P<dtype>fp16|bf16|fp32)"
                   r"_d(?P<headdim>\d+)_b(?P<block_m>\d+)x(?P<block_n>\d+)_t(?P<threads>\d+)x(?P<threads_n>\d+)"
                   r"_p(?P<lds_pad_bytes>\d+)")
_PREPROCESS = re.compile(r"fmha_bwd_preprocess_kernel(?:I|<)(?:NS_|rf::)?\d*(?P<elem>Fp16|Bf16|Fp32)")
_ELEM_BYTES = {"fp16": 2, "bf16": 2, "fp32": 4}


def parse_tile_symbol(symbol: str) -> tuple[str, dict, bool] | None:
    """(dtype, TileShape fields, aligned) from a kernel symbol that names its tile, e.g. (mangled)
    ``..._38Tile_gfx9_fp16_d128_b64x64_t256x16_p16ELb1EE...``, ``..._47Tile_bwd_dkdv_gfx9_fp16_...`` or
    (demangled) ``rf::Tile_..., true>``; None for other kernels. The shape fields include ``kind`` ("fwd",
    "bwd_dkdv", "bwd_dq": the tile type's prefix, codegen's ``TileConfig.struct_name``)."""
    m = _TILE.search(symbol)
    if not m:
        return None
    tail = symbol[m.end():]
    aligned_m = re.match(r"E?Lb([01])E", tail) or re.match(r"\s*,\s*(true|false)", tail)
    aligned = aligned_m is not None and aligned_m.group(1) in ("1", "true")
    shape: dict = {k: int(v) for k, v in m.groupdict().items() if k not in ("kind", "target", "dtype")}
    shape["elem_bytes"] = _ELEM_BYTES[m.group("dtype")]
    shape["kind"] = m.group("kind") or "fwd"
    return m.group("dtype"), shape, aligned


def parse_preprocess_symbol(symbol: str) -> str | None:
    """The dtype of a ``rf::fmha_bwd_preprocess_kernel<E, ...>`` symbol (mangled or demangled), else None."""
    m = _PREPROCESS.search(symbol)
    return m.group("elem").lower() if m else None


def demangle(symbol: str) -> str:
    """Readable C++ name through ``c++filt`` (binutils) or ``llvm-cxxfilt``; the symbol itself if neither exists."""
    for tool in ("c++filt", "llvm-cxxfilt", "llvm-cxxfilt-19"):
        if shutil.which(tool):
            out = subprocess.run([tool, symbol], capture_output=True, text=True)
            if out.returncode == 0 and out.stdout.strip():
                return out.stdout.strip()
    return symbol


def audit_asm(text: str, kernel: str | None = None, arch: str | None = None, tile: dict | None = None,
              dynamic_lds: int | None = None, conflicts: bool = True) -> KernelAudit:
    """Audit one kernel of an AMDGPU assembly file (``clang -S`` output).

    kernel: the kernel symbol or a substring of it; may be None when the file holds one kernel.
    arch: taken from ``.amdgcn_target`` when None.
    tile: TileShape fields (kind included); by default parsed from the symbol (:func:`parse_tile_symbol`), so
        any instance of a tiled kernel (including the test fixtures) gets its dynamic LDS and bank-conflict
        degrees. dynamic_lds: bytes the launcher adds; default lds_bytes() of the tile's shape type, else 0.
    conflicts: compute the bank-conflict degrees through the probe (needs the host C++ compiler).
    """
    # Step 1: which kernel, which arch
    meta = parse_amdgpu_metadata(text)
    kernels = meta.get("amdhsa.kernels") or []
    matching = [k for k in kernels if kernel is None or kernel == k[".name"] or kernel in k[".name"]]
    if len(matching) != 1:
        names = [k[".name"] for k in kernels]
        raise ValueError(f"kernel must select exactly one of {names}, got {kernel!r} ({len(matching)} matches)")
    km = matching[0]
    if arch is None:
        t = _TARGET.search(text)
        if not t:
            raise ValueError("arch must be given when the assembly has no .amdgcn_target directive")
        arch = t.group(1)
    if arch not in ARCHS:
        raise ValueError(f"arch must be one of {sorted(ARCHS)}, got {arch!r}")
    info = ARCHS[arch]
    symbol = km[".name"]

    # Step 2: resources from the metadata
    a = KernelAudit(symbol=symbol, arch=arch, vendor="amd", name=demangle(symbol))
    a.wave_size = int(km[".wavefront_size"])
    a.vgprs, a.sgprs = int(km[".vgpr_count"]), int(km[".sgpr_count"])
    a.agprs = int(km[".agpr_count"]) if ".agpr_count" in km else None
    a.lds_static = int(km.get(".group_segment_fixed_size", 0))
    a.scratch_bytes = int(km.get(".private_segment_fixed_size", 0))
    a.vgpr_spill_count = int(km.get(".vgpr_spill_count", 0))
    a.sgpr_spill_count = int(km.get(".sgpr_spill_count", 0))
    a.uses_dynamic_stack = bool(km.get(".uses_dynamic_stack", False))
    a.threads = int(km.get(".max_flat_workgroup_size", 0)) or None

    # Step 3: the tile this kernel instantiates (dynamic LDS, threads, conflicts)
    _attach_tile(a, tile, info, dynamic_lds, conflicts)

    # Step 4: LLVM's occupancy comment belongs to the function whose "Kernel info" block follows its code
    code_start = text.find(symbol + ":")
    occ = re.compile(r"; Occupancy: (\d+)").search(text, code_start if code_start >= 0 else 0)
    a.llvm_occupancy = int(occ.group(1)) if occ else None
    a.waves_per_simd_vgpr, a.waves_per_simd_lds, a.waves_per_simd = occupancy_amd(
        info, a.vgprs, a.threads or a.wave_size, a.wave_size, a.lds_total)

    # Step 5: instruction stream, main loop, counts
    instrs, labels = kernel_instructions(text, symbol)
    a.main_loop = find_main_loop(instrs, labels, synced=a.kind not in UNSYNCED_MAIN_LOOP)
    a.kernel_counts = count_instructions(instrs)
    a.loop_counts = count_instructions(instrs, a.main_loop) if a.main_loop else {}
    a.spill_ops = a.kernel_counts["spill_ops"]
    return a


# ------------------------------------------------------------------------------------------ ptxas report

_PTXAS_ENTRY = re.compile(r"Compiling entry function '([^']+)' for '(sm_\w+)'")
_PTXAS_FRAME = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
_PTXAS_USED = re.compile(r"Used (\d+) registers(.*)")


def parse_ptxas(text: str) -> dict[str, dict]:
    """``ptxas -v`` report -> {symbol: {arch, registers, stack_frame, spill_stores, spill_loads, smem}}."""
    out: dict[str, dict] = {}
    current = None
    for ln in text.splitlines():
        if m := _PTXAS_ENTRY.search(ln):
            current = out.setdefault(m.group(1), {"arch": m.group(2), "smem": 0})
        elif current is not None and (m := _PTXAS_FRAME.search(ln)):
            current.update(stack_frame=int(m.group(1)), spill_stores=int(m.group(2)), spill_loads=int(m.group(3)))
        elif current is not None and (m := _PTXAS_USED.search(ln)):
            current["registers"] = int(m.group(1))
            smem = re.search(r"(\d+) bytes smem", m.group(2))
            current["smem"] = int(smem.group(1)) if smem else 0
    return out


def audit_ptxas(text: str, kernel: str | None = None, tile: dict | None = None, conflicts: bool = True) -> KernelAudit:
    """Audit one kernel of a ``ptxas -v`` report (registers, spills, stack, shared memory, conflicts)."""
    report = parse_ptxas(text)
    matching = [s for s in report if kernel is None or kernel == s or kernel in s]
    if len(matching) != 1:
        raise ValueError(f"kernel must select exactly one of {sorted(report)}, got {kernel!r} "
                         f"({len(matching)} matches)")
    symbol = matching[0]
    r = report[symbol]
    arch = r["arch"]
    info = ARCHS.get(arch, ArchInfo(arch, "nvidia", NVIDIA_WARP_SIZE))
    a = KernelAudit(symbol=symbol, arch=arch, vendor="nvidia", name=demangle(symbol), wave_size=info.wave_size)
    a.registers = r.get("registers")
    a.stack_frame_bytes, a.spill_store_bytes, a.spill_load_bytes = (
        r.get("stack_frame", 0), r.get("spill_stores", 0), r.get("spill_loads", 0))
    a.lds_static = r.get("smem", 0)
    _attach_tile(a, tile, info, None, conflicts)
    return a


def _attach_tile(a: KernelAudit, tile: dict | None, info: ArchInfo, dynamic_lds: int | None, conflicts: bool) -> None:
    """Fill kind / dtype / load path / tile, the launcher's dynamic LDS and the bank-conflict degrees of ``a``,
    from ``tile`` or else from the tile its symbol names (tiled kernels, test fixtures)."""
    parsed = parse_tile_symbol(a.symbol)
    if parsed:
        a.dtype, parsed_tile, a.aligned = parsed
        tile = tile or parsed_tile
    elif (dtype := parse_preprocess_symbol(a.symbol)) is not None:
        a.kind, a.dtype = PREPROCESS_KIND, dtype
    if not tile:
        a.lds_dynamic = dynamic_lds or 0
        return
    from ._probe import Probe, TileShape

    shape = TileShape(**tile)
    a.kind = shape.kind
    a.tile, a.headdim, a.threads = dataclasses.asdict(shape), shape.headdim, shape.threads
    a.lds_dynamic = Probe.load().lds_bytes(shape) if dynamic_lds is None else dynamic_lds
    if conflicts:
        a.bank_conflicts = tile_bank_conflicts(shape, info, a.wave_size)
        a.bank_conflicts_unpadded = tile_bank_conflicts(dataclasses.replace(shape, lds_pad_bytes=0), info, a.wave_size)


# ---------------------------------------------------------------------------------------- bank conflicts


def lds_conflict_degree(addresses: Sequence[int], width_bytes: int, banks: int = 32, bank_bytes: int = 4,
                        bytes_per_clock: int = 128) -> int:
    """Conflict degree of one LDS access (the model of the module docstring): lanes served in groups of
    bytes_per_clock / width_bytes; per group, the most distinct dwords mapping to one bank. 1 = conflict-free."""
    if width_bytes <= 0 or width_bytes % bank_bytes:
        raise ValueError(f"width_bytes must be a positive multiple of bank_bytes={bank_bytes}, got {width_bytes}")
    lanes = max(1, bytes_per_clock // width_bytes)
    worst = 1
    for g in range(0, len(addresses), lanes):
        per_bank: dict[int, set[int]] = collections.defaultdict(set)
        for addr in addresses[g:g + lanes]:
            first = addr // bank_bytes
            for dword in range(first, first + width_bytes // bank_bytes):
                per_bank[dword % banks].add(dword)
        worst = max(worst, max(len(s) for s in per_bank.values()))
    return worst


def tile_bank_conflicts(shape, arch: ArchInfo, wave_size: int) -> dict[str, int]:
    """Worst conflict degree of each main-loop LDS read kind of the shape's kernel (``shape.read_kinds``:
    q, k, p, v for the forward; see :data:`rocflash._probe.READ_KINDS`) over all waves and loop indices."""
    from ._probe import Probe

    probe = Probe.load()
    out = {}
    for kind in shape.read_kinds:
        n_a, n_b, width = probe.read_extent(shape, kind)
        worst = 1
        for tid0 in range(0, shape.threads, wave_size):
            for ia in range(n_a):
                for ib in range(n_b):
                    addrs = probe.lane_addresses(shape, kind, ia, ib, tid0, min(wave_size, shape.threads - tid0))
                    worst = max(worst, lds_conflict_degree(addrs, width, arch.lds_banks, arch.lds_bank_bytes,
                                                           arch.lds_bytes_per_clock))
        out[kind] = worst
    return out


# ------------------------------------------------------------------------------------------------ checks
# Each returns a list of violations (empty = passes). tests/test_isa.py runs them on the real kernels and on
# the deliberately bad fixtures of tests/fixtures/, which must be flagged.


def check_wave_size(a: KernelAudit, expected: int | None = None) -> list[str]:
    """The wavefront size from the metadata equals ``expected`` (default: the arch's, 64 on gfx9)."""
    want = expected if expected is not None else ARCHS[a.arch].wave_size
    if a.vendor == "amd" and a.wave_size != want:
        return [f"{a.name} [{a.arch}]: wavefront_size must be {want}, got {a.wave_size}"]
    return []


def check_no_spills(a: KernelAudit) -> list[str]:
    """AMD: no scratch, no VGPR spills, no spill/scratch instructions, no calls or dynamic stack (SGPR spills
    into VGPR lanes are reported, not checked: they move no memory). NVIDIA: no spill bytes (the stack frame
    is reported, not checked)."""
    v = []
    if a.vendor == "nvidia":
        if a.spill_store_bytes or a.spill_load_bytes:
            v.append(f"{a.name} [{a.arch}]: spill bytes must be 0, got {a.spill_store_bytes} stored / "
                     f"{a.spill_load_bytes} loaded")
        return v
    if a.scratch_bytes:
        v.append(f"{a.name} [{a.arch}]: scratch (private_segment_fixed_size) must be 0, got {a.scratch_bytes} bytes")
    if a.vgpr_spill_count:
        where = " (into AGPRs: no scratch)" if not a.scratch_bytes and a.kernel_counts.get("accvgpr_moves") else ""
        v.append(f"{a.name} [{a.arch}]: vgpr_spill_count must be 0, got {a.vgpr_spill_count}{where}")
    if a.spill_ops:
        v.append(f"{a.name} [{a.arch}]: spill/scratch instructions must be 0, got {a.spill_ops}")
    calls = a.kernel_counts.get("calls", 0)
    if calls or a.uses_dynamic_stack:
        v.append(f"{a.name} [{a.arch}]: calls must be 0 (no dynamic stack), got {calls} calls")
    return v


def check_lds_limit(a: KernelAudit) -> list[str]:
    limit = ARCHS[a.arch].lds_per_cu
    if a.vendor == "amd" and a.lds_total > limit:
        return [f"{a.name} [{a.arch}]: LDS per block must be <= {limit} bytes, got {a.lds_total} "
                f"({a.lds_static} static + {a.lds_dynamic} dynamic)"]
    return []


def config_source(kind: str | None) -> str:
    """Where the configs of a kernel kind live, for messages: ``ck_configs/fmha_bwd.toml [[bwd_dq]]``."""
    if kind not in TILED_KINDS:
        return "no config"
    return f"ck_configs/{'fmha_fwd.toml' if kind == 'fwd' else 'fmha_bwd.toml'} [[{kind}]]"


def check_occupancy(a: KernelAudit, expected: int) -> list[str]:
    """Achieved waves/SIMD (VGPRs and LDS, see "Occupancy") equals the config's designed ``waves_per_simd``."""
    if a.waves_per_simd != expected:
        why = ""
        if a.waves_per_simd_lds == 0:
            why = "; one block per CU by LDS holds fewer waves than the CU has SIMDs"
        return [f"{a.name} [{a.arch}]: waves_per_simd must equal the designed {expected} ({config_source(a.kind)}), "
                f"got {a.waves_per_simd} (VGPRs {a.vgprs} -> {a.waves_per_simd_vgpr}, LDS {a.lds_total} B -> "
                f"{a.waves_per_simd_lds}{why})"]
    return []


def check_vector_path(a: KernelAudit, want_dot2: bool = True) -> list[str]:
    """Aligned path: the main loop issues 128-bit global loads (the tile it refills: K/V in the forward and
    dQ kernels, Q/dO in the dK/dV kernel, through copy_rows_to_lds) and (fp16) dot2."""
    v = []
    if a.main_loop is None:
        return [f"{a.name} [{a.arch}]: main loop must be found (a loop holding the tile products), found none"]
    if a.loop_counts["global_load_b128"] == 0:
        v.append(f"{a.name} [{a.arch}]: main loop must use 128-bit global loads (global_load_dwordx4), got 0 "
                 f"(narrower loads: {a.loop_counts['global_load_narrow']})")
    if want_dot2 and a.loop_counts["dot2"] == 0:
        v.append(f"{a.name} [{a.arch}]: fp16 main loop must use v_dot2_f32_f16 / v_dot2c_f32_f16, got 0 "
                 f"(fp32 FMA: {a.loop_counts['fma']})")
    return v


def check_narrow_path(a: KernelAudit) -> list[str]:
    """Narrow path: loads narrower than 128 bits in the main loop and no global_load_dwordx4 anywhere. (In the
    backward's main loops the per-row LSE / D loads are narrow on both paths: the second half is the
    discriminating one.)"""
    v = []
    if a.kernel_counts.get("global_load_b128", 0):
        v.append(f"{a.name} [{a.arch}]: narrow path must not use global_load_dwordx4, got "
                 f"{a.kernel_counts['global_load_b128']}")
    if not a.loop_counts.get("global_load_narrow", 0):
        v.append(f"{a.name} [{a.arch}]: narrow path main loop must load through narrower global loads, got 0")
    return v


def check_bank_conflicts(a: KernelAudit) -> list[str]:
    """The main-loop LDS reads the kernel's design claims conflict-free (CONFLICT_FREE_READS of its kind) have
    degree 1 on the configured (padded) layout."""
    if a.bank_conflicts is None:
        return [f"{a.name} [{a.arch}]: bank-conflict degrees must be computed (kernel names no tile)"]
    claimed = CONFLICT_FREE_READS.get(a.kind or "fwd", ())
    return [f"{a.name} [{a.arch}]: main-loop LDS {kind}_read must be conflict-free (degree 1), got degree {d}"
            for kind, d in a.bank_conflicts.items() if kind in claimed and d != 1]


def all_checks(a: KernelAudit, configs: dict[tuple, TileConfig] | None = None) -> list[str]:
    """Every invariant that applies to ``a`` (the CI rules; the same for every tiled kind). ``configs``:
    :func:`configs_by_key`, for the gfx906 occupancy check."""
    v = check_wave_size(a) + check_no_spills(a) + check_lds_limit(a)
    if a.vendor == "amd" and a.aligned is not None:
        v += check_bank_conflicts(a)
        if a.aligned:
            v += check_vector_path(a, want_dot2=(a.dtype == "fp16"))
        else:
            v += check_narrow_path(a)
    if a.arch == "gfx906" and a.aligned and configs is not None:
        cfg = configs.get((a.kind, a.dtype, a.headdim))
        if cfg is not None:
            v += check_occupancy(a, cfg.waves_per_simd)
    return v


# -------------------------------------------------------------------------------------------- compiling


def default_build_dir() -> Path:
    from ._probe import cache_dir

    return cache_dir() / "isa"


def find_clang_for(arch: str) -> str:
    """clang++ for archs the Debian hipcc does not know (gfx942): ``ROCFLASH_CLANG``, else clang++-19/-18/-17."""
    return find_tool("ROCFLASH_CLANG", ["clang++-19", "clang++-18", "clang++-17"], [])


def find_device_libs() -> Path | None:
    """Directory of the ROCm device-libs bitcode (``ROCFLASH_DEVICE_LIB_PATH``, ROCm, Debian), or None."""
    rocm = os.environ.get("ROCM_PATH") or "/opt/rocm"
    for d in (os.environ.get("ROCFLASH_DEVICE_LIB_PATH"), f"{rocm}/amdgcn/bitcode",
              "/usr/lib/x86_64-linux-gnu/amdgcn/bitcode", "/usr/lib/amdgcn/bitcode"):
        if d and Path(d, "ockl.bc").is_file():
            return Path(d)
    return None


def hip_include_dir() -> str:
    rocm = os.environ.get("ROCM_PATH") or "/opt/rocm"
    return f"{rocm}/include" if Path(rocm, "include", "hip").is_dir() else "/usr/include"


def compile_command(arch: str, source: Path, out: Path, includes: Sequence[Path]) -> tuple[list[str], dict]:
    """(argv, environment) of the device-only compile of ``source`` for ``arch`` into ``out``."""
    inc = [f"-I{d}" for d in includes]
    env = dict(os.environ)
    if arch in HIPCC_ARCHS:
        compiler, flags = device_compile_flags("hip", [arch])
        env["HIP_PLATFORM"] = "amd"  # Debian's hipcc picks the NVIDIA platform by itself when nvcc is on PATH
        return [compiler, *flags, "--cuda-device-only", *inc, "-S", str(source), "-o", str(out)], env
    if arch in ISA_VERSION_BITCODE:
        _, flags = device_compile_flags("hip", [arch])
        cmd = [find_clang_for(arch), *flags, "--cuda-device-only", "-nogpulib", f"-I{hip_include_dir()}"]
        libs = find_device_libs()
        if libs is not None:
            isa = next((libs / f"oclc_isa_version_{v}.bc" for v in ISA_VERSION_BITCODE[arch]
                        if (libs / f"oclc_isa_version_{v}.bc").is_file()), None)
            for bc in [*(libs / f"{n}.bc" for n in DEVICE_LIBS), isa]:
                if bc is not None and bc.is_file():
                    cmd += ["-Xclang", "-mlink-builtin-bitcode", "-Xclang", str(bc)]
        return [*cmd, *inc, "-S", str(source), "-o", str(out)], env
    if arch.startswith("sm_"):
        cc = f"{arch[3]}.{arch[4:]}"
        compiler, flags = device_compile_flags("cuda", [(cc, False)])
        return [compiler, *flags, "--cubin", "-Xptxas", "-v", *inc, str(source), "-o", str(out)], env
    raise ValueError(f"arch must be one of {sorted(ARCHS)}, got {arch!r}")


def _cache_key(cmd: Sequence[str], source: Path, includes: Sequence[Path]) -> str:
    """Hash of the command line (output path excluded), the compiler binary and every file it may read."""
    h = hashlib.sha256()
    args = list(cmd)
    if "-o" in args:
        del args[args.index("-o"):args.index("-o") + 2]
    h.update("\0".join(args).encode())
    compiler = shutil.which(cmd[0]) or cmd[0]
    if Path(compiler).exists():
        st = Path(compiler).resolve().stat()
        h.update(f"{st.st_size}:{st.st_mtime_ns}".encode())
    h.update(source.read_bytes())
    for d in includes:
        for f in sorted(Path(d).glob("*")):
            if f.suffix in (".h", ".inc", ".hpp") and f.is_file():
                h.update(f.name.encode() + b"\0" + f.read_bytes())
    return h.hexdigest()[:16]


@dataclasses.dataclass
class CompiledFile:
    arch: str
    source: Path
    output: Path  # .s (AMD) or .ptxas.txt (NVIDIA)
    seconds: float  # 0.0 when taken from the cache
    cached: bool


def compile_for_audit(arch: str, source: Path, build_dir: Path, includes: Sequence[Path] = ()) -> CompiledFile:
    """Compile ``source`` device-only for ``arch`` into ``build_dir/arch/`` unless the cached output is current.

    Raises BuildError with the command and the compiler output when the compile fails.
    """
    out_dir = build_dir / arch
    out_dir.mkdir(parents=True, exist_ok=True)
    nvidia = arch.startswith("sm_")
    probe_out = out_dir / (source.stem + (".cubin" if nvidia else ".s"))
    cmd, env = compile_command(arch, source, probe_out, includes)
    key = _cache_key(cmd, source, includes)
    final = out_dir / f"{source.stem}.{key}{'.ptxas.txt' if nvidia else '.s'}"
    if final.is_file():
        return CompiledFile(arch, source, final, 0.0, True)
    tmp = out_dir / f"{source.stem}.{key}.{os.getpid()}.tmp{'.cubin' if nvidia else '.s'}"
    cmd, env = compile_command(arch, source, tmp, includes)
    t0 = time.time()
    try:
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    except OSError as e:
        raise BuildError(f"{arch}: the compiler {cmd[0]!r} must be runnable, got {e} "
                         f"(set HIPCC / ROCFLASH_CLANG / NVCC, or install it)") from None
    seconds = time.time() - t0
    if proc.returncode != 0:
        tmp.unlink(missing_ok=True)
        raise BuildError(f"{arch}: device compile failed ({proc.returncode}): {shlex.join(cmd)}\n{proc.stderr[-4000:]}")
    if nvidia:  # keep the ptxas report, not the cubin
        (out_dir / f"{tmp.name}.txt").write_text(proc.stdout + proc.stderr)
        os.replace(out_dir / f"{tmp.name}.txt", final)
        tmp.unlink(missing_ok=True)
    else:
        os.replace(tmp, final)
    return CompiledFile(arch, source, final, seconds, False)


def audit_file(path: Path, arch: str | None = None, kernel: str | None = None, **kw) -> KernelAudit:
    """Audit a compiled file: AMDGPU assembly (``.s``) or a ptxas report (``.ptxas.txt``)."""
    text = Path(path).read_text()
    a = audit_ptxas(text, kernel, **kw) if ".amdgpu_metadata" not in text else audit_asm(text, kernel, arch, **kw)
    a.source = str(path)
    return a


# ------------------------------------------------------------------------------------------- full audit


@dataclasses.dataclass
class AuditRun:
    kernels: list[KernelAudit]
    archs: list[str]
    paths: str  # PATH_CHOICES
    wall_seconds: float
    compile_seconds: float  # summed over compiler processes (0 when everything came from the cache)
    compiled: int
    cached: int
    build_dir: str
    jobs: int
    kinds: tuple[str, ...] = AUDIT_KINDS


def audits_path(arch: str, aligned: bool, paths: str) -> bool:
    """Whether the ``paths`` selection (PATH_CHOICES) audits the load path ``aligned`` on ``arch``."""
    if paths not in PATH_CHOICES:
        raise ValueError(f"paths must be one of {PATH_CHOICES}, got {paths!r}")
    return aligned or paths == "both" or (paths == "split" and arch in NARROW_ARCHS) or \
        (paths == "aligned" and arch == "gfx906")


def run_audit(archs: Sequence[str] = DEFAULT_ARCHS, build_dir: Path | None = None, jobs: int | None = None,
              paths: str = "split", kinds: Sequence[str] = AUDIT_KINDS) -> AuditRun:
    """Generate, compile (in parallel, cached) and audit every instance of ``kinds`` for every arch.

    paths: "split" (default) audits the narrow path on NARROW_ARCHS (gfx906, sm_90) and the aligned path
    everywhere; "both" both paths everywhere; "aligned" the narrow path on gfx906 only (see "What is compiled";
    the wall times measured on 2 cores are in perf/results/isa_audit.md).
    kinds: AUDIT_KINDS to audit; "bwd_preprocess" compiles hip_src/fmha_api.hip once per arch.
    """
    for arch in archs:
        if arch not in ARCHS:
            raise ValueError(f"--arch must name archs of {sorted(ARCHS)}, got {arch!r}")
    if paths not in PATH_CHOICES:
        raise ValueError(f"paths must be one of {PATH_CHOICES}, got {paths!r}")
    bad = [k for k in kinds if k not in AUDIT_KINDS]
    if bad:
        raise ValueError(f"kinds must be among {AUDIT_KINDS}, got {bad}")
    t0 = time.time()
    build_dir = Path(build_dir) if build_dir else default_build_dir()
    jobs = jobs or int(os.environ.get("ROCFLASH_JOBS", "0")) or os.cpu_count() or 1

    # Step 1: generate the instance sources of each vendor's configs, every kind (codegen names each source
    # after its instance: <kernel_name(aligned)>.hip); a job per (arch, instance) the selection audits, plus
    # fmha_api.hip (the preprocess kernel) per arch. cfg is None for the API file.
    jobs_list: list[tuple[str, Path, TileConfig | None, bool, list[Path]]] = []
    for target, vendor_archs in (("gfx9", [a for a in archs if ARCHS[a].vendor == "amd"]),
                                 ("cuda", [a for a in archs if ARCHS[a].vendor == "nvidia"])):
        if not vendor_archs:
            continue
        gen = build_dir / "gen" / target
        sources = {p.name: p for p in codegen.generate(target, gen, kinds=TILED_KINDS)}
        includes = [hip_src_dir(), gen]
        for kind in (k for k in TILED_KINDS if k in kinds):
            for cfg, aligned in codegen.instances(target, kind=kind):
                src = sources[f"{cfg.kernel_name(aligned)}.hip"]
                jobs_list += [(arch, src, cfg, aligned, includes) for arch in vendor_archs
                              if audits_path(arch, aligned, paths)]
        if PREPROCESS_KIND in kinds:
            jobs_list += [(arch, hip_src_dir() / API_SOURCE, None, True, includes) for arch in vendor_archs]

    # Step 2: compile in parallel (each job is one compiler process)
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(compile_for_audit, arch, src, build_dir, inc) for arch, src, _, _, inc in jobs_list]
        compiled = [f.result() for f in futures]

    # Step 3: parse and audit (the probe evaluates each tile's conflicts once per tile and vendor)
    kernels = []
    conflict_cache: dict[tuple, tuple] = {}
    for (arch, src, cfg, aligned, _), cf in zip(jobs_list, compiled):
        amd_arch = arch if ARCHS[arch].vendor == "amd" else None
        if cfg is None:  # fmha_api.hip: its preprocess kernels (any other kernel there is audited too)
            kernels += [_named_preprocess(a) for a in audit_compiled_file(cf.output, amd_arch)]
            continue
        key = (cfg.kind, cfg.tile_name, ARCHS[arch].vendor)
        a = audit_file(cf.output, arch=amd_arch, kernel=KIND_KERNEL.get(cfg.kind), conflicts=key not in conflict_cache)
        if key in conflict_cache:
            a.bank_conflicts, a.bank_conflicts_unpadded = conflict_cache[key]
        else:
            conflict_cache[key] = (a.bank_conflicts, a.bank_conflicts_unpadded)
        if a.kind != cfg.kind:
            raise ValueError(f"{cf.output}: the kernel's tile type must be of kind {cfg.kind!r} "
                             f"({cfg.struct_name}), got {a.kind!r} ({a.symbol})")
        a.name = cfg.kernel_name(aligned)
        a.dtype, a.headdim, a.aligned = cfg.dtype, cfg.headdim, aligned
        kernels.append(a)
    return AuditRun(kernels, list(archs), paths, time.time() - t0, sum(c.seconds for c in compiled),
                    sum(not c.cached for c in compiled), sum(c.cached for c in compiled), str(build_dir), jobs,
                    tuple(k for k in AUDIT_KINDS if k in kinds))


def _named_preprocess(a: KernelAudit) -> KernelAudit:
    """Readable row name of a preprocess kernel: ``rocflash_fmha_bwd_preprocess_<dtype>`` (template arguments
    256 threads, 16 lanes per row: fmha_bwd_launch.h)."""
    if a.kind == PREPROCESS_KIND:
        a.name = f"rocflash_fmha_{PREPROCESS_KIND}_{a.dtype}"
    return a


def audit_compiled_file(path: Path, arch: str | None = None) -> list[KernelAudit]:
    """Audit every kernel of one compiled file (``.s`` or ``.ptxas.txt``)."""
    text = Path(path).read_text()
    if ".amdgpu_metadata" in text:
        names = [k[".name"] for k in parse_amdgpu_metadata(text).get("amdhsa.kernels") or []]
    else:
        names = list(parse_ptxas(text))
    return [audit_file(path, arch=arch, kernel=n) for n in names]


def audit_directory(path: Path) -> list[KernelAudit]:
    """Audit every ``*.s`` and ``*.ptxas.txt`` file of an existing build directory (recursively)."""
    out = []
    for f in sorted(Path(path).rglob("*")):
        if f.is_file() and (f.suffix == ".s" or f.name.endswith(".ptxas.txt")):
            out += [_named_preprocess(a) for a in audit_compiled_file(f)]
    return out


def configs_by_key(configs: Iterable[TileConfig] | None = None, target: str = "gfx9") -> dict[tuple, TileConfig]:
    """{(kind, dtype, headdim): config} of ``target``; by default every kind's configs (load_configs)."""
    if configs is None:
        configs = [c for kind in TILED_KINDS for c in load_configs(kind)]
    return {(c.kind, c.dtype, c.headdim): c for c in configs if c.target == target}


# ---------------------------------------------------------------------------------------------- reports


def _ml(a: KernelAudit, name: str) -> str:
    return f"{a.loop_counts.get(name, 0) if a.main_loop else '-'}/{a.kernel_counts.get(name, 0)}"


def _conf(d: dict | None) -> str:
    """Conflict degrees of one kernel for a table cell: "all 1" when every read is conflict-free, else the
    reads of degree > 1 (``k 8, v 8``); the JSON output keeps every read kind."""
    if not d:
        return "-"
    bad = [f"{kind} {deg}" for kind, deg in d.items() if deg != 1]
    return ", ".join(bad) if bad else "all 1"


def _opt(x) -> str:
    return "-" if x is None else str(x)


AMD_COLUMNS = ("kernel", "kind", "VGPR", "SGPR", "AGPR", "LDS B (static+dyn)", "scratch B", "SGPR spill",
               "W/SIMD vgpr", "W/SIMD lds", "W/SIMD", "gl128", "gl narrow", "ds128", "ds64", "dot2", "mfma", "fma",
               "exp", "waitcnt", "conflicts", "unpadded")
NV_COLUMNS = ("kernel", "kind", "regs", "spill st/ld B", "stack B", "smem B (static+dyn)", "conflicts", "unpadded")


def _row_order(a: KernelAudit) -> int:
    return AUDIT_KINDS.index(a.kind) if a.kind in AUDIT_KINDS else len(AUDIT_KINDS)


def table_rows(kernels: Sequence[KernelAudit], arch: str) -> tuple[tuple[str, ...], list[list[str]]]:
    """(column names, rows) of one arch's table; rows grouped by kind (AUDIT_KINDS order), then in run order."""
    rows = []
    for a in sorted((k for k in kernels if k.arch == arch), key=_row_order):
        kind = a.kind or "-"
        if a.vendor == "amd":
            rows.append([a.name, kind, str(a.vgprs), str(a.sgprs), _opt(a.agprs),
                         f"{a.lds_total} ({a.lds_static}+{a.lds_dynamic})", str(a.scratch_bytes),
                         str(a.sgpr_spill_count), _opt(a.waves_per_simd_vgpr), _opt(a.waves_per_simd_lds),
                         _opt(a.waves_per_simd), _ml(a, "global_load_b128"), _ml(a, "global_load_narrow"),
                         _ml(a, "ds_read_b128"), _ml(a, "ds_read_b64"), _ml(a, "dot2"), _ml(a, "mfma"), _ml(a, "fma"),
                         _ml(a, "exp"), _ml(a, "waitcnt"), _conf(a.bank_conflicts), _conf(a.bank_conflicts_unpadded)])
        else:
            rows.append([a.name, kind, _opt(a.registers), f"{a.spill_store_bytes}/{a.spill_load_bytes}",
                         str(a.stack_frame_bytes), f"{a.lds_total} ({a.lds_static}+{a.lds_dynamic})",
                         _conf(a.bank_conflicts), _conf(a.bank_conflicts_unpadded)])
    return (AMD_COLUMNS if ARCHS[arch].vendor == "amd" else NV_COLUMNS), rows


def format_text(kernels: Sequence[KernelAudit], archs: Sequence[str]) -> str:
    out = []
    for arch in archs:
        cols, rows = table_rows(kernels, arch)
        if not rows:
            continue
        widths = [max(len(c), *(len(r[i]) for r in rows)) for i, c in enumerate(cols)]
        out.append(f"== {arch}")
        out.append("  ".join(c.ljust(w) for c, w in zip(cols, widths)))
        out += ["  ".join(v.ljust(w) for v, w in zip(r, widths)) for r in rows]
        out.append("")
    return "\n".join(out)


def format_markdown_tables(kernels: Sequence[KernelAudit], archs: Sequence[str]) -> str:
    out = []
    for arch in archs:
        cols, rows = table_rows(kernels, arch)
        if not rows:
            continue
        out += [f"### {arch}", "", "| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
        out += ["| " + " | ".join(r) + " |" for r in rows]
        out.append("")
    return "\n".join(out)


def compiler_versions(archs: Sequence[str]) -> dict[str, str]:
    """First lines of ``--version`` of each compiler the audit used, plus the device-libs directory."""
    found = {}

    def first(cmd, env=None, lines=1):
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=60)
            return " / ".join(ln.strip() for ln in p.stdout.splitlines()[:lines] if ln.strip())
        except (OSError, subprocess.SubprocessError) as e:
            return f"unavailable ({e})"

    if any(a in HIPCC_ARCHS for a in archs):
        hip_env = {**os.environ, "HIP_PLATFORM": "amd"}
        found["hipcc"] = f"{find_hipcc()}: " + first([find_hipcc(), "--version"], hip_env, 2)
    if any(a in ISA_VERSION_BITCODE for a in archs):
        clang = find_clang_for("gfx942")
        found["clang (gfx942)"] = f"{clang}: " + first([clang, "--version"])
        libs = find_device_libs()
        isa = next((f"oclc_isa_version_{v}.bc" for v in ISA_VERSION_BITCODE["gfx942"]
                    if libs is not None and (libs / f"oclc_isa_version_{v}.bc").is_file()), "none")
        found["device-libs (linked for gfx942)"] = f"{libs} ({', '.join(DEVICE_LIBS)}, {isa})"
    if any(a.startswith("sm_") for a in archs):
        found["nvcc"] = f"{find_nvcc()}: " + first([find_nvcc(), "--version"], lines=5).split(" / ")[-1]
    from .build import find_cxx

    found["host c++ (probe)"] = f"{find_cxx()}: " + first([find_cxx(), "--version"])
    return found


ABOUT = """\
## What this audit proves, and what it cannot

The audit compiles the kernel instances of all three tiled kernels (each tile config of `ck_configs/fmha_fwd.toml`
`[[fwd]]` and `ck_configs/fmha_bwd.toml` `[[bwd_dkdv]]`, `[[bwd_dq]]` x the load paths, aligned 128-bit and
narrow) and `hip_src/fmha_api.hip` (the backward's element-wise preprocess kernel, `D = rowsum(dO o O)`)
device-only for gfx906, gfx908, gfx90a, gfx942, sm_80 and sm_90, and reads the compilers' own output: the
AMDGPU code-object metadata and instruction stream, and the ptxas resource report. No GPU is involved.
By default (`--paths split`, what CI runs through tests/test_isa.py) the narrow load path is audited on
gfx906 and sm_90 only and the aligned path everywhere: a cold run of the full set of 432 instances took
282 s on a quiet 2-core machine and 683 s on a loaded one, the split 197 s and 379 s (docstring of
`rocflash/isa.py`). The "Run" section says which set this report covers.

**What it proves** about the code the compilers emit (each item is an invariant that tests/test_isa.py checks in
CI for every kind; the "Invariants" section below lists every violation found in this run):
- *resource use*: VGPRs/SGPRs/AGPRs, static + dynamic LDS per block (within 64 KiB on gfx9), zero scratch
  and no spill instructions (zero spill bytes on NVIDIA), wave64 on every gfx9 target (the preprocess
  kernel included), and the occupancy (waves per SIMD from VGPRs and from LDS) each config was designed for
  and asks the compiler for, checked against `waves_per_simd` of its config;
- *instruction selection*: the gfx906 fp16 main loop issues `v_dot2_f32_f16` and 128-bit
  `global_load_dwordx4` / `ds_read_b128` on the aligned path (the forward's and the dQ kernel's K/V tile
  loads, the dK/dV kernel's Q/dO tile loads), while the narrow path has no 128-bit global loads at all;
  the main loop is found in the control-flow graph: the K/V tile loop (forward, dQ), the query-tile loop
  nested in the GQA head loop (dK/dV);
- *LDS layout*: every main-loop LDS read is bank-conflict-free on the padded layout: forward Q, K, P, V;
  backward the row reads Q, dO, K, V, the transposed P^T / dS^T reads (dK/dV), the dS reads (dQ) and the
  row reads of the column products (dO, Q in dK/dV; K in dQ). Computed from the kernels' own address
  arithmetic (`hip_src/fmha_tile.h`, `hip_src/fmha_bwd_tile.h`, evaluated per lane by a host-side probe)
  under the gfx906 model of 32 banks x 4 bytes, 128 bytes per clock. The unpadded layout is reported too:
  only the K and V row reads conflict there; the P^T / dS^T / dS reads (one row per row group: a broadcast)
  and the column reads (consecutive columns across lanes) are conflict-free with or without padding.

**It cannot show** timing (latency hiding, issue rate, achieved bandwidth or FLOP/s: instruction counts
are static, per code path, not per executed iteration), nor correctness or stability on AMD silicon: a
kernel can pass every check here and still compute wrong results or run slowly on a real MI50. Those need
the GPU runs (tests marked `gpu`, perf/). It does not model LDS *writes* (the global -> LDS staging and the
backward's transposed P^T / dS^T stores, 2-byte stores at a stride of one P^T row), nor the preprocess
kernel's access pattern, nor NVIDIA occupancy (the CUDA build is not tuned).
"""


def _kinds_of(kernels: Sequence[KernelAudit]) -> list[str]:
    return [k for k in (*AUDIT_KINDS, None) if any(a.kind == k for a in kernels)]


def findings(kernels: Sequence[KernelAudit]) -> list[str]:
    """Markdown bullets on what the tables show beyond the invariants, per AMD arch and kernel kind: SGPR spills
    into VGPR lanes (no memory traffic, but ``v_readlane``/``v_writelane`` in the main loop cost issue slots),
    AGPRs used as extra VGPR storage on gfx90a+ (``v_accvgpr_*`` copies), VGPR-limited occupancy and the
    gfx906 occupancy per kind; then the LDS bank-conflict degrees per kind and read kind (arch-independent:
    one model), padded and unpadded."""
    out = []
    for arch in sorted({a.arch for a in kernels if a.vendor == "amd"}, key=list(ARCHS).index):
        for kind in _kinds_of(kernels):
            ks = [a for a in kernels if a.arch == arch and a.kind == kind]
            if not ks:
                continue
            tag = f"{arch} {kind or 'other'}"
            spilled = [a for a in ks if a.sgpr_spill_count]
            if spilled:
                worst = max(spilled, key=lambda a: a.sgpr_spill_count)
                in_loop = [a for a in spilled if a.loop_counts.get("lane_moves", 0)]
                moves = (f"{len(in_loop)} of them move spilled SGPRs inside the main loop (`v_readlane_b32`/"
                         f"`v_writelane_b32`, at most {max(a.loop_counts['lane_moves'] for a in in_loop)} per kernel)"
                         if in_loop else "none of them moves a spilled SGPR inside the main loop (no "
                         "`v_readlane_b32`/`v_writelane_b32` there)")
                out.append(f"- {tag}: {len(spilled)}/{len(ks)} kernels spill SGPRs into VGPR lanes "
                           f"(`.sgpr_spill_count`, most: {worst.sgpr_spill_count} in `{worst.name}`); {moves}.")
            agpr = [a for a in ks if a.agprs]
            if agpr:
                worst = max(agpr, key=lambda a: a.agprs)
                out.append(f"- {tag}: {len(agpr)}/{len(ks)} kernels keep values in AGPRs (no MFMA here: the "
                           f"register allocator uses them as extra VGPRs through `v_accvgpr_*` copies; most: "
                           f"{worst.agprs} AGPRs and {worst.loop_counts.get('accvgpr_moves', 0)} copies in the main "
                           f"loop of `{worst.name}`).")
            limited = [a for a in ks if a.waves_per_simd_vgpr is not None and a.waves_per_simd_lds is not None
                       and a.waves_per_simd_vgpr < a.waves_per_simd_lds]
            if limited:
                first = limited[0]
                out.append(f"- {tag}: {len(limited)}/{len(ks)} kernels are limited by VGPRs below what their LDS "
                           f"allows (e.g. `{first.name}`: {first.vgprs} VGPRs -> {first.waves_per_simd_vgpr} "
                           f"wave/SIMD, LDS would allow {first.waves_per_simd_lds}).")
            if arch == "gfx906" and kind in TILED_KINDS:
                occ = collections.Counter(a.waves_per_simd for a in ks if a.aligned)
                vgprs = [a.vgprs for a in ks if a.aligned]
                out.append(f"- {tag}: occupancy of the aligned instances: "
                           + ", ".join(f"{n} at {w} wave/SIMD" for w, n in sorted(occ.items()))
                           + (f" (VGPRs {min(vgprs)} to {max(vgprs)})." if vgprs else "."))
    # blocks that LDS limits to fewer waves per CU than the CU has SIMDs (the same on every gfx9 arch: 64 KiB)
    starved: dict[tuple, list[KernelAudit]] = collections.defaultdict(list)
    for a in kernels:
        if a.vendor == "amd" and a.waves_per_simd_lds == 0 and a.threads and a.wave_size and a.lds_total:
            starved[(a.kind, a.dtype, a.headdim, a.lds_total, a.threads, a.wave_size)].append(a)
    for (kind, dtype, headdim, lds, threads, wave), ks in starved.items():
        info = ARCHS[ks[0].arch]
        blocks, waves = info.lds_per_cu // lds, -(-threads // wave)
        archs = sorted({a.arch for a in ks}, key=list(ARCHS).index)
        out.append(f"- {kind} {dtype} d{headdim} (`{ks[0].name}`; {len(ks)} instances on {', '.join(archs)}): "
                   f"{lds} B of LDS per block admit {blocks} block of {threads} threads = {blocks * waves} waves per "
                   f"CU, fewer than its {info.simds_per_cu} SIMDs: occupancy 0, {info.simds_per_cu - blocks * waves} "
                   f"SIMDs of every CU get no wave.")
    for kind in (k for k in _kinds_of(kernels) if k in TILED_KINDS):
        rows = [a for a in kernels if a.kind == kind and a.bank_conflicts]
        if not rows:
            continue
        parts = []
        for read in rows[0].bank_conflicts:
            padded = max(a.bank_conflicts.get(read, 1) for a in rows)
            unpadded = max((a.bank_conflicts_unpadded or {}).get(read, 1) for a in rows)
            parts.append(f"{read} {padded}/{unpadded}")
        tiles = len({json.dumps(a.tile, sort_keys=True) for a in rows})
        out.append(f"- LDS bank conflicts, {kind}, worst degree padded/unpadded over its {tiles} distinct tile "
                   f"shapes: " + ", ".join(parts) + ".")
    return out or ["- none"]


def format_markdown(run: AuditRun, command: str) -> str:
    date = subprocess.run(["date"], capture_output=True, text=True).stdout.strip()
    date = date or datetime.datetime.now().isoformat()
    versions = compiler_versions(run.archs)
    configs = configs_by_key()
    violations = [v for a in run.kernels for v in all_checks(a, configs)]
    per_kind = collections.Counter(a.kind or "other" for a in run.kernels)
    from ._probe import READ_KINDS

    lines = ["# ISA audit of the forward and backward kernels", "", ABOUT,
             "## Run", "",
             f"- date: `{date}`",
             f"- command: `{command}`",
             f"- archs: {', '.join(run.archs)}; load paths: {run.paths} ("
             + {"split": f"both on {', '.join(NARROW_ARCHS)}, aligned only elsewhere",
                "both": "aligned and narrow everywhere",
                "aligned": "both on gfx906, aligned only elsewhere"}.get(run.paths, run.paths)
             + f"); kinds: {', '.join(run.kinds)}",
             f"- {len(run.kernels)} kernel rows: " + ", ".join(f"{k} {n}" for k, n in per_kind.items()),
             f"- wall time: {run.wall_seconds:.1f} s on {os.cpu_count()} cores ({run.jobs} parallel jobs); "
             f"{run.compiled} compiles ({run.compile_seconds:.1f} s of compiler time), {run.cached} from the cache",
             "- compilers:"]
    lines += [f"  - {k}: `{v}`" for k, v in versions.items()]
    lines += ["", "## Invariants", ""]
    lines += ["All invariants hold." if not violations else f"{len(violations)} violations:", ""]
    lines += [f"- {v}" for v in violations]
    lines += ["", "## Other findings (not invariants)", "", *findings(run.kernels)]
    lines += ["", "## Columns", "",
              "kind = `fwd` (forward), `bwd_dkdv` (dK/dV kernel), `bwd_dq` (dQ kernel), `bwd_preprocess` "
              "(D = rowsum(dO o O), from `hip_src/fmha_api.hip`; no tile, no main loop). "
              "Counts are `main loop/whole kernel` static instruction counts. Main loop = the innermost loop of the "
              "control-flow graph that holds more than half of the tile-product instructions and an `s_barrier`: "
              "the K/V tile loop (fwd, bwd_dq), the query-tile loop inside the head loop (bwd_dkdv); method in the "
              "docstring of `rocflash/isa.py`. "
              "gl128 = `global_load_dwordx4`, gl narrow = narrower global loads, ds128 = `ds_read_b128`, ds64 = "
              "`ds_read_b64` and `ds_read2_b64` (one instruction, two 64-bit reads), dot2 = `v_dot2_f32_f16` "
              "(gfx906) / `v_dot2c_f32_f16` (gfx908+), fma = fp32 FMA family (`v_fma_f32`, `v_fmac_f32`, "
              "`v_mac_f32`, `v_fma_mix_f32`, `v_pk_fma_f32`, ...), exp = `v_exp_f32`. VGPR on gfx90a/gfx942 is the "
              "unified VGPR+AGPR count that sets occupancy. "
              "LDS = static (`.group_segment_fixed_size`) + dynamic (`lds_bytes()` of the kind's shape type, what "
              "the launcher requests). W/SIMD = waves per SIMD from VGPRs, from LDS, and their minimum. "
              "conflicts / unpadded = LDS bank-conflict degree of the main-loop reads (1 = conflict-free) for the "
              "config and with `lds_pad_bytes = 0`: `all 1`, or the reads of degree > 1. Read kinds: "
              + "; ".join(f"{k}: {', '.join(v)}" for k, v in READ_KINDS.items())
              + " (the `*_read` functions of `FwdTileShape`, `BwdDkdvShape`, `BwdDqShape`). "
              "NVIDIA rows come from `ptxas -v` (registers, spill bytes, stack frame).",
              "", "## Tables", "", format_markdown_tables(run.kernels, run.archs)]
    return "\n".join(lines) + "\n"


# -------------------------------------------------------------------------------------------------- CLI


def _emit(text: str, path: str) -> None:
    """Write ``text`` to ``path``, or to stdout for "-"."""
    if path == "-":
        sys.stdout.write(text)
    else:
        Path(path).write_text(text)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m rocflash.isa", description=__doc__.splitlines()[0])
    ap.add_argument("--arch", default=",".join(DEFAULT_ARCHS),
                    help=f"comma-separated archs (default: {','.join(DEFAULT_ARCHS)})")
    ap.add_argument("--paths", choices=PATH_CHOICES, default="split",
                    help=f"load paths to audit: split (default: both on {', '.join(NARROW_ARCHS)}, aligned only "
                         f"elsewhere), both (everywhere), aligned (both on gfx906 only)")
    ap.add_argument("--kinds", default=",".join(AUDIT_KINDS),
                    help=f"comma-separated kernel kinds (default: {','.join(AUDIT_KINDS)})")
    ap.add_argument("--build-dir", type=Path, default=None, help="compile cache (default: ~/.cache/rocflash/isa)")
    ap.add_argument("--from-dir", type=Path, default=None,
                    help="audit the *.s / *.ptxas.txt files already in this directory; compile nothing")
    ap.add_argument("--jobs", type=int, default=None, help="parallel compiles (default: ROCFLASH_JOBS or CPU count)")
    ap.add_argument("--json", nargs="?", const="-", default=None, metavar="PATH",
                    help="write the audit as JSON to PATH (or stdout)")
    ap.add_argument("--markdown", nargs="?", const="-", default=None, metavar="PATH",
                    help="write the markdown report (perf/results/isa_audit.md) to PATH (or stdout)")
    ap.add_argument("--check", action="store_true", help="exit with status 1 when an invariant is violated")
    args = ap.parse_args(argv)
    archs = [a for a in args.arch.split(",") if a]
    unknown = [a for a in archs if a not in ARCHS]
    if unknown:
        ap.error(f"--arch must name archs of {', '.join(ARCHS)}, got {', '.join(unknown)}")
    kinds = [k for k in args.kinds.split(",") if k]
    unknown = [k for k in kinds if k not in AUDIT_KINDS]
    if unknown or not kinds:
        ap.error(f"--kinds must name kinds of {', '.join(AUDIT_KINDS)}, got {args.kinds!r}")

    if args.from_dir is not None:
        kernels = audit_directory(args.from_dir)
        order = list(ARCHS)
        found_archs = sorted({k.arch for k in kernels}, key=lambda a: order.index(a) if a in order else len(order))
        run = AuditRun(kernels, found_archs, "as found", 0.0, 0.0, 0, 0, str(args.from_dir), 0,
                       tuple(k for k in AUDIT_KINDS if any(a.kind == k for a in kernels)))
    else:
        try:
            run = run_audit(archs, args.build_dir, args.jobs, args.paths, kinds)
        except BuildError as e:  # a missing compiler or a failed compile: say which, no traceback
            print(f"python -m rocflash.isa: {e}\n(restrict the archs with --arch, or install the toolchain: "
                  f"ci/install_toolchain.sh)", file=sys.stderr)
            return 2
    command = "python -m rocflash.isa " + shlex.join(list(argv if argv is not None else sys.argv[1:]))

    if args.json is not None:
        data = {"command": command, "wall_seconds": run.wall_seconds, "compiled": run.compiled, "cached": run.cached,
                "archs": run.archs, "paths": run.paths, "kinds": list(run.kinds),
                "kernels": [k.to_json() for k in run.kernels]}
        _emit(json.dumps(data, indent=1) + "\n", args.json)
    if args.markdown is not None:
        _emit(format_markdown(run, command), args.markdown)
    if args.json != "-" and args.markdown != "-":
        print(format_text(run.kernels, run.archs))
        print(f"{len(run.kernels)} kernels, {run.wall_seconds:.1f} s wall ({run.compiled} compiled, "
              f"{run.cached} cached, {run.jobs} jobs; build dir {run.build_dir})")
    violations = [v for a in run.kernels for v in all_checks(a, configs_by_key())]
    for v in violations:
        print(f"VIOLATION: {v}", file=sys.stderr)
    return 1 if (args.check and violations) else 0


if __name__ == "__main__":
    sys.exit(main())
