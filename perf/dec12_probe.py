"""dec12 probe (issue 9 item 6): where the batch-1 decode time goes when a step is a CUDA-graph replay, and whether
the K/V layout decides the streaming gap to cuDNN. Diagnostics only (perf/RESULTS.md "dec12"):

  python3 perf/dec12_probe.py [--out DIR]

1 layers   per case (1x4k, 1x16k, 8x4k) and kind (paged16, paged256, dense, cuDNN): the event-timed replay of a
           one-call graph (dec9_stage's graph column) against a graph of L calls over the rotating input sets
           (a model's decode step: one graph holds every layer's attention; per call = replay time / L), and the
           host time of one replay (perf_counter around 50 replays, no sync in between)
2 nodes    the node lines of the one-call graphs' debug dumps (paged16, dense) in DIR/*.dot
3 layout   32x16k and 8x16k dense: K/V stored (batch, seqlen_k, nheads_k, headdim) (flash-attn's layout: a head's
           rows 2 KB apart) against head-major storage (batch, nheads_k, seqlen_k, headdim) viewed as the same
           logical tensor (a head's rows contiguous), rocflash and cuDNN on both (graphs, GB/s)
4 splits   num_splits sweep with layer graphs (dense and paged16) beside cuDNN and the heuristic's default
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import decode_bench as db  # noqa: E402
from decode_bench import layer_graph  # noqa: E402  (a graph of L calls over the input sets)
from host_breakdown import event_ms  # noqa: E402  (events around each call, median)

import rocflash  # noqa: E402

DEV = db.DEV


def host_us(replay, n=50):
    replay()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(n):
        replay()
    t1 = time.perf_counter()
    torch.cuda.synchronize()
    return 1e6 * (t1 - t0) / n


def kinds_of(batch, seqlen_k, sets):
    lens = torch.full((batch,), seqlen_k, dtype=torch.int32, device=DEV)
    out = {}
    for page in (16, 256):
        gp = torch.Generator(device="cpu").manual_seed(page)
        paged = [(s[0],) + db.paged_copy(s[1], s[2], page, gp) for s in sets]
        out[f"paged{page}"] = [lambda p=p: rocflash.flash_attn_with_kvcache(p[0], p[1], p[2], cache_seqlens=lens,
                                                                            block_table=p[3]) for p in paged]
    out["dense"] = [lambda s=s: rocflash.flash_attn_func(s[0], s[1], s[2]) for s in sets]
    out["cudnn"] = db.sdpa_methods(sets)["sdpa-cudnn"]
    return out


def part_layers(args):
    g = torch.Generator(device="cuda").manual_seed(12)
    for batch, seqlen_k in ((1, 4096), (1, 16384), (8, 4096)):
        sets = db.input_sets(batch, seqlen_k, g)
        _, total = db.decode_bytes(batch, seqlen_k)
        n_layers = max(24, 4 * len(sets))
        for name, calls in kinds_of(batch, seqlen_k, sets).items():
            try:
                single = [db.graph_of(c) for c in calls]
                replays = [r for r, _ in single]
                t1 = db.timed(replays)
                hu = host_us(replays[0])
                gl, outs = layer_graph(calls, n_layers)
                tl = event_ms(gl.replay) / n_layers
                same = all(torch.equal(outs[i], single[i][1]) for i in range(len(calls)))
                print(f"LAYERS {batch}x{seqlen_k // 1024}k {name}: one-call graph {1e3 * t1:.1f} us "
                      f"({total / t1 / 1e6:.0f} GB/s), host {hu:.1f} us/replay | {n_layers}-call graph "
                      f"{1e3 * tl:.2f} us per call ({total / tl / 1e6:.0f} GB/s) | outputs equal {same}", flush=True)
                if name in ("paged16", "dense") and batch == 1 and seqlen_k == 4096:
                    gd = torch.cuda.CUDAGraph()
                    gd.enable_debug_mode()
                    calls[0]()
                    torch.cuda.synchronize()
                    with torch.cuda.graph(gd):
                        calls[0]()
                    path = os.path.join(args.out, f"graph_{name}.dot")
                    gd.debug_dump(path)
                    with open(path) as f:
                        lines = [ln for ln in f if "label" in ln]
                    print(f"NODES {name}: {len(lines)} labelled lines", flush=True)
                    for ln in lines[:12]:
                        print("   ", ln.strip()[:300])
                del single, replays, gl, outs
            except Exception as e:  # noqa: BLE001 - a diagnostic: report and go on
                print(f"LAYERS {batch}x{seqlen_k // 1024}k {name}: FAILED {type(e).__name__}: {e}", flush=True)
        del sets
        torch.cuda.empty_cache()


def part_layout(args):
    g = torch.Generator(device="cuda").manual_seed(13)
    H, HK, D, DT = db.H, db.HK, db.D, db.DT
    for batch, seqlen_k in ((32, 16384), (8, 16384)):
        _, total = db.decode_bytes(batch, seqlen_k)
        n_sets = 2 if batch == 32 else 3
        for layout in ("seq-major", "head-major"):
            sets = []
            for _ in range(n_sets):
                q = torch.randn(batch, 1, H, D, device=DEV, dtype=DT, generator=g)
                if layout == "seq-major":
                    k = torch.randn(batch, seqlen_k, HK, D, device=DEV, dtype=DT, generator=g)
                    v = torch.randn(batch, seqlen_k, HK, D, device=DEV, dtype=DT, generator=g)
                else:
                    k = torch.randn(batch, HK, seqlen_k, D, device=DEV, dtype=DT, generator=g).transpose(1, 2)
                    v = torch.randn(batch, HK, seqlen_k, D, device=DEV, dtype=DT, generator=g).transpose(1, 2)
                sets.append((q, k, v))
            ours = [lambda s=s: rocflash.flash_attn_func(s[0], s[1], s[2]) for s in sets]
            cud = db.sdpa_methods(sets)["sdpa-cudnn"]
            try:
                r_ours = [db.graphed(c) for c in ours]
                r_cud = [db.graphed(c) for c in cud]
                res = {}
                for rnd in range(2):
                    for name, rs in (("rocflash", r_ours), ("cudnn", r_cud)) if rnd == 0 else \
                            (("cudnn", r_cud), ("rocflash", r_ours)):
                        res.setdefault(name, []).append(total / db.timed(rs) / 1e6)
                out = ours[0]()
                ref = cud[0]().transpose(1, 2)
                err = (out.float() - ref.float()).abs().max().item()
                print(f"LAYOUT {batch}x{seqlen_k // 1024}k {layout}: rocflash {res['rocflash']} GB/s, cuDNN "
                      f"{res['cudnn']} GB/s, ratio {sum(res['rocflash']) / sum(res['cudnn']):.3f}; "
                      f"max|ours - cuDNN| {err:.2e}", flush=True)
            except Exception as e:  # noqa: BLE001
                print(f"LAYOUT {batch}x{seqlen_k // 1024}k {layout}: FAILED {type(e).__name__}: {e}", flush=True)
            del sets, ours, cud
            torch.cuda.empty_cache()


def part_splits(args):
    """num_splits sweep (layer graphs, dense cache through flash_attn_with_kvcache and paged16) beside cuDNN."""
    g = torch.Generator(device="cuda").manual_seed(14)
    grid = {(1, 131072): (16, 32, 48, 64, 96), (8, 4096): (2, 4, 6, 8, 12, 16), (8, 16384): (2, 4, 6, 8, 12),
            (32, 4096): (1, 2, 3, 4), (32, 16384): (1, 2, 3, 4)}
    for (batch, seqlen_k), ns in grid.items():
        sets = db.input_sets(batch, seqlen_k, g)
        _, total = db.decode_bytes(batch, seqlen_k)
        n_layers = max(8, 4 * len(sets))
        lens = torch.full((batch,), seqlen_k, dtype=torch.int32, device=DEV)
        gp = torch.Generator(device="cpu").manual_seed(16)
        paged = [(s[0],) + db.paged_copy(s[1], s[2], 16, gp) for s in sets]
        res = {}
        def lg(calls):
            gl, _ = layer_graph(calls, n_layers)
            t = event_ms(gl.replay, reps=8) / n_layers
            del gl
            return total / t / 1e6
        res["cudnn"] = lg(db.sdpa_methods(sets)["sdpa-cudnn"])
        res["dense-heur"] = lg([lambda s=s: rocflash.flash_attn_func(s[0], s[1], s[2]) for s in sets])
        for n in ns:
            res[f"dense/n{n}"] = lg([lambda s=s, n=n: rocflash.flash_attn_with_kvcache(
                s[0], s[1], s[2], cache_seqlens=lens, num_splits=n) for s in sets])
            res[f"paged16/n{n}"] = lg([lambda p=p, n=n: rocflash.flash_attn_with_kvcache(
                p[0], p[1], p[2], cache_seqlens=lens, block_table=p[3], num_splits=n) for p in paged])
        res["cudnn2"] = lg(db.sdpa_methods(sets)["sdpa-cudnn"])
        c = (res["cudnn"] + res["cudnn2"]) / 2
        print(f"SPLITS {batch}x{seqlen_k // 1024}k cuDNN {res['cudnn']:.0f}/{res['cudnn2']:.0f}: " +
              ", ".join(f"{k} {v:.0f} ({v / c:.3f})" for k, v in res.items() if not k.startswith("cudnn")), flush=True)
        del sets, paged
        torch.cuda.empty_cache()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.environ.get("OUT", "."))
    ap.add_argument("--parts", default="layers,layout")
    args = ap.parse_args()
    print(f"device {torch.cuda.get_device_name()}, torch {torch.__version__}", flush=True)
    for part in args.parts.split(","):
        t0 = time.time()
        {"layers": part_layers, "layout": part_layout, "splits": part_splits}[part](args)
        print(f"part {part}: {time.time() - t0:.0f} s", flush=True)


if __name__ == "__main__":
    main()
