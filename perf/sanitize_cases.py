"""Boundary cases for compute-sanitizer (memcheck, racecheck): small, so the sanitizer runs in seconds.

    PYTORCH_NO_CUDA_MEMORY_CACHING=1 compute-sanitizer --tool memcheck --error-exitcode 9 python3 perf/sanitize_cases.py

PYTORCH_NO_CUDA_MEMORY_CACHING=1 gives every tensor its own exactly sized cudaMalloc, so a read one element
past the end is reported instead of landing inside a cached segment.
"""

import torch

import rocflash

CASES = [  # (batch, seqlen_q, seqlen_k, nheads, nheads_k, headdim, dtype, causal, offset_views)
    (5, 4, 656, 2, 2, 128, torch.bfloat16, False, False),  # C2: tensors end at their allocation's end
    (2, 17, 65, 4, 2, 64, torch.float16, True, False),
    (1, 129, 15, 2, 1, 40, torch.float16, True, True),      # narrow load path, headdim not a multiple of 8
    (1, 1, 1025, 2, 2, 256, torch.float32, False, False),
    (2, 65, 63, 2, 2, 7, torch.bfloat16, False, True),
    (1, 300, 100, 1, 1, 96, torch.float16, True, False),   # fully masked rows
]

backend = "hip" if torch.version.hip else "cuda"
for batch, sq, sk, h, hk, d, dtype, causal, offset in CASES:
    def make(s, heads):
        n = batch * s * heads * d
        buf = torch.randn(n + int(offset), device="cuda").to(dtype)  # exactly sized allocation
        return buf[int(offset):].view(batch, s, heads, d)
    q, k, v = (t.requires_grad_() for t in (make(sq, h), make(sk, hk), make(sk, hk)))
    out = rocflash.flash_attn_func(q, k, v, causal=causal, backend=backend)
    out.backward(make(sq, h).detach())  # the backward kernels on the same boundary shapes
    torch.cuda.synchronize()
    assert not torch.isnan(out).any() and not any(torch.isnan(t.grad).any() for t in (q, k, v))
print(f"{len(CASES)} cases (forward + backward) ran on backend {backend}")
