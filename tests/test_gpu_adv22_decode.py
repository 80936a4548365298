"""Adversarial decode cases (adv22) for flash_attn_with_kvcache / flash_attn_varlen_func on the tensor-core split-KV
kernel (hip_src/fmha_splitkv_mma.h, fmha_splitkv_mma_plain.h), the KV-cache step folded into it (hip_src/
fmha_kvstep.h), the split combine and the Python dispatch (rocflash/interface.py, kvcache.py, kvcache_fast.py,
splitkv.py, backends/compiled.py).

What is attacked: speculate_first_tiles copies each warp's first two plain-loop tiles (16 keys each, tile c of warp w
of split s at s * kps + 64 c + 16 w) BEFORE the folded step has read cache_seqlens / the block table and written the
append; run_plain may take such a copy only when every row of it is an old key (< cache_seqlens) of the split. So:

- every cache slot a call must not read holds NaN: slots at and past cache_seqlens (the slots the append writes
  included: a speculative copy of them taken before the append reads NaN), the slots past the cache's capacity of
  a view cut out of a longer buffer, the heads / columns around a strided view, unused paged blocks; block-table
  entries past each sequence's pages point at NaN blocks, at blocks of other sequences (finite keys: a wrong take
  gives a wrong, finite result, which the fp64 rule catches), -1 or 2**31 - 1;
- lengths end exactly on a 16 / 64 / 128-key tile edge, one short, one past, at 0 and at capacity - seqlen_new;
  appends of 1..8 keys (seqlen_q = seqlen_new causal: speculative decoding's verify step, and seqlen_q 1);
- num_splits forced (1, 2, 3, 4, 7, 64, 128: more splits than tiles) and the heuristic; GQA groups 1 / 2 / 4 / 8
  (plain: <= 8 rows) and 16 (not plain); fp16 and bf16; headdim 64 / 128 and 72 / 96 / 120 / 256; q views;
- a decode loop (cache_seqlens + 1 per step with one signature: the compiled backends' fast path, folded step);
- errors: the ValueError named by the docstring, with the caller's cache bitwise unchanged.

Every call runs REPEAT times on fresh copies of the caches (3 on the GPU: the first call takes the full path, with
the append done by torch ops, the next ones the fast path with the folded step and its speculative copies): all
bitwise identical (O, LSE, caches). Then each sequence's O and LSE against fp64 with FlashAttention's rule
(conftest.assert_close_to_reference via adv_backend.check_per_sequence; outputs poisoned with NaN by conftest),
the appended rows equal to k / v and every other bit of the caller's buffers unchanged.

CPU validation of the test logic: ``cd tests && ADV22_BACKEND=torch PYTHONPATH=.. python3 -m pytest -q -p
no:cacheprovider test_gpu_adv22_decode.py`` (or ADV22_BACKEND=sim: the split-KV kernel's tiling simulated, with
num_splits honoured). Unset (the GPU run) it is the compiled backend of the GPU, marker ``gpu`` (skipped without one).
"""

from __future__ import annotations

import pytest
import torch

import rocflash
import rocflash.interface as rf_interface
import rocflash.varlen as rf_varlen
from adv_backend import AdvBackend, check_per_sequence, gen
from conftest import DTYPES, assert_close_to_reference, fwd_args
from rocflash import kvcache_fast
from rocflash.backends import compiled

_B = AdvBackend("ADV22_BACKEND")
ON_GPU, DEV, pytestmark = _B.on_gpu, _B.dev, _B.marks
_backend, _sync, _randn = _B.name, _B.sync, _B.randn
NAN = float("nan")
F16, BF16 = torch.float16, torch.bfloat16
REPEAT = 3 if ON_GPU else 2  # GPU: full path, then the fast path (folded step, speculative copies) twice


# ------------------------------------------------------------------ helpers
def _bits(t):
    if t.dtype in (F16, BF16):
        return t.contiguous().view(torch.int16)
    if t.dtype == torch.float32:
        return t.contiguous().view(torch.int32)
    return t


def _same_bits(a, b, what):
    assert a.shape == b.shape and a.dtype == b.dtype, what
    diff = _bits(a) != _bits(b)
    assert not diff.any(), f"{what}: differs in {int(diff.sum())} elements"


def _fresh():
    """Forget every signature: the next call takes the full path (checks on the host, append by torch ops)."""
    kvcache_fast._PLANS.clear()
    rf_varlen._PLANS.clear()
    rf_interface._CHECKED.clear()
    compiled._PARAMS_CACHE.clear()


def repeated(fn, what, n=REPEAT, fresh=True):
    """fn() -> tuple of tensors, n times: bitwise the same every time; the first result."""
    if fresh:
        _fresh()
    first = fn()
    _sync()
    for i in range(1, n):
        again = fn()
        _sync()
        for j, (a, b) in enumerate(zip(again, first)):
            _same_bits(a, b, f"{what}: call {i + 1} result {j} vs call 1")
    return first


def _i32(x):
    return torch.tensor(x, dtype=torch.int32, device=DEV)


def kvcache(q, kc, vc, k=None, v=None, **kw):
    return rocflash.flash_attn_with_kvcache(q, kc, vc, k, v, return_softmax_lse=True, backend=_backend(), **kw)


def unchanged_except(after, before, allowed, what):
    """Bitwise equal (NaN bits included) except where ``allowed`` (bool mask) is True."""
    diff = _bits(after) != _bits(before)
    assert not (diff & ~allowed).any(), f"{what}: the cache changed outside the appended rows " \
        f"({int((diff & ~allowed).sum())} elements)"


class Dense:
    """A dense K/V cache (rows, cap, hk, d) as a view of a NaN buffer (rows, cap + cap_pad, hk + head_pad (every
    ``head_step``-th head used), d + dim_pad); keys [0, lens[r]) random, NaN past them (and around the view)."""

    def __init__(self, rows, cap, hk, d, lens, dtype, g, cap_pad=0, head_pad=0, dim_pad=0, head_step=1):
        self.cap, self.hk, self.d, self.head_step = cap, hk, d, head_step
        shape = (rows, cap + cap_pad, hk * head_step + head_pad, d + dim_pad)
        self.kb = torch.full(shape, NAN, dtype=dtype, device=DEV)
        self.vb = torch.full(shape, NAN, dtype=dtype, device=DEV)
        for buf in (self.kb, self.vb):
            c = self.view(buf)
            for r, n in enumerate(lens):
                c[r, :n] = _randn((n, hk, d), dtype, g)

    def view(self, buf):
        return buf[:, :self.cap, :self.hk * self.head_step:self.head_step, :self.d]

    def call(self, q, k=None, v=None, **kw):
        """A function running the call on fresh copies of the buffers: (out, lse, k buffer, v buffer)."""
        def fn():
            a, b = self.kb.clone(), self.vb.clone()
            o, l = kvcache(q, self.view(a), self.view(b), k, v, **kw)
            return o, l, a, b
        return fn

    def check(self, res, q, k, v, rows, lens, args, what):
        """The appended rows, nothing else changed, and each sequence against fp64."""
        out, lse, ka, va = res
        new = 0 if k is None else k.shape[1]
        allowed = torch.zeros(ka.shape, dtype=torch.bool, device=DEV)
        va_view, ka_view = self.view(va), self.view(ka)
        sel = self.view(allowed)
        for b, (r, n) in enumerate(zip(rows, lens)):
            sel[r, n:n + new] = True
            if new:
                assert torch.equal(ka_view[r, n:n + new], k[b]) and torch.equal(va_view[r, n:n + new], v[b]), \
                    f"{what}: appended rows of sequence {b}"
        unchanged_except(ka, self.kb, allowed, f"{what} K")
        unchanged_except(va, self.vb, allowed, f"{what} V")
        check_per_sequence(out, lse, q, [ka_view[r, :n + new] for r, n in zip(rows, lens)],
                           [va_view[r, :n + new] for r, n in zip(rows, lens)], args, what)


class Paged:
    """Paged K/V caches holding sequences of ``lens`` keys (+ ``new`` to be appended): shuffled blocks, 3 spare NaN
    blocks; table columns past each sequence's pages: junk cycling through a spare NaN block, a block of another
    sequence (finite keys), -1 and 2**31 - 1 (``junk``), else -1."""

    def __init__(self, lens, new, page, hk, d, dtype, g, spare_cols=1, junk=True):
        self.page, self.lens, self.new = page, lens, new
        need = [-(-(n + new) // page) for n in lens]
        width = max(max(need), 1) + spare_cols
        nblocks = sum(need) + 3
        perm = torch.randperm(nblocks, generator=g).tolist()
        shape = (nblocks, page, hk, d)
        self.kp = torch.full(shape, NAN, dtype=dtype, device=DEV)
        self.vp = torch.full(shape, NAN, dtype=dtype, device=DEV)
        table = torch.full((len(lens), width), -1, dtype=torch.int32)
        it = iter(perm)
        for b in range(len(lens)):
            for p in range(need[b]):
                table[b, p] = next(it)
        spare = list(it)
        if junk:
            owned = [int(x) for x in table[table >= 0]]
            for b in range(len(lens)):
                for j in range(need[b], width):
                    pick = (b + j) % 4
                    table[b, j] = (spare[j % len(spare)], owned[(b * 7 + j) % len(owned)], -1, 2 ** 31 - 1)[pick] \
                        if owned else -1
        self.table = table.to(DEV)
        self.keys, self.values = [], []
        t = table
        for b, n in enumerate(lens):
            kk, vv = _randn((n, hk, d), dtype, g), _randn((n, hk, d), dtype, g)
            for j0 in range(0, n, page):
                m = min(page, n - j0)
                blk = int(t[b, j0 // page])
                self.kp[blk, :m], self.vp[blk, :m] = kk[j0:j0 + m], vv[j0:j0 + m]
            self.keys.append(kk)
            self.values.append(vv)

    def rows(self, cache, b, n):
        t = self.table.cpu()
        if n == 0:
            return cache[:0, 0]
        return torch.cat([cache[int(t[b, j0 // self.page]), :min(self.page, n - j0)] for j0 in range(0, n, self.page)])

    def call(self, q, k=None, v=None, **kw):
        def fn():
            a, b = self.kp.clone(), self.vp.clone()
            o, l = kvcache(q, a, b, k, v, block_table=self.table, **kw)
            return o, l, a, b
        return fn

    def check(self, res, q, k, v, args, what):
        out, lse, ka, va = res
        new = 0 if k is None else k.shape[1]
        allowed = torch.zeros(ka.shape[:2], dtype=torch.bool, device=DEV)
        t = self.table.cpu()
        for b, n in enumerate(self.lens):
            for j in range(n, n + new):
                allowed[int(t[b, j // self.page]), j % self.page] = True
        allowed = allowed[:, :, None, None].expand_as(ka)
        unchanged_except(ka, self.kp, allowed, f"{what} K")
        unchanged_except(va, self.vp, allowed, f"{what} V")
        keys = [self.rows(ka, b, n + new) for b, n in enumerate(self.lens)]
        values = [self.rows(va, b, n + new) for b, n in enumerate(self.lens)]
        for b, n in enumerate(self.lens):
            assert torch.equal(keys[b][:n], self.keys[b]) and torch.equal(values[b][:n], self.values[b]), \
                f"{what}: old keys of sequence {b}"
            if new:
                assert torch.equal(keys[b][n:], k[b]) and torch.equal(values[b][n:], v[b]), \
                    f"{what}: appended rows of sequence {b}"
        check_per_sequence(out, lse, q, keys, values, args, what)


# ------------------------------------------------------------------ 1. appends against the speculative copies (dense)
CAP = 512  # num_splits 4: 128 keys per split (block_n 64), each warp of the tensor-core kernel 2 tiles per split


def _edge_lens(new):
    """Old lengths around the first tiles' edges (16-key tiles of warps 0..3 at 16 w, the second tiles at 64 + 16 w,
    split 1 at 128): new rows ending exactly at a tile's end, old keys filling one exactly, one short / past, only new
    keys (0), a full cache (CAP - new)."""
    return [0, 16 - new, 16, 17, 64 - new, 63, 128, 144 - new, CAP - new, 191]


@pytest.mark.parametrize("dtype", ["fp16", "bf16"])
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("new", [1, 2, 3, 5, 8])
def test_append_at_tile_edges(new, causal, dtype, monkeypatch):
    """Dense cache (a view of CAP of CAP + 24 rows: NaN past the capacity too), append ``new`` keys; causal:
    seqlen_q = new (the verify step; group 8 // new, <= 8 rows: plain-eligible parameters), else seqlen_q 1 group 8.
    num_splits 4 (128-key splits) and the heuristic."""
    g = gen(new * 4 + causal * 2 + len(dtype))
    dt = DTYPES[dtype]
    d = 128 if (new + causal) % 2 else 64
    lens = _edge_lens(new)
    sq, group = (new, max(1, 8 // new)) if causal else (1, 8)
    hk = 2
    cache = Dense(len(lens), CAP, hk, d, lens, dt, g, cap_pad=24)
    q = _randn((len(lens), sq, hk * group, d), dt, g)
    k, v = _randn((len(lens), new, hk, d), dt, g), _randn((len(lens), new, hk, d), dt, g)
    for ns in (4, 0):
        what = f"new {new} causal {causal} {dtype} splits {ns}"
        res = repeated(cache.call(q, k, v, cache_seqlens=_i32(lens), causal=causal, num_splits=ns), what)
        cache.check(res, q, k, v, range(len(lens)), lens, fwd_args(d, causal), what)


# ------------------------------------------------------------------ 2. paged: junk table entries, page sizes
PAGES = [16, 32, 48, 64, 80, 128, 144, 176, 256]


@pytest.mark.parametrize("new", [0, 2])
@pytest.mark.parametrize("page", PAGES)
def test_paged_junk_table(page, new, monkeypatch):
    """Paged cache, table entries past each sequence's pages junk (a NaN block, another sequence's block, -1,
    2**31 - 1; two spare columns, so the speculative copies' table reads within the capacity meet them), lengths on
    page and tile edges, 0 (no key without append: O 0, LSE -inf); no append (the fast path with the folded step and
    speculation) and 2 appended keys (the host path's append); GQA 8:2; num_splits 3 and 1."""
    g = gen(page * 3 + new)
    dt = BF16 if PAGES.index(page) % 2 else F16
    d = 64 if page in (48, 176) else 128
    lens = [page, page - 1, page + 1, 16, 0, 64, 128 - new, 2 * page + 16]
    cache = Paged(lens, new, page, 2, d, dt, g, spare_cols=2)
    q = _randn((len(lens), 1, 8, d), dt, g)
    k, v = (_randn((len(lens), new, 2, d), dt, g), _randn((len(lens), new, 2, d), dt, g)) if new else (None, None)
    for ns in (3, 1):
        what = f"page {page} new {new} splits {ns}"
        res = repeated(cache.call(q, k, v, cache_seqlens=_i32(lens), num_splits=ns), what)
        cache.check(res, q, k, v, fwd_args(d), what)


# ------------------------------------------------------------------ 3. a decode loop on one signature
@pytest.mark.parametrize("layout", ["dense", "dense_strided", "paged16", "paged48"])
def test_decode_loop(layout, monkeypatch):
    """Four decode steps (1 new key each, cache_seqlens + 1 per step, the same signature: on the GPU steps 2-4 take
    the fast path) over lengths that cross the 16 / 64 / 128-key edges during the loop (13..16, 62..65, 125..128,
    0..3); each step repeated on its own output cache (the same append at the same slots: idempotent, so the same
    bits), checked against fp64 after each step."""
    g = gen(len(layout))
    lens0 = [13, 62, 125, 0, 300]
    steps, hk, d = 4, 2, 128
    dt = BF16 if layout.endswith("16") or layout == "dense" else F16
    batch = len(lens0)
    q_all = _randn((steps, batch, 1, 4 * hk, d), dt, g)
    k_all, v_all = _randn((steps, batch, 1, hk, d), dt, g), _randn((steps, batch, 1, hk, d), dt, g)
    if layout.startswith("paged"):
        page = int(layout[5:])
        cache = Paged(lens0, steps, page, hk, d, dt, g, spare_cols=1)
        kc, vc = cache.kp.clone(), cache.vp.clone()
        kw = dict(block_table=cache.table)
        kv_view = lambda x: x  # noqa: E731
        keys_of = lambda x, b, n: cache.rows(x, b, n)  # noqa: E731
        kb, vb = kc, vc
    else:
        strided = layout == "dense_strided"
        cache = Dense(batch, 336, hk, d, lens0, dt, g, cap_pad=16 if strided else 0, head_pad=2 if strided else 0,
                      dim_pad=8 if strided else 0, head_step=2 if strided else 1)
        kb, vb = cache.kb.clone(), cache.vb.clone()
        kw = {}
        kv_view = cache.view
        keys_of = lambda x, b, n: x[b, :n]  # noqa: E731
    _fresh()
    for t in range(steps):
        lens = [n + t for n in lens0]
        q, k, v = q_all[t], k_all[t], v_all[t]
        before_k, before_v = kb.clone(), vb.clone()
        res = repeated(lambda: kvcache(q, kv_view(kb), kv_view(vb), k, v, cache_seqlens=_i32(lens), num_splits=3,
                                       **kw) + (kb.clone(), vb.clone()),
                       f"{layout} step {t}", fresh=False)
        out, lse = res[0], res[1]
        kview, vview = kv_view(kb), kv_view(vb)
        for b, n in enumerate(lens):
            assert torch.equal(keys_of(kview, b, n + 1)[n], k[b, 0]), f"{layout} step {t} append {b}"
            assert torch.equal(keys_of(vview, b, n + 1)[n], v[b, 0]), f"{layout} step {t} append {b}"
        # only the appended slots changed in this step
        changed_k = (_bits(kb) != _bits(before_k))
        changed_v = (_bits(vb) != _bits(before_v))
        assert int(changed_k.sum()) == int(changed_v.sum()) == batch * hk * d, f"{layout} step {t}: writes outside the appended slots"
        check_per_sequence(out, lse, q, [keys_of(kview, b, n + 1) for b, n in enumerate(lens)],
                           [keys_of(vview, b, n + 1) for b, n in enumerate(lens)], fwd_args(d), f"{layout} step {t}")


# ------------------------------------------------------------------ 4. num_splits, empty sequences
@pytest.mark.parametrize("append", [False, True], ids=["noappend", "append"])
@pytest.mark.parametrize("ns", [1, 2, 3, 7, 64, 128])
def test_num_splits_mixed_batch(ns, append, monkeypatch):
    """Forced num_splits (64 and 128: more splits than 16-key tiles for most sequences, most splits empty) on a
    batch mixing empty sequences (0 keys: without append O 0 / LSE -inf; with append only the new keys), 1 key,
    tile edges and a full cache; GQA 4:1 fp16 d64 / 6:2 bf16 d128 alternating."""
    g = gen(ns * 2 + append)
    d, dt, h, hk = (64, F16, 4, 1) if ns % 2 else (128, BF16, 6, 2)
    new = 3 if append else 0
    cap = 384
    lens = [0, 1, 15, 16, 17, 65, cap - new, 0, 200]
    cache = Dense(len(lens), cap, hk, d, lens, dt, g, cap_pad=8)
    q = _randn((len(lens), 1, h, d), dt, g)
    k, v = (_randn((len(lens), new, hk, d), dt, g), _randn((len(lens), new, hk, d), dt, g)) if append else (None, None)
    what = f"splits {ns} append {append}"
    res = repeated(cache.call(q, k, v, cache_seqlens=_i32(lens), num_splits=ns), what)
    cache.check(res, q, k, v, range(len(lens)), lens, fwd_args(d), what)


# ------------------------------------------------------------------ 5. GQA groups and headdims
GQA_CASES = [  # (headdim, group, seqlen_q, dtype)
    (64, 1, 1, "fp16"), (64, 8, 1, "bf16"), (64, 16, 1, "fp16"), (128, 4, 2, "bf16"), (128, 8, 1, "fp16"),
    (128, 16, 1, "bf16"), (72, 8, 1, "fp16"), (96, 4, 2, "bf16"), (120, 2, 4, "fp16"), (256, 8, 1, "bf16"),
    (256, 1, 8, "fp16"), (128, 1, 8, "bf16"),
]


@pytest.mark.parametrize("d,group,sq,dtype", GQA_CASES, ids=[f"d{c[0]}_g{c[1]}_q{c[2]}_{c[3]}" for c in GQA_CASES])
def test_gqa_headdims(d, group, sq, dtype, monkeypatch):
    """GQA groups 1..16 x seqlen_q (group x seqlen_q <= 8: plain-eligible; 16: not), headdim buckets exact (64, 128,
    256) and not (72, 96, 120: zero-padded columns), append sq keys, causal, num_splits 4."""
    g = gen(d * 3 + group * 5 + sq)
    dt = DTYPES[dtype]
    hk = 2
    cap = 256
    lens = [64 - sq, 128, 0, 100, cap - sq]
    cache = Dense(len(lens), cap, hk, d, lens, dt, g)
    q = _randn((len(lens), sq, hk * group, d), dt, g)
    k, v = _randn((len(lens), sq, hk, d), dt, g), _randn((len(lens), sq, hk, d), dt, g)
    what = f"d {d} group {group} sq {sq} {dtype}"
    res = repeated(cache.call(q, k, v, cache_seqlens=_i32(lens), causal=True, num_splits=4), what)
    cache.check(res, q, k, v, range(len(lens)), lens, fwd_args(d, True), what)


# ------------------------------------------------------------------ 6. strided caches and q views
@pytest.mark.parametrize("layout", ["heads", "dim", "cap", "q_slice", "q_transposed"])
def test_strided_views(layout, monkeypatch):
    """Caches cut out of NaN buffers (every other kv-head, headdim 128 of 136 columns, capacity 200 of 264 rows) and
    q as a slice of a packed qkv buffer (row stride 3x) or with stride(-1) != 1 (a transposed copy: the API copies
    it); append 1 key, GQA 8:2, num_splits 2 and 0."""
    g = gen(len(layout) * 11)
    hk, d, cap, dt = 2, 128, 200, BF16 if len(layout) % 2 else F16
    lens = [16, 0, 63, 199, 128]
    kw = dict(heads=dict(head_step=2, head_pad=1), dim=dict(dim_pad=8), cap=dict(cap_pad=64)).get(layout, {})
    cache = Dense(len(lens), cap, hk, d, lens, dt, g, **kw)
    b, h = len(lens), 8
    if layout == "q_slice":
        qkv = _randn((b, 1, 3, h, d), dt, g)
        q = qkv[:, :, 1]
        assert not q.is_contiguous()
    elif layout == "q_transposed":
        q = _randn((b, 1, h, d), dt, g).transpose(-1, -2).contiguous().transpose(-1, -2)
        assert q.stride(-1) != 1
    else:
        q = _randn((b, 1, h, d), dt, g)
    k, v = _randn((b, 1, hk, d), dt, g), _randn((b, 1, hk, d), dt, g)
    for ns in (2, 0):
        what = f"{layout} splits {ns}"
        res = repeated(cache.call(q, k, v, cache_seqlens=_i32(lens), num_splits=ns), what)
        cache.check(res, q, k, v, range(b), lens, fwd_args(d), what)


# ------------------------------------------------------------------ 7. cache_batch_idx
@pytest.mark.parametrize("idx,append", [([5, 0, 3, 1], True), ([2, 2, 2, 0], False), ([3, 1, 0, 2], False),
                                        ([0, 1, 2, 3], True)], ids=["perm_append", "repeat", "perm", "identity_append"])
def test_cache_batch_idx(idx, append, monkeypatch):
    """cache_batch_idx: a permuted subset of 6 rows with append (rows not named untouched), one row repeated
    without append (three sequences reading one row), a permutation without append (the speculative copies must not
    assume row b: they are off with cache_batch_idx), the identity with append; lengths on tile edges."""
    g = gen(sum(idx) * 3 + append)
    rows_lens = [128, 16, 64, 15, 200, 143]
    hk, d, cap = 2, 64, 256
    cache = Dense(6, cap, hk, d, rows_lens, BF16, g, cap_pad=8)
    b = len(idx)
    q = _randn((b, 1, 8, d), BF16, g)
    k, v = (_randn((b, 1, hk, d), BF16, g), _randn((b, 1, hk, d), BF16, g)) if append else (None, None)
    lens = [rows_lens[r] for r in idx]
    what = f"cache_batch_idx {idx}"
    res = repeated(cache.call(q, k, v, cache_seqlens=_i32(lens), cache_batch_idx=_i32(idx), num_splits=4), what)
    cache.check(res, q, k, v, idx, lens, fwd_args(d), what)


# ------------------------------------------------------------------ 8. flash_attn_varlen_func decode
@pytest.mark.parametrize("layout", ["packed_empty", "paged16", "paged80", "paged256"])
def test_varlen_decode(layout, monkeypatch):
    """flash_attn_varlen_func with max_seqlen_q 1 (split-KV): packed K/V with empty sequences (repeated cu entries:
    rows without keys get 0 / LSE -inf; a sequence without query rows) inside NaN-padded heads, or paged K/V with junk
    table entries (cu_seqlens_k ending anywhere); two calls of one signature (the plan's path on the GPU), bitwise
    equal."""
    g = gen(len(layout) * 7)
    d, dt, h, hk = 128, BF16, 8, 2
    if layout == "packed_empty":
        lens_k, lens_q = [17, 0, 64, 1, 300, 5], [1, 1, 1, 1, 0, 1]
        total = sum(lens_k)
        buf = torch.full((2, total + 4, 2 * hk, d), NAN, dtype=dt, device=DEV)
        buf[:, :total, ::2] = _randn((2, total, hk, d), dt, g)
        kk, vv = buf[0, :total, ::2], buf[1, :total, ::2]
        cu_k = _i32([0] + torch.tensor(lens_k).cumsum(0).tolist())
        keys = [kk[a:b] for a, b in zip(cu_k.tolist(), cu_k.tolist()[1:])]
        values = [vv[a:b] for a, b in zip(cu_k.tolist(), cu_k.tolist()[1:])]
        kw = {}
    else:
        page = int(layout[5:])
        lens_k = [page, 16, 1, page + 17, 2 * page - 1]
        lens_q = [1] * len(lens_k)
        cache = Paged(lens_k, 0, page, hk, d, dt, g, spare_cols=2)
        kk, vv = cache.kp, cache.vp
        # cu_seqlens_k: cumulative key counts (paged: the lengths matter, the total does not)
        cu_k = _i32([0] + torch.tensor(lens_k).cumsum(0).tolist())
        keys, values = cache.keys, cache.values
        kw = dict(block_table=cache.table)
    cu_q = _i32([0] + torch.tensor(lens_q).cumsum(0).tolist())
    q = _randn((sum(lens_q), h, d), dt, g)
    what = f"varlen {layout}"
    out, lse = repeated(lambda: rocflash.flash_attn_varlen_func(
        q, kk, vv, cu_q, cu_k, 1, max(lens_k), return_attn_probs=True, backend=_backend(), **kw)[:2], what)
    assert out.shape == q.shape and lse.shape == (h, q.shape[0])
    cq = cu_q.tolist()
    for b in range(len(lens_k)):
        s, e = cq[b], cq[b + 1]
        if s == e:
            continue
        if lens_k[b] == 0:
            assert torch.equal(out[s:e], torch.zeros_like(out[s:e])) and torch.isneginf(lse[:, s:e]).all(), \
                f"{what} seq {b}"
            continue
        assert_close_to_reference(out[None, s:e], lse[None, :, s:e], q[None, s:e], keys[b][None], values[b][None],
                                  fwd_args(d), f"{what} seq {b}")


# ------------------------------------------------------------------ 9. causal rows without keys, int lengths
@pytest.mark.parametrize("paged", [False, True], ids=["dense", "paged32"])
def test_causal_rows_before_every_key(paged, monkeypatch):
    """seqlen_q 4 causal with 1 new key on a sequence of cache_seqlens 0 (rows 0..2 see no key: O 0, LSE -inf; row 3
    the new key only) next to sequences of 1, 15 and 64 keys; MQA 2:1 (8 rows)."""
    g = gen(40 + paged)
    lens, new, sq, d = [0, 1, 15, 64], 1, 4, 64
    q = _randn((4, sq, 2, d), F16, g)
    k, v = _randn((4, new, 1, d), F16, g), _randn((4, new, 1, d), F16, g)
    what = f"causal empty rows paged {paged}"
    if paged:
        cache = Paged(lens, new, 32, 1, d, F16, g)
        res = repeated(cache.call(q, k, v, cache_seqlens=_i32(lens), causal=True, num_splits=2), what)
        cache.check(res, q, k, v, fwd_args(d, True), what)
    else:
        cache = Dense(4, 128, 1, d, lens, F16, g)
        res = repeated(cache.call(q, k, v, cache_seqlens=_i32(lens), causal=True, num_splits=2), what)
        cache.check(res, q, k, v, range(4), lens, fwd_args(d, True), what)
    out, lse = res[0], res[1]
    assert torch.equal(out[0, :3], torch.zeros_like(out[0, :3])) and torch.isneginf(lse[0, :, :3]).all(), what


@pytest.mark.parametrize("n", [0, 16, 127])
def test_int_cache_seqlens(n, monkeypatch):
    """cache_seqlens as a Python int (every sequence n keys; the fast path reads it per call, not from a tensor):
    append 1 key at n (0, on a 16-key edge, the last slot of a 128-key capacity), bf16 d128 group 8."""
    g = gen(n + 50)
    cap, hk, d = 128, 2, 128
    lens = [n] * 3
    cache = Dense(3, cap, hk, d, lens, BF16, g, cap_pad=16)
    q = _randn((3, 1, 8 * hk, d), BF16, g)
    k, v = _randn((3, 1, hk, d), BF16, g), _randn((3, 1, hk, d), BF16, g)
    what = f"int cache_seqlens {n}"
    res = repeated(cache.call(q, k, v, cache_seqlens=n, num_splits=2), what)
    cache.check(res, q, k, v, range(3), lens, fwd_args(d), what)


# ------------------------------------------------------------------ 10. return values, empty appends
def test_no_lse_and_empty_append(monkeypatch):
    """return_softmax_lse=False returns O alone, bitwise the O of the True call; k, v with seqlen_new 0 are an
    append of nothing (the cache bitwise unchanged, the result that of k = v = None)."""
    g = gen(60)
    lens = [16, 64, 0, 90]
    cache = Dense(4, 128, 2, 64, lens, F16, g)
    q = _randn((4, 1, 8, 64), F16, g)
    kc, vc = cache.view(cache.kb), cache.view(cache.vb)
    _fresh()
    o_only = [rocflash.flash_attn_with_kvcache(q, kc, vc, cache_seqlens=_i32(lens), num_splits=2, backend=_backend())
              for _ in range(REPEAT)]
    _sync()
    for o in o_only:
        assert isinstance(o, torch.Tensor) and o.shape == q.shape
    res = repeated(cache.call(q, cache_seqlens=_i32(lens), num_splits=2), "lse")
    for o in o_only:
        _same_bits(o, res[0], "out without LSE vs with")
    k0 = torch.zeros((4, 0, 2, 64), dtype=F16, device=DEV)
    res0 = repeated(cache.call(q, k0, k0.clone(), cache_seqlens=_i32(lens), num_splits=2), "seqlen_new 0")
    for a, b in zip(res0, res):
        _same_bits(a, b, "seqlen_new 0 vs no append")
    _same_bits(res0[2], cache.kb, "K cache after an empty append")
    cache.check(res, q, None, None, range(4), lens, fwd_args(64), "no append")


# ------------------------------------------------------------------ 11. errors leave the cache as it was
ERRORS = ["overflow", "negative", "table_minus1", "table_huge", "dup_rows_append", "splits_129", "dup_block_append"]


@pytest.mark.parametrize("case", ERRORS)
def test_errors_cache_unchanged(case, monkeypatch):
    """Each bad call raises the ValueError of the docstring (message naming the argument) before anything is
    written: cache_seqlens + seqlen_new past the capacity, cache_seqlens < 0, a -1 / 2**31 - 1 entry in a used page
    of the block table, repeated cache_batch_idx rows with append, num_splits 129, a block listed twice in one
    sequence's pages with append. The caller's caches keep every bit; a good call afterwards works."""
    g = gen(len(case) * 13)
    d, hk = 64, 1
    q = _randn((3, 1, 4, d), F16, g)
    k, v = _randn((3, 1, hk, d), F16, g), _randn((3, 1, hk, d), F16, g)
    lens = [10, 64, 100]
    paged = case.startswith("table") or case == "dup_block_append"
    if paged:
        cache = Paged(lens, 1, 32, hk, d, F16, g, junk=False)
        kc, vc = cache.kp.clone(), cache.vp.clone()
        table = cache.table.clone()
        kw = dict(block_table=table)
        if case == "table_minus1":
            table[2, 1] = -1
        elif case == "table_huge":
            table[1, 0] = 2 ** 31 - 1
        elif case == "dup_block_append":
            table[2, 1] = table[2, 0]
        lens_t = _i32(lens)
    else:
        cache = Dense(3, 128, hk, d, lens, F16, g)
        kc, vc = cache.view(cache.kb.clone()), cache.view(cache.vb.clone())
        kw = {}
        lens_t = _i32(lens)
        if case == "overflow":
            lens_t = _i32([10, 128, 100])  # 128 + 1 > 128
        elif case == "negative":
            lens_t = _i32([10, -1, 100])
        elif case == "dup_rows_append":
            kw = dict(cache_batch_idx=_i32([1, 1, 0]))
        elif case == "splits_129":
            kw = dict(num_splits=129)
    kc0, vc0 = kc.clone(), vc.clone()
    needle = {"overflow": "cache_seqlens", "negative": "cache_seqlens", "table_minus1": "block_table",
              "table_huge": "block_table", "dup_rows_append": "cache_batch_idx", "splits_129": "num_splits",
              "dup_block_append": "block_table"}[case]
    _fresh()
    with pytest.raises(ValueError, match=needle):
        rocflash.flash_attn_with_kvcache(q, kc, vc, k, v, cache_seqlens=lens_t, backend=_backend(), **kw)
    _sync()
    _same_bits(kc, kc0, f"{case}: K cache after the error")
    _same_bits(vc, vc0, f"{case}: V cache after the error")
    # the same arguments made good: the call goes through and appends
    good = dict(block_table=cache.table) if paged else {}
    out, lse = kvcache(q, kc, vc, k, v, cache_seqlens=_i32(lens), num_splits=2, **good)
    _sync()
    if paged:
        keys = [cache.rows(kc, b, n + 1) for b, n in enumerate(lens)]
        values = [cache.rows(vc, b, n + 1) for b, n in enumerate(lens)]
    else:
        keys = [kc[b, :n + 1] for b, n in enumerate(lens)]
        values = [vc[b, :n + 1] for b, n in enumerate(lens)]
    for b in range(3):
        assert torch.equal(keys[b][-1], k[b, 0]) and torch.equal(values[b][-1], v[b, 0]), f"{case} good call seq {b}"
    check_per_sequence(out, lse, q, keys, values, fwd_args(d), f"{case} good call")
