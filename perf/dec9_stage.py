"""dec9 (issue 9 item 6): where the tensor-core split-KV decode call's time goes, and its variants against SDPA cuDNN,
in ONE process.

    python3 perf/dec9_stage.py [--cases 1x4096,1x16384,8x16384,32x16384] [--kinds paged16,dense]
        [--variants base,old,...] [--profile-cases 1x4096,1x16384,32x16384] [--budget-s 0.03] [--rounds 2] [--preset]
        [--sweep] [--deadline-s 150] [--json OUT.json]

Shape: issue 9's decode preset (seqlen_q 1, nheads 32, nheads_k 8, headdim 128, bf16), inputs rotated over > 2x the
L2 (perf/decode_bench.py input_sets; every helper here is decode_bench's). Call kinds: paged16 =
flash_attn_with_kvcache on a shuffled paged-16 copy (cache_seqlens tensor, no append: the step folded), paged256 the
same with page 256, dense = flash_attn_func (the preset's public call).
1 profile  torch.profiler (CUPTI) of CUDA-graph replays (and of one eager call) of each kind's default, of the
           variants named by --profile-variants and of SDPA cuDNN at --profile-cases: the kernels of one call, each
           one's duration, the gaps between them and the span (first kernel start to last kernel end); beside them an
           one- and a two-kernel graph's event-timed replay (4-byte adds: the timing floor of a graph replay).
2 bench    each variant (environment switches SET AROUND A WHOLE MEASUREMENT, not toggled per call; "base-toggled"
           is the default kernel with a switch set and restored around every call, dec8's method, to show what that
           costs an eager call) eager and graph, --rounds rounds in alternating order (mean reported, rounds listed),
           cuDNN eager and graph beside; --sweep: batch-1 paged16 num_splits sweep (graph) of base and old. --preset: issue 9's grid (PRESET).
Checks (last input set; a failed one marks the case FAIL): every variant within FlashAttention's rule against fp64
on sequences 0 and batch - 1; variants of the same kernel arithmetic bit for bit the default's (SAME_BITS_AS); each
graph replay = its eager call.
Effective GB/s = bytes of Q, K, V, O / median time. Last line: "VERDICT ...".
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
import traceback

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import decode_bench as db  # noqa: E402

import rocflash  # noqa: E402

DEV, H, HK, D, DT = db.DEV, db.H, db.HK, db.D, db.DT
INFLIGHT, SPLITS, PDL = "ROCFLASH_SPLITKV_INFLIGHT", "ROCFLASH_SPLITKV_SPLITS", "ROCFLASH_SPLITKV_PDL"
LAZY = "ROCFLASH_SPLITKV_LAZY_RESCALE"
PLAIN = "ROCFLASH_SPLITKV_PLAIN"  # dec11's plain-decode loop (kv_k_first 6)
NOISE = 0.03  # same-process repeat spread of graph columns (runs K1, D5-1, integ20, dec8): up to ~3 %
# the variants (environment switches, unset = the default: since dec9 one tile in flight per warp and PDL on sm_90+;
# "old" = the defaults before dec9); the variant whose bits each must give
FUSED = "ROCFLASH_SPLITKV_FUSED_COMBINE"
VARIANTS = {"base": {}, "old": {INFLIGHT: "2", PDL: "0"}, "inflight2": {INFLIGHT: "2"}, "pdl0": {PDL: "0"},
            "fill": {SPLITS: "fill"}, "old+fill": {INFLIGHT: "2", PDL: "0", SPLITS: "fill"}, "fused": {FUSED: "1"},
            "lazy": {LAZY: "1"}, "plain": {PLAIN: "1"}, "near": {PLAIN: "0"}, "plain2": {PLAIN: "1", INFLIGHT: "2"},
            "plainfill": {PLAIN: "1", SPLITS: "fill"}, "plain2fill": {PLAIN: "1", INFLIGHT: "2", SPLITS: "fill"}}
# (plain: bitwise the default on these finite inputs; it differs only for a non-finite V whose P rounds to 0)
SAME_BITS_AS = {"old": "base", "inflight2": "base", "pdl0": "base", "old+fill": "fill", "lazy": "base",
                "plain": "base", "near": "base", "plain2": "base", "plainfill": "fill", "plain2fill": "fill"}
SWEEP = {(1, 4096): (8, 16, 24, 32, 48, 64), (1, 16384): (16, 24, 32, 48, 64)}
SWEEP_VARIANTS = ("base", "old")
ALL_ENV = (INFLIGHT, SPLITS, PDL, FUSED, LAZY, PLAIN, "ROCFLASH_POISON_OUTPUTS", "ROCFLASH_KERNEL")
# --preset: issue 9's decode grid and its paged variants, the new defaults against the old and each lever alone
PRESET = dict(cases="1x4096,1x16384,1x131072,8x4096,8x16384,8x131072,32x4096,32x16384,32x131072",
              kinds="paged16,paged256,dense", variants="base,old,inflight2,pdl0,fill,fused,lazy",
              profile_cases="1x4096,1x16384,32x16384",
              profile_variants="base,old,lazy")


def with_env(env: dict, fn):
    """fn() with env set for its duration (restored after)."""
    old = {k: os.environ.get(k) for k in env}
    db.set_env(env)
    try:
        return fn()
    finally:
        db.set_env(old)


def make_calls(batch, seqlen_k, sets, kinds):
    """{kind: fn(n) -> list of calls over the input sets} (n: num_splits, 0 = the heuristic; dense ignores it)."""
    lens = torch.full((batch,), seqlen_k, dtype=torch.int32, device=DEV)
    out = {}
    for kind in kinds:
        if kind.startswith("paged"):
            page = int(kind[5:])
            gp = torch.Generator(device="cpu").manual_seed(page)
            paged = [(qs,) + db.paged_copy(ks, vs, page, gp) for qs, ks, vs in sets]
            out[kind] = lambda n=0, paged=paged: [
                lambda p=p: rocflash.flash_attn_with_kvcache(p[0], p[1], p[2], cache_seqlens=lens, block_table=p[3],
                                                             num_splits=n) for p in paged]
        else:
            out[kind] = lambda n=0: [lambda s=s: rocflash.flash_attn_func(s[0], s[1], s[2]) for s in sets]
    return out


# ---- 1 profile -------------------------------------------------------------------------------------------------
def kernel_trace(fn, calls: int = 8) -> list[list[tuple[str, float, float]]]:
    """[(kernel name, start us, duration us), ...] of each of ``calls`` runs of fn (CUPTI through torch.profiler; a
    0.3 ms sleep between runs separates them)."""
    from torch.profiler import ProfilerActivity, profile
    fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for _ in range(calls):
            fn()
            torch.cuda.synchronize()
            time.sleep(3e-4)
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
        path = f.name
    prof.export_chrome_trace(path)
    with open(path) as f:
        evs = json.load(f)["traceEvents"]
    os.unlink(path)
    def launch(e):  # grid, block, registers, shared memory of a kernel record (CUPTI's, as kineto names them)
        a = e.get("args", {})
        return {k: a[k] for k in ("grid", "block", "registers per thread", "shared memory", "blocks per SM",
                                  "warps per SM") if k in a}
    ks = sorted((e["ts"], e.get("dur", 0.0), e["name"], launch(e)) for e in evs
                if e.get("ph") == "X" and e.get("cat") in ("kernel", "gpu_memset", "gpu_memcpy"))
    groups, last_end = [], None
    for ts, dur, name, args in ks:
        if last_end is None or ts - last_end > 150.0:
            groups.append([])
        groups[-1].append((name, ts, dur, args))
        last_end = ts + dur
    return groups


def summarize_trace(groups) -> dict:
    """Median over the runs of each kernel's duration (by position), of the gaps between them and of the span."""
    import statistics
    if not groups:
        return {"kernels": [], "span_us": None, "runs": 0}
    n = statistics.mode(len(g) for g in groups)
    gs = [g for g in groups if len(g) == n]
    med = statistics.median
    kernels = [{"name": gs[0][i][0][:90], "us": med(g[i][2] for g in gs), "launch": gs[0][i][3]} for i in range(n)]
    gaps = [med(g[i + 1][1] - (g[i][1] + g[i][2]) for g in gs) for i in range(n - 1)]
    span = med(g[-1][1] + g[-1][2] - g[0][1] for g in gs)
    return {"kernels": kernels, "gaps_us": gaps, "span_us": span, "runs": len(gs), "kernels_per_run": n}


def fmt_trace(t: dict) -> str:
    if not t["kernels"]:
        return "no kernels seen"
    ks = " + ".join(f"{k['name'][:48]} {k['us']:.1f} (grid {k['launch'].get('grid')} x {k['launch'].get('block')}, "
                    f"{k['launch'].get('registers per thread')} regs)" for k in t["kernels"])
    gaps = "/".join(f"{x:.1f}" for x in t.get("gaps_us", []))
    return f"span {t['span_us']:.1f} us = [{ks}] gaps [{gaps}] ({t['runs']} runs)"


def floor_graphs() -> dict:
    """Event-timed replays of a one-kernel and a two-kernel graph (a 4-byte add): the floor any graph replay pays."""
    x = torch.zeros(1, device=DEV)
    g1, _ = db.graph_of(lambda: x.add_(1))
    g2, _ = db.graph_of(lambda: (x.add_(1), x.mul_(1)))
    return {"graph_1_kernel_us": 1e3 * db.timed([g1] * 4), "graph_2_kernels_us": 1e3 * db.timed([g2] * 4)}


def profile_case(batch, seqlen_k, g, kinds, variants) -> dict:
    sets = db.input_sets(batch, seqlen_k, g)
    calls = make_calls(batch, seqlen_k, sets, kinds)
    row = {"batch": batch, "seqlen_k": seqlen_k, "trace": {}}
    for kind in kinds:
        for name in variants:
            env = VARIANTS[name]
            cs = with_env(env, lambda: calls[kind]())
            replay, _ = with_env(env, lambda: db.graph_of(cs[-1]))
            row["trace"][f"{kind}/{name}-graph"] = summarize_trace(kernel_trace(replay))
            if name == "base":
                row["trace"][f"{kind}/{name}-eager"] = summarize_trace(with_env(env, lambda: kernel_trace(cs[-1], 4)))
    cud = db.sdpa_methods(sets)["sdpa-cudnn"]
    try:
        cud[-1]()
        row["trace"]["cudnn-graph"] = summarize_trace(kernel_trace(db.graph_of(cud[-1])[0]))
        row["trace"]["cudnn-eager"] = summarize_trace(kernel_trace(cud[-1], 4))
    except Exception as e:  # noqa: BLE001 - recorded
        row["cudnn_unavailable"] = str(e).splitlines()[0][:160]
    del sets, calls
    torch.cuda.empty_cache()
    return row


# ---- 2 bench ---------------------------------------------------------------------------------------------------
def bench_case(batch, seqlen_k, g, kinds, variants, rounds, sweep) -> dict:
    _, total = db.decode_bytes(batch, seqlen_k)
    sets = db.input_sets(batch, seqlen_k, g)
    calls = make_calls(batch, seqlen_k, sets, kinds)
    from rocflash.backends import compiled
    plans = {name: with_env(VARIANTS[name], lambda: compiled.split_plan("cuda", sets[0][0], HK, batch, 1, seqlen_k, 0,
                                                                         True)[1]) for name in variants}
    row = {"batch": batch, "seqlen_k": seqlen_k, "bytes": total, "input_sets": len(sets), "splits": plans,
           "gbps": {}, "rounds": {}, "check": {}, "fail": []}
    q, k, v = sets[-1]
    refs = db.references(q, k, v, sorted({0, batch - 1}))
    eager, graphs = {}, {}
    for kind in kinds:
        outs = {}
        for name in variants:
            env = VARIANTS[name]
            cs = with_env(env, lambda: calls[kind]())
            outs[name] = with_env(env, cs[-1])
            gr = with_env(env, lambda: [db.graph_of(c) for c in cs])
            gr[-1][0]()
            torch.cuda.synchronize()
            row["check"][f"{kind}_{name}_graph_bitwise_eager"] = bool(torch.equal(gr[-1][1], outs[name]))
            ok, err = db.within_rule(outs[name].view(batch, 1, H, D), refs)
            row["check"][f"{kind}_{name}_fp64_rule"], row["check"][f"{kind}_{name}_max_err"] = ok, err
            eager[f"{kind}/{name}"], graphs[f"{kind}/{name}"] = (env, cs), [r for r, _ in gr]
        for name, same in SAME_BITS_AS.items():
            if name in outs and same in outs:
                row["check"][f"{kind}_{name}_bitwise_{same}"] = bool(torch.equal(outs[name], outs[same]))
        if "base" in variants:  # dec8's per-call switch, set to its default (the same kernel as base)
            eager[f"{kind}/base-toggled"] = ({}, [db.under(c, **{INFLIGHT: "1"}) for c in calls[kind]()])
        if sweep and kind == "paged16":
            for n in SWEEP.get((batch, seqlen_k), ()):
                for name in SWEEP_VARIANTS:
                    env = VARIANTS[name]
                    cs = with_env(env, lambda: calls[kind](n))
                    gr = with_env(env, lambda: [db.graph_of(c)[0] for c in cs])
                    row["gbps"][f"{kind}/{name}/n{n}-graph"] = total / db.timed(gr) / 1e6
    cud = db.sdpa_methods(sets)["sdpa-cudnn"]
    try:
        cud[0]()
        eager["cudnn"], graphs["cudnn"] = ({}, cud), [db.graphed(c) for c in cud]
    except Exception as e:  # noqa: BLE001 - recorded
        row["cudnn_unavailable"] = str(e).splitlines()[0][:160]
    names = list(eager)
    for r in range(rounds):  # alternating order per round
        for m in (names if r % 2 == 0 else names[::-1]):
            env, cs = eager[m]
            row["rounds"].setdefault(m, []).append(total / with_env(env, lambda: db.timed(cs)) / 1e6)
            if m in graphs:
                row["rounds"].setdefault(m + "-graph", []).append(total / db.timed(graphs[m]) / 1e6)
    for m, xs in row["rounds"].items():
        row["gbps"][m] = sum(xs) / len(xs)
    row["fail"] = [k for k, v in row["check"].items() if v is False]
    del sets, calls, eager, graphs
    torch.cuda.empty_cache()
    return row


def mark(r: float) -> str:
    return "level" if abs(r - 1) < NOISE else ("better" if r > 1 else "worse")


def verdict(row, kinds, variants) -> str:
    gb = row["gbps"]
    parts = []
    for kind in kinds:
        bg, be = gb.get(f"{kind}/base-graph"), gb.get(f"{kind}/base")
        if bg is None:
            continue
        rs = [f"{n} {gb[f'{kind}/{n}-graph'] / bg:.3f} {mark(gb[f'{kind}/{n}-graph'] / bg)} "
              f"({gb[f'{kind}/{n}'] / be:.3f})" for n in variants if n != "base" and f"{kind}/{n}-graph" in gb]
        if f"{kind}/base-toggled" in gb:
            rs.append(f"base-toggled eager {gb[f'{kind}/base-toggled'] / be:.3f}")
        vs = ""
        if "cudnn-graph" in gb:
            vs = f"; base / cuDNN graph {bg / gb['cudnn-graph']:.3f}, eager {be / gb['cudnn']:.3f}"
        parts.append(f"{kind}: base {bg:.0f} ({be:.0f}); " + ", ".join(rs) + vs)
    cud = f"cuDNN {gb.get('cudnn-graph', float('nan')):.0f} ({gb.get('cudnn', float('nan')):.0f})"
    return (f"{row['batch']}x{row['seqlen_k'] // 1024}k (splits {row['splits'].get('base')}): {cud}; "
            + " / ".join(parts) + f"; {'pass' if not row['fail'] else 'FAIL ' + ','.join(row['fail'])}")


def summary(rows, kinds) -> str:
    """One line: per case the default's graph GB/s per kind over cuDNN's graph, and the default over the old."""
    parts = []
    for r in rows:
        gb = r["gbps"]
        cells = []
        for kind in kinds:
            b = gb.get(f"{kind}/base-graph")
            if b is None:
                continue
            vs = f" {b / gb['cudnn-graph']:.2f}x" if "cudnn-graph" in gb else ""
            old = f" (old {b / gb[f'{kind}/old-graph']:.3f})" if f"{kind}/old-graph" in gb else ""
            cells.append(f"{kind} {b:.0f}{vs}{old}")
        parts.append(f"{r['batch']}x{r['seqlen_k'] // 1024}k cuDNN {gb.get('cudnn-graph', float('nan')):.0f}: "
                     + ", ".join(cells) + ("" if not r["fail"] else " FAIL"))
    return "SUMMARY graph GB/s (x cuDNN graph; default / old defaults): " + " | ".join(parts)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", default="1x4096,1x16384,8x16384,32x16384")
    ap.add_argument("--kinds", default="paged16,dense")
    ap.add_argument("--variants", default="base,old,inflight2,pdl0,fill,lazy")
    ap.add_argument("--profile-cases", default="1x4096,1x16384,32x16384", help="'' = no profile")
    ap.add_argument("--profile-variants", default="base,old,lazy")
    ap.add_argument("--budget-s", type=float, default=0.03, help="timing budget per method and case (s)")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--sweep", action="store_true", help="batch-1 paged16 num_splits sweep (SWEEP)")
    ap.add_argument("--deadline-s", type=float, default=150.0, help="start no case after this many seconds")
    ap.add_argument("--json", default=None)
    ap.add_argument("--preset", action="store_true", help="issue 9's grid: " + ", ".join(f"--{k.replace('_', '-')} {v}"
                                                                                        for k, v in PRESET.items()))
    a = ap.parse_args()
    if a.preset:
        for k, v in PRESET.items():
            setattr(a, k, v)
    for name in ALL_ENV:
        os.environ.pop(name, None)
    db.BUDGET_S = a.budget_s
    t0 = time.time()
    kinds, variants = a.kinds.split(","), a.variants.split(",")
    g = torch.Generator(device=DEV).manual_seed(0)
    print(f"device {torch.cuda.get_device_name(0)}, torch {torch.__version__}, SMs "
          f"{torch.cuda.get_device_properties(0).multi_processor_count}, L2 {db.l2_bytes(DEV) >> 20} MiB, budget "
          f"{a.budget_s} s, noise band {NOISE:.0%}", flush=True)
    res = {"device": torch.cuda.get_device_name(0), "torch": torch.__version__, "profile": [], "bench": []}
    lines = []
    if a.profile_cases:
        res["floor"] = fl = floor_graphs()
        print(f"graph replay floor (event-timed): 1 kernel {fl['graph_1_kernel_us']:.1f} us, 2 kernels "
              f"{fl['graph_2_kernels_us']:.1f} us", flush=True)
        for c in a.profile_cases.split(","):
            b, s = (int(x) for x in c.split("x"))
            if time.time() - t0 > a.deadline_s:
                print(f"profile {c}: SKIPPED (deadline)")
                continue
            try:
                r = profile_case(b, s, g, kinds, a.profile_variants.split(","))
            except Exception:  # noqa: BLE001 - reported, the rest still runs
                traceback.print_exc()
                continue
            res["profile"].append(r)
            print(f"PROFILE b{b} k{s} ({time.time() - t0:.0f} s)")
            for m, t in r["trace"].items():
                print(f"  {m}: {fmt_trace(t)}", flush=True)
    for c in a.cases.split(",") if a.cases else ():
        b, s = (int(x) for x in c.split("x"))
        if time.time() - t0 > a.deadline_s:
            lines.append(f"{b}x{s // 1024}k: SKIPPED (deadline)")
            continue
        try:
            r = bench_case(b, s, g, kinds, variants, a.rounds, a.sweep)
        except Exception:  # noqa: BLE001 - reported, the other cases still run
            traceback.print_exc()
            lines.append(f"{b}x{s // 1024}k: ERROR (traceback above)")
            torch.cuda.empty_cache()
            continue
        res["bench"].append(r)
        gb = r["gbps"]
        print(f"BENCH b{b} k{s} splits {r['splits']} sets {r['input_sets']} ({time.time() - t0:.0f} s)")
        for kind in kinds:
            print(f"  {kind} GB/s eager / graph: " + ", ".join(
                f"{n}: {gb.get(f'{kind}/{n}', float('nan')):.0f} / {gb.get(f'{kind}/{n}-graph', float('nan')):.0f}"
                for n in variants) + f", base-toggled eager {gb.get(f'{kind}/base-toggled', float('nan')):.0f}")
        sw = {m: x for m, x in gb.items() if "/n" in m}
        if sw:
            print("  sweep graph GB/s: " + ", ".join(f"{m}: {x:.0f}" for m, x in sw.items()))
        print("  rounds: " + ", ".join(f"{m} {'/'.join(f'{x:.0f}' for x in xs)}" for m, xs in r["rounds"].items()))
        print("  check: " + ", ".join(f"{k}={v:.3g}" if isinstance(v, float) else f"{k}={v}"
                                      for k, v in r["check"].items()), flush=True)
        lines.append(verdict(r, kinds, variants))
        print("CASE-VERDICT " + lines[-1], flush=True)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(res, f, indent=1)
    print(f"total {time.time() - t0:.0f} s")
    print(summary(res["bench"], kinds), flush=True)
    print("VERDICT " + " | ".join(lines), flush=True)


if __name__ == "__main__":
    main()
