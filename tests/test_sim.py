"""The ``sim`` golden model against the fp64 reference over the boundary matrix, and its tiling decisions.

The full matrix (seqlen_q x seqlen_k in the boundary set, causal/window, GQA ratios, headdims, views) is
large for a Python simulation on a 2-core CI machine: a fixed-seed sample of it runs by default; set
ROCFLASH_FULL_MATRIX=1 for all of it.
"""

from __future__ import annotations

import itertools
import os
import random

import pytest
import torch

import rocflash
from rocflash.backends import sim
from rocflash.configs import load_fwd_configs
from rocflash.masks import MaskRule
from conftest import DTYPES, assert_close_to_reference, fwd_args, rand_qkv

SEQLENS = [1, 15, 16, 17, 63, 65, 127, 129, 257, 1000, 1025]
MASKS = [(False, (-1, -1)), (True, (-1, -1)), (False, (64, 64)), (True, (100, -1)), (False, (0, 0)), (False, (-1, 3))]
FULL = os.environ.get("ROCFLASH_FULL_MATRIX") == "1"


def _sample(cases, n, seed):
    cases = list(cases)
    return cases if FULL else random.Random(seed).sample(cases, min(n, len(cases)))


def _check(sq, sk, h, hk, d, dtype, causal=False, window=(-1, -1), batch=2, seed=0, views=None, **kw):
    q, k, v = rand_qkv(batch, sq, sk, h, hk, d, DTYPES[dtype], "cpu", torch.Generator().manual_seed(seed))
    if views:
        q, k, v = views(q, k, v)
    out, lse, _ = rocflash.flash_attn_func(q, k, v, causal=causal, window_size=window, backend="sim",
                                           return_attn_probs=True, **kw)
    assert_close_to_reference(out, lse, q, k, v, fwd_args(d, causal, window, kw.get("softcap", 0.0),
                                                          kw.get("alibi_slopes")),
                              f"sim sq{sq} sk{sk} h{h}/{hk} d{d} {dtype} causal={causal} window={window}")


@pytest.mark.parametrize("sq,sk,mask,dtype", _sample(itertools.product(SEQLENS, SEQLENS, MASKS, ["fp16", "bf16"]), 60, 1))
def test_boundary_matrix(sq, sk, mask, dtype):
    causal, window = mask
    _check(sq, sk, 2, 1, 64, dtype, causal, window)


@pytest.mark.parametrize("ratio", [1, 2, 4, 8])
def test_gqa_ratios(ratio):
    _check(65, 129, 8, 8 // ratio, 32, "fp16", causal=True)


@pytest.mark.parametrize("headdim", [8, 16, 32, 40, 64, 72, 80, 96, 112, 128, 160, 192, 224, 256, 1, 3, 59, 111])
@pytest.mark.parametrize("dtype", ["fp16", "fp32"])
def test_headdims(headdim, dtype):  # C10 (forward)
    _check(129, 257, 2, 1, headdim, dtype, causal=True)


def test_softcap_alibi():
    _check(65, 129, 4, 2, 64, "fp16", causal=True, softcap=20.0)
    _check(129, 65, 4, 2, 64, "bf16", alibi_slopes=torch.rand(2, 4) * 0.3)
    _check(100, 100, 4, 4, 32, "fp32", window=(10, 10), alibi_slopes=torch.rand(4), softcap=3.0)


def _offset(q, k, v):
    def shift(x):
        buf = torch.empty(x.numel() + 3, dtype=x.dtype)
        y = buf[3:].view(x.shape)
        y.copy_(x)
        return y
    return shift(q), shift(k), shift(v)


def _packed(q, k, v):
    qkv = torch.stack([q, k, v], dim=2)
    return qkv[:, :, 0], qkv[:, :, 1], qkv[:, :, 2]


def _strided_last(q, k, v):  # C4: stride(-1) != 1
    return tuple(torch.cat([x, x], dim=-1)[..., ::2] for x in (q, k, v))


def _expanded_kv(q, k, v):  # stride 0 along batch
    return q, k[:1].expand_as(k), v[:1].expand_as(v)


@pytest.mark.parametrize("views", [_offset, _packed, _strided_last, _expanded_kv])
def test_strided_views(views):
    _check(65, 65, 2, 2, 40, "fp16", causal=True, views=views)


# ---------------------------------------------------------------- the tiling decisions themselves
@pytest.mark.parametrize("sq,sk,causal,window", [
    (1025, 1000, True, (-1, -1)), (129, 1025, False, (64, 0)), (1000, 257, True, (-1, -1)), (257, 257, False, (17, 5)),
])
def test_trace_matches_tiling(sq, sk, causal, window):
    """Blocks run last-first; each block visits exactly the K/V tiles that hold a visible key for one of its
    rows; a tile runs unmasked only when every (valid row, key) pair in it is visible."""
    q, k, v = rand_qkv(1, sq, sk, 1, 1, 64, torch.float16)
    trace = sim.SimTrace()
    args = fwd_args(64, causal, window)
    sim.forward(q, k, v, args, trace=trace)
    cfg = trace.config
    assert (cfg.block_m, cfg.block_n) == (128, 64)  # from ck_configs/fmha_fwd.toml (gfx9, fp16, d64)
    rule = MaskRule(sq, sk, args.window_left, args.window_right)
    num_m = -(-sq // cfg.block_m)
    assert [b for b, _ in trace.blocks] == list(reversed(range(num_m)))
    rows_k = torch.arange(sk)
    for m_block, tiles in trace.blocks:
        m0, m_end = m_block * cfg.block_m, min(m_block * cfg.block_m + cfg.block_m, sq)
        vis = torch.tensor([[rule.visible(i, j) for j in range(sk)] for i in range(m0, m_end)])
        needed = sorted({int(j) // cfg.block_n for j in rows_k[vis.any(0)]})
        assert [t for t, _ in tiles] == needed, f"block {m_block}"
        for t, masked in tiles:
            full = vis[:, t * cfg.block_n:(t + 1) * cfg.block_n]
            all_visible = full.shape[1] == cfg.block_n and bool(full.all())
            assert masked == (not all_visible), f"block {m_block} tile {t}"


def test_sim_reads_tiles_from_config(tmp_path, monkeypatch):
    """Changing block_n in the TOML changes the simulated tiling: the sim is driven by ck_configs, not literals."""
    src = (rocflash.configs.config_dir() / "fmha_fwd.toml").read_text()
    changed = src.replace('dtype = "fp16"\nheaddim = 64\nblock_m = 128\nblock_n = 64', 'dtype = "fp16"\nheaddim = 64\nblock_m = 128\nblock_n = 32', 1)
    assert changed != src
    (tmp_path / "fmha_fwd.toml").write_text(changed)
    monkeypatch.setenv("ROCFLASH_CK_CONFIGS", str(tmp_path))
    trace = sim.SimTrace()
    q, k, v = rand_qkv(1, 100, 100, 1, 1, 64, torch.float16)
    sim.forward(q, k, v, fwd_args(64), trace=trace)
    assert trace.config.block_n == 32 and len(trace.blocks[0][1]) == 4


def test_configs_are_valid_and_cover_every_bucket():
    configs = load_fwd_configs()
    for target in ("gfx9", "cuda"):
        for dtype in ("fp16", "bf16", "fp32"):
            assert sorted(c.headdim for c in configs if c.target == target and c.dtype == dtype
                          and c.impl == "vector") == [32, 64, 128, 256]
    for dtype in ("fp16", "bf16"):  # the tensor-core tile math covers the same buckets for 16-bit inputs, plus 96/192
        assert sorted(c.headdim for c in configs if c.impl == "mma" and c.dtype == dtype) == [32, 64, 96, 128, 192, 256]
    assert all(c.target == "cuda" and c.dtype != "fp32" for c in configs if c.impl == "mma")


def test_cuda_build_runs_the_gfx9_tiles():
    """The CUDA build exists to execute the MI50 kernels' logic: its vector tiles must be the gfx9 ones."""
    from rocflash.configs import KINDS, load_configs
    fields = ("headdim", "block_m", "block_n", "threads", "threads_n", "lds_pad_bytes")
    for kind in KINDS:
        tiles = {t: {(c.dtype, c.headdim): tuple(getattr(c, f) for f in fields) for c in load_configs(kind) if c.target == t and c.impl == "vector"}
                 for t in ("gfx9", "cuda")}
        assert tiles["gfx9"] == tiles["cuda"], kind
