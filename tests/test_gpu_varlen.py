"""The compiled varlen / KV-cache kernels (``compiled.varlen_forward`` / ``varlen_backward``) against fp64.

Marker ``gpu``: skipped without a GPU and the compiled module. Every sequence is checked on its own against
the fp64 reference of its dense (1, seqlen, heads, headdim) tensors with FlashAttention's rule (conftest),
LSE included. Outputs are poisoned with NaN (conftest); cache slots and pages that no sequence owns hold NaN,
so a kernel that reads past a sequence's keys fails. Inputs are fresh random values per case.
"""

from __future__ import annotations

import pytest
import torch

from conftest import DTYPES, assert_close_to_reference, assert_grads_close, fwd_args, gpu_platform
from rocflash import splitkv
from rocflash.backends import SeqArgs
from rocflash.backends import compiled

pytestmark = pytest.mark.gpu

NAN = float("nan")


def _cu(lens: list[int]) -> torch.Tensor:
    return torch.tensor([0] + list(torch.tensor(lens).cumsum(0).tolist()), dtype=torch.int32, device="cuda")


def _sequences(lens_q, lens_k, h, hk, d, dtype, seed):
    """Per-sequence dense q (1, sq, h, d), k, v (1, sk, hk, d) on the GPU."""
    g = torch.Generator().manual_seed(seed)
    out = []
    for sq, sk in zip(lens_q, lens_k):
        q = torch.randn(1, sq, h, d, generator=g).to("cuda", dtype)
        k = torch.randn(1, sk, hk, d, generator=g).to("cuda", dtype)
        v = torch.randn(1, sk, hk, d, generator=g).to("cuda", dtype)
        out.append((q, k, v))
    return out


def _pack_q(seqs):
    return torch.cat([q[0] for q, _, _ in seqs]) if seqs else None


def _layout(seqs, layout: str, page: int = 16, seed: int = 0):
    """K/V and the SeqArgs fields of one layout: "varlen", "cache" (dense, shuffled cache_batch_idx, NaN in
    unused slots and rows) or "paged" (shuffled block table, NaN in every slot no sequence owns)."""
    g = torch.Generator().manual_seed(seed + 1)
    lens_k = [k.shape[1] for _, k, _ in seqs]
    hk, d, dtype = seqs[0][1].shape[2], seqs[0][1].shape[3], seqs[0][1].dtype
    if layout == "varlen":
        k = torch.cat([k[0] for _, k, _ in seqs])
        v = torch.cat([v[0] for _, _, v in seqs])
        return k, v, dict(cu_seqlens_k=_cu(lens_k), seqused_k=None)
    seqused = torch.tensor(lens_k, dtype=torch.int32, device="cuda")
    if layout == "cache":
        rows = len(seqs) + 2  # two cache rows no sequence uses
        slots = max(lens_k) + 5  # stale slots past every sequence
        kc = torch.full((rows, slots, hk, d), NAN, dtype=dtype, device="cuda")
        vc = torch.full_like(kc, NAN)
        idx = torch.randperm(rows, generator=g)[: len(seqs)]
        for b, (_, k, v) in enumerate(seqs):
            kc[idx[b], : k.shape[1]] = k[0]
            vc[idx[b], : v.shape[1]] = v[0]
        return kc, vc, dict(cu_seqlens_k=None, seqused_k=seqused, cache_batch_idx=idx.to("cuda", torch.int32))
    assert layout == "paged"
    pages = [-(-n // page) for n in lens_k]
    num_blocks = sum(pages) + 3  # unused blocks, NaN
    perm = torch.randperm(num_blocks, generator=g)
    max_blocks = max(max(pages), 1) + 1
    table = torch.full((len(seqs), max_blocks), -1, dtype=torch.int32)  # entries past a sequence: a NaN block
    kc = torch.full((num_blocks, page, hk, d), NAN, dtype=dtype, device="cuda")
    vc = torch.full_like(kc, NAN)
    nxt = 0
    used = set()
    for b, (_, k, v) in enumerate(seqs):
        for j in range(pages[b]):
            blk = int(perm[nxt])
            nxt += 1
            used.add(blk)
            table[b, j] = blk
            n = min(page, k.shape[1] - j * page)
            kc[blk, :n] = k[0, j * page: j * page + n]
            vc[blk, :n] = v[0, j * page: j * page + n]
    spare = [i for i in range(num_blocks) if i not in used]
    table[table < 0] = spare[-1]
    return kc, vc, dict(cu_seqlens_k=None, seqused_k=seqused, block_table=table.to("cuda"))


def _forward(seqs, layout, args, page=16, num_splits=1, seed=0):
    lens_q = [q.shape[1] for q, _, _ in seqs]
    lens_k = [k.shape[1] for _, k, _ in seqs]
    q = _pack_q(seqs)
    k, v, fields = _layout(seqs, layout, page, seed)
    seq = SeqArgs(cu_seqlens_q=_cu(lens_q), max_seqlen_q=max(lens_q), max_seqlen_k=max(max(lens_k), 1),
                  num_splits=num_splits, **fields)
    out, lse = compiled.varlen_forward(gpu_platform(), q, k, v, seq, args)
    torch.cuda.synchronize()
    return out, lse, (q, k, v, seq)


def _check_forward(lens_q, lens_k, h=4, hk=2, d=64, dtype="fp16", causal=False, window=(-1, -1), layout="varlen",
                   page=16, num_splits=1, softcap=0.0, alibi=None, seed=0):
    dt = DTYPES[dtype]
    seqs = _sequences(lens_q, lens_k, h, hk, d, dt, seed)
    args = fwd_args(d, causal, window, softcap, alibi)
    out, lse, _ = _forward(seqs, layout, args, page, num_splits, seed)
    assert out.shape == (sum(lens_q), h, d) and lse.shape == (h, sum(lens_q))
    r0 = 0
    for b, (q, k, v) in enumerate(seqs):
        sq = q.shape[1]
        what = (f"{layout} seq {b} sq{sq} sk{k.shape[1]} h{h}/{hk} d{d} {dtype} causal={causal} window={window} "
                f"page={page} splits={num_splits}")
        assert_close_to_reference(out[r0:r0 + sq].unsqueeze(0), lse[:, r0:r0 + sq].unsqueeze(0), q, k, v, args, what)
        r0 += sq
    return out, lse


UNEVEN = ([5, 0, 17, 1, 64, 33], [40, 7, 17, 0, 130, 1])  # empty q, empty k, sq > sk, sq < sk


@pytest.mark.parametrize("dtype", ["fp16", "bf16", "fp32"])
@pytest.mark.parametrize("causal", [False, True])
def test_varlen_uneven_and_empty(dtype, causal):
    _check_forward(*UNEVEN, dtype=dtype, causal=causal)


@pytest.mark.parametrize("window", [(8, 0), (3, 5), (0, -1), (-1, 2)])
def test_varlen_windows(window):
    _check_forward([70, 1, 129], [65, 300, 129], window=window, dtype="bf16")


@pytest.mark.parametrize("ratio", [1, 4, 8])
def test_varlen_gqa_headdims(ratio):
    for d in (40, 128, 256):
        _check_forward([33, 100], [200, 64], h=8, hk=8 // ratio, d=d, causal=True, dtype="fp16")


def test_varlen_softcap_alibi():
    slopes = torch.rand(4, device="cuda") * 0.5
    _check_forward([20, 65], [77, 65], softcap=30.0, alibi=slopes, causal=True)


@pytest.mark.parametrize("layout", ["cache", "paged"])
@pytest.mark.parametrize("num_splits", [1, 0, 3])
def test_cache_prefill_and_decode(layout, num_splits):
    _check_forward([1, 1, 1, 1], [1, 300, 1000, 17], h=8, hk=2, d=128, dtype="bf16", layout=layout,
                   num_splits=num_splits)
    _check_forward([40, 3, 70], [300, 1000, 70], h=8, hk=2, d=64, dtype="fp16", causal=True, layout=layout,
                   num_splits=num_splits)


@pytest.mark.parametrize("page", list(range(16, 257, 16)))
def test_paged_every_page_size(page):
    """Every page size in the rule (multiples of 16 up to 256), shuffled table, NaN in unused blocks."""
    _check_forward([1, 1, 1], [page - 1, 3 * page + 5, 1], h=8, hk=2, d=128, dtype="bf16", layout="paged", page=page,
                   num_splits=0, seed=page)
    if page in (16, 48, 256):
        _check_forward([9, 2], [page + 3, 2 * page], h=4, hk=4, d=64, dtype="fp16", causal=True, layout="paged",
                       page=page, seed=page + 1)


@pytest.mark.parametrize("seqlen_q", [2, 3, 5, 8])
@pytest.mark.parametrize("layout", ["cache", "paged"])
def test_speculative_decoding(seqlen_q, layout):
    """seqlen_q 2-8 new tokens against a cache, causal (bottom-right: the last query sees every key)."""
    _check_forward([seqlen_q] * 3, [seqlen_q, 500, 4097], h=32, hk=8, d=128, dtype="bf16", causal=True, layout=layout,
                   num_splits=0)


@pytest.mark.parametrize("num_splits", [1, 2, 7, 64])
def test_split_counts_and_window_decode(num_splits):
    _check_forward([1, 4], [5000, 999], h=16, hk=4, d=128, dtype="fp16", layout="paged", num_splits=num_splits,
                   window=(300, 0))
    _check_forward([1, 1], [5000, 0], h=16, hk=16, d=64, dtype="bf16", layout="cache", num_splits=num_splits)


def test_long_cache_128k():
    _check_forward([1, 1], [131072, 70000], h=32, hk=8, d=128, dtype="bf16", layout="paged", page=256, num_splits=0)
    _check_forward([1], [131072], h=32, hk=8, d=128, dtype="bf16", layout="cache", num_splits=0)


def test_decode_is_bitwise_deterministic():
    seqs = _sequences([1] * 3, [20000, 333, 4096], 32, 8, 128, torch.bfloat16, 0)
    args = fwd_args(128)
    first = _forward(seqs, "paged", args, 16, 0)[:2]
    for _ in range(3):
        again = _forward(seqs, "paged", args, 16, 0)[:2]
        assert all(torch.equal(a, b) for a, b in zip(first, again))


def test_split_fused_combine_and_inflight(monkeypatch):
    """The tensor-core split kernel's switches (rocflash/backends/splitkv_env.py; no effect on the vector kernel):
    ROCFLASH_SPLITKV_FUSED_COMBINE=1 (the last block of a slot combines) within fp64 tolerance on split decode,
    several row chunks (speculative rows x GQA group > 16) and windows, and bitwise repeatable; two tiles in flight
    per warp (ROCFLASH_SPLITKV_INFLIGHT=2, the default before dec9) and plain launches (ROCFLASH_SPLITKV_PDL=0)
    change no bit of the output."""
    monkeypatch.setenv(compiled.SPLITKV_FUSED_COMBINE_ENV, "1")
    for layout in ("cache", "paged"):
        _check_forward([1, 1, 1, 1], [1, 300, 1000, 17], h=8, hk=2, d=128, dtype="bf16", layout=layout, num_splits=3)
    _check_forward([5, 5, 5], [5, 500, 4097], h=32, hk=8, d=128, dtype="bf16", causal=True, layout="paged", num_splits=3)
    _check_forward([1, 4], [5000, 999], h=16, hk=4, d=128, dtype="fp16", layout="paged", num_splits=7, window=(300, 0))
    _check_forward([1, 1], [5000, 0], h=16, hk=16, d=64, dtype="bf16", layout="cache", num_splits=64)
    seqs = _sequences([1] * 3, [20000, 333, 4096], 32, 8, 128, torch.bfloat16, 0)
    args = fwd_args(128)
    fused = _forward(seqs, "paged", args, 16, 0)[:2]
    for _ in range(3):
        assert all(torch.equal(a, b) for a, b in zip(fused, _forward(seqs, "paged", args, 16, 0)[:2]))
    monkeypatch.delenv(compiled.SPLITKV_FUSED_COMBINE_ENV)
    base = _forward(seqs, "paged", args, 16, 0)[:2]
    for name, value in ((compiled.SPLITKV_INFLIGHT_ENV, "2"), (compiled.SPLITKV_PDL_ENV, "0")):
        monkeypatch.setenv(name, value)
        assert all(torch.equal(a, b) for a, b in zip(base, _forward(seqs, "paged", args, 16, 0)[:2])), name
        monkeypatch.delenv(name)


def test_split_heuristic_choices():
    """The heuristic's choices on the benchmark's H200-sized problems (recorded in perf/RESULTS.md)."""
    cus = torch.cuda.get_device_properties(0).multi_processor_count
    for batch, sk in [(1, 4096), (1, 16384), (1, 131072), (8, 16384), (32, 16384), (32, 131072)]:
        n = splitkv.num_splits_heuristic(batch, 8, 1, sk, cus)
        assert 1 <= n <= splitkv.MAX_SPLITS and sk // n >= min(sk, splitkv.MIN_KEYS_PER_SPLIT)


# ------------------------------------------------------------------------------------------- backward
def _check_backward(lens_q, lens_k, h=4, hk=2, d=64, dtype="fp16", causal=False, window=(-1, -1), seed=0):
    dt = DTYPES[dtype]
    seqs = _sequences(lens_q, lens_k, h, hk, d, dt, seed)
    args = fwd_args(d, causal, window)
    out, lse, (q, k, v, seq) = _forward(seqs, "varlen", args)
    g = torch.Generator().manual_seed(seed + 7)
    dout = torch.randn(out.shape, generator=g).to("cuda", dt)
    dq, dk, dv = compiled.varlen_backward(gpu_platform(), q, k, v, out, lse, dout, seq, args)
    torch.cuda.synchronize()
    rq = rk = 0
    for b, (qb, kb, vb) in enumerate(seqs):
        sq, sk = qb.shape[1], kb.shape[1]
        grads = (dq[rq:rq + sq].unsqueeze(0), dk[rk:rk + sk].unsqueeze(0), dv[rk:rk + sk].unsqueeze(0))
        assert_grads_close(grads, qb, kb, vb, dout[rq:rq + sq].unsqueeze(0), args,
                           f"varlen bwd seq {b} sq{sq} sk{sk} h{h}/{hk} d{d} {dtype} causal={causal} window={window}")
        rq, rk = rq + sq, rk + sk


@pytest.mark.parametrize("dtype", ["fp16", "bf16"])
@pytest.mark.parametrize("causal", [False, True])
def test_varlen_backward(dtype, causal):
    _check_backward(*UNEVEN, dtype=dtype, causal=causal)


def test_varlen_backward_gqa_window():
    _check_backward([65, 130], [200, 64], h=8, hk=2, d=128, window=(32, 4))


@pytest.mark.parametrize("dtype", ["fp16", "bf16"])
def test_varlen_backward_at_large_scale(dtype):
    """Peaked ALiBi rows at softmax_scale 15 and 50 (the 16-bit backward range end) through flash_attn_varlen_func: the forward kernel writes
    the softmax stats and the fp32 O, the backward's preprocess reads it (D from the unrounded O)."""
    import rocflash
    lens_q, lens_k = [33, 1, 70], [40, 20, 65]
    seqs = _sequences(lens_q, lens_k, 4, 2, 64, DTYPES[dtype], 3)
    q, (k, v, _) = _pack_q(seqs), _layout(seqs, "varlen")
    slopes = (torch.rand(4, generator=torch.Generator().manual_seed(4)) * 2).cuda()
    dout = torch.randn(q.shape, generator=torch.Generator().manual_seed(5)).to("cuda", DTYPES[dtype])
    for scale in (15.0, 50.0):
        leaves = [x.clone().requires_grad_() for x in (q, k, v)]
        out = rocflash.flash_attn_varlen_func(*leaves, _cu(lens_q), _cu(lens_k), max(lens_q), max(lens_k),
                                              causal=True, softmax_scale=scale, alibi_slopes=slopes,
                                              backend=gpu_platform())
        out.backward(dout)
        args = fwd_args(64, True, softmax_scale=scale, alibi_slopes=slopes)
        rq = rk = 0
        for b, (qb, kb, vb) in enumerate(seqs):
            sq, sk = qb.shape[1], kb.shape[1]
            grads = tuple(x.grad[r:r + n].unsqueeze(0) for x, r, n in zip(leaves, (rq, rk, rk), (sq, sk, sk)))
            assert_grads_close(grads, qb, kb, vb, dout[rq:rq + sq].unsqueeze(0), args,
                               f"varlen {dtype} scale {scale} seq {b}")
            rq, rk = rq + sq, rk + sk
