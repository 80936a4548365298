"""The scalar-broadcast forward (ck_configs impl "sbcast", hip_src/fmha_fwd_sbcast.h) on the compiled backend, under
``ROCFLASH_KERNEL=sbcast``. Marker ``gpu``.

On the CUDA build this executes the kernel's logic (one query row per lane, the two tile loops, the masked tiles'
-inf select on S and AND on V pairs) with plain loads of the warp-uniform K/V rows instead of gfx9 scalar loads; on
a gfx9 GPU it would run the scalar-load kernel itself (no such GPU here: the gfx906 code is checked on the emulator,
tests/test_emu_sbcast.py). Against fp64 with FlashAttention's rule, masks and partial tiles; NaN / inf in masked K
and V rows leave the rows that cannot see them bit-identical to the clean run; the backward (vector kernels) from
its softmax statistics; the scope errors.
"""

from __future__ import annotations

import math

import pytest
import torch

import rocflash
from conftest import garbage_in_key_rows, gpu_platform
from rocflash.backends import FwdArgs, compiled
from rocflash.backends.reference import attention_reference
from rocflash.masks import MaskRule

pytestmark = pytest.mark.gpu


@pytest.fixture(autouse=True)
def _sbcast(monkeypatch):
    monkeypatch.setenv(compiled.KERNEL_ENV, "sbcast")


def _inputs(b, sq, sk, h, hk, d, seed):
    g = torch.Generator().manual_seed(seed)
    mk = lambda *s: torch.randn(*s, generator=g).half().cuda()  # noqa: E731
    return mk(b, sq, h, d), mk(b, sk, hk, d), mk(b, sk, hk, d)


def _forward(q, k, v, window):
    out, lse, _ = rocflash.flash_attn_func(q, k, v, window_size=window, return_attn_probs=True,
                                           backend=gpu_platform())
    torch.cuda.synchronize()
    assert compiled.last_kernels()["fwd"] == "sbcast"
    return out, lse


CASES = [  # (batch, seqlen_q, seqlen_k, nheads, nheads_k, headdim, (window_left, window_right))
    (1, 70, 37, 2, 1, 128, (-1, -1)), (2, 300, 1000, 4, 2, 128, (-1, 0)), (1, 1000, 300, 2, 2, 128, (-1, 0)),
    (1, 513, 513, 2, 1, 128, (64, 7)), (2, 257, 700, 4, 4, 64, (-1, -1)), (1, 600, 900, 2, 1, 64, (-1, 0)),
    (1, 400, 400, 2, 2, 64, (30, -1)), (1, 200, 520, 3, 1, 64, (-1, 10)),
]


def _compiled_headdims() -> set[int]:
    """The headdims with a scalar-broadcast instance in this build (CUDA: 64 only, see ck_configs)."""
    return {i["headdim"] for i in compiled.load_module(gpu_platform()).instances() if i["impl"] == "sbcast"}


@pytest.mark.parametrize("b,sq,sk,h,hk,d,window", CASES)
def test_sbcast_matches_fp64(b, sq, sk, h, hk, d, window):
    q, k, v = _inputs(b, sq, sk, h, hk, d, seed=sq + sk + d)
    if d not in _compiled_headdims():
        with pytest.raises(ValueError, match=f"no scalar-broadcast instance compiled for headdim {d}"):
            _forward(q, k, v, window)
        return
    out, lse = _forward(q, k, v, window)
    args = FwdArgs(1 / math.sqrt(d), window[0], window[1], 0.0, None)
    ref, ref_lse = attention_reference(q.cpu(), k.cpu(), v.cpu(), args, compute_dtype=torch.float64)
    low, _ = attention_reference(q.cpu(), k.cpu(), v.cpu(), args, compute_dtype=torch.float16)
    out = out.cpu().double()
    assert torch.isfinite(out).all()
    err = (out - ref.double()).abs().max().item()
    tol = 2 * (low.double() - ref.double()).abs().max().item() + 1e-3
    assert err <= tol, f"max error {err:.3g} > tolerance {tol:.3g}"
    fin = torch.isfinite(ref_lse)
    assert torch.equal(torch.isfinite(lse.cpu()), fin)
    assert (lse.cpu().double() - ref_lse.double())[fin].abs().max().item() < 1e-3


@pytest.mark.parametrize("what", ["k", "v"])
@pytest.mark.parametrize("d,window,keys", [(64, (-1, 0), [280, 299]), (64, (16, 16), [5, 100, 299]),
                                           (64, (40, -1), [0, 150]), (128, (-1, 0), [280, 299])])
def test_sbcast_masked_garbage_changes_nothing(d, window, keys, what):
    sq = sk = 300
    if d not in _compiled_headdims():
        pytest.skip(f"no scalar-broadcast instance for headdim {d} in this build (test_sbcast_matches_fp64 checks the error)")
    q, k, v = _inputs(1, sq, sk, 2, 1, d, seed=d + len(keys))
    clean, clean_lse = _forward(q, k, v, window)
    kg, vg = garbage_in_key_rows(k, v, keys, what)
    dirty, dirty_lse = _forward(q, kg, vg, window)
    rule = MaskRule(sq, sk, window[0], window[1])
    blind = ~rule.visible_grid(torch.arange(sq), torch.arange(sk))[:, keys].any(dim=1).cuda()
    assert blind.any() and (~blind).any()
    assert torch.equal(dirty[:, blind], clean[:, blind]), "garbage of a masked key changed a row that cannot see it"
    assert torch.equal(dirty_lse[:, :, blind], clean_lse[:, :, blind])
    assert not torch.isfinite(dirty[:, ~blind]).all()  # the rows that see it do get it


def test_sbcast_refuses_calls_that_need_a_gradient():
    """The scalar-broadcast forward serves inference calls only: a call whose inputs need a gradient raises under
    ROCFLASH_KERNEL=sbcast (auto takes another forward), naming why (issue 8: one-key rows' gradients)."""
    q, k, v = _inputs(1, 300, 500, 2, 1, 64, seed=7)
    out = rocflash.flash_attn_func(q, k, v, causal=True, backend=gpu_platform())
    assert compiled.last_kernels()["fwd"] == "sbcast"
    q.requires_grad_()
    with pytest.raises(ValueError, match="ROCFLASH_KERNEL=sbcast: .*inference calls only"):
        rocflash.flash_attn_func(q, k, v, causal=True, backend=gpu_platform())
    assert torch.isfinite(out).all()


def test_sbcast_scope_errors():
    q, k, v = _inputs(1, 300, 300, 2, 2, 96, seed=1)
    with pytest.raises(ValueError, match=r"ROCFLASH_KERNEL=sbcast: .*headdim in \(64, 128\)"):
        rocflash.flash_attn_func(q, k, v, backend=gpu_platform())
    q, k, v = _inputs(1, 300, 300, 2, 2, 64, seed=1)
    with pytest.raises(ValueError, match="ROCFLASH_KERNEL=sbcast: .*takes fp16"):
        rocflash.flash_attn_func(q.bfloat16(), k.bfloat16(), v.bfloat16(), backend=gpu_platform())
    with pytest.raises(ValueError, match="ROCFLASH_KERNEL=sbcast: .*plain scores"):
        rocflash.flash_attn_func(q, k, v, softcap=30.0, backend=gpu_platform())
