"""Quick GPU check of the tensor-core backward (hip_src/fmha_mma_bwd.h) against the vector backward and fp64.

For each case: dQ, dK, dV of the compiled backend under ROCFLASH_KERNEL=auto (tensor cores on sm_80+) and
=vector, each against the fp64 torch reference (max abs error), the tile math that ran, and a bitwise
repeat check of the auto run. Prints one line per case and exits 1 when a case's auto error exceeds
3 * max(vector error, 1e-3) or the repeat differs. Usage: python perf/bwd_mma_check.py
"""

from __future__ import annotations

import os
import sys

import torch

import rocflash
from rocflash.backends.compiled import last_kernels

CASES = [  # (batch, sq, sk, h, hk, d, dtype, causal, window, softcap, alibi)
    (2, 256, 256, 4, 4, 64, torch.bfloat16, False, (-1, -1), 0.0, False),
    (2, 256, 256, 4, 4, 128, torch.bfloat16, True, (-1, -1), 0.0, False),
    (1, 200, 333, 4, 2, 128, torch.float16, True, (-1, -1), 0.0, False),
    (1, 333, 200, 4, 1, 64, torch.float16, True, (-1, -1), 0.0, False),
    (2, 190, 190, 2, 2, 96, torch.bfloat16, False, (32, 8), 0.0, False),
    (1, 128, 160, 2, 2, 32, torch.bfloat16, False, (-1, -1), 30.0, False),
    (1, 160, 128, 4, 2, 64, torch.float16, True, (-1, -1), 0.0, True),
    (1, 77, 4096, 2, 2, 128, torch.bfloat16, False, (-1, -1), 0.0, False),
]


def grads(q, k, v, dout, causal, window, softcap, alibi, backend):
    q, k, v = (t.detach().requires_grad_() for t in (q, k, v))
    out = rocflash.flash_attn_func(q, k, v, causal=causal, window_size=window, softcap=softcap, alibi_slopes=alibi,
                                   backend=backend)
    return torch.autograd.grad(out, (q, k, v), dout)


def main() -> int:
    platform = "cuda"
    bad = 0
    for b, sq, sk, h, hk, d, dtype, causal, window, softcap, use_alibi in CASES:
        g = torch.Generator(device="cuda").manual_seed(sq * 7 + d)
        q, dout = (torch.randn(b, sq, h, d, device="cuda", generator=g) for _ in range(2))
        k, v = (torch.randn(b, sk, hk, d, device="cuda", generator=g) for _ in range(2))
        alibi = torch.rand(h, device="cuda", generator=g) if use_alibi else None
        lo = [t.to(dtype) for t in (q, k, v, dout)]
        ref = grads(*[t.double() for t in lo], causal, window, softcap, alibi, "torch")
        errs = {}
        for kernel in ("auto", "vector"):
            os.environ["ROCFLASH_KERNEL"] = kernel
            got = grads(*lo, causal, window, softcap, alibi, platform)
            errs[kernel] = [(x.double() - r).abs().max().item() for x, r in zip(got, ref)]
            errs[kernel + "_math"] = last_kernels().get("bwd")
            if kernel == "auto":
                again = grads(*lo, causal, window, softcap, alibi, platform)
                errs["repeat"] = all(torch.equal(x, y) for x, y in zip(got, again))
        os.environ["ROCFLASH_KERNEL"] = "auto"
        ok = errs["repeat"] and all(a <= 3 * max(vv, 1e-3) for a, vv in zip(errs["auto"], errs["vector"]))
        bad += not ok
        print(f"{'ok ' if ok else 'BAD'} b{b} sq{sq} sk{sk} h{h}/{hk} d{d} {str(dtype)[6:]} causal={causal} win={window} "
              f"softcap={softcap} alibi={use_alibi} | {errs['auto_math']}: dq/dk/dv err "
              + " ".join(f"{e:.2e}" for e in errs["auto"]) + f" | {errs['vector_math']}: "
              + " ".join(f"{e:.2e}" for e in errs["vector"]) + f" | repeat bitwise {errs['repeat']}", flush=True)
    print(f"{len(CASES) - bad}/{len(CASES)} cases ok")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
