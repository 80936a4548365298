"""Adversarial GPU cases (adv21) for the plain-decode loop of the tensor-core split-KV kernel (hip_src/
fmha_splitkv_mma_plain.h run_plain / plain_copy, kv_k_first 6 / 7, the default since dec11) and the combine kernel's
prefetch of its first kPrefetch rounds of partials (hip_src/fmha_splitkv_kernel.h).

Every case runs its call with ROCFLASH_SPLITKV_PLAIN=1 and =0 (the previous "Near" loop) and asserts the same bits
(output, LSE, and the caches after an append: the claim is bitwise identity on finite inputs), then checks the
PLAIN=1 result against fp64 with FlashAttention's rule (conftest.assert_close_to_reference: 2x the low-precision
eager error + 1e-3, LSE 1e-3), no NaN (NaN lies in unused pages, in cache slots past cache_seqlens and around
strided cache views; outputs are poisoned by conftest), and the caller's cache buffers unchanged except the
appended rows.

Eligibility of a block for the plain loop (run() in fmha_splitkv_mma.h): aligned rows, no softcap / ALiBi, <= 8
query rows in the block, headdim == its bucket (64 / 128), page_size % 16 == 0, every key of the split's range
visible from every row. Cases mix eligible and non-eligible blocks in one launch (windows masking some sequences,
causal speculative rows, GQA 16, 24-row chunks 16 + 8, headdims 72 / 96 / 120).

CPU validation of the test logic: ``cd tests && ADV21_BACKEND=torch python3 -m pytest -q test_gpu_adv21_plain.py``
(or =sim): the plain switch does nothing there (the A/B is trivially equal), the reference checks are real.
Unset (the GPU run) it is the compiled backend of the GPU, marker ``gpu``.
"""

from __future__ import annotations

import pytest
import torch

import rocflash
import rocflash.interface as rf_interface
from adv_backend import AdvBackend, check_per_sequence, gen
from conftest import DTYPES, assert_close_to_reference, fwd_args
from rocflash.backends import compiled
from rocflash.kvcache import apply_rotary

_B = AdvBackend("ADV21_BACKEND")
ON_GPU, DEV, pytestmark = _B.on_gpu, _B.dev, _B.marks
_backend, _sync, _randn = _B.name, _B.sync, _B.randn
NAN = float("nan")
F16, BF16 = torch.float16, torch.bfloat16
PLAIN_ENV, INFLIGHT_ENV = "ROCFLASH_SPLITKV_PLAIN", "ROCFLASH_SPLITKV_INFLIGHT"


# ------------------------------------------------------------------ helpers
def _bits(t):
    if t.dtype in (F16, BF16):
        return t.contiguous().view(torch.int16)
    if t.dtype == torch.float32:
        return t.contiguous().view(torch.int32)
    return t.contiguous().view(torch.int64) if t.dtype == torch.float64 else t


def _same_bits(a, b, what):
    assert a.shape == b.shape and a.dtype == b.dtype, what
    assert torch.equal(_bits(a), _bits(b)), f"{what}: PLAIN=1 and PLAIN=0 differ " \
        f"({int((_bits(a) != _bits(b)).sum())} elements)"


def _fresh():
    rf_interface._CHECKED.clear()
    compiled._PARAMS_CACHE.clear()


def ab(monkeypatch, fn, inflight=None, what=""):
    """fn() -> tuple of tensors, run under PLAIN=1 and PLAIN=0 (INFLIGHT as given): same bits; the PLAIN=1 result."""
    if inflight is not None:
        monkeypatch.setenv(INFLIGHT_ENV, str(inflight))
    res = {}
    for plain in ("0", "1"):
        monkeypatch.setenv(PLAIN_ENV, plain)
        _fresh()
        res[plain] = fn()
        _sync()
    for i, (a, b) in enumerate(zip(res["1"], res["0"])):
        _same_bits(a, b, f"{what} result {i}")
    # the default (unset) is the plain loop: same bits again
    monkeypatch.delenv(PLAIN_ENV)
    _fresh()
    again = fn()
    _sync()
    for i, (a, b) in enumerate(zip(again, res["1"])):
        _same_bits(a, b, f"{what} result {i} (PLAIN unset)")
    return res["1"]


def dense_caches(rows, cap, hk, d, lens, dtype, g, head_pad=0, dim_pad=0):
    """Dense K/V caches (rows, cap, hk, d) as views of NaN buffers (hk + head_pad heads, d + dim_pad columns: a
    larger row stride, still 16-byte aligned), random in [0, lens[r]), NaN past it. Returns (kc, vc, kbuf, vbuf)."""
    out = []
    for _ in range(2):
        buf = torch.full((rows, cap, hk + head_pad, d + dim_pad), NAN, dtype=dtype, device=DEV)
        c = buf[:, :, :hk, :d]
        for r, n in enumerate(lens):
            c[r, :n] = _randn((n, hk, d), dtype, g)
        out += [c, buf]
    return out[0], out[2], out[1], out[3]


def paged_caches(lens, page, hk, d, dtype, g, spare_cols=1, junk=True):
    """Paged caches of capacity lens[b] keys per sequence: shuffled blocks, unused blocks and slots NaN, table
    entries of unused pages junk (-1 / 2**31 - 1 when ``junk``). The table has max pages + spare_cols columns."""
    need = [-(-n // page) for n in lens]
    width = max(max(need), 1) + spare_cols
    nblocks = sum(need) + 3
    perm = torch.randperm(nblocks, generator=g).tolist()
    shape = (nblocks, page, hk, d)
    kp = torch.full(shape, NAN, dtype=dtype, device=DEV)
    vp = torch.full(shape, NAN, dtype=dtype, device=DEV)
    table = torch.full((len(lens), width), -1, dtype=torch.int32)
    if junk:
        table[:, 1::2] = 2 ** 31 - 1
    it = iter(perm)
    for b in range(len(lens)):
        for p in range(need[b]):
            table[b, p] = next(it)
    return kp, vp, table.to(DEV)


def paged_fill(kp, vp, table, b, n, g):
    """Random keys [0, n) of sequence b in the paged caches; returns the dense (n, hk, d) K and V."""
    page = kp.shape[1]
    k = _randn((n,) + tuple(kp.shape[2:]), kp.dtype, g)
    v = _randn((n,) + tuple(kp.shape[2:]), kp.dtype, g)
    t = table.cpu()
    for j0 in range(0, n, page):
        m = min(page, n - j0)
        blk = int(t[b, j0 // page])
        kp[blk, :m], vp[blk, :m] = k[j0:j0 + m], v[j0:j0 + m]
    return k, v


def paged_rows(cache, table, b, n):
    """Keys [0, n) of sequence b read back from a paged cache (dense (n, hk, d))."""
    page = cache.shape[1]
    t = table.cpu()
    return torch.cat([cache[int(t[b, j0 // page]), :min(page, n - j0)] for j0 in range(0, n, page)]) if n else \
        cache[:0, 0]


def filled_caches(lens, page, rows, cap, d, g):
    """fp16 K/V caches (2 kv-heads) of sequences ``lens``: paged (page > 0, paged_caches + paged_fill) or dense (rows x
    cap rows, dense_caches); (k cache, v cache, the call's block_table kwargs, each sequence's keys, its values)."""
    if page:
        kc, vc, table = paged_caches(lens, page, 2, d, F16, g)
        dense = [paged_fill(kc, vc, table, b, n, g) for b, n in enumerate(lens)]
        return kc, vc, dict(block_table=table), [x[0] for x in dense], [x[1] for x in dense]
    kc, vc, _, _ = dense_caches(rows, cap, 2, d, lens, F16, g)
    return kc, vc, {}, [kc[b, :n] for b, n in enumerate(lens)], [vc[b, :n] for b, n in enumerate(lens)]


def kvcache(q, kc, vc, k=None, v=None, **kw):
    out, lse = rocflash.flash_attn_with_kvcache(q, kc, vc, k, v, return_softmax_lse=True, backend=_backend(), **kw)
    return out, lse


check_seqs = check_per_sequence  # (tests/adv_backend.py)


def unchanged_except(after, before, allowed, what):
    """Bitwise equal (NaN bits included) except where ``allowed`` (bool mask) is True."""
    diff = _bits(after) != _bits(before)
    assert not (diff & ~allowed).any(), f"{what}: the cache changed outside the appended rows"


def _i32(x):
    return torch.tensor(x, dtype=torch.int32, device=DEV)


# ------------------------------------------------------------------ 1. page sizes (page cursor carry)
PAGES = [16, 32, 48, 64, 80, 112, 128, 144, 176, 208, 240, 256]
SPLITS = [0, 1, 3, 7, 33, 64, 100]


@pytest.mark.parametrize("page", PAGES)
def test_paged_append(page, monkeypatch):
    """Shuffled blocks, NaN in unused blocks / slots past cache_seqlens, junk table entries; lens on and off page
    and tile (16 / 64-key step) boundaries, 0 (only the new key); 1 new token appended; GQA 8:2 (plain, 4 rows);
    num_splits cycling (1: one split, so each warp walks many tiles and the cursor carries often)."""
    g = gen(page)
    dtype = BF16 if page % 32 == 0 else F16
    d = 128 if page % 48 else 64
    lens = [0, page - 1, 2 * page + 17, 1000 + page % 7]
    ns = SPLITS[PAGES.index(page) % len(SPLITS)]
    kp, vp, table = paged_caches([n + 1 for n in lens], page, 2, d, dtype, g)
    dense = [paged_fill(kp, vp, table, b, n, g) for b, n in enumerate(lens)]
    q = _randn((4, 1, 8, d), dtype, g)
    k, v = _randn((4, 1, 2, d), dtype, g), _randn((4, 1, 2, d), dtype, g)
    kp0, vp0 = kp.clone(), vp.clone()

    def call():
        a, b = kp0.clone(), vp0.clone()
        o, l = kvcache(q, a, b, k, v, cache_seqlens=_i32(lens), block_table=table, num_splits=ns)
        return o, l, a, b
    for splits in sorted({ns, 1}):
        ns = splits
        out, lse, kpa, vpa = ab(monkeypatch, call, what=f"page {page} splits {ns}")
        allowed = torch.zeros(kp.shape[:2], dtype=torch.bool, device=DEV)
        t = table.cpu()
        for b, n in enumerate(lens):
            allowed[int(t[b, n // page]), n % page] = True
            assert torch.equal(paged_rows(kpa, table, b, n + 1)[n], k[b, 0])
        allowed = allowed[:, :, None, None].expand_as(kp)
        unchanged_except(kpa, kp0, allowed, f"page {page} K")
        unchanged_except(vpa, vp0, allowed, f"page {page} V")
        keys = [torch.cat([dense[b][0], k[b]]) for b in range(4)]
        values = [torch.cat([dense[b][1], v[b]]) for b in range(4)]
        check_seqs(out, lse, q, keys, values, fwd_args(d), f"page {page} splits {ns}")


def paged_ab_check(monkeypatch, q, kp, vp, table, lens, dense, inflight, splits, what):
    """For each num_splits: the paged call (headdim 128, no append) under PLAIN=1 / 0 (ab), then fp64 per sequence."""
    for ns in splits:
        out, lse = ab(monkeypatch, lambda: kvcache(q, kp, vp, cache_seqlens=_i32(lens), block_table=table,
                                                   num_splits=ns),
                      inflight=inflight, what=f"{what} splits {ns}")
        check_seqs(out, lse, q, [x[0] for x in dense], [x[1] for x in dense], fwd_args(128),
                   f"{what} inflight {inflight} splits {ns}")


@pytest.mark.parametrize("page", [48, 80, 144, 208, 240])
@pytest.mark.parametrize("inflight", [1, 2])
def test_paged_no_append_tight_table(page, inflight, monkeypatch):
    """No append; the block table has exactly the used pages' columns (no spare column: a read of the entry one
    tile ahead past the last tile would leave the row / the tensor) and one sequence of length 0 (no key: O 0,
    LSE -inf); tiny sequences (1, 15, 16, 17 keys: count 1 per warp, the one-ahead read guarded by count) next to
    long ones; ROCFLASH_SPLITKV_INFLIGHT 1 and 2 (kAhead 2: two tiles in flight, cp.async groups 2 ahead)."""
    g = gen(page * 3 + inflight)
    lens = [1, 15, 16, 17, 0, 63, 64, 65, 1000, 3 * page]
    kp, vp, table = paged_caches([max(n, 1) for n in lens], page, 1, 128, BF16, g, spare_cols=0, junk=False)
    table = table.clone()
    dense = [paged_fill(kp, vp, table, b, n, g) for b, n in enumerate(lens)]
    q = _randn((len(lens), 1, 4, 128), BF16, g)
    kp0, vp0 = kp.clone(), vp.clone()
    paged_ab_check(monkeypatch, q, kp, vp, table, lens, dense, inflight, (0, 1, 7), f"tight table page {page}")
    _same_bits(kp, kp0, "K cache (no append)")
    _same_bits(vp, vp0, "V cache (no append)")


@pytest.mark.parametrize("page", [16, 48, 256])
@pytest.mark.parametrize("inflight", [1, 2])
def test_paged_long_splits(page, inflight, monkeypatch):
    """Splits of many tiles per warp (num_splits 1 and 2 over up to 9000 keys: more than 32 tiles of 16 keys per
    warp, so the page cursor of run_plain carries across many pages; dec12 measured, and dropped, a windowed
    block-table load keyed on 32-tile windows, hence the lengths on and off such edges: 2048, 2049, 4096 + 16, 6143),
    a tight table, a sequence of 0 keys, junk (-1 / 2**31 - 1) in the entries past each sequence's pages, NaN in
    unused pages."""
    g = gen(page * 5 + inflight)
    lens = [9000, 2048, 2049, 0, 4112, 6143]
    kp, vp, table = paged_caches([max(n, 1) for n in lens], page, 2, 128, BF16, g, spare_cols=0, junk=True)
    dense = [paged_fill(kp, vp, table, b, n, g) for b, n in enumerate(lens)]
    q = _randn((len(lens), 1, 8, 128), BF16, g)
    paged_ab_check(monkeypatch, q, kp, vp, table, lens, dense, inflight, (1, 2, 0), f"long splits page {page}")


# ------------------------------------------------------------------ 2. seqlen_k values, GQA groups, headdims
SEQLENS_K = [1, 5, 15, 16, 17, 63, 64, 65, 1000, 4097]


@pytest.mark.parametrize("sk", SEQLENS_K)
def test_dense_seqlen_k(sk, monkeypatch):
    """Dense cache, no append, per-sequence lengths sk, sk - 1, sk // 3, 0 (no key) in one batch; NaN past them;
    GQA 4:1; num_splits heuristic and 3; fp16 d64 / bf16 d128 alternating."""
    g = gen(sk)
    d, dtype = (64, F16) if SEQLENS_K.index(sk) % 2 else (128, BF16)
    lens = [sk, max(sk - 1, 0), sk // 3, 0]
    kc, vc, kb, vb = dense_caches(4, sk + 3, 1, d, lens, dtype, g)
    q = _randn((4, 1, 4, d), dtype, g)
    kb0, vb0 = kb.clone(), vb.clone()
    for ns in (0, 3):
        out, lse = ab(monkeypatch, lambda: kvcache(q, kc, vc, cache_seqlens=_i32(lens), num_splits=ns),
                      what=f"sk {sk} splits {ns}")
        check_seqs(out, lse, q, [kc[b, :n] for b, n in enumerate(lens)], [vc[b, :n] for b, n in enumerate(lens)],
                   fwd_args(d), f"sk {sk} splits {ns}")
    _same_bits(kb, kb0, "K buffer")
    _same_bits(vb, vb0, "V buffer")


@pytest.mark.parametrize("group", [1, 2, 4, 8, 16])
@pytest.mark.parametrize("dtype", ["bf16", "fp16"])
def test_gqa_groups(group, dtype, monkeypatch):
    """seqlen_q 1, GQA groups 1..8 (plain: <= 8 rows) and 16 (16 rows: Near), 2 kv-heads, append 1 token."""
    g = gen(group * 7 + len(dtype))
    dt = DTYPES[dtype]
    lens = [700, 33, 1]
    kc, vc, kb, vb = dense_caches(3, 800, 2, 128, lens, dt, g)
    q = _randn((3, 1, 2 * group, 128), dt, g)
    k, v = _randn((3, 1, 2, 128), dt, g), _randn((3, 1, 2, 128), dt, g)
    kb0, vb0 = kb.clone(), vb.clone()

    def call():
        a, b = kb0.clone(), vb0.clone()
        o, l = kvcache(q, a[:, :, :2, :128], b[:, :, :2, :128], k, v, cache_seqlens=_i32(lens), num_splits=5)
        return o, l, a, b
    out, lse, ka, va = ab(monkeypatch, call, what=f"group {group}")
    allowed = torch.zeros(ka.shape, dtype=torch.bool, device=DEV)
    for b, n in enumerate(lens):
        allowed[b, n] = True
        assert torch.equal(ka[b, n], k[b, 0]) and torch.equal(va[b, n], v[b, 0])
    unchanged_except(ka, kb0, allowed, "K")
    unchanged_except(va, vb0, allowed, "V")
    check_seqs(out, lse, q, [ka[b, :n + 1] for b, n in enumerate(lens)], [va[b, :n + 1] for b, n in enumerate(lens)],
               fwd_args(128), f"group {group}")


@pytest.mark.parametrize("d", [64, 128, 72, 96, 120])
@pytest.mark.parametrize("dtype", ["bf16", "fp16"])
def test_headdims(d, dtype, monkeypatch):
    """headdim 64 / 128 (plain) and 72 / 96 / 120 (bucket 128 with fewer columns: Near), append 2 tokens
    (seqlen_q 2, causal: the split holding the causal edge is not plain, the others are)."""
    g = gen(d + len(dtype))
    dt = DTYPES[dtype]
    lens = [130, 0, 517]
    kc, vc, kb, vb = dense_caches(3, 600, 2, d, lens, dt, g)
    q = _randn((3, 2, 4, d), dt, g)
    k, v = _randn((3, 2, 2, d), dt, g), _randn((3, 2, 2, d), dt, g)
    kb0, vb0 = kb.clone(), vb.clone()

    def call():
        a, b = kb0.clone(), vb0.clone()
        o, l = kvcache(q, a, b, k, v, cache_seqlens=_i32(lens), causal=True, num_splits=4)
        return o, l, a, b
    out, lse, ka, va = ab(monkeypatch, call, what=f"d {d}")
    allowed = torch.zeros(ka.shape, dtype=torch.bool, device=DEV)
    for b, n in enumerate(lens):
        allowed[b, n:n + 2] = True
    unchanged_except(ka, kb0, allowed, "K")
    unchanged_except(va, vb0, allowed, "V")
    check_seqs(out, lse, q, [ka[b, :n + 2] for b, n in enumerate(lens)], [va[b, :n + 2] for b, n in enumerate(lens)],
               fwd_args(d, True), f"d {d} {dtype}")


# ------------------------------------------------------------------ 3. speculative rows, mixed chunks, windows
@pytest.mark.parametrize("sq", [2, 3, 4, 5, 6, 7, 8])
@pytest.mark.parametrize("causal", [True, False])
def test_speculative(sq, causal, monkeypatch):
    """seqlen_q 2..8 (MQA group 1: sq rows, plain where every key of a split is visible from every row; causal:
    the edge split is not), and group 3 (3 * sq rows: chunks of 16 + rest, mixing plain and Near chunks of one
    split; > 16 rows only with num_splits > 1). Paged page 48 and dense."""
    g = gen(sq * 2 + causal)
    lens = [sq, 90, 1111]
    for group, paged in ((1, False), (3, True)):
        d = 128 if paged else 64
        q = _randn((3, sq, 2 * group, d), F16, g)
        kp, vp, kw, keys, values = filled_caches(lens, 48 if paged else 0, 3, 1200, d, g)
        out, lse = ab(monkeypatch, lambda: kvcache(q, kp, vp, cache_seqlens=_i32(lens), causal=causal, num_splits=6,
                                                   **kw),
                      what=f"sq {sq} group {group}")
        check_seqs(out, lse, q, keys, values, fwd_args(d, causal), f"speculative sq {sq} group {group} causal {causal}")


@pytest.mark.parametrize("window", [(100, 0), (256, -1), (63, 0), (0, 0), (1000, 0)])
def test_windows_mix_plain_and_near(window, monkeypatch):
    """Windows that mask only the long sequences of a batch (short ones fully visible: plain blocks; long ones:
    the split holding the window's start is Near, splits after it plain, splits before it empty), seqlen_q 1 and 3
    causal, paged page 80, num_splits 9."""
    g = gen(window[0] + 3)
    lens = [5, 2000, 64, 999]
    kp, vp, table = paged_caches(lens, 80, 2, 128, BF16, g)
    dense = [paged_fill(kp, vp, table, b, n, g) for b, n in enumerate(lens)]
    for sq in (1, 3):
        q = _randn((4, sq, 4, 128), BF16, g)
        out, lse = ab(monkeypatch, lambda: kvcache(q, kp, vp, cache_seqlens=_i32(lens), block_table=table,
                                                   causal=True, window_size=window, num_splits=9),
                      what=f"window {window} sq {sq}")
        check_seqs(out, lse, q, [x[0] for x in dense], [x[1] for x in dense], fwd_args(128, True, window),
                   f"window {window} sq {sq}")


# ------------------------------------------------------------------ 4. split counts (combine prefetch)
@pytest.mark.parametrize("ns", SPLITS)
@pytest.mark.parametrize("d", [64, 128])
def test_num_splits(ns, d, monkeypatch):
    """num_splits 0..100: more splits than the combine's prefetched rounds (32 at d128, 64 at d64), sequences
    with many empty splits (0 keys + the append, 17, 65) next to a 4097-key one; GQA 6:2 (3 rows)."""
    g = gen(ns * 2 + d)
    lens = [4096, 0, 16, 64]
    kc, vc, kb, vb = dense_caches(4, 4100, 2, d, lens, BF16 if d == 128 else F16, g)
    dt = kc.dtype
    q = _randn((4, 1, 6, d), dt, g)
    k, v = _randn((4, 1, 2, d), dt, g), _randn((4, 1, 2, d), dt, g)
    kb0, vb0 = kb.clone(), vb.clone()

    def call():
        a, b = kb0.clone(), vb0.clone()
        o, l = kvcache(q, a, b, k, v, cache_seqlens=_i32(lens), num_splits=ns)
        return o, l, a, b
    out, lse, ka, va = ab(monkeypatch, call, what=f"splits {ns} d {d}")
    check_seqs(out, lse, q, [ka[b, :n + 1] for b, n in enumerate(lens)], [va[b, :n + 1] for b, n in enumerate(lens)],
               fwd_args(d), f"splits {ns} d {d}")


# ------------------------------------------------------------------ 5. cache_batch_idx, strided views, rotary
@pytest.mark.parametrize("idx", [[4, 0, 2], [1, 1, 1]], ids=["perm", "repeat_noappend"])
def test_cache_batch_idx(idx, monkeypatch):
    """cache_batch_idx: a permuted subset with append (rows not named untouched), a repeated row without append."""
    g = gen(sum(idx))
    rows_lens = [300, 77, 1, 129, 64]
    kc, vc, kb, vb = dense_caches(5, 400, 2, 64, rows_lens, BF16, g)
    append = len(set(idx)) == len(idx)
    q = _randn((3, 1, 8, 64), BF16, g)
    k, v = (_randn((3, 1, 2, 64), BF16, g), _randn((3, 1, 2, 64), BF16, g)) if append else (None, None)
    lens = [rows_lens[r] for r in idx]
    kb0, vb0 = kb.clone(), vb.clone()

    def call():
        a, b = kb0.clone(), vb0.clone()
        o, l = kvcache(q, a, b, k, v, cache_seqlens=_i32(lens), cache_batch_idx=_i32(idx), num_splits=3)
        return o, l, a, b
    out, lse, ka, va = ab(monkeypatch, call, what=f"cache_batch_idx {idx}")
    new = 1 if append else 0
    allowed = torch.zeros(ka.shape, dtype=torch.bool, device=DEV)
    if append:
        for r, n in zip(idx, lens):
            allowed[r, n] = True
    unchanged_except(ka, kb0, allowed, "K")
    unchanged_except(va, vb0, allowed, "V")
    check_seqs(out, lse, q, [ka[r, :n + new] for r, n in zip(idx, lens)], [va[r, :n + new] for r, n in zip(idx, lens)],
               fwd_args(64), f"cache_batch_idx {idx}")


@pytest.mark.parametrize("layout", ["heads", "dim", "both"])
@pytest.mark.parametrize("paged", [False, True])
def test_strided_cache_views(layout, paged, monkeypatch):
    """K/V caches that are views of larger buffers (every other kv-head of 2x the heads, or headdim 128 of 136
    columns: row strides that are not the packed ones, still 16-byte aligned), dense and paged (page 112), with
    append of 3 tokens (seqlen_q 3, group 2: 6 rows, causal); NaN in the skipped heads / columns must stay."""
    g = gen(len(layout) + paged)
    hk, d = 2, 128
    lens = [200, 5, 640]
    new = 3
    hs = 2 if layout in ("heads", "both") else 1
    dp = 8 if layout in ("dim", "both") else 0
    q = _randn((3, new, 4, d), F16, g)
    k, v = _randn((3, new, hk, d), F16, g), _randn((3, new, hk, d), F16, g)
    if paged:
        page = 112
        need = [-(-(n + new) // page) for n in lens]
        nblocks = sum(need) + 2
        bufs = [torch.full((nblocks, page, hk * hs, d + dp), NAN, dtype=F16, device=DEV) for _ in range(2)]
        perm = torch.randperm(nblocks, generator=g).tolist()
        table = torch.full((3, max(need) + 1), -1, dtype=torch.int32)
        it = iter(perm)
        for b in range(3):
            for p in range(need[b]):
                table[b, p] = next(it)
        table = table.to(DEV)
        view = lambda buf: buf[:, :, ::hs, :d]  # noqa: E731
        for b, n in enumerate(lens):
            for c in (view(bufs[0]), view(bufs[1])):
                x = _randn((n, hk, d), F16, g)
                for j0 in range(0, n, page):
                    c[int(table[b, j0 // page]), :min(page, n - j0)] = x[j0:j0 + page]
        kw = dict(block_table=table)
    else:
        bufs = [torch.full((3, 700, hk * hs, d + dp), NAN, dtype=F16, device=DEV) for _ in range(2)]
        view = lambda buf: buf[:, :, ::hs, :d]  # noqa: E731
        for b, n in enumerate(lens):
            for c in (view(bufs[0]), view(bufs[1])):
                c[b, :n] = _randn((n, hk, d), F16, g)
        kw = {}
    kb0, vb0 = bufs[0].clone(), bufs[1].clone()
    assert view(kb0).stride() != view(kb0).contiguous().stride() or layout == "none"

    def call():
        a, b = kb0.clone(), vb0.clone()
        o, l = kvcache(q, view(a), view(b), k, v, cache_seqlens=_i32(lens), causal=True, num_splits=4, **kw)
        return o, l, a, b
    out, lse, ka, va = ab(monkeypatch, call, what=f"strided {layout} paged {paged}")
    allowed = torch.zeros(ka.shape, dtype=torch.bool, device=DEV)
    sel = torch.zeros(ka.shape, dtype=torch.bool, device=DEV)
    view(sel).fill_(True)
    if paged:
        t = table.cpu()
        keys = [paged_rows(view(ka), table, b, n + new) for b, n in enumerate(lens)]
        values = [paged_rows(view(va), table, b, n + new) for b, n in enumerate(lens)]
        for b, n in enumerate(lens):
            for j in range(n, n + new):
                allowed[int(t[b, j // page]), j % page] = True
    else:
        keys = [view(ka)[b, :n + new] for b, n in enumerate(lens)]
        values = [view(va)[b, :n + new] for b, n in enumerate(lens)]
        for b, n in enumerate(lens):
            allowed[b, n:n + new] = True
    allowed &= sel
    unchanged_except(ka, kb0, allowed, "K buffer")
    unchanged_except(va, vb0, allowed, "V buffer")
    for b in range(3):
        assert torch.equal(keys[b][-new:], k[b]) and torch.equal(values[b][-new:], v[b]), f"append seq {b}"
    check_seqs(out, lse, q, keys, values, fwd_args(d, True), f"strided {layout} paged {paged}")


@pytest.mark.parametrize("interleaved", [True, False])
@pytest.mark.parametrize("paged", [False, True])
def test_append_rotary(interleaved, paged, monkeypatch):
    """Append 4 tokens with rotary (rotary_dim 64 of 128) straddling split boundaries (num_splits 16 over ~1000
    keys: 64-key splits; the fold of the KV-cache step writes a split's new keys before its own reads), seqlen_q 4
    group 2 (8 rows: plain) causal; dense and paged (page 176). The appended rows are the rotated new keys (fp64
    rotary within an fp16 rounding) and the output matches attention over the cache as written."""
    g = gen(interleaved * 2 + paged)
    d, hk, new = 128, 2, 4
    lens = [62, 1000, 127]  # new tokens 62..65 cross the 64-key split boundary; 127..130 cross 128
    cos = torch.rand((1200, 32), generator=g).mul(6.28).cos().to(DEV, F16)
    sin = torch.rand((1200, 32), generator=g).mul(6.28).sin().to(DEV, F16)
    q = _randn((3, new, 4, d), F16, g)
    k, v = _randn((3, new, hk, d), F16, g), _randn((3, new, hk, d), F16, g)
    if paged:
        kc, vc, table = paged_caches([n + new for n in lens], 176, hk, d, F16, g)
        for b, n in enumerate(lens):
            paged_fill(kc, vc, table, b, n, g)
        kw = dict(block_table=table)
    else:
        kc, vc, _, _ = dense_caches(3, 1100, hk, d, lens, F16, g)
        kc, vc = kc.contiguous(), vc.contiguous()
        kw = {}
    kc0, vc0 = kc.clone(), vc.clone()

    def call():
        a, b = kc0.clone(), vc0.clone()
        o, l = kvcache(q, a, b, k, v, rotary_cos=cos, rotary_sin=sin, cache_seqlens=_i32(lens), causal=True,
                       rotary_interleaved=interleaved, num_splits=16, **kw)
        return o, l, a, b
    out, lse, ka, va = ab(monkeypatch, call, what=f"rotary interleaved {interleaved} paged {paged}")
    pos = torch.stack([torch.arange(n, n + new) for n in lens]).to(DEV)
    q_rot = apply_rotary(q, cos, sin, pos, interleaved)
    k_rot = apply_rotary(k, cos, sin, pos, interleaved)
    if paged:
        keys = [paged_rows(ka, table, b, n + new) for b, n in enumerate(lens)]
        values = [paged_rows(va, table, b, n + new) for b, n in enumerate(lens)]
    else:
        keys = [ka[b, :n + new] for b, n in enumerate(lens)]
        values = [va[b, :n + new] for b, n in enumerate(lens)]
    for b in range(3):
        assert (keys[b][-new:].double() - k_rot[b].double()).abs().max() <= 2e-3 * (1 + k_rot[b].abs().max()), b
        assert torch.equal(values[b][-new:], v[b])
        assert not keys[b].isnan().any()
    check_seqs(out, lse, q_rot, keys, values, fwd_args(d, True), f"rotary {interleaved} paged {paged}")


# ------------------------------------------------------------------ 6. flash_attn_func / varlen at seqlen_q 1
@pytest.mark.parametrize("sk", [1, 17, 65, 4097])
@pytest.mark.parametrize("inflight", [1, 2])
def test_func_and_varlen_decode(sk, inflight, monkeypatch):
    """flash_attn_func at seqlen_q 1 (split-KV: 1 x group rows) and flash_attn_varlen_func with max_seqlen_q 1
    and per-sequence key counts (cu_seqlens_k: 0-free lengths sk, 1, sk // 2 + 3), GQA 8:1 / 4:2, INFLIGHT 1 / 2;
    K, V inside NaN-padded buffers (every other head of 2x, rows of headdim + 8)."""
    g = gen(sk + inflight)
    d = 64 if sk % 2 else 128
    q = _randn((2, 1, 8, d), BF16, g)
    kbuf = torch.full((2, sk, 2, d + 8), NAN, dtype=BF16, device=DEV)
    vbuf = torch.full((2, sk, 2, d + 8), NAN, dtype=BF16, device=DEV)
    k, v = kbuf[:, :, :1, :d], vbuf[:, :, :1, :d]
    k.copy_(_randn(k.shape, BF16, g))
    v.copy_(_randn(v.shape, BF16, g))
    out, lse = ab(monkeypatch, lambda: rocflash.flash_attn_func(q, k, v, return_attn_probs=True,
                                                               backend=_backend())[:2],
                  inflight=inflight, what=f"func sk {sk}")
    assert_close_to_reference(out, lse, q, k, v, fwd_args(d), f"func sk {sk}")

    lens = [sk, 1, sk // 2 + 3]
    cu = torch.tensor([0] + torch.tensor(lens).cumsum(0).tolist(), dtype=torch.int32, device=DEV)
    total = sum(lens)
    qv = _randn((3, 4, d), F16, g)
    kv_buf = torch.full((2, total, 4, d), NAN, dtype=F16, device=DEV)
    kv_buf[:, :, ::2] = _randn((2, total, 2, d), F16, g)
    kk, vv = kv_buf[0, :, ::2], kv_buf[1, :, ::2]
    cu_q = torch.arange(4, dtype=torch.int32, device=DEV)
    out, lse = ab(monkeypatch, lambda: rocflash.flash_attn_varlen_func(
        qv, kk, vv, cu_q, cu, 1, max(lens), return_attn_probs=True, backend=_backend())[:2],
        inflight=inflight, what=f"varlen sk {sk}")
    assert out.shape == qv.shape
    for b in range(3):
        s, e = int(cu[b]), int(cu[b + 1])
        assert_close_to_reference(out[None, b:b + 1], lse[:, b:b + 1][None], qv[None, b:b + 1], kk[None, s:e],
                                  vv[None, s:e], fwd_args(d), f"varlen sk {sk} seq {b}")


# ------------------------------------------------------------------ 7. INFLIGHT=2, long cache, NaN in the last tile
@pytest.mark.parametrize("page", [0, 16, 176, 256])
def test_inflight2(page, monkeypatch):
    """ROCFLASH_SPLITKV_INFLIGHT=2 (kv_k_first 7 vs Near with two tiles in flight): same bits; counts per warp of
    1, 2, 3 (keys 16..192 with one split) and many; dense and paged."""
    g = gen(page + 11)
    lens = [16, 80, 150, 192, 1777]
    d = 64 if page in (16, 256) else 128
    kc, vc, kw, keys, values = filled_caches(lens, page, 5, 1800, d, g)
    q = _randn((5, 1, 16, d), F16, g)
    for ns in (1, 2, 0):
        out, lse = ab(monkeypatch, lambda: kvcache(q, kc, vc, cache_seqlens=_i32(lens), num_splits=ns, **kw),
                      inflight=2, what=f"inflight 2 page {page} splits {ns}")
        check_seqs(out, lse, q, keys, values, fwd_args(d), f"inflight 2 page {page} splits {ns}")


@pytest.mark.parametrize("sk", [131072, 65536 + 17])
def test_long_cache(sk, monkeypatch):
    """One long sequence (128k keys, paged page 144 / dense), MQA 8:1 d128 bf16, heuristic splits and 100."""
    g = gen(sk % 1000)
    if sk == 131072:
        kc, vc, table = paged_caches([sk], 144, 1, 128, BF16, g)
        keys, values = paged_fill(kc, vc, table, 0, sk, g)
        kw = dict(block_table=table)
    else:
        kc, vc, _, _ = dense_caches(1, sk + 5, 1, 128, [sk], BF16, g)
        keys, values, kw = kc[0, :sk], vc[0, :sk], {}
    q = _randn((1, 1, 8, 128), BF16, g)
    for ns in (0, 100):
        out, lse = ab(monkeypatch, lambda: kvcache(q, kc, vc, cache_seqlens=_i32([sk]), num_splits=ns, **kw),
                      what=f"long {sk} splits {ns}")
        check_seqs(out, lse, q, [keys], [values], fwd_args(128), f"long {sk} splits {ns}")


@pytest.mark.parametrize("where", ["last_tile_past_end", "tile_pad_rows"])
def test_nan_right_past_the_end(where, monkeypatch):
    """NaN / inf in the cache slots right after cache_seqlens, inside the split's last tile (zero-filled by the
    plain copy: a read would put NaN in O) or in the rows of the last 16-key tile of a 64-key step that lie past
    ke (rows_left: the lane's first row vs ke), for lengths 1..17 and 63..65 with one split and many."""
    g = gen(len(where))
    lens = [1, 2, 7, 15, 17, 63, 65, 33] if where == "last_tile_past_end" else [49, 50, 31, 97, 113, 127, 3, 129]
    kc, vc, kb, vb = dense_caches(len(lens), 200, 1, 64, lens, BF16, g)
    for b, n in enumerate(lens):
        kc[b, n:, :, ::2] = float("inf")
        vc[b, n:, :, 1::2] = float("inf")
    q = _randn((len(lens), 1, 2, 64), BF16, g)
    for ns in (1, 5):
        out, lse = ab(monkeypatch, lambda: kvcache(q, kc, vc, cache_seqlens=_i32(lens), num_splits=ns),
                      what=f"{where} splits {ns}")
        check_seqs(out, lse, q, [kc[b, :n] for b, n in enumerate(lens)], [vc[b, :n] for b, n in enumerate(lens)],
                   fwd_args(64), f"{where} splits {ns}")


def test_softcap_alibi_not_plain_same_bits(monkeypatch):
    """softcap and ALiBi blocks never take the plain loop: PLAIN=1 and 0 give the same bits and the reference."""
    g = gen(5)
    lens = [300, 17]
    kc, vc, _, _ = dense_caches(2, 320, 2, 128, lens, BF16, g)
    q = _randn((2, 1, 4, 128), BF16, g)
    slopes = torch.rand((4,), generator=g).to(DEV) * 0.3
    for kw, args in ((dict(softcap=5.0), fwd_args(128, softcap=5.0)),
                     (dict(alibi_slopes=slopes), fwd_args(128, alibi_slopes=slopes))):
        out, lse = ab(monkeypatch, lambda: kvcache(q, kc, vc, cache_seqlens=_i32(lens), num_splits=3, **kw),
                      what=str(list(kw)))
        check_seqs(out, lse, q, [kc[b, :n] for b, n in enumerate(lens)], [vc[b, :n] for b, n in enumerate(lens)],
                   args, str(list(kw)))


@pytest.mark.parametrize("paged", [False, True])
def test_fold_append_two_row_chunks(paged, monkeypatch):
    """The KV-cache step folded into the split kernel with two row chunks per (split, kv-head): seqlen_q 3 x group
    8 = 24 rows (chunk 0: 16 rows, Near; chunk 1: 8 rows, plain), both chunks' blocks write the split's new keys
    before reading them; 3 new tokens across a split boundary (num_splits 8), non-causal (every split of chunk 1
    is plain-eligible), page 240."""
    g = gen(21 + paged)
    lens = [510, 61, 1]
    new, d = 3, 128
    q = _randn((3, new, 16, d), BF16, g)
    k, v = _randn((3, new, 2, d), BF16, g), _randn((3, new, 2, d), BF16, g)
    if paged:
        kc, vc, table = paged_caches([n + new for n in lens], 240, 2, d, BF16, g)
        for b, n in enumerate(lens):
            paged_fill(kc, vc, table, b, n, g)
        kw = dict(block_table=table)
    else:
        kc, vc, _, _ = dense_caches(3, 520, 2, d, lens, BF16, g)
        kc, vc = kc.contiguous(), vc.contiguous()
        kw = {}
    kc0, vc0 = kc.clone(), vc.clone()

    def call():
        a, b = kc0.clone(), vc0.clone()
        o, l = kvcache(q, a, b, k, v, cache_seqlens=_i32(lens), num_splits=8, **kw)
        return o, l, a, b
    out, lse, ka, va = ab(monkeypatch, call, what=f"fold two chunks paged {paged}")
    if paged:
        keys = [paged_rows(ka, table, b, n + new) for b, n in enumerate(lens)]
        values = [paged_rows(va, table, b, n + new) for b, n in enumerate(lens)]
    else:
        keys = [ka[b, :n + new] for b, n in enumerate(lens)]
        values = [va[b, :n + new] for b, n in enumerate(lens)]
    for b in range(3):
        assert torch.equal(keys[b][-new:], k[b]) and torch.equal(values[b][-new:], v[b]), f"append seq {b}"
    check_seqs(out, lse, q, keys, values, fwd_args(d), f"fold two chunks paged {paged}")
