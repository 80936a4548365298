"""A cycle MODEL of our gfx906 kernels on an MI50, computed from the emulator's dynamic traces.

THIS IS A MODEL, NOT A MEASUREMENT. No AMD GPU ran anything; the numbers below are what these rules give.

Input: the instructions each wave of one traced workgroup executed (the emulator's trace, program order),
with the LDS bank clocks of each LDS access (from the lanes' actual addresses) and the bytes of each global
access. Rules (GCN / Vega, ISA guide chapters 2 "Program Organization", 4.4 "Data Dependency Resolution" and
10 "Data Share Operations"; rates from AMD's Vega / MI50 specifications; the latencies from the public sources
listed in ``LATENCIES``, none of them measured on gfx906):
  * issue: a wave issues at most one instruction per 4 clocks (the sequencer serves the 4 SIMDs in turn);
    a wave64 VALU instruction occupies its SIMD16 for 4 clocks: v_dot2_f32_f16, fp32 and int32 ops at full
    rate (4), transcendentals (v_exp/log/rcp/rsq/sqrt) and 32-bit multiplies (v_mul_lo/hi_u32,
    v_mad_u64_u32, v_div_*) at quarter rate (16), 64-bit shifts and fp64 ops (``*_f64``: v_fma_f64 and the
    conversions to and from fp64 of the fp32 score product) at half rate (8: MI50's fp64 peak, 6.6 TFLOP/s, is
    half its fp32 peak; the conversions' rate is assumed equal, not sourced); SALU, branch, memory
    issue 4 clocks; s_waitcnt / s_barrier / s_nop are waits (counted as 0 issue here);
  * LDS: one unit per CU, 128 bytes per clock over 32 banks x 4 bytes; an access takes the sum over its lane
    groups of the most distinct dwords in one bank (1 per group when conflict-free); ds_swizzle/ds_bpermute 2;
  * global memory: the kernel's bytes at 1.02 TB/s shared by 60 CUs (9.86 bytes per clock per CU at
    1725 MHz); latency 600 clocks per dependent global load, 100 per scalar load (``LATENCIES``: sourced
    figures span 320-800 and 20-100+);
  * occupancy: waves per SIMD from the kernel's VGPRs (256 per lane / VGPRs rounded up to 4, at most 10) and
    workgroups per CU from LDS (65536 / bytes per workgroup);
  * per workgroup: SIMDmax = max over its waves of their issue clocks, SIMDsum = their sum, LDS = sum over
    waves, MEM = bytes / bytes-per-clock, LAT = max over waves of the latencies; per CU with W = workgroups / CUs
    and R = ceil(workgroups / (CUs * WG per CU)) rounds of resident workgroups:
    SIMD              max(W * SIMDsum / 4, R * SIMDmax)   (4 SIMDs share the waves; a wave stays on one SIMD)
    perfect overlap   T = max(SIMD, W * LDS, W * MEM)
    no overlap        T = SIMD + W * (LDS + MEM) + R * LAT  (only resident workgroups' latencies overlap)
  * a workgroup's clocks are linear in its K/V tiles: two traced runs (two seqlen_k) give the fit that is
    evaluated at the target shape's seqlen_k (same instance, full query tile or the decode row).
MI50 peak: 60 CUs x 64 lanes x 1725 MHz x 4 flop per v_dot2_f32_f16 = 26.5 TFLOP/s fp16.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import torch

CUS = 60
SIMDS = 4  # per CU
CLOCK_HZ = 1.725e9
HBM_BYTES_PER_S = 1.024e12
PEAK_FP16_FLOPS = CUS * 64 * CLOCK_HZ * 4


@dataclasses.dataclass(frozen=True)
class Latency:
    """One latency the model charges (shader clocks) and the public figures it rests on: (clocks, source)."""

    clocks: int
    why: str
    sources: tuple[tuple[str, str], ...]


# Every latency the model uses, with its public sources (none is a measurement on gfx906; see perf/RESULTS.md,
# "Sourced latencies"). LLVM's figures are in its scheduling model's cycles, one per wave64 issue slot (the GCN
# models state "1 / (operations / cycle) / 4"; its GFX10 model, one issue per clock, lists 4x the values:
# SMEM/LDS 20, VMEM 320), so they are multiplied by 4 here.
LATENCIES = {
    "scalar": Latency(100, "the larger of the two sourced figures (the other is a compiler scheduling guess)", (
        ("20", "LLVM AMDGPU scheduling model, llvm/lib/Target/AMDGPU/SISchedule.td, SICommonWriteRes (the GCN "
               "models incl. gfx906): WriteSMEM latency 5 issue cycles = 20 clocks; the file says its latencies are "
               "taken from AMD's Accelerated Parallel Processing guide and 'may not be accurate'"),
        (">= 100", "gem5 GPU model (AMD's GCN3/Vega model), src/gpu-compute/GPU.py, ComputeUnit defaults: "
                   "scalar_mem_req_latency 50 + scalar_mem_resp_latency 50 GPU cycles, the pipeline to and from "
                   "the scalar cache, before the cache's own access"),
    )),
    "global": Latency(600, "inside the range measured on a CDNA3 part; LLVM's compiler figure is lower", (
        ("320", "LLVM SISchedule.td, SICommonWriteRes: WriteVMEM latency 80 issue cycles = 320 clocks"),
        ("500-800", "pyhip docs/mem_latency.md (github.com/tingqli/pyhip): HBM global_load_dwordx4 latency "
                    "measured with s_memtime on an MI308X (gfx942), 1 wave per CU"),
        (">= 100", "gem5 src/gpu-compute/GPU.py, ComputeUnit defaults: mem_req_latency 50 + mem_resp_latency 50 "
                   "GPU cycles before the TCP/L2/HBM latencies of its memory model"),
    )),
    "lds": Latency(64, "the measured figure (CDNA3) for a conflict-free 128-bit LDS read", (
        ("20 (8-256)", "LLVM SISchedule.td, SICommonWriteRes: WriteLDS latency 5 issue cycles = 20 clocks, "
                       "commented 'can be between 2 and 64' (8-256 clocks)"),
        ("52 / 64", "pyhip docs/mem_latency.md: ds_read_b32 / ds_read_b128 without bank conflict, measured with "
                    "s_memtime on an MI308X (gfx942)"),
    )),
}
GLOBAL_LATENCY = LATENCIES["global"].clocks  # clocks per dependent global load
SCALAR_LATENCY = LATENCIES["scalar"].clocks  # clocks per scalar load
LDS_LATENCY = LATENCIES["lds"].clocks  # clocks per LDS read (the per-wait rule of cycles_sbcast only)
TRANSCENDENTAL = ("v_exp_", "v_log_", "v_rcp_", "v_rsq_", "v_sqrt_", "v_sin_", "v_cos_")
QUARTER = ("v_mul_lo_u32", "v_mul_hi_u32", "v_mul_hi_i32", "v_mad_u64_u32", "v_mad_i64_i32", "v_div_scale",
           "v_div_fmas", "v_div_fixup")
HALF = ("v_lshlrev_b64", "v_lshrrev_b64", "v_ashrrev_i64")
WAITS = ("s_waitcnt", "s_barrier", "s_nop", "s_endpgm")


def classify(mnemonic: str) -> tuple[str, int]:
    """(class, issue clocks) of one wave64 instruction under the rules of the module docstring."""
    m = mnemonic
    if m.startswith("v_dot2"):
        return "dot2", 4
    if m.startswith(TRANSCENDENTAL):
        return "valu_trans", 16
    if m.startswith(QUARTER):
        return "valu_quarter", 16
    if m.startswith(HALF) or (m.startswith("v_") and "_f64" in m):
        return "valu_half", 8
    if m.startswith("v_"):
        return "valu", 4
    if m.startswith("ds_"):
        return "lds", 4
    if m.startswith(("global_", "buffer_", "flat_", "scratch_")):
        return "vmem", 4
    if m.startswith("s_load") or m.startswith("s_buffer_load"):
        return "smem", 4
    if m.startswith(WAITS):
        return "wait", 0
    if m.startswith(("s_branch", "s_cbranch")):
        return "branch", 4
    return "salu", 4


@dataclasses.dataclass
class GroupCost:
    """Clocks and bytes of one traced workgroup (see the module docstring)."""

    simd: float = 0.0  # max over waves of issue clocks
    valu: float = 0.0  # VALU clocks of that wave
    dot2: float = 0.0  # of which v_dot2
    lds: float = 0.0
    mem_bytes: float = 0.0
    latency: float = 0.0
    simd_sum: float = 0.0  # issue clocks of all waves
    instructions: int = 0

    def vector(self) -> np.ndarray:
        return np.array([self.simd, self.valu, self.dot2, self.lds, self.mem_bytes, self.latency, self.simd_sum,
                         self.instructions], dtype=np.float64)

    @classmethod
    def from_vector(cls, v) -> "GroupCost":
        return cls(*[float(x) for x in v[:7]], int(round(v[7])))


def group_cost(program, waves) -> GroupCost:
    """Cost of one workgroup from its traced waves (``Launcher.trace`` entries of one group)."""
    instrs = program.kernel.instructions
    meta = [classify(i.mnemonic) for i in instrs]
    g = GroupCost()
    for w in waves:
        counts = np.bincount(np.asarray(w.trace, dtype=np.int64), minlength=len(instrs))
        issue = valu = dot2 = lat = 0.0
        lds = 0.0
        for pc in np.nonzero(counts)[0]:
            cls, clk = meta[pc]
            n = int(counts[pc])
            issue += n * clk
            if cls.startswith("valu") or cls == "dot2":
                valu += n * clk
            if cls == "dot2":
                dot2 += n * clk
            if cls == "vmem" and instrs[pc].mnemonic.startswith("global_load"):
                lat += n * GLOBAL_LATENCY
            if cls == "smem":
                lat += n * SCALAR_LATENCY
            if cls == "lds" and pc not in w.events:
                lds += 2 * n  # swizzle / bpermute: one pass through the crossbar
        for pc, (lds_clk, nbytes) in w.events.items():
            lds += lds_clk
            g.mem_bytes += nbytes
        g.simd_sum += issue
        if issue > g.simd:
            g.simd, g.valu, g.dot2 = issue, valu, dot2
        g.lds += lds
        g.latency = max(g.latency, lat)
        g.instructions += int(counts.sum())
    return g


def occupancy(program, lds_bytes: int, threads: int) -> tuple[int, int]:
    """(waves per SIMD, workgroups per CU) from VGPRs and LDS (gfx906: 256 VGPRs per lane, 64 KiB LDS)."""
    vgprs = int(program.kernel.amdhsa.get("next_free_vgpr", 256))
    waves = min(10, 256 // max(4, -(-vgprs // 4) * 4))
    waves_per_wg = -(-threads // 64)
    by_waves = max(1, waves * 4 // waves_per_wg)
    by_lds = 65536 // max(lds_bytes, 1) if lds_bytes else by_waves
    return waves, max(1, min(by_waves, by_lds))


def traced_forward_group(dtype: str, headdim: int, seqlen_q: int, seqlen_k: int, config=None):
    """Trace workgroup 0 of a forward run (batch 1, one head): (program, cost, config, lds bytes)."""
    from .driver import DTYPES, kernel_image, run_forward

    torch_dtype = next(t for t, (n, _) in DTYPES.items() if n == dtype)
    g = torch.Generator().manual_seed(0)
    q = torch.randn(1, seqlen_q, 1, headdim, generator=g).to(torch_dtype)
    k = torch.randn(1, seqlen_k, 1, headdim, generator=g).to(torch_dtype)
    v = torch.randn(1, seqlen_k, 1, headdim, generator=g).to(torch_dtype)
    launches = _traced_launches(lambda: run_forward(q, k, v, groups=[0], aligned=True, config=config))
    img = kernel_image("fwd", dtype, headdim, True, config)
    waves = launches[0][1]
    lds = img.program.kernel.group_segment_fixed_size + img.dynamic_lds
    return img, group_cost(img.program, waves), lds


@dataclasses.dataclass
class Prediction:
    label: str
    kernel: str
    workgroups: int
    waves_per_simd: int
    wg_per_cu: int
    cost: GroupCost  # per workgroup at the target seqlen_k (fitted)
    flops: float

    def times(self) -> tuple[float, float]:
        c = self.cost
        mem = c.mem_bytes / (HBM_BYTES_PER_S / CUS / CLOCK_HZ)
        per_cu = self.workgroups / CUS
        rounds = math.ceil(self.workgroups / (CUS * self.wg_per_cu))
        simd = max(per_cu * c.simd_sum / SIMDS, rounds * c.simd)  # SIMDs shared by resident waves; one wave per SIMD
        overlap = max(simd, per_cu * c.lds, per_cu * mem)
        no_overlap = simd + per_cu * (c.lds + mem) + rounds * c.latency
        return overlap / CLOCK_HZ, no_overlap / CLOCK_HZ

    def row(self) -> str:
        t_fast, t_slow = self.times()
        c = self.cost
        mem = c.mem_bytes / (HBM_BYTES_PER_S / CUS / CLOCK_HZ)
        tf = lambda t: self.flops / t / 1e12 if self.flops else 0.0  # noqa: E731
        return (f"| {self.label} | {self.kernel} | {self.workgroups} | {self.waves_per_simd} / {self.wg_per_cu} | "
                f"{t_fast * 1e3:.3f} ({tf(t_fast):.2f}, {100 * tf(t_fast) * 1e12 / PEAK_FP16_FLOPS:.0f}%) | "
                f"{t_slow * 1e3:.3f} ({tf(t_slow):.2f}, {100 * tf(t_slow) * 1e12 / PEAK_FP16_FLOPS:.0f}%) | "
                f"{100 * c.dot2 / max(c.valu, 1):.0f}% | {c.simd:.0f} / {c.lds:.0f} / {mem:.0f} / {c.latency:.0f} |")


def predict_forward(label: str, dtype: str, batch: int, nheads: int, seqlen_q: int, seqlen_k: int, headdim: int,
                    points: tuple[int, int] | None = None, config=None) -> Prediction:
    """Model one non-causal forward shape from two traced workgroups (full query tile, or 1 row for decode).
    ``config``: a forward tile config other than the dispatcher's (see :func:`rocflash.emu.driver.kernel_image`)."""
    from .driver import kernel_image

    cfg = kernel_image("fwd", dtype, headdim, True, config).config
    rows = min(seqlen_q, cfg.block_m)
    s1, s2 = points or (2 * cfg.block_n, 6 * cfg.block_n)
    img, c1, lds = traced_forward_group(dtype, headdim, rows, s1, config)
    _, c2, _ = traced_forward_group(dtype, headdim, rows, s2, config)
    t1, t2, t = s1 / cfg.block_n, s2 / cfg.block_n, math.ceil(seqlen_k / cfg.block_n)
    v = c1.vector() + (c2.vector() - c1.vector()) * (t - t1) / (t2 - t1)
    waves, wg_per_cu = occupancy(img.program, lds, cfg.threads)
    workgroups = math.ceil(seqlen_q / cfg.block_m) * nheads * batch
    flops = 4.0 * batch * nheads * seqlen_q * seqlen_k * headdim
    return Prediction(label, cfg.kernel_name(True) + ("" if config is None else " (not in ck_configs)"), workgroups, waves, wg_per_cu, GroupCost.from_vector(v), flops)


def _traced_launches(run):
    """Run ``run()`` with tracing on: [(program, traced waves of workgroup 0)] per launch, in launch order."""
    from .machine import Launcher

    launches = []
    orig = Launcher.launch

    def launch(self, *a, **kw):
        self.trace = []
        try:
            return orig(self, *a, **kw)
        finally:
            first = self.trace[0][0] if self.trace else None
            launches.append((self.program, [w for (g, _, w) in self.trace if g == first]))
    Launcher.launch = launch
    try:
        run()
    finally:
        Launcher.launch = orig
    return launches


def _backward_costs(dtype: str, headdim: int, seqlen_q: int, seqlen_k: int) -> dict:
    """Workgroup-0 costs of the preprocess, dK/dV and dQ launches of one backward run (batch 1, one head)."""
    from .driver import DTYPES, run_backward

    torch_dtype = next(t for t, (n, _) in DTYPES.items() if n == dtype)
    g = torch.Generator().manual_seed(0)
    mk = lambda *sh: torch.randn(*sh, generator=g).to(torch_dtype)  # noqa: E731
    q, k, v, do = mk(1, seqlen_q, 1, headdim), mk(1, seqlen_k, 1, headdim), mk(1, seqlen_k, 1, headdim), mk(1, seqlen_q, 1, headdim)
    out = mk(1, seqlen_q, 1, headdim)
    lse = torch.full((1, 1, seqlen_q), float(math.log(seqlen_k)), dtype=torch.float32)
    launches = _traced_launches(lambda: run_backward(q, k, v, out, lse, do, aligned=True))
    return {name: (prog, group_cost(prog, waves)) for name, (prog, waves) in zip(("preprocess", "bwd_dkdv", "bwd_dq"), launches)}


def predict_backward(label: str, dtype: str, batch: int, nheads: int, nheads_k: int, seqlen_q: int, seqlen_k: int,
                     headdim: int) -> list[Prediction]:
    """Model the three backward kernels of a non-causal shape: one Prediction per kernel (FLOPs on dK/dV + dQ:
    2.5x the forward's, split by their dot products: dK/dV 3 of 5, dQ 2 of 5)."""
    from .driver import kernel_image

    kv = kernel_image("bwd_dkdv", dtype, headdim, True)
    dq = kernel_image("bwd_dq", dtype, headdim, True)
    fwd_flops = 4.0 * batch * nheads * seqlen_q * seqlen_k * headdim
    group = nheads // nheads_k
    out = []
    # dK/dV: a workgroup owns block_n keys and loops over the query tiles of its GQA group.
    p1, p2 = 2 * kv.config.block_m, 4 * kv.config.block_m
    c1, c2 = (_backward_costs(dtype, headdim, p, kv.config.block_n)["bwd_dkdv"] for p in (p1, p2))
    t = group * math.ceil(seqlen_q / kv.config.block_m)
    vec = c1[1].vector() + (c2[1].vector() - c1[1].vector()) * (t - p1 / kv.config.block_m) / ((p2 - p1) / kv.config.block_m)
    lds = kv.program.kernel.group_segment_fixed_size + kv.dynamic_lds
    w, wg = occupancy(kv.program, lds, kv.config.threads)
    out.append(Prediction(f"{label}: dK/dV", kv.config.kernel_name(True), math.ceil(seqlen_k / kv.config.block_n) * nheads_k * batch,
                          w, wg, GroupCost.from_vector(vec), fwd_flops * 2.5 * 3 / 5))
    # dQ: a workgroup owns block_m query rows and loops over the K/V tiles.
    p1, p2 = 2 * dq.config.block_n, 4 * dq.config.block_n
    costs = [_backward_costs(dtype, headdim, dq.config.block_m, p) for p in (p1, p2)]
    c1, c2 = costs[0]["bwd_dq"], costs[1]["bwd_dq"]
    t = math.ceil(seqlen_k / dq.config.block_n)
    vec = c1[1].vector() + (c2[1].vector() - c1[1].vector()) * (t - p1 / dq.config.block_n) / ((p2 - p1) / dq.config.block_n)
    lds = dq.program.kernel.group_segment_fixed_size + dq.dynamic_lds
    w, wg = occupancy(dq.program, lds, dq.config.threads)
    out.append(Prediction(f"{label}: dQ", dq.config.kernel_name(True), math.ceil(seqlen_q / dq.config.block_m) * nheads * batch,
                          w, wg, GroupCost.from_vector(vec), fwd_flops * 2.5 * 2 / 5))
    # preprocess: 16 rows per workgroup, constant cost per workgroup.
    prog, pc = costs[0]["preprocess"]
    w, wg = occupancy(prog, 0, 256)
    out.append(Prediction(f"{label}: preprocess", "fmha_bwd_preprocess_kernel", math.ceil(batch * nheads * seqlen_q / 16),
                          w, wg, pc, 0.0))
    return out


HEADER = ("| case | kernel | workgroups | waves/SIMD / WG per CU | perfect-overlap bound: ms (TFLOP/s, % of 26.5) | "
          "no-overlap bound: ms (TFLOP/s, %) | dot2 share of VALU clocks | per WG clocks: SIMD / LDS / MEM / LAT |\n"
          "|---|---|---:|---|---|---|---:|---|")


def default_predictions(backward: bool = True) -> list[Prediction]:
    bwd = predict_backward("issue-2 headline backward", "fp16", 4, 32, 32, 4096, 4096, 128) if backward else []
    return bwd + [
        predict_forward("issue-2 headline: b4 h32 s4096 d128 fp16, non-causal", "fp16", 4, 32, 4096, 4096, 128),
        predict_forward("decode step: b8 h32/8 sq1 sk16384 d128 fp16", "fp16", 8, 32, 1, 16384, 128),
        predict_forward("decode preset: b8 h32/8 sq1 sk16384 d128 bf16", "bf16", 8, 32, 1, 16384, 128),
    ]
