"""Non-finite alibi_slopes are rejected before launch (ValueError naming the argument, the rule and the value) by
every public call that takes them: a NaN slope made its head's output silently NaN."""

from __future__ import annotations

import pytest
import torch

import rocflash
from rocflash.parallel import ring_flash_attn_func, ring_flash_attn_varlen_func

BAD = [float("nan"), float("inf"), float("-inf")]
MATCH = r"alibi_slopes must be finite \(one float32 slope per head\), got {} at index \({}\)"


def _slopes(bad, batched=False):
    s = torch.tensor([0.5, 0.25, 0.125])
    if batched:
        s = s.expand(2, 3).clone()
        s[1, 2] = bad
        return s, "1, 2"
    s[1] = bad
    return s, "1,"


def _match(bad, where):
    return MATCH.format(str(bad).replace("+", r"\+"), where)


@pytest.mark.parametrize("bad", BAD)
@pytest.mark.parametrize("batched", [False, True])
@pytest.mark.parametrize("backend", ["sim", "torch"])
def test_flash_attn_func(bad, batched, backend):
    q = torch.randn(2, 5, 3, 8)
    slopes, where = _slopes(bad, batched)
    with pytest.raises(ValueError, match=_match(bad, where)):
        rocflash.flash_attn_func(q, q, q, alibi_slopes=slopes, backend=backend)
    rocflash.flash_attn_func(q, q, q, alibi_slopes=torch.nan_to_num(slopes, 1.0, 1.0, 1.0), backend=backend)


@pytest.mark.parametrize("bad", BAD)
def test_varlen(bad):
    q = torch.randn(9, 3, 8)
    cu = torch.tensor([0, 4, 9], dtype=torch.int32)
    slopes, where = _slopes(bad, batched=True)
    with pytest.raises(ValueError, match=_match(bad, where)):
        rocflash.flash_attn_varlen_func(q, q, q, cu, cu, 5, 5, alibi_slopes=slopes, backend="sim")


@pytest.mark.parametrize("bad", BAD)
def test_kvcache(bad):
    q = torch.randn(2, 1, 3, 8)
    cache = torch.randn(2, 16, 3, 8)
    slopes, where = _slopes(bad)
    with pytest.raises(ValueError, match=_match(bad, where)):
        rocflash.flash_attn_with_kvcache(q, cache, cache, cache_seqlens=torch.tensor([5, 9], dtype=torch.int32),
                                         alibi_slopes=slopes, backend="sim")


@pytest.mark.parametrize("bad", BAD)
def test_ring(bad):
    """Ring attention does not implement ALiBi (NotImplementedError), but a bad value is named first."""
    q = torch.randn(1, 6, 3, 8)
    slopes, where = _slopes(bad)
    with pytest.raises(ValueError, match=_match(bad, where)):
        ring_flash_attn_func(q, q, q, alibi_slopes=slopes)
    with pytest.raises(ValueError, match=_match(bad, where)):
        ring_flash_attn_varlen_func(q[0], q[0], q[0], torch.tensor([0, 6], dtype=torch.int32), 6, alibi_slopes=slopes)
