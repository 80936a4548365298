"""The audit of one compiled kernel: resources from the metadata, occupancy, the tile it instantiates, LDS bank
conflicts of its main-loop reads, and the instruction counts of its main loop.

Occupancy (waves per SIMD; AMD "Vega" 7nm ISA Reference Guide, chapter "Kernel State", section "GPRs and
LDS": VGPRs are allocated per wave in groups of 4 on gfx906; LLVM ``AMDGPU::IsaInfo`` gives the same
granules and wave limits per target, table :data:`rocflash.targets.ARCHS`)
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

"""

from __future__ import annotations

import collections
import dataclasses
import re
from pathlib import Path
from typing import Sequence

from ..targets import ARCHS, NVIDIA_WARP_SIZE, ArchInfo, arch_info
from .asm import _TARGET, count_instructions, demangle, kernel_instructions, parse_amdgpu_metadata
from .kinds import PREPROCESS_KIND, UNSYNCED_MAIN_LOOP
from .loops import Loop, find_main_loop
from .ptxas import parse_ptxas


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




def occupancy_amd(arch: ArchInfo, vgprs: int, threads: int, wave_size: int, lds_bytes: int) -> tuple[int, int, int]:
    """(waves/SIMD from VGPRs, from LDS, min of both); formulas in this module's docstring."""
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
    info = arch_info(arch)
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
    info = ARCHS.get(arch) or ArchInfo(arch, "nvidia", NVIDIA_WARP_SIZE)
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
    from .._probe import Probe, TileShape

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
    from .._probe import Probe

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


def audit_file(path: Path, arch: str | None = None, kernel: str | None = None, **kw) -> KernelAudit:
    """Audit a compiled file: AMDGPU assembly (``.s``) or a ptxas report (``.ptxas.txt``)."""
    text = Path(path).read_text()
    a = audit_ptxas(text, kernel, **kw) if ".amdgpu_metadata" not in text else audit_asm(text, kernel, arch, **kw)
    a.source = str(path)
    return a


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
    """Audit every ``*.s`` and ``*.ptxas.txt`` file of an existing build directory (recursively), except a
    compile's temporaries (hidden names, ``.tmp`` in the name: partial while a compile writes them)."""
    out = []
    for f in sorted(Path(path).rglob("*")):
        if f.name.startswith(".") or ".tmp" in f.suffixes:
            continue
        if f.is_file() and (f.suffix == ".s" or f.name.endswith(".ptxas.txt")):
            out += [_named_preprocess(a) for a in audit_compiled_file(f)]
    return out

