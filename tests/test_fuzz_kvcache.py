"""Property-based fuzzing of flash_attn_with_kvcache (issue 8 item 10: the KV-cache and paged layouts) against fp64.

Random problems: batch 1-3, GQA (nheads_k 1-2, groups 1-4), headdims 1-256, dtypes, seqlen_q 1-8 (decode,
speculative decoding), keys already in the cache per sequence (0 to 300 here, 0 to 2000 through the compiled
kernels), new tokens appended (0-4; 0 = no append), a dense cache or a paged one (page sizes 16, 32, 64, 256,
shuffled block table), causal / window / softcap / ALiBi ((nheads,) or (batch, nheads)) / softmax_scale (default
or +-[0.05, 2]), num_splits 0 (the heuristic), 1 or 3. Slots past each sequence's keys hold NaN in memory.
Checks: the appended rows land at [cache_seqlens, cache_seqlens + seqlen_new) and nothing else in the cache
changes (NaN slots stay NaN), every sequence's output and LSE within the forward rule against the fp64
reference over its keys, and the paged call equals the dense-cache call bit for bit (same keys, same plan).
The sim runs a few examples on the CPU (the strategy itself); tests/test_gpu_fuzz_layouts.py runs it through the
compiled kernels. Seed fixed; ROCFLASH_FUZZ_EXAMPLES overrides the example count.
"""

from __future__ import annotations

import os

import torch
from hypothesis import HealthCheck, Phase, given, note, seed, settings
from hypothesis import strategies as st

import rocflash
from rocflash.backends import FwdArgs
from conftest import assert_close_to_reference

_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")
_SEED = 20261202
_SETTINGS = dict(deadline=None, database=None, print_blob=True,
                 max_examples=int(os.environ.get("ROCFLASH_FUZZ_EXAMPLES", 12)),
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
if _CI:
    _SETTINGS["phases"] = [Phase.explicit, Phase.reuse, Phase.generate]
NAN = float("nan")


@st.composite
def kvcache_problems(draw, device="cpu"):
    batch = draw(st.integers(1, 3))
    nheads_k = draw(st.integers(1, 2))
    nheads = nheads_k * draw(st.integers(1, 4))
    headdim = draw(st.one_of(st.integers(1, 40), st.sampled_from([64, 128, 256]), st.integers(1, 256)))
    longest = 300 if device == "cpu" else 2000
    lens = draw(st.lists(st.one_of(st.integers(0, 20), st.integers(0, longest)), min_size=batch, max_size=batch))
    causal = draw(st.booleans())
    left = draw(st.one_of(st.just(-1), st.integers(0, 64)))
    right = 0 if causal else draw(st.one_of(st.just(-1), st.integers(0, 8)))
    sign = draw(st.sampled_from([1, -1]))
    return dict(lens=lens, seqlen_q=draw(st.integers(1, 8)), seqlen_new=draw(st.integers(0, 4)), nheads=nheads,
                nheads_k=nheads_k, headdim=headdim,
                dtype=draw(st.sampled_from([torch.float16, torch.bfloat16, torch.float32])),
                page=draw(st.sampled_from([None, 16, 32, 64, 256])), causal=causal, window=(left, right),
                softcap=draw(st.one_of(st.just(0.0), st.floats(0.5, 50.0))),
                alibi=draw(st.sampled_from(["none", "heads", "batch_heads"])),
                scale=draw(st.one_of(st.none(), st.floats(0.05, 2.0).map(lambda x: x * sign))),
                num_splits=draw(st.sampled_from([0, 1, 3])), data_seed=draw(st.integers(0, 2 ** 31 - 1)))


def _paged(k_cache, v_cache, need_rows, page, g):
    """Shuffled pages holding the dense caches' first need_rows[b] slots; unused blocks and slots NaN."""
    need = [max(1, -(-n // page)) for n in need_rows]
    num_blocks = sum(need) + 2
    perm = torch.randperm(num_blocks, generator=g).tolist()
    shape = (num_blocks, page) + tuple(k_cache.shape[2:])
    kp, vp = torch.full(shape, NAN, dtype=k_cache.dtype), torch.full(shape, NAN, dtype=k_cache.dtype)
    table = torch.zeros(len(need_rows), max(need), dtype=torch.int32)
    it = iter(perm)
    for b in range(len(need_rows)):
        for j in range(need[b]):
            blk = next(it)
            table[b, j] = blk
            m = max(0, min(page, k_cache.shape[1] - j * page))
            kp[blk, :m], vp[blk, :m] = k_cache[b, j * page:j * page + m], v_cache[b, j * page:j * page + m]
    return kp, vp, table


def check_kvcache(p, backend, device="cpu"):
    note(f"seed {_SEED}: {p}")
    g = torch.Generator().manual_seed(p["data_seed"])
    lens, sq, new, h, hk, d, dt = (p[x] for x in ("lens", "seqlen_q", "seqlen_new", "nheads", "nheads_k", "headdim",
                                                   "dtype"))
    b_ = len(lens)
    rows = max(lens) + new + 3
    k_cache, v_cache = (torch.full((b_, rows, hk, d), NAN, dtype=dt) for _ in range(2))
    for b, n in enumerate(lens):
        k_cache[b, :n], v_cache[b, :n] = (torch.randn(n, hk, d, generator=g).to(dt) for _ in range(2))
    q = torch.randn(b_, sq, h, d, generator=g).to(dt)
    k_new, v_new = (torch.randn(b_, new, hk, d, generator=g).to(dt) for _ in range(2)) if new else (None, None)
    slopes = None if p["alibi"] == "none" else torch.rand((h,) if p["alibi"] == "heads" else (b_, h), generator=g)
    dev = lambda t: None if t is None else t.to(device)  # noqa: E731
    kw = dict(cache_seqlens=dev(torch.tensor(lens, dtype=torch.int32)), softmax_scale=p["scale"], causal=p["causal"],
              window_size=p["window"], softcap=p["softcap"], alibi_slopes=dev(slopes), num_splits=p["num_splits"],
              return_softmax_lse=True, backend=backend)
    kc, vc = dev(k_cache), dev(v_cache)
    out, lse = rocflash.flash_attn_with_kvcache(dev(q), kc, vc, dev(k_new), dev(v_new), **kw)
    out, lse, kc, vc = out.cpu(), lse.cpu(), kc.cpu(), vc.cpu()
    # the cache: the new rows at [n, n + new) of each sequence, every other slot as it was (NaN stays NaN)
    expect_k, expect_v = k_cache.clone(), v_cache.clone()
    for b, n in enumerate(lens):
        if new:
            expect_k[b, n:n + new], expect_v[b, n:n + new] = k_new[b], v_new[b]
    for name, got, want in (("k_cache", kc, expect_k), ("v_cache", vc, expect_v)):
        assert torch.equal(got.nan_to_num(7.0), want.nan_to_num(7.0)) and torch.equal(got.isnan(), want.isnan()), \
            f"{backend}: {name} after the append"
    scale = p["scale"] if p["scale"] is not None else d ** -0.5
    for b, n in enumerate(lens):
        sk = n + new
        right = 0 if p["causal"] else p["window"][1]
        args = FwdArgs(scale, -1 if p["window"][0] >= sk else p["window"][0], -1 if right >= sq else right,
                       p["softcap"], None if slopes is None else (slopes if slopes.dim() == 1 else slopes[b]))
        what = f"{backend} sequence {b} ({sq} x {sk})"
        if sk == 0:  # no key: out 0, LSE -inf
            assert torch.equal(out[b], torch.zeros_like(out[b])) and bool(torch.isneginf(lse[b]).all()), what
            continue
        assert_close_to_reference(out[b:b + 1], lse[b:b + 1], q[b:b + 1], kc[b:b + 1, :sk], vc[b:b + 1, :sk], args,
                                  what)
    if p["page"] is None:
        return
    # paged: the same cache content (before the append) in shuffled pages, the same call
    kp, vp, table = _paged(k_cache, v_cache, [n + new for n in lens], p["page"], g)
    kp, vp = dev(kp), dev(vp)
    paged = rocflash.flash_attn_with_kvcache(dev(q), kp, vp, dev(k_new), dev(v_new), block_table=dev(table), **kw)
    assert torch.equal(paged[0].cpu(), out) and torch.equal(paged[1].cpu(), lse), f"{backend}: paged != dense cache"


@seed(_SEED)
@settings(**_SETTINGS)
@given(kvcache_problems())
def test_fuzz_kvcache_sim(p):
    check_kvcache(p, "sim")
