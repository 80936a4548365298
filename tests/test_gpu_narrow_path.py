"""The narrow (unaligned-row) load path of the tensor-core kernels at headdim 64 and 128, forward and backward,
against fp64 (marker gpu; skipped without a GPU).

The CUDA launchers take the narrow path when a row of Q, K, V, O (backward: also dO, dQ, dK, dV) does not start on
a 16-byte boundary or headdim does not fill whole 16-byte vectors (rocflash.backends.compiled.is_aligned). Since
stop 24 its copies keep two vectors in flight per thread (hip_src/fmha_mma.h and fmha_mma_bwd.h ``copy_rows``; the
ptxas audit, tests/test_mma_audit.py::test_narrow_path_kernels, shows no spill). Each case asserts first that its
inputs really are unaligned, so it cannot pass on the 128-bit path. Rules: FlashAttention's (conftest): forward
2x, backward 3x the low-precision eager error + 1e-3; outputs and gradients poisoned with NaN (conftest).
"""

from __future__ import annotations

import pytest
import torch

import rocflash
from conftest import DTYPES, assert_close_to_reference, assert_grads_close, fwd_args, gpu_platform, rand_qkv
from rocflash.backends.compiled import is_aligned

pytestmark = pytest.mark.gpu


def _shifted(x: torch.Tensor) -> torch.Tensor:
    """x's values in a view that starts one element past a 16-byte boundary (every row unaligned)."""
    buf = torch.empty(x.numel() + 1, dtype=x.dtype, device=x.device)
    y = buf[1:].view(x.shape)
    y.copy_(x)
    return y


def _inputs(layout: str, sq: int, sk: int, d: int, dtype, g):
    """(q, k, v, dout) on the narrow path: "offset" shifts every tensor by one element; "headdim" uses a headdim
    that is not a multiple of 8 (d - 8 + 3, same bucket)."""
    if layout == "headdim":
        d = d - 8 + 3
    q, k, v = rand_qkv(2, sq, sk, 4, 2, d, dtype, "cuda", g)
    dout = torch.randn(q.shape, generator=g).to("cuda", dtype)
    if layout == "offset":
        q, k, v, dout = (_shifted(t) for t in (q, k, v, dout))
    assert not is_aligned(q, k, v), f"{layout}: the inputs must take the narrow path"
    return q, k, v, dout, d


def _leaves(layout: str, *tensors: torch.Tensor) -> list[torch.Tensor]:
    """Fresh autograd leaves with the same values and the same (unaligned) placement: a clone would start on a
    new, aligned allocation."""
    out = [(_shifted(t.detach()) if layout == "offset" else t.detach().clone()).requires_grad_() for t in tensors]
    assert not is_aligned(*out), f"{layout}: the leaves must take the narrow path"
    return out


@pytest.mark.parametrize("layout", ["offset", "headdim"])
@pytest.mark.parametrize("dtype", ["fp16", "bf16"])
@pytest.mark.parametrize("headdim", [64, 128])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("sq,sk", [(129, 257), (300, 300), (1, 200)])
def test_forward(sq, sk, causal, headdim, dtype, layout):
    g = torch.Generator().manual_seed(sq * 7 + sk + headdim)
    q, k, v, _, d = _inputs(layout, sq, sk, headdim, DTYPES[dtype], g)
    out, lse, _ = rocflash.flash_attn_func(q, k, v, causal=causal, return_attn_probs=True, backend=gpu_platform())
    torch.cuda.synchronize()
    assert_close_to_reference(out, lse, q, k, v, fwd_args(d, causal), f"narrow fwd {layout} sq{sq} sk{sk} d{d} {dtype}")


@pytest.mark.parametrize("deterministic", [False, True], ids=["atomic_dq", "deterministic"])
@pytest.mark.parametrize("layout", ["offset", "headdim"])
@pytest.mark.parametrize("dtype", ["fp16", "bf16"])
@pytest.mark.parametrize("headdim", [64, 128])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("sq,sk", [(129, 257), (300, 300)])
def test_backward(sq, sk, causal, headdim, dtype, layout, deterministic):
    g = torch.Generator().manual_seed(sq * 5 + sk + headdim)
    q, k, v, dout, d = _inputs(layout, sq, sk, headdim, DTYPES[dtype], g)
    leaves = _leaves(layout, q, k, v)
    out = rocflash.flash_attn_func(*leaves, causal=causal, deterministic=deterministic, backend=gpu_platform())
    out.backward(dout)
    torch.cuda.synchronize()
    assert_grads_close(tuple(t.grad for t in leaves), q, k, v, dout, fwd_args(d, causal),
                       f"narrow bwd {layout} sq{sq} sk{sk} d{d} {dtype} deterministic={deterministic}")


@pytest.mark.parametrize("dtype", ["fp16", "bf16"])
def test_backward_bitwise_repeatable(dtype):
    """deterministic=True on the narrow path: two runs give the same bits (no atomics)."""
    g = torch.Generator().manual_seed(11)
    q, k, v, dout, _ = _inputs("offset", 257, 257, 128, DTYPES[dtype], g)
    runs = []
    for _ in range(2):
        leaves = _leaves("offset", q, k, v)
        rocflash.flash_attn_func(*leaves, causal=True, deterministic=True, backend=gpu_platform()).backward(dout)
        runs.append([t.grad.clone() for t in leaves])
    torch.cuda.synchronize()
    for a, b in zip(*runs):
        assert torch.equal(a, b)
