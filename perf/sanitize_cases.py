"""Boundary cases for compute-sanitizer (memcheck, racecheck): small, so the sanitizer runs in seconds.

    PYTORCH_NO_CUDA_MEMORY_CACHING=1 compute-sanitizer --tool memcheck --error-exitcode 9 python3 perf/sanitize_cases.py
    ... perf/sanitize_cases.py --seq-only     # only the varlen / paged KV-cache cases

PYTORCH_NO_CUDA_MEMORY_CACHING=1 gives every tensor its own exactly sized cudaMalloc, so a read one element
past the end is reported instead of landing inside a cached segment.
"""

import sys

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
SEQ_ONLY = "--seq-only" in sys.argv  # only the varlen / paged section below
for batch, sq, sk, h, hk, d, dtype, causal, offset in ([] if SEQ_ONLY else CASES):
    def make(s, heads):
        n = batch * s * heads * d
        buf = torch.randn(n + int(offset), device="cuda").to(dtype)  # exactly sized allocation
        return buf[int(offset):].view(batch, s, heads, d)
    q, k, v = (t.requires_grad_() for t in (make(sq, h), make(sk, hk), make(sk, hk)))
    out = rocflash.flash_attn_func(q, k, v, causal=causal, backend=backend)
    out.backward(make(sq, h).detach())  # the backward kernels on the same boundary shapes
    torch.cuda.synchronize()
    assert not torch.isnan(out).any() and not any(torch.isnan(t.grad).any() for t in (q, k, v))
print(f"{0 if SEQ_ONLY else len(CASES)} cases (forward + backward) ran on backend {backend}")

# ---- varlen and paged KV cache (compiled.varlen_forward / varlen_backward): every tensor exactly sized, so a
# read past the last sequence's rows, the last page or the block table is reported.
from rocflash.backends import FwdArgs, SeqArgs, compiled  # noqa: E402


def exact(shape, dtype):
    return torch.randn(shape, device="cuda").to(dtype).contiguous()


def cu(lens):
    return torch.tensor([0, *torch.tensor(lens).cumsum(0).tolist()], dtype=torch.int32, device="cuda")


VARLEN = [  # (lens_q, lens_k, nheads, nheads_k, headdim, dtype, causal)
    ([1, 0, 17, 65], [63, 5, 17, 0], 4, 2, 64, torch.float16, True),
    ([129, 3], [15, 1025], 2, 1, 40, torch.bfloat16, False),  # narrow load path
]
for lens_q, lens_k, h, hk, d, dtype, causal in VARLEN:
    q = exact((sum(lens_q), h, d), dtype)
    k, v = exact((sum(lens_k), hk, d), dtype), exact((sum(lens_k), hk, d), dtype)
    seq = SeqArgs(cu_seqlens_q=cu(lens_q), cu_seqlens_k=cu(lens_k), seqused_k=None, max_seqlen_q=max(lens_q),
                  max_seqlen_k=max(lens_k))
    args = FwdArgs(d ** -0.5, -1, 0 if causal else -1, 0.0, None)
    out, lse = compiled.varlen_forward(backend, q, k, v, seq, args)
    grads = compiled.varlen_backward(backend, q, k, v, out, lse, exact(q.shape, dtype), seq, args)
    torch.cuda.synchronize()
    assert not torch.isnan(out).any() and not any(torch.isnan(g).any() for g in grads)

PAGED = [  # (seqused_k, seqlen_q, page, nheads, nheads_k, headdim, num_splits)
    ([1, 16, 17, 100], 1, 16, 8, 2, 128, 0),
    ([255, 1], 4, 256, 8, 8, 64, 3),
    ([48, 7], 2, 48, 4, 1, 256, 1),
]
for used, sq, page, h, hk, d, num_splits in PAGED:
    pages = [-(-n // page) for n in used]
    kc, vc = exact((sum(pages), page, hk, d), torch.bfloat16), exact((sum(pages), page, hk, d), torch.bfloat16)
    table = torch.randperm(sum(pages), dtype=torch.int32)
    rows, nxt = [], 0
    for n in pages:  # exactly max(pages) columns; the shorter sequences' tail entries point at block 0
        rows.append(torch.cat([table[nxt:nxt + n], torch.zeros(max(pages) - n, dtype=torch.int32)]))
        nxt += n
    q = exact((len(used) * sq, h, d), torch.bfloat16)
    seq = SeqArgs(cu_seqlens_q=cu([sq] * len(used)), cu_seqlens_k=None,
                  seqused_k=torch.tensor(used, dtype=torch.int32, device="cuda"), max_seqlen_q=sq,
                  max_seqlen_k=max(used), block_table=torch.stack(rows).to("cuda"), num_splits=num_splits)
    out, lse = compiled.varlen_forward(backend, q, kc, vc, seq, FwdArgs(d ** -0.5, -1, 0, 0.0, None))
    torch.cuda.synchronize()
    assert not torch.isnan(out).any()

# flash_attn_with_kvcache's fast path (the second call of a signature: one kvcache_step call, step kernel + split-KV
# + combine): a dense cache appended at its last slot, a paged one whose table has exactly the used columns, and
# under ROCFLASH_INDEX_CHECKS=off a sequence with an out-of-range index (read nothing, NaN output)
import os  # noqa: E402

from rocflash import kvcache_fast  # noqa: E402

KVCACHE = [  # (cache_seqlens, capacity, page (0: dense, append one token), nheads, nheads_k, headdim)
    ([0, 63, 17], 64, 0, 8, 2, 128),
    ([1, 16, 33], 48, 16, 8, 8, 64),
]
for lens, cap, page, h, hk, d in KVCACHE:
    batch = len(lens)
    q = exact((batch, 1, h, d), torch.bfloat16)
    seqlens = torch.tensor(lens, dtype=torch.int32, device="cuda")
    if page:
        blocks = batch * cap // page
        kc, vc = exact((blocks, page, hk, d), torch.bfloat16), exact((blocks, page, hk, d), torch.bfloat16)
        call = dict(cache_seqlens=seqlens, block_table=torch.randperm(blocks, dtype=torch.int32).view(batch, -1).cuda())
    else:
        kc, vc = exact((batch, cap, hk, d), torch.bfloat16), exact((batch, cap, hk, d), torch.bfloat16)
        call = dict(k=exact((batch, 1, hk, d), torch.bfloat16), v=exact((batch, 1, hk, d), torch.bfloat16),
                    cache_seqlens=seqlens)
    for mode in ("device", "off"):
        os.environ[kvcache_fast.INDEX_CHECKS_ENV] = mode
        for _ in range(2):  # full path, then the fast path
            out = rocflash.flash_attn_with_kvcache(q, kc, vc, causal=True, backend=backend, **call)
        torch.cuda.synchronize()
        assert not torch.isnan(out).any()
    bad = dict(call, cache_seqlens=torch.tensor([lens[0], cap + 5, -3], dtype=torch.int32, device="cuda"))
    out = rocflash.flash_attn_with_kvcache(q, kc, vc, causal=True, backend=backend, **bad)  # `off`: no assert
    torch.cuda.synchronize()
    assert out[1:].isnan().all() and not out[0].isnan().any() and kvcache_fast.index_error_flag(q.device).item() == 1
    os.environ.pop(kvcache_fast.INDEX_CHECKS_ENV)
# flash_attn_varlen_func's public call: the index check kernel (hip_src/fmha_varlen_check.h) before the attention
# kernels, on the first VARLEN case (packed, forward + backward) and a paged one whose last table column is unused
# and holds an out-of-range entry (never read)
lens_q, lens_k, h, hk, d, dtype, causal = VARLEN[0]
q = exact((sum(lens_q), h, d), dtype).requires_grad_()
k, v = (exact((sum(lens_k), hk, d), dtype).requires_grad_() for _ in range(2))
out = rocflash.flash_attn_varlen_func(q, k, v, cu(lens_q), cu(lens_k), max(lens_q), max(lens_k), causal=causal,
                                      backend=backend)
out.backward(torch.ones_like(out))
kc, vc = exact((12, 16, hk, d), dtype), exact((12, 16, hk, d), dtype)
table = torch.randperm(12, dtype=torch.int32).view(4, 3).cuda()
table[:, 2] = 1 << 30  # unused column: every sequence below holds at most 32 keys (2 pages of 16)
lens_kp = [min(n, 32) for n in lens_k]
with torch.no_grad():
    out = rocflash.flash_attn_varlen_func(q.detach(), kc, vc, cu(lens_q), cu(lens_kp), max(lens_q), max(lens_kp),
                                          causal=causal, block_table=table, backend=backend)
torch.cuda.synchronize()
assert not torch.isnan(out).any() and not torch.isnan(q.grad).any()
print(f"{len(VARLEN)} varlen (forward + backward), {len(PAGED)} paged decode, {len(KVCACHE)} KV-cache fast-path "
      f"and 2 public varlen (check kernel) cases ran on backend {backend}")
