"""A bad ROCFLASH_INDEX_CHECKS value is an error on every call that takes index arguments (flash_attn_with_kvcache
dense/paged, with and without appended k/v, and flash_attn_varlen_func), on every backend: never ignored.
(New-user finding: a paged append and the varlen call ignored it on CPU.)"""
import pytest
import torch

import rocflash

BAD = r"ROCFLASH_INDEX_CHECKS must be one of device, host, off, got 'bogus'"


def _kvcache_args(paged: bool, append: bool):
    g = torch.Generator().manual_seed(0)
    b, hk, d, page = 2, 2, 32, 16
    q = torch.randn(b, 1, 4, d, generator=g)
    if paged:
        k_cache = torch.randn(4, page, hk, d, generator=g)
        block_table = torch.tensor([[0, 1], [2, 3]], dtype=torch.int32)
    else:
        k_cache = torch.randn(b, 2 * page, hk, d, generator=g)
        block_table = None
    v_cache = torch.randn_like(k_cache)
    kw = dict(cache_seqlens=torch.tensor([5, 9], dtype=torch.int32), block_table=block_table)
    if append:
        kw.update(k=torch.randn(b, 1, hk, d, generator=g), v=torch.randn(b, 1, hk, d, generator=g))
    return q, k_cache, v_cache, kw


@pytest.mark.parametrize("backend", ["torch", "sim"])
@pytest.mark.parametrize("paged", [False, True])
@pytest.mark.parametrize("append", [False, True])
def test_kvcache_bad_index_checks_value_raises(monkeypatch, backend, paged, append):
    monkeypatch.setenv("ROCFLASH_INDEX_CHECKS", "bogus")
    q, k_cache, v_cache, kw = _kvcache_args(paged, append)
    with pytest.raises(ValueError, match=BAD):
        rocflash.flash_attn_with_kvcache(q, k_cache, v_cache, backend=backend, **kw)
    monkeypatch.setenv("ROCFLASH_INDEX_CHECKS", "host")  # the same call with a valid value runs
    out = rocflash.flash_attn_with_kvcache(q, k_cache, v_cache, backend=backend, **kw)
    assert torch.isfinite(out).all()


@pytest.mark.parametrize("backend", ["torch", "sim"])
def test_varlen_bad_index_checks_value_raises(monkeypatch, backend):
    monkeypatch.setenv("ROCFLASH_INDEX_CHECKS", "bogus")
    q, k, v = (torch.randn(10, 2, 32) for _ in range(3))
    cu = torch.tensor([0, 4, 10], dtype=torch.int32)
    with pytest.raises(ValueError, match=BAD):
        rocflash.flash_attn_varlen_func(q, k, v, cu, cu, 6, 6, backend=backend)
    monkeypatch.setenv("ROCFLASH_INDEX_CHECKS", "off")
    assert torch.isfinite(rocflash.flash_attn_varlen_func(q, k, v, cu, cu, 6, 6, backend=backend)).all()
