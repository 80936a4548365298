"""compute-sanitizer case for the atomic-dQ backward (perf/tcbwd2_run.sh): boundary shapes, GQA, causal, NaN in a
K row no query sees, both dQ modes and both headdim buckets of the tensor-core backward."""
import torch

import rocflash

torch.manual_seed(0)
for d, dt in ((128, torch.bfloat16), (64, torch.float16)):
    for det in (False, True):
        q = torch.randn(2, 129, 4, d, device="cuda", dtype=dt, requires_grad=True)
        k = torch.randn(2, 257, 2, d, device="cuda", dtype=dt)
        v = torch.randn(2, 257, 2, d, device="cuda", dtype=dt)
        k[:, 250] = float("nan")  # causal bottom-right: rows < 121 cannot see key 250
        k.requires_grad_()
        v.requires_grad_()
        out = rocflash.flash_attn_func(q, k, v, causal=True, backend="cuda", deterministic=det)
        out.backward(torch.randn_like(out))
        torch.cuda.synchronize()
        print(d, dt, "deterministic" if det else "atomic dQ", "dq finite rows < 121:",
              bool(torch.isfinite(q.grad[:, :121]).all()))
