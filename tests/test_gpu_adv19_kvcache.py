"""Adversarial GPU cases (adv19), part 2: the decode / KV-cache path (issue 9) and bad inputs of every entry point.

Same rules, marker and CPU switch (ADV19_BACKEND=torch|sim) as tests/test_gpu_adv19.py, whose helpers it uses.
Decode: page sizes with shuffled block tables and junk table entries of unused pages, NaN past cache_seqlens,
cache_batch_idx permutations and subsets, cache_seqlens 0 and = capacity, num_splits 0/1/3/7/128, speculative
seqlen_q 2-8 causal with windows, rows without keys, int vs tensor cache_seqlens (same bits), repeated calls with
changing lengths (the compiled backends' fast path). Bad inputs raise before any launch, naming argument, rule and
value, and leave the caches unchanged.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
import torch

import rocflash
from adv_backend import check_per_sequence
from conftest import DTYPES, assert_close_to_reference, fwd_args
from test_gpu_adv19 import BF16, DEV, F16, NAN, ON_GPU, _backend, _fwd_check, _gen, _randn, _sync, _transposed

pytestmark = [pytest.mark.gpu] if ON_GPU else []


# ------------------------------------------------------------------ 7. decode / KV cache
def _caches(rows, cap, hk, d, lens, dtype, g):
    """Dense caches (rows, cap, hk, d): random in [0, lens[r]), NaN past it."""
    out = []
    for _ in range(2):
        c = torch.full((rows, cap, hk, d), NAN, dtype=dtype)
        for r, n in enumerate(lens):
            c[r, :n] = torch.randn(n, hk, d, generator=g).to(dtype)
        out.append(c.to(DEV))
    return out


def _pages(kc, vc, lens, page, g, junk=(-1, 2 ** 31 - 1)):
    """Paged copies of dense caches: shuffled blocks, unused blocks and slots NaN, table entries of unused pages
    junk (the API reads only the used pages' entries)."""
    need = [-(-n // page) for n in lens]
    width = max(max(need), 1) + 1
    nblocks = sum(need) + 4
    perm = torch.randperm(nblocks, generator=g).tolist()
    shape = (nblocks, page) + tuple(kc.shape[2:])
    kp = torch.full(shape, NAN, dtype=kc.dtype, device=DEV)
    vp = torch.full(shape, NAN, dtype=kc.dtype, device=DEV)
    table = torch.empty((len(lens), width), dtype=torch.int32)
    for b in range(len(lens)):
        for p in range(width):
            table[b, p] = junk[(b + p) % len(junk)]
    it = iter(perm)
    for b in range(len(lens)):
        for p in range(need[b]):
            blk = next(it)
            table[b, p] = blk
            m = min(page, lens[b] - p * page)
            kp[blk, :m], vp[blk, :m] = kc[b, p * page:p * page + m], vc[b, p * page:p * page + m]
    return kp, vp, table.to(DEV)


_kv_check = check_per_sequence  # (tests/adv_backend.py)


def _kvcache(q, kc, vc, k=None, v=None, **kw):
    out, lse = rocflash.flash_attn_with_kvcache(q, kc, vc, k, v, return_softmax_lse=True, backend=_backend(), **kw)
    _sync()
    return out, lse


PAGED = [(16, [0, 16, 15, 33]), (48, [47, 48, 49, 1]), (112, [300, 0, 112, 5]), (144, [143, 1, 288, 17]),
         (240, [239, 480, 0, 241]), (256, [256, 1, 511, 100])]


@pytest.mark.parametrize("seqlen_q,append", [(1, True), (3, True), (5, False)], ids=["s1app", "s3app", "s5"])
@pytest.mark.parametrize("page,lens", PAGED, ids=[f"p{p}" for p, _ in PAGED])
def test_paged_shuffled(page, lens, seqlen_q, append, monkeypatch):
    """Page sizes with lengths on and off page boundaries, shuffled blocks, NaN in unused blocks / slots, junk
    table entries of unused pages; GQA 12:3, bf16 d128; speculative rows causal. ROCFLASH_INDEX_CHECKS=off: a
    repeated signature's device-side check that rejected a junk entry of an unused page would give NaN here (a
    contained failure) instead of a device-side assert."""
    monkeypatch.setenv("ROCFLASH_INDEX_CHECKS", "off")
    g = _gen(page + seqlen_q)
    new = seqlen_q if append else 0
    kc, vc = _caches(4, 600, 3, 128, lens, BF16, g)
    if not append and min(lens) == 0:
        lens = [max(n, 1) for n in lens]  # every sequence sees a key (lens 0 is in the dense cases)
        kc, vc = _caches(4, 600, 3, 128, lens, BF16, g)
    kp, vp, table = _pages(kc, vc, [n + new for n in lens], page, g)
    q = _randn((4, seqlen_q, 12, 128), BF16, g)
    k, v = (_randn((4, new, 3, 128), BF16, g) for _ in range(2)) if append else (None, None)
    seqlens = torch.tensor(lens, dtype=torch.int32, device=DEV)
    kp0, vp0 = kp.clone(), vp.clone()
    out, lse = _kvcache(q, kp, vp, k, v, cache_seqlens=seqlens, block_table=table, causal=True)
    keys = [torch.cat([kc[b, :n], k[b]]) if append else kc[b, :n] for b, n in enumerate(lens)]
    values = [torch.cat([vc[b, :n], v[b]]) if append else vc[b, :n] for b, n in enumerate(lens)]
    _kv_check(out, lse, q, keys, values, fwd_args(128, True), f"paged {page} sq{seqlen_q} append={append}")
    if not append:  # the same signature again: the compiled backends' fast path (device-side index checks) with
        again = _kvcache(q, kp, vp, cache_seqlens=seqlens, block_table=table, causal=True)  # junk unused entries
        assert torch.equal(again[0], out) and torch.equal(again[1], lse), "fast path: other bits"
    if append:  # only the appended slots changed
        changed = ~((kp == kp0) | (kp.isnan() & kp0.isnan()))
        t = table.cpu()
        for b, n in enumerate(lens):
            for j in range(new):
                pos = n + j
                blk, slot = int(t[b, pos // page]), pos % page
                assert torch.equal(kp[blk, slot], k[b, j]) and torch.equal(vp[blk, slot], v[b, j])
                changed[blk, slot] = False
        assert not changed.any(), "the append wrote outside the new tokens' slots"


@pytest.mark.parametrize("num_splits", [0, 1, 3, 7, 128])
@pytest.mark.parametrize("d,dtype", [(64, "fp16"), (128, "bf16"), (72, "bf16"), (256, "fp16")])
def test_dense_decode_splits(d, dtype, num_splits):
    """Dense cache with cache_seqlens 0 (only the new key), short, one past a tile, = capacity - 1 (the append fills
    the cache); MQA 8:1; every split count, empty splits included (128 splits of ~1000 keys)."""
    g = _gen(d + num_splits)
    lens = [0, 5, 65, 1023]
    kc, vc = _caches(4, 1024, 1, d, lens, DTYPES[dtype], g)
    q = _randn((4, 1, 8, d), DTYPES[dtype], g)
    k, v = (_randn((4, 1, 1, d), DTYPES[dtype], g) for _ in range(2))
    seqlens = torch.tensor(lens, dtype=torch.int32, device=DEV)
    out, lse = _kvcache(q, kc, vc, k, v, cache_seqlens=seqlens, num_splits=num_splits)
    keys = [kc[b, :n + 1] for b, n in enumerate(lens)]
    values = [vc[b, :n + 1] for b, n in enumerate(lens)]
    _kv_check(out, lse, q, keys, values, fwd_args(d), f"dense decode d{d} splits {num_splits}")
    for _ in range(2):  # the second one takes the compiled backends' fast path
        again = _kvcache(q, kc, vc, cache_seqlens=seqlens + 1, num_splits=num_splits)
        assert torch.equal(again[0], out) and torch.equal(again[1], lse), "not bitwise repeatable"


def test_cache_full_and_empty():
    """cache_seqlens = capacity (no append, k=None, and None = the whole cache) and 0 without append (no key)."""
    g = _gen(3)
    kc, vc = _caches(3, 300, 2, 96, [300, 300, 300], F16, g)
    q = _randn((3, 2, 4, 96), F16, g)
    full = _kvcache(q, kc, vc, cache_seqlens=300, causal=True)
    _kv_check(*full, q, list(kc), list(vc), fwd_args(96, True), "cache full")
    none = _kvcache(q, kc, vc, causal=True)
    assert torch.equal(none[0], full[0]) and torch.equal(none[1], full[1])
    empty = _kvcache(q, kc, vc, cache_seqlens=torch.zeros(3, dtype=torch.int32, device=DEV))
    assert torch.equal(empty[0], torch.zeros_like(empty[0])) and torch.isneginf(empty[1]).all()


@pytest.mark.parametrize("seqlen_q", [2, 3, 5, 8])
@pytest.mark.parametrize("window", [(-1, -1), (4, 0), (0, 0), (2000, 0)], ids=["nowin", "w4", "w0", "w2000"])
def test_speculative_against_cache(seqlen_q, window):
    g = _gen(seqlen_q * 10 + window[0])
    lens = [0, 3, 200, 777]
    kc, vc = _caches(4, 800, 2, 64, lens, BF16, g)
    q = _randn((4, seqlen_q, 6, 64), BF16, g)
    k, v = (_randn((4, seqlen_q, 2, 64), BF16, g) for _ in range(2))
    out, lse = _kvcache(q, kc, vc, k, v, cache_seqlens=torch.tensor(lens, dtype=torch.int32, device=DEV),
                        causal=True, window_size=window, num_splits=3)
    keys = [kc[b, :n + seqlen_q] for b, n in enumerate(lens)]
    values = [vc[b, :n + seqlen_q] for b, n in enumerate(lens)]
    _kv_check(out, lse, q, keys, values, fwd_args(64, True, window), f"speculative sq{seqlen_q} window {window}")


@pytest.mark.parametrize("idx", [[3, 1, 2], [5, 0, 4], [2, 2, 2]], ids=["perm", "subset", "repeat_noappend"])
def test_cache_batch_idx(idx):
    """cache_batch_idx permutations and subsets (rows not named stay bitwise untouched); a repeated row without
    append. Speculative seqlen_q 4 causal, fp16 d80."""
    g = _gen(sum(idx))
    rows_lens = [5, 300, 0, 77, 129, 64]
    kc, vc = _caches(6, 400, 2, 80, rows_lens, F16, g)
    kc0, vc0 = kc.clone(), vc.clone()
    append = len(set(idx)) == len(idx)
    sq = 4
    q = _randn((3, sq, 8, 80), F16, g)
    k, v = (_randn((3, sq, 2, 80), F16, g) for _ in range(2)) if append else (None, None)
    lens = [max(rows_lens[r], 0 if append else sq) for r in idx]
    seqlens = torch.tensor(lens, dtype=torch.int32, device=DEV)
    if not append:
        for r in idx:  # the rows this case reads without append: fill the first lens slots
            kc[r, :lens[0]] = _randn((lens[0], 2, 80), F16, g)
            vc[r, :lens[0]] = _randn((lens[0], 2, 80), F16, g)
        kc0, vc0 = kc.clone(), vc.clone()
    out, lse = _kvcache(q, kc, vc, k, v, cache_seqlens=seqlens,
                        cache_batch_idx=torch.tensor(idx, dtype=torch.int32, device=DEV), causal=True)
    new = sq if append else 0
    keys = [kc[r, :n + new] for r, n in zip(idx, lens)]
    values = [vc[r, :n + new] for r, n in zip(idx, lens)]
    _kv_check(out, lse, q, keys, values, fwd_args(80, True), f"cache_batch_idx {idx}")
    for r in range(6):
        if r not in idx:
            assert torch.equal(kc[r].isnan(), kc0[r].isnan()) and torch.equal(kc[r].nan_to_num(), kc0[r].nan_to_num())


@pytest.mark.parametrize("num_splits", [1, 3])
@pytest.mark.parametrize("window", [(-1, -1), (1, 0)], ids=["nowin", "w1"])
def test_kvcache_rows_without_keys(window, num_splits):
    """seqlen_q 5 > the keys (cache_seqlens 0 / 1 + 2 new, causal): the first rows see no key (out 0, LSE -inf, as
    flash-attn); the new k, v are non-contiguous views (transposed storage)."""
    g = _gen(num_splits + window[0])
    lens = [0, 1]
    kc, vc = _caches(2, 40, 2, 64, lens, F16, g)
    q = _randn((2, 5, 4, 64), F16, g)
    k, v = (_transposed(_randn((2, 2, 2, 64), F16, g)) for _ in range(2))
    out, lse = _kvcache(q, kc, vc, k, v, cache_seqlens=torch.tensor(lens, dtype=torch.int32, device=DEV), causal=True,
                        window_size=window, num_splits=num_splits)
    for b, n in enumerate(lens):
        assert torch.equal(kc[b, n:n + 2], k[b]) and torch.equal(vc[b, n:n + 2], v[b])
        assert torch.isneginf(lse[b, :, :3 - n]).all() and torch.equal(out[b, :3 - n], torch.zeros_like(out[b, :3 - n]))
    _kv_check(out, lse, q, [kc[b, :n + 2] for b, n in enumerate(lens)], [vc[b, :n + 2] for b, n in enumerate(lens)],
              fwd_args(64, True, window), f"rows without keys window {window} splits {num_splits}")


def test_int_vs_tensor_cache_seqlens_same_bits():
    g = _gen(4)
    kc, vc = _caches(3, 2000, 2, 128, [1500] * 3, BF16, g)
    q = _randn((3, 1, 8, 128), BF16, g)
    a = _kvcache(q, kc, vc, cache_seqlens=1500)
    b = _kvcache(q, kc, vc, cache_seqlens=torch.full((3,), 1500, dtype=torch.int32, device=DEV))
    assert torch.equal(a[0], b[0]) and torch.equal(a[1], b[1])
    _kv_check(*a, q, [kc[i, :1500] for i in range(3)], [vc[i, :1500] for i in range(3)], fwd_args(128), "int lens")


def test_repeated_calls_changing_lengths():
    """The same signature called again (the compiled backends' fast path: no host checks) with other lengths,
    tensor and int: each call against fp64; a bad int on a later call still raises before anything changes."""
    g = _gen(5)
    kc, vc = _caches(2, 700, 2, 64, [700, 700], F16, g)
    kc[:, 650:] = NAN
    vc[:, 650:] = NAN
    q = _randn((2, 1, 4, 64), F16, g)
    for lens in ([5, 300], [0, 649], [649, 1], [64, 65]):
        k, v = (_randn((2, 1, 2, 64), F16, g) for _ in range(2))
        before_k, before_v = kc.clone(), vc.clone()
        out, lse = _kvcache(q, kc, vc, k, v, cache_seqlens=torch.tensor(lens, dtype=torch.int32, device=DEV))
        _kv_check(out, lse, q, [kc[b, :n + 1] for b, n in enumerate(lens)], [vc[b, :n + 1] for b, n in enumerate(lens)],
                  fwd_args(64), f"repeat lens {lens}")
        kc.copy_(before_k), vc.copy_(before_v)  # keep the NaN tail for the next lengths
    for n in (10, 400, 649):
        k, v = (_randn((2, 1, 2, 64), F16, g) for _ in range(2))
        before_k = kc.clone()
        out, lse = _kvcache(q, kc, vc, k, v, cache_seqlens=n)
        _kv_check(out, lse, q, [kc[b, :n + 1] for b in range(2)], [vc[b, :n + 1] for b in range(2)], fwd_args(64),
                  f"repeat int {n}")
        kc.copy_(before_k)
    k, v = (_randn((2, 1, 2, 64), F16, g) for _ in range(2))
    before_k, before_v = kc.clone(), vc.clone()
    with pytest.raises(ValueError, match=r"cache_seqlens.*700.*got 700 \+ 1"):
        _kvcache(q, kc, vc, k, v, cache_seqlens=700)
    assert torch.equal(kc.nan_to_num(), before_k.nan_to_num()) and torch.equal(vc.nan_to_num(), before_v.nan_to_num())


@pytest.mark.parametrize("d", [8, 72, 100, 160])
def test_decode_odd_headdims_softcap_alibi(d):
    """Decode through flash_attn_with_kvcache and flash_attn_func (split-KV) at headdims off the split buckets,
    with softcap / ALiBi / a window and 3 splits."""
    g = _gen(d)
    lens = [1, 900, 33]
    kc, vc = _caches(3, 1000, 2, d, lens, BF16, g)
    q = _randn((3, 1, 6, d), BF16, g)
    slopes = torch.rand(3, 6, generator=g).to(DEV) * 0.1
    seqlens = torch.tensor(lens, dtype=torch.int32, device=DEV)
    for kw in (dict(softcap=5.0), dict(alibi_slopes=slopes), dict(window_size=(100, 0))):
        out, lse = _kvcache(q, kc, vc, cache_seqlens=seqlens, num_splits=3, **kw)
        args = fwd_args(d, False, kw.get("window_size", (-1, -1)), kw.get("softcap", 0.0), kw.get("alibi_slopes"))
        for b, n in enumerate(lens):
            a = replace(args, alibi_slopes=slopes[b]) if "alibi_slopes" in kw else args
            assert_close_to_reference(out[b:b + 1], lse[b:b + 1], q[b:b + 1], kc[b:b + 1, :n], vc[b:b + 1, :n], a,
                                      f"decode d{d} {sorted(kw)} seq {b}")
    k, v = kc[1:2, :900], vc[1:2, :900]
    _fwd_check(q[1:2], k, v, f"flash_attn_func decode d{d}", softcap=5.0)


def test_noncontiguous_caches_and_q():
    """Caches that are head slices of a wider tensor (strides not packed), q transposed storage."""
    g = _gen(6)
    lens = [17, 500]
    kw_, vw_ = _caches(2, 512, 4, 128, lens, F16, g)
    kc, vc = kw_[:, :, 1::2], vw_[:, :, 1::2]
    q = _transposed(_randn((2, 3, 8, 128), F16, g))
    k, v = (_randn((2, 3, 2, 128), F16, g) for _ in range(2))
    out, lse = _kvcache(q, kc, vc, k, v, cache_seqlens=torch.tensor(lens, dtype=torch.int32, device=DEV), causal=True)
    _kv_check(out, lse, q, [kc[b, :n + 3] for b, n in enumerate(lens)], [vc[b, :n + 3] for b, n in enumerate(lens)],
              fwd_args(128, True), "sliced caches")
    for b, n in enumerate(lens):  # the other heads of the wide tensors: untouched (NaN past the old lengths)
        assert bool(kw_[b, n:, 0::2].isnan().all()) and bool(vw_[b, n:, 0::2].isnan().all()), \
            "the append wrote into the other heads of the wide tensor"


# ------------------------------------------------------------------ 8. bad inputs: raised before any launch
def _bad_cache_call(what):
    g = _gen(1)
    q = _randn((2, 1, 4, 64), F16, g)
    k, v = (_randn((2, 1, 2, 64), F16, g) for _ in range(2))
    kc, vc = _caches(2, 61, 2, 64, [10, 20], F16, g)  # a capacity no valid call of this file has (no fast path)
    kw = dict(cache_seqlens=torch.tensor([10, 20], dtype=torch.int32, device=DEV))
    if what == "block_table_int64":
        kp, vp, t = _pages(kc, vc, [11, 21], 16, g)
        kc, vc, kw["block_table"] = kp, vp, t.long()
    elif what == "page_24":
        kc = torch.full((8, 24, 2, 64), NAN, dtype=F16, device=DEV)
        vc = kc.clone()
        kw["block_table"] = torch.arange(4, dtype=torch.int32, device=DEV).view(2, 2)
    elif what == "page_272":
        kc = torch.zeros((4, 272, 2, 64), dtype=F16, device=DEV)
        vc = kc.clone()
        kw["block_table"] = torch.arange(2, dtype=torch.int32, device=DEV).view(2, 1)
    elif what == "block_out_of_range":
        kp, vp, t = _pages(kc, vc, [11, 21], 16, g)
        t[1, 1] = kp.shape[0]
        kc, vc, kw["block_table"] = kp, vp, t
    elif what == "cache_seqlens_int64":
        kw["cache_seqlens"] = kw["cache_seqlens"].long()
    elif what == "cache_seqlens_shape":
        kw["cache_seqlens"] = torch.tensor([10, 20, 3], dtype=torch.int32, device=DEV)
    elif what == "cache_seqlens_overflow":
        kw["cache_seqlens"] = torch.tensor([10, 61], dtype=torch.int32, device=DEV)
    elif what == "cache_seqlens_negative":
        kw["cache_seqlens"] = -1
    elif what == "num_splits_129":
        kw["num_splits"] = 129
    elif what == "num_splits_neg":
        kw["num_splits"] = -1
    elif what == "cache_batch_idx_dup":
        kw["cache_batch_idx"] = torch.tensor([1, 1], dtype=torch.int32, device=DEV)
    elif what == "cache_batch_idx_range":
        kw["cache_batch_idx"] = torch.tensor([0, 2], dtype=torch.int32, device=DEV)
    elif what == "k_cache_dtype":
        kc = kc.to(BF16)
    elif what == "nheads_k_ratio":
        q = _randn((2, 1, 3, 64), F16, g)
    elif what == "causal_right_window":
        kw.update(causal=True, window_size=(-1, 3))
    return q, kc, vc, k, v, kw


BAD_CACHE = {
    "block_table_int64": (ValueError, r"block_table must have dtype torch.int32, got torch.int64"),
    "page_24": (ValueError, r"page_block_size .*must be a multiple of 16 from 16 to 256.*got 24"),
    "page_272": (ValueError, r"page_block_size.*got 272"),
    "block_out_of_range": (ValueError, r"block_table\[1, \d+\] must index blocks in \[0, num_blocks=\d+\).*got \d+"),
    "cache_seqlens_int64": (ValueError, r"cache_seqlens must have dtype torch.int32, got torch.int64"),
    "cache_seqlens_shape": (ValueError, r"cache_seqlens must have shape .*\(2,\).*got \(3,\)"),
    "cache_seqlens_overflow": (ValueError, r"cache_seqlens\[1\] \+ seqlen_new must be in \[0, .*61\], got 61 \+ 1"),
    "cache_seqlens_negative": (ValueError, r"cache_seqlens\[0\] must be >= 0 \(keys already in the cache\), got -1"),
    "num_splits_129": (ValueError, r"num_splits must be an int in \[0, 128\].*got 129"),
    "num_splits_neg": (ValueError, r"num_splits must be an int in \[0, 128\].*got -1"),
    "cache_batch_idx_dup": (ValueError, r"cache_batch_idx must hold distinct rows.*\[1, 1\]"),
    "cache_batch_idx_range": (ValueError, r"cache_batch_idx must index rows of k_cache in \[0, 2\), got 2"),
    "k_cache_dtype": (TypeError, r"k_cache must have q's dtype torch.float16.*got torch.bfloat16"),
    "nheads_k_ratio": (ValueError, r"nheads must be divisible by nheads_k .*got nheads=3, nheads_k=2"),
    "causal_right_window": (ValueError, r"window_size\[1\] must be -1 or 0 when causal=True.*got 3"),
}


@pytest.mark.parametrize("what", sorted(BAD_CACHE))
def test_bad_kvcache_inputs(what, monkeypatch):
    # value rules of index tensors: the host checks (the default "device" mode asserts on the device on a repeated
    # signature, which ends the process's CUDA context; a first call is checked on the host either way)
    monkeypatch.setenv("ROCFLASH_INDEX_CHECKS", "host")
    q, kc, vc, k, v, kw = _bad_cache_call(what)
    kc0, vc0 = kc.clone(), vc.clone()
    exc, pattern = BAD_CACHE[what]
    with pytest.raises(exc, match=pattern):
        rocflash.flash_attn_with_kvcache(q, kc, vc, k, v, backend=_backend(), **kw)
    _sync()
    assert torch.equal(kc.isnan(), kc0.isnan()) and torch.equal(kc.nan_to_num(), kc0.nan_to_num()), \
        f"{what}: the cache changed although the call raised"
    assert torch.equal(vc.nan_to_num(), vc0.nan_to_num())


BAD_FUNC = {
    "headdim_0": (ValueError, r"headdim must be >= 1, got 0"),
    "headdim_257": (ValueError, r"headdim must be <= 256, got 257"),
    "nheads_ratio": (ValueError, r"nheads must be divisible by nheads_k .*got nheads=12, nheads_k=5"),
    "alibi_shape": (ValueError, r"alibi_slopes must have shape \(nheads,\)=\(12,\) or .*got \(3,\)"),
    "causal_right": (ValueError, r"window_size\[1\] must be -1 or 0 when causal=True.*got 2"),
    "mixed_dtype": (TypeError, r"q, k, v must have the same dtype, got torch.bfloat16, torch.float16"),
}


@pytest.mark.parametrize("what", sorted(BAD_FUNC))
def test_bad_flash_attn_func_inputs(what):
    g = _gen(2)
    d = {"headdim_0": 0, "headdim_257": 257}.get(what, 64)
    hk = 5 if what == "nheads_ratio" else 4
    q, k, v = _randn((1, 9, 12, d), BF16, g), _randn((1, 9, hk, d), BF16, g), _randn((1, 9, hk, d), BF16, g)
    kw = {}
    if what == "alibi_shape":
        kw["alibi_slopes"] = torch.ones(3, device=DEV)
    elif what == "causal_right":
        kw.update(causal=True, window_size=(-1, 2))
    elif what == "mixed_dtype":
        k = k.half()
    exc, pattern = BAD_FUNC[what]
    with pytest.raises(exc, match=pattern):
        rocflash.flash_attn_func(q, k, v, backend=_backend(), **kw)


BAD_VARLEN = {
    "cu_int64": (ValueError, r"cu_seqlens_q must have dtype torch.int32, got torch.int64"),
    "cu_decreasing": (ValueError, r"cu_seqlens_k must be non-decreasing.*cu_seqlens_k\[1\]=9 > cu_seqlens_k\[2\]=4"),
    "cu_total": (ValueError, r"cu_seqlens_q\[-1\] must equal the number of rows 12.*got 11"),
    "cu_2d": (ValueError, r"cu_seqlens_q must have shape \(batch \+ 1,\)"),
    "block_table_int64": (ValueError, r"block_table must have dtype torch.int32, got torch.int64"),
}


@pytest.mark.parametrize("what", sorted(BAD_VARLEN))
def test_bad_varlen_inputs(what, monkeypatch):
    # the compiled backends check cu_seqlens' values on the device by default (a device-side assert ends the CUDA
    # context): ROCFLASH_INDEX_CHECKS=host, the documented mode that raises the ValueError before any launch
    monkeypatch.setenv("ROCFLASH_INDEX_CHECKS", "host")
    g = _gen(3)
    q, k, v = _randn((12, 4, 64), F16, g), _randn((13, 2, 64), F16, g), _randn((13, 2, 64), F16, g)
    cq = torch.tensor([0, 5, 12], dtype=torch.int32, device=DEV)
    ck = torch.tensor([0, 9, 13], dtype=torch.int32, device=DEV)
    kw = {}
    if what == "cu_int64":
        cq = cq.long()
    elif what == "cu_decreasing":
        ck = torch.tensor([0, 9, 4, 13], dtype=torch.int32, device=DEV)
        cq = torch.tensor([0, 5, 6, 12], dtype=torch.int32, device=DEV)
    elif what == "cu_total":
        cq = torch.tensor([0, 5, 11], dtype=torch.int32, device=DEV)
    elif what == "cu_2d":
        cq = cq.view(1, 3)
    elif what == "block_table_int64":
        k = torch.randn(4, 16, 2, 64, generator=g).to(DEV, F16)
        v = k.clone()
        kw["block_table"] = torch.tensor([[0, 1], [2, 3]], device=DEV)
        ck = torch.tensor([0, 9, 20], dtype=torch.int32, device=DEV)
    exc, pattern = BAD_VARLEN[what]
    with pytest.raises(exc, match=pattern):
        rocflash.flash_attn_varlen_func(q, k, v, cq, ck, 7, 11, backend=_backend(), **kw)
