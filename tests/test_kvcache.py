"""flash_attn_with_kvcache on the CPU backends against fp64: in-place append with stale NaN slots, every page
size of the rule with shuffled block tables and NaN in unused blocks, cache_batch_idx, speculative decoding,
a 128k cache, split-KV decode and its LSE, rotary embeddings, and every error path (raised before the cache
is touched)."""

from __future__ import annotations

import math

import pytest
import torch

import rocflash
import rocflash.backends.reference as reference
import rocflash.backends.sim as sim
from conftest import assert_close_to_reference, fwd_args
from rocflash import splitkv
from rocflash.varlen import PAGE_SIZES

BACKENDS = ["sim", "torch"]
NAN = float("nan")


def make_cache(rows, seqlen_cache, nheads_k, headdim, lens, dtype=torch.float16, seed=0):
    """Dense k/v caches: rows [0, lens[r]) random, every other slot NaN (stale garbage)."""
    g = torch.Generator().manual_seed(seed)
    caches = []
    for _ in range(2):
        c = torch.full((rows, seqlen_cache, nheads_k, headdim), NAN, dtype=dtype)
        for r, n in enumerate(lens):
            c[r, :n] = torch.randn(n, nheads_k, headdim, generator=g).to(dtype)
        caches.append(c)
    return caches


def rand(shape, seed, dtype=torch.float16):
    return torch.randn(shape, generator=torch.Generator().manual_seed(seed)).to(dtype)


def check_against_fp64(out, lse, q, keys, values, args, what):
    """keys[b], values[b]: the (seqlen_k_b, nheads_k, headdim) keys sequence b must see."""
    assert out.shape == q.shape and lse.shape == (q.shape[0], q.shape[2], q.shape[1])
    for b in range(q.shape[0]):
        assert_close_to_reference(out[b:b + 1], lse[b:b + 1], q[b:b + 1], keys[b][None], values[b][None], args,
                                  f"{what} seq {b}")


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("seqlen_new,causal,as_int", [(1, True, False), (3, True, True), (2, False, False)])
def test_append_in_place_with_stale_nan_slots(backend, seqlen_new, causal, as_int):
    lens = [40] * 3 if as_int else [0, 17, 64]
    k_cache, v_cache = make_cache(3, 80, 2, 32, lens)
    before_k, before_v = k_cache.clone(), v_cache.clone()
    q, k, v = rand((3, seqlen_new, 4, 32), 1), rand((3, seqlen_new, 2, 32), 2), rand((3, seqlen_new, 2, 32), 3)
    seqlens = 40 if as_int else torch.tensor(lens, dtype=torch.int32)
    ptr = k_cache.data_ptr()
    out, lse = rocflash.flash_attn_with_kvcache(q, k_cache, v_cache, k, v, cache_seqlens=seqlens, causal=causal,
                                                return_softmax_lse=True, backend=backend)
    assert k_cache.data_ptr() == ptr  # the caller's tensor, in place
    for b, n in enumerate(lens):  # the new tokens landed at [n, n + seqlen_new); nothing else changed
        assert torch.equal(k_cache[b, n:n + seqlen_new], k[b]) and torch.equal(v_cache[b, n:n + seqlen_new], v[b])
        before_k[b, n:n + seqlen_new], before_v[b, n:n + seqlen_new] = k[b], v[b]
    assert torch.equal(k_cache.isnan(), before_k.isnan()) and torch.equal(k_cache.nan_to_num(), before_k.nan_to_num())
    assert torch.equal(v_cache.nan_to_num(), before_v.nan_to_num())
    keys = [k_cache[b, :n + seqlen_new] for b, n in enumerate(lens)]
    values = [v_cache[b, :n + seqlen_new] for b, n in enumerate(lens)]
    check_against_fp64(out, lse, q, keys, values, fwd_args(32, causal), f"{backend} append")


def _paged_copy(k_cache, v_cache, lens, page, seed, spare=2):
    """The dense caches' first lens[b] (+ room) slots scattered into a shuffled pool of pages; the rest NaN."""
    need = [-(-n // page) for n in lens]
    width = max(need)
    num_blocks = sum(need) + spare
    perm = torch.randperm(num_blocks, generator=torch.Generator().manual_seed(seed)).tolist()
    shape = (num_blocks, page) + tuple(k_cache.shape[2:])
    kp, vp = torch.full(shape, NAN, dtype=k_cache.dtype), torch.full(shape, NAN, dtype=k_cache.dtype)
    table = torch.full((len(lens), width), -1, dtype=torch.int32)  # unused entries: invalid block ids
    it = iter(perm)
    for b, n in enumerate(lens):
        for p in range(need[b]):
            blk = next(it)
            table[b, p] = blk
            m = min(page, k_cache.shape[1] - p * page)
            kp[blk, :m], vp[blk, :m] = k_cache[b, p * page:p * page + m], v_cache[b, p * page:p * page + m]
    return kp, vp, table


def _gather(pages, table, b, n):
    page = pages.shape[1]
    return pages[table[b, :-(-n // page)].long()].flatten(0, 1)[:n]


@pytest.mark.parametrize("backend,page", [("torch", p) for p in PAGE_SIZES] + [("sim", p) for p in (16, 48, 128, 256)])
def test_paged_every_page_size_equals_dense(backend, page):
    """Every page size of the rule (sampled on the sim): shuffled block table, NaN in unused blocks and slots.
    The paged call appends through the block table and equals the dense-cache call bit for bit."""
    lens, new = [5, 0, 290], 2
    k_cache, v_cache = make_cache(3, 300, 2, 16, lens, seed=page)
    kp, vp, table = _paged_copy(k_cache, v_cache, [n + new for n in lens], page, seed=page)
    q, k, v = rand((3, new, 4, 16), 4), rand((3, new, 2, 16), 5), rand((3, new, 2, 16), 6)
    seqlens = torch.tensor(lens, dtype=torch.int32)
    ref = rocflash.flash_attn_with_kvcache(q, k_cache, v_cache, k, v, cache_seqlens=seqlens, causal=True,
                                           return_softmax_lse=True, backend=backend)
    out = rocflash.flash_attn_with_kvcache(q, kp, vp, k, v, cache_seqlens=seqlens, block_table=table, causal=True,
                                           return_softmax_lse=True, backend=backend)
    assert torch.equal(out[0], ref[0]) and torch.equal(out[1], ref[1])
    for b, n in enumerate(lens):
        assert torch.equal(_gather(kp, table, b, n + new), k_cache[b, :n + new])
        assert torch.equal(_gather(vp, table, b, n + new), v_cache[b, :n + new])


@pytest.mark.parametrize("backend,page", [("torch", p) for p in (16, 32, 64, 128, 256)] + [("sim", 16)])
def test_paged_c18(backend, page):
    """Paged decode with nheads 32 / nheads_k 8 and cache_seqlens {1, 17, 1000}: equals the gathered contiguous
    result, within tolerance of fp64."""
    lens = [1, 17, 1000]
    k_cache, v_cache = make_cache(3, 1008, 8, 32, lens, seed=11)
    kp, vp, table = _paged_copy(k_cache, v_cache, [n + 1 for n in lens], page, seed=12)
    q, k, v = rand((3, 1, 32, 32), 7), rand((3, 1, 8, 32), 8), rand((3, 1, 8, 32), 9)
    out, lse = rocflash.flash_attn_with_kvcache(q, kp, vp, k, v, cache_seqlens=torch.tensor(lens, dtype=torch.int32),
                                                block_table=table, causal=True, return_softmax_lse=True, backend=backend)
    keys = [_gather(kp, table, b, n + 1) for b, n in enumerate(lens)]
    values = [_gather(vp, table, b, n + 1) for b, n in enumerate(lens)]
    for b, n in enumerate(lens):
        assert torch.equal(keys[b][:n], k_cache[b, :n]) and torch.equal(keys[b][n], k[b, 0])
    check_against_fp64(out, lse, q, keys, values, fwd_args(32, True), f"{backend} C18 page {page}")
    dense = rocflash.flash_attn_with_kvcache(q, k_cache, v_cache, k, v, cache_seqlens=torch.tensor(lens, dtype=torch.int32),
                                             causal=True, return_softmax_lse=True, backend=backend)
    assert torch.equal(dense[0], out) and torch.equal(dense[1], lse)  # the gathered contiguous result


def test_page_size_rule_c18():
    k_cache, v_cache = make_cache(4, 24, 2, 16, [0] * 4)
    q = rand((1, 1, 4, 16), 0)
    table = torch.zeros(1, 2, dtype=torch.int32)
    for bad in (8, 24, 100, 512):
        kp = torch.zeros(4, bad, 2, 16, dtype=torch.float16)
        with pytest.raises(ValueError, match=r"page_block_size .* must be a multiple of 16 from 16 to 256 "
                                             rf"\(16, 32, 48, \.\.\., 256\), got {bad}"):
            rocflash.flash_attn_with_kvcache(q, kp, kp.clone(), cache_seqlens=1, block_table=table, backend="sim")


@pytest.mark.parametrize("backend", BACKENDS)
def test_cache_batch_idx(backend):
    lens = [7, 0, 30, 12, 50]
    k_cache, v_cache = make_cache(5, 64, 1, 16, lens)
    before = k_cache.clone()
    idx = torch.tensor([4, 0, 2], dtype=torch.int32)
    q, k, v = rand((3, 2, 2, 16), 1), rand((3, 2, 1, 16), 2), rand((3, 2, 1, 16), 3)
    seqlens = torch.tensor([lens[i] for i in idx.tolist()], dtype=torch.int32)
    out, lse = rocflash.flash_attn_with_kvcache(q, k_cache, v_cache, k, v, cache_seqlens=seqlens, cache_batch_idx=idx,
                                                causal=True, return_softmax_lse=True, backend=backend)
    for r in (1, 3):  # rows no sequence uses are untouched
        assert torch.equal(k_cache[r].nan_to_num(), before[r].nan_to_num())
    keys = [k_cache[r, :lens[r] + 2] for r in idx.tolist()]
    values = [v_cache[r, :lens[r] + 2] for r in idx.tolist()]
    assert all(torch.equal(kb[-2:], k[b]) for b, kb in enumerate(keys))
    check_against_fp64(out, lse, q, keys, values, fwd_args(16, True), f"{backend} cache_batch_idx")


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("seqlen_q", [2, 5, 8])
def test_speculative_decoding(backend, seqlen_q):
    """seqlen_q draft tokens appended and verified at once: causal, bottom-right aligned against the cache."""
    lens = [0, 33, 100]
    k_cache, v_cache = make_cache(3, 128, 2, 32, lens, seed=seqlen_q)
    q, k, v = rand((3, seqlen_q, 8, 32), 1), rand((3, seqlen_q, 2, 32), 2), rand((3, seqlen_q, 2, 32), 3)
    out, lse = rocflash.flash_attn_with_kvcache(q, k_cache, v_cache, k, v, cache_seqlens=torch.tensor(lens, dtype=torch.int32),
                                                causal=True, return_softmax_lse=True, backend=backend)
    keys = [k_cache[b, :n + seqlen_q] for b, n in enumerate(lens)]
    values = [v_cache[b, :n + seqlen_q] for b, n in enumerate(lens)]
    check_against_fp64(out, lse, q, keys, values, fwd_args(32, True), f"{backend} speculative {seqlen_q}")
    # the last draft row sees every key, the first one all but seqlen_q - 1 of them
    full = rocflash.flash_attn_with_kvcache(q[:, :1], k_cache, v_cache, cache_seqlens=torch.tensor(lens, dtype=torch.int32)
                                            + 1, backend=backend)
    assert torch.equal(out[:, :1], full) or (out[:, :1] - full).abs().max().item() < 2e-3


@pytest.mark.parametrize("backend", ["torch"])  # the sim visits 2048 tiles in Python: ~80 s, too slow for CI
def test_long_cache_128k(backend):
    """A 131072-key cache, small heads, one decode token (on the sim, num_splits=0 splits it)."""
    n = 131071
    k_cache, v_cache = make_cache(1, 131072, 1, 16, [n], seed=13)
    q, k, v = rand((1, 1, 2, 16), 1), rand((1, 1, 1, 16), 2), rand((1, 1, 1, 16), 3)
    trace = sim.SplitTrace()
    if backend == "sim":  # record the split count the heuristic picked
        real = sim.varlen_forward
        sim_call = lambda *a, **kw: real(*a, trace=trace, **kw)
    with pytest.MonkeyPatch.context() as mp:
        if backend == "sim":
            mp.setattr(sim, "varlen_forward", sim_call)
        out, lse = rocflash.flash_attn_with_kvcache(q, k_cache, v_cache, k, v, cache_seqlens=n, causal=True,
                                                    return_softmax_lse=True, backend=backend)
    check_against_fp64(out, lse, q, [k_cache[0]], [v_cache[0]], fwd_args(16, True), f"{backend} 128k")
    if backend == "sim":
        assert trace.num_splits > 1 and {s[1] for s in trace.splits} == set(range(trace.num_splits))


@pytest.mark.parametrize("num_splits", [0, 1, 3])
def test_split_kv_decode_lse_against_fp64(num_splits):
    """Decode (seqlen_q 1) with split-KV on the sim: each split visits the keys of splitkv.split_bounds (cut by
    the causal mask), out and LSE within tolerance of fp64, and bitwise identical across calls."""
    lens = [700, 90, 0]
    k_cache, v_cache = make_cache(3, 768, 2, 32, lens, seed=14)
    q = rand((3, 1, 4, 32), 15)
    seqlens = torch.tensor(lens, dtype=torch.int32)
    trace = sim.SplitTrace()
    real = sim.varlen_forward
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(sim, "varlen_forward", lambda *a, **kw: real(*a, trace=trace, **kw))
        out, lse = rocflash.flash_attn_with_kvcache(q, k_cache, v_cache, cache_seqlens=seqlens, causal=True,
                                                    num_splits=num_splits, return_softmax_lse=True, backend="sim")
    keys, values = [k_cache[b, :n] for b, n in enumerate(lens)], [v_cache[b, :n] for b, n in enumerate(lens)]
    check_against_fp64(out[:2], lse[:2], q[:2], keys, values, fwd_args(32, True), f"splits {num_splits}")
    assert bool((out[2] == 0).all()) and bool(torch.isneginf(lse[2]).all())  # empty cache: no keys
    expected = {0: trace.num_splits, 1: 1, 3: 3}[num_splits]
    assert trace.split_kernel and trace.num_splits == expected and (num_splits != 0 or trace.num_splits > 1)
    cfg = sim.select_config("fwd_splitkv", "gfx9", "fp16", 32)
    for b, split, keys, t in trace.splits:
        assert keys == splitkv.split_bounds(lens[b], max(lens), trace.num_splits, cfg.block_n)[split]
        assert t.config == cfg
        assert all(keys[0] <= tile * cfg.block_n < keys[1] for _, visited in t.blocks for tile, _ in visited)
    again = rocflash.flash_attn_with_kvcache(q, k_cache, v_cache, cache_seqlens=seqlens, causal=True,
                                             num_splits=num_splits, return_softmax_lse=True, backend="sim")
    assert torch.equal(again[0], out) and torch.equal(again[1], lse)


# ---------------------------------------------------------------- rotary
def rotary_reference(x, cos, sin, positions, interleaved):
    """Independent formulation: complex multiplication by e^{i theta} (interleaved pairs), or rotate-half."""
    x = x.double()
    half = cos.shape[1]
    c, s = cos.double()[positions][:, :, None], sin.double()[positions][:, :, None]
    r = x[..., :2 * half]
    if interleaved:
        z = torch.view_as_complex(r.reshape(*r.shape[:-1], half, 2).contiguous()) * torch.complex(c, s)
        r = torch.view_as_real(z).flatten(-2)
    else:
        rotated_half = torch.cat((-r[..., half:], r[..., :half]), dim=-1)
        r = r * torch.cat((c, c), -1) + rotated_half * torch.cat((s, s), -1)
    return torch.cat((r, x[..., 2 * half:]), -1)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("interleaved", [True, False])
@pytest.mark.parametrize("causal", [True, False])
def test_rotary(backend, interleaved, causal):
    lens, new, d, rdim = [3, 20], 2, 32, 16
    k_cache, v_cache = make_cache(2, 32, 1, d, lens, dtype=torch.float32)
    q, k, v = (rand((2, new, 2, d), 1, torch.float32), rand((2, new, 1, d), 2, torch.float32),
               rand((2, new, 1, d), 3, torch.float32))
    theta = torch.arange(40, dtype=torch.float64)[:, None] * 10000 ** (-torch.arange(rdim // 2) / (rdim // 2))
    cos, sin = theta.cos().float(), theta.sin().float()
    seqlens = torch.tensor(lens, dtype=torch.int32)
    out, lse = rocflash.flash_attn_with_kvcache(q, k_cache, v_cache, k, v, cos, sin, cache_seqlens=seqlens,
                                                causal=causal, rotary_interleaved=interleaved,
                                                return_softmax_lse=True, backend=backend)
    pos_k = seqlens.long()[:, None] + torch.arange(new)
    pos_q = pos_k if causal else seqlens.long()[:, None].expand(2, new)
    k_rot = rotary_reference(k, cos, sin, pos_k, interleaved)
    q_rot = rotary_reference(q, cos, sin, pos_q, interleaved)
    for b, n in enumerate(lens):
        assert (k_cache[b, n:n + new].double() - k_rot[b]).abs().max().item() < 1e-5  # rotated k was stored
        assert torch.equal(v_cache[b, n:n + new], v[b])  # v is never rotated
    keys = [k_cache[b, :n + new] for b, n in enumerate(lens)]
    values = [v_cache[b, :n + new] for b, n in enumerate(lens)]
    check_against_fp64(out, lse, q_rot.float(), keys, values, fwd_args(d, causal), f"{backend} rotary")
    plain = rocflash.flash_attn_with_kvcache(q, k_cache, v_cache, cache_seqlens=seqlens + new, causal=causal,
                                             backend=backend)
    assert (plain - out).abs().max().item() > 1e-3  # q was rotated


# ---------------------------------------------------------------- empty and error paths
@pytest.mark.parametrize("backend", BACKENDS)
def test_empty_calls(backend):
    k_cache, v_cache = make_cache(2, 16, 1, 8, [3, 0], dtype=torch.float32)
    out = rocflash.flash_attn_with_kvcache(torch.zeros(2, 0, 2, 8), k_cache, v_cache, cache_seqlens=3, backend=backend)
    assert out.shape == (2, 0, 2, 8)
    out, lse = rocflash.flash_attn_with_kvcache(torch.ones(2, 1, 2, 8), k_cache, v_cache, cache_seqlens=0,
                                                return_softmax_lse=True, backend=backend)
    assert bool((out == 0).all()) and bool(torch.isneginf(lse).all())


def _errors():
    """(kwargs overriding a valid dense call, exception, message regex)."""
    i32 = lambda *x: torch.tensor(x, dtype=torch.int32)
    k_new = torch.zeros(2, 1, 1, 8)
    return [
        (dict(q=torch.zeros(2, 4, 8)), ValueError, r"q must have 4 dimensions \(batch, seqlen_q, nheads, headdim\)"),
        (dict(k_cache="x"), TypeError, "k_cache must be a torch.Tensor"),
        (dict(v_cache=torch.zeros(2, 10, 1, 8)), ValueError, "k_cache and v_cache must have the same shape"),
        (dict(k_cache=torch.zeros(2, 16, 1, 8, dtype=torch.float16), v_cache=torch.zeros(2, 16, 1, 8, dtype=torch.float16)),
         TypeError, "k_cache must have q's dtype torch.float32"),
        (dict(cache_leftpad=i32(0, 0)), NotImplementedError, "cache_leftpad .* not implemented"),
        (dict(k=k_new), ValueError, "k and v must be given together"),
        (dict(k=torch.zeros(2, 1, 2, 8), v=torch.zeros(2, 1, 2, 8)), ValueError, r"k must have shape \(batch, seqlen_new, nheads_k, headdim\)=\(2, seqlen_new, 1, 8\)"),
        (dict(k=k_new.half(), v=k_new.half()), TypeError, "k must have q's dtype"),
        (dict(cache_seqlens=i32(1, 2).long()), ValueError, "cache_seqlens must have dtype torch.int32, got torch.int64"),
        (dict(cache_seqlens=i32(1, 2, 3)), ValueError, r"cache_seqlens must have shape \(batch,\)=\(2,\), got \(3,\)"),
        (dict(cache_seqlens=2.0), TypeError, "cache_seqlens must be an int, an int32 tensor"),
        (dict(cache_seqlens=i32(-1, 0)), ValueError, r"^cache_seqlens\[0\] must be >= 0 \(keys already in the cache\), got -1$"),
        (dict(cache_seqlens=i32(0, -1), k=k_new, v=k_new), ValueError,  # -1 + 1 = 0 is within the capacity
         r"^cache_seqlens\[1\] must be >= 0 \(keys already in the cache\), got -1$"),
        (dict(cache_seqlens=-3), ValueError, r"^cache_seqlens\[0\] must be >= 0 \(keys already in the cache\), got -3$"),
        (dict(cache_seqlens=i32(3, 16), k=k_new, v=k_new), ValueError,
         r"cache_seqlens\[1\] \+ seqlen_new must be in \[0, seqlen_cache \(k_cache dimension 1\) = 16\], got 16 \+ 1"),
        (dict(cache_seqlens=None, k=k_new, v=k_new), ValueError, "cache_seqlens must be given when k, v are appended"),
        (dict(cache_batch_idx=i32(0, 5)), ValueError, r"cache_batch_idx must index rows of k_cache in \[0, 2\), got 5"),
        (dict(cache_batch_idx=i32(0, 0), k=k_new, v=k_new), ValueError, "cache_batch_idx must hold distinct rows"),
        (dict(cache_batch_idx=torch.tensor([0, 1])), ValueError, "cache_batch_idx must have dtype torch.int32"),
        (dict(q=torch.zeros(3, 1, 2, 8)), ValueError, "k_cache must have q's batch size 3"),
        (dict(num_splits=-1), ValueError, r"num_splits must be an int in \[0, 128\] \(0 = heuristic, 1 = no split\), got -1"),
        (dict(num_splits=True), ValueError, r"num_splits must be an int in \[0, 128\]"),
        (dict(num_splits=2000), ValueError, r"num_splits must be an int in \[0, 128\] .*got 2000"),
        (dict(rotary_interleaved=0), TypeError, "rotary_interleaved must be a bool, got 0"),
        (dict(q=torch.zeros(2, 1, 2, 8, requires_grad=True)), NotImplementedError,
         r"flash_attn_with_kvcache is forward only .*torch.no_grad\(\)"),
        (dict(rotary_cos=torch.zeros(20, 4)), ValueError, "rotary_cos and rotary_sin must be given together"),
        (dict(rotary_cos=torch.zeros(20, 4), rotary_sin=torch.zeros(20, 4)), ValueError, "rotary_cos / rotary_sin need the new tokens k, v"),
        (dict(rotary_cos=torch.zeros(20, 5), rotary_sin=torch.zeros(20, 5), k=k_new, v=k_new), ValueError,
         r"rotary_dim = 2 \* rotary_cos.shape\[1\] must be in \[2, headdim=8\], got 10"),
        (dict(rotary_cos=torch.zeros(3, 4), rotary_sin=torch.zeros(3, 4), k=k_new, v=k_new), ValueError,
         r"seqlen_ro >= cache_seqlens \+ max\(seqlen_new, seqlen_q\) = 4 rows .*got 3"),
        (dict(rotary_cos=torch.zeros(20, 4), rotary_sin=torch.zeros(20, 3), k=k_new, v=k_new), ValueError,
         "rotary_cos and rotary_sin must have the same shape"),
        (dict(window_size=(-2, 0)), ValueError, "window_size must be a pair of ints >= -1"),
        (dict(causal=True, window_size=(3, 2)), ValueError, "window_size\\[1\\] must be -1 or 0 when causal=True"),
        (dict(softcap=-1.0), ValueError, "softcap must be a finite float >= 0"),
        (dict(alibi_slopes=torch.zeros(3)), ValueError, r"alibi_slopes must have shape \(nheads,\)=\(2,\)"),
        (dict(backend="gpu", k=k_new, v=k_new), ValueError, "backend must be one of"),
        (dict(q=torch.zeros(2, 1, 2, 8, dtype=torch.float64), k_cache=torch.zeros(2, 16, 1, 8, dtype=torch.float64),
              v_cache=torch.zeros(2, 16, 1, 8, dtype=torch.float64), k=k_new.double(), v=k_new.double(), backend="cuda"),
         Exception, "backend 'cuda' runs on GPU tensors|float64 runs on backends"),
        (dict(q=torch.zeros(2, 1, 3, 8), k_cache=torch.zeros(2, 16, 2, 8), v_cache=torch.zeros(2, 16, 2, 8)), ValueError,
         "nheads must be divisible by nheads_k"),
        # the caches' headdim, named as the caches (dec14 new-user pass: it was reported as "k and v")
        (dict(q=torch.zeros(2, 1, 2, 4)), ValueError, r"^k_cache and v_cache must have q's headdim 4 \(their dimension 3\), got 8$"),
    ]


@pytest.mark.parametrize("case", range(len(_errors())))
def test_errors_before_anything_is_written(case, monkeypatch):
    kwargs, exc, msg = _errors()[case]
    monkeypatch.setattr(sim, "varlen_forward", lambda *a, **kw: pytest.fail("launched"))
    k_cache, v_cache = make_cache(2, 16, 1, 8, [3, 3], dtype=torch.float32)
    call = dict(q=torch.zeros(2, 1, 2, 8), k_cache=k_cache, v_cache=v_cache, cache_seqlens=torch.tensor([3, 3], dtype=torch.int32),
                backend="sim")
    call.update(kwargs)
    snapshot = k_cache.clone()
    with pytest.raises(exc, match=msg):
        rocflash.flash_attn_with_kvcache(**call)
    assert torch.equal(k_cache.nan_to_num(), snapshot.nan_to_num())


def test_paged_errors():
    q = torch.zeros(2, 1, 2, 16)
    kp = torch.zeros(6, 16, 1, 16)
    i32 = lambda *rows: torch.tensor(rows, dtype=torch.int32)
    call = lambda **kw: rocflash.flash_attn_with_kvcache(**{**dict(q=q, k_cache=kp, v_cache=kp.clone(), cache_seqlens=20,
                                                                   block_table=i32([0, 1], [2, 3]), backend="sim"), **kw})
    call()  # valid
    with pytest.raises(ValueError, match="block_table must have dtype torch.int32"):
        call(block_table=i32([0, 1], [2, 3]).long())
    with pytest.raises(ValueError, match=r"block_table must have shape \(batch, max_blocks_per_seq\), got \(4,\)"):
        call(block_table=i32(0, 1, 2, 3))
    with pytest.raises(ValueError, match=r"block_table must have shape \(batch, max_blocks_per_seq\)=\(2, 2\), got \(1, 2\)"):
        call(block_table=i32([0, 1]))
    with pytest.raises(ValueError, match=r"block_table\[1, \d+\] must index blocks in \[0, num_blocks=6\) .*got 6"):
        call(block_table=i32([0, 1], [2, 6]))
    call(block_table=i32([0, 1], [2, 3]), cache_seqlens=i32(20, 16))  # [3] unused by sequence 1: its value is free
    call(block_table=i32([0, 1], [2, -7]), cache_seqlens=i32(20, 16))
    with pytest.raises(ValueError, match=r"cache_seqlens\[0\] \+ seqlen_new must be in \[0, max_blocks_per_seq 2 x "
                                         r"page_block_size 16 = 32\], got 32 \+ 1"):
        call(cache_seqlens=32, k=torch.zeros(2, 1, 1, 16), v=torch.zeros(2, 1, 1, 16))
    with pytest.raises(ValueError, match="cache_batch_idx must be None with a paged cache"):
        call(cache_batch_idx=i32(0, 1))
    with pytest.raises(ValueError, match=r"k_cache must have 4 dimensions \(num_blocks, page_block_size"):
        call(k_cache=kp[0])


# ---------------------------------------------------------------- the caller's cache: unchanged on error, no aliasing
def _append_call(backend, **kw):
    """A valid dense append of one token to two sequences holding 3 keys each; kw overrides it."""
    k_cache, v_cache = make_cache(2, 16, 1, 8, [3, 3], dtype=torch.float32)
    call = dict(q=rand((2, 1, 2, 8), 1, torch.float32), k_cache=k_cache, v_cache=v_cache,
                k=rand((2, 1, 1, 8), 2, torch.float32), v=rand((2, 1, 1, 8), 3, torch.float32),
                cache_seqlens=torch.tensor([3, 3], dtype=torch.int32), backend=backend)
    call.update(kw)
    return call


def _bitwise(t):
    return t.view(torch.int32).clone() if t.dtype == torch.float32 else t.view(torch.int16).clone()


@pytest.mark.parametrize("backend", BACKENDS)
def test_inference_tensor_cache_raises_with_cache_unchanged(backend):
    with torch.inference_mode():
        vc = torch.randn(2, 16, 1, 8)
    call = _append_call(backend, v_cache=vc)
    k_before, v_before = _bitwise(call["k_cache"]), _bitwise(vc)
    with pytest.raises(ValueError, match="v_cache must accept in-place writes .* inference tensor"):
        rocflash.flash_attn_with_kvcache(**call)
    assert torch.equal(_bitwise(call["k_cache"]), k_before) and torch.equal(_bitwise(vc), v_before)
    with torch.inference_mode():  # inside inference mode the same call is valid
        kc = torch.randn(2, 16, 1, 8)
        rocflash.flash_attn_with_kvcache(**_append_call(backend, k_cache=kc, v_cache=vc))
        assert torch.equal(kc[:, 3], _append_call(backend)["k"][:, 0])


class _RefusesWrites(torch.Tensor):
    """A cache whose in-place write raises (a failure no up-front check can see)."""
    def index_put_(self, *args, **kwargs):
        raise RuntimeError("this cache refuses writes")


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("paged", [False, True])
def test_failed_v_write_or_attention_restores_the_cache(backend, paged, monkeypatch):
    """The v write raises after k was written, or the attention raises after both: k_cache and v_cache are
    bitwise what they were (NaN garbage included)."""
    call = _append_call(backend)
    if paged:  # the same two sequences in pages of 16: blocks 2 and 0 of 3
        call["k_cache"], call["v_cache"] = call["k_cache"][[1, 1, 0]].clone(), call["v_cache"][[1, 1, 0]].clone()
        call["block_table"] = torch.tensor([[2], [0]], dtype=torch.int32)
    call["v_cache"] = call["v_cache"].as_subclass(_RefusesWrites)
    k_before, v_before = _bitwise(call["k_cache"]), _bitwise(call["v_cache"].as_subclass(torch.Tensor))
    with pytest.raises(RuntimeError, match="this cache refuses writes"):
        rocflash.flash_attn_with_kvcache(**call)
    assert torch.equal(_bitwise(call["k_cache"]), k_before)
    call["v_cache"] = call["v_cache"].as_subclass(torch.Tensor)
    def boom(*a, **kw):  # the attention fails after the append
        assert torch.equal(call["k_cache"][2 if paged else 0, 3], call["k"][0, 0])  # the append did happen
        raise RuntimeError("attention failed")
    monkeypatch.setattr(sim if backend == "sim" else reference, "varlen_forward", boom)
    with pytest.raises(RuntimeError, match="attention failed"):
        rocflash.flash_attn_with_kvcache(**call)
    assert torch.equal(_bitwise(call["k_cache"]), k_before) and torch.equal(_bitwise(call["v_cache"]), v_before)


def _dense_alias_cases():
    """(kwargs overriding _append_call, message regex): caches whose memory aliases."""
    kv = torch.zeros(2, 16, 2, 1, 8)  # k and v interleaved in one buffer: valid (checked below)
    flat = torch.zeros(2 * 16 * 8 + 8)
    shared = lambda: torch.zeros(2, 16, 1, 8)
    same = shared()
    return [
        (dict(k_cache=same, v_cache=same), "k_cache and v_cache must be distinct tensors"),
        (dict(k_cache=flat[:256].view(2, 16, 1, 8), v_cache=flat[8:].view(2, 16, 1, 8)),
         "k_cache and v_cache must not share memory .* offsets 0 and 8"),
        (dict(k_cache=kv[:, :, 0], v_cache=kv[:, :, 0].view(2, 16, 1, 8)), "k_cache and v_cache must not share memory"),
        (dict(k_cache=torch.zeros(2, 1, 1, 8).expand(2, 16, 1, 8)),
         r"k_cache must not have elements sharing memory .* stride 0 on a dimension of size > 1.*stride \(8, 0, 8, 1\)"),
        (dict(v_cache=torch.zeros(1, 16, 1, 8).expand(2, 16, 1, 8)), "v_cache must not have elements sharing memory"),
        # key j and j + 1 share half their memory: strides that do not nest (as_strided)
        (dict(k_cache=torch.zeros(2 * 16 * 8).as_strided((2, 16, 1, 8), (64, 4, 8, 1))),
         r"k_cache must not have elements sharing memory .* strides must nest"),
    ]


def _input_alias_cases():
    """(overrides of _append_call computed from its caches, message regex): q / k / v that are views of a
    cache, which the append would overwrite before they are read."""
    return [
        (lambda c: dict(v=c["k_cache"][:, 3:4]), "v must not share memory with k_cache"),
        (lambda c: dict(k=c["v_cache"][:, 5:6]), "k must not share memory with v_cache"),
        (lambda c: dict(q=c["k_cache"][:, 3:5].view(2, 1, 2, 8)), "q must not share memory with k_cache"),
    ]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", range(len(_input_alias_cases())))
def test_inputs_aliasing_a_cache_rejected_before_any_write(backend, case, monkeypatch):
    make, msg = _input_alias_cases()[case]
    monkeypatch.setattr(sim, "varlen_forward", lambda *a, **kw: pytest.fail("launched"))
    call = _append_call(backend)
    call.update(make(call))
    before = [_bitwise(call[n]) for n in ("k_cache", "v_cache")]
    with pytest.raises(ValueError, match=msg):
        rocflash.flash_attn_with_kvcache(**call)
    assert all(torch.equal(_bitwise(call[n]), b) for n, b in zip(("k_cache", "v_cache"), before))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", range(len(_dense_alias_cases())))
def test_dense_aliasing_rejected_before_any_write(backend, case, monkeypatch):
    kwargs, msg = _dense_alias_cases()[case]
    monkeypatch.setattr(sim, "varlen_forward", lambda *a, **kw: pytest.fail("launched"))
    call = _append_call(backend, **kwargs)
    before = [_bitwise(call[n]) for n in ("k_cache", "v_cache")]
    with pytest.raises(ValueError, match=msg):
        rocflash.flash_attn_with_kvcache(**call)
    assert all(torch.equal(_bitwise(call[n]), b) for n, b in zip(("k_cache", "v_cache"), before))


@pytest.mark.parametrize("backend", BACKENDS)
def test_disjoint_views_of_one_storage_are_valid(backend):
    """k and v interleaved in one buffer (kv[..., 0, :, :], kv[..., 1, :, :]) or back to back: no aliasing; an
    expanded cache is valid when nothing is appended."""
    for k_cache, v_cache in [(lambda kv: (kv[:, :, 0], kv[:, :, 1]))(torch.full((2, 16, 2, 1, 8), NAN)),
                             (lambda f: (f[:256].view(2, 16, 1, 8), f[256:].view(2, 16, 1, 8)))(torch.full((512,), NAN))]:
        k_cache[:, :3], v_cache[:, :3] = rand((2, 3, 1, 8), 4, torch.float32), rand((2, 3, 1, 8), 5, torch.float32)
        call = _append_call(backend, k_cache=k_cache, v_cache=v_cache)
        out = rocflash.flash_attn_with_kvcache(**call)
        assert torch.equal(k_cache[:, 3], call["k"][:, 0]) and torch.equal(v_cache[:, 3], call["v"][:, 0])
        ref = rocflash.flash_attn_with_kvcache(call["q"], k_cache.clone(), v_cache.clone(), cache_seqlens=4,
                                               backend=backend)
        assert torch.equal(out, ref)
    exp = torch.randn(1, 16, 1, 8).expand(2, 16, 1, 8)
    rocflash.flash_attn_with_kvcache(rand((2, 1, 2, 8), 1, torch.float32), exp, exp, cache_seqlens=5, backend=backend)


def _paged_alias_cases():
    """(block_table rows, cache_seqlens, seqlen_new, message regex) over 4 blocks of 16."""
    rule_seq = r"block_table\[{}\] must list distinct blocks in the {} pages .* got block {} twice"
    rule_slot = (r"block_table must not let sequences share a written \(block, slot\) .* sequence {} writes position "
                 r"{} into block {} slot {}")
    return [
        ([[0, 1], [0, 2]], [3, 3], 1, rule_slot.format(0, 3, 0, 3)),  # both append into (0, 3)
        ([[0, 0]], [10], 10, rule_seq.format(0, 2, 0)),  # positions 16..19 land on the keys 0..3
        ([[1, 2, 1]], [40], 1, rule_seq.format(0, 3, 1)),  # the repeat is read, not written: still aliasing
        ([[0, 1], [0, 2]], [3, 2], 1, rule_slot.format(1, 2, 0, 2)),  # sequence 0 reads (0, 2)
        ([[3, 1], [3, 2]], [20, 2], 1, rule_slot.format(1, 2, 3, 2)),  # writes (3, 2), which sequence 0 reads
    ]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", range(len(_paged_alias_cases())))
def test_paged_aliasing_rejected_before_any_write(backend, case, monkeypatch):
    rows, lens, new, msg = _paged_alias_cases()[case]
    monkeypatch.setattr(sim, "varlen_forward", lambda *a, **kw: pytest.fail("launched"))
    batch = len(rows)
    kp, vp = torch.randn(4, 16, 1, 8), torch.randn(4, 16, 1, 8)
    before = _bitwise(kp), _bitwise(vp)
    with pytest.raises(ValueError, match=msg):
        rocflash.flash_attn_with_kvcache(rand((batch, new, 2, 8), 1, torch.float32), kp, vp,
                                         rand((batch, new, 1, 8), 2, torch.float32),
                                         rand((batch, new, 1, 8), 3, torch.float32),
                                         cache_seqlens=torch.tensor(lens, dtype=torch.int32),
                                         block_table=torch.tensor(rows, dtype=torch.int32), backend=backend)
    assert torch.equal(_bitwise(kp), before[0]) and torch.equal(_bitwise(vp), before[1])


@pytest.mark.parametrize("backend", BACKENDS)
def test_paged_shared_prefix_is_valid(backend):
    """Sequences sharing a full prefix block they only read (prefix caching), each appending into its own block;
    a read-only call may repeat blocks."""
    kp, vp = torch.randn(5, 16, 1, 8), torch.randn(5, 16, 1, 8)
    table = torch.tensor([[0, 1], [0, 2], [3, 4]], dtype=torch.int32)
    k, v = rand((3, 1, 1, 8), 2, torch.float32), rand((3, 1, 1, 8), 3, torch.float32)
    rocflash.flash_attn_with_kvcache(rand((3, 1, 2, 8), 1, torch.float32), kp, vp, k, v,
                                     cache_seqlens=torch.tensor([20, 17, 16], dtype=torch.int32), block_table=table,
                                     backend=backend)
    assert torch.equal(kp[1, 4], k[0, 0]) and torch.equal(kp[2, 1], k[1, 0]) and torch.equal(kp[4, 0], k[2, 0])
    rocflash.flash_attn_with_kvcache(rand((1, 1, 2, 8), 1, torch.float32), kp, vp, cache_seqlens=32,
                                     block_table=torch.tensor([[0, 0]], dtype=torch.int32), backend=backend)
