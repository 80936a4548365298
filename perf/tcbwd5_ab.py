"""Same-process A/B of the atomic-dQ kernel's opt-in warpgroup (wgmma, sm_90a builds) variants against the default
mma.sync kernel, through a switch read at each launch (hip_src/fmha_mma_bwd.h): --switch ROCFLASH_BWD_DQ_WGMMA (the dQ
product; modes 1, 0; tcbwd5 run W1) or ROCFLASH_BWD_DQ_TILE (the dQ warp tile: 1 = 32 query rows, 0 = 16, the
default; tcws7) or ROCFLASH_BWD_LEAN (the lean kernel, 2; in -DRF_TCBWD8_DIAG builds also its steps and timing
diagnostics 1, 8, 9, whose dq is wrong by design; tcbwd8). (tcws6's ROCFLASH_BWD_SDP_WGMMA, S^T and dP^T on wgmma,
measured 7-9 % slower in integ20, was removed in branch tc80.)

Per case and round, every mode in turn: device time of the dK/dV + atomic-dQ kernel and of the whole backward
(torch profiler, as perf/bwd_breakdown.py: mean of --repeats steps), which kernel ran (its name), and per non-zero
mode max|dX_mode - dX_0| / max|dX_0| of one step for dq, dk, dv (float32 atomics in varying order for dq; the dQ
switch keeps dk, dv bitwise, the S^T / dP^T switch need not) and whether dk, dv are bitwise equal.

    python3 perf/tcbwd5_ab.py [--switch NAME] [--modes 1,0] [--cases d128,d64,d128causal,d128fp16] [--rounds 2] [--repeats 5]
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
        kind = "wgmma" if "dkdvq_wgmma" in evt.key else \
            "dq2" if "dkdvq_dq2" in evt.key else "lean" if "dkdvq_lean" in evt.key else \
            "mma" if "dkdvq_mma" in evt.key else "fwd" if "fmha_fwd" in evt.key else "other"
        totals[kind] += us / 1000.0 / repeats
    return totals


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--switch", default="ROCFLASH_BWD_DQ_WGMMA", choices=("ROCFLASH_BWD_DQ_WGMMA", "ROCFLASH_BWD_DQ_TILE",
                                                                           "ROCFLASH_BWD_LEAN"))
    ap.add_argument("--modes", default="1,0", help="comma-separated switch values, timed in this order per round")
    ap.add_argument("--cases", default="d128,d64,d128causal,d128fp16")
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--nheads", type=int, default=16)
    ap.add_argument("--seqlen", type=int, default=4096)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args(argv)
    modes = args.modes.split(",")
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
            for mode in modes:
                os.environ[args.switch] = mode
                step()
                torch.cuda.synchronize()
                grads[mode] = (q.grad.clone(), k.grad.clone(), v.grad.clone())
                with profile(activities=[ProfilerActivity.CUDA]) as prof:
                    for _ in range(args.repeats):
                        step()
                    torch.cuda.synchronize()
                t = _device_ms(prof, args.repeats)
                ran = [x for x in ("wgmma", "dq2", "lean", "mma") if t[x]]
                kernel = "+".join(ran) or "?"
                main = sum(t[x] for x in ("wgmma", "dq2", "lean", "mma"))
                print(f"  {name:11s} round {r} {args.switch}={mode}: kernel {kernel:5s} "
                      f"dK/dV+dQ {main:8.3f} ms  backward {main + t['other']:8.3f} ms  forward {t['fwd']:7.3f} ms")
        ref = grads.get("0")
        for mode in (m for m in modes if m != "0" and ref is not None):
            rel = {n: ((a.float() - b.float()).abs().max() / b.float().abs().max()).item()
                   for n, a, b in zip(("dq", "dk", "dv"), grads[mode], ref)}
            print(f"  {name:11s} {args.switch}={mode}: max|d - d_0| / max|d_0|: dq {rel['dq']:.2e}, dk {rel['dk']:.2e}, "
                  f"dv {rel['dv']:.2e}; dk bitwise {torch.equal(grads[mode][1], ref[1])}, dv bitwise "
                  f"{torch.equal(grads[mode][2], ref[2])}; finite {all(bool(torch.isfinite(g).all()) for g in grads[mode])}")
    os.environ.pop(args.switch, None)
    return 0


if __name__ == "__main__":
    sys.exit(main())
