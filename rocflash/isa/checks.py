"""The invariants. Each check returns a list of violations (empty = passes); tests/test_isa.py runs them on the
real kernels and on the deliberately bad fixtures of tests/fixtures/, which must be flagged."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

from ..configs import load_configs
from ..targets import arch_info
from .audit import KernelAudit
from .kinds import CONFLICT_FREE_READS, TILED_KINDS

if TYPE_CHECKING:
    from ..configs import TileConfig


def check_wave_size(a: KernelAudit, expected: int | None = None) -> list[str]:
    """The wavefront size from the metadata equals ``expected`` (default: the arch's, 64 on gfx9)."""
    want = expected if expected is not None else arch_info(a.arch).wave_size
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
    limit = arch_info(a.arch).lds_per_cu
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


def check_score_precision(a: KernelAudit) -> list[str]:
    """fp32 tiles (forward, dK/dV, dQ): the main loop sums the scores (and dP) in fp64 (v_fma_f64 / gfx90a+'s v_fmac_f64:
    hip_src/fmha_tile_math.h tile_rowdot_fp64; an fp32 FMA chain there left FlashAttention's backward rule at
    large softmax_scale, issue 8). 16-bit tiles: no fp64 FMA anywhere (their products stay on dot2 / fp32 FMA)."""
    if a.kind not in ("fwd", "bwd_dkdv", "bwd_dq") or a.main_loop is None:
        return []
    if a.dtype == "fp32" and a.loop_counts.get("fma64", 0) == 0:
        return [f"{a.name} [{a.arch}]: fp32 main loop must sum scores in fp64 (v_fma_f64 / v_fmac_f64), got 0 "
                f"(fp32 FMA: {a.loop_counts['fma']})"]
    if a.dtype in ("fp16", "bf16") and a.kernel_counts.get("fma64", 0):
        return [f"{a.name} [{a.arch}]: 16-bit kernel must not use v_fma_f64 / v_fmac_f64, got {a.kernel_counts['fma64']}"]
    return []


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


def check_sbcast(a: KernelAudit) -> list[str]:
    """The scalar-broadcast forward (ck_configs impl "sbcast"): no LDS at all; the main loop (no barrier) takes K/V
    rows through s_load_dwordx16 as v_dot2's SGPR operand (dot2 and 512-bit scalar loads, no LDS reads, no
    global loads); its K/V preparation kernel neither spills nor uses scratch; and no instruction touches a scalar
    load's destination SGPRs before the s_waitcnt lgkmcnt(0) that ends it (rocflash.emu.cycles_sbcast
    scalar_load_hazards: the data are not there yet on hardware, while the emulator would not show it)."""
    v = []
    if a.lds_total:
        v.append(f"{a.name} [{a.arch}]: the scalar-broadcast forward must use no LDS, got {a.lds_total} bytes")
    if a.main_loop is None:
        return v + [f"{a.name} [{a.arch}]: main loop must be found (a loop holding the tile products), found none"]
    lc = a.loop_counts
    if not lc.get("dot2") or not lc.get("s_load_b512"):
        v.append(f"{a.name} [{a.arch}]: main loop must use v_dot2_f32_f16 on s_load_dwordx16 rows, got {lc.get('dot2')} "
                 f"dot2 and {lc.get('s_load_b512')} s_load_dwordx16")
    # The loop found is the grid-stride loop over (row block, head, batch): its two key loops (unmasked tiles,
    # masked tiles) hold about half of the products each. It loads the lane's Q row once: headdim / 8 128-bit loads.
    lds = lc.get("ds_read_b128", 0) + lc.get("ds_read_b64", 0) + lc.get("ds_read_other", 0)
    q_loads = (a.headdim or 0) // 8
    if lds or lc.get("global_load_narrow", 0) or lc.get("global_load_b128", 0) > q_loads:
        v.append(f"{a.name} [{a.arch}]: main loop must read K/V through scalar loads only (global loads: the Q row, "
                 f"{q_loads} x 128 bits), got {lds} LDS reads, {lc.get('global_load_b128', 0)} 128-bit and "
                 f"{lc.get('global_load_narrow', 0)} narrower global loads")
    kc = a.kernel_counts
    if kc.get("prep_scratch_bytes") or kc.get("prep_spill_ops") or kc.get("prep_vgpr_spill_count"):
        v.append(f"{a.name} [{a.arch}]: the K/V preparation kernel must not spill, got {kc.get('prep_scratch_bytes')} "
                 f"scratch bytes, {kc.get('prep_spill_ops')} spill instructions")
    if a.source:
        from ..emu import asm as emu_asm
        from ..emu.cycles_sbcast import scalar_load_hazards

        kernels = emu_asm.parse_file(open(a.source).read(), a.source)
        fwd = [k for n, k in kernels.items() if "fmha_fwd_sbcast_kernel" in n]
        for problem in (scalar_load_hazards(fwd[0]) if len(fwd) == 1 else ["forward kernel not found"]):
            v.append(f"{a.name} [{a.arch}]: scalar load hazard: {problem}")
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
    if a.vendor == "amd" and (a.tile or {}).get("impl") == "sbcast":
        v += check_sbcast(a)
        if a.arch == "gfx906":
            v += check_occupancy(a, 1)  # ck_configs: waves_per_simd = 1 (one row per lane, ~235 VGPRs)
        return v
    if a.vendor == "amd" and a.aligned is not None:
        v += check_bank_conflicts(a)
        if a.aligned:
            v += check_vector_path(a, want_dot2=(a.dtype == "fp16"))
        else:
            v += check_narrow_path(a)
        v += check_score_precision(a)
    if a.arch == "gfx906" and a.aligned and configs is not None:
        cfg = configs.get((a.kind, a.dtype, a.headdim))
        if cfg is not None:
            v += check_occupancy(a, cfg.waves_per_simd)
    return v




def configs_by_key(configs: Iterable[TileConfig] | None = None, target: str = "gfx9") -> dict[tuple, TileConfig]:
    """{(kind, dtype, headdim): config} of ``target``; by default every kind's configs (load_configs)."""
    if configs is None:
        configs = [c for kind in TILED_KINDS for c in load_configs(kind)]
    return {(c.kind, c.dtype, c.headdim): c for c in configs if c.target == target and c.impl != "sbcast"}


