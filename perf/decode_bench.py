"""Decode and varlen benchmark (issue 9 item 6): every method on the same inputs, in one process.

    python3 perf/decode_bench.py [--json OUT.json] [--quick] [--budget-s S] [--no-sweep] [--no-varlen]
                                 [--graph-layers N] [--graph-only]

Decode preset: seqlen_q 1, nheads 32, nheads_k 8, headdim 128, bf16; batch 1/8/32 x seqlen_k 4k/16k/128k.
Methods per case:
  rocflash          rocflash.flash_attn_func(q, k, v) on the dense cache (the split-KV kernel, num_splits by the
                    heuristic of rocflash.splitkv; the public API's host overhead included); ROCFLASH_KERNEL as set
                    (auto: the tensor-core split kernel on sm_80+)
  rocflash-vector   the same call with ROCFLASH_KERNEL=vector (the gfx906 kernel logic), same process
  rocflash-paged16  compiled.varlen_forward on a paged copy of the same K/V (page 16, shuffled block table)
  rocflash-paged256 the same with page 256
  sdpa-flash, sdpa-cudnn   F.scaled_dot_product_attention restricted to that backend, enable_gqa=True, on
                    (batch, heads, seq, dim) views of the same tensors
Effective bandwidth = bytes(Q, K, V, O) / median time (the roofline model of rocflash.perf: every byte moved once).
Varlen prefill: compiled.varlen_forward on batch x seqlen tokens with cu_seqlens against flash_attn_func on the
padded dense tensors of the same tokens (equal lengths, so the same work).
Timing: CUDA events around each call, calls rotated over input sets larger than 2x the L2 (rocflash.perf.timing).

Graph of layers (--graph-layers N, default 24; 0: off; --graph-only skips the eager grid, the sweep and varlen): per
case, one CUDA graph holding N calls rotated over the input sets, as a model's decode step holds every layer's
attention in one graph; time per call = event-timed replay / N (median of 10 replays), two rounds in reversed order,
their mean. Methods: rocflash (flash_attn_func on the dense cache), rocflash-kvcache-paged16 / -paged256
(flash_attn_with_kvcache on paged copies, shuffled block table, cache_seqlens an int32 tensor: the serving call),
sdpa-flash, sdpa-cudnn. This removes what an eager or one-call-graph timing adds at batch 1 (the host's Python path,
the fixed cost of a replay: perf/RESULTS.md "dec12") and is the metric of issue 9 item 6 since dec12.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import time

import torch
import torch.nn.functional as F

import rocflash
from rocflash.backends import FwdArgs, SeqArgs, compiled
from rocflash.perf.timing import l2_bytes, measure

DEV = torch.device("cuda")
H, HK, D, DT = 32, 8, 128, torch.bfloat16


def decode_bytes(batch: int, seqlen_k: int) -> tuple[int, int]:
    """(bytes of K and V, bytes of Q, K, V and O) of one decode step of the preset's shape."""
    kv_bytes = 2 * batch * seqlen_k * HK * D * 2
    return kv_bytes, kv_bytes + 2 * batch * H * D * 2


def input_sets(batch: int, seqlen_k: int, g, q_rows: bool = True) -> list:
    """Fresh (q, k, v) sets of the preset's shape, enough of them to span > 2x the L2 (at most 6; calls rotate over
    them so K/V come from HBM): q (batch, 1, H, D) with ``q_rows``, else (batch, H, D) (the varlen layout)."""
    n_sets = max(1, min(6, math.ceil(2 * l2_bytes(DEV) / decode_bytes(batch, seqlen_k)[0])))
    q_shape = (batch, 1, H, D) if q_rows else (batch, H, D)
    return [(torch.randn(*q_shape, device=DEV, dtype=DT, generator=g),
             torch.randn(batch, seqlen_k, HK, D, device=DEV, dtype=DT, generator=g),
             torch.randn(batch, seqlen_k, HK, D, device=DEV, dtype=DT, generator=g)) for _ in range(n_sets)]


def dense_seq(batch: int, seqlen_k: int, num_splits: int = 0, block_table=None) -> SeqArgs:
    """The SeqArgs of a decode step over every sequence's seqlen_k keys (dense cache, or paged with block_table)."""
    return SeqArgs(cu_seqlens_q=torch.arange(batch + 1, dtype=torch.int32, device=DEV), cu_seqlens_k=None,
                   seqused_k=torch.full((batch,), seqlen_k, dtype=torch.int32, device=DEV), max_seqlen_q=1,
                   max_seqlen_k=seqlen_k, block_table=block_table, num_splits=num_splits)


def paged_copy(k, v, page, g):
    """(k_cache, v_cache, block_table) holding k/v (batch, seqlen, hk, d) in shuffled pages of `page` rows."""
    b, s, hk, d = k.shape
    per = -(-s // page)
    perm = torch.randperm(b * per, generator=g).to(DEV, torch.int32)
    table = perm.view(b, per)
    kc = torch.empty(b * per, page, hk, d, dtype=k.dtype, device=DEV)
    vc = torch.empty_like(kc)
    pad = per * page - s
    kp = F.pad(k, (0, 0, 0, 0, 0, pad)).view(b * per, page, hk, d)
    vp = F.pad(v, (0, 0, 0, 0, 0, pad)).view(b * per, page, hk, d)
    kc[table.flatten().long()] = kp
    vc[table.flatten().long()] = vp
    return kc, vc, table


def graph_of(fn):
    """(replay, output): a CUDA graph of fn() (warmed up twice on a side stream; its replay has no host work: the
    kernels' own time) and the output tensor(s) its replays write."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        fn()
        fn()
    torch.cuda.current_stream().wait_stream(side)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        out = fn()
    return g.replay, out


def graphed(fn):
    """A CUDA graph of fn(), as its replay (graph_of without the output)."""
    return graph_of(fn)[0]


def layer_graph(calls, n_layers):
    """(graph, outputs) of one CUDA graph holding n_layers calls rotated over ``calls`` (a model's decode step: every
    layer's attention in one graph; warmed up once per call on a side stream)."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for c in calls:
            c()
    torch.cuda.current_stream().wait_stream(side)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        outs = [calls[i % len(calls)]() for i in range(n_layers)]
    return g, outs


def replay_ms(replay, reps: int = 10) -> float:
    """Median event-timed duration (ms) of replay() over reps runs, after 3 untimed ones."""
    for _ in range(3):
        replay()
    times = []
    for _ in range(reps):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        replay()
        e.record()
        torch.cuda.synchronize()
        times.append(s.elapsed_time(e))
    times.sort()
    return times[len(times) // 2]


def sdpa_methods(sets) -> dict:
    """{"sdpa-flash": calls, "sdpa-cudnn": calls}: F.scaled_dot_product_attention restricted to that backend
    (enable_gqa) on (batch, heads, seq, dim) views of each input set (q, k, v)."""
    from torch.nn.attention import SDPBackend, sdpa_kernel

    def mk(s, be):
        qt, kt, vt = (t.transpose(1, 2) for t in s)

        def f():
            with sdpa_kernel([be]):
                return F.scaled_dot_product_attention(qt, kt, vt, enable_gqa=True)
        return f
    return {name: [mk(s, be) for s in sets]
            for name, be in (("sdpa-flash", SDPBackend.FLASH_ATTENTION), ("sdpa-cudnn", SDPBackend.CUDNN_ATTENTION))}


def under(fn, **values):
    """fn called with the environment switches ``values`` set (None: unset), restored after (per call: a host cost of
    microseconds that an eager batch-1 timing sees; perf/dec9_stage.py sets a variant's switches around a whole
    measurement instead)."""
    def call():
        old = {k: os.environ.get(k) for k in values}
        set_env(values)
        try:
            return fn()
        finally:
            set_env(old)
    return call


def set_env(values: dict) -> None:
    """Set the environment variables ``values`` (None: unset)."""
    for k, v in values.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


def references(q, k, v, rows):
    """{sequence: (fp64 reference (H, D), max|bf16 eager - ref|)} of the decode attention (q (batch, 1, H, D), k / v
    (batch, seqlen_k, HK, D)) for the listed sequences."""
    res = {}
    for b in rows:
        qg = q[b, 0].view(HK, H // HK, D)
        kt, vt = k[b].transpose(0, 1), v[b].transpose(0, 1)  # (HK, seqlen_k, D)
        s64 = torch.einsum("hgd,hsd->hgs", qg.double(), kt.double()) * D ** -0.5
        ref = torch.einsum("hgs,hsd->hgd", torch.softmax(s64, dim=-1), vt.double()).reshape(H, D)
        s16 = torch.einsum("hgd,hsd->hgs", qg, kt) * D ** -0.5  # bf16 ops throughout (FlashAttention's baseline)
        low = torch.einsum("hgs,hsd->hgd", torch.softmax(s16, dim=-1), vt).reshape(H, D)
        res[b] = (ref, (low.double() - ref).abs().max().item())
    return res


def within_rule(out, refs) -> tuple[bool, float]:
    """(every listed sequence of out (batch, 1, H, D) within FlashAttention's rule max|out - ref| <= 2 max|bf16 eager
    - ref| + 1e-3, the worst max|out - ref|) against references(...)."""
    ok, worst = True, 0.0
    for b, (ref, low_err) in refs.items():
        err = (out[b, 0].double() - ref).abs().max().item()
        worst = max(worst, err)
        ok = ok and err <= 2 * low_err + 1e-3
    return ok, worst


BUDGET_S = 1.0


def timed(calls, est=None):
    t = measure(calls, DEV, warmup=5, repeats=30, min_repeats=5, budget_s=BUDGET_S, estimate_ms=est)
    return t.median_ms


def with_kernel(kernel, fn):
    """fn run under ROCFLASH_KERNEL=kernel (read by the compiled backend at every call)."""
    def f():
        old = os.environ.get(compiled.KERNEL_ENV)
        os.environ[compiled.KERNEL_ENV] = kernel
        try:
            return fn()
        finally:
            if old is None:
                del os.environ[compiled.KERNEL_ENV]
            else:
                os.environ[compiled.KERNEL_ENV] = old
    return f


def decode_case(batch, seqlen_k, pages, results, g):
    _, total = decode_bytes(batch, seqlen_k)
    sets = input_sets(batch, seqlen_k, g)
    q0 = sets[0][0]
    _, splits, inst = compiled.split_plan("cuda", q0, HK, batch, 1, seqlen_k, 0, compiled.is_aligned(q0))
    _, splits_vec, _ = with_kernel("vector", lambda: compiled.split_plan("cuda", q0, HK, batch, 1, seqlen_k, 0,
                                                                         compiled.is_aligned(q0)))()
    row = {"batch": batch, "seqlen_k": seqlen_k, "bytes": total, "num_splits": splits, "instance": inst["name"],
           "num_splits_vector": splits_vec, "gbps": {}, "ms": {}}
    methods = {"rocflash": [lambda s=s: rocflash.flash_attn_func(*s) for s in sets],
               "rocflash-vector": [with_kernel("vector", lambda s=s: rocflash.flash_attn_func(*s)) for s in sets]}
    ref_v = methods["rocflash-vector"][-1]()
    row["max_abs_diff_vs_vector"] = (methods["rocflash"][-1]().float() - ref_v.float()).abs().max().item()
    args = FwdArgs(D ** -0.5, -1, -1, 0.0, None)
    for page in pages:
        gq = torch.Generator(device="cpu").manual_seed(page)
        seq = None
        calls = []
        for q, k, v in sets:  # a paged copy of every input set (the rotation defeats the L2 as for the others)
            kc, vc, table = paged_copy(k, v, page, gq)
            seq = dense_seq(batch, seqlen_k, block_table=table)
            p = (q.view(batch, H, D), kc, vc, seq)
            calls.append(lambda p=p: compiled.varlen_forward("cuda", p[0], p[1], p[2], p[3], args))
        methods[f"rocflash-paged{page}"] = calls
        if page == pages[0]:
            try:  # the same calls replayed from CUDA graphs: kernel time without the host's Python path
                methods[f"rocflash-paged{page}-graph"] = [graphed(c) for c in calls]
            except Exception as e:  # noqa: BLE001 - recorded, not fatal
                row.setdefault("unavailable", {})["graph"] = str(e).splitlines()[0][:160]
        q, k, v = sets[-1]  # correctness against the dense call on the same inputs
        ref = rocflash.flash_attn_func(q, k, v)
        got, _ = calls[-1]()
        row[f"paged{page}_max_abs_diff_vs_dense"] = (got.view_as(ref).float() - ref.float()).abs().max().item()
    for name, calls in sdpa_methods(sets).items():
        try:
            calls[0]()
            methods[name] = calls
        except Exception as e:  # noqa: BLE001 - recorded, not fatal
            row.setdefault("unavailable", {})[name] = str(e).splitlines()[0][:160]
    for name, calls in methods.items():
        ms = timed(calls)
        row["ms"][name] = ms
        row["gbps"][name] = total / ms / 1e6
    results.append(row)
    del sets, methods, calls
    torch.cuda.empty_cache()
    return row


def graph_case(batch, seqlen_k, pages, n_layers, results, g):
    """Per-call time in a graph of n_layers calls (module docstring) of rocflash dense / KV-cache paged and SDPA flash /
    cuDNN on the same input sets; the row also holds max|O - cuDNN| of each rocflash method (last set)."""
    _, total = decode_bytes(batch, seqlen_k)
    sets = input_sets(batch, seqlen_k, g)
    n = max(n_layers, 4 * len(sets))
    lens = torch.full((batch,), seqlen_k, dtype=torch.int32, device=DEV)
    q0 = sets[0][0]
    _, splits, _ = compiled.split_plan("cuda", q0, HK, batch, 1, seqlen_k, 0, compiled.is_aligned(q0))
    methods = {"rocflash": [lambda s=s: rocflash.flash_attn_func(*s) for s in sets]}
    for page in pages:
        gp = torch.Generator(device="cpu").manual_seed(page)
        paged = [(s[0],) + paged_copy(s[1], s[2], page, gp) for s in sets]
        methods[f"rocflash-kvcache-paged{page}"] = [
            lambda p=p: rocflash.flash_attn_with_kvcache(p[0], p[1], p[2], cache_seqlens=lens, block_table=p[3])
            for p in paged]
    row = {"graph_layers": n, "batch": batch, "seqlen_k": seqlen_k, "bytes": total, "num_splits": splits,
           "us_per_call": {}, "gbps": {}, "max_abs_diff_vs_cudnn": {}}
    for name, calls in sdpa_methods(sets).items():
        try:
            calls[0]()
            methods[name] = calls
        except Exception as e:  # noqa: BLE001 - recorded, not fatal
            row.setdefault("unavailable", {})[name] = str(e).splitlines()[0][:160]
    times, last = {}, {}
    for rnd in range(2):
        order = list(methods) if rnd == 0 else list(methods)[::-1]
        for name in order:
            try:
                graph, outs = layer_graph(methods[name], n)
            except Exception as e:  # noqa: BLE001 - recorded, not fatal (e.g. a backend that cannot be captured)
                row.setdefault("unavailable", {})[name] = "graph: " + str(e).splitlines()[0][:160]
                continue
            times.setdefault(name, []).append(1e3 * replay_ms(graph.replay) / n)
            o = outs[len(methods[name]) - 1]  # the last input set's call (n >= 4 x the sets)
            last[name] = (o.transpose(1, 2) if name.startswith("sdpa") else o).clone()  # (batch, 1, H, D)
            del graph, outs
    for name, ts in times.items():
        row["us_per_call"][name] = sum(ts) / len(ts)
        row["gbps"][name] = total / row["us_per_call"][name] / 1e3
    if "sdpa-cudnn" in last:
        for name in last:
            if name.startswith("rocflash"):
                row["max_abs_diff_vs_cudnn"][name] = (last[name].float() - last["sdpa-cudnn"].float()).abs().max().item()
    results.append(row)
    del sets, methods, last
    torch.cuda.empty_cache()
    return row


def splits_sweep(batch, seqlen_k, counts, results, g):
    _, total = decode_bytes(batch, seqlen_k)
    sets = input_sets(batch, seqlen_k, g, q_rows=False)
    args = FwdArgs(D ** -0.5, -1, -1, 0.0, None)
    row = {"splits_sweep": True, "batch": batch, "seqlen_k": seqlen_k, "gbps_by_splits": {}}
    for n in counts:
        seq = dense_seq(batch, seqlen_k, n)
        ms = timed([lambda s=s_, seq=seq: compiled.varlen_forward("cuda", s[0], s[1], s[2], seq, args) for s_ in sets])
        row["gbps_by_splits"][n] = total / ms / 1e6
    results.append(row)
    del sets
    torch.cuda.empty_cache()
    return row


def varlen_case(batch, seqlen, results, g, causal):
    h, d, dt = 32, 128, torch.float16
    q, k, v = (torch.randn(batch, seqlen, h, d, device=DEV, dtype=dt, generator=g) for _ in range(3))
    cu = torch.arange(0, (batch + 1) * seqlen, seqlen, dtype=torch.int32, device=DEV)
    seq = SeqArgs(cu_seqlens_q=cu, cu_seqlens_k=cu, seqused_k=None, max_seqlen_q=seqlen, max_seqlen_k=seqlen)
    args = FwdArgs(d ** -0.5, -1, 0 if causal else -1, 0.0, None)
    qf, kf, vf = (t.view(batch * seqlen, h, d) for t in (q, k, v))
    dense = timed([lambda: rocflash.flash_attn_func(q, k, v, causal=causal)])
    var = timed([lambda: compiled.varlen_forward("cuda", qf, kf, vf, seq, args)])
    out_d = rocflash.flash_attn_func(q, k, v, causal=causal)
    out_v, _ = compiled.varlen_forward("cuda", qf, kf, vf, seq, args)
    row = {"varlen_prefill": True, "batch": batch, "seqlen": seqlen, "causal": causal, "dense_ms": dense,
           "varlen_ms": var, "ratio_varlen_over_dense": var / dense,
           "max_abs_diff": (out_v.view_as(out_d).float() - out_d.float()).abs().max().item()}
    results.append(row)
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", default=None)
    ap.add_argument("--quick", action="store_true", help="batch 1/8 x 4k/16k only")
    ap.add_argument("--budget-s", type=float, default=1.0, help="timing budget per method and case (s)")
    ap.add_argument("--no-sweep", action="store_true", help="skip the num_splits sweep")
    ap.add_argument("--no-varlen", action="store_true", help="skip the varlen prefill comparison")
    ap.add_argument("--graph-layers", type=int, default=24,
                    help="calls per CUDA graph of the graph-of-layers section (0: skip it)")
    ap.add_argument("--graph-only", action="store_true", help="only the graph-of-layers section")
    a = ap.parse_args()
    global BUDGET_S
    BUDGET_S = a.budget_s
    g = torch.Generator(device=DEV).manual_seed(0)
    results: list[dict] = []
    t0 = time.time()
    print(f"device {torch.cuda.get_device_name(0)}, torch {torch.__version__}, L2 {l2_bytes(DEV) >> 20} MiB")
    grid = [(b, s) for b in (1, 8, 32) for s in (4096, 16384, 131072)]
    if a.quick:
        grid = [(b, s) for b, s in grid if b <= 8 and s <= 16384]
    cols = ("rocflash", "rocflash-vector", "rocflash-paged16", "rocflash-paged256", "sdpa-flash", "sdpa-cudnn")
    hdr = f"{'batch':>5} {'seqlen_k':>8} {'splits':>6} " + " ".join(f"{m:>17}" for m in cols) + "  vs cuDNN (paged16)"
    if a.graph_layers > 0:
        gcols = ("rocflash", "rocflash-kvcache-paged16", "rocflash-kvcache-paged256", "sdpa-flash", "sdpa-cudnn")
        print(f"decode, graph of {a.graph_layers} calls: GB/s per call (bytes of Q,K,V,O / time per call), "
              "x cuDNN for the three rocflash columns")
        print(f"{'batch':>5} {'seqlen_k':>8} {'splits':>6} " + " ".join(f"{m:>25}" for m in gcols))
        for b, s in grid:
            r = graph_case(b, s, (16, 256), a.graph_layers, results, g)
            cu = r["gbps"].get("sdpa-cudnn", float("nan"))
            cells = []
            for m in gcols:
                x = r["gbps"].get(m, float("nan"))
                cells.append(f"{x:>13.0f} ({x / cu:.3f}x)" if m.startswith("rocflash") else f"{x:>25.0f}")
            print(f"{b:>5} {s:>8} {r['num_splits']:>6} " + " ".join(f"{c:>25}" for c in cells), flush=True)
            print("   us per call: " + ", ".join(f"{m} {t:.2f}" for m, t in r["us_per_call"].items())
                  + "; max|O - cuDNN|: " + ", ".join(f"{m} {x:.2e}" for m, x in r["max_abs_diff_vs_cudnn"].items()))
            if r.get("unavailable"):
                print("   unavailable:", r["unavailable"])
    if a.graph_only:
        grid, a.no_sweep, a.no_varlen = [], True, True
    else:
        print("decode, effective GB/s (bytes of Q,K,V,O / median time)\n" + hdr)
    for b, s in grid:
        r = decode_case(b, s, (16, 256), results, g)
        cells = " ".join(f"{r['gbps'].get(m, float('nan')):>17.0f}" for m in cols)
        cu = r["gbps"].get("sdpa-cudnn", float("nan"))
        ratio, ratio_p = r["gbps"]["rocflash"] / cu, r["gbps"]["rocflash-paged16"] / cu
        print(f"{b:>5} {s:>8} {r['num_splits']:>6} {cells}  {ratio:.2f}x ({ratio_p:.2f}x)", flush=True)
        print(f"   instance {r['instance']}; vector splits {r['num_splits_vector']}; "
              f"max|mma - vector| {r['max_abs_diff_vs_vector']:.3g}")
        if r.get("unavailable"):
            print("   unavailable:", r["unavailable"])
        if "rocflash-paged16-graph" in r["gbps"]:
            print(f"   paged16 from a CUDA graph (no host work): {r['gbps']['rocflash-paged16-graph']:.0f} GB/s")
        print(f"   paged vs dense max|diff|: {r.get('paged16_max_abs_diff_vs_dense'):.3g} / "
              f"{r.get('paged256_max_abs_diff_vs_dense'):.3g}")
    if not a.no_sweep:
        print("num_splits sweep (dense cache through compiled.varlen_forward, GB/s): the heuristic's neighbourhood")
        for b, s, counts in ((1, 16384, (8, 16, 24, 30, 33, 48, 64)), (8, 16384, (2, 3, 4, 6, 8, 16)),
                             (32, 16384, (1, 2, 3, 4)), (1, 131072, (16, 33, 64, 128))):
            r = splits_sweep(b, s, counts, results, g)
            print(f"  b{b} k{s}: " + ", ".join(f"{n}: {x:.0f}" for n, x in r["gbps_by_splits"].items()), flush=True)
    print("varlen prefill (fp16, 32 heads, d128) vs the dense call on the same tokens")
    for b, s, causal in (() if a.no_varlen else ((4, 4096, False), (4, 4096, True), (16, 1024, True))):
        r = varlen_case(b, s, results, g, causal)
        print(f"  b{b} s{s} causal={causal}: dense {r['dense_ms']:.3f} ms, varlen {r['varlen_ms']:.3f} ms, "
              f"ratio {r['ratio_varlen_over_dense']:.3f}, max|diff| {r['max_abs_diff']:.3g}", flush=True)
    print(f"total {time.time() - t0:.0f} s")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"device": torch.cuda.get_device_name(0), "torch": torch.__version__, "results": results}, f,
                      indent=1)


if __name__ == "__main__":
    main()
