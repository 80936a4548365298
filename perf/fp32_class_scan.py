"""fp32 cases of the far-rows class (issue 8): the worst gradient's error over FlashAttention's backward bound
(max|dX - ref| / (3 max|dX_eager_fp32 - ref| + 1e-3); <= 1 passes), autograd and a backward from the LSE alone, on
one backend. ALiBi far rows (tests/test_fp32_alibi_far_rows.py's cases and more seeds), ALiBi at the largest
accepted softmax_scale (ops.MAX_BACKWARD_SCALE), softcap, GQA, causal, headdim 256.

    python3 perf/fp32_class_scan.py --backend sim|cuda|hip [--model chain]   (run outside the source tree)

``--model chain`` (sim only) replaces the sim's score and dP products by fp32 FMA chains over headdim, ascending
(the compiled kernels' arithmetic before eco10), in a patched copy of rocflash/backends/sim*.py: the CPU
reproduction of the defect the fp64 sums fixed (and without eco12's fp64-shifted backward score).
"""
import argparse
import importlib.util
import inspect
import re
import sys

import torch

import rocflash
from rocflash.backends import FwdArgs, compiled
from rocflash.backends import sim as sim_module, sim_backward, sim_tiles
from rocflash.backends.reference import attention_reference

# (name, scale, headdim, seqlen_q, seqlen_k, nheads, nheads_k, alibi, softcap, causal, seed)
CASES = [(f"alibi far rows s{s}", 50.0, 128, 200, 3, 2, 1, True, 0.0, False, s) for s in range(4)]
CASES += [
    ("alibi far rows d32 scale 100", 100.0, 32, 200, 3, 2, 1, True, 0.0, False, 11),
    ("alibi scale 100 d128", 100.0, 128, 150, 40, 2, 2, True, 0.0, False, 1),
    ("alibi scale 100 d256 gqa 4/1", 100.0, 256, 120, 30, 4, 1, True, 0.0, False, 2),
    ("no alibi scale 100 d256", 100.0, 256, 96, 96, 2, 2, False, 0.0, False, 3),
    ("softcap 30 scale 50 d128", 50.0, 128, 150, 40, 2, 2, False, 30.0, False, 4),
    ("softcap 30 + alibi scale 100 d64", 100.0, 64, 150, 40, 2, 2, True, 30.0, False, 5),
    ("alibi scale 50 causal sq<sk d128 gqa 2/1", 50.0, 128, 40, 90, 2, 1, True, 0.0, True, 6),
    # adv15's two-key rows (tests/test_score_overflow.py): fp32 S2 rounded before the shift left the rule (eco12)
    ("two-key rows causal sq<sk d200 gqa 6/2 scale 50 s20", 50.0, 200, 16, 31, 6, 2, False, 0.0, True, 20),
    ("two-key rows causal sq<sk d200 gqa 6/2 scale 100 s2", 100.0, 200, 16, 31, 6, 2, False, 0.0, True, 2),
    # the same with ALiBi (slopes rand * 10 of the seed): ALiBi's term after the shifted score's rounding (eco13)
    ("adv15 shape + alibi causal sq<sk d200 gqa 6/2 scale 50 s2", 50.0, 200, 16, 31, 6, 2, True, 0.0, True, 2),
    ("adv15 shape + alibi causal sq<sk d200 gqa 6/2 scale 100 s0", 100.0, 200, 16, 31, 6, 2, True, 0.0, True, 0),
]


def chain_sim():
    """rocflash.backends.sim with the score and dP products as fp32 FMA chains (ascending d), fp32 inputs only."""
    # one module of the sim's three (sim_tiles, sim_backward, sim: the forward), their imports of each other left out
    parts = [inspect.getsource(m) for m in (sim_tiles, sim_backward, sim_module)]
    src = parts[0] + "".join(p.replace("from __future__ import annotations\n", "") for p in parts[1:])
    src = re.sub(r"^from \.sim_(?:tiles|backward) import (?:\([^)]*\)|.*)\n", "", src, flags=re.M)
    src = src.replace("from .. import", "from rocflash import").replace("from ..", "from rocflash.")
    src = src.replace("from . import", "from rocflash.backends import")
    src = re.sub(r"^from \.(\w+) import", r"from rocflash.backends.\1 import", src, flags=re.M)
    src = src.replace("if shifted and pb.dtype == torch.float32 and args.softcap == 0:", "if False:")  # pre-eco12
    src = src.replace("_matmul(_pick(qs, blocks), kst, tiles)", "_chain(_pick(qt, blocks), _pick(kt, tiles))")
    src = src.replace("s2, g = pairs.scores_log2(pb, exact_dot(qt, q_blocks, kt, k_tiles))",
                      "s2, g = pairs.scores_log2(pb, _chain(_pick(qt, q_blocks), _pick(kt, k_tiles)))")
    src = src.replace("dp = exact_dot(dot, q_blocks, vt, k_tiles, every_dtype=True)",
                      "dp = _chain(_pick(dot, q_blocks), _pick(vt, k_tiles))")
    src = src.replace("    hi = (dout.double() * out.double()).sum(-1).float()\n",
                      "    hi = _chain(dout.unsqueeze(-2), out.unsqueeze(-2)).squeeze(-1).squeeze(-1)\n")
    src += '''

def _chain(a, b):
    """a @ b^T, each element an fp32 FMA chain over the last dim, ascending (one rounding per step)."""
    if a.dtype == torch.float64:
        return a @ b.transpose(-1, -2)
    A, B = a.double(), b.double()
    acc = torch.zeros(*torch.broadcast_shapes(a.shape[:-1], a.shape[:-2] + (1,)), b.shape[-2], dtype=torch.float64)
    for d in range(a.shape[-1]):
        acc = (A[..., :, d, None] * B[..., None, :, d] + acc).float().double()
    return acc.float()
'''
    assert src.count("_chain(") >= 5, "rocflash/backends/sim*.py changed: the chain model's patch points moved"
    spec = importlib.util.spec_from_loader("sim_chain", loader=None)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["sim_chain"] = mod  # dataclasses look their module up
    exec(compile(src, "sim_chain", "exec"), mod.__dict__)
    return mod


def ratios(grads, q, k, v, dout, args):
    def ref(dtype):
        a, b, c = (t.detach().cpu().to(dtype).requires_grad_() for t in (q, k, v))
        cargs = args if args.alibi_slopes is None else FwdArgs(args.softmax_scale, args.window_left, args.window_right,
                                                               args.softcap, args.alibi_slopes.cpu())
        o, _ = attention_reference(a, b, c, cargs, dtype)
        o.backward(dout.cpu().to(dtype))
        return a.grad, b.grad, c.grad
    r64, r32 = ref(torch.float64), ref(torch.float32)
    return [(g.double().cpu() - r).abs().max().item() / (3 * (lo.double() - r).abs().max().item() + 1e-3)
            for g, r, lo in zip(grads, r64, r32)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backend", default="sim")
    ap.add_argument("--model", choices=("chain",))
    a = ap.parse_args()
    dev = "cpu" if a.backend == "sim" else "cuda"
    mod = chain_sim() if a.model else sim_module
    for name, scale, hd, sq, sk, h, hk, alibi, cap, causal, seed in CASES:
        g = torch.Generator().manual_seed(seed)
        q, k, v = (torch.randn(1, n, hh, hd, generator=g) for n, hh in ((sq, h), (sk, hk), (sk, hk)))
        dout = torch.randn(1, sq, h, hd, generator=g)
        slopes = (torch.rand(h, generator=g) * 10) if alibi else None
        q, k, v, dout = (t.to(dev) for t in (q, k, v, dout))
        slopes = slopes.to(dev) if alibi else None
        args = FwdArgs(scale, -1, 0 if causal else -1, cap, slopes)
        try:
            auto, from_lse = run_case(a.backend, mod, q, k, v, dout, slopes, args, scale, cap, causal)
        except Exception as e:  # one case's rejection (e.g. a combination a backend does not take) ends no scan
            print(f"{a.backend} | {name} | {type(e).__name__}: {str(e)[:200]}", flush=True)
            continue
        ra, rl = ratios(auto, q, k, v, dout, args), ratios(from_lse, q, k, v, dout, args)
        worst = max(ra + rl)
        print(f"{a.backend}{'/' + a.model if a.model else ''} | {name} | autograd dq {ra[0]:.2f} dk {ra[1]:.2f} "
              f"dv {ra[2]:.2f} | from LSE dq {rl[0]:.2f} dk {rl[1]:.2f} dv {rl[2]:.2f} | {'FAIL' if worst > 1 else 'ok'}",
              flush=True)


def run_case(backend, mod, q, k, v, dout, slopes, args, scale, cap, causal):
    """(autograd grads, grads of a backward from the LSE) of one case on ``backend`` (``mod``: the sim module)."""
    if backend == "sim":
        out, lse, stats = mod.forward(q, k, v, args, with_stats=True)
        auto = mod.backward(q, k, v, out, lse, dout, args, stats=stats)
        from_lse = mod.backward(q, k, v, out, lse, dout, args)
    else:
        qq, kk, vv = (t.clone().requires_grad_() for t in (q, k, v))
        o = rocflash.flash_attn_func(qq, kk, vv, softmax_scale=scale, causal=causal, softcap=cap, alibi_slopes=slopes,
                                     backend=backend)
        auto = torch.autograd.grad(o, (qq, kk, vv), dout)
        out, lse, _ = rocflash.flash_attn_func(q, k, v, softmax_scale=scale, causal=causal, softcap=cap,
                                               alibi_slopes=slopes, return_attn_probs=True, backend=backend)
        from_lse = compiled.backward(backend, q, k, v, out, lse, dout, args)
    return auto, from_lse


if __name__ == "__main__":
    sys.exit(main())
