"""Cycle MODEL of the gfx906 scalar-broadcast forward (hip_src/fmha_fwd_sbcast.h), and a second latency rule.

THIS IS A MODEL, NOT A MEASUREMENT. The rules are those of :mod:`rocflash.emu.cycles`, with two additions:

* memory traffic of scalar loads: the emulator records bytes for vector memory only. The forward's K/V reads
  are s_load_dwordx16 of wave-uniform rows; the 4 waves of a workgroup walk the same keys, so the model charges
  HBM once per workgroup for them (K and Vp: 2 * 256 bytes per key, padded to Bc), the same per-workgroup
  accounting the vector kernels get (each workgroup reads its K/V tiles once; reuse across workgroups through
  L2 is not credited to either). The other 3 waves' reads are assumed to hit the 16 KB scalar cache that 3 CUs
  share (the waves of a workgroup stay within a few keys of each other: no barrier, identical work).
* ``wait_latency``: exposed latency per wave from the trace's waits instead of per load. Walking one wave's
  trace in issue order (4 clocks per issued instruction, 16 for quarter rate: cycles.classify), a global load
  completes 600 clocks and a scalar load 100 clocks after its issue (cycles.GLOBAL_LATENCY / SCALAR_LATENCY,
  assumptions); ``s_waitcnt vmcnt(N)`` / ``lgkmcnt(N)`` stalls until the loads it waits for are done (vector
  loads in order; scalar loads may return out of order, so lgkmcnt(0) waits for all). LAT = the stall clocks:
  loads issued together share one latency, and instructions the wave issues between a load and its wait hide it.
  The per-load rule of cycles.py (every load's full latency, serially) is kept as the other bound.
Scalar-cache bandwidth is not modelled: per CU and key, 4 waves read 512 bytes each from the cache in ~600
issue clocks (3.4 B/clock/CU, 10 B/clock per 3-CU cache), L2 traffic on misses at most 4x the HBM bytes above.
"""

from __future__ import annotations

import math

import numpy as np
import torch

from .cycles import (CUS, GLOBAL_LATENCY, SCALAR_LATENCY, GroupCost, Prediction, classify, group_cost, occupancy)


def wait_latency(program, wave) -> float:
    """Stall clocks of one traced wave under the per-wait rule (module docstring)."""
    instrs = program.kernel.instructions
    now = 0.0
    vm: list[float] = []  # completion clocks of outstanding global loads/stores, in issue order
    smem: list[float] = []
    stall = 0.0
    for pc in wave.trace:
        ins = instrs[pc]
        m = ins.mnemonic
        cls, clk = classify(m)
        if m == "s_waitcnt":
            if "vmcnt" in ins.modifiers:
                n = int(ins.modifiers["vmcnt"])
                if len(vm) > n:
                    done = vm[len(vm) - n - 1]
                    if done > now:
                        stall += done - now
                        now = done
                    vm = vm[len(vm) - n:] if n else []
            if "lgkmcnt" in ins.modifiers and smem:
                n = int(ins.modifiers["lgkmcnt"])
                if n == 0 or len(smem) > n:
                    done = max(smem)
                    if done > now:
                        stall += done - now
                        now = done
                    smem = []
            continue
        if cls == "vmem" and (m.startswith("global_load") or m.startswith("buffer_load")):
            vm.append(now + GLOBAL_LATENCY)
        elif cls == "vmem":
            vm.append(now)  # stores count in vmcnt; no latency charged
        elif cls == "smem":
            smem.append(now + SCALAR_LATENCY)
        now += clk
    return stall


def _trace_sbcast(seqlen_q: int, seqlen_k: int, block_n: int):
    from .driver_sbcast import images, run_forward_sbcast

    g = torch.Generator().manual_seed(0)
    q = torch.randn(1, seqlen_q, 1, 128, generator=g).half()
    k = torch.randn(1, seqlen_k, 1, 128, generator=g).half()
    v = torch.randn(1, seqlen_k, 1, 128, generator=g).half()
    trace: list = []
    run_forward_sbcast(q, k, v, block_n=block_n, groups=[0], trace=trace)
    _, fwd = images(block_n)
    waves = [w for (_, _, w) in trace]
    cost = group_cost(fwd.program, waves)
    cost.mem_bytes += 2 * 2 * 128 * (-(-seqlen_k // block_n) * block_n)  # K + Vp once per workgroup (docstring)
    lat_wait = max(wait_latency(fwd.program, w) for w in waves)
    return fwd, cost, lat_wait


def predict_sbcast(label: str, batch: int, nheads: int, seqlen_q: int, seqlen_k: int, block_n: int = 16,
                   points: tuple[int, int] | None = None) -> tuple[Prediction, Prediction]:
    """(per-load latency rule, per-wait latency rule) predictions of a non-causal fp16 d128 shape."""
    from .driver_sbcast import THREADS, kernel_name

    rows = min(seqlen_q, THREADS)
    points = points or (2 * block_n, 6 * block_n)
    fwd, c1, w1 = _trace_sbcast(rows, points[0], block_n)
    _, c2, w2 = _trace_sbcast(rows, points[1], block_n)
    t1, t2, t = points[0] / block_n, points[1] / block_n, math.ceil(seqlen_k / block_n)
    v = c1.vector() + (c2.vector() - c1.vector()) * (t - t1) / (t2 - t1)
    lat = w1 + (w2 - w1) * (t - t1) / (t2 - t1)
    waves, wg_per_cu = occupancy(fwd.program, 0, THREADS)
    workgroups = math.ceil(seqlen_q / THREADS) * nheads * batch
    flops = 4.0 * batch * nheads * seqlen_q * seqlen_k * 128
    name = kernel_name(block_n) + " (not in ck_configs)"
    per_load = Prediction(label + " [per-load latency]", name, workgroups, waves, wg_per_cu, GroupCost.from_vector(v), flops)
    vw = v.copy()
    vw[5] = lat
    per_wait = Prediction(label + " [per-wait latency]", name, workgroups, waves, wg_per_cu, GroupCost.from_vector(vw), flops)
    return per_load, per_wait


def predict_vector_per_wait(label: str, batch: int, nheads: int, seqlen_q: int, seqlen_k: int, config=None) -> Prediction:
    """The dispatcher's vector forward (fp16 d128) under the per-wait latency rule, for the same comparison."""
    from .cycles import _traced_launches, predict_forward
    from .driver import kernel_image, run_forward

    cfg = kernel_image("fwd", "fp16", 128, True, config).config
    base = predict_forward(label, "fp16", batch, nheads, seqlen_q, seqlen_k, 128, config=config)
    lats = []
    for s in (2 * cfg.block_n, 6 * cfg.block_n):
        g = torch.Generator().manual_seed(0)
        q = torch.randn(1, cfg.block_m, 1, 128, generator=g).half()
        k = torch.randn(1, s, 1, 128, generator=g).half()
        vv = torch.randn(1, s, 1, 128, generator=g).half()
        launches = _traced_launches(lambda: run_forward(q, k, vv, groups=[0], aligned=True, config=config))
        img = kernel_image("fwd", "fp16", 128, True, config)
        lats.append(max(wait_latency(img.program, w) for w in launches[0][1]))
    t1, t2, t = 2, 6, math.ceil(seqlen_k / cfg.block_n)
    vec = base.cost.vector()
    vec[5] = lats[0] + (lats[1] - lats[0]) * (t - t1) / (t2 - t1)
    return Prediction(label + " [per-wait latency]", base.kernel, base.workgroups, base.waves_per_simd, base.wg_per_cu,
                      GroupCost.from_vector(vec), base.flops)


def scalar_load_hazards(kernel) -> list[str]:
    """Static check of a kernel's scalar loads (the emulator cannot see these: its memory operations complete at
    once). Between an ``s_load_dword*`` and the ``s_waitcnt lgkmcnt(0)`` that ends it (Vega ISA 4.4: scalar loads
    return out of order, so only lgkmcnt(0) guarantees the data), no instruction may read or write the load's
    destination SGPRs, and no branch target or branch may lie in between (straight-line code only). Returns one
    message per violation (empty: none)."""
    problems = []
    targets = set(kernel.labels.values())
    pending: list[tuple[int, int, object]] = []  # (first SGPR, count, load instruction)
    for idx, ins in enumerate(kernel.instructions):
        m = ins.mnemonic
        if pending and (idx in targets or m.startswith(("s_branch", "s_cbranch", "s_setpc", "s_swappc"))):
            problems.append(f"{pending[0][2].where()}: still in flight at {ins.where()} (branch or branch target)")
            pending = []
        if m == "s_waitcnt" and ins.modifiers.get("lgkmcnt") == "0":
            pending = []
            continue
        regs = [(op.reg, op.count) for op in ins.operands if op.kind == "s"]
        for first, count, load in pending:
            for reg, n in regs:
                if reg < first + count and first < reg + n:
                    problems.append(f"{ins.where()}: touches s[{first}:{first + count - 1}] of {load.where()} before "
                                    f"its s_waitcnt lgkmcnt(0)")
        if m.startswith("s_load_dword"):
            d = ins.operands[0]
            pending.append((d.reg, d.count, ins))
    return problems
