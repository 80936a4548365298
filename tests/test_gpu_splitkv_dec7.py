"""dec7's two opt-in switches of the tensor-core split-KV decode kernel on a GPU (marker ``gpu``):

- ``ROCFLASH_SPLITKV_K_FIRST=1`` (hip_src/fmha_splitkv_mma.h: each K/V tile as two cp.async groups, V awaited only
  before O += P V) gives the default's bits: output, LSE and cache of flash_attn_with_kvcache (dense appends that
  straddle a split boundary, speculative causal rows in two row chunks, paged 16 / 256 with NaN in unused pages,
  cache_batch_idx; tests/test_gpu_kvstep_fold.py's cases) and of flash_attn_func decode (masked windows, a split
  with many tiles per warp, one split), and every launch made under it carries ``kv_k_first`` 1;
- ``ROCFLASH_SPLITKV_SPLITS=fill`` (rocflash.splitkv) plans the count rocflash.splitkv computes for this device and
  the call stays within FlashAttention's rule against fp64.

Outputs poisoned with NaN (conftest); fresh random inputs. Skipped where the split kernel is the vector one
(the switches act on the tensor-core kernel only).
"""

from __future__ import annotations

import pytest
import torch

import rocflash
import test_gpu_kvstep_fold as fold
from conftest import assert_close_to_reference, fwd_args, gpu_platform, rand_qkv
from rocflash import kvcache_fast, splitkv
from rocflash.backends import compiled

pytestmark = pytest.mark.gpu
KF = compiled.SPLITKV_K_FIRST_ENV


@pytest.fixture
def platform():
    return gpu_platform()


def _require_mma(platform):
    if platform != "cuda" or compiled.last_kernels().get("fwd") != "mma":
        pytest.skip("the switches act on the CUDA build's tensor-core split kernel only")


def _kvcache(call, platform, monkeypatch, k_first: str, **kw):
    """flash_attn_with_kvcache twice (full path, then fast path) under ROCFLASH_SPLITKV_K_FIRST=k_first: the fast
    path's (out, lse), its cache copy and the kv_k_first of every launch the plans hold."""
    monkeypatch.setenv(KF, k_first)
    kvcache_fast._PLANS.clear()
    for _ in range(2):
        c = fold._clone(call)
        out = rocflash.flash_attn_with_kvcache(**c, return_softmax_lse=True, num_splits=fold.SPLITS,
                                               backend=platform, **kw)
    torch.cuda.synchronize()
    flags = [ln.params.kv_k_first for plan in kvcache_fast._PLANS.values() for key, ln in plan.launch.items()
             if isinstance(key, tuple) and hasattr(ln, "params")]
    return out, c, flags


@pytest.mark.parametrize("name", list(fold.CASES))
def test_gpu_k_first_same_bits_kvcache(platform, monkeypatch, name):
    case = dict(fold.CASES[name])
    causal = case.pop("causal", False)
    batch_idx = case.pop("batch_idx", None)
    int_lens = case.pop("int_lens", False)
    call = fold._inputs(seed=23, **case)
    if int_lens:
        call["cache_seqlens"] = case["lens"][0]
    if batch_idx is not None:
        call["cache_batch_idx"] = torch.tensor(batch_idx, dtype=torch.int32, device="cuda")
    (out0, lse0), c0, flags0 = _kvcache(call, platform, monkeypatch, "0", causal=causal)
    _require_mma(platform)
    (out1, lse1), c1, flags1 = _kvcache(call, platform, monkeypatch, "1", causal=causal)
    assert flags0 and set(flags0) == {0} and flags1 and set(flags1) == {1}, (flags0, flags1)
    assert not out1.isnan().any()
    for a, b in ((out0, out1), (lse0, lse1), (c0["k_cache"], c1["k_cache"]), (c0["v_cache"], c1["v_cache"])):
        assert torch.equal(fold._bits(a), fold._bits(b)), name


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
@pytest.mark.parametrize("shape", [
    # (batch, seqlen_q, seqlen_k, nheads, nheads_k, headdim, num_splits, causal, window)
    (2, 1, 3000, 8, 2, 128, 3, False, (-1, -1)),  # ~16 tiles per warp: the steady-state loop
    (1, 4, 700, 8, 2, 64, 5, True, (100, 0)),  # speculative causal rows + window: masked tiles (clean_v after V)
    (3, 1, 257, 16, 4, 128, 1, False, (-1, -1)),  # one split: the kernel writes O itself
])
def test_gpu_k_first_same_bits_decode(platform, monkeypatch, dtype, shape):
    b, sq, sk, h, hk, d, n, causal, window = shape
    g = torch.Generator().manual_seed(7 + sk)
    q, k, v = (t.cuda() for t in rand_qkv(b, sq, sk, h, hk, d, dtype, generator=g))
    outs = []
    for value in ("0", "1"):
        monkeypatch.setenv(KF, value)
        out, lse = rocflash.flash_attn_with_kvcache(q, k, v, cache_seqlens=sk, causal=causal, window_size=window,
                                                    num_splits=n, return_softmax_lse=True, backend=platform)
        outs.append((out, lse))
    _require_mma(platform)
    (o0, l0), (o1, l1) = outs
    assert torch.equal(fold._bits(o0), fold._bits(o1)) and torch.equal(l0, l1)
    assert_close_to_reference(o1, None, q, k, v, fwd_args(d, causal, window), f"K-first {shape}")


def test_gpu_fill_rule_plan_and_accuracy(platform, monkeypatch):
    """Batch 1 x 4096 keys, 32 / 8 heads, d128 bf16 (issue 9's 1 x 4k point): "fill" plans rocflash.splitkv's
    count for this device (32 on an H200; "wave": 16) and stays within FlashAttention's rule."""
    g = torch.Generator().manual_seed(4096)
    q, k, v = (t.cuda() for t in rand_qkv(1, 1, 4096, 32, 8, 128, torch.bfloat16, generator=g))
    picks = {}
    for rule in ("wave", "fill"):
        monkeypatch.setenv(compiled.SPLITKV_SPLITS_ENV, rule)
        out, lse = rocflash.flash_attn_with_kvcache(q, k, v, cache_seqlens=4096, return_softmax_lse=True,
                                                    backend=platform)
        _require_mma(platform)
        split, picks[rule], inst = compiled.split_plan("cuda", q, 8, 1, 1, 4096, 0, True)
        sms = torch.cuda.get_device_properties(0).multi_processor_count
        want = splitkv.num_splits_heuristic(1, 8, 1, 4096, sms, "cuda-mma", compiled._resident_blocks(0, inst), rule,
                                            inst["block_n"])
        assert split and picks[rule] == want, (rule, picks[rule], want)
        assert_close_to_reference(out, lse, q, k, v, fwd_args(128), f"rule {rule}")
    if torch.cuda.get_device_properties(0).multi_processor_count == 132 and compiled._resident_blocks(0, inst) == 2:
        assert picks == {"wave": 16, "fill": 32}
