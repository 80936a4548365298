"""Where the backward time goes: device time per kernel (torch profiler) for one forward + backward.

With --deterministic (flash_attn_func's deterministic=True) dQ gets its own kernel, which recomputes S = Q.K^T
and dP = dO.V^T (two of its three tile products); without it (the default, deterministic=False) the tensor-core
backward's dK/dV kernel adds dQ += dS.K atomically into a float32 buffer (its atomic-dQ variant,
fmha_bwd_dkdvq_mma_kernel), and torch zeroes that buffer and scales it into dq ("dQ buffer" row: every other
device kernel of the step, i.e. the zero fill, the scale and the copy).

    python3 perf/bwd_breakdown.py [--seqlen 4096] [--headdim 128] [--batch 4] [--nheads 16] [--dtype bf16]
                                  [--causal] [--deterministic]
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict

import torch
from torch.profiler import ProfilerActivity, profile

import rocflash

_KINDS = (("fmha_bwd_preprocess", "preprocess (D = rowsum(dO*O))"), ("fmha_bwd_dkdv", "dK/dV kernel"),
          ("fmha_bwd_dq", "dQ kernel"), ("", "dQ buffer (zero, scale, copy)"), ("fmha_fwd", "forward kernel"))
_BWD = 4  # the first _BWD kinds make the backward


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--nheads", type=int, default=16)
    ap.add_argument("--seqlen", type=int, default=4096)
    ap.add_argument("--headdim", type=int, default=128)
    ap.add_argument("--dtype", choices=("fp16", "bf16", "fp32"), default="bf16")
    ap.add_argument("--causal", action="store_true")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--deterministic", action="store_true", help="flash_attn_func(deterministic=True)")
    args = ap.parse_args(argv)
    if not torch.cuda.is_available():
        print("bwd_breakdown: needs a GPU", file=sys.stderr)
        return 2
    dtype = {"fp16": torch.float16, "bf16": torch.bfloat16, "fp32": torch.float32}[args.dtype]
    backend = "hip" if torch.version.hip else "cuda"
    shape = (args.batch, args.seqlen, args.nheads, args.headdim)
    q, k, v = (torch.randn(shape, device="cuda", dtype=dtype, requires_grad=True) for _ in range(3))
    dout = torch.randn(shape, device="cuda", dtype=dtype)

    def step():
        q.grad = k.grad = v.grad = None  # no gradient accumulation kernels in the step
        out = rocflash.flash_attn_func(q, k, v, causal=args.causal, backend=backend, deterministic=args.deterministic)
        out.backward(dout)

    step()  # warm-up
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(args.repeats):
            step()
        torch.cuda.synchronize()
    totals = defaultdict(float)
    for evt in prof.key_averages():  # kernels appear under their (mangled) names, e.g. rf::fmha_bwd_dq_kernel<...>
        device_us = getattr(evt, "device_time_total", None)
        if device_us is None:
            device_us = getattr(evt, "cuda_time_total", 0.0)
        if getattr(evt, "device_type", None) != torch.autograd.DeviceType.CUDA:  # device kernels only (no CPU ops)
            continue
        for key, _ in _KINDS:
            if key in evt.key:  # "" (dQ buffer): any other kernel; the forward's is matched first
                key = key if key or "fmha_fwd" not in evt.key else "fmha_fwd"
                totals[key] += device_us / 1000.0 / args.repeats  # us -> ms per step
                break
    bwd = sum(totals[key] for key, _ in _KINDS[:_BWD])
    print(f"rocflash {backend} on {torch.cuda.get_device_name()}: batch {args.batch}, nheads {args.nheads}, "
          f"seqlen {args.seqlen}, headdim {args.headdim}, {args.dtype}, causal={args.causal}, "
          f"deterministic={args.deterministic}; device ms per step (mean of {args.repeats})")
    for key, label in _KINDS:
        share = f"{100 * totals[key] / bwd:5.1f} % of backward" if key != "fmha_fwd" and bwd else ""
        print(f"  {label:34s} {totals[key]:9.3f} ms  {share}")
    print(f"  {'backward total':34s} {bwd:9.3f} ms  ({bwd / totals['fmha_fwd']:.2f}x forward)"
          if totals["fmha_fwd"] else f"  backward total {bwd:.3f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
