"""Where the host time of a decode step goes on a GPU machine, and the varlen prefill against the dense call.

    python perf/host_breakdown.py [--calls 2000] [--json OUT.json] [--no-varlen] [--no-host]

1. Host primitives (median of back-to-back calls, wall clock, no synchronize inside): torch.empty of a decode
   output, torch.cuda.is_current_stream_capturing, torch.cuda.current_device, the raw current-stream query, an
   event record, and the public calls of perf/host_overhead.py's decode shapes (flash_attn_func b1 x 16k dense,
   flash_attn_with_kvcache paged 16 and dense append): each also with its compiled-module launch replaced by a
   Python no-op (what is left is the Python path on this host), and with cProfile (top entries by own time).
2. Varlen prefill: flash_attn_varlen_func (public call, fp16, 32 heads, d128) against flash_attn_func on the same
   tokens: equal lengths (the dense call has no padding: the ratio is the varlen path's cost) and uneven lengths
   against the dense call padded to the longest (what varlen saves); event-timed medians, one process.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import statistics
import sys
import time

import torch

import rocflash
from rocflash.backends import compiled

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import decode_bench  # noqa: E402  (graphed: a CUDA graph of a call, replayed without host work)

DEV = "cuda"


def loop_us(fn, calls: int, reps: int = 5) -> float:
    """Median over reps of (wall time of `calls` back-to-back calls) / calls, synchronized around each rep."""
    for _ in range(20):
        fn()
    out = []
    for _ in range(reps):
        torch.cuda.synchronize()
        t = time.perf_counter()
        for _ in range(calls):
            fn()
        out.append((time.perf_counter() - t) / calls * 1e6)
        torch.cuda.synchronize()
    return statistics.median(out)


def profile(fn, calls: int, top: int = 14) -> str:
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(calls):
        fn()
    prof.disable()
    torch.cuda.synchronize()
    s = io.StringIO()
    pstats.Stats(prof, stream=s).sort_stats("tottime").print_stats(top)
    return "\n".join(line for line in s.getvalue().splitlines() if line.strip())


def event_ms(fn, reps: int = 20) -> float:
    for _ in range(3):
        fn()
    times = []
    for _ in range(reps):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        fn()
        e.record()
        torch.cuda.synchronize()
        times.append(s.elapsed_time(e))
    return statistics.median(times)


def host_part(a, results):
    mod = compiled.load_module("cuda")
    dt = torch.bfloat16
    sk, page = 16384, 16
    qd = torch.randn(1, 1, 32, 128, device=DEV, dtype=dt)
    kd, vd = (torch.randn(1, sk, 8, 128, device=DEV, dtype=dt) for _ in range(2))
    blocks = sk // page
    table = torch.randperm(blocks, device=DEV).to(torch.int32).view(1, blocks)
    kp, vp = (x.view(blocks, page, 8, 128)[table[0].long().argsort()].contiguous() for x in (kd, vd))
    lens = torch.full((1,), sk, dtype=torch.int32, device=DEV)
    kc, vc = (torch.zeros(1, sk + 64, 8, 128, device=DEV, dtype=dt) for _ in range(2))
    kn, vn = kd[:, -1:].clone(), vd[:, -1:].clone()
    lens_a = torch.full((1,), sk - 1, dtype=torch.int32, device=DEV)
    raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    ev = torch.cuda.Event()
    prims = {
        "torch.empty (1,1,32,128) bf16": lambda: torch.empty((1, 1, 32, 128), dtype=dt, device=qd.device),
        "torch.cuda.is_current_stream_capturing": torch.cuda.is_current_stream_capturing,
        "torch.cuda.current_device": torch.cuda.current_device,
        "raw current stream": (lambda: raw(0)) if raw else (lambda: torch.cuda.current_stream().cuda_stream),
        "event record": ev.record,
    }
    calls = {
        "flash_attn_func b1 16k dense": lambda: rocflash.flash_attn_func(qd, kd, vd),
        "kvcache paged16 b1 16k": lambda: rocflash.flash_attn_with_kvcache(qd, kp, vp, cache_seqlens=lens,
                                                                           block_table=table),
        "kvcache dense append b1 16k": lambda: rocflash.flash_attn_with_kvcache(qd, kc, vc, kn, vn,
                                                                                cache_seqlens=lens_a),
    }
    rows = []
    with torch.no_grad():
        for name, fn in prims.items():
            rows.append({"case": name, "us": loop_us(fn, a.calls)})
        for name, fn in calls.items():
            rows.append({"case": name, "us": loop_us(fn, a.calls // 4)})
        saved = {n: getattr(mod, n) for n in ("fwd_step", "kvcache_step", "fwd_splitkv", "fwd") if hasattr(mod, n)}
        try:
            for n in saved:
                setattr(mod, n, lambda *x, **kw: None)
            for name, fn in calls.items():
                rows.append({"case": name + " (launch stubbed)", "us": loop_us(fn, a.calls // 4)})
        finally:
            for n, f in saved.items():
                setattr(mod, n, f)
        for r in rows:
            print(f"  {r['case']:48s} {r['us']:8.2f} us/call", flush=True)
        for name, fn in calls.items():
            print(f"cProfile, {name} ({a.calls // 4} calls):\n{profile(fn, a.calls // 4)}", flush=True)
    results["host"] = rows


def graph_ms(fn, reps: int = 20) -> float:
    """Median event time of replays of a CUDA graph of fn() (the kernels alone, no host path), or nan when the
    call cannot be captured."""
    try:
        replay = decode_bench.graphed(fn)
    except Exception as e:  # noqa: BLE001 - reported in the row
        print(f"  graph capture failed: {type(e).__name__}: {str(e).splitlines()[0]}", flush=True)
        torch.cuda.synchronize()
        return float("nan")
    return event_ms(replay, reps)


def varlen_part(results):
    g = torch.Generator(device=DEV).manual_seed(0)
    rows = []
    for lens, causal in (([4096] * 4, False), ([4096] * 4, True), ([1024] * 16, True),
                         ([4096, 3000, 1500, 500], True), ([1024, 700, 300, 100] * 4, True)):
        b, top, total = len(lens), max(lens), sum(lens)
        q, k, v = (torch.randn(total, 32, 128, generator=g, device=DEV, dtype=torch.float16) for _ in range(3))
        cu = torch.tensor([0, *torch.tensor(lens).cumsum(0).tolist()], dtype=torch.int32, device=DEV)
        qp, kp, vp = (torch.zeros(b, top, 32, 128, device=DEV, dtype=torch.float16) for _ in range(3))
        for i, n in enumerate(lens):
            s0 = int(cu[i])
            qp[i, :n], kp[i, :n], vp[i, :n] = q[s0:s0 + n], k[s0:s0 + n], v[s0:s0 + n]
        with torch.no_grad():
            var = event_ms(lambda: rocflash.flash_attn_varlen_func(q, k, v, cu, cu, top, top, causal=causal))
            dense = event_ms(lambda: rocflash.flash_attn_func(qp, kp, vp, causal=causal))
            var_g = graph_ms(lambda: rocflash.flash_attn_varlen_func(q, k, v, cu, cu, top, top, causal=causal))
            dense_g = graph_ms(lambda: rocflash.flash_attn_func(qp, kp, vp, causal=causal))
            out_v = rocflash.flash_attn_varlen_func(q, k, v, cu, cu, top, top, causal=causal)
            out_d = rocflash.flash_attn_func(qp, kp, vp, causal=causal)
            diff = max((out_v[int(cu[i]):int(cu[i]) + n].float() - out_d[i, :n].float()).abs().max().item()
                       for i, n in enumerate(lens))
        r = {"lens": lens, "causal": causal, "varlen_ms": var, "dense_padded_ms": dense, "ratio": var / dense,
             "varlen_graph_ms": var_g, "dense_graph_ms": dense_g, "graph_ratio": var_g / dense_g,
             "max_abs_diff": diff}
        rows.append(r)
        print(f"  varlen {lens} causal={causal}: varlen {var:.3f} ms, dense{' (padded)' if len(set(lens)) > 1 else ''} "
              f"{dense:.3f} ms, ratio {var / dense:.3f}; graphs {var_g:.3f} / {dense_g:.3f} ms, ratio "
              f"{var_g / dense_g:.3f}; max|diff| {diff:.3g}", flush=True)
    results["varlen"] = rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=2000)
    ap.add_argument("--json", default=None)
    ap.add_argument("--no-varlen", action="store_true")
    ap.add_argument("--no-host", action="store_true", help="the varlen prefill part only")
    a = ap.parse_args()
    results = {"torch": torch.__version__, "gpu": torch.cuda.get_device_name()}
    if not a.no_host:
        host_part(a, results)
    if not a.no_varlen:
        varlen_part(results)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
