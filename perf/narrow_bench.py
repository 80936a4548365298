"""Speed of the tensor-core kernels' narrow (unaligned-row) load path beside the 128-bit path, same process, H200.

    python3 perf/narrow_bench.py [--seqlen 4096] [--repeats 20]

The narrow inputs are the aligned ones copied into views that start one element past a 16-byte boundary
(rocflash.backends.compiled.is_aligned is False for them), so both paths see the same values and shapes. Times are
medians of CUDA-event-timed calls after warm-up, in ms; "ratio" is narrow / aligned (> 1: the narrow path is slower).
"""

from __future__ import annotations

import argparse

import torch

import rocflash
from rocflash.backends.compiled import is_aligned
from rocflash.perf.timing import measure

DEVICE = torch.device("cuda")


def shifted(x: torch.Tensor) -> torch.Tensor:
    buf = torch.empty(x.numel() + 1, dtype=x.dtype, device=x.device)
    y = buf[1:].view(x.shape)
    y.copy_(x)
    return y


def median_ms(fn, repeats: int) -> float:
    """rocflash.perf's timing (one CUDA-event pair per call, 3 warm-ups), exactly ``repeats`` timed calls."""
    return measure([fn], DEVICE, warmup=3, repeats=repeats, min_repeats=repeats, budget_s=60.0, estimate_ms=1.0).median_ms


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seqlen", type=int, default=4096)
    ap.add_argument("--batch", type=int, default=2)
    ap.add_argument("--nheads", type=int, default=16)
    ap.add_argument("--repeats", type=int, default=20)
    args = ap.parse_args()
    g = torch.Generator(device="cuda").manual_seed(0)
    print(f"{'dtype':5s} {'d':>4s} {'causal':6s} {'pass':8s} {'aligned ms':>10s} {'narrow ms':>10s} {'ratio':>6s}")
    for dtype in (torch.float16, torch.bfloat16):
        for d in (64, 128):
            for causal in (False, True):
                shape = (args.batch, args.seqlen, args.nheads, d)
                q, k, v, do = (torch.randn(shape, generator=g, device="cuda", dtype=dtype) for _ in range(4))
                nq, nk, nv, ndo = (shifted(t) for t in (q, k, v, do))
                assert is_aligned(q, k, v) and not is_aligned(nq, nk, nv)
                for what in ("fwd", "fwd+bwd"):
                    def run(q, k, v, do, what=what):
                        if what == "fwd":
                            rocflash.flash_attn_func(q, k, v, causal=causal)
                            return
                        leaves = [t.requires_grad_() for t in (q, k, v)]
                        rocflash.flash_attn_func(*leaves, causal=causal).backward(do)
                        for t in leaves:
                            t.grad = None
                    ta = median_ms(lambda: run(q, k, v, do), args.repeats)
                    tn = median_ms(lambda: run(nq, nk, nv, ndo), args.repeats)
                    name = "fp16" if dtype == torch.float16 else "bf16"
                    print(f"{name:5s} {d:4d} {str(causal):6s} {what:8s} {ta:10.3f} {tn:10.3f} {tn / ta:6.2f}", flush=True)


if __name__ == "__main__":
    main()
