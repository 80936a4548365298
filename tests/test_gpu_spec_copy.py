"""The speculative first copies of the tensor-core split-KV kernel's folded KV-cache step
(hip_src/fmha_splitkv_mma_plain.h speculate_first_tiles; marker ``gpu``): each warp's first two plain-loop tiles are copied before the step has read
cache_seqlens and the block table, and each is used only when every row of it is a key of the sequence from before
the append.

Every case compares flash_attn_with_kvcache's fast path with the step folded (the speculative copy) against the step
kernel's path (rocflash.kvcache_fast.FOLD_STEP = False: no speculation), bitwise (O, LSE, cache), and against fp64
by FlashAttention's rule. Cache slots past each sequence, unused blocks and (paged) the block-table entries past each
sequence's pages hold garbage: NaN slots, entries pointing at NaN blocks and entries outside the cache. A tile taken
while it holds a row at or past the sequence's end, or a row the append rewrote, reads NaN: the case fails.

Lengths sweep the warps' first two tiles (4 splits of 128 keys, tiles of 16 keys: tile c of warp w of split s starts
at 128 s + 64 c + 16 w): ending exactly at such a tile's end (taken), one key short (not taken), appends whose new
rows land in one, empty sequences, a whole split past the end. Both plain kernels (ROCFLASH_SPLITKV_INFLIGHT 1 and 2:
kv_k_first 6 and 7, whose other blocks' loops differ).
"""

from __future__ import annotations

import math

import pytest
import torch

from conftest import assert_close_to_reference, fwd_args, gpu_platform
from test_gpu_kvstep_fold import CAP, _bits, _inputs, _require_fold, _run

pytestmark = pytest.mark.gpu


@pytest.fixture
def platform():
    return gpu_platform()


def _reference(call, out, lens, seqlen_new, causal=False):
    """FlashAttention's rule on each sequence's O (conftest.assert_close_to_reference; keys: the cache after the
    append, gathered through the block table when paged; causal: bottom-right)."""
    args = fwd_args(call["q"].shape[-1], causal=causal)
    for b, n in enumerate(n + seqlen_new for n in lens):
        if n == 0:
            continue
        if call.get("block_table") is not None:
            page = call["k_cache"].shape[1]
            blocks = call["block_table"][b, : math.ceil(n / page)].long()
            k = call["k_cache"][blocks].flatten(0, 1)[:n]
            v = call["v_cache"][blocks].flatten(0, 1)[:n]
        else:
            k, v = call["k_cache"][b, :n], call["v_cache"][b, :n]
        assert_close_to_reference(out[b:b + 1], None, call["q"][b:b + 1], k[None], v[None], args, f"sequence {b}")


def _garbage_table(call, lens, seqlen_new, seed):
    """Entries of block_table past each sequence's pages: NaN blocks of other sequences, -1, and far outside."""
    table = call["block_table"]
    page = call["k_cache"].shape[1]
    blocks = call["k_cache"].shape[0]
    g = torch.Generator().manual_seed(seed)
    for b, n in enumerate(lens):
        used = math.ceil((n + seqlen_new) / page)
        for j in range(used, table.shape[1]):
            pick = int(torch.randint(0, 3, (1,), generator=g))
            table[b, j] = (int(torch.randint(0, blocks, (1,), generator=g)), -1, 1 << 30)[pick]


CASES = {
    # dense: warp 0 of split 1 ends at 144; 143 leaves its last row empty; split 3 wholly past the end
    "dense_tile_ends": dict(lens=[144, 143, 16, 15]),
    "dense_first_tiles": dict(lens=[64, 63, 65, 0, 1, 128, 127]),
    "dense_second_tiles": dict(lens=[80, 79, 96, 95, 208, 207]),
    "dense_append1_in_first_tile": dict(lens=[143, 127, 15, 255, 70], seqlen_new=1),
    "dense_append3_across_tiles": dict(lens=[14, 140, 191, 382], seqlen_new=3),
    "dense_full": dict(lens=[512, 511, 448]),
    "int_cache_seqlens": dict(lens=[160, 160, 160], int_lens=True),
    "paged16": dict(lens=[144, 143, 16, 0, 500, 80, 79], page=16),
    "paged32": dict(lens=[160, 31, 33, 512], page=32),
    "paged64": dict(lens=[64, 63, 300], page=64),
    "paged256": dict(lens=[257, 256, 255, 40], page=256),
}


@pytest.mark.parametrize("inflight", ["1", "2"])
@pytest.mark.parametrize("name", list(CASES))
def test_gpu_spec_copy_same_bits_as_step_kernel(platform, monkeypatch, name, inflight):
    monkeypatch.setenv("ROCFLASH_SPLITKV_INFLIGHT", inflight)
    case = dict(CASES[name])
    int_lens = case.pop("int_lens", False)
    seqlen_new = case.get("seqlen_new", 0)
    call = _inputs(seed=21 + len(name), **case)
    if "block_table" in call:
        _garbage_table(call, case["lens"], seqlen_new, seed=len(name))
    if int_lens:
        call["cache_seqlens"] = case["lens"][0]
    (out0, lse0), c0, _ = _run(call, False, platform)
    (out1, lse1), c1, folded1 = _run(call, True, platform)
    _require_fold(platform)
    assert folded1 and all(f == 1 for f in folded1)
    lens = case["lens"]
    for b, n in enumerate(lens):
        if n + seqlen_new > 0:
            assert not out1[b].isnan().any(), f"sequence {b}"
    assert torch.equal(_bits(out0), _bits(out1)) and torch.equal(_bits(lse0), _bits(lse1))
    assert torch.equal(_bits(c0["k_cache"]), _bits(c1["k_cache"]))
    assert torch.equal(_bits(c0["v_cache"]), _bits(c1["v_cache"]))
    _reference(c1, out1, lens, seqlen_new)


@pytest.mark.parametrize("inflight", ["1", "2"])
def test_gpu_spec_copy_then_general_loop(platform, monkeypatch, inflight):
    """Blocks whose parameters allow the plain loop (seqlen_q 2 x group 4 = 8 rows), so their warps speculate, but
    that fail run's plain rule on the keys (causal: query 0 does not see the split's last key): run's general loop
    waits for the speculative copies before it reuses their stages. Same bits as the step kernel's path, fp64 rule,
    with a 2-key append (speculative decoding's verify step) and NaN past each sequence."""
    monkeypatch.setenv("ROCFLASH_SPLITKV_INFLIGHT", inflight)
    lens, new = [126, 127, 190, 62], 2
    call = _inputs(seed=31, lens=lens, seqlen_new=new, seqlen_q=2)
    (out0, lse0), c0, _ = _run(call, False, platform, causal=True)
    (out1, lse1), c1, folded1 = _run(call, True, platform, causal=True)
    _require_fold(platform)
    assert folded1 and all(f == 1 for f in folded1)
    assert not out1.isnan().any()
    assert torch.equal(_bits(out0), _bits(out1)) and torch.equal(_bits(lse0), _bits(lse1))
    assert torch.equal(_bits(c0["k_cache"]), _bits(c1["k_cache"]))
    _reference(c1, out1, lens, new, causal=True)


def test_gpu_spec_copy_cases_reach_both_outcomes():
    """The sweep holds, for each of a warp's first two tiles, tiles that end exactly at a sequence's end (the copy is
    taken) and tiles cut by the end (dropped): the lengths above were chosen for that (checked on the host, so an
    edit of CASES cannot silently lose an edge)."""
    for c in range(2):
        exact = cut = 0
        for case in CASES.values():
            new = case.get("seqlen_new", 0)
            for n in case["lens"]:
                for split in range(4):
                    for w in range(4):
                        n0 = 128 * split + 64 * c + 16 * w
                        exact += n0 + 16 == n
                        cut += n0 < n + new < n0 + 16 or (new and n0 < n + new and n < n0 + 16)
        assert exact >= 3 and cut >= 5, (c, exact, cut)
