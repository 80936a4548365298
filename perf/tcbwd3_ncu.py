"""One forward + backward per dQ mode (atomic, then deterministic) at batch 4, nheads 16, seqlen 4096, headdim 128
(or --headdim), bf16, non-causal: the program Nsight Compute profiles in perf/tcbwd2_run.sh's ncu stage
(`ncu -k regex:fmha_bwd_dkdv -c 2`: the atomic-dQ dK/dV kernel, then the deterministic one)."""
import argparse

import torch

import rocflash

ap = argparse.ArgumentParser()
ap.add_argument("--headdim", type=int, default=128)
args = ap.parse_args()
torch.manual_seed(0)
shape = (4, 4096, 16, args.headdim)
q, k, v = (torch.randn(shape, device="cuda", dtype=torch.bfloat16, requires_grad=True) for _ in range(3))
dout = torch.randn(shape, device="cuda", dtype=torch.bfloat16)
for det in (False, True):
    out = rocflash.flash_attn_func(q, k, v, backend="cuda", deterministic=det)
    out.backward(dout)
torch.cuda.synchronize()
print("ncu program done")
