"""The sim's float32 split-KV score is the kernel's arithmetic (eco17; hip_src/fmha_splitkv_kernel.h, eco14): per
lane an fp64 partial of q.k over the lane's 128-bit vectors of headdim, scaled by fp64_multiplier and rounded to
float32, then the key group's float32 butterfly (group_sum). adv17's cancelling-lanes case: the split path gives
[0.5, 0.5] like the kernel and like eager float32 (within FlashAttention's rule), the dense path the exact
[0.9526, 0.0474]. The emulated kernel's bitwise agreement: tests/test_emu_overflow_parameters.py."""
from __future__ import annotations

import struct

import pytest
import torch

import rocflash
from rocflash.backends import FwdArgs
from rocflash.backends.reference import attention_reference
from rocflash.backends.sim_splitkv import lane_tree_fp32


def _f32(x: float) -> float:
    return struct.unpack("f", struct.pack("f", x))[0] if abs(x) <= 3.4028235677973366e38 else x * float("inf")


def _lane_tree_scalar(q, k, threads_n, mult):
    """One score as the kernel's lanes form it, in Python floats (fp64) with explicit float32 roundings."""
    vl = len(q) // (4 * threads_n)
    lanes = []
    for t in range(threads_n):
        acc = 0.0
        for x in range(vl):
            for w in range(4):
                e = (x * threads_n + t) * 4 + w
                acc = acc + q[e] * k[e]  # products of float32 values are exact in fp64
        lanes.append(_f32(acc * mult))
    width = threads_n
    while width > 1:
        width //= 2
        lanes = [_f32(lanes[t] + lanes[t ^ width]) for t in range(width)]
    return lanes[0]


@pytest.mark.parametrize("threads_n,bucket", [(16, 64), (32, 128), (32, 256), (8, 64)])
def test_lane_tree_matches_scalar_model(threads_n, bucket):
    g = torch.Generator().manual_seed(bucket + threads_n)
    q = torch.randn(1, 2, 3, bucket, generator=g) * torch.logspace(-3, 3, bucket)[torch.randperm(bucket, generator=g)]
    k = torch.randn(1, 2, 5, bucket, generator=g)
    mult = 0.3 * 1.4426950408889634
    got = lane_tree_fp32(q, k, threads_n, mult)
    for h in range(2):
        for i in range(3):
            for j in range(5):
                want = _lane_tree_scalar(q[0, h, i].double().tolist(), k[0, h, j].double().tolist(), threads_n, mult)
                assert got[0, h, i, j].item() == want, (h, i, j)


def _cancelling_lanes(d=64):
    q = torch.ones(1, 1, 1, d)
    k = torch.zeros(1, 2, 1, d)
    k[0, 0, 0, 0], k[0, 0, 0, d - 1] = 1e10, -1e10
    k[0, 0, 0, 1:d - 1] = 3.0 / 62
    v = torch.eye(d)[:2].view(1, 2, 1, d)
    ref, _ = attention_reference(q.double(), k.double(), v.double(), FwdArgs(1.0, -1, -1, 0.0, None), torch.float64)
    return q, k, v, ref


@pytest.mark.parametrize("num_splits", [1, 2])
def test_split_path_models_the_kernel_on_cancelling_lanes(num_splits):
    """(a) the kernel's answer: 1e10 and -1e10 sit in lanes 0 and 15 of a 16-lane key group; each lane's float32
    partial keeps them and the float32 tree cancels the rest (3/62 * 62 = 3 is lost to 1e10's ulp): q.k = 0 for
    both keys, out [0.5, 0.5] (eco14's one fp64 sum gave [0.9526, 0.0474], no longer the kernel's); (b) within
    FlashAttention's rule against fp64 with eager float32 (q.k 0 too) as the low-precision baseline."""
    q, k, v, ref = _cancelling_lanes()
    with torch.no_grad():
        out = rocflash.flash_attn_with_kvcache(q, k, v, cache_seqlens=2, num_splits=num_splits, softmax_scale=1.0,
                                               backend="sim")
    assert out.flatten()[:2].tolist() == [0.5, 0.5], out.flatten()[:2].tolist()
    eager = torch.softmax(q[0, :, 0] @ k[0, :, 0].T, dim=-1) @ v[0, :, 0]
    assert eager.flatten()[:2].tolist() == [0.5, 0.5]
    tol = 2 * (eager.double() - ref[0, :, 0]).abs().max().item() + 1e-3
    assert (out.double() - ref).abs().max().item() <= tol


def test_dense_path_is_exact_on_cancelling_lanes():
    """(c) the dense forward sums the whole row in fp64 before its one rounding: exact (as the emulated dense
    kernel, tests/test_emu_overflow_parameters.py)."""
    q, k, v, ref = _cancelling_lanes()
    out = rocflash.flash_attn_func(q.requires_grad_(), k, v, softmax_scale=1.0, backend="sim")
    assert (out.detach().double() - ref).abs().max().item() <= 1e-6, out.flatten()[:2].tolist()


def test_split_path_meets_the_rule_on_random_fp32():
    """The lane model keeps the split path within FlashAttention's rule on ordinary fp32 decode (GQA, ALiBi,
    softcap), as before."""
    g = torch.Generator().manual_seed(3)
    for d, softcap in ((64, 0.0), (128, 30.0), (256, 0.0)):
        q = torch.randn(2, 1, 4, d, generator=g)
        k, v = (torch.randn(2, 150, 2, d, generator=g) for _ in range(2))
        slopes = torch.tensor([0.5, 0.25, 0.1, 0.0])
        args = FwdArgs(d ** -0.5, -1, -1, softcap, slopes)
        ref, _ = attention_reference(q.double(), k.double(), v.double(), args, torch.float64)
        low, _ = attention_reference(q, k, v, args, torch.float32)
        with torch.no_grad():
            out = rocflash.flash_attn_with_kvcache(q, k, v, cache_seqlens=150, num_splits=3, softcap=softcap,
                                                   alibi_slopes=slopes, backend="sim")
        tol = 2 * (low.double() - ref).abs().max().item() + 1e-3
        assert (out.double() - ref).abs().max().item() <= tol, d
