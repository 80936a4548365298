"""Per-call host time of rocflash's public calls on a GPU, beside SDPA, and what a CUDA graph of a decode step gives.

    python perf/host_overhead.py [--calls 200] [--json OUT.json] [--profile]

Per case:
- host us: median host (wall) time of one call, each call after a synchronize (the launch queue empty): the
  Python path from the call to its last launch;
- per call us: back-to-back calls, host clock from the first call to a final synchronize, divided by the calls:
  the larger of the host path and the GPU work, what an event-timed loop of eager calls sees;
- GB/s (decode cases): bytes of Q, K, V, O (the KV read once) / per call time.
Cases: flash_attn_func forward b4 h16 s1024 d64 fp16 causal, the same forward+backward; decode b1 x 16k (32 q / 8
kv heads, d128 bf16) through flash_attn_func on dense K/V, flash_attn_with_kvcache on a paged cache (page 16, no
append) and on a dense cache appending one token (cache_seqlens an int32 tensor), each KV-cache call under
ROCFLASH_INDEX_CHECKS device / off / host (a rocflash without that switch takes its one path); SDPA flash and
cuDNN on the dense decode shapes; a CUDA graph of the paged decode step replayed back to back.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import statistics
import time

import torch
import torch.nn.functional as F

import rocflash

DEV = "cuda"


def host_us(fn, calls: int) -> float:
    for _ in range(5):
        fn()
    times = []
    for _ in range(calls):
        torch.cuda.synchronize()
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    torch.cuda.synchronize()
    return statistics.median(times) * 1e6


def per_call_us(fn, calls: int) -> float:
    for _ in range(10):
        fn()
    torch.cuda.synchronize()
    t = time.perf_counter()
    for _ in range(calls):
        fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - t) / calls * 1e6


def graph_us(fn, calls: int) -> float:
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(side)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        fn()
    for _ in range(5):
        g.replay()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(calls):
        g.replay()
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) / calls * 1e3


def with_env(name, value, fn):
    def wrapped():
        old = os.environ.get(name)
        os.environ[name] = value
        try:
            return fn()
        finally:
            if old is None:
                del os.environ[name]
            else:
                os.environ[name] = old
    return wrapped


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--json", default=None)
    ap.add_argument("--profile", action="store_true", help="cProfile of the paged decode call")
    ap.add_argument("--no-graph", action="store_true", help="skip the CUDA-graph rows (a rocflash whose KV-cache "
                    "call syncs cannot be captured)")
    a = ap.parse_args()
    rows = []

    def row(name, fn, nbytes=None, graph=False):
        try:
            r = {"case": name, "host_us": host_us(fn, a.calls), "per_call_us": per_call_us(fn, a.calls)}
        except Exception as e:  # noqa: BLE001 - reported, the other cases still run
            print(f"case {name}: {type(e).__name__}: {str(e).splitlines()[0]}", flush=True)
            return
        if graph and not a.no_graph:
            try:
                r["graph_us"] = graph_us(fn, a.calls)
            except Exception as e:  # noqa: BLE001 - e.g. a host sync inside the capture
                print(f"case {name}: graph capture failed: {type(e).__name__}: {str(e).splitlines()[0]}", flush=True)
                torch.cuda.synchronize()
                graph = False
        if nbytes:
            r["GB/s"] = nbytes / (r["per_call_us"] * 1e-6) / 1e9
            if "graph_us" in r:
                r["graph GB/s"] = nbytes / (r["graph_us"] * 1e-6) / 1e9
        rows.append(r)
        print("  ".join(f"{k} {v:.1f}" if isinstance(v, float) else f"{k} {v}" for k, v in r.items()), flush=True)

    # training-shaped forward (the issue-12 1k floor) and forward+backward
    q, k, v = (torch.randn(4, 1024, 16, 64, device=DEV, dtype=torch.float16) for _ in range(3))
    row("fwd b4 h16 s1k d64 causal: rocflash", lambda: rocflash.flash_attn_func(q, k, v, causal=True))
    qt, kt, vt = (x.transpose(1, 2) for x in (q, k, v))
    with torch.nn.attention.sdpa_kernel(torch.nn.attention.SDPBackend.FLASH_ATTENTION):
        row("fwd b4 h16 s1k d64 causal: sdpa-flash", lambda: F.scaled_dot_product_attention(qt, kt, vt, is_causal=True))
    qg, kg, vg = (x.clone().requires_grad_() for x in (q, k, v))
    dout = torch.randn_like(q)
    row("fwd+bwd b4 h16 s1k d64 causal: rocflash",
        lambda: rocflash.flash_attn_func(qg, kg, vg, causal=True).backward(dout))
    qgt, kgt, vgt = (x.detach().transpose(1, 2).requires_grad_() for x in (q, k, v))
    with torch.nn.attention.sdpa_kernel(torch.nn.attention.SDPBackend.FLASH_ATTENTION):
        row("fwd+bwd b4 h16 s1k d64 causal: sdpa-flash",
            lambda: F.scaled_dot_product_attention(qgt, kgt, vgt, is_causal=True).backward(dout.transpose(1, 2)))

    # decode b1 x 16k, 32 q heads / 8 kv heads, d128 bf16
    sk, page = 16384, 16
    dt = torch.bfloat16
    qd = torch.randn(1, 1, 32, 128, device=DEV, dtype=dt)
    kd, vd = (torch.randn(1, sk, 8, 128, device=DEV, dtype=dt) for _ in range(2))
    nbytes = (qd.numel() * 2 + kd.numel() * 2) * 2
    with torch.no_grad():
        row("decode b1 16k: flash_attn_func (dense)", lambda: rocflash.flash_attn_func(qd, kd, vd), nbytes, graph=True)
        qdt, kdt, vdt = (x.transpose(1, 2) for x in (qd, kd, vd))
        for be in ("FLASH_ATTENTION", "CUDNN_ATTENTION"):
            with torch.nn.attention.sdpa_kernel(getattr(torch.nn.attention.SDPBackend, be)):
                row(f"decode b1 16k: sdpa {be}",
                    lambda: F.scaled_dot_product_attention(qdt, kdt, vdt, enable_gqa=True), nbytes)
        blocks = sk // page
        table = torch.randperm(blocks, device=DEV).to(torch.int32).view(1, blocks)
        kp, vp = (x.view(blocks, page, 8, 128)[table[0].long().argsort()].contiguous() for x in (kd, vd))
        lens = torch.full((1,), sk, dtype=torch.int32, device=DEV)
        paged = lambda: rocflash.flash_attn_with_kvcache(qd, kp, vp, cache_seqlens=lens, block_table=table)  # noqa: E731
        kc, vc = (torch.zeros(1, sk + 64, 8, 128, device=DEV, dtype=dt) for _ in range(2))
        kc[:, :sk - 1], vc[:, :sk - 1] = kd[:, :sk - 1], vd[:, :sk - 1]
        kn, vn = kd[:, sk - 1:].clone(), vd[:, sk - 1:].clone()
        lens_a = torch.full((1,), sk - 1, dtype=torch.int32, device=DEV)
        append = lambda: rocflash.flash_attn_with_kvcache(qd, kc, vc, kn, vn, cache_seqlens=lens_a)  # noqa: E731
        for mode in ("device", "off", "host"):
            # the default policy as a user runs it; the others with the variable written around every call (an
            # os.environ write and delete inside the timed call)
            default = mode == "device" and "ROCFLASH_INDEX_CHECKS" not in os.environ
            wrap = (lambda fn: fn) if default else (lambda fn: with_env("ROCFLASH_INDEX_CHECKS", mode, fn))
            row(f"decode b1 16k: kvcache paged16 [{mode}]", wrap(paged), nbytes, graph=mode != "host")
            row(f"decode b1 16k: kvcache dense append [{mode}]", wrap(append), nbytes)
        ref = rocflash.flash_attn_func(qd, kd, vd)
        for name, fn in (("paged", paged), ("append", append)):
            got = fn()
            print(f"max |{name} - flash_attn_func| = {(got.float() - ref.float()).abs().max().item():.3g}")
        if a.profile:
            prof = cProfile.Profile()
            prof.enable()
            for _ in range(a.calls):
                paged()
            torch.cuda.synchronize()
            prof.disable()
            out = io.StringIO()
            pstats.Stats(prof, stream=out).sort_stats("tottime").print_stats(25)
            print(out.getvalue())
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"torch": torch.__version__, "gpu": torch.cuda.get_device_name(), "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
