"""all-MiniLM-L6-v2's real per-layer Q, K, V through the compiled rocflash kernel, against fp64 and eager.

    python3 perf/minilm_gpu_check.py [--file .gpu_carry/minilm_qkv.pt] [--backend cuda|hip|sim|torch] [--device cuda|cpu]

Run from the repository root on the GPU machine, with rocflash pip-installed (its compiled module); the input
file comes from ``perf/minilm_capture.py`` on a CPU machine (transformers is not needed here). Defaults: device
cuda, backend "hip" under a ROCm torch else "cuda". ``--backend sim --device cpu`` dry-runs the same checks on
a CPU.

For each capture (the fp32 model run and the fp16 model run), each unpadded batch and each of the 6 layers, the
captured Q, K, V ((batch, seqlen, 12, 32), non-causal, softmax scale 1/sqrt(32)) go through
``rocflash.flash_attn_func`` in fp32, fp16 and bf16 (cast from the fp32 capture) and in fp16 (the fp16 capture
as is). Each output is judged by the project's rule (tests/conftest.py, FlashAttention's):
    max|out - ref| <= 2 * max|eager_lowprec - ref| + 1e-3
with ref the fp64 attention of the same (cast) inputs and eager_lowprec the unfused attention in the run dtype,
and LSE within 1e-3 * max(1, max|ref LSE|) of the fp64 LSE. The difference to the captured eager output
(transformers' eager BERT attention on the CPU, in the capture's dtype) is reported, not judged: for casts it
includes the rounding of the inputs.

Multi-tile case: the sentences are 7..14 tokens (one K/V tile), so each layer's 148 captured tokens are also
concatenated into one sequence (batch 1, seqlen 148: several query blocks and K/V tiles) and run non-causal
and causal (judged by the rule only: there is no eager capture of that arrangement).

Prints one table row per (capture, run dtype, layer, case), then ``minilm_gpu_check: PASS ...`` or
``minilm_gpu_check: FAIL ...``; exits 1 on FAIL, 2 when it cannot run (no file, no GPU).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

os.environ.setdefault("ROCFLASH_POISON_OUTPUTS", "1")  # compiled outputs start as NaN: unwritten elements fail

import torch

import rocflash
from rocflash.backends import FwdArgs
from rocflash.backends.reference import attention_reference

DTYPES = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}
RUNS = [("fp32", "fp32"), ("fp32", "fp16"), ("fp32", "bf16"), ("fp16", "fp16")]  # (capture, run dtype)


def judge(q, k, v, args: FwdArgs, causal: bool, backend: str):
    """One flash_attn_func call against fp64. Returns (out, err, bound, lse_err, lse_bound, ok)."""
    out, lse, _ = rocflash.flash_attn_func(q, k, v, softmax_scale=args.softmax_scale, causal=causal,
                                           backend=backend, return_attn_probs=True)
    ref, ref_lse = attention_reference(q.double(), k.double(), v.double(), args, torch.float64)
    low, _ = attention_reference(q, k, v, args, q.dtype)
    err = (out.double() - ref).abs().max().item()
    bound = 2 * (low.double() - ref).abs().max().item() + 1e-3
    finite = torch.isfinite(ref_lse)
    lse_err = (lse.double() - ref_lse)[finite].abs().max().item()
    lse_bound = 1e-3 * max(1.0, ref_lse[finite].abs().max().item())
    ok = (out.shape == q.shape and out.dtype == q.dtype and not torch.isnan(out).any().item()
          and not torch.isnan(lse).any().item() and torch.equal(torch.isneginf(lse), torch.isneginf(ref_lse))
          and err <= bound and lse_err <= lse_bound)
    return out, err, bound, lse_err, lse_bound, ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--file", default=".gpu_carry/minilm_qkv.pt")
    parser.add_argument("--backend", choices=("cuda", "hip", "sim", "torch"), default=None,
                        help="default: hip under a ROCm torch, else cuda")
    parser.add_argument("--device", default="cuda")
    opts = parser.parse_args()

    if not os.path.exists(opts.file):
        print(f"minilm_gpu_check: cannot run: {opts.file} not found (make it on a CPU machine with "
              f"`PYTHONPATH=. python3 perf/minilm_capture.py` and carry .gpu_carry/)")
        return 2
    device = torch.device(opts.device)
    if device.type == "cuda" and not torch.cuda.is_available():
        print("minilm_gpu_check: cannot run: --device cuda but torch sees no GPU (use --backend sim --device cpu "
              "for a CPU dry run)")
        return 2
    backend = opts.backend or ("hip" if torch.version.hip else "cuda")
    data = torch.load(opts.file, weights_only=True)
    meta = data["meta"]
    scale, nlayers = meta["softmax_scale"], meta["num_layers"]
    args = FwdArgs(scale, -1, -1, 0.0, None)
    causal_args = FwdArgs(scale, -1, 0, 0.0, None)
    where = torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu"
    print(f"rocflash {rocflash.__version__} ({os.path.dirname(rocflash.__file__)}), torch {torch.__version__}, "
          f"backend {backend}, device {where}")
    print(f"input {opts.file}: {meta['model']}, {meta['model_class']}, {nlayers} layers x {meta['nheads']} heads x "
          f"headdim {meta['headdim']}, scale {scale:.6f}, {len(meta['sentences'])} sentences, captured with "
          f"transformers {meta['transformers']} / torch {meta['torch']}")
    header = (f"{'capture':>7} {'run':>4} {'layer':>5} {'case':<22} {'max|out-ref|':>12} {'bound':>9} "
              f"{'max|out-eager|':>14} {'lse err':>9} {'result':>6}")
    print(header)
    print("-" * len(header))
    failures, rows, start = [], 0, time.time()
    for cap_name, run_name in RUNS:
        groups, run_dtype = data["captures"][cap_name], DTYPES[run_name]
        for layer in range(nlayers):
            worst = {"err": 0.0, "bound": float("inf"), "eager": 0.0, "lse": 0.0, "ok": True}
            qs, ks, vs = [], [], []
            for g in groups:
                q, k, v = (g[n][layer].to(device=device, dtype=run_dtype) for n in ("q", "k", "v"))
                out, err, bound, lse_err, lse_bound, ok = judge(q, k, v, args, False, backend)
                eager = (out.double() - g["out"][layer].to(device).double()).abs().max().item()
                if not ok:
                    failures.append(f"{cap_name}->{run_name} layer {layer} len {g['length']}: err {err:.3g} "
                                    f"bound {bound:.3g} lse {lse_err:.3g}/{lse_bound:.3g}")
                if err - bound > worst["err"] - worst["bound"]:  # keep the group closest to its bound
                    worst.update(err=err, bound=bound)
                worst["eager"] = max(worst["eager"], eager)
                worst["lse"] = max(worst["lse"], lse_err)
                worst["ok"] &= ok
                qs.append(q.reshape(1, -1, *q.shape[2:]))
                ks.append(k.reshape(1, -1, *k.shape[2:]))
                vs.append(v.reshape(1, -1, *v.shape[2:]))
            case = f"{len(groups)} batches (worst)"
            print(f"{cap_name:>7} {run_name:>4} {layer:>5} {case:<22} {worst['err']:>12.3e} {worst['bound']:>9.3e} "
                  f"{worst['eager']:>14.3e} {worst['lse']:>9.2e} {'ok' if worst['ok'] else 'FAIL':>6}")
            rows += 1
            q, k, v = torch.cat(qs, 1), torch.cat(ks, 1), torch.cat(vs, 1)
            for causal in (False, True):
                case = f"concat {q.shape[1]} tok{' causal' if causal else ''}"
                _, err, bound, lse_err, lse_bound, ok = judge(q, k, v, causal_args if causal else args, causal, backend)
                if not ok:
                    failures.append(f"{cap_name}->{run_name} layer {layer} {case}: err {err:.3g} bound {bound:.3g} "
                                    f"lse {lse_err:.3g}/{lse_bound:.3g}")
                print(f"{cap_name:>7} {run_name:>4} {layer:>5} {case:<22} {err:>12.3e} {bound:>9.3e} {'-':>14} "
                      f"{lse_err:>9.2e} {'ok' if ok else 'FAIL':>6}")
                rows += 1
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    took = time.time() - start
    if failures:
        for f in failures:
            print("  failed:", f)
        print(f"minilm_gpu_check: FAIL: {len(failures)} failing cases (table rows {rows}), backend {backend} on "
              f"{where}, {took:.1f} s")
        return 1
    print(f"minilm_gpu_check: PASS: {rows} table rows, every batch and layer within tolerance, backend {backend} "
          f"on {where}, {took:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
