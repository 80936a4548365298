"""dec13 probe (issue 9 item 6): where a paged decode call's extra microseconds go, and which of the split-KV
switches win under the graph-of-layers timing (perf/RESULTS.md "dec13"). Diagnostics only:

  python3 perf/dec13_probe.py [--cases 1x4096,1x16384,...] [--envs default,fused,inflight2] [--kinds ...]

Per case (batch x seqlen_k of issue 9's decode preset) and kind, the time per call of a CUDA graph holding 24 calls
rotated over the input sets (dec12's metric: a model's decode step holds every layer's attention in one graph),
two rounds in alternating order, beside SDPA's cuDNN backend in the same process. Kinds:

  dense      rocflash.flash_attn_func(q, k, v) (no KV-cache step: seqlen_k from the call's shape)
  densekv    flash_attn_with_kvcache on the same dense cache, cache_seqlens an int32 tensor (the folded step reads it)
  paged16    flash_attn_with_kvcache on a paged copy (page 16, shuffled block table, cache_seqlens tensor)
  paged16id  the same with the identity block table (pages in memory order): DRAM locality vs kernel work
  paged256   page 256, shuffled
  cudnn      F.scaled_dot_product_attention, cuDNN backend, enable_gqa

Env sets (each captured under its switches, rocflash.backends.splitkv_env): default; fused
(ROCFLASH_SPLITKV_FUSED_COMBINE=1); inflight2 (ROCFLASH_SPLITKV_INFLIGHT=2). Each kind's output under a switch is
compared with its default output (O bitwise expected) and with cuDNN's (max abs difference printed).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import decode_bench as db  # noqa: E402
from decode_bench import layer_graph  # noqa: E402
from host_breakdown import event_ms  # noqa: E402

import rocflash  # noqa: E402

DEV = db.DEV
ENVS = {"default": {}, "fused": {"ROCFLASH_SPLITKV_FUSED_COMBINE": "1"}, "inflight2": {"ROCFLASH_SPLITKV_INFLIGHT": "2"}}


def identity_paged(k, v, page):
    """(k_cache, v_cache, block_table): k / v in pages of `page` rows stored in memory order (table = arange)."""
    b, s, hk, d = k.shape
    per = -(-s // page)
    pad = per * page - s
    kc = torch.nn.functional.pad(k, (0, 0, 0, 0, 0, pad)).reshape(b * per, page, hk, d).contiguous()
    vc = torch.nn.functional.pad(v, (0, 0, 0, 0, 0, pad)).reshape(b * per, page, hk, d).contiguous()
    table = torch.arange(b * per, dtype=torch.int32, device=DEV).view(b, per)
    return kc, vc, table


def kinds_of(batch, seqlen_k, sets, wanted):
    lens = torch.full((batch,), seqlen_k, dtype=torch.int32, device=DEV)
    out = {}
    kv = rocflash.flash_attn_with_kvcache
    if "dense" in wanted:
        out["dense"] = [lambda s=s: rocflash.flash_attn_func(s[0], s[1], s[2]) for s in sets]
    if "densekv" in wanted:
        out["densekv"] = [lambda s=s: kv(s[0], s[1], s[2], cache_seqlens=lens) for s in sets]
    for name, page in (("paged16", 16), ("paged16id", 16), ("paged256", 256)):
        if name not in wanted:
            continue
        gp = torch.Generator(device="cpu").manual_seed(page)
        paged = [(s[0],) + (identity_paged(s[1], s[2], page) if name.endswith("id") else
                            db.paged_copy(s[1], s[2], page, gp)) for s in sets]
        out[name] = [lambda p=p: kv(p[0], p[1], p[2], cache_seqlens=lens, block_table=p[3]) for p in paged]
    return out


def per_call_us(calls, env, n_layers):
    old = {k: os.environ.get(k) for k in env}
    db.set_env(env)
    try:
        gl, outs = layer_graph(calls, n_layers)
    finally:
        db.set_env(old)
    t = event_ms(gl.replay, reps=10) / n_layers
    out0 = outs[0].clone()
    del gl, outs
    return 1e3 * t, out0


def run_case(batch, seqlen_k, envs, wanted):
    g = torch.Generator(device="cuda").manual_seed(13 + batch + seqlen_k)
    sets = db.input_sets(batch, seqlen_k, g)
    _, total = db.decode_bytes(batch, seqlen_k)
    n_layers = max(24, 4 * len(sets))
    kinds = kinds_of(batch, seqlen_k, sets, wanted)
    cud = db.sdpa_methods(sets)["sdpa-cudnn"]
    times, outs = {}, {}
    for rnd in range(2):
        order = [("cudnn", "default")] + [(k, e) for e in envs for k in kinds]
        if rnd:
            order = order[::-1]
        for kind, env in order:
            calls = cud if kind == "cudnn" else kinds[kind]
            try:
                t, o = per_call_us(calls, ENVS[env], n_layers)
            except Exception as e:  # noqa: BLE001 - a diagnostic: report and go on
                print(f"DEC13 {batch}x{seqlen_k // 1024}k {kind}/{env}: FAILED {type(e).__name__}: {e}", flush=True)
                continue
            times.setdefault((kind, env), []).append(t)
            outs[(kind, env)] = o
    c = sum(times.get(("cudnn", "default"), [float("nan")])) / max(1, len(times.get(("cudnn", "default"), [])))
    ref = outs.get(("cudnn", "default"))
    for (kind, env), ts in times.items():
        t = sum(ts) / len(ts)
        o = outs[(kind, env)]
        same = ""
        if env != "default" and (kind, "default") in outs:
            same = f", O bitwise default's {torch.equal(o, outs[(kind, 'default')])}"
        err = ""
        if ref is not None and kind != "cudnn":
            err = f", max|O - cuDNN| {(o.float() - ref.transpose(1, 2).float().reshape(o.shape)).abs().max().item():.2e}"
        print(f"DEC13 {batch}x{seqlen_k // 1024}k {kind}/{env}: {t:.2f} us per call ({'/'.join(f'{x:.2f}' for x in ts)}),"
              f" {total / t / 1e3:.0f} GB/s, x cuDNN {c / t:.3f}{same}{err}", flush=True)
    del sets, kinds, cud
    torch.cuda.empty_cache()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", default="1x4096,1x16384,8x4096,1x131072,8x16384,32x4096,32x16384")
    ap.add_argument("--envs", default="default,fused,inflight2")
    ap.add_argument("--kinds", default="dense,densekv,paged16,paged16id,paged256")
    args = ap.parse_args()
    print(f"device {torch.cuda.get_device_name()}, torch {torch.__version__}", flush=True)
    envs = args.envs.split(",")
    for case in args.cases.split(","):
        b, s = (int(x) for x in case.split("x"))
        t0 = time.time()
        run_case(b, s, envs, set(args.kinds.split(",")))
        print(f"case {case}: {time.time() - t0:.0f} s", flush=True)


if __name__ == "__main__":
    main()
