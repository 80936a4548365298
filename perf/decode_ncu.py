"""The program Nsight Compute profiles in perf/dec4_gpu_run.sh's ncu stage (NCU_CASE=BxS): one decode step of the
preset's shape (seqlen_q 1, nheads 32, nheads_k 8, headdim 128, bf16) at batch B x seqlen_k S through
rocflash.flash_attn_func (the tensor-core split-KV kernel and its combine), then the same inputs through SDPA cuDNN;
each called twice (the first calls plan). Compare DRAM throughput, occupancy and warp stalls of the two."""
import argparse

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

import rocflash

ap = argparse.ArgumentParser()
ap.add_argument("--case", default="8x16384", help="BxS")
a = ap.parse_args()
b, s = (int(x) for x in a.case.split("x"))
g = torch.Generator(device="cuda").manual_seed(0)
q = torch.randn(b, 1, 32, 128, device="cuda", dtype=torch.bfloat16, generator=g)
k, v = (torch.randn(b, s, 8, 128, device="cuda", dtype=torch.bfloat16, generator=g) for _ in range(2))
for _ in range(2):
    rocflash.flash_attn_func(q, k, v, backend="cuda")
qt, kt, vt = (t.transpose(1, 2) for t in (q, k, v))
with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
    for _ in range(2):
        F.scaled_dot_product_attention(qt, kt, vt, enable_gqa=True)
torch.cuda.synchronize()
print("ncu program done")
