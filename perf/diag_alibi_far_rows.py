"""Per-gradient error ratios (error / FlashAttention's 3x bound) of tests/test_fp32_alibi_far_rows.py's cases through
the compiled CUDA kernels, autograd and from the LSE (run N2 in perf/RESULTS.md):
    ROCFLASH_KERNEL=auto|vector python3 perf/diag_alibi_far_rows.py
"""
import os, sys, torch
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
import rocflash
from rocflash.backends import compiled
import test_fp32_alibi_far_rows as T
from conftest import reference_grads
for scale, hd, sk, seed in T.CASES:
    for dtype in (torch.float32, torch.float16):
        if dtype != torch.float32 and scale > 50: continue
        q, k, v, dout, slopes, args = T._inputs(scale, hd, sk, seed, dtype, device="cuda")
        ref = reference_grads(q, k, v, dout, args, torch.float64); low = reference_grads(q, k, v, dout, args, q.dtype)
        def rep(tag, grads):
            s = []
            for name, gr, r, lo in zip("qkv", grads, ref, low):
                r = r.double().cpu(); err = (gr.double().cpu() - r).abs().max().item()
                tol = 3 * (lo.double().cpu() - r).abs().max().item() + 1e-3
                s.append(f"d{name} {err:.3g}/{tol:.3g}={err/tol:.2f}x")
            print(os.environ.get("ROCFLASH_KERNEL"), scale, hd, sk, seed, dtype, tag, " ".join(s), flush=True)
        try:
            rep("autograd", T._grads(q, k, v, dout, slopes, scale, "cuda"))
            out, lse, _ = rocflash.flash_attn_func(q, k, v, softmax_scale=scale, alibi_slopes=slopes, return_attn_probs=True, backend="cuda")
            try:
                T._assert_lse(lse, q, k, v, args, "lse"); print("  lse ok")
            except AssertionError as e: print("  LSE FAIL", e)
            rep("from-lse", compiled.backward("cuda", q, k, v, out, lse, dout, args))
        except Exception as e:
            print("  EXC", type(e).__name__, str(e)[:300])
