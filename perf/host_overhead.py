"""Per-call host time of rocflash's forward on a GPU, and where it goes (cProfile), beside SDPA flash.

    python perf/host_overhead.py [--calls 200]

Times back-to-back calls of one small problem (b4 h16 s1024 d64 fp16: kernel time ~0.06 ms on an H200) with a
host clock after a final synchronize: when the per-call host path is longer than the kernel, this is what a
device-event timing of a single call sees too. Prints the top functions by cumulative time.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import time

import torch
import torch.nn.functional as F

import rocflash


def per_call_ms(fn, calls: int) -> float:
    for _ in range(10):
        fn()
    torch.cuda.synchronize()
    t = time.perf_counter()
    for _ in range(calls):
        fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - t) / calls * 1e3


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=200)
    a = ap.parse_args()
    q, k, v = (torch.randn(4, 1024, 16, 64, device="cuda", dtype=torch.float16) for _ in range(3))
    qt, kt, vt = (x.transpose(1, 2) for x in (q, k, v))
    ours = lambda: rocflash.flash_attn_func(q, k, v, causal=True)  # noqa: E731
    with torch.nn.attention.sdpa_kernel(torch.nn.attention.SDPBackend.FLASH_ATTENTION):
        flash_ms = per_call_ms(lambda: F.scaled_dot_product_attention(qt, kt, vt, is_causal=True), a.calls)
    ours_ms = per_call_ms(ours, a.calls)
    print(f"per call (host clock, {a.calls} back-to-back calls): rocflash {ours_ms:.3f} ms, SDPA flash {flash_ms:.3f} ms")
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(a.calls):
        ours()
    torch.cuda.synchronize()
    prof.disable()
    out = io.StringIO()
    pstats.Stats(prof, stream=out).sort_stats("cumulative").print_stats(25)
    print(out.getvalue())


if __name__ == "__main__":
    main()
