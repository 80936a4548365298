"""Sweep of our gfx906 kernels on the emulator (rocflash.emu) against the fp64 reference.

    python perf/emu_sweep.py                      # every forward bucket x dtype x load path, then backward
    python perf/emu_sweep.py --kinds fwd --dtypes fp16 --headdims 64,128
    python perf/emu_sweep.py --markdown perf/results/emu_sweep.md

Each case: the instance the dispatcher picks for (dtype, headdim, load path), small shapes with full and
boundary tiles (seqlen_q, seqlen_k not multiples of Br/Bc), GQA, causal with seqlen_q != seqlen_k and a sliding
window, tolerance as in the tests (forward 2x, backward 3x the eager low-precision error + 1e-3). This checks
functional semantics as the emulator reads the Vega ISA manual: not timing, not silicon. Minutes per case
for the larger tiles: the emulator runs ~30 us per wave instruction.
"""

from __future__ import annotations

import argparse
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


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kinds", default="fwd,bwd,features", help="fwd, bwd, features (softcap, ALiBi, strides, ...)")
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
    for kind in [x for x in a.kinds.split(",") if x != "features"]:
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
