"""The KV-cache step folded into the split-KV kernels (hip_src/fmha_kvstep.h folded_kv_step; marker
``gpu``): flash_attn_with_kvcache's fast path gives bitwise the result, the LSE and the cache of the step kernel's
path (rocflash.kvcache_fast.FOLD_STEP = False; True is the default), with several splits, new keys that straddle a split boundary,
two row chunks per split writing the same new rows, paged caches and cache_batch_idx; under
ROCFLASH_INDEX_CHECKS=off a bad block-table entry seen by one split only still makes the whole sequence NaN, and a
bad cache_seqlens appends nothing in any split.

Outputs poisoned with NaN (conftest); fresh random inputs; cache slots past each sequence and unused pages NaN.
Skipped where the split kernel does not fold (the CUDA build's vector kernel). The gfx906 vector kernel's fold runs
on the emulator in tests/test_emu_inference.py.
"""

from __future__ import annotations

import pytest
import torch

import rocflash
from conftest import gpu_platform
from rocflash import kvcache_fast
from rocflash.backends import compiled

pytestmark = pytest.mark.gpu
NAN = float("nan")
DT = torch.bfloat16
HK, H, D = 2, 8, 128  # group 4: seqlen_q 5 gives 20 rows = two m16 row chunks per split
SPLITS = 4
CAP = 512  # split_keys(512, 4, 64) = 128 keys per split


@pytest.fixture
def platform():
    return gpu_platform()


def _bits(t):
    return t.view(torch.int16) if t.element_size() == 2 else t.view(torch.int32)


def _inputs(seed, lens, seqlen_new=0, seqlen_q=1, page=0, rows=None):
    """Dense cache (rows or batch, CAP, HK, D) or paged (page > 0: shuffled blocks, 3 unused), NaN past each
    sequence's keys; k / v of seqlen_new new keys."""
    g = torch.Generator(device="cuda").manual_seed(seed)
    batch = len(lens)
    q = torch.randn(batch, seqlen_q, H, D, generator=g, device="cuda").to(DT)
    call = dict(q=q, cache_seqlens=torch.tensor(lens, dtype=torch.int32, device="cuda"))
    nrows = rows or batch
    flat_k, flat_v = (torch.full((nrows, CAP, HK, D), NAN, dtype=DT, device="cuda") for _ in range(2))
    for b in range(nrows):
        n = lens[b] if rows is None else CAP - 8
        flat_k[b, :n] = torch.randn(n, HK, D, generator=g, device="cuda").to(DT)
        flat_v[b, :n] = torch.randn(n, HK, D, generator=g, device="cuda").to(DT)
    if seqlen_new:
        call["k"], call["v"] = (torch.randn(batch, seqlen_new, HK, D, generator=g, device="cuda").to(DT)
                                for _ in range(2))
    if page:
        pages = CAP // page
        blocks = batch * pages + 3
        kc, vc = (torch.full((blocks, page, HK, D), NAN, dtype=DT, device="cuda") for _ in range(2))
        table = torch.randperm(blocks, generator=torch.Generator().manual_seed(seed))[:batch * pages]
        table = table.view(batch, pages).to(torch.int32).cuda()
        kc[table.long()] = flat_k.view(batch, pages, page, HK, D)
        vc[table.long()] = flat_v.view(batch, pages, page, HK, D)
        call.update(k_cache=kc, v_cache=vc, block_table=table)
    else:
        call.update(k_cache=flat_k, v_cache=flat_v)
    return call


def _clone(call):
    return {name: t.clone() if isinstance(t, torch.Tensor) else t for name, t in call.items()}


def _run(call, fold: bool, platform, **kw):
    """Two calls (the first takes the full path's checks; the second, returned, the fast path) with FOLD_STEP; the
    two give the same bits (output, LSE, cache)."""
    old = kvcache_fast.FOLD_STEP
    kvcache_fast.FOLD_STEP = fold
    kvcache_fast._PLANS.clear()  # (plans are per signature: the next call re-plans; only this call's launches left)
    try:
        runs = []
        for _ in range(2):
            c = _clone(call)
            out = rocflash.flash_attn_with_kvcache(**c, return_softmax_lse=True, num_splits=SPLITS,
                                                   backend=platform, **kw)
            runs.append((out, c))
        torch.cuda.synchronize()
        (first, c_first), _ = runs
        for a, b in zip(first, out):
            assert torch.equal(_bits(a), _bits(b)), "full path and fast path differ"
        assert torch.equal(_bits(c_first["k_cache"]), _bits(c["k_cache"]))
        folded = [ln.step.fold for plan in kvcache_fast._PLANS.values() for key, ln in plan.launch.items()
                  if isinstance(key, tuple) and key[1] == fold and hasattr(ln, "step")]
    finally:
        kvcache_fast.FOLD_STEP = old
    return out, c, folded


def _require_fold(platform):
    """Skip where the last call's split kernel does not fold (the CUDA build's vector kernel: fp32,
    ROCFLASH_KERNEL=vector); AMD's vector kernel folds at these shapes (headdim 128)."""
    if platform == "cuda" and compiled.last_kernels().get("fwd") != "mma":
        pytest.skip("the call ran the CUDA build's vector split kernel, which keeps the step kernel")


CASES = {
    # lens: the new keys of sequence 0 cross the split boundary at 128 (126..130), sequence 1 starts a split
    "append5_spec_two_chunks": dict(lens=[126, 128, 250, 0], seqlen_new=5, seqlen_q=5, causal=True),
    "append1": dict(lens=[127, 128, 383, 5], seqlen_new=1),
    "append2_int_cache_seqlens": dict(lens=[255, 255, 255], seqlen_new=2, int_lens=True),  # keys 255, 256: 2 splits
    "paged16": dict(lens=[100, 300, 511, 1], page=16),
    "paged256": dict(lens=[257, 40, 512, 130], page=256),
    "cache_batch_idx": dict(lens=[500, 3, 129, 256], rows=6, batch_idx=[5, 0, 3, 1]),
}


@pytest.mark.parametrize("name", list(CASES))
def test_gpu_fold_same_bits_as_step_kernel(platform, name):
    case = dict(CASES[name])
    causal = case.pop("causal", False)
    batch_idx = case.pop("batch_idx", None)
    int_lens = case.pop("int_lens", False)
    call = _inputs(seed=11, **case)
    if int_lens:  # one int for every sequence: the kernel's seqlen_cache, not a tensor
        call["cache_seqlens"] = case["lens"][0]
    if batch_idx is not None:
        call["cache_batch_idx"] = torch.tensor(batch_idx, dtype=torch.int32, device="cuda")
    (out0, lse0), c0, folded0 = _run(call, False, platform, causal=causal)
    (out1, lse1), c1, folded1 = _run(call, True, platform, causal=causal)
    _require_fold(platform)
    assert folded1 and all(f == 1 for f in folded1) and folded0 and all(f == 0 for f in folded0)
    assert not out1.isnan().any()
    assert torch.equal(_bits(out0), _bits(out1)) and torch.equal(_bits(lse0), _bits(lse1))
    assert torch.equal(_bits(c0["k_cache"]), _bits(c1["k_cache"]))
    assert torch.equal(_bits(c0["v_cache"]), _bits(c1["v_cache"]))
    if "k" in call:  # every new row landed (both halves of a straddling append), nothing else changed
        lens = case["lens"]
        n_new = call["k"].shape[1]
        for b, n in enumerate(lens):
            assert torch.equal(_bits(c1["k_cache"][b, n:n + n_new]), _bits(call["k"][b]))
            assert torch.equal(_bits(c1["v_cache"][b, n:n + n_new]), _bits(call["v"][b]))
            assert torch.equal(_bits(c1["k_cache"][b, :n]), _bits(call["k_cache"][b, :n]))
            assert c1["k_cache"][b, n + n_new:].isnan().all()


@pytest.mark.parametrize("what", ["last_split_page", "cache_seqlens_append"])
def test_gpu_fold_bad_index_off_whole_sequence_nan(platform, monkeypatch, what):
    monkeypatch.setenv(kvcache_fast.INDEX_CHECKS_ENV, "off")
    if what == "last_split_page":
        call = _inputs(seed=12, lens=[400, 450, 90], page=16)
    else:
        call = _inputs(seed=12, lens=[400, 450, 90], seqlen_new=1)
    (good, good_lse), _, _ = _run(call, True, platform)
    _require_fold(platform)
    bad = _clone(call)
    if what == "last_split_page":
        bad["block_table"][1, 27] = bad["k_cache"].shape[0]  # keys 432..447 of 450: the last split (384..511) only
    else:
        bad["cache_seqlens"][1] = CAP  # + 1 new key: one past the capacity
    before = bad["k_cache"].clone()
    flag = kvcache_fast.index_error_flag(call["q"].device)
    flag.zero_()
    monkeypatch.setattr(kvcache_fast, "FOLD_STEP", True)
    out, lse = rocflash.flash_attn_with_kvcache(**bad, return_softmax_lse=True, num_splits=SPLITS, backend=platform)
    torch.cuda.synchronize()
    assert flag.item() == 1
    assert out[1].isnan().all() and lse[1].isnan().all()
    for b in (0, 2):
        assert torch.equal(_bits(out[b]), _bits(good[b])) and torch.equal(_bits(lse[b]), _bits(good_lse[b]))
    if "k" in bad:
        assert torch.equal(_bits(bad["k_cache"][1]), _bits(before[1]))  # no split appended sequence 1's key
        assert torch.equal(_bits(bad["k_cache"][0, 400]), _bits(call["k"][0, 0]))


def test_gpu_fold_graph_replay_same_bits(platform):
    """A folded step (dense append, 4 splits) captured in a CUDA graph replays bitwise like the eager folded step on
    the new values written into the captured tensors, cache included."""
    old = kvcache_fast.FOLD_STEP
    kvcache_fast.FOLD_STEP = True
    kvcache_fast._PLANS.clear()
    try:
        call = _inputs(seed=13, lens=[126, 300, 7, 0], seqlen_new=3, seqlen_q=3)
        static = _clone(call)
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(2):  # the full path once, then the fast path, on this stream; the captured call's
                # signature (return_softmax_lse included: a plan is per signature, a new one takes the full path,
                # whose host reads a capture refuses)
                rocflash.flash_attn_with_kvcache(**_clone(call), causal=True, return_softmax_lse=True,
                                                 num_splits=SPLITS, backend=platform)
        torch.cuda.current_stream().wait_stream(side)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            out_graph, lse_graph = rocflash.flash_attn_with_kvcache(**static, causal=True, return_softmax_lse=True,
                                                                    num_splits=SPLITS, backend=platform)
        fresh = _inputs(seed=14, lens=[127, 250, 60, 1], seqlen_new=3, seqlen_q=3)
        for name, t in fresh.items():
            static[name].copy_(t)
        eager_call = _clone(static)
        graph.replay()
        out_eager, lse_eager = rocflash.flash_attn_with_kvcache(**eager_call, causal=True, return_softmax_lse=True,
                                                                num_splits=SPLITS, backend=platform)
        torch.cuda.synchronize()
        folded = [ln.step.fold for plan in kvcache_fast._PLANS.values() for key, ln in plan.launch.items()
                  if isinstance(key, tuple) and key[1] is True and hasattr(ln, "step")]
    finally:
        kvcache_fast.FOLD_STEP = old
    _require_fold(platform)
    assert folded and all(f == 1 for f in folded)
    assert torch.equal(_bits(out_graph), _bits(out_eager)) and torch.equal(_bits(lse_graph), _bits(lse_eager))
    assert torch.equal(_bits(static["k_cache"]), _bits(eager_call["k_cache"]))
    assert torch.equal(_bits(static["v_cache"]), _bits(eager_call["v_cache"]))
    assert not out_graph.isnan().any()


def test_gpu_fold_bad_index_device_asserts():
    """ROCFLASH_INDEX_CHECKS=device with the folded step: an out-of-range cache_seqlens stops the stream in the split
    kernel's device-side assert (a child process: the GPU context is unusable afterwards)."""
    from test_gpu_host_path import _child_stops_after_good_calls

    script = (
        "import torch, rocflash\n"
        "from rocflash import kvcache_fast\n"
        "from conftest import gpu_platform\n"
        "from test_gpu_kvstep_fold import _inputs\n"
        "kvcache_fast.FOLD_STEP = True\n"
        "call = _inputs(seed=15, lens=[126, 300, 7], seqlen_new=1)\n"
        "p = gpu_platform()\n"
        "for _ in range(2):\n"
        "    rocflash.flash_attn_with_kvcache(**{k: t.clone() for k, t in call.items()}, num_splits=4, backend=p)\n"
        "torch.cuda.synchronize()\n"
        "print('good calls passed', flush=True)\n"
        "call['cache_seqlens'][2] = 512\n"
        "rocflash.flash_attn_with_kvcache(**call, num_splits=4, backend=p)\n"
        "torch.cuda.synchronize()\n"
        "print('no error', flush=True)\n")
    _child_stops_after_good_calls(script, "index out of range")
