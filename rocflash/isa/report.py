"""The audit's reports: the per-arch text and markdown tables, the findings beyond the invariants, and the
markdown report (perf/results/isa_audit.md)."""

from __future__ import annotations

import collections
import datetime
import json
import os
import subprocess
from typing import Sequence

from ..targets import ARCHS, arch_info
from .audit import KernelAudit
from .checks import all_checks, configs_by_key
from .compile import compiler_versions
from .kinds import AUDIT_KINDS, NARROW_ARCHS, TILED_KINDS
from .run import AuditRun


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
               "fma64", "exp", "waitcnt", "conflicts", "unpadded")
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
                         _ml(a, "fma64"), _ml(a, "exp"), _ml(a, "waitcnt"), _conf(a.bank_conflicts), _conf(a.bank_conflicts_unpadded)])
        else:
            rows.append([a.name, kind, _opt(a.registers), f"{a.spill_store_bytes}/{a.spill_load_bytes}",
                         str(a.stack_frame_bytes), f"{a.lds_total} ({a.lds_static}+{a.lds_dynamic})",
                         _conf(a.bank_conflicts), _conf(a.bank_conflicts_unpadded)])
    return (AMD_COLUMNS if arch_info(arch).vendor == "amd" else NV_COLUMNS), rows


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
`rocflash/isa/compile.py`). The "Run" section says which set this report covers.

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


def _arch_order(arch: str) -> int:
    order = list(ARCHS)
    return order.index(arch) if arch in order else len(order)


def _kinds_of(kernels: Sequence[KernelAudit]) -> list[str]:
    return [k for k in (*AUDIT_KINDS, None) if any(a.kind == k for a in kernels)]


def findings(kernels: Sequence[KernelAudit]) -> list[str]:
    """Markdown bullets on what the tables show beyond the invariants, per AMD arch and kernel kind: SGPR spills
    into VGPR lanes (no memory traffic, but ``v_readlane``/``v_writelane`` in the main loop cost issue slots),
    AGPRs used as extra VGPR storage on gfx90a+ (``v_accvgpr_*`` copies), VGPR-limited occupancy and the
    gfx906 occupancy per kind; then the LDS bank-conflict degrees per kind and read kind (arch-independent:
    one model), padded and unpadded."""
    out = []
    for arch in sorted({a.arch for a in kernels if a.vendor == "amd"}, key=_arch_order):
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
        info = arch_info(ks[0].arch)
        blocks, waves = info.lds_per_cu // lds, -(-threads // wave)
        archs = sorted({a.arch for a in ks}, key=_arch_order)
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
    from .._probe import READ_KINDS

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
              "docstring of `rocflash/isa/loops.py`. "
              "gl128 = `global_load_dwordx4`, gl narrow = narrower global loads, ds128 = `ds_read_b128`, ds64 = "
              "`ds_read_b64` and `ds_read2_b64` (one instruction, two 64-bit reads), dot2 = `v_dot2_f32_f16` "
              "(gfx906) / `v_dot2c_f32_f16` (gfx908+), fma = fp32 FMA family (`v_fma_f32`, `v_fmac_f32`, "
              "`v_mac_f32`, `v_fma_mix_f32`, `v_pk_fma_f32`, ...), fma64 = `v_fma_f64` / `v_fmac_f64` (the fp32 kernels' score and "
              "dP sums), exp = `v_exp_f32`. VGPR on gfx90a/gfx942 is the "
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


