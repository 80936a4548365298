"""The tensor-core split-KV decode kernel's launch switches on a GPU (marker ``gpu``), each giving the default's
bits (dec9's defaults: one K/V tile in flight per warp, hip_src/fmha_splitkv_mma.h kSplitKvCopyNear, and
programmatic dependent launches on sm_90+): ``ROCFLASH_SPLITKV_INFLIGHT=2`` (kSplitKvCopyAsync: two tiles in flight,
the default before dec9), ``ROCFLASH_SPLITKV_PDL=0`` (plain launches) and ``ROCFLASH_SPLITKV_LAZY_RESCALE=1``
(kSplitKvCopyNearLazy, opt-in: no O rescale in a tile where the warp's running max stayed) and
``ROCFLASH_SPLITKV_PLAIN=1`` (kSplitKvCopyPlain, dec11: plain-decode blocks take a loop compiled for that case; the
other blocks of these cases, windows, speculative causal rows, run the default's loop; with INFLIGHT=2 as well: two
tiles in flight, bitwise INFLIGHT=2's). (dec8's bulk-copy and lockstep
kernels lost on the H200 and were removed by dec9.)

- output, LSE and cache of flash_attn_with_kvcache on tests/test_gpu_kvstep_fold.py's cases (dense appends that
  straddle a split boundary, speculative causal rows in two row chunks, paged 16 / 256 with NaN in unused pages and
  past each sequence, cache_batch_idx), and every launch made under it carries its ``kv_k_first`` (3, 0 or 5);
- decode shapes of flash_attn_with_kvcache (masked windows, many tiles per warp, one split, issue 9's 1 x 4k) within
  FlashAttention's rule against fp64, repeated calls bitwise equal;
- a window that masks NaN keys in a warp's first tile, whose ring stage the same warp's partial last tile reuses,
  gives no NaN and the default's bits; NaN cache slots past cache_seqlens are never read;
- a CUDA graph of each variant's paged-16 call replays its eager bits.

Outputs poisoned with NaN (conftest); fresh random inputs. Skipped where the split kernel is the vector one (the
switches act on the tensor-core kernel only).
"""

from __future__ import annotations

import pytest
import torch

import rocflash
import test_gpu_kvstep_fold as fold
from conftest import assert_close_to_reference, fwd_args, gpu_platform, rand_qkv
from rocflash import kvcache_fast
from rocflash.backends import compiled

pytestmark = pytest.mark.gpu
# variant: (environment, FmhaFwdParams::kv_k_first of its launches); OFF: the defaults, set explicitly
VARIANTS = {"inflight2": ({compiled.SPLITKV_INFLIGHT_ENV: "2"}, compiled.SPLITKV_COPY_TWO),
            "pdl0": ({compiled.SPLITKV_PDL_ENV: "0"}, compiled.SPLITKV_COPY_NEAR),
            "lazy": ({compiled.SPLITKV_LAZY_RESCALE_ENV: "1"}, compiled.SPLITKV_COPY_NEAR_LAZY),
            "plain": ({compiled.SPLITKV_PLAIN_ENV: "1"}, compiled.SPLITKV_COPY_PLAIN),
            "plain2": ({compiled.SPLITKV_PLAIN_ENV: "1", compiled.SPLITKV_INFLIGHT_ENV: "2"},
                       compiled.SPLITKV_COPY_PLAIN_TWO)}
OFF = {compiled.SPLITKV_INFLIGHT_ENV: "1", compiled.SPLITKV_PDL_ENV: "1", compiled.SPLITKV_LAZY_RESCALE_ENV: "0",
       compiled.SPLITKV_PLAIN_ENV: "0"}


@pytest.fixture
def platform():
    return gpu_platform()


@pytest.fixture(params=list(VARIANTS))
def variant(request):
    return request.param


def _set(monkeypatch, env):
    for name, value in env.items():
        monkeypatch.setenv(name, value)


def _require(platform, variant):
    """Skip unless the last call ran the tensor-core split kernel."""
    if platform != "cuda" or compiled.last_kernels().get("fwd") != "mma":
        pytest.skip("the switches act on the CUDA build's tensor-core split kernel only")


def _kvcache(call, platform, monkeypatch, env, **kw):
    """flash_attn_with_kvcache twice (full path, then fast path) under env: the fast path's (out, lse), its cache
    copy and the kv_k_first of every launch the plans hold."""
    _set(monkeypatch, env)
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
def test_gpu_copy_variant_same_bits_kvcache(platform, monkeypatch, variant, name):
    case = dict(fold.CASES[name])
    causal = case.pop("causal", False)
    batch_idx = case.pop("batch_idx", None)
    int_lens = case.pop("int_lens", False)
    call = fold._inputs(seed=29, **case)
    if int_lens:
        call["cache_seqlens"] = case["lens"][0]
    if batch_idx is not None:
        call["cache_batch_idx"] = torch.tensor(batch_idx, dtype=torch.int32, device="cuda")
    (out0, lse0), c0, flags0 = _kvcache(call, platform, monkeypatch, OFF, causal=causal)
    _require(platform, variant)
    env, flag = VARIANTS[variant]
    (out1, lse1), c1, flags1 = _kvcache(call, platform, monkeypatch, env, causal=causal)
    assert flags0 and set(flags0) == {compiled.SPLITKV_COPY_NEAR} and flags1 and set(flags1) == {flag}, (flags0, flags1)
    assert not out1.isnan().any()
    for a, b in ((out0, out1), (lse0, lse1), (c0["k_cache"], c1["k_cache"]), (c0["v_cache"], c1["v_cache"])):
        assert torch.equal(fold._bits(a), fold._bits(b)), name


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
@pytest.mark.parametrize("shape", [
    # (batch, seqlen_q, seqlen_k, nheads, nheads_k, headdim, num_splits, causal, window)
    (2, 1, 3000, 8, 2, 128, 3, False, (-1, -1)),  # ~16 tiles per warp: the steady-state loop
    (1, 4, 700, 8, 2, 64, 5, True, (100, 0)),  # speculative causal rows + window: masked tiles (clean_v)
    (3, 1, 257, 16, 4, 128, 1, False, (-1, -1)),  # one split: the kernel writes O itself
    (1, 1, 4096, 32, 8, 128, 32, False, (-1, -1)),  # issue 9's 1 x 4k point, 32 splits of 2 tiles per warp
])
def test_gpu_copy_variant_same_bits_decode(platform, monkeypatch, variant, dtype, shape):
    b, sq, sk, h, hk, d, n, causal, window = shape
    g = torch.Generator().manual_seed(11 + sk)
    q, k, v = (t.cuda() for t in rand_qkv(b, sq, sk, h, hk, d, dtype, generator=g))
    outs = []
    for env in (OFF, VARIANTS[variant][0], VARIANTS[variant][0]):
        _set(monkeypatch, env)
        out, lse = rocflash.flash_attn_with_kvcache(q, k, v, cache_seqlens=sk, causal=causal, window_size=window,
                                                    num_splits=n, return_softmax_lse=True, backend=platform)
        outs.append((out, lse))
    _require(platform, variant)
    (o0, l0), (o1, l1), (o2, l2) = outs
    assert torch.equal(fold._bits(o0), fold._bits(o1)) and torch.equal(l0, l1)
    assert torch.equal(fold._bits(o1), fold._bits(o2)) and torch.equal(l1, l2), f"{variant}: repeated calls differ"
    assert_close_to_reference(o1, l1, q, k, v, fwd_args(d, causal, window), f"{variant} {shape}")


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_gpu_copy_variant_stale_rows_masked_nan(platform, monkeypatch, variant, dtype):
    """seqlen_k 965, one split, window_left 164: the block's keys start at 768 (a multiple of block_n 64), keys
    768..799 lie outside the window and hold NaN in K and V; warp 0's first tile (keys 768..783, all NaN) and its
    fourth (keys 960..964: 5 rows, the split's end, zero-filled past it) share a ring stage (with two tiles in
    flight; with one as well: the ring is 3 deep either way). Slots 965..1023 of the cache
    (past cache_seqlens) are NaN too. Same bits for every variant, no NaN, within the rule against fp64 on the clean
    keys."""
    sk, cap, h, hk, d = 965, 1024, 8, 2, 128
    g = torch.Generator().manual_seed(965)
    q, k, v = (t.cuda() for t in rand_qkv(2, 1, cap, h, hk, d, dtype, generator=g))
    kc, vc = k.clone(), v.clone()
    for t in (kc, vc):
        t[:, 768:800] = float("nan")
        t[:, sk:] = float("nan")
    window = (164, 0)
    outs = []
    for env in (OFF, VARIANTS[variant][0]):
        _set(monkeypatch, env)
        outs.append(rocflash.flash_attn_with_kvcache(q, kc, vc, cache_seqlens=sk, window_size=window, num_splits=1,
                                                     return_softmax_lse=True, backend=platform))
    _require(platform, variant)
    (o0, l0), (o1, l1) = outs
    assert not o1.isnan().any() and not l1.isnan().any()
    assert torch.equal(fold._bits(o0), fold._bits(o1)) and torch.equal(l0, l1)
    assert_close_to_reference(o1, l1, q, k[:, :sk], v[:, :sk], fwd_args(d, False, window), f"{variant} stale rows")


def test_gpu_copy_variant_graph_replay_same_bits(platform, monkeypatch, variant):
    """A CUDA graph of the variant's paged-16 KV-cache call (the fast path) replays the eager call's bits."""
    call = fold._inputs(seed=31, lens=[100, 300, 511, 1], page=16)
    _set(monkeypatch, VARIANTS[variant][0])
    kvcache_fast._PLANS.clear()

    def step():
        return rocflash.flash_attn_with_kvcache(**call, num_splits=fold.SPLITS, backend=platform)
    eager = [step() for _ in range(3)][-1]
    _require(platform, variant)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        step()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = step()
    out.fill_(float("nan"))
    graph.replay()
    torch.cuda.synchronize()
    assert torch.equal(fold._bits(out), fold._bits(eager))


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_gpu_plain_loop_runs_and_meets_p_zero_times_inf_as_fp64(platform, monkeypatch, dtype):
    """The plain-decode loop is the one that ran (ROCFLASH_SPLITKV_PLAIN=1), seen where it differs from the default
    by design: key 999 of 1000 (in a warp's partial last tile) has V = +inf and a score ~1400 below the others, so
    its probability is exactly 0 in fp64 too (exp(-1400)) and the fp64 reference row is 0 * inf = NaN. The plain loop
    gives that NaN (its P meets V in the product, as in any unmasked tile); the default's masked-tile path adds the
    visible non-finite V to O instead (clean_v): +inf. Every other kv-head's rows are finite and the plain loop's
    bits equal the default's there."""
    b, sk, h, hk, d = 1, 1000, 32, 8, 128
    g = torch.Generator().manual_seed(1000)
    q, k, v = (t.cuda() for t in rand_qkv(b, 1, sk, h, hk, d, dtype, generator=g))
    q = q.abs() + 0.5  # every q . k[999] far below 0
    k[:, 999, 0] = -100.0
    v[:, 999, 0] = float("inf")  # kv-head 0 only: its 4 query heads
    outs = {}
    for name, env in (("default", OFF), ("plain", VARIANTS["plain"][0])):
        _set(monkeypatch, env)
        outs[name] = rocflash.flash_attn_with_kvcache(q, k, v, cache_seqlens=sk, num_splits=1,
                                                     return_softmax_lse=True, backend=platform)
    _require(platform, "plain")
    w = torch.softmax(q[0, 0, :4].double() @ k[0, :, 0].double().T / d ** 0.5, -1)  # kv-head 0's 4 query heads
    assert w[:, 999].max() == 0.0  # the key's weight is exactly 0 in fp64
    o_def, o_plain = outs["default"][0], outs["plain"][0]
    assert o_plain[0, 0, :4].isnan().all() and not o_plain[0, 0, 4:].isnan().any()
    assert torch.isposinf(o_def[0, 0, :4]).all(), "the default's clean_v adds the visible +inf"
    assert torch.equal(fold._bits(o_def[0, 0, 4:]), fold._bits(o_plain[0, 0, 4:]))
    assert torch.equal(outs["default"][1], outs["plain"][1])  # the LSE does not see V
