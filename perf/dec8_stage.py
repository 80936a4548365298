"""dec8's GPU stage (issue 9 item 6, decode speed): the copy variants of the tensor-core split-KV kernel
(ROCFLASH_SPLITKV_BULK: bulk copies; ROCFLASH_SPLITKV_INFLIGHT=1: one tile in flight per warp, not two;
ROCFLASH_SPLITKV_LOCKSTEP=1: a block barrier per main-loop round) beside the existing launch switches
(ROCFLASH_SPLITKV_PDL, ROCFLASH_SPLITKV_FUSED_COMBINE), measured in ONE process against SDPA cuDNN.

    python3 perf/dec8_stage.py [--cases 1x4096,1x16384,8x16384,32x16384] [--kinds paged16,dense] [--budget-s 0.03]
        [--rounds 2] [--deadline-s 150] [--json OUT.json]
    python3 perf/dec8_stage.py --ncu-program 32x16384     (the program perf/dec8_stage.sh profiles with ncu)

Shape: issue 9's decode preset (seqlen_q 1, nheads 32, nheads_k 8, headdim 128, bf16), inputs rotated over > 2x
the L2 (perf/decode_bench.py input_sets). Call kinds per case:
  paged16  flash_attn_with_kvcache on a paged-16 copy (shuffled block table, cache_seqlens tensor = seqlen_k, no
           append; the step folded: dec7's and integ20's "kvcache16")
  dense    flash_attn_func on the dense K/V (the decode preset's public call)
Variants (environment switches, read per call; each its own kept plan): base (defaults), bulk, inflight1, lockstep,
pdl, fused (the first H200 run, perf/RESULTS.md "dec8", had bulk+pf2, bulk+pf4 (an L2 prefetch, since removed),
bulk+pdl and bulk+fused instead of inflight1 and lockstep). Each variant:
eager (the Python call) and graph (CUDA-graph replays: the kernels alone), two rounds in alternating order (mean
reported, rounds listed). Batch 1, paged16: a num_splits sweep of base and inflight1 (graph; flash_attn_func has no
num_splits). cuDNN (F.scaled_dot_product_attention, cuDNN backend, enable_gqa, dense tensors): eager and graph.
Effective GB/s = bytes of Q, K, V, O / median time (as perf/decode_kernel_bench.py).
Checks (last input set; a failed one marks the case FAIL): bulk, inflight1, lockstep, pdl = base bit for bit
(both kinds, the heuristic's count; inflight1 also at the swept counts); base, bulk, inflight1, lockstep and fused
within FlashAttention's rule against fp64 on sequences 0 and batch - 1 (max|out - ref| <= 2 max|bf16 eager - ref| +
1e-3); each variant's graph replay = its eager call; bulk with the output poisoned with NaN first
(ROCFLASH_POISON_OUTPUTS=1) = bulk; bulk repeated = bulk.
Last line: "VERDICT" with, per case and kind, each variant's graph (eager) ratio to base, marked better / worse /
level (|ratio - 1| < NOISE), the best variant's graph GB/s against cuDNN's graph, and pass / FAIL.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import traceback

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import decode_bench as db  # noqa: E402

import rocflash  # noqa: E402
from rocflash import kvcache_fast  # noqa: E402
from rocflash.backends import compiled  # noqa: E402

DEV, H, HK, D, DT = db.DEV, db.H, db.HK, db.D, db.DT
BULK, PDL, FUSED = compiled.SPLITKV_BULK_ENV, compiled.SPLITKV_PDL_ENV, compiled.SPLITKV_FUSED_COMBINE_ENV
NEAR, LOCK = compiled.SPLITKV_INFLIGHT_ENV, compiled.SPLITKV_LOCKSTEP_ENV
NOISE = 0.03  # same-process repeat spread of graph columns in runs K1 / D5-1 / integ20: up to ~3 %
VARIANTS = {"base": {}, "bulk": {BULK: "1"}, "inflight1": {NEAR: "1"}, "lockstep": {LOCK: "1"}, "pdl": {PDL: "1"},
            "fused": {FUSED: "1"}}
# the variant whose bits each must give (the fused combine merges in its own order: not the combine kernel's bits)
SAME_BITS_AS = {"base": None, "bulk": "base", "inflight1": "base", "lockstep": "base", "pdl": "base", "fused": None}
SWEEP = {(1, 4096): (16, 32, 48, 64), (1, 16384): (24, 32, 48, 64)}
ALL_ENV = (BULK, NEAR, LOCK, PDL, FUSED, compiled.SPLITKV_K_FIRST_ENV, compiled.SPLITKV_SPLITS_ENV,
           "ROCFLASH_POISON_OUTPUTS")


def under(fn, **values):
    """fn called with the environment switches ``values`` set (None: unset), restored after."""
    def call():
        old = {k: os.environ.get(k) for k in values}
        for k, v in values.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        try:
            return fn()
        finally:
            for k, v in old.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
    return call


def references(q, k, v, rows):
    """{sequence: (fp64 reference (H, D), max|bf16 eager - ref|)} of the decode attention for the listed sequences."""
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
    ok, worst = True, 0.0
    for b, (ref, low_err) in refs.items():
        err = (out[b, 0].double() - ref).abs().max().item()
        worst = max(worst, err)
        ok = ok and err <= 2 * low_err + 1e-3
    return ok, worst


def case(batch: int, seqlen_k: int, g, kinds, rounds: int) -> dict:
    _, total = db.decode_bytes(batch, seqlen_k)
    sets = db.input_sets(batch, seqlen_k, g)
    gp = torch.Generator(device="cpu").manual_seed(16)
    lens = torch.full((batch,), seqlen_k, dtype=torch.int32, device=DEV)
    paged = [(qs,) + db.paged_copy(ks, vs, 16, gp) for qs, ks, vs in sets] if "paged16" in kinds else []

    def calls(kind: str, n: int = 0):
        if kind == "paged16":
            return [lambda p=p: rocflash.flash_attn_with_kvcache(p[0], p[1], p[2], cache_seqlens=lens,
                                                                 block_table=p[3], num_splits=n) for p in paged]
        return [lambda s=s: rocflash.flash_attn_func(s[0], s[1], s[2]) for s in sets]  # (no num_splits argument)
    q0 = sets[0][0]
    _, splits, inst = compiled.split_plan("cuda", q0, HK, batch, 1, seqlen_k, 0, True)
    row = {"batch": batch, "seqlen_k": seqlen_k, "bytes": total, "input_sets": len(sets), "splits": splits,
           "instance": inst["name"], "gbps": {}, "rounds": {}, "check": {}, "fail": []}
    q, k, v = sets[-1]
    refs = references(q, k, v, sorted({0, batch - 1}))
    methods: dict[str, list] = {}
    for kind in kinds:
        def run(n=0, **env):
            return under(lambda: calls(kind, n)[-1](), **env)()
        outs = {name: run(**env) for name, env in VARIANTS.items()}
        for name, out in outs.items():
            same_as = SAME_BITS_AS[name]
            if same_as:
                row["check"][f"{kind}_{name}_bitwise_{same_as}"] = bool(torch.equal(out, outs[same_as]))
            if name in ("base", "bulk", "inflight1", "lockstep", "fused"):
                ok, err = within_rule(out, refs)
                row["check"][f"{kind}_{name}_fp64_rule"], row["check"][f"{kind}_{name}_max_err"] = ok, err
        row["check"][f"{kind}_bulk_repeat_bitwise"] = bool(torch.equal(run(**VARIANTS["bulk"]), run(**VARIANTS["bulk"])))
        poisoned = run(**{"ROCFLASH_POISON_OUTPUTS": "1", BULK: "1"})
        row["check"][f"{kind}_bulk_poisoned_bitwise"] = bool(torch.equal(poisoned, run(**VARIANTS["bulk"])))
        for n in SWEEP.get((batch, seqlen_k), ()) if kind == "paged16" else ():  # (flash_attn_func: no num_splits)
            row["check"][f"{kind}_inflight1_splits{n}_bitwise_base"] = bool(torch.equal(run(n, **{NEAR: "1"}), run(n)))
            methods[f"{kind}/inflight1/n{n}-graph"] = [db.graphed(under(c, **{NEAR: "1"})) for c in calls(kind, n)]
            methods[f"{kind}/base/n{n}-graph"] = [db.graphed(c) for c in calls(kind, n)]
        for name, env in VARIANTS.items():
            eager = [under(c, **env) for c in calls(kind)]
            graphs = [db.graph_of(c) for c in eager]
            methods[f"{kind}/{name}"], methods[f"{kind}/{name}-graph"] = eager, [r for r, _ in graphs]
            graphs[-1][0]()
            torch.cuda.synchronize()
            row["check"][f"{kind}_{name}_graph_bitwise_eager"] = bool(torch.equal(graphs[-1][1], eager[-1]()))
    for name, cs in db.sdpa_methods(sets).items():
        if name != "sdpa-cudnn":
            continue
        try:
            cs[0]()
            methods["cudnn"], methods["cudnn-graph"] = cs, [db.graphed(c) for c in cs]
        except Exception as e:  # noqa: BLE001 - recorded, not fatal
            row["unavailable"] = str(e).splitlines()[0][:160]
    once = [m for m in methods if "/n" in m or m.startswith("cudnn")]
    for name in once:
        row["gbps"][name] = total / db.timed(methods[name]) / 1e6
    names = list(VARIANTS)
    for r in range(rounds):  # alternating order per round
        for kind in kinds:
            for name in (names if r % 2 == 0 else names[::-1]):
                for m in (f"{kind}/{name}", f"{kind}/{name}-graph"):
                    row["rounds"].setdefault(m, []).append(total / db.timed(methods[m]) / 1e6)
    for m, xs in row["rounds"].items():
        row["gbps"][m] = sum(xs) / len(xs)
    row["fail"] = [k for k, v in row["check"].items() if v is False]
    del sets, paged, methods
    torch.cuda.empty_cache()
    return row


def mark(r: float) -> str:
    return "level" if abs(r - 1) < NOISE else ("better" if r > 1 else "worse")


def verdict(row, kinds) -> str:
    gb = row["gbps"]
    parts = []
    for kind in kinds:
        bg, be = gb[f"{kind}/base-graph"], gb[f"{kind}/base"]
        rs = []
        for name in VARIANTS:
            if name == "base":
                continue
            rg, re_ = gb[f"{kind}/{name}-graph"] / bg, gb[f"{kind}/{name}"] / be
            rs.append(f"{name} {rg:.3f} {mark(rg)} ({re_:.3f})")
        best = max(VARIANTS, key=lambda n: gb[f"{kind}/{n}-graph"])
        vs = ""
        if "cudnn-graph" in gb:
            vs = (f"; best {best} {gb[f'{kind}/{best}-graph']:.0f} GB/s = {gb[f'{kind}/{best}-graph'] / gb['cudnn-graph']:.3f}"
                  f"x cuDNN graph, eager {gb[f'{kind}/{best}'] / gb['cudnn']:.3f}x")
        parts.append(f"{kind}: base {bg:.0f} ({be:.0f}); " + ", ".join(rs) + vs)
    return (f"{row['batch']}x{row['seqlen_k'] // 1024}k ({row['splits']} splits): " + " / ".join(parts) +
            f"; {'pass' if not row['fail'] else 'FAIL ' + ','.join(row['fail'])}")


def ncu_program(spec: str) -> None:
    """One decode step of the preset at BxS through flash_attn_func with the default kernel, then with one tile in
    flight per warp (ROCFLASH_SPLITKV_INFLIGHT=1), then in block lockstep (ROCFLASH_SPLITKV_LOCKSTEP=1), then SDPA
    cuDNN, each twice (the first calls plan): the kernels perf/dec8_stage.sh's ncu step compares (the first H200 run
    compared the bulk kernel instead)."""
    b, s = (int(x) for x in spec.split("x"))
    g = torch.Generator(device="cuda").manual_seed(0)
    q = torch.randn(b, 1, H, D, device="cuda", dtype=DT, generator=g)
    k, v = (torch.randn(b, s, HK, D, device="cuda", dtype=DT, generator=g) for _ in range(2))
    for env in ({}, {NEAR: "1"}, {LOCK: "1"}):
        for _ in range(2):
            under(lambda: rocflash.flash_attn_func(q, k, v), **env)()
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel
    qt, kt, vt = (t.transpose(1, 2) for t in (q, k, v))
    with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
        for _ in range(2):
            F.scaled_dot_product_attention(qt, kt, vt, enable_gqa=True)
    torch.cuda.synchronize()
    print("ncu program done")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", default="1x4096,1x16384,8x16384,32x16384")
    ap.add_argument("--kinds", default="paged16,dense")
    ap.add_argument("--budget-s", type=float, default=0.03, help="timing budget per method and case (s)")
    ap.add_argument("--rounds", type=int, default=2, help="A/B rounds (alternating order)")
    ap.add_argument("--deadline-s", type=float, default=150.0, help="start no case after this many seconds")
    ap.add_argument("--json", default=None)
    ap.add_argument("--ncu-program", default=None, metavar="BxS")
    a = ap.parse_args()
    for name in ALL_ENV:
        os.environ.pop(name, None)
    if a.ncu_program:
        ncu_program(a.ncu_program)
        return
    db.BUDGET_S = a.budget_s
    t0 = time.time()
    kinds = a.kinds.split(",")
    g = torch.Generator(device=DEV).manual_seed(0)
    print(f"device {torch.cuda.get_device_name(0)}, torch {torch.__version__}, SMs "
          f"{torch.cuda.get_device_properties(0).multi_processor_count}, L2 {db.l2_bytes(DEV) >> 20} MiB, fold "
          f"{kvcache_fast.FOLD_STEP}, bulk available {under(lambda: compiled.splitkv_bulk(torch.device(DEV)), **{BULK: '1'})()}, budget "
          f"{a.budget_s} s, noise band {NOISE:.0%}", flush=True)
    rows, lines = [], []
    for c in a.cases.split(","):
        b, s = (int(x) for x in c.split("x"))
        if time.time() - t0 > a.deadline_s:
            lines.append(f"{b}x{s // 1024}k: SKIPPED (deadline)")
            continue
        try:
            r = case(b, s, g, kinds, a.rounds)
        except Exception:  # noqa: BLE001 - reported, the other cases still run
            traceback.print_exc()
            lines.append(f"{b}x{s // 1024}k: ERROR (traceback above)")
            torch.cuda.empty_cache()
            continue
        rows.append(r)
        gb = r["gbps"]
        print(f"b{b} k{s} splits {r['splits']} sets {r['input_sets']} ({time.time() - t0:.0f} s)", flush=True)
        for kind in kinds:
            print(f"  {kind} GB/s eager / graph (mean of rounds): " + ", ".join(
                f"{n}: {gb[f'{kind}/{n}']:.0f} / {gb[f'{kind}/{n}-graph']:.0f}" for n in VARIANTS))
        sweep = {m: x for m, x in gb.items() if "/n" in m}
        if sweep:
            print("  sweep graph GB/s: " + ", ".join(f"{m}: {x:.0f}" for m, x in sweep.items()))
        if "cudnn" in gb:
            print(f"  cuDNN eager / graph: {gb['cudnn']:.0f} / {gb['cudnn-graph']:.0f}")
        print("  rounds: " + ", ".join(f"{m} {'/'.join(f'{x:.0f}' for x in xs)}" for m, xs in r["rounds"].items()))
        print("  check: " + ", ".join(f"{k}={v:.3g}" if isinstance(v, float) else f"{k}={v}"
                                      for k, v in r["check"].items()), flush=True)
        lines.append(verdict(r, kinds))
        print("CASE-VERDICT " + lines[-1], flush=True)  # kept if a later case runs past the stage's limit
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"device": torch.cuda.get_device_name(0), "torch": torch.__version__, "results": rows}, f, indent=1)
    print(f"total {time.time() - t0:.0f} s")
    print("VERDICT " + " | ".join(lines), flush=True)


if __name__ == "__main__":
    main()
