"""dec7's GPU stage (issue 9, decode speed): the split count and the K-first copy order of the tensor-core split-KV
kernel, measured in ONE process on the public KV-cache call with the step folded (rocflash.kvcache_fast.FOLD_STEP).

    python3 perf/dec7_stage.py [--cases 1x4096,1x16384,8x16384,32x16384] [--budget-s 0.03] [--deadline-s 85]
        [--json OUT.json]

Shape: issue 9's decode preset (seqlen_q 1, nheads 32, nheads_k 8, headdim 128, bf16), flash_attn_with_kvcache on a
paged-16 copy of the cache (shuffled block table, cache_seqlens tensor = seqlen_k, no append: run integ20's
"kvcache16"), inputs rotated over > 2x the L2 (perf/decode_bench.py input_sets). Per case:
  sweep      num_splits = n for the listed counts: eager (the Python call) and graph (CUDA-graph replays)
  rule       num_splits = 0 with ROCFLASH_SPLITKV_SPLITS=wave (default) vs fill: eager and graph, two rounds in
             alternating order (wave, fill, fill, wave)
  kfirst     num_splits = 0 (wave) with ROCFLASH_SPLITKV_K_FIRST=0 (default) vs 1: eager and graph, two rounds
  cudnn      F.scaled_dot_product_attention (cuDNN backend, enable_gqa) on the dense tensors: eager and graph
Effective GB/s = bytes of Q, K, V, O / median time (as perf/decode_kernel_bench.py).
Checks (last input set; a failed check marks the case FAIL in the verdict): every swept count and both rules within
FlashAttention's rule against fp64 on sequences 0 and batch - 1 (max|out - ref| <= 2 max|bf16 eager - ref| + 1e-3,
the bf16 eager = the same attention in torch bf16 ops); K-first = default bit for bit (whole output), for the
heuristic's count and for 2 counts more; fill = wave bit for bit where both pick the same count; each variant's
graph replay = its eager call bit for bit; fill + K-first with the output poisoned with NaN first
(ROCFLASH_POISON_OUTPUTS=1) = fill bit for bit.
Last line: "VERDICT" with, per case, rule fill/wave and K-first on/off graph (eager) ratios, each marked better /
worse / level (|ratio - 1| < NOISE), the best swept count, and pass / FAIL of the checks.
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
SPLITS, KFIRST = compiled.SPLITKV_SPLITS_ENV, compiled.SPLITKV_K_FIRST_ENV
NOISE = 0.03  # same-process repeat spread of these columns in runs K1 / D5-1 / integ20: up to ~3 % (graphs)
SWEEP = {(1, 4096): (8, 16, 24, 32, 48, 64), (1, 16384): (16, 24, 32, 40, 48, 64),
         (8, 16384): (2, 3, 4, 6, 8, 12), (32, 16384): (1, 2, 3, 4, 6)}


def set_env(name: str, value: str | None) -> None:
    if value is None:
        os.environ.pop(name, None)
    else:
        os.environ[name] = value


def under(fn, **values):
    """fn called with the environment switches ``values`` set (None: unset), restored after."""
    def call():
        old = {k: os.environ.get(k) for k in values}
        for k, v in values.items():
            set_env(k, v)
        try:
            return fn()
        finally:
            for k, v in old.items():
                set_env(k, v)
    return call


def references(q, k, v, rows):
    """{sequence: (fp64 reference (H, D), bf16 eager (H, D))} of the decode attention for the listed sequences."""
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
    """(every listed sequence within 2 max|bf16 - ref| + 1e-3, the worst max|out - ref|)."""
    ok, worst = True, 0.0
    for b, (ref, low_err) in refs.items():
        err = (out[b, 0].double() - ref).abs().max().item()
        worst = max(worst, err)
        ok = ok and err <= 2 * low_err + 1e-3
    return ok, worst


def case(batch: int, seqlen_k: int, g, counts, rounds: int) -> dict:
    _, total = db.decode_bytes(batch, seqlen_k)
    sets = db.input_sets(batch, seqlen_k, g)
    gp = torch.Generator(device="cpu").manual_seed(16)
    lens = torch.full((batch,), seqlen_k, dtype=torch.int32, device=DEV)
    paged = [(qs,) + db.paged_copy(ks, vs, 16, gp) for qs, ks, vs in sets]

    def calls(n: int = 0):
        return [lambda p=p: rocflash.flash_attn_with_kvcache(p[0], p[1], p[2], cache_seqlens=lens, block_table=p[3],
                                                             num_splits=n) for p in paged]
    q0 = sets[0][0]
    picks = {}
    for rule in ("wave", "fill"):
        set_env(SPLITS, rule)
        picks[rule] = compiled.split_plan("cuda", q0, HK, batch, 1, seqlen_k, 0, True)[1]
    set_env(SPLITS, None)
    row = {"batch": batch, "seqlen_k": seqlen_k, "bytes": total, "input_sets": len(sets), "picks": picks,
           "instance": compiled.split_plan("cuda", q0, HK, batch, 1, seqlen_k, 0, True)[2]["name"],
           "gbps": {}, "check": {}, "fail": []}
    # ---- checks on the last set (fresh calls: first call of each signature takes the full path, then the fast one)
    q, k, v = sets[-1]
    refs = references(q, k, v, sorted({0, batch - 1}))

    def run(n=0, **env):
        return under(lambda: calls(n)[-1](), **env)()
    base = run()
    for n in counts:
        ok, err = within_rule(run(n), refs)
        row["check"][f"splits{n}_fp64_rule"] = ok
        row["check"][f"splits{n}_max_err"] = err
    for rule in ("wave", "fill"):
        out = run(**{SPLITS: rule})
        ok, err = within_rule(out, refs)
        row["check"][f"{rule}_fp64_rule"], row["check"][f"{rule}_max_err"] = ok, err
        row["check"][f"{rule}_finite"] = bool(torch.isfinite(out).all())
    if picks["wave"] == picks["fill"]:
        row["check"]["fill_bitwise_wave"] = bool(torch.equal(run(**{SPLITS: "fill"}), run(**{SPLITS: "wave"})))
    for n in (0, counts[0], counts[-1]):
        row["check"][f"kfirst_bitwise_default_splits{n}"] = bool(torch.equal(run(n, **{KFIRST: "1"}), run(n)))
    row["check"]["repeat_bitwise"] = bool(torch.equal(base, run()))
    poisoned = run(**{"ROCFLASH_POISON_OUTPUTS": "1", SPLITS: "fill", KFIRST: "1"})  # O filled with NaN first
    row["check"]["poisoned_fill_kfirst_bitwise_fill"] = bool(torch.equal(poisoned, run(**{SPLITS: "fill"})))
    # ---- methods
    methods: dict[str, list] = {}
    for n in counts:
        methods[f"n{n}"] = calls(n)
        methods[f"n{n}-graph"] = [db.graphed(c) for c in calls(n)]
    variants = {"wave": {SPLITS: "wave"}, "fill": {SPLITS: "fill"}, "kf0": {KFIRST: "0"}, "kf1": {KFIRST: "1"}}
    for name, env in variants.items():
        eager = [under(c, **env) for c in calls()]
        graphs = [db.graph_of(c) for c in eager]
        methods[name], methods[name + "-graph"] = eager, [r for r, _ in graphs]
        graphs[-1][0]()
        torch.cuda.synchronize()
        row["check"][f"{name}_graph_bitwise_eager"] = bool(torch.equal(graphs[-1][1], eager[-1]()))
    for name, cs in db.sdpa_methods(sets).items():
        if name != "sdpa-cudnn":
            continue
        try:
            cs[0]()
            methods["cudnn"], methods["cudnn-graph"] = cs, [db.graphed(c) for c in cs]
        except Exception as e:  # noqa: BLE001 - recorded, not fatal
            row["unavailable"] = str(e).splitlines()[0][:160]
    order = [m for m in methods if not m.startswith(("wave", "fill", "kf"))]
    ab = []
    for r in range(rounds):  # alternating order per round: wave fill / fill wave, kf0 kf1 / kf1 kf0
        pair = [("wave", "fill"), ("kf0", "kf1")]
        for a, b in pair:
            x, y = (a, b) if r % 2 == 0 else (b, a)
            ab += [x, x + "-graph", y, y + "-graph"]
    for name in order:
        row["gbps"][name] = total / db.timed(methods[name]) / 1e6
    for name in ab:
        row["gbps"].setdefault(name, [])
        row["gbps"][name].append(total / db.timed(methods[name]) / 1e6)
    for name in variants:
        for suffix in ("", "-graph"):
            xs = row["gbps"][name + suffix]
            row["gbps"][name + suffix] = sum(xs) / len(xs)
            row.setdefault("rounds", {})[name + suffix] = xs
    row["fail"] = [k for k, v in row["check"].items() if v is False]
    del sets, paged, methods
    torch.cuda.empty_cache()
    return row


def mark(r: float) -> str:
    return "level" if abs(r - 1) < NOISE else ("better" if r > 1 else "worse")


def verdict(row) -> str:
    gb = row["gbps"]
    fill_g, fill_e = gb["fill-graph"] / gb["wave-graph"], gb["fill"] / gb["wave"]
    kf_g, kf_e = gb["kf1-graph"] / gb["kf0-graph"], gb["kf1"] / gb["kf0"]
    sweep = {k: v for k, v in gb.items() if k.startswith("n") and k.endswith("-graph")}
    best = max(sweep, key=sweep.get)
    picks = row["picks"]
    rule = (f"fill({picks['fill']})/wave({picks['wave']}) graph {fill_g:.3f} {mark(fill_g)}, eager {fill_e:.3f} {mark(fill_e)}"
            if picks["fill"] != picks["wave"] else f"fill=wave({picks['wave']}) same pick")
    return (f"{row['batch']}x{row['seqlen_k'] // 1024}k: {rule}; kfirst graph {kf_g:.3f} {mark(kf_g)}, eager "
            f"{kf_e:.3f} {mark(kf_e)}; best swept {best[1:-6]} ({sweep[best]:.0f} GB/s); "
            f"{'pass' if not row['fail'] else 'FAIL ' + ','.join(row['fail'])}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", default="1x4096,1x16384,8x16384,32x16384")
    ap.add_argument("--budget-s", type=float, default=0.03, help="timing budget per method and case (s)")
    ap.add_argument("--rounds", type=int, default=2, help="A/B rounds (alternating order)")
    ap.add_argument("--deadline-s", type=float, default=85.0, help="start no case after this many seconds")
    ap.add_argument("--json", default=None)
    a = ap.parse_args()
    db.BUDGET_S = a.budget_s
    t0 = time.time()
    kvcache_fast.FOLD_STEP = True  # the lead's default from integ20 on; explicit here
    for name in (SPLITS, KFIRST):
        os.environ.pop(name, None)
    g = torch.Generator(device=DEV).manual_seed(0)
    print(f"device {torch.cuda.get_device_name(0)}, torch {torch.__version__}, SMs "
          f"{torch.cuda.get_device_properties(0).multi_processor_count}, L2 {db.l2_bytes(DEV) >> 20} MiB, fold "
          f"{kvcache_fast.FOLD_STEP}, budget {a.budget_s} s, noise band {NOISE:.0%}", flush=True)
    rows, lines = [], []
    for c in a.cases.split(","):
        b, s = (int(x) for x in c.split("x"))
        if time.time() - t0 > a.deadline_s:
            lines.append(f"{b}x{s // 1024}k: SKIPPED (deadline)")
            continue
        try:
            r = case(b, s, g, SWEEP.get((b, s), (1, 2, 4)), a.rounds)
        except Exception:  # noqa: BLE001 - reported, the other cases still run
            traceback.print_exc()
            lines.append(f"{b}x{s // 1024}k: ERROR (traceback above)")
            torch.cuda.empty_cache()
            continue
        rows.append(r)
        gb = r["gbps"]
        print(f"b{b} k{s} picks wave {r['picks']['wave']} fill {r['picks']['fill']} sets {r['input_sets']} "
              f"({time.time() - t0:.0f} s)", flush=True)
        print("  sweep GB/s (eager / graph): " + ", ".join(
            f"{k[1:]}: {gb[k]:.0f} / {gb[k + '-graph']:.0f}" for k in gb if k.startswith("n") and "-" not in k))
        print("  A/B GB/s (eager / graph, mean of rounds): " + ", ".join(
            f"{k}: {gb[k]:.0f} / {gb[k + '-graph']:.0f}" for k in ("wave", "fill", "kf0", "kf1")))
        if "cudnn" in gb:
            print(f"  cuDNN eager / graph: {gb['cudnn']:.0f} / {gb['cudnn-graph']:.0f}; rocflash wave / cuDNN: "
                  f"eager {gb['wave'] / gb['cudnn']:.3f}, graph {gb['wave-graph'] / gb['cudnn-graph']:.3f}")
        print("  rounds: " + ", ".join(f"{k} {'/'.join(f'{x:.0f}' for x in v)}" for k, v in r["rounds"].items()))
        print("  check: " + ", ".join(f"{k} {v:.3g}" if isinstance(v, float) else f"{k} {v}"
                                      for k, v in r["check"].items()), flush=True)
        lines.append(verdict(r))
        print("CASE-VERDICT " + lines[-1], flush=True)  # kept if a later case runs past the stage's limit
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"device": torch.cuda.get_device_name(0), "torch": torch.__version__, "results": rows}, f, indent=1)
    print(f"total {time.time() - t0:.0f} s")
    print("VERDICT " + " | ".join(lines), flush=True)


if __name__ == "__main__":
    main()
