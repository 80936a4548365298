"""Cycle MODEL of the gfx906 scalar-broadcast forward (hip_src/fmha_fwd_sbcast.h, fp16 d64 / d128), and a second
latency rule, with the latencies' sensitivity (``latencies`` arguments; the figures and their public sources are
``cycles.LATENCIES``).

THIS IS A MODEL, NOT A MEASUREMENT. The rules are those of :mod:`rocflash.emu.cycles`, with two additions:

* memory traffic of scalar loads: the emulator records bytes for vector memory only. The forward's K/V reads
  are s_load_dwordx16 of wave-uniform rows; the 4 waves of a workgroup walk the same keys, so the model charges
  HBM once per workgroup for them (K and Vp: 2 * 2 * headdim bytes per key, padded to Bc), the same per-workgroup
  accounting the vector kernels get (each workgroup reads its K/V tiles once; reuse across workgroups through
  L2 is not credited to either). The other 3 waves' reads are assumed to hit the 16 KB scalar cache that 3 CUs
  share (the waves of a workgroup stay within a few keys of each other: no barrier, identical work).
* ``wait_latency``: exposed latency per wave from the trace's waits instead of per load. Walking one wave's
  trace in issue order (4 clocks per issued instruction, 16 for quarter rate: cycles.classify), a global load
  completes 600 clocks, a scalar load 100 and an LDS read 64 clocks after its issue (cycles.LATENCIES: each
  with its public sources); ``s_waitcnt vmcnt(N)`` / ``lgkmcnt(N)`` stalls until the loads it waits for are done
  (vector loads and LDS reads in order; scalar loads may return out of order, so with a scalar load outstanding
  lgkmcnt(N) waits for all). LAT = the stall clocks: loads issued together share one latency, and instructions
  the wave issues between a load and its wait hide it. ``latencies`` overrides the figures (sensitivity).
  The per-load rule of cycles.py (every load's full latency, serially) is kept as the other bound.
Scalar-cache bandwidth is not modelled: per CU and key, 4 waves read 512 bytes each from the cache in ~600
issue clocks (3.4 B/clock/CU, 10 B/clock per 3-CU cache), L2 traffic on misses at most 4x the HBM bytes above.
"""

from __future__ import annotations

import math

import numpy as np
import torch

from .cycles import (CUS, LATENCIES, GroupCost, Prediction, classify, group_cost, occupancy)


def _latency(name: str, latencies: dict | None) -> float:
    return float((latencies or {}).get(name, LATENCIES[name].clocks))


def wait_latency(program, wave, latencies: dict | None = None) -> float:
    """Stall clocks of one traced wave under the per-wait rule (module docstring). ``latencies``: clocks by
    name ("scalar", "global", "lds") replacing cycles.LATENCIES."""
    glat, slat, llat = (_latency(n, latencies) for n in ("global", "scalar", "lds"))
    instrs = program.kernel.instructions
    now = 0.0
    vm: list[float] = []  # completion clocks of outstanding global loads/stores, in issue order
    smem: list[tuple[float, bool]] = []  # (completion clock, scalar load?) of LGKM operations, in issue order
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
                if len(smem) > n:
                    # in order (LDS only): all but the n newest; a scalar load outstanding: all of them
                    keep = n if not any(sc for _, sc in smem) else 0
                    done = max(t for t, _ in smem[:len(smem) - keep])
                    if done > now:
                        stall += done - now
                        now = done
                    smem = smem[len(smem) - keep:] if keep else []
            continue
        if cls == "vmem" and (m.startswith("global_load") or m.startswith("buffer_load")):
            vm.append(now + glat)
        elif cls == "vmem":
            vm.append(now)  # stores count in vmcnt; no latency charged
        elif cls == "smem":
            smem.append((now + slat, True))
        elif cls == "lds" and m.startswith("ds_read"):
            smem.append((now + llat, False))
        elif cls == "lds":
            smem.append((now, False))  # LDS writes / swizzles count in lgkmcnt; no latency charged
        now += clk
    return stall


def _tag(latencies: dict | None) -> str:
    """The overridden latencies of a row, for its label."""
    return "" if latencies is None else ", " + ", ".join(f"{k} {x}" for k, x in sorted(latencies.items()))


def _trace_sbcast(seqlen_q: int, seqlen_k: int, block_n: int, headdim: int = 128):
    from .driver_sbcast import images, run_forward_sbcast

    g = torch.Generator().manual_seed(0)
    q = torch.randn(1, seqlen_q, 1, headdim, generator=g).half()
    k = torch.randn(1, seqlen_k, 1, headdim, generator=g).half()
    v = torch.randn(1, seqlen_k, 1, headdim, generator=g).half()
    trace: list = []
    run_forward_sbcast(q, k, v, block_n=block_n, groups=[0], trace=trace)
    _, fwd = images(block_n, headdim)
    waves = [w for (_, _, w) in trace]
    cost = group_cost(fwd.program, waves)
    cost.mem_bytes += 2 * 2 * headdim * (-(-seqlen_k // block_n) * block_n)  # K + Vp once per workgroup (docstring)
    return fwd, cost, waves


def predict_sbcast(label: str, batch: int, nheads: int, seqlen_q: int, seqlen_k: int, block_n: int = 16,
                   points: tuple[int, int] | None = None, headdim: int = 128,
                   latencies: tuple[dict | None, ...] = (None,)) -> tuple[Prediction, ...]:
    """(per-load latency rule, then one per-wait prediction per entry of ``latencies``) of a non-causal fp16
    shape; an entry is None (cycles.LATENCIES) or a dict of overrides, e.g. {"scalar": 20}."""
    from .driver_sbcast import THREADS, kernel_name

    rows = min(seqlen_q, THREADS)
    points = points or (2 * block_n, 6 * block_n)
    fwd, c1, w1 = _trace_sbcast(rows, points[0], block_n, headdim)
    _, c2, w2 = _trace_sbcast(rows, points[1], block_n, headdim)
    t1, t2, t = points[0] / block_n, points[1] / block_n, math.ceil(seqlen_k / block_n)
    v = c1.vector() + (c2.vector() - c1.vector()) * (t - t1) / (t2 - t1)
    waves, wg_per_cu = occupancy(fwd.program, 0, THREADS)
    workgroups = math.ceil(seqlen_q / THREADS) * nheads * batch
    flops = 4.0 * batch * nheads * seqlen_q * seqlen_k * headdim
    name = kernel_name(block_n, headdim)
    out = [Prediction(label + " [per-load latency]", name, workgroups, waves, wg_per_cu, GroupCost.from_vector(v), flops)]
    for lat in latencies:
        a = max(wait_latency(fwd.program, w, lat) for w in w1)
        b = max(wait_latency(fwd.program, w, lat) for w in w2)
        vw = v.copy()
        vw[5] = a + (b - a) * (t - t1) / (t2 - t1)
        out.append(Prediction(f"{label} [per-wait latency{_tag(lat)}]", name, workgroups, waves, wg_per_cu,
                              GroupCost.from_vector(vw), flops))
    return tuple(out)


def predict_vector_per_wait(label: str, batch: int, nheads: int, seqlen_q: int, seqlen_k: int, config=None,
                            headdim: int = 128, latencies: tuple[dict | None, ...] = (None,)) -> tuple[Prediction, ...]:
    """The dispatcher's vector forward (fp16) under the per-wait latency rule, for the same comparison: one
    Prediction per entry of ``latencies`` (as predict_sbcast)."""
    from .cycles import _traced_launches, predict_forward
    from .driver import kernel_image, run_forward

    img = kernel_image("fwd", "fp16", headdim, True, config)
    cfg = img.config
    base = predict_forward(label, "fp16", batch, nheads, seqlen_q, seqlen_k, headdim, config=config)
    traces = []
    for s in (2 * cfg.block_n, 6 * cfg.block_n):
        g = torch.Generator().manual_seed(0)
        q = torch.randn(1, cfg.block_m, 1, headdim, generator=g).half()
        k = torch.randn(1, s, 1, headdim, generator=g).half()
        vv = torch.randn(1, s, 1, headdim, generator=g).half()
        traces.append(_traced_launches(lambda: run_forward(q, k, vv, groups=[0], aligned=True, config=config))[0][1])
    t1, t2, t = 2, 6, math.ceil(seqlen_k / cfg.block_n)
    out = []
    for lat in latencies:
        a, b = (max(wait_latency(img.program, w, lat) for w in ws) for ws in traces)
        vec = base.cost.vector()
        vec[5] = a + (b - a) * (t - t1) / (t2 - t1)
        out.append(Prediction(f"{label} [per-wait latency{_tag(lat)}]", base.kernel, base.workgroups, base.waves_per_simd,
                              base.wg_per_cu, GroupCost.from_vector(vec), base.flops))
    return tuple(out)


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
