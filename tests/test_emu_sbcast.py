"""The gfx906 scalar-broadcast forward (hip_src/fmha_fwd_sbcast.h, issue 10 item 5) executed on the emulator.

Both of its launches (K/V preparation into NaN-poisoned workspaces, then the forward) run on the emulator
and O / LSE are checked against the fp64 reference with FlashAttention's tolerance rule. Shapes with a
partial query workgroup (rows past seqlen_q), a partial last key tile (keys past seqlen_k), seqlen_q != seqlen_k
both ways and GQA. The variant is not dispatched (not in ck_configs/); its scope errors are checked too.
Functional semantics as the emulator reads the Vega ISA manual: no timing, not silicon.
"""

from __future__ import annotations

import math
import os

import pytest
import torch

from rocflash import build
from rocflash.backends import FwdArgs
from rocflash.backends.reference import attention_reference

pytestmark = pytest.mark.toolchain


@pytest.fixture(scope="module", autouse=True)
def _toolchain():
    try:
        build.find_hipcc()
        build.find_tool("ROCFLASH_CLANG", ["clang++-19", "clang++-18", "clang++-17", "clang++"], [])
    except build.BuildError as e:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true but the toolchain is missing ({e})")
        pytest.skip(f"toolchain missing: {e}")


def _inputs(b, sq, sk, h, hk, seed):
    g = torch.Generator().manual_seed(seed)
    mk = lambda *s: torch.randn(*s, generator=g).half()  # noqa: E731
    return mk(b, sq, h, 128), mk(b, sk, hk, 128), mk(b, sk, hk, 128)


@pytest.mark.parametrize("b,sq,sk,h,hk", [
    pytest.param(1, 70, 37, 2, 1, id="gqa-sq>sk-partial-key-tile"),
    pytest.param(2, 40, 64, 1, 1, id="sq<sk-full-key-tiles-batch2"),
])
def test_sbcast_forward_matches_fp64(b, sq, sk, h, hk):
    from rocflash.emu.driver_sbcast import run_forward_sbcast

    q, k, v = _inputs(b, sq, sk, h, hk, seed=sq * 131 + sk)
    args = FwdArgs(1 / math.sqrt(128), -1, -1, 0.0, None)
    out, lse, info = run_forward_sbcast(q, k, v, softmax_scale=args.softmax_scale)
    ref, ref_lse = attention_reference(q, k, v, args, compute_dtype=torch.float64)
    low, _ = attention_reference(q, k, v, args, compute_dtype=torch.float16)
    assert not out.isnan().any(), f"{info['kernel']}: NaN (unwritten or wrong) elements"
    err = (out.double() - ref.double()).abs().max().item()
    tol = 2 * (low.double() - ref.double()).abs().max().item() + 1e-3
    assert err <= tol, f"{info['kernel']}: max error {err:.3g} > tolerance {tol:.3g}"
    assert (lse.double() - ref_lse.double()).abs().max().item() < 1e-3


@pytest.mark.parametrize("kw,match", [
    ({"window_right": 0}, "no causal/window mask"),
    ({"window_left": 8}, "no causal/window mask"),
])
def test_sbcast_scope_errors(kw, match):
    from rocflash.emu.driver_sbcast import run_forward_sbcast

    q, k, v = _inputs(1, 8, 8, 1, 1, seed=1)
    with pytest.raises(ValueError, match=match):
        run_forward_sbcast(q, k, v, **kw)
    with pytest.raises(ValueError, match="headdim == 128"):
        run_forward_sbcast(q[..., :64], k[..., :64], v[..., :64])
