"""Same-process A/B of the atomic-dQ kernel's dQ product: wgmma (ROCFLASH_BWD_DQ_WGMMA=1, opt-in, sm_90a builds)
against mma.sync (=0, the default); read at each launch (hip_src/fmha_mma_bwd.h wgmma_dq_enabled). Run W1 (perf/
RESULTS.md) also had a mode 2 (wgmma issued beside the dK product), removed after it.

Per case and round, both settings in turn: device time of the dK/dV + atomic-dQ kernel and of the whole backward
(torch profiler, as perf/bwd_breakdown.py: mean of --repeats steps), which kernel ran (its name), and
max|dq_wgmma - dq_mma| / max|dq| of one step per wgmma setting (float32 atomics in varying order: not bitwise, a few bf16 eps at most;
dk and dv must be bitwise equal, the same products in the same order).

    python3 perf/tcbwd5_ab.py [--cases d128,d64,d128causal,d128fp16] [--rounds 2] [--repeats 5]
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import defaultdict

import torch
from torch.profiler import ProfilerActivity, profile

import rocflash
from rocflash import selector

_CASES = {  # name: (headdim, causal, dtype)
    "d128": (128, False, torch.bfloat16), "d64": (64, False, torch.bfloat16),
    "d128causal": (128, True, torch.bfloat16), "d64causal": (64, True, torch.bfloat16),
    "d128fp16": (128, False, torch.float16),
}


def _device_ms(prof, repeats: int) -> dict[str, float]:
    totals: dict[str, float] = defaultdict(float)
    for evt in prof.key_averages():
        if getattr(evt, "device_type", None) != torch.autograd.DeviceType.CUDA:
            continue
        us = getattr(evt, "device_time_total", None)
        us = getattr(evt, "cuda_time_total", 0.0) if us is None else us
        kind = "wgmma" if "dkdvq_wgmma" in evt.key else "mma" if "dkdvq_mma" in evt.key else \
            "fwd" if "fmha_fwd" in evt.key else "other"
        totals[kind] += us / 1000.0 / repeats
    return totals


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", default="d128,d64,d128causal,d128fp16")
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--nheads", type=int, default=16)
    ap.add_argument("--seqlen", type=int, default=4096)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args(argv)
    if not torch.cuda.is_available():
        print("tcbwd5_ab: needs a GPU", file=sys.stderr)
        return 2
    print(f"{torch.cuda.get_device_name()}: batch {args.batch}, nheads {args.nheads}, seqlen {args.seqlen}; device ms "
          f"per step (mean of {args.repeats}); rocflash compiled for {selector.compiled_archs('cuda')}")
    for name in args.cases.split(","):
        d, causal, dtype = _CASES[name]
        torch.manual_seed(0)
        shape = (args.batch, args.seqlen, args.nheads, d)
        q, k, v = (torch.randn(shape, device="cuda", dtype=dtype, requires_grad=True) for _ in range(3))
        dout = torch.randn(shape, device="cuda", dtype=dtype)

        def step():
            q.grad = k.grad = v.grad = None
            rocflash.flash_attn_func(q, k, v, causal=causal, backend="cuda", deterministic=False).backward(dout)

        grads = {}
        for r in range(args.rounds):
            for mode in ("1", "0"):
                os.environ["ROCFLASH_BWD_DQ_WGMMA"] = mode
                step()
                torch.cuda.synchronize()
                grads[mode] = (q.grad.clone(), k.grad.clone(), v.grad.clone())
                with profile(activities=[ProfilerActivity.CUDA]) as prof:
                    for _ in range(args.repeats):
                        step()
                    torch.cuda.synchronize()
                t = _device_ms(prof, args.repeats)
                kernel = "wgmma" if t["wgmma"] else "mma" if t["mma"] else "?"
                bwd = t["wgmma"] + t["mma"] + t["other"]
                print(f"  {name:11s} round {r} ROCFLASH_BWD_DQ_WGMMA={mode}: kernel {kernel:5s} "
                      f"dK/dV+dQ {t['wgmma'] + t['mma']:8.3f} ms  backward {bwd:8.3f} ms  forward {t['fwd']:7.3f} ms")
        q0, k0, v0 = grads["0"]
        for mode in ("1",):
            q1, k1, v1 = grads[mode]
            rel = ((q1.float() - q0.float()).abs().max() / q0.float().abs().max()).item()
            print(f"  {name:11s} ROCFLASH_BWD_DQ_WGMMA={mode}: max|dq - dq_mma| / max|dq| = {rel:.2e}; dk bitwise "
                  f"{torch.equal(k1, k0)}, dv bitwise {torch.equal(v1, v0)}; finite {bool(torch.isfinite(q1).all())}")
    os.environ.pop("ROCFLASH_BWD_DQ_WGMMA", None)
    return 0


if __name__ == "__main__":
    sys.exit(main())
