"""The compiled kernel (hip or cuda build) against the fp64 reference, over the boundary matrix.

Marker ``gpu``: skipped without a GPU and the compiled module for it. Outputs are poisoned with NaN
(conftest), inputs are fresh random values per case.
"""

from __future__ import annotations

import itertools

import pytest
import torch

import rocflash
from conftest import DTYPES, assert_close_to_reference, fwd_args, gpu_platform, rand_qkv

pytestmark = pytest.mark.gpu

SEQLENS = [1, 15, 16, 17, 63, 65, 127, 129, 257, 1000, 1025]


def _run(platform, batch, sq, sk, h, hk, d, dtype, causal=False, window=(-1, -1), softcap=0.0, alibi=None,
         views=None, seed=0):
    g = torch.Generator().manual_seed(seed)
    q, k, v = rand_qkv(batch, sq, sk, h, hk, d, dtype, "cuda", g)
    if views is not None:
        q, k, v = views(q, k, v)
    out, lse, _ = rocflash.flash_attn_func(q, k, v, causal=causal, window_size=window, softcap=softcap,
                                           alibi_slopes=alibi, return_attn_probs=True, backend=platform)
    torch.cuda.synchronize()
    args = fwd_args(d, causal, window, softcap, alibi)
    assert_close_to_reference(out, lse, q, k, v, args,
                              f"{platform} b{batch} sq{sq} sk{sk} h{h}/{hk} d{d} {dtype} causal={causal} window={window}")


@pytest.mark.parametrize("dtype", ["fp16", "bf16"])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("sq,sk", list(itertools.product(SEQLENS, SEQLENS)))
def test_boundary_seqlens(sq, sk, causal, dtype):
    _run(gpu_platform(), 2, sq, sk, 4, 2, 64, DTYPES[dtype], causal)


@pytest.mark.parametrize("dtype", ["fp16", "bf16", "fp32"])
@pytest.mark.parametrize("headdim", [1, 8, 16, 32, 40, 59, 64, 72, 80, 96, 111, 128, 160, 192, 224, 256])
@pytest.mark.parametrize("causal", [False, True])
def test_headdims(headdim, causal, dtype):
    _run(gpu_platform(), 2, 257, 129, 2, 1, headdim, DTYPES[dtype], causal)


@pytest.mark.parametrize("ratio", [1, 2, 3, 4, 8, 16])
@pytest.mark.parametrize("sq", [1, 17, 512])
def test_gqa(ratio, sq):
    _run(gpu_platform(), 2, sq, 300, 48, 48 // ratio, 128, torch.float16)


@pytest.mark.parametrize("window", [(-1, 0), (0, 0), (3, 3), (64, 0), (17, 65), (1000, 1), (0, -1), (-1, 5)])
@pytest.mark.parametrize("sq,sk", [(129, 129), (65, 257), (257, 65), (1000, 1025)])
def test_windows(window, sq, sk):
    _run(gpu_platform(), 2, sq, sk, 2, 2, 64, torch.float16, window=window)


@pytest.mark.parametrize("dtype", ["fp16", "bf16", "fp32"])
def test_softcap_and_alibi(dtype):
    alibi = torch.rand(2, 4, device="cuda") * 0.5
    _run(gpu_platform(), 2, 129, 257, 4, 2, 96, DTYPES[dtype], causal=True, softcap=30.0)
    _run(gpu_platform(), 2, 129, 257, 4, 2, 96, DTYPES[dtype], causal=True, alibi=alibi)
    _run(gpu_platform(), 2, 257, 129, 4, 2, 64, DTYPES[dtype], alibi=alibi[0].contiguous(), softcap=5.0)


def _rising_scores(platform, device, headdim, causal, dtype, seqlen=700):
    """Keys scaled by a ramp (0.25 -> 3) and a softmax_scale of 4 / sqrt(headdim): each row's max rises along the keys,
    from tile to tile by more than 8 (log2 units) and by less. The tensor-core forward keeps a row's older max while
    the rise stays within 8 (P up to 2^8; conditional rescaling) and rescales O and l past it; both against fp64."""
    g = torch.Generator().manual_seed(7)
    q, k, v = rand_qkv(2, seqlen, seqlen, 2, 2, headdim, dtype, device, g)
    ramp = torch.linspace(0.25, 3.0, seqlen, device=device).view(1, -1, 1, 1)
    k = (k.float() * ramp).to(dtype)
    scale = 4.0 / headdim ** 0.5
    out, lse, _ = rocflash.flash_attn_func(q, k, v, softmax_scale=scale, causal=causal, return_attn_probs=True,
                                           backend=platform)
    assert_close_to_reference(out, lse, q, k, v, fwd_args(headdim, causal, softmax_scale=scale),
                              f"{platform} rising scores d{headdim} {dtype} causal={causal}")


@pytest.mark.parametrize("dtype", ["fp16", "bf16"])
@pytest.mark.parametrize("headdim", [64, 128])
@pytest.mark.parametrize("causal", [False, True])
def test_row_max_rising_across_tiles(headdim, causal, dtype):
    _rising_scores(gpu_platform(), "cuda", headdim, causal, DTYPES[dtype])


def _packed_qkv(q, k, v):
    """q, k, v as views into one packed (batch, seqlen, 3, nheads, headdim) tensor (needs sq == sk, h == hk)."""
    qkv = torch.stack([q, k, v], dim=2)
    return qkv[:, :, 0], qkv[:, :, 1], qkv[:, :, 2]


def _offset_views(q, k, v):
    """Storage offset by one element: rows are no longer 16-byte aligned (narrow load path)."""
    def shift(x):
        buf = torch.empty(x.numel() + 1, dtype=x.dtype, device=x.device)
        y = buf[1:].view(x.shape)
        y.copy_(x)
        return y
    return shift(q), shift(k), shift(v)


def _transposed_storage(q, k, v):
    """(batch, heads, seqlen, headdim) storage seen as (batch, seqlen, heads, headdim)."""
    return tuple(x.transpose(1, 2).contiguous().transpose(1, 2) for x in (q, k, v))


def _last_dim_strided(q, k, v):
    return tuple(torch.cat([x, x], dim=-1)[..., ::2] for x in (q, k, v))


@pytest.mark.parametrize("views", [_packed_qkv, _offset_views, _transposed_storage, _last_dim_strided])
@pytest.mark.parametrize("headdim", [64, 40, 7])
@pytest.mark.parametrize("dtype", ["fp16", "fp32"])
def test_strided_views(views, headdim, dtype):
    _run(gpu_platform(), 2, 129, 129, 4, 4, headdim, DTYPES[dtype], causal=True, views=views)


def test_fully_masked_rows_zero_and_neg_inf():
    # causal with seqlen_q > seqlen_k: the first seqlen_q - seqlen_k rows see no key
    g = torch.Generator().manual_seed(1)
    q, k, v = rand_qkv(2, 300, 100, 2, 2, 64, torch.float16, "cuda", g)
    out, lse, _ = rocflash.flash_attn_func(q, k, v, causal=True, return_attn_probs=True, backend=gpu_platform())
    assert torch.equal(out[:, :200], torch.zeros_like(out[:, :200]))
    assert torch.isneginf(lse[:, :, :200]).all() and torch.isfinite(lse[:, :, 200:]).all()


def test_reads_past_the_end():  # C2: every tensor ends exactly at its allocation's end
    _run(gpu_platform(), 5, 4, 656, 2, 2, 128, torch.bfloat16)


@pytest.mark.parametrize("shape", [(1, 71280, 3, 128), (2, 8192, 16, 64)])
def test_large_grids(shape):  # C15
    b, s, h, d = shape
    g = torch.Generator().manual_seed(2)
    q, k, v = rand_qkv(b, s, s, h, h, d, torch.bfloat16, "cuda", g)
    out = rocflash.flash_attn_func(q, k, v, causal=True, backend=gpu_platform())
    assert not torch.isnan(out).any()
    # A full fp64 reference would need batch*nheads*seqlen^2 doubles: check sampled query rows. With
    # causal and seqlen_q == seqlen_k, row r is plain attention of that one row over keys 0..r.
    for r in [0, 1, s // 2, s - 1, *torch.randint(0, s, (4,), generator=g).tolist()]:
        assert_close_to_reference(out[:, r:r + 1], None, q[:, r:r + 1], k[:, :r + 1], v[:, :r + 1], fwd_args(d),
                                  f"{shape} row {r}")


def test_deterministic_repeats():  # C14: bitwise identical, first call included
    g = torch.Generator().manual_seed(3)
    q, k, v = rand_qkv(2, 1025, 1025, 4, 2, 128, torch.float16, "cuda", g)
    outs = [rocflash.flash_attn_func(q, k, v, causal=True, backend=gpu_platform()) for _ in range(3)]
    assert all(torch.equal(outs[0], o) for o in outs[1:])


def test_matches_sim_closely():
    """The compiled kernel and the sim golden model compute the same recurrences: they agree far below the
    tolerance (only summation order and exp2 rounding differ)."""
    g = torch.Generator().manual_seed(4)
    q, k, v = rand_qkv(2, 257, 1000, 4, 2, 128, torch.float16, "cuda", g)
    out = rocflash.flash_attn_func(q, k, v, causal=True, backend=gpu_platform()).cpu().float()
    out_sim = rocflash.flash_attn_func(q.cpu(), k.cpu(), v.cpu(), causal=True, backend="sim").float()
    assert (out - out_sim).abs().max().item() < 2e-3


def test_tile_math_switch(monkeypatch):
    """ROCFLASH_KERNEL picks the forward's tile math: vector always runs the vector kernel; auto runs tensor
    cores for fp16/bf16 where they apply (CUDA build, sm_80+); mma refuses what it cannot run, before launch."""
    from rocflash.backends.compiled import KERNEL_ENV, last_kernels, mma_unavailable

    platform = gpu_platform()
    q, k, v = rand_qkv(1, 129, 129, 2, 2, 64, torch.bfloat16, "cuda", torch.Generator().manual_seed(5))
    args = fwd_args(64, causal=True)
    for choice in ("vector", "auto"):
        monkeypatch.setenv(KERNEL_ENV, choice)
        out, lse, _ = rocflash.flash_attn_func(q, k, v, causal=True, return_attn_probs=True, backend=platform)
        expect = "mma" if choice == "auto" and mma_unavailable(platform, q.device, q.dtype) is None else "vector"
        assert last_kernels()["fwd"] == expect
        assert_close_to_reference(out, lse, q, k, v, args, f"{KERNEL_ENV}={choice}")
    monkeypatch.setenv(KERNEL_ENV, "mma")
    with pytest.raises(ValueError, match=r"ROCFLASH_KERNEL=mma: .*fp16 or bf16"):
        rocflash.flash_attn_func(q.float(), k.float(), v.float(), backend=platform)
