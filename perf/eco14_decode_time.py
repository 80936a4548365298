"""eco14: time the split-KV decode kernels whose partial write and combine changed (each split now writes its max
score m_s, row sum l_s and ALiBi shift instead of one LSE_s; the combine weighs exp2(m_s - M) l_s), on the installed
build: flash_attn_with_kvcache decode (seqlen_q 1, nheads 32, nheads_k 8, headdim 128, dense cache), CUDA-graph
replays (the kernels' own time), under ROCFLASH_KERNEL=auto (fp16/bf16: the tensor-core split kernel + fused combine)
and vector, fp16 and fp32, batch 1 x 16k (the heuristic's splits) and 1 x 16k with num_splits 1. Prints one line per
case: ms, GB/s of K/V read, and max|out - fp64| of the case. No before/after in one process (one build): compare
with perf/RESULTS.md's decode figures of the same shapes.
    python3 perf/eco14_decode_time.py [--deadline-s S]
"""
from __future__ import annotations

import argparse
import os
import sys
import time

import torch

import rocflash
from rocflash.backends import FwdArgs, compiled
from rocflash.backends.reference import attention_reference

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from decode_bench import graph_of  # noqa: E402  (one CUDA-graph helper for the perf scripts)


def time_ms(replay, reps=50):
    for _ in range(3):
        replay()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    for _ in range(5):
        start.record()
        for _ in range(reps):
            replay()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end) / reps)
    return sorted(times)[len(times) // 2]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--deadline-s", type=float, default=60.0)
    a = ap.parse_args()
    t0 = time.time()
    print("torch", torch.__version__, torch.cuda.get_device_name(0), "rocflash", rocflash.__file__)
    bad = 0
    for kernel in ("auto", "vector"):
        for dtype in (torch.float16, torch.float32):
            for batch, seqlen_k, splits in ((1, 16384, 0), (1, 16384, 1), (8, 4096, 0)):
                if time.time() - t0 > a.deadline_s:
                    print("deadline: stopped")
                    return 1 if bad else 0
                os.environ[compiled.KERNEL_ENV] = kernel
                g = torch.Generator(device="cuda").manual_seed(0)
                q = torch.randn(batch, 1, 32, 128, device="cuda", dtype=dtype, generator=g)
                k = torch.randn(batch, seqlen_k, 8, 128, device="cuda", dtype=dtype, generator=g)
                v = torch.randn(batch, seqlen_k, 8, 128, device="cuda", dtype=dtype, generator=g)
                lens = torch.full((batch,), seqlen_k, dtype=torch.int32, device="cuda")

                def call():
                    return rocflash.flash_attn_with_kvcache(q, k, v, cache_seqlens=lens, num_splits=splits)
                replay, out = graph_of(call)
                ms = time_ms(replay)
                replay()
                torch.cuda.synchronize()
                ref, _ = attention_reference(q[:1].double().cpu(), k[:1].double().cpu(), v[:1].double().cpu(),
                                             FwdArgs(128 ** -0.5, -1, -1, 0.0, None), torch.float64)
                err = (out[:1].double().cpu() - ref).abs().max().item()
                ok = err <= (2e-3 if dtype == torch.float16 else 1e-5)
                bad += not ok
                gbs = 2 * k.numel() * k.element_size() / ms / 1e6
                print(f"eco14-decode kernel={kernel} {str(dtype)[6:]} {batch}x{seqlen_k} num_splits={splits}: "
                      f"{ms:.4f} ms, {gbs:.0f} GB/s, max|out-fp64| {err:.2e} {'ok' if ok else 'FAIL'}", flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
