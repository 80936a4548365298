"""Rows whose every visible scaled score overflows float32 to -inf give NaN on the compiled kernels (issue 8, adv15's
defect 2), forward and backward, while rows that see no key keep 0 / LSE -inf and the other rows stay exact.

Marker ``gpu``; the checks and problems of tests/test_score_overflow.py (which runs them on sim and torch): dense
(the forward kernel with and without autograd, small seqlen_q through the split-KV decode), varlen (forward and the
fp32 backward), the KV cache dense and paged with one split (the split kernel writes NaN), several splits (the
combine) and the heuristic's count, and the sbcast forward (fp16 headdim 64, ROCFLASH_KERNEL=sbcast). Headdims 64
and 128 take the tensor-core forward under ROCFLASH_KERNEL=auto (the "pos" mode, softmax_scale > 0, its plain-score
kernels; "scale" its general-score ones), 32 and 96 the vector one; run the file under both ROCFLASH_KERNEL=auto and
vector. Outputs start as NaN in tests (conftest): the no-key and finite rows prove they were written; today's
kernels wrote 0 / -inf into the overflow rows, which these checks reject.
"""
from __future__ import annotations

import pytest
import torch

from conftest import gpu_platform
from rocflash.backends import compiled
from test_score_overflow import run_dense, run_kvcache, run_varlen

pytestmark = pytest.mark.gpu

DTYPES = {"fp16": torch.float16, "bf16": torch.bfloat16, "fp32": torch.float32}


@pytest.mark.parametrize("d", [pytest.param(d, id=f"d{d}") for d in (32, 64, 96, 128)])
@pytest.mark.parametrize("how, dtype", [("sum", "fp32"), ("scale", "fp16"), ("pos", "bf16"), ("pos", "fp16"),
                                        ("scale", "fp32")])
def test_dense_forward(how, dtype, d):
    run_dense(gpu_platform(), how, DTYPES[dtype], "cuda", sq=70, sk=66, h=4, hk=2, d=d)


@pytest.mark.parametrize("d", [pytest.param(d, id=f"d{d}") for d in (64, 128, 256)])
def test_dense_forward_backward_fp32(d):
    """The fp32 backward: its own statistics pass (l = 0 with visible keys: NaN 1/l) and the forward's."""
    run_dense(gpu_platform(), "sum", torch.float32, "cuda", sq=70, sk=66, h=4, hk=2, d=d, grad=True)


@pytest.mark.parametrize("how, dtype", [("pos", "fp16"), ("scale", "bf16"), ("sum", "fp32")])
def test_dense_decode(how, dtype):
    """seqlen_q 2 per query head without autograd: the split-KV decode kernel and its combine."""
    run_dense(gpu_platform(), how, DTYPES[dtype], "cuda", sq=2, sk=700, h=8, hk=1, d=128)


@pytest.mark.parametrize("how, dtype, grad", [("sum", "fp32", True), ("pos", "fp16", False), ("scale", "bf16", False)])
def test_varlen(how, dtype, grad):
    run_varlen(gpu_platform(), how, DTYPES[dtype], "cuda", grad=grad, lens=((70, 66), (3, 400), (5, 5)), h=4, hk=2, d=128)


@pytest.mark.parametrize("num_splits, page", [(1, None), (4, None), (0, None), (1, 16), (3, 16), (0, 256)])
@pytest.mark.parametrize("how, dtype", [("pos", "fp16"), ("scale", "bf16"), ("sum", "fp32")])
def test_kvcache(how, dtype, num_splits, page):
    run_kvcache(gpu_platform(), how, DTYPES[dtype], "cuda", sq=3, sk=700, h=8, hk=2, d=128, num_splits=num_splits,
                page=page)


@pytest.mark.parametrize("num_splits", [1, 3])
@pytest.mark.parametrize("how, dtype", [("pos", "fp16"), ("sum", "fp32")])
def test_kvcache_rows_without_keys(how, dtype, num_splits):
    """Rows that see no key (seqlen_q 5 > cache length 2, causal) in the split-KV blocks of overflow rows."""
    run_kvcache(gpu_platform(), how, DTYPES[dtype], "cuda", sq=5, sk=2, h=8, hk=2, d=128, num_splits=num_splits)


@pytest.mark.parametrize("how", ["pos"])
def test_sbcast_forward(monkeypatch, how):
    monkeypatch.setenv(compiled.KERNEL_ENV, "sbcast")
    run_dense(gpu_platform(), how, torch.float16, "cuda", sq=70, sk=66, h=2, hk=1, d=64)
