"""Decode kernel benchmark (issue 9 item 6, kernel side): the split-KV kernel timed from CUDA graphs (no host
work) beside SDPA flash and cuDNN, also from graphs and through their Python calls, all in one process.

    python3 perf/decode_kernel_bench.py [--json OUT.json] [--budget-s S] [--quick] [--no-sweep]
        [--variants fused,pdl | none]

Decode preset of perf/decode_bench.py (seqlen_q 1, nheads 32, nheads_k 8, headdim 128, bf16; batch 1/8/32 x
seqlen_k 4k/16k/128k). Methods per case (effective GB/s = bytes of Q, K, V, O / median time):
  rocflash          rocflash.flash_attn_func(q, k, v) on the dense cache (public API, host path included)
  rocflash-graph    compiled.varlen_forward on the same dense cache, replayed from a CUDA graph: the split kernel
                    (+ combine kernel) alone, with this build's defaults (ROCFLASH_SPLITKV_* unset)
  rocflash-fused-graph   the same with ROCFLASH_SPLITKV_FUSED_COMBINE=1 (the last block of a slot combines;
                    the graph also holds the counters' memset)
  paged16 / paged256          compiled.varlen_forward on shuffled paged copies (host path of the compiled call)
  paged16-graph               the paged-16 call replayed from a CUDA graph
  (--variants pdl) rocflash-pdl1-graph / paged16-pdl1-graph   rocflash-graph / paged16-graph with
                    ROCFLASH_SPLITKV_PDL=1 (programmatic dependent launches on sm_90+; the default since dec9, so
                    these columns equal the plain ones unless the run sets ROCFLASH_SPLITKV_PDL=0)
  (--variants pdl) kvcache16 / kvcache16-graph / kvcache16-pdl1-graph   flash_attn_with_kvcache on the paged-16
                    copy (cache_seqlens tensor, no append: step kernel + split kernel + combine), Python call and
                    graph replays with PDL as the environment says (on by default since dec9) / on
  (run D5-1 ran the commit where PDL was the default: its columns were named -pdl0- for the plain launches)
  (--variants fold) kvcache16 / kvcache16-graph as above with the step folded into the tensor-core split kernel
                    (rocflash.kvcache_fast.FOLD_STEP = True) beside kvcache16-nofold / kvcache16-nofold-graph
                    (FOLD_STEP = False: the step kernel first); append1 / append1-graph / append1-nofold(-graph):
                    flash_attn_with_kvcache on a dense copy of the cache with one new token per sequence appended
                    at seqlen_k - 1 (the same slot every call)
  sdpa-flash / sdpa-cudnn     F.scaled_dot_product_attention restricted to that backend (enable_gqa), Python call
  sdpa-flash-graph / sdpa-cudnn-graph   the same calls replayed from CUDA graphs
Inputs rotate over sets larger than 2x the L2 (every method, graphs too: one graph per input set).
Sweep: num_splits around the heuristic's pick, rocflash-graph style (kernel alone).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import time
import traceback

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import decode_bench as db  # noqa: E402  (input sets, dense_seq, paged_copy, graphed, timed)

import rocflash  # noqa: E402
from rocflash import kvcache_fast  # noqa: E402
from rocflash.backends import FwdArgs, compiled  # noqa: E402
from rocflash.perf.timing import l2_bytes  # noqa: E402

DEV, H, HK, D, DT = db.DEV, db.H, db.HK, db.D, db.DT


@contextlib.contextmanager
def env(**values):
    """Environment variables set for the block (None: unset), restored after."""
    old = {k: os.environ.get(k) for k in values}
    for k, v in values.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = str(v)
    try:
        yield
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def graphed_under(fn, **values):
    with env(**values):
        return db.graphed(fn)


FOLD_DEFAULT = kvcache_fast.FOLD_STEP


def with_fold(fn, on: bool | None):
    """fn called with rocflash.kvcache_fast.FOLD_STEP = on (None: the build's default), restored after."""
    def call():
        kvcache_fast.FOLD_STEP = FOLD_DEFAULT if on is None else on
        try:
            return fn()
        finally:
            kvcache_fast.FOLD_STEP = FOLD_DEFAULT
    return call


def graphed_fold(fn, on: bool | None):
    """A CUDA graph of fn captured with FOLD_STEP = on (the launch is fixed at capture)."""
    return db.graphed(with_fold(fn, on))


ARGS = FwdArgs(D ** -0.5, -1, -1, 0.0, None)


def reference_fp64(q, k, v):
    """softmax(q k^T / sqrt(D)) v in float64 for one sequence: q (H, D), k/v (seqlen_k, HK, D) -> (H, D)."""
    qg = q.double().view(HK, H // HK, D)
    kt, vt = k.double().transpose(0, 1), v.double().transpose(0, 1)  # (HK, seqlen_k, D)
    p = torch.softmax(torch.einsum("hgd,hsd->hgs", qg, kt) * D ** -0.5, dim=-1)
    return torch.einsum("hgs,hsd->hgd", p, vt).reshape(H, D)
FUSED, PDL = compiled.SPLITKV_FUSED_COMBINE_ENV, compiled.SPLITKV_PDL_ENV
VARIANTS = ("fused", "pdl", "fold")  # (dec9 removed the L2-prefetch switch and its "prefetch" columns)


def fold_append_methods(sets, batch, seqlen_k, ref, row, methods) -> None:
    """append1 columns (--variants fold): a dense cache copy per input set whose last key is appended every call."""
    lens = torch.full((batch,), seqlen_k - 1, dtype=torch.int32, device=DEV)
    steps = []
    for qs, ks, vs in sets:
        kc, vc = ks.clone(), vs.clone()
        kn, vn = ks[:, -1:].clone(), vs[:, -1:].clone()
        kc[:, -1].normal_()  # garbage in the slot the call appends to
        steps.append(lambda p=(qs, kc, vc, kn, vn): rocflash.flash_attn_with_kvcache(
            p[0], p[1], p[2], p[3], p[4], cache_seqlens=lens))
    with_fold(steps[-1], True)()  # the signature's first call: the full path's checks
    got, got0 = with_fold(steps[-1], True)(), with_fold(steps[-1], False)()  # the fast path, folded or not
    row["check"]["append1_max_abs_diff_vs_dense"] = (got.float() - ref.float()).abs().max().item()
    row["check"]["append1_nofold_bitwise_equal"] = bool(torch.equal(got, got0))
    methods["append1"] = [with_fold(c, True) for c in steps]
    methods["append1-graph"] = [graphed_fold(c, True) for c in steps]
    methods["append1-nofold"] = [with_fold(c, False) for c in steps]
    methods["append1-nofold-graph"] = [graphed_fold(c, False) for c in steps]


def case(batch, seqlen_k, g, variants, results: list) -> dict:
    _, total = db.decode_bytes(batch, seqlen_k)
    sets = db.input_sets(batch, seqlen_k, g)
    n_sets = len(sets)
    q0 = sets[0][0]
    _, splits, inst = compiled.split_plan("cuda", q0.view(batch, H, D), HK, batch, 1, seqlen_k, 0, True)
    row = {"batch": batch, "seqlen_k": seqlen_k, "bytes": total, "num_splits": splits, "instance": inst["name"],
           "input_sets": n_sets, "gbps": {}, "ms": {}, "check": {}}
    seq = db.dense_seq(batch, seqlen_k)
    dense = [lambda s=s: compiled.varlen_forward("cuda", s[0].view(batch, H, D), s[1], s[2], seq, ARGS) for s in sets]
    methods = {"rocflash": [lambda s=s: rocflash.flash_attn_func(*s) for s in sets],
               "rocflash-graph": [graphed_under(c, **{FUSED: None}) for c in dense]}
    if "fused" in variants:
        methods["rocflash-fused-graph"] = [graphed_under(c, **{FUSED: 1}) for c in dense]
    if "pdl" in variants:
        methods["rocflash-pdl1-graph"] = [graphed_under(c, **{PDL: 1}) for c in dense]
    # correctness on the last set: API call vs compiled call vs fused vs vector kernel (bitwise where expected)
    q, k, v = sets[-1]
    ref = rocflash.flash_attn_func(q, k, v)
    with env(**{FUSED: 1}):
        fused = compiled.varlen_forward("cuda", q.view(batch, H, D), k, v, seq, ARGS)[0].view_as(ref)
        fused2 = compiled.varlen_forward("cuda", q.view(batch, H, D), k, v, seq, ARGS)[0].view_as(ref)
    with env(ROCFLASH_KERNEL="vector"):
        vec = rocflash.flash_attn_func(q, k, v)
    gold = reference_fp64(q[0, 0], k[0], v[0])  # sequence 0: (H, D)
    row["check"] = {"max_abs_err_vs_fp64": (ref[0, 0].double() - gold).abs().max().item(),
                    "fused_max_abs_err_vs_fp64": (fused[0, 0].double() - gold).abs().max().item(),
                    "max_abs_diff_fused_vs_combine_kernel": (fused.float() - ref.float()).abs().max().item(),
                    "fused_bitwise_repeatable": bool(torch.equal(fused, fused2)),
                    "max_abs_diff_vs_vector": (vec.float() - ref.float()).abs().max().item()}
    for page in (16, 256):
        gq = torch.Generator(device="cpu").manual_seed(page)
        calls = []
        for qs, ks, vs in sets:
            kc, vc, table = db.paged_copy(ks, vs, page, gq)
            sq = db.dense_seq(batch, seqlen_k, block_table=table)
            calls.append(lambda p=(qs.view(batch, H, D), kc, vc, sq): compiled.varlen_forward("cuda", *p, ARGS))
        methods[f"paged{page}"] = calls
        got = calls[-1]()[0].view_as(ref)
        row["check"][f"paged{page}_max_abs_diff_vs_dense"] = (got.float() - ref.float()).abs().max().item()
        if page == 16:
            methods["paged16-graph"] = [db.graphed(c) for c in calls]
            if "pdl" in variants:
                methods["paged16-pdl1-graph"] = [graphed_under(c, **{PDL: 1}) for c in calls]
            if "pdl" in variants or "fold" in variants:
                lens = torch.full((batch,), seqlen_k, dtype=torch.int32, device=DEV)
                steps = []
                for (qs, ks, vs) in sets:  # the public KV-cache call on a paged copy of the same keys
                    kc, vc, table = db.paged_copy(ks, vs, page, gq)
                    steps.append(lambda p=(qs, kc, vc, table): rocflash.flash_attn_with_kvcache(
                        p[0], p[1], p[2], cache_seqlens=lens, block_table=p[3]))
                got = steps[-1]()
                row["check"]["kvcache16_max_abs_diff_vs_dense"] = (got.float() - ref.float()).abs().max().item()
                if "pdl" in variants:
                    with env(**{PDL: 1}):
                        got1 = steps[-1]()
                    row["check"]["kvcache16_pdl1_bitwise_equal"] = bool(torch.equal(got, got1))
                fold = True if "fold" in variants else None
                methods["kvcache16"] = [with_fold(c, fold) for c in steps]
                methods["kvcache16-graph"] = [graphed_under(with_fold(c, fold), **{PDL: None}) for c in steps]
                if "pdl" in variants:
                    methods["kvcache16-pdl1-graph"] = [graphed_under(with_fold(c, fold), **{PDL: 1}) for c in steps]
                if "fold" in variants:
                    got1, got0 = with_fold(steps[-1], True)(), with_fold(steps[-1], False)()
                    row["check"]["kvcache16_fold_bitwise_equal_nofold"] = bool(torch.equal(got1, got0))
                    row["check"]["kvcache16_fold_max_abs_diff_vs_dense"] = \
                        (got1.float() - ref.float()).abs().max().item()
                    methods["kvcache16-nofold"] = [with_fold(c, False) for c in steps]
                    methods["kvcache16-nofold-graph"] = [graphed_fold(c, False) for c in steps]
                    fold_append_methods(sets, batch, seqlen_k, ref, row, methods)
    for name, calls in db.sdpa_methods(sets).items():
        try:
            calls[0]()
            methods[name] = calls
        except Exception as e:  # noqa: BLE001 - recorded, not fatal
            row.setdefault("unavailable", {})[name] = str(e).splitlines()[0][:160]
            continue
        try:
            methods[name + "-graph"] = [db.graphed(c) for c in calls]
        except Exception as e:  # noqa: BLE001 - recorded, not fatal
            row.setdefault("unavailable", {})[name + "-graph"] = str(e).splitlines()[0][:160]
    for name, calls in methods.items():
        ms = db.timed(calls)
        row["ms"][name] = ms
        row["gbps"][name] = total / ms / 1e6
    results.append(row)
    del sets, methods, calls, dense
    torch.cuda.empty_cache()
    return row


def sweep(batch, seqlen_k, counts, g, results):
    _, total = db.decode_bytes(batch, seqlen_k)
    sets = db.input_sets(batch, seqlen_k, g, q_rows=False)
    row = {"splits_sweep": True, "batch": batch, "seqlen_k": seqlen_k, "gbps_by_splits": {},
           "fused_gbps_by_splits": {}}
    for n in counts:
        seq = db.dense_seq(batch, seqlen_k, n)
        calls = [lambda s=s, seq=seq: compiled.varlen_forward("cuda", s[0], s[1], s[2], seq, ARGS) for s in sets]
        row["gbps_by_splits"][n] = total / db.timed([graphed_under(c, **{FUSED: None}) for c in calls]) / 1e6
        row["fused_gbps_by_splits"][n] = total / db.timed([graphed_under(c, **{FUSED: 1}) for c in calls]) / 1e6
    results.append(row)
    del sets
    torch.cuda.empty_cache()
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", default=None)
    ap.add_argument("--budget-s", type=float, default=0.2, help="timing budget per method and case (s)")
    ap.add_argument("--quick", action="store_true", help="batch 1/8 x 4k/16k only")
    ap.add_argument("--cases", default=None, help="BxS,... (e.g. 1x16384,8x131072): these points only")
    ap.add_argument("--no-sweep", action="store_true")
    ap.add_argument("--variants", default="fused",
                    help=f"switch columns, comma-separated among {', '.join(VARIANTS)}, or none (default fused)")
    ap.add_argument("--no-variants", action="store_true", help="same as --variants none")
    a = ap.parse_args()
    variants = () if a.no_variants or a.variants == "none" else tuple(x for x in a.variants.split(",") if x)
    for x in variants:
        if x not in VARIANTS:
            ap.error(f"--variants must be among {', '.join(VARIANTS)} or none, got {x!r}")
    db.BUDGET_S = a.budget_s
    g = torch.Generator(device=DEV).manual_seed(0)
    results: list[dict] = []
    t0 = time.time()
    print(f"device {torch.cuda.get_device_name(0)}, torch {torch.__version__}, L2 {l2_bytes(DEV) >> 20} MiB, "
          f"defaults: fused combine {compiled.splitkv_fused_combine()}, "
          f"PDL {compiled.splitkv_pdl(torch.device(DEV))}")
    grid = [(b, s) for b in (1, 8, 32) for s in (4096, 16384, 131072)]
    if a.quick:
        grid = [(b, s) for b, s in grid if b <= 8 and s <= 16384]
    if a.cases:
        grid = [tuple(int(x) for x in c.split("x")) for c in a.cases.split(",")]
    for b, s in grid:
        try:
            r = case(b, s, g, variants, results)
        except Exception:  # noqa: BLE001 - reported, the other cases still run
            traceback.print_exc()
            torch.cuda.empty_cache()
            continue
        cu_ = r["gbps"].get("sdpa-cudnn", float("nan"))
        cug = r["gbps"].get("sdpa-cudnn-graph", float("nan"))
        print(f"b{b} k{s} splits {r['num_splits']} sets {r['input_sets']}: "
              + ", ".join(f"{m} {x:.0f}" for m, x in r["gbps"].items())
              + f" | graph/cudnn-graph {r['gbps']['rocflash-graph'] / cug:.3f}, api/cudnn {r['gbps']['rocflash'] / cu_:.3f}"
              + f", paged16/cudnn {r['gbps']['paged16'] / cu_:.3f}"
              + (f" | pdl on/off graph {r['gbps']['rocflash-pdl1-graph'] / r['gbps']['rocflash-graph']:.3f}, "
                 f"kvcache16 {r['gbps']['kvcache16-pdl1-graph'] / r['gbps']['kvcache16-graph']:.3f}"
                 if "kvcache16-pdl1-graph" in r["gbps"] else "")
              + (f" | fold/nofold kvcache16 {r['gbps']['kvcache16'] / r['gbps']['kvcache16-nofold']:.3f}, graph "
                 f"{r['gbps']['kvcache16-graph'] / r['gbps']['kvcache16-nofold-graph']:.3f}; append1 "
                 f"{r['gbps']['append1'] / r['gbps']['append1-nofold']:.3f}, graph "
                 f"{r['gbps']['append1-graph'] / r['gbps']['append1-nofold-graph']:.3f}"
                 if "kvcache16-nofold-graph" in r["gbps"] else ""), flush=True)
        print("   check: " + ", ".join(f"{k} {v:.3g}" if isinstance(v, float) else f"{k} {v}"
                                       for k, v in r["check"].items()), flush=True)
        if r.get("unavailable"):
            print("   unavailable:", r["unavailable"])
    if not a.no_sweep:
        print("num_splits sweep, kernel alone (CUDA graphs), GB/s: separate combine kernel / fused combine")
        for b, s, counts in ((1, 4096, (8, 12, 16)), (1, 16384, (16, 24, 30, 32, 40, 48, 64)),
                             (1, 131072, (16, 30, 32, 48, 64)), (8, 16384, (3, 4, 6, 8))):
            try:
                r = sweep(b, s, counts, g, results)
            except Exception:  # noqa: BLE001
                traceback.print_exc()
                continue
            print(f"  b{b} k{s}: " + ", ".join(f"{n}: {x:.0f}/{r['fused_gbps_by_splits'][n]:.0f}"
                                               for n, x in r["gbps_by_splits"].items()), flush=True)
    print(f"total {time.time() - t0:.0f} s")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"device": torch.cuda.get_device_name(0), "torch": torch.__version__, "results": results}, f,
                      indent=1)


if __name__ == "__main__":
    main()
