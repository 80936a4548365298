"""Sweep of our gfx906 kernels on the emulator (rocflash.emu) against the fp64 reference.

    python perf/emu_sweep.py                      # every forward bucket x dtype x load path, then backward
    python perf/emu_sweep.py --kinds fwd --dtypes fp16 --headdims 64,128
    python perf/emu_sweep.py --markdown perf/results/emu_sweep.md
    python perf/emu_sweep.py --kinds splitkv,paged,varlen,varlen_bwd   # the inference layouts only

Each case: the instance the dispatcher picks for (dtype, headdim, load path), small shapes with full and
boundary tiles (seqlen_q, seqlen_k not multiples of Br/Bc), GQA, causal with seqlen_q != seqlen_k and a sliding
window, tolerance as in the tests (forward 2x, backward 3x the eager low-precision error + 1e-3). This checks
functional semantics as the emulator reads the Vega ISA manual: not timing, not silicon.

Inference layouts (rocflash.emu.driver_varlen, params filled by the compiled backend's host code), checked per
sequence: ``varlen`` / ``varlen_bwd`` (uneven sequences, one without queries, one without keys, causal,
GQA 2:1) on every forward / backward instance, ``paged`` (forward kernel over a shuffled block table with NaN
in unused blocks, page sizes 16, 48, 256 in turn), ``splitkv`` (every split-KV instance, two decode cases
each: seqlen_q 1 or 4, GQA 8:2, paged or dense cache, 1 to 4 splits, the combine kernel when > 1, LSE
checked). The narrow path runs headdim - 4 (zero-padded to the bucket). Minutes per case
for the larger tiles: the emulator runs ~30 us per wave instruction.
"""

from __future__ import annotations

import argparse
import itertools
import math
import sys
import time

import torch

from rocflash.backends import FwdArgs
from rocflash.backends.reference import attention_reference
from rocflash.emu.driver import reference_grads, run_backward, run_forward

DT = {"fp16": torch.float16, "bf16": torch.bfloat16, "fp32": torch.float32}
# (name, batch, seqlen_q, seqlen_k, nheads, nheads_k, window_left, window_right)
SHAPES = [("gqa-causal", 1, 37, 70, 2, 1, -1, 0), ("window", 1, 29, 29, 1, 1, 7, 2),
          ("sq>sk", 2, 50, 19, 1, 1, -1, -1)]


def _err(out, ref, low, factor):
    err = (out.double() - ref.double()).abs().max().item()
    tol = factor * (low.double() - ref.double()).abs().max().item() + 1e-3
    return err, tol, bool(err <= tol and not out.isnan().any())


def run_case(kind, dtype, d, aligned, shape, seed=0):
    name, b, sq, sk, h, hk, wl, wr = shape
    g = torch.Generator().manual_seed(seed)
    mk = lambda *s: torch.randn(*s, generator=g).to(DT[dtype])  # noqa: E731
    q, k, v, do = mk(b, sq, h, d), mk(b, sk, hk, d), mk(b, sk, hk, d), mk(b, sq, h, d)
    args = FwdArgs(1 / math.sqrt(d), wl, wr, 0.0, None)
    t0 = time.time()
    if kind == "fwd":
        out, _, info = run_forward(q, k, v, softmax_scale=args.softmax_scale, window_left=wl, window_right=wr,
                                   aligned=aligned)
        ref, _ = attention_reference(q, k, v, args, compute_dtype=torch.float64)
        low, _ = attention_reference(q, k, v, args, compute_dtype=DT[dtype])
        err, tol, ok = _err(out, ref, low, 2)
        return dict(kernel=info["kernel"], shape=name, err=err, tol=tol, ok=ok, seconds=time.time() - t0,
                    instructions=info["stats"].instructions)
    out, lse = attention_reference(q, k, v, args, compute_dtype=torch.float32)
    dq, dk, dv, info = run_backward(q, k, v, out.to(q.dtype), lse, do, softmax_scale=args.softmax_scale,
                                   window_left=wl, window_right=wr, aligned=aligned)

    ref = reference_grads(q, k, v, do, args, torch.float64)
    low = reference_grads(q, k, v, do, args, DT[dtype])
    res = [_err(gr, r, lo, 3) for gr, r, lo in zip((dq, dk, dv), ref, low)]
    worst = max(res, key=lambda x: x[0] / x[1])
    return dict(kernel=" + ".join(info["kernels"]), shape=name, err=worst[0], tol=worst[1],
                ok=all(x[2] for x in res), seconds=time.time() - t0,
                instructions=sum(info[k].instructions for k in ("preprocess", "bwd_dkdv", "bwd_dq")))


def feature_cases():
    """Forward features on the fp16 d32 instance: (name, q, k, v, kwargs)."""
    g = torch.Generator().manual_seed(3)
    r = lambda *s: torch.randn(*s, generator=g).half()  # noqa: E731
    q, k, v = r(2, 150, 2, 32), r(2, 90, 2, 32), r(2, 90, 2, 32)
    qkv = r(1, 70, 3, 4, 32)
    return [
        ("batch 2, seqlen_q 150 > Br, causal", q, k, v, dict(window_right=0)),
        ("softcap 5", q[:1, :40], k[:1], v[:1], dict(softcap=5.0)),
        ("ALiBi (nheads,)", q[:1, :40], k[:1], v[:1], dict(alibi_slopes=torch.rand(2, generator=g) * 0.5)),
        ("ALiBi (batch, nheads), causal", q[:, :40], k, v, dict(window_right=0, alibi_slopes=torch.rand(2, 2, generator=g) * 0.5)),
        ("strided q/k/v from a packed qkv, window 5/5", qkv[:, :, 0], qkv[:, :, 1], qkv[:, :, 2], dict(window_left=5, window_right=5)),
        ("causal seqlen_q > seqlen_k (fully masked rows)", q[:1, :40], k[:1, :30], v[:1, :30], dict(window_right=0)),
        ("decode seqlen_q 1, GQA 4/1", r(3, 1, 4, 32), r(3, 200, 1, 32), r(3, 200, 1, 32), {}),
        ("headdim 20 (narrow path), causal", r(1, 33, 1, 20), r(1, 65, 1, 20), r(1, 65, 1, 20), dict(window_right=0)),
    ]


def run_feature(name, q, k, v, kw):
    d = q.shape[-1]
    args = FwdArgs(1 / math.sqrt(d), kw.get("window_left", -1), kw.get("window_right", -1), kw.get("softcap", 0.0),
                   kw.get("alibi_slopes"))
    t0 = time.time()
    out, lse, info = run_forward(q, k, v, softmax_scale=args.softmax_scale, **kw)
    ref, ref_lse = attention_reference(q, k, v, args, compute_dtype=torch.float64)
    low, _ = attention_reference(q, k, v, args, compute_dtype=q.dtype)
    err, tol, ok = _err(out, ref, low, 2)
    ok = ok and torch.equal(torch.isfinite(lse), torch.isfinite(ref_lse))
    return dict(kernel=info["kernel"], shape=name, err=err, tol=tol, ok=ok, seconds=time.time() - t0,
                instructions=info["stats"].instructions)


# ---------------------------------------------------------------- inference layouts (rocflash.emu.driver_varlen)
# Per-sequence lengths: uneven, a sequence without queries, one without keys, seqlen_q != seqlen_k; causal, GQA.
VARLEN = ([5, 0, 17, 3, 33], [9, 4, 40, 0, 20])
VARLEN_BWD = ([5, 0, 17, 3], [9, 4, 30, 0])
PAGED = ([3, 20], [40, 17])
DECODE_K = [37, 0, 150]
PAGES = (16, 48, 256)
SPLIT_HEADDIMS = (64, 128, 256)
SEQ_KINDS = ("splitkv", "paged", "varlen", "varlen_bwd")


def _packed(lens_q, lens_k, h, hk, d, dtype, seed):
    g = torch.Generator().manual_seed(seed)
    mk = lambda n, heads: torch.randn(n, heads, d, generator=g).to(DT[dtype])  # noqa: E731
    return mk(sum(lens_q), h), mk(sum(lens_k), hk), mk(sum(lens_k), hk), mk(sum(lens_q), h)


def _rows(x, lens):
    starts = [0, *itertools.accumulate(lens)]
    return [x[a:b] for a, b in zip(starts, starts[1:])]


def _cu(lens):
    return torch.tensor([0, *itertools.accumulate(lens)], dtype=torch.int32)


def _paged(k_seqs, v_seqs, page, seed):
    """Keys scattered into a shuffled pool of pages (2 spare blocks); unused slots and blocks NaN."""
    need = [-(-x.shape[0] // page) for x in k_seqs]
    n = sum(need) + 2
    perm = iter(torch.randperm(n, generator=torch.Generator().manual_seed(seed)).tolist())
    kp = torch.full((n, page) + tuple(k_seqs[0].shape[1:]), float("nan"), dtype=k_seqs[0].dtype)
    vp = kp.clone()
    table = torch.full((len(k_seqs), max(max(need), 1)), n + 7, dtype=torch.int32)
    for b, (kb, vb) in enumerate(zip(k_seqs, v_seqs)):
        for i in range(need[b]):
            blk = next(perm)
            table[b, i] = blk
            rows = slice(i * page, min((i + 1) * page, kb.shape[0]))
            kp[blk, :rows.stop - rows.start], vp[blk, :rows.stop - rows.start] = kb[rows], vb[rows]
    return kp, vp, table


def _check_sequences(out, lse, q_seqs, kv_seqs, args):
    """Worst (err, tol) over the sequences (FlashAttention's rule per sequence, LSE within 1e-3 with the same
    -inf pattern; a sequence without keys must give 0 and LSE -inf) and whether all pass."""
    pos, worst, ok = 0, (0.0, 1e-3), True
    for b, (qb, (kb, vb)) in enumerate(zip(q_seqs, kv_seqs)):
        rows = slice(pos, pos + qb.shape[0])
        pos += qb.shape[0]
        if qb.shape[0] == 0:
            continue
        o, ls = out[rows], lse[:, rows]
        if kb.shape[0] == 0:
            ok &= bool((o == 0).all() and torch.isneginf(ls).all())
            continue
        a = FwdArgs(args.softmax_scale, args.window_left, args.window_right, args.softcap, None)
        ref, ref_lse = attention_reference(qb[None], kb[None], vb[None], a, compute_dtype=torch.float64)
        low, _ = attention_reference(qb[None], kb[None], vb[None], a, compute_dtype=qb.dtype)
        err, tol, good = _err(o[None], ref, low, 2)
        fin = torch.isfinite(ref_lse[0])
        good &= torch.equal(torch.isfinite(ls), fin) and not ls.isnan().any()
        if fin.any():
            scale = max(1.0, ref_lse[0][fin].abs().max().item())
            good &= (ls[fin].double() - ref_lse[0][fin]).abs().max().item() <= 1e-3 * scale
        ok &= good
        worst = max(worst, (err, tol), key=lambda x: x[0] / x[1])
    return worst[0], worst[1], ok and pos == out.shape[0]


def run_seq_case(kind, dtype, d, aligned, variant, seed=0):
    """One inference-layout case: kind varlen | varlen_bwd | paged | splitkv; variant picks page size /
    seqlen_q / num_splits. Returns a result row like run_case."""
    from rocflash.backends import SeqArgs
    from rocflash.emu.driver_varlen import run_backward_seq, run_forward_seq

    t0 = time.time()
    args = FwdArgs(1 / math.sqrt(d), -1, 0, 0.0, None)  # causal, bottom-right aligned per sequence
    if kind in ("varlen", "varlen_bwd"):
        lens_q, lens_k = VARLEN if kind == "varlen" else VARLEN_BWD
        q, k, v, do = _packed(lens_q, lens_k, 2, 1, d, dtype, seed)
        seq = SeqArgs(_cu(lens_q), _cu(lens_k), None, max(lens_q), max(lens_k))
        out, lse, info = run_forward_seq(q, k, v, args, seq, aligned=aligned)
        kv = list(zip(_rows(k, lens_k), _rows(v, lens_k)))
        err, tol, ok = _check_sequences(out, lse, _rows(q, lens_q), kv, args)
        shape = f"varlen {len(lens_q)} seqs, causal, GQA 2:1"
        instr = sum(s.instructions for s in info["stats"])
        if kind == "varlen_bwd":
            dq, dk, dv, binfo = run_backward_seq(q, k, v, out, lse, do, args, seq, aligned=aligned)
            info, instr = binfo, sum(s.instructions for s in binfo["stats"])
            err, tol, ok2 = 0.0, 1e-3, True
            for qb, kb, vb, dob, g in zip(_rows(q, lens_q), _rows(k, lens_k), _rows(v, lens_k), _rows(do, lens_q),
                                          zip(_rows(dq, lens_q), _rows(dk, lens_k), _rows(dv, lens_k))):
                if qb.shape[0] == 0 or kb.shape[0] == 0:  # no work: exactly zero gradients
                    ok2 &= all(bool((x == 0).all()) for x in g)
                    continue
                ref = reference_grads(qb[None], kb[None], vb[None], dob[None], args, torch.float64)
                low = reference_grads(qb[None], kb[None], vb[None], dob[None], args, DT[dtype])
                for gr, r, lo in zip(g, ref, low):
                    e, t, good = _err(gr[None], r, lo, 3)
                    ok2 &= good
                    err, tol = max((err, tol), (e, t), key=lambda x: x[0] / x[1])
            ok = ok and ok2
            shape = f"varlen bwd {len(lens_q)} seqs, causal, GQA 2:1"
    else:
        if kind == "paged":
            lens_q, lens_k, h, hk, page, splits = *PAGED, 2, 2, variant, None
        else:  # splitkv: variant = (seqlen_q, page (0: dense cache, reversed cache_batch_idx), num_splits)
            sq, page, splits = variant
            lens_q, lens_k, h, hk = [sq] * len(DECODE_K), DECODE_K, 8, 2
        q, k, v, _ = _packed(lens_q, lens_k, h, hk, d, dtype, seed)
        k_seqs, v_seqs = _rows(k, lens_k), _rows(v, lens_k)
        used = torch.tensor(lens_k, dtype=torch.int32)
        cache_idx = None
        if page:
            kc, vc, table = _paged(k_seqs, v_seqs, page, seed)
        else:
            n = len(lens_k)
            kc = torch.full((n, max(lens_k) + 5, hk, d), float("nan"), dtype=DT[dtype])
            vc = kc.clone()
            for b, x in enumerate(lens_k):
                kc[n - 1 - b, :x], vc[n - 1 - b, :x] = k_seqs[b], v_seqs[b]
            table, cache_idx = None, torch.arange(n - 1, -1, -1, dtype=torch.int32)
        seq = SeqArgs(_cu(lens_q), None, used, max(lens_q), max(lens_k), block_table=table,
                      cache_batch_idx=cache_idx, num_splits=splits or 1)
        out, lse, info = run_forward_seq(q, kc, vc, args, seq, aligned=aligned)
        err, tol, ok = _check_sequences(out, lse, _rows(q, lens_q), list(zip(k_seqs, v_seqs)), args)
        instr = sum(s.instructions for s in info["stats"])
        where = f"page {page}" if page else "dense cache"
        shape = (f"paged fwd, {where}" if kind == "paged" else
                 f"decode sq {lens_q[0]}, GQA 8:2, {where}, {info['num_splits']} split(s)")
    return dict(kernel=" + ".join(info["kernels"]), shape=shape, err=err, tol=tol, ok=ok, seconds=time.time() - t0,
                instructions=instr)


def seq_cases(kind, dtypes, headdims, paths):
    """(kind, dtype, headdim, aligned, variant) of the inference sweep. Narrow paths use headdim - 4 (not whole
    16-byte vectors for 16-bit types, zero padding up to the bucket)."""
    out, i = [], 0
    split_variants = [(1, 16, 3), (4, 0, 1), (1, 256, 2), (4, 48, 4), (1, 0, 1), (4, 16, 2)]
    for dtype in dtypes:
        for d in (SPLIT_HEADDIMS if kind == "splitkv" else headdims):
            for path in paths:
                dd = d if path == "vec" else d - 4
                if kind == "splitkv":
                    for _ in range(2):
                        out.append((kind, dtype, dd, path == "vec", split_variants[i % len(split_variants)]))
                        i += 1
                else:
                    out.append((kind, dtype, dd, path == "vec", PAGES[i % len(PAGES)]))
                    i += 1
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kinds", default="fwd,bwd,features," + ",".join(SEQ_KINDS),
                    help="fwd, bwd, features (softcap, ALiBi, strides, ...), varlen, varlen_bwd, paged, splitkv")
    ap.add_argument("--dtypes", default="fp16,bf16,fp32")
    ap.add_argument("--headdims", default="32,64,128,256")
    ap.add_argument("--paths", default="vec,narrow")
    ap.add_argument("--shapes", default=",".join(s[0] for s in SHAPES))
    ap.add_argument("--markdown")
    a = ap.parse_args(argv)
    rows = []
    if "features" in a.kinds.split(","):
        for name, q, k, v, kw in feature_cases():
            rows.append(run_feature(name, q, k, v, kw))
            r = rows[-1]
            print(f"{'PASS' if r['ok'] else 'FAIL'} {r['kernel']:70s} {name} err {r['err']:.3g} tol {r['tol']:.3g}",
                  flush=True)
    for kind in [x for x in a.kinds.split(",") if x in SEQ_KINDS]:
        for case in seq_cases(kind, a.dtypes.split(","), list(map(int, a.headdims.split(","))), a.paths.split(",")):
            try:
                r = run_seq_case(*case)
            except Exception as e:  # report and continue: a stop is a finding
                r = dict(kernel=f"{case[0]} {case[1]} d{case[2]} {'vec' if case[3] else 'narrow'}", shape=str(case[4]),
                         err=float("nan"), tol=float("nan"), ok=False, seconds=0.0, instructions=0, error=str(e)[:300])
            rows.append(r)
            print(f"{'PASS' if r['ok'] else 'FAIL'} {r['kernel']:70s} {r['shape']:40s} err {r['err']:.3g} "
                  f"tol {r['tol']:.3g} {r['instructions']} instr {r['seconds']:.1f}s {r.get('error', '')}", flush=True)
    for kind in [x for x in a.kinds.split(",") if x in ("fwd", "bwd")]:
        for dtype in a.dtypes.split(","):
            for d in map(int, a.headdims.split(",")):
                for path in a.paths.split(","):
                    for shape in [s for s in SHAPES if s[0] in a.shapes.split(",")]:
                        try:
                            r = run_case(kind, dtype, d, path == "vec", shape)
                        except Exception as e:  # report and continue: a stop is a finding
                            r = dict(kernel=f"{kind} {dtype} d{d} {path}", shape=shape[0], err=float("nan"),
                                     tol=float("nan"), ok=False, seconds=0.0, instructions=0, error=str(e)[:300])
                        rows.append(r)
                        print(f"{'PASS' if r['ok'] else 'FAIL'} {r['kernel']:70s} {r['shape']:10s} err {r['err']:.3g} "
                              f"tol {r['tol']:.3g} {r['instructions']} instr {r['seconds']:.1f}s {r.get('error', '')}",
                              flush=True)
    if a.markdown:
        lines = ["| kernel | shape | max err | tolerance | result | wave instructions | seconds |",
                 "|---|---|---:|---:|---|---:|---:|"]
        lines += [f"| {r['kernel']} | {r['shape']} | {r['err']:.3g} | {r['tol']:.3g} | "
                  f"{'pass' if r['ok'] else 'FAIL ' + r.get('error', '')} | {r['instructions']} | {r['seconds']:.1f} |"
                  for r in rows]
        with open(a.markdown, "w") as f:
            f.write("\n".join(lines) + "\n")
    return 0 if all(r["ok"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
