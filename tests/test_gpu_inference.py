"""The inference API (flash_attn_varlen_func, flash_attn_with_kvcache) through the compiled kernels against fp64.

Marker ``gpu``: skipped without a GPU and its compiled module, and skipped (with the reason) while the compiled
backend has no varlen / KV-cache entry points. Outputs are poisoned with NaN (conftest: unwritten elements
fail); inputs are fresh random values; unused cache slots and pages hold NaN.
"""

from __future__ import annotations

import pytest
import torch

import rocflash
from conftest import assert_close_to_reference, fwd_args, gpu_platform
from rocflash.backends import compiled
from rocflash.varlen import PAGE_SIZES
from varlen_ref import assert_sequence_grads_close, assert_sequences_close, cu, rand_packed, split_rows

pytestmark = pytest.mark.gpu
NAN = float("nan")


@pytest.fixture
def platform():
    p = gpu_platform()
    if not (hasattr(compiled, "varlen_forward") and hasattr(compiled, "varlen_backward")):
        pytest.skip("the compiled backend has no varlen / KV-cache kernels yet "
                    "(rocflash.backends.compiled.varlen_forward / varlen_backward missing)")
    return p


VARLEN = {  # (lens_q, lens_k, nheads, nheads_k, headdim, causal, window)
    "uneven_gqa": ([1, 17, 130, 0, 64], [300, 17, 129, 5, 1], 8, 2, 128, False, (-1, -1)),
    "causal": ([1, 17, 130, 0, 64, 257], [300, 17, 129, 5, 0, 1000], 4, 4, 64, True, (-1, -1)),
    "window": ([65, 3, 200], [65, 257, 100], 4, 1, 96, False, (17, 65)),
    "empty": ([0, 0, 33, 0], [0, 4, 33, 0], 2, 1, 64, True, (-1, -1)),
}


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("name", sorted(VARLEN))
def test_gpu_varlen_forward(platform, name, dtype):
    lens_q, lens_k, h, hk, d, causal, window = VARLEN[name]
    q, k, v = rand_packed(lens_q, lens_k, h, hk, d, dtype, "cuda", seed=1)
    out, lse, _ = rocflash.flash_attn_varlen_func(q, k, v, cu(lens_q, "cuda"), cu(lens_k, "cuda"), max(lens_q),
                                                  max(lens_k), causal=causal, window_size=window,
                                                  return_attn_probs=True, backend=platform)
    torch.cuda.synchronize()
    assert_sequences_close(out, lse, split_rows(q, lens_q), list(zip(split_rows(k, lens_k), split_rows(v, lens_k))),
                           fwd_args(d, causal, window), f"{platform} varlen {name} {dtype}")


@pytest.mark.parametrize("name", ["causal", "empty", "window"])
def test_gpu_varlen_backward(platform, name):
    lens_q, lens_k, h, hk, d, causal, window = VARLEN[name]
    q, k, v = rand_packed(lens_q, lens_k, h, hk, d, torch.float16, "cuda", seed=2)
    dout = torch.randn(q.shape, device="cuda", dtype=torch.float16)
    leaves = [x.clone().requires_grad_() for x in (q, k, v)]
    out = rocflash.flash_attn_varlen_func(*leaves, cu(lens_q, "cuda"), cu(lens_k, "cuda"), max(lens_q), max(lens_k),
                                          causal=causal, window_size=window, backend=platform)
    out.backward(dout)
    torch.cuda.synchronize()
    assert_sequence_grads_close([x.grad for x in leaves], q, k, v, dout, lens_q, lens_k, fwd_args(d, causal, window),
                                f"{platform} varlen backward {name}")


def _caches(rows, seqlen_cache, hk, d, lens, dtype, seed):
    g = torch.Generator(device="cuda").manual_seed(seed)
    out = []
    for _ in range(2):
        c = torch.full((rows, seqlen_cache, hk, d), NAN, dtype=dtype, device="cuda")
        for r, n in enumerate(lens):
            c[r, :n] = torch.randn(n, hk, d, generator=g, device="cuda").to(dtype)
        out.append(c)
    return out


def _to_pages(k_cache, v_cache, lens, page, seed):
    """Shuffled pages of the dense caches (first lens[b] slots), unused blocks and slots NaN."""
    need = [-(-n // page) for n in lens]
    num_blocks = sum(need) + 3
    perm = torch.randperm(num_blocks, generator=torch.Generator().manual_seed(seed)).tolist()
    shape = (num_blocks, page) + tuple(k_cache.shape[2:])
    kp = torch.full(shape, NAN, dtype=k_cache.dtype, device="cuda")
    vp = torch.full(shape, NAN, dtype=k_cache.dtype, device="cuda")
    table = torch.full((len(lens), max(need)), num_blocks + 7, dtype=torch.int32)
    it = iter(perm)
    for b in range(len(lens)):
        for p in range(need[b]):
            blk = next(it)
            table[b, p] = blk
            m = min(page, k_cache.shape[1] - p * page)
            kp[blk, :m], vp[blk, :m] = k_cache[b, p * page:p * page + m], v_cache[b, p * page:p * page + m]
    return kp, vp, table.cuda()


def _check(out, lse, q, keys, values, args, what):
    for b in range(q.shape[0]):
        assert_close_to_reference(out[b:b + 1], lse[b:b + 1], q[b:b + 1], keys[b][None], values[b][None], args,
                                  f"{what} seq {b}")


@pytest.mark.parametrize("num_splits", [0, 1, 4])
@pytest.mark.parametrize("seqlen_new", [1, 4])
def test_gpu_kvcache_append_dense(platform, seqlen_new, num_splits):
    lens = [0, 1, 17, 1000, 4000]
    k_cache, v_cache = _caches(5, 4100, 8, 128, lens, torch.bfloat16, seed=3)
    q = torch.randn(5, seqlen_new, 32, 128, device="cuda", dtype=torch.bfloat16)
    k, v = (torch.randn(5, seqlen_new, 8, 128, device="cuda", dtype=torch.bfloat16) for _ in range(2))
    seqlens = torch.tensor(lens, dtype=torch.int32, device="cuda")
    out, lse = rocflash.flash_attn_with_kvcache(q, k_cache, v_cache, k, v, cache_seqlens=seqlens, causal=True,
                                                num_splits=num_splits, return_softmax_lse=True, backend=platform)
    torch.cuda.synchronize()
    for b, n in enumerate(lens):
        assert torch.equal(k_cache[b, n:n + seqlen_new], k[b]) and bool(k_cache[b, n + seqlen_new:].isnan().all())
    keys = [k_cache[b, :n + seqlen_new] for b, n in enumerate(lens)]
    values = [v_cache[b, :n + seqlen_new] for b, n in enumerate(lens)]
    _check(out, lse, q, keys, values, fwd_args(128, True), f"{platform} append s{seqlen_new} splits {num_splits}")
    again = rocflash.flash_attn_with_kvcache(q, k_cache, v_cache, cache_seqlens=seqlens + seqlen_new, causal=True,
                                             num_splits=num_splits, return_softmax_lse=True, backend=platform)
    assert torch.equal(again[0], out) and torch.equal(again[1], lse)  # bitwise identical across calls


@pytest.mark.parametrize("page", PAGE_SIZES)
def test_gpu_paged_every_page_size(platform, page):
    """Every page size of the rule, shuffled block table, NaN in unused blocks: equals the dense-cache call."""
    lens = [1, 17, 1000]
    k_cache, v_cache = _caches(3, 1024, 8, 128, lens, torch.float16, seed=page)
    kp, vp, table = _to_pages(k_cache, v_cache, [n + 1 for n in lens], page, seed=page)
    if page % 32:  # a non-contiguous block_table view (the API hands the kernels a contiguous one)
        table = table.t().contiguous().t()
    q = torch.randn(3, 1, 32, 128, device="cuda", dtype=torch.float16)
    k, v = (torch.randn(3, 1, 8, 128, device="cuda", dtype=torch.float16) for _ in range(2))
    seqlens = torch.tensor(lens, dtype=torch.int32, device="cuda")
    out, lse = rocflash.flash_attn_with_kvcache(q, kp, vp, k, v, cache_seqlens=seqlens, block_table=table,
                                                causal=True, return_softmax_lse=True, backend=platform)
    ref = rocflash.flash_attn_with_kvcache(q, k_cache, v_cache, k, v, cache_seqlens=seqlens, causal=True,
                                           return_softmax_lse=True, backend=platform)
    torch.cuda.synchronize()
    keys = [torch.cat([k_cache[b, :n], k[b]]) for b, n in enumerate(lens)]
    values = [torch.cat([v_cache[b, :n], v[b]]) for b, n in enumerate(lens)]
    _check(out, lse, q, keys, values, fwd_args(128, True), f"{platform} paged {page}")
    assert (out.float() - ref[0].float()).abs().max().item() <= 1e-2


def test_gpu_pdl_same_bits_graph_capture(platform, monkeypatch):
    """ROCFLASH_SPLITKV_PDL (programmatic dependent launches of the split and combine kernels, sm_90+): the
    appended key is seen by the split kernel that may start before the step kernel ends (the appended token carries
    the only large score), the paged / dense / flash_attn_func decode calls equal the plain launches bit for bit,
    and a CUDA graph of the step replays them (the same bits as eager)."""
    monkeypatch.setenv(compiled.SPLITKV_PDL_ENV, "1")
    if not compiled.splitkv_pdl(torch.device("cuda")):
        pytest.skip("programmatic dependent launch needs an NVIDIA sm_90+ device")
    lens = [4000, 17, 9000]
    k_cache, v_cache = _caches(3, 9100, 8, 128, lens, torch.bfloat16, seed=21)
    q = torch.randn(3, 1, 32, 128, device="cuda", dtype=torch.bfloat16)
    k = q.view(3, 1, 8, 4, 128)[:, :, :, 0].contiguous() * 4  # aligned with q: the appended key dominates
    v = torch.randn(3, 1, 8, 128, device="cuda", dtype=torch.bfloat16)
    seqlens = torch.tensor(lens, dtype=torch.int32, device="cuda")
    outs = {}
    for pdl in ("0", "1"):
        monkeypatch.setenv(compiled.SPLITKV_PDL_ENV, pdl)
        kc, vc = k_cache.clone(), v_cache.clone()
        outs[pdl] = rocflash.flash_attn_with_kvcache(q, kc, vc, k, v, cache_seqlens=seqlens, return_softmax_lse=True,
                                                     backend=platform)
        torch.cuda.synchronize()
        keys = [kc[b, :n + 1] for b, n in enumerate(lens)]
        values = [vc[b, :n + 1] for b, n in enumerate(lens)]
        _check(*outs[pdl], q, keys, values, fwd_args(128, False), f"{platform} append PDL {pdl}")
    assert torch.equal(outs["0"][0], outs["1"][0]) and torch.equal(outs["0"][1], outs["1"][1])
    kp, vp, table = _to_pages(kc, vc, [n + 1 for n in lens], 16, seed=21)
    seqlens1 = seqlens + 1
    dense_q = torch.randn(1, 1, 32, 128, device="cuda", dtype=torch.bfloat16)
    calls = {"paged16": lambda: rocflash.flash_attn_with_kvcache(q, kp, vp, cache_seqlens=seqlens1, block_table=table,
                                                                 backend=platform),
             "flash_attn_func": lambda: rocflash.flash_attn_func(dense_q, kc[2:3, :9001], vc[2:3, :9001],
                                                                 backend=platform)}
    for name, call in calls.items():
        got = {}
        for pdl in ("0", "1"):
            monkeypatch.setenv(compiled.SPLITKV_PDL_ENV, pdl)
            got[pdl] = call()
        assert torch.equal(got["0"], got["1"]), name
        side = torch.cuda.Stream()  # PDL on (set last): warm-up on a side stream, capture, replay
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            call()
        torch.cuda.current_stream().wait_stream(side)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            captured = call()
        captured.fill_(float("nan"))
        g.replay()
        torch.cuda.synchronize()
        assert torch.equal(captured, got["1"]), f"{name}: graph replay"


def test_gpu_cache_batch_idx_and_speculative(platform):
    lens = [5, 300, 0, 77]
    k_cache, v_cache = _caches(4, 320, 2, 64, lens, torch.float16, seed=9)
    idx = torch.tensor([3, 1, 2], dtype=torch.int32, device="cuda")
    q = torch.randn(3, 6, 8, 64, device="cuda", dtype=torch.float16)
    k, v = (torch.randn(3, 6, 2, 64, device="cuda", dtype=torch.float16) for _ in range(2))
    seqlens = torch.tensor([lens[i] for i in (3, 1, 2)], dtype=torch.int32, device="cuda")
    out, lse = rocflash.flash_attn_with_kvcache(q, k_cache, v_cache, k, v, cache_seqlens=seqlens, cache_batch_idx=idx,
                                                causal=True, return_softmax_lse=True, backend=platform)
    torch.cuda.synchronize()
    keys = [k_cache[r, :lens[r] + 6] for r in (3, 1, 2)]
    values = [v_cache[r, :lens[r] + 6] for r in (3, 1, 2)]
    _check(out, lse, q, keys, values, fwd_args(64, True), f"{platform} cache_batch_idx speculative")
    assert bool(k_cache[0, 5:].isnan().all())  # row 0 is no sequence's: untouched


def test_gpu_long_cache_128k_decode_preset(platform):
    """The decode preset's longest point: seqlen_q 1, nheads 32 / nheads_k 8, headdim 128, bf16, 131072 keys."""
    n = 131072 - 1
    k_cache, v_cache = _caches(1, 131072, 8, 128, [n], torch.bfloat16, seed=10)
    q = torch.randn(1, 1, 32, 128, device="cuda", dtype=torch.bfloat16)
    k, v = (torch.randn(1, 1, 8, 128, device="cuda", dtype=torch.bfloat16) for _ in range(2))
    out, lse = rocflash.flash_attn_with_kvcache(q, k_cache, v_cache, k, v, cache_seqlens=n, causal=True,
                                                return_softmax_lse=True, backend=platform)
    torch.cuda.synchronize()
    _check(out, lse, q, [k_cache[0]], [v_cache[0]], fwd_args(128, True), f"{platform} 128k")


def test_gpu_padded_generation_matches_sdpa(platform):
    transformers = pytest.importorskip("transformers")
    from rocflash.integrations import transformers as rf_tf
    cfg = transformers.LlamaConfig(vocab_size=100, hidden_size=256, intermediate_size=512, num_hidden_layers=2,
                                   num_attention_heads=8, num_key_value_heads=2, head_dim=32,
                                   max_position_embeddings=128)
    cfg._attn_implementation = "sdpa"
    torch.manual_seed(0)
    model = transformers.LlamaForCausalLM(cfg).eval().cuda()  # fp32: no near-ties between greedy tokens
    ids = torch.randint(1, 100, (3, 20), device="cuda")
    mask = torch.ones_like(ids)
    mask[0, :7], mask[2, :2] = 0, 0
    ids = ids.masked_fill(mask == 0, 0)
    gen = dict(attention_mask=mask, max_new_tokens=8, do_sample=False, pad_token_id=0, output_logits=True,
               return_dict_in_generate=True)
    with torch.no_grad():
        ref = model.generate(ids, **gen)
        model.set_attn_implementation(rf_tf.register(backend=platform))
        out = model.generate(ids, **gen)
    first = (out.logits[0] - ref.logits[0]).abs().max().item()
    assert first < 2e-2, f"prefill logits differ by {first}"
    assert torch.equal(out.sequences, ref.sequences), "greedy tokens differ from SDPA"
