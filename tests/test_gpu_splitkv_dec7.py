"""dec7's split-count rule of the tensor-core split-KV decode kernel on a GPU (marker ``gpu``):
``ROCFLASH_SPLITKV_SPLITS=fill`` (rocflash.splitkv) plans the count rocflash.splitkv computes for this device and
the call stays within FlashAttention's rule against fp64. (dec7's K-first copies, ROCFLASH_SPLITKV_K_FIRST, lost on
the H200 and were removed by dec9, with their tests.)

Outputs poisoned with NaN (conftest); fresh random inputs. Skipped where the split kernel is the vector one
(the switch acts on the tensor-core kernel only).
"""

from __future__ import annotations

import pytest
import torch

import rocflash
from conftest import assert_close_to_reference, fwd_args, gpu_platform, rand_qkv
from rocflash import splitkv
from rocflash.backends import compiled

pytestmark = pytest.mark.gpu


@pytest.fixture
def platform():
    return gpu_platform()


def _require_mma(platform):
    if platform != "cuda" or compiled.last_kernels().get("fwd") != "mma":
        pytest.skip("the switches act on the CUDA build's tensor-core split kernel only")


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
